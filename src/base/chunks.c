/* chunks.c - the pool of fixed-size entries (see chunks.h). An entry's
 * first word is its index + 1; its second is HELD while it is handed out,
 * the next free index + 1 (0: none) while it is free. */
#include "base/chunks.h"

#include <stdlib.h>
#include <string.h>

#define HELD 0xffffffffu

int
ew_chunks_init(struct ew_chunks *p, size_t size, uint32_t cap)
{
    memset(p, 0, sizeof(*p));
    p->size = size < 8 ? 8 : (size + 7) & ~(size_t)7;
    p->cap = cap ? cap : 1;
    p->chunk = calloc(p->cap / EW_CHUNK_ENTRIES + 1, sizeof(*p->chunk));
    return p->chunk ? 0 : -1;
}

void
ew_chunks_free(struct ew_chunks *p)
{
    uint32_t i;

    if (!p->chunk)
        return;
    for (i = 0; i <= p->cap / EW_CHUNK_ENTRIES; i++)
        free(p->chunk[i]);
    free(p->chunk);
    p->chunk = NULL;
}

static uint8_t *
entry(const struct ew_chunks *p, uint32_t i)
{
    return p->chunk[i / EW_CHUNK_ENTRIES] + (size_t)(i % EW_CHUNK_ENTRIES) * p->size;
}

void *
ew_chunks_take(struct ew_chunks *p)
{
    uint8_t *e;
    uint32_t i, w;

    if (!p->chunk) {
        p->refused++;
        return NULL;
    }
    if (p->free_head) {
        i = p->free_head - 1;
        e = entry(p, i);
        memcpy(&w, e + 4, sizeof(w));
        p->free_head = w;
    } else if (p->used < p->cap && !p->alloc_failed) {
        i = p->used;
        if (!p->chunk[i / EW_CHUNK_ENTRIES]) {
            /* i starts the chunk; the last chunk holds only what cap allows */
            size_t n = p->cap - i < EW_CHUNK_ENTRIES ? p->cap - i : EW_CHUNK_ENTRIES;

            p->chunk[i / EW_CHUNK_ENTRIES] = malloc(n * p->size);
            if (!p->chunk[i / EW_CHUNK_ENTRIES]) {
                p->alloc_failed = true;
                p->refused++;
                return NULL;
            }
        }
        p->used++;
        e = entry(p, i);
    } else {
        p->refused++;
        return NULL;
    }
    memset(e, 0, p->size);
    w = i + 1;
    memcpy(e, &w, sizeof(w));
    w = HELD;
    memcpy(e + 4, &w, sizeof(w));
    p->held++;
    return e;
}

void
ew_chunks_release(struct ew_chunks *p, void *ep)
{
    uint8_t *e = ep;
    uint32_t self, w;

    if (!e || !p->chunk)
        return;
    memcpy(&self, e, sizeof(self));
    memcpy(&w, e + 4, sizeof(w));
    if (self == 0 || self > p->used || entry(p, self - 1) != e || w != HELD)
        return; /* not one of ours, or already free */
    memcpy(e + 4, &p->free_head, sizeof(p->free_head));
    p->free_head = self;
    p->held--;
}
