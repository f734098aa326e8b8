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
 * A pcapng file given by name is read block by block (pcapng.c): libpcap
 * (1.10) reads only files whose interfaces all have the first one's link
 * type and gives no frame's interface, while a file that mergecap or dumpcap
 * writes from several interfaces has one per interface (pcapng,
 * draft-ietf-opsawg-pcapng §4.2, §4.3). libpcap opens it, so that what it
 * refuses is refused with its words; from there on each frame carries its
 * interface's link type, time resolution and offset, and the filter is
 * compiled once per link type. From standard input, which cannot be read
 * twice, libpcap reads it, and a second link type is refused with one line. */
#include "input/capture.h"
#include "input/decompress.h"
#include "input/fanout.h"
#include "input/linktype.h"
#include "input/pcapng.h"

#include <errno.h>
#include <fcntl.h>
#include <pcap/pcap.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#ifdef __linux__
#include <linux/filter.h>
#include <linux/if_packet.h>
#endif
#include <unistd.h>

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


struct ew_capture {
    pcap_t *p;
    struct bpf_program prog; /* offline: the filter, applied here to keep file frame numbers */
    bool have_prog;
    uint64_t number;         /* frames read from the file so far */
    FILE *fp;   /* the file libpcap reads (offline) */
    struct ew_unzip *uz; /* a gzip or xz capture's decompression, or NULL */
    struct fast *fast; /* NULL: every record through libpcap */
    struct ew_ng *ng;  /* a pcapng file read here (pcapng.h); NULL otherwise */
    struct ew_unzip *ng_uz; /* the decompression ng reads (ng_decompressed), or NULL; the
                             * reader's, valid while ng is */
    const char *filter; /* the filter expression (offline), for other link types */
    char name[256];    /* the file's name for messages */
    bool live;
    bool micro; /* timestamps in microseconds (live, no nanosecond support) */
    enum ew_link link;
    const char *link_name;
};

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


static const char *
display_name(const char *path)
{
    return strcmp(path, "-") == 0 ? "standard input" : path;
}

/* A compressed pcapng file read by the block reader (each frame with its
 * interface's link type), from a second decompression of its own: libpcap's
 * stream has read past its start and cannot seek; that decompression's
 * state in *uzp, for its errors. NULL when it is no pcapng or cannot be
 * opened again (libpcap reads it then). */
static struct ew_ng *
ng_decompressed(const char *path, struct ew_input *in, struct ew_unzip **uzp)
{
    struct ew_unzip *uz;
    struct ew_ng *g = NULL;
    FILE *fp, *zfp;
    uint8_t m[4];

    *uzp = NULL;

    if (in && in->fd2 >= 0) {
        fp = fdopen(in->fd2, "rb");
        if (fp)
            in->fd2 = -1;
    } else {
        fp = in ? NULL : fopen(path, "rb");
    }

    if (!fp)
        return NULL;
    if (ew_unzip_open(fp, &zfp, &uz) != 0) {
        fclose(fp);
        return NULL;
    }
    if (fread(m, 1, 4, zfp) == 4)
        g = ew_ng_open_stream(zfp, m);
    if (!g)
        fclose(zfp); /* fp and uz with it */
    *uzp = g ? uz : NULL;
    return g;
}

int
ew_input_open(const char *path, struct ew_input *in, char *errbuf, size_t errlen)
{
    struct stat st;
    int e;

    in->fd = in->fd2 = -1;
    if (!strcmp(path, "-"))
        return 0;
    in->fd = open(path, O_RDONLY | O_CLOEXEC);
    if (in->fd < 0 || fstat(in->fd, &st) != 0) {
        e = errno;
        snprintf(errbuf, errlen, "%s: %s", path, strerror(e));
        ew_input_close(in);
        return EW_CAP_ERR_INPUT;
    }
    if (S_ISDIR(st.st_mode)) {
        snprintf(errbuf, errlen, "%s: is a directory, not a capture file", path);
        ew_input_close(in);
        return EW_CAP_ERR_INPUT;
    }
    /* a FIFO or device is read once: no second reader of its bytes */
    if (S_ISREG(st.st_mode))
        in->fd2 = open(path, O_RDONLY | O_CLOEXEC);
    return 0;
}

void
ew_input_close(struct ew_input *in)
{
    if (in->fd >= 0)
        close(in->fd);
    if (in->fd2 >= 0)
        close(in->fd2);
    in->fd = in->fd2 = -1;
}

int
ew_capture_open_file(const char *path, const char *filter, struct ew_capture **out,
                     char *errbuf, size_t errlen)
{
    return ew_capture_open_input(path, NULL, filter, out, errbuf, errlen);
}

int
ew_capture_open_input(const char *path, struct ew_input *in, const char *filter,
                      struct ew_capture **out, char *errbuf, size_t errlen)
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
    } else if (in && in->fd >= 0) {
        fp = fdopen(in->fd, "rb");
        if (!fp) {
            snprintf(errbuf, errlen, "%s: %s", path, strerror(errno));
            ew_input_close(in);
            return EW_CAP_ERR_INPUT;
        }
        in->fd = -1;
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
    if (ew_link_from_dlt(dlt, &cap->link) != 0) {
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
    if (fp != stdin && !uz)
        cap->ng = ew_ng_open(fp);
    else if (fp != stdin)
        cap->ng = ng_decompressed(path, in, &cap->ng_uz);
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
    if (ew_link_from_dlt(dlt, &cap->link) != 0) {
        snprintf(errbuf, errlen, "%s: link type %d (%s) is not supported", name, dlt,
                 cap->link_name ? cap->link_name : "no name known to libpcap");
        return EW_CAP_ERR_LINK;
    }
    if (!cap->link_name)
        cap->link_name = "unknown";
    if (filter && (filter[0] || cap->live)) {
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
    /* not immediate mode: libpcap then keeps to TPACKET_V2, a fixed slot
     * and a wakeup per frame; TPACKET_V3 packs frames into blocks that the
     * kernel hands over when full or after the timeout */
    pcap_set_timeout(p, EW_LIVE_BLOCK_MS);
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
    /* no filter: the empty one, which takes every frame and cuts it to the
     * snapshot length in the kernel (its program returns the length), so
     * that the ring holds the frames cut; without a program the kernel
     * copies each frame whole into a TPACKET_V3 ring, whose blocks are then
     * full after a fraction of the frames */
    rc = finish_open(cap, iface, filter && filter[0] ? filter : "", errbuf, errlen);
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

#ifdef __linux__
/* PACKET_FANOUT's argument: the group's id in the low 16 bits, the mode above */
static int
fanout_join(int fd, unsigned group, unsigned mode)
{
    int arg = (int)((group & 0xffffu) | (mode << 16));

    return setsockopt(fd, SOL_PACKET, PACKET_FANOUT, &arg, sizeof(arg));
}

/* whether the kernel takes prog: attached, as a filter, to a socket of
 * its own (the same checks as a fan-out program's) */
static bool
fanout_prog_ok(const struct sock_fprog *fp)
{
    int fd = socket(AF_INET, SOCK_DGRAM, 0);
    bool ok;

    if (fd < 0)
        return false;
    ok = setsockopt(fd, SOL_SOCKET, SO_ATTACH_FILTER, fp, sizeof(*fp)) == 0;
    close(fd);
    return ok;
}
#endif

int
ew_capture_fanout(struct ew_capture *cap, unsigned group, bool program, const uint16_t *ports,
                  size_t nports, char *errbuf, size_t errlen)
{
#ifdef __linux__
    struct ew_bpf_insn insn[EW_FANOUT_PROG_MAX];
    struct sock_filter code[EW_FANOUT_PROG_MAX];
    struct sock_fprog fp = {.len = 0, .filter = code};
    size_t n = ew_fanout_program(insn, EW_FANOUT_PROG_MAX, ports, nports), i;
    int fd = pcap_fileno(cap->p);

    for (i = 0; i < n; i++)
        code[i] = (struct sock_filter){insn[i].code, insn[i].jt, insn[i].jf, insn[i].k};
    fp.len = (unsigned short)n;
    /* The program's hash (fanout.h): both directions of a flow on one
     * member, a flow in a UDP tunnel too. Every member joins the same way
     * and installs the same program (the group's one, replaced by an equal
     * one). A kernel without PACKET_FANOUT_CBPF (before 4.3), or one that
     * refuses the program, gets the kernel's own flow hash
     * (PACKET_FANOUT_HASH), which keeps a flow's directions together
     * except inside UDP tunnels (VXLAN, Geneve: it does not look past UDP,
     * whose outer source port differs by direction). */
    if (program && n > 0 && fanout_prog_ok(&fp)) {
        if (fanout_join(fd, group, PACKET_FANOUT_CBPF) == 0) {
            if (setsockopt(fd, SOL_PACKET, PACKET_FANOUT_DATA, &fp, sizeof(fp)) == 0)
                return 0;
            /* not after the check above; the socket is a member now,
             * without a program, and cannot leave: given up */
            snprintf(errbuf, errlen, "cannot set the fan-out program (PACKET_FANOUT_DATA): %s",
                     strerror(errno));
            return -1;
        }
        if (errno != EINVAL) {
            snprintf(errbuf, errlen, "cannot fan the capture out (PACKET_FANOUT): %s",
                     strerror(errno));
            return -1;
        }
    }
    if (fanout_join(fd, group, PACKET_FANOUT_HASH) != 0) {
        snprintf(errbuf, errlen, "cannot fan the capture out (PACKET_FANOUT): %s",
                 strerror(errno));
        return -1;
    }
    return 1;
#else
    (void)cap;
    (void)group;
    (void)program;
    (void)ports;
    (void)nports;
    snprintf(errbuf, errlen, "--workers needs Linux (PACKET_FANOUT)");
    return -1;
#endif
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
            rc = ew_ng_next(cap->ng, cap->have_prog ? cap->filter : NULL, fr, &pass, errbuf,
                            errlen);
            /* a decompression that failed ends the blocks short: its words, as
             * for a compressed pcap file, not those of a file cut short */
            if (rc == EW_CAP_BROKEN && ew_unzip_error(cap->ng_uz))
                snprintf(errbuf, errlen, "%s", ew_unzip_error(cap->ng_uz));
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
    ew_ng_free(cap->ng);
    if (cap->have_prog)
        pcap_freecode(&cap->prog);
    if (cap->p)
        pcap_close(cap->p); /* closes the FILE too (also stdin) */
    free(cap);
}
