/* test_midflow.c - flows joined after their handshake (src/infer/infer.c,
 * infer_mode and conclude_vantage): the feedback mode only from signs one
 * mode shows and the other cannot (the AccECN option; two pure ACKs with
 * the CWR bit; an ACE that follows three CE arrivals; AE on nine in ten
 * segments with ACE 5; ECE latched until the sender's CWR; ECE answering CE
 * with no AE bit anywhere; ECT data with every ECN flag clear; ESCE after
 * ECT(1) runs on an ECT(0) sender), "unknown" where there are none; the
 * capture point placed by TCP timestamps; and findings that a flow without
 * its handshake cannot make certain. Packets are built by hand and fed
 * through an analyzer, as in test_infer.c; no SYN is ever seen. */
#include <CUnit/CUnit.h>
#include <string.h>

#include "engine/analyze.h"
#include "dissectors/ecn.h"
#include "infer/infer.h"
#include "findings/misuse.h"
#include "fixture.h"
#include "suites.h"

#define MS 1000000LL
#define US 1000LL

struct seq {
    struct ew_analyzer an;
    uint32_t cseq, sseq; /* next sequence numbers */
    uint32_t cts, sts;   /* the latest TSvals sent (ts: packets carry timestamps) */
    bool ts;
    int64_t t;
    /* the AccECN option on the server's segments (opt), its E1B counter */
    bool opt;
    uint32_t e1b;
};

static void
start(struct seq *s)
{
    struct ew_analyzer_cfg cfg = {.max_flows = 4, .hash_seed = 19, .idle_ns = 0};

    memset(s, 0, sizeof(*s));
    CU_ASSERT_FATAL(ew_analyzer_init(&s->an, &cfg) == 0);
    s->cseq = 100000;
    s->sseq = 700000;
    s->cts = 5000;
    s->sts = 90000;
    s->e1b = 1;
    s->t = 1000 * MS;
}

static void
pkt_init(struct seq *s, struct ew_pkt *p, int from, uint16_t flags, uint8_t ecn,
         uint32_t payload)
{
    static const struct fx_hosts hosts = {.family = 4, .cli = 2, .srv = 1, .cport = 40000, .sport = 443, .hdr = 52};

    fx_tcp(p, &hosts, from, (uint16_t)(EW_TCP_ACK | flags), ecn, from == CLI ? s->cseq : s->sseq,
           from == CLI ? s->sseq : s->cseq, payload);
    p->u.tcp.doff = 8;
    if (s->ts) {
        p->u.tcp.has_ts = true;
        p->u.tcp.tsval = from == CLI ? ++s->cts : ++s->sts;
        p->u.tcp.tsecr = from == CLI ? s->sts : s->cts;
    }
}

/* a client data segment of 1000 bytes, gap after the previous packet */
static void
cdata(struct seq *s, uint8_t ecn, uint16_t flags, int64_t gap)
{
    struct ew_pkt p;

    pkt_init(s, &p, CLI, flags, ecn, 1000);
    s->cseq += 1000;
    s->t += gap;
    ew_analyzer_frame(&s->an, &p, s->t);
}

/* the server's ACK of everything so far, with payload bytes of its own */
static void
sack_data(struct seq *s, uint16_t flags, uint32_t payload, int64_t gap)
{
    struct ew_pkt p;

    pkt_init(s, &p, SRV, flags, EW_ECN_NOT_ECT, payload);
    s->sseq += payload;
    if (s->opt) {
        p.u.tcp.acc.present = true;
        p.u.tcp.acc.kind = 172;
        p.u.tcp.acc.nfields = 3;
        p.u.tcp.acc.has[EW_ACC_E0B] = p.u.tcp.acc.has[EW_ACC_CEB] = true;
        p.u.tcp.acc.has[EW_ACC_E1B] = true;
        p.u.tcp.acc.val[EW_ACC_E0B] = 1;
        p.u.tcp.acc.val[EW_ACC_E1B] = s->e1b += 1000;
    }
    s->t += gap;
    ew_analyzer_frame(&s->an, &p, s->t);
}

static void
sack(struct seq *s, uint16_t flags)
{
    sack_data(s, flags, 0, MS);
}

static uint16_t
ace(unsigned v)
{
    return (uint16_t)(((v & 4) ? EW_TCP_AE : 0) | ((v & 2) ? EW_TCP_CWR : 0) |
                      ((v & 1) ? EW_TCP_ECE : 0));
}

static const struct ew_flow *
flow_of(struct seq *s)
{
    static struct ew_flow_room room;
    uint32_t ref;

    CU_ASSERT_EQUAL_FATAL(ew_flowtab_refs(s->an.tab, &ref, 1, false), 1);
    return ew_flowtab_view(s->an.tab, ref, &room);
}

/* the flow's verdict; its analyzer freed */
static void
conclude(struct seq *s, struct ew_flow_verdict *v, int *c2s)
{
    const struct ew_flow *f = flow_of(s);
    struct ew_quality q;

    /* the capture holds one TCP flow, joined after its handshake */
    ew_analyzer_quality(&s->an, &q);
    CU_ASSERT_EQUAL(q.flows_midstream, 1);

    ew_infer_conclude(f, v);
    *c2s = f->client_dir;
    CU_ASSERT_EQUAL(f->client_from, EW_CLIENT_PORT);
    CU_ASSERT_EQUAL(v->neg, EW_NEG_UNSEEN);
    CU_ASSERT_TRUE(v->neg_inferred);
    CU_ASSERT_TRUE(v->verdict_likely);
    ew_analyzer_free(&s->an);
}

/* AccECN inferred, for the reason in words that holds `why` */
static void
expect_accecn(struct seq *s, const char *why)
{
    struct ew_flow_verdict v;
    int c2s;

    conclude(s, &v, &c2s);
    CU_ASSERT_TRUE(v.mode_accecn);
    CU_ASSERT_FALSE(v.mode_unknown);
    CU_ASSERT_EQUAL(v.dir[c2s].feedback, EW_FB_ACCECN);
    CU_ASSERT_PTR_NOT_NULL(strstr(v.neg_reason, why));
}

/* classic feedback inferred, for the reason in words that holds `why` */
static void
expect_classic(struct seq *s, const char *why, enum ew_fb fb)
{
    struct ew_flow_verdict v;
    int c2s;

    conclude(s, &v, &c2s);
    CU_ASSERT_FALSE(v.mode_accecn);
    CU_ASSERT_FALSE(v.mode_unknown);
    CU_ASSERT_EQUAL(v.dir[c2s].feedback, fb);
    CU_ASSERT_NOT_EQUAL(v.verdict, EW_V_UNKNOWN);
    CU_ASSERT_PTR_NOT_NULL(strstr(v.neg_reason, why));
}

/* nothing told the mode: feedback and verdict "unknown" */
static void
expect_unknown(struct seq *s)
{
    struct ew_flow_verdict v;
    int c2s;

    conclude(s, &v, &c2s);
    CU_ASSERT_TRUE(v.mode_unknown);
    CU_ASSERT_FALSE(v.mode_accecn);
    CU_ASSERT_EQUAL(v.dir[c2s].feedback, EW_FB_UNKNOWN);
    CU_ASSERT_EQUAL(v.verdict, EW_V_UNKNOWN);
}

/* ECT(1) data, the server's ACKs with ECE: with the AccECN option on them,
 * AccECN; without it, nothing tells (ECE on from the first feedback seen
 * says neither latch nor counter) */
static void
test_option(void)
{
    struct seq s;
    int k, i;

    for (k = 0; k < 2; k++) {
        start(&s);
        s.opt = k == 0;
        for (i = 0; i < 3; i++) {
            cdata(&s, EW_ECN_ECT_1, 0, MS);
            sack(&s, EW_TCP_ECE);
        }
        if (k == 0)
            expect_accecn(&s, "AccECN option");
        else
            expect_unknown(&s);
    }
}

/* AccECN's ACE passes the CWR bit every other mark, on pure ACKs too; a
 * classic receiver never sets CWR on a pure ACK. ACE 5, 6, 7 (marks
 * downstream of the capture point): two pure ACKs with CWR. One (5, 6, 0)
 * may be a stray bit; and CWR on segments that carry data is no sign. */
static void
test_cwr_on_pure_acks(void)
{
    static const unsigned two[] = {5, 6, 7}, one[] = {5, 6, 0};
    struct seq s;
    int k, i;

    for (k = 0; k < 3; k++) {
        start(&s);
        for (i = 0; i < 3; i++) {
            cdata(&s, EW_ECN_ECT_1, 0, MS);
            sack_data(&s, ace(k == 1 ? one[i] : two[i]), k == 2 ? 100 : 0, MS);
        }
        if (k == 0)
            expect_accecn(&s, "pure ACKs carry the CWR bit");
        else
            expect_unknown(&s);
    }
}

/* Seen at the receiver: three CE arrivals, and the ACE moves from 5 to 0
 * (5 + 3 mod 8) with them, on every feedback segment: AccECN's counter. An
 * ACE that moves otherwise (5 to 4) follows nothing. */
static void
test_ace_follows_ce(void)
{
    struct seq s;
    int k;

    for (k = 0; k < 2; k++) {
        start(&s);
        cdata(&s, EW_ECN_ECT_1, 0, MS);
        sack(&s, ace(5));
        cdata(&s, EW_ECN_CE, 0, MS);
        cdata(&s, EW_ECN_CE, 0, MS);
        cdata(&s, EW_ECN_CE, 0, MS);
        sack(&s, ace(k == 0 ? 0 : 4));
        cdata(&s, EW_ECN_ECT_1, 0, MS);
        sack(&s, ace(k == 0 ? 0 : 4));
        if (k == 0)
            expect_accecn(&s, "follows the 3 CE");
        else
            expect_unknown(&s);
    }
}

/* With no CE yet, every AccECN segment carries ACE 5: AE set on 9 in 10 of
 * the segments or more, over 4 or more. 8 in 10 is not enough; nor are 3
 * segments. */
static void
test_ae_on_nearly_all(void)
{
    struct seq s;
    int k, i;

    for (k = 0; k < 3; k++) {
        start(&s);
        for (i = 0; i < (k == 2 ? 1 : 5); i++) {
            cdata(&s, EW_ECN_ECT_1, ace(5), MS);
            sack(&s, ace(k == 1 && i < 2 ? 1 : 5));
        }
        if (k == 2)
            cdata(&s, EW_ECN_ECT_1, ace(5), MS);
        if (k == 0)
            expect_accecn(&s, "ACE counter from 5");
        else
            expect_unknown(&s);
    }
}

/* RFC 3168 §6.1.3: ECE held until the sender's CWR. A run that clears
 * without a CWR is no latch (DCTCP echoes so, and so may a counter). */
static void
test_latch(void)
{
    struct seq s;
    int k;

    for (k = 0; k < 2; k++) {
        start(&s);
        cdata(&s, EW_ECN_ECT_0, 0, MS);
        sack(&s, 0);
        cdata(&s, EW_ECN_ECT_0, 0, MS);
        sack(&s, EW_TCP_ECE);
        cdata(&s, EW_ECN_ECT_0, k == 0 ? EW_TCP_CWR : 0, MS);
        sack(&s, 0);
        cdata(&s, EW_ECN_ECT_0, 0, MS);
        sack(&s, 0);
        if (k == 0)
            expect_classic(&s, "ECE held until the sender's CWR", EW_FB_RFC3168);
        else
            expect_unknown(&s);
    }
}

/* ECE that answers a CE seen here, with no AE bit on any segment (an
 * AccECN receiver's ACE 5 sets it until three CE): classic. The same with
 * one AE bit is not told. */
static void
test_ece_answers_ce(void)
{
    struct seq s;
    int k;

    for (k = 0; k < 2; k++) {
        start(&s);
        cdata(&s, EW_ECN_ECT_0, k == 1 ? EW_TCP_AE : 0, MS);
        sack(&s, 0);
        cdata(&s, EW_ECN_CE, 0, MS);
        sack(&s, EW_TCP_ECE);
        if (k == 0)
            expect_classic(&s, "ECE answers the CE", EW_FB_RFC3168);
        else
            expect_unknown(&s);
    }
}

/* ECT data with every ECN flag clear on every segment: an AccECN host
 * sends its ACE counter from 5, never all zero: classic. One ECE is
 * enough to leave that unsure. Not-ECT data with no flags: no ECN. */
static void
test_flags_clear(void)
{
    struct seq s;
    struct ew_flow_verdict v;
    int k, i, c2s;

    for (k = 0; k < 2; k++) {
        start(&s);
        for (i = 0; i < 4; i++) {
            cdata(&s, EW_ECN_ECT_0, 0, MS);
            sack(&s, k == 1 && i == 2 ? EW_TCP_ECE : 0);
        }
        if (k == 0)
            expect_classic(&s, "flags clear", EW_FB_RFC3168);
        else
            expect_unknown(&s);
    }

    start(&s);
    for (i = 0; i < 4; i++) {
        cdata(&s, EW_ECN_NOT_ECT, 0, MS);
        sack(&s, 0);
    }
    conclude(&s, &v, &c2s);
    CU_ASSERT_FALSE(v.mode_unknown);
    CU_ASSERT_EQUAL(v.dir[c2s].feedback, EW_FB_NONE);
    CU_ASSERT_EQUAL(v.verdict, EW_V_NOT_ECN);
}

/* SCE (draft-morton-tsvwg-sce): an ECT(0) sender's data arrives ECT(1) in
 * runs, and the receiver's ESCE (the AE bit) follows them: classic ECN with
 * SCE feedback. ECT(1) from the first data segment is the sender's own
 * (L4S or SCE alike): not told. */
static void
test_esce(void)
{
    static const uint8_t runs[] = {EW_ECN_ECT_0, EW_ECN_ECT_0, EW_ECN_ECT_1, EW_ECN_ECT_0,
                                   EW_ECN_ECT_1, EW_ECN_ECT_0};
    struct seq s;
    int k, i;

    for (k = 0; k < 2; k++) {
        start(&s);
        for (i = 0; i < 6; i++) {
            uint8_t e = k == 1 && i == 0 ? EW_ECN_ECT_1 : runs[i];

            cdata(&s, e, 0, MS);
            sack(&s, e == EW_ECN_ECT_1 ? EW_TCP_AE : 0);
        }
        if (k == 0)
            expect_classic(&s, "ESCE follows ECT(1) runs", EW_FB_SCE);
        else
            expect_unknown(&s);
    }
}

/* ------------------------------------------------------------ vantage */

/* Twelve round trips with TCP timestamps: the client's data, its ACK (and
 * the server's TSval) `there` later, the client's next segment (echoing it)
 * `back` later. At the client, `there` is the whole path and `back` the
 * client's own turnaround. */
static void
ts_flow(struct seq *s, int rounds, int64_t there, int64_t back, uint8_t ecn)
{
    int i;

    start(s);
    s->ts = true;
    for (i = 0; i < rounds; i++) {
        cdata(s, ecn, 0, back);
        sack_data(s, 0, 0, there);
    }
}

static enum ew_vantage
vantage_of(struct seq *s, struct ew_flow_verdict *v)
{
    int c2s;

    conclude(s, v, &c2s);
    return v->vantage;
}

/* Without a handshake, the two timestamp loops place the capture point:
 * the loop to one end a tenth of the other or less is that end's own
 * turnaround. 20 ms against 0.5 ms: next to the client, the data's sender;
 * the other way round next to the server; 10 and 10 ms in the middle. Fewer
 * than 8 samples of each loop, or loops that add up to under 0.1 ms, do not
 * place it. */
static void
test_vantage_from_timestamps(void)
{
    struct seq s;
    struct ew_flow_verdict v;

    ts_flow(&s, 12, 20 * MS, 500 * US, EW_ECN_ECT_0);
    CU_ASSERT_EQUAL(vantage_of(&s, &v), EW_VANT_CLIENT);
    CU_ASSERT_PTR_NOT_NULL(strstr(v.vantage_reason, "TCP timestamps"));
    ts_flow(&s, 12, 500 * US, 20 * MS, EW_ECN_ECT_0);
    CU_ASSERT_EQUAL(vantage_of(&s, &v), EW_VANT_SERVER);
    ts_flow(&s, 12, 10 * MS, 10 * MS, EW_ECN_ECT_0);
    CU_ASSERT_EQUAL(vantage_of(&s, &v), EW_VANT_MIDDLE);
    /* 2 ms against 0.2 ms: a tenth exactly is still one end */
    ts_flow(&s, 12, 2 * MS, 200 * US, EW_ECN_ECT_0);
    CU_ASSERT_EQUAL(vantage_of(&s, &v), EW_VANT_CLIENT);
    ts_flow(&s, 12, 2 * MS, 201 * US, EW_ECN_ECT_0);
    CU_ASSERT_EQUAL(vantage_of(&s, &v), EW_VANT_MIDDLE);
    /* 7 samples of the loop to the client (its first echo is the second
     * round's), 8 of the other */
    ts_flow(&s, 8, 20 * MS, 500 * US, EW_ECN_ECT_0);
    CU_ASSERT_EQUAL(vantage_of(&s, &v), EW_VANT_UNKNOWN);
    ts_flow(&s, 9, 20 * MS, 500 * US, EW_ECN_ECT_0);
    CU_ASSERT_EQUAL(vantage_of(&s, &v), EW_VANT_CLIENT);
    ts_flow(&s, 12, 50 * US, 40 * US, EW_ECN_ECT_0);
    CU_ASSERT_EQUAL(vantage_of(&s, &v), EW_VANT_UNKNOWN);
}

/* ------------------------------------------------------------ findings */

static size_t
count_kind(const struct ew_finding *fnd, size_t n, enum ew_misuse_kind kind,
           const struct ew_finding **first)
{
    size_t i, k = 0;

    for (i = 0; i < n; i++)
        if (fnd[i].kind == kind) {
            if (!k && first)
                *first = &fnd[i];
            k++;
        }
    return k;
}

static size_t
findings(struct seq *s, struct ew_finding *fnd, size_t room, struct ew_flow_verdict *v)
{
    const struct ew_flow *f = flow_of(s);
    size_t n;

    ew_infer_conclude(f, v);
    n = ew_misuse_find(f, v, fnd, room);
    ew_analyzer_free(&s->an);
    return n;
}

/* Nothing certain from a flow whose negotiation was not seen, and nothing
 * concluded from what the handshake would have shown:
 * - CE on a sender of Not-ECT packets, seen at that sender (by timestamps):
 *   certain there with a handshake, likely here;
 * - ECT(1) from an ECT sender with classic-looking feedback (flags clear):
 *   ect1_without_l4s needs the negotiation to say classic;
 * - all data Not-ECT where AccECN was inferred from its option: bleaching
 *   needs ECN to have been negotiated. */
static void
test_findings_without_handshake(void)
{
    struct ew_finding fnd[32];
    const struct ew_finding *x = NULL;
    struct ew_flow_verdict v;
    struct seq s;
    size_t n;
    int i;

    ts_flow(&s, 12, 20 * MS, 500 * US, EW_ECN_NOT_ECT);
    cdata(&s, EW_ECN_CE, 0, 500 * US);
    n = findings(&s, fnd, 32, &v);
    CU_ASSERT_EQUAL(v.vantage, EW_VANT_CLIENT);
    CU_ASSERT_EQUAL(count_kind(fnd, n, EW_MU_CE_ON_NOT_ECT, &x), 1);
    if (x)
        CU_ASSERT_EQUAL(x->confidence, EW_CONF_LIKELY);

    start(&s);
    for (i = 0; i < 6; i++) {
        cdata(&s, EW_ECN_ECT_1, 0, MS);
        sack(&s, 0);
    }
    n = findings(&s, fnd, 32, &v);
    CU_ASSERT_FALSE(v.mode_accecn);
    CU_ASSERT_FALSE(v.mode_unknown);
    CU_ASSERT_TRUE(v.dir[0].sender_ect1 || v.dir[1].sender_ect1);
    CU_ASSERT_EQUAL(count_kind(fnd, n, EW_MU_ECT1_WITHOUT_L4S, NULL), 0);

    start(&s);
    s.opt = true;
    for (i = 0; i < 6; i++) {
        cdata(&s, EW_ECN_NOT_ECT, 0, MS);
        sack(&s, ace(5));
    }
    n = findings(&s, fnd, 32, &v);
    CU_ASSERT_TRUE(v.mode_accecn);
    CU_ASSERT_EQUAL(count_kind(fnd, n, EW_MU_BLEACHING, NULL), 0);
}

int
ew_test_register_midflow(void)
{
    CU_pSuite s = CU_add_suite("midflow", NULL, NULL);

    if (!s)
        return -1;
    if (!CU_add_test(s, "AccECN by its option", test_option) ||
        !CU_add_test(s, "AccECN by CWR on pure ACKs", test_cwr_on_pure_acks) ||
        !CU_add_test(s, "AccECN by an ACE that follows CE", test_ace_follows_ce) ||
        !CU_add_test(s, "AccECN by AE on nearly every segment", test_ae_on_nearly_all) ||
        !CU_add_test(s, "classic by ECE latched until CWR", test_latch) ||
        !CU_add_test(s, "classic by ECE answering CE, no AE", test_ece_answers_ce) ||
        !CU_add_test(s, "classic by ECT data, flags clear", test_flags_clear) ||
        !CU_add_test(s, "SCE by ESCE after ECT(1) runs", test_esce) ||
        !CU_add_test(s, "the vantage from TCP timestamps", test_vantage_from_timestamps) ||
        !CU_add_test(s, "findings without the handshake", test_findings_without_handshake))
        return -1;
    return 0;
}
