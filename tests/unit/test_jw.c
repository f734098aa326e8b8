/* test_jw.c - the streaming JSON writer against jansson's own dump, in both
 * layouts the report uses (JSON_INDENT(2) and JSON_COMPACT, with
 * JSON_REAL_PRECISION(10)): escapes, UTF-8, integers, reals, empty and
 * nested containers, the members jansson leaves out (NaN, strings that are
 * not UTF-8, NULL), random trees, and write errors. */
#include <CUnit/CUnit.h>
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/jw.h"
#include "suites.h"

#define LAYOUTS 2
static const unsigned layout_indent[LAYOUTS] = {2, 0};
static const size_t layout_flags[LAYOUTS] = {JSON_INDENT(2), JSON_COMPACT};

/* what jansson makes of v */
static char *
jansson_text(const json_t *v, int layout)
{
    return json_dumps(v, layout_flags[layout] | JSON_REAL_PRECISION(10) | JSON_ENCODE_ANY);
}

/* the writer's calls for a jansson value, as the report makes them */
static void
walk(struct jw *w, const json_t *v)
{
    const char *k;
    json_t *x;
    size_t i;

    switch (json_typeof(v)) {
    case JSON_OBJECT:
        jw_object_begin(w);
        json_object_foreach((json_t *)(uintptr_t)v, k, x) {
            jw_key(w, k);
            walk(w, x);
        }
        jw_object_end(w);
        break;
    case JSON_ARRAY:
        jw_array_begin(w);
        json_array_foreach(v, i, x)
            walk(w, x);
        jw_array_end(w);
        break;
    case JSON_STRING:
        jw_string(w, json_string_value(v));
        break;
    case JSON_INTEGER:
        jw_int(w, json_integer_value(v));
        break;
    case JSON_REAL:
        jw_real(w, json_real_value(v));
        break;
    case JSON_TRUE:
        jw_bool(w, true);
        break;
    case JSON_FALSE:
        jw_bool(w, false);
        break;
    case JSON_NULL:
        jw_null(w);
        break;
    }
}

struct mem {
    char *text;
    size_t len;
    FILE *fp;
    struct jw w;
};

static void
mem_open(struct mem *m, int layout)
{
    m->text = NULL;
    m->len = 0;
    m->fp = open_memstream(&m->text, &m->len);
    CU_ASSERT_FATAL(m->fp != NULL);
    CU_ASSERT_FATAL(jw_init(&m->w, m->fp, layout_indent[layout], 10) == 0);
}

/* the writer's text (to be freed) */
static char *
mem_close(struct mem *m)
{
    CU_ASSERT(jw_finish(&m->w) == 0);
    CU_ASSERT_FATAL(fclose(m->fp) == 0);
    return m->text;
}

/* close the writer: its text equals jansson's dump of v in layout l */
static void
mem_close_same(struct mem *m, const json_t *v, int l)
{
    char *want = jansson_text(v, l), *got = mem_close(m);

    CU_ASSERT_FATAL(want != NULL);
    CU_ASSERT_STRING_EQUAL(got, want);
    if (strcmp(got, want) != 0)
        fprintf(stderr, "\nlayout %d\n got: %s\nwant: %s\n", l, got, want);
    free(got);
    free(want);
}

/* v written by walking it equals jansson's dump, in both layouts */
static void
check_same(const json_t *v)
{
    int l;

    for (l = 0; l < LAYOUTS; l++) {
        struct mem m;

        mem_open(&m, l);
        walk(&m.w, v);
        mem_close_same(&m, v, l);
    }
}

static void
test_strings(void)
{
    static const char *const s[] = {
        "", "plain", "quote \" and back\\slash", "\b\f\n\r\t", "slash / stays", "\x7f del",
        "caf\xc3\xa9 \xe2\x82\xac \xf0\x9d\x84\x9e", /* 2, 3 and 4 byte UTF-8 */
        "\xef\xbf\xbf \xf4\x8f\xbf\xbf",             /* U+FFFF, U+10FFFF */
        "end\\", "\"", "a\x1fz",
    };
    json_t *o = json_object(), *a = json_array();
    char ctl[64];
    size_t i;

    for (i = 0; i < sizeof(s) / sizeof(s[0]); i++) {
        char k[16];

        snprintf(k, sizeof(k), "s%zu", i);
        json_object_set_new(o, k, json_string(s[i]));
        json_array_append_new(a, json_string(s[i]));
    }
    for (i = 1; i < 32; i++)
        ctl[i - 1] = (char)i;
    ctl[31] = '\0';
    json_object_set_new(o, "controls", json_string(ctl));
    json_object_set_new(o, "array", a);
    {
        /* longer than the writer's buffer: plain, and with escapes */
        size_t n = 3 * JW_BUF / 2;
        char *big = malloc(n + 1);

        CU_ASSERT_FATAL(big != NULL);
        memset(big, 'x', n);
        big[n] = '\0';
        json_object_set_new(o, "big", json_string(big));
        big[n / 2] = '\n';
        big[n - 1] = '"';
        json_object_set_new(o, "big_escaped", json_string(big));
        big[n / 2] = big[n - 1] = 'y'; /* keys are written as they are */
        json_object_set_new(o, big, json_string("a key longer than the buffer"));
        free(big);
    }
    check_same(o);
    check_same(json_object_get(o, "controls"));
    json_decref(o);

    /* each kind of byte at each place of a string, across the 8-byte steps */
    {
        static const char *const ins[] = {"\x01", "\x1f", " ", "\"", "\\", "\x7f", "\xc3\xa9",
                                          "\xe2\x82\xac", "\xc3", "~", "\x20\x21"};
        json_t *arr = json_array();
        size_t pos, k;

        for (pos = 0; pos < 20; pos++) {
            for (k = 0; k < sizeof(ins) / sizeof(ins[0]); k++) {
                char str[64];

                memset(str, 'a', pos);
                strcpy(str + pos, ins[k]);
                strcat(str, "bcdefghijklmnopq");
                str[pos + strlen(ins[k]) + (pos % 17)] = '\0';
                json_array_append_new(arr, json_string(str)); /* NULL for "\xc3" alone: left out */
            }
        }
        check_same(arr);
        json_decref(arr);
    }
}

static void
test_numbers(void)
{
    static const int64_t ints[] = {0,  1,   -1,    9,     10,  -10, 99, 100, -100, 101, 999, 1000,
                                   12345, 1234567890123LL, INT64_MAX, INT64_MIN, INT64_MIN + 1};
    static const double reals[] = {
        0.0, -0.0, 1.0, -1.0, 0.5, -1.5, 0.1, 0.001, 0.0001, 0.00001, 1e-5, 1.5e-7, 1e-300,
        5e-324, 2.2250738585072014e-308, 1e300, 1.7976931348623157e308, -1.7976931348623157e308,
        123456789.0, 999999.999, 1000000.0, 1234567890.0, 12345678901.0, 1e10, 1e15, 1e16, 1e17,
        1e20, 1e21, 1e22, 3.14159265358979, 2.0 / 3.0, 100.0, 9999999999.0, 0.12345678905,
        1.25e-3, -0.001, -999.999, 4503599627370496.0, 9007199254740993.0,
    };
    json_t *o = json_object(), *a = json_array();
    size_t i;

    for (i = 0; i < sizeof(ints) / sizeof(ints[0]); i++)
        json_array_append_new(a, json_integer(ints[i]));
    for (i = 0; i < sizeof(reals) / sizeof(reals[0]); i++) {
        char k[16];

        snprintf(k, sizeof(k), "r%zu", i);
        json_object_set_new(o, k, json_real(reals[i]));
        json_array_append_new(a, json_real(reals[i]));
    }
    json_object_set_new(o, "all", a);
    check_same(o);
    json_decref(o);
}

/* jw_format_real against jansson on the report's kind of reals (n / 1000.0,
 * the writer's fast path) and on arbitrary doubles */
static void
test_reals_many(void)
{
    uint64_t x = 0x9e3779b97f4a7c15ULL;
    long n;
    int i, bad = 0;

    for (i = 0; i < 60000 && bad < 5; i++) {
        double v;
        char buf[32];
        json_t *j;
        char *want;
        int len;

        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        if (i < 20000)
            n = i - 10000; /* -10.000 .. 9.999 */
        else if (i < 40000)
            n = (long)(x % 2000000000ULL) - 1000000000L; /* up to +-10^6 */
        else
            n = 0;
        if (i < 40000)
            v = (double)n / 1000.0;
        else if (i < 50000)
            memcpy(&v, &x, sizeof(v)); /* any bit pattern */
        else
            v = (double)(int64_t)(x >> 11) / (double)(1ULL << (x & 63)); /* any scale */
        if (isnan(v) || isinf(v))
            continue;
        len = jw_format_real(buf, v, 10);
        j = json_real(v);
        want = json_dumps(j, JSON_ENCODE_ANY | JSON_REAL_PRECISION(10));
        CU_ASSERT_FATAL(want != NULL);
        if (len < 0 || strcmp(buf, want) != 0 || (size_t)len != strlen(want)) {
            fprintf(stderr, "\n%.17g: got %s want %s\n", v, len < 0 ? "(error)" : buf, want);
            bad++;
        }
        free(want);
        json_decref(j);
    }
    CU_ASSERT_EQUAL(bad, 0);
}

static void
test_containers(void)
{
    json_t *o = json_object(), *a = json_array(), *deep = json_array(), *cur = deep;
    int i;

    json_object_set_new(o, "empty_object", json_object());
    json_object_set_new(o, "empty_array", json_array());
    json_array_append_new(a, json_object());
    json_array_append_new(a, json_array());
    json_array_append_new(a, json_true());
    json_array_append_new(a, json_false());
    json_array_append_new(a, json_null());
    json_array_append_new(a, json_pack("{s:[i,i],s:{s:{}}}", "x", 1, 2, "y", "z"));
    json_object_set_new(o, "mixed", a);
    for (i = 0; i < 20; i++) {
        json_t *n = json_array();

        json_array_append_new(cur, json_integer(i));
        json_array_append(cur, n);
        json_decref(n);
        cur = n;
    }
    json_object_set_new(o, "deep", deep);
    json_object_set_new(o, "true", json_true());
    json_object_set_new(o, "", json_string("the empty key"));
    json_object_set_new(o, "null", json_null());
    check_same(o);
    check_same(json_object_get(o, "empty_object"));
    check_same(json_object_get(o, "empty_array"));
    check_same(json_object_get(o, "null"));
    json_decref(o);
}

/* what jansson leaves out: json_real(NaN), json_string(NULL or not UTF-8),
 * a NULL value, as members and as elements */
static void
test_left_out(void)
{
    static const char *const bad[] = {
        "\xc0\x80",         /* overlong NUL */
        "\xc1\xbf",         /* overlong */
        "\xe0\x80\xaf",     /* overlong '/' */
        "\xed\xa0\x80",     /* a surrogate */
        "\xf4\x90\x80\x80", /* above U+10FFFF */
        "\xf5\x80\x80\x80", "\xe2\x82",     /* cut */
        "x\x80",            /* a lone continuation byte */
        "\xff",
    };
    int l;

    for (l = 0; l < LAYOUTS; l++) {
        json_t *o = json_object(), *a = json_array();
        struct mem m;
        size_t i;

        mem_open(&m, l);
        jw_object_begin(&m.w);
        jw_kint(&m.w, "before", 1);
        json_object_set_new(o, "before", json_integer(1));
        jw_kreal(&m.w, "nan", NAN);
        json_object_set_new(o, "nan", json_real(NAN));
        jw_kreal(&m.w, "inf", INFINITY);
        json_object_set_new(o, "inf", json_real(INFINITY));
        jw_kreal(&m.w, "-inf", -INFINITY);
        json_object_set_new(o, "-inf", json_real(-INFINITY));
        jw_kstring(&m.w, "null_string", NULL);
        json_object_set_new(o, "null_string", json_string(NULL));
        for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
            CU_ASSERT(!jw_utf8_valid(bad[i]));
            jw_kstring(&m.w, "bad", bad[i]);
            json_object_set_new(o, "bad", json_string(bad[i]));
        }
        jw_key(&m.w, "array");
        jw_array_begin(&m.w);
        jw_real(&m.w, NAN);
        json_array_append_new(a, json_real(NAN));
        jw_string(&m.w, bad[0]);
        json_array_append_new(a, json_string(bad[0]));
        jw_int(&m.w, 2);
        json_array_append_new(a, json_integer(2));
        jw_real(&m.w, INFINITY);
        json_array_append_new(a, json_real(INFINITY));
        jw_array_end(&m.w);
        json_object_set_new(o, "array", a);
        jw_kint(&m.w, "after", 3);
        json_object_set_new(o, "after", json_integer(3));
        jw_object_end(&m.w);
        mem_close_same(&m, o, l);
        json_decref(o);
    }
}

/* random trees of every kind of value, larger than the writer's buffer */
static uint64_t rng = 88172645463325252ULL;

static uint64_t
next(void)
{
    return ew_test_next(&rng);
}

static json_t *
random_value(int depth)
{
    static const char *const words[] = {"", "a", "ce_share", "tab\there", "quo\"te", "\xc3\xa9t\xc3\xa9",
                                        "new\nline", "\x01\x1f", "back\\"};
    unsigned kind = (unsigned)(next() % (depth < 5 ? 9 : 6));
    json_t *v;
    int i, n;

    switch (kind) {
    case 0:
        return json_integer((json_int_t)next() >> (next() % 64));
    case 1:
        return json_real((double)(int64_t)(next() % 2000000) / 1000.0 - 1000.0);
    case 2: {
        double d;
        uint64_t b = next();

        memcpy(&d, &b, sizeof(d));
        return isfinite(d) ? json_real(d) : json_real(1.0 / (double)(b % 1000 + 1));
    }
    case 3:
        return json_string(words[next() % (sizeof(words) / sizeof(words[0]))]);
    case 4:
        return next() % 2 ? json_true() : json_false();
    case 5:
        return json_null();
    case 6:
    case 7:
        v = json_object();
        n = (int)(next() % 6);
        for (i = 0; i < n; i++) {
            char k[16];

            snprintf(k, sizeof(k), "k%d", i);
            json_object_set_new(v, k, random_value(depth + 1));
        }
        return v;
    default:
        v = json_array();
        n = (int)(next() % 6);
        for (i = 0; i < n; i++)
            json_array_append_new(v, random_value(depth + 1));
        return v;
    }
}

static void
test_random_trees(void)
{
    json_t *big = json_array();
    int i;

    for (i = 0; i < 200; i++) {
        json_t *v = random_value(0);

        check_same(v);
        json_array_append_new(big, v);
    }
    check_same(big); /* well above 64 KiB indented */
    json_decref(big);
}

/* a failed write sticks, and jw_finish says why */
static void
test_errors(void)
{
    FILE *full = fopen("/dev/full", "w");
    struct jw w;
    int i;

    if (!full)
        return; /* no /dev/full here */
    setvbuf(full, NULL, _IONBF, 0);
    CU_ASSERT_FATAL(jw_init(&w, full, 2, 10) == 0);
    jw_array_begin(&w);
    for (i = 0; i < 20000; i++)
        jw_string(&w, "more than the buffer holds");
    jw_array_end(&w);
    CU_ASSERT(jw_error(&w) == ENOSPC);
    errno = 0;
    CU_ASSERT(jw_finish(&w) == -1);
    CU_ASSERT(errno == ENOSPC);
    fclose(full);

    /* small output fails at the end */
    full = fopen("/dev/full", "w");
    CU_ASSERT_FATAL(full != NULL);
    setvbuf(full, NULL, _IONBF, 0);
    CU_ASSERT_FATAL(jw_init(&w, full, 0, 10) == 0);
    jw_object_begin(&w);
    jw_kint(&w, "a", 1);
    jw_object_end(&w);
    CU_ASSERT(jw_error(&w) == 0);
    CU_ASSERT(jw_finish(&w) == -1);
    fclose(full);
}

/* members written by writers started inside the open container, placed in
 * turn: the same bytes as one writer (jansson's), in both layouts, whether
 * the first member is the outer writer's or a child's */
static void
test_inside(void)
{
    json_t *root = json_object(), *arr = json_array();
    int l, i, split;

    for (i = 0; i < 7; i++)
        json_array_append_new(arr, json_pack("{s:i, s:[s, {s:b}], s:{}}", "id", i, "list", "x",
                                             "deep", i % 2, "none"));
    json_object_set_new(root, "before", json_integer(1));
    json_object_set_new(root, "flows", arr);
    json_object_set_new(root, "after", json_string("end"));
    for (l = 0; l < LAYOUTS; l++) {
        for (split = 0; split < 3; split++) {
            struct mem m;

            mem_open(&m, l);
            jw_object_begin(&m.w);
            jw_key(&m.w, "before");
            jw_int(&m.w, 1);
            jw_key(&m.w, "flows");
            jw_array_begin(&m.w);
            /* members [0, split) by the writer itself, then three children
             * of two members each, the last one short */
            for (i = 0; i < split; i++)
                walk(&m.w, json_array_get(arr, (size_t)i));
            for (i = split; i < 7;) {
                struct mem c;
                int k;

                c.text = NULL;
                c.len = 0;
                c.fp = open_memstream(&c.text, &c.len);
                CU_ASSERT_FATAL(c.fp != NULL);
                CU_ASSERT_FATAL(jw_init_inside(&c.w, &m.w, c.fp, i == 0) == 0);
                for (k = 0; k < 2 && i < 7; k++, i++)
                    walk(&c.w, json_array_get(arr, (size_t)i));
                mem_close(&c);
                jw_raw(&m.w, c.text, c.len);
                jw_members_placed(&m.w);
                free(c.text);
            }
            jw_array_end(&m.w);
            jw_key(&m.w, "after");
            jw_string(&m.w, "end");
            jw_object_end(&m.w);
            mem_close_same(&m, root, l);
        }
    }
    json_decref(root);
}

/* jw_int_object() against jansson: nested at several depths, in both
 * layouts, with 0 to 17 members (17: the general way) and extreme values */
static void
test_int_object(void)
{
    static const char *const keys[17] = {"a", "not_ect", "ect0", "ect1", "ce", "b", "c", "d",
                                         "e", "f", "g", "h", "i", "j", "k", "l", "m"};
    int64_t vals[17];
    int l, n, depth, i;

    srand(11);
    for (l = 0; l < LAYOUTS; l++) {
        for (depth = 0; depth < 4; depth++) {
            for (n = 0; n <= 17; n++) {
                json_t *root = json_object(), *at = root, *obj = json_object();
                struct mem m;

                for (i = 0; i < n; i++) {
                    vals[i] = i == 0 ? INT64_MIN : i == 1 ? INT64_MAX : i == 2 ? 0 :
                              (int64_t)rand() * (rand() % 2 ? -1 : 1) * (i % 4 ? 1 : 99991);
                    json_object_set_new(obj, keys[i], json_integer(vals[i]));
                }
                for (i = 0; i < depth; i++) {
                    json_t *inner = json_object();

                    json_object_set_new(at, "x", json_integer(i));
                    json_object_set_new(at, "in", inner);
                    at = inner;
                }
                json_object_set_new(at, "before", json_true());
                json_object_set_new(at, "counts", obj);
                json_object_set_new(at, "after", json_integer(7));

                mem_open(&m, l);
                jw_object_begin(&m.w);
                for (i = 0; i < depth; i++) {
                    jw_kint(&m.w, "x", i);
                    jw_key(&m.w, "in");
                    jw_object_begin(&m.w);
                }
                jw_kbool(&m.w, "before", true);
                jw_key(&m.w, "counts");
                jw_int_object(&m.w, keys, vals, (size_t)n);
                jw_kint(&m.w, "after", 7);
                for (i = 0; i < depth; i++)
                    jw_object_end(&m.w);
                jw_object_end(&m.w);
                mem_close_same(&m, root, l);
                json_decref(root);
            }
        }
    }
}

int
ew_test_register_jw(void)
{
    CU_pSuite s = CU_add_suite("jw", NULL, NULL);

    if (!s)
        return -1;
    if (!CU_add_test(s, "strings and escapes", test_strings) ||
        !CU_add_test(s, "integers and reals", test_numbers) ||
        !CU_add_test(s, "reals against jansson, many", test_reals_many) ||
        !CU_add_test(s, "empty and nested containers", test_containers) ||
        !CU_add_test(s, "members jansson leaves out", test_left_out) ||
        !CU_add_test(s, "random trees", test_random_trees) ||
        !CU_add_test(s, "members written apart and placed", test_inside) ||
        !CU_add_test(s, "integer objects in one go", test_int_object) ||
        !CU_add_test(s, "write errors", test_errors))
        return -1;
    return 0;
}
