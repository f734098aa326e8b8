/* frame.h - a captured frame as the readers hand it out (capture.h, and
 * the pcapng reader inside it, pcapng.h), and how a read ended: types only. */
#ifndef ECNWATCH_FRAME_H
#define ECNWATCH_FRAME_H

#include <stdint.h>

#include "dissectors/pkt.h"

#define EW_ERRBUF_SIZE 512

enum ew_cap_next {
    EW_CAP_FRAME = 1, /* a frame was returned */
    EW_CAP_END = 0,   /* end of the capture */
    EW_CAP_BROKEN = -1, /* the file ended mid-record or could not be read further */
    EW_CAP_REFUSED = -2, /* the rest cannot be read as it is given (errbuf says why): an
                           input error, not a cut capture */
    EW_CAP_INVALID = -3 /* the file breaks its format's rules (errbuf says which): not a
                           cut capture either */
};

struct ew_frame {
    uint64_t number;     /* 1-based position in the file (offline), counting filtered frames */
    const uint8_t *data; /* borrowed until the next ew_capture_next() */
    uint32_t caplen;
    uint32_t wirelen;
    int64_t ts_ns;
    enum ew_link link;   /* this frame's link type: a pcapng file's interfaces each have one */
};

#endif /* ECNWATCH_FRAME_H */
