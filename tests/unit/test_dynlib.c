/* test_dynlib.c - libraries loaded when needed (base/dynlib.h): what is
 * there is found, and what is not is said in one line naming the library,
 * what needs it and why. */
#include <CUnit/CUnit.h>
#include <string.h>

#include "base/dynlib.h"
#include "suites.h"

static void
test_found(void)
{
    static const char *const names[] = {"zlibVersion", "crc32", NULL};
    struct {
        const char *(*version)(void);
        void *crc32;
    } t = {NULL, NULL};
    char err[256] = "";

    CU_ASSERT(ew_dynlib_load("libz.so.1", "reading gzip", names, &t, sizeof(t), err, sizeof(err)) ==
              0);
    CU_ASSERT(t.version != NULL && t.crc32 != NULL);
    CU_ASSERT(t.version && t.version()[0] == '1');
    CU_ASSERT_STRING_EQUAL(err, "");
    /* a table of another size than the names */
    CU_ASSERT(ew_dynlib_load("libz.so.1", "the test", names, &t, sizeof(void *), err,
                             sizeof(err)) == -1);
}

static void
test_missing(void)
{
    static const char *const names[] = {"zlibVersion", "ew_no_such_symbol", NULL};
    void *addr[2] = {NULL, NULL};
    char err[256] = "";

    CU_ASSERT(ew_dynlib_load("libew-none.so.9", "the test", names, addr, sizeof(addr), err,
                             sizeof(err)) == -1);
    CU_ASSERT_STRING_EQUAL(err, "the test needs libew-none.so.9: cannot open shared object file: "
                                "No such file or directory");
    CU_ASSERT(ew_dynlib_load("libz.so.1", "the test", names, addr, sizeof(addr), err,
                             sizeof(err)) == -1);
    CU_ASSERT(addr[0] == NULL); /* the table as it was */
    CU_ASSERT(strncmp(err, "the test needs libz.so.1: ", 26) == 0);
    CU_ASSERT(strstr(err, "ew_no_such_symbol") != NULL);
    CU_ASSERT(strchr(err, '\n') == NULL);
}

int
ew_test_register_dynlib(void)
{
    CU_pSuite s = CU_add_suite("dynlib", NULL, NULL);

    if (!s)
        return -1;
    if (!CU_add_test(s, "a library and its symbols found", test_found) ||
        !CU_add_test(s, "a missing library or symbol said in one line", test_missing))
        return -1;
    return 0;
}
