/* cli.c - the command line (see cli.h): options and their checks, the usage
 * text, the hash seed, and --fail-on's outcome. Every message and exit status
 * here is part of the interface (man/ecnwatch.1, tests/cli.sh).
 *
 * About 650 lines, over the usual 600, for a reason: it is one contract, the
 * command line as ecnwatch(1) describes it, and an option lives in three
 * places here that change together (its usage line, the check of its value,
 * the combinations it refuses); split, the usage text would sit apart from
 * the options it lists. */
#include "base/format.h"
#include "cli/cli.h"

#include <errno.h>
#include <stdbool.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/types.h>

#include "input/ifaces.h"
#include "output/metrics.h"
#include "output/output.h"
#include "output/report.h"
#include "findings/misuse.h"
#include "findings/pathcmp.h"
#include "base/version.h"

enum {
    OPT_JSON = 256,
    OPT_MAX_FLOWS,
    OPT_MAX_OUTPUT,
    OPT_HOT_FLOWS,
    OPT_WORKERS,
    OPT_IDLE,
    OPT_SEED,
    OPT_TEXT_FLOWS,
    OPT_SORT,
    OPT_TEXT_ALL,
    OPT_FAIL_ON,
    OPT_NDJSON,
    OPT_INTERVAL,
    OPT_TIMESERIES,
    OPT_PLOT,
    OPT_CSV,
    OPT_METRICS,
    OPT_METRICS_FILE,
    OPT_WEB_CONFIG,
    OPT_LIST,
    OPT_DECAP,
    OPT_NO_DECAP,
    OPT_PROBE,
    OPT_PROBE_MAX_TTL,
    OPT_PROBE_RATE,
    OPT_PROBE_MAX,
    OPT_PROBE_WAIT,
    OPT_PROBE_UDP_PORT,
    OPT_PROBE_TYPES,
    OPT_PROBE_REPORT,
};

/* --list: the lists the code, the docs and the schema share (misuse.h,
 * infer.h, dissectors/pkt.h) */
static const struct {
    const char *what;
    const char *const *name, *const *text;
    int n;
} lists[] = {
    {"kinds", ew_misuse_name, ew_misuse_text, EW_MU_COUNT},
    {"aqm", ew_aqm_name, ew_aqm_text, EW_AQM_COUNT},
    {"links", ew_link_name, ew_link_text, EW_LINK_COUNT},
    {"events", ew_event_name, ew_event_text, EW_EV_COUNT},
    {"tunnels", ew_tunnel_name, ew_tunnel_text, EW_TUN_COUNT},
    {"probes", ew_probe_type_name, ew_probe_type_text, EW_PT_COUNT},
};

int
ew_list_find(const char *what)
{
    size_t i;

    for (i = 0; i < sizeof(lists) / sizeof(lists[0]); i++)
        if (!strcmp(what, lists[i].what))
            return (int)i;
    return -1;
}

int
ew_list_print(FILE *out, int which)
{
    int k;

    for (k = 0; k < lists[which].n; k++)
        fprintf(out, "%d\t%s\t%s\n", k, lists[which].name[k], lists[which].text[k]);
    return fflush(out) == 0 && !ferror(out) ? 0 : -1;
}

/* a filter file (-F) is read whole: at most this many bytes */
#define FILTER_FILE_MAX (1u << 20)

static void
usage(FILE *out)
{
    fprintf(out,
            "Usage: ecnwatch -r FILE [-r FILE...] [options] [filter expression]\n"
            "       ecnwatch -i INTERFACE [options] [filter expression]\n"
            "       ecnwatch -D\n"
            "       ecnwatch --probe HOST[:PORT] [options]\n"
            "       ecnwatch --list kinds|aqm|links|events|tunnels|probes\n"
            "Report what ECN is doing in a capture: codepoints, feedback, verdicts, misuse.\n"
            "\n"
            "  -r FILE             read a pcap or pcapng capture, also gzip or xz compressed;\n"
            "                      '-' reads standard input;\n"
            "                      several -r: the same traffic captured along its path\n"
            "                      (upstream first): ECN changes between them are located\n"
            "  -i IFACE            capture live: a terminal view, or NDJSON when standard\n"
            "                      output is not a terminal\n"
            "  -s SNAPLEN          live: bytes kept per packet (default 192; 0 = all)\n"
            "  -B KIB              live: kernel buffer size in KiB\n"
            "  -Z USER             as root: drop to USER once the capture is open (default\n"
            "                      nobody), live and with -r\n"
            "  -D                  list the interfaces -i can capture on, and exit\n"
            "  --list WHAT         list the misuse kinds, path (AQM) verdicts, link types,\n"
            "                      decoding events, tunnels or probe types, a line each:\n"
            "                      number, name, meaning\n"
            "  -w FILE             write the packets read (after the filter, up to -c) to FILE\n"
            "                      as a pcap capture; a new or regular FILE appears whole at\n"
            "                      the end; '-' is standard output\n"
            "  -F FILE             read the filter expression from FILE\n"
            "  -n                  accepted for tcpdump's sake: ecnwatch never resolves names\n"
            "  --interval SEC      time-series bins (default 0.1); live: refresh (default 1)\n"
            "  --timeseries        per-flow time series in the JSON report (live: -o, events)\n"
            "  --plot DIR          an SVG per flow (throughput, RTT, CE, ECT(1)) and an index;\n"
            "                      live: written when capture stops\n"
            "  --csv FILE          a line per flow: endpoints, verdict, codepoints, path, misuse\n"
            "                      ('-': standard output); live: written when capture stops\n"
            "  --json              write the JSON report to standard output\n"
            "  --ndjson            stream events, one JSON object per line: findings as found,\n"
            "                      flow ends, a summary\n"
            "  --max-output SIZE   NDJSON: no event but the summary past SIZE bytes (k, M, G)\n"
            "  -o FILE             write the JSON report to FILE (atomically)\n"
            "  -c N                stop after N frames\n"
            "  -q                  nothing on standard output: no summary (-r), no view or\n"
            "                      events (-i); with -o, -w, --plot or --metrics-file\n"
            "  --max-flows N       flows held at once (default 65536); overflow is counted\n"
            "  --hot-flows N       flows kept unpacked, the most recently active (default 65536)\n"
            "  --workers N         live: N capture threads, flows spread by PACKET_FANOUT\n"
            "                      (default 1)\n"
            "  --idle-timeout SEC  a flow idle this long in packet time ends (default 300)\n"
            "  --hash-seed N       fixed flow-hash seed (default: random)\n"
            "  --text-flows N      flows listed in the human summary (default 50)\n"
            "  --sort KEY          their order: bytes (default), packets, first (as first seen)\n"
            "  --text-all          list small flows without ECN or a finding too\n"
            "  --decap TYPE:PORT   UDP port PORT carries tunnels of TYPE (vxlan, vxlan-gpe,\n"
            "                      geneve, gtpu), besides their own ports; repeatable\n"
            "  --no-decap          open no tunnel: flows of the outer headers only\n"
            "  --fail-on KINDS     exit 1 when any listed misuse kind is found (comma-separated, or any)\n"
            "  --probe HOST[:PORT] send probes with a rising TTL and each ECN set-up to HOST\n"
            "                      (TCP PORT, default 80; UDP 443) and locate the hop that\n"
            "                      changes ECN from what routers quote (root or CAP_NET_RAW)\n"
            "  --probe-max-ttl N   the last TTL probed (default 30)\n"
            "  --probe-rate N      at most N probes a second (default 20)\n"
            "  --probe-max N       at most N probes in all (default 1000)\n"
            "  --probe-wait MS     wait for a TTL's answers (default 1000)\n"
            "  --probe-udp-port N  the UDP probes' port (default 443)\n"
            "  --probe-types LIST  only these probe types (see ecnwatch(1))\n"
            "  --probe-report FILE with -r: a report --probe wrote (-o) of the same path; what\n"
            "                      it located is set beside what the captures show\n"
            "  --metrics ADDR:PORT live: serve Prometheus metrics at http://ADDR:PORT/metrics\n"
            "                      (:PORT is 0.0.0.0:PORT, localhost:PORT is 127.0.0.1:PORT)\n"
            "  --metrics-file PATH the same metrics written to PATH (atomically) each interval;\n"
            "                      with -r once at the end\n"
            "  --web-config FILE   --metrics over TLS and/or with basic authentication, as FILE\n"
            "                      (Prometheus exporters' web configuration) says\n"
            "  -h, --help          this help\n"
            "  -V, --version       the version\n"
            "\n"
            "Trailing words (or -F FILE) are a libpcap filter expression, as tcpdump takes it.\n"
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

/* "N", "Nk", "NM", "NG" (powers of 1024), at least 1 kB, at most 1 PB */
static int
parse_size(const char *s, uint64_t *out)
{
    char num[32];
    size_t n = strlen(s);
    uint64_t mul = 1, v;

    if (n == 0 || n >= sizeof(num))
        return -1;
    memcpy(num, s, n + 1);
    switch (num[n - 1]) {
    case 'k': case 'K': mul = 1ull << 10; break;
    case 'M': mul = 1ull << 20; break;
    case 'G': mul = 1ull << 30; break;
    default: break;
    }
    if (mul != 1)
        num[n - 1] = '\0';
    if (parse_u64(num, 1, (1ull << 50) / mul, &v) != 0 || v * mul < 1024)
        return -1;
    *out = v * mul;
    return 0;
}

static int
bad_value(const char *opt, const char *val, const char *want)
{
    ew_err("ecnwatch: bad value '%s' for %s: %s\n", val, opt, want);
    return EW_EXIT_USAGE;
}

/* strtod over the whole word; -1 when it is not a number */
static int
parse_double(const char *s, double *out)
{
    char *end;

    errno = 0;
    *out = strtod(s, &end);
    return errno || *end ? -1 : 0;
}

/* Levenshtein distance between a and b, both at most 80 bytes */
static size_t
edit_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b), i, j;
    size_t row[81];

    if (la > 80 || lb > 80)
        return SIZE_MAX;
    for (j = 0; j <= lb; j++)
        row[j] = j;
    for (i = 1; i <= la; i++) {
        size_t diag = row[0];

        row[0] = i;
        for (j = 1; j <= lb; j++) {
            size_t up = row[j], best = diag + (a[i - 1] != b[j - 1]);

            if (up + 1 < best)
                best = up + 1;
            if (row[j - 1] + 1 < best)
                best = row[j - 1] + 1;
            diag = up;
            row[j] = best;
        }
    }
    return row[lb];
}

/* The valid kind (or "any") nearest to a mistyped one, when near enough to
 * be what was meant: at most a third of its letters wrong, at least two
 * allowed; the first of the nearest when two are as near. NULL when none. */
static const char *
nearest_kind(const char *typed)
{
    const char *best = NULL;
    size_t best_d = SIZE_MAX, d, len = strlen(typed), limit = len / 3 > 2 ? len / 3 : 2;
    int k;

    for (k = 0; k <= EW_MU_COUNT; k++) {
        const char *name = k < EW_MU_COUNT ? ew_misuse_name[k] : "any";

        d = edit_distance(typed, name);
        if (d < best_d) {
            best_d = d;
            best = name;
        }
    }
    return best_d <= limit ? best : NULL;
}

/* --metrics spellings of exporters and URLs: ":PORT" is every IPv4 address
 * (0.0.0.0, warned about as such when bound), "localhost:PORT" the loopback
 * address; the rest as given */
static const char *
metrics_spelling(const char *spec, char *buf, size_t len)
{
    if (spec[0] == ':') {
        snprintf(buf, len, "0.0.0.0%s", spec);
        return buf;
    }
    if (!strncmp(spec, "localhost:", 10)) {
        snprintf(buf, len, "127.0.0.1%s", spec + 9);
        return buf;
    }
    return spec;
}

static void
defaults(struct ew_options *o)
{
    memset(o, 0, sizeof(*o));
    o->max_flows = 65536;
    o->idle_s = 300.0;
    o->text_flows = 50;
    o->snaplen = 192;
    o->workers = 1;
    o->interval_s = 1.0;
    ew_decap_defaults(&o->decap);
    ew_probe_defaults(&o->probe);
}

/* one option of getopt_long: -1 to go on, or an exit status */
static int
parse_option(int c, char **argv, struct ew_options *o)
{
    uint64_t v;

    switch (c) {
    case 'r':
        if (o->nfiles == EW_CLI_MAX_FILES) {
            ew_err("ecnwatch: at most %d captures (-r) at once\n", EW_CLI_MAX_FILES);
            return EW_EXIT_USAGE;
        }
        if (o->nfiles > 0 && !strcmp(optarg, "-")) {
            ew_err("ecnwatch: only the first capture can be standard input\n");
            return EW_EXIT_USAGE;
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
    case 'D':
        o->list_ifaces = true;
        break;
    case OPT_LIST:
        if (ew_list_find(optarg) < 0)
            return bad_value("--list", optarg, "kinds, aqm, links, events, tunnels or probes");
        o->list = optarg;
        break;
    case 'n':
        break; /* ecnwatch prints addresses and ports as numbers, always */
    case 'w':
        if (!*optarg)
            return bad_value("-w", optarg, "a file name, or - for standard output");
        o->write_file = optarg;
        break;
    case 'F':
        o->filter_file = optarg;
        break;
    case OPT_INTERVAL:
        if (parse_double(optarg, &o->interval_s) != 0 || !(o->interval_s >= 0.001) ||
            o->interval_s > 3600)
            return bad_value("--interval", optarg, "seconds, from 0.001 to 3600");
        o->interval_set = true;
        break;
    case OPT_TIMESERIES:
        o->timeseries = true;
        break;
    case OPT_PLOT:
        o->plot_dir = optarg;
        break;
    case OPT_CSV:
        if (!*optarg)
            return bad_value("--csv", optarg, "a file name, or - for standard output");
        o->csv_file = optarg;
        break;
    case OPT_METRICS: {
        struct sockaddr_storage ss;
        socklen_t sslen;
        char why[160];
        const char *spec = metrics_spelling(optarg, o->metrics_spec, sizeof(o->metrics_spec));

        if (ew_metrics_parse_addr(spec, &ss, &sslen, why, sizeof(why)) != 0)
            return bad_value("--metrics", optarg, why);
        o->metrics_listen = spec;
        break;
    }
    case OPT_METRICS_FILE:
        if (!*optarg)
            return bad_value("--metrics-file", optarg, "a file name");
        o->metrics_file = optarg;
        break;
    case OPT_WEB_CONFIG:
        if (!*optarg)
            return bad_value("--web-config", optarg, "a file name");
        o->web_config = optarg;
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
    case OPT_MAX_OUTPUT:
        if (parse_size(optarg, &o->max_output) != 0)
            return bad_value("--max-output", optarg, "a size in bytes, e.g. 500M (k, M, G: powers of 1024)");
        break;
    case OPT_HOT_FLOWS:
        if (parse_u64(optarg, 1, 1u << 24, &v) != 0)
            return bad_value("--hot-flows", optarg, "a number from 1 to 16777216");
        o->hot_flows = (uint32_t)v;
        break;
    case OPT_WORKERS:
        if (parse_u64(optarg, 1, EW_WORKERS_MAX, &v) != 0)
            return bad_value("--workers", optarg, "a number from 1 to 64");
        o->workers = (int)v;
        break;
    case OPT_IDLE:
        if (parse_double(optarg, &o->idle_s) != 0 || !(o->idle_s >= 0) || o->idle_s > 1e9)
            return bad_value("--idle-timeout", optarg, "seconds, 0 to disable");
        break;
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
    case OPT_SORT:
        if (!strcmp(optarg, "bytes"))
            o->text_sort = EW_SORT_BYTES;
        else if (!strcmp(optarg, "packets"))
            o->text_sort = EW_SORT_PACKETS;
        else if (!strcmp(optarg, "first"))
            o->text_sort = EW_SORT_FIRST;
        else
            return bad_value("--sort", optarg, "bytes, packets or first");
        break;
    case OPT_TEXT_ALL:
        o->text_all = true;
        break;
    case OPT_DECAP: {
        const char *colon = strchr(optarg, ':');
        char name[16];
        int type = -1;

        if (colon && (size_t)(colon - optarg) < sizeof(name)) {
            memcpy(name, optarg, (size_t)(colon - optarg));
            name[colon - optarg] = '\0';
            type = ew_decap_udp_type(name);
        }
        if (type < 0 || parse_u64(colon + 1, 1, 65535, &v) != 0)
            return bad_value("--decap", optarg,
                             "TYPE:PORT, TYPE one of vxlan, vxlan-gpe, geneve, gtpu, PORT from 1 "
                             "to 65535");
        if (ew_decap_set_port(&o->decap, (enum ew_tunnel)type, (uint16_t)v) != 0)
            return bad_value("--decap", optarg, "at most 16 tunnel ports in all");
        o->decap_given = true;
        break;
    }
    case OPT_NO_DECAP:
        o->decap.off = true;
        break;
    case OPT_PROBE: {
        char host[256], err[300];
        uint16_t port;

        if (ew_probe_parse_target(optarg, host, sizeof(host), &port, err, sizeof(err)) != 0) {
            ew_err("ecnwatch: %s\n", err);
            return EW_EXIT_USAGE;
        }
        o->probe.target = optarg;
        break;
    }
    case OPT_PROBE_MAX_TTL:
        if (parse_u64(optarg, 1, EW_PROBE_MAX_TTL, &v) != 0)
            return bad_value("--probe-max-ttl", optarg, "a TTL from 1 to 64");
        o->probe.max_ttl = (int)v;
        break;
    case OPT_PROBE_RATE:
        if (parse_u64(optarg, 1, 1000, &v) != 0)
            return bad_value("--probe-rate", optarg, "probes a second, from 1 to 1000");
        o->probe.rate = (int)v;
        break;
    case OPT_PROBE_MAX:
        if (parse_u64(optarg, 1, 100000, &v) != 0)
            return bad_value("--probe-max", optarg, "a number of probes from 1 to 100000");
        o->probe.max_probes = (int)v;
        break;
    case OPT_PROBE_WAIT:
        if (parse_u64(optarg, 10, 60000, &v) != 0)
            return bad_value("--probe-wait", optarg, "milliseconds from 10 to 60000");
        o->probe.wait_ms = (int)v;
        break;
    case OPT_PROBE_UDP_PORT:
        if (parse_u64(optarg, 1, 65535, &v) != 0)
            return bad_value("--probe-udp-port", optarg, "a port from 1 to 65535");
        o->probe.udp_port = (int)v;
        break;
    case OPT_PROBE_TYPES: {
        char bad[80];

        if (ew_probe_parse_types(optarg, &o->probe.types, bad, sizeof(bad)) != 0) {
            ew_err("ecnwatch: --probe-types: unknown probe type '%s' (see ecnwatch(1))\n", bad);
            return EW_EXIT_USAGE;
        }
        break;
    }
    case OPT_PROBE_REPORT:
        o->probe_report = optarg;
        break;
    case OPT_FAIL_ON: {
        char bad[80] = "";
        const char *near;

        if (ew_misuse_parse_list(optarg, &o->fail_on, bad, sizeof(bad)) != 0) {
            if (!bad[0])
                ew_err("ecnwatch: --fail-on: no misuse kind given (see ecnwatch(1) "
                                "for the list, or use 'any')\n");
            else if ((near = nearest_kind(bad)) != NULL)
                ew_err("ecnwatch: --fail-on: unknown misuse kind '%s'; did you mean "
                                "'%s'?\n",
                        bad, near);
            else
                ew_err(
                        "ecnwatch: --fail-on: unknown misuse kind '%s' (see ecnwatch(1) for the "
                        "list, or use 'any')\n",
                        bad);
            return EW_EXIT_USAGE;
        }
        break;
    }
    case 'h':
        usage(stdout);
        return EW_EXIT_DONE;
    case 'V':
        printf("ecnwatch %s\n", EW_VERSION);
        return EW_EXIT_DONE;
    case ':':
        ew_err("ecnwatch: option %s needs a value (try --help)\n", argv[optind - 1]);
        return EW_EXIT_USAGE;
    default:
        if (optopt)
            ew_err("ecnwatch: unknown option '-%c' (try --help)\n", optopt);
        else
            ew_err("ecnwatch: unknown option '%s' (try --help)\n", argv[optind - 1]);
        return EW_EXIT_USAGE;
    }
    return -1;
}

/* the options that do not go together: -1, or an exit status */
static int
check_combination(const struct ew_options *o)
{
    if (o->json && o->ndjson) {
        ew_err("ecnwatch: --json and --ndjson both write to standard output; pick one "
                        "(-o FILE writes the report to a file)\n");
        return EW_EXIT_USAGE;
    }
    if (o->out_file && !strcmp(o->out_file, "-") && (o->json || o->ndjson)) {
        ew_err("ecnwatch: -o - and --%s both write to standard output; pick one\n",
                o->json ? "json" : "ndjson");
        return EW_EXIT_USAGE;
    }
    if (o->probe.target) {
        if (o->read_file || o->iface || o->ndjson || o->write_file || o->count || o->plot_dir ||
            o->csv_file || o->metrics_listen || o->metrics_file || o->timeseries || o->probe_report) {
            ew_err("ecnwatch: --probe sends probes and reads their answers: it takes none "
                   "of -r, -i, -w, -c, --ndjson, --csv, --plot, --timeseries, --metrics, "
                   "--probe-report\n");
            return EW_EXIT_USAGE;
        }
        return -1;
    }
    if (o->probe_report && !o->read_file) {
        ew_err("ecnwatch: --probe-report sets a probe's report beside captures: give -r FILE\n");
        return EW_EXIT_USAGE;
    }
    if (!o->read_file && !o->iface) {
        ew_err("ecnwatch: no input: give -r FILE, -i INTERFACE or --probe HOST (try --help)\n");
        return EW_EXIT_USAGE;
    }
    if (o->read_file && o->iface) {
        ew_err("ecnwatch: -r and -i cannot be used together\n");
        return EW_EXIT_USAGE;
    }
    if (o->write_file && o->nfiles > 1) {
        ew_err("ecnwatch: -w writes the packets of one capture; with several -r, "
                        "give one -r\n");
        return EW_EXIT_USAGE;
    }
    if (o->write_file && !strcmp(o->write_file, "-") &&
        (o->json || o->ndjson || (o->out_file && !strcmp(o->out_file, "-")) ||
         (!o->iface && !o->quiet))) {
        ew_err("ecnwatch: -w - writes the packets to standard output: nothing else "
                        "can go there (add -q; -o FILE writes the report to a file)\n");
        return EW_EXIT_USAGE;
    }
    if (o->workers > 1 && !o->iface) {
        ew_err("ecnwatch: --workers fans out a live capture (-i)\n");
        return EW_EXIT_USAGE;
    }
    /* what needs every frame in one order, or per-flow state the mirror
     * does not bring over (mirror.h) */
    if (o->workers > 1 && (o->count || o->write_file || o->timeseries || o->plot_dir)) {
        ew_err("ecnwatch: --workers cannot be combined with %s\n",
                o->count ? "-c" : o->write_file ? "-w" : o->timeseries ? "--timeseries" : "--plot");
        return EW_EXIT_USAGE;
    }
    if (o->metrics_listen && !o->iface) {
        ew_err("ecnwatch: --metrics serves a live capture (-i); with -r use "
                        "--metrics-file\n");
        return EW_EXIT_USAGE;
    }
    if (o->decap_given && o->decap.off) {
        ew_err("ecnwatch: --decap opens tunnels that --no-decap leaves closed; pick one\n");
        return EW_EXIT_USAGE;
    }
    if (o->web_config && !o->metrics_listen) {
        ew_err("ecnwatch: --web-config configures the --metrics endpoint: give --metrics "
                        "too\n");
        return EW_EXIT_USAGE;
    }
    return -1;
}

/* -F FILE: the filter expression read from FILE, as tcpdump reads it ('#'
 * starts a comment to the end of the line), its spaces and line ends made
 * single spaces, so that the report names the filter as if typed on one
 * line. -1 to go on, or an exit status. */
static int
read_filter_file(struct ew_options *o)
{
    FILE *fp = fopen(o->filter_file, "r");
    size_t n = 0, room = 4096, out = 0;
    bool comment = false, space = false;
    char *text;
    int c;

    if (!fp) {
        ew_err("ecnwatch: -F %s: %s\n", o->filter_file, strerror(errno));
        return EW_EXIT_USAGE;
    }
    text = malloc(room);
    while (text && (c = getc(fp)) != EOF) {
        if (++n > FILTER_FILE_MAX) {
            ew_err("ecnwatch: -F %s: a filter file is at most %u bytes\n",
                    o->filter_file, FILTER_FILE_MAX);
            free(text);
            fclose(fp);
            return EW_EXIT_USAGE;
        }
        if (c == '#')
            comment = true;
        if (c == '\n')
            comment = false;
        if (comment)
            continue;
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v') {
            space = out > 0;
            continue;
        }
        if (out + 2 >= room) {
            char *t = realloc(text, room * 2);

            if (!t) {
                free(text);
                text = NULL;
                break;
            }
            text = t;
            room *= 2;
        }
        if (space)
            text[out++] = ' ';
        space = false;
        text[out++] = (char)c;
    }
    if (!text) {
        fclose(fp);
        ew_err("ecnwatch: out of memory\n");
        return EW_EXIT_USAGE;
    }
    if (ferror(fp)) {
        ew_err("ecnwatch: -F %s: %s\n", o->filter_file, strerror(errno ? errno : EIO));
        free(text);
        fclose(fp);
        return EW_EXIT_USAGE;
    }
    fclose(fp);
    text[out] = '\0';
    if (out == 0) {
        free(text); /* an empty expression: every packet, as with none */
        return -1;
    }
    o->filter = text;
    return -1;
}

/* the trailing words, joined with spaces as tcpdump joins them */
static int
join_filter(int argc, char **argv, struct ew_options *o)
{
    size_t len = 0;
    int i;

    if (o->filter_file && optind < argc) {
        ew_err("ecnwatch: -F %s gives the filter expression: no other can follow "
                        "the options ('%s')\n",
                o->filter_file, argv[optind]);
        return EW_EXIT_USAGE;
    }
    if (o->filter_file)
        return read_filter_file(o);
    if (optind >= argc)
        return -1;
    for (i = optind; i < argc; i++)
        len += strlen(argv[i]) + 1;
    o->filter = malloc(len);
    if (!o->filter) {
        ew_err("ecnwatch: out of memory\n");
        return EW_EXIT_USAGE;
    }
    o->filter[0] = '\0';
    for (i = optind; i < argc; i++) {
        if (i > optind)
            strcat(o->filter, " ");
        strcat(o->filter, argv[i]);
    }
    return -1;
}

int
ew_cli_parse(int argc, char **argv, struct ew_options *o)
{
    static const struct option longopts[] = {
        {"json", no_argument, NULL, OPT_JSON},
        {"max-flows", required_argument, NULL, OPT_MAX_FLOWS},
        {"max-output", required_argument, NULL, OPT_MAX_OUTPUT},
        {"hot-flows", required_argument, NULL, OPT_HOT_FLOWS},
        {"workers", required_argument, NULL, OPT_WORKERS},
        {"idle-timeout", required_argument, NULL, OPT_IDLE},
        {"hash-seed", required_argument, NULL, OPT_SEED},
        {"text-flows", required_argument, NULL, OPT_TEXT_FLOWS},
        {"sort", required_argument, NULL, OPT_SORT},
        {"text-all", no_argument, NULL, OPT_TEXT_ALL},
        {"fail-on", required_argument, NULL, OPT_FAIL_ON},
        {"ndjson", no_argument, NULL, OPT_NDJSON},
        {"interval", required_argument, NULL, OPT_INTERVAL},
        {"timeseries", no_argument, NULL, OPT_TIMESERIES},
        {"plot", required_argument, NULL, OPT_PLOT},
        {"csv", required_argument, NULL, OPT_CSV},
        {"metrics", required_argument, NULL, OPT_METRICS},
        {"metrics-file", required_argument, NULL, OPT_METRICS_FILE},
        {"web-config", required_argument, NULL, OPT_WEB_CONFIG},
        {"list", required_argument, NULL, OPT_LIST},
        {"decap", required_argument, NULL, OPT_DECAP},
        {"no-decap", no_argument, NULL, OPT_NO_DECAP},
        {"probe", required_argument, NULL, OPT_PROBE},
        {"probe-max-ttl", required_argument, NULL, OPT_PROBE_MAX_TTL},
        {"probe-rate", required_argument, NULL, OPT_PROBE_RATE},
        {"probe-max", required_argument, NULL, OPT_PROBE_MAX},
        {"probe-wait", required_argument, NULL, OPT_PROBE_WAIT},
        {"probe-udp-port", required_argument, NULL, OPT_PROBE_UDP_PORT},
        {"probe-types", required_argument, NULL, OPT_PROBE_TYPES},
        {"probe-report", required_argument, NULL, OPT_PROBE_REPORT},
        {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, 'V'},
        {NULL, 0, NULL, 0},
    };
    int c, rc;

    defaults(o);
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":r:i:s:B:Z:o:c:w:F:DnqhV", longopts, NULL)) != -1) {
        rc = parse_option(c, argv, o);
        if (rc >= 0)
            return rc;
    }
    /* -D lists and ends, as tcpdump -D does, whatever else is given */
    if (o->list_ifaces)
        return ew_ifaces_list(stdout) == 0 ? EW_EXIT_DONE : EW_EXIT_INPUT;
    if (o->list)
        return ew_list_print(stdout, ew_list_find(o->list)) == 0 ? EW_EXIT_DONE : EW_EXIT_OUTPUT;
    rc = check_combination(o);
    if (rc >= 0)
        return rc;
    if (o->probe.target && (optind < argc || o->filter_file)) {
        ew_err("ecnwatch: --probe takes no filter expression ('%s')\n",
               optind < argc ? argv[optind] : o->filter_file);
        return EW_EXIT_USAGE;
    }
    rc = join_filter(argc, argv, o);
    if (rc >= 0)
        return rc;
    /* live mode writes no report to standard output */
    if (o->iface && o->json) {
        ew_err("ecnwatch: --json is for -r; with -i use -o FILE or --ndjson\n");
        return EW_EXIT_USAGE;
    }
    /* reading a file or probing, -o - is --json: the report on standard
     * output, alone */
    if (!o->iface && o->out_file && !strcmp(o->out_file, "-")) {
        o->json = true;
        o->out_file = NULL;
    }
    return -1;
}

void
ew_cli_free(struct ew_options *o)
{
    free(o->filter);
    o->filter = NULL;
}

uint64_t
ew_cli_hash_seed(const struct ew_options *o)
{
    const char *env = getenv("ECNWATCH_HASH_SEED");
    uint64_t seed = 0;

    if (o->have_seed)
        return o->seed;
    if (env && parse_u64(env, 0, UINT64_MAX, &seed) == 0)
        return seed;
    /* the seed only spreads the index; output does not depend on it */
    if (getrandom(&seed, sizeof(seed), GRND_NONBLOCK) != (ssize_t)sizeof(seed))
        seed = 0x9e3779b97f4a7c15ULL;
    return seed;
}

/* the time series' bin width when --interval is not given (seconds); --interval
 * given sets both it and the live refresh */
#define SERIES_INTERVAL_DEFAULT 0.1

/* the run the options ask for, copied once */
void
ew_cli_run_cfg(const struct ew_options *o, struct ew_run_cfg *c)
{
    memset(c, 0, sizeof(*c));
    c->live = o->iface != NULL;
    c->iface = o->iface;
    c->snaplen = o->snaplen;
    c->buffer_kib = o->buffer_kib;
    c->workers = o->workers;
    c->user = o->user;
    c->interval_s = o->interval_s;
    c->files = o->files;
    c->probe_report = o->probe_report;
    c->nfiles = o->nfiles;
    c->filter = o->filter;
    c->count = o->count;
    c->json = o->json;
    c->ndjson = o->ndjson;
    c->max_output = o->max_output;
    c->quiet = o->quiet;
    c->out_file = o->out_file;
    c->text_flows = o->text_flows;
    c->text_sort = o->text_sort;
    c->text_all = o->text_all;
    c->fail_on = o->fail_on;
    c->timeseries = o->timeseries;
    c->plot_dir = o->plot_dir;
    c->csv_file = o->csv_file;
    c->series_interval_s = o->interval_set ? o->interval_s : SERIES_INTERVAL_DEFAULT;
    c->metrics_listen = o->metrics_listen;
    c->metrics_file = o->metrics_file;
    c->web_config = o->web_config;
    c->write_file = o->write_file;
    c->an.max_flows = o->max_flows;
    c->an.hot_flows = o->hot_flows;
    c->an.hash_seed = ew_cli_hash_seed(o);
    c->an.idle_ns = (int64_t)(o->idle_s * 1e9);
}

uint32_t
ew_fail_on_eval(const struct ew_pass *p, struct ew_hop *const *hops, int nhops, uint32_t mask,
                struct ew_fail_on *r)
{
    uint32_t found;
    int i;

    memset(r, 0, sizeof(*r));
    memcpy(r->flows, p->counts, sizeof(r->flows));
    found = p->found;
    for (i = 0; i < nhops; i++)
        found |= ew_hop_kinds(hops[i], r->packets);
    if (p->probe) {
        size_t j;

        found |= p->probe->found;
        for (j = 0; j < p->probe->n; j++)
            r->probe[p->probe->f[j].kind]++;
    }
    r->found = found & mask;
    return r->found;
}

void
ew_fail_on_print(FILE *out, const struct ew_fail_on *r)
{
    int k;

    fprintf(out, "ecnwatch: --fail-on matched:");
    for (k = 0; k < EW_MU_COUNT; k++) {
        if (!(r->found & (1u << k)))
            continue;
        fprintf(out, " %s", ew_misuse_name[k]);
        if (r->flows[k])
            fprintf(out, " (%" PRIu64 " flow%s)", r->flows[k], r->flows[k] == 1 ? "" : "s");
        if (r->packets[k])
            fprintf(out, " (%" PRIu64 " packet%s between captures)", r->packets[k],
                    r->packets[k] == 1 ? "" : "s");
        if (r->probe[k])
            fprintf(out, " (%" PRIu64 " in the probe's report)", r->probe[k]);
    }
    fputc('\n', out);
}
