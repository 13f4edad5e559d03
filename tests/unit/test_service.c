/* tests/unit/test_service.c — service/service: the coordinator over a real db in a
 * temp dir: consistency levels through the replica plan, reads and writes, ranges by
 * keys and by wrapping tokens, indexed slices, timeouts, schema ids, describe. */
#include "support/cmocka_prelude.h"
#include "support/slices.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "service/service.h"
#include "support/dbfixture.h"
#include "support/envtest.h"

typedef struct svc_fixture
{
	db_fixture *f;
	cf_service *svc;
} svc_fixture;

static cf_service *
open_service(db_fixture *f, int64_t timeout_us)
{
	cf_db_options o = {
		.env = cf_env_posix(),.data_dir = f->data,.commitlog_dir = f->log,
		.partitioner = CF_PARTITIONER_RANDOM,.sync_mode = CF_COMMITLOG_PERIODIC,
	};
	cf_service_options so = {.cluster_name = "Colfam Test",.endpoint = "127.0.0.5",
	.rpc_timeout_us = timeout_us};
	cf_service *svc;

	OK(cf_db_open(&o, &f->db));
	so.db = f->db;
	OK(cf_service_new(&so, &svc));
	return svc;
}

static void
close_service(db_fixture *f, cf_service *svc)
{
	cf_service_free(svc);
	db_fixture_close(f);
}

/* Keyspace "Twitter" (strategy, rf): Users (UTF8, "state" KEYS-indexed), Timeline (Super). */
static void
add_ks(cf_service *svc, const char *name, const char *strategy, int rf,
	   const char *dc_opt, const char *dc_val)
{
	cf_ks_def	ks;
	cf_cf_def	cf;
	cf_schema_id id;

	OK(cf_ksdef_init(&ks, name));
	OK(cf_ksdef_set_strategy(&ks, strategy));
	ks.replication_factor = rf;
	if (dc_opt)
		OK(cf_ksdef_add_option(&ks, dc_opt, dc_val));
	OK(cf_cfdef_init(&cf, name, "Users"));
	OK(cf_cfdef_set_comparator(&cf, "UTF8Type"));
	OK(cf_cfdef_add_column(&cf, S("state"), "UTF8Type", true, NULL));
	OK(cf_cfdef_add_column(&cf, S("age"), "LongType", false, NULL));
	OK(cf_ksdef_add_cf(&ks, &cf));
	OK(cf_cfdef_init(&cf, name, "Timeline"));
	OK(cf_cfdef_set_column_type(&cf, "Super"));
	OK(cf_cfdef_set_comparator(&cf, "UTF8Type"));
	OK(cf_ksdef_add_cf(&ks, &cf));
	OK(cf_service_add_keyspace(svc, &ks, id));
	cf_ksdef_clear(&ks);
}

static cf_status *
put(cf_service *svc, const char *ks, const char *cf, const char *key, const char *name,
	cf_slice value, int64_t ts, int cl)
{
	cf_cell		c = {.name = S(name),.value = value,.timestamp = ts};
	cf_db_update u = {.cf = cf,.u = {.row_del = cf_deletion_none(),.cells = &c,.n_cells = 1}};
	cf_row_mutation row = {.key = S(key),.updates = &u,.n_updates = 1};

	return cf_service_mutate(svc, ks, &row, 1, cl);
}

static int
setup(void **state)
{
	svc_fixture *sf = calloc(1, sizeof(*sf));

	if (sf == NULL || db_fixture_setup((void **) &sf->f) != 0)
		return -1;
	*state = sf;
	return 0;
}

static int
teardown(void **state)
{
	svc_fixture *sf = *state;

	cf_service_free(sf->svc);
	db_fixture_teardown((void **) &sf->f);
	free(sf);
	return 0;
}

static cf_service *
start(void **state, int64_t timeout_us)
{
	svc_fixture *sf = *state;

	sf->svc = open_service(sf->f, timeout_us);
	return sf->svc;
}

static void
stop(void **state)
{
	svc_fixture *sf = *state;

	close_service(sf->f, sf->svc);
	sf->svc = NULL;
}

static void
consistency_levels_follow_0_7(void **state)
{
	cf_service *svc = start(state, 0);

	add_ks(svc, "One", "SimpleStrategy", 1, NULL, NULL);
	add_ks(svc, "Three", "org.apache.cassandra.locator.SimpleStrategy", 3, NULL, NULL);
	add_ks(svc, "Nts", "NetworkTopologyStrategy", 1, "datacenter1", "1");
	add_ks(svc, "Far", "NetworkTopologyStrategy", 1, "dc2", "2");

	FAILS(cf_service_validate_cl(svc, "One", CF_CL_ANY, false), CF_ERR_INVALID,
		  "may not be applied to read operations");
	OK(cf_service_validate_cl(svc, "One", CF_CL_ANY, true));
	FAILS(cf_service_validate_cl(svc, "One", CF_CL_LOCAL_QUORUM, true), CF_ERR_INVALID,
		  "not compatible with replication strategy");
	FAILS(cf_service_validate_cl(svc, "One", CF_CL_EACH_QUORUM, false), CF_ERR_INVALID,
		  "EACH_QUORUM");
	FAILS(cf_service_validate_cl(svc, "One", 42, false), CF_ERR_INVALID, "42");
	FAILS(cf_service_validate_cl(svc, "Nope", CF_CL_ONE, false), CF_ERR_NOT_FOUND,
		  "Keyspace Nope does not exist");

	/* rf 1 on one node: every level is met by the local replica */
	for (int cl = CF_CL_ONE; cl <= CF_CL_ANY; cl++)
		if (cl != CF_CL_LOCAL_QUORUM && cl != CF_CL_EACH_QUORUM)
			OK(put(svc, "One", "Users", "k", "name", S("v"), 1, cl));
	FAILS(put(svc, "One", "Users", "k", "name", S("v"), 1, CF_CL_TWO),
		  CF_ERR_UNAVAILABLE, "TWO");

	/* rf 3 on one node: QUORUM needs 2 replicas, only ONE and ANY are possible */
	OK(put(svc, "Three", "Users", "k", "name", S("v"), 1, CF_CL_ONE));
	OK(put(svc, "Three", "Users", "k", "name", S("v"), 1, CF_CL_ANY));
	FAILS(put(svc, "Three", "Users", "k", "name", S("v"), 1, CF_CL_QUORUM),
		  CF_ERR_UNAVAILABLE, "QUORUM");
	{
		int32_t		n = -1;

		FAILS(cf_service_count(svc, "Three", "Users", S("k"), S(""),
							   &(cf_predicate) {.range = {.count = 10}}, CF_CL_ALL, &n),
			  CF_ERR_UNAVAILABLE, "ALL");
		OK(cf_service_count(svc, "Three", "Users", S("k"), S(""),
							&(cf_predicate) {.range = {.count = 10}}, CF_CL_ONE, &n));
		assert_int_equal(n, 1);
	}

	/* NetworkTopologyStrategy: the node is in datacenter1 */
	OK(put(svc, "Nts", "Users", "k", "name", S("v"), 1, CF_CL_LOCAL_QUORUM));
	OK(put(svc, "Nts", "Users", "k", "name", S("v"), 1, CF_CL_EACH_QUORUM));
	FAILS(put(svc, "Far", "Users", "k", "name", S("v"), 1, CF_CL_ONE),
		  CF_ERR_UNAVAILABLE, "ONE");
	FAILS(put(svc, "Far", "Users", "k", "name", S("v"), 1, CF_CL_EACH_QUORUM),
		  CF_ERR_UNAVAILABLE, "dc2");
	OK(put(svc, "Far", "Users", "k", "name", S("v"), 1, CF_CL_ANY));
	stop(state);
}

static void
reads_and_writes(void **state)
{
	cf_service *svc = start(state, 0);
	cf_read_result *r;
	cf_read_rows *rows;
	int32_t		n;
	cf_slice	keys[3] = {S("b"), S("a"), S("b")};
	cf_predicate all = {.range = {.count = 100}};

	add_ks(svc, "Twitter", "SimpleStrategy", 1, NULL, NULL);
	OK(put(svc, "Twitter", "Users", "a", "name", S("Alice"), 5, CF_CL_ONE));
	OK(put(svc, "Twitter", "Users", "a", "email", S("a@x"), 5, CF_CL_ONE));
	/* an older timestamp loses: client timestamps are kept as given */
	OK(put(svc, "Twitter", "Users", "a", "name", S("Old"), 4, CF_CL_ONE));

	OK(cf_service_get(svc, "Twitter", "Users", S("a"), S(""), S("name"), CF_CL_ONE, &r));
	assert_int_equal(r->slice.n_columns, 1);
	assert_memory_equal(r->slice.columns[0].value.p, "Alice", 5);
	assert_int_equal(r->slice.columns[0].timestamp, 5);
	cf_read_result_free(r);
	FAILS(cf_service_get(svc, "Twitter", "Users", S("a"), S(""), S("zip"), CF_CL_ONE, &r),
		  CF_ERR_NOT_FOUND, "");
	assert_null(r);
	FAILS(cf_service_get(svc, "Twitter", "Nope", S("a"), S(""), S("x"), CF_CL_ONE, &r),
		  CF_ERR_NOT_FOUND, "unconfigured columnfamily Nope");
	FAILS(cf_service_get(svc, "Twitter", "Users", S(""), S(""), S("x"), CF_CL_ONE, &r),
		  CF_ERR_INVALID, "Key may not be empty");

	OK(cf_service_slice(svc, "Twitter", "Users", S("a"), S(""), &all, CF_CL_ONE, &r));
	assert_int_equal(r->slice.n_columns, 2);
	assert_memory_equal(r->slice.columns[0].name.p, "email", 5);	/* UTF8 order */
	cf_read_result_free(r);
	OK(cf_service_count(svc, "Twitter", "Users", S("a"), S(""), &all, CF_CL_ONE, &n));
	assert_int_equal(n, 2);

	OK(cf_service_multiget(svc, "Twitter", "Users", keys, 3, S(""), &all, CF_CL_ONE,
						   &rows));
	assert_int_equal(rows->n_rows, 2);
	assert_memory_equal(rows->rows[0].key.p, "b", 1);
	assert_int_equal(rows->rows[0].slice.n_columns, 0);
	assert_int_equal(rows->rows[1].slice.n_columns, 2);
	cf_read_rows_free(rows);

	/* a batch validated whole: the bad second row keeps the first from applying */
	{
		cf_cell		good = {.name = S("name"),.value = S("Bob"),.timestamp = 9};
		cf_cell		bad = {.name = S("age"),.value = S("7bytes!"),.timestamp = 9};
		cf_db_update ug = {.cf = "Users",.u = {.row_del = cf_deletion_none(),.cells = &good,.n_cells = 1}};
		cf_db_update ub = {.cf = "Users",.u = {.row_del = cf_deletion_none(),.cells = &bad,.n_cells = 1}};
		cf_row_mutation batch[2] = {
			{.key = S("b"),.updates = &ug,.n_updates = 1},
			{.key = S("c"),.updates = &ub,.n_updates = 1},
		};

		FAILS(cf_service_mutate(svc, "Twitter", batch, 2, CF_CL_ONE), CF_ERR_INVALID,
			  "LongType");
		OK(cf_service_count(svc, "Twitter", "Users", S("b"), S(""), &all, CF_CL_ONE, &n));
		assert_int_equal(n, 0);
		OK(cf_service_mutate(svc, "Twitter", batch, 1, CF_CL_ONE));
		OK(cf_service_count(svc, "Twitter", "Users", S("b"), S(""), &all, CF_CL_ONE, &n));
		assert_int_equal(n, 1);
	}

	OK(cf_service_truncate(svc, "Twitter", "Users"));
	OK(cf_service_count(svc, "Twitter", "Users", S("a"), S(""), &all, CF_CL_ONE, &n));
	assert_int_equal(n, 0);
	FAILS(cf_service_truncate(svc, "Twitter", "Nope"), CF_ERR_NOT_FOUND, "Nope");
	stop(state);
}

static void
ranges_by_keys_and_tokens(void **state)
{
	cf_service *svc = start(state, 0);
	cf_read_rows *rows;
	cf_predicate all = {.range = {.count = 100}};
	char		key[16];
	cf_service_range whole = {.by_token = true,.start_token = S("0"),.end_token = S("0"),
	.count = 1000};
	cf_service_range r2;
	cf_read_rows *none = NULL;

	add_ks(svc, "Twitter", "SimpleStrategy", 1, NULL, NULL);
	for (int i = 0; i < 50; i++)
	{
		snprintf(key, sizeof(key), "user%02d", i);
		OK(put(svc, "Twitter", "Users", key, "name", S("x"), 1, CF_CL_ONE));
	}
	OK(cf_service_range_slices(svc, "Twitter", "Users", &whole, S(""), &all, CF_CL_ONE,
							   &rows));
	assert_int_equal(rows->n_rows, 50);
	for (size_t i = 1; i < rows->n_rows; i++)
		assert_true(cf_slice_cmp(rows->rows[i - 1].token, rows->rows[i].token) < 0);

	/*
	 * A wrapping token range (t25, t10] holds the rows after the 25th and up to the
	 * 10th: 50 - 25 + 10 + ... exactly the rows not in (t10, t25].
	 */
	{
		cf_buf		t10 = CF_BUF_INIT,
					t25 = CF_BUF_INIT;
		cf_read_rows *wrap;

		OK(cf_token_to_string(CF_PARTITIONER_RANDOM, rows->rows[10].token, &t10));
		OK(cf_token_to_string(CF_PARTITIONER_RANDOM, rows->rows[25].token, &t25));
		r2 = (cf_service_range) {.by_token = true,
			.start_token = cf_slice_of(t25.data, t25.len),
		.end_token = cf_slice_of(t10.data, t10.len),.count = 1000};
		OK(cf_service_range_slices(svc, "Twitter", "Users", &r2, S(""), &all,
								   CF_CL_ONE, &wrap));
		assert_int_equal(wrap->n_rows, 50 - 25 + 11 - 1);
		cf_read_rows_free(wrap);
		cf_buf_free(&t10);
		cf_buf_free(&t25);
	}

	/* by keys under RandomPartitioner: an end whose md5 sorts first is refused */
	r2 = (cf_service_range) {.start_key = rows->rows[30].key,.end_key = rows->rows[3].key,
	.count = 10};
	FAILS(cf_service_range_slices(svc, "Twitter", "Users", &r2, S(""), &all, CF_CL_ONE,
								  &none),
		  CF_ERR_INVALID, "md5");
	r2 = (cf_service_range) {.start_key = rows->rows[3].key,.count = 5};
	{
		cf_read_rows *page;

		OK(cf_service_range_slices(svc, "Twitter", "Users", &r2, S(""), &all,
								   CF_CL_ONE, &page));
		assert_int_equal(page->n_rows, 5);
		assert_true(cf_slice_eq(page->rows[0].key, rows->rows[3].key));
		cf_read_rows_free(page);
	}
	r2.count = 0;
	FAILS(cf_service_range_slices(svc, "Twitter", "Users", &r2, S(""), &all, CF_CL_ONE,
								  &none), CF_ERR_INVALID, "maxRows");
	whole.start_token = S("-1");
	FAILS(cf_service_range_slices(svc, "Twitter", "Users", &whole, S(""), &all,
								  CF_CL_ONE, &none),
		  CF_ERR_INVALID, "start_token");
	cf_read_rows_free(rows);
	stop(state);
}

static void
indexed_slices_through_the_index(void **state)
{
	cf_service *svc = start(state, 0);
	cf_read_rows *rows;
	cf_predicate all = {.range = {.count = 100}};
	uint8_t		age[8] = {0};
	cf_index_expr eq_ut[2] = {
		{.column = S("state"),.op = CF_INDEX_EQ,.value = S("UT")},
		{.column = S("age"),.op = CF_INDEX_GT,.value = {age, 8}},	/* age > 30 */
	};
	cf_index_clause q = {.exprs = eq_ut,.n_exprs = 1,.count = 100};
	char		key[16];

	add_ks(svc, "Twitter", "SimpleStrategy", 1, NULL, NULL);
	for (int i = 0; i < 20; i++)
	{
		uint8_t		a[8] = {0, 0, 0, 0, 0, 0, 0, (uint8_t) (20 + i)};

		snprintf(key, sizeof(key), "u%02d", i);
		OK(put(svc, "Twitter", "Users", key, "state", i % 2 ? S("UT") : S("TX"), 1,
			   CF_CL_ONE));
		OK(put(svc, "Twitter", "Users", key, "age", cf_slice_of(a, 8), 1, CF_CL_ONE));
	}
	OK(cf_service_indexed_slices(svc, "Twitter", "Users", &q, &all, CF_CL_ONE, &rows));
	assert_int_equal(rows->n_rows, 10);
	for (size_t i = 0; i < rows->n_rows; i++)
		assert_int_equal(rows->rows[i].slice.n_columns, 2);
	cf_read_rows_free(rows);

	age[7] = 30;
	q.n_exprs = 2;				/* UT and age > 30: i odd and 20 + i > 30 → 11..19 */
	OK(cf_service_indexed_slices(svc, "Twitter", "Users", &q, &all, CF_CL_ONE, &rows));
	assert_int_equal(rows->n_rows, 5);
	cf_read_rows_free(rows);
	q.count = 2;
	OK(cf_service_indexed_slices(svc, "Twitter", "Users", &q, &all, CF_CL_ONE, &rows));
	assert_int_equal(rows->n_rows, 2);
	cf_read_rows_free(rows);

	/* EQ on an indexed column is required; values must fit the validator */
	q = (cf_index_clause) {.exprs = &eq_ut[1],.n_exprs = 1,.count = 10};
	FAILS(cf_service_indexed_slices(svc, "Twitter", "Users", &q, &all, CF_CL_ONE, &rows),
		  CF_ERR_INVALID, "needs an EQ expression on an indexed column");
	eq_ut[1].value = S("abc");
	FAILS(cf_service_indexed_slices(svc, "Twitter", "Users", &q, &all, CF_CL_ONE, &rows),
		  CF_ERR_INVALID, "LongType");
	q = (cf_index_clause) {.exprs = eq_ut,.n_exprs = 1,.count = 10};
	FAILS(cf_service_indexed_slices(svc, "Twitter", "Timeline", &q, &all, CF_CL_ONE, &rows),
		  CF_ERR_INVALID, "Super column family");
	stop(state);
}

static void
timeouts_are_reported(void **state)
{
	cf_service *svc = start(state, 1);	/* 1 µs: no replica answers in time */
	cf_read_result *r = NULL;

	add_ks(svc, "Twitter", "SimpleStrategy", 1, NULL, NULL);
	FAILS(put(svc, "Twitter", "Users", "a", "name", S("x"), 1, CF_CL_ONE),
		  CF_ERR_TIMEOUT, "");
	FAILS(cf_service_slice(svc, "Twitter", "Users", S("a"), S(""),
						   &(cf_predicate) {.range = {.count = 10}}, CF_CL_ONE, &r),
		  CF_ERR_TIMEOUT, "");
	assert_null(r);
	stop(state);
}

static void
schema_ids_and_describe(void **state)
{
	cf_service *svc = start(state, 0);
	cf_schema_id a,
				b,
				c,
				d;
	cf_service_token_range *ring;
	size_t		n;
	cf_cf_def	cf;

	OK(cf_service_schema_id(svc, a));
	OK(cf_service_schema_id(svc, b));
	assert_string_equal(a, b);
	assert_int_equal(strlen(a), 36);
	assert_int_equal(a[14], '3');
	add_ks(svc, "Twitter", "SimpleStrategy", 1, NULL, NULL);
	OK(cf_service_schema_id(svc, b));
	assert_string_not_equal(a, b);
	OK(cf_cfdef_init(&cf, "Twitter", "Statuses"));
	OK(cf_service_add_cf(svc, &cf, c));
	cf_cfdef_clear(&cf);
	assert_string_not_equal(b, c);
	OK(cf_service_drop_cf(svc, "Twitter", "Statuses", d));
	assert_string_not_equal(c, d);
	FAILS(cf_service_drop_cf(svc, "Twitter", "Statuses", d), CF_ERR_NOT_FOUND, "");

	assert_string_equal(cf_service_cluster_name(svc), "Colfam Test");
	assert_string_equal(cf_service_partitioner_class(svc),
						"org.apache.cassandra.dht.RandomPartitioner");
	OK(cf_service_describe_ring(svc, "Twitter", &ring, &n));
	assert_int_equal(n, 1);
	assert_string_equal(ring[0].start_token, "0");
	assert_string_equal(ring[0].end_token, "0");
	assert_int_equal(ring[0].n_endpoints, 1);
	assert_string_equal(ring[0].endpoints[0], "127.0.0.5");
	cf_service_ring_free(ring, n);
	FAILS(cf_service_describe_ring(svc, "Nope", &ring, &n), CF_ERR_NOT_FOUND, "Nope");

	/* the id survives a restart: it is derived from the stored schema */
	stop(state);
	svc = start(state, 0);
	OK(cf_service_schema_id(svc, a));
	assert_string_equal(a, d);
	stop(state);
}

static void
splits_follow_the_key_samples(void **state)
{
	cf_service *svc = start(state, 0);
	char		key[16];
	char	  **splits;
	size_t		n;
	enum
	{
		ROWS = 20000
	};

	add_ks(svc, "Twitter", "SimpleStrategy", 1, NULL, NULL);
	for (int i = 0; i < ROWS; i += 100)
	{
		cf_cell		cells[100];
		cf_db_update u[100];
		cf_row_mutation rows[100];
		char		keys[100][16];

		for (int j = 0; j < 100; j++)
		{
			snprintf(keys[j], sizeof(keys[j]), "k%06d", i + j);
			cells[j] = (cf_cell) {.name = S("n"),.value = S("v"),.timestamp = 1};
			u[j] = (cf_db_update) {.cf = "Users",.u = {.row_del = cf_deletion_none(),
			.cells = &cells[j],.n_cells = 1}};
			rows[j] = (cf_row_mutation) {.key = S(keys[j]),.updates = &u[j],.n_updates = 1};
		}
		OK(cf_service_mutate(svc, "Twitter", rows, 100, CF_CL_ONE));
	}
	(void) key;
	OK(cf_db_flush(cf_service_db(svc), "Twitter", "Users"));

	OK(cf_service_describe_splits(svc, "Twitter", "Users", S("0"), S("0"), 2000,
								  &splits, &n));
	assert_string_equal(splits[0], "0");
	assert_string_equal(splits[n - 1], "0");
	/* about ROWS / 2000 pieces; samples are coarse, so allow a wide margin */
	if (n < 4 || n > 2 * ROWS / 2000 + 2)
		fail_msg("%zu split tokens for %d rows in pieces of 2000", n, ROWS);
	cf_service_strings_free(splits, n);

	FAILS(cf_service_describe_splits(svc, "Twitter", "Users", S("0"), S("0"), 0, &splits,
									 &n), CF_ERR_INVALID, "keys_per_split");
	FAILS(cf_service_describe_splits(svc, "Twitter", "Users", S("x"), S("0"), 10, &splits,
									 &n), CF_ERR_INVALID, "start_token");
	stop(state);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(consistency_levels_follow_0_7, setup, teardown),
		cmocka_unit_test_setup_teardown(reads_and_writes, setup, teardown),
		cmocka_unit_test_setup_teardown(ranges_by_keys_and_tokens, setup, teardown),
		cmocka_unit_test_setup_teardown(indexed_slices_through_the_index, setup, teardown),
		cmocka_unit_test_setup_teardown(timeouts_are_reported, setup, teardown),
		cmocka_unit_test_setup_teardown(schema_ids_and_describe, setup, teardown),
		cmocka_unit_test_setup_teardown(splits_follow_the_key_samples, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
