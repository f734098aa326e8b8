/* quic_validate.h - the ECN validation of one endpoint's QUIC Initial
 * packets, as they pass the capture point, against the peer's Initial ACK
 * frames' ECN counts (RFC 9000 §19.3.2), the way their sender validates
 * them (RFC 9000 §13.4.2.1, App. A.4). The connection state (quic_conn.h)
 * holds one per direction and feeds it each ACK; the conclusions
 * (quic_infer.h) read it. */
#ifndef ECNWATCH_QUIC_VALIDATE_H
#define ECNWATCH_QUIC_VALIDATE_H

#include <stdbool.h>
#include <stdint.h>

#include "dissectors/dissect_quic.h"

/* why a direction failed (RFC 9000 §13.4.2.1, App. A.4) */
enum ew_quic_fail {
    EW_QF_NONE,
    EW_QF_COUNTS_MISSING, /* an ACK without counts newly acknowledges ECT packets */
    EW_QF_BLEACHED,       /* counts present, all zero */
    EW_QF_UNDERCOUNT,     /* ECT(0)+CE (or ECT(1)+CE) grew less than the ECT packets acknowledged */
    EW_QF_REMARKED,       /* the counts grow in the other ECT codepoint than was sent */
    EW_QF_ALL_CE,         /* every ECT packet reported CE */
    EW_QF_DECREASED,      /* a count went down */
};
extern const char *const ew_quic_fail_name[];

/* the Initial packets one endpoint sent, as they passed the capture point,
 * and what the other endpoint's Initial ACK frames say about them */
struct ew_quic_dir {
    uint32_t initials[4];     /* Initial packets by IP codepoint (enum ew_ecn) */
    uint32_t opened;          /* of them decrypted */
    /* packet numbers 0..63: each space starts at 0 (RFC 9000 §12.3) */
    uint64_t pn_seen;         /* bit n: Initial packet n passed here */
    uint64_t pn_acked;        /* bit n: the peer acknowledged it */
    uint64_t cp_hi, cp_lo;    /* bits n: the codepoint packet n passed with */
    int64_t largest_pn;       /* largest packet number opened; -1 none */
    int64_t largest_acked;    /* largest the peer acknowledged; -1 none */
    uint32_t acks, acks_ecn;  /* the peer's ACK frames, and those with counts */
    uint32_t plain_on_ect;    /* ACKs without counts that newly acknowledge ECT or CE packets */
    uint32_t validated;       /* ACKs whose counts passed with ECT packets newly acknowledged */
    uint32_t acked_cp[4];     /* packets the peer acknowledged, by codepoint seen here */
    uint64_t rep[3];          /* the latest counts: ECT(0), ECT(1), CE */
    uint8_t fail;             /* enum ew_quic_fail: the first failure */
    uint64_t first_frame;     /* first Initial from this end */
    uint64_t first_ect_frame; /* first ECT (or CE) Initial */
    uint64_t ack_frame;       /* first ACK of these Initials */
    uint64_t ecn_ack_frame;   /* latest ACK with counts */
    uint64_t plain_ack_frame; /* first ACK without counts over ECT packets */
    uint64_t fail_frame;
    /* 0-RTT, Handshake and 1-RTT packets: their codepoints are plain to
     * see, their ACK frames (the peer's counts) are not (RFC 9001 §4, §5) */
    uint32_t later[4];        /* by IP codepoint (enum ew_ecn) */
    uint64_t first_later_ect_frame; /* the first ECT (or CE) one */
};

/* a counter that stops at its maximum instead of wrapping */
static inline void
ew_quic_inc32(uint32_t *v)
{
    if (*v < UINT32_MAX)
        (*v)++;
}

/* a frame number slot that keeps the first frame put in it (0: none yet) */
static inline void
ew_quic_first(uint64_t *slot, uint64_t frame)
{
    if (*slot == 0)
        *slot = frame;
}

/* The peer's ACK over the Initial packets of direction q, validated as q's
 * sender would (RFC 9000 §13.4.2.1) against the codepoints they passed the
 * capture point with; the first failure is kept in q. */
void ew_quic_on_ack(struct ew_quic_dir *q, const struct ew_quic_ack *a, uint64_t frame);

#endif /* ECNWATCH_QUIC_VALIDATE_H */
