/*
 * tests/unit/test_cache.c — util/cache: hits and misses, capacity and LRU eviction,
 * pinned entries, duplicates, erase by id, capacity 0 and changes, detached handles,
 * and many threads at once (run under ASan by unit-asan: a value freed while a handle
 * is on it would be a use after free there).
 */
#include "support/cmocka_prelude.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "util/cache.h"

#define MAGIC 0x5ca1ab1e5ca1ab1eULL

/* A value that knows its key, so a lookup can check it got the right one. */
typedef struct val
{
	uint64_t	id;
	uint64_t	off;
	uint64_t	magic;
} val;

static uint64_t created,
			deleted;			/* atomic: the concurrent test counts too */

static void
val_delete(void *p)
{
	val		   *v = p;

	if (v->magic != MAGIC)
		abort();				/* deleted twice, or not a value: no cmocka off the main thread */
	v->magic = 0;				/* a later read through a stale handle would see it */
	free(v);
	__atomic_add_fetch(&deleted, 1, __ATOMIC_RELAXED);
}

static val *
val_new(uint64_t id, uint64_t off)
{
	val		   *v = malloc(sizeof(*v));

	if (v == NULL)
		abort();
	v->id = id;
	v->off = off;
	v->magic = MAGIC;
	__atomic_add_fetch(&created, 1, __ATOMIC_RELAXED);
	return v;
}

static void
check_val(const cf_cache_handle *h, uint64_t id, uint64_t off)
{
	const val  *v = cf_cache_value(h);

	assert_int_equal(v->magic, MAGIC);
	assert_int_equal(v->id, id);
	assert_int_equal(v->off, off);
}

static int
reset_counts(void **state)
{
	(void) state;
	created = deleted = 0;
	return 0;
}

static void
insert_lookup_release(void **state)
{
	cf_cache   *c = cf_cache_new(1 << 20);
	uint64_t	id = cf_cache_new_id();
	cf_cache_handle *h;
	cf_cache_stats st;

	(void) state;
	assert_non_null(c);
	assert_null(cf_cache_lookup(c, id, 0));
	h = cf_cache_insert(c, id, 0, val_new(id, 0), 100, val_delete);
	assert_non_null(h);
	check_val(h, id, 0);
	cf_cache_release(h);
	assert_int_equal(deleted, 0);	/* still cached */
	h = cf_cache_lookup(c, id, 0);
	assert_non_null(h);
	check_val(h, id, 0);
	assert_null(cf_cache_lookup(c, id, 1));
	assert_null(cf_cache_lookup(c, id + 1, 0));
	cf_cache_release(h);
	cf_cache_release(NULL);
	cf_cache_get_stats(c, &st);
	assert_int_equal(st.capacity, 1 << 20);
	assert_int_equal(st.usage, 100);
	assert_int_equal(st.entries, 1);
	assert_int_equal(st.hits, 1);
	assert_int_equal(st.misses, 3);
	assert_int_equal(st.inserts, 1);
	cf_cache_unref(c);
	assert_int_equal(deleted, 1);	/* the last unref frees what is cached */
}

static void
ids_are_unique(void **state)
{
	uint64_t	prev = cf_cache_new_id();

	(void) state;
	assert_true(prev != 0);
	for (int i = 0; i < 1000; i++)
	{
		uint64_t	id = cf_cache_new_id();

		assert_true(id > prev);
		prev = id;
	}
}

/*
 * Usage stays at or below the capacity, entries are evicted oldest first, and an
 * entry looked up between inserts is never the oldest, so it survives a flood.
 */
static void
capacity_and_lru(void **state)
{
	enum { CAP = 16 * 10, N = 20000 };
	cf_cache   *c = cf_cache_new(CAP);
	uint64_t	id = cf_cache_new_id();
	cf_cache_stats st;
	int			survivors = 0;

	(void) state;
	cf_cache_release(cf_cache_insert(c, id, 999999, val_new(id, 999999), 1, val_delete));
	for (uint64_t i = 0; i < N; i++)
	{
		cf_cache_handle *h = cf_cache_insert(c, id, i, val_new(id, i), 1, val_delete);

		cf_cache_release(h);
		h = cf_cache_lookup(c, id, 999999);
		assert_non_null(h);		/* kept young: never evicted */
		check_val(h, id, 999999);
		cf_cache_release(h);
		cf_cache_get_stats(c, &st);
		assert_true(st.usage <= CAP);
		assert_int_equal(st.usage, st.entries);
	}
	cf_cache_get_stats(c, &st);
	assert_int_equal(st.inserts, N + 1);
	assert_int_equal(st.evictions, N + 1 - st.entries);
	assert_int_equal(deleted, st.evictions);
	/* the newest entries are the ones left: none of the first half survives */
	for (uint64_t i = 0; i < N; i++)
	{
		cf_cache_handle *h = cf_cache_lookup(c, id, i);

		if (h == NULL)
			continue;
		survivors++;
		assert_true(i >= N / 2);
		check_val(h, id, i);
		cf_cache_release(h);
	}
	assert_int_equal(survivors + 1, (int) st.entries);
	cf_cache_unref(c);
	assert_int_equal(deleted, created);
}

/* A pinned entry is never freed; it leaves the cache only when unpinned and old. */
static void
pinned_entries_stay(void **state)
{
	cf_cache   *c = cf_cache_new(16 * 4);
	uint64_t	id = cf_cache_new_id();
	cf_cache_handle *pin = cf_cache_insert(c, id, 7, val_new(id, 7), 4, val_delete);
	cf_cache_handle *pin2;
	cf_cache_stats st;

	(void) state;
	pin2 = cf_cache_dup(pin);
	for (uint64_t i = 100; i < 5000; i++)
		cf_cache_release(cf_cache_insert(c, id, i, val_new(id, i), 4, val_delete));
	check_val(pin, id, 7);
	cf_cache_release(pin);
	check_val(pin2, id, 7);		/* the duplicate still pins it */
	{
		cf_cache_handle *h = cf_cache_lookup(c, id, 7);

		assert_non_null(h);		/* pinned entries are not evicted */
		cf_cache_release(h);
	}
	cf_cache_release(pin2);
	for (uint64_t i = 5000; i < 10000; i++)
		cf_cache_release(cf_cache_insert(c, id, i, val_new(id, i), 4, val_delete));
	assert_null(cf_cache_lookup(c, id, 7));
	cf_cache_get_stats(c, &st);
	assert_true(st.usage <= 16 * 4);
	assert_int_equal(deleted, created - st.entries);
	cf_cache_unref(c);
	assert_int_equal(deleted, created);
}

/* One entry bigger than a shard's whole share: cached while pinned, gone after. */
static void
oversized_entry(void **state)
{
	cf_cache   *c = cf_cache_new(1600);
	uint64_t	id = cf_cache_new_id();
	cf_cache_handle *h = cf_cache_insert(c, id, 1, val_new(id, 1), 1 << 20, val_delete);
	cf_cache_stats st;

	(void) state;
	cf_cache_get_stats(c, &st);
	assert_int_equal(st.usage, 1 << 20);	/* over, while pinned */
	check_val(h, id, 1);
	cf_cache_release(h);
	cf_cache_get_stats(c, &st);
	assert_int_equal(st.usage, 0);
	assert_int_equal(deleted, 1);
	cf_cache_unref(c);
}

/* Inserting a cached key keeps the cached value and deletes the new one. */
static void
duplicate_insert_keeps_the_first(void **state)
{
	cf_cache   *c = cf_cache_new(1 << 20);
	uint64_t	id = cf_cache_new_id();
	cf_cache_handle *a = cf_cache_insert(c, id, 5, val_new(id, 5), 10, val_delete);
	val		   *second = val_new(id, 5);
	cf_cache_handle *b;
	cf_cache_stats st;

	(void) state;
	b = cf_cache_insert(c, id, 5, second, 10, val_delete);
	assert_int_equal(deleted, 1);	/* second, at once */
	assert_ptr_equal(cf_cache_value(a), cf_cache_value(b));
	cf_cache_get_stats(c, &st);
	assert_int_equal(st.entries, 1);
	assert_int_equal(st.usage, 10);
	assert_int_equal(st.inserts, 1);
	cf_cache_release(a);
	cf_cache_release(b);
	cf_cache_unref(c);
	assert_int_equal(deleted, 2);
}

/* Erasing an id drops its entries (not others'); handles on them stay good. */
static void
erase_id(void **state)
{
	cf_cache   *c = cf_cache_new(1 << 20);
	uint64_t	a = cf_cache_new_id(),
				b = cf_cache_new_id();
	cf_cache_handle *held;
	cf_cache_stats st;

	(void) state;
	for (uint64_t i = 0; i < 500; i++)
	{
		cf_cache_release(cf_cache_insert(c, a, i, val_new(a, i), 1, val_delete));
		cf_cache_release(cf_cache_insert(c, b, i, val_new(b, i), 1, val_delete));
	}
	held = cf_cache_lookup(c, a, 42);
	cf_cache_erase_id(c, a);
	assert_int_equal(deleted, 499);
	check_val(held, a, 42);
	for (uint64_t i = 0; i < 500; i++)
	{
		cf_cache_handle *h = cf_cache_lookup(c, b, i);

		assert_null(cf_cache_lookup(c, a, i));
		assert_non_null(h);
		check_val(h, b, i);
		cf_cache_release(h);
	}
	cf_cache_get_stats(c, &st);
	assert_int_equal(st.entries, 500);
	assert_int_equal(st.usage, 500);
	cf_cache_release(held);
	assert_int_equal(deleted, 500);
	cf_cache_unref(c);
	assert_int_equal(deleted, 1000);
}

/*
 * Many inserts through a small cache, so entries are evicted all the time (each
 * eviction empties a hash-table slot in the middle of others' probe runs) and the
 * tables grow: afterwards exactly the entries the cache counts are found, each with
 * its own value, and an erased id leaves every other entry findable.
 */
static void
evictions_keep_every_cached_entry_findable(void **state)
{
	enum { N = 20000 };
	cf_cache   *c = cf_cache_new(3200);	/* 200 a shard */
	uint64_t	a = cf_cache_new_id(),
				b = cf_cache_new_id();
	cf_cache_stats st;
	size_t		found = 0;

	(void) state;
	for (uint64_t i = 0; i < N; i++)
	{
		uint64_t	off = (i * 7919) % N * 4096;	/* scattered, like block offsets */
		uint64_t	id = i % 3 ? a : b;

		cf_cache_release(cf_cache_insert(c, id, off, val_new(id, off), 1, val_delete));
	}
	cf_cache_get_stats(c, &st);
	assert_true(st.entries > 2000 && st.entries <= 3200);
	assert_int_equal(st.evictions, N - st.entries);
	for (uint64_t i = 0; i < N; i++)
	{
		uint64_t	off = (i * 7919) % N * 4096;
		cf_cache_handle *h = cf_cache_lookup(c, i % 3 ? a : b, off);

		if (h)
		{
			check_val(h, i % 3 ? a : b, off);
			cf_cache_release(h);
			found++;
		}
	}
	assert_int_equal(found, st.entries);
	cf_cache_erase_id(c, b);
	cf_cache_get_stats(c, &st);
	found = 0;
	for (uint64_t i = 0; i < N; i++)
	{
		uint64_t	off = (i * 7919) % N * 4096;
		cf_cache_handle *h = cf_cache_lookup(c, i % 3 ? a : b, off);

		if (h)
		{
			assert_true(i % 3 != 0);
			check_val(h, a, off);
			cf_cache_release(h);
			found++;
		}
	}
	assert_int_equal(found, st.entries);
	cf_cache_unref(c);
}

/* Capacity 0 caches nothing; a capacity set lower evicts; detached handles. */
static void
capacity_zero_and_changes(void **state)
{
	cf_cache   *c = cf_cache_new(0);
	uint64_t	id = cf_cache_new_id();
	cf_cache_handle *h = cf_cache_insert(c, id, 1, val_new(id, 1), 10, val_delete);
	cf_cache_handle *d;
	cf_cache_stats st;

	(void) state;
	check_val(h, id, 1);
	assert_null(cf_cache_lookup(c, id, 1));
	cf_cache_release(h);
	assert_int_equal(deleted, 1);
	cf_cache_set_capacity(c, 1 << 20);
	for (uint64_t i = 0; i < 1000; i++)
		cf_cache_release(cf_cache_insert(c, id, i, val_new(id, i), 100, val_delete));
	cf_cache_get_stats(c, &st);
	assert_int_equal(st.usage, 100000);
	cf_cache_set_capacity(c, 16 * 1000);
	cf_cache_get_stats(c, &st);
	assert_true(st.usage <= 16 * 1000);
	assert_int_equal(deleted, created - st.entries);

	d = cf_cache_detached(val_new(9, 9), val_delete);
	check_val(d, 9, 9);
	assert_ptr_equal(cf_cache_dup(d), d);
	cf_cache_release(d);
	check_val(d, 9, 9);
	cf_cache_release(d);
	cf_cache_unref(c);
	assert_int_equal(deleted, created);
}

/* ---- many threads ---- */

typedef struct worker
{
	cf_cache   *c;
	uint64_t	ids[4];
	unsigned	seed;
	int			bad;			/* wrong values seen (cmocka asserts only on the main thread) */
} worker;

static bool
val_is(const cf_cache_handle *h, uint64_t id, uint64_t off)
{
	const val  *v = cf_cache_value(h);

	return v->magic == MAGIC && v->id == id && v->off == off;
}

static void *
worker_main(void *arg)
{
	worker	   *w = arg;
	cf_cache_handle *held[8] = {0};

	for (int i = 0; i < 100000; i++)
	{
		unsigned	r = (unsigned) rand_r(&w->seed);
		uint64_t	id = w->ids[r % 4],
					off = (r >> 4) % 512;
		cf_cache_handle *h;

		if ((r >> 20) % 1000 == 0)
		{
			cf_cache_erase_id(w->c, id);
			continue;
		}
		if ((h = cf_cache_lookup(w->c, id, off)) == NULL)
			h = cf_cache_insert(w->c, id, off, val_new(id, off), 64 + off % 100, val_delete);
		if (h == NULL)
		{
			w->bad++;
			continue;
		}
		w->bad += !val_is(h, id, off);
		/* keep a few handles across other threads' work, then check them again */
		if (held[r % 8])
		{
			const val  *v = cf_cache_value(held[r % 8]);

			w->bad += v->magic != MAGIC;
			cf_cache_release(held[r % 8]);
		}
		held[r % 8] = h;
	}
	for (int i = 0; i < 8; i++)
		cf_cache_release(held[i]);
	return NULL;
}

static void
many_threads(void **state)
{
	enum { T = 8 };
	cf_cache   *c = cf_cache_new(64 * 1024);	/* ~1000 entries of 2048 keys: evicting */
	pthread_t	th[T];
	worker		w[T];
	uint64_t	ids[4];
	cf_cache_stats st;

	(void) state;
	for (int i = 0; i < 4; i++)
		ids[i] = cf_cache_new_id();
	for (int t = 0; t < T; t++)
	{
		w[t].c = c;
		memcpy(w[t].ids, ids, sizeof(ids));
		w[t].seed = (unsigned) t * 7919u + 1;
		w[t].bad = 0;
		assert_int_equal(pthread_create(&th[t], NULL, worker_main, &w[t]), 0);
	}
	for (int t = 0; t < T; t++)
	{
		pthread_join(th[t], NULL);
		assert_int_equal(w[t].bad, 0);
	}
	cf_cache_get_stats(c, &st);
	assert_true(st.usage <= 64 * 1024);
	assert_true(st.evictions > 0);
	assert_true(st.hits > 0);
	assert_int_equal(created - deleted, st.entries);
	cf_cache_unref(c);
	assert_int_equal(deleted, created);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(insert_lookup_release, reset_counts),
		cmocka_unit_test_setup(ids_are_unique, reset_counts),
		cmocka_unit_test_setup(capacity_and_lru, reset_counts),
		cmocka_unit_test_setup(pinned_entries_stay, reset_counts),
		cmocka_unit_test_setup(oversized_entry, reset_counts),
		cmocka_unit_test_setup(duplicate_insert_keeps_the_first, reset_counts),
		cmocka_unit_test_setup(erase_id, reset_counts),
		cmocka_unit_test_setup(evictions_keep_every_cached_entry_findable, reset_counts),
		cmocka_unit_test_setup(capacity_zero_and_changes, reset_counts),
		cmocka_unit_test_setup(many_threads, reset_counts),
	};

	return cmocka_run_group_tests_name("util/cache", tests, NULL, NULL);
}
