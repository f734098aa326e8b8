/* plot_svg.h - the SVG picture of one flow's time series (series.h), as
 * --plot writes it (plots.h): for each direction that carries data, its
 * throughput, RTT, queueing delay (timed as its path verdict times it), CE
 * marks and ECN codepoint shares on one time axis. */
#ifndef ECNWATCH_PLOT_SVG_H
#define ECNWATCH_PLOT_SVG_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct ew_bottleneck;
struct ew_flow;
struct ew_series;
struct ew_series_pool;

/* the picture of f's series in p, written to out; qd_from: by canonical
 * direction, where its path verdict times the queueing delay
 * (ew_path_verdict.qdelay_from), so that the panel shows the delay the text
 * and the report give; NULL: data to ACK where it was timed. 0, or -1 when
 * the flow has no series, memory ran out or out failed */
int ew_plot_svg(const struct ew_series_pool *p, const struct ew_flow *f,
                const char *const qd_from[2], FILE *out);

/* the flows of one bottleneck drawn on one time axis, at most this many
 * (the first in report order), the legend naming the first few */
#define EW_PLOT_BN_FLOWS 8
#define EW_PLOT_BN_LEGEND 6

/* one flow of a bottleneck's picture: its data direction's series */
struct ew_plot_flow {
    uint64_t id;
    bool l4s;
    const struct ew_series *s; /* NULL: none (not drawn) */
    const char *qd_from;       /* its path verdict's qdelay_from, or NULL */
    double rtt_ms;             /* its RTT (ew_infer_path_rtt), 0: unknown */
};

/* The picture of bottleneck g, its verdict and reason as the caption: its n
 * flows' throughput (and the L4S to classic ratio), queueing delay (median
 * and p10 to p90 per bin), marks per round trip and ECT(1) share, each a
 * line, on one time axis from the first one's start. 0, or -1 when no flow has a series, memory ran out or out failed */
int ew_plot_bottleneck_svg(const struct ew_bottleneck *g, const struct ew_plot_flow *fl, int n,
                           FILE *out);

#endif /* ECNWATCH_PLOT_SVG_H */
