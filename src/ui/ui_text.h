/* ui_text.h - the live view's text as the terminal can show it. The
 * sentences ecnwatch writes are UTF-8 (a finding cites "RFC 3168 §6.1.3").
 * On a terminal whose locale is UTF-8 they are shown as they are; on any
 * other they are written in ASCII ("§" as "sect. ", a dash as "-", anything
 * else unknown as "?"), never as blanks. Widths are in columns of the
 * terminal, not bytes. No curses here: the drawing is in ui_draw.c. */
#ifndef ECNWATCH_UI_TEXT_H
#define ECNWATCH_UI_TEXT_H

#include <stdbool.h>
#include <stddef.h>

/* Whether the terminal takes UTF-8 (set once, when the view starts: the
 * locale's LC_CTYPE codeset is UTF-8). Off by default. */
void ew_text_set_utf8(bool on);
bool ew_text_utf8(void);

/* in, as the terminal shows it, into out (always terminated, cut on a
 * character's boundary): UTF-8 kept when the terminal takes it, else
 * written in ASCII; control characters and malformed bytes become "?".
 * Returns out. */
const char *ew_text_shown(const char *in, char *out, size_t len);

/* The columns a shown text takes (of ew_text_shown()'s output). */
int ew_text_width(const char *s);

/* The bytes of the start of a shown text that take at most cols columns,
 * whole characters only; *used gets their columns (may be NULL). */
size_t ew_text_fit(const char *s, int cols, int *used);

#endif /* ECNWATCH_UI_TEXT_H */
