/* report.c - JSON report, human summary and the atomic report writer. */
#include "ecnwatch/report.h"

#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "ecnwatch/ecn.h"
#include "ecnwatch/bottleneck.h"
#include "ecnwatch/misuse.h"
#include "ecnwatch/quic.h"
#include "ecnwatch/version.h"

void
ew_addr_str(const uint8_t addr[16], int family, char *buf, size_t len)
{
    if (family == 4)
        inet_ntop(AF_INET, addr + 12, buf, (socklen_t)len);
    else
        inet_ntop(AF_INET6, addr, buf, (socklen_t)len);
}

/* RFC 3339 UTC with microseconds, from packet time */
void
ew_time_str(int64_t ns, char *buf, size_t len)
{
    time_t s = (time_t)(ns / 1000000000);
    long us = (long)((ns % 1000000000) / 1000);
    struct tm tm;

    if (us < 0) {
        us += 1000000;
        s -= 1;
    }
    if (!gmtime_r(&s, &tm)) {
        snprintf(buf, len, "invalid");
        return;
    }
    snprintf(buf, len, "%04d-%02d-%02dT%02d:%02d:%02d.%06ldZ", tm.tm_year + 1900, tm.tm_mon + 1,
             tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, us);
}

static json_t *
jint(uint64_t v)
{
    return json_integer((json_int_t)v);
}

static json_t *
ecn_counts(const uint64_t n[4])
{
    json_t *o = json_object();

    json_object_set_new(o, "not_ect", jint(n[EW_ECN_NOT_ECT]));
    json_object_set_new(o, "ect0", jint(n[EW_ECN_ECT_0]));
    json_object_set_new(o, "ect1", jint(n[EW_ECN_ECT_1]));
    json_object_set_new(o, "ce", jint(n[EW_ECN_CE]));
    return o;
}

static json_t *
ecn_counts32(const uint32_t n32[4])
{
    uint64_t n[4];
    int i;

    for (i = 0; i < 4; i++)
        n[i] = n32[i];
    return ecn_counts(n);
}

static json_t *
ms(int64_t ns)
{
    return json_real((double)(ns / 1000) / 1000.0);
}

static json_t *
feedback_json(const struct ew_flow *f, int d, const struct ew_dir_verdict *dv)
{
    const struct ew_half *h = &f->inf.half[d];
    json_t *o = json_object();

    json_object_set_new(o, "mode", json_string(ew_fb_name[dv->feedback]));
    json_object_set_new(o, "reason", json_string(dv->feedback_reason));
    json_object_set_new(o, "segments", jint(h->fb_segments));
    json_object_set_new(o, "ce_seen", jint(h->ce_seen));
    if (dv->feedback == EW_FB_ACCECN) {
        json_t *opt = json_object();

        json_object_set_new(o, "ace_changes", jint(h->ace_changes));
        json_object_set_new(o, "ce_reported", jint(h->cep_reported));
        json_object_set_new(o, "ace_matches_seen", jint(h->ace_exact));
        json_object_set_new(o, "ace_differs_from_seen", jint(h->ace_mismatch));
        json_object_set_new(o, "ace_wrap_ambiguous", jint(h->ace_wrap_ambiguous));
        json_object_set_new(opt, "segments", jint(h->opt_segments));
        json_object_set_new(opt, "ect0_bytes", h->opt_seen[EW_ACC_E0B] ? jint(h->opt_total[EW_ACC_E0B]) : json_null());
        json_object_set_new(opt, "ce_bytes", h->opt_seen[EW_ACC_CEB] ? jint(h->opt_total[EW_ACC_CEB]) : json_null());
        json_object_set_new(opt, "ect1_bytes", h->opt_seen[EW_ACC_E1B] ? jint(h->opt_total[EW_ACC_E1B]) : json_null());
        json_object_set_new(opt, "matches_seen", jint(h->opt_exact));
        json_object_set_new(opt, "differs_from_seen", jint(h->opt_mismatch));
        json_object_set_new(o, "option", opt);
        json_object_set_new(o, "bytes_seen", json_pack("{s:I,s:I,s:I}", "ect0",
                                                       (json_int_t)h->bytes_seen[EW_ECN_ECT_0], "ce",
                                                       (json_int_t)h->bytes_seen[EW_ECN_CE], "ect1",
                                                       (json_int_t)h->bytes_seen[EW_ECN_ECT_1]));
    } else if (dv->feedback != EW_FB_NONE) {
        json_object_set_new(o, "ece_segments", jint(h->ece_acks));
        json_object_set_new(o, "ece_runs", jint(h->ece_runs));
        json_object_set_new(o, "ece_runs_ended_by_cwr", jint(h->ece_runs_after_cwr));
        json_object_set_new(o, "ece_runs_ended_without_cwr", jint(h->ece_runs_without_cwr));
        json_object_set_new(o, "cwr_segments", jint(h->cwr_seen));
        json_object_set_new(o, "esce_segments", jint(h->esce_acks));
        json_object_set_new(o, "ce_unechoed", jint(h->ce_unechoed));
    }
    json_object_set_new(o, "checked_exactly", json_boolean(dv->fb_checked_exact));
    json_object_set_new(o, "marks_downstream", json_boolean(dv->marks_downstream));
    return o;
}

/* the handshake's round trip (SYN to the ACK of the SYN-ACK, 0 when not seen):
 * the end-to-end RTT wherever the capture point is */
static int64_t
handshake_rtt(const struct ew_flow *f)
{
    const struct ew_infer *in = &f->inf;

    if (in->syn_ns && in->ack3_ns && in->ack3_ns >= in->syn_ns)
        return in->ack3_ns - in->syn_ns;
    return 0;
}

/* RTT of d's data against its ACKs, as timed at the capture point (near the
 * receiver this is only the receiver's ACK delay), and CE marks per RTT,
 * using the handshake RTT when there is one */
static json_t *
rtt_json(const struct ew_flow *f, int d)
{
    const struct ew_half *h = &f->inf.half[d];
    json_t *o = json_object();
    uint64_t ce = h->ce_seen > h->cep_reported ? h->ce_seen : h->cep_reported;
    int64_t dur = h->data_last_ns - h->data_first_ns;
    int64_t rtt = handshake_rtt(f) ? handshake_rtt(f) : h->rtt_srtt;

    json_object_set_new(o, "samples", jint(h->rtt_samples));
    if (h->rtt_samples) {
        json_object_set_new(o, "min_ms", ms(h->rtt_min));
        json_object_set_new(o, "srtt_ms", ms(h->rtt_srtt));
        json_object_set_new(o, "last_ms", ms(h->rtt_last));
    }
    if (dur > 0 && rtt > 0 && h->data_pkts > 1)
        json_object_set_new(o, "ce_per_rtt",
                            json_real((double)(int64_t)((double)ce * (double)rtt / (double)dur *
                                                        1000.0) / 1000.0));
    return o;
}

static json_t *
opt_ms(double v)
{
    return v < 0 ? json_null() : json_real((double)(int64_t)(v * 1000.0 + 0.5) / 1000.0);
}

/* which kind of AQM marked this direction, and where */
static json_t *
path_json(const struct ew_flow *f, int dir, const struct ew_flow_verdict *v)
{
    struct ew_path_verdict p;
    json_t *o = json_object();

    ew_infer_path(f, dir, v, &p);
    json_object_set_new(o, "aqm", json_string(ew_aqm_name[p.aqm]));
    json_object_set_new(o, "reason", json_string(p.reason));
    json_object_set_new(o, "marking", json_string(p.marking));
    json_object_set_new(o, "marks", jint(p.marks));
    json_object_set_new(o, "qdelay_at_marks_ms", opt_ms(p.qdelay_at_marks_ms));
    json_object_set_new(o, "qdelay_mean_ms", opt_ms(p.qdelay_mean_ms));
    json_object_set_new(o, "qdelay_max_ms", opt_ms(p.qdelay_max_ms));
    return o;
}

static json_t *
dir_json(const struct ew_flow *f, int dir, const struct ew_flow_verdict *v)
{
    const struct ew_dir_stats *d = &f->dir[dir];
    const struct ew_dir_verdict *dv = &v->dir[dir];
    json_t *o = json_object();

    json_object_set_new(o, "packets", jint(d->packets));
    json_object_set_new(o, "bytes", jint(d->bytes));
    json_object_set_new(o, "payload_bytes", jint(d->payload_bytes));
    json_object_set_new(o, "ecn", ecn_counts(d->ecn));
    if (f->key.l4 == EW_L4_TCP) {
        json_t *fl = json_object(), *kinds = json_object();
        int k;

        json_object_set_new(fl, "ece", jint(d->ece));
        json_object_set_new(fl, "cwr", jint(d->cwr));
        json_object_set_new(fl, "ae", jint(d->ae));
        json_object_set_new(o, "tcp_flags", fl);
        for (k = 0; k < EW_SEG_COUNT; k++)
            json_object_set_new(kinds, ew_seg_kind_name[k], ecn_counts32(d->kind_ecn[k]));
        json_object_set_new(o, "by_kind", kinds);
    }
    json_object_set_new(o, "sender_codepoint", json_string(dv->sender_cp));
    json_object_set_new(o, "feedback", json_string(ew_fb_name[dv->feedback]));
    json_object_set_new(o, "ect1", json_string(ew_ect1_name[dv->ect1]));
    json_object_set_new(o, "ect1_reason", json_string(dv->ect1_reason));
    if (f->key.l4 == EW_L4_TCP) {
        json_object_set_new(o, "feedback_detail", feedback_json(f, dir, dv));
        json_object_set_new(o, "rtt", rtt_json(f, dir));
        if (f->inf.half[dir].data_pkts > 0)
            json_object_set_new(o, "path", path_json(f, dir, v));
    }
    return o;
}

static json_t *
endpoint_json(const struct ew_flow *f, int from_lo)
{
    char buf[INET6_ADDRSTRLEN];
    json_t *o = json_object();
    const uint8_t *a = from_lo ? f->key.lo : f->key.hi;
    uint16_t port = from_lo ? f->key.port_lo : f->key.port_hi;

    ew_addr_str(a, f->key.family, buf, sizeof(buf));
    json_object_set_new(o, "addr", json_string(buf));
    json_object_set_new(o, "port", f->key.l4 == EW_L4_NONE ? json_null() : jint(port));
    return o;
}

static const char *
proto_name(const struct ew_flow *f)
{
    switch (f->key.l4) {
    case EW_L4_TCP:
        return "tcp";
    case EW_L4_UDP:
        return "udp";
    default:
        return "other";
    }
}

/* the handshake's (AE,CWR,ECE) flags as "111", the way RFC 9768 Table 2 writes them */
static const char *
flag_bits(uint16_t flags, char out[4])
{
    unsigned a = ew_tcp_ace(flags);

    out[0] = (a & 4) ? '1' : '0';
    out[1] = (a & 2) ? '1' : '0';
    out[2] = (a & 1) ? '1' : '0';
    out[3] = '\0';
    return out;
}

json_t *
ew_report_finding_json(const struct ew_flow *f, const struct ew_finding *x)
{
    json_t *o = json_object();

    json_object_set_new(o, "kind", json_string(ew_misuse_name[x->kind]));
    json_object_set_new(o, "dir", json_string(x->dir == f->client_dir ? "c2s" : "s2c"));
    json_object_set_new(o, "first_frame", jint(x->first_frame));
    json_object_set_new(o, "count", jint(x->count));
    json_object_set_new(o, "confidence", json_string(ew_confidence_name[x->confidence]));
    json_object_set_new(o, "ref", json_string(x->ref));
    json_object_set_new(o, "detail", json_string(x->detail));
    return o;
}

json_t *
ew_report_flow_json(const struct ew_analyzer *an, const struct ew_flow *f)
{
    json_t *o = json_object(), *ev = json_array();
    char t[64];
    int c2s = f->client_dir, s2c = f->client_dir ^ 1;
    struct ew_flow_verdict v;
    struct ew_evidence evid[24];
    size_t nev, i;

    ew_infer_conclude(f, &v);
    ew_quic_flow_verdict(f, &v); /* QUIC flows: the verdict of their Initial packets */

    json_object_set_new(o, "id", jint(f->id));
    json_object_set_new(o, "proto", json_string(proto_name(f)));
    json_object_set_new(o, "ip_proto", jint(f->key.proto));
    json_object_set_new(o, "family", jint(f->key.family));
    json_object_set_new(o, "client", endpoint_json(f, c2s == EW_DIR_LO_HI));
    json_object_set_new(o, "server", endpoint_json(f, c2s != EW_DIR_LO_HI));
    {
        static const char *const from[] = {[EW_CLIENT_FIRST_PACKET] = "first_packet",
                                           [EW_CLIENT_PORT] = "higher_port",
                                           [EW_CLIENT_SYNACK] = "synack",
                                           [EW_CLIENT_SYN] = "syn"};

        json_object_set_new(o, "client_from", json_string(from[f->client_from & 3]));
    }
    json_object_set_new(o, "first_frame", jint(f->first_frame));
    json_object_set_new(o, "last_frame", jint(f->last_frame));
    ew_time_str(f->first_ns, t, sizeof(t));
    json_object_set_new(o, "first_time", json_string(t));
    ew_time_str(f->last_ns, t, sizeof(t));
    json_object_set_new(o, "last_time", json_string(t));
    json_object_set_new(o, "ended", json_string(f->end_reason == EW_END_IDLE      ? "idle_timeout"
                                                : f->end_reason == EW_END_EVICTED ? "evicted"
                                                                                  : "capture_end"));
    json_object_set_new(o, "c2s", dir_json(f, c2s, &v));
    json_object_set_new(o, "s2c", dir_json(f, s2c, &v));
    json_object_set_new(o, "negotiation", json_string(ew_neg_name[v.neg]));
    if (v.neg_inferred)
        json_object_set_new(o, "negotiation_inferred", json_string(v.neg_reason));
    if (handshake_rtt(f))
        json_object_set_new(o, "handshake_rtt_ms", ms(handshake_rtt(f)));
    if (f->key.l4 == EW_L4_TCP) {
        json_t *hs = json_object();
        char bits[4];

        if (f->hs.syn_count) {
            json_object_set_new(hs, "syn_frame", jint(f->hs.syn_frame));
            json_object_set_new(hs, "syn_ecn_flags", json_string(flag_bits(f->hs.syn_flags, bits)));
            json_object_set_new(hs, "syn_ecn", json_string(ew_ecn_key[f->hs.syn_ecn & 3]));
            json_object_set_new(hs, "syns", jint(f->hs.syn_count));
        }
        if (f->hs.synack_count) {
            json_object_set_new(hs, "synack_frame", jint(f->hs.synack_frame));
            json_object_set_new(hs, "synack_ecn_flags",
                                json_string(flag_bits(f->hs.synack_flags, bits)));
            json_object_set_new(hs, "synack_ecn",
                                json_string(ew_ecn_key[f->hs.synack_ecn & 3]));
            json_object_set_new(hs, "synacks", jint(f->hs.synack_count));
        }
        json_object_set_new(o, "handshake", hs);
    }
    json_object_set_new(o, "verdict", json_string(ew_verdict_name[v.verdict]));
    json_object_set_new(o, "verdict_reason", json_string(v.reason));
    json_object_set_new(o, "vantage", json_string(ew_vantage_name[v.vantage]));
    json_object_set_new(o, "vantage_reason", json_string(v.vantage_reason));
    {
        struct ew_finding fnd[32];
        size_t nf = ew_misuse_find(f, &v, fnd, sizeof(fnd) / sizeof(fnd[0]));
        json_t *arr = json_array();

        for (i = 0; i < nf; i++)
            json_array_append_new(arr, ew_report_finding_json(f, &fnd[i]));
        json_object_set_new(o, "misuse", arr);
    }
    nev = ew_infer_evidence(f, &v, evid, sizeof(evid) / sizeof(evid[0]));
    for (i = 0; i < nev; i++)
        json_array_append_new(ev, json_pack("{s:I,s:s}", "frame", (json_int_t)evid[i].frame,
                                            "note", evid[i].note));
    json_object_set_new(o, "evidence", ev);
    {
        json_t *q = ew_quic_json(f);

        if (q)
            json_object_set_new(o, "quic", q);
    }
    if (an && an->series) {
        json_t *ts = ew_series_json(an->series, f);

        if (ts)
            json_object_set_new(o, "timeseries", ts);
    }
    return o;
}

/* The report without its flows: "flows" holds null, in its place, until
 * ew_report_dump() writes them one at a time. */
json_t *
ew_report_head(const struct ew_analyzer *an, const struct ew_report_src *src)
{
    json_t *root = json_object(), *s = json_object(), *tot = json_object(), *flows;
    json_t *events = json_object();
    struct ew_flowtab_stats st;
    const struct ew_flow **list;
    size_t n;
    char t[64];
    int ev;

    ew_flowtab_get_stats(an->tab, &st);
    json_object_set_new(root, "schema", json_string(EW_SCHEMA));
    json_object_set_new(root, "version", json_string(EW_VERSION));

    json_object_set_new(s, "kind", json_string(src->kind));
    json_object_set_new(s, "name", json_string(src->name));
    json_object_set_new(s, "linktype", json_string(src->linktype ? src->linktype : "unknown"));
    json_object_set_new(s, "filter", src->filter ? json_string(src->filter) : json_null());
    json_object_set_new(s, "truncated", json_boolean(src->truncated));
    json_object_set_new(s, "interrupted", json_boolean(src->interrupted));
    json_object_set_new(s, "packet_limit", src->packet_limit ? jint(src->packet_limit) : json_null());
    if (an->have_time) {
        ew_time_str(an->first_ns, t, sizeof(t));
        json_object_set_new(s, "first_time", json_string(t));
        ew_time_str(an->last_ns, t, sizeof(t));
        json_object_set_new(s, "last_time", json_string(t));
    }
    json_object_set_new(root, "source", s);

    json_object_set_new(tot, "frames", jint(an->tot.frames));
    json_object_set_new(tot, "ip_packets", jint(an->tot.ip_packets));
    json_object_set_new(tot, "non_ip", jint(an->tot.non_ip));
    json_object_set_new(tot, "undecodable", jint(an->tot.undecodable));
    json_object_set_new(tot, "truncated", jint(an->tot.truncated));
    json_object_set_new(tot, "invalid", jint(an->tot.invalid));
    json_object_set_new(tot, "ecn", ecn_counts(an->tot.ecn));
    json_object_set_new(tot, "flows", jint(st.created));
    json_object_set_new(tot, "flows_reported", jint(st.in_table));
    json_object_set_new(tot, "flows_evicted", jint(st.evicted));
    json_object_set_new(tot, "flows_expired", jint(st.expired));
    for (ev = 0; ev < EW_EV_COUNT; ev++)
        if (an->tot.events[ev])
            json_object_set_new(events, ew_event_name[ev], jint(an->tot.events[ev]));
    json_object_set_new(tot, "events", events);
    {
        uint64_t counts[32];
        json_t *fo = json_object();
        int k;

        ew_analyzer_findings(an, counts);
        for (k = 0; k < EW_MU_COUNT; k++)
            if (counts[k])
                json_object_set_new(fo, ew_misuse_name[k], jint(counts[k]));
        json_object_set_new(tot, "findings", fo);
        if (an->series)
            json_object_set_new(tot, "timeseries_refused", jint(an->series->refused));
    }
    json_object_set_new(root, "totals", tot);

    flows = json_null();
    list = malloc((st.in_table ? st.in_table : 1) * sizeof(*list));
    if (list) {
        n = ew_flowtab_list(an->tab, list, st.in_table);
        json_object_set_new(root, "bottlenecks", ew_bottlenecks_json(list, n));
        free(list);
    }
    json_object_set_new(root, "flows", flows);
    return root;
}

json_t *
ew_report_json(const struct ew_analyzer *an, const struct ew_report_src *src)
{
    json_t *root = ew_report_head(an, src), *flows = json_array();
    struct ew_flowtab_stats st;
    const struct ew_flow **list;
    size_t n, i;

    ew_flowtab_get_stats(an->tab, &st);
    list = malloc((st.in_table ? st.in_table : 1) * sizeof(*list));
    if (list) {
        n = ew_flowtab_list(an->tab, list, st.in_table);
        for (i = 0; i < n; i++)
            json_array_append_new(flows, ew_report_flow_json(an, list[i]));
        free(list);
    }
    json_object_set_new(root, "flows", flows);
    return root;
}

/* write a value as jansson's indented form would at this depth: every line
 * after the first gains the indent */
static int
put_value(FILE *out, json_t *v, const char *indent)
{
    char *txt = json_dumps(v, JSON_INDENT(2) | JSON_REAL_PRECISION(10) | JSON_ENCODE_ANY);
    const char *p;
    int rc = 0;

    if (!txt)
        return -1;
    for (p = txt; *p && rc == 0; p++) {
        if (fputc(*p, out) == EOF)
            rc = -1;
        else if (*p == '\n' && fputs(indent, out) == EOF)
            rc = -1;
    }
    free(txt);
    return rc;
}

int
ew_report_dump(FILE *out, const struct ew_analyzer *an, json_t *root)
{
    const char *key;
    json_t *v;
    bool first = true;
    int rc = 0;

    if (fputs("{", out) == EOF)
        return -1;
    json_object_foreach(root, key, v) {
        if (fprintf(out, "%s\n  \"%s\": ", first ? "" : ",", key) < 0)
            return -1;
        first = false;
        if (!strcmp(key, "flows") && json_is_null(v)) {
            /* one flow's tree at a time, whatever the number of flows */
            struct ew_flowtab_stats st;
            const struct ew_flow **list;
            size_t n, i;

            ew_flowtab_get_stats(an->tab, &st);
            list = malloc((st.in_table ? st.in_table : 1) * sizeof(*list));
            if (!list)
                return -1;
            n = ew_flowtab_list(an->tab, list, st.in_table);
            if (fputs(n ? "[" : "[]", out) == EOF)
                rc = -1;
            for (i = 0; i < n && rc == 0; i++) {
                json_t *f = ew_report_flow_json(an, list[i]);

                if (fputs(i ? ",\n    " : "\n    ", out) == EOF || put_value(out, f, "    ") != 0)
                    rc = -1;
                json_decref(f);
            }
            if (n && rc == 0 && fputs("\n  ]", out) == EOF)
                rc = -1;
            free(list);
        } else {
            rc = put_value(out, v, "  ");
        }
        if (rc != 0)
            return rc;
    }
    if (fputs(first ? "}\n" : "\n}\n", out) == EOF)
        return -1;
    return 0;
}

static double
pct(uint64_t part, uint64_t whole)
{
    return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

static void
text_dir(FILE *out, const char *name, const struct ew_flow *f, int dir,
         const struct ew_flow_verdict *v)
{
    const struct ew_dir_stats *d = &f->dir[dir];

    fprintf(out, "    %-4s %9" PRIu64 " %7.1f%% %7.1f%% %7.1f%% %7.1f%%", name, d->packets,
            pct(d->ecn[EW_ECN_NOT_ECT], d->packets), pct(d->ecn[EW_ECN_ECT_0], d->packets),
            pct(d->ecn[EW_ECN_ECT_1], d->packets), pct(d->ecn[EW_ECN_CE], d->packets));
    if (f->key.l4 == EW_L4_TCP)
        fprintf(out, "  %-8s %s", ew_fb_name[v->dir[dir].feedback],
                ew_ect1_name[v->dir[dir].ect1]);
    fputc('\n', out);
}

/* findings first, where a person looks first */
static void
text_findings(FILE *out, const struct ew_analyzer *an, const struct ew_flow **list, size_t n)
{
    size_t i, j, shown = 0, total = 0;
    uint64_t evicted = 0;
    int k;

    for (i = 0; i < n; i++) {
        struct ew_flow_verdict v;
        struct ew_finding fnd[32];
        size_t nf;

        ew_infer_conclude(list[i], &v);
        nf = ew_misuse_find(list[i], &v, fnd, sizeof(fnd) / sizeof(fnd[0]));
        for (j = 0; j < nf; j++) {
            if (total++ == 0)
                fprintf(out, "\nMISUSE FOUND:\n");
            if (shown < 40) {
                fprintf(out, "  #%" PRIu64 " %s %s (%s, %" PRIu64 "x from frame %" PRIu64 ", %s): %s\n",
                        list[i]->id, ew_misuse_name[fnd[j].kind],
                        fnd[j].dir == list[i]->client_dir ? "c2s" : "s2c",
                        ew_confidence_name[fnd[j].confidence], fnd[j].count, fnd[j].first_frame,
                        fnd[j].ref, fnd[j].detail);
                shown++;
            }
        }
    }
    if (total > shown)
        fprintf(out, "  ... and %zu more findings (the JSON report has them all)\n", total - shown);
    for (k = 0; k < EW_MU_COUNT; k++)
        evicted += an->evicted_findings[k];
    if (evicted)
        fprintf(out, "  flows evicted from the table had %" PRIu64 " more findings (totals.findings)\n",
                evicted);
}

void
ew_report_text(FILE *out, const struct ew_analyzer *an, const struct ew_report_src *src,
               size_t max_flows)
{
    const struct ew_totals *t = &an->tot;
    struct ew_flowtab_stats st;
    const struct ew_flow **list;
    size_t n, i;

    ew_flowtab_get_stats(an->tab, &st);
    fprintf(out, "%s (%s): %" PRIu64 " frames, %" PRIu64 " IP packets, %" PRIu64 " flow%s\n",
            src->name, src->linktype ? src->linktype : "unknown", t->frames, t->ip_packets,
            st.created, st.created == 1 ? "" : "s");
    fprintf(out,
            "ECN: Not-ECT %" PRIu64 " (%.1f%%)  ECT(0) %" PRIu64 " (%.1f%%)  ECT(1) %" PRIu64
            " (%.1f%%)  CE %" PRIu64 " (%.1f%%)\n",
            t->ecn[EW_ECN_NOT_ECT], pct(t->ecn[EW_ECN_NOT_ECT], t->ip_packets),
            t->ecn[EW_ECN_ECT_0], pct(t->ecn[EW_ECN_ECT_0], t->ip_packets), t->ecn[EW_ECN_ECT_1],
            pct(t->ecn[EW_ECN_ECT_1], t->ip_packets), t->ecn[EW_ECN_CE],
            pct(t->ecn[EW_ECN_CE], t->ip_packets));
    if (t->non_ip || t->undecodable || t->truncated || t->invalid)
        fprintf(out,
                "Other: %" PRIu64 " non-IP, %" PRIu64 " undecodable, %" PRIu64
                " truncated, %" PRIu64 " invalid\n",
                t->non_ip, t->undecodable, t->truncated, t->invalid);
    if (st.evicted)
        fprintf(out, "Flow table full: %" PRIu64 " flows evicted (raise --max-flows)\n",
                st.evicted);

    list = malloc((st.in_table ? st.in_table : 1) * sizeof(*list));
    if (!list)
        return;
    n = ew_flowtab_list(an->tab, list, st.in_table);
    text_findings(out, an, list, n);
    for (i = 0; i < n && i < max_flows; i++) {
        const struct ew_flow *f = list[i];
        struct ew_flow_verdict v;
        char a[INET6_ADDRSTRLEN], b[INET6_ADDRSTRLEN];
        int c2s = f->client_dir;
        const uint8_t *ca = c2s == EW_DIR_LO_HI ? f->key.lo : f->key.hi;
        const uint8_t *sa = c2s == EW_DIR_LO_HI ? f->key.hi : f->key.lo;
        uint16_t cp = c2s == EW_DIR_LO_HI ? f->key.port_lo : f->key.port_hi;
        uint16_t sp = c2s == EW_DIR_LO_HI ? f->key.port_hi : f->key.port_lo;
        char ce[INET6_ADDRSTRLEN + 10], se[INET6_ADDRSTRLEN + 10];

        ew_addr_str(ca, f->key.family, a, sizeof(a));
        ew_addr_str(sa, f->key.family, b, sizeof(b));
        if (f->key.l4 == EW_L4_NONE) {
            snprintf(ce, sizeof(ce), "%s", a);
            snprintf(se, sizeof(se), "%s", b);
        } else if (f->key.family == 6) {
            snprintf(ce, sizeof(ce), "[%s]:%u", a, cp);
            snprintf(se, sizeof(se), "[%s]:%u", b, sp);
        } else {
            snprintf(ce, sizeof(ce), "%s:%u", a, cp);
            snprintf(se, sizeof(se), "%s:%u", b, sp);
        }
        fputc('\n', out);
        if (f->key.l4 == EW_L4_NONE)
            fprintf(out, "#%" PRIu64 " ip-proto %u  %s -> %s\n", f->id, f->key.proto, ce, se);
        else
            fprintf(out, "#%" PRIu64 " %s  %s -> %s", f->id, proto_name(f), ce, se);
        ew_infer_conclude(f, &v);
        ew_quic_flow_verdict(f, &v);
        if (f->key.l4 == EW_L4_TCP)
            fprintf(out, "  negotiation %s%s\n", ew_neg_name[v.neg],
                    v.neg_inferred ? " (handshake not captured)" : "");
        else if (f->key.l4 == EW_L4_UDP)
            fputc('\n', out);
        fprintf(out, "    verdict %s", ew_verdict_name[v.verdict]);
        if (v.vantage != EW_VANT_UNKNOWN)
            fprintf(out, ", captured %s", v.vantage == EW_VANT_CLIENT   ? "at the client side"
                                          : v.vantage == EW_VANT_SERVER ? "at the server side"
                                                                        : "in the middle");
        fprintf(out, ": %s\n", v.reason);
        fprintf(out, "    dir  %9s %8s %8s %8s %8s%s\n", "packets", "Not-ECT", "ECT(0)", "ECT(1)",
                "CE", f->key.l4 == EW_L4_TCP ? "  feedback ECT(1)" : "");
        text_dir(out, "c2s", f, c2s, &v);
        text_dir(out, "s2c", f, c2s ^ 1, &v);
    }
    if (n > max_flows)
        fprintf(out, "\n... and %zu more flows (the JSON report, --json or -o, has them all)\n",
                n - max_flows);
    free(list);
}

int
ew_report_write_file(const struct ew_analyzer *an, json_t *root, const char *path, char *errbuf,
                     size_t errlen)
{
    size_t plen = strlen(path);
    char *tmp = malloc(plen + 16);
    FILE *fp = NULL;
    int fd, saved;

    if (!tmp) {
        snprintf(errbuf, errlen, "%s: out of memory", path);
        return -1;
    }
    snprintf(tmp, plen + 16, "%s.tmp.XXXXXX", path);
    fd = mkstemp(tmp);
    if (fd < 0) {
        snprintf(errbuf, errlen, "%s: cannot create a temporary file beside it: %s", path,
                 strerror(errno));
        free(tmp);
        return -1;
    }
    {
        /* mkstemp makes 0600; give the report the mode any new file gets */
        mode_t um = umask(0);

        umask(um);
        if (fchmod(fd, 0666 & ~um) != 0) {
            saved = errno;
            close(fd);
            goto fail;
        }
    }
    fp = fdopen(fd, "w");
    if (!fp) {
        saved = errno;
        close(fd);
        goto fail;
    }
    if (ew_report_dump(fp, an, root) != 0) {
        saved = errno ? errno : EIO;
        fclose(fp);
        goto fail;
    }
    if (fflush(fp) != 0 || fsync(fileno(fp)) != 0) {
        saved = errno;
        fclose(fp);
        goto fail;
    }
    if (fclose(fp) != 0) {
        saved = errno;
        goto fail;
    }
    if (rename(tmp, path) != 0) {
        saved = errno;
        goto fail;
    }
    free(tmp);
    return 0;
fail:
    unlink(tmp);
    snprintf(errbuf, errlen, "%s: cannot write the report: %s", path, strerror(saved));
    free(tmp);
    return -1;
}
