/* test_flowtab.c - the flow table: one flow for both directions, the cap and
 * its counted evictions, idle expiry on packet time, seed independence. */
#include <CUnit/CUnit.h>
#include <stdlib.h>
#include <string.h>

#include "flow/flowtab.h"
#include "infer/infer.h"
#include "fixture.h"
#include "suites.h"

static void
make_pkt(struct ew_pkt *p, uint32_t src4, uint16_t sport, uint32_t dst4, uint16_t dport)
{
    const struct fx_hosts h = {.family = 4, .cli = src4, .srv = dst4, .cport = sport, .sport = dport};

    fx_tcp(p, &h, CLI, 0, 0, 0, 0, 0);
}

/* the hot set of the tables the tests make: 0 for the table's own, or 1 so
 * that every flow but the last touched is packed and unpacked */
static uint32_t hot;

static struct ew_flowtab *
newtab(uint32_t max_flows, uint64_t seed, int64_t idle_ns, ew_flow_evict_fn cb, void *arg)
{
    struct ew_flowtab *t = ew_flowtab_new(max_flows, seed, idle_ns, cb, arg, &ew_infer_state);

    if (t && hot && ew_flowtab_set_hot(t, hot) != 0) {
        ew_flowtab_free(t);
        return NULL;
    }
    return t;
}

static void
test_both_directions_one_flow(void)
{
    struct ew_pkt a, b;
    struct ew_flow_key ka, kb;
    int da, db;
    struct ew_flowtab *t = newtab(16, 1, 0, NULL, NULL);
    struct ew_flow *fa, *fb;
    bool created;

    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    make_pkt(&a, 0x0a000001, 40000, 0x0a000002, 5201);
    make_pkt(&b, 0x0a000002, 5201, 0x0a000001, 40000);
    da = ew_flow_key_from_pkt(&a, &ka);
    db = ew_flow_key_from_pkt(&b, &kb);
    CU_ASSERT_EQUAL(memcmp(&ka, &kb, sizeof(ka)), 0);
    CU_ASSERT_NOT_EQUAL(da, db);
    fa = ew_flowtab_get(t, &ka, 0, &created);
    CU_ASSERT_TRUE(created);
    fb = ew_flowtab_get(t, &kb, 1, &created);
    CU_ASSERT_FALSE(created);
    CU_ASSERT_PTR_EQUAL(fa, fb);
    CU_ASSERT_EQUAL(fa->id, 1);
    ew_flowtab_free(t);
}

static void
test_same_addrs_other_port_other_flow(void)
{
    struct ew_pkt a, b;
    struct ew_flow_key ka, kb;

    make_pkt(&a, 0x0a000001, 40000, 0x0a000002, 5201);
    make_pkt(&b, 0x0a000001, 40001, 0x0a000002, 5201);
    ew_flow_key_from_pkt(&a, &ka);
    ew_flow_key_from_pkt(&b, &kb);
    CU_ASSERT_NOT_EQUAL(memcmp(&ka, &kb, sizeof(ka)), 0);
    /* the same pair with the ports swapped between the ends is another flow too */
    make_pkt(&b, 0x0a000001, 5201, 0x0a000002, 40000);
    ew_flow_key_from_pkt(&b, &kb);
    CU_ASSERT_NOT_EQUAL(memcmp(&ka, &kb, sizeof(ka)), 0);
}

struct evict_log {
    unsigned n;
    uint64_t ids[64];
};

static void
on_evict(void *arg, const struct ew_flow *f)
{
    struct evict_log *l = arg;

    if (l->n < 64)
        l->ids[l->n] = f->id;
    l->n++;
}

static void
test_cap_evicts_least_recent_and_counts(void)
{
    struct evict_log log = {0};
    struct ew_flowtab *t = newtab(4, 7, 0, on_evict, &log);
    struct ew_flowtab_stats st;
    struct ew_flow_key k[6];
    struct ew_flow *f;
    bool created;
    int i;

    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    for (i = 0; i < 6; i++) {
        struct ew_pkt p;

        make_pkt(&p, 0x0a000001, (uint16_t)(1000 + i), 0x0a000002, 80);
        ew_flow_key_from_pkt(&p, &k[i]);
    }
    for (i = 0; i < 4; i++)
        ew_flowtab_get(t, &k[i], i, &created);
    /* flow 1 (k[0]) becomes the most recent: flow 2 is now the least recent */
    f = ew_flowtab_get(t, &k[0], 10, &created);
    CU_ASSERT_FALSE(created);
    ew_flowtab_touch(t, f);
    ew_flowtab_get(t, &k[4], 11, &created);
    CU_ASSERT_TRUE(created);
    CU_ASSERT_EQUAL(log.n, 1);
    CU_ASSERT_EQUAL(log.ids[0], 2);
    ew_flowtab_get(t, &k[5], 12, &created);
    CU_ASSERT_EQUAL(log.n, 2);
    CU_ASSERT_EQUAL(log.ids[1], 3);
    ew_flowtab_get_stats(t, &st);
    CU_ASSERT_EQUAL(st.created, 6);
    CU_ASSERT_EQUAL(st.evicted, 2);
    CU_ASSERT_EQUAL(st.in_table, 4);
    CU_ASSERT_EQUAL(st.live, 4);
    /* the survivors are still found, the evicted are new flows */
    f = ew_flowtab_get(t, &k[0], 13, &created);
    CU_ASSERT_FALSE(created);
    CU_ASSERT_EQUAL(f->id, 1);
    f = ew_flowtab_get(t, &k[1], 14, &created);
    CU_ASSERT_TRUE(created);
    CU_ASSERT_EQUAL(f->id, 7);
    ew_flowtab_free(t);
}

static void
test_idle_expiry_on_packet_time(void)
{
    struct ew_flowtab *t = newtab(8, 3, 1000, NULL, NULL);
    struct ew_flowtab_stats st;
    struct ew_flow_key k;
    struct ew_pkt p;
    struct ew_flow *f;
    bool created;

    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    make_pkt(&p, 0x0a000001, 1, 0x0a000002, 2);
    ew_flow_key_from_pkt(&p, &k);
    f = ew_flowtab_get(t, &k, 0, &created);
    f->last_ns = 0;
    f = ew_flowtab_get(t, &k, 1000, &created); /* exactly the timeout: still live */
    CU_ASSERT_FALSE(created);
    f->last_ns = 1000;
    f = ew_flowtab_get(t, &k, 2001, &created); /* idle past it: a new flow */
    CU_ASSERT_TRUE(created);
    CU_ASSERT_EQUAL(f->id, 2);
    ew_flowtab_get_stats(t, &st);
    CU_ASSERT_EQUAL(st.expired, 1);
    CU_ASSERT_EQUAL(st.in_table, 2); /* the ended flow stays for the report */
    CU_ASSERT_EQUAL(st.live, 1);
    /* a sweep ends idle flows too */
    f->last_ns = 2001;
    CU_ASSERT_EQUAL(ew_flowtab_expire(t, 2500, 10), 0);
    CU_ASSERT_EQUAL(ew_flowtab_expire(t, 3002, 10), 1);
    ew_flowtab_get_stats(t, &st);
    CU_ASSERT_EQUAL(st.live, 0);
    CU_ASSERT_EQUAL(st.expired, 2);
    ew_flowtab_free(t);
}

/* Many flows through a small table with deletions: every live key must stay
 * findable (exercises backward-shift deletion), whatever the seed. */
static void
test_index_consistency_under_churn(void)
{
    uint64_t seeds[3] = {0, 1, 0xdeadbeefcafef00dULL};
    int s;

    for (s = 0; s < 3; s++) {
        struct ew_flowtab *t = newtab(64, seeds[s], 0, NULL, NULL);
        struct ew_flowtab_stats st;
        uint32_t i;
        bool created;

        CU_ASSERT_PTR_NOT_NULL_FATAL(t);
        for (i = 0; i < 5000; i++) {
            struct ew_pkt p;
            struct ew_flow_key k;
            struct ew_flow *f;

            make_pkt(&p, 0x0a000000 + (i % 97), (uint16_t)(i * 7), 0x0a100000, 443);
            ew_flow_key_from_pkt(&p, &k);
            f = ew_flowtab_get(t, &k, i, &created);
            ew_flowtab_touch(t, f);
            CU_ASSERT_EQUAL(memcmp(&f->key, &k, sizeof(k)), 0);
            /* the 64 most recent keys must all still be found */
            if (i >= 64 && i % 500 == 0) {
                uint32_t j;

                for (j = i - 63; j <= i; j++) {
                    struct ew_flow *g;

                    make_pkt(&p, 0x0a000000 + (j % 97), (uint16_t)(j * 7), 0x0a100000, 443);
                    ew_flow_key_from_pkt(&p, &k);
                    g = ew_flowtab_get(t, &k, i, &created);
                    CU_ASSERT_FALSE(created);
                    (void)g;
                }
            }
        }
        ew_flowtab_get_stats(t, &st);
        CU_ASSERT_EQUAL(st.in_table, 64);
        CU_ASSERT_EQUAL(st.created, st.evicted + 64);
        ew_flowtab_free(t);
    }
}

static void
test_list_in_id_order(void)
{
    struct ew_flowtab *t = newtab(3, 99, 0, NULL, NULL);
    static struct ew_flow_room room;
    uint32_t refs[3];
    size_t n;
    int i;
    bool created;

    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    for (i = 0; i < 5; i++) {
        struct ew_pkt p;
        struct ew_flow_key k;

        make_pkt(&p, 0x0a000001, (uint16_t)(100 + i), 0x0a000002, 80);
        ew_flow_key_from_pkt(&p, &k);
        ew_flowtab_get(t, &k, i, &created);
    }
    n = ew_flowtab_refs(t, refs, 3, false);
    CU_ASSERT_EQUAL_FATAL(n, 3);
    CU_ASSERT_EQUAL(ew_flowtab_view(t, refs[0], &room)->id, 3);
    CU_ASSERT_EQUAL(ew_flowtab_view(t, refs[1], &room)->id, 4);
    CU_ASSERT_EQUAL(ew_flowtab_view(t, refs[2], &room)->id, 5);
    ew_flowtab_free(t);
}

static void
test_bad_sizes_refused(void)
{
    struct ew_flowtab *t = ew_flowtab_new(4, 0, 0, NULL, NULL, &ew_infer_state);
    struct ew_flow_key k;
    struct ew_pkt p;
    bool created;

    CU_ASSERT_PTR_NULL(ew_flowtab_new(0, 0, 0, NULL, NULL, &ew_infer_state));
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    CU_ASSERT_EQUAL(ew_flowtab_set_hot(t, 0), -1);
    CU_ASSERT_EQUAL(ew_flowtab_set_hot(t, 9), 0); /* more than the table holds: its size */
    make_pkt(&p, 0x0a000001, 1, 0x0a000002, 2);
    ew_flow_key_from_pkt(&p, &k);
    ew_flowtab_get(t, &k, 0, &created);
    CU_ASSERT_EQUAL(ew_flowtab_set_hot(t, 2), -1); /* flows exist */
    ew_flowtab_free(t);
}

/* Flows packed out of the hot set come back as they were, record and
 * inference state; a view reads a packed flow without changing the table;
 * an evicted or ended packed flow is whole in its callback. */
static void
test_packed_flows_whole(void)
{
    struct evict_log log = {0};
    struct ew_flowtab *t = ew_flowtab_new(6, 5, 100, on_evict, &log, &ew_infer_state);
    static struct ew_flow_room room;
    struct ew_flowtab_stats st, st2;
    struct ew_flow_key k[7];
    struct ew_flow *f;
    uint32_t refs[6];
    bool created;
    int i, round;

    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    CU_ASSERT_EQUAL_FATAL(ew_flowtab_set_hot(t, 2), 0);
    for (i = 0; i < 7; i++) {
        struct ew_pkt p;

        make_pkt(&p, 0x0a000001, (uint16_t)(2000 + i), 0x0a000002, 443);
        ew_flow_key_from_pkt(&p, &k[i]);
    }
    for (round = 1; round <= 3; round++)
        for (i = 0; i < 6; i++) {
            f = ew_flowtab_get(t, &k[i], round * 10 + i, &created);
            CU_ASSERT_EQUAL(created, round == 1);
            CU_ASSERT_EQUAL(memcmp(&f->key, &k[i], sizeof(k[i])), 0);
            CU_ASSERT_EQUAL(f->id, (uint64_t)i + 1);
            CU_ASSERT_EQUAL(f->dir[1].packets,
                            round > 1 ? (uint64_t)(round - 1) * 1000 + (uint64_t)i : 0);
            CU_ASSERT_EQUAL(f->inf->half[0].ce_seen,
                            round > 1 ? (uint32_t)(round - 1) * 7 + (uint32_t)i : 0);
            CU_ASSERT_EQUAL(f->inf->kind_ecn[1][EW_SEG_DATA][3], (uint32_t)(round - 1));
            CU_ASSERT_EQUAL(f->inf->half[1].first_ce_frame, round > 1 ? 900000000000ull + (uint64_t)i : 0);
            if (!created)
                ew_flowtab_touch(t, f);
            f->last_ns = round * 10 + i;
            f->dir[1].packets = (uint64_t)round * 1000 + (uint64_t)i;
            f->inf->half[0].ce_seen = (uint32_t)round * 7 + (uint32_t)i;
            f->inf->kind_ecn[1][EW_SEG_DATA][3] = (uint32_t)round;
            f->inf->half[1].first_ce_frame = 900000000000ull + (uint64_t)i;
        }
    ew_flowtab_get_stats(t, &st);
    CU_ASSERT(st.packed >= 12 && st.unpacked >= 12);
    /* views: every flow as it was, and the table unchanged */
    CU_ASSERT_EQUAL_FATAL(ew_flowtab_refs(t, refs, 6, false), 6);
    for (i = 0; i < 6; i++) {
        const struct ew_flow *g = ew_flowtab_view(t, refs[i], &room);

        CU_ASSERT_EQUAL(g->id, (uint64_t)i + 1);
        CU_ASSERT_EQUAL(g->dir[1].packets, 3000 + (uint64_t)i);
        CU_ASSERT_EQUAL(g->inf->half[0].ce_seen, 21 + (uint32_t)i);
    }
    ew_flowtab_get_stats(t, &st2);
    CU_ASSERT_EQUAL(st2.packed, st.packed);
    CU_ASSERT_EQUAL(st2.unpacked, st.unpacked);
    /* a seventh flow evicts the least recent (flow 1, packed), whole */
    ew_flowtab_get(t, &k[6], 40, &created);
    CU_ASSERT_TRUE(created);
    CU_ASSERT_EQUAL_FATAL(log.n, 1);
    CU_ASSERT_EQUAL(log.ids[0], 1);
    /* idle: the sweep ends flows 2 to 6, packed or not; ended, they are held */
    CU_ASSERT_EQUAL(ew_flowtab_expire(t, 137, 10), 5);
    CU_ASSERT_EQUAL(ew_flowtab_refs(t, refs, 6, true), 1);
    CU_ASSERT_EQUAL(ew_flowtab_refs(t, refs, 6, false), 6);
    for (i = 0; i < 6; i++) {
        const struct ew_flow *g = ew_flowtab_view(t, refs[i], &room);

        CU_ASSERT_EQUAL(g->ended, i < 5);
        CU_ASSERT_EQUAL(g->id, (uint64_t)i + 2);
    }
    ew_flowtab_free(t);
}

static int
hot_one(void)
{
    hot = 1;
    return 0;
}

static int
hot_default(void)
{
    hot = 0;
    return 0;
}

int
ew_test_register_flowtab(void)
{
    /* the same tests with the table's hot set, then with one flow hot */
    const char *names[2] = {"flowtab", "flowtab, one flow hot, the others packed"};
    int (*init[2])(void) = {hot_default, hot_one};

    for (int i = 0; i < 2; i++) {
        CU_pSuite s = CU_add_suite(names[i], init[i], NULL);

        if (!s)
            return -1;
        if (!CU_add_test(s, "both directions map to one flow", test_both_directions_one_flow) ||
            !CU_add_test(s, "other ports are other flows", test_same_addrs_other_port_other_flow) ||
            !CU_add_test(s, "cap evicts least recent, counted",
                         test_cap_evicts_least_recent_and_counts) ||
            !CU_add_test(s, "idle expiry on packet time", test_idle_expiry_on_packet_time) ||
            !CU_add_test(s, "index consistent under churn", test_index_consistency_under_churn) ||
            !CU_add_test(s, "list in id order", test_list_in_id_order))
            return -1;
    }
    {
        CU_pSuite s = CU_add_suite("flowtab, hot set", NULL, NULL);

        if (!s || !CU_add_test(s, "bad sizes refused", test_bad_sizes_refused) ||
            !CU_add_test(s, "packed flows come back whole", test_packed_flows_whole))
            return -1;
    }
    return 0;
}
