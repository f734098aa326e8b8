/* flowtab.h - the bidirectional flow table of the records of flow.h.
 *
 * The table holds at most max_flows flows; its arrays are allocated once,
 * and only packing (below) allocates afterwards. Live flows are indexed by a
 * seeded hash of the canonical key; a flow idle for longer than the idle
 * timeout (packet time) is ended: it stays in the table for the report but a
 * new packet of the same 5-tuple starts a new flow. When the table is full
 * the oldest ended flow is evicted, else the least recently active live
 * one; every eviction is counted and handed to the eviction callback first.
 *
 * A flow's record and inference state are kept whole in the hot set, which
 * holds up to hot_flows (EW_HOT_FLOWS by default) recently touched flows;
 * the others are kept packed (pack.h), a few hundred bytes instead of
 * 1,664, beside a 72-byte entry with their key. A packet of a packed flow
 * unpacks it into the hot set, packing one that has not been touched since
 * the CLOCK hand last passed. Packed bytes are allocated when a flow is
 * first packed and grown when its packed form outgrows them: at most
 * max_flows of them, of at most EW_PACK_MAX bytes each. Pointers returned
 * are borrowed, valid until the next ew_flowtab_get() or other call that
 * changes the table.
 */
#ifndef ECNWATCH_FLOWTAB_H
#define ECNWATCH_FLOWTAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dissectors/pkt.h"
#include "flow/flow.h"

struct ew_flowtab;

/* called just before a flow's record is reused; the flow is still intact */
typedef void (*ew_flow_evict_fn)(void *arg, const struct ew_flow *flow);

struct ew_flowtab_stats {
    uint64_t created;  /* flows ever created */
    uint64_t packed, unpacked; /* flows packed out of the hot set, and back */
    uint64_t evicted;  /* records reused because the table was full */
    uint64_t expired;  /* flows ended by the idle timeout */
    uint32_t in_table; /* records held (live + ended) */
    uint32_t live;     /* flows in the index */
};

/* flows kept whole when hot_flows is not set */
#define EW_HOT_FLOWS 65536

/* max_flows >= 1; idle_ns <= 0 disables the idle timeout; state: what TCP
 * flows keep beside their records (flow.h). The hot set holds
 * min(max_flows, EW_HOT_FLOWS) flows. Returns NULL on allocation failure. */
struct ew_flowtab *ew_flowtab_new(uint32_t max_flows, uint64_t seed, int64_t idle_ns,
                                  ew_flow_evict_fn on_evict, void *arg,
                                  const struct ew_flow_state *state);
/* The hot set's size, min(hot, max_flows), before the first flow; -1 when
 * flows exist, hot is 0 or the memory cannot be had (the set is then gone:
 * free the table). */
int ew_flowtab_set_hot(struct ew_flowtab *tab, uint32_t hot);
void ew_flowtab_free(struct ew_flowtab *tab);

/* Build the canonical key of a decoded packet; returns the packet's direction
 * (EW_DIR_LO_HI or EW_DIR_HI_LO). pkt->status must be EW_PKT_OK. */
int ew_flow_key_from_pkt(const struct ew_pkt *pkt, struct ew_flow_key *key);

uint64_t ew_flow_hash(const struct ew_flow_key *key, uint64_t seed);

/* Find the live flow for key, or create one (ending it first if it has been
 * idle past the timeout at packet time now_ns, evicting if the table is full).
 * *created tells which. Never fails. O(1) expected; bounded by the probe
 * length of the index. */
struct ew_flow *ew_flowtab_get(struct ew_flowtab *tab, const struct ew_flow_key *key,
                               int64_t now_ns, bool *created);

/* The same, with the key's hash already known (see ew_flowtab_seed()). */
struct ew_flow *ew_flowtab_get_hashed(struct ew_flowtab *tab, const struct ew_flow_key *key,
                                      uint32_t hash, int64_t now_ns, bool *created);

/* Called when a live flow ends by the idle timeout (the flow is intact). */
void ew_flowtab_set_end_cb(struct ew_flowtab *tab, ew_flow_evict_fn on_end, void *arg);

/* For a reader that knows its next frames: the key's hash in this table is
 * (uint32_t)ew_flow_hash(key, ew_flowtab_seed(tab)); then its index slot,
 * then (one frame later, when the slot has arrived) its entry and the first
 * len bytes of its record and, with inf, the hot parts of its state, into the
 * cache; or, for a packed flow, its packed bytes and the hot record its
 * packet will take, which is picked then. None of them changes a flow,
 * what is found, or the report. */
uint64_t ew_flowtab_seed(const struct ew_flowtab *tab);
void ew_flowtab_prefetch_slot(const struct ew_flowtab *tab, uint32_t hash);
void ew_flowtab_prefetch_flow(struct ew_flowtab *tab, uint32_t hash, size_t len, bool inf);

/* Mark recently used (moves the flow to the tail of the activity list). */
void ew_flowtab_touch(struct ew_flowtab *tab, struct ew_flow *flow);

/* End up to `budget` live flows idle at now_ns; returns how many. */
uint32_t ew_flowtab_expire(struct ew_flowtab *tab, int64_t now_ns, uint32_t budget);

void ew_flowtab_get_stats(const struct ew_flowtab *tab, struct ew_flowtab_stats *st);

/* Fill `out` (room for st.in_table refs) with the ref of every held flow
 * (with live_only, every live one), ordered by id. Returns the count. A ref
 * names a flow until the table changes. */
size_t ew_flowtab_refs(const struct ew_flowtab *tab, uint32_t *out, size_t room, bool live_only);

/* room for a packed flow's record and its state, unpacked */
struct ew_flow_room {
    struct ew_flow flow;
    _Alignas(16) uint8_t inf[EW_FLOW_STATE_MAX];
};

/* The flow a ref names, to read: its record when it is hot, else unpacked
 * into *room. Valid until the table changes or room is used again. Does not
 * change the table (threads may view at once while it does not change). */
const struct ew_flow *ew_flowtab_view(const struct ew_flowtab *tab, uint32_t ref,
                                      struct ew_flow_room *room);

/* The flow a ref names, to change: brought into the hot set (which may pack
 * another flow, but changes no ref). */
struct ew_flow *ew_flowtab_heat(struct ew_flowtab *tab, uint32_t ref);

/* What another table's record of the same flow says, copied into f, a
 * record of this table (same key): its counters, times, handshake and
 * inference state. f keeps its own id, its place in this table, its
 * series and QUIC state, what was streamed of it and how it ended. */
void ew_flowtab_copy(const struct ew_flowtab *tab, struct ew_flow *f, const struct ew_flow *from);

/* Give the flow a ref names the id `id` (the table's order of flows: ids
 * unique, each one's flow known to the caller). Returns its record. */
struct ew_flow *ew_flowtab_set_id(struct ew_flowtab *tab, uint32_t ref, uint64_t id);

/* The one walk over the table: the flows it holds, one at a time, to read.
 *
 *   struct ew_flow_iter it;
 *   const struct ew_flow *f;
 *
 *   ew_flow_iter_start(&it, tab, EW_ITER_HELD, 0);
 *   while ((f = ew_flow_iter_next(&it)) != NULL)
 *       ... it.ref names f ...
 *   ew_flow_iter_end(&it);
 *
 * The table must not change until the walk ends. Out of memory, the walk
 * visits nothing and it.nomem says so. */
enum ew_iter_which {
    EW_ITER_HELD,   /* every flow held, live and ended, by id */
    EW_ITER_LIVE,   /* every live flow, by id */
    EW_ITER_RECENT, /* every live flow active at or after since_ns, the latest active first */
};
struct ew_flow_iter {
    const struct ew_flowtab *tab;
    uint32_t *refs;             /* the flows to visit, in order: n of them */
    size_t n, i;
    uint32_t ref;               /* the flow ew_flow_iter_next() returned last */
    struct ew_flow_room *room;
    bool nomem;
};
void ew_flow_iter_start(struct ew_flow_iter *it, const struct ew_flowtab *tab,
                        enum ew_iter_which which, int64_t since_ns);
const struct ew_flow *ew_flow_iter_next(struct ew_flow_iter *it);
void ew_flow_iter_end(struct ew_flow_iter *it);

#endif /* ECNWATCH_FLOWTAB_H */
