/* infer_track.c - the per-packet half of the TCP inference (see infer.h):
 * what each segment tells about its own direction's data (codepoints, CWR,
 * RTT timing) and, read as feedback, about the other direction's (ECE, ESCE,
 * the ACE counter, the AccECN option). This is the packet path: every helper
 * is static here, so that the compiler folds them into ew_infer_tcp().
 * Facts and section numbers: RFC 3168, RFC 8257 (DCTCP), RFC 9768 (AccECN),
 * draft-grimes-tcpm-tcpsce (SCE). */
#include "infer/infer.h"

#include <stdint.h>

#include "dissectors/ecn.h"
#include "flow/flowtab.h"
#include "infer/qdhist.h"
#include "infer/thresholds.h"

/* the ring of timed segments spans one smoothed RTT */
_Static_assert(EW_INF_RTT_SPACING_DIV == EW_RTT_TIMED, "one timing per slot over an RTT");

#define ACC_MASK24 0xffffffu
/* a 24-bit step this large is a step back: options come at least every 2^22
 * bytes of a counter's increase (RFC 9768 §3.2.3.3) */
#define ACC_WRAP_HALF 0x800000u
/* RFC 9768 §3.2.1: "When a host first enters AccECN mode, in its role as a
 * Data Receiver it initializes its counters to r.cep = 5, r.e0b = r.e1b = 1
 * and r.ceb = 0" */
#define ACE_INIT 5u
static const uint32_t opt_init[3] = {[EW_ACC_E0B] = 1, [EW_ACC_CEB] = 0, [EW_ACC_E1B] = 1};
/* which codepoint each option field counts */
static const int opt_cp[3] = {[EW_ACC_E0B] = EW_ECN_ECT_0, [EW_ACC_CEB] = EW_ECN_CE,
                              [EW_ACC_E1B] = EW_ECN_ECT_1};

static bool
seq_geq(uint32_t a, uint32_t b)
{
    return (int32_t)(a - b) >= 0;
}

static bool
seq_gt(uint32_t a, uint32_t b)
{
    return (int32_t)(a - b) > 0;
}

/* note the frame where something was first seen in h; the bit, in the hot
 * part, spares the packet a read of the cold frame slot */
static inline void
first(struct ew_half *h, uint16_t bit, uint64_t *slot, uint64_t frame)
{
    if (!(h->seen & bit)) {
        h->seen = (uint16_t)(h->seen | bit);
        *slot = frame;
    }
}

static bool
seq_after(uint32_t a, uint32_t b)
{
    return (int32_t)(a - b) > 0;
}

/* Capture loss (infer.h): d's data segment [seq, end) as it passes. A
 * start past the highest sequence seen leaves a gap behind it; a segment
 * below it fills what it covers of the gaps. */
#define GAP_MAX (1u << 30) /* a jump this large is not a gap: a new sequence space */

static void
hole_fill(struct ew_half *h, uint32_t seq, uint32_t end)
{
    unsigned i = 0;

    while (i < h->nholes) {
        uint32_t hs = h->hole_start[i], he = h->hole_end[i];

        if (!seq_after(end, hs) || !seq_after(he, seq)) {
            i++;
            continue; /* no overlap */
        }
        if (!seq_after(seq, hs) && !seq_after(he, end)) { /* all of it */
            h->nholes--;
            h->hole_start[i] = h->hole_start[h->nholes];
            h->hole_end[i] = h->hole_end[h->nholes];
            continue;
        }
        if (!seq_after(seq, hs)) {
            h->hole_start[i] = end;
        } else if (!seq_after(he, end)) {
            h->hole_end[i] = seq;
        } else { /* inside: two gaps, when there is room for the second */
            h->hole_end[i] = seq;
            if (h->nholes < EW_HOLES) {
                h->hole_start[h->nholes] = end;
                h->hole_end[h->nholes] = he;
                h->nholes++;
            }
        }
        i++;
    }
}

static void
seq_seen(struct ew_half *h, uint32_t seq, uint32_t end, int64_t ts)
{
    if (!h->seq_hi_set) {
        h->seq_hi = end;
        h->seq_hi_set = true;
        return;
    }
    if (seq_after(seq, h->seq_hi) && seq - h->seq_hi < GAP_MAX) {
        h->gaps++;
        h->gap_last_ns = ts ? ts : 1;
        if (h->nholes < EW_HOLES) {
            h->hole_start[h->nholes] = h->seq_hi;
            h->hole_end[h->nholes] = seq;
            h->nholes++;
        }
        h->seq_hi = end;
        return;
    }
    if (seq_after(seq, h->seq_hi)) { /* no gap: the sequence starts anew */
        h->nholes = 0;
        h->seq_hi = end;
        return;
    }
    if (h->nholes)
        hole_fill(h, seq, end);
    if (seq_after(end, h->seq_hi))
        h->seq_hi = end;
}

/* an acknowledgement of d's data up to ack: what it covers that was never
 * seen here was missed by the capture. A FIN's sequence number is left out
 * of the bytes acknowledged past everything seen. */
static void
seq_acked(struct ew_half *h, uint32_t ack)
{
    unsigned i = 0;

    while (i < h->nholes) {
        uint32_t hs = h->hole_start[i], he = h->hole_end[i];

        if (!seq_after(ack, hs)) {
            i++;
            continue;
        }
        if (!seq_after(he, ack)) {
            h->missed_bytes += he - hs;
            h->missed_gaps++;
            h->nholes--;
            h->hole_start[i] = h->hole_start[h->nholes];
            h->hole_end[i] = h->hole_end[h->nholes];
            continue;
        }
        h->missed_bytes += ack - hs;
        h->hole_start[i] = ack;
        i++;
    }
    if (h->seq_hi_set && seq_after(ack, h->seq_hi + 1) && ack - h->seq_hi < GAP_MAX) {
        h->missed_bytes += ack - h->seq_hi;
        h->missed_gaps++;
        h->gaps++;
        h->seq_hi = ack;
    }
}

/* the bottleneck series' interval (infer.h, struct ew_qacc) */
static inline uint16_t
sat16(uint32_t v)
{
    return (uint16_t)(v > UINT16_MAX ? UINT16_MAX : v);
}

static inline void
qa_rtt(uint32_t *min, uint16_t *n, int64_t rtt)
{
    int64_t u = rtt / 10000;
    uint32_t v = u < 0 ? 0 : u > UINT32_MAX ? UINT32_MAX : (uint32_t)u;

    if (!*n || v < *min)
        *min = v;
    *n = sat16((uint32_t)*n + 1);
}

/* d's packet as it passes: arrivals, data codepoints, CWR, RTT timing */
static void
account_arrival(struct ew_half *h, const struct ew_pkt *pkt, int kind, uint64_t frame,
                int64_t ts)
{
    const struct ew_tcp *t = &pkt->u.tcp;
    enum ew_ecn ecn = pkt->ecn;
    bool pure_syn = (t->flags & EW_TCP_SYN) && !(t->flags & EW_TCP_ACK);

    /* RFC 9768 §3.2: "The Data Receiver MUST increment the CE packet counter
     * (r.cep), for every Acceptable packet that it receives with the CE code
     * point in the IP ECN field, including CE marked control packets and
     * retransmissions but excluding CE on SYN packets (SYN=1; ACK=0)." */
    if (ecn == EW_ECN_CE)
        h->qa.ce = sat16((uint32_t)h->qa.ce + 1);
    if (!pure_syn && ecn == EW_ECN_CE) {
        h->ce_seen++;
        first(h, EW_SEEN_CE, &h->first_ce_frame, frame);
        h->ce_since_ack = true;
        h->ce_end = t->seq + t->payload;
        h->cwr_clears = false; /* a new mark: the echo is due again */
    }
    /* the byte counters likewise, "but not including any payload octets on
     * SYN packets (SYN=1; ACK=0)" (RFC 9768 §3.2) */
    if (!pure_syn)
        h->bytes_seen[ecn] += t->payload;
    if (t->payload > 0 && !(t->flags & EW_TCP_SYN)) {
        if (h->data_pkts == 0) {
            h->first_data_frame = frame;
            h->data_first_ns = ts;
        } else if (h->last_data_ecn == EW_ECN_ECT_0 && ecn == EW_ECN_ECT_1) {
            h->ect1_runs++;
        }
        /* CE is the network's: the sender's codepoint is the first other one */
        if (!h->first_data_ecn_set && ecn != EW_ECN_CE) {
            h->first_data_ecn = ecn;
            h->first_data_ecn_set = true;
        }
        h->data_last_ns = ts;
        /* the peak rate, window by window */
        if (h->data_pkts == 0 || ts < h->rwin_start) {
            h->rwin_start = ts;
            h->rwin_bytes = 0;
        } else if (ts - h->rwin_start >= EW_INF_RATE_WINDOW_NS) {
            uint64_t kbps = (uint64_t)h->rwin_bytes * 8000000 / (uint64_t)(ts - h->rwin_start);

            if (kbps > h->peak_kbps)
                h->peak_kbps = kbps > UINT32_MAX ? UINT32_MAX : (uint32_t)kbps;
            h->rwin_start = ts;
            h->rwin_bytes = 0;
        }
        h->rwin_bytes += t->payload;
        h->qa.bytes = h->qa.bytes + t->payload < h->qa.bytes ? UINT32_MAX : h->qa.bytes + t->payload;
        h->qa.data = sat16((uint32_t)h->qa.data + 1);
        h->last_data_ecn = ecn;
        h->last_data_frame = frame;
        if (h->ece_acks > 0)
            h->data_after_ece++;
        h->data_pkts++;
        if (ecn == EW_ECN_ECT_1)
            first(h, EW_SEEN_ECT1, &h->first_ect1_frame, frame);
        if (ecn == EW_ECN_ECT_0) {
            first(h, EW_SEEN_ECT0, &h->first_ect0_frame, frame);
            if (h->seen & EW_SEEN_ECT1)
                h->ect0_after_ect1++;
        }
    }
    /* what of d's sequence space passed here: a SYN starts it, data and a
     * FIN take it up */
    if (t->flags & EW_TCP_SYN) {
        if (!h->seq_hi_set) {
            h->seq_hi = t->seq + 1 + t->payload;
            h->seq_hi_set = true;
        }
    } else if (!(t->flags & EW_TCP_RST) && (t->payload > 0 || (t->flags & EW_TCP_FIN))) {
        seq_seen(h, t->seq, t->seq + t->payload + ((t->flags & EW_TCP_FIN) ? 1u : 0u), ts);
    }
    if (ew_ecn_is_ect(ecn) && kind == EW_SEG_PURE_ACK)
        first(h, EW_SEEN_ECT_PURE_ACK, &h->first_ect_pure_ack_frame, frame);
    if (ew_ecn_is_ect(ecn) && kind == EW_SEG_RETRANS)
        first(h, EW_SEEN_ECT_RETRANS, &h->first_ect_retrans_frame, frame);
    if ((t->flags & EW_TCP_CWR) && !(t->flags & EW_TCP_SYN)) {
        h->cwr_seen++;
        h->cwr_ring_ns[h->cwr_next++ & 3] = ts ? ts : 1;
        first(h, EW_SEEN_CWR, &h->first_cwr_frame, frame);
        if (h->ece_on)
            h->cwr_during_run = true;
        else
            h->cwr_off_run_ns = ts ? ts : 1; /* no ECE to answer: a loss reduction's */
        /* RFC 3168 §6.1.3: the receiver sets ECE "until it receives a CWR
         * packet (a packet with the CWR flag set). After the receipt of the
         * CWR packet, acknowledgments for subsequent non-CE data packets do
         * not have the ECN-Echo flag set." CE that arrived before this CWR
         * was sent in the window the sender has already reduced for (§6.1.2:
         * once per window), so an ACK that covers it and the CWR with ECE
         * clear is the latch cleared, not feedback missing. A CE on the CWR
         * segment itself re-arms the latch (Errata 3639: CWR first, then CE). */
        if (ecn != EW_ECN_CE) {
            h->ce_since_ack = false;
            h->cwr_clears = true;
            h->cwr_end = t->seq + t->payload;
        }
    }
    /* RTT: time new segments, spaced at least an eighth of the smoothed RTT
     * apart, each with the segment after it: a receiver that acknowledges
     * every second segment answers one of the two at once, so that one ACK
     * in two ends exactly at a timed segment (feedback_rtt); a
     * retransmission spoils every timing (Karn) */
    if (kind == EW_SEG_DATA && h->rtt_count < EW_RTT_TIMED) {
        int64_t last = h->rtt_count ? h->rtt_ts[(h->rtt_head + h->rtt_count - 1) % EW_RTT_TIMED]
                                    : INT64_MIN;

        if (h->rtt_count == 0 || h->rtt_pair || ts - last >= h->rtt_srtt / EW_INF_RTT_SPACING_DIV) {
            unsigned i = (h->rtt_head + h->rtt_count) % EW_RTT_TIMED;

            h->rtt_seq_end[i] = t->seq + t->payload;
            h->rtt_ts[i] = ts;
            h->rtt_count++;
            h->rtt_pair = !h->rtt_pair;
        }
    } else if (kind == EW_SEG_RETRANS) {
        h->rtt_count = 0;
        h->rtt_pair = false;
    }
    if (kind == EW_SEG_RETRANS)
        h->retrans++;
}

static void
rtt_sample(struct ew_half *h, int64_t rtt)
{
    uint32_t qd;

    if (rtt < 0)
        return;
    if (h->rtt_samples == 0 || rtt < h->rtt_min)
        h->rtt_min = rtt;
    h->rtt_srtt = h->rtt_samples == 0 ? rtt
                                      : h->rtt_srtt + (rtt - h->rtt_srtt) / EW_INF_SRTT_GAIN_DIV;
    h->rtt_last = rtt;
    h->rtt_samples++;
    qa_rtt(&h->qa.dn_min, &h->qa.dn_n, rtt);
    qd = (uint32_t)((rtt - h->rtt_min) / 1000);
    h->qd_sum_us += qd;
    h->qd_n++;
    ew_qd_add(h->qd_hist, qd);
    if (qd > h->qd_max_us)
        h->qd_max_us = qd;
}

/* a mark fed back now: note the queueing delay the latest RTT shows */
static void
mark_delay(struct ew_half *h)
{
    uint32_t qd;

    if (h->rtt_samples == 0)
        return;
    qd = (uint32_t)((h->rtt_last - h->rtt_min) / 1000);
    h->qd_marks++;
    h->qd_marks_sum_us += qd;
    ew_qd_add(h->qd_marks_hist, qd);
    if (qd > h->qd_marks_max_us)
        h->qd_marks_max_us = qd;
}

/* TCP timestamps (RFC 7323 §3), timed as pping/ePPing do. A packet of
 * direction `out` whose TSval is new (above every TSval seen that way) is
 * noted, spaced at least an eighth of the loop's smoothed RTT apart so that
 * EW_TS_PENDING slots span a round trip; the first packet of the other
 * direction whose TSecr equals a noted TSval closes that loop. Echoes of
 * older values drop the pending ones they pass: a TSval the far end never
 * echoed exactly (it echoes the earliest unacknowledged segment's) gives no
 * sample. */
static bool
ts_after(uint32_t a, uint32_t b)
{
    return (int32_t)(a - b) > 0;
}

static void
ts_sample(struct ew_tsloop *l, int64_t rtt)
{
    uint32_t ex;

    if (l->samples == 0 || rtt < l->min)
        l->min = rtt;
    l->srtt = l->samples == 0 ? rtt : l->srtt + (rtt - l->srtt) / EW_INF_SRTT_GAIN_DIV;
    l->last = rtt;
    l->samples++;
    ex = (uint32_t)((rtt - l->min) / 1000);
    l->excess_sum_us += ex;
    ew_qd_add(l->excess_hist, ex);
    if (ex > l->excess_max_us)
        l->excess_max_us = ex;
}

/* t's TSecr read against the TSvals the other direction's loop holds */
static void
ts_echo(struct ew_tsloop *l, uint32_t tsecr, int64_t ts)
{
    while (l->count) {
        uint32_t v = l->pend_val[l->head];

        if (ts_after(v, tsecr))
            return; /* echoes something older than every pending TSval */
        if (v == tsecr && ts >= l->pend_ts[l->head])
            ts_sample(l, ts - l->pend_ts[l->head]);
        l->head = (uint8_t)((l->head + 1) % EW_TS_PENDING);
        l->count--;
        if (v == tsecr)
            return;
    }
}

/* t's TSval, the first time it is seen this way */
static void
ts_note(struct ew_tsloop *l, uint32_t tsval, int64_t ts)
{
    int64_t last;

    if (l->newest_set && !ts_after(tsval, l->newest))
        return;
    l->newest = tsval;
    l->newest_set = true;
    if (l->count == EW_TS_PENDING)
        return;
    last = l->count ? l->pend_ts[(l->head + l->count - 1) % EW_TS_PENDING] : INT64_MIN;
    if (l->count == 0 || ts - last >= l->srtt / EW_INF_RTT_SPACING_DIV) {
        unsigned i = (l->head + l->count) % EW_TS_PENDING;

        l->pend_val[i] = tsval;
        l->pend_ts[i] = ts;
        l->count++;
    }
}

/* The segment's header read as feedback on the other direction's data (r),
 * in every interpretation at once; the conclusion picks the one the
 * handshake (or what followed) says is in force. */

/* RTT from the newest timed segment this ACK covers: before the marks, so
 * that a mark fed back on this ACK is paired with this very sample */
static void
feedback_rtt(struct ew_half *r, const struct ew_tcp *t, int64_t ts)
{
    int64_t sent = -1;
    bool exact = false;

    /* the segment whose end this ACK acknowledges exactly is the one whose
     * arrival sent it; an earlier one waited for it too (a delayed ACK) */
    while (r->rtt_count && seq_geq(t->ack, r->rtt_seq_end[r->rtt_head])) {
        if (!exact)
            sent = r->rtt_ts[r->rtt_head];
        if (r->rtt_seq_end[r->rtt_head] == t->ack)
            exact = true;
        r->rtt_head = (uint8_t)((r->rtt_head + 1) % EW_RTT_TIMED);
        r->rtt_count--;
    }
    if (sent >= 0)
        rtt_sample(r, ts - sent);
}

/* ECE read as classic (RFC 3168) or DCTCP feedback, and SCE's ESCE */
/* An ECE run ended with no CWR from the sender while it lasted. RFC 3168
 * latching cannot do that unless a CWR the capture point did not place in
 * the run cleared the latch: the CWR of a loss reduction (RFC 3168 §6.1.2:
 * CWR follows "any" window reduction; sent while no ECE run was on), up to
 * a round trip before the run's first ECE reached here (twice the smoothed
 * RTT, for its variation), or one sent before a mid-flow capture began. Such
 * runs are set aside; any other rules latching out (digest §3.3). */
/* A CWR sent before an ECE run began here that still explains its end: the
 * run's CE reached the receiver before that CWR did, and the CWR cleared the
 * latch before the run's last ECE was sent (RFC 3168 Errata 3639: CWR
 * first, then CE; a CE just before the CWR goes unechoed). Times are as the
 * capture point sees them, one loop from here to the receiver and back (the
 * data-to-ACK RTT here: a round trip next to the sender, almost nothing next
 * to the receiver) apart: the CWR left here after the run's start less a
 * loop (EW_INF_CWR_LOOP_SLACK for its variation), and at least its shortest
 * loop before the run's end. */
static bool
cwr_before_clears(const struct ew_half *r, int64_t end)
{
    int64_t loop = r->rtt_samples ? r->rtt_srtt : 0, fast = r->rtt_samples ? r->rtt_min : 0;
    unsigned i;

    for (i = 0; i < 4; i++) {
        int64_t c = r->cwr_ring_ns[i];

        if (c && c > r->ece_run_start_ns - loop * EW_INF_CWR_LOOP_SLACK_NUM / EW_INF_CWR_LOOP_SLACK_DEN &&
            c <= end - fast)
            return true;
    }
    return false;
}

static void
ece_run_ended_without_cwr(struct ew_half *r, uint64_t frame, int64_t ts)
{
    int64_t since = r->ece_run_start_ns - EW_INF_LOSS_CWR_RTTS * (r->rtt_srtt > 0 ? r->rtt_srtt : 0);

    if (r->ece_run_at_start) {
        r->ece_runs_at_start++;
    } else if ((r->cwr_off_run_ns != 0 && r->cwr_off_run_ns >= since) ||
               cwr_before_clears(r, ts)) {
        r->ece_runs_in_recovery++;
    } else if (r->nholes || (r->gap_last_ns != 0 && r->gap_last_ns >= since)) {
        /* the CWR may be in what this capture point did not see; whether
         * it missed anything, the acknowledgements tell later */
        r->ece_runs_no_cwr_gap++;
    } else {
        r->ece_runs_without_cwr++;
        first(r, EW_SEEN_ECE_OFF, &r->first_ece_off_frame, frame);
    }
}

static void
feedback_classic(const struct ew_infer *in, struct ew_half *r, const struct ew_tcp *t,
                 bool handshake_ack, uint64_t frame, int64_t ts)
{
    bool ece = t->flags & EW_TCP_ECE;

    /* RFC 3168 §6.1.3: "After a TCP receiver sends an ACK packet with the
     * ECN-Echo bit set, that TCP receiver continues to set the ECN-Echo flag
     * in all the ACK packets it sends (whether they acknowledge CE data
     * packets or non-CE data packets) until it receives a CWR packet (a
     * packet with the CWR flag set)."
     * RFC 8257 §3.2: "When sending an ACK, the ECE flag MUST be set if and
     * only if DCTCP.CE is true." A run of ECE that ends without a CWR is
     * DCTCP's echo, not RFC 3168's latch. */
    if (ece) {
        r->ece_acks++;
        first(r, EW_SEEN_ECE, &r->first_ece_frame, frame);
        if (!r->ece_on) {
            r->ece_on = true;
            r->ece_runs++;
            r->qa.ece = sat16((uint32_t)r->qa.ece + 1);
            r->cwr_during_run = false;
            r->ece_run_start_ns = ts;
            /* mid-flow: on at the first feedback, with no handshake before */
            r->ece_run_at_start = r->fb_segments == 1 && in->syn_ns == 0 && !in->synack_dir_set;
            if (!in->accecn_mode)
                mark_delay(r); /* a classic mark signal; in AccECN mode ACE counts */
        }
    } else if (r->ece_on) {
        r->ece_on = false;
        if (r->cwr_during_run)
            r->ece_runs_after_cwr++;
        else
            ece_run_ended_without_cwr(r, frame, ts);
    }
    /* RFC 3168 §6.1.3: "When TCP receives a CE data packet at the
     * destination end-system, the TCP data receiver sets the ECN-Echo flag in
     * the TCP header of the subsequent ACK packet." A segment that
     * acknowledges a CE arrival must carry ECE; one that only covers earlier
     * data may not (DCTCP's and SCE's paired ACKs). */
    if (r->ce_since_ack && !handshake_ack && seq_geq(t->ack, r->ce_end)) {
        if (!ece) {
            r->ce_unechoed++;
            first(r, EW_SEEN_CE_UNECHOED, &r->first_ce_unechoed_frame, frame);
        }
        r->ce_since_ack = false;
    }
    /* RFC 3168 §6.1.3 again: after the CWR, "acknowledgments for subsequent
     * non-CE data packets do not have the ECN-Echo flag set". An ECE that
     * acknowledges data past the CWR segment, with no CE seen since it, is
     * the latch held (judged only where the arrivals are seen: misuse.c) */
    if (ece && r->cwr_clears && !handshake_ack && seq_gt(t->ack, r->cwr_end)) {
        if (r->ece_held < UINT16_MAX)
            r->ece_held++;
        first(r, EW_SEEN_ECE_HELD, &r->first_ece_held_frame, frame);
    }
    /* SCE: ESCE on the former NS bit (draft-grimes-tcpm-tcpsce) */
    if (t->flags & EW_TCP_AE) {
        r->esce_acks++;
        first(r, EW_SEEN_ESCE, &r->first_esce_frame, frame);
        if (r->last_data_ecn == EW_ECN_ECT_1)
            r->esce_after_ect1++;
    }
}

/* AccECN ACE (RFC 9768 §3.2.2): "a Data Receiver MUST encode the three
 * least significant bits of its r.cep counter into the ACE field that it
 * feeds back to the Data Sender." newly: bytes this segment newly
 * acknowledges; baseline: the initial counter values are known (the
 * handshake was seen), otherwise the first value seen is the baseline and
 * counts nothing. */
static void
feedback_ace(struct ew_infer *in, struct ew_half *r, unsigned ace, bool baseline,
             uint64_t frame, uint32_t newly, uint32_t mss_est)
{
    unsigned expect = (ACE_INIT + r->ce_seen) & 7u;
    unsigned delta;

    if (!r->ace_init) {
        if (ace == 0 && baseline)
            r->ace_zero_first++;
        r->ace_offset = (uint8_t)((ace - expect) & 7u);
        r->ace_last = (uint8_t)(baseline ? ACE_INIT : ace);
    }
    delta = (ace - r->ace_last) & 7u;
    r->ace_init = true;
    if (ace == ((expect + r->ace_offset) & 7u))
        r->ace_rel_exact++;
    else
        r->ace_rel_mismatch++;
    r->ace_segments++;
    if (ace == expect) {
        r->ace_exact++;
    } else {
        r->ace_mismatch++;
        first(r, EW_SEEN_ACE_MISMATCH, &r->first_ace_mismatch_frame, frame);
    }
    if (delta) {
        r->ace_changes++;
        r->cep_reported += delta;
        r->qa.marks = sat16((uint32_t)r->qa.marks + delta);
        first(r, EW_SEEN_ACE_CHANGE, &r->first_ace_change_frame, frame);
        if (r->ace_init && in->accecn_mode)
            mark_delay(r);
    }
    /* App. A.2.1: eight or more packets newly acknowledged can hide a wrap */
    if (mss_est && newly / mss_est >= EW_INF_ACE_WRAP_PKTS)
        r->ace_wrap_ambiguous++;
    r->ace_last = (uint8_t)ace;
    if (ace == ACE_INIT && r->cep_reported == 0)
        in->ace5_segments++;
}

/* AccECN option counters (RFC 9768 §3.2.3): 24-bit byte counts, with wrap.
 * RFC 9768 §3.2: the Data Receiver "MUST increment the r.ceb, r.e0b or r.e1b
 * byte counters by the number of TCP payload octets in Acceptable packets
 * marked with the CE, ECT(0) and ECT(1) codepoint in their IP-ECN field".
 *
 * Every field's baseline is its first value seen, handshake or not: RFC 9768
 * §3.2.1 starts r.e0b and r.e1b at 1, but pre-RFC endpoints (the
 * experimental kind 254, ExID 0xACC0/0xACC1) start some counters at 0 (the
 * 2021 L4S kernel of the heistp field captures: EE0B 1, ECEB 0, EE1B 0 on
 * the SYN-ACK), so an assumed initial value would read a counter that never
 * moved as 2^24 - 1 bytes. A field below its last value is a superseded
 * (reordered) ACK, App. A.1, or a mangled option: it counts nothing. */
static void
feedback_option(struct ew_infer *in, struct ew_half *r, const struct ew_tcp *t, bool baseline,
                uint64_t frame)
{
    bool any = false, exact = true, first_opt = !r->first_opt_kind;
    int i;

    in->accecn_opt_segments++;
    if (!in->accecn_opt_seen) {
        in->accecn_opt_seen = true;
        in->first_accecn_opt_frame = frame;
    }
    for (i = 0; i < 3; i++) {
        uint32_t delta, v;

        if (!t->acc.has[i])
            continue;
        any = true;
        v = t->acc.val[i] & ACC_MASK24;
        if (first_opt) { /* the first option with a field */
            r->first_opt_has[i] = true;
            r->first_opt_val[i] = v;
            r->first_opt_kind = t->acc.kind;
            r->first_opt_order = t->acc.order;
        }
        if (!r->opt_seen[i]) {
            /* with the handshake seen, the field is checked against what
             * passed here from its generation's start (0 for a counter a
             * pre-RFC endpoint starts at 0, else RFC 9768's); joined
             * mid-flow, from its first value */
            r->opt_offset[i] =
                baseline ? ((v == 0 ? 0u : opt_init[i]) - opt_init[i]) & ACC_MASK24
                         : (v - opt_init[i] - (uint32_t)r->bytes_seen[opt_cp[i]]) & ACC_MASK24;
            /* a first value no higher than an initial one (0 or 1), after
             * the handshake was seen, has counted nothing yet: what passed
             * before it did not arrive with that codepoint */
            r->opt_base_bytes[i] = baseline && v <= opt_init[i]
                                       ? 0
                                       : r->bytes_seen[opt_cp[i]];
            if (v == 0 && opt_init[i] != 0)
                r->opt_zero_init = true;
            r->opt_last[i] = v;
            r->opt_seen[i] = true;
        }
        delta = (v - r->opt_last[i]) & ACC_MASK24;
        if (delta & ACC_WRAP_HALF) {
            r->opt_backward++;
            if (v == 0) {
                r->opt_zeroed++;
                first(r, EW_SEEN_OPT_ZEROED, &r->first_opt_zeroed_frame, frame);
            }
            exact = false;
            continue;
        }
        r->opt_total[i] += delta;
        r->opt_last[i] = v;
        /* exact: the field counts what passed here (see opt_offset) */
        if (v != ((r->opt_offset[i] + opt_init[i] + (uint32_t)r->bytes_seen[opt_cp[i]]) &
                  ACC_MASK24))
            exact = false;
    }
    if (any) {
        first(r, EW_SEEN_OPT, &r->first_opt_frame, frame);
        r->opt_segments++;
        if (exact) {
            r->opt_exact++;
        } else {
            r->opt_mismatch++;
            first(r, EW_SEEN_OPT_MISMATCH, &r->first_opt_mismatch_frame, frame);
        }
    }
}

/* The AccECN option on a SYN-ACK carries the server's counters before any
 * data (RFC 9768 §3.2.3.2.2: a server SHOULD send one there): the first
 * values of the feedback on the client's data, their baseline, though the
 * SYN-ACK is no feedback segment (2021 L4S kernel, heistp field captures:
 * EE0B 1, ECEB 0, EE1B 0). */
static void
option_baseline(struct ew_half *r, const struct ew_tcp *t)
{
    int i;

    for (i = 0; i < 3; i++) {
        uint32_t v = t->acc.val[i] & ACC_MASK24;

        if (!t->acc.has[i] || r->opt_seen[i])
            continue;
        if (!r->first_opt_kind) {
            r->first_opt_kind = t->acc.kind;
            r->first_opt_order = t->acc.order;
        }
        r->first_opt_has[i] = true;
        r->first_opt_val[i] = v;
        r->opt_offset[i] = ((v == 0 ? 0u : opt_init[i]) - opt_init[i]) & ACC_MASK24;
        r->opt_base_bytes[i] = 0;
        if (v == 0 && opt_init[i] != 0)
            r->opt_zero_init = true;
        r->opt_last[i] = v;
        r->opt_seen[i] = true;
    }
}

static void
account_feedback(struct ew_infer *in, struct ew_half *r, const struct ew_pkt *pkt,
                 bool handshake_ack, bool baseline, uint64_t frame, int64_t ts,
                 uint32_t mss_est)
{
    const struct ew_tcp *t = &pkt->u.tcp;
    uint32_t newly = 0;
    /* an ACK older than one already seen (reordered on the way): its
     * counters are older too, and read against newer ones they would look
     * like a wrap or a counter set back (RFC 9768 App. A.1) */
    bool stale = r->ack_init && !seq_geq(t->ack, r->ack_max);

    r->fb_segments++;
    if (stale) {
        r->stale_acks++;
        return;
    }
    feedback_rtt(r, t, ts);
    feedback_classic(in, r, t, handshake_ack, frame, ts);
    if (!r->ack_init || seq_geq(t->ack, r->ack_max)) {
        newly = r->ack_init ? t->ack - r->ack_max : 0;
        r->ack_max = t->ack;
        r->ack_init = true;
        seq_acked(r, t->ack);
    }
    if (t->payload == 0 && !(t->flags & (EW_TCP_FIN | EW_TCP_RST)) && (t->flags & EW_TCP_CWR))
        r->ace_cwr_acks++;
    if (!handshake_ack)
        feedback_ace(in, r, ew_tcp_ace(t->flags), baseline, frame, newly, mss_est);
    if (t->acc.present)
        feedback_option(in, r, t, baseline, frame);
}

void
ew_infer_tcp(struct ew_flow *f, const struct ew_pkt *pkt, int dir, int kind, uint64_t frame,
             int64_t ts)
{
    struct ew_infer *in = f->inf;
    const struct ew_tcp *t = &pkt->u.tcp;
    bool syn = t->flags & EW_TCP_SYN, ack = t->flags & EW_TCP_ACK;
    bool handshake_ack = false;

    if (syn && !ack && in->syn_ns == 0)
        in->syn_ns = ts ? ts : 1;
    if (syn && ack && !in->synack_dir_set) {
        in->synack_dir_set = true;
        in->synack_dir = (uint8_t)dir;
        in->synack_ns = ts ? ts : 1;
    }
    /* RFC 9768 §3.2.2.1: "A TCP Client (A) in AccECN mode MUST feed back
     * which of the 4 possible values of the IP-ECN field was on the SYN/ACK
     * by writing it into the ACE field of a pure ACK with no SACK blocks":
     * the client's first segment after the SYN-ACK, when it is such an ACK */
    if (!syn && ack && in->synack_dir_set && dir == (in->synack_dir ^ 1) && !in->ack3_seen) {
        in->ack3_seen = true;
        in->ack3_ns = ts ? ts : 1;
        in->ack3_frame = frame;
        in->ack3_ace = (uint8_t)ew_tcp_ace(t->flags);
        handshake_ack = kind == EW_SEG_PURE_ACK && t->sack_blocks == 0 && f->hs.neg_accecn;
    }
    if (!syn)
        in->nonsyn_segments++;
    if (!in->accecn_mode && ((!syn && t->acc.present) ||
                             (in->synack_dir_set && f->hs.neg_accecn)))
        in->accecn_mode = true;

    /* RFC 7323 §3.2: TSecr is valid only with ACK set; echoes first, so
     * that a CE packet below is paired with its own sample */
    if (t->has_ts) {
        if (ack) {
            struct ew_tsloop *up = &in->half[dir ^ 1].ts;
            uint32_t before = up->samples;

            ts_echo(up, t->tsecr, ts);
            /* the loop to dir's sender, as it times dir's queue upstream */
            if (up->samples != before)
                qa_rtt(&in->half[dir].qa.up_min, &in->half[dir].qa.up_n, up->last);
        }
        ts_note(&in->half[dir].ts, t->tsval, ts);
    }
    account_arrival(&in->half[dir], pkt, kind, frame, ts);
    if (syn && ack && t->acc.present)
        option_baseline(&in->half[dir ^ 1], t);
    /* CE on d's packets as they pass: the queue they crossed upstream of
     * here shows in the loop to d's sender (its TSvals echoed by d) */
    if (pkt->ecn == EW_ECN_CE && t->payload > 0 && !syn &&
        in->half[dir ^ 1].ts.samples) {
        const struct ew_tsloop *up = &in->half[dir ^ 1].ts;
        struct ew_half *h = &in->half[dir];
        uint32_t ex = (uint32_t)((up->last - up->min) / 1000);

        h->ce_up_sum_us += ex;
        h->ce_up_n++;
        ew_qd_add(h->ce_up_hist, ex);
        if (ex > h->ce_up_max_us)
            h->ce_up_max_us = ex;
    }
    if (ack && !syn) {
        uint32_t mss = f->dir[dir ^ 1].max_payload;

        bool baseline = f->hs.syn_count > 0 || in->synack_dir_set;

        account_feedback(in, &in->half[dir ^ 1], pkt, handshake_ack, baseline, frame, ts, mss);
    }
}
