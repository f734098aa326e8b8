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

/* The misuse kinds: X(ID, name, text), one row each, in the order of their
 * numbers; the enum, the names (ew_misuse_name), the texts, ecnwatch --list
 * kinds and the checks of the docs and the schema come from this list
 * (HACKING.md, "A misuse rule"). */
#define EW_MISUSE_KINDS(X) \
    X(ECT_WITHOUT_NEGOTIATION, "ect_without_negotiation", "ECT sent on a TCP flow whose handshake did not negotiate ECN") \
    X(CE_ON_NOT_ECT, "ce_on_not_ect", "CE on a flow that never sent ECT: a box marked a packet that did not ask for ECN") \
    X(ECT_ON_NOT_ECT, "ect_on_not_ect", "a Not-ECT packet turned ECT on the path") \
    X(BLEACHING, "bleaching", "ECT or CE sent, Not-ECT received: the path clears the ECN field") \
    X(REMARKING, "remarking", "one ECT codepoint turned into the other on the path") \
    X(CE_UNMARKED, "ce_unmarked", "CE turned back into ECT on the path: a congestion mark lost") \
    X(ECT_ON_SYN, "ect_on_syn", "ECT on a SYN, where RFC 3168 forbids it") \
    X(ECT_ON_CONTROL, "ect_on_control", "ECT on pure ACKs, retransmissions or window probes, where RFC 3168 forbids it") \
    X(ECT1_WITHOUT_L4S, "ect1_without_l4s", "ECT(1) sent without the AccECN feedback L4S requires") \
    X(FEEDBACK_MISSING, "feedback_missing", "CE reached the receiver and was not fed back") \
    X(ECE_IGNORED, "ece_ignored", "ECE went unanswered by CWR: the sender did not react") \
    X(ECE_HELD, "ece_held", "ECE still set after CWR with no new CE: the receiver's echo does not clear") \
    X(ACCECN_HANDSHAKE_VIOLATION, "accecn_handshake_violation", "a SYN or SYN-ACK breaks the AccECN negotiation") \
    X(ACCECN_OPTION_MANGLED, "accecn_option_mangled", "the AccECN option is cut, malformed or rewritten") \
    X(ACCECN_ACE_ZEROED, "accecn_ace_zeroed", "the ACE counter is zeroed on the path") \
    X(ECN_FLAGS_REFLECTED, "ecn_flags_reflected", "a SYN-ACK echoes the SYN's ECN flags: a reflector, not ECN support") \
    X(CLASSIC_AQM_UNDER_L4S, "classic_aqm_under_l4s", "an L4S flow shares a classic AQM's single queue with a classic flow") \
    X(QUIC_ECN_VALIDATION_FAILED, "quic_ecn_validation_failed", "QUIC ECN validation failed (RFC 9000 13.4.2)") \
    X(TUNNEL_ECN_NOT_PROPAGATED, "tunnel_ecn_not_propagated", "ECT or CE packets inside a tunnel whose outer header is Not-ECT: the underlay cannot mark them") \
    X(TUNNEL_ECN_UNSAFE_COMBINATION, "tunnel_ecn_unsafe_combination", "outer and inner codepoints RFC 6040 calls dangerous, such as an ECN-capable outer header over a Not-ECT packet") \
    X(TUNNEL_DECAP_VIOLATION, "tunnel_decap_violation", "a packet left a tunnel egress with another codepoint than RFC 6040 gives for its outer and inner headers, or was not dropped") \
    X(ECN_SETUP_STRIPPED, "ecn_setup_stripped", "a SYN's ECN set-up flags (ECE, CWR, AE) cleared on the path (--probe)") \
    X(ECN_BLACKHOLE, "ecn_blackhole", "probes with ECN set up dropped on the path where the same probes without ECN pass (--probe)")

enum ew_misuse_kind {
#define EW_X(id, name, text) EW_MU_##id,
    EW_MISUSE_KINDS(EW_X)
#undef EW_X
    EW_MU_COUNT
};
/* the kinds a capture can show; the last ones only --probe finds */
#define EW_MU_CAPTURE_COUNT EW_MU_ECN_SETUP_STRIPPED
_Static_assert(EW_MU_ECN_BLACKHOLE == EW_MU_COUNT - 1, "the probe's kinds come last");
extern const char *const ew_misuse_name[EW_MU_COUNT];
extern const char *const ew_misuse_text[EW_MU_COUNT];

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
