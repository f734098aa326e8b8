/* dissect_eth.c - Ethernet (IEEE 802.3) with IEEE 802.1Q / 802.1ad tags, on
 * the link or inside a tunnel, and what an EtherType leads to: IP, a tunnel
 * met on a link (MPLS, MACsec: noted for the frame driver, decap.h), or
 * something not IP. */
#include "dissectors/dissect_eth.h"

#include "dissectors/decap.h"
#include "dissectors/dissect_ip.h"

enum {
    ETHERTYPE_IPV4 = 0x0800,
    ETHERTYPE_IPV6 = 0x86dd,
    ETHERTYPE_8021Q = 0x8100,
    ETHERTYPE_8021AD = 0x88a8,
    ETHERTYPE_QINQ_OLD = 0x9100,
};

static int
is_vlan_tpid(uint16_t t)
{
    return t == ETHERTYPE_8021Q || t == ETHERTYPE_8021AD || t == ETHERTYPE_QINQ_OLD;
}

/* an EtherType that is IP goes on, one of a tunnel (MPLS, MACsec) is noted
 * for the frame driver; anything else is counted non-IP */
void
ew_dissect_ip_or_other(struct ew_cur *c, uint16_t type, struct ew_pkt *pkt, const uint8_t *fs)
{
    int tun;

    if (type == ETHERTYPE_IPV4 || type == ETHERTYPE_IPV6) {
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

/* Walk up to EW_VLAN_MAX_DEPTH tags, then hand IP to the network layer. */
void
ew_dissect_ethertype(struct ew_cur *c, uint16_t type, struct ew_pkt *pkt, const uint8_t *fs,
                     bool inner)
{
    unsigned depth = 0;

    while (is_vlan_tpid(type)) {
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

void
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
