/* offline.h - reading captures (-r): the live driver's counterpart (live.h).
 * One capture is read to its end, -c or a signal, and analysed; several are
 * the same traffic captured along its path, upstream first: the first is
 * analysed, and each is matched against the one before it (pathcmp.h). The
 * outputs are written once, at the end (run.h): the text summary, --json,
 * --ndjson's summary, -o, --metrics-file, --plot. */
#ifndef ECNWATCH_OFFLINE_H
#define ECNWATCH_OFFLINE_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "output/output.h"

/* Read, analyse, and write the outputs; the flag becoming non-zero (a
 * signal) stops the reading, and what was read is reported. Returns the exit
 * status (see ecnwatch(1)). */
int ew_offline_run(const struct ew_run_cfg *cfg, volatile sig_atomic_t *stop);

#endif /* ECNWATCH_OFFLINE_H */
