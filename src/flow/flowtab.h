/* flowtab.h - the bidirectional flow table and the per-flow record.
 *
 * The table holds at most max_flows flows; its arrays are allocated once,
 * and only packing (below) allocates afterwards. Live flows are indexed by a
 * seeded hash of the canonical key; a flow idle for longer than the idle
 * timeout (packet time) is ended: it stays in the table for the report but a
 * new packet of the same 5-tuple starts a new flow. When the table is full
 * the oldest ended flow is evicted, else the least recently active live
 * one; every eviction is counted and handed to the eviction callback first.
 *
 * A flow's record and inference state are kept whole in the hot set, which
 * holds up to hot_flows (EW_HOT_FLOWS by default) recently touched flows;
 * the others are kept packed (pack.h), a few hundred bytes instead of
 * 1,664, beside a 72-byte entry with their key. A packet of a packed flow
 * unpacks it into the hot set, packing one that has not been touched since
 * the CLOCK hand last passed. Packed bytes are allocated when a flow is
 * first packed and grown when its packed form outgrows them: at most
 * max_flows of them, of at most EW_PACK_MAX bytes each. Pointers returned
 * are borrowed, valid until the next ew_flowtab_get() or other call that
 * changes the table.
 */
#ifndef ECNWATCH_FLOWTAB_H
#define ECNWATCH_FLOWTAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "infer/infer.h"
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
_Static_assert(EW_SEG_COUNT == EW_INFER_SEG_KINDS, "ew_infer.kind_ecn has a row per kind");

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
    /* TCP: the inference state, kept by the table beside the records (so
     * that other flows' records do without its 1,344 bytes); otherwise
     * &ew_infer_none */
    struct ew_infer *inf;
    struct ew_handshake hs;
};

/* the inference state of a flow that is not TCP: all zero, read only */
extern const struct ew_infer ew_infer_none;

struct ew_flowtab;

/* called just before a flow's record is reused; the flow is still intact */
typedef void (*ew_flow_evict_fn)(void *arg, const struct ew_flow *flow);

struct ew_flowtab_stats {
    uint64_t created;  /* flows ever created */
    uint64_t packed, unpacked; /* flows packed out of the hot set, and back */
    uint64_t evicted;  /* records reused because the table was full */
    uint64_t expired;  /* flows ended by the idle timeout */
    uint32_t in_table; /* records held (live + ended) */
    uint32_t live;     /* flows in the index */
};

/* flows kept whole when hot_flows is not set */
#define EW_HOT_FLOWS 65536

/* max_flows >= 1; idle_ns <= 0 disables the idle timeout. The hot set holds
 * min(max_flows, EW_HOT_FLOWS) flows. Returns NULL on allocation failure. */
struct ew_flowtab *ew_flowtab_new(uint32_t max_flows, uint64_t seed, int64_t idle_ns,
                                  ew_flow_evict_fn on_evict, void *arg);
/* The hot set's size, min(hot, max_flows), before the first flow; -1 when
 * flows exist, hot is 0 or the memory cannot be had (the set is then gone:
 * free the table). */
int ew_flowtab_set_hot(struct ew_flowtab *tab, uint32_t hot);
void ew_flowtab_free(struct ew_flowtab *tab);

/* Build the canonical key of a decoded packet; returns the packet's direction
 * (EW_DIR_LO_HI or EW_DIR_HI_LO). pkt->status must be EW_PKT_OK. */
int ew_flow_key_from_pkt(const struct ew_pkt *pkt, struct ew_flow_key *key);

uint64_t ew_flow_hash(const struct ew_flow_key *key, uint64_t seed);

/* Find the live flow for key, or create one (ending it first if it has been
 * idle past the timeout at packet time now_ns, evicting if the table is full).
 * *created tells which. Never fails. O(1) expected; bounded by the probe
 * length of the index. */
struct ew_flow *ew_flowtab_get(struct ew_flowtab *tab, const struct ew_flow_key *key,
                               int64_t now_ns, bool *created);

/* The same, with the key's hash already known (see ew_flowtab_seed()). */
struct ew_flow *ew_flowtab_get_hashed(struct ew_flowtab *tab, const struct ew_flow_key *key,
                                      uint32_t hash, int64_t now_ns, bool *created);

/* Called when a live flow ends by the idle timeout (the flow is intact). */
void ew_flowtab_set_end_cb(struct ew_flowtab *tab, ew_flow_evict_fn on_end, void *arg);

/* Call fn for every live flow active at or after since_ns, most recent
 * first (each is brought into the hot set). O(flows visited). fn must not
 * add or remove flows. */
void ew_flowtab_foreach_recent(struct ew_flowtab *tab, int64_t since_ns,
                               void (*fn)(void *arg, struct ew_flow *f), void *arg);

/* For a reader that knows its next frames: the key's hash in this table is
 * (uint32_t)ew_flow_hash(key, ew_flowtab_seed(tab)); then its index slot,
 * then (one frame later, when the slot has arrived) its entry and the first
 * len bytes of its record and, with inf, its inference state, into the
 * cache; or, for a packed flow, its packed bytes and the hot record its
 * packet will take, which is picked then. None of them changes a flow,
 * what is found, or the report. */
uint64_t ew_flowtab_seed(const struct ew_flowtab *tab);
void ew_flowtab_prefetch_slot(const struct ew_flowtab *tab, uint32_t hash);
void ew_flowtab_prefetch_flow(struct ew_flowtab *tab, uint32_t hash, size_t len, bool inf);

/* Mark recently used (moves the flow to the tail of the activity list). */
void ew_flowtab_touch(struct ew_flowtab *tab, struct ew_flow *flow);

/* End up to `budget` live flows idle at now_ns; returns how many. */
uint32_t ew_flowtab_expire(struct ew_flowtab *tab, int64_t now_ns, uint32_t budget);

void ew_flowtab_get_stats(const struct ew_flowtab *tab, struct ew_flowtab_stats *st);

/* Fill `out` (room for st.in_table refs) with the ref of every held flow
 * (with live_only, every live one), ordered by id. Returns the count. A ref
 * names a flow until the table changes. */
size_t ew_flowtab_refs(const struct ew_flowtab *tab, uint32_t *out, size_t room, bool live_only);

/* room for a packed flow's record and inference state, unpacked */
struct ew_flow_room {
    struct ew_flow flow;
    struct ew_infer inf;
};

/* The flow a ref names, to read: its record when it is hot, else unpacked
 * into *room. Valid until the table changes or room is used again. Does not
 * change the table (threads may view at once while it does not change). */
const struct ew_flow *ew_flowtab_view(const struct ew_flowtab *tab, uint32_t ref,
                                      struct ew_flow_room *room);

#endif /* ECNWATCH_FLOWTAB_H */
