/* live.h - live capture: one thread, one poll loop over the capture
 * descriptor, the keyboard and the refresh timer; an ncurses view when
 * standard output is a terminal, an NDJSON stream otherwise. */
#ifndef ECNWATCH_LIVE_H
#define ECNWATCH_LIVE_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "engine/analyze.h"

struct ew_live_cfg {
    const char *iface;
    const char *filter;     /* NULL for none */
    int snaplen;
    int buffer_kib;         /* 0: libpcap's default */
    uint64_t count;         /* stop after this many frames; 0 for no limit */
    const char *user;       /* drop to this user after opening; NULL: "nobody" when root */
    bool ndjson;            /* stream NDJSON even on a terminal */
    uint64_t max_output;    /* bytes of NDJSON events; 0: no limit */
    const char *out_file;   /* the JSON report, written when capture stops; or NULL */
    uint32_t fail_on;       /* mask of misuse kinds for exit status 1 */
    double interval_s;      /* refresh and stream interval */
    const char *metrics_listen; /* --metrics ADDR:PORT, or NULL */
    const char *metrics_file;   /* --metrics-file PATH, or NULL */
    const char *write_file;     /* -w: the frames captured, as pcap; or NULL */
    bool timeseries;            /* per-flow time series (the -o report, the events) */
    const char *plot_dir;       /* --plot DIR, written when capture stops; or NULL */
    double series_interval_s;   /* the time series' first bin width */
    struct ew_analyzer_cfg an;
};

/* Run until q, a signal (the flag becomes non-zero), -c, or an error.
 * Returns the exit status (see ecnwatch(1)). */
int ew_live_run(const struct ew_live_cfg *cfg, volatile sig_atomic_t *stop);

#endif /* ECNWATCH_LIVE_H */
