/* suites.h - one register function per test module; each returns 0 on success */
#ifndef ECNWATCH_TEST_SUITES_H
#define ECNWATCH_TEST_SUITES_H

#include <stdint.h>

int ew_test_register_cursor(void);
int ew_test_register_dissect(void);
int ew_test_register_flowtab(void);
int ew_test_register_analyze(void);
int ew_test_register_infer(void);
int ew_test_register_metrics(void);
int ew_test_register_quic(void);
int ew_test_register_jw(void);
int ew_test_register_reader(void);
int ew_test_register_format(void);
int ew_test_register_pack(void);
int ew_test_register_misuse(void);
int ew_test_register_report(void);
int ew_test_register_stream(void);
int ew_test_register_pathcmp(void);
int ew_test_register_bottleneck(void);
int ew_test_register_snapshot(void);
int ew_test_register_dedupe(void);
int ew_test_register_loss(void);
int ew_test_register_qseries(void);
int ew_test_register_midflow(void);
int ew_test_register_path(void);
int ew_test_register_dynlib(void);
int ew_test_register_fanout(void);
int ew_test_register_probe(void);

/* xorshift64: the same numbers on every run from the same *state (not 0) */
uint64_t ew_test_next(uint64_t *state);

#endif
