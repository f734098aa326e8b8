/* jw.c - a streaming JSON writer whose bytes are jansson 2.14's (see jw.h).
 *
 * About 800 lines, over the usual 600, for a reason: it is one contract, the
 * byte-exact layout below, kept by the buffer, the containers, the strings
 * (UTF-8 checks and escapes) and the numbers together; each part's fast path
 * writes into the buffer the others manage.
 *
 * What is copied from jansson 2.14 (src/dump.c, src/strconv.c, src/utf.c):
 *   layout   indent: a member or element starts on a new line indented by
 *            depth * n spaces, "," ends every member but the last, ": " follows
 *            a key, the closing bracket goes on a new line at the container's
 *            depth, an empty container is "{}" or "[]"; compact: "," and ":"
 *            and no whitespace at all
 *   strings  '"' and '\\' escaped, \b \f \n \r \t, other bytes below 0x20 as
 *            \u00XX (upper-case hex), '/' and all else passed through (no
 *            JSON_ESCAPE_SLASH, no JSON_ENSURE_ASCII); json_string() refuses
 *            NULL and what is not UTF-8 (overlong forms, surrogates, above
 *            U+10FFFF, cut sequences)
 *   integers "%lld"
 *   reals    "%.<precision>g"; then ".0" appended when the text has neither
 *            '.' nor 'e' (so -0.0 is "-0.0", 1e+20 stays with its 'e'); then
 *            the exponent loses its '+' and leading zeros ("1e+20" -> "1e20",
 *            "1e-05" -> "1e-5"); text of 24 bytes or more fails the dump;
 *            json_real() refuses NaN and infinities
 */
#include "base/jw.h"

#include <errno.h>
#include <locale.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

int
jw_init(struct jw *w, FILE *out, unsigned indent, int precision)
{
    memset(w, 0, sizeof(*w));
    w->out = out;
    w->indent = indent > 31 ? 31 : indent;
    w->precision = precision < 1 ? 17 : precision > 31 ? 31 : precision;
    w->buf = malloc(JW_BUF);
    if (!w->buf) {
        w->err = ENOMEM;
        return -1;
    }
    return 0;
}

void
jw_init_buf(struct jw *w, FILE *out, unsigned indent, int precision, char *buf)
{
    memset(w, 0, sizeof(*w));
    w->out = out;
    w->indent = indent > 31 ? 31 : indent;
    w->precision = precision < 1 ? 17 : precision > 31 ? 31 : precision;
    w->buf = buf;
    w->borrowed = true;
}

int
jw_init_inside(struct jw *c, const struct jw *w, FILE *out, bool first)
{
    if (jw_init(c, out, w->indent, w->precision) != 0)
        return -1;
    c->depth = w->depth;
    c->ind = w->ind;
    memcpy(c->first, w->first, sizeof(c->first));
    c->first[c->depth] = first;
    return 0;
}

void
jw_members_placed(struct jw *w)
{
    w->first[w->depth] = false;
}

int
jw_error(const struct jw *w)
{
    return w->err;
}

int
jw_flush(struct jw *w)
{
    if (w->err)
        return -1;
    if (w->len) {
        errno = 0;
        if (!w->out || fwrite(w->buf, 1, w->len, w->out) != w->len) {
            w->err = errno ? errno : EIO;
            w->len = 0;
            return -1;
        }
        w->flushed += w->len;
        w->len = 0;
    }
    return 0;
}

int
jw_finish(struct jw *w)
{
    int rc = jw_flush(w);

    if (!w->borrowed)
        free(w->buf);
    w->buf = NULL;
    if (rc != 0 || w->err) {
        errno = w->err ? w->err : EIO;
        return -1;
    }
    return 0;
}

/* room for n more bytes at the end of the buffer (n <= JW_BUF): where they
 * go, or NULL after an error */
static inline char *
reserve(struct jw *w, size_t n)
{
    if (w->err)
        return NULL;
    if (w->len + n > JW_BUF && jw_flush(w) != 0)
        return NULL;
    return w->buf + w->len;
}

static inline void
commit(struct jw *w, char *p)
{
    w->len = (size_t)(p - w->buf);
}

static void
put(struct jw *w, const char *s, size_t n)
{
    char *p;

    if (w->err)
        return;
    if (n > JW_BUF) {
        if (jw_flush(w) != 0)
            return;
        errno = 0;
        if (!w->out || fwrite(s, 1, n, w->out) != n)
            w->err = errno ? errno : EIO;
        else
            w->flushed += n;
        return;
    }
    p = reserve(w, n);
    if (!p)
        return;
    memcpy(p, s, n);
    commit(w, p + n);
}

void
jw_raw(struct jw *w, const char *s, size_t n)
{
    put(w, s, n);
}

/* a new line at the given depth */
static void
newline(struct jw *w, int depth)
{
    size_t n = (size_t)depth * w->indent;
    char *p = reserve(w, n + 1);

    if (!p)
        return;
    *p++ = '\n';
    memset(p, ' ', n);
    commit(w, p + n);
}

/* Where a value of at most vmax bytes goes, after what comes before it: the
 * separator, the new line and the key. NULL after an error. */
/* a key longer than the buffer, piece by piece */
static char *
value_at_slow(struct jw *w, size_t vmax)
{
    if (!w->first[w->depth])
        put(w, ",", 1);
    w->first[w->depth] = false;
    if (w->indent)
        newline(w, w->depth);
    if (w->key) {
        put(w, "\"", 1);
        put(w, w->key, w->keylen);
        put(w, w->indent ? "\": " : "\":", w->indent ? 3 : 2);
    }
    w->key = NULL;
    return reserve(w, vmax);
}

/* Where a value of at most vmax bytes goes, after what comes before it: the
 * separator, the new line and the key. NULL after an error. Once per value:
 * one check for room, fixed-size copies. */
static inline __attribute__((always_inline)) char *
value_at(struct jw *w, size_t vmax)
{
    static const char spaces[64] = "                                                                ";
    size_t klen = w->key ? w->keylen : 0, ind = w->ind, need;
    char *p;

    if (w->depth == 0) {
        w->key = NULL;
        return reserve(w, vmax);
    }
    need = klen + ind + vmax + sizeof(spaces) + 6;
    if (__builtin_expect(need > JW_BUF, 0))
        return value_at_slow(w, vmax);
    if (__builtin_expect(w->len + need > JW_BUF, 0) && jw_flush(w) != 0)
        return NULL;
    p = w->buf + w->len;
    *p = ',';
    p += !w->first[w->depth];
    w->first[w->depth] = false;
    if (ind) {
        *p++ = '\n';
        if (ind <= sizeof(spaces))
            memcpy(p, spaces, sizeof(spaces)); /* one fixed-size copy; ind of it counts */
        else
            memset(p, ' ', ind);
        p += ind;
    }
    if (w->key) {
        *p = '"';
        memcpy(p + 1, w->key, klen);
        p += klen + 1;
        memcpy(p, "\": ", 3); /* the space counts only when indenting */
        p += 2 + (w->indent != 0);
    }
    w->key = NULL;
    return p;
}

static void
begin(struct jw *w, char c)
{
    char *p;

    if (w->err)
        return;
    if (w->depth + 1 >= JW_DEPTH) {
        w->err = EOVERFLOW;
        return;
    }
    p = value_at(w, 1);
    if (!p)
        return;
    *p++ = c;
    commit(w, p);
    w->depth++;
    w->ind = (size_t)w->depth * w->indent;
    w->first[w->depth] = true;
}

static void
end(struct jw *w, char c)
{
    char *p;

    if (w->err || w->depth == 0)
        return;
    w->depth--;
    w->ind = (size_t)w->depth * w->indent;
    if (!w->first[w->depth + 1] && w->indent)
        newline(w, w->depth);
    p = reserve(w, 1);
    if (!p)
        return;
    *p++ = c;
    commit(w, p);
}

void
jw_object_begin(struct jw *w)
{
    begin(w, '{');
}

void
jw_object_end(struct jw *w)
{
    end(w, '}');
}

void
jw_array_begin(struct jw *w)
{
    begin(w, '[');
}

void
jw_array_end(struct jw *w)
{
    end(w, ']');
}

/* jansson's utf8_check_first and utf8_check_full */
static size_t
utf8_len(unsigned char u)
{
    if (u < 0x80)
        return 1;
    if (u < 0xC2)
        return 0; /* continuation byte, or an overlong 0xC0/0xC1 */
    if (u <= 0xDF)
        return 2;
    if (u <= 0xEF)
        return 3;
    if (u <= 0xF4)
        return 4;
    return 0;
}

static bool
utf8_full(const unsigned char *p, size_t n)
{
    int32_t v = n == 2 ? (p[0] & 0x1F) : n == 3 ? (p[0] & 0x0F) : (p[0] & 0x07);
    size_t i;

    for (i = 1; i < n; i++) {
        if (p[i] < 0x80 || p[i] > 0xBF)
            return false;
        v = (v << 6) + (p[i] & 0x3F);
    }
    if (v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF))
        return false;
    if ((n == 2 && v < 0x80) || (n == 3 && v < 0x800) || (n == 4 && v < 0x10000))
        return false;
    return true;
}

bool
jw_utf8_valid(const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t len, i = 0;

    if (!s)
        return false;
    len = strlen(s);
    while (i < len) {
        size_t n;
        uint64_t x;

        /* ASCII, eight bytes at a time */
        for (; i + 8 <= len; i += 8) {
            memcpy(&x, p + i, 8);
            if (x & 0x8080808080808080ULL)
                break;
        }
        while (i < len && p[i] < 0x80)
            i++;
        if (i >= len)
            break;
        n = utf8_len(p[i]);
        if (n == 0 || n > len - i || !utf8_full(p + i, n))
            return false; /* not a lead byte, cut by the end, or not a valid sequence */
        i += n;
    }
    return true;
}

/* which bytes need an escape: '"', '\\' and the control characters */
static inline bool
plain(unsigned char c)
{
    return c >= 0x20 && c != '"' && c != '\\';
}

/* a string with escapes, or longer than the buffer, piece by piece */
static void
string_slow(struct jw *w, const unsigned char *p)
{
    char *v = value_at(w, 1);

    if (!v)
        return;
    *v++ = '"';
    commit(w, v);
    while (*p) {
        const unsigned char *q = p;
        char esc[8];
        const char *e;
        size_t n = 2;

        while (*q && plain(*q))
            q++;
        if (q != p)
            put(w, (const char *)p, (size_t)(q - p));
        if (!*q)
            break;
        switch (*q) {
        case '\\':
            e = "\\\\";
            break;
        case '"':
            e = "\\\"";
            break;
        case '\b':
            e = "\\b";
            break;
        case '\f':
            e = "\\f";
            break;
        case '\n':
            e = "\\n";
            break;
        case '\r':
            e = "\\r";
            break;
        case '\t':
            e = "\\t";
            break;
        default:
            esc[0] = '\\';
            esc[1] = 'u';
            esc[2] = '0';
            esc[3] = '0';
            esc[4] = "0123456789ABCDEF"[*q >> 4];
            esc[5] = "0123456789ABCDEF"[*q & 15];
            e = esc;
            n = 6;
            break;
        }
        put(w, e, n);
        p = q + 1;
    }
    put(w, "\"", 1);
}

/* how many of the n bytes at p, from the start, are printable ASCII other
 * than '"' and '\\' (eight at a time: a byte below 0x20, at or above 0x80,
 * or equal to either stops the run) */
static size_t
plain_ascii_prefix(const unsigned char *p, size_t n)
{
    const uint64_t ones = 0x0101010101010101ULL, highs = 0x8080808080808080ULL;
    size_t i = 0;

    for (; i + 8 <= n; i += 8) {
        uint64_t x, q, b;

        memcpy(&x, p + i, 8);
        q = x ^ (ones * '"');
        b = x ^ (ones * '\\');
        if ((x | ((x - ones * 0x20) & ~x) | ((q - ones) & ~q) | ((b - ones) & ~b)) & highs)
            break;
    }
    while (i < n && p[i] >= 0x20 && p[i] < 0x80 && p[i] != '"' && p[i] != '\\')
        i++;
    return i;
}

void
jw_string(struct jw *w, const char *s)
{
    const unsigned char *p = (const unsigned char *)s, *q;
    char *v;
    size_t n;

    if (w->err)
        return;
    if (!s) {
        w->key = NULL; /* json_string(NULL) gives NULL: no member */
        return;
    }
    /* the common case: printable ASCII without quotes or backslashes */
    q = p + plain_ascii_prefix(p, strlen(s));
    n = (size_t)(q - p);
    if (*q || n > JW_BUF / 2) {
        if (!jw_utf8_valid((const char *)q)) {
            w->key = NULL; /* json_string() refuses it: no member */
            return;
        }
        string_slow(w, p);
        return;
    }
    v = value_at(w, n + 2);
    if (!v)
        return;
    *v++ = '"';
    memcpy(v, p, n);
    v += n;
    *v++ = '"';
    commit(w, v);
}

static const char digit_pairs[201] = "00010203040506070809101112131415161718192021222324"
                                     "25262728293031323334353637383940414243444546474849"
                                     "50515253545556575859606162636465666768697071727374"
                                     "75767778798081828384858687888990919293949596979899";

/* val in decimal, ending at end; returns where it starts */
static inline char *
int_text(char *end, int64_t val)
{
    char *t = end;
    uint64_t u = val < 0 ? (uint64_t)0 - (uint64_t)val : (uint64_t)val;

    while (u >= 100) {
        t -= 2;
        memcpy(t, digit_pairs + 2 * (u % 100), 2);
        u /= 100;
    }
    if (u >= 10) {
        t -= 2;
        memcpy(t, digit_pairs + 2 * u, 2);
    } else {
        *--t = (char)('0' + u);
    }
    if (val < 0)
        *--t = '-';
    return t;
}

void
jw_int(struct jw *w, int64_t val)
{
    char tmp[24], *t, *p;
    size_t n;

    if (w->err)
        return;
    t = int_text(tmp + sizeof(tmp), val);
    n = (size_t)(tmp + sizeof(tmp) - t);
    p = value_at(w, n);
    if (!p)
        return;
    memcpy(p, t, n);
    commit(w, p + n);
}

void
jw_int_object(struct jw *w, const char *const *keys, const int64_t *vals, size_t n)
{
    static const char spaces[64] = "                                                                ";
    size_t inner = w->ind + w->indent, room = 2 + sizeof(spaces), keylen[JW_INT_OBJECT_MAX], i;
    char *p;

    if (w->err)
        return;
    /* the keys are a few letters: counted and copied in line, not by the
     * library's calls */
    for (i = 0; i < n && i < JW_INT_OBJECT_MAX; i++) {
        const char *k = keys[i];
        size_t len = 0;

        while (k[len])
            len++;
        keylen[i] = len;
        room += 2 + sizeof(spaces) + len + 4 + 20;
    }
    if (n > JW_INT_OBJECT_MAX || w->depth + 1 >= JW_DEPTH || w->ind > sizeof(spaces) ||
        inner > sizeof(spaces) || room > JW_BUF / 2) {
        /* the general way */
        jw_object_begin(w);
        for (i = 0; i < n; i++)
            jw_kint(w, keys[i], vals[i]);
        jw_object_end(w);
        return;
    }
    p = value_at(w, room);
    if (!p)
        return;
    *p++ = '{';
    for (i = 0; i < n; i++) {
        char tmp[24], *t = int_text(tmp + sizeof(tmp), vals[i]);
        const char *k = keys[i];
        size_t j;

        if (i)
            *p++ = ',';
        if (w->indent) {
            *p++ = '\n';
            memcpy(p, spaces, sizeof(spaces)); /* one fixed-size copy; inner of it counts */
            p += inner;
        }
        *p++ = '"';
        for (j = 0; j < keylen[i]; j++)
            *p++ = k[j];
        *p++ = '"';
        *p++ = ':';
        if (w->indent)
            *p++ = ' ';
        while (t < tmp + sizeof(tmp))
            *p++ = *t++;
    }
    if (n && w->indent) {
        *p++ = '\n';
        memcpy(p, spaces, sizeof(spaces));
        p += w->ind;
    }
    *p++ = '}';
    commit(w, p);
}

/* The report's reals are mostly n / 1000.0 for an integer n (milliseconds
 * from nanoseconds, values rounded to three decimals). When v is exactly that
 * double and |n| < 10^9, "%.Pg" with P >= 10 prints n / 1000 in plain
 * decimals with its trailing zeros cut: v is within half an ulp of the
 * decimal n / 1000, which has at most 9 significant digits, far less than
 * half a unit of the 10th digit away; and 0.001 <= |v| < 10^6 never takes
 * the exponent form. -0.0 and everything else goes to snprintf. */
static int
fast_real(char *buf, double v)
{
    int64_t n;
    uint64_t u, ip, fp;
    char *p = buf;
    char tmp[24], *t;

    if (!(v > -1e6 && v < 1e6))
        return -1;
    n = (int64_t)(v * 1000.0 + (v >= 0 ? 0.5 : -0.5));
    if ((double)n / 1000.0 != v || (n == 0 && signbit(v)))
        return -1;
    if (n < 0)
        *p++ = '-';
    u = n < 0 ? (uint64_t)(-n) : (uint64_t)n;
    ip = u / 1000;
    fp = u % 1000;
    t = tmp + sizeof(tmp);
    do {
        *--t = (char)('0' + ip % 10);
        ip /= 10;
    } while (ip);
    memcpy(p, t, (size_t)(tmp + sizeof(tmp) - t));
    p += tmp + sizeof(tmp) - t;
    *p++ = '.';
    if (fp == 0) {
        *p++ = '0'; /* "%g" gives "5", jansson makes it "5.0" */
    } else {
        *p++ = (char)('0' + fp / 100);
        if (fp % 100) {
            *p++ = (char)('0' + fp / 10 % 10);
            if (fp % 10)
                *p++ = (char)('0' + fp % 10);
        }
    }
    *p = '\0';
    return (int)(p - buf);
}

int
jw_format_real(char buf[32], double v, int precision)
{
    char *e, *start, *end;
    size_t length;
    int ret;

    if (isnan(v) || isinf(v))
        return -1;
    if (precision >= 10 && (ret = fast_real(buf, v)) >= 0)
        return ret;
    ret = snprintf(buf, 32, "%.*g", precision, v);
    if (ret < 0 || ret >= 24)
        return -1; /* jansson's buffer holds 24 bytes: the dump fails */
    length = (size_t)ret;
    {
        /* jansson's from_locale: the locale's decimal point becomes '.' */
        const char *dp = localeconv()->decimal_point;

        if (dp && dp[0] && dp[0] != '.' && (e = strchr(buf, dp[0])) != NULL)
            *e = '.';
    }
    if (!strchr(buf, '.') && !strchr(buf, 'e')) {
        if (length + 3 >= 24)
            return -1;
        buf[length++] = '.';
        buf[length++] = '0';
        buf[length] = '\0';
    }
    start = strchr(buf, 'e');
    if (start) {
        start++;
        end = start + 1;
        if (*start == '-')
            start++;
        while (*end == '0')
            end++;
        if (end != start) {
            memmove(start, end, length - (size_t)(end - buf) + 1);
            length -= (size_t)(end - start);
        }
    }
    return (int)length;
}

void
jw_real(struct jw *w, double v)
{
    char buf[32], *p;
    int n;

    if (w->err)
        return;
    if (isnan(v) || isinf(v)) {
        w->key = NULL; /* json_real() gives NULL: no member */
        return;
    }
    n = jw_format_real(buf, v, w->precision);
    if (n < 0) {
        w->err = EINVAL;
        return;
    }
    p = value_at(w, (size_t)n);
    if (!p)
        return;
    memcpy(p, buf, (size_t)n);
    commit(w, p + n);
}

static void
word(struct jw *w, const char *s, size_t n)
{
    char *p;

    if (w->err)
        return;
    p = value_at(w, n);
    if (!p)
        return;
    memcpy(p, s, n);
    commit(w, p + n);
}

void
jw_bool(struct jw *w, bool v)
{
    if (v)
        word(w, "true", 4);
    else
        word(w, "false", 5);
}

void
jw_null(struct jw *w)
{
    word(w, "null", 4);
}
