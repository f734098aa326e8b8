/* snapshot.h - the live list: a pass of conclusions (conclusions.h) as
 * rows with what the list shows, sorts and filters by (a flow's counters,
 * its ends, its rate), about a hundred bytes a flow, so that a table of
 * 65,536 flows fits in a few megabytes. A reader of rows concludes nothing.
 * The allocation is kept across builds and follows the number of flows
 * held. */
#ifndef ECNWATCH_SNAPSHOT_H
#define ECNWATCH_SNAPSHOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine/analyze.h"
#include "findings/conclusions.h"
#include "flow/flowtab.h"

/* the live list's sort keys: all descending, then by id ascending */
enum ew_snap_sort {
    EW_SNAP_SORT_PACKETS,
    EW_SNAP_SORT_CE,     /* CE share of the list direction */
    EW_SNAP_SORT_ECT1,   /* ECT(1) share of the list direction */
    EW_SNAP_SORT_RECENT, /* last packet */
    EW_SNAP_SORT_ID,     /* first seen */
    EW_SNAP_SORT_RATE,   /* bit rate over the last interval (ew_snapshot_rates) */
    EW_SNAP_SORT_COUNT,
};

/* a row's flags */
enum {
    EW_SNAP_ENDED = 1u << 0,        /* ended by the idle timeout */
    EW_SNAP_QUIC = 1u << 1,         /* the QUIC rule decided the verdict */
    EW_SNAP_NEG_INFERRED = 1u << 2, /* handshake not captured */
    EW_SNAP_HAS_PATH = 1u << 3,     /* aqm was concluded (EW_PASS_PATHS) */
};

/* one flow */
struct ew_snap_row {
    uint64_t id;
    int64_t last_ns;
    uint64_t pkts;          /* both directions */
    uint64_t bytes;         /* IP bytes, both directions */
    float bps, pps;         /* bits and packets per second, both directions, over the
                             * last interval; -1 unknown (ew_snapshot_rates) */
    double ce, e1;          /* CE and ECT(1) shares of the list direction's packets */
    struct ew_flow_key key;
    uint32_t ref;           /* for ew_flowtab_view(): valid until the table changes */
    uint32_t at;            /* its row in the pass it was built from */
    uint32_t kinds;         /* bit (1 << kind) of every finding */
    uint8_t verdict;        /* enum ew_verdict */
    int8_t neg;             /* enum ew_neg */
    uint8_t nf;             /* findings */
    uint8_t flags;
    uint8_t client_dir;     /* canonical direction of client to server */
    uint8_t main_dir;       /* the verdict's data direction (canonical) */
    uint8_t dir;            /* the list direction (ew_snap_list_dir) */
    uint8_t aqm;            /* enum ew_aqm: the path verdict of main_dir */
    uint8_t ect1[2];        /* enum ew_ect1, by canonical direction */
    uint8_t fb[2];          /* enum ew_fb, by canonical direction */
    uint8_t tun;            /* the flow's outermost encapsulation (tunrec.h): enum ew_tunnel + 1; 0: none */
};

struct ew_snapshot {
    struct ew_snap_row *rows; /* ordered by id until sorted */
    size_t n;                 /* rows (after a filter: the rows kept) */
    size_t held;              /* flows in the table at the build */
    size_t step;              /* a row for every step-th flow by id (budget) */
    /* kept across builds */
    size_t cap;
    struct ew_flow_room *room;
};

#define EW_SNAPSHOT_INIT {NULL, 0, 0, 1, 0, NULL}

/* A row for each row of the pass c (which must still hold: the table has
 * not changed since it was built), in its order. 0, or -1 out of memory
 * (then no rows; held is set). */
int ew_snapshot_build(struct ew_snapshot *s, const struct ew_conclusions *c);
void ew_snapshot_free(struct ew_snapshot *s);

/* Every flow's counters at one moment, ordered by id: what the rates
 * between two moments are taken from. The allocation is kept. */
struct ew_snap_count {
    uint64_t id, bytes, pkts;
};
struct ew_snap_counts {
    struct ew_snap_count *c;
    size_t n, cap;
    int64_t t_ns;         /* when they were taken (the caller's clock) */
    uint64_t bytes, pkts; /* all IP packets of the capture */
    bool taken;
};
#define EW_SNAP_COUNTS_INIT {NULL, 0, 0, 0, 0, 0, false}

/* Take every held flow's counters at t_ns. 0, or -1 out of memory (then
 * nothing is taken). */
int ew_snap_counts_take(struct ew_snap_counts *c, const struct ew_analyzer *an, int64_t t_ns);
void ew_snap_counts_free(struct ew_snap_counts *c);
/* Rates per second between two takes a (earlier) and b: a flow found in b
 * gets (b - a) / (b.t - a.t), a flow new since a counting from zero; a row
 * not in b, or with a or b not taken, gets -1. The rows must still be in id
 * order (before a sort). */
void ew_snapshot_rates(struct ew_snapshot *s, const struct ew_snap_counts *a,
                       const struct ew_snap_counts *b);

/* Keep the rows that match text (lower case; "" keeps all), in their order.
 * Returns how many. */
size_t ew_snapshot_filter(struct ew_snapshot *s, const char *text);
void ew_snapshot_sort(struct ew_snapshot *s, enum ew_snap_sort key);

/* the live view's filter: text is found in "client>server proto
 * negotiation verdict ect1-meaning-of-the-main-direction ip-protocol-name"
 * (the last as the live view's PROTO column names it: "icmp", "sctp"...),
 * in lower case */
bool ew_snap_row_matches(const struct ew_snap_row *r, const char *text);
/* "client:port>server:port" ("client>server" without ports) */
void ew_snap_endpoints(const struct ew_snap_row *r, char *buf, size_t len);

/* The direction the live list shows of a flow: the one with more payload,
 * or with none on the client's side the one with more packets. */
int ew_snap_list_dir(const struct ew_flow *f);

#endif /* ECNWATCH_SNAPSHOT_H */
