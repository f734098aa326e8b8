/* test_bottleneck.c - unit tests of src/findings/bottleneck.c: L4S and classic flows
 * between the same two hosts, overlapping in time, grouped; whether the
 * group looks like a DualQ (RFC 9332), one shared queue or a queue per flow,
 * compared over the time the two kinds overlap (or as whole flows where a
 * flow has no series); and what ew_bottleneck_apply() makes of that for
 * each flow (its path verdict, classic_aqm_under_l4s).
 *
 * Each flow is a whole TCP connection fed through an analyzer, packet by
 * packet in time order, as a capture shows it: the handshake (AccECN, SYN
 * 111 and SYN-ACK 010, for an L4S flow; RFC 3168, SYN 011 and SYN-ACK 001,
 * for a classic one), then the client's data, one segment per round trip,
 * each acknowledged by the server. The capture point is at the client (the
 * sender) unless said otherwise: the SYN-ACK comes an RTT after the SYN and
 * the ACK right after it, so the RTT of every data segment, and with it the
 * queueing delay, can be measured there. The queue's delay is constant, or
 * moves (a sawtooth in packet time): delays that hardly move show no queue's
 * swings, so whether two flows share a queue is read from moving ones. */
#include <CUnit/CUnit.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/analyze.h"
#include "findings/bottleneck.h"
#include "findings/conclude.h"
#include "findings/conclusions.h"
#include "dissectors/ecn.h"
#include "infer/infer.h"
#include "base/jw.h"
#include "findings/misuse.h"
#include "infer/qseries.h"
#include "output/report.h"
#include "fixture.h"
#include "suites.h"

#define MS 1000000LL
#define US 1000LL
/* the path's base RTT */
#define RTT (10 * MS)
#define SEG 1000 /* payload bytes per data segment */

struct flowspec {
    uint8_t cli, srv;  /* 10.0.0.cli:cport -> 10.0.0.srv:443 */
    uint16_t cport;
    bool l4s;          /* ECT(1) and AccECN; else ECT(0) and RFC 3168 */
    bool ect1_rfc3168; /* with l4s: ECT(1) but RFC 3168 feedback, not an L4S sender */
    int64_t t0;        /* the SYN's time */
    int ndata;         /* data segments */
    int marks;         /* of them CE-marked on the way, spread evenly */
    int64_t qd;        /* queueing delay on every round trip but the first */
    bool no_acks;      /* the server's ACKs of the data are not in the capture */
    bool at_receiver;  /* captured at the server instead */
    int retrans;       /* a segment sent again Not-ECT after its ACK (RFC 3168 §6.1.5), or -1 */
    /* a queue that moves: on top of qd, a sawtooth in packet time that
     * rises from 0 to saw_amp over each saw_period (0: none), on every
     * round trip (the first one included); flows given the same one wait in
     * one queue */
    int64_t saw_amp, saw_period;
    bool acc_classic;  /* without l4s: ECT(0) with AccECN feedback (a classic CC on AccECN) */
};

/* a default flow: 10.0.0.2:cport -> 10.0.0.1:443 */
static struct flowspec
spec(bool l4s, uint16_t cport, int64_t t0, int ndata, int marks, int64_t qd)
{
    struct flowspec f = {2, 1, cport, l4s, false, t0, ndata, marks, qd, false, false, -1,
                         0, 0, false};

    return f;
}

/* the sawtooth's part of the queueing delay of a segment sent at t */
static int64_t
saw_at(const struct flowspec *f, int64_t t)
{
    return f->saw_period ? f->saw_amp * (t % f->saw_period) / f->saw_period : 0;
}

/* the time from one data segment to the next: its longest round trip, then 1 ms */
static int64_t
gap_of(const struct flowspec *f)
{
    return RTT + f->qd + f->saw_amp + 1 * MS;
}

struct ev {
    int64_t t;
    size_t order;
    struct ew_pkt p;
};

struct scen {
    struct ev *ev;
    size_t n, cap;
};

static void
push(struct scen *s, int64_t t, const struct ew_pkt *p)
{
    if (s->n == s->cap) {
        struct ev *more = realloc(s->ev, (s->cap ? 2 * s->cap : 256) * sizeof(*more));

        CU_ASSERT_PTR_NOT_NULL_FATAL(more);
        s->ev = more;
        s->cap = s->cap ? 2 * s->cap : 256;
    }
    s->ev[s->n].t = t;
    s->ev[s->n].order = s->n;
    s->ev[s->n].p = *p;
    s->n++;
}

static void
pkt(struct ew_pkt *p, const struct flowspec *f, bool from_client, uint16_t flags, uint8_t ecn,
    uint32_t seq, uint32_t ack, uint32_t payload)
{
    const struct fx_hosts h = {.family = 4, .cli = 0x0a000000u | f->cli, .srv = 0x0a000000u | f->srv,
                               .cport = f->cport, .sport = 443, .hdr = 40};

    fx_tcp(p, &h, from_client ? CLI : SRV, flags, ecn, seq, ack, payload);
    p->u.tcp.doff = 5;
}

/* AccECN's ACE field (RFC 9768 §3.2.2) as flags */
static uint16_t
ace(unsigned v)
{
    return (uint16_t)(((v & 4) ? EW_TCP_AE : 0) | ((v & 2) ? EW_TCP_CWR : 0) |
                      ((v & 1) ? EW_TCP_ECE : 0));
}

/* One connection's packets. Marks: with step = ndata / marks, segment i is
 * marked when i % step == step / 2. The server feeds each mark back on the
 * ACK of that segment: AccECN by counting it in ACE (from 5), RFC 3168 by
 * ECE, which the client answers with CWR on its next segment. */
static void
add_flow(struct scen *s, const struct flowspec *f)
{
    const uint32_t cs = 1000, ss = 5000;
    bool acc = (f->l4s && !f->ect1_rfc3168) || f->acc_classic;
    int step = f->marks ? f->ndata / f->marks : 0;
    unsigned marks = 0;
    bool cwr = false;
    int64_t t_synack, t_ack3, td;
    struct ew_pkt p;
    int i;

    t_synack = f->t0 + (f->at_receiver ? 50 * US : RTT);
    t_ack3 = f->at_receiver ? f->t0 + 50 * US + RTT : t_synack + 10 * US;
    pkt(&p, f, true, (uint16_t)(EW_TCP_SYN | EW_TCP_ECE | EW_TCP_CWR | (acc ? EW_TCP_AE : 0)),
        EW_ECN_NOT_ECT, cs, 0, 0);
    push(s, f->t0, &p);
    pkt(&p, f, false, (uint16_t)(EW_TCP_SYN | EW_TCP_ACK | (acc ? EW_TCP_CWR : EW_TCP_ECE)),
        EW_ECN_NOT_ECT, ss, cs + 1, 0);
    push(s, t_synack, &p);
    /* AccECN: ACE 010 on the handshake ACK, the SYN-ACK arrived Not-ECT */
    pkt(&p, f, true, (uint16_t)(EW_TCP_ACK | (acc ? ace(2) : 0)), EW_ECN_NOT_ECT, cs + 1,
        ss + 1, 0);
    push(s, t_ack3, &p);

    td = t_ack3 + 1 * MS;
    for (i = 0; i < f->ndata; i++) {
        uint32_t seq = cs + 1 + (uint32_t)i * SEG;
        bool marked = step && i % step == step / 2;
        uint8_t ecn = f->l4s ? EW_ECN_ECT_1 : EW_ECN_ECT_0;
        int64_t ta;
        uint16_t flags;

        /* at the receiver, a mark made on the way shows as CE */
        if (marked && f->at_receiver)
            ecn = EW_ECN_CE;
        flags = (uint16_t)(EW_TCP_ACK | (acc ? ace(5) : 0) | (cwr ? EW_TCP_CWR : 0));
        cwr = false;
        pkt(&p, f, true, flags, ecn, seq, ss + 1, SEG);
        push(s, td, &p);

        if (marked)
            marks++;
        ta = f->at_receiver            ? td + 50 * US
             : i || f->saw_period ? td + RTT + f->qd + saw_at(f, td)
                                  : td + RTT;
        if (acc) {
            flags = (uint16_t)(EW_TCP_ACK | ace(5 + marks));
        } else {
            flags = (uint16_t)(EW_TCP_ACK | (marked ? EW_TCP_ECE : 0));
            cwr = marked;
        }
        pkt(&p, f, false, flags, EW_ECN_NOT_ECT, ss + 1, seq + SEG, 0);
        if (!f->no_acks)
            push(s, ta, &p);
        if (i == f->retrans) {
            pkt(&p, f, true, (uint16_t)(EW_TCP_ACK | (acc ? ace(5) : 0)), EW_ECN_NOT_ECT,
                seq, ss + 1, SEG);
            push(s, ta + 500 * US, &p);
        }
        td += gap_of(f);
    }
}

static int
cmp_ev(const void *pa, const void *pb)
{
    const struct ev *a = pa, *b = pb;

    if (a->t != b->t)
        return a->t < b->t ? -1 : 1;
    return (a->order > b->order) - (a->order < b->order);
}

struct run {
    struct ew_analyzer an;
    uint32_t refs[16];
    size_t n;
};

/* every flow's packets, merged in time order, through a fresh analyzer;
 * hot: the flows kept unpacked (0: the default); max_qs: directions with a
 * bottleneck series (0: the default) */
static void
run_flows_qs(struct run *r, const struct flowspec *fs, size_t nf, uint32_t hot, uint32_t max_qs)
{
    struct ew_analyzer_cfg cfg = {.max_flows = 16, .hot_flows = hot, .hash_seed = 3, .idle_ns = 0,
                                  .max_qseries = max_qs};
    struct scen s = {NULL, 0, 0};
    size_t i;

    CU_ASSERT_FATAL(ew_analyzer_init(&r->an, &cfg) == 0);
    for (i = 0; i < nf; i++)
        add_flow(&s, &fs[i]);
    qsort(s.ev, s.n, sizeof(*s.ev), cmp_ev);
    for (i = 0; i < s.n; i++)
        ew_analyzer_frame(&r->an, &s.ev[i].p, s.ev[i].t);
    free(s.ev);
    r->n = ew_flowtab_refs(r->an.tab, r->refs, 16, false);
    CU_ASSERT_EQUAL(r->n, nf);
}

static void
run_flows(struct run *r, const struct flowspec *fs, size_t nf, uint32_t hot)
{
    run_flows_qs(r, fs, nf, hot, 0);
}

/* The groups of every flow of an's table, as a pass of conclusions finds
 * them (conclusions.h), handed to the caller (ew_bottlenecks_free) */
static void
find_groups(const struct ew_analyzer *an, struct ew_bottlenecks *b)
{
    struct ew_conclusions c = EW_CONCLUSIONS_INIT;

    CU_ASSERT_EQUAL_FATAL(ew_analyzer_pass(an, &c, EW_PASS_BOTTLENECKS, NULL), 0);
    *b = c.bn;
    memset(&c.bn, 0, sizeof(c.bn));
    ew_conclusions_free(&c);
}

/* the kinds found in an's flows, as the report counts them */
static void
findings_of(const struct ew_analyzer *an, uint64_t counts[EW_MU_MASK_BITS])
{
    struct ew_conclusions c = EW_CONCLUSIONS_INIT;

    CU_ASSERT_EQUAL_FATAL(ew_analyzer_pass(an, &c, EW_PASS_BOTTLENECKS, NULL), 0);
    ew_analyzer_findings(an, &c, counts);
    ew_conclusions_free(&c);
}

/* The groups of the flows refs[0, n) of tab alone, each concluded as a
 * pass concludes it (with its path verdicts) */
static void
find_groups_of(const struct ew_flowtab *tab, const struct ew_qseries_pool *qs,
               const uint32_t *refs, size_t n, struct ew_bottlenecks *b)
{
    struct ew_bn_members ms = EW_BN_MEMBERS_INIT;
    struct ew_flow_summary *sum = malloc(sizeof(*sum));
    struct ew_flow_room *room = malloc(sizeof(*room));
    size_t i;

    CU_ASSERT_PTR_NOT_NULL_FATAL(sum);
    CU_ASSERT_PTR_NOT_NULL_FATAL(room);
    for (i = 0; i < n; i++) {
        const struct ew_flow *f = ew_flowtab_view(tab, refs[i], room);

        ew_flow_conclude(f, EW_CONCLUDE_PATH, sum);
        ew_bottlenecks_add(&ms, qs, f, sum);
    }
    ew_bottlenecks_group(&ms, b);
    free(sum);
    free(room);
}

static json_t *
groups_json(const struct ew_bottlenecks *b)
{
    char *m = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&m, &len);
    struct jw w;
    json_t *o;

    CU_ASSERT_PTR_NOT_NULL_FATAL(fp);
    CU_ASSERT_EQUAL_FATAL(jw_init(&w, fp, 0, 10), 0);
    ew_report_bottlenecks_write(&w, b);
    CU_ASSERT_EQUAL(jw_finish(&w), 0);
    fclose(fp);
    o = json_loadb(m, len, 0, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(o);
    free(m);
    return o;
}

/* the groups of the flows refs[0, n) alone, as JSON */
static json_t *
bottlenecks_json_of(const struct ew_flowtab *tab, const struct ew_qseries_pool *qs,
                    const uint32_t *refs, size_t n)
{
    struct ew_bottlenecks b;
    json_t *o;

    find_groups_of(tab, qs, refs, n, &b);
    o = groups_json(&b);
    ew_bottlenecks_free(&b);
    return o;
}

/* the groups of an's flows as the report's "bottlenecks" has them, parsed */
static json_t *
bottlenecks_json(const struct ew_analyzer *an)
{
    struct ew_bottlenecks b;
    json_t *o;

    find_groups(an, &b);
    o = groups_json(&b);
    ew_bottlenecks_free(&b);
    return o;
}

static json_t *
groups_of_qs(struct run *r, const struct flowspec *fs, size_t nf, uint32_t max_qs)
{
    json_t *g;

    run_flows_qs(r, fs, nf, 0, max_qs);
    g = bottlenecks_json(&r->an);
    CU_ASSERT_TRUE(json_is_array(g));
    return g;
}

static json_t *
groups_of(struct run *r, const struct flowspec *fs, size_t nf)
{
    return groups_of_qs(r, fs, nf, 0);
}

static double
num(const json_t *o, const char *key)
{
    const json_t *v = json_object_get(o, key);

    CU_ASSERT_TRUE(json_is_number(v));
    return json_number_value(v);
}

/* a string member, "(none)" where it is missing or not a string */
static const char *
str(const json_t *o, const char *key)
{
    const char *v = json_string_value(json_object_get(o, key));

    return v ? v : "(none)";
}

/* a side's flow ids */
static void
check_ids(const json_t *side, const json_int_t *ids, size_t n)
{
    const json_t *a = json_object_get(side, "flows");
    size_t i;

    CU_ASSERT_EQUAL_FATAL(json_array_size(a), n);
    for (i = 0; i < n; i++)
        CU_ASSERT_EQUAL(json_integer_value(json_array_get(a, i)), ids[i]);
}

/* The mean queueing delay of a flow built by add_flow, in ms: the first RTT
 * sample is the minimum, each of the others qd above it. */
static double
qd_mean_ms(const struct flowspec *f)
{
    return (double)(f->ndata - 1) * (double)(f->qd / US) / f->ndata / 1000.0;
}

/* Its throughput in Mbit/s: payload over the time from its first data
 * segment to its last. */
static double
mbps_of(const struct flowspec *f)
{
    return (double)f->ndata * SEG * 8 / ((double)(f->ndata - 1) * (double)gap_of(f) / 1e9) / 1e6;
}

/* One classic and one L4S flow between 10.0.0.1 and 10.0.0.2 at a DualQ:
 * RFC 9332's coupling p_L = k * sqrt(p_C), k = 2, with p_C = 1% gives
 * p_L = 20%: the classic flow has 1 mark in 100 segments, the L4S flow 4 in
 * 20. Queueing delay: 1 ms for the L4S queue (sch_dualpi2's step
 * threshold), 15 ms for the classic queue (its target). The L4S flow starts
 * while the classic one runs.
 *
 * The two are compared over the time they overlap, in 100 ms intervals
 * aligned to multiples of 100 ms: the L4S flow's data runs from 1511 ms to
 * 1739 ms (20 segments, 12 ms apart), so the intervals at 1500, 1600 and
 * 1700 ms, 0.3 s. Each interval keeps its lowest RTT, weighed by its
 * samples, above the base RTT (10 ms, the lowest of both flows'): the L4S
 * flow's first interval holds its first round trip (no queue) and 6 more,
 * so 7 samples at 0 ms, then 8 and 5 at 1 ms: 13/20 = 0.65 ms; the classic
 * flow waits 15 ms in each. Delays that hardly move do not hide a DualQ:
 * ECT(1) kept far shallower, and marked, is one whatever the rest. */
static void
test_dualq(void)
{
    static const json_int_t cl_ids[] = {1}, l4s_ids[] = {2};
    struct flowspec fs[2];
    struct run r;
    const json_t *g, *l, *c;
    json_t *arr;
    const char *reason;

    fs[0] = spec(false, 40000, 1000 * MS, 100, 1, 15 * MS);
    fs[1] = spec(true, 40001, 1500 * MS, 20, 4, 1 * MS);
    arr = groups_of(&r, fs, 2);
    CU_ASSERT_EQUAL_FATAL(json_array_size(arr), 1);
    g = json_array_get(arr, 0);
    CU_ASSERT_EQUAL(json_array_size(json_object_get(g, "hosts")), 2);
    CU_ASSERT_STRING_EQUAL(json_string_value(json_array_get(json_object_get(g, "hosts"), 0)),
                           "10.0.0.1");
    CU_ASSERT_STRING_EQUAL(json_string_value(json_array_get(json_object_get(g, "hosts"), 1)),
                           "10.0.0.2");
    CU_ASSERT_STRING_EQUAL(str(g, "looks_like"), "dualq");
    CU_ASSERT_STRING_EQUAL(str(g, "confidence"), "likely");
    CU_ASSERT_STRING_EQUAL(str(g, "compared_over"), "overlap");
    CU_ASSERT_DOUBLE_EQUAL(num(g, "overlap_s"), 0.3, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(num(g, "base_rtt_ms"), 10.0, 1e-9);
    /* three intervals: too few for a correlation */
    CU_ASSERT_TRUE(json_is_null(json_object_get(g, "qdelay_correlation")));
    reason = json_string_value(json_object_get(g, "reason"));
    CU_ASSERT_PTR_NOT_NULL_FATAL(reason);
    CU_ASSERT_PTR_NOT_NULL(strstr(reason, "ECT(1) queued 0.7 ms and ECT(0) 15.0 ms"));
    /* the shares of packets marked, not a ratio: the classic flow has none here */
    CU_ASSERT_PTR_NOT_NULL(strstr(reason, "(4 and 0 marks)"));
    CU_ASSERT_PTR_NULL(strstr(reason, "x as often"));
    CU_ASSERT_PTR_NOT_NULL(strstr(reason, "DualQ"));
    CU_ASSERT_PTR_NOT_NULL(strstr(reason, "too few intervals to correlate"));

    l = json_object_get(g, "l4s");
    c = json_object_get(g, "classic");
    CU_ASSERT_PTR_NOT_NULL_FATAL(l);
    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    check_ids(l, l4s_ids, 1);
    check_ids(c, cl_ids, 1);
    /* all 20 L4S segments and their 4 marks fall in the overlap; the
     * classic flow's one mark (segment 50, at 2.3 s) does not, and 12 of
     * its segments do (1505 to 1791 ms, 26 ms apart) */
    CU_ASSERT_DOUBLE_EQUAL(num(l, "ce_per_packet"), 0.2, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(num(l, "marks"), 4, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(num(c, "ce_per_packet"), 0, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(num(l, "qdelay_ms"), 0.65, 0.0011);
    CU_ASSERT_DOUBLE_EQUAL(num(c, "qdelay_ms"), 15.0, 0.0011);
    /* 20 * 8000 bits and 12 * 8000 bits in the 0.3 s, rounded down */
    CU_ASSERT_DOUBLE_EQUAL(num(l, "throughput_mbps"), 0.533, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(num(c, "throughput_mbps"), 0.32, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(num(g, "throughput_ratio_l4s_to_classic"), 1.666, 1e-9);
    json_decref(arr);

    /* the same as data, and every member by role for ew_bottleneck_apply */
    {
        struct ew_bottlenecks b;

        find_groups(&r.an, &b);
        CU_ASSERT_EQUAL_FATAL(b.n, 1);
        CU_ASSERT_STRING_EQUAL(b.g[0].looks_like, "dualq");
        CU_ASSERT_TRUE(b.g[0].likely);
        CU_ASSERT_TRUE(b.g[0].over_overlap);
        CU_ASSERT_TRUE(b.g[0].has_base);
        CU_ASSERT_FALSE(b.g[0].has_corr);
        CU_ASSERT_STRING_EQUAL(b.g[0].hosts[1], "10.0.0.2");
        CU_ASSERT_EQUAL_FATAL(b.g[0].l4s.n, 1);
        CU_ASSERT_EQUAL(b.g[0].l4s.ids[0], 2);
        CU_ASSERT_TRUE(b.g[0].has_ratio && b.g[0].classic.has_qdelay);
        CU_ASSERT_DOUBLE_EQUAL(b.g[0].classic.qdelay_ms, 15.0, 0.0011);
        /* every member, by id, for ew_bottleneck_apply */
        CU_ASSERT_EQUAL_FATAL(b.nrole, 2);
        CU_ASSERT_EQUAL(b.role[0].id, 1);
        CU_ASSERT_FALSE(b.role[0].l4s);
        CU_ASSERT_EQUAL(b.role[0].group, 0);
        CU_ASSERT_EQUAL(b.role[1].id, 2);
        CU_ASSERT_TRUE(b.role[1].l4s);
        CU_ASSERT_EQUAL(b.role[1].group, 0);
        ew_bottlenecks_free(&b);
        CU_ASSERT_PTR_NULL(b.g);
        CU_ASSERT_EQUAL(b.n, 0);
        CU_ASSERT_PTR_NULL(b.role);
        CU_ASSERT_EQUAL(b.nrole, 0);
    }
    ew_analyzer_free(&r.an);
}

/* Flows kept packed (a hot set of one) give the same groups as flows kept
 * whole: the grouping reads each flow through a view of its own. */
static void
test_packed_flows_same(void)
{
    struct flowspec fs[2];
    struct run r1, r2;
    json_t *a, *b;

    fs[0] = spec(false, 40000, 1000 * MS, 100, 1, 15 * MS);
    fs[1] = spec(true, 40001, 1500 * MS, 20, 4, 1 * MS);
    run_flows(&r1, fs, 2, 0);
    run_flows(&r2, fs, 2, 1);
    a = bottlenecks_json(&r1.an);
    b = bottlenecks_json(&r2.an);
    CU_ASSERT_EQUAL(json_array_size(a), 1);
    CU_ASSERT_TRUE(json_equal(a, b));
    json_decref(a);
    json_decref(b);
    ew_analyzer_free(&r1.an);
    ew_analyzer_free(&r2.an);
}

/* the flows of a shared queue whose delay moves: a sawtooth of 10 ms every
 * second, on top of 10 ms, for both, over 3.1 s */
static void
shared_sawtooth(struct flowspec *fs, int classic_marks, int l4s_marks)
{
    int k;

    fs[0] = spec(false, 40000, 1000 * MS, 100, classic_marks, 10 * MS);
    fs[1] = spec(true, 40001, 1050 * MS, 100, l4s_marks, 10 * MS);
    for (k = 0; k < 2; k++) {
        fs[k].saw_amp = 10 * MS;
        fs[k].saw_period = 1000 * MS;
    }
}

/* One shared queue: both kinds wait in one FIFO whose delay rises and falls
 * (shared_sawtooth), and over the 3 s they overlap (30 intervals) their
 * delays per interval move together: Pearson's r near 1, and alike: one
 * shared queue, whatever the marks. */
static void
test_single_queue(void)
{
    struct flowspec fs[2];
    struct run r;
    const json_t *g;
    json_t *arr;
    const char *reason;
    double ql, qc;
    int k;

    shared_sawtooth(fs, 2, 5);
    arr = groups_of(&r, fs, 2);
    CU_ASSERT_EQUAL_FATAL(json_array_size(arr), 1);
    g = json_array_get(arr, 0);
    CU_ASSERT_STRING_EQUAL(str(g, "looks_like"), "single_queue");
    CU_ASSERT_STRING_EQUAL(str(g, "confidence"), "likely");
    CU_ASSERT_STRING_EQUAL(str(g, "compared_over"), "overlap");
    CU_ASSERT_TRUE(num(g, "overlap_s") >= 2.0);
    CU_ASSERT_TRUE(num(g, "qdelay_correlation") >= 0.9);
    CU_ASSERT_DOUBLE_EQUAL(num(g, "base_rtt_ms"), 20.0, 0.5);
    reason = json_string_value(json_object_get(g, "reason"));
    CU_ASSERT_PTR_NOT_NULL_FATAL(reason);
    CU_ASSERT_PTR_NOT_NULL(strstr(reason, "their delays' correlation"));
    CU_ASSERT_PTR_NOT_NULL(strstr(reason, "one shared queue"));
    /* above the base RTT (10 ms and the queue's lowest, about 10 ms): the
     * sawtooth, a few ms on average, the same for both */
    ql = num(json_object_get(g, "l4s"), "qdelay_ms");
    qc = num(json_object_get(g, "classic"), "qdelay_ms");
    CU_ASSERT_TRUE(ql > 2 && ql < 8);
    CU_ASSERT_TRUE(qc > 2 && qc < 8);
    CU_ASSERT_TRUE(ql - qc < 1 && qc - ql < 1);
    json_decref(arr);
    ew_analyzer_free(&r.an);

    /* Too short an overlap to correlate (0.6 s: 6 intervals): one queue
     * only where the delays are alike and the marks too. Both wait 15 ms,
     * and are marked alike, 1 in 20 (the classic sender's mark one ECE run,
     * or under AccECN one step of its ACE counter), all 20 segments of each
     * (1011 to 1505 ms, 1061 to 1555 ms) within the overlap. */
    for (k = 0; k < 2; k++) {
        fs[0] = spec(false, 40000, 1000 * MS, 20, 1, 15 * MS);
        fs[0].acc_classic = k == 1;
        fs[1] = spec(true, 40001, 1050 * MS, 20, 1, 15 * MS);
        arr = groups_of(&r, fs, 2);
        CU_ASSERT_EQUAL_FATAL(json_array_size(arr), 1);
        g = json_array_get(arr, 0);
        CU_ASSERT_STRING_EQUAL(str(g, "looks_like"), "single_queue");
        reason = json_string_value(json_object_get(g, "reason"));
        CU_ASSERT_PTR_NOT_NULL_FATAL(reason);
        CU_ASSERT_PTR_NOT_NULL(strstr(reason, "too few intervals to correlate"));
        CU_ASSERT_PTR_NOT_NULL(strstr(reason, "one shared queue"));
        CU_ASSERT_DOUBLE_EQUAL(num(g, "overlap_s"), 0.6, 1e-9);
        CU_ASSERT_DOUBLE_EQUAL(num(json_object_get(g, "l4s"), "ce_per_packet"), 0.05, 1e-9);
        CU_ASSERT_DOUBLE_EQUAL(num(json_object_get(g, "classic"), "ce_per_packet"), 0.05, 1e-9);
        json_decref(arr);
        ew_analyzer_free(&r.an);
    }

    /* 11 ms against 15 ms (over the overlap 10.4 and 12.5): alike, within
     * 30%, but L4S marked 4 times as often: with too few intervals to
     * correlate, the delays alone do not make one queue */
    fs[1] = spec(true, 40001, 1050 * MS, 20, 4, 11 * MS);
    arr = groups_of(&r, fs, 2);
    CU_ASSERT_EQUAL_FATAL(json_array_size(arr), 1);
    CU_ASSERT_STRING_EQUAL(str(json_array_get(arr, 0), "looks_like"),
                           "unknown");
    json_decref(arr);
    ew_analyzer_free(&r.an);

    /* 8 ms against 15 ms, marked alike: over the overlap (the first round
     * trip of each without a queue) 7.6 and 12.5 ms, past 30% apart, not
     * alike: neither */
    fs[1] = spec(true, 40001, 1050 * MS, 20, 1, 8 * MS);
    arr = groups_of(&r, fs, 2);
    CU_ASSERT_EQUAL_FATAL(json_array_size(arr), 1);
    CU_ASSERT_STRING_EQUAL(str(json_array_get(arr, 0), "looks_like"),
                           "unknown");
    json_decref(arr);
    ew_analyzer_free(&r.an);
}

/* Two queues, not coupled. The L4S flow waits 1 ms and the classic one
 * 15 ms, and ECT(1) is marked no more often than ECT(0): a coupled DualQ
 * marks the L4S queue more (k * sqrt(p_C), RFC 9332 §2.1), so the marking
 * is not coupled; but one queue cannot keep one kind fifteen times
 * shallower, so these are two queues, ECT(1) served first: a DualQ without
 * the coupling (the lab's shared-dualq router, strict priority and step
 * marking in each queue, captures/README §7). Over the overlap the delays
 * decide, with ECT(1) marked; the marking's ratio is not asked.
 *
 * Both start in the interval at 1000 ms; the L4S flow's data runs to
 * 1289 ms: the intervals at 1000, 1100 and 1200 ms. The classic sender
 * takes AccECN feedback, whose marks count one each: its one mark (segment
 * 10, acknowledged at 1296 ms) and 12 of its segments (1011 to 1297 ms)
 * fall in the overlap: 1 in 12. The L4S flow: 1 in 20, then 2 in 20. */
static void
test_neither_pattern(void)
{
    static const int l4s_marks[] = {1, 2};
    struct flowspec fs[2];
    struct run r;
    const json_t *g;
    json_t *arr;
    const char *reason;
    size_t k;

    for (k = 0; k < 2; k++) {
        fs[0] = spec(false, 40000, 1000 * MS, 20, 1, 15 * MS);
        fs[0].acc_classic = true;
        fs[1] = spec(true, 40001, 1050 * MS, 20, l4s_marks[k], 1 * MS);
        arr = groups_of(&r, fs, 2);
        CU_ASSERT_EQUAL_FATAL(json_array_size(arr), 1);
        g = json_array_get(arr, 0);
        CU_ASSERT_STRING_EQUAL(str(g, "looks_like"), "dualq");
        reason = json_string_value(json_object_get(g, "reason"));
        CU_ASSERT_PTR_NOT_NULL_FATAL(reason);
        CU_ASSERT_PTR_NOT_NULL(strstr(reason, "ECT(1) kept shallow"));
        CU_ASSERT_DOUBLE_EQUAL(num(g, "overlap_s"), 0.3, 1e-9);
        CU_ASSERT_DOUBLE_EQUAL(num(json_object_get(g, "classic"), "ce_per_packet"), 0.08333, 1e-9);
        CU_ASSERT_DOUBLE_EQUAL(num(json_object_get(g, "l4s"), "ce_per_packet"),
                               l4s_marks[k] / 20.0, 1e-9);
        json_decref(arr);
        ew_analyzer_free(&r.an);
    }
}

/* Queueing delay that cannot be measured here: the classic flow's ACKs are
 * not in the capture (one direction only), so it has no RTT: its qdelay is
 * null and the group unknown. The same when the capture point is at the
 * receiver, where data-to-ACK times are the receiver's ACK delay. */
static void
test_delay_not_measurable(void)
{
    struct flowspec fs[2];
    struct run r;
    const json_t *g;
    json_t *arr;
    int k;

    for (k = 0; k < 2; k++) {
        fs[0] = spec(false, 40000, 1000 * MS, 100, 1, 15 * MS);
        fs[1] = spec(true, 40001, 1500 * MS, 20, 4, 1 * MS);
        if (k == 0)
            fs[0].no_acks = true;
        else
            fs[0].at_receiver = fs[1].at_receiver = true;
        arr = groups_of(&r, fs, 2);
        CU_ASSERT_EQUAL_FATAL(json_array_size(arr), 1);
        g = json_array_get(arr, 0);
        CU_ASSERT_STRING_EQUAL(str(g, "looks_like"), "unknown");
        CU_ASSERT_PTR_NOT_NULL(strstr(json_string_value(json_object_get(g, "reason")),
                                      "not measurable"));
        CU_ASSERT_TRUE(json_is_null(json_object_get(json_object_get(g, "classic"), "qdelay_ms")));
        if (k == 0) {
            CU_ASSERT_DOUBLE_EQUAL(num(json_object_get(g, "l4s"), "qdelay_ms"), 0.95, 0.0011);
        } else {
            CU_ASSERT_TRUE(json_is_null(json_object_get(json_object_get(g, "l4s"), "qdelay_ms")));
        }
        json_decref(arr);
        ew_analyzer_free(&r.an);
    }
}

/* Not overlapping in time: the L4S flow starts 1 ms after the classic
 * flow's last packet (its 100 segments take 99 gaps of 26 ms after the
 * handshake): no group. Starting at that last packet's very time, the two
 * touch, which counts as overlapping. */
static void
test_not_overlapping(void)
{
    struct flowspec fs[2];
    struct run r;
    json_t *arr;
    int64_t last;

    fs[0] = spec(false, 40000, 1000 * MS, 100, 1, 15 * MS);
    /* the last ACK: handshake (RTT + 10 us), 1 ms, 99 gaps, one RTT + qd */
    last = fs[0].t0 + RTT + 10 * US + 1 * MS + 99 * gap_of(&fs[0]) + RTT + fs[0].qd;
    fs[1] = spec(true, 40001, last + 1 * MS, 20, 4, 1 * MS);
    arr = groups_of(&r, fs, 2);
    CU_ASSERT_EQUAL(json_array_size(arr), 0);
    json_decref(arr);
    ew_analyzer_free(&r.an);

    fs[1].t0 = last;
    arr = groups_of(&r, fs, 2);
    CU_ASSERT_EQUAL(json_array_size(arr), 1);
    json_decref(arr);
    ew_analyzer_free(&r.an);

    /* the other way round: the L4S flow first, the classic one after it */
    fs[0] = spec(true, 40001, 1000 * MS, 20, 4, 1 * MS);
    fs[1] = spec(false, 40000, 2000 * MS, 100, 1, 15 * MS);
    arr = groups_of(&r, fs, 2);
    CU_ASSERT_EQUAL(json_array_size(arr), 0);
    json_decref(arr);
    ew_analyzer_free(&r.an);
}

/* Different hosts: the classic flow between 10.0.0.2 and 10.0.0.1, the L4S
 * flow between 10.0.0.3 and 10.0.0.1 (one end in common is not enough), or
 * between 10.0.0.2 and 10.0.0.4: no group. */
static void
test_different_hosts(void)
{
    struct flowspec fs[2];
    struct run r;
    json_t *arr;
    int k;

    for (k = 0; k < 2; k++) {
        fs[0] = spec(false, 40000, 1000 * MS, 100, 1, 15 * MS);
        fs[1] = spec(true, 40001, 1500 * MS, 20, 4, 1 * MS);
        if (k == 0)
            fs[1].cli = 3;
        else
            fs[1].srv = 4;
        arr = groups_of(&r, fs, 2);
        CU_ASSERT_EQUAL(json_array_size(arr), 0);
        json_decref(arr);
        ew_analyzer_free(&r.an);
    }
}

/* Only one kind: two L4S flows, or two classic flows, overlapping between
 * the same hosts: no group. A flow with too few data segments to judge (9;
 * ten make a group) is neither kind, nor is an ECT(1) sender with RFC 3168
 * feedback (L4S needs accurate feedback, RFC 9331 §4.2). */
static void
test_one_kind_or_too_short(void)
{
    struct flowspec fs[2];
    struct run r;
    json_t *arr;

    fs[0] = spec(true, 40000, 1000 * MS, 20, 4, 1 * MS);
    fs[1] = spec(true, 40001, 1100 * MS, 20, 4, 1 * MS);
    arr = groups_of(&r, fs, 2);
    CU_ASSERT_EQUAL(json_array_size(arr), 0);
    json_decref(arr);
    ew_analyzer_free(&r.an);

    fs[0] = spec(false, 40000, 1000 * MS, 100, 1, 15 * MS);
    fs[1] = spec(false, 40001, 1100 * MS, 100, 1, 15 * MS);
    arr = groups_of(&r, fs, 2);
    CU_ASSERT_EQUAL(json_array_size(arr), 0);
    json_decref(arr);
    ew_analyzer_free(&r.an);

    fs[0] = spec(false, 40000, 1000 * MS, 100, 1, 15 * MS);
    fs[1] = spec(true, 40001, 1100 * MS, 9, 3, 1 * MS);
    arr = groups_of(&r, fs, 2);
    CU_ASSERT_EQUAL(json_array_size(arr), 0);
    json_decref(arr);
    ew_analyzer_free(&r.an);

    fs[1].ndata = 10;
    arr = groups_of(&r, fs, 2);
    CU_ASSERT_EQUAL(json_array_size(arr), 1);
    json_decref(arr);
    ew_analyzer_free(&r.an);

    fs[1] = spec(true, 40001, 1100 * MS, 20, 4, 1 * MS);
    fs[1].ect1_rfc3168 = true;
    arr = groups_of(&r, fs, 2);
    CU_ASSERT_EQUAL(json_array_size(arr), 0);
    json_decref(arr);
    ew_analyzer_free(&r.an);
}

/* RFC 3168 §6.1.5: a classic sender sends its retransmissions Not-ECT.
 * The classic flow retransmits its 40th segment (at 2050.5 ms): still a
 * classic sender, still grouped, and its retransmission counts as a data
 * segment. Over the overlap with the L4S flow (1961 to 2189 ms: the
 * intervals at 1900, 2000 and 2100 ms), 11 classic segments (1921 to
 * 2181 ms) and the retransmission: 12 * 8000 bits in 0.3 s. Compared as
 * whole flows (the L4S flow without a series: a pool of one), its one mark
 * in 101 data segments. */
static void
test_classic_retransmission_not_ect(void)
{
    static const json_int_t cl_ids[] = {1};
    struct flowspec fs[2];
    struct run r;
    const json_t *g;
    json_t *arr;

    fs[0] = spec(false, 40000, 1000 * MS, 100, 1, 15 * MS);
    fs[0].retrans = 39;
    fs[1] = spec(true, 40001, 1950 * MS, 20, 4, 1 * MS);
    arr = groups_of(&r, fs, 2);
    CU_ASSERT_EQUAL_FATAL(json_array_size(arr), 1);
    g = json_array_get(arr, 0);
    check_ids(json_object_get(g, "classic"), cl_ids, 1);
    CU_ASSERT_STRING_EQUAL(str(g, "compared_over"), "overlap");
    CU_ASSERT_DOUBLE_EQUAL(num(json_object_get(g, "classic"), "throughput_mbps"), 0.32, 1e-9);
    json_decref(arr);
    ew_analyzer_free(&r.an);

    arr = groups_of_qs(&r, fs, 2, 1);
    CU_ASSERT_EQUAL_FATAL(json_array_size(arr), 1);
    g = json_array_get(arr, 0);
    check_ids(json_object_get(g, "classic"), cl_ids, 1);
    CU_ASSERT_STRING_EQUAL(str(g, "compared_over"), "whole_flows");
    CU_ASSERT_DOUBLE_EQUAL(num(json_object_get(g, "classic"), "ce_per_packet"), 0.0099, 1e-9);
    json_decref(arr);
    ew_analyzer_free(&r.an);
}

/* Three flows between the same hosts: classic A (id 1) runs long; L4S B
 * (id 2) overlaps A; classic C (id 3) starts after B has ended but overlaps
 * A. A leads the group and takes every later flow that overlaps it: one
 * group, classic [1, 3], L4S [2]. Over the time the two kinds overlap (B's,
 * the intervals at 1100, 1200 and 1300 ms) only A runs beside B: 11 of its
 * segments (1115 to 1375 ms) in 0.3 s, none marked (its mark is at 2.3 s);
 * C adds nothing there. Compared as whole flows (B and C without a series:
 * a pool of one), the classic side adds up: its throughput is A's plus C's,
 * its marks per packet (1 + 2) / (100 + 50). Flows left out of refs are not
 * looked at: without A, B and C do not overlap, and without C and A there
 * is only B. */
static void
test_group_of_three_and_refs(void)
{
    static const json_int_t cl_ids[] = {1, 3}, l4s_ids[] = {2};
    struct flowspec fs[3];
    struct run r;
    const json_t *g;
    json_t *arr;
    uint32_t sub[2];

    fs[0] = spec(false, 40000, 1000 * MS, 100, 1, 15 * MS);
    fs[1] = spec(true, 40001, 1100 * MS, 20, 4, 1 * MS);
    fs[2] = spec(false, 40002, 2000 * MS, 50, 2, 15 * MS);
    arr = groups_of(&r, fs, 3);
    CU_ASSERT_EQUAL_FATAL(json_array_size(arr), 1);
    g = json_array_get(arr, 0);
    check_ids(json_object_get(g, "classic"), cl_ids, 2);
    check_ids(json_object_get(g, "l4s"), l4s_ids, 1);
    CU_ASSERT_DOUBLE_EQUAL(num(json_object_get(g, "classic"), "ce_per_packet"), 0, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(num(json_object_get(g, "classic"), "throughput_mbps"), 0.293, 1e-9);
    json_decref(arr);
    ew_analyzer_free(&r.an);

    arr = groups_of_qs(&r, fs, 3, 1);
    CU_ASSERT_EQUAL_FATAL(json_array_size(arr), 1);
    g = json_array_get(arr, 0);
    CU_ASSERT_STRING_EQUAL(str(g, "compared_over"), "whole_flows");
    check_ids(json_object_get(g, "classic"), cl_ids, 2);
    check_ids(json_object_get(g, "l4s"), l4s_ids, 1);
    CU_ASSERT_DOUBLE_EQUAL(num(json_object_get(g, "classic"), "ce_per_packet"), 0.02, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(num(json_object_get(g, "classic"), "throughput_mbps"),
                           mbps_of(&fs[0]) + mbps_of(&fs[2]), 0.0011);
    json_decref(arr);

    sub[0] = r.refs[1];
    sub[1] = r.refs[2];
    arr = bottlenecks_json_of(r.an.tab, &r.an.qs, sub, 2);
    CU_ASSERT_EQUAL(json_array_size(arr), 0);
    json_decref(arr);
    arr = bottlenecks_json_of(r.an.tab, &r.an.qs, r.refs, 1);
    CU_ASSERT_EQUAL(json_array_size(arr), 0);
    json_decref(arr);
    arr = bottlenecks_json_of(r.an.tab, &r.an.qs, r.refs, 0);
    CU_ASSERT_EQUAL(json_array_size(arr), 0);
    json_decref(arr);
    ew_analyzer_free(&r.an);
}

/* Two host pairs, each with its own group: listed in the order of their
 * first flows (report order), not of their addresses. The first pair is
 * 10.0.0.5/10.0.0.6 (flows 1 and 2), the second 10.0.0.1/10.0.0.2 (3, 4). */
static void
test_two_groups_in_report_order(void)
{
    static const json_int_t first_cl[] = {1}, second_l4s[] = {4};
    struct flowspec fs[4];
    struct run r;
    const json_t *g;
    json_t *arr;

    fs[0] = spec(false, 40000, 1000 * MS, 100, 1, 15 * MS);
    fs[0].cli = 6;
    fs[0].srv = 5;
    fs[1] = spec(true, 40001, 1001 * MS, 20, 4, 1 * MS);
    fs[1].cli = 6;
    fs[1].srv = 5;
    fs[2] = spec(false, 40002, 1002 * MS, 100, 1, 15 * MS);
    fs[3] = spec(true, 40003, 1003 * MS, 20, 4, 1 * MS);
    arr = groups_of(&r, fs, 4);
    CU_ASSERT_EQUAL_FATAL(json_array_size(arr), 2);
    g = json_array_get(arr, 0);
    CU_ASSERT_STRING_EQUAL(json_string_value(json_array_get(json_object_get(g, "hosts"), 0)),
                           "10.0.0.5");
    check_ids(json_object_get(g, "classic"), first_cl, 1);
    g = json_array_get(arr, 1);
    CU_ASSERT_STRING_EQUAL(json_string_value(json_array_get(json_object_get(g, "hosts"), 0)),
                           "10.0.0.1");
    check_ids(json_object_get(g, "l4s"), second_l4s, 1);
    json_decref(arr);
    ew_analyzer_free(&r.an);
}

/* the flows of a queue each (flow queueing): the classic flow waits 15 ms
 * plus a sawtooth of 10 ms every 0.7 s, the L4S flow 18 ms plus one of
 * 8 ms every 1.3 s; the L4S flow starts first, the classic one 0.45 s
 * later */
static void
two_sawtooths(struct flowspec *fs, int classic_marks, int l4s_marks)
{
    fs[0] = spec(true, 40001, 1000 * MS, 120, l4s_marks, 18 * MS);
    fs[0].saw_amp = 8 * MS;
    fs[0].saw_period = 1300 * MS;
    fs[1] = spec(false, 40000, 1450 * MS, 100, classic_marks, 15 * MS);
    fs[1].saw_amp = 10 * MS;
    fs[1].saw_period = 700 * MS;
}

/* Flow queueing (fq_codel): each flow waits in a queue of its own, so that
 * their delays per interval do not move together (r below 0.3), while both
 * are marked at classic depths (3 ms or more): "fq"; also where the two
 * delays are alike on average (the L4S flow at 16 ms plus 10 ms every
 * 1.3 s): levels alone do not make one queue. Not when the L4S flow is not
 * marked: then nothing shows it is at a classic AQM of its own. */
static void
test_fq(void)
{
    struct flowspec fs[2];
    struct run r;
    const json_t *g;
    json_t *arr;
    const char *reason;
    double corr;

    two_sawtooths(fs, 3, 6);
    arr = groups_of(&r, fs, 2);
    CU_ASSERT_EQUAL_FATAL(json_array_size(arr), 1);
    g = json_array_get(arr, 0);
    CU_ASSERT_STRING_EQUAL(str(g, "looks_like"), "fq");
    CU_ASSERT_STRING_EQUAL(str(g, "confidence"), "likely");
    corr = num(g, "qdelay_correlation");
    CU_ASSERT_TRUE(corr < 0.3 && corr > -0.3);
    CU_ASSERT_TRUE(num(json_object_get(g, "l4s"), "qdelay_ms") >= 3);
    CU_ASSERT_TRUE(num(json_object_get(g, "classic"), "qdelay_ms") >= 3);
    CU_ASSERT_TRUE(num(json_object_get(g, "l4s"), "marks") > 0);
    reason = json_string_value(json_object_get(g, "reason"));
    CU_ASSERT_PTR_NOT_NULL_FATAL(reason);
    CU_ASSERT_PTR_NOT_NULL(strstr(reason, "do not move together"));
    CU_ASSERT_PTR_NOT_NULL(strstr(reason, "flow queueing"));
    json_decref(arr);
    ew_analyzer_free(&r.an);

    two_sawtooths(fs, 3, 6);
    fs[0].qd = 16 * MS;
    fs[0].saw_amp = 10 * MS;
    arr = groups_of(&r, fs, 2);
    CU_ASSERT_EQUAL_FATAL(json_array_size(arr), 1);
    g = json_array_get(arr, 0);
    CU_ASSERT_STRING_EQUAL(str(g, "looks_like"), "fq");
    CU_ASSERT_TRUE(num(g, "qdelay_correlation") < 0.3);
    CU_ASSERT_TRUE(num(json_object_get(g, "l4s"), "qdelay_ms") -
                           num(json_object_get(g, "classic"), "qdelay_ms") <
                       1.5);
    CU_ASSERT_TRUE(num(json_object_get(g, "classic"), "qdelay_ms") -
                           num(json_object_get(g, "l4s"), "qdelay_ms") <
                       1.5);
    json_decref(arr);
    ew_analyzer_free(&r.an);

    two_sawtooths(fs, 3, 0);
    arr = groups_of(&r, fs, 2);
    CU_ASSERT_EQUAL_FATAL(json_array_size(arr), 1);
    g = json_array_get(arr, 0);
    CU_ASSERT_STRING_EQUAL(str(g, "looks_like"), "unknown");
    CU_ASSERT_TRUE(json_is_null(json_object_get(g, "confidence")));
    json_decref(arr);
    ew_analyzer_free(&r.an);
}

/* A delay that hardly moves shows no queue's swings: whether two flows
 * wait in one queue or in one each cannot be read from it. Both kinds wait
 * a steady 15 ms, over 5 s of overlap (50 intervals): "unknown", however
 * alike the delays; the same flows in a queue whose delay moves are one
 * queue (test_single_queue). A DualQ needs no swings: ECT(1) at a steady
 * 1 ms against 15 ms is one. */
static void
test_steady_unknown(void)
{
    struct flowspec fs[2];
    struct run r;
    const json_t *g;
    json_t *arr;
    const char *reason;

    fs[0] = spec(false, 40000, 1000 * MS, 250, 2, 15 * MS);
    fs[1] = spec(true, 40001, 1450 * MS, 200, 4, 15 * MS);
    arr = groups_of(&r, fs, 2);
    CU_ASSERT_EQUAL_FATAL(json_array_size(arr), 1);
    g = json_array_get(arr, 0);
    CU_ASSERT_STRING_EQUAL(str(g, "looks_like"), "unknown");
    CU_ASSERT_TRUE(json_is_null(json_object_get(g, "confidence")));
    CU_ASSERT_TRUE(num(g, "overlap_s") >= 1.0);
    reason = json_string_value(json_object_get(g, "reason"));
    CU_ASSERT_PTR_NOT_NULL_FATAL(reason);
    CU_ASSERT_PTR_NOT_NULL(strstr(reason, "hardly moves"));
    json_decref(arr);
    ew_analyzer_free(&r.an);

    fs[1] = spec(true, 40001, 1450 * MS, 200, 40, 1 * MS);
    arr = groups_of(&r, fs, 2);
    CU_ASSERT_EQUAL_FATAL(json_array_size(arr), 1);
    g = json_array_get(arr, 0);
    CU_ASSERT_STRING_EQUAL(str(g, "looks_like"), "dualq");
    CU_ASSERT_TRUE(num(g, "overlap_s") >= 1.0);
    json_decref(arr);
    ew_analyzer_free(&r.an);
}

/* Where a flow has no series (the pool held one, which the classic flow,
 * the first to send data, took), the whole flows are compared: the DualQ of
 * test_dualq, with its numbers over each flow's whole life. The means over
 * all RTT samples (the first counts 0): 19/20 of 1 ms and 99/100 of 15 ms;
 * the classic flow's one mark in 100 against the L4S flow's 4 in 20. */
static void
test_whole_flows_fallback(void)
{
    struct flowspec fs[2];
    struct run r;
    const json_t *g, *l, *c;
    const struct ew_flow *f;
    struct ew_flow_room room;
    json_t *arr;
    const char *reason;

    fs[0] = spec(false, 40000, 1000 * MS, 100, 1, 15 * MS);
    fs[1] = spec(true, 40001, 1500 * MS, 20, 4, 1 * MS);
    arr = groups_of_qs(&r, fs, 2, 1);
    /* the pool was full for the L4S flow's data (and for neither ACK way:
     * only data directions take one) */
    CU_ASSERT_EQUAL(r.an.qs.refused, 1);
    f = ew_flowtab_view(r.an.tab, r.refs[1], &room);
    CU_ASSERT_EQUAL(f->id, 2);
    CU_ASSERT_EQUAL(f->qs_refused, 1u << f->client_dir);
    CU_ASSERT_PTR_NULL(ew_qseries_get(&r.an.qs, f, f->client_dir));
    f = ew_flowtab_view(r.an.tab, r.refs[0], &room);
    CU_ASSERT_PTR_NOT_NULL(ew_qseries_get(&r.an.qs, f, f->client_dir));

    CU_ASSERT_EQUAL_FATAL(json_array_size(arr), 1);
    g = json_array_get(arr, 0);
    CU_ASSERT_STRING_EQUAL(str(g, "looks_like"), "dualq");
    CU_ASSERT_STRING_EQUAL(str(g, "compared_over"), "whole_flows");
    CU_ASSERT_TRUE(json_is_null(json_object_get(g, "overlap_s")));
    CU_ASSERT_TRUE(json_is_null(json_object_get(g, "base_rtt_ms")));
    reason = json_string_value(json_object_get(g, "reason"));
    CU_ASSERT_PTR_NOT_NULL_FATAL(reason);
    CU_ASSERT_PTR_NOT_NULL(strstr(reason, "whole flows"));
    /* 0.2 and 0.01 of the packets */
    CU_ASSERT_PTR_NOT_NULL(strstr(reason, "ECT(1) marked on 20.00% of its packets"));
    CU_ASSERT_PTR_NOT_NULL(strstr(reason, "ECT(0) on 1.00%"));
    l = json_object_get(g, "l4s");
    c = json_object_get(g, "classic");
    CU_ASSERT_DOUBLE_EQUAL(num(l, "ce_per_packet"), 0.2, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(num(c, "ce_per_packet"), 0.01, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(num(l, "qdelay_ms"), qd_mean_ms(&fs[1]), 0.0011);
    CU_ASSERT_DOUBLE_EQUAL(num(l, "qdelay_ms"), 0.95, 0.0011);
    CU_ASSERT_DOUBLE_EQUAL(num(c, "qdelay_ms"), 14.85, 0.0011);
    /* 20 * 8000 bits in 19 gaps of 12 ms; 100 * 8000 bits in 99 gaps of 26 ms */
    CU_ASSERT_DOUBLE_EQUAL(num(l, "throughput_mbps"), mbps_of(&fs[1]), 0.0011);
    CU_ASSERT_DOUBLE_EQUAL(num(c, "throughput_mbps"), mbps_of(&fs[0]), 0.0011);
    CU_ASSERT_DOUBLE_EQUAL(num(g, "throughput_ratio_l4s_to_classic"),
                           mbps_of(&fs[1]) / mbps_of(&fs[0]), 0.0011);
    json_decref(arr);
    ew_analyzer_free(&r.an);
}

/* Never a DualQ without ECT(1) marks: a DualQ's L queue marks a scalable
 * flow about twice a round trip. The L4S flow (first, from 1000 ms) waits
 * 1 ms against the classic flow's 15 ms (from 1100 ms), but is never
 * marked: over the overlap and as whole flows, not a DualQ; marked 4 times
 * in 20, it is one. The same where the L4S flow starts within the classic
 * one (test_dualq's flows): its ACE stays at 5, whose ECE bit is no mark. */
static void
test_never_dualq_without_ect1_marks(void)
{
    static const uint32_t pools[] = {0, 1};
    struct flowspec fs[2];
    struct run r;
    json_t *arr;
    size_t k;

    for (k = 0; k < 2; k++) {
        fs[0] = spec(true, 40001, 1000 * MS, 20, 0, 1 * MS);
        fs[1] = spec(false, 40000, 1100 * MS, 100, 1, 15 * MS);
        arr = groups_of_qs(&r, fs, 2, pools[k]);
        CU_ASSERT_EQUAL_FATAL(json_array_size(arr), 1);
        CU_ASSERT_STRING_EQUAL(
            str(json_array_get(arr, 0), "compared_over"),
            k ? "whole_flows" : "overlap");
        CU_ASSERT_STRING_EQUAL(
            str(json_array_get(arr, 0), "looks_like"), "unknown");
        json_decref(arr);
        ew_analyzer_free(&r.an);

        fs[0].marks = 4;
        arr = groups_of_qs(&r, fs, 2, pools[k]);
        CU_ASSERT_EQUAL_FATAL(json_array_size(arr), 1);
        CU_ASSERT_STRING_EQUAL(
            str(json_array_get(arr, 0), "looks_like"), "dualq");
        json_decref(arr);
        ew_analyzer_free(&r.an);
    }

    fs[0] = spec(false, 40000, 1000 * MS, 100, 1, 15 * MS);
    fs[1] = spec(true, 40001, 1500 * MS, 20, 0, 1 * MS);
    arr = groups_of(&r, fs, 2);
    CU_ASSERT_EQUAL_FATAL(json_array_size(arr), 1);
    CU_ASSERT_STRING_EQUAL(str(json_array_get(arr, 0), "compared_over"), "overlap");
    CU_ASSERT_STRING_EQUAL(str(json_array_get(arr, 0), "looks_like"), "unknown");
    CU_ASSERT_DOUBLE_EQUAL(num(json_object_get(json_array_get(arr, 0), "l4s"), "marks"), 0, 1e-9);
    json_decref(arr);
    ew_analyzer_free(&r.an);
}

/* Never a DualQ when the two delays are within 1 ms of each other, however
 * many times deeper ECT(0) waits: below that, the timing noise of a queue of
 * a millisecond or two. ECT(1) at 0.3 ms against ECT(0) at 1.2 ms (four
 * times, 0.9 ms apart): not a DualQ; at 1.5 ms (1.2 ms apart), one. */
static void
test_never_dualq_within_1ms(void)
{
    struct flowspec fs[2];
    struct run r;
    const json_t *g;
    json_t *arr;

    fs[0] = spec(false, 40000, 1000 * MS, 250, 2, 1200 * US);
    fs[1] = spec(true, 40001, 1450 * MS, 200, 40, 300 * US);
    arr = groups_of(&r, fs, 2);
    CU_ASSERT_EQUAL_FATAL(json_array_size(arr), 1);
    g = json_array_get(arr, 0);
    CU_ASSERT_STRING_NOT_EQUAL(str(g, "looks_like"), "dualq");
    CU_ASSERT_TRUE(num(json_object_get(g, "l4s"), "qdelay_ms") * 2 <
                   num(json_object_get(g, "classic"), "qdelay_ms"));
    CU_ASSERT_TRUE(num(json_object_get(g, "classic"), "qdelay_ms") -
                       num(json_object_get(g, "l4s"), "qdelay_ms") < 1.0);
    json_decref(arr);
    ew_analyzer_free(&r.an);

    fs[0].qd = 1500 * US;
    arr = groups_of(&r, fs, 2);
    CU_ASSERT_EQUAL_FATAL(json_array_size(arr), 1);
    CU_ASSERT_STRING_EQUAL(str(json_array_get(arr, 0), "looks_like"),
                           "dualq");
    json_decref(arr);
    ew_analyzer_free(&r.an);
}

/* ---------------------------------------------------------------- apply */

/* flow i's conclusion (words and path), then in the light of b (NULL: as
 * concluded) */
static struct ew_flow_summary *
summary_of(const struct run *r, size_t i, const struct ew_bottlenecks *b,
           const struct ew_flow **fo)
{
    static struct ew_flow_room room;
    struct ew_flow_summary *s = calloc(1, sizeof(*s));
    const struct ew_flow *f = ew_flowtab_view(r->an.tab, r->refs[i], &room);

    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    ew_flow_conclude(f, EW_CONCLUDE_WORDS | EW_CONCLUDE_PATH, s);
    if (b)
        ew_bottleneck_apply(b, f, s);
    if (fo)
        *fo = f;
    return s;
}

static const struct ew_finding *
finding_of(const struct ew_flow_summary *s, enum ew_misuse_kind kind)
{
    size_t i;

    for (i = 0; i < s->nf; i++)
        if (s->fnd[i].kind == kind)
            return &s->fnd[i];
    return NULL;
}

/* the bottlenecks of r's flows, their one group's looks_like checked */
static void
find_one(struct run *r, struct ew_bottlenecks *b, const char *looks_like)
{
    find_groups(&r->an, b);
    CU_ASSERT_EQUAL_FATAL(b->n, 1);
    CU_ASSERT_STRING_EQUAL(b->g[0].looks_like, looks_like);
}

/* The classic flow of a DualQ (test_dualq): its one mark names no AQM by
 * itself (few marks), its bottleneck's L4S flow names the queue: a DualQ's
 * classic queue. The L4S flow there is not harmed: no finding. */
static void
test_apply_dualq(void)
{
    struct flowspec fs[2];
    struct ew_bottlenecks b;
    struct ew_flow_summary *s, *t;
    const struct ew_flow *f;
    struct run r;
    int d;

    fs[0] = spec(false, 40000, 1000 * MS, 100, 1, 15 * MS);
    fs[1] = spec(true, 40001, 1500 * MS, 20, 4, 1 * MS);
    run_flows(&r, fs, 2, 0);
    find_one(&r, &b, "dualq");

    s = summary_of(&r, 0, NULL, &f);
    d = s->v.main_dir;
    CU_ASSERT_EQUAL(s->path[d].aqm, EW_AQM_UNKNOWN);
    CU_ASSERT_TRUE(s->path[d].few_marks);
    free(s);
    s = summary_of(&r, 0, &b, &f);
    CU_ASSERT_EQUAL(s->path[d].aqm, EW_AQM_DUALQ_CLASSIC);
    CU_ASSERT_TRUE(s->path[d].has_confidence);
    CU_ASSERT_FALSE(s->path[d].few_marks);
    CU_ASSERT_PTR_NOT_NULL(strstr(s->path[d].reason, "a DualQ's classic queue"));
    CU_ASSERT_PTR_NOT_NULL(strstr(s->path[d].reason, "#2"));
    CU_ASSERT_PTR_NULL(finding_of(s, EW_MU_CLASSIC_AQM_UNDER_L4S));
    free(s);

    t = summary_of(&r, 1, NULL, NULL);
    s = summary_of(&r, 1, &b, NULL);
    CU_ASSERT_PTR_NULL(finding_of(s, EW_MU_CLASSIC_AQM_UNDER_L4S));
    CU_ASSERT_EQUAL(s->nf, t->nf);
    CU_ASSERT_EQUAL(s->path[s->v.main_dir].aqm, t->path[t->v.main_dir].aqm);
    free(s);
    free(t);
    ew_bottlenecks_free(&b);
    ew_analyzer_free(&r.an);
}

/* One queue that marks both kinds alike (shared_sawtooth, 4 marks in 100
 * on each; the classic sender's fed back as ECE runs under RFC 3168, or by
 * the ACE counter under AccECN): the L4S flow is the harm of RFC 9331 §4.3,
 * classic_aqm_under_l4s (likely, naming the classic flow), and both flows'
 * AQM is a classic single queue, the L4S flow's with a note; every output
 * counts the finding (ew_analyzer_findings). */
static void
apply_single_queue_harm(bool acc_classic)
{
    struct flowspec fs[2];
    struct ew_bottlenecks b;
    struct ew_flow_summary *s;
    const struct ew_finding *x;
    uint64_t counts[EW_MU_MASK_BITS];
    const struct ew_flow *f;
    struct run r;
    int d;

    shared_sawtooth(fs, 4, 4);
    fs[0].acc_classic = acc_classic;
    run_flows(&r, fs, 2, 0);
    find_one(&r, &b, "single_queue");

    s = summary_of(&r, 1, NULL, &f);
    CU_ASSERT_EQUAL(s->v.verdict, EW_V_L4S);
    CU_ASSERT_PTR_NULL(finding_of(s, EW_MU_CLASSIC_AQM_UNDER_L4S));
    free(s);
    s = summary_of(&r, 1, &b, &f);
    d = s->v.main_dir;
    x = finding_of(s, EW_MU_CLASSIC_AQM_UNDER_L4S);
    CU_ASSERT_PTR_NOT_NULL_FATAL(x);
    CU_ASSERT_EQUAL(x->dir, d);
    CU_ASSERT_EQUAL(x->confidence, EW_CONF_LIKELY);
    CU_ASSERT_STRING_EQUAL(x->ref, "RFC 9331 §4.3");
    CU_ASSERT_EQUAL(x->count, 4);
    CU_ASSERT_EQUAL(x->first_frame, f->inf->half[d].first_ace_change_frame);
    CU_ASSERT_PTR_NOT_NULL(strstr(x->detail, "#1"));
    CU_ASSERT_TRUE(s->kinds & (1u << EW_MU_CLASSIC_AQM_UNDER_L4S));
    CU_ASSERT_EQUAL(s->path[d].aqm, EW_AQM_CLASSIC_SINGLE);
    CU_ASSERT_PTR_NOT_NULL(s->path[d].note);
    /* applied twice, still one finding */
    ew_bottleneck_apply(&b, f, s);
    {
        size_t i, n = 0;

        for (i = 0; i < s->nf; i++)
            n += s->fnd[i].kind == EW_MU_CLASSIC_AQM_UNDER_L4S;
        CU_ASSERT_EQUAL(n, 1);
    }
    free(s);

    s = summary_of(&r, 0, &b, NULL);
    CU_ASSERT_EQUAL(s->path[s->v.main_dir].aqm, EW_AQM_CLASSIC_SINGLE);
    CU_ASSERT_PTR_NULL(finding_of(s, EW_MU_CLASSIC_AQM_UNDER_L4S));
    free(s);

    findings_of(&r.an, counts);
    CU_ASSERT_EQUAL(counts[EW_MU_CLASSIC_AQM_UNDER_L4S], 1);
    ew_bottlenecks_free(&b);
    ew_analyzer_free(&r.an);
}

static void
test_apply_single_queue_harm(void)
{
    apply_single_queue_harm(false);
    apply_single_queue_harm(true);
}

/* One queue, but the L4S flow marked ten times as often per packet as the
 * classic one (20 in 100 against 2 in 100): not what one classic AQM does
 * to both, so no harm and the L4S flow's AQM is left as concluded; the
 * classic flow's few marks take the shared queue. */
static void
test_apply_single_queue_unlike(void)
{
    struct flowspec fs[2];
    struct ew_bottlenecks b;
    struct ew_flow_summary *s, *t;
    uint64_t counts[EW_MU_MASK_BITS];
    struct run r;
    int k;

    for (k = 0; k < 2; k++) {
        shared_sawtooth(fs, 2, 20);
        fs[0].acc_classic = k == 1;
        run_flows(&r, fs, 2, 0);
        find_one(&r, &b, "single_queue");
        t = summary_of(&r, 1, NULL, NULL);
        s = summary_of(&r, 1, &b, NULL);
        CU_ASSERT_PTR_NULL(finding_of(s, EW_MU_CLASSIC_AQM_UNDER_L4S));
        CU_ASSERT_NOT_EQUAL(s->path[s->v.main_dir].aqm, EW_AQM_CLASSIC_SINGLE);
        CU_ASSERT_EQUAL(s->path[s->v.main_dir].aqm, t->path[t->v.main_dir].aqm);
        free(s);
        free(t);
        s = summary_of(&r, 0, &b, NULL);
        CU_ASSERT_EQUAL(s->path[s->v.main_dir].aqm, EW_AQM_CLASSIC_SINGLE);
        free(s);
        findings_of(&r.an, counts);
        CU_ASSERT_EQUAL(counts[EW_MU_CLASSIC_AQM_UNDER_L4S], 0);
        ew_bottlenecks_free(&b);
        ew_analyzer_free(&r.an);
    }
}

/* A queue each (test_fq): no harm (the L4S flow shares no queue with a
 * classic flow), and each flow's classic AQM, named from its few marks by
 * its bottleneck, is a flow queue's. A flow in no group is left as it was
 * concluded. */
static void
test_apply_fq_and_no_group(void)
{
    struct flowspec fs[3];
    struct ew_bottlenecks b;
    struct ew_flow_summary *s, *t;
    struct run r;
    size_t i;

    two_sawtooths(fs, 3, 6);
    /* a third flow between other hosts, alone */
    fs[2] = spec(true, 40002, 1460 * MS, 20, 4, 1 * MS);
    fs[2].cli = 7;
    run_flows(&r, fs, 3, 0);
    find_one(&r, &b, "fq");
    for (i = 0; i < 2; i++) {
        s = summary_of(&r, i, &b, NULL);
        CU_ASSERT_PTR_NULL(finding_of(s, EW_MU_CLASSIC_AQM_UNDER_L4S));
        CU_ASSERT_EQUAL(s->path[s->v.main_dir].aqm, EW_AQM_FQ_CLASSIC);
        CU_ASSERT_PTR_NOT_NULL(strstr(s->path[s->v.main_dir].reason, "flow queueing"));
        free(s);
    }
    t = summary_of(&r, 2, NULL, NULL);
    s = summary_of(&r, 2, &b, NULL);
    CU_ASSERT_EQUAL(s->nf, t->nf);
    CU_ASSERT_EQUAL(s->kinds, t->kinds);
    CU_ASSERT_EQUAL(s->path[0].aqm, t->path[0].aqm);
    CU_ASSERT_EQUAL(s->path[1].aqm, t->path[1].aqm);
    CU_ASSERT_STRING_EQUAL(s->path[0].reason, t->path[0].reason);
    CU_ASSERT_STRING_EQUAL(s->path[1].reason, t->path[1].reason);
    free(s);
    free(t);
    ew_bottlenecks_free(&b);
    ew_analyzer_free(&r.an);
}

int
ew_test_register_bottleneck(void)
{
    CU_pSuite s = CU_add_suite("bottleneck", NULL, NULL);

    if (!s)
        return -1;
    if (!CU_add_test(s, "DualQ: coupled marking, two delays", test_dualq) ||
        !CU_add_test(s, "packed flows group the same", test_packed_flows_same) ||
        !CU_add_test(s, "single queue: the same delay", test_single_queue) ||
        !CU_add_test(s, "two queues, marking not coupled", test_neither_pattern) ||
        !CU_add_test(s, "queueing delay not measurable", test_delay_not_measurable) ||
        !CU_add_test(s, "not overlapping in time: no group", test_not_overlapping) ||
        !CU_add_test(s, "different hosts: no group", test_different_hosts) ||
        !CU_add_test(s, "one kind only, or too short: no group", test_one_kind_or_too_short) ||
        !CU_add_test(s, "classic with Not-ECT retransmissions",
                     test_classic_retransmission_not_ect) ||
        !CU_add_test(s, "a group of three; only the refs given",
                     test_group_of_three_and_refs) ||
        !CU_add_test(s, "two groups in report order", test_two_groups_in_report_order) ||
        !CU_add_test(s, "flow queueing: delays apart at classic depths", test_fq) ||
        !CU_add_test(s, "a steady delay: unknown, unless a DualQ", test_steady_unknown) ||
        !CU_add_test(s, "a flow without a series: whole flows", test_whole_flows_fallback) ||
        !CU_add_test(s, "never a DualQ without ECT(1) marks",
                     test_never_dualq_without_ect1_marks) ||
        !CU_add_test(s, "never a DualQ within 1 ms", test_never_dualq_within_1ms) ||
        !CU_add_test(s, "apply: a DualQ's classic queue", test_apply_dualq) ||
        !CU_add_test(s, "apply: one queue marked alike, the L4S harm",
                     test_apply_single_queue_harm) ||
        !CU_add_test(s, "apply: one queue marked unlike, no harm",
                     test_apply_single_queue_unlike) ||
        !CU_add_test(s, "apply: flow queues; a flow in no group", test_apply_fq_and_no_group))
        return -1;
    return 0;
}
