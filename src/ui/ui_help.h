/* ui_help.h - the live view's help (h, ?): its keys, and a legend of every
 * column and glyph of the flow list and the detail pane. Lines of at most
 * EW_HELP_WIDTH columns, so that it fits a 60-column terminal; the view
 * scrolls it where it is taller than the screen. */
#ifndef ECNWATCH_UI_HELP_H
#define ECNWATCH_UI_HELP_H

#define EW_HELP_WIDTH 56

extern const char *const ew_help_lines[];
extern const int ew_help_count;

#endif /* ECNWATCH_UI_HELP_H */
