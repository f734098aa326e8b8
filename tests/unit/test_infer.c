/* test_infer.c - packet sequences in, feedback and verdicts out: RFC 3168
 * latching, DCTCP echo, SCE's ESCE, AccECN ACE (with wrap) and option
 * counters (with 24-bit wrap), and a mid-flow start. */
#include <CUnit/CUnit.h>
#include <string.h>

#include "engine/analyze.h"
#include "dissectors/ecn.h"
#include "infer/infer.h"
#include "fixture.h"
#include "suites.h"

struct seq {
    struct ew_analyzer an;
    uint32_t cseq, sseq; /* next sequence numbers */
    int64_t t;
};

static const struct fx_hosts hosts = {.family = 4, .cli = 2, .srv = 1, .cport = 40000, .sport = 443, .hdr = 52};

static void
pkt_init(struct ew_pkt *p, int from, uint16_t flags, uint8_t ecn, uint32_t seq, uint32_t ack,
         uint32_t payload)
{
    fx_tcp(p, &hosts, from, flags, ecn, seq, ack, payload);
}

static void
start(struct seq *s)
{
    struct ew_analyzer_cfg cfg = {.max_flows = 4, .hash_seed = 9, .idle_ns = 0};

    memset(s, 0, sizeof(*s));
    CU_ASSERT_FATAL(ew_analyzer_init(&s->an, &cfg) == 0);
    s->cseq = 1000;
    s->sseq = 9000;
    s->t = 1000000000;
}

static void
feed(struct seq *s, struct ew_pkt *p)
{
    s->t += 1000000;
    ew_analyzer_frame(&s->an, p, s->t);
}

static void
handshake(struct seq *s, uint16_t syn_bits, uint16_t synack_bits)
{
    struct ew_pkt p;

    pkt_init(&p, CLI, (uint16_t)(EW_TCP_SYN | syn_bits), EW_ECN_NOT_ECT, s->cseq++, 0, 0);
    feed(s, &p);
    pkt_init(&p, SRV, (uint16_t)(EW_TCP_SYN | EW_TCP_ACK | synack_bits), EW_ECN_NOT_ECT,
             s->sseq++, s->cseq, 0);
    feed(s, &p);
}

/* client data; then the server's ACK with the given flags */
static void
data(struct seq *s, uint8_t ecn, uint16_t cflags)
{
    struct ew_pkt p;

    pkt_init(&p, CLI, (uint16_t)(EW_TCP_ACK | cflags), ecn, s->cseq, s->sseq, 1000);
    s->cseq += 1000;
    feed(s, &p);
}

static void
ack(struct seq *s, uint16_t sflags)
{
    struct ew_pkt p;

    pkt_init(&p, SRV, (uint16_t)(EW_TCP_ACK | sflags), EW_ECN_NOT_ECT, s->sseq, s->cseq, 0);
    feed(s, &p);
}

static const struct ew_flow *
flow_of(struct seq *s)
{
    static struct ew_flow_room room;
    uint32_t ref;

    return ew_flowtab_refs(s->an.tab, &ref, 1, false) == 1 ? ew_flowtab_view(s->an.tab, ref, &room)
                                                           : NULL;
}

static void
conclude(struct seq *s, struct ew_flow_verdict *v, const struct ew_flow **fo)
{
    const struct ew_flow *f = flow_of(s);

    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    ew_infer_conclude(f, v);
    *fo = f;
}

static void
test_rfc3168_latch(void)
{
    struct seq s;
    struct ew_flow_verdict v;
    const struct ew_flow *f;
    int c2s;

    start(&s);
    handshake(&s, EW_TCP_ECE | EW_TCP_CWR, EW_TCP_ECE);
    ack(&s, 0); /* the client's third ACK stands in for it: any ACK will do here */
    data(&s, EW_ECN_ECT_0, 0);
    data(&s, EW_ECN_CE, 0);
    ack(&s, EW_TCP_ECE);
    data(&s, EW_ECN_ECT_0, 0);
    ack(&s, EW_TCP_ECE); /* held: no CWR yet, although no new CE */
    data(&s, EW_ECN_ECT_0, EW_TCP_CWR);
    ack(&s, 0);
    conclude(&s, &v, &f);
    c2s = f->client_dir;
    CU_ASSERT_EQUAL(v.neg, EW_NEG_RFC3168);
    CU_ASSERT_EQUAL(v.dir[c2s].feedback, EW_FB_RFC3168);
    CU_ASSERT_EQUAL(f->inf->half[c2s].ece_runs_after_cwr, 1);
    CU_ASSERT_EQUAL(f->inf->half[c2s].ece_runs_without_cwr, 0);
    CU_ASSERT_EQUAL(v.verdict, EW_V_CLASSIC);
    CU_ASSERT_TRUE(v.dir[c2s].fb_checked_exact);
    ew_analyzer_free(&s.an);
}

static void
test_dctcp_echo(void)
{
    struct seq s;
    struct ew_flow_verdict v;
    const struct ew_flow *f;
    int c2s;

    start(&s);
    handshake(&s, EW_TCP_ECE | EW_TCP_CWR, EW_TCP_ECE);
    data(&s, EW_ECN_CE, 0);
    ack(&s, EW_TCP_ECE);
    data(&s, EW_ECN_ECT_0, 0);
    ack(&s, 0); /* cleared with no CWR: ECE follows CE */
    data(&s, EW_ECN_CE, 0);
    ack(&s, EW_TCP_ECE);
    data(&s, EW_ECN_ECT_0, 0);
    ack(&s, 0);
    conclude(&s, &v, &f);
    c2s = f->client_dir;
    CU_ASSERT_EQUAL(v.dir[c2s].feedback, EW_FB_DCTCP);
    CU_ASSERT_EQUAL(f->inf->half[c2s].ece_runs_without_cwr, 2);
    CU_ASSERT_EQUAL(v.verdict, EW_V_DCTCP);
    ew_analyzer_free(&s.an);
}

/* RFC 8257 §3.2 with CE bursts longer than a round trip: the sender's CWR
 * (RFC 3168 §6.1.2) lands inside most ECE runs, as it would under latching;
 * one run that clears with no CWR is what latching cannot do (digest §3.3),
 * and decides however many runs overlapped a CWR */
static void
test_dctcp_long_runs(void)
{
    struct seq s;
    struct ew_flow_verdict v;
    const struct ew_flow *f;
    int c2s, i;

    start(&s);
    handshake(&s, EW_TCP_ECE | EW_TCP_CWR, EW_TCP_ECE);
    for (i = 0; i < 3; i++) {
        data(&s, EW_ECN_CE, 0);
        ack(&s, EW_TCP_ECE);
        data(&s, EW_ECN_CE, EW_TCP_CWR); /* CWR inside the run; CE goes on */
        ack(&s, EW_TCP_ECE);
        data(&s, EW_ECN_ECT_0, 0);
        ack(&s, 0);
    }
    data(&s, EW_ECN_CE, 0);
    ack(&s, EW_TCP_ECE);
    data(&s, EW_ECN_ECT_0, 0);
    ack(&s, 0); /* no CWR since the run began */
    conclude(&s, &v, &f);
    c2s = f->client_dir;
    CU_ASSERT_EQUAL(f->inf->half[c2s].ece_runs_after_cwr, 3);
    CU_ASSERT_EQUAL(f->inf->half[c2s].ece_runs_without_cwr, 1);
    CU_ASSERT_EQUAL(v.dir[c2s].feedback, EW_FB_DCTCP);
    CU_ASSERT_EQUAL(v.verdict, EW_V_DCTCP);
    ew_analyzer_free(&s.an);
}

/* a loss reduction just before an ECE run: its CWR (RFC 3168 §6.1.2: after
 * "any" reduction) may clear a latch the capture sees with no CWR inside it;
 * nor does a run already on when a mid-flow capture begins tell anything */
static void
test_latch_runs_that_tell_nothing(void)
{
    struct seq s;
    struct ew_flow_verdict v;
    const struct ew_flow *f;
    struct ew_pkt p;
    int c2s;

    start(&s);
    handshake(&s, EW_TCP_ECE | EW_TCP_CWR, EW_TCP_ECE);
    data(&s, EW_ECN_ECT_0, 0);
    data(&s, EW_ECN_ECT_0, 0);
    ack(&s, 0);
    pkt_init(&p, CLI, EW_TCP_ACK, EW_ECN_NOT_ECT, s.cseq - 2000, s.sseq, 1000);
    feed(&s, &p); /* a fast retransmission, */
    data(&s, EW_ECN_ECT_0, EW_TCP_CWR); /* the CWR of that reduction, with no ECE to answer */
    data(&s, EW_ECN_CE, 0);
    ack(&s, EW_TCP_ECE);
    data(&s, EW_ECN_ECT_0, 0);
    ack(&s, 0);
    conclude(&s, &v, &f);
    c2s = f->client_dir;
    CU_ASSERT_EQUAL(f->inf->half[c2s].ece_runs_in_recovery, 1);
    CU_ASSERT_EQUAL(f->inf->half[c2s].ece_runs_without_cwr, 0);
    CU_ASSERT_EQUAL(v.dir[c2s].feedback, EW_FB_RFC3168);
    ew_analyzer_free(&s.an);

    start(&s); /* mid-flow: no handshake */
    ack(&s, EW_TCP_ECE);
    data(&s, EW_ECN_ECT_0, 0);
    ack(&s, 0);
    data(&s, EW_ECN_ECT_0, 0);
    conclude(&s, &v, &f);
    c2s = f->client_dir;
    CU_ASSERT_EQUAL(f->inf->half[c2s].ece_runs_at_start, 1);
    CU_ASSERT_EQUAL(f->inf->half[c2s].ece_runs_without_cwr, 0);
    CU_ASSERT_NOT_EQUAL(v.dir[c2s].feedback, EW_FB_DCTCP);
    ew_analyzer_free(&s.an);
}

/* RFC 3168 §6.1.3: after a CWR arrives, "acknowledgments for subsequent
 * non-CE data packets do not have the ECN-Echo flag set": an ACK covering a
 * CE sent before the CWR, and the CWR, may clear ECE; a CE on the CWR
 * segment itself must still be echoed (Errata 3639) */
static void
test_ce_before_cwr_needs_no_echo(void)
{
    struct seq s;
    struct ew_flow_verdict v;
    const struct ew_flow *f;
    int c2s;

    start(&s);
    handshake(&s, EW_TCP_ECE | EW_TCP_CWR, EW_TCP_ECE);
    data(&s, EW_ECN_CE, 0);
    ack(&s, EW_TCP_ECE);
    data(&s, EW_ECN_CE, 0);               /* latched already */
    data(&s, EW_ECN_ECT_0, EW_TCP_CWR);   /* the reduction's CWR */
    ack(&s, 0);                           /* covers both: the latch cleared */
    conclude(&s, &v, &f);
    c2s = f->client_dir;
    CU_ASSERT_EQUAL(f->inf->half[c2s].ce_unechoed, 0);
    ew_analyzer_free(&s.an);

    start(&s);
    handshake(&s, EW_TCP_ECE | EW_TCP_CWR, EW_TCP_ECE);
    data(&s, EW_ECN_CE, 0);
    ack(&s, EW_TCP_ECE);
    data(&s, EW_ECN_CE, EW_TCP_CWR); /* CWR first, then this CE re-arms */
    ack(&s, 0);
    conclude(&s, &v, &f);
    c2s = f->client_dir;
    CU_ASSERT_EQUAL(f->inf->half[c2s].ce_unechoed, 1);
    ew_analyzer_free(&s.an);
}

static void
test_sce_esce(void)
{
    struct seq s;
    struct ew_flow_verdict v;
    const struct ew_flow *f;
    int c2s;

    start(&s);
    handshake(&s, EW_TCP_ECE | EW_TCP_CWR, EW_TCP_ECE);
    data(&s, EW_ECN_ECT_0, 0);
    data(&s, EW_ECN_ECT_0, 0);
    ack(&s, 0);
    data(&s, EW_ECN_ECT_1, 0); /* the AQM re-marked: SCE */
    ack(&s, EW_TCP_AE);        /* ESCE echoes it */
    data(&s, EW_ECN_ECT_1, 0);
    data(&s, EW_ECN_ECT_1, 0);
    ack(&s, EW_TCP_AE);
    data(&s, EW_ECN_ECT_0, 0);
    ack(&s, 0);
    conclude(&s, &v, &f);
    c2s = f->client_dir;
    CU_ASSERT_EQUAL(v.dir[c2s].feedback, EW_FB_SCE);
    CU_ASSERT_EQUAL(v.dir[c2s].ect1, EW_ECT1_SCE);
    CU_ASSERT_STRING_EQUAL(v.dir[c2s].sender_cp, "ect0");
    CU_ASSERT_EQUAL(v.verdict, EW_V_SCE);
    ew_analyzer_free(&s.an);
}

static uint16_t
ace_flags(unsigned ace)
{
    return (uint16_t)(((ace & 4) ? EW_TCP_AE : 0) | ((ace & 2) ? EW_TCP_CWR : 0) |
                      ((ace & 1) ? EW_TCP_ECE : 0));
}

static void
test_accecn_ace_wrap_and_option_wrap(void)
{
    struct seq s;
    struct ew_flow_verdict v;
    const struct ew_flow *f;
    struct ew_pkt p;
    int c2s, i;

    start(&s);
    handshake(&s, EW_TCP_AE | EW_TCP_CWR | EW_TCP_ECE, EW_TCP_CWR); /* 111 / 010 */
    /* the handshake ACK: ACE 010 = the SYN-ACK arrived Not-ECT */
    pkt_init(&p, CLI, EW_TCP_ACK | EW_TCP_CWR, EW_ECN_ECT_0, s.cseq, s.sseq, 0);
    feed(&s, &p);
    /* 7 CE data segments, then one ACK: ACE 5 + 7 = 12 = 4 mod 8 */
    for (i = 0; i < 7; i++)
        data(&s, EW_ECN_CE, ace_flags(5));
    ack(&s, ace_flags(4));
    /* 9 ECT(0) segments acknowledged at once: ACE unchanged, but 9 packets
     * newly acknowledged could hide a wrap of 8 */
    for (i = 0; i < 9; i++)
        data(&s, EW_ECN_ECT_0, ace_flags(5));
    /* the AccECN option with EE0B wrapping past 2^24; its first values are
     * the baseline (pre-RFC endpoints start counters at 0, RFC 9768 at 1:
     * no initial value is assumed), so only what moves after counts */
    pkt_init(&p, SRV, (uint16_t)(EW_TCP_ACK | ace_flags(4)), EW_ECN_ECT_0, s.sseq, s.cseq, 0);
    p.u.tcp.acc.present = true;
    p.u.tcp.acc.kind = 174;
    p.u.tcp.acc.nfields = 3;
    p.u.tcp.acc.has[EW_ACC_E0B] = p.u.tcp.acc.has[EW_ACC_CEB] = p.u.tcp.acc.has[EW_ACC_E1B] = true;
    p.u.tcp.acc.val[EW_ACC_E0B] = 0xfffff0;
    p.u.tcp.acc.val[EW_ACC_CEB] = 7000;
    p.u.tcp.acc.val[EW_ACC_E1B] = 1;
    feed(&s, &p);
    p.u.tcp.acc.val[EW_ACC_E0B] = 0x10; /* wrapped: 0x20 more bytes */
    feed(&s, &p);
    conclude(&s, &v, &f);
    c2s = f->client_dir;
    CU_ASSERT_EQUAL(v.neg, EW_NEG_ACCECN);
    CU_ASSERT_EQUAL(v.dir[c2s].feedback, EW_FB_ACCECN);
    CU_ASSERT_EQUAL(f->inf->half[c2s].cep_reported, 7);
    CU_ASSERT_EQUAL(f->inf->half[c2s].ace_changes, 1);
    CU_ASSERT_EQUAL(f->inf->half[c2s].ace_mismatch, 0);
    CU_ASSERT_EQUAL(f->inf->half[c2s].ace_wrap_ambiguous, 1);
    CU_ASSERT_EQUAL(f->inf->half[c2s].opt_total[EW_ACC_E0B], 0x20);
    CU_ASSERT_EQUAL(f->inf->half[c2s].opt_total[EW_ACC_CEB], 0);
    CU_ASSERT_EQUAL(f->inf->half[c2s].opt_total[EW_ACC_E1B], 0);
    CU_ASSERT_TRUE(f->inf->ack3_seen);
    CU_ASSERT_EQUAL(f->inf->ack3_ace, 2);
    /* the raw AE/ECE bits on every data segment were ACE, never ECE */
    CU_ASSERT_EQUAL(v.verdict, EW_V_ACCECN_CLASSIC);
    ew_analyzer_free(&s.an);
}

static void
test_midflow_accecn_inferred(void)
{
    struct seq s;
    struct ew_flow_verdict v;
    const struct ew_flow *f;
    struct ew_pkt p;
    int c2s, i;

    start(&s);
    for (i = 0; i < 4; i++) {
        data(&s, EW_ECN_ECT_1, ace_flags(5));
        pkt_init(&p, SRV, (uint16_t)(EW_TCP_ACK | ace_flags(3)), EW_ECN_ECT_0, s.sseq, s.cseq, 0);
        p.u.tcp.acc.present = true;
        p.u.tcp.acc.has[EW_ACC_E1B] = true;
        p.u.tcp.acc.val[EW_ACC_E1B] = 5000 + 1000 * (uint32_t)i;
        feed(&s, &p);
    }
    conclude(&s, &v, &f);
    c2s = f->client_dir;
    CU_ASSERT_EQUAL(f->client_from, EW_CLIENT_PORT);
    CU_ASSERT_EQUAL(v.neg, EW_NEG_UNSEEN);
    CU_ASSERT_TRUE(v.neg_inferred);
    CU_ASSERT_TRUE(v.mode_accecn);
    /* mid-flow, the first values are the baseline: no phantom CE, 3000 ECT(1) bytes */
    CU_ASSERT_EQUAL(f->inf->half[c2s].cep_reported, 0);
    CU_ASSERT_EQUAL(f->inf->half[c2s].opt_total[EW_ACC_E1B], 3000);
    CU_ASSERT_EQUAL(v.dir[c2s].ect1, EW_ECT1_L4S);
    CU_ASSERT_EQUAL(v.verdict, EW_V_L4S);
    ew_analyzer_free(&s.an);
}

static void
test_ect1_classic_feedback_ambiguous(void)
{
    struct seq s;
    struct ew_flow_verdict v;
    const struct ew_flow *f;

    start(&s);
    handshake(&s, EW_TCP_ECE | EW_TCP_CWR, EW_TCP_ECE);
    data(&s, EW_ECN_ECT_1, 0);
    data(&s, EW_ECN_ECT_1, 0);
    ack(&s, 0);
    conclude(&s, &v, &f);
    CU_ASSERT_EQUAL(v.dir[f->client_dir].ect1, EW_ECT1_AMBIGUOUS);
    CU_ASSERT_EQUAL(v.verdict, EW_V_AMBIGUOUS);
    CU_ASSERT_PTR_NOT_NULL(strstr(v.reason, "L4S"));
    ew_analyzer_free(&s.an);
}

int
ew_test_register_infer(void)
{
    CU_pSuite s = CU_add_suite("infer", NULL, NULL);

    if (!s)
        return -1;
    if (!CU_add_test(s, "RFC 3168 latch until CWR", test_rfc3168_latch) ||
        !CU_add_test(s, "DCTCP echo clears without CWR", test_dctcp_echo) ||
        !CU_add_test(s, "DCTCP: one run without CWR outweighs long runs", test_dctcp_long_runs) ||
        !CU_add_test(s, "ECE runs in loss recovery or mid-flow tell nothing",
                     test_latch_runs_that_tell_nothing) ||
        !CU_add_test(s, "CE before a CWR needs no echo", test_ce_before_cwr_needs_no_echo) ||
        !CU_add_test(s, "SCE: ESCE after ECT(1) runs", test_sce_esce) ||
        !CU_add_test(s, "AccECN ACE wrap and option wrap", test_accecn_ace_wrap_and_option_wrap) ||
        !CU_add_test(s, "mid-flow AccECN inferred", test_midflow_accecn_inferred) ||
        !CU_add_test(s, "ECT(1) with classic feedback is ambiguous",
                     test_ect1_classic_feedback_ambiguous))
        return -1;
    return 0;
}
