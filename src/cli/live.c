/* live.c - live capture loop (see live.h). Signal handlers only set a flag;
 * the loop notices it, stops, writes the report and restores the terminal.
 *
 * With --workers N (N > 1) the interface is read by N threads, each with
 * its own capture handle in one PACKET_FANOUT group (a flow's frames, both
 * directions, go to one of them) and its own analyzer; the main thread
 * keeps the view, the metrics, the event stream and the report, all of
 * which read the mirror (mirror.h), brought up to date from the workers at
 * each refresh and once more when they have stopped. A worker holds its
 * lock while it reads a batch of frames; the main thread takes every lock
 * for a sync, and does the refresh's work (conclusions, events, metrics,
 * drawing) with none held, while the workers read on. */
#include "base/format.h"
#include "cli/live.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/clock.h"
#include "base/outfile.h"
#include "base/thread.h"
#include "engine/mirror.h"
#include "input/capture.h"
#include "cli/cli.h"
#include "cli/privs.h"
#include "dissectors/decap.h"
#include "dissectors/dissect.h"
#include "cli/run.h"
#include "output/exporter.h"
#include "findings/misuse.h"
#include "output/report.h"
#include "ui/ui.h"

#define DISPATCH_BUDGET 512 /* frames per read, so that keys stay responsive */

struct live;

/* a capture thread of --workers */
struct worker {
    struct live *l;
    struct ew_capture *cap;
    struct ew_analyzer an;
    bool have_an;
    enum ew_link link;
    pthread_t thread;
    bool started;
    pthread_mutex_t mu; /* held while it reads a batch, and by a sync */
    char err[EW_ERRBUF_SIZE];
};

struct live {
    const struct ew_run_cfg *cfg;
    enum ew_link link;
    uint64_t frames;
    bool limit_reached;
    bool capture_failed; /* the interface went away: the report says interrupted */
    /* what the loop owns */
    struct ew_capture *cap;
    struct ew_ui *ui;
    struct ew_exporter *mx;
    struct ew_webcfg web; /* --web-config, the exporter's while it runs */
    /* the analyser, the outputs and the end, shared with the offline driver */
    struct ew_run run;
    /* the conclusions of a redraw, which the view reads */
    struct ew_conclusions concl;
    struct ew_pass pass;
    int interval_ms;
    int status;                /* exit status so far */
    bool mx_failed;
    char err[EW_ERRBUF_SIZE];
    /* the status line's rate and drops, taken at each refresh */
    int64_t next_refresh, last_rate_ns;
    int stage; /* the refresh's next step (live_refresh); 0: none under way */
    uint64_t last_frames, recv, drops;
    double rate;
    bool drops_known;
    /* --workers: the threads, and the mirror the outputs read */
    struct worker *w;
    int nw;
    struct ew_mirror mirror;
    atomic_bool workers_stop;
    atomic_int worker_failed; /* the failed worker + 1, 0: none */
};

static int64_t
wall_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void
on_frame(void *arg, const struct ew_frame *fr)
{
    struct live *l = arg;
    struct ew_pkt pkt;

    if (l->limit_reached)
        return;
    ew_dissect_frame(l->link, fr->data, fr->caplen, fr->wirelen, &pkt);
    ew_run_frame(&l->run, fr, &pkt, NULL);
    l->frames++;
    if (l->cfg->count && l->frames >= l->cfg->count)
        l->limit_reached = true;
}

static void
worker_frame(void *arg, const struct ew_frame *fr)
{
    struct worker *w = arg;
    struct ew_pkt pkt;

    ew_dissect_frame(w->link, fr->data, fr->caplen, fr->wirelen, &pkt);
    ew_analyzer_frame(&w->an, &pkt, fr->ts_ns);
}

static void *
worker_main(void *arg)
{
    struct worker *w = arg;
    struct live *l = w->l;
    struct pollfd pfd = {ew_capture_fd(w->cap), POLLIN, 0};

    while (!atomic_load(&l->workers_stop)) {
        int i, n = 0;

        if (poll(&pfd, 1, 100) < 0 && errno != EINTR) {
            snprintf(w->err, sizeof(w->err), "poll: %s", strerror(errno));
            n = -1;
        }
        pthread_mutex_lock(&w->mu);
        for (i = 0; n >= 0 && i < 8; i++) {
            n = ew_capture_dispatch(w->cap, DISPATCH_BUDGET, worker_frame, w, w->err,
                                    sizeof(w->err));
            if (n < DISPATCH_BUDGET)
                break;
        }
        pthread_mutex_unlock(&w->mu);
        if (n < 0) {
            atomic_store(&l->worker_failed, (int)(w - l->w) + 1);
            break;
        }
    }
    return NULL;
}

/* The worker threads' captures, in one fan-out group, and their analyzers,
 * each with its share of the flow table. 0, or the exit status of the
 * failure (its message printed). */
static int
workers_open(struct live *l)
{
    const struct ew_run_cfg *cfg = l->cfg;
    struct ew_analyzer *an[EW_MIRROR_MAX];
    unsigned group = (unsigned)getpid() & 0xffffu;
    /* the UDP ports of the tunnels decapsulated, hashed by their outer
     * addresses (capture.h); ECNWATCH_FANOUT_HASH set: the kernel's own
     * hash, which the tests compare */
    uint16_t ports[EW_DECAP_PORTS_MAX];
    size_t nports = 0;
    bool program = !getenv("ECNWATCH_FANOUT_HASH");
    int i, rc;

    for (i = 0; !ew_decap_active.off && i < ew_decap_active.nports; i++)
        ports[nports++] = ew_decap_active.port[i];

    l->w = calloc((size_t)l->nw, sizeof(*l->w));
    if (!l->w) {
        ew_err("ecnwatch: out of memory\n");
        return 2;
    }
    for (i = 0; i < l->nw; i++)
        pthread_mutex_init(&l->w[i].mu, NULL);
    for (i = 0; i < l->nw; i++) {
        struct worker *w = &l->w[i];
        struct ew_analyzer_cfg acfg = cfg->an;

        w->l = l;
        rc = ew_capture_open_live(cfg->iface, cfg->snaplen, cfg->buffer_kib, cfg->filter, &w->cap,
                                  l->err, sizeof(l->err));
        if (rc != 0) {
            ew_err("ecnwatch: %s\n", l->err);
            return rc == EW_CAP_ERR_FILTER ? 2 : 3;
        }
        rc = ew_capture_fanout(w->cap, group, program, ports, nports, l->err, sizeof(l->err));
        if (rc < 0) {
            ew_err("ecnwatch: %s: %s\n", cfg->iface, l->err);
            return 3;
        }
        if (rc > 0 && program && i == 0)
            ew_err("ecnwatch: %s: the kernel's flow hash shares the frames out: a flow "
                   "carried in a UDP tunnel may be split between workers\n", cfg->iface);
        w->link = ew_capture_link(w->cap);
        /* the events are the mirror's: a worker's flows end and leave
         * without a word */
        acfg.on_evict = NULL;
        acfg.on_end = NULL;
        acfg.max_flows = (acfg.max_flows + (uint32_t)l->nw - 1) / (uint32_t)l->nw;
        if (acfg.hot_flows)
            acfg.hot_flows = (acfg.hot_flows + (uint32_t)l->nw - 1) / (uint32_t)l->nw;
        if (ew_analyzer_init(&w->an, &acfg) != 0) {
            ew_err("ecnwatch: cannot allocate a flow table of %" PRIu32 " flows\n",
                    acfg.max_flows);
            return 2;
        }
        w->have_an = true;
        an[i] = &w->an;
    }
    l->cap = l->w[0].cap; /* the run's name and link type */
    if (ew_mirror_init(&l->mirror, &l->run.an, an, l->nw) != 0) {
        ew_err("ecnwatch: out of memory\n");
        return 2;
    }
    return 0;
}

static int
workers_start(struct live *l)
{
    int i, e;

    for (i = 0; i < l->nw; i++) {
        e = ew_thread_start(&l->w[i].thread, worker_main, &l->w[i]);
        if (e != 0) {
            ew_err("ecnwatch: cannot start a capture thread: %s\n", strerror(e));
            return 2;
        }
        l->w[i].started = true;
    }
    return 0;
}

static void
workers_stop(struct live *l)
{
    int i;

    atomic_store(&l->workers_stop, true);
    for (i = 0; i < l->nw; i++)
        if (l->w[i].started)
            pthread_join(l->w[i].thread, NULL);
    for (i = 0; i < l->nw; i++)
        l->w[i].started = false;
}

/* The capture's counts, every worker's summed. 0, or -1 when unknown. */
static int
live_loss(struct live *l, struct ew_capture_loss *loss)
{
    struct ew_capture_loss one;
    int i;

    if (!l->nw)
        return ew_capture_loss(l->cap, loss);
    memset(loss, 0, sizeof(*loss));
    for (i = 0; i < l->nw; i++) {
        if (ew_capture_loss(l->w[i].cap, &one) != 0)
            return -1;
        loss->received += one.received;
        loss->dropped += one.dropped;
        loss->ifdropped += one.ifdropped;
        loss->ifdrop_known = one.ifdrop_known;
    }
    return 0;
}

/* The mirror brought up to date from the workers (final: they have
 * stopped), and the capture's counts with it. False out of memory. */
static bool
live_sync(struct live *l, bool final)
{
    struct ew_capture_loss loss;
    bool ok;
    int i;

    for (i = 0; i < l->nw && !final; i++)
        pthread_mutex_lock(&l->w[i].mu);
    ok = ew_mirror_sync(&l->mirror, final) == 0;
    l->drops_known = live_loss(l, &loss) == 0;
    for (i = 0; i < l->nw && !final; i++)
        pthread_mutex_unlock(&l->w[i].mu);
    l->recv = loss.received;
    l->drops = loss.dropped + loss.ifdropped;
    return ok;
}

/* Open the capture, bind the metrics (while still privileged: any port can
 * be given), settle the outputs (checked, -w opened: as root, as tcpdump
 * opens its -w file, each file's folder opened and its name fixed, and a
 * helper that keeps root to name the files there, outfile.h), give up root,
 * then start the view. 0, or the exit status of the failure (its message
 * printed). */
static int
live_start(struct live *l)
{
    const struct ew_run_cfg *cfg = l->cfg;
    /* -w - has standard output for the packets: no view, no events there */
    bool save_stdout = cfg->write_file && !strcmp(cfg->write_file, "-");
    /* -q: nothing on standard output, neither the view nor the events
     * (--ndjson asks for them by name) */
    bool quiet = cfg->quiet && !cfg->ndjson;
    bool tty = isatty(STDOUT_FILENO) && !cfg->ndjson && !save_stdout && !quiet;
    struct ew_run_how how = {.kind = "interface",
                             .stream_interval_ns = (int64_t)l->interval_ms * 1000000,
                             .stream_updates = true,
                             .metrics_done = true};
    struct ew_privs pv;
    int rc;

    /* --web-config first: a bad one starts nothing; its certificate and
     * key are read while still root, as the capture is opened */
    if (cfg->web_config && ew_webcfg_load(cfg->web_config, &l->web, l->err, sizeof(l->err)) != 0) {
        ew_err("ecnwatch: %s\n", l->err);
        return 2;
    }
    if (l->nw) {
        rc = workers_open(l);
        if (rc != 0)
            return rc;
    } else {
        rc = ew_capture_open_live(cfg->iface, cfg->snaplen, cfg->buffer_kib, cfg->filter, &l->cap,
                                  l->err, sizeof(l->err));
        if (rc != 0) {
            ew_err("ecnwatch: %s\n", l->err);
            return rc == EW_CAP_ERR_FILTER ? 2 : 3;
        }
    }
    if (cfg->metrics_listen || cfg->metrics_file) {
        struct ew_exporter_cfg xc = {cfg->metrics_listen, cfg->metrics_file, cfg->iface,
                                     l->interval_ms / 1000.0, cfg->web_config ? &l->web : NULL};

        if (ew_exporter_open(&xc, &l->mx, l->err, sizeof(l->err)) != 0) {
            ew_err("ecnwatch: %s\n", l->err);
            return 3;
        }
    }
    if (ew_privs_plan(cfg->user, &pv, l->err, sizeof(l->err)) != 0) {
        ew_err("ecnwatch: %s\n", l->err);
        return 2;
    }
    if (ew_privs_guard(&pv, l->err, sizeof(l->err)) != 0) {
        ew_err("ecnwatch: %s\n", l->err);
        return 4;
    }
    /* the files checked now, not found unwritable when the capture stops
     * (the metrics file is the exporter's, written at each tick); -o -
     * writes the report to standard output at the end: no events there */
    how.streaming =
        !tty && !quiet && !(cfg->out_file && !strcmp(cfg->out_file, "-")) && !save_stdout;
    rc = ew_run_start(&l->run, cfg, &how);
    if (rc == 0)
        rc = ew_run_open(&l->run, l->cap, cfg->iface);
    if (rc != 0)
        return rc;
    if ((rc = ew_privs_drop(&pv, l->err, sizeof(l->err))) != 0) {
        ew_err("ecnwatch: %s\n", l->err);
        return rc;
    }
    l->link = ew_capture_link(l->cap);
    if (tty) {
        l->ui = ew_ui_start(l->err, sizeof(l->err));
        if (!l->ui) {
            ew_err("ecnwatch: %s\n", l->err);
            return 2;
        }
    }
    return l->nw ? workers_start(l) : 0;
}

/* Each interval: the rate and drops of the status line and a metrics tick;
 * an NDJSON interval; a sample for the view (and its drawing). Without
 * workers these are three steps, one a turn, the frames that came meanwhile
 * read between them, so that the kernel's buffer waits for one step at a
 * time, not for all three. False when an output failed. */
static bool
live_refresh(struct live *l, int64_t now, bool *draw)
{
    double dt = (double)(now - l->last_rate_ns) / 1e9;

    if (l->stage == 0) {
        if (l->nw && !live_sync(l, false)) {
            snprintf(l->err, sizeof(l->err), "out of memory for the workers' flows");
            l->mx_failed = true;
            return false;
        }
        l->rate = dt > 0 ? (double)(l->run.an.tot.frames - l->last_frames) / dt : 0;
        l->last_frames = l->run.an.tot.frames;
        l->last_rate_ns = now;
        if (!l->nw)
            l->drops_known = ew_capture_stats(l->cap, &l->recv, &l->drops) == 0;
        if (l->mx) {
            struct ew_metrics_src ms = {l->cfg->iface, l->drops_known, l->recv, l->drops};

            if (ew_exporter_tick(l->mx, &l->run.an, &ms, false, l->err, sizeof(l->err)) != 0) {
                l->mx_failed = true;
                return false;
            }
        }
        l->next_refresh = now + (int64_t)l->interval_ms * 1000000;
        l->stage = 1;
        if (!l->nw)
            return true;
    }
    if (l->stage == 1) {
        if (ew_run_tick(&l->run, wall_ns()) != 0)
            return false; /* the output's close or finish says why */
        l->stage = 2;
        if (!l->nw)
            return true;
    }
    if (l->ui) {
        ew_ui_sample(l->ui, &l->run.an);
        *draw = !ew_ui_paused(l->ui);
    }
    l->stage = 0;
    return true;
}

/* One turn of the loop: wait (at most 100 ms) for frames, keys or metrics
 * clients, read a bounded number of batches, refresh when due, draw. False
 * when the loop ends (l->status says why when it is an error). */
static bool
live_turn(struct live *l)
{
    struct pollfd pfd[2 + EW_EXPORTER_MAX_FDS];
    int nfd = 0, timeout, i, keys = 0, first_mx, nmx = 0;
    bool draw = false;
    int64_t now = ew_mono_ns();

    if (!l->nw) {
        pfd[nfd].fd = ew_capture_fd(l->cap);
        pfd[nfd++].events = POLLIN;
    }
    if (l->ui) {
        pfd[nfd].fd = STDIN_FILENO;
        pfd[nfd++].events = POLLIN;
    }
    timeout = (int)((l->next_refresh - now) / 1000000);
    if (timeout < 0)
        timeout = 0;
    if (timeout > 100)
        timeout = 100; /* also wakes a capture descriptor that does not signal */
    if (l->stage)
        timeout = 0; /* the refresh's next step is due */
    first_mx = nfd; /* the metrics server's connections, when --metrics */
    if (l->mx)
        nmx = ew_exporter_pollfds(l->mx, pfd + nfd, EW_EXPORTER_MAX_FDS, &timeout);
    nfd += nmx;
    if (poll(pfd, (nfds_t)nfd, timeout) < 0 && errno != EINTR) {
        ew_err("ecnwatch: poll: %s\n", strerror(errno));
        l->status = 3;
        return false;
    }
    if (l->nw && atomic_load(&l->worker_failed)) {
        int k = atomic_load(&l->worker_failed) - 1;

        if (l->ui)
            ew_ui_stop(l->ui);
        l->ui = NULL;
        ew_err("ecnwatch: %s: %s\n", l->cfg->iface, l->w[k].err);
        l->status = 3;
        l->capture_failed = true;
        return false;
    }
    /* read what is waiting, a bounded number of batches per turn */
    for (i = 0; i < 8 && !l->nw; i++) {
        int n = ew_capture_dispatch(l->cap, DISPATCH_BUDGET, on_frame, l, l->err, sizeof(l->err));

        if (n < 0) {
            if (l->ui)
                ew_ui_stop(l->ui);
            l->ui = NULL;
            ew_err("ecnwatch: %s: %s\n", l->cfg->iface, l->err);
            l->status = 3;
            l->capture_failed = true; /* the report covers what was read, cut short */
            return false;
        }
        if (n < DISPATCH_BUDGET || l->limit_reached)
            break;
    }
    if (l->ui) {
        keys = ew_ui_keys(l->ui);
        if (keys & EW_UI_QUIT)
            return false;
        /* c clears the view only: the analyzer keeps every packet for
         * the outputs written at the end */
        if (keys & EW_UI_CLEAR)
            ew_ui_clear(l->ui, &l->run.an);
    }
    now = ew_mono_ns();
    if ((l->stage || now >= l->next_refresh) && !live_refresh(l, now, &draw)) {
        l->status = 4;
        return false;
    }
    if (l->mx)
        ew_exporter_serve(l->mx, pfd + first_mx, nmx);
    if (l->ui && (draw || (keys & EW_UI_REDRAW))) {
        struct ew_ui_status st = {l->cfg->iface, l->run.an.tot.frames, l->rate, l->drops,
                                  l->drops_known, wall_ns()};

        /* out of memory: the pass has no rows, and the view says so */
        (void)ew_analyzer_pass(&l->run.an, &l->concl, EW_PASS_BOTTLENECKS, NULL);
        ew_pass_init(&l->pass, &l->run.an, &l->concl, &l->run.src, NULL);
        ew_ui_draw(l->ui, &l->pass, &st);
    }
    return true;
}

/* After the loop: the metrics file's final counts, the NDJSON end, the -o
 * report, --fail-on. Each failure is a message and exit status 4. */
static void
live_finish(struct live *l, bool interrupted)
{
    const struct ew_run_cfg *cfg = l->cfg;
    struct ew_report_src *src = &l->run.src;
    struct ew_capture_loss loss;
    int rc;

    if (l->mx) {
        /* the file ends with the final counts */
        if (!l->mx_failed && cfg->metrics_file && l->run.have_an) {
            struct ew_metrics_src ms = {cfg->iface, false, 0, 0};

            if (l->nw) {
                ms.have_capture = l->drops_known;
                ms.received = l->recv;
                ms.dropped = l->drops;
            } else {
                ms.have_capture = ew_capture_stats(l->cap, &ms.received, &ms.dropped) == 0;
            }
            l->mx_failed =
                ew_exporter_tick(l->mx, &l->run.an, &ms, true, l->err, sizeof(l->err)) != 0;
        }
        if (l->mx_failed || ew_exporter_error(l->mx)) {
            ew_err("ecnwatch: %s\n", l->mx_failed ? l->err : ew_exporter_error(l->mx));
            if (l->status == 0)
                l->status = 4;
        }
        ew_exporter_close(l->mx);
        l->mx = NULL;
    }
    if (interrupted)
        src->interrupted = true;
    if (live_loss(l, &loss) == 0) {
        src->have_loss = true;
        src->loss_received = loss.received;
        src->loss_dropped = loss.dropped;
        src->loss_ifdropped = loss.ifdropped;
        src->loss_ifdrop_known = loss.ifdrop_known;
    }
    /* the packets captured are kept, whatever else failed */
    rc = ew_run_close(&l->run, true);
    if (l->status == 0)
        l->status = rc;
    if (l->run.have_an) {
        rc = ew_run_end(&l->run);
        if (l->status == 0)
            l->status = rc;
        if (l->status == 0)
            l->status = ew_run_fail_on(&l->run);
    }
    if (!l->ui && !l->run.out.stream && l->run.have_an)
        ew_err("ecnwatch: %" PRIu64 " frames\n", l->run.an.tot.frames);
    if (l->nw && l->run.have_an) {
        /* how the fan-out spread them */
        char line[512];
        size_t n = (size_t)snprintf(line, sizeof(line), "ecnwatch: frames by worker:");

        for (int i = 0; i < l->nw && n < sizeof(line); i++)
            n += (size_t)snprintf(line + n, sizeof(line) - n, " %" PRIu64, l->w[i].an.tot.frames);
        ew_err("%s\n", line);
    }
    /* the summary's line of the capture's loss, however the capture was shown */
    if (src->loss_dropped || src->loss_ifdropped)
        ew_err(
                "ecnwatch: capture loss: of %" PRIu64 " packets the kernel received, %" PRIu64
                " dropped by its buffer and %" PRIu64 " by the interface (raise -B)\n",
                src->loss_received, src->loss_dropped, src->loss_ifdropped);
}

static void
live_close(struct live *l)
{
    if (l->ui)
        ew_ui_stop(l->ui);
    l->ui = NULL;
    ew_exporter_close(l->mx);
    l->mx = NULL;
    ew_webcfg_free(&l->web);
    ew_conclusions_free(&l->concl);
    ew_run_free(&l->run); /* a start that failed after -w was opened: nothing kept */
    if (l->nw) {
        int i;

        workers_stop(l);
        ew_mirror_free(&l->mirror);
        for (i = 0; l->w && i < l->nw; i++) {
            if (l->w[i].have_an)
                ew_analyzer_free(&l->w[i].an);
            ew_capture_close(l->w[i].cap);
            pthread_mutex_destroy(&l->w[i].mu);
        }
        free(l->w);
        l->cap = NULL;
    }
    ew_capture_close(l->cap);
    ew_privs_end(); /* root's helper ends, what it never named removed */
}

int
ew_live_run(const struct ew_run_cfg *cfg, volatile sig_atomic_t *stop)
{
    struct live *l = calloc(1, sizeof(*l));
    int rc;

    if (!l) {
        ew_err("ecnwatch: out of memory\n");
        return 2;
    }
    l->cfg = cfg;
    l->nw = cfg->workers > 1 ? cfg->workers : 0;
    l->interval_ms = (int)(cfg->interval_s * 1000);
    if (l->interval_ms < 100)
        l->interval_ms = 100;
    rc = live_start(l);
    if (rc != 0) {
        live_close(l);
        free(l);
        return rc;
    }
    l->next_refresh = ew_mono_ns();
    l->last_rate_ns = l->next_refresh;
    /* a signal, -c, or the event stream's reader gone (EPIPE) ends it */
    while (!*stop && !l->limit_reached && !l->run.stream.reader_gone && live_turn(l))
        ;
    /* the terminal is restored before any message of the end is printed */
    if (l->ui)
        ew_ui_stop(l->ui);
    l->ui = NULL;
    if (l->nw) {
        /* the workers' last frames, every flow with its QUIC state */
        workers_stop(l);
        if (!live_sync(l, true)) {
            ew_err("ecnwatch: out of memory for the workers' flows\n");
            l->status = 4;
        }
    }
    live_finish(l, *stop != 0 || l->run.stream.reader_gone || l->capture_failed);
    live_close(l);
    rc = l->status;
    free(l);
    return rc;
}
