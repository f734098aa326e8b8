/* quic_infer.c - the conclusions drawn from a QUIC connection's Initial
 * packets and their validation (see quic_infer.h). Facts: RFC 9000 §13.4,
 * App. A.4. */
#include "infer/quic_infer.h"

#include <stdio.h>
#include <string.h>

#include "dissectors/ecn.h"
#include "flow/flowtab.h"

const char *const ew_quic_verdict_name[] = {
    [EW_QV_NOT_ECN] = "not_ecn",         [EW_QV_VALIDATED] = "ecn_validated",
    [EW_QV_FAILED] = "ecn_failed",       [EW_QV_L4S_CANDIDATE] = "l4s_candidate",
    [EW_QV_UNKNOWN] = "unknown",
};
const char *const ew_quic_dir_result_name[] = {
    [EW_QD_NOT_ECT] = "not_ect",     [EW_QD_NO_ACK] = "no_ack",
    [EW_QD_VALIDATED] = "validated", [EW_QD_FAILED] = "failed",
};

static const char *
role(const struct ew_flow *f, int d)
{
    return d == f->client_dir ? "client" : "server";
}

static uint32_t
ect_initials(const struct ew_quic_dir *q)
{
    return q->initials[EW_ECN_ECT_0] + q->initials[EW_ECN_ECT_1] + q->initials[EW_ECN_CE];
}

/* 0-RTT, Handshake and 1-RTT packets that were ECN-capable */
static uint32_t
ect_later(const struct ew_quic_dir *q)
{
    return q->later[EW_ECN_ECT_0] + q->later[EW_ECN_ECT_1] + q->later[EW_ECN_CE];
}

/* the codepoint most of q's later ECN-capable packets carry */
static const char *
later_cp(const struct ew_quic_dir *q)
{
    return q->later[EW_ECN_ECT_1] > q->later[EW_ECN_ECT_0] ? "ECT(1)" : "ECT(0)";
}

/* The direction whose later packets are ECN-capable (the client's first),
 * -1 none. Their codepoints are plain; the ACK frames that would carry the
 * peer's counts are in Handshake and 1-RTT packets, which no observer
 * without the endpoints' keys can open (RFC 9001 §4, §5; only Initial keys
 * derive from what is on the wire, §5.2). */
static int
later_ect_dir(const struct ew_flow *f)
{
    const struct ew_quic_conn *c = f->quic;
    int d = f->client_dir;

    if (ect_later(&c->dir[d]))
        return d;
    return ect_later(&c->dir[d ^ 1]) ? d ^ 1 : -1;
}

static void
conclude_dir(const struct ew_flow *f, int d, struct ew_quic_summary *s)
{
    const struct ew_quic_conn *c = f->quic;
    const struct ew_quic_dir *q = &c->dir[d];
    const char *me = role(f, d), *peer = role(f, d ^ 1);
    uint32_t ect = ect_initials(q);
    uint64_t acked = (uint64_t)q->acked_cp[EW_ECN_ECT_0] + q->acked_cp[EW_ECN_ECT_1] +
                     q->acked_cp[EW_ECN_CE];
    enum ew_quic_fail fail = (enum ew_quic_fail)q->fail;
    uint64_t frame = q->fail_frame;
    char *r = s->dir[d].reason;
    size_t rl = sizeof(s->dir[d].reason);
    bool sent1 = q->initials[EW_ECN_ECT_1] > q->initials[EW_ECN_ECT_0];

    /* every ECT packet reported CE: App. A.4 lets the sender fail the path */
    if (!fail && q->validated && q->rep[2] > 0 && q->rep[0] == 0 && q->rep[1] == 0) {
        fail = EW_QF_ALL_CE;
        frame = q->ecn_ack_frame;
    }
    s->dir[d].fail = fail;
    s->dir[d].first_frame = q->first_ect_frame;
    s->dir[d].count = acked ? acked : ect;
    if (fail) {
        s->dir[d].result = EW_QD_FAILED;
        s->dir[d].frame = frame;
    } else if (ect == 0) {
        s->dir[d].result = EW_QD_NOT_ECT;
        s->dir[d].frame = q->first_frame;
    } else if (q->validated) {
        s->dir[d].result = EW_QD_VALIDATED;
        s->dir[d].frame = q->ecn_ack_frame;
    } else {
        s->dir[d].result = EW_QD_NO_ACK;
        s->dir[d].frame = q->first_ect_frame;
    }
    switch (s->dir[d].result) {
    case EW_QD_NOT_ECT:
        if (ect_later(q))
            snprintf(r, rl, "the %s's %u Initial packets are Not-ECT, its later packets "
                     "ECN-capable (%s %u of %u); their counts ride in encrypted ACK frames",
                     me, q->initials[EW_ECN_NOT_ECT], later_cp(q), ect_later(q),
                     ect_later(q) + q->later[EW_ECN_NOT_ECT]);
        else if (q->initials[EW_ECN_NOT_ECT] == 0)
            snprintf(r, rl, "no Initial packet from the %s was seen", me);
        else
            snprintf(r, rl, "the %s's %u Initial packets are Not-ECT", me,
                     q->initials[EW_ECN_NOT_ECT]);
        return;
    case EW_QD_NO_ACK:
        snprintf(r, rl, "the %s sent %u ECN-capable Initial packets, but no Initial ACK from the "
                 "%s over them was read", me, ect, peer);
        return;
    case EW_QD_VALIDATED:
        snprintf(r, rl, "%u %s Initial packets from the %s; the %s's counts (ECT(0) %llu, "
                 "ECT(1) %llu, CE %llu) account for the %llu it acknowledged", ect,
                 sent1 ? "ECT(1)" : "ECT(0)", me, peer, (unsigned long long)q->rep[0],
                 (unsigned long long)q->rep[1], (unsigned long long)q->rep[2],
                 (unsigned long long)acked);
        return;
    case EW_QD_FAILED:
        break;
    }
    switch (fail) {
    case EW_QF_COUNTS_MISSING:
        snprintf(r, rl, "the %s's ACK in frame %llu acknowledges %llu ECN-capable Initial packets "
                 "without ECN counts: the %s does not report ECN, or the path clears it", peer,
                 (unsigned long long)frame, (unsigned long long)acked, peer);
        break;
    case EW_QF_BLEACHED:
        snprintf(r, rl, "the %s counts 0 for the %llu ECN-capable Initial packets it acknowledged "
                 "(frame %llu): the path clears the ECN field", peer, (unsigned long long)acked,
                 (unsigned long long)frame);
        break;
    case EW_QF_REMARKED:
        snprintf(r, rl, "the %s's Initial packets left here %s but the %s counts ECT(0) %llu, "
                 "ECT(1) %llu (frame %llu): the path rewrites the ECT codepoint", me,
                 sent1 ? "ECT(1)" : q->initials[EW_ECN_ECT_0] ? "ECT(0)" : "Not-ECT", peer,
                 (unsigned long long)q->rep[0], (unsigned long long)q->rep[1],
                 (unsigned long long)frame);
        break;
    case EW_QF_UNDERCOUNT:
        snprintf(r, rl, "the %s counts ECT(0) %llu, ECT(1) %llu, CE %llu (frame %llu) for %llu "
                 "ECN-capable Initial packets acknowledged: marks lost or not counted", peer,
                 (unsigned long long)q->rep[0], (unsigned long long)q->rep[1],
                 (unsigned long long)q->rep[2], (unsigned long long)frame,
                 (unsigned long long)acked);
        break;
    case EW_QF_ALL_CE:
        snprintf(r, rl, "the %s reports all %llu ECN-capable Initial packets of the %s CE (frame "
                 "%llu): a device marks every one (RFC 9000 App. A.4)", peer,
                 (unsigned long long)acked, me, (unsigned long long)frame);
        break;
    case EW_QF_DECREASED:
        snprintf(r, rl, "an ECN count in the %s's ACK in frame %llu is lower than before", peer,
                 (unsigned long long)frame);
        break;
    case EW_QF_NONE:
        break;
    }
}

bool
ew_quic_conclude(const struct ew_flow *f, struct ew_quic_summary *s)
{
    const struct ew_quic_conn *c = f->quic;
    int d, failed = -1, validated = -1, l4s = -1, no_ack = -1;
    uint32_t initials = 0;

    memset(s, 0, sizeof(*s));
    s->fail_dir = -1;
    if (!c)
        return false;
    for (d = 0; d < 2; d++) {
        const struct ew_quic_dir *q = &c->dir[d];

        conclude_dir(f, d, s);
        initials += q->initials[0] + ect_initials(q);
        switch (s->dir[d].result) {
        case EW_QD_FAILED:
            if (failed < 0 || s->dir[d].frame < s->dir[failed].frame)
                failed = d;
            break;
        case EW_QD_VALIDATED:
            if (q->initials[EW_ECN_ECT_1] > q->initials[EW_ECN_ECT_0] &&
                q->rep[1] + q->rep[2] > 0)
                l4s = d;
            else if (validated < 0)
                validated = d;
            break;
        case EW_QD_NO_ACK:
            no_ack = d;
            break;
        case EW_QD_NOT_ECT:
            break;
        }
    }
    if (failed >= 0) {
        s->verdict = EW_QV_FAILED;
        s->fail_dir = failed;
        snprintf(s->reason, sizeof(s->reason), "%s", s->dir[failed].reason);
    } else if (l4s >= 0) {
        s->verdict = EW_QV_L4S_CANDIDATE;
        snprintf(s->reason, sizeof(s->reason), "%s", s->dir[l4s].reason);
    } else if (validated >= 0) {
        s->verdict = EW_QV_VALIDATED;
        snprintf(s->reason, sizeof(s->reason), "%s", s->dir[validated].reason);
    } else if (initials == 0 && c->vn_frame) {
        char list[48] = "";
        size_t at = 0;
        uint32_t i;

        for (i = 0; i < c->vn_listed && i < 3 && at < sizeof(list); i++) {
            int w = snprintf(list + at, sizeof(list) - at, "%s%s", i ? ", " : "",
                             c->vn_versions[i] == EW_QUIC_V1   ? "v1"
                             : c->vn_versions[i] == EW_QUIC_V2 ? "v2"
                                                               : "other");
            at += w > 0 ? (size_t)w : 0;
        }
        s->verdict = EW_QV_UNKNOWN;
        snprintf(s->reason, sizeof(s->reason),
                 "the server answered with Version Negotiation (frame %llu, listing %s%s): "
                 "no Initial of a version both support followed",
                 (unsigned long long)c->vn_frame, list, c->vn_listed > 3 ? ", ..." : "");
    } else if (initials == 0) {
        int ld = later_ect_dir(f);

        s->verdict = EW_QV_UNKNOWN;
        if (ld >= 0)
            snprintf(s->reason, sizeof(s->reason),
                     "no Initial packet seen (the capture starts later); the %s's packets are "
                     "ECN-capable (%s %u of %u), their ACK frames encrypted: not validated",
                     role(f, ld), later_cp(&c->dir[ld]), ect_later(&c->dir[ld]),
                     ect_later(&c->dir[ld]) + c->dir[ld].later[EW_ECN_NOT_ECT]);
        else
            snprintf(s->reason, sizeof(s->reason),
                     "no Initial packet of this connection was seen (the capture starts later)");
    } else if (no_ack >= 0 && !c->have_client) {
        s->verdict = EW_QV_UNKNOWN;
        snprintf(s->reason, sizeof(s->reason),
                 "its Initial packets could not be decrypted: the client's first Initial is not "
                 "in the capture, or the snaplen cut it");
    } else if (no_ack >= 0) {
        s->verdict = EW_QV_UNKNOWN;
        snprintf(s->reason, sizeof(s->reason), "%s", s->dir[no_ack].reason);
    } else if (later_ect_dir(f) >= 0) {
        /* ECN after the Initials (an endpoint may start or validate it on
         * any packets, RFC 9000 §13.4.2): capable, but only the Initial
         * space's counts can be read */
        int ld = later_ect_dir(f);

        s->verdict = EW_QV_UNKNOWN;
        snprintf(s->reason, sizeof(s->reason),
                 "Initials Not-ECT, but the %s's later packets are ECN-capable (%s %u of %u); "
                 "their ACK frames (the ECN counts) are encrypted: validation cannot be read",
                 role(f, ld), later_cp(&c->dir[ld]), ect_later(&c->dir[ld]),
                 ect_later(&c->dir[ld]) + c->dir[ld].later[EW_ECN_NOT_ECT]);
    } else {
        s->verdict = EW_QV_NOT_ECN;
        snprintf(s->reason, sizeof(s->reason), "no packet in either direction was ECN-capable "
                 "(Initial, Handshake or 1-RTT)");
    }
    return true;
}

bool
ew_quic_flow_verdict(const struct ew_flow *f, struct ew_flow_verdict *v)
{
    struct ew_quic_summary s;

    if (!ew_quic_conclude(f, &s))
        return false;
    switch (s.verdict) {
    case EW_QV_NOT_ECN:
        v->verdict = EW_V_NOT_ECN;
        snprintf(v->reason, sizeof(v->reason), "QUIC: %.190s", s.reason);
        break;
    case EW_QV_VALIDATED:
        v->verdict = EW_V_CLASSIC;
        snprintf(v->reason, sizeof(v->reason), "QUIC ECN validated on the Initial packets: %.150s",
                 s.reason);
        break;
    case EW_QV_L4S_CANDIDATE:
        v->verdict = EW_V_L4S;
        snprintf(v->reason, sizeof(v->reason), "QUIC, ECT(1) with ECN counts (an L4S sender, as "
                 "far as the Initial packets show): %.100s", s.reason);
        break;
    case EW_QV_FAILED:
        /* the sender must stop using ECN (RFC 9000 §13.4.2.2); the capture
         * cannot tell a peer that does not count from a path that clears */
        v->verdict = EW_V_AMBIGUOUS;
        snprintf(v->reason, sizeof(v->reason), "QUIC ECN validation fails (%s): %.155s",
                 ew_quic_fail_name[s.dir[s.fail_dir].fail], s.reason);
        break;
    case EW_QV_UNKNOWN:
        v->verdict = EW_V_UNKNOWN;
        snprintf(v->reason, sizeof(v->reason), "QUIC: %.190s", s.reason);
        break;
    }
    return true;
}
