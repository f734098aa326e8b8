/* quic.c - QUIC headers, Initial packet protection and the Initial ACK
 * frames' ECN counts (see quic.h). Facts: RFC 9000 (transport), RFC 9001
 * (packet protection), RFC 9369 (version 2). */
#include "ecnwatch/quic.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>
#include <openssl/hmac.h>

#include "ecnwatch/ecn.h"
#include "ecnwatch/flow.h"
#include "ecnwatch/jw.h"

const char *const ew_quic_ptype_name[EW_QP_COUNT] = {
    [EW_QP_INITIAL] = "initial", [EW_QP_0RTT] = "0rtt",  [EW_QP_HANDSHAKE] = "handshake",
    [EW_QP_RETRY] = "retry",     [EW_QP_VN] = "version_negotiation", [EW_QP_SHORT] = "short",
};
const char *const ew_quic_verdict_name[] = {
    [EW_QV_NOT_ECN] = "not_ecn",         [EW_QV_VALIDATED] = "ecn_validated",
    [EW_QV_FAILED] = "ecn_failed",       [EW_QV_L4S_CANDIDATE] = "l4s_candidate",
    [EW_QV_UNKNOWN] = "unknown",
};
const char *const ew_quic_fail_name[] = {
    [EW_QF_NONE] = "none",           [EW_QF_COUNTS_MISSING] = "counts_missing",
    [EW_QF_BLEACHED] = "bleached",   [EW_QF_UNDERCOUNT] = "undercount",
    [EW_QF_REMARKED] = "remarked",   [EW_QF_ALL_CE] = "all_ce",
    [EW_QF_DECREASED] = "counts_decreased",
};
const char *const ew_quic_dir_result_name[] = {
    [EW_QD_NOT_ECT] = "not_ect",     [EW_QD_NO_ACK] = "no_ack",
    [EW_QD_VALIDATED] = "validated", [EW_QD_FAILED] = "failed",
};

/* RFC 9001 §5.2 and RFC 9369 §3.3.1 */
static const uint8_t salt_v1[20] = {0x38, 0x76, 0x2c, 0xf7, 0xf5, 0x59, 0x34, 0xb3, 0x4d, 0x17,
                                    0x9a, 0xe6, 0xa4, 0xc8, 0x0c, 0xad, 0xcc, 0xbb, 0x7f, 0x0a};
static const uint8_t salt_v2[20] = {0x0d, 0xed, 0xe3, 0xde, 0xf7, 0x00, 0xa6, 0xdb, 0x81, 0x93,
                                    0x81, 0xbe, 0x6e, 0x26, 0x9d, 0xcb, 0xf9, 0xbd, 0x2e, 0xd9};

#define SCRATCH_LEN 65536 /* a decrypted payload: no UDP datagram is larger */

static bool
known_version(uint32_t v)
{
    return v == EW_QUIC_V1 || v == EW_QUIC_V2;
}

/* RFC 9000 §17.2 Table 5; RFC 9369 §3.2 */
static enum ew_quic_ptype
long_type(uint32_t version, unsigned bits)
{
    static const enum ew_quic_ptype v1[4] = {EW_QP_INITIAL, EW_QP_0RTT, EW_QP_HANDSHAKE,
                                             EW_QP_RETRY};
    static const enum ew_quic_ptype v2[4] = {EW_QP_RETRY, EW_QP_INITIAL, EW_QP_0RTT,
                                             EW_QP_HANDSHAKE};

    return version == EW_QUIC_V2 ? v2[bits & 3] : v1[bits & 3];
}

bool
ew_quic_varint(struct ew_cur *c, uint64_t *v)
{
    uint8_t b;
    size_t n, i;

    *v = 0;
    if (!ew_cur_peek_u8(c, &b)) {
        c->trunc = true;
        return false;
    }
    n = (size_t)1 << (b >> 6);
    if (!ew_cur_has(c, n)) {
        c->trunc = true;
        c->p = c->end;
        return false;
    }
    *v = b & 0x3f;
    for (i = 1; i < n; i++)
        *v = (*v << 8) | c->p[i];
    c->p += n;
    return true;
}

/* copy a connection ID of len bytes (keeping at most EW_QUIC_CID_MAX) */
static bool
read_cid(struct ew_cur *c, uint8_t len, uint8_t *dst)
{
    size_t keep = len < EW_QUIC_CID_MAX ? len : EW_QUIC_CID_MAX;

    if (!ew_cur_has(c, len)) {
        c->trunc = true;
        c->p = c->end;
        return false;
    }
    memcpy(dst, c->p, keep);
    c->p += len;
    return true;
}

enum ew_quic_hdr_result
ew_quic_parse_header(const uint8_t *buf, size_t avail, size_t claimed, bool known_quic,
                     struct ew_quic_hdr *h)
{
    struct ew_cur c;
    uint8_t b0;
    size_t off;
    uint64_t v;

    memset(h, 0, sizeof(*h));
    if (avail > claimed)
        avail = claimed;
    if (claimed == 0)
        return EW_QH_NOT_QUIC;
    if (avail == 0)
        return EW_QH_TRUNC;
    ew_cur_init(&c, buf, avail);
    b0 = ew_cur_u8(&c);
    if (!(b0 & 0x80)) {
        /* short header (RFC 9000 §17.3.1): the DCID length is the endpoints'
         * secret; at least a packet number and a sample. The fixed bit may
         * be greased once the flow is QUIC (RFC 9287 §3.1) */
        if (!known_quic || claimed < 1 + 4 + 16)
            return EW_QH_NOT_QUIC;
        h->type = EW_QP_SHORT;
        h->len = claimed;
        return EW_QH_OK;
    }
    h->version = ew_cur_be32(&c);
    h->dcid_len = ew_cur_u8(&c);
    if (c.trunc)
        return EW_QH_TRUNC;
    if (h->version == 0) {
        /* Version Negotiation (RFC 9000 §17.2.1): any CID lengths, then a
         * list of 32-bit versions filling the datagram */
        if (!known_quic)
            return EW_QH_NOT_QUIC;
        if (!read_cid(&c, h->dcid_len, h->dcid))
            return EW_QH_TRUNC;
        h->scid_len = ew_cur_u8(&c);
        if (c.trunc || !read_cid(&c, h->scid_len, h->scid))
            return EW_QH_TRUNC;
        off = (size_t)(c.p - buf);
        if (claimed - off < 4 || (claimed - off) % 4 != 0)
            return EW_QH_NOT_QUIC;
        h->type = EW_QP_VN;
        h->len = claimed;
        return EW_QH_OK;
    }
    /* versions 1 and 2: CIDs of at most 20 bytes (§17.2) */
    if (!known_version(h->version) || h->dcid_len > EW_QUIC_CID_MAX)
        return EW_QH_NOT_QUIC;
    if (!read_cid(&c, h->dcid_len, h->dcid))
        return EW_QH_TRUNC;
    h->scid_len = ew_cur_u8(&c);
    if (c.trunc)
        return EW_QH_TRUNC;
    if (h->scid_len > EW_QUIC_CID_MAX)
        return EW_QH_NOT_QUIC;
    if (!read_cid(&c, h->scid_len, h->scid))
        return EW_QH_TRUNC;
    h->type = long_type(h->version, (b0 >> 4) & 3u);
    if (h->type == EW_QP_RETRY && !(b0 & 0x40) && !known_quic)
        return EW_QH_NOT_QUIC;
    if (h->type == EW_QP_RETRY) {
        /* a non-empty token and the 16-byte integrity tag (§17.2.5) */
        off = (size_t)(c.p - buf);
        if (claimed - off < 1 + 16)
            return EW_QH_NOT_QUIC;
        h->len = claimed;
        return EW_QH_OK;
    }
    if (h->type == EW_QP_INITIAL) {
        if (!ew_quic_varint(&c, &h->token_len))
            return EW_QH_TRUNC;
        off = (size_t)(c.p - buf);
        if (h->token_len > claimed - off)
            return EW_QH_NOT_QUIC;
        if (!ew_cur_skip(&c, (size_t)h->token_len))
            return EW_QH_TRUNC;
    }
    /* The fixed bit is set, but for peers that grease it (RFC 9287 §3.1):
     * after the transport parameters, so on flows already QUIC, and in a
     * client's first Initial only with a token from NEW_TOKEN */
    if (!(b0 & 0x40) && !known_quic && !(h->type == EW_QP_INITIAL && h->token_len > 0))
        return EW_QH_NOT_QUIC;
    if (!ew_quic_varint(&c, &v))
        return EW_QH_TRUNC;
    off = (size_t)(c.p - buf);
    /* Length covers the packet number and the payload; the header
     * protection sample needs 4 + 16 bytes of them (RFC 9001 §5.4.2) */
    if (v < 4 + 16 || v > claimed - off)
        return EW_QH_NOT_QUIC;
    h->pn_offset = off;
    h->len = off + (size_t)v;
    h->has_length = true;
    return EW_QH_OK;
}

/* ------------------------------------------------------------ key derivation */

/* HKDF-Expand-Label (RFC 8446 §7.1) with an empty context, for outputs of at
 * most one SHA-256 block: T(1) = HMAC(secret, HkdfLabel || 0x01) */
static int
expand_label(const uint8_t *secret, size_t slen, const char *label, uint8_t *out, size_t outlen)
{
    uint8_t info[2 + 1 + 6 + 32 + 1 + 1], t[32];
    unsigned tl = 0;
    size_t ll = strlen(label), n = 0;

    if (outlen > sizeof(t) || ll > 32)
        return -1;
    info[n++] = (uint8_t)(outlen >> 8);
    info[n++] = (uint8_t)outlen;
    info[n++] = (uint8_t)(6 + ll);
    memcpy(info + n, "tls13 ", 6);
    n += 6;
    memcpy(info + n, label, ll);
    n += ll;
    info[n++] = 0;    /* context: empty */
    info[n++] = 0x01; /* HKDF-Expand block counter */
    if (!HMAC(EVP_sha256(), secret, (int)slen, info, n, t, &tl) || tl != sizeof(t))
        return -1;
    memcpy(out, t, outlen);
    return 0;
}

static int
derive_keys(const uint8_t secret[32], bool v2, struct ew_quic_keys *k)
{
    /* RFC 9001 §5.1; RFC 9369 §3.3.2 */
    if (expand_label(secret, 32, v2 ? "quicv2 key" : "quic key", k->key, sizeof(k->key)) ||
        expand_label(secret, 32, v2 ? "quicv2 iv" : "quic iv", k->iv, sizeof(k->iv)) ||
        expand_label(secret, 32, v2 ? "quicv2 hp" : "quic hp", k->hp, sizeof(k->hp)))
        return -1;
    return 0;
}

int
ew_quic_derive_initial(uint32_t version, const uint8_t *dcid, size_t dcid_len,
                       struct ew_quic_initial_secrets *out)
{
    static const uint8_t empty[1];
    bool v2 = version == EW_QUIC_V2;
    unsigned l = 0;

    memset(out, 0, sizeof(*out));
    if (!known_version(version) || dcid_len > EW_QUIC_CID_MAX)
        return -1;
    /* HKDF-Extract(salt, IKM) = HMAC(salt, IKM); the DCID may be empty */
    if (!HMAC(EVP_sha256(), v2 ? salt_v2 : salt_v1, 20, dcid_len ? dcid : empty, dcid_len,
              out->initial, &l) ||
        l != 32)
        return -1;
    if (expand_label(out->initial, 32, "client in", out->client, 32) ||
        expand_label(out->initial, 32, "server in", out->server, 32) ||
        derive_keys(out->client, v2, &out->ck) || derive_keys(out->server, v2, &out->sk))
        return -1;
    return 0;
}

/* ------------------------------------------------------------ packet protection */

struct ew_quic_crypto {
    EVP_CIPHER *ecb_alg, *gcm_alg;
    EVP_CIPHER_CTX *ecb, *gcm;
};

void
ew_quic_crypto_free(struct ew_quic_crypto *cx)
{
    if (!cx)
        return;
    EVP_CIPHER_CTX_free(cx->ecb);
    EVP_CIPHER_CTX_free(cx->gcm);
    EVP_CIPHER_free(cx->ecb_alg);
    EVP_CIPHER_free(cx->gcm_alg);
    free(cx);
}

/* the contexts are bound to their ciphers once; each packet only sets keys */
struct ew_quic_crypto *
ew_quic_crypto_new(void)
{
    struct ew_quic_crypto *cx = calloc(1, sizeof(*cx));

    if (!cx)
        return NULL;
    cx->ecb_alg = EVP_CIPHER_fetch(NULL, "AES-128-ECB", NULL);
    cx->gcm_alg = EVP_CIPHER_fetch(NULL, "AES-128-GCM", NULL);
    cx->ecb = EVP_CIPHER_CTX_new();
    cx->gcm = EVP_CIPHER_CTX_new();
    if (!cx->ecb_alg || !cx->gcm_alg || !cx->ecb || !cx->gcm ||
        EVP_CipherInit_ex(cx->ecb, cx->ecb_alg, NULL, NULL, NULL, 1) != 1 ||
        EVP_CIPHER_CTX_set_padding(cx->ecb, 0) != 1 ||
        EVP_CipherInit_ex(cx->gcm, cx->gcm_alg, NULL, NULL, NULL, 0) != 1) {
        ew_quic_crypto_free(cx);
        return NULL;
    }
    return cx;
}

/* AES-based header protection: mask = AES-ECB(hp, sample) (RFC 9001 §5.4.3) */
static int
hp_mask(struct ew_quic_crypto *cx, const uint8_t hp[16], const uint8_t *sample, uint8_t mask[16])
{
    int outl = 0;

    if (EVP_CipherInit_ex(cx->ecb, NULL, NULL, hp, NULL, 1) != 1 ||
        EVP_CipherUpdate(cx->ecb, mask, &outl, sample, 16) != 1 || outl != 16)
        return -1;
    return 0;
}

/* RFC 9000 App. A.3: the packet number closest to the next expected one */
static uint64_t
decode_pn(int64_t largest, uint64_t truncated, unsigned bits)
{
    int64_t expected = largest + 1;
    int64_t win = (int64_t)1 << bits, hwin = win / 2, mask = win - 1;
    int64_t cand = (expected & ~mask) | (int64_t)truncated;

    if (cand <= expected - hwin && cand < ((int64_t)1 << 62) - win)
        return (uint64_t)(cand + win);
    if (cand > expected + hwin && cand >= win)
        return (uint64_t)(cand - win);
    return (uint64_t)cand;
}

/* nonce = iv XOR the packet number, left-padded (RFC 9001 §5.3) */
static void
make_nonce(const uint8_t iv[12], uint64_t pn, uint8_t nonce[12])
{
    int i;

    memcpy(nonce, iv, 12);
    for (i = 0; i < 8; i++)
        nonce[11 - i] ^= (uint8_t)(pn >> (8 * i));
}

long
ew_quic_open(struct ew_quic_crypto *cx, const struct ew_quic_keys *k, const uint8_t *pkt,
             const struct ew_quic_hdr *h, int64_t largest_pn, uint8_t *out, size_t room,
             uint64_t *pn)
{
    size_t pno = h->pn_offset, len = h->len, pn_len, ct_len, i;
    uint8_t mask[16], first, pnb[4], nonce[12], tag[EW_QUIC_TAG_LEN];
    uint64_t truncated = 0, full;
    int outl = 0, fl = 0;

    *pn = 0;
    if (!cx || !h->has_length || pno < 7 || pno + 4 + 16 > len)
        return -1;
    if (hp_mask(cx, k->hp, pkt + pno + 4, mask))
        return -1;
    first = (uint8_t)(pkt[0] ^ (mask[0] & 0x0f));
    /* the reserved bits must be 0 once protection is off (RFC 9000 §17.2) */
    if (first & 0x0c)
        return -1;
    pn_len = (size_t)(first & 3) + 1;
    for (i = 0; i < pn_len; i++) {
        pnb[i] = (uint8_t)(pkt[pno + i] ^ mask[1 + i]);
        truncated = (truncated << 8) | pnb[i];
    }
    full = decode_pn(largest_pn, truncated, (unsigned)(8 * pn_len));
    ct_len = len - pno - pn_len - EW_QUIC_TAG_LEN;
    if (ct_len > room || ct_len > (size_t)INT32_MAX)
        return -1;
    make_nonce(k->iv, full, nonce);
    /* AAD: the header with protection removed, through the packet number */
    if (EVP_CipherInit_ex(cx->gcm, NULL, NULL, k->key, nonce, 0) != 1 ||
        EVP_CipherUpdate(cx->gcm, NULL, &outl, &first, 1) != 1 ||
        EVP_CipherUpdate(cx->gcm, NULL, &outl, pkt + 1, (int)(pno - 1)) != 1 ||
        EVP_CipherUpdate(cx->gcm, NULL, &outl, pnb, (int)pn_len) != 1)
        return -1;
    outl = 0;
    if (ct_len > 0 &&
        EVP_CipherUpdate(cx->gcm, out, &outl, pkt + pno + pn_len, (int)ct_len) != 1)
        return -1;
    memcpy(tag, pkt + pno + pn_len + ct_len, sizeof(tag));
    if (EVP_CIPHER_CTX_ctrl(cx->gcm, EVP_CTRL_GCM_SET_TAG, (int)sizeof(tag), tag) != 1 ||
        EVP_CipherFinal_ex(cx->gcm, out + outl, &fl) != 1)
        return -1;
    *pn = full;
    return (long)ct_len;
}

long
ew_quic_seal(struct ew_quic_crypto *cx, const struct ew_quic_keys *k, const uint8_t *hdr,
             size_t hdr_len, size_t pn_offset, uint64_t pn, const uint8_t *payload, size_t plen,
             uint8_t *out, size_t room)
{
    size_t pn_len, total, i;
    uint8_t mask[16], nonce[12];
    int outl = 0, fl = 0;

    if (!cx || hdr_len == 0)
        return -1;
    pn_len = (size_t)(hdr[0] & 3) + 1;
    total = hdr_len + plen + EW_QUIC_TAG_LEN;
    if (pn_offset + pn_len != hdr_len || pn_len + plen < 4 || total > room ||
        hdr_len > (size_t)INT32_MAX || plen > (size_t)INT32_MAX)
        return -1;
    memcpy(out, hdr, hdr_len);
    make_nonce(k->iv, pn, nonce);
    if (EVP_CipherInit_ex(cx->gcm, NULL, NULL, k->key, nonce, 1) != 1 ||
        EVP_CipherUpdate(cx->gcm, NULL, &outl, hdr, (int)hdr_len) != 1)
        return -1;
    outl = 0;
    if (plen > 0 && EVP_CipherUpdate(cx->gcm, out + hdr_len, &outl, payload, (int)plen) != 1)
        return -1;
    if (EVP_CipherFinal_ex(cx->gcm, out + hdr_len + (size_t)outl, &fl) != 1 ||
        EVP_CIPHER_CTX_ctrl(cx->gcm, EVP_CTRL_GCM_GET_TAG, EW_QUIC_TAG_LEN,
                            out + hdr_len + plen) != 1)
        return -1;
    /* header protection over the ciphertext (RFC 9001 §5.4.1) */
    if (hp_mask(cx, k->hp, out + pn_offset + 4, mask))
        return -1;
    out[0] ^= (uint8_t)(mask[0] & ((out[0] & 0x80) ? 0x0f : 0x1f));
    for (i = 0; i < pn_len; i++)
        out[pn_offset + i] ^= mask[1 + i];
    return (long)total;
}

/* ------------------------------------------------------------ frames */

/* packet numbers lo..hi among 0..EW_QUIC_PN_TRACK-1, as a bit mask */
static uint64_t
range_mask(uint64_t lo, uint64_t hi)
{
    uint64_t top;

    if (lo >= EW_QUIC_PN_TRACK || lo > hi)
        return 0;
    top = hi >= EW_QUIC_PN_TRACK - 1 ? ~(uint64_t)0 : ((uint64_t)1 << (hi + 1)) - 1;
    return top & ~(((uint64_t)1 << lo) - 1);
}

/* ACK frame (RFC 9000 §19.3, §19.3.1): ranges run downwards from Largest */
static bool
parse_ack(struct ew_cur *c, bool ecn, struct ew_quic_frames *fr)
{
    uint64_t largest, delay, count, first, gap, rlen, smallest, hi, i, mask;
    uint64_t e0 = 0, e1 = 0, ce = 0;

    if (!ew_quic_varint(c, &largest) || !ew_quic_varint(c, &delay) ||
        !ew_quic_varint(c, &count) || !ew_quic_varint(c, &first))
        return false;
    if (first > largest)
        return false;
    smallest = largest - first;
    mask = range_mask(smallest, largest);
    /* each range takes at least two bytes: the loop ends with the payload */
    for (i = 0; i < count; i++) {
        if (!ew_quic_varint(c, &gap) || !ew_quic_varint(c, &rlen))
            return false;
        if (gap + 2 > smallest)
            return false;
        hi = smallest - gap - 2;
        if (rlen > hi)
            return false;
        smallest = hi - rlen;
        mask |= range_mask(smallest, hi);
    }
    if (ecn && (!ew_quic_varint(c, &e0) || !ew_quic_varint(c, &e1) || !ew_quic_varint(c, &ce)))
        return false;
    if (fr->acks == 0 || largest > fr->ack.largest)
        fr->ack.largest = largest;
    fr->ack.acked_mask |= mask;
    if (ecn) {
        fr->ack.ecn = true;
        fr->ack.ect0 = e0;
        fr->ack.ect1 = e1;
        fr->ack.ce = ce;
        fr->ack_ecn_seen = true;
    }
    fr->acks++;
    return true;
}

static bool
skip_len(struct ew_cur *c, uint64_t n)
{
    if (n > ew_cur_left(c))
        return false;
    c->p += (size_t)n;
    return true;
}

void
ew_quic_parse_frames(const uint8_t *p, size_t len, struct ew_quic_frames *fr)
{
    struct ew_cur c;
    uint64_t type, a, b, n;
    uint8_t z;

    memset(fr, 0, sizeof(*fr));
    if (len == 0)
        return;
    ew_cur_init(&c, p, len);
    while (ew_cur_left(&c) > 0) {
        if (!ew_quic_varint(&c, &type)) {
            fr->malformed = true;
            return;
        }
        switch (type) {
        case 0x00: /* PADDING: runs of zero bytes */
            fr->padding++;
            while (ew_cur_peek_u8(&c, &z) && z == 0)
                c.p++;
            break;
        case 0x01: /* PING */
            fr->ping++;
            break;
        case 0x02:
        case 0x03:
            if (!parse_ack(&c, type == 0x03, fr)) {
                fr->malformed = true;
                return;
            }
            break;
        case 0x06: /* CRYPTO: Offset, Length, Data (§19.6) */
            if (!ew_quic_varint(&c, &a) || !ew_quic_varint(&c, &n) || !skip_len(&c, n) ||
                a + n > ((uint64_t)1 << 62) - 1) {
                fr->malformed = true;
                return;
            }
            fr->crypto++;
            fr->crypto_bytes += n;
            break;
        case 0x1c:
        case 0x1d: /* CONNECTION_CLOSE (§19.19): the frame type only in 0x1c */
            if (!ew_quic_varint(&c, &a) || (type == 0x1c && !ew_quic_varint(&c, &b)) ||
                !ew_quic_varint(&c, &n) || !skip_len(&c, n)) {
                fr->malformed = true;
                return;
            }
            fr->close++;
            fr->close_error = a;
            break;
        default:
            /* any other frame's length is unknown here: stop */
            fr->stopped = true;
            fr->stop_type = type;
            return;
        }
    }
}

/* ------------------------------------------------------------ the pool */

/* Entries come in chunks allocated as connections appear, so that memory
 * follows the QUIC connections held, not the flow table's size. */
#define POOL_CHUNK 1024u

struct ew_quic_pool {
    struct ew_quic_conn **chunk; /* cap / POOL_CHUNK + 1 pointers */
    uint32_t cap, used;
    uint32_t free_head;       /* index + 1 of the first free entry; 0: none */
    bool alloc_failed;        /* out of memory once: take no more */
    struct ew_quic_crypto *cx;
    bool cx_failed;
    uint8_t *scratch;         /* one decrypted payload */
};

struct ew_quic_pool *
ew_quic_pool_new(uint32_t cap)
{
    struct ew_quic_pool *p = calloc(1, sizeof(*p));

    if (!p)
        return NULL;
    p->cap = cap ? cap : 1;
    p->chunk = calloc(p->cap / POOL_CHUNK + 1, sizeof(*p->chunk));
    if (!p->chunk) {
        free(p);
        return NULL;
    }
    return p;
}

void
ew_quic_pool_free(struct ew_quic_pool *p)
{
    uint32_t i;

    if (!p)
        return;
    ew_quic_crypto_free(p->cx);
    free(p->scratch);
    for (i = 0; i <= p->cap / POOL_CHUNK; i++)
        free(p->chunk[i]);
    free(p->chunk);
    free(p);
}

static struct ew_quic_conn *
entry(const struct ew_quic_pool *p, uint32_t i)
{
    return &p->chunk[i / POOL_CHUNK][i % POOL_CHUNK];
}

static struct ew_quic_conn *
conn_take(struct ew_quic_pool *p)
{
    struct ew_quic_conn *c;
    uint32_t i;

    if (p->free_head) {
        i = p->free_head - 1;
        c = entry(p, i);
        p->free_head = c->next_free;
    } else if (p->used < p->cap && !p->alloc_failed) {
        i = p->used;
        if (!p->chunk[i / POOL_CHUNK]) {
            /* i starts the chunk; the last chunk holds only what cap allows */
            size_t n = p->cap - i < POOL_CHUNK ? p->cap - i : POOL_CHUNK;

            p->chunk[i / POOL_CHUNK] = malloc(n * sizeof(**p->chunk));
            if (!p->chunk[i / POOL_CHUNK]) {
                p->alloc_failed = true;
                return NULL;
            }
        }
        p->used++;
        c = entry(p, i);
    } else {
        return NULL; /* more QUIC flows than flow records: cannot happen */
    }
    memset(c, 0, sizeof(*c));
    c->self = i;
    c->dir[0].largest_pn = c->dir[1].largest_pn = -1;
    c->dir[0].largest_acked = c->dir[1].largest_acked = -1;
    return c;
}

void
ew_quic_release(struct ew_quic_pool *p, const struct ew_flow *f)
{
    uint32_t i;

    if (!p || !f->quic)
        return;
    i = f->quic->self;
    if (i >= p->used || entry(p, i) != f->quic)
        return;
    f->quic->next_free = p->free_head;
    p->free_head = i + 1;
}

static bool
crypto_ready(struct ew_quic_pool *p)
{
    if (p->cx)
        return true;
    if (p->cx_failed)
        return false;
    p->cx = ew_quic_crypto_new();
    p->scratch = malloc(SCRATCH_LEN);
    if (!p->cx || !p->scratch) {
        ew_quic_crypto_free(p->cx);
        free(p->scratch);
        p->cx = NULL;
        p->scratch = NULL;
        p->cx_failed = true;
        return false;
    }
    return true;
}

/* ------------------------------------------------------------ per connection */

static void
first(uint64_t *slot, uint64_t frame)
{
    if (*slot == 0)
        *slot = frame;
}

static void
inc32(uint32_t *v)
{
    if (*v < UINT32_MAX)
        (*v)++;
}

static unsigned
popcount64(uint64_t v)
{
    return (unsigned)__builtin_popcountll(v);
}

/* keys from dcid for version, kept for the connection */
static int
adopt(struct ew_quic_conn *c, uint32_t version, const uint8_t *dcid, uint8_t dcid_len)
{
    struct ew_quic_initial_secrets s;

    if (ew_quic_derive_initial(version, dcid, dcid_len, &s))
        return -1;
    if (dcid != c->dcid)
        memcpy(c->dcid, dcid, dcid_len);
    c->dcid_len = dcid_len;
    c->keys[0] = s.ck;
    c->keys[1] = s.sk;
    c->key_version = version;
    return 0;
}

/* Open an Initial packet of direction dir. The client's first Initial gives
 * the keys of both directions (RFC 9001 §5.2); a client Initial that does not
 * open with them follows a Retry and uses keys from its own DCID, which from
 * then on are the keys of both directions. */
static long
open_initial(struct ew_quic_pool *p, struct ew_quic_conn *c, struct ew_flow *f, int dir,
             const uint8_t *pkt, const struct ew_quic_hdr *h, uint64_t *pn)
{
    struct ew_quic_initial_secrets s;
    int64_t largest = c->dir[dir].largest_pn;
    long n;

    if (!c->have_client) {
        if (ew_quic_derive_initial(h->version, h->dcid, h->dcid_len, &s))
            return -1;
        n = ew_quic_open(p->cx, &s.ck, pkt, h, largest, p->scratch, SCRATCH_LEN, pn);
        if (n < 0 || adopt(c, h->version, h->dcid, h->dcid_len))
            return -1;
        c->have_client = true;
        c->client_dir = (uint8_t)dir;
        if (f->client_from == EW_CLIENT_FIRST_PACKET)
            f->client_dir = (uint8_t)dir;
        return n;
    }
    /* a second version (compatible negotiation, RFC 9369 §4.1): its keys
     * come from the same DCID */
    if (h->version != c->key_version && adopt(c, h->version, c->dcid, c->dcid_len))
        return -1;
    n = ew_quic_open(p->cx, &c->keys[dir == c->client_dir ? 0 : 1], pkt, h, largest, p->scratch,
                     SCRATCH_LEN, pn);
    if (n >= 0 || dir != c->client_dir)
        return n;
    if (ew_quic_derive_initial(h->version, h->dcid, h->dcid_len, &s))
        return -1;
    n = ew_quic_open(p->cx, &s.ck, pkt, h, largest, p->scratch, SCRATCH_LEN, pn);
    if (n >= 0 && adopt(c, h->version, h->dcid, h->dcid_len))
        return -1;
    return n;
}

/* The peer's ACK over d's Initial packets, validated as d's sender would
 * (RFC 9000 §13.4.2.1) against the codepoints they passed here with. */
static void
on_ack(struct ew_quic_conn *c, int d, const struct ew_quic_ack *a, uint64_t frame)
{
    struct ew_quic_dir *q = &c->dir[d];
    uint64_t newly = a->acked_mask & q->pn_seen & ~q->pn_acked;
    uint64_t n0 = popcount64(newly & q->cp_hi & ~q->cp_lo);  /* ECT(0) = 0b10 */
    uint64_t n1 = popcount64(newly & ~q->cp_hi & q->cp_lo);  /* ECT(1) = 0b01 */
    uint64_t nce = popcount64(newly & q->cp_hi & q->cp_lo);  /* CE = 0b11 */
    uint64_t nne = popcount64(newly) - n0 - n1 - nce;
    uint64_t d0 = 0, d1 = 0, dce = 0;
    bool decreased = false;
    bool grew = a->largest < (uint64_t)INT64_MAX && (int64_t)a->largest > q->largest_acked;
    enum ew_quic_fail fail = EW_QF_NONE;

    inc32(&q->acks);
    first(&q->ack_frame, frame);
    q->pn_acked |= newly;
    q->acked_cp[EW_ECN_NOT_ECT] += (uint32_t)nne;
    q->acked_cp[EW_ECN_ECT_0] += (uint32_t)n0;
    q->acked_cp[EW_ECN_ECT_1] += (uint32_t)n1;
    q->acked_cp[EW_ECN_CE] += (uint32_t)nce;
    if (grew)
        q->largest_acked = (int64_t)a->largest;
    if (a->ecn) {
        inc32(&q->acks_ecn);
        q->ecn_ack_frame = frame;
        decreased = a->ect0 < q->rep[0] || a->ect1 < q->rep[1] || a->ce < q->rep[2];
        if (!decreased) {
            d0 = a->ect0 - q->rep[0];
            d1 = a->ect1 - q->rep[1];
            dce = a->ce - q->rep[2];
        }
    } else if (n0 + n1 + nce > 0) {
        inc32(&q->plain_on_ect);
        first(&q->plain_ack_frame, frame);
    }

    /* an ACK that does not raise the largest acknowledged must not fail
     * validation (reordered ACKs) */
    if (grew && !q->fail) {
        if (!a->ecn) {
            if (n0 + n1 + nce > 0)
                fail = EW_QF_COUNTS_MISSING;
        } else if (decreased) {
            fail = EW_QF_DECREASED;
        } else if ((a->ect0 > 0 && q->initials[EW_ECN_ECT_0] == 0) ||
                   (a->ect1 > 0 && q->initials[EW_ECN_ECT_1] == 0)) {
            /* a count of a codepoint never applied: remarked on the path */
            fail = EW_QF_REMARKED;
        } else if ((n0 && d0 + dce < n0 + nce) || (n1 && d1 + dce < n1 + nce) ||
                   (!n0 && !n1 && nce && dce < nce)) {
            if (a->ect0 == 0 && a->ect1 == 0 && a->ce == 0)
                fail = EW_QF_BLEACHED;
            else if ((n0 && d1 > 0) || (n1 && d0 > 0))
                fail = EW_QF_REMARKED;
            else
                fail = EW_QF_UNDERCOUNT;
        } else if (n0 + n1 + nce > 0) {
            inc32(&q->validated);
        }
        if (fail) {
            q->fail = (uint8_t)fail;
            q->fail_frame = frame;
        }
    }
    /* keep the highest counts: a reordered older ACK does not lower them */
    if (a->ecn && !decreased) {
        q->rep[0] = a->ect0;
        q->rep[1] = a->ect1;
        q->rep[2] = a->ce;
    }
}

static void
on_initial(struct ew_quic_pool *p, struct ew_quic_conn *c, struct ew_flow *f, int dir,
           uint8_t ecn, const uint8_t *pkt, size_t avail, const struct ew_quic_hdr *h,
           uint64_t frame)
{
    struct ew_quic_dir *q = &c->dir[dir];
    struct ew_quic_frames fr;
    unsigned cp = ecn & EW_ECN_MASK;
    uint64_t pn = 0;
    long n;

    inc32(&q->initials[cp]);
    first(&q->first_frame, frame);
    if (cp != EW_ECN_NOT_ECT)
        first(&q->first_ect_frame, frame);
    /* cut by the snaplen, or no crypto library to be had */
    if (h->len > avail || !crypto_ready(p)) {
        inc32(&c->unopened);
        return;
    }
    n = open_initial(p, c, f, dir, pkt, h, &pn);
    if (n < 0) {
        inc32(&c->unopened);
        return;
    }
    inc32(&q->opened);
    if ((int64_t)pn > q->largest_pn)
        q->largest_pn = (int64_t)pn;
    if (pn < EW_QUIC_PN_TRACK && !(q->pn_seen & ((uint64_t)1 << pn))) {
        uint64_t bit = (uint64_t)1 << pn;

        q->pn_seen |= bit;
        if (cp & 2)
            q->cp_hi |= bit;
        if (cp & 1)
            q->cp_lo |= bit;
    }
    ew_quic_parse_frames(p->scratch, (size_t)n, &fr);
    if (fr.stopped || fr.malformed)
        inc32(&c->frames_stopped);
    if (fr.close) {
        first(&c->close_frame, frame);
        c->close_error = fr.close_error;
    }
    /* an ACK in this direction's Initial acknowledges the other's */
    if (fr.acks)
        on_ack(c, dir ^ 1, &fr.ack, frame);
}

void
ew_quic_datagram(struct ew_quic_pool *p, struct ew_flow *f, int dir, uint8_t ecn,
                 const uint8_t *data, uint32_t caplen, uint32_t wirelen, uint64_t frame)
{
    struct ew_quic_conn *c = f->quic;
    struct ew_quic_hdr h;
    size_t avail = caplen, claimed = wirelen, off = 0;
    unsigned npk = 0;

    if (!p || !data || caplen == 0 || (dir != 0 && dir != 1))
        return;
    if (avail > claimed)
        avail = claimed;
    /* coalesced packets: each Length says where the next starts (§12.2) */
    while (off < avail) {
        if (ew_quic_parse_header(data + off, avail - off, claimed - off, c != NULL, &h) !=
            EW_QH_OK)
            break;
        if (!c) {
            c = conn_take(p);
            if (!c)
                return;
            c->version = h.version;
            c->first_frame = frame;
            f->quic = c;
        }
        npk++;
        inc32(&c->packets[h.type]);
        if (h.version && h.version != c->version)
            c->version_changed = true;
        if (h.type == EW_QP_INITIAL)
            on_initial(p, c, f, dir, ecn, data + off, avail - off, &h, frame);
        else if (h.type == EW_QP_RETRY)
            c->retry = true;
        if (!h.has_length)
            break;
        off += h.len;
    }
    if (npk > 1)
        inc32(&c->coalesced);
}

/* ------------------------------------------------------------ conclusions */

static const char *
role(const struct ew_flow *f, int d)
{
    return d == f->client_dir ? "client" : "server";
}

static uint32_t
ect_initials(const struct ew_quic_dir *q)
{
    return q->initials[EW_ECN_ECT_0] + q->initials[EW_ECN_ECT_1] + q->initials[EW_ECN_CE];
}

static void
conclude_dir(const struct ew_flow *f, int d, struct ew_quic_summary *s)
{
    const struct ew_quic_conn *c = f->quic;
    const struct ew_quic_dir *q = &c->dir[d];
    const char *me = role(f, d), *peer = role(f, d ^ 1);
    uint32_t ect = ect_initials(q);
    uint64_t acked = (uint64_t)q->acked_cp[EW_ECN_ECT_0] + q->acked_cp[EW_ECN_ECT_1] +
                     q->acked_cp[EW_ECN_CE];
    enum ew_quic_fail fail = (enum ew_quic_fail)q->fail;
    uint64_t frame = q->fail_frame;
    char *r = s->dir[d].reason;
    size_t rl = sizeof(s->dir[d].reason);
    bool sent1 = q->initials[EW_ECN_ECT_1] > q->initials[EW_ECN_ECT_0];

    /* every ECT packet reported CE: App. A.4 lets the sender fail the path */
    if (!fail && q->validated && q->rep[2] > 0 && q->rep[0] == 0 && q->rep[1] == 0) {
        fail = EW_QF_ALL_CE;
        frame = q->ecn_ack_frame;
    }
    s->dir[d].fail = fail;
    s->dir[d].first_frame = q->first_ect_frame;
    s->dir[d].count = acked ? acked : ect;
    if (fail) {
        s->dir[d].result = EW_QD_FAILED;
        s->dir[d].frame = frame;
    } else if (ect == 0) {
        s->dir[d].result = EW_QD_NOT_ECT;
        s->dir[d].frame = q->first_frame;
    } else if (q->validated) {
        s->dir[d].result = EW_QD_VALIDATED;
        s->dir[d].frame = q->ecn_ack_frame;
    } else {
        s->dir[d].result = EW_QD_NO_ACK;
        s->dir[d].frame = q->first_ect_frame;
    }
    switch (s->dir[d].result) {
    case EW_QD_NOT_ECT:
        snprintf(r, rl, "the %s's %u Initial packets are Not-ECT", me,
                 q->initials[EW_ECN_NOT_ECT]);
        return;
    case EW_QD_NO_ACK:
        snprintf(r, rl, "the %s sent %u ECN-capable Initial packets, but no Initial ACK from the "
                 "%s over them was read", me, ect, peer);
        return;
    case EW_QD_VALIDATED:
        snprintf(r, rl, "%u %s Initial packets from the %s; the %s's counts (ECT(0) %llu, "
                 "ECT(1) %llu, CE %llu) account for the %llu it acknowledged", ect,
                 sent1 ? "ECT(1)" : "ECT(0)", me, peer, (unsigned long long)q->rep[0],
                 (unsigned long long)q->rep[1], (unsigned long long)q->rep[2],
                 (unsigned long long)acked);
        return;
    case EW_QD_FAILED:
        break;
    }
    switch (fail) {
    case EW_QF_COUNTS_MISSING:
        snprintf(r, rl, "the %s's ACK in frame %llu acknowledges %llu ECN-capable Initial packets "
                 "without ECN counts: the %s does not report ECN, or the path clears it", peer,
                 (unsigned long long)frame, (unsigned long long)acked, peer);
        break;
    case EW_QF_BLEACHED:
        snprintf(r, rl, "the %s counts 0 for the %llu ECN-capable Initial packets it acknowledged "
                 "(frame %llu): the path clears the ECN field", peer, (unsigned long long)acked,
                 (unsigned long long)frame);
        break;
    case EW_QF_REMARKED:
        snprintf(r, rl, "the %s's Initial packets left here %s but the %s counts ECT(0) %llu, "
                 "ECT(1) %llu (frame %llu): the path rewrites the ECT codepoint", me,
                 sent1 ? "ECT(1)" : q->initials[EW_ECN_ECT_0] ? "ECT(0)" : "Not-ECT", peer,
                 (unsigned long long)q->rep[0], (unsigned long long)q->rep[1],
                 (unsigned long long)frame);
        break;
    case EW_QF_UNDERCOUNT:
        snprintf(r, rl, "the %s counts ECT(0) %llu, ECT(1) %llu, CE %llu (frame %llu) for %llu "
                 "ECN-capable Initial packets acknowledged: marks lost or not counted", peer,
                 (unsigned long long)q->rep[0], (unsigned long long)q->rep[1],
                 (unsigned long long)q->rep[2], (unsigned long long)frame,
                 (unsigned long long)acked);
        break;
    case EW_QF_ALL_CE:
        snprintf(r, rl, "the %s reports all %llu ECN-capable Initial packets of the %s CE (frame "
                 "%llu): a device marks every one (RFC 9000 App. A.4)", peer,
                 (unsigned long long)acked, me, (unsigned long long)frame);
        break;
    case EW_QF_DECREASED:
        snprintf(r, rl, "an ECN count in the %s's ACK in frame %llu is lower than before", peer,
                 (unsigned long long)frame);
        break;
    case EW_QF_NONE:
        break;
    }
}

bool
ew_quic_conclude(const struct ew_flow *f, struct ew_quic_summary *s)
{
    const struct ew_quic_conn *c = f->quic;
    int d, failed = -1, validated = -1, l4s = -1, no_ack = -1;
    uint32_t initials = 0;

    memset(s, 0, sizeof(*s));
    s->fail_dir = -1;
    if (!c)
        return false;
    for (d = 0; d < 2; d++) {
        const struct ew_quic_dir *q = &c->dir[d];

        conclude_dir(f, d, s);
        initials += q->initials[0] + ect_initials(q);
        switch (s->dir[d].result) {
        case EW_QD_FAILED:
            if (failed < 0 || s->dir[d].frame < s->dir[failed].frame)
                failed = d;
            break;
        case EW_QD_VALIDATED:
            if (q->initials[EW_ECN_ECT_1] > q->initials[EW_ECN_ECT_0] &&
                q->rep[1] + q->rep[2] > 0)
                l4s = d;
            else if (validated < 0)
                validated = d;
            break;
        case EW_QD_NO_ACK:
            no_ack = d;
            break;
        case EW_QD_NOT_ECT:
            break;
        }
    }
    if (failed >= 0) {
        s->verdict = EW_QV_FAILED;
        s->fail_dir = failed;
        snprintf(s->reason, sizeof(s->reason), "%s", s->dir[failed].reason);
    } else if (l4s >= 0) {
        s->verdict = EW_QV_L4S_CANDIDATE;
        snprintf(s->reason, sizeof(s->reason), "%s", s->dir[l4s].reason);
    } else if (validated >= 0) {
        s->verdict = EW_QV_VALIDATED;
        snprintf(s->reason, sizeof(s->reason), "%s", s->dir[validated].reason);
    } else if (initials == 0) {
        s->verdict = EW_QV_UNKNOWN;
        snprintf(s->reason, sizeof(s->reason),
                 "no Initial packet of this connection was seen (the capture starts later)");
    } else if (no_ack >= 0 && !c->have_client) {
        s->verdict = EW_QV_UNKNOWN;
        snprintf(s->reason, sizeof(s->reason),
                 "its Initial packets could not be decrypted: the client's first Initial is not "
                 "in the capture, or the snaplen cut it");
    } else if (no_ack >= 0) {
        s->verdict = EW_QV_UNKNOWN;
        snprintf(s->reason, sizeof(s->reason), "%s", s->dir[no_ack].reason);
    } else {
        s->verdict = EW_QV_NOT_ECN;
        snprintf(s->reason, sizeof(s->reason), "no Initial packet in either direction was "
                 "ECN-capable");
    }
    return true;
}

bool
ew_quic_flow_verdict(const struct ew_flow *f, struct ew_flow_verdict *v)
{
    struct ew_quic_summary s;

    if (!ew_quic_conclude(f, &s))
        return false;
    switch (s.verdict) {
    case EW_QV_NOT_ECN:
        v->verdict = EW_V_NOT_ECN;
        snprintf(v->reason, sizeof(v->reason), "QUIC: %.190s", s.reason);
        break;
    case EW_QV_VALIDATED:
        v->verdict = EW_V_CLASSIC;
        snprintf(v->reason, sizeof(v->reason), "QUIC ECN validated on the Initial packets: %.150s",
                 s.reason);
        break;
    case EW_QV_L4S_CANDIDATE:
        v->verdict = EW_V_L4S;
        snprintf(v->reason, sizeof(v->reason), "QUIC, ECT(1) with ECN counts (an L4S sender, as "
                 "far as the Initial packets show): %.100s", s.reason);
        break;
    case EW_QV_FAILED:
        /* the sender must stop using ECN (RFC 9000 §13.4.2.2); the capture
         * cannot tell a peer that does not count from a path that clears */
        v->verdict = EW_V_AMBIGUOUS;
        snprintf(v->reason, sizeof(v->reason), "QUIC ECN validation fails (%s): %.155s",
                 ew_quic_fail_name[s.dir[s.fail_dir].fail], s.reason);
        break;
    case EW_QV_UNKNOWN:
        v->verdict = EW_V_UNKNOWN;
        snprintf(v->reason, sizeof(v->reason), "QUIC: %.190s", s.reason);
        break;
    }
    return true;
}

/* ------------------------------------------------------------ report */

/* json_integer() of a count, clamped to what json_int_t holds */
static void
kcount(struct jw *w, const char *k, uint64_t v)
{
    jw_kint(w, k, (int64_t)(v > (uint64_t)INT64_MAX ? (uint64_t)INT64_MAX : v));
}

/* a frame number, null when none */
static void
kframe(struct jw *w, const char *k, uint64_t frame)
{
    if (frame)
        kcount(w, k, frame);
    else
        jw_knull(w, k);
}

static void
counts4(struct jw *w, const char *k, const uint64_t *n)
{
    jw_key(w, k);
    jw_object_begin(w);
    jw_kint(w, "not_ect", (json_int_t)n[EW_ECN_NOT_ECT]);
    jw_kint(w, "ect0", (json_int_t)n[EW_ECN_ECT_0]);
    jw_kint(w, "ect1", (json_int_t)n[EW_ECN_ECT_1]);
    jw_kint(w, "ce", (json_int_t)n[EW_ECN_CE]);
    jw_object_end(w);
}

static void
dir_write(struct jw *w, const char *name, const struct ew_quic_conn *c, int d,
          const struct ew_quic_summary *s)
{
    const struct ew_quic_dir *q = &c->dir[d];
    uint64_t n[4];
    int i;

    jw_key(w, name);
    jw_object_begin(w);
    for (i = 0; i < 4; i++)
        n[i] = q->initials[i];
    counts4(w, "initial_packets", n);
    kcount(w, "initial_packets_decrypted", q->opened);
    for (i = 0; i < 4; i++)
        n[i] = q->acked_cp[i];
    counts4(w, "acknowledged", n);
    jw_key(w, "reported_by_peer");
    if (q->acks_ecn) {
        jw_object_begin(w);
        kcount(w, "ect0", q->rep[0]);
        kcount(w, "ect1", q->rep[1]);
        kcount(w, "ce", q->rep[2]);
        jw_object_end(w);
    } else {
        jw_null(w);
    }
    kcount(w, "peer_acks", q->acks);
    kcount(w, "peer_acks_with_ecn", q->acks_ecn);
    kcount(w, "peer_acks_without_ecn_over_ect", q->plain_on_ect);
    jw_kstring(w, "validation", ew_quic_dir_result_name[s->dir[d].result]);
    jw_key(w, "failure");
    if (s->dir[d].fail)
        jw_string(w, ew_quic_fail_name[s->dir[d].fail]);
    else
        jw_null(w);
    jw_kstring(w, "reason", s->dir[d].reason);
    jw_key(w, "frames");
    jw_object_begin(w);
    kframe(w, "first_initial", q->first_frame);
    kframe(w, "first_ect_initial", q->first_ect_frame);
    kframe(w, "first_peer_ack", q->ack_frame);
    kframe(w, "last_peer_ack_with_ecn", q->ecn_ack_frame);
    kframe(w, "first_peer_ack_without_ecn_over_ect", q->plain_ack_frame);
    if (s->dir[d].fail)
        kframe(w, "failure", s->dir[d].frame);
    else
        jw_knull(w, "failure");
    jw_object_end(w);
    jw_object_end(w);
}

void
ew_quic_write(struct jw *w, const char *key, const struct ew_flow *f)
{
    const struct ew_quic_conn *c = f->quic;
    struct ew_quic_summary s;
    char ver[16];
    int t;

    if (!c || !ew_quic_conclude(f, &s))
        return;
    if (c->version == EW_QUIC_V1)
        snprintf(ver, sizeof(ver), "v1");
    else if (c->version == EW_QUIC_V2)
        snprintf(ver, sizeof(ver), "v2");
    else
        snprintf(ver, sizeof(ver), "0x%08x", (unsigned)c->version);
    jw_key(w, key);
    jw_object_begin(w);
    jw_kstring(w, "version", ver);
    jw_kbool(w, "version_changed", c->version_changed);
    jw_key(w, "dcid_len");
    if (c->have_client)
        jw_int(w, (int64_t)c->dcid_len);
    else
        jw_null(w);
    jw_kbool(w, "client_identified", c->have_client);
    jw_kbool(w, "retry", c->retry);
    jw_key(w, "packets");
    jw_object_begin(w);
    for (t = 0; t < EW_QP_COUNT; t++)
        kcount(w, ew_quic_ptype_name[t], c->packets[t]);
    jw_object_end(w);
    kcount(w, "initial_packets_undecrypted", c->unopened);
    kcount(w, "coalesced_datagrams", c->coalesced);
    kframe(w, "connection_close_frame", c->close_frame);
    jw_kstring(w, "verdict", ew_quic_verdict_name[s.verdict]);
    jw_kstring(w, "reason", s.reason);
    dir_write(w, "c2s", c, f->client_dir, &s);
    dir_write(w, "s2c", c, f->client_dir ^ 1, &s);
    jw_object_end(w);
}
