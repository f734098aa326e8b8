/* ui_draw.c - the live view's drawing pieces (see ui_draw.h). */
#include "ui/ui_draw.h"

#include <curses.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "ui/ui_text.h"

/* the clip of a pane drawn through one (ew_draw_clip) */
static struct {
    bool on;
    int top, bottom, shift;
} clip;

void
ew_draw_clip(int top, int bottom, int shift)
{
    clip.on = true;
    clip.top = top;
    clip.bottom = bottom;
    clip.shift = shift;
}

void
ew_draw_noclip(void)
{
    clip.on = false;
}

/* the screen line that line y is drawn on, or -1: not drawn */
static int
line_of(int y)
{
    if (!clip.on)
        return y;
    y -= clip.shift;
    return y >= clip.top && y < clip.bottom ? y : -1;
}

/* a shown text (ui_text.h) at (y, x), at most cols columns of it; a text
 * longer ends in ">" when cue is set. Returns the columns drawn. */
static int
put_shown(int y, int x, int cols, const char *s, bool cue)
{
    int used, sy = line_of(y);
    size_t n;

    if (sy < 0 || cols <= 0)
        return 0;
    n = ew_text_fit(s, cols, &used);
    if (s[n] && cue) {
        n = ew_text_fit(s, cols - 1, &used);
        mvaddnstr(sy, x, s, (int)n);
        mvaddch(sy, x + used, '>');
        return used + 1;
    }
    mvaddnstr(sy, x, s, (int)n);
    return used;
}

/* print at (y, x), clipped to the screen's width */
void
ew_draw_put(int y, int x, const char *fmt, ...)
{
    char buf[512], shown[1024];
    va_list ap;
    int cols = getmaxx(stdscr);

    if (x >= cols)
        return;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof(buf), fmt, ap);
    va_end(ap);
    put_shown(y, x, cols - x, ew_text_shown(buf, shown, sizeof(shown)), true);
}

void
ew_draw_blank(int y, int x, int n)
{
    int sy = line_of(y);

    if (sy >= 0 && n > 0)
        mvhline(sy, x, ' ', n);
}

void
ew_draw_color_on(bool color, int pair)
{
    if (color)
        attron(COLOR_PAIR(pair));
}

void
ew_draw_color_off(bool color, int pair)
{
    if (color)
        attroff(COLOR_PAIR(pair));
}

/* ------------------------------------------------------------ numbers */

/* a rate with an SI prefix in at most 6 characters: "850", "12.3k", "1.5M";
 * "-" when unknown (negative) */
void
ew_draw_fmt_si(double v, char *buf, size_t len)
{
    if (v < 0)
        snprintf(buf, len, "-");
    else if (v < 999.5)
        snprintf(buf, len, "%.0f", v);
    else if (v < 999.95e3)
        snprintf(buf, len, "%.1fk", v / 1e3);
    else if (v < 999.95e6)
        snprintf(buf, len, "%.1fM", v / 1e6);
    else
        snprintf(buf, len, "%.1fG", v / 1e9);
}

/* a duration in microseconds: "42us", "3.25ms", "48.1ms", "210ms" */
void
ew_draw_fmt_us(double us, char *buf, size_t len)
{
    if (us < 999.5)
        snprintf(buf, len, "%.0fus", us);
    else if (us < 9995)
        snprintf(buf, len, "%.2fms", us / 1e3);
    else if (us < 99950)
        snprintf(buf, len, "%.1fms", us / 1e3);
    else
        snprintf(buf, len, "%.0fms", us / 1e3);
}

/* ------------------------------------------------- lines made of items */


void
ew_draw_item(struct line *l, int prio, int color, const char *fmt, ...)
{
    char buf[sizeof(l->text[0])];
    va_list ap;

    if (l->n >= LINE_ITEMS)
        return;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof(buf), fmt, ap);
    va_end(ap);
    ew_text_shown(buf, l->text[l->n], sizeof(l->text[0]));
    l->prio[l->n] = prio;
    l->color[l->n++] = color;
}

/* draw l at line y from column x, two spaces between items, within width */
void
ew_draw_line(bool color, const struct line *l, int y, int x, int width)
{
    bool shown[LINE_ITEMS] = {false};
    int used = 0, p, i, maxp = 0;

    for (i = 0; i < l->n; i++)
        if (l->prio[i] > maxp)
            maxp = l->prio[i];
    for (p = 0; p <= maxp; p++)
        for (i = 0; i < l->n; i++) {
            int w = ew_text_width(l->text[i]) + (used ? 2 : 0);

            if (l->prio[i] == p && used + w <= width) {
                shown[i] = true;
                used += w;
            }
        }
    for (i = 0, used = 0; i < l->n; i++) {
        if (!shown[i])
            continue;
        if (used)
            used += put_shown(y, x + used, 2, "  ", false);
        if (l->color[i])
            ew_draw_color_on(color, l->color[i]);
        used += put_shown(y, x + used, width - used, l->text[i], false);
        if (l->color[i])
            ew_draw_color_off(color, l->color[i]);
    }
}

/* l's items in their order, whole, two spaces apart, from (y, x): an item
 * that does not fit goes to the next line, and one longer than a line is
 * wrapped, up to line end (each line cleared across the screen first).
 * Returns the next free line. */
int
ew_draw_items(const struct line *l, int y, int x, int width, int end)
{
    int used = 0, i;

    if (y >= end)
        return y;
    ew_draw_blank(y, 0, getmaxx(stdscr));
    for (i = 0; i < l->n; i++) {
        int w = ew_text_width(l->text[i]);

        if (used && used + 2 + w > width) {
            if (++y >= end)
                return y;
            ew_draw_blank(y, 0, getmaxx(stdscr));
            used = 0;
        }
        if (!used && w > width) {
            y = ew_draw_wrap(y, x, width, 2, end, l->text[i]) - 1;
            used = width; /* the next item on a line of its own */
            if (y + 1 >= end)
                return y + 1;
            continue;
        }
        put_shown(y, x + used + (used ? 2 : 0), width - used - (used ? 2 : 0), l->text[i], false);
        used += w + (used ? 2 : 0);
    }
    return y + 1;
}

/* Words of text from (y, x), at most width columns a line (later lines
 * indented by indent), until line end; a word longer than a line is split.
 * Returns the next free line. */
int
ew_draw_wrap(int y, int x, int width, int indent, int end, const char *text)
{
    char buf[2048];
    const char *p = ew_text_shown(text, buf, sizeof(buf));
    int w = width;

    while (*p == ' ')
        p++;
    while (*p && y < end && w > 0) {
        size_t n = ew_text_fit(p, w, NULL), i, last_space = 0;

        if (n == 0)
            break; /* a character wider than the line */
        for (i = 0; i < n; i++)
            if (p[i] == ' ')
                last_space = i;
        if (p[n] && p[n] != ' ' && last_space > 0)
            n = last_space;
        if (line_of(y) >= 0)
            mvaddnstr(line_of(y), x, p, (int)n);
        y++;
        p += n;
        while (*p == ' ')
            p++;
        if (y == end)
            break;
        if (x + indent < getmaxx(stdscr) && w == width) {
            x += indent;
            w = width - indent;
        }
    }
    return y;
}

/* ------------------------------------------------------------ sparklines */

static const char levels[] = "_.-=+*#@";

/* the level (0 to 7) of a history's second k, or -1 for no sample */
typedef int (*spark_level)(int k, const void *arg);

/* a sparkline of the last width seconds of h, right-aligned at (y, x),
 * each second's character from its level */
static void
spark_row(int y, int x, int width, const struct ew_hist *h, spark_level level, const void *arg)
{
    int i, n = h ? h->n : 0, start;

    if (n > width)
        n = width;
    start = width - n;
    if (line_of(y) < 0)
        return;
    move(line_of(y), x);
    for (i = 0; i < width; i++) {
        int lvl = i < start ? -1 : level((h->pos + EW_HIST_LEN - n + (i - start)) % EW_HIST_LEN, arg);
        char c = lvl < 0 ? ' ' : levels[lvl > 7 ? 7 : lvl];

        addch((chtype)(unsigned char)c);
    }
}

/* a share num / den of each second, rounded up (any share shows) */
struct share_of {
    const uint16_t *num, *den;
};

static int
share_level(int k, const void *arg)
{
    const struct share_of *sh = arg;
    int lvl;

    if (!sh->den[k])
        return -1;
    lvl = (int)((double)sh->num[k] / sh->den[k] * 7 + 0.999);
    return lvl < 0 ? 0 : lvl;
}

/* a sparkline of a share (num/den per second), in ASCII so that any
 * terminal shows it; a second without packets is blank */
void
ew_draw_spark_share(int y, int x, int width, const struct ew_hist *h, const uint16_t *num,
            const uint16_t *den)
{
    struct share_of sh = {num, den};

    spark_row(y, x, width, h, share_level, &sh);
}

/* the last n seconds of v (0: no sample; a sample's value is v - off): the
 * lowest and highest values, 0 and 0 when none; the seconds with a sample */
static int
spark_range(const struct ew_hist *h, const uint32_t *v, int n, uint32_t off, uint32_t *lo,
            uint32_t *hi)
{
    int i, k = 0;

    *lo = *hi = 0;
    for (i = 0; i < n; i++) {
        uint32_t x = v[(h->pos + EW_HIST_LEN - n + i) % EW_HIST_LEN];

        if (!x)
            continue;
        if (!k++ || x - off < *lo)
            *lo = x - off;
        if (x - off > *hi)
            *hi = x - off;
    }
    return k;
}

/* a sparkline of the last width seconds of v (as spark_range reads it),
 * right-aligned at (y, x): each value's level from lo over span */
/* each value's level from lo over span (a value is v - off; 0: no sample) */
struct value_of {
    const uint32_t *v;
    uint32_t off, lo;
    double span;
};

static int
value_level(int k, const void *arg)
{
    const struct value_of *vo = arg;
    int lvl;

    if (!vo->v[k])
        return -1;
    lvl = vo->span > 0 ? (int)((double)(vo->v[k] - vo->off - vo->lo) / vo->span * 7 + 0.5) : 0;
    return lvl < 0 ? 0 : lvl;
}

static void
spark_draw(int y, int x, int width, const struct ew_hist *h, const uint32_t *v, uint32_t off,
           uint32_t lo, double span)
{
    struct value_of vo = {v, off, lo, span};

    spark_row(y, x, width, h, value_level, &vo);
}

/* The RTT of the last width seconds, drawn from the lowest to the highest
 * value shown, which *lo and *hi return (0 and 0: none). The height spans
 * at least a tenth of the highest value: a spread smaller than that (noise
 * on a short path) stays low instead of swinging full scale. */
void
ew_draw_spark_rtt(int y, int x, int width, const struct ew_hist *h, uint32_t *lo, uint32_t *hi)
{
    int n = h ? (h->n > width ? width : h->n) : 0;
    double span;

    *lo = *hi = 0;
    if (h)
        spark_range(h, h->s_rtt_us, n, 0, lo, hi);
    span = (double)(*hi - *lo);
    if (span < *hi / 10.0)
        span = *hi / 10.0;
    spark_draw(y, x, width, h, h ? h->s_rtt_us : NULL, 0, *lo, span);
}

void
ew_draw_spark_qd(int y, int x, int width, const struct ew_hist *h, const uint32_t *v,
                 uint32_t *hi, int *any)
{
    int n = h ? (h->n > width ? width : h->n) : 0;
    uint32_t lo = 0;

    *hi = 0;
    *any = h ? spark_range(h, v, n, 1, &lo, hi) > 0 : 0;
    /* from 0, at least a millisecond high: microseconds of noise stay low */
    spark_draw(y, x, width, h, v, 1, 0, *hi > 1000 ? (double)*hi : 1000.0);
}
