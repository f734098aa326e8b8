/* pack.c - a flow's record and its state in a few hundred bytes, and back,
 * exactly (pack.h). */
#include "flow/pack.h"

#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#define KEY_BYTES sizeof(struct ew_flow_key)
#define REC_BYTES (sizeof(struct ew_flow) - KEY_BYTES)

_Static_assert(offsetof(struct ew_flow, key) == 0 &&
                   offsetof(struct ew_flow, first_ns) == KEY_BYTES,
               "the key comes first, the packed words after it");
_Static_assert(REC_BYTES % 4 == 0 && EW_FLOW_STATE_MAX % 4 == 0, "whole words");

/* 64-bit members taken relative to the flow's first packet time or frame
 * (offsets in the words packed: the record's after its key) */
#define R(m) (offsetof(struct ew_flow, m) - KEY_BYTES)
static const size_t rec_times[] = {R(last_ns)};
static const size_t rec_frames[] = {R(last_frame), R(hs.syn_frame), R(hs.synack_frame),
                                    R(hs.syn_option_frame)};
#undef R

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* the 64-bit members at `at` taken relative to base (or back) */
static void
members_rel(uint8_t *bytes, const size_t *at, size_t n, uint64_t base, bool back)
{
    uint64_t v;

    for (size_t i = 0; i < n; i++) {
        memcpy(&v, bytes + at[i], sizeof(v));
        v = ew_pack_rel(v, base, back);
        memcpy(bytes + at[i], &v, sizeof(v));
    }
}

static size_t
put_varint(uint8_t *o, uint32_t v)
{
    if (v < 0x80) {
        o[0] = (uint8_t)v;
        return 1;
    }
    if (v < 0x4000) {
        o[0] = (uint8_t)(v | 0x80);
        o[1] = (uint8_t)(v >> 7);
        return 2;
    }
    if (v < 0x200000) {
        o[0] = (uint8_t)(v | 0x80);
        o[1] = (uint8_t)((v >> 7) | 0x80);
        o[2] = (uint8_t)(v >> 14);
        return 3;
    }
    if (v < 0x10000000) {
        o[0] = (uint8_t)(v | 0x80);
        o[1] = (uint8_t)((v >> 7) | 0x80);
        o[2] = (uint8_t)((v >> 14) | 0x80);
        o[3] = (uint8_t)(v >> 21);
        return 4;
    }
    o[0] = (uint8_t)(v | 0x80);
    o[1] = (uint8_t)((v >> 7) | 0x80);
    o[2] = (uint8_t)((v >> 14) | 0x80);
    o[3] = (uint8_t)((v >> 21) | 0x80);
    o[4] = (uint8_t)(v >> 28);
    return 5;
}

/* a bit for each of the 8 words at w that is not zero */
static unsigned
nonzero8(const uint32_t *w)
{
#ifdef __SSE2__
    __m128i z = _mm_setzero_si128();
    __m128i a = _mm_cmpeq_epi32(_mm_loadu_si128((const __m128i *)(const void *)w), z);
    __m128i b = _mm_cmpeq_epi32(_mm_loadu_si128((const __m128i *)(const void *)(w + 4)), z);
    unsigned zero = (unsigned)_mm_movemask_ps(_mm_castsi128_ps(a)) |
                    (unsigned)_mm_movemask_ps(_mm_castsi128_ps(b)) << 4;

    return ~zero & 0xffu;
#else
    unsigned mask = 0;

    for (int i = 0; i < 8; i++)
        mask |= (unsigned)(w[i] != 0) << i;
    return mask;
#endif
}

/* n words: a bit per group of 8 that has any not zero, then for each such
 * group a byte of bits and its words that are not zero, as varints */
static size_t
put_words(const uint32_t *w, size_t n, uint8_t *out)
{
    size_t groups = EW_PACK_GROUPS(n), len = (groups + 7) / 8;

    memset(out, 0, len);
    for (size_t g = 0; g < groups; g++) {
        const uint32_t *gw = w + g * 8;
        unsigned mask = 0;

        if (n - g * 8 >= 8) {
            mask = nonzero8(gw);
        } else {
            for (size_t i = 0; i < n - g * 8; i++)
                mask |= (unsigned)(gw[i] != 0) << i;
        }
        if (!mask)
            continue;
        out[g / 8] |= (uint8_t)(1u << (g % 8));
        out[len++] = (uint8_t)mask;
        for (; mask; mask &= mask - 1)
            len += put_varint(out + len, gw[__builtin_ctz(mask)]);
    }
    return len;
}

/* n words into dst (bytes, for any alignment), zero where none is given */
static bool
get_words(const uint8_t *in, size_t len, size_t *pos, uint8_t *dst, size_t n)
{
    size_t groups = EW_PACK_GROUPS(n), bits = *pos, p = *pos + (groups + 7) / 8;

    if (p > len)
        return false;
    memset(dst, 0, n * 4);
    for (size_t g = 0; g < groups; g++) {
        unsigned mask;

        if (!(in[bits + g / 8] & (1u << (g % 8))))
            continue;
        if (p >= len)
            return false;
        for (mask = in[p++]; mask; mask &= mask - 1) {
            size_t at = g * 8 + (size_t)__builtin_ctz(mask);
            uint32_t v;

            if (at >= n || p >= len)
                return false;
            v = in[p++];
            if (v >= 0x80) { /* more bytes: at most five, the fifth of 4 bits */
                unsigned shift = 7;
                uint8_t b;

                v &= 0x7f;
                do {
                    if (p >= len || shift > 28)
                        return false;
                    b = in[p++];
                    if (shift == 28 && b > 0x0f)
                        return false;
                    v |= (uint32_t)(b & 0x7f) << shift;
                    shift += 7;
                } while (b & 0x80);
            }
            memcpy(dst + at * 4, &v, 4);
        }
    }
    *pos = p;
    return true;
}

size_t
ew_flow_pack(const struct ew_flow_state *st, const struct ew_flow *f, uint8_t *out)
{
    uint32_t rec[EW_PACK_REC_WORDS], inf[EW_PACK_INF_WORDS];
    uint8_t *rb = (uint8_t *)rec, *ib = (uint8_t *)inf;
    bool tcp = (const void *)f->inf != st->none;
    size_t len = 1;

    memcpy(rb, (const uint8_t *)f + KEY_BYTES, REC_BYTES);
    memset(rb + offsetof(struct ew_flow, inf) - KEY_BYTES, 0, sizeof(f->inf));
    members_rel(rb, rec_times, COUNT(rec_times), (uint64_t)f->first_ns, false);
    members_rel(rb, rec_frames, COUNT(rec_frames), f->first_frame, false);
    out[0] = tcp;
    len += put_words(rec, EW_PACK_REC_WORDS, out + len);
    if (tcp) {
        memcpy(ib, f->inf, st->size);
        st->rel(ib, (uint64_t)f->last_ns, false); /* before the times it is relative to are */
        members_rel(ib, st->times, st->ntimes, (uint64_t)f->first_ns, false);
        members_rel(ib, st->frames, st->nframes, f->first_frame, false);
        len += put_words(inf, st->size / 4, out + len);
    }
    return len;
}

bool
ew_flow_unpack(const struct ew_flow_state *st, const uint8_t *in, size_t len, struct ew_flow *f,
               void *infer)
{
    uint8_t *rb = (uint8_t *)f + KEY_BYTES, *ib = infer;
    size_t pos = 1;
    bool tcp;

    if (len < 1 || in[0] > 1)
        return false;
    tcp = in[0];
    if (!get_words(in, len, &pos, rb, EW_PACK_REC_WORDS))
        return false;
    if (tcp && !get_words(in, len, &pos, ib, st->size / 4))
        return false;
    if (pos != len)
        return false;
    members_rel(rb, rec_times, COUNT(rec_times), (uint64_t)f->first_ns, true);
    members_rel(rb, rec_frames, COUNT(rec_frames), f->first_frame, true);
    if (tcp) {
        members_rel(ib, st->times, st->ntimes, (uint64_t)f->first_ns, true);
        members_rel(ib, st->frames, st->nframes, f->first_frame, true);
        st->rel(ib, (uint64_t)f->last_ns, true);
        f->inf = infer;
    } else {
        f->inf = (struct ew_infer *)(uintptr_t)st->none;
    }
    return true;
}
