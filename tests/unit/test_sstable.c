/*
 * tests/unit/test_sstable.c — storage/sstable: writer and reader round trips from a
 * memtable and from direct calls (Standard and Super, LongType and TimeUUID names),
 * seeks and reverse iteration, deletions, the dense column-index searches (every
 * comparator kind they treat apart), bloom and statistics, block reads per seek
 * in wide rows, the block cache (repeats served from it, tables never mixed, readers
 * that do not fill it, threads under eviction), corruption of every byte and
 * truncation, env faults during finish.
 */
#include "support/cmocka_prelude.h"
#include "support/slices.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <errno.h>

#include "storage/memtable.h"
#include "storage/sstable.h"
#include "support/envtest.h"
#include "support/tmpdir.h"
#include "util/buf.h"
#include "util/crc32c.h"
#include "util/env_fault.h"

static const cf_col_order long_order = {false, CF_TYPE_LONG, CF_TYPE_BYTES};
static const cf_col_order super_order = {true, CF_TYPE_UTF8, CF_TYPE_TIME_UUID};

static double
now_sec(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double) ts.tv_sec + ts.tv_nsec / 1e9;
}

/* LongType name: 8 bytes big-endian two's complement. */
static cf_slice
long_name(uint8_t *buf, int64_t v)
{
	cf_store_be64(buf, (uint64_t) v);
	return cf_slice_of(buf, 8);
}

/* A version-1 UUID with 60-bit timestamp ts and a fixed node. */
static cf_slice
timeuuid(uint8_t *u, uint64_t ts)
{
	uint32_t	tl = (uint32_t) ts;
	uint16_t	tm = (uint16_t) (ts >> 32);
	uint16_t	th = (uint16_t) (((ts >> 48) & 0x0fff) | 0x1000);

	u[0] = (uint8_t) (tl >> 24);
	u[1] = (uint8_t) (tl >> 16);
	u[2] = (uint8_t) (tl >> 8);
	u[3] = (uint8_t) tl;
	u[4] = (uint8_t) (tm >> 8);
	u[5] = (uint8_t) tm;
	u[6] = (uint8_t) (th >> 8);
	u[7] = (uint8_t) th;
	memcpy(u + 8, "\x80\x01\x02\x03\x04\x05\x06\x07", 8);
	return cf_slice_of(u, 16);
}

static cf_sstable_options
opts_of(const cf_col_order *o, size_t block_size)
{
	cf_sstable_options opt = {.order = *o, .block_size = block_size};

	return opt;
}

static void
assert_cell_eq(const cf_cell *a, const cf_cell *b)
{
	assert_true(cf_slice_eq(a->sc, b->sc));
	assert_true(cf_slice_eq(a->name, b->name));
	assert_true(cf_slice_eq(a->value, b->value));
	assert_int_equal(a->timestamp, b->timestamp);
	assert_int_equal(a->flags, b->flags);
	assert_int_equal(a->ttl, b->ttl);
	if (a->flags)
		assert_int_equal(a->local_time, b->local_time);
}

/*
 * Every row and cell of mt is in t, in order, with nothing more; each row's cells read
 * backwards from the end equal them reversed. With reuse, one cell iterator serves
 * every row (cf_sstable_cells_reset), outliving the rows it was on. Returns the cells
 * compared.
 */
static uint64_t
check_same(cf_memtable *mt, cf_sstable *t, bool reuse)
{
	cf_mt_iter	mi;
	cf_sstable_iter *it;
	cf_sstable_cells *ci = NULL;
	uint64_t	cells = 0;
	cf_cell    *fw = NULL;
	size_t		cap = 0;

	OK(cf_sstable_iter_new(t, &it));
	OK(cf_sstable_iter_first(it));
	cf_mt_iter_init(&mi, mt);
	cf_mt_iter_seek_first(&mi);
	while (cf_mt_iter_valid(&mi))
	{
		cf_slice	tok = cf_mt_iter_token(&mi),
					key = cf_mt_iter_key(&mi);
		cf_deletion del = cf_deletion_none();
		const cf_range_tomb *tombs = NULL;
		size_t		nt = 0,
					snt,
					n = 0;
		cf_sstable_row *row;
		const cf_range_tomb *st;

		assert_true(cf_sstable_iter_valid(it));
		assert_true(cf_slice_eq(cf_sstable_iter_token(it), tok));
		assert_true(cf_slice_eq(cf_sstable_iter_key(it), key));
		OK(cf_sstable_iter_row(it, &row));
		if (cf_mt_iter_is_header(&mi))
		{
			cf_mt_iter_deletion(&mi, &del, &tombs, &nt);
			cf_mt_iter_next(&mi);
		}
		assert_int_equal(cf_sstable_row_deletion(row).timestamp, del.timestamp);
		st = cf_sstable_row_tombs(row, &snt);
		assert_int_equal(snt, nt);
		for (size_t i = 0; i < nt; i++)
		{
			assert_true(cf_slice_eq(st[i].sc, tombs[i].sc));
			assert_true(cf_slice_eq(st[i].start, tombs[i].start));
			assert_true(cf_slice_eq(st[i].finish, tombs[i].finish));
			assert_int_equal(st[i].del.timestamp, tombs[i].del.timestamp);
			assert_int_equal(st[i].del.local_time, tombs[i].del.local_time);
		}
		if (ci && reuse)
			cf_sstable_cells_reset(ci, row);
		else
			OK(cf_sstable_cells_new(row, &ci));
		OK(cf_sstable_cells_first(ci));
		for (; cf_mt_iter_valid(&mi) && cf_slice_eq(cf_mt_iter_key(&mi), key) &&
			 cf_slice_eq(cf_mt_iter_token(&mi), tok); cf_mt_iter_next(&mi))
		{
			cf_cell		a,
						b;

			cf_mt_iter_cell(&mi, &a);
			assert_true(cf_sstable_cells_valid(ci));
			cf_sstable_cells_cell(ci, &b);
			assert_cell_eq(&a, &b);
			if (n == cap)
			{
				cap = cap ? cap * 2 : 256;
				fw = realloc(fw, cap * sizeof(*fw));
			}
			fw[n++] = a;
			OK(cf_sstable_cells_next(ci));
		}
		assert_false(cf_sstable_cells_valid(ci));
		assert_int_equal(cf_sstable_row_cell_count(row), n);
		/* backwards */
		OK(cf_sstable_cells_last(ci));
		for (size_t i = n; i-- > 0;)
		{
			cf_cell		b;

			assert_true(cf_sstable_cells_valid(ci));
			cf_sstable_cells_cell(ci, &b);
			assert_cell_eq(&fw[i], &b);
			OK(cf_sstable_cells_prev(ci));
		}
		assert_false(cf_sstable_cells_valid(ci));
		cells += n;
		if (!reuse)
		{
			cf_sstable_cells_free(ci);
			ci = NULL;
		}
		cf_sstable_row_free(row);
		OK(cf_sstable_iter_next(it));
	}
	assert_false(cf_sstable_iter_valid(it));
	cf_sstable_cells_free(ci);
	cf_sstable_iter_free(it);
	free(fw);
	return cells;
}

static void
mt_put(cf_memtable *mt, cf_slice tok, cf_slice key, cf_slice sc, cf_slice name,
	   cf_slice value, int64_t ts, uint8_t flags)
{
	cf_cell		c = {.sc = sc, .name = name, .value = value, .timestamp = ts, .flags = flags,
	.local_time = flags ? 1000 + (int32_t) ts : 0, .ttl = (flags & CF_CELL_EXPIRING) ? 60 : 0};
	cf_cf_update u = {.cf_id = 1, .row_del = cf_deletion_none(), .cells = &c, .n_cells = 1};

	OK(cf_memtable_apply(mt, tok, key, &u));
}

/* ---- round trips ---- */

static void
memtable_round_trip_standard(void **state)
{
	char	   *dir = test_tmpdir_new("sst");
	cf_env	   *env = cf_env_posix();
	cf_memtable *mt = cf_memtable_new(&long_order);
	cf_sstable_options opt = opts_of(&long_order, 1024);	/* small blocks: wide rows */
	cf_sstable_stats ws;
	cf_sstable *t;
	char		tk[16],
				k[16],
				v[64];
	uint8_t		nb[8];
	uint64_t	cells = 0,
				tombs = 0,
				expiring = 0;

	(void) state;
	for (int r = 0; r < 60; r++)
	{
		int			ncols = (r % 7 == 0) ? 400 : r % 5;	/* some wide, some empty */

		snprintf(tk, sizeof(tk), "t%03d", (r * 37) % 60);
		snprintf(k, sizeof(k), "key%d", r);
		for (int c = 0; c < ncols; c++)
		{
			uint8_t		fl = (c % 11 == 3) ? CF_CELL_DELETED : (c % 13 == 4) ? CF_CELL_EXPIRING : 0;

			snprintf(v, sizeof(v), "value-%d-%d", r, c);
			mt_put(mt, S(tk), S(k), cf_slice_of(NULL, 0), long_name(nb, (int64_t) c * 3 - 500),
				   fl & CF_CELL_DELETED ? cf_slice_of(NULL, 0) : S(v), c + 1, fl);
			cells++;
			tombs += fl == CF_CELL_DELETED;
			expiring += fl == CF_CELL_EXPIRING;
		}
		if (r % 4 == 1 || ncols == 0)
		{
			/* a row deletion and a range tombstone in the header */
			cf_range_tomb rt = {.start = long_name(nb, 5), .finish = cf_slice_of(NULL, 0),
			.del = {7, 77}};
			cf_cf_update u = {.cf_id = 1, .row_del = {3, 33}, .tombs = &rt, .n_tombs = 1};

			OK(cf_memtable_apply(mt, S(tk), S(k), &u));
			tombs += 2;
		}
	}
	OK(cf_sstable_write_memtable(env, test_path(dir, "1-Data.db"), mt, &opt, &ws));
	assert_int_equal(ws.rows, 60);
	assert_int_equal(ws.cells, cells);
	assert_int_equal(ws.tombstones, tombs);
	assert_int_equal(ws.expiring, expiring);
	assert_true(ws.wide_rows > 0);
	assert_int_equal(ws.min_timestamp, 1);
	assert_int_equal(ws.max_timestamp, 400);

	OK(cf_sstable_open(env, test_path(dir, "1-Data.db"), &long_order, &t));
	assert_memory_equal(cf_sstable_get_stats(t), &ws, sizeof(ws));
	assert_int_equal(check_same(mt, t, false), cells);
	assert_int_equal(check_same(mt, t, true), cells);
	{
		cf_slice	ft, fk, lt, lk;

		cf_sstable_first_row(t, &ft, &fk);
		cf_sstable_last_row(t, &lt, &lk);
		assert_true(cf_slice_eq(ft, S("t000")));
		assert_true(cf_slice_eq(lt, S("t059")));
		assert_true(cf_sstable_sample_count(t) >= 1);
		cf_sstable_sample(t, 0, &lt, &lk);
		assert_true(cf_slice_eq(lt, ft) && cf_slice_eq(lk, fk));
	}
	cf_sstable_unref(t);
	cf_memtable_unref(mt);
	test_tmpdir_free(dir);
}

/* Super CF written directly; TimeUUID sub-columns; seek_le from the end of a super column. */
static void
super_direct_and_reverse(void **state)
{
	char	   *dir = test_tmpdir_new("sst");
	cf_env	   *env = cf_env_posix();
	cf_memtable *mt = cf_memtable_new(&super_order);
	cf_sstable_options opt = opts_of(&super_order, 512);
	cf_sstable_writer *w;
	cf_sstable *t;
	cf_sstable_row *row;
	cf_sstable_cells *ci;
	cf_cell		c;
	uint8_t		u[16];
	const char *scs[] = {"alpha", "beta", "gamma"};

	(void) state;
	OK(cf_sstable_writer_open(env, test_path(dir, "s.db"), &opt, &w));
	for (int r = 0; r < 3; r++)
	{
		char		key[16];

		snprintf(key, sizeof(key), "k%d", r);
		OK(cf_sstable_writer_begin_row(w, S("tok"), S(key), cf_deletion_none(), NULL, 0));
		for (int s = 0; s < 3; s++)
			for (int i = 0; i < 100; i++)
			{
				cf_cell		cc = {.sc = S(scs[s]), .name = timeuuid(u, 1000000 + (uint64_t) i * 10),
				.value = S("v"), .timestamp = i};

				OK(cf_sstable_writer_add_cell(w, &cc));
				mt_put(mt, S("tok"), S(key), cc.sc, cc.name, cc.value, cc.timestamp, 0);
			}
		OK(cf_sstable_writer_end_row(w));
	}
	OK(cf_sstable_writer_finish(w, NULL));
	OK(cf_sstable_open(env, test_path(dir, "s.db"), &super_order, &t));
	assert_int_equal(check_same(mt, t, false), 900);
	assert_int_equal(check_same(mt, t, true), 900);

	OK(cf_sstable_get(t, S("tok"), S("k1"), &row));
	assert_non_null(row);
	assert_true(cf_sstable_row_has_column_index(row));
	OK(cf_sstable_cells_new(row, &ci));
	/* end of super column "beta": its last sub-column, then backwards through it */
	OK(cf_sstable_cells_seek_le(ci, S("beta"), cf_slice_of(NULL, 0)));
	for (int i = 99; i >= 0; i--)
	{
		assert_true(cf_sstable_cells_valid(ci));
		cf_sstable_cells_cell(ci, &c);
		assert_true(cf_slice_eq(c.sc, S("beta")));
		assert_true(cf_slice_eq(c.name, timeuuid(u, 1000000 + (uint64_t) i * 10)));
		OK(cf_sstable_cells_prev(ci));
	}
	cf_sstable_cells_cell(ci, &c);
	assert_true(cf_sstable_cells_valid(ci) && cf_slice_eq(c.sc, S("alpha")));
	/* end of the row; start of a super column; between sub-columns */
	OK(cf_sstable_cells_seek_le(ci, cf_slice_of(NULL, 0), cf_slice_of(NULL, 0)));
	cf_sstable_cells_cell(ci, &c);
	assert_true(cf_slice_eq(c.sc, S("gamma")) && cf_slice_eq(c.name, timeuuid(u, 1000990)));
	OK(cf_sstable_cells_seek(ci, S("beta"), cf_slice_of(NULL, 0)));
	cf_sstable_cells_cell(ci, &c);
	assert_true(cf_slice_eq(c.sc, S("beta")) && cf_slice_eq(c.name, timeuuid(u, 1000000)));
	OK(cf_sstable_cells_seek(ci, S("beta"), timeuuid(u, 1000505)));
	cf_sstable_cells_cell(ci, &c);
	assert_true(cf_slice_eq(c.name, timeuuid(u, 1000510)));
	OK(cf_sstable_cells_seek_le(ci, S("beta"), timeuuid(u, 1000505)));
	cf_sstable_cells_cell(ci, &c);
	assert_true(cf_slice_eq(c.name, timeuuid(u, 1000500)));
	OK(cf_sstable_cells_seek_le(ci, S("aardvark"), cf_slice_of(NULL, 0)));
	assert_false(cf_sstable_cells_valid(ci));
	OK(cf_sstable_cells_seek(ci, S("zeta"), cf_slice_of(NULL, 0)));
	assert_false(cf_sstable_cells_valid(ci));
	cf_sstable_cells_free(ci);
	cf_sstable_row_free(row);

	OK(cf_sstable_get(t, S("tok"), S("k9"), &row));
	assert_null(row);
	cf_sstable_unref(t);
	cf_memtable_unref(mt);
	test_tmpdir_free(dir);
}

/*
 * A Super CF row of super columns "b", "d", "f" of 3000 sub-columns each, in four
 * column-index blocks (256-byte data blocks, so 8 KiB column-index blocks): the first
 * lies within "b" and the last within "f", so they are searched by their names alone;
 * the two between span two super columns each, searched by whole paths. Seeks
 * and reverse seeks into every super column, present or not, before, between, at and
 * after its sub-columns (and open-ended), each checked against the list of paths.
 */
static int
sc_path_cmp(char sa, uint64_t ta, char sb, uint64_t tb)
{
	if (sa != sb)
		return sa < sb ? -1 : 1;
	return ta < tb ? -1 : ta > tb;
}

static void
column_index_search_within_and_across_super_columns(void **state)
{
	char	   *dir = test_tmpdir_new("sst");
	cf_env	   *env = cf_env_posix();
	cf_sstable_options opt = opts_of(&super_order, 256);
	const char	scs[] = "bdf";
	const int	per_sc = 3000;
	const uint64_t base = 5000000;
	cf_sstable_writer *w;
	cf_sstable_stats st;
	cf_sstable *t;
	cf_sstable_row *row;
	cf_sstable_cells *ci;
	uint8_t		u[16];
	int			checked = 0;

	(void) state;
	OK(cf_sstable_writer_open(env, test_path(dir, "sc.db"), &opt, &w));
	OK(cf_sstable_writer_begin_row(w, S("m"), S("wide"), cf_deletion_none(), NULL, 0));
	for (int s = 0; s < 3; s++)
		for (int j = 0; j < per_sc; j++)
		{
			cf_cell		c = {.sc = cf_slice_of(&scs[s], 1),
				.name = timeuuid(u, base + 2 * (uint64_t) j), .value = S("v"),
			.timestamp = s * per_sc + j};

			OK(cf_sstable_writer_add_cell(w, &c));
		}
	OK(cf_sstable_writer_end_row(w));
	OK(cf_sstable_writer_finish(w, &st));
	assert_true(st.data_blocks > 100);
	OK(cf_sstable_open(env, test_path(dir, "sc.db"), &super_order, &t));
	OK(cf_sstable_get(t, S("m"), S("wide"), &row));
	assert_non_null(row);
	OK(cf_sstable_cells_new(row, &ci));
	for (char tsc = 'a'; tsc <= 'g'; tsc++)
		for (int k = -1; k <= 2 * per_sc + 1; k += (k < 40 || k > 2 * per_sc - 40) ? 1 : 37)
		{
			/* target (tsc, base + k); k == -1 stands for the empty name */
			bool		open = k == -1;
			uint64_t	tts = open ? 0 : base + (uint64_t) k;
			cf_slice	name = open ? cf_slice_of(NULL, 0) : timeuuid(u, tts);
			int			first_ge = -1,
						last_le = -1;

			/* the expected answers, over the paths in order (index s * per_sc + j) */
			for (int i = 0; i < 3 * per_sc; i++)
			{
				char		sc = scs[i / per_sc];
				uint64_t	ts = base + 2 * (uint64_t) (i % per_sc);
				int			c = open ? (sc <= tsc ? -1 : 1) : sc_path_cmp(sc, ts, tsc, tts);

				if (open && sc == tsc)
					c = -1;		/* an open finish is the end of the super column */
				if (first_ge < 0 && (open ? sc >= tsc : c >= 0))
					first_ge = i;
				if (c <= 0)
					last_le = i;
			}
			for (int le = 0; le < 2; le++)
			{
				int			want = le ? last_le : first_ge;
				cf_cell		c;

				if (le)
					OK(cf_sstable_cells_seek_le(ci, cf_slice_of(&tsc, 1), name));
				else
					OK(cf_sstable_cells_seek(ci, cf_slice_of(&tsc, 1), name));
				assert_int_equal(cf_sstable_cells_valid(ci), want >= 0);
				if (want < 0)
					continue;
				cf_sstable_cells_cell(ci, &c);
				assert_int_equal(c.timestamp, want);
				checked++;
			}
		}
	assert_true(checked > 1000);
	cf_sstable_cells_free(ci);
	cf_sstable_row_free(row);
	cf_sstable_unref(t);
	test_tmpdir_free(dir);
}

/*
 * The dense column-index searches (summary levels over the names of a column-index
 * block and of a row's top level; 8-byte names compared as integers) against the
 * answer worked out by arithmetic, for one row of many thousand cells in 256-byte
 * blocks (2 to 9 column-index blocks of hundreds of entries each, and so a top level
 * of 2 to 9 entries, more than one line of names for the TimeUUIDs): LongType names
 * (negative ones included: signed), 8-byte BytesType names with the high bit set
 * (unsigned), 3-byte BytesType names and 16-byte TimeUUIDs (compared by the type), and
 * the names of one super column. Every target around every cell, and a walk of 10
 * backwards from some, crossing block boundaries; every 7th cell a tombstone.
 */
typedef enum dense_kind
{
	DENSE_LONG,
	DENSE_BYTES8,
	DENSE_BYTES3,
	DENSE_TIMEUUID,
	DENSE_SUPER
} dense_kind;

/*
 * Name number v (ascending with v) of kind k into buf; v -1 is before every name (for
 * the byte types a shorter name, which takes the general comparison).
 */
static cf_slice
dense_name(dense_kind k, uint8_t *buf, int64_t v)
{
	if (v < 0 && (k == DENSE_BYTES8 || k == DENSE_BYTES3))
	{
		memset(buf, 0, 7);
		return cf_slice_of(buf, k == DENSE_BYTES8 ? 7 : 2);
	}
	switch (k)
	{
		case DENSE_LONG:
			return long_name(buf, v - 20000);	/* negative below the middle */
		case DENSE_BYTES8:
			long_name(buf, v);
			buf[0] = 0x7f;
			if (v >= 20000)
				buf[0] = 0x80;	/* the high bit: unsigned order puts these last */
			return cf_slice_of(buf, 8);
		case DENSE_BYTES3:
			buf[0] = (uint8_t) (v >> 16);
			buf[1] = (uint8_t) (v >> 8);
			buf[2] = (uint8_t) v;
			return cf_slice_of(buf, 3);
		case DENSE_TIMEUUID:
		case DENSE_SUPER:
			return timeuuid(buf, 1000000 + (uint64_t) v);
	}
	return cf_slice_of(NULL, 0);
}

static void
dense_column_index_seeks_match_arithmetic(void **state)
{
	char	   *dir = test_tmpdir_new("sst");
	cf_env	   *env = cf_env_posix();
	const int	n = 20000;		/* names 0, 2, 4 ... 2(n-1) */
	cf_cache   *cache = cf_cache_new(1 << 20);

	(void) state;
	for (int k = DENSE_LONG; k <= DENSE_SUPER; k++)
	{
		cf_col_order o = {k == DENSE_SUPER,
			k == DENSE_LONG ? CF_TYPE_LONG : k == DENSE_TIMEUUID ? CF_TYPE_TIME_UUID :
			k == DENSE_SUPER ? CF_TYPE_UTF8 : CF_TYPE_BYTES,
		k == DENSE_SUPER ? CF_TYPE_TIME_UUID : CF_TYPE_BYTES};
		cf_sstable_options opt = opts_of(&o, 256);
		cf_slice	sc = k == DENSE_SUPER ? S("sc") : cf_slice_of(NULL, 0);
		cf_sstable_writer *w;
		cf_sstable_stats st;
		cf_sstable *t;
		cf_sstable_row *row;
		cf_sstable_cells *ci;
		uint8_t		nb[16];
		char		file[32];

		snprintf(file, sizeof(file), "dense%d.db", k);
		OK(cf_sstable_writer_open(env, test_path(dir, file), &opt, &w));
		OK(cf_sstable_writer_begin_row(w, S("r"), S("row"), cf_deletion_none(), NULL, 0));
		for (int i = 0; i < n; i++)
		{
			cf_cell		c = {.sc = sc, .name = dense_name(k, nb, 2 * i), .value = S("val"),
				.timestamp = i, .flags = i % 7 == 3 ? CF_CELL_DELETED : 0,
			.local_time = i % 7 == 3 ? 1000 : 0};

			OK(cf_sstable_writer_add_cell(w, &c));
		}
		OK(cf_sstable_writer_end_row(w));
		OK(cf_sstable_writer_finish(w, &st));
		/* 256 B blocks of ~10 cells, 8 KiB column-index blocks: a top level of 2 to 9 */
		assert_true(st.data_blocks > 1000);
		OK(cf_sstable_open_cached(env, test_path(dir, file), &o, cache, &t));
		OK(cf_sstable_get(t, S("r"), S("row"), &row));
		assert_non_null(row);
		assert_true(cf_sstable_row_has_column_index(row));
		OK(cf_sstable_cells_new(row, &ci));
		for (int x = -1; x <= 2 * n; x++)
		{
			int			ge = (x + 1) / 2,	/* the first cell >= x, n if none */
						le = x / 2; /* the last cell <= x, -1 if none */
			cf_cell		c;

			if (x < 0)
				ge = 0, le = -1;
			OK(cf_sstable_cells_seek(ci, sc, dense_name(k, nb, x)));
			assert_int_equal(cf_sstable_cells_valid(ci), ge < n);
			if (ge < n)
			{
				cf_sstable_cells_cell(ci, &c);
				assert_int_equal(c.timestamp, ge);
				assert_int_equal(c.flags, ge % 7 == 3 ? CF_CELL_DELETED : 0);
			}
			OK(cf_sstable_cells_seek_le(ci, sc, dense_name(k, nb, x)));
			if (le > n - 1)
				le = n - 1;
			assert_int_equal(cf_sstable_cells_valid(ci), le >= 0);
			if (le < 0 || x % 13)
				continue;
			/* a reversed slice's walk: 10 back from here */
			for (int j = le; j >= 0 && j > le - 10; j--)
			{
				assert_true(cf_sstable_cells_valid(ci));
				cf_sstable_cells_cell(ci, &c);
				assert_int_equal(c.timestamp, j);
				assert_true(cf_slice_eq(c.name, dense_name(k, nb, 2 * j)));
				OK(cf_sstable_cells_prev(ci));
			}
		}
		/* an open finish: the end of the super column (or row); before the super column */
		OK(cf_sstable_cells_seek_le(ci, sc, cf_slice_of(NULL, 0)));
		assert_true(cf_sstable_cells_valid(ci));
		assert_int_equal(cf_sstable_cells_current(ci)->timestamp, n - 1);
		if (k == DENSE_SUPER)
		{
			OK(cf_sstable_cells_seek_le(ci, S("sb"), dense_name(k, nb, 2 * n)));
			assert_false(cf_sstable_cells_valid(ci));
			OK(cf_sstable_cells_seek(ci, S("sd"), dense_name(k, nb, 0)));
			assert_false(cf_sstable_cells_valid(ci));
		}
		cf_sstable_cells_free(ci);
		cf_sstable_row_free(row);
		cf_sstable_unref(t);
	}
	cf_cache_unref(cache);
	test_tmpdir_free(dir);
}

/*
 * Seeks at, between and beyond cells of a row with names 0, 2, 4 ... 2(n-1), for a
 * narrow and a wide layout: every answer checked against arithmetic.
 */
static void
seeks_at_between_beyond(void **state)
{
	char	   *dir = test_tmpdir_new("sst");
	cf_env	   *env = cf_env_posix();
	size_t		sizes[] = {65536, 256};

	(void) state;
	for (int v = 0; v < 2; v++)
	{
		cf_sstable_options opt = opts_of(&long_order, sizes[v]);
		cf_sstable_writer *w;
		cf_sstable *t;
		cf_sstable_row *row;
		cf_sstable_cells *ci;
		uint8_t		nb[8];
		const int	n = 500;

		OK(cf_sstable_writer_open(env, test_path(dir, v ? "wide.db" : "narrow.db"), &opt, &w));
		OK(cf_sstable_writer_begin_row(w, S("a"), S("before"), cf_deletion_none(), NULL, 0));
		OK(cf_sstable_writer_end_row(w));
		OK(cf_sstable_writer_begin_row(w, S("b"), S("row"), cf_deletion_none(), NULL, 0));
		for (int i = 0; i < n; i++)
		{
			cf_cell		c = {.name = long_name(nb, 2 * i), .value = S("x"), .timestamp = 1};

			OK(cf_sstable_writer_add_cell(w, &c));
		}
		OK(cf_sstable_writer_end_row(w));
		OK(cf_sstable_writer_begin_row(w, S("c"), S("after"), cf_deletion_none(), NULL, 0));
		OK(cf_sstable_writer_end_row(w));
		OK(cf_sstable_writer_finish(w, NULL));
		OK(cf_sstable_open(env, test_path(dir, v ? "wide.db" : "narrow.db"), &long_order, &t));
		OK(cf_sstable_get(t, S("b"), S("row"), &row));
		assert_non_null(row);
		assert_int_equal(cf_sstable_row_has_column_index(row), v == 1);
		OK(cf_sstable_cells_new(row, &ci));
		for (int x = -3; x <= 2 * n + 2; x++)
		{
			cf_cell		c;
			int64_t		ge = x < 0 ? 0 : (x + 1) / 2 * 2;
			int64_t		le = x % 2 ? x - 1 : x;

			OK(cf_sstable_cells_seek(ci, cf_slice_of(NULL, 0), long_name(nb, x)));
			if (ge > 2 * (n - 1))
				assert_false(cf_sstable_cells_valid(ci));
			else
			{
				assert_true(cf_sstable_cells_valid(ci));
				cf_sstable_cells_cell(ci, &c);
				assert_true(cf_slice_eq(c.name, long_name(nb, ge)));
			}
			OK(cf_sstable_cells_seek_le(ci, cf_slice_of(NULL, 0), long_name(nb, x)));
			if (le > 2 * (n - 1))
				le = 2 * (n - 1);
			if (x < 0)
				assert_false(cf_sstable_cells_valid(ci));
			else
			{
				assert_true(cf_sstable_cells_valid(ci));
				cf_sstable_cells_cell(ci, &c);
				assert_true(cf_slice_eq(c.name, long_name(nb, le)));
			}
		}
		cf_sstable_cells_free(ci);
		cf_sstable_row_free(row);

		/* an empty row reads as no cells; a row seek between and beyond rows */
		OK(cf_sstable_get(t, S("a"), S("before"), &row));
		OK(cf_sstable_cells_new(row, &ci));
		OK(cf_sstable_cells_first(ci));
		assert_false(cf_sstable_cells_valid(ci));
		OK(cf_sstable_cells_last(ci));
		assert_false(cf_sstable_cells_valid(ci));
		cf_sstable_cells_free(ci);
		cf_sstable_row_free(row);
		{
			cf_sstable_iter *it;

			OK(cf_sstable_iter_new(t, &it));
			OK(cf_sstable_iter_seek(it, S("b"), S("")));
			assert_true(cf_slice_eq(cf_sstable_iter_key(it), S("row")));
			OK(cf_sstable_iter_seek(it, S("b"), S("rox")));
			assert_true(cf_slice_eq(cf_sstable_iter_key(it), S("after")));
			OK(cf_sstable_iter_seek(it, S("c"), S("aftera")));
			assert_false(cf_sstable_iter_valid(it));
			cf_sstable_iter_free(it);
		}
		cf_sstable_unref(t);
	}
	test_tmpdir_free(dir);
}

/* ---- one cell iterator over many rows ---- */

/* ci (reused) and a new iterator over row agree forwards, backwards and at a seek. */
static void
check_reused(cf_sstable_cells *ci, const cf_sstable_row *row)
{
	cf_sstable_cells *fresh;
	cf_cell		a,
				b;
	uint8_t		nb[8];

	OK(cf_sstable_cells_new(row, &fresh));
	cf_sstable_cells_reset(ci, row);
	assert_false(cf_sstable_cells_valid(ci));
	OK(cf_sstable_cells_first(ci));
	OK(cf_sstable_cells_first(fresh));
	while (cf_sstable_cells_valid(fresh))
	{
		assert_true(cf_sstable_cells_valid(ci));
		cf_sstable_cells_cell(ci, &a);
		cf_sstable_cells_cell(fresh, &b);
		assert_cell_eq(&a, &b);
		OK(cf_sstable_cells_next(ci));
		OK(cf_sstable_cells_next(fresh));
	}
	assert_false(cf_sstable_cells_valid(ci));
	cf_sstable_cells_reset(ci, row);
	OK(cf_sstable_cells_last(ci));
	OK(cf_sstable_cells_last(fresh));
	assert_int_equal(cf_sstable_cells_valid(ci), cf_sstable_cells_valid(fresh));
	if (cf_sstable_cells_valid(fresh))
	{
		cf_sstable_cells_cell(ci, &a);
		cf_sstable_cells_cell(fresh, &b);
		assert_cell_eq(&a, &b);
	}
	cf_sstable_cells_reset(ci, row);
	OK(cf_sstable_cells_seek(ci, cf_slice_of(NULL, 0), long_name(nb, 150)));
	OK(cf_sstable_cells_seek(fresh, cf_slice_of(NULL, 0), long_name(nb, 150)));
	assert_int_equal(cf_sstable_cells_valid(ci), cf_sstable_cells_valid(fresh));
	if (cf_sstable_cells_valid(fresh))
	{
		cf_sstable_cells_cell(ci, &a);
		cf_sstable_cells_cell(fresh, &b);
		assert_cell_eq(&a, &b);
	}
	cf_sstable_cells_free(fresh);
}

/*
 * A walk over every row with one reset cell iterator reads each data block once (not
 * once per row in it), and a reset iterator agrees with a new one whatever rows are
 * skipped and in whatever order they come.
 */
static void
reset_cells_reads_each_block_once(void **state)
{
	char	   *dir = test_tmpdir_new("sst");
	cf_env	   *env = cf_env_posix();
	cf_memtable *mt = cf_memtable_new(&long_order);
	cf_sstable_options opt = opts_of(&long_order, 1024);
	const int	nrows = 3000;
	const cf_sstable_stats *st;
	cf_sstable *t;
	cf_sstable_iter *it;
	cf_sstable_cells *ci = NULL;
	uint64_t	before,
				reads;
	char		k[16],
				v[80];
	uint8_t		nb[8];

	(void) state;
	for (int r = 0; r < nrows; r++)
	{
		int			ncols = r % 500 == 250 ? 300 : 4;	/* some rows span many blocks */

		snprintf(k, sizeof(k), "k%05d", r);
		for (int c = 0; c < ncols; c++)
		{
			snprintf(v, sizeof(v), "value-%d-%d-abcdefghijklmnopqrstuvwxyz", r, c);
			mt_put(mt, S(k), S(k), cf_slice_of(NULL, 0), long_name(nb, (int64_t) c * 50),
				   S(v), r + 1, 0);
		}
	}
	OK(cf_sstable_write_memtable(env, test_path(dir, "r.db"), mt, &opt, NULL));
	OK(cf_sstable_open(env, test_path(dir, "r.db"), &long_order, &t));
	st = cf_sstable_get_stats(t);
	assert_true(st->data_blocks > 100 && st->wide_rows >= 6);

	/*
	 * every row in order: each data block and key-index block read once, plus the one
	 * column-index block of each row that spans blocks (many rows of 4 cells do)
	 */
	before = cf_sstable_block_reads(t);
	OK(cf_sstable_iter_new(t, &it));
	OK(cf_sstable_iter_first(it));
	while (cf_sstable_iter_valid(it))
	{
		cf_sstable_row *row;

		OK(cf_sstable_iter_row(it, &row));
		if (ci)
			cf_sstable_cells_reset(ci, row);
		else
			OK(cf_sstable_cells_new(row, &ci));
		OK(cf_sstable_cells_first(ci));
		while (cf_sstable_cells_valid(ci))
			OK(cf_sstable_cells_next(ci));
		cf_sstable_row_free(row);
		OK(cf_sstable_iter_next(it));
	}
	cf_sstable_iter_free(it);
	reads = cf_sstable_block_reads(t) - before;
	printf("# %d rows, %llu data blocks, %llu key-index blocks, %llu wide rows: "
		   "%llu block reads with one cell iterator\n", nrows,
		   (unsigned long long) st->data_blocks, (unsigned long long) st->index_blocks,
		   (unsigned long long) st->wide_rows, (unsigned long long) reads);
	assert_true(reads <= st->data_blocks + st->index_blocks + st->wide_rows);

	/* rows skipped, then backwards: the same cells as a new iterator gives */
	for (int pass = 0; pass < 2; pass++)
		for (int i = 0; i < nrows; i += 7)
		{
			int			r = pass == 0 ? i : nrows - 1 - i;
			cf_sstable_row *row;

			snprintf(k, sizeof(k), "k%05d", r);
			OK(cf_sstable_get(t, S(k), S(k), &row));
			assert_non_null(row);
			check_reused(ci, row);
			cf_sstable_row_free(row);
		}
	cf_sstable_cells_free(ci);
	cf_sstable_unref(t);
	cf_memtable_unref(mt);
	test_tmpdir_free(dir);
}

/* ---- bloom and stats ---- */

static void
bloom_and_stats(void **state)
{
	char	   *dir = test_tmpdir_new("sst");
	cf_env	   *env = cf_env_posix();
	cf_sstable_options opt = opts_of(&long_order, 1024);	/* several key-index blocks */
	cf_sstable_writer *w;
	cf_sstable_stats ws;
	cf_sstable *t;
	const cf_sstable_stats *rs;
	uint8_t		nb[8];
	char		k[32];
	int			fp = 0;

	(void) state;
	OK(cf_sstable_writer_open(env, test_path(dir, "b.db"), &opt, &w));
	for (int r = 0; r < 2000; r++)
	{
		cf_range_tomb rt = {.start = long_name(nb, 1), .finish = long_name(nb, 2), .del = {-50, 5}};
		cf_cell		c1 = {.name = long_name(nb, 1), .value = S("v"), .timestamp = r};
		cf_cell		c2 = {.name = long_name(nb, 2), .timestamp = -7, .flags = CF_CELL_DELETED,
		.local_time = 900};
		cf_cell		c3 = {.name = long_name(nb, 3), .value = S("e"), .timestamp = 5,
		.flags = CF_CELL_EXPIRING, .ttl = 10, .local_time = 1234 + (r == 1500 ? 100000 : 0)};

		snprintf(k, sizeof(k), "%08d", r);
		OK(cf_sstable_writer_begin_row(w, S(k), S(k), r == 7 ? (cf_deletion) {100, 4} : cf_deletion_none(),
									   &rt, r % 2));
		c1.name = long_name(nb, 1);
		OK(cf_sstable_writer_add_cell(w, &c1));
		c2.name = long_name(nb, 2);
		OK(cf_sstable_writer_add_cell(w, &c2));
		c3.name = long_name(nb, 3);
		OK(cf_sstable_writer_add_cell(w, &c3));
		OK(cf_sstable_writer_end_row(w));
	}
	OK(cf_sstable_writer_finish(w, &ws));
	OK(cf_sstable_open(env, test_path(dir, "b.db"), &long_order, &t));
	rs = cf_sstable_get_stats(t);
	assert_int_equal(rs->rows, 2000);
	assert_int_equal(rs->cells, 6000);
	assert_int_equal(rs->tombstones, 2000 + 1000 + 1);
	assert_int_equal(rs->expiring, 2000);
	assert_int_equal(rs->min_timestamp, -50);
	assert_int_equal(rs->max_timestamp, 1999);
	assert_int_equal(rs->max_local_deletion_time, 101234);
	assert_int_equal(rs->file_bytes, ws.file_bytes);
	assert_true(rs->index_blocks > 1);
	assert_int_equal(cf_sstable_sample_count(t), rs->index_blocks);
	for (int r = 0; r < 2000; r++)
	{
		snprintf(k, sizeof(k), "%08d", r);
		assert_true(cf_sstable_may_contain(t, S(k)));
		snprintf(k, sizeof(k), "absent-%d", r);
		fp += cf_sstable_may_contain(t, S(k));
	}
	assert_true(fp < 60);		/* ~1% expected */
	{
		uint64_t	before = cf_sstable_block_reads(t);
		cf_sstable_row *row;
		int			absent_reads = 0;

		for (int r = 0; r < 200; r++)
		{
			snprintf(k, sizeof(k), "absent-%d", r);
			OK(cf_sstable_get(t, S(k), S(k), &row));
			assert_null(row);
		}
		absent_reads = (int) (cf_sstable_block_reads(t) - before);
		assert_true(absent_reads < 10);	/* the bloom filter answers almost all */
		OK(cf_sstable_get(t, S("00000007"), S("00000007"), &row));
		assert_int_equal(cf_sstable_row_deletion(row).timestamp, 100);
		assert_int_equal(cf_sstable_row_deletion(row).local_time, 4);
		cf_sstable_row_free(row);
	}
	printf("# 2000 rows x 3 cells: %llu bytes on disk, %llu raw data bytes, %llu index blocks, %d/2000 false positives\n",
		   (unsigned long long) rs->file_bytes, (unsigned long long) rs->raw_bytes,
		   (unsigned long long) rs->index_blocks, fp);
	cf_sstable_unref(t);
	test_tmpdir_free(dir);
}

/* ---- wide rows: block reads per seek ---- */

/* Writes one row of n cells (Standard LongType, or Super with sub-columns under "sc"). */
static void
write_wide(cf_env *env, const char *path, bool super, int n, size_t block_size, double *rate)
{
	const cf_col_order *o = super ? &super_order : &long_order;
	cf_sstable_options opt = opts_of(o, block_size);
	cf_sstable_writer *w;
	cf_sstable_stats st;
	uint8_t		nb[16];
	double		t0 = now_sec();

	OK(cf_sstable_writer_open(env, path, &opt, &w));
	OK(cf_sstable_writer_begin_row(w, S("a"), S("first"), cf_deletion_none(), NULL, 0));
	OK(cf_sstable_writer_end_row(w));
	OK(cf_sstable_writer_begin_row(w, S("m"), S("wide"), cf_deletion_none(), NULL, 0));
	for (int i = 0; i < n; i++)
	{
		cf_cell		c = {.sc = super ? S("sc") : cf_slice_of(NULL, 0),
			.name = super ? timeuuid(nb, 5000000 + (uint64_t) i * 3) : long_name(nb, (int64_t) i * 3),
		.value = S("01234567"), .timestamp = 1000 + i};

		OK(cf_sstable_writer_add_cell(w, &c));
	}
	OK(cf_sstable_writer_end_row(w));
	OK(cf_sstable_writer_begin_row(w, S("z"), S("last"), cf_deletion_none(), NULL, 0));
	OK(cf_sstable_writer_end_row(w));
	OK(cf_sstable_writer_finish(w, &st));
	*rate = n / (now_sec() - t0);
	printf("# %s row of %d cells, %zu-byte blocks: %llu bytes on disk, %llu raw, %llu data blocks (%.1f%%)\n",
		   super ? "super" : "standard", n, block_size ? block_size : 4096,
		   (unsigned long long) st.file_bytes,
		   (unsigned long long) st.raw_bytes, (unsigned long long) st.data_blocks,
		   100.0 * st.file_bytes / st.raw_bytes);
}

/* Max block reads of a row lookup + seek at 200 random positions; checks each answer. */
static int
max_seek_reads(cf_env *env, const char *path, bool super, int n, double *rate)
{
	const cf_col_order *o = super ? &super_order : &long_order;
	cf_sstable *t;
	int			worst = 0;
	uint8_t		nb[16];
	uint32_t	x = 12345;
	double		t0;

	OK(cf_sstable_open(env, path, o, &t));
	t0 = now_sec();
	for (int q = 0; q < 200; q++)
	{
		uint64_t	before = cf_sstable_block_reads(t);
		cf_sstable_row *row;
		cf_sstable_cells *ci;
		cf_cell		c;
		int			i,
					reads;

		x = x * 1103515245u + 12345u;
		i = (int) ((x >> 4) % (uint32_t) n);
		OK(cf_sstable_get(t, S("m"), S("wide"), &row));
		OK(cf_sstable_cells_new(row, &ci));
		if (q % 2)
		{
			/* between cells: the first >= i*3+1 is (i+1)*3 */
			OK(cf_sstable_cells_seek(ci, super ? S("sc") : cf_slice_of(NULL, 0),
									 super ? timeuuid(nb, 5000000 + (uint64_t) i * 3 + 1)
									 : long_name(nb, (int64_t) i * 3 + 1)));
			i++;
		}
		else
			OK(cf_sstable_cells_seek_le(ci, super ? S("sc") : cf_slice_of(NULL, 0),
										super ? timeuuid(nb, 5000000 + (uint64_t) i * 3)
										: long_name(nb, (int64_t) i * 3)));
		reads = (int) (cf_sstable_block_reads(t) - before);
		if (i < n)
		{
			assert_true(cf_sstable_cells_valid(ci));
			cf_sstable_cells_cell(ci, &c);
			assert_int_equal(c.timestamp, 1000 + i);
		}
		if (reads > worst)
			worst = reads;
		cf_sstable_cells_free(ci);
		cf_sstable_row_free(row);
	}
	*rate = 200 / (now_sec() - t0);
	cf_sstable_unref(t);
	return worst;
}

static void
wide_row_seeks_are_bounded(void **state)
{
	char	   *dir = test_tmpdir_new("sst");
	cf_env	   *env = cf_env_posix();
	const int	sizes[] = {1000, 100000, 1000000};
	int			worst[2][3];

	(void) state;
	for (int super = 0; super < 2; super++)
		for (int k = 0; k < 3; k++)
		{
			int			n = super && k == 2 ? 200000 : sizes[k];
			const char *p = test_path(dir, "wide.db");
			double		wrate,
						rrate;

			write_wide(env, p, super, n, 0, &wrate);
			worst[super][k] = max_seek_reads(env, p, super, n, &rrate);
			printf("# %s n=%d: at most %d block reads per row lookup + seek; "
				   "write %.0f cells/s, %.0f lookups+seeks/s\n",
				   super ? "super column" : "standard row", n, worst[super][k], wrate, rrate);
			assert_true(worst[super][k] <= 4);
			OK(cf_env_remove(env, p));
		}
	/* no growth from the smallest to the largest: one more level at most */
	assert_true(worst[0][2] <= worst[0][0] + 1);
	assert_true(worst[1][2] <= worst[1][0] + 1);
	/* 512-byte blocks: ~20k data blocks, many column-index blocks, both levels used */
	{
		const char *p = test_path(dir, "wide.db");
		double		wrate,
					rrate;
		int			w;

		write_wide(env, p, false, 300000, 512, &wrate);
		w = max_seek_reads(env, p, false, 300000, &rrate);
		printf("# standard row n=300000, 512-byte blocks: at most %d block reads per lookup + seek\n", w);
		assert_true(w <= 4);
	}
	test_tmpdir_free(dir);
}

static int
cmp_bytes_str(const void *a, const void *b)
{
	const cf_slice *x = a,
			   *y = b;

	return cf_slice_cmp(*x, *y);
}

/*
 * Row lookups by tokens that share a long prefix and differ in length and in zero
 * bytes past it (the top-level index is searched by the bytes after the prefix all its
 * tokens share): every row found, every absent one not, every seek lands on the first
 * row at or after its target.
 */
static void
seek_by_tokens_with_shared_prefix(void **state)
{
	enum { N = 3000 };			/* enough rows for many key-index blocks */
	char	   *dir = test_tmpdir_new("sst");
	cf_env	   *env = cf_env_posix();
	const char *p = test_path(dir, "pfx.db");
	cf_sstable_options opt = opts_of(&long_order, 256);
	cf_sstable_writer *w;
	cf_sstable *t;
	cf_sstable_iter *it;
	uint8_t		bytes[N][40];
	cf_slice	tok[N];
	uint8_t		nb[8];
	uint32_t	x = 7;
	size_t		n = 0;

	(void) state;
	for (int i = 0; i < N; i++)
	{
		size_t		len = 14 + (size_t) (i % 17);	/* 14..30 bytes: the prefix is 12 */

		memcpy(bytes[i], "shared-pfx--", 12);
		for (size_t j = 12; j < len; j++)
		{
			x = x * 1103515245u + 12345u;
			bytes[i][j] = (x >> 16) % 5 == 0 ? 0 : (uint8_t) (x >> 20);
		}
		tok[i] = cf_slice_of(bytes[i], len);
	}
	qsort(tok, N, sizeof(cf_slice), cmp_bytes_str);
	for (int i = 0; i < N; i++)
		if (n == 0 || !cf_slice_eq(tok[n - 1], tok[i]))
			tok[n++] = tok[i];
	/* every other token is written; the rest are absent */
	OK(cf_sstable_writer_open(env, p, &opt, &w));
	for (size_t i = 0; i < n; i += 2)
	{
		cf_cell		c = {.name = long_name(nb, 1), .value = S("v"), .timestamp = 1};

		OK(cf_sstable_writer_begin_row(w, tok[i], S("k"), cf_deletion_none(), NULL, 0));
		OK(cf_sstable_writer_add_cell(w, &c));
		OK(cf_sstable_writer_end_row(w));
	}
	OK(cf_sstable_writer_finish(w, NULL));
	OK(cf_sstable_open(env, p, &long_order, &t));
	assert_true(cf_sstable_sample_count(t) > 10);
	OK(cf_sstable_iter_new(t, &it));
	for (size_t i = 0; i < n; i++)
	{
		cf_sstable_row *row;

		OK(cf_sstable_get(t, tok[i], S("k"), &row));
		assert_int_equal(row != NULL, i % 2 == 0);
		cf_sstable_row_free(row);
		OK(cf_sstable_iter_seek(it, tok[i], S("k")));
		if (i % 2 == 0 || i + 1 < n)
		{
			size_t		want = i % 2 == 0 ? i : i + 1;

			assert_true(cf_sstable_iter_valid(it));
			assert_true(cf_slice_eq(cf_sstable_iter_token(it), tok[want]));
		}
		else
			assert_false(cf_sstable_iter_valid(it));
	}
	/* the same tokens with a key just before and just after the row's: a tie on the
	 * token (and on any prefix of it) is settled by the key */
	for (size_t i = 0; i < n; i += 2)
	{
		OK(cf_sstable_iter_seek(it, tok[i], S("j")));
		assert_true(cf_sstable_iter_valid(it));
		assert_true(cf_slice_eq(cf_sstable_iter_token(it), tok[i]));
		OK(cf_sstable_iter_seek(it, tok[i], S("l")));
		if (i + 2 < n)
		{
			assert_true(cf_sstable_iter_valid(it));
			assert_true(cf_slice_eq(cf_sstable_iter_token(it), tok[i + 2]));
		}
		else
			assert_false(cf_sstable_iter_valid(it));
	}
	/* tokens without the shared prefix: before or after everything */
	OK(cf_sstable_iter_seek(it, S("a"), S("k")));
	assert_true(cf_sstable_iter_valid(it));
	assert_true(cf_slice_eq(cf_sstable_iter_token(it), tok[0]));
	OK(cf_sstable_iter_seek(it, S("shared"), S("k")));
	assert_true(cf_sstable_iter_valid(it));
	assert_true(cf_slice_eq(cf_sstable_iter_token(it), tok[0]));
	OK(cf_sstable_iter_seek(it, S("z"), S("k")));
	assert_false(cf_sstable_iter_valid(it));
	cf_sstable_iter_free(it);
	cf_sstable_unref(t);
	test_tmpdir_free(dir);
}

/* ---- the block cache ---- */

/* Writes rows "r00000".. of one cell each, valued "<tag>-<row>", at path. */
static void
write_tagged(cf_env *env, const char *path, int rows, int tag, size_t block_size)
{
	cf_sstable_options opt = opts_of(&long_order, block_size);
	cf_sstable_writer *w;
	uint8_t		nb[8];

	OK(cf_sstable_writer_open(env, path, &opt, &w));
	for (int r = 0; r < rows; r++)
	{
		char		k[16],
					v[32];
		cf_cell		c = {.name = long_name(nb, 1), .timestamp = 1};

		snprintf(k, sizeof(k), "r%05d", r);
		snprintf(v, sizeof(v), "%d-%d", tag, r);
		c.value = S(v);
		OK(cf_sstable_writer_begin_row(w, S(k), S(k), cf_deletion_none(), NULL, 0));
		OK(cf_sstable_writer_add_cell(w, &c));
		OK(cf_sstable_writer_end_row(w));
	}
	OK(cf_sstable_writer_finish(w, NULL));
}

/* Row r of t (written by write_tagged) holds "<tag>-<r>". */
static void
expect_tagged(cf_sstable *t, int r, int tag)
{
	char		k[16],
				v[32];
	cf_sstable_row *row;
	cf_sstable_cells *ci;
	cf_cell		c;

	snprintf(k, sizeof(k), "r%05d", r);
	snprintf(v, sizeof(v), "%d-%d", tag, r);
	OK(cf_sstable_get(t, S(k), S(k), &row));
	assert_non_null(row);
	OK(cf_sstable_cells_new(row, &ci));
	OK(cf_sstable_cells_first(ci));
	assert_true(cf_sstable_cells_valid(ci));
	cf_sstable_cells_cell(ci, &c);
	assert_true(cf_slice_eq(c.value, S(v)));
	cf_sstable_cells_free(ci);
	cf_sstable_row_free(row);
}

/*
 * Through a cache, a second read of a row reads no block from the file; two tables
 * share the cache without mixing their blocks (same offsets, different files); and a
 * table written where a deleted one was never sees the old one's cached blocks.
 */
static void
cache_serves_repeats_and_never_mixes_tables(void **state)
{
	char	   *dir = test_tmpdir_new("sst");
	cf_env	   *env = cf_env_posix();
	cf_cache   *cache = cf_cache_new(1 << 20);
	char		pa[512],
				pb[512];
	cf_sstable *a,
			   *b;
	cf_cache_stats st;
	uint64_t	reads;

	(void) state;
	snprintf(pa, sizeof(pa), "%s", test_path(dir, "a.db"));
	snprintf(pb, sizeof(pb), "%s", test_path(dir, "b.db"));
	write_tagged(env, pa, 2000, 1, 512);
	write_tagged(env, pb, 2000, 2, 512);	/* the same layout: blocks at the same offsets */
	OK(cf_sstable_open_cached(env, pa, &long_order, cache, &a));
	OK(cf_sstable_open_cached(env, pb, &long_order, cache, &b));
	for (int r = 0; r < 2000; r += 7)
	{
		expect_tagged(a, r, 1);
		expect_tagged(b, r, 2);
	}
	reads = cf_sstable_block_reads(a) + cf_sstable_block_reads(b);
	for (int r = 0; r < 2000; r += 7)
	{
		expect_tagged(a, r, 1);
		expect_tagged(b, r, 2);
	}
	assert_int_equal(cf_sstable_block_reads(a) + cf_sstable_block_reads(b), reads);
	cf_cache_get_stats(cache, &st);
	assert_true(st.hits > 0);
	assert_true(st.entries > 0);

	/* a is deleted and another table written at its path, while its blocks are cached */
	{
		size_t		before = st.entries;

		cf_sstable_unref(a);
		cf_cache_get_stats(cache, &st);
		assert_true(st.entries < before);	/* a's entries left with it */
	}
	OK(cf_env_remove(env, pa));
	write_tagged(env, pa, 2000, 3, 512);
	OK(cf_sstable_open_cached(env, pa, &long_order, cache, &a));
	for (int r = 0; r < 2000; r += 7)
	{
		expect_tagged(a, r, 3);
		expect_tagged(b, r, 2);
	}
	cf_sstable_unref(a);
	cf_sstable_unref(b);
	cf_cache_get_stats(cache, &st);
	assert_int_equal(st.entries, 0);
	assert_int_equal(st.usage, 0);
	cf_cache_unref(cache);
	test_tmpdir_free(dir);
}

/* An iterator told not to fill the cache adds nothing to it, but uses what is there. */
static void
iterator_that_does_not_fill_the_cache(void **state)
{
	char	   *dir = test_tmpdir_new("sst");
	cf_env	   *env = cf_env_posix();
	cf_cache   *cache = cf_cache_new(1 << 20);
	const char *p = test_path(dir, "t.db");
	cf_sstable *t;
	cf_sstable_iter *it;
	cf_sstable_cells *ci = NULL;
	cf_cache_stats st;
	int			rows = 0;

	(void) state;
	write_tagged(env, p, 3000, 1, 512);
	OK(cf_sstable_open_cached(env, p, &long_order, cache, &t));
	expect_tagged(t, 10, 1);	/* one key-index and one data block cached */
	cf_cache_get_stats(cache, &st);
	assert_int_equal(st.inserts, 2);
	OK(cf_sstable_iter_new(t, &it));
	cf_sstable_iter_fill_cache(it, false);
	OK(cf_sstable_iter_first(it));
	for (; cf_sstable_iter_valid(it); rows++)
	{
		cf_sstable_row *row;

		OK(cf_sstable_iter_row(it, &row));
		if (ci == NULL)
			OK(cf_sstable_cells_new(row, &ci));
		else
			cf_sstable_cells_reset(ci, row);
		OK(cf_sstable_cells_first(ci));
		assert_true(cf_sstable_cells_valid(ci));
		cf_sstable_row_free(row);
		OK(cf_sstable_iter_next(it));
	}
	assert_int_equal(rows, 3000);
	cf_cache_get_stats(cache, &st);
	assert_int_equal(st.inserts, 2);
	assert_true(st.hits >= 2);	/* the two cached blocks served the walk */
	cf_sstable_cells_free(ci);
	cf_sstable_iter_free(it);
	cf_sstable_unref(t);
	cf_cache_unref(cache);
	test_tmpdir_free(dir);
}

typedef struct reader_arg
{
	cf_sstable *t;
	unsigned	seed;
	int			bad;
} reader_arg;

static void *
reader_main(void *arg)
{
	reader_arg *ra = arg;

	for (int i = 0; i < 3000; i++)
	{
		int			r = rand_r(&ra->seed) % 4000;
		char		k[16],
					v[32];
		cf_sstable_row *row = NULL;
		cf_sstable_cells *ci = NULL;
		cf_cell		c;

		snprintf(k, sizeof(k), "r%05d", r);
		snprintf(v, sizeof(v), "1-%d", r);
		if (cf_sstable_get(ra->t, S(k), S(k), &row) != NULL || row == NULL ||
			cf_sstable_cells_new(row, &ci) != NULL || cf_sstable_cells_first(ci) != NULL ||
			!cf_sstable_cells_valid(ci))
			ra->bad++;
		else
		{
			cf_sstable_cells_cell(ci, &c);
			ra->bad += !cf_slice_eq(c.value, S(v));
		}
		cf_sstable_cells_free(ci);
		cf_sstable_row_free(row);
	}
	return NULL;
}

/* Threads reading through a cache too small for the table: evictions under readers. */
static void
concurrent_readers_through_a_small_cache(void **state)
{
	enum { T = 6 };
	char	   *dir = test_tmpdir_new("sst");
	cf_env	   *env = cf_env_posix();
	cf_cache   *cache = cf_cache_new(16 * 2048);
	const char *p = test_path(dir, "t.db");
	cf_sstable *t;
	pthread_t	th[T];
	reader_arg	ra[T];
	cf_cache_stats st;

	(void) state;
	write_tagged(env, p, 4000, 1, 256);
	OK(cf_sstable_open_cached(env, p, &long_order, cache, &t));
	for (int i = 0; i < T; i++)
	{
		ra[i] = (reader_arg) {.t = t, .seed = (unsigned) i + 1};
		assert_int_equal(pthread_create(&th[i], NULL, reader_main, &ra[i]), 0);
	}
	for (int i = 0; i < T; i++)
	{
		pthread_join(th[i], NULL);
		assert_int_equal(ra[i].bad, 0);
	}
	cf_cache_get_stats(cache, &st);
	assert_true(st.evictions > 0);
	assert_true(st.usage <= 16 * 2048);
	cf_sstable_unref(t);
	cf_cache_unref(cache);
	test_tmpdir_free(dir);
}

/* ---- corruption ---- */

/* Opens path and reads every row and cell; returns the first error (or NULL). */
static cf_status *
read_everything(cf_env *env, const char *path)
{
	cf_sstable *t;
	cf_sstable_iter *it = NULL;
	cf_status  *s = cf_sstable_open(env, path, &long_order, &t);

	if (s)
		return s;
	s = cf_sstable_iter_new(t, &it);
	if (s == NULL)
		s = cf_sstable_iter_first(it);
	while (s == NULL && cf_sstable_iter_valid(it))
	{
		cf_sstable_row *row;
		cf_sstable_cells *ci;

		if ((s = cf_sstable_iter_row(it, &row)) != NULL)
			break;
		if ((s = cf_sstable_cells_new(row, &ci)) == NULL)
		{
			for (s = cf_sstable_cells_first(ci); s == NULL && cf_sstable_cells_valid(ci);)
				s = cf_sstable_cells_next(ci);
			if (s == NULL)
				s = cf_sstable_cells_last(ci);
			cf_sstable_cells_free(ci);
		}
		cf_sstable_row_free(row);
		if (s == NULL)
			s = cf_sstable_iter_next(it);
	}
	cf_sstable_iter_free(it);
	cf_sstable_unref(t);
	return s;
}

static void
copy_file(cf_env *env, const char *from, const char *to, const uint8_t *data, size_t len)
{
	cf_wfile   *f;

	(void) from;
	OK(cf_env_open_write(env, to, CF_OPEN_TRUNCATE, &f));
	OK(cf_wfile_append(f, data, len));
	OK(cf_wfile_close(f));
}

static void
every_flip_and_truncation_is_corruption(void **state)
{
	char	   *dir = test_tmpdir_new("sst");
	cf_env	   *env = cf_env_posix();
	cf_sstable_options opt = opts_of(&long_order, 256);
	cf_sstable_writer *w;
	const char *good = test_path(dir, "good.db");
	char		badp[512];
	uint8_t    *data;
	size_t		len;
	uint8_t		nb[8];
	int			flips = 0;

	(void) state;
	snprintf(badp, sizeof(badp), "%s", test_path(dir, "bad.db"));
	OK(cf_sstable_writer_open(env, good, &opt, &w));
	for (int r = 0; r < 12; r++)
	{
		char		k[16];
		cf_range_tomb rt = {.start = long_name(nb, 1), .del = {5, 5}};

		snprintf(k, sizeof(k), "r%02d", r);
		OK(cf_sstable_writer_begin_row(w, S(k), S(k), cf_deletion_none(), &rt, r % 3 == 0));
		for (int c = 0; c < (r == 5 ? 60 : 3); c++)	/* row 5 is wide */
		{
			cf_cell		cell = {.name = long_name(nb, c), .value = S("value"), .timestamp = c};

			OK(cf_sstable_writer_add_cell(w, &cell));
		}
		OK(cf_sstable_writer_end_row(w));
	}
	OK(cf_sstable_writer_finish(w, NULL));
	OK(read_everything(env, good));
	OK(cf_env_read_file(env, good, &data, &len));

	for (size_t i = 0; i < len; i++)
	{
		data[i] ^= 0x10;
		copy_file(env, good, badp, data, len);
		FAILS(read_everything(env, badp), CF_ERR_CORRUPTION, "bad.db");
		data[i] ^= 0x10;
		flips++;
	}
	for (size_t cut = 0; cut < len; cut += (cut < 100 || len - cut < 100) ? 1 : 7)
	{
		copy_file(env, good, badp, data, cut);
		FAILS(read_everything(env, badp), CF_ERR_CORRUPTION, "bad.db");
	}
	/* a newer version: the message says so; version 1 (a dense key index) is refused */
	{
		uint8_t    *v = data + len - 16;	/* the version, big-endian */
		uint8_t    *crc = data + len - 12;

		assert_int_equal(v[3], 2);
		v[3] = 3;
		copy_file(env, good, badp, data, len);
		FAILS(read_everything(env, badp), CF_ERR_CORRUPTION, "newer colfam");
		v[3] = 1;
		cf_store_be32(crc, cf_crc32c_mask(cf_crc32c(data + len - 64, 52)));
		copy_file(env, good, badp, data, len);
		FAILS(read_everything(env, badp), CF_ERR_CORRUPTION, "version 1 (one key-index entry per row) is no longer read");
		v[3] = 2;
		cf_store_be32(crc, cf_crc32c_mask(cf_crc32c(data + len - 64, 52)));
	}
	printf("# %d single-byte flips and the truncations of a %zu-byte sstable all detected\n", flips, len);
	free(data);
	test_tmpdir_free(dir);
}

/* ---- writer contract and env faults ---- */

/*
 * Keys so long that the one-block top-level index would pass CF_BLOCK_MAX_RAW: the
 * writer fails as the key-index block that passes it is written, naming the file and
 * the section, long before finish.
 */
static void
top_index_limit_fails_early(void **state)
{
	char	   *dir = test_tmpdir_new("sst");
	cf_env	   *env = cf_env_posix();
	cf_sstable_options opt = opts_of(&long_order, 256);	/* a key-index block per row */
	cf_sstable_writer *w;
	const char *p = test_path(dir, "big-keys.db");
	const size_t klen = 60000;	/* ~120 KB of top-level index per row */
	char	   *key = malloc(klen);
	cf_status  *s = NULL;
	int			r;
	uint8_t		nb[8];
	cf_cell		c = {.value = S("v"), .timestamp = 1};

	(void) state;
	memset(key, 'k', klen);		/* compresses: the data and key index stay small */
	OK(cf_sstable_writer_open(env, p, &opt, &w));
	for (r = 0; r < 1000 && s == NULL; r++)
	{
		char		tok[16];

		snprintf(tok, sizeof(tok), "t%05d", r);
		c.name = long_name(nb, r);
		s = cf_sstable_writer_begin_row(w, S(tok), cf_slice_of(key, klen), cf_deletion_none(),
										NULL, 0);
		if (s == NULL)
			s = cf_sstable_writer_add_cell(w, &c);
		if (s == NULL)
			s = cf_sstable_writer_end_row(w);
	}
	/* 64 MiB / ~120 KB per key-index block: the ~560th row, not finish */
	assert_non_null(s);
	printf("# 60000-byte keys: the writer fails at row %d: %s\n", r - 1, cf_status_msg(s));
	assert_true(r > 500 && r < 600);
	assert_string_equal(cf_code_name(cf_status_code(s)), cf_code_name(CF_ERR_TOO_LARGE));
	assert_non_null(strstr(cf_status_msg(s), "top-level index of "));
	assert_non_null(strstr(cf_status_msg(s), p));
	cf_status_free(s);
	FAILS(cf_sstable_writer_finish(w, NULL), CF_ERR_INVALID, "failed earlier");
	assert_false(cf_env_exists(env, p));
	free(key);
	test_tmpdir_free(dir);
}

static void
out_of_order_is_invalid_and_leaves_no_file(void **state)
{
	char	   *dir = test_tmpdir_new("sst");
	cf_env	   *env = cf_env_posix();
	cf_sstable_options opt = opts_of(&long_order, 0);
	cf_sstable_writer *w;
	const char *p = test_path(dir, "x.db");
	uint8_t		nb[8];
	cf_cell		c = {.value = S("v")};

	(void) state;
	OK(cf_sstable_writer_open(env, p, &opt, &w));
	OK(cf_sstable_writer_begin_row(w, S("t"), S("b"), cf_deletion_none(), NULL, 0));
	OK(cf_sstable_writer_end_row(w));
	FAILS(cf_sstable_writer_begin_row(w, S("t"), S("a"), cf_deletion_none(), NULL, 0),
		  CF_ERR_INVALID, "out of order");
	FAILS(cf_sstable_writer_finish(w, NULL), CF_ERR_INVALID, "failed earlier");
	assert_false(cf_env_exists(env, p));

	OK(cf_sstable_writer_open(env, p, &opt, &w));
	OK(cf_sstable_writer_begin_row(w, S("t"), S("a"), cf_deletion_none(), NULL, 0));
	c.name = long_name(nb, 5);
	OK(cf_sstable_writer_add_cell(w, &c));
	c.name = long_name(nb, 5);
	FAILS(cf_sstable_writer_add_cell(w, &c), CF_ERR_INVALID, "cells out of order");
	cf_sstable_writer_abandon(w);
	assert_false(cf_env_exists(env, p));

	OK(cf_sstable_writer_open(env, p, &opt, &w));
	FAILS(cf_sstable_writer_add_cell(w, &c), CF_ERR_INVALID, "outside a row");
	cf_sstable_writer_abandon(w);
	OK(cf_sstable_writer_open(env, p, &opt, &w));
	OK(cf_sstable_writer_begin_row(w, S("t"), S("a"), cf_deletion_none(), NULL, 0));
	c.sc = S("sc");
	FAILS(cf_sstable_writer_add_cell(w, &c), CF_ERR_INVALID, "super column");
	cf_sstable_writer_abandon(w);
	assert_false(cf_env_exists(env, p));
	/* an existing file is never clobbered */
	test_put(env, p, CF_OPEN_TRUNCATE, "precious");
	FAILS(cf_sstable_writer_open(env, p, &opt, &w), CF_ERR_BUSY, "x.db");
	test_expect_contents(env, p, "precious");
	test_tmpdir_free(dir);
}

/* Writes 300 rows through env, faults armed by `arm` just before finish. */
static cf_status *
write_with_fault(cf_env *env, const char *p, void (*arm) (cf_env *))
{
	cf_sstable_options opt = opts_of(&long_order, 1024);
	cf_sstable_writer *w;
	uint8_t		nb[8];

	OK(cf_sstable_writer_open(env, p, &opt, &w));
	for (int r = 0; r < 300; r++)
	{
		char		k[16];
		cf_cell		c = {.name = long_name(nb, 1), .value = S("some value"), .timestamp = 1};

		snprintf(k, sizeof(k), "%05d", r);
		OK(cf_sstable_writer_begin_row(w, S(k), S(k), cf_deletion_none(), NULL, 0));
		OK(cf_sstable_writer_add_cell(w, &c));
		OK(cf_sstable_writer_end_row(w));
	}
	arm(env);
	return cf_sstable_writer_finish(w, NULL);
}

static void
arm_enospc(cf_env *env)
{
	cf_env_fault_set_space(env, 100);
}

static void
arm_sync(cf_env *env)
{
	cf_env_fault_fail(env, CF_FAULT_SYNC, 0, EIO, 1);
}

static void
arm_nothing(cf_env *env)
{
	(void) env;
}

static void
env_faults_during_finish(void **state)
{
	char	   *dir = test_tmpdir_new("sst");
	cf_env	   *env = cf_env_fault_new(cf_env_posix());
	const char *p = test_path(dir, "f.db");
	cf_sstable_options opt = opts_of(&long_order, 0);
	cf_sstable_writer *w;

	(void) state;
	FAILS(write_with_fault(env, p, arm_enospc), CF_ERR_NO_SPACE, "f.db");
	assert_false(cf_env_exists(env, p));
	cf_env_fault_clear(env);
	FAILS(write_with_fault(env, p, arm_sync), CF_ERR_IO, "f.db");
	assert_false(cf_env_exists(env, p));
	cf_env_fault_clear(env);
	OK(write_with_fault(env, p, arm_nothing));
	OK(read_everything(env, p));
	OK(cf_env_remove(env, p));
	/* abandon in the middle leaves nothing */
	OK(cf_sstable_writer_open(env, p, &opt, &w));
	OK(cf_sstable_writer_begin_row(w, S("a"), S("a"), cf_deletion_none(), NULL, 0));
	cf_sstable_writer_abandon(w);
	assert_false(cf_env_exists(env, p));
	cf_env_fault_free(env);
	test_tmpdir_free(dir);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(memtable_round_trip_standard),
		cmocka_unit_test(super_direct_and_reverse),
		cmocka_unit_test(column_index_search_within_and_across_super_columns),
		cmocka_unit_test(seeks_at_between_beyond),
		cmocka_unit_test(dense_column_index_seeks_match_arithmetic),
		cmocka_unit_test(reset_cells_reads_each_block_once),
		cmocka_unit_test(bloom_and_stats),
		cmocka_unit_test(wide_row_seeks_are_bounded),
		cmocka_unit_test(seek_by_tokens_with_shared_prefix),
		cmocka_unit_test(cache_serves_repeats_and_never_mixes_tables),
		cmocka_unit_test(iterator_that_does_not_fill_the_cache),
		cmocka_unit_test(concurrent_readers_through_a_small_cache),
		cmocka_unit_test(every_flip_and_truncation_is_corruption),
		cmocka_unit_test(out_of_order_is_invalid_and_leaves_no_file),
		cmocka_unit_test(top_index_limit_fails_early),
		cmocka_unit_test(env_faults_during_finish),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
