/* ifaces.c - -D, as tcpdump -D (see ifaces.h) */
#include "base/format.h"
#include "input/ifaces.h"

#include <errno.h>
#include <pcap/pcap.h>
#include <stdbool.h>
#include <string.h>

/* the flags tcpdump -D shows, in its words */
static void
flags_of(const pcap_if_t *d, FILE *out)
{
    const char *sep = " [";
    bool any = false;

#define FLAG(cond, word)                                                                           \
    do {                                                                                           \
        if (cond) {                                                                                \
            fprintf(out, "%s%s", sep, word);                                                       \
            sep = ", ";                                                                            \
            any = true;                                                                            \
        }                                                                                          \
    } while (0)
    FLAG(d->flags & PCAP_IF_UP, "Up");
    FLAG(d->flags & PCAP_IF_RUNNING, "Running");
    FLAG(d->flags & PCAP_IF_WIRELESS, "Wireless");
    FLAG(d->flags & PCAP_IF_LOOPBACK, "Loopback");
    switch (d->flags & PCAP_IF_CONNECTION_STATUS) {
    case PCAP_IF_CONNECTION_STATUS_CONNECTED:
        FLAG(1, "Connected");
        break;
    case PCAP_IF_CONNECTION_STATUS_DISCONNECTED:
        FLAG(1, "Disconnected");
        break;
    default:
        break;
    }
#undef FLAG
    if (any)
        fputc(']', out);
}

int
ew_ifaces_list(FILE *out)
{
    char err[PCAP_ERRBUF_SIZE] = "";
    pcap_if_t *all = NULL, *d;
    int i = 0;

    if (pcap_findalldevs(&all, err) != 0) {
        ew_err("ecnwatch: -D: cannot list the interfaces: %s\n",
                err[0] ? err : "libpcap gave no reason");
        return -1;
    }
    for (d = all; d; d = d->next) {
        fprintf(out, "%d.%s", ++i, d->name);
        if (d->description && d->description[0])
            fprintf(out, " (%s)", d->description);
        flags_of(d, out);
        fputc('\n', out);
    }
    pcap_freealldevs(all);
    if (i == 0) {
        /* tcpdump -D fails here too */
        ew_err("ecnwatch: -D: no interface to capture on (listing may need root "
                        "or CAP_NET_RAW)\n");
        return -1;
    }
    if (fflush(out) != 0) {
        ew_err("ecnwatch: -D: cannot write the list: %s\n", strerror(errno));
        return -1;
    }
    return 0;
}
