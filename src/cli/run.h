/* run.h - one run, live or from files: what both drivers share.
 *
 * A driver (live.c, offline.c) is only a source: it opens its captures,
 * decodes their frames and hands each to the run, and says when time passes.
 * The run owns the rest, in this order:
 *
 *   ew_run_start()        the outputs the run wants, checked before the first
 *                         packet; the event stream; the analyzer and series
 *   ew_run_open()         a capture was opened: its name and link type, and
 *                         the outputs that write its frames (-w) opened on it
 *   ew_run_frame()        per frame, in capture order (the hot path: inline)
 *   ew_run_tick()         the wall clock of a live refresh
 *   ew_run_close()        the capture ends: those outputs closed, what they
 *                         hold kept
 *   ew_run_end()          every flow concluded once (conclusions.h), the
 *                         hops between captures judged, every output the run
 *                         asked for written from that one pass (output.h)
 *   ew_run_fail_on()      --fail-on on the same rows
 *   ew_run_free()
 */
#ifndef ECNWATCH_RUN_H
#define ECNWATCH_RUN_H

#include <stdbool.h>
#include <stdint.h>

#include "engine/analyze.h"
#include "findings/conclusions.h"
#include "findings/pathcmp.h"
#include "infer/series.h"
#include "input/frame.h"
#include "output/output.h"
#include "output/report.h"
#include "output/stream.h"

struct ew_capture;

struct ew_run {
    const struct ew_run_cfg *cfg;
    struct ew_analyzer an;
    bool have_an;
    struct ew_stream stream;
    struct ew_series_pool series;      /* --timeseries, --plot: allocated once, bounded */
    struct ew_report_src src;
    struct ew_out_ctx out;             /* its cfg, standard output, the stream, -w */
    struct ew_report_path path;        /* the captures and hops between them; 1 capture: none */
    struct ew_conclusions concl;       /* the end's */
    struct ew_pass pass;
    struct ew_probe_summary *probe;    /* --probe-report, read at the start */
};

/* how the driver shows the run */
struct ew_run_how {
    const char *kind;          /* "file" or "interface" */
    bool streaming;            /* the event stream goes to standard output */
    int64_t stream_interval_ns;
    bool stream_updates;       /* live: a flow_update per interval */
    bool metrics_done;         /* --metrics-file is the live exporter's */
};

/* Before the first packet (live: before root drops to -Z's user, so that
 * the outputs' destinations are settled as root, outfile.h): the outputs
 * checked, the stream, the analyzer. 0, or an exit status (its one line
 * printed). */
int ew_run_start(struct ew_run *r, const struct ew_run_cfg *cfg, const struct ew_run_how *how);

/* The capture the run analyses was opened as name: the report's source, and
 * the outputs that write its frames opened on it. 0, or EW_EXIT_OUTPUT (the
 * line printed). */
int ew_run_open(struct ew_run *r, const struct ew_capture *cap, const char *name);

/* One frame of the analysed capture, decoded into pkt (pre: its hashes, from
 * ew_analyzer_prepare, or NULL). */
static inline void
ew_run_frame(struct ew_run *r, const struct ew_frame *fr, const struct ew_pkt *pkt,
             const struct ew_prepared *pre)
{
    if (pre)
        ew_analyzer_frame_prepared(&r->an, pkt, fr->ts_ns, pre);
    else
        ew_analyzer_frame(&r->an, pkt, fr->ts_ns);
    ew_outputs_tick(&r->out, fr, fr->ts_ns);
}

/* A live refresh at the wall clock now_ns. 0, or EW_EXIT_OUTPUT when an
 * output failed (the line printed). */
int ew_run_tick(struct ew_run *r, int64_t now_ns);

/* The analysed capture ended (keep: what its outputs hold is kept, else it
 * was a start that failed). 0, or EW_EXIT_OUTPUT (the line printed). */
int ew_run_close(struct ew_run *r, bool keep);

/* Conclude, judge the hops, write the outputs. The exit status: 0, or
 * EW_EXIT_OUTPUT when the conclusions or an output failed (each said in one
 * line on standard error). What could be written is written. */
int ew_run_end(struct ew_run *r);

/* --fail-on on the pass of ew_run_end(): EW_EXIT_FAIL_ON (the line that
 * names what matched printed) or 0. */
int ew_run_fail_on(const struct ew_run *r);

void ew_run_free(struct ew_run *r);

#endif /* ECNWATCH_RUN_H */
