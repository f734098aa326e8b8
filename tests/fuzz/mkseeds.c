/* mkseeds.c - seed corpora for the fuzz harnesses, cut from captures.
 *
 *   mkseeds DISSECT_DIR PIPELINE_DIR CAPTURE...
 *
 * fuzz_dissect gets the first 40 frames of each capture and every 50th
 * after, each as [link][wire][frame] (see fuzz_dissect.c); fuzz_pipeline
 * gets one input per capture: its first 48 frames, each cut to 160 bytes,
 * in the record format of fuzz_pipeline.c. Files are named by a hash of
 * their content, so a frame seen twice is one seed. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

int
main(int argc, char **argv)
{
    unsigned long nd = 0;
    int i, rc = 0;

    if (argc < 4) {
        fprintf(stderr, "usage: mkseeds DISSECT_DIR PIPELINE_DIR CAPTURE...\n");
        return 2;
    }
    for (i = 3; i < argc; i++)
        if (seed_capture(argv[i], argv[1], argv[2], &nd) != 0)
            rc = 1;
    printf("mkseeds: %lu dissector seeds, %d pipeline seeds\n", nd, argc - 3);
    return rc;
}
