/* ui_base.h - what the live view counts from after c (clear). Clearing the
 * view changes nothing behind it: the analyzer keeps every packet, so that
 * the -o report, -w, --plot, --metrics-file and --ndjson get the whole
 * capture. The view keeps instead the counts it had when c was pressed, and
 * shows what came since: the header's packets, drops and flows, the
 * codepoint shares, the misuse count, and each flow's packets and shares;
 * a flow with no packet since is not listed. */
#ifndef ECNWATCH_UI_BASE_H
#define ECNWATCH_UI_BASE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine/analyze.h"
#include "flow/flow.h"
#include "output/snapshot.h"

/* a flow's counts when c was pressed, by canonical direction */
struct ew_ui_base_flow {
    uint64_t id;
    uint64_t pkts[2];
    uint64_t ecn[2][4];
};

struct ew_ui_base {
    bool on;      /* c was pressed: counts are since then */
    bool partial; /* out of memory then: the flows' own counts are whole */
    uint64_t frames, ip_packets, ecn[4];
    uint64_t created;  /* flows created */
    uint64_t findings; /* misuse findings of the flows evicted */
    uint64_t drops;    /* kernel drops */
    bool drops_pending; /* taken at the next status the view gets */
    /* every flow held, by id */
    struct ew_ui_base_flow *f;
    size_t n, cap;
};

/* Take the counts of an now (the view is cleared). 0, or -1 out of memory:
 * then only the totals are taken (partial). */
int ew_ui_base_take(struct ew_ui_base *b, const struct ew_analyzer *an);
void ew_ui_base_free(struct ew_ui_base *b);

/* the counts of flow id when c was pressed, or NULL (a flow since) */
const struct ew_ui_base_flow *ew_ui_base_find(const struct ew_ui_base *b, uint64_t id);

/* The rows of s (still in id order) counted since c: packets and the list
 * direction's shares; a row of a flow from before with no packet since is
 * left out. tab is the table the rows were built from, room a scratch
 * flow. Returns how many rows kept are of flows from before c. */
size_t ew_ui_base_rows(const struct ew_ui_base *b, struct ew_snapshot *s,
                       const struct ew_flowtab *tab, struct ew_flow_room *room);

/* direction d of flow f counted since c: packets and codepoints (the other
 * members as they are) */
void ew_ui_base_dir(const struct ew_ui_base *b, const struct ew_flow *f, int d,
                    struct ew_dir_stats *out);

#endif /* ECNWATCH_UI_BASE_H */
