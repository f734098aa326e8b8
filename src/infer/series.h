/* series.h - per-flow time series (--timeseries, --plot): for each direction,
 * bins of packet time holding packets, bytes, CE, ECT(1) and ECT(0) packets, marks fed
 * back, the lowest RTT seen and the queueing delay as the path verdict times
 * it (each sample above its running minimum, in a histogram, qdhist.h: data
 * to ACK, and the timestamp loop to the direction's sender and back). Memory is bounded: series come from a pool
 * allocated once (EW_SERIES_BINS bins each, at most max_series series); when
 * a series runs out of bins, neighbouring bins merge and the interval doubles.
 * Flows beyond the pool get no series, and that is counted. The series are
 * plain data: the report writes them (report.h), --plot draws them
 * (plot_svg.h). */
#ifndef ECNWATCH_SERIES_H
#define ECNWATCH_SERIES_H

#include <stdbool.h>
#include <stdint.h>

#include "infer/infer.h"

#define EW_SERIES_BINS 256

struct ew_bin {
    uint32_t bytes;
    uint16_t pkts, ce, e1, marks;
    uint16_t e0;         /* ECT(0) packets (the plots' codepoint panel) */
    uint32_t rtt_min_us; /* 0: no sample in this bin */
    /* queueing delay samples (infer_path.c's sources): data to ACK, and the
     * timestamp loop to d's sender and back; their histograms and counts */
    uint16_t qd_seq_n, qd_up_n;
    uint8_t qd_seq[EW_QD_BINS], qd_up[EW_QD_BINS];
};

struct ew_series {
    uint64_t flow_id;     /* 0: free */
    int64_t t0, width;    /* ns */
    uint16_t n;           /* bins in use */
    uint32_t last_rtt_samples, last_up_samples;
    uint64_t last_marks;
    struct ew_bin b[EW_SERIES_BINS];
};

struct ew_series_pool {
    struct ew_series *s;
    uint32_t cap;
    uint32_t *free_slot; /* the unused series, a stack */
    uint32_t nfree;
    int64_t width0;
    uint64_t refused; /* directions that wanted a series when the pool was full */
};

/* where a direction's queueing delay is timed from, as its path verdict
 * says (infer.h, ew_path_verdict.qdelay_from) */
enum ew_qd_src { EW_QS_NONE, EW_QS_SEQ, EW_QS_UP, EW_QS_BOTH };

/* from: "data_to_ack", "ts_from_sender", "both" or "none"; NULL (no verdict
 * to follow): data to ACK where s timed it, else the timestamp loop */
enum ew_qd_src ew_series_qd_src(const char *from, const struct ew_series *s);
/* the q-quantile (ms) of a bin's queueing delay from src (with both halves
 * of the loop, the two added); -1 when the bin has no sample */
double ew_bin_qdelay_ms(const struct ew_bin *b, enum ew_qd_src src, double q);

struct ew_flow;
struct ew_pkt;

int ew_series_pool_init(struct ew_series_pool *p, uint32_t max_series, int64_t width_ns);
void ew_series_pool_free(struct ew_series_pool *p);
/* account one packet of the flow's direction dir (after the analyzer did) */
void ew_series_packet(struct ew_series_pool *p, struct ew_flow *f, int dir,
                      const struct ew_pkt *pkt, int64_t ts);
/* the series of the flow's direction dir (canonical), or NULL when it has
 * none: its bins b[0] to b[n - 1], each width ns long from t0 */
const struct ew_series *ew_series_get(const struct ew_series_pool *p, const struct ew_flow *f,
                                      int dir);
/* the flow leaves the table: its series go back to the pool */
void ew_series_release(struct ew_series_pool *p, struct ew_flow *f);

#endif /* ECNWATCH_SERIES_H */
