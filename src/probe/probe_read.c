/* probe_read.c - a probe's report read back (--probe-report FILE, with -r):
 * what the probe located, set beside what the captures show. The file is a
 * user's, so it is read as hostile: at most EW_PROBE_REPORT_MAX bytes, parsed
 * by jansson (loaded when needed, base/dynlib.h), every member checked for
 * its type, strings cut to their room. */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/dynlib.h"
#include "probe/probe.h"

#ifndef JANSSON_SONAME
#define JANSSON_SONAME "libjansson.so.4"
#endif
#define JS_FUNCS(X)                                                                            \
    X(json_loadb) X(json_object_get) X(json_array_size) X(json_array_get) X(json_string_value) \
    X(json_integer_value) X(json_delete)
#define JS_PTR(f) __typeof__(f) *f;
#define JS_NAME(f) #f,
static struct {
    JS_FUNCS(JS_PTR)
} js;

static int
js_load(char *err, size_t errlen)
{
    static const char *const names[] = {JS_FUNCS(JS_NAME) NULL};

    if (js.json_delete)
        return 0;
    return ew_dynlib_load(JANSSON_SONAME, "--probe-report", names, &js, sizeof(js), err, errlen);
}

/* the string member k of o into buf; false when it is missing or not one */
static bool
str(const json_t *o, const char *k, char *buf, size_t len, bool null_ok)
{
    const json_t *v = json_is_object(o) ? js.json_object_get(o, k) : NULL;

    if (null_ok && (!v || json_is_null(v))) {
        buf[0] = '\0';
        return true;
    }
    if (!json_is_string(v))
        return false;
    snprintf(buf, len, "%s", js.json_string_value(v));
    return true;
}

static bool
num(const json_t *o, const char *k, int lo, int hi, int *out, bool null_ok)
{
    const json_t *v = json_is_object(o) ? js.json_object_get(o, k) : NULL;

    if (null_ok && (!v || json_is_null(v))) {
        *out = -1;
        return true;
    }
    if (!json_is_integer(v) || js.json_integer_value(v) < lo || js.json_integer_value(v) > hi)
        return false;
    *out = (int)js.json_integer_value(v);
    return true;
}

/* the dimension named dim's last_as_sent into l */
static void
last_as_sent(const json_t *dims, const char *dim, struct ew_probe_located *l)
{
    size_t i, n = json_is_array(dims) ? js.json_array_size(dims) : 0;

    l->last_ttl = -1;
    l->last_addr[0] = '\0';
    for (i = 0; i < n; i++) {
        const json_t *d = js.json_array_get(dims, i), *ls;
        char name[32];

        if (!str(d, "name", name, sizeof(name), false) || strcmp(name, dim))
            continue;
        ls = js.json_object_get(d, "last_as_sent");
        if (json_is_object(ls) && num(ls, "ttl", 0, EW_PROBE_MAX_TTL, &l->last_ttl, false))
            (void)str(ls, "addr", l->last_addr, sizeof(l->last_addr), true);
        return;
    }
}

static int
parse(const json_t *root, struct ew_probe_summary *s, char *why, size_t whylen)
{
    const json_t *tgt, *src, *fs, *dims;
    char schema[32];
    size_t i, n;
    int k;

    if (!str(root, "schema", schema, sizeof(schema), false) || strcmp(schema, "ecnwatch.probe/1")) {
        snprintf(why, whylen, "not a probe report (its schema is not ecnwatch.probe/1)");
        return -1;
    }
    tgt = js.json_object_get(root, "target");
    src = js.json_object_get(root, "source");
    fs = js.json_object_get(root, "findings");
    dims = js.json_object_get(root, "dimensions");
    if (!str(tgt, "name", s->target, sizeof(s->target), false) ||
        !str(tgt, "addr", s->target_addr, sizeof(s->target_addr), false) ||
        !str(src, "addr", s->source, sizeof(s->source), false) ||
        !num(root, "destination_ttl", 1, EW_PROBE_MAX_TTL, &s->dest_ttl, true) ||
        !json_is_array(fs) || !json_is_array(dims)) {
        snprintf(why, whylen, "a member of target, source, destination_ttl, findings or "
                              "dimensions is missing or of another type");
        return -1;
    }
    n = js.json_array_size(fs);
    for (i = 0; i < n; i++) {
        const json_t *f = js.json_array_get(fs, i);
        struct ew_probe_located *l;
        char kind[48];

        if (s->n == EW_PROBE_FINDINGS_MAX) {
            s->more++;
            continue;
        }
        l = &s->f[s->n];
        if (!str(f, "kind", kind, sizeof(kind), false) ||
            !str(f, "dimension", l->dim, sizeof(l->dim), false) ||
            !num(f, "ttl", 1, EW_PROBE_MAX_TTL, &l->ttl, false) ||
            !str(f, "addr", l->addr, sizeof(l->addr), true) ||
            !str(f, "confidence", l->conf, sizeof(l->conf), false) ||
            !str(f, "detail", l->detail, sizeof(l->detail), false)) {
            snprintf(why, whylen, "finding %zu: a member is missing or of another type", i + 1);
            return -1;
        }
        for (k = 0; k < EW_MU_COUNT && strcmp(ew_misuse_name[k], kind); k++)
            ;
        if (k == EW_MU_COUNT) {
            snprintf(why, whylen, "finding %zu: unknown kind '%.40s'", i + 1, kind);
            return -1;
        }
        l->kind = (enum ew_misuse_kind)k;
        last_as_sent(dims, l->dim, l);
        s->found |= 1u << k;
        s->n++;
    }
    return 0;
}

int
ew_probe_read_report(const char *path, struct ew_probe_summary *s, char *err, size_t errlen)
{
    FILE *fp;
    char *buf, why[200];
    size_t len;
    json_t *root;
    json_error_t je;
    int rc;

    memset(s, 0, sizeof(*s));
    s->file = path;
    if (js_load(err, errlen) != 0)
        return -1;
    fp = fopen(path, "rb");
    if (!fp) {
        snprintf(err, errlen, "--probe-report %s: %s", path, strerror(errno));
        return -1;
    }
    buf = malloc(EW_PROBE_REPORT_MAX + 1);
    if (!buf) {
        fclose(fp);
        snprintf(err, errlen, "--probe-report %s: out of memory", path);
        return -1;
    }
    len = fread(buf, 1, EW_PROBE_REPORT_MAX + 1, fp);
    rc = ferror(fp);
    fclose(fp);
    if (rc || len > EW_PROBE_REPORT_MAX) {
        snprintf(err, errlen, "--probe-report %s: %s", path,
                 rc ? "cannot be read" : "larger than a probe report can be");
        free(buf);
        return -1;
    }
    root = js.json_loadb(buf, len, JSON_REJECT_DUPLICATES, &je);
    free(buf);
    if (!root) {
        snprintf(err, errlen, "--probe-report %s: not JSON (line %d: %s)", path, je.line, je.text);
        return -1;
    }
    rc = parse(root, s, why, sizeof(why));
    js.json_delete(root); /* the one reference json_loadb gave */
    if (rc != 0)
        snprintf(err, errlen, "--probe-report %s: %s", path, why);
    return rc;
}
