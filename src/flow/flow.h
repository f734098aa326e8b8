/* flow.h - the per-flow record: its canonical key, per-direction counts,
 * the handshake as seen, and the state that the layers above keep beside it
 * (struct ew_flow_state: what the flow table and the packing know of it).
 * Types only: the table is in flowtab.h, the packed form in pack.h. */
#ifndef ECNWATCH_FLOW_H
#define ECNWATCH_FLOW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dissectors/pkt.h"

/* Canonical key: (addr, port) pairs ordered so both directions map to one
 * key. IPv4 addresses are stored v4-mapped. 40 bytes, no implicit padding,
 * compared and hashed as bytes. */
struct ew_flow_key {
    uint8_t lo[16];
    uint8_t hi[16];
    uint16_t port_lo;
    uint16_t port_hi;
    uint8_t proto; /* IP protocol number */
    uint8_t family; /* 4 or 6 */
    uint8_t l4;     /* enum ew_l4: ports are meaningful for TCP/UDP only */
    uint8_t pad;
};

/* direction index inside a flow: canonical low-to-high or the reverse */
enum { EW_DIR_LO_HI = 0, EW_DIR_HI_LO = 1 };

/* what kind of segment a TCP packet is, for the per-kind codepoint split */
enum ew_seg_kind {
    EW_SEG_SYN,
    EW_SEG_SYNACK,
    EW_SEG_DATA,
    EW_SEG_PURE_ACK,
    EW_SEG_RETRANS,
    EW_SEG_FIN_RST,
    EW_SEG_OTHER, /* no ACK, no SYN/FIN/RST, no payload */
    EW_SEG_COUNT
};
extern const char *const ew_seg_kind_name[EW_SEG_COUNT];

struct ew_dir_stats {
    uint64_t packets;
    uint64_t bytes;         /* IP length (header + payload) as the IP header states it */
    uint64_t payload_bytes; /* transport payload, from the IP/UDP lengths */
    uint64_t ecn[4];        /* by codepoint value, enum ew_ecn (by segment kind too: ew_infer.kind_ecn, TCP) */
    uint32_t ece, cwr, ae;  /* raw TCP header bits */
    uint32_t max_payload; /* largest transport payload: an MSS estimate */
    uint32_t seq_max; /* highest sequence number sent + 1 (TCP) */
    /* copies of packets already counted (dedupe.h): left out of every count
     * above; and packets that may be copies or resends, counted */
    uint32_t dups, dups_unsure;
    bool have_seq;
    uint8_t first_ecn;    /* the codepoint of the direction's first packet (packets > 0) */
};

/* The first SYN and SYN-ACK as seen, for the negotiation. */
struct ew_handshake {
    uint64_t syn_frame, synack_frame;
    uint64_t syn_option_frame;
    uint16_t syn_flags, synack_flags;
    uint16_t syn_count, synack_count;
    uint8_t syn_ecn, synack_ecn;
    bool syn_flags_changed; /* a later SYN carried other ECN flags (fallback) */
    bool syn_classic_and_accecn; /* both a 011 and a 111 SYN (RFC 9768 §3.1.5) */
    bool syn_accecn_option;  /* an AccECN option on a SYN (§3.2.3.2: never) */
    bool synack_flags_changed;
    bool neg_accecn; /* ew_flow_negotiation() is EW_NEG_ACCECN: kept as SYNs pass */
};

enum ew_end_reason {
    EW_END_NONE,    /* still live: reported as "capture_end" */
    EW_END_IDLE,    /* the idle timeout */
    EW_END_EVICTED, /* its record was reused because the table was full */
};

enum ew_client_from {
    EW_CLIENT_FIRST_PACKET, /* the sender of the first packet */
    EW_CLIENT_PORT,         /* no handshake: the end with the higher (ephemeral) port */
    EW_CLIENT_SYNACK,       /* the receiver of the SYN-ACK */
    EW_CLIENT_SYN,          /* the sender of the SYN */
};

struct ew_quic_conn;
struct ew_tunnel_rec;

/* The record: what a packet touches first (the key, times, counters), then
 * the handshake and the inference state; no holes between members. The
 * table keeps its index and activity links beside the records. */
struct ew_flow {
    struct ew_flow_key key;
    int64_t first_ns;     /* packet time, ns since the epoch */
    int64_t last_ns;
    uint64_t first_frame; /* 1-based frame numbers */
    uint64_t last_frame;
    struct ew_dir_stats dir[2];
    uint64_t id;          /* 1-based, in order of creation (= order of first frame) */
    struct ew_quic_conn *quic; /* QUIC state from the analyzer's pool (quic.h); NULL: none */
    struct ew_tunnel_rec *tun; /* the tunnel its packets came through (tunrec.h); NULL: none */
    uint32_t series[2];   /* time-series slots + 1 per direction (canonical); 0 = none */
    uint32_t qs[2];       /* the bottleneck series' slots + 1 per direction (qseries.h); 0 = none */
    uint32_t streamed_kinds; /* misuse kinds already streamed as events (--ndjson) */
    uint8_t client_dir;   /* the canonical direction that is client-to-server */
    bool syn_seen;        /* the client was identified by a SYN */
    uint8_t client_from;  /* enum ew_client_from: how the client was identified */
    bool ended;           /* idle-expired: kept for the report, out of the index */
    uint8_t end_reason;   /* enum ew_end_reason */
    uint8_t series_refused; /* bit per direction: no time series, the pool was full */
    uint8_t qs_refused;   /* bit per direction: no bottleneck series, the pool was full */
    /* TCP: the inference state (infer.h), kept by the table beside the
     * records, so that other flows' records do without it; otherwise the
     * shared, all-zero state of struct ew_flow_state's none */
    struct ew_infer *inf;
    struct ew_handshake hs;
};

/* The state a layer above keeps beside each TCP record (the inference's,
 * struct ew_infer), as the flow table and the packing see it: bytes they
 * allocate, prefetch and pack without knowing their meaning. */
#define EW_FLOW_STATE_MAX 2560 /* bytes, at most */
struct ew_flow_state {
    size_t size;        /* bytes, a multiple of 4, at most EW_FLOW_STATE_MAX */
    const void *none;   /* the state of a flow that keeps none (not TCP): all zero, shared, read only */
    /* what a packet reads first: prefetched for a flow about to be read */
    size_t hot_at[2], hot_len[2];
    /* packing (pack.h): the 64-bit members that are packet times, taken
     * relative to the flow's first packet, and frame numbers, relative to
     * its first frame */
    const size_t *times;
    size_t ntimes;
    const size_t *frames;
    size_t nframes;
    /* the rest of the state's own relative form (pack.h's ew_pack_rel()):
     * made (back false) before the times and frames above, undone (back
     * true) after them; last_ns is the flow's last packet time */
    void (*rel)(uint8_t *state, uint64_t last_ns, bool back);
};

#endif /* ECNWATCH_FLOW_H */
