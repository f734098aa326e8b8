/* capture.c - libpcap offline reading (pcap and pcapng) and link-type mapping.
 *
 * A classic pcap file (version 2.4, written in this machine's byte order)
 * read without a filter is read here in large blocks, its records parsed in
 * place, instead of two stdio reads and a copy per record inside libpcap.
 * The first record that is not plainly sound (a capture length past the
 * snapshot length, an odd timestamp, a short read at the end) is handed
 * back to libpcap at its offset, so that what follows, and every message,
 * is libpcap's own.
 *
 * A pcapng file given by name is read here too, block by block: libpcap
 * (1.10) reads only files whose interfaces all have the first one's link
 * type and gives no frame's interface, while a file that mergecap or dumpcap
 * writes from several interfaces has one per interface (pcapng,
 * draft-ietf-opsawg-pcapng §4.2, §4.3). libpcap opens it, so that what it
 * refuses is refused with its words; from there on each frame carries its
 * interface's link type, time resolution and offset, and the filter is
 * compiled once per link type. From standard input, which cannot be read
 * twice, libpcap reads it, and a second link type is refused with one line. */
#include "ecnwatch/capture.h"
#include "ecnwatch/decompress.h"

#include <errno.h>
#include <pcap/pcap.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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

#define FAST_BUF_SIZE (1u << 20)
#define FAST_MAX_SNAPLEN 262144u /* libpcap's largest for the link types read here */

/* the block reader of classic pcap files */
struct fast {
    int fd;
    uint8_t *buf;     /* FAST_BUF_SIZE bytes */
    size_t len;       /* bytes held */
    size_t pos;       /* offset of the next record in buf */
    uint64_t off;     /* file offset of buf[0] */
    uint32_t snaplen; /* libpcap's snapshot length: larger records go to libpcap */
    bool nsec;        /* nanosecond timestamps */
    bool eof;
};

/* one pcapng interface (Interface Description Block) */
struct ng_if {
    int dlt;
    enum ew_link link;      /* EW_LINK_UNSUPPORTED when not decoded */
    uint32_t snaplen;       /* 0: none */
    bool pow2;              /* if_tsresol: 2^-exp, else 10^-exp, units per second */
    uint8_t exp;
    int64_t tsoffset;       /* if_tsoffset, seconds */
    struct bpf_program prog; /* the filter for this link type */
    int prog_state;         /* 0 not compiled, 1 compiled, -1 cannot be: nothing matches */
};

/* the pcapng block reader */
struct ng {
    FILE *fp;
    bool swap;              /* the section's byte order is not this machine's */
    struct ng_if *ifs;
    size_t nif, cap_if;
    uint8_t *buf;           /* one block's body */
    size_t bufcap;
    uint64_t off;           /* file offset of the next block */
    uint8_t *rb;            /* NG_RBUF bytes read ahead of the blocks, or NULL */
    size_t rlen, rpos;      /* bytes in rb, and the next one to hand out */
};

/* the pcapng reader reads the file in chunks of this many bytes: one fread a
 * chunk, not three a block (bench/RESULTS.md: a tenth of the time per packet
 * on long captures) */
#define NG_RBUF ((size_t)256 << 10)

struct ew_capture {
    pcap_t *p;
    struct bpf_program prog; /* offline: the filter, applied here to keep file frame numbers */
    bool have_prog;
    uint64_t number;         /* frames read from the file so far */
    FILE *fp;   /* the file libpcap reads (offline) */
    struct ew_unzip *uz; /* a gzip or xz capture's decompression, or NULL */
    struct fast *fast; /* NULL: every record through libpcap */
    struct ng *ng;     /* a pcapng file read here; NULL otherwise */
    const char *filter; /* the filter expression (offline), for other link types */
    char name[256];    /* the file's name for messages */
    bool live;
    bool micro; /* timestamps in microseconds (live, no nanosecond support) */
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
    {DLT_PPP, EW_LINK_PPP},
    {DLT_PPP_SERIAL, EW_LINK_PPP}, /* LINKTYPE_PPP_HDLC */
    {DLT_C_HDLC, EW_LINK_CHDLC},
    {DLT_IPOIB, EW_LINK_IPOIB},
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

static uint32_t
host32(const uint8_t *b)
{
    uint32_t v;

    memcpy(&v, b, 4);
    return v;
}

/* Read records here when the file is a regular file in the classic pcap
 * format, version 2.4, in this machine's byte order; else leave it all to
 * libpcap. libpcap has read the 24-byte file header; records follow it. */
static void
fast_setup(struct ew_capture *cap, FILE *fp)
{
    struct stat st;
    uint8_t hdr[24];
    uint32_t magic;
    uint16_t major, minor;
    int snap = pcap_snapshot(cap->p);
    struct fast *f;
    int fd = fileno(fp);

    if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
        return;
    if (pread(fd, hdr, sizeof(hdr), 0) != (ssize_t)sizeof(hdr))
        return;
    magic = host32(hdr);
    memcpy(&major, hdr + 4, 2);
    memcpy(&minor, hdr + 6, 2);
    if ((magic != 0xa1b2c3d4 && magic != 0xa1b23c4d) || major != 2 || minor != 4 ||
        pcap_is_swapped(cap->p) || snap <= 0 || (unsigned)snap > FAST_MAX_SNAPLEN)
        return;
    f = calloc(1, sizeof(*f));
    if (!f)
        return;
    f->buf = malloc(FAST_BUF_SIZE);
    if (!f->buf) {
        free(f);
        return;
    }
    f->fd = fd;
    f->off = sizeof(hdr);
    f->snaplen = (uint32_t)snap;
    f->nsec = magic == 0xa1b23c4d;
    cap->fast = f;
    cap->fp = fp;
}

static void
fast_free(struct ew_capture *cap)
{
    if (cap->fast) {
        free(cap->fast->buf);
        free(cap->fast);
        cap->fast = NULL;
    }
}

/* Give the rest of the file to libpcap from the next record on. 0, or -1
 * with errbuf set. */
static int
fast_handover(struct ew_capture *cap, char *errbuf, size_t errlen)
{
    uint64_t at = cap->fast->off + cap->fast->pos;

    fast_free(cap);
    if (fseeko(cap->fp, (off_t)at, SEEK_SET) != 0) {
        snprintf(errbuf, errlen, "cannot seek to offset %llu: %s", (unsigned long long)at,
                 strerror(errno));
        return -1;
    }
    return 0;
}

/* the next record from the block reader: EW_CAP_FRAME, EW_CAP_END, or -2
 * when libpcap is to take over at this record */
static int
fast_next(struct fast *f, struct ew_frame *fr)
{
    for (;;) {
        size_t avail = f->len - f->pos;

        if (avail >= 16) {
            const uint8_t *h = f->buf + f->pos;
            uint32_t sec = host32(h), frac = host32(h + 4), caplen = host32(h + 8);

            /* anything libpcap would adjust, clamp or refuse is its to handle */
            if (caplen > f->snaplen || sec > INT32_MAX ||
                frac >= (f->nsec ? 1000000000u : 1000000u))
                return -2;
            if (avail - 16 >= caplen) {
                fr->data = h + 16;
                fr->caplen = caplen;
                fr->wirelen = host32(h + 12);
                fr->ts_ns = (int64_t)sec * 1000000000 + (int64_t)(f->nsec ? frac : frac * 1000u);
                f->pos += 16 + (size_t)caplen;
                return EW_CAP_FRAME;
            }
        }
        if (f->eof)
            return avail == 0 ? EW_CAP_END : -2; /* a cut record: libpcap says how */
        /* keep the partial record, fill the rest of the buffer */
        if (f->pos > 0) {
            memmove(f->buf, f->buf + f->pos, avail);
            f->off += f->pos;
            f->pos = 0;
            f->len = avail;
        }
        for (;;) {
            ssize_t n = pread(f->fd, f->buf + f->len, FAST_BUF_SIZE - f->len,
                              (off_t)(f->off + f->len));

            if (n > 0) {
                f->len += (size_t)n;
                break;
            }
            if (n == 0) {
                f->eof = true;
                break;
            }
            if (errno != EINTR)
                return -2; /* libpcap reads it again and reports the error */
        }
    }
}

/* ------------------------------------------------------------ pcapng */

#define NG_SHB 0x0a0d0d0au
#define NG_IDB 1u
#define NG_PB 2u  /* obsolete Packet Block */
#define NG_SPB 3u
#define NG_EPB 6u
#define NG_MAX_BLOCK (16u * 1024 * 1024) /* libpcap's largest block */
#define NG_MAX_IFS 65536u

static uint32_t
ng32(const struct ng *g, const uint8_t *b)
{
    uint32_t v = host32(b);

    return g->swap ? __builtin_bswap32(v) : v;
}

static uint16_t
ng16(const struct ng *g, const uint8_t *b)
{
    uint16_t v;

    memcpy(&v, b, 2);
    return g->swap ? __builtin_bswap16(v) : v;
}

static void
ng_free(struct ew_capture *cap)
{
    size_t i;

    if (!cap->ng)
        return;
    for (i = 0; i < cap->ng->nif; i++)
        if (cap->ng->ifs[i].prog_state == 1)
            pcap_freecode(&cap->ng->ifs[i].prog);
    free(cap->ng->ifs);
    free(cap->ng->buf);
    free(cap->ng->rb);
    free(cap->ng);
    cap->ng = NULL;
}

/* Read n bytes at the reader's position: 1, 0 at the end of the file
 * before any byte, -1 on a short read or an error */
static int
ng_read(struct ng *g, void *dst, size_t n)
{
    uint8_t *d = dst;
    size_t want = n;

    while (n) {
        size_t k;

        if (g->rpos == g->rlen) {
            if (!g->rb || n >= NG_RBUF) { /* no buffer, or a block larger than it */
                size_t got = fread(d, 1, n, g->fp);

                g->off += got;
                if (got == n)
                    return 1;
                return got == 0 && n == want && feof(g->fp) ? 0 : -1;
            }
            g->rlen = fread(g->rb, 1, NG_RBUF, g->fp);
            g->rpos = 0;
            if (g->rlen == 0)
                return n == want && feof(g->fp) ? 0 : -1;
        }
        k = g->rlen - g->rpos < n ? g->rlen - g->rpos : n;
        memcpy(d, g->rb + g->rpos, k);
        g->rpos += k;
        g->off += k;
        d += k;
        n -= k;
    }
    return 1;
}

/* an Interface Description Block's body: link type, snaplen, options
 * if_tsresol (9) and if_tsoffset (14) */
static int
ng_idb(struct ew_capture *cap, const uint8_t *b, size_t n, char *errbuf, size_t errlen)
{
    struct ng *g = cap->ng;
    struct ng_if *f;
    size_t at = 8;

    if (n < 8) {
        snprintf(errbuf, errlen, "interface description block of %zu bytes", n);
        return -1;
    }
    if (g->nif == g->cap_if) {
        size_t nc = g->cap_if ? g->cap_if * 2 : 4;
        struct ng_if *ni;

        if (g->nif >= NG_MAX_IFS) {
            snprintf(errbuf, errlen, "more than %u interfaces", NG_MAX_IFS);
            return -1;
        }
        ni = realloc(g->ifs, nc * sizeof(*ni));
        if (!ni) {
            snprintf(errbuf, errlen, "out of memory");
            return -1;
        }
        g->ifs = ni;
        g->cap_if = nc;
    }
    f = &g->ifs[g->nif++];
    memset(f, 0, sizeof(*f));
    f->exp = 6;
    f->dlt = ng16(g, b);
    /* files hold LINKTYPE_ values; the one that differs from Linux's DLT_
     * value among those read here is LINKTYPE_RAW (tcpdump.org/linktypes) */
    if (f->dlt == 101)
        f->dlt = DLT_RAW;
    f->snaplen = ng32(g, b + 4);
    if (map_link(f->dlt, &f->link) != 0)
        f->link = EW_LINK_UNSUPPORTED;
    while (at + 4 <= n) {
        uint16_t code = ng16(g, b + at), len = ng16(g, b + at + 2);

        if (code == 0 || at + 4 + len > n)
            break;
        if (code == 9 && len >= 1) {
            f->pow2 = (b[at + 4] & 0x80) != 0;
            f->exp = b[at + 4] & 0x7f;
        } else if (code == 14 && len >= 8) {
            uint64_t v;

            memcpy(&v, b + at + 4, 8);
            f->tsoffset = (int64_t)(g->swap ? __builtin_bswap64(v) : v);
        }
        at += 4 + (((size_t)len + 3) & ~(size_t)3);
    }
    return 0;
}

/* a timestamp in the interface's units to nanoseconds since 1970, the
 * seconds clamped to 1970..2096 as for libpcap's frames */
static int64_t
ng_time(const struct ng_if *f, uint64_t t)
{
    uint64_t per = 1, sec, frac_ns;
    int64_t s;
    unsigned i;

    if (f->pow2) {
        unsigned e = f->exp > 63 ? 63 : f->exp;
        uint64_t frac = t & (((uint64_t)1 << e) - 1);

        sec = t >> e;
        frac_ns = e > 32 ? ((frac >> (e - 32)) * 1000000000u) >> 32 : (frac * 1000000000u) >> e;
    } else {
        unsigned e = f->exp > 19 ? 19 : f->exp;

        for (i = 0; i < e; i++)
            per *= 10;
        sec = t / per;
        frac_ns = t % per;
        if (e <= 9)
            for (i = e; i < 9; i++)
                frac_ns *= 10;
        else
            for (i = 9; i < e; i++)
                frac_ns /= 10;
    }
    s = sec > (uint64_t)INT64_MAX / 2 ? INT64_MAX / 2 : (int64_t)sec;
    if (f->tsoffset > 0 && s > INT64_MAX / 2 - f->tsoffset)
        s = INT64_MAX / 2;
    else if (f->tsoffset < 0 && s < INT64_MIN / 4 - f->tsoffset)
        s = 0;
    else
        s += f->tsoffset;
    s = s < 0 ? 0 : s > 4000000000 ? 4000000000 : s;
    return s * 1000000000 + (int64_t)frac_ns;
}

/* the interface's filter, compiled for its link type on first use; true
 * when the frame passes */
static bool
ng_match(struct ew_capture *cap, struct ng_if *f, const struct ew_frame *fr)
{
    struct pcap_pkthdr h;

    if (!cap->have_prog)
        return true;
    if (f->prog_state == 0) {
        pcap_t *dead = pcap_open_dead(f->dlt, 262144);

        f->prog_state = -1;
        if (dead && pcap_compile(dead, &f->prog, cap->filter, 1, PCAP_NETMASK_UNKNOWN) == 0)
            f->prog_state = 1;
        if (dead)
            pcap_close(dead);
    }
    if (f->prog_state != 1)
        return false; /* the expression means nothing on this link type */
    memset(&h, 0, sizeof(h));
    h.caplen = fr->caplen;
    h.len = fr->wirelen;
    return pcap_offline_filter(&f->prog, &h, fr->data) != 0;
}

/* forget a section's interfaces (a new section starts) */
static void
ng_drop_ifs(struct ng *g)
{
    size_t i;

    for (i = 0; i < g->nif; i++)
        if (g->ifs[i].prog_state == 1)
            pcap_freecode(&g->ifs[i].prog);
    g->nif = 0;
}

/* The next packet block, or the end; other blocks are skipped. *pass says
 * whether the frame passes the filter (the caller counts every frame). */
static enum ew_cap_next
ng_next(struct ew_capture *cap, struct ew_frame *fr, bool *pass, char *errbuf, size_t errlen)
{
    struct ng *g = cap->ng;

    for (;;) {
        uint8_t h[12], tail[4];
        uint32_t type, total, ifid, caplen, len;
        size_t body, pre = 0, dat;
        uint64_t at = g->off, ts;
        struct ng_if *f;
        int rc = ng_read(g, h, 8);

        if (rc == 0)
            return EW_CAP_END;
        if (rc < 0) {
            snprintf(errbuf, errlen, "pcapng block header cut at offset %llu",
                     (unsigned long long)at);
            return EW_CAP_BROKEN;
        }
        if (host32(h) == NG_SHB) {
            /* a new section: its byte order first, then its length */
            uint32_t magic;

            if (ng_read(g, h + 8, 4) != 1) {
                snprintf(errbuf, errlen, "section header cut at offset %llu",
                         (unsigned long long)at);
                return EW_CAP_BROKEN;
            }
            magic = host32(h + 8);
            if (magic != 0x1a2b3c4du && magic != 0x4d3c2b1au) {
                snprintf(errbuf, errlen, "no byte-order magic in the section header at offset %llu",
                         (unsigned long long)at);
                return EW_CAP_INVALID;
            }
            g->swap = magic == 0x4d3c2b1au;
            ng_drop_ifs(g);
            pre = 4;
        }
        type = ng32(g, h);
        total = ng32(g, h + 4);
        if (total < 12 + pre || total % 4 != 0 || total > NG_MAX_BLOCK) {
            snprintf(errbuf, errlen, "pcapng block at offset %llu claims %u bytes",
                     (unsigned long long)at, (unsigned)total);
            return EW_CAP_INVALID;
        }
        body = total - 12 - pre;
        if (body > g->bufcap) {
            size_t nc = body < 65536 ? 65536 : body;
            uint8_t *nb = realloc(g->buf, nc);

            if (!nb) {
                snprintf(errbuf, errlen, "out of memory for a block of %u bytes", (unsigned)total);
                return EW_CAP_BROKEN;
            }
            g->buf = nb;
            g->bufcap = nc;
        }
        if ((body && ng_read(g, g->buf, body) != 1) || ng_read(g, tail, 4) != 1) {
            snprintf(errbuf, errlen, "pcapng block at offset %llu cut", (unsigned long long)at);
            return EW_CAP_BROKEN;
        }
        if (ng32(g, tail) != total) {
            snprintf(errbuf, errlen, "pcapng block at offset %llu ends with another length",
                     (unsigned long long)at);
            return EW_CAP_INVALID;
        }
        if (pre) {
            if (body < 2 || ng16(g, g->buf) != 1) {
                snprintf(errbuf, errlen, "section at offset %llu is not pcapng version 1",
                         (unsigned long long)at);
                return EW_CAP_INVALID;
            }
            continue;
        }
        if (type == NG_IDB) {
            if (ng_idb(cap, g->buf, body, errbuf, errlen) != 0)
                return EW_CAP_BROKEN;
            continue;
        }
        if (type == NG_EPB || type == NG_PB) {
            if (body < 20) {
                snprintf(errbuf, errlen, "packet block at offset %llu of %u bytes",
                         (unsigned long long)at, (unsigned)total);
                return EW_CAP_INVALID;
            }
            ifid = type == NG_EPB ? ng32(g, g->buf) : ng16(g, g->buf);
            ts = (uint64_t)ng32(g, g->buf + 4) << 32 | ng32(g, g->buf + 8);
            caplen = ng32(g, g->buf + 12);
            len = ng32(g, g->buf + 16);
            dat = 20;
            if (caplen > body - dat) {
                snprintf(errbuf, errlen, "packet block at offset %llu claims %u captured bytes",
                         (unsigned long long)at, (unsigned)caplen);
                return EW_CAP_INVALID;
            }
        } else if (type == NG_SPB) {
            if (body < 4) {
                snprintf(errbuf, errlen, "simple packet block at offset %llu of %u bytes",
                         (unsigned long long)at, (unsigned)total);
                return EW_CAP_INVALID;
            }
            ifid = 0;
            ts = 0; /* it has none */
            len = ng32(g, g->buf);
            dat = 4;
            caplen = len < body - dat ? len : (uint32_t)(body - dat);
            if (g->nif && g->ifs[0].snaplen && caplen > g->ifs[0].snaplen)
                caplen = g->ifs[0].snaplen;
        } else {
            continue; /* statistics, name resolution, custom, ...: nothing to read */
        }
        if (ifid >= g->nif) {
            snprintf(errbuf, errlen, "packet block at offset %llu for interface %u, of %zu described",
                     (unsigned long long)at, (unsigned)ifid, g->nif);
            return EW_CAP_INVALID;
        }
        f = &g->ifs[ifid];
        if (caplen > FAST_MAX_SNAPLEN)
            caplen = FAST_MAX_SNAPLEN; /* as libpcap clamps to its largest snapshot */
        fr->data = g->buf + dat;
        fr->caplen = caplen;
        fr->wirelen = len;
        fr->ts_ns = ng_time(f, ts);
        fr->link = f->link;
        *pass = ng_match(cap, f, fr);
        return EW_CAP_FRAME;
    }
}

/* Read the pcapng file behind fp here, from its first block. */
static void
ng_setup(struct ew_capture *cap, FILE *fp)
{
    struct stat st;
    uint8_t m[4];
    int fd = fileno(fp);

    if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
        return;
    if (pread(fd, m, 4, 0) != 4 || host32(m) != NG_SHB)
        return;
    cap->ng = calloc(1, sizeof(*cap->ng));
    if (!cap->ng)
        return;
    if (fseeko(fp, 0, SEEK_SET) != 0) {
        free(cap->ng);
        cap->ng = NULL;
        return;
    }
    cap->ng->fp = fp;
    cap->ng->rb = malloc(NG_RBUF); /* without it, read block by block */
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
    struct ew_unzip *uz;
    FILE *fp, *zfp;
    pcap_t *p;
    int dlt, e;

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
    /* a gzip or xz capture is decompressed as libpcap reads it */
    e = ew_unzip_open(fp, &zfp, &uz);
    if (e != 0) {
        if (fp != stdin)
            fclose(fp);
        snprintf(errbuf, errlen, "%s: %s", display_name(path), strerror(e));
        return EW_CAP_ERR_INPUT;
    }
    fp = zfp;
    p = pcap_fopen_offline_with_tstamp_precision(fp, PCAP_TSTAMP_PRECISION_NANO, pcerr);
    if (!p) {
        const char *zerr = ew_unzip_error(uz);

        if (zerr) /* the compressed stream fails before the capture's header */
            snprintf(errbuf, errlen, "%s: %s", display_name(path), zerr);
        else if (strstr(pcerr, "unknown file format") || strstr(pcerr, "truncated") ||
            pcerr[0] == '\0')
            snprintf(errbuf, errlen, "%s: not a pcap or pcapng capture (%s)", display_name(path),
                     pcerr[0] ? pcerr : "empty file");
        else
            snprintf(errbuf, errlen, "%s: %s", display_name(path), pcerr);
        if (fp != stdin)
            fclose(fp); /* uz with it */
        return EW_CAP_ERR_INPUT;
    }
    cap = calloc(1, sizeof(*cap));
    if (!cap) {
        pcap_close(p);
        snprintf(errbuf, errlen, "out of memory");
        return EW_CAP_ERR_INPUT;
    }
    cap->p = p;
    cap->uz = uz;
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
    /* offline the filter is applied here rather than by libpcap, so that
     * frame numbers stay those of the file, as Wireshark numbers them */
    if (filter && filter[0]) {
        if (pcap_compile(p, &cap->prog, filter, 1, PCAP_NETMASK_UNKNOWN) != 0) {
            snprintf(errbuf, errlen, "bad filter expression '%s': %s", filter, pcap_geterr(p));
            ew_capture_close(cap);
            return EW_CAP_ERR_FILTER;
        }
        cap->have_prog = true;
        cap->filter = filter;
    }
    snprintf(cap->name, sizeof(cap->name), "%s", display_name(path));
    if (fp != stdin)
        ng_setup(cap, fp);
    if (fp != stdin && !cap->ng)
        fast_setup(cap, fp);
    *out = cap;
    return 0;
}

static int
finish_open(struct ew_capture *cap, const char *name, const char *filter, char *errbuf,
            size_t errlen)
{
    int dlt = pcap_datalink(cap->p);

    cap->link_name = pcap_datalink_val_to_name(dlt);
    if (map_link(dlt, &cap->link) != 0) {
        snprintf(errbuf, errlen, "%s: link type %d (%s) is not supported", name, dlt,
                 cap->link_name ? cap->link_name : "no name known to libpcap");
        return EW_CAP_ERR_LINK;
    }
    if (!cap->link_name)
        cap->link_name = "unknown";
    if (filter && filter[0]) {
        struct bpf_program prog;

        if (pcap_compile(cap->p, &prog, filter, 1, PCAP_NETMASK_UNKNOWN) != 0) {
            snprintf(errbuf, errlen, "bad filter expression '%s': %s", filter,
                     pcap_geterr(cap->p));
            return EW_CAP_ERR_FILTER;
        }
        if (pcap_setfilter(cap->p, &prog) != 0) {
            snprintf(errbuf, errlen, "cannot apply filter '%s': %s", filter, pcap_geterr(cap->p));
            pcap_freecode(&prog);
            return EW_CAP_ERR_FILTER;
        }
        pcap_freecode(&prog);
    }
    return 0;
}

/* A live handle for iface with ecnwatch's options, not yet activated; with
 * nano, asking for nanosecond timestamps. NULL on failure, errbuf says why. */
static pcap_t *
live_handle(const char *iface, int snaplen, int buffer_kib, bool nano, char *errbuf,
            size_t errlen)
{
    char pcerr[PCAP_ERRBUF_SIZE] = "";
    pcap_t *p = pcap_create(iface, pcerr);

    if (!p) {
        snprintf(errbuf, errlen, "%s: %s", iface, pcerr);
        return NULL;
    }
    pcap_set_snaplen(p, snaplen);
    pcap_set_immediate_mode(p, 1);
    pcap_set_promisc(p, 1);
    if (nano)
        pcap_set_tstamp_precision(p, PCAP_TSTAMP_PRECISION_NANO);
    pcap_set_buffer_size(p, buffer_kib * 1024);
    return p;
}

int
ew_capture_open_live(const char *iface, int snaplen, int buffer_kib, const char *filter,
                     struct ew_capture **out, char *errbuf, size_t errlen)
{
    char pcerr[PCAP_ERRBUF_SIZE] = "";
    struct ew_capture *cap;
    int rc;

    *out = NULL;
    cap = calloc(1, sizeof(*cap));
    if (!cap) {
        snprintf(errbuf, errlen, "out of memory");
        return EW_CAP_ERR_INPUT;
    }
    /* libpcap's default (2 MiB) holds about 10,000 frames of 192 bytes: a
     * burst, or a moment of report work, at a few hundred thousand packets
     * per second overflows it */
    if (buffer_kib <= 0)
        buffer_kib = EW_LIVE_BUFFER_KIB;
    cap->p = live_handle(iface, snaplen, buffer_kib, true, errbuf, errlen);
    if (!cap->p) {
        free(cap);
        return EW_CAP_ERR_INPUT;
    }
    rc = pcap_activate(cap->p);
    if (rc == PCAP_ERROR_TSTAMP_PRECISION_NOTSUP) {
        /* fall back to microseconds: timestamps are then scaled when read */
        pcap_close(cap->p);
        cap->p = live_handle(iface, snaplen, buffer_kib, false, errbuf, errlen);
        if (!cap->p) {
            free(cap);
            return EW_CAP_ERR_INPUT;
        }
        rc = pcap_activate(cap->p);
        cap->micro = true;
    }
    if (rc < 0) {
        switch (rc) {
        case PCAP_ERROR_NO_SUCH_DEVICE:
            snprintf(errbuf, errlen, "%s: no such interface", iface);
            break;
        case PCAP_ERROR_PERM_DENIED:
            snprintf(errbuf, errlen,
                     "%s: no permission to capture (needs CAP_NET_RAW, or run as root): %s",
                     iface, pcap_geterr(cap->p));
            break;
        case PCAP_ERROR_IFACE_NOT_UP:
            snprintf(errbuf, errlen, "%s: the interface is down", iface);
            break;
        default:
            snprintf(errbuf, errlen, "%s: %s", iface, pcap_geterr(cap->p));
            break;
        }
        ew_capture_close(cap);
        return EW_CAP_ERR_INPUT;
    }
    cap->live = true;
    rc = finish_open(cap, iface, filter, errbuf, errlen);
    if (rc == 0 && pcap_setnonblock(cap->p, 1, pcerr) != 0) {
        snprintf(errbuf, errlen, "%s: %s", iface, pcerr);
        rc = EW_CAP_ERR_INPUT;
    }
    if (rc != 0) {
        ew_capture_close(cap);
        return rc;
    }
    *out = cap;
    return 0;
}

int
ew_capture_fd(const struct ew_capture *cap)
{
    return cap->live ? pcap_get_selectable_fd(cap->p) : -1;
}

struct dispatch_ctx {
    struct ew_capture *cap;
    void (*fn)(void *arg, const struct ew_frame *fr);
    void *arg;
};

static void
dispatch_cb(u_char *user, const struct pcap_pkthdr *h, const u_char *data)
{
    struct dispatch_ctx *d = (struct dispatch_ctx *)(void *)user;
    struct ew_frame fr = {0};
    int64_t sec = h->ts.tv_sec < 0 ? 0 : h->ts.tv_sec > 4000000000 ? 4000000000 : h->ts.tv_sec;

    fr.data = data;
    fr.caplen = h->caplen;
    fr.wirelen = h->len;
    fr.ts_ns = sec * 1000000000 + (int64_t)h->ts.tv_usec * (d->cap->micro ? 1000 : 1);
    fr.link = d->cap->link;
    d->fn(d->arg, &fr);
}

int
ew_capture_dispatch(struct ew_capture *cap, int budget,
                    void (*fn)(void *arg, const struct ew_frame *fr), void *arg, char *errbuf,
                    size_t errlen)
{
    struct dispatch_ctx d = {cap, fn, arg};
    int n = pcap_dispatch(cap->p, budget, dispatch_cb, (u_char *)(void *)&d);

    if (n == PCAP_ERROR) {
        snprintf(errbuf, errlen, "%s", pcap_geterr(cap->p));
        return -1;
    }
    return n < 0 ? 0 : n;
}

int
ew_capture_stats(struct ew_capture *cap, uint64_t *received, uint64_t *dropped)
{
    struct pcap_stat st;

    if (!cap->live || pcap_stats(cap->p, &st) != 0)
        return -1;
    *received = st.ps_recv;
    *dropped = (uint64_t)st.ps_drop + st.ps_ifdrop;
    return 0;
}

int
ew_capture_loss(struct ew_capture *cap, struct ew_capture_loss *out)
{
    struct pcap_stat st;

    memset(out, 0, sizeof(*out));
    if (!cap->live || pcap_stats(cap->p, &st) != 0)
        return -1;
    out->received = st.ps_recv;
    out->dropped = st.ps_drop;
    out->ifdropped = st.ps_ifdrop;
#ifdef __linux__
    out->ifdrop_known = true; /* elsewhere libpcap leaves ps_ifdrop at 0 */
#endif
    return 0;
}

enum ew_link
ew_capture_link(const struct ew_capture *cap)
{
    return cap->link;
}

void
ew_capture_format(const struct ew_capture *cap, int *dlt, int *snaplen)
{
    *dlt = pcap_datalink(cap->p);
    *snaplen = pcap_snapshot(cap->p);
}

const char *
ew_capture_link_name(const struct ew_capture *cap)
{
    return cap->link_name;
}

static enum ew_cap_next read_next(struct ew_capture *cap, struct ew_frame *fr, char *errbuf,
                                  size_t errlen);

enum ew_cap_next
ew_capture_next(struct ew_capture *cap, struct ew_frame *fr, char *errbuf, size_t errlen)
{
    enum ew_cap_next rc;
    bool pass = true;

    for (;;) {
        struct pcap_pkthdr h;

        if (cap->ng) {
            rc = ng_next(cap, fr, &pass, errbuf, errlen);
        } else {
            rc = read_next(cap, fr, errbuf, errlen);
            fr->link = cap->link;
            if (rc == EW_CAP_FRAME && cap->have_prog) {
                memset(&h, 0, sizeof(h));
                h.caplen = fr->caplen;
                h.len = fr->wirelen;
                pass = pcap_offline_filter(&cap->prog, &h, fr->data) != 0;
            }
        }
        if (rc != EW_CAP_FRAME)
            return rc;
        fr->number = ++cap->number;
        if (pass)
            return rc;
    }
}

static enum ew_cap_next
read_next(struct ew_capture *cap, struct ew_frame *fr, char *errbuf, size_t errlen)
{
    struct pcap_pkthdr *h;
    const u_char *data;
    int rc;

    if (cap->fast) {
        rc = fast_next(cap->fast, fr);
        if (rc != -2)
            return (enum ew_cap_next)rc;
        if (fast_handover(cap, errbuf, errlen) != 0)
            return EW_CAP_BROKEN;
    }
    rc = pcap_next_ex(cap->p, &h, &data);

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
    if (strstr(pcap_geterr(cap->p), "different from the type of the first interface")) {
        /* libpcap reads one link type per file; this reader reads more,
         * but only what it can read from the start again */
        snprintf(errbuf, errlen,
                 "%s: its pcapng interfaces have different link types (%s): give it as a "
                 "file, not on standard input", cap->name, pcap_geterr(cap->p));
        return EW_CAP_REFUSED;
    }
    snprintf(errbuf, errlen, "%s",
             ew_unzip_error(cap->uz) ? ew_unzip_error(cap->uz) : pcap_geterr(cap->p));
    /* libpcap's words for a pcapng file that breaks the format's rules (its
     * sf-pcapng.c), not one cut short */
    if (!ew_unzip_error(cap->uz) &&
        (strstr(errbuf, "no Interface Description Block") ||
         strstr(errbuf, "pcapng dump file has a length")))
        return EW_CAP_INVALID;
    return EW_CAP_BROKEN;
}

void
ew_capture_close(struct ew_capture *cap)
{
    if (!cap)
        return;
    fast_free(cap);
    ng_free(cap);
    if (cap->have_prog)
        pcap_freecode(&cap->prog);
    if (cap->p)
        pcap_close(cap->p); /* closes the FILE too (also stdin) */
    free(cap);
}
