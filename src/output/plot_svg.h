/* plot_svg.h - the SVG picture of one flow's time series (series.h), as
 * --plot writes it (plots.h): for each direction that carries data, its
 * throughput, RTT, queueing delay, CE marks and ECN codepoint shares on one
 * time axis. */
#ifndef ECNWATCH_PLOT_SVG_H
#define ECNWATCH_PLOT_SVG_H

#include <stdio.h>

struct ew_flow;
struct ew_series_pool;

/* the picture of f's series in p, written to out; 0, or -1 when the flow
 * has no series or out failed */
int ew_plot_svg(const struct ew_series_pool *p, const struct ew_flow *f, FILE *out);

#endif /* ECNWATCH_PLOT_SVG_H */
