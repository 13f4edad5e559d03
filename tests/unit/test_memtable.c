/* tests/unit/test_memtable.c — storage/memtable: order, reconciliation, deletions,
 * seeks, concurrent readers, memory against raw data. */
#include "support/cmocka_prelude.h"
#include "support/slices.h"

#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "storage/memtable.h"

static const cf_col_order utf8_order = {false, CF_TYPE_UTF8, CF_TYPE_BYTES};

static void
put(cf_memtable *mt, const char *token, const char *key, const char *sc,
	const char *name, const char *value, int64_t ts, uint8_t flags)
{
	cf_cell		c = {.sc = S(sc), .name = S(name), .value = S(value), .timestamp = ts,
	.flags = flags, .local_time = flags ? 1000 : 0, .ttl = (flags & CF_CELL_EXPIRING) ? 10 : 0};
	cf_cf_update u = {.cf_id = 1, .row_del = cf_deletion_none(), .cells = &c, .n_cells = 1};

	assert_null(cf_memtable_apply(mt, S(token), S(key), &u));
}

/* The entries of the whole memtable as "key/sc:name=value@ts" lines, '#' for headers. */
static char *
dump(cf_memtable *mt)
{
	static char out[8192];
	size_t		n = 0;
	cf_mt_iter	it;

	out[0] = '\0';
	cf_mt_iter_init(&it, mt);
	for (cf_mt_iter_seek_first(&it); cf_mt_iter_valid(&it); cf_mt_iter_next(&it))
	{
		cf_slice	k = cf_mt_iter_key(&it);

		if (cf_mt_iter_is_header(&it))
		{
			cf_deletion d;
			const cf_range_tomb *t;
			size_t		nt;

			cf_mt_iter_deletion(&it, &d, &t, &nt);
			n += snprintf(out + n, sizeof(out) - n, "%.*s#del=%lld,tombs=%zu ",
						  (int) k.len, k.p, (long long) d.timestamp, nt);
		}
		else
		{
			cf_cell		c;

			cf_mt_iter_cell(&it, &c);
			n += snprintf(out + n, sizeof(out) - n, "%.*s/%.*s:%.*s=%.*s@%lld%s ",
						  (int) k.len, k.p, (int) c.sc.len, c.sc.p, (int) c.name.len,
						  c.name.p, (int) c.value.len, c.value.p, (long long) c.timestamp,
						  (c.flags & CF_CELL_DELETED) ? "D" : "");
		}
	}
	return out;
}

static void
rows_by_token_then_key_cells_by_comparator(void **state)
{
	cf_memtable *mt = cf_memtable_new(&utf8_order);

	(void) state;
	put(mt, "t2", "b", "", "z", "1", 1, 0);
	put(mt, "t1", "z", "", "b", "2", 1, 0);
	put(mt, "t2", "a", "", "y", "3", 1, 0);
	put(mt, "t1", "z", "", "a", "4", 1, 0);
	put(mt, "t2", "b", "", "a", "5", 1, 0);
	/* token order first: "t1" rows before "t2" rows, whatever the keys */
	assert_string_equal(dump(mt), "z/:a=4@1 z/:b=2@1 a/:y=3@1 b/:a=5@1 b/:z=1@1 ");
	assert_int_equal(cf_memtable_rows(mt), 3);
	assert_int_equal(cf_memtable_ops(mt), 5);
	cf_memtable_unref(mt);
}

static void
reconciliation(void **state)
{
	cf_memtable *mt = cf_memtable_new(&utf8_order);

	(void) state;
	put(mt, "t", "k", "", "c", "old", 10, 0);
	put(mt, "t", "k", "", "c", "older", 5, 0);	/* loses: lower timestamp */
	assert_string_equal(dump(mt), "k/:c=old@10 ");
	put(mt, "t", "k", "", "c", "new", 20, 0);	/* wins */
	assert_string_equal(dump(mt), "k/:c=new@20 ");
	put(mt, "t", "k", "", "c", "", 20, CF_CELL_DELETED);	/* tie: delete wins */
	assert_string_equal(dump(mt), "k/:c=@20D ");
	put(mt, "t", "k", "", "c", "again", 20, 0);	/* tie: live loses to tombstone */
	assert_string_equal(dump(mt), "k/:c=@20D ");
	put(mt, "t", "k", "", "d", "a", 1, 0);
	put(mt, "t", "k", "", "d", "b", 1, 0);	/* tie between values: greater value */
	put(mt, "t", "k", "", "d", "a", 1, 0);
	assert_string_equal(dump(mt), "k/:c=@20D k/:d=b@1 ");
	cf_memtable_unref(mt);
}

static void
super_columns_are_flattened(void **state)
{
	cf_col_order o = {true, CF_TYPE_UTF8, CF_TYPE_LONG};
	cf_memtable *mt = cf_memtable_new(&o);
	uint8_t		neg[8], pos[8];
	cf_cell		cells[4];
	cf_cf_update u = {.cf_id = 2, .row_del = cf_deletion_none(), .cells = cells, .n_cells = 4};
	cf_mt_iter	it;
	cf_cell		c;

	(void) state;
	cf_store_be64(neg, (uint64_t) -5);
	cf_store_be64(pos, 7);
	cells[0] = (cf_cell) {.sc = S("b"), .name = cf_slice_of(pos, 8), .timestamp = 1};
	cells[1] = (cf_cell) {.sc = S("a"), .name = cf_slice_of(pos, 8), .timestamp = 1};
	cells[2] = (cf_cell) {.sc = S("b"), .name = cf_slice_of(neg, 8), .timestamp = 1};
	cells[3] = (cf_cell) {.sc = S("a"), .name = cf_slice_of(neg, 8), .timestamp = 1};
	assert_null(cf_memtable_apply(mt, S("t"), S("k"), &u));

	/* (a,-5) (a,7) (b,-5) (b,7): sub-columns in LongType order, not byte order */
	cf_mt_iter_init(&it, mt);
	cf_mt_iter_seek_first(&it);
	for (int i = 0; i < 4; i++, cf_mt_iter_next(&it))
	{
		assert_true(cf_mt_iter_valid(&it));
		cf_mt_iter_cell(&it, &c);
		assert_memory_equal(c.sc.p, i < 2 ? "a" : "b", 1);
		assert_memory_equal(c.name.p, (i % 2) ? pos : neg, 8);
	}
	assert_false(cf_mt_iter_valid(&it));

	/* the end of super column "a" is (a,7); of the row, (b,7) */
	cf_mt_iter_seek_le(&it, S("t"), S("k"), S("a"), S(""));
	cf_mt_iter_cell(&it, &c);
	assert_memory_equal(c.sc.p, "a", 1);
	assert_memory_equal(c.name.p, pos, 8);
	cf_mt_iter_seek_le(&it, S("t"), S("k"), S(""), S(""));
	cf_mt_iter_cell(&it, &c);
	assert_memory_equal(c.sc.p, "b", 1);
	assert_memory_equal(c.name.p, pos, 8);
	/* the start of super column "b" */
	cf_mt_iter_seek(&it, S("t"), S("k"), S("b"), S(""));
	cf_mt_iter_cell(&it, &c);
	assert_memory_equal(c.sc.p, "b", 1);
	assert_memory_equal(c.name.p, neg, 8);
	cf_memtable_unref(mt);
}

static void
deletions_live_in_a_header_first_in_the_row(void **state)
{
	cf_memtable *mt = cf_memtable_new(&utf8_order);
	cf_range_tomb tombs[2] = {
		{.start = S("a"), .finish = S("c"), .del = {5, 100}},
		{.start = S("x"), .finish = S(""), .del = {50, 101}},
	};
	cf_cf_update u = {.cf_id = 1, .row_del = cf_deletion_none(), .tombs = tombs, .n_tombs = 2};
	cf_cf_update rowdel = {.cf_id = 1, .row_del = {10, 200}};

	(void) state;
	put(mt, "t", "k", "", "b", "v", 1, 0);
	assert_null(cf_memtable_apply(mt, S("t"), S("k"), &u));
	assert_string_equal(dump(mt), "k#del=-9223372036854775808,tombs=2 k/:b=v@1 ");
	/* a row deletion at 10: both tombstones stay listed (the one at 5 hides nothing more) */
	assert_null(cf_memtable_apply(mt, S("t"), S("k"), &rowdel));
	assert_string_equal(dump(mt), "k#del=10,tombs=2 k/:b=v@1 ");
	/* an older row deletion does not lower it */
	rowdel.row_del.timestamp = 3;
	assert_null(cf_memtable_apply(mt, S("t"), S("k"), &rowdel));
	assert_string_equal(dump(mt), "k#del=10,tombs=2 k/:b=v@1 ");
	/* a new tombstone the row deletion already shadows is not stored */
	tombs[0].del.timestamp = 9;
	u.n_tombs = 1;
	assert_null(cf_memtable_apply(mt, S("t"), S("k"), &u));
	assert_string_equal(dump(mt), "k#del=10,tombs=2 k/:b=v@1 ");
	cf_memtable_unref(mt);
}

static void
row_seeks(void **state)
{
	cf_memtable *mt = cf_memtable_new(&utf8_order);
	cf_mt_iter	it;
	cf_cell		c;

	(void) state;
	put(mt, "t1", "a", "", "x", "1", 1, 0);
	put(mt, "t1", "a", "", "y", "2", 1, 0);
	put(mt, "t3", "c", "", "x", "3", 1, 0);
	cf_mt_iter_init(&it, mt);

	cf_mt_iter_seek_row(&it, S("t2"), S("b"));	/* absent: next row */
	assert_memory_equal(cf_mt_iter_key(&it).p, "c", 1);
	cf_mt_iter_seek_row(&it, S("t1"), S("a"));
	cf_mt_iter_cell(&it, &c);
	assert_memory_equal(c.name.p, "x", 1);
	cf_mt_iter_seek_after_row(&it, S("t1"), S("a"));
	assert_memory_equal(cf_mt_iter_key(&it).p, "c", 1);
	cf_mt_iter_seek_row_last(&it, S("t1"), S("a"));
	cf_mt_iter_cell(&it, &c);
	assert_memory_equal(c.name.p, "y", 1);
	cf_mt_iter_prev(&it);
	cf_mt_iter_cell(&it, &c);
	assert_memory_equal(c.name.p, "x", 1);
	cf_mt_iter_prev(&it);
	assert_false(cf_mt_iter_valid(&it));
	cf_mt_iter_seek(&it, S("t1"), S("a"), S(""), S("xa"));
	cf_mt_iter_cell(&it, &c);
	assert_memory_equal(c.name.p, "y", 1);
	cf_mt_iter_seek_le(&it, S("t1"), S("a"), S(""), S("xa"));
	cf_mt_iter_cell(&it, &c);
	assert_memory_equal(c.name.p, "x", 1);
	cf_mt_iter_seek_row(&it, S("t9"), S("z"));
	assert_false(cf_mt_iter_valid(&it));
	cf_memtable_unref(mt);
}

/* Long keys and names take the heap path of the search probes. */
static void
long_keys_and_names(void **state)
{
	cf_memtable *mt = cf_memtable_new(&utf8_order);
	char	   *key = malloc(5000), *name = malloc(60000);
	cf_mt_iter	it;
	cf_cell		c;

	(void) state;
	memset(key, 'k', 4999);
	key[4999] = '\0';
	memset(name, 'n', 59999);
	name[59999] = '\0';
	put(mt, "t", key, "", name, "v1", 1, 0);
	put(mt, "t", key, "", name, "v2", 2, 0);
	assert_int_equal(cf_memtable_rows(mt), 1);
	cf_mt_iter_init(&it, mt);
	cf_mt_iter_seek(&it, S("t"), S(key), S(""), S(name));
	cf_mt_iter_cell(&it, &c);
	assert_int_equal(c.name.len, 59999);
	assert_memory_equal(c.value.p, "v2", 2);
	free(key);
	free(name);
	cf_memtable_unref(mt);
}

/* Range tombstones one at a time on one row: memory must stay linear in their number. */
static void
many_tombstones_on_one_row_stay_linear(void **state)
{
	cf_memtable *mt = cf_memtable_new(&utf8_order);
	size_t		before = cf_memtable_memory(mt);
	cf_mt_iter	it;
	cf_deletion d;
	const cf_range_tomb *t;
	size_t		n;

	(void) state;
	for (int i = 0; i < 4000; i++)
	{
		char		lo[16], hi[16];
		cf_range_tomb rt;
		cf_cf_update u = {.cf_id = 1, .row_del = cf_deletion_none(), .tombs = &rt, .n_tombs = 1};

		snprintf(lo, sizeof(lo), "a%05d", i);
		snprintf(hi, sizeof(hi), "b%05d", i);
		rt = (cf_range_tomb) {.start = S(lo), .finish = S(hi), .del = {i + 1, 100}};
		assert_null(cf_memtable_apply(mt, S("t"), S("k"), &u));
	}
	/* ~100 bytes a tombstone; the quadratic copy this guards against needed ~500 MB */
	print_message("4000 tombstones on one row: %zu bytes\n", cf_memtable_memory(mt) - before);
	assert_true(cf_memtable_memory(mt) - before < 2 * 1024 * 1024);

	cf_mt_iter_init(&it, mt);
	cf_mt_iter_seek_first(&it);
	assert_true(cf_mt_iter_is_header(&it));
	cf_mt_iter_deletion(&it, &d, &t, &n);
	assert_int_equal(n, 4000);
	for (size_t i = 0; i < n; i++)
		assert_true(t[i].del.timestamp == (int64_t) i + 1);
	assert_int_equal(cf_memtable_rows(mt), 1);
	cf_memtable_unref(mt);
}

/* An update with nothing in it stores nothing, not even a row. */
static void
empty_updates_make_no_rows(void **state)
{
	cf_memtable *mt = cf_memtable_new(&utf8_order);
	cf_cf_update empty = {.cf_id = 1, .row_del = cf_deletion_none()};
	cf_mt_iter	it;

	(void) state;
	for (int i = 0; i < 3; i++)
		assert_null(cf_memtable_apply(mt, S("t"), S("k"), &empty));
	assert_int_equal(cf_memtable_rows(mt), 0);
	assert_int_equal(cf_memtable_ops(mt), 0);
	cf_mt_iter_init(&it, mt);
	cf_mt_iter_seek_first(&it);
	assert_false(cf_mt_iter_valid(&it));
	put(mt, "t", "k", "", "c", "v", 1, 0);
	put(mt, "t", "k", "", "d", "v", 1, 0);
	assert_int_equal(cf_memtable_rows(mt), 1);
	cf_memtable_unref(mt);
}

/*
 * Threads record failures in `failed` (cmocka may only be called from the test's own
 * thread) and count the passes a reader made over a non-empty, still-growing list.
 */
typedef struct race
{
	cf_memtable *mt;
	int			stop;			/* atomic */
	int			readers_up;		/* atomic: writers start once both readers run */
	int			failed;			/* atomic */
	long		busy_passes[2];
} race;

typedef struct reader_arg
{
	race	   *r;
	int			id;
} reader_arg;

static void *
reader(void *arg)
{
	reader_arg *ra = arg;
	race	   *r = ra->r;
	cf_mt_iter	it;

	cf_mt_iter_init(&it, r->mt);
	__atomic_add_fetch(&r->readers_up, 1, __ATOMIC_RELEASE);
	while (!__atomic_load_n(&r->stop, __ATOMIC_ACQUIRE))
	{
		char		prev[32] = "";
		uint64_t	ops = cf_memtable_ops(r->mt);
		size_t		seen = 0;

		for (cf_mt_iter_seek_first(&it); cf_mt_iter_valid(&it); cf_mt_iter_next(&it))
		{
			cf_cell		c;
			char		cur[32];

			cf_mt_iter_cell(&it, &c);
			snprintf(cur, sizeof(cur), "%.*s", (int) c.name.len, c.name.p);
			/* the value always matches its name's version (never torn), names ascend */
			if (c.value.len < c.name.len || memcmp(c.value.p, c.name.p, c.name.len) != 0 ||
				strcmp(prev, cur) >= 0)
				__atomic_store_n(&r->failed, 1, __ATOMIC_RELAXED);
			strcpy(prev, cur);
			seen++;
		}
		if (seen > 0 && ops < 2 * 4 * 5000)
			r->busy_passes[ra->id]++;
	}
	return NULL;
}

static void *
writer(void *arg)
{
	race	   *r = arg;

	while (__atomic_load_n(&r->readers_up, __ATOMIC_ACQUIRE) < 2)
		sched_yield();
	for (int round = 0; round < 4; round++)
		for (int i = 0; i < 5000; i++)
		{
			char		name[16], value[48];
			cf_cell		c;
			cf_cf_update u = {.cf_id = 1,.row_del = cf_deletion_none(),.cells = &c,.n_cells = 1};
			cf_status  *s;

			snprintf(name, sizeof(name), "c%06d", (i * 7919) % 5000);
			snprintf(value, sizeof(value), "%s-round%d", name, round);
			c = (cf_cell) {.name = S(name),.value = S(value),.timestamp = round};
			if ((s = cf_memtable_apply(r->mt, S("t"), S("row"), &u)) != NULL)
			{
				__atomic_store_n(&r->failed, 1, __ATOMIC_RELAXED);
				cf_status_free(s);
			}
		}
	return NULL;
}

static void
concurrent_readers_see_consistent_cells(void **state)
{
	race		r = {.mt = cf_memtable_new(&utf8_order)};
	reader_arg	ra[2] = {{&r, 0}, {&r, 1}};
	pthread_t	w1, w2, rd1, rd2;

	(void) state;
	pthread_create(&rd1, NULL, reader, &ra[0]);
	pthread_create(&rd2, NULL, reader, &ra[1]);
	pthread_create(&w1, NULL, writer, &r);
	pthread_create(&w2, NULL, writer, &r);
	pthread_join(w1, NULL);
	pthread_join(w2, NULL);
	__atomic_store_n(&r.stop, 1, __ATOMIC_RELEASE);
	pthread_join(rd1, NULL);
	pthread_join(rd2, NULL);
	assert_false(r.failed);
	assert_int_equal(cf_memtable_ops(r.mt), 2 * 4 * 5000);
	/* the readers really read while the writers wrote */
	assert_true(r.busy_passes[0] + r.busy_passes[1] > 0);
	cf_memtable_unref(r.mt);
}

/* 100k single-column rows: 16-byte keys, 16-byte tokens, 100-byte values. */
static void
memory_against_raw_data(void **state)
{
	cf_col_order o = {false, CF_TYPE_BYTES, CF_TYPE_BYTES};
	cf_memtable *mt = cf_memtable_new(&o);
	uint8_t		value[100];
	size_t		raw = 0;
	double		ratio;

	(void) state;
	memset(value, 'v', sizeof(value));
	for (uint32_t i = 0; i < 100000; i++)
	{
		uint8_t		key[16], token[16];
		cf_cell		c = {.name = cf_slice_of("v", 1), .value = cf_slice_of(value, 100),
		.timestamp = i};
		cf_cf_update u = {.cf_id = 1, .row_del = cf_deletion_none(), .cells = &c, .n_cells = 1};

		memset(key, 0, sizeof(key));
		cf_store_be32(key, i * 2654435761u);
		cf_store_be32(key + 12, i);
		memcpy(token, key, 16);
		assert_null(cf_memtable_apply(mt, cf_slice_of(token, 16), cf_slice_of(key, 16), &u));
		raw += 16 + 1 + 100 + 8;	/* key, name, value, timestamp */
	}
	ratio = (double) cf_memtable_memory(mt) / (double) raw;
	print_message("memtable: %zu bytes for %zu raw bytes: %.2fx\n",
				  cf_memtable_memory(mt), raw, ratio);
	assert_true(ratio <= 2.0);
	cf_memtable_unref(mt);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(rows_by_token_then_key_cells_by_comparator),
		cmocka_unit_test(reconciliation),
		cmocka_unit_test(super_columns_are_flattened),
		cmocka_unit_test(deletions_live_in_a_header_first_in_the_row),
		cmocka_unit_test(row_seeks),
		cmocka_unit_test(long_keys_and_names),
		cmocka_unit_test(many_tombstones_on_one_row_stay_linear),
		cmocka_unit_test(empty_updates_make_no_rows),
		cmocka_unit_test(concurrent_readers_see_consistent_cells),
		cmocka_unit_test(memory_against_raw_data),
	};

	return cmocka_run_group_tests_name("storage/memtable", tests, NULL, NULL);
}
