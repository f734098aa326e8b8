/* ui_curses_lib.h - ncurses, loaded when the live view starts (base/dynlib.h):
 * ecnwatch is not linked against it. ui_curses_lib.c defines the curses
 * functions the view calls (and stdscr, curscr) as calls into the library
 * loaded, so that the view's code is written as for a linked ncurses. */
#ifndef ECNWATCH_UI_CURSES_LIB_H
#define ECNWATCH_UI_CURSES_LIB_H

#include <stddef.h>

/* Load ncurses, before any curses call: 0, or -1 with err set to one line. */
int ew_curses_load(char *err, size_t errlen);

#endif /* ECNWATCH_UI_CURSES_LIB_H */
