/* fixture.h - the one builder of the decoded packets (struct ew_pkt) that
 * the unit suites feed the analyzer, filled as the dissectors fill them,
 * between a client and a server that each suite describes once. */
#ifndef ECNWATCH_TEST_FIXTURE_H
#define ECNWATCH_TEST_FIXTURE_H

#include <stdint.h>

#include "dissectors/pkt.h"

/* which end sends a packet */
enum { CLI = 0, SRV = 1 };

/* the two ends of a flow */
struct fx_hosts {
    uint8_t family;     /* 4 or 6 */
    uint32_t cli, srv;  /* IPv4: a.b.c.d as 0xaabbccdd; IPv6: the last 32 bits of 2001:db8::/96 */
    uint16_t cport, sport;
    uint32_t hdr;       /* the IP and transport header bytes counted in ip_len (40: IPv4 and
                         * TCP without options; 52: with timestamps; 60: IPv6 and TCP) */
};

/* ADDR as ecnwatch holds it: IPv4 v4-mapped (::ffff:a.b.c.d), IPv6 in 2001:db8::/96 */
void fx_addr(uint8_t a[16], int family, uint32_t addr);

/* an IP packet of protocol PROTO (6 TCP, 17 UDP, others without a
 * transport) from FROM (CLI or SRV) with PAYLOAD bytes after the headers;
 * everything not given is 0 */
void fx_ip(struct ew_pkt *p, const struct fx_hosts *h, int from, uint8_t proto, uint8_t ecn,
           uint32_t payload);

/* a TCP segment: fx_ip, then the ports, FLAGS (enum ew_tcp_flag), SEQ, ACK
 * and the payload length; doff, window and options are 0 */
void fx_tcp(struct ew_pkt *p, const struct fx_hosts *h, int from, uint16_t flags, uint8_t ecn,
            uint32_t seq, uint32_t ack, uint32_t payload);

/* a UDP datagram: fx_ip, then the ports, the length and the payload length */
void fx_udp(struct ew_pkt *p, const struct fx_hosts *h, int from, uint8_t ecn, uint32_t payload);

/* the flows of the metrics, snapshot and stream suites: a TCP segment (L4
 * EW_L4_TCP; FLAGS, SEQ, no ACK number) or a UDP datagram (any other L4)
 * between 10.0.0.9:CPORT and 10.0.0.1:80, IPv4 without options */
void fx_pkt(struct ew_pkt *p, int l4, int from, uint16_t cport, uint16_t flags, uint32_t seq,
            uint32_t payload, uint8_t ecn);

#endif
