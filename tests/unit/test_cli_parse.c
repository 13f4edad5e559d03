/*
 * tests/unit/test_cli_parse.c — tools/cli_parse.c and cli_lex.c: every statement
 * form of the cassandra-cli 0.7 grammar, terms and functions, with-clauses, error
 * messages with their positions, completeness for the shell, and every statement of
 * the seed scripts in tests/data/seeds/ (run from the top of the tree).
 */
#include "support/cmocka_prelude.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support/slurp.h"
#include "thrift/cassandra.h"
#include "tools/cli.h"

typedef struct fixture
{
	cf_arena   *arena;
	cft_stmt   *stmts;
	size_t		n;
} fixture;

static int
setup(void **state)
{
	fixture    *f = calloc(1, sizeof(*f));

	f->arena = cf_arena_new(0);
	*state = f;
	return f->arena ? 0 : -1;
}

static int
teardown(void **state)
{
	fixture    *f = *state;

	cf_arena_free(f->arena);
	free(f);
	return 0;
}

/* Parses src, which must succeed, and returns the first statement. */
static const cft_stmt *
ok(fixture *f, const char *src)
{
	cf_status  *st = cft_parse(src, strlen(src), f->arena, &f->stmts, &f->n);

	if (st != NULL)
		fail_msg("parse of \"%s\" failed: %s", src, cf_status_msg(st));
	assert_true(f->n >= 1);
	return &f->stmts[0];
}

/* Parses src, which must fail with a message containing want. */
static void
bad(fixture *f, const char *src, const char *want)
{
	cf_status  *st = cft_parse(src, strlen(src), f->arena, &f->stmts, &f->n);

	if (st == NULL)
		fail_msg("parse of \"%s\" succeeded, wanted an error with \"%s\"", src, want);
	assert_int_equal(cf_status_code(st), CF_ERR_INVALID);
	if (strstr(cf_status_msg(st), want) == NULL)
		fail_msg("parse of \"%s\": message \"%s\" lacks \"%s\"", src, cf_status_msg(st), want);
	cf_status_free(st);
}

static void
connect_and_use(void **state)
{
	fixture    *f = *state;
	const cft_stmt *s;

	s = ok(f, "connect localhost/9160;");
	assert_int_equal(s->kind, CFT_CONNECT);
	assert_string_equal(s->host, "localhost");
	assert_int_equal(s->port, 9160);
	s = ok(f, "CONNECT 127.0.0.1/9161;");
	assert_string_equal(s->host, "127.0.0.1");
	assert_int_equal(s->port, 9161);
	s = ok(f, "connect db-1.example.com/9160 admin 'secret';");
	assert_string_equal(s->host, "db-1.example.com");
	assert_string_equal(s->user, "admin");
	assert_string_equal(s->password, "secret");
	s = ok(f, "use Keyspace1;");
	assert_int_equal(s->kind, CFT_USE);
	assert_string_equal(s->name, "Keyspace1");
	assert_null(s->user);
	s = ok(f, "Use BloggyAppy jsmith 'havebadpass';");
	assert_string_equal(s->name, "BloggyAppy");
	assert_string_equal(s->user, "jsmith");
	assert_string_equal(s->password, "havebadpass");

	bad(f, "connect localhost;", "line 1, column 18: expected HOST/PORT");
	bad(f, "connect localhost/70000;", "port after '/' must be between 1 and 65535");
	bad(f, "connect /9160;", "expected a host name before '/'");
	bad(f, "use;", "expected a keyspace name after use");
	bad(f, "use K jsmith secret;", "expected the password as a 'string'");
}

static void
set_statements(void **state)
{
	fixture    *f = *state;
	const cft_stmt *s;

	s = ok(f, "set Users['jsmith']['first'] = 'John';");
	assert_int_equal(s->kind, CFT_SET);
	assert_string_equal(s->path.cf, "Users");
	assert_int_equal(s->path.key.kind, CFT_TERM_STRING);
	assert_string_equal(s->path.key.text, "jsmith");
	assert_int_equal(s->path.depth, 1);
	assert_string_equal(s->path.sub[0].text, "first");
	assert_string_equal(s->value.text, "John");
	assert_false(s->has_ttl);
	assert_string_equal(s->text, "set Users['jsmith']['first'] = 'John';");

	s = ok(f, "set Users[jsmith][age] = long(42) with ttl = 3600;");
	assert_int_equal(s->path.key.kind, CFT_TERM_IDENT);
	assert_int_equal(s->value.kind, CFT_TERM_FUNC);
	assert_string_equal(s->value.text, "long");
	assert_non_null(s->value.arg);
	assert_int_equal(s->value.arg->kind, CFT_TERM_INTEGER);
	assert_string_equal(s->value.arg->text, "42");
	assert_true(s->has_ttl);
	assert_int_equal(s->ttl, 3600);

	s = ok(f, "set Comments['slug'][timeuuid()]['commenter'] = 'Joe Blow';");
	assert_int_equal(s->path.depth, 2);
	assert_int_equal(s->path.sub[0].kind, CFT_TERM_FUNC);
	assert_string_equal(s->path.sub[0].text, "timeuuid");
	assert_null(s->path.sub[0].arg);
	assert_string_equal(s->path.sub[1].text, "commenter");

	s = ok(f, "set Timeline['u'][1267414247561777] = 'it''s' ;");
	assert_int_equal(s->path.sub[0].kind, CFT_TERM_INTEGER);
	assert_string_equal(s->value.text, "it's");
	s = ok(f, "set T[-5][Bytes('00ff')] = Integer(-12345678901234567890);");
	assert_string_equal(s->path.key.text, "-5");
	assert_string_equal(s->path.sub[0].text, "bytes");
	assert_string_equal(s->value.arg->text, "-12345678901234567890");
	s = ok(f, "set T['k']['c'] = 'a\\'b\\\\c\\n';");
	assert_string_equal(s->value.text, "a'b\\c\n");

	bad(f, "set Users['jsmith' = 'x';", "line 1, column 20: expected ']' after the row key");
	bad(f, "set Users['jsmith'] = 'x';", "needs CF['key']['column']");
	bad(f, "set Users['k']['a']['b']['c'] = 'x';", "set takes at most 2 names after the row key");
	bad(f, "set Users['k']['c'] 'x';", "expected '=' and the value after the column");
	bad(f, "set Users['k']['c'] = ;", "expected the value after '='");
	bad(f, "set Users['k']['c'] = 'x' with ttl = 0;", "ttl in seconds must be between 1");
	bad(f, "set Users['k']['c'] = 'x' with tll = 5;", "expected 'ttl' after with");
	bad(f, "set Users['k']['c'] = 'x'", "expected ';' at the end of the set statement, "
		"found the end of the input");
	bad(f, "set Users['k']['c'] = upper('x');", "unknown function upper()");
	bad(f, "set Users['k']['c'] = long(42;", "expected ')' after the function's argument");
	bad(f, "set Users['k]['c'] = 'x';", "string not closed");
	bad(f, "set Users['k']['c'] = 'x' # ;", "unexpected character '#'");
	bad(f, "set Users['k']['c'] = 'x\\q';", "unknown escape \\q");
}

static void
get_del_count_list(void **state)
{
	fixture    *f = *state;
	const cft_stmt *s;

	s = ok(f, "get Users['jsmith'];");
	assert_int_equal(s->kind, CFT_GET);
	assert_int_equal(s->path.depth, 0);
	s = ok(f, "get Comments['slug']['0b5e1a10-8c61-11de-8287-c1fa647fd821'];");
	assert_int_equal(s->path.depth, 1);
	s = ok(f, "get Comments['slug'][lexicaluuid('0b5e1a10-8c61-11de-8287-c1fa647fd821')]['email'] as utf8;");
	assert_int_equal(s->path.depth, 2);
	assert_string_equal(s->path.sub[0].arg->text, "0b5e1a10-8c61-11de-8287-c1fa647fd821");
	assert_string_equal(s->as_type, "utf8");

	s = ok(f, "get Users where birth_date = long(1975) and state >= 'TX' limit 5;");
	assert_int_equal(s->kind, CFT_GET_WHERE);
	assert_string_equal(s->name, "Users");
	assert_int_equal(s->n_exprs, 2);
	assert_string_equal(s->exprs[0].column.text, "birth_date");
	assert_int_equal(s->exprs[0].op, CF_T_OP_EQ);
	assert_string_equal(s->exprs[0].value.text, "long");
	assert_int_equal(s->exprs[1].op, CF_T_OP_GTE);
	assert_true(s->has_limit);
	assert_int_equal(s->limit, 5);
	s = ok(f, "get U where a < 1 and b <= 2 and c > 3;");
	assert_int_equal(s->exprs[0].op, CF_T_OP_LT);
	assert_int_equal(s->exprs[1].op, CF_T_OP_LTE);
	assert_int_equal(s->exprs[2].op, CF_T_OP_GT);

	s = ok(f, "del Users['jsmith']['first'];");
	assert_int_equal(s->kind, CFT_DEL);
	assert_int_equal(s->path.depth, 1);
	s = ok(f, "del Users['jsmith'];");
	assert_int_equal(s->path.depth, 0);
	s = ok(f, "count Comments['slug'];");
	assert_int_equal(s->kind, CFT_COUNT);
	s = ok(f, "count Comments['slug']['sc'];");
	assert_int_equal(s->path.depth, 1);
	s = ok(f, "list Users;");
	assert_int_equal(s->kind, CFT_LIST);
	assert_false(s->has_limit);
	s = ok(f, "list Users limit 10;");
	assert_int_equal(s->limit, 10);
	s = ok(f, "list Users['a':'m'] limit 3;");
	assert_true(s->has_start && s->has_end);
	assert_string_equal(s->start.text, "a");
	assert_string_equal(s->end.text, "m");
	s = ok(f, "list Users[:'m'];");
	assert_false(s->has_start);
	assert_true(s->has_end);
	s = ok(f, "truncate Users;");
	assert_int_equal(s->kind, CFT_TRUNCATE);

	bad(f, "get Users;", "expected '[' and the row key after the column family");
	bad(f, "get Users['k']['a']['b'] as ;", "expected a type after as");
	bad(f, "get Users where;", "expected a column name after where");
	bad(f, "get Users where a != 1;", "unexpected character '!'");
	bad(f, "get Users where a 1;", "expected an operator");
	bad(f, "count Users['k']['a']['b'];", "count takes at most 1 name after the row key");
	bad(f, "list Users limit -1;", "row count after limit must be between 1");
	bad(f, "get Users where a = 1 limit 0;", "row count after limit must be between 1");
	bad(f, "list Users['a' 'b'];", "expected ':' between the start and end keys");
	bad(f, "get Users['k']\n  ['c' ;", "line 2, column 8: expected ']' after the column or "
		"super column name");
}

static void
schema_statements(void **state)
{
	fixture    *f = *state;
	const cft_stmt *s;

	s = ok(f, "create keyspace Twitter with placement_strategy = "
		   "'org.apache.cassandra.locator.SimpleStrategy' and replication_factor = 1 and "
		   "strategy_options = [{DC1:2, DC2:3}];");
	assert_int_equal(s->kind, CFT_CREATE_KEYSPACE);
	assert_string_equal(s->name, "Twitter");
	assert_int_equal(s->n_attrs, 3);
	assert_string_equal(s->attrs[0].name, "placement_strategy");
	assert_int_equal(s->attrs[0].value.kind, CFT_TERM_STRING);
	assert_string_equal(s->attrs[1].value.text, "1");
	assert_true(s->attrs[2].is_list);
	assert_int_equal(s->attrs[2].n_hashes, 1);
	assert_int_equal(s->attrs[2].hashes[0].n_pairs, 2);
	assert_string_equal(s->attrs[2].hashes[0].pairs[1].key.text, "DC2");
	assert_string_equal(s->attrs[2].hashes[0].pairs[1].value.text, "3");

	s = ok(f, "create keyspace K;");
	assert_int_equal(s->n_attrs, 0);
	s = ok(f, "update keyspace K with strategy_options = {replication_factor: 2};");
	assert_int_equal(s->kind, CFT_UPDATE_KEYSPACE);
	assert_true(s->attrs[0].is_list);
	s = ok(f, "drop keyspace K;");
	assert_int_equal(s->kind, CFT_DROP_KEYSPACE);

	s = ok(f, "create column family Comments with comparator = TimeUUIDType and "
		   "column_type = Super and subcomparator = BytesType and comment = 'all comments' "
		   "and rows_cached = 1000 and keys_cached = 0.5 and read_repair_chance = 0.1 and "
		   "gc_grace = 864000 and column_metadata = [{column_name: state, validation_class: "
		   "UTF8Type, index_type: KEYS}, {column_name: birth_date, validation_class: LongType}];");
	assert_int_equal(s->kind, CFT_CREATE_CF);
	assert_string_equal(s->name, "Comments");
	assert_int_equal(s->n_attrs, 9);
	assert_int_equal(s->attrs[5].value.kind, CFT_TERM_DECIMAL);
	assert_string_equal(s->attrs[5].value.text, "0.5");
	assert_int_equal(s->attrs[8].n_hashes, 2);
	assert_string_equal(s->attrs[8].hashes[0].pairs[2].value.text, "KEYS");
	assert_int_equal(s->attrs[8].hashes[1].n_pairs, 2);
	s = ok(f, "update column family Users with comment = 'x';");
	assert_int_equal(s->kind, CFT_UPDATE_CF);
	s = ok(f, "drop column family Users;");
	assert_int_equal(s->kind, CFT_DROP_CF);

	bad(f, "create table T;", "expected 'keyspace' or 'column family'");
	bad(f, "create column Users;", "expected 'family' after 'column'");
	bad(f, "create column family Users with comparator UTF8Type;",
		"expected '=' after the attribute name");
	bad(f, "create column family Users with comparator = UTF8Type, comment = 'x';",
		"expected ';' at the end of the create column family statement, found ','");
	bad(f, "create column family U with column_metadata = [{column_name state}];",
		"expected ':' after the name inside {...}");
	bad(f, "create column family U with column_metadata = [{a: b}, 5];",
		"expected '{' starting a {name: value, ...} entry");
	bad(f, "drop keyspace K with a = 1;", "expected ';' at the end of the drop keyspace");
}

static void
describe_show_help_quit(void **state)
{
	fixture    *f = *state;
	const cft_stmt *s;

	s = ok(f, "describe keyspace;");
	assert_int_equal(s->kind, CFT_DESCRIBE_KEYSPACE);
	assert_null(s->name);
	s = ok(f, "describe keyspace BloggyAppy;");
	assert_string_equal(s->name, "BloggyAppy");
	s = ok(f, "describe cluster;");
	assert_int_equal(s->kind, CFT_DESCRIBE_CLUSTER);
	s = ok(f, "show keyspaces;");
	assert_int_equal(s->kind, CFT_SHOW_KEYSPACES);
	s = ok(f, "SHOW Cluster Name;");
	assert_int_equal(s->kind, CFT_SHOW_CLUSTER_NAME);
	s = ok(f, "show api version;");
	assert_int_equal(s->kind, CFT_SHOW_API_VERSION);
	s = ok(f, "help;");
	assert_int_equal(s->kind, CFT_HELP);
	assert_string_equal(s->topic, "");
	s = ok(f, "help  Create   Column\tFamily ;");
	assert_string_equal(s->topic, "create column family");
	s = ok(f, "quit;");
	assert_int_equal(s->kind, CFT_QUIT);
	s = ok(f, "EXIT;");
	assert_int_equal(s->kind, CFT_QUIT);

	bad(f, "show tables;", "expected 'keyspaces', 'cluster name' or 'api version'");
	bad(f, "describe table;", "expected 'keyspace' or 'cluster' after describe");
	bad(f, "select x from users;", "line 1, column 1: unknown statement 'select'");
	bad(f, "select * from users;", "line 1, column 8: unexpected character '*'");
	bad(f, "quit", "expected ';' at the end of the quit statement");
}

static void
scripts_comments_and_positions(void **state)
{
	fixture    *f = *state;
	const char *src =
		"-- a comment\n"
		"use K; // another\n"
		"/* a block\n   comment */ set CF['k']['c'] = 'v';;\n"
		"  get CF['k'];\n";
	cf_status  *st = cft_parse(src, strlen(src), f->arena, &f->stmts, &f->n);

	assert_null(st);
	assert_int_equal(f->n, 3);
	assert_int_equal(f->stmts[0].line, 2);
	assert_int_equal(f->stmts[1].line, 4);
	assert_int_equal(f->stmts[1].col, 15);
	assert_int_equal(f->stmts[2].line, 5);
	assert_int_equal(f->stmts[2].col, 3);
	assert_string_equal(f->stmts[2].text, "get CF['k'];");

	bad(f, "use K;\nuse L;\n\n   set X['a']['b'] = ;", "line 4, column 22: expected the value");
	bad(f, "use K; /* never closed", "line 1, column 8: comment not closed");
	assert_null(cft_parse("", 0, f->arena, &f->stmts, &f->n));
	assert_int_equal(f->n, 0);
	assert_null(cft_parse(" ;; -- x\n", 9, f->arena, &f->stmts, &f->n));
	assert_int_equal(f->n, 0);
}

static void
completeness(void **state)
{
	(void) state;
	assert_true(cft_input_complete("", 0));
	assert_true(cft_input_complete("  -- only a comment\n", 20));
	assert_true(cft_input_complete("use K;", 6));
	assert_true(cft_input_complete("use K; ", 7));
	assert_false(cft_input_complete("use K", 5));
	assert_false(cft_input_complete("set C['k']['c'] = 'a;", 21));
	assert_false(cft_input_complete("use K; /* ;", 11));
	assert_true(cft_input_complete("use K; # x", 10));	/* an error: let the parser say */
}

static void
check_seed(fixture *f, const char *path, size_t min_stmts, size_t want_sets)
{
	size_t		len,
				sets = 0;
	char	   *src = test_slurp_file(path, &len);
	cf_status  *st = cft_parse(src, len, f->arena, &f->stmts, &f->n);

	if (st != NULL)
		fail_msg("%s: %s", path, cf_status_msg(st));
	assert_true(f->n >= min_stmts);
	for (size_t i = 0; i < f->n; i++)
		if (f->stmts[i].kind == CFT_SET)
			sets++;
	assert_int_equal(sets, want_sets);
	free(src);
}

static void
seed_scripts_parse(void **state)
{
	fixture    *f = *state;

	check_seed(f, "tests/data/seeds/bloggyappy.cli", 100, 16 + 48 + 21 + 24);
	assert_int_equal(f->stmts[0].kind, CFT_CREATE_KEYSPACE);
	assert_int_equal(f->stmts[5].kind, CFT_CREATE_CF);
	assert_string_equal(f->stmts[5].name, "Comments");
	check_seed(f, "tests/data/seeds/twissandra.cli", 60, 58);
	check_seed(f, "tests/data/seeds/twitter.cli", 40, 41);
	check_seed(f, "tests/data/seeds/multiblog.cli", 15, 18);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(connect_and_use, setup, teardown),
		cmocka_unit_test_setup_teardown(set_statements, setup, teardown),
		cmocka_unit_test_setup_teardown(get_del_count_list, setup, teardown),
		cmocka_unit_test_setup_teardown(schema_statements, setup, teardown),
		cmocka_unit_test_setup_teardown(describe_show_help_quit, setup, teardown),
		cmocka_unit_test_setup_teardown(scripts_comments_and_positions, setup, teardown),
		cmocka_unit_test(completeness),
		cmocka_unit_test_setup_teardown(seed_scripts_parse, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
