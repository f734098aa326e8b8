/* pathcmp.h - two or more captures of the same traffic, taken at points along
 * its path (upstream first): the same packets are matched across them by
 * addresses, ports, IP ID, TCP sequence and acknowledgement numbers and
 * lengths, and every change of the ECN field between two capture points is
 * reported with the frame numbers in both files.
 *
 * Memory is bounded: at most max_index packets of a capture are indexed (the
 * rest are counted as not indexed), and at most EW_PATH_MAX_PAIRS changed
 * packet pairs are listed (all are counted). */
#ifndef ECNWATCH_PATHCMP_H
#define ECNWATCH_PATHCMP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "findings/misuse.h"
#include "dissectors/pkt.h"

#define EW_PATH_MAX_PAIRS 200000
#define EW_PATH_MAX_GROUPS 4096

struct ew_index;
struct ew_hop;

/* An index of one capture's packets. NULL on allocation failure. */
struct ew_index *ew_index_new(uint32_t max_index);
void ew_index_free(struct ew_index *ix);
/* add a decoded packet; payload/plen: captured transport payload bytes (may be
 * short or empty), used only to tell apart UDP and IPv6 packets */
void ew_index_add(struct ew_index *ix, const struct ew_pkt *pkt, const uint8_t *payload,
                  size_t plen, uint64_t frame);

/* Changes between an upstream capture (its index) and a downstream one. */
struct ew_hop *ew_hop_new(int from_capture, int to_capture);
void ew_hop_free(struct ew_hop *hop);
/* match one downstream packet against the upstream index */
void ew_hop_match(struct ew_hop *hop, struct ew_index *up, const struct ew_pkt *pkt,
                  const uint8_t *payload, size_t plen, uint64_t frame);
/* finish: count the upstream packets never matched */
void ew_hop_finish(struct ew_hop *hop, const struct ew_index *up);

/* What a hop found, as plain data for the reports that show it (the JSON
 * report's "path", the summary's PATH lines; both in src/output/): its
 * counts, the changes, and the packet pairs listed for each change. */
struct ew_hop_counts {
    int from_capture, to_capture; /* the captures' places, from 1 */
    uint64_t matched, unchanged, only_upstream, only_downstream, not_indexed;
    uint64_t not_listed; /* changed packets of no listed pair (past the caps) */
};
void ew_hop_counts(const struct ew_hop *hop, struct ew_hop_counts *c);

/* One change: the packets of one direction of one flow whose ECN field went
 * from one codepoint to another between the two capture points. */
struct ew_hop_change {
    uint8_t family;   /* 4 or 6 */
    uint8_t l4;       /* enum ew_l4: the ports mean nothing with EW_L4_NONE */
    uint8_t src[16], dst[16];
    uint16_t sport, dport;
    uint8_t from, to; /* EW_ECN_* */
    uint8_t outer;    /* it left a tunnel between the points: the upstream outer
                       * header's EW_ECN_* + 1, and `to` is the egress's doing; 0: not */
    const char *meaning; /* in words */
    int misuse;       /* enum ew_misuse_kind, or -1: congestion marking, no misuse */
    uint64_t count;   /* packets */
    uint64_t first_up, first_down; /* the first packet's frames, up- and downstream */
};
/* the changes, in the order they were first seen: i < ew_hop_nchanges() */
uint32_t ew_hop_nchanges(const struct ew_hop *hop);
void ew_hop_change(const struct ew_hop *hop, uint32_t i, struct ew_hop_change *c);

/* The listed pairs of changed packets, change by change, each change's in
 * the order they were matched: change i's are pair[first[i]] up to
 * pair[first[i + 1]], each {upstream frame, downstream frame}. */
struct ew_hop_frames {
    uint64_t (*pair)[2];
    uint32_t *first; /* ew_hop_nchanges() + 1 entries */
};
/* 0, or -1 when out of memory (nothing to free then) */
int ew_hop_frames(const struct ew_hop *hop, struct ew_hop_frames *fr);
void ew_hop_frames_free(struct ew_hop_frames *fr);

/* Read the flows of the first capture (upstream) in its pass of
 * conclusions (conclusions.h), as its report concludes them: a change ECT(0) -> ECT(1) on a direction whose
 * receiver echoes ESCE is SCE marking, which the hop lists but does not count
 * as remarking. Call after ew_hop_finish(), before the hop is reported; a
 * flow no longer in the table (evicted) leaves its changes remarking. */
struct ew_conclusions;
void ew_hop_judge_sce(struct ew_hop *hop, const struct ew_conclusions *c);

/* misuse kinds found on this hop: bit (1 << enum ew_misuse_kind); counts[kind]
 * packets */
uint32_t ew_hop_kinds(const struct ew_hop *hop, uint64_t counts[EW_MU_MASK_BITS]);

#endif /* ECNWATCH_PATHCMP_H */
