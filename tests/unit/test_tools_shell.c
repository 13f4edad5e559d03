/*
 * tests/unit/test_tools_shell.c — tools/cli_exec.c: cassandra-cli statements run
 * through libcolfam against a whole node in the test (support/testnode.h: the real
 * dispatch, service and db), with the output cassandra-cli 0.7 printed; names and
 * values shown per comparator and validator; errors with line numbers; scripts that
 * stop at the first error or continue; and the four seed scripts end to end.
 */
#include "support/cmocka_prelude.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support/slurp.h"
#include "support/testnode.h"
#include "tools/cli_exec.h"

typedef struct T
{
	test_node  *node;
	cft_shell  *sh;
	char	   *out;			/* what the last run printed */
	FILE	   *outf;
	char	   *err;
	FILE	   *errf;
} T;

static int
setup(void **state)
{
	T		   *t = calloc(1, sizeof(*t));

	t->node = test_node_start(NULL);
	t->outf = tmpfile();
	t->errf = tmpfile();
	assert_non_null(t->outf);
	assert_non_null(t->errf);
	t->sh = cft_shell_new(&(cft_shell_options) {.out = t->outf,.err = t->errf});
	assert_non_null(t->sh);
	*state = t;
	return 0;
}

static int
teardown(void **state)
{
	T		   *t = *state;

	cft_shell_free(t->sh);
	fclose(t->outf);
	fclose(t->errf);
	free(t->out);
	free(t->err);
	test_node_stop(t->node);
	free(t);
	return 0;
}

/*
 * Runs src as input name (NULL: unnamed) from line first_line; returns the failure
 * count; t->out/t->err hold what this run printed.
 */
static int
run_as(T *t, const char *name, int first_line, const char *src, bool cont)
{
	long		o = ftell(t->outf),
				e = ftell(t->errf);
	int			n = cft_shell_run(t->sh, src, strlen(src), name, first_line, cont, NULL);

	free(t->out);
	free(t->err);
	t->out = test_slurp_stream(t->outf, o, NULL);
	t->err = test_slurp_stream(t->errf, e, NULL);
	return n;
}

/* Runs src as t.cli from line 1. */
static int
run_in(T *t, const char *src, bool cont)
{
	return run_as(t, "t.cli", 1, src, cont);
}

static void
run_ok(T *t, const char *src)
{
	if (run_in(t, src, false) != 0)
		fail_msg("%s: %s", src, t->err);
}

static void
has(const char *text, const char *want)
{
	if (strstr(text, want) == NULL)
		fail_msg("output lacks \"%s\":\n%s", want, text);
}

static void
lacks(const char *text, const char *bad)
{
	if (strstr(text, bad) != NULL)
		fail_msg("output has \"%s\":\n%s", bad, text);
}

static void
connect_use(T *t, const char *ks)
{
	char		src[256];

	snprintf(src, sizeof(src), "connect 127.0.0.1/%d;", test_node_port(t->node));
	run_ok(t, src);
	has(t->out, "Connected to: \"Test Cluster\" on 127.0.0.1/");
	if (ks)
	{
		snprintf(src, sizeof(src), "create keyspace %s; use %s;", ks, ks);
		run_ok(t, src);
		has(t->out, "Keyspace created.\nAuthenticated to keyspace: ");
		snprintf(src, sizeof(src), "[default@%s] ", ks);
		assert_string_equal(cft_shell_prompt(t->sh), src);
	}
}

static void
standard_cf(void **state)
{
	T		   *t = *state;

	assert_string_equal(cft_shell_prompt(t->sh), "[default@unknown] ");
	connect_use(t, "K");
	run_ok(t, "create column family Users with comparator = UTF8Type and "
		   "default_validation_class = UTF8Type and column_metadata = "
		   "[{column_name: age, validation_class: LongType, index_type: KEYS}];");
	has(t->out, "Column family created.");
	run_ok(t, "set Users['jsmith']['first'] = 'John';\n"
		   "set Users['jsmith']['last'] = 'Smith';\n"
		   "set Users['jsmith']['age'] = '42';\n"
		   "set Users['jdoe']['first'] = 'Jane';\n"
		   "set Users['jdoe']['age'] = long(35);\n");
	has(t->out, "Value inserted.\nValue inserted.\n");
	run_ok(t, "get Users['jsmith'];");
	/* UTF8Type names, a LongType value by column_metadata, UTF8 by default */
	has(t->out, "=> (column=age, value=42, timestamp=");
	has(t->out, "=> (column=first, value=John, timestamp=");
	has(t->out, "=> (column=last, value=Smith, timestamp=");
	has(t->out, "Returned 3 results.\n");
	assert_true(strstr(t->out, "column=age") < strstr(t->out, "column=first"));

	run_ok(t, "get Users['jsmith']['first'];");
	has(t->out, "=> (column=first, value=John, timestamp=");
	lacks(t->out, "Returned");
	run_ok(t, "get Users['jsmith']['middle'];");
	has(t->out, "Value was not found\n");
	run_ok(t, "get Users['jsmith']['first'] as bytes;");
	has(t->out, "value=4a6f686e,");
	run_ok(t, "count Users['jsmith'];");
	has(t->out, "3 columns\n");

	run_ok(t, "get Users where age = 42;");
	has(t->out, "-------------------\nRowKey: jsmith\n=> (column=age, value=42");
	has(t->out, "\n1 Row Returned.\n");
	lacks(t->out, "RowKey: jdoe");
	run_ok(t, "get Users where age = 35 and first = 'Jane';");
	has(t->out, "RowKey: jdoe");

	run_ok(t, "list Users;");
	has(t->out, "Using default limit of 100\n");
	has(t->out, "RowKey: jsmith");
	has(t->out, "RowKey: jdoe");
	has(t->out, "2 Rows Returned.\n");
	run_ok(t, "list Users limit 1;");
	has(t->out, "1 Row Returned.\n");
	lacks(t->out, "default limit");

	run_ok(t, "set Users['jsmith']['temp'] = 'x' with ttl = 3600;");
	run_ok(t, "get Users['jsmith']['temp'];");
	has(t->out, ", ttl=3600)");

	run_ok(t, "del Users['jsmith']['first'];");
	has(t->out, "column removed.\n");
	run_ok(t, "count Users['jsmith'];");
	has(t->out, "3 columns\n");
	run_ok(t, "del Users['jdoe'];");
	has(t->out, "row removed.\n");
	run_ok(t, "get Users['jdoe'];");
	has(t->out, "Returned 0 results.\n");

	run_ok(t, "truncate Users;");
	has(t->out, "Users truncated.\n");
	run_ok(t, "count Users['jsmith'];");
	has(t->out, "0 columns\n");
}

static void
types_shown(void **state)
{
	T		   *t = *state;

	connect_use(t, "K");
	run_ok(t, "create column family Timeline with comparator = LongType;\n"
		   "create column family Blogs with comparator = TimeUUIDType and "
		   "default_validation_class = UTF8Type;\n"
		   "create column family Raw;\n"
		   "set Timeline['u1'][1267414514000000] = 'tweet1';\n"
		   "set Timeline['u1'][5] = 'tweet0';\n"
		   "set Blogs['cats'][timeuuid('b06e80b0-8c61-11de-8287-c1fa647fd821')] = 'post';\n"
		   "set Raw['r'][bytes('00ff')] = bytes('cafe');\n");
	run_ok(t, "get Timeline['u1'];");
	/* LongType order: 5 before 1267414514000000; BytesType values in hex */
	has(t->out, "=> (column=5, value=747765657430, timestamp=");
	has(t->out, "=> (column=1267414514000000, value=747765657431, timestamp=");
	assert_true(strstr(t->out, "column=5,") < strstr(t->out, "column=1267414514000000"));
	run_ok(t, "get Blogs['cats'];");
	has(t->out, "=> (column=b06e80b0-8c61-11de-8287-c1fa647fd821, value=post, timestamp=");
	run_ok(t, "get Raw['r'];");
	has(t->out, "=> (column=00ff, value=cafe, timestamp=");
	run_ok(t, "get Timeline['u1'][5] as utf8;");
	has(t->out, "value=tweet0,");
}

static void
super_cf(void **state)
{
	T		   *t = *state;

	connect_use(t, "K");
	run_ok(t, "create column family Rel with column_type = Super and comparator = UTF8Type "
		   "and subcomparator = LongType and default_validation_class = UTF8Type;\n"
		   "set Rel['5']['user_timeline'][2] = 'b';\n"
		   "set Rel['5']['user_timeline'][1] = 'a';\n"
		   "set Rel['5']['friends'][7] = 'x';\n");
	run_ok(t, "get Rel['5'];");
	has(t->out, "=> (super_column=friends,\n     (column=7, value=x, timestamp=");
	has(t->out, "=> (super_column=user_timeline,\n     (column=1, value=a, timestamp=");
	has(t->out, "\n     (column=2, value=b, timestamp=");
	has(t->out, "Returned 2 results.\n");
	run_ok(t, "get Rel['5']['user_timeline'];");
	has(t->out, "=> (column=1, value=a, timestamp=");
	has(t->out, "Returned 2 results.\n");
	run_ok(t, "get Rel['5']['user_timeline'][2];");
	has(t->out, "=> (column=2, value=b, timestamp=");
	run_ok(t, "count Rel['5']['user_timeline'];");
	has(t->out, "2 columns\n");
	run_ok(t, "del Rel['5']['user_timeline'][1];");
	run_ok(t, "count Rel['5']['user_timeline'];");
	has(t->out, "1 columns\n");
	run_ok(t, "list Rel;");
	has(t->out, "RowKey: 5\n=> (super_column=friends,");
}

static void
wide_row_pages(void **state)
{
	T		   *t = *state;
	size_t		cap = 2600 * 48,
				len = 0;
	char	   *src = malloc(cap);

	connect_use(t, "K");
	run_ok(t, "create column family Wide with comparator = LongType;");
	for (int i = 0; i < 2500; i++)
		len += (size_t) snprintf(src + len, cap - len, "set Wide['w'][%d] = 'v';\n", i);
	run_ok(t, src);
	free(src);
	/* three get_slice pages of 1000; each column once */
	run_ok(t, "get Wide['w'];");
	has(t->out, "Returned 2500 results.\n");
	has(t->out, "(column=999, ");
	has(t->out, "(column=1000, ");
	has(t->out, "(column=2499, ");
	assert_null(strstr(strstr(t->out, "(column=1000, ") + 1, "(column=1000, "));
}

static void
schema_statements(void **state)
{
	T		   *t = *state;

	connect_use(t, "K");
	run_ok(t, "create column family A with comparator = UTF8Type and comment = 'first';");
	run_ok(t, "update column family A with comment = 'second' and gc_grace = 100;");
	has(t->out, "Column family updated.\n");
	run_ok(t, "describe keyspace;");
	has(t->out, "Keyspace: K:\n  Replication Strategy: org.apache.cassandra.locator.SimpleStrategy\n"
		"    Replication Factor: 1\n  Column Families:\n    ColumnFamily: A\n");
	has(t->out, "\"second\"");
	has(t->out, "      Columns sorted by: org.apache.cassandra.db.marshal.UTF8Type\n");
	has(t->out, "      GC grace seconds: 100\n");
	run_ok(t, "update keyspace K with replication_factor = 2;");
	has(t->out, "Keyspace updated.\n");
	run_ok(t, "show keyspaces;");
	has(t->out, "    Replication Factor: 2\n");
	run_ok(t, "show cluster name; show api version; describe cluster;");
	has(t->out, "Test Cluster\n19.4.0\nCluster Information:\n   Snitch: ");
	has(t->out, "   Partitioner: org.apache.cassandra.dht.RandomPartitioner\n");
	run_ok(t, "drop column family A;");
	has(t->out, "Column family dropped.\n");
	run_ok(t, "drop keyspace K;");
	has(t->out, "Keyspace dropped.\n");
	assert_string_equal(cft_shell_prompt(t->sh), "[default@unknown] ");
	run_ok(t, "help;");
	has(t->out, "List of all CLI commands:");
	run_ok(t, "help set;");
	has(t->out, "set <cf>['<key>']['<col>'] = <value>");
	lacks(t->out, "get <cf>");
}

static void
errors(void **state)
{
	T		   *t = *state;

	/* not connected */
	assert_int_equal(run_in(t, "get Users['x'];", false), 1);
	has(t->err, "t.cli:1: get: not connected to a server; hint: connect HOST/PORT; first");
	/* unnamed input (the interactive shell) from line 5: lines and columns still count */
	assert_int_equal(run_as(t, NULL, 5, "help;\nget Users['x'];", false), 1);
	has(t->err, "line 6: get: not connected to a server;");
	assert_int_equal(run_as(t, NULL, 5, "help;\n\n  get Users['x' ;", false), 1);
	has(t->err, "line 7, column 17: expected ");
	lacks(t->out, "List of all CLI commands");
	connect_use(t, NULL);
	assert_int_equal(run_in(t, "\n\nset Users['x']['y'] = 'z';", false), 1);
	has(t->err, "t.cli:3: set: no keyspace has been chosen; hint: use KEYSPACE; first");
	assert_int_equal(run_in(t, "use Nope;", false), 1);
	has(t->err, "t.cli:1: use: ");
	has(t->err, "Nope");
	run_ok(t, "create keyspace K; use K; create column family L with comparator = LongType;");
	assert_int_equal(run_in(t, "set Missing['k']['c'] = 'v';", false), 1);
	has(t->err, "unknown column family Missing in keyspace K");
	assert_int_equal(run_in(t, "set L['k']['abc'] = 'v';", false), 1);
	has(t->err, "t.cli:1:");
	has(t->err, "'abc' is not a LongType");
	assert_int_equal(run_in(t, "set L['k']['sc'][1] = 'v';", false), 1);
	has(t->err, "L is a standard column family: it has no super columns");
	assert_int_equal(run_in(t, "create keyspace K;", false), 1);
	has(t->err, "t.cli:1: create keyspace: ");
	/* a parse error names its line (and column), and nothing of that text runs */
	assert_int_equal(run_in(t, "set L['k'][1] = 'a';\nget L['k' ;", false), 1);
	has(t->err, "t.cli:2:");
	assert_int_equal(run_in(t, "get L['k'] as Wrong;", false), 1);
	has(t->err, "Wrong");

	/* the first failure stops the script; --continue goes on */
	assert_int_equal(run_in(t, "set L['k'][2] = 'b';\nset L['k']['x'] = 'c';\n"
							"set L['k'][3] = 'd';\n", false), 1);
	has(t->err, "t.cli:2:");
	run_ok(t, "count L['k'];");
	has(t->out, "1 columns\n");
	assert_int_equal(run_in(t, "set L['k']['x'] = 'c';\nset L['k'][3] = 'd';\n"
							"set L['k']['y'] = 'e';\n", true), 2);
	run_ok(t, "count L['k'];");
	has(t->out, "2 columns\n");
}

static void
seeds(void **state)
{
	T		   *t = *state;
	static const char *const files[] = {"bloggyappy", "twissandra", "twitter", "multiblog"};

	connect_use(t, NULL);
	for (size_t i = 0; i < 4; i++)
	{
		char		path[256];
		char	   *src;

		snprintf(path, sizeof(path), "tests/data/seeds/%s.cli", files[i]);
		src = test_slurp_file(path, NULL);
		if (run_in(t, src, false) != 0)
			fail_msg("%s: %s", path, t->err);
		free(src);
	}
	/* Twissandra's Timeline: LongType names, newest last */
	run_ok(t, "use Twissandra; count Username['ericflo'];");
	has(t->out, "1 columns\n");
	run_ok(t, "get User['a4a70900-24e1-11df-8924-001ff3591711']['username'];");
	has(t->out, "=> (column=username, value=");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(standard_cf, setup, teardown),
		cmocka_unit_test_setup_teardown(types_shown, setup, teardown),
		cmocka_unit_test_setup_teardown(super_cf, setup, teardown),
		cmocka_unit_test_setup_teardown(wide_row_pages, setup, teardown),
		cmocka_unit_test_setup_teardown(schema_statements, setup, teardown),
		cmocka_unit_test_setup_teardown(errors, setup, teardown),
		cmocka_unit_test_setup_teardown(seeds, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
