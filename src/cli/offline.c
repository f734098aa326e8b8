/* offline.c - reading captures (see offline.h): the read loop with its
 * prefetch ring or its reader thread, the matching between captures, and the
 * outputs written at the end. Signal handlers only set a flag; the loop
 * notices it, stops, and what was read is reported.
 *
 * The read loop is the hot path (bench/README.md): account_frame() and the
 * loops that call it stay static in this file, with nothing between them and
 * the analyzer. */
#include "base/format.h"
#include "cli/offline.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/clock.h"
#include "base/thread.h"
#include "input/capture.h"
#include "cli/cli.h"
#include "cli/privs.h"
#include "cli/run.h"
#include "findings/pathcmp.h"
#include "engine/reader.h"
#include "output/report.h"

/* packets of the first capture indexed for matching, at most */
#define PATH_INDEX_MAX (4u << 20)

struct offline {
    const struct ew_run_cfg *cfg;
    volatile sig_atomic_t *stop;
    bool invalid; /* a capture broke its format's rules: exit 3 after the outputs */
    bool close_failed; /* -w could not be kept: exit 4 after the other outputs */
    /* between capture i and i + 1: the index of capture i and the hop */
    struct ew_index **up_ix;
    struct ew_hop **hops;
    /* the analyser, the outputs and the end, shared with the live driver */
    struct ew_run run;
    /* the captures, opened before root gives up its privileges */
    struct ew_input in[EW_CLI_MAX_FILES];
};

/* what the reading of one capture does with each frame */
struct read_ctx {
    const struct ew_run_cfg *cfg;
    volatile sig_atomic_t *stop;
    struct ew_run *run;       /* analyse (the first capture), or NULL */
    struct ew_input *in;      /* the capture, opened before the drop */
    struct ew_analyzer *an;   /* its analyzer, or NULL */
    struct ew_index *index;   /* index for the next capture downstream, or NULL */
    struct ew_hop *hop;       /* match against the capture upstream, or NULL */
    struct ew_index *up;
    struct ew_report_src *src;
    bool invalid;             /* set: the capture broke its format's rules */
    bool close_failed;        /* set: -w could not be kept (its line printed) */
};

/* Frames read ahead of their accounting: each is copied out of the reader's
 * buffer and decoded when read, its flow's index slot is fetched into the
 * cache then, its record one frame later, and it is accounted two frames
 * after it was read, so that the memory of three frames' flows is in flight
 * at once. Accounting stays in frame order; the pipeline is drained before
 * anything else happens (end of file, -c, a signal, a broken record). A
 * regular file, on a machine with more than one processor, is read and
 * decoded by a thread of its own instead (reader.h), with the same results,
 * while that reads faster (struct pace). */
#ifndef AHEAD
#define AHEAD 3
#endif

/* How a capture is read when a thread of its own may pay for it: with the
 * reader thread or in this one, whichever has read faster lately. One
 * thread first, as with one processor. Every PACE_NS the frames read per
 * second are taken, after the first PACE_SETTLE_NS of a stretch (a thread
 * just started waits for its share of the processors where many processes
 * run); after a few such periods in one way, the other is tried for
 * PACE_TRY periods, and kept if it read faster than the way's recent
 * periods: two threads lose to one where they share a
 * processor, or where another process keeps the other one busy, and win
 * where a processor is free (or where many processes share the machine, as
 * each thread gets its share). Two threads must read PACE_MARGIN faster to
 * be chosen, so that where the periods cannot tell the two apart the
 * capture is read as with one processor; two threads that lose by the
 * margin in their first period are not tried further. The way that won
 * again is tried four times less often each time, up to every PACE_STAY_MAX
 * periods. Two threads are not tried while the machine's processors were
 * less than PACE_IDLE of a processor idle since the stretch began
 * (ew_idle_ns(): other processes keep them busy, so a second thread would
 * only take turns with them), and one is not tried while two read with
 * less than PACE_IDLE of a processor taken by other processes (the
 * processors' busy time less this process's: nothing else changed since
 * two won); either is looked at again as many periods later as a try
 * would have waited. A change takes the capture
 * back from the reader thread (ew_reader_pause()) or gives it to a new one:
 * the same frames, in the same order. ECNWATCH_READ_THREADS=1 or 2 keeps
 * one way to the end. */
#define PACE_NS 20000000        /* 20 ms */
#define PACE_SETTLE_NS 10000000 /* 10 ms */
#define PACE_CHECK 1024         /* frames between looks at the clock */
#define PACE_STAY_MIN 4
#define PACE_STAY_MAX 128
#define PACE_FIRST 2            /* periods judged before the first try */
#define PACE_TRY 2              /* periods judged in a try */
#define PACE_MARGIN 1.10
#define PACE_IDLE 0.5           /* processors idle (taken by others), at least, for a try of two (one) */

struct pace {
    bool threaded;      /* with the reader thread now */
    unsigned trying;    /* this stretch tries the other way: its periods left */
    bool settling;      /* in the first PACE_SETTLE_NS of a stretch */
    unsigned periods;   /* judged in this stretch */
    uint64_t every;     /* ECNWATCH_READ_SWITCH: change every this many frames (0: by the clock) */
    int64_t t0;         /* when the period began */
    uint64_t n0;        /* the stretch's frames then */
    double rate[2];     /* frames per ns of the latest period in one thread [0] and two [1] */
    unsigned left;      /* periods before the other way is tried */
    unsigned stay;
    int64_t idle0;      /* ew_idle_ns() when the window began (-1: unknown) */
    int64_t self0;      /* this process's processor time then (-1: unknown) */
    int64_t idle_t0;    /* and when that was */
};

/* this process's processor time, all its threads, in ns; -1 when unknown */
static int64_t
self_ns(void)
{
    struct timespec ts;

    if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts) != 0)
        return -1;
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static long
cpus_online(void)
{
    static long n;

    if (!n)
        n = sysconf(_SC_NPROCESSORS_ONLN);
    return n;
}

/* a stretch begins, in the way p->threaded says */
static void
pace_begin(struct pace *p)
{
    p->t0 = ew_mono_ns();
    p->n0 = 0;
    p->settling = true;
    p->idle0 = ew_idle_ns();
    p->self0 = self_ns();
    p->idle_t0 = p->t0;
}

/* Whether the other way may pay, from what the machine's processors did
 * since the window began: in one thread, whether they were left idle
 * enough for a second thread to run beside it; in two, whether other
 * processes took enough of them for one thread to read as fast. Unknown:
 * yes, the try decides. When not, the window starts again at t. */
static bool
pace_room(struct pace *p, int64_t t)
{
    int64_t idle = ew_idle_ns(), self = self_ns();
    double dt = (double)(t - p->idle_t0), free;
    bool room;

    if (idle < 0 || p->idle0 < 0 || dt <= 0)
        return true;
    free = (double)(idle - p->idle0);
    if (!p->threaded)
        room = free >= PACE_IDLE * dt;
    else if (self < 0 || p->self0 < 0 || cpus_online() < 2)
        room = true;
    else /* the processors' busy time that is not this process's */
        room = (double)cpus_online() * dt - free - (double)(self - p->self0) >= PACE_IDLE * dt;
    if (!room) {
        p->idle0 = idle;
        p->self0 = self;
        p->idle_t0 = t;
    }
    return room;
}

/* Whether reading with two threads (threaded) at `rate` beats the other
 * way at `other`: two threads must read PACE_MARGIN faster than one to be
 * worth them, so that where the two are alike, or the periods too noisy to
 * tell them apart, the capture is read as with one processor */
static bool
pace_wins(bool threaded, double rate, double other)
{
    return threaded ? rate > other * PACE_MARGIN : rate * PACE_MARGIN >= other;
}

/* After n frames of this stretch: whether to change how the capture is read. */
static bool
pace_change(struct pace *p, uint64_t n)
{
    int64_t t;
    double rate;

    if (p->every)
        return n >= p->every;
    t = ew_mono_ns();
    if (t - p->t0 < (p->settling ? PACE_SETTLE_NS : PACE_NS))
        return false;
    rate = (double)(n - p->n0) / (double)(t - p->t0);
    p->t0 = t;
    p->n0 = n;
    if (p->settling) { /* not judged: a new thread waits for its share of the processors */
        p->settling = false;
        p->periods = 0;
        return false;
    }
    /* the way's rate: of this period, and the ones before in the stretch, halved
     * at each period, so that one slow period does not decide alone */
    p->rate[p->threaded] = p->periods++ ? (rate + p->rate[p->threaded]) / 2 : rate;
    if (p->trying) {
        bool wins = pace_wins(p->threaded, p->rate[p->threaded], p->rate[!p->threaded]);

        /* two threads that lose by the margin after one period lose: a try
         * of a way that loses costs what it loses */
        if (--p->trying > 0 && (wins || !p->threaded))
            return false;
        p->trying = 0;
        if (wins) { /* kept */
            p->stay = PACE_STAY_MIN;
            p->left = p->stay;
            return false;
        }
        p->stay = p->stay * 4 < PACE_STAY_MAX ? p->stay * 4 : PACE_STAY_MAX; /* tried again later */
        p->left = p->stay;
        return true;
    }
    if (--p->left > 0)
        return false;
    if (!pace_room(p, t)) { /* looked at again later */
        p->left = p->stay;
        return false;
    }
    p->trying = PACE_TRY;
    return true;
}

static void
account_frame(struct read_ctx *rc, const struct ew_rframe *a)
{
    const uint8_t *payload = NULL;
    size_t plen = 0;

    if (rc->run)
        ew_run_frame(rc->run, &a->fr, &a->pkt, &a->pre);
    if (rc->index || rc->hop) {
        if (a->pkt.l4_end && a->pkt.l4_end < a->fr.caplen) {
            payload = a->fr.data + a->pkt.l4_end;
            plen = a->fr.caplen - a->pkt.l4_end;
        }
        if (rc->hop)
            ew_hop_match(rc->hop, rc->up, &a->pkt, payload, plen, a->fr.number);
        if (rc->index)
            ew_index_add(rc->index, &a->pkt, payload, plen, a->fr.number);
    }
}

/* how one capture's reading ended */
struct read_end {
    uint64_t frames;
    bool broken;
    bool refused; /* the capture cannot be read on as given: an input error */
    bool invalid; /* the file breaks its format's rules */
    bool nomem;
    char err[EW_ERRBUF_SIZE];
};

/* The capture read in this thread, AHEAD frames ahead, to its end or until
 * p (NULL: none) says to read with the thread: then true. */
static bool
read_inline(struct read_ctx *rc, struct ew_capture *cap, struct read_end *re, struct pace *p)
{
    volatile sig_atomic_t *stop = rc->stop;
    uint64_t frames = 0, done = 0, seed = rc->an ? ew_analyzer_seed(rc->an) : 0;
    uint64_t count = rc->cfg->count ? rc->cfg->count - re->frames : 0;
    bool change = false;
    struct ew_rframe ring[AHEAD];
    uint8_t *buf[AHEAD] = {NULL}; /* each slot's copy of its frame */
    size_t room[AHEAD] = {0};
    int e;

    memset(ring, 0, sizeof(ring));
    for (;;) {
        struct ew_frame fr;
        struct ew_rframe *a;
        enum ew_cap_next nx;

        if (*stop) {
            rc->src->interrupted = true;
            break;
        }
        if (count && frames >= count)
            break;
        if (p && frames && (p->every || frames % PACE_CHECK == 0) && pace_change(p, frames)) {
            change = true;
            break;
        }
        nx = ew_capture_next(cap, &fr, re->err, sizeof(re->err));
        if (nx == EW_CAP_END)
            break;
        if (nx == EW_CAP_BROKEN && *stop) {
            /* the signal interrupted a blocking read: a stop, not a broken file */
            rc->src->interrupted = true;
            break;
        }
        if (nx == EW_CAP_BROKEN) {
            re->broken = true;
            break;
        }
        if (nx == EW_CAP_REFUSED) {
            re->refused = true;
            break;
        }
        if (nx == EW_CAP_INVALID) {
            re->invalid = true;
            break;
        }
        e = (int)(frames % AHEAD);
        a = &ring[e];
        if (room[e] < fr.caplen || !buf[e]) {
            size_t n = fr.caplen > 2048 ? fr.caplen : 2048;
            uint8_t *nb = realloc(buf[e], n);

            if (!nb) {
                re->nomem = true;
                break;
            }
            buf[e] = nb;
            room[e] = n;
        }
        ew_rframe_fill(a, &fr, buf[e], fr.link, rc->an != NULL, seed);
        frames++;
        if (rc->an) {
            ew_analyzer_prefetch_slot(rc->an, &a->pre);
            if (frames - done >= 2) {
                struct ew_rframe *b = &ring[(frames - 2) % AHEAD];

                ew_analyzer_prefetch_flow(rc->an, &b->pkt, &b->pre);
            }
        }
        if (frames - done == AHEAD)
            account_frame(rc, &ring[done++ % AHEAD]);
    }
    while (done < frames)
        account_frame(rc, &ring[done++ % AHEAD]);
    for (e = 0; e < AHEAD; e++)
        free(buf[e]);
    re->frames += frames;
    return change;
}

/* the capture read and decoded by the reader thread; the flow of a frame a
 * few ahead is looked up in the index, and one nearer's record fetched */
#ifndef THREAD_SLOT_AHEAD
#define THREAD_SLOT_AHEAD 4
#endif
#ifndef THREAD_FLOW_AHEAD
#define THREAD_FLOW_AHEAD 2
#endif
/* The capture read by the reader thread r to its end, or until p says to
 * read in this thread: then true, every frame the thread read accounted. */
static bool
read_threaded(struct read_ctx *rc, struct ew_reader *r, struct read_end *re, struct pace *p)
{
    volatile sig_atomic_t *stop = rc->stop;
    uint64_t i, frames = 0;
    bool pausing = false, change = false;

    for (i = 0;; i++) {
        const struct ew_rframe *a, *b;

        if (*stop) {
            rc->src->interrupted = true;
            break;
        }
        if (!pausing && i && (p->every || i % PACE_CHECK == 0) && pace_change(p, i)) {
            ew_reader_pause(r);
            pausing = true;
        }
        a = ew_reader_get(r, i);
        if (!a)
            break;
        if (rc->an) {
            if ((b = ew_reader_peek(r, i + THREAD_SLOT_AHEAD)) != NULL)
                ew_analyzer_prefetch_slot(rc->an, &b->pre);
            if ((b = ew_reader_peek(r, i + THREAD_FLOW_AHEAD)) != NULL)
                ew_analyzer_prefetch_flow(rc->an, &b->pkt, &b->pre);
        }
        account_frame(rc, a);
        ew_reader_release(r, i + 1);
    }
    switch (ew_reader_finish(r, &frames, NULL, re->err, sizeof(re->err))) {
    case EW_READER_BROKEN:
        re->broken = true;
        break;
    case EW_READER_REFUSED:
        re->refused = true;
        break;
    case EW_READER_INVALID:
        re->invalid = true;
        break;
    case EW_READER_NOMEM:
        re->nomem = true;
        break;
    case EW_READER_PAUSED:
        change = true;
        break;
    case EW_READER_END:
    case EW_READER_STOPPED:
        break;
    }
    re->frames += frames;
    return change;
}

/* a thread of its own pays for a file on disk, with a processor to spare */
static bool
reader_thread_worth(const struct ew_input *in)
{
    struct stat st;

    return in->fd >= 0 && fstat(in->fd, &st) == 0 && S_ISREG(st.st_mode) &&
           ew_spare_processor();
}

/* ECNWATCH_READ_THREADS: 1 or 2 threads, whatever reads faster; 0 when
 * not set (the benchmarks set it to compare the two) */
static int
read_threads_forced(void)
{
    const char *v = getenv("ECNWATCH_READ_THREADS");

    return v && (!strcmp(v, "1") || !strcmp(v, "2")) ? *v - '0' : 0;
}

/* Read one capture to its end, -c, or a signal. 0, or an exit status. */
static int
read_capture(struct read_ctx *rc, const char *path)
{
    char err[EW_ERRBUF_SIZE];
    struct ew_capture *cap;
    struct ew_reader *r;
    struct read_end re;
    const char *name = strcmp(path, "-") == 0 ? "-" : path;
    bool worth = reader_thread_worth(rc->in);
    int read_threads = read_threads_forced();
    int e = ew_capture_open_input(path, rc->in, rc->cfg->filter, &cap, err, sizeof(err));

    ew_input_close(rc->in);

    if (e != 0 && *rc->stop && e != EW_CAP_ERR_FILTER) {
        /* stopped while waiting for the capture's header (tcpdump -w - |
         * ecnwatch -r -, then Ctrl-C): what was asked for is still written,
         * with no frames and "interrupted" */
        if (rc->run)
            rc->src->name = name;
        rc->src->interrupted = true;
        return 0;
    }
    if (e != 0) {
        ew_err("ecnwatch: %s\n", err);
        return e == EW_CAP_ERR_FILTER ? EW_EXIT_USAGE : EW_EXIT_INPUT;
    }
    memset(&re, 0, sizeof(re));
    if (rc->run && (e = ew_run_open(rc->run, cap, name)) != EW_EXIT_DONE) {
        ew_capture_close(cap);
        return e;
    }
    if (worth && read_threads == 1)
        worth = false;
    if (worth) {
        struct pace p = {.left = PACE_FIRST, .stay = PACE_STAY_MIN};
        const char *sw = getenv("ECNWATCH_READ_SWITCH");
        uint64_t count = rc->cfg->count;
        bool more = true;

        if (sw && *sw)
            p.every = strtoull(sw, NULL, 10);
        else if (read_threads == 2)
            p.every = UINT64_MAX; /* two threads to the end */
        /* one thread first, as with one processor; two for the tests' changes */
        p.threaded = p.every != 0;
        pace_begin(&p);
        while (more && !(count && re.frames >= count)) {
            if (p.threaded &&
                (r = ew_reader_start(cap, ew_capture_link(cap), count ? count - re.frames : 0,
                                     rc->an)) != NULL)
                more = read_threaded(rc, r, &re, &p);
            else if (p.threaded) /* no thread: this one reads it all */
                more = read_inline(rc, cap, &re, NULL);
            else
                more = read_inline(rc, cap, &re, &p);
            p.threaded = !p.threaded;
            pace_begin(&p);
        }
    } else {
        read_inline(rc, cap, &re, NULL);
    }
    if (re.refused) {
        ew_capture_close(cap);
        ew_err("ecnwatch: %s\n", re.err);
        return EW_EXIT_INPUT;
    }
    if (re.invalid) {
        /* not a cut file: the format's rules are broken. What was read
         * before is still reported, and the exit status says the input
         * could not be read */
        if (rc->run)
            rc->src->truncated = true;
        ew_err("ecnwatch: %s: invalid capture after %" PRIu64 " frames: %s\n",
                strcmp(path, "-") ? path : "standard input", re.frames, re.err);
        rc->invalid = true;
    }
    if (re.broken) {
        if (rc->run)
            rc->src->truncated = true;
        ew_err("ecnwatch: warning: %s: capture ends mid-record after %" PRIu64
                " frames (%s); the report covers what was read\n",
                strcmp(path, "-") ? path : "standard input", re.frames, re.err);
    }
    ew_capture_close(cap);
    /* the packets read are kept, also from a capture cut short; when they
     * cannot be, the report and the other files are still written */
    if (rc->run && (e = ew_run_close(rc->run, true)) != EW_EXIT_DONE)
        rc->close_failed = true;
    if (re.nomem) {
        ew_err("ecnwatch: out of memory reading %s\n", path);
        return EW_EXIT_INPUT;
    }
    return 0;
}

/* The indexes and hops between captures. 0, or an exit status. */
static int
setup_path(struct offline *off)
{
    int n = off->cfg->nfiles, i;

    off->up_ix = calloc((size_t)n, sizeof(*off->up_ix));
    off->hops = calloc((size_t)n, sizeof(*off->hops));
    for (i = 1; i < n; i++) {
        if (off->up_ix && off->hops) {
            off->up_ix[i - 1] = ew_index_new(PATH_INDEX_MAX);
            off->hops[i - 1] = ew_hop_new(i, i + 1);
        }
        if (!off->up_ix || !off->hops || !off->up_ix[i - 1] || !off->hops[i - 1]) {
            ew_err("ecnwatch: out of memory for %d captures\n", n);
            return EW_EXIT_USAGE;
        }
    }
    return 0;
}

/* The first capture is analysed; each capture is indexed for the next one
 * downstream and matched against the one before it. 0, or an exit status. */
static int
read_all(struct offline *off)
{
    const struct ew_run_cfg *cfg = off->cfg;
    int i, rc;

    for (i = 0; i < cfg->nfiles && !off->run.src.interrupted; i++) {
        struct read_ctx ctx = {
            .cfg = cfg,
            .stop = off->stop,
            .run = i == 0 ? &off->run : NULL,
            .an = i == 0 ? &off->run.an : NULL,
            .index = i + 1 < cfg->nfiles ? off->up_ix[i] : NULL,
            .hop = i > 0 ? off->hops[i - 1] : NULL,
            .up = i > 0 ? off->up_ix[i - 1] : NULL,
            .src = &off->run.src,
            .in = &off->in[i],
        };

        rc = read_capture(&ctx, cfg->files[i]);
        if (ctx.invalid)
            off->invalid = true;
        if (ctx.close_failed)
            off->close_failed = true;
        if (rc != 0)
            return rc;
        if (i > 0)
            ew_hop_finish(off->hops[i - 1], off->up_ix[i - 1]);
    }
    if (off->run.src.interrupted)
        ew_err("ecnwatch: interrupted after %" PRIu64 " frames; writing what was read\n",
                off->run.an.tot.frames);
    return 0;
}

/* Every capture opened now, before root gives up its privileges (the
 * user it becomes may not read them). 0, or EW_EXIT_INPUT (said). */
static int
open_inputs(struct offline *off)
{
    char err[EW_ERRBUF_SIZE];
    int i;

    for (i = 0; i < off->cfg->nfiles; i++)
        if (ew_input_open(off->cfg->files[i], &off->in[i], err, sizeof(err)) != 0) {
            ew_err("ecnwatch: %s\n", err);
            return EW_EXIT_INPUT;
        }
    return 0;
}

static void
teardown(struct offline *off)
{
    int i;

    ew_run_free(&off->run);
    for (i = 0; i < off->cfg->nfiles; i++) {
        ew_input_close(&off->in[i]);
        if (off->up_ix)
            ew_index_free(off->up_ix[i]);
        if (off->hops)
            ew_hop_free(off->hops[i]);
    }
    free(off->up_ix);
    free(off->hops);
}

int
ew_offline_run(const struct ew_run_cfg *cfg, volatile sig_atomic_t *stop)
{
    struct offline *off = calloc(1, sizeof(*off));
    struct ew_run_how how = {.kind = "file",
                             .streaming = cfg->ndjson && !cfg->json,
                             .stream_interval_ns = 1000000000};
    struct ew_privs pv;
    char err[EW_ERRBUF_SIZE];
    int status, i;

    if (!off) {
        ew_err("ecnwatch: out of memory\n");
        return EW_EXIT_USAGE;
    }
    off->cfg = cfg;
    off->stop = stop;
    for (i = 0; i < EW_CLI_MAX_FILES; i++)
        off->in[i] = (struct ew_input){-1, -1};
    /* as root, the captures are read as -Z's user, once they and the
     * outputs are open (privs.h); every file asked for is checked before
     * the first packet is read, so that none is found unwritable after
     * the whole capture */
    status = EW_EXIT_DONE;
    if (ew_privs_plan(cfg->user, &pv, err, sizeof(err)) != 0) {
        ew_err("ecnwatch: %s\n", err);
        status = EW_EXIT_USAGE;
    } else if (ew_privs_guard(&pv, err, sizeof(err)) != 0) {
        ew_err("ecnwatch: %s\n", err);
        status = EW_EXIT_OUTPUT;
    }
    if (status == EW_EXIT_DONE)
        status = ew_run_start(&off->run, cfg, &how);
    if (status == EW_EXIT_DONE)
        status = setup_path(off);
    if (status == EW_EXIT_DONE)
        status = open_inputs(off);
    if (status == EW_EXIT_DONE && (status = ew_privs_drop(&pv, err, sizeof(err))) != 0)
        ew_err("ecnwatch: %s\n", err);
    if (status == EW_EXIT_DONE)
        status = read_all(off);
    if (status == EW_EXIT_DONE) {
        off->run.path = (struct ew_report_path){cfg->nfiles, cfg->files, off->hops};
        status = ew_run_end(&off->run);
    }
    /* what was read is written; the status says -w failed (its line
     * printed), or that the input was invalid */
    if (status == EW_EXIT_DONE && off->close_failed)
        status = EW_EXIT_OUTPUT;
    if (status == EW_EXIT_DONE && off->invalid)
        status = EW_EXIT_INPUT;
    if (status == EW_EXIT_DONE)
        status = ew_run_fail_on(&off->run);
    teardown(off);
    free(off);
    ew_privs_end(); /* root's helper ends, what it never named removed */
    return status;
}
