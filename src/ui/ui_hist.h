/* ui_hist.h - the live view's short history: per second, the packets, CE
 * and ECT(1) marks of the list direction, the last RTT and the last
 * queueing delay from each of the path verdict's sources, for the few
 * flows on screen (the sparklines of the detail pane). A fixed set of
 * slots; a slot of a flow no longer wanted is reused. */
#ifndef ECNWATCH_UI_HIST_H
#define ECNWATCH_UI_HIST_H

#include <stdint.h>

#include "engine/analyze.h"

#define EW_HIST_LEN 60   /* seconds kept: the width of a sparkline */
#define EW_HIST_FLOWS 64 /* flows kept: more than a screen's rows */

struct ew_hist {
    uint64_t id;           /* the flow; 0: a free slot */
    uint64_t pkts, ce, e1; /* counters at the last sample */
    uint8_t n, pos;        /* seconds recorded, and the next one's place */
    uint16_t s_pkts[EW_HIST_LEN], s_ce[EW_HIST_LEN], s_e1[EW_HIST_LEN];
    uint32_t s_rtt_us[EW_HIST_LEN];
    /* the queueing delay, us + 1 (0: no sample): the last data-to-ACK RTT
     * above its minimum, and the last timestamp loop to the direction's
     * sender above its minimum (infer_path.c's two sources) */
    uint32_t s_qd_seq[EW_HIST_LEN], s_qd_up[EW_HIST_LEN];
};

struct ew_hist_set {
    struct ew_hist h[EW_HIST_FLOWS];
};

/* the history of flow id, or NULL */
const struct ew_hist *ew_hist_get(const struct ew_hist_set *hs, uint64_t id);

/* Once per second: record the last second of each wanted flow (the ids
 * want[0..nwant)), taking a free slot for a new one or else the slot of a
 * flow not wanted. */
void ew_hist_sample(struct ew_hist_set *hs, const struct ew_analyzer *an, const uint64_t *want,
                    int nwant);

#endif /* ECNWATCH_UI_HIST_H */
