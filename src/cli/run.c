/* run.c - one run, live or from files (run.h) */
#include "base/format.h"
#include "cli/run.h"

#include <inttypes.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "input/capture.h"
#include "probe/probe.h"

/* flow directions with a time series, at most (each EW_SERIES_BINS bins) */
#define SERIES_MAX 1024

/* the analyzer and its series, new */
static int
run_analyzer(struct ew_run *r)
{
    struct ew_analyzer_cfg acfg = r->cfg->an;

    if (r->out.stream)
        ew_stream_attach(&r->stream, &acfg);
    if (ew_analyzer_init(&r->an, &acfg) != 0) {
        ew_err("ecnwatch: cannot allocate a flow table of %" PRIu32 " flows\n",
                acfg.max_flows);
        return -1;
    }
    r->have_an = true;
    if ((r->cfg->timeseries || r->cfg->plot_dir) &&
        ew_series_pool_init(&r->series, SERIES_MAX,
                            (int64_t)(r->cfg->series_interval_s * 1e9)) != 0) {
        ew_err("ecnwatch: out of memory for time series\n");
        return -1;
    }
    if (r->series.s)
        r->an.series = &r->series;
    ew_stream_bind(&r->stream, &r->an);
    return 0;
}

int
ew_run_start(struct ew_run *r, const struct ew_run_cfg *cfg, const struct ew_run_how *how)
{
    char err[EW_ERRBUF_SIZE];

    r->cfg = cfg;
    r->src.kind = how->kind;
    r->src.filter = cfg->filter;
    r->src.packet_limit = cfg->count;
    r->out = (struct ew_out_ctx){.cfg = cfg,
                                 .out = stdout,
                                 .stream = how->streaming ? &r->stream : NULL,
                                 .metrics_done = how->metrics_done};
    ew_stream_init(&r->stream, stdout, how->stream_interval_ns, how->stream_updates);
    ew_stream_limit(&r->stream, cfg->max_output);
    ew_outputs_start(&r->out);
    if (ew_outputs_check(&r->out, err, sizeof(err)) != 0) {
        ew_err("ecnwatch: %s\n", err);
        return EW_EXIT_OUTPUT;
    }
    if (cfg->probe_report) {
        r->probe = malloc(sizeof(*r->probe));
        if (!r->probe || ew_probe_read_report(cfg->probe_report, r->probe, err, sizeof(err)) != 0) {
            ew_err("ecnwatch: %s\n", r->probe ? err : "out of memory");
            return EW_EXIT_INPUT;
        }
    }
    return run_analyzer(r) == 0 ? EW_EXIT_DONE : EW_EXIT_USAGE;
}

int
ew_run_open(struct ew_run *r, const struct ew_capture *cap, const char *name)
{
    char err[EW_ERRBUF_SIZE];

    r->src.name = name;
    r->src.linktype = ew_capture_link_name(cap);
    if (ew_outputs_open(&r->out, cap, err, sizeof(err)) != 0) {
        ew_err("ecnwatch: %s\n", err);
        return EW_EXIT_OUTPUT;
    }
    return EW_EXIT_DONE;
}

int
ew_run_tick(struct ew_run *r, int64_t now_ns)
{
    return ew_outputs_tick(&r->out, NULL, now_ns) == 0 ? EW_EXIT_DONE : EW_EXIT_OUTPUT;
}

int
ew_run_close(struct ew_run *r, bool keep)
{
    return ew_outputs_close(&r->out, keep) == 0 ? EW_EXIT_DONE : EW_EXIT_OUTPUT;
}

int
ew_run_end(struct ew_run *r)
{
    int i, status = EW_EXIT_DONE;

    /* -q with nothing to write, judge or fail on: no pass to make */
    if (!ew_outputs_wanted(&r->out) && !r->cfg->fail_on && r->path.ncaptures < 2) {
        ew_pass_init(&r->pass, &r->an, &r->concl, &r->src, NULL);
        r->pass.probe = r->probe;
        return status;
    }
    if (ew_analyzer_pass(&r->an, &r->concl, EW_PASS_BOTTLENECKS, NULL) != 0) {
        ew_err("ecnwatch: out of memory for the conclusions of %zu flows\n",
                r->concl.held);
        status = EW_EXIT_OUTPUT;
    }
    /* the hops are judged by the same SCE rule as the first capture's report */
    for (i = 1; i < r->path.ncaptures; i++)
        ew_hop_judge_sce(r->path.hops[i - 1], &r->concl);
    ew_pass_init(&r->pass, &r->an, &r->concl, &r->src, r->path.ncaptures > 1 ? &r->path : NULL);
    r->pass.probe = r->probe;
    if (ew_outputs_finish(&r->out, &r->pass) != 0)
        status = EW_EXIT_OUTPUT;
    return status;
}

int
ew_run_fail_on(const struct ew_run *r)
{
    struct ew_fail_on f;
    int nhops = r->path.ncaptures > 1 ? r->path.ncaptures - 1 : 0;

    if (!r->cfg->fail_on || !ew_fail_on_eval(&r->pass, r->path.hops, nhops, r->cfg->fail_on, &f))
        return EW_EXIT_DONE;
    ew_fail_on_print(stderr, &f);
    return EW_EXIT_FAIL_ON;
}

void
ew_run_free(struct ew_run *r)
{
    if (r->out.save) /* a start that failed with -w open: nothing to keep */
        (void)ew_outputs_close(&r->out, false);
    ew_conclusions_free(&r->concl);
    ew_stream_free(&r->stream);
    if (r->have_an)
        ew_analyzer_free(&r->an);
    r->have_an = false;
    ew_series_pool_free(&r->series);
    free(r->probe);
    r->probe = NULL;
}
