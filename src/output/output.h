/* output.h - what every output is given to write from: one pass of
 * conclusions over the analyzer's table (conclusions.h), the source it came
 * from, and the path between several captures. */
#ifndef ECNWATCH_OUTPUT_H
#define ECNWATCH_OUTPUT_H

#include <stdbool.h>
#include <stdint.h>

#include "engine/analyze.h"
#include "findings/conclusions.h"

struct ew_report_src;
struct ew_report_path;

/* one moment's pass: the rows of every flow held, their bottlenecks, and the
 * findings counted with the flows that left the table */
struct ew_pass {
    const struct ew_analyzer *an;
    const struct ew_conclusions *c;
    const struct ew_report_src *src;
    const struct ew_report_path *path; /* several captures of the same traffic, or NULL */
    uint64_t counts[EW_MU_MASK_BITS];  /* flows with each misuse kind (ew_analyzer_findings) */
    uint32_t found;                    /* the kinds found */
};

/* Fill p for the pass c (of every flow held, EW_PASS_BOTTLENECKS) over an. */
void ew_pass_init(struct ew_pass *p, const struct ew_analyzer *an, const struct ew_conclusions *c,
                  const struct ew_report_src *src, const struct ew_report_path *path);

#endif /* ECNWATCH_OUTPUT_H */
