/* dissect_eth.h - Ethernet and what an EtherType leads to, on a link or
 * inside a tunnel (dissect_eth.c). */
#ifndef ECNWATCH_DISSECT_ETH_H
#define ECNWATCH_DISSECT_ETH_H

#include <stdbool.h>
#include <stdint.h>

#include "dissectors/cursor.h"
#include "dissectors/pkt.h"

/* An Ethernet header (inner: a frame inside a tunnel, its VLAN tags walked
 * but not recorded, a cut header a tunnel's), then what its EtherType
 * names; ew_dissect_ethertype() from the EtherType on (VLAN tags first). */
void ew_dissect_ether(struct ew_cur *c, struct ew_pkt *pkt, const uint8_t *frame_start, bool inner);
void ew_dissect_ethertype(struct ew_cur *c, uint16_t type, struct ew_pkt *pkt,
                          const uint8_t *frame_start, bool inner);
/* IPv4 or IPv6 by the EtherType, a tunnel's noted, anything else non-IP */
void ew_dissect_ip_or_other(struct ew_cur *c, uint16_t type, struct ew_pkt *pkt,
                            const uint8_t *frame_start);

#endif /* ECNWATCH_DISSECT_ETH_H */
