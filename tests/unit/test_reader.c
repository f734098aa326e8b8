/* test_reader.c - the reader thread: every frame, in order, the same bytes
 * and decoding as reading in one thread; -c; a stop; the capture taken back
 * mid-file and read on in one thread; a file cut short. The
 * captures are a bundled one's records four times over, so that the ring
 * goes round twice. */
#include <CUnit/CUnit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "input/capture.h"
#include "dissectors/dissect.h"
#include "engine/reader.h"
#include "base/thread.h"
#include "suites.h"

#define SRC "captures/rfc3168-ce-server.pcap" /* classic pcap, 2,198 frames */
#define TIMES 4
#define FRAMES (TIMES * 2198)

/* a file of SRC's records TIMES over, its first `cut` bytes (0: all); path
 * is the template for mkstemp() */
static void
make_capture(char *path, long cut)
{
    static char buf[1 << 20];
    FILE *in = fopen(SRC, "rb"), *out;
    size_t n;
    int fd = mkstemp(path), i;

    CU_ASSERT_FATAL(in != NULL && fd >= 0);
    n = fread(buf, 1, sizeof(buf), in);
    fclose(in);
    CU_ASSERT_FATAL(n > 24 && n < sizeof(buf));
    out = fdopen(fd, "wb");
    CU_ASSERT_FATAL(out != NULL);
    CU_ASSERT_FATAL(fwrite(buf, 1, n, out) == n);
    for (i = 1; i < TIMES; i++)
        CU_ASSERT_FATAL(fwrite(buf + 24, 1, n - 24, out) == n - 24);
    CU_ASSERT_FATAL(fflush(out) == 0);
    if (cut)
        CU_ASSERT_FATAL(ftruncate(fd, cut) == 0);
    fclose(out);
}

/* every frame of path read in this thread: its number, length and a sum of its bytes */
struct ref {
    uint64_t n;
    uint64_t number[FRAMES];
    uint32_t caplen[FRAMES];
    uint32_t sum[FRAMES];
    uint8_t ecn[FRAMES];
};

static uint32_t
sum_of(const uint8_t *p, uint32_t n)
{
    uint32_t s = 2166136261u, i;

    for (i = 0; i < n; i++)
        s = (s ^ p[i]) * 16777619u;
    return s;
}

static void
read_ref(const char *path, struct ref *r)
{
    char err[EW_ERRBUF_SIZE];
    struct ew_capture *cap;
    struct ew_frame fr;

    r->n = 0;
    CU_ASSERT_FATAL(ew_capture_open_file(path, NULL, &cap, err, sizeof(err)) == 0);
    while (ew_capture_next(cap, &fr, err, sizeof(err)) == EW_CAP_FRAME && r->n < FRAMES) {
        struct ew_pkt pkt;

        ew_dissect_frame(ew_capture_link(cap), fr.data, fr.caplen, fr.wirelen, &pkt);
        r->number[r->n] = fr.number;
        r->caplen[r->n] = fr.caplen;
        r->sum[r->n] = sum_of(fr.data, fr.caplen);
        r->ecn[r->n] = pkt.ecn;
        r->n++;
    }
    ew_capture_close(cap);
}

/* read path with the reader (at most count frames), releasing late to fill
 * the ring; compare with ref; returns the frames read */
static uint64_t
read_threaded(const char *path, uint64_t count, const struct ref *ref, enum ew_reader_end *end)
{
    char err[EW_ERRBUF_SIZE];
    struct ew_capture *cap;
    struct ew_reader *r;
    const struct ew_rframe *a;
    uint64_t i, frames = 0, bad = 0;

    CU_ASSERT_FATAL(ew_capture_open_file(path, NULL, &cap, err, sizeof(err)) == 0);
    r = ew_reader_start(cap, ew_capture_link(cap), count, NULL);
    CU_ASSERT_FATAL(r != NULL);
    for (i = 0; (a = ew_reader_get(r, i)) != NULL; i++) {
        if (i >= ref->n || a->fr.number != ref->number[i] || a->fr.caplen != ref->caplen[i] ||
            sum_of(a->fr.data, a->fr.caplen) != ref->sum[i] || a->pkt.ecn != ref->ecn[i] ||
            a->pkt.frame_no != a->fr.number || a->pre.valid)
            bad++;
        if (i >= 100)
            ew_reader_release(r, i - 100);
    }
    CU_ASSERT(bad == 0);
    *end = ew_reader_finish(r, &frames, NULL, err, sizeof(err));
    CU_ASSERT(frames == i);
    ew_capture_close(cap);
    return frames;
}

static struct ref ref;

static void
test_all_in_order(void)
{
    char path[] = "/tmp/ew-reader-XXXXXX";
    enum ew_reader_end end;

    make_capture(path, 0);
    read_ref(path, &ref);
    CU_ASSERT_FATAL(ref.n == FRAMES);
    CU_ASSERT(read_threaded(path, 0, &ref, &end) == ref.n);
    CU_ASSERT(end == EW_READER_END);
    CU_ASSERT(read_threaded(path, 300, &ref, &end) == 300);
    CU_ASSERT(end == EW_READER_END);
    remove(path);
}

static void
test_stop(void)
{
    char path[] = "/tmp/ew-reader-XXXXXX", err[EW_ERRBUF_SIZE];
    struct ew_capture *cap;
    struct ew_reader *r;
    uint64_t frames = 0;
    uint64_t i;

    make_capture(path, 0);
    CU_ASSERT_FATAL(ew_capture_open_file(path, NULL, &cap, err, sizeof(err)) == 0);
    r = ew_reader_start(cap, ew_capture_link(cap), 0, NULL);
    CU_ASSERT_FATAL(r != NULL);
    for (i = 0; i < 10; i++)
        CU_ASSERT(ew_reader_get(r, i) != NULL);
    /* never released: the reader waits for room until it is stopped */
    CU_ASSERT(ew_reader_finish(r, &frames, NULL, err, sizeof(err)) == EW_READER_STOPPED);
    CU_ASSERT(frames >= 10 && frames < FRAMES);
    ew_capture_close(cap);
    remove(path);
}

static void
test_cut(void)
{
    char path[] = "/tmp/ew-reader-XXXXXX", err[EW_ERRBUF_SIZE];
    struct ew_capture *cap;
    struct ew_reader *r;
    uint64_t frames = 0, i;

    make_capture(path, 900000 - 7); /* mid-record, past the ring's first round */
    CU_ASSERT_FATAL(ew_capture_open_file(path, NULL, &cap, err, sizeof(err)) == 0);
    r = ew_reader_start(cap, ew_capture_link(cap), 0, NULL);
    CU_ASSERT_FATAL(r != NULL);
    for (i = 0; ew_reader_get(r, i) != NULL; i++)
        ew_reader_release(r, i + 1);
    err[0] = '\0';
    CU_ASSERT(ew_reader_finish(r, &frames, NULL, err, sizeof(err)) == EW_READER_BROKEN);
    CU_ASSERT(frames == i && frames > 4096 && frames < FRAMES);
    CU_ASSERT(err[0] != '\0');
    ew_capture_close(cap);
    remove(path);
}

/* The capture taken back after `at` frames got (ew_reader_pause()) and read
 * on in this thread, then given to a reader again, and so on: every frame
 * once, in order, and at most `count` of them. */
static void
pause_at(const char *path, uint64_t at, uint64_t count)
{
    char err[EW_ERRBUF_SIZE];
    struct ew_capture *cap;
    uint64_t n = 0, bad = 0;
    int pauses = 0;
    bool more = true;

    CU_ASSERT_FATAL(ew_capture_open_file(path, NULL, &cap, err, sizeof(err)) == 0);
    while (more && !(count && n >= count)) {
        struct ew_reader *r = ew_reader_start(cap, ew_capture_link(cap), count ? count - n : 0, NULL);
        const struct ew_rframe *a;
        struct ew_frame fr;
        uint64_t i, frames = 0, j;
        enum ew_reader_end end;

        CU_ASSERT_FATAL(r != NULL);
        for (i = 0; (a = ew_reader_get(r, i)) != NULL; i++) {
            if (n + i >= ref.n || a->fr.number != ref.number[n + i] ||
                sum_of(a->fr.data, a->fr.caplen) != ref.sum[n + i])
                bad++;
            if (i + 1 == at)
                ew_reader_pause(r);
            ew_reader_release(r, i + 1);
        }
        end = ew_reader_finish(r, &frames, NULL, err, sizeof(err));
        CU_ASSERT(frames == i);
        n += frames;
        more = end == EW_READER_PAUSED;
        pauses += more;
        CU_ASSERT(more || end == EW_READER_END);
        /* as many in this thread */
        for (j = 0; more && j < at && !(count && n >= count); j++) {
            if (ew_capture_next(cap, &fr, err, sizeof(err)) != EW_CAP_FRAME) {
                more = false;
                break;
            }
            if (n >= ref.n || fr.number != ref.number[n] || sum_of(fr.data, fr.caplen) != ref.sum[n])
                bad++;
            n++;
        }
    }
    CU_ASSERT(bad == 0);
    CU_ASSERT(n == (count ? count : ref.n));
    CU_ASSERT(pauses > 0 || count);
    ew_capture_close(cap);
}

static void
test_pause(void)
{
    char path[] = "/tmp/ew-reader-XXXXXX";

    make_capture(path, 0);
    read_ref(path, &ref);
    CU_ASSERT_FATAL(ref.n == FRAMES);
    pause_at(path, 1, 0);
    pause_at(path, 777, 0);
    pause_at(path, 3000, 0);
    pause_at(path, 1000, 2500);
    remove(path);
}

/* Frames of 0 to 9,000 bytes (the copies wrap round the reader's buffer
 * at every size) read faster than they are released: the copies held stay
 * within the budget, which, not the ring's 4,096 frames, is what holds the
 * reader back; every frame arrives, in order, with its own bytes. */
static uint32_t
budget_len(uint64_t i)
{
    return i % 97 == 0 ? 0 : (uint32_t)(14 + (i * 7919) % 8987);
}

static void
test_budget(void)
{
    char path[] = "/tmp/ew-reader-XXXXXX", err[EW_ERRBUF_SIZE];
    static uint8_t frame[9001];
    struct ew_capture *cap;
    struct ew_reader *r;
    const struct ew_rframe *a;
    uint32_t hdr[6] = {0xa1b2c3d4u, 0x00040002u, 0, 0, 65535, 1}, rec[4];
    uint64_t frames = 0, i, bad = 0;
    size_t peak = 0;
    int fd = mkstemp(path);
    FILE *out = fd >= 0 ? fdopen(fd, "wb") : NULL;

    CU_ASSERT_FATAL(out != NULL);
    CU_ASSERT_FATAL(fwrite(hdr, sizeof(hdr), 1, out) == 1);
    for (i = 0; i < 3000; i++) {
        uint32_t len = budget_len(i);

        rec[0] = (uint32_t)(1700000000 + i);
        rec[1] = 0;
        rec[2] = rec[3] = len;
        memset(frame, (int)(i & 0xff), sizeof(frame));
        frame[12] = 0x88; /* an EtherType ecnwatch does not decode: counted, not parsed */
        frame[13] = 0xb5;
        CU_ASSERT_FATAL(fwrite(rec, sizeof(rec), 1, out) == 1);
        CU_ASSERT_FATAL(len == 0 || fwrite(frame, len, 1, out) == 1);
    }
    fclose(out);
    CU_ASSERT_FATAL(ew_capture_open_file(path, NULL, &cap, err, sizeof(err)) == 0);
    r = ew_reader_start(cap, ew_capture_link(cap), 0, NULL);
    CU_ASSERT_FATAL(r != NULL);
    for (i = 0; (a = ew_reader_get(r, i)) != NULL; i++) {
        uint32_t len = budget_len(i);

        if (a->fr.caplen != len || a->fr.number != i + 1 ||
            (len && (a->fr.data[0] != (i & 0xff) || a->fr.data[len - 1] != (i & 0xff) ||
                     a->fr.data[len / 2] != ((len / 2 == 12) ? 0x88 : (len / 2 == 13) ? 0xb5 : (i & 0xff)))))
            bad++;
        if (i % 8 == 0)
            usleep(200); /* slower than the reader */
        ew_reader_release(r, i + 1);
    }
    CU_ASSERT(bad == 0);
    CU_ASSERT(ew_reader_finish(r, &frames, &peak, err, sizeof(err)) == EW_READER_END);
    CU_ASSERT(frames == 3000 && i == 3000);
    CU_ASSERT(peak <= EW_READER_BUDGET);
    CU_ASSERT(peak > EW_READER_BUDGET / 2);
    ew_capture_close(cap);
    remove(path);
}

/* The machine's idle time, as the reading threads' pacing takes it: known
 * on Linux, never going back, and at least /proc/uptime's idle seconds
 * (which leave out the time waiting for input and output) */
static void
test_idle(void)
{
    int64_t a = ew_idle_ns(), b;
    double up = 0, idle = -1;
    FILE *f = fopen("/proc/uptime", "r");

    CU_ASSERT_FATAL(f != NULL);
    CU_ASSERT(fscanf(f, "%lf %lf", &up, &idle) == 2);
    fclose(f);
    usleep(20000);
    b = ew_idle_ns();
    CU_ASSERT(a >= 0);
    CU_ASSERT(b >= a);
    CU_ASSERT((double)b >= (idle - 0.5) * 1e9);
}

int
ew_test_register_reader(void)
{
    CU_pSuite s = CU_add_suite("reader", NULL, NULL);

    if (!s)
        return -1;
    if (!CU_add_test(s, "every frame, in order, as read in one thread", test_all_in_order) ||
        !CU_add_test(s, "a stop while the ring is full", test_stop) ||
        !CU_add_test(s, "the capture taken back mid-file and read on", test_pause) ||
        !CU_add_test(s, "a file cut mid-record", test_cut) ||
        !CU_add_test(s, "long frames within the budget", test_budget) ||
        !CU_add_test(s, "the machine's idle time", test_idle))
        return -1;
    return 0;
}
