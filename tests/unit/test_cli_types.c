/*
 * tests/unit/test_cli_types.c — tools/cli_types.c and cli_schema.c: type names,
 * terms converted under each marshal type and by the cli functions, bytes printed
 * back, and with-clauses applied to KsDef/CfDef with their error messages.
 */
#include "support/cmocka_prelude.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support/slices.h"
#include "tools/cli.h"
#include "tools/cli_schema.h"
#include "tools/cli_types.h"
#include "util/uuid.h"

/* Converts the value of "set C['k']['c'] = <term>;" under type into out. */
static cf_status *
conv(const char *term, cft_type type, cf_buf *out)
{
	cf_arena   *a = cf_arena_new(0);
	char		src[512];
	cft_stmt   *s;
	size_t		n;
	cf_status  *st;

	snprintf(src, sizeof(src), "set C['k']['c'] = %s;", term);
	st = cft_parse(src, strlen(src), a, &s, &n);
	if (st != NULL)
		fail_msg("%s: %s", src, cf_status_msg(st));
	cf_buf_reset(out);
	st = cft_term_bytes(&s[0].value, type, out);
	cf_arena_free(a);
	return st;
}

static void
expect_bytes(const char *term, cft_type type, const char *hex)
{
	cf_buf		b = CF_BUF_INIT;
	cf_status  *st = conv(term, type, &b);
	char		got[256] = "";

	if (st != NULL)
		fail_msg("%s as %s: %s", term, cft_type_name(type), cf_status_msg(st));
	assert_true(b.len * 2 < sizeof(got));
	cf_hex_encode(b.data, b.len, got);
	got[b.len * 2] = '\0';
	if (strcmp(got, hex) != 0)
		fail_msg("%s as %s: got %s, want %s", term, cft_type_name(type), got, hex);
	cf_buf_free(&b);
}

static void
expect_error(const char *term, cft_type type, const char *want)
{
	cf_buf		b = CF_BUF_INIT;
	cf_status  *st = conv(term, type, &b);

	if (st == NULL)
		fail_msg("%s as %s converted; wanted \"%s\"", term, cft_type_name(type), want);
	if (strstr(cf_status_msg(st), want) == NULL)
		fail_msg("%s as %s: \"%s\" lacks \"%s\"", term, cft_type_name(type),
				 cf_status_msg(st), want);
	cf_status_free(st);
	cf_buf_free(&b);
}

static void
type_names(void **state)
{
	cft_type	t;
	cf_status  *st;

	(void) state;
	assert_null(cft_type_parse(cf_slice_str("UTF8Type"), "comparator", &t));
	assert_int_equal(t, CFT_UTF8);
	assert_null(cft_type_parse(cf_slice_str("org.apache.cassandra.db.marshal.TimeUUIDType"),
							   "comparator", &t));
	assert_int_equal(t, CFT_TIMEUUID);
	assert_null(cft_type_parse(cf_slice_str("longtype"), "comparator", &t));
	assert_int_equal(t, CFT_LONG);
	assert_null(cft_type_parse(cf_slice_str("lexicaluuid"), "type", &t));
	assert_int_equal(t, CFT_LEXICALUUID);
	assert_string_equal(cft_type_class(CFT_INTEGER), "org.apache.cassandra.db.marshal.IntegerType");
	st = cft_type_parse(cf_slice_str("UTF9Type"), "comparator", &t);
	assert_non_null(st);
	assert_non_null(strstr(cf_status_msg(st), "unknown comparator \"UTF9Type\""));
	assert_non_null(strstr(cf_status_msg(st), "hint: valid types are BytesType"));
	cf_status_free(st);
}

static void
conversions(void **state)
{
	(void) state;
	expect_bytes("'123'", CFT_LONG, "000000000000007b");
	expect_bytes("-1", CFT_LONG, "ffffffffffffffff");
	expect_bytes("long(1267414247561777)", CFT_UTF8, "000480b4e0025a31");
	expect_bytes("'abc'", CFT_BYTES, "616263");
	expect_bytes("bytes('00FFab')", CFT_UTF8, "00ffab");
	expect_bytes("utf8('h\xc3\xa9')", CFT_LONG, "68c3a9");
	expect_bytes("'x'", CFT_ASCII, "78");
	expect_bytes("integer(0)", CFT_BYTES, "00");
	expect_bytes("integer(127)", CFT_BYTES, "7f");
	expect_bytes("integer(128)", CFT_BYTES, "0080");
	expect_bytes("integer(-1)", CFT_BYTES, "ff");
	expect_bytes("integer(-128)", CFT_BYTES, "80");
	expect_bytes("integer(-129)", CFT_BYTES, "ff7f");
	expect_bytes("integer(-256)", CFT_BYTES, "ff00");
	expect_bytes("'18446744073709551616'", CFT_INTEGER, "010000000000000000");
	expect_bytes("'0b5e1a10-8c61-11de-8287-c1fa647fd821'", CFT_TIMEUUID,
				 "0b5e1a108c6111de8287c1fa647fd821");
	expect_bytes("lexicaluuid('0B5E1A10-8C61-41DE-8287-C1FA647FD821')", CFT_BYTES,
				 "0b5e1a108c6141de8287c1fa647fd821");

	expect_error("'abc'", CFT_LONG, "line 1, column 19: 'abc' is not a LongType (a 64-bit integer)");
	expect_error("'99999999999999999999'", CFT_LONG, "out of range");
	expect_error("'1.5'", CFT_INTEGER, "is not an IntegerType");
	expect_error("'caf\xc3\xa9'", CFT_ASCII, "byte above 0x7f");
	expect_error("'\xff'", CFT_UTF8, "not valid UTF-8");
	/* a stray continuation byte after a whole character is escaped, not copied */
	expect_error("'a\x80z'", CFT_UTF8, "'a\\x80z' is not a UTF8Type");
	expect_error("bytes('abc')", CFT_BYTES, "odd number of hex digits");
	expect_error("bytes('zz')", CFT_BYTES, "only 0-9 and a-f");
	expect_error("'0b5e1a10-8c61-41de-8287-c1fa647fd821'", CFT_TIMEUUID, "version is not 1");
	expect_error("'not-a-uuid'", CFT_LEXICALUUID, "8-4-4-4-12");
	expect_error("long()", CFT_BYTES, "long() needs an argument");
}

static void
generated_uuids(void **state)
{
	cf_buf		a = CF_BUF_INIT,
				b = CF_BUF_INIT;

	(void) state;
	assert_null(conv("timeuuid()", CFT_BYTES, &a));
	assert_int_equal(a.len, 16);
	assert_int_equal(cf_uuid_version(a.data), 1);
	assert_null(conv("timeuuid()", CFT_BYTES, &b));
	assert_true(cf_uuid_v1_timestamp(b.data) > cf_uuid_v1_timestamp(a.data));
	assert_null(conv("lexicaluuid()", CFT_BYTES, &a));
	assert_int_equal(a.len, 16);
	assert_int_equal(cf_uuid_version(a.data), 4);
	cf_buf_free(&a);
	cf_buf_free(&b);
}

static void
expect_format(cft_type t, const char *hex, const char *want)
{
	uint8_t		raw[64];
	cf_buf		b = CF_BUF_INIT;

	assert_true(strlen(hex) / 2 <= sizeof(raw));
	assert_int_equal(cf_hex_decode(hex, strlen(hex) / 2, raw), -1);
	cft_bytes_format(t, cf_slice_of(raw, strlen(hex) / 2), &b);
	cf_buf_put_u8(&b, 0);
	assert_string_equal((char *) b.data, want);
	cf_buf_free(&b);
}

static void
formatting(void **state)
{
	(void) state;
	expect_format(CFT_BYTES, "4a6f686e", "4a6f686e");
	expect_format(CFT_UTF8, "4a6f686e", "John");
	expect_format(CFT_UTF8, "ff", "ff");
	expect_format(CFT_LONG, "000480b4e0025a31", "1267414247561777");
	expect_format(CFT_LONG, "ffffffffffffffff", "-1");
	expect_format(CFT_LONG, "0102", "0102");
	expect_format(CFT_INTEGER, "ff7f", "-129");
	expect_format(CFT_INTEGER, "010000000000000000", "18446744073709551616");
	expect_format(CFT_INTEGER, "00", "0");
	expect_format(CFT_TIMEUUID, "0b5e1a108c6111de8287c1fa647fd821",
				  "0b5e1a10-8c61-11de-8287-c1fa647fd821");
}

/* Parses one statement into an arena the caller frees. */
static cft_stmt *
stmt(cf_arena *a, const char *src)
{
	cft_stmt   *s;
	size_t		n;
	cf_status  *st = cft_parse(src, strlen(src), a, &s, &n);

	if (st != NULL)
		fail_msg("%s: %s", src, cf_status_msg(st));
	return s;
}

static void
keyspace_attrs(void **state)
{
	cf_arena   *a = cf_arena_new(0);
	cf_t_ks_def ks;
	cf_status  *st;
	cft_stmt   *s;

	(void) state;
	s = stmt(a, "create keyspace K with placement_strategy = 'NetworkTopologyStrategy' and "
			 "replication_factor = 3 and strategy_options = [{DC1: 2, DC2: 1}];");
	cft_ks_def_init(&ks, s->name);
	assert_null(cft_ks_def_apply(s, a, &ks));
	assert_true(S_EQ(ks.name, "K"));
	assert_true(S_EQ(ks.strategy_class, "org.apache.cassandra.locator.NetworkTopologyStrategy"));
	assert_int_equal(ks.replication_factor, 3);
	assert_int_equal(ks.n_strategy_options, 2);
	assert_true(S_EQ(ks.strategy_options[1].key, "DC2"));
	assert_true(S_EQ(ks.strategy_options[1].value, "1"));

	s = stmt(a, "create keyspace K with placement_strategy = "
			 "'org.apache.cassandra.locator.RackUnawareStrategy';");
	cft_ks_def_init(&ks, s->name);
	assert_null(cft_ks_def_apply(s, a, &ks));
	assert_true(S_EQ(ks.strategy_class, "org.apache.cassandra.locator.SimpleStrategy"));

	s = stmt(a, "create keyspace K with\n replication_factr = 3;");
	st = cft_ks_def_apply(s, a, &ks);
	assert_non_null(st);
	assert_non_null(strstr(cf_status_msg(st), "line 2, column 2: unknown keyspace attribute "
							"'replication_factr'"));
	cf_status_free(st);
	s = stmt(a, "create keyspace K with replication_factor = 0;");
	st = cft_ks_def_apply(s, a, &ks);
	assert_non_null(strstr(cf_status_msg(st), "replication_factor must be an integer from 1"));
	cf_status_free(st);
	s = stmt(a, "create keyspace K with placement_strategy = 'Mystery';");
	st = cft_ks_def_apply(s, a, &ks);
	assert_non_null(strstr(cf_status_msg(st), "hint: valid strategies are SimpleStrategy"));
	cf_status_free(st);
	cf_arena_free(a);
}

static void
column_family_attrs(void **state)
{
	cf_arena   *a = cf_arena_new(0);
	cf_t_cf_def cf;
	cf_status  *st;
	cft_stmt   *s;

	(void) state;
	s = stmt(a, "create column family Comments with column_type = super and comparator = "
			 "TimeUUIDType and subcomparator = BytesType and comment = 'c' and rows_cached = 10 "
			 "and keys_cached = 0.5 and read_repair_chance = 0.1 and gc_grace = 864000;");
	cft_cf_def_init(&cf, "BloggyAppy", s->name);
	assert_null(cft_cf_def_apply(s, a, &cf));
	assert_true(S_EQ(cf.keyspace, "BloggyAppy"));
	assert_true(S_EQ(cf.column_type, "Super"));
	assert_true(S_EQ(cf.comparator_type, "org.apache.cassandra.db.marshal.TimeUUIDType"));
	assert_true(cf.has_subcomparator_type);
	assert_true(S_EQ(cf.subcomparator_type, "org.apache.cassandra.db.marshal.BytesType"));
	assert_true(S_EQ(cf.comment, "c"));
	assert_true(cf.row_cache_size == 10.0);
	assert_true(cf.key_cache_size == 0.5);
	assert_true(cf.read_repair_chance == 0.1);
	assert_int_equal(cf.gc_grace_seconds, 864000);

	s = stmt(a, "create column family Users with comparator = LongType and column_metadata = "
			 "[{column_name: 42, validation_class: UTF8Type, index_type: KEYS}];");
	cft_cf_def_init(&cf, "K", s->name);
	assert_null(cft_cf_def_apply(s, a, &cf));
	assert_int_equal(cf.n_column_metadata, 1);
	assert_int_equal(cf.column_metadata[0].name.len, 8);	/* LongType name */
	assert_int_equal(cf.column_metadata[0].name.p[7], 42);
	assert_true(cf.column_metadata[0].has_index_type);

	s = stmt(a, "create column family U with compartor = UTF8Type;");
	st = cft_cf_def_apply(s, a, &cf);
	assert_non_null(strstr(cf_status_msg(st), "unknown column family attribute 'compartor'"));
	assert_non_null(strstr(cf_status_msg(st), "hint: valid attributes are column_type, comparator"));
	cf_status_free(st);
	s = stmt(a, "create column family U with comparator = UTF9Type;");
	st = cft_cf_def_apply(s, a, &cf);
	assert_non_null(strstr(cf_status_msg(st), "line 1, column 29: unknown comparator \"UTF9Type\""));
	cf_status_free(st);
	s = stmt(a, "create column family U with column_type = Duper;");
	st = cft_cf_def_apply(s, a, &cf);
	assert_non_null(strstr(cf_status_msg(st), "column_type must be Standard or Super"));
	cf_status_free(st);
	cft_cf_def_init(&cf, "K", "U");
	s = stmt(a, "create column family U with subcomparator = UTF8Type;");
	st = cft_cf_def_apply(s, a, &cf);
	assert_non_null(strstr(cf_status_msg(st), "subcomparator is only for column_type = Super"));
	cf_status_free(st);
	cft_cf_def_init(&cf, "K", "U");
	s = stmt(a, "create column family U with column_metadata = [{column_name: a}];");
	st = cft_cf_def_apply(s, a, &cf);
	assert_non_null(strstr(cf_status_msg(st), "column_metadata entry lacks validation_class"));
	cf_status_free(st);
	s = stmt(a, "create column family U with column_metadata = [{column_name: a, "
			 "validation_class: UTF8Type, index_type: HASH}];");
	st = cft_cf_def_apply(s, a, &cf);
	assert_non_null(strstr(cf_status_msg(st), "unknown index_type 'HASH'"));
	cf_status_free(st);
	s = stmt(a, "create column family U with read_repair_chance = 2;");
	st = cft_cf_def_apply(s, a, &cf);
	assert_non_null(strstr(cf_status_msg(st), "read_repair_chance must be a number from 0 to 1"));
	cf_status_free(st);
	cf_arena_free(a);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(type_names),
		cmocka_unit_test(conversions),
		cmocka_unit_test(generated_uuids),
		cmocka_unit_test(formatting),
		cmocka_unit_test(keyspace_attrs),
		cmocka_unit_test(column_family_attrs),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
