/* test_format.c - ew_vformat() gives vsnprintf's bytes, truncation included */
#include <CUnit/CUnit.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ecnwatch/format.h"
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

int
ew_test_register_format(void)
{
    CU_pSuite s = CU_add_suite("format", NULL, NULL);

    if (!s)
        return -1;
    if (!CU_add_test(s, "fixed formats at every size", test_fixed) ||
        !CU_add_test(s, "random values and sizes", test_random))
        return -1;
    return 0;
}
