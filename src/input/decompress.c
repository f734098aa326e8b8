/* decompress.c - gzip (zlib) and xz (liblzma) captures read through a stdio
 * cookie (see decompress.h). Each read of the cookie decompresses into the
 * caller's buffer from a fixed input buffer: nothing grows with the file. A
 * stream that is corrupt, cut short or needs too much memory makes the read
 * fail (errno EIO) and leaves the reason for ew_unzip_error(). */
#define _GNU_SOURCE /* fopencookie */
#include "input/decompress.h"

#include <errno.h>
#include <lzma.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#define IN_SIZE (64u << 10)

enum kind { GZIP, XZ };

struct ew_unzip {
    FILE *raw;
    enum kind kind;
    z_stream z;
    lzma_stream x;
    bool ended;       /* the last member or stream ended cleanly */
    bool member_done; /* gzip: a member ended; another may follow */
    bool in_eof;
    unsigned char in[IN_SIZE];
    char err[160];
};

/* "gzip: WHAT" or "gzip: WHAT (DETAIL)" */
static ssize_t
fail(struct ew_unzip *u, const char *what, const char *detail)
{
    if (!u->err[0])
        snprintf(u->err, sizeof(u->err), "%s: %s%s%s%s", u->kind == GZIP ? "gzip" : "xz", what,
                 detail ? " (" : "", detail ? detail : "", detail ? ")" : "");
    errno = EIO;
    return -1;
}

/* more compressed bytes after those not yet used: false on a read error */
static bool
refill(struct ew_unzip *u, const unsigned char **next, size_t *avail)
{
    size_t n;

    if (*avail > 0 && *next != u->in)
        memmove(u->in, *next, *avail);
    *next = u->in;
    if (u->in_eof || *avail == IN_SIZE)
        return true;
    n = fread(u->in + *avail, 1, IN_SIZE - *avail, u->raw);
    *avail += n;
    if (n == 0) {
        if (ferror(u->raw))
            return false;
        u->in_eof = true;
    }
    return true;
}

static ssize_t
read_gzip(struct ew_unzip *u, char *buf, size_t size)
{
    u->z.next_out = (unsigned char *)buf;
    u->z.avail_out = (uInt)(size > UINT32_MAX ? UINT32_MAX : size);
    while (u->z.next_out == (unsigned char *)buf) {
        const unsigned char *next = u->z.next_in;
        size_t avail = u->z.avail_in;
        int rc;

        if (u->ended)
            return 0;
        if ((avail < 2 && !u->in_eof) || avail == 0) {
            if (!refill(u, &next, &avail))
                return fail(u, "cannot read the compressed stream", strerror(errno));
            u->z.next_in = (unsigned char *)(uintptr_t)next;
            u->z.avail_in = (uInt)avail;
        }
        if (u->member_done) {
            /* another member (gzip's concatenation), or the end; what is
             * not a member after one is ignored, as gzip -d ignores it */
            if (avail < 2 || next[0] != 0x1f || next[1] != 0x8b) {
                u->ended = true;
                return 0;
            }
            if (inflateReset(&u->z) != Z_OK)
                return fail(u, "cannot start the next member", NULL);
            u->member_done = false;
        }
        rc = inflate(&u->z, Z_NO_FLUSH);
        if (rc == Z_STREAM_END) {
            u->member_done = true;
        } else if (rc == Z_MEM_ERROR) {
            return fail(u, "out of memory", NULL);
        } else if (rc == Z_DATA_ERROR || rc == Z_NEED_DICT || rc == Z_STREAM_ERROR) {
            return fail(u, "corrupt data", u->z.msg ? u->z.msg : "invalid stream");
        } else if (rc == Z_BUF_ERROR && u->in_eof) {
            /* no progress with all the input given: the member is cut */
            return fail(u, "the compressed stream ends early (the file is cut short)", NULL);
        }
    }
    return (ssize_t)((char *)u->z.next_out - buf);
}

static ssize_t
read_xz(struct ew_unzip *u, char *buf, size_t size)
{
    u->x.next_out = (uint8_t *)buf;
    u->x.avail_out = size;
    while (u->x.next_out == (uint8_t *)buf) {
        const unsigned char *next = u->x.next_in;
        size_t avail = u->x.avail_in;
        lzma_ret rc;

        if (u->ended)
            return 0;
        if (avail == 0 && !u->in_eof) {
            if (!refill(u, &next, &avail))
                return fail(u, "cannot read the compressed stream", strerror(errno));
            u->x.next_in = next;
            u->x.avail_in = avail;
        }
        rc = lzma_code(&u->x, u->in_eof ? LZMA_FINISH : LZMA_RUN);
        switch (rc) {
        case LZMA_OK:
            break;
        case LZMA_STREAM_END:
            u->ended = true;
            break;
        case LZMA_BUF_ERROR:
            if (u->in_eof)
                return fail(u, "the compressed stream ends early (the file is cut short)", NULL);
            break;
        case LZMA_MEM_ERROR:
            return fail(u, "out of memory", NULL);
        case LZMA_MEMLIMIT_ERROR:
            return fail(u, "the stream needs more than 256 MiB of memory to decompress", NULL);
        case LZMA_FORMAT_ERROR:
            return fail(u, "not an xz stream", NULL);
        case LZMA_OPTIONS_ERROR:
            return fail(u, "compression options this liblzma does not support", NULL);
        case LZMA_DATA_ERROR:
            return fail(u, "corrupt data", NULL);
        default:
            return fail(u, "the stream cannot be decompressed", NULL);
        }
    }
    return (ssize_t)((char *)u->x.next_out - buf);
}

static ssize_t
cookie_read(void *arg, char *buf, size_t size)
{
    struct ew_unzip *u = arg;
    ssize_t n, got;

    if (u->err[0]) {
        errno = EIO;
        return -1;
    }
    if (size == 0)
        return 0;
    n = u->kind == GZIP ? read_gzip(u, buf, size) : read_xz(u, buf, size);
    /* what the failing step still produced (the last bytes before a bad
     * check value) is given first; the next read fails */
    got = u->kind == GZIP ? (char *)u->z.next_out - buf : (char *)u->x.next_out - buf;
    return n < 0 && got > 0 ? got : n;
}

static int
cookie_close(void *arg)
{
    struct ew_unzip *u = arg;
    int rc;

    if (u->kind == GZIP)
        inflateEnd(&u->z);
    else
        lzma_end(&u->x);
    rc = fclose(u->raw);
    free(u);
    return rc;
}

int
ew_unzip_open(FILE *fp, FILE **zfp, struct ew_unzip **z)
{
    static const lzma_stream init = LZMA_STREAM_INIT;
    cookie_io_functions_t io = {.read = cookie_read, .close = cookie_close};
    struct ew_unzip *u;
    FILE *out;
    int c = getc(fp);

    *z = NULL;
    *zfp = fp;
    if (c == EOF && ferror(fp))
        return errno ? errno : EIO; /* also a signal while waiting on a pipe */
    if (c == EOF)
        return 0; /* an empty file: for libpcap to name */
    ungetc(c, fp);
    if (c != 0x1f && c != 0xfd)
        return 0;
    u = calloc(1, sizeof(*u));
    if (!u)
        return ENOMEM;
    u->raw = fp;
    u->kind = c == 0x1f ? GZIP : XZ;
    if (u->kind == GZIP) {
        /* 15 + 16: a gzip header and trailer, with the largest window */
        if (inflateInit2(&u->z, 15 + 16) != Z_OK) {
            free(u);
            return ENOMEM;
        }
    } else {
        u->x = init;
        if (lzma_stream_decoder(&u->x, EW_XZ_MEMLIMIT, LZMA_CONCATENATED) != LZMA_OK) {
            free(u);
            return ENOMEM;
        }
    }
    out = fopencookie(u, "rb", io);
    if (!out) {
        if (u->kind == GZIP)
            inflateEnd(&u->z);
        else
            lzma_end(&u->x);
        free(u);
        return ENOMEM;
    }
    *z = u;
    *zfp = out;
    return 0;
}

const char *
ew_unzip_error(const struct ew_unzip *z)
{
    return z && z->err[0] ? z->err : NULL;
}
