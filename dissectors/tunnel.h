/* tunnel.h - decapsulation (tunnel.c): the tunnels the decoders met
 * opened, by the frame driver, as decap.h's configuration says.
 *
 * A frame's network and transport fields describe its innermost packet;
 * the encapsulations passed through are recorded in struct ew_pkt's encap[]
 * (pkt.h). A tunnel whose inner packet cannot be decoded (cut, invalid, not
 * IP) leaves the frame as it was before the tunnel, with the events that say
 * why; beyond EW_TUNNEL_MAX_DEPTH the frame stays at the last IP packet
 * decoded. */
#ifndef ECNWATCH_TUNNEL_H
#define ECNWATCH_TUNNEL_H

#include <stdint.h>

#include "dissectors/pkt.h"

/* Open the tunnel noted in pkt (tun_next, ew_decap_note()), and each one
 * its inner packet leads to, in the frame that starts at fs. */
void ew_decap_open(struct ew_pkt *pkt, const uint8_t *fs);

#endif /* ECNWATCH_TUNNEL_H */
