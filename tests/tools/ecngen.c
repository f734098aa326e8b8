/* ecngen.c - capture generator for the tests.
 *
 *   ecngen relink LINK IN OUT
 *       Re-encapsulate every IP packet of an Ethernet capture IN under another
 *       link type, so that one real capture exercises every link decoder:
 *       vlan (802.1Q), qinq (802.1ad + 802.1Q), sll, sll2, raw, ipv4, ipv6
 *       (only packets of that family), null (BSD, little-endian AF), loop,
 *       ppp (RFC 1662 framing), chdlc (Cisco HDLC), nflog (Linux NFLOG, a
 *       little-endian host's TLVs), ipoib (IP over
 *       InfiniBand, libpcap's 44-byte header).
 *       Frames with VLAN tags or non-IP ethertypes in IN are copied unchanged
 *       for vlan/qinq and skipped otherwise.
 *
 *   ecngen hostile KIND OUT
 *       Write a small malformed or unusual capture of one KIND (ecngen
 *       hostile without arguments lists them); tests/hostile.sh states what
 *       ecnwatch must make of each.
 *
 *   ecngen udp-oneway OUT
 *       Write one bidirectional UDP flow, ECT(1) and CE from the client
 *       (small datagrams), Not-ECT from the server (fewer, larger ones).
 *
 *   ecngen ptp-ce OUT
 *       Write PTP (IEEE 1588v2 over UDP/IPv6, link-local, hop limit 1)
 *       between fe80::1 and fe80::2 over 4 s: fe80::1 sends Sync (port 319)
 *       and Follow_Up (320) every 250 ms and a Delay_Resp (320) to each
 *       Delay_Req to fe80::2, and joins the peer-delay exchange on ff02::6b
 *       (Pdelay_Req 319 each second, Pdelay_Resp 319 and
 *       Pdelay_Resp_Follow_Up 320 to fe80::2's): 60 packets, every one CE
 *       from the first and none ECT (a stack that sets the traffic class to
 *       3 itself). fe80::2 answers Not-ECT: Delay_Req every 250 ms, the
 *       peer-delay exchange the other way (28 packets).
 *
 *   ecngen flood OUT N [udp]
 *       Write N TCP SYNs, each from its own pseudo-random address (a fixed
 *       sequence, no two alike) and port, 1 us apart: N flows; with udp,
 *       one UDP datagram each instead.
 */
#include <errno.h>
#include <stdbool.h>
#include <pcap/pcap.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bytes.h"

#ifndef DLT_LINUX_SLL2
#define DLT_LINUX_SLL2 276
#endif
#ifndef DLT_IPV4
#define DLT_IPV4 228
#endif
#ifndef DLT_NFLOG
#define DLT_NFLOG 239
#endif
#ifndef DLT_IPOIB
#define DLT_IPOIB 242
#endif
#ifndef DLT_IPV6
#define DLT_IPV6 229
#endif

#define MAXFRAME 262144

static int
link_dlt(const char *name)
{
    if (!strcmp(name, "vlan") || !strcmp(name, "qinq"))
        return DLT_EN10MB;
    if (!strcmp(name, "sll"))
        return DLT_LINUX_SLL;
    if (!strcmp(name, "sll2"))
        return DLT_LINUX_SLL2;
    if (!strcmp(name, "raw"))
        return DLT_RAW;
    if (!strcmp(name, "ipv4"))
        return DLT_IPV4;
    if (!strcmp(name, "ipv6"))
        return DLT_IPV6;
    if (!strcmp(name, "null"))
        return DLT_NULL;
    if (!strcmp(name, "loop"))
        return DLT_LOOP;
    if (!strcmp(name, "ppp"))
        return DLT_PPP;
    if (!strcmp(name, "chdlc"))
        return DLT_C_HDLC;
    if (!strcmp(name, "ipoib"))
        return DLT_IPOIB;
    if (!strcmp(name, "nflog"))
        return DLT_NFLOG;
    return -1;
}

/* build the new link header for an IP packet of ethertype `et` and iplen
 * bytes on the wire; returns its length */
static size_t
make_header(const char *link, const uint8_t *eth, uint16_t et, size_t iplen, uint8_t *out)
{
    if (!strcmp(link, "vlan")) {
        memcpy(out, eth, 12);
        put16(out + 12, 0x8100);
        put16(out + 14, 100);
        put16(out + 16, et);
        return 18;
    }
    if (!strcmp(link, "qinq")) {
        memcpy(out, eth, 12);
        put16(out + 12, 0x88a8);
        put16(out + 14, 10);
        put16(out + 16, 0x8100);
        put16(out + 18, 20);
        put16(out + 20, et);
        return 22;
    }
    if (!strcmp(link, "sll")) {
        memset(out, 0, 16);
        put16(out, 0);     /* to us */
        put16(out + 2, 1); /* ARPHRD_ETHER */
        put16(out + 4, 6);
        memcpy(out + 6, eth + 6, 6); /* source MAC */
        put16(out + 14, et);
        return 16;
    }
    if (!strcmp(link, "sll2")) {
        memset(out, 0, 20);
        put16(out, et);
        put32(out + 4, 2); /* ifindex */
        put16(out + 8, 1); /* ARPHRD_ETHER */
        out[10] = 0;       /* to us */
        out[11] = 6;
        memcpy(out + 12, eth + 6, 6);
        return 20;
    }
    if (!strcmp(link, "null")) {
        uint32_t af = et == 0x0800 ? 2 : 24;

        out[0] = (uint8_t)af; /* little-endian, as an x86 BSD host writes it */
        out[1] = out[2] = out[3] = 0;
        return 4;
    }
    if (!strcmp(link, "loop")) {
        put32(out, et == 0x0800 ? 2 : 24);
        return 4;
    }
    if (!strcmp(link, "ppp")) {
        /* HDLC-like framing (RFC 1662 §3.1), then the PPP Protocol */
        out[0] = 0xff;
        out[1] = 0x03;
        put16(out + 2, et == 0x0800 ? 0x0021 : 0x0057);
        return 4;
    }
    if (!strcmp(link, "chdlc")) {
        out[0] = 0x0f; /* unicast (RFC 1547 §4.3.1) */
        out[1] = 0;
        put16(out + 2, et);
        return 4;
    }
    if (!strcmp(link, "ipoib")) {
        /* libpcap's 40-byte pseudo-header: 20 zero bytes (no GRH), the
         * destination's QPN and GID; then the 4-byte IPoIB header (RFC 4391
         * §6): EtherType, reserved */
        memset(out, 0, 44);
        put32(out + 20, 0x00000048); /* QPN */
        put32(out + 24, 0xfe800000);
        memcpy(out + 32, eth, 6);
        put16(out + 40, et);
        return 44;
    }
    if (!strcmp(link, "nflog")) {
        /* as the kernel's NFLOG target writes it on a little-endian host
         * (libpcap's pcap/nflog.h): the header (AF_INET 2 or AF_INET6 10,
         * version 0, resource id 5, big-endian), then TLVs of a host-order
         * length (with their 4-byte header, padded to 4) and type:
         * NFULA_PACKET_HDR (1: hardware protocol, hook), NFULA_PREFIX (10:
         * "ew" and its NUL, 7 bytes padded to 8), NFULA_PAYLOAD (9) last */
        size_t plen = iplen + 4 > 0xffff ? 0xffff : iplen + 4;

        out[0] = et == 0x0800 ? 2 : 10;
        out[1] = 0;
        put16(out + 2, 5);
        out[4] = 8, out[5] = 0, out[6] = 1, out[7] = 0;
        put16(out + 8, et);
        out[10] = 3, out[11] = 0; /* NF_INET_LOCAL_OUT */
        out[12] = 7, out[13] = 0, out[14] = 10, out[15] = 0;
        out[16] = 'e', out[17] = 'w', out[18] = 0, out[19] = 0;
        out[20] = (uint8_t)plen, out[21] = (uint8_t)(plen >> 8), out[22] = 9, out[23] = 0;
        return 24;
    }
    return 0; /* raw, ipv4, ipv6 */
}

static int
relink(const char *link, const char *in, const char *out)
{
    char err[PCAP_ERRBUF_SIZE];
    pcap_t *pin, *pdead;
    pcap_dumper_t *d;
    struct pcap_pkthdr *h;
    const u_char *data;
    static uint8_t buf[MAXFRAME + 64];
    int dlt = link_dlt(link), rc;
    unsigned long n = 0;

    if (dlt < 0) {
        fprintf(stderr, "ecngen: unknown link '%s'\n", link);
        return 2;
    }
    pin = pcap_open_offline_with_tstamp_precision(in, PCAP_TSTAMP_PRECISION_NANO, err);
    if (!pin) {
        fprintf(stderr, "ecngen: %s\n", err);
        return 3;
    }
    if (pcap_datalink(pin) != DLT_EN10MB) {
        fprintf(stderr, "ecngen: %s is not an Ethernet capture\n", in);
        return 3;
    }
    pdead = pcap_open_dead_with_tstamp_precision(dlt, 262144, PCAP_TSTAMP_PRECISION_NANO);
    d = pcap_dump_open(pdead, out);
    if (!d) {
        fprintf(stderr, "ecngen: %s\n", pcap_geterr(pdead));
        return 3;
    }
    while ((rc = pcap_next_ex(pin, &h, &data)) == 1) {
        struct pcap_pkthdr oh = *h;
        uint16_t et;
        size_t hl;

        if (h->caplen < 14 || h->caplen > MAXFRAME)
            continue;
        et = (uint16_t)((data[12] << 8) | data[13]);
        if (et != 0x0800 && et != 0x86dd) {
            if (dlt == DLT_EN10MB)
                pcap_dump((u_char *)d, h, data);
            continue;
        }
        if ((dlt == DLT_IPV4 && et != 0x0800) || (dlt == DLT_IPV6 && et != 0x86dd))
            continue;
        /* NFLOG's payload is what the kernel copied: the captured bytes */
        hl = make_header(link, data, et, dlt == DLT_NFLOG ? h->caplen - 14 : h->len - 14, buf);
        memcpy(buf + hl, data + 14, h->caplen - 14);
        oh.caplen = (bpf_u_int32)(h->caplen - 14 + hl);
        oh.len = (bpf_u_int32)(dlt == DLT_NFLOG ? oh.caplen : h->len - 14 + hl);
        pcap_dump((u_char *)d, &oh, buf);
        n++;
    }
    pcap_dump_close(d);
    pcap_close(pdead);
    pcap_close(pin);
    if (rc == PCAP_ERROR) {
        fprintf(stderr, "ecngen: %s: read error\n", in);
        return 3;
    }
    fprintf(stderr, "ecngen: %lu IP packets relinked as %s into %s\n", n, link, out);
    return 0;
}

/* --- hand-written captures ------------------------------------------------ */

static void
put16le(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}

static void
put32le(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}

static int
put_bytes(FILE *fp, const void *p, size_t n)
{
    return fwrite(p, 1, n, fp) == n ? 0 : -1;
}

/* classic pcap file header, microsecond timestamps, little-endian */
static int
pcap_header(FILE *fp, uint32_t snaplen, uint32_t linktype)
{
    uint8_t h[24];

    put32le(h, 0xa1b2c3d4);
    put16le(h + 4, 2);
    put16le(h + 6, 4);
    put32le(h + 8, 0);
    put32le(h + 12, 0);
    put32le(h + 16, snaplen);
    put32le(h + 20, linktype);
    return put_bytes(fp, h, sizeof(h));
}

/* one record: the header claims caplen and len; n bytes of data follow */
static int
pcap_record(FILE *fp, uint32_t sec, uint32_t usec, uint32_t caplen, uint32_t len,
            const uint8_t *data, size_t n)
{
    uint8_t h[16];

    put32le(h, sec);
    put32le(h + 4, usec);
    put32le(h + 8, caplen);
    put32le(h + 12, len);
    if (put_bytes(fp, h, sizeof(h)) != 0)
        return -1;
    return n ? put_bytes(fp, data, n) : 0;
}

/* a whole record of a well-formed frame */
static int
pcap_frame(FILE *fp, uint32_t sec, uint32_t usec, const uint8_t *f, size_t n)
{
    return pcap_record(fp, sec, usec, (uint32_t)n, (uint32_t)n, f, n);
}

/* Ethernet + IPv4 (no options) + TCP of `doff` words, `opt` filling the
 * option space; flags as in header byte 13. Returns the frame length. */
static size_t
tcp4_frame(uint8_t *f, uint32_t src, uint16_t sport, uint8_t flags, uint8_t tos,
           const uint8_t *opt, size_t optlen)
{
    size_t iplen = 20 + 20 + optlen;

    memset(f, 0, 14 + iplen);
    memcpy(f, "\x02\x00\x00\x00\x00\x02\x02\x00\x00\x00\x00\x01", 12);
    put16(f + 12, 0x0800);
    f[14] = 0x45;
    f[15] = tos;
    put16(f + 16, (uint16_t)iplen);
    f[22] = 64;
    f[23] = 6;
    put32(f + 26, src);
    put32(f + 30, 0xc0000201); /* 192.0.2.1 */
    put16(f + 34, sport);
    put16(f + 36, 80);
    put32(f + 38, 1000);
    f[46] = (uint8_t)(((20 + optlen) / 4) << 4);
    f[47] = flags;
    put16(f + 48, 65535);
    if (optlen)
        memcpy(f + 54, opt, optlen);
    return 14 + iplen;
}

#define H_SYN 0x02
#define H_SYNACK 0x12
#define H_ACK 0x10

/* pcapng block: type, total length, body padded to 32 bits, total length */
static int
ng_block(FILE *fp, uint32_t type, const uint8_t *body, size_t n)
{
    uint8_t h[8], pad[4] = {0, 0, 0, 0};
    size_t padn = (4 - n % 4) % 4;
    uint32_t total = (uint32_t)(12 + n + padn);

    put32le(h, type);
    put32le(h + 4, total);
    if (put_bytes(fp, h, 8) != 0 || put_bytes(fp, body, n) != 0 ||
        put_bytes(fp, pad, padn) != 0)
        return -1;
    put32le(h, total);
    return put_bytes(fp, h, 4);
}

/* SHB, IDB (Ethernet; tsresol option byte when given), then what `kind` says */
static int
pcapng_file(FILE *fp, const char *kind)
{
    uint8_t b[256], f[128];
    size_t n = tcp4_frame(f, 0xc6336401, 40000, H_SYN, 0x02, NULL, 0);
    uint64_t ts = 1700000000ULL * 1000000;

    put32le(b, 0x1a2b3c4d); /* byte-order magic */
    put16le(b + 4, 1);
    put16le(b + 6, 0);
    memset(b + 8, 0xff, 8); /* section length unknown */
    if (ng_block(fp, 0x0a0d0d0a, b, 16) != 0)
        return -1;
    put16le(b, 1); /* LINKTYPE_ETHERNET */
    put16le(b + 2, 0);
    put32le(b + 4, 65535);
    if (!strcmp(kind, "pcapng-huge-time")) {
        put16le(b + 8, 9); /* if_tsresol: 10^0, whole seconds */
        put16le(b + 10, 1);
        b[12] = 0;
        b[13] = b[14] = b[15] = 0;
        put16le(b + 16, 0); /* opt_endofopt */
        put16le(b + 18, 0);
        if (ng_block(fp, 1, b, 20) != 0)
            return -1;
        ts = 0x4000000000000000ULL; /* seconds: past any time in int64 nanoseconds */
    } else if (ng_block(fp, 1, b, 8) != 0) {
        return -1;
    }
    if (!strcmp(kind, "pcapng-unknown-block")) {
        static const uint8_t junk[] = "an unknown block type, to be skipped";

        if (ng_block(fp, 0x0BAD0001, junk, sizeof(junk)) != 0)
            return -1;
    }
    /* pcapng §4.3: interface 1 of a file that describes one (0) */
    put32le(b, !strcmp(kind, "pcapng-undeclared-if") ? 1 : 0); /* interface */
    put32le(b + 4, (uint32_t)(ts >> 32));
    put32le(b + 8, (uint32_t)ts);
    put32le(b + 12, (uint32_t)n);
    put32le(b + 16, (uint32_t)n);
    memcpy(b + 20, f, n);
    if (!strcmp(kind, "pcapng-bad-length")) {
        uint8_t h[8];

        /* an EPB whose total length is far past the end of the file */
        put32le(h, 6);
        put32le(h + 4, 0x7ffffff0);
        return put_bytes(fp, h, 8) || put_bytes(fp, b, 20 + n);
    }
    return ng_block(fp, 6, b, 20 + n);
}

/* an EPB on interface `ifid` at time `ts` (in the interface's units) */
static int
ng_epb(FILE *fp, uint32_t ifid, uint64_t ts, const uint8_t *f, size_t n)
{
    uint8_t b[256];

    put32le(b, ifid);
    put32le(b + 4, (uint32_t)(ts >> 32));
    put32le(b + 8, (uint32_t)ts);
    put32le(b + 12, (uint32_t)n);
    put32le(b + 16, (uint32_t)n);
    memcpy(b + 20, f, n);
    return ng_block(fp, 6, b, 20 + n);
}

/* What mergecap writes from captures of several link types: one section,
 * an IDB per link type, packets of each (pcapng §4.2, §4.3). Interface 0
 * Ethernet in microseconds, interface 1 LINKTYPE_RAW (101) in nanoseconds
 * (if_tsresol 9), interface 2 IEEE 802.11 (105). A SYN ECT(0) on 0, its
 * SYN-ACK ECT(1) as raw IP on 1, one 802.11 frame on 2. */
static int
pcapng_two_links(FILE *fp)
{
    uint8_t b[64], f[128];
    size_t n;

    put32le(b, 0x1a2b3c4d);
    put16le(b + 4, 1);
    put16le(b + 6, 0);
    memset(b + 8, 0xff, 8);
    if (ng_block(fp, 0x0a0d0d0a, b, 16) != 0)
        return -1;
    memset(b, 0, sizeof(b));
    put16le(b, 1); /* LINKTYPE_ETHERNET */
    put32le(b + 4, 65535);
    if (ng_block(fp, 1, b, 8) != 0)
        return -1;
    put16le(b, 101); /* LINKTYPE_RAW */
    put16le(b + 8, 9); /* if_tsresol: 10^-9 */
    put16le(b + 10, 1);
    b[12] = 9;
    if (ng_block(fp, 1, b, 20) != 0)
        return -1;
    memset(b, 0, sizeof(b));
    put16le(b, 105); /* LINKTYPE_IEEE802_11 */
    put32le(b + 4, 65535);
    if (ng_block(fp, 1, b, 8) != 0)
        return -1;
    n = tcp4_frame(f, 0xc6336401, 40000, H_SYN, 0x02, NULL, 0);
    if (ng_epb(fp, 0, 1700000000ULL * 1000000, f, n) != 0)
        return -1;
    n = tcp4_frame(f, 0xc6336401, 40000, H_SYNACK, 0x01, NULL, 0);
    memcpy(f + 26, "\xc0\x00\x02\x01\xc6\x33\x64\x01", 8);
    memcpy(f + 34, "\x00\x50\x9c\x40", 4);
    if (ng_epb(fp, 1, 1700000000ULL * 1000000000 + 1000, f + 14, n - 14) != 0)
        return -1;
    memset(f, 0xaa, 24);
    return ng_epb(fp, 2, 1700000000ULL * 1000000 + 2, f, 24);
}

/* IPv6 + `next` chain of `count` destination-options headers + TCP SYN */
static size_t
ipv6_chain_frame(uint8_t *f, unsigned count)
{
    size_t off = 14 + 40, i;

    memset(f, 0, 14 + 40 + count * 8 + 20);
    memcpy(f, "\x02\x00\x00\x00\x00\x02\x02\x00\x00\x00\x00\x01", 12);
    put16(f + 12, 0x86dd);
    put32(f + 14, 0x60000000u | (0x02u << 20)); /* ECT(0) */
    put16(f + 18, (uint16_t)(count * 8 + 20));
    f[20] = count ? 60 : 6;
    f[21] = 64;
    f[22] = 0x20; /* 2001:db8::1 -> 2001:db8::2 */
    f[23] = 0x01;
    f[24] = 0x0d;
    f[25] = 0xb8;
    f[37] = 1;
    memcpy(f + 38, f + 22, 16);
    f[53] = 2;
    for (i = 0; i < count; i++, off += 8) {
        f[off] = i + 1 < count ? 60 : 6; /* next header */
        f[off + 1] = 0;                  /* 8 bytes */
        f[off + 2] = 1;                  /* PadN, 4 bytes of padding */
        f[off + 3] = 4;
    }
    put16(f + off, 40001);
    put16(f + off + 2, 80);
    f[off + 12] = 0x50;
    f[off + 13] = H_SYN;
    return off + 20;
}

static const char *const hostile_kinds[] = {
    "valid",                /* SYN, SYN-ACK, ACK: the base of the truncation loop */
    "garbage-after-header", /* a valid file header, then bytes that are not records */
    "caplen-over-snaplen",  /* snaplen 96, a record of 150 captured bytes, then one of 54 */
    "caplen-over-256k",     /* a record claiming 300000 captured bytes */
    "caplen-over-wirelen",  /* 54 bytes captured of a frame 20 bytes long on the wire */
    "zero-length",          /* records of 0 captured bytes (wire length 0 and 60) */
    "time-backwards",       /* one flow, each timestamp a second before the last */
    "pcapng-unknown-block", /* SHB, IDB, block type 0x0BAD0001, EPB */
    "pcapng-bad-length",    /* an EPB claiming a length past the end of the file */
    "pcapng-huge-time",     /* an EPB at 2^62 seconds */
    "pcapng-undeclared-if", /* an EPB of an interface no IDB describes */
    "pcapng-two-links",     /* interfaces of three link types, one not decoded */
    "link-unsupported",     /* link type 105 (IEEE 802.11) */
    "ipv4-ihl-small",       /* IHL 4 */
    "ipv4-ihl-past-end",    /* IHL 15 in a 40-byte packet */
    "tcp-doff-small",       /* data offset 4 */
    "tcp-doff-past-end",    /* data offset 15 in a 20-byte segment */
    "tcp-opt-len0",         /* MSS with length 0 */
    "tcp-opt-len1",         /* MSS with length 1 */
    "tcp-opt-overrun",      /* timestamps (10 bytes) in a 4-byte option space */
    "ipv6-ext-chain-9",     /* nine destination-options headers */
    "vlan-3-deep",          /* three 802.1Q tags */
    "tunnel-ipip-5-deep",   /* a TCP SYN in five IPv4-in-IPv4 headers: past the depth bound */
    "tunnel-vxlan-cut",     /* a VXLAN datagram whose UDP length holds half the VXLAN header */
    "tunnel-gre-version",   /* GRE of version 5 around a TCP SYN */
    "tunnel-mpls-9",        /* nine MPLS labels before a TCP SYN */
    "tunnel-macsec-encrypted", /* a MACsec frame with its E and C bits: nothing to read */
    "tunnel-vxlan-arp",     /* VXLAN carrying an ARP frame: no inner IP */
    NULL,
};

/* f (an Ethernet frame of n bytes, IPv4 inside) wrapped: Ethernet, an
 * outer IPv4 header of protocol proto and ECN field ecn from 198.51.100.1 to
 * 198.51.100.2, then shim (len bytes), then either f's IP packet (eth 0) or
 * f whole (eth 1); returns the new length (out holds 1024 bytes) */
static size_t
wrap4(uint8_t *out, const uint8_t *f, size_t n, uint8_t proto, uint8_t ecn, const uint8_t *shim,
      size_t len, int eth)
{
    const uint8_t *body = eth ? f : f + 14;
    size_t blen = eth ? n : n - 14, ip = 20 + len + blen;

    memset(out, 0, 34);
    memcpy(out, f, 14);
    put16(out + 12, 0x0800);
    out[14] = 0x45;
    out[15] = ecn;
    put16(out + 16, (uint16_t)ip);
    out[22] = 64;
    out[23] = proto;
    put32(out + 26, 0xc6336401);
    put32(out + 30, 0xc6336402);
    if (len)
        memcpy(out + 34, shim, len);
    memmove(out + 34 + len, body, blen);
    return 14 + ip;
}

static int
hostile_tunnel(FILE *fp, const char *kind)
{
    uint8_t f[1024], g[1024], shim[64];
    size_t n;
    int i;

    n = tcp4_frame(f, 0xc6336401, 40000, H_SYN, 0x02, NULL, 0);
    if (!strcmp(kind, "tunnel-ipip-5-deep")) {
        for (i = 0; i < 5; i++) {
            n = wrap4(g, f, n, 4, 0x02, NULL, 0, 0);
            memcpy(f, g, n);
        }
        return pcap_frame(fp, 1, 0, f, n);
    }
    if (!strcmp(kind, "tunnel-vxlan-cut")) {
        /* UDP 4789 of 12 bytes: its header, then 4 of VXLAN's 8 */
        memset(shim, 0, 12);
        put16(shim, 50000);
        put16(shim + 2, 4789);
        put16(shim + 4, 12);
        shim[8] = 0x08;
        n = wrap4(g, f, 0 + 14, 17, 0x02, shim, 12, 0);
        return pcap_frame(fp, 1, 0, g, n);
    }
    if (!strcmp(kind, "tunnel-gre-version")) {
        shim[0] = 0x00;
        shim[1] = 0x05; /* version 5 */
        put16(shim + 2, 0x0800);
        n = wrap4(g, f, n, 47, 0x02, shim, 4, 0);
        return pcap_frame(fp, 1, 0, g, n);
    }
    if (!strcmp(kind, "tunnel-mpls-9")) {
        memcpy(g, f, 12);
        put16(g + 12, 0x8847);
        for (i = 0; i < 9; i++)
            put32(g + 14 + 4 * i, (uint32_t)((100 + i) << 12 | (i == 8 ? 0x100 : 0) | 64));
        memcpy(g + 14 + 36, f + 14, n - 14);
        return pcap_frame(fp, 1, 0, g, n + 36);
    }
    if (!strcmp(kind, "tunnel-macsec-encrypted")) {
        memcpy(g, f, 12);
        put16(g + 12, 0x88e5);
        g[14] = 0x0c;                 /* TCI: E and C set, no SCI; AN 0 */
        g[15] = 0;                    /* short length: 0 */
        put32(g + 16, 1);             /* packet number */
        memset(g + 20, 0x5c, 64 + 16); /* ciphertext and ICV */
        return pcap_frame(fp, 1, 0, g, 20 + 80);
    }
    if (!strcmp(kind, "tunnel-vxlan-arp")) {
        uint8_t arp[14 + 28];

        memset(arp, 0, sizeof(arp));
        memcpy(arp, f, 12);
        put16(arp + 12, 0x0806);
        put16(arp + 14, 1);
        put16(arp + 16, 0x0800);
        arp[18] = 6;
        arp[19] = 4;
        put16(arp + 20, 1);
        memset(shim, 0, 16);
        put16(shim, 50000);
        put16(shim + 2, 4789);
        put16(shim + 4, (uint16_t)(8 + 8 + sizeof(arp)));
        shim[8] = 0x08; /* I: the VNI is valid */
        put32(shim + 12, 42 << 8);
        n = wrap4(g, arp, sizeof(arp), 17, 0x02, shim, 16, 1);
        return pcap_frame(fp, 1, 0, g, n);
    }
    return -2;
}

static int
hostile_write(FILE *fp, const char *kind)
{
    uint8_t f[1024];
    size_t n;
    int i;

    if (!strcmp(kind, "pcapng-two-links"))
        return pcapng_two_links(fp);
    if (!strncmp(kind, "pcapng-", 7))
        return pcapng_file(fp, kind);
    if (!strcmp(kind, "link-unsupported")) {
        memset(f, 0xaa, 24);
        return pcap_header(fp, 65535, 105) || pcap_frame(fp, 1, 0, f, 24);
    }
    if (pcap_header(fp, !strcmp(kind, "caplen-over-snaplen") ? 96 : 65535, 1) != 0)
        return -1;
    if (!strncmp(kind, "tunnel-", 7))
        return hostile_tunnel(fp, kind);
    if (!strcmp(kind, "valid")) {
        n = tcp4_frame(f, 0xc6336401, 40000, H_SYN, 0x00, NULL, 0);
        if (pcap_frame(fp, 1700000000, 0, f, n) != 0)
            return -1;
        n = tcp4_frame(f, 0xc6336401, 40000, H_SYNACK, 0x00, NULL, 0);
        /* the SYN-ACK goes the other way: swap addresses and ports */
        memcpy(f + 26, "\xc0\x00\x02\x01\xc6\x33\x64\x01", 8);
        memcpy(f + 34, "\x00\x50\x9c\x40", 4);
        if (pcap_frame(fp, 1700000000, 1000, f, n) != 0)
            return -1;
        n = tcp4_frame(f, 0xc6336401, 40000, H_ACK, 0x02, NULL, 0);
        return pcap_frame(fp, 1700000000, 2000, f, n);
    }
    if (!strcmp(kind, "garbage-after-header")) {
        uint32_t x = 0x12345678;

        for (i = 0; i < 300; i++) {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            f[i] = (uint8_t)x;
        }
        return put_bytes(fp, f, 300);
    }
    if (!strcmp(kind, "caplen-over-snaplen")) {
        n = tcp4_frame(f, 0xc6336401, 40000, H_ACK, 0x01, NULL, 0);
        memset(f + n, 0x5a, 150 - n);
        put16(f + 16, 150 - 14);
        if (pcap_frame(fp, 1, 0, f, 150) != 0)
            return -1;
        /* the next record must still be found where it is */
        n = tcp4_frame(f, 0xc6336401, 40000, H_ACK, 0x03, NULL, 0);
        return pcap_frame(fp, 2, 0, f, n);
    }
    if (!strcmp(kind, "caplen-over-256k")) {
        n = tcp4_frame(f, 0xc6336401, 40000, H_SYN, 0x00, NULL, 0);
        if (pcap_frame(fp, 1, 0, f, n) != 0)
            return -1;
        /* the header claims 300000 bytes; 1000 follow */
        memset(f, 0x33, 1000);
        return pcap_record(fp, 2, 0, 300000, 300000, f, 1000);
    }
    if (!strcmp(kind, "caplen-over-wirelen")) {
        n = tcp4_frame(f, 0xc6336401, 40000, H_SYN, 0x02, NULL, 0);
        return pcap_record(fp, 1, 0, (uint32_t)n, 20, f, n);
    }
    if (!strcmp(kind, "zero-length"))
        return pcap_record(fp, 1, 0, 0, 0, NULL, 0) || pcap_record(fp, 2, 0, 0, 60, NULL, 0) ||
               pcap_record(fp, 3, 0, 0, 0, NULL, 0);
    if (!strcmp(kind, "time-backwards")) {
        n = tcp4_frame(f, 0xc6336401, 40000, H_SYN, 0x00, NULL, 0);
        for (i = 0; i < 10; i++) {
            f[47] = i ? H_ACK : H_SYN;
            if (pcap_frame(fp, (uint32_t)(1700000000 - i), 0, f, n) != 0)
                return -1;
        }
        return 0;
    }
    if (!strcmp(kind, "ipv4-ihl-small")) {
        n = tcp4_frame(f, 0xc6336401, 40000, H_SYN, 0x02, NULL, 0);
        f[14] = 0x44;
        return pcap_frame(fp, 1, 0, f, n);
    }
    if (!strcmp(kind, "ipv4-ihl-past-end")) {
        n = tcp4_frame(f, 0xc6336401, 40000, H_SYN, 0x02, NULL, 0);
        f[14] = 0x4f; /* 60-byte header; the packet says 40 bytes in all */
        if (pcap_frame(fp, 1, 0, f, n) != 0)
            return -1;
        put16(f + 16, 60); /* and now 60, but only 40 are there */
        return pcap_frame(fp, 2, 0, f, n);
    }
    if (!strcmp(kind, "tcp-doff-small") || !strcmp(kind, "tcp-doff-past-end")) {
        n = tcp4_frame(f, 0xc6336401, 40000, H_SYN, 0x02, NULL, 0);
        f[46] = !strcmp(kind, "tcp-doff-small") ? 0x40 : 0xf0;
        return pcap_frame(fp, 1, 0, f, n);
    }
    if (!strncmp(kind, "tcp-opt-", 8)) {
        uint8_t opt[4] = {2, 0, 0, 0};

        if (!strcmp(kind, "tcp-opt-len1")) {
            opt[1] = 1;
        } else if (!strcmp(kind, "tcp-opt-overrun")) {
            opt[0] = 8;
            opt[1] = 10;
        } else if (strcmp(kind, "tcp-opt-len0")) {
            return -2;
        }
        n = tcp4_frame(f, 0xc6336401, 40000, H_SYN, 0x02, opt, sizeof(opt));
        return pcap_frame(fp, 1, 0, f, n);
    }
    if (!strcmp(kind, "ipv6-ext-chain-9")) {
        n = ipv6_chain_frame(f, 9);
        return pcap_frame(fp, 1, 0, f, n);
    }
    if (!strcmp(kind, "vlan-3-deep")) {
        uint8_t g[128];

        n = tcp4_frame(g, 0xc6336401, 40000, H_SYN, 0x02, NULL, 0);
        memcpy(f, g, 12);
        for (i = 0; i < 3; i++) {
            put16(f + 12 + 4 * i, 0x8100);
            put16(f + 14 + 4 * i, (uint16_t)(10 + i));
        }
        memcpy(f + 24, g + 12, n - 12);
        return pcap_frame(fp, 1, 0, f, n + 12);
    }
    return -2;
}

static int
hostile(const char *kind, const char *out)
{
    FILE *fp;
    int rc, i;

    for (i = 0; hostile_kinds[i]; i++)
        if (!strcmp(kind, hostile_kinds[i]))
            break;
    if (!hostile_kinds[i]) {
        fprintf(stderr, "ecngen: unknown hostile kind '%s'\n", kind);
        return 2;
    }
    fp = fopen(out, "wb");
    if (!fp) {
        fprintf(stderr, "ecngen: %s: %s\n", out, strerror(errno));
        return 3;
    }
    rc = hostile_write(fp, kind);
    if (fclose(fp) != 0 || rc != 0) {
        fprintf(stderr, "ecngen: %s: cannot write\n", out);
        return 3;
    }
    return 0;
}

/* --- flood ------------------------------------------------------------------ */

/* a bijection on 32 bits (odd multiply, xorshift): distinct in, distinct out */
static uint32_t
mix32(uint32_t x)
{
    x *= 0x9e3779b1u;
    x ^= x >> 16;
    x *= 0x85ebca6bu;
    x ^= x >> 13;
    return x;
}

/* A flood of one-packet flows, each a SYN from its own address and port, a
 * microsecond apart; mode "udp": a UDP datagram each instead; "ecn": an
 * ECN-setup SYN each (ECE and CWR, RFC 3168 §6.1.1) sent ECT(0): flows of
 * interest;
 * "spread": a SYN every 2 s (flows that end idle, one by one) */
static int
flood(const char *out, const char *count, const char *mode)
{
    bool udp = !strcmp(mode, "udp"), spread = !strcmp(mode, "spread");
    static char iobuf[1 << 20];
    uint8_t f[64];
    unsigned long long n, i;
    char *end;
    FILE *fp;
    size_t len;

    errno = 0;
    n = strtoull(count, &end, 10);
    if (errno || *end || !*count || n > 0xffffffffULL) {
        fprintf(stderr, "ecngen: bad count '%s'\n", count);
        return 2;
    }
    fp = fopen(out, "wb");
    if (!fp) {
        fprintf(stderr, "ecngen: %s: %s\n", out, strerror(errno));
        return 3;
    }
    setvbuf(fp, iobuf, _IOFBF, sizeof(iobuf));
    if (pcap_header(fp, 65535, 1) != 0)
        goto fail;
    len = tcp4_frame(f, 0, 0, !strcmp(mode, "ecn") ? H_SYN | 0xc0 : H_SYN,
                     !strcmp(mode, "ecn") ? 0x02 : 0x00, NULL, 0);
    if (udp) { /* the same addresses and ports, one UDP datagram each, to port 53 */
        len = 14 + 20 + 8;
        put16(f + 16, 20 + 8);
        f[23] = 17;
        put16(f + 36, 53);
        put16(f + 38, 8);
        put16(f + 40, 0);
    }
    for (i = 0; i < n; i++) {
        uint32_t a = mix32((uint32_t)i);

        /* never 192.0.2.1, the destination */
        put32(f + 26, a == 0xc0000201 ? 0x0a000001 : a);
        put16(f + 34, (uint16_t)(1024 + mix32((uint32_t)i ^ 0xa5a5a5a5u) % 64512));
        if (pcap_frame(fp, (uint32_t)(1700000000 + (spread ? 2 * i : i / 1000000)),
                       (uint32_t)(spread ? 0 : i % 1000000), f, len) != 0)
            goto fail;
    }
    if (fclose(fp) != 0) {
        fprintf(stderr, "ecngen: %s: cannot write\n", out);
        return 3;
    }
    return 0;
fail:
    fclose(fp);
    fprintf(stderr, "ecngen: %s: cannot write\n", out);
    return 3;
}

/* --- one-way ECN over UDP ---------------------------------------------------- */

/* Ethernet + IPv4 + UDP with `plen` payload bytes (a counter pattern) */
static size_t
udp4_frame(uint8_t *f, bool from_client, uint8_t tos, size_t plen)
{
    size_t i;

    memset(f, 0, 14 + 28);
    memcpy(f, from_client ? "\x02\x00\x00\x00\x00\x02\x02\x00\x00\x00\x00\x01"
                          : "\x02\x00\x00\x00\x00\x01\x02\x00\x00\x00\x00\x02", 12);
    put16(f + 12, 0x0800);
    f[14] = 0x45;
    f[15] = tos;
    put16(f + 16, (uint16_t)(28 + plen));
    f[20] = 0x40; /* DF */
    f[22] = 64;
    f[23] = 17;
    put32(f + 26, from_client ? 0xc6336401 : 0xc0000201);
    put32(f + 30, from_client ? 0xc0000201 : 0xc6336401);
    put_ipv4_checksum(f + 14);
    put16(f + 34, from_client ? 40000 : 5004);
    put16(f + 36, from_client ? 5004 : 40000);
    put16(f + 38, (uint16_t)(8 + plen));
    for (i = 0; i < plen; i++)
        f[42 + i] = (uint8_t)i;
    return 42 + plen;
}

/* A bidirectional UDP flow whose ECN is all in its smaller direction: the
 * client sends 200 small datagrams ECT(1), every tenth CE (an L4S media
 * sender through a marking queue), the server 20 large Not-ECT ones (its
 * reports): the flow is ECN-capable although most of its bytes are not. */
static int
udp_oneway(const char *out)
{
    uint8_t f[1600];
    FILE *fp = fopen(out, "wb");
    size_t n;
    int i;

    if (!fp) {
        fprintf(stderr, "ecngen: %s: %s\n", out, strerror(errno));
        return 3;
    }
    if (pcap_header(fp, 65535, 1) != 0)
        goto fail;
    for (i = 0; i < 200; i++) {
        n = udp4_frame(f, true, i % 10 == 9 ? 0x03 : 0x01, 100);
        if (pcap_frame(fp, 1700000000, (uint32_t)(i * 2000), f, n) != 0)
            goto fail;
        if (i % 10 == 0) {
            n = udp4_frame(f, false, 0x00, 1400);
            if (pcap_frame(fp, 1700000000, (uint32_t)(i * 2000 + 1000), f, n) != 0)
                goto fail;
        }
    }
    if (fclose(fp) != 0) {
        fprintf(stderr, "ecngen: %s: cannot write\n", out);
        return 3;
    }
    return 0;
fail:
    fclose(fp);
    fprintf(stderr, "ecngen: %s: cannot write\n", out);
    return 3;
}

/* --- PTP over link-local IPv6 ----------------------------------------------- */

/* one PTP message of ptp_ce(): who sends it, when, what */
struct ptp_ev {
    uint32_t t_us;    /* from the start */
    bool from1;       /* fe80::1 (else fe80::2) */
    bool mcast;       /* to ff02::6b (else unicast to the other) */
    uint8_t type;     /* PTP messageType */
    uint16_t seq;
};

/* IEEE 1588-2008 §13: messageType, the UDP port (319 event, 320 general),
 * messageLength, controlField */
static void
ptp_type(uint8_t type, uint16_t *port, uint16_t *len, uint8_t *control)
{
    switch (type) {
    case 0x0: /* Sync */
        *port = 319, *len = 44, *control = 0;
        break;
    case 0x1: /* Delay_Req */
        *port = 319, *len = 44, *control = 1;
        break;
    case 0x2: /* Pdelay_Req */
    case 0x3: /* Pdelay_Resp */
        *port = 319, *len = 54, *control = 5;
        break;
    case 0x8: /* Follow_Up */
        *port = 320, *len = 44, *control = 2;
        break;
    case 0x9: /* Delay_Resp */
        *port = 320, *len = 54, *control = 3;
        break;
    default: /* 0xA Pdelay_Resp_Follow_Up */
        *port = 320, *len = 54, *control = 5;
        break;
    }
}

/* a PTP timestamp: 48-bit seconds, 32-bit nanoseconds */
static void
ptp_ts(uint8_t *p, uint64_t ns)
{
    uint64_t sec = ns / 1000000000u;

    put16(p, (uint32_t)(sec >> 32));
    put32(p + 2, (uint32_t)sec);
    put32(p + 6, (uint32_t)(ns % 1000000000u));
}

/* Ethernet + IPv6 (hop limit 1) + UDP + the PTP message of ev; returns the
 * frame's length */
static size_t
ptp_frame(uint8_t *f, const struct ptp_ev *ev, uint64_t ns)
{
    static const uint8_t mac1[6] = {0x02, 0, 0, 0, 0, 0x01}, mac2[6] = {0x02, 0, 0, 0, 0, 0x02},
                         macm[6] = {0x33, 0x33, 0, 0, 0, 0x6b};
    uint8_t *ip = f + 14, *udp = ip + 40, *m = udp + 8;
    uint16_t port, mlen;
    uint8_t control;
    uint32_t sum = 0;
    size_t i;

    ptp_type(ev->type, &port, &mlen, &control);
    memset(f, 0, 14 + 40 + 8 + mlen);
    memcpy(f, ev->mcast ? macm : ev->from1 ? mac2 : mac1, 6);
    memcpy(f + 6, ev->from1 ? mac1 : mac2, 6);
    put16(f + 12, 0x86dd);
    /* version 6, traffic class: DSCP 0 and CE from fe80::1, Not-ECT else */
    put32(ip, 0x60000000u | ((ev->from1 ? 0x03u : 0x00u) << 20));
    put16(ip + 4, (uint32_t)(8 + mlen));
    ip[6] = 17;
    ip[7] = 1; /* hop limit: the link only */
    ip[8] = 0xfe;
    ip[9] = 0x80;
    ip[23] = ev->from1 ? 1 : 2;
    if (ev->mcast) {
        ip[24] = 0xff;
        ip[25] = 0x02;
        ip[39] = 0x6b;
    } else {
        ip[24] = 0xfe;
        ip[25] = 0x80;
        ip[39] = ev->from1 ? 2 : 1;
    }
    put16(udp, port);
    put16(udp + 2, port);
    put16(udp + 4, (uint32_t)(8 + mlen));
    /* the PTP header (§13.3) */
    m[0] = ev->type;                  /* transportSpecific 0 */
    m[1] = 2;                         /* versionPTP */
    put16(m + 2, mlen);
    m[4] = 0;                         /* domainNumber */
    if (ev->type == 0x0 || ev->type == 0x3)
        m[6] |= 0x02;                 /* twoStepFlag */
    if (!ev->mcast)
        m[6] |= 0x04;                 /* unicastFlag */
    /* sourcePortIdentity: the EUI-64 of the sender's MAC, port 1 */
    memcpy(m + 20, "\x02\x00\x00\xff\xfe\x00\x00", 7);
    m[27] = ev->from1 ? 1 : 2;
    put16(m + 28, 1);
    put16(m + 30, ev->seq);
    m[32] = control;
    m[33] = ev->type == 0x0 || ev->type == 0x8 ? 0xfe : ev->type == 0x1 || ev->type == 0x9 ? 0xfe : 0x7f;
    ptp_ts(m + 34, ns);
    if (mlen == 54 && ev->type != 0x2) {
        /* requestingPortIdentity: the other clock's */
        memcpy(m + 44, "\x02\x00\x00\xff\xfe\x00\x00", 7);
        m[51] = ev->from1 ? 2 : 1;
        put16(m + 52, 1);
    }
    /* the UDP checksum over the IPv6 pseudo-header (RFC 8200 §8.1) */
    for (i = 0; i < 32; i += 2)
        sum += (uint32_t)(ip[8 + i] << 8 | ip[8 + i + 1]);
    sum += 8u + mlen + 17u;
    for (i = 0; i < 8u + mlen; i += 2)
        sum += (uint32_t)(udp[i] << 8 | (i + 1 < 8u + mlen ? udp[i + 1] : 0));
    while (sum >> 16)
        sum = (sum & 0xffff) + (sum >> 16);
    put16(udp + 6, (~sum & 0xffff) ? (~sum & 0xffff) : 0xffff);
    return 14 + 40 + 8 + mlen;
}

static int
cmp_ptp_ev(const void *a, const void *b)
{
    const struct ptp_ev *x = a, *y = b;

    return (x->t_us > y->t_us) - (x->t_us < y->t_us);
}

/* PTP between fe80::1 (CE on all it sends) and fe80::2 (Not-ECT) */
static int
ptp_ce(const char *out)
{
    struct ptp_ev ev[128];
    uint8_t f[256];
    size_t n = 0, i, len;
    uint16_t k;
    FILE *fp = fopen(out, "wb");

    if (!fp) {
        fprintf(stderr, "ecngen: %s: %s\n", out, strerror(errno));
        return 3;
    }
    for (k = 0; k < 16; k++) {
        uint32_t t = 1000u + 250000u * k;

        /* two-step Sync and its Follow_Up, unicast to fe80::2; its Delay_Req
         * 40 ms on, the Delay_Resp 300 us after that */
        ev[n++] = (struct ptp_ev){t, true, false, 0x0, k};
        ev[n++] = (struct ptp_ev){t + 120, true, false, 0x8, k};
        ev[n++] = (struct ptp_ev){t + 40000, false, false, 0x1, k};
        ev[n++] = (struct ptp_ev){t + 40300, true, false, 0x9, k};
    }
    for (k = 0; k < 4; k++) {
        uint32_t t = 120000u + 1000000u * k;

        /* the peer delay on ff02::6b, each way once a second */
        ev[n++] = (struct ptp_ev){t, true, true, 0x2, k};
        ev[n++] = (struct ptp_ev){t + 200, false, true, 0x3, k};
        ev[n++] = (struct ptp_ev){t + 320, false, true, 0xa, k};
        ev[n++] = (struct ptp_ev){t + 500000, false, true, 0x2, k};
        ev[n++] = (struct ptp_ev){t + 500200, true, true, 0x3, k};
        ev[n++] = (struct ptp_ev){t + 500320, true, true, 0xa, k};
    }
    qsort(ev, n, sizeof(ev[0]), cmp_ptp_ev);
    if (pcap_header(fp, 65535, 1) != 0)
        goto fail;
    for (i = 0; i < n; i++) {
        uint32_t sec = 1700000000u + ev[i].t_us / 1000000u, usec = ev[i].t_us % 1000000u;

        len = ptp_frame(f, &ev[i], (uint64_t)sec * 1000000000u + (uint64_t)usec * 1000u);
        if (pcap_frame(fp, sec, usec, f, len) != 0)
            goto fail;
    }
    if (fclose(fp) != 0) {
        fprintf(stderr, "ecngen: %s: cannot write\n", out);
        return 3;
    }
    return 0;
fail:
    fclose(fp);
    fprintf(stderr, "ecngen: %s: cannot write\n", out);
    return 3;
}

static void
usage(void)
{
    int i;

    fprintf(stderr, "usage: ecngen relink vlan|qinq|sll|sll2|raw|ipv4|ipv6|null|loop|ppp|chdlc|ipoib|nflog IN OUT\n"
                    "       ecngen hostile KIND OUT\n"
                    "       ecngen flood OUT N [udp|ecn|spread]\n"
                    "       ecngen udp-oneway OUT\n"
                    "       ecngen ptp-ce OUT\n"
                    "hostile kinds:");
    for (i = 0; hostile_kinds[i]; i++)
        fprintf(stderr, " %s", hostile_kinds[i]);
    fputc('\n', stderr);
}

int
main(int argc, char **argv)
{
    if (argc == 5 && !strcmp(argv[1], "relink"))
        return relink(argv[2], argv[3], argv[4]);
    if (argc == 4 && !strcmp(argv[1], "hostile"))
        return hostile(argv[2], argv[3]);
    if (argc == 3 && !strcmp(argv[1], "udp-oneway"))
        return udp_oneway(argv[2]);
    if (argc == 3 && !strcmp(argv[1], "ptp-ce"))
        return ptp_ce(argv[2]);
    if (argc == 4 && !strcmp(argv[1], "flood"))
        return flood(argv[2], argv[3], "tcp");
    if (argc == 5 && !strcmp(argv[1], "flood") &&
        (!strcmp(argv[4], "udp") || !strcmp(argv[4], "ecn") || !strcmp(argv[4], "spread")))
        return flood(argv[2], argv[3], argv[4]);
    usage();
    return 2;
}
