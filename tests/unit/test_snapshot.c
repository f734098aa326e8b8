/* test_snapshot.c - the flow table as rows: every row says what its flow's
 * conclusion says (a QUIC flow's verdict from the QUIC rule included), for
 * every flow of every bundled capture; packed flows give the same rows; the
 * live view's filter and sort keys; the budget's even sample; a snapshot
 * built again over a grown and a shrunk table. */
#include <CUnit/CUnit.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/analyze.h"
#include "input/capture.h"
#include "findings/conclude.h"
#include "findings/conclusions.h"
#include "dissectors/dissect.h"
#include "dissectors/ecn.h"
#include "output/snapshot.h"
#include "fixture.h"
#include "suites.h"

/* an analyzer fed a capture; hot is its hot set (0: the default) */
/* a snapshot from a pass of conclusions over an (conclusions.h) of at most
 * budget rows (0: every flow), with what (EW_PASS_*), as the view takes it */
static int
snap_build(struct ew_snapshot *s, const struct ew_analyzer *an, size_t budget, unsigned what)
{
    struct ew_conclusions c = EW_CONCLUSIONS_INIT;
    struct ew_pass_sel sel = {EW_ITER_HELD, 0, budget};
    int rc = ew_analyzer_pass(an, &c, what, &sel);

    if (rc == 0)
        rc = ew_snapshot_build(s, &c);
    ew_conclusions_free(&c);
    return rc;
}

static void
feed_file(struct ew_analyzer *an, const char *path, uint32_t hot)
{
    struct ew_analyzer_cfg cfg = {.max_flows = 4096, .hot_flows = hot, .hash_seed = 7};
    char err[EW_ERRBUF_SIZE];
    struct ew_capture *cap;
    struct ew_frame fr;

    CU_ASSERT_FATAL(ew_capture_open_file(path, NULL, &cap, err, sizeof(err)) == 0);
    CU_ASSERT_FATAL(ew_analyzer_init(an, &cfg) == 0);
    while (ew_capture_next(cap, &fr, err, sizeof(err)) == EW_CAP_FRAME) {
        struct ew_pkt pkt;

        ew_dissect_frame(ew_capture_link(cap), fr.data, fr.caplen, fr.wirelen, &pkt);
        ew_analyzer_frame(an, &pkt, fr.ts_ns);
    }
    ew_capture_close(cap);
}

/* the row says what the flow's conclusion says */
static void
check_row(const struct ew_snap_row *r, const struct ew_flow *f)
{
    static struct ew_flow_summary sum;
    const struct ew_flow_verdict *v = &sum.v;
    int d = ew_snap_list_dir(f), k;

    ew_flow_conclude(f, EW_CONCLUDE_PATH, &sum);
    CU_ASSERT_EQUAL(r->id, f->id);
    CU_ASSERT_EQUAL(r->last_ns, f->last_ns);
    CU_ASSERT(memcmp(&r->key, &f->key, sizeof(r->key)) == 0);
    CU_ASSERT_EQUAL(r->pkts, f->dir[0].packets + f->dir[1].packets);
    CU_ASSERT_EQUAL(r->dir, d);
    CU_ASSERT_EQUAL(r->client_dir, f->client_dir);
    CU_ASSERT_EQUAL(r->verdict, v->verdict);
    CU_ASSERT_EQUAL(r->neg, v->neg);
    CU_ASSERT_EQUAL(r->main_dir, v->main_dir);
    CU_ASSERT_EQUAL(r->nf, sum.nf);
    CU_ASSERT_EQUAL(r->kinds, sum.kinds);
    CU_ASSERT_EQUAL(r->aqm, sum.path[v->main_dir].aqm);
    CU_ASSERT_EQUAL(!!(r->flags & EW_SNAP_QUIC), sum.quic);
    CU_ASSERT_EQUAL(!!(r->flags & EW_SNAP_ENDED), f->ended);
    CU_ASSERT_EQUAL(!!(r->flags & EW_SNAP_NEG_INFERRED), v->neg_inferred);
    CU_ASSERT(r->flags & EW_SNAP_HAS_PATH);
    for (k = 0; k < 2; k++) {
        CU_ASSERT_EQUAL(r->ect1[k], v->dir[k].ect1);
        CU_ASSERT_EQUAL(r->fb[k], v->dir[k].feedback);
    }
    CU_ASSERT(r->ce == (f->dir[d].packets ? (double)f->dir[d].ecn[EW_ECN_CE] /
                                                 (double)f->dir[d].packets : 0));
    CU_ASSERT(r->e1 == (f->dir[d].packets ? (double)f->dir[d].ecn[EW_ECN_ECT_1] /
                                                 (double)f->dir[d].packets : 0));
}

/* rows of a capture's flows, with every flow hot and with a hot set of 1
 * (all but one flow packed): each row is its flow's conclusion, and both
 * tables give the same rows. Returns the rows' QUIC flows. */
static size_t
check_file(const char *path, size_t *rows)
{
    struct ew_snapshot s = EW_SNAPSHOT_INIT, p = EW_SNAPSHOT_INIT;
    struct ew_analyzer an, packed;
    struct ew_flow_room *room = malloc(sizeof(*room));
    struct ew_flowtab_stats st;
    size_t i, quic = 0;

    CU_ASSERT_FATAL(room != NULL);
    feed_file(&an, path, 0);
    feed_file(&packed, path, 1);
    CU_ASSERT_FATAL(snap_build(&s, &an, SIZE_MAX, EW_PASS_PATHS) == 0);
    CU_ASSERT_FATAL(snap_build(&p, &packed, SIZE_MAX, EW_PASS_PATHS) == 0);
    ew_flowtab_get_stats(an.tab, &st);
    CU_ASSERT_EQUAL(s.held, st.in_table);
    CU_ASSERT_EQUAL(s.n, st.in_table);
    CU_ASSERT_EQUAL(s.step, 1);
    CU_ASSERT_EQUAL_FATAL(p.n, s.n);
    for (i = 0; i < s.n; i++) {
        struct ew_snap_row a = s.rows[i], b = p.rows[i];

        check_row(&a, ew_flowtab_view(an.tab, a.ref, room));
        check_row(&b, ew_flowtab_view(packed.tab, b.ref, room));
        if (i > 0)
            CU_ASSERT(s.rows[i - 1].id < a.id); /* by id, as built */
        a.ref = b.ref = 0; /* where a record is kept may differ; nothing else */
        CU_ASSERT(memcmp(&a, &b, sizeof(a)) == 0);
        quic += (a.flags & EW_SNAP_QUIC) != 0;
    }
    if (s.n > 1) {
        ew_flowtab_get_stats(packed.tab, &st);
        CU_ASSERT(st.packed > 0);
    }
    *rows += s.n;
    ew_snapshot_free(&s);
    ew_snapshot_free(&p);
    ew_analyzer_free(&an);
    ew_analyzer_free(&packed);
    free(room);
    return quic;
}

static void
test_captures(void)
{
    const char *pat[] = {"captures/*.pcap", "tests/quic-captures/*.pcap"};
    size_t files = 0, rows = 0, quic = 0;

    for (size_t k = 0; k < 2; k++) {
        glob_t g;

        CU_ASSERT_FATAL(glob(pat[k], 0, NULL, &g) == 0);
        for (size_t i = 0; i < g.gl_pathc; i++, files++)
            quic += check_file(g.gl_pathv[i], &rows);
        globfree(&g);
    }
    CU_ASSERT(files >= 30);
    CU_ASSERT(rows >= files);
    CU_ASSERT(quic >= 4); /* one in each QUIC capture */
}

/* The clean QUIC capture: one UDP flow whose verdict is the QUIC rule's
 * (the Initial packets' ECN validated: classic), not the UDP one. */
static void
test_quic_rule(void)
{
    struct ew_snapshot s = EW_SNAPSHOT_INIT;
    struct ew_flow_verdict udp;
    struct ew_flow_room *room = malloc(sizeof(*room));
    struct ew_analyzer an;
    const struct ew_snap_row *r;

    CU_ASSERT_FATAL(room != NULL);
    feed_file(&an, "tests/quic-captures/ngtcp2-clean-client.pcap", 0);
    CU_ASSERT_FATAL(snap_build(&s, &an, SIZE_MAX, 0) == 0);
    CU_ASSERT_EQUAL_FATAL(s.n, 1);
    r = &s.rows[0];
    CU_ASSERT(r->flags & EW_SNAP_QUIC);
    CU_ASSERT_EQUAL(r->verdict, EW_V_CLASSIC);
    CU_ASSERT_EQUAL(r->key.l4, EW_L4_UDP);
    CU_ASSERT_EQUAL(r->neg, EW_NEG_NA);
    CU_ASSERT_EQUAL(r->nf, 0);
    CU_ASSERT(!(r->flags & EW_SNAP_HAS_PATH));
    /* without the QUIC rule the flow would read otherwise */
    ew_infer_conclude_quiet(ew_flowtab_view(an.tab, r->ref, room), &udp);
    CU_ASSERT_NOT_EQUAL(udp.verdict, EW_V_CLASSIC);
    CU_ASSERT_EQUAL(ew_snapshot_filter(&s, "classic"), 1);
    ew_snapshot_free(&s);
    ew_analyzer_free(&an);
    free(room);
}

/* four flows in this order of ids:
 * 1 TCP 40000, classic ECN: 4 packets, 1 of the client's 3 CE, last at 1004
 * 2 UDP 50000, 5 packets all ECT(1), last at 1010
 * 3 TCP 40001, no ECN: 2 packets, last at 1006
 * 4 UDP 50001, 4 packets of which 1 ECT(1), last at 1008 */
static void
feed(struct ew_analyzer *an, uint32_t max_flows)
{
    struct ew_analyzer_cfg cfg = {.max_flows = max_flows, .hash_seed = 3};
    struct ew_pkt p;
    int i;

    CU_ASSERT_FATAL(ew_analyzer_init(an, &cfg) == 0);
    fx_pkt(&p, EW_L4_TCP, CLI, 40000, EW_TCP_SYN | EW_TCP_ECE | EW_TCP_CWR, 100, 0, EW_ECN_NOT_ECT);
    ew_analyzer_frame(an, &p, 1000);
    fx_pkt(&p, EW_L4_UDP, CLI, 50000, 0, 0, 800, EW_ECN_ECT_1);
    ew_analyzer_frame(an, &p, 1001);
    fx_pkt(&p, EW_L4_TCP, SRV, 40000, EW_TCP_SYN | EW_TCP_ACK | EW_TCP_ECE, 7000, 0,
        EW_ECN_NOT_ECT);
    ew_analyzer_frame(an, &p, 1002);
    fx_pkt(&p, EW_L4_TCP, CLI, 40000, EW_TCP_ACK, 101, 1000, EW_ECN_ECT_0);
    ew_analyzer_frame(an, &p, 1003);
    fx_pkt(&p, EW_L4_TCP, CLI, 40000, EW_TCP_ACK, 1101, 1000, EW_ECN_CE);
    ew_analyzer_frame(an, &p, 1004);
    fx_pkt(&p, EW_L4_TCP, CLI, 40001, EW_TCP_SYN, 500, 0, EW_ECN_NOT_ECT);
    ew_analyzer_frame(an, &p, 1005);
    fx_pkt(&p, EW_L4_TCP, SRV, 40001, EW_TCP_SYN | EW_TCP_ACK, 900, 0, EW_ECN_NOT_ECT);
    ew_analyzer_frame(an, &p, 1006);
    for (i = 0; i < 4; i++) {
        fx_pkt(&p, EW_L4_UDP, CLI, 50001, 0, 0, 100, i ? EW_ECN_ECT_0 : EW_ECN_ECT_1);
        ew_analyzer_frame(an, &p, 1007 + (i == 3));
    }
    for (i = 0; i < 4; i++) {
        fx_pkt(&p, EW_L4_UDP, CLI, 50000, 0, 0, 800, EW_ECN_ECT_1);
        ew_analyzer_frame(an, &p, 1009 + (i == 3));
    }
}

/* the ids of the rows, in their order, as "1 2 3" */
static const char *
ids(const struct ew_snapshot *s)
{
    static char buf[128];
    size_t i, len = 0;

    buf[0] = '\0';
    for (i = 0; i < s->n && len < sizeof(buf); i++)
        len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%s%llu", i ? " " : "",
                                (unsigned long long)s->rows[i].id);
    return buf;
}

/* build, filter with text, sort by key: the ids in order */
static const char *
listed(struct ew_snapshot *s, const struct ew_analyzer *an, const char *text,
       enum ew_snap_sort key)
{
    CU_ASSERT_FATAL(snap_build(s, an, SIZE_MAX, 0) == 0);
    ew_snapshot_filter(s, text);
    ew_snapshot_sort(s, key);
    return ids(s);
}

static void
test_sort(void)
{
    struct ew_snapshot s = EW_SNAPSHOT_INIT;
    struct ew_analyzer an;

    feed(&an, 16);
    CU_ASSERT_STRING_EQUAL(listed(&s, &an, "", EW_SNAP_SORT_ID), "1 2 3 4");
    CU_ASSERT_STRING_EQUAL(listed(&s, &an, "", EW_SNAP_SORT_PACKETS), "2 1 4 3");
    /* flow 1's data direction: 1 CE of 3 client packets; the rest none */
    CU_ASSERT_STRING_EQUAL(listed(&s, &an, "", EW_SNAP_SORT_CE), "1 2 3 4");
    CU_ASSERT_STRING_EQUAL(listed(&s, &an, "", EW_SNAP_SORT_ECT1), "2 4 1 3");
    CU_ASSERT_STRING_EQUAL(listed(&s, &an, "", EW_SNAP_SORT_RECENT), "2 4 3 1");
    /* out of range: by id */
    CU_ASSERT_STRING_EQUAL(listed(&s, &an, "", EW_SNAP_SORT_COUNT), "1 2 3 4");
    ew_snapshot_free(&s);
    ew_analyzer_free(&an);
}

static void
test_filter(void)
{
    struct ew_snapshot s = EW_SNAPSHOT_INIT;
    struct ew_analyzer an;
    char ends[128];
    size_t i;

    feed(&an, 16);
    CU_ASSERT_STRING_EQUAL(listed(&s, &an, "udp", EW_SNAP_SORT_ID), "2 4");
    CU_ASSERT_STRING_EQUAL(listed(&s, &an, "tcp", EW_SNAP_SORT_PACKETS), "1 3");
    CU_ASSERT_STRING_EQUAL(listed(&s, &an, "10.0.0.9:40001>", EW_SNAP_SORT_ID), "3");
    CU_ASSERT_STRING_EQUAL(listed(&s, &an, ">10.0.0.1:80", EW_SNAP_SORT_ID), "1 2 3 4");
    CU_ASSERT_STRING_EQUAL(listed(&s, &an, "rfc3168", EW_SNAP_SORT_ID), "1");
    CU_ASSERT_STRING_EQUAL(listed(&s, &an, "udp", EW_SNAP_SORT_RECENT), "2 4");
    CU_ASSERT_STRING_EQUAL(listed(&s, &an, "no such flow", EW_SNAP_SORT_ID), "");
    CU_ASSERT_EQUAL(s.n, 0);
    CU_ASSERT_EQUAL(s.held, 4); /* a filter keeps fewer rows, not fewer flows */

    /* every row matches its own words, in the order the filter reads them */
    CU_ASSERT_FATAL(snap_build(&s, &an, SIZE_MAX, 0) == 0);
    for (i = 0; i < s.n; i++) {
        const struct ew_snap_row *r = &s.rows[i];
        char hay[256];

        ew_snap_endpoints(r, ends, sizeof(ends));
        snprintf(hay, sizeof(hay), "%s %s %s %s", ends, r->key.l4 == EW_L4_TCP ? "tcp" : "udp",
                 ew_neg_name[r->neg], ew_verdict_name[r->verdict]);
        CU_ASSERT(ew_snap_row_matches(r, hay));
        CU_ASSERT(ew_snap_row_matches(r, ""));
        CU_ASSERT(!ew_snap_row_matches(r, "UDP")); /* the text is in lower case */
    }
    ew_snap_endpoints(&s.rows[0], ends, sizeof(ends));
    CU_ASSERT_STRING_EQUAL(ends, "10.0.0.9:40000>10.0.0.1:80");
    ew_snapshot_free(&s);
    ew_analyzer_free(&an);
}

/* more flows than the budget: every k-th by id; the allocation is kept
 * while the table's size stays near it */
/* the rates between two takes of the counters: per second of the takes'
 * clock, a new flow counted from zero, unknown (-1) without two takes or
 * for a flow newer than the last take; sorting by rate puts the busiest
 * first */
static const struct ew_snap_row *
row_of(const struct ew_snapshot *s, uint64_t id)
{
    size_t i;

    for (i = 0; i < s->n; i++)
        if (s->rows[i].id == id)
            return &s->rows[i];
    return NULL;
}

static void
test_rates(void)
{
    struct ew_snapshot s = EW_SNAPSHOT_INIT;
    struct ew_snap_counts a = EW_SNAP_COUNTS_INIT, b = EW_SNAP_COUNTS_INIT;
    const struct ew_snap_row *r;
    struct ew_analyzer an;
    struct ew_pkt p;
    uint64_t bytes2 = 0;
    size_t i;

    feed(&an, 16);
    CU_ASSERT_FATAL(ew_snap_counts_take(&a, &an, 1000000000) == 0);
    CU_ASSERT_EQUAL(a.n, 4);
    CU_ASSERT_EQUAL(a.pkts, an.tot.ip_packets);
    CU_ASSERT_FATAL(snap_build(&s, &an, SIZE_MAX, 0) == 0);
    ew_snapshot_rates(&s, &b, &a); /* b not taken: no rates */
    for (i = 0; i < s.n; i++)
        CU_ASSERT(s.rows[i].bps < 0 && s.rows[i].pps < 0);
    for (i = 0; i < a.n; i++)
        if (a.c[i].id == 2)
            bytes2 = a.c[i].bytes;
    CU_ASSERT(bytes2 > 0);
    /* two seconds later: 10 more datagrams on flow 2, a new flow 5 */
    for (i = 0; i < 10; i++) {
        fx_pkt(&p, EW_L4_UDP, CLI, 50000, 0, 0, 800, EW_ECN_ECT_1);
        ew_analyzer_frame(&an, &p, 2000);
    }
    fx_pkt(&p, EW_L4_UDP, CLI, 50002, 0, 0, 100, EW_ECN_ECT_0);
    ew_analyzer_frame(&an, &p, 2001);
    CU_ASSERT_FATAL(ew_snap_counts_take(&b, &an, 3000000000) == 0);
    /* and a flow 6 after the take */
    fx_pkt(&p, EW_L4_UDP, CLI, 50003, 0, 0, 100, EW_ECN_ECT_0);
    ew_analyzer_frame(&an, &p, 2002);
    CU_ASSERT_FATAL(snap_build(&s, &an, SIZE_MAX, 0) == 0);
    ew_snapshot_rates(&s, &a, &b);
    r = row_of(&s, 2);
    CU_ASSERT_FATAL(r != NULL);
    CU_ASSERT_DOUBLE_EQUAL(r->pps, 5.0, 1e-6);
    CU_ASSERT_DOUBLE_EQUAL(r->bps, (double)(r->bytes - bytes2) * 8 / 2, 1e-3);
    CU_ASSERT(r->bps > 0);
    r = row_of(&s, 1);
    CU_ASSERT_FATAL(r != NULL);
    CU_ASSERT(r->bps == 0 && r->pps == 0);
    r = row_of(&s, 5);
    CU_ASSERT_FATAL(r != NULL);
    CU_ASSERT_DOUBLE_EQUAL(r->pps, 0.5, 1e-6);
    CU_ASSERT_DOUBLE_EQUAL(r->bps, (double)r->bytes * 8 / 2, 1e-3);
    r = row_of(&s, 6);
    CU_ASSERT_FATAL(r != NULL);
    CU_ASSERT(r->bps < 0);
    ew_snapshot_sort(&s, EW_SNAP_SORT_RATE);
    CU_ASSERT_EQUAL(s.rows[0].id, 2);
    CU_ASSERT_EQUAL(s.rows[1].id, 5);
    CU_ASSERT_EQUAL(s.rows[s.n - 1].id, 6);
    ew_snap_counts_free(&a);
    ew_snap_counts_free(&b);
    ew_snapshot_free(&s);
    ew_analyzer_free(&an);
}

static void
test_budget(void)
{
    struct ew_snapshot s = EW_SNAPSHOT_INIT;
    struct ew_snap_row *rows;
    struct ew_analyzer an;

    feed(&an, 16);
    CU_ASSERT_FATAL(snap_build(&s, &an, 2, 0) == 0);
    CU_ASSERT_EQUAL(s.held, 4);
    CU_ASSERT_EQUAL(s.step, 2);
    CU_ASSERT_STRING_EQUAL(ids(&s), "1 3");
    CU_ASSERT_FATAL(snap_build(&s, &an, 3, 0) == 0);
    CU_ASSERT_EQUAL(s.step, 2);
    CU_ASSERT_STRING_EQUAL(ids(&s), "1 3");
    CU_ASSERT_FATAL(snap_build(&s, &an, 1, 0) == 0);
    CU_ASSERT_EQUAL(s.step, 4);
    CU_ASSERT_STRING_EQUAL(ids(&s), "1");
    CU_ASSERT_FATAL(snap_build(&s, &an, 0, 0) == 0); /* 0: every flow */
    CU_ASSERT_EQUAL(s.step, 1);
    CU_ASSERT_STRING_EQUAL(ids(&s), "1 2 3 4");
    rows = s.rows;
    CU_ASSERT_FATAL(snap_build(&s, &an, SIZE_MAX, 0) == 0);
    CU_ASSERT_EQUAL(s.step, 1);
    CU_ASSERT_STRING_EQUAL(ids(&s), "1 2 3 4");
    CU_ASSERT(s.rows == rows); /* rebuilt in place */
    CU_ASSERT(s.cap >= s.n);
    ew_analyzer_free(&an);

    /* an empty table: no rows, and no error */
    {
        struct ew_analyzer_cfg cfg = {.max_flows = 16, .hash_seed = 3};

        CU_ASSERT_FATAL(ew_analyzer_init(&an, &cfg) == 0);
        CU_ASSERT_FATAL(snap_build(&s, &an, SIZE_MAX, 0) == 0);
        CU_ASSERT_EQUAL(s.n, 0);
        CU_ASSERT_EQUAL(s.held, 0);
        ew_analyzer_free(&an);
    }
    ew_snapshot_free(&s);
    CU_ASSERT(s.rows == NULL && s.cap == 0);
    ew_snapshot_free(&s); /* twice is harmless */
}

/* a table of many flows, then of few: the rows follow it */
static void
test_grow_shrink(void)
{
    struct ew_analyzer_cfg cfg = {.max_flows = 4096, .hash_seed = 5};
    struct ew_snapshot s = EW_SNAPSHOT_INIT;
    struct ew_analyzer an;
    struct ew_pkt p;
    int i;

    CU_ASSERT_FATAL(ew_analyzer_init(&an, &cfg) == 0);
    for (i = 0; i < 3000; i++) {
        fx_pkt(&p, EW_L4_UDP, CLI, (uint16_t)(10000 + i), 0, 0, 100, (uint8_t)(i % 4));
        ew_analyzer_frame(&an, &p, 1000 + i);
    }
    CU_ASSERT_FATAL(snap_build(&s, &an, SIZE_MAX, 0) == 0);
    CU_ASSERT_EQUAL(s.n, 3000);
    CU_ASSERT(s.cap >= 3000 && s.cap <= 3000 * 2);
    ew_snapshot_sort(&s, EW_SNAP_SORT_ECT1);
    CU_ASSERT_EQUAL(s.rows[0].id, 2); /* the first of the ECT(1) ones (i % 4 == 1) */
    CU_ASSERT(s.rows[0].e1 == 1.0);
    CU_ASSERT(s.rows[749].e1 == 1.0 && s.rows[750].e1 == 0.0);
    CU_ASSERT_EQUAL(ew_snapshot_filter(&s, ":10007>"), 1);
    ew_analyzer_free(&an);

    feed(&an, 16);
    CU_ASSERT_FATAL(snap_build(&s, &an, SIZE_MAX, 0) == 0);
    CU_ASSERT_EQUAL(s.n, 4);
    CU_ASSERT(s.cap < 100); /* given back */
    ew_snapshot_free(&s);
    ew_analyzer_free(&an);
}

/* A flow whose packets came through a tunnel says its outermost
 * encapsulation (the live view's TUN column); others say none. UDP 50000
 * in Geneve inside GRE, UDP 50001 plain. */
static void
test_tunnel(void)
{
    struct ew_analyzer an;
    struct ew_analyzer_cfg cfg = {.max_flows = 8, .hash_seed = 3};
    struct ew_snapshot s = EW_SNAPSHOT_INIT;
    struct ew_pkt p;
    size_t i, seen = 0;

    CU_ASSERT_FATAL(ew_analyzer_init(&an, &cfg) == 0);
    fx_pkt(&p, EW_L4_UDP, CLI, 50000, 0, 0, 800, EW_ECN_ECT_1);
    p.n_encap = 2;
    memset(p.encap, 0, sizeof(p.encap));
    p.encap[0].type = EW_TUN_GRE;
    p.encap[0].family = 4;
    p.encap[1].type = EW_TUN_GENEVE;
    p.encap[1].family = 4;
    p.encap[1].ecn = EW_ECN_ECT_1;
    ew_analyzer_frame(&an, &p, 1000);
    fx_pkt(&p, EW_L4_UDP, CLI, 50001, 0, 0, 800, EW_ECN_ECT_0);
    ew_analyzer_frame(&an, &p, 1001);
    CU_ASSERT_FATAL(snap_build(&s, &an, 0, 0) == 0);
    CU_ASSERT_EQUAL(s.n, 2);
    for (i = 0; i < s.n; i++) {
        if (s.rows[i].key.port_lo == 50000 || s.rows[i].key.port_hi == 50000) {
            CU_ASSERT_EQUAL(s.rows[i].tun, EW_TUN_GRE + 1);
            seen |= 1;
        } else {
            CU_ASSERT_EQUAL(s.rows[i].tun, 0);
            seen |= 2;
        }
    }
    CU_ASSERT_EQUAL(seen, 3);
    ew_snapshot_free(&s);
    ew_analyzer_free(&an);
}

int
ew_test_register_snapshot(void)
{
    CU_pSuite s = CU_add_suite("snapshot", NULL, NULL);

    if (!s || !CU_add_test(s, "rows are their flows' conclusions, packed or not", test_captures) ||
        !CU_add_test(s, "a QUIC flow's row has the QUIC rule's verdict", test_quic_rule) ||
        !CU_add_test(s, "the live list's sort keys", test_sort) ||
        !CU_add_test(s, "the live list's filter", test_filter) ||
        !CU_add_test(s, "rates between two takes of the counters", test_rates) ||
        !CU_add_test(s, "more flows than the budget: an even sample", test_budget) ||
        !CU_add_test(s, "the rows follow the table's size", test_grow_shrink) ||
        !CU_add_test(s, "a tunnelled flow names its tunnel", test_tunnel))
        return -1;
    return 0;
}
