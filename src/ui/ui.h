/* ui.h - the ncurses live view. The view reads the analyzer between packets
 * (single thread) and keeps only its own small state: the sort key, the
 * filter, the selection, a short per-second history of a few flows for the
 * sparklines, and what its counts start from after c. It never changes the
 * analyzer: what the outputs get at the end is the whole capture. */
#ifndef ECNWATCH_UI_H
#define ECNWATCH_UI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine/analyze.h"

/* what a key did, as a bitmask */
enum {
    EW_UI_HANDLED = 1,
    EW_UI_REDRAW = 2,
    EW_UI_QUIT = 4,
    EW_UI_CLEAR = 8, /* the user asked to clear the view: call ew_ui_clear() */
};

struct ew_ui_status {
    const char *iface;
    uint64_t frames;
    double pkts_per_s;
    uint64_t kernel_drops;
    bool drops_known;
    int64_t now_ns;
};

struct ew_ui;

/* Start curses on the terminal (loading ncurses first); NULL (and the
 * terminal untouched) on failure, with err set to one line. */
struct ew_ui *ew_ui_start(char *err, size_t errlen);
/* Restore the terminal; safe to call twice and with NULL. */
void ew_ui_stop(struct ew_ui *ui);
/* Read and handle the keys waiting; returns the union of their results. */
int ew_ui_keys(struct ew_ui *ui);
/* once per second: record the per-second history */
void ew_ui_sample(struct ew_ui *ui, const struct ew_analyzer *an);
/* draw the pass p (of every flow held, with bottlenecks), just built */
struct ew_pass;
void ew_ui_draw(struct ew_ui *ui, const struct ew_pass *p, const struct ew_ui_status *st);
/* the user paused the display */
bool ew_ui_paused(const struct ew_ui *ui);
/* Clear the view (c): its counts, shares and sparklines start from what an
 * holds now, and flows with no packet since are not listed. The analyzer is
 * left as it is, so that -o, -w, --plot, --metrics-file and --ndjson still
 * get every packet. */
void ew_ui_clear(struct ew_ui *ui, const struct ew_analyzer *an);

#endif /* ECNWATCH_UI_H */
