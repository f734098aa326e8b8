/* main.c - command line, the offline read loop, outputs and exit statuses.
 *
 * Exit statuses (man/ecnwatch.1): 0 done; 1 reserved for --fail-on; 2 bad
 * usage (unknown option, bad value, bad filter expression); 3 the input
 * cannot be read (missing, permission, not a capture, unsupported link type);
 * 4 the report cannot be written.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ecnwatch/analyze.h"
#include "ecnwatch/capture.h"
#include "ecnwatch/conclude.h"
#include "ecnwatch/infer.h"
#include "ecnwatch/live.h"
#include "ecnwatch/metrics.h"
#include "ecnwatch/misuse.h"
#include "ecnwatch/outfile.h"
#include "ecnwatch/pathcmp.h"
#include "ecnwatch/reader.h"
#include "ecnwatch/stream.h"
#include "ecnwatch/report.h"
#include "ecnwatch/series.h"
#include "ecnwatch/version.h"

enum {
    EXIT_DONE = 0,
    EXIT_FAIL_ON = 1,
    EXIT_USAGE = 2,
    EXIT_INPUT = 3,
    EXIT_OUTPUT = 4,
};

enum {
    OPT_JSON = 256,
    OPT_MAX_FLOWS,
    OPT_HOT_FLOWS,
    OPT_IDLE,
    OPT_SEED,
    OPT_TEXT_FLOWS,
    OPT_FAIL_ON,
    OPT_NDJSON,
    OPT_INTERVAL,
    OPT_TIMESERIES,
    OPT_PLOT,
    OPT_METRICS,
    OPT_METRICS_FILE,
};

#define MAX_FILES 8

struct options {
    const char *read_file; /* the first -r */
    const char *files[MAX_FILES];
    int nfiles;
    const char *out_file;
    const char *iface;
    int snaplen;
    int buffer_kib;
    const char *user;
    double interval_s;
    bool interval_set;
    bool timeseries;
    const char *plot_dir;
    const char *metrics_listen; /* --metrics ADDR:PORT */
    const char *metrics_file;
    bool json;
    bool ndjson;
    bool quiet;
    uint64_t count; /* 0: no limit */
    uint32_t max_flows;
    uint32_t hot_flows; /* 0: the table's default */
    double idle_s;
    bool have_seed;
    uint64_t seed;
    size_t text_flows;
    uint32_t fail_on; /* mask of misuse kinds */
    char *filter; /* joined trailing words, or NULL */
};

static volatile sig_atomic_t stop_requested;

static void
on_signal(int sig)
{
    (void)sig;
    stop_requested = 1;
}

static void
usage(FILE *out)
{
    fprintf(out,
            "Usage: ecnwatch -r FILE [-r FILE...] [options] [filter expression]\n"
            "       ecnwatch -i INTERFACE [options] [filter expression]\n"
            "Report what ECN is doing in a capture: codepoints, feedback, verdicts, misuse.\n"
            "\n"
            "  -r FILE             read a pcap or pcapng capture; '-' reads standard input;\n"
            "                      several -r: the same traffic captured along its path\n"
            "                      (upstream first): ECN changes between them are located\n"
            "  -i IFACE            capture live: a terminal view, or NDJSON when standard\n"
            "                      output is not a terminal\n"
            "  -s SNAPLEN          live: bytes kept per packet (default 192; 0 = all)\n"
            "  -B KIB              live: kernel buffer size in KiB\n"
            "  -Z USER             live: drop to USER once the capture is open (default nobody)\n"
            "  --interval SEC      time-series bins (default 0.1); live: refresh (default 1)\n"
            "  --timeseries        per-flow time series in the JSON report\n"
            "  --plot DIR          an SVG per flow (throughput, RTT, CE, ECT(1)) and an index\n"
            "  --json              write the JSON report to standard output\n"
            "  --ndjson            stream events, one JSON object per line: findings as found,\n"
            "                      flow ends, a summary\n"
            "  -o FILE             write the JSON report to FILE (atomically)\n"
            "  -c N                stop after N packets\n"
            "  -q                  no human summary (with -o)\n"
            "  --max-flows N       flows held at once (default 65536); overflow is counted\n"
            "  --hot-flows N       flows kept unpacked, the most recently active (default 65536)\n"
            "  --idle-timeout SEC  a flow idle this long in packet time ends (default 300)\n"
            "  --hash-seed N       fixed flow-hash seed (default: random)\n"
            "  --text-flows N      flows listed in the human summary (default 50)\n"
            "  --fail-on KINDS     exit 1 when any listed misuse kind is found (comma-separated, or any)\n"
            "  --metrics ADDR:PORT live: serve Prometheus metrics at http://ADDR:PORT/metrics\n"
            "  --metrics-file PATH the same metrics written to PATH (atomically) each interval;\n"
            "                      with -r once at the end\n"
            "  -h, --help          this help\n"
            "  -V, --version       the version\n"
            "\n"
            "Trailing words are a libpcap filter expression, as tcpdump takes it.\n"
            "Exit status: 0 done, 1 --fail-on matched, 2 bad usage or filter, 3 input unreadable,\n"
            "4 report unwritable.\n"
            "See ecnwatch(1) and ecnwatch-report(5).\n");
}

static int
parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
    char *end;
    unsigned long long v;

    if (!s || !*s || *s == '-')
        return -1;
    errno = 0;
    v = strtoull(s, &end, 0);
    if (errno || *end || v < min || v > max)
        return -1;
    *out = v;
    return 0;
}

static int
bad_value(const char *opt, const char *val, const char *want)
{
    fprintf(stderr, "ecnwatch: bad value '%s' for %s: %s\n", val, opt, want);
    return EXIT_USAGE;
}

/* returns -1 to continue, or an exit status */
static int
parse_args(int argc, char **argv, struct options *o)
{
    static const struct option longopts[] = {
        {"json", no_argument, NULL, OPT_JSON},
        {"max-flows", required_argument, NULL, OPT_MAX_FLOWS},
        {"hot-flows", required_argument, NULL, OPT_HOT_FLOWS},
        {"idle-timeout", required_argument, NULL, OPT_IDLE},
        {"hash-seed", required_argument, NULL, OPT_SEED},
        {"text-flows", required_argument, NULL, OPT_TEXT_FLOWS},
        {"fail-on", required_argument, NULL, OPT_FAIL_ON},
        {"ndjson", no_argument, NULL, OPT_NDJSON},
        {"interval", required_argument, NULL, OPT_INTERVAL},
        {"timeseries", no_argument, NULL, OPT_TIMESERIES},
        {"plot", required_argument, NULL, OPT_PLOT},
        {"metrics", required_argument, NULL, OPT_METRICS},
        {"metrics-file", required_argument, NULL, OPT_METRICS_FILE},
        {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, 'V'},
        {NULL, 0, NULL, 0},
    };
    uint64_t v;
    int c;

    opterr = 0;
    while ((c = getopt_long(argc, argv, ":r:i:s:B:Z:o:c:qhV", longopts, NULL)) != -1) {
        switch (c) {
        case 'r':
            if (o->nfiles == MAX_FILES) {
                fprintf(stderr, "ecnwatch: at most %d captures (-r) at once\n", MAX_FILES);
                return EXIT_USAGE;
            }
            if (o->nfiles > 0 && !strcmp(optarg, "-")) {
                fprintf(stderr, "ecnwatch: only the first capture can be standard input\n");
                return EXIT_USAGE;
            }
            o->files[o->nfiles++] = optarg;
            if (!o->read_file)
                o->read_file = optarg;
            break;
        case 'i':
            o->iface = optarg;
            break;
        case 's':
            if (parse_u64(optarg, 0, 262144, &v) != 0)
                return bad_value("-s", optarg, "a snapshot length from 0 (the maximum) to 262144");
            o->snaplen = v ? (int)v : 262144;
            break;
        case 'B':
            if (parse_u64(optarg, 1, 4u << 20, &v) != 0)
                return bad_value("-B", optarg, "a buffer size in KiB");
            o->buffer_kib = (int)v;
            break;
        case 'Z':
            o->user = optarg;
            break;
        case OPT_INTERVAL: {
            char *end;

            errno = 0;
            o->interval_s = strtod(optarg, &end);
            if (errno || *end || !(o->interval_s >= 0.001) || o->interval_s > 3600)
                return bad_value("--interval", optarg, "seconds, from 0.001 to 3600");
            o->interval_set = true;
            break;
        }
        case OPT_TIMESERIES:
            o->timeseries = true;
            break;
        case OPT_PLOT:
            o->plot_dir = optarg;
            break;
        case OPT_METRICS: {
            struct sockaddr_storage ss;
            socklen_t sslen;
            char why[160];

            if (ew_metrics_parse_addr(optarg, &ss, &sslen, why, sizeof(why)) != 0)
                return bad_value("--metrics", optarg, why);
            o->metrics_listen = optarg;
            break;
        }
        case OPT_METRICS_FILE:
            if (!*optarg)
                return bad_value("--metrics-file", optarg, "a file name");
            o->metrics_file = optarg;
            break;
        case 'o':
            o->out_file = optarg;
            break;
        case 'c':
            if (parse_u64(optarg, 1, UINT64_MAX, &o->count) != 0)
                return bad_value("-c", optarg, "a packet count of at least 1");
            break;
        case 'q':
            o->quiet = true;
            break;
        case OPT_JSON:
            o->json = true;
            break;
        case OPT_NDJSON:
            o->ndjson = true;
            break;
        case OPT_MAX_FLOWS:
            if (parse_u64(optarg, 1, 1u << 24, &v) != 0)
                return bad_value("--max-flows", optarg, "a number from 1 to 16777216");
            o->max_flows = (uint32_t)v;
            break;
        case OPT_HOT_FLOWS:
            if (parse_u64(optarg, 1, 1u << 24, &v) != 0)
                return bad_value("--hot-flows", optarg, "a number from 1 to 16777216");
            o->hot_flows = (uint32_t)v;
            break;
        case OPT_IDLE: {
            char *end;

            errno = 0;
            o->idle_s = strtod(optarg, &end);
            if (errno || *end || !(o->idle_s >= 0) || o->idle_s > 1e9)
                return bad_value("--idle-timeout", optarg, "seconds, 0 to disable");
            break;
        }
        case OPT_SEED:
            if (parse_u64(optarg, 0, UINT64_MAX, &o->seed) != 0)
                return bad_value("--hash-seed", optarg, "an unsigned 64-bit number");
            o->have_seed = true;
            break;
        case OPT_TEXT_FLOWS:
            if (parse_u64(optarg, 0, SIZE_MAX, &v) != 0)
                return bad_value("--text-flows", optarg, "a number of flows");
            o->text_flows = (size_t)v;
            break;
        case OPT_FAIL_ON: {
            char bad[80];

            if (ew_misuse_parse_list(optarg, &o->fail_on, bad, sizeof(bad)) != 0) {
                fprintf(stderr,
                        "ecnwatch: --fail-on: unknown misuse kind '%s' (see ecnwatch(1) for the "
                        "list, or use 'any')\n",
                        bad);
                return EXIT_USAGE;
            }
            break;
        }
        case 'h':
            usage(stdout);
            return EXIT_DONE;
        case 'V':
            printf("ecnwatch %s\n", EW_VERSION);
            return EXIT_DONE;
        case ':':
            fprintf(stderr, "ecnwatch: option %s needs a value (try --help)\n",
                    argv[optind - 1]);
            return EXIT_USAGE;
        default:
            if (optopt)
                fprintf(stderr, "ecnwatch: unknown option '-%c' (try --help)\n", optopt);
            else
                fprintf(stderr, "ecnwatch: unknown option '%s' (try --help)\n",
                        argv[optind - 1]);
            return EXIT_USAGE;
        }
    }
    if (o->json && o->ndjson) {
        fprintf(stderr, "ecnwatch: --json and --ndjson both write to standard output; pick one "
                        "(-o FILE writes the report to a file)\n");
        return EXIT_USAGE;
    }
    if (!o->read_file && !o->iface) {
        fprintf(stderr, "ecnwatch: no input: give -r FILE or -i INTERFACE (try --help)\n");
        return EXIT_USAGE;
    }
    if (o->read_file && o->iface) {
        fprintf(stderr, "ecnwatch: -r and -i cannot be used together\n");
        return EXIT_USAGE;
    }
    if (o->metrics_listen && !o->iface) {
        fprintf(stderr, "ecnwatch: --metrics serves a live capture (-i); with -r use "
                        "--metrics-file\n");
        return EXIT_USAGE;
    }
    if (optind < argc) {
        size_t len = 0;
        int i;

        for (i = optind; i < argc; i++)
            len += strlen(argv[i]) + 1;
        o->filter = malloc(len);
        if (!o->filter) {
            fprintf(stderr, "ecnwatch: out of memory\n");
            return EXIT_USAGE;
        }
        o->filter[0] = '\0';
        for (i = optind; i < argc; i++) {
            if (i > optind)
                strcat(o->filter, " ");
            strcat(o->filter, argv[i]);
        }
    }
    return -1;
}

static uint64_t
pick_seed(const struct options *o)
{
    const char *env = getenv("ECNWATCH_HASH_SEED");
    uint64_t seed = 0;

    if (o->have_seed)
        return o->seed;
    if (env && parse_u64(env, 0, UINT64_MAX, &seed) == 0)
        return seed;
    if (getrandom(&seed, sizeof(seed), GRND_NONBLOCK) != (ssize_t)sizeof(seed))
        seed = 0x9e3779b97f4a7c15ULL; /* the seed only spreads the index; output does not depend on it */
    return seed;
}

/* flow directions with a time series, at most (each EW_SERIES_BINS bins) */
#define SERIES_MAX 1024


struct plot_arg {
    const struct ew_analyzer *an;
    const struct ew_flow *f;
    const uint32_t *refs;
    size_t n;
    struct ew_flow_room *room;
};

static int
svg_cb(void *arg, FILE *out)
{
    struct plot_arg *a = arg;

    return ew_series_svg(a->an->series, a->f, out);
}

static int
index_cb(void *arg, FILE *out)
{
    struct plot_arg *a = arg;
    size_t i;

    fprintf(out, "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>ecnwatch plots"
                 "</title></head>\n<body style=\"font-family: sans-serif\">\n<h1>ecnwatch: "
                 "flows over time</h1>\n<table>\n<tr><th>flow</th><th>endpoints</th>"
                 "<th>verdict</th><th>path</th></tr>\n");
    for (i = 0; i < a->n; i++) {
        const struct ew_flow *f = ew_flowtab_view(a->an->tab, a->refs[i], a->room);
        struct ew_flow_summary sum;
        char x[64], y[64];

        if (!f->series[0] && !f->series[1])
            continue;
        ew_flow_conclude(f, EW_CONCLUDE_PATH, &sum);
        ew_addr_str(f->key.lo, f->key.family, x, sizeof(x));
        ew_addr_str(f->key.hi, f->key.family, y, sizeof(y));
        fprintf(out, "<tr><td><a href=\"flow-%llu.svg\">%llu</a></td><td>%s:%u &harr; %s:%u</td>"
                     "<td>%s</td><td>%s</td></tr>\n",
                (unsigned long long)f->id, (unsigned long long)f->id, x, f->key.port_lo, y,
                f->key.port_hi, ew_verdict_name[sum.v.verdict], ew_aqm_name[sum.path[sum.v.main_dir].aqm]);
    }
    fprintf(out, "</table>\n");
    for (i = 0; i < a->n; i++) {
        const struct ew_flow *f = ew_flowtab_view(a->an->tab, a->refs[i], a->room);

        if (f->series[0] || f->series[1])
            fprintf(out, "<p><img src=\"flow-%llu.svg\" alt=\"flow %llu\"></p>\n",
                    (unsigned long long)f->id, (unsigned long long)f->id);
    }
    fprintf(out, "</body></html>\n");
    return ferror(out) ? -1 : 0;
}

/* --plot DIR: an SVG per flow with a series, and an index page */
static int
write_plots(const struct ew_analyzer *an, const char *dir, char *err, size_t errlen)
{
    struct ew_flowtab_stats st;
    struct plot_arg a = {.an = an};
    uint32_t *refs;
    char path[4096];
    size_t i;
    int rc = 0;

    if (mkdir(dir, 0755) != 0 && errno != EEXIST) {
        snprintf(err, errlen, "--plot %s: %s", dir, strerror(errno));
        return -1;
    }
    ew_flowtab_get_stats(an->tab, &st);
    refs = malloc((st.in_table ? st.in_table : 1) * sizeof(*refs));
    a.room = malloc(sizeof(*a.room));
    if (!refs || !a.room) {
        free(refs);
        free(a.room);
        snprintf(err, errlen, "--plot: out of memory");
        return -1;
    }
    a.refs = refs;
    a.n = ew_flowtab_refs(an->tab, refs, st.in_table, false);
    for (i = 0; i < a.n && rc == 0; i++) {
        a.f = ew_flowtab_view(an->tab, refs[i], a.room);
        if (!a.f->series[0] && !a.f->series[1])
            continue;
        snprintf(path, sizeof(path), "%s/flow-%llu.svg", dir, (unsigned long long)a.f->id);
        rc = ew_outfile_write(path, svg_cb, &a, "plot", err, errlen);
    }
    if (rc == 0) {
        snprintf(path, sizeof(path), "%s/index.html", dir);
        rc = ew_outfile_write(path, index_cb, &a, "plot index", err, errlen);
    }
    free(refs);
    free(a.room);
    return rc;
}

/* packets of the first capture indexed for matching, at most */
#define PATH_INDEX_MAX (4u << 20)

struct read_ctx {
    const struct options *o;
    struct ew_stream *stream; /* --ndjson, or NULL */
    struct ew_analyzer *an;  /* analyse (the first capture), or NULL */
    struct ew_index *index;  /* index for the next capture downstream, or NULL */
    struct ew_hop *hop;      /* match against the capture upstream, or NULL */
    struct ew_index *up;
    struct ew_report_src *src;
};

/* Frames read ahead of their accounting: each is copied out of the reader's
 * buffer and decoded when read, its flow's index slot is fetched into the
 * cache then, its record one frame later, and it is accounted two frames
 * after it was read, so that the memory of three frames' flows is in flight
 * at once. Accounting stays in frame order; the pipeline is drained before
 * anything else happens (end of file, -c, a signal, a broken record). A
 * regular file, on a machine with more than one processor, is read and
 * decoded by a thread of its own instead (reader.h), with the same results. */
#ifndef AHEAD
#define AHEAD 3
#endif

static void
account_frame(struct read_ctx *rc, const struct ew_rframe *a)
{
    const uint8_t *payload = NULL;
    size_t plen = 0;

    if (rc->an) {
        ew_analyzer_frame_prepared(rc->an, &a->pkt, a->fr.ts_ns, &a->pre);
        if (rc->stream)
            ew_stream_packet(rc->stream, a->fr.ts_ns);
    }
    if (rc->index || rc->hop) {
        if (a->pkt.l4_end && a->pkt.l4_end < a->fr.caplen) {
            payload = a->fr.data + a->pkt.l4_end;
            plen = a->fr.caplen - a->pkt.l4_end;
        }
        if (rc->hop)
            ew_hop_match(rc->hop, rc->up, &a->pkt, payload, plen, a->fr.number);
        if (rc->index)
            ew_index_add(rc->index, &a->pkt, payload, plen, a->fr.number);
    }
}

/* how one capture's reading ended */
struct read_end {
    uint64_t frames;
    bool broken;
    bool nomem;
    char err[EW_ERRBUF_SIZE];
};

/* the capture read in this thread, AHEAD frames ahead */
static void
read_inline(struct read_ctx *rc, struct ew_capture *cap, struct read_end *re)
{
    enum ew_link link = ew_capture_link(cap);
    uint64_t frames = 0, done = 0, seed = rc->an ? ew_analyzer_seed(rc->an) : 0;
    struct ew_rframe ring[AHEAD];
    uint8_t *buf[AHEAD] = {NULL}; /* each slot's copy of its frame */
    size_t room[AHEAD] = {0};
    int e;

    memset(ring, 0, sizeof(ring));
    for (;;) {
        struct ew_frame fr;
        struct ew_rframe *a;
        enum ew_cap_next nx;

        if (stop_requested) {
            rc->src->interrupted = true;
            break;
        }
        if (rc->o->count && frames >= rc->o->count)
            break;
        nx = ew_capture_next(cap, &fr, re->err, sizeof(re->err));
        if (nx == EW_CAP_END)
            break;
        if (nx == EW_CAP_BROKEN && stop_requested) {
            /* the signal interrupted a blocking read: a stop, not a broken file */
            rc->src->interrupted = true;
            break;
        }
        if (nx == EW_CAP_BROKEN) {
            re->broken = true;
            break;
        }
        e = (int)(frames % AHEAD);
        a = &ring[e];
        if (room[e] < fr.caplen || !buf[e]) {
            size_t n = fr.caplen > 2048 ? fr.caplen : 2048;
            uint8_t *nb = realloc(buf[e], n);

            if (!nb) {
                re->nomem = true;
                break;
            }
            buf[e] = nb;
            room[e] = n;
        }
        ew_rframe_fill(a, &fr, buf[e], link, rc->an != NULL, seed);
        frames++;
        if (rc->an) {
            ew_analyzer_prefetch_slot(rc->an, &a->pre);
            if (frames - done >= 2) {
                struct ew_rframe *b = &ring[(frames - 2) % AHEAD];

                ew_analyzer_prefetch_flow(rc->an, &b->pkt, &b->pre);
            }
        }
        if (frames - done == AHEAD)
            account_frame(rc, &ring[done++ % AHEAD]);
    }
    while (done < frames)
        account_frame(rc, &ring[done++ % AHEAD]);
    for (e = 0; e < AHEAD; e++)
        free(buf[e]);
    re->frames = frames;
}

/* the capture read and decoded by the reader thread; the flow of a frame a
 * few ahead is looked up in the index, and one nearer's record fetched */
#ifndef THREAD_SLOT_AHEAD
#define THREAD_SLOT_AHEAD 2
#endif
#ifndef THREAD_FLOW_AHEAD
#define THREAD_FLOW_AHEAD 1
#endif
static void
read_threaded(struct read_ctx *rc, struct ew_reader *r, struct read_end *re)
{
    uint64_t i;

    for (i = 0;; i++) {
        const struct ew_rframe *a, *b;

        if (stop_requested) {
            rc->src->interrupted = true;
            break;
        }
        a = ew_reader_get(r, i);
        if (!a)
            break;
        if (rc->an) {
            if ((b = ew_reader_peek(r, i + THREAD_SLOT_AHEAD)) != NULL)
                ew_analyzer_prefetch_slot(rc->an, &b->pre);
            if ((b = ew_reader_peek(r, i + THREAD_FLOW_AHEAD)) != NULL)
                ew_analyzer_prefetch_flow(rc->an, &b->pkt, &b->pre);
        }
        account_frame(rc, a);
        ew_reader_release(r, i + 1);
    }
    switch (ew_reader_finish(r, &re->frames, NULL, re->err, sizeof(re->err))) {
    case EW_READER_BROKEN:
        re->broken = true;
        break;
    case EW_READER_NOMEM:
        re->nomem = true;
        break;
    case EW_READER_END:
    case EW_READER_STOPPED:
        break;
    }
}

/* a thread of its own pays for a file on disk, with a processor to spare */
static bool
reader_thread_worth(const char *path)
{
    struct stat st;

    return strcmp(path, "-") != 0 && stat(path, &st) == 0 && S_ISREG(st.st_mode) &&
           ew_spare_processor();
}

/* Read one capture to its end, -c, or a signal. 0, or an exit status. */
static int
read_capture(struct read_ctx *rc, const char *path, bool first)
{
    char err[EW_ERRBUF_SIZE];
    struct ew_capture *cap;
    struct ew_reader *r = NULL;
    struct read_end re;
    int e = ew_capture_open_file(path, rc->o->filter, &cap, err, sizeof(err));

    if (e != 0) {
        fprintf(stderr, "ecnwatch: %s\n", err);
        return e == EW_CAP_ERR_FILTER ? EXIT_USAGE : EXIT_INPUT;
    }
    memset(&re, 0, sizeof(re));
    if (first) {
        rc->src->name = strcmp(path, "-") == 0 ? "-" : path;
        rc->src->linktype = ew_capture_link_name(cap);
        rc->src->filter = rc->o->filter;
        rc->src->packet_limit = rc->o->count;
    }
    if (reader_thread_worth(path))
        r = ew_reader_start(cap, ew_capture_link(cap), rc->o->count, rc->an);
    if (r)
        read_threaded(rc, r, &re);
    else
        read_inline(rc, cap, &re);
    if (re.broken) {
        if (first)
            rc->src->truncated = true;
        fprintf(stderr, "ecnwatch: warning: %s: capture ends mid-record after %" PRIu64
                " frames (%s); the report covers what was read\n",
                strcmp(path, "-") ? path : "standard input", re.frames, re.err);
    }
    ew_capture_close(cap);
    if (re.nomem) {
        fprintf(stderr, "ecnwatch: out of memory reading %s\n", path);
        return EXIT_INPUT;
    }
    return 0;
}

int
main(int argc, char **argv)
{
    struct options o = {.max_flows = 65536, .idle_s = 300.0, .text_flows = 50, .snaplen = 192,
                        .interval_s = 1.0};
    struct ew_report_src src = {.kind = "file"};
    struct ew_analyzer_cfg cfg;
    struct ew_analyzer an;
    struct ew_stream stream;
    struct ew_series_pool series = {0};
    struct ew_index *up_ix[MAX_FILES] = {NULL};
    struct ew_hop *hops[MAX_FILES] = {NULL};
    bool have_an = false;
    struct sigaction sa;
    char err[EW_ERRBUF_SIZE];
    json_t *root = NULL;
    int i, rc, status = EXIT_DONE;

    rc = parse_args(argc, argv, &o);
    if (rc >= 0) {
        free(o.filter);
        return rc;
    }

    if (o.iface) {
        struct ew_live_cfg lc;

        if (o.json) {
            fprintf(stderr, "ecnwatch: --json is for -r; with -i use -o FILE or --ndjson\n");
            free(o.filter);
            return EXIT_USAGE;
        }
        memset(&lc, 0, sizeof(lc));
        lc.iface = o.iface;
        lc.filter = o.filter;
        lc.snaplen = o.snaplen;
        lc.buffer_kib = o.buffer_kib;
        lc.count = o.count;
        lc.user = o.user;
        lc.ndjson = o.ndjson;
        lc.out_file = o.out_file;
        lc.fail_on = o.fail_on;
        lc.interval_s = o.interval_s;
        lc.metrics_listen = o.metrics_listen;
        lc.metrics_file = o.metrics_file;
        lc.an.max_flows = o.max_flows;
        lc.an.hot_flows = o.hot_flows;
        lc.an.hash_seed = pick_seed(&o);
        lc.an.idle_ns = (int64_t)(o.idle_s * 1e9);
        memset(&sa, 0, sizeof(sa));
        sa.sa_handler = on_signal;
        sigemptyset(&sa.sa_mask);
        sigaction(SIGINT, &sa, NULL);
        sigaction(SIGTERM, &sa, NULL);
        status = ew_live_run(&lc, &stop_requested);
        free(o.filter);
        return status;
    }
    for (i = 1; i < o.nfiles; i++) {
        up_ix[i - 1] = ew_index_new(PATH_INDEX_MAX);
        hops[i - 1] = ew_hop_new(i, i + 1);
        if (!up_ix[i - 1] || !hops[i - 1]) {
            fprintf(stderr, "ecnwatch: out of memory for %d captures\n", o.nfiles);
            status = EXIT_USAGE;
            goto out;
        }
    }
    memset(&cfg, 0, sizeof(cfg));
    cfg.max_flows = o.max_flows;
    cfg.hot_flows = o.hot_flows;
    cfg.hash_seed = pick_seed(&o);
    cfg.idle_ns = (int64_t)(o.idle_s * 1e9);
    ew_stream_init(&stream, stdout, 1000000000, false);
    if (o.ndjson)
        ew_stream_attach(&stream, &cfg);
    if ((o.timeseries || o.plot_dir) &&
        ew_series_pool_init(&series, SERIES_MAX,
                            (int64_t)((o.interval_set ? o.interval_s : 0.1) * 1e9)) != 0) {
        fprintf(stderr, "ecnwatch: out of memory for time series\n");
        free(o.filter);
        return EXIT_USAGE;
    }
    if (ew_analyzer_init(&an, &cfg) != 0) {
        fprintf(stderr, "ecnwatch: cannot allocate a flow table of %" PRIu32 " flows\n",
                o.max_flows);
        status = EXIT_USAGE;
        goto out;
    }
    have_an = true;
    if (series.s)
        an.series = &series;
    ew_stream_bind(&stream, &an);

    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);

    /* the first capture is analysed; each capture is indexed for the next
     * one downstream and matched against the one before it */
    for (i = 0; i < o.nfiles && !src.interrupted; i++) {
        struct read_ctx rc_ = {
            .o = &o,
            .stream = o.ndjson ? &stream : NULL,
            .an = i == 0 ? &an : NULL,
            .index = i + 1 < o.nfiles ? up_ix[i] : NULL,
            .hop = i > 0 ? hops[i - 1] : NULL,
            .up = i > 0 ? up_ix[i - 1] : NULL,
            .src = &src,
        };

        rc = read_capture(&rc_, o.files[i], i == 0);
        if (rc != 0) {
            status = rc;
            goto out;
        }
        if (i > 0)
            ew_hop_finish(hops[i - 1], up_ix[i - 1]);
    }
    if (src.interrupted)
        fprintf(stderr, "ecnwatch: interrupted after %" PRIu64 " frames; writing what was read\n",
                an.tot.frames);

    if (o.json || o.out_file) {
        root = ew_report_head(&an, &src);
        if (o.nfiles > 1) {
            json_t *path = json_object(), *caps = json_array(), *jh = json_array();

            for (i = 0; i < o.nfiles; i++)
                json_array_append_new(caps, json_string(o.files[i]));
            for (i = 1; i < o.nfiles; i++)
                json_array_append_new(jh, ew_hop_json(hops[i - 1], o.files[i - 1], o.files[i]));
            json_object_set_new(path, "captures", caps);
            json_object_set_new(path, "hops", jh);
            json_object_set_new(root, "path", path);
        }
    }
    if (o.out_file && ew_report_write_file(&an, root, o.out_file, err, sizeof(err)) != 0) {
        fprintf(stderr, "ecnwatch: %s\n", err);
        status = EXIT_OUTPUT;
    }
    if (o.metrics_file) {
        struct ew_metrics_src ms = {.interface = NULL};

        if (ew_metrics_write_snapshot(&an, &ms, o.metrics_file, err, sizeof(err)) != 0) {
            fprintf(stderr, "ecnwatch: --metrics-file %s\n", err);
            status = EXIT_OUTPUT;
        }
    }
    if (o.json) {
        if (ew_report_dump(stdout, &an, root) != 0 || fflush(stdout) != 0) {
            fprintf(stderr, "ecnwatch: cannot write the report to standard output\n");
            status = EXIT_OUTPUT;
        }
    } else if (o.ndjson) {
        ew_stream_finish(&stream, &src);
        if (stream.error) {
            fprintf(stderr, "ecnwatch: cannot write the event stream to standard output\n");
            status = EXIT_OUTPUT;
        }
    } else if (!o.quiet) {
        ew_report_text(stdout, &an, &src, o.text_flows);
        for (i = 1; i < o.nfiles; i++)
            ew_hop_text(stdout, hops[i - 1], o.files[i - 1], o.files[i]);
        if (fflush(stdout) != 0)
            status = EXIT_OUTPUT;
    }
    if (o.plot_dir && write_plots(&an, o.plot_dir, err, sizeof(err)) != 0) {
        fprintf(stderr, "ecnwatch: %s\n", err);
        status = EXIT_OUTPUT;
    }
    if (status == EXIT_DONE && o.fail_on) {
        uint64_t counts[32], path_counts[32] = {0};
        uint32_t found = ew_analyzer_findings(&an, counts);

        for (i = 1; i < o.nfiles; i++)
            found |= ew_hop_kinds(hops[i - 1], path_counts);
        found &= o.fail_on;

        if (found) {
            int k;

            fprintf(stderr, "ecnwatch: --fail-on matched:");
            for (k = 0; k < EW_MU_COUNT; k++) {
                if (!(found & (1u << k)))
                    continue;
                fprintf(stderr, " %s", ew_misuse_name[k]);
                if (counts[k])
                    fprintf(stderr, " (%" PRIu64 " flow%s)", counts[k], counts[k] == 1 ? "" : "s");
                if (path_counts[k])
                    fprintf(stderr, " (%" PRIu64 " packet%s between captures)", path_counts[k],
                            path_counts[k] == 1 ? "" : "s");
            }
            fputc('\n', stderr);
            status = EXIT_FAIL_ON;
        }
    }
out:
    json_decref(root);
    if (have_an)
        ew_analyzer_free(&an);
    ew_series_pool_free(&series);
    for (i = 0; i < MAX_FILES; i++) {
        ew_index_free(up_ix[i]);
        ew_hop_free(hops[i]);
    }
    free(o.filter);
    return status;
}
