/* infer_path.c - what the path did to one direction's packets (see
 * infer.h): where the marks were applied, the queueing delay they came at,
 * and from that the kind of AQM that marked them. A heuristic on the state
 * the packet path keeps and the flow's verdict; ecnwatch(1) describes it. */
#include "ecnwatch/infer.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "ecnwatch/flow.h"
#include "ecnwatch/thresholds.h"

const char *const ew_aqm_name[] = {
    [EW_AQM_NONE_SEEN] = "none_seen", [EW_AQM_L4S] = "l4s_shallow",
    [EW_AQM_CLASSIC] = "classic_single_queue", [EW_AQM_SCE] = "sce",
    [EW_AQM_DROP_TAIL] = "drop_tail", [EW_AQM_UNKNOWN] = "unknown",
    [EW_AQM_DUALQ_CLASSIC] = "dualq_classic",
};

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

/* The AQM kind from the marks and the queueing delay they came at: an L4S
 * AQM marks at about a millisecond of queue, a classic one (CoDel's 5 ms
 * target, RED, PIE) at several (EW_PATH_QD_*). Below a link rate where one
 * packet takes about a millisecond to send, even an L4S queue holds a few
 * packets (a burst, the delayed ACK), so the thresholds grow with the
 * serialisation time at the flow's own rate (EW_PATH_BURST_PKTS). */
static void
path_aqm(const struct ew_half *h, const struct ew_dir_verdict *dv, bool mode_accecn,
         uint64_t marks, bool at_receiver, bool usable, uint32_t qd_marks_us, uint32_t ser_us,
         struct ew_path_verdict *p)
{
    uint32_t shallow = EW_PATH_QD_SHALLOW_US, classic;
    char scaled[64] = "";

    if ((uint64_t)ser_us * EW_PATH_BURST_PKTS > shallow) {
        shallow = ser_us * EW_PATH_BURST_PKTS;
        snprintf(scaled, sizeof(scaled), " (%u packets of %.1f ms at this rate)",
                 EW_PATH_BURST_PKTS, ser_us / 1000.0);
    }
    classic = shallow + (EW_PATH_QD_CLASSIC_US - EW_PATH_QD_SHALLOW_US);
    if (dv->ect1 == EW_ECT1_SCE || dv->feedback == EW_FB_SCE ||
        (dv->network_ect1 && !mode_accecn)) {
        p->aqm = EW_AQM_SCE;
        snprintf(p->reason, EW_REASON_LEN,
                 "ECT(0) packets turn ECT(1) in runs (%u changes): an SCE-style AQM",
                 h->ect1_runs);
    } else if (marks > 0 && !usable) {
        p->aqm = EW_AQM_UNKNOWN;
        p->qdelay_at_marks_ms = -1;
        snprintf(p->reason, EW_REASON_LEN,
                 "%llu marks, but the queueing delay cannot be measured at %s (no timestamps "
                 "to time it by)",
                 (unsigned long long)marks, at_receiver ? "the receiver" : "this point");
    } else if (marks > 0 && qd_marks_us > shallow && dv->ect1 == EW_ECT1_L4S &&
               p->ce_per_rtt >= EW_PATH_L4S_MIN_CE_PER_RTT &&
               qd_marks_us <= (uint64_t)shallow * EW_PATH_BURST_SLACK) {
        /* RFC 9332 §2.1: an L4S AQM marks a scalable flow about twice a
         * round trip, a classic AQM far less often (it marks for classic
         * flows' sawteeth); the delay above the shallow limit is then the
         * link's burstiness (Wi-Fi aggregation, a bursty sender), not a
         * classic AQM's target */
        p->aqm = EW_AQM_L4S;
        snprintf(p->reason, EW_REASON_LEN,
                 "%llu marks, %.2f per round trip, at %.1f ms of queueing delay: an L4S AQM's "
                 "rate (a classic one marks an L4S flow far less), the delay the link's "
                 "burstiness: a shallow, L4S-style AQM",
                 (unsigned long long)marks, p->ce_per_rtt, p->qdelay_at_marks_ms);
    } else if (marks > 0 && qd_marks_us <= shallow) {
        p->aqm = EW_AQM_L4S;
        snprintf(p->reason, EW_REASON_LEN,
                 "%llu marks at %.1f ms of queueing delay on average, within %.1f ms%s: a "
                 "shallow, L4S-style AQM",
                 (unsigned long long)marks, p->qdelay_at_marks_ms, shallow / 1000.0, scaled);
    } else if (marks > 0 && qd_marks_us >= classic) {
        p->aqm = EW_AQM_CLASSIC;
        snprintf(p->reason, EW_REASON_LEN,
                 "%llu marks at %.1f ms of queueing delay on average, %.1f ms or more%s: a "
                 "classic %s",
                 (unsigned long long)marks, p->qdelay_at_marks_ms, classic / 1000.0, scaled,
                 dv->ect1 == EW_ECT1_L4S
                     ? "single-queue AQM"
                     : "AQM (one queue, or a DualQ's classic queue: an L4S flow beside it tells)");
    } else if (marks > 0) {
        p->aqm = EW_AQM_UNKNOWN;
        snprintf(p->reason, EW_REASON_LEN,
                 "%llu marks at %.1f ms of queueing delay: between a shallow and a classic AQM",
                 (unsigned long long)marks, p->qdelay_at_marks_ms);
    } else if (h->retrans > 0 && usable && !at_receiver && p->qdelay_max_ms * 1000 >= classic) {
        p->aqm = EW_AQM_DROP_TAIL;
        snprintf(p->reason, EW_REASON_LEN,
                 "no marks, %u retransmissions and up to %.1f ms of queueing delay: a drop-tail "
                 "queue",
                 h->retrans, p->qdelay_max_ms);
    } else {
        p->aqm = EW_AQM_NONE_SEEN;
        snprintf(p->reason, EW_REASON_LEN, "no marks and no sign of a filling queue");
    }
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
    bool usable;

    memset(p, 0, sizeof(*p));
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
        double bps = (double)f->dir[d].payload_bytes * 8e9 / (double)dur;
        double s;

        if ((double)h->peak_kbps * 1000 > bps)
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
    usable = from != QD_NONE && (marks == 0 || at_marks >= 0);
    path_aqm(h, dv, v->mode_accecn, marks, at_receiver, usable,
             at_marks >= 0 ? (uint32_t)at_marks : 0, ser_us, p);
}
