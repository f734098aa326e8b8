/* main.c - the command line: options (cli.h), then the live driver (-i,
 * live.h) or the offline one (-r, offline.h). The exit statuses are listed
 * in cli.h and man/ecnwatch.1. */
#include <signal.h>
#include <stdint.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/live.h"
#include "cli/offline.h"

/* the time series' bin width when --interval is not given (seconds); --interval
 * given sets both it and the live refresh */
#define SERIES_INTERVAL_DEFAULT 0.1

static volatile sig_atomic_t stop_requested;

static void
on_signal(int sig)
{
    (void)sig;
    stop_requested = 1;
}

/* SIGINT and SIGTERM only ask the driver to stop: it writes what it has */
static void
catch_signals(void)
{
    struct sigaction sa;

    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
}

/* the run the options ask for, copied once */
static void
run_cfg(const struct ew_options *o, struct ew_run_cfg *c)
{
    memset(c, 0, sizeof(*c));
    c->live = o->iface != NULL;
    c->iface = o->iface;
    c->snaplen = o->snaplen;
    c->buffer_kib = o->buffer_kib;
    c->user = o->user;
    c->interval_s = o->interval_s;
    c->files = o->files;
    c->nfiles = o->nfiles;
    c->filter = o->filter;
    c->count = o->count;
    c->json = o->json;
    c->ndjson = o->ndjson;
    c->max_output = o->max_output;
    c->quiet = o->quiet;
    c->out_file = o->out_file;
    c->text_flows = o->text_flows;
    c->fail_on = o->fail_on;
    c->timeseries = o->timeseries;
    c->plot_dir = o->plot_dir;
    c->series_interval_s = o->interval_set ? o->interval_s : SERIES_INTERVAL_DEFAULT;
    c->metrics_listen = o->metrics_listen;
    c->metrics_file = o->metrics_file;
    c->write_file = o->write_file;
    c->an.max_flows = o->max_flows;
    c->an.hot_flows = o->hot_flows;
    c->an.hash_seed = ew_cli_hash_seed(o);
    c->an.idle_ns = (int64_t)(o->idle_s * 1e9);
}

int
main(int argc, char **argv)
{
    struct ew_options o;
    int status = ew_cli_parse(argc, argv, &o);

    if (status < 0) {
        struct ew_run_cfg c;

        run_cfg(&o, &c);
        catch_signals();
        status = c.live ? ew_live_run(&c, &stop_requested) : ew_offline_run(&c, &stop_requested);
    }
    ew_cli_free(&o);
    return status;
}
