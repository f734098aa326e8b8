/* series.c - per-flow time series and their SVG pictures (see series.h). */
#include "ecnwatch/series.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ecnwatch/ecn.h"
#include "ecnwatch/flow.h"
#include "ecnwatch/format.h"
#include "ecnwatch/infer.h"
#include "ecnwatch/jw.h"

int
ew_series_pool_init(struct ew_series_pool *p, uint32_t max_series, int64_t width_ns)
{
    memset(p, 0, sizeof(*p));
    if (max_series == 0)
        return 0;
    p->s = calloc(max_series, sizeof(*p->s));
    p->free_slot = malloc(max_series * sizeof(*p->free_slot));
    if (!p->s || !p->free_slot) {
        ew_series_pool_free(p);
        return -1;
    }
    p->cap = max_series;
    while (p->nfree < max_series) {
        p->free_slot[p->nfree] = max_series - 1 - p->nfree;
        p->nfree++;
    }
    p->width0 = width_ns > 0 ? width_ns : 100000000;
    return 0;
}

void
ew_series_pool_free(struct ew_series_pool *p)
{
    free(p->s);
    free(p->free_slot);
    memset(p, 0, sizeof(*p));
}

/* an unused series for flow id from ts, or NULL when all are taken: O(1) */
static struct ew_series *
take(struct ew_series_pool *p, uint64_t id, int64_t ts)
{
    struct ew_series *s;

    if (p->nfree == 0)
        return NULL;
    s = &p->s[p->free_slot[--p->nfree]];
    memset(s, 0, sizeof(*s));
    s->flow_id = id;
    s->t0 = ts;
    s->width = p->width0;
    return s;
}

static uint16_t
add16(uint16_t a, uint32_t b)
{
    return (uint16_t)(a + b > 65535 ? 65535 : a + b);
}

/* halve the resolution: bins 2k and 2k+1 become bin k */
static void
merge(struct ew_series *s)
{
    uint16_t i;

    for (i = 0; i < s->n / 2 + s->n % 2; i++) {
        struct ew_bin a = s->b[2 * i], b = 2 * i + 1 < s->n ? s->b[2 * i + 1] : (struct ew_bin){0};

        a.bytes = a.bytes + b.bytes < a.bytes ? UINT32_MAX : a.bytes + b.bytes;
        a.pkts = add16(a.pkts, b.pkts);
        a.ce = add16(a.ce, b.ce);
        a.e1 = add16(a.e1, b.e1);
        a.e0 = add16(a.e0, b.e0);
        a.marks = add16(a.marks, b.marks);
        if (b.rtt_min_us && (!a.rtt_min_us || b.rtt_min_us < a.rtt_min_us))
            a.rtt_min_us = b.rtt_min_us;
        s->b[i] = a;
    }
    memset(&s->b[s->n / 2 + s->n % 2], 0, sizeof(s->b[0]) * (EW_SERIES_BINS - (s->n / 2 + s->n % 2)));
    s->n = (uint16_t)(s->n / 2 + s->n % 2);
    s->width *= 2;
}

void
ew_series_packet(struct ew_series_pool *p, struct ew_flow *f, int dir, const struct ew_pkt *pkt,
                 int64_t ts)
{
    struct ew_series *s;
    const struct ew_half *h = &f->inf->half[dir];
    uint64_t marks;
    int64_t k;

    if (!p->s)
        return;
    if (!f->series[dir]) {
        /* a direction refused once (the pool was full at its first packet)
         * is not given a series later, part way through */
        if (f->series_refused & (1u << dir))
            return;
        s = take(p, f->id, ts);
        if (!s) {
            f->series_refused |= (uint8_t)(1u << dir);
            p->refused++;
            return;
        }
        f->series[dir] = (uint32_t)(s - p->s) + 1;
    }
    s = &p->s[f->series[dir] - 1];
    if (ts < s->t0)
        ts = s->t0; /* time going backwards lands in the first bin */
    while ((k = (ts - s->t0) / s->width) >= EW_SERIES_BINS)
        merge(s);
    if (k >= s->n)
        s->n = (uint16_t)(k + 1);
    s->b[k].pkts = add16(s->b[k].pkts, 1);
    if (pkt->l4 == EW_L4_TCP)
        s->b[k].bytes += pkt->u.tcp.payload;
    else if (pkt->l4 == EW_L4_UDP)
        s->b[k].bytes += pkt->u.udp.payload;
    if ((pkt->ecn & EW_ECN_MASK) == EW_ECN_CE)
        s->b[k].ce = add16(s->b[k].ce, 1);
    if ((pkt->ecn & EW_ECN_MASK) == EW_ECN_ECT_1)
        s->b[k].e1 = add16(s->b[k].e1, 1);
    if ((pkt->ecn & EW_ECN_MASK) == EW_ECN_ECT_0)
        s->b[k].e0 = add16(s->b[k].e0, 1);
    /* what the feedback on this direction says, as it arrives (the other
     * direction's packets carry it; both directions' packets pass here) */
    marks = h->cep_reported > h->ece_runs ? h->cep_reported : h->ece_runs;
    if (marks > s->last_marks) {
        s->b[k].marks = add16(s->b[k].marks, (uint32_t)(marks - s->last_marks));
        s->last_marks = marks;
    }
    if (h->rtt_samples != s->last_rtt_samples) {
        uint32_t us = (uint32_t)(h->rtt_last / 1000);

        if (!s->b[k].rtt_min_us || us < s->b[k].rtt_min_us)
            s->b[k].rtt_min_us = us ? us : 1;
        s->last_rtt_samples = h->rtt_samples;
    }
}

void
ew_series_release(struct ew_series_pool *p, struct ew_flow *f)
{
    int d;

    for (d = 0; d < 2; d++) {
        if (f->series[d] && p->s) {
            p->s[f->series[d] - 1].flow_id = 0;
            p->free_slot[p->nfree++] = f->series[d] - 1;
        }
        f->series[d] = 0;
    }
}

static double
r3(double v)
{
    return (double)(int64_t)(v * 1000.0 + (v >= 0 ? 0.5 : -0.5)) / 1000.0;
}

/* one direction's bins: rows of seven numbers, the last two null when the
 * bin has no RTT sample */
static void
dir_series(struct jw *w, const struct ew_series *s, const struct ew_flow *f, int dir)
{
    const struct ew_half *h = &f->inf->half[dir];
    double w_s = (double)s->width / 1e9;
    uint16_t i;

    jw_key(w, "bins");
    jw_array_begin(w);
    for (i = 0; i < s->n; i++) {
        const struct ew_bin *b = &s->b[i];
        double rtt = b->rtt_min_us ? b->rtt_min_us / 1000.0 : -1;
        double srtt = h->rtt_srtt > 0 ? (double)h->rtt_srtt / 1e9 : 0;
        uint32_t marks = b->ce > b->marks ? b->ce : b->marks;
        double v[7];
        bool has[7] = {true, true, true, true, true, rtt >= 0, rtt >= 0 && h->rtt_samples};
        int k;

        v[0] = r3((double)i * w_s * 1000.0);
        v[1] = r3((double)b->bytes * 8 / w_s / 1e6);
        v[2] = b->pkts ? r3((double)b->ce / b->pkts) : 0.0;
        v[3] = b->pkts ? r3((double)b->e1 / b->pkts) : 0.0;
        v[4] = srtt > 0 ? r3(marks * srtt / w_s) : 0.0;
        v[5] = has[5] ? r3(rtt) : 0.0;
        v[6] = has[6] ? r3(rtt - (double)h->rtt_min / 1e6) : 0.0;
        /* json_pack("[f,f,f,f,f,o,o]") made no row of a NaN or an infinity */
        for (k = 0; k < 7; k++)
            if (has[k] && !isfinite(v[k]))
                break;
        if (k < 7)
            continue;
        jw_array_begin(w);
        for (k = 0; k < 7; k++) {
            if (has[k])
                jw_real(w, v[k]);
            else
                jw_null(w);
        }
        jw_array_end(w);
    }
    jw_array_end(w);
}

void
ew_series_write(struct jw *w, const char *key, const struct ew_series_pool *p,
                const struct ew_flow *f)
{
    static const char *const columns[] = {"t_ms",       "mbps",   "ce_share", "ect1_share",
                                          "ce_per_rtt", "rtt_ms", "qdelay_ms"};
    const struct ew_series *s0 = NULL;
    char t[64];
    int d;

    if (!p->s || (!f->series[0] && !f->series[1]))
        return;
    for (d = 0; d < 2; d++)
        if (f->series[d] && (!s0 || p->s[f->series[d] - 1].t0 < s0->t0))
            s0 = &p->s[f->series[d] - 1];
    jw_key(w, key);
    jw_object_begin(w);
    ew_time_str(s0->t0, t, sizeof(t));
    jw_kstring(w, "start", t);
    jw_key(w, "columns");
    jw_array_begin(w);
    for (d = 0; d < 7; d++)
        jw_string(w, columns[d]);
    jw_array_end(w);
    for (d = 0; d < 2; d++) {
        const struct ew_series *s;

        if (!f->series[d])
            continue;
        s = &p->s[f->series[d] - 1];
        jw_key(w, d == f->client_dir ? "c2s" : "s2c");
        jw_object_begin(w);
        jw_kreal(w, "interval_ms", r3((double)s->width / 1e6));
        jw_kreal(w, "offset_ms", r3((double)(s->t0 - s0->t0) / 1e6));
        dir_series(w, s, f, d);
        jw_object_end(w);
    }
    jw_object_end(w);
}

/* ------------------------------------------------------------------ SVG */

/* The picture a person pastes into a bug report, drawn the way flent draws
 * its plots: for each direction that carries data (TCP: payload; other
 * protocols: any packet), five panels on one time axis (throughput, RTT on
 * an axis from near its minimum, queueing delay, CE seen here against marks
 * fed back, ECN codepoint shares), each with round ticks, gridlines, units
 * and a legend where it holds more than one line. The SVG has a viewBox and
 * width="100%", so it follows the page it is shown on. Only fixed-format
 * numbers are printed: the same capture gives the same bytes. */

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
};

struct svg_time {
    double span_s, step_s; /* the axis from 0 to span_s, a tick every step_s */
    int nticks;
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

/* one panel at y0: title, y ticks and gridlines from lo to hi (rounded out
 * to the step), vertical gridlines at the time ticks, the lines, a legend
 * when there is more than one line; x tick labels below when xlabels */
static void
svg_panel(FILE *out, const char *id, int y0, const char *title, const char *unit, double lo,
          double hi, double min_step, const struct svg_time *t, const struct svg_line *ln,
          int nl, const struct ew_series *s, double off_s, bool xlabels)
{
    double step, ymin, ymax, y, w_s = (double)s->width / 1e9;
    int i, k, dec, ticks;

    if (!(hi > lo) && lo == 0) {
        hi = 1; /* nothing to draw: an axis from 0 to 1 */
    } else if (!(hi > lo)) {
        double pad = fabs(lo) * 0.05 > 0.05 ? fabs(lo) * 0.05 : 0.05;

        hi = lo + pad;
        lo = lo - pad < 0 && lo >= 0 ? 0 : lo - pad;
    }
    step = nice_step(hi - lo, 4);
    if (step < min_step)
        step = min_step;
    ymin = ffloor(lo / step + 1e-9) * step;
    ymax = -ffloor(-hi / step + 1e-9) * step;
    if (ymax <= ymin)
        ymax = ymin + step;
    ticks = (int)((ymax - ymin) / step + 0.5);
    if (!(ticks >= 1 && ticks <= 20)) { /* only when the numbers are absurd */
        ymin = lo;
        ymax = hi > lo ? hi : lo + 1;
        ticks = 4;
        step = (ymax - ymin) / 4;
    }
    dec = decimals(step);
    fprintf(out, "<g class=\"panel\" id=\"%s\" transform=\"translate(0,%d)\">\n", id, y0);
    fprintf(out, "<text class=\"title\" x=\"%d\" y=\"13\" font-size=\"13\" %s "
                 "font-weight=\"bold\">%s</text>\n",
            LEFT, FONT, title);
    fprintf(out, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"#fcfcfc\" "
                 "stroke=\"#888\"/>\n",
            LEFT, PANEL_TOP, PLOT_W, PLOT_H);
    for (k = 0; k <= ticks; k++) {
        double v = ymin + k * step;

        y = PANEL_TOP + PLOT_H * (1 - (v - ymin) / (ymax - ymin));
        fprintf(out, "<line class=\"grid-y\" x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" "
                     "stroke=\"#ddd\" stroke-width=\"1\"/>\n",
                LEFT, y, LEFT + PLOT_W, y);
        fprintf(out, "<text class=\"tick-y\" x=\"%d\" y=\"%.1f\" font-size=\"11\" %s "
                     "text-anchor=\"end\">%.*f %s</text>\n",
                LEFT - 5, y + 4, FONT, dec, v, unit);
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
    for (i = 0; i < nl; i++) {
        bool open = false;

        for (k = 0; k < s->n; k++) {
            double x = xpos(t, off_s + (k + 0.5) * w_s), v;

            if (ln[i].has && !ln[i].has[k]) {
                if (open)
                    fprintf(out, "\"/>\n");
                open = false;
                continue;
            }
            v = ln[i].v[k] < ymin ? ymin : ln[i].v[k] > ymax ? ymax : ln[i].v[k];
            y = PANEL_TOP + PLOT_H * (1 - (v - ymin) / (ymax - ymin));
            /* a point with no neighbour is a dot, a line of one point shows
             * nothing */
            if ((k == 0 || (ln[i].has && !ln[i].has[k - 1])) &&
                (k + 1 >= s->n || (ln[i].has && !ln[i].has[k + 1]))) {
                fprintf(out, "<circle class=\"series\" data-name=\"%s\" cx=\"%.1f\" "
                             "cy=\"%.1f\" r=\"2.5\" fill=\"%s\"/>\n",
                        ln[i].name, x, y, ln[i].color);
                continue;
            }
            if (!open)
                fprintf(out, "<polyline class=\"series\" data-name=\"%s\" fill=\"none\" "
                             "stroke=\"%s\" stroke-width=\"1.6\"%s%s%s points=\"",
                        ln[i].name, ln[i].color, ln[i].dash ? " stroke-dasharray=\"" : "",
                        ln[i].dash ? ln[i].dash : "", ln[i].dash ? "\"" : "");
            fprintf(out, "%s%.1f,%.1f", open ? " " : "", x, y);
            open = true;
        }
        if (open)
            fprintf(out, "\"/>\n");
    }
    if (nl > 1) {
        int lx = LEFT + PLOT_W - 150 * nl + 6;

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
    fprintf(out, "</g>\n");
}

/* the direction's data worth a picture: TCP payload, or any packet of
 * another protocol (both sides of a UDP exchange carry its data) */
static bool
carries_data(const struct ew_flow *f, int d)
{
    return f->key.proto == 6 ? f->dir[d].payload_bytes > 0 : f->dir[d].packets > 0;
}

/* one direction's five panels from y0; the height used */
static int
svg_direction(FILE *out, const struct ew_series *s, const struct ew_flow *f, int d,
              const struct svg_time *t, double off_s, int y0)
{
    double tput[EW_SERIES_BINS], rtt[EW_SERIES_BINS], qd[EW_SERIES_BINS], ce[EW_SERIES_BINS];
    double mk[EW_SERIES_BINS], e1s[EW_SERIES_BINS], e0s[EW_SERIES_BINS], ces[EW_SERIES_BINS];
    bool hasrtt[EW_SERIES_BINS];
    double w_s = (double)s->width / 1e9, mt = 0, rmin = 0, rmax = 0, qmax = 0, mmax = 0;
    const char *tag = d == f->client_dir ? "c2s" : "s2c";
    char a[80], b[80], id[32], title[160], unit[48];
    int i, y = y0, nrtt = 0;

    for (i = 0; i < s->n; i++) {
        const struct ew_bin *bn = &s->b[i];

        tput[i] = (double)bn->bytes * 8 / w_s / 1e6;
        hasrtt[i] = bn->rtt_min_us != 0;
        rtt[i] = bn->rtt_min_us / 1000.0;
        ce[i] = bn->ce;
        mk[i] = bn->marks;
        e1s[i] = bn->pkts ? 100.0 * bn->e1 / bn->pkts : 0;
        e0s[i] = bn->pkts ? 100.0 * bn->e0 / bn->pkts : 0;
        ces[i] = bn->pkts ? 100.0 * bn->ce / bn->pkts : 0;
        if (tput[i] > mt)
            mt = tput[i];
        if (ce[i] > mmax)
            mmax = ce[i];
        if (mk[i] > mmax)
            mmax = mk[i];
        if (hasrtt[i]) {
            if (!nrtt || rtt[i] < rmin)
                rmin = rtt[i];
            if (!nrtt || rtt[i] > rmax)
                rmax = rtt[i];
            nrtt++;
        }
    }
    for (i = 0; i < s->n; i++) {
        qd[i] = hasrtt[i] ? rtt[i] - rmin : 0;
        if (qd[i] > qmax)
            qmax = qd[i];
    }
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
            LEFT, y + 18, FONT, tag, d == f->client_dir ? "client to server" : "server to client",
            a, b, (unsigned long long)f->dir[d].packets, f->dir[d].packets == 1 ? "" : "s",
            w_s * 1000);
    y += DIR_HEAD;
    {
        struct svg_line l = {"throughput", "#1f77b4", NULL, tput, NULL};

        snprintf(id, sizeof(id), "%s-throughput", tag);
        svg_panel(out, id, y, "throughput (payload)", "Mbit/s", 0, mt, 0, t, &l, 1, s, off_s, false);
        y += PANEL_H;
    }
    if (nrtt) {
        struct svg_line l = {"RTT", "#2ca02c", NULL, rtt, hasrtt};
        struct svg_line q = {"queueing delay", "#ff7f0e", NULL, qd, hasrtt};

        snprintf(id, sizeof(id), "%s-rtt", tag);
        snprintf(title, sizeof(title), "RTT, lowest per bin (flow minimum %.3f ms)", rmin);
        svg_panel(out, id, y, title, "ms", rmin, rmax, 0, t, &l, 1, s, off_s, false);
        y += PANEL_H;
        snprintf(id, sizeof(id), "%s-qdelay", tag);
        svg_panel(out, id, y, "queueing delay (RTT less the flow minimum)", "ms", 0, qmax, 0, t, &q,
                  1, s, off_s, false);
        y += PANEL_H;
    } else {
        fprintf(out, "<text class=\"note\" x=\"%d\" y=\"%d\" font-size=\"12\" %s fill=\"#555\">"
                     "no RTT sample in this direction: no RTT or queueing delay panel</text>\n",
                LEFT, y + 13, FONT);
        y += 22;
    }
    {
        struct svg_line l[2] = {{"CE seen here", "#d62728", NULL, ce, NULL},
                                {"marks fed back", "#9467bd", "5,3", mk, NULL}};

        snprintf(id, sizeof(id), "%s-marks", tag);
        snprintf(title, sizeof(title), "CE marks per %.0f ms interval", w_s * 1000);
        snprintf(unit, sizeof(unit), "marks");
        svg_panel(out, id, y, title, unit, 0, mmax, 1, t, l, 2, s, off_s, false);
        y += PANEL_H;
    }
    {
        /* Not-ECT is what is left of 100 % */
        struct svg_line l[3] = {{"ECT(1) share", "#17becf", NULL, e1s, NULL},
                                {"ECT(0) share", "#8c564b", "2,2", e0s, NULL},
                                {"CE share", "#d62728", "5,3", ces, NULL}};

        snprintf(id, sizeof(id), "%s-codepoints", tag);
        svg_panel(out, id, y, "ECN codepoints, share of packets (Not-ECT: the rest)", "%", 0, 100, 0, t, l, 3, s,
                  off_s, true);
        y += PANEL_H + XLABEL_H;
    }
    return y - y0;
}

int
ew_series_svg(const struct ew_series_pool *p, const struct ew_flow *f, FILE *out)
{
    const struct ew_series *s[2] = {NULL, NULL};
    int order[2], nd = 0, d, i, h;
    int64_t t0 = 0, t1 = 0;
    struct svg_time t;
    char proto[24];

    if (!p->s)
        return -1;
    /* c2s first, then s2c: each direction that carries data */
    order[0] = f->client_dir;
    order[1] = f->client_dir ^ 1;
    for (i = 0; i < 2; i++) {
        d = order[i];
        if (f->series[d] && p->s[f->series[d] - 1].n && carries_data(f, d))
            s[d] = &p->s[f->series[d] - 1];
    }
    if (!s[0] && !s[1]) {
        /* no data either way (a handshake, pure ACKs): the direction with
         * more packets */
        d = f->dir[f->client_dir ^ 1].packets > f->dir[f->client_dir].packets ? f->client_dir ^ 1
                                                                               : f->client_dir;
        if (!f->series[d])
            d ^= 1;
        if (!f->series[d])
            return -1;
        s[d] = &p->s[f->series[d] - 1];
    }
    for (d = 0; d < 2; d++) {
        if (!s[d])
            continue;
        if (!nd || s[d]->t0 < t0)
            t0 = s[d]->t0;
        if (!nd || s[d]->t0 + s[d]->n * s[d]->width > t1)
            t1 = s[d]->t0 + s[d]->n * s[d]->width;
        nd++;
    }
    t.span_s = (double)(t1 - t0) / 1e9;
    t.step_s = nice_step(t.span_s, 8);
    t.nticks = (int)(t.span_s / t.step_s + 1e-9);
    if (!(t.nticks >= 0 && t.nticks <= 40)) {
        t.nticks = 8;
        t.step_s = t.span_s / 8;
    }
    /* the height: 5 panels a direction (3 without RTT samples) */
    if (f->key.proto == 6 || f->key.proto == 17)
        snprintf(proto, sizeof(proto), "%s", f->key.proto == 6 ? "TCP" : "UDP");
    else
        snprintf(proto, sizeof(proto), "IP protocol %u", f->key.proto);
    h = 30;
    for (d = 0; d < 2; d++) {
        bool rtt = false;

        if (!s[d])
            continue;
        for (i = 0; i < s[d]->n && !rtt; i++)
            rtt = s[d]->b[i].rtt_min_us != 0;
        h += DIR_HEAD + (rtt ? 5 : 3) * PANEL_H + XLABEL_H + (rtt ? 0 : 22) + 10;
    }
    fprintf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                 "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 %d %d\" width=\"100%%\" "
                 "preserveAspectRatio=\"xMidYMin meet\">\n"
                 "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n"
                 "<text class=\"flow\" x=\"%d\" y=\"20\" font-size=\"15\" %s>flow %llu "
                 "(%s) over %.3f s, from its first packet</text>\n",
            SVG_W, h, LEFT, FONT, (unsigned long long)f->id,
            proto, t.span_s);
    h = 30;
    for (i = 0; i < 2; i++) {
        d = order[i];
        if (s[d])
            h += svg_direction(out, s[d], f, d, &t, (double)(s[d]->t0 - t0) / 1e9, h) + 10;
    }
    fprintf(out, "</svg>\n");
    return ferror(out) ? -1 : 0;
}
