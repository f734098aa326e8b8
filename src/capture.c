/* capture.c - libpcap offline reading (pcap and pcapng) and link-type mapping. */
#include "ecnwatch/capture.h"

#include <errno.h>
#include <pcap/pcap.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#ifndef DLT_IPV4
#define DLT_IPV4 228
#endif
#ifndef DLT_IPV6
#define DLT_IPV6 229
#endif
#ifndef DLT_LINUX_SLL2
#define DLT_LINUX_SLL2 276
#endif

struct ew_capture {
    pcap_t *p;
    enum ew_link link;
    const char *link_name;
};

static const struct {
    int dlt;
    enum ew_link link;
} link_map[] = {
    {DLT_EN10MB, EW_LINK_ETHERNET},
    {DLT_LINUX_SLL, EW_LINK_SLL},
    {DLT_LINUX_SLL2, EW_LINK_SLL2},
    {DLT_RAW, EW_LINK_RAW},
    {12, EW_LINK_RAW}, /* DLT_RAW as Linux numbers it */
    {14, EW_LINK_RAW}, /* DLT_RAW as OpenBSD numbers it */
    {DLT_IPV4, EW_LINK_IPV4},
    {DLT_IPV6, EW_LINK_IPV6},
    {DLT_NULL, EW_LINK_NULL},
    {DLT_LOOP, EW_LINK_LOOP},
};

static int
map_link(int dlt, enum ew_link *out)
{
    size_t i;

    for (i = 0; i < sizeof(link_map) / sizeof(link_map[0]); i++) {
        if (link_map[i].dlt == dlt) {
            *out = link_map[i].link;
            return 0;
        }
    }
    return -1;
}

static const char *
display_name(const char *path)
{
    return strcmp(path, "-") == 0 ? "standard input" : path;
}

int
ew_capture_open_file(const char *path, const char *filter, struct ew_capture **out,
                     char *errbuf, size_t errlen)
{
    char pcerr[PCAP_ERRBUF_SIZE] = "";
    struct ew_capture *cap;
    FILE *fp;
    pcap_t *p;
    int dlt;

    *out = NULL;
    if (strcmp(path, "-") == 0) {
        fp = stdin;
    } else {
        struct stat st;

        if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
            snprintf(errbuf, errlen, "%s: is a directory, not a capture file", path);
            return EW_CAP_ERR_INPUT;
        }
        fp = fopen(path, "rb");
        if (!fp) {
            snprintf(errbuf, errlen, "%s: %s", path, strerror(errno));
            return EW_CAP_ERR_INPUT;
        }
    }
    p = pcap_fopen_offline_with_tstamp_precision(fp, PCAP_TSTAMP_PRECISION_NANO, pcerr);
    if (!p) {
        if (fp != stdin)
            fclose(fp);
        if (strstr(pcerr, "unknown file format") || strstr(pcerr, "truncated") ||
            pcerr[0] == '\0')
            snprintf(errbuf, errlen, "%s: not a pcap or pcapng capture (%s)", display_name(path),
                     pcerr[0] ? pcerr : "empty file");
        else
            snprintf(errbuf, errlen, "%s: %s", display_name(path), pcerr);
        return EW_CAP_ERR_INPUT;
    }
    cap = calloc(1, sizeof(*cap));
    if (!cap) {
        pcap_close(p);
        snprintf(errbuf, errlen, "out of memory");
        return EW_CAP_ERR_INPUT;
    }
    cap->p = p;
    dlt = pcap_datalink(p);
    cap->link_name = pcap_datalink_val_to_name(dlt);
    if (map_link(dlt, &cap->link) != 0) {
        snprintf(errbuf, errlen, "%s: link type %d (%s) is not supported", display_name(path),
                 dlt, cap->link_name ? cap->link_name : "no name known to libpcap");
        ew_capture_close(cap);
        return EW_CAP_ERR_LINK;
    }
    if (!cap->link_name)
        cap->link_name = "unknown";
    if (filter && filter[0]) {
        struct bpf_program prog;

        if (pcap_compile(p, &prog, filter, 1, PCAP_NETMASK_UNKNOWN) != 0) {
            snprintf(errbuf, errlen, "bad filter expression '%s': %s", filter, pcap_geterr(p));
            ew_capture_close(cap);
            return EW_CAP_ERR_FILTER;
        }
        if (pcap_setfilter(p, &prog) != 0) {
            snprintf(errbuf, errlen, "cannot apply filter '%s': %s", filter, pcap_geterr(p));
            pcap_freecode(&prog);
            ew_capture_close(cap);
            return EW_CAP_ERR_FILTER;
        }
        pcap_freecode(&prog);
    }
    *out = cap;
    return 0;
}

enum ew_link
ew_capture_link(const struct ew_capture *cap)
{
    return cap->link;
}

const char *
ew_capture_link_name(const struct ew_capture *cap)
{
    return cap->link_name;
}

enum ew_cap_next
ew_capture_next(struct ew_capture *cap, struct ew_frame *fr, char *errbuf, size_t errlen)
{
    struct pcap_pkthdr *h;
    const u_char *data;
    int rc = pcap_next_ex(cap->p, &h, &data);

    if (rc == 1) {
        /* pcapng can carry any 64-bit time: clamp to 1970..2096 so nanoseconds fit */
        int64_t sec = h->ts.tv_sec < 0 ? 0 : h->ts.tv_sec > 4000000000 ? 4000000000 : h->ts.tv_sec;

        fr->data = data;
        fr->caplen = h->caplen;
        fr->wirelen = h->len;
        fr->ts_ns = sec * 1000000000 + (int64_t)h->ts.tv_usec;
        return EW_CAP_FRAME;
    }
    if (rc == PCAP_ERROR_BREAK)
        return EW_CAP_END;
    snprintf(errbuf, errlen, "%s", pcap_geterr(cap->p));
    return EW_CAP_BROKEN;
}

void
ew_capture_close(struct ew_capture *cap)
{
    if (!cap)
        return;
    if (cap->p)
        pcap_close(cap->p); /* closes the FILE too (also stdin) */
    free(cap);
}
