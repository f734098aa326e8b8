/* test_fanout.c - the fan-out program of --workers (src/input/fanout.h),
 * run here by a small classic BPF interpreter that loads as the kernel
 * does from a fan-out group (the network header at SKF_NET_OFF, the
 * EtherType at SKF_AD_OFF + SKF_AD_PROTOCOL, a load past the end ending
 * the program with 0): the same value for both directions of a flow, of
 * one to or from a tunnel port whatever the outer source port, values
 * spread over two workers, 0 for frames of no IP or cut short, and a
 * program the kernel's checker would take (jumps inside, a return last). */
#include <CUnit/CUnit.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "input/fanout.h"
#include "suites.h"

struct frame {
    uint16_t proto; /* EtherType */
    const uint8_t *net;
    size_t len; /* bytes from the network header */
};

/* *v = n bytes (1, 2, 4) at k relative to the frame; false past its end */
static bool
load(const struct frame *f, int64_t k, unsigned n, uint32_t *v)
{
    int64_t off;

    if (k == EW_BPF_AD_OFF + EW_BPF_AD_PROTOCOL) {
        *v = f->proto;
        return true;
    }
    if (k < EW_BPF_NET_OFF || k >= EW_BPF_AD_OFF)
        return false; /* the program reads nothing else */
    off = k - EW_BPF_NET_OFF;
    if (off < 0 || (uint64_t)off + n > f->len)
        return false;
    *v = 0;
    for (unsigned i = 0; i < n; i++)
        *v = *v << 8 | f->net[off + i];
    return true;
}

/* the program's value for f */
static uint32_t
run(const struct ew_bpf_insn *p, size_t n, const struct frame *f)
{
    uint32_t a = 0, x = 0, m[16] = {0}, v, src;
    size_t pc = 0;
    unsigned size;

    while (pc < n) {
        const struct ew_bpf_insn *i = &p[pc++];

        size = (i->code & 0x18) == 0x10 ? 1 : (i->code & 0x18) == 0x08 ? 2 : 4;
        switch (i->code & 0x07) {
        case 0x00: /* ld */
            switch (i->code & 0xe0) {
            case 0x00: a = i->k; break;
            case 0x20:
                if (!load(f, (int32_t)i->k, size, &v))
                    return 0;
                a = v;
                break;
            case 0x40:
                if (!load(f, (int64_t)(int32_t)(i->k + x), size, &v))
                    return 0;
                a = v;
                break;
            case 0x60: CU_ASSERT_FATAL(i->k < 16); a = m[i->k]; break;
            default: CU_FAIL_FATAL("an ld mode the program should not use");
            }
            break;
        case 0x01: /* ldx */
            CU_ASSERT_FATAL((i->code & 0xe0) == 0x60 && i->k < 16);
            x = m[i->k];
            break;
        case 0x02: CU_ASSERT_FATAL(i->k < 16); m[i->k] = a; break;
        case 0x04: /* alu */
            src = i->code & 0x08 ? x : i->k;
            switch (i->code & 0xf0) {
            case 0x00: a += src; break;
            case 0x20: a *= src; break;
            case 0x50: a &= src; break;
            case 0x60: CU_ASSERT_FATAL(src < 32); a <<= src; break;
            case 0x70: CU_ASSERT_FATAL(src < 32); a >>= src; break;
            case 0xa0: a ^= src; break;
            default: CU_FAIL_FATAL("an ALU operation the program should not use");
            }
            break;
        case 0x05: /* jmp */
            switch (i->code & 0xf0) {
            case 0x00: pc += i->k; break;
            case 0x10: pc += a == i->k ? i->jt : i->jf; break;
            case 0x30: pc += a >= i->k ? i->jt : i->jf; break;
            case 0x40: pc += a & i->k ? i->jt : i->jf; break;
            default: CU_FAIL_FATAL("a jump the program should not use");
            }
            break;
        case 0x06: return i->code & 0x10 ? a : i->k;
        case 0x07: CU_ASSERT_FATAL(i->code == 0x07); x = a; break;
        default: CU_FAIL_FATAL("an instruction class the program should not use");
        }
    }
    CU_FAIL_FATAL("ran off the end of the program");
    return 0;
}

static const uint16_t tun_ports[] = {4789, 4790, 6081, 2152};

static size_t
build(struct ew_bpf_insn *p)
{
    size_t n = ew_fanout_program(p, EW_FANOUT_PROG_MAX, tun_ports, 4);

    CU_ASSERT_FATAL(n > 0);
    return n;
}

static void
put16(uint8_t *b, uint16_t v)
{
    b[0] = (uint8_t)(v >> 8);
    b[1] = (uint8_t)v;
}

/* an IPv4 header (IHL 5, v 4) or an IPv6 one (v 6) and 8 bytes of
 * transport header into b; their length */
static size_t
ip_pkt(uint8_t *b, int v, const uint8_t *s, const uint8_t *d, uint8_t proto, uint16_t sp,
       uint16_t dp, uint16_t frag)
{
    size_t hl = v == 4 ? 20 : 40, al = v == 4 ? 4 : 16;

    memset(b, 0, hl + 8);
    if (v == 4) {
        b[0] = 0x45;
        put16(b + 2, 28);
        put16(b + 6, frag);
        b[8] = 64;
        b[9] = proto;
    } else {
        b[0] = 0x60;
        put16(b + 4, 8);
        b[6] = proto;
        b[7] = 64;
    }
    memcpy(b + hl - 2 * al, s, al);
    memcpy(b + hl - al, d, al);
    put16(b + hl, sp);
    put16(b + hl + 2, dp);
    return hl + 8;
}

static void
rand_bytes(uint64_t *st, uint8_t *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        b[i] = (uint8_t)ew_test_next(st);
}

/* the program's value for a packet of ip_pkt() */
static uint32_t
hash(const struct ew_bpf_insn *p, size_t n, int v, const uint8_t *s, const uint8_t *d,
     uint8_t proto, uint16_t sp, uint16_t dp, uint16_t frag)
{
    uint8_t b[48];
    struct frame f = {v == 4 ? 0x0800 : 0x86dd, b, ip_pkt(b, v, s, d, proto, sp, dp, frag)};

    return run(p, n, &f);
}

/* both directions of TCP and UDP flows: one value; the values of
 * different flows spread evenly over two workers */
static void
test_symmetric(void)
{
    struct ew_bpf_insn p[EW_FANOUT_PROG_MAX];
    size_t n = build(p);
    uint64_t st = 0x5eed;
    unsigned odd4 = 0, odd6 = 0, k;

    for (k = 0; k < 2000; k++) {
        uint8_t s[16], d[16];
        uint16_t sp = (uint16_t)(1024 + ew_test_next(&st) % 60000), dp = (uint16_t)(k % 3 ? 443 : 5201);
        uint8_t proto = k & 1 ? 17 : 6;
        uint32_t h;

        rand_bytes(&st, s, 16);
        rand_bytes(&st, d, 16);
        h = hash(p, n, 4, s, d, proto, sp, dp, 0x4000);
        CU_ASSERT_EQUAL(h, hash(p, n, 4, d, s, proto, dp, sp, 0x4000));
        odd4 += h & 1;
        h = hash(p, n, 6, s, d, proto, sp, dp, 0);
        CU_ASSERT_EQUAL(h, hash(p, n, 6, d, s, proto, dp, sp, 0));
        odd6 += h & 1;
    }
    CU_ASSERT(odd4 > 850 && odd4 < 1150);
    CU_ASSERT(odd6 > 850 && odd6 < 1150);
    /* one host pair, flows told apart by the client's port only */
    {
        const uint8_t a[4] = {10, 0, 0, 1}, b[4] = {10, 0, 0, 2};

        odd4 = 0;
        for (k = 0; k < 1000; k++)
            odd4 += hash(p, n, 4, a, b, 6, (uint16_t)(40000 + k), 5201, 0) & 1;
        CU_ASSERT(odd4 > 400 && odd4 < 600);
    }
}

/* to or from a tunnel port: the outer addresses alone, whatever the
 * source port the sending end picked; elsewhere the ports count */
static void
test_tunnel(void)
{
    struct ew_bpf_insn p[EW_FANOUT_PROG_MAX];
    size_t n = build(p);
    const uint8_t a[4] = {10, 203, 1, 1}, b[4] = {10, 203, 1, 2};
    uint8_t a6[16] = {0x20, 0x01, 0x0d, 0xb8}, b6[16] = {0x20, 0x01, 0x0d, 0xb8};
    uint32_t h4 = hash(p, n, 4, a, b, 17, 50000, 4789, 0), h6;
    bool differ = false;
    size_t i;

    a6[15] = 1;
    b6[15] = 2;
    h6 = hash(p, n, 6, a6, b6, 17, 50000, 6081, 0);
    for (uint16_t sp = 1; sp < 65535; sp += 251) {
        for (i = 0; i < 4; i++) {
            CU_ASSERT_EQUAL(hash(p, n, 4, a, b, 17, sp, tun_ports[i], 0), h4);
            CU_ASSERT_EQUAL(hash(p, n, 4, b, a, 17, sp, tun_ports[i], 0), h4);
            CU_ASSERT_EQUAL(hash(p, n, 4, b, a, 17, tun_ports[i], sp, 0), h4);
            CU_ASSERT_EQUAL(hash(p, n, 6, a6, b6, 17, sp, tun_ports[i], 0), h6);
            CU_ASSERT_EQUAL(hash(p, n, 6, b6, a6, 17, tun_ports[i], sp, 0), h6);
        }
        differ |= hash(p, n, 4, a, b, 17, sp, 4000, 0) != h4;
    }
    CU_ASSERT(differ);
    /* IP-in-IP, GRE, a later fragment: the addresses alone too */
    CU_ASSERT_EQUAL(hash(p, n, 4, a, b, 4, 1, 2, 0), h4);
    CU_ASSERT_EQUAL(hash(p, n, 4, b, a, 47, 3, 4, 0), h4);
    CU_ASSERT_EQUAL(hash(p, n, 4, a, b, 6, 5, 6, 0x2010), h4);
    /* TCP to a tunnel port is no tunnel */
    CU_ASSERT_EQUAL(hash(p, n, 4, a, b, 6, 50000, 4789, 0), hash(p, n, 4, b, a, 6, 4789, 50000, 0));
    /* decapsulation off: no port is a tunnel's */
    n = ew_fanout_program(p, EW_FANOUT_PROG_MAX, NULL, 0);
    CU_ASSERT_FATAL(n > 0);
    h4 = hash(p, n, 4, a, b, 17, 50000, 4789, 0);
    differ = false;
    for (uint16_t sp = 50001; sp < 50100; sp++)
        differ |= hash(p, n, 4, a, b, 17, sp, 4789, 0) != h4;
    CU_ASSERT(differ);
}

/* no IP, a header that says less than 20 bytes, a frame cut anywhere: 0 */
static void
test_short(void)
{
    struct ew_bpf_insn p[EW_FANOUT_PROG_MAX];
    size_t n = build(p), cut;
    const uint8_t a[16] = {10, 1, 2, 3}, b[16] = {10, 4, 5, 6};
    uint8_t buf[48], *c;
    struct frame f;

    ip_pkt(buf, 4, a, b, 6, 1234, 80, 0);
    f = (struct frame){0x0806, buf, 28};
    CU_ASSERT_EQUAL(run(p, n, &f), 0);
    buf[0] = 0x44;
    f.proto = 0x0800;
    CU_ASSERT_EQUAL(run(p, n, &f), 0);
    /* each cut an exact heap block, so that a read past it shows */
    for (int v = 4; v <= 6; v += 2) {
        size_t len = v == 4 ? ip_pkt(buf, 4, a, b, 6, 1234, 80, 0) : ip_pkt(buf, 6, a, b, 17, 1234, 4789, 0);

        for (cut = 0; cut < len; cut++) {
            c = malloc(cut ? cut : 1);
            CU_ASSERT_PTR_NOT_NULL_FATAL(c);
            memcpy(c, buf, cut);
            f = (struct frame){v == 4 ? 0x0800 : 0x86dd, c, cut};
            /* IPv4 cut inside its ports: 0; IPv6 into a tunnel's ports */
            if (cut < (v == 4 ? 24u : 44u)) {
                CU_ASSERT_EQUAL(run(p, n, &f), 0);
            }
            free(c);
        }
    }
}

/* what the kernel's checker asks: jumps that land inside, a return last;
 * 16 ports fit, 17 or too little room do not */
static void
test_shape(void)
{
    struct ew_bpf_insn p[EW_FANOUT_PROG_MAX];
    uint16_t ports[17];
    size_t n, i;

    for (i = 0; i < 17; i++)
        ports[i] = (uint16_t)(1000 + i);
    n = ew_fanout_program(p, EW_FANOUT_PROG_MAX, ports, 16);
    CU_ASSERT_FATAL(n > 0 && n <= EW_FANOUT_PROG_MAX);
    CU_ASSERT_EQUAL(p[n - 1].code & 0x07, 0x06);
    for (i = 0; i < n; i++) {
        if ((p[i].code & 0x07) != 0x05)
            continue;
        if ((p[i].code & 0xf0) == 0x00) {
            CU_ASSERT(i + 1 + p[i].k < n);
        } else {
            CU_ASSERT(i + 1 + p[i].jt < n && i + 1 + p[i].jf < n);
        }
    }
    CU_ASSERT_EQUAL(ew_fanout_program(p, EW_FANOUT_PROG_MAX, ports, 17), 0);
    CU_ASSERT_EQUAL(ew_fanout_program(p, n - 1, ports, 16), 0);
}

int
ew_test_register_fanout(void)
{
    CU_pSuite s = CU_add_suite("fanout", NULL, NULL);

    if (!s)
        return -1;
    if (!CU_add_test(s, "both directions alike, spread", test_symmetric) ||
        !CU_add_test(s, "tunnel ports: the outer addresses", test_tunnel) ||
        !CU_add_test(s, "no IP, cut short: 0", test_short) ||
        !CU_add_test(s, "a program the kernel takes", test_shape))
        return -1;
    return 0;
}
