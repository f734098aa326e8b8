/* decompress.h - gzip and xz captures read as they are (-r x.pcap.gz, also
 * from standard input): the compressed stream is recognised by its first
 * byte, whatever the file's name, and decompressed as it is read, through a
 * FILE that libpcap reads like any other, in bounded memory (a 64 KiB input
 * buffer; an xz stream needing more than EW_XZ_MEMLIMIT is refused). */
#ifndef ECNWATCH_DECOMPRESS_H
#define ECNWATCH_DECOMPRESS_H

#include <stdio.h>

/* the most memory an xz stream may need to be decompressed (xz -9 needs 65 MiB) */
#define EW_XZ_MEMLIMIT ((unsigned long long)256 << 20)

struct ew_unzip;

/* When fp's next byte begins a gzip (1f 8b) or an xz (fd 37 7a 58 5a 00)
 * stream: in *zfp a FILE that reads the decompressed bytes, which takes fp
 * (closing it closes fp), and in *z its state. Otherwise *zfp is fp itself,
 * nothing read from it, and *z NULL. 0; or an errno (fp left open, *zfp is
 * fp): no memory, or the first byte could not be read (EINTR: a signal came
 * while waiting for a pipe's first byte). */
int ew_unzip_open(FILE *fp, FILE **zfp, struct ew_unzip **z);

/* Why the decompressed stream stopped short, as one line ("gzip: corrupt
 * data (invalid block type)", "xz: the compressed stream ends early"), or
 * NULL while it has not. Valid until the FILE is closed. */
const char *ew_unzip_error(const struct ew_unzip *z);

#endif /* ECNWATCH_DECOMPRESS_H */
