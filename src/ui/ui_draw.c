/* ui_draw.c - the live view's drawing pieces (see ui_draw.h). */
#include "ui/ui_draw.h"

#include <curses.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* print at (y, x), clipped to the screen's width */
void
ew_draw_put(int y, int x, const char *fmt, ...)
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
    va_list ap;

    if (l->n >= LINE_ITEMS)
        return;
    va_start(ap, fmt);
    vsnprintf(l->text[l->n], sizeof(l->text[0]), fmt, ap);
    va_end(ap);
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
            int w = (int)strlen(l->text[i]) + (used ? 2 : 0);

            if (l->prio[i] == p && used + w <= width) {
                shown[i] = true;
                used += w;
            }
        }
    move(y, x);
    for (i = 0, used = 0; i < l->n; i++) {
        if (!shown[i])
            continue;
        if (used++)
            addstr("  ");
        if (l->color[i])
            ew_draw_color_on(color, l->color[i]);
        addstr(l->text[i]);
        if (l->color[i])
            ew_draw_color_off(color, l->color[i]);
    }
}

/* l's items in their order, whole, two spaces apart, from (y, x): an item
 * that does not fit goes to the next line, up to line end (each line
 * cleared across the screen first). Returns the next free line. */
int
ew_draw_items(const struct line *l, int y, int x, int width, int end)
{
    int used = 0, i;

    if (y >= end)
        return y;
    mvhline(y, 0, ' ', getmaxx(stdscr));
    for (i = 0; i < l->n; i++) {
        int w = (int)strlen(l->text[i]);

        if (used && used + 2 + w > width) {
            if (++y >= end)
                return y;
            mvhline(y, 0, ' ', getmaxx(stdscr));
            used = 0;
        }
        mvaddnstr(y, x + used + (used ? 2 : 0), l->text[i], width - used - (used ? 2 : 0));
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
    const char *p = text;
    int w = width;

    while (*p == ' ')
        p++;
    while (*p && y < end && w > 0) {
        int n = 0, last_space = -1;

        while (p[n] && n < w) {
            if (p[n] == ' ')
                last_space = n;
            n++;
        }
        if (p[n] && p[n] != ' ' && last_space > 0)
            n = last_space;
        mvaddnstr(y++, x, p, n);
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

/* a sparkline of a share (num/den per second), in ASCII so that any
 * terminal shows it; a second without packets is blank */
void
ew_draw_spark_share(int y, int x, int width, const struct ew_hist *h, const uint16_t *num,
            const uint16_t *den)
{
    int i, n = h ? h->n : 0, start;

    if (n > width)
        n = width;
    start = width - n;
    move(y, x);
    for (i = 0; i < width; i++) {
        char c = ' ';

        if (i >= start) {
            int k = (h->pos + EW_HIST_LEN - n + (i - start)) % EW_HIST_LEN;

            if (den[k]) {
                int lvl = (int)((double)num[k] / den[k] * 7 + 0.999);

                c = levels[lvl < 0 ? 0 : lvl > 7 ? 7 : lvl];
            }
        }
        addch((chtype)(unsigned char)c);
    }
}

/* The RTT of the last width seconds, drawn from the lowest to the highest
 * value shown, which *lo and *hi return (0 and 0: none). The height spans
 * at least a tenth of the highest value: a spread smaller than that (noise
 * on a short path) stays low instead of swinging full scale. */
void
ew_draw_spark_rtt(int y, int x, int width, const struct ew_hist *h, uint32_t *lo, uint32_t *hi)
{
    int i, n = h ? h->n : 0, start;
    double span;

    if (n > width)
        n = width;
    start = width - n;
    *lo = *hi = 0;
    for (i = 0; i < n; i++) {
        uint32_t v = h->s_rtt_us[(h->pos + EW_HIST_LEN - n + i) % EW_HIST_LEN];

        if (v && (!*lo || v < *lo))
            *lo = v;
        if (v > *hi)
            *hi = v;
    }
    span = (double)(*hi - *lo);
    if (span < *hi / 10.0)
        span = *hi / 10.0;
    move(y, x);
    for (i = 0; i < width; i++) {
        char c = ' ';

        if (i >= start) {
            uint32_t v = h->s_rtt_us[(h->pos + EW_HIST_LEN - n + (i - start)) % EW_HIST_LEN];

            if (v) {
                int lvl = span > 0 ? (int)((double)(v - *lo) / span * 7 + 0.5) : 0;

                c = levels[lvl < 0 ? 0 : lvl > 7 ? 7 : lvl];
            }
        }
        addch((chtype)(unsigned char)c);
    }
}

