/* tunnel.h - decapsulation: which tunnels are opened (set once before
 * reading starts, read-only after: the decoders of every thread read it),
 * and the entry points the link and IP decoders hand a tunnel's bytes to.
 *
 * A frame's network and transport fields describe its innermost packet;
 * the encapsulations passed through are recorded in struct ew_pkt's encap[]
 * (pkt.h). A tunnel whose inner packet cannot be decoded (cut, invalid, not
 * IP) leaves the frame as it was before the tunnel, with the events that say
 * why; beyond EW_TUNNEL_MAX_DEPTH the frame stays at the last IP packet
 * decoded. */
#ifndef ECNWATCH_TUNNEL_H
#define ECNWATCH_TUNNEL_H

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
/* the configuration the decoders use from now on; call before any frame is
 * decoded and before threads that decode are started */
void ew_decap_configure(const struct ew_decap_cfg *cfg);

extern struct ew_decap_cfg ew_decap_active;

/* a UDP destination port that may carry a tunnel: one shift and a test */
static inline bool
ew_decap_udp_maybe(uint16_t dport)
{
    return (ew_decap_active.port_bits >> (dport & 63u)) & 1u;
}

/* an EtherType of a tunnel met on a link: MPLS, MACsec */
static inline bool
ew_decap_ethertype_is(uint16_t type)
{
    return (type == 0x8847 || type == 0x8848 || type == 0x88e5) && !ew_decap_active.off;
}

/* The IP payload c of an IP packet of protocol 4, 41 or 47 (pkt->ip_proto)
 * whose header pkt holds. */
void ew_decap_ip(struct ew_cur *c, struct ew_pkt *pkt, const uint8_t *fs);
/* The payload c of the UDP datagram whose header pkt holds (c at the
 * payload): opened when its destination port is configured. */
void ew_decap_udp(struct ew_cur *c, struct ew_pkt *pkt, const uint8_t *fs);
/* After the EtherType `type` (ew_decap_ethertype_is) of a link or of an
 * inner Ethernet frame: an MPLS label stack or a MACsec SecTAG. */
void ew_decap_ethertype(struct ew_cur *c, uint16_t type, struct ew_pkt *pkt, const uint8_t *fs);

#endif /* ECNWATCH_TUNNEL_H */
