/* dissect.h - pure frame decoders: captured bytes in, struct ew_pkt out.
 * No I/O, no allocation, no libpcap. Work per frame is bounded by the frame's
 * length and the fixed depth limits in pkt.h. */
#ifndef ECNWATCH_DISSECT_H
#define ECNWATCH_DISSECT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dissectors/cursor.h"
#include "dissectors/pkt.h"

/* Decode one frame of `caplen` captured bytes. `wirelen` is the length on the
 * wire as the capture claims it; it is used only to tell a short capture from
 * an IP length that lies, never as a bound. Always fills *pkt. */
void ew_dissect_frame(enum ew_link link, const uint8_t *data, size_t caplen, uint32_t wirelen,
                      struct ew_pkt *pkt);

/* per-layer entry points; each reads from the cursor and fills pkt */
void ew_dissect_ip(struct ew_cur *c, uint16_t ethertype_hint, struct ew_pkt *pkt,
                   const uint8_t *frame_start);
/* An Ethernet header (inner: a frame inside a tunnel, its VLAN tags walked
 * but not recorded, a cut header a tunnel's), then what its EtherType
 * names; ew_dissect_ethertype() from the EtherType on. */
void ew_dissect_ether(struct ew_cur *c, struct ew_pkt *pkt, const uint8_t *frame_start, bool inner);
void ew_dissect_ethertype(struct ew_cur *c, uint16_t type, struct ew_pkt *pkt,
                          const uint8_t *frame_start, bool inner);
void ew_dissect_ipv4(struct ew_cur *c, struct ew_pkt *pkt, const uint8_t *frame_start);
void ew_dissect_ipv6(struct ew_cur *c, struct ew_pkt *pkt, const uint8_t *frame_start);
void ew_dissect_tcp(struct ew_cur *c, uint32_t seglen, struct ew_pkt *pkt,
                    const uint8_t *frame_start);
void ew_dissect_udp(struct ew_cur *c, uint32_t seglen, struct ew_pkt *pkt,
                    const uint8_t *frame_start);

#endif /* ECNWATCH_DISSECT_H */
