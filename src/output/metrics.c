/* metrics.c - the Prometheus text exposition (see metrics.h). */
#include "output/metrics.h"
#include "output/output.h"

#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dissectors/ecn.h"
#include "base/outfile.h"
#include "findings/conclude.h"
#include "findings/conclusions.h"
#include "flow/flowtab.h"
#include "base/version.h"

/* label values of ecnwatch_flows_by_negotiation, by enum ew_neg */
static const char *const neg_label[EW_METRICS_NEGS] = {
    [EW_NEG_NONE] = "none",     [EW_NEG_RFC3168] = "rfc3168", [EW_NEG_ACCECN] = "accecn",
    [EW_NEG_REFUSED] = "refused", [EW_NEG_BROKEN] = "broken", [EW_NEG_UNSEEN] = "unseen",
    [EW_NEG_NA] = "not_tcp",
};

const char *const ew_metrics_bn_kind[EW_METRICS_BN_KINDS] = {"dualq", "single_queue", "fq",
                                                            "unknown"};
const char *const ew_metrics_cp_class[EW_METRICS_CP_CLASSES] = {"not_ect", "ect0", "ect1",
                                                                "mixed", "none"};
const uint32_t ew_metrics_qd_le_us[EW_METRICS_QD_BUCKETS] = {
    500, 1000, 2000, 5000, 10000, 20000, 50000, 100000, 200000, 500000, 1000000,
};
const char *const ew_metrics_qd_le[EW_METRICS_QD_BUCKETS] = {
    "0.0005", "0.001", "0.002", "0.005", "0.01", "0.02", "0.05", "0.1", "0.2", "0.5", "1",
};

static uint64_t
scale(uint64_t count, uint64_t held, uint64_t evaluated)
{
    if (evaluated == 0 || evaluated == held)
        return count;
    return (count * held + evaluated / 2) / evaluated;
}

/* the index of a name in a fixed list, else the list's last entry */
static int
index_of(const char *const *list, int n, const char *name)
{
    int i;

    for (i = 0; name && i < n - 1; i++)
        if (!strcmp(list[i], name))
            break;
    return i;
}

/* One TCP direction d that carried data, concluded as s: its path verdict,
 * and its queueing delay where it was measured. */
static void
count_direction(const struct ew_flow_summary *s, int d, struct ew_metrics_flows *out)
{
    const struct ew_path_verdict *p = &s->path[d];
    uint64_t us;
    int cl, b;

    out->path[p->aqm < EW_AQM_COUNT ? p->aqm : EW_AQM_UNKNOWN]++;
    if (!(p->qdelay_median_ms >= 0))
        return;
    /* to the microsecond, as the report writes qdelay_median_ms */
    us = (uint64_t)(int64_t)(p->qdelay_median_ms * 1000.0 + 0.5);
    cl = index_of(ew_metrics_cp_class, EW_METRICS_CP_CLASSES, s->v.dir[d].sender_cp);
    out->qd_count[cl]++;
    out->qd_sum_us[cl] += us;
    for (b = 0; b < EW_METRICS_QD_BUCKETS; b++)
        if (us <= ew_metrics_qd_le_us[b])
            out->qd_bucket[cl][b]++;
}

/* the path verdicts and delays of the pass's TCP flows, each concluded
 * whole as the report writes it (its bottleneck's refinement included) */
static void
count_paths(const struct ew_conclusions *c, struct ew_metrics_flows *out)
{
    struct ew_flow_room *room;
    struct ew_flow_summary *s;
    size_t i;
    int d;

    if (!(c->what & EW_PASS_PATHS) || c->n == 0)
        return;
    room = malloc(sizeof(*room));
    s = malloc(sizeof(*s));
    if (!room || !s) {
        out->paths_missing = true;
        free(room);
        free(s);
        return;
    }
    for (i = 0; i < c->n; i++) {
        const struct ew_flow *f;

        if (c->row[i].neg == EW_NEG_NA) /* not TCP: no path */
            continue;
        f = ew_conclusion_words(c, i, 0, room, s);
        if (f->key.l4 != EW_L4_TCP || !s->has_path)
            continue;
        for (d = 0; d < 2; d++)
            if (f->inf->half[d].data_pkts > 0)
                count_direction(s, d, out);
    }
    free(room);
    free(s);
}

/* the pass's bottlenecks by what they look like, and their flows */
static void
count_bottlenecks(const struct ew_bottlenecks *bn, struct ew_metrics_flows *out)
{
    size_t i;
    int k;

    for (i = 0; i < bn->n; i++) {
        k = index_of(ew_metrics_bn_kind, EW_METRICS_BN_KINDS, bn->g[i].looks_like);
        out->bottlenecks[k]++;
        out->bottleneck_flows[k] += bn->g[i].l4s.n + bn->g[i].classic.n;
    }
}

void
ew_metrics_count_pass(const struct ew_conclusions *c, const struct ew_analyzer *an,
                      struct ew_metrics_flows *out)
{
    size_t i;
    int k;

    memset(out, 0, sizeof(*out));
    out->held = c->held;
    for (i = 0; i < c->n; i++) {
        const struct ew_conclusion *r = &c->row[i];

        out->verdict[r->verdict < EW_METRICS_VERDICTS ? r->verdict : EW_V_UNKNOWN]++;
        out->negotiation[r->neg >= 0 && r->neg < EW_METRICS_NEGS ? r->neg : EW_NEG_NA]++;
        for (k = 0; k < EW_MU_COUNT; k++)
            if (r->kinds & (1u << k))
                out->misuse[k]++;
    }
    out->evaluated = c->n;
    count_paths(c, out);
    count_bottlenecks(&c->bn, out);
    for (k = 0; k < EW_METRICS_VERDICTS; k++)
        out->verdict[k] = scale(out->verdict[k], out->held, out->evaluated);
    for (k = 0; k < EW_METRICS_NEGS; k++)
        out->negotiation[k] = scale(out->negotiation[k], out->held, out->evaluated);
    for (k = 0; k < EW_AQM_COUNT; k++)
        out->path[k] = scale(out->path[k], out->held, out->evaluated);
    for (k = 0; k < EW_METRICS_BN_KINDS; k++)
        out->bottleneck_flows[k] = scale(out->bottleneck_flows[k], out->held, out->evaluated);
    for (k = 0; k < EW_METRICS_CP_CLASSES; k++) {
        int b;

        /* each scaled alike, so that the buckets still rise to the count */
        for (b = 0; b < EW_METRICS_QD_BUCKETS; b++)
            out->qd_bucket[k][b] = scale(out->qd_bucket[k][b], out->held, out->evaluated);
        out->qd_count[k] = scale(out->qd_count[k], out->held, out->evaluated);
        out->qd_sum_us[k] = scale(out->qd_sum_us[k], out->held, out->evaluated);
    }
    /* flows that left the table keep their kinds in the analyzer */
    for (k = 0; k < EW_MU_COUNT; k++)
        out->misuse[k] = scale(out->misuse[k], out->held, out->evaluated) +
                         an->evicted_findings[k];
}

void
ew_metrics_count_flows(const struct ew_analyzer *an, size_t budget,
                       struct ew_metrics_flows *out)
{
    struct ew_conclusions c = EW_CONCLUSIONS_INIT;
    const struct ew_pass_sel sel = {EW_ITER_HELD, 0, budget ? budget : 1};

    /* out of memory: no rows, and the text says the counts are missing */
    ew_analyzer_pass(an, &c, EW_PASS_BOTTLENECKS, &sel);
    ew_metrics_count_pass(&c, an, out);
    ew_conclusions_free(&c);
}

/* output to a caller's buffer (snprintf rules) or to a FILE */
struct sink {
    FILE *fp;
    char *buf;
    size_t room;
    size_t len;
    bool error;
};

static void put(struct sink *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void
put(struct sink *s, const char *fmt, ...)
{
    va_list ap;
    int n;

    va_start(ap, fmt);
    if (s->fp) {
        n = vfprintf(s->fp, fmt, ap);
    } else if (s->len < s->room) {
        n = vsnprintf(s->buf + s->len, s->room - s->len, fmt, ap);
    } else {
        n = vsnprintf(NULL, 0, fmt, ap);
    }
    va_end(ap);
    if (n < 0)
        s->error = true;
    else
        s->len += (size_t)n;
}

/* a label value: backslash, double quote and newline escaped */
static void
put_label(struct sink *s, const char *v)
{
    for (; v && *v; v++) {
        if (*v == '\\')
            put(s, "\\\\");
        else if (*v == '"')
            put(s, "\\\"");
        else if (*v == '\n')
            put(s, "\\n");
        else
            put(s, "%c", *v);
    }
}

static void
family(struct sink *s, const char *name, const char *type, const char *help)
{
    put(s, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

static void
sample(struct sink *s, const char *name, uint64_t v)
{
    put(s, "%s %" PRIu64 "\n", name, v);
}

static void
labelled(struct sink *s, const char *name, const char *label, const char *value, uint64_t v)
{
    put(s, "%s{%s=\"", name, label);
    put_label(s, value);
    put(s, "\"} %" PRIu64 "\n", v);
}

/* a number of microseconds in seconds, as few digits as it needs */
static void
put_seconds(struct sink *s, uint64_t us)
{
    char frac[8];
    int n = 6;

    snprintf(frac, sizeof(frac), "%06u", (unsigned)(us % 1000000));
    while (n > 0 && frac[n - 1] == '0')
        frac[--n] = '\0';
    put(s, "%" PRIu64 "%s%s", us / 1000000, n ? "." : "", frac);
}

/* the diagnosis: flow directions by path verdict, bottlenecks by kind, the
 * queueing delay histogram by sender codepoint; every label value present */
static void
emit_diagnosis(struct sink *s, const struct ew_metrics_flows *fl)
{
    static const char qd[] = "ecnwatch_flow_queueing_delay_seconds";
    int i, b;

    family(s, "ecnwatch_flow_directions_by_path", "gauge",
           "TCP flow directions that carried data in the flow table, by their path verdict "
           "(the report's path.aqm, as their bottleneck refines it); a flow with data both "
           "ways counts once in each.");
    for (i = 0; i < EW_AQM_COUNT; i++)
        labelled(s, "ecnwatch_flow_directions_by_path", "aqm", ew_aqm_name[i], fl->path[i]);
    family(s, "ecnwatch_bottlenecks", "gauge",
           "Bottlenecks: groups of L4S and classic flows between the same two hosts, "
           "overlapping in time, in the flow table, by what the bottleneck looks like (the "
           "report's bottlenecks[].looks_like).");
    for (i = 0; i < EW_METRICS_BN_KINDS; i++)
        labelled(s, "ecnwatch_bottlenecks", "looks_like", ew_metrics_bn_kind[i],
                 fl->bottlenecks[i]);
    family(s, "ecnwatch_bottleneck_flows", "gauge",
           "Flows in the flow table that are in a bottleneck group, by what their bottleneck "
           "looks like.");
    for (i = 0; i < EW_METRICS_BN_KINDS; i++)
        labelled(s, "ecnwatch_bottleneck_flows", "looks_like", ew_metrics_bn_kind[i],
                 fl->bottleneck_flows[i]);
    family(s, qd, "histogram",
           "TCP flow directions with data in the flow table by their median queueing delay (the "
           "report's path.qdelay_median_ms, timed from where this capture point can: "
           "path.qdelay_from), by their sender codepoint; a direction whose delay could not be "
           "timed is not counted.");
    for (i = 0; i < EW_METRICS_CP_CLASSES; i++) {
        const char *cl = ew_metrics_cp_class[i];

        for (b = 0; b < EW_METRICS_QD_BUCKETS; b++)
            put(s, "%s_bucket{sender_codepoint=\"%s\",le=\"%s\"} %" PRIu64 "\n", qd, cl,
                ew_metrics_qd_le[b], fl->qd_bucket[i][b]);
        put(s, "%s_bucket{sender_codepoint=\"%s\",le=\"+Inf\"} %" PRIu64 "\n", qd, cl,
            fl->qd_count[i]);
        put(s, "%s_sum{sender_codepoint=\"%s\"} ", qd, cl);
        put_seconds(s, fl->qd_sum_us[i]);
        put(s, "\n%s_count{sender_codepoint=\"%s\"} %" PRIu64 "\n", qd, cl, fl->qd_count[i]);
    }
}

static void
emit(struct sink *s, const struct ew_analyzer *an, const struct ew_metrics_flows *fl,
     const struct ew_metrics_src *src)
{
    static const int cp_order[4] = {EW_ECN_NOT_ECT, EW_ECN_ECT_0, EW_ECN_ECT_1, EW_ECN_CE};
    const struct ew_totals *t = &an->tot;
    struct ew_flowtab_stats st;
    int i;

    ew_flowtab_get_stats(an->tab, &st);

    family(s, "ecnwatch_info", "gauge", "The ecnwatch version and the interface it captures on.");
    put(s, "ecnwatch_info{version=\"");
    put_label(s, EW_VERSION);
    put(s, "\",interface=\"");
    put_label(s, src->interface ? src->interface : "");
    put(s, "\"} 1\n");

    family(s, "ecnwatch_frames_total", "counter", "Frames read from the capture.");
    sample(s, "ecnwatch_frames_total", t->frames);
    family(s, "ecnwatch_packets_total", "counter",
           "IP packets by the ECN codepoint of their IP header.");
    for (i = 0; i < 4; i++)
        labelled(s, "ecnwatch_packets_total", "codepoint", ew_ecn_key[cp_order[i]],
                 t->ecn[cp_order[i]]);
    family(s, "ecnwatch_bytes_total", "counter",
           "IP bytes (header and payload, as the IP header states the length) by the ECN "
           "codepoint of their IP header; a bit rate is 8 * rate() of it.");
    for (i = 0; i < 4; i++)
        labelled(s, "ecnwatch_bytes_total", "codepoint", ew_ecn_key[cp_order[i]],
                 t->ecn_bytes[cp_order[i]]);
    family(s, "ecnwatch_undecodable_frames_total", "counter",
           "Frames without a usable IP header (cut short or invalid below IP).");
    sample(s, "ecnwatch_undecodable_frames_total", t->undecodable);
    family(s, "ecnwatch_truncated_frames_total", "counter",
           "Frames with a header cut short by the snapshot length.");
    sample(s, "ecnwatch_truncated_frames_total", t->truncated);

    family(s, "ecnwatch_flows_total", "counter", "Flows created.");
    sample(s, "ecnwatch_flows_total", st.created);
    family(s, "ecnwatch_flows_active", "gauge", "Flows not ended by the idle timeout.");
    sample(s, "ecnwatch_flows_active", st.live);
    family(s, "ecnwatch_flows_held", "gauge",
           "Flows in the flow table, active and ended: what ecnwatch_flows counts.");
    sample(s, "ecnwatch_flows_held", st.in_table);
    family(s, "ecnwatch_flows_evicted_total", "counter",
           "Flows evicted because the flow table was full.");
    sample(s, "ecnwatch_flows_evicted_total", st.evicted);
    family(s, "ecnwatch_tunnelled_packets_total", "counter",
           "IP packets counted that came through a tunnel (their inner packet counted).");
    sample(s, "ecnwatch_tunnelled_packets_total", t->tunnelled);
    family(s, "ecnwatch_tunnelled_flows_total", "counter",
           "Flows whose packets came through a tunnel.");
    sample(s, "ecnwatch_tunnelled_flows_total", t->tunnelled_flows);
    family(s, "ecnwatch_tunnel_records_refused_total", "counter",
           "Tunnelled flows given no tunnel record (out of memory).");
    sample(s, "ecnwatch_tunnel_records_refused_total", an->tun.c.refused);
    family(s, "ecnwatch_tunnel_codepoints_total", "counter",
           "Tunnelled packets by the codepoint of the outer IP header nearest the inner packet "
           "and the inner packet's own (RFC 6040's pairs; ERSPAN and headerless encapsulations "
           "not counted).");
    for (i = 0; i < 16; i++) {
        int o = cp_order[i / 4], in = cp_order[i % 4];

        put(s, "ecnwatch_tunnel_codepoints_total{outer=\"%s\",inner=\"%s\"} %" PRIu64 "\n",
            ew_ecn_key[o], ew_ecn_key[in], t->tunnel_pair[o][in]);
    }

    if (fl->evaluated == 0 && fl->held > 0)
        put(s, "# ecnwatch_flows, ecnwatch_flows_by_negotiation and ecnwatch_misuse_flows count "
               "no held flow: out of memory for the flow list\n");
    else if (fl->evaluated < fl->held)
        put(s,
            "# ecnwatch_flows, ecnwatch_flows_by_negotiation and ecnwatch_misuse_flows are "
            "estimated: of %" PRIu64 " flows held, the verdicts of %" PRIu64
            " (1 in %" PRIu64 ", by id) were computed and the counts scaled\n",
            fl->held, fl->evaluated,
            fl->evaluated ? (fl->held + fl->evaluated - 1) / fl->evaluated : 0);
    if (fl->evaluated < fl->held)
        put(s, "# ecnwatch_flow_directions_by_path, ecnwatch_bottleneck_flows and "
               "ecnwatch_flow_queueing_delay_seconds are scaled alike; ecnwatch_bottlenecks "
               "counts the groups among the flows evaluated\n");
    if (fl->paths_missing)
        put(s, "# ecnwatch_flow_directions_by_path and ecnwatch_flow_queueing_delay_seconds "
               "count no flow: out of memory for a flow's conclusion\n");
    family(s, "ecnwatch_flows_evaluated", "gauge",
           "Held flows whose verdict was computed for the per-verdict gauges (fewer than "
           "held: the gauges are scaled from a sample).");
    sample(s, "ecnwatch_flows_evaluated", fl->evaluated);
    family(s, "ecnwatch_flows", "gauge", "Flows in the flow table by verdict.");
    for (i = 0; i < EW_METRICS_VERDICTS; i++)
        labelled(s, "ecnwatch_flows", "verdict", ew_verdict_name[i], fl->verdict[i]);
    family(s, "ecnwatch_flows_by_negotiation", "gauge",
           "Flows in the flow table by their ECN negotiation (not_tcp: not a TCP flow).");
    for (i = 0; i < EW_METRICS_NEGS; i++)
        labelled(s, "ecnwatch_flows_by_negotiation", "negotiation", neg_label[i],
                 fl->negotiation[i]);
    family(s, "ecnwatch_misuse_flows", "gauge",
           "Flows with at least one misuse finding of each kind, evicted flows included.");
    for (i = 0; i < EW_MU_COUNT; i++)
        labelled(s, "ecnwatch_misuse_flows", "kind", ew_misuse_name[i], fl->misuse[i]);
    emit_diagnosis(s, fl);

    if (src->have_capture) {
        family(s, "ecnwatch_capture_received_total", "counter",
               "Packets the kernel received for the capture (pcap_stats).");
        sample(s, "ecnwatch_capture_received_total", src->received);
        family(s, "ecnwatch_capture_dropped_total", "counter",
               "Packets the kernel or the interface dropped before ecnwatch read them "
               "(pcap_stats).");
        sample(s, "ecnwatch_capture_dropped_total", src->dropped);
    }
}

size_t
ew_metrics_format(char *buf, size_t room, const struct ew_analyzer *an,
                  const struct ew_metrics_flows *fl, const struct ew_metrics_src *src)
{
    struct sink s = {.buf = buf, .room = room};

    if (room > 0)
        buf[0] = '\0';
    emit(&s, an, fl, src);
    return s.len;
}

int
ew_metrics_print(FILE *out, const struct ew_analyzer *an, const struct ew_metrics_flows *fl,
                 const struct ew_metrics_src *src)
{
    struct sink s = {.fp = out};

    emit(&s, an, fl, src);
    return s.error || ferror(out) ? -1 : 0;
}

char *
ew_metrics_text(const struct ew_analyzer *an, const struct ew_metrics_flows *fl,
                const struct ew_metrics_src *src, size_t *len)
{
    size_t need = ew_metrics_format(NULL, 0, an, fl, src);
    char *buf = malloc(need + 1);

    if (!buf)
        return NULL;
    if (ew_metrics_format(buf, need + 1, an, fl, src) != need) {
        free(buf);
        return NULL;
    }
    *len = need;
    return buf;
}

/* No fsync: the file is rewritten every interval, and rename alone is what
 * keeps a reader from seeing a part of it. */
struct metrics_fill {
    const char *text;
    size_t len;
};

static int
metrics_fill(void *arg, FILE *out)
{
    const struct metrics_fill *m = arg;

    return fwrite(m->text, 1, m->len, out) == m->len ? 0 : -1;
}

int
ew_metrics_write_file(const char *path, const char *text, size_t len, char *err, size_t errlen)
{
    struct metrics_fill m = {text, len};

    return ew_outfile_write(path, metrics_fill, &m, "metrics", err, errlen);
}

int
ew_metrics_write_snapshot(const struct ew_pass *p, const struct ew_metrics_src *src,
                          const char *path, char *err, size_t errlen)
{
    struct ew_metrics_flows fl;
    size_t len;
    char *text;
    int rc;

    ew_metrics_count_pass(p->c, p->an, &fl);
    text = ew_metrics_text(p->an, &fl, src, &len);
    if (!text) {
        snprintf(err, errlen, "%s: out of memory", path);
        return -1;
    }
    rc = ew_metrics_write_file(path, text, len, err, errlen);
    free(text);
    return rc;
}

int
ew_metrics_parse_addr(const char *spec, struct sockaddr_storage *ss, socklen_t *sslen,
                      char *err, size_t errlen)
{
    char host[INET6_ADDRSTRLEN + 1];
    const char *port, *end;
    unsigned long p;
    size_t hlen;
    char *pend;
    bool v6 = spec[0] == '[';

    memset(ss, 0, sizeof(*ss));
    if (v6) {
        end = strchr(spec, ']');
        if (!end || end[1] != ':') {
            snprintf(err, errlen, "want [IPV6-ADDRESS]:PORT");
            return -1;
        }
        hlen = (size_t)(end - spec - 1);
        spec++;
        port = end + 2;
    } else {
        end = strrchr(spec, ':');
        if (!end) {
            snprintf(err, errlen, "want ADDRESS:PORT, e.g. 127.0.0.1:9109 or [::1]:9109");
            return -1;
        }
        hlen = (size_t)(end - spec);
        port = end + 1;
        if (memchr(spec, ':', hlen)) {
            snprintf(err, errlen, "an IPv6 address goes in brackets: [ADDRESS]:PORT");
            return -1;
        }
    }
    if (hlen == 0 || hlen >= sizeof(host)) {
        snprintf(err, errlen, "want a numeric address before the port, e.g. 127.0.0.1:9109");
        return -1;
    }
    memcpy(host, spec, hlen);
    host[hlen] = '\0';
    errno = 0;
    p = strtoul(port, &pend, 10);
    if (port[0] < '0' || port[0] > '9' || *pend || errno || p < 1 || p > 65535) {
        snprintf(err, errlen, "want a port from 1 to 65535 after the address");
        return -1;
    }
    if (v6) {
        struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)ss;

        if (inet_pton(AF_INET6, host, &s6->sin6_addr) != 1) {
            snprintf(err, errlen, "'%s' is not a numeric IPv6 address", host);
            return -1;
        }
        s6->sin6_family = AF_INET6;
        s6->sin6_port = htons((uint16_t)p);
        *sslen = sizeof(*s6);
    } else {
        struct sockaddr_in *s4 = (struct sockaddr_in *)ss;

        if (inet_pton(AF_INET, host, &s4->sin_addr) != 1) {
            snprintf(err, errlen, "'%s' is not a numeric IPv4 address (an IPv6 one goes in "
                                  "brackets)", host);
            return -1;
        }
        s4->sin_family = AF_INET;
        s4->sin_port = htons((uint16_t)p);
        *sslen = sizeof(*s4);
    }
    return 0;
}
