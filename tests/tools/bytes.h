/* bytes.h - the test generators' byte writers: big-endian 16 and 32 bits,
 * little-endian 32 bits (pcap headers in this machine's order), and the
 * IPv4 header checksum. */
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

/* the IPv4 header checksum (RFC 791) over the 20-byte header at ip, whose
 * checksum field is zero, written into that field */
static inline void
put_ipv4_checksum(uint8_t *ip)
{
    uint32_t sum = 0, j;

    for (j = 0; j < 20; j += 2)
        sum += (uint32_t)(ip[j] << 8 | ip[j + 1]);
    while (sum >> 16)
        sum = (sum & 0xffff) + (sum >> 16);
    put16(ip + 10, ~sum & 0xffff);
}

#endif /* ECNWATCH_TOOLS_BYTES_H */
