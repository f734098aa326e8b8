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
};

/* the AQM kind from the marks and the queueing delay they came at: an L4S
 * AQM marks at about a millisecond of queue, a classic one (CoDel's 5 ms
 * target, RED, PIE) at several (EW_PATH_QD_*) */
static void
path_aqm(const struct ew_half *h, const struct ew_dir_verdict *dv, bool mode_accecn,
         uint64_t marks, bool at_receiver, bool rtt_usable, struct ew_path_verdict *p)
{
    if (dv->ect1 == EW_ECT1_SCE || dv->feedback == EW_FB_SCE ||
        (dv->network_ect1 && !mode_accecn)) {
        p->aqm = EW_AQM_SCE;
        snprintf(p->reason, EW_REASON_LEN,
                 "ECT(0) packets turn ECT(1) in runs (%u changes): an SCE-style AQM",
                 h->ect1_runs);
    } else if (marks > 0 && !rtt_usable) {
        p->aqm = EW_AQM_UNKNOWN;
        p->qdelay_at_marks_ms = -1;
        snprintf(p->reason, EW_REASON_LEN,
                 "%llu marks, but the queueing delay cannot be measured at %s (a capture at "
                 "the sender or on the path can)",
                 (unsigned long long)marks, at_receiver ? "the receiver" : "this point");
    } else if (marks > 0 && h->qd_marks_sum_us <= (uint64_t)EW_PATH_QD_SHALLOW_US * h->qd_marks) {
        p->aqm = EW_AQM_L4S;
        snprintf(p->reason, EW_REASON_LEN,
                 "%llu marks at %.1f ms of queueing delay on average: a shallow, L4S-style AQM",
                 (unsigned long long)marks, p->qdelay_at_marks_ms);
    } else if (marks > 0 && h->qd_marks_sum_us >= (uint64_t)EW_PATH_QD_CLASSIC_US * h->qd_marks) {
        p->aqm = EW_AQM_CLASSIC;
        snprintf(p->reason, EW_REASON_LEN,
                 "%llu marks at %.1f ms of queueing delay on average: a classic single-queue "
                 "AQM",
                 (unsigned long long)marks, p->qdelay_at_marks_ms);
    } else if (marks > 0) {
        p->aqm = EW_AQM_UNKNOWN;
        snprintf(p->reason, EW_REASON_LEN,
                 "%llu marks at %.1f ms of queueing delay: between a shallow and a classic AQM",
                 (unsigned long long)marks, p->qdelay_at_marks_ms);
    } else if (h->retrans > 0 && h->qd_n && !at_receiver &&
               h->qd_max_us >= EW_PATH_QD_CLASSIC_US) {
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
    const struct ew_dir_verdict *dv = &v->dir[d];
    uint64_t reported = v->mode_accecn ? h->cep_reported : h->ece_runs;
    uint64_t marks = h->ce_seen > reported ? h->ce_seen : reported;

    memset(p, 0, sizeof(*p));
    p->marks = marks;
    p->qdelay_at_marks_ms = h->qd_marks ? (double)h->qd_marks_sum_us / h->qd_marks / 1000.0 : -1;
    p->qdelay_mean_ms = h->qd_n ? (double)h->qd_sum_us / h->qd_n / 1000.0 : -1;
    p->qdelay_max_ms = h->qd_n ? (double)h->qd_max_us / 1000.0 : -1;
    if ((d == f->client_dir) ? v->vantage == EW_VANT_SERVER : v->vantage == EW_VANT_CLIENT)
        p->qdelay_at_marks_ms = p->qdelay_mean_ms = p->qdelay_max_ms = -1;
    if (h->ce_seen && dv->marks_downstream)
        p->marking = "both";
    else if (h->ce_seen)
        p->marking = "upstream";
    else if (marks)
        p->marking = "downstream";
    else
        p->marking = "none";

    /* next to the receiver, data-to-ACK times are its ACK delay, not the path's */
    bool at_receiver = (d == f->client_dir) ? v->vantage == EW_VANT_SERVER
                                            : v->vantage == EW_VANT_CLIENT;
    bool rtt_usable = !at_receiver && h->qd_marks > 0 &&
                      (v->vantage != EW_VANT_UNKNOWN || h->rtt_min >= EW_PATH_RTT_MIN_USABLE_NS);

    path_aqm(h, dv, v->mode_accecn, marks, at_receiver, rtt_usable, p);
}
