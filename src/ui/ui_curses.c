/* ui_curses.c - the live view (see ui.h). It stays readable at 80x24: one
 * header line, one totals line, a table of flows, an optional detail pane
 * for the selected flow, and a key line. Each redraw builds one snapshot of
 * the table (snapshot.h); the list, its filter and sort and the counts read
 * its rows, and only the detail pane reads the selected flow's conclusion
 * in words. */
#include "ecnwatch/ui.h"

#include <ctype.h>
#include <curses.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ecnwatch/conclude.h"
#include "ecnwatch/ecn.h"
#include "ecnwatch/flow.h"
#include "ecnwatch/infer.h"
#include "ecnwatch/misuse.h"
#include "ecnwatch/snapshot.h"
#include "ecnwatch/ui_hist.h"

static const char *const sort_name[EW_SNAP_SORT_COUNT] = {
    [EW_SNAP_SORT_PACKETS] = "packets", [EW_SNAP_SORT_CE] = "CE share",
    [EW_SNAP_SORT_ECT1] = "ECT(1) share", [EW_SNAP_SORT_RECENT] = "last active",
    [EW_SNAP_SORT_ID] = "first seen"};

enum { C_HEAD = 1, C_CE, C_ECT1, C_WARN, C_DIM, C_OK };

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
    uint64_t sel_id;
    int sel, top;
    struct ew_hist_set hist;
    uint64_t visible[EW_HIST_FLOWS]; /* the flows on screen, for the history */
    int nvisible;
    /* the table as rows, rebuilt at every redraw; the allocations are kept */
    struct ew_snapshot snap;
    struct ew_flow_room *room; /* the selected flow, unpacked when packed */
};

struct ew_ui *
ew_ui_start(void)
{
    struct ew_ui *ui = calloc(1, sizeof(*ui));

    if (!ui)
        return NULL;
    if (!initscr()) {
        free(ui);
        return NULL;
    }
    ui->active = true;
    ui->snap = (struct ew_snapshot)EW_SNAPSHOT_INIT;
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
        init_pair(C_DIM, COLOR_BLUE, -1);
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
    }
    ew_snapshot_free(&ui->snap);
    free(ui->room);
    free(ui);
}

void
ew_ui_reset(struct ew_ui *ui)
{
    memset(&ui->hist, 0, sizeof(ui->hist));
    ui->nvisible = 0;
    ui->sel = ui->top = 0;
    ui->sel_id = 0;
}

/* room for a packed flow, kept across redraws; NULL out of memory */
static struct ew_flow_room *
room_of(struct ew_ui *ui)
{
    if (!ui->room)
        ui->room = malloc(sizeof(*ui->room));
    return ui->room;
}

void
ew_ui_sample(struct ew_ui *ui, const struct ew_analyzer *an)
{
    uint64_t want[EW_HIST_FLOWS + 1];

    memcpy(want, ui->visible, (size_t)ui->nvisible * sizeof(want[0]));
    want[ui->nvisible] = ui->sel_id;
    ew_hist_sample(&ui->hist, an, want, ui->nvisible + 1);
}

/* print at (y, x), clipped to the screen's width */
static void
put(int y, int x, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void
put(int y, int x, const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    int cols = getmaxx(stdscr);

    if (x >= cols)
        return;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof(buf), fmt, ap);
    va_end(ap);
    mvaddnstr(y, x, buf, cols - x);
}

/* the same at the cursor */
static void
putc_(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void
putc_(const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    int y, x;

    getyx(stdscr, y, x);
    va_start(ap, fmt);
    vsnprintf(buf, sizeof(buf), fmt, ap);
    va_end(ap);
    if (x < getmaxx(stdscr))
        mvaddnstr(y, x, buf, getmaxx(stdscr) - x);
}

static void
color_on(struct ew_ui *ui, int pair)
{
    if (ui->color)
        attron(COLOR_PAIR(pair));
}

static void
color_off(struct ew_ui *ui, int pair)
{
    if (ui->color)
        attroff(COLOR_PAIR(pair));
}

/* a sparkline of a share (num/den per second) or of a raw series, in ASCII so
 * that any terminal shows it */
static void
spark(int y, int x, int width, const struct ew_hist *h, const uint16_t *num, const uint16_t *den,
      const uint32_t *raw)
{
    static const char levels[] = "_.-=+*#@";
    uint32_t max = 1;
    int i, n = h ? h->n : 0, start;

    if (n > width)
        n = width;
    if (raw)
        for (i = 0; i < n; i++)
            if (raw[(h->pos + EW_HIST_LEN - n + i) % EW_HIST_LEN] > max)
                max = raw[(h->pos + EW_HIST_LEN - n + i) % EW_HIST_LEN];
    start = width - n;
    move(y, x);
    for (i = 0; i < width; i++) {
        char c = ' ';

        if (i >= start) {
            int k = (h->pos + EW_HIST_LEN - n + (i - start)) % EW_HIST_LEN;
            double v = raw ? (double)raw[k] / max : den[k] ? (double)num[k] / den[k] : 0;
            int lvl = (int)(v * 7 + 0.999);

            c = levels[lvl < 0 ? 0 : lvl > 7 ? 7 : lvl];
            if (!raw && den[k] == 0)
                c = ' ';
        }
        addch((chtype)(unsigned char)c);
    }
}

/* the selected flow: its row, and the flow itself for the sentences of its
 * conclusion, its evidence and its counters */
static void
draw_detail(struct ew_ui *ui, const struct ew_snap_row *r, const struct ew_flow *f, int y0,
            int rows, int cols)
{
    struct ew_flow_summary sum;
    const struct ew_flow_verdict *vp = &sum.v;
    const struct ew_finding *fnd = sum.fnd;
    const struct ew_evidence *ev = sum.ev;
    char ends[128];
    size_t nf, ne, i;
    int y = y0, d, end = y0 + rows;
    const struct ew_hist *h = ew_hist_get(&ui->hist, f->id);
    int sw = cols - 16 > EW_HIST_LEN ? EW_HIST_LEN : cols - 16;

    ew_flow_conclude(f, EW_CONCLUDE_WORDS | EW_CONCLUDE_EVIDENCE, &sum);
    nf = sum.nf;
    ne = sum.nev;
    ew_snap_endpoints(r, ends, sizeof(ends));
    color_on(ui, C_HEAD);
    mvhline(y, 0, ' ', cols);
    put(y++, 0, " #%" PRIu64 " %s %s  neg %s%s  verdict %s  %s", f->id,
             f->key.l4 == EW_L4_TCP ? "tcp" : f->key.l4 == EW_L4_UDP ? "udp" : "ip", ends,
             ew_neg_name[vp->neg], vp->neg_inferred ? "?" : "", ew_verdict_name[vp->verdict],
             ew_vantage_name[vp->vantage]);
    color_off(ui, C_HEAD);
    if (y < end)
        put(y++, 1, "%.*s", cols - 2, vp->reason);
    for (d = 0; d < 2 && y < end; d++) {
        int dd = d == 0 ? f->client_dir : f->client_dir ^ 1;
        const struct ew_dir_stats *s = &f->dir[dd];
        double p = s->packets ? 100.0 / (double)s->packets : 0;

        put(y++, 1, "%s %7" PRIu64 " pkts Not-ECT %3.0f%% ECT(0) %3.0f%% ECT(1) %3.0f%% CE %4.1f%% %s %s",
                 d == 0 ? "c2s" : "s2c", s->packets, p * (double)s->ecn[EW_ECN_NOT_ECT],
                 p * (double)s->ecn[EW_ECN_ECT_0], p * (double)s->ecn[EW_ECN_ECT_1],
                 p * (double)s->ecn[EW_ECN_CE], ew_fb_name[vp->dir[dd].feedback],
                 ew_ect1_name[vp->dir[dd].ect1]);
    }
    if (y < end && sw > 8) {
        put(y, 1, "CE share   ");
        color_on(ui, C_CE);
        spark(y++, 12, sw, h, h ? h->s_ce : NULL, h ? h->s_pkts : NULL, NULL);
        color_off(ui, C_CE);
    }
    if (y < end && sw > 8) {
        put(y, 1, "ECT1 share ");
        color_on(ui, C_ECT1);
        spark(y++, 12, sw, h, h ? h->s_e1 : NULL, h ? h->s_pkts : NULL, NULL);
        color_off(ui, C_ECT1);
    }
    if (y < end && sw > 8) {
        const struct ew_half *hf = &f->inf->half[r->dir];

        put(y, 1, "RTT        ");
        spark(y, 12, sw, h, NULL, NULL, h ? h->s_rtt_us : NULL);
        if (hf->rtt_samples)
            put(y, 13 + sw, "%.1f/%.1f ms", (double)hf->rtt_min / 1e6,
                     (double)hf->rtt_srtt / 1e6);
        y++;
    }
    for (i = 0; i < nf && y < end; i++) {
        color_on(ui, C_WARN);
        put(y++, 1, "! %s %s %s: %.*s", ew_misuse_name[fnd[i].kind],
                 fnd[i].dir == f->client_dir ? "c2s" : "s2c",
                 ew_confidence_name[fnd[i].confidence], cols - 40 > 0 ? cols - 40 : 0,
                 fnd[i].detail);
        color_off(ui, C_WARN);
    }
    for (i = 0; i < ne && y < end; i++)
        put(y++, 1, "frame %-7" PRIu64 " %.*s", ev[i].frame, cols - 16 > 0 ? cols - 16 : 0,
                 ev[i].note);
}

static void
draw_help(int rows, int cols)
{
    static const char *const lines[] = {
        "ecnwatch keys",
        "",
        "  Up/Down j/k   select a flow      PgUp/PgDn Home/End",
        "  Enter, d      detail pane: verdict, evidence, misuse, sparklines",
        "  s / S         next / previous sort key",
        "  /             filter (text in endpoints, proto, negotiation,",
        "                verdict); an empty filter shows all",
        "  p             pause the display (capture goes on)",
        "  c             clear all flows and counters",
        "  Ctrl-L        redraw",
        "  h, ?          this help (any key closes it)",
        "  q             quit (the -o report is written)",
    };
    int n = (int)(sizeof(lines) / sizeof(lines[0])), w = 70, i;
    int y = (rows - n - 2) / 2, x = (cols - w) / 2;

    if (y < 0)
        y = 0;
    if (x < 0)
        x = 0;
    for (i = -1; i <= n; i++) {
        mvhline(y + 1 + i, x, ' ', w);
        if (i >= 0 && i < n)
            put(y + 1 + i, x + 2, "%.*s", w - 4, lines[i]);
    }
}

/* the two lines above the list: the capture, and the codepoints of all
 * packets with the misuse findings of the flows held and evicted */
static void
draw_top(struct ew_ui *ui, const struct ew_analyzer *an, const struct ew_ui_status *st,
         uint64_t nfind, int maxx)
{
    const struct ew_totals *t = &an->tot;
    struct ew_flowtab_stats fs;
    double tp = t->ip_packets ? 100.0 / (double)t->ip_packets : 0;

    ew_flowtab_get_stats(an->tab, &fs);
    color_on(ui, C_HEAD);
    mvhline(0, 0, ' ', maxx);
    put(0, 0, " ecnwatch %s  %" PRIu64 " pkts  %.0f pkt/s  drops %s%" PRIu64 "  flows %" PRIu64
                   "  sort: %s%s%s",
             st->iface, st->frames, st->pkts_per_s, st->drops_known ? "" : "?",
             st->kernel_drops, fs.created, sort_name[ui->sort], ui->paused ? "  PAUSED" : "",
             ui->filter[0] ? "  filtered" : "");
    color_off(ui, C_HEAD);
    put(1, 0, " Not-ECT %5.1f%%  ECT(0) %5.1f%%  ", tp * (double)t->ecn[EW_ECN_NOT_ECT],
             tp * (double)t->ecn[EW_ECN_ECT_0]);
    color_on(ui, C_ECT1);
    putc_("ECT(1) %5.1f%%  ", tp * (double)t->ecn[EW_ECN_ECT_1]);
    color_off(ui, C_ECT1);
    color_on(ui, C_CE);
    putc_("CE %5.1f%%", tp * (double)t->ecn[EW_ECN_CE]);
    color_off(ui, C_CE);
    if (nfind) {
        color_on(ui, C_WARN);
        putc_("  misuse: %" PRIu64, nfind);
        color_off(ui, C_WARN);
    }
    attron(A_BOLD);
    put(2, 0, "%4s %-28s %-7s %1s %4s %4s %-7s %-5s %-9s%s", "ID", "CLIENT>SERVER", "NEG", "D",
             "E1%", "CE%", "FB", "ECT1", "VERDICT", "!");
    attroff(A_BOLD);
}

/* one flow of the list at line y */
static void
draw_row(struct ew_ui *ui, const struct ew_snap_row *r, int y, bool sel, int maxx)
{
    bool ended = (r->flags & EW_SNAP_ENDED) != 0;
    char ends[128];

    ew_snap_endpoints(r, ends, sizeof(ends));
    if (sel)
        attron(A_REVERSE);
    if (ended)
        color_on(ui, C_DIM);
    put(y, 0, r->e1 >= 0.9995 ? "%4" PRIu64 " %-28.28s %-7s %1s %4.0f " :
                                "%4" PRIu64 " %-28.28s %-7s %1s %4.1f ",
        r->id, ends, r->key.l4 == EW_L4_TCP ? ew_neg_name[r->neg] : "-",
        r->dir == r->client_dir ? ">" : "<", r->e1 * 100);
    if (r->ce > 0 && !sel)
        color_on(ui, C_CE);
    putc_(r->ce >= 0.9995 ? "%4.0f" : "%4.1f", r->ce * 100);
    if (r->ce > 0 && !sel)
        color_off(ui, C_CE);
    putc_(" %-7s %-5s %-9.9s", ew_fb_name[r->fb[r->dir]], ect1_short[r->ect1[r->dir]],
          ew_verdict_name[r->verdict]);
    if (r->nf) {
        if (!sel)
            color_on(ui, C_WARN);
        putc_("%u", (unsigned)r->nf);
        if (!sel)
            color_off(ui, C_WARN);
    }
    if (ended)
        color_off(ui, C_DIM);
    if (sel) {
        int cy, cx;

        getyx(stdscr, cy, cx);
        if (cx < maxx)
            mvhline(cy, cx, ' ', maxx - cx);
        attroff(A_REVERSE);
    }
}

/* keep the selection on the same flow across refreshes, and in view */
static void
follow_selection(struct ew_ui *ui, const struct ew_snap_row *rows, size_t n, int table_h)
{
    size_t i;

    for (i = 0; i < n; i++)
        if (rows[i].id == ui->sel_id)
            ui->sel = (int)i;
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
count_findings(const struct ew_analyzer *an, const struct ew_snapshot *snap)
{
    uint64_t nfind = 0;
    size_t i;
    int k;

    for (k = 0; k < EW_MU_COUNT; k++)
        nfind += an->evicted_findings[k];
    for (i = 0; i < snap->n; i++) {
        uint32_t m;

        for (m = snap->rows[i].kinds; m; m &= m - 1)
            nfind++;
    }
    return nfind;
}

void
ew_ui_draw(struct ew_ui *ui, const struct ew_analyzer *an, const struct ew_ui_status *st)
{
    struct ew_snapshot *snap;
    const struct ew_snap_row *rows;
    struct ew_flow_room *room;
    size_t n;
    int maxy, maxx, table_h, y;

    if (!ui || !ui->active)
        return;
    snap = &ui->snap;
    room = room_of(ui);
    /* the one snapshot of this redraw: the list, the filter and the counts */
    if (!room || ew_snapshot_build(snap, an, SIZE_MAX, 0) != 0)
        snap->n = 0;
    getmaxyx(stdscr, maxy, maxx);
    erase();
    draw_top(ui, an, st, count_findings(an, snap), maxx);
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
    ui->nvisible = 0;
    for (y = 0; y < table_h && ui->top + y < (int)n; y++) {
        const struct ew_snap_row *r = &rows[ui->top + y];

        if (ui->nvisible < EW_HIST_FLOWS)
            ui->visible[ui->nvisible++] = r->id;
        draw_row(ui, r, 3 + y, ui->top + y == ui->sel, maxx);
    }
    if (ui->detail && n)
        draw_detail(ui, &rows[ui->sel], ew_flowtab_view(an->tab, rows[ui->sel].ref, room),
                    3 + table_h, maxy - 4 - table_h, maxx);

    color_on(ui, C_HEAD);
    mvhline(maxy - 1, 0, ' ', maxx);
    if (ui->editing)
        put(maxy - 1, 0, " filter: %s_", ui->edit);
    else
        put(maxy - 1, 0, " q quit  s sort  / filter  Enter detail  p pause  c clear  h help");
    color_off(ui, C_HEAD);
    if (ui->help)
        draw_help(maxy, maxx);
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

static int
handle_key(struct ew_ui *ui, int ch)
{
    if (ui->editing)
        return edit_key(ui, ch);
    if (ui->help) {
        ui->help = false;
        return EW_UI_HANDLED | EW_UI_REDRAW;
    }
    switch (ch) {
    case 'q':
    case 'Q':
        return EW_UI_QUIT;
    case KEY_UP:
    case 'k':
        ui->sel--;
        break;
    case KEY_DOWN:
    case 'j':
        ui->sel++;
        break;
    case KEY_PPAGE:
        ui->sel -= 10;
        break;
    case KEY_NPAGE:
        ui->sel += 10;
        break;
    case KEY_HOME:
        ui->sel = 0;
        break;
    case KEY_END:
        ui->sel = 1 << 30;
        break;
    case '\n':
    case '\r':
    case KEY_ENTER:
    case 'd':
        ui->detail = !ui->detail;
        return EW_UI_HANDLED | EW_UI_REDRAW;
    case 's':
        ui->sort = (enum ew_snap_sort)((ui->sort + 1) % EW_SNAP_SORT_COUNT);
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
        return EW_UI_HANDLED | EW_UI_REDRAW;
    case 12: /* Ctrl-L */
        clearok(curscr, TRUE);
        return EW_UI_HANDLED | EW_UI_REDRAW;
    case KEY_RESIZE:
        return EW_UI_HANDLED | EW_UI_REDRAW;
    default:
        return 0;
    }
    /* the selection moved: follow the row, not the flow id */
    ui->sel_id = 0;
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
