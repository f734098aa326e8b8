/* stream.h - NDJSON events (--ndjson): one JSON object per line, flushed
 * each interval of packet time.
 *   {"event":"finding", "time", "flow", "client", "server", "proto", FINDING...}
 *       a misuse kind found on a flow, once per flow and kind, when found
 *   {"event":"flow_update", "time", "flow": FLOW}  (live mode) each interval
 *   {"event":"flow_end", "time", "reason": "idle"|"evicted"|"capture_end", "flow": FLOW}
 *   {"event":"summary", "time", "source", "totals", "flow_ends_summarised",
 *    "events_dropped"}  last
 * Findings are looked for once per interval, on the flows active in it.
 *
 * The stream's size is bounded: a flow evicted from a full table that
 * carries nothing of interest (its verdict not_ecn, no finding) gets no
 * flow_end of its own, only a count in the summary (a flood of one-packet
 * flows would otherwise write kilobytes each); and with a byte limit
 * (--max-output) no event but the summary is written past it, each one
 * left out counted. */
#ifndef ECNWATCH_STREAM_H
#define ECNWATCH_STREAM_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "engine/analyze.h"
#include "base/jw.h"
#include "findings/conclusions.h"
#include "output/report.h"

struct ew_stream {
    FILE *out;
    struct ew_analyzer *an;
    int64_t interval_ns;
    int64_t next_tick;
    int64_t last_tick;
    bool started;
    bool updates; /* also flow_update events (live mode) */
    bool error;   /* a write failed */
    bool reader_gone; /* ... because its reader left (EPIPE: | head): no error, an end */
    uint64_t max_bytes;  /* events past this many bytes are left out; 0: no limit */
    uint64_t summarised; /* evicted flows of no interest: no flow_end written */
    uint64_t dropped;    /* events left out past max_bytes */
    struct jw w;  /* the events, compact, through buf */
    struct ew_conclusions pass; /* the interval's (its memory kept) */
    struct ew_flow_summary fr; /* the flow being written */
    struct ew_flow_room room;
    char buf[JW_BUF];
};

void ew_stream_init(struct ew_stream *s, FILE *out, int64_t interval_ns, bool updates);
/* bound the events (not the summary) to about max_bytes; 0: no limit */
void ew_stream_limit(struct ew_stream *s, uint64_t max_bytes);
/* connect to the analyzer's flow ends and evictions (call before the first packet) */
void ew_stream_attach(struct ew_stream *s, struct ew_analyzer_cfg *cfg);
void ew_stream_bind(struct ew_stream *s, struct ew_analyzer *an);
/* after each packet at packet time now: runs the interval's work when due */
void ew_stream_packet(struct ew_stream *s, int64_t now_ns);
/* at the end: flow_end for every live flow of the final pass p (of every
 * flow held, with bottlenecks), then the summary */
void ew_stream_finish(struct ew_stream *s, const struct ew_pass *p);
void ew_stream_free(struct ew_stream *s);

#endif /* ECNWATCH_STREAM_H */
