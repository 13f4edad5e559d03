/*
 * util/arena.c — bump allocator for memtables (see arena.h).
 *
 * Blocks come from malloc and are chained in a list that cf_arena_free walks. The
 * current block is carved from the front by a bump pointer; when a request does not
 * fit, the rest of the current block is abandoned (as in LevelDB: less than a quarter
 * of a block, since bigger requests never come here) and a new block starts.
 * Requests larger than a quarter of the block size always get a dedicated block and
 * leave the current one alone, so a big value wastes neither its own space nor the
 * tail of the current block, and small allocations stay together. An arena made by
 * cf_arena_new_growing starts with a small regular block and doubles each new one up
 * to the block size, so an arena that holds little (a read's result) costs one small
 * malloc, not a whole block.
 *
 * Assumptions: malloc returns memory aligned to max_align_t, which is at least 16
 * bytes (checked at compile time), and a block's header is a multiple of 16 bytes,
 * so every block's payload starts 16-aligned. Only the writer changes the usage
 * counter; it does so with relaxed atomic stores so that any thread may read it.
 */
#include "util/arena.h"

#include <stdalign.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define ARENA_DEFAULT_BLOCK ((size_t) 64 * 1024)
#define ARENA_MAX_ALIGN 16

typedef struct arena_block
{
	struct arena_block *next;
	alignas(ARENA_MAX_ALIGN) unsigned char data[];
} arena_block;

struct cf_arena
{
	size_t		block_size;		/* payload bytes of a regular block */
	size_t		next_size;		/* of the next regular block: block_size, or less while growing */
	unsigned char *ptr;			/* bump pointer into the current block */
	size_t		left;			/* bytes left after ptr */
	arena_block *blocks;		/* every block, newest first */
	size_t		usage;			/* bytes from malloc; atomic, written by the writer */
};

_Static_assert(alignof(max_align_t) >= ARENA_MAX_ALIGN,
			   "malloc must return 16-aligned memory");
_Static_assert(sizeof(arena_block) % ARENA_MAX_ALIGN == 0,
			   "block payload must start 16-aligned");

/* Adds n to the usage counter; only the (single) writer calls this. */
static void
arena_add_usage(cf_arena *a, size_t n)
{
	size_t		cur = __atomic_load_n(&a->usage, __ATOMIC_RELAXED);

	__atomic_store_n(&a->usage, cur + n, __ATOMIC_RELAXED);
}

/* A new block with size payload bytes, linked into the arena; NULL on no memory. */
static unsigned char *
arena_new_block(cf_arena *a, size_t size)
{
	arena_block *b;

	if (size > SIZE_MAX - sizeof(arena_block))
		return NULL;
	b = malloc(sizeof(arena_block) + size);
	if (b == NULL)
		return NULL;
	b->next = a->blocks;
	a->blocks = b;
	arena_add_usage(a, sizeof(arena_block) + size);
	return b->data;
}

/* A regular block size: a multiple of the alignment, big enough to be useful. */
static size_t
round_block(size_t size)
{
	if (size < 4 * ARENA_MAX_ALIGN)
		size = 4 * ARENA_MAX_ALIGN;
	return (size + ARENA_MAX_ALIGN - 1) & ~(size_t) (ARENA_MAX_ALIGN - 1);
}

cf_arena *
cf_arena_new(size_t block_size)
{
	return cf_arena_new_growing(0, block_size);
}

cf_arena *
cf_arena_new_growing(size_t first_block, size_t block_size)
{
	cf_arena   *a = malloc(sizeof(cf_arena));

	if (a == NULL)
		return NULL;
	if (block_size == 0)
		block_size = ARENA_DEFAULT_BLOCK;
	block_size = round_block(block_size);
	first_block = first_block == 0 || first_block > block_size ? block_size :
		round_block(first_block);

	a->block_size = block_size;
	a->next_size = first_block;
	a->ptr = NULL;
	a->left = 0;
	a->blocks = NULL;
	a->usage = sizeof(cf_arena);
	return a;
}

void *
cf_arena_alloc(cf_arena *a, size_t n)
{
	size_t		align = n >= 16 ? 16 : 8;
	size_t		pad;
	unsigned char *p;

	/* A zero-byte request still takes one byte, so every pointer is unique. */
	if (n == 0)
		n = 1;

	/* Always apart, even when it would fit: the current block stays for small ones. */
	if (n > a->block_size / 4)
		return arena_new_block(a, n);

	pad = (size_t) (-(uintptr_t) a->ptr) & (align - 1);
	if (a->ptr != NULL && pad <= a->left && n <= a->left - pad)
	{
		p = a->ptr + pad;
		a->ptr = p + n;
		a->left -= pad + n;
		return p;
	}

	/* while growing, a block at least as big as the request (at most a quarter block) */
	while (a->next_size < n)
		a->next_size *= 2;
	p = arena_new_block(a, a->next_size);
	if (p == NULL)
		return NULL;
	a->ptr = p + n;
	a->left = a->next_size - n;
	if (a->next_size < a->block_size)
		a->next_size = a->next_size * 2 < a->block_size ? a->next_size * 2 : a->block_size;
	return p;
}

void *
cf_arena_dup(cf_arena *a, const void *p, size_t n)
{
	void	   *q = cf_arena_alloc(a, n);

	if (q != NULL && n > 0)
		memcpy(q, p, n);
	return q;
}

char *
cf_arena_strndup(cf_arena *a, const char *p, size_t n)
{
	char	   *s = cf_arena_alloc(a, n + 1);

	if (s == NULL)
		return NULL;
	if (n > 0)					/* p may be NULL when n is 0 (an empty slice) */
		memcpy(s, p, n);
	s[n] = '\0';
	return s;
}

void *
cf_arena_grow(cf_arena *a, void *arr, size_t n, size_t *cap, size_t elem)
{
	size_t		nc;
	void	   *na;

	if (n < *cap)
		return arr;
	nc = *cap ? *cap * 2 : 8;
	if (nc < *cap || nc > SIZE_MAX / elem)
		return NULL;
	if ((na = cf_arena_alloc(a, nc * elem)) == NULL)
		return NULL;
	if (n > 0)
		memcpy(na, arr, n * elem);
	*cap = nc;
	return na;
}

size_t
cf_arena_memory_usage(const cf_arena *a)
{
	return __atomic_load_n(&a->usage, __ATOMIC_RELAXED);
}

void
cf_arena_free(cf_arena *a)
{
	arena_block *b;

	if (a == NULL)
		return;
	b = a->blocks;
	while (b != NULL)
	{
		arena_block *next = b->next;

		free(b);
		b = next;
	}
	free(a);
}
