/* tests/unit/test_read.c — db/read: slices, get, count, multiget and range scans over
 * memtables and SSTables, checked by hand and against a brute-force reference model. */
#include "support/cmocka_prelude.h"
#include "support/slices.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "db/read.h"
#include "storage/partitioner.h"
#include "support/envtest.h"
#include "support/tmpdir.h"
#include "util/buf.h"

#define NONE cf_slice_of("", 0)
#define NOW 1000

static const cf_col_order std_order = {false, CF_TYPE_UTF8, CF_TYPE_BYTES};
static const cf_col_order super_order = {true, CF_TYPE_UTF8, CF_TYPE_UTF8};

/* ---------------------------------------------------------------- formatting */

static void
put_bytes(char *out, size_t cap, size_t *n, cf_slice s)
{
	for (size_t i = 0; i < s.len && *n + 5 < cap; i++)
	{
		uint8_t		c = s.p[i];

		if (c >= 0x20 && c < 0x7f && c != '\\')
			out[(*n)++] = (char) c;
		else
			*n += (size_t) snprintf(out + *n, cap - *n, "\\x%02x", c);
	}
	out[*n] = '\0';
}

static void
put_str(char *out, size_t cap, size_t *n, const char *s)
{
	put_bytes(out, cap, n, cf_slice_str(s));
}

/* "a=1 b=2" or "x{a=1} y{b=2}"; with verbose, "@ts" and "/ttl" after each value. */
static void
fmt_slice(char *out, size_t cap, size_t *n, const cf_row_slice *sl, bool verbose)
{
	char		tmp[64];

	for (size_t i = 0; i < (sl->is_super ? sl->n_supers : 1); i++)
	{
		const cf_read_column *cols = sl->is_super ? sl->supers[i].columns : sl->columns;
		size_t		nc = sl->is_super ? sl->supers[i].n_columns : sl->n_columns;

		if (sl->is_super)
		{
			put_bytes(out, cap, n, sl->supers[i].name);
			put_str(out, cap, n, "{");
		}
		for (size_t k = 0; k < nc; k++)
		{
			if (k)
				put_str(out, cap, n, " ");
			put_bytes(out, cap, n, cols[k].name);
			put_str(out, cap, n, "=");
			put_bytes(out, cap, n, cols[k].value);
			if (verbose)
			{
				snprintf(tmp, sizeof(tmp), "@%" PRId64 "/%d", cols[k].timestamp, (int) cols[k].ttl);
				put_str(out, cap, n, tmp);
			}
		}
		if (sl->is_super)
			put_str(out, cap, n, i + 1 < sl->n_supers ? "} " : "}");
	}
}

static char fmt_out[1 << 16];

static const char *
fmt_result(const cf_read_result *r)
{
	size_t		n = 0;

	fmt_out[0] = '\0';
	fmt_slice(fmt_out, sizeof(fmt_out), &n, &r->slice, false);
	return fmt_out;
}

/* "key: slice; key: slice" */
static const char *
fmt_rows(const cf_read_rows *r)
{
	size_t		n = 0;

	fmt_out[0] = '\0';
	for (size_t i = 0; i < r->n_rows; i++)
	{
		put_bytes(fmt_out, sizeof(fmt_out), &n, r->rows[i].key);
		put_str(fmt_out, sizeof(fmt_out), &n, ": ");
		fmt_slice(fmt_out, sizeof(fmt_out), &n, &r->rows[i].slice, false);
		put_str(fmt_out, sizeof(fmt_out), &n, "; ");
	}
	return fmt_out;
}

/* ---------------------------------------------------------------- fixture */

typedef struct fixture
{
	char	   *dir;
	cf_col_order order;
	cf_memtable *mt[4];			/* mt[2], mt[3] are flushed into sst[0], sst[1] */
	cf_sstable *sst[2];
	cf_cache   *cache;			/* the sstables' block cache; NULL: none */
	cf_memtable *live[2];
	cf_table_set ts;
	int			n_flush;
} fixture;

static int
setup_with(void **state, const cf_col_order *o)
{
	fixture    *f = calloc(1, sizeof(*f));

	f->dir = test_tmpdir_new("cf_read");
	f->order = *o;
	for (int i = 0; i < 4; i++)
		f->mt[i] = cf_memtable_new(o);
	*state = f;
	return f->dir ? 0 : -1;
}

static int
setup_std(void **state)
{
	return setup_with(state, &std_order);
}

static int
setup_super(void **state)
{
	return setup_with(state, &super_order);
}

static int
teardown(void **state)
{
	fixture    *f = *state;

	for (int i = 0; i < 2; i++)
		if (f->sst[i])
			cf_sstable_unref(f->sst[i]);
	for (int i = 0; i < 4; i++)
		cf_memtable_unref(f->mt[i]);
	cf_cache_unref(f->cache);
	test_tmpdir_free(f->dir);
	free(f);
	return 0;
}

/* The token of a key in these tests: one byte, so rows share tokens. */
static cf_slice
tok(cf_slice key)
{
	static const uint8_t tokens[256] = {
		0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20,
	};
	unsigned	h = 7;

	for (size_t i = 0; i < key.len; i++)
		h = h * 31 + key.p[i];
	return cf_slice_of(&tokens[1 + h % 5], 1);
}

static void
apply(cf_memtable *mt, cf_slice key, const cf_cell *c, cf_deletion row_del,
	  const cf_range_tomb *t)
{
	cf_cf_update u = {.cf_id = 1, .row_del = row_del, .cells = (cf_cell *) c,
	.n_cells = c ? 1 : 0, .tombs = (cf_range_tomb *) t, .n_tombs = t ? 1 : 0};

	OK(cf_memtable_apply(mt, tok(key), key, &u));
}

/* Puts a live column into table i (0..3) with timestamp ts. */
static void
put(fixture *f, int i, const char *key, const char *sc, const char *name, const char *value,
	int64_t ts)
{
	cf_cell		c = {.sc = S(sc), .name = S(name), .value = S(value), .timestamp = ts};

	apply(f->mt[i], S(key), &c, cf_deletion_none(), NULL);
}

static void
put_ttl(fixture *f, int i, const char *key, const char *sc, const char *name,
		const char *value, int64_t ts, int32_t expiry)
{
	cf_cell		c = {.sc = S(sc), .name = S(name), .value = S(value), .timestamp = ts,
	.flags = CF_CELL_EXPIRING, .ttl = 60, .local_time = expiry};

	apply(f->mt[i], S(key), &c, cf_deletion_none(), NULL);
}

static void
tomb_cell(fixture *f, int i, const char *key, const char *sc, const char *name, int64_t ts)
{
	cf_cell		c = {.sc = S(sc), .name = S(name), .timestamp = ts,
	.flags = CF_CELL_DELETED, .local_time = NOW - 10};

	apply(f->mt[i], S(key), &c, cf_deletion_none(), NULL);
}

static void
kill_row(fixture *f, int i, const char *key, int64_t ts)
{
	apply(f->mt[i], S(key), NULL, (cf_deletion) {ts, NOW - 10}, NULL);
}

static void
kill_range(fixture *f, int i, const char *key, const char *sc, const char *start,
		   const char *finish, int64_t ts)
{
	cf_range_tomb t = {.sc = S(sc), .start = S(start), .finish = S(finish),
	.del = {ts, NOW - 10}};

	apply(f->mt[i], S(key), NULL, cf_deletion_none(), &t);
}

/*
 * Flushes mt[2] and mt[3] into sstables (opened with f->cache) and builds the table
 * set.
 */
static void
seal(fixture *f, size_t block_size)
{
	cf_sstable_options opt = {.order = f->order, .block_size = block_size};

	for (int i = 0; i < 2; i++)
	{
		char		name[32];
		const char *path;

		snprintf(name, sizeof(name), "t-%d.sst", f->n_flush++);
		path = test_path(f->dir, name);
		OK(cf_sstable_write_memtable(cf_env_posix(), path, f->mt[2 + i], &opt, NULL));
		OK(cf_sstable_open_cached(cf_env_posix(), path, &f->order, f->cache, &f->sst[i]));
	}
	f->live[0] = f->mt[0];
	f->live[1] = f->mt[1];
	f->ts = (cf_table_set) {f->order, f->live, 2, f->sst, 2};
}

static cf_predicate
range(const char *start, const char *finish, bool reversed, int32_t count)
{
	cf_predicate p = {.range = {S(start), S(finish), reversed, count}};

	return p;
}

static cf_predicate
names(const cf_slice *n, size_t k)
{
	cf_predicate p = {.by_names = true, .names = n, .n_names = k};

	return p;
}

/* The slice of key under parent sc, formatted. */
static const char *
q(fixture *f, const char *key, const char *sc, cf_predicate p)
{
	cf_read_result *r;

	OK(cf_read_slice(&f->ts, tok(S(key)), S(key), S(sc), &p, NOW, &r));
	fmt_result(r);
	cf_read_result_free(r);
	return fmt_out;
}

static int32_t
count(fixture *f, const char *key, const char *sc, cf_predicate p)
{
	int32_t		n;

	OK(cf_read_count(&f->ts, tok(S(key)), S(key), S(sc), &p, NOW, &n));
	return n;
}

/* ---------------------------------------------------------------- by hand: Standard */

static void
std_fill(fixture *f)
{
	put(f, 2, "k", "", "a", "1", 1);
	put(f, 3, "k", "", "b", "old", 1);
	put(f, 0, "k", "", "b", "2", 5);
	put(f, 1, "k", "", "c", "3", 1);
	put(f, 2, "k", "", "d", "4", 1);
	tomb_cell(f, 1, "k", "", "d", 2);		/* d deleted */
	put_ttl(f, 3, "k", "", "e", "5", 1, NOW - 1);	/* e expired */
	put_ttl(f, 0, "k", "", "f", "6", 1, NOW + 60);	/* f still alive */
	put(f, 3, "k", "", "g", "7", 1);
	put(f, 3, "k", "", "h", "8", 1);
	kill_range(f, 0, "k", "", "g", "gz", 3);	/* g deleted by range */
}

static void
std_slices_by_hand(void **state)
{
	fixture    *f = *state;

	std_fill(f);
	seal(f, 0);
	assert_string_equal(q(f, "k", "", range("", "", false, 100)), "a=1 b=2 c=3 f=6 h=8");
	assert_string_equal(q(f, "k", "", range("", "", true, 100)), "h=8 f=6 c=3 b=2 a=1");
	assert_string_equal(q(f, "k", "", range("", "", false, 2)), "a=1 b=2");
	assert_string_equal(q(f, "k", "", range("", "", true, 2)), "h=8 f=6");
	assert_string_equal(q(f, "k", "", range("", "", false, 0)), "");
	/* dead cells are walked over and do not count */
	assert_string_equal(q(f, "k", "", range("c", "", false, 2)), "c=3 f=6");
	assert_string_equal(q(f, "k", "", range("bb", "g", false, 100)), "c=3 f=6");
	assert_string_equal(q(f, "k", "", range("g", "bb", true, 100)), "f=6 c=3");
	assert_string_equal(q(f, "k", "", range("", "c", true, 2)), "h=8 f=6");
	assert_string_equal(q(f, "k", "", range("c", "", true, 100)), "c=3 b=2 a=1");
	assert_string_equal(q(f, "k", "", range("c", "c", false, 100)), "c=3");
	assert_string_equal(q(f, "k", "", range("c", "c", true, 100)), "c=3");
	assert_string_equal(q(f, "k", "", range("d", "d", false, 100)), "");
	assert_string_equal(q(f, "k", "", range("x", "", false, 100)), "");
	assert_string_equal(q(f, "k", "", range("", "0", false, 100)), "");
	/* an absent row is an empty slice */
	assert_string_equal(q(f, "nope", "", range("", "", false, 100)), "");

	{
		cf_slice	n[] = {S("h"), S("d"), S("a"), S("zz"), S("h"), S("e"), S("b")};
		cf_predicate p = names(n, 7);

		assert_string_equal(q(f, "k", "", p), "a=1 b=2 h=8");
		assert_int_equal(count(f, "k", "", p), 3);
		p = names(n, 0);
		assert_string_equal(q(f, "k", "", p), "");
	}
	assert_int_equal(count(f, "k", "", range("", "", false, 100)), 5);
	assert_int_equal(count(f, "k", "", range("", "", false, 3)), 3);
	assert_int_equal(count(f, "k", "", range("f", "b", true, 100)), 3);
	assert_int_equal(count(f, "nope", "", range("", "", false, 100)), 0);
}

static void
std_get_and_ttl(void **state)
{
	fixture    *f = *state;
	cf_read_result *r;

	std_fill(f);
	seal(f, 0);
	OK(cf_read_get(&f->ts, tok(S("k")), S("k"), NONE, S("b"), NOW, &r));
	assert_int_equal(r->slice.n_columns, 1);
	assert_string_equal(fmt_result(r), "b=2");
	assert_int_equal(r->slice.columns[0].timestamp, 5);
	assert_int_equal(r->slice.columns[0].ttl, 0);
	cf_read_result_free(r);
	OK(cf_read_get(&f->ts, tok(S("k")), S("k"), NONE, S("f"), NOW, &r));
	assert_int_equal(r->slice.columns[0].ttl, 60);
	cf_read_result_free(r);
	/* NOT_FOUND: deleted, expired, range-deleted, absent column, absent row */
	FAILS(cf_read_get(&f->ts, tok(S("k")), S("k"), NONE, S("d"), NOW, &r), CF_ERR_NOT_FOUND, "not found");
	FAILS(cf_read_get(&f->ts, tok(S("k")), S("k"), NONE, S("e"), NOW, &r), CF_ERR_NOT_FOUND, "not found");
	FAILS(cf_read_get(&f->ts, tok(S("k")), S("k"), NONE, S("g"), NOW, &r), CF_ERR_NOT_FOUND, "not found");
	FAILS(cf_read_get(&f->ts, tok(S("k")), S("k"), NONE, S("zz"), NOW, &r), CF_ERR_NOT_FOUND, "not found");
	FAILS(cf_read_get(&f->ts, tok(S("x")), S("x"), NONE, S("a"), NOW, &r), CF_ERR_NOT_FOUND, "not found");
	assert_null(r);
	/* e was alive before its expiry */
	OK(cf_read_get(&f->ts, tok(S("k")), S("k"), NONE, S("e"), NOW - 2, &r));
	cf_read_result_free(r);
	/* a row deletion newer than everything hides the row; a later write shows again */
	kill_row(f, 0, "k", 4);
	assert_string_equal(q(f, "k", "", range("", "", false, 100)), "b=2");
	put(f, 1, "k", "", "a", "new", 9);
	assert_string_equal(q(f, "k", "", range("", "", false, 100)), "a=new b=2");
}

/*
 * Names are read newest table first and stop once settled: each answer must be what
 * reading every table gives, whatever the tables' timestamp order — a newer version
 * in the older file, a tie, a row deletion or range tombstone in the newer file, an
 * expired cell on top, a name only in the older file.
 */
static void
names_read_newest_first(void **state)
{
	fixture    *f = *state;
	cf_slice	n1[] = {S("a")},
				n2[] = {S("a"), S("b")},
				n3[] = {S("c")},
				n4[] = {S("e")},
				n5[] = {S("g")},
				n6[] = {S("z")};

	/* sst[0] (mt[2]) holds the larger timestamps, sst[1] (mt[3]) the smaller ones */
	put(f, 2, "k", "", "a", "new", 100);
	put(f, 3, "k", "", "a", "old", 50);
	put(f, 3, "k", "", "b", "only-old", 40);
	put(f, 2, "k", "", "c", "tie-x", 60);
	put(f, 3, "k", "", "c", "tie-y", 60);	/* equal timestamps: the greater value wins */
	put_ttl(f, 2, "k", "", "e", "expired", 90, NOW - 1);
	put(f, 3, "k", "", "e", "older", 30);
	put(f, 3, "k", "", "g", "under-range", 45);
	put(f, 3, "t", "", "a", "1", 10);
	kill_row(f, 2, "t", 20);					/* newer file: the row deleted */
	put(f, 2, "r", "", "a", "kept", 200);
	kill_range(f, 3, "r", "", "a", "b", 150);	/* older file: a range tombstone older than a */
	seal(f, 0);
	assert_string_equal(q(f, "k", "", names(n1, 1)), "a=new");
	assert_string_equal(q(f, "k", "", names(n2, 2)), "a=new b=only-old");
	assert_string_equal(q(f, "k", "", names(n3, 1)), "c=tie-y");
	assert_string_equal(q(f, "k", "", names(n4, 1)), "");	/* the expired one is newest */
	assert_string_equal(q(f, "k", "", names(n5, 1)), "g=under-range");
	assert_string_equal(q(f, "k", "", names(n6, 1)), "");
	assert_string_equal(q(f, "t", "", names(n1, 1)), "");
	{
		/* a@200 outranks all of sst[1] (newest 150): sst[1] is not read at all */
		uint64_t	before = cf_sstable_block_reads(f->sst[1]);

		assert_string_equal(q(f, "r", "", names(n1, 1)), "a=kept");
		assert_int_equal(cf_sstable_block_reads(f->sst[1]), before);
		/* k's a@100 does not (sst[1] holds timestamps up to 150): both are read */
		assert_string_equal(q(f, "k", "", names(n1, 1)), "a=new");
		assert_true(cf_sstable_block_reads(f->sst[1]) > before);
	}
	/* now the older file's deletion is newer than the newer file's cell */
	kill_range(f, 0, "k", "", "a", "az", 120);	/* in a memtable: always read */
	assert_string_equal(q(f, "k", "", names(n1, 1)), "");
	assert_string_equal(q(f, "k", "", names(n2, 2)), "b=only-old");
}

static void
invalid_requests(void **state)
{
	fixture    *f = *state;
	cf_read_result *r;
	cf_predicate p;
	cf_slice	bad[] = {S("a"), S("")};
	cf_slice	badutf[] = {cf_slice_of("\xff\xfe", 2)};
	int32_t		n;

	std_fill(f);
	seal(f, 0);
	p = range("", "", false, -1);
	FAILS(cf_read_slice(&f->ts, tok(S("k")), S("k"), NONE, &p, NOW, &r), CF_ERR_INVALID, "count");
	p = range("c", "b", false, 10);
	FAILS(cf_read_slice(&f->ts, tok(S("k")), S("k"), NONE, &p, NOW, &r), CF_ERR_INVALID,
		  "range finish must come after start in the order of traversal");
	p = range("b", "c", true, 10);
	FAILS(cf_read_count(&f->ts, tok(S("k")), S("k"), NONE, &p, NOW, &n), CF_ERR_INVALID,
		  "range finish must come after start");
	p = range("", "", false, 10);
	FAILS(cf_read_slice(&f->ts, tok(S("k")), S("k"), S("sc"), &p, NOW, &r), CF_ERR_INVALID,
		  "Standard column family");
	p = names(bad, 2);
	FAILS(cf_read_slice(&f->ts, tok(S("k")), S("k"), NONE, &p, NOW, &r), CF_ERR_INVALID, "empty");
	p = names(badutf, 1);
	FAILS(cf_read_slice(&f->ts, tok(S("k")), S("k"), NONE, &p, NOW, &r), CF_ERR_INVALID, "UTF8");
	p = range("\xff", "", false, 10);
	FAILS(cf_read_slice(&f->ts, tok(S("k")), S("k"), NONE, &p, NOW, &r), CF_ERR_INVALID, "start");
	FAILS(cf_read_get(&f->ts, tok(S("k")), S("k"), NONE, NONE, NOW, &r), CF_ERR_INVALID,
		  "column_path.column is required");
	FAILS(cf_read_get(&f->ts, tok(S("k")), S("k"), S("x"), S("a"), NOW, &r), CF_ERR_INVALID,
		  "Standard");
	assert_null(r);
}

/* ---------------------------------------------------------------- by hand: Super */

static void
super_fill(fixture *f)
{
	put(f, 2, "k", "a", "1", "a1", 1);
	put(f, 3, "k", "a", "2", "a2", 1);
	put(f, 0, "k", "b", "1", "b1", 1);	/* b: all sub-columns dead */
	tomb_cell(f, 1, "k", "b", "1", 2);
	put_ttl(f, 2, "k", "b", "2", "b2", 1, NOW);	/* expires exactly now */
	put(f, 3, "k", "c", "1", "c1", 1);
	put(f, 1, "k", "c", "2", "c2", 1);
	put(f, 0, "k", "c", "3", "c3", 1);
	kill_range(f, 0, "k", "c", "2", "2", 3);	/* c/2 deleted */
	put(f, 2, "k", "d", "1", "d1", 1);
	kill_range(f, 1, "k", "", "d", "dz", 5);	/* super column d deleted */
	put(f, 3, "k", "e", "1", "e1", 1);
	put(f, 3, "k", "e", "9", "e9", 1);
}

static void
super_slices_by_hand(void **state)
{
	fixture    *f = *state;
	cf_read_result *r;

	super_fill(f);
	seal(f, 0);
	assert_string_equal(q(f, "k", "", range("", "", false, 100)),
						"a{1=a1 2=a2} c{1=c1 3=c3} e{1=e1 9=e9}");
	/* reversed: super columns in reverse order, sub-columns still ascending */
	assert_string_equal(q(f, "k", "", range("", "", true, 100)),
						"e{1=e1 9=e9} c{1=c1 3=c3} a{1=a1 2=a2}");
	/* dead super columns do not count */
	assert_string_equal(q(f, "k", "", range("b", "", false, 2)), "c{1=c1 3=c3} e{1=e1 9=e9}");
	assert_string_equal(q(f, "k", "", range("d", "", true, 2)), "c{1=c1 3=c3} a{1=a1 2=a2}");
	assert_string_equal(q(f, "k", "", range("b", "d", false, 100)), "c{1=c1 3=c3}");
	assert_int_equal(count(f, "k", "", range("", "", false, 100)), 3);
	assert_int_equal(count(f, "k", "", range("", "", false, 2)), 2);
	{
		cf_slice	n[] = {S("e"), S("b"), S("zz"), S("a"), S("e")};
		cf_predicate p = names(n, 5);

		assert_string_equal(q(f, "k", "", p), "a{1=a1 2=a2} e{1=e1 9=e9}");
		assert_int_equal(count(f, "k", "", p), 2);
		/* names within one super column */
		n[0] = S("3");
		n[1] = S("2");
		n[2] = S("1");
		p = names(n, 3);
		assert_string_equal(q(f, "k", "c", p), "1=c1 3=c3");
	}
	/* with a super column: a slice of its sub-columns */
	assert_string_equal(q(f, "k", "c", range("", "", false, 100)), "1=c1 3=c3");
	assert_string_equal(q(f, "k", "c", range("", "", true, 1)), "3=c3");
	assert_string_equal(q(f, "k", "c", range("2", "", false, 100)), "3=c3");
	assert_string_equal(q(f, "k", "e", range("5", "", true, 100)), "1=e1");
	assert_string_equal(q(f, "k", "b", range("", "", false, 100)), "");
	assert_string_equal(q(f, "k", "bb", range("", "", true, 100)), "");
	assert_string_equal(q(f, "k", "zz", range("", "", false, 100)), "");
	assert_int_equal(count(f, "k", "e", range("", "", false, 100)), 2);

	/* get: a sub-column, a whole super column, NOT_FOUND for dead ones */
	OK(cf_read_get(&f->ts, tok(S("k")), S("k"), S("c"), S("3"), NOW, &r));
	assert_string_equal(fmt_result(r), "3=c3");
	cf_read_result_free(r);
	OK(cf_read_get(&f->ts, tok(S("k")), S("k"), S("c"), NONE, NOW, &r));
	assert_true(r->slice.is_super);
	assert_string_equal(fmt_result(r), "c{1=c1 3=c3}");
	cf_read_result_free(r);
	FAILS(cf_read_get(&f->ts, tok(S("k")), S("k"), S("b"), NONE, NOW, &r), CF_ERR_NOT_FOUND,
		  "super column not found");
	FAILS(cf_read_get(&f->ts, tok(S("k")), S("k"), S("d"), S("1"), NOW, &r), CF_ERR_NOT_FOUND,
		  "column not found");
	FAILS(cf_read_get(&f->ts, tok(S("k")), S("k"), NONE, S("1"), NOW, &r), CF_ERR_INVALID,
		  "super_column is required");
}

/* ---------------------------------------------------------------- multiget and ranges */

/* Copies rows' cursor into keep and points *cur at the copy. */
static void
keep_cursor(cf_buf *keep, const cf_read_rows *rows, cf_read_cursor *cur)
{
	cf_buf_reset(keep);
	cf_buf_put(keep, rows->cursor.token.p, rows->cursor.token.len);
	cf_buf_put(keep, rows->cursor.key.p, rows->cursor.key.len);
	cur->token = cf_slice_of(keep->data, rows->cursor.token.len);
	cur->key = cf_slice_of(keep->data + rows->cursor.token.len, rows->cursor.key.len);
}

/* Does key a's row sort after key b's in a range scan ((token, key) order)? */
static bool
row_after(cf_slice a, cf_slice b)
{
	int			c = cf_token_cmp(tok(a), tok(b));

	return c > 0 || (c == 0 && cf_slice_cmp(a, b) > 0);
}

static const char *const range_keys[] = {"k0", "k1", "k2", "k3", "k4", "k5", "k6", "k7"};

/* Rows k0..k7 spread over the tables; k3 only tombstones, k5 all expired. */
static void
range_fill(fixture *f)
{
	for (int i = 0; i < 8; i++)
	{
		const char *k = range_keys[i];

		if (i == 3)
		{
			kill_row(f, 0, k, 5);
			tomb_cell(f, 2, k, "", "a", 1);
			continue;
		}
		if (i == 5)
		{
			put_ttl(f, 3, k, "", "a", "x", 1, NOW - 5);
			continue;
		}
		put(f, i % 4, k, "", "a", k, 1);
		put(f, (i + 1) % 4, k, "", "b", k, 1);
	}
	/* k6 lives only in the second sstable and the memtables */
	seal(f, 0);
}

/* The keys in (token, key) order, the order a range scan returns. */
static void
sorted_keys(const char **out)
{
	for (int i = 0; i < 8; i++)
		out[i] = range_keys[i];
	for (int i = 1; i < 8; i++)
		for (int j = i; j > 0 && row_after(S(out[j - 1]), S(out[j])); j--)
		{
			const char *t = out[j];

			out[j] = out[j - 1];
			out[j - 1] = t;
		}
}

static void
multiget_in_input_order(void **state)
{
	fixture    *f = *state;
	cf_slice	keys[] = {S("k4"), S("k1"), S("zz"), S("k4"), S("k3")};
	cf_slice	toks[5];
	cf_predicate p = range("", "", false, 1);
	cf_read_rows *r;

	range_fill(f);
	for (int i = 0; i < 5; i++)
		toks[i] = tok(keys[i]);
	OK(cf_read_multi(&f->ts, toks, keys, 5, NONE, &p, NOW, &r));
	assert_string_equal(fmt_rows(r), "k4: a=k4; k1: a=k1; zz: ; k3: ; ");
	assert_false(r->has_cursor);
	cf_read_rows_free(r);
	OK(cf_read_multi(&f->ts, toks, keys, 0, NONE, &p, NOW, &r));
	assert_int_equal(r->n_rows, 0);
	cf_read_rows_free(r);
}

static void
range_scans_and_cursor(void **state)
{
	fixture    *f = *state;
	const char *order[8];
	char		want[512] = "",
				got[512] = "";
	cf_predicate p = range("", "", false, 0);	/* keys only */
	cf_key_range kr = {.by_token = true, .start_token = NONE, .end_token = NONE, .count = 100};
	cf_read_rows *r;
	cf_read_cursor cur;
	cf_buf		keep = CF_BUF_INIT;

	range_fill(f);
	sorted_keys(order);
	for (int i = 0; i < 8; i++)
		if (strcmp(order[i], "k3") && strcmp(order[i], "k5"))
		{
			strcat(want, order[i]);
			strcat(want, ": ; ");
		}
	/* the whole ring; ghosts k3 and k5 omitted */
	OK(cf_read_range(&f->ts, &kr, NONE, &p, NOW, &r));
	assert_string_equal(fmt_rows(r), want);
	assert_int_equal(r->n_rows, 6);
	cf_read_rows_free(r);

	/* pages of 2 through the cursor give the same rows */
	kr.count = 2;
	kr.after = NULL;
	for (;;)
	{
		OK(cf_read_range(&f->ts, &kr, NONE, &p, NOW, &r));
		strcat(got, fmt_rows(r));
		if (!r->has_cursor)
		{
			cf_read_rows_free(r);
			break;
		}
		keep_cursor(&keep, r, &cur);
		kr.after = &cur;
		cf_read_rows_free(r);
	}
	assert_string_equal(got, want);
	cf_buf_free(&keep);

	/* token (2, 4]: tokens 3 and 4 only; start exclusive */
	{
		uint8_t		t2 = 2,
					t4 = 4;

		kr = (cf_key_range) {.by_token = true, .start_token = cf_slice_of(&t2, 1),
		.end_token = cf_slice_of(&t4, 1), .count = 100};
		OK(cf_read_range(&f->ts, &kr, NONE, &p, NOW, &r));
		want[0] = '\0';
		for (int i = 0; i < 8; i++)
		{
			uint8_t		t = tok(S(order[i])).p[0];

			if ((t == 3 || t == 4) && strcmp(order[i], "k3") && strcmp(order[i], "k5"))
			{
				strcat(want, order[i]);
				strcat(want, ": ; ");
			}
		}
		assert_true(want[0] != '\0');	/* the fixture has live rows there */
		assert_string_equal(fmt_rows(r), want);
		assert_true(r->n_rows > 0);
		cf_read_rows_free(r);
		/* wrap (4, 2]: tokens 5, 1, 2 in that order */
		kr.start_token = cf_slice_of(&t4, 1);
		kr.end_token = cf_slice_of(&t2, 1);
		OK(cf_read_range(&f->ts, &kr, NONE, &p, NOW, &r));
		assert_true(r->n_rows > 0);
		for (size_t i = 0; i < r->n_rows; i++)
		{
			uint8_t		t = r->rows[i].token.p[0];

			assert_true(t == 5 || t == 1 || t == 2);
			if (i)
				assert_false(r->rows[i - 1].token.p[0] <= 2 && t == 5);
		}
		cf_read_rows_free(r);
	}

	/* keys: start-inclusive, end-inclusive; end before start is refused */
	kr = (cf_key_range) {.start_token = tok(S(order[1])), .start_key = S(order[1]),
	.end_token = tok(S(order[6])), .end_key = S(order[6]), .count = 100};
	OK(cf_read_range(&f->ts, &kr, NONE, &p, NOW, &r));
	{
		size_t		k = 0;

		for (int i = 1; i <= 6; i++)
		{
			if (!strcmp(order[i], "k3") || !strcmp(order[i], "k5"))
				continue;
			assert_true(k < r->n_rows);
			assert_true(cf_slice_eq(r->rows[k++].key, S(order[i])));
		}
		assert_int_equal(k, r->n_rows);
	}
	cf_read_rows_free(r);
	kr = (cf_key_range) {.start_token = tok(S(order[6])), .start_key = S(order[6]),
	.end_token = tok(S(order[1])), .end_key = S(order[1]), .count = 100};
	FAILS(cf_read_range(&f->ts, &kr, NONE, &p, NOW, &r), CF_ERR_INVALID, "end_key sorts before");
	kr.count = -1;
	FAILS(cf_read_range(&f->ts, &kr, NONE, &p, NOW, &r), CF_ERR_INVALID, "count");
	/* count 0 */
	kr = (cf_key_range) {.by_token = true, .count = 0};
	OK(cf_read_range(&f->ts, &kr, NONE, &p, NOW, &r));
	assert_int_equal(r->n_rows, 0);
	assert_false(r->has_cursor);
	cf_read_rows_free(r);
}

/*
 * A range scan reads the sstables' blocks without adding them to the block cache (it
 * would evict the point reads' blocks for ones read once), but uses those cached; a
 * point read adds the blocks it reads.
 */
static void
range_scans_do_not_fill_the_block_cache(void **state)
{
	fixture    *f = *state;
	cf_predicate p = range("", "", false, 100);
	cf_key_range kr = {.by_token = true, .start_token = NONE, .end_token = NONE, .count = 100};
	cf_read_rows *r;
	cf_cache_stats before,
				after;

	f->cache = cf_cache_new(1 << 20);
	assert_non_null(f->cache);
	range_fill(f);
	cf_cache_get_stats(f->cache, &before);
	OK(cf_read_range(&f->ts, &kr, NONE, &p, NOW, &r));
	assert_int_equal(r->n_rows, 6);
	cf_read_rows_free(r);
	cf_cache_get_stats(f->cache, &after);
	assert_true(after.misses > before.misses);	/* the scan did read sstable blocks */
	assert_int_equal(after.inserts, before.inserts);
	assert_int_equal(after.entries, before.entries);

	assert_string_equal(q(f, "k6", "", p), "a=k6 b=k6");
	cf_cache_get_stats(f->cache, &before);
	assert_true(before.inserts > after.inserts);

	OK(cf_read_range(&f->ts, &kr, NONE, &p, NOW, &r));
	assert_int_equal(r->n_rows, 6);
	cf_read_rows_free(r);
	cf_cache_get_stats(f->cache, &after);
	assert_true(after.hits > before.hits);
	assert_int_equal(after.inserts, before.inserts);
}

/* ---------------------------------------------------------------- out of memory */

typedef enum oom_op
{
	OOM_SLICE,
	OOM_COUNT,
	OOM_MULTI,
	OOM_RANGE
} oom_op;

/* Runs op with p over the row "k" (parent sc) and formats what it returned into out. */
static cf_status *
oom_run(fixture *f, oom_op op, const char *sc, const cf_predicate *p, char *out, size_t cap)
{
	cf_slice	key = S("k");
	cf_slice	token = tok(key);
	cf_key_range kr = {.by_token = true, .start_token = NONE, .end_token = NONE, .count = 10};
	cf_read_result *r = (cf_read_result *) 1;
	cf_read_rows *rows = (cf_read_rows *) 1;
	int32_t		n = -1;
	cf_status  *st;

	out[0] = '\0';
	switch (op)
	{
		case OOM_SLICE:
			st = cf_read_slice(&f->ts, token, key, S(sc), p, NOW, &r);
			if (st == NULL)
			{
				snprintf(out, cap, "%s", fmt_result(r));
				cf_read_result_free(r);
			}
			else
				assert_null(r);
			return st;
		case OOM_COUNT:
			st = cf_read_count(&f->ts, token, key, S(sc), p, NOW, &n);
			if (st == NULL)
				snprintf(out, cap, "%d", (int) n);
			else
				assert_int_equal(n, 0);
			return st;
		case OOM_MULTI:
		case OOM_RANGE:
			st = op == OOM_MULTI ?
				cf_read_multi(&f->ts, &token, &key, 1, S(sc), p, NOW, &rows) :
				cf_read_range(&f->ts, &kr, S(sc), p, NOW, &rows);
			if (st == NULL)
			{
				snprintf(out, cap, "%s", fmt_rows(rows));
				cf_read_rows_free(rows);
			}
			else
				assert_null(rows);
			return st;
	}
	fail_msg("unknown op %d", (int) op);
	return NULL;
}

/*
 * Fails every allocation of op in turn: each such run returns NO_MEMORY and no
 * result, and the first run without a failure returns what an undisturbed one does.
 * Every op allocates at least once, but a count over a range of sub-columns: it
 * builds nothing and keeps its few tables' sources in arrays on the stack.
 */
static void
oom_each_allocation(fixture *f, oom_op op, const char *sc, cf_predicate p)
{
	char		want[1024];
	char		got[1024];
	unsigned long n;

	OK(oom_run(f, op, sc, &p, want, sizeof(want)));
	for (n = 1;; n++)
	{
		cf_status  *st;

		cf_read_test_fail_alloc(n);
		st = oom_run(f, op, sc, &p, got, sizeof(got));
		if (!cf_read_test_fail_alloc(0))
		{
			OK(st);
			assert_string_equal(got, want);
			break;
		}
		if (st == NULL || cf_status_code(st) != CF_ERR_NO_MEMORY)
			fail_msg("op %d, allocation %lu failed: %s, expected NO_MEMORY", (int) op, n,
					 st ? cf_status_msg(st) : "success");
		cf_status_free(st);
	}
	if (!(op == OOM_COUNT && sc[0] != '\0' && !p.by_names))
		assert_true(n > 1);
}

/*
 * Super CF reads when allocations fail. A failed builder used to leave a super
 * column's walk without its name, so slices and counts spun on the same cell forever:
 * the alarm turns such a hang into a failure.
 */
static void
super_reads_out_of_memory(void **state)
{
	fixture    *f = *state;
	cf_slice	n[] = {S("e"), S("b"), S("a")};

	super_fill(f);
	seal(f, 0);
	alarm(120);
	for (oom_op op = OOM_SLICE; op <= OOM_RANGE; op++)
	{
		oom_each_allocation(f, op, "", range("", "", false, 100));
		oom_each_allocation(f, op, "", range("", "", true, 2));
		oom_each_allocation(f, op, "", names(n, 3));
		oom_each_allocation(f, op, "c", range("", "", false, 100));
	}
	alarm(0);
}

/* ---------------------------------------------------------------- the reference model */

/* Everything written to one row, as a list; the model reconciles by brute force. */
typedef struct m_row
{
	char		key[16];
	cf_cell    *cells;
	size_t		n_cells;
	cf_deletion del;
	cf_range_tomb *tombs;
	size_t		n_tombs;
} m_row;

#define M_ROWS 12
#define M_NAMES 24
#define M_SCS 6

typedef struct model
{
	const cf_col_order *o;
	m_row		rows[M_ROWS];
	uint8_t		names[M_NAMES][8];	/* LongType names */
	char		scs[M_SCS][2];	/* super column names "a".. */
	char		values[2048][8];
	size_t		n_values;
} model;

static unsigned rng_state;

static unsigned
rnd(unsigned n)
{
	rng_state = rng_state * 1103515245u + 12345u;
	return ((rng_state >> 8) & 0xffffff) % n;
}

static cf_slice
m_name(model *m, unsigned i)
{
	return cf_slice_of(m->names[i], 8);
}

static cf_slice
m_sc(model *m, unsigned i)
{
	return cf_slice_of(m->scs[i], 1);
}

static void
model_init(model *m, const cf_col_order *o)
{
	memset(m, 0, sizeof(*m));
	m->o = o;
	for (int i = 0; i < M_NAMES; i++)
	{
		int64_t		v = (int64_t) (i - M_NAMES / 2) * 1000;	/* negatives too */

		cf_store_be64(m->names[i], (uint64_t) v);
	}
	for (int i = 0; i < M_SCS; i++)
		m->scs[i][0] = (char) ('a' + i);
	for (int i = 0; i < M_ROWS; i++)
	{
		snprintf(m->rows[i].key, sizeof(m->rows[i].key), "r%02d", i);
		m->rows[i].del = cf_deletion_none();
	}
}

static void
model_free(model *m)
{
	for (int i = 0; i < M_ROWS; i++)
	{
		free(m->rows[i].cells);
		free(m->rows[i].tombs);
	}
}

/* Writes random data to the fixture's four tables and to the model. */
static void
model_fill(model *m, fixture *f)
{
	for (int r = 0; r < M_ROWS; r++)
	{
		m_row	   *row = &m->rows[r];
		int			ops = r == 0 ? 6 : 20 + (int) rnd(80);
		cf_slice	key = S(row->key);

		row->cells = calloc((size_t) ops, sizeof(cf_cell));
		row->tombs = calloc((size_t) ops, sizeof(cf_range_tomb));
		for (int i = 0; i < ops; i++)
		{
			cf_memtable *mt = f->mt[rnd(4)];
			unsigned	kind = r == 0 ? 80 + rnd(20) : rnd(100);	/* row 0: only tombstones */
			int64_t		ts = 1 + rnd(40);

			if (kind < 88)
			{
				cf_cell    *c = &row->cells[row->n_cells++];

				c->name = m_name(m, rnd(M_NAMES));
				if (m->o->super)
					c->sc = m_sc(m, rnd(M_SCS));
				c->timestamp = ts;
				if (kind < 12 || r == 0)
				{
					c->flags = CF_CELL_DELETED;
					c->local_time = NOW - 5;
				}
				else
				{
					snprintf(m->values[m->n_values], 8, "v%zu", m->n_values);
					c->value = S(m->values[m->n_values]);
					m->n_values++;
					if (kind < 24)
					{
						c->flags = CF_CELL_EXPIRING;
						c->ttl = 30;
						c->local_time = NOW - 3 + (int32_t) rnd(6);
					}
				}
				apply(mt, key, c, cf_deletion_none(), NULL);
			}
			else if (kind < 91)
			{
				cf_deletion d = {(int64_t) rnd(12), NOW - 5};

				row->del = cf_deletion_max(row->del, d);
				apply(mt, key, NULL, d, NULL);
			}
			else
			{
				cf_range_tomb *t = &row->tombs[row->n_tombs++];
				unsigned	a = rnd(M_NAMES),
							b = a + rnd(4);

				t->del = (cf_deletion) {ts, NOW - 5};
				if (m->o->super && rnd(2))
				{
					a = rnd(M_SCS);
					b = a + rnd(2);
					t->start = rnd(5) ? m_sc(m, a) : NONE;
					t->finish = rnd(5) && b < M_SCS ? m_sc(m, b) : NONE;
				}
				else
				{
					if (m->o->super)
						t->sc = m_sc(m, rnd(M_SCS));
					t->start = rnd(6) ? m_name(m, a) : NONE;
					t->finish = rnd(6) && b < M_NAMES ? m_name(m, b) : NONE;
				}
				apply(mt, key, NULL, cf_deletion_none(), t);
			}
		}
	}
}

/* The model's live cells of a row, in path order. Returns the count; *out malloc'd. */
static size_t
model_live(model *m, int r, cf_cell **out)
{
	m_row	   *row = &m->rows[r];
	cf_cell    *win = calloc(row->n_cells + 1, sizeof(cf_cell));
	size_t		n = 0,
				live = 0;

	for (size_t i = 0; i < row->n_cells; i++)
	{
		size_t		k;

		for (k = 0; k < n; k++)
			if (cf_cell_cmp(m->o, &win[k], &row->cells[i]) == 0)
				break;
		if (k == n)
			win[n++] = row->cells[i];
		else if (cf_cell_reconcile(&row->cells[i], &win[k]) > 0)
			win[k] = row->cells[i];
	}
	for (size_t i = 0; i < n; i++)
	{
		bool		dead = !cf_cell_live(&win[i], NOW) ||
			cf_deletion_shadows(row->del, win[i].timestamp);

		for (size_t t = 0; t < row->n_tombs && !dead; t++)
			dead = cf_deletion_shadows(row->tombs[t].del, win[i].timestamp) &&
				cf_range_tomb_covers(m->o, &row->tombs[t], win[i].sc, win[i].name);
		if (!dead)
			win[live++] = win[i];
	}
	/* insertion sort by path */
	for (size_t i = 1; i < live; i++)
		for (size_t j = i; j > 0 && cf_cell_cmp(m->o, &win[j - 1], &win[j]) > 0; j--)
		{
			cf_cell		t = win[j];

			win[j] = win[j - 1];
			win[j - 1] = t;
		}
	*out = win;
	return live;
}

static void
fmt_model_cell(char *out, size_t cap, size_t *n, const cf_cell *c)
{
	char		tmp[64];

	put_bytes(out, cap, n, c->name);
	put_str(out, cap, n, "=");
	put_bytes(out, cap, n, c->value);
	snprintf(tmp, sizeof(tmp), "@%" PRId64 "/%d", c->timestamp,
			 (c->flags & CF_CELL_EXPIRING) ? (int) c->ttl : 0);
	put_str(out, cap, n, tmp);
}

static bool
in_names(cf_type t, const cf_predicate *p, cf_slice name)
{
	for (size_t i = 0; i < p->n_names; i++)
		if (cf_type_compare(t, p->names[i], name) == 0)
			return true;
	return false;
}

static bool
in_range(cf_type t, const cf_slice_range *r, cf_slice name)
{
	return r->reversed ? cf_name_in_range(t, name, r->finish, r->start) :
		cf_name_in_range(t, name, r->start, r->finish);
}

/* Does the predicate select name? *stop once a range has its count of results. */
static bool
model_selects(cf_type t, const cf_predicate *p, cf_slice name, size_t results, bool *stop)
{
	if (p->by_names)
		return in_names(t, p, name);
	if (!in_range(t, &p->range, name))
		return false;
	*stop = results == (size_t) p->range.count;
	return true;
}

static void
separate(char *out, size_t cap, size_t *n, bool *first)
{
	if (!*first)
		put_str(out, cap, n, " ");
	*first = false;
}

/*
 * The expected answer for one row, formatted as fmt_slice(verbose) does; returns the
 * number of results.
 */
static size_t
model_slice(model *m, int r, cf_slice parent, const cf_predicate *p, char *out, size_t cap,
			size_t *n)
{
	cf_cell    *live;
	size_t		nl = model_live(m, r, &live);
	size_t		results = 0;
	bool		first = true,
				stop = false;

	if (!m->o->super || parent.len)
	{
		cf_type		t = m->o->super ? m->o->subcmp : m->o->cmp;

		for (size_t k = 0; k < nl; k++)
		{
			size_t		i = (!p->by_names && p->range.reversed) ? nl - 1 - k : k;
			cf_cell    *c = &live[i];

			if (parent.len && !cf_slice_eq(c->sc, parent))
				continue;
			if (!model_selects(t, p, c->name, results, &stop))
				continue;
			if (stop)
				break;
			separate(out, cap, n, &first);
			fmt_model_cell(out, cap, n, c);
			results++;
		}
		free(live);
		return results;
	}
	/* super columns: group, then select groups */
	{
		size_t		starts[M_SCS + 1],
					ng = 0;

		for (size_t i = 0; i < nl; i++)
			if (i == 0 || !cf_slice_eq(live[i].sc, live[i - 1].sc))
				starts[ng++] = i;
		starts[ng] = nl;
		for (size_t k = 0; k < ng; k++)
		{
			size_t		g = (!p->by_names && p->range.reversed) ? ng - 1 - k : k;
			cf_slice	sc = live[starts[g]].sc;

			if (!model_selects(m->o->cmp, p, sc, results, &stop))
				continue;
			if (stop)
				break;
			separate(out, cap, n, &first);
			put_bytes(out, cap, n, sc);
			put_str(out, cap, n, "{");
			for (size_t i = starts[g]; i < starts[g + 1]; i++)
			{
				if (i > starts[g])
					put_str(out, cap, n, " ");
				fmt_model_cell(out, cap, n, &live[i]);
			}
			put_str(out, cap, n, "}");
			results++;
		}
	}
	free(live);
	return results;
}

static bool
model_row_live(model *m, int r)
{
	cf_cell    *live;
	size_t		n = model_live(m, r, &live);

	free(live);
	return n > 0;
}

/* A random predicate over the names the parent selects; *valid if the API accepts it. */
static cf_predicate
random_predicate(model *m, bool subs, cf_slice *buf, bool *valid)
{
	cf_predicate p = {0};
	cf_type		t = subs || !m->o->super ? (m->o->super ? m->o->subcmp : m->o->cmp) : m->o->cmp;
	bool		long_names = !m->o->super || subs;

	*valid = true;
	if (rnd(4) == 0)
	{
		p.by_names = true;
		p.n_names = rnd(7);
		for (size_t i = 0; i < p.n_names; i++)
			buf[i] = long_names ? m_name(m, rnd(M_NAMES)) : m_sc(m, rnd(M_SCS));
		p.names = buf;
		return p;
	}
	p.range.start = rnd(4) ? (long_names ? m_name(m, rnd(M_NAMES)) : m_sc(m, rnd(M_SCS))) : NONE;
	p.range.finish = rnd(4) ? (long_names ? m_name(m, rnd(M_NAMES)) : m_sc(m, rnd(M_SCS))) : NONE;
	p.range.reversed = rnd(2);
	p.range.count = rnd(8) == 0 ? 1000 : (int32_t) rnd(12);
	if (p.range.start.len && p.range.finish.len)
	{
		int			c = cf_type_compare(t, p.range.start, p.range.finish);

		if ((p.range.reversed ? c < 0 : c > 0) && rnd(10))
		{
			cf_slice	x = p.range.start;

			p.range.start = p.range.finish;
			p.range.finish = x;
		}
		else if (p.range.reversed ? c < 0 : c > 0)
			*valid = false;
	}
	return p;
}

static char want_buf[1 << 16];
static char got_buf[1 << 16];

static void
random_queries(const cf_col_order *o, unsigned seed, int queries, int *done)
{
	fixture    *f;
	model		m;
	void	   *st;
	cf_slice	buf[8];

	setup_with(&st, o);
	f = st;
	rng_state = seed;
	model_init(&m, o);
	model_fill(&m, f);
	seal(f, 256);				/* small blocks: rows span blocks and get column indexes */

	for (int qn = 0; qn < queries; qn++)
	{
		int			r = (int) rnd(M_ROWS);
		cf_slice	key = S(m.rows[r].key);
		cf_slice	parent = o->super && rnd(3) == 0 ? m_sc(&m, rnd(M_SCS)) : NONE;
		bool		valid;
		cf_predicate p = random_predicate(&m, parent.len > 0, buf, &valid);
		cf_read_result *res;
		cf_status  *s;
		size_t		n = 0,
					expect;
		int32_t		cnt;

		want_buf[0] = '\0';
		expect = model_slice(&m, r, parent, &p, want_buf, sizeof(want_buf), &n);
		s = cf_read_slice(&f->ts, tok(key), key, parent, &p, NOW, &res);
		if (!valid)
		{
			if (cf_status_code(s) != CF_ERR_INVALID)
				fail_msg("seed %u query %d: an inverted range was accepted", seed, qn);
			cf_status_free(s);
			continue;
		}
		if (s)
			fail_msg("seed %u query %d: %s", seed, qn, cf_status_msg(s));
		n = 0;
		got_buf[0] = '\0';
		fmt_slice(got_buf, sizeof(got_buf), &n, &res->slice, true);
		if (strcmp(got_buf, want_buf) != 0)
			fail_msg("seed %u query %d row %d (%s, count %d, reversed %d):\n got  %s\n want %s",
					 seed, qn, r, p.by_names ? "names" : "range", (int) p.range.count,
					 (int) p.range.reversed, got_buf, want_buf);
		cf_read_result_free(res);
		OK(cf_read_count(&f->ts, tok(key), key, parent, &p, NOW, &cnt));
		assert_int_equal(cnt, expect);
		(*done)++;

		/* get of one random path */
		if (rnd(4) == 0)
		{
			cf_slice	sc = o->super ? m_sc(&m, rnd(M_SCS)) : NONE;
			cf_slice	col = !o->super || rnd(2) ? m_name(&m, rnd(M_NAMES)) : NONE;
			cf_predicate gp = names(o->super && col.len == 0 ? &sc : &col, 1);
			cf_slice	gparent = o->super && col.len ? sc : NONE;

			n = 0;
			want_buf[0] = '\0';
			expect = model_slice(&m, r, gparent, &gp, want_buf, sizeof(want_buf), &n);
			s = cf_read_get(&f->ts, tok(key), key, sc, col, NOW, &res);
			if (expect == 0)
			{
				assert_int_equal(cf_status_code(s), CF_ERR_NOT_FOUND);
				cf_status_free(s);
			}
			else
			{
				OK(s);
				n = 0;
				fmt_slice(got_buf, sizeof(got_buf), &n, &res->slice, true);
				assert_string_equal(got_buf, want_buf);
				cf_read_result_free(res);
			}
			(*done)++;
		}
	}

	/* range scans with random bounds, paged through the cursor */
	for (int qn = 0; qn < queries / 8; qn++)
	{
		int			order_idx[M_ROWS];
		cf_slice	parent = o->super && rnd(3) == 0 ? m_sc(&m, rnd(M_SCS)) : NONE;
		bool		valid;
		cf_predicate p = random_predicate(&m, parent.len > 0, buf, &valid);
		cf_key_range kr = {.count = 1 + (int32_t) rnd(4)};
		uint8_t		tl = (uint8_t) rnd(7),
					tr = (uint8_t) rnd(7);
		int			a = (int) rnd(M_ROWS),
					b = (int) rnd(M_ROWS);
		cf_read_cursor cur;
		cf_buf		keep = CF_BUF_INIT;
		size_t		n = 0;

		if (!valid)
			continue;
		kr.by_token = rnd(2);
		if (kr.by_token)
		{
			kr.start_token = tl ? cf_slice_of(&tl, 1) : NONE;
			kr.end_token = tr ? cf_slice_of(&tr, 1) : NONE;
		}
		else
		{
			cf_slice	ka = S(m.rows[a].key),
						kb = S(m.rows[b].key);

			if (row_after(ka, kb))
			{
				cf_slice	x = ka;

				ka = kb;
				kb = x;
			}
			if (rnd(4))
				kr.start_key = ka, kr.start_token = tok(ka);
			if (rnd(4))
				kr.end_key = kb, kr.end_token = tok(kb);
		}
		/* the model: rows in (token, key) order within the range, ghosts omitted */
		for (int i = 0; i < M_ROWS; i++)
			order_idx[i] = i;
		for (int i = 1; i < M_ROWS; i++)
			for (int j = i; j > 0 && row_after(S(m.rows[order_idx[j - 1]].key),
											   S(m.rows[order_idx[j]].key)); j--)
			{
				int			t = order_idx[j];

				order_idx[j] = order_idx[j - 1];
				order_idx[j - 1] = t;
			}
		want_buf[0] = '\0';
		for (int pass = 0; pass < 2; pass++)
			for (int i = 0; i < M_ROWS; i++)
			{
				int			r = order_idx[i];
				cf_slice	k = S(m.rows[r].key),
							t = tok(k);
				bool		in;

				if (kr.by_token)
				{
					bool		wrap = cf_token_cmp(kr.start_token, kr.end_token) >= 0;

					in = cf_token_range_contains(kr.start_token, kr.end_token, t);
					/* a wrapping range lists the rows after start first */
					if (wrap)
						in = in && (pass == 0 ? cf_token_cmp(t, kr.start_token) > 0 :
									cf_token_cmp(t, kr.start_token) <= 0);
					else if (pass == 1)
						in = false;
				}
				else
				{
					in = pass == 0;
					if (kr.start_key.len && (cf_token_cmp(t, kr.start_token) < 0 ||
											 (cf_token_cmp(t, kr.start_token) == 0 &&
											  cf_slice_cmp(k, kr.start_key) < 0)))
						in = false;
					if (kr.end_key.len && (cf_token_cmp(t, kr.end_token) > 0 ||
										   (cf_token_cmp(t, kr.end_token) == 0 &&
											cf_slice_cmp(k, kr.end_key) > 0)))
						in = false;
				}
				if (!in || !model_row_live(&m, r))
					continue;
				put_bytes(want_buf, sizeof(want_buf), &n, k);
				put_str(want_buf, sizeof(want_buf), &n, ": ");
				model_slice(&m, r, parent, &p, want_buf, sizeof(want_buf), &n);
				put_str(want_buf, sizeof(want_buf), &n, "; ");
			}
		/* the scan, page by page */
		n = 0;
		got_buf[0] = '\0';
		for (int pages = 0;; pages++)
		{
			cf_read_rows *rows;

			OK(cf_read_range(&f->ts, &kr, parent, &p, NOW, &rows));
			assert_true(rows->n_rows <= (size_t) kr.count);
			for (size_t i = 0; i < rows->n_rows; i++)
			{
				put_bytes(got_buf, sizeof(got_buf), &n, rows->rows[i].key);
				put_str(got_buf, sizeof(got_buf), &n, ": ");
				fmt_slice(got_buf, sizeof(got_buf), &n, &rows->rows[i].slice, true);
				put_str(got_buf, sizeof(got_buf), &n, "; ");
			}
			if (rows->n_rows < (size_t) kr.count || pages > M_ROWS + 1)
			{
				cf_read_rows_free(rows);
				break;
			}
			keep_cursor(&keep, rows, &cur);
			kr.after = &cur;
			cf_read_rows_free(rows);
		}
		cf_buf_free(&keep);
		if (strcmp(got_buf, want_buf) != 0)
			fail_msg("seed %u range %d (by_token %d, [%d..%d]):\n got  %s\n want %s", seed, qn,
					 (int) kr.by_token, tl, tr, got_buf, want_buf);
		(*done)++;
	}
	model_free(&m);
	teardown(&st);
}

static unsigned
test_seed(void)
{
	const char *e = getenv("CF_TEST_SEED");

	return e ? (unsigned) strtoul(e, NULL, 10) : (unsigned) time(NULL);
}

static void
model_standard_and_super(void **state)
{
	unsigned	seed = test_seed();
	static const cf_col_order std_long = {false, CF_TYPE_LONG, CF_TYPE_BYTES};
	static const cf_col_order super_long = {true, CF_TYPE_UTF8, CF_TYPE_LONG};
	int			done = 0;

	(void) state;
	printf("# random model: seed %u (rerun with CF_TEST_SEED=%u)\n", seed, seed);
	for (int round = 0; round < 3; round++)
	{
		random_queries(&std_long, seed + (unsigned) round * 2, 1200, &done);
		random_queries(&super_long, seed + (unsigned) round * 2 + 1, 1200, &done);
	}
	printf("# random model: %d queries checked\n", done);
	assert_true(done > 3000);
}

/* ---------------------------------------------------------------- a wide row */

static const cf_col_order wide_order = {false, CF_TYPE_LONG, CF_TYPE_BYTES};

/*
 * Writes to path an sstable (wide_order, blocks of block_size; 0: the default) of one
 * row "wide": n cells named 0, 2, 4 ... 2(n-1) as LongType, each of value and
 * timestamp 1, cell i a tombstone (deleted at NOW - 10) where dead is given and true.
 */
static void
write_wide_row(const char *path, size_t block_size, int n, cf_slice value, bool (*dead) (int))
{
	cf_sstable_options opt = {.order = wide_order, .block_size = block_size};
	cf_sstable_writer *w;
	uint8_t		nb[8];

	OK(cf_sstable_writer_open(cf_env_posix(), path, &opt, &w));
	OK(cf_sstable_writer_begin_row(w, tok(S("wide")), S("wide"), cf_deletion_none(), NULL, 0));
	for (int i = 0; i < n; i++)
	{
		cf_cell		c = {.name = cf_slice_of(nb, 8), .value = value, .timestamp = 1};

		if (dead && dead(i))
		{
			c.flags = CF_CELL_DELETED;
			c.value = NONE;
			c.local_time = NOW - 10;
		}
		cf_store_be64(nb, (uint64_t) i * 2);
		OK(cf_sstable_writer_add_cell(w, &c));
	}
	OK(cf_sstable_writer_end_row(w));
	OK(cf_sstable_writer_finish(w, NULL));
}

static void
wide_row_reversed_slice_reads_few_blocks(void **state)
{
	fixture    *f = *state;
	cf_sstable *t;
	const char *path = test_path(f->dir, "wide.sst");
	const int	N = 200000;
	uint8_t		nb[8];
	cf_table_set ts = {wide_order, NULL, 0, &t, 1};
	unsigned	seed = test_seed();
	uint64_t	worst = 0;

	write_wide_row(path, 0, N, S("value!!"), NULL);
	OK(cf_sstable_open(cf_env_posix(), path, &wide_order, &t));

	rng_state = seed;
	for (int rep = 0; rep < 20; rep++)
	{
		uint64_t	start = 21 + rnd((unsigned) N * 2 - 21);	/* odd or even */
		cf_predicate p;
		cf_read_result *r;
		uint64_t	before = cf_sstable_block_reads(t),
					reads;

		cf_store_be64(nb, start);
		p = (cf_predicate) {.range = {cf_slice_of(nb, 8), NONE, true, 10}};
		OK(cf_read_slice(&ts, tok(S("wide")), S("wide"), NONE, &p, NOW, &r));
		reads = cf_sstable_block_reads(t) - before;
		worst = reads > worst ? reads : worst;
		assert_int_equal(r->slice.n_columns, 10);
		for (int i = 0; i < 10; i++)
			assert_true(cf_load_be64(r->slice.columns[i].name.p) ==
						(start & ~(uint64_t) 1) - 2 * (uint64_t) i);
		cf_read_result_free(r);
	}
	printf("# wide row of %d columns, %llu data blocks: reversed slice of 10 read at most %llu blocks\n",
		   N, (unsigned long long) cf_sstable_get_stats(t)->data_blocks,
		   (unsigned long long) worst);
	assert_true(worst <= 6);
	cf_sstable_unref(t);
}

/*
 * Reversed slices of a wide row in small blocks (6 column-index blocks of hundreds of
 * entries, so a top level of 6, searched through their dense names and summary levels)
 * with tombstones in the way: every 5th cell deleted, and a run of 60 deleted cells
 * that spans blocks. Every answer against arithmetic, from starts on, between and
 * around cells, and through a block cache as the db reads.
 */
/* The tombstones of wide_row_reversed_slices_skip_tombstones' row. */
static bool
wide_dead(int i)
{
	return i % 5 == 2 || (i >= 14000 && i < 14060);
}

static void
wide_row_reversed_slices_skip_tombstones(void **state)
{
	fixture    *f = *state;
	cf_sstable *t;
	cf_cache   *cache = cf_cache_new(1 << 20);
	const char *path = test_path(f->dir, "wide-tombs.sst");
	const int	N = 30000;
	uint8_t		nb[8];
	cf_table_set ts = {wide_order, NULL, 0, &t, 1};
	int			checked = 0;

	write_wide_row(path, 256, N, S("v"), wide_dead);
	OK(cf_sstable_open_cached(cf_env_posix(), path, &wide_order, cache, &t));
	for (int64_t start = -1; start <= 2 * N + 1; start += start < 40 || (start > 27900 && start < 28200) ? 1 : 7)
	{
		cf_predicate p;
		cf_read_result *r;
		int			want[10],
					nw = 0;

		/* the live cells <= start, walking down */
		for (int64_t i = start < 0 ? -1 : (start / 2 < N ? start / 2 : N - 1); i >= 0 && nw < 10; i--)
			if (!wide_dead((int) i))
				want[nw++] = (int) i;
		cf_store_be64(nb, (uint64_t) start);
		p = (cf_predicate) {.range = {cf_slice_of(nb, 8), NONE, true, 10}};
		OK(cf_read_slice(&ts, tok(S("wide")), S("wide"), NONE, &p, NOW, &r));
		assert_int_equal(r->slice.n_columns, nw);
		for (int i = 0; i < nw; i++)
			assert_true(cf_load_be64(r->slice.columns[i].name.p) == 2 * (uint64_t) want[i]);
		cf_read_result_free(r);
		checked++;
	}
	assert_true(checked > 8000);
	cf_sstable_unref(t);
	cf_cache_unref(cache);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(std_slices_by_hand, setup_std, teardown),
		cmocka_unit_test_setup_teardown(std_get_and_ttl, setup_std, teardown),
		cmocka_unit_test_setup_teardown(names_read_newest_first, setup_std, teardown),
		cmocka_unit_test_setup_teardown(invalid_requests, setup_std, teardown),
		cmocka_unit_test_setup_teardown(super_slices_by_hand, setup_super, teardown),
		cmocka_unit_test_setup_teardown(multiget_in_input_order, setup_std, teardown),
		cmocka_unit_test_setup_teardown(range_scans_and_cursor, setup_std, teardown),
		cmocka_unit_test_setup_teardown(range_scans_do_not_fill_the_block_cache, setup_std,
										teardown),
		cmocka_unit_test_setup_teardown(super_reads_out_of_memory, setup_super, teardown),
		cmocka_unit_test(model_standard_and_super),
		cmocka_unit_test_setup_teardown(wide_row_reversed_slices_skip_tombstones, setup_std,
										teardown),
		cmocka_unit_test_setup_teardown(wide_row_reversed_slice_reads_few_blocks, setup_std,
										teardown),
	};

	return cmocka_run_group_tests_name("db/read", tests, NULL, NULL);
}
