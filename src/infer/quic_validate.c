/* quic_validate.c - the ECN validation of QUIC Initial packets against the
 * peer's ACK frames (see quic_validate.h). Facts: RFC 9000 §13.4.2.1,
 * App. A.4. */
#include "infer/quic_validate.h"

#include "dissectors/ecn.h"

const char *const ew_quic_fail_name[] = {
    [EW_QF_NONE] = "none",           [EW_QF_COUNTS_MISSING] = "counts_missing",
    [EW_QF_BLEACHED] = "bleached",   [EW_QF_UNDERCOUNT] = "undercount",
    [EW_QF_REMARKED] = "remarked",   [EW_QF_ALL_CE] = "all_ce",
    [EW_QF_DECREASED] = "counts_decreased",
};

static unsigned
popcount64(uint64_t v)
{
    return (unsigned)__builtin_popcountll(v);
}

/* The peer's ACK over q's Initial packets (see quic_validate.h). */
void
ew_quic_on_ack(struct ew_quic_dir *q, const struct ew_quic_ack *a, uint64_t frame)
{
    uint64_t newly = a->acked_mask & q->pn_seen & ~q->pn_acked;
    uint64_t n0 = popcount64(newly & q->cp_hi & ~q->cp_lo);  /* ECT(0) = 0b10 */
    uint64_t n1 = popcount64(newly & ~q->cp_hi & q->cp_lo);  /* ECT(1) = 0b01 */
    uint64_t nce = popcount64(newly & q->cp_hi & q->cp_lo);  /* CE = 0b11 */
    uint64_t nne = popcount64(newly) - n0 - n1 - nce;
    uint64_t d0 = 0, d1 = 0, dce = 0;
    bool decreased = false;
    bool grew = a->largest < (uint64_t)INT64_MAX && (int64_t)a->largest > q->largest_acked;
    enum ew_quic_fail fail = EW_QF_NONE;

    ew_quic_inc32(&q->acks);
    ew_quic_first(&q->ack_frame, frame);
    q->pn_acked |= newly;
    q->acked_cp[EW_ECN_NOT_ECT] += (uint32_t)nne;
    q->acked_cp[EW_ECN_ECT_0] += (uint32_t)n0;
    q->acked_cp[EW_ECN_ECT_1] += (uint32_t)n1;
    q->acked_cp[EW_ECN_CE] += (uint32_t)nce;
    if (grew)
        q->largest_acked = (int64_t)a->largest;
    if (a->ecn) {
        ew_quic_inc32(&q->acks_ecn);
        q->ecn_ack_frame = frame;
        decreased = a->ect0 < q->rep[0] || a->ect1 < q->rep[1] || a->ce < q->rep[2];
        if (!decreased) {
            d0 = a->ect0 - q->rep[0];
            d1 = a->ect1 - q->rep[1];
            dce = a->ce - q->rep[2];
        }
    } else if (n0 + n1 + nce > 0) {
        ew_quic_inc32(&q->plain_on_ect);
        ew_quic_first(&q->plain_ack_frame, frame);
    }

    /* an ACK that does not raise the largest acknowledged must not fail
     * validation (reordered ACKs) */
    if (grew && !q->fail) {
        if (!a->ecn) {
            if (n0 + n1 + nce > 0)
                fail = EW_QF_COUNTS_MISSING;
        } else if (decreased) {
            fail = EW_QF_DECREASED;
        } else if ((a->ect0 > 0 && q->initials[EW_ECN_ECT_0] == 0) ||
                   (a->ect1 > 0 && q->initials[EW_ECN_ECT_1] == 0)) {
            /* a count of a codepoint never applied: remarked on the path */
            fail = EW_QF_REMARKED;
        } else if ((n0 && d0 + dce < n0 + nce) || (n1 && d1 + dce < n1 + nce) ||
                   (!n0 && !n1 && nce && dce < nce)) {
            if (a->ect0 == 0 && a->ect1 == 0 && a->ce == 0)
                fail = EW_QF_BLEACHED;
            else if ((n0 && d1 > 0) || (n1 && d0 > 0))
                fail = EW_QF_REMARKED;
            else
                fail = EW_QF_UNDERCOUNT;
        } else if (n0 + n1 + nce > 0) {
            ew_quic_inc32(&q->validated);
        }
        if (fail) {
            q->fail = (uint8_t)fail;
            q->fail_frame = frame;
        }
    }
    /* keep the highest counts: a reordered older ACK does not lower them */
    if (a->ecn && !decreased) {
        q->rep[0] = a->ect0;
        q->rep[1] = a->ect1;
        q->rep[2] = a->ce;
    }
}

