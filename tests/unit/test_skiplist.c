/*
 * tests/unit/test_skiplist.c — storage/skiplist: order, iteration both ways, seeks,
 * find, a compare with a context, a prefix that spares compares, and one writer racing
 * two lock-free readers.
 *
 * Keys are uint64 values copied into the arena; the model is a sorted array. Keys are
 * even so that key ± 1 is always a probe between (or beyond) stored keys.
 */
#include "support/cmocka_prelude.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "storage/skiplist.h"
#include "util/arena.h"

typedef struct order
{
	int			sign;			/* 1: ascending, -1: descending */
	unsigned long compares;		/* counted by the compare function */
} order;

static int
cmp_u64(void *ctx, const void *a, const void *b)
{
	order	   *o = ctx;
	uint64_t	x = *(const uint64_t *) a;
	uint64_t	y = *(const uint64_t *) b;

	o->compares++;
	return o->sign * ((x > y) - (x < y));
}

/* A compare without side effects, for the threaded test. */
static int
cmp_u64_plain(void *ctx, const void *a, const void *b)
{
	uint64_t	x = *(const uint64_t *) a;
	uint64_t	y = *(const uint64_t *) b;

	(void) ctx;
	return (x > y) - (x < y);
}

static int
qsort_u64(const void *a, const void *b)
{
	return cmp_u64_plain(NULL, a, b);
}

static uint64_t
next_rand(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* An even key in [2, UINT64_MAX - 3], so both neighbours and both ends stay free. */
static uint64_t
random_key(uint64_t *s)
{
	uint64_t	k = next_rand(s) & ~(uint64_t) 1;

	if (k < 2)
		k = 2;
	if (k > UINT64_MAX - 3)
		k = UINT64_MAX - 3;
	return k;
}

/* The key at a valid iterator (reader threads only call it when valid). */
static uint64_t
key_of(const cf_skiplist_iter *it)
{
	assert_true(cf_skiplist_iter_valid(it));
	return *(const uint64_t *) cf_skiplist_iter_key(it);
}

/*
 * Inserts up to n distinct random keys (copies in the arena) and returns them sorted
 * in *sorted (malloc'd); returns how many.
 */
static size_t
fill(cf_skiplist *list, cf_arena *arena, size_t n, uint64_t seed, uint64_t **sorted)
{
	uint64_t   *keys = malloc(n * sizeof(uint64_t));
	size_t		count = 0;

	assert_non_null(keys);
	for (size_t i = 0; i < n; i++)
	{
		uint64_t	k = random_key(&seed);
		uint64_t   *stored;

		if (cf_skiplist_find(list, &k) != NULL)
			continue;
		stored = cf_arena_dup(arena, &k, sizeof(k));
		assert_non_null(stored);
		assert_true(cf_skiplist_insert(list, stored));
		keys[count++] = k;
	}
	qsort(keys, count, sizeof(uint64_t), qsort_u64);
	*sorted = keys;
	return count;
}

/*
 * A full forward scan of list yields exactly the n ascending keys, in reverse when
 * descending is set.
 */
static void
assert_scan_is(const cf_skiplist *list, const uint64_t *keys, size_t n, bool descending)
{
	cf_skiplist_iter it;
	size_t		i = 0;

	cf_skiplist_iter_init(&it, list);
	for (cf_skiplist_iter_seek_first(&it); cf_skiplist_iter_valid(&it);
		 cf_skiplist_iter_next(&it))
	{
		assert_true(i < n);
		assert_true(key_of(&it) == keys[descending ? n - 1 - i : i]);
		i++;
	}
	assert_int_equal(i, n);
}

/* Each test's list, its arena and its sorted model (keys may stay NULL). */
typedef struct fixture
{
	order		o;
	cf_arena   *arena;
	cf_skiplist *list;
	cf_skiplist_iter it;
	uint64_t   *keys;
	size_t		n;
} fixture;

static int
setup_with_sign(void **state, int sign)
{
	fixture    *f = calloc(1, sizeof(fixture));

	if (f == NULL)
		return -1;
	f->o.sign = sign;
	f->arena = cf_arena_new(0);
	f->list = f->arena ? cf_skiplist_new(f->arena, cmp_u64, &f->o) : NULL;
	if (f->list == NULL)
		return -1;
	cf_skiplist_iter_init(&f->it, f->list);
	*state = f;
	return 0;
}

static int
setup_ascending(void **state)
{
	return setup_with_sign(state, 1);
}

static int
setup_descending(void **state)
{
	return setup_with_sign(state, -1);
}

static int
teardown(void **state)
{
	fixture    *f = *state;

	free(f->keys);
	cf_arena_free(f->arena);
	free(f);
	return 0;
}

/* make() for find_or_insert: a copy of the probe in the arena, counted; or a failure. */
typedef struct maker
{
	cf_arena   *arena;
	uint64_t	value;
	int			calls;
	bool		fail;
} maker;

static const void *
make_key(void *arg)
{
	maker	   *m = arg;

	m->calls++;
	return m->fail ? NULL : cf_arena_dup(m->arena, &m->value, sizeof(m->value));
}

static void
find_or_insert_searches_once(void **state)
{
	fixture    *f = *state;
	uint64_t	keys[] = {50, 10, 30, 10, 50, 40};
	uint64_t	want[] = {10, 30, 40, 50};
	const void *first10 = NULL;
	bool		inserted;

	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
	{
		maker		m = {f->arena, keys[i], 0, false};
		const void *got = cf_skiplist_find_or_insert(f->list, &keys[i], make_key, &m,
													 &inserted);

		assert_non_null(got);
		assert_int_equal(*(const uint64_t *) got, keys[i]);
		/* built only when absent, and the stored key returned when present */
		assert_int_equal(m.calls, inserted ? 1 : 0);
		if (keys[i] == 10 && first10 == NULL)
			first10 = got;
		else if (keys[i] == 10)
			assert_ptr_equal(got, first10);
	}
	assert_int_equal(cf_skiplist_count(f->list), 4);
	assert_scan_is(f->list, want, 4, false);

	/* a failed make leaves the list as it was */
	{
		uint64_t	k = 20;
		maker		m = {f->arena, k, 0, true};

		assert_null(cf_skiplist_find_or_insert(f->list, &k, make_key, &m, &inserted));
		assert_false(inserted);
		assert_int_equal(cf_skiplist_count(f->list), 4);
		assert_null(cf_skiplist_find(f->list, &k));
	}
}

/*
 * Writes from a hint: groups of keys inserted after a seek to the group's base, as a
 * memtable inserts a row's cells, match a sorted model, whatever the groups' order,
 * and a search from the hint costs compares among the group, not among the list.
 */
static void
insert_from_hint(void **state)
{
	fixture    *f = *state;
	enum { GROUPS = 2000, PER = 5 };
	uint64_t   *model = malloc(GROUPS * PER * sizeof(uint64_t));
	size_t		n = 0;
	uint64_t	seed = 99;
	unsigned long before,
				hinted = 0;

	assert_non_null(model);
	for (int g = 0; g < GROUPS; g++)
	{
		uint64_t	base = (random_key(&seed) >> 8) << 8;	/* room for the group above it */
		cf_skiplist_hint hint;
		const void *ge = cf_skiplist_seek_hint(f->list, &base, &hint);
		bool		dup = false;

		/* the seek is an iterator seek's answer */
		cf_skiplist_iter_seek(&f->it, &base);
		assert_ptr_equal(ge, cf_skiplist_iter_valid(&f->it) ? cf_skiplist_iter_key(&f->it) : NULL);
		for (size_t i = 0; i < n; i++)
			dup |= model[i] >> 8 == base >> 8;
		if (dup)
			continue;
		/* out of order within the group: a hint holds for any key >= its own */
		for (int k = PER; k >= 1; k--)
		{
			uint64_t	key = base + 2 * (uint64_t) ((k * 3) % PER + 1);
			maker		m = {f->arena, key, 0, false};
			bool		inserted;
			const void *got;

			before = f->o.compares;
			got = cf_skiplist_find_or_insert_hint(f->list, &hint, &key, make_key, &m, &inserted);
			hinted += f->o.compares - before;
			assert_non_null(got);
			assert_true(inserted);
			assert_int_equal(*(const uint64_t *) got, key);
			model[n++] = key;
			/* present now: found, not built again */
			got = cf_skiplist_find_or_insert_hint(f->list, &hint, &key, make_key, &m, &inserted);
			assert_false(inserted);
			assert_int_equal(m.calls, 1);
		}
	}
	qsort(model, n, sizeof(uint64_t), qsort_u64);
	assert_int_equal(cf_skiplist_count(f->list), n);
	assert_scan_is(f->list, model, n, false);
	/* about a dozen levels' worth per insert, not a search of ~10,000 keys each */
	assert_true(hinted / n < 40);
	free(model);
}

static void
empty_list(void **state)
{
	fixture    *f = *state;
	uint64_t	probe = 5;

	assert_int_equal(cf_skiplist_count(f->list), 0);
	assert_null(cf_skiplist_find(f->list, &probe));
	assert_false(cf_skiplist_iter_valid(&f->it));
	cf_skiplist_iter_seek_first(&f->it);
	assert_false(cf_skiplist_iter_valid(&f->it));
	cf_skiplist_iter_seek_last(&f->it);
	assert_false(cf_skiplist_iter_valid(&f->it));
	cf_skiplist_iter_seek(&f->it, &probe);
	assert_false(cf_skiplist_iter_valid(&f->it));
	cf_skiplist_iter_seek_le(&f->it, &probe);
	assert_false(cf_skiplist_iter_valid(&f->it));
}

static void
single_key(void **state)
{
	fixture    *f = *state;
	cf_skiplist_iter *it = &f->it;
	uint64_t	k = 10;
	uint64_t	lo = 9;
	uint64_t	hi = 11;

	assert_true(cf_skiplist_insert(f->list, &k));
	assert_int_equal(cf_skiplist_count(f->list), 1);
	cf_skiplist_iter_seek_first(it);
	assert_ptr_equal(cf_skiplist_iter_key(it), &k);
	cf_skiplist_iter_next(it);
	assert_false(cf_skiplist_iter_valid(it));
	cf_skiplist_iter_seek_last(it);
	assert_ptr_equal(cf_skiplist_iter_key(it), &k);
	cf_skiplist_iter_prev(it);
	assert_false(cf_skiplist_iter_valid(it));
	cf_skiplist_iter_seek(it, &hi);
	assert_false(cf_skiplist_iter_valid(it));
	cf_skiplist_iter_seek_le(it, &lo);
	assert_false(cf_skiplist_iter_valid(it));
	cf_skiplist_iter_seek(it, &lo);
	assert_ptr_equal(cf_skiplist_iter_key(it), &k);
	cf_skiplist_iter_seek_le(it, &hi);
	assert_ptr_equal(cf_skiplist_iter_key(it), &k);
}

static void
matches_sorted_model(void **state)
{
	fixture    *f = *state;
	cf_skiplist_iter *it = &f->it;
	const uint64_t *keys;
	size_t		n;
	size_t		i;
	uint64_t	probe;

	n = f->n = fill(f->list, f->arena, 5000, 0x1234567, &f->keys);
	keys = f->keys;
	assert_true(n > 4900);
	assert_int_equal(cf_skiplist_count(f->list), n);

	assert_scan_is(f->list, keys, n, false);

	/* Backward. */
	i = n;
	for (cf_skiplist_iter_seek_last(it); cf_skiplist_iter_valid(it);
		 cf_skiplist_iter_prev(it))
	{
		assert_true(i > 0);
		i--;
		assert_true(key_of(it) == keys[i]);
	}
	assert_int_equal(i, 0);

	for (i = 0; i < n; i++)
	{
		const uint64_t *found;

		/* At the key: find returns the stored copy, not the probe. */
		probe = keys[i];
		found = cf_skiplist_find(f->list, &probe);
		assert_non_null(found);
		assert_ptr_not_equal(found, &probe);
		assert_true(*found == keys[i]);
		cf_skiplist_iter_seek(it, &probe);
		assert_ptr_equal(cf_skiplist_iter_key(it), found);
		cf_skiplist_iter_seek_le(it, &probe);
		assert_ptr_equal(cf_skiplist_iter_key(it), found);

		/* Just after the key: absent; seek goes on, seek_le comes back. */
		probe = keys[i] + 1;
		assert_null(cf_skiplist_find(f->list, &probe));
		cf_skiplist_iter_seek(it, &probe);
		if (i + 1 < n)
			assert_true(key_of(it) == keys[i + 1]);
		else
			assert_false(cf_skiplist_iter_valid(it));
		cf_skiplist_iter_seek_le(it, &probe);
		assert_true(key_of(it) == keys[i]);

		/* Just before the key. */
		probe = keys[i] - 1;
		assert_null(cf_skiplist_find(f->list, &probe));
		cf_skiplist_iter_seek(it, &probe);
		assert_true(key_of(it) == keys[i]);
		cf_skiplist_iter_seek_le(it, &probe);
		if (i > 0)
			assert_true(key_of(it) == keys[i - 1]);
		else
			assert_false(cf_skiplist_iter_valid(it));
	}

	/* Beyond both ends. */
	probe = 0;
	cf_skiplist_iter_seek(it, &probe);
	assert_true(key_of(it) == keys[0]);
	cf_skiplist_iter_seek_le(it, &probe);
	assert_false(cf_skiplist_iter_valid(it));
	probe = UINT64_MAX;
	cf_skiplist_iter_seek(it, &probe);
	assert_false(cf_skiplist_iter_valid(it));
	cf_skiplist_iter_seek_le(it, &probe);
	assert_true(key_of(it) == keys[n - 1]);

	/* An iterator is a value: a copy moves on its own. */
	{
		cf_skiplist_iter copy;

		cf_skiplist_iter_seek_first(it);
		copy = *it;
		cf_skiplist_iter_next(&copy);
		assert_true(key_of(it) == keys[0]);
		assert_true(key_of(&copy) == keys[1]);
	}
}

static void
context_compare_is_honoured(void **state)
{
	fixture    *f = *state;
	cf_skiplist_iter *it = &f->it;
	size_t		mid;
	uint64_t	probe;

	f->n = fill(f->list, f->arena, 1000, 99, &f->keys);
	assert_true(f->o.compares > 0);

	/* Descending order: forward iteration walks the sorted model from its end. */
	assert_scan_is(f->list, f->keys, f->n, true);

	/* "First key >= probe" in list order is the next smaller number. */
	mid = f->n / 2;
	probe = f->keys[mid] + 1;
	cf_skiplist_iter_seek(it, &probe);
	assert_true(key_of(it) == f->keys[mid]);
	cf_skiplist_iter_seek_le(it, &probe);
	assert_true(key_of(it) == f->keys[mid + 1]);
	cf_skiplist_iter_prev(it);
	assert_true(key_of(it) == f->keys[mid + 2]);
}

static void
searches_are_logarithmic(void **state)
{
	fixture    *f = *state;
	unsigned long before;

	f->n = fill(f->list, f->arena, 100000, 5, &f->keys);
	assert_int_equal(cf_skiplist_count(f->list), f->n);

	/*
	 * Expected ~ (branching * log_4 n) compares; a linear scan of level 0 would take
	 * tens of thousands. The bound is loose so that no seed makes it flaky.
	 */
	before = f->o.compares;
	for (size_t i = 0; i < f->n; i += 1000)
	{
		assert_non_null(cf_skiplist_find(f->list, &f->keys[i]));
		cf_skiplist_iter_seek_le(&f->it, &f->keys[i]);
		cf_skiplist_iter_prev(&f->it);
	}
	assert_true((f->o.compares - before) / (3 * (f->n / 1000)) < 200);
}

/* --- one writer, two readers --------------------------------------------------- */

#define RACE_KEYS 200000
#define RACE_SECONDS 4.0
#define RACE_SEEN 4096

typedef struct race
{
	cf_skiplist *list;
	cf_arena   *arena;
	uint64_t   *keys;			/* the writer's input, RACE_KEYS of them */
	size_t		inserted;		/* atomic: how many the writer has done */
	int			done;			/* atomic: the writer has finished */
	double		deadline;
} race;

typedef struct reader
{
	race	   *r;
	uint64_t	seed;
	unsigned long passes;
	unsigned long checks;
	const char *failure;		/* the first broken invariant, or NULL */
	uint64_t	seen[RACE_SEEN];	/* keys seen once, which must stay findable */
	size_t		nseen;
} reader;

static double
now_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void *
writer_main(void *arg)
{
	race	   *r = arg;

	for (size_t i = 0; i < RACE_KEYS; i++)
	{
		uint64_t   *stored;

		if ((i & 1023) == 0 && now_seconds() > r->deadline)
			break;
		stored = cf_arena_dup(r->arena, &r->keys[i], sizeof(uint64_t));
		if (stored == NULL || !cf_skiplist_insert(r->list, stored))
			break;
		__atomic_store_n(&r->inserted, i + 1, __ATOMIC_RELEASE);
	}
	__atomic_store_n(&r->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

#define CHECK(rd, cond, what) \
	do { \
		(rd)->checks++; \
		if (!(cond)) \
		{ \
			(rd)->failure = (what); \
			return; \
		} \
	} while (0)

/* One full pass: forward scan, seeks around random probes, a few steps back. */
static void
reader_pass(reader *rd)
{
	const cf_skiplist *list = rd->r->list;
	cf_skiplist_iter it;
	size_t		before = cf_skiplist_count(list);
	size_t		visited = 0;
	uint64_t	last = 0;
	size_t		stride = (size_t) (next_rand(&rd->seed) % 97) + 1;

	cf_skiplist_iter_init(&it, list);
	for (cf_skiplist_iter_seek_first(&it); cf_skiplist_iter_valid(&it);
		 cf_skiplist_iter_next(&it))
	{
		uint64_t	k = key_of(&it);

		CHECK(rd, visited == 0 || k > last, "forward scan not strictly increasing");
		last = k;
		if (visited % stride == 0 && rd->nseen < RACE_SEEN)
			rd->seen[rd->nseen++] = k;
		visited++;
	}
	CHECK(rd, visited >= before, "scan saw fewer keys than the count promised");

	for (size_t i = 0; i < rd->nseen; i++)
		CHECK(rd, cf_skiplist_find(list, &rd->seen[i]) != NULL,
			  "a key seen once is no longer found");

	for (int j = 0; j < 200; j++)
	{
		uint64_t	probe = next_rand(&rd->seed);
		uint64_t	k;

		cf_skiplist_iter_seek(&it, &probe);
		if (cf_skiplist_iter_valid(&it))
		{
			k = key_of(&it);
			CHECK(rd, k >= probe, "seek landed before its target");
			/* Not "< probe": the writer may have put a key in [probe, k) since. */
			cf_skiplist_iter_prev(&it);
			CHECK(rd, !cf_skiplist_iter_valid(&it) || key_of(&it) < k,
				  "prev after seek did not go back");
		}

		cf_skiplist_iter_seek_le(&it, &probe);
		if (!cf_skiplist_iter_valid(&it))
			continue;
		k = key_of(&it);
		CHECK(rd, k <= probe, "seek_le landed after its target");
		for (int step = 0; step < 8 && cf_skiplist_iter_valid(&it); step++)
		{
			cf_skiplist_iter_prev(&it);
			CHECK(rd, !cf_skiplist_iter_valid(&it) || key_of(&it) < k,
				  "backward steps not strictly decreasing");
			if (cf_skiplist_iter_valid(&it))
				k = key_of(&it);
		}
	}
}

static void *
reader_main(void *arg)
{
	reader	   *rd = arg;

	/* One more pass after the writer is done, so the final list is checked too. */
	for (;;)
	{
		int			done = __atomic_load_n(&rd->r->done, __ATOMIC_ACQUIRE);

		reader_pass(rd);
		rd->passes++;
		if (rd->failure != NULL || done)
			break;
	}
	return NULL;
}

static void
one_writer_two_readers(void **state)
{
	race		r;
	reader	   *rd = calloc(2, sizeof(reader));
	pthread_t	w;
	pthread_t	t[2];
	uint64_t	seed = 0xC0FFEE;
	uint64_t   *sorted;
	size_t		n;
	size_t		i;

	(void) state;
	assert_non_null(rd);
	r.arena = cf_arena_new(0);
	r.list = cf_skiplist_new(r.arena, cmp_u64_plain, NULL);
	r.keys = malloc(RACE_KEYS * sizeof(uint64_t));
	assert_non_null(r.keys);
	/* Distinct keys: random high bits, the index in the low ones. */
	for (i = 0; i < RACE_KEYS; i++)
		r.keys[i] = (next_rand(&seed) << 20) | i;
	r.inserted = 0;
	r.done = 0;
	r.deadline = now_seconds() + RACE_SECONDS;

	for (int j = 0; j < 2; j++)
	{
		rd[j].r = &r;
		rd[j].seed = 1000 + j;
		assert_int_equal(pthread_create(&t[j], NULL, reader_main, &rd[j]), 0);
	}
	assert_int_equal(pthread_create(&w, NULL, writer_main, &r), 0);
	assert_int_equal(pthread_join(w, NULL), 0);
	for (int j = 0; j < 2; j++)
		assert_int_equal(pthread_join(t[j], NULL), 0);

	for (int j = 0; j < 2; j++)
	{
		if (rd[j].failure != NULL)
			fail_msg("reader %d: %s", j, rd[j].failure);
	}
	print_message("    %zu keys inserted; readers made %lu and %lu passes, %lu checks\n",
				  r.inserted, rd[0].passes, rd[1].passes,
				  rd[0].checks + rd[1].checks);

	/* However far the writer got in time, the list is exactly its prefix, sorted. */
	n = r.inserted;
	assert_true(n > 0);
	assert_int_equal(cf_skiplist_count(r.list), n);
	sorted = malloc(n * sizeof(uint64_t));
	assert_non_null(sorted);
	memcpy(sorted, r.keys, n * sizeof(uint64_t));
	qsort(sorted, n, sizeof(uint64_t), qsort_u64);
	assert_scan_is(r.list, sorted, n, false);

	free(sorted);
	free(r.keys);
	free(rd);
	cf_arena_free(r.arena);
}

/* A key's high 32 bits: a coarser ascending order than cmp_u64's. */
static uint64_t
prefix_hi32(void *ctx, const void *key)
{
	(void) ctx;
	return *(const uint64_t *) key >> 32;
}

/*
 * A prefixed list is ordered as the plain one, in every operation, with keys whose
 * prefixes collide often (256 values for 5,000 keys), so both the prefix and cmp
 * decide; and the prefix spares compares: a search calls cmp only among keys of the
 * probe's prefix.
 */
static void
prefix_orders_as_compare(void **state)
{
	fixture    *f = *state;
	order		plain_o = {1, 0};
	cf_arena   *plain_arena = cf_arena_new(0);
	cf_skiplist *plain = plain_arena ? cf_skiplist_new(plain_arena, cmp_u64, &plain_o) : NULL;
	cf_skiplist *list = cf_skiplist_new_prefixed(f->arena, cmp_u64, prefix_hi32, &f->o);
	cf_skiplist_iter it,
				pit;
	uint64_t	seed = 7;
	enum { N = 5000 };

	assert_non_null(plain);
	assert_non_null(list);
	f->keys = malloc(N * sizeof(uint64_t));
	assert_non_null(f->keys);
	for (size_t i = 0; i < N; i++)
	{
		/* 256 prefixes (0x100 .. 0x1ff), about 20 keys each; an even low half */
		uint64_t	k = ((0x100 + (next_rand(&seed) & 255)) << 32) | (random_key(&seed) & 0xFFFFFFFEu);
		uint64_t   *stored;
		maker		m = {f->arena, k, 0, false};
		bool		inserted;

		if (cf_skiplist_find(plain, &k) != NULL)
		{
			/* present: the prefixed list finds it too, and builds nothing */
			assert_non_null(cf_skiplist_find_or_insert(list, &k, make_key, &m, &inserted));
			assert_false(inserted);
			continue;
		}
		assert_null(cf_skiplist_find(list, &k));
		assert_non_null(cf_skiplist_find_or_insert(list, &k, make_key, &m, &inserted));
		assert_true(inserted);
		stored = cf_arena_dup(plain_arena, &k, sizeof(k));
		assert_non_null(stored);
		assert_true(cf_skiplist_insert(plain, stored));
		f->keys[f->n++] = k;
	}
	qsort(f->keys, f->n, sizeof(uint64_t), qsort_u64);
	assert_scan_is(list, f->keys, f->n, false);

	/* seeks and steps agree with the plain list, at keys, between them and beyond */
	cf_skiplist_iter_init(&it, list);
	cf_skiplist_iter_init(&pit, plain);
	for (size_t i = 0; i < f->n; i += 7)
	{
		uint64_t	probes[] = {f->keys[i] - 1, f->keys[i], f->keys[i] + 1,
		(f->keys[i] >> 32) << 32, ((f->keys[i] >> 32) << 32) | 0xFFFFFFFFu};

		for (size_t j = 0; j < sizeof(probes) / sizeof(probes[0]); j++)
		{
			cf_skiplist_iter_seek(&it, &probes[j]);
			cf_skiplist_iter_seek(&pit, &probes[j]);
			assert_int_equal(cf_skiplist_iter_valid(&it), cf_skiplist_iter_valid(&pit));
			if (cf_skiplist_iter_valid(&it))
				assert_true(key_of(&it) == key_of(&pit));
			cf_skiplist_iter_seek_le(&it, &probes[j]);
			cf_skiplist_iter_seek_le(&pit, &probes[j]);
			assert_int_equal(cf_skiplist_iter_valid(&it), cf_skiplist_iter_valid(&pit));
			if (!cf_skiplist_iter_valid(&it))
				continue;
			assert_true(key_of(&it) == key_of(&pit));
			cf_skiplist_iter_prev(&it);
			cf_skiplist_iter_prev(&pit);
			assert_int_equal(cf_skiplist_iter_valid(&it), cf_skiplist_iter_valid(&pit));
			if (cf_skiplist_iter_valid(&it))
				assert_true(key_of(&it) == key_of(&pit));
		}
	}

	/* cmp is called only between keys of one prefix: far fewer calls than plain */
	f->o.compares = plain_o.compares = 0;
	for (size_t i = 0; i < f->n; i++)
	{
		assert_non_null(cf_skiplist_find(list, &f->keys[i]));
		assert_non_null(cf_skiplist_find(plain, &f->keys[i]));
	}
	print_message("finds: %lu compares with the prefix, %lu without\n", f->o.compares,
				  plain_o.compares);
	assert_true(f->o.compares * 2 < plain_o.compares);
	cf_arena_free(plain_arena);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(empty_list, setup_ascending, teardown),
		cmocka_unit_test_setup_teardown(find_or_insert_searches_once, setup_ascending,
										teardown),
		cmocka_unit_test_setup_teardown(single_key, setup_ascending, teardown),
		cmocka_unit_test_setup_teardown(insert_from_hint, setup_ascending, teardown),
		cmocka_unit_test_setup_teardown(matches_sorted_model, setup_ascending, teardown),
		cmocka_unit_test_setup_teardown(context_compare_is_honoured, setup_descending,
										teardown),
		cmocka_unit_test_setup_teardown(searches_are_logarithmic, setup_ascending,
										teardown),
		cmocka_unit_test_setup_teardown(prefix_orders_as_compare, setup_ascending, teardown),
		cmocka_unit_test(one_writer_two_readers),
	};

	return cmocka_run_group_tests_name("storage/skiplist", tests, NULL, NULL);
}
