/* misuse.c - the misuse catalogue (see misuse.h). Each rule names the
 * vantage at which it can be certain; elsewhere it is "likely" or silent. */
#include "ecnwatch/misuse.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ecnwatch/analyze.h"
#include "ecnwatch/ecn.h"
#include "ecnwatch/flow.h"
#include "ecnwatch/quic.h"

const char *const ew_misuse_name[EW_MU_COUNT] = {
    [EW_MU_ECT_WITHOUT_NEGOTIATION] = "ect_without_negotiation",
    [EW_MU_CE_ON_NOT_ECT] = "ce_on_not_ect",
    [EW_MU_ECT_ON_NOT_ECT] = "ect_on_not_ect",
    [EW_MU_BLEACHING] = "bleaching",
    [EW_MU_REMARKING] = "remarking",
    [EW_MU_CE_UNMARKED] = "ce_unmarked",
    [EW_MU_ECT_ON_SYN] = "ect_on_syn",
    [EW_MU_ECT_ON_CONTROL] = "ect_on_control",
    [EW_MU_ECT1_WITHOUT_L4S] = "ect1_without_l4s",
    [EW_MU_FEEDBACK_MISSING] = "feedback_missing",
    [EW_MU_ECE_IGNORED] = "ece_ignored",
    [EW_MU_ACCECN_HANDSHAKE_VIOLATION] = "accecn_handshake_violation",
    [EW_MU_ACCECN_OPTION_MANGLED] = "accecn_option_mangled",
    [EW_MU_ACCECN_ACE_ZEROED] = "accecn_ace_zeroed",
    [EW_MU_ECN_FLAGS_REFLECTED] = "ecn_flags_reflected",
    [EW_MU_CLASSIC_AQM_UNDER_L4S] = "classic_aqm_under_l4s",
    [EW_MU_QUIC_ECN_VALIDATION_FAILED] = "quic_ecn_validation_failed",
};
const char *const ew_confidence_name[] = {[EW_CONF_CERTAIN] = "certain",
                                          [EW_CONF_LIKELY] = "likely"};

struct ctx {
    const struct ew_flow *f;
    const struct ew_flow_verdict *v;
    struct ew_finding *out;
    size_t n, room;
};

static void
add(struct ctx *c, enum ew_misuse_kind kind, int dir, uint64_t frame, uint64_t count,
    enum ew_confidence conf, const char *ref, const char *fmt, ...)
    __attribute__((format(printf, 8, 9)));

static void
add(struct ctx *c, enum ew_misuse_kind kind, int dir, uint64_t frame, uint64_t count,
    enum ew_confidence conf, const char *ref, const char *fmt, ...)
{
    struct ew_finding *x;
    va_list ap;

    if (c->n >= c->room)
        return;
    x = &c->out[c->n++];
    x->kind = kind;
    x->dir = dir;
    x->first_frame = frame ? frame : c->f->first_frame; /* never 0: the flow's first */
    x->count = count ? count : 1;
    x->confidence = conf;
    x->ref = ref;
    va_start(ap, fmt);
    vsnprintf(x->detail, sizeof(x->detail), fmt, ap);
    va_end(ap);
}

static uint64_t
min_frame(uint64_t a, uint64_t b)
{
    if (!a)
        return b;
    if (!b)
        return a;
    return a < b ? a : b;
}

/* the capture point is at the sender (or receiver) of direction d */
static bool
at_sender(const struct ctx *c, int d)
{
    bool c2s = d == c->f->client_dir;

    return c2s ? c->v->vantage == EW_VANT_CLIENT : c->v->vantage == EW_VANT_SERVER;
}

static bool
at_receiver(const struct ctx *c, int d)
{
    bool c2s = d == c->f->client_dir;

    return c2s ? c->v->vantage == EW_VANT_SERVER : c->v->vantage == EW_VANT_CLIENT;
}

static const char *
dname(const struct ctx *c, int d)
{
    return d == c->f->client_dir ? "client" : "server";
}

static uint64_t
kind_cp(const struct ew_flow *f, int d, int kind, int cp)
{
    return f->inf->kind_ecn[d][kind][cp];
}

static uint64_t
data_cp(const struct ew_flow *f, int d, int cp)
{
    return kind_cp(f, d, EW_SEG_DATA, cp) + kind_cp(f, d, EW_SEG_RETRANS, cp);
}

/* RFC 9768 §3.1.2 Table 2 and §3.2.2.1 Table 3: the codepoint an AccECN
 * handshake code says a packet arrived with; -1 for codes that say nothing */
static int
code_to_cp(unsigned code)
{
    switch (code) {
    case 2:
        return EW_ECN_NOT_ECT;
    case 3:
        return EW_ECN_ECT_1;
    case 4:
        return EW_ECN_ECT_0;
    case 6:
        return EW_ECN_CE;
    default:
        return -1;
    }
}

/* A handshake packet seen here with codepoint `sent`; the peer reports it
 * arrived as `got`. Any difference happened between this capture point and
 * the peer. */
static void
check_arrival(struct ctx *c, int d, uint64_t frame, const char *what, int sent, int got)
{
    const char *to = d == c->f->client_dir ? "server" : "client";

    if (got < 0 || sent == got)
        return;
    if (ew_ecn_is_ect((uint8_t)sent) && got == EW_ECN_NOT_ECT)
        add(c, EW_MU_BLEACHING, d, frame, 1, EW_CONF_CERTAIN, "RFC 9768 §3.2.2.3",
            "the %s left here %s but the %s reports it arrived Not-ECT: a device between this "
            "point and the %s clears the ECN field",
            what, ew_ecn_name[sent], to, to);
    else if (ew_ecn_is_ect((uint8_t)sent) && ew_ecn_is_ect((uint8_t)got))
        add(c, EW_MU_REMARKING, d, frame, 1, EW_CONF_CERTAIN, "RFC 9331 §5.1",
            "the %s left here %s but the %s reports it arrived %s: a device between this point "
            "and the %s swaps ECT(0) and ECT(1)",
            what, ew_ecn_name[sent], to, ew_ecn_name[got], to);
    else if (sent == EW_ECN_CE)
        add(c, EW_MU_CE_UNMARKED, d, frame, 1, EW_CONF_CERTAIN, "RFC 3168 §18.1.1",
            "the %s left here CE but the %s reports it arrived %s: a device on the way erases "
            "congestion marks",
            what, to, ew_ecn_name[got]);
    else if (sent == EW_ECN_NOT_ECT && got == EW_ECN_CE)
        add(c, EW_MU_CE_ON_NOT_ECT, d, frame, 1, EW_CONF_CERTAIN, "RFC 3168 §5",
            "the %s left here Not-ECT but the %s reports it arrived CE: a device between this "
            "point and the %s marks packets that are not ECN-capable",
            what, to, to);
    else if (sent == EW_ECN_NOT_ECT)
        add(c, EW_MU_ECT_ON_NOT_ECT, d, frame, 1, EW_CONF_CERTAIN, "RFC 3168 §18.1.4",
            "the %s left here Not-ECT but the %s reports it arrived %s: a device between this "
            "point and the %s makes packets look ECN-capable",
            what, to, ew_ecn_name[got], to);
}

static void
handshake_rules(struct ctx *c)
{
    const struct ew_flow *f = c->f;
    const struct ew_handshake *h = &f->hs;
    int c2s = f->client_dir, s2c = c2s ^ 1;
    unsigned syn = ew_tcp_ace(h->syn_flags), sa = ew_tcp_ace(h->synack_flags);
    bool dctcp = c->v->verdict == EW_V_DCTCP;

    if (h->syn_count && h->synack_count && sa == syn && (syn == 3 || syn == 7))
        add(c, EW_MU_ECN_FLAGS_REFLECTED, s2c, h->synack_frame, 1, EW_CONF_CERTAIN,
            "RFC 9768 §3.1.2",
            "the SYN-ACK repeats the SYN's ECN flags (%u%u%u): the server, or a middlebox, "
            "reflects reserved flags; ECN cannot be used on this connection",
            (syn >> 2) & 1, (syn >> 1) & 1, syn & 1);
    if (h->syn_count && h->synack_count && syn != 7 && code_to_cp(sa) >= 0 && syn != sa)
        add(c, EW_MU_ACCECN_HANDSHAKE_VIOLATION, s2c, h->synack_frame, 1, EW_CONF_CERTAIN,
            "RFC 9768 §3.1.2",
            "the SYN-ACK answers a SYN that did not ask for AccECN with an AccECN code (%u%u%u)",
            (sa >> 2) & 1, (sa >> 1) & 1, sa & 1);
    if (h->syn_count && h->synack_count && syn == 7 && sa == 5)
        add(c, EW_MU_ACCECN_HANDSHAKE_VIOLATION, s2c, h->synack_frame, 1, EW_CONF_CERTAIN,
            "RFC 9768 §3.1.3",
            "the server sends the reserved SYN-ACK code 101, which it must not; clients before "
            "2026 read it as classic ECN, newer ones as AccECN");
    if (h->syn_accecn_option)
        add(c, EW_MU_ACCECN_HANDSHAKE_VIOLATION, c2s, h->syn_option_frame, 1, EW_CONF_CERTAIN,
            "RFC 9768 §3.2.3.2", "an AccECN option on a SYN, where it is never sent");
    if (h->syn_classic_and_accecn)
        add(c, EW_MU_ACCECN_HANDSHAKE_VIOLATION, c2s, h->syn_frame, h->syn_count,
            EW_CONF_CERTAIN, "RFC 9768 §3.1.5",
            "the client sent both a classic (011) and an AccECN (111) SYN in one connection");

    /* ECT on SYN / SYN-ACK outside AccECN (RFC 3168 §6.1.1; ECN++ only with AccECN) */
    if (h->syn_count && ew_ecn_is_ect(h->syn_ecn) && syn != 7 && !dctcp)
        add(c, EW_MU_ECT_ON_SYN, c2s, h->syn_frame, 1,
            at_sender(c, c2s) ? EW_CONF_CERTAIN : EW_CONF_LIKELY, "RFC 3168 §6.1.1",
            "the SYN is %s without an AccECN request (%s)", ew_ecn_name[h->syn_ecn & 3],
            at_sender(c, c2s) ? "the client sets it" : "the client, or the path, sets it");
    if (h->synack_count && ew_ecn_is_ect(h->synack_ecn) && syn != 7 && !dctcp)
        add(c, EW_MU_ECT_ON_SYN, s2c, h->synack_frame, 1,
            at_sender(c, s2c) ? EW_CONF_CERTAIN : EW_CONF_LIKELY, "RFC 3168 §6.1.1",
            "the SYN-ACK is %s although the SYN did not request AccECN",
            ew_ecn_name[h->synack_ecn & 3]);

    /* AccECN handshake codes against what was seen sent */
    if (c->v->neg == EW_NEG_ACCECN) {
        check_arrival(c, c2s, h->synack_frame, "SYN", h->syn_ecn & 3, code_to_cp(sa));
        if (f->inf->ack3_seen)
            check_arrival(c, s2c, f->inf->ack3_frame, "SYN-ACK", h->synack_ecn & 3,
                          code_to_cp(f->inf->ack3_ace));
    }
}

static void
direction_rules(struct ctx *c, int d)
{
    const struct ew_flow *f = c->f;
    const struct ew_dir_stats *s = &f->dir[d];
    const struct ew_half *h = &f->inf->half[d];
    const struct ew_dir_verdict *dv = &c->v->dir[d];
    bool accecn = c->v->mode_accecn;
    bool classic = !accecn && dv->feedback != EW_FB_NONE;
    bool none = dv->feedback == EW_FB_NONE;
    bool dctcp = c->v->verdict == EW_V_DCTCP || c->v->dir[0].feedback == EW_FB_DCTCP ||
                 c->v->dir[1].feedback == EW_FB_DCTCP;
    uint64_t ect_data = data_cp(f, d, EW_ECN_ECT_0) + data_cp(f, d, EW_ECN_ECT_1);
    uint64_t any_ect = s->ecn[EW_ECN_ECT_0] + s->ecn[EW_ECN_ECT_1];
    uint64_t mss = s->max_payload ? s->max_payload : 1000;
    enum ew_confidence sender_conf = at_sender(c, d) ? EW_CONF_CERTAIN : EW_CONF_LIKELY;

    /* ECT without negotiation (RFC 3168 §6.1.1); CE-marked data was ECT when sent */
    if (none && ect_data > 0)
        add(c, EW_MU_ECT_WITHOUT_NEGOTIATION, d,
            min_frame(h->first_ect0_frame, h->first_ect1_frame),
            ect_data + data_cp(f, d, EW_ECN_CE), sender_conf, "RFC 3168 §6.1.1",
            "%llu data segments from the %s carry ECT or CE although ECN was not negotiated "
            "(%s); %u of its packets are CE-marked and nobody reports them",
            (unsigned long long)(ect_data + data_cp(f, d, EW_ECN_CE)), dname(c, d),
            at_sender(c, d) ? "the sender sets it" : "set by the sender, or by the path",
            h->ce_seen);

    /* CE on a flow whose sender sends no ECT at all (RFC 3168 §5) */
    if (s->ecn[EW_ECN_CE] > 0 && any_ect == 0)
        add(c, EW_MU_CE_ON_NOT_ECT, d, h->first_ce_frame, s->ecn[EW_ECN_CE], EW_CONF_CERTAIN,
            "RFC 3168 §5",
            "%llu packets from the %s, which sends no ECT at all, arrive CE: an AQM marks "
            "Not-ECT packets instead of dropping them, so no one reacts",
            (unsigned long long)s->ecn[EW_ECN_CE], dname(c, d));

    /* bleaching seen through the AccECN byte counters at or near the sender */
    if (accecn && h->opt_segments >= 3 && !at_receiver(c, d)) {
        uint64_t sent = h->bytes_seen[EW_ECN_ECT_0] + h->bytes_seen[EW_ECN_ECT_1] +
                        h->bytes_seen[EW_ECN_CE];
        uint64_t rep = h->opt_total[EW_ACC_E0B] + h->opt_total[EW_ACC_E1B] +
                       h->opt_total[EW_ACC_CEB];

        if (sent >= 8 * mss && rep * 2 < sent)
            add(c, EW_MU_BLEACHING, d, h->first_opt_frame, (sent - rep + mss - 1) / mss,
                EW_CONF_CERTAIN,
                "RFC 9768 §3.2.2.3",
                "%llu payload bytes left here ECN-capable, but the receiver's AccECN counters "
                "report only %llu arriving ECT or CE: the path clears the ECN field",
                (unsigned long long)sent, (unsigned long long)rep);
        /* remarking seen through the counters */
        if (dv->sender_ect1 && h->opt_seen[EW_ACC_E0B] &&
            h->opt_total[EW_ACC_E0B] * 4 > h->bytes_seen[EW_ECN_ECT_1] &&
            h->bytes_seen[EW_ECN_ECT_1] >= 8 * mss)
            add(c, EW_MU_REMARKING, d, h->first_opt_frame,
                (h->opt_total[EW_ACC_E0B] + mss - 1) / mss, EW_CONF_CERTAIN, "RFC 9331 §5.1",
                "the sender marks ECT(1) but the receiver counts %llu bytes arriving ECT(0): "
                "the path rewrites ECT(1) to ECT(0) and the L4S identifier is lost",
                (unsigned long long)h->opt_total[EW_ACC_E0B]);
        if (!dv->sender_ect1 && h->bytes_seen[EW_ECN_ECT_1] == 0 && h->opt_seen[EW_ACC_E1B] &&
            h->opt_total[EW_ACC_E1B] > 0 && h->bytes_seen[EW_ECN_ECT_0] > 0)
            add(c, EW_MU_REMARKING, d, h->first_opt_frame,
                (h->opt_total[EW_ACC_E1B] + mss - 1) / mss, EW_CONF_LIKELY, "RFC 9331 §5.1",
                "the sender marks ECT(0) but the receiver counts %llu bytes arriving ECT(1): an "
                "SCE-style AQM or a remark moves this classic traffic into an L4S queue",
                (unsigned long long)h->opt_total[EW_ACC_E1B]);
    }
    /* ECT(0) -> ECT(1) runs on an AccECN connection, seen on the path */
    if (accecn && dv->network_ect1)
        add(c, EW_MU_REMARKING, d, h->first_ect1_frame, data_cp(f, d, EW_ECN_ECT_1),
            EW_CONF_LIKELY, "RFC 9331 §5.1",
            "ECT(1) appears in runs on the %s's ECT(0) data: an SCE-style AQM or a remark moves "
            "this classic traffic into an L4S queue",
            dname(c, d));

    /* negotiated, yet all data arrives Not-ECT: bleaching upstream, or the sender's choice */
    if (!none && !at_sender(c, d) && h->data_pkts >= 4 && ect_data == 0 &&
        data_cp(f, d, EW_ECN_CE) == 0)
        add(c, EW_MU_BLEACHING, d, h->first_data_frame, h->data_pkts, EW_CONF_LIKELY,
            "RFC 3168 §18.1.1",
            "ECN was negotiated but all %u data segments from the %s arrive Not-ECT: the path "
            "clears the ECN field, unless the sender chose not to set it",
            h->data_pkts, dname(c, d));

    /* ECT on pure ACKs and retransmissions under classic feedback (RFC 3168 §6.1.4-5) */
    if (classic && !dctcp) {
        uint64_t acks = kind_cp(f, d, EW_SEG_PURE_ACK, EW_ECN_ECT_0) +
                        kind_cp(f, d, EW_SEG_PURE_ACK, EW_ECN_ECT_1);
        uint64_t rtx_ect = kind_cp(f, d, EW_SEG_RETRANS, EW_ECN_ECT_0) +
                           kind_cp(f, d, EW_SEG_RETRANS, EW_ECN_ECT_1);
        uint64_t rtx = rtx_ect + kind_cp(f, d, EW_SEG_RETRANS, EW_ECN_NOT_ECT) +
                       kind_cp(f, d, EW_SEG_RETRANS, EW_ECN_CE);

        if (acks > 0)
            add(c, EW_MU_ECT_ON_CONTROL, d, h->first_ect_pure_ack_frame, acks, sender_conf,
                "RFC 3168 §6.1.4",
                "%llu pure ACKs from the %s carry ECT under classic ECN feedback, where they "
                "must be Not-ECT (only AccECN allows it)",
                (unsigned long long)acks, dname(c, d));
        /* reordering at the capture point looks like retransmission: ask for a pattern */
        if (rtx_ect >= 3 && rtx_ect * 2 >= rtx)
            add(c, EW_MU_ECT_ON_CONTROL, d, h->first_ect_retrans_frame, rtx_ect, sender_conf,
                "RFC 3168 §6.1.5",
                "%llu retransmissions from the %s carry ECT under classic ECN feedback, where "
                "they must be Not-ECT",
                (unsigned long long)rtx_ect, dname(c, d));
    }

    /* ECT(1) without accurate feedback (RFC 8311 §4.2) */
    if (dv->sender_ect1 && !accecn)
        add(c, EW_MU_ECT1_WITHOUT_L4S, d, h->first_data_frame, data_cp(f, d, EW_ECN_ECT_1),
            sender_conf, "RFC 8311 §4.2",
            "the %s marks its data ECT(1) but %s: ECT(1) is for L4S senders with accurate "
            "feedback",
            dname(c, d), none ? "ECN was not negotiated" : "has only classic ECN feedback");

    /* CE arrived, the receiver did not report it */
    if (classic && h->ce_unechoed > 0)
        add(c, EW_MU_FEEDBACK_MISSING, d, h->first_ce_unechoed_frame, h->ce_unechoed,
            at_receiver(c, d) ? EW_CONF_CERTAIN : EW_CONF_LIKELY, "RFC 3168 §6.1.3",
            "%u ACKs acknowledge CE-marked data without ECE: the %s does not echo congestion",
            h->ce_unechoed, d == f->client_dir ? "server" : "client");
    if (accecn && h->ace_segments > 0 && h->ce_seen > h->cep_reported && h->ace_mismatch > 0 &&
        !c->v->neg_inferred)
        add(c, EW_MU_FEEDBACK_MISSING, d, h->first_ace_mismatch_frame,
            h->ce_seen - h->cep_reported,
            at_receiver(c, d) && !h->ace_wrap_ambiguous ? EW_CONF_CERTAIN : EW_CONF_LIKELY,
            "RFC 9768 §3.2.2",
            "%u CE packets arrived but the ACE counter reports only %llu: the %s under-reports "
            "congestion",
            h->ce_seen, (unsigned long long)h->cep_reported,
            d == f->client_dir ? "server" : "client");

    /* ECE never answered by CWR (RFC 3168 §6.1.2) */
    if (classic && !dctcp && dv->feedback != EW_FB_SCE && h->ece_acks > 0 && h->cwr_seen == 0 &&
        h->data_after_ece >= 10)
        add(c, EW_MU_ECE_IGNORED, d, h->first_ece_frame, h->ece_acks,
            at_sender(c, d) ? EW_CONF_CERTAIN : EW_CONF_LIKELY, "RFC 3168 §6.1.2",
            "the %s received %u ECE ACKs and sent %u more data segments without ever setting "
            "CWR: it does not react to congestion marks",
            dname(c, d), h->ece_acks, h->data_after_ece);

    /* an L4S flow marked by a classic single-queue AQM (RFC 9331 §4.3; the L4S
     * operational guidance): it takes more than its share from classic flows */
    if (dv->ect1 == EW_ECT1_L4S && h->data_pkts > 0) {
        struct ew_path_verdict p;

        ew_infer_path(f, d, c->v, &p);
        if (p.aqm == EW_AQM_CLASSIC)
            add(c, EW_MU_CLASSIC_AQM_UNDER_L4S, d, h->first_ce_frame ? h->first_ce_frame
                                                                     : h->first_ace_change_frame,
                p.marks, EW_CONF_LIKELY, "RFC 9331 §4.3",
                "this L4S flow is CE-marked at %.1f ms of queueing delay, the signature of a "
                "classic single-queue AQM: there it pushes classic flows sharing the queue "
                "aside; the sender should fall back to classic behaviour",
                p.qdelay_at_marks_ms);
    }

    /* AccECN counters zeroed or mangled (RFC 9768 §3.2.2.4, §3.2.3.2.4) */
    if (accecn && !c->v->neg_inferred) {
        if (h->ace_zero_first)
            add(c, EW_MU_ACCECN_ACE_ZEROED, d ^ 1, h->first_ace_change_frame, 1,
                EW_CONF_CERTAIN, "RFC 9768 §3.2.2.4",
                "the first ACE after the handshake is 0: the header was zeroed on the path, or "
                "the peer is not in AccECN mode");
        if ((h->first_opt_has[EW_ACC_E0B] && h->first_opt_val[EW_ACC_E0B] == 0) ||
            (h->first_opt_has[EW_ACC_E1B] && h->first_opt_val[EW_ACC_E1B] == 0))
            add(c, EW_MU_ACCECN_OPTION_MANGLED, d ^ 1, h->first_opt_frame, 1, EW_CONF_CERTAIN,
                "RFC 9768 §3.2.3.2.4",
                "the first AccECN option carries a zero EE0B or EE1B, which start at 1: a "
                "middlebox zeroes the option");
        if (h->opt_seen[EW_ACC_CEB] && h->opt_total[EW_ACC_CEB] > 0 && h->cep_reported == 0 &&
            h->ace_segments > 0)
            add(c, EW_MU_ACCECN_OPTION_MANGLED, d ^ 1, h->first_opt_frame, 1, EW_CONF_LIKELY,
                "RFC 9768 §3.2.3.2.5",
                "ECEB reports %llu CE bytes while ACE reports no CE packet: the counters "
                "disagree (mangled on the path)",
                (unsigned long long)h->opt_total[EW_ACC_CEB]);
    }
}

/* QUIC: a direction's Initial packets fail ECN validation against the peer's
 * Initial ACK counts; the sender must then stop using ECN (RFC 9000
 * §13.4.2.2). All CE may be real congestion, hence only likely. */
static void
quic_rules(struct ctx *c)
{
    struct ew_quic_summary s;
    int d;

    if (!ew_quic_conclude(c->f, &s))
        return;
    for (d = 0; d < 2; d++)
        if (s.dir[d].result == EW_QD_FAILED)
            add(c, EW_MU_QUIC_ECN_VALIDATION_FAILED, d,
                s.dir[d].first_frame ? s.dir[d].first_frame : s.dir[d].frame, s.dir[d].count,
                s.dir[d].fail == EW_QF_ALL_CE ? EW_CONF_LIKELY : EW_CONF_CERTAIN,
                "RFC 9000 §13.4.2.1", "%s", s.dir[d].reason);
}

static int
cmp_finding(const void *a, const void *b)
{
    const struct ew_finding *x = a, *y = b;

    if (x->first_frame != y->first_frame)
        return x->first_frame < y->first_frame ? -1 : 1;
    if (x->kind != y->kind)
        return x->kind < y->kind ? -1 : 1;
    return (x->dir > y->dir) - (x->dir < y->dir);
}

size_t
ew_misuse_find(const struct ew_flow *f, const struct ew_flow_verdict *v, struct ew_finding *out,
               size_t room)
{
    struct ctx c = {.f = f, .v = v, .out = out, .n = 0, .room = room};
    int d;

    if (f->key.l4 == EW_L4_TCP) {
        handshake_rules(&c);
        for (d = 0; d < 2; d++)
            direction_rules(&c, d);
    } else {
        /* any transport: CE on packets whose sender sends no ECT at all */
        for (d = 0; d < 2; d++) {
            const struct ew_dir_stats *s = &f->dir[d];

            if (s->ecn[EW_ECN_CE] > 0 && s->ecn[EW_ECN_ECT_0] + s->ecn[EW_ECN_ECT_1] == 0)
                add(&c, EW_MU_CE_ON_NOT_ECT, d, f->first_frame, s->ecn[EW_ECN_CE],
                    EW_CONF_CERTAIN, "RFC 3168 §5",
                    "%llu packets from a sender that sends no ECT arrive CE: an AQM marks "
                    "Not-ECT packets instead of dropping them",
                    (unsigned long long)s->ecn[EW_ECN_CE]);
        }
        quic_rules(&c);
    }
    qsort(out, c.n, sizeof(*out), cmp_finding);
    return c.n;
}

int
ew_misuse_parse_list(const char *list, uint32_t *mask, char *bad, size_t badlen)
{
    const char *p = list;

    *mask = 0;
    while (*p) {
        size_t len = strcspn(p, ",");
        int k;
        bool found = false;

        if (len == 3 && !strncmp(p, "any", 3)) {
            *mask = (1u << EW_MU_COUNT) - 1;
            found = true;
        }
        for (k = 0; !found && k < EW_MU_COUNT; k++) {
            if (strlen(ew_misuse_name[k]) == len && !strncmp(p, ew_misuse_name[k], len)) {
                *mask |= 1u << k;
                found = true;
            }
        }
        if (!found) {
            snprintf(bad, badlen, "%.*s", (int)(len > 64 ? 64 : len), p);
            return -1;
        }
        p += len;
        if (*p == ',')
            p++;
    }
    return *mask ? 0 : -1;
}
