/* fuzz_pcapng.c - libFuzzer harness for the pcapng block reader
 * (src/input/pcapng.c): the input is a whole pcapng file, read from memory
 * (fmemopen) as a decompressed capture is read (ew_ng_open_stream): section
 * headers in either byte order, interface descriptions and their options,
 * enhanced, simple and obsolete packet blocks, other blocks skipped, several
 * sections and link types.
 *
 * Input: the file, as it is.
 *
 * It is read twice: once as the program reads it (the whole file read
 * ahead at once, as the 256 KiB of the program's read-ahead hold any input
 * shorter than that: a chunk one byte longer than the input, so that the
 * sanitizer's allocator need not map and unmap 256 KiB for every input; no
 * filter), once with a read-ahead of 4 to 67 bytes (from the input's
 * length), so that blocks and their trailing lengths cross a chunk's end or
 * are larger than the chunk, and with a filter, compiled by libpcap once per
 * link type met (pcap_open_dead: no live part). Both reads must hand out
 * the same frames (bytes, lengths, time, link type) and end the same way
 * with the same message; every frame's bytes are read whole, so a frame
 * that points past its block is caught, and its time and length must be
 * within what the capture layer promises. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "input/pcapng.h"
#include "fuzz.h"

#define NG_DEFAULT_CHUNK ((size_t)256 << 10)
#define MAX_SNAPLEN 262144u
#define TS_MAX 4000000000000000000LL

/* what one read of the file gave: a digest of its frames, how it ended */
struct outcome {
    uint64_t digest;
    unsigned long frames, passed;
    enum ew_cap_next end;
    char err[EW_ERRBUF_SIZE];
};

static void
read_file(const uint8_t *data, size_t size, size_t chunk, const char *filter, struct outcome *o)
{
    struct ew_frame fr;
    struct ew_ng *g;
    uint8_t m[4];
    FILE *fp;

    memset(o, 0, sizeof(*o));
    o->digest = 0xcbf29ce484222325ULL;
    fp = fmemopen((void *)(uintptr_t)data, size, "rb");
    if (!fp)
        abort();
    if (fread(m, 1, 4, fp) != 4)
        abort();
    g = chunk == NG_DEFAULT_CHUNK ? ew_ng_open_stream(fp, m) : ew_ng_open_chunked(fp, m, chunk);
    if (!g) {
        fclose(fp);
        o->end = EW_CAP_END;
        return;
    }
    for (;;) {
        bool pass = false;

        memset(&fr, 0, sizeof(fr));
        o->end = ew_ng_next(g, filter, &fr, &pass, o->err, sizeof(o->err));
        if (o->end != EW_CAP_FRAME)
            break;
        if (fr.caplen > MAX_SNAPLEN || fr.ts_ns < 0 || fr.ts_ns > TS_MAX + 999999999 ||
            (unsigned)fr.link > EW_LINK_UNSUPPORTED || (fr.caplen && !fr.data))
            abort();
        o->digest = mix(o->digest, &fr.caplen, sizeof(fr.caplen));
        o->digest = mix(o->digest, &fr.wirelen, sizeof(fr.wirelen));
        o->digest = mix(o->digest, &fr.ts_ns, sizeof(fr.ts_ns));
        o->digest = mix(o->digest, &fr.link, sizeof(fr.link));
        o->digest = mix(o->digest, fr.data, fr.caplen);
        o->frames++;
        o->passed += pass;
    }
    ew_ng_free(g); /* fp with it */
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct outcome a, b;

    if (size < 4)
        return 0;
    read_file(data, size, size < NG_DEFAULT_CHUNK ? size + 1 : NG_DEFAULT_CHUNK, NULL, &a);
    read_file(data, size, 4 + size % 64, "tcp or (ip6 and udp port 443)", &b);
    if (a.digest != b.digest || a.frames != b.frames || a.end != b.end ||
        strcmp(a.err, b.err) != 0 || a.passed != a.frames || b.passed > b.frames)
        abort();
    return 0;
}
