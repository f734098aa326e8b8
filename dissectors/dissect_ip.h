/* dissect_ip.h - IPv4 and IPv6 and the transport demux (dissect_ip.c); each
 * reads from the cursor and fills pkt. */
#ifndef ECNWATCH_DISSECT_IP_H
#define ECNWATCH_DISSECT_IP_H

#include <stdint.h>

#include "dissectors/cursor.h"
#include "dissectors/pkt.h"

/* by the EtherType (0x0800, 0x86dd), or by the version nibble when it is 0 */
void ew_dissect_ip(struct ew_cur *c, uint16_t ethertype_hint, struct ew_pkt *pkt,
                   const uint8_t *frame_start);
void ew_dissect_ipv4(struct ew_cur *c, struct ew_pkt *pkt, const uint8_t *frame_start);
void ew_dissect_ipv6(struct ew_cur *c, struct ew_pkt *pkt, const uint8_t *frame_start);

#endif /* ECNWATCH_DISSECT_IP_H */
