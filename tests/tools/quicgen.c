/* quicgen.c - writes the first packets of a QUIC connection as a capture at
 * the client would hold them, with the ECN marks and counts of one case:
 *
 *   the client's Initial (a ClientHello in CRYPTO, padded to 1200 bytes);
 *   with --retry, the server's Retry (with its integrity tag, RFC 9001 §5.8)
 *     and the client's Initial again, to the connection ID the Retry gave;
 *   the server's Initial with an ACK frame that carries ECN counts (RFC 9000
 *     §19.3.2) and a ServerHello, coalesced with a Handshake packet, and a
 *     second Handshake packet;
 *   the client's Initial acknowledging the server's (with counts), coalesced
 *     with a Handshake packet, to the server's connection ID (§7.2);
 *   a few 1-RTT packets each way.
 *
 * Initial packets are protected as RFC 9001 §5 says, with keys from the
 * client's Destination Connection ID (after a Retry, from the Retry's Source
 * Connection ID); Handshake and 1-RTT packets with keys no observer has.
 *
 *   quicgen CASE OUT [--version 1|2] [--retry] [--snaplen N]
 *
 * CASE says what a device between the capture point and the server does to
 * the client's packets, and what the server reports:
 *   ect0      ECT(0) both ways, counted by both ends
 *   ect1      ECT(1) both ways, counted: an L4S candidate
 *   missing   the server reads no ECN: Not-ECT packets, ACKs without counts
 *   bleached  the device clears ECT(0) to Not-ECT; the server counts zeros
 *   swapped   the device turns ECT(0) into ECT(1); the server counts ECT(1)
 *   allce     the device marks every ECT packet CE; the server counts CE
 *   notect    no ECN at all
 *   noanswer  the server never answers
 *   late      Initial packets Not-ECT both ways, every later packet (Handshake,
 *             1-RTT) ECT(0): ECN begins after the first flight
 *   vn        the client first tries version 0x1a2a3a4a (reserved, RFC 9000
 *             §15); the server answers Version Negotiation (§17.2.1) listing
 *             1, 2 and a reserved version; the client starts again with the
 *             version asked for, as ect0 (same ports)
 *   vnonly    the unsupported Initial and the Version Negotiation, no more
 * The way back to the client is left alone. Addresses are from the
 * documentation ranges; nothing is sent anywhere.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>

#include "infer/quic_crypto.h"

#include "bytes.h"

enum { NOT_ECT = 0, ECT1 = 1, ECT0 = 2, CE = 3 };
enum pcase {
    C_ECT0, C_ECT1, C_MISSING, C_BLEACHED, C_SWAPPED, C_ALLCE, C_NOTECT, C_NOANSWER, C_LATE,
    C_VN, C_VNONLY
};
static const char *const case_names[] = {"ect0",    "ect1",  "missing", "bleached",
                                         "swapped", "allce", "notect",  "noanswer",
                                         "late",    "vn",    "vnonly"};
enum ltype { L_INITIAL, L_0RTT, L_HANDSHAKE, L_RETRY };

#define MAX_RECS 64
#define DGRAM_MAX 1500
#define T0_NS 1700000000000000000LL
#define RTT_NS 20000000LL

struct rec {
    int64_t ts;
    bool from_client;
    uint8_t ecn;
    size_t len;
    uint8_t data[DGRAM_MAX];
};

static struct rec recs[MAX_RECS];
static size_t nrecs;
static uint32_t version = EW_QUIC_V1;
static struct ew_quic_crypto *cx;
static uint64_t rng_state = 0x5eed5eed12345678ULL;

/* the TLS messages of RFC 9001 App. A.2 and A.3: a ClientHello (with QUIC
 * transport parameters) and a ServerHello, so that the CRYPTO frames parse */
static const char client_hello[] =
    "010000ed0303ebf8fa56f12939b9584a3896472ec40bb863cfd3e86804fe3a47"
    "f06a2b69484c00000413011302010000c000000010000e00000b6578616d706c"
    "652e636f6dff01000100000a00080006001d0017001800100007000504616c70"
    "6e000500050100000000003300260024001d00209370b2c9caa47fbabaf4559f"
    "edba753de171fa71f50f1ce15d43e994ec74d748002b0003020304000d001000"
    "0e0403050306030203080408050806002d00020101001c000240010039003204"
    "08ffffffffffffffff05048000ffff07048000ffff0801100104800075300901"
    "100f088394c8f03e51570806048000ffff";
static const char server_hello[] =
    "020000560303eefce7f7b37ba1d1632e96677825ddf73988cfc79825df566dc5"
    "430b9a045a1200130100002e00330024001d00209d3c940d89690b84d08a6099"
    "3c144eca684d1081287c834d5311bcf32bb9da1a002b00020304";

static uint8_t
rnd8(void)
{
    /* xorshift64*: a fixed seed, so the same arguments give the same file */
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return (uint8_t)((rng_state * 0x2545F4914F6CDD1DULL) >> 56);
}

static void
fill(uint8_t *p, size_t n)
{
    while (n--)
        *p++ = rnd8();
}

static void
die(const char *what)
{
    fprintf(stderr, "quicgen: %s\n", what);
    exit(1);
}

struct cid {
    uint8_t len;
    uint8_t b[20];
};

/* RFC 9000 §17.2 Table 5; RFC 9369 §3.2 */
static unsigned
type_bits(enum ltype t)
{
    static const unsigned v1[] = {[L_INITIAL] = 0, [L_0RTT] = 1, [L_HANDSHAKE] = 2, [L_RETRY] = 3};
    static const unsigned v2[] = {[L_INITIAL] = 1, [L_0RTT] = 2, [L_HANDSHAKE] = 3, [L_RETRY] = 0};

    return version == EW_QUIC_V2 ? v2[t] : v1[t];
}

static size_t
put_varint(uint8_t *p, uint64_t v)
{
    if (v < 64) {
        p[0] = (uint8_t)v;
        return 1;
    }
    if (v < 16384) {
        p[0] = (uint8_t)(0x40 | (v >> 8));
        p[1] = (uint8_t)v;
        return 2;
    }
    p[0] = (uint8_t)(0x80 | (v >> 24));
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
    return 4;
}

static size_t
put_cid(uint8_t *p, const struct cid *c)
{
    p[0] = c->len;
    memcpy(p + 1, c->b, c->len);
    return 1u + c->len;
}

/* one protected long-header packet (Initial or Handshake) at out; the
 * payload is padded with PADDING frames to pad_to bytes */
static size_t
long_packet(uint8_t *out, size_t room, enum ltype t, const struct cid *dcid,
            const struct cid *scid, const uint8_t *token, size_t toklen, uint64_t pn,
            size_t pn_len, const struct ew_quic_keys *k, const uint8_t *frames, size_t flen,
            size_t pad_to)
{
    uint8_t hdr[128], payload[DGRAM_MAX];
    size_t h = 0, plen = flen, i, pno;
    long n;

    if (flen > sizeof(payload) || pad_to > sizeof(payload))
        die("payload too long");
    memcpy(payload, frames, flen);
    while (plen < pad_to)
        payload[plen++] = 0;
    hdr[h++] = (uint8_t)(0xc0 | (type_bits(t) << 4) | (pn_len - 1));
    hdr[h++] = (uint8_t)(version >> 24);
    hdr[h++] = (uint8_t)(version >> 16);
    hdr[h++] = (uint8_t)(version >> 8);
    hdr[h++] = (uint8_t)version;
    h += put_cid(hdr + h, dcid);
    h += put_cid(hdr + h, scid);
    if (t == L_INITIAL) {
        h += put_varint(hdr + h, toklen);
        if (toklen)
            memcpy(hdr + h, token, toklen);
        h += toklen;
    }
    /* Length: packet number, payload, tag; always two bytes here */
    hdr[h++] = (uint8_t)(0x40 | ((pn_len + plen + 16) >> 8));
    hdr[h++] = (uint8_t)(pn_len + plen + 16);
    pno = h;
    for (i = 0; i < pn_len; i++)
        hdr[h++] = (uint8_t)(pn >> (8 * (pn_len - 1 - i)));
    n = ew_quic_seal(cx, k, hdr, h, pno, pn, payload, plen, out, room);
    if (n < 0)
        die("cannot protect a packet");
    return (size_t)n;
}

/* a 1-RTT packet (RFC 9000 §17.3.1) */
static size_t
short_packet(uint8_t *out, size_t room, const struct cid *dcid, uint64_t pn,
             const struct ew_quic_keys *k, size_t plen)
{
    uint8_t hdr[32], payload[DGRAM_MAX];
    size_t h = 0, pno;
    long n;

    hdr[h++] = 0x41; /* fixed bit, 2-byte packet number */
    memcpy(hdr + h, dcid->b, dcid->len);
    h += dcid->len;
    pno = h;
    hdr[h++] = (uint8_t)(pn >> 8);
    hdr[h++] = (uint8_t)pn;
    fill(payload, plen);
    payload[0] = 0x01; /* PING first; the rest is what no observer can read */
    n = ew_quic_seal(cx, k, hdr, h, pno, pn, payload, plen, out, room);
    if (n < 0)
        die("cannot protect a packet");
    return (size_t)n;
}

/* the Retry (RFC 9000 §17.2.5) and its integrity tag (RFC 9001 §5.8, RFC
 * 9369 §3.3.3): AES-128-GCM over the pseudo-packet, empty plaintext */
static size_t
retry_packet(uint8_t *out, const struct cid *odcid, const struct cid *dcid,
             const struct cid *scid, const uint8_t *token, size_t toklen)
{
    static const uint8_t k1[16] = {0xbe, 0x0c, 0x69, 0x0b, 0x9f, 0x66, 0x57, 0x5a,
                                   0x1d, 0x76, 0x6b, 0x54, 0xe3, 0x68, 0xc8, 0x4e};
    static const uint8_t n1[12] = {0x46, 0x15, 0x99, 0xd3, 0x5d, 0x63,
                                   0x2b, 0xf2, 0x23, 0x98, 0x25, 0xbb};
    static const uint8_t k2[16] = {0x8f, 0xb4, 0xb0, 0x1b, 0x56, 0xac, 0x48, 0xe2,
                                   0x60, 0xfb, 0xcb, 0xce, 0xad, 0x7c, 0xcc, 0x92};
    static const uint8_t n2[12] = {0xd8, 0x69, 0x69, 0xbc, 0x2d, 0x7c,
                                   0x6d, 0x99, 0x90, 0xef, 0xb0, 0x4a};
    uint8_t pseudo[256];
    size_t h = 0, ps = 0;
    int outl = 0;
    EVP_CIPHER_CTX *g = EVP_CIPHER_CTX_new();

    out[h++] = (uint8_t)(0xc0 | (type_bits(L_RETRY) << 4) | 0x0f);
    out[h++] = (uint8_t)(version >> 24);
    out[h++] = (uint8_t)(version >> 16);
    out[h++] = (uint8_t)(version >> 8);
    out[h++] = (uint8_t)version;
    h += put_cid(out + h, dcid);
    h += put_cid(out + h, scid);
    memcpy(out + h, token, toklen);
    h += toklen;
    ps += put_cid(pseudo, odcid);
    memcpy(pseudo + ps, out, h);
    ps += h;
    if (!g ||
        EVP_EncryptInit_ex(g, EVP_aes_128_gcm(), NULL, version == EW_QUIC_V2 ? k2 : k1,
                           version == EW_QUIC_V2 ? n2 : n1) != 1 ||
        EVP_EncryptUpdate(g, NULL, &outl, pseudo, (int)ps) != 1 ||
        EVP_EncryptFinal_ex(g, out + h, &outl) != 1 ||
        EVP_CIPHER_CTX_ctrl(g, EVP_CTRL_GCM_GET_TAG, 16, out + h) != 1)
        die("cannot compute the Retry integrity tag");
    EVP_CIPHER_CTX_free(g);
    return h + 16;
}

static struct rec *
add(int64_t ts, bool from_client, uint8_t ecn)
{
    struct rec *r;

    if (nrecs == MAX_RECS)
        die("too many packets");
    r = &recs[nrecs++];
    memset(r, 0, sizeof(*r));
    r->ts = ts;
    r->from_client = from_client;
    r->ecn = ecn;
    return r;
}

/* an ACK frame for packet numbers lo..hi, with counts unless ecn is NULL */
static size_t
ack_frame(uint8_t *p, uint64_t lo, uint64_t hi, const uint64_t *ecn)
{
    size_t n = 0;

    p[n++] = ecn ? 0x03 : 0x02;
    n += put_varint(p + n, hi);      /* Largest Acknowledged */
    n += put_varint(p + n, 0);       /* ACK Delay */
    n += put_varint(p + n, 0);       /* ACK Range Count */
    n += put_varint(p + n, hi - lo); /* First ACK Range */
    if (ecn) {
        n += put_varint(p + n, ecn[0]);
        n += put_varint(p + n, ecn[1]);
        n += put_varint(p + n, ecn[2]);
    }
    return n;
}

/* a CRYPTO frame at offset 0 with the TLS message in hex */
static size_t
crypto_frame(uint8_t *p, const char *hex)
{
    size_t len = strlen(hex) / 2, n = 0, i;
    unsigned v;

    p[n++] = 0x06;
    n += put_varint(p + n, 0);
    n += put_varint(p + n, len);
    for (i = 0; i < len; i++) {
        if (sscanf(hex + 2 * i, "%2x", &v) != 1)
            die("bad hex");
        p[n++] = (uint8_t)v;
    }
    return n;
}

/* what the device towards the server leaves of a codepoint */
static uint8_t
path(enum pcase c, uint8_t cp)
{
    switch (c) {
    case C_BLEACHED:
        return NOT_ECT;
    case C_SWAPPED:
        return cp == ECT0 ? ECT1 : cp == ECT1 ? ECT0 : cp;
    case C_ALLCE:
        return (cp == ECT0 || cp == ECT1) ? CE : cp;
    default:
        return cp;
    }
}

/* ECN counts (ECT(0), ECT(1), CE) of packets that arrived with cp */
static void
count(uint64_t counts[3], uint8_t cp)
{
    if (cp == ECT0)
        counts[0]++;
    else if (cp == ECT1)
        counts[1]++;
    else if (cp == CE)
        counts[2]++;
}

static void
generate(enum pcase c, bool retry)
{
    struct cid odcid = {.len = 8}, cscid = {.len = 8}, sscid = {.len = 8}, rcid = {.len = 8};
    struct ew_quic_initial_secrets s;
    struct ew_quic_keys hs_c, hs_s, app_c, app_s;
    uint8_t cp_c = c == C_ECT1 ? ECT1 : (c == C_NOTECT || c == C_LATE ? NOT_ECT : ECT0);
    uint8_t cp_s =
        c == C_ECT1 ? ECT1 : (c == C_NOTECT || c == C_MISSING || c == C_LATE ? NOT_ECT : ECT0);
    /* what the later (Handshake, 1-RTT) packets carry */
    uint8_t lp_c = c == C_LATE ? ECT0 : cp_c, lp_s = c == C_LATE ? ECT0 : cp_s;
    uint64_t srv_counts[3] = {0}, cli_counts[3] = {0};
    uint8_t frames[DGRAM_MAX], token[24];
    uint64_t cpn = 0, acked;
    size_t fl, toklen = 0, i;
    struct rec *r;
    int64_t t = T0_NS;

    fill(odcid.b, 8);
    fill(cscid.b, 8);
    fill(sscid.b, 8);
    fill(rcid.b, 8);
    fill((uint8_t *)&hs_c, sizeof(hs_c));
    fill((uint8_t *)&hs_s, sizeof(hs_s));
    fill((uint8_t *)&app_c, sizeof(app_c));
    fill((uint8_t *)&app_s, sizeof(app_s));

    if (c == C_VN || c == C_VNONLY) {
        /* an Initial of a version the server does not know (its payload is
         * nothing anyone can read), and the server's Version Negotiation:
         * its CIDs the client's, swapped (§17.2.1) */
        static const uint32_t offered[] = {EW_QUIC_V1, EW_QUIC_V2, 0x5a6a7a8au};
        size_t h = 0, k;

        r = add(t - 2 * RTT_NS, true, cp_c);
        r->data[h++] = 0xc3;
        put32(r->data + h, 0x1a2a3a4au);
        h += 4;
        h += put_cid(r->data + h, &odcid);
        h += put_cid(r->data + h, &cscid);
        fill(r->data + h, 1200 - h);
        r->len = 1200;
        r = add(t - RTT_NS - RTT_NS / 2, false, cp_s);
        h = 0;
        r->data[h++] = (uint8_t)(0x80 | (rnd8() & 0x7f));
        put32(r->data + h, 0);
        h += 4;
        h += put_cid(r->data + h, &cscid);
        h += put_cid(r->data + h, &odcid);
        for (k = 0; k < sizeof(offered) / sizeof(offered[0]); k++, h += 4)
            put32(r->data + h, offered[k]);
        r->len = h;
        if (c == C_VNONLY)
            return;
    }

    /* the client's Initial: CRYPTO(ClientHello), padded to a 1200-byte datagram */
    if (ew_quic_derive_initial(version, odcid.b, odcid.len, &s))
        die("cannot derive Initial keys");
    fl = crypto_frame(frames, client_hello);
    r = add(t, true, cp_c);
    r->len = long_packet(r->data, DGRAM_MAX, L_INITIAL, &odcid, &cscid, NULL, 0, cpn, 1, &s.ck,
                         frames, fl, 1200 - (7 + 8 + 8 + 1 + 2 + 1 + 16));
    count(srv_counts, path(c, cp_c));
    acked = cpn++;

    if (retry) {
        /* the Retry asks the client to come back to rcid with a token */
        fill(token, sizeof(token));
        toklen = sizeof(token);
        r = add(t + RTT_NS / 2, false, cp_s);
        r->len = retry_packet(r->data, &odcid, &cscid, &rcid, token, toklen);
        if (ew_quic_derive_initial(version, rcid.b, rcid.len, &s))
            die("cannot derive Initial keys");
        t += RTT_NS;
        r = add(t, true, cp_c);
        r->len = long_packet(r->data, DGRAM_MAX, L_INITIAL, &rcid, &cscid, token, toklen, cpn, 1,
                             &s.ck, frames, fl, 1200 - (7 + 8 + 8 + 1 + 24 + 2 + 1 + 16));
        /* the server keeps no state across a Retry: it counts this one only */
        memset(srv_counts, 0, sizeof(srv_counts));
        count(srv_counts, path(c, cp_c));
        acked = cpn++;
    }
    if (c == C_NOANSWER)
        return;

    /* the server's Initial: ACK (counts unless it reads no ECN) and
     * CRYPTO(ServerHello), coalesced with a Handshake packet */
    t += RTT_NS;
    fl = ack_frame(frames, acked, acked, c == C_MISSING ? NULL : srv_counts);
    fl += crypto_frame(frames + fl, server_hello);
    r = add(t, false, cp_s);
    r->len = long_packet(r->data, DGRAM_MAX, L_INITIAL, &cscid, &sscid, NULL, 0, 0, 2, &s.sk,
                         frames, fl, 0);
    /* the Handshake packet with another codepoint than the Initial goes in a
     * datagram of its own (a datagram has one IP codepoint) */
    if (lp_s != cp_s)
        r = add(t + 50000, false, lp_s);
    fill(frames, 900);
    frames[0] = 0x06;
    r->len += long_packet(r->data + r->len, DGRAM_MAX - r->len, L_HANDSHAKE, &cscid, &sscid,
                          NULL, 0, 0, 2, &hs_s, frames, 900, 0);
    count(cli_counts, cp_s);
    r = add(t + 100000, false, lp_s);
    fill(frames, 700);
    frames[0] = 0x06;
    r->len = long_packet(r->data, DGRAM_MAX, L_HANDSHAKE, &cscid, &sscid, NULL, 0, 1, 2, &hs_s,
                         frames, 700, 0);

    /* the client's Initial acknowledging the server's, to the server's
     * connection ID (RFC 9000 §7.2; the keys stay, RFC 9001 §5.2), with a
     * Handshake packet (Finished); the datagram padded to 1200 bytes */
    t += RTT_NS;
    fl = ack_frame(frames, 0, 0, cli_counts);
    r = add(t, true, cp_c);
    r->len = long_packet(r->data, DGRAM_MAX, L_INITIAL, &sscid, &cscid, token, toklen, cpn, 1,
                         &s.ck, frames, fl, 0);
    fill(frames, 60);
    frames[0] = 0x06;
    if (lp_c != cp_c) {
        r = add(t + 50000, true, lp_c);
        r->len = long_packet(r->data, DGRAM_MAX, L_HANDSHAKE, &sscid, &cscid, NULL, 0, 0, 2,
                             &hs_c, frames, 60, 0);
    } else {
        /* the Handshake packet takes the rest of the 1200 bytes */
        size_t hs_over = 7 + 8 + 8 + 2 + 2 + 16;
        size_t want = 1200 - r->len - hs_over;

        r->len += long_packet(r->data + r->len, DGRAM_MAX - r->len, L_HANDSHAKE, &sscid, &cscid,
                              NULL, 0, 0, 2, &hs_c, frames, 60, want);
    }
    cpn++;

    /* 1-RTT both ways */
    for (i = 0; i < 3; i++) {
        r = add(t + (int64_t)(i + 1) * 1000000, true, lp_c);
        r->len = short_packet(r->data, DGRAM_MAX, &sscid, i, &app_c, 1000);
        r = add(t + RTT_NS + (int64_t)i * 1000000, false, lp_s);
        r->len = short_packet(r->data, DGRAM_MAX, &cscid, i, &app_s, 1200);
    }
}

/* ---------------------------------------------------------------- pcap writer */

static int
cmp_rec(const void *a, const void *b)
{
    const struct rec *x = a, *y = b;

    return (x->ts > y->ts) - (x->ts < y->ts);
}

static void
write_pcap(FILE *out, uint32_t snaplen)
{
    static uint8_t pkt[14 + 20 + 8 + DGRAM_MAX];
    uint8_t gh[24], ph[16];
    uint16_t ipid_c = 1, ipid_s = 1;
    size_t i;

    putle32(gh, 0xa1b23c4d); /* nanosecond pcap */
    gh[4] = 2;
    gh[5] = 0;
    gh[6] = 4;
    gh[7] = 0;
    memset(gh + 8, 0, 8);
    putle32(gh + 16, snaplen);
    putle32(gh + 20, 1); /* Ethernet */
    fwrite(gh, 1, 24, out);
    qsort(recs, nrecs, sizeof(recs[0]), cmp_rec);
    for (i = 0; i < nrecs; i++) {
        const struct rec *r = &recs[i];
        uint8_t *e = pkt, *ip = pkt + 14, *udp = ip + 20;
        uint32_t iplen = (uint32_t)(20 + 8 + r->len), caplen;

        memset(pkt, 0, 14 + 20 + 8);
        memcpy(e, r->from_client ? "\x02\x00\x00\x00\x00\x02" : "\x02\x00\x00\x00\x00\x01", 6);
        memcpy(e + 6, r->from_client ? "\x02\x00\x00\x00\x00\x01" : "\x02\x00\x00\x00\x00\x02", 6);
        put16(e + 12, 0x0800);
        ip[0] = 0x45;
        ip[1] = r->ecn;
        put16(ip + 2, iplen);
        put16(ip + 4, r->from_client ? ipid_c++ : ipid_s++);
        put16(ip + 6, 0x4000);
        ip[8] = 64;
        ip[9] = 17;
        memcpy(ip + 12, r->from_client ? "\xc0\x00\x02\x01" : "\xc6\x33\x64\x02", 4);
        memcpy(ip + 16, r->from_client ? "\xc6\x33\x64\x02" : "\xc0\x00\x02\x01", 4);
        put_ipv4_checksum(ip);
        put16(udp, r->from_client ? 50000 : 443);
        put16(udp + 2, r->from_client ? 443 : 50000);
        put16(udp + 4, (uint32_t)(8 + r->len));
        /* checksum 0: none (RFC 768) */
        memcpy(udp + 8, r->data, r->len);
        caplen = 14 + iplen;
        if (caplen > snaplen)
            caplen = snaplen;
        putle32(ph, (uint32_t)(r->ts / 1000000000LL));
        putle32(ph + 4, (uint32_t)(r->ts % 1000000000LL));
        putle32(ph + 8, caplen);
        putle32(ph + 12, 14 + iplen);
        fwrite(ph, 1, 16, out);
        fwrite(pkt, 1, caplen, out);
    }
}

int
main(int argc, char **argv)
{
    uint32_t snaplen = 65535;
    bool retry = false;
    size_t ci;
    FILE *out;
    int i;

    if (argc < 3) {
        fprintf(stderr, "usage: quicgen CASE OUT [--version 1|2] [--retry] [--snaplen N]\n"
                        "CASE: ect0 ect1 missing bleached swapped allce notect noanswer late vn vnonly\n");
        return 2;
    }
    for (ci = 0; ci < sizeof(case_names) / sizeof(case_names[0]); ci++)
        if (!strcmp(argv[1], case_names[ci]))
            break;
    if (ci == sizeof(case_names) / sizeof(case_names[0])) {
        fprintf(stderr, "quicgen: unknown case '%s'\n", argv[1]);
        return 2;
    }
    for (i = 3; i < argc; i++) {
        if (!strcmp(argv[i], "--retry")) {
            retry = true;
        } else if (!strcmp(argv[i], "--version") && i + 1 < argc) {
            i++;
            if (!strcmp(argv[i], "1")) {
                version = EW_QUIC_V1;
            } else if (!strcmp(argv[i], "2")) {
                version = EW_QUIC_V2;
            } else {
                fprintf(stderr, "quicgen: --version takes 1 or 2\n");
                return 2;
            }
        } else if (!strcmp(argv[i], "--snaplen") && i + 1 < argc) {
            snaplen = (uint32_t)strtoul(argv[++i], NULL, 10);
            if (snaplen < 64 || snaplen > 262144) {
                fprintf(stderr, "quicgen: --snaplen takes 64..262144\n");
                return 2;
            }
        } else {
            fprintf(stderr, "quicgen: unknown option '%s'\n", argv[i]);
            return 2;
        }
    }
    cx = ew_quic_crypto_new();
    if (!cx)
        die("no AES from libcrypto");
    generate((enum pcase)ci, retry);
    out = fopen(argv[2], "wb");
    if (!out) {
        perror(argv[2]);
        return 3;
    }
    write_pcap(out, snaplen);
    if (fclose(out) != 0) {
        perror(argv[2]);
        return 3;
    }
    ew_quic_crypto_free(cx);
    return 0;
}
