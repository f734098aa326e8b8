/* test_pack.c - packing a flow and unpacking it gives the same bytes: every
 * flow of every bundled capture, and records of random words with times and
 * frames at the edges of the relative encoding; bytes cut short or run on
 * are refused. */
#include <CUnit/CUnit.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/analyze.h"
#include "input/capture.h"
#include "dissectors/dissect.h"
#include "flow/pack.h"
#include "suites.h"

static uint8_t buf[EW_PACK_MAX + 16];

/* pack f, unpack into a record with f's key, and compare; also the same
 * bytes one short and one long. Returns the packed length. */
static size_t
round_trip(const struct ew_flow *f)
{
    static struct ew_flow g;
    static struct ew_infer inf;
    size_t len = ew_flow_pack(&ew_infer_state, f, buf);

    CU_ASSERT_FATAL(len >= 1 && len <= EW_PACK_MAX);
    memset(&g, 0xa5, sizeof(g));
    memset(&inf, 0x5a, sizeof(inf));
    g.key = f->key;
    CU_ASSERT_FATAL(ew_flow_unpack(&ew_infer_state, buf, len, &g, &inf));
    if (f->inf == &ew_infer_none) {
        CU_ASSERT(g.inf == &ew_infer_none);
    } else {
        CU_ASSERT_FATAL(g.inf == &inf);
        CU_ASSERT(memcmp(&inf, f->inf, sizeof(inf)) == 0);
        g.inf = f->inf;
    }
    CU_ASSERT(memcmp(&g, f, sizeof(g)) == 0);
    CU_ASSERT(!ew_flow_unpack(&ew_infer_state, buf, len - 1, &g, &inf));
    buf[len] = 0;
    CU_ASSERT(!ew_flow_unpack(&ew_infer_state, buf, len + 1, &g, &inf));
    return len;
}

static void
test_captures(void)
{
    const char *pat[] = {"captures/*.pcap", "tests/quic-captures/*.pcap"};
    size_t files = 0, flows = 0, tcp = 0, packed = 0;

    for (size_t p = 0; p < 2; p++) {
        glob_t g;

        CU_ASSERT_FATAL(glob(pat[p], 0, NULL, &g) == 0);
        for (size_t i = 0; i < g.gl_pathc; i++) {
            struct ew_analyzer_cfg cfg = {.max_flows = 4096, .hash_seed = 7};
            struct ew_analyzer an;
            struct ew_flowtab_stats st;
            char err[EW_ERRBUF_SIZE];
            struct ew_capture *cap;
            struct ew_frame fr;
            static struct ew_flow_room room;
            uint32_t *refs;
            size_t n;

            CU_ASSERT_FATAL(ew_capture_open_file(g.gl_pathv[i], NULL, &cap, err, sizeof(err)) == 0);
            CU_ASSERT_FATAL(ew_analyzer_init(&an, &cfg) == 0);
            while (ew_capture_next(cap, &fr, err, sizeof(err)) == EW_CAP_FRAME) {
                struct ew_pkt pkt;

                ew_dissect_frame(ew_capture_link(cap), fr.data, fr.caplen, fr.wirelen, &pkt);
                ew_analyzer_frame(&an, &pkt, fr.ts_ns);
            }
            ew_capture_close(cap);
            ew_flowtab_get_stats(an.tab, &st);
            refs = calloc(st.in_table + 1, sizeof(*refs));
            CU_ASSERT_FATAL(refs != NULL);
            n = ew_flowtab_refs(an.tab, refs, st.in_table, false);
            for (size_t k = 0; k < n; k++) {
                const struct ew_flow *f = ew_flowtab_view(an.tab, refs[k], &room);

                packed += round_trip(f);
                tcp += f->inf != &ew_infer_none;
            }
            flows += n;
            files++;
            free(refs);
            ew_analyzer_free(&an);
        }
        globfree(&g);
    }
    CU_ASSERT(files >= 30);
    CU_ASSERT(tcp >= 30 && flows > tcp);
    /* the point of it: a TCP flow's 1,664 bytes in a few hundred */
    CU_ASSERT(packed / flows < 512);
}

/* a generator of the same words on every run */
static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint64_t
next(void)
{
    return ew_test_next(&rng);
}

/* words of the given chance (in 16ths) of being zero, of any size */
static void
random_words(uint8_t *p, size_t n, unsigned zero16)
{
    for (size_t i = 0; i + 4 <= n; i += 4) {
        uint32_t v = (uint32_t)next();

        if ((next() & 15) < zero16)
            v = 0;
        else if (next() & 1)
            v >>= next() % 32;
        memcpy(p + i, &v, 4);
    }
}

/* a 64-bit value at an edge of rel(): 0, the base, next to it, far away */
static uint64_t
edge(uint64_t base)
{
    switch (next() % 9) {
    case 0: return 0;
    case 1: return base;
    case 2: return base - 1;
    case 3: return base + 1;
    case 4: return base + (1ull << 63);
    case 5: return base + (1ull << 63) - 1;
    case 6: return UINT64_MAX;
    case 7: return (uint64_t)INT64_MIN;
    default: return next();
    }
}

static void
test_random(void)
{
    static struct ew_flow f;
    static struct ew_infer inf;
    const uint64_t bases[] = {0, 1, 1764000000123456789ull, (uint64_t)INT64_MIN, UINT64_MAX,
                              (uint64_t)INT64_MAX};

    for (int round = 0; round < 3000; round++) {
        uint64_t tb = bases[next() % 6], fb = bases[next() % 6];
        unsigned z = (unsigned)(next() % 17);

        random_words((uint8_t *)&f, sizeof(f), z);
        random_words((uint8_t *)&inf, sizeof(inf), z);
        f.first_ns = (int64_t)tb;
        f.first_frame = fb;
        f.last_ns = (int64_t)edge(tb);
        f.last_frame = edge(fb);
        f.hs.syn_frame = edge(fb);
        inf.syn_ns = (int64_t)edge(tb);
        inf.half[1].rtt_ts[7] = (int64_t)edge(tb);
        inf.half[0].data_first_ns = (int64_t)edge(tb);
        inf.half[1].first_opt_mismatch_frame = edge(fb);
        /* the timed segments, relative to the latest data and acknowledgement */
        inf.half[0].rtt_ts[2] = (int64_t)edge((uint64_t)inf.half[0].data_last_ns);
        inf.half[1].rtt_seq_end[5] = (uint32_t)edge(inf.half[1].ack_max);
        inf.half[0].rtt_seq_end[0] = (uint32_t)edge(inf.half[0].ack_max) ^ 0x80000000u;
        inf.first_accecn_opt_frame = edge(fb);
        f.quic = NULL;
        f.inf = round % 4 ? &inf : (struct ew_infer *)(uintptr_t)&ew_infer_none;
        round_trip(&f);
    }
    /* every word as large as it gets: the longest form fits */
    memset(&f, 0xff, sizeof(f));
    memset(&inf, 0xff, sizeof(inf));
    f.quic = NULL;
    f.inf = &inf;
    CU_ASSERT(round_trip(&f) <= EW_PACK_MAX);
}

/* bytes that ew_flow_pack() would not make are refused, not read past */
static void
test_refused(void)
{
    static struct ew_flow f;
    static struct ew_infer inf;
    uint8_t b[EW_PACK_MAX];

    memset(b, 0, sizeof(b));
    CU_ASSERT(!ew_flow_unpack(&ew_infer_state, b, 0, &f, &inf));
    b[0] = 2;
    CU_ASSERT(!ew_flow_unpack(&ew_infer_state, b, 1 + 2, &f, &inf));
    b[0] = 0;
    CU_ASSERT(ew_flow_unpack(&ew_infer_state, b, 1 + 2, &f, &inf)); /* no word set: all zero */
    CU_ASSERT(f.inf == &ew_infer_none && f.first_ns == 0 && f.dir[1].packets == 0);
    b[1] = 1; /* group 0 present, its mask and varint missing */
    CU_ASSERT(!ew_flow_unpack(&ew_infer_state, b, 1 + 2, &f, &inf));
    b[3] = 1;
    b[4] = 0xff, b[5] = 0xff, b[6] = 0xff, b[7] = 0xff, b[8] = 0x10; /* a 33-bit varint */
    CU_ASSERT(!ew_flow_unpack(&ew_infer_state, b, 9, &f, &inf));
    b[8] = 0x0f;
    CU_ASSERT(ew_flow_unpack(&ew_infer_state, b, 9, &f, &inf));
    b[8] = 0x8f; /* runs on past the end */
    CU_ASSERT(!ew_flow_unpack(&ew_infer_state, b, 9, &f, &inf));
}

int
ew_test_register_pack(void)
{
    CU_pSuite s = CU_add_suite("pack", NULL, NULL);

    if (!s || !CU_add_test(s, "every flow of the bundled captures", test_captures) ||
        !CU_add_test(s, "random records, times and frames at the edges", test_random) ||
        !CU_add_test(s, "bytes it would not make are refused", test_refused))
        return -1;
    return 0;
}
