/* tunrec.c - a flow's tunnel (see tunrec.h). */
#include "flow/tunrec.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "base/format.h"
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

int
ew_tunnel_packet(struct ew_tunnel_pool *p, struct ew_flow *f, int dir, const struct ew_pkt *pkt,
                 uint64_t frame)
{
    struct ew_tunnel_rec *t = f->tun;
    struct ew_tunnel_dir *d;
    int e;

    if (!t) {
        if (pkt->n_encap == 0)
            return -1;
        t = ew_chunks_take(&p->c);
        if (!t)
            return -1;
        f->tun = t;
        t->first_dir = (uint8_t)dir;
        t->first_frame = frame;
    }
    d = &t->dir[dir];
    if (pkt->n_encap == 0) {
        d->plain++;
        return -1;
    }
    if (d->packets == 0)
        take_layers(d, pkt);
    else if (!d->changed && !same_layers(d, pkt))
        d->changed = true;
    d->packets++;
    e = ew_tunnel_ecn_layer(pkt->encap, pkt->n_encap);
    if (e < 0) {
        d->no_outer_ip++;
        return -1;
    }
    if (ew_tunnel_rfc6040_layer(pkt->encap, pkt->n_encap) < 0) {
        d->mirrored++;
        return -1;
    }
    {
        unsigned o = pkt->encap[e].ecn & 3u, in = (unsigned)pkt->ecn & 3u;

        if (d->cell[o][in]++ == 0)
            d->cell_first[o][in] = frame;
        return (int)(o * 4 + in);
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

void
ew_tunnel_layers_str(const struct ew_tunnel_dir *d, char *buf, size_t len)
{
    char a[64], b[64];
    size_t at = 0;
    int i, n;

    if (len)
        buf[0] = '\0';
    for (i = 0; i < d->n && at < len; i++) {
        const struct ew_encap *e = &d->layer[i];

        a[0] = b[0] = '\0';
        if (e->family) {
            ew_addr_str(e->src, e->family, a, sizeof(a));
            ew_addr_str(e->dst, e->family, b, sizeof(b));
        }
        n = snprintf(buf + at, len - at, "%s%s%s%s%s%s", i ? ", in " : "",
                     e->type < EW_TUN_COUNT ? ew_tunnel_name[e->type] : "?", e->family ? " " : "",
                     a, e->family ? " -> " : "", b);
        if (n < 0)
            return;
        at += (size_t)n;
        if (e->has_id && at < len) {
            n = snprintf(buf + at, len - at, " id %" PRIu32, e->id);
            if (n < 0)
                return;
            at += (size_t)n;
        }
    }
}
