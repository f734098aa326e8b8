/* test_loss.c - capture loss (src/infer/infer_track.c, seq_seen and
 * seq_acked): a direction's data the capture point never saw but the
 * receiver acknowledged is counted in ew_half.missed_bytes and missed_gaps;
 * a gap that a later segment fills (a retransmission, or reordering) is
 * not; an acknowledgement beyond everything seen is. What follows from it:
 * ew_infer_missed(), the analyzer's quality, a verdict only likely, and no
 * finding from a CWR the capture may have missed (ece_ignored). */
#include <CUnit/CUnit.h>
#include <string.h>

#include "engine/analyze.h"
#include "dissectors/ecn.h"
#include "infer/infer.h"
#include "findings/misuse.h"
#include "fixture.h"
#include "suites.h"

#define MS 1000000LL

struct seq {
    struct ew_analyzer an;
    int64_t t;
};

static void
pkt_init(struct ew_pkt *p, int from, uint16_t flags, uint8_t ecn, uint32_t seq, uint32_t ack,
         uint32_t payload)
{
    static const struct fx_hosts hosts = {.family = 4, .cli = 2, .srv = 1, .cport = 40000, .sport = 443, .hdr = 40};

    fx_tcp(p, &hosts, from, flags, ecn, seq, ack, payload);
    p->u.tcp.doff = 5;
}

static void
feed(struct seq *s, struct ew_pkt *p)
{
    s->t += MS;
    ew_analyzer_frame(&s->an, p, s->t);
}

/* an RFC 3168 handshake: the client's data starts at 1000, the server's at
 * 9000 */
static void
start(struct seq *s)
{
    struct ew_analyzer_cfg cfg = {.max_flows = 4, .hash_seed = 13, .idle_ns = 0};
    struct ew_pkt p;

    memset(s, 0, sizeof(*s));
    CU_ASSERT_FATAL(ew_analyzer_init(&s->an, &cfg) == 0);
    s->t = 1000 * MS;
    pkt_init(&p, CLI, EW_TCP_SYN | EW_TCP_ECE | EW_TCP_CWR, EW_ECN_NOT_ECT, 999, 0, 0);
    feed(s, &p);
    pkt_init(&p, SRV, EW_TCP_SYN | EW_TCP_ACK | EW_TCP_ECE, EW_ECN_NOT_ECT, 8999, 1000, 0);
    feed(s, &p);
    pkt_init(&p, CLI, EW_TCP_ACK, EW_ECN_NOT_ECT, 1000, 9000, 0);
    feed(s, &p);
}

/* the client's data [seq, seq + len), flags beside ACK */
static void
data(struct seq *s, uint32_t seq, uint32_t len, uint16_t flags)
{
    struct ew_pkt p;

    pkt_init(&p, CLI, (uint16_t)(EW_TCP_ACK | flags), EW_ECN_ECT_0, seq, 9000, len);
    feed(s, &p);
}

/* the server's acknowledgement of the client's data up to ack */
static void
ack(struct seq *s, uint32_t ackno, uint16_t flags)
{
    struct ew_pkt p;

    pkt_init(&p, SRV, (uint16_t)(EW_TCP_ACK | flags), EW_ECN_NOT_ECT, 9000, ackno, 0);
    feed(s, &p);
}

static const struct ew_flow *
flow_of(struct seq *s)
{
    static struct ew_flow_room room;
    uint32_t ref;

    CU_ASSERT_EQUAL_FATAL(ew_flowtab_refs(s->an.tab, &ref, 1, false), 1);
    return ew_flowtab_view(s->an.tab, ref, &room);
}

/* the client's half of the only flow */
static const struct ew_half *
c2s_half(struct seq *s)
{
    const struct ew_flow *f = flow_of(s);

    return &f->inf->half[f->client_dir];
}

/* A segment the capture did not see (2000-3000), between two it saw: a gap,
 * open until the server's ACK covers it; then 1000 bytes missed in one gap.
 * A partial ACK into the gap counts what it covers. */
static void
test_gap_acknowledged(void)
{
    struct seq s;
    const struct ew_half *h;
    const struct ew_flow *f;
    struct ew_flow_verdict v;
    struct ew_quality q;

    start(&s);
    data(&s, 1000, 1000, 0);
    data(&s, 3000, 1000, 0);
    data(&s, 4000, 1000, 0);
    h = c2s_half(&s);
    CU_ASSERT_EQUAL(h->gaps, 1);
    CU_ASSERT_EQUAL(h->nholes, 1);
    CU_ASSERT_EQUAL(h->missed_bytes, 0);
    ack(&s, 2500, 0); /* the receiver has half of it */
    h = c2s_half(&s);
    CU_ASSERT_EQUAL(h->missed_bytes, 500);
    CU_ASSERT_EQUAL(h->missed_gaps, 0);
    ack(&s, 5000, 0);
    f = flow_of(&s);
    h = &f->inf->half[f->client_dir];
    CU_ASSERT_EQUAL(h->missed_bytes, 1000);
    CU_ASSERT_EQUAL(h->missed_gaps, 1);
    CU_ASSERT_EQUAL(h->gaps, 1);
    CU_ASSERT_EQUAL(h->nholes, 0);
    CU_ASSERT_TRUE(ew_infer_missed(f, f->client_dir));
    CU_ASSERT_FALSE(ew_infer_missed(f, f->client_dir ^ 1));
    /* a handshake seen, but some data missed: the verdict is only likely */
    ew_infer_conclude(f, &v);
    CU_ASSERT_EQUAL(v.neg, EW_NEG_RFC3168);
    CU_ASSERT_TRUE(v.verdict_likely);
    ew_analyzer_quality(&s.an, &q);
    CU_ASSERT_EQUAL(q.missed_bytes, 1000);
    CU_ASSERT_EQUAL(q.flows_missed, 1);
    CU_ASSERT_EQUAL(q.flows_midstream, 0);
    ew_analyzer_free(&s.an);
}

/* The same gap filled before the ACK: by a retransmission, or the segment
 * itself arriving late (reordered): nothing missed. Filled in part, what is
 * left is missed: the upper half, or both ends around a middle piece (two
 * gaps). An ACK up to the gap's start (a duplicate ACK) covers none of it. */
static void
test_gap_filled(void)
{
    struct seq s;
    const struct ew_half *h;
    struct ew_flow_verdict v;

    start(&s);
    data(&s, 1000, 1000, 0);
    data(&s, 3000, 1000, 0);
    ack(&s, 2000, 0);
    ack(&s, 2000, 0);
    data(&s, 2000, 1000, 0); /* the retransmission */
    ack(&s, 4000, 0);
    h = c2s_half(&s);
    CU_ASSERT_EQUAL(h->gaps, 1);
    CU_ASSERT_EQUAL(h->nholes, 0);
    CU_ASSERT_EQUAL(h->missed_bytes, 0);
    CU_ASSERT_EQUAL(h->missed_gaps, 0);
    ew_infer_conclude(flow_of(&s), &v);
    CU_ASSERT_FALSE(v.verdict_likely);
    ew_analyzer_free(&s.an);

    /* reordering: three segments in flight, the second passes last */
    start(&s);
    data(&s, 1000, 1000, 0);
    data(&s, 3000, 1000, 0);
    data(&s, 4000, 1000, 0);
    data(&s, 2000, 1000, 0);
    ack(&s, 5000, 0);
    h = c2s_half(&s);
    CU_ASSERT_EQUAL(h->missed_bytes, 0);
    ew_analyzer_free(&s.an);

    /* the upper half filled */
    start(&s);
    data(&s, 1000, 1000, 0);
    data(&s, 3000, 1000, 0);
    data(&s, 2500, 500, 0);
    ack(&s, 4000, 0);
    h = c2s_half(&s);
    CU_ASSERT_EQUAL(h->missed_bytes, 500);
    CU_ASSERT_EQUAL(h->missed_gaps, 1);
    ew_analyzer_free(&s.an);

    /* a middle piece: 2000-2200 and 2700-3000 left */
    start(&s);
    data(&s, 1000, 1000, 0);
    data(&s, 3000, 1000, 0);
    data(&s, 2200, 500, 0);
    h = c2s_half(&s);
    CU_ASSERT_EQUAL(h->nholes, 2);
    ack(&s, 4000, 0);
    h = c2s_half(&s);
    CU_ASSERT_EQUAL(h->missed_bytes, 500);
    CU_ASSERT_EQUAL(h->missed_gaps, 2);
    ew_analyzer_free(&s.an);
}

/* An ACK beyond everything the capture saw of the data: what lies between
 * was missed. A FIN takes one sequence number: its ACK is not beyond, nor is
 * one past the data by the sequence number of a FIN the capture missed. */
static void
test_ack_beyond(void)
{
    struct seq s;
    const struct ew_half *h;

    start(&s);
    data(&s, 1000, 1000, 0);
    ack(&s, 5000, 0);
    h = c2s_half(&s);
    CU_ASSERT_EQUAL(h->missed_bytes, 3000);
    CU_ASSERT_EQUAL(h->missed_gaps, 1);
    CU_ASSERT_EQUAL(h->gaps, 1);
    /* what follows is not counted again */
    data(&s, 5000, 1000, 0);
    ack(&s, 6000, 0);
    h = c2s_half(&s);
    CU_ASSERT_EQUAL(h->missed_bytes, 3000);
    CU_ASSERT_EQUAL(h->missed_gaps, 1);
    ew_analyzer_free(&s.an);

    start(&s);
    data(&s, 1000, 1000, EW_TCP_FIN);
    ack(&s, 2001, 0);
    h = c2s_half(&s);
    CU_ASSERT_EQUAL(h->missed_bytes, 0);
    ew_analyzer_free(&s.an);

    start(&s);
    data(&s, 1000, 1000, 0);
    ack(&s, 2001, 0);
    h = c2s_half(&s);
    CU_ASSERT_EQUAL(h->missed_bytes, 0);
    CU_ASSERT_EQUAL(h->missed_gaps, 0);
    ew_analyzer_free(&s.an);
}

/* At most EW_HOLES gaps are followed: five gaps of 100 bytes, all
 * acknowledged; the fifth is noted but not followed */
static void
test_gaps_followed(void)
{
    struct seq s;
    const struct ew_half *h;
    uint32_t seq = 1000;
    int i;

    start(&s);
    for (i = 0; i < EW_HOLES + 2; i++) {
        data(&s, seq, 1000, 0);
        seq += 1100;
    }
    h = c2s_half(&s);
    CU_ASSERT_EQUAL(h->gaps, EW_HOLES + 1);
    CU_ASSERT_EQUAL(h->nholes, EW_HOLES);
    ack(&s, seq - 100, 0);
    h = c2s_half(&s);
    CU_ASSERT_EQUAL(h->missed_gaps, EW_HOLES);
    CU_ASSERT_EQUAL(h->missed_bytes, EW_HOLES * 100);
    CU_ASSERT_EQUAL(h->nholes, 0);
    ew_analyzer_free(&s.an);
}

/* What the capture missed is remembered when its flow leaves the table:
 * the table holds two flows here; the flow that missed 1000 bytes gives way
 * to two more (ports 40001 and 40002), and the analyzer's quality still
 * counts it. A flow joined mid-flow counts as such. */
static void
test_quality_of_flows_gone(void)
{
    struct ew_analyzer_cfg cfg = {.max_flows = 2, .hash_seed = 13, .idle_ns = 0};
    struct ew_flowtab_stats st;
    struct ew_quality q;
    struct seq s;
    struct ew_pkt p;
    uint16_t port;

    memset(&s, 0, sizeof(s));
    CU_ASSERT_FATAL(ew_analyzer_init(&s.an, &cfg) == 0);
    s.t = 1000 * MS;
    pkt_init(&p, CLI, EW_TCP_SYN | EW_TCP_ECE | EW_TCP_CWR, EW_ECN_NOT_ECT, 999, 0, 0);
    feed(&s, &p);
    pkt_init(&p, SRV, EW_TCP_SYN | EW_TCP_ACK | EW_TCP_ECE, EW_ECN_NOT_ECT, 8999, 1000, 0);
    feed(&s, &p);
    data(&s, 1000, 1000, 0);
    ack(&s, 3000, 0);
    ew_analyzer_quality(&s.an, &q);
    CU_ASSERT_EQUAL(q.missed_bytes, 1000);
    CU_ASSERT_EQUAL(q.flows_missed, 1);
    CU_ASSERT_EQUAL(q.flows_midstream, 0);
    for (port = 40001; port <= 40002; port++) {
        pkt_init(&p, CLI, EW_TCP_ACK, EW_ECN_ECT_0, 5000, 9000, 1000);
        p.u.tcp.sport = port;
        feed(&s, &p);
    }
    ew_flowtab_get_stats(s.an.tab, &st);
    CU_ASSERT_EQUAL(st.evicted, 1);
    CU_ASSERT_EQUAL(st.in_table, 2);
    ew_analyzer_quality(&s.an, &q);
    CU_ASSERT_EQUAL(q.missed_bytes, 1000);
    CU_ASSERT_EQUAL(q.flows_missed, 1);
    CU_ASSERT_EQUAL(q.flows_midstream, 2);
    ew_analyzer_free(&s.an);
}

static size_t
findings_of(struct seq *s, enum ew_misuse_kind kind)
{
    const struct ew_flow *f = flow_of(s);
    struct ew_flow_verdict v;
    struct ew_finding fnd[32];
    size_t n, i, k = 0;

    ew_infer_conclude(f, &v);
    n = ew_misuse_find(f, &v, fnd, 32);
    for (i = 0; i < n; i++)
        k += fnd[i].kind == kind;
    return k;
}

/* RFC 3168 §6.1.2: the sender answers ECE with CWR. ECE on every ACK and
 * twelve data segments with no CWR: ece_ignored. The same where the capture
 * missed a segment the receiver acknowledged: the CWR may have been in it,
 * nothing is found. */
static void
test_ece_ignored_not_from_missed(void)
{
    struct seq s;
    uint32_t seq;
    int k, i;

    for (k = 0; k < 2; k++) {
        start(&s);
        data(&s, 1000, 1000, 0);
        ack(&s, 2000, EW_TCP_ECE);
        seq = 2000;
        for (i = 0; i < 12; i++) {
            if (!(k == 1 && i == 1)) /* the second segment not captured */
                data(&s, seq, 1000, 0);
            seq += 1000;
            ack(&s, seq, EW_TCP_ECE);
        }
        CU_ASSERT_EQUAL(c2s_half(&s)->missed_bytes, k ? 1000 : 0);
        CU_ASSERT_EQUAL(findings_of(&s, EW_MU_ECE_IGNORED), k ? 0 : 1);
        ew_analyzer_free(&s.an);
    }
}

int
ew_test_register_loss(void)
{
    CU_pSuite s = CU_add_suite("loss", NULL, NULL);

    if (!s)
        return -1;
    if (!CU_add_test(s, "a gap the receiver acknowledged", test_gap_acknowledged) ||
        !CU_add_test(s, "a gap filled: retransmission, reordering", test_gap_filled) ||
        !CU_add_test(s, "an ACK beyond everything seen", test_ack_beyond) ||
        !CU_add_test(s, "at most EW_HOLES gaps followed", test_gaps_followed) ||
        !CU_add_test(s, "the quality of flows that left the table", test_quality_of_flows_gone) ||
        !CU_add_test(s, "ece_ignored not from missed data", test_ece_ignored_not_from_missed))
        return -1;
    return 0;
}
