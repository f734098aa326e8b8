/* run_tests.c - the one CUnit main: registers every suite, runs them, and
 * exits non-zero when any assertion failed. */
#include <CUnit/Basic.h>
#include <stdio.h>

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

int
main(void)
{
    unsigned failures;

    if (CU_initialize_registry() != CUE_SUCCESS)
        return 2;
    if (ew_test_register_cursor() || ew_test_register_dissect() || ew_test_register_flowtab() ||
        ew_test_register_analyze() || ew_test_register_infer() || ew_test_register_metrics() ||
        ew_test_register_quic() || ew_test_register_jw() || ew_test_register_reader() ||
        ew_test_register_format() || ew_test_register_pack() || ew_test_register_misuse() ||
        ew_test_register_report() || ew_test_register_stream() || ew_test_register_pathcmp() ||
        ew_test_register_bottleneck() || ew_test_register_snapshot() ||
        ew_test_register_dedupe() || ew_test_register_loss() || ew_test_register_qseries() ||
        ew_test_register_midflow() || ew_test_register_path()) {
        fprintf(stderr, "cannot register the test suites: %s\n", CU_get_error_msg());
        CU_cleanup_registry();
        return 2;
    }
    CU_basic_set_mode(CU_BRM_VERBOSE);
    CU_basic_run_tests();
    failures = CU_get_number_of_failures() + CU_get_number_of_tests_failed();
    CU_cleanup_registry();
    return failures ? 1 : 0;
}
