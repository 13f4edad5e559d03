/*
 * tests/unit/test_arena.c — util/arena: alignment, big blocks, usage, dup, strndup,
 * growing arrays, zero sizes.
 */
#include "support/cmocka_prelude.h"

#include <stdlib.h>
#include <string.h>

#include "util/arena.h"

/* A small deterministic generator, so a failure reproduces. */
static uint64_t
next_rand(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static void
odd_sizes_are_aligned_and_disjoint(void **state)
{
	enum { N = 5000 };
	cf_arena   *a = cf_arena_new(4096);
	unsigned char **p = calloc(N, sizeof(*p));
	size_t	   *n = calloc(N, sizeof(*n));
	uint64_t	seed = 42;

	(void) state;
	assert_non_null(a);
	assert_non_null(p);
	assert_non_null(n);
	for (int i = 0; i < N; i++)
	{
		/* Mostly small and odd, now and then past a quarter block. */
		n[i] = next_rand(&seed) % (i % 50 == 0 ? 3000 : 61);
		p[i] = cf_arena_alloc(a, n[i]);
		assert_non_null(p[i]);
		assert_int_equal((uintptr_t) p[i] % (n[i] >= 16 ? 16 : 8), 0);
		memset(p[i], i & 0xff, n[i]);	/* ASan catches writes past a block */
	}
	/* Every allocation still holds its own pattern: no two overlap. */
	for (int i = 0; i < N; i++)
		for (size_t j = 0; j < n[i]; j++)
			assert_int_equal(p[i][j], i & 0xff);
	free(p);
	free(n);
	cf_arena_free(a);
}

static void
big_requests_get_their_own_block(void **state)
{
	cf_arena   *a = cf_arena_new(4096);
	unsigned char *small1;
	unsigned char *big;
	unsigned char *small2;
	size_t		u1;
	size_t		u2;

	(void) state;
	small1 = cf_arena_alloc(a, 10);
	u1 = cf_arena_memory_usage(a);
	big = cf_arena_alloc(a, 2000);	/* > 4096 / 4 */
	u2 = cf_arena_memory_usage(a);
	assert_non_null(big);
	/* Its block is sized for it, not a whole regular block. */
	assert_true(u2 - u1 >= 2000);
	assert_true(u2 - u1 < 4096);
	memset(big, 0xab, 2000);

	/* The current block was left alone: the next small request follows the first. */
	small2 = cf_arena_alloc(a, 10);
	assert_true(small2 > small1 && small2 - small1 < 4096);
	assert_int_equal(cf_arena_memory_usage(a), u2);

	/* A request of exactly a quarter block still comes from regular blocks. */
	assert_non_null(cf_arena_alloc(a, 1024));
	assert_int_equal(cf_arena_memory_usage(a), u2);
	cf_arena_free(a);
}

/*
 * A growing arena: the first block is the small one asked for, each next one twice
 * the last up to the block size; a request bigger than the next block size (but within
 * a quarter block) gets a regular block big enough for it; the quarter-block rule is
 * on the full block size. Every byte handed out stays writable and intact.
 */
static void
growing_blocks_double_up_to_the_block_size(void **state)
{
	cf_arena   *a = cf_arena_new_growing(100, 8192);	/* 100 rounds up to 112 */
	size_t		u0 = cf_arena_memory_usage(a),
				u;
	unsigned char *p[256];
	size_t		grew[16],
				n_grew = 0;

	(void) state;
	p[0] = cf_arena_alloc(a, 8);
	u = cf_arena_memory_usage(a);
	assert_true(u - u0 >= 112 && u - u0 < 112 + 64);	/* one small block and its header */
	/* fill regular blocks and note each new block's size as usage jumps */
	for (int i = 1; i < 256; i++)
	{
		size_t		before = cf_arena_memory_usage(a);

		p[i] = cf_arena_alloc(a, 96);
		assert_non_null(p[i]);
		memset(p[i], i & 0xff, 96);
		if (cf_arena_memory_usage(a) != before && n_grew < 16)
			grew[n_grew++] = cf_arena_memory_usage(a) - before;
	}
	assert_true(n_grew >= 5);
	/* each jump is one block and its header: never smaller, at most doubled */
	for (size_t i = 1; i < n_grew; i++)
		assert_true(grew[i] >= grew[i - 1] && grew[i] < 2 * grew[i - 1]);
	assert_true(grew[1] + 64 > 2 * grew[0]);
	assert_true(grew[n_grew - 1] >= 8192 && grew[n_grew - 1] < 8192 + 64);
	for (int i = 1; i < 256; i++)
		for (int k = 0; k < 96; k++)
			assert_int_equal(p[i][k], i & 0xff);
	cf_arena_free(a);

	/* a request bigger than the small next block still comes from a regular block */
	a = cf_arena_new_growing(64, 8192);
	u0 = cf_arena_memory_usage(a);
	assert_non_null(cf_arena_alloc(a, 2048));	/* exactly a quarter block */
	u = cf_arena_memory_usage(a);
	assert_true(u - u0 >= 2048 && u - u0 < 2048 + 64);
	assert_non_null(cf_arena_alloc(a, 2049));	/* past it: its own block */
	assert_true(cf_arena_memory_usage(a) - u >= 2049);
	cf_arena_free(a);

	/* first_block 0 or above the block size: a plain arena */
	a = cf_arena_new_growing(0, 4096);
	u0 = cf_arena_memory_usage(a);
	assert_non_null(cf_arena_alloc(a, 1));
	assert_true(cf_arena_memory_usage(a) - u0 >= 4096);
	cf_arena_free(a);
	a = cf_arena_new_growing(1 << 20, 4096);
	u0 = cf_arena_memory_usage(a);
	assert_non_null(cf_arena_alloc(a, 1));
	u = cf_arena_memory_usage(a) - u0;
	assert_true(u >= 4096 && u < 4096 + 64);
	cf_arena_free(a);
}

static void
usage_grows_and_covers_requests(void **state)
{
	cf_arena   *a = cf_arena_new(0);
	size_t		asked = 0;
	size_t		last = cf_arena_memory_usage(a);
	uint64_t	seed = 7;

	(void) state;
	assert_true(last > 0);
	/* The default block is 64 KiB: the first allocation takes one. */
	assert_non_null(cf_arena_alloc(a, 1));
	asked = 1;
	assert_true(cf_arena_memory_usage(a) >= last + 64 * 1024);
	for (int i = 0; i < 20000; i++)
	{
		size_t		n = next_rand(&seed) % (i % 100 == 0 ? 100000 : 300);
		size_t		u;

		assert_non_null(cf_arena_alloc(a, n));
		asked += n;
		u = cf_arena_memory_usage(a);
		assert_true(u >= last);
		assert_true(u >= asked);
		last = u;
	}
	cf_arena_free(a);
}

static void
dup_copies(void **state)
{
	cf_arena   *a = cf_arena_new(128);
	static const char text[] = "columns are always sorted by their comparator";
	char	   *c;

	(void) state;
	c = cf_arena_dup(a, text, sizeof(text));
	assert_non_null(c);
	assert_ptr_not_equal(c, text);
	assert_string_equal(c, text);
	/* Bigger than a quarter of this small block: a dedicated block, same copy. */
	assert_memory_equal(cf_arena_dup(a, text, sizeof(text)), text, sizeof(text));
	assert_non_null(cf_arena_dup(a, NULL, 0));
	cf_arena_free(a);
}

static int
cmp_ptr(const void *x, const void *y)
{
	uintptr_t	a = (uintptr_t) *(void *const *) x;
	uintptr_t	b = (uintptr_t) *(void *const *) y;

	return (a > b) - (a < b);
}

static void
zero_size_pointers_are_unique(void **state)
{
	enum { N = 1000 };
	cf_arena   *a = cf_arena_new(256);
	void	   *p[N];

	(void) state;
	for (int i = 0; i < N; i++)
	{
		p[i] = cf_arena_alloc(a, 0);
		assert_non_null(p[i]);
		assert_int_equal((uintptr_t) p[i] % 8, 0);
	}
	qsort(p, N, sizeof(p[0]), cmp_ptr);
	for (int i = 1; i < N; i++)
		assert_ptr_not_equal(p[i - 1], p[i]);
	cf_arena_free(a);
}

static void
strndup_terminates(void **state)
{
	cf_arena   *a = cf_arena_new(4096);
	char	   *s;

	(void) state;
	s = cf_arena_strndup(a, "hello, world", 5);
	assert_string_equal(s, "hello");
	s = cf_arena_strndup(a, "", 0);
	assert_string_equal(s, "");
	s = cf_arena_strndup(a, NULL, 0);	/* an empty slice's pointer may be NULL */
	assert_string_equal(s, "");
	cf_arena_free(a);
}

static void
grow_doubles_and_keeps_elements(void **state)
{
	cf_arena   *a = cf_arena_new(4096);
	int		   *arr = NULL;
	int		   *na;
	size_t		n = 0,
				cap = 0;

	(void) state;
	for (int i = 0; i < 100; i++)
	{
		na = cf_arena_grow(a, arr, n, &cap, sizeof(int));
		assert_non_null(na);
		if (n < 8 && arr != NULL)
			assert_ptr_equal(na, arr);	/* room left: the same array */
		arr = na;
		arr[n++] = i;
		assert_true(n <= cap);
	}
	assert_int_equal(cap, 128);
	for (int i = 0; i < 100; i++)
		assert_int_equal(arr[i], i);
	/* a size that cannot be allocated fails without touching cap */
	cap = n = SIZE_MAX / 2;
	assert_null(cf_arena_grow(a, arr, n, &cap, sizeof(int)));
	assert_int_equal(cap, SIZE_MAX / 2);
	cf_arena_free(a);
}

static void
impossible_request_fails_cleanly(void **state)
{
	cf_arena   *a = cf_arena_new(4096);
	size_t		u = cf_arena_memory_usage(a);

	(void) state;
	assert_null(cf_arena_alloc(a, SIZE_MAX));
	assert_null(cf_arena_alloc(a, SIZE_MAX - 8));
	assert_int_equal(cf_arena_memory_usage(a), u);
	/* Still usable afterwards. */
	assert_non_null(cf_arena_alloc(a, 32));
	cf_arena_free(a);
	cf_arena_free(NULL);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(odd_sizes_are_aligned_and_disjoint),
		cmocka_unit_test(big_requests_get_their_own_block),
		cmocka_unit_test(usage_grows_and_covers_requests),
		cmocka_unit_test(growing_blocks_double_up_to_the_block_size),
		cmocka_unit_test(dup_copies),
		cmocka_unit_test(strndup_terminates),
		cmocka_unit_test(grow_doubles_and_keeps_elements),
		cmocka_unit_test(zero_size_pointers_are_unique),
		cmocka_unit_test(impossible_request_fails_cleanly),
	};

	return cmocka_run_group_tests_name("util/arena", tests, NULL, NULL);
}
