/* conclusions.h - one pass of conclusions: every flow of the table (or the
 * flows asked for) concluded once (conclude.h) into a compact row, the
 * flows that share a bottleneck grouped (bottleneck.h) and the rows refined
 * by their group, so that every output of the pass tells the same story.
 *
 * A pass is built per report, per interval and per live refresh; the
 * outputs read its rows (the live list, the metrics, --fail-on, the counts
 * of the summaries) and, for a flow they show in words, the flow's
 * conclusion whole (ew_conclusion_words(): its reasons, findings and
 * evidence written out from the same state, under the pass's bottlenecks,
 * and checked against its row). A row takes 48 bytes, so that a pass over a
 * million flows stays in tens of megabytes; the words of one flow are made
 * when it is written, in memory the writer owns.
 *
 * The table must not change while a pass is read: a row names its flow by
 * its ref. */
#ifndef ECNWATCH_CONCLUSIONS_H
#define ECNWATCH_CONCLUSIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "findings/bottleneck.h"
#include "findings/conclude.h"
#include "flow/flowtab.h"
#include "infer/qseries.h"

/* a row's flags */
enum {
    EW_CONCL_ENDED = 1u << 0,        /* ended by the idle timeout */
    EW_CONCL_QUIC = 1u << 1,         /* the QUIC rule decided the verdict */
    EW_CONCL_NEG_INFERRED = 1u << 2, /* handshake not captured */
    EW_CONCL_HAS_PATH = 1u << 3,     /* aqm[] was concluded (EW_PASS_PATHS) */
    EW_CONCL_LIKELY = 1u << 4,       /* the verdict rests on less than the whole story */
};

/* one flow's conclusion, compact */
struct ew_conclusion {
    uint64_t id;
    int64_t last_ns;
    uint32_t ref;     /* the flow in the table (ew_flowtab_view) */
    uint32_t kinds;   /* bit (1 << kind) of every finding, its bottleneck's included */
    uint8_t verdict;  /* enum ew_verdict */
    int8_t neg;       /* enum ew_neg */
    uint8_t nf;       /* findings */
    uint8_t flags;
    uint8_t main_dir; /* the verdict's data direction (canonical) */
    uint8_t aqm[2];   /* enum ew_aqm, by canonical direction, refined by the bottleneck */
    uint8_t ect1[2];  /* enum ew_ect1, by canonical direction */
    uint8_t fb[2];    /* enum ew_fb, by canonical direction */
};

/* what a pass holds beyond the verdicts and the findings */
enum {
    EW_PASS_PATHS = 1u << 0,       /* every row's path verdicts */
    EW_PASS_BOTTLENECKS = 1u << 1, /* the groups, and the rows refined by them (paths implied) */
};

/* which flows a pass concludes */
struct ew_pass_sel {
    enum ew_iter_which which; /* EW_ITER_HELD, _LIVE, or _RECENT since since_ns */
    int64_t since_ns;
    size_t budget;            /* at most this many rows: an even sample of every step-th
                               * flow; 0 or SIZE_MAX for all */
};

struct ew_conclusions {
    struct ew_conclusion *row; /* in the selection's order */
    size_t n;
    size_t held;               /* flows the selection held at the build */
    size_t step;               /* a row for every step-th of them */
    unsigned what;             /* EW_PASS_* it was built with */
    bool nomem;                /* the pass could not be built whole: no rows */
    struct ew_bottlenecks bn;  /* with EW_PASS_BOTTLENECKS */
    const struct ew_flowtab *tab;
    /* kept across builds */
    size_t cap;
    struct ew_flow_summary *sum;
};

#define EW_CONCLUSIONS_INIT {0}

/* Conclude the selected flows of tab once each (qs: their bottleneck
 * series, or NULL). 0, or -1 out of memory (then no rows; nomem set). The
 * rows' memory is kept for the next build. */
int ew_conclusions_build(struct ew_conclusions *c, const struct ew_flowtab *tab,
                         const struct ew_qseries_pool *qs, unsigned what,
                         const struct ew_pass_sel *sel);
void ew_conclusions_free(struct ew_conclusions *c);

/* Row i's flow, viewed into room, and its conclusion whole into *out, with
 * the parts asked for (EW_CONCLUDE_WORDS, _EVIDENCE; paths when the pass has
 * them): the same conclusion as the row, written out. */
const struct ew_flow *ew_conclusion_words(const struct ew_conclusions *c, size_t i, unsigned what,
                                          struct ew_flow_room *room, struct ew_flow_summary *out);

/* A flow a summary folds into one line: fewer than EW_SMALL_PKTS packets,
 * no ECN codepoint either way, no finding (mDNS, ICMP, a lone datagram:
 * the noise of a capture), as the text summary and the plots' index fold
 * them */
#define EW_SMALL_PKTS 20
bool ew_conclusion_small_plain(const struct ew_flow *f, const struct ew_conclusion *r);
/* The same with a limit of the caller's: fewer than pkts packets */
bool ew_conclusion_plain_below(const struct ew_flow *f, const struct ew_conclusion *r,
                               uint64_t pkts);

/* One flow outside a pass (a flow leaving the table): its row, concluded
 * into the scratch summary sum (with what, EW_CONCLUDE_*), which then holds
 * its conclusion whole. */
void ew_conclusion_of(const struct ew_flow *f, uint32_t ref, unsigned what,
                      struct ew_flow_summary *sum, struct ew_conclusion *row);

#endif /* ECNWATCH_CONCLUSIONS_H */
