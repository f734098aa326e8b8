/* pkt.h - one decoded frame: a value struct per layer, copied out of the
 * captured bytes (nothing here points into them but l4_payload, which is
 * borrowed), plus anomaly events.
 *
 * Truncated (the capture ended early) and invalid (a field breaks its
 * protocol's rules) are separate events: a truncated header is unknown, an
 * invalid one is wrong.
 */
#ifndef ECNWATCH_PKT_H
#define ECNWATCH_PKT_H

#include <stdbool.h>
#include <stdint.h>

#include "dissectors/ecn.h"

/* The link types decoded: X(ID, name, text), one row each; the enum, the
 * names (ew_link_name), ecnwatch --list links and the checks of the docs
 * come from this list (HACKING.md, "A link type"). */
#define EW_LINK_TYPES(X) \
    X(ETHERNET, "EN10MB", "Ethernet, with 802.1Q/802.1ad tags") \
    X(SLL, "LINUX_SLL", "Linux cooked v1") \
    X(SLL2, "LINUX_SLL2", "Linux cooked v2") \
    X(RAW, "RAW", "raw IP, version from the first nibble") \
    X(IPV4, "IPV4", "raw IPv4") \
    X(IPV6, "IPV6", "raw IPv6") \
    X(NULL, "NULL", "BSD loopback, family in the capturing host's byte order") \
    X(LOOP, "LOOP", "OpenBSD loopback, family in network byte order") \
    X(PPP, "PPP", "PPP, with or without HDLC-like framing (also Cisco HDLC framing)") \
    X(CHDLC, "C_HDLC", "Cisco HDLC") \
    X(IPOIB, "IPOIB", "IP over InfiniBand, as libpcap writes it") \
    X(NFLOG, "NFLOG", "Linux NFLOG: packets the kernel's NFLOG target logged (tcpdump -i nflog:N)") \
    X(UNSUPPORTED, "unsupported", "a pcapng interface of a link type not decoded: frames undecodable")

enum ew_link {
#define EW_X(id, name, text) EW_LINK_##id,
    EW_LINK_TYPES(EW_X)
#undef EW_X
    EW_LINK_COUNT
};

#define EW_VLAN_MAX_DEPTH 2
#define EW_IPV6_EXT_MAX 8

/* The tunnels decapsulated: X(ID, name, text), one row each; the enum, the
 * names (ew_tunnel_name), ecnwatch --list tunnels, --decap's types and the
 * checks of the docs come from this list. */
#define EW_TUNNEL_TYPES(X) \
    X(IPIP, "ipip", "IPv4 or IPv6 in IPv4 or IPv6 (IP protocols 4 and 41)") \
    X(GRE, "gre", "GRE (RFC 2784, RFC 2890), its key the identifier") \
    X(ERSPAN, "erspan", "ERSPAN type I, II or III in GRE: mirrored frames, the session the identifier") \
    X(VXLAN, "vxlan", "VXLAN (RFC 7348), UDP port 4789, the VNI the identifier") \
    X(VXLAN_GPE, "vxlan-gpe", "VXLAN-GPE, UDP port 4790, the VNI the identifier") \
    X(NSH, "nsh", "Network Service Header (RFC 8300), the service path the identifier") \
    X(GENEVE, "geneve", "Geneve (RFC 8926), UDP port 6081, the VNI the identifier") \
    X(GTPU, "gtpu", "GTP-U G-PDUs (3GPP TS 29.281), UDP port 2152, the TEID the identifier") \
    X(MPLS, "mpls", "an MPLS label stack (RFC 3032), the top label the identifier") \
    X(MACSEC, "macsec", "MACsec (IEEE 802.1AE) not encrypted")

enum ew_tunnel {
#define EW_X(id, name, text) EW_TUN_##id,
    EW_TUNNEL_TYPES(EW_X)
#undef EW_X
    EW_TUN_COUNT
};

#define EW_TUNNEL_MAX_DEPTH 4
#define EW_MPLS_MAX_LABELS 8

/* One encapsulation passed through: its type, the IP header that carried it
 * (none for MPLS, MACsec and NSH, which ride on a link or another tunnel),
 * and its identifier where it has one. */
struct ew_encap {
    uint8_t type;    /* enum ew_tunnel */
    uint8_t family;  /* the outer IP header's, 4 or 6; 0: none of its own */
    uint8_t ecn;     /* that header's enum ew_ecn */
    uint8_t dscp;
    uint8_t labels;  /* MPLS: labels in the stack */
    bool has_id;
    uint32_t id;     /* VNI, GRE key, ERSPAN session, NSH service path, TEID,
                      * top MPLS label */
    uint8_t src[16], dst[16]; /* as in struct ew_pkt */
};

/* Anomaly events: X(ID, name, text), one row each; the enum, the names
 * (ew_event_name), ecnwatch --list events and the checks of the schema
 * come from this list. */
#define EW_EVENTS(X) \
    X(LINK_TRUNC, "link_truncated", "link header cut by the snaplen") \
    X(VLAN_TOO_DEEP, "vlan_too_deep", "more than 2 VLAN tags (EW_VLAN_MAX_DEPTH)") \
    X(NON_IP, "non_ip", "not IPv4/IPv6 (ARP, LLC, ...): not an anomaly, just counted") \
    X(IP_VERSION_BAD, "ip_version_bad", "version nibble disagrees with the link's protocol") \
    X(IPV4_TRUNC, "ipv4_truncated", "IPv4 header cut") \
    X(IPV4_HLEN_SMALL, "ipv4_header_length_small", "IHL below 5") \
    X(IPV4_TOTLEN_BAD, "ipv4_total_length_bad", "total length below the header length") \
    X(IPV4_FRAGMENT, "ipv4_later_fragment", "a non-first fragment: no ports") \
    X(IPV6_TRUNC, "ipv6_truncated", "IPv6 fixed header or an extension header cut") \
    X(IPV6_EXT_TOO_LONG, "ipv6_extension_chain_too_long", "more than 8 extension headers (EW_IPV6_EXT_MAX)") \
    X(IPV6_EXT_BAD, "ipv6_extension_header_bad", "an extension header longer than the payload") \
    X(IPV6_FRAGMENT, "ipv6_later_fragment", "a non-first fragment: no ports") \
    X(IP_LEN_SHORT, "ip_length_past_frame", "the IP length says more than the frame held on the wire") \
    X(TCP_SHORT, "tcp_segment_too_short", "the IP payload is shorter than a TCP header") \
    X(TCP_TRUNC, "tcp_truncated", "TCP fixed header cut") \
    X(TCP_DOFF_SMALL, "tcp_data_offset_small", "data offset below 5") \
    X(TCP_DOFF_PAST_END, "tcp_data_offset_past_end", "data offset past the end of the segment") \
    X(TCP_OPT_TRUNC, "tcp_options_truncated", "the option space was cut by the snaplen") \
    X(TCP_OPT_BADLEN, "tcp_option_length_bad", "an option length of 0 or 1, or a wrong fixed length") \
    X(TCP_OPT_OVERRUN, "tcp_option_overrun", "an option runs past the option space") \
    X(UDP_TRUNC, "udp_truncated", "UDP header cut") \
    X(UDP_LEN_BAD, "udp_length_bad", "UDP length below 8 or past the IP payload") \
    X(LINK_UNSUPPORTED, "link_type_unsupported", "a pcapng interface's link type is not decoded") \
    X(TUNNEL_TRUNC, "tunnel_truncated", "a tunnel header (GRE, ERSPAN, VXLAN, NSH, Geneve, GTP-U, MPLS, MACsec) cut") \
    X(TUNNEL_BAD, "tunnel_header_bad", "a tunnel header breaks its rules (version, flags, a length past its packet)") \
    X(TUNNEL_TOO_DEEP, "tunnel_too_deep", "more than 4 encapsulations (EW_TUNNEL_MAX_DEPTH): the packet as the 4th left it") \
    X(TUNNEL_NON_IP, "tunnel_inner_non_ip", "a tunnel's inner packet is not IP: the outer packet is counted") \
    X(MPLS_TOO_DEEP, "mpls_too_deep", "more than 8 MPLS labels (EW_MPLS_MAX_LABELS)") \
    X(MACSEC_ENCRYPTED, "macsec_encrypted", "MACsec with the E bit set: encrypted, not decoded")

enum ew_event {
#define EW_X(id, name, text) EW_EV_##id,
    EW_EVENTS(EW_X)
#undef EW_X
    EW_EV_COUNT
};

/* what became of the frame as a whole */
enum ew_pkt_status {
    EW_PKT_OK,        /* IP header decoded (the transport may still be missing) */
    EW_PKT_NON_IP,    /* a frame of another protocol: nothing to account */
    EW_PKT_UNDECODABLE /* no usable IP header: truncated or invalid below IP */
};

enum ew_l4 { EW_L4_NONE, EW_L4_TCP, EW_L4_UDP };

enum ew_accecn_field { EW_ACC_E0B, EW_ACC_CEB, EW_ACC_E1B };

struct ew_accecn_opt {
    bool present;
    uint8_t kind;      /* 172, 174, or 254 for the experimental encoding */
    uint8_t order;     /* 0: EE0B,ECEB,EE1B; 1: EE1B,ECEB,EE0B */
    uint8_t nfields;   /* whole 3-byte fields carried, 0..3 */
    uint8_t len;       /* option length byte */
    bool has[3];       /* indexed by enum ew_accecn_field */
    uint32_t val[3];   /* 24-bit counters, indexed by enum ew_accecn_field */
};

struct ew_tcp {
    uint16_t sport, dport;
    uint32_t seq, ack;
    uint16_t flags;    /* 9 bits, enum ew_tcp_flag */
    uint8_t doff;      /* header length in 32-bit words */
    uint16_t window;
    uint16_t csum;     /* the checksum as written (not verified): tells copies from resends */
    uint32_t payload;  /* from the IP length, not from what was captured */
    bool opts_complete; /* the whole option space was captured and parsed */
    /* options */
    bool has_mss, has_ws, has_sackperm, has_ts;
    uint16_t mss;
    uint8_t ws;
    uint8_t sack_blocks;
    uint32_t tsval, tsecr;
    struct ew_accecn_opt acc;
};

struct ew_udp {
    uint16_t sport, dport;
    uint16_t len;
    uint16_t csum;     /* as written, not verified; 0: none (IPv4 allows it) */
    uint32_t payload;
};

struct ew_pkt {
    /* link */
    enum ew_link link;
    uint32_t caplen;  /* bytes captured */
    uint32_t wirelen; /* bytes on the wire, as the capture claims */
    uint64_t frame_no; /* set by the reader after dissection: the frame's number in its
                        * file (1-based); 0 = unknown */
    uint8_t vlan_depth;
    uint16_t vlan_id[EW_VLAN_MAX_DEPTH];

    enum ew_pkt_status status;
    uint64_t events; /* bit (1 << enum ew_event) */

    /* network: valid when status == EW_PKT_OK */
    uint8_t family;   /* 4 or 6 */
    uint8_t src[16], dst[16]; /* IPv4 as v4-mapped IPv6 (::ffff:a.b.c.d) */
    enum ew_ecn ecn;
    uint8_t dscp;
    uint8_t ttl;      /* hop limit for IPv6 */
    uint8_t ip_proto; /* final next-header value */
    uint16_t ip_id;   /* IPv4 identification; 0 for IPv6 */
    uint32_t ip_len;  /* IP packet length from its header (header + payload) */
    bool fragment;    /* first fragment or non-first: any fragmentation */
    bool later_fragment; /* non-first fragment: no transport header */
    uint8_t ext_count; /* IPv6 extension headers walked */

    /* transport */
    enum ew_l4 l4;
    union {
        struct ew_tcp tcp;
        struct ew_udp udp;
    } u;
    /* offset from the frame start to the end of the transport header (TCP:
     * including options); 0 when no transport header was decoded */
    uint32_t l4_end;
    /* UDP: the payload as captured, clamped to the UDP length. Borrowed: it
     * points into the frame given to ew_dissect_frame() and is valid only
     * until that buffer is reused (the next frame); copy what must outlive
     * it. NULL and 0 when there is none. */
    const uint8_t *l4_payload;
    uint32_t l4_payload_len;

    /* the decoders' scratch: a tunnel met and not yet opened (decap.h) */
    uint8_t tun_next;         /* its enum ew_tunnel + 1; 0: none */
    uint32_t tun_at, tun_end; /* where its bytes start and end in the frame */

    /* Tunnels: the network and transport fields above describe the
     * innermost packet decoded; the encapsulations it came through are
     * here, outermost first. Only the first n_encap entries are set:
     * ew_dissect_frame() clears the count, not the array, so that a frame
     * without a tunnel costs nothing more (keep these two last). */
    uint8_t n_encap;
    struct ew_encap encap[EW_TUNNEL_MAX_DEPTH];
};

static inline void
ew_pkt_event(struct ew_pkt *p, enum ew_event ev)
{
    p->events |= (uint64_t)1 << ev;
}

static inline bool
ew_pkt_has_event(const struct ew_pkt *p, enum ew_event ev)
{
    return (p->events >> ev) & 1u;
}

extern const char *const ew_event_name[EW_EV_COUNT];
extern const char *const ew_event_text[EW_EV_COUNT]; /* what each means, one line */
extern const char *const ew_link_name[EW_LINK_COUNT];
extern const char *const ew_link_text[EW_LINK_COUNT];
extern const char *const ew_tunnel_name[EW_TUN_COUNT];
extern const char *const ew_tunnel_text[EW_TUN_COUNT];
/* the IANA keyword of a common IP protocol number in lower case ("tcp",
 * "icmp", "ipv6-icmp", "sctp", "gre", "esp", ...), NULL for the others */
const char *ew_ip_proto_name(unsigned proto);

#endif /* ECNWATCH_PKT_H */
