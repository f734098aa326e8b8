/* dedupe.h - the same packet captured twice. A mirror port that copies both
 * ways, a bridge that sees a frame on two ports, or two captures merged
 * into one file give every packet (or some) twice; counted twice, each CE
 * mark would be two and every feedback would look short by half.
 *
 * A packet is a copy of one seen before when everything its sender wrote
 * that tells two packets apart is the same, less than EW_DUP_WINDOW_NS (to
 * the microsecond) after the last sighting: its
 * flow and direction, and for TCP the IPv4 identification, sequence and
 * acknowledgement numbers, flags, window, payload length, timestamps and
 * checksum; for UDP the identification, length and checksum. The ECN field
 * and the TTL are left out: they change on the way, and a copy taken at
 * another point is still a copy. A sender writes a new identification or a
 * new TSval into every packet it sends, a retransmission included, so that
 * only a copy matches one of these; a TCP packet that carries neither (IPv6
 * without timestamps, or an identification of 0) cannot be told from a
 * resend of the same bytes, and is kept and counted as a possible copy.
 *
 * The packets seen are kept in a table of fixed size, one slot a hash
 * value (a newer packet takes its slot): bounded memory, no allocation after
 * ew_dedupe_init(), O(1) a packet. A copy that comes after its slot was
 * taken is not found; none is ever found where there is none. */
#ifndef ECNWATCH_DEDUPE_H
#define ECNWATCH_DEDUPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <string.h>

#include "dissectors/pkt.h"
#include "flow/flow.h"

/* a copy arrives within 100 ms of its original: a mirror or a bridge adds
 * microseconds, two merged capture points the one-way delay between them
 * (design: more than a path's queue, far less than an RTO) */
#define EW_DUP_WINDOW_NS 100000000

/* slots: 2^16 (512 KiB), some 65 ms of packets at a million a second */
#define EW_DUP_SLOTS_LOG2 16

enum ew_dup {
    EW_DUP_NEW,    /* not seen before */
    EW_DUP_COPY,   /* a copy of a packet seen within the window: leave it out */
    EW_DUP_UNSURE, /* the same bytes again, but nothing tells a copy from a resend */
};

/* a slot: the signature's bits the slot's index does not hold, and the
 * packet time in microseconds (wrapping every 71 minutes; a copy is
 * compared within the window only) */
struct ew_dup_slot {
    uint32_t sig;
    uint32_t t;
};

struct ew_dedupe {
    struct ew_dup_slot *slot;
    uint32_t mask;
};

/* A table of 2^slots_log2 slots (0, or more than EW_DUP_SLOTS_LOG2:
 * EW_DUP_SLOTS_LOG2; fewer find fewer copies). 0, or -1 when it cannot be
 * allocated */
int ew_dedupe_init(struct ew_dedupe *d, unsigned slots_log2);
void ew_dedupe_free(struct ew_dedupe *d);

/* The flow of a signature is named by a fixed fold of its key, not by the
 * table's seeded hash: the table of packets keeps one packet a slot, so which
 * copies it still holds depends on where signatures fall, and a report must
 * not depend on the seed a run drew. A fold is enough there (the signature
 * mixes it with the packet's words, ew_dedupe_sig): a slot has no chain that
 * chosen collisions could lengthen; at worst a copy is not found, as when
 * its slot is taken. */
static inline uint64_t
ew_dedupe_flow(const struct ew_flow_key *key)
{
    uint64_t w[5];

    memcpy(w, key, sizeof(w));
    return (w[0] + (w[1] << 13 | w[1] >> 51)) ^ (w[2] + (w[3] << 29 | w[3] >> 35)) ^
           (w[4] * 0x9e3779b97f4a7c15ULL);
}
_Static_assert(sizeof(struct ew_flow_key) == 5 * sizeof(uint64_t), "the fold reads five words");

/* What identifies the packet pkt (status OK) of flow `flow` (any value that
 * names the flow: ew_dedupe_flow(key)) in canonical direction dir: a
 * signature, and in *tells whether it holds something a resend would
 * change. A pure function of its arguments, so that a reader thread can work
 * it out ahead. */
uint64_t ew_dedupe_sig(uint64_t flow, int dir, const struct ew_pkt *pkt, bool *tells);

/* The slot a signature lives in, to fetch into the cache ahead of its check */
static inline const void *
ew_dedupe_slot_of(const struct ew_dedupe *d, uint64_t sig)
{
    return d->slot ? &d->slot[sig & d->mask] : NULL;
}

/* A packet with signature sig seen at ts: new, a copy, or unsure.
 * Remembers it. */
enum ew_dup ew_dedupe_check_sig(struct ew_dedupe *d, uint64_t sig, bool tells, int64_t ts);

/* The same in one: ew_dedupe_sig, then ew_dedupe_check_sig */
enum ew_dup ew_dedupe_check(struct ew_dedupe *d, uint64_t flow, int dir,
                            const struct ew_pkt *pkt, int64_t ts);

#endif /* ECNWATCH_DEDUPE_H */
