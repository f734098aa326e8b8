/* fuzz.h - the libFuzzer entry point the harnesses define, declared for the
 * warning set, and the replay driver's use of it. */
#ifndef ECNWATCH_FUZZ_H
#define ECNWATCH_FUZZ_H

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#endif /* ECNWATCH_FUZZ_H */
