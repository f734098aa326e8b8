/* pcapng.h - inside the capture layer (capture.c): the pcapng block reader. */
#ifndef ECNWATCH_PCAPNG_H
#define ECNWATCH_PCAPNG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "dissectors/pkt.h"
#include "input/frame.h"

struct ew_ng;

/* Read the regular pcapng file behind fp from its first block; NULL when fp
 * is not one (not a regular file, not pcapng) or memory is short: then
 * libpcap reads it. */
struct ew_ng *ew_ng_open(FILE *fp);
/* the same for a stream that cannot seek (a decompressed capture), its
 * first 4 bytes read into m already; on success the reader closes fp */
struct ew_ng *ew_ng_open_stream(FILE *fp, const uint8_t m[4]);
/* the same, reading ahead chunk bytes at a time (at least 4) instead of 256
 * KiB: the tests and the fuzz harness make blocks cross a chunk's end */
struct ew_ng *ew_ng_open_chunked(FILE *fp, const uint8_t m[4], size_t chunk);
/* The next frame, with its interface's link type; *pass: the filter (NULL:
 * none) passes it. EW_CAP_INVALID for a file that breaks the format's rules,
 * EW_CAP_BROKEN for one cut short (errbuf says where). */
enum ew_cap_next ew_ng_next(struct ew_ng *g, const char *filter, struct ew_frame *fr, bool *pass,
                            char *errbuf, size_t errlen);
void ew_ng_free(struct ew_ng *g);

#endif /* ECNWATCH_PCAPNG_H */
