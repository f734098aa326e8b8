/* test_cursor.c - the bounds-checked reader: every function at the exact
 * length, one byte short and on an empty buffer; sticky truncation; zero on a
 * read past the end; sub-cursor clamping. Each buffer is a heap copy of exactly
 * the bytes under test, so AddressSanitizer reports any read past its end. */
#include <CUnit/CUnit.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dissectors/cursor.h"
#include "suites.h"

/* high bits set everywhere, so a sign-extension shows up */
static const uint8_t src8[8] = {0xfe, 0xdc, 0xba, 0x98, 0x76, 0x54, 0x32, 0x10};

/* An exact-size heap copy of n bytes of src. For n == 0 the data pointer is one
 * past the end of a 1-byte block, so even then any read is past an allocation.
 * Release with free(*block). */
static const uint8_t *
exact_copy(const uint8_t *src, size_t n, uint8_t **block)
{
    uint8_t *b = malloc(n ? n : 1);

    *block = b;
    CU_ASSERT_PTR_NOT_NULL_FATAL(b);
    if (n == 0)
        return b + 1;
    memcpy(b, src, n);
    return b;
}

enum reader { RD_U8, RD_BE16, RD_BE24, RD_BE32, RD_LE32 };

static uint32_t
read_with(struct ew_cur *c, enum reader r)
{
    switch (r) {
    case RD_U8:
        return ew_cur_u8(c);
    case RD_BE16:
        return ew_cur_be16(c);
    case RD_BE24:
        return ew_cur_be24(c);
    case RD_BE32:
        return ew_cur_be32(c);
    case RD_LE32:
        return ew_cur_le32(c);
    }
    return 0;
}

static size_t
reader_width(enum reader r)
{
    switch (r) {
    case RD_U8:
        return 1;
    case RD_BE16:
        return 2;
    case RD_BE24:
        return 3;
    case RD_BE32:
    case RD_LE32:
        return 4;
    }
    return 0;
}

/* One reader over src8: exact length, one longer, one short, empty. */
static void
check_reader(enum reader r, uint32_t want)
{
    size_t w = reader_width(r);
    struct ew_cur c;
    const uint8_t *d;
    uint8_t *block;

    /* exact length: the value, nothing left, not truncated */
    d = exact_copy(src8, w, &block);
    ew_cur_init(&c, d, w);
    CU_ASSERT_EQUAL(read_with(&c, r), want);
    CU_ASSERT_FALSE(c.trunc);
    CU_ASSERT_EQUAL(ew_cur_left(&c), 0);
    CU_ASSERT_PTR_EQUAL(c.p, c.end);
    /* the next read is past the end: zero, truncated, still at the end */
    CU_ASSERT_EQUAL(read_with(&c, r), 0);
    CU_ASSERT_TRUE(c.trunc);
    CU_ASSERT_PTR_EQUAL(c.p, c.end);
    free(block);

    /* one byte more than needed: the value, then the next byte */
    d = exact_copy(src8, w + 1, &block);
    ew_cur_init(&c, d, w + 1);
    CU_ASSERT_EQUAL(read_with(&c, r), want);
    CU_ASSERT_FALSE(c.trunc);
    CU_ASSERT_EQUAL(ew_cur_left(&c), 1);
    CU_ASSERT_EQUAL(ew_cur_u8(&c), src8[w]);
    CU_ASSERT_FALSE(c.trunc);
    free(block);

    /* one byte short: zero, truncated, cursor at the end */
    d = exact_copy(src8, w - 1, &block);
    ew_cur_init(&c, d, w - 1);
    CU_ASSERT_EQUAL(read_with(&c, r), 0);
    CU_ASSERT_TRUE(c.trunc);
    CU_ASSERT_EQUAL(ew_cur_left(&c), 0);
    CU_ASSERT_PTR_EQUAL(c.p, c.end);
    free(block);

    /* empty */
    d = exact_copy(src8, 0, &block);
    ew_cur_init(&c, d, 0);
    CU_ASSERT_EQUAL(read_with(&c, r), 0);
    CU_ASSERT_TRUE(c.trunc);
    CU_ASSERT_EQUAL(ew_cur_left(&c), 0);
    free(block);
}

static void
test_init_left_has(void)
{
    struct ew_cur c;
    uint8_t *block;
    const uint8_t *d = exact_copy(src8, 8, &block);

    ew_cur_init(&c, d, 8);
    CU_ASSERT_PTR_EQUAL(c.p, d);
    CU_ASSERT_PTR_EQUAL(c.end, d + 8);
    CU_ASSERT_FALSE(c.trunc);
    CU_ASSERT_EQUAL(ew_cur_left(&c), 8);
    CU_ASSERT_TRUE(ew_cur_has(&c, 0));
    CU_ASSERT_TRUE(ew_cur_has(&c, 8));
    CU_ASSERT_FALSE(ew_cur_has(&c, 9));
    CU_ASSERT_FALSE(ew_cur_has(&c, SIZE_MAX));
    CU_ASSERT_FALSE(c.trunc); /* has() never sets the flag */
    free(block);

    d = exact_copy(src8, 0, &block);
    ew_cur_init(&c, d, 0);
    CU_ASSERT_EQUAL(ew_cur_left(&c), 0);
    CU_ASSERT_TRUE(ew_cur_has(&c, 0));
    CU_ASSERT_FALSE(ew_cur_has(&c, 1));
    CU_ASSERT_FALSE(c.trunc);
    free(block);
}

static void
test_peek(void)
{
    struct ew_cur c;
    uint8_t *block;
    uint8_t v = 0x55;
    const uint8_t *d = exact_copy(src8, 1, &block);

    /* exact length: peek does not consume, twice gives the same byte */
    ew_cur_init(&c, d, 1);
    CU_ASSERT_TRUE(ew_cur_peek_u8(&c, &v));
    CU_ASSERT_EQUAL(v, 0xfe);
    CU_ASSERT_TRUE(ew_cur_peek_u8(&c, &v));
    CU_ASSERT_EQUAL(v, 0xfe);
    CU_ASSERT_EQUAL(ew_cur_left(&c), 1);
    CU_ASSERT_EQUAL(ew_cur_u8(&c), 0xfe);
    /* at the end: false, zero, and the flag untouched */
    v = 0x55;
    CU_ASSERT_FALSE(ew_cur_peek_u8(&c, &v));
    CU_ASSERT_EQUAL(v, 0);
    CU_ASSERT_FALSE(c.trunc);
    free(block);

    d = exact_copy(src8, 0, &block);
    ew_cur_init(&c, d, 0);
    v = 0x55;
    CU_ASSERT_FALSE(ew_cur_peek_u8(&c, &v));
    CU_ASSERT_EQUAL(v, 0);
    CU_ASSERT_FALSE(c.trunc);
    free(block);
}

static void
test_u8(void)
{
    check_reader(RD_U8, 0xfe);
}

static void
test_be16(void)
{
    check_reader(RD_BE16, 0xfedc);
}

static void
test_be24(void)
{
    check_reader(RD_BE24, 0xfedcba);
}

static void
test_be32(void)
{
    check_reader(RD_BE32, 0xfedcba98u);
}

static void
test_le32(void)
{
    check_reader(RD_LE32, 0x98badcfeu);
}

/* reads of every width back to back consume exactly their bytes */
static void
test_mixed_sequence(void)
{
    static const uint8_t b[14] = {0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07,
                                  0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e};
    struct ew_cur c;
    uint8_t *block;
    const uint8_t *d = exact_copy(b, sizeof(b), &block);

    ew_cur_init(&c, d, sizeof(b));
    CU_ASSERT_EQUAL(ew_cur_u8(&c), 0x01);
    CU_ASSERT_EQUAL(ew_cur_be16(&c), 0x0203);
    CU_ASSERT_EQUAL(ew_cur_be24(&c), 0x040506);
    CU_ASSERT_EQUAL(ew_cur_be32(&c), 0x0708090au);
    CU_ASSERT_EQUAL(ew_cur_le32(&c), 0x0e0d0c0bu);
    CU_ASSERT_FALSE(c.trunc);
    CU_ASSERT_EQUAL(ew_cur_left(&c), 0);
    free(block);
}

/* Once a read fails, the flag stays set and every later read returns zero,
 * even of bytes that were there before the failed read. */
static void
test_trunc_sticky(void)
{
    struct ew_cur c;
    uint8_t *block;
    uint8_t out[2] = {0xaa, 0xaa};
    uint8_t v;
    const uint8_t *d = exact_copy(src8, 3, &block);

    ew_cur_init(&c, d, 3);
    CU_ASSERT_EQUAL(ew_cur_be16(&c), 0xfedc);
    CU_ASSERT_FALSE(c.trunc);
    /* one byte left: a 16-bit read fails and discards it */
    CU_ASSERT_EQUAL(ew_cur_be16(&c), 0);
    CU_ASSERT_TRUE(c.trunc);
    CU_ASSERT_EQUAL(ew_cur_left(&c), 0);
    CU_ASSERT_EQUAL(ew_cur_u8(&c), 0);
    CU_ASSERT_TRUE(c.trunc);
    /* calls that succeed on nothing do not clear it */
    CU_ASSERT_TRUE(ew_cur_skip(&c, 0));
    CU_ASSERT_TRUE(ew_cur_bytes(&c, out, 0));
    CU_ASSERT_FALSE(ew_cur_peek_u8(&c, &v));
    CU_ASSERT_TRUE(c.trunc);
    CU_ASSERT_EQUAL(ew_cur_be32(&c), 0);
    CU_ASSERT_EQUAL(ew_cur_be24(&c), 0);
    CU_ASSERT_EQUAL(ew_cur_le32(&c), 0);
    CU_ASSERT_TRUE(c.trunc);
    CU_ASSERT_EQUAL(out[0], 0xaa);
    CU_ASSERT_EQUAL(out[1], 0xaa);
    free(block);

    /* a failed skip also leaves the cursor at the end with the flag set */
    d = exact_copy(src8, 4, &block);
    ew_cur_init(&c, d, 4);
    CU_ASSERT_FALSE(ew_cur_skip(&c, 5));
    CU_ASSERT_TRUE(c.trunc);
    CU_ASSERT_EQUAL(ew_cur_left(&c), 0);
    CU_ASSERT_EQUAL(ew_cur_u8(&c), 0);
    free(block);
}

static void
test_bytes(void)
{
    struct ew_cur c;
    uint8_t *block, *dst;
    const uint8_t *d;
    size_t i;

    dst = malloc(4);
    CU_ASSERT_PTR_NOT_NULL_FATAL(dst);

    /* exact length */
    d = exact_copy(src8, 4, &block);
    ew_cur_init(&c, d, 4);
    CU_ASSERT_TRUE(ew_cur_bytes(&c, dst, 4));
    CU_ASSERT_EQUAL(memcmp(dst, src8, 4), 0);
    CU_ASSERT_FALSE(c.trunc);
    CU_ASSERT_EQUAL(ew_cur_left(&c), 0);
    /* zero bytes at the end is not a truncation */
    CU_ASSERT_TRUE(ew_cur_bytes(&c, dst, 0));
    CU_ASSERT_FALSE(c.trunc);
    free(block);

    /* one short: false, nothing copied, destination zeroed */
    d = exact_copy(src8, 3, &block);
    ew_cur_init(&c, d, 3);
    memset(dst, 0xaa, 4);
    CU_ASSERT_FALSE(ew_cur_bytes(&c, dst, 4));
    CU_ASSERT_TRUE(c.trunc);
    CU_ASSERT_EQUAL(ew_cur_left(&c), 0);
    for (i = 0; i < 4; i++)
        CU_ASSERT_EQUAL(dst[i], 0);
    free(block);

    /* empty */
    d = exact_copy(src8, 0, &block);
    ew_cur_init(&c, d, 0);
    memset(dst, 0xaa, 4);
    CU_ASSERT_FALSE(ew_cur_bytes(&c, dst, 4));
    CU_ASSERT_TRUE(c.trunc);
    for (i = 0; i < 4; i++)
        CU_ASSERT_EQUAL(dst[i], 0);
    free(block);
    free(dst);
}

static void
test_skip(void)
{
    struct ew_cur c;
    uint8_t *block;
    const uint8_t *d = exact_copy(src8, 4, &block);

    /* exact length, in two steps */
    ew_cur_init(&c, d, 4);
    CU_ASSERT_TRUE(ew_cur_skip(&c, 1));
    CU_ASSERT_EQUAL(ew_cur_u8(&c), 0xdc);
    CU_ASSERT_TRUE(ew_cur_skip(&c, 2));
    CU_ASSERT_FALSE(c.trunc);
    CU_ASSERT_EQUAL(ew_cur_left(&c), 0);
    CU_ASSERT_TRUE(ew_cur_skip(&c, 0));
    CU_ASSERT_FALSE(c.trunc);

    /* one short */
    ew_cur_init(&c, d, 4);
    CU_ASSERT_FALSE(ew_cur_skip(&c, 5));
    CU_ASSERT_TRUE(c.trunc);
    CU_ASSERT_PTR_EQUAL(c.p, c.end);

    /* a length that would wrap a pointer */
    ew_cur_init(&c, d, 4);
    CU_ASSERT_TRUE(ew_cur_skip(&c, 1));
    CU_ASSERT_FALSE(ew_cur_skip(&c, SIZE_MAX));
    CU_ASSERT_TRUE(c.trunc);
    CU_ASSERT_PTR_EQUAL(c.p, c.end);
    free(block);

    /* empty */
    d = exact_copy(src8, 0, &block);
    ew_cur_init(&c, d, 0);
    CU_ASSERT_TRUE(ew_cur_skip(&c, 0));
    CU_ASSERT_FALSE(c.trunc);
    CU_ASSERT_FALSE(ew_cur_skip(&c, 1));
    CU_ASSERT_TRUE(c.trunc);
    free(block);
}

/* a sub-cursor inside the parent: covers n bytes, the parent moves past them */
static void
test_sub_inside(void)
{
    struct ew_cur c, s;
    uint8_t *block;
    const uint8_t *d = exact_copy(src8, 8, &block);

    ew_cur_init(&c, d, 8);
    CU_ASSERT_EQUAL(ew_cur_u8(&c), 0xfe);
    CU_ASSERT_TRUE(ew_cur_sub(&c, 3, &s));
    CU_ASSERT_PTR_EQUAL(s.p, d + 1);
    CU_ASSERT_PTR_EQUAL(s.end, d + 4);
    CU_ASSERT_FALSE(s.trunc);
    CU_ASSERT_EQUAL(ew_cur_left(&s), 3);
    CU_ASSERT_EQUAL(ew_cur_left(&c), 4);
    CU_ASSERT_EQUAL(ew_cur_u8(&c), 0x76);
    /* the sub-cursor stops at its own end although the parent has more */
    CU_ASSERT_EQUAL(ew_cur_be32(&s), 0);
    CU_ASSERT_TRUE(s.trunc);
    CU_ASSERT_FALSE(c.trunc);
    free(block);

    /* n == 0 */
    d = exact_copy(src8, 2, &block);
    ew_cur_init(&c, d, 2);
    CU_ASSERT_TRUE(ew_cur_sub(&c, 0, &s));
    CU_ASSERT_EQUAL(ew_cur_left(&s), 0);
    CU_ASSERT_EQUAL(ew_cur_left(&c), 2);
    free(block);
}

/* exactly the bytes that are left */
static void
test_sub_exact(void)
{
    struct ew_cur c, s;
    uint8_t *block;
    const uint8_t *d = exact_copy(src8, 4, &block);

    ew_cur_init(&c, d, 4);
    CU_ASSERT_TRUE(ew_cur_sub(&c, 4, &s));
    CU_ASSERT_EQUAL(ew_cur_left(&s), 4);
    CU_ASSERT_EQUAL(ew_cur_left(&c), 0);
    CU_ASSERT_FALSE(c.trunc);
    CU_ASSERT_EQUAL(ew_cur_be32(&s), 0xfedcba98u);
    CU_ASSERT_FALSE(s.trunc);
    CU_ASSERT_EQUAL(ew_cur_u8(&s), 0);
    CU_ASSERT_TRUE(s.trunc);
    free(block);
}

/* more than is left: clamped to what there is, reported as incomplete */
static void
test_sub_clamped(void)
{
    struct ew_cur c, s;
    uint8_t *block;
    const uint8_t *d = exact_copy(src8, 4, &block);

    /* one short */
    ew_cur_init(&c, d, 4);
    CU_ASSERT_FALSE(ew_cur_sub(&c, 5, &s));
    CU_ASSERT_PTR_EQUAL(s.p, d);
    CU_ASSERT_PTR_EQUAL(s.end, d + 4);
    CU_ASSERT_FALSE(s.trunc);
    CU_ASSERT_EQUAL(ew_cur_left(&c), 0);
    CU_ASSERT_FALSE(c.trunc); /* the parent's flag is left alone */
    CU_ASSERT_EQUAL(ew_cur_be32(&s), 0xfedcba98u);
    CU_ASSERT_FALSE(s.trunc);
    CU_ASSERT_EQUAL(ew_cur_u8(&s), 0);
    CU_ASSERT_TRUE(s.trunc);

    /* far more than is left */
    ew_cur_init(&c, d, 4);
    CU_ASSERT_TRUE(ew_cur_skip(&c, 1));
    CU_ASSERT_FALSE(ew_cur_sub(&c, SIZE_MAX, &s));
    CU_ASSERT_EQUAL(ew_cur_left(&s), 3);
    CU_ASSERT_PTR_EQUAL(s.end, d + 4);
    CU_ASSERT_EQUAL(ew_cur_left(&c), 0);
    free(block);
}

static void
test_sub_empty(void)
{
    struct ew_cur c, s;
    uint8_t *block;
    const uint8_t *d = exact_copy(src8, 0, &block);

    ew_cur_init(&c, d, 0);
    CU_ASSERT_TRUE(ew_cur_sub(&c, 0, &s));
    CU_ASSERT_EQUAL(ew_cur_left(&s), 0);
    CU_ASSERT_FALSE(ew_cur_sub(&c, 1, &s));
    CU_ASSERT_EQUAL(ew_cur_left(&s), 0);
    CU_ASSERT_FALSE(s.trunc);
    CU_ASSERT_EQUAL(ew_cur_u8(&s), 0);
    CU_ASSERT_TRUE(s.trunc);
    CU_ASSERT_FALSE(c.trunc);
    free(block);
}

/* a sub-cursor starts with a clear flag even from a truncated parent, and its
 * own truncation does not reach the parent */
static void
test_sub_own_flag(void)
{
    struct ew_cur c, s;
    uint8_t *block;
    const uint8_t *d = exact_copy(src8, 2, &block);

    ew_cur_init(&c, d, 2);
    CU_ASSERT_TRUE(ew_cur_sub(&c, 1, &s));
    CU_ASSERT_EQUAL(ew_cur_be16(&s), 0);
    CU_ASSERT_TRUE(s.trunc);
    CU_ASSERT_FALSE(c.trunc);
    CU_ASSERT_EQUAL(ew_cur_u8(&c), 0xdc);
    CU_ASSERT_EQUAL(ew_cur_u8(&c), 0);
    CU_ASSERT_TRUE(c.trunc);
    CU_ASSERT_FALSE(ew_cur_sub(&c, 1, &s));
    CU_ASSERT_FALSE(s.trunc);
    CU_ASSERT_EQUAL(ew_cur_left(&s), 0);
    CU_ASSERT_TRUE(c.trunc);
    free(block);
}

/* every reader at every starting offset of every buffer size 0..8: a read
 * succeeds exactly when its bytes are there, and never touches more */
static void
test_all_offsets(void)
{
    static const enum reader readers[] = {RD_U8, RD_BE16, RD_BE24, RD_BE32, RD_LE32};
    size_t len, off, r;

    for (len = 0; len <= sizeof(src8); len++) {
        uint8_t *block;
        const uint8_t *d = exact_copy(src8, len, &block);

        for (off = 0; off <= len; off++) {
            for (r = 0; r < sizeof(readers) / sizeof(readers[0]); r++) {
                struct ew_cur c;
                size_t w = reader_width(readers[r]);
                uint32_t v;

                ew_cur_init(&c, d, len);
                CU_ASSERT_TRUE(ew_cur_skip(&c, off));
                v = read_with(&c, readers[r]);
                if (off + w <= len) {
                    CU_ASSERT_FALSE(c.trunc);
                    CU_ASSERT_EQUAL(ew_cur_left(&c), len - off - w);
                } else {
                    CU_ASSERT_EQUAL(v, 0);
                    CU_ASSERT_TRUE(c.trunc);
                    CU_ASSERT_EQUAL(ew_cur_left(&c), 0);
                }
            }
        }
        free(block);
    }
}

int
ew_test_register_cursor(void)
{
    CU_pSuite s = CU_add_suite("cursor", NULL, NULL);

    if (!s)
        return -1;
    if (!CU_add_test(s, "init, left, has", test_init_left_has) ||
        !CU_add_test(s, "peek_u8", test_peek) || !CU_add_test(s, "u8", test_u8) ||
        !CU_add_test(s, "be16", test_be16) || !CU_add_test(s, "be24", test_be24) ||
        !CU_add_test(s, "be32", test_be32) || !CU_add_test(s, "le32", test_le32) ||
        !CU_add_test(s, "mixed widths back to back", test_mixed_sequence) ||
        !CU_add_test(s, "truncation is sticky", test_trunc_sticky) ||
        !CU_add_test(s, "bytes", test_bytes) || !CU_add_test(s, "skip", test_skip) ||
        !CU_add_test(s, "sub inside the parent", test_sub_inside) ||
        !CU_add_test(s, "sub at exact length", test_sub_exact) ||
        !CU_add_test(s, "sub clamped", test_sub_clamped) ||
        !CU_add_test(s, "sub on empty", test_sub_empty) ||
        !CU_add_test(s, "sub has its own flag", test_sub_own_flag) ||
        !CU_add_test(s, "every reader at every offset", test_all_offsets))
        return -1;
    return 0;
}
