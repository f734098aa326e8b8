/* run.c - the end of every run (run.h) */
#include "cli/run.h"

#include <stdio.h>

#include "cli/cli.h"

int
ew_run_end(struct ew_run_end *e)
{
    int i, status = EW_EXIT_DONE;

    /* -q with nothing to write, judge or fail on: no pass to make */
    if (!ew_outputs_wanted(&e->out) && !e->out.cfg->fail_on && e->path.ncaptures < 2) {
        ew_pass_init(&e->pass, e->an, &e->concl, e->src, NULL);
        return status;
    }
    if (ew_analyzer_pass(e->an, &e->concl, EW_PASS_BOTTLENECKS, NULL) != 0) {
        fprintf(stderr, "ecnwatch: out of memory for the conclusions of %zu flows\n",
                e->concl.held);
        status = EW_EXIT_OUTPUT;
    }
    /* the hops are judged by the same SCE rule as the first capture's report */
    for (i = 1; i < e->path.ncaptures; i++)
        ew_hop_judge_sce(e->path.hops[i - 1], &e->concl);
    ew_pass_init(&e->pass, e->an, &e->concl, e->src, e->path.ncaptures > 1 ? &e->path : NULL);
    if (ew_outputs_finish(&e->out, &e->pass) != 0)
        status = EW_EXIT_OUTPUT;
    return status;
}

int
ew_run_fail_on(const struct ew_run_end *e)
{
    struct ew_fail_on r;
    int nhops = e->path.ncaptures > 1 ? e->path.ncaptures - 1 : 0;

    if (!e->out.cfg->fail_on ||
        !ew_fail_on_eval(&e->pass, e->path.hops, nhops, e->out.cfg->fail_on, &r))
        return EW_EXIT_DONE;
    ew_fail_on_print(stderr, &r);
    return EW_EXIT_FAIL_ON;
}

void
ew_run_end_free(struct ew_run_end *e)
{
    ew_conclusions_free(&e->concl);
}
