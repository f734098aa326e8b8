/* sat.h - counters that stop at their type's largest value instead of
 * wrapping (the time series' bins) */
#ifndef ECNWATCH_SAT_H
#define ECNWATCH_SAT_H

#include <stdint.h>

static inline uint16_t
ew_sat_add16(uint16_t a, uint64_t b)
{
    return b > (uint64_t)(UINT16_MAX - a) ? UINT16_MAX : (uint16_t)(a + b);
}

static inline uint32_t
ew_sat_add32(uint32_t a, uint64_t b)
{
    return b > (uint64_t)(UINT32_MAX - a) ? UINT32_MAX : (uint32_t)(a + b);
}

#endif /* ECNWATCH_SAT_H */
