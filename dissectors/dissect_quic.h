/* dissect_quic.h - QUIC as a passive observer can read it without keys: long
 * and short headers, version negotiation and coalesced packets (RFC 9000
 * §17, §12.2; RFC 8999), for versions 1 and 2 (RFC 9369); and the frames of
 * a payload once decrypted (RFC 9000 §19).
 *
 * Pure decoders like the other dissectors: bytes in through the
 * bounds-checked cursor, a decoded struct out; no I/O, no allocation. */
#ifndef ECNWATCH_DISSECT_QUIC_H
#define ECNWATCH_DISSECT_QUIC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dissectors/cursor.h"

#define EW_QUIC_V1 0x00000001u  /* RFC 9000 §15 */
#define EW_QUIC_V2 0x6b3343cfu  /* RFC 9369 §3.1 */
#define EW_QUIC_CID_MAX 20      /* RFC 9000 §17.2: at most 20 bytes in versions 1 and 2 */
#define EW_QUIC_PN_TRACK 64     /* Initial packet numbers 0..63 keep their codepoint */
#define EW_QUIC_VN_KEEP 8       /* Version Negotiation: the first versions listed, kept */

/* the versions whose headers and Initial protection are known here */
static inline bool
ew_quic_known_version(uint32_t v)
{
    return v == EW_QUIC_V1 || v == EW_QUIC_V2;
}

enum ew_quic_ptype {
    EW_QP_INITIAL,
    EW_QP_0RTT,
    EW_QP_HANDSHAKE,
    EW_QP_RETRY,
    EW_QP_VN,    /* Version Negotiation (version 0) */
    EW_QP_SHORT, /* 1-RTT */
    EW_QP_COUNT
};
extern const char *const ew_quic_ptype_name[EW_QP_COUNT];

/* Read a variable-length integer (RFC 9000 §16): 1, 2, 4 or 8 bytes. False,
 * with the cursor's truncation flag set, when it runs past the end. */
bool ew_quic_varint(struct ew_cur *c, uint64_t *v);

/* One packet's header, as far as it is not protected. */
struct ew_quic_hdr {
    enum ew_quic_ptype type;
    uint32_t version;
    uint8_t dcid_len, scid_len;        /* as on the wire (Version Negotiation: up to 255) */
    uint8_t dcid[EW_QUIC_CID_MAX];     /* the first EW_QUIC_CID_MAX bytes */
    uint8_t scid[EW_QUIC_CID_MAX];
    uint64_t token_len;                /* Initial: the token's length */
    size_t pn_offset;                  /* Initial, 0-RTT, Handshake: the packet number's offset */
    size_t len;                        /* bytes this packet takes in the datagram */
    bool has_length;                   /* a Length field ends it: another packet may follow */
    uint32_t vn_listed;                /* Version Negotiation: versions listed */
    uint32_t vn_versions[EW_QUIC_VN_KEEP]; /* the first of them, as far as captured */
};

enum ew_quic_hdr_result {
    EW_QH_OK,
    EW_QH_NOT_QUIC, /* not a packet of a known version, or lengths that do not hold together */
    EW_QH_TRUNC,    /* the header itself runs past the captured bytes */
};

/* A version some QUIC implementation is known to use: 1, 2, IETF drafts
 * (0xff0000xx), the reserved greasing pattern 0x?a?a?a?a (RFC 9000 §15),
 * Google QUIC ("Q0..", "T0.."), mvfst (0xfaceb00x). */
bool ew_quic_version_family(uint32_t v);

/* Parse the header of the packet at buf: `avail` captured bytes of the
 * `claimed` the datagram has from here on (the UDP length). Only versions 1
 * and 2 are accepted, and Version Negotiation (version 0, RFC 9000 §17.2.1).
 * Short headers only when `known_quic` (the flow already showed QUIC long
 * headers), since they carry too little structure to tell them from other
 * UDP payloads. A Version Negotiation packet answers a client whose version
 * the server does not support, so it often comes first on its flow: without
 * `known_quic` it must hold together on its own, connection IDs of at most
 * 20 bytes, a whole number of versions, none of them 0, and at least one
 * captured that ew_quic_version_family() knows. Checks the
 * fixed bit (which peers may grease once the flow is QUIC, RFC 9287),
 * connection ID lengths, and that Length covers a packet number, a header
 * protection sample and lies inside the datagram. */
enum ew_quic_hdr_result ew_quic_parse_header(const uint8_t *buf, size_t avail, size_t claimed,
                                             bool known_quic, struct ew_quic_hdr *h);

/* An ACK frame (RFC 9000 §19.3), as far as the Initial space needs it. */
struct ew_quic_ack {
    uint64_t largest;
    uint64_t acked_mask; /* bit n: packet number n (< EW_QUIC_PN_TRACK) is acknowledged */
    bool ecn;            /* type 0x03: ECN counts present */
    uint64_t ect0, ect1, ce;
};

/* What one packet's frames say (RFC 9000 §19); Initial packets carry only
 * PADDING, PING, ACK, CRYPTO and CONNECTION_CLOSE (§12.4, Table 3). */
struct ew_quic_frames {
    uint32_t padding, ping, acks, crypto, close;
    uint64_t crypto_bytes;
    struct ew_quic_ack ack;  /* the ACK frames merged: ranges united, the latest counts */
    bool ack_ecn_seen;       /* at least one ACK frame had counts */
    uint64_t close_error;
    bool stopped;            /* an unknown frame type: parsing stopped there */
    uint64_t stop_type;
    bool malformed;          /* a frame ran past the payload or broke its own rules */
};

/* Parse a decrypted payload's frames. Stops at the first unknown frame type
 * (its length is not known) or at a malformed frame; never reads past len. */
void ew_quic_parse_frames(const uint8_t *p, size_t len, struct ew_quic_frames *fr);

#endif /* ECNWATCH_DISSECT_QUIC_H */
