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

#endif /* ECNWATCH_BOTTLENECK_H */
