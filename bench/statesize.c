/* statesize.c - what a TCP flow takes held whole and held packed: the
 * figures behind the 512-bytes-per-flow target (bench/RESULTS.md).
 *
 *   statesize FILE [MAX_FLOWS]
 *
 * Reads FILE through the same decoder and analyzer as ecnwatch -q (one
 * thread, no report) with a table of MAX_FLOWS (default 1048576), then packs
 * every held TCP flow as the table packs the flows outside its hot set
 * (pack.h), unpacks it and compares. Prints what a TCP flow takes whole and
 * what it takes packed, with its entry, index and links, its bytes in
 * 16-byte granules and the allocator's header (mean, median, 99th
 * percentile, largest), and the time to pack and unpack one. Exits 1 when a
 * flow did not come back the same.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "engine/analyze.h"
#include "input/capture.h"
#include "dissectors/dissect.h"
#include "flow/flowtab.h"
#include "infer/infer.h"
#include "flow/pack.h"

/* the table's index slots (two or more 8-byte slots per entry) and the two
 * 4-byte activity links beside each entry, and the entry (src/flow/flowtab.c) */
#define INDEX_AND_LINKS 24
#define ENTRY 72
/* packed bytes are allocated in 16-byte granules, each allocation with
 * glibc's 8-byte header */
#define GRANULE 16
#define MALLOC_HEADER 8
/* the flows packed over and over for the time taken in the caches */
#define WARM_FLOWS 64

/* the bytes a packed TCP flow takes, its entry and index included; and
 * whether unpacking gives its state back */
static size_t
packed_flow(const struct ew_flow *f, bool *same)
{
    static uint8_t buf[EW_PACK_MAX];
    static struct ew_flow g;
    static struct ew_infer inf;
    size_t len = ew_flow_pack(&ew_infer_state, f, buf), blob = (len + GRANULE - 1) / GRANULE * GRANULE;

    g.key = f->key;
    *same = ew_flow_unpack(&ew_infer_state, buf, len, &g, &inf) && g.inf == &inf &&
            !memcmp(&inf, f->inf, sizeof(inf)) && (g.inf = f->inf, !memcmp(&g, f, sizeof(g)));
    return ENTRY + INDEX_AND_LINKS + MALLOC_HEADER + blob;
}

static int
cmp_size(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    return (x > y) - (x < y);
}

int
main(int argc, char **argv)
{
    char err[EW_ERRBUF_SIZE] = "";
    struct ew_analyzer_cfg cfg = {.max_flows = 1u << 20, .hash_seed = 1};
    struct ew_analyzer an;
    struct ew_flowtab_stats st;
    struct ew_capture *cap;
    struct ew_frame fr;
    struct ew_pkt pkt;
    static struct ew_flow_room room;
    uint32_t *refs;
    size_t *sizes, n, tcp = 0, sum = 0, differ = 0;
    enum ew_cap_next rc;
    struct timespec t0, t1;
    static uint8_t buf[EW_PACK_MAX];
    static struct ew_flow g;
    static struct ew_infer inf;
    double warm_ns = 0;

    if (argc < 2 || argc > 3) {
        fprintf(stderr, "usage: statesize FILE [MAX_FLOWS]\n");
        return 2;
    }
    if (argc == 3)
        cfg.max_flows = (uint32_t)strtoul(argv[2], NULL, 10);
    if (ew_capture_open_file(argv[1], NULL, &cap, err, sizeof err) < 0) {
        fprintf(stderr, "statesize: %s\n", err);
        return 3;
    }
    if (cfg.max_flows == 0 || ew_analyzer_init(&an, &cfg) < 0) {
        fprintf(stderr, "statesize: cannot make a table of %u flows\n", cfg.max_flows);
        return 3;
    }
    while ((rc = ew_capture_next(cap, &fr, err, sizeof err)) == EW_CAP_FRAME) {
        ew_dissect_frame(ew_capture_link(cap), fr.data, fr.caplen, fr.wirelen, &pkt);
        ew_analyzer_frame(&an, &pkt, fr.ts_ns);
    }
    ew_capture_close(cap);
    if (rc == EW_CAP_BROKEN)
        fprintf(stderr, "statesize: %s (the frames before it are counted)\n", err);

    ew_flowtab_get_stats(an.tab, &st);
    refs = calloc(st.in_table ? st.in_table : 1, sizeof *refs);
    sizes = calloc(st.in_table ? st.in_table : 1, sizeof *sizes);
    if (!refs || !sizes) {
        fprintf(stderr, "statesize: out of memory\n");
        return 3;
    }
    n = ew_flowtab_refs(an.tab, refs, st.in_table, false);
    for (size_t i = 0; i < n; i++) {
        const struct ew_flow *f = ew_flowtab_view(an.tab, refs[i], &room);

        if (f->inf != &ew_infer_none) {
            bool same;

            sizes[tcp] = packed_flow(f, &same);
            sum += sizes[tcp++];
            differ += !same;
        }
    }
    qsort(sizes, tcp, sizeof *sizes, cmp_size);
    /* what packing and unpacking cost: every TCP flow once more, timed */
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (size_t i = 0; i < n; i++) {
        const struct ew_flow *f = ew_flowtab_view(an.tab, refs[i], &room);

        if (f->inf != &ew_infer_none) {
            size_t len = ew_flow_pack(&ew_infer_state, f, buf);

            if (!ew_flow_unpack(&ew_infer_state, buf, len, &g, &inf))
                differ++;
        }
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    /* and again on a few flows in the caches: the work itself */
    {
        size_t warm = 0, rounds = 0;
        struct timespec w0, w1;

        clock_gettime(CLOCK_MONOTONIC, &w0);
        do {
            for (size_t i = 0; i < n && i < WARM_FLOWS; i++) {
                const struct ew_flow *f = ew_flowtab_view(an.tab, refs[i], &room);

                if (f->inf != &ew_infer_none) {
                    size_t len = ew_flow_pack(&ew_infer_state, f, buf);

                    if (!ew_flow_unpack(&ew_infer_state, buf, len, &g, &inf))
                        differ++;
                    warm++;
                }
            }
            clock_gettime(CLOCK_MONOTONIC, &w1);
        } while (++rounds < 1000 && warm &&
                 (w1.tv_sec - w0.tv_sec) * 1000000000L + (w1.tv_nsec - w0.tv_nsec) < 200000000L);
        warm_ns = warm ? ((double)(w1.tv_sec - w0.tv_sec) * 1e9 + (double)(w1.tv_nsec - w0.tv_nsec)) / (double)warm : 0;
    }
    printf("   %llu frames, %zu flows held, %zu TCP\n", (unsigned long long)an.tot.frames, n, tcp);
    printf("   a TCP flow whole (the hot set): record %zu + inference state %zu bytes, beside its "
           "entry, index and links (%d)\n",
           sizeof(struct ew_flow), sizeof(struct ew_infer), ENTRY + INDEX_AND_LINKS);
    if (tcp)
        printf("   packed (src/flow/pack.c), entry and index included: mean %.0f, median %zu, 99th percentile %zu, largest %zu "
               "bytes per TCP flow\n",
               (double)sum / (double)tcp, sizes[tcp / 2], sizes[tcp * 99 / 100], sizes[tcp - 1]);
    if (tcp)
        printf("   packing and unpacking a TCP flow: %.0f ns; %.0f ns for a flow in the caches\n",
               ((double)(t1.tv_sec - t0.tv_sec) * 1e9 + (double)(t1.tv_nsec - t0.tv_nsec)) /
                   (double)tcp, warm_ns);
    if (differ)
        printf("   %zu flows did not unpack to the same bytes\n", differ);
    free(sizes);
    free(refs);
    ew_analyzer_free(&an);
    return differ ? 1 : 0;
}
