/* qseries.c - the bottleneck analysis's time series (qseries.h) */
#include "infer/qseries.h"

#include <stdlib.h>
#include <string.h>

#include "base/sat.h"
#include "dissectors/ecn.h"
#include "flow/flowtab.h"
#include "infer/infer.h"

int
ew_qseries_pool_init(struct ew_qseries_pool *p, uint32_t max_series)
{
    memset(p, 0, sizeof(*p));
    if (max_series == 0)
        return 0;
    p->s = calloc(max_series, sizeof(*p->s));
    p->free_slot = malloc(max_series * sizeof(*p->free_slot));
    if (!p->s || !p->free_slot) {
        ew_qseries_pool_free(p);
        return -1;
    }
    p->cap = max_series;
    while (p->nfree < max_series) {
        p->free_slot[p->nfree] = max_series - 1 - p->nfree;
        p->nfree++;
    }
    return 0;
}

void
ew_qseries_pool_free(struct ew_qseries_pool *p)
{
    free(p->s);
    free(p->free_slot);
    memset(p, 0, sizeof(*p));
}

/* floor(a / b) for b > 0, a of either sign */
static int64_t
floor_div(int64_t a, int64_t b)
{
    int64_t q = a / b;

    return (a % b != 0 && a < 0) ? q - 1 : q;
}

static void
bin_add(struct ew_qbin *a, const struct ew_qbin *b)
{
    a->bytes = ew_sat_add32(a->bytes, b->bytes);
    a->data = ew_sat_add16(a->data, b->data);
    a->ce = ew_sat_add16(a->ce, b->ce);
    a->marks = ew_sat_add16(a->marks, b->marks);
    a->ece = ew_sat_add16(a->ece, b->ece);
    if (b->dn_n && (!a->dn_n || b->dn_min < a->dn_min))
        a->dn_min = b->dn_min;
    if (b->up_n && (!a->up_n || b->up_min < a->up_min))
        a->up_min = b->up_min;
    a->dn_n = ew_sat_add16(a->dn_n, b->dn_n);
    a->up_n = ew_sat_add16(a->up_n, b->up_n);
}

/* Half the resolution, still aligned: bins of width 2w start at multiples of
 * 2w, so bin 0 joins its left neighbour (empty) when t0 is an odd multiple. */
static void
merge(struct ew_qseries *s)
{
    int64_t w2 = s->width * 2, t0 = floor_div(s->t0, w2) * w2;
    unsigned shift = t0 != s->t0 ? 1 : 0, i, n = 0;
    struct ew_qbin nb;

    for (i = 0; i < (unsigned)s->n + shift; i += 2) {
        memset(&nb, 0, sizeof(nb));
        if (i >= shift)
            bin_add(&nb, &s->b[i - shift]);
        if (i + 1 - shift < s->n)
            bin_add(&nb, &s->b[i + 1 - shift]);
        s->b[n++] = nb;
    }
    memset(&s->b[n], 0, sizeof(s->b[0]) * (EW_QS_BINS - n));
    s->n = (uint16_t)n;
    s->t0 = t0;
    s->width = w2;
}

/* the bin of time ts, merging as needed; NULL for a time before the series */
static struct ew_qbin *
bin_at(struct ew_qseries *s, int64_t ts)
{
    int64_t k;

    if (ts < s->t0)
        return NULL;
    while ((k = (ts - s->t0) / s->width) >= EW_QS_BINS)
        merge(s);
    if (k >= s->n)
        s->n = (uint16_t)(k + 1);
    return &s->b[k];
}

static struct ew_qseries *
take(struct ew_qseries_pool *p, struct ew_flow *f, int dir, int64_t ts)
{
    struct ew_qseries *s;

    if (p->nfree == 0) {
        f->qs_refused |= (uint8_t)(1u << dir);
        p->refused++;
        return NULL;
    }
    s = &p->s[p->free_slot[--p->nfree]];
    memset(s, 0, sizeof(*s));
    s->flow_id = f->id;
    s->width = EW_QS_WIDTH_NS;
    s->t0 = floor_div(ts, s->width) * s->width;
    f->qs[dir] = (uint32_t)(s - p->s) + 1;
    /* what the inference gathered before is not this series' */
    memset(&f->inf->half[dir].qa, 0, sizeof(f->inf->half[dir].qa));
    return s;
}

/* an interval as a bin */
static void
bin_of(struct ew_qbin *g, const struct ew_qacc *a)
{
    memset(g, 0, sizeof(*g));
    g->bytes = a->bytes;
    g->data = a->data;
    g->ce = a->ce;
    g->marks = a->marks;
    g->ece = a->ece;
    g->dn_min = a->dn_min;
    g->dn_n = a->dn_n;
    g->up_min = a->up_min;
    g->up_n = a->up_n;
}

/* direction d's interval at time ts: the gathered one goes into its bin
 * when ts is past it, and the one ts is in starts */
static void
advance(struct ew_qseries *s, struct ew_qacc *a, int64_t ts)
{
    struct ew_qbin g, *b;

    if (a->end && ts < a->end)
        return;
    if (a->end && (b = bin_at(s, a->start)) != NULL) {
        bin_of(&g, a);
        bin_add(b, &g);
    }
    memset(a, 0, sizeof(*a));
    if (ts < s->t0)
        ts = s->t0; /* time going backwards lands in the first bin */
    a->start = s->t0 + (ts - s->t0) / s->width * s->width;
    a->end = a->start + s->width;
}

void
ew_qseries_packet(struct ew_qseries_pool *p, struct ew_flow *f, int dir, const struct ew_pkt *pkt,
                  int64_t ts)
{
    struct ew_infer *in = f->inf;
    int d;

    if (!f->qs[dir] && pkt->u.tcp.payload > 0 && !(f->qs_refused & (1u << dir))) {
        if (p->s) {
            take(p, f, dir, ts);
        } else {
            /* no pool: every direction with data is refused, once */
            f->qs_refused |= (uint8_t)(1u << dir);
            p->refused++;
        }
    }
    for (d = 0; d < 2; d++)
        if (f->qs[d] && p->s)
            advance(&p->s[f->qs[d] - 1], &in->half[d].qa, ts);
}

bool
ew_qseries_view(const struct ew_qseries_pool *p, const struct ew_flow *f, int dir,
                struct ew_qseries *out)
{
    const struct ew_qacc *a = &f->inf->half[dir].qa;
    struct ew_qbin g, *b;

    if (!p || !p->s || !f->qs[dir])
        return false;
    *out = p->s[f->qs[dir] - 1];
    if (a->end && (b = bin_at(out, a->start)) != NULL) {
        bin_of(&g, a);
        bin_add(b, &g);
    }
    return true;
}

const struct ew_qseries *
ew_qseries_get(const struct ew_qseries_pool *p, const struct ew_flow *f, int dir)
{
    return p && p->s && f->qs[dir] ? &p->s[f->qs[dir] - 1] : NULL;
}

void
ew_qseries_copy(struct ew_qseries_pool *p, struct ew_flow *df, const struct ew_qseries_pool *from,
                const struct ew_flow *sf)
{
    int d;

    for (d = 0; d < 2; d++) {
        const struct ew_qseries *s = ew_qseries_get(from, sf, d);

        if (!s)
            continue;
        if (!df->qs[d]) {
            if (df->qs_refused & (1u << d))
                continue;
            if (!p->s || p->nfree == 0) {
                df->qs_refused |= (uint8_t)(1u << d);
                p->refused++;
                continue;
            }
            df->qs[d] = p->free_slot[--p->nfree] + 1;
        }
        p->s[df->qs[d] - 1] = *s;
        p->s[df->qs[d] - 1].flow_id = df->id;
    }
}

void
ew_qseries_release(struct ew_qseries_pool *p, struct ew_flow *f)
{
    int d;

    for (d = 0; d < 2; d++) {
        if (f->qs[d] && p->s) {
            p->s[f->qs[d] - 1].flow_id = 0;
            p->free_slot[p->nfree++] = f->qs[d] - 1;
        }
        f->qs[d] = 0;
    }
}
