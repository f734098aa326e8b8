/* fixture.c - the one builder of decoded packets for the unit suites
 * (fixture.h) */
#include <string.h>

#include "fixture.h"

void
fx_addr(uint8_t a[16], int family, uint32_t addr)
{
    memset(a, 0, 16);
    if (family == 4) {
        a[10] = a[11] = 0xff;
    } else {
        a[0] = 0x20;
        a[1] = 0x01;
        a[2] = 0x0d;
        a[3] = 0xb8;
    }
    a[12] = (uint8_t)(addr >> 24);
    a[13] = (uint8_t)(addr >> 16);
    a[14] = (uint8_t)(addr >> 8);
    a[15] = (uint8_t)addr;
}

void
fx_ip(struct ew_pkt *p, const struct fx_hosts *h, int from, uint8_t proto, uint8_t ecn,
      uint32_t payload)
{
    memset(p, 0, sizeof(*p));
    p->status = EW_PKT_OK;
    p->family = h->family;
    p->ip_proto = proto;
    p->l4 = proto == 6 ? EW_L4_TCP : proto == 17 ? EW_L4_UDP : EW_L4_NONE;
    p->ecn = ecn;
    p->ip_len = h->hdr + payload;
    fx_addr(p->src, h->family, from == CLI ? h->cli : h->srv);
    fx_addr(p->dst, h->family, from == CLI ? h->srv : h->cli);
}

void
fx_tcp(struct ew_pkt *p, const struct fx_hosts *h, int from, uint16_t flags, uint8_t ecn,
       uint32_t seq, uint32_t ack, uint32_t payload)
{
    fx_ip(p, h, from, 6, ecn, payload);
    p->u.tcp.sport = from == CLI ? h->cport : h->sport;
    p->u.tcp.dport = from == CLI ? h->sport : h->cport;
    p->u.tcp.flags = flags;
    p->u.tcp.seq = seq;
    p->u.tcp.ack = ack;
    p->u.tcp.payload = payload;
}

void
fx_udp(struct ew_pkt *p, const struct fx_hosts *h, int from, uint8_t ecn, uint32_t payload)
{
    fx_ip(p, h, from, 17, ecn, payload);
    p->u.udp.sport = from == CLI ? h->cport : h->sport;
    p->u.udp.dport = from == CLI ? h->sport : h->cport;
    p->u.udp.len = (uint16_t)(8 + payload);
    p->u.udp.payload = payload;
}

void
fx_pkt(struct ew_pkt *p, int l4, int from, uint16_t cport, uint16_t flags, uint32_t seq,
       uint32_t payload, uint8_t ecn)
{
    const struct fx_hosts h = {.family = 4, .cli = 0x0a000009, .srv = 0x0a000001, .cport = cport, .sport = 80,
                               .hdr = 40};

    if (l4 == EW_L4_TCP)
        fx_tcp(p, &h, from, flags, ecn, seq, 0, payload);
    else
        fx_udp(p, &h, from, ecn, payload);
}
