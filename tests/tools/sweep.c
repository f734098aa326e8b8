/* sweep.c - snaplen sweep: every frame of every capture given is dissected at
 * every length from 0 to its caplen, each result is fed through the flow
 * table and the accounting, and the outcome is checked against the frame's
 * full dissection:
 *   - a cut below the end of the transport header never yields a complete
 *     transport header without a truncation event;
 *   - a cut at or past it yields the same ports, flags, codepoint and payload;
 *   - a cut frame's codepoint is the full frame's at the depth it reached:
 *     a tunnel the cut leaves unopened gives the packet that carries it, with
 *     the codepoint of that packet's own IP header (the full frame's
 *     encapsulation record of that depth);
 *   - a cut inside the link or IP header is never counted as an IP packet.
 * Each cut frame is copied into a buffer of exactly its length, so the
 * sanitizer build catches any read past it. Exit 1 on any violation. */
#include <inttypes.h>
#include <pcap/pcap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/analyze.h"
#include "input/capture.h"
#include "dissectors/dissect.h"

static const uint64_t any_trunc = (1ull << EW_EV_LINK_TRUNC) | (1ull << EW_EV_IPV4_TRUNC) |
                                  (1ull << EW_EV_IPV6_TRUNC) | (1ull << EW_EV_TCP_TRUNC) |
                                  (1ull << EW_EV_TCP_OPT_TRUNC) | (1ull << EW_EV_UDP_TRUNC) |
                                  (1ull << EW_EV_TUNNEL_TRUNC);

static unsigned long violations;

static void
violation(const char *file, uint64_t frame, uint32_t cut, const char *what)
{
    if (violations < 20)
        fprintf(stderr, "sweep: %s frame %" PRIu64 " cut at %u: %s\n", file, frame, cut, what);
    violations++;
}

static int
same_transport(const struct ew_pkt *a, const struct ew_pkt *b)
{
    if (a->l4 != b->l4 || a->ecn != b->ecn || a->family != b->family)
        return 0;
    if (a->l4 == EW_L4_TCP)
        return a->u.tcp.sport == b->u.tcp.sport && a->u.tcp.dport == b->u.tcp.dport &&
               a->u.tcp.flags == b->u.tcp.flags && a->u.tcp.payload == b->u.tcp.payload &&
               a->u.tcp.seq == b->u.tcp.seq && a->u.tcp.acc.present == b->u.tcp.acc.present;
    if (a->l4 == EW_L4_UDP)
        return a->u.udp.sport == b->u.udp.sport && a->u.udp.dport == b->u.udp.dport &&
               a->u.udp.payload == b->u.udp.payload;
    return 1;
}

/* the codepoint a cut frame must show: the full frame's innermost, or,
 * where the cut left tunnels unopened, that of the outer IP header of the
 * first encapsulation it did not open (the packet it stopped at) */
static int
ecn_at_depth(const struct ew_pkt *full, const struct ew_pkt *cut)
{
    int i;

    for (i = cut->n_encap; i < full->n_encap; i++)
        if (full->encap[i].family)
            return full->encap[i].ecn;
    return full->ecn;
}

static int
sweep_file(const char *path)
{
    char err[EW_ERRBUF_SIZE];
    struct ew_capture *cap;
    struct ew_analyzer an;
    struct ew_analyzer_cfg cfg = {.max_flows = 64, .hash_seed = 1, .idle_ns = 1000000000};
    struct ew_frame fr;
    uint64_t frame = 0, dissections = 0;
    enum ew_link link;
    enum ew_cap_next nx;

    if (ew_capture_open_file(path, NULL, &cap, err, sizeof(err)) != 0) {
        fprintf(stderr, "sweep: %s\n", err);
        return -1;
    }
    if (ew_analyzer_init(&an, &cfg) != 0) {
        ew_capture_close(cap);
        return -1;
    }
    while ((nx = ew_capture_next(cap, &fr, err, sizeof(err))) == EW_CAP_FRAME) {
        struct ew_pkt full, cut;
        uint32_t n;

        frame++;
        link = fr.link; /* a pcapng file's interfaces each have their own */
        ew_dissect_frame(link, fr.data, fr.caplen, fr.wirelen, &full);
        for (n = 0; n <= fr.caplen; n++) {
            uint8_t *buf = malloc(n ? n : 1);

            if (!buf)
                return -1;
            memcpy(buf, fr.data, n);
            ew_dissect_frame(link, buf, n, fr.wirelen, &cut);
            dissections++;
            /* cut.l4_payload points into buf (pkt.h): free it after the analyzer */
            ew_analyzer_frame(&an, &cut, fr.ts_ns);
            free(buf);
            if (full.l4 != EW_L4_NONE && n < full.l4_end) {
                if (cut.l4 == full.l4 && !(cut.events & any_trunc))
                    violation(path, frame, n, "complete transport header from a cut frame");
                if (cut.l4 == EW_L4_NONE && cut.status == EW_PKT_OK && !(cut.events & any_trunc))
                    violation(path, frame, n, "transport lost without a truncation event");
            }
            if (full.l4 != EW_L4_NONE && n >= full.l4_end && !same_transport(&full, &cut))
                violation(path, frame, n, "transport differs from the full frame's");
            if (full.status == EW_PKT_OK && cut.status == EW_PKT_OK &&
                (int)cut.ecn != ecn_at_depth(&full, &cut))
                violation(path, frame, n, "codepoint differs from the full frame's");
            if (cut.status == EW_PKT_UNDECODABLE && !(cut.events & any_trunc) &&
                full.status == EW_PKT_OK)
                violation(path, frame, n, "undecodable without a truncation event");
        }
    }
    ew_capture_close(cap);
    printf("sweep: %s: %" PRIu64 " frames, %" PRIu64 " dissections, %" PRIu64
           " IP packets accounted\n",
           path, frame, dissections, an.tot.ip_packets);
    ew_analyzer_free(&an);
    return nx == EW_CAP_END ? 0 : -1;
}

int
main(int argc, char **argv)
{
    int i, bad = 0;

    for (i = 1; i < argc; i++)
        if (sweep_file(argv[i]) != 0)
            bad = 1;
    if (violations)
        fprintf(stderr, "sweep: %lu violations\n", violations);
    return (bad || violations) ? 1 : 0;
}
