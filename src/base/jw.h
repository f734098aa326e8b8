/* jw.h - a streaming JSON writer whose bytes are jansson 2.14's.
 *
 * The report used to be built as a jansson tree, dumped and freed, flow by
 * flow; that cost far more than the analysis of the flow's packets. This
 * writer puts the same bytes straight into a buffer that is written to a FILE
 * when full, in one of the two layouts the report uses. It writes all of
 * ecnwatch's JSON: the report, the event stream and the QUIC and time-series
 * parts; jansson is no longer linked, its layout is kept:
 *   indent n  json_dumpf(..., JSON_INDENT(n) | JSON_REAL_PRECISION(p))
 *   compact   json_dumpf(..., JSON_COMPACT | JSON_REAL_PRECISION(p))
 * Members keep the order they are written in, as jansson keeps insertion order.
 *
 * A key is held until its value comes, so that a value jansson would not make
 * (json_real() of NaN or an infinity, json_string() of NULL or of bytes that
 * are not UTF-8) leaves the member out, key and all, as
 * json_object_set_new() with a NULL value does, and leaves an array element
 * out as json_array_append_new() does.
 *
 * Errors stick: after the first failed write every call does nothing, and
 * jw_error() / jw_finish() say so (with errno's value). */
#ifndef ECNWATCH_JW_H
#define ECNWATCH_JW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define JW_BUF 65536
#define JW_DEPTH 64

struct jw {
    FILE *out;
    char *buf;         /* JW_BUF bytes */
    size_t len;        /* bytes waiting in buf */
    unsigned indent;   /* spaces per level; 0: compact */
    int precision;     /* significant digits of reals, as JSON_REAL_PRECISION */
    int depth;         /* containers open */
    size_t ind;        /* depth * indent: spaces before a member */
    bool first[JW_DEPTH]; /* no member yet in the container at this depth */
    const char *key;   /* a key waiting for its value, or NULL */
    size_t keylen;
    int err;           /* errno of the first failure, 0 */
    uint64_t flushed;  /* bytes handed to out so far */
    bool borrowed;     /* buf is the caller's */
};

/* Write to out (not closed by the writer). indent: spaces per level (1..31),
 * 0 for the compact layout; precision: 1..31 significant digits of reals.
 * 0 on success, -1 when the buffer cannot be allocated. */
int jw_init(struct jw *w, FILE *out, unsigned indent, int precision);
/* The same with the caller's buffer of JW_BUF bytes (never fails). */
void jw_init_buf(struct jw *w, FILE *out, unsigned indent, int precision, char *buf);
/* A writer that goes on inside w's open container (an array or object),
 * writing to out: members written with it are the bytes w would write in
 * their place, after other members (first false) or as the container's
 * first (first true). They are put in place with jw_raw(w, ...), and then
 * jw_members_placed(w). 0, or -1 when the buffer cannot be allocated. */
int jw_init_inside(struct jw *c, const struct jw *w, FILE *out, bool first);
void jw_members_placed(struct jw *w);
/* Write what is buffered to the FILE (not fflush): 0, or -1 on error. */
int jw_flush(struct jw *w);
/* jw_flush, then release the buffer: 0 when every write succeeded, else -1
 * with errno set to the first failure's. */
int jw_finish(struct jw *w);
/* the first failure's errno, 0 while none */
int jw_error(const struct jw *w);

/* A member's key inside an object (the value's call follows). The string must
 * live until the value is written; keys are not escaped, so they must not
 * need it (the report's keys are fixed ASCII names). */
static inline void
jw_key(struct jw *w, const char *key)
{
    w->key = key;
    w->keylen = key ? __builtin_strlen(key) : 0; /* a constant for a literal key */
}

void jw_object_begin(struct jw *w);
void jw_object_end(struct jw *w);
void jw_array_begin(struct jw *w);
void jw_array_end(struct jw *w);

/* json_string(s): s NULL or not UTF-8 leaves the member or element out */
void jw_string(struct jw *w, const char *s);
/* json_integer(v) */
void jw_int(struct jw *w, int64_t v);
/* json_real(v): NaN or an infinity leaves the member or element out */
void jw_real(struct jw *w, double v);
void jw_bool(struct jw *w, bool v);
void jw_null(struct jw *w);

/* Shorthands: key and value. */
static inline void jw_kstring(struct jw *w, const char *k, const char *s) { jw_key(w, k); jw_string(w, s); }
static inline void jw_kint(struct jw *w, const char *k, int64_t v) { jw_key(w, k); jw_int(w, v); }
/* An object of n (<= JW_INT_OBJECT_MAX) integer members at w's place, in one
 * go: the bytes of jw_object_begin(), jw_kint() for each and jw_object_end(). */
#define JW_INT_OBJECT_MAX 16
void jw_int_object(struct jw *w, const char *const *keys, const int64_t *vals, size_t n);
static inline void jw_kreal(struct jw *w, const char *k, double v) { jw_key(w, k); jw_real(w, v); }
static inline void jw_kbool(struct jw *w, const char *k, bool v) { jw_key(w, k); jw_bool(w, v); }
static inline void jw_knull(struct jw *w, const char *k) { jw_key(w, k); jw_null(w); }
/* a count as a JSON integer, clamped to what an int64_t holds */
static inline void
jw_kcount(struct jw *w, const char *k, uint64_t v)
{
    jw_kint(w, k, (int64_t)(v > (uint64_t)INT64_MAX ? (uint64_t)INT64_MAX : v));
}
/* A member whose value may be unknown: null when `has` is false (or, for a
 * string, when s is NULL). */
static inline void
jw_kint_if(struct jw *w, const char *k, bool has, int64_t v)
{
    jw_key(w, k);
    if (has)
        jw_int(w, v);
    else
        jw_null(w);
}
static inline void
jw_kreal_if(struct jw *w, const char *k, bool has, double v)
{
    jw_key(w, k);
    if (has)
        jw_real(w, v);
    else
        jw_null(w);
}
static inline void
jw_kstring_or_null(struct jw *w, const char *k, const char *s)
{
    jw_key(w, k);
    if (s)
        jw_string(w, s);
    else
        jw_null(w);
}

/* Append raw bytes (a newline after a document, say). */
void jw_raw(struct jw *w, const char *s, size_t n);

/* true when s is a string json_string() accepts (UTF-8 as jansson checks it) */
bool jw_utf8_valid(const char *s);
/* v formatted as jansson formats a real with the given precision: the text
 * and its length (at most 31 bytes), or -1 for NaN and infinities */
int jw_format_real(char buf[32], double v, int precision);

#endif /* ECNWATCH_JW_H */
