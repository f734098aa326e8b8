/* analyze.h - the per-packet pipeline after dissection: totals, the flow
 * table and the per-direction ECN accounting. Single-threaded; one analyzer
 * per capture source. */
#ifndef ECNWATCH_ANALYZE_H
#define ECNWATCH_ANALYZE_H

#include <stdbool.h>
#include <stdint.h>

#include "flow/dedupe.h"
#include "flow/flowtab.h"
#include "flow/tunrec.h"
#include "findings/misuse.h" /* EW_MU_MASK_BITS: the findings counted per kind */
#include "infer/negotiation.h" /* enum ew_neg, ew_flow_negotiation(): for the flows it keeps */
#include "dissectors/pkt.h"
#include "infer/qseries.h"
#include "infer/series.h"

struct ew_quic_pool;

struct ew_totals {
    uint64_t frames;       /* every record read */
    uint64_t ip_packets;   /* frames with a usable IP header (counted by codepoint) */
    uint64_t non_ip;       /* ARP, LLC, ...: not an error */
    uint64_t undecodable;  /* no usable IP header: truncated or invalid below IP */
    uint64_t truncated;    /* frames with any *_truncated event */
    uint64_t invalid;      /* frames with an invalid-header event */
    uint64_t ecn[4];
    uint64_t events[EW_EV_COUNT];
    uint64_t ecn_bytes[4]; /* IP bytes (as the IP header states them) by codepoint */
    uint64_t duplicates;   /* IP packets captured twice: the copies, left out of every count */
    uint64_t duplicates_unsure; /* the same TCP bytes again where a copy and a resend look alike */
    uint64_t tunnelled;    /* IP packets counted that came through a tunnel (tunrec.h) */
    uint64_t tunnelled_flows; /* flows that were given a tunnel record */
    uint64_t tunnel_pair[4][4]; /* tunnelled packets compared (tunrec.h), by outer and inner enum ew_ecn */
};

/* How whole the capture is (dedupe.h, infer.h): copies left out, possible
 * copies kept, TCP data the receivers acknowledged that was not captured,
 * and the TCP flows joined after their handshake; flows that left the
 * table included. */
struct ew_quality {
    uint64_t duplicates, duplicates_unsure;
    uint64_t missed_bytes;
    uint64_t flows_missed;      /* TCP flows with missed data */
    uint64_t flows_midstream;   /* TCP flows whose handshake was not captured */
};
struct ew_conclusion;

/* a flow about to leave the table and its row, concluded once
 * (conclusions.h); its words, when the callee shows it, are written out
 * with ew_conclusion_of() */
typedef void (*ew_analyzer_evict_fn)(void *arg, const struct ew_flow *f,
                                     const struct ew_conclusion *row);

struct ew_analyzer_cfg {
    uint32_t max_flows;
    uint32_t hot_flows; /* flows kept unpacked (flow.h); 0: EW_HOT_FLOWS */
    uint64_t hash_seed;
    int64_t idle_ns;
    ew_analyzer_evict_fn on_evict; /* optional: sees each flow before its record is reused */
    void *evict_arg;
    ew_flow_evict_fn on_end;   /* optional: sees each flow the idle timeout ends */
    void *end_arg;
    /* directions with a bottleneck series (qseries.h); 0: EW_QS_MAX */
    uint32_t max_qseries;
    /* the table of packets seen, to find copies (dedupe.h): 2^n slots; 0:
     * EW_DUP_SLOTS_LOG2 */
    uint32_t dup_slots_log2;
};

struct ew_analyzer {
    struct ew_flowtab *tab;
    struct ew_quic_pool *quic; /* QUIC connection state, one entry per flow at most (quic.h) */
    struct ew_tunnel_pool tun; /* the tunnels of flows, one entry per flow at most (tunrec.h) */
    struct ew_totals tot;
    /* findings of flows that left the table (evicted), by misuse kind */
    uint64_t evicted_findings[EW_MU_MASK_BITS];
    struct ew_quality evicted_quality; /* ... and what they said of the capture */
    ew_analyzer_evict_fn user_evict;
    void *user_evict_arg;
    struct ew_flow_summary *evict_sum; /* a flow leaving the table, concluded */
    struct ew_series_pool *series; /* per-flow time series, or NULL */
    struct ew_dedupe dedupe;       /* packets seen lately, to find copies */
    struct ew_qseries_pool qs;     /* what the flows of a bottleneck are compared by */
    int64_t first_ns, last_ns;
    bool have_time;
};

/* 0 on success, -1 when the flow table cannot be allocated. The analyzer
 * keeps its address in the flow table: do not move it after this call. */
int ew_analyzer_init(struct ew_analyzer *an, const struct ew_analyzer_cfg *cfg);
void ew_analyzer_free(struct ew_analyzer *an);

/* Account one decoded frame seen at packet time ts_ns. Frame numbers are
 * 1-based, in the order frames are given. */
void ew_analyzer_frame(struct ew_analyzer *an, const struct ew_pkt *pkt, int64_t ts_ns);

/* Reading ahead: a reader that decodes frames before it accounts them
 * prepares each (its flow key and hash: this only reads the analyzer, and
 * may run in another thread), asks for the flow's index slot to be fetched
 * into the cache, then for its record one frame later, and accounts it with
 * ew_analyzer_frame_prepared() in frame order, on the analyzer that prepared
 * it (the hash is seeded per table). Preparing and prefetching change
 * nothing that is found or reported. */
struct ew_prepared {
    struct ew_flow_key key;
    uint64_t dup_sig;   /* its signature among copies (dedupe.h), from the flow's hash */
    uint32_t hash;
    uint8_t dir;
    bool valid; /* the frame has a flow */
    bool dup_tells; /* the signature holds something a resend would change */
};
void ew_analyzer_prepare(const struct ew_analyzer *an, const struct ew_pkt *pkt,
                         struct ew_prepared *pre);
/* The same in another thread, which must not read the analyzer while it
 * accounts (its lines would travel between the processors on every frame):
 * with the seed of its table's hash, taken once. */
uint64_t ew_analyzer_seed(const struct ew_analyzer *an);
void ew_prepare_seeded(uint64_t seed, const struct ew_pkt *pkt, struct ew_prepared *pre);
void ew_analyzer_prefetch_slot(const struct ew_analyzer *an, const struct ew_prepared *pre);
void ew_analyzer_prefetch_flow(const struct ew_analyzer *an, const struct ew_pkt *pkt,
                               const struct ew_prepared *pre);
void ew_analyzer_frame_prepared(struct ew_analyzer *an, const struct ew_pkt *pkt, int64_t ts_ns,
                                const struct ew_prepared *pre);

/* segment kind of a TCP packet; updates the direction's sequence tracking */
enum ew_seg_kind ew_tcp_seg_kind(struct ew_dir_stats *d, const struct ew_tcp *t);

void ew_analyzer_quality(const struct ew_analyzer *an, struct ew_quality *q);

struct ew_conclusions;
struct ew_pass_sel;

/* A pass of conclusions over the analyzer's table (conclusions.h), with
 * what (EW_PASS_*) over the selected flows (NULL: every flow held). 0, or -1
 * out of memory. */
int ew_analyzer_pass(const struct ew_analyzer *an, struct ew_conclusions *c, unsigned what,
                     const struct ew_pass_sel *sel);

/* Flows with each misuse kind, those of the pass c (of every flow held) and
 * those evicted together: counts[kind] is the number of flows with at least
 * one finding of that kind. Returns the mask of kinds found. */
uint32_t ew_analyzer_findings(const struct ew_analyzer *an, const struct ew_conclusions *c,
                              uint64_t counts[EW_MU_MASK_BITS]);

#endif /* ECNWATCH_ANALYZE_H */
