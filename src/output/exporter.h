/* exporter.h - live-mode metrics: --metrics serves GET /metrics over HTTP
 * (libmicrohttpd) and --metrics-file rewrites a file, both with the text of
 * metrics.h as of the latest refresh tick.
 *
 * No thread: the web server runs in libmicrohttpd's external-polling mode.
 * The live loop adds the server's descriptors to its poll() set
 * (ew_exporter_pollfds) and lets it work on what is ready
 * (ew_exporter_serve), so requests are answered between packet batches and
 * nothing touches the analyzer concurrently. A request only queues the
 * response built at the latest tick; it costs no analysis. */
#ifndef ECNWATCH_EXPORTER_H
#define ECNWATCH_EXPORTER_H

#include <poll.h>
#include <stdbool.h>
#include <stddef.h>

#include "engine/analyze.h"
#include "output/metrics.h"
#include "output/webconfig.h"

/* live HTTP connections at once: when they are all taken, the one that has
 * made no progress for the longest time makes way for a new one (the policy
 * is explained in exporter.c) */
#define EW_EXPORTER_CONNS 128
/* connections one client address may hold at once; one more is closed at
 * once (a Prometheus server keeps one, a browser about six) */
#define EW_EXPORTER_CONNS_PER_IP 8
/* seconds a request may take to arrive whole, counted from the connection's
 * start or from the end of the previous response on it: a client that sends
 * a byte now and then (slowloris) is cut off all the same */
#define EW_EXPORTER_REQUEST_S 5
/* the descriptors the loop polls for the server: the listening socket, the
 * live connections and those evicted but not yet closed */
#define EW_EXPORTER_MAX_FDS (2 * EW_EXPORTER_CONNS + 2)

struct ew_exporter_cfg {
    const char *listen;    /* --metrics ADDR:PORT, or NULL */
    const char *file;      /* --metrics-file PATH, or NULL */
    const char *interface; /* for ecnwatch_info */
    double interval_s;     /* the refresh interval */
    /* --web-config, loaded, or NULL: TLS when it has a certificate (its key
     * is wiped once the server has it), basic authentication when it has
     * users; the caller keeps it while the exporter runs */
    struct ew_webcfg *web;
};

struct ew_exporter;

/* Listen (before privileges are dropped, so any port can be bound). 0, or -1
 * with a one-line message: the address cannot be bound (in use, not on this
 * host, no permission). */
int ew_exporter_open(const struct ew_exporter_cfg *cfg, struct ew_exporter **out, char *err,
                     size_t errlen);

/* Append the descriptors the web server waits on to pfd (at most room);
 * returns how many. Lowers *timeout_ms when the server must run sooner. */
int ew_exporter_pollfds(struct ew_exporter *x, struct pollfd *pfd, int room, int *timeout_ms);

/* After poll(): serve what is ready; pfd and n as ew_exporter_pollfds gave. */
void ew_exporter_serve(struct ew_exporter *x, const struct pollfd *pfd, int n);

/* At a refresh tick: a new snapshot of the counters, served from now on and
 * written to the metrics file. The per-flow gauges are recomputed at most
 * once per interval, and less often when computing them takes more than a
 * tenth of the time between two computations; `last` (capture has stopped)
 * recomputes them. Returns -1 with a message only when the file's first
 * write fails; later failures are kept for ew_exporter_error(). */
int ew_exporter_tick(struct ew_exporter *x, const struct ew_analyzer *an,
                     const struct ew_metrics_src *src, bool last, char *err, size_t errlen);

/* The last failure to write the metrics file after its first write, or NULL. */
const char *ew_exporter_error(const struct ew_exporter *x);

void ew_exporter_close(struct ew_exporter *x);

#endif /* ECNWATCH_EXPORTER_H */
