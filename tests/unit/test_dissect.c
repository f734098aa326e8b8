/* test_dissect.c - frame decoding from literal frames: every link type, IPv4
 * and IPv6 with their anomalies, TCP flags and options (AccECN included), UDP,
 * and truncation sweeps. Every frame is dissected from an exact-size heap copy
 * so that AddressSanitizer reports any read past the captured bytes. */
#include <CUnit/CUnit.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dissectors/dissect.h"
#include "dissectors/ecn.h"
#include "dissectors/pkt.h"
#include "dissectors/decap.h"
#include "suites.h"

#define EV(e) ((uint64_t)1 << (e))
#define ALL_EVENTS (EV(EW_EV_COUNT) - 1)
#define TRUNC_EVENTS                                                                             \
    (EV(EW_EV_LINK_TRUNC) | EV(EW_EV_IPV4_TRUNC) | EV(EW_EV_IPV6_TRUNC) | EV(EW_EV_TCP_TRUNC) | \
     EV(EW_EV_TCP_OPT_TRUNC) | EV(EW_EV_UDP_TRUNC) | EV(EW_EV_TUNNEL_TRUNC))

/* Ethernet: dst 02:00:00:00:00:02, src 02:00:00:00:00:01 */
#define ETH_ADDRS 0x02, 0x00, 0x00, 0x00, 0x00, 0x02, 0x02, 0x00, 0x00, 0x00, 0x00, 0x01
/* IPv4: 192.0.2.1 -> 198.51.100.2 */
#define V4_ADDRS 0xc0, 0x00, 0x02, 0x01, 0xc6, 0x33, 0x64, 0x02
/* IPv6: 2001:db8::1 -> 2001:db8::2 */
#define V6_ADDRS                                                                                 \
    0x20, 0x01, 0x0d, 0xb8, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,    \
        0x01, 0x20, 0x01, 0x0d, 0xb8, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,      \
        0x00, 0x00, 0x02
/* TCP: ports 41394 -> 5201, seq 0x01020304, ack 0x0a0b0c0d */
#define TCP_PORTS_SEQ_ACK 0xa1, 0xb2, 0x14, 0x51, 0x01, 0x02, 0x03, 0x04, 0x0a, 0x0b, 0x0c, 0x0d
#define SPORT 41394
#define DPORT 5201
#define SEQ 0x01020304u
#define ACK 0x0a0b0c0du

/* IPv4 + TCP, 40 bytes: ECT(0), id 1, DF, TTL 64; TCP ACK, doff 5, no payload */
#define IPV4_TCP_PKT                                                                             \
    0x45, 0x02, 0x00, 0x28,     /* version 4, IHL 5, ECT(0), total length 40 */                 \
        0x00, 0x01, 0x40, 0x00, /* id 1, DF */                                                  \
        0x40, 0x06, 0x00, 0x00, /* TTL 64, TCP, checksum (unchecked) */                         \
        V4_ADDRS, TCP_PORTS_SEQ_ACK, 0x50, 0x10, 0x01, 0x00, /* doff 5, ACK, window 256 */      \
        0x00, 0x00, 0x00, 0x00                                /* checksum, urgent pointer */

/* IPv6 + TCP, 60 bytes: traffic class 0x03 (CE), hop limit 64; TCP ACK, doff 5 */
#define IPV6_TCP_PKT                                                                             \
    0x60, 0x30, 0x00, 0x00,     /* version 6, traffic class 0x03, flow label 0 */               \
        0x00, 0x14, 0x06, 0x40, /* payload length 20, next header TCP, hop limit 64 */          \
        V6_ADDRS, TCP_PORTS_SEQ_ACK, 0x50, 0x10, 0x01, 0x00, /* doff 5, ACK, window 256 */      \
        0x00, 0x00, 0x00, 0x00                                /* checksum, urgent pointer */

/* Ethernet + IPv4 (ECT(0), id 1, DF) + TCP fixed header, 54 bytes; the total
 * length's low byte, the data-offset byte (with AE) and the flags byte given */
#define ETH_IPV4_TCP_HDR(totlen, offb, flags)                                                    \
    ETH_ADDRS, 0x08, 0x00,                            /* ethertype IPv4 */                       \
        0x45, 0x02, 0x00, (totlen),                   /* IHL 5, ECT(0), total length */          \
        0x00, 0x01, 0x40, 0x00,                       /* id 1, DF */                             \
        0x40, 0x06, 0x00, 0x00,                       /* TTL 64, TCP, checksum */                \
        V4_ADDRS, TCP_PORTS_SEQ_ACK, (offb), (flags), /* data offset | AE, flags */              \
        0x01, 0x00, 0x00, 0x00, 0x00, 0x00            /* window 256, checksum, urgent */

static const uint8_t v4_src_mapped[16] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 192, 0, 2, 1};
static const uint8_t v4_dst_mapped[16] = {0,    0,    0,  0,  0,   0,
                                          0,    0,    0,  0,  0xff, 0xff,
                                          198,  51,   100, 2};
static const uint8_t v6_src[16] = {0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
static const uint8_t v6_dst[16] = {0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2};

/* every event any dissection in this file produced */
static uint64_t events_seen;

/* Dissect caplen bytes of src from an exact-size heap copy (for caplen 0, a
 * pointer one past a 1-byte block), with the given wire length. */
static void
run(enum ew_link link, const uint8_t *src, size_t caplen, uint32_t wirelen, struct ew_pkt *pkt)
{
    uint8_t *block = malloc(caplen ? caplen : 1);
    const uint8_t *data;

    CU_ASSERT_PTR_NOT_NULL_FATAL(block);
    if (caplen) {
        memcpy(block, src, caplen);
        data = block;
    } else {
        data = block + 1;
    }
    ew_dissect_frame(link, data, caplen, wirelen, pkt);
    free(block);
    events_seen |= pkt->events;
}

/* the whole literal frame, captured in full */
#define DISSECT(link, arr, pkt) run((link), (arr), sizeof(arr), (uint32_t)sizeof(arr), (pkt))

/* the plain IPV4_TCP_PKT at frame offset off */
static void
check_ipv4_tcp_pkt(const struct ew_pkt *p, uint32_t off)
{
    CU_ASSERT_EQUAL(p->status, EW_PKT_OK);
    CU_ASSERT_EQUAL(p->events, 0);
    CU_ASSERT_EQUAL(p->family, 4);
    CU_ASSERT_EQUAL(memcmp(p->src, v4_src_mapped, 16), 0);
    CU_ASSERT_EQUAL(memcmp(p->dst, v4_dst_mapped, 16), 0);
    CU_ASSERT_EQUAL(p->ecn, EW_ECN_ECT_0);
    CU_ASSERT_EQUAL(p->ip_proto, 6);
    CU_ASSERT_EQUAL(p->ip_id, 1);
    CU_ASSERT_EQUAL(p->ip_len, 40);
    CU_ASSERT_EQUAL(p->l4, EW_L4_TCP);
    CU_ASSERT_EQUAL(p->u.tcp.sport, SPORT);
    CU_ASSERT_EQUAL(p->u.tcp.dport, DPORT);
    CU_ASSERT_EQUAL(p->u.tcp.seq, SEQ);
    CU_ASSERT_EQUAL(p->u.tcp.ack, ACK);
    CU_ASSERT_EQUAL(p->u.tcp.flags, EW_TCP_ACK);
    CU_ASSERT_EQUAL(p->u.tcp.payload, 0);
    CU_ASSERT_EQUAL(p->l4_end, off + 40);
}

/* the plain IPV6_TCP_PKT at frame offset off */
static void
check_ipv6_tcp_pkt(const struct ew_pkt *p, uint32_t off)
{
    CU_ASSERT_EQUAL(p->status, EW_PKT_OK);
    CU_ASSERT_EQUAL(p->events, 0);
    CU_ASSERT_EQUAL(p->family, 6);
    CU_ASSERT_EQUAL(memcmp(p->src, v6_src, 16), 0);
    CU_ASSERT_EQUAL(memcmp(p->dst, v6_dst, 16), 0);
    CU_ASSERT_EQUAL(p->ecn, EW_ECN_CE);
    CU_ASSERT_EQUAL(p->ttl, 64);
    CU_ASSERT_EQUAL(p->ip_proto, 6);
    CU_ASSERT_EQUAL(p->ip_len, 60);
    CU_ASSERT_EQUAL(p->l4, EW_L4_TCP);
    CU_ASSERT_EQUAL(p->u.tcp.sport, SPORT);
    CU_ASSERT_EQUAL(p->u.tcp.dport, DPORT);
    CU_ASSERT_EQUAL(p->u.tcp.flags, EW_TCP_ACK);
    CU_ASSERT_EQUAL(p->l4_end, off + 60);
}

/* a frame refused below IP */
static void
check_undecodable(const struct ew_pkt *p, enum ew_event ev)
{
    CU_ASSERT_EQUAL(p->status, EW_PKT_UNDECODABLE);
    CU_ASSERT_EQUAL(p->events, EV(ev));
    CU_ASSERT_EQUAL(p->l4, EW_L4_NONE);
    CU_ASSERT_EQUAL(p->l4_end, 0);
}

static void
check_non_ip(const struct ew_pkt *p)
{
    CU_ASSERT_EQUAL(p->status, EW_PKT_NON_IP);
    CU_ASSERT_EQUAL(p->events, EV(EW_EV_NON_IP));
    CU_ASSERT_EQUAL(p->l4, EW_L4_NONE);
}

/* ---- link layers ---- */

/* Ethernet / IPv4 / TCP with each ECN codepoint */
static const uint8_t eth_v4_ect0[] = {
    ETH_ADDRS, 0x08, 0x00,  /* ethertype IPv4 */
    0x45, 0xba, 0x00, 0x2c, /* IHL 5, DSCP 46 (EF) + ECT(0), total length 44 */
    0x1c, 0x46, 0x40, 0x00, /* id 0x1c46, DF */
    0x40, 0x06, 0x00, 0x00, /* TTL 64, TCP, checksum */
    V4_ADDRS,               /* 192.0.2.1 -> 198.51.100.2 */
    TCP_PORTS_SEQ_ACK,      /* 41394 -> 5201 */
    0x50, 0x18, 0xfa, 0xf0, /* doff 5, PSH|ACK, window 64240 */
    0x00, 0x00, 0x00, 0x00, /* checksum, urgent pointer */
    'a',  'b',  'c',  'd',  /* payload */
};
static const uint8_t eth_v4_ce[] = {
    ETH_ADDRS, 0x08, 0x00,  /* ethertype IPv4 */
    0x45, 0x03, 0x00, 0x2c, /* IHL 5, DSCP 0 + CE, total length 44 */
    0x1c, 0x47, 0x40, 0x00, /* id 0x1c47, DF */
    0x40, 0x06, 0x00, 0x00, /* TTL 64, TCP, checksum */
    V4_ADDRS,               /* 192.0.2.1 -> 198.51.100.2 */
    TCP_PORTS_SEQ_ACK,      /* 41394 -> 5201 */
    0x50, 0x18, 0xfa, 0xf0, /* doff 5, PSH|ACK, window 64240 */
    0x00, 0x00, 0x00, 0x00, /* checksum, urgent pointer */
    'a',  'b',  'c',  'd',  /* payload */
};
static const uint8_t eth_v4_ect1[] = {
    ETH_ADDRS, 0x08, 0x00,  /* ethertype IPv4 */
    0x45, 0x05, 0x00, 0x2c, /* IHL 5, DSCP 1 (LE) + ECT(1), total length 44 */
    0x1c, 0x48, 0x40, 0x00, /* id 0x1c48, DF */
    0x40, 0x06, 0x00, 0x00, /* TTL 64, TCP, checksum */
    V4_ADDRS,               /* 192.0.2.1 -> 198.51.100.2 */
    TCP_PORTS_SEQ_ACK,      /* 41394 -> 5201 */
    0x50, 0x18, 0xfa, 0xf0, /* doff 5, PSH|ACK, window 64240 */
    0x00, 0x00, 0x00, 0x00, /* checksum, urgent pointer */
    'a',  'b',  'c',  'd',  /* payload */
};
static const uint8_t eth_v4_notect[] = {
    ETH_ADDRS, 0x08, 0x00,  /* ethertype IPv4 */
    0x45, 0xfc, 0x00, 0x2c, /* IHL 5, DSCP 63 + Not-ECT, total length 44 */
    0x1c, 0x49, 0x40, 0x00, /* id 0x1c49, DF */
    0x40, 0x06, 0x00, 0x00, /* TTL 64, TCP, checksum */
    V4_ADDRS,               /* 192.0.2.1 -> 198.51.100.2 */
    TCP_PORTS_SEQ_ACK,      /* 41394 -> 5201 */
    0x50, 0x18, 0xfa, 0xf0, /* doff 5, PSH|ACK, window 64240 */
    0x00, 0x00, 0x00, 0x00, /* checksum, urgent pointer */
    'a',  'b',  'c',  'd',  /* payload */
};

static void
test_eth_ipv4_tcp_ecn(void)
{
    static const struct {
        const uint8_t *frame;
        size_t len;
        uint8_t ecn, dscp;
        uint16_t id;
    } cases[] = {
        {eth_v4_ect0, sizeof(eth_v4_ect0), EW_ECN_ECT_0, 46, 0x1c46},
        {eth_v4_ce, sizeof(eth_v4_ce), EW_ECN_CE, 0, 0x1c47},
        {eth_v4_ect1, sizeof(eth_v4_ect1), EW_ECN_ECT_1, 1, 0x1c48},
        {eth_v4_notect, sizeof(eth_v4_notect), EW_ECN_NOT_ECT, 63, 0x1c49},
    };
    size_t i;

    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct ew_pkt p;

        run(EW_LINK_ETHERNET, cases[i].frame, cases[i].len, (uint32_t)cases[i].len, &p);
        CU_ASSERT_EQUAL(p.link, EW_LINK_ETHERNET);
        CU_ASSERT_EQUAL(p.caplen, 58);
        CU_ASSERT_EQUAL(p.wirelen, 58);
        CU_ASSERT_EQUAL(p.status, EW_PKT_OK);
        CU_ASSERT_EQUAL(p.events, 0);
        CU_ASSERT_EQUAL(p.vlan_depth, 0);
        CU_ASSERT_EQUAL(p.family, 4);
        CU_ASSERT_EQUAL(memcmp(p.src, v4_src_mapped, 16), 0);
        CU_ASSERT_EQUAL(memcmp(p.dst, v4_dst_mapped, 16), 0);
        CU_ASSERT_EQUAL(p.ecn, cases[i].ecn);
        CU_ASSERT_EQUAL(p.dscp, cases[i].dscp);
        CU_ASSERT_EQUAL(p.ttl, 64);
        CU_ASSERT_EQUAL(p.ip_proto, 6);
        CU_ASSERT_EQUAL(p.ip_id, cases[i].id);
        CU_ASSERT_EQUAL(p.ip_len, 44);
        CU_ASSERT_FALSE(p.fragment);
        CU_ASSERT_FALSE(p.later_fragment);
        CU_ASSERT_EQUAL(p.ext_count, 0);
        CU_ASSERT_EQUAL(p.l4, EW_L4_TCP);
        CU_ASSERT_EQUAL(p.u.tcp.sport, SPORT);
        CU_ASSERT_EQUAL(p.u.tcp.dport, DPORT);
        CU_ASSERT_EQUAL(p.u.tcp.seq, SEQ);
        CU_ASSERT_EQUAL(p.u.tcp.ack, ACK);
        CU_ASSERT_EQUAL(p.u.tcp.flags, EW_TCP_PSH | EW_TCP_ACK);
        CU_ASSERT_EQUAL(p.u.tcp.doff, 5);
        CU_ASSERT_EQUAL(p.u.tcp.window, 64240);
        CU_ASSERT_EQUAL(p.u.tcp.payload, 4);
        CU_ASSERT_TRUE(p.u.tcp.opts_complete);
        CU_ASSERT_FALSE(p.u.tcp.has_mss);
        CU_ASSERT_FALSE(p.u.tcp.acc.present);
        CU_ASSERT_EQUAL(p.l4_end, 54);
    }
}

static void
test_eth_vlan_single(void)
{
    static const uint8_t f[] = {
        ETH_ADDRS, 0x81, 0x00, /* TPID 802.1Q */
        0x20, 0x64,            /* PCP 1, VID 100 */
        0x08, 0x00,            /* ethertype IPv4 */
        IPV4_TCP_PKT,
    };
    struct ew_pkt p;

    DISSECT(EW_LINK_ETHERNET, f, &p);
    CU_ASSERT_EQUAL(p.vlan_depth, 1);
    CU_ASSERT_EQUAL(p.vlan_id[0], 100);
    check_ipv4_tcp_pkt(&p, 18);
}

static void
test_eth_vlan_double(void)
{
    static const uint8_t ad_q[] = {
        ETH_ADDRS, 0x88, 0xa8, /* TPID 802.1ad (S-tag) */
        0xe0, 0xc8,            /* PCP 7, VID 200 */
        0x81, 0x00,            /* TPID 802.1Q (C-tag) */
        0x0f, 0xff,            /* VID 4095 */
        0x08, 0x00,            /* ethertype IPv4 */
        IPV4_TCP_PKT,
    };
    static const uint8_t old_qinq[] = {
        ETH_ADDRS, 0x91, 0x00, /* TPID 0x9100 (pre-standard QinQ) */
        0x00, 0x0a,            /* VID 10 */
        0x81, 0x00,            /* TPID 802.1Q */
        0x00, 0x14,            /* VID 20 */
        0x86, 0xdd,            /* ethertype IPv6 */
        IPV6_TCP_PKT,
    };
    struct ew_pkt p;

    DISSECT(EW_LINK_ETHERNET, ad_q, &p);
    CU_ASSERT_EQUAL(p.vlan_depth, 2);
    CU_ASSERT_EQUAL(p.vlan_id[0], 200);
    CU_ASSERT_EQUAL(p.vlan_id[1], 4095);
    check_ipv4_tcp_pkt(&p, 22);

    DISSECT(EW_LINK_ETHERNET, old_qinq, &p);
    CU_ASSERT_EQUAL(p.vlan_depth, 2);
    CU_ASSERT_EQUAL(p.vlan_id[0], 10);
    CU_ASSERT_EQUAL(p.vlan_id[1], 20);
    check_ipv6_tcp_pkt(&p, 22);
}

static void
test_eth_vlan_too_deep(void)
{
    static const uint8_t f[] = {
        ETH_ADDRS, 0x88, 0xa8, /* 802.1ad */
        0x00, 0x01,            /* VID 1 */
        0x81, 0x00,            /* 802.1Q */
        0x00, 0x02,            /* VID 2 */
        0x81, 0x00,            /* 802.1Q: one tag too many */
        0x00, 0x03,            /* VID 3 */
        0x08, 0x00,            /* ethertype IPv4 */
        IPV4_TCP_PKT,
    };
    struct ew_pkt p;

    DISSECT(EW_LINK_ETHERNET, f, &p);
    check_undecodable(&p, EW_EV_VLAN_TOO_DEEP);
    CU_ASSERT_EQUAL(p.vlan_depth, 2);
}

static void
test_eth_link_trunc(void)
{
    static const uint8_t vlan_cut[] = {
        ETH_ADDRS, 0x81, 0x00, /* 802.1Q */
        0x00, 0x64,            /* VID 100, then the capture ends before the ethertype */
    };
    static const uint8_t f[] = {
        ETH_ADDRS, 0x08, 0x00, /* ethertype IPv4 */
        IPV4_TCP_PKT,
    };
    struct ew_pkt p;
    size_t n;

    /* Ethernet header cut at every length 0..13 */
    for (n = 0; n < 14; n++) {
        run(EW_LINK_ETHERNET, f, n, (uint32_t)sizeof(f), &p);
        check_undecodable(&p, EW_EV_LINK_TRUNC);
        CU_ASSERT_EQUAL(p.caplen, n);
    }
    DISSECT(EW_LINK_ETHERNET, vlan_cut, &p);
    check_undecodable(&p, EW_EV_LINK_TRUNC);
    CU_ASSERT_EQUAL(p.vlan_depth, 0);
}

static void
test_eth_non_ip(void)
{
    static const uint8_t arp[] = {
        0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02, 0x00, 0x00, 0x00, 0x00, 0x01, /* broadcast */
        0x08, 0x06,                                                             /* ARP */
        0x00, 0x01, 0x08, 0x00, 0x06, 0x04, 0x00, 0x01, /* Ethernet/IPv4, request */
        0x02, 0x00, 0x00, 0x00, 0x00, 0x01, V4_ADDRS,   /* sender MAC, sender IP, target IP */
        0x00, 0x00, 0x00, 0x00, 0x00, 0x00,             /* target MAC (after the IPs here) */
    };
    static const uint8_t vlan_arp[] = {
        ETH_ADDRS, 0x81, 0x00, /* 802.1Q */
        0x00, 0x05,            /* VID 5 */
        0x08, 0x06,            /* ARP */
        0x00, 0x01, 0x08, 0x00, 0x06, 0x04, 0x00, 0x02,
    };
    static const uint8_t llc[] = {
        ETH_ADDRS, 0x00, 0x26, /* IEEE 802.3 length 38 */
        0x42, 0x42, 0x03,      /* LLC: STP */
        0x00, 0x00, 0x00,
    };
    struct ew_pkt p;

    DISSECT(EW_LINK_ETHERNET, arp, &p);
    check_non_ip(&p);
    DISSECT(EW_LINK_ETHERNET, vlan_arp, &p);
    check_non_ip(&p);
    CU_ASSERT_EQUAL(p.vlan_depth, 1);
    CU_ASSERT_EQUAL(p.vlan_id[0], 5);
    DISSECT(EW_LINK_ETHERNET, llc, &p);
    check_non_ip(&p);
}

/* Ethernet pads frames to 60 bytes: bytes past the IP total length are not IP */
static void
test_eth_padding(void)
{
    static const uint8_t tcp_padded[] = {
        ETH_ADDRS, 0x08, 0x00,              /* ethertype IPv4 */
        IPV4_TCP_PKT,                       /* total length 40, doff 5 */
        0x02, 0x04, 0x05, 0xb4, 0x01, 0x01, /* padding that looks like an MSS option */
    };
    static const uint8_t doff_into_pad[] = {
        ETH_ADDRS, 0x08, 0x00,  /* ethertype IPv4 */
        0x45, 0x02, 0x00, 0x28, /* IHL 5, ECT(0), total length 40 */
        0x00, 0x01, 0x40, 0x00, /* id 1, DF */
        0x40, 0x06, 0x00, 0x00, /* TTL 64, TCP, checksum */
        V4_ADDRS, TCP_PORTS_SEQ_ACK,
        0x60, 0x10, 0x01, 0x00, /* doff 6: the option word would be the padding */
        0x00, 0x00, 0x00, 0x00, /* checksum, urgent pointer */
        0x02, 0x04, 0x05, 0xb4, /* padding: an MSS option if parsed */
        0x00, 0x00,             /* padding */
    };
    static const uint8_t udp_padded[] = {
        ETH_ADDRS, 0x08, 0x00,  /* ethertype IPv4 */
        0x45, 0x01, 0x00, 0x1e, /* IHL 5, ECT(1), total length 30 */
        0x00, 0x02, 0x00, 0x00, /* id 2 */
        0x40, 0x11, 0x00, 0x00, /* TTL 64, UDP, checksum */
        V4_ADDRS,
        0x14, 0xe9, 0x01, 0xbb, /* UDP 5353 -> 443 */
        0x00, 0x0a, 0x00, 0x00, /* length 10, checksum */
        0x68, 0x69,             /* payload "hi" */
        0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* padding */
        0x00, 0x00, 0x00, 0x00,
    };
    struct ew_pkt p;

    CU_ASSERT_EQUAL(sizeof(tcp_padded), 60);
    DISSECT(EW_LINK_ETHERNET, tcp_padded, &p);
    check_ipv4_tcp_pkt(&p, 14);
    CU_ASSERT_FALSE(p.u.tcp.has_mss);
    CU_ASSERT_TRUE(p.u.tcp.opts_complete);

    CU_ASSERT_EQUAL(sizeof(doff_into_pad), 60);
    DISSECT(EW_LINK_ETHERNET, doff_into_pad, &p);
    CU_ASSERT_EQUAL(p.status, EW_PKT_OK);
    CU_ASSERT_EQUAL(p.events, EV(EW_EV_TCP_DOFF_PAST_END));
    CU_ASSERT_EQUAL(p.l4, EW_L4_NONE);
    CU_ASSERT_FALSE(p.u.tcp.has_mss);

    CU_ASSERT_EQUAL(sizeof(udp_padded), 60);
    DISSECT(EW_LINK_ETHERNET, udp_padded, &p);
    CU_ASSERT_EQUAL(p.status, EW_PKT_OK);
    CU_ASSERT_EQUAL(p.events, 0);
    CU_ASSERT_EQUAL(p.ecn, EW_ECN_ECT_1);
    CU_ASSERT_EQUAL(p.l4, EW_L4_UDP);
    CU_ASSERT_EQUAL(p.u.udp.sport, 5353);
    CU_ASSERT_EQUAL(p.u.udp.dport, 443);
    CU_ASSERT_EQUAL(p.u.udp.len, 10);
    CU_ASSERT_EQUAL(p.u.udp.payload, 2);
    CU_ASSERT_EQUAL(p.l4_end, 42);
}

static void
test_sll_v1(void)
{
    static const uint8_t f[] = {
        0x00, 0x00,                                     /* packet type: to us */
        0x00, 0x01,                                     /* ARPHRD_ETHER */
        0x00, 0x06,                                     /* address length 6 */
        0x02, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, /* address, padded to 8 */
        0x08, 0x00,                                     /* protocol IPv4 (offset 14) */
        IPV4_TCP_PKT,
    };
    static const uint8_t vlan[] = {
        0x00, 0x04, 0x00, 0x01, 0x00, 0x06, /* outgoing, ARPHRD_ETHER, length 6 */
        0x02, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00,
        0x81, 0x00, /* protocol 802.1Q */
        0x00, 0x07, /* VID 7 */
        0x86, 0xdd, /* IPv6 */
        IPV6_TCP_PKT,
    };
    static const uint8_t arp[] = {
        0x00, 0x01, 0x00, 0x01, 0x00, 0x06, 0x02, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00,
        0x08, 0x06, /* protocol ARP */
        0x00, 0x01, 0x08, 0x00,
    };
    struct ew_pkt p;
    size_t n;

    DISSECT(EW_LINK_SLL, f, &p);
    CU_ASSERT_EQUAL(p.link, EW_LINK_SLL);
    check_ipv4_tcp_pkt(&p, 16);
    DISSECT(EW_LINK_SLL, vlan, &p);
    CU_ASSERT_EQUAL(p.vlan_depth, 1);
    CU_ASSERT_EQUAL(p.vlan_id[0], 7);
    check_ipv6_tcp_pkt(&p, 20);
    DISSECT(EW_LINK_SLL, arp, &p);
    check_non_ip(&p);
    for (n = 0; n < 16; n++) {
        run(EW_LINK_SLL, f, n, (uint32_t)sizeof(f), &p);
        check_undecodable(&p, EW_EV_LINK_TRUNC);
    }
}

static void
test_sll_v2(void)
{
    static const uint8_t f[] = {
        0x86, 0xdd,                                     /* protocol IPv6 (offset 0) */
        0x00, 0x00,                                     /* reserved */
        0x00, 0x00, 0x00, 0x02,                         /* interface index 2 */
        0x00, 0x01,                                     /* ARPHRD_ETHER */
        0x00,                                           /* packet type: to us */
        0x06,                                           /* address length 6 */
        0x02, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, /* address, padded to 8 */
        IPV6_TCP_PKT,
    };
    static const uint8_t v4[] = {
        0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03, 0x03, 0x04, 0x04, 0x00, /* IPv4, lo */
        0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
        IPV4_TCP_PKT,
    };
    static const uint8_t other[] = {
        0x88, 0xcc, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x00, 0x01, 0x00, 0x06, /* LLDP */
        0x02, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00,
        0x02, 0x07, 0x04,
    };
    struct ew_pkt p;
    size_t n;

    DISSECT(EW_LINK_SLL2, f, &p);
    CU_ASSERT_EQUAL(p.link, EW_LINK_SLL2);
    check_ipv6_tcp_pkt(&p, 20);
    DISSECT(EW_LINK_SLL2, v4, &p);
    check_ipv4_tcp_pkt(&p, 20);
    DISSECT(EW_LINK_SLL2, other, &p);
    check_non_ip(&p);
    for (n = 0; n < 20; n++) {
        run(EW_LINK_SLL2, f, n, (uint32_t)sizeof(f), &p);
        check_undecodable(&p, EW_EV_LINK_TRUNC);
    }
}

static void
test_raw(void)
{
    static const uint8_t v4[] = {IPV4_TCP_PKT};
    static const uint8_t v6[] = {IPV6_TCP_PKT};
    static const uint8_t v5[] = {
        0x55, 0x00, 0x00, 0x14, 0x00, 0x00, 0x00, 0x00, 0x40, 0x06, 0x00, 0x00, /* version 5 */
        V4_ADDRS,
    };
    struct ew_pkt p;

    DISSECT(EW_LINK_RAW, v4, &p);
    CU_ASSERT_EQUAL(p.link, EW_LINK_RAW);
    check_ipv4_tcp_pkt(&p, 0);
    DISSECT(EW_LINK_RAW, v6, &p);
    check_ipv6_tcp_pkt(&p, 0);
    DISSECT(EW_LINK_RAW, v5, &p);
    check_undecodable(&p, EW_EV_IP_VERSION_BAD);
    /* nothing captured: not even a version nibble */
    run(EW_LINK_RAW, v4, 0, 40, &p);
    check_undecodable(&p, EW_EV_LINK_TRUNC);
}

static void
test_link_ipv4_ipv6(void)
{
    static const uint8_t v4[] = {IPV4_TCP_PKT};
    static const uint8_t v6[] = {IPV6_TCP_PKT};
    struct ew_pkt p;

    DISSECT(EW_LINK_IPV4, v4, &p);
    CU_ASSERT_EQUAL(p.link, EW_LINK_IPV4);
    check_ipv4_tcp_pkt(&p, 0);
    DISSECT(EW_LINK_IPV6, v6, &p);
    check_ipv6_tcp_pkt(&p, 0);
    /* the link says one version, the header another */
    DISSECT(EW_LINK_IPV4, v6, &p);
    check_undecodable(&p, EW_EV_IP_VERSION_BAD);
    DISSECT(EW_LINK_IPV6, v4, &p);
    check_undecodable(&p, EW_EV_IP_VERSION_BAD);
    /* an empty frame on a fixed-version link is a cut IP header */
    run(EW_LINK_IPV4, v4, 0, 40, &p);
    check_undecodable(&p, EW_EV_IPV4_TRUNC);
    run(EW_LINK_IPV6, v6, 0, 60, &p);
    check_undecodable(&p, EW_EV_IPV6_TRUNC);
}

/* BSD null: the address family in the capturing host's byte order */
static void
test_null(void)
{
    static const uint8_t inet_le[] = {0x02, 0x00, 0x00, 0x00, /* AF_INET, little-endian */
                                      IPV4_TCP_PKT};
    static const uint8_t inet_be[] = {0x00, 0x00, 0x00, 0x02, /* AF_INET, big-endian */
                                      IPV4_TCP_PKT};
    static const uint8_t inet6_24[] = {0x18, 0x00, 0x00, 0x00, /* AF_INET6 24 (NetBSD), LE */
                                       IPV6_TCP_PKT};
    static const uint8_t inet6_28[] = {0x00, 0x00, 0x00, 0x1c, /* AF_INET6 28 (FreeBSD), BE */
                                       IPV6_TCP_PKT};
    static const uint8_t inet6_30[] = {0x1e, 0x00, 0x00, 0x00, /* AF_INET6 30 (Darwin), LE */
                                       IPV6_TCP_PKT};
    static const uint8_t inet6_30be[] = {0x00, 0x00, 0x00, 0x1e, /* AF_INET6 30, BE */
                                         IPV6_TCP_PKT};
    static const uint8_t unknown[] = {0x07, 0x00, 0x00, 0x00, /* AF 7: not IP */
                                      IPV4_TCP_PKT};
    struct ew_pkt p;
    size_t n;

    DISSECT(EW_LINK_NULL, inet_le, &p);
    CU_ASSERT_EQUAL(p.link, EW_LINK_NULL);
    check_ipv4_tcp_pkt(&p, 4);
    DISSECT(EW_LINK_NULL, inet_be, &p);
    check_ipv4_tcp_pkt(&p, 4);
    DISSECT(EW_LINK_NULL, inet6_24, &p);
    check_ipv6_tcp_pkt(&p, 4);
    DISSECT(EW_LINK_NULL, inet6_28, &p);
    check_ipv6_tcp_pkt(&p, 4);
    DISSECT(EW_LINK_NULL, inet6_30, &p);
    check_ipv6_tcp_pkt(&p, 4);
    DISSECT(EW_LINK_NULL, inet6_30be, &p);
    check_ipv6_tcp_pkt(&p, 4);
    DISSECT(EW_LINK_NULL, unknown, &p);
    check_non_ip(&p);
    for (n = 0; n < 4; n++) {
        run(EW_LINK_NULL, inet_le, n, (uint32_t)sizeof(inet_le), &p);
        check_undecodable(&p, EW_EV_LINK_TRUNC);
    }
}

/* OpenBSD loop: the address family in network byte order only */
static void
test_loop(void)
{
    static const uint8_t inet[] = {0x00, 0x00, 0x00, 0x02, /* AF_INET */
                                   IPV4_TCP_PKT};
    static const uint8_t inet6[] = {0x00, 0x00, 0x00, 0x18, /* AF_INET6 24 */
                                    IPV6_TCP_PKT};
    static const uint8_t inet_le[] = {0x02, 0x00, 0x00, 0x00, /* 0x02000000: not AF_INET */
                                      IPV4_TCP_PKT};
    struct ew_pkt p;

    DISSECT(EW_LINK_LOOP, inet, &p);
    CU_ASSERT_EQUAL(p.link, EW_LINK_LOOP);
    check_ipv4_tcp_pkt(&p, 4);
    DISSECT(EW_LINK_LOOP, inet6, &p);
    check_ipv6_tcp_pkt(&p, 4);
    DISSECT(EW_LINK_LOOP, inet_le, &p);
    check_non_ip(&p);
    run(EW_LINK_LOOP, inet, 3, (uint32_t)sizeof(inet), &p);
    check_undecodable(&p, EW_EV_LINK_TRUNC);
}

/* PPP (LINKTYPE_PPP, LINKTYPE_PPP_HDLC): with and without the RFC 1662
 * address and control bytes, the Protocol field compressed (RFC 1661 §6.5)
 * or not; Cisco HDLC framing on LINKTYPE_PPP_HDLC (RFC 1547 §4.3.1) */
static void
test_ppp(void)
{
    static const uint8_t framed[] = {0xff, 0x03, 0x00, 0x21, IPV4_TCP_PKT};
    static const uint8_t bare6[] = {0x00, 0x57, IPV6_TCP_PKT};
    static const uint8_t pfc[] = {0xff, 0x03, 0x21, IPV4_TCP_PKT};
    static const uint8_t cisco[] = {0x0f, 0x00, 0x08, 0x00, IPV4_TCP_PKT};
    static const uint8_t lcp[] = {0xff, 0x03, 0xc0, 0x21, 0x01, 0x01, 0x00, 0x04};
    static const uint8_t badctl[] = {0xff, 0x05, 0x00, 0x21, IPV4_TCP_PKT};
    struct ew_pkt p;
    size_t n;

    DISSECT(EW_LINK_PPP, framed, &p);
    CU_ASSERT_EQUAL(p.link, EW_LINK_PPP);
    check_ipv4_tcp_pkt(&p, 4);
    DISSECT(EW_LINK_PPP, bare6, &p);
    check_ipv6_tcp_pkt(&p, 2);
    DISSECT(EW_LINK_PPP, pfc, &p);
    check_ipv4_tcp_pkt(&p, 3);
    DISSECT(EW_LINK_PPP, cisco, &p);
    check_ipv4_tcp_pkt(&p, 4);
    DISSECT(EW_LINK_PPP, lcp, &p);
    check_non_ip(&p);
    DISSECT(EW_LINK_PPP, badctl, &p);
    check_non_ip(&p);
    for (n = 0; n < 4; n++) {
        run(EW_LINK_PPP, framed, n, (uint32_t)sizeof(framed), &p);
        check_undecodable(&p, EW_EV_LINK_TRUNC);
    }
}

/* Cisco HDLC: address, control, EtherType */
static void
test_chdlc(void)
{
    static const uint8_t v4[] = {0x0f, 0x00, 0x08, 0x00, IPV4_TCP_PKT};
    static const uint8_t v6[] = {0x8f, 0x00, 0x86, 0xdd, IPV6_TCP_PKT};
    static const uint8_t slarp[] = {0x8f, 0x00, 0x80, 0x35, 0x00, 0x00, 0x00, 0x02};
    struct ew_pkt p;
    size_t n;

    DISSECT(EW_LINK_CHDLC, v4, &p);
    check_ipv4_tcp_pkt(&p, 4);
    DISSECT(EW_LINK_CHDLC, v6, &p);
    check_ipv6_tcp_pkt(&p, 4);
    DISSECT(EW_LINK_CHDLC, slarp, &p);
    check_non_ip(&p);
    for (n = 0; n < 4; n++) {
        run(EW_LINK_CHDLC, v4, n, (uint32_t)sizeof(v4), &p);
        check_undecodable(&p, EW_EV_LINK_TRUNC);
    }
}

/* IPoIB as libpcap writes it (LINKTYPE_IPOIB 242): a 40-byte pseudo-header
 * (no GRH: 20 zero bytes, the destination QPN and GID), then RFC 4391 §6's
 * EtherType and 2 reserved bytes; the IP packet at offset 44, as tcpdump's
 * print-ipoib.c and Wireshark's packet-ipoib.c read it */
static void
test_ipoib(void)
{
    uint8_t v4[44 + 40] = {0}, v6[44 + 60] = {0}, arp[44 + 28] = {0};
    static const uint8_t ip4[] = {IPV4_TCP_PKT};
    static const uint8_t ip6[] = {IPV6_TCP_PKT};
    struct ew_pkt p;
    size_t n;

    CU_ASSERT_EQUAL_FATAL(sizeof(ip4), 40);
    CU_ASSERT_EQUAL_FATAL(sizeof(ip6), 60);
    v4[23] = 0x48; /* QPN */
    v4[40] = 0x08;
    memcpy(v4 + 44, ip4, sizeof(ip4));
    v6[40] = 0x86;
    v6[41] = 0xdd;
    memcpy(v6 + 44, ip6, sizeof(ip6));
    arp[40] = 0x08;
    arp[41] = 0x06;
    ew_dissect_frame(EW_LINK_IPOIB, v4, sizeof(v4), (uint32_t)sizeof(v4), &p);
    check_ipv4_tcp_pkt(&p, 44);
    ew_dissect_frame(EW_LINK_IPOIB, v6, sizeof(v6), (uint32_t)sizeof(v6), &p);
    check_ipv6_tcp_pkt(&p, 44);
    ew_dissect_frame(EW_LINK_IPOIB, arp, sizeof(arp), (uint32_t)sizeof(arp), &p);
    check_non_ip(&p);
    /* only the 4-byte header of RFC 4391 is not what libpcap writes: IP at
     * offset 4 is not found */
    for (n = 0; n < 44; n++) {
        run(EW_LINK_IPOIB, v4, n, (uint32_t)sizeof(v4), &p);
        check_undecodable(&p, EW_EV_LINK_TRUNC);
    }
}

/* Linux NFLOG (LINKTYPE_NFLOG 239) as the kernel's NFLOG target writes it
 * and libpcap's pcap/nflog.h describes it: the 4-byte header (AF_INET 2 or
 * AF_INET6 10, version 0, resource id big-endian), then TLVs of a
 * host-order 16-bit length (with the 4-byte TLV header, the next TLV at the
 * length padded to 4) and type; NFULA_PAYLOAD (9) holds the packet from its
 * IP header. The layout below is that of a real capture (tcpdump -i nflog:5
 * on Linux x86-64: PACKET_HDR, then PREFIX, then PAYLOAD); read on either
 * byte order; a payload cut short is cut as by a snapshot length. */
static size_t
nflog_frame(uint8_t *out, uint8_t family, bool big, const uint8_t *ip, size_t iplen,
            bool payload_first)
{
    size_t o = 4, plen = iplen + 4;
    uint8_t tlv_hdr[4], tlv_pre[4], tlv_pay[4];

#define TLV(b, len, type)                                                                      \
    do {                                                                                       \
        (b)[big ? 1 : 0] = (uint8_t)((len)&0xff), (b)[big ? 0 : 1] = (uint8_t)((len) >> 8);    \
        (b)[big ? 3 : 2] = (uint8_t)(type), (b)[big ? 2 : 3] = 0;                              \
    } while (0)
    TLV(tlv_hdr, 8, 1);
    TLV(tlv_pre, 7, 10);
    TLV(tlv_pay, plen, 9);
#undef TLV
    out[0] = family, out[1] = 0, out[2] = 0, out[3] = 5;
    if (payload_first) {
        memcpy(out + o, tlv_pay, 4);
        memcpy(out + o + 4, ip, iplen);
        o += (plen + 3) & ~(size_t)3;
    }
    memcpy(out + o, tlv_hdr, 4);
    out[o + 4] = family == 2 ? 0x08 : 0x86, out[o + 5] = family == 2 ? 0x00 : 0xdd;
    out[o + 6] = 3, out[o + 7] = 0;
    o += 8;
    memcpy(out + o, tlv_pre, 4);
    memcpy(out + o + 4, "ew\0\0", 4); /* 7 bytes, padded to 8 */
    o += 8;
    if (!payload_first) {
        memcpy(out + o, tlv_pay, 4);
        memcpy(out + o + 4, ip, iplen);
        o += 4 + iplen;
    }
    return o;
}

static void
test_nflog(void)
{
    static const uint8_t ip4[] = {IPV4_TCP_PKT};
    static const uint8_t ip6[] = {IPV6_TCP_PKT};
    uint8_t f[128];
    struct ew_pkt p;
    size_t n, len;
    int big;

    for (big = 0; big < 2; big++) {
        len = nflog_frame(f, 2, big, ip4, sizeof(ip4), false);
        CU_ASSERT_EQUAL_FATAL(len, 20 + 4 + 40);
        run(EW_LINK_NFLOG, f, len, (uint32_t)len, &p);
        check_ipv4_tcp_pkt(&p, 24);
        len = nflog_frame(f, 10, big, ip6, sizeof(ip6), false);
        run(EW_LINK_NFLOG, f, len, (uint32_t)len, &p);
        check_ipv6_tcp_pkt(&p, 24);
        /* the payload first, the other TLVs after it: not parsed as TCP */
        len = nflog_frame(f, 2, big, ip4, sizeof(ip4), true);
        run(EW_LINK_NFLOG, f, len, (uint32_t)len, &p);
        check_ipv4_tcp_pkt(&p, 8);
        /* cut before the payload: the link header is cut */
        len = nflog_frame(f, 2, big, ip4, sizeof(ip4), false);
        for (n = 0; n < 24; n++) {
            run(EW_LINK_NFLOG, f, n, (uint32_t)len, &p);
            check_undecodable(&p, EW_EV_LINK_TRUNC);
        }
        /* cut inside the packet, as --nflog-size cuts it: truncated IP or
         * TCP, never a packet short on the wire */
        for (n = 24; n < len; n++) {
            run(EW_LINK_NFLOG, f, n, (uint32_t)len, &p);
            CU_ASSERT_FALSE(p.events & (1ull << EW_EV_IP_LEN_SHORT));
            CU_ASSERT_FALSE(p.events & (1ull << EW_EV_LINK_TRUNC));
            CU_ASSERT_TRUE(p.events != 0 || p.status != EW_PKT_OK);
        }
    }
    /* no payload: not an IP packet; a TLV of length under 4 leads nowhere */
    len = nflog_frame(f, 2, false, ip4, sizeof(ip4), false);
    run(EW_LINK_NFLOG, f, 20, 20, &p);
    check_non_ip(&p);
    f[4] = 2, f[5] = 0;
    run(EW_LINK_NFLOG, f, len, (uint32_t)len, &p);
    check_non_ip(&p);
    /* a family that is neither IPv4 nor IPv6 (AF_BRIDGE 7) */
    len = nflog_frame(f, 7, false, ip4, sizeof(ip4), false);
    run(EW_LINK_NFLOG, f, len, (uint32_t)len, &p);
    check_non_ip(&p);
    /* a payload TLV longer than the frame: what there is, cut */
    len = nflog_frame(f, 2, false, ip4, sizeof(ip4), false);
    f[20] = 0xff, f[21] = 0xff;
    run(EW_LINK_NFLOG, f, len, (uint32_t)len, &p);
    check_ipv4_tcp_pkt(&p, 24);
}

static void
test_link_unknown(void)
{
    static const uint8_t v4[] = {IPV4_TCP_PKT};
    struct ew_pkt p;

    DISSECT(EW_LINK_COUNT, v4, &p);
    CU_ASSERT_EQUAL(p.status, EW_PKT_UNDECODABLE);
    CU_ASSERT_EQUAL(p.l4, EW_L4_NONE);
    /* a pcapng interface of a link type not decoded: counted, never parsed */
    DISSECT(EW_LINK_UNSUPPORTED, v4, &p);
    CU_ASSERT_EQUAL(p.status, EW_PKT_UNDECODABLE);
    CU_ASSERT_EQUAL(p.events, EV(EW_EV_LINK_UNSUPPORTED));
    CU_ASSERT_EQUAL(p.l4, EW_L4_NONE);
}

static void
test_name_tables(void)
{
    size_t i, j;

    for (i = 0; i < EW_EV_COUNT; i++) {
        CU_ASSERT_PTR_NOT_NULL_FATAL(ew_event_name[i]);
        CU_ASSERT(ew_event_name[i][0] != '\0');
        for (j = 0; j < i; j++)
            CU_ASSERT(strcmp(ew_event_name[i], ew_event_name[j]) != 0);
    }
    for (i = 0; i < EW_LINK_COUNT; i++)
        CU_ASSERT_PTR_NOT_NULL(ew_link_name[i]);
    CU_ASSERT_STRING_EQUAL(ew_ecn_name[EW_ECN_NOT_ECT], "Not-ECT");
    CU_ASSERT_STRING_EQUAL(ew_ecn_name[EW_ECN_ECT_1], "ECT(1)");
    CU_ASSERT_STRING_EQUAL(ew_ecn_name[EW_ECN_ECT_0], "ECT(0)");
    CU_ASSERT_STRING_EQUAL(ew_ecn_name[EW_ECN_CE], "CE");
    CU_ASSERT_STRING_EQUAL(ew_ecn_key[EW_ECN_CE], "ce");
}

/* ---- IPv4 ---- */

static void
test_ipv4_header_cut(void)
{
    static const uint8_t f[] = {
        ETH_ADDRS, 0x08, 0x00, /* ethertype IPv4 */
        IPV4_TCP_PKT,
    };
    struct ew_pkt p;
    size_t k;

    /* every IPv4 header length 0..19 after a whole Ethernet header */
    for (k = 0; k < 20; k++) {
        run(EW_LINK_ETHERNET, f, 14 + k, (uint32_t)sizeof(f), &p);
        check_undecodable(&p, EW_EV_IPV4_TRUNC);
    }
    /* the same on raw IP (0 bytes there is a link truncation, see test_raw) */
    for (k = 1; k < 20; k++) {
        run(EW_LINK_RAW, f + 14, k, 40, &p);
        check_undecodable(&p, EW_EV_IPV4_TRUNC);
    }
    /* exactly the header: decoded, the transport header missing */
    run(EW_LINK_ETHERNET, f, 34, (uint32_t)sizeof(f), &p);
    CU_ASSERT_EQUAL(p.status, EW_PKT_OK);
    CU_ASSERT_EQUAL(p.events, EV(EW_EV_TCP_TRUNC));
    CU_ASSERT_EQUAL(p.ecn, EW_ECN_ECT_0);
    CU_ASSERT_EQUAL(p.l4, EW_L4_NONE);
}

static void
test_ipv4_version_bad(void)
{
    static const uint8_t v6_in_v4[] = {
        ETH_ADDRS, 0x08, 0x00, /* ethertype IPv4, but an IPv6 header follows */
        IPV6_TCP_PKT,
    };
    static const uint8_t v4_in_v6[] = {
        ETH_ADDRS, 0x86, 0xdd, /* ethertype IPv6, but an IPv4 header follows */
        IPV4_TCP_PKT,
    };
    struct ew_pkt p;

    DISSECT(EW_LINK_ETHERNET, v6_in_v4, &p);
    check_undecodable(&p, EW_EV_IP_VERSION_BAD);
    DISSECT(EW_LINK_ETHERNET, v4_in_v6, &p);
    check_undecodable(&p, EW_EV_IP_VERSION_BAD);
}

static void
test_ipv4_hlen_small(void)
{
    static const uint8_t ihl4[] = {
        ETH_ADDRS, 0x08, 0x00,
        0x44, 0x03, 0x00, 0x28, /* IHL 4, CE, total length 40 */
        0x00, 0x01, 0x00, 0x00, 0x40, 0x06, 0x00, 0x00, V4_ADDRS,
        TCP_PORTS_SEQ_ACK, 0x50, 0x10, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00,
    };
    static const uint8_t ihl0[] = {
        0x40, 0x03, 0x00, 0x14, /* IHL 0, CE, total length 20 */
        0x00, 0x01, 0x00, 0x00, 0x40, 0x06, 0x00, 0x00, V4_ADDRS,
    };
    struct ew_pkt p;

    DISSECT(EW_LINK_ETHERNET, ihl4, &p);
    check_undecodable(&p, EW_EV_IPV4_HLEN_SMALL);
    CU_ASSERT_EQUAL(p.ecn, EW_ECN_NOT_ECT); /* not taken from a broken header */
    DISSECT(EW_LINK_RAW, ihl0, &p);
    check_undecodable(&p, EW_EV_IPV4_HLEN_SMALL);
}

/* a total length below the header length: the header counts, the rest does not */
static void
test_ipv4_totlen_bad(void)
{
    static const uint8_t f19[] = {
        ETH_ADDRS, 0x08, 0x00,
        0x45, 0x03, 0x00, 0x13, /* IHL 5, CE, total length 19 */
        0x00, 0x07, 0x00, 0x00, /* id 7 */
        0x40, 0x06, 0x00, 0x00, V4_ADDRS,
        TCP_PORTS_SEQ_ACK, 0x50, 0x10, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00,
    };
    static const uint8_t ihl6_20[] = {
        ETH_ADDRS, 0x08, 0x00,
        0x46, 0x01, 0x00, 0x14, /* IHL 6 (24 bytes), ECT(1), total length 20 */
        0x00, 0x08, 0x00, 0x00, 0x40, 0x06, 0x00, 0x00, V4_ADDRS,
        0x01, 0x01, 0x01, 0x00, /* options: NOP NOP NOP EOL */
    };
    struct ew_pkt p;

    DISSECT(EW_LINK_ETHERNET, f19, &p);
    CU_ASSERT_EQUAL(p.status, EW_PKT_OK);
    CU_ASSERT_EQUAL(p.events, EV(EW_EV_IPV4_TOTLEN_BAD));
    CU_ASSERT_EQUAL(p.family, 4);
    CU_ASSERT_EQUAL(p.ecn, EW_ECN_CE);
    CU_ASSERT_EQUAL(p.ip_id, 7);
    CU_ASSERT_EQUAL(p.ip_len, 19);
    CU_ASSERT_EQUAL(p.l4, EW_L4_NONE);
    CU_ASSERT_EQUAL(p.l4_end, 0);

    DISSECT(EW_LINK_ETHERNET, ihl6_20, &p);
    CU_ASSERT_EQUAL(p.status, EW_PKT_OK);
    CU_ASSERT_EQUAL(p.events, EV(EW_EV_IPV4_TOTLEN_BAD));
    CU_ASSERT_EQUAL(p.ecn, EW_ECN_ECT_1);
    CU_ASSERT_EQUAL(p.l4, EW_L4_NONE);
}

static void
test_ipv4_options(void)
{
    static const uint8_t ihl6[] = {
        ETH_ADDRS, 0x08, 0x00,
        0x46, 0x02, 0x00, 0x2c, /* IHL 6, ECT(0), total length 44 */
        0x00, 0x01, 0x40, 0x00, 0x40, 0x06, 0x00, 0x00, V4_ADDRS,
        0x01, 0x01, 0x01, 0x00, /* options: NOP NOP NOP EOL */
        TCP_PORTS_SEQ_ACK,
        0x50, 0x10, 0x01, 0x00, /* doff 5, ACK */
        0x00, 0x00, 0x00, 0x00,
    };
    static const uint8_t ihl7[] = {
        ETH_ADDRS, 0x08, 0x00,
        0x47, 0x02, 0x00, 0x32, /* IHL 7, ECT(0), total length 50 */
        0x00, 0x01, 0x40, 0x00, 0x40, 0x06, 0x00, 0x00, V4_ADDRS,
        0x94, 0x04, 0x00, 0x00, /* router alert */
        0x01, 0x01, 0x01, 0x00, /* NOP NOP NOP EOL */
        TCP_PORTS_SEQ_ACK,
        0x50, 0x11, 0x01, 0x00, /* doff 5, FIN|ACK */
        0x00, 0x00, 0x00, 0x00,
        0x01, 0x02,             /* payload */
    };
    struct ew_pkt p;

    DISSECT(EW_LINK_ETHERNET, ihl6, &p);
    CU_ASSERT_EQUAL(p.status, EW_PKT_OK);
    CU_ASSERT_EQUAL(p.events, 0);
    CU_ASSERT_EQUAL(p.ip_len, 44);
    CU_ASSERT_EQUAL(p.l4, EW_L4_TCP);
    CU_ASSERT_EQUAL(p.u.tcp.sport, SPORT);
    CU_ASSERT_EQUAL(p.u.tcp.seq, SEQ);
    CU_ASSERT_EQUAL(p.u.tcp.flags, EW_TCP_ACK);
    CU_ASSERT_EQUAL(p.u.tcp.payload, 0);
    CU_ASSERT_EQUAL(p.l4_end, 14 + 24 + 20);

    DISSECT(EW_LINK_ETHERNET, ihl7, &p);
    CU_ASSERT_EQUAL(p.status, EW_PKT_OK);
    CU_ASSERT_EQUAL(p.events, 0);
    CU_ASSERT_EQUAL(p.ip_len, 50);
    CU_ASSERT_EQUAL(p.l4, EW_L4_TCP);
    CU_ASSERT_EQUAL(p.u.tcp.dport, DPORT);
    CU_ASSERT_EQUAL(p.u.tcp.ack, ACK);
    CU_ASSERT_EQUAL(p.u.tcp.flags, EW_TCP_FIN | EW_TCP_ACK);
    CU_ASSERT_EQUAL(p.u.tcp.payload, 2);
    CU_ASSERT_EQUAL(p.l4_end, 14 + 28 + 20);
}

/* IPv4 options cut by the snaplen: the fixed header counts, nothing above */
static void
test_ipv4_options_cut(void)
{
    static const uint8_t f[] = {
        ETH_ADDRS, 0x08, 0x00,
        0x47, 0x03, 0x00, 0x30, /* IHL 7, CE, total length 48 */
        0x00, 0x09, 0x40, 0x00, 0x40, 0x06, 0x00, 0x00, V4_ADDRS,
        0x94, 0x04, 0x00, 0x00, /* router alert */
        0x01, 0x01, 0x01, 0x00, /* NOP NOP NOP EOL */
        TCP_PORTS_SEQ_ACK, 0x50, 0x10, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00,
    };
    struct ew_pkt p;
    size_t n;

    for (n = 34; n < 42; n++) {
        run(EW_LINK_ETHERNET, f, n, (uint32_t)sizeof(f), &p);
        CU_ASSERT_EQUAL(p.status, EW_PKT_OK);
        CU_ASSERT_EQUAL(p.events, EV(EW_EV_IPV4_TRUNC));
        CU_ASSERT_EQUAL(p.family, 4);
        CU_ASSERT_EQUAL(p.ecn, EW_ECN_CE);
        CU_ASSERT_EQUAL(p.ip_id, 9);
        CU_ASSERT_EQUAL(p.ip_len, 48);
        CU_ASSERT_EQUAL(p.l4, EW_L4_NONE);
    }
}

static void
test_ipv4_first_fragment(void)
{
    static const uint8_t f[] = {
        ETH_ADDRS, 0x08, 0x00,
        0x45, 0x02, 0x00, 0x30, /* IHL 5, ECT(0), total length 48 */
        0x12, 0x34, 0x20, 0x00, /* id 0x1234, MF, offset 0 */
        0x40, 0x06, 0x00, 0x00, V4_ADDRS,
        TCP_PORTS_SEQ_ACK,
        0x50, 0x18, 0x01, 0x00, /* doff 5, PSH|ACK */
        0x00, 0x00, 0x00, 0x00,
        0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, /* payload */
    };
    struct ew_pkt p;

    DISSECT(EW_LINK_ETHERNET, f, &p);
    CU_ASSERT_EQUAL(p.status, EW_PKT_OK);
    CU_ASSERT_EQUAL(p.events, 0);
    CU_ASSERT_TRUE(p.fragment);
    CU_ASSERT_FALSE(p.later_fragment);
    CU_ASSERT_EQUAL(p.ip_id, 0x1234);
    CU_ASSERT_EQUAL(p.l4, EW_L4_TCP);
    CU_ASSERT_EQUAL(p.u.tcp.sport, SPORT);
    CU_ASSERT_EQUAL(p.u.tcp.dport, DPORT);
    CU_ASSERT_EQUAL(p.u.tcp.payload, 8);
    CU_ASSERT_EQUAL(p.l4_end, 54);
}

static void
test_ipv4_later_fragment(void)
{
    static const uint8_t last[] = {
        ETH_ADDRS, 0x08, 0x00,
        0x45, 0x03, 0x00, 0x28, /* IHL 5, CE, total length 40 */
        0x12, 0x34, 0x00, 0xb9, /* id 0x1234, offset 185 (1480 bytes), last */
        0x40, 0x06, 0x00, 0x00, V4_ADDRS,
        TCP_PORTS_SEQ_ACK,      /* payload bytes that look like a TCP header */
        0x50, 0x10, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00,
    };
    static const uint8_t high_offset[] = {
        ETH_ADDRS, 0x08, 0x00,
        0x45, 0x02, 0x00, 0x1c, /* IHL 5, ECT(0), total length 28 */
        0x12, 0x36, 0x10, 0x00, /* offset 4096 (32768 bytes): only the top offset bit */
        0x40, 0x06, 0x00, 0x00, V4_ADDRS,
        0xa1, 0xb2, 0x14, 0x51, 0x00, 0x00, 0x00, 0x00, /* data */
    };
    static const uint8_t middle[] = {
        ETH_ADDRS, 0x08, 0x00,
        0x45, 0x02, 0x00, 0x1c, /* IHL 5, ECT(0), total length 28 */
        0x12, 0x35, 0x20, 0x01, /* MF, offset 1 (8 bytes) */
        0x40, 0x11, 0x00, 0x00, V4_ADDRS,
        0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    };
    struct ew_pkt p;

    DISSECT(EW_LINK_ETHERNET, last, &p);
    CU_ASSERT_EQUAL(p.status, EW_PKT_OK);
    CU_ASSERT_EQUAL(p.events, EV(EW_EV_IPV4_FRAGMENT));
    CU_ASSERT_TRUE(p.fragment);
    CU_ASSERT_TRUE(p.later_fragment);
    CU_ASSERT_EQUAL(p.ecn, EW_ECN_CE);
    CU_ASSERT_EQUAL(p.ip_proto, 6);
    CU_ASSERT_EQUAL(p.l4, EW_L4_NONE);
    CU_ASSERT_EQUAL(p.u.tcp.sport, 0);
    CU_ASSERT_EQUAL(p.l4_end, 0);

    DISSECT(EW_LINK_ETHERNET, high_offset, &p);
    CU_ASSERT_EQUAL(p.events, EV(EW_EV_IPV4_FRAGMENT));
    CU_ASSERT_TRUE(p.later_fragment);
    CU_ASSERT_EQUAL(p.l4, EW_L4_NONE);

    DISSECT(EW_LINK_ETHERNET, middle, &p);
    CU_ASSERT_EQUAL(p.events, EV(EW_EV_IPV4_FRAGMENT));
    CU_ASSERT_TRUE(p.later_fragment);
    CU_ASSERT_EQUAL(p.ip_proto, 17);
    CU_ASSERT_EQUAL(p.l4, EW_L4_NONE);
}

/* total length 1500 in a 58-byte frame that was 58 bytes on the wire */
static void
test_ipv4_len_past_wire(void)
{
    static const uint8_t f[] = {
        ETH_ADDRS, 0x08, 0x00,
        0x45, 0x02, 0x05, 0xdc, /* IHL 5, ECT(0), total length 1500 */
        0x00, 0x01, 0x40, 0x00, 0x40, 0x06, 0x00, 0x00, V4_ADDRS,
        TCP_PORTS_SEQ_ACK, 0x50, 0x10, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00,
        'a', 'b', 'c', 'd', /* payload */
    };
    struct ew_pkt p;

    DISSECT(EW_LINK_ETHERNET, f, &p);
    CU_ASSERT_EQUAL(p.status, EW_PKT_OK);
    CU_ASSERT_EQUAL(p.events, EV(EW_EV_IP_LEN_SHORT));
    CU_ASSERT_EQUAL(p.ip_len, 1500);
    CU_ASSERT_EQUAL(p.l4, EW_L4_TCP);
    CU_ASSERT_EQUAL(p.u.tcp.sport, SPORT);
    CU_ASSERT_EQUAL(p.u.tcp.payload, 1460);

    /* the same bytes as a 1514-byte frame captured with a 58-byte snaplen */
    run(EW_LINK_ETHERNET, f, sizeof(f), 1514, &p);
    CU_ASSERT_EQUAL(p.events, 0);
    CU_ASSERT_EQUAL(p.u.tcp.payload, 1460);
    /* and cut right after the TCP header */
    run(EW_LINK_ETHERNET, f, 54, 1514, &p);
    CU_ASSERT_EQUAL(p.events, 0);
    CU_ASSERT_EQUAL(p.l4, EW_L4_TCP);
    CU_ASSERT_EQUAL(p.u.tcp.payload, 1460);
    CU_ASSERT_EQUAL(p.l4_end, 54);
    /* an unknown wire length (0) is never compared */
    run(EW_LINK_ETHERNET, f, sizeof(f), 0, &p);
    CU_ASSERT_EQUAL(p.events, 0);
    CU_ASSERT_EQUAL(p.u.tcp.payload, 1460);
}

/* total length 0 (segmentation offload): the length comes from the frame */
static void
test_ipv4_tso(void)
{
    static const uint8_t f[] = {
        ETH_ADDRS, 0x08, 0x00,
        0x45, 0x02, 0x00, 0x00, /* IHL 5, ECT(0), total length 0 */
        0x00, 0x01, 0x40, 0x00, 0x40, 0x06, 0x00, 0x00, V4_ADDRS,
        TCP_PORTS_SEQ_ACK, 0x50, 0x10, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00,
        'a', 'b', 'c', 'd', /* payload */
    };
    struct ew_pkt p;

    DISSECT(EW_LINK_ETHERNET, f, &p);
    CU_ASSERT_EQUAL(p.status, EW_PKT_OK);
    CU_ASSERT_EQUAL(p.events, 0);
    CU_ASSERT_EQUAL(p.ip_len, 44);
    CU_ASSERT_EQUAL(p.l4, EW_L4_TCP);
    CU_ASSERT_EQUAL(p.u.tcp.payload, 4);

    /* a 9014-byte offloaded frame captured with a 58-byte snaplen */
    run(EW_LINK_ETHERNET, f, sizeof(f), 9014, &p);
    CU_ASSERT_EQUAL(p.events, 0);
    CU_ASSERT_EQUAL(p.ip_len, 9000);
    CU_ASSERT_EQUAL(p.u.tcp.payload, 8960);

    /* longer than an IPv4 length can say: clamped to 65535 */
    run(EW_LINK_ETHERNET, f, sizeof(f), 70014, &p);
    CU_ASSERT_EQUAL(p.ip_len, 65535);
    CU_ASSERT_EQUAL(p.u.tcp.payload, 65535 - 40);
}

static void
test_ipv4_other_proto(void)
{
    static const uint8_t icmp[] = {
        ETH_ADDRS, 0x08, 0x00,
        0x45, 0x00, 0x00, 0x1c, /* IHL 5, Not-ECT, total length 28 */
        0x00, 0x01, 0x00, 0x00, 0x40, 0x01, 0x00, 0x00, V4_ADDRS, /* ICMP */
        0x08, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x01,            /* echo request */
    };
    struct ew_pkt p;

    DISSECT(EW_LINK_ETHERNET, icmp, &p);
    CU_ASSERT_EQUAL(p.status, EW_PKT_OK);
    CU_ASSERT_EQUAL(p.events, 0);
    CU_ASSERT_EQUAL(p.ip_proto, 1);
    CU_ASSERT_EQUAL(p.l4, EW_L4_NONE);
    CU_ASSERT_EQUAL(p.l4_end, 0);
}

/* ---- IPv6 ---- */

static void
test_ipv6_tclass(void)
{
    static const uint8_t ce[] = {
        ETH_ADDRS, 0x86, 0xdd, /* ethertype IPv6 */
        IPV6_TCP_PKT,          /* traffic class 0x03 */
    };
    static const uint8_t ect1_ef[] = {
        ETH_ADDRS, 0x86, 0xdd,  /* ethertype IPv6 */
        0x6b, 0x9a, 0xbc, 0xde, /* version 6, traffic class 0xb9, flow label 0xabcde */
        0x00, 0x18, 0x06, 0x3f, /* payload length 24, TCP, hop limit 63 */
        V6_ADDRS, TCP_PORTS_SEQ_ACK,
        0x50, 0x18, 0x01, 0x00, /* doff 5, PSH|ACK */
        0x00, 0x00, 0x00, 0x00,
        'a', 'b', 'c', 'd',     /* payload */
    };
    struct ew_pkt p;

    DISSECT(EW_LINK_ETHERNET, ce, &p);
    check_ipv6_tcp_pkt(&p, 14);
    CU_ASSERT_EQUAL(p.dscp, 0);
    CU_ASSERT_EQUAL(p.ip_id, 0);
    CU_ASSERT_EQUAL(p.ext_count, 0);
    CU_ASSERT_FALSE(p.fragment);

    DISSECT(EW_LINK_ETHERNET, ect1_ef, &p);
    CU_ASSERT_EQUAL(p.status, EW_PKT_OK);
    CU_ASSERT_EQUAL(p.events, 0);
    CU_ASSERT_EQUAL(p.family, 6);
    CU_ASSERT_EQUAL(p.ecn, EW_ECN_ECT_1);
    CU_ASSERT_EQUAL(p.dscp, 0x2e);
    CU_ASSERT_EQUAL(p.ttl, 63);
    CU_ASSERT_EQUAL(p.ip_len, 64);
    CU_ASSERT_EQUAL(p.l4, EW_L4_TCP);
    CU_ASSERT_EQUAL(p.u.tcp.seq, SEQ);
    CU_ASSERT_EQUAL(p.u.tcp.ack, ACK);
    CU_ASSERT_EQUAL(p.u.tcp.flags, EW_TCP_PSH | EW_TCP_ACK);
    CU_ASSERT_EQUAL(p.u.tcp.payload, 4);
    CU_ASSERT_EQUAL(p.l4_end, 74);
}

static void
test_ipv6_header_cut(void)
{
    static const uint8_t f[] = {
        ETH_ADDRS, 0x86, 0xdd, /* ethertype IPv6 */
        IPV6_TCP_PKT,
    };
    struct ew_pkt p;
    size_t k;

    for (k = 0; k < 40; k++) {
        run(EW_LINK_ETHERNET, f, 14 + k, (uint32_t)sizeof(f), &p);
        check_undecodable(&p, EW_EV_IPV6_TRUNC);
    }
    for (k = 1; k < 40; k++) {
        run(EW_LINK_RAW, f + 14, k, 60, &p);
        check_undecodable(&p, EW_EV_IPV6_TRUNC);
    }
}

/* hop-by-hop, routing, destination options, then TCP */
static void
test_ipv6_ext_chain(void)
{
    static const uint8_t f[] = {
        ETH_ADDRS, 0x86, 0xdd,
        0x60, 0x20, 0x00, 0x00, /* traffic class 0x02 (ECT(0)) */
        0x00, 0x38, 0x00, 0x40, /* payload length 56, next header hop-by-hop */
        V6_ADDRS,
        0x2b, 0x00, 0x01, 0x04, 0x00, 0x00, 0x00, 0x00, /* HBH: next routing, len 0, PadN */
        0x3c, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* routing: next dest-opts, len 0 */
        0x06, 0x01, 0x01, 0x0c, 0x00, 0x00, 0x00, 0x00, /* dest-opts: next TCP, len 1 (16) */
        0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
        TCP_PORTS_SEQ_ACK, 0x50, 0x18, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00,
        'a', 'b', 'c', 'd', /* payload */
    };
    struct ew_pkt p;

    DISSECT(EW_LINK_ETHERNET, f, &p);
    CU_ASSERT_EQUAL(p.status, EW_PKT_OK);
    CU_ASSERT_EQUAL(p.events, 0);
    CU_ASSERT_EQUAL(p.ecn, EW_ECN_ECT_0);
    CU_ASSERT_EQUAL(p.ext_count, 3);
    CU_ASSERT_EQUAL(p.ip_proto, 6);
    CU_ASSERT_EQUAL(p.ip_len, 96);
    CU_ASSERT_EQUAL(p.l4, EW_L4_TCP);
    CU_ASSERT_EQUAL(p.u.tcp.sport, SPORT);
    CU_ASSERT_EQUAL(p.u.tcp.payload, 4);
    CU_ASSERT_EQUAL(p.l4_end, 14 + 40 + 32 + 20);
}

static void
test_ipv6_fragment(void)
{
    static const uint8_t first[] = {
        ETH_ADDRS, 0x86, 0xdd,
        0x60, 0x30, 0x00, 0x00, /* CE */
        0x00, 0x24, 0x2c, 0x40, /* payload length 36, next header fragment */
        V6_ADDRS,
        0x06, 0x00, 0x00, 0x01, /* fragment: next TCP, offset 0, M */
        0xde, 0xad, 0xbe, 0xef, /* identification */
        TCP_PORTS_SEQ_ACK, 0x50, 0x10, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00,
        0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, /* payload */
    };
    static const uint8_t later[] = {
        ETH_ADDRS, 0x86, 0xdd,
        0x60, 0x30, 0x00, 0x00, /* CE */
        0x00, 0x1c, 0x2c, 0x40, /* payload length 28, next header fragment */
        V6_ADDRS,
        0x06, 0x00, 0x05, 0xc8, /* fragment: next TCP, offset 185 (1480 bytes), last */
        0xde, 0xad, 0xbe, 0xef, /* identification */
        TCP_PORTS_SEQ_ACK, 0x50, 0x10, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, /* data */
    };
    static const uint8_t second[] = {
        ETH_ADDRS, 0x86, 0xdd,
        0x60, 0x30, 0x00, 0x00, /* CE */
        0x00, 0x10, 0x2c, 0x40, /* payload length 16, next header fragment */
        V6_ADDRS,
        0x11, 0x00, 0x00, 0x09, /* fragment: next UDP, offset 1 (8 bytes), M */
        0xde, 0xad, 0xbe, 0xf0, /* identification */
        0x14, 0xe9, 0x01, 0xbb, 0x00, 0x10, 0x00, 0x00, /* data */
    };
    struct ew_pkt p;

    DISSECT(EW_LINK_ETHERNET, first, &p);
    CU_ASSERT_EQUAL(p.status, EW_PKT_OK);
    CU_ASSERT_EQUAL(p.events, 0);
    CU_ASSERT_TRUE(p.fragment);
    CU_ASSERT_FALSE(p.later_fragment);
    CU_ASSERT_EQUAL(p.ext_count, 1);
    CU_ASSERT_EQUAL(p.ip_proto, 6);
    CU_ASSERT_EQUAL(p.l4, EW_L4_TCP);
    CU_ASSERT_EQUAL(p.u.tcp.sport, SPORT);
    CU_ASSERT_EQUAL(p.u.tcp.dport, DPORT);
    CU_ASSERT_EQUAL(p.u.tcp.payload, 8);
    CU_ASSERT_EQUAL(p.l4_end, 14 + 40 + 8 + 20);

    DISSECT(EW_LINK_ETHERNET, later, &p);
    CU_ASSERT_EQUAL(p.status, EW_PKT_OK);
    CU_ASSERT_EQUAL(p.events, EV(EW_EV_IPV6_FRAGMENT));
    CU_ASSERT_TRUE(p.fragment);
    CU_ASSERT_TRUE(p.later_fragment);
    CU_ASSERT_EQUAL(p.ecn, EW_ECN_CE);
    CU_ASSERT_EQUAL(p.ip_proto, 6);
    CU_ASSERT_EQUAL(p.l4, EW_L4_NONE);
    CU_ASSERT_EQUAL(p.l4_end, 0);

    DISSECT(EW_LINK_ETHERNET, second, &p);
    CU_ASSERT_EQUAL(p.events, EV(EW_EV_IPV6_FRAGMENT));
    CU_ASSERT_TRUE(p.later_fragment);
    CU_ASSERT_EQUAL(p.ip_proto, 17);
    CU_ASSERT_EQUAL(p.l4, EW_L4_NONE);
}

static void
test_ipv6_ah(void)
{
    static const uint8_t f[] = {
        ETH_ADDRS, 0x86, 0xdd,
        0x60, 0x20, 0x00, 0x00, /* ECT(0) */
        0x00, 0x2c, 0x33, 0x40, /* payload length 44, next header AH */
        V6_ADDRS,
        0x06, 0x04, 0x00, 0x00, /* AH: next TCP, length 4 ((4 + 2) * 4 = 24), reserved */
        0x00, 0x00, 0x01, 0x00, /* SPI */
        0x00, 0x00, 0x00, 0x01, /* sequence */
        0x11, 0x11, 0x11, 0x11, 0x22, 0x22, 0x22, 0x22, 0x33, 0x33, 0x33, 0x33, /* ICV */
        TCP_PORTS_SEQ_ACK, 0x50, 0x10, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00,
    };
    struct ew_pkt p;

    DISSECT(EW_LINK_ETHERNET, f, &p);
    CU_ASSERT_EQUAL(p.status, EW_PKT_OK);
    CU_ASSERT_EQUAL(p.events, 0);
    CU_ASSERT_EQUAL(p.ext_count, 1);
    CU_ASSERT_EQUAL(p.ip_proto, 6);
    CU_ASSERT_EQUAL(p.l4, EW_L4_TCP);
    CU_ASSERT_EQUAL(p.u.tcp.sport, SPORT);
    CU_ASSERT_EQUAL(p.u.tcp.payload, 0);
    CU_ASSERT_EQUAL(p.l4_end, 14 + 40 + 24 + 20);
}

/* an 8-byte destination-options header with next header nh */
#define DSTOPT(nh) (nh), 0x00, 0x01, 0x04, 0x00, 0x00, 0x00, 0x00

/* EW_IPV6_EXT_MAX headers are walked; one more is too many */
static void
test_ipv6_ext_limit(void)
{
    static const uint8_t eight[] = {
        ETH_ADDRS, 0x86, 0xdd,
        0x60, 0x00, 0x00, 0x00,
        0x00, 0x54, 0x00, 0x40, /* payload length 84, next header hop-by-hop */
        V6_ADDRS,
        DSTOPT(0x3c), DSTOPT(0x3c), DSTOPT(0x3c), DSTOPT(0x3c), /* HBH + 3 dest-opts */
        DSTOPT(0x3c), DSTOPT(0x3c), DSTOPT(0x3c), DSTOPT(0x06), /* 4 dest-opts, -> TCP */
        TCP_PORTS_SEQ_ACK, 0x50, 0x10, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00,
    };
    static const uint8_t nine[] = {
        ETH_ADDRS, 0x86, 0xdd,
        0x60, 0x00, 0x00, 0x00,
        0x00, 0x5c, 0x00, 0x40, /* payload length 92, next header hop-by-hop */
        V6_ADDRS,
        DSTOPT(0x3c), DSTOPT(0x3c), DSTOPT(0x3c), DSTOPT(0x3c), DSTOPT(0x3c), /* HBH + 4 */
        DSTOPT(0x3c), DSTOPT(0x3c), DSTOPT(0x3c), DSTOPT(0x06), /* 4 more, -> TCP */
        TCP_PORTS_SEQ_ACK, 0x50, 0x10, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00,
    };
    struct ew_pkt p;

    DISSECT(EW_LINK_ETHERNET, eight, &p);
    CU_ASSERT_EQUAL(p.status, EW_PKT_OK);
    CU_ASSERT_EQUAL(p.events, 0);
    CU_ASSERT_EQUAL(p.ext_count, EW_IPV6_EXT_MAX);
    CU_ASSERT_EQUAL(p.l4, EW_L4_TCP);
    CU_ASSERT_EQUAL(p.l4_end, 14 + 40 + 64 + 20);

    DISSECT(EW_LINK_ETHERNET, nine, &p);
    CU_ASSERT_EQUAL(p.status, EW_PKT_OK);
    CU_ASSERT_EQUAL(p.events, EV(EW_EV_IPV6_EXT_TOO_LONG));
    CU_ASSERT_EQUAL(p.ext_count, EW_IPV6_EXT_MAX);
    CU_ASSERT_EQUAL(p.ip_proto, 60);
    CU_ASSERT_EQUAL(p.l4, EW_L4_NONE);
    CU_ASSERT_EQUAL(p.l4_end, 0);
}

/* an extension header longer than the payload: invalid when everything was
 * captured, truncated when the capture ended first */
static void
test_ipv6_ext_bad_vs_trunc(void)
{
    static const uint8_t bad[] = {
        ETH_ADDRS, 0x86, 0xdd,
        0x60, 0x30, 0x00, 0x00, /* CE */
        0x00, 0x1c, 0x00, 0x40, /* payload length 28, next header hop-by-hop */
        V6_ADDRS,
        0x06, 0x05, 0x01, 0x04, 0x00, 0x00, 0x00, 0x00, /* HBH: next TCP, len 5 (48 bytes) */
        TCP_PORTS_SEQ_ACK, 0x50, 0x10, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00,
    };
    static const uint8_t cut[] = {
        ETH_ADDRS, 0x86, 0xdd,
        0x60, 0x30, 0x00, 0x00, /* CE */
        0x00, 0x44, 0x00, 0x40, /* payload length 68, next header hop-by-hop */
        V6_ADDRS,
        0x06, 0x05, 0x01, 0x2c, 0x00, 0x00, 0x00, 0x00, /* HBH: next TCP, len 5 (48 bytes) */
        0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
        0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* 30 of its 48 bytes captured */
    };
    struct ew_pkt p;

    DISSECT(EW_LINK_ETHERNET, bad, &p);
    CU_ASSERT_EQUAL(p.status, EW_PKT_OK);
    CU_ASSERT_EQUAL(p.events, EV(EW_EV_IPV6_EXT_BAD));
    CU_ASSERT_EQUAL(p.ecn, EW_ECN_CE);
    CU_ASSERT_EQUAL(p.l4, EW_L4_NONE);

    run(EW_LINK_ETHERNET, cut, sizeof(cut), 14 + 40 + 68, &p);
    CU_ASSERT_EQUAL(p.status, EW_PKT_OK);
    CU_ASSERT_EQUAL(p.events, EV(EW_EV_IPV6_TRUNC));
    CU_ASSERT_EQUAL(p.ecn, EW_ECN_CE);
    CU_ASSERT_EQUAL(p.l4, EW_L4_NONE);
}

static void
test_ipv6_len_and_jumbo(void)
{
    static const uint8_t long_plen[] = {
        ETH_ADDRS, 0x86, 0xdd,
        0x60, 0x20, 0x00, 0x00, /* ECT(0) */
        0x03, 0xe8, 0x06, 0x40, /* payload length 1000, TCP */
        V6_ADDRS, TCP_PORTS_SEQ_ACK, 0x50, 0x10, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00,
    };
    static const uint8_t jumbo[] = {
        ETH_ADDRS, 0x86, 0xdd,
        0x60, 0x20, 0x00, 0x00, /* ECT(0) */
        0x00, 0x00, 0x00, 0x40, /* payload length 0, next header hop-by-hop */
        V6_ADDRS,
        0x06, 0x00, 0xc2, 0x04, 0x00, 0x00, 0x00, 0x1c, /* HBH: jumbo payload 28 */
        TCP_PORTS_SEQ_ACK, 0x50, 0x10, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00,
    };
    static const uint8_t none[] = {
        ETH_ADDRS, 0x86, 0xdd,
        0x60, 0x10, 0x00, 0x00, /* ECT(1) */
        0x00, 0x00, 0x3b, 0x40, /* payload length 0, no next header */
        V6_ADDRS,
    };
    struct ew_pkt p;

    DISSECT(EW_LINK_ETHERNET, long_plen, &p);
    CU_ASSERT_EQUAL(p.status, EW_PKT_OK);
    CU_ASSERT_EQUAL(p.events, EV(EW_EV_IP_LEN_SHORT));
    CU_ASSERT_EQUAL(p.ip_len, 1040);
    CU_ASSERT_EQUAL(p.l4, EW_L4_TCP);
    CU_ASSERT_EQUAL(p.u.tcp.payload, 980);
    /* the same as a snaplen cut of a frame that was long enough */
    run(EW_LINK_ETHERNET, long_plen, sizeof(long_plen), 14 + 1040, &p);
    CU_ASSERT_EQUAL(p.events, 0);
    CU_ASSERT_EQUAL(p.u.tcp.payload, 980);

    DISSECT(EW_LINK_ETHERNET, jumbo, &p);
    CU_ASSERT_EQUAL(p.status, EW_PKT_OK);
    CU_ASSERT_EQUAL(p.events, 0);
    CU_ASSERT_EQUAL(p.ip_len, 68);
    CU_ASSERT_EQUAL(p.ext_count, 1);
    CU_ASSERT_EQUAL(p.l4, EW_L4_TCP);
    CU_ASSERT_EQUAL(p.u.tcp.payload, 0);

    DISSECT(EW_LINK_ETHERNET, none, &p);
    CU_ASSERT_EQUAL(p.status, EW_PKT_OK);
    CU_ASSERT_EQUAL(p.events, 0);
    CU_ASSERT_EQUAL(p.ecn, EW_ECN_ECT_1);
    CU_ASSERT_EQUAL(p.ip_proto, 59);
    CU_ASSERT_EQUAL(p.ip_len, 40);
    CU_ASSERT_EQUAL(p.l4, EW_L4_NONE);
}

/* ---- TCP ---- */

/* an AccECN SYN: AE, CWR and ECE with the Linux SYN options */
static void
test_tcp_syn_ae_cwr_ece(void)
{
    static const uint8_t f[] = {
        ETH_IPV4_TCP_HDR(0x3c, 0xa1, 0xc2), /* total length 60; doff 10, AE; CWR|ECE|SYN */
        0x02, 0x04, 0x05, 0xb4,             /* MSS 1460 */
        0x04, 0x02,                         /* SACK permitted */
        0x08, 0x0a, 0x00, 0x01, 0xe2, 0x40, /* timestamps: TSval 123456 */
        0x00, 0x00, 0x00, 0x00,             /* TSecr 0 */
        0x01,                               /* NOP */
        0x03, 0x03, 0x07,                   /* window scale 7 */
    };
    struct ew_pkt p;

    DISSECT(EW_LINK_ETHERNET, f, &p);
    CU_ASSERT_EQUAL(p.status, EW_PKT_OK);
    CU_ASSERT_EQUAL(p.events, 0);
    CU_ASSERT_EQUAL(p.l4, EW_L4_TCP);
    CU_ASSERT_EQUAL(p.u.tcp.flags, 0x1c2);
    CU_ASSERT_EQUAL(p.u.tcp.flags, EW_TCP_AE | EW_TCP_CWR | EW_TCP_ECE | EW_TCP_SYN);
    CU_ASSERT_EQUAL(ew_tcp_ace(p.u.tcp.flags), 7);
    CU_ASSERT_EQUAL(p.u.tcp.doff, 10);
    CU_ASSERT_TRUE(p.u.tcp.opts_complete);
    CU_ASSERT_TRUE(p.u.tcp.has_mss);
    CU_ASSERT_EQUAL(p.u.tcp.mss, 1460);
    CU_ASSERT_TRUE(p.u.tcp.has_sackperm);
    CU_ASSERT_TRUE(p.u.tcp.has_ts);
    CU_ASSERT_EQUAL(p.u.tcp.tsval, 123456);
    CU_ASSERT_EQUAL(p.u.tcp.tsecr, 0);
    CU_ASSERT_TRUE(p.u.tcp.has_ws);
    CU_ASSERT_EQUAL(p.u.tcp.ws, 7);
    CU_ASSERT_EQUAL(p.u.tcp.sack_blocks, 0);
    CU_ASSERT_FALSE(p.u.tcp.acc.present);
    CU_ASSERT_EQUAL(p.u.tcp.payload, 0);
    CU_ASSERT_EQUAL(p.l4_end, 74);
}

/* all nine flag bits; the three reserved bits of byte 12 are not flags */
static void
test_tcp_flags_bits(void)
{
    static const uint8_t all[] = {
        ETH_IPV4_TCP_HDR(0x28, 0x5f, 0xff), /* doff 5, reserved bits and AE; all flags */
    };
    static const uint8_t reserved_only[] = {
        ETH_IPV4_TCP_HDR(0x28, 0x5e, 0x00), /* doff 5, reserved bits, no flags */
    };
    static const uint8_t synack_ece[] = {
        ETH_IPV4_TCP_HDR(0x28, 0x50, 0x52), /* doff 5; ECE|ACK|SYN */
    };
    struct ew_pkt p;

    DISSECT(EW_LINK_ETHERNET, all, &p);
    CU_ASSERT_EQUAL(p.l4, EW_L4_TCP);
    CU_ASSERT_EQUAL(p.u.tcp.flags, 0x1ff);
    CU_ASSERT_EQUAL(p.u.tcp.doff, 5);
    DISSECT(EW_LINK_ETHERNET, reserved_only, &p);
    CU_ASSERT_EQUAL(p.u.tcp.flags, 0);
    CU_ASSERT_EQUAL(p.u.tcp.doff, 5);
    DISSECT(EW_LINK_ETHERNET, synack_ece, &p);
    CU_ASSERT_EQUAL(p.u.tcp.flags, EW_TCP_ECE | EW_TCP_ACK | EW_TCP_SYN);
    CU_ASSERT_EQUAL(ew_tcp_ace(p.u.tcp.flags), 1);
}

static void
test_tcp_short(void)
{
    static const uint8_t twelve[] = {
        ETH_ADDRS, 0x08, 0x00,
        0x45, 0x02, 0x00, 0x20, /* total length 32: 12 bytes of TCP */
        0x00, 0x01, 0x40, 0x00, 0x40, 0x06, 0x00, 0x00, V4_ADDRS,
        TCP_PORTS_SEQ_ACK,
    };
    static const uint8_t none[] = {
        ETH_ADDRS, 0x08, 0x00,
        0x45, 0x02, 0x00, 0x14, /* total length 20: no TCP at all */
        0x00, 0x01, 0x40, 0x00, 0x40, 0x06, 0x00, 0x00, V4_ADDRS,
    };
    struct ew_pkt p;

    DISSECT(EW_LINK_ETHERNET, twelve, &p);
    CU_ASSERT_EQUAL(p.status, EW_PKT_OK);
    CU_ASSERT_EQUAL(p.events, EV(EW_EV_TCP_SHORT));
    CU_ASSERT_EQUAL(p.ecn, EW_ECN_ECT_0);
    CU_ASSERT_EQUAL(p.l4, EW_L4_NONE);
    DISSECT(EW_LINK_ETHERNET, none, &p);
    CU_ASSERT_EQUAL(p.events, EV(EW_EV_TCP_SHORT));
    CU_ASSERT_EQUAL(p.l4, EW_L4_NONE);
}

static void
test_tcp_trunc(void)
{
    struct ew_pkt p;
    size_t n;

    /* the ECT(0) frame cut at every length inside the TCP fixed header */
    for (n = 34; n < 54; n++) {
        run(EW_LINK_ETHERNET, eth_v4_ect0, n, (uint32_t)sizeof(eth_v4_ect0), &p);
        CU_ASSERT_EQUAL(p.status, EW_PKT_OK);
        CU_ASSERT_EQUAL(p.events, EV(EW_EV_TCP_TRUNC));
        CU_ASSERT_EQUAL(p.ecn, EW_ECN_ECT_0);
        CU_ASSERT_EQUAL(p.l4, EW_L4_NONE);
        CU_ASSERT_EQUAL(p.l4_end, 0);
    }
}

static void
test_tcp_doff(void)
{
    static const uint8_t doff4[] = {
        ETH_IPV4_TCP_HDR(0x28, 0x40, 0x10), /* doff 4 */
    };
    static const uint8_t doff0[] = {
        ETH_IPV4_TCP_HDR(0x28, 0x01, 0x10), /* doff 0, AE */
    };
    static const uint8_t doff8[] = {
        ETH_IPV4_TCP_HDR(0x2c, 0x80, 0x10), /* doff 8 (32 bytes) in a 24-byte segment */
        0x01, 0x01, 0x01, 0x01,
    };
    static const uint8_t doff15[] = {
        ETH_IPV4_TCP_HDR(0x3c, 0xf0, 0x10), /* doff 15 (60 bytes) in a 40-byte segment */
        0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01,
        0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01,
    };
    struct ew_pkt p;

    DISSECT(EW_LINK_ETHERNET, doff4, &p);
    CU_ASSERT_EQUAL(p.status, EW_PKT_OK);
    CU_ASSERT_EQUAL(p.events, EV(EW_EV_TCP_DOFF_SMALL));
    CU_ASSERT_EQUAL(p.l4, EW_L4_NONE);
    DISSECT(EW_LINK_ETHERNET, doff0, &p);
    CU_ASSERT_EQUAL(p.events, EV(EW_EV_TCP_DOFF_SMALL));
    CU_ASSERT_EQUAL(p.l4, EW_L4_NONE);
    DISSECT(EW_LINK_ETHERNET, doff8, &p);
    CU_ASSERT_EQUAL(p.status, EW_PKT_OK);
    CU_ASSERT_EQUAL(p.events, EV(EW_EV_TCP_DOFF_PAST_END));
    CU_ASSERT_EQUAL(p.l4, EW_L4_NONE);
    CU_ASSERT_EQUAL(p.l4_end, 0);
    DISSECT(EW_LINK_ETHERNET, doff15, &p);
    CU_ASSERT_EQUAL(p.events, EV(EW_EV_TCP_DOFF_PAST_END));
    CU_ASSERT_EQUAL(p.l4, EW_L4_NONE);
}

static void
test_tcp_opt_sack(void)
{
    static const uint8_t one[] = {
        ETH_IPV4_TCP_HDR(0x34, 0x80, 0x10), /* total length 52, doff 8 */
        0x01, 0x01,                         /* NOP NOP */
        0x05, 0x0a,                         /* SACK, 1 block */
        0x00, 0x00, 0x10, 0x00, 0x00, 0x00, 0x20, 0x00,
    };
    static const uint8_t two[] = {
        ETH_IPV4_TCP_HDR(0x3c, 0xa0, 0x10), /* total length 60, doff 10 */
        0x01, 0x01,                         /* NOP NOP */
        0x05, 0x12,                         /* SACK, 2 blocks */
        0x00, 0x00, 0x10, 0x00, 0x00, 0x00, 0x20, 0x00,
        0x00, 0x00, 0x30, 0x00, 0x00, 0x00, 0x40, 0x00,
    };
    static const uint8_t three_ts[] = {
        ETH_IPV4_TCP_HDR(0x50, 0xf0, 0x10), /* total length 80, doff 15 */
        0x01, 0x01,                         /* NOP NOP */
        0x08, 0x0a, 0x00, 0x00, 0x00, 0x05, /* timestamps: TSval 5 */
        0xff, 0xff, 0xff, 0xfe,             /* TSecr 0xfffffffe */
        0x01, 0x01,                         /* NOP NOP */
        0x05, 0x1a,                         /* SACK, 3 blocks */
        0x00, 0x00, 0x10, 0x00, 0x00, 0x00, 0x20, 0x00,
        0x00, 0x00, 0x30, 0x00, 0x00, 0x00, 0x40, 0x00,
        0x00, 0x00, 0x50, 0x00, 0x00, 0x00, 0x60, 0x00,
    };
    struct ew_pkt p;

    DISSECT(EW_LINK_ETHERNET, one, &p);
    CU_ASSERT_EQUAL(p.events, 0);
    CU_ASSERT_EQUAL(p.u.tcp.sack_blocks, 1);
    CU_ASSERT_EQUAL(p.l4_end, 14 + 20 + 32);
    DISSECT(EW_LINK_ETHERNET, two, &p);
    CU_ASSERT_EQUAL(p.events, 0);
    CU_ASSERT_EQUAL(p.u.tcp.sack_blocks, 2);
    DISSECT(EW_LINK_ETHERNET, three_ts, &p);
    CU_ASSERT_EQUAL(p.events, 0);
    CU_ASSERT_EQUAL(p.u.tcp.sack_blocks, 3);
    CU_ASSERT_TRUE(p.u.tcp.has_ts);
    CU_ASSERT_EQUAL(p.u.tcp.tsval, 5);
    CU_ASSERT_EQUAL(p.u.tcp.tsecr, 0xfffffffeu);
    CU_ASSERT_EQUAL(p.u.tcp.doff, 15);
    CU_ASSERT_EQUAL(p.l4_end, 14 + 20 + 60);
}

static void
test_tcp_opt_eol_nop(void)
{
    static const uint8_t eol_first[] = {
        ETH_IPV4_TCP_HDR(0x30, 0x70, 0x02), /* doff 7, SYN */
        0x01, 0x00,                         /* NOP, EOL */
        0x02, 0x04, 0x05, 0xb4,             /* MSS after EOL: not an option */
        0x03, 0x03,                         /* (nor this) */
    };
    static const uint8_t eol_after[] = {
        ETH_IPV4_TCP_HDR(0x30, 0x70, 0x02), /* doff 7, SYN */
        0x02, 0x04, 0x02, 0x18,             /* MSS 536 */
        0x00,                               /* EOL */
        0x03, 0x03, 0x07,                   /* window scale after EOL: ignored */
    };
    static const uint8_t nops[] = {
        ETH_IPV4_TCP_HDR(0x30, 0x70, 0x02), /* doff 7, SYN */
        0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, /* NOP padding only */
    };
    static const uint8_t nops_then_mss[] = {
        ETH_IPV4_TCP_HDR(0x50, 0xf0, 0x02), /* total length 80, doff 15, SYN */
        0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, /* 36 NOPs */
        0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01,
        0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01,
        0x02, 0x04, 0x05, 0x78, /* MSS 1400 in the last word of a full option space */
    };
    static const uint8_t unknown[] = {
        ETH_IPV4_TCP_HDR(0x34, 0x80, 0x02), /* doff 8, SYN */
        0x22, 0x06, 0x11, 0x22, 0x33, 0x44, /* kind 34 (fast open cookie): skipped */
        0x03, 0x03, 0x0e,                   /* window scale 14 */
        0x04, 0x02,                         /* SACK permitted */
        0x00,                               /* EOL */
    };
    struct ew_pkt p;

    DISSECT(EW_LINK_ETHERNET, eol_first, &p);
    CU_ASSERT_EQUAL(p.events, 0);
    CU_ASSERT_EQUAL(p.l4, EW_L4_TCP);
    CU_ASSERT_FALSE(p.u.tcp.has_mss);
    CU_ASSERT_FALSE(p.u.tcp.has_ws);
    CU_ASSERT_TRUE(p.u.tcp.opts_complete);
    CU_ASSERT_EQUAL(p.l4_end, 14 + 20 + 28);

    DISSECT(EW_LINK_ETHERNET, eol_after, &p);
    CU_ASSERT_EQUAL(p.events, 0);
    CU_ASSERT_TRUE(p.u.tcp.has_mss);
    CU_ASSERT_EQUAL(p.u.tcp.mss, 536);
    CU_ASSERT_FALSE(p.u.tcp.has_ws);

    DISSECT(EW_LINK_ETHERNET, nops, &p);
    CU_ASSERT_EQUAL(p.events, 0);
    CU_ASSERT_EQUAL(p.l4, EW_L4_TCP);
    CU_ASSERT_FALSE(p.u.tcp.has_mss);

    DISSECT(EW_LINK_ETHERNET, nops_then_mss, &p);
    CU_ASSERT_EQUAL(p.events, 0);
    CU_ASSERT_TRUE(p.u.tcp.has_mss);
    CU_ASSERT_EQUAL(p.u.tcp.mss, 1400);

    DISSECT(EW_LINK_ETHERNET, unknown, &p);
    CU_ASSERT_EQUAL(p.events, 0);
    CU_ASSERT_TRUE(p.u.tcp.has_ws);
    CU_ASSERT_EQUAL(p.u.tcp.ws, 14);
    CU_ASSERT_TRUE(p.u.tcp.has_sackperm);
}

static void
test_tcp_opt_badlen(void)
{
    static const uint8_t len0[] = {
        ETH_IPV4_TCP_HDR(0x30, 0x70, 0x02), /* doff 7 */
        0x03, 0x00,                         /* window scale, length 0 */
        0x02, 0x04, 0x05, 0xb4,             /* MSS: not reached */
        0x01, 0x01,
    };
    static const uint8_t len1[] = {
        ETH_IPV4_TCP_HDR(0x30, 0x70, 0x02), /* doff 7 */
        0x01, 0x01,                         /* NOP NOP */
        0x2a, 0x01,                         /* kind 42, length 1 */
        0x02, 0x04, 0x05, 0xb4,             /* MSS: not reached */
    };
    static const uint8_t mss5[] = {
        ETH_IPV4_TCP_HDR(0x34, 0x80, 0x02), /* doff 8 */
        0x02, 0x05, 0x05, 0xb4, 0x00,       /* MSS, length 5 */
        0x03, 0x03, 0x07,                   /* window scale 7: still parsed */
        0x01, 0x01, 0x01, 0x01,
    };
    static const uint8_t ws2[] = {
        ETH_IPV4_TCP_HDR(0x2c, 0x60, 0x02), /* doff 6 */
        0x03, 0x02, 0x01, 0x01,             /* window scale, length 2 */
    };
    static const uint8_t sackperm3[] = {
        ETH_IPV4_TCP_HDR(0x2c, 0x60, 0x02), /* doff 6 */
        0x04, 0x03, 0x00, 0x01,             /* SACK permitted, length 3 */
    };
    static const uint8_t ts8[] = {
        ETH_IPV4_TCP_HDR(0x30, 0x70, 0x10), /* doff 7 */
        0x08, 0x08, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, /* timestamps, length 8 */
    };
    static const uint8_t sack9[] = {
        ETH_IPV4_TCP_HDR(0x34, 0x80, 0x10), /* doff 8 */
        0x05, 0x09, 0x00, 0x00, 0x10, 0x00, 0x00, 0x00, 0x20, /* SACK, length 9 */
        0x01, 0x01, 0x01,
    };
    static const uint8_t sack2[] = {
        ETH_IPV4_TCP_HDR(0x2c, 0x60, 0x10), /* doff 6 */
        0x05, 0x02, 0x01, 0x01,             /* SACK, length 2: no block */
    };
    struct ew_pkt p;

    DISSECT(EW_LINK_ETHERNET, len0, &p);
    CU_ASSERT_EQUAL(p.events, EV(EW_EV_TCP_OPT_BADLEN));
    CU_ASSERT_EQUAL(p.l4, EW_L4_TCP);
    CU_ASSERT_FALSE(p.u.tcp.has_ws);
    CU_ASSERT_FALSE(p.u.tcp.has_mss);

    DISSECT(EW_LINK_ETHERNET, len1, &p);
    CU_ASSERT_EQUAL(p.events, EV(EW_EV_TCP_OPT_BADLEN));
    CU_ASSERT_EQUAL(p.l4, EW_L4_TCP);
    CU_ASSERT_FALSE(p.u.tcp.has_mss);

    DISSECT(EW_LINK_ETHERNET, mss5, &p);
    CU_ASSERT_EQUAL(p.events, EV(EW_EV_TCP_OPT_BADLEN));
    CU_ASSERT_FALSE(p.u.tcp.has_mss);
    CU_ASSERT_TRUE(p.u.tcp.has_ws);
    CU_ASSERT_EQUAL(p.u.tcp.ws, 7);

    DISSECT(EW_LINK_ETHERNET, ws2, &p);
    CU_ASSERT_EQUAL(p.events, EV(EW_EV_TCP_OPT_BADLEN));
    CU_ASSERT_FALSE(p.u.tcp.has_ws);

    DISSECT(EW_LINK_ETHERNET, sackperm3, &p);
    CU_ASSERT_EQUAL(p.events, EV(EW_EV_TCP_OPT_BADLEN));
    CU_ASSERT_FALSE(p.u.tcp.has_sackperm);

    DISSECT(EW_LINK_ETHERNET, ts8, &p);
    CU_ASSERT_EQUAL(p.events, EV(EW_EV_TCP_OPT_BADLEN));
    CU_ASSERT_FALSE(p.u.tcp.has_ts);

    DISSECT(EW_LINK_ETHERNET, sack9, &p);
    CU_ASSERT_EQUAL(p.events, EV(EW_EV_TCP_OPT_BADLEN));
    CU_ASSERT_EQUAL(p.u.tcp.sack_blocks, 0);

    DISSECT(EW_LINK_ETHERNET, sack2, &p);
    CU_ASSERT_EQUAL(p.events, EV(EW_EV_TCP_OPT_BADLEN));
    CU_ASSERT_EQUAL(p.u.tcp.sack_blocks, 0);
}

/* an option running past a fully captured option space is invalid */
static void
test_tcp_opt_overrun(void)
{
    static const uint8_t body[] = {
        ETH_IPV4_TCP_HDR(0x30, 0x70, 0x02), /* doff 7: 8 option bytes */
        0x03, 0x03, 0x07,                   /* window scale 7 */
        0x01, 0x01,                         /* NOP NOP */
        0x08, 0x0a, 0x00,                   /* timestamps, length 10: 7 bytes past */
    };
    static const uint8_t no_len[] = {
        ETH_IPV4_TCP_HDR(0x2c, 0x60, 0x02), /* doff 6: 4 option bytes */
        0x01, 0x01, 0x01,                   /* NOP NOP NOP */
        0x02,                               /* MSS kind in the last byte, no length */
    };
    static const uint8_t past_payload[] = {
        ETH_IPV4_TCP_HDR(0x30, 0x60, 0x18), /* total length 48, doff 6 */
        0x01, 0x01,                         /* NOP NOP */
        0x02, 0x04,                         /* MSS, length 4: its value is payload */
        0x05, 0xb4, 0x00, 0x00,             /* payload */
    };
    struct ew_pkt p;

    DISSECT(EW_LINK_ETHERNET, body, &p);
    CU_ASSERT_EQUAL(p.events, EV(EW_EV_TCP_OPT_OVERRUN));
    CU_ASSERT_EQUAL(p.l4, EW_L4_TCP);
    CU_ASSERT_TRUE(p.u.tcp.opts_complete);
    CU_ASSERT_TRUE(p.u.tcp.has_ws);
    CU_ASSERT_FALSE(p.u.tcp.has_ts);

    DISSECT(EW_LINK_ETHERNET, no_len, &p);
    CU_ASSERT_EQUAL(p.events, EV(EW_EV_TCP_OPT_OVERRUN));
    CU_ASSERT_FALSE(p.u.tcp.has_mss);

    DISSECT(EW_LINK_ETHERNET, past_payload, &p);
    CU_ASSERT_EQUAL(p.events, EV(EW_EV_TCP_OPT_OVERRUN));
    CU_ASSERT_FALSE(p.u.tcp.has_mss);
    CU_ASSERT_EQUAL(p.u.tcp.payload, 4);
}

/* the option space cut by the snaplen: truncated, not invalid */
static void
test_tcp_opt_trunc(void)
{
    static const uint8_t f[] = {
        ETH_IPV4_TCP_HDR(0x34, 0x80, 0x02), /* doff 8: 12 option bytes */
        0x02, 0x04, 0x05, 0xb4,             /* MSS 1460 */
        0x01,                               /* NOP */
        0x03, 0x03, 0x07,                   /* window scale 7 */
        0x04, 0x02,                         /* SACK permitted */
        0x01, 0x01,                         /* NOP NOP */
    };
    struct ew_pkt p;
    size_t n;

    for (n = 54; n < sizeof(f); n++) {
        run(EW_LINK_ETHERNET, f, n, (uint32_t)sizeof(f), &p);
        CU_ASSERT_EQUAL(p.status, EW_PKT_OK);
        CU_ASSERT_EQUAL(p.events, EV(EW_EV_TCP_OPT_TRUNC));
        CU_ASSERT_EQUAL(p.l4, EW_L4_TCP);
        CU_ASSERT_FALSE(p.u.tcp.opts_complete);
        CU_ASSERT_EQUAL(p.u.tcp.sport, SPORT);
        CU_ASSERT_EQUAL(p.u.tcp.flags, EW_TCP_SYN);
        CU_ASSERT_EQUAL(p.u.tcp.has_mss, n >= 58);
        CU_ASSERT_EQUAL(p.u.tcp.has_ws, n >= 62);
        CU_ASSERT_EQUAL(p.u.tcp.has_sackperm, n >= 64);
        CU_ASSERT_EQUAL(p.l4_end, 66);
    }
    DISSECT(EW_LINK_ETHERNET, f, &p);
    CU_ASSERT_EQUAL(p.events, 0);
    CU_ASSERT_TRUE(p.u.tcp.opts_complete);
    CU_ASSERT_TRUE(p.u.tcp.has_sackperm);
}

struct acc_case {
    const char *what;
    const uint8_t *frame;
    size_t len;
    bool present;
    uint8_t kind, order, optlen, nfields;
    bool has[3];      /* E0B, CEB, E1B */
    uint32_t val[3];  /* E0B, CEB, E1B */
};

static void
check_acc_cases(const struct acc_case *c, size_t n)
{
    size_t i, f;

    for (i = 0; i < n; i++) {
        struct ew_pkt p;
        const struct ew_accecn_opt *a = &p.u.tcp.acc;

        run(EW_LINK_ETHERNET, c[i].frame, c[i].len, (uint32_t)c[i].len, &p);
        CU_ASSERT_EQUAL(p.status, EW_PKT_OK);
        CU_ASSERT_EQUAL(p.events, 0);
        CU_ASSERT_EQUAL_FATAL(p.l4, EW_L4_TCP);
        CU_ASSERT_EQUAL(a->present, c[i].present);
        if (!c[i].present)
            continue;
        CU_ASSERT_EQUAL(a->kind, c[i].kind);
        CU_ASSERT_EQUAL(a->order, c[i].order);
        CU_ASSERT_EQUAL(a->len, c[i].optlen);
        CU_ASSERT_EQUAL(a->nfields, c[i].nfields);
        for (f = 0; f < 3; f++) {
            CU_ASSERT_EQUAL(a->has[f], c[i].has[f]);
            if (c[i].has[f])
                CU_ASSERT_EQUAL(a->val[f], c[i].val[f]);
        }
    }
}

/* first field 0x0a0b0c, second 0x102030, third 0xfedcba on the wire */
static void
test_tcp_accecn_172(void)
{
    static const uint8_t len2[] = {
        ETH_IPV4_TCP_HDR(0x2c, 0x60, 0x10), /* doff 6 */
        0xac, 0x02,                         /* AccECN0, length 2: no field */
        0x01, 0x01,
    };
    static const uint8_t len5[] = {
        ETH_IPV4_TCP_HDR(0x30, 0x70, 0x10), /* doff 7 */
        0xac, 0x05, 0x0a, 0x0b, 0x0c,       /* AccECN0: EE0B */
        0x01, 0x01, 0x01,
    };
    static const uint8_t len8[] = {
        ETH_IPV4_TCP_HDR(0x30, 0x70, 0x10), /* doff 7 */
        0xac, 0x08, 0x0a, 0x0b, 0x0c,       /* AccECN0: EE0B */
        0x10, 0x20, 0x30,                   /* ECEB */
    };
    static const uint8_t len11[] = {
        ETH_IPV4_TCP_HDR(0x34, 0x80, 0x10), /* doff 8 */
        0x01,                               /* NOP */
        0xac, 0x0b, 0x0a, 0x0b, 0x0c,       /* AccECN0: EE0B */
        0x10, 0x20, 0x30,                   /* ECEB */
        0xfe, 0xdc, 0xba,                   /* EE1B */
    };
    static const uint8_t len10[] = {
        ETH_IPV4_TCP_HDR(0x34, 0x80, 0x10), /* doff 8 */
        0xac, 0x0a, 0x0a, 0x0b, 0x0c,       /* AccECN0, length 10: EE0B */
        0x10, 0x20, 0x30,                   /* ECEB */
        0xfe, 0xdc,                         /* two bytes of a field: ignored */
        0x01, 0x01,
    };
    const struct acc_case cases[] = {
        {"172/2", len2, sizeof(len2), true, 172, 0, 2, 0, {false, false, false}, {0, 0, 0}},
        {"172/5", len5, sizeof(len5), true, 172, 0, 5, 1, {true, false, false}, {0x0a0b0c, 0, 0}},
        {"172/8", len8, sizeof(len8), true, 172, 0, 8, 2, {true, true, false},
         {0x0a0b0c, 0x102030, 0}},
        {"172/11", len11, sizeof(len11), true, 172, 0, 11, 3, {true, true, true},
         {0x0a0b0c, 0x102030, 0xfedcba}},
        {"172/10", len10, sizeof(len10), true, 172, 0, 10, 2, {true, true, false},
         {0x0a0b0c, 0x102030, 0}},
    };

    check_acc_cases(cases, sizeof(cases) / sizeof(cases[0]));
}

static void
test_tcp_accecn_174(void)
{
    static const uint8_t len2[] = {
        ETH_IPV4_TCP_HDR(0x2c, 0x60, 0x10), /* doff 6 */
        0x01, 0x01,
        0xae, 0x02,                         /* AccECN1, length 2: no field */
    };
    static const uint8_t len5[] = {
        ETH_IPV4_TCP_HDR(0x30, 0x70, 0x10), /* doff 7 */
        0xae, 0x05, 0x0a, 0x0b, 0x0c,       /* AccECN1: EE1B */
        0x01, 0x01, 0x01,
    };
    static const uint8_t len8[] = {
        ETH_IPV4_TCP_HDR(0x30, 0x70, 0x10), /* doff 7 */
        0xae, 0x08, 0x0a, 0x0b, 0x0c,       /* AccECN1: EE1B */
        0x10, 0x20, 0x30,                   /* ECEB */
    };
    static const uint8_t len11[] = {
        ETH_IPV4_TCP_HDR(0x34, 0x80, 0x10), /* doff 8 */
        0xae, 0x0b, 0x0a, 0x0b, 0x0c,       /* AccECN1: EE1B */
        0x10, 0x20, 0x30,                   /* ECEB */
        0xfe, 0xdc, 0xba,                   /* EE0B */
        0x01,                               /* NOP */
    };
    static const uint8_t len14[] = {
        ETH_IPV4_TCP_HDR(0x38, 0x90, 0x10), /* doff 9 */
        0xae, 0x0e, 0x0a, 0x0b, 0x0c,       /* AccECN1, length 14: EE1B */
        0x10, 0x20, 0x30,                   /* ECEB */
        0xfe, 0xdc, 0xba,                   /* EE0B */
        0x99, 0x99, 0x99,                   /* a fourth field: ignored */
        0x01, 0x01,
    };
    const struct acc_case cases[] = {
        {"174/2", len2, sizeof(len2), true, 174, 1, 2, 0, {false, false, false}, {0, 0, 0}},
        {"174/5", len5, sizeof(len5), true, 174, 1, 5, 1, {false, false, true}, {0, 0, 0x0a0b0c}},
        {"174/8", len8, sizeof(len8), true, 174, 1, 8, 2, {false, true, true},
         {0, 0x102030, 0x0a0b0c}},
        {"174/11", len11, sizeof(len11), true, 174, 1, 11, 3, {true, true, true},
         {0xfedcba, 0x102030, 0x0a0b0c}},
        {"174/14", len14, sizeof(len14), true, 174, 1, 14, 3, {true, true, true},
         {0xfedcba, 0x102030, 0x0a0b0c}},
    };

    check_acc_cases(cases, sizeof(cases) / sizeof(cases[0]));
}

/* kind 254 with an RFC 6994 ExID: 0xACC0 is order 0, 0xACC1 order 1 */
static void
test_tcp_accecn_exp(void)
{
    static const uint8_t acc0[] = {
        ETH_IPV4_TCP_HDR(0x38, 0x90, 0x10), /* doff 9 */
        0xfe, 0x0d, 0xac, 0xc0,             /* kind 254, length 13, ExID 0xACC0 */
        0x0a, 0x0b, 0x0c,                   /* EE0B */
        0x10, 0x20, 0x30,                   /* ECEB */
        0xfe, 0xdc, 0xba,                   /* EE1B */
        0x01, 0x01, 0x01,
    };
    static const uint8_t acc1[] = {
        ETH_IPV4_TCP_HDR(0x34, 0x80, 0x10), /* doff 8 */
        0xfe, 0x0a, 0xac, 0xc1,             /* kind 254, length 10, ExID 0xACC1 */
        0x0a, 0x0b, 0x0c,                   /* EE1B */
        0x10, 0x20, 0x30,                   /* ECEB */
        0x01, 0x01,
    };
    static const uint8_t acc0_empty[] = {
        ETH_IPV4_TCP_HDR(0x2c, 0x60, 0x10), /* doff 6 */
        0xfe, 0x04, 0xac, 0xc0,             /* kind 254, length 4, ExID 0xACC0 */
    };
    static const uint8_t other[] = {
        ETH_IPV4_TCP_HDR(0x34, 0x80, 0x10), /* doff 8 */
        0xfe, 0x0b, 0xf9, 0x89,             /* kind 254, length 11, ExID 0xF989 */
        0x0a, 0x0b, 0x0c, 0x10, 0x20, 0x30, 0xfe,
        0x01,
    };
    static const uint8_t accce[] = {
        ETH_IPV4_TCP_HDR(0x30, 0x70, 0x10), /* doff 7 */
        0xfe, 0x07, 0xac, 0xce,             /* kind 254, length 7, ExID 0xACCE (older) */
        0x0a, 0x0b, 0x0c,
        0x01,
    };
    const struct acc_case cases[] = {
        {"254/ACC0", acc0, sizeof(acc0), true, 254, 0, 13, 3, {true, true, true},
         {0x0a0b0c, 0x102030, 0xfedcba}},
        {"254/ACC1", acc1, sizeof(acc1), true, 254, 1, 10, 2, {false, true, true},
         {0, 0x102030, 0x0a0b0c}},
        {"254/ACC0 empty", acc0_empty, sizeof(acc0_empty), true, 254, 0, 4, 0,
         {false, false, false}, {0, 0, 0}},
        {"254/F989", other, sizeof(other), false, 0, 0, 0, 0, {false, false, false}, {0, 0, 0}},
        {"254/ACCE", accce, sizeof(accce), false, 0, 0, 0, 0, {false, false, false}, {0, 0, 0}},
    };

    check_acc_cases(cases, sizeof(cases) / sizeof(cases[0]));
}

/* ---- UDP ---- */

static void
test_udp(void)
{
    static const uint8_t ok[] = {
        ETH_ADDRS, 0x08, 0x00,
        0x45, 0x01, 0x00, 0x21, /* ECT(1), total length 33 */
        0x00, 0x05, 0x00, 0x00, 0x40, 0x11, 0x00, 0x00, V4_ADDRS, /* UDP */
        0x14, 0xe9, 0x01, 0xbb, /* 5353 -> 443 */
        0x00, 0x0d, 0x00, 0x00, /* length 13, checksum */
        'h', 'e', 'l', 'l', 'o',
    };
    static const uint8_t v6[] = {
        ETH_ADDRS, 0x86, 0xdd,
        0x60, 0x30, 0x00, 0x00, /* CE */
        0x00, 0x0a, 0x11, 0x40, /* payload length 10, UDP */
        V6_ADDRS,
        0x01, 0xbb, 0x14, 0xe9, /* 443 -> 5353 */
        0x00, 0x0a, 0x00, 0x00, /* length 10 */
        0x00, 0x01,
    };
    static const uint8_t len4[] = {
        ETH_ADDRS, 0x08, 0x00,
        0x45, 0x00, 0x00, 0x21, /* total length 33 */
        0x00, 0x05, 0x00, 0x00, 0x40, 0x11, 0x00, 0x00, V4_ADDRS,
        0x14, 0xe9, 0x01, 0xbb,
        0x00, 0x04, 0x00, 0x00, /* length 4: below the header */
        'h', 'e', 'l', 'l', 'o',
    };
    static const uint8_t len100[] = {
        ETH_ADDRS, 0x08, 0x00,
        0x45, 0x00, 0x00, 0x21, /* total length 33: 13 bytes of UDP */
        0x00, 0x05, 0x00, 0x00, 0x40, 0x11, 0x00, 0x00, V4_ADDRS,
        0x14, 0xe9, 0x01, 0xbb,
        0x00, 0x64, 0x00, 0x00, /* length 100: past the IP payload */
        'h', 'e', 'l', 'l', 'o',
    };
    static const uint8_t trailer[] = {
        ETH_ADDRS, 0x08, 0x00,
        0x45, 0x00, 0x00, 0x28, /* total length 40: 20 bytes of UDP */
        0x00, 0x06, 0x00, 0x00, 0x40, 0x11, 0x00, 0x00, V4_ADDRS,
        0x14, 0xe9, 0x01, 0xbb,
        0x00, 0x0d, 0x00, 0x00, /* length 13: 7 bytes of the IP payload follow it */
        'h', 'e', 'l', 'l', 'o',
        0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    };
    static const uint8_t short_ip[] = {
        ETH_ADDRS, 0x08, 0x00,
        0x45, 0x00, 0x00, 0x1a, /* total length 26: 6 bytes of UDP */
        0x00, 0x05, 0x00, 0x00, 0x40, 0x11, 0x00, 0x00, V4_ADDRS,
        0x14, 0xe9, 0x01, 0xbb, 0x00, 0x08,
    };
    struct ew_pkt p;
    size_t n;

    DISSECT(EW_LINK_ETHERNET, ok, &p);
    CU_ASSERT_EQUAL(p.status, EW_PKT_OK);
    CU_ASSERT_EQUAL(p.events, 0);
    CU_ASSERT_EQUAL(p.ecn, EW_ECN_ECT_1);
    CU_ASSERT_EQUAL(p.ip_proto, 17);
    CU_ASSERT_EQUAL(p.l4, EW_L4_UDP);
    CU_ASSERT_EQUAL(p.u.udp.sport, 5353);
    CU_ASSERT_EQUAL(p.u.udp.dport, 443);
    CU_ASSERT_EQUAL(p.u.udp.len, 13);
    CU_ASSERT_EQUAL(p.u.udp.payload, 5);
    CU_ASSERT_EQUAL(p.l4_end, 42);

    DISSECT(EW_LINK_ETHERNET, v6, &p);
    CU_ASSERT_EQUAL(p.events, 0);
    CU_ASSERT_EQUAL(p.ecn, EW_ECN_CE);
    CU_ASSERT_EQUAL(p.l4, EW_L4_UDP);
    CU_ASSERT_EQUAL(p.u.udp.sport, 443);
    CU_ASSERT_EQUAL(p.u.udp.payload, 2);
    CU_ASSERT_EQUAL(p.l4_end, 62);

    /* header cut at every length 0..7 */
    for (n = 34; n < 42; n++) {
        run(EW_LINK_ETHERNET, ok, n, (uint32_t)sizeof(ok), &p);
        CU_ASSERT_EQUAL(p.status, EW_PKT_OK);
        CU_ASSERT_EQUAL(p.events, EV(EW_EV_UDP_TRUNC));
        CU_ASSERT_EQUAL(p.l4, EW_L4_NONE);
        CU_ASSERT_EQUAL(p.l4_end, 0);
    }

    /* a UDP length below the IP payload is valid; the payload follows it */
    DISSECT(EW_LINK_ETHERNET, trailer, &p);
    CU_ASSERT_EQUAL(p.events, 0);
    CU_ASSERT_EQUAL(p.l4, EW_L4_UDP);
    CU_ASSERT_EQUAL(p.u.udp.len, 13);
    CU_ASSERT_EQUAL(p.u.udp.payload, 5);
    CU_ASSERT_EQUAL(p.l4_end, 42);

    DISSECT(EW_LINK_ETHERNET, len4, &p);
    CU_ASSERT_EQUAL(p.events, EV(EW_EV_UDP_LEN_BAD));
    CU_ASSERT_EQUAL(p.l4, EW_L4_UDP);
    CU_ASSERT_EQUAL(p.u.udp.sport, 5353);
    CU_ASSERT_EQUAL(p.u.udp.dport, 443);
    CU_ASSERT_EQUAL(p.u.udp.len, 4);
    CU_ASSERT_EQUAL(p.u.udp.payload, 5);

    DISSECT(EW_LINK_ETHERNET, len100, &p);
    CU_ASSERT_EQUAL(p.events, EV(EW_EV_UDP_LEN_BAD));
    CU_ASSERT_EQUAL(p.l4, EW_L4_UDP);
    CU_ASSERT_EQUAL(p.u.udp.sport, 5353);
    CU_ASSERT_EQUAL(p.u.udp.len, 100);
    CU_ASSERT_EQUAL(p.u.udp.payload, 5);

    DISSECT(EW_LINK_ETHERNET, short_ip, &p);
    CU_ASSERT_EQUAL(p.status, EW_PKT_OK);
    CU_ASSERT_EQUAL(p.events, EV(EW_EV_UDP_LEN_BAD));
    CU_ASSERT_EQUAL(p.l4, EW_L4_NONE);
    CU_ASSERT_EQUAL(p.l4_end, 0);
}

/* ---- tunnels ---- */

/* outer IPv4 10.0.0.1 -> 10.0.0.2 (RFC 791 §3.1): total length, TOS, protocol */
#define OUTER_V4(len, tos, proto)                                                                \
    0x45, (tos), (uint8_t)((len) >> 8), (uint8_t)(len), 0x00, 0x07, 0x00, 0x00, 0x40, (proto),   \
        0x00, 0x00, 0x0a, 0x00, 0x00, 0x01, 0x0a, 0x00, 0x00, 0x02
/* outer IPv6 2001:db8:ffff::1 -> ::2 (RFC 8200 §3): payload length, traffic
 * class, next header */
#define OUTER_V6(plen, tc, nh)                                                                   \
    (uint8_t)(0x60 | ((tc) >> 4)), (uint8_t)(((tc) & 0x0f) << 4), 0x00, 0x00,                    \
        (uint8_t)((plen) >> 8), (uint8_t)(plen), (nh), 0x40, 0x20, 0x01, 0x0d, 0xb8, 0xff, 0xff,  \
        0, 0, 0, 0, 0, 0, 0, 0, 0, 0x01, 0x20, 0x01, 0x0d, 0xb8, 0xff, 0xff, 0, 0, 0, 0, 0, 0, 0, \
        0, 0, 0x02
/* UDP (RFC 768): source port 54321, the destination port, the length */
#define UDP_TO(dport, len)                                                                       \
    0xd4, 0x31, (uint8_t)((dport) >> 8), (uint8_t)(dport), (uint8_t)((len) >> 8), (uint8_t)(len), \
        0x00, 0x00

static const uint8_t outer_v4_src[16] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 10, 0, 0, 1};
static const uint8_t outer_v4_dst[16] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 10, 0, 0, 2};
static const uint8_t outer_v6_src[16] = {0x20, 0x01, 0x0d, 0xb8, 0xff, 0xff, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};

/* IPv4 in IPv4 (RFC 2003 §3), the outer ECT(1) */
static const uint8_t tun_4in4[] = {ETH_ADDRS, 0x08, 0x00, OUTER_V4(60, 0x01, 4), IPV4_TCP_PKT};
/* IPv6 in IPv4 (RFC 4213 §3.5), the outer ECT(0) */
static const uint8_t tun_6in4[] = {ETH_ADDRS, 0x08, 0x00, OUTER_V4(80, 0x02, 41), IPV6_TCP_PKT};
/* IPv4 in IPv6 (RFC 2473 §3), the outer Not-ECT, DSCP 46 */
static const uint8_t tun_4in6[] = {ETH_ADDRS, 0x86, 0xdd, OUTER_V6(40, 0xb8, 4), IPV4_TCP_PKT};
/* GRE (RFC 2784 §2.1; RFC 2890 §2) with checksum, key 0x1234 and sequence
 * number, IPv4 inside; the outer ECT(0) */
static const uint8_t tun_gre[] = {
    ETH_ADDRS, 0x08, 0x00, OUTER_V4(76, 0x02, 47),
    0xb0, 0x00, 0x08, 0x00, /* C, K, S; IPv4 */
    0x00, 0x00, 0x00, 0x00, /* checksum, reserved */
    0x00, 0x00, 0x12, 0x34, /* key */
    0x00, 0x00, 0x00, 0x01, /* sequence number */
    IPV4_TCP_PKT};
/* GRE with key 0xdeadbeef, transparent Ethernet bridging (0x6558): an
 * Ethernet frame with an 802.1Q tag around IPv6; the outer CE */
static const uint8_t tun_gre_eth[] = {
    ETH_ADDRS, 0x08, 0x00, OUTER_V4(106, 0x03, 47),
    0x20, 0x00, 0x65, 0x58, 0xde, 0xad, 0xbe, 0xef,
    ETH_ADDRS, 0x81, 0x00, 0x00, 0x2a, 0x86, 0xdd, IPV6_TCP_PKT};
/* ERSPAN type II (draft-foschiano-erspan-03 §4.1): GRE with a sequence
 * number, version 1, VLAN 5, session 42 */
static const uint8_t tun_erspan2[] = {
    ETH_ADDRS, 0x08, 0x00, OUTER_V4(90, 0x00, 47),
    0x10, 0x00, 0x88, 0xbe, 0x00, 0x00, 0x00, 0x09,
    0x10, 0x05, 0x00, 0x2a, 0x00, 0x00, 0x00, 0x00,
    ETH_ADDRS, 0x08, 0x00, IPV4_TCP_PKT};
/* ERSPAN type III (§4.2): version 2, session 7, frame type 0 (Ethernet), O
 * set: an 8-octet platform-specific subheader */
static const uint8_t tun_erspan3[] = {
    ETH_ADDRS, 0x08, 0x00, OUTER_V4(102, 0x00, 47),
    0x10, 0x00, 0x22, 0xeb, 0x00, 0x00, 0x00, 0x09,
    0x20, 0x00, 0x00, 0x07, 0x11, 0x22, 0x33, 0x44, 0x00, 0x00, 0x00, 0x01,
    0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    ETH_ADDRS, 0x08, 0x00, IPV4_TCP_PKT};
/* ERSPAN type I: GRE 0x88be without a sequence number, the frame at once */
static const uint8_t tun_erspan1[] = {
    ETH_ADDRS, 0x08, 0x00, OUTER_V4(78, 0x00, 47),
    0x00, 0x00, 0x88, 0xbe, ETH_ADDRS, 0x08, 0x00, IPV4_TCP_PKT};
/* VXLAN (RFC 7348 §5): I flag, VNI 12345, an Ethernet frame; the outer
 * ECT(1) */
static const uint8_t tun_vxlan[] = {
    ETH_ADDRS, 0x08, 0x00, OUTER_V4(90, 0x01, 17), UDP_TO(4789, 70),
    0x08, 0x00, 0x00, 0x00, 0x00, 0x30, 0x39, 0x00,
    ETH_ADDRS, 0x08, 0x00, IPV4_TCP_PKT};
/* VXLAN-GPE (draft-ietf-nvo3-vxlan-gpe-12 §3.3): I, P, next protocol NSH,
 * VNI 7; NSH (RFC 8300 §2.2-2.3): MD type 2, length 3 (one 4-octet context
 * header), next protocol IPv6, SPI 256, SI 255; outer IPv6, ECT(0) */
static const uint8_t tun_gpe_nsh[] = {
    ETH_ADDRS, 0x86, 0xdd, OUTER_V6(88, 0x02, 17), UDP_TO(4790, 88),
    0x0c, 0x00, 0x00, 0x04, 0x00, 0x00, 0x07, 0x00,
    0x0f, 0xc3, 0x02, 0x02, 0x00, 0x01, 0x00, 0xff, 0x00, 0x02, 0x01, 0x00,
    IPV6_TCP_PKT};
/* Geneve (RFC 8926 §3.4-3.5): one 8-octet option, protocol 0x6558, VNI 42 */
static const uint8_t tun_geneve[] = {
    ETH_ADDRS, 0x08, 0x00, OUTER_V4(98, 0x00, 17), UDP_TO(6081, 78),
    0x02, 0x00, 0x65, 0x58, 0x00, 0x00, 0x2a, 0x00,
    0x01, 0x04, 0x01, 0x01, 0xde, 0xad, 0xbe, 0xef,
    ETH_ADDRS, 0x08, 0x00, IPV4_TCP_PKT};
/* GTP-U (3GPP TS 29.281 §5.1-5.2): version 1, PT, E, S; G-PDU; length 48;
 * TEID 0x0badf00d; sequence 1, next extension 0x85 (PDU session container,
 * one word, the chain's end); the outer CE */
static const uint8_t tun_gtpu[] = {
    ETH_ADDRS, 0x08, 0x00, OUTER_V4(84, 0x03, 17), UDP_TO(2152, 64),
    0x36, 0xff, 0x00, 0x30, 0x0b, 0xad, 0xf0, 0x0d,
    0x00, 0x01, 0x00, 0x85, 0x01, 0x10, 0x09, 0x00,
    IPV4_TCP_PKT};
/* MPLS (RFC 3032 §2.1): labels 100 and 200 (bottom of stack), TTL 64 */
static const uint8_t tun_mpls[] = {
    ETH_ADDRS, 0x88, 0x47, 0x00, 0x06, 0x40, 0x40, 0x00, 0x0c, 0x81, 0x40, IPV4_TCP_PKT};
/* MACsec (IEEE 802.1AE-2018 §9.3): SC set, AN 1, short length 0, PN 5, the
 * SCI, the protected EtherType, and a 16-octet ICV */
static const uint8_t tun_macsec[] = {
    ETH_ADDRS, 0x88, 0xe5, 0x21, 0x00, 0x00, 0x00, 0x00, 0x05,
    0x02, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x01, 0x08, 0x00, IPV4_TCP_PKT,
    0xa0, 0xa1, 0xa2, 0xa3, 0xa4, 0xa5, 0xa6, 0xa7, 0xa8, 0xa9, 0xaa, 0xab, 0xac, 0xad, 0xae, 0xaf};
/* VXLAN in GRE: outer IPv4 (ECT(0)) / GRE / IPv4 192.0.2.1 -> 198.51.100.2
 * (CE) / UDP 4789 / VXLAN VNI 1 / Ethernet / IPv6 */
static const uint8_t tun_nested[] = {
    ETH_ADDRS, 0x08, 0x00, OUTER_V4(134, 0x02, 47),
    0x00, 0x00, 0x08, 0x00,
    0x45, 0x03, 0x00, 0x6e, 0x00, 0x08, 0x00, 0x00, 0x40, 0x11, 0x00, 0x00, V4_ADDRS,
    UDP_TO(4789, 90), 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00,
    ETH_ADDRS, 0x86, 0xdd, IPV6_TCP_PKT};

/* ---- truncation sweeps and mutation ---- */

/* Ethernet / IPv4 (ECT(1)) / TCP with timestamps and an AccECN option, 8 bytes of data */
static const uint8_t sweep_v4[] = {
    ETH_ADDRS, 0x08, 0x00,
    0x45, 0x01, 0x00, 0x48, /* ECT(1), total length 72 */
    0x00, 0x2a, 0x40, 0x00, 0x40, 0x06, 0x00, 0x00, V4_ADDRS,
    TCP_PORTS_SEQ_ACK,
    0xb1, 0x18, 0x01, 0x00, /* doff 11, AE; PSH|ACK */
    0x00, 0x00, 0x00, 0x00,
    0x01, 0x01,                         /* NOP NOP */
    0x08, 0x0a, 0x00, 0x00, 0x00, 0x07, /* timestamps: TSval 7 */
    0x00, 0x00, 0x00, 0x03,             /* TSecr 3 */
    0xae, 0x0b, 0x00, 0x00, 0x01,       /* AccECN1: EE1B 1 */
    0x00, 0x00, 0x00,                   /* ECEB 0 */
    0x00, 0x05, 0xb5,                   /* EE0B 1461 */
    0x01,                               /* NOP */
    'p', 'a', 'y', 'l', 'o', 'a', 'd', '!',
};

/* Ethernet / IPv6 (CE) / TCP with timestamps, 4 bytes of data */
static const uint8_t sweep_v6[] = {
    ETH_ADDRS, 0x86, 0xdd,
    0x60, 0x30, 0x00, 0x00, /* CE */
    0x00, 0x24, 0x06, 0x40, /* payload length 36, TCP */
    V6_ADDRS, TCP_PORTS_SEQ_ACK,
    0x80, 0x90, 0x01, 0x00, /* doff 8; CWR|ACK */
    0x00, 0x00, 0x00, 0x00,
    0x01, 0x01,                         /* NOP NOP */
    0x08, 0x0a, 0x00, 0x00, 0x00, 0x09, /* timestamps: TSval 9 */
    0x00, 0x00, 0x00, 0x08,             /* TSecr 8 */
    'd', 'a', 't', 'a',
};

/* Linux cooked v2 / IPv6 / hop-by-hop + fragment (first) / TCP */
static const uint8_t sweep_sll2_v6_ext[] = {
    0x86, 0xdd, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x00, 0x01, 0x00, 0x06, /* SLL2, IPv6 */
    0x02, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00,
    0x60, 0x20, 0x00, 0x00, /* ECT(0) */
    0x00, 0x24, 0x00, 0x40, /* payload length 36, hop-by-hop */
    V6_ADDRS,
    0x2c, 0x00, 0x01, 0x04, 0x00, 0x00, 0x00, 0x00, /* HBH: next fragment */
    0x06, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, /* fragment: next TCP, first, M */
    TCP_PORTS_SEQ_ACK, 0x50, 0x10, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00,
};

/* Ethernet / 802.1ad + 802.1Q / IPv4 / UDP */
static const uint8_t sweep_qinq_udp[] = {
    ETH_ADDRS, 0x88, 0xa8, 0x00, 0x0a, 0x81, 0x00, 0x00, 0x14, 0x08, 0x00,
    0x45, 0x02, 0x00, 0x20, /* ECT(0), total length 32 */
    0x00, 0x03, 0x00, 0x00, 0x40, 0x11, 0x00, 0x00, V4_ADDRS,
    0x14, 0xe9, 0x01, 0xbb, 0x00, 0x0c, 0x00, 0x00, /* 5353 -> 443, length 12 */
    'p', 'i', 'n', 'g',
};

/* BSD null / IPv4 with options / TCP with an MSS */
static const uint8_t sweep_null_v4_opts[] = {
    0x02, 0x00, 0x00, 0x00, /* AF_INET */
    0x46, 0x03, 0x00, 0x30, /* IHL 6, CE, total length 48 */
    0x00, 0x04, 0x00, 0x00, 0x40, 0x06, 0x00, 0x00, V4_ADDRS,
    0x94, 0x04, 0x00, 0x00, /* router alert */
    TCP_PORTS_SEQ_ACK, 0x60, 0x02, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, /* doff 6, SYN */
    0x02, 0x04, 0x05, 0xb4, /* MSS 1460 */
};

static const struct {
    const char *what;
    enum ew_link link;
    const uint8_t *frame;
    size_t len;
} sweep_frames[] = {
    {"eth/ipv4/tcp+opts", EW_LINK_ETHERNET, sweep_v4, sizeof(sweep_v4)},
    {"eth/ipv6/tcp", EW_LINK_ETHERNET, sweep_v6, sizeof(sweep_v6)},
    {"sll2/ipv6+ext/tcp", EW_LINK_SLL2, sweep_sll2_v6_ext, sizeof(sweep_sll2_v6_ext)},
    {"eth/qinq/ipv4/udp", EW_LINK_ETHERNET, sweep_qinq_udp, sizeof(sweep_qinq_udp)},
    {"null/ipv4+opts/tcp", EW_LINK_NULL, sweep_null_v4_opts, sizeof(sweep_null_v4_opts)},
    {"eth/ipv4/tcp", EW_LINK_ETHERNET, eth_v4_ect0, sizeof(eth_v4_ect0)},
    {"eth/ipv4/gre/ipv4/tcp", EW_LINK_ETHERNET, tun_gre, sizeof(tun_gre)},
    {"eth/ipv4/gre/erspan3/eth/ipv4/tcp", EW_LINK_ETHERNET, tun_erspan3, sizeof(tun_erspan3)},
    {"eth/ipv4/udp/vxlan/eth/ipv4/tcp", EW_LINK_ETHERNET, tun_vxlan, sizeof(tun_vxlan)},
    {"eth/ipv6/udp/gpe/nsh/ipv6/tcp", EW_LINK_ETHERNET, tun_gpe_nsh, sizeof(tun_gpe_nsh)},
    {"eth/ipv4/udp/geneve/eth/ipv4/tcp", EW_LINK_ETHERNET, tun_geneve, sizeof(tun_geneve)},
    {"eth/ipv4/udp/gtpu/ipv4/tcp", EW_LINK_ETHERNET, tun_gtpu, sizeof(tun_gtpu)},
    {"eth/mpls/ipv4/tcp", EW_LINK_ETHERNET, tun_mpls, sizeof(tun_mpls)},
    {"eth/macsec/ipv4/tcp", EW_LINK_ETHERNET, tun_macsec, sizeof(tun_macsec)},
    {"eth/ipv4/gre/ipv4/udp/vxlan/eth/ipv6/tcp", EW_LINK_ETHERNET, tun_nested, sizeof(tun_nested)},
};

/* Every prefix of a frame, with the full wire length: below the end of the
 * transport header either no transport or a truncation event; from there on
 * the same result as the whole frame. */
static void
sweep(enum ew_link link, const uint8_t *frame, size_t len)
{
    struct ew_pkt full, p;
    size_t n;

    run(link, frame, len, (uint32_t)len, &full);
    CU_ASSERT_EQUAL_FATAL(full.status, EW_PKT_OK);
    CU_ASSERT_FATAL(full.l4 != EW_L4_NONE);
    CU_ASSERT(full.l4_end > 0 && full.l4_end <= len);
    CU_ASSERT_EQUAL(full.events & TRUNC_EVENTS, 0);

    for (n = 0; n <= len; n++) {
        run(link, frame, n, (uint32_t)len, &p);
        CU_ASSERT_EQUAL(p.caplen, n);
        CU_ASSERT_FALSE(ew_pkt_has_event(&p, EW_EV_IP_LEN_SHORT));
        if (p.status != EW_PKT_OK)
            CU_ASSERT_EQUAL(p.l4, EW_L4_NONE);
        if (n < full.l4_end) {
            CU_ASSERT(p.l4 != full.l4 || (p.events & TRUNC_EVENTS) != 0);
            if (p.l4 == EW_L4_TCP)
                CU_ASSERT_FALSE(p.u.tcp.opts_complete);
            continue;
        }
        CU_ASSERT_EQUAL(p.status, full.status);
        CU_ASSERT_EQUAL(p.events, full.events);
        CU_ASSERT_EQUAL(p.family, full.family);
        CU_ASSERT_EQUAL(p.ecn, full.ecn);
        CU_ASSERT_EQUAL(p.ip_len, full.ip_len);
        CU_ASSERT_EQUAL(p.l4, full.l4);
        CU_ASSERT_EQUAL(p.l4_end, full.l4_end);
        if (full.l4 == EW_L4_TCP) {
            CU_ASSERT_EQUAL(p.u.tcp.sport, full.u.tcp.sport);
            CU_ASSERT_EQUAL(p.u.tcp.dport, full.u.tcp.dport);
            CU_ASSERT_EQUAL(p.u.tcp.seq, full.u.tcp.seq);
            CU_ASSERT_EQUAL(p.u.tcp.flags, full.u.tcp.flags);
            CU_ASSERT_EQUAL(p.u.tcp.payload, full.u.tcp.payload);
            CU_ASSERT_TRUE(p.u.tcp.opts_complete);
            CU_ASSERT_EQUAL(p.u.tcp.has_mss, full.u.tcp.has_mss);
            CU_ASSERT_EQUAL(p.u.tcp.has_ts, full.u.tcp.has_ts);
            CU_ASSERT_EQUAL(p.u.tcp.tsval, full.u.tcp.tsval);
            CU_ASSERT_EQUAL(p.u.tcp.acc.present, full.u.tcp.acc.present);
            CU_ASSERT_EQUAL(p.u.tcp.acc.nfields, full.u.tcp.acc.nfields);
        } else {
            CU_ASSERT_EQUAL(p.u.udp.sport, full.u.udp.sport);
            CU_ASSERT_EQUAL(p.u.udp.dport, full.u.udp.dport);
            CU_ASSERT_EQUAL(p.u.udp.payload, full.u.udp.payload);
        }
    }
}

static void
test_sweep_v4_tcp_opts(void)
{
    struct ew_pkt p;

    DISSECT(EW_LINK_ETHERNET, sweep_v4, &p);
    CU_ASSERT_EQUAL(p.events, 0);
    CU_ASSERT_EQUAL(p.ecn, EW_ECN_ECT_1);
    CU_ASSERT_EQUAL(p.u.tcp.flags, EW_TCP_AE | EW_TCP_PSH | EW_TCP_ACK);
    CU_ASSERT_EQUAL(p.u.tcp.tsecr, 3);
    CU_ASSERT_TRUE(p.u.tcp.acc.present);
    CU_ASSERT_EQUAL(p.u.tcp.acc.val[EW_ACC_E0B], 1461);
    CU_ASSERT_EQUAL(p.u.tcp.acc.val[EW_ACC_CEB], 0);
    CU_ASSERT_EQUAL(p.u.tcp.acc.val[EW_ACC_E1B], 1);
    CU_ASSERT_EQUAL(p.u.tcp.payload, 8);
    CU_ASSERT_EQUAL(p.l4_end, 78);
    sweep(EW_LINK_ETHERNET, sweep_v4, sizeof(sweep_v4));
}

static void
test_sweep_v6_tcp(void)
{
    struct ew_pkt p;

    DISSECT(EW_LINK_ETHERNET, sweep_v6, &p);
    CU_ASSERT_EQUAL(p.events, 0);
    CU_ASSERT_EQUAL(p.ecn, EW_ECN_CE);
    CU_ASSERT_EQUAL(p.u.tcp.flags, EW_TCP_CWR | EW_TCP_ACK);
    CU_ASSERT_EQUAL(p.u.tcp.payload, 4);
    CU_ASSERT_EQUAL(p.l4_end, 86);
    sweep(EW_LINK_ETHERNET, sweep_v6, sizeof(sweep_v6));
}

static void
test_sweep_more_frames(void)
{
    size_t i;

    for (i = 2; i < sizeof(sweep_frames) / sizeof(sweep_frames[0]); i++)
        sweep(sweep_frames[i].link, sweep_frames[i].frame, sweep_frames[i].len);
}

/* what must hold for any input */
static void
check_invariants(const struct ew_pkt *p, size_t caplen)
{
    CU_ASSERT_EQUAL(p->events & ~ALL_EVENTS, 0);
    CU_ASSERT(p->vlan_depth <= EW_VLAN_MAX_DEPTH);
    CU_ASSERT(p->ext_count <= EW_IPV6_EXT_MAX);
    CU_ASSERT(p->n_encap <= EW_TUNNEL_MAX_DEPTH);
    CU_ASSERT_EQUAL(p->status == EW_PKT_NON_IP, ew_pkt_has_event(p, EW_EV_NON_IP));
    if (p->status != EW_PKT_OK) {
        CU_ASSERT_EQUAL(p->l4, EW_L4_NONE);
        CU_ASSERT_EQUAL(p->n_encap, 0);
        CU_ASSERT(p->events != 0);
        return;
    }
    CU_ASSERT(p->family == 4 || p->family == 6);
    CU_ASSERT(p->ecn <= EW_ECN_CE);
    if (p->family == 4) {
        CU_ASSERT_EQUAL(p->src[10], 0xff);
        CU_ASSERT_EQUAL(p->dst[11], 0xff);
    }
    if (p->l4 == EW_L4_TCP) {
        CU_ASSERT_EQUAL(p->ip_proto, 6);
        CU_ASSERT(p->u.tcp.doff >= 5);
        CU_ASSERT(p->u.tcp.flags <= 0x1ff);
        CU_ASSERT(p->u.tcp.acc.nfields <= 3);
        CU_ASSERT(p->l4_end <= caplen || ew_pkt_has_event(p, EW_EV_TCP_OPT_TRUNC));
        CU_ASSERT_EQUAL(p->u.tcp.opts_complete, !ew_pkt_has_event(p, EW_EV_TCP_OPT_TRUNC));
    } else if (p->l4 == EW_L4_UDP) {
        CU_ASSERT_EQUAL(p->ip_proto, 17);
        CU_ASSERT(p->l4_end <= caplen);
    } else {
        CU_ASSERT_EQUAL(p->l4_end, 0);
    }
}

/* deterministic byte mutations of the sweep frames, at random capture and
 * wire lengths, under every link type */
static void
test_mutations(void)
{
    uint32_t x = 0x9e3779b9u;
    size_t i, round;

    for (i = 0; i < sizeof(sweep_frames) / sizeof(sweep_frames[0]); i++) {
        size_t len = sweep_frames[i].len;
        uint8_t *m = malloc(len);

        CU_ASSERT_PTR_NOT_NULL_FATAL(m);
        for (round = 0; round < 1500; round++) {
            struct ew_pkt p;
            size_t caplen, k, nflip;
            uint32_t wirelen;
            enum ew_link link;

            memcpy(m, sweep_frames[i].frame, len);
            x ^= x << 13, x ^= x >> 17, x ^= x << 5;
            nflip = 1 + x % 4;
            for (k = 0; k < nflip; k++) {
                x ^= x << 13, x ^= x >> 17, x ^= x << 5;
                m[x % len] = (uint8_t)(x >> 8);
            }
            x ^= x << 13, x ^= x >> 17, x ^= x << 5;
            caplen = (x >> 4) % (len + 1);
            switch ((x >> 12) % 4) {
            case 0:
                wirelen = (uint32_t)len;
                break;
            case 1:
                wirelen = (uint32_t)caplen;
                break;
            case 2:
                wirelen = 0;
                break;
            default:
                wirelen = 65535;
                break;
            }
            /* mostly the frame's own link type, sometimes another */
            link = (x >> 20) % 4 ? sweep_frames[i].link : (enum ew_link)((x >> 24) % EW_LINK_COUNT);
            run(link, m, caplen, wirelen, &p);
            check_invariants(&p, caplen);
        }
        free(m);
    }
}

/* ---- tunnels: the inner flow, the encapsulations recorded ---- */

static void
check_encap(const struct ew_pkt *p, unsigned i, enum ew_tunnel type, uint8_t family,
            enum ew_ecn ecn, bool has_id, uint32_t id)
{
    CU_ASSERT_FATAL(i < p->n_encap);
    CU_ASSERT_EQUAL(p->encap[i].type, type);
    CU_ASSERT_EQUAL(p->encap[i].family, family);
    CU_ASSERT_EQUAL(p->encap[i].ecn, ecn);
    CU_ASSERT_EQUAL(p->encap[i].has_id, has_id);
    if (has_id)
        CU_ASSERT_EQUAL(p->encap[i].id, id);
    if (family == 4) {
        CU_ASSERT_EQUAL(memcmp(p->encap[i].src, outer_v4_src, 16), 0);
        CU_ASSERT_EQUAL(memcmp(p->encap[i].dst, outer_v4_dst, 16), 0);
    } else if (family == 6 && i == 0) {
        CU_ASSERT_EQUAL(memcmp(p->encap[i].src, outer_v6_src, 16), 0);
    }
}

/* Every prefix of a tunnelled frame: below the end of the inner transport
 * header always a truncation event (never an invalid one) and never the
 * inner flow; from there on the whole frame's tunnels. */
static void
sweep_tunnel(enum ew_link link, const uint8_t *frame, size_t len)
{
    struct ew_pkt full, p;
    size_t n;
    unsigned i;

    sweep(link, frame, len);
    run(link, frame, len, (uint32_t)len, &full);
    CU_ASSERT_FATAL(full.n_encap > 0);
    for (n = 0; n <= len; n++) {
        run(link, frame, n, (uint32_t)len, &p);
        CU_ASSERT(p.n_encap <= full.n_encap);
        if (n < full.l4_end) {
            CU_ASSERT((p.events & TRUNC_EVENTS) != 0);
            CU_ASSERT_FALSE(ew_pkt_has_event(&p, EW_EV_TUNNEL_BAD));
            CU_ASSERT(p.l4 != EW_L4_TCP || p.n_encap < full.n_encap ||
                      ew_pkt_has_event(&p, EW_EV_TCP_OPT_TRUNC));
            continue;
        }
        CU_ASSERT_EQUAL(p.n_encap, full.n_encap);
        for (i = 0; i < full.n_encap && i < p.n_encap; i++)
            CU_ASSERT_EQUAL(memcmp(&p.encap[i], &full.encap[i], sizeof(p.encap[i])), 0);
    }
}

static void
test_tun_ipip(void)
{
    struct ew_pkt p;

    DISSECT(EW_LINK_ETHERNET, tun_4in4, &p);
    check_ipv4_tcp_pkt(&p, 34);
    CU_ASSERT_EQUAL(p.n_encap, 1);
    check_encap(&p, 0, EW_TUN_IPIP, 4, EW_ECN_ECT_1, false, 0);
    sweep_tunnel(EW_LINK_ETHERNET, tun_4in4, sizeof(tun_4in4));

    DISSECT(EW_LINK_ETHERNET, tun_6in4, &p);
    check_ipv6_tcp_pkt(&p, 34);
    CU_ASSERT_EQUAL(p.n_encap, 1);
    check_encap(&p, 0, EW_TUN_IPIP, 4, EW_ECN_ECT_0, false, 0);
    sweep_tunnel(EW_LINK_ETHERNET, tun_6in4, sizeof(tun_6in4));

    DISSECT(EW_LINK_ETHERNET, tun_4in6, &p);
    check_ipv4_tcp_pkt(&p, 54);
    check_encap(&p, 0, EW_TUN_IPIP, 6, EW_ECN_NOT_ECT, false, 0);
    CU_ASSERT_EQUAL(p.encap[0].dscp, 46);
    sweep_tunnel(EW_LINK_ETHERNET, tun_4in6, sizeof(tun_4in6));
}

static void
test_tun_gre(void)
{
    struct ew_pkt p;

    DISSECT(EW_LINK_ETHERNET, tun_gre, &p);
    check_ipv4_tcp_pkt(&p, 50);
    CU_ASSERT_EQUAL(p.n_encap, 1);
    check_encap(&p, 0, EW_TUN_GRE, 4, EW_ECN_ECT_0, true, 0x1234);
    sweep_tunnel(EW_LINK_ETHERNET, tun_gre, sizeof(tun_gre));

    DISSECT(EW_LINK_ETHERNET, tun_gre_eth, &p);
    check_ipv6_tcp_pkt(&p, 60);
    check_encap(&p, 0, EW_TUN_GRE, 4, EW_ECN_CE, true, 0xdeadbeefu);
    CU_ASSERT_EQUAL(p.vlan_depth, 0); /* the inner tag is not the link's */
    sweep_tunnel(EW_LINK_ETHERNET, tun_gre_eth, sizeof(tun_gre_eth));
}

static void
test_tun_erspan(void)
{
    struct ew_pkt p;

    DISSECT(EW_LINK_ETHERNET, tun_erspan2, &p);
    check_ipv4_tcp_pkt(&p, 64);
    check_encap(&p, 0, EW_TUN_ERSPAN, 4, EW_ECN_NOT_ECT, true, 42);
    sweep_tunnel(EW_LINK_ETHERNET, tun_erspan2, sizeof(tun_erspan2));

    DISSECT(EW_LINK_ETHERNET, tun_erspan3, &p);
    check_ipv4_tcp_pkt(&p, 76);
    check_encap(&p, 0, EW_TUN_ERSPAN, 4, EW_ECN_NOT_ECT, true, 7);
    sweep_tunnel(EW_LINK_ETHERNET, tun_erspan3, sizeof(tun_erspan3));

    DISSECT(EW_LINK_ETHERNET, tun_erspan1, &p);
    check_ipv4_tcp_pkt(&p, 52);
    check_encap(&p, 0, EW_TUN_ERSPAN, 4, EW_ECN_NOT_ECT, false, 0);
    sweep_tunnel(EW_LINK_ETHERNET, tun_erspan1, sizeof(tun_erspan1));
}

static void
test_tun_vxlan(void)
{
    struct ew_pkt p;

    DISSECT(EW_LINK_ETHERNET, tun_vxlan, &p);
    check_ipv4_tcp_pkt(&p, 64);
    CU_ASSERT_EQUAL(p.n_encap, 1);
    check_encap(&p, 0, EW_TUN_VXLAN, 4, EW_ECN_ECT_1, true, 12345);
    sweep_tunnel(EW_LINK_ETHERNET, tun_vxlan, sizeof(tun_vxlan));
}

static void
test_tun_gpe_nsh(void)
{
    struct ew_pkt p;

    DISSECT(EW_LINK_ETHERNET, tun_gpe_nsh, &p);
    check_ipv6_tcp_pkt(&p, 82);
    CU_ASSERT_EQUAL(p.n_encap, 2);
    check_encap(&p, 0, EW_TUN_VXLAN_GPE, 6, EW_ECN_ECT_0, true, 7);
    check_encap(&p, 1, EW_TUN_NSH, 0, EW_ECN_NOT_ECT, true, 256);
    sweep_tunnel(EW_LINK_ETHERNET, tun_gpe_nsh, sizeof(tun_gpe_nsh));
}

static void
test_tun_geneve(void)
{
    struct ew_pkt p;

    DISSECT(EW_LINK_ETHERNET, tun_geneve, &p);
    check_ipv4_tcp_pkt(&p, 72);
    check_encap(&p, 0, EW_TUN_GENEVE, 4, EW_ECN_NOT_ECT, true, 42);
    sweep_tunnel(EW_LINK_ETHERNET, tun_geneve, sizeof(tun_geneve));
}

static void
test_tun_gtpu(void)
{
    struct ew_pkt p;

    DISSECT(EW_LINK_ETHERNET, tun_gtpu, &p);
    check_ipv4_tcp_pkt(&p, 58);
    check_encap(&p, 0, EW_TUN_GTPU, 4, EW_ECN_CE, true, 0x0badf00du);
    sweep_tunnel(EW_LINK_ETHERNET, tun_gtpu, sizeof(tun_gtpu));
}

static void
test_tun_mpls(void)
{
    struct ew_pkt p;

    DISSECT(EW_LINK_ETHERNET, tun_mpls, &p);
    check_ipv4_tcp_pkt(&p, 22);
    check_encap(&p, 0, EW_TUN_MPLS, 0, EW_ECN_NOT_ECT, true, 100);
    CU_ASSERT_EQUAL(p.encap[0].labels, 2);
    sweep_tunnel(EW_LINK_ETHERNET, tun_mpls, sizeof(tun_mpls));
}

static void
test_tun_macsec(void)
{
    struct ew_pkt p;

    DISSECT(EW_LINK_ETHERNET, tun_macsec, &p);
    check_ipv4_tcp_pkt(&p, 30);
    check_encap(&p, 0, EW_TUN_MACSEC, 0, EW_ECN_NOT_ECT, false, 0);
    sweep_tunnel(EW_LINK_ETHERNET, tun_macsec, sizeof(tun_macsec));
}

static void
test_tun_nested(void)
{
    struct ew_pkt p;

    DISSECT(EW_LINK_ETHERNET, tun_nested, &p);
    check_ipv6_tcp_pkt(&p, 88);
    CU_ASSERT_EQUAL(p.n_encap, 2);
    check_encap(&p, 0, EW_TUN_GRE, 4, EW_ECN_ECT_0, false, 0);
    CU_ASSERT_EQUAL(p.encap[1].type, EW_TUN_VXLAN);
    CU_ASSERT_EQUAL(p.encap[1].family, 4);
    CU_ASSERT_EQUAL(p.encap[1].ecn, EW_ECN_CE);
    CU_ASSERT_EQUAL(p.encap[1].id, 1);
    CU_ASSERT_EQUAL(memcmp(p.encap[1].src, v4_src_mapped, 16), 0);
    sweep_tunnel(EW_LINK_ETHERNET, tun_nested, sizeof(tun_nested));
}

/* A copy of frame f (len bytes) with byte at..at+n replaced by the n bytes
 * of b, dissected whole. */
static void
patched(const uint8_t *f, size_t len, size_t at, const uint8_t *b, size_t n, struct ew_pkt *p)
{
    uint8_t *m = malloc(len);

    CU_ASSERT_PTR_NOT_NULL_FATAL(m);
    memcpy(m, f, len);
    memcpy(m + at, b, n);
    run(EW_LINK_ETHERNET, m, len, (uint32_t)len, p);
    free(m);
}

/* the frame left as the outer packet: IPv4 10.0.0.1 -> 10.0.0.2 */
static void
check_outer_view(const struct ew_pkt *p, uint64_t events, uint8_t proto)
{
    CU_ASSERT_EQUAL(p->status, EW_PKT_OK);
    CU_ASSERT_EQUAL(p->events, events);
    CU_ASSERT_EQUAL(p->n_encap, 0);
    CU_ASSERT_EQUAL(p->family, 4);
    CU_ASSERT_EQUAL(memcmp(p->src, outer_v4_src, 16), 0);
    CU_ASSERT_EQUAL(p->ip_proto, proto);
}

/* headers that break their rules: the outer packet, with the event */
static void
test_tun_bad_headers(void)
{
    static const uint8_t vx_no_i[] = {0x00};
    static const uint8_t gre_ver2[] = {0x00, 0x02};
    static const uint8_t gre_routing[] = {0x40, 0x00};
    static const uint8_t gre_ver1[] = {0x00, 0x01};
    static const uint8_t gre_ppp[] = {0x88, 0x0b};
    static const uint8_t erspan_ver[] = {0x30};
    static const uint8_t geneve_ver[] = {0x42};
    static const uint8_t gtp_ver2[] = {0x48};
    static const uint8_t gtp_echo[] = {0x01};
    static const uint8_t gtp_ext0[] = {0x00};
    static const uint8_t nsh_len1[] = {0xc1};
    static const uint8_t nsh_ver[] = {0x4f};
    static const uint8_t gpe_ver[] = {0x1c};
    static const uint8_t arp[] = {0x08, 0x06};
    static const uint8_t gpe_np9[] = {0x09};
    static const uint8_t geneve_optlen[] = {0x3f};
    struct ew_pkt p;

    patched(tun_vxlan, sizeof(tun_vxlan), 42, vx_no_i, 1, &p);
    check_outer_view(&p, EV(EW_EV_TUNNEL_BAD), 17);
    CU_ASSERT_EQUAL(p.l4, EW_L4_UDP);
    CU_ASSERT_EQUAL(p.u.udp.dport, 4789);
    CU_ASSERT_EQUAL(p.ecn, EW_ECN_ECT_1);
    patched(tun_vxlan, sizeof(tun_vxlan), 62, arp, 2, &p);
    check_outer_view(&p, EV(EW_EV_TUNNEL_NON_IP), 17);
    patched(tun_gre, sizeof(tun_gre), 34, gre_ver2, 2, &p);
    check_outer_view(&p, EV(EW_EV_TUNNEL_BAD), 47);
    CU_ASSERT_EQUAL(p.l4, EW_L4_NONE);
    patched(tun_gre, sizeof(tun_gre), 34, gre_routing, 2, &p);
    check_outer_view(&p, EV(EW_EV_TUNNEL_BAD), 47);
    patched(tun_gre, sizeof(tun_gre), 34, gre_ver1, 2, &p);
    check_outer_view(&p, EV(EW_EV_TUNNEL_NON_IP), 47);
    patched(tun_gre, sizeof(tun_gre), 36, gre_ppp, 2, &p);
    check_outer_view(&p, EV(EW_EV_TUNNEL_NON_IP), 47);
    patched(tun_erspan2, sizeof(tun_erspan2), 42, erspan_ver, 1, &p);
    check_outer_view(&p, EV(EW_EV_TUNNEL_BAD), 47);
    patched(tun_geneve, sizeof(tun_geneve), 42, geneve_ver, 1, &p);
    check_outer_view(&p, EV(EW_EV_TUNNEL_BAD), 17);
    /* options longer than the datagram: invalid, not cut */
    patched(tun_geneve, sizeof(tun_geneve), 42, geneve_optlen, 1, &p);
    check_outer_view(&p, EV(EW_EV_TUNNEL_BAD), 17);
    patched(tun_gtpu, sizeof(tun_gtpu), 42, gtp_ver2, 1, &p);
    check_outer_view(&p, EV(EW_EV_TUNNEL_BAD), 17);
    patched(tun_gtpu, sizeof(tun_gtpu), 43, gtp_echo, 1, &p);
    check_outer_view(&p, EV(EW_EV_TUNNEL_NON_IP), 17);
    patched(tun_gtpu, sizeof(tun_gtpu), 54, gtp_ext0, 1, &p);
    check_outer_view(&p, EV(EW_EV_TUNNEL_BAD), 17);
    /* VXLAN-GPE and NSH (outer IPv6): the outer view is IPv6 */
    patched(tun_gpe_nsh, sizeof(tun_gpe_nsh), 62, gpe_ver, 1, &p);
    CU_ASSERT_EQUAL(p.events, EV(EW_EV_TUNNEL_BAD));
    CU_ASSERT_EQUAL(p.family, 6);
    CU_ASSERT_EQUAL(p.n_encap, 0);
    patched(tun_gpe_nsh, sizeof(tun_gpe_nsh), 71, nsh_len1, 1, &p);
    CU_ASSERT_EQUAL(p.events, EV(EW_EV_TUNNEL_BAD));
    CU_ASSERT_EQUAL(p.u.udp.dport, 4790);
    patched(tun_gpe_nsh, sizeof(tun_gpe_nsh), 70, nsh_ver, 1, &p);
    CU_ASSERT_EQUAL(p.events, EV(EW_EV_TUNNEL_BAD));
    patched(tun_gpe_nsh, sizeof(tun_gpe_nsh), 65, gpe_np9, 1, &p);
    CU_ASSERT_EQUAL(p.events, EV(EW_EV_TUNNEL_NON_IP));
    CU_ASSERT_EQUAL(p.family, 6);
    CU_ASSERT_EQUAL(p.n_encap, 0);
}

/* MPLS and MACsec on the link: what is not IP is non-IP, as before */
static void
test_tun_link_level(void)
{
    static const uint8_t mpls_eth_pw[] = {0x00};
    static const uint8_t macsec_e[] = {0x2d};
    static const uint8_t macsec_v[] = {0xa1};
    /* nine labels, none the bottom of the stack */
    static const uint8_t mpls_deep[] = {
        ETH_ADDRS, 0x88, 0x47, 0x00, 0x01, 0x00, 0x40, 0x00, 0x01, 0x00, 0x40, 0x00, 0x01, 0x00,
        0x40, 0x00, 0x01, 0x00, 0x40, 0x00, 0x01, 0x00, 0x40, 0x00, 0x01, 0x00, 0x40, 0x00, 0x01,
        0x00, 0x40, 0x00, 0x01, 0x00, 0x40, 0x00, 0x01, 0x00, 0x40, IPV4_TCP_PKT};
    /* an MPLS frame without a bottom of stack, ended: cut */
    static const uint8_t mpls_cut[] = {ETH_ADDRS, 0x88, 0x47, 0x00, 0x01, 0x00, 0x40};
    struct ew_pkt p;

    patched(tun_mpls, sizeof(tun_mpls), 22, mpls_eth_pw, 1, &p);
    CU_ASSERT_EQUAL(p.status, EW_PKT_NON_IP);
    CU_ASSERT_EQUAL(p.events, EV(EW_EV_NON_IP));
    CU_ASSERT_EQUAL(p.n_encap, 0);
    DISSECT(EW_LINK_ETHERNET, mpls_deep, &p);
    check_undecodable(&p, EW_EV_MPLS_TOO_DEEP);
    run(EW_LINK_ETHERNET, mpls_cut, sizeof(mpls_cut), 100, &p);
    check_undecodable(&p, EW_EV_TUNNEL_TRUNC);
    patched(tun_macsec, sizeof(tun_macsec), 14, macsec_e, 1, &p);
    CU_ASSERT_EQUAL(p.status, EW_PKT_NON_IP);
    CU_ASSERT_EQUAL(p.events, EV(EW_EV_MACSEC_ENCRYPTED) | EV(EW_EV_NON_IP));
    patched(tun_macsec, sizeof(tun_macsec), 14, macsec_v, 1, &p);
    check_undecodable(&p, EW_EV_TUNNEL_BAD);
}

/* IPv4 in IPv4, n deep, around IPV4_TCP_PKT: each outer header ECT(0) */
static size_t
ipip_deep(uint8_t *f, unsigned n)
{
    static const uint8_t inner[] = {IPV4_TCP_PKT};
    static const uint8_t hdr[] = {OUTER_V4(0, 0x02, 4)};
    size_t off = (size_t)n * 20, k;

    memcpy(f + off, inner, sizeof(inner));
    for (k = 0; k < n; k++) {
        size_t at = off - (k + 1) * 20, len = sizeof(inner) + (k + 1) * 20;

        memcpy(f + at, hdr, 20);
        f[at + 2] = (uint8_t)(len >> 8);
        f[at + 3] = (uint8_t)len;
    }
    return off + sizeof(inner);
}

/* four encapsulations are opened, a fifth is an event and the frame stays
 * at the fourth's inner packet */
static void
test_tun_too_deep(void)
{
    uint8_t f[6 * 20 + 40] = {0};
    struct ew_pkt p;
    size_t len, n;

    len = ipip_deep(f, EW_TUNNEL_MAX_DEPTH);
    run(EW_LINK_RAW, f, len, (uint32_t)len, &p);
    check_ipv4_tcp_pkt(&p, EW_TUNNEL_MAX_DEPTH * 20);
    CU_ASSERT_EQUAL(p.n_encap, EW_TUNNEL_MAX_DEPTH);
    check_encap(&p, 3, EW_TUN_IPIP, 4, EW_ECN_ECT_0, false, 0);

    len = ipip_deep(f, EW_TUNNEL_MAX_DEPTH + 1);
    run(EW_LINK_RAW, f, len, (uint32_t)len, &p);
    CU_ASSERT_EQUAL(p.status, EW_PKT_OK);
    CU_ASSERT_EQUAL(p.events, EV(EW_EV_TUNNEL_TOO_DEEP));
    CU_ASSERT_EQUAL(p.n_encap, EW_TUNNEL_MAX_DEPTH);
    CU_ASSERT_EQUAL(p.ip_proto, 4);
    CU_ASSERT_EQUAL(p.ecn, EW_ECN_ECT_0);
    CU_ASSERT_EQUAL(p.ip_len, 60);
    CU_ASSERT_EQUAL(p.l4, EW_L4_NONE);
    /* cut anywhere: never more than four, never past the end */
    for (n = 0; n <= len; n++) {
        run(EW_LINK_RAW, f, n, (uint32_t)len, &p);
        check_invariants(&p, n);
        CU_ASSERT(p.status != EW_PKT_OK || n >= 20);
        /* what lies past the bound is not read: no truncation there */
        CU_ASSERT(n >= (EW_TUNNEL_MAX_DEPTH + 1) * 20 || (p.events & TRUNC_EVENTS) != 0);
    }
}

/* --no-decap: the outer headers only; --decap vxlan:8472 */
static void
test_tun_config(void)
{
    struct ew_decap_cfg cfg;
    struct ew_pkt p;
    uint8_t m[sizeof(tun_vxlan)];

    ew_decap_defaults(&cfg);
    cfg.off = true;
    ew_decap_configure(&cfg);
    DISSECT(EW_LINK_ETHERNET, tun_vxlan, &p);
    check_outer_view(&p, 0, 17);
    CU_ASSERT_EQUAL(p.ecn, EW_ECN_ECT_1);
    CU_ASSERT_EQUAL(p.u.udp.dport, 4789);
    DISSECT(EW_LINK_ETHERNET, tun_gre, &p);
    check_outer_view(&p, 0, 47);
    DISSECT(EW_LINK_ETHERNET, tun_mpls, &p);
    CU_ASSERT_EQUAL(p.status, EW_PKT_NON_IP);

    /* VXLAN on the Linux kernel's old port */
    memcpy(m, tun_vxlan, sizeof(m));
    m[36] = 0x21, m[37] = 0x18; /* 8472 */
    ew_decap_defaults(&cfg);
    ew_decap_configure(&cfg);
    run(EW_LINK_ETHERNET, m, sizeof(m), (uint32_t)sizeof(m), &p);
    check_outer_view(&p, 0, 17);
    CU_ASSERT_EQUAL(ew_decap_set_port(&cfg, (enum ew_tunnel)ew_decap_udp_type("vxlan"), 8472), 0);
    ew_decap_configure(&cfg);
    run(EW_LINK_ETHERNET, m, sizeof(m), (uint32_t)sizeof(m), &p);
    check_ipv4_tcp_pkt(&p, 64);
    check_encap(&p, 0, EW_TUN_VXLAN, 4, EW_ECN_ECT_1, true, 12345);
    /* the port given to another type: that type's */
    CU_ASSERT_EQUAL(ew_decap_set_port(&cfg, EW_TUN_GENEVE, 4789), 0);
    ew_decap_configure(&cfg);
    DISSECT(EW_LINK_ETHERNET, tun_vxlan, &p);
    /* a VXLAN header read as Geneve's: 32 octets of options, protocol 0 */
    CU_ASSERT_EQUAL(p.events, EV(EW_EV_TUNNEL_NON_IP));
    CU_ASSERT_EQUAL(ew_decap_udp_type("nsh"), -1);
    CU_ASSERT_EQUAL(ew_decap_udp_type("gtpu"), EW_TUN_GTPU);

    ew_decap_defaults(&cfg);
    ew_decap_configure(&cfg);
}

/* every event was produced by at least one frame in this file */
static void
test_every_event_covered(void)
{
    size_t e;

    for (e = 0; e < EW_EV_COUNT; e++) {
        if (!(events_seen & EV(e)))
            CU_assertImplementation(CU_FALSE, __LINE__, ew_event_name[e], __FILE__, "", CU_FALSE);
    }
    CU_ASSERT_EQUAL(events_seen, ALL_EVENTS);
}

struct test_def {
    const char *name;
    CU_TestFunc fn;
};

static int
add_suite(const char *name, const struct test_def *t, size_t n)
{
    CU_pSuite s = CU_add_suite(name, NULL, NULL);
    size_t i;

    if (!s)
        return -1;
    for (i = 0; i < n; i++)
        if (!CU_add_test(s, t[i].name, t[i].fn))
            return -1;
    return 0;
}

#define ADD_SUITE(name, tests) add_suite((name), (tests), sizeof(tests) / sizeof((tests)[0]))

int
ew_test_register_dissect(void)
{
    static const struct test_def link_tests[] = {
        {"ethernet ipv4 tcp, each ECN codepoint", test_eth_ipv4_tcp_ecn},
        {"802.1Q single tag", test_eth_vlan_single},
        {"802.1ad + 802.1Q double tag", test_eth_vlan_double},
        {"three tags too deep", test_eth_vlan_too_deep},
        {"ethernet and tag cut", test_eth_link_trunc},
        {"ARP and LLC are not IP", test_eth_non_ip},
        {"ethernet padding not parsed", test_eth_padding},
        {"linux cooked v1", test_sll_v1},
        {"linux cooked v2", test_sll_v2},
        {"raw IP by version nibble", test_raw},
        {"IPv4 and IPv6 link types", test_link_ipv4_ipv6},
        {"BSD null, both byte orders", test_null},
        {"OpenBSD loop, network order", test_loop},
        {"PPP: RFC 1662 framing, compressed Protocol, Cisco HDLC", test_ppp},
        {"Cisco HDLC", test_chdlc},
        {"IPoIB: libpcap's 44-byte header", test_ipoib},
        {"NFLOG: TLVs in either byte order, the payload found", test_nflog},
        {"unknown link type", test_link_unknown},
        {"name tables", test_name_tables},
    };
    static const struct test_def ipv4_tests[] = {
        {"header cut at 0..19", test_ipv4_header_cut},
        {"version mismatch", test_ipv4_version_bad},
        {"IHL below 5", test_ipv4_hlen_small},
        {"total length below header length", test_ipv4_totlen_bad},
        {"options IHL 6 and 7", test_ipv4_options},
        {"options cut", test_ipv4_options_cut},
        {"first fragment", test_ipv4_first_fragment},
        {"later fragments", test_ipv4_later_fragment},
        {"length past the wire length", test_ipv4_len_past_wire},
        {"total length 0 (TSO)", test_ipv4_tso},
        {"other protocol", test_ipv4_other_proto},
    };
    static const struct test_def ipv6_tests[] = {
        {"traffic class ECN and DSCP", test_ipv6_tclass},
        {"fixed header cut", test_ipv6_header_cut},
        {"hop-by-hop, routing, dest-opts", test_ipv6_ext_chain},
        {"fragment header first and later", test_ipv6_fragment},
        {"AH", test_ipv6_ah},
        {"extension chain limit", test_ipv6_ext_limit},
        {"extension past payload vs capture", test_ipv6_ext_bad_vs_trunc},
        {"length past wire, jumbogram, no next header", test_ipv6_len_and_jumbo},
    };
    static const struct test_def tcp_tests[] = {
        {"SYN with AE, CWR, ECE and options", test_tcp_syn_ae_cwr_ece},
        {"flag bits", test_tcp_flags_bits},
        {"segment shorter than 20", test_tcp_short},
        {"fixed header cut", test_tcp_trunc},
        {"data offset small and past end", test_tcp_doff},
        {"SACK blocks", test_tcp_opt_sack},
        {"EOL and NOP", test_tcp_opt_eol_nop},
        {"bad option lengths", test_tcp_opt_badlen},
        {"option overrun", test_tcp_opt_overrun},
        {"option space cut", test_tcp_opt_trunc},
        {"AccECN kind 172", test_tcp_accecn_172},
        {"AccECN kind 174", test_tcp_accecn_174},
        {"AccECN kind 254", test_tcp_accecn_exp},
    };
    static const struct test_def udp_tests[] = {
        {"UDP", test_udp},
    };
    static const struct test_def tunnel_tests[] = {
        {"IPv4 and IPv6 in IPv4 and IPv6", test_tun_ipip},
        {"GRE: checksum, key, sequence; Ethernet with a tag", test_tun_gre},
        {"ERSPAN types I, II and III", test_tun_erspan},
        {"VXLAN", test_tun_vxlan},
        {"VXLAN-GPE with NSH", test_tun_gpe_nsh},
        {"Geneve with an option", test_tun_geneve},
        {"GTP-U with a sequence number and an extension header", test_tun_gtpu},
        {"MPLS label stack", test_tun_mpls},
        {"MACsec with an SCI and the ICV", test_tun_macsec},
        {"VXLAN in GRE", test_tun_nested},
        {"bad headers and inner packets not IP", test_tun_bad_headers},
        {"MPLS and MACsec on the link: non-IP, too deep, cut, encrypted", test_tun_link_level},
        {"nesting bound", test_tun_too_deep},
        {"decapsulation off, and a port configured", test_tun_config},
    };
    static const struct test_def trunc_tests[] = {
        {"sweep ethernet ipv4 tcp with options", test_sweep_v4_tcp_opts},
        {"sweep ethernet ipv6 tcp", test_sweep_v6_tcp},
        {"sweep other encapsulations", test_sweep_more_frames},
        {"every event covered", test_every_event_covered},
        {"mutated frames keep invariants", test_mutations},
    };

    if (ADD_SUITE("dissect_link", link_tests) || ADD_SUITE("dissect_ipv4", ipv4_tests) ||
        ADD_SUITE("dissect_ipv6", ipv6_tests) || ADD_SUITE("dissect_tcp", tcp_tests) ||
        ADD_SUITE("dissect_udp", udp_tests) || ADD_SUITE("dissect_tunnel", tunnel_tests) ||
        ADD_SUITE("dissect_truncation", trunc_tests))
        return -1;
    return 0;
}
