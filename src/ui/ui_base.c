/* ui_base.c - what the live view counts from after c (see ui_base.h) */
#include "ui/ui_base.h"

#include <stdlib.h>
#include <string.h>

#include "dissectors/ecn.h"
#include "flow/flowtab.h"

int
ew_ui_base_take(struct ew_ui_base *b, const struct ew_analyzer *an)
{
    struct ew_flowtab_stats st;
    struct ew_flow_iter it;
    const struct ew_flow *f;
    int k;

    b->on = true;
    b->partial = false;
    b->frames = an->tot.frames;
    b->ip_packets = an->tot.ip_packets;
    for (k = 0; k < 4; k++)
        b->ecn[k] = an->tot.ecn[k];
    ew_flowtab_get_stats(an->tab, &st);
    b->created = st.created;
    b->findings = 0;
    for (k = 0; k < EW_MU_COUNT; k++)
        b->findings += an->evicted_findings[k];
    b->drops_pending = true;
    b->n = 0;
    if (st.in_table > b->cap) {
        size_t cap = st.in_table + st.in_table / 4 + 16;

        free(b->f);
        b->f = malloc(cap * sizeof(*b->f));
        b->cap = b->f ? cap : 0;
    }
    /* the flows held, by id */
    ew_flow_iter_start(&it, an->tab, EW_ITER_HELD, 0);
    if (it.nomem || (st.in_table && !b->f)) {
        ew_flow_iter_end(&it);
        b->partial = true;
        return -1;
    }
    while ((f = ew_flow_iter_next(&it)) != NULL && b->n < b->cap) {
        struct ew_ui_base_flow *bf = &b->f[b->n++];
        int d;

        bf->id = f->id;
        for (d = 0; d < 2; d++) {
            bf->pkts[d] = f->dir[d].packets;
            for (k = 0; k < 4; k++)
                bf->ecn[d][k] = f->dir[d].ecn[k];
        }
    }
    ew_flow_iter_end(&it);
    return 0;
}

void
ew_ui_base_free(struct ew_ui_base *b)
{
    free(b->f);
    memset(b, 0, sizeof(*b));
}

const struct ew_ui_base_flow *
ew_ui_base_find(const struct ew_ui_base *b, uint64_t id)
{
    size_t lo = 0, hi = b->n;

    if (!b->on)
        return NULL;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;

        if (b->f[mid].id < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < b->n && b->f[lo].id == id ? &b->f[lo] : NULL;
}

static uint64_t
since(uint64_t now, uint64_t then)
{
    return now > then ? now - then : 0;
}

size_t
ew_ui_base_rows(const struct ew_ui_base *b, struct ew_snapshot *s, const struct ew_flowtab *tab,
                struct ew_flow_room *room)
{
    size_t i, j = 0, m = 0, again = 0;

    if (!b->on)
        return 0;
    for (i = 0; i < s->n; i++) {
        struct ew_snap_row *r = &s->rows[i];
        const struct ew_ui_base_flow *bf;
        const struct ew_flow *f;
        uint64_t pk;

        /* both in id order */
        while (j < b->n && b->f[j].id < r->id)
            j++;
        bf = j < b->n && b->f[j].id == r->id ? &b->f[j] : NULL;
        if (bf) {
            f = ew_flowtab_view(tab, r->ref, room);
            r->pkts = since(f->dir[0].packets, bf->pkts[0]) + since(f->dir[1].packets, bf->pkts[1]);
            if (!r->pkts)
                continue; /* nothing since c */
            pk = since(f->dir[r->dir].packets, bf->pkts[r->dir]);
            r->ce = pk ? (double)since(f->dir[r->dir].ecn[EW_ECN_CE], bf->ecn[r->dir][EW_ECN_CE]) /
                             (double)pk
                       : 0;
            r->e1 = pk ? (double)since(f->dir[r->dir].ecn[EW_ECN_ECT_1],
                                       bf->ecn[r->dir][EW_ECN_ECT_1]) /
                             (double)pk
                       : 0;
            again++;
        }
        s->rows[m++] = *r;
    }
    s->n = m;
    return again;
}

void
ew_ui_base_dir(const struct ew_ui_base *b, const struct ew_flow *f, int d,
               struct ew_dir_stats *out)
{
    const struct ew_ui_base_flow *bf = ew_ui_base_find(b, f->id);
    int k;

    *out = f->dir[d];
    if (!bf)
        return;
    out->packets = since(f->dir[d].packets, bf->pkts[d]);
    for (k = 0; k < 4; k++)
        out->ecn[k] = since(f->dir[d].ecn[k], bf->ecn[d][k]);
}
