/* reader.h - a capture file read and decoded ahead of the analysis, by a
 * thread of its own.
 *
 * Reading a file (the system's copies, libpcap's record parsing, one copy
 * per frame out of libpcap's buffer) and decoding each frame are work that
 * depends on no flow state. A reader thread does them into a ring of frames
 * while the caller's thread accounts the frames before them, in frame order:
 * the results are exactly those of reading and accounting in one thread.
 *
 * One consumer: frames are taken with ew_reader_get(i) for i = 0, 1, 2, ...
 * and handed back with ew_reader_release(); ew_reader_peek() looks at a frame
 * further on without waiting, so that its flow can be fetched into the cache
 * before it is accounted. The caller may take the capture back mid-file
 * (ew_reader_pause()) and read on in its own thread.
 */
#ifndef ECNWATCH_READER_H
#define ECNWATCH_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine/analyze.h"
#include "input/capture.h"
#include "dissectors/pkt.h"
/* ew_spare_processor(): whether reading ahead in a thread can pay */
#include "base/thread.h"

/* The copies of the frames read and not yet released share one buffer of
 * this many bytes, allocated once: a capture of long frames cannot make the
 * ring's thousands of copies take more memory, and reading allocates
 * nothing per frame. libpcap's longest frame (262,144 bytes) fits. */
#define EW_READER_BUDGET ((size_t)2 << 20)

/* one frame as read: a copy of its bytes, decoded, its flow key hashed */
struct ew_rframe {
    struct ew_frame fr; /* fr.data points to the copy */
    struct ew_pkt pkt;
    struct ew_prepared pre; /* valid only when the reader was given an analyzer */
    size_t off;             /* where the copy is in the reader's buffer */
};

/* how the reading ended */
enum ew_reader_end {
    EW_READER_END,     /* the end of the file, or the frame limit */
    EW_READER_BROKEN,  /* the file ends mid-record or could not be read: err says why */
    EW_READER_REFUSED, /* the rest cannot be read as given (EW_CAP_REFUSED): err says why */
    EW_READER_INVALID, /* the file breaks its format's rules (EW_CAP_INVALID): err says which */
    EW_READER_NOMEM,   /* no memory for a frame's copy */
    EW_READER_STOPPED, /* ew_reader_stop() */
    EW_READER_PAUSED,  /* ew_reader_pause(): the capture is read on from the frame after the last */
};

/* What the reader does with each frame, for a caller reading in its own
 * thread: fr's bytes copied to dst (room for fr->caplen), decoded as link
 * type `link`, and with `prepare` its flow key hashed with `seed`
 * (ew_analyzer_seed()). s->fr.data points to dst. */
void ew_rframe_fill(struct ew_rframe *s, const struct ew_frame *fr, uint8_t *dst,
                    enum ew_link link, bool prepare, uint64_t seed);

struct ew_reader;

/* Start reading cap (which the reader uses until ew_reader_finish()): at
 * most `count` frames (0: all), decoded as link type `link`, their flow keys
 * prepared for `an` (NULL: none, and an is only read for its table's hash).
 * NULL when no thread can be started: the caller reads in its own thread. */
struct ew_reader *ew_reader_start(struct ew_capture *cap, enum ew_link link, uint64_t count,
                                  const struct ew_analyzer *an);

/* Frame i (0-based, in order), waiting for it; NULL when the reading ended
 * before it. Valid until released. */
const struct ew_rframe *ew_reader_get(struct ew_reader *r, uint64_t i);

/* Frame i if it has been read already, else NULL; never waits. */
const struct ew_rframe *ew_reader_peek(struct ew_reader *r, uint64_t i);

/* The caller is done with every frame before frame `upto`. Release frames
 * as they are done with: the reader waits while those not released hold
 * EW_READER_BUDGET bytes of copies, so a caller that kept many long frames
 * and asked for more would wait for ever. */
void ew_reader_release(struct ew_reader *r, uint64_t upto);

/* Ask the reader to stop at the next frame. */
void ew_reader_stop(struct ew_reader *r);

/* Ask the reader to stop before it reads another frame from the capture:
 * every frame it read is still got, ew_reader_get() then gives NULL, and
 * ew_reader_finish() says EW_READER_PAUSED (unless the reading ended first),
 * leaving the capture at the first frame not read, for the caller to read
 * on in its own thread with the same results. */
void ew_reader_pause(struct ew_reader *r);

/* Wait for the thread, free the reader; returns how the reading ended, the
 * frames read, the most bytes of copies held at once (peak_bytes, may be
 * NULL) and, for EW_READER_BROKEN, the reason. */
enum ew_reader_end ew_reader_finish(struct ew_reader *r, uint64_t *frames, size_t *peak_bytes,
                                    char *err, size_t errlen);

#endif /* ECNWATCH_READER_H */
