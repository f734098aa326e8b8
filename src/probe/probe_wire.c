/* probe_wire.c - the probes' bytes, and the answers read through the checked
 * cursor. A quote is the probe as a router received it, cut wherever the
 * router chose (RFC 792: the IP header and 8 bytes; RFC 1812 §4.3.2.3 and
 * RFC 4443 §2.4: as much as fits in 576 or 1280 bytes); a field the quote
 * does not reach is "not quoted", never guessed. */
#include <string.h>

#include "dissectors/cursor.h"
#include "probe/probe.h"

const struct ew_probe_spec ew_probe_specs[EW_PT_COUNT] = {
#define EW_X(id, nm, u, e, fl, opt, fld, text) {.name = nm, .udp = u, .ecn = e, .flags = fl, .option = opt, .field = fld},
    EW_PROBE_TYPES(EW_X)
#undef EW_X
};
const char *const ew_probe_type_name[EW_PT_COUNT] = {
#define EW_X(id, nm, u, e, fl, opt, fld, text) nm,
    EW_PROBE_TYPES(EW_X)
#undef EW_X
};
const char *const ew_probe_type_text[EW_PT_COUNT] = {
#define EW_X(id, nm, u, e, fl, opt, fld, text) text,
    EW_PROBE_TYPES(EW_X)
#undef EW_X
};

const char *const ew_probe_field_name[3] = {"ecn", "tcp_flags", "accecn_option"};
const char *const ew_probe_answer_name[EW_PA_COUNT] = {
    "none", "time_exceeded", "unreachable", "syn_ack", "rst", "udp",
};
const char *const ew_probe_opt_name[4] = {"not_quoted", "absent", "present", "changed"};

enum { IPV4_HDR = 20, IPV6_HDR = 40, TCP_SYN_HDR = 24, TCP_OPT_HDR = 32, UDP_HDR = 8 };

static void
put16(uint8_t *p, unsigned v)
{
    p[0] = (uint8_t)(v >> 8);
    p[1] = (uint8_t)v;
}

static void
put32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

static uint32_t
sum16(const uint8_t *p, size_t n, uint32_t acc)
{
    size_t i;

    for (i = 0; i + 1 < n; i += 2)
        acc += (uint32_t)p[i] << 8 | p[i + 1];
    if (n & 1)
        acc += (uint32_t)p[n - 1] << 8;
    return acc;
}

static uint16_t
fold(uint32_t acc)
{
    while (acc >> 16)
        acc = (acc & 0xffff) + (acc >> 16);
    return (uint16_t)~acc;
}

/* the transport checksum over the pseudo-header (RFC 793, RFC 8200 §8.1) */
static uint16_t
l4_sum(const struct ew_probe_pkt *p, uint8_t proto, const uint8_t *l4, size_t len)
{
    uint32_t acc = 0;
    uint8_t tail[4];

    if (p->family == 4) {
        acc = sum16(p->src, 4, acc);
        acc = sum16(p->dst, 4, acc);
        acc += proto;
        acc += (uint32_t)len;
    } else {
        acc = sum16(p->src, 16, acc);
        acc = sum16(p->dst, 16, acc);
        put32(tail, (uint32_t)len);
        acc = sum16(tail, 4, acc);
        acc += proto;
    }
    return fold(sum16(l4, len, acc));
}

static size_t
build_tcp(const struct ew_probe_pkt *p, const struct ew_probe_spec *s, uint8_t *t)
{
    size_t hdr = s->option ? TCP_OPT_HDR : TCP_SYN_HDR;
    size_t len = hdr + (s->option ? EW_PROBE_DATA_LEN : 0);

    memset(t, 0, len);
    put16(t, p->sport);
    put16(t + 2, p->dport);
    put32(t + 4, p->seq);
    put32(t + 8, s->flags & EW_TCP_ACK ? p->ack : 0);
    t[12] = (uint8_t)((hdr / 4) << 4 | (s->flags & EW_TCP_AE ? 1 : 0));
    t[13] = (uint8_t)(s->flags & 0xff);
    put16(t + 14, 64240);
    if (s->option) {
        /* NOP, then AccECN0 (kind 172, 11 bytes): EE0B 1, ECEB 0, EE1B 1 */
        t[20] = 1;
        t[21] = EW_PROBE_ACCECN_KIND;
        t[22] = 11;
        t[25] = 1; /* EE0B */
        t[31] = 1; /* EE1B */
        memcpy(t + hdr, "ecnwatch probe..", EW_PROBE_DATA_LEN);
    } else {
        t[20] = 2; /* MSS 1460 */
        t[21] = 4;
        put16(t + 22, 1460);
    }
    put16(t + 16, l4_sum(p, 6, t, len));
    return len;
}

/* a datagram shaped as a QUIC Initial (RFC 9000 §17.2.2): long header,
 * version 1, an 8-byte destination connection ID, no source ID, no token,
 * padded to 1200 bytes; its payload is not encrypted, so a server drops it */
static size_t
build_udp(const struct ew_probe_pkt *p, uint8_t *u)
{
    size_t len = UDP_HDR + EW_PROBE_UDP_LEN;
    uint8_t *q = u + UDP_HDR;
    size_t rest;

    memset(u, 0, len);
    put16(u, p->sport);
    put16(u + 2, p->dport);
    put16(u + 4, (unsigned)len);
    q[0] = 0xc3; /* long header, fixed bit, Initial, 4-byte packet number */
    put32(q + 1, 1);
    q[5] = 8;
    memcpy(q + 6, p->dcid, 8);
    q[14] = 0; /* source connection ID length */
    q[15] = 0; /* token length */
    rest = EW_PROBE_UDP_LEN - 18;
    put16(q + 16, 0x4000 | (unsigned)rest);
    put16(u + 6, l4_sum(p, 17, u, len));
    if (u[6] == 0 && u[7] == 0)
        u[6] = u[7] = 0xff; /* zero means no checksum */
    return len;
}

size_t
ew_probe_build(const struct ew_probe_pkt *p, uint8_t *buf, size_t room)
{
    const struct ew_probe_spec *s = &ew_probe_specs[p->type];
    size_t ip = p->family == 4 ? IPV4_HDR : IPV6_HDR;
    size_t l4;
    uint8_t proto = s->udp ? 17 : 6;

    if (room < EW_PROBE_PKT_MAX || (unsigned)p->type >= EW_PT_COUNT)
        return 0;
    l4 = s->udp ? build_udp(p, buf + ip) : build_tcp(p, s, buf + ip);
    if (p->family == 4) {
        memset(buf, 0, IPV4_HDR);
        buf[0] = 0x45;
        buf[1] = s->ecn; /* DSCP 0 */
        put16(buf + 2, (unsigned)(ip + l4));
        put16(buf + 4, p->ip_id);
        put16(buf + 6, 0x4000); /* DF */
        buf[8] = p->ttl;
        buf[9] = proto;
        memcpy(buf + 12, p->src, 4);
        memcpy(buf + 16, p->dst, 4);
        put16(buf + 10, fold(sum16(buf, IPV4_HDR, 0)));
    } else {
        put32(buf, 6u << 28 | (uint32_t)s->ecn << 20);
        put16(buf + 4, (unsigned)l4);
        buf[6] = proto;
        buf[7] = p->ttl;
        memcpy(buf + 8, p->src, 16);
        memcpy(buf + 24, p->dst, 16);
    }
    return ip + l4;
}

/* ---- answers ---- */

/* the AccECN option in a TCP header's options, read to their end */
static enum ew_probe_opt
scan_options(struct ew_cur *o)
{
    while (ew_cur_left(o) > 0) {
        uint8_t kind = ew_cur_u8(o), len;

        if (kind == 0)
            break;
        if (kind == 1)
            continue;
        len = ew_cur_u8(o);
        if (o->trunc || len < 2)
            break;
        if (kind == 172 || kind == 174)
            return EW_PO_PRESENT;
        if (!ew_cur_skip(o, (size_t)len - 2))
            break;
    }
    return EW_PO_ABSENT;
}

/* the quoted transport header: ports always (else -1), the rest as far as
 * the quote reaches */
static int
read_quoted_l4(struct ew_cur *c, struct ew_probe_reply *r)
{
    size_t left = ew_cur_left(c);
    uint8_t b12, b13, doff;

    if (left < 4)
        return -1;
    r->sport = ew_cur_be16(c);
    r->dport = ew_cur_be16(c);
    if (r->udp)
        return 0;
    if (left >= 8) {
        r->seq = ew_cur_be32(c);
        r->have_seq = true;
    }
    if (left < 14)
        return 0;
    (void)ew_cur_be32(c); /* ack */
    b12 = ew_cur_u8(c);
    b13 = ew_cur_u8(c);
    r->flags = b13 | (b12 & 1 ? EW_TCP_AE : 0);
    doff = (uint8_t)(b12 >> 4);
    if (doff < 5 || left < (size_t)doff * 4)
        return 0;
    if (!ew_cur_skip(c, 6)) /* window, checksum, urgent pointer */
        return 0;
    {
        struct ew_cur o;

        if (!ew_cur_sub(c, (size_t)doff * 4 - 20, &o))
            return 0;
        r->option = scan_options(&o);
    }
    return 0;
}

static int
read_quote4(struct ew_cur *c, struct ew_probe_reply *r)
{
    size_t start = ew_cur_left(c), ihl;
    uint8_t vihl, tos, proto;
    uint16_t total;

    vihl = ew_cur_u8(c);
    tos = ew_cur_u8(c);
    total = ew_cur_be16(c);
    r->ip_id = ew_cur_be16(c);
    (void)ew_cur_be16(c);
    (void)ew_cur_u8(c); /* TTL: 1 or so where it expired */
    proto = ew_cur_u8(c);
    (void)ew_cur_be16(c);
    (void)ew_cur_skip(c, 4); /* source */
    (void)ew_cur_bytes(c, r->probe_dst, 4);
    if (c->trunc || vihl >> 4 != 4 || (proto != 6 && proto != 17))
        return -1;
    ihl = (size_t)(vihl & 15) * 4;
    if (ihl < IPV4_HDR || !ew_cur_skip(c, ihl - IPV4_HDR))
        return -1;
    r->have_ip_id = true;
    r->ecn = ew_ecn_from_tc(tos);
    r->udp = proto == 17;
    r->quoted = (unsigned)(start < total ? start : total);
    if (total >= ihl && ew_cur_left(c) > (size_t)total - ihl)
        c->end = c->p + (total - ihl); /* padding past the packet is not the packet */
    return read_quoted_l4(c, r);
}

static int
read_quote6(struct ew_cur *c, struct ew_probe_reply *r)
{
    size_t start = ew_cur_left(c);
    uint32_t w = ew_cur_be32(c);
    uint16_t plen = ew_cur_be16(c);
    uint8_t nh = ew_cur_u8(c);

    (void)ew_cur_u8(c);
    (void)ew_cur_skip(c, 16);
    (void)ew_cur_bytes(c, r->probe_dst, 16);
    if (c->trunc || w >> 28 != 6 || (nh != 6 && nh != 17))
        return -1;
    r->ecn = ew_ecn_from_tc((uint8_t)(w >> 20));
    r->udp = nh == 17;
    r->quoted = (unsigned)(start < (size_t)plen + IPV6_HDR ? start : (size_t)plen + IPV6_HDR);
    if (ew_cur_left(c) > plen)
        c->end = c->p + plen;
    return read_quoted_l4(c, r);
}

static void
reply_init(struct ew_probe_reply *r)
{
    memset(r, 0, sizeof(*r));
    r->ecn = -1;
    r->flags = -1;
    r->option = EW_PO_NOT_QUOTED;
}

/* the ICMP header's 4 bytes after the checksum; RFC 4884's length is byte
 * 1 of them (ICMPv4, 32-bit words) or byte 0 (ICMPv6, 64-bit words) */
static int
read_icmp_body(struct ew_cur *c, bool v6, struct ew_probe_reply *r)
{
    uint8_t type = ew_cur_u8(c), w[4];
    size_t qlen;

    r->code = ew_cur_u8(c);
    (void)ew_cur_be16(c);
    if (!ew_cur_bytes(c, w, 4))
        return -1;
    if (v6 ? type == 3 : type == 11)
        r->answer = EW_PA_TIME_EXCEEDED;
    else if (v6 ? type == 1 : type == 3)
        r->answer = EW_PA_UNREACHABLE;
    else
        return -1;
    qlen = v6 ? (size_t)w[0] * 8 : (size_t)w[1] * 4;
    if (qlen && qlen <= ew_cur_left(c)) {
        c->end = c->p + qlen; /* the extension structure follows */
        r->rfc4884 = true;
    }
    return v6 ? read_quote6(c, r) : read_quote4(c, r);
}

int
ew_probe_read_icmp4(const uint8_t *b, size_t n, struct ew_probe_reply *r)
{
    struct ew_cur c;
    uint8_t vihl, proto;

    reply_init(r);
    ew_cur_init(&c, b, n);
    vihl = ew_cur_u8(&c);
    (void)ew_cur_skip(&c, 8);
    proto = ew_cur_u8(&c);
    (void)ew_cur_skip(&c, 2);
    (void)ew_cur_bytes(&c, r->from, 4);
    if (c.trunc || vihl >> 4 != 4 || proto != 1 || (vihl & 15) < 5 ||
        !ew_cur_skip(&c, (size_t)(vihl & 15) * 4 - 16))
        return -1;
    return read_icmp_body(&c, false, r);
}

int
ew_probe_read_icmp6(const uint8_t *b, size_t n, const uint8_t from[16], struct ew_probe_reply *r)
{
    struct ew_cur c;

    reply_init(r);
    memcpy(r->from, from, 16);
    ew_cur_init(&c, b, n);
    return read_icmp_body(&c, true, r);
}

static int
read_answer_l4(struct ew_cur *c, bool udp, struct ew_probe_reply *r)
{
    uint16_t sport = ew_cur_be16(c), dport = ew_cur_be16(c);
    uint32_t ack;
    uint8_t b12, b13;

    r->udp = udp;
    r->sport = dport; /* the probe's ports */
    r->dport = sport;
    memcpy(r->probe_dst, r->from, 16);
    if (udp) {
        if (c->trunc)
            return -1;
        r->answer = EW_PA_UDP;
        return 0;
    }
    (void)ew_cur_be32(c);
    ack = ew_cur_be32(c);
    b12 = ew_cur_u8(c);
    b13 = ew_cur_u8(c);
    if (c->trunc)
        return -1;
    r->flags = b13 | (b12 & 1 ? EW_TCP_AE : 0);
    if ((b13 & (EW_TCP_SYN | EW_TCP_ACK)) == (EW_TCP_SYN | EW_TCP_ACK))
        r->answer = EW_PA_SYN_ACK;
    else if (b13 & EW_TCP_RST)
        r->answer = EW_PA_RST;
    else
        return -1;
    if (b13 & EW_TCP_ACK) {
        /* an answer to a SYN acknowledges seq + 1; to the option probe,
         * seq + its data */
        r->seq = ack;
        r->have_seq = true;
    }
    return 0;
}

int
ew_probe_read_l4_4(const uint8_t *b, size_t n, bool udp, struct ew_probe_reply *r)
{
    struct ew_cur c;
    uint8_t vihl, tos, proto;

    reply_init(r);
    ew_cur_init(&c, b, n);
    vihl = ew_cur_u8(&c);
    tos = ew_cur_u8(&c);
    (void)ew_cur_skip(&c, 7);
    proto = ew_cur_u8(&c);
    (void)ew_cur_skip(&c, 2);
    (void)ew_cur_bytes(&c, r->from, 4);
    if (c.trunc || vihl >> 4 != 4 || proto != (udp ? 17 : 6) || (vihl & 15) < 5 ||
        !ew_cur_skip(&c, (size_t)(vihl & 15) * 4 - 16))
        return -1;
    r->ecn = ew_ecn_from_tc(tos);
    return read_answer_l4(&c, udp, r);
}

int
ew_probe_read_l4_6(const uint8_t *b, size_t n, bool udp, const uint8_t from[16], int tclass,
                   struct ew_probe_reply *r)
{
    struct ew_cur c;

    reply_init(r);
    memcpy(r->from, from, 16);
    if (tclass >= 0)
        r->ecn = ew_ecn_from_tc((uint8_t)tclass);
    ew_cur_init(&c, b, n);
    return read_answer_l4(&c, udp, r);
}
