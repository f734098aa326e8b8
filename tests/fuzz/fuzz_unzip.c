/* fuzz_unzip.c - libFuzzer harness for the gzip and xz decompression
 * (src/input/decompress.c) and the pcapng reader behind it.
 *
 * Input: a compressed file as it is (gzip: 1f 8b; xz: fd 37 7a 58 5a 00;
 * anything else is handed back untouched, which is checked).
 *
 * The file is read from memory (fmemopen) through ew_unzip_open, as the
 * capture layer reads it, three times:
 *   1. with reads of changing sizes (24, 16, 1, 1500, 64 KiB, 7 bytes, as
 *      libpcap's header, record headers and records, and odd ones), up to
 *      8 MiB of output;
 *   2. with reads of 64 KiB: the same bytes, the same end and the same
 *      message (ew_unzip_error) as 1;
 *   3. as capture.c's ng_decompressed reads a compressed pcapng file: its
 *      first 4 bytes, then the block reader from a second decompression
 *      (ew_ng_open_stream), every frame read whole. When the stream
 *      decompressed cleanly and whole in 1, the frames and the end must be
 *      those the block reader gives for the decompressed bytes themselves. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "input/decompress.h"
#include "input/pcapng.h"
#include "fuzz.h"

#define OUT_MAX ((size_t)8 << 20)

/* the decompressed bytes of read 1, kept for read 3's comparison */
static uint8_t *out;

struct outcome {
    uint64_t digest;
    size_t len;
    bool error, whole;
    char msg[200];
};

static FILE *
open_mem(const uint8_t *data, size_t size)
{
    FILE *fp = fmemopen((void *)(uintptr_t)data, size, "rb");

    if (!fp)
        abort();
    return fp;
}

/* The decompressed stream read in pieces of the sizes given in turn; false
 * when the input is not compressed */
static bool
read_all(const uint8_t *data, size_t size, const size_t *sizes, size_t nsizes, struct outcome *o)
{
    struct ew_unzip *z;
    FILE *fp = open_mem(data, size), *zfp;
    size_t i = 0;

    memset(o, 0, sizeof(*o));
    o->digest = 0xcbf29ce484222325ULL;
    if (ew_unzip_open(fp, &zfp, &z) != 0)
        abort();
    if (!z) {
        /* not compressed: fp as it was, its first byte still to read */
        if (zfp != fp || (size && getc(fp) != data[0]))
            abort();
        fclose(fp);
        return false;
    }
    for (;;) {
        size_t want = sizes[i++ % nsizes], n;

        if (want > OUT_MAX - o->len)
            want = OUT_MAX - o->len;
        if (want == 0)
            break;
        n = fread(out + o->len, 1, want, zfp);
        o->digest = mix(o->digest, out + o->len, n);
        o->len += n;
        if (n < want) {
            o->error = ferror(zfp) != 0;
            o->whole = !o->error && feof(zfp);
            break;
        }
    }
    if (ew_unzip_error(z)) {
        if (!o->error)
            abort(); /* a message without a failed read */
        snprintf(o->msg, sizeof(o->msg), "%s", ew_unzip_error(z));
    } else if (o->error) {
        abort(); /* a failed read without a message */
    }
    fclose(zfp); /* fp and z with it */
    return true;
}

/* a digest of the frames the block reader gives from fp, opened with m;
 * its end in *end */
static uint64_t
ng_frames(struct ew_ng *g, enum ew_cap_next *end, unsigned long *frames)
{
    char err[EW_ERRBUF_SIZE];
    struct ew_frame fr;
    uint64_t h = 0xcbf29ce484222325ULL;
    bool pass;

    *frames = 0;
    while ((*end = ew_ng_next(g, NULL, &fr, &pass, err, sizeof(err))) == EW_CAP_FRAME) {
        h = mix(h, &fr.caplen, sizeof(fr.caplen));
        h = mix(h, &fr.wirelen, sizeof(fr.wirelen));
        h = mix(h, &fr.ts_ns, sizeof(fr.ts_ns));
        h = mix(h, &fr.link, sizeof(fr.link));
        h = mix(h, fr.data, fr.caplen);
        (*frames)++;
    }
    return h;
}

/* read 3: capture.c's ng_decompressed, from memory */
static void
read_ng(const uint8_t *data, size_t size, const struct outcome *o)
{
    struct ew_unzip *z;
    struct ew_ng *g = NULL, *plain;
    FILE *fp = open_mem(data, size), *zfp, *pfp;
    enum ew_cap_next end, pend;
    unsigned long frames, pframes;
    uint64_t h, ph;
    uint8_t m[4];

    if (ew_unzip_open(fp, &zfp, &z) != 0 || !z)
        abort();
    if (fread(m, 1, 4, zfp) == 4)
        g = ew_ng_open_stream(zfp, m);
    if (!g) {
        fclose(zfp);
        return;
    }
    h = ng_frames(g, &end, &frames);
    ew_ng_free(g); /* zfp, fp and z with it */
    if (!o->whole || o->len < 4)
        return;
    /* the decompressed bytes read as they are: the same frames */
    pfp = open_mem(out, o->len);
    if (fread(m, 1, 4, pfp) != 4)
        abort();
    plain = ew_ng_open_stream(pfp, m);
    if (!plain)
        abort();
    ph = ng_frames(plain, &pend, &pframes);
    ew_ng_free(plain);
    if (ph != h || pframes != frames || pend != end)
        abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const size_t odd[] = {24, 16, 1, 1500, 65536, 7};
    static const size_t big[] = {65536};
    struct outcome a, b;

    if (size == 0)
        return 0;
    if (!out) {
        out = malloc(OUT_MAX);
        if (!out)
            abort();
    }
    if (!read_all(data, size, odd, sizeof(odd) / sizeof(odd[0]), &a))
        return 0;
    if (!read_all(data, size, big, 1, &b))
        abort();
    if (a.len != b.len || a.digest != b.digest || a.error != b.error || a.whole != b.whole ||
        strcmp(a.msg, b.msg) != 0)
        abort();
    read_ng(data, size, &a);
    return 0;
}
