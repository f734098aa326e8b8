/* benchgen.c - writes the benchmark's capture: many concurrent flows of
 * every ECN scheme, interleaved in time, each TCP flow with a valid
 * handshake and a FIN exchange, seen at the data receiver (data as it
 * arrives after the AQM, ACKs as they leave), Ethernet, snapshot length 128;
 * plus UDP flows. Deterministic: the same arguments give the same bytes.
 *
 *   benchgen OUT [--packets N] [--flows N] [--flow-len N] [--rate PPS] [--seed N]
 *                [--snaplen N]
 *
 * --packets N   packets to write (default 5000000)
 * --flows N     flows in progress at once (default 4096); a flow that ends
 *               is replaced by a new one, so the capture holds more flows
 * --flow-len N  mean data segments (or datagrams) of a flow, exponentially
 *               distributed (default 150); 0: no flow ends before the
 *               capture does, so the capture holds exactly N flows
 * --rate PPS    packets per second of packet time (default 500000); sets
 *               the gap between one flow's segments
 * --seed N      the generator's seed (default fixed)
 * --snaplen N   bytes kept of each packet (default 128; 65535 keeps whole
 *               packets, payload zeros: for replaying onto a link)
 *
 * The schemes, as tests/tools/tcpgen.c models them one flow at a time:
 * not-ECN; RFC 3168 (CE, ECE latched until CWR); DCTCP-like (ECE follows
 * CE, ECT on SYN and ACKs); AccECN (ACE, option kind 174) with an ECT(0)
 * sender; L4S (ECT(1) sender with AccECN feedback); SCE (ECT(1) runs marked
 * on ECT(0) data, ESCE on the former NS bit); and UDP (Not-ECT, ECT(0) or
 * ECT(1), with CE). A quarter of the flows are IPv6; half the TCP flows
 * upload (the client sends, the capture is at the server), half download.
 *
 * The capture is written as it is generated: a min-heap of flows ordered by
 * the time of their next packet, O(flows) memory. So the first N packets of
 * a longer run are byte for byte a run with --packets N. Addresses are from
 * the benchmarking ranges (198.18.0.0/15, RFC 2544) and 2001:db8::/32.
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../tests/tools/bytes.h"

enum kind { K_NOTECN, K_CLASSIC, K_DCTCP, K_ACCECN, K_L4S, K_SCE, K_UDP, K_COUNT };
/* the mix, in flows: weights add up to 100 */
static const unsigned kind_weight[K_COUNT] = {25, 12, 10, 12, 12, 12, 17};

enum { NOT_ECT = 0, ECT1 = 1, ECT0 = 2, CE = 3 };
enum {
    F_FIN = 0x01,
    F_SYN = 0x02,
    F_PSH = 0x08,
    F_ACK = 0x10,
    F_ECE = 0x40,
    F_CWR = 0x80,
    F_AE = 0x100,
};
enum phase { P_SYN, P_SYNACK, P_ACK3, P_DATA, P_FIN1, P_FIN2, P_FIN3, P_DONE };
/* option layouts */
enum opts { O_SYN, O_TS, O_TS_ACC, O_SYN_ACC };

#define SNAPLEN_DEFAULT 128
#define FRAME_MAX 2048 /* Ethernet + IPv6 + TCP with options + an MSS of payload fit */
#define T0_NS (1700000000LL * 1000000000LL)
#define SERVER_DELAY_NS 30000LL /* a host answers a SYN or a FIN this fast */
#define ACK_DELAY_NS 8000LL     /* a receiver's ACK leaves after the data arrived */
#define RETRANS_PER_MILLE 2

/* an ACK the receiver owes, sent ACK_DELAY_NS after the data */
struct pend {
    uint32_t ack;
    uint32_t e0b, ceb, e1b;
    uint16_t flags;
};

struct flow {
    int64_t next;      /* packet time of this flow's next packet */
    int64_t next_data; /* of its next data segment, while ACKs are pending */
    int64_t gap;       /* between data segments */
    int64_t rtt;
    int64_t cwr_at;    /* the sender has learnt of an ECE at this time */
    int64_t last_cwr;
    uint32_t serial;   /* flow number: gives the addresses and ports */
    uint32_t left;     /* data segments or datagrams still to send */
    uint32_t snd_nxt;  /* data sender's next sequence number */
    uint32_t rcv_nxt;  /* what the receiver has got */
    uint32_t rcv_seq;  /* the receiver's own sequence number */
    uint32_t isn_c, isn_s;
    uint32_t cep, e0b, ceb, e1b; /* AccECN receiver counters */
    struct pend pend[2];
    uint16_t ipid[2];  /* 0: client, 1: server */
    uint16_t cport, sport, server;
    uint8_t kind, v6, up, phase, npend, unacked, prev_ecn, udp_ecn;
    bool latched, dctcp_ce, prior_esce, queue_esce, aqm_run, cwr_pending;
};

struct gen {
    FILE *out;
    uint64_t rng;
    uint64_t packets, written;
    uint32_t snaplen;
    uint32_t nflows;
    uint32_t flow_len;
    uint32_t serial;
    int64_t mean_gap;
    struct flow *fl;
    uint32_t *heap; /* flow indices, min-heap on (next, index) */
    uint8_t buf[16 + FRAME_MAX];
};

static uint64_t
rnd64(struct gen *g)
{
    /* xorshift64* */
    g->rng ^= g->rng >> 12;
    g->rng ^= g->rng << 25;
    g->rng ^= g->rng >> 27;
    return g->rng * 0x2545F4914F6CDD1DULL;
}

/* uniform in [0, 1) */
static double
rnd(struct gen *g)
{
    return (double)(rnd64(g) >> 11) / 9007199254740992.0;
}

static uint32_t
rnd_below(struct gen *g, uint32_t n)
{
    return (uint32_t)((rnd64(g) >> 32) % n);
}

static bool
is_accecn(unsigned k)
{
    return k == K_ACCECN || k == K_L4S;
}

static uint8_t
sender_cp(unsigned k)
{
    switch (k) {
    case K_NOTECN:
        return NOT_ECT;
    case K_L4S:
        return ECT1;
    default:
        return ECT0;
    }
}

/* the codepoint of a host's pure ACKs and handshake packets: Linux DCTCP and
 * AccECN set ECT on them */
static uint8_t
ack_cp(unsigned k)
{
    return (is_accecn(k) || k == K_DCTCP) ? ECT0 : NOT_ECT;
}

static uint8_t
syn_cp(unsigned k)
{
    return k == K_DCTCP ? ECT0 : k == K_L4S ? ECT1 : NOT_ECT;
}

static uint32_t
mss_of(const struct flow *f)
{
    return f->v6 ? 1428 : 1448;
}

/* the AQM between the data sender and the capture point */
static uint8_t
aqm_mark(struct gen *g, struct flow *f, uint8_t ecn)
{
    switch (f->kind) {
    case K_CLASSIC:
    case K_ACCECN:
        return (ecn != NOT_ECT && rnd(g) < 0.03) ? CE : ecn;
    case K_DCTCP:
        /* a step threshold: marks come in short runs as the queue crosses K */
        f->aqm_run = f->aqm_run ? rnd(g) < 0.6 : rnd(g) < 0.04;
        return (f->aqm_run && ecn != NOT_ECT) ? CE : ecn;
    case K_L4S:
        return (ecn == ECT1 && rnd(g) < 0.12) ? CE : ecn;
    case K_SCE:
        if (ecn != NOT_ECT && rnd(g) < 0.01)
            return CE;
        f->aqm_run = f->aqm_run ? rnd(g) < 0.85 : rnd(g) < 0.05;
        return (f->aqm_run && ecn == ECT0) ? ECT1 : ecn;
    default:
        return ecn;
    }
}

/* ---------------------------------------------------------------- writing */

static void
put24(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 16);
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)v;
}

static void
write_header(FILE *out, uint32_t snaplen)
{
    uint8_t gh[24];

    putle32(gh, 0xa1b23c4d); /* nanosecond pcap */
    gh[4] = 2;
    gh[5] = 0;
    gh[6] = 4;
    gh[7] = 0;
    memset(gh + 8, 0, 8);
    putle32(gh + 16, snaplen);
    putle32(gh + 20, 1); /* Ethernet */
    fwrite(gh, 1, sizeof(gh), out);
}

/* the client's and the server's address */
static void
addresses(const struct flow *f, uint8_t c[16], uint8_t s[16])
{
    uint32_t n = f->serial;

    if (f->v6) {
        static const uint8_t pc[8] = {0x20, 0x01, 0x0d, 0xb8, 0x00, 0x0c, 0, 0};
        static const uint8_t ps[8] = {0x20, 0x01, 0x0d, 0xb8, 0x00, 0x05, 0, 0};

        memcpy(c, pc, 8);
        memset(c + 8, 0, 4);
        put32(c + 12, n % 65536);
        memcpy(s, ps, 8);
        memset(s + 8, 0, 6);
        put16(s + 14, 1u + f->server);
    } else {
        c[0] = 198;
        c[1] = 18;
        c[2] = (uint8_t)((n >> 8) & 0xff);
        c[3] = (uint8_t)(n & 0xff);
        s[0] = 198;
        s[1] = 19;
        s[2] = (uint8_t)(f->server >> 8);
        s[3] = (uint8_t)f->server;
    }
}

/* Ethernet and IP headers of a packet of `l4len` transport bytes; returns
 * the offset of the transport header */
static size_t
write_ip(struct gen *g, struct flow *f, bool from_client, uint8_t ecn, uint8_t proto,
         uint32_t l4len, uint8_t *p)
{
    uint8_t c[16], s[16];
    const uint8_t *src = from_client ? c : s, *dst = from_client ? s : c;
    uint16_t id = f->ipid[from_client ? 0 : 1]++;

    (void)g;
    addresses(f, c, s);
    memcpy(p, from_client ? "\x02\x00\x00\x00\x00\x02" : "\x02\x00\x00\x00\x00\x01", 6);
    memcpy(p + 6, from_client ? "\x02\x00\x00\x00\x00\x01" : "\x02\x00\x00\x00\x00\x02", 6);
    if (f->v6) {
        uint8_t *ip = p + 14;

        put16(p + 12, 0x86dd);
        put32(ip, (6u << 28) | ((uint32_t)ecn << 20) | (f->serial & 0xfffff));
        put16(ip + 4, l4len);
        ip[6] = proto;
        ip[7] = 64;
        memcpy(ip + 8, src, 16);
        memcpy(ip + 24, dst, 16);
        return 14 + 40;
    } else {
        uint8_t *ip = p + 14;

        put16(p + 12, 0x0800);
        ip[0] = 0x45;
        ip[1] = ecn;
        put16(ip + 2, 20 + l4len);
        put16(ip + 4, id);
        put16(ip + 6, 0x4000);
        ip[8] = 64;
        ip[9] = proto;
        ip[10] = ip[11] = 0;
        memcpy(ip + 12, src, 4);
        memcpy(ip + 16, dst, 4);
        put_ipv4_checksum(ip);
        return 14 + 20;
    }
}

static void
emit(struct gen *g, int64_t ts, size_t len)
{
    uint8_t *h = g->buf;
    size_t cap = len < g->snaplen ? len : g->snaplen;

    putle32(h, (uint32_t)(ts / 1000000000LL));
    putle32(h + 4, (uint32_t)(ts % 1000000000LL));
    putle32(h + 8, (uint32_t)cap);
    putle32(h + 12, (uint32_t)len);
    fwrite(h, 1, 16 + cap, g->out);
    g->written++;
}

struct seg {
    bool from_client;
    uint8_t ecn;
    uint16_t flags;
    uint32_t seq, ack, payload;
    enum opts opts;
    uint32_t e0b, ceb, e1b;
};

/* TCP timestamps: a millisecond clock per end */
static uint32_t
tsclock(const struct flow *f, bool client, int64_t ts)
{
    return (uint32_t)(ts / 1000000) + (client ? 7u : 1000003u) * (f->serial + 1);
}

static void
emit_tcp(struct gen *g, struct flow *f, int64_t ts, const struct seg *s)
{
    uint8_t *p = g->buf + 16;
    uint8_t o[40];
    size_t olen = 0, off;
    uint32_t l4len;
    uint8_t *th;

    memset(o, 0, sizeof(o));
    if (s->opts == O_SYN || s->opts == O_SYN_ACC) {
        /* as Linux: MSS, SACK permitted, timestamps, NOP, window scale */
        o[0] = 2;
        o[1] = 4;
        put16(o + 2, mss_of(f));
        o[4] = 4;
        o[5] = 2;
        o[6] = 8;
        o[7] = 10;
        put32(o + 8, tsclock(f, s->from_client, ts));
        put32(o + 12, s->flags & F_ACK ? tsclock(f, !s->from_client, ts - f->rtt) : 0);
        o[16] = 1;
        o[17] = 3;
        o[18] = 3;
        o[19] = 7;
        olen = 20;
    } else {
        o[0] = 1;
        o[1] = 1;
        o[2] = 8;
        o[3] = 10;
        put32(o + 4, tsclock(f, s->from_client, ts));
        put32(o + 8, tsclock(f, !s->from_client, ts - f->rtt / 2));
        olen = 12;
    }
    if (s->opts == O_TS_ACC || s->opts == O_SYN_ACC) {
        uint8_t *a = o + olen;

        a[0] = 1; /* NOP, as Linux pads */
        a[1] = 174;
        a[2] = 11;
        put24(a + 3, s->e1b & 0xffffff);
        put24(a + 6, s->ceb & 0xffffff);
        put24(a + 9, s->e0b & 0xffffff);
        olen += 12;
    }
    l4len = (uint32_t)(20 + olen + s->payload);
    off = write_ip(g, f, s->from_client, s->ecn, 6, l4len, p);
    th = p + off;
    put16(th, s->from_client ? f->cport : f->sport);
    put16(th + 2, s->from_client ? f->sport : f->cport);
    put32(th + 4, s->seq);
    put32(th + 8, s->ack);
    th[12] = (uint8_t)((((20 + olen) / 4) << 4) | ((s->flags & F_AE) ? 1 : 0));
    th[13] = (uint8_t)(s->flags & 0xff);
    put16(th + 14, 502);
    put16(th + 16, 0); /* checksum: the payload is not captured */
    put16(th + 18, 0);
    memcpy(th + 20, o, olen);
    /* payload bytes are zero, as far as they are written */
    {
        size_t hdr = off + 20 + olen, len = off + l4len;
        size_t cap = len < g->snaplen ? len : g->snaplen;

        if (hdr < cap)
            memset(th + 20 + olen, 0, cap - hdr);
    }
    emit(g, ts, off + l4len);
}

static void
emit_udp(struct gen *g, struct flow *f, int64_t ts, bool from_client, uint8_t ecn,
         uint32_t payload)
{
    uint8_t *p = g->buf + 16;
    size_t off = write_ip(g, f, from_client, ecn, 17, 8 + payload, p);
    uint8_t *u = p + off;

    put16(u, from_client ? f->cport : f->sport);
    put16(u + 2, from_client ? f->sport : f->cport);
    put16(u + 4, 8 + payload);
    put16(u + 6, 0);
    /* a QUIC short header: fixed bit, then a connection ID; zeros after */
    memset(u + 8, 0, payload);
    u[8] = 0x40;
    put32(u + 9, f->serial);
    emit(g, ts, off + 8 + payload);
}

/* ---------------------------------------------------------------- the flows */

static void
start_flow(struct gen *g, struct flow *f, int64_t at)
{
    uint32_t w = rnd_below(g, 100), k = 0, acc = 0;
    uint32_t n = g->serial++;

    while (k + 1 < K_COUNT && w >= acc + kind_weight[k])
        acc += kind_weight[k++];
    memset(f, 0, sizeof(*f));
    f->kind = (uint8_t)k;
    f->serial = n;
    f->v6 = rnd_below(g, 4) == 0;
    f->up = rnd_below(g, 2);
    f->server = (uint16_t)rnd_below(g, 4096);
    f->cport = (uint16_t)(32768 + (n / 65536) % 28000);
    f->sport = k == K_UDP ? 443 : (f->up ? 5201 : 443);
    f->rtt = 2000000 + (int64_t)rnd_below(g, 78000) * 1000; /* 2-80 ms */
    f->gap = g->mean_gap / 2 + (int64_t)(rnd(g) * (double)g->mean_gap);
    if (f->gap < 1000)
        f->gap = 1000;
    if (g->flow_len == 0)
        f->left = UINT32_MAX;
    else
        f->left = 1 + (uint32_t)(-log(1.0 - rnd(g)) * g->flow_len);
    f->isn_c = (uint32_t)rnd64(g);
    f->isn_s = (uint32_t)rnd64(g);
    f->ipid[0] = (uint16_t)rnd64(g);
    f->ipid[1] = (uint16_t)rnd64(g);
    f->last_cwr = -1000000000000LL;
    f->next = at;
    if (k == K_UDP) {
        uint32_t m = rnd_below(g, 20);

        f->udp_ecn = m < 10 ? NOT_ECT : m < 17 ? ECT0 : ECT1;
        f->phase = P_DATA;
    } else {
        f->phase = P_SYN;
    }
}

/* the data receiver owes an ACK: queue it with its feedback as of now */
static void
queue_ack(struct flow *f, bool esce_force)
{
    struct pend *a;
    unsigned k = f->kind;

    if (f->npend >= 2)
        f->npend = 1; /* keep the latest: the newer ACK covers the older */
    a = &f->pend[f->npend++];
    memset(a, 0, sizeof(*a));
    a->flags = F_ACK;
    a->ack = f->rcv_nxt;
    if (is_accecn(k)) {
        uint32_t ace = f->cep & 7;

        if (ace & 4)
            a->flags |= F_AE;
        if (ace & 2)
            a->flags |= F_CWR;
        if (ace & 1)
            a->flags |= F_ECE;
        a->e0b = f->e0b;
        a->ceb = f->ceb;
        a->e1b = f->e1b;
    } else if (k != K_NOTECN) {
        if (k == K_DCTCP ? f->dctcp_ce : f->latched)
            a->flags |= F_ECE;
        if (k == K_SCE && (f->queue_esce || esce_force)) {
            a->flags |= F_AE;
            f->queue_esce = false;
        }
    }
    f->unacked = 0;
}

/* a data segment reaches the receiver (tcpgen's receive()) */
static void
receive(struct flow *f, uint32_t seq, uint32_t len, uint8_t ecn, bool cwr)
{
    unsigned k = f->kind;
    bool immediate = false, ce = ecn == CE;

    if (k == K_DCTCP) {
        if (ce != f->dctcp_ce) {
            if (f->unacked > 0)
                queue_ack(f, false);
            f->dctcp_ce = ce;
            immediate = true;
        }
    } else if (is_accecn(k)) {
        if (ce) {
            f->cep++;
            if (f->prev_ecn != CE)
                immediate = true;
        }
        if (ecn == ECT0)
            f->e0b += len;
        else if (ecn == ECT1)
            f->e1b += len;
        else if (ecn == CE)
            f->ceb += len;
    } else if (k != K_NOTECN) {
        if (cwr)
            f->latched = false;
        if (ce && !f->latched) {
            f->latched = true;
            immediate = true;
        }
        if (k == K_SCE) {
            bool sce = ecn == ECT1;

            if (sce != f->prior_esce && f->unacked > 0) {
                queue_ack(f, false);
                immediate = true;
            }
            if (sce) {
                f->queue_esce = true;
                immediate = immediate || !f->prior_esce;
            }
            f->prior_esce = sce;
        }
    }
    f->prev_ecn = ecn;
    if ((int32_t)(seq + len - f->rcv_nxt) > 0)
        f->rcv_nxt = seq + len;
    f->unacked++;
    if (immediate || f->unacked >= 2)
        queue_ack(f, false);
}

/* the client is the data sender when the flow uploads */
static bool
sender_is_client(const struct flow *f)
{
    return f->up;
}

/* one data segment arrives at the capture point at time t */
static void
data_segment(struct gen *g, struct flow *f, int64_t t)
{
    unsigned k = f->kind;
    uint32_t mss = mss_of(f);
    struct seg s;
    bool rtx = f->snd_nxt != (f->up ? f->isn_c : f->isn_s) + 1 &&
               rnd_below(g, 1000) < RETRANS_PER_MILLE;

    memset(&s, 0, sizeof(s));
    s.from_client = sender_is_client(f);
    s.flags = F_ACK | F_PSH;
    s.ack = f->rcv_seq;
    s.payload = mss;
    s.opts = O_TS;
    if (is_accecn(k)) {
        /* no data the other way: the sender's ACE stays at 5 */
        s.flags |= F_AE | F_ECE;
    } else if (k != K_NOTECN && f->cwr_pending && t >= f->cwr_at && !rtx) {
        s.flags |= F_CWR;
        f->cwr_pending = false;
        f->last_cwr = t;
    }
    if (rtx) {
        /* a spurious retransmission of the segment before: classic ECN
         * sends it Not-ECT (RFC 3168 §6.1.5), AccECN may keep ECT */
        s.seq = f->snd_nxt - mss;
        s.ecn = is_accecn(k) ? aqm_mark(g, f, sender_cp(k)) : NOT_ECT;
        emit_tcp(g, f, t, &s);
        receive(f, s.seq, mss, s.ecn, false);
        if (f->unacked)
            queue_ack(f, false); /* a duplicate ACK at once */
        return;
    }
    s.seq = f->snd_nxt;
    s.ecn = aqm_mark(g, f, sender_cp(k));
    emit_tcp(g, f, t, &s);
    receive(f, s.seq, mss, s.ecn, (s.flags & F_CWR) && !is_accecn(k));
    f->snd_nxt += mss;
    f->left--;
}

/* the receiver's queued ACK leaves; an ECE reaches the sender an RTT later */
static void
send_pending(struct gen *g, struct flow *f, int64_t t)
{
    struct pend a = f->pend[0];
    struct seg s;

    f->pend[0] = f->pend[1];
    f->npend--;
    memset(&s, 0, sizeof(s));
    s.from_client = !sender_is_client(f);
    s.flags = a.flags;
    s.seq = f->rcv_seq;
    s.ack = a.ack;
    s.ecn = ack_cp(f->kind);
    s.opts = is_accecn(f->kind) ? O_TS_ACC : O_TS;
    s.e0b = a.e0b;
    s.ceb = a.ceb;
    s.e1b = a.e1b;
    emit_tcp(g, f, t, &s);
    if (!is_accecn(f->kind) && (a.flags & F_ECE) && !f->cwr_pending &&
        t + f->rtt - f->last_cwr > f->rtt) {
        f->cwr_pending = true;
        f->cwr_at = t + f->rtt;
    }
}

/* the AccECN handshake codes (RFC 9768 Table 2 and §3.2.2.1): the codepoint
 * the SYN (or SYN-ACK) arrived with, as (AE, CWR, ECE) */
static uint16_t
accecn_code(uint8_t cp)
{
    static const uint16_t code[4] = {[NOT_ECT] = F_CWR, [ECT1] = F_CWR | F_ECE, [ECT0] = F_AE,
                                     [CE] = F_AE | F_CWR};
    return code[cp & 3];
}

/* one packet of flow f at time f->next; sets f->next (or P_DONE) */
static void
step_tcp(struct gen *g, struct flow *f)
{
    unsigned k = f->kind;
    int64_t t = f->next;
    struct seg s;

    memset(&s, 0, sizeof(s));
    switch (f->phase) {
    case P_SYN:
        s.from_client = true;
        s.flags = F_SYN;
        if (k != K_NOTECN)
            s.flags |= F_ECE | F_CWR;
        if (is_accecn(k))
            s.flags |= F_AE;
        s.seq = f->isn_c;
        s.ecn = syn_cp(k);
        s.opts = O_SYN;
        emit_tcp(g, f, t, &s);
        f->phase = P_SYNACK;
        /* at the server the SYN-ACK follows at once; at the client an RTT later */
        f->next = t + (f->up ? SERVER_DELAY_NS : f->rtt);
        return;
    case P_SYNACK:
        s.from_client = false;
        s.flags = F_SYN | F_ACK;
        if (is_accecn(k))
            s.flags |= accecn_code(syn_cp(k));
        else if (k != K_NOTECN)
            s.flags |= F_ECE;
        s.seq = f->isn_s;
        s.ack = f->isn_c + 1;
        s.ecn = syn_cp(k);
        s.opts = is_accecn(k) ? O_SYN_ACC : O_SYN;
        s.e0b = s.e1b = 1;
        emit_tcp(g, f, t, &s);
        f->phase = P_ACK3;
        f->next = t + (f->up ? f->rtt : SERVER_DELAY_NS);
        return;
    case P_ACK3:
        s.from_client = true;
        s.flags = F_ACK;
        if (is_accecn(k))
            s.flags |= accecn_code(syn_cp(k));
        s.seq = f->isn_c + 1;
        s.ack = f->isn_s + 1;
        s.ecn = f->up && is_accecn(k) ? sender_cp(k) : ack_cp(k);
        s.opts = is_accecn(k) ? O_TS_ACC : O_TS;
        s.e0b = s.e1b = 1;
        emit_tcp(g, f, t, &s);
        f->snd_nxt = (f->up ? f->isn_c : f->isn_s) + 1;
        f->rcv_nxt = f->snd_nxt;
        f->rcv_seq = (f->up ? f->isn_s : f->isn_c) + 1;
        f->cep = 5;
        f->e0b = f->e1b = 1;
        f->phase = P_DATA;
        /* an upload's data follows the ACK; a download's comes an RTT later */
        f->next = t + (f->up ? ACK_DELAY_NS : f->rtt);
        return;
    case P_DATA:
        if (f->npend) {
            send_pending(g, f, t);
            f->next = f->npend ? t + ACK_DELAY_NS : f->next_data;
            return;
        }
        if (f->left == 0) {
            f->phase = P_FIN1;
            step_tcp(g, f);
            return;
        }
        data_segment(g, f, t);
        f->next_data = t + f->gap;
        f->next = f->npend ? t + ACK_DELAY_NS : f->next_data;
        return;
    case P_FIN1:
        s.from_client = sender_is_client(f);
        s.flags = F_FIN | F_ACK;
        s.seq = f->snd_nxt;
        s.ack = f->rcv_seq;
        s.ecn = NOT_ECT;
        s.opts = O_TS;
        emit_tcp(g, f, t, &s);
        f->phase = P_FIN2;
        f->next = t + SERVER_DELAY_NS;
        return;
    case P_FIN2:
        s.from_client = !sender_is_client(f);
        s.flags = F_FIN | F_ACK;
        if (is_accecn(k)) {
            uint32_t ace = f->cep & 7;

            s.flags |= (ace & 4 ? F_AE : 0) | (ace & 2 ? F_CWR : 0) | (ace & 1 ? F_ECE : 0);
        }
        s.seq = f->rcv_seq;
        s.ack = f->snd_nxt + 1;
        s.ecn = NOT_ECT;
        s.opts = O_TS;
        emit_tcp(g, f, t, &s);
        f->phase = P_FIN3;
        f->next = t + f->rtt;
        return;
    case P_FIN3:
        s.from_client = sender_is_client(f);
        s.flags = F_ACK;
        if (is_accecn(k))
            s.flags |= F_AE | F_ECE;
        s.seq = f->snd_nxt + 1;
        s.ack = f->rcv_seq + 1;
        s.ecn = ack_cp(k);
        s.opts = O_TS;
        emit_tcp(g, f, t, &s);
        f->phase = P_DONE;
        return;
    default:
        f->phase = P_DONE;
        return;
    }
}

static void
step_udp(struct gen *g, struct flow *f)
{
    int64_t t = f->next;
    bool from_client = (f->left & 3) == 0; /* one in four: the client's acknowledgements */
    uint8_t ecn = f->udp_ecn;

    if (f->left == 0) {
        f->phase = P_DONE;
        return;
    }
    if (ecn != NOT_ECT && rnd(g) < 0.01)
        ecn = CE;
    emit_udp(g, f, t, from_client, ecn, from_client ? 40 : 1200);
    f->left--;
    f->next = t + f->gap;
}

/* ---------------------------------------------------------------- the heap */

static bool
before(const struct gen *g, uint32_t a, uint32_t b)
{
    const struct flow *x = &g->fl[a], *y = &g->fl[b];

    return x->next < y->next || (x->next == y->next && a < b);
}

static void
sift_down(struct gen *g, uint32_t i)
{
    uint32_t n = g->nflows;

    for (;;) {
        uint32_t l = 2 * i + 1, r = l + 1, m = i, tmp;

        if (l < n && before(g, g->heap[l], g->heap[m]))
            m = l;
        if (r < n && before(g, g->heap[r], g->heap[m]))
            m = r;
        if (m == i)
            return;
        tmp = g->heap[i];
        g->heap[i] = g->heap[m];
        g->heap[m] = tmp;
        i = m;
    }
}

static int
run(struct gen *g)
{
    uint32_t i;

    for (i = 0; i < g->nflows; i++) {
        /* the first packets of all flows spread over one gap */
        start_flow(g, &g->fl[i], T0_NS + (int64_t)(rnd(g) * (double)g->mean_gap));
        g->heap[i] = i;
    }
    for (i = g->nflows / 2 + 1; i-- > 0;)
        sift_down(g, i);
    while (g->written < g->packets) {
        struct flow *f = &g->fl[g->heap[0]];
        int64_t t = f->next;

        if (f->kind == K_UDP)
            step_udp(g, f);
        else
            step_tcp(g, f);
        if (f->phase == P_DONE)
            start_flow(g, f, t + 1000 + (int64_t)rnd_below(g, 1000000));
        else if (f->next <= t)
            f->next = t + 1;
        sift_down(g, 0);
    }
    return ferror(g->out) ? -1 : 0;
}

static int
parse_num(const char *s, uint64_t max, uint64_t *out)
{
    char *end;
    unsigned long long v;

    errno = 0;
    v = strtoull(s, &end, 0);
    if (errno || !*s || *end || *s == '-' || v > max)
        return -1;
    *out = v;
    return 0;
}

int
main(int argc, char **argv)
{
    struct gen g;
    uint64_t packets = 5000000, flows = 4096, flow_len = 150, rate = 500000;
    uint64_t seed = 0xbe4c4e7c0ffeeULL, snaplen = SNAPLEN_DEFAULT;
    static char obuf[1 << 22];
    int i;

    if (argc < 2 || argv[1][0] == '-') {
        fprintf(stderr, "usage: benchgen OUT [--packets N] [--flows N] [--flow-len N] "
                        "[--rate PPS] [--seed N] [--snaplen N]\n");
        return 2;
    }
    for (i = 2; i < argc; i += 2) {
        uint64_t *dst = NULL, max = UINT32_MAX;

        if (!strcmp(argv[i], "--packets")) {
            dst = &packets;
            max = UINT64_MAX;
        } else if (!strcmp(argv[i], "--flows")) {
            dst = &flows;
            max = 1u << 24;
        } else if (!strcmp(argv[i], "--flow-len")) {
            dst = &flow_len;
            max = 1u << 30;
        } else if (!strcmp(argv[i], "--rate")) {
            dst = &rate;
        } else if (!strcmp(argv[i], "--seed")) {
            dst = &seed;
            max = UINT64_MAX;
        } else if (!strcmp(argv[i], "--snaplen")) {
            dst = &snaplen;
            max = 262144;
        }
        if (!dst || i + 1 >= argc || parse_num(argv[i + 1], max, dst) != 0) {
            fprintf(stderr, "benchgen: bad option '%s'%s\n", argv[i],
                    dst ? " (or its value)" : "");
            return 2;
        }
    }
    if (flows == 0 || rate == 0 || snaplen < 64) {
        fprintf(stderr, "benchgen: --flows and --rate must be at least 1, --snaplen 64\n");
        return 2;
    }
    memset(&g, 0, sizeof(g));
    g.rng = seed ? seed : 1;
    g.packets = packets;
    g.snaplen = (uint32_t)snaplen;
    g.nflows = (uint32_t)flows;
    g.flow_len = (uint32_t)flow_len;
    /* each flow sends about one packet per gap, ACKs aside */
    g.mean_gap = (int64_t)((double)flows * 1e9 / (double)rate);
    g.fl = calloc(flows, sizeof(*g.fl));
    g.heap = calloc(flows, sizeof(*g.heap));
    if (!g.fl || !g.heap) {
        fprintf(stderr, "benchgen: out of memory for %llu flows\n", (unsigned long long)flows);
        return 3;
    }
    g.out = fopen(argv[1], "wb");
    if (!g.out) {
        fprintf(stderr, "benchgen: %s: %s\n", argv[1], strerror(errno));
        return 3;
    }
    setvbuf(g.out, obuf, _IOFBF, sizeof(obuf));
    write_header(g.out, g.snaplen);
    if (run(&g) != 0 || fclose(g.out) != 0) {
        fprintf(stderr, "benchgen: %s: write failed\n", argv[1]);
        return 3;
    }
    fprintf(stderr, "benchgen: %llu packets, %u flows started, into %s\n",
            (unsigned long long)g.written, g.serial, argv[1]);
    free(g.fl);
    free(g.heap);
    return 0;
}
