/* quic_crypto.c - QUIC Initial secrets, header protection and AEAD (see
 * quic_crypto.h). Facts: RFC 9001 (packet protection), RFC 8446 §7.1
 * (HKDF-Expand-Label), RFC 9369 (version 2). */
#include "infer/quic_crypto.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/opensslv.h>

#include "base/format.h"
#include "base/dynlib.h"
#include "base/crypto_soname.h"

/* libcrypto, loaded when the first QUIC Initial packet is to be decrypted
 * (base/dynlib.h): the functions used, called through cr */
#define CRYPTO_FUNCS(X)                                                                        \
    X(HMAC) X(EVP_sha256) X(EVP_CIPHER_fetch) X(EVP_CIPHER_free) X(EVP_CIPHER_CTX_new)          \
    X(EVP_CIPHER_CTX_free) X(EVP_CIPHER_CTX_set_padding) X(EVP_CIPHER_CTX_ctrl)                 \
    X(EVP_CipherInit_ex) X(EVP_CipherUpdate) X(EVP_CipherFinal_ex)
#define CRYPTO_PTR(f) __typeof__(f) *f;
#define CRYPTO_NAME(f) #f,
static struct {
    CRYPTO_FUNCS(CRYPTO_PTR)
} cr;
static bool cr_loaded;
static pthread_once_t cr_once = PTHREAD_ONCE_INIT;

static void
cr_load(void)
{
    static const char *const names[] = {CRYPTO_FUNCS(CRYPTO_NAME) NULL};
    char err[256];

    if (ew_dynlib_load(CRYPTO_SONAME, "decrypting QUIC Initial packets", names, &cr, sizeof(cr),
                       err, sizeof(err)) != 0) {
        /* once: the report then has no QUIC ECN counts read from inside */
        ew_err("ecnwatch: warning: %s\n", err);
        return;
    }
    cr_loaded = true;
}

/* libcrypto is there to call */
static bool
crypto_ready(void)
{
    pthread_once(&cr_once, cr_load);
    return cr_loaded;
}

/* RFC 9001 §5.2 and RFC 9369 §3.3.1 */
static const uint8_t salt_v1[20] = {0x38, 0x76, 0x2c, 0xf7, 0xf5, 0x59, 0x34, 0xb3, 0x4d, 0x17,
                                    0x9a, 0xe6, 0xa4, 0xc8, 0x0c, 0xad, 0xcc, 0xbb, 0x7f, 0x0a};
static const uint8_t salt_v2[20] = {0x0d, 0xed, 0xe3, 0xde, 0xf7, 0x00, 0xa6, 0xdb, 0x81, 0x93,
                                    0x81, 0xbe, 0x6e, 0x26, 0x9d, 0xcb, 0xf9, 0xbd, 0x2e, 0xd9};

/* ------------------------------------------------------------ key derivation */

/* HKDF-Expand-Label (RFC 8446 §7.1) with an empty context, for outputs of at
 * most one SHA-256 block: T(1) = cr.HMAC(secret, HkdfLabel || 0x01) */
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
    if (!cr.HMAC(cr.EVP_sha256(), secret, (int)slen, info, n, t, &tl) || tl != sizeof(t))
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
    if (!ew_quic_known_version(version) || dcid_len > EW_QUIC_CID_MAX || !crypto_ready())
        return -1;
    /* HKDF-Extract(salt, IKM) = cr.HMAC(salt, IKM); the DCID may be empty */
    if (!cr.HMAC(cr.EVP_sha256(), v2 ? salt_v2 : salt_v1, 20, dcid_len ? dcid : empty, dcid_len,
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
    cr.EVP_CIPHER_CTX_free(cx->ecb);
    cr.EVP_CIPHER_CTX_free(cx->gcm);
    cr.EVP_CIPHER_free(cx->ecb_alg);
    cr.EVP_CIPHER_free(cx->gcm_alg);
    free(cx);
}

/* the contexts are bound to their ciphers once; each packet only sets keys */
struct ew_quic_crypto *
ew_quic_crypto_new(void)
{
    struct ew_quic_crypto *cx;

    if (!crypto_ready() || !(cx = calloc(1, sizeof(*cx))))
        return NULL;
    cx->ecb_alg = cr.EVP_CIPHER_fetch(NULL, "AES-128-ECB", NULL);
    cx->gcm_alg = cr.EVP_CIPHER_fetch(NULL, "AES-128-GCM", NULL);
    cx->ecb = cr.EVP_CIPHER_CTX_new();
    cx->gcm = cr.EVP_CIPHER_CTX_new();
    if (!cx->ecb_alg || !cx->gcm_alg || !cx->ecb || !cx->gcm ||
        cr.EVP_CipherInit_ex(cx->ecb, cx->ecb_alg, NULL, NULL, NULL, 1) != 1 ||
        cr.EVP_CIPHER_CTX_set_padding(cx->ecb, 0) != 1 ||
        cr.EVP_CipherInit_ex(cx->gcm, cx->gcm_alg, NULL, NULL, NULL, 0) != 1) {
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

    if (cr.EVP_CipherInit_ex(cx->ecb, NULL, NULL, hp, NULL, 1) != 1 ||
        cr.EVP_CipherUpdate(cx->ecb, mask, &outl, sample, 16) != 1 || outl != 16)
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
    if (cr.EVP_CipherInit_ex(cx->gcm, NULL, NULL, k->key, nonce, 0) != 1 ||
        cr.EVP_CipherUpdate(cx->gcm, NULL, &outl, &first, 1) != 1 ||
        cr.EVP_CipherUpdate(cx->gcm, NULL, &outl, pkt + 1, (int)(pno - 1)) != 1 ||
        cr.EVP_CipherUpdate(cx->gcm, NULL, &outl, pnb, (int)pn_len) != 1)
        return -1;
    outl = 0;
    if (ct_len > 0 &&
        cr.EVP_CipherUpdate(cx->gcm, out, &outl, pkt + pno + pn_len, (int)ct_len) != 1)
        return -1;
    memcpy(tag, pkt + pno + pn_len + ct_len, sizeof(tag));
    if (cr.EVP_CIPHER_CTX_ctrl(cx->gcm, EVP_CTRL_GCM_SET_TAG, (int)sizeof(tag), tag) != 1 ||
        cr.EVP_CipherFinal_ex(cx->gcm, out + outl, &fl) != 1)
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
    if (cr.EVP_CipherInit_ex(cx->gcm, NULL, NULL, k->key, nonce, 1) != 1 ||
        cr.EVP_CipherUpdate(cx->gcm, NULL, &outl, hdr, (int)hdr_len) != 1)
        return -1;
    outl = 0;
    if (plen > 0 && cr.EVP_CipherUpdate(cx->gcm, out + hdr_len, &outl, payload, (int)plen) != 1)
        return -1;
    if (cr.EVP_CipherFinal_ex(cx->gcm, out + hdr_len + (size_t)outl, &fl) != 1 ||
        cr.EVP_CIPHER_CTX_ctrl(cx->gcm, EVP_CTRL_GCM_GET_TAG, EW_QUIC_TAG_LEN,
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
