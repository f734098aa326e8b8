/* pcapng.c - the pcapng block reader (see pcapng.h). libpcap (1.10) reads
 * only files whose interfaces all have the first one's link type and gives
 * no frame's interface, while a file that mergecap or dumpcap writes from
 * several interfaces has one per interface (pcapng, draft-ietf-opsawg-pcapng
 * §4.2, §4.3): here each frame carries its interface's link type, time
 * resolution and offset, and the filter is compiled once per link type for
 * the whole file (not again for each section or interface: a file of many
 * sections costs no more than one).
 * What breaks the format's rules is EW_CAP_INVALID, a file cut short
 * EW_CAP_BROKEN. */
#include "input/pcapng.h"

#include "input/linktype.h"

#include <pcap/pcap.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define NG_MAX_SNAPLEN 262144u /* libpcap's largest for the link types read here */

/* one pcapng interface (Interface Description Block) */
struct ng_if {
    int dlt;
    enum ew_link link;      /* EW_LINK_UNSUPPORTED when not decoded */
    uint32_t snaplen;       /* 0: none */
    bool pow2;              /* if_tsresol: 2^-exp, else 10^-exp, units per second */
    uint8_t exp;
    int64_t tsoffset;       /* if_tsoffset, seconds */
    int prog;               /* its link type's filter in the reader's progs[], -1: not looked up */
};

/* the filter compiled for one link type */
struct ng_prog {
    int dlt;
    bool ok;                 /* else it cannot be: nothing matches */
    struct bpf_program prog;
};

/* the pcapng block reader */
struct ew_ng {
    FILE *fp;
    bool swap;              /* the section's byte order is not this machine's */
    struct ng_if *ifs;
    size_t nif, cap_if;
    struct ng_prog *progs;  /* the filter per link type seen, for the whole file */
    size_t nprog, cap_prog;
    uint8_t *buf;           /* one block's body */
    size_t bufcap;
    uint64_t off;           /* file offset of the next block */
    uint8_t *rb;            /* rbsize bytes read ahead of the blocks, or NULL */
    size_t rbsize;          /* NG_RBUF (ew_ng_open_chunked: another) */
    size_t rlen, rpos;      /* bytes in rb, and the next one to hand out */
    bool own_fp;            /* fp is the reader's own (a decompressed stream): closed with it */
};

/* the pcapng reader reads the file in chunks of this many bytes: one fread a
 * chunk, not three a block (bench/RESULTS.md: a tenth of the time per packet
 * on long captures) */
#define NG_RBUF ((size_t)256 << 10)

static uint32_t
host32(const uint8_t *b)
{
    uint32_t v;

    memcpy(&v, b, 4);
    return v;
}

#define NG_SHB 0x0a0d0d0au
#define NG_IDB 1u
#define NG_PB 2u  /* obsolete Packet Block */
#define NG_SPB 3u
#define NG_EPB 6u
#define NG_MAX_BLOCK (16u * 1024 * 1024) /* libpcap's largest block */
#define NG_MAX_IFS 65536u

static uint32_t
ng32(const struct ew_ng *g, const uint8_t *b)
{
    uint32_t v = host32(b);

    return g->swap ? __builtin_bswap32(v) : v;
}

static uint16_t
ng16(const struct ew_ng *g, const uint8_t *b)
{
    uint16_t v;

    memcpy(&v, b, 2);
    return g->swap ? __builtin_bswap16(v) : v;
}

void
ew_ng_free(struct ew_ng *g)
{
    size_t i;

    if (!g)
        return;
    for (i = 0; i < g->nprog; i++)
        if (g->progs[i].ok)
            pcap_freecode(&g->progs[i].prog);
    free(g->progs);
    if (g->own_fp)
        fclose(g->fp);
    free(g->ifs);
    free(g->buf);
    free(g->rb);
    free(g);
}

/* Read n bytes at the reader's position: 1, 0 at the end of the file
 * before any byte, -1 on a short read or an error */
static int
ng_read(struct ew_ng *g, void *dst, size_t n)
{
    uint8_t *d = dst;
    size_t want = n;

    while (n) {
        size_t k;

        if (g->rpos == g->rlen) {
            if (!g->rb || n >= g->rbsize) { /* no buffer, or a block larger than it */
                size_t got = fread(d, 1, n, g->fp);

                g->off += got;
                if (got == n)
                    return 1;
                return got == 0 && n == want && feof(g->fp) ? 0 : -1;
            }
            g->rlen = fread(g->rb, 1, g->rbsize, g->fp);
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
 * if_tsresol (9) and if_tsoffset (14). 0; -2 when the block breaks the
 * format or holds one interface too many (invalid); -1 out of memory */
static int
ng_idb(struct ew_ng *g, const uint8_t *b, size_t n, char *errbuf, size_t errlen)
{
    struct ng_if *f;
    size_t at = 8;

    if (n < 8) {
        snprintf(errbuf, errlen, "interface description block of %zu bytes", n);
        return -2;
    }
    if (g->nif == g->cap_if) {
        size_t nc = g->cap_if ? g->cap_if * 2 : 4;
        struct ng_if *ni;

        if (g->nif >= NG_MAX_IFS) {
            snprintf(errbuf, errlen, "more than %u interfaces in one section, more than any "
                     "capture has (and than ecnwatch holds)", NG_MAX_IFS);
            return -2;
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
    f->prog = -1;
    f->exp = 6;
    f->dlt = ng16(g, b);
    /* files hold LINKTYPE_ values; the one that differs from Linux's DLT_
     * value among those read here is LINKTYPE_RAW (tcpdump.org/linktypes) */
    if (f->dlt == 101)
        f->dlt = DLT_RAW;
    f->snaplen = ng32(g, b + 4);
    if (ew_link_from_dlt(f->dlt, &f->link) != 0)
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
    } else if (f->exp == 6) { /* microseconds, the default: constant divisors */
        sec = t / 1000000u;
        frac_ns = t % 1000000u * 1000u;
    } else if (f->exp == 9) {
        sec = t / 1000000000u;
        frac_ns = t % 1000000000u;
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

/* the filter for link type dlt: compiled on its first use in the file,
 * then found again (at most one per link type, NG_MAX_IFS of them); its
 * index in g->progs, or -1 when memory ran out */
static int
ng_prog_for(struct ew_ng *g, const char *filter, int dlt)
{
    struct ng_prog *np;
    pcap_t *dead;
    size_t i;

    for (i = 0; i < g->nprog; i++)
        if (g->progs[i].dlt == dlt)
            return (int)i;
    if (g->nprog == g->cap_prog) {
        size_t nc = g->cap_prog ? g->cap_prog * 2 : 4;
        struct ng_prog *n = realloc(g->progs, nc * sizeof(*n));

        if (!n)
            return -1;
        g->progs = n;
        g->cap_prog = nc;
    }
    np = &g->progs[g->nprog];
    memset(np, 0, sizeof(*np));
    np->dlt = dlt;
    dead = pcap_open_dead(dlt, 262144);
    if (dead && pcap_compile(dead, &np->prog, filter, 1, PCAP_NETMASK_UNKNOWN) == 0)
        np->ok = true;
    if (dead)
        pcap_close(dead);
    return (int)g->nprog++;
}

/* true when the frame passes the filter (compiled for the interface's link
 * type on its first use) */
static bool
ng_match(struct ew_ng *g, const char *filter, struct ng_if *f, const struct ew_frame *fr)
{
    struct pcap_pkthdr h;

    if (!filter)
        return true;
    if (f->prog < 0)
        f->prog = ng_prog_for(g, filter, f->dlt);
    if (f->prog < 0 || !g->progs[f->prog].ok)
        return false; /* the expression means nothing on this link type */
    memset(&h, 0, sizeof(h));
    h.caplen = fr->caplen;
    h.len = fr->wirelen;
    return pcap_offline_filter(&g->progs[f->prog].prog, &h, fr->data) != 0;
}

/* forget a section's interfaces (a new section starts); the filters stay */
static void
ng_drop_ifs(struct ew_ng *g)
{
    g->nif = 0;
}

/* one block as read */
struct ng_block {
    const uint8_t *data; /* its body: in the read-ahead chunk when it lies
                          * there whole (valid until the next read), else
                          * copied to g->buf */
    uint64_t at;      /* its file offset */
    uint32_t type, total;
    size_t body;      /* bytes of body (after the type, length and any byte-order magic) */
    bool section;     /* a Section Header Block */
};

/* A Section Header Block's byte-order magic, after its first 8 bytes in h:
 * the section's byte order, and its interfaces forgotten. EW_CAP_FRAME, or
 * the error. */
static enum ew_cap_next
ng_section_start(struct ew_ng *g, uint8_t h[12], uint64_t at, char *errbuf, size_t errlen)
{
    uint32_t magic;

    if (ng_read(g, h + 8, 4) != 1) {
        snprintf(errbuf, errlen, "section header cut at offset %llu", (unsigned long long)at);
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
    return EW_CAP_FRAME;
}

/* room in g->buf for a body of n bytes: 0, or -1 out of memory */
static int
ng_room(struct ew_ng *g, size_t n)
{
    size_t nc = n < 65536 ? 65536 : n;
    uint8_t *nb;

    if (n <= g->bufcap)
        return 0;
    nb = realloc(g->buf, nc);
    if (!nb)
        return -1;
    g->buf = nb;
    g->bufcap = nc;
    return 0;
}

/* The next block whole, its length checked at both ends and a section's
 * version: EW_CAP_FRAME when one was read (b says which), EW_CAP_END at the
 * end of the file, else the error. */
static enum ew_cap_next
ng_block(struct ew_ng *g, struct ng_block *b, char *errbuf, size_t errlen)
{
    uint8_t h[12], tail[4];
    size_t pre = 0;
    int rc;

    b->at = g->off;
    rc = ng_read(g, h, 8);
    if (rc == 0)
        return EW_CAP_END;
    if (rc < 0) {
        snprintf(errbuf, errlen, "pcapng block header cut at offset %llu",
                 (unsigned long long)b->at);
        return EW_CAP_BROKEN;
    }
    b->section = host32(h) == NG_SHB;
    if (b->section) {
        /* a new section: its byte order first, then its length */
        enum ew_cap_next r = ng_section_start(g, h, b->at, errbuf, errlen);

        if (r != EW_CAP_FRAME)
            return r;
        pre = 4;
    }
    b->type = ng32(g, h);
    b->total = ng32(g, h + 4);
    if (b->total < 12 + pre || b->total % 4 != 0 || b->total > NG_MAX_BLOCK) {
        snprintf(errbuf, errlen, "pcapng block at offset %llu claims %u bytes",
                 (unsigned long long)b->at, (unsigned)b->total);
        return EW_CAP_INVALID;
    }
    b->body = b->total - 12 - pre;
    if (g->rb && g->rlen - g->rpos >= b->body + 4) {
        /* in the chunk read ahead, with its trailing length (whose read
         * then refills nothing): not copied again */
        b->data = g->rb + g->rpos;
        g->rpos += b->body;
        g->off += b->body;
    } else {
        if (ng_room(g, b->body) != 0) {
            snprintf(errbuf, errlen, "out of memory for a block of %u bytes", (unsigned)b->total);
            return EW_CAP_BROKEN;
        }
        b->data = g->buf;
        if (b->body && ng_read(g, g->buf, b->body) != 1) {
            snprintf(errbuf, errlen, "pcapng block at offset %llu cut", (unsigned long long)b->at);
            return EW_CAP_BROKEN;
        }
    }
    if (ng_read(g, tail, 4) != 1) {
        snprintf(errbuf, errlen, "pcapng block at offset %llu cut", (unsigned long long)b->at);
        return EW_CAP_BROKEN;
    }
    if (ng32(g, tail) != b->total) {
        snprintf(errbuf, errlen, "pcapng block at offset %llu ends with another length",
                 (unsigned long long)b->at);
        return EW_CAP_INVALID;
    }
    if (b->section && (b->body < 2 || ng16(g, b->data) != 1)) {
        snprintf(errbuf, errlen, "section at offset %llu is not pcapng version 1",
                 (unsigned long long)b->at);
        return EW_CAP_INVALID;
    }
    return EW_CAP_FRAME;
}

/* what a packet block says of its frame */
struct ng_packet {
    uint32_t ifid, caplen, len;
    uint64_t ts;      /* in the interface's units */
    size_t dat;       /* where the frame's bytes start in the body */
};

/* The frame of a packet block (Enhanced, obsolete Packet, or Simple):
 * 1, 0 when b is no packet block, -1 when it breaks the format (errbuf
 * says how). */
static int
ng_packet(const struct ew_ng *g, const struct ng_block *b, struct ng_packet *p, char *errbuf,
          size_t errlen)
{
    if (b->type == NG_EPB || b->type == NG_PB) {
        if (b->body < 20) {
            snprintf(errbuf, errlen, "packet block at offset %llu of %u bytes",
                     (unsigned long long)b->at, (unsigned)b->total);
            return -1;
        }
        p->ifid = b->type == NG_EPB ? ng32(g, b->data) : ng16(g, b->data);
        p->ts = (uint64_t)ng32(g, b->data + 4) << 32 | ng32(g, b->data + 8);
        p->caplen = ng32(g, b->data + 12);
        p->len = ng32(g, b->data + 16);
        p->dat = 20;
        if (p->caplen > b->body - p->dat) {
            snprintf(errbuf, errlen, "packet block at offset %llu claims %u captured bytes",
                     (unsigned long long)b->at, (unsigned)p->caplen);
            return -1;
        }
        return 1;
    }
    if (b->type == NG_SPB) {
        if (b->body < 4) {
            snprintf(errbuf, errlen, "simple packet block at offset %llu of %u bytes",
                     (unsigned long long)b->at, (unsigned)b->total);
            return -1;
        }
        p->ifid = 0;
        p->ts = 0; /* it has none */
        p->len = ng32(g, b->data);
        p->dat = 4;
        p->caplen = p->len < b->body - p->dat ? p->len : (uint32_t)(b->body - p->dat);
        if (g->nif && g->ifs[0].snaplen && p->caplen > g->ifs[0].snaplen)
            p->caplen = g->ifs[0].snaplen;
        return 1;
    }
    return 0; /* statistics, name resolution, custom, ...: nothing to read */
}

/* The next packet block, or the end; other blocks are skipped. *pass says
 * whether the frame passes the filter (the caller counts every frame). */
enum ew_cap_next
ew_ng_next(struct ew_ng *g, const char *filter, struct ew_frame *fr, bool *pass, char *errbuf,
           size_t errlen)
{
    for (;;) {
        struct ng_block b;
        struct ng_packet p;
        struct ng_if *f;
        enum ew_cap_next rc = ng_block(g, &b, errbuf, errlen);
        int k;

        if (rc != EW_CAP_FRAME)
            return rc;
        if (b.section)
            continue;
        if (b.type == NG_IDB) {
            int r = ng_idb(g, b.data, b.body, errbuf, errlen);

            /* a block that breaks the format, or a number of interfaces no
             * capture has, is invalid; out of memory, a read cut short */
            if (r != 0)
                return r == -2 ? EW_CAP_INVALID : EW_CAP_BROKEN;
            continue;
        }
        k = ng_packet(g, &b, &p, errbuf, errlen);
        if (k < 0)
            return EW_CAP_INVALID;
        if (k == 0)
            continue;
        if (p.ifid >= g->nif) {
            snprintf(errbuf, errlen, "packet block at offset %llu for interface %u, of %zu described",
                     (unsigned long long)b.at, (unsigned)p.ifid, g->nif);
            return EW_CAP_INVALID;
        }
        f = &g->ifs[p.ifid];
        fr->data = b.data + p.dat;
        /* clamped as libpcap clamps to its largest snapshot */
        fr->caplen = p.caplen > NG_MAX_SNAPLEN ? NG_MAX_SNAPLEN : p.caplen;
        fr->wirelen = p.len;
        fr->ts_ns = ng_time(f, p.ts);
        fr->link = f->link;
        *pass = ng_match(g, filter, f, fr);
        return EW_CAP_FRAME;
    }
}

/* Read the pcapng stream fp here (a decompressed capture: no seeking), its
 * first 4 bytes already read into m; fp becomes the reader's. NULL (fp
 * left open) when the stream is not pcapng. */
struct ew_ng *
ew_ng_open_stream(FILE *fp, const uint8_t m[4])
{
    return ew_ng_open_chunked(fp, m, NG_RBUF);
}

struct ew_ng *
ew_ng_open_chunked(FILE *fp, const uint8_t m[4], size_t chunk)
{
    struct ew_ng *g;

    if (host32(m) != NG_SHB || chunk < 4)
        return NULL;
    g = calloc(1, sizeof(*g));
    if (!g)
        return NULL;
    g->rb = malloc(chunk);
    if (!g->rb) {
        free(g);
        return NULL;
    }
    g->rbsize = chunk;
    memcpy(g->rb, m, 4);
    g->rlen = 4;
    g->fp = fp;
    g->own_fp = true;
    return g;
}

/* Read the pcapng file behind fp here, from its first block. */
struct ew_ng *
ew_ng_open(FILE *fp)
{
    struct stat st;
    uint8_t m[4];
    int fd = fileno(fp);

    struct ew_ng *g;

    if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
        return NULL;
    if (pread(fd, m, 4, 0) != 4 || host32(m) != NG_SHB)
        return NULL;
    g = calloc(1, sizeof(*g));
    if (!g)
        return NULL;
    if (fseeko(fp, 0, SEEK_SET) != 0) {
        free(g);
        return NULL;
    }
    g->fp = fp;
    g->rb = malloc(NG_RBUF); /* without it, read block by block */
    g->rbsize = NG_RBUF;
    return g;
}
