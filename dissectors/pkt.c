/* pkt.c - the names of codepoints, anomaly events, link types and IP
 * protocols, as every output prints them (declared in ecn.h and pkt.h beside
 * the values they name): constant tables, at the bottom of the tree. */
#include "dissectors/ecn.h"
#include "dissectors/pkt.h"

#include <stddef.h>

const char *const ew_ecn_name[4] = {"Not-ECT", "ECT(1)", "ECT(0)", "CE"};
const char *const ew_ecn_key[4] = {"not_ect", "ect1", "ect0", "ce"};

const char *const ew_event_name[EW_EV_COUNT] = {
    [EW_EV_LINK_TRUNC] = "link_truncated",
    [EW_EV_VLAN_TOO_DEEP] = "vlan_too_deep",
    [EW_EV_NON_IP] = "non_ip",
    [EW_EV_IP_VERSION_BAD] = "ip_version_bad",
    [EW_EV_IPV4_TRUNC] = "ipv4_truncated",
    [EW_EV_IPV4_HLEN_SMALL] = "ipv4_header_length_small",
    [EW_EV_IPV4_TOTLEN_BAD] = "ipv4_total_length_bad",
    [EW_EV_IPV4_FRAGMENT] = "ipv4_later_fragment",
    [EW_EV_IPV6_TRUNC] = "ipv6_truncated",
    [EW_EV_IPV6_EXT_TOO_LONG] = "ipv6_extension_chain_too_long",
    [EW_EV_IPV6_EXT_BAD] = "ipv6_extension_header_bad",
    [EW_EV_IPV6_FRAGMENT] = "ipv6_later_fragment",
    [EW_EV_IP_LEN_SHORT] = "ip_length_past_frame",
    [EW_EV_TCP_SHORT] = "tcp_segment_too_short",
    [EW_EV_TCP_TRUNC] = "tcp_truncated",
    [EW_EV_TCP_DOFF_SMALL] = "tcp_data_offset_small",
    [EW_EV_TCP_DOFF_PAST_END] = "tcp_data_offset_past_end",
    [EW_EV_TCP_OPT_TRUNC] = "tcp_options_truncated",
    [EW_EV_TCP_OPT_BADLEN] = "tcp_option_length_bad",
    [EW_EV_TCP_OPT_OVERRUN] = "tcp_option_overrun",
    [EW_EV_UDP_TRUNC] = "udp_truncated",
    [EW_EV_UDP_LEN_BAD] = "udp_length_bad",
    [EW_EV_LINK_UNSUPPORTED] = "link_type_unsupported",
};

const char *const ew_link_name[EW_LINK_COUNT] = {
    [EW_LINK_ETHERNET] = "EN10MB", [EW_LINK_SLL] = "LINUX_SLL", [EW_LINK_SLL2] = "LINUX_SLL2",
    [EW_LINK_RAW] = "RAW",         [EW_LINK_IPV4] = "IPV4",     [EW_LINK_IPV6] = "IPV6",
    [EW_LINK_NULL] = "NULL",       [EW_LINK_LOOP] = "LOOP",     [EW_LINK_PPP] = "PPP",
    [EW_LINK_CHDLC] = "C_HDLC",    [EW_LINK_IPOIB] = "IPOIB",   [EW_LINK_UNSUPPORTED] = "unsupported",
};

const char *
ew_ip_proto_name(unsigned proto)
{
    /* IANA "Assigned Internet Protocol Numbers", keywords in lower case */
    switch (proto) {
    case 1: return "icmp";
    case 2: return "igmp";
    case 4: return "ipv4";
    case 6: return "tcp";
    case 17: return "udp";
    case 33: return "dccp";
    case 41: return "ipv6";
    case 46: return "rsvp";
    case 47: return "gre";
    case 50: return "esp";
    case 51: return "ah";
    case 58: return "ipv6-icmp";
    case 89: return "ospf";
    case 103: return "pim";
    case 112: return "vrrp";
    case 115: return "l2tp";
    case 132: return "sctp";
    case 136: return "udplite";
    case 137: return "mpls-in-ip";
    default: return NULL;
    }
}
