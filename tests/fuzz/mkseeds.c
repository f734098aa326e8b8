/* mkseeds.c - seed corpora for the fuzz harnesses, cut from captures.
 *
 *   mkseeds DISSECT_DIR PIPELINE_DIR CAPTURE...
 *   mkseeds --readers PCAPNG_DIR UNZIP_DIR CAPTURE...
 *
 * fuzz_dissect gets the first 40 frames of each capture and every 50th
 * after, each as [link][wire][frame] (see fuzz_dissect.c); fuzz_pipeline
 * (and fuzz_pipeline_mem) gets one input per capture: its first 48 frames,
 * each cut to 160 bytes, in the record format of fuzz_pipeline.c.
 *
 * With --readers, the first 6 frames of each capture, cut to 96 bytes, are
 * written into pcapng files for fuzz_pcapng: little- and big-endian
 * sections with options (if_tsresol in powers of 10 and of 2, if_tsoffset,
 * comments), enhanced, obsolete and simple packet blocks, statistics,
 * name-resolution and custom blocks, several interfaces and link types
 * (Ethernet, LINKTYPE_RAW, one not decoded), several sections; and
 * compressed, with a classic pcap file of the same frames, for fuzz_unzip:
 * gzip (also in two members, and with bytes after the last) and xz (also
 * two streams one after the other).
 *
 * Files are named by a hash of their content, so a frame seen twice is one
 * seed. */
#include <inttypes.h>
#include <lzma.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "input/capture.h"

#define DISSECT_HEAD 40
#define DISSECT_EVERY 50
#define PIPE_FRAMES 48
#define PIPE_CUT 160

static uint64_t
fnv1a(const uint8_t *p, size_t n)
{
    uint64_t h = 0xcbf29ce484222325ULL;
    size_t i;

    for (i = 0; i < n; i++) {
        h ^= p[i];
        h *= 0x100000001b3ULL;
    }
    return h;
}

static int
write_seed(const char *dir, const uint8_t *p, size_t n)
{
    char path[4096];
    FILE *fp;

    snprintf(path, sizeof(path), "%s/seed-%016" PRIx64, dir, fnv1a(p, n));
    fp = fopen(path, "wb");
    if (!fp) {
        perror(path);
        return -1;
    }
    if (fwrite(p, 1, n, fp) != n) {
        fclose(fp);
        return -1;
    }
    return fclose(fp) == 0 ? 0 : -1;
}

static int
seed_capture(const char *path, const char *ddir, const char *pdir, unsigned long *nd)
{
    static uint8_t one[2 + 262144];
    static uint8_t pipe[2 + PIPE_FRAMES * (4 + PIPE_CUT)];
    char err[EW_ERRBUF_SIZE];
    struct ew_capture *cap;
    struct ew_frame fr;
    enum ew_link link;
    size_t plen = 2;
    uint64_t i = 0;
    int64_t last_ns = 0;

    if (ew_capture_open_file(path, NULL, &cap, err, sizeof(err)) != 0) {
        fprintf(stderr, "mkseeds: %s\n", err);
        return -1;
    }
    link = ew_capture_link(cap);
    pipe[0] = (uint8_t)link;
    pipe[1] = 0x0b; /* 4 flows, 10 ms idle timeout, time from 2023 */
    while (ew_capture_next(cap, &fr, err, sizeof(err)) == EW_CAP_FRAME) {
        uint32_t extra = fr.wirelen > fr.caplen ? fr.wirelen - fr.caplen : 0;

        if ((i < DISSECT_HEAD || i % DISSECT_EVERY == 0) && fr.caplen <= sizeof(one) - 2) {
            one[0] = (uint8_t)link;
            one[1] = extra == 0 ? 1 : (uint8_t)(extra > 128 * 64 ? 255 : 127 + (extra + 63) / 64);
            memcpy(one + 2, fr.data, fr.caplen);
            if (write_seed(ddir, one, (size_t)fr.caplen + 2) != 0)
                break;
            (*nd)++;
        }
        if (i < PIPE_FRAMES) {
            uint32_t cut = fr.caplen < PIPE_CUT ? fr.caplen : PIPE_CUT;
            int64_t ms = i ? (fr.ts_ns - last_ns) / 1000000 : 0;
            uint32_t wire = fr.wirelen > cut ? (fr.wirelen - cut + 15) / 16 : 0;

            pipe[plen++] = (uint8_t)(cut >> 8);
            pipe[plen++] = (uint8_t)cut;
            pipe[plen++] = (uint8_t)(int8_t)(ms < -128 ? -128 : ms > 127 ? 127 : ms);
            pipe[plen++] = (uint8_t)(wire > 255 ? 255 : wire);
            memcpy(pipe + plen, fr.data, cut);
            plen += cut;
            last_ns = fr.ts_ns;
        }
        i++;
    }
    ew_capture_close(cap);
    return write_seed(pdir, pipe, plen);
}

/* ------------------------------------------------ --readers: pcapng, gzip, xz */

#define NG_FRAMES 6
#define NG_CUT 96

/* a file being built in memory, its numbers in the section's byte order */
struct out {
    uint8_t p[16384];
    size_t n;
    bool be;
};

static void
put(struct out *o, const void *p, size_t n)
{
    if (n > sizeof(o->p) - o->n) {
        fprintf(stderr, "mkseeds: seed too large\n");
        exit(1);
    }
    memcpy(o->p + o->n, p, n);
    o->n += n;
}

static void
put16(struct out *o, uint16_t v)
{
    uint8_t b[2] = {(uint8_t)(o->be ? v >> 8 : v), (uint8_t)(o->be ? v : v >> 8)};

    put(o, b, 2);
}

static void
put32(struct out *o, uint32_t v)
{
    put16(o, (uint16_t)(o->be ? v >> 16 : v));
    put16(o, (uint16_t)(o->be ? v : v >> 16));
}

static void
put64(struct out *o, uint64_t v)
{
    put32(o, (uint32_t)(o->be ? v >> 32 : v));
    put32(o, (uint32_t)(o->be ? v : v >> 32));
}

static void
set32(struct out *o, size_t at, uint32_t v)
{
    size_t keep = o->n;

    o->n = at;
    put32(o, v);
    o->n = keep;
}

/* a block's type and room for its length; ng_end pads it and writes both lengths */
static size_t
ng_begin(struct out *o, uint32_t type)
{
    size_t at = o->n;

    put32(o, type);
    put32(o, 0);
    return at;
}

static void
ng_end(struct out *o, size_t at)
{
    static const uint8_t zero[4];
    uint32_t total;

    put(o, zero, (4 - o->n % 4) % 4);
    total = (uint32_t)(o->n - at + 4);
    set32(o, at + 4, total);
    put32(o, total);
}

/* an option, padded to 32 bits */
static void
ng_opt(struct out *o, uint16_t code, const void *v, uint16_t len)
{
    static const uint8_t zero[4];

    put16(o, code);
    put16(o, len);
    put(o, v, len);
    put(o, zero, (4 - len % 4) % 4);
}

static void
ng_shb(struct out *o, bool be)
{
    size_t at;

    o->be = be;
    at = ng_begin(o, 0x0a0d0d0a);
    put32(o, 0x1a2b3c4d);
    put16(o, 1);
    put16(o, 0);
    put64(o, UINT64_MAX); /* section length unknown */
    ng_opt(o, 4, "mkseeds", 7); /* shb_userappl */
    put32(o, 0);             /* opt_endofopt */
    ng_end(o, at);
}

/* an interface: link type, snaplen, if_tsresol when tsresol is not 6,
 * if_tsoffset when not 0 */
static void
ng_idb(struct out *o, uint16_t linktype, uint32_t snaplen, uint8_t tsresol, int64_t tsoffset)
{
    size_t at = ng_begin(o, 1);

    put16(o, linktype);
    put16(o, 0);
    put32(o, snaplen);
    ng_opt(o, 2, "eth0", 4); /* if_name */
    if (tsresol != 6)
        ng_opt(o, 9, &tsresol, 1);
    if (tsoffset) {
        put16(o, 14);
        put16(o, 8);
        put64(o, (uint64_t)tsoffset);
    }
    put32(o, 0);
    ng_end(o, at);
}

/* an enhanced (6) or obsolete (2) packet block, with a comment */
static void
ng_epb(struct out *o, uint32_t type, uint32_t ifid, uint64_t ts, const uint8_t *f,
       uint32_t caplen, uint32_t len)
{
    size_t at = ng_begin(o, type);

    if (type == 2) {
        put16(o, (uint16_t)ifid);
        put16(o, 0); /* drops */
    } else {
        put32(o, ifid);
    }
    put32(o, (uint32_t)(ts >> 32));
    put32(o, (uint32_t)ts);
    put32(o, caplen);
    put32(o, len);
    put(o, f, caplen);
    {
        static const uint8_t zero[4];

        put(o, zero, (4 - caplen % 4) % 4);
    }
    ng_opt(o, 1, "seed", 4); /* opt_comment */
    put32(o, 0);
    ng_end(o, at);
}

static void
ng_spb(struct out *o, const uint8_t *f, uint32_t caplen, uint32_t len)
{
    size_t at = ng_begin(o, 3);

    put32(o, len);
    put(o, f, caplen);
    ng_end(o, at);
}

/* blocks the reader skips: interface statistics, name resolution, custom */
static void
ng_others(struct out *o)
{
    size_t at = ng_begin(o, 5);
    uint8_t a[4] = {192, 0, 2, 1};

    put32(o, 0);
    put32(o, 0);
    put32(o, 0);
    put32(o, 0);
    ng_end(o, at);
    at = ng_begin(o, 4);
    put16(o, 1); /* nrb_record_ipv4 */
    put16(o, 12);
    put(o, a, 4);
    put(o, "host.ex\0", 8);
    put32(o, 0);
    ng_end(o, at);
    at = ng_begin(o, 0x00000bad);
    put32(o, 32473); /* private enterprise number */
    put(o, "custom", 6);
    ng_end(o, at);
}

struct frames {
    uint8_t f[NG_FRAMES][NG_CUT];
    uint32_t caplen[NG_FRAMES], len[NG_FRAMES];
    int64_t ts[NG_FRAMES];
    size_t n;
    enum ew_link link;
};

/* the frame i without its Ethernet header, when it has one: *n its length */
static const uint8_t *
raw_ip(const struct frames *fs, size_t i, uint32_t *n)
{
    if (fs->link != EW_LINK_ETHERNET || fs->caplen[i] <= 14) {
        *n = fs->caplen[i];
        return fs->f[i];
    }
    *n = fs->caplen[i] - 14;
    return fs->f[i] + 14;
}

static int
write_seed_out(const char *dir, const struct out *o)
{
    return write_seed(dir, o->p, o->n);
}

static int
pcapng_seeds(const struct frames *fs, uint16_t lt, const char *dir, struct out *kinds,
             struct out *sections)
{
    struct out *o = malloc(sizeof(*o));
    size_t i;
    uint32_t n;
    int rc = 0;

    if (!o)
        return -1;
    /* little-endian, microseconds; big-endian, nanoseconds and an offset */
    for (i = 0; i < 2; i++) {
        size_t k;

        o->n = 0;
        ng_shb(o, i == 1);
        ng_idb(o, lt, 65535, i ? 9 : 6, i ? -3600 : 0);
        for (k = 0; k < fs->n; k++)
            ng_epb(o, 6, 0, (uint64_t)fs->ts[k] / (i ? 1 : 1000), fs->f[k], fs->caplen[k],
                   fs->len[k]);
        ng_others(o);
        rc |= write_seed_out(dir, o);
    }
    /* every kind of block, three interfaces: the link's, raw IP in 2^-20 s, one not decoded */
    kinds->n = 0;
    ng_shb(kinds, false);
    ng_idb(kinds, lt, 128, 6, 0);
    ng_idb(kinds, 101, 0, 0x80 | 20, 0);
    ng_idb(kinds, 147, 65535, 6, 0);
    for (i = 0; i < fs->n; i++) {
        uint64_t us = (uint64_t)fs->ts[i] / 1000;
        const uint8_t *r = raw_ip(fs, i, &n);

        switch (i % 4) {
        case 0:
            ng_epb(kinds, 6, 0, us, fs->f[i], fs->caplen[i], fs->len[i]);
            break;
        case 1:
            ng_epb(kinds, 2, 0, us, fs->f[i], fs->caplen[i], fs->len[i]);
            break;
        case 2:
            ng_spb(kinds, fs->f[i], fs->caplen[i], fs->caplen[i]);
            break;
        default:
            ng_epb(kinds, 6, 1, ((uint64_t)fs->ts[i] / 1000000000) << 20, r, n, n);
            ng_epb(kinds, 6, 2, us, fs->f[i], fs->caplen[i] < 16 ? fs->caplen[i] : 16,
                   fs->len[i]);
            break;
        }
        if (i == 2)
            ng_others(kinds);
    }
    rc |= write_seed_out(dir, kinds);
    /* three sections: the link's (little-endian), raw IP (big-endian), the link's again */
    sections->n = 0;
    for (i = 0; i < fs->n; i++) {
        if (i % 2 == 0) {
            ng_shb(sections, i % 4 == 2);
            ng_idb(sections, i % 4 == 2 ? 101 : lt, 65535, 6, 0);
        }
        if (i % 4 >= 2) {
            const uint8_t *r = raw_ip(fs, i, &n);

            ng_epb(sections, 6, 0, (uint64_t)fs->ts[i] / 1000, r, n, n);
        } else {
            ng_epb(sections, 6, 0, (uint64_t)fs->ts[i] / 1000, fs->f[i], fs->caplen[i],
                   fs->len[i]);
        }
    }
    rc |= write_seed_out(dir, sections);
    free(o);
    return rc;
}

/* gzip (zlib's deflate with a gzip wrapper) of p appended to o */
static int
gzip_to(struct out *o, const uint8_t *p, size_t n)
{
    z_stream z;
    int rc;

    memset(&z, 0, sizeof(z));
    if (deflateInit2(&z, 9, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
        return -1;
    z.next_in = (Bytef *)(uintptr_t)p;
    z.avail_in = (uInt)n;
    z.next_out = o->p + o->n;
    z.avail_out = (uInt)(sizeof(o->p) - o->n);
    rc = deflate(&z, Z_FINISH);
    o->n = sizeof(o->p) - z.avail_out;
    deflateEnd(&z);
    return rc == Z_STREAM_END ? 0 : -1;
}

/* xz (preset 0: a 256 KiB dictionary) of p appended to o */
static int
xz_to(struct out *o, const uint8_t *p, size_t n)
{
    return lzma_easy_buffer_encode(0, LZMA_CHECK_CRC32, NULL, p, n, o->p, &o->n, sizeof(o->p)) ==
                   LZMA_OK
               ? 0
               : -1;
}

static int
unzip_seeds(const struct frames *fs, const struct out *kinds, const struct out *sections,
            const char *dir)
{
    struct out *pcap = malloc(sizeof(*pcap)), *z = malloc(sizeof(*z));
    size_t i;
    int rc = 0;

    if (!pcap || !z) {
        free(pcap);
        free(z);
        return -1;
    }
    /* a classic pcap file of the same frames, as libpcap reads it */
    pcap->n = 0;
    pcap->be = false;
    put32(pcap, 0xa1b23c4d);
    put16(pcap, 2);
    put16(pcap, 4);
    put32(pcap, 0);
    put32(pcap, 0);
    put32(pcap, 65535);
    put32(pcap, fs->link == EW_LINK_ETHERNET ? 1 : 101);
    for (i = 0; i < fs->n; i++) {
        put32(pcap, (uint32_t)(fs->ts[i] / 1000000000));
        put32(pcap, (uint32_t)(fs->ts[i] % 1000000000));
        put32(pcap, fs->caplen[i]);
        put32(pcap, fs->len[i]);
        put(pcap, fs->f[i], fs->caplen[i]);
    }
    z->n = 0;
    rc |= gzip_to(z, pcap->p, pcap->n) | write_seed_out(dir, z);
    z->n = 0;
    rc |= xz_to(z, pcap->p, pcap->n) | write_seed_out(dir, z);
    z->n = 0;
    rc |= gzip_to(z, kinds->p, kinds->n) | write_seed_out(dir, z);
    z->n = 0;
    rc |= xz_to(z, kinds->p, kinds->n) | write_seed_out(dir, z);
    /* two gzip members, then bytes that are no member */
    z->n = 0;
    rc |= gzip_to(z, sections->p, sections->n / 2);
    rc |= gzip_to(z, sections->p + sections->n / 2, sections->n - sections->n / 2);
    put(z, "trailing", 8);
    rc |= write_seed_out(dir, z);
    /* two xz streams */
    z->n = 0;
    rc |= xz_to(z, sections->p, sections->n / 2);
    rc |= xz_to(z, sections->p + sections->n / 2, sections->n - sections->n / 2);
    rc |= write_seed_out(dir, z);
    free(pcap);
    free(z);
    return rc;
}

static int
seed_readers(const char *path, const char *ngdir, const char *zdir)
{
    char err[EW_ERRBUF_SIZE];
    struct ew_capture *cap;
    struct ew_frame fr;
    struct frames *fs = calloc(1, sizeof(*fs));
    struct out *kinds = malloc(sizeof(*kinds)), *sections = malloc(sizeof(*sections));
    int dlt, snap, rc;

    if (!fs || !kinds || !sections || ew_capture_open_file(path, NULL, &cap, err, sizeof(err)) != 0) {
        fprintf(stderr, "mkseeds: %s\n", fs && kinds && sections ? err : "out of memory");
        free(fs);
        free(kinds);
        free(sections);
        return -1;
    }
    fs->link = ew_capture_link(cap);
    ew_capture_format(cap, &dlt, &snap);
    while (fs->n < NG_FRAMES && ew_capture_next(cap, &fr, err, sizeof(err)) == EW_CAP_FRAME) {
        fs->caplen[fs->n] = fr.caplen < NG_CUT ? fr.caplen : NG_CUT;
        fs->len[fs->n] = fr.wirelen;
        fs->ts[fs->n] = fr.ts_ns;
        memcpy(fs->f[fs->n], fr.data, fs->caplen[fs->n]);
        fs->n++;
    }
    ew_capture_close(cap);
    rc = pcapng_seeds(fs, (uint16_t)(dlt == 12 ? 101 : dlt), ngdir, kinds, sections);
    if (rc == 0)
        rc = unzip_seeds(fs, kinds, sections, zdir);
    free(fs);
    free(kinds);
    free(sections);
    return rc;
}

int
main(int argc, char **argv)
{
    unsigned long nd = 0;
    int i, rc = 0;

    if (argc >= 5 && strcmp(argv[1], "--readers") == 0) {
        for (i = 4; i < argc; i++)
            if (seed_readers(argv[i], argv[2], argv[3]) != 0)
                rc = 1;
        printf("mkseeds: reader seeds from %d captures\n", argc - 4);
        return rc;
    }
    if (argc < 4) {
        fprintf(stderr, "usage: mkseeds DISSECT_DIR PIPELINE_DIR CAPTURE...\n"
                        "       mkseeds --readers PCAPNG_DIR UNZIP_DIR CAPTURE...\n");
        return 2;
    }
    for (i = 3; i < argc; i++)
        if (seed_capture(argv[i], argv[1], argv[2], &nd) != 0)
            rc = 1;
    printf("mkseeds: %lu dissector seeds, %d pipeline seeds\n", nd, argc - 3);
    return rc;
}
