/* linktype.c - the libpcap link types ecnwatch decodes (see linktype.h). */
#include "input/linktype.h"

#include <pcap/pcap.h>
#include <stddef.h>

#ifndef DLT_IPV4
#define DLT_IPV4 228
#endif
#ifndef DLT_IPV6
#define DLT_IPV6 229
#endif
#ifndef DLT_LINUX_SLL2
#define DLT_LINUX_SLL2 276
#endif
#ifndef DLT_IPOIB
#define DLT_IPOIB 242
#endif
#ifndef DLT_NFLOG
#define DLT_NFLOG 239
#endif

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
    {DLT_PPP, EW_LINK_PPP},
    {DLT_PPP_SERIAL, EW_LINK_PPP}, /* LINKTYPE_PPP_HDLC */
    {DLT_C_HDLC, EW_LINK_CHDLC},
    {DLT_IPOIB, EW_LINK_IPOIB},
    {DLT_NFLOG, EW_LINK_NFLOG},
};

int
ew_link_from_dlt(int dlt, enum ew_link *out)
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

