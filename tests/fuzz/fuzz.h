/* fuzz.h - the libFuzzer entry point the harnesses define, declared for the
 * warning set, and the replay driver's use of it; a digest step the
 * harnesses share. */
#ifndef ECNWATCH_FUZZ_H
#define ECNWATCH_FUZZ_H

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* h with n bytes at p folded in (FNV-1a's step): a digest of what two
 * readings of one input gave, compared by the reader harnesses */
static inline uint64_t
mix(uint64_t h, const void *p, size_t n)
{
    const uint8_t *b = p;
    size_t i;

    for (i = 0; i < n; i++) {
        h ^= b[i];
        h *= 0x100000001b3ULL;
    }
    return h;
}

#endif /* ECNWATCH_FUZZ_H */
