/* dissect.h - pure frame decoders: captured bytes in, struct ew_pkt out.
 * No I/O, no allocation, no libpcap. Work per frame is bounded by the frame's
 * length and the fixed depth limits in pkt.h. Tunnels are opened as
 * decap.h's configuration says (ew_decap_configure()). */
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

/* the decoders of each layer, for those who call one alone */
#include "dissectors/dissect_eth.h"
#include "dissectors/dissect_ip.h"
#include "dissectors/dissect_tcp.h"

#endif /* ECNWATCH_DISSECT_H */
