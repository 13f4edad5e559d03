/*
 * tests/unit/test_client_reply.c — client/reply.h: the hand-written readers of scan
 * replies against thrift/cassandra.h's generic reader. Replies encoded by
 * cf_t_write_reply (canonical) decode alike by both; a reply in another legal
 * encoding, a truncated one, an exception or a cap goes to the generic reader (false);
 * the skim finds the keys without the columns. tests/fuzz/fuzz_thrift.c checks the
 * same agreement on arbitrary input.
 */
#include "support/cmocka_prelude.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client/reply.h"
#include "support/slices.h"
#include "thrift/tbinary.h"

#define SEQID 7

/* A reply to m carrying res, encoded canonically into b. */
static void
encode(cf_buf *b, cf_t_method m, const cf_t_result *res)
{
	cf_buf_reset(b);
	assert_null(cf_t_write_reply(b, m, SEQID, res));
}

static void
expect_same_column(const cf_t_column *a, const cf_t_column *b)
{
	assert_true(cf_slice_eq(a->name, b->name));
	assert_true(cf_slice_eq(a->value, b->value));
	assert_int_equal(a->timestamp, b->timestamp);
	assert_int_equal(a->has_ttl, b->has_ttl);
	assert_int_equal(a->ttl, b->ttl);
}

static void
expect_same_coscs(const cf_t_cosc *a, const cf_t_cosc *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
	{
		assert_int_equal(a[i].has_column, b[i].has_column);
		assert_int_equal(a[i].has_super_column, b[i].has_super_column);
		expect_same_column(&a[i].column, &b[i].column);
		assert_true(cf_slice_eq(a[i].super_column.name, b[i].super_column.name));
		assert_int_equal(a[i].super_column.n_columns, b[i].super_column.n_columns);
		for (size_t j = 0; j < a[i].super_column.n_columns; j++)
			expect_same_column(&a[i].super_column.columns[j], &b[i].super_column.columns[j]);
	}
}

/* Both readers decode msg as m's reply, to the same result; the skim finds its keys. */
static void
expect_fast_as_generic(cf_slice msg, cf_t_method m)
{
	cf_arena   *a = cf_arena_new(0);
	cf_t_result fast;
	cf_t_result slow;
	cf_slice   *keys;
	size_t		n_keys;

	assert_true(cfc_read_reply_fast(msg, m, SEQID, NULL, a, &fast));
	assert_null(cf_t_read_reply(msg, m, SEQID, NULL, a, &slow));
	assert_int_equal(fast.n_coscs, slow.n_coscs);
	expect_same_coscs(fast.coscs, slow.coscs, fast.n_coscs);
	assert_int_equal(fast.n_key_slices, slow.n_key_slices);
	for (size_t i = 0; i < fast.n_key_slices; i++)
	{
		assert_true(cf_slice_eq(fast.key_slices[i].key, slow.key_slices[i].key));
		assert_int_equal(fast.key_slices[i].n_columns, slow.key_slices[i].n_columns);
		expect_same_coscs(fast.key_slices[i].columns, slow.key_slices[i].columns,
						  fast.key_slices[i].n_columns);
	}
	if (m != CF_T_M_GET_SLICE)
	{
		assert_true(cfc_skim_reply_keys(msg, m, SEQID, a, &keys, &n_keys));
		assert_int_equal(n_keys, slow.n_key_slices);
		for (size_t i = 0; i < n_keys; i++)
			assert_true(cf_slice_eq(keys[i], slow.key_slices[i].key));
	}
	cf_arena_free(a);
}

/* The hand-written reader gives msg up; the generic reader's verdict is generic_ok. */
static void
expect_given_up(cf_slice msg, cf_t_method m, bool generic_ok)
{
	cf_arena   *a = cf_arena_new(0);
	cf_t_result res;
	cf_status  *s;

	assert_false(cfc_read_reply_fast(msg, m, SEQID, NULL, a, &res));
	assert_int_equal(res.n_key_slices, 0);
	assert_null(res.key_slices);
	s = cf_t_read_reply(msg, m, SEQID, NULL, a, &res);
	assert_int_equal(s == NULL, generic_ok);
	cf_status_free(s);
	cf_arena_free(a);
}

/* Columns c0.. of a row, every third with a ttl. */
static void
fill_columns(cf_t_column *cols, size_t n, char names[][8])
{
	for (size_t i = 0; i < n; i++)
	{
		snprintf(names[i], 8, "c%zu", i);
		cols[i] = (cf_t_column) {S(names[i]), S("value"), 1000 + (int64_t) i, i % 3 == 0,
		i % 3 == 0 ? 60 : 0};
	}
}

static void
canonical_replies_decode_alike(void **state)
{
	char		names[5][8];
	cf_t_column cols[5];
	cf_t_cosc	coscs[4];
	cf_t_key_slice ks[3];
	cf_t_result res;
	cf_buf		b = CF_BUF_INIT;

	(void) state;
	fill_columns(cols, 5, names);
	memset(coscs, 0, sizeof(coscs));
	coscs[0].has_column = true;
	coscs[0].column = cols[0];
	coscs[1].has_column = true;
	coscs[1].column = cols[1];
	coscs[2].has_super_column = true;	/* a super column of three */
	coscs[2].super_column = (cf_t_super_column) {S("super"), cols + 2, 3};
	coscs[3].has_super_column = true;	/* an empty one */
	coscs[3].super_column = (cf_t_super_column) {S(""), NULL, 0};
	ks[0] = (cf_t_key_slice) {S("k1"), coscs, 4};
	ks[1] = (cf_t_key_slice) {S(""), NULL, 0};	/* a row of no columns */
	ks[2] = (cf_t_key_slice) {S("k3"), coscs, 2};

	memset(&res, 0, sizeof(res));
	res.coscs = coscs;
	res.n_coscs = 4;
	encode(&b, CF_T_M_GET_SLICE, &res);
	expect_fast_as_generic(cf_slice_of(b.data, b.len), CF_T_M_GET_SLICE);
	res.n_coscs = 0;
	encode(&b, CF_T_M_GET_SLICE, &res);
	expect_fast_as_generic(cf_slice_of(b.data, b.len), CF_T_M_GET_SLICE);

	memset(&res, 0, sizeof(res));
	res.key_slices = ks;
	for (size_t n = 0; n <= 3; n++)
	{
		res.n_key_slices = n;
		encode(&b, CF_T_M_GET_RANGE_SLICES, &res);
		expect_fast_as_generic(cf_slice_of(b.data, b.len), CF_T_M_GET_RANGE_SLICES);
		encode(&b, CF_T_M_GET_INDEXED_SLICES, &res);
		expect_fast_as_generic(cf_slice_of(b.data, b.len), CF_T_M_GET_INDEXED_SLICES);
	}
	cf_buf_free(&b);
}

/* The bytes of a get_range_slices reply of one KeySlice "k" holding one Column. */
static void
one_row_reply(cf_buf *b, bool key_last, bool extra_field)
{
	cf_buf_reset(b);
	cf_t_write_message_header(b, S("get_range_slices"), CF_T_REPLY, SEQID);
	cf_tb_write_field(b, CF_TB_LIST, 0);
	cf_tb_write_list_begin(b, CF_TB_STRUCT, 1);
	if (!key_last)
	{
		cf_tb_write_field(b, CF_TB_STRING, 1);
		cf_tb_write_binary(b, S("k"));
	}
	cf_tb_write_field(b, CF_TB_LIST, 2);
	cf_tb_write_list_begin(b, CF_TB_STRUCT, 1);
	cf_tb_write_field(b, CF_TB_STRUCT, 1);	/* CoSC.column */
	cf_tb_write_field(b, CF_TB_STRING, 1);
	cf_tb_write_binary(b, S("name"));
	cf_tb_write_field(b, CF_TB_STRING, 2);
	cf_tb_write_binary(b, S("value"));
	cf_tb_write_field(b, CF_TB_I64, 3);
	cf_tb_write_i64(b, 42);
	if (extra_field)
	{
		cf_tb_write_field(b, CF_TB_I32, 9);	/* unknown: skipped by the generic reader */
		cf_tb_write_i32(b, 1);
	}
	cf_tb_write_stop(b);		/* Column */
	cf_tb_write_stop(b);		/* CoSC */
	if (key_last)
	{
		cf_tb_write_field(b, CF_TB_STRING, 1);
		cf_tb_write_binary(b, S("k"));
	}
	cf_tb_write_stop(b);		/* KeySlice */
	cf_tb_write_stop(b);		/* result */
	assert_true(cf_buf_ok(b));
}

static void
other_replies_go_to_the_generic_reader(void **state)
{
	cf_buf		b = CF_BUF_INIT;
	cf_t_result res;
	cf_arena   *a = cf_arena_new(0);
	cf_slice   *keys;
	size_t		n;
	cf_t_limits lim = cf_t_limits_default();

	(void) state;
	one_row_reply(&b, false, false);
	expect_fast_as_generic(cf_slice_of(b.data, b.len), CF_T_M_GET_RANGE_SLICES);
	/* legal, not canonical: the generic reader decodes them */
	one_row_reply(&b, true, false);
	expect_given_up(cf_slice_of(b.data, b.len), CF_T_M_GET_RANGE_SLICES, true);
	assert_false(cfc_skim_reply_keys(cf_slice_of(b.data, b.len), CF_T_M_GET_RANGE_SLICES,
									 SEQID, a, &keys, &n));
	one_row_reply(&b, false, true);
	expect_given_up(cf_slice_of(b.data, b.len), CF_T_M_GET_RANGE_SLICES, true);
	/* every truncation: refused by both */
	one_row_reply(&b, false, false);
	for (size_t len = 0; len < b.len; len++)
	{
		expect_given_up(cf_slice_of(b.data, len), CF_T_M_GET_RANGE_SLICES, false);
		assert_false(cfc_skim_reply_keys(cf_slice_of(b.data, len),
										 CF_T_M_GET_RANGE_SLICES, SEQID, a, &keys, &n));
	}
	/* another method, another sequence id */
	expect_given_up(cf_slice_of(b.data, b.len), CF_T_M_GET_INDEXED_SLICES, false);
	assert_false(cfc_read_reply_fast(cf_slice_of(b.data, b.len), CF_T_M_GET_RANGE_SLICES,
									 SEQID + 1, NULL, a, &res));
	assert_false(cfc_read_reply_fast(cf_slice_of(b.data, b.len), CF_T_M_GET, SEQID, NULL,
									 a, &res));
	/* a string over the cap */
	lim.max_string = 4;
	assert_false(cfc_read_reply_fast(cf_slice_of(b.data, b.len), CF_T_M_GET_RANGE_SLICES,
									 SEQID, &lim, a, &res));
	lim.max_string = 5;
	assert_true(cfc_read_reply_fast(cf_slice_of(b.data, b.len), CF_T_M_GET_RANGE_SLICES,
									SEQID, &lim, a, &res));
	/* a declared exception */
	memset(&res, 0, sizeof(res));
	res.exception.kind = CF_T_EXC_TIMED_OUT;
	encode(&b, CF_T_M_GET_RANGE_SLICES, &res);
	expect_given_up(cf_slice_of(b.data, b.len), CF_T_M_GET_RANGE_SLICES, true);
	assert_false(cfc_skim_reply_keys(cf_slice_of(b.data, b.len), CF_T_M_GET_RANGE_SLICES,
									 SEQID, a, &keys, &n));
	cf_arena_free(a);
	cf_buf_free(&b);
}

/*
 * Many empty KeySlices in few bytes: arrays over the memory budget, which the generic
 * reader refuses (TOO_LARGE), are refused by the hand-written one too.
 */
static void
the_memory_budget_holds(void **state)
{
	cf_buf		b = CF_BUF_INIT;
	cf_arena   *a = cf_arena_new(0);
	cf_t_result res;
	cf_status  *s;
	size_t		n = 200000;

	(void) state;
	cf_t_write_message_header(&b, S("get_slice"), CF_T_REPLY, SEQID);
	cf_tb_write_field(&b, CF_TB_LIST, 0);
	cf_tb_write_list_begin(&b, CF_TB_STRUCT, n);
	for (size_t i = 0; i < n; i++)
		cf_tb_write_stop(&b);	/* an empty CoSC: one byte, far more in memory */
	cf_tb_write_stop(&b);
	assert_false(cfc_read_reply_fast(cf_slice_of(b.data, b.len), CF_T_M_GET_SLICE, SEQID,
									 NULL, a, &res));
	s = cf_t_read_reply(cf_slice_of(b.data, b.len), CF_T_M_GET_SLICE, SEQID, NULL, a, &res);
	assert_int_equal(cf_status_code(s), CF_ERR_TOO_LARGE);
	cf_status_free(s);
	cf_arena_free(a);
	cf_buf_free(&b);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(canonical_replies_decode_alike),
		cmocka_unit_test(other_replies_go_to_the_generic_reader),
		cmocka_unit_test(the_memory_budget_holds),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
