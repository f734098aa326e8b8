/* ecngen.c - capture generator for the tests.
 *
 *   ecngen relink LINK IN OUT
 *       Re-encapsulate every IP packet of an Ethernet capture IN under another
 *       link type, so that one real capture exercises every link decoder:
 *       vlan (802.1Q), qinq (802.1ad + 802.1Q), sll, sll2, raw, ipv4, ipv6
 *       (only packets of that family), null (BSD, little-endian AF), loop.
 *       Frames with VLAN tags or non-IP ethertypes in IN are copied unchanged
 *       for vlan/qinq and skipped otherwise.
 */
#include <pcap/pcap.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef DLT_LINUX_SLL2
#define DLT_LINUX_SLL2 276
#endif
#ifndef DLT_IPV4
#define DLT_IPV4 228
#endif
#ifndef DLT_IPV6
#define DLT_IPV6 229
#endif

#define MAXFRAME 262144

static void
put16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)(v >> 8);
    p[1] = (uint8_t)v;
}

static void
put32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

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
    return -1;
}

/* build the new link header for an IP packet of ethertype `et`; returns its length */
static size_t
make_header(const char *link, const uint8_t *eth, uint16_t et, uint8_t *out)
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
        hl = make_header(link, data, et, buf);
        memcpy(buf + hl, data + 14, h->caplen - 14);
        oh.caplen = (bpf_u_int32)(h->caplen - 14 + hl);
        oh.len = (bpf_u_int32)(h->len - 14 + hl);
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

static void
usage(void)
{
    fprintf(stderr, "usage: ecngen relink vlan|qinq|sll|sll2|raw|ipv4|ipv6|null|loop IN OUT\n");
}

int
main(int argc, char **argv)
{
    if (argc == 5 && !strcmp(argv[1], "relink"))
        return relink(argv[2], argv[3], argv[4]);
    usage();
    return 2;
}
