/* ui_curses_lib.c - the curses functions of the live view, called in the
 * ncurses loaded by ew_curses_load() (see ui_curses_lib.h). Only these are
 * defined: a view that calls another curses function does not link, and it
 * is added here. */
#include "ui/ui_curses_lib.h"

#include <curses.h>
#include <stdbool.h>

#include "base/dynlib.h"

#ifndef CURSES_SONAME
#define CURSES_SONAME "libncursesw.so." EW_DYNLIB_STR(NCURSES_VERSION_MAJOR)
#endif

/* return type, name, parameters, arguments */
#define CURSES_FUNCS(X)                                                                        \
    X(int, cbreak, (void), ())                                                                 \
    X(int, clearok, (WINDOW *w, bool b), (w, b))                                               \
    X(int, curs_set, (int v), (v))                                                             \
    X(int, endwin, (void), ())                                                                 \
    X(bool, has_colors, (void), ())                                                            \
    X(int, init_pair, (NCURSES_PAIRS_T p, NCURSES_COLOR_T f, NCURSES_COLOR_T b), (p, f, b))    \
    X(int, keypad, (WINDOW *w, bool b), (w, b))                                                \
    X(int, nodelay, (WINDOW *w, bool b), (w, b))                                               \
    X(int, noecho, (void), ())                                                                 \
    X(int, nonl, (void), ())                                                                   \
    X(int, start_color, (void), ())                                                            \
    X(int, use_default_colors, (void), ())                                                     \
    X(int, waddch, (WINDOW *w, const chtype c), (w, c))                                        \
    X(int, waddnstr, (WINDOW *w, const char *s, int n), (w, s, n))                             \
    X(int, wattr_off, (WINDOW *w, attr_t a, void *o), (w, a, o))                               \
    X(int, wattr_on, (WINDOW *w, attr_t a, void *o), (w, a, o))                                \
    X(int, werase, (WINDOW *w), (w))                                                           \
    X(int, wgetch, (WINDOW *w), (w))                                                           \
    X(int, whline, (WINDOW *w, chtype c, int n), (w, c, n))                                    \
    X(int, wmove, (WINDOW *w, int y, int x), (w, y, x))                                        \
    X(int, wrefresh, (WINDOW *w), (w))

#define CU_PTR(ret, f, params, args) __typeof__(f) *f;
#define CU_NAME(ret, f, params, args) #f,
static struct {
    CURSES_FUNCS(CU_PTR)
    __typeof__(initscr) *initscr;
    WINDOW **stdscr, **curscr; /* the library's own */
} cu;

/* the view reads these (curses.h's macros); set from the library's own
 * once initscr() has made them */
WINDOW *stdscr, *curscr;

int
ew_curses_load(char *err, size_t errlen)
{
    static const char *const names[] = {CURSES_FUNCS(CU_NAME) "initscr", "stdscr", "curscr",
                                        NULL};

    if (cu.initscr)
        return 0;
    return ew_dynlib_load(CURSES_SONAME, "the live view", names, &cu, sizeof(cu), err, errlen);
}

#define CU_CALL(ret, f, params, args)                                                          \
    ret f params { return cu.f args; }
CURSES_FUNCS(CU_CALL)

WINDOW *
initscr(void)
{
    WINDOW *w = cu.initscr();

    stdscr = *cu.stdscr;
    curscr = *cu.curscr;
    return w;
}
