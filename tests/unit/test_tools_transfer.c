/*
 * tests/unit/test_tools_transfer.c — tools/sstable_json.c against a node in the test
 * (support/testnode.h): the sstable2json text of standard and super CFs, paging of
 * wide rows (small pages so every boundary is crossed), export → import → export
 * identical, tombstones in an import, and malformed files: line and offset named,
 * the batches acknowledged before the error kept.
 */
#include "support/cmocka_prelude.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client/client.h"
#include "support/slurp.h"
#include "support/testnode.h"
#include "tools/cli_exec.h"
#include "tools/sstable_json.h"

typedef struct T
{
	test_node  *node;
	cfc_conn   *c;
} T;

static void
check(cf_status *st)
{
	if (st)
		fail_msg("%s", cf_status_msg(st));
}

/* Runs cli statements through the shell (connected, keyspace K). */
static void
cli(T *t, const char *src)
{
	FILE	   *devnull = fopen("/dev/null", "w");
	cft_shell  *sh = cft_shell_new(&(cft_shell_options) {.out = devnull,.err = stderr});
	char		pre[128];

	snprintf(pre, sizeof(pre), "connect 127.0.0.1/%d; use K;", test_node_port(t->node));
	assert_int_equal(cft_shell_run(sh, pre, strlen(pre), "pre", 1, false, NULL), 0);
	assert_int_equal(cft_shell_run(sh, src, strlen(src), "cli", 1, false, NULL), 0);
	cft_shell_free(sh);
	fclose(devnull);
}

static int
setup(void **state)
{
	T		   *t = calloc(1, sizeof(*t));
	FILE	   *devnull = fopen("/dev/null", "w");
	cft_shell  *sh;
	char		src[256];

	t->node = test_node_start(NULL);
	sh = cft_shell_new(&(cft_shell_options) {.out = devnull,.err = stderr});
	snprintf(src, sizeof(src), "connect 127.0.0.1/%d; create keyspace K;",
			 test_node_port(t->node));
	assert_int_equal(cft_shell_run(sh, src, strlen(src), "setup", 1, false, NULL), 0);
	cft_shell_free(sh);
	fclose(devnull);
	check(cfc_new(&(cfc_options) {.hosts = test_node_hosts(t->node),.keyspace = "K"}, &t->c));
	cli(t, "create column family S; create column family S2;"
		"create column family Sup with column_type = Super;"
		"create column family Sup2 with column_type = Super;");
	*state = t;
	return 0;
}

static int
teardown(void **state)
{
	T		   *t = *state;

	cfc_free(t->c);
	test_node_stop(t->node);
	free(t);
	return 0;
}

static char *
export(T *t, const char *cf, bool super, int32_t row_page, int32_t col_page,
	   cft_progress *pr)
{
	FILE	   *f = tmpfile();
	char	   *s;

	cft_progress_init(pr, NULL, "exported");
	check(cft_export(t->c, cf, super, f, row_page, col_page, pr));
	s = test_slurp_stream(f, 0, NULL);
	fclose(f);
	return s;
}

static cf_status *
import(T *t, const char *cf, bool super, const char *text, int batch, cft_progress *pr)
{
	FILE	   *f = fmemopen((void *) text, strlen(text), "r");
	cf_status  *st;

	cft_progress_init(pr, NULL, "imported");
	st = cft_import(t->c, cf, super, f, "in.json", batch, pr);
	fclose(f);
	return st;
}

static void
has(const char *text, const char *want)
{
	if (strstr(text, want) == NULL)
		fail_msg("lacks \"%s\":\n%.2000s", want, text);
}

static void
standard_format(void **state)
{
	T		   *t = *state;
	cft_progress pr;
	char	   *s;
	bool		super = true;

	check(cft_cf_is_super(t->c, "K", "S", &super));
	assert_false(super);
	cli(t, "set S['ab']['n1'] = 'v1'; set S['ab']['n2'] = bytes(''); "
		"set S['ab']['n3'] = 'x' with ttl = 600;");
	s = export(t, "S", false, 100, 1000, &pr);
	/* key "ab", names n1 n2, values v1 and empty; ttl and expiry for n3 */
	has(s, "{\n\"6162\": [[\"6e31\", \"7631\", ");
	has(s, ", false], [\"6e32\", \"\", ");
	has(s, ", false, 600, ");
	has(s, "]]\n}\n");
	assert_int_equal(pr.rows, 1);
	assert_int_equal(pr.columns, 3);
	free(s);
	{
		cf_status  *st = cft_cf_is_super(t->c, "K", "Nope", &super);

		assert_non_null(st);
		has(cf_status_msg(st), "column family Nope does not exist in keyspace K");
		cf_status_free(st);
	}
}

static void
round_trip(void **state)
{
	T		   *t = *state;
	cft_progress pr;
	size_t		cap = 1 << 20,
				len = 0;
	char	   *src = malloc(cap);
	char	   *a,
			   *b;

	for (int r = 0; r < 40; r++)
		for (int c = 0; c < 3; c++)
			len += (size_t) snprintf(src + len, cap - len,
									 "set S['row%d']['c%d'] = 'value %d.%d';\n", r, c, r, c);
	for (int c = 0; c < 257; c++)
		len += (size_t) snprintf(src + len, cap - len, "set S['wide']['w%04d'] = 'x';\n", c);
	len += (size_t) snprintf(src + len, cap - len, "set S['t']['ttl'] = 'y' with ttl = 900;\n");
	cli(t, src);
	free(src);

	/* pages of 7 rows and 10 columns: the wide row needs the column pager */
	a = export(t, "S", false, 7, 10, &pr);
	assert_int_equal(pr.rows, 42);
	assert_int_equal(pr.columns, 40 * 3 + 257 + 1);
	{
		char	   *big = export(t, "S", false, 1000, 100000, &pr);

		assert_string_equal(a, big);	/* paging changes nothing */
		free(big);
	}
	check(import(t, "S2", false, a, 13, &pr));
	assert_int_equal(pr.columns, 40 * 3 + 257 + 1);
	assert_int_equal(pr.rows, 42);
	b = export(t, "S2", false, 7, 10, &pr);
	assert_string_equal(a, b);
	free(a);
	free(b);
}

static void
super_round_trip(void **state)
{
	T		   *t = *state;
	cft_progress pr;
	char	   *a,
			   *b;
	size_t		cap = 1 << 18,
				len = 0;
	char	   *src = malloc(cap);

	for (int sc = 0; sc < 15; sc++)
		for (int c = 0; c < 4; c++)
			len += (size_t) snprintf(src + len, cap - len,
									 "set Sup['u%d']['sc%02d']['c%d'] = 'v';\n", sc % 3, sc, c);
	cli(t, src);
	free(src);
	a = export(t, "Sup", true, 2, 4, &pr);
	has(a, "\"7530\": {\"73633030\": {\"deletedAt\": -9223372036854775808, \"subColumns\": "
		"[[\"6330\", \"76\", ");
	assert_int_equal(pr.rows, 3);
	assert_int_equal(pr.columns, 60);
	check(import(t, "Sup2", true, a, 7, &pr));
	b = export(t, "Sup2", true, 2, 4, &pr);
	assert_string_equal(a, b);
	free(a);
	free(b);
}

static void
tombstones_imported(void **state)
{
	T		   *t = *state;
	cft_progress pr;
	char	   *s;
	char		text[512];

	cli(t, "set S['k']['a'] = 'old'; set S['k']['b'] = 'keep';"
		"set Sup['k']['s1']['x'] = 'old'; set Sup['k']['s2']['y'] = 'keep';");
	/* 6b = "k", 61 = "a": deleted in the future; s1 deleted by deletedAt */
	snprintf(text, sizeof(text),
			 "{\"6b\": [[\"61\", \"\", 9000000000000000, true]]}");
	check(import(t, "S", false, text, 500, &pr));
	s = export(t, "S", false, 10, 10, &pr);
	assert_null(strstr(s, "[\"61\""));
	has(s, "[\"62\", \"6b656570\"");
	free(s);
	snprintf(text, sizeof(text),
			 "{\"6b\": {\"7331\": {\"deletedAt\": 9000000000000000, \"subColumns\": []}}}");
	check(import(t, "Sup", true, text, 500, &pr));
	s = export(t, "Sup", true, 10, 10, &pr);
	assert_null(strstr(s, "\"7331\""));
	has(s, "\"7332\"");
	free(s);
}

static void
import_fails(T *t, const char *cf, bool super, const char *text, const char *want)
{
	cft_progress pr;
	cf_status  *st = import(t, cf, super, text, 2, &pr);

	if (st == NULL)
		fail_msg("accepted: %s", text);
	has(cf_status_msg(st), want);
	cf_status_free(st);
}

static void
malformed(void **state)
{
	T		   *t = *state;
	cft_progress pr;
	char	   *s;

	/* batches of 2: the first four columns are acknowledged before line 4 breaks */
	import_fails(t, "S2", false,
				 "{\n\"01\": [[\"61\", \"76\", 1, false], [\"62\", \"76\", 1, false]],\n"
				 "\"02\": [[\"61\", \"76\", 1, false], [\"62\", \"76\", 1, false]],\n"
				 "\"03\": [[\"61\", \"76\", 1, false], [\"62\" \"76\", 1, false]]\n}\n",
				 "in.json:4: (byte ");
	s = export(t, "S2", false, 10, 10, &pr);
	assert_int_equal(pr.columns, 4);
	assert_null(strstr(s, "\"03\""));
	free(s);
	import_fails(t, "S2", false, "{\"0g\": []}", "in.json:1:");
	import_fails(t, "S2", false, "{\"0g\": []}", "a row key is not hex");
	import_fails(t, "S2", false, "{\"00\": [[\"61\", \"7\", 1, false]]}", "a value is not hex");
	import_fails(t, "S2", false, "{\"00\": {}}", "S2 is a standard column family");
	import_fails(t, "Sup2", true, "{\"00\": []}", "Sup2 is a super column family");
	import_fails(t, "S2", false, "{\"00\": [[\"61\", \"62\"]]}",
				 "a column needs [name, value, timestamp, isDeleted]");
	import_fails(t, "S2", false, "{\"00\": [[\"61\", \"62\", 1.5, false]]}", "unexpected 1.5");
	import_fails(t, "S2", false, "{\"00\": [[\"61\", \"62\", 1, false, 0, 5]]}",
				 "a ttl must be 1-2147483647");
	import_fails(t, "S2", false, "{\"00\": [", "in.json:1: (byte 8) the file ends in the middle");
	import_fails(t, "S2", false, "", "in.json");
	import_fails(t, "S2", false, " \n", "in.json:2: (byte 2) the file is empty");
	import_fails(t, "Nope", false, "{\"00\": [[\"61\", \"62\", 1, false]]}", "Nope");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(standard_format, setup, teardown),
		cmocka_unit_test_setup_teardown(round_trip, setup, teardown),
		cmocka_unit_test_setup_teardown(super_round_trip, setup, teardown),
		cmocka_unit_test_setup_teardown(tombstones_imported, setup, teardown),
		cmocka_unit_test_setup_teardown(malformed, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
