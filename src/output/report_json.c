/* report_json.c - the JSON report's parts (schema ecnwatch.report/1, see
 * man/ecnwatch-report.5): one flow, as the report and the NDJSON stream
 * write it, and the report's head. report_write.c writes the whole. */
#include "ecnwatch/report.h"

#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>

#include "ecnwatch/bottleneck.h"
#include "ecnwatch/ecn.h"
#include "ecnwatch/format.h"
#include "ecnwatch/jw.h"
#include "ecnwatch/misuse.h"
#include "ecnwatch/quic.h"
#include "ecnwatch/series.h"
#include "ecnwatch/version.h"

/* ------------------------------------------------------------- the flows:
 * written straight to the writer, in the order (and with the bytes) the
 * jansson objects they replace had */

/* json_integer((json_int_t)v) of an unsigned counter */
static inline void
kuint(struct jw *w, const char *k, uint64_t v)
{
    jw_kint(w, k, (int64_t)v);
}

static void
w_ecn_counts(struct jw *w, const char *k, uint64_t ne, uint64_t e0, uint64_t e1, uint64_t ce)
{
    static const char *const keys[4] = {"not_ect", "ect0", "ect1", "ce"};
    const int64_t v[4] = {(int64_t)ne, (int64_t)e0, (int64_t)e1, (int64_t)ce};

    jw_key(w, k);
    jw_int_object(w, keys, v, 4);
}

/* milliseconds from nanoseconds, to the microsecond */
static double
ms(int64_t ns)
{
    return (double)(ns / 1000) / 1000.0;
}

static void
feedback_write(struct jw *w, const struct ew_flow *f, int d, const struct ew_dir_verdict *dv)
{
    const struct ew_half *h = &f->inf->half[d];

    jw_key(w, "feedback_detail");
    jw_object_begin(w);
    jw_kstring(w, "mode", ew_fb_name[dv->feedback]);
    jw_kstring(w, "reason", dv->feedback_reason);
    kuint(w, "segments", h->fb_segments);
    kuint(w, "ce_seen", h->ce_seen);
    if (dv->feedback == EW_FB_ACCECN) {
        kuint(w, "ace_changes", h->ace_changes);
        kuint(w, "ce_reported", h->cep_reported);
        kuint(w, "ace_matches_seen", h->ace_exact);
        kuint(w, "ace_differs_from_seen", h->ace_mismatch);
        kuint(w, "ace_wrap_ambiguous", h->ace_wrap_ambiguous);
        jw_key(w, "option");
        jw_object_begin(w);
        kuint(w, "segments", h->opt_segments);
        jw_key(w, "ect0_bytes");
        if (h->opt_seen[EW_ACC_E0B])
            jw_int(w, (int64_t)(uint64_t)h->opt_total[EW_ACC_E0B]);
        else
            jw_null(w);
        jw_key(w, "ce_bytes");
        if (h->opt_seen[EW_ACC_CEB])
            jw_int(w, (int64_t)(uint64_t)h->opt_total[EW_ACC_CEB]);
        else
            jw_null(w);
        jw_key(w, "ect1_bytes");
        if (h->opt_seen[EW_ACC_E1B])
            jw_int(w, (int64_t)(uint64_t)h->opt_total[EW_ACC_E1B]);
        else
            jw_null(w);
        kuint(w, "matches_seen", h->opt_exact);
        kuint(w, "differs_from_seen", h->opt_mismatch);
        jw_object_end(w);
        jw_key(w, "bytes_seen");
        jw_object_begin(w);
        jw_kint(w, "ect0", (json_int_t)h->bytes_seen[EW_ECN_ECT_0]);
        jw_kint(w, "ce", (json_int_t)h->bytes_seen[EW_ECN_CE]);
        jw_kint(w, "ect1", (json_int_t)h->bytes_seen[EW_ECN_ECT_1]);
        jw_object_end(w);
    } else if (dv->feedback != EW_FB_NONE) {
        kuint(w, "ece_segments", h->ece_acks);
        kuint(w, "ece_runs", h->ece_runs);
        kuint(w, "ece_runs_ended_by_cwr", h->ece_runs_after_cwr);
        kuint(w, "ece_runs_ended_without_cwr", h->ece_runs_without_cwr);
        kuint(w, "cwr_segments", h->cwr_seen);
        kuint(w, "esce_segments", h->esce_acks);
        kuint(w, "ce_unechoed", h->ce_unechoed);
    }
    jw_kbool(w, "checked_exactly", dv->fb_checked_exact);
    jw_kbool(w, "marks_downstream", dv->marks_downstream);
    jw_object_end(w);
}

/* the handshake's round trip (SYN to the ACK of the SYN-ACK, 0 when not seen):
 * the end-to-end RTT wherever the capture point is */
static int64_t
handshake_rtt(const struct ew_flow *f)
{
    const struct ew_infer *in = f->inf;

    if (in->syn_ns && in->ack3_ns && in->ack3_ns >= in->syn_ns)
        return in->ack3_ns - in->syn_ns;
    return 0;
}

/* a timestamp loop (struct ew_tsloop): a round trip from the capture point
 * to one end and back, timed by TSval and its first echo */
static void
tsloop_write(struct jw *w, const char *k, const struct ew_tsloop *l)
{
    jw_key(w, k);
    jw_object_begin(w);
    kuint(w, "samples", l->samples);
    if (l->samples) {
        jw_kreal(w, "min_ms", ms(l->min));
        jw_kreal(w, "srtt_ms", ms(l->srtt));
        jw_kreal(w, "excess_mean_ms",
                 (double)(int64_t)((double)l->excess_sum_us / l->samples) / 1000.0);
    }
    jw_object_end(w);
}

/* RTT of d's data against its ACKs, as timed at the capture point (near the
 * receiver this is only the receiver's ACK delay), the two timestamp loops
 * (to d's receiver and to d's sender, each from the capture point), and CE
 * marks per RTT, using the end-to-end RTT (ew_infer_path_rtt) */
static void
rtt_write(struct jw *w, const struct ew_flow *f, int d)
{
    const struct ew_half *h = &f->inf->half[d];
    uint64_t ce = h->ce_seen > h->cep_reported ? h->ce_seen : h->cep_reported;
    int64_t dur = h->data_last_ns - h->data_first_ns;
    int64_t rtt = ew_infer_path_rtt(f, d);

    jw_key(w, "rtt");
    jw_object_begin(w);
    kuint(w, "samples", h->rtt_samples);
    if (h->rtt_samples) {
        jw_kreal(w, "min_ms", ms(h->rtt_min));
        jw_kreal(w, "srtt_ms", ms(h->rtt_srtt));
        jw_kreal(w, "last_ms", ms(h->rtt_last));
    }
    if (f->inf->half[d].ts.samples || f->inf->half[d ^ 1].ts.samples) {
        tsloop_write(w, "ts_to_receiver", &f->inf->half[d].ts);
        tsloop_write(w, "ts_to_sender", &f->inf->half[d ^ 1].ts);
    }
    if (dur > 0 && rtt > 0 && h->data_pkts > 1)
        jw_kreal(w, "ce_per_rtt",
                 (double)(int64_t)((double)ce * (double)rtt / (double)dur * 1000.0) / 1000.0);
    jw_object_end(w);
}

/* a delay in ms to the microsecond, null when not known (< 0) */
static void
opt_ms(struct jw *w, const char *k, double v)
{
    jw_key(w, k);
    if (v < 0)
        jw_null(w);
    else
        jw_real(w, (double)(int64_t)(v * 1000.0 + 0.5) / 1000.0);
}

/* which kind of AQM marked this direction, and where */
static void
path_write(struct jw *w, const struct ew_path_verdict *pv)
{
    const struct ew_path_verdict p = *pv;

    jw_key(w, "path");
    jw_object_begin(w);
    jw_kstring(w, "aqm", ew_aqm_name[p.aqm]);
    jw_kstring(w, "reason", p.reason);
    jw_kstring(w, "marking", p.marking);
    kuint(w, "marks", p.marks);
    opt_ms(w, "qdelay_at_marks_ms", p.qdelay_at_marks_ms);
    opt_ms(w, "qdelay_mean_ms", p.qdelay_mean_ms);
    opt_ms(w, "qdelay_max_ms", p.qdelay_max_ms);
    jw_kstring(w, "qdelay_from", p.qdelay_from);
    opt_ms(w, "serialisation_ms", p.serialisation_ms);
    jw_object_end(w);
}

static void
dir_write(struct jw *w, const char *name, const struct ew_flow *f, int dir,
          const struct ew_flow_summary *r)
{
    const struct ew_flow_verdict *v = &r->v;
    const struct ew_dir_stats *d = &f->dir[dir];
    const struct ew_dir_verdict *dv = &v->dir[dir];
    const uint32_t(*kc)[4] = f->inf->kind_ecn[dir];

    jw_key(w, name);
    jw_object_begin(w);
    kuint(w, "packets", d->packets);
    kuint(w, "bytes", d->bytes);
    kuint(w, "payload_bytes", d->payload_bytes);
    w_ecn_counts(w, "ecn", d->ecn[EW_ECN_NOT_ECT], d->ecn[EW_ECN_ECT_0], d->ecn[EW_ECN_ECT_1],
                 d->ecn[EW_ECN_CE]);
    if (f->key.l4 == EW_L4_TCP) {
        int k;

        static const char *const flags[3] = {"ece", "cwr", "ae"};
        const int64_t fv[3] = {d->ece, d->cwr, d->ae};

        jw_key(w, "tcp_flags");
        jw_int_object(w, flags, fv, 3);
        jw_key(w, "by_kind");
        jw_object_begin(w);
        for (k = 0; k < EW_SEG_COUNT; k++)
            w_ecn_counts(w, ew_seg_kind_name[k], kc[k][EW_ECN_NOT_ECT], kc[k][EW_ECN_ECT_0],
                         kc[k][EW_ECN_ECT_1], kc[k][EW_ECN_CE]);
        jw_object_end(w);
    }
    jw_kstring(w, "sender_codepoint", dv->sender_cp);
    jw_kstring(w, "feedback", ew_fb_name[dv->feedback]);
    jw_kstring(w, "ect1", ew_ect1_name[dv->ect1]);
    jw_kstring(w, "ect1_reason", dv->ect1_reason);
    if (f->key.l4 == EW_L4_TCP) {
        feedback_write(w, f, dir, dv);
        rtt_write(w, f, dir);
        if (f->inf->half[dir].data_pkts > 0)
            path_write(w, &r->path[dir]);
    }
    jw_object_end(w);
}

void
ew_report_endpoint_write(struct jw *w, const char *name, const struct ew_flow *f, bool client)
{
    char buf[INET6_ADDRSTRLEN];
    int from_lo = client ? f->client_dir == EW_DIR_LO_HI : f->client_dir != EW_DIR_LO_HI;
    const uint8_t *a = from_lo ? f->key.lo : f->key.hi;
    uint16_t port = from_lo ? f->key.port_lo : f->key.port_hi;

    ew_addr_str(a, f->key.family, buf, sizeof(buf));
    jw_key(w, name);
    jw_object_begin(w);
    jw_kstring(w, "addr", buf);
    jw_key(w, "port");
    if (f->key.l4 == EW_L4_NONE)
        jw_null(w);
    else
        jw_int(w, port);
    jw_object_end(w);
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

void
ew_report_finding_members(struct jw *w, const struct ew_flow *f, const struct ew_finding *x)
{
    jw_kstring(w, "kind", ew_misuse_name[x->kind]);
    jw_kstring(w, "dir", x->dir == f->client_dir ? "c2s" : "s2c");
    kuint(w, "first_frame", x->first_frame);
    kuint(w, "count", x->count);
    jw_kstring(w, "confidence", ew_confidence_name[x->confidence]);
    jw_kstring(w, "ref", x->ref);
    jw_kstring(w, "detail", x->detail);
}

void
ew_report_flow_write(struct jw *w, const struct ew_analyzer *an, const struct ew_flow *f,
                     const struct ew_flow_summary *r)
{
    static const char *const from[] = {[EW_CLIENT_FIRST_PACKET] = "first_packet",
                                       [EW_CLIENT_PORT] = "higher_port",
                                       [EW_CLIENT_SYNACK] = "synack",
                                       [EW_CLIENT_SYN] = "syn"};
    const struct ew_flow_verdict *v = &r->v;
    char t[64];
    int c2s = f->client_dir, s2c = f->client_dir ^ 1;
    const struct ew_evidence *evid;
    size_t nev, i;

    jw_object_begin(w);
    kuint(w, "id", f->id);
    jw_kstring(w, "proto", ew_report_proto_name(f));
    kuint(w, "ip_proto", f->key.proto);
    kuint(w, "family", f->key.family);
    ew_report_endpoint_write(w, "client", f, true);
    ew_report_endpoint_write(w, "server", f, false);
    jw_kstring(w, "client_from", from[f->client_from & 3]);
    kuint(w, "first_frame", f->first_frame);
    kuint(w, "last_frame", f->last_frame);
    ew_time_str(f->first_ns, t, sizeof(t));
    jw_kstring(w, "first_time", t);
    ew_time_str(f->last_ns, t, sizeof(t));
    jw_kstring(w, "last_time", t);
    jw_kstring(w, "ended", f->end_reason == EW_END_IDLE      ? "idle_timeout"
                           : f->end_reason == EW_END_EVICTED ? "evicted"
                                                             : "capture_end");
    dir_write(w, "c2s", f, c2s, r);
    dir_write(w, "s2c", f, s2c, r);
    jw_kstring(w, "negotiation", ew_neg_name[v->neg]);
    if (v->neg_inferred)
        jw_kstring(w, "negotiation_inferred", v->neg_reason);
    if (handshake_rtt(f))
        jw_kreal(w, "handshake_rtt_ms", ms(handshake_rtt(f)));
    if (f->key.l4 == EW_L4_TCP) {
        char bits[4];

        jw_key(w, "handshake");
        jw_object_begin(w);
        if (f->hs.syn_count) {
            kuint(w, "syn_frame", f->hs.syn_frame);
            jw_kstring(w, "syn_ecn_flags", flag_bits(f->hs.syn_flags, bits));
            jw_kstring(w, "syn_ecn", ew_ecn_key[f->hs.syn_ecn & 3]);
            kuint(w, "syns", f->hs.syn_count);
        }
        if (f->hs.synack_count) {
            kuint(w, "synack_frame", f->hs.synack_frame);
            jw_kstring(w, "synack_ecn_flags", flag_bits(f->hs.synack_flags, bits));
            jw_kstring(w, "synack_ecn", ew_ecn_key[f->hs.synack_ecn & 3]);
            kuint(w, "synacks", f->hs.synack_count);
        }
        jw_object_end(w);
    }
    jw_kstring(w, "verdict", ew_verdict_name[v->verdict]);
    jw_kstring(w, "verdict_reason", v->reason);
    jw_kstring(w, "vantage", ew_vantage_name[v->vantage]);
    jw_kstring(w, "vantage_reason", v->vantage_reason);
    jw_key(w, "misuse");
    jw_array_begin(w);
    for (i = 0; i < r->nf; i++) {
        jw_object_begin(w);
        ew_report_finding_members(w, f, &r->fnd[i]);
        jw_object_end(w);
    }
    jw_array_end(w);
    nev = r->nev;
    evid = r->ev;
    jw_key(w, "evidence");
    jw_array_begin(w);
    for (i = 0; i < nev; i++) {
        /* json_pack("{s:I,s:s}") made no element of a note json_string() refuses */
        if (!jw_utf8_valid(evid[i].note))
            continue;
        jw_object_begin(w);
        jw_kint(w, "frame", (json_int_t)evid[i].frame);
        jw_kstring(w, "note", evid[i].note);
        jw_object_end(w);
    }
    jw_array_end(w);
    ew_quic_write(w, "quic", f);
    if (an && an->series)
        ew_series_write(w, "timeseries", an->series, f);
    jw_object_end(w);
}

/* ---------------------------------------------------------------- the head:
 * once per report, as jansson values */

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

/* The report without its flows: "flows" holds null, in its place, until
 * ew_report_dump() writes them one at a time. */
json_t *
ew_report_head(const struct ew_analyzer *an, const struct ew_report_src *src)
{
    json_t *root = json_object(), *s = json_object(), *tot = json_object(), *flows;
    json_t *events = json_object();
    struct ew_flowtab_stats st;
    uint32_t *refs;
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
        uint64_t counts[EW_MU_MASK_BITS];
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
    if (src->have_loss) {
        json_t *cap = json_object();

        json_object_set_new(cap, "received", jint(src->loss_received));
        json_object_set_new(cap, "dropped", jint(src->loss_dropped));
        json_object_set_new(cap, "interface_dropped",
                            src->loss_ifdrop_known ? jint(src->loss_ifdropped) : json_null());
        json_object_set_new(tot, "capture", cap);
    }
    json_object_set_new(root, "totals", tot);

    flows = json_null();
    refs = malloc((st.in_table ? st.in_table : 1) * sizeof(*refs));
    if (refs) {
        n = ew_flowtab_refs(an->tab, refs, st.in_table, false);
        json_object_set_new(root, "bottlenecks", ew_bottlenecks_json(an->tab, refs, n));
        free(refs);
    }
    json_object_set_new(root, "flows", flows);
    return root;
}
