/* infer.h - ECN inference per flow: the handshake (RFC 3168 §6.1.1, RFC 9768
 * §3.1), the feedback of each half-connection (RFC 3168 latching, DCTCP echo,
 * AccECN ACE and option counters, SCE's ESCE), what ECT(1) means on each
 * direction (L4S or SCE), where the capture point sits, and RTT.
 *
 * ew_infer_tcp() updates a small fixed state per flow as packets pass
 * (infer_track.c); ew_infer_conclude() turns that state into verdicts, and
 * ew_infer_evidence() into the frames and notes behind them (infer.c);
 * ew_infer_path() reads it for what the path did (infer_path.c). The
 * negotiation comes from the handshake (negotiation.h). Conclusions are a
 * pure function of the state, so a report can be built at any time.
 */
#ifndef ECNWATCH_INFER_H
#define ECNWATCH_INFER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dissectors/pkt.h"
#include "flow/flow.h"
#include "infer/negotiation.h"
#include "infer/qdhist.h"

/* Observations about one direction d's data and the feedback on it, which
 * travels in the other direction. */
#define EW_RTT_TIMED 8
/* TSvals waiting for their first echo, per direction (as pping/ePPing) */
#define EW_TS_PENDING 8

/* sequence ranges of one direction the capture point has skipped, tracked at once */
#define EW_HOLES 4

/* A round trip timed from TCP timestamps at the capture point, the way
 * pping and ePPing time it: the first packet seen with a new TSval, going
 * one way, against the first packet coming back whose TSecr echoes it
 * (RFC 7323 §3). half[d].ts holds the TSvals d's packets carry: the loop
 * from the capture point to d's receiver and back. Fixed size, no
 * allocation; a few compares per packet. */
struct ew_tsloop {
    int64_t min, last, srtt;    /* ns */
    uint64_t excess_sum_us;     /* each sample above the running minimum */
    int64_t pend_ts[EW_TS_PENDING];
    uint32_t pend_val[EW_TS_PENDING];
    uint32_t samples, excess_max_us;
    uint32_t newest;            /* the highest TSval seen this way */
    uint8_t excess_hist[EW_QD_BINS]; /* the samples above the running minimum */
    uint8_t head, count;
    bool newest_set;
};

/* What a direction gathers for its bottleneck series (qseries.h) over the
 * interval of packet time [start, end) it is in: its payload, data segments
 * and CE, the marks fed back on it (as the ACE counter counts them and as
 * ECE runs), and the lowest round trip of either loop (units of 10 us); the
 * series takes it when the interval is over. 0 end: none yet. */
struct ew_qacc {
    int64_t start, end;
    uint32_t bytes, dn_min, up_min;
    uint16_t data, ce, marks, ece, dn_n, up_n;
};

/* Laid out for the packet path: what every packet of a bulk flow reads or
 * writes comes first (about five cache lines), the RTT ring next, and what
 * is written once or only on some flows (the evidence frames, the AccECN
 * option state) last. The evidence frames are guarded by `seen`, a bit per
 * frame, so that a packet does not read them to learn they are set. Members
 * are ordered by size within each part, so that the record has no holes. */
struct ew_half {
    /* -- hot: d's packets as they pass, and the feedback on them */
    uint64_t bytes_seen[4];     /* d's payload bytes by codepoint */
    uint64_t cep_reported;      /* sum of ACE increments (mod 8 each) */
    /* queueing delay: RTT above the minimum, overall and when marks are fed back */
    uint64_t qd_sum_us, qd_marks_sum_us;
    /* RTT, data in d against acknowledgements in the other direction (ns) */
    int64_t rtt_min, rtt_last, rtt_srtt;
    int64_t data_last_ns;
    int64_t ece_run_start_ns;   /* the current ECE run's first ACK */
    int64_t cwr_off_run_ns;     /* d's latest CWR sent with no ECE run on: a loss reduction's (0: none) */
    int64_t cwr_ring_ns[4];     /* d's latest CWRs (0: none), the newest at cwr_next - 1 */
    uint64_t last_data_frame;

    struct ew_qacc qa;          /* this interval's part of d's bottleneck series */

    /* d's packets as they pass the capture point */
    uint32_t data_pkts;         /* segments with payload, retransmissions included */
    uint32_t ect1_runs;         /* ECT(0) -> ECT(1) changes between consecutive data segments */
    uint32_t ect0_after_ect1;   /* ECT(0) data segments after the first ECT(1) one */
    uint32_t ce_seen;           /* CE packets, SYNs excepted (what r.cep counts) */
    uint32_t data_after_ece;    /* data segments sent after the first ECE feedback on them */
    uint32_t cwr_seen;
    uint32_t ce_end;            /* sequence end of the latest CE data segment */
    uint32_t retrans;           /* retransmitted data segments: signs of loss */
    uint32_t seq_hi;            /* the highest sequence end seen of d's data (seq_hi_set) */

    /* classic feedback on the other direction's segments */
    uint32_t fb_segments;       /* feedback-carrying segments seen (ACK set, SYN clear) */
    uint32_t ece_acks;
    uint32_t ece_runs, ece_runs_after_cwr, ece_runs_without_cwr;
    /* runs that ended without a CWR but tell nothing: begun soon after a CWR
     * of a loss reduction (which may have cleared the latch), or already on
     * at the first feedback of a mid-flow capture (its CWR may predate it) */
    uint32_t ece_runs_in_recovery, ece_runs_at_start;
    uint32_t ce_unechoed;       /* feedback after a CE arrival without ECE (checked where CE is seen) */
    uint32_t esce_acks;         /* bit 7 (ESCE) set, outside AccECN */
    uint32_t esce_after_ect1;   /* ESCE on feedback following ECT(1) arrivals */

    /* AccECN feedback */
    uint32_t ace_segments, ace_changes;
    uint32_t ace_exact, ace_mismatch; /* ACE == (5 + CE seen) mod 8, where checkable */
    uint32_t ace_rel_exact, ace_rel_mismatch; /* the same check relative to the first ACE */
    uint32_t ace_wrap_ambiguous; /* increments that could hide a wrap of 8 */
    uint32_t ace_zero_first;    /* ACE 0 on the first feedback after the handshake */
    /* pure ACKs on d with the CWR bit set: in AccECN it is part of the ACE
     * counter; a classic receiver sets CWR only on new data (RFC 3168 §6.1.2) */
    uint32_t ace_cwr_acks;
    uint32_t stale_acks;        /* feedback older than some already seen (reordered): not read */

    uint32_t rtt_samples;
    uint32_t ack_max;           /* highest acknowledgement number seen for d's data */
    uint32_t qd_n, qd_max_us;
    uint32_t qd_marks, qd_marks_max_us;

    uint16_t seen;              /* EW_SEEN_* bits: which first_*_frame are set */
    uint8_t first_data_ecn;     /* the first data segment's codepoint that is not CE */
    uint8_t last_data_ecn;
    uint8_t ace_last;
    uint8_t ace_offset;         /* first ACE - (5 + CE seen then): 0 when the handshake was seen */
    uint8_t rtt_head, rtt_count;
    bool rtt_pair;              /* the next new segment is timed: the second of a pair */
    bool first_data_ecn_set;
    bool ce_since_ack;          /* a CE arrived that no feedback segment has covered yet */
    bool ece_on;
    bool cwr_clears;            /* a CWR passed and no CE since: the echo must clear (RFC 3168 §6.1.3) */
    bool cwr_during_run;
    bool ece_run_at_start;      /* the current run was on at the first feedback seen */
    bool ace_init;
    bool ack_init;
    bool first_opt_has[3];
    bool opt_seen[3];           /* the option field has appeared: opt_last[] holds it */
    uint8_t nholes;
    uint8_t cwr_next;
    bool seq_hi_set;
    uint16_t ece_held;          /* ECE on feedback covering data after a CWR, no CE since it (saturates) */

    /* segments being timed: a small FIFO, so that most ACKs give an RTT sample */
    int64_t rtt_ts[EW_RTT_TIMED];
    uint32_t rtt_seq_end[EW_RTT_TIMED];

    /* TSvals of d's packets and their echoes (capture point -> d's receiver -> back) */
    struct ew_tsloop ts;
    /* CE arriving on d: the queue upstream of the capture point at that time,
     * from the other half's loop (capture point -> d's sender -> back) */
    uint64_t ce_up_sum_us;
    uint32_t ce_up_n, ce_up_max_us;
    /* the highest payload rate over EW_INF_RATE_WINDOW_NS windows: near the
     * link's rate when the flow had it to itself for a while */
    int64_t rwin_start;
    uint32_t rwin_bytes, peak_kbps;

    uint64_t first_ece_held_frame; /* (where three bytes and a hole were: no growth) */

    /* -- cold: evidence, the frames where things were first seen (0 = not seen) */
    /* Capture loss: d's data the capture point never saw. A segment that
     * starts past the highest sequence seen opens a gap; a later segment
     * (a retransmission, or reordering) fills it; an acknowledgement that
     * covers what is still missing shows that the receiver got bytes this
     * capture never saw (missed_bytes). At most EW_HOLES gaps are tracked;
     * more are noted (gaps) but not followed. Kept with the cold members:
     * most packets read only seq_hi. */
    uint64_t missed_bytes;
    int64_t gap_last_ns;        /* when the latest gap opened (0: none) */
    uint32_t hole_start[EW_HOLES], hole_end[EW_HOLES];
    uint32_t gaps, missed_gaps; /* gaps opened; gaps (or parts) acknowledged unseen */
    /* ECE runs ended without a CWR while a gap in d's data was open, or had
     * opened since a round trip before the run: the CWR may be in it */
    uint32_t ece_runs_no_cwr_gap;
    /* delays as histograms (EW_QD_BINS): the data-to-ACK samples and those
     * beside each mark fed back; the upstream excess beside each CE seen */
    uint8_t qd_hist[EW_QD_BINS], qd_marks_hist[EW_QD_BINS], ce_up_hist[EW_QD_BINS];
    uint64_t first_data_frame;
    uint64_t first_ce_frame, first_ect1_frame, first_ect0_frame;
    uint64_t first_ect_pure_ack_frame, first_ect_retrans_frame;
    uint64_t first_cwr_frame, first_ece_frame, first_ece_off_frame;
    uint64_t first_ce_unechoed_frame, first_esce_frame;
    uint64_t first_ace_change_frame, first_ace_mismatch_frame;
    uint64_t first_opt_frame, first_opt_mismatch_frame;
    uint64_t first_opt_zeroed_frame;
    int64_t data_first_ns;
    /* the AccECN option counters (only flows that carry the option). Every
     * field's baseline is the first value seen (RFC 9768 starts EE0B and
     * EE1B at 1, pre-RFC endpoints at 0): opt_total counts only what a
     * field moved after that, and opt_base_bytes holds d's payload bytes by
     * codepoint that had passed here when the field first appeared, so that
     * what the counters report is compared with what passed since. */
    uint64_t opt_total[3];      /* bytes the option counters say arrived since their first value */
    uint64_t opt_base_bytes[3]; /* bytes_seen[] of the field's codepoint at its first value */
    uint32_t opt_last[3];       /* last 24-bit field values, enum ew_accecn_field */
    uint32_t opt_segments;
    uint32_t opt_exact, opt_mismatch;
    uint32_t opt_backward;      /* a field below its last value: a superseded ACK, or mangling */
    uint32_t opt_zeroed;        /* ... and 0, after it had counted bytes */
    uint32_t opt_offset[3];     /* as ace_offset: the field minus what passed here, at its start */
    uint32_t first_opt_val[3];
    uint8_t first_opt_kind;     /* 172, 174, or 254 (the experimental encoding, RFC 6994) */
    uint8_t first_opt_order;    /* 0: EE0B first (kind 172, ExID 0xACC0); 1: EE1B first */
    bool opt_zero_init;         /* EE0B or EE1B was 0 in its first value: a pre-RFC endpoint */
    uint32_t cwr_end;           /* sequence end of d's latest CWR segment (cwr_clears) */
};

/* the bits of ew_half.seen, one per first_*_frame set through first() */
enum {
    EW_SEEN_CE = 1u << 0,
    EW_SEEN_ECT1 = 1u << 1,
    EW_SEEN_ECT0 = 1u << 2,
    EW_SEEN_ECT_PURE_ACK = 1u << 3,
    EW_SEEN_ECT_RETRANS = 1u << 4,
    EW_SEEN_CWR = 1u << 5,
    EW_SEEN_ECE = 1u << 6,
    EW_SEEN_ECE_OFF = 1u << 7,
    EW_SEEN_CE_UNECHOED = 1u << 8,
    EW_SEEN_ESCE = 1u << 9,
    EW_SEEN_ACE_CHANGE = 1u << 10,
    EW_SEEN_ACE_MISMATCH = 1u << 11,
    EW_SEEN_OPT = 1u << 12,
    EW_SEEN_OPT_MISMATCH = 1u << 13,
    EW_SEEN_OPT_ZEROED = 1u << 14,
    EW_SEEN_ECE_HELD = 1u << 15,
};

/* what every packet of a flow may touch outside its two halves' hot parts */
#define EW_HALF_HOT_BYTES offsetof(struct ew_half, first_data_frame)

struct ew_infer {
    /* read or written by every packet */
    uint32_t nonsyn_segments;
    uint32_t accecn_opt_segments; /* AccECN options on non-SYN segments, any direction */
    uint32_t ace5_segments;     /* non-SYN segments with ACE exactly 0b101 before any CE */
    uint8_t ack3_ace;           /* ACE of the handshake ACK (reports the SYN-ACK's IP-ECN) */
    bool ack3_seen;
    bool synack_dir_set;
    uint8_t synack_dir;         /* direction of the SYN-ACK (server to client) */
    bool accecn_mode;           /* AccECN so far: negotiated, or an option seen */
    bool accecn_opt_seen;       /* first_accecn_opt_frame is set */
    /* packets by direction (canonical), segment kind and codepoint: kept
     * here, not in the record, since only TCP has segment kinds */
    uint32_t kind_ecn[2][EW_SEG_COUNT][4];
    struct ew_half half[2];     /* indexed by the data direction */
    int64_t syn_ns, synack_ns, ack3_ns;
    uint64_t ack3_frame;
    uint64_t first_accecn_opt_frame;
};

/* the state of a flow that is not TCP: all zero, shared, read only */
extern const struct ew_infer ew_infer_none;
/* struct ew_infer as the flow table keeps and packs it (infer_pack.c) */
extern const struct ew_flow_state ew_infer_state;

enum ew_fb {
    EW_FB_NONE,
    EW_FB_RFC3168,
    EW_FB_DCTCP,
    EW_FB_ACCECN,
    EW_FB_SCE,
    EW_FB_UNKNOWN,
};
extern const char *const ew_fb_name[];

enum ew_ect1 {
    EW_ECT1_NONE,
    EW_ECT1_L4S,
    EW_ECT1_SCE,
    EW_ECT1_AMBIGUOUS,
    EW_ECT1_CONFLICT,
};
extern const char *const ew_ect1_name[];

enum ew_verdict {
    EW_V_NOT_ECN,
    EW_V_CLASSIC,
    EW_V_DCTCP,
    EW_V_ACCECN_CLASSIC,
    EW_V_L4S,
    EW_V_SCE,
    EW_V_CONFLICT,
    EW_V_AMBIGUOUS,
    EW_V_UNKNOWN,
};
extern const char *const ew_verdict_name[];

enum ew_vantage {
    EW_VANT_CLIENT,
    EW_VANT_SERVER,
    EW_VANT_MIDDLE,
    EW_VANT_UNKNOWN,
};
extern const char *const ew_vantage_name[];

#define EW_REASON_LEN 320

struct ew_dir_verdict {
    const char *sender_cp;  /* "not_ect", "ect0", "ect1", "mixed" or "none" */
    enum ew_fb feedback;
    enum ew_ect1 ect1;
    bool sender_ect1;       /* the sender itself marks ECT(1): from the first data segment on */
    bool network_ect1;      /* ECT(1) appears in runs on an ECT(0) sender's data */
    char feedback_reason[EW_REASON_LEN];
    char ect1_reason[EW_REASON_LEN];
    /* where the feedback was checked against the marks seen */
    bool fb_checked_exact; /* every checkable feedback value matched what arrived */
    bool marks_downstream; /* the feedback reports marks the capture point did not see */
    /* ECE runs that ended with no CWR seen and tell DCTCP's echo (those where
     * the capture missed data that may hold the CWR set aside) */
    uint32_t runs_no_cwr;
};

struct ew_flow;

struct ew_flow_verdict {
    int neg;                /* enum ew_neg */
    bool neg_inferred;      /* handshake not captured: mode inferred from what followed */
    int neg_as;             /* neg_inferred: the negotiation the mode was inferred to be (enum ew_neg) */
    /* neg_inferred, and nothing that followed told the mode: classic ECN or
     * AccECN feedback cannot be told apart (the feedback is "unknown") */
    bool mode_unknown;
    bool mode_accecn;       /* AccECN feedback in force (negotiated or inferred) */
    /* the verdict rests on less than the whole story: the handshake was not
     * captured, the capture missed some of the flow's data, or it holds
     * packets that may be copies (ew_infer_copies_left) */
    bool verdict_likely;
    char neg_reason[EW_REASON_LEN];
    enum ew_verdict verdict;
    char reason[EW_REASON_LEN];
    enum ew_vantage vantage;
    char vantage_reason[EW_REASON_LEN];
    int main_dir;           /* the data direction the verdict is about (canonical index) */
    struct ew_dir_verdict dir[2]; /* by canonical direction */
};

/* what kind of AQM marked a direction's packets (a heuristic: see ecnwatch(1)) */
/* The path verdicts: X(ID, name, text), one row each; the enum, the names
 * (ew_aqm_name), ecnwatch --list aqm and the checks of the schema come from
 * this list. The classifier is a table of rules (infer_path.c); the last
 * three are a bottleneck's refinements of classic (bottleneck.c). */
#define EW_AQM_VERDICTS(X) \
    X(NONE_SEEN, "none_seen", "no marks and no sign of a filling queue") \
    X(L4S, "l4s_shallow", "frequent CE at about a millisecond of queueing delay: a shallow, L4S-style AQM") \
    X(CLASSIC, "classic", "CE at several milliseconds or more, when the queue is long: a classic AQM (one flow cannot show whether its queue is shared)") \
    X(SCE, "sce", "ECT(0) turned ECT(1) in runs: an SCE-style AQM") \
    X(DROP_TAIL, "drop_tail", "losses and growing delay, no marks: a drop-tail queue") \
    X(UNKNOWN, "unknown", "not enough to tell, with the reason") \
    X(DUALQ_CLASSIC, "dualq_classic", "a classic AQM that is a DualQ's classic queue, as the flows of its bottleneck show") \
    X(CLASSIC_SINGLE, "classic_single_queue", "a classic AQM whose one queue the flows of its bottleneck share") \
    X(FQ_CLASSIC, "fq_classic", "a classic AQM with a queue per flow, as the flows of its bottleneck show")

enum ew_aqm {
#define EW_X(id, name, text) EW_AQM_##id,
    EW_AQM_VERDICTS(EW_X)
#undef EW_X
    EW_AQM_COUNT
};
extern const char *const ew_aqm_name[EW_AQM_COUNT];
extern const char *const ew_aqm_text[EW_AQM_COUNT];

struct ew_path_verdict {
    enum ew_aqm aqm;
    char reason[EW_REASON_LEN];
    const char *marking; /* "upstream", "downstream", "both" or "none": where the marks were applied */
    double qdelay_at_marks_ms; /* mean, or -1 */
    double qdelay_mean_ms, qdelay_max_ms; /* -1 when no RTT was measured */
    /* the delay's median, p10 and p90 (from its histogram, qdhist.h): the
     * number every output gives for the flow's queueing delay; -1 when
     * not measured */
    double qdelay_median_ms, qdelay_p10_ms, qdelay_p90_ms;
    uint64_t marks;
    /* what the delays were measured from: "data_to_ack" (d's data against
     * its ACKs: the queue downstream of the capture point), "ts_from_sender"
     * (the sender's echoes of the other side's TSvals: the queue upstream),
     * "both" (their sum, on the path), or "none" */
    const char *qdelay_from;
    double serialisation_ms; /* one largest segment at the flow's own rate, or -1 */
    double ce_per_rtt;       /* marks per round trip (ew_infer_path_rtt), or -1 */
    /* the counts behind the verdict: delay samples, marks with a delay
     * sample beside them, and the share of those above the median of the
     * samples (-1: none) */
    uint32_t qdelay_samples;
    uint64_t marks_with_qdelay;
    double marks_above_median;
    /* how sure: certain, likely, or not at all (aqm unknown) */
    bool has_confidence, certain;
    /* aqm unknown for want of marks with a delay beside them (EW_PATH_MIN_MARKS):
     * other flows through the same bottleneck may tell what this one cannot */
    bool few_marks;
    /* a remark beside the verdict (an L4S flow's lost latency), or NULL */
    const char *note;
};

/* The flow's end-to-end round trip (ns, 0 when unknown) as direction d sees
 * it: the handshake's (SYN to the ACK of the SYN-ACK), else the two
 * timestamp loops' smoothed RTTs added (capture point to each end and back),
 * else d's data-to-ACK smoothed RTT. */
int64_t ew_infer_path_rtt(const struct ew_flow *f, int d);

/* The path verdict for direction d (canonical), given the flow's verdict. */
void ew_infer_path(const struct ew_flow *f, int d, const struct ew_flow_verdict *v,
                   struct ew_path_verdict *p);

struct ew_evidence {
    uint64_t frame;
    char note[EW_REASON_LEN];
};

struct ew_flow;
enum ew_seg_kind;

/* Update the flow's inference state with one TCP packet travelling in
 * canonical direction dir; kind is its segment kind. */
void ew_infer_tcp(struct ew_flow *f, const struct ew_pkt *pkt, int dir, int kind,
                  uint64_t frame, int64_t ts_ns);

void ew_infer_conclude(const struct ew_flow *f, struct ew_flow_verdict *v);
/* The same verdicts without their reasons in words (the reason strings are
 * left empty): for callers that only act on the verdicts. */
void ew_infer_conclude_quiet(const struct ew_flow *f, struct ew_flow_verdict *v);

/* The frames behind the verdict, in frame order; returns how many (<= room). */
size_t ew_infer_evidence(const struct ew_flow *f, const struct ew_flow_verdict *v,
                         struct ew_evidence *out, size_t room);

/* The capture of direction d's data is not whole: the receiver
 * acknowledged bytes this capture point never saw (ew_half.missed_bytes). */
bool ew_infer_missed(const struct ew_flow *f, int d);

/* The flow was captured twice over (ew_dir_stats.dups) and holds packets
 * that may be copies the dedupe could not tell from resends (dups_unsure):
 * some of its counts may be double. Unsure packets alone, in a flow with no
 * copy, are taken for the resends they most likely are. */
bool ew_infer_copies_left(const struct ew_flow *f);

/* "not_ect", "ect0", "ect1", "mixed" or "none": the codepoints the sender put
 * on its data (TCP: data and retransmissions; otherwise every packet), CE
 * aside, as seen at the capture point */
const char *ew_dir_sender_codepoint(const struct ew_flow *f, int dir);

#endif /* ECNWATCH_INFER_H */
