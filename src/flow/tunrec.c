/* tunrec.c - a flow's tunnel (see tunrec.h). */
#include "flow/tunrec.h"

#include <string.h>

#include "flow/flow.h"

int
ew_tunnel_pool_init(struct ew_tunnel_pool *p, uint32_t cap)
{
    return ew_chunks_init(&p->c, sizeof(struct ew_tunnel_rec), cap);
}

void
ew_tunnel_pool_free(struct ew_tunnel_pool *p)
{
    ew_chunks_free(&p->c);
}

static void
take_layers(struct ew_tunnel_dir *t, const struct ew_pkt *pkt)
{
    int e = ew_tunnel_ecn_layer(pkt->encap, pkt->n_encap);

    t->n = pkt->n_encap;
    memcpy(t->layer, pkt->encap, (size_t)pkt->n_encap * sizeof(pkt->encap[0]));
    t->ecn_layer = (uint8_t)(e < 0 ? t->n : e);
}

/* the same encapsulations (types, identifiers, outer addresses) */
static bool
same_layers(const struct ew_tunnel_dir *t, const struct ew_pkt *pkt)
{
    int i;

    if (pkt->n_encap != t->n)
        return false;
    for (i = 0; i < t->n; i++) {
        const struct ew_encap *a = &t->layer[i], *b = &pkt->encap[i];

        if (a->type != b->type || a->family != b->family || a->has_id != b->has_id ||
            (a->has_id && a->id != b->id))
            return false;
        if (memcmp(a->src, b->src, 16) != 0 || memcmp(a->dst, b->dst, 16) != 0)
            return false;
    }
    return true;
}

void
ew_tunnel_packet(struct ew_tunnel_pool *p, struct ew_flow *f, int dir, const struct ew_pkt *pkt,
                 uint64_t frame)
{
    struct ew_tunnel_rec *t = f->tun;
    struct ew_tunnel_dir *d;
    int e;

    if (!t) {
        if (pkt->n_encap == 0)
            return;
        t = ew_chunks_take(&p->c);
        if (!t)
            return;
        f->tun = t;
        t->first_dir = (uint8_t)dir;
        t->first_frame = frame;
    }
    d = &t->dir[dir];
    if (pkt->n_encap == 0) {
        d->plain++;
        return;
    }
    if (d->packets == 0)
        take_layers(d, pkt);
    else if (!d->changed && !same_layers(d, pkt))
        d->changed = true;
    d->packets++;
    e = ew_tunnel_ecn_layer(pkt->encap, pkt->n_encap);
    if (e < 0) {
        d->no_outer_ip++;
        return;
    }
    if (ew_tunnel_rfc6040_layer(pkt->encap, pkt->n_encap) < 0) {
        d->mirrored++;
        return;
    }
    {
        unsigned o = pkt->encap[e].ecn & 3u, in = (unsigned)pkt->ecn & 3u;

        if (d->cell[o][in]++ == 0)
            d->cell_first[o][in] = frame;
    }
}

void
ew_tunnel_release(struct ew_tunnel_pool *p, struct ew_flow *f)
{
    if (f->tun)
        ew_chunks_release(&p->c, f->tun);
    f->tun = NULL;
}

void
ew_tunnel_copy(struct ew_tunnel_pool *p, struct ew_flow *f, const struct ew_flow *from)
{
    uint32_t pool[2];

    if (!from->tun) {
        ew_tunnel_release(p, f);
        return;
    }
    if (!f->tun && !(f->tun = ew_chunks_take(&p->c)))
        return;
    memcpy(pool, f->tun->pool, sizeof(pool));
    *f->tun = *from->tun;
    memcpy(f->tun->pool, pool, sizeof(pool));
}

uint64_t
ew_tunnel_dir_compared(const struct ew_tunnel_dir *d)
{
    uint64_t o[4];

    ew_tunnel_dir_outer(d, o);
    return o[0] + o[1] + o[2] + o[3];
}

uint64_t
ew_tunnel_dir_differ(const struct ew_tunnel_dir *d)
{
    uint64_t n = 0;
    int o, i;

    for (o = 0; o < 4; o++)
        for (i = 0; i < 4; i++)
            if (o != i)
                n += d->cell[o][i];
    return n;
}

void
ew_tunnel_dir_outer(const struct ew_tunnel_dir *d, uint64_t out[4])
{
    int o, i;

    for (o = 0; o < 4; o++) {
        out[o] = 0;
        for (i = 0; i < 4; i++)
            out[o] += d->cell[o][i];
    }
}
