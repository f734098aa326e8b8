/* misuse.h - ECN misuse findings per flow (digest §8.4; report contract's
 * kinds). Each finding says what was broken, on which direction, from which
 * frame, how often, which RFC section it breaks, how sure ecnwatch is, and one
 * sentence a person can act on. Findings are a pure function of the flow's
 * state and verdict. */
#ifndef ECNWATCH_MISUSE_H
#define ECNWATCH_MISUSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "infer/infer.h"

enum ew_misuse_kind {
    EW_MU_ECT_WITHOUT_NEGOTIATION,
    EW_MU_CE_ON_NOT_ECT,
    EW_MU_ECT_ON_NOT_ECT,
    EW_MU_BLEACHING,
    EW_MU_REMARKING,
    EW_MU_CE_UNMARKED,
    EW_MU_ECT_ON_SYN,
    EW_MU_ECT_ON_CONTROL,
    EW_MU_ECT1_WITHOUT_L4S,
    EW_MU_FEEDBACK_MISSING,
    EW_MU_ECE_IGNORED,
    EW_MU_ACCECN_HANDSHAKE_VIOLATION,
    EW_MU_ACCECN_OPTION_MANGLED,
    EW_MU_ACCECN_ACE_ZEROED,
    EW_MU_ECN_FLAGS_REFLECTED,
    EW_MU_CLASSIC_AQM_UNDER_L4S,
    EW_MU_QUIC_ECN_VALIDATION_FAILED,
    EW_MU_COUNT
};
extern const char *const ew_misuse_name[EW_MU_COUNT];

/* Kinds are bits of a uint32_t mask (filters, counts per kind); arrays
 * indexed by kind are this long. "any" is (1u << EW_MU_COUNT) - 1, which
 * needs a bit to spare. */
#define EW_MU_MASK_BITS 32
_Static_assert(EW_MU_COUNT < EW_MU_MASK_BITS, "a finding kind is a bit of a 32-bit mask");

enum ew_confidence { EW_CONF_CERTAIN, EW_CONF_LIKELY };
extern const char *const ew_confidence_name[];

struct ew_finding {
    enum ew_misuse_kind kind;
    int dir;                 /* canonical direction of the packets concerned */
    uint64_t first_frame;
    uint64_t count;          /* packets; estimated as bytes / MSS where counters count bytes */
    enum ew_confidence confidence;
    const char *ref;
    char detail[240];
};

struct ew_flow;

/* Findings of one flow, ordered by first frame then kind; returns how many
 * (at most room). */
size_t ew_misuse_find(const struct ew_flow *f, const struct ew_flow_verdict *v,
                      struct ew_finding *out, size_t room);

/* Parse a comma-separated list of kinds, or "any"; sets bit (1 << kind) in
 * *mask. Returns 0, or -1 with the unknown word copied to bad. */
int ew_misuse_parse_list(const char *list, uint32_t *mask, char *bad, size_t badlen);

#endif /* ECNWATCH_MISUSE_H */
