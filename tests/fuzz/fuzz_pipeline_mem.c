/* fuzz_pipeline_mem.c - libFuzzer harness for the per-frame pipeline in
 * memory, at thousands of inputs a second: dissection, the flow table, the
 * inference, the conclusions and findings, and the JSON report as --json
 * writes it, into memory.
 *
 * fuzz_pipeline feeds the same path and every output besides (the event
 * stream, the text summary, the plots), but at tens of inputs a second: an
 * analyzer of the program's sizes zeroes some 7 MiB for every input (the
 * bottleneck series of 1024 directions, 6 KiB each, and 512 KiB of copies'
 * slots), which the sanitizer's allocator maps, faults in and puts in
 * quarantine again each time. Here the table of copies has 64 slots and the
 * bottleneck pool 4 series, so that both fill up and are reused within one
 * input, and nothing else is written.
 *
 * Input: as fuzz_pipeline.c (its seeds serve here too):
 *   byte 0      link type, modulo EW_LINK_COUNT; hot flows 1 + (b >> 6)
 *   byte 1      table: max_flows = 1 + (b & 7); idle timeout (b >> 3 & 7) * 10 ms,
 *               0 disables it; timestamps start at 0 when b & 0x40, else at
 *               4e18 ns when b & 0x80, else at 1.7e18 ns
 *   then records, until the input ends:
 *     2 bytes   frame length, big-endian (clamped to what is left)
 *     1 byte    time step, signed, in milliseconds
 *     1 byte    wire length: 0 = the frame length, else the frame length + b * 16
 *     n bytes   the frame, copied into a buffer of exactly its length
 * Every analyzer is made for its input and freed after it: nothing carries
 * from one input to the next. Every 8th input (the first included) runs
 * twice and must give the same report byte for byte (a state that outlived
 * the input before would show there), and its report must parse and hold
 * one entry per flow in the table: parsing every report would take a third
 * of the time. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dissectors/dissect.h"
#include "engine/analyze.h"
#include "findings/conclusions.h"
#include "output/output.h"
#include "output/report.h"
#include "infer/series.h"
#include "fuzz.h"

/* the latest time src/input/capture.c hands out, in ns */
#define TS_MAX 4000000000000000000LL

#define DUP_SLOTS_LOG2 6
#define QSERIES 4
#define SERIES 4

static unsigned long runs;

/* The input through the pipeline; the report as --json writes it, in
 * memory (the caller frees it), its length in *len, and in *flows the
 * number of flows left in the table. */
static char *
run(const uint8_t *data, size_t size, size_t *len, size_t *flows)
{
    struct ew_analyzer_cfg cfg;
    struct ew_analyzer an;
    struct ew_series_pool series;
    struct ew_flowtab_stats st;
    struct ew_conclusions concl = EW_CONCLUSIONS_INIT;
    struct ew_pass pass;
    struct ew_report_src src = {.kind = "file", .name = "fuzz", .linktype = NULL};
    enum ew_link link = (enum ew_link)(data[0] % EW_LINK_COUNT);
    int64_t ts;
    size_t off = 2;
    char *text = NULL;
    FILE *mem;

    src.linktype = ew_link_name[link];
    memset(&cfg, 0, sizeof(cfg));
    cfg.max_flows = 1u + (data[1] & 7u);
    cfg.idle_ns = (int64_t)((data[1] >> 3) & 7u) * 10000000;
    cfg.hash_seed = 1;
    cfg.hot_flows = 1u + ((unsigned)data[0] >> 6);
    cfg.max_qseries = QSERIES;
    cfg.dup_slots_log2 = DUP_SLOTS_LOG2;
    ts = (data[1] & 0x40) ? 0 : (data[1] & 0x80) ? TS_MAX : 1700000000000000000LL;
    if (ew_analyzer_init(&an, &cfg) != 0 || ew_series_pool_init(&series, SERIES, 1000000) != 0)
        abort();
    an.series = &series;

    while (size - off >= 4) {
        size_t flen = ((size_t)data[off] << 8) | data[off + 1];
        int8_t step = (int8_t)data[off + 2];
        uint8_t wire = data[off + 3];
        struct ew_pkt pkt;
        uint8_t *frame;

        off += 4;
        if (flen > size - off)
            flen = size - off;
        frame = malloc(flen ? flen : 1);
        if (!frame)
            abort();
        memcpy(frame, data + off, flen);
        off += flen;
        ts += (int64_t)step * 1000000;
        ts = ts < 0 ? 0 : ts > TS_MAX ? TS_MAX : ts;
        ew_dissect_frame(link, frame, flen, (uint32_t)flen + (uint32_t)wire * 16, &pkt);
        if (step & 1) {
            /* the file reader's path: key and hash prepared, record prefetched */
            struct ew_prepared pre;

            ew_analyzer_prepare(&an, &pkt, &pre);
            ew_analyzer_prefetch_slot(&an, &pre);
            ew_analyzer_prefetch_flow(&an, &pkt, &pre);
            ew_analyzer_frame_prepared(&an, &pkt, ts, &pre);
        } else {
            ew_analyzer_frame(&an, &pkt, ts);
        }
        free(frame);
    }

    if (ew_analyzer_pass(&an, &concl, EW_PASS_BOTTLENECKS, NULL) != 0)
        abort();
    ew_pass_init(&pass, &an, &concl, &src, NULL);
    mem = open_memstream(&text, len);
    if (!mem || ew_report_dump(mem, &pass) != 0 || fclose(mem) != 0)
        abort();
    ew_flowtab_get_stats(an.tab, &st);
    *flows = st.in_table;
    ew_conclusions_free(&concl);
    ew_analyzer_free(&an);
    ew_series_pool_free(&series);
    return text;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text, *again;
    size_t len, len2, flows, flows2;
    json_t *rep;

    if (size < 2)
        return 0;
    text = run(data, size, &len, &flows);
    if (runs++ % 8 == 0) {
        again = run(data, size, &len2, &flows2);
        if (len2 != len || flows2 != flows || memcmp(again, text, len) != 0)
            abort(); /* the same input gave another report */
        free(again);
        rep = json_loadb(text, len, 0, NULL);
        if (!rep || json_array_size(json_object_get(rep, "flows")) != flows)
            abort();
        json_decref(rep);
    }
    free(text);
    return 0;
}
