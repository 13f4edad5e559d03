/*
 * tests/unit/test_server_route.c — server/route: which Thrift calls colfamd runs
 * inline on its event loops (reads of few columns; writes only with writes_inline)
 * and which on its workers (scans, schema, login, set_keyspace, big reads, reads of
 * whole super columns, big or undecodable messages), colfam_multiget_chain as a
 * read, on messages built by the codec as a client would send them, with a fake
 * schema in which the CFs named Super* are Super.
 */
#include "support/cmocka_prelude.h"

#include <stdlib.h>
#include <string.h>

#include "server/route.h"
#include "server/server.h"
#include "thrift/admin.h"
#include "thrift/cassandra.h"
#include "util/buf.h"

/* The fake schema's questions, and its answers: a CF named Super* is Super. */
static int	n_asked;

static bool
fake_is_super(void *ctx, cf_slice cf)
{
	assert_ptr_equal(ctx, &n_asked);
	n_asked++;
	return cf.len >= 5 && memcmp(cf.p, "Super", 5) == 0;
}

static const cf_route_schema fake_schema = {fake_is_super, &n_asked};

/* The schema the route_* helpers pass (NULL: none). */
static const cf_route_schema *schema = &fake_schema;

/* A CALL of m with args, routed. */
static int
route_call(cf_t_method m, const cf_t_args *args, bool writes_inline)
{
	cf_buf		b;
	cf_status  *s;
	int			lane;

	cf_buf_init(&b, 0);
	s = cf_t_write_call(&b, m, 7, args);
	if (s)
		fail_msg("write_call %s: %s", cf_t_method_name(m), cf_status_msg(s));
	assert_true(cf_buf_ok(&b));
	lane = cf_route_request(cf_slice_of(b.data, b.len), writes_inline, schema);
	cf_buf_free(&b);
	return lane;
}

static cf_t_args
args_with_range(int32_t count)
{
	cf_t_args	a;

	memset(&a, 0, sizeof(a));
	a.key = cf_slice_str("k1");
	a.column_parent.column_family = cf_slice_str("Standard1");
	a.predicate.has_slice_range = true;
	a.predicate.slice_range.count = count;
	a.consistency_level = CF_T_CL_ONE;
	return a;
}

static void
reads_of_few_columns_run_inline(void **state)
{
	cf_t_args	a = args_with_range(10);
	cf_slice	names[3] = {cf_slice_str("a"), cf_slice_str("b"), cf_slice_str("c")};
	cf_slice   *keys = calloc(CF_ROUTE_INLINE_CELLS + 1, sizeof(cf_slice));

	(void) state;
	for (int i = 0; i <= CF_ROUTE_INLINE_CELLS; i++)
		keys[i] = cf_slice_str("key");
	a.column_path.column_family = cf_slice_str("Standard1");
	a.column_path.column = cf_slice_str("c");
	a.column_path.has_column = true;
	assert_int_equal(route_call(CF_T_M_GET, &a, false), CF_ROUTE_READS);
	assert_int_equal(route_call(CF_T_M_GET_SLICE, &a, false), CF_ROUTE_READS);
	assert_int_equal(route_call(CF_T_M_GET_COUNT, &a, false), CF_ROUTE_READS);

	/* the cap is on columns selected, in all keys */
	a = args_with_range(CF_ROUTE_INLINE_CELLS);
	assert_int_equal(route_call(CF_T_M_GET_SLICE, &a, false), CF_ROUTE_READS);
	a = args_with_range(CF_ROUTE_INLINE_CELLS + 1);
	assert_int_equal(route_call(CF_T_M_GET_SLICE, &a, false), CF_SERVER_POOL);
	assert_int_equal(route_call(CF_T_M_GET_COUNT, &a, false), CF_SERVER_POOL);
	a = args_with_range(100);
	a.keys = keys;
	a.n_keys = CF_ROUTE_INLINE_CELLS / 100;
	assert_int_equal(route_call(CF_T_M_MULTIGET_SLICE, &a, false), CF_ROUTE_READS);
	a.n_keys++;
	assert_int_equal(route_call(CF_T_M_MULTIGET_SLICE, &a, false), CF_SERVER_POOL);
	assert_int_equal(route_call(CF_T_M_MULTIGET_COUNT, &a, false), CF_SERVER_POOL);

	/* column names count one each */
	memset(&a.predicate, 0, sizeof(a.predicate));
	a.predicate.has_column_names = true;
	a.predicate.column_names = names;
	a.predicate.n_column_names = 3;
	a.n_keys = CF_ROUTE_INLINE_CELLS / 3;
	assert_int_equal(route_call(CF_T_M_MULTIGET_SLICE, &a, false), CF_ROUTE_READS);
	a.n_keys = CF_ROUTE_INLINE_CELLS / 3 + 1;
	assert_int_equal(route_call(CF_T_M_MULTIGET_SLICE, &a, false), CF_SERVER_POOL);
	free(keys);
}

/*
 * On a Super CF without a super column a read's predicate selects super columns, each
 * with all its sub-columns: to the workers whatever the count. With one named, the
 * count is of sub-columns and the bound stands. get of a whole super column likewise.
 */
static void
whole_super_columns_are_read_on_the_workers(void **state)
{
	static const cf_t_method reads[4] = {
		CF_T_M_GET_SLICE, CF_T_M_GET_COUNT, CF_T_M_MULTIGET_SLICE, CF_T_M_MULTIGET_COUNT,
	};
	cf_slice	keys[10];
	cf_t_args	a;

	(void) state;
	for (int i = 0; i < 10; i++)
		keys[i] = cf_slice_str("key");
	for (int i = 0; i < 4; i++)
	{
		a = args_with_range(10);
		a.keys = keys;
		a.n_keys = 10;
		assert_int_equal(route_call(reads[i], &a, false), CF_ROUTE_READS);
		a.column_parent.column_family = cf_slice_str("Super1");
		assert_int_equal(route_call(reads[i], &a, false), CF_SERVER_POOL);
		a.column_parent.has_super_column = true;
		a.column_parent.super_column = cf_slice_str("sc");
		assert_int_equal(route_call(reads[i], &a, false), CF_ROUTE_READS);
		a.predicate.slice_range.count = CF_ROUTE_INLINE_CELLS + 1;
		assert_int_equal(route_call(reads[i], &a, false), CF_SERVER_POOL);
	}

	/* the schema is asked only about a read that names no super column and fits */
	a = args_with_range(CF_ROUTE_INLINE_CELLS + 1);
	a.column_parent.column_family = cf_slice_str("Super1");
	n_asked = 0;
	assert_int_equal(route_call(CF_T_M_GET_SLICE, &a, false), CF_SERVER_POOL);
	a.predicate.slice_range.count = 10;
	a.column_parent.has_super_column = true;
	a.column_parent.super_column = cf_slice_str("sc");
	assert_int_equal(route_call(CF_T_M_GET_SLICE, &a, false), CF_ROUTE_READS);
	assert_int_equal(n_asked, 0);
	a.column_parent.has_super_column = false;
	assert_int_equal(route_call(CF_T_M_GET_SLICE, &a, false), CF_SERVER_POOL);
	assert_int_equal(n_asked, 1);

	/* get: one (sub-)column inline, a whole super column on the workers */
	a = args_with_range(10);
	a.column_path.column_family = cf_slice_str("Super1");
	a.column_path.has_super_column = true;
	a.column_path.super_column = cf_slice_str("sc");
	assert_int_equal(route_call(CF_T_M_GET, &a, false), CF_SERVER_POOL);
	a.column_path.has_column = true;
	a.column_path.column = cf_slice_str("c");
	assert_int_equal(route_call(CF_T_M_GET, &a, false), CF_ROUTE_READS);
	assert_int_equal(n_asked, 1);

	/* no schema to ask: only reads that name a super column stay inline */
	schema = NULL;
	a = args_with_range(10);
	assert_int_equal(route_call(CF_T_M_GET_SLICE, &a, false), CF_SERVER_POOL);
	a.keys = keys;
	a.n_keys = 10;
	assert_int_equal(route_call(CF_T_M_MULTIGET_COUNT, &a, false), CF_SERVER_POOL);
	a.column_parent.has_super_column = true;
	a.column_parent.super_column = cf_slice_str("sc");
	assert_int_equal(route_call(CF_T_M_GET_SLICE, &a, false), CF_ROUTE_READS);
	assert_int_equal(route_call(CF_T_M_MULTIGET_COUNT, &a, false), CF_ROUTE_READS);
	a.column_path.column_family = cf_slice_str("Standard1");
	a.column_path.has_column = true;
	a.column_path.column = cf_slice_str("c");
	assert_int_equal(route_call(CF_T_M_GET, &a, false), CF_ROUTE_READS);
}

static void
writes_inline_only_when_allowed(void **state)
{
	cf_t_args	a = args_with_range(10);
	cf_t_mutation mut;
	cf_t_cf_mutations cfm = {cf_slice_str("Standard1"), &mut, 1};
	cf_t_key_mutations km = {cf_slice_str("k1"), &cfm, 1};

	(void) state;
	a.column = (cf_t_column) {cf_slice_str("c"), cf_slice_str("v"), 1, false, 0};
	a.column_path.column_family = cf_slice_str("Standard1");
	a.timestamp = 1;
	memset(&mut, 0, sizeof(mut));
	mut.has_cosc = true;
	mut.cosc.has_column = true;
	mut.cosc.column = a.column;
	a.mutation_map = &km;
	a.n_mutation_map = 1;
	assert_int_equal(route_call(CF_T_M_INSERT, &a, true), CF_ROUTE_WRITES);
	assert_int_equal(route_call(CF_T_M_REMOVE, &a, true), CF_ROUTE_WRITES);
	assert_int_equal(route_call(CF_T_M_BATCH_MUTATE, &a, true), CF_ROUTE_WRITES);
	assert_int_equal(route_call(CF_T_M_INSERT, &a, false), CF_SERVER_POOL);
	assert_int_equal(route_call(CF_T_M_REMOVE, &a, false), CF_SERVER_POOL);
	assert_int_equal(route_call(CF_T_M_BATCH_MUTATE, &a, false), CF_SERVER_POOL);
}

static void
scans_schema_and_login_go_to_the_workers(void **state)
{
	cf_t_args	a = args_with_range(10);

	(void) state;
	a.range.has_start_key = a.range.has_end_key = true;
	a.range.start_key = a.range.end_key = cf_slice_str("");
	a.range.count = 10;
	a.keyspace = cf_slice_str("Keyspace1");
	a.cfname = cf_slice_str("Standard1");
	assert_int_equal(route_call(CF_T_M_GET_RANGE_SLICES, &a, true), CF_SERVER_POOL);
	assert_int_equal(route_call(CF_T_M_TRUNCATE, &a, true), CF_SERVER_POOL);
	assert_int_equal(route_call(CF_T_M_SYSTEM_DROP_KEYSPACE, &a, true), CF_SERVER_POOL);
	assert_int_equal(route_call(CF_T_M_DESCRIBE_RING, &a, true), CF_SERVER_POOL);
	assert_int_equal(route_call(CF_T_M_LOGIN, &a, true), CF_SERVER_POOL);
	/* set_keyspace too: the reads queued behind it are routed in its keyspace */
	assert_int_equal(route_call(CF_T_M_SET_KEYSPACE, &a, true), CF_SERVER_POOL);
	/* cheap describe calls stay on the loop */
	assert_int_equal(route_call(CF_T_M_DESCRIBE_VERSION, &a, false), CF_ROUTE_READS);
	assert_int_equal(route_call(CF_T_M_DESCRIBE_CLUSTER_NAME, &a, false), CF_ROUTE_READS);
}

static void
odd_messages_go_to_the_workers(void **state)
{
	cf_buf		b;
	uint8_t    *big;
	cf_t_args	a = args_with_range(10);

	(void) state;
	/* garbage, a truncated call, a non-CALL, an unknown and an admin method */
	assert_int_equal(cf_route_request(cf_slice_str("garbage!"), true, schema), CF_SERVER_POOL);
	cf_buf_init(&b, 0);
	assert_null(cf_t_write_call(&b, CF_T_M_GET_SLICE, 1, &a));
	assert_int_equal(cf_route_request(cf_slice_of(b.data, b.len - 3), true, schema),
					 CF_SERVER_POOL);
	cf_buf_reset(&b);
	cf_t_write_message_header(&b, cf_slice_str("get"), CF_T_REPLY, 1);
	assert_int_equal(cf_route_request(cf_slice_of(b.data, b.len), true, schema), CF_SERVER_POOL);
	cf_buf_reset(&b);
	cf_t_write_message_header(&b, cf_slice_str("no_such_method"), CF_T_CALL, 1);
	cf_buf_put_u8(&b, 0);
	assert_int_equal(cf_route_request(cf_slice_of(b.data, b.len), true, schema), CF_SERVER_POOL);
	cf_buf_reset(&b);
	cf_t_write_message_header(&b, cf_slice_str(cf_ta_method_name(CF_TA_M_FLUSH)), CF_T_CALL, 1);
	cf_buf_put_u8(&b, 0);
	assert_int_equal(cf_route_request(cf_slice_of(b.data, b.len), true, schema), CF_SERVER_POOL);

	/* an insert over CF_ROUTE_INLINE_FRAME bytes */
	big = calloc(1, CF_ROUTE_INLINE_FRAME);
	a.column = (cf_t_column) {cf_slice_str("c"), cf_slice_of(big, CF_ROUTE_INLINE_FRAME), 1,
	false, 0};
	cf_buf_reset(&b);
	assert_null(cf_t_write_call(&b, CF_T_M_INSERT, 1, &a));
	assert_int_equal(cf_route_request(cf_slice_of(b.data, b.len), true, schema), CF_SERVER_POOL);
	cf_buf_free(&b);
	free(big);
}

/* A colfam_multiget_chain call, routed. */
static int
route_chain(const cf_ta_args *a)
{
	cf_buf		b;
	int			lane;

	cf_buf_init(&b, 0);
	assert_null(cf_ta_write_call(&b, CF_TA_M_MULTIGET_CHAIN, 7, a));
	lane = cf_route_request(cf_slice_of(b.data, b.len), false, schema);
	cf_buf_free(&b);
	return lane;
}

/*
 * The seeds' front page as a chain, into a and st: key's row of TaggedPosts (10
 * columns), the BlogEntries rows step 0 names (two, 2 columns each), and a step 2
 * drawing from step 1 as step 1 does from step 0; the caller adjusts it.
 */
static void
front_page(cf_ta_args *a, cf_ta_chain_step st[2], cf_slice *key, cf_slice two[2])
{
	memset(a, 0, sizeof(*a));
	memset(st, 0, 2 * sizeof(*st));
	a->keys = key;
	a->n_keys = 1;
	a->column_parent.column_family = cf_slice_str("TaggedPosts");
	a->predicate.has_slice_range = true;
	a->predicate.slice_range.count = 10;
	a->steps = st;
	a->n_steps = 2;
	st[0].column_parent.column_family = cf_slice_str("BlogEntries");
	st[0].predicate = (cf_t_slice_predicate) {.has_column_names = true,.column_names = two,
	.n_column_names = 2};
	st[1] = st[0];
	st[1].from_step = 1;
}

/*
 * colfam_multiget_chain is a read: inline while its steps may select at most
 * CF_ROUTE_INLINE_CELLS columns in all, a derived step's keys counted as the columns
 * (KEY: the rows) of the step it draws from.
 */
static void
chains_route_as_reads(void **state)
{
	cf_slice	key = cf_slice_str("k");
	cf_slice	keys[10];
	cf_slice	two[2] = {cf_slice_str("a"), cf_slice_str("b")};
	cf_ta_chain_step st[2];
	cf_ta_args	a;

	(void) state;
	for (int i = 0; i < 10; i++)
		keys[i] = key;
	/* the front page: 10 + 10 x 2 + 20 x 1 */
	front_page(&a, st, keys, two);
	st[1].predicate.n_column_names = 1;
	st[1].source = CF_TA_CHAIN_NAMED_VALUE;
	st[1].has_source_name = true;
	st[1].source_name = cf_slice_str("author");
	assert_int_equal(route_chain(&a), CF_ROUTE_READS);
	assert_int_equal(route_chain(&(cf_ta_args) {.keys = keys,.n_keys = 1,
					 .column_parent = a.column_parent,.predicate = a.predicate}),
					 CF_ROUTE_READS);
	/* step 0 alone over the bound: as multiget_slice */
	a.n_steps = 0;
	a.predicate.slice_range.count = CF_ROUTE_INLINE_CELLS + 1;
	assert_int_equal(route_chain(&a), CF_SERVER_POOL);
	a.predicate.slice_range.count = CF_ROUTE_INLINE_CELLS;
	assert_int_equal(route_chain(&a), CF_ROUTE_READS);
	/* a derived step over it: 10 keys of 100 columns, then 1000 keys x 2 */
	a.predicate.slice_range.count = 100;
	a.n_keys = 10;
	a.n_steps = 1;
	st[0].predicate.n_column_names = 2;
	st[0].source = CF_TA_CHAIN_VALUE;
	assert_int_equal(route_chain(&a), CF_SERVER_POOL);
	/* KEY draws one key per row: 10 rows x 2 more */
	a.predicate.slice_range.count = 10;
	st[0].source = CF_TA_CHAIN_KEY;
	assert_int_equal(route_chain(&a), CF_ROUTE_READS);
	st[0].source = CF_TA_CHAIN_VALUE;	/* 100 values x 2 */
	assert_int_equal(route_chain(&a), CF_ROUTE_READS);
	a.predicate.slice_range.count = 50;	/* 500 + 500 x 2 */
	assert_int_equal(route_chain(&a), CF_SERVER_POOL);
	/* undecodable, or more steps than a chain takes: the workers answer */
	a.predicate.slice_range.count = 1;
	a.n_steps = 0;
	{
		cf_buf		b;

		cf_buf_init(&b, 0);
		assert_null(cf_ta_write_call(&b, CF_TA_M_MULTIGET_CHAIN, 7, &a));
		assert_int_equal(cf_route_request(cf_slice_of(b.data, b.len - 2), false, schema),
						 CF_SERVER_POOL);
		cf_buf_free(&b);
	}
	{
		cf_ta_chain_step many[CF_TA_CHAIN_MAX_STEPS + 1];

		memset(many, 0, sizeof(many));
		for (int i = 0; i <= CF_TA_CHAIN_MAX_STEPS; i++)
			many[i].column_parent.column_family = cf_slice_str("C");
		a.steps = many;
		a.n_steps = CF_TA_CHAIN_MAX_STEPS;
		assert_int_equal(route_chain(&a), CF_ROUTE_READS);
		a.n_steps = CF_TA_CHAIN_MAX_STEPS + 1;
		assert_int_equal(route_chain(&a), CF_SERVER_POOL);
	}
}

/* A chain with a step (step 0 included) that reads whole super columns: the workers. */
static void
chains_of_whole_super_columns_run_on_the_workers(void **state)
{
	cf_slice	key = cf_slice_str("k");
	cf_slice	two[2] = {cf_slice_str("a"), cf_slice_str("b")};
	cf_ta_chain_step st[2];
	cf_ta_args	a;

	(void) state;
	/* the front page, then its comments: 10 + 10 x 2 + 20 x 2 */
	front_page(&a, st, &key, two);
	st[0].source = st[1].source = CF_TA_CHAIN_VALUE;
	assert_int_equal(route_chain(&a), CF_ROUTE_READS);
	st[1].column_parent.column_family = cf_slice_str("SuperComments");
	assert_int_equal(route_chain(&a), CF_SERVER_POOL);
	st[1].column_parent.has_super_column = true;
	st[1].column_parent.super_column = cf_slice_str("sc");
	assert_int_equal(route_chain(&a), CF_ROUTE_READS);
	/* step 0 on a Super CF, and a step over the bound whatever its CF */
	a.column_parent.column_family = cf_slice_str("SuperPosts");
	assert_int_equal(route_chain(&a), CF_SERVER_POOL);
	a.column_parent.has_super_column = true;
	a.column_parent.super_column = cf_slice_str("sc");
	assert_int_equal(route_chain(&a), CF_ROUTE_READS);
	st[0].predicate.n_column_names = 1;
	a.predicate.slice_range.count = CF_ROUTE_INLINE_CELLS;
	n_asked = 0;
	assert_int_equal(route_chain(&a), CF_SERVER_POOL);
	assert_int_equal(n_asked, 0);
	/* no schema: a step that names no super column sends it to the workers */
	schema = NULL;
	a.predicate.slice_range.count = 10;
	assert_int_equal(route_chain(&a), CF_SERVER_POOL);
	st[0].column_parent.has_super_column = true;
	st[0].column_parent.super_column = cf_slice_str("sc");
	assert_int_equal(route_chain(&a), CF_ROUTE_READS);
}

/*
 * Every test starts with the fake schema, whatever the one before it left (two set
 * it to NULL midway, and a failed assertion ends a test before it could restore it).
 */
static int
with_fake_schema(void **state)
{
	(void) state;
	schema = &fake_schema;
	return 0;
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(reads_of_few_columns_run_inline, with_fake_schema),
		cmocka_unit_test_setup(whole_super_columns_are_read_on_the_workers, with_fake_schema),
		cmocka_unit_test_setup(writes_inline_only_when_allowed, with_fake_schema),
		cmocka_unit_test_setup(scans_schema_and_login_go_to_the_workers, with_fake_schema),
		cmocka_unit_test_setup(odd_messages_go_to_the_workers, with_fake_schema),
		cmocka_unit_test_setup(chains_route_as_reads, with_fake_schema),
		cmocka_unit_test_setup(chains_of_whole_super_columns_run_on_the_workers, with_fake_schema),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
