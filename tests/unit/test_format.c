/* test_format.c - ew_vformat() gives vsnprintf's bytes, truncation included;
 * ew_time_str() and ew_addr_str() give theirs */
#include <CUnit/CUnit.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/format.h"
#include "suites.h"

static int mismatches;

static void check(size_t size, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void
check(size_t size, const char *fmt, ...)
{
    char a[600], b[600];
    va_list ap, aq;

    memset(a, 'x', sizeof(a));
    memset(b, 'x', sizeof(b));
    va_start(ap, fmt);
    va_copy(aq, ap);
    ew_vformat(a, size, fmt, ap);
    vsnprintf(b, size, fmt, aq);
    va_end(aq);
    va_end(ap);
    if (memcmp(a, b, sizeof(a)) != 0 && mismatches++ < 5)
        fprintf(stderr, "ew_vformat(%zu, \"%s\"): \"%.*s\" against \"%.*s\"\n", size, fmt,
                (int)size, a, (int)size, b);
}

static void
test_fixed(void)
{
    size_t s;

    mismatches = 0;
    for (s = 1; s < 90; s++) {
        check(s, "plain text, no conversion at all");
        check(s, "%s and %u and %llu%%, then %s.", "alpha", 0u, 18446744073709551615ull, "omega");
        check(s, "%u%u%u", 4294967295u, 10u, 7u);
        check(s, "%%%s%%", "");
        check(s, "%s", "");
        check(s, "%llu", 0ull);
        /* other conversions: the C library's */
        check(s, "x %.1f ms, %.3f, %s", 2.25, 1.0 / 3.0, "z");
        check(s, "%d and %x", -5, 255u);
    }
    CU_ASSERT(mismatches == 0);
}

static void
test_random(void)
{
    static const char *const words[] = {"", "a", "ECT(1)", "no complete handshake and no "
                                        "exact feedback on either direction of the flow",
                                        "%", "ACE"};
    unsigned i;

    mismatches = 0;
    srand(7);
    for (i = 0; i < 20000; i++) {
        unsigned u = (unsigned)rand() * 2654435761u;
        unsigned long long v = ((unsigned long long)rand() << 33) ^ (unsigned long long)rand();
        const char *w = words[rand() % 6];
        size_t size = 1 + (size_t)(rand() % 260);

        if (rand() % 2)
            check(size, "[%s|%u|%llu] the reason goes on a while, as reasons do: %s, %u", w, u,
                  v, w, u);
        else
            check(size, "%llu%%%u of %s ", v, u, w);
    }
    CU_ASSERT(mismatches == 0);
}

/* a packet time: 2023-11-14T22:13:20.123456789Z */
#define T0 (1700000000LL * 1000000000LL + 123456789LL)

/* ew_time_str: RFC 3339 UTC with microseconds (truncated), from
 * packet time; before the epoch, the second before; years past 9999; a short
 * buffer gets a terminated prefix */
static void
test_time_str(void)
{
    static const struct {
        int64_t ns;
        const char *want;
    } rows[] = {
        {0, "1970-01-01T00:00:00.000000Z"},
        {999, "1970-01-01T00:00:00.000000Z"},
        {1000, "1970-01-01T00:00:00.000001Z"},
        {1999, "1970-01-01T00:00:00.000001Z"},
        {999999999, "1970-01-01T00:00:00.999999Z"},
        {1000000000, "1970-01-01T00:00:01.000000Z"},
        {-1000, "1969-12-31T23:59:59.999999Z"},
        {-1000000000, "1969-12-31T23:59:59.000000Z"},
        {-1500000000, "1969-12-31T23:59:58.500000Z"},
        {T0, "2023-11-14T22:13:20.123456Z"},
        {951782400LL * 1000000000LL, "2000-02-29T00:00:00.000000Z"},
        {4102444799LL * 1000000000LL + 999999000, "2099-12-31T23:59:59.999999Z"},
        {INT64_MAX, "2262-04-11T23:47:16.854775Z"},
        {INT64_MIN, "1677-09-21T00:12:43.145225Z"},
    };
    char buf[64], small[11];
    size_t i;

    for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
        memset(buf, 'x', sizeof(buf));
        ew_time_str(rows[i].ns, buf, sizeof(buf));
        if (strcmp(buf, rows[i].want))
            fprintf(stderr, "%lld ns: %s, not %s\n", (long long)rows[i].ns, buf, rows[i].want);
        CU_ASSERT_STRING_EQUAL(buf, rows[i].want);
        /* exactly the room it needs */
        memset(buf, 'x', sizeof(buf));
        ew_time_str(rows[i].ns, buf, strlen(rows[i].want) + 1);
        CU_ASSERT_STRING_EQUAL(buf, rows[i].want);
    }
    memset(small, 'x', sizeof(small));
    ew_time_str(T0, small, sizeof(small));
    CU_ASSERT_STRING_EQUAL(small, "2023-11-14");
}

/* ew_addr_str: "192.0.2.1" or "2001:db8::1" (IPv4 from the last 4
 * of the 16 bytes; IPv6 as inet_ntop, RFC 5952) */
static void
test_addr_str(void)
{
    static const struct {
        uint8_t a[16];
        int family;
        const char *want;
    } rows[] = {
        {{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 192, 0, 2, 1}, 4, "192.0.2.1"},
        {{0}, 4, "0.0.0.0"},
        {{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 255, 255, 255, 255}, 4, "255.255.255.255"},
        {{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 10, 100, 9, 99}, 4, "10.100.9.99"},
        {{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 1, 20, 200, 0}, 4, "1.20.200.0"},
        /* only the last four bytes count */
        {{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 172, 16, 0, 1}, 4, "172.16.0.1"},
        {{0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1}, 6, "2001:db8::1"},
        {{0}, 6, "::"},
        {{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1}, 6, "::1"},
        {{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 192, 0, 2, 1}, 6, "::ffff:192.0.2.1"},
        {{0x20, 0x01, 0x0d, 0xb8, 0, 1, 0, 2, 0, 3, 0, 4, 0, 5, 0, 6}, 6, "2001:db8:1:2:3:4:5:6"},
        {{0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 1}, 6, "2001:db8::1:0:0:1"},
        {{0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0x02, 0x11, 0x22, 0xff, 0xfe, 0x33, 0x44, 0x55}, 6,
         "fe80::211:22ff:fe33:4455"},
        {{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
          0xff}, 6, "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff"},
    };
    char buf[64];
    size_t i;

    for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
        memset(buf, 'x', sizeof(buf));
        ew_addr_str(rows[i].a, rows[i].family, buf, sizeof(buf));
        CU_ASSERT_STRING_EQUAL(buf, rows[i].want);
        /* a buffer of INET6_ADDRSTRLEN / INET_ADDRSTRLEN, as callers have */
        memset(buf, 'x', sizeof(buf));
        ew_addr_str(rows[i].a, rows[i].family, buf, rows[i].family == 4 ? 16 : 46);
        CU_ASSERT_STRING_EQUAL(buf, rows[i].want);
        /* just room: the slow path for IPv4 */
        memset(buf, 'x', sizeof(buf));
        ew_addr_str(rows[i].a, rows[i].family, buf, strlen(rows[i].want) + 1);
        CU_ASSERT_STRING_EQUAL(buf, rows[i].want);
    }
}

int
ew_test_register_format(void)
{
    CU_pSuite s = CU_add_suite("format", NULL, NULL);

    if (!s)
        return -1;
    if (!CU_add_test(s, "fixed formats at every size", test_fixed) ||
        !CU_add_test(s, "random values and sizes", test_random) ||
        !CU_add_test(s, "RFC 3339 times", test_time_str) ||
        !CU_add_test(s, "addresses", test_addr_str))
        return -1;
    return 0;
}
