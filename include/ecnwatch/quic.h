/* quic.h - QUIC as a passive observer can read it without keys: long and
 * short headers, version negotiation and coalesced packets (RFC 9000 §17,
 * §12.2; RFC 8999), for versions 1 and 2 (RFC 9369), and the Initial packets,
 * whose protection derives from the client's Destination Connection ID alone
 * (RFC 9001 §5.2). The Initial ACK frames carry ECN counts (RFC 9000
 * §19.3.2): each direction's Initial packets are validated against them the
 * way their sender validates them (RFC 9000 §13.4.2.1).
 *
 * The parts, one header each:
 *   dissect_quic.h  headers and frames: pure decoders (dissectors/)
 *   quic_crypto.h   Initial keys, header protection, AEAD (OpenSSL)
 *   quic_conn.h     per-connection state, fed one datagram at a time
 *   quic_infer.h    ACK-ECN validation and the conclusions
 *   quic_json.h     the report's "quic" object
 * Calls go one way: quic_conn.c calls the decoders, the crypto and, for
 * each Initial ACK, the validation (which only reads and writes the state's
 * per-direction struct); quic_json.c calls the conclusions; the crypto and
 * the decoders call nothing of QUIC above them.
 */
#ifndef ECNWATCH_QUIC_H
#define ECNWATCH_QUIC_H

#include "ecnwatch/dissect_quic.h"
#include "ecnwatch/quic_conn.h"
#include "ecnwatch/quic_crypto.h"
#include "ecnwatch/quic_infer.h"
#include "ecnwatch/quic_json.h"

#endif /* ECNWATCH_QUIC_H */
