/* fuzz_pipeline.c - libFuzzer harness for the whole per-frame pipeline:
 * dissection, the flow table, the accounting, and both reports.
 *
 * Input:
 *   byte 0      link type, modulo EW_LINK_COUNT
 *   byte 1      table: max_flows = 1 + (b & 7); idle timeout (b >> 3 & 7) * 10 ms,
 *               0 disables it; timestamps start at 0 when b & 0x40, else at
 *               4e18 ns (2096, the latest the capture layer gives) when b & 0x80,
 *               else at 1.7e18 ns (2023); they stay within 0..4e18 ns
 *   then records, until the input ends:
 *     2 bytes   frame length, big-endian (clamped to what is left)
 *     1 byte    time step, signed, in milliseconds (time may go backwards)
 *     1 byte    wire length: 0 = the frame length, else the frame length + b * 16
 *     n bytes   the frame
 * Each frame is copied into a buffer of exactly its length, so any read past
 * it is caught. Time series are on (4 series of 1 ms bins, so the pool runs
 * out and bins merge). The NDJSON events stream as the frames are read (10 ms
 * intervals of packet time; flows that end or are evicted write theirs); at
 * the end the JSON report is written as --json writes it. Both go to memory
 * through the report's writer and must parse: every event line, and the
 * report with one entry per flow. The text summary and every flow's
 * time-series plot are written to /dev/null. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/analyze.h"
#include "dissectors/dissect.h"
#include "findings/conclusions.h"
#include "output/output.h"
#include "output/plot_svg.h"
#include "output/report.h"
#include "infer/series.h"
#include "output/stream.h"
#include "fuzz.h"

/* the latest time src/input/capture.c hands out, in ns */
#define TS_MAX 4000000000000000000LL

static FILE *devnull;
static struct ew_stream stream; /* 64 KiB of buffer: not on the stack */

/* every line of the event stream is one JSON object with an "event" */
static void
check_events(const char *text, size_t len)
{
    const char *p = text, *end = text + len;

    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        json_t *o;

        if (!nl)
            abort(); /* every event ends its line */
        o = json_loadb(p, (size_t)(nl - p), 0, NULL);
        if (!o || !json_is_string(json_object_get(o, "event")))
            abort();
        json_decref(o);
        p = nl + 1;
    }
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct ew_analyzer_cfg cfg;
    struct ew_analyzer an;
    struct ew_series_pool series;
    struct ew_flowtab_stats st;
    struct ew_conclusions concl = EW_CONCLUSIONS_INIT;
    struct ew_pass pass;
    struct ew_flow_iter it;
    const struct ew_flow *f;
    struct ew_report_src src = {.kind = "file", .name = "fuzz", .linktype = NULL};
    enum ew_link link;
    int64_t ts;
    size_t off;
    json_t *rep;
    char *text = NULL, *events = NULL;
    size_t text_len = 0, events_len = 0;
    FILE *mem, *ev_mem;

    if (size < 2)
        return 0;
    if (!devnull) {
        devnull = fopen("/dev/null", "w");
        if (!devnull)
            abort();
    }
    link = (enum ew_link)(data[0] % EW_LINK_COUNT);
    src.linktype = ew_link_name[link];
    memset(&cfg, 0, sizeof(cfg));
    cfg.max_flows = 1u + (data[1] & 7u);
    cfg.idle_ns = (int64_t)((data[1] >> 3) & 7u) * 10000000;
    cfg.hash_seed = 1;
    cfg.hot_flows = 1u + ((unsigned)data[0] >> 6); /* 1 to 4: flows packed and unpacked */
    ts = (data[1] & 0x40) ? 0 : (data[1] & 0x80) ? TS_MAX : 1700000000000000000LL;
    ev_mem = open_memstream(&events, &events_len);
    if (!ev_mem)
        abort();
    ew_stream_init(&stream, ev_mem, 10000000, true);
    ew_stream_attach(&stream, &cfg);
    if (ew_analyzer_init(&an, &cfg) != 0 || ew_series_pool_init(&series, 4, 1000000) != 0)
        abort();
    an.series = &series;
    ew_stream_bind(&stream, &an);

    off = 2;
    while (size - off >= 4) {
        size_t len = ((size_t)data[off] << 8) | data[off + 1];
        int8_t step = (int8_t)data[off + 2];
        uint8_t wire = data[off + 3];
        struct ew_pkt pkt;
        uint8_t *frame;

        off += 4;
        if (len > size - off)
            len = size - off;
        frame = malloc(len); /* glibc and ASan give a pointer for 0 too */
        if (!frame) {
            if (len)
                abort();
            continue;
        }
        memcpy(frame, data + off, len);
        off += len;
        ts += (int64_t)step * 1000000;
        ts = ts < 0 ? 0 : ts > TS_MAX ? TS_MAX : ts;
        ew_dissect_frame(link, frame, len, (uint32_t)len + (uint32_t)wire * 16, &pkt);
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
        ew_stream_packet(&stream, ts);
        free(frame);
    }

    /* one pass of conclusions, as at the end of a capture, for every output */
    if (ew_analyzer_pass(&an, &concl, EW_PASS_BOTTLENECKS, NULL) != 0)
        abort();
    ew_pass_init(&pass, &an, &concl, &src, NULL);
    /* the report as --json writes it */
    mem = open_memstream(&text, &text_len);
    if (!mem || ew_report_dump(mem, &pass) != 0 || fclose(mem) != 0)
        abort();
    rep = json_loadb(text, text_len, 0, NULL);
    ew_flowtab_get_stats(an.tab, &st);
    if (!rep || json_array_size(json_object_get(rep, "flows")) != st.in_table)
        abort();
    json_decref(rep);
    free(text);
    ew_stream_finish(&stream, &pass);
    if (stream.error || fclose(ev_mem) != 0)
        abort();
    check_events(events, events_len);
    free(events);
    {
        struct ew_text_opts to = {4, EW_SORT_BYTES, false, 80};

        ew_report_text(devnull, &pass, &to);
    }
    ew_flow_iter_start(&it, an.tab, EW_ITER_HELD, 0);
    if (it.nomem)
        abort();
    while ((f = ew_flow_iter_next(&it)) != NULL)
        ew_plot_svg(&series, f, NULL, devnull);
    ew_flow_iter_end(&it);
    ew_conclusions_free(&concl);
    ew_stream_free(&stream);
    ew_analyzer_free(&an);
    ew_series_pool_free(&series);
    return 0;
}
