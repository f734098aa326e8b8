/* ecn.h - ECN codepoints (RFC 3168 §5), TCP ECN header bits (RFC 3168 §23.2,
 * RFC 9768 §7) and their names. Values and spelling follow Linux inet_ecn.h. */
#ifndef ECNWATCH_ECN_H
#define ECNWATCH_ECN_H

#include <stdbool.h>
#include <stdint.h>

/* The codepoint, taken from the header once (ew_ecn_from_tc) and passed on
 * as this enum from there: its values are 0..3, never masked again. Kept in
 * a record as a uint8_t, it is still one of these. */
enum ew_ecn {
    EW_ECN_NOT_ECT = 0,
    EW_ECN_ECT_1 = 1,
    EW_ECN_ECT_0 = 2,
    EW_ECN_CE = 3,
};

static inline bool
ew_ecn_is_ce(enum ew_ecn ecn)
{
    return ecn == EW_ECN_CE;
}

static inline bool
ew_ecn_is_not_ect(enum ew_ecn ecn)
{
    return ecn == EW_ECN_NOT_ECT;
}

/* ECT(0) or ECT(1); deliberately false for CE (no "is_capable" here) */
static inline bool
ew_ecn_is_ect(enum ew_ecn ecn)
{
    return ecn == EW_ECN_ECT_0 || ecn == EW_ECN_ECT_1;
}

/* IPv4: low two bits of the TOS octet. IPv6: low two bits of the Traffic
 * Class, bits 20-21 of the first 32-bit word. Both families go through here:
 * the only place the two bits are taken out of a header. */
static inline enum ew_ecn
ew_ecn_from_tc(uint8_t tos_or_tclass)
{
    return (enum ew_ecn)(tos_or_tclass & 3u);
}

/* TCP flag bits as a 9-bit value: the low 8 bits are header byte 13, bit 8 is
 * the low bit of byte 12 (AE, formerly NS, ESCE in SCE). */
enum ew_tcp_flag {
    EW_TCP_FIN = 0x001,
    EW_TCP_SYN = 0x002,
    EW_TCP_RST = 0x004,
    EW_TCP_PSH = 0x008,
    EW_TCP_ACK = 0x010,
    EW_TCP_URG = 0x020,
    EW_TCP_ECE = 0x040,
    EW_TCP_CWR = 0x080,
    EW_TCP_AE = 0x100,
};
#define EW_TCP_SYN_ECN_SETUP (EW_TCP_SYN | EW_TCP_ECE | EW_TCP_CWR)

/* AccECN ACE field (RFC 9768 §3.2.2): (AE<<2)|(CWR<<1)|ECE */
static inline unsigned
ew_tcp_ace(uint16_t flags)
{
    return ((flags & EW_TCP_AE) ? 4u : 0u) | ((flags & EW_TCP_CWR) ? 2u : 0u) |
           ((flags & EW_TCP_ECE) ? 1u : 0u);
}

/* RFC 9768 §3.1.2 Table 2 and §3.2.2.1 Table 3: the codepoint an AccECN
 * handshake code ((AE,CWR,ECE), ew_tcp_ace) says a packet arrived with; -1
 * for codes that say nothing */
static inline int
ew_accecn_code_cp(unsigned code)
{
    switch (code) {
    case 2:
        return EW_ECN_NOT_ECT;
    case 3:
        return EW_ECN_ECT_1;
    case 4:
        return EW_ECN_ECT_0;
    case 6:
        return EW_ECN_CE;
    default:
        return -1;
    }
}

/* names indexed by codepoint value */
extern const char *const ew_ecn_name[4]; /* "Not-ECT", "ECT(1)", "ECT(0)", "CE" */
extern const char *const ew_ecn_key[4];  /* "not_ect", "ect1", "ect0", "ce" */

#endif /* ECNWATCH_ECN_H */
