/* negotiation.h - the ECN negotiation of a TCP flow as its handshake shows
 * it (RFC 3168 §6.1.1, RFC 9768 §3.1). Part of the inference layer: the
 * analyzer records the handshake's segments in the flow, the inference reads
 * the outcome from them. */
#ifndef ECNWATCH_NEGOTIATION_H
#define ECNWATCH_NEGOTIATION_H

struct ew_flow;

enum ew_neg {
    EW_NEG_NONE,
    EW_NEG_RFC3168,
    EW_NEG_ACCECN,
    EW_NEG_REFUSED,
    EW_NEG_BROKEN,
    EW_NEG_UNSEEN,
    EW_NEG_NA, /* not TCP */
};
extern const char *const ew_neg_name[];

/* the handshake as far as it was seen (RFC 3168 §6.1.1, RFC 9768 Table 2) */
enum ew_neg ew_flow_negotiation(const struct ew_flow *f);
/* The negotiation a SYN's and its SYN-ACK's (AE,CWR,ECE) codes (ew_tcp_ace)
 * make: none (the SYN asked for nothing), rfc3168, accecn, refused or broken. */
enum ew_neg ew_negotiation(unsigned syn, unsigned synack);

#endif /* ECNWATCH_NEGOTIATION_H */
