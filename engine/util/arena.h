/*
 * util/arena.h — a bump allocator for memtables: many small allocations, freed all at
 * once when the memtable is dropped after its flush.
 *
 * Allocation is a pointer bump inside the current block; a request larger than a
 * quarter of the block size gets a block of its own, so big values waste no space.
 * Memory is never returned piecemeal.
 *
 * Thread safety: cf_arena_alloc must not be called concurrently (the memtable's
 * writer lock serialises it); cf_arena_memory_usage may be read from any thread at any
 * time (flush thresholds read it). Memory handed out stays valid until cf_arena_free.
 */
#ifndef CF_UTIL_ARENA_H
#define CF_UTIL_ARENA_H

#include <stddef.h>

typedef struct cf_arena cf_arena;

/* A new arena allocating blocks of block_size bytes (0: 64 KiB). NULL on no memory. */
cf_arena   *cf_arena_new(size_t block_size);

/*
 * As cf_arena_new, but the first regular block has first_block bytes (rounded up to a
 * multiple of 16, at least 64) and each next one twice the last, up to block_size;
 * first_block 0 or above block_size: cf_arena_new. The quarter-block rule for big
 * requests is on block_size. For arenas that usually hold little.
 */
cf_arena   *cf_arena_new_growing(size_t first_block, size_t block_size);

/* n bytes aligned to 8 (to 16 when n >= 16); NULL on no memory. n = 0 returns a
 * valid unique pointer. */
void	   *cf_arena_alloc(cf_arena *a, size_t n);

/* Copies n bytes into the arena; NULL on no memory. */
void	   *cf_arena_dup(cf_arena *a, const void *p, size_t n);

/*
 * The n bytes at p (which need no NUL; p may be NULL when n is 0) as a NUL-terminated
 * string; NULL on no memory.
 */
char	   *cf_arena_strndup(cf_arena *a, const char *p, size_t n);

/*
 * Room for one more element in a growing arena array arr of n elements of elem bytes
 * with room for *cap: arr itself while n < *cap, else a copy with *cap doubled (8
 * when 0). NULL on no memory (arr stays valid; the old copy is not freed until the
 * arena is).
 */
void	   *cf_arena_grow(cf_arena *a, void *arr, size_t n, size_t *cap, size_t elem);

/* Bytes allocated from the system so far, block overheads included. */
size_t		cf_arena_memory_usage(const cf_arena *a);

/* Frees every block; a NULL arena is ignored. */
void		cf_arena_free(cf_arena *a);

#endif							/* CF_UTIL_ARENA_H */
