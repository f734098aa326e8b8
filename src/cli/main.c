/* main.c - the command line: options (cli.h), then the live driver (-i,
 * live.h) or the offline one (-r, offline.h). The exit statuses are listed
 * in cli.h and man/ecnwatch.1. */
#include <signal.h>
#include <stdint.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/live.h"
#include "cli/offline.h"
#include "cli/probe_main.h"
#include "dissectors/decap.h"

static volatile sig_atomic_t stop_requested;

static void
on_signal(int sig)
{
    (void)sig;
    stop_requested = 1;
}

/* SIGINT, SIGTERM and SIGHUP (a closed terminal or session) only ask the
 * driver to stop: it writes what it has. SIGPIPE is ignored: a write to a
 * reader that left fails with EPIPE, and the event stream then ends the run
 * as a signal does (stream.h), the files asked for written. */
static void
catch_signals(void)
{
    struct sigaction sa;

    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    sa.sa_handler = SIG_IGN;
    sigaction(SIGPIPE, &sa, NULL);
}

int
main(int argc, char **argv)
{
    struct ew_options o;
    int status = ew_cli_parse(argc, argv, &o);

    if (status < 0 && o.probe.target) {
        catch_signals();
        status = ew_probe_main(&o, &stop_requested);
    } else if (status < 0) {
        struct ew_run_cfg c;

        ew_cli_run_cfg(&o, &c);
        /* before any frame is decoded, and before any thread that decodes */
        ew_decap_configure(&o.decap);
        catch_signals();
        status = c.live ? ew_live_run(&c, &stop_requested) : ew_offline_run(&c, &stop_requested);
    }
    ew_cli_free(&o);
    return status;
}
