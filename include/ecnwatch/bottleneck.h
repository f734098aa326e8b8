/* bottleneck.h - L4S against classic flows sharing a path in one capture. */
#ifndef ECNWATCH_BOTTLENECK_H
#define ECNWATCH_BOTTLENECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ew_flowtab;

/* one kind of a group's flows (L4S or classic), added up, its numbers
 * rounded down as the report shows them */
struct ew_bottleneck_side {
    uint64_t *ids;          /* the flows, in report order: n of them */
    size_t n;
    double throughput_mbps; /* their sum, to 0.001 */
    double ce_per_packet;   /* CE marks per data packet, to 0.00001 */
    bool has_qdelay;        /* qdelay_ms measured on at least one flow */
    double qdelay_ms;       /* the mean of those flows', to 0.001 */
};

/* a group of flows between the same two hosts, overlapping in time, with
 * both an L4S and a classic flow */
struct ew_bottleneck {
    char hosts[2][64];      /* the lower address, then the higher */
    const char *looks_like; /* "dualq", "single_queue" or "unknown" */
    char reason[320];       /* why, in words */
    bool has_ratio;         /* the classic flows had throughput */
    double ratio;           /* L4S to classic throughput, to 0.001 */
    struct ew_bottleneck_side l4s, classic;
};

struct ew_bottlenecks {
    struct ew_bottleneck *g; /* in report order of their first flows */
    size_t n;
};

/* One entry per group of flows between the same two hosts, overlapping in
 * time, that holds both an L4S (ECT(1), AccECN) and a classic (ECT(0)) flow;
 * the flows are tab's refs[0, n), in id order. Out of memory, the groups
 * found so far. Released with ew_bottlenecks_free(). O(n^2) in the worst
 * case over the flows held, each compared once per group. */
void ew_bottlenecks_find(const struct ew_flowtab *tab, const uint32_t *refs, size_t n,
                         struct ew_bottlenecks *out);
void ew_bottlenecks_free(struct ew_bottlenecks *b);

/* The classic flows of the groups that look like a DualQ: sorted ids, *n of
 * them; NULL when none (or no memory). The caller frees. */
uint64_t *ew_bottleneck_dualq_classics(const struct ew_bottlenecks *b, size_t *n);

struct ew_flow_summary;

/* A flow's path verdict in the light of its bottleneck: a classic flow
 * through a DualQ (id among ids[0, n)) marked at classic delays is in the
 * DualQ's classic queue, not in a classic single-queue AQM. */
void ew_bottleneck_refine(const uint64_t *ids, size_t n, uint64_t id, struct ew_flow_summary *r);

#endif /* ECNWATCH_BOTTLENECK_H */
