/* bottleneck.h - L4S against classic flows sharing a path in one capture.
 *
 * Flows between the same two hosts that overlap in time, L4S (ECT(1),
 * AccECN) against classic (ECT(0)), compared over the time they overlap
 * (their bottleneck series, qseries.h), against one base RTT for the path:
 * delays that move together are one queue; ECT(1) kept far shallower than
 * ECT(0), and marked, is a DualQ; delays that do not move together while
 * each flow is marked at a classic depth are flow queueing. What that shows
 * refines the flows' path verdicts, and an L4S flow marked in a queue it
 * shares with classic flows is the harm RFC 9331 §4.3 warns of
 * (classic_aqm_under_l4s): ew_bottleneck_apply() adds both to a flow's
 * summary, so that every output says the same. */
#ifndef ECNWATCH_BOTTLENECK_H
#define ECNWATCH_BOTTLENECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "infer/infer.h" /* enum ew_aqm */

struct ew_qseries_pool;

/* one kind of a group's flows (L4S or classic), added up over the time the
 * two kinds overlap (the whole flows where that time is not known), its
 * numbers rounded down as the report shows them */
struct ew_bottleneck_side {
    uint64_t *ids;          /* the flows, in report order: n of them */
    size_t n;
    double throughput_mbps; /* their sum, to 0.001 */
    double ce_per_packet;   /* CE marks per data packet, to 0.00001 */
    uint64_t marks;         /* CE marks, seen or fed back */
    bool has_qdelay;        /* qdelay_ms measured on at least one flow */
    double qdelay_ms;       /* their mean queueing delay above the base RTT, to 0.001 */
};

/* a group of flows between the same two hosts, overlapping in time, with
 * both an L4S and a classic flow */
struct ew_bottleneck {
    char hosts[2][64];      /* the lower address, then the higher */
    const char *looks_like; /* "dualq", "single_queue", "fq" or "unknown" */
    char reason[400];       /* why, in words */
    bool likely;            /* looks_like is a guess from evidence (else "unknown") */
    bool has_ratio;         /* the classic flows had throughput */
    double ratio;           /* L4S to classic throughput, to 0.001 */
    bool over_overlap;      /* the numbers are over the overlap, from the flows' series */
    double overlap_s;       /* how long the two kinds overlapped, s */
    bool has_base;
    double base_rtt_ms;     /* the path's base RTT: the lowest of its flows' */
    bool has_corr;
    double corr;            /* the two kinds' delays per interval, Pearson's r, to 0.001 */
    struct ew_bottleneck_side l4s, classic;
};

/* what a flow's group says of it (ew_bottleneck_apply) */
struct ew_bn_role {
    uint64_t id;
    uint32_t group;
    bool l4s;
    /* an L4S flow CE-marked in one queue with classic flows, by an AQM that
     * marks it as a classic one does (its own marks line up at a classic
     * depth, or both kinds are marked alike), or where the L4S flows take
     * more than their share: classic_aqm_under_l4s */
    bool harm;
};

struct ew_bottlenecks {
    struct ew_bottleneck *g; /* in report order of their first flows */
    size_t n;
    struct ew_bn_role *role; /* every member of every group, by id */
    size_t nrole;
};

struct ew_flow;
struct ew_flow_summary;

/* What the grouping reads of the flows, gathered one flow at a time as each
 * is concluded (conclusions.h), in report order (by id). */
struct ew_bn_member;
struct ew_bn_members {
    struct ew_bn_member *m;
    size_t n, cap;
    bool nomem; /* a flow could not be kept: no groups */
};
#define EW_BN_MEMBERS_INIT {NULL, 0, 0, false}

/* Flow f, concluded as s (with its path verdicts), as a candidate; qs: its
 * series (NULL: the whole flows are compared). */
void ew_bottlenecks_add(struct ew_bn_members *ms, const struct ew_qseries_pool *qs,
                        const struct ew_flow *f, const struct ew_flow_summary *s);
/* One entry per group of the flows gathered between the same two hosts,
 * overlapping in time, that holds both an L4S (ECT(1), AccECN) and a classic
 * (ECT(0)) flow; the members are used up. Out of memory, the groups found so
 * far. Released with ew_bottlenecks_free(). O(n^2) in the worst case over
 * the flows, each compared once per group. */
void ew_bottlenecks_group(struct ew_bn_members *ms, struct ew_bottlenecks *out);
void ew_bottlenecks_free(struct ew_bottlenecks *b);

/* A flow's conclusion in the light of its bottleneck: its path verdict
 * refined (a classic AQM's queue: a DualQ's classic queue, one queue shared
 * with the other flows, a flow queue of its own) where the summary has one,
 * and classic_aqm_under_l4s added to the findings of an L4S flow marked in
 * one queue with classic flows. Nothing for a flow in no group. */
void ew_bottleneck_apply(const struct ew_bottlenecks *b, const struct ew_flow *f,
                         struct ew_flow_summary *s);

/* The parts of that for a flow's compact conclusion (conclusions.h): its
 * role, NULL for a flow in no group; and its main direction's path verdict
 * refined, from its own verdict, whether too few marks named it, and
 * whether it was marked at all (aqm itself when the group says no more). */
const struct ew_bn_role *ew_bottleneck_role(const struct ew_bottlenecks *b, uint64_t id);
enum ew_aqm ew_bottleneck_refine(const struct ew_bottlenecks *b, const struct ew_bn_role *r,
                                 enum ew_aqm aqm, bool few_marks, bool marked);

#endif /* ECNWATCH_BOTTLENECK_H */
