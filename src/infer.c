/* infer.c - handshake, feedback and ECT(1) inference (see infer.h).
 * Facts and section numbers: RFC 3168, RFC 8257 (DCTCP), RFC 9768 (AccECN),
 * RFC 9330/9331 (L4S), draft-morton-tsvwg-sce and draft-grimes-tcpm-tcpsce. */
#include "ecnwatch/infer.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ecnwatch/analyze.h"
#include "ecnwatch/ecn.h"
#include "ecnwatch/flow.h"
#include "ecnwatch/format.h"

const char *const ew_fb_name[] = {
    [EW_FB_NONE] = "none",   [EW_FB_RFC3168] = "rfc3168", [EW_FB_DCTCP] = "dctcp",
    [EW_FB_ACCECN] = "accecn", [EW_FB_SCE] = "sce",       [EW_FB_UNKNOWN] = "unknown",
};
const char *const ew_ect1_name[] = {
    [EW_ECT1_NONE] = "none",           [EW_ECT1_L4S] = "l4s",         [EW_ECT1_SCE] = "sce",
    [EW_ECT1_AMBIGUOUS] = "ambiguous", [EW_ECT1_CONFLICT] = "conflict",
};
const char *const ew_verdict_name[] = {
    [EW_V_NOT_ECN] = "not_ecn", [EW_V_CLASSIC] = "classic",     [EW_V_DCTCP] = "dctcp",
    [EW_V_ACCECN_CLASSIC] = "accecn_classic", [EW_V_L4S] = "l4s", [EW_V_SCE] = "sce",
    [EW_V_CONFLICT] = "conflict", [EW_V_AMBIGUOUS] = "ambiguous", [EW_V_UNKNOWN] = "unknown",
};
const char *const ew_vantage_name[] = {
    [EW_VANT_CLIENT] = "client_side", [EW_VANT_SERVER] = "server_side",
    [EW_VANT_MIDDLE] = "middle",      [EW_VANT_UNKNOWN] = "unknown",
};

#define ACC_MASK24 0xffffffu
/* AccECN initial counter values (RFC 9768 §3.2.1): r.cep 5, r.e0b 1, r.ceb 0, r.e1b 1 */
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

/* d's packet as it passes: arrivals, data codepoints, CWR, RTT timing */
static void
account_arrival(struct ew_half *h, const struct ew_pkt *pkt, int kind, uint64_t frame,
                int64_t ts)
{
    const struct ew_tcp *t = &pkt->u.tcp;
    uint8_t ecn = pkt->ecn & EW_ECN_MASK;
    bool pure_syn = (t->flags & EW_TCP_SYN) && !(t->flags & EW_TCP_ACK);

    /* r.cep counts CE on every packet but a SYN (RFC 9768 §3.2.1) */
    if (!pure_syn && ecn == EW_ECN_CE) {
        h->ce_seen++;
        first(h, EW_SEEN_CE, &h->first_ce_frame, frame);
        h->ce_since_ack = true;
        h->ce_end = t->seq + t->payload;
    }
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
        h->last_data_ecn = ecn;
        h->last_data_frame = frame;
        if (h->ece_acks > 0)
            h->data_after_ece++;
        h->data_pkts++;
        if (ecn == EW_ECN_ECT_1)
            first(h, EW_SEEN_ECT1, &h->first_ect1_frame, frame);
        if (ecn == EW_ECN_ECT_0)
            first(h, EW_SEEN_ECT0, &h->first_ect0_frame, frame);
    }
    if (ew_ecn_is_ect(ecn) && kind == EW_SEG_PURE_ACK)
        first(h, EW_SEEN_ECT_PURE_ACK, &h->first_ect_pure_ack_frame, frame);
    if (ew_ecn_is_ect(ecn) && kind == EW_SEG_RETRANS)
        first(h, EW_SEEN_ECT_RETRANS, &h->first_ect_retrans_frame, frame);
    if ((t->flags & EW_TCP_CWR) && !(t->flags & EW_TCP_SYN)) {
        h->cwr_seen++;
        first(h, EW_SEEN_CWR, &h->first_cwr_frame, frame);
        if (h->ece_on)
            h->cwr_during_run = true;
    }
    /* RTT: time one new segment at a time; a retransmission spoils it (Karn) */
    /* RTT: time new segments, spaced at least an eighth of the smoothed RTT
     * apart; a retransmission spoils every timing (Karn) */
    if (kind == EW_SEG_DATA && h->rtt_count < EW_RTT_TIMED) {
        int64_t last = h->rtt_count ? h->rtt_ts[(h->rtt_head + h->rtt_count - 1) % EW_RTT_TIMED]
                                    : INT64_MIN;

        if (h->rtt_count == 0 || ts - last >= h->rtt_srtt / EW_RTT_TIMED) {
            unsigned i = (h->rtt_head + h->rtt_count) % EW_RTT_TIMED;

            h->rtt_seq_end[i] = t->seq + t->payload;
            h->rtt_ts[i] = ts;
            h->rtt_count++;
        }
    } else if (kind == EW_SEG_RETRANS) {
        h->rtt_count = 0;
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
    h->rtt_srtt = h->rtt_samples == 0 ? rtt : h->rtt_srtt + (rtt - h->rtt_srtt) / 8;
    h->rtt_last = rtt;
    h->rtt_samples++;
    qd = (uint32_t)((rtt - h->rtt_min) / 1000);
    h->qd_sum_us += qd;
    h->qd_n++;
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
    if (qd > h->qd_marks_max_us)
        h->qd_marks_max_us = qd;
}

/* The segment's header read as feedback on the other direction's data (r),
 * in every interpretation at once; the conclusion picks the one the
 * handshake (or what followed) says is in force. */
/* AccECN is in force, as far as the packets so far tell */
static bool
f_is_accecn(const struct ew_infer *in)
{
    return in->accecn_mode;
}

/* baseline: the initial counter values are known (the handshake was seen);
 * otherwise the first values seen are the baseline and count nothing. */
static void
account_feedback(struct ew_infer *in, struct ew_half *r, const struct ew_pkt *pkt,
                 bool handshake_ack, bool baseline, uint64_t frame, int64_t ts,
                 uint32_t mss_est)
{
    const struct ew_tcp *t = &pkt->u.tcp;
    bool ece = t->flags & EW_TCP_ECE;
    unsigned ace = ew_tcp_ace(t->flags);
    uint32_t newly = 0;
    int i;

    r->fb_segments++;

    /* RTT from the newest timed segment this ACK covers: before the marks
     * below, so that a mark fed back here is paired with this very sample */
    {
        int64_t sent = -1;

        while (r->rtt_count && seq_geq(t->ack, r->rtt_seq_end[r->rtt_head])) {
            sent = r->rtt_ts[r->rtt_head];
            r->rtt_head = (uint8_t)((r->rtt_head + 1) % EW_RTT_TIMED);
            r->rtt_count--;
        }
        if (sent >= 0)
            rtt_sample(r, ts - sent);
    }

    /* RFC 3168 §6.1.3: ECE latched until CWR; RFC 8257 §3.2: ECE follows CE */
    if (ece) {
        r->ece_acks++;
        first(r, EW_SEEN_ECE, &r->first_ece_frame, frame);
        if (!r->ece_on) {
            r->ece_on = true;
            r->ece_runs++;
            r->cwr_during_run = false;
            if (!in->accecn_mode)
                mark_delay(r); /* a classic mark signal; in AccECN mode ACE counts below */
        }
    } else if (r->ece_on) {
        r->ece_on = false;
        if (r->cwr_during_run) {
            r->ece_runs_after_cwr++;
        } else {
            r->ece_runs_without_cwr++;
            first(r, EW_SEEN_ECE_OFF, &r->first_ece_off_frame, frame);
        }
    }
    /* a segment that acknowledges a CE arrival must carry ECE; one that only
     * covers earlier data may not (DCTCP's and SCE's paired ACKs) */
    if (r->ce_since_ack && !handshake_ack && seq_geq(t->ack, r->ce_end)) {
        if (!ece) {
            r->ce_unechoed++;
            first(r, EW_SEEN_CE_UNECHOED, &r->first_ce_unechoed_frame, frame);
        }
        r->ce_since_ack = false;
    }
    /* SCE: ESCE on the former NS bit (draft-grimes-tcpm-tcpsce) */
    if (t->flags & EW_TCP_AE) {
        r->esce_acks++;
        first(r, EW_SEEN_ESCE, &r->first_esce_frame, frame);
        if (r->last_data_ecn == EW_ECN_ECT_1)
            r->esce_after_ect1++;
    }

    if (!r->ack_init || seq_geq(t->ack, r->ack_max)) {
        newly = r->ack_init ? t->ack - r->ack_max : 0;
        r->ack_max = t->ack;
        r->ack_init = true;
    }

    /* AccECN ACE (RFC 9768 §3.2.2): a 3-bit count of CE packets from 5 */
    if (!handshake_ack) {
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
            first(r, EW_SEEN_ACE_CHANGE, &r->first_ace_change_frame, frame);
            if (r->ace_init && f_is_accecn(in))
                mark_delay(r);
        }
        /* App. A.2.1: eight or more packets newly acknowledged can hide a wrap */
        if (mss_est && newly / mss_est >= 8)
            r->ace_wrap_ambiguous++;
        r->ace_last = (uint8_t)ace;
        if (ace == 5 && r->cep_reported == 0)
            in->ace5_segments++;
    }

    /* AccECN option counters (§3.2.3): 24-bit byte counts, with wrap */
    if (t->acc.present) {
        bool any = false, exact = true;

        in->accecn_opt_segments++;
        if (!in->accecn_opt_seen) {
            in->accecn_opt_seen = true;
            in->first_accecn_opt_frame = frame;
        }
        for (i = 0; i < 3; i++) {
            uint32_t last, v;

            if (!t->acc.has[i])
                continue;
            any = true;
            v = t->acc.val[i] & ACC_MASK24;
            if (!(r->seen & EW_SEEN_OPT)) { /* the first option with a field */
                r->first_opt_has[i] = true;
                r->first_opt_val[i] = v;
            }
            if (!r->opt_seen[i])
                r->opt_offset[i] =
                    (v - opt_init[i] - (uint32_t)r->bytes_seen[opt_cp[i]]) & ACC_MASK24;
            last = r->opt_seen[i] ? r->opt_last[i] : baseline ? opt_init[i] : v;
            r->opt_total[i] += (v - last) & ACC_MASK24;
            r->opt_last[i] = v;
            r->opt_seen[i] = true;
            if (v != ((opt_init[i] + r->bytes_seen[opt_cp[i]]) & ACC_MASK24))
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
    /* RFC 9768 §3.2.2.1: the client's first segment after the SYN-ACK, when it
     * is a pure ACK without SACK, feeds back the SYN-ACK's IP-ECN in ACE */
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

    account_arrival(&in->half[dir], pkt, kind, frame, ts);
    if (ack && !syn) {
        uint32_t mss = f->dir[dir ^ 1].max_payload;

        bool baseline = f->hs.syn_count > 0 || in->synack_dir_set;

        account_feedback(in, &in->half[dir ^ 1], pkt, handshake_ack, baseline, frame, ts, mss);
    }
}

/* ---------------------------------------------------------------- conclusions */

enum mode { MODE_NONE, MODE_CLASSIC, MODE_ACCECN };

/* a reason in words, when the caller wants them */
static void say(bool words, char *buf, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void
say(bool words, char *buf, const char *fmt, ...)
{
    va_list ap;

    if (!words)
        return;
    va_start(ap, fmt);
    ew_vformat(buf, EW_REASON_LEN, fmt, ap);
    va_end(ap);
}

static enum mode
mode_of(int neg)
{
    switch (neg) {
    case EW_NEG_RFC3168:
        return MODE_CLASSIC;
    case EW_NEG_ACCECN:
        return MODE_ACCECN;
    default:
        return MODE_NONE;
    }
}

static uint64_t
data_cp(const struct ew_flow *f, int d, int cp)
{
    return (uint64_t)f->inf->kind_ecn[d][EW_SEG_DATA][cp] + f->inf->kind_ecn[d][EW_SEG_RETRANS][cp];
}

/* the handshake was not captured: infer the mode from what followed */
static int
infer_mode(const struct ew_flow *f, struct ew_flow_verdict *v, bool words)
{
    const struct ew_infer *in = f->inf;
    uint64_t ae = f->dir[0].ae + f->dir[1].ae;
    uint64_t segs = in->nonsyn_segments;
    int d;
    bool ect = false, flags = false;

    if (in->accecn_opt_segments > 0) {
        say(words, v->neg_reason,
                 "handshake not captured; AccECN option on %u segments, first in frame %llu",
                 in->accecn_opt_segments, (unsigned long long)in->first_accecn_opt_frame);
        return EW_NEG_ACCECN;
    }
    /* with no CE yet, every AccECN segment carries ACE 0b101: AE set throughout */
    if (segs >= 4 && ae * 10 >= segs * 9 && in->ace5_segments > 0) {
        say(words, v->neg_reason,
                 "handshake not captured; AE set on %llu of %llu segments (ACE counter from 5)",
                 (unsigned long long)ae, (unsigned long long)segs);
        return EW_NEG_ACCECN;
    }
    for (d = 0; d < 2; d++) {
        if (data_cp(f, d, EW_ECN_ECT_0) || data_cp(f, d, EW_ECN_ECT_1) ||
            data_cp(f, d, EW_ECN_CE))
            ect = true;
        if (f->dir[d].ece || f->dir[d].cwr)
            flags = true;
    }
    if (ect || flags) {
        say(words, v->neg_reason,
                 "handshake not captured; %s without AccECN signs: classic ECN assumed",
                 ect ? "ECT on data" : "ECE/CWR flags");
        return EW_NEG_RFC3168;
    }
    say(words, v->neg_reason,
             "handshake not captured; no ECT and no ECN flags seen: not ECN-capable");
    return EW_NEG_NONE;
}

static void
conclude_feedback(const struct ew_flow *f, int d, enum mode m, bool inferred,
                  struct ew_dir_verdict *dv, bool words)
{
    const struct ew_half *h = &f->inf->half[d];
    uint64_t e1 = f->dir[d].ecn[EW_ECN_ECT_1];

    dv->fb_checked_exact = false;
    dv->marks_downstream = false;
    switch (m) {
    case MODE_NONE:
        dv->feedback = EW_FB_NONE;
        say(words, dv->feedback_reason, "no ECN feedback negotiated");
        return;
    case MODE_ACCECN:
        dv->feedback = EW_FB_ACCECN;
        say(words, dv->feedback_reason,
                 "AccECN: ACE changed %u times (%llu CE packets reported, %u seen here); "
                 "option on %u segments",
                 h->ace_changes, (unsigned long long)h->cep_reported, h->ce_seen,
                 h->opt_segments);
        if (h->ace_segments >= 3 && (inferred ? h->ace_rel_mismatch : h->ace_mismatch) == 0 &&
            h->ce_seen > 0 && (inferred || h->opt_segments == 0 || h->opt_mismatch == 0))
            dv->fb_checked_exact = true;
        if (h->cep_reported > h->ce_seen ||
            (h->opt_seen[EW_ACC_CEB] && h->opt_total[EW_ACC_CEB] > h->bytes_seen[EW_ECN_CE]))
            dv->marks_downstream = true;
        return;
    case MODE_CLASSIC:
        break;
    }
    if (h->esce_acks > 0 && (e1 ? h->esce_after_ect1 > 0 : data_cp(f, d, EW_ECN_ECT_0) > 0)) {
        dv->feedback = EW_FB_SCE;
        say(words, dv->feedback_reason,
                 "ESCE (former NS bit) on %u of %u feedback segments, %s; CE by ECE (%u ACKs)",
                 h->esce_acks, h->fb_segments,
                 e1 ? "following ECT(1) arrivals" : "while the sender sent ECT(0)", h->ece_acks);
    } else if (h->ece_runs_without_cwr > 0 && h->ece_runs_without_cwr >= h->ece_runs_after_cwr) {
        dv->feedback = EW_FB_DCTCP;
        say(words, dv->feedback_reason,
                 "ECE cleared %u times without a CWR (%u runs ended after CWR): ECE follows CE, "
                 "as DCTCP echoes it",
                 h->ece_runs_without_cwr, h->ece_runs_after_cwr);
    } else if (h->ece_runs > 0) {
        dv->feedback = EW_FB_RFC3168;
        say(words, dv->feedback_reason,
                 "ECE latched %u time%s (%u ACKs), each cleared only after a CWR", h->ece_runs,
                 h->ece_runs == 1 ? "" : "s", h->ece_acks);
    } else {
        dv->feedback = EW_FB_RFC3168;
        say(words, dv->feedback_reason,
                 "classic ECN negotiated; no ECE seen, so RFC 3168 latching and DCTCP echo "
                 "could not be told apart");
    }
    if (h->ce_seen > 0 && h->ece_acks > 0 && h->ce_unechoed == 0)
        dv->fb_checked_exact = true;
    if (h->ece_runs > 0 && h->ce_seen == 0)
        dv->marks_downstream = true;
}

static void
conclude_ect1(const struct ew_flow *f, int d, enum mode m, struct ew_dir_verdict *dv,
              bool words)
{
    const struct ew_half *h = &f->inf->half[d];
    uint64_t e0 = data_cp(f, d, EW_ECN_ECT_0), e1 = data_cp(f, d, EW_ECN_ECT_1);
    bool seen = f->dir[d].ecn[EW_ECN_ECT_1] > 0;
    bool fb_e1 = m == MODE_ACCECN && h->opt_seen[EW_ACC_E1B] && h->opt_total[EW_ACC_E1B] > 0;
    bool esce = m == MODE_CLASSIC && h->esce_acks > 0;
    /* ECT(1) from the first data segment on, nearly throughout: the sender's */
    bool sender_e1 = h->first_data_ecn_set && h->first_data_ecn == EW_ECN_ECT_1 &&
                     e1 * 10 >= (e0 + e1) * 9;
    /* the sender starts ECT(0), ECT(1) comes and goes: the network re-marks */
    bool network_e1 = e1 > 0 && !sender_e1 && e0 > 0 && h->first_data_ecn_set &&
                      h->first_data_ecn == EW_ECN_ECT_0;

    dv->sender_ect1 = sender_e1;
    dv->network_ect1 = network_e1;
    dv->sender_cp = ew_dir_sender_codepoint(f, d);
    if (network_e1 && data_cp(f, d, EW_ECN_NOT_ECT) == 0)
        dv->sender_cp = "ect0"; /* the ECT(1) is the network's marking */

    if (!seen && !fb_e1 && !esce) {
        dv->ect1 = EW_ECT1_NONE;
        say(words, dv->ect1_reason, "no ECT(1) seen or reported");
        return;
    }
    if (m == MODE_ACCECN) {
        if (sender_e1) {
            dv->ect1 = EW_ECT1_L4S;
            say(words, dv->ect1_reason,
                     "the sender marks ECT(1) from its first data segment (frame %llu) and has "
                     "AccECN feedback: the L4S identifier (RFC 9331)",
                     (unsigned long long)h->first_data_frame);
        } else if (network_e1 || (!seen && fb_e1 && e0 > 0)) {
            dv->ect1 = EW_ECT1_CONFLICT;
            say(words, dv->ect1_reason,
                     "an ECT(0) sender's AccECN connection gets ECT(1) %s: SCE-style marking "
                     "meets L4S accurate feedback",
                     seen ? "in runs on the path" : "reported by EE1B");
        } else {
            dv->ect1 = EW_ECT1_AMBIGUOUS;
            say(words, dv->ect1_reason,
                     "ECT(1) on an AccECN connection, but not from the first data segment nor "
                     "in runs after ECT(0): sender L4S or path remarking");
        }
        return;
    }
    if (m == MODE_CLASSIC) {
        if (sender_e1) {
            if (h->esce_acks * 2 >= h->fb_segments && h->fb_segments > 0) {
                dv->ect1 = EW_ECT1_CONFLICT;
                say(words, dv->ect1_reason,
                         "an ECT(1) sender (L4S identifier) meets a receiver echoing ESCE on %u "
                         "of %u ACKs: it reads every ECT(1) as SCE",
                         h->esce_acks, h->fb_segments);
            } else {
                dv->ect1 = EW_ECT1_AMBIGUOUS;
                say(words, dv->ect1_reason,
                         "ECT(1) from the first data segment but only classic feedback: an L4S "
                         "sender without AccECN, or remarked before this point");
            }
        } else if ((network_e1 && h->esce_after_ect1 > 0) || (!seen && esce && e0 > 0)) {
            dv->ect1 = EW_ECT1_SCE;
            say(words, dv->ect1_reason,
                     "the sender sends ECT(0); %s and the receiver echoes ESCE: SCE marking",
                     seen ? "ECT(1) appears in runs on the path" : "no ECT(1) here yet");
        } else if (network_e1) {
            dv->ect1 = EW_ECT1_AMBIGUOUS;
            say(words, dv->ect1_reason,
                     "ECT(1) in runs on an ECT(0) sender's data but no ESCE: an SCE AQM with a "
                     "legacy receiver, or ECT(0)->ECT(1) remarking");
        } else {
            dv->ect1 = EW_ECT1_AMBIGUOUS;
            say(words, dv->ect1_reason,
                     "ECT(1) or ESCE without a pattern that tells L4S from SCE");
        }
        return;
    }
    dv->ect1 = EW_ECT1_AMBIGUOUS;
    say(words, dv->ect1_reason,
             "ECT(1) on a flow without ECN feedback: neither L4S nor SCE can work here");
}

static void
conclude_vantage(const struct ew_flow *f, struct ew_flow_verdict *v, bool words)
{
    const struct ew_infer *in = f->inf;
    int d;

    if (in->syn_ns && in->synack_ns && in->ack3_ns && in->synack_ns >= in->syn_ns &&
        in->ack3_ns >= in->synack_ns) {
        int64_t t1 = in->synack_ns - in->syn_ns, t2 = in->ack3_ns - in->synack_ns;
        int64_t tot = t1 + t2;

        if (tot > 0 && tot < 100000) {
            v->vantage = EW_VANT_UNKNOWN;
            say(words, v->vantage_reason,
                     "SYN to ACK took %.3f ms: too short to tell the two ends apart",
                     (double)tot / 1e6);
            return;
        }
        if (tot > 0) {
            if (t2 * 10 <= tot)
                v->vantage = EW_VANT_CLIENT;
            else if (t1 * 10 <= tot)
                v->vantage = EW_VANT_SERVER;
            else
                v->vantage = EW_VANT_MIDDLE;
            say(words, v->vantage_reason,
                     "SYN to SYN-ACK %.3f ms, SYN-ACK to ACK %.3f ms", (double)t1 / 1e6,
                     (double)t2 / 1e6);
            return;
        }
    }
    /* no usable handshake: AccECN feedback that matches the marks seen exactly
     * shows the capture point at that direction's receiver */
    for (d = 0; d < 2; d++) {
        const struct ew_half *h = &in->half[d];

        uint32_t mism = v->neg_inferred ? h->ace_rel_mismatch : h->ace_mismatch;

        if (v->mode_accecn && h->ace_segments >= 3 && mism == 0 && h->ce_seen > 0) {
            bool c2s = d == f->client_dir;

            v->vantage = c2s ? EW_VANT_SERVER : EW_VANT_CLIENT;
            say(words, v->vantage_reason,
                     "the %s ACE follows the %u CE arrivals seen here on every one of %u "
                     "segments: the capture point sees what the %s receives",
                     c2s ? "server's" : "client's", h->ce_seen, h->ace_segments,
                     c2s ? "server" : "client");
            return;
        }
    }
    v->vantage = EW_VANT_UNKNOWN;
    say(words, v->vantage_reason, "no complete handshake and no exact feedback");
}

static void
conclude(const struct ew_flow *f, struct ew_flow_verdict *v, bool words)
{
    int d, c2s = f->client_dir, main_dir;
    enum mode m;
    struct ew_dir_verdict *mv;
    const char *cp;

    memset(v, 0, sizeof(*v));
    v->neg = ew_flow_negotiation(f);
    if (v->neg == EW_NEG_UNSEEN && f->key.l4 == EW_L4_TCP) {
        v->neg_inferred = true;
        m = mode_of(infer_mode(f, v, words));
    } else {
        m = mode_of(v->neg);
    }
    v->mode_accecn = m == MODE_ACCECN;
    main_dir = f->dir[c2s ^ 1].payload_bytes > f->dir[c2s].payload_bytes ? c2s ^ 1 : c2s;
    v->main_dir = main_dir;

    if (f->key.l4 != EW_L4_TCP) {
        for (d = 0; d < 2; d++) {
            v->dir[d].feedback = EW_FB_UNKNOWN;
            v->dir[d].ect1 = f->dir[d].ecn[EW_ECN_ECT_1] ? EW_ECT1_AMBIGUOUS : EW_ECT1_NONE;
            say(words, v->dir[d].feedback_reason, "no transport feedback visible");
            say(words, v->dir[d].ect1_reason, "%s",
                     f->dir[d].ecn[EW_ECN_ECT_1] ? "ECT(1) without visible feedback"
                                                 : "no ECT(1) seen");
        }
        for (d = 0; d < 2; d++)
            v->dir[d].sender_cp = ew_dir_sender_codepoint(f, d);
        cp = v->dir[main_dir].sender_cp;
        if (!strcmp(cp, "not_ect") || !strcmp(cp, "none")) {
            v->verdict = EW_V_NOT_ECN;
            say(words, v->reason, "no ECT on this flow's packets");
        } else {
            v->verdict = EW_V_UNKNOWN;
            say(words, v->reason,
                     "ECN-capable packets (%s) but no feedback this version can read", cp);
        }
        v->vantage = EW_VANT_UNKNOWN;
        say(words, v->vantage_reason, "not TCP");
        return;
    }
    for (d = 0; d < 2; d++) {
        conclude_feedback(f, d, m, v->neg_inferred, &v->dir[d], words);
        conclude_ect1(f, d, m, &v->dir[d], words);
    }
    conclude_vantage(f, v, words);

    mv = &v->dir[main_dir];
    cp = mv->sender_cp;
    if (f->inf->half[main_dir].data_pkts == 0) {
        v->verdict = EW_V_UNKNOWN;
        say(words, v->reason, "no data segments seen");
    } else if (m == MODE_NONE) {
        v->verdict = EW_V_NOT_ECN;
        say(words, v->reason, "no ECN negotiated (%s)%s", ew_neg_name[v->neg],
                 strcmp(cp, "not_ect") ? "; yet the data carries ECT" : "");
    } else if (mv->ect1 == EW_ECT1_CONFLICT) {
        v->verdict = EW_V_CONFLICT;
        say(words, v->reason, "%s", mv->ect1_reason);
    } else if (mv->ect1 == EW_ECT1_AMBIGUOUS) {
        v->verdict = EW_V_AMBIGUOUS;
        say(words, v->reason, "%s", mv->ect1_reason);
    } else if (m == MODE_ACCECN && mv->ect1 == EW_ECT1_L4S) {
        v->verdict = EW_V_L4S;
        say(words, v->reason, "%s", mv->ect1_reason);
    } else if (!strcmp(cp, "not_ect") && data_cp(f, main_dir, EW_ECN_CE) == 0) {
        v->verdict = EW_V_AMBIGUOUS;
        say(words, v->reason,
                 "ECN negotiated but the data is Not-ECT here: the sender's choice, or bleached "
                 "before this point");
    } else if (m == MODE_ACCECN) {
        v->verdict = EW_V_ACCECN_CLASSIC;
        say(words, v->reason, "AccECN feedback with an ECT(0) sender");
    } else if (mv->ect1 == EW_ECT1_SCE || mv->feedback == EW_FB_SCE) {
        v->verdict = EW_V_SCE;
        say(words, v->reason, "%s", mv->ect1 == EW_ECT1_SCE ? mv->ect1_reason
                                                                          : mv->feedback_reason);
    } else if (mv->feedback == EW_FB_DCTCP) {
        v->verdict = EW_V_DCTCP;
        say(words, v->reason, "%s", mv->feedback_reason);
    } else {
        v->verdict = EW_V_CLASSIC;
        say(words, v->reason, "%s", mv->feedback_reason);
    }
}

void
ew_infer_conclude(const struct ew_flow *f, struct ew_flow_verdict *v)
{
    conclude(f, v, true);
}

void
ew_infer_conclude_quiet(const struct ew_flow *f, struct ew_flow_verdict *v)
{
    conclude(f, v, false);
}

/* ---------------------------------------------------------------- evidence */

static const char *const synack_meaning[8] = {
    "no ECN", "classic ECN (RFC 3168)", "AccECN, the SYN arrived Not-ECT",
    "AccECN, the SYN arrived ECT(1)", "AccECN, the SYN arrived ECT(0)",
    "reserved code (RFC 9768 §3.1.3: AccECN)", "AccECN, the SYN arrived CE",
    "the SYN's flags reflected: broken",
};
static const char *const ace_hs_meaning[8] = {
    "0: AccECN zeroed or not in AccECN mode", "1: unused", "the SYN-ACK arrived Not-ECT",
    "the SYN-ACK arrived ECT(1)", "the SYN-ACK arrived ECT(0)", "5: unused",
    "the SYN-ACK arrived CE", "7: unused",
};

static size_t
add(struct ew_evidence *out, size_t n, size_t room, uint64_t frame, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

static size_t
add(struct ew_evidence *out, size_t n, size_t room, uint64_t frame, const char *fmt, ...)
{
    va_list ap;

    if (frame == 0 || n >= room)
        return n;
    out[n].frame = frame;
    va_start(ap, fmt);
    ew_vformat(out[n].note, sizeof(out[n].note), fmt, ap);
    va_end(ap);
    return n + 1;
}

static int
cmp_evidence(const void *a, const void *b)
{
    const struct ew_evidence *x = a, *y = b;

    return (x->frame > y->frame) - (x->frame < y->frame);
}

size_t
ew_infer_evidence(const struct ew_flow *f, const struct ew_flow_verdict *v,
                  struct ew_evidence *out, size_t room)
{
    const struct ew_infer *in = f->inf;
    size_t n = 0;
    int d, c2s = f->client_dir;
    unsigned a;

    if (f->key.l4 != EW_L4_TCP)
        return 0;
    if (f->hs.syn_count) {
        a = ew_tcp_ace(f->hs.syn_flags);
        n = add(out, n, room, f->hs.syn_frame, "SYN %s (AE,CWR,ECE = %u,%u,%u), IP %s",
                a == 7 ? "requests AccECN" : a == 3 ? "requests classic ECN" : a == 0 ? "without ECN" : "with an anomalous ECN setup",
                (a >> 2) & 1, (a >> 1) & 1, a & 1, ew_ecn_name[f->hs.syn_ecn & 3]);
    }
    if (f->hs.synack_count) {
        a = ew_tcp_ace(f->hs.synack_flags);
        n = add(out, n, room, f->hs.synack_frame, "SYN-ACK (AE,CWR,ECE = %u,%u,%u): %s, IP %s",
                (a >> 2) & 1, (a >> 1) & 1, a & 1,
                ew_tcp_ace(f->hs.syn_flags) == 7 ? synack_meaning[a]
                : a == 1                          ? "classic ECN (RFC 3168)"
                : a == 0                          ? "no ECN"
                                                  : "not a valid answer to this SYN",
                ew_ecn_name[f->hs.synack_ecn & 3]);
    }
    if (v->neg == EW_NEG_ACCECN && in->ack3_seen)
        n = add(out, n, room, in->ack3_frame, "ACK of the SYN-ACK, ACE %u: %s", in->ack3_ace,
                ace_hs_meaning[in->ack3_ace & 7]);
    if (v->neg_inferred && in->first_accecn_opt_frame)
        n = add(out, n, room, in->first_accecn_opt_frame,
                "AccECN option without a captured handshake");
    for (d = 0; d < 2; d++) {
        const struct ew_half *h = &in->half[d];
        const char *dn = d == c2s ? "c2s" : "s2c";
        const char *rn = d == c2s ? "s2c" : "c2s";

        if (h->first_data_frame)
            n = add(out, n, room, h->first_data_frame, "first %s data segment is %s", dn,
                    ew_ecn_name[h->first_data_ecn_set ? h->first_data_ecn & 3 : EW_ECN_CE]);
        if (h->first_ect1_frame && h->first_ect1_frame != h->first_data_frame)
            n = add(out, n, room, h->first_ect1_frame, "first ECT(1) on %s data (%u ECT(0)->ECT(1) changes)",
                    dn, h->ect1_runs);
        if (h->first_ce_frame)
            n = add(out, n, room, h->first_ce_frame, "first CE on %s (%u CE packets)", dn,
                    h->ce_seen);
        if (mode_of(v->neg_inferred ? EW_NEG_UNSEEN : v->neg) != MODE_ACCECN || v->neg_inferred) {
            if (h->first_ece_frame && v->dir[d].feedback != EW_FB_ACCECN)
                n = add(out, n, room, h->first_ece_frame, "first ECE on %s feedback for %s data",
                        rn, dn);
            if (h->first_ece_off_frame && v->dir[d].feedback == EW_FB_DCTCP)
                n = add(out, n, room, h->first_ece_off_frame,
                        "ECE cleared on %s without a CWR from the sender", rn);
            if (h->first_cwr_frame && v->dir[d].feedback != EW_FB_ACCECN)
                n = add(out, n, room, h->first_cwr_frame, "first CWR on %s", dn);
            if (h->first_esce_frame && v->dir[d].feedback == EW_FB_SCE)
                n = add(out, n, room, h->first_esce_frame, "first ESCE on %s (%u segments)", rn,
                        h->esce_acks);
        }
        if (v->dir[d].feedback == EW_FB_ACCECN) {
            if (h->first_ace_change_frame)
                n = add(out, n, room, h->first_ace_change_frame,
                        "ACE on %s first counts a CE (%llu CE reported in all)", rn,
                        (unsigned long long)h->cep_reported);
            if (h->first_ace_mismatch_frame && h->ce_seen)
                n = add(out, n, room, h->first_ace_mismatch_frame,
                        "ACE on %s differs from the CE arrivals seen here", rn);
            if (h->first_opt_frame)
                n = add(out, n, room, h->first_opt_frame,
                        "first AccECN option on %s (feedback on %s data): EE0B %llu, ECEB %llu, "
                        "EE1B %llu bytes in all",
                        rn, dn, (unsigned long long)h->opt_total[EW_ACC_E0B],
                        (unsigned long long)h->opt_total[EW_ACC_CEB],
                        (unsigned long long)h->opt_total[EW_ACC_E1B]);
        }
    }
    qsort(out, n, sizeof(*out), cmp_evidence);
    return n;
}

/* ---------------------------------------------------------------- path */

const char *const ew_aqm_name[] = {
    [EW_AQM_NONE_SEEN] = "none_seen", [EW_AQM_L4S] = "l4s_shallow",
    [EW_AQM_CLASSIC] = "classic_single_queue", [EW_AQM_SCE] = "sce",
    [EW_AQM_DROP_TAIL] = "drop_tail", [EW_AQM_UNKNOWN] = "unknown",
};

/* Heuristic thresholds (the L4S operational guidance and TCP Prague's
 * classic-ECN detector use the same orders of magnitude): an L4S AQM marks at
 * about a millisecond of queue, a classic one (CoDel's 5 ms target, RED,
 * PIE) at several. */
#define QD_SHALLOW_US 2000
#define QD_CLASSIC_US 3000

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
                      (v->vantage != EW_VANT_UNKNOWN || h->rtt_min >= 500000);

    if (dv->ect1 == EW_ECT1_SCE || dv->feedback == EW_FB_SCE ||
        (dv->network_ect1 && !v->mode_accecn)) {
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
    } else if (marks > 0 && h->qd_marks_sum_us <= (uint64_t)QD_SHALLOW_US * h->qd_marks) {
        p->aqm = EW_AQM_L4S;
        snprintf(p->reason, EW_REASON_LEN,
                 "%llu marks at %.1f ms of queueing delay on average: a shallow, L4S-style AQM",
                 (unsigned long long)marks, p->qdelay_at_marks_ms);
    } else if (marks > 0 && h->qd_marks_sum_us >= (uint64_t)QD_CLASSIC_US * h->qd_marks) {
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
    } else if (h->retrans > 0 && h->qd_n && !at_receiver && h->qd_max_us >= QD_CLASSIC_US) {
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
