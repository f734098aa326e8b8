/* report_json.c - the JSON report's parts (schema ecnwatch.report/1, see
 * man/ecnwatch-report.5): one flow with its time series, as the report and
 * the NDJSON stream write it, and the report's source and totals, which the
 * stream's summary has too. report_path.c writes the parts across flows and
 * captures, report_write.c the whole. */
#include "output/report.h"

#include <arpa/inet.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dissectors/ecn.h"
#include "base/format.h"
#include "base/jw.h"
#include "findings/misuse.h"
#include "output/quic_json.h"
#include "output/tunnel_json.h"
#include "infer/series.h"

/* ------------------------------------------------------------- the flows:
 * written straight to the writer, in the order (and with the bytes) the
 * jansson objects they replace had */

/* an unsigned counter as a JSON integer: its int64_t value */
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
        /* joined mid-flow, the first ACE seen is the counter's baseline */
        bool base = f->hs.syn_count > 0 || f->inf->synack_dir_set;

        kuint(w, "ace_changes", h->ace_changes);
        kuint(w, "ce_reported", h->cep_reported);
        kuint(w, "ace_matches_seen", base ? h->ace_exact : h->ace_rel_exact);
        kuint(w, "ace_differs_from_seen", base ? h->ace_mismatch : h->ace_rel_mismatch);
        kuint(w, "ace_wrap_ambiguous", h->ace_wrap_ambiguous);
        jw_key(w, "option");
        jw_object_begin(w);
        kuint(w, "segments", h->opt_segments);
        jw_kint_if(w, "ect0_bytes", h->opt_seen[EW_ACC_E0B], (int64_t)h->opt_total[EW_ACC_E0B]);
        jw_kint_if(w, "ce_bytes", h->opt_seen[EW_ACC_CEB], (int64_t)h->opt_total[EW_ACC_CEB]);
        jw_kint_if(w, "ect1_bytes", h->opt_seen[EW_ACC_E1B], (int64_t)h->opt_total[EW_ACC_E1B]);
        kuint(w, "matches_seen", h->opt_exact);
        kuint(w, "differs_from_seen", h->opt_mismatch);
        jw_object_end(w);
        jw_key(w, "bytes_seen");
        jw_object_begin(w);
        jw_kint(w, "ect0", (int64_t)h->bytes_seen[EW_ECN_ECT_0]);
        jw_kint(w, "ce", (int64_t)h->bytes_seen[EW_ECN_CE]);
        jw_kint(w, "ect1", (int64_t)h->bytes_seen[EW_ECN_ECT_1]);
        jw_object_end(w);
    } else if (dv->feedback != EW_FB_NONE) {
        kuint(w, "ece_segments", h->ece_acks);
        kuint(w, "ece_runs", h->ece_runs);
        kuint(w, "ece_runs_ended_by_cwr", h->ece_runs_after_cwr);
        kuint(w, "ece_runs_ended_without_cwr", dv->runs_no_cwr);
        /* runs that ended with no CWR seen but tell nothing: after a CWR sent
         * just before them, on when the capture began, or while it missed data */
        kuint(w, "ece_runs_set_aside", h->ece_runs_in_recovery + h->ece_runs_at_start +
                                           (h->missed_bytes ? h->ece_runs_no_cwr_gap : 0));
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
    /* marks fed back: the ACE counter's under AccECN, ECE runs under classic feedback */
    uint64_t fb = f->inf->accecn_mode ? h->cep_reported : h->ece_runs;
    uint64_t ce = h->ce_seen > fb ? h->ce_seen : fb;
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
    jw_kstring_or_null(w, "confidence",
                       !p.has_confidence ? NULL : p.certain ? "certain" : "likely");
    jw_kstring(w, "reason", p.reason);
    jw_kstring_or_null(w, "note", p.note);
    jw_kstring(w, "marking", p.marking);
    kuint(w, "marks", p.marks);
    kuint(w, "marks_with_qdelay", p.marks_with_qdelay);
    kuint(w, "qdelay_samples", p.qdelay_samples);
    jw_key(w, "marks_above_median");
    if (p.marks_above_median < 0)
        jw_null(w);
    else
        jw_real(w, (double)(int64_t)(p.marks_above_median * 1000.0 + 0.5) / 1000.0);
    opt_ms(w, "qdelay_at_marks_ms", p.qdelay_at_marks_ms);
    opt_ms(w, "qdelay_mean_ms", p.qdelay_mean_ms);
    opt_ms(w, "qdelay_max_ms", p.qdelay_max_ms);
    opt_ms(w, "qdelay_median_ms", p.qdelay_median_ms);
    opt_ms(w, "qdelay_p10_ms", p.qdelay_p10_ms);
    opt_ms(w, "qdelay_p90_ms", p.qdelay_p90_ms);
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
    /* what this capture did not see of the direction, or saw twice */
    jw_key(w, "capture");
    jw_object_begin(w);
    kuint(w, "duplicates", d->dups);
    kuint(w, "duplicates_unsure", d->dups_unsure);
    kuint(w, "missed_bytes", f->key.l4 == EW_L4_TCP ? f->inf->half[dir].missed_bytes : 0);
    kuint(w, "missed_gaps", f->key.l4 == EW_L4_TCP ? f->inf->half[dir].missed_gaps : 0);
    jw_object_end(w);
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
    ew_tunnel_dir_write(w, "tunnel", f, dir);
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
    jw_kint_if(w, "port", f->key.l4 != EW_L4_NONE, port);
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

/* a number to the thousandth, as the time series are written */
static double
r3(double v)
{
    return (double)(int64_t)(v * 1000.0 + (v >= 0 ? 0.5 : -0.5)) / 1000.0;
}

/* one direction's bins (series.h): rows of nine numbers, RTT null when the
 * bin has no RTT sample, the queueing delay's median, p10 and p90 null when
 * it has no delay sample from src (where its path verdict times it) */
static void
timeseries_bins(struct jw *w, const struct ew_series *s, const struct ew_flow *f, int dir,
                enum ew_qd_src src)
{
    const struct ew_half *h = &f->inf->half[dir];
    double w_s = (double)s->width / 1e9;
    uint16_t i;

    jw_key(w, "bins");
    jw_array_begin(w);
    for (i = 0; i < s->n; i++) {
        const struct ew_bin *b = &s->b[i];
        double rtt = b->rtt_min_us ? b->rtt_min_us / 1000.0 : -1;
        double srtt = h->rtt_srtt > 0 ? (double)h->rtt_srtt / 1e9 : 0;
        double qd = ew_bin_qdelay_ms(b, src, 0.5);
        uint32_t marks = b->ce > b->marks ? b->ce : b->marks;
        double v[9];
        bool has[9] = {true, true, true, true, true, rtt >= 0, qd >= 0, qd >= 0, qd >= 0};
        int k;

        v[0] = r3((double)i * w_s * 1000.0);
        v[1] = r3((double)b->bytes * 8 / w_s / 1e6);
        v[2] = b->pkts ? r3((double)b->ce / b->pkts) : 0.0;
        v[3] = b->pkts ? r3((double)b->e1 / b->pkts) : 0.0;
        v[4] = srtt > 0 ? r3(marks * srtt / w_s) : 0.0;
        v[5] = has[5] ? r3(rtt) : 0.0;
        v[6] = has[6] ? r3(qd) : 0.0;
        v[7] = has[7] ? r3(ew_bin_qdelay_ms(b, src, 0.1)) : 0.0;
        v[8] = has[8] ? r3(ew_bin_qdelay_ms(b, src, 0.9)) : 0.0;
        /* json_pack("[f,f,f,f,f,o,o]") made no row of a NaN or an infinity */
        for (k = 0; k < 9; k++)
            if (has[k] && !isfinite(v[k]))
                break;
        if (k < 9)
            continue;
        jw_array_begin(w);
        for (k = 0; k < 9; k++) {
            if (has[k])
                jw_real(w, v[k]);
            else
                jw_null(w);
        }
        jw_array_end(w);
    }
    jw_array_end(w);
}

/* the flow's time series (--timeseries) as the member key of the object
 * open in w; nothing when it has none */
static void
timeseries_write(struct jw *w, const char *key, const struct ew_series_pool *p,
                 const struct ew_flow *f, const struct ew_flow_summary *r)
{
    static const char *const columns[] = {"t_ms",          "mbps",         "ce_share",
                                          "ect1_share",    "ce_per_rtt",   "rtt_ms",
                                          "qdelay_ms",     "qdelay_p10_ms", "qdelay_p90_ms"};
    const struct ew_series *s[2] = {ew_series_get(p, f, 0), ew_series_get(p, f, 1)};
    const struct ew_series *s0 = NULL;
    char t[64];
    int d;

    if (!s[0] && !s[1])
        return;
    for (d = 0; d < 2; d++)
        if (s[d] && (!s0 || s[d]->t0 < s0->t0))
            s0 = s[d];
    jw_key(w, key);
    jw_object_begin(w);
    ew_time_str(s0->t0, t, sizeof(t));
    jw_kstring(w, "start", t);
    jw_key(w, "columns");
    jw_array_begin(w);
    for (d = 0; d < 9; d++)
        jw_string(w, columns[d]);
    jw_array_end(w);
    for (d = 0; d < 2; d++) {
        if (!s[d])
            continue;
        jw_key(w, d == f->client_dir ? "c2s" : "s2c");
        jw_object_begin(w);
        jw_kreal(w, "interval_ms", r3((double)s[d]->width / 1e6));
        jw_kreal(w, "offset_ms", r3((double)(s[d]->t0 - s0->t0) / 1e6));
        timeseries_bins(w, s[d], f, d,
                        ew_series_qd_src(r && r->has_path ? r->path[d].qdelay_from : NULL, s[d]));
        jw_object_end(w);
    }
    jw_object_end(w);
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
    if (f->key.l4 == EW_L4_TCP)
        jw_kbool(w, "handshake_seen", f->hs.syn_count > 0 || f->hs.synack_count > 0);
    if (handshake_rtt(f))
        jw_kreal(w, "handshake_rtt_ms", ms(handshake_rtt(f)));
    if (f->key.l4 == EW_L4_TCP) {
        char bits[4];

        jw_key(w, "handshake");
        jw_object_begin(w);
        if (f->hs.syn_count) {
            kuint(w, "syn_frame", f->hs.syn_frame);
            jw_kstring(w, "syn_ecn_flags", flag_bits(f->hs.syn_flags, bits));
            jw_kstring(w, "syn_ecn", ew_ecn_key[f->hs.syn_ecn]);
            kuint(w, "syns", f->hs.syn_count);
        }
        if (f->hs.synack_count) {
            kuint(w, "synack_frame", f->hs.synack_frame);
            jw_kstring(w, "synack_ecn_flags", flag_bits(f->hs.synack_flags, bits));
            jw_kstring(w, "synack_ecn", ew_ecn_key[f->hs.synack_ecn]);
            kuint(w, "synacks", f->hs.synack_count);
        }
        jw_object_end(w);
    }
    jw_kstring(w, "verdict", ew_verdict_name[v->verdict]);
    jw_kstring_or_null(w, "verdict_confidence", v->verdict == EW_V_UNKNOWN ? NULL
                                                 : v->verdict_likely ? "likely"
                                                                     : "certain");
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
        jw_kint(w, "frame", (int64_t)evid[i].frame);
        jw_kstring(w, "note", evid[i].note);
        jw_object_end(w);
    }
    jw_array_end(w);
    ew_quic_write(w, "quic", f);
    ew_tunnel_write(w, "tunnel", f);
    if (an && an->series)
        timeseries_write(w, "timeseries", an->series, f, r);
    jw_object_end(w);
}

/* ---------------------------------------------------------------- the head:
 * once per report, and in the event stream's summary */

/* a name as UTF-8: each byte that begins no valid sequence written as
 * U+FFFD (a file name is bytes; the report's strings are UTF-8) */
static void
kstring_utf8(struct jw *w, const char *k, const char *s)
{
    char out[4 * 4096], seq[5];
    size_t i = 0, o = 0;

    if (!s || jw_utf8_valid(s) || strlen(s) > 4096) {
        jw_kstring(w, k, s);
        return;
    }
    while (s[i] && o + 4 < sizeof(out)) {
        unsigned char c = (unsigned char)s[i];
        size_t n = c < 0x80 ? 1 : (c & 0xe0) == 0xc0 ? 2 : (c & 0xf0) == 0xe0 ? 3
                   : (c & 0xf8) == 0xf0 ? 4 : 0, j;

        for (j = 0; j < n && s[i + j]; j++)
            seq[j] = s[i + j];
        seq[j] = '\0';
        if (n && j == n && jw_utf8_valid(seq)) {
            memcpy(out + o, seq, n);
            o += n;
            i += n;
        } else {
            memcpy(out + o, "\xef\xbf\xbd", 3);
            o += 3;
            i++;
        }
    }
    out[o] = '\0';
    jw_kstring(w, k, out);
}

void
ew_report_source_write(struct jw *w, const struct ew_pass *p)
{
    const struct ew_analyzer *an = p->an;
    const struct ew_report_src *src = p->src;
    char t[64];

    jw_key(w, "source");
    jw_object_begin(w);
    jw_kstring(w, "kind", src->kind);
    kstring_utf8(w, "name", src->name);
    jw_kstring(w, "linktype", src->linktype ? src->linktype : "unknown");
    jw_kstring_or_null(w, "filter", src->filter);
    jw_kbool(w, "truncated", src->truncated);
    jw_kbool(w, "interrupted", src->interrupted);
    jw_kint_if(w, "packet_limit", src->packet_limit != 0, (int64_t)src->packet_limit);
    if (an->have_time) {
        ew_time_str(an->first_ns, t, sizeof(t));
        jw_kstring(w, "first_time", t);
        ew_time_str(an->last_ns, t, sizeof(t));
        jw_kstring(w, "last_time", t);
    }
    jw_object_end(w);
}

/* the capture's own loss, from a live capture's pcap_stats */
static void
capture_loss_write(struct jw *w, const struct ew_report_src *src)
{
    jw_key(w, "capture");
    jw_object_begin(w);
    kuint(w, "received", src->loss_received);
    kuint(w, "dropped", src->loss_dropped);
    jw_kint_if(w, "interface_dropped", src->loss_ifdrop_known, (int64_t)src->loss_ifdropped);
    jw_object_end(w);
}

void
ew_report_totals_write(struct jw *w, const struct ew_pass *p)
{
    const struct ew_analyzer *an = p->an;
    const struct ew_report_src *src = p->src;
    const struct ew_totals *t = &an->tot;
    struct ew_flowtab_stats st;
    int k;

    ew_flowtab_get_stats(an->tab, &st);
    jw_key(w, "totals");
    jw_object_begin(w);
    kuint(w, "frames", t->frames);
    kuint(w, "ip_packets", t->ip_packets);
    kuint(w, "non_ip", t->non_ip);
    kuint(w, "undecodable", t->undecodable);
    kuint(w, "truncated", t->truncated);
    kuint(w, "invalid", t->invalid);
    w_ecn_counts(w, "ecn", t->ecn[EW_ECN_NOT_ECT], t->ecn[EW_ECN_ECT_0], t->ecn[EW_ECN_ECT_1],
                 t->ecn[EW_ECN_CE]);
    kuint(w, "flows", st.created);
    kuint(w, "flows_reported", st.in_table);
    kuint(w, "flows_evicted", st.evicted);
    kuint(w, "flows_expired", st.expired);
    jw_key(w, "events");
    jw_object_begin(w);
    for (k = 0; k < EW_EV_COUNT; k++)
        if (t->events[k])
            kuint(w, ew_event_name[k], t->events[k]);
    jw_object_end(w);
    jw_key(w, "findings");
    jw_object_begin(w);
    for (k = 0; k < EW_MU_COUNT; k++)
        if (p->counts[k])
            kuint(w, ew_misuse_name[k], p->counts[k]);
    jw_object_end(w);
    if (an->series)
        kuint(w, "timeseries_refused", an->series->refused);
    kuint(w, "bottleneck_series_refused", an->qs.refused);
    kuint(w, "tunnelled_packets", t->tunnelled);
    kuint(w, "tunnelled_flows", t->tunnelled_flows);
    kuint(w, "tunnel_records_refused", an->tun.c.refused);
    if (src->have_loss)
        capture_loss_write(w, src);
    {
        struct ew_quality q;

        ew_analyzer_quality(an, &q);
        jw_key(w, "capture_quality");
        jw_object_begin(w);
        kuint(w, "duplicates", q.duplicates);
        kuint(w, "duplicates_unsure", q.duplicates_unsure);
        kuint(w, "missed_bytes", q.missed_bytes);
        kuint(w, "flows_missed", q.flows_missed);
        kuint(w, "flows_midstream", q.flows_midstream);
        jw_object_end(w);
    }
    jw_object_end(w);
}
