/* floor.c - the physical floor of reading a capture through libpcap: a bare
 * pcap_next_ex() loop that only counts packets, opened the way ecnwatch
 * opens a file (nanosecond timestamps). Prints the count.
 *
 *   floor FILE
 */
#include <pcap/pcap.h>
#include <stdint.h>
#include <stdio.h>

int
main(int argc, char **argv)
{
    char err[PCAP_ERRBUF_SIZE] = "";
    struct pcap_pkthdr *h;
    const u_char *data;
    uint64_t n = 0;
    pcap_t *p;
    int rc;

    if (argc != 2) {
        fprintf(stderr, "usage: floor FILE\n");
        return 2;
    }
    p = pcap_open_offline_with_tstamp_precision(argv[1], PCAP_TSTAMP_PRECISION_NANO, err);
    if (!p) {
        fprintf(stderr, "floor: %s\n", err);
        return 3;
    }
    while ((rc = pcap_next_ex(p, &h, &data)) == 1)
        n++;
    if (rc != PCAP_ERROR_BREAK) {
        fprintf(stderr, "floor: %s\n", pcap_geterr(p));
        pcap_close(p);
        return 3;
    }
    pcap_close(p);
    printf("%llu\n", (unsigned long long)n);
    return 0;
}
