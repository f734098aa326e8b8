/* mirror.c - several analyzers seen as one (mirror.h) */
#include "engine/mirror.h"

#include <stdlib.h>
#include <string.h>

#include "infer/qseries.h"

/* a worker's flow taken at a sync */
struct ew_mirror_pick {
    struct ew_flow_key key;
    int64_t first_ns, last_ns;
    uint32_t ref; /* in its worker's table */
    int w;
};

int
ew_mirror_init(struct ew_mirror *m, struct ew_analyzer *an, struct ew_analyzer *const *w, int n)
{
    int i;

    memset(m, 0, sizeof(*m));
    if (n < 1 || n > EW_MIRROR_MAX)
        return -1;
    m->an = an;
    m->n = n;
    for (i = 0; i < n; i++)
        m->w[i] = w[i];
    m->room = malloc(sizeof(*m->room));
    return m->room ? 0 : -1;
}

void
ew_mirror_free(struct ew_mirror *m)
{
    free(m->pick);
    free(m->room);
    m->pick = NULL;
    m->room = NULL;
    m->cap = 0;
}

/* picks by a time of theirs (tx, ty), then key */
static int
by_time(const struct ew_mirror_pick *x, const struct ew_mirror_pick *y, int64_t tx, int64_t ty)
{
    if (tx != ty)
        return tx < ty ? -1 : 1;
    return memcmp(&x->key, &y->key, sizeof(x->key));
}

static int
by_first(const void *a, const void *b)
{
    const struct ew_mirror_pick *x = a, *y = b;

    return by_time(x, y, x->first_ns, y->first_ns);
}

static int
by_last(const void *a, const void *b)
{
    const struct ew_mirror_pick *x = a, *y = b;

    return by_time(x, y, x->last_ns, y->last_ns);
}

static int
grow(struct ew_mirror *m, size_t need)
{
    struct ew_mirror_pick *p;
    size_t cap = m->cap ? m->cap : 1024;

    if (need <= m->cap)
        return 0;
    while (cap < need)
        cap *= 2;
    p = realloc(m->pick, cap * sizeof(*p));
    if (!p)
        return -1;
    m->pick = p;
    m->cap = cap;
    return 0;
}

/* The flows of every worker to bring over: those active since its last
 * sync, or every one held. Returns how many, or -1 out of memory. */
static long
pick(struct ew_mirror *m, bool all)
{
    size_t n = 0;
    int i;

    for (i = 0; i < m->n; i++) {
        struct ew_flowtab_stats st;
        struct ew_flow_iter it;
        const struct ew_flow *f;

        ew_flowtab_get_stats(m->w[i]->tab, &st);
        if (grow(m, n + st.in_table) != 0)
            return -1;
        ew_flow_iter_start(&it, m->w[i]->tab, all ? EW_ITER_HELD : EW_ITER_RECENT,
                           m->synced ? m->since[i] : INT64_MIN);
        if (it.nomem) {
            ew_flow_iter_end(&it);
            return -1;
        }
        while ((f = ew_flow_iter_next(&it)) != NULL)
            m->pick[n++] = (struct ew_mirror_pick){f->key, f->first_ns, f->last_ns, it.ref, i};
        ew_flow_iter_end(&it);
    }
    return (long)n;
}

/* the mirror's ids in the order of first packet, then key */
static int
renumber(struct ew_mirror *m)
{
    struct ew_flowtab *t = m->an->tab;
    struct ew_flowtab_stats st;
    struct ew_flow_iter it;
    const struct ew_flow *f;
    size_t n = 0, i;

    ew_flowtab_get_stats(t, &st);
    if (grow(m, st.in_table) != 0)
        return -1;
    ew_flow_iter_start(&it, t, EW_ITER_HELD, 0);
    if (it.nomem) {
        ew_flow_iter_end(&it);
        return -1;
    }
    while ((f = ew_flow_iter_next(&it)) != NULL)
        m->pick[n++] = (struct ew_mirror_pick){f->key, f->first_ns, f->last_ns, it.ref, 0};
    ew_flow_iter_end(&it);
    if (n > 0)
        qsort(m->pick, n, sizeof(*m->pick), by_first);
    for (i = 0; i < n; i++)
        ew_flowtab_set_id(t, m->pick[i].ref, (uint64_t)(i + 1));
    return 0;
}

static void
sum_totals(struct ew_analyzer *an, struct ew_analyzer *const *w, int n)
{
    struct ew_totals *t = &an->tot;
    int i, k;

    memset(t, 0, sizeof(*t));
    an->have_time = false;
    for (i = 0; i < n; i++) {
        const struct ew_totals *s = &w[i]->tot;

        t->frames += s->frames;
        t->ip_packets += s->ip_packets;
        t->non_ip += s->non_ip;
        t->undecodable += s->undecodable;
        t->truncated += s->truncated;
        t->invalid += s->invalid;
        for (k = 0; k < 4; k++) {
            t->ecn[k] += s->ecn[k];
            t->ecn_bytes[k] += s->ecn_bytes[k];
        }
        for (k = 0; k < EW_EV_COUNT; k++)
            t->events[k] += s->events[k];
        t->duplicates += s->duplicates;
        t->duplicates_unsure += s->duplicates_unsure;
        t->tunnelled += s->tunnelled;
        t->tunnelled_flows += s->tunnelled_flows;
        for (k = 0; k < 16; k++)
            t->tunnel_pair[k >> 2][k & 3] += s->tunnel_pair[k >> 2][k & 3];
        if (!w[i]->have_time)
            continue;
        if (!an->have_time || w[i]->first_ns < an->first_ns)
            an->first_ns = w[i]->first_ns;
        if (!an->have_time || w[i]->last_ns > an->last_ns)
            an->last_ns = w[i]->last_ns;
        an->have_time = true;
    }
}

int
ew_mirror_sync(struct ew_mirror *m, bool final)
{
    struct ew_flowtab *t = m->an->tab;
    long n = pick(m, final), i;
    bool created;

    if (n < 0)
        return -1;
    /* new flows in the order of their first packet, then key (none yet:
     * no scratch to sort) */
    if (n > 0)
        qsort(m->pick, (size_t)n, sizeof(*m->pick), by_first);
    for (i = 0; i < n; i++) {
        const struct ew_mirror_pick *p = &m->pick[i];
        const struct ew_analyzer *w = m->w[p->w];
        const struct ew_flow *from = ew_flowtab_view(w->tab, p->ref, m->room);
        struct ew_flow *f = ew_flowtab_get(t, &p->key, p->first_ns, &created);

        /* a later flow of the same 5-tuple holds the key already: this
         * one ended before the last sync and was brought over then */
        if (!created && f->first_ns > p->first_ns)
            continue;
        ew_flowtab_copy(t, f, from);
        ew_qseries_copy(&m->an->qs, f, &w->qs, from);
        ew_tunnel_copy(&m->an->tun, f, from);
        if (final)
            f->quic = from->quic;
    }
    /* then marked active in the order of their last packet */
    if (n > 0)
        qsort(m->pick, (size_t)n, sizeof(*m->pick), by_last);
    for (i = 0; i < n; i++) {
        struct ew_flow *f = ew_flowtab_get(t, &m->pick[i].key, m->pick[i].last_ns, &created);

        ew_flowtab_touch(t, f);
    }
    sum_totals(m->an, m->w, m->n);
    for (i = 0; i < m->n; i++)
        m->since[i] = m->w[i]->last_ns;
    m->synced = true;
    return final ? renumber(m) : 0;
}
