/* stream.c - NDJSON events (see stream.h). */
#include "output/stream.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "findings/conclusions.h"
#include "flow/flowtab.h"
#include "infer/infer.h"
#include "findings/misuse.h"

/* May one more event be written? Past the byte limit it is counted instead. */
static bool
room_for_event(struct ew_stream *s)
{
    if (s->max_bytes && s->w.flushed + s->w.len >= s->max_bytes) {
        s->dropped++;
        return false;
    }
    return true;
}

/* an event's first members: {"event": name, "time": ... (left open) */
static void
event_begin(struct ew_stream *s, const char *name, int64_t ns)
{
    char t[64];

    jw_object_begin(&s->w);
    jw_kstring(&s->w, "event", name);
    ew_time_str(ns, t, sizeof(t));
    jw_kstring(&s->w, "time", t);
}

/* the event ends its line */
static void
event_end(struct ew_stream *s)
{
    jw_object_end(&s->w);
    jw_raw(&s->w, "\n", 1);
    if (jw_error(&s->w))
        s->error = true;
}

static void
flow_end(struct ew_stream *s, const struct ew_flow *f, const char *reason,
         const struct ew_flow_summary *r)
{
    if (!room_for_event(s))
        return;
    event_begin(s, "flow_end", f->last_ns);
    jw_kstring(&s->w, "reason", reason);
    jw_key(&s->w, "flow");
    ew_report_flow_write(&s->w, s->an, f, r);
    event_end(s);
}

/* one finding of a flow as an event */
static void
finding_event(struct ew_stream *s, const struct ew_flow *f, const struct ew_finding *x)
{
    if (!room_for_event(s))
        return;
    event_begin(s, "finding", f->last_ns);
    jw_kint(&s->w, "flow", (int64_t)f->id);
    jw_kstring(&s->w, "proto", ew_report_proto_name(f));
    ew_report_endpoint_write(&s->w, "client", f, true);
    ew_report_endpoint_write(&s->w, "server", f, false);
    ew_report_finding_members(&s->w, f, x);
    event_end(s);
}

/* new findings on one flow, each kind once (the kinds it had streamed
 * before: streamed) from its conclusion whole; returns the kinds now
 * streamed */
static uint32_t
new_findings(struct ew_stream *s, const struct ew_flow *f, uint32_t streamed,
             const struct ew_flow_summary *r)
{
    size_t i;

    for (i = 0; i < r->nf; i++) {
        if (streamed & (1u << r->fnd[i].kind))
            continue;
        streamed |= 1u << r->fnd[i].kind;
        finding_event(s, f, &r->fnd[i]);
    }
    return streamed;
}

/* A flow of no interest is only counted, however it ends (idle, evicted,
 * at the capture's end), and gets no update: fewer than STREAM_SMALL_PKTS
 * packets, every one Not-ECT both ways, no ECN asked for in a handshake,
 * and no finding. A flood of small flows then writes nothing per flow,
 * whatever ends them, and a flow_end (a few kilobytes) always stands for
 * at least as many bytes of capture. */
#define STREAM_SMALL_PKTS 32

static bool
of_no_interest(const struct ew_flow *f, const struct ew_conclusion *row)
{
    return ew_conclusion_plain_below(f, row, STREAM_SMALL_PKTS) &&
           (row->neg == EW_NEG_NONE || row->neg == EW_NEG_NA || row->neg == EW_NEG_UNSEEN);
}

/* A flow leaving the table: its findings and its flow_end, written out
 * once; a flow of no interest only counted */
static void
findings_and_end(struct ew_stream *s, struct ew_flow *f, const char *reason)
{
    struct ew_flow_summary *r = &s->fr;
    struct ew_conclusion row;

    ew_conclusion_of(f, 0, EW_REPORT_CONCLUDE, r, &row);
    if (of_no_interest(f, &row)) {
        s->summarised++;
        return;
    }
    f->streamed_kinds = new_findings(s, f, f->streamed_kinds, r);
    flow_end(s, f, reason, r);
}

/* the table owns the record and it is still intact: its findings first */
static void
on_end(void *arg, const struct ew_flow *f)
{
    findings_and_end(arg, (struct ew_flow *)(uintptr_t)f, "idle");
}

static void
on_evict(void *arg, const struct ew_flow *f, const struct ew_conclusion *row)
{
    struct ew_stream *s = arg;

    /* an ended flow had its flow_end already (or was counted) */
    if (f->ended)
        return;
    if (of_no_interest(f, row)) {
        s->summarised++;
        return;
    }
    findings_and_end(s, (struct ew_flow *)(uintptr_t)f, "evicted");
}

/* the findings of pass c's row i not streamed yet, each kind once */
static void
row_findings(struct ew_stream *s, const struct ew_conclusions *c, size_t i)
{
    const struct ew_conclusion *row = &c->row[i];
    const struct ew_flow *f = ew_flowtab_view(c->tab, row->ref, &s->room);
    uint32_t streamed;

    if (!(row->kinds & ~f->streamed_kinds))
        return;
    f = ew_conclusion_words(c, i, 0, &s->room, &s->fr); /* findings need no reasons in words */
    streamed = new_findings(s, f, f->streamed_kinds, &s->fr);
    ew_flowtab_heat(s->an->tab, row->ref)->streamed_kinds = streamed;
}

static void
update(struct ew_stream *s, const struct ew_conclusions *c, size_t i)
{
    const struct ew_flow *f;

    if (!room_for_event(s) ||
        of_no_interest(ew_flowtab_view(c->tab, c->row[i].ref, &s->room), &c->row[i]))
        return;
    f = ew_conclusion_words(c, i, EW_REPORT_CONCLUDE, &s->room, &s->fr);
    event_begin(s, "flow_update", f->last_ns);
    jw_key(&s->w, "flow");
    ew_report_flow_write(&s->w, s->an, f, &s->fr);
    event_end(s);
}

/* the interval's pass: the flows active since the last tick, the latest
 * active first, their new findings (then, live, an update of each) */
static void
interval(struct ew_stream *s, bool updates)
{
    const struct ew_pass_sel sel = {EW_ITER_RECENT, s->last_tick, 0};
    size_t i;

    if (ew_analyzer_pass(s->an, &s->pass, 0, &sel) != 0)
        return;
    for (i = 0; i < s->pass.n; i++)
        row_findings(s, &s->pass, i);
    for (i = 0; updates && i < s->pass.n; i++)
        update(s, &s->pass, i);
}

/* what is buffered goes out, and the FILE's buffer with it */
static void
flush(struct ew_stream *s)
{
    if (jw_flush(&s->w) != 0 || fflush(s->out) != 0) {
        s->error = true;
        if (!s->w.err)
            s->w.err = errno ? errno : EIO; /* why, for the message; no more writes */
        /* the reader of the stream left (a pipe to head, a closed
         * session): the run ends as a signal ends it */
        if (s->w.err == EPIPE)
            s->reader_gone = true;
    }
}

void
ew_stream_init(struct ew_stream *s, FILE *out, int64_t interval_ns, bool updates)
{
    memset(s, 0, sizeof(*s));
    s->out = out;
    jw_init_buf(&s->w, out, 0, 10, s->buf);
    s->interval_ns = interval_ns > 0 ? interval_ns : 1000000000;
    s->updates = updates;
}

void
ew_stream_limit(struct ew_stream *s, uint64_t max_bytes)
{
    s->max_bytes = max_bytes;
}

void
ew_stream_attach(struct ew_stream *s, struct ew_analyzer_cfg *cfg)
{
    cfg->on_end = on_end;
    cfg->end_arg = s;
    cfg->on_evict = on_evict;
    cfg->evict_arg = s;
}

void
ew_stream_bind(struct ew_stream *s, struct ew_analyzer *an)
{
    s->an = an;
}

static void
tick(struct ew_stream *s, int64_t now)
{
    interval(s, s->updates);
    /* end flows idle past the timeout, a bounded number per interval */
    ew_flowtab_expire(s->an->tab, now, 1024);
    s->last_tick = now;
    flush(s);
}

void
ew_stream_packet(struct ew_stream *s, int64_t now)
{
    if (!s->started) {
        s->started = true;
        s->last_tick = now;
        s->next_tick = now + s->interval_ns;
        return;
    }
    if (now < s->next_tick)
        return;
    tick(s, now);
    s->next_tick = now + s->interval_ns;
}

void
ew_stream_finish(struct ew_stream *s, const struct ew_pass *p)
{
    const struct ew_conclusions *c = p->c;
    size_t i, j;

    if (!s->an)
        return;
    /* the last interval's findings, then every live flow ends, in id order,
     * in the light of the bottlenecks its flows share: what that adds (a
     * finding of one flow among others) comes before its flow_end */
    interval(s, false);
    for (i = 0; i < c->n; i++) {
        const struct ew_flow *f;

        if (c->row[i].flags & EW_CONCL_ENDED)
            continue;
        /* the row's findings include what the bottlenecks add */
        if (of_no_interest(ew_flowtab_view(c->tab, c->row[i].ref, &s->room), &c->row[i])) {
            s->summarised++;
            continue;
        }
        f = ew_conclusion_words(c, i, EW_REPORT_CONCLUDE, &s->room, &s->fr);
        for (j = 0; j < s->fr.nf; j++)
            if (!(f->streamed_kinds & (1u << s->fr.fnd[j].kind)))
                finding_event(s, f, &s->fr.fnd[j]);
        flow_end(s, f, "capture_end", &s->fr);
    }
    event_begin(s, "summary", s->an->last_ns);
    ew_report_source_write(&s->w, p);
    ew_report_totals_write(&s->w, p);
    jw_key(&s->w, "bottlenecks");
    ew_report_bottlenecks_write(&s->w, &c->bn);
    jw_kint(&s->w, "flow_ends_summarised", (int64_t)s->summarised);
    jw_kint(&s->w, "events_dropped", (int64_t)s->dropped);
    event_end(s);
    flush(s);
}

void
ew_stream_free(struct ew_stream *s)
{
    ew_conclusions_free(&s->pass);
}
