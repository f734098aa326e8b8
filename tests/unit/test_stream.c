/* test_stream.c - the NDJSON event stream of src/output/stream.c (stream.h and
 * man/ecnwatch-report.5, EVENTS): one compact JSON object per line; a
 * finding once per flow and kind; flow_end with its reason; the summary
 * last; events written out once per interval of packet time; a failed
 * write remembered. */
#include <CUnit/CUnit.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "engine/analyze.h"
#include "input/capture.h"
#include "dissectors/dissect.h"
#include "dissectors/ecn.h"
#include "findings/conclusions.h"
#include "output/output.h"
#include "output/report.h"
#include "output/stream.h"
#include "fixture.h"
#include "suites.h"

#define SEC 1000000000LL
/* 2023-11-14T22:13:20Z */
#define T0 (1700000000LL * SEC)

/* an analyzer with a stream attached, writing to a file in a folder of its
 * own (or to path when given) */
struct run {
    char dir[32];
    char path[96];
    FILE *out;
    struct ew_analyzer an;
    struct ew_stream s;
};

static const struct ew_report_src src_file = {.kind = "file", .name = "x.pcap",
                                              .linktype = "EN10MB"};

static struct run *
start(const char *path, uint32_t max_flows, int64_t idle_ns, bool updates)
{
    struct ew_analyzer_cfg cfg = {.max_flows = max_flows, .hash_seed = 7, .idle_ns = idle_ns};
    struct run *r = calloc(1, sizeof(*r));

    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    if (path) {
        snprintf(r->path, sizeof(r->path), "%s", path);
    } else {
        snprintf(r->dir, sizeof(r->dir), "/tmp/ew-stream-XXXXXX");
        CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(r->dir));
        snprintf(r->path, sizeof(r->path), "%s/events.ndjson", r->dir);
    }
    r->out = fopen(r->path, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(r->out);
    ew_stream_init(&r->s, r->out, SEC, updates);
    ew_stream_attach(&r->s, &cfg);
    CU_ASSERT_FATAL(ew_analyzer_init(&r->an, &cfg) == 0);
    ew_stream_bind(&r->s, &r->an);
    return r;
}

/* one frame, as the offline driver gives it: accounted, then the stream */
static void
frame(struct run *r, const struct ew_pkt *p, int64_t t)
{
    ew_analyzer_frame(&r->an, p, t);
    ew_stream_packet(&r->s, t);
}

/* the bytes that reached the file (not those in a buffer) */
static long
on_disk(const struct run *r)
{
    struct stat st;

    CU_ASSERT_FATAL(fstat(fileno(r->out), &st) == 0);
    return (long)st.st_size;
}

static char *
slurp(const char *path)
{
    FILE *fp = fopen(path, "rb");
    char *m;
    long n;
    size_t got;

    CU_ASSERT_PTR_NOT_NULL_FATAL(fp);
    fseek(fp, 0, SEEK_END);
    n = ftell(fp);
    rewind(fp);
    m = malloc((size_t)n + 1);
    CU_ASSERT_PTR_NOT_NULL_FATAL(m);
    got = fread(m, 1, (size_t)n, fp);
    m[got] = '\0';
    fclose(fp);
    return m;
}

/* the end of the stream, from one pass of conclusions as at the end of a
 * capture (output.h) */
static void
stream_finish(struct run *r)
{
    struct ew_conclusions c = EW_CONCLUSIONS_INIT;
    struct ew_pass p;

    CU_ASSERT_EQUAL(ew_analyzer_pass(&r->an, &c, EW_PASS_BOTTLENECKS, NULL), 0);
    ew_pass_init(&p, &r->an, &c, &src_file, NULL);
    ew_stream_finish(&r->s, &p);
    ew_conclusions_free(&c);
}

/* what was written so far */
static char *
written(const struct run *r)
{
    return slurp(r->path);
}

/* finish the stream (unless done), close and remove everything; returns
 * what was written */
static char *
finish(struct run *r, bool done)
{
    char *text = NULL;

    if (!done)
        stream_finish(r);
    fclose(r->out);
    if (r->dir[0]) {
        text = slurp(r->path);
        unlink(r->path);
        rmdir(r->dir);
    }
    ew_stream_free(&r->s);
    ew_analyzer_free(&r->an);
    free(r);
    return text;
}

static const char *const event_names[] = {"finding", "flow_update", "flow_end", "summary"};

static const char *
str(const json_t *o, const char *k)
{
    const char *s = json_string_value(json_object_get(o, k));

    return s ? s : "";
}

static json_int_t
num(const json_t *o, const char *k)
{
    return json_integer_value(json_object_get(o, k));
}

/* The lines of text as an array of events: every line one JSON object with
 * "event" (a known name) and "time" (RFC 3339 UTC, microseconds), in the
 * compact bytes jansson writes; *bad counts the lines that are not. */
static json_t *
events_of(const char *text, int *bad)
{
    json_t *all = json_array();
    const char *p = text;

    *bad = 0;
    if (*text && text[strlen(text) - 1] != '\n')
        (*bad)++;
    while (*p) {
        const char *e = strchr(p, '\n');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        char *line = strndup(p, n), *again;
        json_error_t err;
        json_t *j = json_loads(line, 0, &err);
        size_t i, known = 0;

        if (!json_is_object(j)) {
            fprintf(stderr, "not an object: %.80s\n", line);
            (*bad)++;
        } else {
            for (i = 0; i < sizeof(event_names) / sizeof(event_names[0]); i++)
                known += !strcmp(str(j, "event"), event_names[i]);
            if (known != 1 || strlen(str(j, "time")) != 27 || str(j, "time")[26] != 'Z')
                (*bad)++;
            again = json_dumps(j, JSON_COMPACT | JSON_REAL_PRECISION(10));
            if (!again || strcmp(again, line))
                (*bad)++;
            free(again);
            json_array_append(all, j);
        }
        json_decref(j);
        free(line);
        p += n + (e ? 1 : 0);
    }
    return all;
}

/* how many events have this name (and, flow > 0, are about this flow) */
static int
count(const json_t *ev, const char *name, json_int_t flow)
{
    size_t i;
    json_t *e;
    int n = 0;

    json_array_foreach(ev, i, e) {
        json_int_t id = !strcmp(str(e, "event"), "finding") ? num(e, "flow")
                                                            : num(json_object_get(e, "flow"), "id");

        if (!strcmp(str(e, "event"), name) && (flow <= 0 || id == flow))
            n++;
    }
    return n;
}

/* The stream's rules on any run: the summary last and once; each flow ends
 * once; a finding once per flow and kind, before its flow's end; each kind
 * in a flow's final misuse was streamed as a finding. Returns the faults. */
static int
check_rules(const json_t *ev, json_int_t flows)
{
    size_t i, j, n = json_array_size(ev);
    json_int_t id;
    int bad = 0;

    if (n == 0 || strcmp(str(json_array_get(ev, n - 1), "event"), "summary") ||
        count(ev, "summary", 0) != 1)
        bad++;
    {
        /* an evicted flow of no interest may have no flow_end: the summary
         * counts those (stream.h) */
        json_int_t none = 0, summarised = n ? num(json_array_get(ev, n - 1), "flow_ends_summarised") : 0;

        for (id = 1; id <= flows; id++) {
            int c = count(ev, "flow_end", id);

            if (c == 0)
                none++;
            else if (c != 1)
                bad++;
        }
        if (none != summarised)
            bad++;
    }
    for (i = 0; i < n; i++) {
        const json_t *e = json_array_get(ev, i);

        if (!strcmp(str(e, "event"), "finding")) {
            bool ended_before = false;

            for (j = 0; j < n; j++) {
                const json_t *o = json_array_get(ev, j);

                if (j < i && !strcmp(str(o, "event"), "flow_end") &&
                    num(json_object_get(o, "flow"), "id") == num(e, "flow"))
                    ended_before = true;
                if (j != i && !strcmp(str(o, "event"), "finding") &&
                    num(o, "flow") == num(e, "flow") && !strcmp(str(o, "kind"), str(e, "kind")))
                    bad++; /* twice */
            }
            if (ended_before)
                bad++;
        } else if (!strcmp(str(e, "event"), "flow_end")) {
            const json_t *f = json_object_get(e, "flow"), *m;
            size_t k;

            json_array_foreach(json_object_get(f, "misuse"), k, m) {
                bool seen = false;

                for (j = 0; j < i; j++) {
                    const json_t *o = json_array_get(ev, j);

                    if (!strcmp(str(o, "event"), "finding") && num(o, "flow") == num(f, "id") &&
                        !strcmp(str(o, "kind"), str(m, "kind")))
                        seen = true;
                }
                if (!seen) {
                    fprintf(stderr, "flow %lld: %s never streamed\n", (long long)num(f, "id"),
                            str(m, "kind"));
                    bad++;
                }
            }
        }
    }
    return bad;
}

/* stream.h and man/ecnwatch-report.5, EVENTS: one flow evicted (the table
 * holds two), one ended by the idle timeout, one live at the end, each with
 * its flow_end and reason; findings with the flow's ends and its last
 * packet time; the summary last, with the report's source and totals */
static void
test_events(void)
{
    struct run *r = start(NULL, 2, 10 * SEC, false);
    struct ew_pkt p;
    json_t *ev, *e, *f;
    char *text;
    int bad, i;

    /* A (flow 1): TCP without ECN, its data ECT(0): ect_without_negotiation */
    fx_pkt(&p, EW_L4_TCP, CLI, 40000, EW_TCP_SYN, 500, 0, EW_ECN_NOT_ECT);
    frame(r, &p, T0 + SEC);
    fx_pkt(&p, EW_L4_TCP, SRV, 40000, EW_TCP_SYN | EW_TCP_ACK, 900, 0, EW_ECN_NOT_ECT);
    frame(r, &p, T0 + SEC + 1000000);
    for (i = 0; i < 4; i++) {
        fx_pkt(&p, EW_L4_TCP, CLI, 40000, EW_TCP_ACK, 501 + 1000 * (uint32_t)i, 1000, EW_ECN_ECT_0);
        frame(r, &p, T0 + (i == 0 ? SEC + 2000000 : (int64_t)(i + 1) * SEC + SEC / 2));
    }
    /* B (flow 2): UDP, CE on a sender seen sending Not-ECT: ce_on_not_ect
     * (three Not-ECT datagrams first: CE alone says nothing of its sender) */
    for (i = 0; i < 3; i++) {
        fx_pkt(&p, EW_L4_UDP, CLI, 50000, 0, 0, 100, EW_ECN_NOT_ECT);
        frame(r, &p, T0 + 4 * SEC + SEC * 7 / 10 - 3000000 + 1000000 * i);
    }
    fx_pkt(&p, EW_L4_UDP, CLI, 50000, 0, 0, 100, EW_ECN_CE);
    frame(r, &p, T0 + 4 * SEC + SEC * 7 / 10);
    /* C (flow 3), 15 s on: A gives way (least recently active), B is idle;
     * ECT(0), so that its end is written (a small flow without ECN is only
     * counted) */
    fx_pkt(&p, EW_L4_UDP, CLI, 50001, 0, 0, 100, EW_ECN_ECT_0);
    frame(r, &p, T0 + 20 * SEC);
    CU_ASSERT_FALSE(r->s.error);
    text = finish(r, false);
    ev = events_of(text, &bad);
    CU_ASSERT_EQUAL(bad, 0);
    CU_ASSERT_EQUAL(check_rules(ev, 3), 0);
    CU_ASSERT_EQUAL_FATAL(json_array_size(ev), 6);

    e = json_array_get(ev, 0);
    CU_ASSERT_STRING_EQUAL(str(e, "event"), "finding");
    CU_ASSERT_EQUAL(num(e, "flow"), 1);
    CU_ASSERT_STRING_EQUAL(str(e, "kind"), "ect_without_negotiation");
    CU_ASSERT_STRING_EQUAL(str(e, "proto"), "tcp");
    CU_ASSERT_STRING_EQUAL(str(e, "dir"), "c2s");
    CU_ASSERT_STRING_EQUAL(str(json_object_get(e, "client"), "addr"), "10.0.0.9");
    CU_ASSERT_EQUAL(num(json_object_get(e, "client"), "port"), 40000);
    CU_ASSERT_EQUAL(num(json_object_get(e, "server"), "port"), 80);
    CU_ASSERT_EQUAL(num(e, "first_frame"), 3);
    CU_ASSERT_PTR_NOT_NULL(json_object_get(e, "confidence"));
    CU_ASSERT_PTR_NOT_NULL(json_object_get(e, "ref"));
    CU_ASSERT_PTR_NOT_NULL(json_object_get(e, "detail"));
    /* found at the first interval's end (2 s): the flow's last packet then */
    CU_ASSERT_STRING_EQUAL(str(e, "time"), "2023-11-14T22:13:22.500000Z");

    e = json_array_get(ev, 1);
    f = json_object_get(e, "flow");
    CU_ASSERT_STRING_EQUAL(str(e, "event"), "flow_end");
    CU_ASSERT_STRING_EQUAL(str(e, "reason"), "evicted");
    CU_ASSERT_EQUAL(num(f, "id"), 1);
    CU_ASSERT_STRING_EQUAL(str(f, "ended"), "evicted");
    CU_ASSERT_EQUAL(num(f, "last_frame"), 6);
    CU_ASSERT_EQUAL(num(json_object_get(f, "c2s"), "packets"), 5);
    CU_ASSERT_STRING_EQUAL(str(e, "time"), "2023-11-14T22:13:24.500000Z");
    CU_ASSERT_EQUAL(json_array_size(json_object_get(f, "misuse")), 1);

    e = json_array_get(ev, 2);
    CU_ASSERT_STRING_EQUAL(str(e, "event"), "finding");
    CU_ASSERT_EQUAL(num(e, "flow"), 2);
    CU_ASSERT_STRING_EQUAL(str(e, "kind"), "ce_on_not_ect");
    CU_ASSERT_STRING_EQUAL(str(e, "proto"), "udp");
    CU_ASSERT_STRING_EQUAL(str(e, "time"), "2023-11-14T22:13:24.700000Z");

    e = json_array_get(ev, 3);
    f = json_object_get(e, "flow");
    CU_ASSERT_STRING_EQUAL(str(e, "event"), "flow_end");
    CU_ASSERT_STRING_EQUAL(str(e, "reason"), "idle");
    CU_ASSERT_EQUAL(num(f, "id"), 2);
    CU_ASSERT_STRING_EQUAL(str(f, "ended"), "idle_timeout");
    CU_ASSERT_STRING_EQUAL(str(e, "time"), "2023-11-14T22:13:24.700000Z");

    e = json_array_get(ev, 4);
    f = json_object_get(e, "flow");
    CU_ASSERT_STRING_EQUAL(str(e, "event"), "flow_end");
    CU_ASSERT_STRING_EQUAL(str(e, "reason"), "capture_end");
    CU_ASSERT_EQUAL(num(f, "id"), 3);
    CU_ASSERT_STRING_EQUAL(str(f, "ended"), "capture_end");
    CU_ASSERT_STRING_EQUAL(str(e, "time"), "2023-11-14T22:13:40.000000Z");

    e = json_array_get(ev, 5);
    CU_ASSERT_STRING_EQUAL(str(e, "event"), "summary");
    CU_ASSERT_STRING_EQUAL(str(e, "time"), "2023-11-14T22:13:40.000000Z");
    CU_ASSERT_STRING_EQUAL(str(json_object_get(e, "source"), "name"), "x.pcap");
    CU_ASSERT_EQUAL(num(json_object_get(e, "totals"), "frames"), 11);
    CU_ASSERT_EQUAL(num(json_object_get(e, "totals"), "flows"), 3);
    CU_ASSERT_EQUAL(num(json_object_get(e, "totals"), "flows_evicted"), 1);
    CU_ASSERT_EQUAL(num(json_object_get(e, "totals"), "flows_expired"), 1);
    CU_ASSERT_PTR_NULL(json_object_get(e, "flows"));
    /* the bottlenecks the flows held share: none here (no L4S flow) */
    CU_ASSERT_TRUE(json_is_array(json_object_get(e, "bottlenecks")));
    CU_ASSERT_EQUAL(json_array_size(json_object_get(e, "bottlenecks")), 0);
    CU_ASSERT_EQUAL(count(ev, "flow_update", 0), 0); /* offline: none */
    json_decref(ev);
    free(text);
}

/* man/ecnwatch-report.5, finding: "once per flow and kind", though the
 * flows go on misbehaving through many intervals and end; two kinds on one
 * flow are two events, one kind on two flows two more */
static void
test_findings_once(void)
{
    struct run *r = start(NULL, 16, 0, false);
    struct ew_pkt p;
    json_t *ev;
    char *text;
    int bad, i;
    uint16_t port;

    for (port = 40000; port <= 40001; port++) {
        /* an ECT(0) SYN, no ECN asked for; then ECT(0) data */
        fx_pkt(&p, EW_L4_TCP, CLI, port, EW_TCP_SYN, 500, 0, EW_ECN_ECT_0);
        frame(r, &p, T0 + port - 40000);
        fx_pkt(&p, EW_L4_TCP, SRV, port, EW_TCP_SYN | EW_TCP_ACK, 900, 0, EW_ECN_NOT_ECT);
        frame(r, &p, T0 + 1000 + port - 40000);
    }
    for (i = 0; i < 40; i++)
        for (port = 40000; port <= 40001; port++) {
            fx_pkt(&p, EW_L4_TCP, CLI, port, EW_TCP_ACK, 501 + 1000 * (uint32_t)i, 1000,
                EW_ECN_ECT_0);
            frame(r, &p, T0 + (int64_t)i * SEC / 4 + port - 40000 + 5000);
        }
    text = finish(r, false);
    ev = events_of(text, &bad);
    CU_ASSERT_EQUAL(bad, 0);
    CU_ASSERT_EQUAL(check_rules(ev, 2), 0);
    /* both flows, each with its kinds: the same kinds on both */
    CU_ASSERT_TRUE(count(ev, "finding", 1) >= 2);
    CU_ASSERT_EQUAL(count(ev, "finding", 1), count(ev, "finding", 2));
    CU_ASSERT_EQUAL(count(ev, "finding", 0), count(ev, "finding", 1) * 2);
    json_decref(ev);
    free(text);
}

/* stream.h: "flushed each interval of packet time": events made between
 * two intervals' ends (here flow_end of evicted flows) wait in the buffer,
 * then all go out at once, whole lines, when a packet reaches the next */
static void
test_flush_per_interval(void) /* ECT(0) flows: evicted, each gets its flow_end */
{
    struct run *r = start(NULL, 2, 0, false);
    struct ew_pkt p;
    long size;
    char *text;
    json_t *ev;
    int bad;

    fx_pkt(&p, EW_L4_UDP, CLI, 1, 0, 0, 10, EW_ECN_ECT_0);
    frame(r, &p, T0 + SEC); /* the first interval: [1 s, 2 s) */
    fx_pkt(&p, EW_L4_UDP, CLI, 2, 0, 0, 10, EW_ECN_ECT_0);
    frame(r, &p, T0 + SEC + SEC / 10);
    fx_pkt(&p, EW_L4_UDP, CLI, 3, 0, 0, 10, EW_ECN_ECT_0);
    frame(r, &p, T0 + SEC + SEC / 5); /* flow 1 is evicted */
    frame(r, &p, T0 + 2 * SEC - 1);
    CU_ASSERT_EQUAL(on_disk(r), 0);
    frame(r, &p, T0 + 2 * SEC); /* the interval is over */
    size = on_disk(r);
    CU_ASSERT_TRUE(size > 0);
    text = written(r);
    ev = events_of(text, &bad);
    CU_ASSERT_EQUAL(bad, 0);
    CU_ASSERT_EQUAL(json_array_size(ev), 1);
    CU_ASSERT_STRING_EQUAL(str(json_array_get(ev, 0), "reason"), "evicted");
    CU_ASSERT_EQUAL(num(json_object_get(json_array_get(ev, 0), "flow"), "id"), 1);
    json_decref(ev);
    free(text);

    /* the next interval runs from that packet: [2 s, 3 s) */
    fx_pkt(&p, EW_L4_UDP, CLI, 2, 0, 0, 10, EW_ECN_ECT_0);
    frame(r, &p, T0 + 2 * SEC + SEC / 2);
    fx_pkt(&p, EW_L4_UDP, CLI, 4, 0, 0, 10, EW_ECN_ECT_0);
    frame(r, &p, T0 + 2 * SEC + SEC * 6 / 10); /* flow 3 is evicted */
    frame(r, &p, T0 + 3 * SEC - 1);
    CU_ASSERT_EQUAL(on_disk(r), size);
    frame(r, &p, T0 + 3 * SEC);
    CU_ASSERT_TRUE(on_disk(r) > size);
    text = written(r);
    ev = events_of(text, &bad);
    CU_ASSERT_EQUAL(bad, 0);
    CU_ASSERT_EQUAL(json_array_size(ev), 2);
    CU_ASSERT_EQUAL(num(json_object_get(json_array_get(ev, 1), "flow"), "id"), 3);
    json_decref(ev);
    free(text);
    CU_ASSERT_FALSE(r->s.error);

    /* the end writes out the rest */
    stream_finish(r);
    text = written(r);
    ev = events_of(text, &bad);
    CU_ASSERT_EQUAL(bad, 0);
    CU_ASSERT_EQUAL(check_rules(ev, 4), 0);
    CU_ASSERT_STRING_EQUAL(str(json_array_get(ev, json_array_size(ev) - 1), "event"), "summary");
    json_decref(ev);
    free(text);
    free(finish(r, true));
}

/* stream.h: flow_update (live mode) each interval for each flow active in
 * it, with the flow object; none for a flow quiet in that interval */
static void
test_updates(void)
{
    struct run *r = start(NULL, 8, 0, true);
    struct ew_pkt p;
    json_t *ev, *e;
    char *text;
    int bad;

    fx_pkt(&p, EW_L4_UDP, CLI, 1, 0, 0, 10, EW_ECN_ECT_1);
    frame(r, &p, T0);
    fx_pkt(&p, EW_L4_UDP, CLI, 2, 0, 0, 10, EW_ECN_ECT_0);
    frame(r, &p, T0 + SEC / 2);
    frame(r, &p, T0 + SEC); /* end of the first interval: both active */
    frame(r, &p, T0 + 2 * SEC); /* the second: only flow 2 */
    text = finish(r, false);
    ev = events_of(text, &bad);
    CU_ASSERT_EQUAL(bad, 0);
    CU_ASSERT_EQUAL(check_rules(ev, 2), 0);
    CU_ASSERT_EQUAL(count(ev, "flow_update", 1), 1);
    CU_ASSERT_EQUAL(count(ev, "flow_update", 2), 2);
    e = json_array_get(ev, 0);
    CU_ASSERT_STRING_EQUAL(str(e, "event"), "flow_update");
    CU_ASSERT_EQUAL(num(json_object_get(json_object_get(e, "flow"), "c2s"), "packets"),
                    num(json_object_get(e, "flow"), "id") == 2 ? 2 : 1);
    json_decref(ev);
    free(text);
}

/* man/ecnwatch-report.5, finding: findings are looked for "at the end" too:
 * a capture shorter than one interval has its findings, each before its
 * flow's flow_end */
static void
test_last_interval(void)
{
    struct run *r = start(NULL, 8, 0, false);
    struct ew_pkt p;
    json_t *ev;
    char *text;
    int bad, i;

    fx_pkt(&p, EW_L4_TCP, CLI, 40000, EW_TCP_SYN, 500, 0, EW_ECN_NOT_ECT);
    frame(r, &p, T0);
    fx_pkt(&p, EW_L4_TCP, SRV, 40000, EW_TCP_SYN | EW_TCP_ACK, 900, 0, EW_ECN_NOT_ECT);
    frame(r, &p, T0 + 1000000);
    for (i = 0; i < 3; i++) {
        fx_pkt(&p, EW_L4_TCP, CLI, 40000, EW_TCP_ACK, 501 + 1000 * (uint32_t)i, 1000, EW_ECN_ECT_0);
        frame(r, &p, T0 + (int64_t)(i + 2) * 1000000);
    }
    text = finish(r, false);
    ev = events_of(text, &bad);
    CU_ASSERT_EQUAL(bad, 0);
    CU_ASSERT_EQUAL(check_rules(ev, 1), 0);
    CU_ASSERT_EQUAL_FATAL(json_array_size(ev), 3);
    CU_ASSERT_STRING_EQUAL(str(json_array_get(ev, 0), "event"), "finding");
    CU_ASSERT_STRING_EQUAL(str(json_array_get(ev, 0), "kind"), "ect_without_negotiation");
    CU_ASSERT_STRING_EQUAL(str(json_array_get(ev, 0), "time"), "2023-11-14T22:13:20.004000Z");
    CU_ASSERT_STRING_EQUAL(str(json_array_get(ev, 1), "reason"), "capture_end");
    json_decref(ev);
    free(text);
}

/* stream.c, on_evict and ew_stream_finish: a flow ended by the idle timeout
 * has had its flow_end; it gets no other, neither when its record is reused
 * (the table is full) nor at the end of the capture (flows of ECT(0)
 * datagrams: a small flow without ECN gets no flow_end at all) */
static void
test_end_once(void)
{
    int reuse;

    for (reuse = 0; reuse <= 1; reuse++) {
        struct run *r = start(NULL, 2, SEC, false);
        struct ew_pkt p;
        json_t *ev, *last;
        char *text;
        int bad;

        fx_pkt(&p, EW_L4_UDP, CLI, 1, 0, 0, 10, EW_ECN_ECT_0);
        frame(r, &p, T0);
        fx_pkt(&p, EW_L4_UDP, CLI, 2, 0, 0, 10, EW_ECN_ECT_0);
        frame(r, &p, T0 + 3 * SEC); /* flow 1 ends, idle */
        if (reuse) {
            fx_pkt(&p, EW_L4_UDP, CLI, 3, 0, 0, 10, EW_ECN_ECT_0);
            frame(r, &p, T0 + 3 * SEC + SEC / 2); /* takes flow 1's record */
        }
        text = finish(r, false);
        ev = events_of(text, &bad);
        CU_ASSERT_EQUAL(bad, 0);
        CU_ASSERT_EQUAL(check_rules(ev, 2 + reuse), 0);
        CU_ASSERT_EQUAL(count(ev, "flow_end", 1), 1);
        CU_ASSERT_EQUAL_FATAL(json_array_size(ev), (size_t)(3 + reuse));
        CU_ASSERT_STRING_EQUAL(str(json_array_get(ev, 0), "reason"), "idle");
        CU_ASSERT_STRING_EQUAL(str(json_array_get(ev, 1), "reason"), "capture_end");
        last = json_object_get(json_array_get(ev, json_array_size(ev) - 1), "totals");
        CU_ASSERT_EQUAL(num(last, "flows_expired"), 1);
        CU_ASSERT_EQUAL(num(last, "flows_evicted"), reuse);
        json_decref(ev);
        free(text);
    }
}

/* man/ecnwatch-report.5, summary: with no frame read, the only line, at
 * 1970-01-01T00:00:00.000000Z */
static void
test_nothing_read(void)
{
    struct run *r = start(NULL, 4, 0, false);
    json_t *ev;
    char *text;
    int bad;

    text = finish(r, false);
    ev = events_of(text, &bad);
    CU_ASSERT_EQUAL(bad, 0);
    CU_ASSERT_EQUAL_FATAL(json_array_size(ev), 1);
    CU_ASSERT_STRING_EQUAL(str(json_array_get(ev, 0), "event"), "summary");
    CU_ASSERT_STRING_EQUAL(str(json_array_get(ev, 0), "time"), "1970-01-01T00:00:00.000000Z");
    CU_ASSERT_EQUAL(num(json_object_get(json_array_get(ev, 0), "totals"), "frames"), 0);
    json_decref(ev);
    free(text);
}

/* stream.h, error: "a write failed": a full device refuses the interval's
 * events (the error is known at that interval's end) and the summary */
static void
test_full_device(void)
{
    struct run *r = start("/dev/full", 2, 0, false);
    struct ew_pkt p;
    int i;

    for (i = 1; i <= 3; i++) {
        fx_pkt(&p, EW_L4_UDP, CLI, (uint16_t)i, 0, 0, 10, EW_ECN_ECT_0);
        frame(r, &p, T0 + i); /* the third evicts the first */
    }
    CU_ASSERT_FALSE(r->s.error);
    frame(r, &p, T0 + 2 * SEC);
    CU_ASSERT_TRUE(r->s.error);
    stream_finish(r);
    CU_ASSERT_TRUE(r->s.error);
    finish(r, true);

    /* no event before the end: the summary is refused */
    r = start("/dev/full", 2, 0, false);
    fx_pkt(&p, EW_L4_UDP, CLI, 1, 0, 0, 10, EW_ECN_ECT_0);
    frame(r, &p, T0);
    frame(r, &p, T0 + SEC);
    CU_ASSERT_FALSE(r->s.error);
    stream_finish(r);
    CU_ASSERT_TRUE(r->s.error);
    finish(r, true);
}

/* stream.h: a small flow of no interest (under 32 packets, all Not-ECT, no
 * finding) gets no flow_end, evicted or held at the end, only a count in the
 * summary; one with ECT, or a larger one, gets its flow_end; and
 * past the byte limit events are counted, not written, the summary always */
static void
test_summarised_and_limit(void)
{
    struct run *r = start(NULL, 1, 0, false);
    struct ew_pkt p;
    char *text;
    json_t *ev, *last;
    int bad, i;

    fx_pkt(&p, EW_L4_UDP, CLI, 1, 0, 0, 10, EW_ECN_NOT_ECT);
    frame(r, &p, T0);
    fx_pkt(&p, EW_L4_UDP, CLI, 2, 0, 0, 10, EW_ECN_ECT_0); /* evicts flow 1: no interest */
    frame(r, &p, T0 + 1);
    fx_pkt(&p, EW_L4_UDP, CLI, 3, 0, 0, 10, EW_ECN_NOT_ECT); /* evicts flow 2: ECT(0) */
    frame(r, &p, T0 + 2);
    text = finish(r, false);
    ev = events_of(text, &bad);
    CU_ASSERT_EQUAL(bad, 0);
    last = json_array_get(ev, json_array_size(ev) - 1);
    CU_ASSERT_EQUAL(count(ev, "flow_end", 1), 0);
    CU_ASSERT_EQUAL(count(ev, "flow_end", 2), 1);
    CU_ASSERT_EQUAL(count(ev, "flow_end", 3), 0); /* held at the end: counted too */
    CU_ASSERT_EQUAL(num(last, "flow_ends_summarised"), 2);
    CU_ASSERT_EQUAL(num(last, "events_dropped"), 0);
    json_decref(ev);
    free(text);

    /* a flow without ECN of 32 packets is no longer small: its end is written */
    r = start(NULL, 2, 0, false);
    for (i = 0; i < 32; i++) {
        fx_pkt(&p, EW_L4_UDP, CLI, 7, 0, 0, 10, EW_ECN_NOT_ECT);
        frame(r, &p, T0 + i);
    }
    fx_pkt(&p, EW_L4_UDP, CLI, 8, 0, 0, 10, EW_ECN_NOT_ECT); /* 31 packets: small */
    for (i = 0; i < 31; i++)
        frame(r, &p, T0 + 100 + i);
    text = finish(r, false);
    ev = events_of(text, &bad);
    CU_ASSERT_EQUAL(bad, 0);
    last = json_array_get(ev, json_array_size(ev) - 1);
    CU_ASSERT_EQUAL(count(ev, "flow_end", 1), 1);
    CU_ASSERT_EQUAL(count(ev, "flow_end", 2), 0);
    CU_ASSERT_EQUAL(num(last, "flow_ends_summarised"), 1);
    json_decref(ev);
    free(text);

    /* a limit of 1 kB: the first flow_end passes it, the rest are counted */
    r = start(NULL, 1, 0, false);
    ew_stream_limit(&r->s, 1024);
    for (i = 1; i <= 5; i++) {
        fx_pkt(&p, EW_L4_UDP, CLI, (uint16_t)i, 0, 0, 10, EW_ECN_ECT_0);
        frame(r, &p, T0 + i);
    }
    text = finish(r, false);
    ev = events_of(text, &bad);
    CU_ASSERT_EQUAL(bad, 0);
    last = json_array_get(ev, json_array_size(ev) - 1);
    CU_ASSERT_STRING_EQUAL(str(last, "event"), "summary");
    CU_ASSERT_EQUAL(count(ev, "flow_end", 0), 1);
    CU_ASSERT_EQUAL(num(last, "events_dropped"), 4);
    json_decref(ev);
    free(text);
}

/* run path through a stream with the offline driver's settings (1 s
 * intervals, the default idle timeout); its events */
static char *
stream_capture(const char *path, uint32_t max_flows, int64_t *frames)
{
    char err[EW_ERRBUF_SIZE];
    struct run *r = start(NULL, max_flows, 300 * SEC, false);
    struct ew_capture *cap;
    struct ew_frame fr;

    *frames = 0;
    CU_ASSERT_FATAL(ew_capture_open_file(path, NULL, &cap, err, sizeof(err)) == 0);
    while (ew_capture_next(cap, &fr, err, sizeof(err)) == EW_CAP_FRAME) {
        struct ew_pkt pkt_;

        ew_dissect_frame(ew_capture_link(cap), fr.data, fr.caplen, fr.wirelen, &pkt_);
        frame(r, &pkt_, fr.ts_ns);
        (*frames)++;
    }
    ew_capture_close(cap);
    CU_ASSERT_FALSE(r->s.error);
    return finish(r, false);
}

/* stream.h on real traffic: bundled captures with findings (captures/README),
 * every flow whole (a big table) and with most evicted (a table of one);
 * the same bytes twice */
static void
test_captures(void)
{
    static const char *const caps[] = {
        "captures/ect-without-negotiation-client.pcap", "captures/ce-on-notect-server.pcap",
        "captures/bleach-rfc3168-server.pcap",         "captures/remark-ect1-ect0-client.pcap",
        "captures/udp-ect-client.pcap",                "captures/shared-single-server.pcap",
    };
    size_t i;
    int findings = 0;

    for (i = 0; i < sizeof(caps) / sizeof(caps[0]); i++) {
        uint32_t max;

        for (max = 1; max <= 4096; max *= 4096) {
            int64_t frames, again;
            char *text = stream_capture(caps[i], max, &frames);
            char *twice = stream_capture(caps[i], max, &again);
            json_t *ev, *last;
            int bad;

            CU_ASSERT_STRING_EQUAL(text, twice);
            ev = events_of(text, &bad);
            CU_ASSERT_EQUAL(bad, 0);
            last = json_array_get(ev, json_array_size(ev) - 1);
            CU_ASSERT_EQUAL(num(json_object_get(last, "totals"), "frames"), frames);
            bad = check_rules(ev, num(json_object_get(last, "totals"), "flows"));
            if (bad)
                fprintf(stderr, "%s, %u flows: %d faults\n", caps[i], max, bad);
            CU_ASSERT_EQUAL(bad, 0);
            if (max == 1)
                CU_ASSERT_EQUAL(count(ev, "flow_end", 0) + num(last, "flow_ends_summarised"),
                                num(json_object_get(last, "totals"), "flows"));
            findings += count(ev, "finding", 0);
            json_decref(ev);
            free(text);
            free(twice);
        }
    }
    CU_ASSERT_TRUE(findings >= 8);
}

int
ew_test_register_stream(void)
{
    CU_pSuite s = CU_add_suite("stream", NULL, NULL);

    if (!s)
        return -1;
    if (!CU_add_test(s, "events: findings, three flow ends, the summary", test_events) ||
        !CU_add_test(s, "a finding once per flow and kind", test_findings_once) ||
        !CU_add_test(s, "written out once per interval", test_flush_per_interval) ||
        !CU_add_test(s, "flow_update per active flow and interval", test_updates) ||
        !CU_add_test(s, "an idle flow ends once", test_end_once) ||
        !CU_add_test(s, "the last interval's findings", test_last_interval) ||
        !CU_add_test(s, "nothing read: the summary alone", test_nothing_read) ||
        !CU_add_test(s, "a full device sets error", test_full_device) ||
        !CU_add_test(s, "evicted flows of no interest summarised; the byte limit", test_summarised_and_limit) ||
        !CU_add_test(s, "bundled captures: the rules hold", test_captures))
        return -1;
    return 0;
}
