/* infer_path.c - what the path did to one direction's packets (see
 * infer.h): where the marks were applied, the queueing delay they came at,
 * and from that the kind of AQM that marked them. A heuristic on the state
 * the packet path keeps and the flow's verdict; ecnwatch(1) describes it. */
#include "infer/infer.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "dissectors/ecn.h"
#include "flow/flowtab.h"
#include "base/format.h"
#include "infer/qdhist.h"
#include "infer/thresholds.h"

const char *const ew_aqm_name[EW_AQM_COUNT] = {
#define EW_X(id, name, text) [EW_AQM_##id] = name,
    EW_AQM_VERDICTS(EW_X)
#undef EW_X
};
const char *const ew_aqm_text[EW_AQM_COUNT] = {
#define EW_X(id, name, text) [EW_AQM_##id] = text,
    EW_AQM_VERDICTS(EW_X)
#undef EW_X
};

/* ---------------------------------------------------------------- histograms */

/* the share of the marks (their delays in marks[]) above the median of the
 * samples (samples[]); a mark in the median's own bin counts as far as the
 * samples of that bin lie above the median. -1 when either is empty. */
static double
share_above_median(const uint8_t *samples, const uint8_t *marks)
{
    unsigned m = 0, b;
    double above = 0, n = 0, up = 0;

    if (ew_qd_quantile(samples, 0.5, &m, &above) < 0)
        return -1;
    for (b = 0; b < EW_QD_BINS; b++) {
        n += marks[b];
        if (b > m)
            up += marks[b];
        else if (b == m)
            up += marks[b] * above;
    }
    return n > 0 ? up / n : -1;
}

int64_t
ew_infer_path_rtt(const struct ew_flow *f, int d)
{
    const struct ew_infer *in = f->inf;
    const struct ew_tsloop *dn = &in->half[d].ts, *up = &in->half[d ^ 1].ts;

    if (in->syn_ns && in->ack3_ns && in->ack3_ns > in->syn_ns)
        return in->ack3_ns - in->syn_ns;
    if (dn->samples && up->samples)
        return dn->srtt + up->srtt;
    return in->half[d].rtt_samples ? in->half[d].rtt_srtt : 0;
}

/* where the queue d's packets waited in can be timed from here */
enum qd_from { QD_NONE, QD_DATA_TO_ACK, QD_TS_FROM_SENDER, QD_BOTH };
static const char *const qd_from_name[] = {
    [QD_NONE] = "none", [QD_DATA_TO_ACK] = "data_to_ack",
    [QD_TS_FROM_SENDER] = "ts_from_sender", [QD_BOTH] = "both",
};

/* the verdict's reason in words, cut to its buffer */
static void reason(struct ew_path_verdict *p, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void
reason(struct ew_path_verdict *p, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    ew_vformat(p->reason, EW_REASON_LEN, fmt, ap);
    va_end(ap);
}

/* What the delays say beside the marks (ew_infer_path works them out). */
struct qd_view {
    uint64_t marks;          /* marked packets, seen here or fed back */
    uint64_t marks_with_qd;  /* ... with a delay sample beside them */
    uint32_t samples;        /* delay samples */
    const uint8_t *hist, *marks_hist; /* their histograms, or NULL */
    bool usable;             /* the delay can be measured here */
    bool at_receiver;
    uint32_t qd_marks_us;    /* the mean delay at the marks */
    uint32_t ser_us;         /* one packet's serialisation time, when it counts */
};

/* The AQM kind from the marks and the queueing delay they came at: an L4S
 * AQM marks at about a millisecond of queue, a classic one (CoDel's 5 ms
 * target, RED, PIE) at several (EW_PATH_QD_*). Below a link rate where one
 * packet takes about a millisecond to send, even an L4S queue holds a few
 * packets (a burst, the delayed ACK), so the thresholds grow with the
 * serialisation time at the flow's own rate (EW_PATH_BURST_PKTS). Delay is
 * the marking queue's only where the marks line up with it: a classic AQM
 * marks when its queue is long, so most of its marks come above the
 * flow's median delay; delay from jitter or a bursty link does not line up
 * with marks (EW_PATH_ALIGNED_SHARE). No AQM is named from a handful of
 * marks (EW_PATH_MIN_MARKS). */
/* what a rule of the table below reads */
struct path_in {
    const struct ew_half *h;
    const struct ew_dir_verdict *dv;
    bool mode_accecn;
    const struct qd_view *q;
    uint64_t marks;
    uint32_t shallow, classic; /* the limits at this rate (us) */
    const char *scaled;        /* how the shallow limit was scaled, or "" */
};

/* a rule: when it holds, its verdict and reason; the first that holds decides */
struct path_rule {
    enum ew_aqm aqm;
    bool (*when)(const struct path_in *in, const struct ew_path_verdict *p);
    void (*say)(const struct path_in *in, struct ew_path_verdict *p);
};

/* SCE: ECT(0) turned ECT(1) in runs */
static bool
sce_when(const struct path_in *in, const struct ew_path_verdict *p)
{
    (void)p;
    return in->dv->ect1 == EW_ECT1_SCE || in->dv->feedback == EW_FB_SCE ||
           (in->dv->network_ect1 && !in->mode_accecn);
}

static void
sce_say(const struct path_in *in, struct ew_path_verdict *p)
{
    reason(p, "ECT(0) packets turn ECT(1) in runs (%u changes): an SCE-style AQM",
           in->h->ect1_runs);
}

/* marks, but no delay to set them against */
static bool
no_delay_when(const struct path_in *in, const struct ew_path_verdict *p)
{
    (void)p;
    return in->marks > 0 && !in->q->usable;
}

static void
no_delay_say(const struct path_in *in, struct ew_path_verdict *p)
{
    p->qdelay_at_marks_ms = -1;
    reason(p,
           "%llu marks, but the queueing delay cannot be measured at %s (no timestamps "
           "to time it by)",
           (unsigned long long)in->marks, in->q->at_receiver ? "the receiver" : "this point");
}

/* too few marks or delay samples to name anything */
static bool
few_when(const struct path_in *in, const struct ew_path_verdict *p)
{
    (void)p;
    return in->marks > 0 &&
           (in->q->marks_with_qd < EW_PATH_MIN_MARKS || in->q->samples < EW_PATH_MIN_QD_SAMPLES);
}

static void
few_say(const struct path_in *in, struct ew_path_verdict *p)
{
    reason(p,
           "%llu marks, %llu of them with a delay measured beside them, over %u delay "
           "samples: too few to name the AQM (at least %u marks and %u samples)",
           (unsigned long long)in->marks, (unsigned long long)in->q->marks_with_qd,
           in->q->samples, EW_PATH_MIN_MARKS, EW_PATH_MIN_QD_SAMPLES);
    p->few_marks = true;
}

/* RFC 9332 §2.1: an L4S AQM marks a scalable flow about twice a round trip,
 * a classic AQM far less often (it marks for classic flows' sawteeth); the
 * delay above the shallow limit is then the link's burstiness (Wi-Fi
 * aggregation, a bursty sender), not a classic AQM's target */
static bool
l4s_bursty_when(const struct path_in *in, const struct ew_path_verdict *p)
{
    return in->marks > 0 && in->q->qd_marks_us > in->shallow && in->dv->ect1 == EW_ECT1_L4S &&
           p->ce_per_rtt >= EW_PATH_L4S_MIN_CE_PER_RTT &&
           in->q->qd_marks_us <= (uint64_t)in->shallow * EW_PATH_BURST_SLACK;
}

static void
l4s_bursty_say(const struct path_in *in, struct ew_path_verdict *p)
{
    reason(p,
           "%llu marks, %.2f per round trip, applied at a mean queueing delay of %.1f ms: an L4S AQM's "
           "rate (a classic one marks an L4S flow far less), the delay the link's "
           "burstiness: a shallow, L4S-style AQM",
           (unsigned long long)in->marks, p->ce_per_rtt, p->qdelay_at_marks_ms);
}

/* marks at a shallow queue */
static bool
l4s_when(const struct path_in *in, const struct ew_path_verdict *p)
{
    (void)p;
    return in->marks > 0 && in->q->qd_marks_us <= in->shallow;
}

static void
l4s_say(const struct path_in *in, struct ew_path_verdict *p)
{
    reason(p,
           "%llu marks, applied at a mean queueing delay of %.1f ms, within %.1f ms%s: a "
           "shallow, L4S-style AQM",
           (unsigned long long)in->marks, p->qdelay_at_marks_ms, in->shallow / 1000.0,
           in->scaled);
}

/* marks at a long queue, most of them where the queue is longest */
static bool
classic_when(const struct path_in *in, const struct ew_path_verdict *p)
{
    return in->marks > 0 && in->q->qd_marks_us >= in->classic &&
           p->marks_above_median >= EW_PATH_ALIGNED_SHARE;
}

static void
classic_say(const struct path_in *in, struct ew_path_verdict *p)
{
    reason(p,
           "%llu marks, applied at a mean queueing delay of %.1f ms, %.1f ms or more%s, "
           "%.0f%% of them above the median delay: a classic AQM (a queue of its own or "
           "shared, or a DualQ's classic queue: other flows through it tell)",
           (unsigned long long)in->marks, p->qdelay_at_marks_ms, in->classic / 1000.0,
           in->scaled, p->marks_above_median * 100);
    if (in->dv->ect1 == EW_ECT1_L4S)
        p->note = "an L4S flow marked by a classic AQM: its low latency is lost on this "
                  "path; it takes more than its share only where a classic flow shares "
                  "the queue (bottlenecks)";
}

/* marks at a long queue that does not line up with them */
static bool
unaligned_when(const struct path_in *in, const struct ew_path_verdict *p)
{
    (void)p;
    return in->marks > 0 && in->q->qd_marks_us >= in->classic;
}

static void
unaligned_say(const struct path_in *in, struct ew_path_verdict *p)
{
    reason(p,
           "%llu marks, applied at a mean queueing delay of %.1f ms, but only %.0f%% of them "
           "above the median delay (a classic AQM marks when its queue is long: most): "
           "the delay is not the marking queue's (jitter, a bursty link)",
           (unsigned long long)in->marks, p->qdelay_at_marks_ms,
           p->marks_above_median >= 0 ? p->marks_above_median * 100 : 0);
}

/* marks between the two */
static bool
between_when(const struct path_in *in, const struct ew_path_verdict *p)
{
    (void)p;
    return in->marks > 0;
}

static void
between_say(const struct path_in *in, struct ew_path_verdict *p)
{
    reason(p, "%llu marks, applied at a mean queueing delay of %.1f ms: between a shallow and a classic AQM",
           (unsigned long long)in->marks, p->qdelay_at_marks_ms);
}

/* no marks, losses and a long queue, seen where the delay is the sender's */
static bool
drop_tail_when(const struct path_in *in, const struct ew_path_verdict *p)
{
    return in->h->retrans > 0 && in->q->usable && !in->q->at_receiver &&
           p->qdelay_max_ms * 1000 >= in->classic;
}

static void
drop_tail_say(const struct path_in *in, struct ew_path_verdict *p)
{
    reason(p,
           "no marks, %u retransmissions and up to %.1f ms of queueing delay: a drop-tail "
           "queue",
           in->h->retrans, p->qdelay_max_ms);
}

/* no marks on data that passed here Not-ECT: an AQM drops a Not-ECT packet
 * where it would mark an ECT one (RFC 3168 §5; RFC 7567 §4.2.1), so no mark
 * tells nothing of the queue (a sender without ECN, or a bleacher upstream) */
static bool
not_ect_when(const struct path_in *in, const struct ew_path_verdict *p)
{
    (void)p;
    return in->marks == 0 && in->h->data_pkts > 0 &&
           !(in->h->seen & (EW_SEEN_ECT0 | EW_SEEN_ECT1 | EW_SEEN_CE));
}

static void
not_ect_say(const struct path_in *in, struct ew_path_verdict *p)
{
    reason(p,
           "no marks, but all %u data segments passed here Not-ECT: an AQM drops such "
           "packets instead of marking them, so the absence of marks says nothing of the queue",
           in->h->data_pkts);
}

static bool
always(const struct path_in *in, const struct ew_path_verdict *p)
{
    (void)in;
    (void)p;
    return true;
}

static void
none_seen_say(const struct path_in *in, struct ew_path_verdict *p)
{
    (void)in;
    reason(p, "no marks and no sign of a filling queue");
}

/* The AQM kind from the marks and the queueing delay they came at: an L4S
 * AQM marks at about a millisecond of queue, a classic one (CoDel's 5 ms
 * target, RED, PIE) at several (EW_PATH_QD_*). Below a link rate where one
 * packet takes about a millisecond to send, even an L4S queue holds a few
 * packets (a burst, the delayed ACK), so the thresholds grow with the
 * serialisation time at the flow's own rate (EW_PATH_BURST_PKTS). Delay is
 * the marking queue's only where the marks line up with it: a classic AQM
 * marks when its queue is long, so most of its marks come above the
 * flow's median delay; delay from jitter or a bursty link does not line up
 * with marks (EW_PATH_ALIGNED_SHARE). No AQM is named from a handful of
 * marks (EW_PATH_MIN_MARKS). In order: the first rule that holds decides
 * (HACKING.md, "A path heuristic"). */
static const struct path_rule path_rules[] = {
    {EW_AQM_SCE, sce_when, sce_say},
    {EW_AQM_UNKNOWN, no_delay_when, no_delay_say},
    {EW_AQM_UNKNOWN, few_when, few_say},
    {EW_AQM_L4S, l4s_bursty_when, l4s_bursty_say},
    {EW_AQM_L4S, l4s_when, l4s_say},
    {EW_AQM_CLASSIC, classic_when, classic_say},
    {EW_AQM_UNKNOWN, unaligned_when, unaligned_say},
    {EW_AQM_UNKNOWN, between_when, between_say},
    {EW_AQM_DROP_TAIL, drop_tail_when, drop_tail_say},
    {EW_AQM_UNKNOWN, not_ect_when, not_ect_say},
    {EW_AQM_NONE_SEEN, always, none_seen_say},
};

static void
path_aqm(const struct ew_half *h, const struct ew_dir_verdict *dv, bool mode_accecn,
         const struct qd_view *q, struct ew_path_verdict *p)
{
    char scaled[128] = "";
    struct path_in in = {h, dv, mode_accecn, q, q->marks, EW_PATH_QD_SHALLOW_US, 0, scaled};
    size_t i;

    if ((uint64_t)q->ser_us * EW_PATH_BURST_PKTS > in.shallow) {
        in.shallow = q->ser_us * EW_PATH_BURST_PKTS;
        snprintf(scaled, sizeof(scaled), " (%u packets' sending time at this rate, %.1f ms each)",
                 EW_PATH_BURST_PKTS, q->ser_us / 1000.0);
    }
    in.classic = in.shallow + (EW_PATH_QD_CLASSIC_US - EW_PATH_QD_SHALLOW_US);
    p->has_confidence = true;
    p->certain = false;
    for (i = 0; i < sizeof(path_rules) / sizeof(path_rules[0]); i++) {
        if (path_rules[i].when(&in, p)) {
            p->aqm = path_rules[i].aqm;
            path_rules[i].say(&in, p);
            break;
        }
    }
    if (p->aqm == EW_AQM_UNKNOWN)
        p->has_confidence = false;
}

void
ew_infer_path(const struct ew_flow *f, int d, const struct ew_flow_verdict *v,
              struct ew_path_verdict *p)
{
    const struct ew_half *h = &f->inf->half[d];
    const struct ew_tsloop *up = &f->inf->half[d ^ 1].ts;
    const struct ew_dir_verdict *dv = &v->dir[d];
    uint64_t reported = v->mode_accecn ? h->cep_reported : h->ece_runs;
    uint64_t marks = h->ce_seen > reported ? h->ce_seen : reported;
    /* next to the receiver, data-to-ACK times are its ACK delay, not the path's */
    bool at_receiver = (d == f->client_dir) ? v->vantage == EW_VANT_SERVER
                                            : v->vantage == EW_VANT_CLIENT;
    bool at_sender = (d == f->client_dir) ? v->vantage == EW_VANT_CLIENT
                                          : v->vantage == EW_VANT_SERVER;
    bool seq_ok = h->rtt_samples > 0 && !at_receiver &&
                  (v->vantage != EW_VANT_UNKNOWN || h->rtt_min >= EW_PATH_RTT_MIN_USABLE_NS);
    bool up_ok = up->samples > 0 && !at_sender &&
                 (v->vantage != EW_VANT_UNKNOWN || up->min >= EW_PATH_RTT_MIN_USABLE_NS);
    enum qd_from from;
    double up_mean = up->samples ? (double)up->excess_sum_us / up->samples : 0;
    double seq_mean = h->qd_n ? (double)h->qd_sum_us / h->qd_n : 0;
    double at_marks = -1, mean = -1, max = -1;
    int64_t dur = h->data_last_ns - h->data_first_ns, rtt = ew_infer_path_rtt(f, d);
    uint32_t ser_us = 0;
    struct qd_view q;

    memset(p, 0, sizeof(*p));
    memset(&q, 0, sizeof(q));
    p->marks = marks;
    if (h->ce_seen && dv->marks_downstream)
        p->marking = "both";
    else if (h->ce_seen)
        p->marking = "upstream";
    else if (marks)
        p->marking = "downstream";
    else
        p->marking = "none";

    /* the middle of the path: a sender-side vantage was not found, and both
     * halves of the queue may be on either side; only where they are timed */
    if (v->vantage == EW_VANT_MIDDLE && seq_ok && up_ok)
        from = QD_BOTH;
    else if (seq_ok)
        from = QD_DATA_TO_ACK;
    else if (up_ok)
        from = QD_TS_FROM_SENDER;
    else
        from = QD_NONE;
    /* the marks' delay: of the RTT fed back with them (downstream, timed by
     * data to ACK) or of the path they came through (upstream, seen here) */
    switch (from) {
    case QD_DATA_TO_ACK:
        mean = seq_mean;
        max = h->qd_max_us;
        if (h->qd_marks)
            at_marks = (double)h->qd_marks_sum_us / h->qd_marks;
        break;
    case QD_TS_FROM_SENDER:
        mean = up_mean;
        max = up->excess_max_us;
        if (h->ce_up_n)
            at_marks = (double)h->ce_up_sum_us / h->ce_up_n;
        break;
    case QD_BOTH:
        mean = seq_mean + up_mean;
        max = (double)h->qd_max_us + up->excess_max_us;
        if (h->qd_marks || h->ce_up_n)
            at_marks = (h->qd_marks ? (double)h->qd_marks_sum_us / h->qd_marks : seq_mean) +
                       (h->ce_up_n ? (double)h->ce_up_sum_us / h->ce_up_n : up_mean);
        break;
    case QD_NONE:
        break;
    }
    p->qdelay_from = qd_from_name[from];
    p->qdelay_at_marks_ms = at_marks >= 0 ? at_marks / 1000.0 : -1;
    p->qdelay_mean_ms = mean >= 0 ? mean / 1000.0 : -1;
    p->qdelay_max_ms = max >= 0 ? max / 1000.0 : -1;
    /* one largest segment at the flow's own payload rate: its peak over
     * windows (a flow that shares the link for part of the time had more of
     * it then), else its mean */
    p->serialisation_ms = -1;
    if (dur > 0 && f->dir[d].payload_bytes > 0 && h->data_pkts > 1 && f->dir[d].max_payload) {
        /* what the receiver acknowledged counts, whether captured or not */
        double bps = (double)(f->dir[d].payload_bytes + h->missed_bytes) * 8e9 / (double)dur;
        double s;

        /* a peak of what was captured is no peak where the capture missed data */
        if ((double)h->peak_kbps * 1000 > bps && !h->missed_bytes)
            bps = (double)h->peak_kbps * 1000;
        s = (double)f->dir[d].max_payload * 8e9 / bps; /* ns */
        p->serialisation_ms = s / 1e6;
        /* a flow that sends only a few segments a round trip is limited by
         * itself (application, window), not by the link: its rate tells
         * nothing of the link's serialisation time */
        if (rtt > 0 && s * EW_PATH_SCALE_MIN_PKTS_PER_RTT <= (double)rtt)
            ser_us = (uint32_t)(s / 1000.0);
    }
    p->ce_per_rtt = dur > 0 && rtt > 0 && h->data_pkts > 1
                        ? (double)marks * (double)rtt / (double)dur
                        : -1;
    q.marks = marks;
    q.usable = from != QD_NONE && (marks == 0 || at_marks >= 0);
    q.at_receiver = at_receiver;
    q.qd_marks_us = at_marks >= 0 ? (uint32_t)at_marks : 0;
    q.ser_us = ser_us;
    /* the counts behind the verdict, from the delay's own source; with both
     * halves of the loop, the one with more marks beside it */
    if (from == QD_DATA_TO_ACK || (from == QD_BOTH && h->qd_marks >= h->ce_up_n)) {
        q.samples = h->qd_n;
        q.marks_with_qd = h->qd_marks;
        q.hist = h->qd_hist;
        q.marks_hist = h->qd_marks_hist;
    } else if (from == QD_TS_FROM_SENDER || from == QD_BOTH) {
        q.samples = up->samples;
        q.marks_with_qd = h->ce_up_n;
        q.hist = up->excess_hist;
        q.marks_hist = h->ce_up_hist;
    }
    /* the delay's quantiles, from the same source as its mean */
    {
        static const double qq[3] = {0.5, 0.1, 0.9};
        double *to[3] = {&p->qdelay_median_ms, &p->qdelay_p10_ms, &p->qdelay_p90_ms};
        int i;

        for (i = 0; i < 3; i++) {
            double a = from == QD_DATA_TO_ACK || from == QD_BOTH
                           ? ew_qd_quantile(h->qd_hist, qq[i], NULL, NULL) : -1;
            double b = from == QD_TS_FROM_SENDER || from == QD_BOTH
                           ? ew_qd_quantile(up->excess_hist, qq[i], NULL, NULL) : -1;

            *to[i] = a < 0 && b < 0 ? -1 : ((a > 0 ? a : 0) + (b > 0 ? b : 0)) / 1000.0;
        }
    }
    p->qdelay_samples = q.samples;
    p->marks_with_qdelay = q.marks_with_qd;
    p->marks_above_median = q.hist ? share_above_median(q.hist, q.marks_hist) : -1;
    path_aqm(h, dv, v->mode_accecn, &q, p);
    /* no marks in part of a flow says nothing of the rest: joined mid-flow,
     * or with data the capture missed (the marks may have been there) */
    if (p->aqm == EW_AQM_NONE_SEEN && (v->neg_inferred || h->missed_bytes) &&
        h->data_pkts > 0 && h->bytes_seen[EW_ECN_ECT_0] + h->bytes_seen[EW_ECN_ECT_1] > 0) {
        p->aqm = EW_AQM_UNKNOWN;
        p->has_confidence = false;
        reason(p,
                 "no marks in the part of the flow this capture holds (%s): whether the path "
                 "marks it cannot be told",
                 v->neg_inferred ? "joined mid-flow" : "it missed some of the data");
    }
    /* no marks, seen or fed back, is certain only from a whole capture
     * whose feedback could be read */
    if (p->aqm == EW_AQM_NONE_SEEN && !v->neg_inferred && !h->missed_bytes &&
        dv->feedback != EW_FB_UNKNOWN && dv->feedback != EW_FB_NONE &&
        h->data_pkts >= EW_PATH_BN_MIN_DATA_PKTS)
        p->certain = true;
}
