/* infer.c - the verdict rules of the TCP inference (see infer.h): the
 * negotiation when the handshake was not captured, the feedback each
 * direction gets, what ECT(1) means on it, where the capture point sits,
 * the flow's verdict, and the frames behind them. A pure function of the
 * state infer_track.c keeps as packets pass; infer_path.c reads the same
 * state for the path. Facts and section numbers: RFC 3168, RFC 8257
 * (DCTCP), RFC 9768 (AccECN), RFC 9330/9331 (L4S), draft-morton-tsvwg-sce
 * and draft-grimes-tcpm-tcpsce.
 *
 * About 750 lines, over the usual 600, for a reason: the rules decide in one
 * order (negotiation, then feedback, then ECT(1)'s meaning, then the
 * verdict), each next to the RFC sentence it implements and each reading
 * what the one before concluded; split, the order would be scattered over
 * files that all need the others' intermediate results. */
#include "infer/infer.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dissectors/ecn.h"
#include "flow/flowtab.h"
#include "base/format.h"
#include "infer/negotiation.h"
#include "infer/thresholds.h"

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
data_cp(const struct ew_flow *f, int d, enum ew_ecn cp)
{
    return (uint64_t)f->inf->kind_ecn[d][EW_SEG_DATA][cp] + f->inf->kind_ecn[d][EW_SEG_RETRANS][cp];
}

const char *
ew_dir_sender_codepoint(const struct ew_flow *f, int dir)
{
    const struct ew_dir_stats *d = &f->dir[dir];
    uint64_t n[4];
    int cp, kinds = 0, last = 0;

    if (f->key.l4 == EW_L4_TCP) {
        for (cp = 0; cp < 4; cp++)
            n[cp] = (uint64_t)f->inf->kind_ecn[dir][EW_SEG_DATA][cp] +
                    f->inf->kind_ecn[dir][EW_SEG_RETRANS][cp];
    } else {
        memcpy(n, d->ecn, sizeof(n));
    }
    for (cp = 0; cp < 3; cp++) { /* Not-ECT, ECT(1), ECT(0): CE is the network's */
        if (n[cp]) {
            kinds++;
            last = cp;
        }
    }
    if (kinds == 0)
        return "none";
    if (kinds > 1)
        return "mixed";
    return ew_ecn_key[last];
}

bool
ew_infer_missed(const struct ew_flow *f, int d)
{
    return f->key.l4 == EW_L4_TCP && f->inf->half[d].missed_bytes > 0;
}

bool
ew_infer_copies_left(const struct ew_flow *f)
{
    return (f->dir[0].dups || f->dir[1].dups) && (f->dir[0].dups_unsure || f->dir[1].dups_unsure);
}

/* the handshake was not captured: infer the mode from what followed, from
 * signs one mode shows and the other cannot; where there are none, say so
 * (*unknown) rather than assume one */
static int
infer_mode(const struct ew_flow *f, struct ew_flow_verdict *v, bool *unknown, bool words)
{
    const struct ew_infer *in = f->inf;
    uint64_t ae = f->dir[0].ae + f->dir[1].ae;
    uint64_t segs = in->nonsyn_segments;
    int d;
    bool ect = false, flags = false, latch = false, echo = false;

    *unknown = false;
    if (in->accecn_opt_segments > 0) {
        say(words, v->neg_reason,
                 "handshake not captured; AccECN option on %u segments, first in frame %llu",
                 in->accecn_opt_segments, (unsigned long long)in->first_accecn_opt_frame);
        return EW_NEG_ACCECN;
    }
    /* RFC 9768 §3.2.2: "a Data Receiver MUST encode the three least
     * significant bits of its r.cep counter into the ACE field", on every
     * segment: the counter passes CWR's bit every other mark, where a
     * classic receiver never sets CWR on a pure ACK (RFC 3168 §6.1.2: the
     * sender sets it "in the TCP header of the first new data packet") */
    for (d = 0; d < 2; d++) {
        const struct ew_half *h = &in->half[d];

        if (h->ace_cwr_acks >= EW_INF_ACE_CWR_MIN_ACKS) {
            say(words, v->neg_reason,
                "handshake not captured; %u pure ACKs carry the CWR bit: AccECN's ACE "
                "counter (a classic receiver never sets CWR on a pure ACK)",
                h->ace_cwr_acks);
            return EW_NEG_ACCECN;
        }
        if (h->ce_seen >= EW_INF_ACE_TRACK_MIN_CE && h->ace_changes > 0 &&
            h->ace_segments >= EW_INF_ACE_EXACT_MIN_SEGMENTS && h->ace_rel_mismatch == 0) {
            say(words, v->neg_reason,
                "handshake not captured; the ACE field follows the %u CE arrivals seen here "
                "(mod 8) on all %u feedback segments: AccECN's counter",
                h->ce_seen, h->ace_segments);
            return EW_NEG_ACCECN;
        }
    }
    /* with no CE yet, every AccECN segment carries ACE 0b101: AE set
     * throughout. RFC 9768 §3.2.1: a Data Receiver "initializes its counters
     * to r.cep = 5" */
    if (segs >= EW_INF_AE_MIN_SEGMENTS && ae * EW_INF_AE_SHARE_DEN >= segs * EW_INF_AE_SHARE_NUM &&
        in->ace5_segments > 0) {
        say(words, v->neg_reason,
                 "handshake not captured; AE set on %llu of %llu segments (ACE counter from 5)",
                 (unsigned long long)ae, (unsigned long long)segs);
        return EW_NEG_ACCECN;
    }
    for (d = 0; d < 2; d++) {
        const struct ew_half *h = &in->half[d];

        if (data_cp(f, d, EW_ECN_ECT_0) || data_cp(f, d, EW_ECN_ECT_1) ||
            data_cp(f, d, EW_ECN_CE))
            ect = true;
        if (f->dir[d].ece || f->dir[d].cwr)
            flags = true;
        /* classic signs: ECE held until a CWR (RFC 3168 §6.1.3), or ECE that
         * answers CE seen here with no AE bit anywhere */
        if (h->ece_runs_after_cwr > 0)
            latch = true;
        if (h->ce_seen > 0 && h->ece_acks > 0)
            echo = true;
    }
    if (!ect && !flags && ae == 0) {
        say(words, v->neg_reason,
                 "handshake not captured; no ECT and no ECN flags seen: not ECN-capable");
        return EW_NEG_NONE;
    }
    if (latch || (echo && ae == 0)) {
        say(words, v->neg_reason, "handshake not captured; %s: classic ECN feedback",
            latch ? "ECE held until the sender's CWR"
                  : "ECE answers the CE seen here, and no segment carries the AE bit");
        return EW_NEG_RFC3168;
    }
    if (ect && !flags && ae == 0) {
        /* an AccECN host's segments carry its ACE counter from 5: never
         * all zero for long */
        say(words, v->neg_reason,
            "handshake not captured; ECT on the data and the ECN flags clear on all %llu "
            "segments, where an AccECN host sends its ACE counter from 5: classic ECN",
            (unsigned long long)segs);
        return EW_NEG_RFC3168;
    }
    /* SCE: ESCE (the AE bit) following ECT(1) that arrives in runs on an
     * ECT(0) sender's data (draft-morton-tsvwg-sce) */
    for (d = 0; d < 2; d++) {
        const struct ew_half *h = &in->half[d];

        if (h->esce_after_ect1 > 0 && h->ect1_runs >= 2 && h->first_data_ecn_set &&
            h->first_data_ecn == EW_ECN_ECT_0) {
            say(words, v->neg_reason,
                "handshake not captured; ESCE follows ECT(1) runs on an ECT(0) sender's data: "
                "classic ECN with SCE feedback");
            return EW_NEG_RFC3168;
        }
    }
    *unknown = true;
    say(words, v->neg_reason,
        "handshake not captured; %s, but nothing since tells AccECN's counter from classic "
        "ECE/CWR feedback",
        ect ? "ECT on the data" : "ECN flags on the segments");
    return EW_NEG_RFC3168;
}

static void
conclude_feedback(const struct ew_flow *f, int d, enum mode m, bool inferred, bool unknown,
                  struct ew_dir_verdict *dv, bool words)
{
    const struct ew_half *h = &f->inf->half[d];
    uint64_t e1 = f->dir[d].ecn[EW_ECN_ECT_1];
    uint32_t aside;

    dv->fb_checked_exact = false;
    dv->marks_downstream = false;
    /* runs with no CWR seen, the ones where the capture missed data aside:
     * they tell only when it missed nothing */
    dv->runs_no_cwr = h->ece_runs_without_cwr + (h->missed_bytes ? 0 : h->ece_runs_no_cwr_gap);
    aside = h->ece_runs_in_recovery + h->ece_runs_at_start +
            (h->missed_bytes ? h->ece_runs_no_cwr_gap : 0);
    if (m == MODE_CLASSIC && unknown) {
        dv->feedback = EW_FB_UNKNOWN;
        say(words, dv->feedback_reason,
            "handshake not captured, and the segments since show neither AccECN's counter nor "
            "classic ECE/CWR");
        return;
    }
    switch (m) {
    case MODE_NONE:
        dv->feedback = EW_FB_NONE;
        say(words, dv->feedback_reason, "no ECN feedback negotiated");
        return;
    case MODE_ACCECN:
        dv->feedback = EW_FB_ACCECN;
        say(words, dv->feedback_reason,
                 "AccECN: ACE changed %u times (%llu CE packets reported, %u seen here); "
                 "option on %u segments%s",
                 h->ace_changes, (unsigned long long)h->cep_reported, h->ce_seen,
                 h->opt_segments,
                 h->first_opt_kind == 254 || h->opt_zero_init
                     ? " (a pre-RFC endpoint: experimental option or counters from 0)"
                     : "");
        if (h->ace_segments >= EW_INF_ACE_EXACT_MIN_SEGMENTS &&
            (inferred ? h->ace_rel_mismatch : h->ace_mismatch) == 0 &&
            h->ce_seen > 0 && (inferred || h->opt_segments == 0 || h->opt_mismatch == 0))
            dv->fb_checked_exact = true;
        if (h->cep_reported > h->ce_seen ||
            (h->opt_seen[EW_ACC_CEB] && h->opt_total[EW_ACC_CEB] > h->bytes_seen[EW_ECN_CE]))
            dv->marks_downstream = true;
        return;
    case MODE_CLASSIC:
        break;
    }
    /* Classic ECN: which echo the receiver runs. RFC 3168 §6.1.3: the
     * receiver "continues to set the ECN-Echo flag in all the ACK packets it
     * sends (whether they acknowledge CE data packets or non-CE data packets)
     * until it receives a CWR packet"; RFC 8257 §3.2 (DCTCP): "When sending an
     * ACK, the ECE flag MUST be set if and only if DCTCP.CE is true." ECE
     * cleared without a CWR is the latter. */
    if (h->esce_acks > 0 &&
        (e1 ? h->esce_after_ect1 > 0 : data_cp(f, d, EW_ECN_ECT_0) > 0 && !inferred)) {
        dv->feedback = EW_FB_SCE;
        say(words, dv->feedback_reason,
                 "ESCE (former NS bit) on %u of %u feedback segments, %s; CE by ECE (%u ACKs)",
                 h->esce_acks, h->fb_segments,
                 e1 ? "following ECT(1) arrivals" : "while the sender sent ECT(0)", h->ece_acks);
    } else if (dv->runs_no_cwr > 0) {
        /* evidence, not a majority: one run that clears with no CWR is
         * something RFC 3168 latching cannot produce, while DCTCP runs that
         * outlast a round trip overlap the sender's CWR as latching ones do
         * (digest §3.3: "CWR frequency alone does not separate the two") */
        dv->feedback = EW_FB_DCTCP;
        say(words, dv->feedback_reason,
                 "ECE cleared %u time%s with no CWR from the sender, which RFC 3168 latching "
                 "cannot do: ECE follows CE, as DCTCP echoes it (%u run%s overlapped a CWR)",
                 dv->runs_no_cwr, dv->runs_no_cwr == 1 ? "" : "s",
                 h->ece_runs_after_cwr, h->ece_runs_after_cwr == 1 ? "" : "s");
    } else if (h->ece_runs_after_cwr > 0) {
        dv->feedback = EW_FB_RFC3168;
        if (aside > 0)
            say(words, dv->feedback_reason,
                     "ECE latched %u time%s (%u ACKs); every run that tells cleared only after "
                     "a CWR (%u more ended after a CWR sent just before them, began before the "
                     "capture, or while it missed data)",
                     h->ece_runs, h->ece_runs == 1 ? "" : "s", h->ece_acks, aside);
        else
            say(words, dv->feedback_reason,
                     "ECE latched %u time%s (%u ACKs), each cleared only after a CWR",
                     h->ece_runs, h->ece_runs == 1 ? "" : "s", h->ece_acks);
    } else if (h->ece_runs > 0) {
        char why[96];
        size_t k = 0;

        /* the runs that tell nothing, by cause (only the causes seen) */
        why[0] = '\0';
        if (h->ece_on)
            k += (size_t)snprintf(why + k, sizeof(why) - k, "%sone still on at the end",
                                  k ? ", " : "");
        if (h->ece_runs_in_recovery && k < sizeof(why))
            k += (size_t)snprintf(why + k, sizeof(why) - k, "%s%u after a CWR sent just before them",
                                  k ? ", " : "", h->ece_runs_in_recovery);
        if (h->ece_runs_at_start && k < sizeof(why))
            k += (size_t)snprintf(why + k, sizeof(why) - k, "%s%u on when the capture began",
                                  k ? ", " : "", h->ece_runs_at_start);
        if (h->missed_bytes && h->ece_runs_no_cwr_gap && k < sizeof(why))
            snprintf(why + k, sizeof(why) - k, "%s%u while the capture missed data",
                     k ? ", " : "", h->ece_runs_no_cwr_gap);
        dv->feedback = EW_FB_RFC3168;
        say(words, dv->feedback_reason,
                 "ECE in %u run%s (%u ACKs), none that tells RFC 3168 latching from DCTCP echo "
                 "(%s)",
                 h->ece_runs, h->ece_runs == 1 ? "" : "s", h->ece_acks, why);
    } else {
        dv->feedback = EW_FB_RFC3168;
        say(words, dv->feedback_reason,
                 "classic ECN %s; no ECE seen, so RFC 3168 latching and DCTCP echo "
                 "could not be told apart",
                 inferred ? "inferred" : "negotiated");
    }
    if (h->ce_seen > 0 && h->ece_acks > 0 && h->ce_unechoed == 0)
        dv->fb_checked_exact = true;
    if (h->ece_runs > 0 && h->ce_seen == 0)
        dv->marks_downstream = true;
}

/* the capture point is at the sender of direction d: what d's packets carry
 * here is what the sender chose, before any path */
static bool
vantage_at_sender(const struct ew_flow *f, const struct ew_flow_verdict *v, int d)
{
    return d == f->client_dir ? v->vantage == EW_VANT_CLIENT : v->vantage == EW_VANT_SERVER;
}

/* d's data turns ECT(1) for good after a short ECT(0) prefix, with one
 * switch: an L4S sender whose first write left before its congestion
 * control was an L4S one (iperf3 sends its 37-byte cookie ECT(0), then the
 * Prague data ECT(1), on the heistp field captures). A remarking AQM gives
 * runs instead, and a long ECT(0) phase before them. */
static bool
l4s_after_prefix(const struct ew_half *h, uint64_t e0, uint64_t e1)
{
    uint64_t prefix = e0 >= h->ect0_after_ect1 ? e0 - h->ect0_after_ect1 : 0;
    uint64_t after = e1 + h->ect0_after_ect1;

    return h->first_data_ecn_set && h->first_data_ecn == EW_ECN_ECT_0 && e1 > 0 &&
           prefix <= EW_INF_L4S_PREFIX_MAX_SEGS &&
           prefix * EW_INF_L4S_PREFIX_SHARE_DIV <= e0 + e1 &&
           e1 * EW_INF_SENDER_ECT1_DEN >= after * EW_INF_SENDER_ECT1_NUM;
}

/* what direction d's data and its feedback say of ECT(1) */
struct ect1_signs {
    uint64_t e0, e1; /* data segments ECT(0), ECT(1) */
    uint64_t e1_any; /* packets ECT(1), control packets too */
    bool seen;       /* ECT(1) on the data: on a SYN or pure ACKs alone it does
                      * not outweigh ECT(0) data */
    bool fb_e1;      /* AccECN feedback reports ECT(1) bytes */
    bool esce;       /* classic feedback with ESCE */
    bool prefix;     /* ECT(1) after a short ECT(0) prefix (l4s_after_prefix) */
    bool sender_e1;  /* the sender's ECT(1) */
    bool network_e1; /* the network's ECT(1): runs on an ECT(0) sender's data */
};

static void
ect1_signs(const struct ew_flow *f, int d, enum mode m, const struct ew_flow_verdict *v,
           struct ect1_signs *s)
{
    const struct ew_half *h = &f->inf->half[d];
    bool runs;

    s->e0 = data_cp(f, d, EW_ECN_ECT_0);
    s->e1 = data_cp(f, d, EW_ECN_ECT_1);
    s->e1_any = f->dir[d].ecn[EW_ECN_ECT_1];
    s->seen = s->e1 > 0;
    s->fb_e1 = m == MODE_ACCECN && h->opt_seen[EW_ACC_E1B] && h->opt_total[EW_ACC_E1B] > 0;
    s->esce = m == MODE_CLASSIC && h->esce_acks > 0;
    s->prefix = l4s_after_prefix(h, s->e0, s->e1);
    /* ECT(1) from the first data segment on, nearly throughout: the sender's;
     * or from just after a short ECT(0) prefix */
    s->sender_e1 = (h->first_data_ecn_set && h->first_data_ecn == EW_ECN_ECT_1 &&
                    s->e1 * EW_INF_SENDER_ECT1_DEN >= (s->e0 + s->e1) * EW_INF_SENDER_ECT1_NUM) ||
                   s->prefix;
    /* the sender starts ECT(0), ECT(1) comes and goes: the network re-marks;
     * never where the capture point is at the sender, whose codepoints are
     * its own choice */
    /* runs: ECT(1) comes and goes; one switch to ECT(1) for good is not a
     * run (the sender's change, or the path's, cannot be told) */
    runs = h->ect1_runs >= 2 || (h->ect1_runs == 1 && h->ect0_after_ect1 > 0);
    s->network_e1 = s->e1 > 0 && !s->sender_e1 && s->e0 > 0 && h->first_data_ecn_set &&
                    h->first_data_ecn == EW_ECN_ECT_0 && runs && !vantage_at_sender(f, v, d);
}

/* ECT(1) on a connection with AccECN feedback */
static void
ect1_accecn(const struct ew_half *h, const struct ect1_signs *s, struct ew_dir_verdict *dv,
            bool words)
{
    if (s->sender_e1) {
        dv->ect1 = EW_ECT1_L4S;
        if (s->prefix)
            say(words, dv->ect1_reason,
                "the sender marks ECT(1) from frame %llu on, after %llu ECT(0) segment%s of a "
                "first write, and has AccECN feedback: the L4S identifier (RFC 9331)",
                (unsigned long long)h->first_ect1_frame,
                (unsigned long long)(s->e0 - h->ect0_after_ect1),
                s->e0 - h->ect0_after_ect1 == 1 ? "" : "s");
        else
            say(words, dv->ect1_reason,
                "the sender marks ECT(1) from its first data segment (frame %llu) and has "
                "AccECN feedback: the L4S identifier (RFC 9331)",
                (unsigned long long)h->first_data_frame);
    } else if (s->network_e1 || (!s->seen && s->fb_e1 && s->e0 > 0)) {
        dv->ect1 = EW_ECT1_CONFLICT;
        say(words, dv->ect1_reason,
            "an ECT(0) sender's AccECN connection gets ECT(1) %s: SCE-style marking meets L4S "
            "accurate feedback",
            s->seen ? "in runs on the path" : "reported by EE1B");
    } else {
        dv->ect1 = EW_ECT1_AMBIGUOUS;
        say(words, dv->ect1_reason,
            "ECT(1) on an AccECN connection, but not from the first data segment nor in runs "
            "after ECT(0): sender L4S or path remarking");
    }
}

/* ECT(1) on a connection with classic (RFC 3168) feedback, where ESCE tells
 * an SCE receiver */
static void
ect1_classic(const struct ew_half *h, const struct ect1_signs *s, bool inferred,
             struct ew_dir_verdict *dv, bool words)
{
    if (s->sender_e1) {
        if (h->esce_acks * EW_INF_ESCE_SHARE_DIV >= h->fb_segments && h->fb_segments > 0) {
            dv->ect1 = EW_ECT1_CONFLICT;
            say(words, dv->ect1_reason,
                "an ECT(1) sender (L4S identifier) meets a receiver echoing ESCE on %u of %u "
                "ACKs: it reads every ECT(1) as SCE",
                h->esce_acks, h->fb_segments);
        } else {
            dv->ect1 = EW_ECT1_AMBIGUOUS;
            say(words, dv->ect1_reason,
                "ECT(1) from the first data segment but only classic feedback: an L4S sender "
                "without AccECN, or remarked before this point");
        }
    } else if ((s->network_e1 && h->esce_after_ect1 > 0) ||
               (!s->seen && s->esce && s->e0 > 0 && !inferred)) {
        dv->ect1 = EW_ECT1_SCE;
        say(words, dv->ect1_reason,
            "the sender sends ECT(0); %s and the receiver echoes ESCE: SCE marking",
            s->seen ? "ECT(1) appears in runs on the path" : "no ECT(1) here yet");
    } else if (s->network_e1) {
        dv->ect1 = EW_ECT1_AMBIGUOUS;
        say(words, dv->ect1_reason,
            "ECT(1) in runs on an ECT(0) sender's data but no ESCE: an SCE AQM with a legacy "
            "receiver, or ECT(0)->ECT(1) remarking");
    } else {
        dv->ect1 = EW_ECT1_AMBIGUOUS;
        say(words, dv->ect1_reason, "ECT(1) or ESCE without a pattern that tells L4S from SCE");
    }
}

static void
conclude_ect1(const struct ew_flow *f, int d, enum mode m, const struct ew_flow_verdict *v,
              struct ew_dir_verdict *dv, bool words)
{
    const struct ew_half *h = &f->inf->half[d];
    struct ect1_signs s;

    ect1_signs(f, d, m, v, &s);
    dv->sender_ect1 = s.sender_e1;
    dv->network_ect1 = s.network_e1;
    dv->sender_cp = ew_dir_sender_codepoint(f, d);
    if (s.network_e1 && data_cp(f, d, EW_ECN_NOT_ECT) == 0)
        dv->sender_cp = "ect0"; /* the ECT(1) is the network's marking */
    else if (s.prefix && data_cp(f, d, EW_ECN_NOT_ECT) == 0)
        dv->sender_cp = "ect1"; /* the ECT(0) prefix was the application's first write */

    if (h->data_pkts == 0 && (s.e1_any || s.fb_e1 || s.esce)) {
        dv->ect1 = EW_ECT1_NONE;
        say(words, dv->ect1_reason,
            "no data in this direction, ECT(1) only on its %llu control packets: no ECT(1) "
            "meaning to judge",
            (unsigned long long)s.e1_any);
    } else if (!s.seen && !s.fb_e1 && !s.esce) {
        dv->ect1 = EW_ECT1_NONE;
        if (s.e1_any)
            say(words, dv->ect1_reason,
                "ECT(1) on %llu control packets (a SYN, pure ACKs) but not on the data: no ECT(1) "
                "meaning",
                (unsigned long long)s.e1_any);
        else
            say(words, dv->ect1_reason, "no ECT(1) seen or reported");
    } else if (v->mode_unknown) {
        dv->ect1 = EW_ECT1_AMBIGUOUS;
        say(words, dv->ect1_reason,
            "ECT(1) here, but without the handshake or a sign of the feedback mode it could "
            "be L4S or SCE");
    } else if (m == MODE_ACCECN) {
        ect1_accecn(h, &s, dv, words);
    } else if (m == MODE_CLASSIC) {
        ect1_classic(h, &s, v->neg_inferred, dv, words);
    } else {
        dv->ect1 = EW_ECT1_AMBIGUOUS;
        say(words, dv->ect1_reason,
            "ECT(1) on a flow without ECN feedback: neither L4S nor SCE can work here");
    }
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

        if (tot > 0 && tot < EW_INF_VANTAGE_MIN_HS_NS) {
            v->vantage = EW_VANT_UNKNOWN;
            say(words, v->vantage_reason,
                     "SYN to ACK took %.3f ms: too short to tell the two ends apart",
                     (double)tot / 1e6);
            return;
        }
        if (tot > 0) {
            if (t2 * EW_INF_VANTAGE_SIDE_DIV <= tot)
                v->vantage = EW_VANT_CLIENT;
            else if (t1 * EW_INF_VANTAGE_SIDE_DIV <= tot)
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

        if (v->mode_accecn && h->ace_segments >= EW_INF_ACE_EXACT_MIN_SEGMENTS && mism == 0 &&
            h->ce_seen > 0) {
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
    /* TCP timestamps (RFC 7323): the main direction's TSvals are echoed
     * after the loop from here to its receiver and back, the other way's
     * after the loop to its sender and back; at one end, that end's loop
     * is its own turnaround, a tenth of the other or less */
    d = v->main_dir;
    {
        const struct ew_tsloop *dn = &in->half[d].ts, *up = &in->half[d ^ 1].ts;
        bool c2s = d == f->client_dir;

        if (dn->samples >= EW_INF_VANTAGE_MIN_TS_SAMPLES &&
            up->samples >= EW_INF_VANTAGE_MIN_TS_SAMPLES &&
            dn->min + up->min >= EW_INF_VANTAGE_MIN_HS_NS) {
            if (up->min * EW_INF_VANTAGE_SIDE_DIV <= dn->min)
                v->vantage = c2s ? EW_VANT_CLIENT : EW_VANT_SERVER;
            else if (dn->min * EW_INF_VANTAGE_SIDE_DIV <= up->min)
                v->vantage = c2s ? EW_VANT_SERVER : EW_VANT_CLIENT;
            else
                v->vantage = EW_VANT_MIDDLE;
            say(words, v->vantage_reason,
                "no handshake; TCP timestamps: %.3f ms from here to the data's receiver and "
                "back, %.3f ms to its sender and back",
                (double)dn->min / 1e6, (double)up->min / 1e6);
            return;
        }
    }
    v->vantage = EW_VANT_UNKNOWN;
    say(words, v->vantage_reason, "no complete handshake and no exact feedback");
}

/* not TCP: no transport feedback to read, only the codepoints */
static void
conclude_not_tcp(const struct ew_flow *f, struct ew_flow_verdict *v, int main_dir, bool words)
{
    const char *cp;
    int d, ect_dir;

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
    /* Either direction counts: a UDP flow is often all one way (media, a
     * tunnel's data), and the main direction by payload may be the one that
     * sends Not-ECT. CE counts too: only an ECN-capable packet is marked
     * CE (RFC 3168 §5). */
    ect_dir = -1;
    for (d = 0; d < 2; d++) {
        int k = d == 0 ? main_dir : main_dir ^ 1;
        const uint64_t *n = f->dir[k].ecn;

        if (n[EW_ECN_ECT_0] + n[EW_ECN_ECT_1] + n[EW_ECN_CE] > 0) {
            ect_dir = k;
            break;
        }
    }
    if (ect_dir < 0) {
        v->verdict = EW_V_NOT_ECN;
        say(words, v->reason, "no ECT or CE on this flow's packets in either direction");
    } else {
        const uint64_t *n = f->dir[ect_dir].ecn;

        cp = v->dir[ect_dir].sender_cp;
        v->verdict = EW_V_UNKNOWN;
        say(words, v->reason,
                 "ECN-capable packets from the %s (%s: ECT(0) %llu, ECT(1) %llu, CE %llu of "
                 "%llu), the %s's %s; no feedback this version can read",
                 ect_dir == f->client_dir ? "client" : "server",
                 !strcmp(cp, "none") ? "ce" : cp, (unsigned long long)n[EW_ECN_ECT_0],
                 (unsigned long long)n[EW_ECN_ECT_1], (unsigned long long)n[EW_ECN_CE],
                 (unsigned long long)(n[0] + n[1] + n[2] + n[3]),
                 ect_dir == f->client_dir ? "server" : "client",
                 f->dir[ect_dir ^ 1].packets == 0 ? "packets are not in the capture"
                 : !strcmp(v->dir[ect_dir ^ 1].sender_cp, "not_ect") ? "are Not-ECT"
                 : !strcmp(v->dir[ect_dir ^ 1].sender_cp, "none") ? "are CE only"
                 : !strcmp(v->dir[ect_dir ^ 1].sender_cp, "mixed") ? "codepoints are mixed"
                 : "are ECN-capable too");
    }
    v->vantage = EW_VANT_UNKNOWN;
    say(words, v->vantage_reason, "not TCP");
}

/* the flow's verdict from its mode and the main direction's conclusions */
static void
conclude_verdict(const struct ew_flow *f, struct ew_flow_verdict *v, enum mode m, int main_dir,
                 bool words)
{
    const struct ew_dir_verdict *mv = &v->dir[main_dir];
    const char *cp = mv->sender_cp;

    if (f->inf->half[main_dir].data_pkts == 0) {
        v->verdict = EW_V_UNKNOWN;
        say(words, v->reason, "no data segments seen");
    } else if (m == MODE_NONE) {
        v->verdict = EW_V_NOT_ECN;
        say(words, v->reason, "no ECN negotiated (%s)%s", ew_neg_name[v->neg],
                 strcmp(cp, "not_ect") ? "; yet the data carries ECT" : "");
    } else if (v->mode_unknown) {
        v->verdict = EW_V_UNKNOWN;
        say(words, v->reason,
            "the handshake was not captured and nothing since tells the feedback mode: "
            "classic ECN, DCTCP, AccECN (L4S) or SCE cannot be told apart from this capture");
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

static void
conclude(const struct ew_flow *f, struct ew_flow_verdict *v, bool words)
{
    int d, c2s = f->client_dir, main_dir;
    enum mode m;

    memset(v, 0, sizeof(*v));
    v->neg = ew_flow_negotiation(f);
    if (v->neg == EW_NEG_UNSEEN && f->key.l4 == EW_L4_TCP) {
        v->neg_inferred = true;
        v->neg_as = infer_mode(f, v, &v->mode_unknown, words);
        m = mode_of(v->neg_as);
    } else {
        m = mode_of(v->neg);
    }
    v->mode_accecn = m == MODE_ACCECN;
    main_dir = f->dir[c2s ^ 1].payload_bytes > f->dir[c2s].payload_bytes ? c2s ^ 1 : c2s;
    v->main_dir = main_dir;

    if (f->key.l4 != EW_L4_TCP) {
        conclude_not_tcp(f, v, main_dir, words);
        v->verdict_likely = ew_infer_copies_left(f);
        return;
    }
    /* the vantage first: what ECT(1) means depends on whether the capture
     * point is at the sender */
    conclude_vantage(f, v, words);
    for (d = 0; d < 2; d++) {
        conclude_feedback(f, d, m, v->neg_inferred, v->mode_unknown, &v->dir[d], words);
        conclude_ect1(f, d, m, v, &v->dir[d], words);
    }
    conclude_verdict(f, v, m, main_dir, words);
    v->verdict_likely = v->neg_inferred || ew_infer_missed(f, 0) || ew_infer_missed(f, 1) ||
                        ew_infer_copies_left(f);
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

/* the experimental encoding of the AccECN option (RFC 6994 ExID), which only
 * implementations from before RFC 9768 send (digest §4.6) */
static bool
pre_rfc_option(const struct ew_half *h)
{
    return h->first_opt_kind == 254;
}

/* which of the counters that RFC 9768 starts at 1 started at 0 */
static const char *
zero_fields(const struct ew_half *h)
{
    bool e0 = h->first_opt_has[EW_ACC_E0B] && h->first_opt_val[EW_ACC_E0B] == 0;
    bool e1 = h->first_opt_has[EW_ACC_E1B] && h->first_opt_val[EW_ACC_E1B] == 0;

    return e0 && e1 ? "EE0B and EE1B start at 0" : e0 ? "EE0B starts at 0" : e1 ? "EE1B starts at 0"
                                                                          : "a counter starts at 0";
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
                (a >> 2) & 1, (a >> 1) & 1, a & 1, ew_ecn_name[f->hs.syn_ecn]);
    }
    if (f->hs.synack_count) {
        a = ew_tcp_ace(f->hs.synack_flags);
        n = add(out, n, room, f->hs.synack_frame, "SYN-ACK (AE,CWR,ECE = %u,%u,%u): %s, IP %s",
                (a >> 2) & 1, (a >> 1) & 1, a & 1,
                ew_tcp_ace(f->hs.syn_flags) == 7 ? synack_meaning[a]
                : a == 1                          ? "classic ECN (RFC 3168)"
                : a == 0                          ? "no ECN"
                                                  : "not a valid answer to this SYN",
                ew_ecn_name[f->hs.synack_ecn]);
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
                    ew_ecn_name[h->first_data_ecn_set ? h->first_data_ecn : EW_ECN_CE]);
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
            if (h->first_opt_frame && (pre_rfc_option(h) || h->opt_zero_init))
                n = add(out, n, room, h->first_opt_frame,
                        "the %s's AccECN is pre-RFC (%s%s%s; RFC 9768 §3.2.1 starts EE0B and "
                        "EE1B at 1): its counters count from their first values",
                        d == c2s ? "server" : "client",
                        pre_rfc_option(h) ? (h->first_opt_order ? "experimental option 254, ExID 0xACC1"
                                                                : "experimental option 254, ExID 0xACC0")
                                          : "",
                        pre_rfc_option(h) && h->opt_zero_init ? "; " : "",
                        h->opt_zero_init ? zero_fields(h) : "");
        }
    }
    qsort(out, n, sizeof(*out), cmp_evidence);
    return n;
}
