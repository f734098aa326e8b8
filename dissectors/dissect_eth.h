/* dissect_eth.h - Ethernet (IEEE 802.3) with IEEE 802.1Q / 802.1ad tags, on
 * the link or inside a tunnel, and what an EtherType leads to: IP, a tunnel
 * met on a link (MPLS, MACsec: noted for the frame driver, decap.h), or
 * something not IP. Inline, as they were in the link decoders: the frame
 * driver and the tunnels' decoders each have them. */
#ifndef ECNWATCH_DISSECT_ETH_H
#define ECNWATCH_DISSECT_ETH_H

#include <stdbool.h>
#include <stdint.h>

#include "dissectors/cursor.h"
#include "dissectors/decap.h"
#include "dissectors/dissect_ip.h"
#include "dissectors/pkt.h"

/* 802.1Q (0x8100), 802.1ad (0x88a8) and the older 0x9100 */
static inline int
ew_is_vlan_tpid(uint16_t t)
{
    return t == 0x8100 || t == 0x88a8 || t == 0x9100;
}

/* an EtherType that is IP goes on, one of a tunnel (MPLS, MACsec) is noted
 * for the frame driver; anything else is counted non-IP */
static inline void
ew_dissect_ip_or_other(struct ew_cur *c, uint16_t type, struct ew_pkt *pkt, const uint8_t *fs)
{
    int tun;

    if (type == 0x0800 || type == 0x86dd) {
        ew_dissect_ip(c, type, pkt, fs);
        return;
    }
    if ((tun = ew_decap_ethertype(type)) >= 0) {
        ew_decap_note(pkt, tun, c, fs);
        return;
    }
    ew_pkt_event(pkt, EW_EV_NON_IP);
    pkt->status = EW_PKT_NON_IP;
}

/* From an EtherType on: up to EW_VLAN_MAX_DEPTH tags walked (inner: a frame
 * inside a tunnel, its tags not recorded, a cut one a tunnel's), then IP to
 * the network layer. */
static inline void
ew_dissect_ethertype(struct ew_cur *c, uint16_t type, struct ew_pkt *pkt, const uint8_t *fs,
                     bool inner)
{
    unsigned depth = 0;

    while (ew_is_vlan_tpid(type)) {
        uint16_t tci;

        if (depth >= EW_VLAN_MAX_DEPTH) {
            ew_pkt_event(pkt, EW_EV_VLAN_TOO_DEEP);
            pkt->status = EW_PKT_UNDECODABLE;
            return;
        }
        tci = ew_cur_be16(c);
        type = ew_cur_be16(c);
        if (c->trunc) {
            ew_pkt_event(pkt, inner ? EW_EV_TUNNEL_TRUNC : EW_EV_LINK_TRUNC);
            pkt->status = EW_PKT_UNDECODABLE;
            return;
        }
        depth++;
        if (!inner)
            pkt->vlan_id[pkt->vlan_depth++] = (uint16_t)(tci & 0x0fff);
    }
    ew_dissect_ip_or_other(c, type, pkt, fs);
}

/* An Ethernet header, then what its EtherType names. */
static inline void
ew_dissect_ether(struct ew_cur *c, struct ew_pkt *pkt, const uint8_t *fs, bool inner)
{
    uint16_t type;

    ew_cur_skip(c, 12); /* destination, source */
    type = ew_cur_be16(c);
    if (c->trunc) {
        ew_pkt_event(pkt, inner ? EW_EV_TUNNEL_TRUNC : EW_EV_LINK_TRUNC);
        pkt->status = EW_PKT_UNDECODABLE;
        return;
    }
    /* values up to 1500 are IEEE 802.3 lengths (LLC follows): not IP here */
    ew_dissect_ethertype(c, type, pkt, fs, inner);
}

#endif /* ECNWATCH_DISSECT_ETH_H */
