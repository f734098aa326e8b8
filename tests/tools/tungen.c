/* tungen.c - tunnelled capture generator for the tests.
 *
 *   tungen TYPE OUT
 *       Write a pcap (Ethernet) of four TCP flows inside tunnels of TYPE
 *       (tungen without arguments lists them): inner IPv4 and IPv6, each
 *       over an outer IPv4 and an outer IPv6 header where the tunnel rides
 *       on IP. Each flow has a handshake and data both ways; the inner
 *       packets carry a mix of ECN codepoints, and every third outer header
 *       another codepoint than its inner one. tests/tunnels.sh holds
 *       ecnwatch's inner flows against tshark's innermost headers.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bytes.h"

/* a frame built from the inside out: headers are put in front */
struct frame {
    uint8_t b[1024];
    size_t off, end;
};

static uint8_t *
front(struct frame *f, size_t n)
{
    f->off -= n;
    memset(f->b + f->off, 0, n);
    return f->b + f->off;
}

static size_t
flen(const struct frame *f)
{
    return f->end - f->off;
}

struct flow {
    int inner6, outer6; /* families: 0 IPv4, 1 IPv6 */
    int k;              /* the flow's number */
};

static void
addr(uint8_t *p, int v6, int host, int k)
{
    if (v6) {
        static const uint8_t pre[8] = {0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0};

        memcpy(p, pre, 8);
        memset(p + 8, 0, 8);
        p[7] = (uint8_t)k;
        p[15] = (uint8_t)host;
    } else {
        p[0] = 10;
        p[1] = (uint8_t)(100 + k);
        p[2] = 0;
        p[3] = (uint8_t)host;
    }
}

static void
ip_header(struct frame *f, int v6, const uint8_t *src, const uint8_t *dst, uint8_t tos,
          uint8_t proto)
{
    size_t n = flen(f);
    uint8_t *h;

    if (v6) {
        h = front(f, 40);
        put32(h, 0x60000000u | (uint32_t)tos << 20);
        put16(h + 4, (uint32_t)n);
        h[6] = proto;
        h[7] = 64;
        memcpy(h + 8, src, 16);
        memcpy(h + 24, dst, 16);
    } else {
        h = front(f, 20);
        h[0] = 0x45;
        h[1] = tos;
        put16(h + 2, (uint32_t)(n + 20));
        put16(h + 4, (uint32_t)n);
        h[6] = 0x40;
        h[8] = 64;
        h[9] = proto;
        memcpy(h + 12, src, 4);
        memcpy(h + 16, dst, 4);
        put_ipv4_checksum(h);
    }
}

static void
eth(struct frame *f, uint16_t type)
{
    uint8_t *h = front(f, 14);

    memcpy(h, "\x02\x00\x00\x00\x00\x02\x02\x00\x00\x00\x00\x01", 12);
    put16(h + 12, type);
}

/* outer IP endpoints of the tunnel: 192.0.2.1/.2 or 2001:db8:ffff::1/::2,
 * the client's side first */
static void
outer_ip(struct frame *f, int v6, bool c2s, uint8_t tos, uint8_t proto)
{
    uint8_t a[16], b[16];

    if (v6) {
        memcpy(a, "\x20\x01\x0d\xb8\xff\xff\0\0\0\0\0\0\0\0\0\x01", 16);
        memcpy(b, "\x20\x01\x0d\xb8\xff\xff\0\0\0\0\0\0\0\0\0\x02", 16);
    } else {
        memcpy(a, "\xc0\x00\x02\x01", 4);
        memcpy(b, "\xc0\x00\x02\x02", 4);
    }
    ip_header(f, v6, c2s ? a : b, c2s ? b : a, tos, proto);
}

static void
udp(struct frame *f, uint16_t sport, uint16_t dport)
{
    size_t n = flen(f);
    uint8_t *h = front(f, 8);

    put16(h, sport);
    put16(h + 2, dport);
    put16(h + 4, (uint32_t)(n + 8));
}

static uint16_t
inner_type(const struct flow *fl)
{
    return fl->inner6 ? 0x86dd : 0x0800;
}

/* ---- the tunnels: each puts its headers in front of the inner IP packet
 * (or of an Ethernet frame around it), then the outer link ---- */

struct tun_ctx {
    const struct flow *fl;
    bool c2s;
    uint8_t otos; /* the outer header's traffic class */
    unsigned i;   /* the packet's number in its flow */
    uint16_t port; /* the UDP port of a tunnel on UDP */
};

static void
over_ip(struct frame *f, const struct tun_ctx *t, uint8_t proto)
{
    outer_ip(f, t->fl->outer6, t->c2s, t->otos, proto);
    eth(f, t->fl->outer6 ? 0x86dd : 0x0800);
}

static void
over_udp(struct frame *f, const struct tun_ctx *t)
{
    udp(f, (uint16_t)(49152 + t->fl->k * 7 + t->c2s), t->port);
    over_ip(f, t, 17);
}

/* RFC 2003 / RFC 4213 §3.5 / RFC 2473 */
static void
t_ipip(struct frame *f, const struct tun_ctx *t)
{
    over_ip(f, t, t->fl->inner6 ? 41 : 4);
}

/* RFC 2784 §2.1, RFC 2890 §2: checksum, key and sequence number by turns */
static void
gre_header(struct frame *f, unsigned i, uint16_t proto, bool force_seq, bool no_seq)
{
    bool c = i % 2, k = (i / 2) % 2, s = force_seq || (!no_seq && (i / 4) % 2);
    size_t n = 4 + (c ? 4 : 0) + (k ? 4 : 0) + (s ? 4 : 0);
    uint8_t *h = front(f, n), *p = h + 4;

    put16(h, (c ? 0x8000u : 0) | (k ? 0x2000u : 0) | (s ? 0x1000u : 0));
    put16(h + 2, proto);
    if (c)
        p += 4;
    if (k) {
        put32(p, 0x1234);
        p += 4;
    }
    if (s)
        put32(p, i);
}

static void
t_gre(struct frame *f, const struct tun_ctx *t)
{
    gre_header(f, t->i, inner_type(t->fl), false, false);
    over_ip(f, t, 47);
}

static void
t_gre_eth(struct frame *f, const struct tun_ctx *t)
{
    if (t->i % 3 == 0) {
        uint8_t *tag = front(f, 4);

        put16(tag, 42);
        put16(tag + 2, inner_type(t->fl));
        eth(f, 0x8100);
    } else {
        eth(f, inner_type(t->fl));
    }
    gre_header(f, t->i, 0x6558, false, false);
    over_ip(f, t, 47);
}

/* draft-foschiano-erspan-03 §4: flow 0 type I, flows 1 and 3 type II, flow
 * 2 type III */
static void
t_erspan(struct frame *f, const struct tun_ctx *t)
{
    uint8_t *h;

    eth(f, inner_type(t->fl));
    switch (t->fl->k % 4) {
    case 0:
        gre_header(f, t->i, 0x88be, false, true);
        break;
    case 2:
        h = front(f, 12);
        put32(h, 0x20000000u | 7u << 16 | 0x99);
        put32(h + 4, t->i);
        put16(h + 8, 0);
        put16(h + 10, 0);
        gre_header(f, t->i, 0x22eb, true, false);
        break;
    default:
        h = front(f, 8);
        put32(h, 0x10000000u | 5u << 16 | 0x55);
        gre_header(f, t->i, 0x88be, true, false);
        break;
    }
    over_ip(f, t, 47);
}

/* RFC 7348 §5 */
static void
t_vxlan(struct frame *f, const struct tun_ctx *t)
{
    uint8_t *h;

    eth(f, inner_type(t->fl));
    h = front(f, 8);
    h[0] = 0x08;
    put32(h + 4, (uint32_t)(1000 + t->fl->k) << 8);
    over_udp(f, t);
}

/* draft-ietf-nvo3-vxlan-gpe-12 §3.3, RFC 8300 §2: by turns the IP packet,
 * an Ethernet frame, and NSH (MD type 2, no context) before the IP packet */
static void
t_vxlan_gpe(struct frame *f, const struct tun_ctx *t)
{
    uint8_t *h, np = t->fl->inner6 ? 2 : 1;

    switch (t->i % 3) {
    case 1:
        eth(f, inner_type(t->fl));
        np = 3;
        break;
    case 2:
        h = front(f, 8);
        h[0] = 0x0f;
        h[1] = 0xc2; /* TTL 63, length 2 */
        h[2] = 0x02; /* MD type 2 */
        h[3] = np;
        put32(h + 4, 77u << 8 | 255);
        np = 4;
        break;
    default:
        break;
    }
    h = front(f, 8);
    h[0] = 0x0c; /* I, P */
    h[3] = np;
    put32(h + 4, (uint32_t)(2000 + t->fl->k) << 8);
    over_udp(f, t);
}

/* RFC 8926 §3.4: an option of 8 octets on every other packet; by turns the
 * IP packet itself and an Ethernet frame */
static void
t_geneve(struct frame *f, const struct tun_ctx *t)
{
    uint8_t *h;
    unsigned opt = t->i % 2 ? 2 : 0;
    uint16_t proto = inner_type(t->fl);

    if (t->i % 4 >= 2) {
        eth(f, proto);
        proto = 0x6558;
    }
    if (opt) {
        h = front(f, 8);
        put16(h, 0x0104);
        h[2] = 0x01;
        h[3] = 1;
        put32(h + 4, 0xdeadbeef);
    }
    h = front(f, 8);
    h[0] = (uint8_t)opt;
    put16(h + 2, proto);
    put32(h + 4, (uint32_t)(3000 + t->fl->k) << 8);
    over_udp(f, t);
}

/* 3GPP TS 29.281 §5.1-5.2: by turns no optional fields, a sequence number,
 * and a PDU session container extension header (type 0x85, one word) */
static void
t_gtpu(struct frame *f, const struct tun_ctx *t)
{
    uint8_t *h;

    switch (t->i % 3) {
    case 1:
        h = front(f, 12);
        h[0] = 0x32; /* version 1, PT, S */
        put16(h + 8, t->i);
        break;
    case 2:
        h = front(f, 16);
        h[0] = 0x34; /* version 1, PT, E */
        h[11] = 0x85;
        h[12] = 1;   /* one word */
        h[13] = 0x10;
        h[14] = 9;   /* QFI */
        h[15] = 0;   /* no next header */
        break;
    default:
        h = front(f, 8);
        h[0] = 0x30;
        break;
    }
    h[1] = 255;
    put16(h + 2, (uint32_t)(flen(f) - 8));
    put32(h + 4, 0x10000u + (uint32_t)t->fl->k);
    over_udp(f, t);
}

/* RFC 3032 §2.1: one to three labels */
static void
t_mpls(struct frame *f, const struct tun_ctx *t)
{
    unsigned n = 1 + t->i % 3, j;

    for (j = 0; j < n; j++) {
        uint8_t *h = front(f, 4);

        put32(h, (uint32_t)(100 + t->fl->k * 10 + j) << 12 | (j == 0 ? 0x100u : 0) | 64);
    }
    eth(f, 0x8847);
}

/* IEEE 802.1AE-2018 §9.3, not encrypted: the SCI on every other frame, the
 * 16-octet ICV at the end */
static void
t_macsec(struct frame *f, const struct tun_ctx *t)
{
    bool sci = t->i % 2;
    uint8_t *h;

    h = f->b + f->end;
    memset(h, 0xcc, 16);
    f->end += 16;
    h = front(f, 2);
    put16(h, inner_type(t->fl));
    h = front(f, sci ? 14 : 6);
    h[0] = sci ? 0x20 : 0x00;
    put32(h + 2, t->i + 1);
    if (sci)
        memcpy(h + 6, "\x02\x00\x00\x00\x00\x01\x00\x01", 8);
    eth(f, 0x88e5);
}

/* VXLAN in GRE in IPv4/IPv6: two encapsulations */
static void
t_nested(struct frame *f, const struct tun_ctx *t)
{
    struct tun_ctx mid = *t;
    uint8_t a[4] = {198, 51, 100, 1}, b[4] = {198, 51, 100, 2};
    uint8_t *h;

    eth(f, inner_type(t->fl));
    h = front(f, 8);
    h[0] = 0x08;
    put32(h + 4, 4242u << 8);
    udp(f, (uint16_t)(50000 + t->fl->k), 4789);
    ip_header(f, 0, t->c2s ? a : b, t->c2s ? b : a, (uint8_t)(t->otos ^ 1), 17);
    gre_header(f, t->i, 0x0800, false, false);
    mid.otos = t->otos;
    over_ip(f, &mid, 47);
}

static const struct {
    const char *name;
    void (*wrap)(struct frame *, const struct tun_ctx *);
    uint16_t port;
    bool outer_ip;
} types[] = {
    {"ipip", t_ipip, 0, true},
    {"gre", t_gre, 0, true},
    {"gre-eth", t_gre_eth, 0, true},
    {"erspan", t_erspan, 0, true},
    {"vxlan", t_vxlan, 4789, true},
    {"vxlan-8472", t_vxlan, 8472, true},
    {"vxlan-gpe", t_vxlan_gpe, 4790, true},
    {"geneve", t_geneve, 6081, true},
    {"gtpu", t_gtpu, 2152, true},
    {"mpls", t_mpls, 0, false},
    {"macsec", t_macsec, 0, false},
    {"nested", t_nested, 0, true},
};

/* ---- the inner TCP packets ---- */

static const uint8_t ecn_cycle[4][6] = {
    {2, 2, 3, 2, 2, 2}, /* ECT(0), CE now and then */
    {1, 1, 1, 3, 1, 3}, /* ECT(1), L4S-like */
    {0, 0, 0, 0, 0, 0}, /* Not-ECT */
    {2, 0, 1, 3, 2, 1}, /* a mix */
};

static void
le_write(FILE *fp, const void *p, size_t n)
{
    if (fwrite(p, 1, n, fp) != n) {
        perror("tungen");
        exit(1);
    }
}

static void
record(FILE *fp, uint32_t usec, const struct frame *f)
{
    uint8_t h[16];

    putle32(h, 1700000000u + usec / 1000000);
    putle32(h + 4, usec % 1000000);
    putle32(h + 8, (uint32_t)flen(f));
    putle32(h + 12, (uint32_t)flen(f));
    le_write(fp, h, 16);
    le_write(fp, f->b + f->off, flen(f));
}

static void
one_packet(FILE *fp, int type, const struct flow *fl, unsigned i, bool c2s, uint8_t flags,
           uint8_t ecn, uint32_t *usec)
{
    struct frame f;
    struct tun_ctx t = {fl, c2s, ecn, i, types[type].port};
    uint8_t src[16], dst[16], *h;
    size_t payload = (flags & 0x08) ? 100 : 0;

    f.off = f.end = 512;
    memset(f.b + f.end, 'x', payload);
    f.end += payload;
    h = front(&f, 20);
    put16(h, c2s ? (uint16_t)(40000 + fl->k) : 5201);
    put16(h + 2, c2s ? 5201 : (uint16_t)(40000 + fl->k));
    put32(h + 4, (c2s ? 1000u : 9000u) + i * 100);
    put32(h + 8, (flags & 0x10) ? (c2s ? 9000u : 1000u) + i * 100 : 0);
    h[12] = 0x50;
    h[13] = flags;
    put16(h + 14, 65535);
    addr(src, fl->inner6, c2s ? 1 : 2, fl->k);
    addr(dst, fl->inner6, c2s ? 2 : 1, fl->k);
    ip_header(&f, fl->inner6, src, dst, ecn, 6);
    /* the outer header: the inner codepoint, but another on every third */
    if (i % 3 == 0)
        t.otos = (uint8_t)((ecn + 1) & 3);
    types[type].wrap(&f, &t);
    record(fp, *usec, &f);
    *usec += 1000;
}

static int
generate(int type, const char *out)
{
    FILE *fp = fopen(out, "wb");
    uint8_t h[24];
    uint32_t usec = 0;
    int k;

    if (!fp) {
        perror(out);
        return 1;
    }
    putle32(h, 0xa1b2c3d4u);
    h[4] = 2, h[5] = 0, h[6] = 4, h[7] = 0;
    memset(h + 8, 0, 8);
    putle32(h + 16, 65535);
    putle32(h + 20, 1); /* Ethernet */
    le_write(fp, h, 24);
    for (k = 0; k < 4; k++) {
        struct flow fl = {k % 2, types[type].outer_ip ? k / 2 : 0, k};
        unsigned i;

        /* an ECN handshake (RFC 3168 §6.1.1), then data both ways */
        one_packet(fp, type, &fl, 0, true, 0xc2, 0, &usec);
        one_packet(fp, type, &fl, 1, false, 0x52, 0, &usec);
        one_packet(fp, type, &fl, 2, true, 0x10, 0, &usec);
        for (i = 3; i < 3 + 12; i++) {
            uint8_t e = ecn_cycle[k][i % 6];

            one_packet(fp, type, &fl, i, i % 3 != 0, 0x18, e, &usec);
        }
    }
    if (fclose(fp) != 0) {
        perror(out);
        return 1;
    }
    return 0;
}

int
main(int argc, char **argv)
{
    size_t i;

    if (argc == 3)
        for (i = 0; i < sizeof(types) / sizeof(types[0]); i++)
            if (!strcmp(argv[1], types[i].name))
                return generate((int)i, argv[2]);
    fprintf(stderr, "usage: tungen TYPE OUT\ntypes:");
    for (i = 0; i < sizeof(types) / sizeof(types[0]); i++)
        fprintf(stderr, " %s", types[i].name);
    fprintf(stderr, "\n");
    return 2;
}
