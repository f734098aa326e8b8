/* clock.h - the monotonic clock, in nanoseconds. */
#ifndef ECNWATCH_CLOCK_H
#define ECNWATCH_CLOCK_H

#include <stdint.h>

/* CLOCK_MONOTONIC as nanoseconds */
int64_t ew_mono_ns(void);

#endif /* ECNWATCH_CLOCK_H */
