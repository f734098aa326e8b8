/* plot_svg.c - the SVG picture of one flow's time series (see plot_svg.h),
 * read from the series the flow layer keeps (series.h).
 *
 * The picture a person pastes into a bug report, drawn the way flent draws
 * its plots: for each direction that carries data (TCP: payload; other
 * protocols: any packet), five panels on one time axis (throughput, RTT on
 * an axis from near its minimum, queueing delay, CE seen here against marks
 * fed back, ECN codepoint shares), each with round ticks, gridlines, units
 * and a legend where it holds more than one line. The SVG has a viewBox and
 * width="100%", so it follows the page it is shown on. Only fixed-format
 * numbers are printed: the same capture gives the same bytes. */
#include "output/plot_svg.h"

#include <math.h>
#include <stdlib.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "flow/flowtab.h"
#include "base/format.h"
#include "findings/bottleneck.h"
#include "infer/qdhist.h"
#include "infer/series.h"

#define SVG_W 1000
#define LEFT 84
#define RIGHT 24
#define PLOT_W (SVG_W - LEFT - RIGHT)
#define PANEL_TOP 18 /* the panel's title above the plot area */
#define PLOT_H 84
#define PANEL_H (PANEL_TOP + PLOT_H + 10)
#define XLABEL_H 18
#define DIR_HEAD 26
#define FONT "font-family=\"sans-serif\""

struct svg_line {
    const char *name, *color, *dash;
    const double *v;
    const bool *has;
    const double *lo, *hi; /* a band around v (p10 to p90), or NULL */
};

struct svg_time {
    double span_s, step_s; /* the axis from 0 to span_s, a tick every step_s */
    int nticks;
};

/* a panel's y axis: from ymin to ymax, a tick every step (ticks steps), its
 * labels with dec decimals */
struct svg_axis {
    double ymin, ymax, step;
    int ticks, dec;
};

/* one direction's bins as the panels draw them, and their extremes */
struct svg_bins {
    double tput[EW_SERIES_BINS], rtt[EW_SERIES_BINS], ce[EW_SERIES_BINS];
    /* the queueing delay's median and its p10 and p90, ms */
    double qd[EW_SERIES_BINS], qlo[EW_SERIES_BINS], qhi[EW_SERIES_BINS];
    double mk[EW_SERIES_BINS], e1s[EW_SERIES_BINS], e0s[EW_SERIES_BINS], ces[EW_SERIES_BINS];
    bool hasrtt[EW_SERIES_BINS], hasqd[EW_SERIES_BINS];
    double mt, rmin, rmax, qmax, mmax;
    int nrtt, nqd; /* bins with an RTT sample, with a queueing delay */
};

static const char *const qd_src_words[] = {
    [EW_QS_NONE] = "", [EW_QS_SEQ] = "data to ACK",
    [EW_QS_UP] = "timestamps to the sender and back", [EW_QS_BOTH] = "data to ACK and timestamps",
};

/* floor without libm (the binary does not link it); |x| < 2^63 here */
static double
ffloor(double x)
{
    double i;

    if (!(fabs(x) < 1e18))
        return x; /* an integer already, or not a number */
    i = (double)(int64_t)x;
    return i > x ? i - 1 : i;
}

/* a round step (1, 2 or 5 times a power of ten) giving about target steps */
static double
nice_step(double range, int target)
{
    double raw, mag = 1, norm;
    int k;

    if (!(range > 0) || !isfinite(range) || range < 1e-9)
        return 1;
    raw = range / target;
    for (k = 0; k < 40 && mag * 10 <= raw; k++)
        mag *= 10;
    for (k = 0; k < 40 && mag > raw; k++)
        mag /= 10;
    norm = raw / mag;
    return (norm <= 1.0 ? 1 : norm <= 2.0 ? 2 : norm <= 5.0 ? 5 : 10) * mag;
}

/* decimals that show a multiple of step exactly */
static int
decimals(double step)
{
    double m = 1;
    int d = 0;

    while (d < 6 && fabs(step * m - ffloor(step * m + 0.5)) > 1e-6 * m) {
        d++;
        m *= 10;
    }
    return d;
}

static double
xpos(const struct svg_time *t, double s)
{
    return LEFT + (t->span_s > 0 ? s / t->span_s : 0) * PLOT_W;
}

static double
ypos(const struct svg_axis *a, double v)
{
    return PANEL_TOP + PLOT_H * (1 - (v - a->ymin) / (a->ymax - a->ymin));
}

/* the y axis of values from lo to hi, rounded out to a round step of at
 * least min_step */
static void
y_axis(double lo, double hi, double min_step, struct svg_axis *a)
{
    if (!(hi > lo) && lo == 0) {
        hi = 1; /* nothing to draw: an axis from 0 to 1 */
    } else if (!(hi > lo)) {
        double pad = fabs(lo) * 0.05 > 0.05 ? fabs(lo) * 0.05 : 0.05;

        hi = lo + pad;
        lo = lo - pad < 0 && lo >= 0 ? 0 : lo - pad;
    }
    a->step = nice_step(hi - lo, 4);
    if (a->step < min_step)
        a->step = min_step;
    a->ymin = ffloor(lo / a->step + 1e-9) * a->step;
    a->ymax = -ffloor(-hi / a->step + 1e-9) * a->step;
    if (a->ymax <= a->ymin)
        a->ymax = a->ymin + a->step;
    a->ticks = (int)((a->ymax - a->ymin) / a->step + 0.5);
    if (!(a->ticks >= 1 && a->ticks <= 20)) { /* only when the numbers are absurd */
        a->ymin = lo;
        a->ymax = hi > lo ? hi : lo + 1;
        a->ticks = 4;
        a->step = (a->ymax - a->ymin) / 4;
    }
    a->dec = decimals(a->step);
}

/* the panel's frame: the plot area, y ticks and gridlines, vertical
 * gridlines at the time ticks, x tick labels below when xlabels */
static void
svg_grid(FILE *out, const struct svg_axis *a, const char *unit, const struct svg_time *t,
         bool xlabels)
{
    int k;

    fprintf(out, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"#fcfcfc\" "
                 "stroke=\"#888\"/>\n",
            LEFT, PANEL_TOP, PLOT_W, PLOT_H);
    for (k = 0; k <= a->ticks; k++) {
        double v = a->ymin + k * a->step, y = ypos(a, v);

        fprintf(out, "<line class=\"grid-y\" x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" "
                     "stroke=\"#ddd\" stroke-width=\"1\"/>\n",
                LEFT, y, LEFT + PLOT_W, y);
        fprintf(out, "<text class=\"tick-y\" x=\"%d\" y=\"%.1f\" font-size=\"11\" %s "
                     "text-anchor=\"end\">%.*f %s</text>\n",
                LEFT - 5, y + 4, FONT, a->dec, v, unit);
    }
    for (k = 0; k <= t->nticks; k++) {
        double x = xpos(t, k * t->step_s);

        fprintf(out, "<line class=\"grid-x\" x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" "
                     "stroke=\"#ddd\" stroke-width=\"1\"/>\n",
                x, PANEL_TOP, x, PANEL_TOP + PLOT_H);
        if (xlabels)
            fprintf(out, "<text class=\"tick-x\" x=\"%.1f\" y=\"%d\" font-size=\"11\" %s "
                         "text-anchor=\"middle\">%.*f s</text>\n",
                    x, PANEL_TOP + PLOT_H + 14, FONT, decimals(t->step_s), k * t->step_s);
    }
}

static double
clip(const struct svg_axis *a, double v)
{
    return v < a->ymin ? a->ymin : v > a->ymax ? a->ymax : v;
}

/* the band of a line (ln->lo to ln->hi), shaded under it: a polygon over
 * each run of bins with a value, a bar where the run is one bin */
static void
svg_series_band(FILE *out, const struct svg_line *ln, const struct svg_axis *a,
                const struct svg_time *t, const struct ew_series *s, double off_s)
{
    double w_s = (double)s->width / 1e9;
    int k = 0, j, e;

    while (k < s->n) {
        if (ln->has && !ln->has[k]) {
            k++;
            continue;
        }
        for (e = k; e + 1 < s->n && (!ln->has || ln->has[e + 1]); e++)
            ;
        if (e == k)
            fprintf(out, "<line class=\"band\" data-name=\"%s\" x1=\"%.1f\" y1=\"%.1f\" "
                         "x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" stroke-opacity=\"0.35\" "
                         "stroke-width=\"3\"/>\n",
                    ln->name, xpos(t, off_s + (k + 0.5) * w_s), ypos(a, clip(a, ln->hi[k])),
                    xpos(t, off_s + (k + 0.5) * w_s), ypos(a, clip(a, ln->lo[k])), ln->color);
        else {
            fprintf(out, "<polygon class=\"band\" data-name=\"%s\" fill=\"%s\" "
                         "fill-opacity=\"0.2\" stroke=\"none\" points=\"",
                    ln->name, ln->color);
            for (j = k; j <= e; j++)
                fprintf(out, "%s%.1f,%.1f", j == k ? "" : " ", xpos(t, off_s + (j + 0.5) * w_s),
                        ypos(a, clip(a, ln->hi[j])));
            for (j = e; j >= k; j--)
                fprintf(out, " %.1f,%.1f", xpos(t, off_s + (j + 0.5) * w_s),
                        ypos(a, clip(a, ln->lo[j])));
            fprintf(out, "\"/>\n");
        }
        k = e + 1;
    }
}

/* one line of a panel over the series' bins: polylines through the bins
 * with a value, clipped to the axis; a point with no neighbour a dot; its
 * band first, when it has one */
static void
svg_series_line(FILE *out, const struct svg_line *ln, const struct svg_axis *a,
                const struct svg_time *t, const struct ew_series *s, double off_s)
{
    double w_s = (double)s->width / 1e9;
    bool open = false;
    int k;

    if (ln->lo && ln->hi)
        svg_series_band(out, ln, a, t, s, off_s);
    for (k = 0; k < s->n; k++) {
        double x = xpos(t, off_s + (k + 0.5) * w_s), v, y;

        if (ln->has && !ln->has[k]) {
            if (open)
                fprintf(out, "\"/>\n");
            open = false;
            continue;
        }
        v = clip(a, ln->v[k]);
        y = ypos(a, v);
        /* a point with no neighbour is a dot, a line of one point shows
         * nothing */
        if ((k == 0 || (ln->has && !ln->has[k - 1])) &&
            (k + 1 >= s->n || (ln->has && !ln->has[k + 1]))) {
            fprintf(out, "<circle class=\"series\" data-name=\"%s\" cx=\"%.1f\" "
                         "cy=\"%.1f\" r=\"2.5\" fill=\"%s\"/>\n",
                    ln->name, x, y, ln->color);
            continue;
        }
        if (!open)
            fprintf(out, "<polyline class=\"series\" data-name=\"%s\" fill=\"none\" "
                         "stroke=\"%s\" stroke-width=\"1.6\"%s%s%s points=\"",
                    ln->name, ln->color, ln->dash ? " stroke-dasharray=\"" : "",
                    ln->dash ? ln->dash : "", ln->dash ? "\"" : "");
        fprintf(out, "%s%.1f,%.1f", open ? " " : "", x, y);
        open = true;
    }
    if (open)
        fprintf(out, "\"/>\n");
}

/* the legend of a panel of nl lines, at its top right */
static void
svg_legend(FILE *out, const struct svg_line *ln, int nl)
{
    int lx = LEFT + PLOT_W - 150 * nl + 6, i;

    fprintf(out, "<g class=\"legend\">\n<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"18\" "
                 "fill=\"white\" fill-opacity=\"0.85\" stroke=\"#bbb\"/>\n",
            lx - 6, PANEL_TOP + 3, 150 * nl - 4);
    for (i = 0; i < nl; i++)
        fprintf(out, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"%s\" "
                     "stroke-width=\"2\"%s%s%s/><text x=\"%d\" y=\"%d\" font-size=\"11\" "
                     "%s>%s</text>\n",
                lx + 150 * i, PANEL_TOP + 12, lx + 150 * i + 20, PANEL_TOP + 12, ln[i].color,
                ln[i].dash ? " stroke-dasharray=\"" : "", ln[i].dash ? ln[i].dash : "",
                ln[i].dash ? "\"" : "", lx + 150 * i + 25, PANEL_TOP + 16, FONT, ln[i].name);
    fprintf(out, "</g>\n");
}

/* one panel at y0: title, y ticks and gridlines from lo to hi (rounded out
 * to the step), vertical gridlines at the time ticks, the lines, a legend
 * when there is more than one line; x tick labels below when xlabels */
static void
svg_panel(FILE *out, const char *id, int y0, const char *title, const char *unit, double lo,
          double hi, double min_step, const struct svg_time *t, const struct svg_line *ln,
          int nl, const struct ew_series *s, double off_s, bool xlabels)
{
    struct svg_axis a;
    int i;

    y_axis(lo, hi, min_step, &a);
    fprintf(out, "<g class=\"panel\" id=\"%s\" transform=\"translate(0,%d)\">\n", id, y0);
    fprintf(out, "<text class=\"title\" x=\"%d\" y=\"13\" font-size=\"13\" %s "
                 "font-weight=\"bold\">%s</text>\n",
            LEFT, FONT, title);
    svg_grid(out, &a, unit, t, xlabels);
    for (i = 0; i < nl; i++)
        svg_series_line(out, &ln[i], &a, t, s, off_s);
    if (nl > 1)
        svg_legend(out, ln, nl);
    fprintf(out, "</g>\n");
}

/* the direction's data worth a picture: TCP payload, or any packet of
 * another protocol (both sides of a UDP exchange carry its data) */
static bool
carries_data(const struct ew_flow *f, int d)
{
    return f->key.proto == 6 ? f->dir[d].payload_bytes > 0 : f->dir[d].packets > 0;
}

/* the series' bins in the panels' units: Mbit/s, ms, marks, %; the
 * queueing delay the median of the bin's samples from src, with p10 and p90 */
static void
svg_bins(const struct ew_series *s, enum ew_qd_src src, struct svg_bins *v)
{
    double w_s = (double)s->width / 1e9;
    int i;

    v->mt = v->rmin = v->rmax = v->qmax = v->mmax = 0;
    v->nrtt = v->nqd = 0;
    for (i = 0; i < s->n; i++) {
        const struct ew_bin *bn = &s->b[i];

        v->tput[i] = (double)bn->bytes * 8 / w_s / 1e6;
        v->hasrtt[i] = bn->rtt_min_us != 0;
        v->rtt[i] = bn->rtt_min_us / 1000.0;
        v->ce[i] = bn->ce;
        v->mk[i] = bn->marks;
        v->e1s[i] = bn->pkts ? 100.0 * bn->e1 / bn->pkts : 0;
        v->e0s[i] = bn->pkts ? 100.0 * bn->e0 / bn->pkts : 0;
        v->ces[i] = bn->pkts ? 100.0 * bn->ce / bn->pkts : 0;
        if (v->tput[i] > v->mt)
            v->mt = v->tput[i];
        if (v->ce[i] > v->mmax)
            v->mmax = v->ce[i];
        if (v->mk[i] > v->mmax)
            v->mmax = v->mk[i];
        if (v->hasrtt[i]) {
            if (!v->nrtt || v->rtt[i] < v->rmin)
                v->rmin = v->rtt[i];
            if (!v->nrtt || v->rtt[i] > v->rmax)
                v->rmax = v->rtt[i];
            v->nrtt++;
        }
    }
    for (i = 0; i < s->n; i++) {
        const struct ew_bin *bn = &s->b[i];

        v->qd[i] = ew_bin_qdelay_ms(bn, src, 0.5);
        v->hasqd[i] = v->qd[i] >= 0;
        if (!v->hasqd[i])
            continue;
        v->qlo[i] = ew_bin_qdelay_ms(bn, src, 0.1);
        v->qhi[i] = ew_bin_qdelay_ms(bn, src, 0.9);
        v->nqd++;
        if (v->qhi[i] > v->qmax)
            v->qmax = v->qhi[i];
    }
}

/* the direction's heading at y: which way, its ends, packets, bin width */
static void
svg_heading(FILE *out, const struct ew_flow *f, int d, double w_s, int y)
{
    char a[80], b[80];

    ew_addr_str(d == EW_DIR_LO_HI ? f->key.lo : f->key.hi, f->key.family, a, sizeof(a));
    ew_addr_str(d == EW_DIR_LO_HI ? f->key.hi : f->key.lo, f->key.family, b, sizeof(b));
    /* addresses with the port where the protocol has one */
    if (f->key.proto == 6 || f->key.proto == 17 || f->key.proto == 132) {
        char pa[64], pb[64];

        memcpy(pa, a, sizeof(pa));
        memcpy(pb, b, sizeof(pb));
        pa[sizeof(pa) - 1] = pb[sizeof(pb) - 1] = '\0';
        snprintf(a, sizeof(a), f->key.family == 6 ? "[%s]:%u" : "%s:%u", pa,
                 d == EW_DIR_LO_HI ? f->key.port_lo : f->key.port_hi);
        snprintf(b, sizeof(b), f->key.family == 6 ? "[%s]:%u" : "%s:%u", pb,
                 d == EW_DIR_LO_HI ? f->key.port_hi : f->key.port_lo);
    }
    fprintf(out, "<text class=\"direction\" x=\"%d\" y=\"%d\" font-size=\"14\" %s "
                 "font-weight=\"bold\">%s (%s): %s &#8594; %s, %llu packet%s, %.0f ms "
                 "bins</text>\n",
            LEFT, y + 18, FONT, d == f->client_dir ? "c2s" : "s2c",
            d == f->client_dir ? "client to server" : "server to client", a, b,
            (unsigned long long)f->dir[d].packets, f->dir[d].packets == 1 ? "" : "s", w_s * 1000);
}

/* one direction's panels from y0, from its bins v (svg_bins); the height used */
static int
svg_direction(FILE *out, const struct ew_series *s, enum ew_qd_src src, const struct ew_flow *f,
              int d, const struct svg_time *t, double off_s, int y0, const struct svg_bins *v)
{
    double w_s = (double)s->width / 1e9;
    const char *tag = d == f->client_dir ? "c2s" : "s2c";
    char id[32], title[160], unit[48];
    int y = y0;

    svg_heading(out, f, d, w_s, y);
    y += DIR_HEAD;
    {
        struct svg_line l = {"throughput", "#1f77b4", NULL, v->tput, NULL, NULL, NULL};

        snprintf(id, sizeof(id), "%s-throughput", tag);
        svg_panel(out, id, y, "throughput (payload)", "Mbit/s", 0, v->mt, 0, t, &l, 1, s, off_s,
                  false);
        y += PANEL_H;
    }
    if (v->nrtt) {
        struct svg_line l = {"RTT", "#2ca02c", NULL, v->rtt, v->hasrtt, NULL, NULL};

        snprintf(id, sizeof(id), "%s-rtt", tag);
        snprintf(title, sizeof(title), "RTT, lowest per bin (flow minimum %.3f ms)", v->rmin);
        svg_panel(out, id, y, title, "ms", v->rmin, v->rmax, 0, t, &l, 1, s, off_s, false);
        y += PANEL_H;
    } else {
        fprintf(out, "<text class=\"note\" x=\"%d\" y=\"%d\" font-size=\"12\" %s fill=\"#555\">"
                     "no data-to-ACK RTT sample in this direction: no RTT panel</text>\n",
                LEFT, y + 13, FONT);
        y += 22;
    }
    /* the delay the text and the report give (path.qdelay_*), bin by bin */
    if (v->nqd) {
        struct svg_line q = {"queueing delay", "#ff7f0e", NULL, v->qd, v->hasqd, v->qlo, v->qhi};

        snprintf(id, sizeof(id), "%s-qdelay", tag);
        snprintf(title, sizeof(title), "queueing delay per bin: median, p10 to p90 shaded; timed "
                 "by %s (as the path verdict)", qd_src_words[src]);
        svg_panel(out, id, y, title, "ms", 0, v->qmax, 0, t, &q, 1, s, off_s, false);
        y += PANEL_H;
    } else {
        fprintf(out, "<text class=\"note\" x=\"%d\" y=\"%d\" font-size=\"12\" %s fill=\"#555\">"
                     "the queueing delay cannot be timed at this capture point (the path "
                     "verdict's reason says why): no queueing delay panel</text>\n",
                LEFT, y + 13, FONT);
        y += 22;
    }
    {
        struct svg_line l[2] = {{"CE seen here", "#d62728", NULL, v->ce, NULL, NULL, NULL},
                                {"marks fed back", "#9467bd", "5,3", v->mk, NULL, NULL, NULL}};

        snprintf(id, sizeof(id), "%s-marks", tag);
        snprintf(title, sizeof(title), "CE marks per %.0f ms interval", w_s * 1000);
        snprintf(unit, sizeof(unit), "marks");
        svg_panel(out, id, y, title, unit, 0, v->mmax, 1, t, l, 2, s, off_s, false);
        y += PANEL_H;
    }
    {
        /* Not-ECT is what is left of 100 % */
        struct svg_line l[3] = {{"ECT(1) share", "#17becf", NULL, v->e1s, NULL, NULL, NULL},
                                {"ECT(0) share", "#8c564b", "2,2", v->e0s, NULL, NULL, NULL},
                                {"CE share", "#d62728", "5,3", v->ces, NULL, NULL, NULL}};

        snprintf(id, sizeof(id), "%s-codepoints", tag);
        svg_panel(out, id, y, "ECN codepoints, share of packets (Not-ECT: the rest)", "%", 0, 100,
                  0, t, l, 3, s, off_s, true);
        y += PANEL_H + XLABEL_H;
    }
    return y - y0;
}

/* the directions pictured, into s (by canonical direction): each that
 * carries data, or when none does, the one with more packets; 0, or -1 when
 * the flow has no series */
static int
svg_pick(const struct ew_series_pool *p, const struct ew_flow *f, const struct ew_series *s[2])
{
    int d;

    s[0] = s[1] = NULL;
    for (d = 0; d < 2; d++) {
        const struct ew_series *x = ew_series_get(p, f, d);

        if (x && x->n && carries_data(f, d))
            s[d] = x;
    }
    if (s[0] || s[1])
        return 0;
    /* no data either way (a handshake, pure ACKs): the direction with more
     * packets */
    d = f->dir[f->client_dir ^ 1].packets > f->dir[f->client_dir].packets ? f->client_dir ^ 1
                                                                           : f->client_dir;
    if (!ew_series_get(p, f, d))
        d ^= 1;
    s[d] = ew_series_get(p, f, d);
    return s[d] ? 0 : -1;
}

/* a time axis of span_s seconds from 0: about 8 round steps */
static void
svg_time_ticks(struct svg_time *t, double span_s)
{
    t->span_s = span_s;
    t->step_s = nice_step(t->span_s, 8);
    t->nticks = (int)(t->span_s / t->step_s + 1e-9);
    if (!(t->nticks >= 0 && t->nticks <= 40)) {
        t->nticks = 8;
        t->step_s = t->span_s / 8;
    }
}

/* the time axis over the pictured series, from the first one's start (t0) */
static void
svg_time_axis(const struct ew_series *const s[2], struct svg_time *t, int64_t *t0)
{
    int64_t t1 = 0;
    int d, nd = 0;

    *t0 = 0;
    for (d = 0; d < 2; d++) {
        if (!s[d])
            continue;
        if (!nd || s[d]->t0 < *t0)
            *t0 = s[d]->t0;
        if (!nd || s[d]->t0 + s[d]->n * s[d]->width > t1)
            t1 = s[d]->t0 + s[d]->n * s[d]->width;
        nd++;
    }
    svg_time_ticks(t, (double)(t1 - *t0) / 1e9);
}

/* the picture's height: 5 panels a direction, a note's line for each of
 * the RTT and queueing delay panels it lacks (v: each direction's bins) */
static int
svg_height(const struct ew_series *const s[2], const struct svg_bins *v)
{
    int d, h = 30;

    for (d = 0; d < 2; d++) {
        if (!s[d])
            continue;
        h += DIR_HEAD + 3 * PANEL_H + XLABEL_H + 10;
        h += v[d].nrtt ? PANEL_H : 22;
        h += v[d].nqd ? PANEL_H : 22;
    }
    return h;
}

int
ew_plot_svg(const struct ew_series_pool *p, const struct ew_flow *f,
            const char *const qd_from[2], FILE *out)
{
    const struct ew_series *s[2];
    enum ew_qd_src src[2] = {EW_QS_NONE, EW_QS_NONE};
    struct svg_bins *v;
    int order[2], d, i, h, height;
    struct svg_time t;
    int64_t t0;
    char proto[24];

    if (svg_pick(p, f, s) != 0)
        return -1;
    v = malloc(2 * sizeof(*v)); /* 20 KB of bins a direction: not on the stack */
    if (!v)
        return -1;
    for (d = 0; d < 2; d++)
        if (s[d]) {
            src[d] = ew_series_qd_src(qd_from ? qd_from[d] : NULL, s[d]);
            svg_bins(s[d], src[d], &v[d]);
        }
    height = svg_height(s, v);
    svg_time_axis(s, &t, &t0);
    if (f->key.proto == 6 || f->key.proto == 17)
        snprintf(proto, sizeof(proto), "%s", f->key.proto == 6 ? "TCP" : "UDP");
    else
        snprintf(proto, sizeof(proto), "IP protocol %u", f->key.proto);
    fprintf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                 "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 %d %d\" width=\"100%%\" "
                 "preserveAspectRatio=\"xMidYMin meet\">\n"
                 "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n"
                 "<text class=\"flow\" x=\"%d\" y=\"20\" font-size=\"15\" %s>flow %llu "
                 "(%s) over %.3f s, from its first packet</text>\n",
            SVG_W, height, LEFT, FONT, (unsigned long long)f->id, proto, t.span_s);
    /* c2s first, then s2c */
    order[0] = f->client_dir;
    order[1] = f->client_dir ^ 1;
    h = 30;
    for (i = 0; i < 2; i++) {
        d = order[i];
        if (s[d])
            h += svg_direction(out, s[d], src[d], f, d, &t, (double)(s[d]->t0 - t0) / 1e9, h,
                               &v[d]) + 10;
    }
    free(v);
    fprintf(out, "</svg>\n");
    return ferror(out) ? -1 : 0;
}

/* ---- the flows of one bottleneck on one time axis */

/* one panel of several series, each line over its own series' bins */
static void
svg_panel_multi(FILE *out, const char *id, int y0, const char *title, const char *unit,
                double hi, const struct svg_time *t, const struct svg_line *ln, int nl,
                const struct ew_series *const *s, const double *off_s, bool xlabels)
{
    struct svg_axis a;
    int i;

    y_axis(0, hi, 0, &a);
    fprintf(out, "<g class=\"panel\" id=\"%s\" transform=\"translate(0,%d)\">\n", id, y0);
    fprintf(out, "<text class=\"title\" x=\"%d\" y=\"13\" font-size=\"13\" %s "
                 "font-weight=\"bold\">%s</text>\n",
            LEFT, FONT, title);
    svg_grid(out, &a, unit, t, xlabels);
    for (i = 0; i < nl; i++)
        svg_series_line(out, &ln[i], &a, t, s[i], off_s[i]);
    svg_legend(out, ln, nl < EW_PLOT_BN_LEGEND ? nl : EW_PLOT_BN_LEGEND);
    fprintf(out, "</g>\n");
}

/* text with the characters XML gives a meaning escaped */
static void
svg_escaped(FILE *out, const char *t, size_t n)
{
    size_t i;

    for (i = 0; i < n && t[i]; i++)
        switch (t[i]) {
        case '&': fputs("&amp;", out); break;
        case '<': fputs("&lt;", out); break;
        case '>': fputs("&gt;", out); break;
        case '"': fputs("&quot;", out); break;
        default: fputc(t[i], out);
        }
}

/* the lines of text t broken at spaces to at most width characters (a UTF-8
 * sequence counts as one), each line's start and length into at[] and len[];
 * the number of lines, at most max */
static int
svg_wrap(const char *t, int width, size_t *at, size_t *len, int max)
{
    size_t i = 0, n = strlen(t);
    int nl = 0;

    while (i < n && nl < max) {
        size_t j = i, brk = 0;
        int cols = 0;

        while (j < n && cols < width) {
            if (t[j] == ' ')
                brk = j;
            if (((unsigned char)t[j] & 0xc0) != 0x80)
                cols++;
            j++;
        }
        while (j < n && ((unsigned char)t[j] & 0xc0) == 0x80)
            j++; /* never inside a character */
        if (j < n && brk > i)
            j = brk;
        at[nl] = i;
        len[nl++] = j - i;
        i = j;
        while (i < n && t[i] == ' ')
            i++;
    }
    return nl;
}

#define BN_CAPTION_COLS 128
#define BN_CAPTION_LINES 5
#define BN_CAPTION_LH 15

int
ew_plot_bottleneck_svg(const struct ew_bottleneck *g, const struct ew_plot_flow *fl, int n,
                       FILE *out)
{
    /* L4S flows in blues, solid; classic flows in oranges, dashed */
    static const char *const blue[] = {"#1f77b4", "#17becf", "#3f5fbf", "#6baed6"};
    static const char *const orange[] = {"#ff7f0e", "#d62728", "#e6550d", "#bd9e39"};
    const struct ew_series *s[EW_PLOT_BN_FLOWS + 2]; /* the flows', then the ratio's twice */
    struct svg_line tl[EW_PLOT_BN_FLOWS], ql[EW_PLOT_BN_FLOWS], ml[EW_PLOT_BN_FLOWS];
    struct svg_line el[EW_PLOT_BN_FLOWS], rl[2];
    double off[EW_PLOT_BN_FLOWS + 2], mt = 0, qmax = 0, mmax = 0, rmax = 0;
    double (*rate)[EW_SERIES_BINS];
    struct svg_bins *v;
    struct ew_series *grid = NULL; /* the ratio's common bins */
    double *ratio = NULL, *one = NULL, *sum = NULL;
    bool *has_ratio = NULL, per_rtt = true;
    char (*name)[40], cap[600], unit[16];
    size_t at[BN_CAPTION_LINES], len[BN_CAPTION_LINES];
    struct svg_time t;
    int64_t t0 = 0, t1 = 0, width = 0;
    int i, k, nl = 0, nb = 0, nc = 0, y, ncap, height, rc = -1;

    if (n > EW_PLOT_BN_FLOWS)
        n = EW_PLOT_BN_FLOWS;
    for (i = 0; i < n; i++) {
        if (!fl[i].s || !fl[i].s->n)
            continue;
        if (!nl || fl[i].s->t0 < t0)
            t0 = fl[i].s->t0;
        if (!nl || fl[i].s->t0 + fl[i].s->n * fl[i].s->width > t1)
            t1 = fl[i].s->t0 + fl[i].s->n * fl[i].s->width;
        if (fl[i].s->width > width)
            width = fl[i].s->width;
        if (!(fl[i].rtt_ms > 0))
            per_rtt = false;
        nl++;
    }
    if (!nl)
        return -1;
    v = malloc(sizeof(*v) * (size_t)n);
    rate = malloc(sizeof(*rate) * (size_t)n);
    name = malloc(sizeof(*name) * (size_t)n);
    grid = calloc(1, sizeof(*grid));
    ratio = calloc(4 * EW_SERIES_BINS, sizeof(*ratio));
    has_ratio = calloc(EW_SERIES_BINS, sizeof(*has_ratio));
    if (!v || !rate || !name || !grid || !ratio || !has_ratio)
        goto out;
    one = ratio + EW_SERIES_BINS;
    sum = ratio + 2 * EW_SERIES_BINS; /* L4S bytes, then classic bytes, by grid bin */
    /* the ratio's bins: the widest series' width, from the first start */
    while ((t1 - t0 + width - 1) / width > EW_SERIES_BINS)
        width *= 2;
    grid->t0 = t0;
    grid->width = width;
    /* the bins whose middle is on the time axis */
    grid->n = (uint16_t)((t1 - t0 + width / 2) / width);
    svg_time_ticks(&t, (double)(t1 - t0) / 1e9);
    nl = 0;
    for (i = 0; i < n; i++) {
        const struct ew_series *x = fl[i].s;
        const char *color, *dash = fl[i].l4s ? NULL : "5,3";
        double w_s;

        if (!x || !x->n)
            continue;
        w_s = (double)x->width / 1e9;
        svg_bins(x, ew_series_qd_src(fl[i].qd_from, x), &v[nl]);
        for (k = 0; k < x->n; k++) {
            /* marks: CE seen here or fed back, whichever tells more; a round
             * trip (each flow's own) or a second */
            double m = x->b[k].ce > x->b[k].marks ? x->b[k].ce : x->b[k].marks;
            int64_t gb = (x->t0 + (int64_t)(k + 0.5) * x->width - t0) / width;

            rate[nl][k] = per_rtt ? m * (fl[i].rtt_ms / 1000) / w_s : m / w_s;
            if (rate[nl][k] > mmax)
                mmax = rate[nl][k];
            if (gb >= 0 && gb < grid->n)
                sum[(fl[i].l4s ? 0 : EW_SERIES_BINS) + gb] += x->b[k].bytes;
        }
        if (v[nl].mt > mt)
            mt = v[nl].mt;
        if (v[nl].qmax > qmax)
            qmax = v[nl].qmax;
        color = fl[i].l4s ? blue[nb++ % 4] : orange[nc++ % 4];
        snprintf(name[nl], sizeof(name[nl]), "#%llu %s", (unsigned long long)fl[i].id,
                 fl[i].l4s ? "L4S" : "classic");
        tl[nl] = (struct svg_line){name[nl], color, dash, v[nl].tput, NULL, NULL, NULL};
        ql[nl] = (struct svg_line){name[nl],    color,       dash,       v[nl].qd,
                                   v[nl].hasqd, v[nl].qlo, v[nl].qhi};
        ml[nl] = (struct svg_line){name[nl], color, dash, rate[nl], NULL, NULL, NULL};
        el[nl] = (struct svg_line){name[nl], color, dash, v[nl].e1s, NULL, NULL, NULL};
        s[nl] = x;
        off[nl] = (double)(x->t0 - t0) / 1e9;
        nl++;
    }
    /* L4S to classic throughput where both sent */
    for (k = 0; k < grid->n; k++) {
        one[k] = 1;
        has_ratio[k] = sum[k] > 0 && sum[EW_SERIES_BINS + k] > 0;
        ratio[k] = has_ratio[k] ? sum[k] / sum[EW_SERIES_BINS + k] : 0;
        if (has_ratio[k] && ratio[k] > rmax)
            rmax = ratio[k];
    }
    if (rmax > 10)
        rmax = 10; /* a starved kind shows as the axis' top */
    if (rmax < 2)
        rmax = 2;
    rl[0] = (struct svg_line){"L4S : classic", "#555", NULL, ratio, has_ratio, NULL, NULL};
    rl[1] = (struct svg_line){"equal (1)", "#aaa", "2,3", one, NULL, NULL, NULL};
    /* the ratio panel's two lines (the ratio, equal shares) over the grid */
    s[nl] = s[nl + 1] = grid;
    off[nl] = off[nl + 1] = 0;

    snprintf(cap, sizeof(cap), "%s%s: %s", g->looks_like, g->likely ? " (likely)" : "",
             g->reason);
    ncap = svg_wrap(cap, BN_CAPTION_COLS, at, len, BN_CAPTION_LINES);
    height = 30 + ncap * BN_CAPTION_LH + DIR_HEAD - 10 + (g->has_ratio ? 5 : 4) * PANEL_H +
             XLABEL_H + 10;
    fprintf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                 "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 %d %d\" width=\"100%%\" "
                 "preserveAspectRatio=\"xMidYMin meet\">\n"
                 "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n"
                 "<text class=\"bottleneck\" x=\"%d\" y=\"20\" font-size=\"15\" %s>",
            SVG_W, height, LEFT, FONT);
    svg_escaped(out, g->hosts[0], sizeof(g->hosts[0]));
    fputs(" &#8596; ", out);
    svg_escaped(out, g->hosts[1], sizeof(g->hosts[1]));
    fprintf(out, ": %d flow%s over %.3f s, one time axis</text>\n", nl, nl == 1 ? "" : "s",
            t.span_s);
    for (i = 0; i < ncap; i++) {
        fprintf(out, "<text class=\"caption\" x=\"%d\" y=\"%d\" font-size=\"12\" %s>", LEFT,
                30 + 8 + i * BN_CAPTION_LH, FONT);
        svg_escaped(out, cap + at[i], len[i]);
        fputs("</text>\n", out);
    }
    y = 30 + ncap * BN_CAPTION_LH + DIR_HEAD - 10;
    svg_panel_multi(out, "throughput", y, "throughput (payload) of each flow", "Mbit/s", mt, &t,
                    tl, nl, s, off, false);
    y += PANEL_H;
    if (g->has_ratio) {
        svg_panel_multi(out, "ratio", y,
                        "throughput ratio, L4S to classic (all flows of each kind; 1: equal)", "",
                        rmax, &t, rl, 2, s + nl, off + nl, false);
        y += PANEL_H;
    }
    svg_panel_multi(out, "qdelay", y,
                    "queueing delay of each flow: median per bin, p10 to p90 shaded; timed as "
                    "its path verdict times it",
                    "ms", qmax, &t, ql, nl, s, off, false);
    y += PANEL_H;
    snprintf(unit, sizeof(unit), "%s", per_rtt ? "" : "/s");
    svg_panel_multi(out, "marks", y,
                    per_rtt ? "CE marks of each flow per round trip (its own RTT; seen here or "
                              "fed back)"
                            : "CE marks of each flow a second (seen here or fed back)",
                    unit, mmax, &t, ml, nl, s, off, false);
    y += PANEL_H;
    svg_panel_multi(out, "codepoints", y, "ECT(1) share of each flow's packets", "%", 100, &t,
                    el, nl, s, off, true);
    fprintf(out, "</svg>\n");
    rc = ferror(out) ? -1 : 0;
out:
    free(v);
    free(rate);
    free(name);
    free(grid);
    free(ratio);
    free(has_ratio);
    return rc;
}
