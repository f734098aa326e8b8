/* outputs.c - the outputs of the end of a run, one row each (output.h).
 *
 * To add a format: write it in a file of its own under src/output/, from a
 * struct ew_pass, and add its row here (HACKING.md, "An output format"). */
#include "base/format.h"
#include "output/output.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "base/outfile.h"
#include "input/savefile.h"
#include "output/csv.h"
#include "output/metrics.h"
#include "output/plots.h"
#include "output/report.h"
#include "output/stream.h"

/* -o FILE: the JSON report, written atomically */
static bool
report_wanted(const struct ew_out_ctx *x)
{
    return x->cfg->out_file != NULL;
}

static int
report_check(const struct ew_out_ctx *x, char *err, size_t errlen)
{
    return ew_outfile_check(x->cfg->out_file, "report", err, errlen);
}

static int
report_finish(const struct ew_out_ctx *x, const struct ew_pass *p, char *err, size_t errlen)
{
    return ew_report_write_file(p, x->cfg->out_file, err, errlen);
}

/* -w FILE: the frames of the capture analysed, written as they are read,
 * with its link type and snapshot length; flushed at each live refresh, kept
 * when the capture ends (savefile.h) */
static bool
packets_wanted(const struct ew_out_ctx *x)
{
    return x->cfg->write_file != NULL;
}

static int
packets_check(const struct ew_out_ctx *x, char *err, size_t errlen)
{
    return ew_outfile_check(x->cfg->write_file, "packets", err, errlen);
}

static int
packets_open(struct ew_out_ctx *x, const struct ew_capture *cap, char *err, size_t errlen)
{
    x->save = ew_savefile_open(x->cfg->write_file, cap, err, errlen);
    return x->save ? 0 : -1;
}

static int
packets_tick(const struct ew_out_ctx *x, const struct ew_frame *fr, int64_t now_ns)
{
    char err[8];

    (void)now_ns;
    if (!x->save)
        return 0;
    if (fr) {
        ew_savefile_frame(x->save, fr);
        return 0;
    }
    return ew_savefile_flush(x->save, err, sizeof(err)); /* its close says why */
}

static int
packets_close(struct ew_out_ctx *x, bool keep, char *err, size_t errlen)
{
    int rc = x->save ? ew_savefile_close(x->save, keep, err, errlen) : 0;

    x->save = NULL;
    return rc;
}

/* --metrics-file PATH: the Prometheus text of the end (live, the exporter
 * writes it at every tick and at the end) */
static bool
metrics_wanted(const struct ew_out_ctx *x)
{
    return x->cfg->metrics_file != NULL;
}

static int
metrics_check(const struct ew_out_ctx *x, char *err, size_t errlen)
{
    return ew_outfile_check(x->cfg->metrics_file, "metrics", err, errlen);
}

static int
metrics_finish(const struct ew_out_ctx *x, const struct ew_pass *p, char *err, size_t errlen)
{
    struct ew_metrics_src ms = {.interface = NULL};
    char why[512];

    if (x->metrics_done)
        return 0;
    if (ew_metrics_write_snapshot(p, &ms, x->cfg->metrics_file, why, sizeof(why)) == 0)
        return 0;
    snprintf(err, errlen, "--metrics-file %s", why);
    return -1;
}

/* the end of standard output: 0, or -1 with why in err; a reader that left
 * (EPIPE: | head) wanted no more, and that is no error */
static int
flushed(FILE *out, const char *what, char *err, size_t errlen)
{
    if (fflush(out) == 0 && !ferror(out))
        return 0;
    if (errno == EPIPE)
        return 0;
    snprintf(err, errlen, "cannot write %s to standard output: %s", what,
             strerror(errno ? errno : EIO));
    return -1;
}

/* --json: the report to standard output */
static bool
json_wanted(const struct ew_out_ctx *x)
{
    return x->cfg->json && !x->cfg->live;
}

static int
json_finish(const struct ew_out_ctx *x, const struct ew_pass *p, char *err, size_t errlen)
{
    errno = 0;
    if (ew_report_dump(x->out, p) != 0 && errno != EPIPE) {
        snprintf(err, errlen, "cannot write the report to standard output: %s",
                 strerror(errno ? errno : EIO));
        return -1;
    }
    return flushed(x->out, "the report", err, errlen);
}

/* --ndjson (or a live capture not shown on a terminal): the stream's end,
 * every live flow's flow_end and the summary */
static bool
ndjson_wanted(const struct ew_out_ctx *x)
{
    return x->stream != NULL;
}

static int
ndjson_tick(const struct ew_out_ctx *x, const struct ew_frame *fr, int64_t now_ns)
{
    (void)fr;
    ew_stream_packet(x->stream, now_ns);
    return x->stream->error && !x->stream->reader_gone ? -1 : 0;
}

static int
ndjson_finish(const struct ew_out_ctx *x, const struct ew_pass *p, char *err, size_t errlen)
{
    ew_stream_finish(x->stream, p);
    if (!x->stream->error || x->stream->reader_gone)
        return 0; /* a reader that left wanted no more */
    snprintf(err, errlen, "cannot write the event stream to standard output: %s",
             strerror(x->stream->w.err ? x->stream->w.err : EIO));
    return -1;
}

/* the text summary of files read, with the hops between captures */
static bool
text_wanted(const struct ew_out_ctx *x)
{
    return !x->cfg->live && !x->cfg->json && !x->stream && !x->cfg->quiet &&
           !(x->cfg->csv_file && !strcmp(x->cfg->csv_file, "-"));
}

static int
text_finish(const struct ew_out_ctx *x, const struct ew_pass *p, char *err, size_t errlen)
{
    int i;

    struct ew_text_opts o = {x->cfg->text_flows, (enum ew_text_sort)x->cfg->text_sort,
                             x->cfg->text_all, 80};
    struct winsize ws;

    /* a terminal's width (60 to 200 columns), else 80 */
    if (isatty(fileno(x->out)) && ioctl(fileno(x->out), TIOCGWINSZ, &ws) == 0 && ws.ws_col)
        o.width = ws.ws_col < 60 ? 60 : ws.ws_col > 200 ? 200 : ws.ws_col;
    errno = 0;
    ew_report_text(x->out, p, &o);
    for (i = 1; p->path && i < p->path->ncaptures; i++)
        ew_report_hop_text(x->out, p->path->hops[i - 1], p->path->captures[i - 1],
                           p->path->captures[i]);
    return flushed(x->out, "the summary", err, errlen);
}

/* --csv FILE: a line per flow */
static bool
csv_wanted(const struct ew_out_ctx *x)
{
    return x->cfg->csv_file != NULL;
}

static int
csv_check(const struct ew_out_ctx *x, char *err, size_t errlen)
{
    return ew_outfile_check(x->cfg->csv_file, "flow table", err, errlen);
}

static int
csv_finish(const struct ew_out_ctx *x, const struct ew_pass *p, char *err, size_t errlen)
{
    return ew_csv_write_file(p, x->cfg->csv_file, err, errlen);
}

/* --plot DIR */
static bool
plots_wanted(const struct ew_out_ctx *x)
{
    return x->cfg->plot_dir != NULL;
}

static int
plots_check(const struct ew_out_ctx *x, char *err, size_t errlen)
{
    return ew_plots_prepare(x->cfg->plot_dir, err, errlen);
}

static int
plots_finish(const struct ew_out_ctx *x, const struct ew_pass *p, char *err, size_t errlen)
{
    return ew_plots_write(p, x->cfg->plot_dir, err, errlen);
}

/* name, wanted, check, open, tick, close, finish */
const struct ew_output ew_outputs[] = {
    {"report", report_wanted, report_check, NULL, NULL, NULL, report_finish},
    {"packets", packets_wanted, packets_check, packets_open, packets_tick, packets_close, NULL},
    {"metrics", metrics_wanted, metrics_check, NULL, NULL, NULL, metrics_finish},
    {"json", json_wanted, NULL, NULL, NULL, NULL, json_finish},
    {"ndjson", ndjson_wanted, NULL, NULL, ndjson_tick, NULL, ndjson_finish},
    {"text", text_wanted, NULL, NULL, NULL, NULL, text_finish},
    {"csv", csv_wanted, csv_check, NULL, NULL, NULL, csv_finish},
    {"plots", plots_wanted, plots_check, NULL, NULL, NULL, plots_finish},
    {NULL, NULL, NULL, NULL, NULL, NULL, NULL},
};

void
ew_outputs_start(struct ew_out_ctx *x)
{
    const struct ew_output *o;

    x->nticking = 0;
    for (o = ew_outputs; o->name; o++)
        if (o->tick && o->wanted(x) &&
            x->nticking < (int)(sizeof(x->ticking) / sizeof(x->ticking[0])))
            x->ticking[x->nticking++] = o;
}

int
ew_outputs_open(struct ew_out_ctx *x, const struct ew_capture *cap, char *err, size_t errlen)
{
    const struct ew_output *o;

    for (o = ew_outputs; o->name; o++)
        if (o->open && o->wanted(x) && o->open(x, cap, err, errlen) != 0)
            return -1;
    return 0;
}

int
ew_outputs_tick_all(const struct ew_out_ctx *x, const struct ew_frame *fr, int64_t now_ns)
{
    int i, rc = 0;

    for (i = 0; i < x->nticking; i++)
        if (x->ticking[i]->tick(x, fr, now_ns) != 0)
            rc = -1;
    return rc;
}

int
ew_outputs_close(struct ew_out_ctx *x, bool keep)
{
    const struct ew_output *o;
    char err[512];
    int rc = 0;

    for (o = ew_outputs; o->name; o++) {
        if (!o->close || !o->wanted(x))
            continue;
        err[0] = '\0';
        if (o->close(x, keep, err, sizeof(err)) != 0 && keep) {
            ew_err("ecnwatch: %s\n", err[0] ? err : o->name);
            rc = -1;
        }
    }
    return rc;
}

int
ew_outputs_check(const struct ew_out_ctx *x, char *err, size_t errlen)
{
    const struct ew_output *o;

    for (o = ew_outputs; o->name; o++)
        if (o->check && o->wanted(x) && o->check(x, err, errlen) != 0)
            return -1;
    return 0;
}

bool
ew_outputs_wanted(const struct ew_out_ctx *x)
{
    const struct ew_output *o;

    for (o = ew_outputs; o->name; o++)
        if (o->finish && o->wanted(x))
            return true;
    return false;
}

int
ew_outputs_finish(const struct ew_out_ctx *x, const struct ew_pass *p)
{
    const struct ew_output *o;
    char err[512];
    int rc = 0;

    for (o = ew_outputs; o->name; o++) {
        if (!o->finish || !o->wanted(x))
            continue;
        err[0] = '\0';
        if (o->finish(x, p, err, sizeof(err)) != 0) {
            ew_err("ecnwatch: %s\n", err[0] ? err : o->name);
            rc = -1;
        }
    }
    return rc;
}
