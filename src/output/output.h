/* output.h - the outputs of a run and what they write from.
 *
 * One run configuration (struct ew_run_cfg) says what was asked for, live
 * or from files. Every output is a row of one table (outputs.c) with the
 * same hooks: whether the run wants it, a check at start-up (before the
 * first packet, so that nothing is found unwritable after the capture), an
 * open on the capture analysed, a tick per frame and per live refresh, a
 * close when that capture ends, and its writing at the end from one pass of
 * conclusions (struct ew_pass: the rows of every flow held, their
 * bottlenecks, and the findings counted with the flows that left the
 * table). A new format is one file and one row there. */
#ifndef ECNWATCH_OUTPUT_H
#define ECNWATCH_OUTPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "engine/analyze.h"
#include "findings/conclusions.h"
#include "input/frame.h"

struct ew_capture;
struct ew_savefile;
struct ew_report_src;
struct ew_report_path;
struct ew_probe_summary;
struct ew_stream;
struct ew_hop;

/* what the command line asked for (main.c fills it once; cli.h, ecnwatch(1)) */
struct ew_run_cfg {
    bool live;                /* -i: iface; else -r: files */
    /* the source */
    const char *iface;
    int snaplen;
    int buffer_kib;           /* 0: libpcap's default */
    int workers;              /* capture threads, each with its analyzer (live.c); 1: none */
    const char *user;         /* drop to this user after opening; NULL: "nobody" when root */
    double interval_s;        /* the live refresh and stream interval */
    const char *const *files; /* upstream first; only the first may be "-" (standard input) */
    int nfiles;
    const char *filter;       /* NULL for none */
    uint64_t count;           /* stop after this many frames (of each capture); 0: no limit */
    /* the outputs */
    bool json;                /* the JSON report to standard output (files) */
    bool ndjson;              /* the event stream to standard output */
    uint64_t max_output;      /* bytes of events in that stream; 0: no limit */
    bool quiet;               /* no text summary (files) */
    const char *out_file;     /* -o: the JSON report, or NULL */
    size_t text_flows;        /* flows listed in the text summary */
    int text_sort;            /* enum ew_text_sort (report.h) */
    bool text_all;            /* --text-all: small flows without ECN listed too */
    uint32_t fail_on;         /* mask of misuse kinds for exit status 1 */
    bool timeseries;          /* per-flow time series in the report and the events */
    const char *plot_dir;     /* --plot DIR, or NULL */
    const char *csv_file;     /* --csv FILE: a line per flow ("-": standard output), or NULL */
    double series_interval_s; /* the time series' first bin width */
    const char *metrics_listen; /* --metrics ADDR:PORT (live), or NULL */
    const char *web_config;     /* --web-config FILE: TLS and authentication, or NULL */
    const char *metrics_file; /* --metrics-file PATH, or NULL */
    const char *write_file;   /* -w: the frames read, as pcap; or NULL */
    const char *probe_report; /* --probe-report FILE: a probe's report of the path, or NULL */
    struct ew_analyzer_cfg an;
};

/* one moment's pass: the rows of every flow held, their bottlenecks, and the
 * findings counted with the flows that left the table */
struct ew_pass {
    const struct ew_analyzer *an;
    const struct ew_conclusions *c;
    const struct ew_report_src *src;
    const struct ew_report_path *path; /* several captures of the same traffic, or NULL */
    uint64_t counts[EW_MU_MASK_BITS];  /* flows with each misuse kind (ew_analyzer_findings) */
    uint32_t found;                    /* the kinds found */
    const struct ew_probe_summary *probe; /* --probe-report, or NULL */
};

/* Fill p for the pass c (of every flow held, EW_PASS_BOTTLENECKS) over an. */
void ew_pass_init(struct ew_pass *p, const struct ew_analyzer *an, const struct ew_conclusions *c,
                  const struct ew_report_src *src, const struct ew_report_path *path);

/* what the outputs of the end of a run write to, besides the pass */
struct ew_out_ctx {
    const struct ew_run_cfg *cfg;
    FILE *out;                  /* standard output */
    struct ew_stream *stream;   /* the event stream, when the run streams; else NULL */
    bool metrics_done;          /* --metrics-file is the live exporter's: not written here */
    struct ew_savefile *save;   /* -w, while its capture is open */
    /* the rows with a tick the run wants (ew_outputs_start()) */
    const struct ew_output *ticking[4];
    int nticking;
};

/* one output of the end of a run */
struct ew_output {
    const char *name;
    /* the run asks for it */
    bool (*wanted)(const struct ew_out_ctx *x);
    /* at start-up, as the user the run writes as: 0, or -1 with one line in err */
    int (*check)(const struct ew_out_ctx *x, char *err, size_t errlen);
    /* the capture analysed was opened: 0, or -1 with one line in err */
    int (*open)(struct ew_out_ctx *x, const struct ew_capture *cap, char *err, size_t errlen);
    /* as time passes: per frame read (fr, at its time) and per live refresh
     * (fr NULL, the wall clock); 0, or -1 when the output failed (its close
     * or finish says why) */
    int (*tick)(const struct ew_out_ctx *x, const struct ew_frame *fr, int64_t now_ns);
    /* the capture analysed ended; keep: what was written is kept. 0, or -1
     * with one line in err */
    int (*close)(struct ew_out_ctx *x, bool keep, char *err, size_t errlen);
    /* at the end, from the pass p: 0, or -1 with one line in err */
    int (*finish)(const struct ew_out_ctx *x, const struct ew_pass *p, char *err, size_t errlen);
};

/* the table, in the order the outputs are written; ends with a NULL name */
extern const struct ew_output ew_outputs[];

/* Check every output the run wants. 0, or -1 with the first failure's line
 * in err. */
int ew_outputs_check(const struct ew_out_ctx *x, char *err, size_t errlen);

/* Before the first packet, once x says what the run writes: the rows that
 * tick. */
void ew_outputs_start(struct ew_out_ctx *x);

/* The capture analysed was opened (ew_output.open): 0, or -1 with the
 * failure's line in err. */
int ew_outputs_open(struct ew_out_ctx *x, const struct ew_capture *cap, char *err, size_t errlen);

/* Time passes (ew_output.tick): 0, or -1 when an output failed. */
int ew_outputs_tick_all(const struct ew_out_ctx *x, const struct ew_frame *fr, int64_t now_ns);
static inline int
ew_outputs_tick(const struct ew_out_ctx *x, const struct ew_frame *fr, int64_t now_ns)
{
    return x->nticking ? ew_outputs_tick_all(x, fr, now_ns) : 0;
}

/* The capture analysed ended (ew_output.close), each output closed even when
 * one before failed, each failure printed as one line to standard error. 0,
 * or -1 when any failed. */
int ew_outputs_close(struct ew_out_ctx *x, bool keep);

/* Does the run want any output written at its end? */
bool ew_outputs_wanted(const struct ew_out_ctx *x);

/* Write every output the run wants from p, each tried even when one before
 * failed; each failure is printed as one line to standard error. 0, or -1
 * when any failed. */
int ew_outputs_finish(const struct ew_out_ctx *x, const struct ew_pass *p);

#endif /* ECNWATCH_OUTPUT_H */
