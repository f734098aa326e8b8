/* savefile.h - -w FILE: the frames read, after the filter and up to -c,
 * written again as a pcap capture as they pass (offline and live), with the
 * link type and snapshot length of the capture read and nanosecond
 * timestamps. FILE is written as outfile.h writes a file produced as it
 * goes: a new or regular file appears, whole, when ew_savefile_close()
 * commits it; a device, FIFO or "-" (standard output) is written in place. */
#ifndef ECNWATCH_SAVEFILE_H
#define ECNWATCH_SAVEFILE_H

#include <stdbool.h>
#include <stddef.h>

#include "input/capture.h"

struct ew_savefile;

/* Open path for the frames of cap. NULL on failure, with one line in err
 * ("PATH: cannot write the packets: REASON"). */
struct ew_savefile *ew_savefile_open(const char *path, const struct ew_capture *cap, char *err,
                                     size_t errlen);
/* one frame, as read */
void ew_savefile_frame(struct ew_savefile *s, const struct ew_frame *fr);
/* What is buffered goes out: 0, or -1 with err set when a write failed
 * (a full disk, a closed pipe); live, once per interval. */
int ew_savefile_flush(struct ew_savefile *s, char *err, size_t errlen);
/* Flush and, with commit, give FILE its content; 0, or -1 with err set (the
 * first failure's reason, also when a flush before failed). s is freed; the
 * path is left as it was when anything failed. */
int ew_savefile_close(struct ew_savefile *s, bool commit, char *err, size_t errlen);

#endif /* ECNWATCH_SAVEFILE_H */
