/* test_path.c - the path verdict's AQM (src/infer/infer_path.c): no AQM
 * named from a handful of marks (EW_PATH_MIN_MARKS marks with a delay
 * beside them, EW_PATH_MIN_QD_SAMPLES samples): "unknown", few_marks; a
 * classic AQM only where its marks line up with the delay, most of them
 * (EW_PATH_ALIGNED_SHARE) above the median of the delay samples: "classic";
 * marks at a classic depth but below the median are not the marking
 * queue's: "unknown". With the verdict go its confidence and counts.
 *
 * Each flow is an RFC 3168 connection captured at the client (its sender):
 * the handshake, then one data segment a round trip, whose ACK comes 10 ms
 * plus a queueing delay later; a mark is an ECE on that ACK, answered by
 * CWR on the next segment. The delay ramps from 2 to 40 ms over every 20
 * segments, the first round trip without one. */
#include <CUnit/CUnit.h>
#include <string.h>

#include "engine/analyze.h"
#include "dissectors/ecn.h"
#include "infer/infer.h"
#include "fixture.h"
#include "suites.h"

#define MS 1000000LL
#define US 1000LL
#define RTT (10 * MS)


static void
pkt_init(struct ew_pkt *p, int from, uint16_t flags, uint8_t ecn, uint32_t seq, uint32_t ack,
         uint32_t payload)
{
    static const struct fx_hosts hosts = {.family = 4, .cli = 2, .srv = 1, .cport = 40000, .sport = 443, .hdr = 40};

    fx_tcp(p, &hosts, from, flags, ecn, seq, ack, payload);
    p->u.tcp.doff = 5;
}

/* the queueing delay of segment i's round trip */
static int64_t
qd_of(int i)
{
    return i ? (2 + (i % 20) * 2) * MS : 0;
}

/* a data segment the capture misses (its ACK is captured), or -1 */
static int skip_seg = -1;
/* the data's codepoint, and one segment's other codepoint (-1: none) */
static uint8_t data_ecn = EW_ECN_ECT_0;
static int other_seg = -1;

/* ndata segments; segment i is marked when (i % 20) is in marks[0, nmarks)
 * (no two in a row); handshake: with the SYN and SYN-ACK, else mid-flow */
static void
run(struct ew_analyzer *an, int ndata, const int *marks, int nmarks, bool handshake)
{
    struct ew_analyzer_cfg cfg = {.max_flows = 4, .hash_seed = 23, .idle_ns = 0};
    struct ew_pkt p;
    int64_t t = 1000 * MS;
    bool cwr = false;
    int i, k;

    CU_ASSERT_FATAL(ew_analyzer_init(an, &cfg) == 0);
    if (handshake) {
        pkt_init(&p, CLI, EW_TCP_SYN | EW_TCP_ECE | EW_TCP_CWR, EW_ECN_NOT_ECT, 999, 0, 0);
        ew_analyzer_frame(an, &p, t);
        pkt_init(&p, SRV, EW_TCP_SYN | EW_TCP_ACK | EW_TCP_ECE, EW_ECN_NOT_ECT, 8999, 1000, 0);
        ew_analyzer_frame(an, &p, t += RTT);
        pkt_init(&p, CLI, EW_TCP_ACK, EW_ECN_NOT_ECT, 1000, 9000, 0);
        ew_analyzer_frame(an, &p, t += 10 * US);
    }
    for (i = 0; i < ndata; i++) {
        uint32_t seq = 1000 + (uint32_t)i * 1000;
        bool marked = false;

        for (k = 0; k < nmarks; k++)
            marked |= i > 0 && i % 20 == marks[k];
        pkt_init(&p, CLI, (uint16_t)(EW_TCP_ACK | (cwr ? EW_TCP_CWR : 0)),
                 i == other_seg ? (uint8_t)(data_ecn ^ 2) : data_ecn, seq, 9000, 1000);
        t += MS;
        if (i != skip_seg)
            ew_analyzer_frame(an, &p, t);
        pkt_init(&p, SRV, (uint16_t)(EW_TCP_ACK | (marked ? EW_TCP_ECE : 0)), EW_ECN_NOT_ECT,
                 9000, seq + 1000, 0);
        ew_analyzer_frame(an, &p, t += RTT + qd_of(i));
        cwr = marked;
    }
}

/* the path verdict of the client's data */
static void
path_of(struct ew_analyzer *an, struct ew_path_verdict *p, struct ew_flow_verdict *v)
{
    struct ew_flow_room room;
    const struct ew_flow *f;
    uint32_t ref;

    CU_ASSERT_EQUAL_FATAL(ew_flowtab_refs(an->tab, &ref, 1, false), 1);
    f = ew_flowtab_view(an->tab, ref, &room);
    ew_infer_conclude(f, v);
    ew_infer_path(f, f->client_dir, v, p);
    ew_analyzer_free(an);
}

/* 12 marks, each at 34 or 38 ms of queueing delay, over 120 samples from 0
 * to 40 ms (median about 21 ms): all above the median, a classic AQM,
 * likely (one flow cannot tell its queue) */
static void
test_aligned_classic(void)
{
    static const int high[] = {16, 18};
    struct ew_analyzer an;
    struct ew_path_verdict p;
    struct ew_flow_verdict v;

    run(&an, 120, high, 2, true);
    path_of(&an, &p, &v);
    CU_ASSERT_EQUAL(v.vantage, EW_VANT_CLIENT);
    CU_ASSERT_STRING_EQUAL(p.qdelay_from, "data_to_ack");
    CU_ASSERT_EQUAL(p.marks, 12);
    CU_ASSERT_EQUAL(p.marks_with_qdelay, 12);
    CU_ASSERT_EQUAL(p.qdelay_samples, 120);
    CU_ASSERT_DOUBLE_EQUAL(p.marks_above_median, 1.0, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(p.qdelay_at_marks_ms, 36.0, 0.01);
    CU_ASSERT_EQUAL(p.aqm, EW_AQM_CLASSIC);
    CU_ASSERT_STRING_EQUAL(ew_aqm_name[p.aqm], "classic");
    CU_ASSERT_TRUE(p.has_confidence);
    CU_ASSERT_FALSE(p.certain);
    CU_ASSERT_FALSE(p.few_marks);
    CU_ASSERT_PTR_NOT_NULL(strstr(p.reason, "above the median"));
}

/* 12 marks at a classic depth (4 and 8 ms) but below the median delay: a
 * classic AQM marks when its queue is long, so the delay measured is not
 * the marking queue's (jitter, a bursty link): unknown, and no confidence */
static void
test_below_median(void)
{
    static const int low[] = {1, 3};
    struct ew_analyzer an;
    struct ew_path_verdict p;
    struct ew_flow_verdict v;

    run(&an, 120, low, 2, true);
    path_of(&an, &p, &v);
    CU_ASSERT_EQUAL(p.marks, 12);
    CU_ASSERT_EQUAL(p.marks_with_qdelay, 12);
    CU_ASSERT_DOUBLE_EQUAL(p.qdelay_at_marks_ms, 6.0, 0.01);
    CU_ASSERT_TRUE(p.marks_above_median < 0.6);
    CU_ASSERT_EQUAL(p.aqm, EW_AQM_UNKNOWN);
    CU_ASSERT_FALSE(p.has_confidence);
    CU_ASSERT_FALSE(p.few_marks);
    CU_ASSERT_PTR_NOT_NULL(strstr(p.reason, "not the marking queue's"));
}

/* A handful of marks names no AQM: 5 marks (at 34 ms, high), or 9, are
 * too few (EW_PATH_MIN_MARKS 10); other flows through the same bottleneck
 * may tell (few_marks). 10 name it. */
static void
test_few_marks(void)
{
    static const int high[] = {16, 18};
    struct ew_analyzer an;
    struct ew_path_verdict p;
    struct ew_flow_verdict v;

    run(&an, 100, high, 1, true);
    path_of(&an, &p, &v);
    CU_ASSERT_EQUAL(p.marks, 5);
    CU_ASSERT_EQUAL(p.marks_with_qdelay, 5);
    CU_ASSERT_EQUAL(p.aqm, EW_AQM_UNKNOWN);
    CU_ASSERT_TRUE(p.few_marks);
    CU_ASSERT_FALSE(p.has_confidence);
    CU_ASSERT_PTR_NOT_NULL(strstr(p.reason, "too few"));

    /* 9 marks: segments 16, 18, 36, 38, ..., 96 */
    run(&an, 97, high, 2, true);
    path_of(&an, &p, &v);
    CU_ASSERT_EQUAL(p.marks, 9);
    CU_ASSERT_EQUAL(p.aqm, EW_AQM_UNKNOWN);
    CU_ASSERT_TRUE(p.few_marks);

    /* 10 marks: ... and 98 */
    run(&an, 99, high, 2, true);
    path_of(&an, &p, &v);
    CU_ASSERT_EQUAL(p.marks, 10);
    CU_ASSERT_EQUAL(p.aqm, EW_AQM_CLASSIC);
    CU_ASSERT_FALSE(p.few_marks);
}

/* No marks from a whole capture whose feedback was read: none seen, and
 * certain. Joined mid-flow, or with data the capture missed, no marks in
 * what was captured says nothing of the rest: unknown. */
static void
test_no_marks(void)
{
    struct ew_analyzer an;
    struct ew_path_verdict p;
    struct ew_flow_verdict v;

    run(&an, 40, NULL, 0, true);
    path_of(&an, &p, &v);
    CU_ASSERT_EQUAL(p.marks, 0);
    CU_ASSERT_EQUAL(p.aqm, EW_AQM_NONE_SEEN);
    CU_ASSERT_TRUE(p.has_confidence);
    CU_ASSERT_TRUE(p.certain);

    run(&an, 40, NULL, 0, false);
    path_of(&an, &p, &v);
    CU_ASSERT_TRUE(v.neg_inferred);
    CU_ASSERT_EQUAL(p.marks, 0);
    CU_ASSERT_EQUAL(p.aqm, EW_AQM_UNKNOWN);
    CU_ASSERT_FALSE(p.has_confidence);
    CU_ASSERT_FALSE(p.certain);

    skip_seg = 20;
    run(&an, 40, NULL, 0, true);
    skip_seg = -1;
    path_of(&an, &p, &v);
    CU_ASSERT_FALSE(v.neg_inferred);
    CU_ASSERT_EQUAL(p.marks, 0);
    CU_ASSERT_EQUAL(p.aqm, EW_AQM_UNKNOWN);
    CU_ASSERT_FALSE(p.certain);
}

/* No marks on data that passed Not-ECT: an AQM drops such packets instead
 * of marking them (RFC 3168 §5), so no mark names nothing: unknown, with
 * the reason. One ECT(0) segment among them (ECT(0) ^ 2 = Not-ECT, and
 * back) could have been marked: none seen again. */
static void
test_no_marks_not_ect(void)
{
    struct ew_analyzer an;
    struct ew_path_verdict p;
    struct ew_flow_verdict v;

    data_ecn = EW_ECN_NOT_ECT;
    run(&an, 40, NULL, 0, true);
    path_of(&an, &p, &v);
    CU_ASSERT_EQUAL(p.marks, 0);
    CU_ASSERT_EQUAL(p.aqm, EW_AQM_UNKNOWN);
    CU_ASSERT_FALSE(p.has_confidence);
    CU_ASSERT_PTR_NOT_NULL(strstr(p.reason, "all 40 data segments passed here Not-ECT"));

    other_seg = 7;
    run(&an, 40, NULL, 0, true);
    path_of(&an, &p, &v);
    CU_ASSERT_EQUAL(p.aqm, EW_AQM_NONE_SEEN);
    CU_ASSERT_TRUE(p.certain);
    other_seg = -1;
    data_ecn = EW_ECN_ECT_0;
}

int
ew_test_register_path(void)
{
    CU_pSuite s = CU_add_suite("path", NULL, NULL);

    if (!s)
        return -1;
    if (!CU_add_test(s, "marks above the median delay: classic", test_aligned_classic) ||
        !CU_add_test(s, "marks below the median delay: unknown", test_below_median) ||
        !CU_add_test(s, "too few marks: unknown, few_marks", test_few_marks) ||
        !CU_add_test(s, "no marks: certain only from a whole capture", test_no_marks) ||
        !CU_add_test(s, "no marks on Not-ECT data: unknown", test_no_marks_not_ect))
        return -1;
    return 0;
}
