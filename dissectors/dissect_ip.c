/* dissect_ip.c - IPv4 (RFC 791) and IPv6 (RFC 8200) headers, the ECN field
 * of both (RFC 3168 §5) through one extractor, and the transport demux (with
 * the tunnels over IP and UDP handed to tunnel.c). */
#include "dissectors/dissect_ip.h"

#include <string.h>

#include "dissectors/ecn.h"
#include "dissectors/decap.h"
#include "dissectors/dissect_tcp.h"

enum {
    IPPROTO_NUM_HOPOPTS = 0,
    IPPROTO_NUM_IPIP = 4,
    IPPROTO_NUM_TCP = 6,
    IPPROTO_NUM_UDP = 17,
    IPPROTO_NUM_IPV6 = 41,
    IPPROTO_NUM_GRE = 47,
    IPPROTO_NUM_ROUTING = 43,
    IPPROTO_NUM_FRAGMENT = 44,
    IPPROTO_NUM_AH = 51,
    IPPROTO_NUM_NONE = 59,
    IPPROTO_NUM_DSTOPTS = 60,
    IPPROTO_NUM_MOBILITY = 135,
    IPPROTO_NUM_HIP = 139,
    IPPROTO_NUM_SHIM6 = 140,
};

/* a big-endian 16-bit field at p, which the caller has bounds-checked */
static uint16_t
be16_at(const uint8_t *p)
{
    return (uint16_t)(((unsigned)p[0] << 8) | p[1]);
}

static uint32_t
frame_offset(const uint8_t *fs, const uint8_t *p)
{
    return (uint32_t)(p - fs);
}

/* the IP header claims more bytes than the frame had on the wire */
static void
check_ip_len(struct ew_pkt *pkt, const uint8_t *fs, const uint8_t *ip_start, uint32_t iplen)
{
    uint64_t end = (uint64_t)frame_offset(fs, ip_start) + iplen;

    if (pkt->wirelen != 0 && end > pkt->wirelen)
        ew_pkt_event(pkt, EW_EV_IP_LEN_SHORT);
}

/* TCP first, then UDP, each one compare (no table of cases): the packets
 * of no tunnel pay nothing for those that are. */
static inline void
dissect_transport(struct ew_cur *l4, uint32_t seglen, struct ew_pkt *pkt, const uint8_t *fs)
{
    uint8_t proto = pkt->ip_proto;

    if (proto == IPPROTO_NUM_TCP) {
        ew_dissect_tcp(l4, seglen, pkt, fs);
    } else if (proto == IPPROTO_NUM_UDP) {
        ew_dissect_udp(l4, seglen, pkt, fs);
        /* a tunnel's port: a test on the port already read */
        if (pkt->l4 == EW_L4_UDP && ew_decap_udp_maybe(pkt->u.udp.dport))
            ew_decap_note_udp(l4, pkt, fs);
    } else if ((proto == IPPROTO_NUM_IPIP || proto == IPPROTO_NUM_IPV6 ||
                proto == IPPROTO_NUM_GRE) &&
               !ew_decap_active.off) {
        ew_decap_note_ip(l4, pkt, fs);
    }
}

void
ew_dissect_ipv4(struct ew_cur *c, struct ew_pkt *pkt, const uint8_t *fs)
{
    const uint8_t *ip_start = c->p;
    uint8_t vhl, tos, ttl, proto;
    uint16_t totlen, id, frag;
    uint32_t hlen, seglen;
    struct ew_cur l4;

    pkt->src[10] = 0xff;
    pkt->src[11] = 0xff;
    pkt->dst[10] = 0xff;
    pkt->dst[11] = 0xff;
    if (ew_cur_has(c, 20)) {
        /* the fixed header was captured: read it in place, once checked */
        const uint8_t *h = c->p;

        vhl = h[0];
        tos = h[1];
        totlen = be16_at(h + 2);
        id = be16_at(h + 4);
        frag = be16_at(h + 6);
        ttl = h[8];
        proto = h[9];
        memcpy(pkt->src + 12, h + 12, 4);
        memcpy(pkt->dst + 12, h + 16, 4);
        c->p += 20;
    } else {
        vhl = ew_cur_u8(c);
        tos = ew_cur_u8(c);
        totlen = ew_cur_be16(c);
        id = ew_cur_be16(c);
        frag = ew_cur_be16(c);
        ttl = ew_cur_u8(c);
        proto = ew_cur_u8(c);
        ew_cur_skip(c, 2); /* checksum */
        ew_cur_bytes(c, pkt->src + 12, 4);
        ew_cur_bytes(c, pkt->dst + 12, 4);
    }
    if (c->trunc) {
        ew_pkt_event(pkt, EW_EV_IPV4_TRUNC);
        pkt->status = EW_PKT_UNDECODABLE;
        return;
    }
    if ((vhl >> 4) != 4) {
        ew_pkt_event(pkt, EW_EV_IP_VERSION_BAD);
        pkt->status = EW_PKT_UNDECODABLE;
        return;
    }
    hlen = (uint32_t)(vhl & 0x0f) * 4;
    if (hlen < 20) {
        ew_pkt_event(pkt, EW_EV_IPV4_HLEN_SMALL);
        pkt->status = EW_PKT_UNDECODABLE;
        return;
    }
    /* From here the fixed header is sound: the ECN field counts. */
    pkt->family = 4;
    pkt->ecn = ew_ecn_from_tc(tos);
    pkt->dscp = (uint8_t)(tos >> 2);
    pkt->ttl = ttl;
    pkt->ip_proto = proto;
    pkt->ip_id = id;
    pkt->status = EW_PKT_OK;

    if (totlen == 0) {
        /* segmentation offload writes 0: take the frame's length, as Wireshark does */
        uint32_t off = frame_offset(fs, ip_start);
        totlen = (uint16_t)(pkt->wirelen > off ? (pkt->wirelen - off > 0xffff ? 0xffff
                                                                             : pkt->wirelen - off)
                                               : 0);
    }
    pkt->ip_len = totlen;
    if (totlen < hlen) {
        ew_pkt_event(pkt, EW_EV_IPV4_TOTLEN_BAD);
        return;
    }
    check_ip_len(pkt, fs, ip_start, totlen);
    if (frag & 0x3fff) /* MF or an offset */
        pkt->fragment = true;
    if (frag & 0x1fff) {
        pkt->later_fragment = true;
        ew_pkt_event(pkt, EW_EV_IPV4_FRAGMENT);
        return;
    }
    if (!ew_cur_skip(c, hlen - 20)) { /* options */
        ew_pkt_event(pkt, EW_EV_IPV4_TRUNC);
        return;
    }
    seglen = totlen - hlen;
    ew_cur_sub(c, seglen, &l4);
    dissect_transport(&l4, seglen, pkt, fs);
}

static int
is_ext_header(uint8_t nh)
{
    switch (nh) {
    case IPPROTO_NUM_HOPOPTS:
    case IPPROTO_NUM_ROUTING:
    case IPPROTO_NUM_FRAGMENT:
    case IPPROTO_NUM_AH:
    case IPPROTO_NUM_DSTOPTS:
    case IPPROTO_NUM_MOBILITY:
    case IPPROTO_NUM_HIP:
    case IPPROTO_NUM_SHIM6:
        return 1;
    default:
        return 0;
    }
}

/* The fixed header (RFC 8200 §3): addresses, the ECN field, the hop limit,
 * the first next header (*nh) and the payload length (*plen). false, the
 * packet undecodable, when it was not captured whole or is not IPv6. */
static bool
ipv6_fixed_header(struct ew_cur *c, struct ew_pkt *pkt, uint32_t *plen, uint8_t *nh)
{
    uint32_t w;
    uint8_t hlim, tc;

    if (ew_cur_has(c, 40)) {
        /* the fixed header was captured: read it in place, once checked */
        const uint8_t *h = c->p;

        w = ((uint32_t)be16_at(h) << 16) | be16_at(h + 2);
        *plen = be16_at(h + 4);
        *nh = h[6];
        hlim = h[7];
        memcpy(pkt->src, h + 8, 16);
        memcpy(pkt->dst, h + 24, 16);
        c->p += 40;
    } else {
        w = ew_cur_be32(c);
        *plen = ew_cur_be16(c);
        *nh = ew_cur_u8(c);
        hlim = ew_cur_u8(c);
        ew_cur_bytes(c, pkt->src, 16);
        ew_cur_bytes(c, pkt->dst, 16);
    }
    if (c->trunc) {
        ew_pkt_event(pkt, EW_EV_IPV6_TRUNC);
        pkt->status = EW_PKT_UNDECODABLE;
        return false;
    }
    if ((w >> 28) != 6) {
        ew_pkt_event(pkt, EW_EV_IP_VERSION_BAD);
        pkt->status = EW_PKT_UNDECODABLE;
        return false;
    }
    tc = (uint8_t)((w >> 20) & 0xff);
    pkt->family = 6;
    pkt->ecn = ew_ecn_from_tc(tc);
    pkt->dscp = (uint8_t)(tc >> 2);
    pkt->ttl = hlim;
    pkt->ip_proto = *nh;
    pkt->status = EW_PKT_OK;
    return true;
}

/* One extension header, nh, at pl: its length checked against what the
 * payload length leaves for it (declared, captured or not), a fragment's
 * offset read. true when the chain goes on with *next; false when the
 * packet's headers end here (an event says why, or it is a later
 * fragment). */
static bool
ipv6_ext_header(struct ew_cur *pl, struct ew_pkt *pkt, uint8_t nh, size_t declared, bool whole,
                uint8_t *next)
{
    uint8_t hl;
    size_t len;

    *next = ew_cur_u8(pl);
    hl = ew_cur_u8(pl);
    len = nh == IPPROTO_NUM_FRAGMENT ? 8
          : nh == IPPROTO_NUM_AH     ? ((size_t)hl + 2) * 4
                                     : ((size_t)hl + 1) * 8;
    if (len > declared) {
        ew_pkt_event(pkt, EW_EV_IPV6_EXT_BAD);
        pkt->ip_proto = nh;
        return false;
    }
    if (nh == IPPROTO_NUM_FRAGMENT) {
        uint16_t off;

        /* hl is the reserved byte here */
        off = ew_cur_be16(pl);
        ew_cur_skip(pl, 4); /* identification */
        if (!pl->trunc) {
            pkt->fragment = true;
            if (off & 0xfff8) {
                pkt->ext_count++;
                pkt->ip_proto = *next;
                pkt->later_fragment = true;
                ew_pkt_event(pkt, EW_EV_IPV6_FRAGMENT);
                return false;
            }
        }
    } else {
        ew_cur_skip(pl, len - 2);
    }
    if (pl->trunc) {
        /* ran out: the capture was short, or the header is longer than the payload */
        ew_pkt_event(pkt, whole ? EW_EV_IPV6_EXT_BAD : EW_EV_IPV6_TRUNC);
        pkt->ip_proto = nh;
        return false;
    }
    return true;
}

/* The extension headers from nh on, through pl, the payload of plen bytes
 * that starts at payload (whole: all of it captured): true when a
 * transport header follows (pkt->ip_proto says which), false when the
 * packet's headers end before one. */
static bool
ipv6_ext_chain(struct ew_cur *pl, struct ew_pkt *pkt, const uint8_t *payload, uint32_t plen,
               bool whole, uint8_t nh)
{
    while (is_ext_header(nh)) {
        uint8_t next;

        if (pkt->ext_count >= EW_IPV6_EXT_MAX) {
            ew_pkt_event(pkt, EW_EV_IPV6_EXT_TOO_LONG);
            pkt->ip_proto = nh;
            return false;
        }
        if (!ipv6_ext_header(pl, pkt, nh, plen - (size_t)(pl->p - payload), whole, &next))
            return false;
        pkt->ext_count++;
        nh = next;
        pkt->ip_proto = nh;
    }
    return true;
}

void
ew_dissect_ipv6(struct ew_cur *c, struct ew_pkt *pkt, const uint8_t *fs)
{
    const uint8_t *ip_start = c->p;
    uint32_t plen, consumed;
    uint8_t nh;
    struct ew_cur pl;
    bool whole;

    if (!ipv6_fixed_header(c, pkt, &plen, &nh))
        return;
    if (plen == 0 && nh == IPPROTO_NUM_HOPOPTS) {
        /* a jumbogram (RFC 2675): its length is in an option; bound by the frame */
        uint32_t off = frame_offset(fs, c->p);
        plen = pkt->wirelen > off ? pkt->wirelen - off : 0;
    }
    pkt->ip_len = 40 + plen;
    check_ip_len(pkt, fs, ip_start, 40 + plen);
    whole = ew_cur_sub(c, plen, &pl);
    if (!ipv6_ext_chain(&pl, pkt, ip_start + 40, plen, whole, nh))
        return;
    consumed = (uint32_t)(pl.p - (ip_start + 40));
    dissect_transport(&pl, plen >= consumed ? plen - consumed : 0, pkt, fs);
}

/* Dispatch on the ethertype, or on the version nibble when it is 0 (raw IP). */
void
ew_dissect_ip(struct ew_cur *c, uint16_t ethertype, struct ew_pkt *pkt, const uint8_t *fs)
{
    if (ethertype == 0) {
        uint8_t first;

        if (!ew_cur_peek_u8(c, &first)) {
            ew_pkt_event(pkt, EW_EV_LINK_TRUNC);
            pkt->status = EW_PKT_UNDECODABLE;
            return;
        }
        switch (first >> 4) {
        case 4:
            ethertype = 0x0800;
            break;
        case 6:
            ethertype = 0x86dd;
            break;
        default:
            ew_pkt_event(pkt, EW_EV_IP_VERSION_BAD);
            pkt->status = EW_PKT_UNDECODABLE;
            return;
        }
    }
    if (ethertype == 0x0800)
        ew_dissect_ipv4(c, pkt, fs);
    else
        ew_dissect_ipv6(c, pkt, fs);
}
