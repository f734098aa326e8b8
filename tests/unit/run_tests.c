/* run_tests.c - the one CUnit main: registers every suite, runs them (or
 * only the suites and tests named on the command line), and exits 1 when any
 * assertion failed, 2 on a name it does not know.
 *
 *   run_tests                     every suite
 *   run_tests SUITE [SUITE/TEST]  only those (the summary counts only them)
 *   run_tests -l [SUITE]          the suites' names, or one suite's tests */
#include <CUnit/Basic.h>
#include <stdio.h>
#include <string.h>

#include "suites.h"

uint64_t
ew_test_next(uint64_t *state)
{
    uint64_t x = *state;

    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return *state = x;
}

static int
register_all(void)
{
    return ew_test_register_cursor() || ew_test_register_dissect() || ew_test_register_flowtab() ||
           ew_test_register_analyze() || ew_test_register_infer() || ew_test_register_metrics() ||
           ew_test_register_quic() || ew_test_register_jw() || ew_test_register_reader() ||
           ew_test_register_format() || ew_test_register_pack() || ew_test_register_misuse() ||
           ew_test_register_report() || ew_test_register_stream() || ew_test_register_pathcmp() ||
           ew_test_register_bottleneck() || ew_test_register_snapshot() ||
           ew_test_register_dedupe() || ew_test_register_loss() || ew_test_register_qseries() ||
           ew_test_register_midflow() || ew_test_register_path() || ew_test_register_dynlib() ||
           ew_test_register_fanout() || ew_test_register_probe();
}

/* choose SUITE or SUITE/TEST: mark it active; 0 when found */
static int
choose(const char *arg)
{
    CU_pSuite s;
    CU_pTest t;
    const char *slash;

    for (s = CU_get_registry()->pSuite; s; s = s->pNext)
        if (strcmp(s->pName, arg) == 0) {
            s->fActive = CU_TRUE;
            for (t = s->pTest; t; t = t->pNext)
                t->fActive = CU_TRUE;
            return 0;
        }
    /* a test's name may hold a '/': try every split */
    for (slash = strchr(arg, '/'); slash; slash = strchr(slash + 1, '/'))
        for (s = CU_get_registry()->pSuite; s; s = s->pNext) {
            size_t n = (size_t)(slash - arg);

            if (strlen(s->pName) != n || strncmp(s->pName, arg, n) != 0)
                continue;
            for (t = s->pTest; t; t = t->pNext)
                if (strcmp(t->pName, slash + 1) == 0) {
                    s->fActive = CU_TRUE;
                    t->fActive = CU_TRUE;
                    return 0;
                }
        }
    return -1;
}

/* -l: every suite, one a line; -l SUITE: its tests */
static int
list(const char *suite)
{
    CU_pSuite s;
    CU_pTest t;

    for (s = CU_get_registry()->pSuite; s; s = s->pNext) {
        if (!suite) {
            printf("%s\n", s->pName);
            continue;
        }
        if (strcmp(s->pName, suite) != 0)
            continue;
        for (t = s->pTest; t; t = t->pNext)
            printf("%s/%s\n", s->pName, t->pName);
        return 0;
    }
    if (suite) {
        fprintf(stderr, "run_tests: no suite named '%s' (run_tests -l lists them)\n", suite);
        return 2;
    }
    return 0;
}

static void
usage(FILE *f)
{
    fprintf(f, "usage: run_tests [SUITE | SUITE/TEST]...   run those (all when none is named)\n"
               "       run_tests -l [SUITE]                 list the suites, or one suite's tests\n");
}

int
main(int argc, char **argv)
{
    unsigned failures;
    int i, rc;
    CU_pSuite s;
    CU_pTest t;

    if (CU_initialize_registry() != CUE_SUCCESS)
        return 2;
    if (register_all()) {
        fprintf(stderr, "cannot register the test suites: %s\n", CU_get_error_msg());
        CU_cleanup_registry();
        return 2;
    }
    if (argc > 1 && (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0)) {
        usage(stdout);
        CU_cleanup_registry();
        return 0;
    }
    if (argc > 1 && strcmp(argv[1], "-l") == 0) {
        rc = argc > 3 ? (usage(stderr), 2) : list(argc == 3 ? argv[2] : NULL);
        CU_cleanup_registry();
        return rc;
    }
    if (argc > 1) {
        /* only the named suites and tests run; the others are not counted as failures */
        for (s = CU_get_registry()->pSuite; s; s = s->pNext) {
            s->fActive = CU_FALSE;
            for (t = s->pTest; t; t = t->pNext)
                t->fActive = CU_FALSE;
        }
        for (i = 1; i < argc; i++) {
            if (argv[i][0] == '-') {
                fprintf(stderr, "run_tests: unknown option '%s'\n", argv[i]);
                usage(stderr);
                CU_cleanup_registry();
                return 2;
            }
            if (choose(argv[i]) != 0) {
                fprintf(stderr, "run_tests: no suite or test named '%s' (run_tests -l lists them)\n",
                        argv[i]);
                CU_cleanup_registry();
                return 2;
            }
        }
        CU_set_fail_on_inactive(CU_FALSE);
    }
    CU_basic_set_mode(CU_BRM_VERBOSE);
    CU_basic_run_tests();
    failures = CU_get_number_of_failures() + CU_get_number_of_tests_failed();
    CU_cleanup_registry();
    return failures ? 1 : 0;
}
