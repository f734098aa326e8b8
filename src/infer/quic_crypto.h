/* quic_crypto.h - the protection of QUIC Initial packets, which derives from
 * the client's Destination Connection ID alone (RFC 9001 §5.2; RFC 9369
 * §3.3): the Initial secrets and keys, header protection (§5.4) and the
 * AEAD (§5.3), through OpenSSL. */
#ifndef ECNWATCH_QUIC_CRYPTO_H
#define ECNWATCH_QUIC_CRYPTO_H

#include <stddef.h>
#include <stdint.h>

#include "dissectors/dissect_quic.h"

#define EW_QUIC_TAG_LEN 16      /* AEAD_AES_128_GCM tag (RFC 9001 §5.3) */

/* Packet protection keys of one direction (RFC 9001 §5.1). */
struct ew_quic_keys {
    uint8_t key[16];
    uint8_t iv[12];
    uint8_t hp[16];
};

struct ew_quic_initial_secrets {
    uint8_t initial[32]; /* HKDF-Extract(initial_salt, DCID) */
    uint8_t client[32];  /* "client in" */
    uint8_t server[32];  /* "server in" */
    struct ew_quic_keys ck, sk;
};

/* Initial secrets and keys for `version` from the client's Destination
 * Connection ID (RFC 9001 §5.2; RFC 9369 §3.3). 0, or -1 for an unknown
 * version or a failure of the library. */
int ew_quic_derive_initial(uint32_t version, const uint8_t *dcid, size_t dcid_len,
                           struct ew_quic_initial_secrets *out);

/* AES-128-ECB (header protection) and AES-128-GCM contexts, made once. */
struct ew_quic_crypto;
struct ew_quic_crypto *ew_quic_crypto_new(void);
void ew_quic_crypto_free(struct ew_quic_crypto *cx);

/* Remove header protection (RFC 9001 §5.4) and packet protection (§5.3) of
 * the long-header packet at pkt, all h->len bytes of it captured. The packet
 * number is recovered against largest_pn, the largest one opened before in
 * this direction and space (-1: none; RFC 9000 §17.1, App. A.3). Writes the
 * plaintext payload to out (room >= h->len) and returns its length, with *pn
 * the full packet number; -1 when it does not authenticate. pkt is not
 * changed. */
long ew_quic_open(struct ew_quic_crypto *cx, const struct ew_quic_keys *k, const uint8_t *pkt,
                  const struct ew_quic_hdr *h, int64_t largest_pn, uint8_t *out, size_t room,
                  uint64_t *pn);

/* The reverse, for writing test packets: hdr is the unprotected header up to
 * and including the encoded packet number (its length from the low two bits
 * of hdr[0]), pn_offset where that number starts, pn the full number. Writes
 * hdr_len + plen + 16 protected bytes to out; returns that length, or -1. */
long ew_quic_seal(struct ew_quic_crypto *cx, const struct ew_quic_keys *k, const uint8_t *hdr,
                  size_t hdr_len, size_t pn_offset, uint64_t pn, const uint8_t *payload,
                  size_t plen, uint8_t *out, size_t room);

#endif /* ECNWATCH_QUIC_CRYPTO_H */
