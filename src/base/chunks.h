/* chunks.h - a pool of fixed-size entries handed out one at a time, up to a
 * cap, in chunks allocated as entries are first needed: memory follows the
 * entries in use, not the cap. An entry keeps its address for as long as it
 * is held (records may point at it); a released entry is handed out again
 * before a new one is taken. An entry's first 8 bytes are the pool's (its
 * own index and the free list): a struct kept here starts with
 * `uint32_t pool[2]` and leaves it alone. */
#ifndef ECNWATCH_CHUNKS_H
#define ECNWATCH_CHUNKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ew_chunks {
    uint8_t **chunk;      /* cap / EW_CHUNK_ENTRIES + 1 pointers */
    size_t size;          /* bytes an entry, a multiple of 8, at least 8 */
    uint32_t cap, used;   /* entries at most; entries ever handed out */
    uint32_t held;        /* entries handed out and not released */
    uint32_t free_head;   /* index + 1 of the first released entry; 0: none */
    uint64_t refused;     /* takes refused: the cap reached, or out of memory */
    bool alloc_failed;    /* out of memory once: no more chunks */
};

#define EW_CHUNK_ENTRIES 1024u

/* 0, or -1 when out of memory; size: bytes an entry */
int ew_chunks_init(struct ew_chunks *p, size_t size, uint32_t cap);
void ew_chunks_free(struct ew_chunks *p);
/* a zeroed entry, or NULL (counted in refused) */
void *ew_chunks_take(struct ew_chunks *p);
/* give an entry back; one not from this pool, or given back twice, is ignored */
void ew_chunks_release(struct ew_chunks *p, void *e);

#endif /* ECNWATCH_CHUNKS_H */
