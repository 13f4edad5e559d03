/*
 * tests/unit/test_server_reply_limit.c — a reply larger than colfamd's frame limit
 * (thrift_framed_transport_size_in_mb): the real colfamd with a 1 MiB limit, rows
 * wider than that, and libcolfam. The call fails with an InvalidRequest naming the
 * reply's size, the limit and what to do (thrift/dispatch.h), and the connection stays
 * open and usable: before, colfamd dropped it and the client, retrying, could only say
 * that the server closed the connection.
 */
#include "support/cmocka_prelude.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client/client.h"
#include "support/colfamd.h"
#include "support/slices.h"

#define HOST "127.0.0.23"
#define KS "Lim"
#define CF "Wide"

/* 24 columns of 64 KiB: 1.5 MiB per row, past the 1 MiB frame limit. */
#define NCOLS 24
#define VALUE_LEN (64 * 1024)
#define NROWS 3

static void
ok(cf_status *s, const char *what)
{
	if (s != NULL)
		fail_msg("%s: %s: %s", what, cf_code_name(cf_status_code(s)), cf_status_msg(s));
}

/* s is an InvalidRequest saying the reply passed the 1 MiB limit; frees it. */
static void
too_large(cf_status *s, const char *what)
{
	static const char *const parts[] = {
		"does not fit in a frame", "more than the limit of 1048576",
		"thrift_framed_transport_size_in_mb", "ask for fewer rows or columns"};

	if (s == NULL)
		fail_msg("%s: succeeded; expected the reply to be refused as too large", what);
	if (cf_status_code(s) != CF_ERR_INVALID)
		fail_msg("%s: got %s \"%s\"; expected INVALID", what,
				 cf_code_name(cf_status_code(s)), cf_status_msg(s));
	for (size_t i = 0; i < sizeof(parts) / sizeof(parts[0]); i++)
		if (strstr(cf_status_msg(s), parts[i]) == NULL)
			fail_msg("%s: \"%s\" lacks \"%s\"", what, cf_status_msg(s), parts[i]);
	cf_status_free(s);
}

static cf_t_slice_predicate
first_columns(int32_t count)
{
	return (cf_t_slice_predicate) {.has_slice_range = true,
	.slice_range = {.start = S(""),.finish = S(""),.count = count}};
}

static void
oversized_replies_fail_the_call_not_the_connection(void **state)
{
	static const char *const args[] = {"--thrift_framed_transport_size_in_mb", "1", NULL};
	test_colfamd *node = test_colfamd_start(HOST, args);
	/* one attempt: a connection the server dropped would fail the call, not be hidden */
	cfc_options o = {.hosts = test_colfamd_hosts(node),.io_timeout_ms = 60000,
	.connect_timeout_ms = 10000,.max_attempts = 1};
	cf_t_cf_def cfd = {.keyspace = S(KS),.name = S(CF),.has_comparator_type = true,
	.comparator_type = S("BytesType")};
	cf_t_ks_def ks = {.name = S(KS),.strategy_class = S("SimpleStrategy"),
	.replication_factor = 1,.cf_defs = &cfd,.n_cf_defs = 1};
	cf_t_column_parent parent = {.column_family = S(CF)};
	cf_t_slice_predicate all = first_columns(NCOLS);
	cf_t_slice_predicate few = first_columns(4);
	cf_t_slice_predicate page_cols = first_columns(6);
	cf_t_slice_predicate two = first_columns(2);
	cf_t_key_range range = {.has_start_key = true,.start_key = S(""),.has_end_key = true,
	.end_key = S(""),.count = NROWS};
	char	   *value = malloc(VALUE_LEN);
	cf_arena   *a = cf_arena_new(0);
	cfc_conn   *c;
	cf_t_cosc  *cols;
	cf_t_key_slice *rows;
	size_t		n;

	(void) state;
	assert_non_null(value);
	memset(value, 'v', VALUE_LEN);
	ok(cfc_new(&o, &c), "cfc_new");
	ok(cfc_system_add_keyspace(c, &ks, a, NULL), "add keyspace");
	ok(cfc_set_keyspace(c, KS), "set_keyspace");
	for (int r = 0; r < NROWS; r++)
		for (int i = 0; i < NCOLS; i++)
		{
			char		key[16];
			char		name[16];
			cf_t_column col = {.value = cf_slice_of(value, VALUE_LEN),
			.timestamp = test_timestamp_us(NULL)};

			snprintf(key, sizeof(key), "r%d", r);
			snprintf(name, sizeof(name), "c%02d", i);
			col.name = S(name);
			/* one column per call: a request is a frame too */
			ok(cfc_insert(c, S(key), &parent, &col, CF_T_CL_ONE), "insert");
		}
	/* get_slice, encoded straight from the engine's rows (thrift/dispatch_reply.h) */
	too_large(cfc_get_slice(c, S("r0"), &parent, &all, CF_T_CL_ONE, a, &cols, &n),
			  "get_slice of a whole wide row");
	/* still connected: a dropped connection (one attempt) would have closed it */
	assert_non_null(cfc_host(c));
	ok(cfc_get_slice(c, S("r0"), &parent, &few, CF_T_CL_ONE, a, &cols, &n),
	   "get_slice of 4 columns after");
	assert_int_equal(n, 4);

	/* get_range_slices, the FDW's page: each row's part fits, the page does not */
	too_large(cfc_get_range_slices(c, &parent, &page_cols, &range, CF_T_CL_ONE, a, &rows,
								   &n), "get_range_slices of 6 columns of every row");
	assert_non_null(cfc_host(c));
	ok(cfc_get_range_slices(c, &parent, &two, &range, CF_T_CL_ONE, a, &rows, &n),
	   "get_range_slices of 2 columns of every row after");
	assert_int_equal(n, NROWS);
	assert_false(test_colfamd_log_contains(node, "a reply failed"));

	cfc_free(c);
	cf_arena_free(a);
	free(value);
	test_colfamd_stop(node);	/* and it exits cleanly */
	test_colfamd_free(node);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(oversized_replies_fail_the_call_not_the_connection),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
