/* bytes.h - the test generators' byte writers: big-endian 16 and 32 bits,
 * and little-endian 32 bits (pcap headers in this machine's order). */
#ifndef ECNWATCH_TOOLS_BYTES_H
#define ECNWATCH_TOOLS_BYTES_H

#include <stdint.h>

static inline void
put16(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 8);
    p[1] = (uint8_t)v;
}

static inline void
put32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

static inline void
putle32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}

#endif /* ECNWATCH_TOOLS_BYTES_H */
