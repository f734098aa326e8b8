/* stream.c - NDJSON events (see stream.h). */
#include "ecnwatch/stream.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "ecnwatch/flow.h"
#include "ecnwatch/infer.h"
#include "ecnwatch/misuse.h"

static void
emit(struct ew_stream *s, json_t *o)
{
    if (json_dumpf(o, s->out, JSON_COMPACT | JSON_REAL_PRECISION(10)) != 0 || fputc('\n', s->out) == EOF)
        s->error = true;
    json_decref(o);
}

static json_t *
event(const char *name, int64_t ns)
{
    json_t *o = json_object();
    char t[64];

    json_object_set_new(o, "event", json_string(name));
    ew_time_str(ns, t, sizeof(t));
    json_object_set_new(o, "time", json_string(t));
    return o;
}

static void
flow_end(struct ew_stream *s, const struct ew_flow *f, const char *reason)
{
    json_t *o = event("flow_end", f->last_ns);

    json_object_set_new(o, "reason", json_string(reason));
    json_object_set_new(o, "flow", ew_report_flow_json(s->an, f));
    emit(s, o);
}

static void findings(void *arg, struct ew_flow *f);

/* the table owns the record and it is still intact: its findings first */
static void
on_end(void *arg, const struct ew_flow *f)
{
    findings(arg, (struct ew_flow *)(uintptr_t)f);
    flow_end(arg, f, "idle");
}

static void
on_evict(void *arg, const struct ew_flow *f)
{
    /* an ended flow had its flow_end already */
    if (!f->ended) {
        findings(arg, (struct ew_flow *)(uintptr_t)f);
        flow_end(arg, f, "evicted");
    }
}

/* new findings on one flow: each kind once */
static void
findings(void *arg, struct ew_flow *f)
{
    struct ew_stream *s = arg;
    struct ew_flow_verdict v;
    struct ew_finding fnd[32];
    size_t n, i;

    ew_infer_conclude(f, &v);
    n = ew_misuse_find(f, &v, fnd, sizeof(fnd) / sizeof(fnd[0]));
    for (i = 0; i < n; i++) {
        json_t *o, *fl, *x;

        if (f->streamed_kinds & (1u << fnd[i].kind))
            continue;
        f->streamed_kinds |= 1u << fnd[i].kind;
        o = event("finding", f->last_ns);
        fl = ew_report_flow_json(s->an, f);
        json_object_set_new(o, "flow", json_incref(json_object_get(fl, "id")));
        json_object_set_new(o, "proto", json_incref(json_object_get(fl, "proto")));
        json_object_set_new(o, "client", json_incref(json_object_get(fl, "client")));
        json_object_set_new(o, "server", json_incref(json_object_get(fl, "server")));
        json_decref(fl);
        x = ew_report_finding_json(f, &fnd[i]);
        json_object_update(o, x);
        json_decref(x);
        emit(s, o);
    }
}

static void
update(void *arg, struct ew_flow *f)
{
    struct ew_stream *s = arg;
    json_t *o = event("flow_update", f->last_ns);

    json_object_set_new(o, "flow", ew_report_flow_json(s->an, f));
    emit(s, o);
}

void
ew_stream_init(struct ew_stream *s, FILE *out, int64_t interval_ns, bool updates)
{
    memset(s, 0, sizeof(*s));
    s->out = out;
    s->interval_ns = interval_ns > 0 ? interval_ns : 1000000000;
    s->updates = updates;
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
    ew_flowtab_foreach_recent(s->an->tab, s->last_tick, findings, s);
    if (s->updates)
        ew_flowtab_foreach_recent(s->an->tab, s->last_tick, update, s);
    /* end flows idle past the timeout, a bounded number per interval */
    ew_flowtab_expire(s->an->tab, now, 1024);
    s->last_tick = now;
    if (fflush(s->out) != 0)
        s->error = true;
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

static int
cmp_id(const void *a, const void *b)
{
    const struct ew_flow *x = *(const struct ew_flow *const *)a;
    const struct ew_flow *y = *(const struct ew_flow *const *)b;

    return (x->id > y->id) - (x->id < y->id);
}

static void
collect(void *arg, struct ew_flow *f)
{
    struct {
        struct ew_flow **v;
        size_t n;
    } *c = arg;

    c->v[c->n++] = f;
}

void
ew_stream_finish(struct ew_stream *s, const struct ew_report_src *src)
{
    struct ew_flowtab_stats st;
    struct {
        struct ew_flow **v;
        size_t n;
    } c = {NULL, 0};
    json_t *o, *rep;
    size_t i;

    if (!s->an)
        return;
    /* the last interval's findings, then every live flow ends, in id order */
    ew_flowtab_foreach_recent(s->an->tab, s->last_tick, findings, s);
    ew_flowtab_get_stats(s->an->tab, &st);
    c.v = malloc((st.live ? st.live : 1) * sizeof(*c.v));
    if (c.v) {
        ew_flowtab_foreach_live(s->an->tab, collect, &c);
        qsort(c.v, c.n, sizeof(*c.v), cmp_id);
        for (i = 0; i < c.n; i++)
            flow_end(s, c.v[i], "capture_end");
        free(c.v);
    }
    o = event("summary", s->an->last_ns);
    rep = ew_report_head(s->an, src);
    json_object_set_new(o, "source", json_incref(json_object_get(rep, "source")));
    json_object_set_new(o, "totals", json_incref(json_object_get(rep, "totals")));
    json_decref(rep);
    emit(s, o);
    if (fflush(s->out) != 0)
        s->error = true;
}
