/*
 * tests/unit/test_tools_schema_load.c — tools/schema_load.c: the seeds' own
 * storage-conf.xml and schema.json text (tests/data/seeds/) become the KsDefs they
 * describe; malformed files and unknown names fail with file:line and a hint; the
 * printed cli statements parse back to the same defs; and applying a schema makes
 * the right calls, checked against an in-memory backend.
 */
#include "support/cmocka_prelude.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support/slices.h"
#include "tools/backend.h"
#include "tools/cli.h"
#include "tools/cli_schema.h"
#include "tools/schema_load.h"

#define MARSHAL "org.apache.cassandra.db.marshal."

static void
check_cf(const cf_t_cf_def *cf, const char *ks, const char *name, const char *type,
		 const char *cmp, const char *sub)
{
	if (!S_EQ(cf->name, name))
		fail_msg("cf %.*s, want %s", (int) cf->name.len, cf->name.p, name);
	assert_true(S_EQ(cf->keyspace, ks));
	assert_true(S_EQ(cf->column_type, type));
	assert_true(S_EQ(cf->comparator_type, cmp));
	if (sub)
	{
		assert_true(cf->has_subcomparator_type);
		assert_true(S_EQ(cf->subcomparator_type, sub));
	}
	else
		assert_false(cf->has_subcomparator_type);
}

static void
seed_xml_bloggyappy(void **state)
{
	cf_arena   *a = cf_arena_new(0);
	cf_t_ks_def *ks;
	size_t		n;
	cf_status  *st = cft_schema_load_file("tests/data/seeds/bloggyappy.xml", a, &ks, &n);

	(void) state;
	if (st)
		fail_msg("%s", cf_status_msg(st));
	assert_int_equal(n, 1);
	assert_true(S_EQ(ks->name, "BloggyAppy"));
	assert_true(S_EQ(ks->strategy_class, CFT_DEFAULT_STRATEGY));
	assert_int_equal(ks->replication_factor, 1);
	assert_int_equal(ks->n_cf_defs, 4);
	check_cf(&ks->cf_defs[0], "BloggyAppy", "Authors", "Standard", MARSHAL "BytesType", NULL);
	check_cf(&ks->cf_defs[1], "BloggyAppy", "BlogEntries", "Standard", MARSHAL "BytesType", NULL);
	check_cf(&ks->cf_defs[2], "BloggyAppy", "TaggedPosts", "Standard", MARSHAL "TimeUUIDType", NULL);
	check_cf(&ks->cf_defs[3], "BloggyAppy", "Comments", "Super", MARSHAL "TimeUUIDType",
			 MARSHAL "BytesType");
	cf_arena_free(a);
}

static void
seed_xml_twissandra_and_twitter(void **state)
{
	cf_arena   *a = cf_arena_new(0);
	cf_t_ks_def *ks;
	size_t		n;
	cf_status  *st = cft_schema_load_file("tests/data/seeds/twissandra.xml", a, &ks, &n);

	(void) state;
	if (st)
		fail_msg("%s", cf_status_msg(st));
	assert_int_equal(n, 1);
	assert_true(S_EQ(ks->name, "Twissandra"));
	/* 0.6's RackUnawareStrategy is 0.7's SimpleStrategy */
	assert_true(S_EQ(ks->strategy_class, "org.apache.cassandra.locator.SimpleStrategy"));
	assert_int_equal(ks->n_cf_defs, 7);
	check_cf(&ks->cf_defs[0], "Twissandra", "User", "Standard", MARSHAL "UTF8Type", NULL);
	check_cf(&ks->cf_defs[5], "Twissandra", "Timeline", "Standard", MARSHAL "LongType", NULL);
	check_cf(&ks->cf_defs[6], "Twissandra", "Userline", "Standard", MARSHAL "LongType", NULL);

	assert_null(cft_schema_load_file("tests/data/seeds/twitter.xml", a, &ks, &n));
	assert_int_equal(n, 1);
	assert_int_equal(ks->n_cf_defs, 5);
	check_cf(&ks->cf_defs[2], "Twitter", "StatusRelationships", "Super", MARSHAL "UTF8Type",
			 MARSHAL "TimeUUIDType");
	check_cf(&ks->cf_defs[4], "Twitter", "UserRelationships", "Super", MARSHAL "UTF8Type",
			 MARSHAL "TimeUUIDType");
	cf_arena_free(a);
}

static void
seed_json(void **state)
{
	cf_arena   *a = cf_arena_new(0);
	cf_t_ks_def *ks;
	size_t		n;
	cf_status  *st = cft_schema_load_file("tests/data/seeds/twitter.json", a, &ks, &n);

	(void) state;
	if (st)
		fail_msg("%s", cf_status_msg(st));
	assert_int_equal(n, 1);
	assert_true(S_EQ(ks->name, "Twitter"));
	assert_int_equal(ks->n_cf_defs, 3);
	check_cf(&ks->cf_defs[0], "Twitter", "Users", "Standard", MARSHAL "UTF8Type", NULL);
	check_cf(&ks->cf_defs[1], "Twitter", "Statuses", "Standard", MARSHAL "UTF8Type", NULL);
	check_cf(&ks->cf_defs[2], "Twitter", "StatusRelationships", "Super", MARSHAL "UTF8Type",
			 MARSHAL "TimeUUIDType");

	assert_null(cft_schema_load_file("tests/data/seeds/multiblog.json", a, &ks, &n));
	assert_int_equal(n, 1);
	assert_true(S_EQ(ks->name, "Multiblog"));
	assert_int_equal(ks->n_cf_defs, 2);
	check_cf(&ks->cf_defs[1], "Multiblog", "Comments", "Standard", MARSHAL "TimeUUIDType", NULL);
	cf_arena_free(a);
}

static void
xml_bad(const char *text, const char *want)
{
	cf_arena   *a = cf_arena_new(0);
	cf_t_ks_def *ks;
	size_t		n;
	cf_status  *st = cft_schema_from_xml("conf.xml", text, strlen(text), a, &ks, &n);

	if (st == NULL)
		fail_msg("accepted: %s", text);
	assert_int_equal(cf_status_code(st), CF_ERR_INVALID);
	if (strstr(cf_status_msg(st), want) == NULL)
		fail_msg("\"%s\" lacks \"%s\"", cf_status_msg(st), want);
	cf_status_free(st);
	cf_arena_free(a);
}

static void
xml_errors(void **state)
{
	(void) state;
	xml_bad("<Keyspace Name=\"K\">\n  <ColumnFamily Name=\"A\" CompareWith=\"UTF9Type\"/>\n"
			"</Keyspace>", "conf.xml:2: unknown CompareWith \"UTF9Type\"\nhint: valid types "
			"are BytesType");
	xml_bad("<Keyspace Name=\"K\">\n\n  <ColumnFamily Name=\"A\" Comparator=\"UTF8Type\"/>\n"
			"</Keyspace>", "conf.xml:3: unknown ColumnFamily attribute \"Comparator\"\nhint: "
			"valid attributes are Name, CompareWith");
	xml_bad("<Keyspace Name=\"K\">\n  <ColumnFamily Name=\"A\"\n</Keyspace>", "conf.xml:3:");
	xml_bad("<Keyspace Name=\"K\">\n  <ColumnFamily CompareWith=\"UTF8Type\"/>\n</Keyspace>",
			"conf.xml:2: ColumnFamily needs a Name attribute");
	xml_bad("<Keyspace Name=\"K\"><ColumnFamily Name=\"A\"/>\n<ColumnFamily Name=\"A\"/>"
			"</Keyspace>", "conf.xml:2: ColumnFamily \"A\" is defined twice");
	xml_bad("<Keyspace Name=\"K\"><ColumnFamily Name=\"A\" ColumnType=\"Duper\"/></Keyspace>",
			"ColumnType must be Standard or Super");
	xml_bad("<Keyspace Name=\"K\"><ColumnFamily Name=\"A\" CompareSubcolumnsWith=\"UTF8Type\"/>"
			"</Keyspace>", "has CompareSubcolumnsWith but is not ColumnType=\"Super\"");
	xml_bad("<Keyspace Name=\"K\">\n<ReplicationFactor>zero</ReplicationFactor></Keyspace>",
			"conf.xml:2: ReplicationFactor must be a whole number from 1");
	xml_bad("<Keyspace Name=\"K\"><ReplicaPlacementStrategy>Foo</ReplicaPlacementStrategy>"
			"</Keyspace>", "unknown ReplicaPlacementStrategy \"Foo\"");
	xml_bad("<Keyspace Name=\"K\"><Table/></Keyspace>", "unknown element <Table> in Keyspace");
	xml_bad("<Keyspaces><Keyspace/></Keyspaces>", "Keyspace needs a Name attribute");
	xml_bad("<Keyspaces><Other/></Keyspaces>", "unknown element <Other> in <Keyspaces>");
	xml_bad("<Database/>", "root element <Database> is not a schema");
	xml_bad("<Storage><ClusterName>x</ClusterName></Storage>", "no <Keyspace> in the file");
	/* seed 003's translation prints the XML with typographic quotes */
	xml_bad("<ColumnFamily CompareWith=\xc2\xbb" "BytesType\xc2\xbb Name=\xc2\xbb" "Authors\xc2\xbb/>",
			"typographic quotes");
}

static void
xml_storage_conf(void **state)
{
	const char *text =
		"<Storage>\n  <ClusterName>Test Cluster</ClusterName>\n  <Keyspaces>\n"
		"    <Keyspace Name=\"A\"><ColumnFamily Name=\"X\" RowsCached=\"10%\" KeysCached=\"1000\""
		" ReadRepairChance=\"0.5\" GCGraceSeconds=\"3600\" Comment=\"c\"/>"
		"<ReplicationFactor>3</ReplicationFactor>"
		"<ReplicaPlacementStrategy>org.apache.cassandra.locator.RackAwareStrategy"
		"</ReplicaPlacementStrategy></Keyspace>\n"
		"    <Keyspace Name=\"B\"/>\n  </Keyspaces>\n"
		"  <Partitioner>org.apache.cassandra.dht.RandomPartitioner</Partitioner>\n</Storage>\n";
	cf_arena   *a = cf_arena_new(0);
	cf_t_ks_def *ks;
	size_t		n;
	cf_status  *st = cft_schema_from_xml("s.xml", text, strlen(text), a, &ks, &n);

	(void) state;
	if (st)
		fail_msg("%s", cf_status_msg(st));
	assert_int_equal(n, 2);
	assert_int_equal(ks[0].replication_factor, 3);
	assert_true(S_EQ(ks[0].strategy_class, "org.apache.cassandra.locator.OldNetworkTopologyStrategy"));
	assert_true(ks[0].cf_defs[0].row_cache_size == 0.1);
	assert_true(ks[0].cf_defs[0].key_cache_size == 1000);
	assert_true(ks[0].cf_defs[0].read_repair_chance == 0.5);
	assert_int_equal(ks[0].cf_defs[0].gc_grace_seconds, 3600);
	assert_true(S_EQ(ks[0].cf_defs[0].comment, "c"));
	assert_true(S_EQ(ks[1].name, "B"));
	assert_int_equal(ks[1].n_cf_defs, 0);
	cf_arena_free(a);
}

static void
json_bad(const char *text, const char *want)
{
	cf_arena   *a = cf_arena_new(0);
	cf_t_ks_def *ks;
	size_t		n;
	cf_status  *st = cft_schema_from_json("schema.json", text, strlen(text), a, &ks, &n);

	if (st == NULL)
		fail_msg("accepted: %s", text);
	if (strstr(cf_status_msg(st), want) == NULL)
		fail_msg("\"%s\" lacks \"%s\"", cf_status_msg(st), want);
	cf_status_free(st);
	cf_arena_free(a);
}

static void
json_errors(void **state)
{
	(void) state;
	json_bad("{\"K\":{\n \"A\":{\n  \"comparator_type\":\"UTF9Type\"}}}",
			 "schema.json:3: unknown comparator_type \"UTF9Type\"");
	json_bad("{\"K\":{\n \"A\":{\"column_type\":\"Standard\",\n  \"comparator\":\"UTF8Type\"}}}",
			 "schema.json:3: unknown column family attribute \"comparator\" in K.A\nhint: "
			 "valid attributes are column_type, comparator_type");
	json_bad("{\"K\":{\n \"A\":{\n  \"comparator_type\":\"UTF8Type\"\n  \"column_type\":\"Super\"}}}",
			 "schema.json:4:");
	json_bad("{\"K\":{\"A\":{}}", "the JSON document ends too early");
	json_bad("{\"K\":{\"A\":{}}} x", "schema.json:1:");
	json_bad("[1, 2]", "the schema must be a JSON object");
	json_bad("{}", "no keyspace in the file");
	json_bad("{\"K\": 5}", "keyspace \"K\" must be an object");
	json_bad("{\"K\":{\"rf\": 5}}", "\"rf\" in keyspace \"K\" is neither a column family");
	json_bad("{\"K\":{\"replication_factor\": 0}}", "replication_factor must be from 1");
	json_bad("{\"K\":{\"A\":{\"column_type\":\"Duper\"}}}", "column_type must be Standard or Super");
	json_bad("{\"K\":{\"A\":{\"subcomparator_type\":\"UTF8Type\"}}}", "its column_type is not \"Super\"");
	json_bad("{\"K\":{\"A\":{\"column_metadata\":[{\"name\":\"x\"}]}}}",
			 "column_metadata[0] lacks \"validation_class\"");
	json_bad("{\"K\":{\"A\":{\"comparator_type\":\"LongType\",\"column_metadata\":"
			 "[{\"name\":\"x\",\"validation_class\":\"UTF8Type\"}]}}}",
			 "'x' is not a LongType");
}

static void
json_full(void **state)
{
	const char *text =
		"{\"K\":{\"replication_factor\":2,\"strategy_class\":\"NetworkTopologyStrategy\","
		"\"strategy_options\":{\"DC1\":\"2\"},"
		"\"Users\":{\"comparator_type\":\"UTF8Type\",\"comment\":\"people\","
		"\"gc_grace_seconds\":10,\"read_repair_chance\":0.25,\"column_metadata\":["
		"{\"name\":\"state\",\"validation_class\":\"UTF8Type\",\"index_type\":\"KEYS\"}]}}}";
	cf_arena   *a = cf_arena_new(0);
	cf_t_ks_def *ks;
	size_t		n;
	cf_status  *st = cft_schema_from_json("s.json", text, strlen(text), a, &ks, &n);

	(void) state;
	if (st)
		fail_msg("%s", cf_status_msg(st));
	assert_int_equal(ks->replication_factor, 2);
	assert_true(S_EQ(ks->strategy_class, "org.apache.cassandra.locator.NetworkTopologyStrategy"));
	assert_int_equal(ks->n_strategy_options, 1);
	assert_true(S_EQ(ks->strategy_options[0].value, "2"));
	assert_int_equal(ks->cf_defs[0].gc_grace_seconds, 10);
	assert_true(ks->cf_defs[0].read_repair_chance == 0.25);
	assert_int_equal(ks->cf_defs[0].n_column_metadata, 1);
	assert_true(S_EQ(ks->cf_defs[0].column_metadata[0].name, "state"));
	assert_true(ks->cf_defs[0].column_metadata[0].has_index_type);
	cf_arena_free(a);
}

/* The printed statements parse and apply back to the same definitions. */
static void
printed_cli_round_trips(void **state)
{
	cf_arena   *a = cf_arena_new(0);
	cf_t_ks_def *ks;
	size_t		n,
				ns;
	char	   *text = NULL;
	size_t		len = 0;
	FILE	   *mem;
	cft_stmt   *s;

	(void) state;
	assert_null(cft_schema_load_file("tests/data/seeds/bloggyappy.xml", a, &ks, &n));
	mem = open_memstream(&text, &len);
	cft_schema_print_cli(mem, ks);
	fclose(mem);
	assert_null(cft_parse(text, len, a, &s, &ns));
	assert_int_equal(ns, 2 + ks->n_cf_defs);
	for (size_t i = 0; i < ks->n_cf_defs; i++)
	{
		cf_t_cf_def cf;

		assert_int_equal(s[2 + i].kind, CFT_CREATE_CF);
		cft_cf_def_init(&cf, "BloggyAppy", s[2 + i].name);
		assert_null(cft_cf_def_apply(&s[2 + i], a, &cf));
		assert_true(cf_slice_eq(cf.name, ks->cf_defs[i].name));
		assert_true(cf_slice_eq(cf.column_type, ks->cf_defs[i].column_type));
		assert_true(cf_slice_eq(cf.comparator_type, ks->cf_defs[i].comparator_type));
		assert_int_equal(cf.has_subcomparator_type, ks->cf_defs[i].has_subcomparator_type);
	}
	free(text);
	cf_arena_free(a);
}

/* ---- an in-memory backend: a list of keyspaces and a log of calls ---- */

typedef struct fake
{
	bool		exists;			/* describe_keyspace finds the keyspace */
	cf_t_ks_def existing;
	cf_t_cf_def existing_cf;
	char		log[1024];
	int32_t		last_update_id;
} fake;

static cf_status *
fake_call(void *ctx, cf_t_method m, const cf_t_args *args, cf_arena *arena, cf_t_result *res)
{
	fake	   *f = ctx;
	const char *name = "?";

	(void) arena;
	switch (m)
	{
		case CF_T_M_DESCRIBE_KEYSPACE:
			name = "describe_keyspace";
			if (f->exists)
				res->ks_def = f->existing;
			else
				res->exception.kind = CF_T_EXC_NOT_FOUND;
			break;
		case CF_T_M_SYSTEM_ADD_KEYSPACE:
			name = "system_add_keyspace";
			break;
		case CF_T_M_SYSTEM_UPDATE_KEYSPACE:
			name = "system_update_keyspace";
			assert_int_equal(args->ks_def.n_cf_defs, 0);
			break;
		case CF_T_M_SYSTEM_ADD_COLUMN_FAMILY:
			name = "system_add_column_family";
			break;
		case CF_T_M_SYSTEM_UPDATE_COLUMN_FAMILY:
			name = "system_update_column_family";
			assert_true(args->cf_def.has_id);
			f->last_update_id = args->cf_def.id;
			break;
		default:
			fail_msg("unexpected call %d", (int) m);
	}
	strcat(f->log, name);
	if (m == CF_T_M_SYSTEM_ADD_COLUMN_FAMILY || m == CF_T_M_SYSTEM_UPDATE_COLUMN_FAMILY)
		strncat(f->log, (const char *) args->cf_def.name.p, args->cf_def.name.len);
	strcat(f->log, ";");
	return NULL;
}

static void
apply_through_backend(void **state)
{
	cf_arena   *a = cf_arena_new(0);
	cf_t_ks_def *ks;
	size_t		n;
	fake		f;
	cft_backend b = {fake_call, NULL, &f};
	cf_status  *st;

	(void) state;
	assert_null(cft_schema_load_file("tests/data/seeds/multiblog.json", a, &ks, &n));

	memset(&f, 0, sizeof(f));
	assert_null(cft_schema_apply(&b, ks, false, NULL));
	assert_string_equal(f.log, "describe_keyspace;system_add_keyspace;");

	memset(&f, 0, sizeof(f));
	f.exists = true;
	st = cft_schema_apply(&b, ks, false, NULL);
	assert_non_null(st);
	assert_non_null(strstr(cf_status_msg(st), "keyspace Multiblog already exists\nhint: --update"));
	cf_status_free(st);

	memset(&f, 0, sizeof(f));
	f.exists = true;
	f.existing.name = cf_slice_str("Multiblog");
	f.existing_cf.name = cf_slice_str("Comments");
	f.existing_cf.has_id = true;
	f.existing_cf.id = 1042;
	f.existing.cf_defs = &f.existing_cf;
	f.existing.n_cf_defs = 1;
	assert_null(cft_schema_apply(&b, ks, true, NULL));
	assert_string_equal(f.log, "describe_keyspace;system_update_keyspace;"
						"system_add_column_familyBlogs;system_update_column_familyComments;");
	assert_int_equal(f.last_update_id, 1042);
	cf_arena_free(a);
}

static cf_status *
invalid_call(void *ctx, cf_t_method m, const cf_t_args *args, cf_arena *arena, cf_t_result *res)
{
	(void) ctx;
	(void) args;
	(void) arena;
	if (m == CF_T_M_DESCRIBE_KEYSPACE)
		res->exception.kind = CF_T_EXC_NOT_FOUND;
	else
	{
		res->exception.kind = CF_T_EXC_INVALID_REQUEST;
		res->exception.why = cf_slice_str("Keyspace names must be case-insensitively unique");
	}
	return NULL;
}

static void
apply_reports_server_errors(void **state)
{
	cf_arena   *a = cf_arena_new(0);
	cf_t_ks_def *ks;
	size_t		n;
	cft_backend b = {invalid_call, NULL, NULL};
	cf_status  *st;

	(void) state;
	assert_null(cft_schema_load_file("tests/data/seeds/twitter.json", a, &ks, &n));
	st = cft_schema_apply(&b, ks, false, NULL);
	assert_int_equal(cf_status_code(st), CF_ERR_INVALID);
	assert_string_equal(cf_status_msg(st), "creating keyspace Twitter: Keyspace names must be "
						"case-insensitively unique");
	cf_status_free(st);
	cf_arena_free(a);
}

static void
load_file_errors(void **state)
{
	cf_arena   *a = cf_arena_new(0);
	cf_t_ks_def *ks;
	size_t		n;
	cf_status  *st;

	(void) state;
	st = cft_schema_load_file("tests/data/seeds/no-such-file.xml", a, &ks, &n);
	assert_int_equal(cf_status_code(st), CF_ERR_NOT_FOUND);
	cf_status_free(st);
	st = cft_schema_load_file("tests/data/seeds/bloggyappy.cli", a, &ks, &n);
	assert_non_null(strstr(cf_status_msg(st), "neither XML nor JSON"));
	cf_status_free(st);
	cf_arena_free(a);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(seed_xml_bloggyappy),
		cmocka_unit_test(seed_xml_twissandra_and_twitter),
		cmocka_unit_test(seed_json),
		cmocka_unit_test(xml_errors),
		cmocka_unit_test(xml_storage_conf),
		cmocka_unit_test(json_errors),
		cmocka_unit_test(json_full),
		cmocka_unit_test(printed_cli_round_trips),
		cmocka_unit_test(apply_through_backend),
		cmocka_unit_test(apply_reports_server_errors),
		cmocka_unit_test(load_file_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
