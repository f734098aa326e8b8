/* infer_pack.c - the inference state as the flow table keeps and packs it
 * (flow.h's struct ew_flow_state, pack.h): its size, the parts a packet
 * reads first, its packet times and frame numbers, and the relative form of
 * its timed segments and timestamp loops. */
#include "infer/infer.h"

#include <string.h>

#include "flow/pack.h"

_Static_assert(sizeof(struct ew_infer) <= EW_FLOW_STATE_MAX, "the table has room for the state");
_Static_assert(sizeof(struct ew_infer) % 4 == 0, "whole words");

/* the inference state of every flow that is not TCP: all zero, shared,
 * never written */
const struct ew_infer ew_infer_none;

#define H(d, m) offsetof(struct ew_infer, half[d].m)
#define HALF_TIMES(d)                                                                            \
    H(d, data_last_ns), H(d, data_first_ns), H(d, ece_run_start_ns), H(d, cwr_off_run_ns),       \
        H(d, cwr_ring_ns[0]), H(d, cwr_ring_ns[1]), H(d, cwr_ring_ns[2]), H(d, cwr_ring_ns[3]),   \
        H(d, gap_last_ns), H(d, qa.start), H(d, qa.end)
#define HALF_FRAMES(d)                                                                           \
    H(d, last_data_frame), H(d, first_data_frame), H(d, first_ce_frame), H(d, first_ect1_frame), \
        H(d, first_ect0_frame), H(d, first_ect_pure_ack_frame), H(d, first_ect_retrans_frame),   \
        H(d, first_cwr_frame), H(d, first_ece_frame), H(d, first_ece_off_frame),                 \
        H(d, first_ce_unechoed_frame), H(d, first_esce_frame), H(d, first_ece_held_frame),       \
        H(d, first_ace_change_frame),                                                            \
        H(d, first_ace_mismatch_frame), H(d, first_opt_frame), H(d, first_opt_mismatch_frame), \
        H(d, first_opt_zeroed_frame)
static const size_t inf_times[] = {HALF_TIMES(0), HALF_TIMES(1), offsetof(struct ew_infer, syn_ns),
                                   offsetof(struct ew_infer, synack_ns),
                                   offsetof(struct ew_infer, ack3_ns)};
static const size_t inf_frames[] = {HALF_FRAMES(0), HALF_FRAMES(1),
                                    offsetof(struct ew_infer, ack3_frame),
                                    offsetof(struct ew_infer, first_accecn_opt_frame)};
#undef HALF_TIMES
#undef HALF_FRAMES
#undef H

/* The segments being timed are a few round trips old at most: their send
 * times are taken relative to the half's latest data, their sequence ends
 * relative to its highest acknowledgement (or back) */
static void
ring_rel(uint8_t *in, bool back)
{
    for (size_t d = 0; d < 2; d++) {
        uint8_t *h = in + offsetof(struct ew_infer, half) + d * sizeof(struct ew_half);
        uint64_t last;
        uint32_t ack;

        memcpy(&last, h + offsetof(struct ew_half, data_last_ns), sizeof(last));
        memcpy(&ack, h + offsetof(struct ew_half, ack_max), sizeof(ack));
        for (size_t i = 0; i < EW_RTT_TIMED; i++) {
            uint8_t *ts = h + offsetof(struct ew_half, rtt_ts) + i * sizeof(int64_t);
            uint8_t *se = h + offsetof(struct ew_half, rtt_seq_end) + i * sizeof(uint32_t);
            uint64_t t;
            uint32_t q;

            memcpy(&t, ts, sizeof(t));
            memcpy(&q, se, sizeof(q));
            t = ew_pack_rel(t, last, back);
            q = ew_pack_rel32(q, ack, back);
            memcpy(ts, &t, sizeof(t));
            memcpy(se, &q, sizeof(q));
        }
    }
}

/* the timestamp loops of both halves (struct ew_tsloop): the pending
 * TSvals' times and the peak-rate window's start relative to the flow's
 * last packet, the TSvals to the newest seen (or back) */
static void
tsloop_rel(uint8_t *in, uint64_t last_ns, bool back)
{
    for (size_t d = 0; d < 2; d++) {
        uint8_t *h = in + offsetof(struct ew_infer, half) + d * sizeof(struct ew_half);
        uint8_t *l = h + offsetof(struct ew_half, ts);
        uint8_t *w = h + offsetof(struct ew_half, rwin_start);
        uint32_t newest, q;
        uint64_t t;

        memcpy(&newest, l + offsetof(struct ew_tsloop, newest), sizeof(newest));
        for (size_t i = 0; i < EW_TS_PENDING; i++) {
            uint8_t *ts = l + offsetof(struct ew_tsloop, pend_ts) + i * sizeof(int64_t);
            uint8_t *v = l + offsetof(struct ew_tsloop, pend_val) + i * sizeof(uint32_t);

            memcpy(&t, ts, sizeof(t));
            memcpy(&q, v, sizeof(q));
            t = ew_pack_rel(t, last_ns, back);
            q = ew_pack_rel32(q, newest, back);
            memcpy(ts, &t, sizeof(t));
            memcpy(v, &q, sizeof(q));
        }
        memcpy(&t, w, sizeof(t));
        t = ew_pack_rel(t, last_ns, back);
        memcpy(w, &t, sizeof(t));
    }
}

static void
state_rel(uint8_t *state, uint64_t last_ns, bool back)
{
    ring_rel(state, back);
    tsloop_rel(state, last_ns, back);
}

const struct ew_flow_state ew_infer_state = {
    .size = sizeof(struct ew_infer),
    .none = &ew_infer_none,
    /* the hot parts only: the evidence frames are written once */
    .hot_at = {0, offsetof(struct ew_infer, half[1])},
    .hot_len = {offsetof(struct ew_infer, half) + EW_HALF_HOT_BYTES, EW_HALF_HOT_BYTES},
    .times = inf_times,
    .ntimes = sizeof(inf_times) / sizeof(inf_times[0]),
    .frames = inf_frames,
    .nframes = sizeof(inf_frames) / sizeof(inf_frames[0]),
    .rel = state_rel,
};
