/* test_probe.c - the active probe's pure parts (src/probe/probe.h): the
 * probes' bytes (checksums as RFC 1071 sums them, fields where RFC 791,
 * RFC 8200, RFC 9293 and RFC 9000 §17.2.2 put them), answers read back
 * from ICMP and ICMPv6 errors laid out as RFC 792 and RFC 4443 lay them
 * out (and RFC 4884's length with an extension after the quote), quotes
 * cut at every length, and the verdicts judged from what hops quoted. */
#include <CUnit/CUnit.h>
#include <stdlib.h>
#include <string.h>

#include "probe/probe.h"
#include "suites.h"

static const uint8_t SRC4[16] = {192, 0, 2, 1}, DST4[16] = {198, 51, 100, 7};
static const uint8_t ROUTER4[4] = {203, 0, 113, 9};
static const uint8_t SRC6[16] = {0x20, 0x01, 0x0d, 0xb8, [15] = 1};
static const uint8_t DST6[16] = {0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 7};
static const uint8_t ROUTER6[16] = {0x20, 0x01, 0x0d, 0xb8, 0, 9, [15] = 1};

static size_t
build(enum ew_probe_type t, int family, uint8_t *buf)
{
    struct ew_probe_pkt p;

    memset(&p, 0, sizeof(p));
    p.family = family;
    memcpy(p.src, family == 4 ? SRC4 : SRC6, 16);
    memcpy(p.dst, family == 4 ? DST4 : DST6, 16);
    p.ttl = 3;
    p.type = t;
    p.sport = 40001;
    p.dport = ew_probe_specs[t].udp ? 443 : 80;
    p.seq = 0x01020304;
    p.ack = 0x0a0b0c0d;
    p.ip_id = 777;
    memset(p.dcid, 0xab, 8);
    return ew_probe_build(&p, buf, EW_PROBE_PKT_MAX);
}

/* the one's complement sum of n bytes, folded */
static unsigned
sum(const uint8_t *p, size_t n, unsigned acc)
{
    for (size_t i = 0; i + 1 < n; i += 2)
        acc += (unsigned)p[i] << 8 | p[i + 1];
    if (n & 1)
        acc += (unsigned)p[n - 1] << 8;
    while (acc >> 16)
        acc = (acc & 0xffff) + (acc >> 16);
    return acc;
}

/* an ICMP (family 4: with its IP header) or ICMPv6 error quoting q bytes
 * of the probe; ext: RFC 4884's length and a 20-byte extension after the
 * quote padded to 128 bytes */
static size_t
wrap(int family, uint8_t type, const uint8_t *probe, size_t q, bool ext, uint8_t *out)
{
    size_t o = 0, body, qroom = ext ? 128 : q;

    if (family == 4) {
        memset(out, 0, 20);
        out[0] = 0x45;
        out[8] = 64;
        out[9] = 1;
        memcpy(out + 12, ROUTER4, 4);
        memcpy(out + 16, SRC4, 4);
        o = 20;
    }
    memset(out + o, 0, 8);
    out[o] = type;
    if (ext)
        out[o + (family == 4 ? 5 : 4)] = (uint8_t)(family == 4 ? 128 / 4 : 128 / 8);
    body = o + 8;
    memset(out + body, 0, qroom);
    memcpy(out + body, probe, q);
    body += qroom;
    if (ext) {
        memset(out + body, 0xee, 20); /* RFC 4884 extension: version 2, objects */
        out[body] = 0x20;
        body += 20;
    }
    if (family == 4) {
        out[2] = (uint8_t)(body >> 8);
        out[3] = (uint8_t)body;
    }
    return body;
}

static void
test_bytes(void)
{
    uint8_t b[EW_PROBE_PKT_MAX];

    for (int t = 0; t < EW_PT_COUNT; t++) {
        const struct ew_probe_spec *s = &ew_probe_specs[t];
        size_t n = build((enum ew_probe_type)t, 4, b), l4 = n - 20;
        unsigned acc;

        CU_ASSERT_FATAL(n > 40);
        CU_ASSERT_EQUAL(b[0], 0x45);
        CU_ASSERT_EQUAL(b[1] & 3, s->ecn);
        CU_ASSERT_EQUAL((size_t)(b[2] << 8 | b[3]), n);
        CU_ASSERT_EQUAL(b[8], 3);
        CU_ASSERT_EQUAL(sum(b, 20, 0), 0xffff); /* the IP header's checksum */
        /* the transport checksum with the pseudo-header */
        acc = sum(SRC4, 4, 0);
        acc = sum(DST4, 4, acc);
        acc = sum(b + 20, l4, acc + (s->udp ? 17u : 6u) + (unsigned)l4);
        CU_ASSERT_EQUAL(acc, 0xffff);
        if (s->udp) {
            CU_ASSERT_EQUAL(n, 20 + 8 + EW_PROBE_UDP_LEN);
            CU_ASSERT_EQUAL(b[28], 0xc3); /* a long header, Initial */
            CU_ASSERT_EQUAL(b[29] | b[30] | b[31], 0);
            CU_ASSERT_EQUAL(b[32], 1); /* version 1 */
            CU_ASSERT_EQUAL(b[33], 8);
        } else {
            CU_ASSERT_EQUAL(b[33], s->flags & 0xff);
            CU_ASSERT_EQUAL(b[32] & 1, s->flags & EW_TCP_AE ? 1 : 0);
        }
    }
    /* IPv6: the ECN field in the traffic class, the hop limit, the sum */
    for (int t = 0; t < EW_PT_COUNT; t++) {
        size_t n = build((enum ew_probe_type)t, 6, b), l4 = n - 40;
        unsigned acc, tc = (unsigned)((b[0] & 15) << 4 | b[1] >> 4);
        uint8_t len32[4] = {0, 0, (uint8_t)(l4 >> 8), (uint8_t)l4};

        CU_ASSERT_EQUAL(b[0] >> 4, 6);
        CU_ASSERT_EQUAL(tc & 3, ew_probe_specs[t].ecn);
        CU_ASSERT_EQUAL(b[7], 3);
        acc = sum(SRC6, 16, 0);
        acc = sum(DST6, 16, acc);
        acc = sum(len32, 4, acc);
        acc = sum(b + 40, l4, acc + (ew_probe_specs[t].udp ? 17u : 6u));
        CU_ASSERT_EQUAL(acc, 0xffff);
    }
    /* short room: nothing */
    {
        struct ew_probe_pkt p = {.family = 4, .type = EW_PT_TCP_PLAIN};

        CU_ASSERT_EQUAL(ew_probe_build(&p, b, 100), 0);
    }
}

static void
test_quotes(void)
{
    uint8_t pr[EW_PROBE_PKT_MAX], m[2048];

    for (int fam = 4; fam <= 6; fam += 2)
        for (int t = 0; t < EW_PT_COUNT; t++) {
            const struct ew_probe_spec *s = &ew_probe_specs[t];
            size_t n = build((enum ew_probe_type)t, fam, pr), q = n < 548 ? n : 548;
            size_t len = wrap(fam, fam == 4 ? 11 : 3, pr, q, false, m);
            struct ew_probe_reply r;
            int rc = fam == 4 ? ew_probe_read_icmp4(m, len, &r)
                              : ew_probe_read_icmp6(m, len, ROUTER6, &r);

            CU_ASSERT_EQUAL_FATAL(rc, 0);
            CU_ASSERT_EQUAL(r.answer, EW_PA_TIME_EXCEEDED);
            CU_ASSERT(!memcmp(r.from, fam == 4 ? ROUTER4 : ROUTER6, fam == 4 ? 4 : 16));
            CU_ASSERT(!memcmp(r.probe_dst, fam == 4 ? DST4 : DST6, fam == 4 ? 4 : 16));
            CU_ASSERT_EQUAL(r.ecn, s->ecn);
            CU_ASSERT_EQUAL(r.udp, s->udp);
            CU_ASSERT_EQUAL(r.sport, 40001);
            CU_ASSERT_EQUAL(r.dport, s->udp ? 443 : 80);
            CU_ASSERT_EQUAL(r.quoted, q);
            if (!s->udp) {
                CU_ASSERT(r.have_seq && r.seq == 0x01020304);
                CU_ASSERT_EQUAL(r.flags, s->flags);
                CU_ASSERT_EQUAL(r.option, s->option ? EW_PO_PRESENT : EW_PO_ABSENT);
            }
        }
}

/* RFC 792's 8 bytes, one byte less, and every cut: what a quote holds is
 * read, what it does not is "not quoted"; nothing is read past the end */
static void
test_short(void)
{
    uint8_t pr[EW_PROBE_PKT_MAX], m[2048];
    size_t n = build(EW_PT_TCP_ACCECN_OPTION, 4, pr);
    struct ew_probe_reply r;
    size_t len;

    len = wrap(4, 11, pr, 28, false, m);
    CU_ASSERT_EQUAL_FATAL(ew_probe_read_icmp4(m, len, &r), 0);
    CU_ASSERT_EQUAL(r.ecn, EW_ECN_NOT_ECT);
    CU_ASSERT(r.have_seq);
    CU_ASSERT_EQUAL(r.flags, -1);
    CU_ASSERT_EQUAL(r.option, EW_PO_NOT_QUOTED);
    CU_ASSERT_EQUAL(r.quoted, 28);
    len = wrap(4, 11, pr, 20 + 13, false, m); /* byte 13, the flags, is cut */
    CU_ASSERT_EQUAL_FATAL(ew_probe_read_icmp4(m, len, &r), 0);
    CU_ASSERT_EQUAL(r.flags, -1);
    len = wrap(4, 11, pr, 20 + 14, false, m);
    CU_ASSERT_EQUAL_FATAL(ew_probe_read_icmp4(m, len, &r), 0);
    CU_ASSERT_EQUAL(r.flags, ew_probe_specs[EW_PT_TCP_ACCECN_OPTION].flags);
    CU_ASSERT_EQUAL(r.option, EW_PO_NOT_QUOTED); /* the options are past the cut */
    len = wrap(4, 11, pr, 20 + 31, false, m);
    CU_ASSERT_EQUAL_FATAL(ew_probe_read_icmp4(m, len, &r), 0);
    CU_ASSERT_EQUAL(r.option, EW_PO_NOT_QUOTED);
    len = wrap(4, 11, pr, 20 + 3, false, m);
    CU_ASSERT_EQUAL(ew_probe_read_icmp4(m, len, &r), -1); /* no ports: not matched */
    for (size_t cut = 0; cut <= n + 28; cut++) {
        uint8_t *copy;

        len = wrap(4, 11, pr, n, false, m);
        if (cut > len)
            break;
        copy = malloc(cut ? cut : 1); /* exactly cut bytes: ASan sees a read past them */
        CU_ASSERT_FATAL(copy != NULL);
        memcpy(copy, m, cut);
        if (ew_probe_read_icmp4(copy, cut, &r) == 0) {
            CU_ASSERT(r.quoted + 28 <= cut);
            CU_ASSERT(r.option != EW_PO_PRESENT || cut >= 28 + 20 + 32);
        }
        free(copy);
    }
}

static void
test_rfc4884(void)
{
    uint8_t pr[EW_PROBE_PKT_MAX], m[2048];
    struct ew_probe_reply r;
    size_t n = build(EW_PT_TCP_ACCECN_OPTION, 4, pr), len;

    len = wrap(4, 11, pr, n, true, m);
    CU_ASSERT_EQUAL_FATAL(ew_probe_read_icmp4(m, len, &r), 0);
    CU_ASSERT(r.rfc4884);
    CU_ASSERT_EQUAL(r.quoted, n);
    CU_ASSERT_EQUAL(r.option, EW_PO_PRESENT);
    n = build(EW_PT_UDP_ECT1, 6, pr);
    len = wrap(6, 1, pr, 100, true, m);
    CU_ASSERT_EQUAL_FATAL(ew_probe_read_icmp6(m, len, ROUTER6, &r), 0);
    CU_ASSERT(r.rfc4884);
    CU_ASSERT_EQUAL(r.answer, EW_PA_UNREACHABLE);
    CU_ASSERT_EQUAL(r.ecn, EW_ECN_ECT_1);
    CU_ASSERT_EQUAL(r.quoted, 128); /* the padding counts: the length says 128 */
    (void)n;
    /* others' ICMP: an echo reply, a redirect */
    m[20] = 0;
    CU_ASSERT_EQUAL(ew_probe_read_icmp4(m, len, &r), -1);
}

static void
test_answers(void)
{
    uint8_t b[60];
    struct ew_probe_reply r;

    /* a SYN-ACK from 198.51.100.7:80 to 40001, ECE set, ack = seq + 1 */
    memset(b, 0, sizeof(b));
    b[0] = 0x45;
    b[1] = 0x02; /* ECT(0) */
    b[9] = 6;
    memcpy(b + 12, DST4, 4);
    memcpy(b + 16, SRC4, 4);
    b[20] = 0;
    b[21] = 80;
    b[22] = 40001 >> 8;
    b[23] = 40001 & 0xff;
    b[28] = 0x01; b[29] = 0x02; b[30] = 0x03; b[31] = 0x05;
    b[32] = 0x50;
    b[33] = EW_TCP_SYN | EW_TCP_ACK | EW_TCP_ECE;
    CU_ASSERT_EQUAL_FATAL(ew_probe_read_l4_4(b, 40, false, &r), 0);
    CU_ASSERT_EQUAL(r.answer, EW_PA_SYN_ACK);
    CU_ASSERT_EQUAL(r.sport, 40001);
    CU_ASSERT_EQUAL(r.dport, 80);
    CU_ASSERT_EQUAL(r.seq, 0x01020305u);
    CU_ASSERT_EQUAL(r.ecn, EW_ECN_ECT_0);
    CU_ASSERT_EQUAL(r.flags, EW_TCP_SYN | EW_TCP_ACK | EW_TCP_ECE);
    CU_ASSERT_EQUAL(ew_probe_read_l4_4(b, 33, false, &r), -1);
    b[33] = EW_TCP_ACK; /* neither a SYN-ACK nor a RST */
    CU_ASSERT_EQUAL(ew_probe_read_l4_4(b, 40, false, &r), -1);
}

/* ---- verdicts ---- */

static struct ew_probe_result *
result(int dest)
{
    struct ew_probe_result *r = calloc(1, sizeof(*r));

    CU_ASSERT_FATAL(r != NULL);
    r->family = 4;
    memcpy(r->src, SRC4, 16);
    memcpy(r->dst, DST4, 16);
    r->max_ttl = dest ? dest : 8;
    r->dest_ttl = dest;
    for (int t = 0; t < EW_PT_COUNT; t++)
        r->types[t] = true;
    for (int ttl = 1; ttl <= EW_PROBE_MAX_TTL; ttl++)
        for (int t = 0; t < EW_PT_COUNT; t++) {
            struct ew_probe_obs *o = &r->obs[ttl][t];

            o->ecn = o->flags = o->answer_ecn = o->answer_flags = -1;
        }
    return r;
}

/* hop ttl quoted type t as sent, with the given field value instead (-2:
 * as sent), q bytes */
static void
hop(struct ew_probe_result *r, int ttl, enum ew_probe_type t, int v, unsigned q)
{
    struct ew_probe_obs *o = &r->obs[ttl][t];
    const struct ew_probe_spec *s = &ew_probe_specs[t];

    o->sent = 1;
    o->answer = EW_PA_TIME_EXCEEDED;
    o->from[0] = 10;
    o->from[3] = (uint8_t)ttl;
    o->quoted = q;
    o->ecn = s->ecn;
    o->flags = q >= 34 ? s->flags : -1;
    o->option = q >= 72 ? (s->option ? EW_PO_PRESENT : EW_PO_ABSENT) : EW_PO_NOT_QUOTED;
    if (v == -2)
        return;
    if (s->field == EW_PF_ECN)
        o->ecn = v;
    else if (s->field == EW_PF_FLAGS && q >= 34)
        o->flags = (s->flags & ~(EW_TCP_ECE | EW_TCP_CWR | EW_TCP_AE)) | v;
    else if (s->field == EW_PF_OPTION && q >= 72)
        o->option = v ? EW_PO_PRESENT : EW_PO_ABSENT;
}

static void
dest(struct ew_probe_result *r, int ttl, enum ew_probe_type t, int flags)
{
    struct ew_probe_obs *o = &r->obs[ttl][t];

    o->sent = 1;
    o->answer = EW_PA_SYN_ACK;
    o->from_dst = true;
    memcpy(o->from, DST4, 16);
    o->answer_flags = flags;
    o->answer_ecn = 0;
}

static void
sent_only(struct ew_probe_result *r, int ttl, enum ew_probe_type t)
{
    r->obs[ttl][t].sent = 2;
}

static void
test_judge_change(void)
{
    struct ew_probe_result *r = result(4);
    const struct ew_probe_dim *d = &r->dims[EW_PT_TCP_ECT0];

    /* bleached between hop 1 and hop 2: certain */
    hop(r, 1, EW_PT_TCP_ECT0, -2, 576);
    hop(r, 2, EW_PT_TCP_ECT0, EW_ECN_NOT_ECT, 576);
    hop(r, 3, EW_PT_TCP_ECT0, EW_ECN_NOT_ECT, 576);
    dest(r, 4, EW_PT_TCP_ECT0, EW_TCP_SYN | EW_TCP_ACK);
    hop(r, 1, EW_PT_TCP_PLAIN, -2, 576);
    dest(r, 4, EW_PT_TCP_PLAIN, EW_TCP_SYN | EW_TCP_ACK);
    ew_probe_judge(r);
    CU_ASSERT_EQUAL(d->verdict, EW_PV_CHANGED);
    CU_ASSERT_EQUAL(d->change, EW_PC_BLEACHED);
    CU_ASSERT_EQUAL(d->last_as_sent, 1);
    CU_ASSERT_EQUAL(d->first_changed, 2);
    CU_ASSERT_EQUAL(d->conf, EW_PCONF_CERTAIN);
    CU_ASSERT_EQUAL(ew_probe_found(r), 1u << EW_MU_BLEACHING);
    CU_ASSERT_EQUAL(r->findings[0].ttl, 2);
    /* tcp_plain: as sent to hop 1, the destination quotes nothing */
    CU_ASSERT_EQUAL(r->dims[EW_PT_TCP_PLAIN].verdict, EW_PV_UNCHANGED);
    CU_ASSERT_EQUAL(r->dims[EW_PT_TCP_PLAIN].conf, EW_PCONF_LIKELY);
    /* hop 2 silent: somewhere after hop 1, likely */
    memset(&r->obs[2][EW_PT_TCP_ECT0], 0, sizeof(r->obs[2][0]));
    r->obs[2][EW_PT_TCP_ECT0].ecn = -1;
    ew_probe_judge(r);
    CU_ASSERT_EQUAL(d->verdict, EW_PV_CHANGED);
    CU_ASSERT_EQUAL(d->last_as_sent, 1);
    CU_ASSERT_EQUAL(d->first_changed, 3);
    CU_ASSERT_EQUAL(d->conf, EW_PCONF_LIKELY);
    /* as sent again after the change: ambiguous, no finding */
    hop(r, 2, EW_PT_TCP_ECT0, EW_ECN_NOT_ECT, 576);
    hop(r, 3, EW_PT_TCP_ECT0, -2, 576);
    ew_probe_judge(r);
    CU_ASSERT_EQUAL(d->verdict, EW_PV_AMBIGUOUS);
    CU_ASSERT_EQUAL(ew_probe_found(r), 0);
    /* marked CE: a change, not misuse */
    hop(r, 2, EW_PT_TCP_ECT0, EW_ECN_CE, 576);
    hop(r, 3, EW_PT_TCP_ECT0, EW_ECN_CE, 576);
    ew_probe_judge(r);
    CU_ASSERT_EQUAL(d->change, EW_PC_CE_MARKED);
    CU_ASSERT_EQUAL(ew_probe_found(r), 0);
    /* the sender's first hop already changed it: between the sender and hop 1 */
    hop(r, 1, EW_PT_TCP_ECT0, EW_ECN_ECT_1, 576);
    hop(r, 2, EW_PT_TCP_ECT0, EW_ECN_ECT_1, 576);
    hop(r, 3, EW_PT_TCP_ECT0, EW_ECN_ECT_1, 576);
    ew_probe_judge(r);
    CU_ASSERT_EQUAL(d->change, EW_PC_REMARKED);
    CU_ASSERT_EQUAL(d->last_as_sent, 0);
    CU_ASSERT_EQUAL(d->first_changed, 1);
    CU_ASSERT_EQUAL(d->conf, EW_PCONF_CERTAIN);
    CU_ASSERT_EQUAL(ew_probe_found(r), 1u << EW_MU_REMARKING);
    free(r);
}

static void
test_judge_quotes(void)
{
    struct ew_probe_result *r = result(4);
    const struct ew_probe_dim *d = &r->dims[EW_PT_TCP_ECN_SETUP];

    /* quotes of 28 bytes everywhere, a destination that does not answer
     * with ECE: nothing shows the flags */
    for (int ttl = 1; ttl <= 3; ttl++)
        hop(r, ttl, EW_PT_TCP_ECN_SETUP, -2, 28);
    dest(r, 4, EW_PT_TCP_ECN_SETUP, EW_TCP_SYN | EW_TCP_ACK);
    ew_probe_judge(r);
    CU_ASSERT_EQUAL(d->verdict, EW_PV_UNKNOWN);
    CU_ASSERT_EQUAL(ew_probe_found(r), 0);
    /* an RFC 3168 SYN-ACK (ECE, not CWR) shows the set-up arrived */
    dest(r, 4, EW_PT_TCP_ECN_SETUP, EW_TCP_SYN | EW_TCP_ACK | EW_TCP_ECE);
    ew_probe_judge(r);
    CU_ASSERT_EQUAL(d->verdict, EW_PV_UNCHANGED);
    CU_ASSERT_EQUAL(d->last_as_sent, 4);
    CU_ASSERT_EQUAL(d->conf, EW_PCONF_CERTAIN);
    /* the AccECN set-up, quotes of 28 bytes: an AccECN SYN-ACK code shows it
     * arrived, and so does 101 (AE, ECE: RFC 9768 §3.1.3, AccECN as the
     * capture's negotiation rule reads it); ECE alone does not */
    {
        const struct ew_probe_dim *a = &r->dims[EW_PT_TCP_ACCECN_SETUP];

        for (int ttl = 1; ttl <= 3; ttl++)
            hop(r, ttl, EW_PT_TCP_ACCECN_SETUP, -2, 28);
        dest(r, 4, EW_PT_TCP_ACCECN_SETUP, EW_TCP_SYN | EW_TCP_ACK | EW_TCP_CWR);
        ew_probe_judge(r);
        CU_ASSERT_EQUAL(a->verdict, EW_PV_UNCHANGED);
        CU_ASSERT_EQUAL(a->last_as_sent, 4);
        dest(r, 4, EW_PT_TCP_ACCECN_SETUP, EW_TCP_SYN | EW_TCP_ACK | EW_TCP_AE | EW_TCP_ECE);
        ew_probe_judge(r);
        CU_ASSERT_EQUAL(a->last_as_sent, 4);
        dest(r, 4, EW_PT_TCP_ACCECN_SETUP, EW_TCP_SYN | EW_TCP_ACK | EW_TCP_ECE);
        ew_probe_judge(r);
        CU_ASSERT_EQUAL(a->verdict, EW_PV_UNKNOWN);
        memset(r->obs[4] + EW_PT_TCP_ACCECN_SETUP, 0, sizeof(r->obs[0][0]));
        for (int ttl = 1; ttl <= 3; ttl++)
            memset(r->obs[ttl] + EW_PT_TCP_ACCECN_SETUP, 0, sizeof(r->obs[0][0]));
    }
    /* stripped, hop 2 quoting short: after hop 1, likely */
    hop(r, 1, EW_PT_TCP_ECN_SETUP, -2, 576);
    hop(r, 2, EW_PT_TCP_ECN_SETUP, 0, 28);
    hop(r, 3, EW_PT_TCP_ECN_SETUP, 0, 576);
    dest(r, 4, EW_PT_TCP_ECN_SETUP, EW_TCP_SYN | EW_TCP_ACK);
    ew_probe_judge(r);
    CU_ASSERT_EQUAL(d->verdict, EW_PV_CHANGED);
    CU_ASSERT_EQUAL(d->change, EW_PC_FLAGS_STRIPPED);
    CU_ASSERT_EQUAL(d->last_as_sent, 1);
    CU_ASSERT_EQUAL(d->first_changed, 3);
    CU_ASSERT_EQUAL(d->conf, EW_PCONF_LIKELY);
    CU_ASSERT_EQUAL(ew_probe_found(r), 1u << EW_MU_ECN_SETUP_STRIPPED);
    /* AE alone cleared is stripped too */
    hop(r, 1, EW_PT_TCP_ACCECN_SETUP, -2, 576);
    hop(r, 2, EW_PT_TCP_ACCECN_SETUP, EW_TCP_ECE | EW_TCP_CWR, 576);
    ew_probe_judge(r);
    CU_ASSERT_EQUAL(r->dims[EW_PT_TCP_ACCECN_SETUP].change, EW_PC_FLAGS_STRIPPED);
    /* the option removed */
    hop(r, 1, EW_PT_TCP_ACCECN_OPTION, -2, 576);
    hop(r, 2, EW_PT_TCP_ACCECN_OPTION, 0, 576);
    ew_probe_judge(r);
    CU_ASSERT_EQUAL(r->dims[EW_PT_TCP_ACCECN_OPTION].change, EW_PC_OPTION_REMOVED);
    CU_ASSERT(ew_probe_found(r) & (1u << EW_MU_ACCECN_OPTION_MANGLED));
    free(r);
}

static void
test_judge_blackhole(void)
{
    struct ew_probe_result *r = result(4);
    const struct ew_probe_dim *d = &r->dims[EW_PT_TCP_ECN_SETUP];

    for (int ttl = 1; ttl <= 3; ttl++)
        hop(r, ttl, EW_PT_TCP_PLAIN, -2, 576);
    dest(r, 4, EW_PT_TCP_PLAIN, EW_TCP_SYN | EW_TCP_ACK);
    hop(r, 1, EW_PT_TCP_ECN_SETUP, -2, 576);
    for (int ttl = 2; ttl <= 4; ttl++)
        sent_only(r, ttl, EW_PT_TCP_ECN_SETUP);
    ew_probe_judge(r);
    CU_ASSERT_EQUAL(d->verdict, EW_PV_BLACKHOLE);
    CU_ASSERT_EQUAL(d->first_silent, 2);
    CU_ASSERT_EQUAL(d->last_as_sent, 1);
    CU_ASSERT_EQUAL(d->conf, EW_PCONF_LIKELY);
    CU_ASSERT_EQUAL(ew_probe_found(r), 1u << EW_MU_ECN_BLACKHOLE);
    /* only the destination silent to them, where it answers plain SYNs */
    hop(r, 2, EW_PT_TCP_ECN_SETUP, -2, 576);
    hop(r, 3, EW_PT_TCP_ECN_SETUP, -2, 576);
    ew_probe_judge(r);
    CU_ASSERT_EQUAL(d->verdict, EW_PV_BLACKHOLE);
    CU_ASSERT_EQUAL(d->first_silent, 4);
    CU_ASSERT_EQUAL(d->last_as_sent, 3);
    /* a UDP probe the destination alone leaves unanswered: its Port
     * Unreachable may be rate-limited, so no blackhole */
    {
        const struct ew_probe_dim *u = &r->dims[EW_PT_UDP_ECT1];

        for (int ttl = 1; ttl <= 3; ttl++) {
            hop(r, ttl, EW_PT_UDP_NOT_ECT, -2, 576);
            hop(r, ttl, EW_PT_UDP_ECT1, -2, 576);
        }
        hop(r, 4, EW_PT_UDP_NOT_ECT, -2, 576);
        r->obs[4][EW_PT_UDP_NOT_ECT].answer = EW_PA_UNREACHABLE;
        r->obs[4][EW_PT_UDP_NOT_ECT].from_dst = true;
        sent_only(r, 4, EW_PT_UDP_ECT1);
        ew_probe_judge(r);
        CU_ASSERT_EQUAL(u->verdict, EW_PV_UNCHANGED);
        CU_ASSERT_EQUAL(u->last_as_sent, 3);
        CU_ASSERT_EQUAL(u->conf, EW_PCONF_LIKELY);
        CU_ASSERT_FALSE(ew_probe_found(r) & (1u << EW_MU_ECN_BLACKHOLE) &&
                        r->findings[r->nfindings - 1].type == EW_PT_UDP_ECT1);
        /* silent from hop 3 on: a blackhole */
        memset(&r->obs[3][EW_PT_UDP_ECT1], 0, sizeof(r->obs[0][0]));
        sent_only(r, 3, EW_PT_UDP_ECT1);
        ew_probe_judge(r);
        CU_ASSERT_EQUAL(u->verdict, EW_PV_BLACKHOLE);
        CU_ASSERT_EQUAL(u->first_silent, 3);
        for (int ttl = 1; ttl <= 4; ttl++) {
            memset(&r->obs[ttl][EW_PT_UDP_NOT_ECT], 0, sizeof(r->obs[0][0]));
            memset(&r->obs[ttl][EW_PT_UDP_ECT1], 0, sizeof(r->obs[0][0]));
        }
    }
    /* the plain probes silent past hop 1 too: no blackhole can be told */
    for (int ttl = 2; ttl <= 4; ttl++) {
        memset(&r->obs[ttl][EW_PT_TCP_PLAIN], 0, sizeof(r->obs[0][0]));
        sent_only(r, ttl, EW_PT_TCP_PLAIN);
    }
    ew_probe_judge(r);
    CU_ASSERT_NOT_EQUAL(d->verdict, EW_PV_BLACKHOLE);
    CU_ASSERT_EQUAL(ew_probe_found(r), 0);
    free(r);
}

static void
test_parse(void)
{
    char host[64], err[128];
    uint16_t port;
    uint32_t mask;

    CU_ASSERT_EQUAL(ew_probe_parse_target("192.0.2.1", host, sizeof(host), &port, err, sizeof(err)), 0);
    CU_ASSERT_STRING_EQUAL(host, "192.0.2.1");
    CU_ASSERT_EQUAL(port, 80);
    CU_ASSERT_EQUAL(ew_probe_parse_target("example.net:443", host, sizeof(host), &port, err, sizeof(err)), 0);
    CU_ASSERT_STRING_EQUAL(host, "example.net");
    CU_ASSERT_EQUAL(port, 443);
    CU_ASSERT_EQUAL(ew_probe_parse_target("[2001:db8::1]:8080", host, sizeof(host), &port, err, sizeof(err)), 0);
    CU_ASSERT_STRING_EQUAL(host, "2001:db8::1");
    CU_ASSERT_EQUAL(port, 8080);
    CU_ASSERT_EQUAL(ew_probe_parse_target("2001:db8::1", host, sizeof(host), &port, err, sizeof(err)), 0);
    CU_ASSERT_STRING_EQUAL(host, "2001:db8::1");
    CU_ASSERT_EQUAL(ew_probe_parse_target("h:0", host, sizeof(host), &port, err, sizeof(err)), -1);
    CU_ASSERT_EQUAL(ew_probe_parse_target("h:65536", host, sizeof(host), &port, err, sizeof(err)), -1);
    CU_ASSERT_EQUAL(ew_probe_parse_target("[::1", host, sizeof(host), &port, err, sizeof(err)), -1);
    CU_ASSERT_EQUAL(ew_probe_parse_target(":80", host, sizeof(host), &port, err, sizeof(err)), -1);
    CU_ASSERT_EQUAL(ew_probe_parse_types("tcp_ect0,udp_ce", &mask, host, sizeof(host)), 0);
    CU_ASSERT_EQUAL(mask, 1u << EW_PT_TCP_ECT0 | 1u << EW_PT_UDP_CE);
    CU_ASSERT_EQUAL(ew_probe_parse_types("tcp_ect0,nope", &mask, host, sizeof(host)), -1);
    CU_ASSERT_STRING_EQUAL(host, "nope");
}

int
ew_test_register_probe(void)
{
    CU_pSuite s = CU_add_suite("probe", NULL, NULL);

    if (!s)
        return -1;
    if (!CU_add_test(s, "the probes' bytes and sums", test_bytes) ||
        !CU_add_test(s, "quotes read back, IPv4 and IPv6", test_quotes) ||
        !CU_add_test(s, "short quotes and every cut", test_short) ||
        !CU_add_test(s, "RFC 4884 lengths and extensions", test_rfc4884) ||
        !CU_add_test(s, "the destination's answers", test_answers) ||
        !CU_add_test(s, "changes located", test_judge_change) ||
        !CU_add_test(s, "short quotes and SYN-ACKs", test_judge_quotes) ||
        !CU_add_test(s, "blackholes, and silence that is not one", test_judge_blackhole) ||
        !CU_add_test(s, "targets and type lists", test_parse))
        return -1;
    return 0;
}
