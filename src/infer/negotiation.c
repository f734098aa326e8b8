/* negotiation.c - the ECN negotiation a TCP handshake shows (see
 * negotiation.h). The analyzer records the SYN and SYN-ACK in the flow; this
 * reads them. */
#include "infer/negotiation.h"

#include "dissectors/ecn.h"
#include "flow/flowtab.h"

const char *const ew_neg_name[] = {
    [EW_NEG_NONE] = "none",     [EW_NEG_RFC3168] = "rfc3168", [EW_NEG_ACCECN] = "accecn",
    [EW_NEG_REFUSED] = "refused", [EW_NEG_BROKEN] = "broken", [EW_NEG_UNSEEN] = "unseen",
    [EW_NEG_NA] = "none",
};

enum ew_neg
ew_flow_negotiation(const struct ew_flow *f)
{
    const struct ew_handshake *h = &f->hs;

    if (f->key.l4 != EW_L4_TCP)
        return EW_NEG_NA;
    if (h->syn_count == 0)
        return EW_NEG_UNSEEN;
    if (ew_tcp_ace(h->syn_flags) == 0)
        return EW_NEG_NONE; /* no ECN requested */
    if (h->synack_count == 0)
        return EW_NEG_UNSEEN; /* requested; the answer was not captured */
    return ew_negotiation(ew_tcp_ace(h->syn_flags), ew_tcp_ace(h->synack_flags));
}

enum ew_neg
ew_negotiation(unsigned syn, unsigned sa)
{
    if (syn == 0)
        return EW_NEG_NONE;
    /* RFC 9768 §3.1.2, Table 2: "Some older TCP Server implementations
     * incorrectly set the TCP-ECN flags in the SYN/ACK by reflecting those in
     * the SYN." */
    if (sa == syn && (syn == 3 || syn == 7))
        return EW_NEG_BROKEN;
    switch (sa) {
    case 0:
        return EW_NEG_REFUSED;
    case 1:
        /* ECE alone, RFC 3168 §6.1.1: "we call a SYN-ACK packet with only the
         * ECE flag set but the CWR flag not set an "ECN-setup SYN-ACK
         * packet"" */
    case 5:
        /* 101 to an AccECN SYN, RFC 9768 §3.1.3: "the Client MUST enable
         * AccECN mode as if the SYN/ACK confirmed that the Server supported
         * AccECN"; to a classic SYN it is ECE=1,CWR=0 with the former NS bit */
        return (sa == 5 && syn == 7) ? EW_NEG_ACCECN : EW_NEG_RFC3168;
    case 2:
    case 3:
    case 4:
    case 6:
        /* AccECN SYN-ACK codes, RFC 9768 §3.1.1: "The TCP Server MUST NOT set
         * one of these 4 combination of flags on the SYN/ACK unless the
         * preceding SYN requested support for AccECN" */
        return syn == 7 ? EW_NEG_ACCECN : EW_NEG_BROKEN;
    default:
        return EW_NEG_BROKEN;
    }
}
