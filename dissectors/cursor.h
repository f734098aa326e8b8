/* cursor.h - bounds-checked big-endian reader over captured bytes.
 *
 * Every byte a dissector reads goes through these functions. A read past the
 * end returns zero and sets a sticky truncation flag, which the dissector checks
 * once after a header instead of after every field. Lengths are compared as
 * remaining byte counts, never by forming a pointer past the end.
 */
#ifndef ECNWATCH_CURSOR_H
#define ECNWATCH_CURSOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

struct ew_cur {
    const uint8_t *p;   /* next unread byte */
    const uint8_t *end; /* one past the last captured byte */
    bool trunc;         /* sticky: a read wanted bytes past end */
};

static inline void
ew_cur_init(struct ew_cur *c, const uint8_t *data, size_t len)
{
    c->p = data;
    c->end = data + len;
    c->trunc = false;
}

static inline size_t
ew_cur_left(const struct ew_cur *c)
{
    return (size_t)(c->end - c->p);
}

/* true when n more bytes can be read; does not set the flag */
static inline bool
ew_cur_has(const struct ew_cur *c, size_t n)
{
    return ew_cur_left(c) >= n;
}

/* look at the next byte without consuming it; false (and *out = 0) at the end */
static inline bool
ew_cur_peek_u8(const struct ew_cur *c, uint8_t *out)
{
    if (!ew_cur_has(c, 1)) {
        *out = 0;
        return false;
    }
    *out = c->p[0];
    return true;
}

static inline uint8_t
ew_cur_u8(struct ew_cur *c)
{
    if (!ew_cur_has(c, 1)) {
        c->trunc = true;
        c->p = c->end;
        return 0;
    }
    return *c->p++;
}

static inline uint16_t
ew_cur_be16(struct ew_cur *c)
{
    uint16_t v;

    if (!ew_cur_has(c, 2)) {
        c->trunc = true;
        c->p = c->end;
        return 0;
    }
    v = (uint16_t)(((unsigned)c->p[0] << 8) | c->p[1]);
    c->p += 2;
    return v;
}

static inline uint32_t
ew_cur_be24(struct ew_cur *c)
{
    uint32_t v;

    if (!ew_cur_has(c, 3)) {
        c->trunc = true;
        c->p = c->end;
        return 0;
    }
    v = ((uint32_t)c->p[0] << 16) | ((uint32_t)c->p[1] << 8) | c->p[2];
    c->p += 3;
    return v;
}

static inline uint32_t
ew_cur_be32(struct ew_cur *c)
{
    uint32_t v;

    if (!ew_cur_has(c, 4)) {
        c->trunc = true;
        c->p = c->end;
        return 0;
    }
    v = ((uint32_t)c->p[0] << 24) | ((uint32_t)c->p[1] << 16) | ((uint32_t)c->p[2] << 8) |
        c->p[3];
    c->p += 4;
    return v;
}

/* little-endian 32-bit (BSD null link header, host order of the capturing machine) */
static inline uint32_t
ew_cur_le32(struct ew_cur *c)
{
    uint32_t v;

    if (!ew_cur_has(c, 4)) {
        c->trunc = true;
        c->p = c->end;
        return 0;
    }
    v = ((uint32_t)c->p[3] << 24) | ((uint32_t)c->p[2] << 16) | ((uint32_t)c->p[1] << 8) |
        c->p[0];
    c->p += 4;
    return v;
}

/* copy n bytes out; on a short buffer copies nothing, zeroes dst and sets trunc */
static inline bool
ew_cur_bytes(struct ew_cur *c, void *dst, size_t n)
{
    if (!ew_cur_has(c, n)) {
        c->trunc = true;
        c->p = c->end;
        memset(dst, 0, n);
        return false;
    }
    memcpy(dst, c->p, n);
    c->p += n;
    return true;
}

static inline bool
ew_cur_skip(struct ew_cur *c, size_t n)
{
    if (!ew_cur_has(c, n)) {
        c->trunc = true;
        c->p = c->end;
        return false;
    }
    c->p += n;
    return true;
}

/* A sub-cursor over the next n bytes, clamped to what was captured; the parent
 * advances past them (or to its end). The sub-cursor's truncation is its own.
 * Returns false when fewer than n bytes were captured (the sub-cursor then
 * covers what there is). Used to clamp upper layers to the IP length so that
 * link-layer padding is never parsed as TCP. */
static inline bool
ew_cur_sub(struct ew_cur *c, size_t n, struct ew_cur *sub)
{
    size_t left = ew_cur_left(c);
    size_t take = n < left ? n : left;

    sub->p = c->p;
    sub->end = c->p + take;
    sub->trunc = false;
    c->p += take;
    return take == n;
}

#endif /* ECNWATCH_CURSOR_H */
