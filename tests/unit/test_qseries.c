/* test_qseries.c - the bottleneck series (src/flow/qseries.c): bins of
 * EW_QS_WIDTH_NS aligned to multiples of their width in packet time, so
 * that any two series line up; each bin's payload, data segments, CE seen,
 * marks fed back and lowest RTT; a series out of bins merges neighbours and doubles its
 * width, still aligned, sums kept and minima kept; a pool of fixed size
 * whose refusals are counted, and whose series come back when their flow
 * leaves. Flows are fed through an analyzer, as a capture shows them. */
#include <CUnit/CUnit.h>
#include <string.h>

#include "engine/analyze.h"
#include "dissectors/ecn.h"
#include "infer/qseries.h"
#include "fixture.h"
#include "suites.h"

#define MS 1000000LL
#define US 1000LL


/* a TCP packet of the flow 10.0.0.2:cport -> 10.0.0.1:443 */
static void
pkt_init(struct ew_pkt *p, uint16_t cport, int from, uint16_t flags, uint8_t ecn, uint32_t seq,
         uint32_t ack, uint32_t payload)
{
    const struct fx_hosts h = {.family = 4, .cli = 2, .srv = 1, .cport = cport, .sport = 443, .hdr = 40};

    fx_tcp(p, &h, from, flags, ecn, seq, ack, payload);
    p->u.tcp.doff = 5;
}

static void
init(struct ew_analyzer *an, uint32_t max_flows, uint32_t max_qs)
{
    struct ew_analyzer_cfg cfg = {.max_flows = max_flows, .hash_seed = 17, .idle_ns = 0,
                                  .max_qseries = max_qs};

    CU_ASSERT_FATAL(ew_analyzer_init(an, &cfg) == 0);
}

/* the client's data segment i (1000 bytes) at t, and the server's ACK of it
 * rtt later (no ACK when rtt is 0) */
static void
segment(struct ew_analyzer *an, uint16_t cport, int i, int64_t t, int64_t rtt, uint8_t ecn)
{
    struct ew_pkt p;
    uint32_t seq = 1000 + (uint32_t)i * 1000;

    pkt_init(&p, cport, CLI, EW_TCP_ACK, ecn, seq, 9000, 1000);
    ew_analyzer_frame(an, &p, t);
    if (rtt) {
        pkt_init(&p, cport, SRV, EW_TCP_ACK, EW_ECN_NOT_ECT, 9000, seq + 1000, 0);
        ew_analyzer_frame(an, &p, t + rtt);
    }
}

/* the direction's series as the bottleneck analysis reads it: its bins and
 * the interval still gathering (ew_qseries_view) */
static const struct ew_qseries *
view(const struct ew_analyzer *an, const struct ew_flow *f, int dir)
{
    static struct ew_qseries v[2];
    static int k;

    k ^= 1;
    return ew_qseries_view(&an->qs, f, dir, &v[k]) ? &v[k] : NULL;
}

static const struct ew_flow *
flow_by_id(const struct ew_analyzer *an, uint64_t id, struct ew_flow_room *room)
{
    uint32_t refs[8];
    size_t n = ew_flowtab_refs(an->tab, refs, 8, false), i;

    for (i = 0; i < n; i++) {
        const struct ew_flow *f = ew_flowtab_view(an->tab, refs[i], room);

        if (f->id == id)
            return f;
    }
    return NULL;
}

/* The series of a direction starts with its first data segment, at the
 * multiple of EW_QS_WIDTH_NS at or below it: 1234.5 ms gives bins from
 * 1200 ms, whatever the flow. Each packet goes to the bin of its time: its
 * payload and segment, CE where it arrived CE; each ACK's RTT sample to
 * the ACK's bin, the lowest kept with the count of samples. The way without
 * data has no series. */
static void
test_bins_aligned(void)
{
    struct ew_analyzer an;
    struct ew_flow_room room;
    const struct ew_flow *f;
    const struct ew_qseries *q;

    init(&an, 8, 0);
    /* RTTs 30, 12 and 20 ms, all acknowledged within 1200-1300 ms */
    segment(&an, 40000, 0, 1234500 * US, 30 * MS, EW_ECN_ECT_0);
    segment(&an, 40000, 1, 1265 * MS, 12 * MS, EW_ECN_CE);
    segment(&an, 40000, 2, 1278 * MS, 20 * MS, EW_ECN_ECT_0);
    /* 1380 ms: a bin skipped; RTTs 15 and 40 ms, ACKs at 1415 and 1480 */
    segment(&an, 40000, 3, 1380 * MS, 0, EW_ECN_ECT_0);
    segment(&an, 40000, 4, 1400 * MS, 15 * MS, EW_ECN_CE);
    segment(&an, 40000, 5, 1440 * MS, 40 * MS, EW_ECN_ECT_0);
    f = flow_by_id(&an, 1, &room);
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    CU_ASSERT_PTR_NULL(view(&an, f, f->client_dir ^ 1));
    q = view(&an, f, f->client_dir);
    CU_ASSERT_PTR_NOT_NULL_FATAL(q);
    CU_ASSERT_EQUAL(q->flow_id, 1);
    CU_ASSERT_EQUAL(q->width, EW_QS_WIDTH_NS);
    CU_ASSERT_EQUAL(q->t0, 1200 * MS);
    CU_ASSERT_EQUAL(q->n, 3);
    /* 1200-1300 ms: three segments, one CE, the ACKs of all three */
    CU_ASSERT_EQUAL(q->b[0].bytes, 3000);
    CU_ASSERT_EQUAL(q->b[0].data, 3);
    CU_ASSERT_EQUAL(q->b[0].ce, 1);
    CU_ASSERT_EQUAL(q->b[0].dn_n, 3);
    CU_ASSERT_EQUAL(q->b[0].dn_min, 12 * MS / EW_QS_RTT_UNIT_NS);
    /* 1300-1400 ms: one segment, not acknowledged (it is, cumulatively, by
     * the next ACK, which times segment 4) */
    CU_ASSERT_EQUAL(q->b[1].bytes, 1000);
    CU_ASSERT_EQUAL(q->b[1].data, 1);
    CU_ASSERT_EQUAL(q->b[1].ce, 0);
    CU_ASSERT_EQUAL(q->b[1].dn_n, 0);
    /* 1400-1500 ms */
    CU_ASSERT_EQUAL(q->b[2].data, 2);
    CU_ASSERT_EQUAL(q->b[2].ce, 1);
    CU_ASSERT_EQUAL(q->b[2].dn_n, 2);
    CU_ASSERT_EQUAL(q->b[2].dn_min, 15 * MS / EW_QS_RTT_UNIT_NS);

    /* another flow starting at 1299.999 ms lines up with the first */
    segment(&an, 40001, 0, 1299999 * US, 10 * MS, EW_ECN_ECT_0);
    f = flow_by_id(&an, 2, &room);
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    q = view(&an, f, f->client_dir);
    CU_ASSERT_PTR_NOT_NULL_FATAL(q);
    CU_ASSERT_EQUAL(q->t0, 1200 * MS);
    CU_ASSERT_EQUAL(q->n, 2);
    CU_ASSERT_EQUAL(q->b[0].data, 1);
    CU_ASSERT_EQUAL(q->b[1].dn_n, 1);
    ew_analyzer_free(&an);
}

/* the server's pure ACK of the client's segments up to i, with flags, at t */
static void
ack_of(struct ew_analyzer *an, int i, uint16_t flags, int64_t t)
{
    struct ew_pkt p;

    pkt_init(&p, 40000, SRV, (uint16_t)(EW_TCP_ACK | flags), EW_ECN_NOT_ECT, 9000,
             1000 + (uint32_t)(i + 1) * 1000, 0);
    ew_analyzer_frame(an, &p, t);
}

/* Out of bins (EW_QS_BINS of 100 ms: 25.6 s), a series merges pairs of
 * bins into bins of twice the width, aligned to multiples of the new width:
 * started at 1100 ms (an odd multiple of 100 ms), its bins of 200 ms start
 * at 1000 ms, the first holding only what was in 1100-1200 ms. Payload and
 * segments add up; the lowest RTT of each pair is kept and the samples add
 * up, and so do the marks fed back (an ECE on every tenth ACK, cleared on
 * the next). A segment every 50 ms for 30 s, each acknowledged 10 to 16 ms
 * later:
 * the 512th (at 26650 ms, acknowledged at 26660 ms) fills the last of the
 * 100 ms bins, the 513th (at 26700 ms) merges them. */
#define MERGE_SEGS 600
static void
test_merge(void)
{
    struct ew_analyzer an;
    struct ew_flow_room room;
    const struct ew_flow *f;
    const struct ew_qseries *q;
    static unsigned data[EW_QS_BINS], samples[EW_QS_BINS], low[EW_QS_BINS], ece[EW_QS_BINS];
    const int64_t start = 1100 * MS, w = 2 * EW_QS_WIDTH_NS;
    unsigned total = 0, k;
    int i;

    memset(data, 0, sizeof(data));
    memset(samples, 0, sizeof(samples));
    memset(low, 0, sizeof(low));
    memset(ece, 0, sizeof(ece));
    init(&an, 8, 0);
    for (i = 0; i < MERGE_SEGS; i++) {
        int64_t t = start + (int64_t)i * 50 * MS, rtt = (10 + i % 7) * MS;
        size_t bd = (size_t)((t - 1000 * MS) / w), ba = (size_t)((t + rtt - 1000 * MS) / w);

        segment(&an, 40000, i, t, 0, EW_ECN_ECT_0);
        ack_of(&an, i, i % 10 == 5 ? EW_TCP_ECE : 0, t + rtt);
        CU_ASSERT_FATAL(ba < EW_QS_BINS);
        ece[ba] += i % 10 == 5;
        if (i == 511 || i == 512) {
            f = flow_by_id(&an, 1, &room);
            CU_ASSERT_PTR_NOT_NULL_FATAL(f);
            q = view(&an, f, f->client_dir);
            CU_ASSERT_PTR_NOT_NULL_FATAL(q);
            CU_ASSERT_EQUAL(q->width, i == 511 ? EW_QS_WIDTH_NS : w);
            CU_ASSERT_EQUAL(q->n, i == 511 ? EW_QS_BINS : 129);
        }
        data[bd]++;
        samples[ba]++;
        if (!low[ba] || rtt / EW_QS_RTT_UNIT_NS < low[ba])
            low[ba] = (unsigned)(rtt / EW_QS_RTT_UNIT_NS);
    }
    f = flow_by_id(&an, 1, &room);
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    q = view(&an, f, f->client_dir);
    CU_ASSERT_PTR_NOT_NULL_FATAL(q);
    CU_ASSERT_EQUAL(q->width, w);
    CU_ASSERT_EQUAL(q->t0, 1000 * MS);
    CU_ASSERT_EQUAL(q->t0 % q->width, 0);
    /* the last ACK at 1100 + 599 * 50 + 14 ms = 31064 ms: bin 150 */
    CU_ASSERT_EQUAL(q->n, 151);
    CU_ASSERT_EQUAL(q->b[0].data, 2);
    for (k = 0; k < q->n; k++) {
        CU_ASSERT_EQUAL(q->b[k].data, data[k]);
        CU_ASSERT_EQUAL(q->b[k].bytes, data[k] * 1000);
        CU_ASSERT_EQUAL(q->b[k].dn_n, samples[k]);
        CU_ASSERT_EQUAL(q->b[k].ece, ece[k]);
        if (samples[k])
            CU_ASSERT_EQUAL(q->b[k].dn_min, low[k]);
        total += q->b[k].data;
    }
    CU_ASSERT_EQUAL(total, MERGE_SEGS);
    for (k = q->n; k < EW_QS_BINS; k++)
        CU_ASSERT_EQUAL(q->b[k].data, 0);
    ew_analyzer_free(&an);
}

/* The marks fed back on a direction go to the bin of the ACK that carries
 * them, in both readings, for the flow's mode to choose: as steps of the
 * ACE counter (marks) and as ECE runs (ece). ACE 5 (its ECE bit on: a run),
 * 6 (one step), 0 (two), 1 (one, and ECE on again: a second run). */
static void
test_marks(void)
{
    static const unsigned ace[] = {5, 6, 0, 1}, marks[] = {0, 1, 2, 1}, ece[] = {1, 0, 0, 1};
    struct ew_analyzer an;
    struct ew_flow_room room;
    const struct ew_flow *f;
    const struct ew_qseries *q;
    int i;

    init(&an, 8, 0);
    for (i = 0; i < 4; i++) {
        uint16_t flags = (uint16_t)(((ace[i] & 4) ? EW_TCP_AE : 0) |
                                    ((ace[i] & 2) ? EW_TCP_CWR : 0) |
                                    ((ace[i] & 1) ? EW_TCP_ECE : 0));

        segment(&an, 40000, i, (1000 + 100 * i) * MS, 0, i == 1 ? EW_ECN_CE : EW_ECN_ECT_1);
        ack_of(&an, i, flags, (1010 + 100 * i) * MS);
    }
    f = flow_by_id(&an, 1, &room);
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    q = view(&an, f, f->client_dir);
    CU_ASSERT_PTR_NOT_NULL_FATAL(q);
    CU_ASSERT_EQUAL_FATAL(q->n, 4);
    for (i = 0; i < 4; i++) {
        CU_ASSERT_EQUAL(q->b[i].marks, marks[i]);
        CU_ASSERT_EQUAL(q->b[i].ece, ece[i]);
        CU_ASSERT_EQUAL(q->b[i].ce, i == 1 ? 1 : 0);
    }
    ew_analyzer_free(&an);
}

/* The pool holds max_qseries series: a direction that finds it full gets
 * none, and that is counted, in the pool and on the flow; a flow that
 * leaves the table gives its series back, for the next flow to take. */
static void
test_pool(void)
{
    struct ew_analyzer an;
    struct ew_flow_room room;
    const struct ew_flow *f;
    struct ew_qseries_pool p;

    init(&an, 2, 1);
    CU_ASSERT_EQUAL(an.qs.cap, 1);
    segment(&an, 40000, 0, 1000 * MS, 10 * MS, EW_ECN_ECT_0);
    CU_ASSERT_EQUAL(an.qs.nfree, 0);
    segment(&an, 40001, 0, 1100 * MS, 10 * MS, EW_ECN_ECT_0);
    segment(&an, 40001, 1, 1200 * MS, 10 * MS, EW_ECN_ECT_0);
    CU_ASSERT_EQUAL(an.qs.refused, 1); /* once per direction, not per packet */
    f = flow_by_id(&an, 2, &room);
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    CU_ASSERT_PTR_NULL(view(&an, f, f->client_dir));
    CU_ASSERT_EQUAL(f->qs_refused, 1u << f->client_dir);
    f = flow_by_id(&an, 1, &room);
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    CU_ASSERT_PTR_NOT_NULL(view(&an, f, f->client_dir));
    CU_ASSERT_EQUAL(f->qs_refused, 0);

    /* a third flow: the table holds two, flow 1 (the least recent) leaves
     * and its series goes back to the pool, where flow 3 finds it */
    segment(&an, 40002, 0, 1300 * MS, 10 * MS, EW_ECN_ECT_0);
    CU_ASSERT_PTR_NULL(flow_by_id(&an, 1, &room));
    f = flow_by_id(&an, 3, &room);
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    CU_ASSERT_PTR_NOT_NULL_FATAL(view(&an, f, f->client_dir));
    CU_ASSERT_EQUAL(view(&an, f, f->client_dir)->flow_id, 3);
    CU_ASSERT_EQUAL(an.qs.refused, 1);
    ew_analyzer_free(&an);

    /* no series at all: no pool */
    CU_ASSERT_EQUAL(ew_qseries_pool_init(&p, 0), 0);
    CU_ASSERT_PTR_NULL(p.s);
    CU_ASSERT_EQUAL(p.cap, 0);
    ew_qseries_pool_free(&p);
}

int
ew_test_register_qseries(void)
{
    CU_pSuite s = CU_add_suite("qseries", NULL, NULL);

    if (!s)
        return -1;
    if (!CU_add_test(s, "bins aligned to their width; lowest RTT", test_bins_aligned) ||
        !CU_add_test(s, "merged: width doubled, still aligned, sums kept", test_merge) ||
        !CU_add_test(s, "marks fed back, in both readings", test_marks) ||
        !CU_add_test(s, "the pool: refusals counted, series given back", test_pool))
        return -1;
    return 0;
}
