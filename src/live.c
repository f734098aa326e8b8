/* live.c - live capture loop (see live.h). Signal handlers only set a flag;
 * the loop notices it, stops, writes the report and restores the terminal. */
#include "ecnwatch/live.h"

#include <errno.h>
#include <grp.h>
#include <inttypes.h>
#include <poll.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ecnwatch/capture.h"
#include "ecnwatch/cli.h"
#include "ecnwatch/dissect.h"
#include "ecnwatch/exporter.h"
#include "ecnwatch/misuse.h"
#include "ecnwatch/report.h"
#include "ecnwatch/stream.h"
#include "ecnwatch/ui.h"

#define DISPATCH_BUDGET 512 /* frames per read, so that keys stay responsive */

struct live {
    const struct ew_live_cfg *cfg;
    struct ew_analyzer an;
    bool have_an;
    struct ew_stream stream;
    bool streaming;
    enum ew_link link;
    uint64_t frames;
    bool limit_reached;
};

static int64_t
wall_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int64_t
mono_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
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
    ew_analyzer_frame(&l->an, &pkt, fr->ts_ns);
    if (l->streaming)
        ew_stream_packet(&l->stream, fr->ts_ns);
    l->frames++;
    if (l->cfg->count && l->frames >= l->cfg->count)
        l->limit_reached = true;
}

/* Open the capture first, then give up root before any packet is read. */
static int
drop_privileges(const char *user, char *err, size_t errlen)
{
    struct passwd *pw;

    if (geteuid() != 0)
        return 0;
    if (!user)
        user = "nobody";
    if (!strcmp(user, "root"))
        return 0;
    pw = getpwnam(user);
    if (!pw) {
        snprintf(err, errlen, "-Z %s: no such user", user);
        return -1;
    }
    if (setgroups(1, &pw->pw_gid) != 0 || setgid(pw->pw_gid) != 0 || setuid(pw->pw_uid) != 0) {
        snprintf(err, errlen, "cannot drop privileges to %s: %s", user, strerror(errno));
        return -1;
    }
    if (setuid(0) == 0) {
        snprintf(err, errlen, "dropping privileges to %s did not hold", user);
        return -1;
    }
    return 0;
}

static int
setup_analyzer(struct live *l)
{
    struct ew_analyzer_cfg cfg = l->cfg->an;

    if (l->streaming)
        ew_stream_attach(&l->stream, &cfg);
    if (ew_analyzer_init(&l->an, &cfg) != 0)
        return -1;
    l->have_an = true;
    ew_stream_bind(&l->stream, &l->an);
    return 0;
}

int
ew_live_run(const struct ew_live_cfg *cfg, volatile sig_atomic_t *stop)
{
    struct live l;
    struct ew_capture *cap = NULL;
    struct ew_ui *ui = NULL;
    struct ew_exporter *mx = NULL;
    struct ew_report_src src = {.kind = "interface"};
    char err[EW_ERRBUF_SIZE];
    int rc, status = 0, interval_ms = (int)(cfg->interval_s * 1000);
    int64_t next_refresh, last_rate_ns;
    uint64_t last_frames = 0, recv = 0, drops = 0;
    double rate = 0;
    bool drops_known = false, tty = isatty(STDOUT_FILENO) && !cfg->ndjson, mx_failed = false;

    memset(&l, 0, sizeof(l));
    l.cfg = cfg;
    if (interval_ms < 100)
        interval_ms = 100;
    rc = ew_capture_open_live(cfg->iface, cfg->snaplen, cfg->buffer_kib, cfg->filter, &cap, err,
                              sizeof(err));
    if (rc != 0) {
        fprintf(stderr, "ecnwatch: %s\n", err);
        return rc == EW_CAP_ERR_FILTER ? 2 : 3;
    }
    /* bound while still privileged: any port can be given */
    if (cfg->metrics_listen || cfg->metrics_file) {
        struct ew_exporter_cfg xc = {cfg->metrics_listen, cfg->metrics_file, cfg->iface,
                                     interval_ms / 1000.0};

        if (ew_exporter_open(&xc, &mx, err, sizeof(err)) != 0) {
            fprintf(stderr, "ecnwatch: %s\n", err);
            ew_capture_close(cap);
            return 3;
        }
    }
    if (drop_privileges(cfg->user, err, sizeof(err)) != 0) {
        fprintf(stderr, "ecnwatch: %s\n", err);
        ew_exporter_close(mx);
        ew_capture_close(cap);
        return 2;
    }
    l.link = ew_capture_link(cap);
    src.name = cfg->iface;
    src.linktype = ew_capture_link_name(cap);
    src.filter = cfg->filter;
    src.packet_limit = cfg->count;
    l.streaming = !tty;
    ew_stream_init(&l.stream, stdout, (int64_t)interval_ms * 1000000, true);
    if (setup_analyzer(&l) != 0) {
        fprintf(stderr, "ecnwatch: cannot allocate a flow table of %" PRIu32 " flows\n",
                cfg->an.max_flows);
        ew_exporter_close(mx);
        ew_capture_close(cap);
        return 2;
    }
    if (tty) {
        ui = ew_ui_start();
        if (!ui) {
            fprintf(stderr, "ecnwatch: cannot start the terminal view (TERM=%s)\n",
                    getenv("TERM") ? getenv("TERM") : "unset");
            ew_analyzer_free(&l.an);
            ew_exporter_close(mx);
            ew_capture_close(cap);
            return 2;
        }
    }

    next_refresh = mono_ns();
    last_rate_ns = next_refresh;
    while (!*stop && !l.limit_reached) {
        struct pollfd pfd[2 + EW_EXPORTER_MAX_FDS];
        int nfd = 0, timeout, i, keys = 0, first_mx, nmx = 0;
        bool draw = false;
        int64_t now = mono_ns();

        pfd[nfd].fd = ew_capture_fd(cap);
        pfd[nfd++].events = POLLIN;
        if (ui) {
            pfd[nfd].fd = STDIN_FILENO;
            pfd[nfd++].events = POLLIN;
        }
        timeout = (int)((next_refresh - now) / 1000000);
        if (timeout < 0)
            timeout = 0;
        if (timeout > 100)
            timeout = 100; /* also wakes a capture descriptor that does not signal */
        first_mx = nfd; /* the metrics server's connections, when --metrics */
        if (mx)
            nmx = ew_exporter_pollfds(mx, pfd + nfd, EW_EXPORTER_MAX_FDS, &timeout);
        nfd += nmx;
        if (poll(pfd, (nfds_t)nfd, timeout) < 0 && errno != EINTR) {
            fprintf(stderr, "ecnwatch: poll: %s\n", strerror(errno));
            status = 3;
            break;
        }
        /* read what is waiting, a bounded number of batches per turn */
        for (i = 0; i < 8; i++) {
            int n = ew_capture_dispatch(cap, DISPATCH_BUDGET, on_frame, &l, err, sizeof(err));

            if (n < 0) {
                if (ui)
                    ew_ui_stop(ui);
                ui = NULL;
                fprintf(stderr, "ecnwatch: %s: %s\n", cfg->iface, err);
                status = 3;
                goto done;
            }
            if (n < DISPATCH_BUDGET || l.limit_reached)
                break;
        }
        if (ui) {
            keys = ew_ui_keys(ui);
            if (keys & EW_UI_QUIT)
                break;
            if (keys & EW_UI_CLEAR) {
                ew_analyzer_free(&l.an);
                l.have_an = false;
                if (setup_analyzer(&l) != 0) {
                    status = 2;
                    break;
                }
                ew_ui_reset(ui);
            }
        }
        now = mono_ns();
        if (now >= next_refresh) {
            double dt = (double)(now - last_rate_ns) / 1e9;

            rate = dt > 0 ? (double)(l.an.tot.frames - last_frames) / dt : 0;
            last_frames = l.an.tot.frames;
            last_rate_ns = now;
            drops_known = ew_capture_stats(cap, &recv, &drops) == 0;
            if (mx) {
                struct ew_metrics_src ms = {cfg->iface, drops_known, recv, drops};

                if (ew_exporter_tick(mx, &l.an, &ms, false, err, sizeof(err)) != 0) {
                    mx_failed = true;
                    status = 4;
                    break;
                }
            }
            if (l.streaming) {
                ew_stream_packet(&l.stream, wall_ns());
                if (l.stream.error) {
                    status = 4;
                    break;
                }
            }
            if (ui) {
                ew_ui_sample(ui, &l.an);
                draw = !ew_ui_paused(ui);
            }
            next_refresh = now + (int64_t)interval_ms * 1000000;
        }
        if (mx)
            ew_exporter_serve(mx, pfd + first_mx, nmx);
        if (ui && (draw || (keys & EW_UI_REDRAW))) {
            struct ew_ui_status st = {cfg->iface, l.an.tot.frames, rate, drops, drops_known,
                                      wall_ns()};

            ew_ui_draw(ui, &l.an, &st);
        }
    }
done:
    if (ui)
        ew_ui_stop(ui);
    if (mx) {
        /* the file ends with the final counts */
        if (!mx_failed && cfg->metrics_file && l.have_an) {
            struct ew_metrics_src ms = {cfg->iface, false, 0, 0};

            ms.have_capture = ew_capture_stats(cap, &ms.received, &ms.dropped) == 0;
            mx_failed = ew_exporter_tick(mx, &l.an, &ms, true, err, sizeof(err)) != 0;
        }
        if (mx_failed || ew_exporter_error(mx)) {
            fprintf(stderr, "ecnwatch: %s\n", mx_failed ? err : ew_exporter_error(mx));
            if (status == 0)
                status = 4;
        }
        ew_exporter_close(mx);
    }
    if (*stop)
        src.interrupted = true;
    if (l.streaming && l.have_an) {
        ew_stream_finish(&l.stream, &src);
        if (l.stream.error && status == 0)
            status = 4;
    }
    if (cfg->out_file && l.have_an) {
        json_t *root = ew_report_head(&l.an, &src);

        if (ew_report_write_file(&l.an, root, cfg->out_file, err, sizeof(err)) != 0) {
            fprintf(stderr, "ecnwatch: %s\n", err);
            if (status == 0)
                status = 4;
        }
        json_decref(root);
    }
    if (status == 0 && cfg->fail_on && l.have_an) {
        struct ew_fail_on fo;

        if (ew_fail_on_eval(&l.an, NULL, 0, cfg->fail_on, &fo)) {
            fprintf(stderr, "ecnwatch: --fail-on matched\n");
            status = 1;
        }
    }
    if (!ui && !l.streaming && l.have_an)
        fprintf(stderr, "ecnwatch: %" PRIu64 " frames\n", l.an.tot.frames);
    if (l.have_an)
        ew_analyzer_free(&l.an);
    ew_capture_close(cap);
    return status;
}
