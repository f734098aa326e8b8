/* tunnel_json.c - the report's "tunnel" objects of a flow (see
 * tunnel_json.h). */
#include "output/tunnel_json.h"

#include "base/format.h"
#include "base/jw.h"
#include "dissectors/ecn.h"
#include "flow/flow.h"
#include "flow/tunrec.h"

static void
counts4(struct jw *w, const char *k, const uint64_t n[4])
{
    jw_key(w, k);
    jw_object_begin(w);
    jw_kcount(w, "not_ect", n[EW_ECN_NOT_ECT]);
    jw_kcount(w, "ect0", n[EW_ECN_ECT_0]);
    jw_kcount(w, "ect1", n[EW_ECN_ECT_1]);
    jw_kcount(w, "ce", n[EW_ECN_CE]);
    jw_object_end(w);
}

static void
layers_write(struct jw *w, const struct ew_tunnel_dir *d)
{
    char buf[64];
    int i;

    jw_key(w, "layers");
    jw_array_begin(w);
    for (i = 0; i < d->n; i++) {
        const struct ew_encap *e = &d->layer[i];

        jw_object_begin(w);
        jw_kstring(w, "type", e->type < EW_TUN_COUNT ? ew_tunnel_name[e->type] : "unknown");
        if (e->family) {
            jw_kint(w, "outer_family", e->family);
            ew_addr_str(e->src, e->family, buf, sizeof(buf));
            jw_kstring(w, "outer_src", buf);
            ew_addr_str(e->dst, e->family, buf, sizeof(buf));
            jw_kstring(w, "outer_dst", buf);
        }
        if (e->has_id)
            jw_kcount(w, "id", e->id);
        if (e->type == EW_TUN_MPLS)
            jw_kint(w, "labels", e->labels);
        jw_object_end(w);
    }
    jw_array_end(w);
}

void
ew_tunnel_write(struct jw *w, const char *key, const struct ew_flow *f)
{
    const struct ew_tunnel_rec *t = f->tun;

    if (!t)
        return;
    jw_key(w, key);
    jw_object_begin(w);
    jw_kcount(w, "first_frame", t->first_frame);
    jw_kstring(w, "first_direction", t->first_dir == f->client_dir ? "c2s" : "s2c");
    layers_write(w, &t->dir[t->first_dir]);
    jw_object_end(w);
}

void
ew_tunnel_dir_write(struct jw *w, const char *key, const struct ew_flow *f, int dir)
{
    const struct ew_tunnel_rec *t = f->tun;
    const struct ew_tunnel_dir *d;
    static const int order[4] = {EW_ECN_NOT_ECT, EW_ECN_ECT_0, EW_ECN_ECT_1, EW_ECN_CE};
    uint64_t outer[4];
    int o;

    if (!t)
        return;
    d = &t->dir[dir];
    jw_key(w, key);
    jw_object_begin(w);
    jw_kcount(w, "packets", d->packets);
    jw_kcount(w, "untunnelled", d->plain);
    layers_write(w, d);
    jw_kbool(w, "layers_changed", d->changed);
    jw_kbool(w, "rfc6040_applies", ew_tunnel_dir_rfc6040(d));
    jw_kcount(w, "no_outer_ip", d->no_outer_ip);
    jw_kcount(w, "mirrored", d->mirrored);
    ew_tunnel_dir_outer(d, outer);
    counts4(w, "outer_ecn", outer);
    jw_key(w, "outer_to_inner");
    jw_object_begin(w);
    for (o = 0; o < 4; o++)
        counts4(w, ew_ecn_key[order[o]], d->cell[order[o]]);
    jw_object_end(w);
    jw_kcount(w, "differ", ew_tunnel_dir_differ(d));
    jw_object_end(w);
}
