/* blast.c - a load generator for the live benchmark (bench/live-rate.sh):
 * the TCP frames of real captures sent into an interface, as many flows as
 * asked, faster than a replay tool can.
 *
 *   blast IFACE FILE... [--flows N] [--rate PPS] [--seconds S] [--count N]
 *                        [--frames N] [--batch N]
 *
 * FILE: classic pcap files (Ethernet, either byte order), already
 * decompressed; others are skipped with a message. Their IPv4 and IPv6 TCP frames, both directions, in file
 * order (at most --frames of them, 200,000 by default) are the templates.
 * Each of the N flows (--flows, 1024 by default) sends the templates in
 * turn, its copy told apart by both addresses: bytes 1 and 2 of each IPv4
 * address, bytes 8 and 9 of each IPv6 address, hold the flow's number, so
 * that a template flow's two directions stay one flow in each copy. The
 * flows take turns frame by frame: frame j is template j / N of flow j % N.
 * A frame captured shorter than it was on the wire is padded with zeros to
 * its length (at most 1514 bytes), so that what is sent is whole. IPv4
 * header checksums are made right; TCP checksums are left as captured.
 *
 * Frames go out through an AF_PACKET socket with PACKET_QDISC_BYPASS, in
 * sendmmsg() batches (--batch, 256 by default), each frame gathered from
 * its patched headers and the template's bytes. --rate paces the batches
 * (0, the default: as fast as the socket takes them); the run ends after
 * --seconds (10 by default) or --count frames. It prints what it sent, how
 * long it took and the CPU it used:
 *   sent 12345678 frames in 10.000 s: 1234567 frames/s, cpu 9.90 s (user 1.00, sys 8.90)
 */
#define _GNU_SOURCE /* sendmmsg */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_packet.h>
#include <net/ethernet.h>
#include <net/if.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define HDR_MAX 128    /* Ethernet, IP and TCP headers patched per copy, at most */
#define FRAME_MAX 1514 /* what a frame is padded to, at most */
#define BATCH_MAX 1024

struct tmpl {
    uint8_t *data;
    uint32_t caplen, len; /* captured, and sent (padded) */
    uint16_t hdr;         /* bytes copied and patched: headers, at most HDR_MAX */
    uint16_t addr[2];     /* offsets of the bytes that hold the flow's number */
    uint16_t ipcsum;      /* offset of the IPv4 header checksum; 0: IPv6 */
    uint16_t iphl;        /* the IPv4 header's length */
};

static volatile sig_atomic_t stop;

static void
on_signal(int sig)
{
    (void)sig;
    stop = 1;
}

static uint32_t
rd32(const uint8_t *b, bool swap)
{
    uint32_t v;

    memcpy(&v, b, 4);
    return swap ? __builtin_bswap32(v) : v;
}

static double
now_s(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The template of one Ethernet frame, or false when it is not IPv4 or IPv6
 * TCP with its headers captured. */
static bool
tmpl_make(const uint8_t *b, uint32_t caplen, uint32_t len, struct tmpl *t)
{
    uint32_t off = 14, l4, thl;
    uint16_t et;

    if (caplen < 14)
        return false;
    et = (uint16_t)(b[12] << 8 | b[13]);
    if (et == 0x8100 && caplen >= 18) {
        et = (uint16_t)(b[16] << 8 | b[17]);
        off = 18;
    }
    if (et == 0x0800) {
        uint32_t ihl;

        if (caplen < off + 20 || (b[off] >> 4) != 4 || b[off + 9] != 6)
            return false;
        ihl = (uint32_t)(b[off] & 15) * 4;
        if (ihl < 20)
            return false;
        l4 = off + ihl;
        t->addr[0] = (uint16_t)(off + 12 + 1);
        t->addr[1] = (uint16_t)(off + 16 + 1);
        t->ipcsum = (uint16_t)(off + 10);
        t->iphl = (uint16_t)ihl;
    } else if (et == 0x86dd) {
        if (caplen < off + 40 || b[off + 6] != 6)
            return false;
        l4 = off + 40;
        t->addr[0] = (uint16_t)(off + 8 + 8);
        t->addr[1] = (uint16_t)(off + 24 + 8);
        t->ipcsum = 0;
        t->iphl = 40;
    } else {
        return false;
    }
    if (caplen < l4 + 20)
        return false;
    thl = (uint32_t)(b[l4 + 12] >> 4) * 4;
    if (thl < 20 || l4 + thl > HDR_MAX || caplen < l4 + thl)
        return false;
    t->hdr = (uint16_t)(l4 + thl);
    t->caplen = caplen;
    t->len = len > FRAME_MAX ? FRAME_MAX : len;
    if (t->len < caplen)
        t->len = caplen > FRAME_MAX ? FRAME_MAX : caplen;
    if (t->caplen > t->len)
        t->caplen = t->len;
    t->data = malloc(t->caplen);
    if (!t->data)
        return false;
    memcpy(t->data, b, t->caplen);
    return true;
}

/* Append the TCP frames of a classic pcap file to tm (room for max);
 * returns how many there are now, or -1 when the file cannot be read. */
static long
load(const char *path, struct tmpl *tm, long n, long max)
{
    FILE *fp = fopen(path, "rb");
    uint8_t gh[24], rh[16];
    static uint8_t buf[262144];
    bool swap;
    uint32_t magic;

    if (!fp) {
        fprintf(stderr, "blast: %s: %s\n", path, strerror(errno));
        return -1;
    }
    if (fread(gh, 1, 24, fp) != 24) {
        fprintf(stderr, "blast: %s: not a pcap file\n", path);
        fclose(fp);
        return -1;
    }
    magic = rd32(gh, false);
    swap = magic == 0xd4c3b2a1 || magic == 0x4d3cb2a1;
    if ((magic != 0xa1b2c3d4 && magic != 0xa1b23c4d && !swap) || rd32(gh + 20, swap) != 1) {
        fprintf(stderr, "blast: %s: not a classic pcap file of Ethernet frames\n", path);
        fclose(fp);
        return -1;
    }
    while (n < max && fread(rh, 1, 16, fp) == 16) {
        uint32_t caplen = rd32(rh + 8, swap), len = rd32(rh + 12, swap);

        if (caplen > sizeof(buf) || fread(buf, 1, caplen, fp) != caplen)
            break;
        if (tmpl_make(buf, caplen, len, &tm[n]))
            n++;
    }
    fclose(fp);
    return n;
}

static uint16_t
ip_csum(const uint8_t *h, size_t len)
{
    uint32_t s = 0;
    size_t i;

    for (i = 0; i + 1 < len; i += 2)
        s += (uint32_t)(h[i] << 8 | h[i + 1]);
    while (s >> 16)
        s = (s & 0xffff) + (s >> 16);
    return (uint16_t)~s;
}

/* frame slot of a batch: the copy's headers, and up to three pieces */
struct slot {
    uint8_t hdr[HDR_MAX];
    struct iovec iov[3];
};

static void
fill(struct slot *s, struct mmsghdr *m, const struct tmpl *t, uint32_t flow,
     const uint8_t *zeros)
{
    int niov = 1;
    uint16_t c;

    memcpy(s->hdr, t->data, t->hdr);
    s->hdr[t->addr[0]] = s->hdr[t->addr[1]] = (uint8_t)(flow >> 8);
    s->hdr[t->addr[0] + 1] = s->hdr[t->addr[1] + 1] = (uint8_t)flow;
    if (t->ipcsum) {
        s->hdr[t->ipcsum] = s->hdr[t->ipcsum + 1] = 0;
        c = ip_csum(s->hdr + t->ipcsum - 10, t->iphl);
        s->hdr[t->ipcsum] = (uint8_t)(c >> 8);
        s->hdr[t->ipcsum + 1] = (uint8_t)c;
    }
    s->iov[0].iov_base = s->hdr;
    s->iov[0].iov_len = t->hdr;
    if (t->caplen > t->hdr) {
        s->iov[niov].iov_base = t->data + t->hdr;
        s->iov[niov++].iov_len = t->caplen - t->hdr;
    }
    if (t->len > t->caplen) {
        s->iov[niov].iov_base = (void *)(uintptr_t)zeros;
        s->iov[niov++].iov_len = t->len - t->caplen;
    }
    memset(&m->msg_hdr, 0, sizeof(m->msg_hdr));
    m->msg_hdr.msg_iov = s->iov;
    m->msg_hdr.msg_iovlen = (size_t)niov;
}

static void
usage(void)
{
    fprintf(stderr, "usage: blast IFACE FILE... [--flows N] [--rate PPS] [--seconds S] "
                    "[--count N] [--frames N] [--batch N]\n");
    exit(2);
}

int
main(int argc, char **argv)
{
    const char *iface = NULL;
    long flows = 1024, frames = 200000, batch = 256, n = 0, i;
    double rate = 0, seconds = 10, t0, t1, elapsed;
    unsigned long long count = 0, sent = 0, j = 0;
    static uint8_t zeros[FRAME_MAX];
    struct tmpl *tm;
    struct slot *slots;
    struct mmsghdr *msgs;
    struct sockaddr_ll sll = {0};
    struct rusage ru;
    int fd, one = 1, a;
    char **files = calloc((size_t)argc, sizeof(*files));
    int nfiles = 0;

    if (!files)
        return 2;
    for (a = 1; a < argc; a++) {
        if (!strcmp(argv[a], "--flows") && a + 1 < argc)
            flows = atol(argv[++a]);
        else if (!strcmp(argv[a], "--rate") && a + 1 < argc)
            rate = atof(argv[++a]);
        else if (!strcmp(argv[a], "--seconds") && a + 1 < argc)
            seconds = atof(argv[++a]);
        else if (!strcmp(argv[a], "--count") && a + 1 < argc)
            count = strtoull(argv[++a], NULL, 10);
        else if (!strcmp(argv[a], "--frames") && a + 1 < argc)
            frames = atol(argv[++a]);
        else if (!strcmp(argv[a], "--batch") && a + 1 < argc)
            batch = atol(argv[++a]);
        else if (argv[a][0] == '-')
            usage();
        else if (!iface)
            iface = argv[a];
        else
            files[nfiles++] = argv[a];
    }
    if (!iface || !nfiles || flows < 1 || flows > 65536 || frames < 1 || batch < 1 ||
        batch > BATCH_MAX)
        usage();
    tm = calloc((size_t)frames, sizeof(*tm));
    slots = calloc((size_t)batch, sizeof(*slots));
    msgs = calloc((size_t)batch, sizeof(*msgs));
    if (!tm || !slots || !msgs)
        return 2;
    for (a = 0; a < nfiles && n < frames; a++) {
        long got = load(files[a], tm, n, frames);

        if (got >= 0) /* else skipped, its message printed */
            n = got;
    }
    if (n == 0) {
        fprintf(stderr, "blast: no TCP frames in the files\n");
        return 3;
    }
    fd = socket(AF_PACKET, SOCK_RAW, 0);
    if (fd < 0) {
        fprintf(stderr, "blast: socket: %s\n", strerror(errno));
        return 3;
    }
    if (setsockopt(fd, SOL_PACKET, PACKET_QDISC_BYPASS, &one, sizeof(one)) != 0)
        fprintf(stderr, "blast: PACKET_QDISC_BYPASS: %s (through the qdisc)\n", strerror(errno));
    sll.sll_family = AF_PACKET;
    sll.sll_protocol = 0;
    sll.sll_ifindex = (int)if_nametoindex(iface);
    if (!sll.sll_ifindex || bind(fd, (struct sockaddr *)&sll, sizeof(sll)) != 0) {
        fprintf(stderr, "blast: %s: %s\n", iface, strerror(errno));
        return 3;
    }
    signal(SIGINT, on_signal);
    signal(SIGTERM, on_signal);
    fprintf(stderr, "blast: %ld template frames, %ld flows\n", n, flows);
    t0 = now_s();
    while (!stop) {
        long want = batch, k = 0;
        int r;

        if (count && sent + (unsigned long long)want > count)
            want = (long)(count - sent);
        if (want <= 0)
            break;
        if (rate > 0) {
            double due = t0 + (double)sent / rate, t;

            while ((t = now_s()) < due)
                if (due - t > 0.0002)
                    usleep((useconds_t)((due - t) * 1e6 / 2));
        }
        if (now_s() - t0 >= seconds)
            break;
        for (i = 0; i < want; i++) {
            unsigned long long f = j + (unsigned long long)i;

            fill(&slots[i], &msgs[i], &tm[(f / (unsigned long long)flows) % (unsigned long long)n],
                 (uint32_t)(f % (unsigned long long)flows), zeros);
        }
        while (k < want && !stop) {
            r = sendmmsg(fd, msgs + k, (unsigned)(want - k), 0);
            if (r < 0) {
                if (errno == EINTR)
                    continue;
                if (errno == ENOBUFS || errno == EAGAIN)
                    continue; /* the device's queue is full: try again */
                fprintf(stderr, "blast: sendmmsg: %s\n", strerror(errno));
                stop = 1;
                break;
            }
            k += r;
        }
        sent += (unsigned long long)k;
        j += (unsigned long long)k;
    }
    t1 = now_s();
    elapsed = t1 - t0;
    getrusage(RUSAGE_SELF, &ru);
    printf("sent %llu frames in %.3f s: %.0f frames/s, cpu %.2f s (user %.2f, sys %.2f)\n", sent,
           elapsed, elapsed > 0 ? (double)sent / elapsed : 0,
           (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + (double)ru.ru_stime.tv_sec +
               ru.ru_stime.tv_usec / 1e6,
           (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6,
           (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6);
    close(fd);
    return 0;
}
