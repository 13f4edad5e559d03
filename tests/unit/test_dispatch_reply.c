/* tests/unit/test_dispatch_reply.c — thrift/dispatch_reply: the read methods' replies
 * encoded straight from db/read results are byte for byte those of the generic codec
 * (cf_t_write_reply of a reference cf_t_result), over real reads of a memtable holding
 * Standard and Super rows with expiring, expired and deleted columns, forward and
 * reversed ranges, counts, names, empty and absent rows; and the range replies streamed
 * from the scan (cf_tr_range_writer over cf_read_range_sink) byte for byte those of
 * cf_tr_write_reply over cf_read_range's rows, also under a buffer limit; and
 * colfam_multiget_chain's reply against thrift/admin.h's encoder. */
#include "support/cmocka_prelude.h"
#include "support/slices.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db/read.h"
#include "support/envtest.h"
#include "thrift/admin.h"
#include "thrift/dispatch_reply.h"

#define NOW 1000
#define NONE cf_slice_of("", 0)

static const cf_col_order std_order = {false, CF_TYPE_UTF8, CF_TYPE_BYTES};
static const cf_col_order super_order = {true, CF_TYPE_UTF8, CF_TYPE_UTF8};

/* Every key's token is its first byte: rows come back in key order. */
static cf_slice
token_of(cf_slice key)
{
	return cf_slice_of(key.p, 1);
}

/*
 * One cell into mt: live (flags 0), EXPIRING at expiry (ttl 60) or DELETED; a NULL
 * name deletes the whole row at ts instead.
 */
static void
cell(cf_memtable *mt, const char *key, const char *sc, const char *name,
	 const char *value, int64_t ts, uint8_t flags, int32_t expiry)
{
	cf_cell		c = {.sc = S(sc), .name = name ? S(name) : NONE,
		.value = S(value), .timestamp = ts, .flags = flags,
		.ttl = flags == CF_CELL_EXPIRING ? 60 : 0,
	.local_time = flags ? expiry : 0};
	cf_cf_update u = {.cf_id = 1, .row_del = cf_deletion_none(),
	.cells = &c, .n_cells = name ? 1 : 0};

	if (name == NULL)
		u.row_del = (cf_deletion) {ts, NOW - 10};
	OK(cf_memtable_apply(mt, token_of(S(key)), S(key), &u));
}

/* ---------------------------------------------------------------- the reference */

/*
 * The reference answer: the cf_t_result cf_t_write_reply encodes, its
 * ColumnOrSuperColumn structs from arena pointing into the engine's result (as
 * dispatch.c built it before the direct encoder).
 */
static void *
ref_alloc(cf_arena *arena, size_t n, size_t size)
{
	void	   *p = cf_arena_alloc(arena, n * size);

	assert_non_null(p);
	memset(p, 0, n * size);
	return p;
}

static void
ref_column(const cf_read_column *rc, cf_t_column *tc)
{
	tc->name = rc->name;
	tc->value = rc->value;
	tc->timestamp = rc->timestamp;
	tc->has_ttl = rc->ttl > 0;
	tc->ttl = rc->ttl;
}

/* The list<ColumnOrSuperColumn> of rs; its length in *n_out. */
static cf_t_cosc *
ref_coscs(cf_arena *arena, const cf_row_slice *rs, size_t *n_out)
{
	size_t		n = rs->is_super ? rs->n_supers : rs->n_columns;
	cf_t_cosc  *v = ref_alloc(arena, n, sizeof(*v));

	for (size_t i = 0; i < n; i++)
	{
		if (rs->is_super)
		{
			const cf_read_super *sup = &rs->supers[i];
			cf_t_column *cols = ref_alloc(arena, sup->n_columns, sizeof(*cols));

			for (size_t j = 0; j < sup->n_columns; j++)
				ref_column(&sup->columns[j], &cols[j]);
			v[i].has_super_column = true;
			v[i].super_column.name = sup->name;
			v[i].super_column.columns = cols;
			v[i].super_column.n_columns = sup->n_columns;
		}
		else
		{
			v[i].has_column = true;
			ref_column(&rs->columns[i], &v[i].column);
		}
	}
	*n_out = n;
	return v;
}

/* A row's key and list<ColumnOrSuperColumn>: a multiget entry's or a KeySlice's. */
static void
ref_row(cf_arena *arena, const cf_read_row *row, cf_slice *key, cf_t_cosc **columns,
		size_t *n_columns)
{
	*key = row->key;
	*columns = ref_coscs(arena, &row->slice, n_columns);
}

static void
ref_result(cf_arena *arena, cf_t_method m, const cf_row_slice *rs,
		   const cf_read_rows *rows, cf_t_result *res)
{
	size_t		n;

	memset(res, 0, sizeof(*res));
	switch (m)
	{
		case CF_T_M_GET:
			res->cosc = ref_coscs(arena, rs, &n)[0];
			break;
		case CF_T_M_GET_SLICE:
			res->coscs = ref_coscs(arena, rs, &res->n_coscs);
			break;
		case CF_T_M_MULTIGET_SLICE:
			res->n_key_coscs = rows->n_rows;
			res->key_coscs = ref_alloc(arena, rows->n_rows, sizeof(*res->key_coscs));
			for (size_t i = 0; i < rows->n_rows; i++)
				ref_row(arena, &rows->rows[i], &res->key_coscs[i].key,
						&res->key_coscs[i].columns, &res->key_coscs[i].n_columns);
			break;
		default:
			res->n_key_slices = rows->n_rows;
			res->key_slices = ref_alloc(arena, rows->n_rows, sizeof(*res->key_slices));
			for (size_t i = 0; i < rows->n_rows; i++)
				ref_row(arena, &rows->rows[i], &res->key_slices[i].key,
						&res->key_slices[i].columns, &res->key_slices[i].n_columns);
			break;
	}
}

/*
 * Encodes the answer both ways and checks the bytes match; returns the reply's
 * length so a caller can tell an answer with columns from an empty one.
 */
static size_t
same_bytes(cf_t_method m, const cf_row_slice *rs, const cf_read_rows *rows)
{
	cf_buf		direct = CF_BUF_INIT,
				generic = CF_BUF_INIT;
	cf_arena   *arena = cf_arena_new(4096);
	cf_t_result res;
	size_t		len;

	assert_non_null(arena);
	/* something before the message, as the server's buffer may hold earlier replies */
	cf_buf_put(&direct, "xy", 2);
	cf_buf_put(&generic, "xy", 2);
	OK(cf_tr_write_reply(&direct, m, 77, rs, rows));
	ref_result(arena, m, rs, rows, &res);
	OK(cf_t_write_reply(&generic, m, 77, &res));
	assert_int_equal(direct.len, generic.len);
	assert_memory_equal(direct.data, generic.data, direct.len);
	len = direct.len - 2;
	cf_buf_free(&direct);
	cf_buf_free(&generic);
	cf_arena_free(arena);
	return len;
}

static cf_predicate
by_range(const char *start, const char *finish, bool reversed, int32_t count)
{
	cf_predicate p = {.range = {S(start), S(finish), reversed, count}};

	return p;
}

/* get_slice of key under sc through both encoders; the number of results. */
static size_t
check_slice(const cf_table_set *ts, const char *key, const char *sc, cf_predicate p)
{
	cf_read_result *r;
	size_t		n;

	OK(cf_read_slice(ts, token_of(S(key)), S(key), S(sc), &p, NOW, &r));
	same_bytes(CF_T_M_GET_SLICE, &r->slice, NULL);
	n = r->slice.is_super ? r->slice.n_supers : r->slice.n_columns;
	cf_read_result_free(r);
	return n;
}

/*
 * The range reply streamed from the scan kr into a buffer holding "xy" and limited to
 * limit bytes (0: none): the scan's and the writer's outcome, the first error; the
 * buffer in *out (its "xy" dropped on success).
 */
static cf_status *
streamed(const cf_table_set *ts, const cf_key_range *kr, const char *sc, cf_predicate p,
		 cf_t_method m, size_t limit, cf_buf *out)
{
	cf_tr_range_writer w;
	cf_read_sink sink;
	cf_status  *s;

	cf_buf_init(out, limit);
	cf_buf_put(out, "xy", 2);
	OK(cf_tr_range_writer_init(&w, out, m, 77, &sink));
	s = cf_read_range_sink(ts, kr, S(sc), &p, NOW, &sink);
	/* a second attempt (a retried replica) starts the message over */
	if (s == NULL)
		s = cf_read_range_sink(ts, kr, S(sc), &p, NOW, &sink);
	if (s == NULL)
		s = cf_tr_range_writer_finish(&w);
	return s;
}

/*
 * get_range_slices (and get_indexed_slices) of kr: the streamed reply equals the
 * direct and the generic encodings of cf_read_range's rows, and under a limit one
 * byte short it fails naming the reply's size. The number of rows.
 */
static size_t
check_range_kr(const cf_table_set *ts, const cf_key_range *kr, const char *sc,
			   cf_predicate p)
{
	static const cf_t_method ms[] = {CF_T_M_GET_RANGE_SLICES, CF_T_M_GET_INDEXED_SLICES};
	cf_read_rows *rows;
	size_t		n;

	OK(cf_read_range(ts, kr, S(sc), &p, NOW, &rows));
	for (size_t i = 0; i < 2; i++)
	{
		cf_buf		direct = CF_BUF_INIT,
					st;
		size_t		len;
		char		msg[80];

		same_bytes(ms[i], NULL, rows);
		cf_buf_put(&direct, "xy", 2);
		OK(cf_tr_write_reply(&direct, ms[i], 77, NULL, rows));
		OK(streamed(ts, kr, sc, p, ms[i], 0, &st));
		assert_int_equal(st.len, direct.len);
		assert_memory_equal(st.data, direct.data, st.len);
		len = st.len;
		cf_buf_free(&st);

		/* exactly the size fits; a byte less fails with the whole size named */
		OK(streamed(ts, kr, sc, p, ms[i], len, &st));
		assert_int_equal(st.len, len);
		cf_buf_free(&st);
		snprintf(msg, sizeof(msg), "it would be %zu bytes, more than the limit of %zu",
				 len - 2, len - 1);
		FAILS(streamed(ts, kr, sc, p, ms[i], len - 1, &st), CF_ERR_TOO_LARGE, msg);
		assert_true(st.len <= len - 1);
		cf_buf_free(&st);
		cf_buf_free(&direct);
	}
	n = rows->n_rows;
	cf_read_rows_free(rows);
	return n;
}

/* check_range_kr over all rows, at most count of them. */
static size_t
check_range(const cf_table_set *ts, const char *sc, cf_predicate p, int32_t count)
{
	cf_key_range kr = {.by_token = false,.count = count};

	return check_range_kr(ts, &kr, sc, p);
}

/* multiget_slice of keys; the number of rows. */
static size_t
check_multi(const cf_table_set *ts, const char *const *keys, size_t n_keys, const char *sc,
			cf_predicate p)
{
	cf_slice	k[8],
				t[8];
	cf_read_rows *rows;
	size_t		n;

	for (size_t i = 0; i < n_keys; i++)
	{
		k[i] = S(keys[i]);
		t[i] = token_of(k[i]);
	}
	OK(cf_read_multi(ts, t, k, n_keys, S(sc), &p, NOW, &rows));
	same_bytes(CF_T_M_MULTIGET_SLICE, NULL, rows);
	n = rows->n_rows;
	cf_read_rows_free(rows);
	return n;
}

static void
standard_replies(void **state)
{
	cf_memtable *mt = cf_memtable_new(&std_order);
	cf_table_set ts = {std_order, &mt, 1, NULL, 0};
	cf_slice	nm[] = {S("e"), S("a"), S("d"), S("zz")};
	cf_predicate names = {.by_names = true,.names = nm,.n_names = 4};
	const char *keys[] = {"c", "a", "zabsent", "b", "a"};
	cf_read_result *r;
	cf_buf		b = CF_BUF_INIT;

	(void) state;
	cell(mt, "a", "", "a", "1", 1, 0, 0);
	cell(mt, "a", "", "b", "expiring", 2, CF_CELL_EXPIRING, NOW + 50);
	cell(mt, "a", "", "c", "expired", 3, CF_CELL_EXPIRING, NOW - 1);
	cell(mt, "a", "", "d", "", 4, CF_CELL_DELETED, NOW - 10);
	cell(mt, "a", "", "e", "", -5, 0, 0);	/* empty value, negative timestamp */
	cell(mt, "b", "", "x", "only", 1, 0, 0);
	cell(mt, "c", "", "y", "gone", 1, 0, 0);
	cell(mt, "c", "", NULL, "", 2, 0, 0);	/* row deleted: a range ghost */

	assert_int_equal(check_slice(&ts, "a", "", by_range("", "", false, 100)), 3);
	assert_int_equal(check_slice(&ts, "a", "", by_range("", "", true, 2)), 2);
	assert_int_equal(check_slice(&ts, "a", "", by_range("b", "", false, 100)), 2);
	assert_int_equal(check_slice(&ts, "a", "", by_range("", "", false, 0)), 0);
	assert_int_equal(check_slice(&ts, "a", "", names), 2);
	assert_int_equal(check_slice(&ts, "zabsent", "", by_range("", "", false, 10)), 0);
	assert_int_equal(check_slice(&ts, "c", "", by_range("", "", false, 10)), 0);

	assert_int_equal(check_range(&ts, "", by_range("", "", false, 100), 100), 2);
	assert_int_equal(check_range(&ts, "", by_range("", "", true, 1), 100), 2);
	assert_int_equal(check_range(&ts, "", by_range("", "", false, 0), 100), 2);
	assert_int_equal(check_range(&ts, "", by_range("", "", false, 100), 1), 1);
	/* live rows whose slices are empty */
	assert_int_equal(check_range(&ts, "", by_range("zz", "", false, 100), 100), 2);
	assert_int_equal(check_range(&ts, "", names, 100), 2);
	assert_int_equal(check_range(&ts, "", by_range("", "", true, 100), 0), 0);
	{
		/* a key range ending inclusive at b; after a; by tokens (a, b] */
		cf_read_cursor after = {.token = token_of(S("a")),.key = S("a")};
		cf_key_range kr = {.start_token = token_of(S("a")),.start_key = S("a"),
			.end_token = token_of(S("b")),.end_key = S("b"),.count = 100};

		assert_int_equal(check_range_kr(&ts, &kr, "", by_range("", "", false, 100)), 2);
		kr.after = &after;
		assert_int_equal(check_range_kr(&ts, &kr, "", by_range("", "", false, 100)), 1);
		kr = (cf_key_range) {.by_token = true,.start_token = token_of(S("a")),
		.end_token = token_of(S("b")),.count = 100};
		assert_int_equal(check_range_kr(&ts, &kr, "", by_range("", "", true, 100)), 1);
	}

	assert_int_equal(check_multi(&ts, keys, 5, "", by_range("", "", false, 100)), 4);
	assert_int_equal(check_multi(&ts, keys, 5, "", names), 4);
	assert_int_equal(check_multi(&ts, keys, 0, "", names), 0);

	/* get: one column, with and without a ttl */
	OK(cf_read_get(&ts, token_of(S("a")), S("a"), NONE, S("b"), NOW, &r));
	assert_true(same_bytes(CF_T_M_GET, &r->slice, NULL) > 40);
	cf_read_result_free(r);
	OK(cf_read_get(&ts, token_of(S("a")), S("a"), NONE, S("a"), NOW, &r));
	same_bytes(CF_T_M_GET, &r->slice, NULL);
	cf_read_result_free(r);

	/* get needs exactly one result; other methods are not rows */
	OK(cf_read_slice(&ts, token_of(S("a")), S("a"), NONE, &names, NOW, &r));
	FAILS(cf_tr_write_reply(&b, CF_T_M_GET, 1, &r->slice, NULL), CF_ERR_INVALID,
		  "exactly one");
	FAILS(cf_tr_write_reply(&b, CF_T_M_GET_COUNT, 1, &r->slice, NULL), CF_ERR_INVALID,
		  "get_count is not a read method");
	FAILS(cf_tr_write_reply(&b, CF_T_M_GET_RANGE_SLICES, 1, &r->slice, NULL),
		  CF_ERR_INVALID, "no result");
	cf_read_result_free(r);
	cf_buf_free(&b);
	cf_memtable_unref(mt);
}

static void
super_replies(void **state)
{
	cf_memtable *mt = cf_memtable_new(&super_order);
	cf_table_set ts = {super_order, &mt, 1, NULL, 0};
	cf_slice	nm[] = {S("s2"), S("s1"), S("s9")};
	cf_predicate names = {.by_names = true,.names = nm,.n_names = 3};
	const char *keys[] = {"b", "a", "zabsent"};
	cf_read_result *r;

	(void) state;
	cell(mt, "a", "s1", "x", "1", 1, 0, 0);
	cell(mt, "a", "s1", "y", "ttl", 2, CF_CELL_EXPIRING, NOW + 50);
	cell(mt, "a", "s2", "x", "", 3, CF_CELL_DELETED, NOW - 10);	/* s2 has nothing live */
	cell(mt, "a", "s3", "p", "3p", 4, 0, 0);
	cell(mt, "a", "s3", "q", "3q", 4, 0, 0);
	cell(mt, "a", "s3", "r", "old", 4, CF_CELL_EXPIRING, NOW - 1);
	cell(mt, "b", "t", "z", "b", 1, 0, 0);

	assert_int_equal(check_slice(&ts, "a", "", by_range("", "", false, 100)), 2);
	assert_int_equal(check_slice(&ts, "a", "", by_range("", "", true, 100)), 2);
	assert_int_equal(check_slice(&ts, "a", "", by_range("", "", true, 1)), 1);
	assert_int_equal(check_slice(&ts, "a", "", names), 1);
	assert_int_equal(check_slice(&ts, "a", "s3", by_range("", "", true, 100)), 2);
	assert_int_equal(check_slice(&ts, "a", "s1", by_range("", "", false, 100)), 2);

	assert_int_equal(check_range(&ts, "", by_range("", "", false, 100), 100), 2);
	assert_int_equal(check_range(&ts, "s1", by_range("", "", true, 100), 100), 2);
	assert_int_equal(check_range(&ts, "", by_range("", "", true, 1), 100), 2);
	assert_int_equal(check_range(&ts, "", by_range("s2", "", false, 100), 1), 1);
	assert_int_equal(check_range(&ts, "", names, 100), 2);
	assert_int_equal(check_range(&ts, "s2", by_range("", "", false, 100), 100), 2);
	assert_int_equal(check_multi(&ts, keys, 3, "", by_range("", "", true, 100)), 3);

	/* get of a whole super column, and of one sub-column */
	OK(cf_read_get(&ts, token_of(S("a")), S("a"), S("s3"), NONE, NOW, &r));
	assert_true(same_bytes(CF_T_M_GET, &r->slice, NULL) > 60);
	cf_read_result_free(r);
	OK(cf_read_get(&ts, token_of(S("a")), S("a"), S("s1"), S("y"), NOW, &r));
	same_bytes(CF_T_M_GET, &r->slice, NULL);
	cf_read_result_free(r);
	cf_memtable_unref(mt);
}

/* A length the protocol's i32 cannot carry fails the buffer instead of wrapping. */
static void
overlong_length_fails(void **state)
{
	cf_read_column col = {.name = cf_slice_of("n", 1),
	.value = cf_slice_of("v", (size_t) INT32_MAX + 1)};
	cf_row_slice rs = {.columns = &col,.n_columns = 1};
	cf_buf		b = CF_BUF_INIT;

	(void) state;
	FAILS(cf_tr_write_reply(&b, CF_T_M_GET_SLICE, 1, &rs, NULL), CF_ERR_TOO_LARGE,
		  "too large for its encoding");
	cf_buf_free(&b);
}

/*
 * The streamed writer says when an error was its own (an encoding error, which the
 * server words as such) and not the read's: set by a failing callback, not by going
 * past the limit (only counted), cleared when an attempt starts over.
 */
static void
writer_failure_is_its_own(void **state)
{
	cf_read_column ok = {.name = S("n"),.value = S("v"),.timestamp = 1};
	cf_read_column overlong = {.name = S("n"),
	.value = cf_slice_of("v", (size_t) INT32_MAX + 1)};
	cf_tr_range_writer w;
	cf_read_sink sink;
	cf_buf		b;

	(void) state;
	cf_buf_init(&b, 40);		/* room for the header and little more */
	OK(cf_tr_range_writer_init(&w, &b, CF_T_M_GET_RANGE_SLICES, 1, &sink));
	OK(sink.begin(sink.arg));
	OK(sink.row_begin(sink.arg, S("t"), S("k")));
	FAILS(sink.column(sink.arg, &overlong), CF_ERR_TOO_LARGE, "too large for its encoding");
	assert_true(cf_tr_range_writer_failed(&w));
	OK(sink.begin(sink.arg));	/* a retried attempt */
	assert_false(cf_tr_range_writer_failed(&w));
	OK(sink.row_begin(sink.arg, S("t"), S("k")));
	for (int i = 0; i < 10; i++)
		OK(sink.column(sink.arg, &ok));	/* past the limit: counted, no error */
	OK(sink.row_end(sink.arg, true));
	assert_false(cf_tr_range_writer_failed(&w));
	FAILS(cf_tr_range_writer_finish(&w), CF_ERR_TOO_LARGE, "more than the limit of 40");
	cf_buf_free(&b);
}

/*
 * The reply is sized once against the buffer's limit: a buffer of exactly the reply's
 * length takes it, one byte less fails with the limit named (nothing half-written past
 * the limit).
 */
static void
reply_over_the_buffer_limit_fails(void **state)
{
	cf_read_column cols[] = {
		{.name = S("a"),.value = S("1"),.timestamp = 1},
		{.name = S("b"),.value = S("expiring"),.timestamp = 2,.ttl = 60},
	};
	cf_read_row row = {.key = S("k"),.slice = {.columns = cols,.n_columns = 2}};
	cf_read_rows rows = {.rows = &row,.n_rows = 1};
	cf_buf		b = CF_BUF_INIT;
	size_t		len;

	(void) state;
	OK(cf_tr_write_reply(&b, CF_T_M_GET_RANGE_SLICES, 1, NULL, &rows));
	len = b.len;
	cf_buf_free(&b);

	cf_buf_init(&b, len);
	OK(cf_tr_write_reply(&b, CF_T_M_GET_RANGE_SLICES, 1, NULL, &rows));
	assert_int_equal(b.len, len);
	cf_buf_free(&b);

	cf_buf_init(&b, len - 1);
	FAILS(cf_tr_write_reply(&b, CF_T_M_GET_RANGE_SLICES, 1, NULL, &rows), CF_ERR_TOO_LARGE,
		  "limit");
	assert_true(b.len <= len - 1);
	cf_buf_free(&b);
}

/*
 * colfam_multiget_chain's reply: cf_tr_write_chain_reply over real multigets (a
 * Standard and a Super table, an empty and an absent step) equals cf_ta_write_reply of
 * the same answers as KeySlices; exactly its size fits a buffer, a byte less fails.
 */
static void
chain_replies(void **state)
{
	cf_memtable *smt = cf_memtable_new(&std_order);
	cf_memtable *pmt = cf_memtable_new(&super_order);
	cf_table_set sts = {std_order, &smt, 1, NULL, 0};
	cf_table_set pts = {super_order, &pmt, 1, NULL, 0};
	cf_slice	k[3] = {S("b"), S("a"), S("zabsent")};
	cf_slice	t[3];
	cf_predicate all = by_range("", "", false, 100);
	cf_read_rows *steps[4] = {NULL};
	cf_ta_chain_answer ans[4];
	cf_arena   *arena = cf_arena_new(4096);
	cf_buf		direct = CF_BUF_INIT,
				generic = CF_BUF_INIT;
	char		msg[80];

	(void) state;
	cell(smt, "a", "", "x", "1", 1, 0, 0);
	cell(smt, "a", "", "y", "ttl", 2, CF_CELL_EXPIRING, NOW + 50);
	cell(smt, "b", "", "z", "", -3, 0, 0);
	cell(pmt, "a", "s1", "x", "1", 1, 0, 0);
	cell(pmt, "a", "s1", "y", "ttl", 2, CF_CELL_EXPIRING, NOW + 50);
	cell(pmt, "b", "s2", "p", "q", 4, 0, 0);
	for (size_t i = 0; i < 3; i++)
		t[i] = token_of(k[i]);
	OK(cf_read_multi(&sts, t, k, 3, NONE, &all, NOW, &steps[0]));
	OK(cf_read_multi(&pts, t, k, 3, NONE, &all, NOW, &steps[1]));
	/* steps[2]: a step without keys (NULL); steps[3]: a multiget of no key */
	OK(cf_read_multi(&sts, t, k, 0, NONE, &all, NOW, &steps[3]));
	for (size_t i = 0; i < 4; i++)
	{
		size_t		n = steps[i] ? steps[i]->n_rows : 0;

		ans[i].n_rows = n;
		ans[i].rows = ref_alloc(arena, n ? n : 1, sizeof(cf_t_key_slice));
		for (size_t j = 0; j < n; j++)
			ref_row(arena, &steps[i]->rows[j], &ans[i].rows[j].key, &ans[i].rows[j].columns,
					&ans[i].rows[j].n_columns);
	}
	assert_int_equal(ans[0].n_rows, 3);
	assert_true(ans[1].rows[1].columns[0].has_super_column);
	OK(cf_tr_write_chain_reply(&direct, "colfam_multiget_chain", 9,
							   (const cf_read_rows *const *) steps, 4));
	OK(cf_ta_write_reply(&generic, CF_TA_M_MULTIGET_CHAIN, 9,
						 &(cf_ta_result) {.chain = ans,.n_chain = 4}));
	assert_int_equal(direct.len, generic.len);
	assert_memory_equal(direct.data, generic.data, direct.len);

	/* no step at all (never sent by the dispatch, but well-formed) */
	cf_buf_reset(&direct);
	cf_buf_reset(&generic);
	OK(cf_tr_write_chain_reply(&direct, "colfam_multiget_chain", 9, NULL, 0));
	OK(cf_ta_write_reply(&generic, CF_TA_M_MULTIGET_CHAIN, 9, &(cf_ta_result) {0}));
	assert_int_equal(direct.len, generic.len);
	assert_memory_equal(direct.data, generic.data, direct.len);

	/* the frame limit: exactly the size fits, a byte less names the size */
	cf_buf_reset(&direct);
	OK(cf_tr_write_chain_reply(&direct, "colfam_multiget_chain", 9,
							   (const cf_read_rows *const *) steps, 4));
	cf_buf_free(&generic);
	cf_buf_init(&generic, direct.len);
	OK(cf_tr_write_chain_reply(&generic, "colfam_multiget_chain", 9,
							   (const cf_read_rows *const *) steps, 4));
	cf_buf_free(&generic);
	cf_buf_init(&generic, direct.len - 1);
	snprintf(msg, sizeof(msg), "it would be %zu bytes, more than the limit of %zu",
			 direct.len, direct.len - 1);
	FAILS(cf_tr_write_chain_reply(&generic, "colfam_multiget_chain", 9,
								  (const cf_read_rows *const *) steps, 4),
		  CF_ERR_TOO_LARGE, msg);
	cf_buf_free(&generic);
	cf_buf_free(&direct);
	for (size_t i = 0; i < 4; i++)
		cf_read_rows_free(steps[i]);
	cf_arena_free(arena);
	cf_memtable_unref(smt);
	cf_memtable_unref(pmt);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(standard_replies),
		cmocka_unit_test(super_replies),
		cmocka_unit_test(overlong_length_fails),
		cmocka_unit_test(writer_failure_is_its_own),
		cmocka_unit_test(reply_over_the_buffer_limit_fails),
		cmocka_unit_test(chain_replies),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
