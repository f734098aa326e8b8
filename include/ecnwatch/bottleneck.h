/* bottleneck.h - L4S against classic flows sharing a path in one capture. */
#ifndef ECNWATCH_BOTTLENECK_H
#define ECNWATCH_BOTTLENECK_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

struct ew_flowtab;

/* One entry per group of flows between the same two hosts, overlapping in
 * time, that holds both an L4S (ECT(1), AccECN) and a classic (ECT(0)) flow;
 * the flows are tab's refs[0, n), in id order. A new reference. O(n^2) in the
 * worst case over the flows held, each compared once per group. */
json_t *ew_bottlenecks_json(const struct ew_flowtab *tab, const uint32_t *refs, size_t n);

/* The classic flows of the groups that look like a DualQ, from a
 * bottlenecks array as ew_bottlenecks_json() made it: sorted ids, *n of
 * them; NULL when none (or no memory). The caller frees. */
uint64_t *ew_bottleneck_dualq_classics(const json_t *bottlenecks, size_t *n);

struct ew_flow_summary;

/* A flow's path verdict in the light of its bottleneck: a classic flow
 * through a DualQ (id among ids[0, n)) marked at classic delays is in the
 * DualQ's classic queue, not in a classic single-queue AQM. */
void ew_bottleneck_refine(const uint64_t *ids, size_t n, uint64_t id, struct ew_flow_summary *r);

#endif /* ECNWATCH_BOTTLENECK_H */
