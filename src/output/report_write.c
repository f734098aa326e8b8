/* report_write.c - the JSON report written out: the head's members, the
 * flows one at a time (in two threads when there are many), and the
 * atomic report file. */
#define _GNU_SOURCE /* fopencookie */
#include "output/report.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>
#include <stdlib.h>
#include <string.h>

#include "findings/conclusions.h"
#include "findings/pathcmp.h"
#include "probe/probe.h"
#include "base/jw.h"
#include "base/outfile.h"
#include "base/thread.h"
#include "base/version.h"

/* the pass's flows [from, to) as members of w's open array, each written
 * out into r (room: for the packed ones) */
static void
flows_range(struct jw *w, const struct ew_pass *p, size_t from, size_t to,
            struct ew_flow_summary *r, struct ew_flow_room *room)
{
    size_t i;

    for (i = from; i < to && !jw_error(w); i++) {
        const struct ew_flow *f = ew_conclusion_words(p->c, i, EW_REPORT_CONCLUDE, room, r);

        ew_report_flow_write(w, p->an, f, r);
    }
}

/* Writing the flows takes two threads when there are many: the flows go in
 * chunks, the caller's thread writes the even ones in place, a helper the
 * odd ones into memory, a few chunks ahead at most, which the caller's
 * thread puts in place in turn. The bytes are the same as from one thread;
 * a chunk the helper could not write (no memory) the caller writes itself. */
#define FLOW_CHUNK 64
#define PARTS 4 /* the helper's chunks held at once */

struct part {
    char *mem;
    size_t len;
    int state; /* PART_* */
};
enum { PART_EMPTY, PART_READY, PART_FAILED };

struct flows_job {
    const struct ew_pass *p;
    size_t n;
    struct jw at; /* the caller's writer as it was inside the array, before any flow */
    pthread_mutex_t mu;
    pthread_cond_t cv;
    struct part part[PARTS];
    bool quit;
};

/* A chunk written into memory: a stream whose writes (the writer's whole
 * buffers, at most JW_BUF bytes each) are appended to a growing array. An
 * open_memstream() stream copied them byte by byte, which cost the helper
 * as much as the flows it wrote. */
struct membuf {
    char *p;
    size_t len, cap;
};

static ssize_t
membuf_write(void *cookie, const char *buf, size_t n)
{
    struct membuf *m = cookie;

    if (n > m->cap - m->len) {
        size_t cap = m->cap ? m->cap : 65536;
        char *np;

        while (cap - m->len < n)
            cap *= 2;
        np = realloc(m->p, cap);
        if (!np)
            return 0; /* an error, to the stream */
        m->p = np;
        m->cap = cap;
    }
    memcpy(m->p + m->len, buf, n);
    m->len += n;
    return (ssize_t)n;
}

static FILE *
membuf_open(struct membuf *m)
{
    static const cookie_io_functions_t io = {NULL, membuf_write, NULL, NULL};

    memset(m, 0, sizeof(*m));
    return fopencookie(m, "w", io);
}

static void *
flows_helper(void *arg)
{
    struct flows_job *j = arg;
    struct ew_flow_summary *r = malloc(sizeof(*r));
    struct ew_flow_room *room = malloc(sizeof(*room));
    size_t k, h;

    for (h = 0, k = 1; k * FLOW_CHUNK < j->n; h++, k += 2) {
        struct part *pt = &j->part[h % PARTS];
        size_t to = (k + 1) * FLOW_CHUNK < j->n ? (k + 1) * FLOW_CHUNK : j->n;
        struct membuf mb;
        FILE *f;
        struct jw c;
        int state = PART_FAILED;
        bool quit;

        pthread_mutex_lock(&j->mu);
        while (pt->state != PART_EMPTY && !j->quit)
            pthread_cond_wait(&j->cv, &j->mu);
        quit = j->quit;
        pthread_mutex_unlock(&j->mu);
        if (quit)
            break;
        f = r && room ? membuf_open(&mb) : NULL;
        if (f && jw_init_inside(&c, &j->at, f, false) == 0) {
            flows_range(&c, j->p, k * FLOW_CHUNK, to, r, room);
            if (jw_finish(&c) == 0)
                state = PART_READY;
        }
        if (f && fclose(f) != 0)
            state = PART_FAILED;
        pthread_mutex_lock(&j->mu);
        pt->mem = f ? mb.p : NULL;
        pt->len = f ? mb.len : 0;
        pt->state = state;
        pthread_cond_broadcast(&j->cv);
        pthread_mutex_unlock(&j->mu);
    }
    free(r);
    free(room);
    return NULL;
}

/* ECNWATCH_REPORT_THREADS=1: the flows written by the caller's thread
 * alone (ecnwatch(1), ENVIRONMENT), so that make bench can show what the
 * helper gains */
static bool
one_thread(void)
{
    const char *v = getenv("ECNWATCH_REPORT_THREADS");

    return v && !strcmp(v, "1");
}

/* the flows of the report, as the array at w's place */
static int
flows_write(struct jw *w, const struct ew_pass *p)
{
    struct ew_flow_summary *r;
    struct ew_flow_room *room;
    struct flows_job j;
    bool helper = false;
    pthread_t th;
    size_t n = p->c->n, k, h;

    if (p->c->nomem)
        return -1;
    r = malloc(sizeof(*r));
    room = malloc(sizeof(*room));
    if (!r || !room) {
        free(r);
        free(room);
        return -1;
    }
    jw_array_begin(w);
    memset(&j, 0, sizeof(j));
    j.p = p;
    j.n = n;
    j.at = *w; /* its state only: the helper never writes through it */
    if (n >= 4 * FLOW_CHUNK && ew_spare_processor() && !one_thread() &&
        pthread_mutex_init(&j.mu, NULL) == 0) {
        if (pthread_cond_init(&j.cv, NULL) == 0) {
            helper = ew_thread_start(&th, flows_helper, &j) == 0;
            if (!helper)
                pthread_cond_destroy(&j.cv);
        }
        if (!helper)
            pthread_mutex_destroy(&j.mu);
    }
    for (h = 0, k = 0; k * FLOW_CHUNK < n && !jw_error(w); k++) {
        size_t to = (k + 1) * FLOW_CHUNK < n ? (k + 1) * FLOW_CHUNK : n;
        struct part *pt;

        if (!helper || k % 2 == 0) {
            flows_range(w, p, k * FLOW_CHUNK, to, r, room);
            continue;
        }
        pt = &j.part[h++ % PARTS];
        pthread_mutex_lock(&j.mu);
        while (pt->state == PART_EMPTY)
            pthread_cond_wait(&j.cv, &j.mu);
        pthread_mutex_unlock(&j.mu);
        if (pt->state == PART_READY) {
            jw_raw(w, pt->mem, pt->len);
            jw_members_placed(w);
        } else {
            flows_range(w, p, k * FLOW_CHUNK, to, r, room);
        }
        free(pt->mem);
        pt->mem = NULL;
        pthread_mutex_lock(&j.mu);
        pt->state = PART_EMPTY;
        pthread_cond_broadcast(&j.cv);
        pthread_mutex_unlock(&j.mu);
    }
    if (helper) {
        pthread_mutex_lock(&j.mu);
        j.quit = true;
        pthread_cond_broadcast(&j.cv);
        pthread_mutex_unlock(&j.mu);
        pthread_join(th, NULL);
        for (k = 0; k < PARTS; k++)
            free(j.part[k].mem);
        pthread_cond_destroy(&j.cv);
        pthread_mutex_destroy(&j.mu);
    }
    jw_array_end(w);
    free(r);
    free(room);
    return 0;
}

/* the groups of flows through one bottleneck, written as the report's
 * "bottlenecks"; they refine the flows' conclusions (ew_bottleneck_apply) */
static void
bottlenecks_write(struct jw *w, const struct ew_bottlenecks *b)
{
    jw_key(w, "bottlenecks");
    ew_report_bottlenecks_write(w, b);
}

uint32_t
ew_report_capture_kinds(const struct ew_pass *p)
{
    uint64_t counts[EW_MU_MASK_BITS];
    uint32_t m = p->found;
    int i;

    for (i = 0; p->path && i < p->path->ncaptures - 1; i++)
        m |= ew_hop_kinds(p->path->hops[i], counts);
    return m;
}

/* --probe-report: what the probe located on the path, and whether these
 * captures show the same kind of change */
static void
probe_write(struct jw *w, const struct ew_pass *p)
{
    const struct ew_probe_summary *s = p->probe;
    uint32_t seen = ew_report_capture_kinds(p);
    size_t i;

    jw_key(w, "probe");
    jw_object_begin(w);
    jw_kstring(w, "file", s->file);
    jw_kstring(w, "target", s->target);
    jw_kstring(w, "addr", s->target_addr);
    jw_kstring(w, "source", s->source);
    if (s->dest_ttl > 0)
        jw_kint(w, "destination_ttl", s->dest_ttl);
    else
        jw_knull(w, "destination_ttl");
    jw_kcount(w, "findings_not_read", s->more);
    jw_key(w, "findings");
    jw_array_begin(w);
    for (i = 0; i < s->n; i++) {
        const struct ew_probe_located *l = &s->f[i];

        jw_object_begin(w);
        jw_kstring(w, "kind", ew_misuse_name[l->kind]);
        jw_kstring(w, "dimension", l->dim);
        jw_kint(w, "ttl", l->ttl);
        jw_kstring_or_null(w, "addr", l->addr[0] ? l->addr : NULL);
        jw_key(w, "last_as_sent");
        if (l->last_ttl < 0) {
            jw_null(w);
        } else {
            jw_object_begin(w);
            jw_kint(w, "ttl", l->last_ttl);
            jw_kstring_or_null(w, "addr", l->last_addr[0] ? l->last_addr : NULL);
            jw_object_end(w);
        }
        jw_kstring(w, "confidence", l->conf);
        jw_kstring(w, "detail", l->detail);
        jw_kbool(w, "captures_show_it", (seen >> l->kind) & 1u);
        jw_object_end(w);
    }
    jw_array_end(w);
    jw_object_end(w);
}

int
ew_report_dump(FILE *out, const struct ew_pass *p)
{
    struct jw w;
    int rc = 0;

    if (jw_init(&w, out, 2, 10) != 0)
        return -1;
    jw_object_begin(&w);
    jw_kstring(&w, "schema", EW_SCHEMA);
    jw_kstring(&w, "version", EW_VERSION);
    ew_report_source_write(&w, p);
    ew_report_totals_write(&w, p);
    bottlenecks_write(&w, &p->c->bn);
    jw_key(&w, "flows");
    if (!jw_error(&w) && flows_write(&w, p) != 0)
        rc = -1;
    if (p->path && p->path->ncaptures > 1 && rc == 0) {
        jw_key(&w, "path");
        ew_report_path_write(&w, p->path);
    }
    if (p->probe && rc == 0)
        probe_write(&w, p);
    jw_object_end(&w);
    jw_raw(&w, "\n", 1);
    if (jw_finish(&w) != 0)
        rc = -1;
    return rc;
}

static int
report_fill(void *arg, FILE *out)
{
    return ew_report_dump(out, arg);
}

int
ew_report_write_file(const struct ew_pass *p, const char *path, char *errbuf, size_t errlen)
{
    return ew_outfile_write(path, report_fill, (void *)(uintptr_t)p, "report", errbuf, errlen);
}
