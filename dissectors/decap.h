/* decap.h - which tunnels the decoders open: set once before reading
 * starts, read-only after (the decoders of every thread read it); and how a
 * decoder that meets a tunnel hands it on: it notes where the tunnel starts
 * in the frame (struct ew_pkt's tun_*), and the frame driver opens it
 * (tunnel.h), so that the tunnels' decoders and those of the layers they
 * carry do not call each other in a ring. */
#ifndef ECNWATCH_DECAP_H
#define ECNWATCH_DECAP_H

#include <stdbool.h>
#include <stdint.h>

#include "dissectors/cursor.h"
#include "dissectors/pkt.h"

/* UDP ports decapsulated, at most */
#define EW_DECAP_PORTS_MAX 16

struct ew_decap_cfg {
    bool off;       /* outer headers only: no tunnel is opened */
    uint8_t nports;
    uint16_t port[EW_DECAP_PORTS_MAX];  /* UDP destination ports */
    uint8_t type[EW_DECAP_PORTS_MAX];   /* the enum ew_tunnel of each */
    uint64_t port_bits; /* bit (port % 64) set for each port: the quick test */
};

/* VXLAN 4789, VXLAN-GPE 4790, Geneve 6081, GTP-U 2152, decapsulation on */
void ew_decap_defaults(struct ew_decap_cfg *cfg);
/* UDP port `port` carries tunnels of `type` (one carried on UDP), in place
 * of what it carried before; -1 when the table is full */
int ew_decap_set_port(struct ew_decap_cfg *cfg, enum ew_tunnel type, uint16_t port);
/* the tunnel type of a name that can be given a UDP port (vxlan,
 * vxlan-gpe, geneve, gtpu), or -1 */
int ew_decap_udp_type(const char *name);
/* the configuration the decoders use from now on (the defaults until it is
 * called); call before any frame is decoded and before threads that decode
 * are started */
void ew_decap_configure(const struct ew_decap_cfg *cfg);

extern struct ew_decap_cfg ew_decap_active;

/* A UDP destination port that may carry a tunnel: one shift and a test,
 * on a port already read. */
static inline bool
ew_decap_udp_maybe(uint16_t dport)
{
    return (ew_decap_active.port_bits >> (dport & 63u)) & 1u;
}

/* Past the header of a UDP datagram (ew_decap_udp_maybe() of its port) or
 * of an IP packet of protocol 4, 41 or 47 (decapsulation on), c at its
 * payload: its tunnel noted (ew_decap_note()) when it is one. Out of line:
 * the transport demux stays small for the packets of no tunnel. */
void ew_decap_note_udp(struct ew_cur *c, struct ew_pkt *pkt, const uint8_t *fs);
void ew_decap_note_ip(struct ew_cur *c, struct ew_pkt *pkt, const uint8_t *fs);

/* The tunnel of an EtherType met on a link or in an inner Ethernet frame
 * (MPLS, MACsec), or -1. */
static inline int
ew_decap_ethertype(uint16_t type)
{
    if (ew_decap_active.off)
        return -1;
    return type == 0x8847 || type == 0x8848 ? EW_TUN_MPLS : type == 0x88e5 ? EW_TUN_MACSEC : -1;
}

/* A tunnel of `type` starts at c (and ends with it): noted for the frame
 * driver to open. */
static inline void
ew_decap_note(struct ew_pkt *pkt, int type, const struct ew_cur *c, const uint8_t *fs)
{
    pkt->tun_next = (uint8_t)(type + 1);
    pkt->tun_at = (uint32_t)(c->p - fs);
    pkt->tun_end = (uint32_t)(c->end - fs);
}

#endif /* ECNWATCH_DECAP_H */
