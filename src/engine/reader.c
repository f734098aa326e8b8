/* reader.c - a capture file read and decoded by a thread of its own (see
 * reader.h).
 *
 * A ring of frames between two threads. The reader publishes `head` (frames
 * read) and the consumer `tail` (frames released); each side publishes in
 * small batches, and in full before it sleeps. A side that finds nothing to
 * do polls a little (the other may be a batch away, on another processor),
 * then sleeps: it sets its bit in `waiting` and the counter it wants the
 * other side to reach (WAKE frames beyond what it needs), and checks again
 * under the mutex. The other side, after publishing a batch, looks at
 * `waiting` (sequentially consistent, so that one of the two sees the other)
 * and wakes the sleeper once its counter reaches what was wanted, or at
 * once when it is itself about to sleep or done. So the two threads trade
 * thousands of frames a wake-up, not one batch, and neither burns the
 * processor the other needs: on a processor they share, each runs for long
 * stretches.
 */
#include "engine/reader.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dissectors/dissect.h"
#include "base/thread.h"

#ifndef RING
#define RING 4096u      /* frames in flight (1.1 MiB; their copies are in `bytes`); a power of two */
#endif
#ifndef BATCH
#define BATCH 64u       /* frames published or released at once */
#endif
#ifndef SPIN
#define SPIN 200        /* polls before a side sleeps: some microseconds */
#endif
#ifndef WAKE
#define WAKE (RING / 4) /* frames a sleeper lets the other side get ahead before it is woken */
#endif

enum { WAIT_CONSUMER = 1, WAIT_READER = 2 };

struct ew_reader {
    struct ew_rframe ring[RING];
    uint8_t *bytes;     /* EW_READER_BUDGET bytes: the frames' copies, in order, circularly */
    struct ew_capture *cap;
    uint64_t seed;  /* of the analyzer's hash */
    bool prepare;   /* an analyzer was given */
    uint64_t count;
    enum ew_link link;

    /* each side's counter on a line of its own, so that publishing one
     * does not take the line the other side reads from its processor */
    _Alignas(64) _Atomic uint64_t head; /* frames published by the reader */
    _Atomic bool done;     /* the reader has published its last frame */
    _Alignas(64) _Atomic uint64_t tail; /* frames released by the consumer */
    _Alignas(64) _Atomic bool quit;     /* the consumer asks the reader to stop */
    _Atomic bool pause;    /* ... to stop before its next frame (ew_reader_pause) */
    _Atomic int waiting;   /* WAIT_* bits of the sides asleep or about to be */
    _Atomic uint64_t want_head; /* the consumer, asleep, wants head to reach this */
    _Atomic uint64_t want_tail; /* the reader, asleep, wants tail to reach this */
    pthread_mutex_t mu;
    pthread_cond_t cv_reader, cv_consumer;
    pthread_t thread;

    /* the consumer's own: frames done (published or not), and head as it
     * last read it, so that it reads the reader's line only on catching up */
    _Alignas(64) uint64_t released;
    uint64_t head_seen;
    _Alignas(64) enum ew_reader_end end; /* written by the reader before done */
    uint64_t frames;
    size_t peak_bytes;  /* of copies held at once */
    char err[EW_ERRBUF_SIZE];
};

static inline void
cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
}

/* after publishing `at` as its counter: wake the other side (`who`) if it
 * sleeps and wants `at` or less of it */
static void
wake(struct ew_reader *r, int who, _Atomic uint64_t *want, uint64_t at)
{
    if ((atomic_load(&r->waiting) & who) && at >= atomic_load(want)) {
        pthread_mutex_lock(&r->mu);
        pthread_cond_signal(who == WAIT_CONSUMER ? &r->cv_consumer : &r->cv_reader);
        pthread_mutex_unlock(&r->mu);
    }
}

/* Side `me` (WAIT_READER or WAIT_CONSUMER), having published its counter,
 * sleeps until the other side's counter c is beyond `need` and either WAKE
 * beyond it or the other side sleeps too (it has published all it has); or
 * until `end`. The other side, if asleep, is woken first: what `me` has
 * published may be what it waits for. */
static void
nap(struct ew_reader *r, int me, _Atomic uint64_t *c, uint64_t need, _Atomic bool *end)
{
    int them = me ^ (WAIT_READER | WAIT_CONSUMER);

    pthread_mutex_lock(&r->mu);
    atomic_store(me == WAIT_READER ? &r->want_tail : &r->want_head, need + WAKE);
    atomic_fetch_or(&r->waiting, me);
    if (atomic_load(&r->waiting) & them)
        pthread_cond_signal(them == WAIT_READER ? &r->cv_reader : &r->cv_consumer);
    while (!atomic_load(end) && !(atomic_load(c) > need && (atomic_load(c) >= need + WAKE ||
                                                            (atomic_load(&r->waiting) & them))))
        pthread_cond_wait(me == WAIT_READER ? &r->cv_reader : &r->cv_consumer, &r->mu);
    atomic_fetch_and(&r->waiting, ~me);
    pthread_mutex_unlock(&r->mu);
}

/* the reader: wait until the consumer has released frames beyond `tail`
 * (w: the frames read so far, published in full before sleeping), or a stop.
 * Asleep, it is woken once WAKE frames are released, or when the consumer
 * waits for frames too. */
static bool
wait_release(struct ew_reader *r, uint64_t w, uint64_t tail)
{
    int spin;

    for (spin = 0; spin < SPIN; spin++) {
        if (atomic_load_explicit(&r->tail, memory_order_acquire) > tail)
            return true;
        if (atomic_load_explicit(&r->quit, memory_order_relaxed))
            return false;
        cpu_relax();
    }
    atomic_store(&r->head, w);
    nap(r, WAIT_READER, &r->tail, tail, &r->quit);
    return !atomic_load(&r->quit);
}

/* Where n bytes for frame w's copy go in the buffer, or SIZE_MAX when the
 * copies of the frames [freed, w) leave no room. They lie in buffer order
 * from the oldest's offset to wpos, wrapping at most once, and a copy never
 * wraps: the held bytes are [start, wpos) when wpos >= start, else
 * [start, end of the last round) and [0, wpos). A copy placed before start
 * ends strictly before it, so that the two cases stay apart. */
static size_t
place(const struct ew_reader *r, uint64_t freed, uint64_t w, size_t wpos, size_t n)
{
    size_t start;

    if (freed == w)
        return 0; /* none held: start over, where the lines are warm */
    start = r->ring[freed % RING].off;
    if (wpos >= start) {
        if (EW_READER_BUDGET - wpos >= n)
            return wpos;
        return start > n ? 0 : SIZE_MAX;
    }
    return start - wpos > n ? wpos : SIZE_MAX;
}

void
ew_rframe_fill(struct ew_rframe *s, const struct ew_frame *fr, uint8_t *dst, enum ew_link link,
               bool prepare, uint64_t seed)
{
    if (fr->caplen)
        memcpy(dst, fr->data, fr->caplen);
    s->fr = *fr;
    s->fr.data = dst;
    ew_dissect_frame(link, dst, fr->caplen, fr->wirelen, &s->pkt);
    s->pkt.frame_no = fr->number;
    if (prepare)
        ew_prepare_seeded(seed, &s->pkt, &s->pre);
    else
        s->pre.valid = false;
}

static void *
reader_main(void *arg)
{
    struct ew_reader *r = arg;
    enum ew_reader_end end = EW_READER_END;
    uint64_t w = 0, freed = 0;
    size_t wpos = 0; /* where the next copy may go */
    size_t held = 0; /* bytes of the copies of the frames [freed, w) */

    for (;;) {
        struct ew_frame fr;
        struct ew_rframe *s;
        enum ew_cap_next nx;
        size_t at = SIZE_MAX;

        if (atomic_load_explicit(&r->quit, memory_order_relaxed)) {
            end = EW_READER_STOPPED;
            break;
        }
        if (r->count && w >= r->count)
            break;
        if (atomic_load_explicit(&r->pause, memory_order_relaxed)) {
            end = EW_READER_PAUSED;
            break;
        }
        nx = ew_capture_next(r->cap, &fr, r->err, sizeof(r->err));
        if (nx == EW_CAP_END)
            break;
        if (nx != EW_CAP_FRAME) {
            end = nx == EW_CAP_INVALID   ? EW_READER_INVALID
                  : nx == EW_CAP_REFUSED ? EW_READER_REFUSED
                                         : EW_READER_BROKEN;
            break;
        }
        if (fr.caplen >= EW_READER_BUDGET / 2) { /* libpcap never gives one */
            end = EW_READER_NOMEM;
            break;
        }
        /* room for it: fewer than RING frames unreleased, and bytes for its
         * copy in the buffer */
        for (;;) {
            uint64_t tail = atomic_load_explicit(&r->tail, memory_order_acquire);

            for (; freed < tail; freed++)
                held -= r->ring[freed % RING].fr.caplen;
            if (w - freed < RING && (at = place(r, freed, w, wpos, fr.caplen)) != SIZE_MAX)
                break;
            if (!wait_release(r, w, tail))
                break;
        }
        if (at == SIZE_MAX) {
            end = EW_READER_STOPPED;
            break;
        }
        s = &r->ring[w % RING];
        s->off = at;
        ew_rframe_fill(s, &fr, r->bytes + at, fr.link, r->prepare, r->seed);
        wpos = at + fr.caplen;
        held += fr.caplen;
        if (held > r->peak_bytes)
            r->peak_bytes = held;
        w++;
        if (w % BATCH == 0) {
            atomic_store(&r->head, w);
            wake(r, WAIT_CONSUMER, &r->want_head, w);
        } else {
            atomic_store_explicit(&r->head, w, memory_order_release);
        }
    }
    r->end = end;
    r->frames = w;
    atomic_store(&r->head, w);
    pthread_mutex_lock(&r->mu);
    atomic_store(&r->done, true);
    pthread_cond_broadcast(&r->cv_consumer);
    pthread_mutex_unlock(&r->mu);
    return NULL;
}

struct ew_reader *
ew_reader_start(struct ew_capture *cap, enum ew_link link, uint64_t count,
                const struct ew_analyzer *an)
{
    /* the counters' lines are 64-byte aligned within the struct */
    struct ew_reader *r = aligned_alloc(64, sizeof(*r));

    if (!r)
        return NULL;
    memset(r, 0, sizeof(*r));
    r->bytes = malloc(EW_READER_BUDGET);
    if (!r->bytes) {
        free(r);
        return NULL;
    }
    r->cap = cap;
    r->link = link;
    r->count = count;
    r->prepare = an != NULL;
    r->seed = an ? ew_analyzer_seed(an) : 0;
    atomic_init(&r->head, 0);
    atomic_init(&r->tail, 0);
    atomic_init(&r->done, false);
    atomic_init(&r->quit, false);
    atomic_init(&r->pause, false);
    atomic_init(&r->waiting, 0);
    atomic_init(&r->want_head, 0);
    atomic_init(&r->want_tail, 0);
    if (pthread_mutex_init(&r->mu, NULL) != 0)
        goto fail_mu;
    if (pthread_cond_init(&r->cv_reader, NULL) != 0)
        goto fail_cv_reader;
    if (pthread_cond_init(&r->cv_consumer, NULL) != 0)
        goto fail_cv_consumer;
    if (ew_thread_start(&r->thread, reader_main, r) != 0)
        goto fail_thread;
    return r;
fail_thread:
    pthread_cond_destroy(&r->cv_consumer);
fail_cv_consumer:
    pthread_cond_destroy(&r->cv_reader);
fail_cv_reader:
    pthread_mutex_destroy(&r->mu);
fail_mu:
    free(r->bytes);
    free(r);
    return NULL;
}

const struct ew_rframe *
ew_reader_peek(struct ew_reader *r, uint64_t i)
{
    if (i >= r->head_seen)
        r->head_seen = atomic_load_explicit(&r->head, memory_order_acquire);
    return i < r->head_seen ? &r->ring[i % RING] : NULL;
}

const struct ew_rframe *
ew_reader_get(struct ew_reader *r, uint64_t i)
{
    int spin;

    if (i < r->head_seen)
        return &r->ring[i % RING];
    for (spin = 0; spin < SPIN; spin++) {
        r->head_seen = atomic_load_explicit(&r->head, memory_order_acquire);
        if (i < r->head_seen)
            return &r->ring[i % RING];
        if (atomic_load_explicit(&r->done, memory_order_acquire))
            break;
        cpu_relax();
    }
    atomic_store(&r->tail, r->released); /* all of it, before sleeping */
    nap(r, WAIT_CONSUMER, &r->head, i, &r->done);
    r->head_seen = atomic_load(&r->head);
    return i < r->head_seen ? &r->ring[i % RING] : NULL;
}

void
ew_reader_release(struct ew_reader *r, uint64_t upto)
{
    r->released = upto;
    if (upto % BATCH == 0) {
        atomic_store(&r->tail, upto);
        wake(r, WAIT_READER, &r->want_tail, upto);
    }
}

void
ew_reader_stop(struct ew_reader *r)
{
    pthread_mutex_lock(&r->mu);
    atomic_store(&r->quit, true);
    pthread_cond_broadcast(&r->cv_reader);
    pthread_mutex_unlock(&r->mu);
}

void
ew_reader_pause(struct ew_reader *r)
{
    atomic_store_explicit(&r->pause, true, memory_order_relaxed);
}

enum ew_reader_end
ew_reader_finish(struct ew_reader *r, uint64_t *frames, size_t *peak_bytes, char *err,
                 size_t errlen)
{
    enum ew_reader_end end;

    ew_reader_stop(r);
    pthread_join(r->thread, NULL);
    end = r->end;
    if (frames)
        *frames = r->frames;
    if (peak_bytes)
        *peak_bytes = r->peak_bytes;
    if (err && errlen)
        snprintf(err, errlen, "%s",
                 end == EW_READER_BROKEN || end == EW_READER_REFUSED || end == EW_READER_INVALID
                     ? r->err
                     : "");
    free(r->bytes);
    pthread_cond_destroy(&r->cv_consumer);
    pthread_cond_destroy(&r->cv_reader);
    pthread_mutex_destroy(&r->mu);
    free(r);
    return end;
}
