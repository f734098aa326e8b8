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

static void
analyzer_cfg(const struct ew_options *o, struct ew_analyzer_cfg *cfg)
{
    memset(cfg, 0, sizeof(*cfg));
    cfg->max_flows = o->max_flows;
    cfg->hot_flows = o->hot_flows;
    cfg->hash_seed = ew_cli_hash_seed(o);
    cfg->idle_ns = (int64_t)(o->idle_s * 1e9);
}

static int
run_live(const struct ew_options *o)
{
    struct ew_live_cfg lc;

    memset(&lc, 0, sizeof(lc));
    lc.iface = o->iface;
    lc.filter = o->filter;
    lc.snaplen = o->snaplen;
    lc.buffer_kib = o->buffer_kib;
    lc.count = o->count;
    lc.user = o->user;
    lc.ndjson = o->ndjson;
    lc.max_output = o->max_output;
    lc.out_file = o->out_file;
    lc.fail_on = o->fail_on;
    lc.interval_s = o->interval_s;
    lc.metrics_listen = o->metrics_listen;
    lc.metrics_file = o->metrics_file;
    lc.write_file = o->write_file;
    lc.timeseries = o->timeseries;
    lc.plot_dir = o->plot_dir;
    lc.series_interval_s = o->interval_set ? o->interval_s : SERIES_INTERVAL_DEFAULT;
    analyzer_cfg(o, &lc.an);
    catch_signals();
    return ew_live_run(&lc, &stop_requested);
}

static int
run_offline(const struct ew_options *o)
{
    struct ew_offline_cfg fc;

    memset(&fc, 0, sizeof(fc));
    fc.files = o->files;
    fc.nfiles = o->nfiles;
    fc.filter = o->filter;
    fc.count = o->count;
    fc.json = o->json;
    fc.ndjson = o->ndjson;
    fc.max_output = o->max_output;
    fc.quiet = o->quiet;
    fc.out_file = o->out_file;
    fc.text_flows = o->text_flows;
    fc.fail_on = o->fail_on;
    fc.timeseries = o->timeseries;
    fc.plot_dir = o->plot_dir;
    fc.series_interval_s = o->interval_set ? o->interval_s : SERIES_INTERVAL_DEFAULT;
    fc.metrics_file = o->metrics_file;
    fc.write_file = o->write_file;
    analyzer_cfg(o, &fc.an);
    catch_signals();
    return ew_offline_run(&fc, &stop_requested);
}

int
main(int argc, char **argv)
{
    struct ew_options o;
    int status = ew_cli_parse(argc, argv, &o);

    if (status < 0)
        status = o.iface ? run_live(&o) : run_offline(&o);
    ew_cli_free(&o);
    return status;
}
