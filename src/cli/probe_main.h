/* probe_main.h - the --probe driver (probe_main.c): an active path probe
 * beside the two capture drivers (live.h, offline.h). */
#ifndef ECNWATCH_PROBE_MAIN_H
#define ECNWATCH_PROBE_MAIN_H

#include <signal.h>

struct ew_options;

/* The probe the options ask for; the exit status (cli.h). */
int ew_probe_main(const struct ew_options *o, volatile sig_atomic_t *stop);

#endif /* ECNWATCH_PROBE_MAIN_H */
