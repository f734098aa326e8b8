/* pkt.c - the names of codepoints, anomaly events, link types, tunnels and
 * IP protocols, as every output prints them (declared in ecn.h and pkt.h
 * beside the values they name): constant tables, at the bottom of the tree. */
#include "dissectors/ecn.h"
#include "dissectors/pkt.h"

#include <stddef.h>

const char *const ew_ecn_name[4] = {"Not-ECT", "ECT(1)", "ECT(0)", "CE"};
const char *const ew_ecn_key[4] = {"not_ect", "ect1", "ect0", "ce"};

const char *const ew_event_name[EW_EV_COUNT] = {
#define EW_X(id, name, text) [EW_EV_##id] = name,
    EW_EVENTS(EW_X)
#undef EW_X
};
const char *const ew_event_text[EW_EV_COUNT] = {
#define EW_X(id, name, text) [EW_EV_##id] = text,
    EW_EVENTS(EW_X)
#undef EW_X
};

const char *const ew_link_name[EW_LINK_COUNT] = {
#define EW_X(id, name, text) [EW_LINK_##id] = name,
    EW_LINK_TYPES(EW_X)
#undef EW_X
};
const char *const ew_link_text[EW_LINK_COUNT] = {
#define EW_X(id, name, text) [EW_LINK_##id] = text,
    EW_LINK_TYPES(EW_X)
#undef EW_X
};

const char *const ew_tunnel_name[EW_TUN_COUNT] = {
#define EW_X(id, name, text) [EW_TUN_##id] = name,
    EW_TUNNEL_TYPES(EW_X)
#undef EW_X
};
const char *const ew_tunnel_text[EW_TUN_COUNT] = {
#define EW_X(id, name, text) [EW_TUN_##id] = text,
    EW_TUNNEL_TYPES(EW_X)
#undef EW_X
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
