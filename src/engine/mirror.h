/* mirror.h - the analyzers of a capture fanned out over workers (live.c,
 * --workers) seen as one analyzer, which every output reads as it reads the
 * analyzer of a capture without workers.
 *
 * The mirror is an analyzer of its own that is given no frames: at each
 * sync it takes from every worker's analyzer the flows active since the
 * previous sync (packet time, the worker's own), finds or creates each in
 * its own table by key (at the flow's first packet time, so that a flow
 * that followed an idle one of the same 5-tuple starts a new record there
 * as it did in the worker) and copies the worker's record over it
 * (ew_flowtab_copy); the flows created are created in the order of their
 * first packet, then key, and the flows of the sync are marked active in
 * the order of their last packet, so that the outputs' walks over the
 * recently active flows find them. The totals are the workers' summed.
 * What the mirror owns stays its own: flow ids, what the event stream has
 * written of each flow, the flows it ended or evicted (its idle timeout and
 * table size are the run's).
 *
 * A flow's QUIC state is the worker's and changes as its packets come: the
 * mirror points to it only at the final sync, when the workers have
 * stopped. Frame numbers (a flow's first and last frame, the evidence's)
 * count each worker's own frames.
 *
 * The caller keeps the workers' analyzers from changing during a sync (it
 * holds their locks, or they have stopped). */
#ifndef ECNWATCH_MIRROR_H
#define ECNWATCH_MIRROR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine/analyze.h"

#define EW_MIRROR_MAX 64 /* workers, at most */

struct ew_mirror_pick;

struct ew_mirror {
    struct ew_analyzer *an;           /* the mirror */
    struct ew_analyzer *w[EW_MIRROR_MAX];
    int n;
    int64_t since[EW_MIRROR_MAX];     /* each worker's latest packet time at the last sync */
    bool synced;
    struct ew_mirror_pick *pick;      /* scratch, kept across syncs */
    size_t cap;
    struct ew_flow_room *room;
};

/* The mirror analyzer an (initialised, given no frames) of the n workers'
 * analyzers w (n <= EW_MIRROR_MAX). 0, or -1 out of memory. */
int ew_mirror_init(struct ew_mirror *m, struct ew_analyzer *an, struct ew_analyzer *const *w,
                   int n);

/* Bring the mirror up to date. final: every flow the workers hold, with
 * their QUIC state, and then the mirror's flows numbered by first packet
 * time, then key (the report's order, the same however the flows fell on
 * the workers). 0, or -1 out of memory (the mirror as it was). */
int ew_mirror_sync(struct ew_mirror *m, bool final);

void ew_mirror_free(struct ew_mirror *m);

#endif /* ECNWATCH_MIRROR_H */
