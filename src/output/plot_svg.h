/* plot_svg.h - the SVG picture of one flow's time series (series.h), as
 * --plot writes it (plots.h): for each direction that carries data, its
 * throughput, RTT, queueing delay (timed as its path verdict times it), CE
 * marks and ECN codepoint shares on one time axis. */
#ifndef ECNWATCH_PLOT_SVG_H
#define ECNWATCH_PLOT_SVG_H

#include <stdio.h>

struct ew_flow;
struct ew_series_pool;

/* the picture of f's series in p, written to out; qd_from: by canonical
 * direction, where its path verdict times the queueing delay
 * (ew_path_verdict.qdelay_from), so that the panel shows the delay the text
 * and the report give; NULL: data to ACK where it was timed. 0, or -1 when
 * the flow has no series, memory ran out or out failed */
int ew_plot_svg(const struct ew_series_pool *p, const struct ew_flow *f,
                const char *const qd_from[2], FILE *out);

#endif /* ECNWATCH_PLOT_SVG_H */
