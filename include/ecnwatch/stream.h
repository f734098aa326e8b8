/* stream.h - NDJSON events (--ndjson): one JSON object per line, flushed
 * each interval of packet time.
 *   {"event":"finding", "time", "flow", "client", "server", "proto", FINDING...}
 *       a misuse kind found on a flow, once per flow and kind, when found
 *   {"event":"flow_update", "time", "flow": FLOW}  (live mode) each interval
 *   {"event":"flow_end", "time", "reason": "idle"|"evicted"|"capture_end", "flow": FLOW}
 *   {"event":"summary", "time", "source", "totals"}  last
 * Findings are looked for once per interval, on the flows active in it. */
#ifndef ECNWATCH_STREAM_H
#define ECNWATCH_STREAM_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "ecnwatch/analyze.h"
#include "ecnwatch/jw.h"
#include "ecnwatch/report.h"

struct ew_stream {
    FILE *out;
    struct ew_analyzer *an;
    int64_t interval_ns;
    int64_t next_tick;
    int64_t last_tick;
    bool started;
    bool updates; /* also flow_update events (live mode) */
    bool error;   /* a write failed */
    struct jw w;  /* the events, compact, through buf */
    struct ew_flow_summary fr; /* the flow being written */
    char buf[JW_BUF];
};

void ew_stream_init(struct ew_stream *s, FILE *out, int64_t interval_ns, bool updates);
/* connect to the analyzer's flow ends and evictions (call before the first packet) */
void ew_stream_attach(struct ew_stream *s, struct ew_analyzer_cfg *cfg);
void ew_stream_bind(struct ew_stream *s, struct ew_analyzer *an);
/* after each packet at packet time now: runs the interval's work when due */
void ew_stream_packet(struct ew_stream *s, int64_t now_ns);
/* at the end: flow_end for every live flow, then the summary */
void ew_stream_finish(struct ew_stream *s, const struct ew_report_src *src);

#endif /* ECNWATCH_STREAM_H */
