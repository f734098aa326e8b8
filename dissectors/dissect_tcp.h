/* dissect_tcp.h - the TCP and UDP headers (dissect_tcp.c): seglen bytes of
 * IP payload from the cursor on. */
#ifndef ECNWATCH_DISSECT_TCP_H
#define ECNWATCH_DISSECT_TCP_H

#include <stdint.h>

#include "dissectors/cursor.h"
#include "dissectors/pkt.h"

void ew_dissect_tcp(struct ew_cur *c, uint32_t seglen, struct ew_pkt *pkt,
                    const uint8_t *frame_start);
void ew_dissect_udp(struct ew_cur *c, uint32_t seglen, struct ew_pkt *pkt,
                    const uint8_t *frame_start);

#endif /* ECNWATCH_DISSECT_TCP_H */
