/* ui_curses.c - the live view (see ui.h). It stays readable at 80x24: one
 * header line, one totals line, a table of flows, an optional detail pane
 * for the selected flow, and a key line. */
#include "ecnwatch/ui.h"

#include <arpa/inet.h>
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
#include "ecnwatch/report.h"

#define HIST 60
#define TRACKED 64

enum sort_key { SORT_PACKETS, SORT_CE, SORT_ECT1, SORT_RECENT, SORT_ID, SORT_COUNT };
static const char *const sort_name[SORT_COUNT] = {"packets", "CE share", "ECT(1) share",
                                                  "last active", "first seen"};

enum { C_HEAD = 1, C_CE, C_ECT1, C_WARN, C_DIM, C_OK };

/* the ECT(1) meaning in five columns */
static const char *const ect1_short[] = {[EW_ECT1_NONE] = "-", [EW_ECT1_L4S] = "l4s",
                                         [EW_ECT1_SCE] = "sce", [EW_ECT1_AMBIGUOUS] = "ambig",
                                         [EW_ECT1_CONFLICT] = "confl"};

struct hist {
    uint64_t id;
    uint64_t pkts, ce, e1;  /* counters at the last sample */
    uint8_t n, pos;
    uint16_t s_pkts[HIST], s_ce[HIST], s_e1[HIST];
    uint32_t s_rtt_us[HIST];
};

struct row {
    uint32_t ref; /* the flow in the table (ew_flowtab_view) */
    uint64_t id;
    int64_t last_ns;
    int dir;  /* the main data direction */
    uint64_t pkts;
    double ce, e1;
};

struct ew_ui {
    bool active;
    bool color;
    bool detail, help, paused;
    bool editing;
    enum sort_key sort;
    char filter[64];
    char edit[64];
    uint64_t sel_id;
    int sel, top;
    struct hist hist[TRACKED];
    uint64_t visible[TRACKED];
    int nvisible;
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
    free(ui);
}

void
ew_ui_reset(struct ew_ui *ui)
{
    memset(ui->hist, 0, sizeof(ui->hist));
    ui->nvisible = 0;
    ui->sel = ui->top = 0;
    ui->sel_id = 0;
}

static int
main_dir(const struct ew_flow *f)
{
    int c = f->client_dir;

    if (f->dir[c ^ 1].payload_bytes > f->dir[c].payload_bytes)
        return c ^ 1;
    if (f->dir[c].payload_bytes == 0 && f->dir[c ^ 1].packets > f->dir[c].packets)
        return c ^ 1;
    return c;
}

static void
endpoints(const struct ew_flow *f, char *buf, size_t len)
{
    char a[INET6_ADDRSTRLEN], b[INET6_ADDRSTRLEN];
    int c = f->client_dir;
    const uint8_t *ca = c == EW_DIR_LO_HI ? f->key.lo : f->key.hi;
    const uint8_t *sa = c == EW_DIR_LO_HI ? f->key.hi : f->key.lo;
    unsigned cp = c == EW_DIR_LO_HI ? f->key.port_lo : f->key.port_hi;
    unsigned sp = c == EW_DIR_LO_HI ? f->key.port_hi : f->key.port_lo;

    ew_addr_str(ca, f->key.family, a, sizeof(a));
    ew_addr_str(sa, f->key.family, b, sizeof(b));
    if (f->key.l4 == EW_L4_NONE)
        snprintf(buf, len, "%s>%s", a, b);
    else
        snprintf(buf, len, "%s:%u>%s:%u", a, cp, b, sp);
}

static int
cmp_rows(const struct row *a, const struct row *b, enum sort_key k)
{
    switch (k) {
    case SORT_PACKETS:
        if (a->pkts != b->pkts)
            return a->pkts > b->pkts ? -1 : 1;
        break;
    case SORT_CE:
        if (a->ce != b->ce)
            return a->ce > b->ce ? -1 : 1;
        break;
    case SORT_ECT1:
        if (a->e1 != b->e1)
            return a->e1 > b->e1 ? -1 : 1;
        break;
    case SORT_RECENT:
        if (a->last_ns != b->last_ns)
            return a->last_ns > b->last_ns ? -1 : 1;
        break;
    default:
        break;
    }
    return (a->id > b->id) - (a->id < b->id);
}

static enum sort_key sort_for_qsort;

static int
qsort_rows(const void *x, const void *y)
{
    return cmp_rows(x, y, sort_for_qsort);
}

static bool
matches(const struct ew_flow *f, const char *filter)
{
    char ends[128], hay[512];
    struct ew_flow_summary sum;
    const struct ew_flow_verdict *v = &sum.v;
    size_t i;

    if (!filter[0])
        return true;
    endpoints(f, ends, sizeof(ends));
    ew_flow_conclude(f, 0, &sum);
    snprintf(hay, sizeof(hay), "%s %s %s %s %s", ends,
             f->key.l4 == EW_L4_TCP   ? "tcp"
             : f->key.l4 == EW_L4_UDP ? "udp"
                                      : "other",
             ew_neg_name[v->neg], ew_verdict_name[v->verdict], ew_ect1_name[v->dir[v->main_dir].ect1]);
    for (i = 0; hay[i]; i++)
        hay[i] = (char)tolower((unsigned char)hay[i]);
    return strstr(hay, filter) != NULL;
}

/* the flows to show, filtered and sorted; the caller frees */
static struct row *
snapshot(struct ew_ui *ui, const struct ew_analyzer *an, struct ew_flow_room *room,
         size_t *count)
{
    struct ew_flowtab_stats st;
    uint32_t *refs;
    struct row *rows;
    size_t n, i, m = 0;

    ew_flowtab_get_stats(an->tab, &st);
    refs = malloc((st.in_table ? st.in_table : 1) * sizeof(*refs));
    rows = malloc((st.in_table ? st.in_table : 1) * sizeof(*rows));
    if (!refs || !rows) {
        free(refs);
        free(rows);
        *count = 0;
        return NULL;
    }
    n = ew_flowtab_refs(an->tab, refs, st.in_table, false);
    for (i = 0; i < n; i++) {
        const struct ew_flow *f = ew_flowtab_view(an->tab, refs[i], room);
        int d = main_dir(f);
        const struct ew_dir_stats *s = &f->dir[d];

        if (!matches(f, ui->filter))
            continue;
        rows[m].ref = refs[i];
        rows[m].id = f->id;
        rows[m].last_ns = f->last_ns;
        rows[m].dir = d;
        rows[m].pkts = f->dir[0].packets + f->dir[1].packets;
        rows[m].ce = s->packets ? (double)s->ecn[EW_ECN_CE] / (double)s->packets : 0;
        rows[m].e1 = s->packets ? (double)s->ecn[EW_ECN_ECT_1] / (double)s->packets : 0;
        m++;
    }
    free(refs);
    sort_for_qsort = ui->sort;
    qsort(rows, m, sizeof(*rows), qsort_rows);
    *count = m;
    return rows;
}

static struct hist *
hist_for(struct ew_ui *ui, uint64_t id, bool create)
{
    int i, free_slot = -1;

    for (i = 0; i < TRACKED; i++) {
        if (ui->hist[i].id == id)
            return &ui->hist[i];
        if (free_slot < 0 && ui->hist[i].id == 0)
            free_slot = i;
    }
    if (!create)
        return NULL;
    if (free_slot < 0) {
        /* reuse a slot of a flow no longer on screen */
        for (i = 0; i < TRACKED && free_slot < 0; i++) {
            int j;
            bool seen = ui->hist[i].id == ui->sel_id;

            for (j = 0; j < ui->nvisible && !seen; j++)
                seen = ui->visible[j] == ui->hist[i].id;
            if (!seen)
                free_slot = i;
        }
        if (free_slot < 0)
            return NULL;
    }
    memset(&ui->hist[free_slot], 0, sizeof(ui->hist[free_slot]));
    ui->hist[free_slot].id = id;
    return &ui->hist[free_slot];
}

static uint16_t
clamp16(uint64_t v)
{
    return v > 65535 ? 65535 : (uint16_t)v;
}

void
ew_ui_sample(struct ew_ui *ui, const struct ew_analyzer *an)
{
    struct ew_flowtab_stats st;
    struct ew_flow_room *room;
    uint32_t *refs;
    size_t n, i;
    int j;

    ew_flowtab_get_stats(an->tab, &st);
    refs = malloc((st.in_table ? st.in_table : 1) * sizeof(*refs));
    room = malloc(sizeof(*room));
    if (!refs || !room) {
        free(refs);
        free(room);
        return;
    }
    n = ew_flowtab_refs(an->tab, refs, st.in_table, false);
    for (i = 0; i < n; i++) {
        const struct ew_flow *f = ew_flowtab_view(an->tab, refs[i], room);
        bool want = f->id == ui->sel_id;
        struct hist *h;
        const struct ew_dir_stats *s;
        int d;

        for (j = 0; j < ui->nvisible && !want; j++)
            want = ui->visible[j] == f->id;
        if (!want)
            continue;
        h = hist_for(ui, f->id, true);
        if (!h)
            continue;
        d = main_dir(f);
        s = &f->dir[d];
        if (h->n > 0 || h->pkts > 0) {
            h->s_pkts[h->pos] = clamp16(s->packets - h->pkts);
            h->s_ce[h->pos] = clamp16(s->ecn[EW_ECN_CE] - h->ce);
            h->s_e1[h->pos] = clamp16(s->ecn[EW_ECN_ECT_1] - h->e1);
            h->s_rtt_us[h->pos] = (uint32_t)(f->inf->half[d].rtt_last / 1000);
            h->pos = (uint8_t)((h->pos + 1) % HIST);
            if (h->n < HIST)
                h->n++;
        }
        h->pkts = s->packets;
        h->ce = s->ecn[EW_ECN_CE];
        h->e1 = s->ecn[EW_ECN_ECT_1];
    }
    free(refs);
    free(room);
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
spark(int y, int x, int width, const struct hist *h, const uint16_t *num, const uint16_t *den,
      const uint32_t *raw)
{
    static const char levels[] = "_.-=+*#@";
    uint32_t max = 1;
    int i, n = h ? h->n : 0, start;

    if (n > width)
        n = width;
    if (raw)
        for (i = 0; i < n; i++)
            if (raw[(h->pos + HIST - n + i) % HIST] > max)
                max = raw[(h->pos + HIST - n + i) % HIST];
    start = width - n;
    move(y, x);
    for (i = 0; i < width; i++) {
        char c = ' ';

        if (i >= start) {
            int k = (h->pos + HIST - n + (i - start)) % HIST;
            double v = raw ? (double)raw[k] / max : den[k] ? (double)num[k] / den[k] : 0;
            int lvl = (int)(v * 7 + 0.999);

            c = levels[lvl < 0 ? 0 : lvl > 7 ? 7 : lvl];
            if (!raw && den[k] == 0)
                c = ' ';
        }
        addch((chtype)(unsigned char)c);
    }
}

static void
draw_detail(struct ew_ui *ui, const struct ew_flow *f, int y0, int rows, int cols)
{
    struct ew_flow_summary sum;
    const struct ew_flow_verdict *vp = &sum.v;
    const struct ew_finding *fnd = sum.fnd;
    struct ew_evidence ev[24];
    char ends[128];
    size_t nf, ne, i;
    int y = y0, d, end = y0 + rows;
    const struct hist *h = hist_for(ui, f->id, false);
    int sw = cols - 16 > HIST ? HIST : cols - 16;

    ew_flow_conclude(f, EW_CONCLUDE_WORDS, &sum);
    nf = sum.nf;
    ne = ew_infer_evidence(f, vp, ev, sizeof(ev) / sizeof(ev[0]));
    endpoints(f, ends, sizeof(ends));
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
        const struct ew_half *hf = &f->inf->half[main_dir(f)];

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

void
ew_ui_draw(struct ew_ui *ui, const struct ew_analyzer *an, const struct ew_ui_status *st)
{
    const struct ew_totals *t = &an->tot;
    struct ew_flowtab_stats fs;
    struct row *rows;
    struct ew_flow_room *room;
    size_t n, i;
    int maxy, maxx, table_h, y;
    double tp = t->ip_packets ? 100.0 / (double)t->ip_packets : 0;
    uint64_t counts[32], nfind = 0;
    int k;

    if (!ui || !ui->active)
        return;
    getmaxyx(stdscr, maxy, maxx);
    erase();
    ew_flowtab_get_stats(an->tab, &fs);
    ew_analyzer_findings(an, counts);
    for (k = 0; k < EW_MU_COUNT; k++)
        nfind += counts[k];

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

    room = malloc(sizeof(*room));
    rows = room ? snapshot(ui, an, room, &n) : NULL;
    if (!rows)
        n = 0;
    table_h = maxy - 4;
    if (ui->detail)
        table_h = (maxy - 4) / 3 > 3 ? (maxy - 4) / 3 : 3;
    if (table_h < 1)
        table_h = 1;
    /* keep the selection on the same flow across refreshes */
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
    ui->nvisible = 0;
    for (y = 0; y < table_h && ui->top + y < (int)n; y++) {
        const struct row *r = &rows[ui->top + y];
        const struct ew_flow *f = ew_flowtab_view(an->tab, r->ref, room);
        struct ew_flow_summary sum;
        const struct ew_flow_verdict *vp = &sum.v;
        size_t nf;
        char ends[128];
        bool sel = ui->top + y == ui->sel;

        ew_flow_conclude(f, 0, &sum);
        nf = sum.nf;
        endpoints(f, ends, sizeof(ends));
        if (ui->nvisible < TRACKED)
            ui->visible[ui->nvisible++] = f->id;
        if (sel)
            attron(A_REVERSE);
        if (f->ended)
            color_on(ui, C_DIM);
        put(3 + y, 0, r->e1 >= 0.9995 ? "%4" PRIu64 " %-28.28s %-7s %1s %4.0f " :
                                        "%4" PRIu64 " %-28.28s %-7s %1s %4.1f ",
            f->id, ends, f->key.l4 == EW_L4_TCP ? ew_neg_name[vp->neg] : "-",
            r->dir == f->client_dir ? ">" : "<", r->e1 * 100);
        if (r->ce > 0 && !sel)
            color_on(ui, C_CE);
        putc_(r->ce >= 0.9995 ? "%4.0f" : "%4.1f", r->ce * 100);
        if (r->ce > 0 && !sel)
            color_off(ui, C_CE);
        putc_(" %-7s %-5s %-9.9s", ew_fb_name[vp->dir[r->dir].feedback],
              ect1_short[vp->dir[r->dir].ect1], ew_verdict_name[vp->verdict]);
        if (nf) {
            if (!sel)
                color_on(ui, C_WARN);
            putc_("%zu", nf);
            if (!sel)
                color_off(ui, C_WARN);
        }
        if (f->ended)
            color_off(ui, C_DIM);
        if (sel) {
            int cy, cx;

            getyx(stdscr, cy, cx);
            if (cx < maxx)
                mvhline(cy, cx, ' ', maxx - cx);
            attroff(A_REVERSE);
        }
    }
    if (ui->detail && n)
        draw_detail(ui, ew_flowtab_view(an->tab, rows[ui->sel].ref, room), 3 + table_h,
                    maxy - 4 - table_h, maxx);
    free(rows);
    free(room);

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
        ui->sort = (enum sort_key)((ui->sort + 1) % SORT_COUNT);
        return EW_UI_HANDLED | EW_UI_REDRAW;
    case 'S':
        ui->sort = (enum sort_key)((ui->sort + SORT_COUNT - 1) % SORT_COUNT);
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
