/* dissect.c - frame driver.
 * Link decoders: Ethernet (IEEE 802.3, with IEEE 802.1Q / 802.1ad tags),
 * Linux cooked v1/v2, raw IP, BSD null and OpenBSD loop, PPP (RFC 1661, RFC
 * 1662 framing), Cisco HDLC (RFC 1547 §4.3.1), IP over InfiniBand.
 * Link-layer formats: https://www.tcpdump.org/linktypes.html. The tunnels
 * an EtherType or an IP header leads to are opened in tunnel.c. */
#include "dissectors/dissect.h"

#include <stddef.h>
#include <string.h>

#include "dissectors/dissect_eth.h"
#include "dissectors/tunnel.h"

enum {
    ETHERTYPE_IPV4 = 0x0800,
    ETHERTYPE_IPV6 = 0x86dd,
};

/* Linux cooked v1: type(2) hatype(2) halen(2) addr(8) protocol(2) */
static void
link_sll(struct ew_cur *c, struct ew_pkt *pkt, const uint8_t *fs)
{
    uint16_t proto;

    ew_cur_skip(c, 14);
    proto = ew_cur_be16(c);
    if (c->trunc) {
        ew_pkt_event(pkt, EW_EV_LINK_TRUNC);
        pkt->status = EW_PKT_UNDECODABLE;
        return;
    }
    ew_dissect_ethertype(c, proto, pkt, fs, false);
}

/* Linux cooked v2: protocol(2) reserved(2) ifindex(4) hatype(2) pkttype(1)
 * halen(1) addr(8) */
static void
link_sll2(struct ew_cur *c, struct ew_pkt *pkt, const uint8_t *fs)
{
    uint16_t proto = ew_cur_be16(c);

    ew_cur_skip(c, 18);
    if (c->trunc) {
        ew_pkt_event(pkt, EW_EV_LINK_TRUNC);
        pkt->status = EW_PKT_UNDECODABLE;
        return;
    }
    ew_dissect_ethertype(c, proto, pkt, fs, false);
}

/* BSD AF_ values for IP over the loopback: AF_INET is 2 everywhere; AF_INET6
 * is 24 (NetBSD, OpenBSD, BSD/OS), 28 (FreeBSD) or 30 (Darwin). */
static uint16_t
af_to_ethertype(uint32_t af)
{
    switch (af) {
    case 2:
        return ETHERTYPE_IPV4;
    case 24:
    case 28:
    case 30:
        return ETHERTYPE_IPV6;
    default:
        return 0;
    }
}

static void
link_null(struct ew_cur *c, struct ew_pkt *pkt, const uint8_t *fs, int network_order)
{
    uint32_t af;
    uint16_t type;

    if (network_order) {
        af = ew_cur_be32(c);
    } else {
        /* written in the capturing host's order: take whichever reading is small */
        af = ew_cur_le32(c);
        if (af > 0xffff)
            af = ((af & 0xff) << 24) | ((af & 0xff00) << 8) | ((af >> 8) & 0xff00) | (af >> 24);
    }
    if (c->trunc) {
        ew_pkt_event(pkt, EW_EV_LINK_TRUNC);
        pkt->status = EW_PKT_UNDECODABLE;
        return;
    }
    type = af_to_ethertype(af);
    if (type == 0) {
        ew_pkt_event(pkt, EW_EV_NON_IP);
        pkt->status = EW_PKT_NON_IP;
        return;
    }
    ew_dissect_ip(c, type, pkt, fs);
}

static void
link_cut(struct ew_pkt *pkt)
{
    ew_pkt_event(pkt, EW_EV_LINK_TRUNC);
    pkt->status = EW_PKT_UNDECODABLE;
}

/* Cisco HDLC (LINKTYPE_C_HDLC 104; RFC 1547 §4.3.1): address (0x0f
 * unicast, 0x8f broadcast), control 0, then an EtherType */
static void
link_chdlc(struct ew_cur *c, struct ew_pkt *pkt, const uint8_t *fs)
{
    uint16_t type;

    ew_cur_skip(c, 2);
    type = ew_cur_be16(c);
    if (c->trunc) {
        link_cut(pkt);
        return;
    }
    ew_dissect_ip_or_other(c, type, pkt, fs);
}

/* PPP (LINKTYPE_PPP 9, LINKTYPE_PPP_HDLC 50): the frame starts with the PPP
 * Protocol field, or with the HDLC-like address and control bytes 0xff 0x03
 * before it (RFC 1662 §3.1); LINKTYPE_PPP_HDLC frames starting 0x0f or 0x8f
 * are Cisco HDLC. The Protocol field is one byte when compressed (RFC 1661
 * §6.5: an odd first byte); IPv4 is 0x0021 (RFC 1332), IPv6 0x0057 (RFC
 * 5072). */
static void
link_ppp(struct ew_cur *c, struct ew_pkt *pkt, const uint8_t *fs)
{
    uint8_t b = 0;
    uint16_t proto;

    if (!ew_cur_peek_u8(c, &b)) {
        link_cut(pkt);
        return;
    }
    if (b == 0x0f || b == 0x8f) {
        link_chdlc(c, pkt, fs);
        return;
    }
    if (b == 0xff) {
        ew_cur_skip(c, 1);
        if (ew_cur_u8(c) != 0x03 || c->trunc) {
            if (c->trunc) {
                link_cut(pkt);
            } else {
                ew_pkt_event(pkt, EW_EV_NON_IP);
                pkt->status = EW_PKT_NON_IP;
            }
            return;
        }
        if (!ew_cur_peek_u8(c, &b)) {
            link_cut(pkt);
            return;
        }
    }
    proto = (b & 1) ? ew_cur_u8(c) : ew_cur_be16(c);
    if (c->trunc) {
        link_cut(pkt);
        return;
    }
    ew_dissect_ip_or_other(
        c, proto == 0x0021 ? ETHERTYPE_IPV4 : proto == 0x0057 ? ETHERTYPE_IPV6 : 0, pkt, fs);
}

/* IP over InfiniBand (LINKTYPE_IPOIB 242). The encapsulation header on the
 * wire is 4 bytes, an EtherType and 2 reserved (RFC 4391 §6); what libpcap
 * captures on Linux puts a 40-byte pseudo-header before it (an InfiniBand
 * Global Route Header, or 20 zero bytes and the 20-byte destination
 * address), so that the EtherType is at offset 40 and the IP packet at 44:
 * tcpdump's print-ipoib.c (IPOIB_HDRLEN 44) and Wireshark's packet-ipoib.c
 * (a 40-byte GRH for LINKTYPE_IPOIB) read it so. */
static void
link_ipoib(struct ew_cur *c, struct ew_pkt *pkt, const uint8_t *fs)
{
    uint16_t type;

    ew_cur_skip(c, 40);
    type = ew_cur_be16(c);
    ew_cur_skip(c, 2);
    if (c->trunc) {
        link_cut(pkt);
        return;
    }
    ew_dissect_ip_or_other(c, type, pkt, fs);
}

/* Linux NFLOG (LINKTYPE_NFLOG 239): what `tcpdump -i nflog:GROUP` captures
 * from the kernel's NFLOG target (iptables -j NFLOG, nftables "log group").
 * A 4-byte header (address family, version, resource id), then TLVs: a
 * 16-bit length (with its 4-byte header; the next TLV starts at the length
 * padded to 4 bytes) and a 16-bit type (the top bit flags nesting), in the
 * byte order of the host that captured them; type 9 (NFULA_PAYLOAD) holds
 * the packet from its IP header (tcpdump.org, LINKTYPE_NFLOG; libpcap's
 * pcap/nflog.h). libpcap swaps the TLVs to the reading host's order and a
 * file read here is not, so both orders are tried: the one whose lengths
 * walk from TLV to TLV to the payload is taken. */
#define NFLOG_HDR 4
#define NFULA_PAYLOAD 9

static uint16_t
nflog_u16(struct ew_cur *c, bool swap)
{
    uint16_t v = ew_cur_be16(c);

    if (swap)
        v = (uint16_t)((v >> 8) | (v << 8));
    return v;
}

/* The payload's offset in the frame and its length in *len, read in one
 * byte order (swap: little-endian); 0 when the TLVs do not lead to one. */
static size_t
nflog_payload(const uint8_t *data, size_t caplen, bool swap, size_t *len)
{
    struct ew_cur c;

    ew_cur_init(&c, data, caplen);
    ew_cur_skip(&c, NFLOG_HDR);
    while (!c.trunc && ew_cur_left(&c) > 0) {
        size_t at = caplen - ew_cur_left(&c);
        uint16_t tlen = nflog_u16(&c, swap);
        uint16_t type = (uint16_t)(nflog_u16(&c, swap) & 0x7fff);

        if (c.trunc)
            break;
        if (tlen < 4)
            return 0;
        if (type == NFULA_PAYLOAD) {
            *len = (size_t)tlen - 4;
            return at + 4;
        }
        if (!ew_cur_skip(&c, (((size_t)tlen + 3) & ~(size_t)3) - 4))
            break;
    }
    return 0;
}

static void
link_nflog(struct ew_cur *c, struct ew_pkt *pkt, const uint8_t *fs)
{
    size_t caplen = ew_cur_left(c), len = 0, at;
    uint8_t family = 0;
    struct ew_cur sub;

    if (!ew_cur_peek_u8(c, &family) || caplen < NFLOG_HDR) {
        link_cut(pkt);
        return;
    }
    at = nflog_payload(c->p, caplen, true, &len);
    if (!at)
        at = nflog_payload(c->p, caplen, false, &len);
    if (!at) {
        /* no payload in what was captured: cut, or a message without one */
        if (caplen < pkt->wirelen) {
            link_cut(pkt);
        } else {
            ew_pkt_event(pkt, EW_EV_NON_IP);
            pkt->status = EW_PKT_NON_IP;
        }
        return;
    }
    ew_cur_skip(c, at);
    ew_cur_sub(c, len, &sub);
    /* the message's length says nothing of the packet's: the kernel copies
     * at most its copy range (--nflog-size), so a packet cut short is cut as
     * by a snapshot length, not short on the wire */
    pkt->wirelen = 0;
    /* AF_INET 2, AF_INET6 10, as Linux numbers them */
    ew_dissect_ip_or_other(
        &sub, family == 2 ? ETHERTYPE_IPV4 : family == 10 ? ETHERTYPE_IPV6 : 0, pkt, fs);
}

void
ew_dissect_frame(enum ew_link link, const uint8_t *data, size_t caplen, uint32_t wirelen,
                 struct ew_pkt *pkt)
{
    struct ew_cur c;

    /* all but the tunnels' records, which only their count makes valid */
    memset(pkt, 0, offsetof(struct ew_pkt, encap));
    pkt->link = link;
    pkt->status = EW_PKT_OK;
    ew_cur_init(&c, data, caplen);
    pkt->caplen = caplen > UINT32_MAX ? UINT32_MAX : (uint32_t)caplen;
    pkt->wirelen = wirelen;

    switch (link) {
    case EW_LINK_ETHERNET:
        ew_dissect_ether(&c, pkt, data, false);
        break;
    case EW_LINK_SLL:
        link_sll(&c, pkt, data);
        break;
    case EW_LINK_SLL2:
        link_sll2(&c, pkt, data);
        break;
    case EW_LINK_RAW:
        ew_dissect_ip(&c, 0, pkt, data);
        break;
    case EW_LINK_IPV4:
        ew_dissect_ip(&c, ETHERTYPE_IPV4, pkt, data);
        break;
    case EW_LINK_IPV6:
        ew_dissect_ip(&c, ETHERTYPE_IPV6, pkt, data);
        break;
    case EW_LINK_NULL:
        link_null(&c, pkt, data, 0);
        break;
    case EW_LINK_LOOP:
        link_null(&c, pkt, data, 1);
        break;
    case EW_LINK_PPP:
        link_ppp(&c, pkt, data);
        break;
    case EW_LINK_CHDLC:
        link_chdlc(&c, pkt, data);
        break;
    case EW_LINK_IPOIB:
        link_ipoib(&c, pkt, data);
        break;
    case EW_LINK_NFLOG:
        link_nflog(&c, pkt, data);
        break;
    case EW_LINK_UNSUPPORTED:
        ew_pkt_event(pkt, EW_EV_LINK_UNSUPPORTED);
        pkt->status = EW_PKT_UNDECODABLE;
        break;
    case EW_LINK_COUNT:
    default:
        pkt->status = EW_PKT_UNDECODABLE;
        break;
    }
    if (pkt->tun_next)
        ew_decap_open(pkt, data);
    if (pkt->status != EW_PKT_OK) {
        pkt->l4 = EW_L4_NONE;
        pkt->n_encap = 0;
    }
}
