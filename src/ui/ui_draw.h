/* ui_draw.h - the live view's drawing pieces (ui_draw.c): text clipped to
 * the screen, lines of items shown whole or not at all, wrapped sentences,
 * numbers with units, and ASCII sparklines. Text is shown as the terminal
 * can show it (ui_text.h): UTF-8 as such on a UTF-8 terminal, else in
 * ASCII, and measured in columns. A pane taller than its room is drawn
 * through a clip (ew_draw_clip): its lines are laid out as if the screen
 * had no end, and only those that fall in the clip are drawn, shifted up by
 * the pane's scroll. ncurses must be started. */
#ifndef ECNWATCH_UI_DRAW_H
#define ECNWATCH_UI_DRAW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ui/ui_hist.h"

/* A line of items, each shown whole or not at all: the items are taken in
 * order of importance while they fit, and shown in their own order. */
#define LINE_ITEMS 16
struct line {
    char text[LINE_ITEMS][160];
    int prio[LINE_ITEMS]; /* 0 first */
    int color[LINE_ITEMS];
    int n;
};

/* From now on, a line y is drawn on screen line y - shift, and only when
 * that is in [top, bottom); top == bottom draws nothing (a measure). */
void ew_draw_clip(int top, int bottom, int shift);
/* lines are drawn where they are */
void ew_draw_noclip(void);

/* print at (y, x), clipped to the screen's width; a text cut there ends in
 * ">" at the last column */
void ew_draw_put(int y, int x, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* a blank line of n columns from (y, x), in the current attributes */
void ew_draw_blank(int y, int x, int n);
void ew_draw_color_on(bool color, int pair);
void ew_draw_color_off(bool color, int pair);
void ew_draw_fmt_si(double v, char *buf, size_t len);
void ew_draw_fmt_us(double us, char *buf, size_t len);
void ew_draw_item(struct line *l, int prio, int color, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
void ew_draw_line(bool color, const struct line *l, int y, int x, int width);
int ew_draw_items(const struct line *l, int y, int x, int width, int end);
int ew_draw_wrap(int y, int x, int width, int indent, int end, const char *text);
void ew_draw_spark_share(int y, int x, int width, const struct ew_hist *h, const uint16_t *num, const uint16_t *den);
void ew_draw_spark_rtt(int y, int x, int width, const struct ew_hist *h, uint32_t *lo, uint32_t *hi);
/* The queueing delay of the last width seconds from v (h->s_qd_seq or
 * h->s_qd_up: us + 1, 0 none), drawn from 0 to the highest shown, which
 * *hi returns in us (0: none shown); *any: a second with a sample */
void ew_draw_spark_qd(int y, int x, int width, const struct ew_hist *h, const uint32_t *v,
                      uint32_t *hi, int *any);

#endif /* ECNWATCH_UI_DRAW_H */
