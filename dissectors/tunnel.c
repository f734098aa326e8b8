/* tunnel.c - decapsulation (tunnel.h): IP in IP (RFC 2003, RFC 4213 §3.5,
 * RFC 2473), GRE (RFC 2784, RFC 2890) with ERSPAN types I, II and III
 * (draft-foschiano-erspan-03), VXLAN (RFC 7348), VXLAN-GPE
 * (draft-ietf-nvo3-vxlan-gpe-12) and NSH (RFC 8300), Geneve (RFC 8926),
 * GTP-U (3GPP TS 29.281), MPLS label stacks (RFC 3032) and MACsec without
 * encryption (IEEE 802.1AE-2018 §9). Every byte through the cursor. */
#include "dissectors/tunnel.h"

#include <stddef.h>
#include <string.h>

#include "dissectors/decap.h"
#include "dissectors/dissect_eth.h"
#include "dissectors/dissect_ip.h"

enum {
    ETH_IPV4 = 0x0800,
    ETH_IPV6 = 0x86dd,
    ETH_TEB = 0x6558, /* transparent Ethernet bridging: an Ethernet frame */
    ETH_ERSPAN_2 = 0x88be, /* type II, or type I without GRE's sequence number */
    ETH_ERSPAN_3 = 0x22eb,
    IPPROTO_NUM_IPIP = 4,
    IPPROTO_NUM_IPV6 = 41,
    IPPROTO_NUM_GRE = 47,
};

/* ---- the frame's state across a tunnel ---- */

/* A header of the tunnel cannot be read (ev): the frame undecodable, for
 * ew_decap_open() to go back from. */
static void
fail(struct ew_pkt *pkt, enum ew_event ev)
{
    ew_pkt_event(pkt, ev);
    pkt->status = EW_PKT_UNDECODABLE;
}

/* What the tunnel holds is not IP. */
static void
not_ip(struct ew_pkt *pkt)
{
    ew_pkt_event(pkt, EW_EV_NON_IP);
    pkt->status = EW_PKT_NON_IP;
}

/* Whether c holds all its bytes: it ends before the captured end (a
 * declared length bounded it, and all of that was captured), or the frame
 * was captured whole. Running out of a whole cursor is an invalid length,
 * of another a cut. */
static bool
whole(const struct ew_cur *c, const struct ew_pkt *pkt, const uint8_t *fs)
{
    return (size_t)(c->end - fs) < pkt->caplen ||
           (pkt->wirelen != 0 && pkt->caplen >= pkt->wirelen);
}

static void
cut_or_bad(const struct ew_cur *c, struct ew_pkt *pkt, const uint8_t *fs)
{
    fail(pkt, whole(c, pkt, fs) ? EW_EV_TUNNEL_BAD : EW_EV_TUNNEL_TRUNC);
}

/* One more encapsulation, its outer IP header (over_ip: the header pkt now
 * holds carried it) recorded, and the network and transport fields cleared
 * for the inner packet. NULL past EW_TUNNEL_MAX_DEPTH. */
static struct ew_encap *
push(struct ew_pkt *pkt, enum ew_tunnel type, bool over_ip)
{
    struct ew_encap *e;

    if (pkt->n_encap >= EW_TUNNEL_MAX_DEPTH) {
        ew_pkt_event(pkt, EW_EV_TUNNEL_TOO_DEEP);
        return NULL;
    }
    e = &pkt->encap[pkt->n_encap++];
    memset(e, 0, sizeof(*e));
    e->type = (uint8_t)type;
    if (over_ip && pkt->family) {
        e->family = pkt->family;
        e->ecn = (uint8_t)pkt->ecn;
        e->dscp = pkt->dscp;
        memcpy(e->src, pkt->src, 16);
        memcpy(e->dst, pkt->dst, 16);
    }
    memset(&pkt->family, 0, offsetof(struct ew_pkt, n_encap) - offsetof(struct ew_pkt, family));
    pkt->status = EW_PKT_OK;
    return e;
}

static void
set_id(struct ew_encap *e, uint32_t id)
{
    e->has_id = true;
    e->id = id;
}

/* A tunnel over an IP header (before) whose inner packet could not be
 * decoded: the frame as it was before the tunnel, with the events that say
 * why; a tunnel's inner packet that is not IP is not the frame's. */
static void
settle(struct ew_pkt *pkt, const struct ew_pkt *before)
{
    enum ew_pkt_status st = pkt->status;
    uint64_t ev = pkt->events;

    if (st == EW_PKT_OK)
        return;
    *pkt = *before;
    if (st == EW_PKT_NON_IP) {
        ev &= ~((uint64_t)1 << EW_EV_NON_IP);
        ev |= (uint64_t)1 << EW_EV_TUNNEL_NON_IP;
    }
    pkt->events = ev;
}

/* the inner packet an EtherType names: an Ethernet frame, or what the
 * link decoders take after an EtherType (VLAN tags, IP, MPLS, MACsec) */
static void
inner_ethertype(struct ew_cur *c, uint16_t type, struct ew_pkt *pkt, const uint8_t *fs)
{
    if (type == ETH_TEB)
        ew_dissect_ether(c, pkt, fs, true);
    else
        ew_dissect_ethertype(c, type, pkt, fs, true);
}

/* an IP packet by its version nibble (what MPLS, GTP-U and ERSPAN type III
 * carry say no more) */
static void
inner_ip_by_version(struct ew_cur *c, struct ew_pkt *pkt, const uint8_t *fs)
{
    uint8_t first;

    if (!ew_cur_peek_u8(c, &first)) {
        cut_or_bad(c, pkt, fs);
        return;
    }
    if ((first >> 4) == 4 || (first >> 4) == 6)
        ew_dissect_ip(c, 0, pkt, fs);
    else
        not_ip(pkt);
}

/* ---- link-level: MPLS, MACsec ---- */

/* RFC 3032 §2.1: label (20 bits), traffic class (3), bottom of stack (1),
 * TTL (8), a word each down to the bottom of the stack; then IPv4 or IPv6 by
 * the first nibble (RFC 3032 §2.2 leaves it to the label; the first nibble
 * is what routers look at), anything else not IP. */
static void
mpls(struct ew_cur *c, struct ew_pkt *pkt, const uint8_t *fs)
{
    struct ew_encap *e;
    uint32_t w, top = 0;
    unsigned n = 0;

    do {
        if (n == EW_MPLS_MAX_LABELS) {
            ew_pkt_event(pkt, EW_EV_MPLS_TOO_DEEP);
            pkt->status = EW_PKT_UNDECODABLE;
            return;
        }
        w = ew_cur_be32(c);
        if (c->trunc) {
            cut_or_bad(c, pkt, fs);
            return;
        }
        if (n++ == 0)
            top = w >> 12;
    } while (!(w & 0x100));
    e = push(pkt, EW_TUN_MPLS, false);
    if (!e) {
        pkt->status = EW_PKT_UNDECODABLE;
        return;
    }
    set_id(e, top);
    e->labels = (uint8_t)n;
    inner_ip_by_version(c, pkt, fs);
}

/* IEEE 802.1AE-2018 §9.3: after the EtherType, the TCI and AN octet (V,
 * ES, SC, SCB, E, C, then the association number), the short length (6
 * bits: the secure data's length when below 48, else 0), the packet number
 * (32 bits), the SCI (8 octets) when SC is set; then the secure data, which
 * without encryption (E clear) starts with the protected frame's EtherType;
 * the ICV (16 octets with the default cipher suite) ends the frame. */
static void
macsec(struct ew_cur *c, struct ew_pkt *pkt, const uint8_t *fs)
{
    uint8_t tci = ew_cur_u8(c), sl = ew_cur_u8(c);
    uint16_t type;
    struct ew_cur data;
    size_t left;

    ew_cur_skip(c, 4); /* packet number */
    if (!c->trunc && (tci & 0x20))
        ew_cur_skip(c, 8); /* SCI */
    if (c->trunc) {
        cut_or_bad(c, pkt, fs);
        return;
    }
    if ((tci & 0x80) || (sl & 0xc0)) {
        fail(pkt, EW_EV_TUNNEL_BAD); /* V must be 0; SL has 6 bits */
        return;
    }
    if (tci & 0x08) {
        ew_pkt_event(pkt, EW_EV_MACSEC_ENCRYPTED);
        not_ip(pkt);
        return;
    }
    left = ew_cur_left(c);
    if (sl != 0) {
        ew_cur_sub(c, sl, &data);
    } else if (whole(c, pkt, fs)) {
        if (left < 16) {
            fail(pkt, EW_EV_TUNNEL_BAD); /* no room for the ICV */
            return;
        }
        ew_cur_sub(c, left - 16, &data);
    } else {
        data = *c; /* the capture ends before the ICV, or in it */
    }
    type = ew_cur_be16(&data);
    if (data.trunc) {
        cut_or_bad(&data, pkt, fs);
        return;
    }
    if (!push(pkt, EW_TUN_MACSEC, false)) {
        pkt->status = EW_PKT_UNDECODABLE;
        return;
    }
    ew_dissect_ethertype(&data, type, pkt, fs, true);
}

/* ---- over IP: IP in IP, GRE, ERSPAN ---- */

/* draft-foschiano-erspan-03 §4.1 (type II, 8 octets: version 1, VLAN, COS,
 * encapsulation type, truncated, session ID (10 bits); reserved, index) and
 * §4.2 (type III, 12 octets: version 2, VLAN, COS, BSO, T, session ID;
 * timestamp; SGT, P, frame type (5 bits: 0 Ethernet, 2 IP), hardware ID, D,
 * granularity, O; 8 octets of platform-specific subheader when O is set).
 * Type I has no header: the mirrored frame follows GRE. */
static void
erspan(struct ew_cur *c, uint16_t proto, bool seq, struct ew_pkt *pkt, const uint8_t *fs)
{
    struct ew_encap *e;
    uint32_t w0 = 0, w2 = 0;
    unsigned want = 0, ft = 0;

    if (proto == ETH_ERSPAN_2 && seq) {
        w0 = ew_cur_be32(c);
        ew_cur_skip(c, 4);
        want = 1;
    } else if (proto == ETH_ERSPAN_3) {
        w0 = ew_cur_be32(c);
        ew_cur_skip(c, 4); /* timestamp */
        w2 = ew_cur_be32(c);
        if (!c->trunc && (w2 & 1))
            ew_cur_skip(c, 8);
        ft = (w2 >> 10) & 0x1f;
        want = 2;
    }
    if (c->trunc) {
        cut_or_bad(c, pkt, fs);
        return;
    }
    if ((w0 >> 28) != want) {
        fail(pkt, EW_EV_TUNNEL_BAD);
        return;
    }
    e = push(pkt, EW_TUN_ERSPAN, true);
    if (!e)
        return;
    if (want)
        set_id(e, w0 & 0x3ff);
    if (ft == 2)
        inner_ip_by_version(c, pkt, fs);
    else if (ft == 0)
        ew_dissect_ether(c, pkt, fs, true);
    else
        not_ip(pkt);
}

/* RFC 2784 §2.1 and RFC 2890 §2: C (checksum present), bits 1-12 (K: key
 * present, S: sequence number present, the others reserved), version (3
 * bits), protocol type (an EtherType); then the checksum and a reserved
 * half-word when C, the key when K, the sequence number when S. A receiver
 * drops a packet with bits 1, 4 or 5 set (RFC 2784 §2.3); version 1 is PPTP's
 * enhanced GRE (RFC 2637 §4.1), which carries PPP. */
static void
gre(struct ew_cur *c, struct ew_pkt *pkt, const uint8_t *fs)
{
    uint16_t flags = ew_cur_be16(c), proto = ew_cur_be16(c);
    uint32_t key = 0;
    struct ew_encap *e;

    if (!c->trunc && (flags & 0x8000))
        ew_cur_skip(c, 4);
    if (!c->trunc && (flags & 0x2000))
        key = ew_cur_be32(c);
    if (!c->trunc && (flags & 0x1000))
        ew_cur_skip(c, 4);
    if (c->trunc) {
        cut_or_bad(c, pkt, fs);
        return;
    }
    if ((flags & 0x4c00) || (flags & 7) > 1) {
        fail(pkt, EW_EV_TUNNEL_BAD);
        return;
    }
    if ((flags & 7) == 1) {
        not_ip(pkt);
        return;
    }
    if (proto == ETH_ERSPAN_2 || proto == ETH_ERSPAN_3) {
        erspan(c, proto, (flags & 0x1000) != 0, pkt, fs);
        return;
    }
    e = push(pkt, EW_TUN_GRE, true);
    if (!e)
        return;
    if (flags & 0x2000)
        set_id(e, key);
    inner_ethertype(c, proto, pkt, fs);
}

/* RFC 2003 §3, RFC 4213 §3.5, RFC 2473 §3: the packet inside at once */
static void
ipip(struct ew_cur *c, struct ew_pkt *pkt, const uint8_t *fs)
{
    uint16_t type = pkt->ip_proto == IPPROTO_NUM_IPIP ? ETH_IPV4 : ETH_IPV6;

    if (push(pkt, EW_TUN_IPIP, true))
        ew_dissect_ip(c, type, pkt, fs);
}

/* ---- over UDP: VXLAN, VXLAN-GPE and NSH, Geneve, GTP-U ---- */

/* RFC 7348 §5: flags (8 bits, I set: the VNI is valid), 24 reserved bits,
 * the VNI (24 bits), 8 reserved bits; an Ethernet frame follows. */
static void
vxlan(struct ew_cur *c, struct ew_pkt *pkt, const uint8_t *fs)
{
    uint8_t flags = ew_cur_u8(c);
    uint32_t vni;
    struct ew_encap *e;

    ew_cur_skip(c, 3);
    vni = ew_cur_be24(c);
    ew_cur_skip(c, 1);
    if (c->trunc) {
        cut_or_bad(c, pkt, fs);
        return;
    }
    if (!(flags & 0x08)) {
        fail(pkt, EW_EV_TUNNEL_BAD);
        return;
    }
    e = push(pkt, EW_TUN_VXLAN, true);
    if (!e)
        return;
    set_id(e, vni);
    ew_dissect_ether(c, pkt, fs, true);
}

static void nsh(struct ew_cur *c, struct ew_pkt *pkt, const uint8_t *fs);

/* the next protocol of VXLAN-GPE and of NSH, numbered alike (RFC 8300
 * §11.2.5, draft-ietf-nvo3-vxlan-gpe-12 §11.2): IPv4 1, IPv6 2, Ethernet 3,
 * NSH 4, MPLS 5 */
static void
next_protocol(struct ew_cur *c, uint8_t np, struct ew_pkt *pkt, const uint8_t *fs)
{
    switch (np) {
    case 1:
        ew_dissect_ip(c, ETH_IPV4, pkt, fs);
        break;
    case 2:
        ew_dissect_ip(c, ETH_IPV6, pkt, fs);
        break;
    case 3:
        ew_dissect_ether(c, pkt, fs, true);
        break;
    case 4:
        nsh(c, pkt, fs);
        break;
    case 5:
        mpls(c, pkt, fs);
        break;
    default:
        not_ip(pkt);
        break;
    }
}

/* RFC 8300 §2.2-2.3: version (2 bits, 0), O, U, TTL (6), length (6 bits:
 * the whole NSH in 4-octet words, 6 for MD type 1, at least 2), U (4), MD
 * type (4), next protocol (8); the service path (SPI, 24 bits) and index
 * (8); context headers up to the length. */
static void
nsh(struct ew_cur *c, struct ew_pkt *pkt, const uint8_t *fs)
{
    uint8_t b0 = ew_cur_u8(c), b1 = ew_cur_u8(c), md = ew_cur_u8(c), np = ew_cur_u8(c);
    uint32_t spi = ew_cur_be24(c);
    unsigned len = b1 & 0x3fu;
    struct ew_encap *e;

    ew_cur_skip(c, 1); /* service index */
    if (c->trunc) {
        cut_or_bad(c, pkt, fs);
        return;
    }
    md &= 0x0f;
    if ((b0 >> 6) != 0 || len < 2 || (md == 1 && len != 6) || md == 0) {
        fail(pkt, EW_EV_TUNNEL_BAD);
        return;
    }
    if (!ew_cur_skip(c, (len - 2) * 4)) {
        cut_or_bad(c, pkt, fs);
        return;
    }
    e = push(pkt, EW_TUN_NSH, false);
    if (!e) {
        pkt->status = EW_PKT_UNDECODABLE;
        return;
    }
    set_id(e, spi);
    next_protocol(c, np, pkt, fs);
}

/* draft-ietf-nvo3-vxlan-gpe-12 §3.3: flags R R Ver(2) I P B O, 16 reserved
 * bits, next protocol (8 bits, when P is set; else an Ethernet frame, as in
 * VXLAN), the VNI (24), 8 reserved bits. */
static void
vxlan_gpe(struct ew_cur *c, struct ew_pkt *pkt, const uint8_t *fs)
{
    uint8_t flags = ew_cur_u8(c), np;
    uint32_t vni;
    struct ew_encap *e;

    ew_cur_skip(c, 2);
    np = ew_cur_u8(c);
    vni = ew_cur_be24(c);
    ew_cur_skip(c, 1);
    if (c->trunc) {
        cut_or_bad(c, pkt, fs);
        return;
    }
    if ((flags >> 4) & 3) {
        fail(pkt, EW_EV_TUNNEL_BAD);
        return;
    }
    e = push(pkt, EW_TUN_VXLAN_GPE, true);
    if (!e)
        return;
    if (flags & 0x08)
        set_id(e, vni);
    next_protocol(c, (flags & 0x04) ? np : 3, pkt, fs);
}

/* RFC 8926 §3.4: version (2 bits, 0), options length (6 bits, 4-octet
 * words), O, C, 6 reserved bits, protocol type (an EtherType), the VNI (24
 * bits), 8 reserved bits; the options, skipped by their length. */
static void
geneve(struct ew_cur *c, struct ew_pkt *pkt, const uint8_t *fs)
{
    uint8_t b0 = ew_cur_u8(c);
    uint16_t proto;
    uint32_t vni;
    struct ew_encap *e;

    ew_cur_skip(c, 1);
    proto = ew_cur_be16(c);
    vni = ew_cur_be24(c);
    ew_cur_skip(c, 1);
    if (c->trunc) {
        cut_or_bad(c, pkt, fs);
        return;
    }
    if ((b0 >> 6) != 0) {
        fail(pkt, EW_EV_TUNNEL_BAD);
        return;
    }
    if (!ew_cur_skip(c, (size_t)(b0 & 0x3f) * 4)) {
        cut_or_bad(c, pkt, fs);
        return;
    }
    e = push(pkt, EW_TUN_GENEVE, true);
    if (!e)
        return;
    set_id(e, vni);
    inner_ethertype(c, proto, pkt, fs);
}

/* 3GPP TS 29.281 §5.1: version (3 bits, 1), PT (1 for GTP), a spare bit,
 * E, S, PN; message type (255: G-PDU, a user packet); length (the octets
 * after the first 8); TEID; when any of E, S, PN: sequence number (16
 * bits), N-PDU number (8), next extension header type (8). §5.2.1: each
 * extension header is its length (in 4-octet units, not 0), its content,
 * and the next type, the chain ending at type 0. Then the user's IP
 * packet. */
static void
gtpu(struct ew_cur *c, struct ew_pkt *pkt, const uint8_t *fs)
{
    uint8_t flags = ew_cur_u8(c), type = ew_cur_u8(c), next = 0;
    uint16_t len = ew_cur_be16(c);
    uint32_t teid = ew_cur_be32(c);
    struct ew_cur body;
    struct ew_encap *e;

    if (c->trunc) {
        cut_or_bad(c, pkt, fs);
        return;
    }
    if ((flags >> 5) != 1 || !(flags & 0x10)) {
        fail(pkt, EW_EV_TUNNEL_BAD);
        return;
    }
    if (type != 255) {
        not_ip(pkt); /* echo, error indication, end marker: no user packet */
        return;
    }
    ew_cur_sub(c, len, &body);
    if (flags & 0x07) {
        ew_cur_skip(&body, 3); /* sequence number, N-PDU number */
        next = ew_cur_u8(&body);
    }
    while (next != 0 && !body.trunc) {
        uint8_t words = ew_cur_u8(&body);

        if (body.trunc)
            break;
        if (words == 0) {
            fail(pkt, EW_EV_TUNNEL_BAD);
            return;
        }
        ew_cur_skip(&body, (size_t)words * 4 - 2);
        next = ew_cur_u8(&body);
    }
    if (body.trunc) {
        cut_or_bad(&body, pkt, fs);
        return;
    }
    e = push(pkt, EW_TUN_GTPU, true);
    if (!e)
        return;
    set_id(e, teid);
    inner_ip_by_version(&body, pkt, fs);
}

static void
open_one(enum ew_tunnel type, struct ew_cur *c, struct ew_pkt *pkt, const uint8_t *fs)
{
    switch (type) {
    case EW_TUN_IPIP:
        ipip(c, pkt, fs);
        break;
    case EW_TUN_GRE:
        gre(c, pkt, fs);
        break;
    case EW_TUN_VXLAN:
        vxlan(c, pkt, fs);
        break;
    case EW_TUN_VXLAN_GPE:
        vxlan_gpe(c, pkt, fs);
        break;
    case EW_TUN_GENEVE:
        geneve(c, pkt, fs);
        break;
    case EW_TUN_GTPU:
        gtpu(c, pkt, fs);
        break;
    case EW_TUN_MPLS:
        mpls(c, pkt, fs);
        break;
    case EW_TUN_MACSEC:
        macsec(c, pkt, fs);
        break;
    case EW_TUN_ERSPAN:
    case EW_TUN_NSH:
    case EW_TUN_COUNT:
    default:
        break;
    }
}

void
ew_decap_open(struct ew_pkt *pkt, const uint8_t *fs)
{
    struct ew_pkt before;
    bool have_before = false;

    while (pkt->tun_next) {
        enum ew_tunnel type = (enum ew_tunnel)(pkt->tun_next - 1);
        struct ew_cur c;

        ew_cur_init(&c, fs + pkt->tun_at, pkt->tun_end - pkt->tun_at);
        pkt->tun_next = 0;
        if (pkt->family) { /* over an IP header: the frame to go back to */
            before = *pkt;
            have_before = true;
        }
        open_one(type, &c, pkt, fs);
        if (pkt->status != EW_PKT_OK) {
            if (have_before)
                settle(pkt, &before);
            return;
        }
    }
}
