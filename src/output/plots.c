/* plots.c - --plot DIR (see plots.h): the pictures come from plot_svg.c, the
 * verdicts of the index page from the pass's rows; this file walks them and
 * writes the files. */
#include "output/plots.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "dissectors/ecn.h"
#include "findings/conclusions.h"
#include "infer/infer.h"
#include "base/format.h"
#include "base/outfile.h"
#include "output/plot_svg.h"
#include "output/report.h"

struct plot_arg {
    const struct ew_pass *p;
    const struct ew_flow *f;
    const struct ew_bottleneck *g;   /* the bottleneck drawn, with its flows */
    struct ew_plot_flow bf[EW_PLOT_BN_FLOWS];
    int nbf;
    bool *drawn;                     /* by bottleneck: its picture was written */
    const char *qd_from[2]; /* where f's path verdicts time the queueing delay */
    struct ew_flow_room *room;
    struct ew_flow_summary *sum;
};

static int
svg_cb(void *arg, FILE *out)
{
    struct plot_arg *a = arg;

    return ew_plot_svg(a->p->an->series, a->f, a->qd_from, out);
}

static int
bottleneck_cb(void *arg, FILE *out)
{
    struct plot_arg *a = arg;

    return ew_plot_bottleneck_svg(a->g, a->bf, a->nbf, out);
}

/* the flows of bottleneck g, with their data directions' series, into a->bf */
static void
bottleneck_flows(struct plot_arg *a, const struct ew_bottleneck *g)
{
    const struct ew_conclusions *c = a->p->c;
    size_t i, k;
    int side;

    a->g = g;
    a->nbf = 0;
    for (side = 0; side < 2; side++) {
        const struct ew_bottleneck_side *sd = side ? &g->classic : &g->l4s;

        for (k = 0; k < sd->n && a->nbf < EW_PLOT_BN_FLOWS; k++)
            for (i = 0; i < c->n; i++) {
                const struct ew_conclusion *r = &c->row[i];
                const struct ew_flow *f;

                if (r->id != sd->ids[k])
                    continue;
                f = ew_conclusion_words(c, i, EW_REPORT_CONCLUDE, a->room, a->sum);
                a->bf[a->nbf++] = (struct ew_plot_flow){
                    f->id, side == 0, ew_series_get(a->p->an->series, f, r->main_dir),
                    a->sum->has_path ? a->sum->path[r->main_dir].qdelay_from : NULL,
                    (double)ew_infer_path_rtt(f, r->main_dir) / 1e6};
                break;
            }
    }
}

/* the folded flows linked from their line, at most */
#define PLOT_FOLDED_LINKS 50

/* the index's order of the flows */
struct by_bytes {
    uint64_t bytes;
    size_t i;
    bool drawn, small;
};

static int
by_bytes_cmp(const void *a, const void *b)
{
    const struct by_bytes *x = a, *y = b;

    if (x->bytes != y->bytes)
        return x->bytes < y->bytes ? 1 : -1;
    return x->i < y->i ? -1 : x->i > y->i;
}

static int
index_cb(void *arg, FILE *out)
{
    struct plot_arg *a = arg;
    const struct ew_conclusions *c = a->p->c;
    struct by_bytes *order;
    size_t i, small = 0, big = 0;

    /* the plots follow the page: one a row, two side by side on a page
     * wide enough for both at a readable size */
    fprintf(out, "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\">\n"
                 "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
                 "<title>ecnwatch plots</title>\n<style>\n"
                 "body { font-family: sans-serif; margin: 1em; }\n"
                 "table { border-collapse: collapse; }\n"
                 "th, td { padding: 0.2em 0.6em; text-align: left; border-bottom: 1px solid #ddd; }\n"
                 ".plots { display: grid; gap: 1em; "
                 "grid-template-columns: repeat(auto-fill, minmax(min(100%%, 860px), 1fr)); }\n"
                 ".plots figure { margin: 0; }\n"
                 ".plots img { width: 100%%; height: auto; display: block; }\n"
                 "</style></head>\n<body>\n<h1>ecnwatch: flows over time</h1>\n");
    /* the bottlenecks first: L4S and classic flows side by side */
    for (i = 0; i < c->bn.n; i++) {
        const struct ew_bottleneck *g = &c->bn.g[i];

        if (!a->drawn || !a->drawn[i])
            continue;
        fprintf(out, "<h2>bottleneck %s &harr; %s: %s%s</h2>\n<p>%s</p>\n"
                     "<figure id=\"bottleneck-%zu\"><a href=\"bottleneck-%zu.svg\"><img "
                     "src=\"bottleneck-%zu.svg\" alt=\"the flows of bottleneck %zu over time\">"
                     "</a></figure>\n",
                g->hosts[0], g->hosts[1], g->looks_like, g->likely ? " (likely)" : "", g->reason,
                i + 1, i + 1, i + 1, i + 1);
    }
    /* the flows, the largest first (bytes both ways; the first seen first
     * among equals); small ones without ECN or a finding folded into a line */
    order = malloc((c->n ? c->n : 1) * sizeof(*order));
    if (!order)
        return -1;
    for (i = 0; i < c->n; i++) {
        const struct ew_conclusion *r = &c->row[i];
        const struct ew_flow *f = ew_flowtab_view(c->tab, r->ref, a->room);

        order[i] = (struct by_bytes){f->dir[0].bytes + f->dir[1].bytes, i,
                                     f->series[0] || f->series[1], ew_conclusion_small_plain(f, r)};
        if (order[i].drawn && order[i].small)
            small++;
        if (order[i].drawn && !order[i].small)
            big++;
    }
    if (!big) /* nothing else: the small ones are the flows */
        for (i = 0; i < c->n; i++)
            order[i].small = false;
    qsort(order, c->n, sizeof(*order), by_bytes_cmp);
    fprintf(out, "<h2>flows</h2>\n<table>\n"
                 "<tr><th>flow</th><th>endpoints</th><th>bytes</th><th>verdict</th><th>path</th>"
                 "</tr>\n");
    for (i = 0; i < c->n; i++) {
        const struct ew_conclusion *r = &c->row[order[i].i];
        const struct ew_flow *f;
        char x[64], y[64], ends[200], size[32];

        if (!order[i].drawn || (big && order[i].small))
            continue;
        f = ew_flowtab_view(c->tab, r->ref, a->room);
        ew_addr_str(f->key.lo, f->key.family, x, sizeof(x));
        ew_addr_str(f->key.hi, f->key.family, y, sizeof(y));
        /* ports where the protocol has them; else the protocol's name */
        if (f->key.proto == 6 || f->key.proto == 17 || f->key.proto == 132)
            snprintf(ends, sizeof(ends), "%s %s:%u &harr; %s:%u", ew_report_proto_name(f), x,
                     f->key.port_lo, y, f->key.port_hi);
        else if (ew_ip_proto_name(f->key.proto))
            snprintf(ends, sizeof(ends), "%s %s &harr; %s", ew_ip_proto_name(f->key.proto), x, y);
        else
            snprintf(ends, sizeof(ends), "ip-proto %u %s &harr; %s", f->key.proto, x, y);
        ew_size_str(size, sizeof(size), (double)(f->dir[0].bytes + f->dir[1].bytes), "B");
        fprintf(out, "<tr><td><a href=\"flow-%llu.svg\">%llu</a></td><td>%s</td><td>%s</td>"
                     "<td>%s</td><td>%s</td></tr>\n",
                (unsigned long long)f->id, (unsigned long long)f->id, ends, size,
                ew_verdict_name[r->verdict], ew_aqm_name[r->aqm[r->main_dir]]);
    }
    fprintf(out, "</table>\n");
    if (big && small) {
        size_t k = 0;

        fprintf(out, "<p class=\"folded\">%zu small flow%s without ECN and without a finding "
                     "(fewer than %d packets, no ECT or CE either way) not shown here:",
                small, small == 1 ? "" : "s", EW_SMALL_PKTS);
        for (i = 0; i < c->n && k < PLOT_FOLDED_LINKS; i++) {
            if (!order[i].drawn || !order[i].small)
                continue;
            k++;
            fprintf(out, " <a href=\"flow-%llu.svg\">%llu</a>",
                    (unsigned long long)c->row[order[i].i].id,
                    (unsigned long long)c->row[order[i].i].id);
        }
        if (small > k)
            fprintf(out, " and %zu more (flow-<i>id</i>.svg in this folder)", small - k);
        fprintf(out, ".</p>\n");
    }
    fprintf(out, "<div class=\"plots\">\n");
    for (i = 0; i < c->n; i++) {
        const struct ew_flow *f = ew_flowtab_view(c->tab, c->row[order[i].i].ref, a->room);

        if (order[i].drawn && !(big && order[i].small))
            fprintf(out, "<figure id=\"flow-%llu\"><a href=\"flow-%llu.svg\"><img "
                         "src=\"flow-%llu.svg\" alt=\"flow %llu over time\"></a></figure>\n",
                    (unsigned long long)f->id, (unsigned long long)f->id,
                    (unsigned long long)f->id, (unsigned long long)f->id);
    }
    free(order);
    fprintf(out, "</div>\n</body></html>\n");
    return ferror(out) ? -1 : 0;
}

int
ew_plots_prepare(const char *dir, char *err, size_t errlen)
{
    char path[4096], *p;
    size_t len = strlen(dir);
    int rc;

    if (len == 0 || len + sizeof("/index.html") > sizeof(path)) {
        snprintf(err, errlen, "--plot %s: %s", dir, strerror(len ? ENAMETOOLONG : ENOENT));
        return -1;
    }
    /* live as root: the folder made and settled now, for the files named
     * here (outfile.h); otherwise made here */
    rc = ew_outfile_folder(dir, "index.html\nflow-*.svg\nbottleneck-*.svg", "plot", err, errlen);
    if (rc < 0)
        return -1;
    memcpy(path, dir, len + 1);
    /* each missing folder from the top down; 0777 less the umask, as mkdir -p */
    for (p = path + 1; rc == 0; p++) {
        char c = *p;

        if (c != '/' && c != '\0')
            continue;
        *p = '\0';
        if (mkdir(path, 0777) != 0 && errno != EEXIST) {
            snprintf(err, errlen, "--plot %s: cannot make %s: %s", dir, path, strerror(errno));
            return -1;
        }
        *p = c;
        if (c == '\0')
            break;
    }
    snprintf(path, sizeof(path), "%s/index.html", dir);
    return ew_outfile_check(path, "plot index", err, errlen);
}

int
ew_plots_write(const struct ew_pass *p, const char *dir, char *err, size_t errlen)
{
    const struct ew_conclusions *c = p->c;
    struct plot_arg a = {.p = p};
    char path[4096];
    size_t i;
    int rc = 0;

    if (ew_outfile_mkdir(dir) != 0) {
        snprintf(err, errlen, "--plot %s: %s", dir, strerror(errno));
        return -1;
    }
    a.room = malloc(sizeof(*a.room));
    a.sum = malloc(sizeof(*a.sum));
    if (!a.room || !a.sum || c->nomem) {
        free(a.room);
        free(a.sum);
        snprintf(err, errlen, "--plot: out of memory");
        return -1;
    }
    for (i = 0; i < c->n && rc == 0; i++) {
        a.f = ew_flowtab_view(c->tab, c->row[i].ref, a.room);
        if (!a.f->series[0] && !a.f->series[1])
            continue;
        /* the flow in words, for where its path verdicts time the delay */
        a.f = ew_conclusion_words(c, i, EW_REPORT_CONCLUDE, a.room, a.sum);
        a.qd_from[0] = a.sum->has_path ? a.sum->path[0].qdelay_from : NULL;
        a.qd_from[1] = a.sum->has_path ? a.sum->path[1].qdelay_from : NULL;
        snprintf(path, sizeof(path), "%s/flow-%llu.svg", dir, (unsigned long long)a.f->id);
        rc = ew_outfile_write(path, svg_cb, &a, "plot", err, errlen);
    }
    /* each bottleneck's flows on one time axis */
    a.drawn = calloc(c->bn.n ? c->bn.n : 1, sizeof(*a.drawn));
    for (i = 0; i < c->bn.n && rc == 0 && a.drawn; i++) {
        int k, any = 0;

        bottleneck_flows(&a, &c->bn.g[i]);
        for (k = 0; k < a.nbf; k++)
            any |= a.bf[k].s != NULL && a.bf[k].s->n > 0;
        if (!any) /* no series to draw (the pool was full): no picture */
            continue;
        snprintf(path, sizeof(path), "%s/bottleneck-%zu.svg", dir, i + 1);
        rc = ew_outfile_write(path, bottleneck_cb, &a, "plot", err, errlen);
        a.drawn[i] = rc == 0;
    }
    if (rc == 0) {
        snprintf(path, sizeof(path), "%s/index.html", dir);
        rc = ew_outfile_write(path, index_cb, &a, "plot index", err, errlen);
    }
    free(a.drawn);
    free(a.room);
    free(a.sum);
    return rc;
}
