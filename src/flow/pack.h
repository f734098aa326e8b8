/* pack.h - a flow's record and its state in a few hundred bytes, and back,
 * exactly.
 *
 * A TCP flow's record and state take over 2 KB (flow.h, infer.h), most of them zero
 * or small: counters that have not moved, evidence frames not seen, times
 * close to the flow's first packet. The packed form keeps the state as
 * 32-bit words, leaves the zero ones out and writes the others as LEB128
 * varints; packet times and frame numbers are taken relative to the flow's
 * first packet and frame first, so that they are small too. Everything but
 * the key is packed (the owner of the packed bytes keeps the key beside
 * them); unpacking gives the same bytes back. The form lives in memory only,
 * in this process: it is not a file format.
 */
#ifndef ECNWATCH_PACK_H
#define ECNWATCH_PACK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "flow/flow.h"

/* the words packed: the record after its key, and the state beside it (at most) */
#define EW_PACK_REC_WORDS ((sizeof(struct ew_flow) - sizeof(struct ew_flow_key)) / 4)
#define EW_PACK_INF_WORDS (EW_FLOW_STATE_MAX / 4)
#define EW_PACK_GROUPS(words) (((words) + 7) / 8)
/* the longest packed form: a byte of flags, a bit per group of 8 words, and
 * for each group a byte of bits and 8 varints of at most 5 bytes */
#define EW_PACK_MAX                                                                         \
    (1 + (EW_PACK_GROUPS(EW_PACK_REC_WORDS) + 7) / 8 + EW_PACK_GROUPS(EW_PACK_REC_WORDS) * 41 + \
     (EW_PACK_GROUPS(EW_PACK_INF_WORDS) + 7) / 8 + EW_PACK_GROUPS(EW_PACK_INF_WORDS) * 41)

/* Pack f (and its state, described by st, when it is not st->none) into
 * out, which has room for EW_PACK_MAX bytes; returns the length. */
size_t ew_flow_pack(const struct ew_flow_state *st, const struct ew_flow *f, uint8_t *out);

/* Unpack len bytes made by ew_flow_pack() into *f, all but its key, which
 * is left as it is. f->inf becomes inf (st->size bytes), filled, when the
 * flow had state, else st->none (and inf is not touched). Returns false
 * when the bytes end early or run on: they were not made by
 * ew_flow_pack(). */
bool ew_flow_unpack(const struct ew_flow_state *st, const uint8_t *in, size_t len,
                    struct ew_flow *f, void *inf);

/* zigzag: small magnitudes of either sign to small numbers, and back */
static inline uint64_t
ew_pack_zig(uint64_t v)
{
    return (v << 1) ^ (0 - (v >> 63));
}

static inline uint64_t
ew_pack_unzig(uint64_t z)
{
    return (z >> 1) ^ (0 - (z & 1));
}

/* A value near base as a small number, and 0 (not set) as 0: zig(v - base)
 * + 1, with 0 and what 0 would have become swapped; one-to-one on 64 bits
 * (back true: the value again), so that times out of order and frames of
 * any size come back as they were. For a state's own relative form (struct
 * ew_flow_state's rel). */
static inline uint64_t
ew_pack_rel(uint64_t v, uint64_t base, bool back)
{
    uint64_t zero = ew_pack_zig(0 - base) + 1, r;

    if (back) {
        r = v == 0 ? zero : v == zero ? 0 : v;
        return base + ew_pack_unzig(r - 1);
    }
    r = ew_pack_zig(v - base) + 1;
    return r == zero ? 0 : r == 0 ? zero : r;
}

/* the same on 32 bits (sequence numbers, TCP timestamp values) */
static inline uint32_t
ew_pack_rel32(uint32_t v, uint32_t base, bool back)
{
    uint32_t zero = (uint32_t)ew_pack_zig((uint64_t)(int64_t)(int32_t)(0 - base)) + 1, r;

    if (back) {
        r = v == 0 ? zero : v == zero ? 0 : v;
        return base + (uint32_t)ew_pack_unzig((uint64_t)(r - 1));
    }
    r = (uint32_t)ew_pack_zig((uint64_t)(int64_t)(int32_t)(v - base)) + 1;
    return r == zero ? 0 : r == 0 ? zero : r;
}

#endif /* ECNWATCH_PACK_H */
