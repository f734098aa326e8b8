/* live.h - live capture: one thread, one poll loop over the capture
 * descriptor, the keyboard and the refresh timer; an ncurses view when
 * standard output is a terminal, an NDJSON stream otherwise. */
#ifndef ECNWATCH_LIVE_H
#define ECNWATCH_LIVE_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "output/output.h"

/* Run until q, a signal (the flag becomes non-zero), -c, or an error.
 * Returns the exit status (see ecnwatch(1)). */
int ew_live_run(const struct ew_run_cfg *cfg, volatile sig_atomic_t *stop);

#endif /* ECNWATCH_LIVE_H */
