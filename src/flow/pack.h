/* pack.h - a flow's record and inference state in a few hundred bytes, and
 * back, exactly.
 *
 * A TCP flow's state takes 1,664 bytes (flow.h, infer.h), most of them zero
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

#include "flow/flowtab.h"
#include "infer/infer.h"

/* the words packed: the record after its key, and the inference state */
#define EW_PACK_REC_WORDS ((sizeof(struct ew_flow) - sizeof(struct ew_flow_key)) / 4)
#define EW_PACK_INF_WORDS (sizeof(struct ew_infer) / 4)
#define EW_PACK_GROUPS(words) (((words) + 7) / 8)
/* the longest packed form: a byte of flags, a bit per group of 8 words, and
 * for each group a byte of bits and 8 varints of at most 5 bytes */
#define EW_PACK_MAX                                                                         \
    (1 + (EW_PACK_GROUPS(EW_PACK_REC_WORDS) + 7) / 8 + EW_PACK_GROUPS(EW_PACK_REC_WORDS) * 41 + \
     (EW_PACK_GROUPS(EW_PACK_INF_WORDS) + 7) / 8 + EW_PACK_GROUPS(EW_PACK_INF_WORDS) * 41)

/* Pack f (and *f->inf when it is not ew_infer_none) into out, which has
 * room for EW_PACK_MAX bytes; returns the length. */
size_t ew_flow_pack(const struct ew_flow *f, uint8_t *out);

/* Unpack len bytes made by ew_flow_pack() into *f, all but its key, which
 * is left as it is. f->inf becomes inf, filled, when the flow had inference
 * state, else &ew_infer_none (and *inf is not touched). Returns false when
 * the bytes end early or run on: they were not made by ew_flow_pack(). */
bool ew_flow_unpack(const uint8_t *in, size_t len, struct ew_flow *f, struct ew_infer *inf);

#endif /* ECNWATCH_PACK_H */
