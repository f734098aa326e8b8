/* plots.h - --plot DIR: an SVG picture of each flow's time series
 * (series.h) and an index page listing the flows with their verdicts and
 * linking the pictures. Each file is written whole through outfile.h. */
#ifndef ECNWATCH_PLOTS_H
#define ECNWATCH_PLOTS_H

#include <stddef.h>

#include "output/output.h"

/* Before the first packet: make DIR when missing, with its missing parent
 * folders (as mkdir -p), and check that files can be written in it, so that
 * the plots are not lost at the end. 0, or -1 with one line in err. */
int ew_plots_prepare(const char *dir, char *err, size_t errlen);

/* Write DIR/flow-ID.svg for every flow of the pass p with a series, then
 * DIR/index.html, its verdicts the pass's; DIR is made when missing. 0, or
 * -1 with one line in err. */
int ew_plots_write(const struct ew_pass *p, const char *dir, char *err, size_t errlen);

#endif /* ECNWATCH_PLOTS_H */
