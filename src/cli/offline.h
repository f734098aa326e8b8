/* offline.h - reading captures (-r): the live driver's counterpart (live.h).
 * One capture is read to its end, -c or a signal, and analysed; several are
 * the same traffic captured along its path, upstream first: the first is
 * analysed, and each is matched against the one before it (pathcmp.h). The
 * outputs are written once, at the end: the text summary, --json, --ndjson's
 * summary, -o, --metrics-file, --plot. */
#ifndef ECNWATCH_OFFLINE_H
#define ECNWATCH_OFFLINE_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine/analyze.h"

struct ew_offline_cfg {
    const char *const *files; /* upstream first; only the first may be "-" (standard input) */
    int nfiles;               /* at least 1 */
    const char *filter;       /* NULL for none */
    uint64_t count;           /* stop after this many frames of each capture; 0 for no limit */
    bool json;                /* the JSON report to standard output */
    bool ndjson;              /* the event stream to standard output */
    uint64_t max_output;      /* bytes of events in that stream; 0: no limit */
    bool quiet;               /* no text summary */
    const char *out_file;     /* the JSON report, or NULL */
    size_t text_flows;        /* flows listed in the text summary */
    uint32_t fail_on;         /* mask of misuse kinds for exit status 1 */
    bool timeseries;          /* per-flow time series in the JSON report */
    const char *plot_dir;     /* --plot DIR, or NULL */
    double series_interval_s; /* the time series' first bin width */
    const char *metrics_file; /* --metrics-file PATH, or NULL */
    const char *write_file;   /* -w: the first capture's frames read, as pcap; or NULL */
    struct ew_analyzer_cfg an;
};

/* Read, analyse, and write the outputs; the flag becoming non-zero (a
 * signal) stops the reading, and what was read is reported. Returns the exit
 * status (see ecnwatch(1)). */
int ew_offline_run(const struct ew_offline_cfg *cfg, volatile sig_atomic_t *stop);

#endif /* ECNWATCH_OFFLINE_H */
