/* quic_conn.h - the QUIC state of one connection, as its datagrams pass:
 * packets by type, the Initial keys, and per direction the Initial packets
 * with the codepoint each passed with and what the peer's Initial ACK
 * frames say about them (RFC 9000 §13.4.2.1).
 *
 * Per-connection state is a fixed struct taken from a pool the analyzer
 * owns (one entry per flow at most, released when the flow leaves the
 * table); the flow keeps a pointer to it. Nothing is allocated per packet. */
#ifndef ECNWATCH_QUIC_CONN_H
#define ECNWATCH_QUIC_CONN_H

#include <stdbool.h>
#include <stdint.h>

#include "dissectors/dissect_quic.h"
#include "dissectors/ecn.h"
#include "infer/quic_crypto.h"
#include "infer/quic_validate.h"

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
    /* Version Negotiation (RFC 9000 §17.2.1): the server supports none of
     * the versions the client tried */
    uint64_t vn_frame;        /* the first; 0: none */
    uint32_t vn_listed;       /* versions it lists */
    uint32_t vn_versions[EW_QUIC_VN_KEEP];
    struct ew_quic_keys keys[2]; /* [0] client, [1] server */
    struct ew_quic_dir dir[2];   /* by canonical direction of the sender */
    uint32_t self, next_free; /* pool bookkeeping: own index, next free index + 1 */
};

struct ew_flow;
struct ew_quic_pool;

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
 * client direction follows the Initial. The peer's Initial ACK frames are
 * validated as they come (ew_quic_on_ack, quic_validate.h). */
void ew_quic_datagram(struct ew_quic_pool *p, struct ew_flow *f, int dir, enum ew_ecn ecn,
                      const uint8_t *data, uint32_t caplen, uint32_t wirelen, uint64_t frame);

#endif /* ECNWATCH_QUIC_CONN_H */
