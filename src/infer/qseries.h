/* qseries.h - what the flows of one bottleneck are compared by, over time.
 *
 * Flows that share a bottleneck can only be compared over the time they
 * share it, and whether their delays move together says whether they wait
 * in one queue. So every TCP direction that carries data keeps, in bins of
 * packet time, its payload, its data segments, the CE it carries here, the
 * marks fed back on it, and the round trips sampled for it from either
 * loop (infer.h): data to its ACK (downstream of this capture point) and
 * the other way's TSvals echoed by its sender (upstream), as the lowest
 * absolute RTT of each bin, so that one base RTT can be taken for every
 * flow of a path, and an ACK the receiver delayed (a turnaround, not a
 * queue) does not count.
 *
 * Bins are EW_QS_WIDTH_NS wide and aligned to multiples of their width in
 * packet time, so that any two series line up; when a series runs out of
 * bins, neighbouring bins merge and the width doubles (still aligned).
 * Memory is bounded: series come from a pool allocated once (max_series of
 * them); a direction that finds the pool full gets none, and that is
 * counted. Always on: the live view and every report use it, whatever
 * --timeseries says (series.h is the one written out). */
#ifndef ECNWATCH_QSERIES_H
#define ECNWATCH_QSERIES_H

#include <stdbool.h>
#include <stdint.h>

#define EW_QS_BINS 256
#define EW_QS_WIDTH_NS 100000000 /* 100 ms */
/* RTTs are kept in units of 10 us */
#define EW_QS_RTT_UNIT_NS 10000
/* directions with a series at once, by default */
#define EW_QS_MAX 1024

struct ew_qbin {
    uint32_t bytes;        /* payload */
    uint32_t dn_min;       /* the lowest data-to-ACK RTT, in EW_QS_RTT_UNIT_NS (dn_n > 0) */
    uint32_t up_min;       /* the lowest upstream timestamp loop RTT (up_n > 0) */
    uint16_t data, ce;     /* data segments; CE seen here */
    uint16_t marks, ece;   /* marks fed back: by the ACE counter (AccECN), as ECE runs (classic) */
    uint16_t dn_n, up_n;   /* the samples behind dn_min and up_min */
};

struct ew_qseries {
    uint64_t flow_id;      /* 0: free */
    int64_t t0, width;     /* bin 0 starts at t0, a multiple of width (ns) */
    uint16_t n;            /* bins in use */
    uint16_t pad[3];
    struct ew_qbin b[EW_QS_BINS];
};

struct ew_qseries_pool {
    struct ew_qseries *s;
    uint32_t cap;
    uint32_t *free_slot;   /* the unused series, a stack */
    uint32_t nfree;
    uint64_t refused;      /* directions that found the pool full */
};

struct ew_flow;
struct ew_pkt;

/* 0, or -1 when the pool cannot be allocated (max_series 0: no pool, every
 * direction refused) */
int ew_qseries_pool_init(struct ew_qseries_pool *p, uint32_t max_series);
void ew_qseries_pool_free(struct ew_qseries_pool *p);

/* One TCP packet of the flow's direction dir, before the inference takes
 * it: a direction's first data takes a series; where the packet's time
 * ends an interval, what the inference gathered over it (ew_half.qa) goes
 * into its series, and the next interval starts. The inference gathers;
 * a packet within the interval costs a comparison here. */
void ew_qseries_packet(struct ew_qseries_pool *p, struct ew_flow *f, int dir,
                       const struct ew_pkt *pkt, int64_t ts);

/* the series of the flow's direction dir, or NULL; its last interval is
 * still in ew_half.qa (ew_qseries_view has it) */
const struct ew_qseries *ew_qseries_get(const struct ew_qseries_pool *p, const struct ew_flow *f,
                                        int dir);

/* The series of the flow's direction dir as far as it goes: a copy into
 * *out with the interval still gathering in it. false when it has none. */
bool ew_qseries_view(const struct ew_qseries_pool *p, const struct ew_flow *f, int dir,
                     struct ew_qseries *out);

/* The series of sf (a flow of the pool `from`) copied as those of df, the
 * same flow in another table: a direction that has none takes one from p
 * (refused, and marked so, when p is full). */
void ew_qseries_copy(struct ew_qseries_pool *p, struct ew_flow *df,
                     const struct ew_qseries_pool *from, const struct ew_flow *sf);

/* the flow leaves the table: its series go back to the pool */
void ew_qseries_release(struct ew_qseries_pool *p, struct ew_flow *f);

#endif /* ECNWATCH_QSERIES_H */
