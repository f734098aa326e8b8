/* run.h - what every run does once its packets are read, live or from
 * files: every flow concluded once (conclusions.h), every output the run
 * asked for written from that one pass (output.h's table), the hops between
 * captures judged by the same rules, and --fail-on evaluated on the same
 * rows. The drivers (live.h, offline.h) differ only in where packets come
 * from and what they show while they come. */
#ifndef ECNWATCH_RUN_H
#define ECNWATCH_RUN_H

#include <stdbool.h>

#include "engine/analyze.h"
#include "findings/conclusions.h"
#include "findings/pathcmp.h"
#include "output/output.h"
#include "output/report.h"

struct ew_run_end {
    struct ew_out_ctx out;             /* its cfg, standard output, the stream */
    const struct ew_analyzer *an;
    const struct ew_report_src *src;
    struct ew_report_path path;        /* the captures and hops between them; 1 capture: none */
    struct ew_conclusions concl;       /* kept: ew_run_end_free() */
    struct ew_pass pass;
};

/* Conclude, judge the hops, write the outputs. The exit status: 0, or
 * EW_EXIT_OUTPUT when the conclusions or an output failed (each said in one
 * line on standard error). What could be written is written. */
int ew_run_end(struct ew_run_end *e);

/* --fail-on on the pass of ew_run_end(): EW_EXIT_FAIL_ON (the line that
 * names what matched printed) or 0. */
int ew_run_fail_on(const struct ew_run_end *e);

void ew_run_end_free(struct ew_run_end *e);

#endif /* ECNWATCH_RUN_H */
