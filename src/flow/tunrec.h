/* tunrec.h - what a flow's packets came through: the tunnel of a flow whose
 * packets were decapsulated (dissectors/pkt.h's encapsulations), kept beside
 * the flow record for the flows that have one.
 *
 * A flow is the conversation of its innermost packets; the tunnel is an
 * attribute of it: the encapsulations of its first tunnelled packet,
 * outermost first, and, per direction, the ECN codepoints of the outer IP
 * header nearest to the inner packet against the inner packet's own, packet
 * by packet. That outer header is the one the tunnel's decapsulator reads
 * (RFC 6040, RFC 9601 for tunnels with a shim header such as VXLAN, Geneve,
 * GRE or GTP-U). Nested tunnels are compared at their innermost level. */
#ifndef ECNWATCH_TUNREC_H
#define ECNWATCH_TUNREC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/chunks.h"
#include "dissectors/pkt.h"

struct ew_flow;

struct ew_tunnel_dir {
    uint8_t n;           /* encapsulations of the direction's first tunnelled packet */
    uint8_t ecn_layer;   /* the one whose outer IP header is compared; n: none */
    bool changed;        /* a later packet came through other encapsulations */
    struct ew_encap layer[EW_TUNNEL_MAX_DEPTH];
    uint64_t packets; /* came through a tunnel */
    uint64_t plain;   /* did not: the flow seen on both sides of a tunnel end */
    uint64_t no_outer_ip; /* came through encapsulations without an IP header of their own (MPLS, MACsec) */
    uint64_t mirrored;    /* came in ERSPAN: the outer header is a mirror session's */
    uint64_t cell[4][4];  /* [outer][inner] enum ew_ecn: packets of the others */
    uint64_t cell_first[4][4]; /* the first frame of each */
};

struct ew_tunnel_rec {
    uint32_t pool[2];    /* the pool's (chunks.h) */
    uint8_t first_dir;   /* the canonical direction of the first tunnelled packet */
    uint64_t first_frame;
    struct ew_tunnel_dir dir[2];
};

/* The encapsulation of pkt whose outer IP header is nearest to the inner
 * packet (the last with an IP header), or -1 when none has one. */
static inline int
ew_tunnel_ecn_layer(const struct ew_encap *enc, int n)
{
    int i;

    for (i = n - 1; i >= 0; i--)
        if (enc[i].family)
            return i;
    return -1;
}

/* A packet's outer and inner headers are a tunnel's to RFC 6040 when it
 * has an outer IP header, and that is not ERSPAN's, which carries copies of
 * frames mirrored off a port (its outer header is the mirror session's, not
 * a tunnel ingress's): the outer header's encapsulation, or -1. */
static inline int
ew_tunnel_rfc6040_layer(const struct ew_encap *enc, int n)
{
    int e = ew_tunnel_ecn_layer(enc, n);

    return e >= 0 && enc[e].type != EW_TUN_ERSPAN ? e : -1;
}

/* packets of a direction whose outer and inner codepoints were compared */
uint64_t ew_tunnel_dir_compared(const struct ew_tunnel_dir *d);

static inline bool
ew_tunnel_dir_rfc6040(const struct ew_tunnel_dir *d)
{
    return ew_tunnel_dir_compared(d) > 0;
}

struct ew_tunnel_pool {
    struct ew_chunks c;
};

/* 0, or -1 when out of memory; cap: records at most (one a flow) */
int ew_tunnel_pool_init(struct ew_tunnel_pool *p, uint32_t cap);
void ew_tunnel_pool_free(struct ew_tunnel_pool *p);

/* One counted packet of flow f, direction dir (canonical): a tunnelled one
 * takes the flow's record when it has none (NULL when refused, counted in
 * the pool), and every packet of a flow that has one is counted in it.
 * Returns outer * 4 + inner (enum ew_ecn) where the packet's outer and
 * inner codepoints were compared, else -1. */
int ew_tunnel_packet(struct ew_tunnel_pool *p, struct ew_flow *f, int dir,
                      const struct ew_pkt *pkt, uint64_t frame);
/* f (a copy of from: ew_flowtab_copy()) given a record of its own in p
 * holding what from's holds, or none when from has none */
void ew_tunnel_copy(struct ew_tunnel_pool *p, struct ew_flow *f, const struct ew_flow *from);
/* the flow's record given back (the flow is evicted or freed) */
void ew_tunnel_release(struct ew_tunnel_pool *p, struct ew_flow *f);

/* the encapsulations of d as words in buf ("vxlan 192.0.2.1 -> 192.0.2.2
 * id 42, in gre ..."), outermost first; "" when none */
void ew_tunnel_layers_str(const struct ew_tunnel_dir *d, char *buf, size_t len);

/* packets of a direction whose outer and inner codepoints differ */
uint64_t ew_tunnel_dir_differ(const struct ew_tunnel_dir *d);
/* the outer codepoint counts of a direction */
void ew_tunnel_dir_outer(const struct ew_tunnel_dir *d, uint64_t out[4]);

#endif /* ECNWATCH_TUNREC_H */
