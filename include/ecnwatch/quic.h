/* quic.h - QUIC as a passive observer can read it without keys: long and
 * short headers, version negotiation and coalesced packets (RFC 9000 §17,
 * §12.2; RFC 8999), for versions 1 and 2 (RFC 9369), and the Initial packets,
 * whose protection derives from the client's Destination Connection ID alone
 * (RFC 9001 §5.2). The Initial ACK frames carry ECN counts (RFC 9000
 * §19.3.2): each direction's Initial packets are validated against them the
 * way their sender validates them (RFC 9000 §13.4.2.1).
 *
 * Every read is bounds-checked against the captured bytes; nothing is
 * allocated per packet. Per-connection state is a fixed struct taken from a
 * pool the analyzer owns (one entry per flow at most, released when the flow
 * leaves the table); the flow keeps a pointer to it.
 */
#ifndef ECNWATCH_QUIC_H
#define ECNWATCH_QUIC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "ecnwatch/cursor.h"
#include "ecnwatch/infer.h"

#define EW_QUIC_V1 0x00000001u  /* RFC 9000 §15 */
#define EW_QUIC_V2 0x6b3343cfu  /* RFC 9369 §3.1 */
#define EW_QUIC_CID_MAX 20      /* RFC 9000 §17.2: at most 20 bytes in versions 1 and 2 */
#define EW_QUIC_PN_TRACK 64     /* Initial packet numbers 0..63 keep their codepoint */
#define EW_QUIC_TAG_LEN 16      /* AEAD_AES_128_GCM tag (RFC 9001 §5.3) */

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
};

enum ew_quic_hdr_result {
    EW_QH_OK,
    EW_QH_NOT_QUIC, /* not a packet of a known version, or lengths that do not hold together */
    EW_QH_TRUNC,    /* the header itself runs past the captured bytes */
};

/* Parse the header of the packet at buf: `avail` captured bytes of the
 * `claimed` the datagram has from here on (the UDP length). Only versions 1
 * and 2 are accepted; Version Negotiation and short headers only when
 * `known_quic` (the flow already showed QUIC long headers), since neither
 * carries enough structure to tell it from other UDP payloads. Checks the
 * fixed bit (which peers may grease once the flow is QUIC, RFC 9287),
 * connection ID lengths, and that Length covers a packet number, a header
 * protection sample and lies inside the datagram. */
enum ew_quic_hdr_result ew_quic_parse_header(const uint8_t *buf, size_t avail, size_t claimed,
                                             bool known_quic, struct ew_quic_hdr *h);

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

/* How a connection's ECN use turned out, from its Initial packets. */
enum ew_quic_verdict {
    EW_QV_NOT_ECN,        /* no Initial packet was ECN-capable */
    EW_QV_VALIDATED,      /* ECT(0) Initials, counts that account for them */
    EW_QV_FAILED,         /* a direction failed validation (the reason says how) */
    EW_QV_L4S_CANDIDATE,  /* ECT(1) Initials, counts that account for them */
    EW_QV_UNKNOWN,        /* ECT sent, but no Initial ACK that covers it was read */
};
extern const char *const ew_quic_verdict_name[];

/* why a direction failed (RFC 9000 §13.4.2.1, App. A.4) */
enum ew_quic_fail {
    EW_QF_NONE,
    EW_QF_COUNTS_MISSING, /* an ACK without counts newly acknowledges ECT packets */
    EW_QF_BLEACHED,       /* counts present, all zero */
    EW_QF_UNDERCOUNT,     /* ECT(0)+CE (or ECT(1)+CE) grew less than the ECT packets acknowledged */
    EW_QF_REMARKED,       /* the counts grow in the other ECT codepoint than was sent */
    EW_QF_ALL_CE,         /* every ECT packet reported CE */
    EW_QF_DECREASED,      /* a count went down */
};
extern const char *const ew_quic_fail_name[];

/* the Initial packets one endpoint sent, as they passed the capture point,
 * and what the other endpoint's Initial ACK frames say about them */
struct ew_quic_dir {
    uint32_t initials[4];     /* Initial packets by IP codepoint (enum ew_ecn) */
    uint32_t opened;          /* of them decrypted */
    /* packet numbers 0..63: each space starts at 0 (RFC 9000 §12.3) */
    uint64_t pn_seen;         /* bit n: Initial packet n passed here */
    uint64_t pn_acked;        /* bit n: the peer acknowledged it */
    uint64_t cp_hi, cp_lo;    /* bits n: the codepoint packet n passed with */
    int64_t largest_pn;       /* largest packet number opened; -1 none */
    int64_t largest_acked;    /* largest the peer acknowledged; -1 none */
    uint32_t acks, acks_ecn;  /* the peer's ACK frames, and those with counts */
    uint32_t plain_on_ect;    /* ACKs without counts that newly acknowledge ECT or CE packets */
    uint32_t validated;       /* ACKs whose counts passed with ECT packets newly acknowledged */
    uint32_t acked_cp[4];     /* packets the peer acknowledged, by codepoint seen here */
    uint64_t rep[3];          /* the latest counts: ECT(0), ECT(1), CE */
    uint8_t fail;             /* enum ew_quic_fail: the first failure */
    uint64_t first_frame;     /* first Initial from this end */
    uint64_t first_ect_frame; /* first ECT (or CE) Initial */
    uint64_t ack_frame;       /* first ACK of these Initials */
    uint64_t ecn_ack_frame;   /* latest ACK with counts */
    uint64_t plain_ack_frame; /* first ACK without counts over ECT packets */
    uint64_t fail_frame;
};

struct ew_quic_conn {
    uint32_t version;         /* of the first long header */
    uint32_t key_version;     /* the version `keys` are for; 0: none yet */
    uint8_t dcid_len;         /* the DCID the Initial keys come from (RFC 9001 §5.2) */
    uint8_t dcid[EW_QUIC_CID_MAX];
    bool have_client;         /* a client Initial was opened: client_dir is known */
    uint8_t client_dir;       /* canonical direction of the client's packets */
    bool retry;               /* a Retry was seen: later Initials use its SCID's keys */
    bool version_changed;     /* long headers of two versions (compatible negotiation) */
    uint32_t packets[EW_QP_COUNT];
    uint32_t unopened;        /* Initial packets that did not authenticate or were cut */
    uint32_t coalesced;       /* datagrams with more than one QUIC packet */
    uint32_t frames_stopped;  /* payloads with a frame type not allowed in Initial packets */
    uint64_t first_frame;
    uint64_t close_frame;     /* CONNECTION_CLOSE in an Initial */
    uint64_t close_error;
    struct ew_quic_keys keys[2]; /* [0] client, [1] server */
    struct ew_quic_dir dir[2];   /* by canonical direction of the sender */
    uint32_t self, next_free; /* pool bookkeeping: own index, next free index + 1 */
};

/* The conclusion for a connection, and per canonical direction. */
enum ew_quic_dir_result {
    EW_QD_NOT_ECT,   /* this end sent no ECT Initial */
    EW_QD_NO_ACK,    /* ECT sent; no Initial ACK over it read */
    EW_QD_VALIDATED,
    EW_QD_FAILED,
};
extern const char *const ew_quic_dir_result_name[];

struct ew_quic_summary {
    enum ew_quic_verdict verdict;
    int fail_dir;             /* the first failing direction (by frame), -1 none */
    char reason[EW_REASON_LEN];
    struct {
        enum ew_quic_dir_result result;
        enum ew_quic_fail fail;
        uint64_t frame;       /* the ACK that failed, or that last validated */
        uint64_t first_frame; /* the first ECT (or CE) Initial of this direction */
        uint64_t count;       /* ECT or CE Initial packets concerned */
        char reason[EW_REASON_LEN];
    } dir[2];
};

struct ew_flow;
struct ew_quic_pool;

/* The conclusion for a flow's QUIC connection; false when it has none. A pure
 * function of the state, like the rest of the inference. */
bool ew_quic_conclude(const struct ew_flow *f, struct ew_quic_summary *s);

/* A pool of up to cap connections (cap >= 1); entries are allocated in
 * chunks as connections appear. NULL on allocation failure. */
struct ew_quic_pool *ew_quic_pool_new(uint32_t cap);
void ew_quic_pool_free(struct ew_quic_pool *p);
/* Give the flow's QUIC state back (the flow is leaving the table). */
void ew_quic_release(struct ew_quic_pool *p, const struct ew_flow *f);

/* One UDP datagram of flow f, travelling in canonical direction dir with IP
 * codepoint ecn: `data` is the UDP payload as captured (borrowed for this
 * call), caplen bytes of the wirelen the UDP header claims. Anything that is
 * not QUIC costs a few byte compares. The flow's QUIC state is taken from the
 * pool at its first QUIC long header. When a client Initial identifies the
 * client and the flow knew its client only from its first packet, the flow's
 * client direction follows the Initial. */
void ew_quic_datagram(struct ew_quic_pool *p, struct ew_flow *f, int dir, uint8_t ecn,
                      const uint8_t *data, uint32_t caplen, uint32_t wirelen, uint64_t frame);

/* For a flow with QUIC state: its verdict in the report's vocabulary (with a
 * reason), replacing what the generic inference said; false otherwise. */
bool ew_quic_flow_verdict(const struct ew_flow *f, struct ew_flow_verdict *v);

struct jw;
/* The flow's "quic" report object as the member key, written to w; nothing
 * when the flow has no QUIC state. */
void ew_quic_write(struct jw *w, const char *key, const struct ew_flow *f);

#endif /* ECNWATCH_QUIC_H */
