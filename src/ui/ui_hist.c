/* ui_hist.c - the live view's short history (see ui_hist.h) */
#include "ui/ui_hist.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "dissectors/ecn.h"
#include "flow/flowtab.h"
#include "infer/infer.h"
#include "output/snapshot.h"

static bool
wanted(uint64_t id, const uint64_t *want, int nwant)
{
    int j;

    for (j = 0; j < nwant; j++)
        if (want[j] == id)
            return true;
    return false;
}

const struct ew_hist *
ew_hist_get(const struct ew_hist_set *hs, uint64_t id)
{
    int i;

    for (i = 0; i < EW_HIST_FLOWS; i++)
        if (hs->h[i].id == id)
            return &hs->h[i];
    return NULL;
}

/* the slot of flow id, or a new one; NULL when every slot is wanted */
static struct ew_hist *
slot_for(struct ew_hist_set *hs, uint64_t id, const uint64_t *want, int nwant)
{
    int i, free_slot = -1;

    for (i = 0; i < EW_HIST_FLOWS; i++) {
        if (hs->h[i].id == id)
            return &hs->h[i];
        if (free_slot < 0 && hs->h[i].id == 0)
            free_slot = i;
    }
    /* reuse a slot of a flow no longer on screen */
    for (i = 0; i < EW_HIST_FLOWS && free_slot < 0; i++)
        if (!wanted(hs->h[i].id, want, nwant))
            free_slot = i;
    if (free_slot < 0)
        return NULL;
    memset(&hs->h[free_slot], 0, sizeof(hs->h[free_slot]));
    hs->h[free_slot].id = id;
    return &hs->h[free_slot];
}

static uint16_t
clamp16(uint64_t v)
{
    return v > 65535 ? 65535 : (uint16_t)v;
}

/* a delay above its minimum (ns) as the history keeps it: us + 1, 0 when
 * there is no sample */
static uint32_t
qd_plus1(uint32_t samples, int64_t last, int64_t min)
{
    int64_t us = (last - min) / 1000;

    if (!samples || us < 0)
        return 0;
    return us >= UINT32_MAX - 1 ? UINT32_MAX : (uint32_t)us + 1;
}

/* one second of flow f into its history h */
static void
record(struct ew_hist *h, const struct ew_flow *f)
{
    int d = ew_snap_list_dir(f);
    const struct ew_dir_stats *s = &f->dir[d];

    if (h->n > 0 || h->pkts > 0) {
        h->s_pkts[h->pos] = clamp16(s->packets - h->pkts);
        h->s_ce[h->pos] = clamp16(s->ecn[EW_ECN_CE] - h->ce);
        h->s_e1[h->pos] = clamp16(s->ecn[EW_ECN_ECT_1] - h->e1);
        h->s_rtt_us[h->pos] = (uint32_t)(f->inf->half[d].rtt_last / 1000);
        h->s_qd_seq[h->pos] = qd_plus1(f->inf->half[d].rtt_samples, f->inf->half[d].rtt_last,
                                       f->inf->half[d].rtt_min);
        h->s_qd_up[h->pos] = qd_plus1(f->inf->half[d ^ 1].ts.samples, f->inf->half[d ^ 1].ts.last,
                                      f->inf->half[d ^ 1].ts.min);
        h->pos = (uint8_t)((h->pos + 1) % EW_HIST_LEN);
        if (h->n < EW_HIST_LEN)
            h->n++;
    }
    h->pkts = s->packets;
    h->ce = s->ecn[EW_ECN_CE];
    h->e1 = s->ecn[EW_ECN_ECT_1];
}

void
ew_hist_sample(struct ew_hist_set *hs, const struct ew_analyzer *an, const uint64_t *want,
               int nwant)
{
    struct ew_flow_iter it;
    const struct ew_flow *f;

    ew_flow_iter_start(&it, an->tab, EW_ITER_HELD, 0);
    while ((f = ew_flow_iter_next(&it)) != NULL) {
        struct ew_hist *h;

        if (!wanted(f->id, want, nwant))
            continue;
        h = slot_for(hs, f->id, want, nwant);
        if (h)
            record(h, f);
    }
    ew_flow_iter_end(&it);
}
