/* ui_curses.c - the live view (see ui.h). It uses the whole terminal, and
 * stays readable down to 60x15: one header line, one totals line, a table of
 * flows, an optional detail pane for the selected flow, and a key line. The
 * header, totals and key lines are made of items that are shown whole or
 * not at all, the most important first; the table's columns take the width
 * of what they show, and when the terminal is too narrow for all of them the
 * least important go, so that the endpoints are cut only when nothing is
 * left to give way. Each redraw builds one snapshot of the table
 * (snapshot.h); the list, its filter and sort and the counts read its rows,
 * and only the detail pane reads the selected flow's conclusion in words.
 * Rates are taken at each refresh (ew_ui_sample) from every flow's counters,
 * by the monotonic wall clock: per second over the last interval.
 *
 * The selection is a flow, not a row: it stays on its flow as the list
 * re-sorts and flows come and go, and moves to the nearest row when its
 * flow has gone. A flow that has ended (FIN or RST and a second without
 * packets, or five seconds without any, in packet time) is marked idle and
 * drawn dim. c clears the view only (ui_base.h). The detail pane and the
 * help scroll where they are taller than their room, and say so at their
 * foot. Text is shown as the terminal can show it (ui_text.h).
 *
 * About 1,100 lines, over the usual 600, for a reason: the table, the detail
 * pane, the header and the keys all read and change the one view state
 * (struct ew_ui: selection, scroll, sort, filter, pause, the snapshot); the
 * drawing pieces that need none of it are in ui_draw.c, the text of the
 * help in ui_help.c, the baselines of c in ui_base.c. */
#include "ui/ui.h"

#include <ctype.h>
#include <curses.h>
#include <inttypes.h>
#include <langinfo.h>
#include <limits.h>
#include <locale.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "findings/conclusions.h"
#include "dissectors/ecn.h"
#include "flow/flowtab.h"
#include "infer/infer.h"
#include "findings/misuse.h"
#include "dissectors/pkt.h"
#include "output/output.h"
#include "output/report.h"
#include "output/snapshot.h"
#include "flow/tunrec.h"
#include "ui/ui_base.h"
#include "ui/ui_curses_lib.h"
#include "ui/ui_draw.h"
#include "ui/ui_help.h"
#include "ui/ui_hist.h"
#include "ui/ui_text.h"

/* a flow is idle after this long without packets (packet time), or this
 * long after a FIN or RST */
#define IDLE_NS (5 * 1000000000LL)
#define CLOSED_NS (1 * 1000000000LL)

static const char *const sort_name[EW_SNAP_SORT_COUNT] = {
    [EW_SNAP_SORT_PACKETS] = "packets", [EW_SNAP_SORT_CE] = "CE share",
    [EW_SNAP_SORT_ECT1] = "ECT(1) share", [EW_SNAP_SORT_RECENT] = "last active",
    [EW_SNAP_SORT_ID] = "first seen", [EW_SNAP_SORT_RATE] = "bit rate"};

enum { C_HEAD = 1, C_CE, C_ECT1, C_WARN, C_OK };

/* the ECT(1) meaning in five columns */
static const char *const ect1_short[] = {[EW_ECT1_NONE] = "-", [EW_ECT1_L4S] = "l4s",
                                         [EW_ECT1_SCE] = "sce", [EW_ECT1_AMBIGUOUS] = "ambig",
                                         [EW_ECT1_CONFLICT] = "confl"};

struct ew_ui {
    bool active;
    bool color;
    bool detail, help, paused;
    bool editing;
    enum ew_snap_sort sort;
    char filter[64];
    char edit[64];
    uint64_t sel_id; /* the selected flow */
    int sel, top;    /* its row in the list as last drawn, and the first row shown */
    /* the list's flows in the order last drawn: what the selection keys move over */
    uint64_t *ids;
    size_t nids, ids_cap;
    /* the rows on screen that are idle */
    bool *idle;
    size_t idle_cap;
    /* packet time: the latest packet's, and the monotonic clock then */
    int64_t pkt_ns, pkt_mono_ns;
    /* the help's and the detail pane's scroll, and their lines and room as
     * last drawn; the flow the pane showed */
    int help_top, help_lines, help_rows;
    int detail_top, detail_lines, detail_rows;
    uint64_t detail_id;
    /* what c counts from */
    struct ew_ui_base base;
    char ctype[64]; /* LC_CTYPE before the view */
    struct ew_hist_set hist;
    uint64_t visible[EW_HIST_FLOWS]; /* the flows on screen, for the history */
    int nvisible;
    /* the table as rows, rebuilt at every redraw; the allocations are kept */
    struct ew_snapshot snap;
    struct ew_flow_room *room; /* the selected flow, unpacked when packed */
    struct ew_flow_summary *sum; /* ... and written out */
    /* every flow's counters at the last two refreshes, for the rates */
    struct ew_snap_counts cnt[2];
    int cur; /* cnt[cur] is the latest */
};

struct ew_ui *
ew_ui_start(char *err, size_t errlen)
{
    struct ew_ui *ui;
    const char *lc;

    if (ew_curses_load(err, errlen) != 0)
        return NULL;
    if (!(ui = calloc(1, sizeof(*ui)))) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    /* the terminal's character set, from the environment: UTF-8 is drawn
     * as such (ncursesw), any other gets ASCII. LC_CTYPE only: the numbers
     * of the reports written at the end keep their decimal point. */
    lc = setlocale(LC_CTYPE, NULL);
    snprintf(ui->ctype, sizeof(ui->ctype), "%s", lc ? lc : "C");
    if (setlocale(LC_CTYPE, "") && !strcmp(nl_langinfo(CODESET), "UTF-8"))
        ew_text_set_utf8(true);
    else
        ew_text_set_utf8(false);
    if (!initscr()) {
        setlocale(LC_CTYPE, ui->ctype);
        ew_text_set_utf8(false);
        free(ui);
        snprintf(err, errlen, "cannot start the terminal view (TERM=%s)",
                 getenv("TERM") ? getenv("TERM") : "unset");
        return NULL;
    }
    ui->active = true;
    ui->snap = (struct ew_snapshot)EW_SNAPSHOT_INIT;
    ui->cnt[0] = ui->cnt[1] = (struct ew_snap_counts)EW_SNAP_COUNTS_INIT;
    cbreak();
    noecho();
    nonl();
    keypad(stdscr, TRUE);
    nodelay(stdscr, TRUE);
    curs_set(0);
    if (has_colors()) {
        ui->color = true;
        start_color();
        use_default_colors();
        init_pair(C_HEAD, COLOR_BLACK, COLOR_CYAN);
        init_pair(C_CE, COLOR_RED, -1);
        init_pair(C_ECT1, COLOR_CYAN, -1);
        init_pair(C_WARN, COLOR_YELLOW, -1);
        init_pair(C_OK, COLOR_GREEN, -1);
    }
    return ui;
}

void
ew_ui_stop(struct ew_ui *ui)
{
    if (!ui)
        return;
    if (ui->active) {
        curs_set(1);
        endwin();
        ui->active = false;
        setlocale(LC_CTYPE, ui->ctype);
        ew_text_set_utf8(false);
    }
    ew_snapshot_free(&ui->snap);
    ew_ui_base_free(&ui->base);
    free(ui->ids);
    free(ui->idle);
    ew_snap_counts_free(&ui->cnt[0]);
    ew_snap_counts_free(&ui->cnt[1]);
    free(ui->room);
    free(ui->sum);
    free(ui);
}

void
ew_ui_clear(struct ew_ui *ui, const struct ew_analyzer *an)
{
    if (!ui)
        return;
    /* out of memory, the totals still count from now (base.partial) */
    (void)ew_ui_base_take(&ui->base, an);
    /* the sparklines start again; the rates, taken between two refreshes,
     * need nothing; the selection stays on its flow */
    memset(&ui->hist, 0, sizeof(ui->hist));
}

/* room for the selected flow, unpacked and written out, kept across
 * redraws; false out of memory */
static bool
scratch_of(struct ew_ui *ui)
{
    if (!ui->room)
        ui->room = malloc(sizeof(*ui->room));
    if (!ui->sum)
        ui->sum = malloc(sizeof(*ui->sum));
    return ui->room && ui->sum;
}

void
ew_ui_sample(struct ew_ui *ui, const struct ew_analyzer *an)
{
    uint64_t want[EW_HIST_FLOWS + 1];
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    ui->cur ^= 1;
    if (ew_snap_counts_take(&ui->cnt[ui->cur], an,
                            (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec) != 0)
        ui->cnt[ui->cur ^ 1].taken = false; /* out of memory: no rates until two takes */

    memcpy(want, ui->visible, (size_t)ui->nvisible * sizeof(want[0]));
    want[ui->nvisible] = ui->sel_id;
    ew_hist_sample(&ui->hist, an, want, ui->nvisible + 1);
}

/* ------------------------------------------------------------ the table */

enum col {
    COL_ID,
    COL_PROTO,
    COL_ENDS,
    COL_BPS,
    COL_PPS,
    COL_NEG,
    COL_D,
    COL_E1,
    COL_CE,
    COL_FB,
    COL_ECT1,
    COL_TUN,
    COL_VERDICT,
    COL_NF,
    COL_STATE, /* "idle" where BIT/S has given way, without a heading */
    COL_COUNT
};

/* The columns: heading, alignment, and the order in which they give way to
 * a narrow terminal (1 first; 0 never). */
static const struct {
    const char *head;
    bool right;
    int give_way;
} colspec[COL_COUNT] = {
    [COL_ID] = {"ID", true, 0},       [COL_PROTO] = {"PROTO", false, 7},
    [COL_ENDS] = {"CLIENT>SERVER", false, 0},
    [COL_BPS] = {"BIT/S", true, 8},   [COL_PPS] = {"PKT/S", true, 1},
    [COL_NEG] = {"NEG", false, 6},    [COL_D] = {"D", false, 4},
    [COL_E1] = {"E1%", true, 5},      [COL_CE] = {"CE%", true, 9},
    [COL_FB] = {"FB", false, 2},      [COL_ECT1] = {"ECT1", false, 3},
    [COL_TUN] = {"TUN", false, 1},
    [COL_VERDICT] = {"VERDICT", false, 0}, [COL_NF] = {"!", false, 0},
    [COL_STATE] = {"", false, 0},
};

struct layout {
    int w[COL_COUNT]; /* 0: not shown */
    int x[COL_COUNT];
    int width;        /* of a whole row */
    enum col idle_at; /* where an idle flow says so: BIT/S, or else a column of its own */
};

static const char *
proto_of(const struct ew_snap_row *r, char *buf, size_t len)
{
    const char *n = ew_ip_proto_name(r->key.proto);

    if (n)
        return n;
    snprintf(buf, len, "ip-%u", r->key.proto);
    return buf;
}

static const char *
share(double v, char *buf, size_t len)
{
    snprintf(buf, len, v >= 0.9995 ? "%.0f" : "%.1f", v * 100);
    return buf;
}

/* the text of row r's cell c in buf; idle: the flow has ended, which the
 * cell idle_at says */
static const char *
cell(const struct ew_snap_row *r, bool idle, enum col idle_at, enum col c, char *buf, size_t len)
{
    if (idle && c == idle_at)
        return "idle";
    switch (c) {
    case COL_ID:
        snprintf(buf, len, "%" PRIu64, r->id);
        return buf;
    case COL_PROTO:
        return proto_of(r, buf, len);
    case COL_ENDS:
        ew_snap_endpoints(r, buf, len);
        return buf;
    case COL_BPS:
        ew_draw_fmt_si(r->bps, buf, len);
        return buf;
    case COL_PPS:
        ew_draw_fmt_si(r->pps, buf, len);
        return buf;
    case COL_NEG:
        return r->key.l4 == EW_L4_TCP ? ew_neg_name[r->neg] : "-";
    case COL_D:
        return r->dir == r->client_dir ? ">" : "<";
    case COL_E1:
        return share(r->e1, buf, len);
    case COL_CE:
        return share(r->ce, buf, len);
    case COL_FB:
        return ew_fb_name[r->fb[r->dir]];
    case COL_ECT1:
        return ect1_short[r->ect1[r->dir]];
    case COL_TUN:
        return r->tun ? ew_tunnel_name[r->tun - 1] : "-";
    case COL_VERDICT:
        return ew_verdict_name[r->verdict];
    case COL_NF:
        if (!r->nf)
            return "";
        snprintf(buf, len, "%u", (unsigned)r->nf);
        return buf;
    default:
        return "";
    }
}

static void
layout_cols(struct layout *lo, const struct ew_snap_row *rows, const bool *idle, size_t n,
            int cols)
{
    char buf[128];
    int c, total, nshown;
    size_t i;

    for (c = 0; c < COL_COUNT; c++) {
        lo->w[c] = (int)strlen(colspec[c].head);
        /* no tunnel on screen: no column for one */
        for (i = 0; c == COL_TUN && i < n && !rows[i].tun; i++)
            ;
        if (c == COL_TUN && i == n) {
            lo->w[c] = 0;
            continue;
        }
        for (i = 0; i < n; i++) {
            int w = (int)strlen(cell(&rows[i], idle[i], lo->idle_at, (enum col)c, buf, sizeof(buf)));

            if (w > lo->w[c])
                lo->w[c] = w;
        }
    }
    for (;;) {
        int worst = -1;

        total = 0;
        nshown = 0;
        for (c = 0; c < COL_COUNT; c++)
            if (lo->w[c]) {
                total += lo->w[c];
                nshown++;
            }
        total += nshown > 0 ? nshown - 1 : 0;
        if (total <= cols)
            break;
        for (c = 0; c < COL_COUNT; c++)
            if (lo->w[c] && colspec[c].give_way &&
                (worst < 0 || colspec[c].give_way < colspec[worst].give_way))
                worst = c;
        if (worst < 0)
            break;
        lo->w[worst] = 0;
    }
    if (total > cols) {
        int w = lo->w[COL_ENDS] - (total - cols);

        if (w < 13)
            w = 13;
        total -= lo->w[COL_ENDS] - w;
        lo->w[COL_ENDS] = w;
    }
    lo->width = total;
    for (c = 0, total = 0; c < COL_COUNT; c++) {
        lo->x[c] = total;
        if (lo->w[c])
            total += lo->w[c] + 1;
    }
}

/* The columns for the rows on screen in cols columns: each as wide as its
 * widest cell; while the row is too wide the next column in give-way order
 * goes; then the endpoints shrink. An idle flow says so in BIT/S ("idle"
 * takes no more room than a rate), or, where BIT/S has given way, in a
 * column of its own at the end. */
static void
layout_rows(struct layout *lo, const struct ew_snap_row *rows, const bool *idle, size_t n,
            int cols)
{
    size_t i;

    lo->idle_at = COL_BPS;
    layout_cols(lo, rows, idle, n, cols);
    for (i = 0; i < n && !lo->w[COL_BPS]; i++)
        if (idle[i]) {
            lo->idle_at = COL_STATE;
            layout_cols(lo, rows, idle, n, cols);
            break;
        }
}

/* text in a cell of width w at (y, x); endpoints too long keep their end
 * (the server) and begin with ".." */
static void
put_cell(int y, int x, int w, bool right, const char *text)
{
    int len = (int)strlen(text), cols = getmaxx(stdscr);

    if (x >= cols)
        return;
    if (len > w) {
        mvaddnstr(y, x, "..", w < 2 ? w : 2);
        if (w > 2)
            mvaddnstr(y, x + 2, text + len - (w - 2), cols - x - 2);
        return;
    }
    mvaddnstr(y, x + (right ? w - len : 0), text, cols - x - (right ? w - len : 0));
}

static void
draw_table_head(const struct layout *lo, int y)
{
    int c;

    attron(A_BOLD);
    for (c = 0; c < COL_COUNT; c++)
        if (lo->w[c])
            put_cell(y, lo->x[c], lo->w[c], colspec[c].right, colspec[c].head);
    attroff(A_BOLD);
}

/* one flow of the list at line y */
static void
draw_row(struct ew_ui *ui, const struct layout *lo, const struct ew_snap_row *r, bool idle, int y,
         bool sel, int maxx)
{
    char buf[128];
    int c;

    if (idle)
        attron(A_DIM);
    if (sel) {
        attron(A_REVERSE);
        mvhline(y, 0, ' ', maxx);
    }
    for (c = 0; c < COL_COUNT; c++) {
        int pair = 0;

        if (!lo->w[c])
            continue;
        if (!sel && c == COL_CE && r->ce > 0)
            pair = C_CE;
        if (!sel && c == COL_NF)
            pair = C_WARN;
        if (pair)
            ew_draw_color_on(ui->color, pair);
        put_cell(y, lo->x[c], lo->w[c], colspec[c].right,
                 cell(r, idle, lo->idle_at, (enum col)c, buf, sizeof(buf)));
        if (pair)
            ew_draw_color_off(ui->color, pair);
    }
    if (sel)
        attroff(A_REVERSE);
    if (idle)
        attroff(A_DIM);
}

/* Whether row r's flow has ended: the idle timeout ended it, or it has
 * been quiet for IDLE_NS of packet time, or for CLOSED_NS after a FIN or
 * RST (either way). now_ns: packet time now. */
static bool
row_idle(struct ew_ui *ui, const struct ew_pass *p, const struct ew_snap_row *r, int64_t now_ns)
{
    int64_t quiet = now_ns - r->last_ns;
    const struct ew_flow *f;
    int d, k;

    if (r->flags & EW_SNAP_ENDED || quiet >= IDLE_NS)
        return true;
    if (r->key.l4 != EW_L4_TCP || quiet < CLOSED_NS)
        return false;
    f = ew_flowtab_view(p->c->tab, r->ref, ui->room);
    for (d = 0; d < 2; d++)
        for (k = 0; k < 4; k++)
            if (f->inf->kind_ecn[d][EW_SEG_FIN_RST][k])
                return true;
    return false;
}

/* ------------------------------------------------------------ the detail */

/* the lines of the selected flow's detail from line y0, as if the screen had
 * no end (the caller clips them): its row r and its conclusion s written
 * out, f the flow. Returns the next line. */
static int
detail_body(struct ew_ui *ui, const struct ew_flow *f, const struct ew_flow_summary *s,
            const struct ew_snap_row *r, bool idle, int y0, int cols)
{
    const struct ew_flow_verdict *vp = &s->v;
    const struct ew_finding *fnd = s->fnd;
    const struct ew_evidence *ev = s->ev;
    char ends[128], pb[16], rate[16], a[16], b[16], c[16], d[16];
    struct line hl = {0};
    size_t i;
    int y = y0, dn;
    const struct ew_hist *h = ew_hist_get(&ui->hist, f->id);
    bool since_c = ew_ui_base_find(&ui->base, f->id) != NULL;
    int sw = cols - 12 - 34 > EW_HIST_LEN ? EW_HIST_LEN : cols - 12 - 34;

    if (sw < 8)
        sw = cols - 12 - 16 > 8 ? cols - 12 - 16 : 8;
    ew_snap_endpoints(r, ends, sizeof(ends));
    ew_draw_item(&hl, 0, 0, "#%" PRIu64 " %s %s", f->id, proto_of(r, pb, sizeof(pb)), ends);
    ew_draw_item(&hl, 1, 0, "verdict %s%s", ew_verdict_name[vp->verdict],
                 vp->verdict_likely && vp->verdict != EW_V_UNKNOWN ? " (likely)" : "");
    if (f->key.l4 == EW_L4_TCP && vp->neg_inferred)
        ew_draw_item(&hl, 2, 0, "neg unseen, as %s?",
                     vp->mode_unknown ? "unknown" : ew_neg_name[vp->neg_as]);
    else if (f->key.l4 == EW_L4_TCP)
        ew_draw_item(&hl, 2, 0, "neg %s", ew_neg_name[vp->neg]);
    ew_draw_item(&hl, 3, 0, "vantage %s", ew_vantage_name[vp->vantage]);
    if (idle)
        ew_draw_item(&hl, 3, 0, "idle");
    ew_draw_color_on(ui->color, C_HEAD);
    y = ew_draw_items(&hl, y, 1, cols - 2, y + 2);
    ew_draw_color_off(ui->color, C_HEAD);
    y = ew_draw_wrap(y, 1, cols - 2, 2, INT_MAX, vp->reason);
    for (dn = 0; dn < 2; dn++) {
        int dd = dn == 0 ? f->client_dir : f->client_dir ^ 1;
        struct ew_dir_stats ds;
        double pct;
        char text[256];

        ew_ui_base_dir(&ui->base, f, dd, &ds); /* since c, when it was pressed */
        pct = ds.packets ? 100.0 / (double)ds.packets : 0;
        snprintf(text, sizeof(text),
                 "%s %" PRIu64 " pkts%s  Not-ECT %.0f%% ECT(0) %.0f%% ECT(1) %.0f%% CE %.1f%%  "
                 "feedback %s  ECT(1) as %s",
                 dn == 0 ? "c2s" : "s2c", ds.packets, since_c ? " since c" : "",
                 pct * (double)ds.ecn[EW_ECN_NOT_ECT], pct * (double)ds.ecn[EW_ECN_ECT_0],
                 pct * (double)ds.ecn[EW_ECN_ECT_1], pct * (double)ds.ecn[EW_ECN_CE],
                 ew_fb_name[vp->dir[dd].feedback], ew_ect1_name[vp->dir[dd].ect1]);
        y = ew_draw_wrap(y, 1, cols - 2, 4, INT_MAX, text);
    }
    if (f->tun) {
        /* the tunnel, and each direction's outer header where it differs
         * from the inner one */
        const struct ew_tunnel_rec *t = f->tun;
        char layers[400], text[480];

        ew_tunnel_layers_str(&t->dir[t->first_dir], layers, sizeof(layers));
        snprintf(text, sizeof(text), "tunnel: %s", layers);
        y = ew_draw_wrap(y, 1, cols - 2, 4, INT_MAX, text);
        for (dn = 0; dn < 2; dn++) {
            const struct ew_tunnel_dir *td = &t->dir[dn == 0 ? f->client_dir : f->client_dir ^ 1];
            uint64_t o[4], n;
            double pct;

            ew_tunnel_dir_outer(td, o);
            n = o[0] + o[1] + o[2] + o[3];
            if (!n)
                continue;
            pct = 100.0 / (double)n;
            snprintf(text, sizeof(text),
                     "%s outer %" PRIu64 "  Not-ECT %.0f%% ECT(0) %.0f%% ECT(1) %.0f%% CE %.1f%%  "
                     "%" PRIu64 " differ from the inner",
                     dn == 0 ? "c2s" : "s2c", n, pct * (double)o[EW_ECN_NOT_ECT],
                     pct * (double)o[EW_ECN_ECT_0], pct * (double)o[EW_ECN_ECT_1],
                     pct * (double)o[EW_ECN_CE], ew_tunnel_dir_differ(td));
            y = ew_draw_wrap(y, 1, cols - 2, 4, INT_MAX, text);
        }
    }
    {
        char text[320], line[340];

        ew_report_capture_text(f, vp, text, sizeof(text));
        if (text[0]) {
            snprintf(line, sizeof(line), "capture: %s", text);
            ew_draw_color_on(ui->color, C_WARN);
            y = ew_draw_wrap(y, 1, cols - 2, 4, INT_MAX, line);
            ew_draw_color_off(ui->color, C_WARN);
        }
    }
    {
        struct line ratel = {0};

        ew_draw_fmt_si(r->bps, rate, sizeof(rate));
        ew_draw_fmt_si(r->pps, a, sizeof(a));
        ew_draw_item(&ratel, 0, 0, "rate %s bit/s  %s pkt/s", rate, a);
        ew_draw_item(&ratel, 1, 0, "(both directions, last interval)");
        ew_draw_line(ui->color, &ratel, y++, 1, cols - 2);
    }
    ew_draw_put(y, 1, "CE share   ");
    ew_draw_color_on(ui->color, C_CE);
    ew_draw_spark_share(y++, 12, sw, h, h ? h->s_ce : NULL, h ? h->s_pkts : NULL);
    ew_draw_color_off(ui->color, C_CE);
    ew_draw_put(y, 1, "ECT1 share ");
    ew_draw_color_on(ui->color, C_ECT1);
    ew_draw_spark_share(y++, 12, sw, h, h ? h->s_e1 : NULL, h ? h->s_pkts : NULL);
    ew_draw_color_off(ui->color, C_ECT1);
    {
        const struct ew_half *hf = &f->inf->half[r->dir];
        struct line rl = {0};
        uint32_t lo, hi;

        ew_draw_put(y, 1, "RTT        ");
        ew_draw_spark_rtt(y, 12, sw, h, &lo, &hi);
        if (hi) {
            ew_draw_fmt_us(lo, a, sizeof(a));
            ew_draw_fmt_us(hi, b, sizeof(b));
            ew_draw_item(&rl, 0, 0, "%s..%s", a, b);
        } else {
            ew_draw_item(&rl, 0, 0, "no RTT yet");
        }
        if (hf->rtt_samples) {
            ew_draw_fmt_us((double)hf->rtt_min / 1e3, c, sizeof(c));
            ew_draw_fmt_us((double)hf->rtt_srtt / 1e3, d, sizeof(d));
            ew_draw_item(&rl, 1, 0, "min %s srtt %s", c, d);
        }
        ew_draw_line(ui->color, &rl, y++, 13 + sw, cols - 14 - sw);
    }
    {
        /* the queueing delay as the path verdict times it: next to the
         * receiver, data-to-ACK times are its ACK delay, so the timestamp
         * loop to the sender and back (infer_path.c) */
        bool at_receiver = r->dir == f->client_dir ? s->v.vantage == EW_VANT_SERVER
                                                   : s->v.vantage == EW_VANT_CLIENT;
        struct line ql = {0};
        uint32_t hi = 0;
        int any = 0;

        ew_draw_put(y, 1, "queue      ");
        if (h)
            ew_draw_spark_qd(y, 12, sw, h, at_receiver ? h->s_qd_up : h->s_qd_seq, &hi, &any);
        if (any) {
            ew_draw_fmt_us(hi, a, sizeof(a));
            ew_draw_item(&ql, 0, 0, "0..%s", a);
        } else {
            ew_draw_item(&ql, 0, 0, "not timed yet");
        }
        ew_draw_item(&ql, 1, 0, "%s", at_receiver ? "(timestamps)" : "(data to ACK)");
        ew_draw_line(ui->color, &ql, y++, 13 + sw, cols - 14 - sw);
    }
    for (i = 0; i < s->nf; i++) {
        char text[700];

        snprintf(text, sizeof(text), "! %s %s %s%s%s: %s", ew_misuse_name[fnd[i].kind],
                 fnd[i].dir == f->client_dir ? "c2s" : "s2c",
                 ew_confidence_name[fnd[i].confidence], fnd[i].ref ? ", " : "",
                 fnd[i].ref ? fnd[i].ref : "", fnd[i].detail);
        ew_draw_color_on(ui->color, C_WARN);
        y = ew_draw_wrap(y, 1, cols - 2, 2, INT_MAX, text);
        ew_draw_color_off(ui->color, C_WARN);
    }
    for (i = 0; i < s->nev; i++) {
        char text[400];

        snprintf(text, sizeof(text), "frame %" PRIu64 " %s", ev[i].frame, ev[i].note);
        y = ew_draw_wrap(y, 1, cols - 2, 2, INT_MAX, text);
    }
    return y;
}

/* the foot of a pane that scrolls, at line y: which way it goes on, the
 * keys, and the lines shown of how many */
static void
draw_cue(struct ew_ui *ui, int y, int cols, int top, int shown, int total, const char *keys)
{
    struct line cl = {0};
    bool above = top > 0, below = top + shown < total;

    ew_draw_item(&cl, 0, 0, "%s", below && above ? "^v more above and below"
                                  : below       ? "v more below"
                                                : "^ more above");
    ew_draw_item(&cl, 1, 0, "%s", keys);
    ew_draw_item(&cl, 2, 0, "lines %d-%d of %d", top + 1, top + shown, total);
    attron(A_REVERSE);
    mvhline(y, 0, ' ', cols);
    ew_draw_line(ui->color, &cl, y, 1, cols - 2);
    attroff(A_REVERSE);
}

/* the selected flow in rows lines from y0: its row, and the flow itself
 * for the sentences of its conclusion, its evidence and its counters; the
 * pane scrolls (J/K) when they take more lines, and its last line says so */
static void
draw_detail(struct ew_ui *ui, const struct ew_pass *p, const struct ew_snap_row *r, bool idle,
            int y0, int rows, int cols)
{
    /* as in the list: this flow's row of the pass, written out */
    const struct ew_flow *f =
        ew_conclusion_words(p->c, r->at, EW_CONCLUDE_WORDS | EW_CONCLUDE_EVIDENCE, ui->room, ui->sum);
    int total, view = rows;

    if (rows < 1)
        return;
    if (f->id != ui->detail_id) { /* another flow: from its top */
        ui->detail_id = f->id;
        ui->detail_top = 0;
    }
    ew_draw_clip(0, 0, 0); /* measured first */
    total = detail_body(ui, f, ui->sum, r, idle, 0, cols);
    if (total > rows && rows > 1)
        view = rows - 1; /* the last line for the cue */
    if (ui->detail_top > total - view)
        ui->detail_top = total - view;
    if (ui->detail_top < 0)
        ui->detail_top = 0;
    ew_draw_clip(y0, y0 + view, ui->detail_top);
    detail_body(ui, f, ui->sum, r, idle, y0, cols);
    ew_draw_noclip();
    ui->detail_lines = total;
    ui->detail_rows = view;
    if (view < rows)
        draw_cue(ui, y0 + view, cols, ui->detail_top, view, total, "J/K ]/[ scroll");
}

/* the help over the list, from its line top (help_top), scrolled where the
 * screen is too short for it */
static void
draw_help(struct ew_ui *ui, int rows, int cols)
{
    int w = EW_HELP_WIDTH + 4, h = ew_help_count + 2, view, y0, x, i;

    if (w > cols)
        w = cols;
    if (h > rows)
        h = rows;
    y0 = (rows - h) / 2;
    x = (cols - w) / 2;
    view = h - 2; /* a blank line above, and below one or the cue */
    if (view < 1)
        view = 1;
    if (ui->help_top > ew_help_count - view)
        ui->help_top = ew_help_count - view;
    if (ui->help_top < 0)
        ui->help_top = 0;
    for (i = 0; i < h; i++)
        mvhline(y0 + i, x, ' ', w);
    ew_draw_clip(y0 + 1, y0 + 1 + view, ui->help_top);
    for (i = 0; i < ew_help_count; i++)
        ew_draw_put(y0 + 1 + i, x + 2, "%s", ew_help_lines[i]);
    ew_draw_noclip();
    ui->help_lines = ew_help_count;
    ui->help_rows = view;
    if (view < ew_help_count)
        draw_cue(ui, y0 + 1 + view, cols, ui->help_top, view, ew_help_count, "j/k PgUp/PgDn scroll");
}

static uint64_t
minus(uint64_t now, uint64_t then)
{
    return now > then ? now - then : 0;
}

/* the two lines above the list: the capture, and the codepoints of all
 * packets with the misuse findings of the flows held and evicted; all
 * since c when it was pressed (again: the flows from before with packets
 * since) */
static void
draw_top(struct ew_ui *ui, const struct ew_analyzer *an, const struct ew_ui_status *st,
         uint64_t nfind, size_t again, int maxx)
{
    const struct ew_totals *t = &an->tot;
    const struct ew_ui_base *b = &ui->base;
    const struct ew_snap_counts *now = &ui->cnt[ui->cur], *was = &ui->cnt[ui->cur ^ 1];
    struct ew_flowtab_stats fs;
    uint64_t ecn[4], ip = minus(t->ip_packets, b->ip_packets);
    double tp = ip ? 100.0 / (double)ip : 0;
    struct line hl = {0}, tl = {0};
    char rate[16];
    int k;

    for (k = 0; k < 4; k++)
        ecn[k] = minus(t->ecn[k], b->ecn[k]);
    if (b->drops_pending) {
        ui->base.drops = st->kernel_drops;
        ui->base.drops_pending = false;
    }
    ew_flowtab_get_stats(an->tab, &fs);
    if (now->taken && was->taken && now->t_ns > was->t_ns && now->bytes >= was->bytes)
        ew_draw_fmt_si((double)(now->bytes - was->bytes) * 8 / ((double)(now->t_ns - was->t_ns) / 1e9),
               rate, sizeof(rate));
    else
        snprintf(rate, sizeof(rate), "-");
    ew_draw_item(&hl, 0, 0, "ecnwatch %s", st->iface);
    if (ui->paused)
        ew_draw_item(&hl, 0, 0, "PAUSED");
    if (ui->filter[0]) {
        /* the filter text whole where it fits, else its start */
        if ((int)strlen(ui->filter) + 10 <= maxx - 16 - (ui->paused ? 8 : 0))
            ew_draw_item(&hl, 1, 0, "filter \"%s\"", ui->filter);
        else
            ew_draw_item(&hl, 1, 0, "filter \"%.*s~\"", maxx / 3 > 1 ? maxx / 3 : 1, ui->filter);
    }
    ew_draw_item(&hl, 5, 0, "%" PRIu64 " pkts", minus(st->frames, b->frames));
    ew_draw_item(&hl, 4, 0, "%.0f pkt/s", st->pkts_per_s);
    ew_draw_item(&hl, 2, 0, "%s bit/s", rate);
    ew_draw_item(&hl, 3, 0, "drops %s%" PRIu64, st->drops_known ? "" : "?",
                 minus(st->kernel_drops, b->drops));
    ew_draw_item(&hl, 2, 0, "flows %" PRIu64, minus(fs.created, b->created) + again);
    ew_draw_item(&hl, 3, 0, "sort: %s", sort_name[ui->sort]);
    ew_draw_color_on(ui->color, C_HEAD);
    mvhline(0, 0, ' ', maxx);
    ew_draw_line(ui->color, &hl, 0, 1, maxx - 1);
    ew_draw_color_off(ui->color, C_HEAD);

    if (b->on)
        ew_draw_item(&tl, 2, 0, "since c:");
    ew_draw_item(&tl, 0, 0, "Not-ECT %.1f%%", tp * (double)ecn[EW_ECN_NOT_ECT]);
    ew_draw_item(&tl, 0, 0, "ECT(0) %.1f%%", tp * (double)ecn[EW_ECN_ECT_0]);
    ew_draw_item(&tl, 0, C_ECT1, "ECT(1) %.1f%%", tp * (double)ecn[EW_ECN_ECT_1]);
    ew_draw_item(&tl, 0, C_CE, "CE %.1f%%", tp * (double)ecn[EW_ECN_CE]);
    if (nfind)
        ew_draw_item(&tl, 1, C_WARN, "misuse: %" PRIu64, nfind);
    ew_draw_line(ui->color, &tl, 1, 1, maxx - 1);
}

/* Keep the selection on its flow, wherever the list has put it, and in
 * view; when the flow has gone (ended, evicted, filtered out), on the row
 * nearest to where it was. The list's order is kept for the keys. */
static void
follow_selection(struct ew_ui *ui, const struct ew_snap_row *rows, size_t n, int table_h)
{
    size_t i;

    if (n > ui->ids_cap) {
        size_t cap = n + n / 4 + 64;
        uint64_t *ids = realloc(ui->ids, cap * sizeof(*ids));

        if (ids) {
            ui->ids = ids;
            ui->ids_cap = cap;
        }
    }
    ui->nids = n <= ui->ids_cap ? n : 0; /* out of memory: the keys move by row */
    for (i = 0; i < ui->nids; i++)
        ui->ids[i] = rows[i].id;
    for (i = 0; i < n; i++)
        if (rows[i].id == ui->sel_id) {
            ui->sel = (int)i;
            break;
        }
    if (ui->sel >= (int)n)
        ui->sel = n ? (int)n - 1 : 0;
    if (ui->sel < 0)
        ui->sel = 0;
    if (n)
        ui->sel_id = rows[ui->sel].id;
    if (ui->sel < ui->top)
        ui->top = ui->sel;
    if (ui->sel >= ui->top + table_h)
        ui->top = ui->sel - table_h + 1;
}

/* The misuse findings of the flows held (every row, before the filter) and
 * of those evicted: the flows with each kind, summed over the kinds. */
static uint64_t
count_findings(const struct ew_ui *ui, const struct ew_analyzer *an, const struct ew_snapshot *snap)
{
    uint64_t nfind = 0;
    size_t i;
    int k;

    for (k = 0; k < EW_MU_COUNT; k++)
        nfind += an->evicted_findings[k];
    nfind = minus(nfind, ui->base.findings); /* since c: the rows are those since too */
    for (i = 0; i < snap->n; i++) {
        uint32_t m;

        for (m = snap->rows[i].kinds; m; m &= m - 1)
            nfind++;
    }
    return nfind;
}

static void
draw_keys(struct ew_ui *ui, int y, int maxx)
{
    struct line kl = {0};

    ew_draw_color_on(ui->color, C_HEAD);
    mvhline(y, 0, ' ', maxx);
    if (ui->editing) {
        ew_draw_put(y, 0, " filter: %s_", ui->edit);
    } else {
        ew_draw_item(&kl, 0, 0, "q quit");
        ew_draw_item(&kl, 1, 0, "s/S sort");
        ew_draw_item(&kl, 2, 0, "r by rate");
        ew_draw_item(&kl, 1, 0, "/ filter");
        ew_draw_item(&kl, 1, 0, "Enter detail");
        if (ui->detail && ui->detail_lines > ui->detail_rows)
            ew_draw_item(&kl, 2, 0, "J/K scroll");
        ew_draw_item(&kl, 1, 0, "p pause");
        ew_draw_item(&kl, 3, 0, "c clear");
        ew_draw_item(&kl, 0, 0, "h help");
        ew_draw_item(&kl, 4, 0, "rates: per second of wall clock over the last interval");
        ew_draw_line(ui->color, &kl, y, 1, maxx - 1);
    }
    ew_draw_color_off(ui->color, C_HEAD);
}

void
ew_ui_draw(struct ew_ui *ui, const struct ew_pass *p, const struct ew_ui_status *st)
{
    const struct ew_analyzer *an = p->an;
    struct ew_snapshot *snap;
    const struct ew_snap_row *rows;
    struct layout lo;
    struct timespec ts;
    size_t n, shown, again = 0;
    int64_t mono, now_ns;
    int maxy, maxx, table_h, y;

    if (!ui || !ui->active)
        return;
    snap = &ui->snap;
    /* packet time now: the latest packet's, moved on by the clock since
     * it came (a link gone quiet still ages its flows) */
    clock_gettime(CLOCK_MONOTONIC, &ts);
    mono = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
    if (an->have_time && an->last_ns != ui->pkt_ns) {
        ui->pkt_ns = an->last_ns;
        ui->pkt_mono_ns = mono;
    }
    now_ns = ui->pkt_ns + (mono - ui->pkt_mono_ns);
    /* the one snapshot of this redraw, from its pass: the list, the filter
     * and the counts; since c, when it was pressed */
    if (!scratch_of(ui) || ew_snapshot_build(snap, p->c) != 0)
        snap->n = 0;
    ew_snapshot_rates(snap, &ui->cnt[ui->cur ^ 1], &ui->cnt[ui->cur]);
    if (snap->n)
        again = ew_ui_base_rows(&ui->base, snap, p->c->tab, ui->room);
    getmaxyx(stdscr, maxy, maxx);
    erase();
    draw_top(ui, an, st, count_findings(ui, an, snap), again, maxx);
    ew_snapshot_filter(snap, ui->filter);
    ew_snapshot_sort(snap, ui->sort);
    rows = snap->rows;
    n = snap->n;

    table_h = maxy - 4;
    if (ui->detail)
        table_h = (maxy - 4) / 3 > 3 ? (maxy - 4) / 3 : 3;
    if (table_h < 1)
        table_h = 1;
    follow_selection(ui, rows, n, table_h);
    shown = n - (size_t)ui->top < (size_t)table_h ? n - (size_t)ui->top : (size_t)table_h;
    if (shown > ui->idle_cap) {
        bool *idle = realloc(ui->idle, shown * sizeof(*idle));

        if (idle) {
            ui->idle = idle;
            ui->idle_cap = shown;
        } else {
            shown = ui->idle_cap; /* out of memory: fewer rows */
        }
    }
    for (y = 0; y < (int)shown; y++)
        ui->idle[y] = row_idle(ui, p, &rows[ui->top + y], now_ns);
    layout_rows(&lo, rows + ui->top, ui->idle, shown, maxx);
    draw_table_head(&lo, 2);
    ui->nvisible = 0;
    for (y = 0; y < (int)shown; y++) {
        const struct ew_snap_row *r = &rows[ui->top + y];

        if (ui->nvisible < EW_HIST_FLOWS)
            ui->visible[ui->nvisible++] = r->id;
        draw_row(ui, &lo, r, ui->idle[y], 3 + y, ui->top + y == ui->sel, maxx);
    }
    if (ui->detail && n && ui->sel - ui->top < (int)shown)
        draw_detail(ui, p, &rows[ui->sel], ui->idle[ui->sel - ui->top], 3 + table_h,
                    maxy - 4 - table_h, maxx);
    draw_keys(ui, maxy - 1, maxx);
    if (ui->help)
        draw_help(ui, maxy, maxx);
    refresh();
}

static int
edit_key(struct ew_ui *ui, int ch)
{
    size_t len = strlen(ui->edit);

    if (ch == '\n' || ch == '\r' || ch == KEY_ENTER) {
        size_t i;

        for (i = 0; ui->edit[i]; i++)
            ui->edit[i] = (char)tolower((unsigned char)ui->edit[i]);
        snprintf(ui->filter, sizeof(ui->filter), "%s", ui->edit);
        ui->editing = false;
        ui->sel = ui->top = 0;
    } else if (ch == 27) {
        ui->editing = false;
    } else if ((ch == KEY_BACKSPACE || ch == 127 || ch == 8) && len > 0) {
        ui->edit[len - 1] = '\0';
    } else if (ch >= 32 && ch < 127 && len + 1 < sizeof(ui->edit)) {
        ui->edit[len] = (char)ch;
        ui->edit[len + 1] = '\0';
    }
    return EW_UI_HANDLED | EW_UI_REDRAW;
}

/* the help's keys: the arrows, j/k and the pages scroll it, any other
 * key closes it */
static int
help_key(struct ew_ui *ui, int ch)
{
    int page = ui->help_rows > 1 ? ui->help_rows - 1 : 1;

    switch (ch) {
    case KEY_DOWN:
    case 'j':
        ui->help_top++;
        break;
    case KEY_UP:
    case 'k':
        ui->help_top--;
        break;
    case KEY_NPAGE:
    case ' ':
        ui->help_top += page;
        break;
    case KEY_PPAGE:
        ui->help_top -= page;
        break;
    case KEY_HOME:
        ui->help_top = 0;
        break;
    case KEY_END:
        ui->help_top = ui->help_lines;
        break;
    case KEY_RESIZE:
        break;
    default:
        ui->help = false;
        break;
    }
    if (ui->help_top < 0)
        ui->help_top = 0; /* and the drawing keeps it above the end */
    return EW_UI_HANDLED | EW_UI_REDRAW;
}

/* Move the selection to row idx of the list as last drawn (clamped), and
 * so to that row's flow, which it then follows. */
static void
select_row(struct ew_ui *ui, long idx)
{
    if (!ui->nids)
        return;
    if (idx >= (long)ui->nids)
        idx = (long)ui->nids - 1;
    if (idx < 0)
        idx = 0;
    ui->sel = (int)idx;
    ui->sel_id = ui->ids[idx];
}

static int
handle_key(struct ew_ui *ui, int ch)
{
    if (ui->editing)
        return edit_key(ui, ch);
    if (ui->help)
        return help_key(ui, ch);
    switch (ch) {
    case 'q':
    case 'Q':
        return EW_UI_QUIT;
    case KEY_UP:
    case 'k':
        select_row(ui, (long)ui->sel - 1);
        break;
    case KEY_DOWN:
    case 'j':
        select_row(ui, (long)ui->sel + 1);
        break;
    case KEY_PPAGE:
        select_row(ui, (long)ui->sel - 10);
        break;
    case KEY_NPAGE:
        select_row(ui, (long)ui->sel + 10);
        break;
    case KEY_HOME:
        select_row(ui, 0);
        break;
    case KEY_END:
        select_row(ui, (long)ui->nids - 1);
        break;
    case 'J':
    case 'K':
    case ']':
    case '[': {
        int page = ui->detail_rows > 1 ? ui->detail_rows - 1 : 1;

        if (!ui->detail)
            return 0;
        ui->detail_top += ch == 'J' ? 1 : ch == 'K' ? -1 : ch == ']' ? page : -page;
        if (ui->detail_top < 0)
            ui->detail_top = 0; /* and the drawing keeps it above the end */
        break;
    }
    case '\n':
    case '\r':
    case KEY_ENTER:
    case 'd':
        ui->detail = !ui->detail;
        ui->detail_top = 0; /* opened at its top */
        return EW_UI_HANDLED | EW_UI_REDRAW;
    case 's':
        ui->sort = (enum ew_snap_sort)((ui->sort + 1) % EW_SNAP_SORT_COUNT);
        return EW_UI_HANDLED | EW_UI_REDRAW;
    case 'r':
        ui->sort = EW_SNAP_SORT_RATE;
        return EW_UI_HANDLED | EW_UI_REDRAW;
    case 'S':
        ui->sort = (enum ew_snap_sort)((ui->sort + EW_SNAP_SORT_COUNT - 1) % EW_SNAP_SORT_COUNT);
        return EW_UI_HANDLED | EW_UI_REDRAW;
    case '/':
        ui->editing = true;
        ui->edit[0] = '\0'; /* a new filter; Enter on nothing shows all flows */
        return EW_UI_HANDLED | EW_UI_REDRAW;
    case 'p':
        ui->paused = !ui->paused;
        return EW_UI_HANDLED | EW_UI_REDRAW;
    case 'c':
        return EW_UI_HANDLED | EW_UI_REDRAW | EW_UI_CLEAR;
    case 'h':
    case '?':
        ui->help = true;
        ui->help_top = 0;
        return EW_UI_HANDLED | EW_UI_REDRAW;
    case 12: /* Ctrl-L */
        clearok(curscr, TRUE);
        return EW_UI_HANDLED | EW_UI_REDRAW;
    case KEY_RESIZE:
        return EW_UI_HANDLED | EW_UI_REDRAW;
    default:
        return 0;
    }
    return EW_UI_HANDLED | EW_UI_REDRAW;
}

int
ew_ui_keys(struct ew_ui *ui)
{
    int ch, res = 0;

    if (!ui || !ui->active)
        return 0;
    while ((ch = getch()) != ERR)
        res |= handle_key(ui, ch);
    return res;
}

bool
ew_ui_paused(const struct ew_ui *ui)
{
    return ui && ui->paused;
}
