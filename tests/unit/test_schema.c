/* tests/unit/test_schema.c — db/schema: CfDef/KsDef defaults and validation messages,
 * copy-on-write schema changes and lookups, the encoding (round trip of the seeds'
 * keyspaces, every truncation, byte flips), and validation of row mutations. */
#include "support/cmocka_prelude.h"
#include "support/slices.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db/schema.h"

/* Asserts st is an error of code whose message contains every given substring. */
static void
expect_err_(cf_status *st, cf_code code, const char *const *subs, size_t n)
{
	if (st == NULL)
		fail_msg("expected an error, got success");
	if (cf_status_code(st) != code)
		fail_msg("expected %s, got %s: %s", cf_code_name(code),
				 cf_code_name(cf_status_code(st)), cf_status_msg(st));
	for (size_t i = 0; i < n; i++)
		if (strstr(cf_status_msg(st), subs[i]) == NULL)
			fail_msg("message '%s' lacks '%s'", cf_status_msg(st), subs[i]);
	cf_status_free(st);
}

#define expect_err(st, code, ...) do { \
	const char *const subs_[] = {__VA_ARGS__}; \
	expect_err_((st), (code), subs_, sizeof(subs_) / sizeof(subs_[0])); \
} while (0)

static void
expect_ok(cf_status *st)
{
	if (st != NULL)
	{
		char		msg[CF_STATUS_MSG_MAX + 1];

		snprintf(msg, sizeof(msg), "%s", cf_status_msg(st));
		cf_status_free(st);
		fail_msg("unexpected error: %s", msg);
	}
}

/* A CF definition: cmp/subcmp as type names, subcmp NULL for none. */
static void
make_cf(cf_cf_def *d, const char *ks, const char *name, bool super, const char *cmp,
		const char *subcmp)
{
	expect_ok(cf_cfdef_init(d, ks, name));
	expect_ok(cf_cfdef_set_column_type(d, super ? "Super" : "Standard"));
	expect_ok(cf_cfdef_set_comparator(d, cmp));
	if (subcmp)
		expect_ok(cf_cfdef_set_subcomparator(d, subcmp));
}

static void
add_cf(cf_ks_def *k, bool super, const char *name, const char *cmp, const char *subcmp)
{
	cf_cf_def	d;

	make_cf(&d, k->name, name, super, cmp, subcmp);
	expect_ok(cf_ksdef_add_cf(k, &d));
}

/* Twitter (Twissandra for 0.7, seed 004) with fully-qualified class names. */
static void
twitter(cf_ks_def *k)
{
	cf_cf_def	users;

	expect_ok(cf_ksdef_init(k, "Twitter"));
	expect_ok(cf_ksdef_set_strategy(k, "org.apache.cassandra.locator.SimpleStrategy"));
	make_cf(&users, "Twitter", "Users", false, "org.apache.cassandra.db.marshal.UTF8Type",
			NULL);
	expect_ok(cf_cfdef_add_column(&users, S("email"), "UTF8Type", true, "users_email"));
	expect_ok(cf_cfdef_add_column(&users, S("age"), "LongType", false, NULL));
	expect_ok(cf_cfdef_set_comment(&users, "who tweets"));
	expect_ok(cf_ksdef_add_cf(k, &users));
	add_cf(k, true, "UserRelationships", "UTF8Type",
		   "org.apache.cassandra.db.marshal.TimeUUIDType");
	add_cf(k, false, "Statuses", "org.apache.cassandra.db.marshal.UTF8Type", NULL);
	add_cf(k, true, "StatusRelationships", "org.apache.cassandra.db.marshal.UTF8Type",
		   "org.apache.cassandra.db.marshal.TimeUUIDType");
}

/* BloggyAppy (seed 001's storage-conf.xml), NetworkTopologyStrategy for options. */
static void
bloggyappy(cf_ks_def *k)
{
	expect_ok(cf_ksdef_init(k, "BloggyAppy"));
	expect_ok(cf_ksdef_set_strategy(k, "NetworkTopologyStrategy"));
	expect_ok(cf_ksdef_add_option(k, "DC1", "2"));
	expect_ok(cf_ksdef_add_option(k, "DC2", "1"));
	k->replication_factor = 3;
	add_cf(k, false, "Authors", "BytesType", NULL);
	add_cf(k, false, "BlogEntries", "BytesType", NULL);
	add_cf(k, false, "TaggedPosts", "TimeUUIDType", NULL);
	add_cf(k, true, "Comments", "TimeUUIDType", "BytesType");
}

/* A schema holding both seed keyspaces. */
static cf_schema *
seeds_schema(void)
{
	cf_schema  *s0 = cf_schema_new();
	cf_schema  *s1;
	cf_schema  *s2;
	cf_ks_def	k;

	twitter(&k);
	expect_ok(cf_schema_add_keyspace(s0, &k, 0, &s1));
	cf_ksdef_clear(&k);
	bloggyappy(&k);
	expect_ok(cf_schema_add_keyspace(s1, &k, 0, &s2));
	cf_ksdef_clear(&k);
	cf_schema_unref(s0);
	cf_schema_unref(s1);
	return s2;
}

/* ---- defaults and definition validation ---- */

static void
defaults_match_reference(void **state)
{
	cf_cf_def	d;
	cf_ks_def	k;

	(void) state;
	expect_ok(cf_cfdef_init(&d, "Ks", "Cf"));
	assert_false(d.super);
	assert_int_equal(d.comparator, CF_TYPE_BYTES);
	assert_int_equal(d.default_validator, CF_TYPE_BYTES);
	assert_false(d.has_subcomparator);
	assert_true(d.row_cache_size == 0);
	assert_true(d.key_cache_size == 200000);
	assert_true(d.read_repair_chance == 1.0);
	assert_int_equal(d.gc_grace_seconds, 864000);
	assert_int_equal(d.min_compaction_threshold, 4);
	assert_int_equal(d.max_compaction_threshold, 32);
	assert_int_equal(d.row_cache_save_period_in_seconds, 0);
	assert_int_equal(d.key_cache_save_period_in_seconds, 3600);
	assert_int_equal(d.memtable_flush_after_mins, 60);
	assert_int_equal(d.memtable_throughput_in_mb, 64);
	assert_true(d.memtable_operations_in_millions == 0.3);
	assert_null(d.comment);
	assert_int_equal(d.n_columns, 0);
	assert_int_equal(d.id, 0);
	expect_ok(cf_cfdef_validate(&d));
	cf_cfdef_clear(&d);

	expect_ok(cf_ksdef_init(&k, "Ks"));
	assert_int_equal(k.strategy, CF_STRATEGY_SIMPLE);
	assert_int_equal(k.replication_factor, 1);
	expect_ok(cf_ksdef_validate(&k, 0));
	cf_ksdef_clear(&k);
}

static void
class_names_short_or_qualified(void **state)
{
	cf_strategy s;
	cf_cf_def	d;

	(void) state;
	expect_ok(cf_strategy_parse("org.apache.cassandra.locator.NetworkTopologyStrategy", &s));
	assert_int_equal(s, CF_STRATEGY_NETWORK_TOPOLOGY);
	expect_ok(cf_strategy_parse("OldNetworkTopologyStrategy", &s));
	assert_int_equal(s, CF_STRATEGY_OLD_NETWORK_TOPOLOGY);
	assert_string_equal(cf_strategy_name(s), "OldNetworkTopologyStrategy");
	assert_string_equal(cf_strategy_class(CF_STRATEGY_SIMPLE),
						"org.apache.cassandra.locator.SimpleStrategy");
	expect_err(cf_strategy_parse("RackUnawareStrategy", &s), CF_ERR_INVALID,
			   "RackUnawareStrategy", "SimpleStrategy", "NetworkTopologyStrategy");

	expect_ok(cf_cfdef_init(&d, "Ks", "Cf"));
	expect_ok(cf_cfdef_set_comparator(&d, "org.apache.cassandra.db.marshal.LongType"));
	assert_int_equal(d.comparator, CF_TYPE_LONG);
	expect_err(cf_cfdef_set_comparator(&d, "CounterColumnType"), CF_ERR_INVALID,
			   "comparator_type of column family 'Cf'", "CounterColumnType", "BytesType");
	expect_err(cf_cfdef_set_default_validator(&d, "Nope"), CF_ERR_INVALID,
			   "default_validation_class");
	expect_err(cf_cfdef_set_column_type(&d, "super"), CF_ERR_INVALID,
			   "column_type 'super'", "Standard or Super");
	expect_err(cf_cfdef_add_column(&d, S("x"), "Wrong", false, NULL), CF_ERR_INVALID,
			   "validation_class of column 'x'");
	assert_int_equal(d.n_columns, 0);
	cf_cfdef_clear(&d);
}

static void
names_are_validated(void **state)
{
	cf_cf_def	d;
	cf_ks_def	k;
	char		long_name[50];

	(void) state;
	memset(long_name, 'a', 49);
	long_name[49] = '\0';
	expect_ok(cf_cfdef_init(&d, "Ks", ""));
	expect_err(cf_cfdef_validate(&d), CF_ERR_INVALID, "column family name must not be empty",
			   "A-Z");
	free(d.name);
	d.name = strdup("bad-name");
	expect_err(cf_cfdef_validate(&d), CF_ERR_INVALID, "column family name 'bad-name'",
			   "0x2d", "A-Z, a-z, 0-9 and _");
	free(d.name);
	d.name = strdup(long_name);
	expect_err(cf_cfdef_validate(&d), CF_ERR_INVALID, "49 characters", "at most 48");
	long_name[48] = '\0';
	free(d.name);
	d.name = strdup(long_name);
	expect_ok(cf_cfdef_validate(&d));
	free(d.keyspace);
	d.keyspace = strdup("k s");
	expect_err(cf_cfdef_validate(&d), CF_ERR_INVALID, "keyspace name 'k s'");
	cf_cfdef_clear(&d);

	expect_ok(cf_ksdef_init(&k, "Ks\n"));
	expect_err(cf_ksdef_validate(&k, 0), CF_ERR_INVALID, "keyspace name 'Ks?'", "0x0a");
	cf_ksdef_clear(&k);
}

static void
system_keyspace_is_reserved(void **state)
{
	cf_schema  *s0 = cf_schema_new();
	cf_schema  *s1;
	cf_schema  *s2 = NULL;
	cf_ks_def	k;
	cf_cf_def	d;

	(void) state;
	expect_ok(cf_ksdef_init(&k, "system"));
	add_cf(&k, false, "LocationInfo", "BytesType", NULL);
	expect_err(cf_schema_add_keyspace(s0, &k, 0, &s1), CF_ERR_INVALID,
			   "keyspace 'system' is reserved");
	assert_null(s1);
	free(k.name);
	k.name = strdup("System");
	expect_err(cf_ksdef_validate(&k, 0), CF_ERR_INVALID, "reserved");
	free(k.name);
	k.name = strdup("system");
	expect_ok(cf_schema_add_keyspace(s0, &k, CF_SCHEMA_ALLOW_SYSTEM, &s1));
	cf_ksdef_clear(&k);

	make_cf(&d, "system", "Migrations", false, "TimeUUIDType", NULL);
	expect_err(cf_schema_add_cf(s1, &d, 0, &s2), CF_ERR_INVALID, "reserved");
	expect_err(cf_schema_drop_cf(s1, "system", "LocationInfo", 0, &s2), CF_ERR_INVALID,
			   "reserved");
	expect_err(cf_schema_drop_keyspace(s1, "system", 0, &s2), CF_ERR_INVALID, "reserved");
	expect_ok(cf_schema_add_cf(s1, &d, CF_SCHEMA_ALLOW_SYSTEM, &s2));
	assert_non_null(cf_schema_cf(s2, "system", "Migrations"));
	cf_cfdef_clear(&d);
	cf_schema_unref(s0);
	cf_schema_unref(s1);
	cf_schema_unref(s2);
}

static void
cf_definition_rules(void **state)
{
	cf_cf_def	d;
	uint8_t		seven[7] = {0};

	(void) state;
	make_cf(&d, "Ks", "Std", false, "UTF8Type", "UTF8Type");
	expect_err(cf_cfdef_validate(&d), CF_ERR_INVALID, "'Std' is Standard",
			   "subcomparator_type applies only to Super");
	d.super = true;
	expect_ok(cf_cfdef_validate(&d));
	cf_cfdef_clear(&d);

	/* column_metadata names are checked by the comparator and must be unique */
	make_cf(&d, "Ks", "Nums", false, "LongType", NULL);
	expect_ok(cf_cfdef_add_column(&d, cf_slice_of(seven, 7), "UTF8Type", false, NULL));
	expect_err(cf_cfdef_validate(&d), CF_ERR_INVALID, "column family 'Nums'",
			   "column_metadata name", "LongType requires exactly 8 bytes, got 7");
	cf_cfdef_clear(&d);

	make_cf(&d, "Ks", "Users", false, "UTF8Type", NULL);
	expect_ok(cf_cfdef_add_column(&d, S("email"), "UTF8Type", false, NULL));
	expect_ok(cf_cfdef_add_column(&d, S("age"), "LongType", false, NULL));
	expect_ok(cf_cfdef_validate(&d));
	assert_int_equal(cf_cfdef_column(&d, S("age"))->validator, CF_TYPE_LONG);
	assert_null(cf_cfdef_column(&d, S("ag")));
	expect_ok(cf_cfdef_add_column(&d, S("email"), "BytesType", false, NULL));
	expect_err(cf_cfdef_validate(&d), CF_ERR_INVALID, "column 'email' is defined twice");
	cf_cfdef_clear(&d);

	make_cf(&d, "Ks", "Users", false, "UTF8Type", NULL);
	expect_ok(cf_cfdef_add_column(&d, S(""), "UTF8Type", false, NULL));
	expect_err(cf_cfdef_validate(&d), CF_ERR_INVALID, "column_metadata name must not be empty");
	cf_cfdef_clear(&d);

	/* index rules */
	make_cf(&d, "Ks", "Users", false, "UTF8Type", NULL);
	expect_ok(cf_cfdef_add_column(&d, S("email"), "UTF8Type", false, "by_email"));
	expect_err(cf_cfdef_validate(&d), CF_ERR_INVALID, "column 'email' has an index_name but no "
			   "index_type");
	d.column_metadata[0].indexed = true;
	expect_ok(cf_cfdef_validate(&d));
	free(d.column_metadata[0].index_name);
	d.column_metadata[0].index_name = strdup("by email");
	expect_err(cf_cfdef_validate(&d), CF_ERR_INVALID, "index name 'by email'",
			   "column 'email'");
	cf_cfdef_clear(&d);

	make_cf(&d, "Ks", "Sup", true, "UTF8Type", "UTF8Type");
	expect_ok(cf_cfdef_add_column(&d, S("email"), "UTF8Type", true, NULL));
	expect_err(cf_cfdef_validate(&d), CF_ERR_INVALID,
			   "secondary indexes are not supported on Super");
	cf_cfdef_clear(&d);

	/* in a Super CF column_metadata describes sub-columns: the subcomparator checks */
	make_cf(&d, "Ks", "Sup", true, "UTF8Type", "LongType");
	expect_ok(cf_cfdef_add_column(&d, S("email"), "UTF8Type", false, NULL));
	expect_err(cf_cfdef_validate(&d), CF_ERR_INVALID, "subcomparator_type",
			   "LongType requires exactly 8 bytes, got 5");
	cf_cfdef_clear(&d);
}

static void
numeric_settings(void **state)
{
	cf_cf_def	d;

	(void) state;
	expect_ok(cf_cfdef_init(&d, "Ks", "Cf"));

	d.min_compaction_threshold = 1;
	expect_err(cf_cfdef_validate(&d), CF_ERR_INVALID, "2 <= min_compaction_threshold <= "
			   "max_compaction_threshold", "got min 1 and max 32");
	d.min_compaction_threshold = 8;
	d.max_compaction_threshold = 4;
	expect_err(cf_cfdef_validate(&d), CF_ERR_INVALID, "got min 8 and max 4");
	d.min_compaction_threshold = 0;
	d.max_compaction_threshold = 0;
	expect_ok(cf_cfdef_validate(&d));
	d.max_compaction_threshold = 32;
	expect_ok(cf_cfdef_validate(&d));
	d.min_compaction_threshold = -1;
	expect_err(cf_cfdef_validate(&d), CF_ERR_INVALID, "must be >= 0");
	d.min_compaction_threshold = 2;
	d.max_compaction_threshold = 2;
	expect_ok(cf_cfdef_validate(&d));

	d.gc_grace_seconds = -1;
	expect_err(cf_cfdef_validate(&d), CF_ERR_INVALID, "gc_grace_seconds must be >= 0, got -1");
	d.gc_grace_seconds = 0;
	expect_ok(cf_cfdef_validate(&d));

	d.read_repair_chance = 1.5;
	expect_err(cf_cfdef_validate(&d), CF_ERR_INVALID, "read_repair_chance must be between 0 "
			   "and 1, got 1.5");
	d.read_repair_chance = NAN;
	expect_err(cf_cfdef_validate(&d), CF_ERR_INVALID, "read_repair_chance");
	d.read_repair_chance = 0;

	d.key_cache_size = -1;
	expect_err(cf_cfdef_validate(&d), CF_ERR_INVALID, "key_cache_size must be >= 0");
	d.key_cache_size = 0.5;
	d.row_cache_size = INFINITY;
	expect_err(cf_cfdef_validate(&d), CF_ERR_INVALID, "row_cache_size");
	d.row_cache_size = 1000;

	d.key_cache_save_period_in_seconds = -5;
	expect_err(cf_cfdef_validate(&d), CF_ERR_INVALID, "cache save periods", "key -5");
	d.key_cache_save_period_in_seconds = 0;

	d.memtable_flush_after_mins = 0;
	expect_err(cf_cfdef_validate(&d), CF_ERR_INVALID, "memtable_flush_after_mins must be > 0");
	d.memtable_flush_after_mins = 1;
	d.memtable_throughput_in_mb = 0;
	expect_err(cf_cfdef_validate(&d), CF_ERR_INVALID, "memtable_throughput_in_mb", "got 0");
	d.memtable_throughput_in_mb = 1;
	d.memtable_operations_in_millions = 0;
	expect_err(cf_cfdef_validate(&d), CF_ERR_INVALID, "memtable_operations_in_millions");
	d.memtable_operations_in_millions = 0.01;
	expect_ok(cf_cfdef_validate(&d));

	expect_ok(cf_cfdef_set_comment(&d, "bad \xff comment"));
	expect_err(cf_cfdef_validate(&d), CF_ERR_INVALID, "comment of column family 'Cf'",
			   "invalid UTF-8 at byte 4");
	cf_cfdef_clear(&d);
}

static void
keyspace_rules(void **state)
{
	cf_ks_def	k;
	cf_cf_def	d;

	(void) state;
	expect_ok(cf_ksdef_init(&k, "Ks"));
	k.replication_factor = 0;
	expect_err(cf_ksdef_validate(&k, 0), CF_ERR_INVALID,
			   "replication_factor must be at least 1, got 0");
	k.replication_factor = 2;
	expect_ok(cf_ksdef_add_option(&k, "", "x"));
	expect_err(cf_ksdef_validate(&k, 0), CF_ERR_INVALID, "non-empty key");
	cf_ksdef_clear(&k);

	expect_ok(cf_ksdef_init(&k, "Ks"));
	expect_ok(cf_ksdef_add_option(&k, "DC1", "2"));
	expect_ok(cf_ksdef_add_option(&k, "DC2", "x"));
	expect_ok(cf_ksdef_validate(&k, 0));	/* SimpleStrategy: any strings */
	assert_string_equal(cf_ksdef_option(&k, "DC2"), "x");
	assert_null(cf_ksdef_option(&k, "DC3"));
	expect_ok(cf_ksdef_set_strategy(&k, "NetworkTopologyStrategy"));
	expect_err(cf_ksdef_validate(&k, 0), CF_ERR_INVALID, "option 'DC2' must be a replica count",
			   "got 'x'");
	free(k.strategy_options[1].value);
	k.strategy_options[1].value = strdup("1");
	expect_ok(cf_ksdef_validate(&k, 0));
	expect_ok(cf_ksdef_add_option(&k, "DC1", "3"));
	expect_err(cf_ksdef_validate(&k, 0), CF_ERR_INVALID, "strategy option 'DC1' is given twice");
	cf_ksdef_clear(&k);

	/* CF names unique in a keyspace; index names unique across its CFs */
	expect_ok(cf_ksdef_init(&k, "Ks"));
	add_cf(&k, false, "A", "UTF8Type", NULL);
	add_cf(&k, false, "B", "UTF8Type", NULL);
	expect_ok(cf_ksdef_validate(&k, 0));
	assert_non_null(cf_ksdef_cf(&k, "B"));
	add_cf(&k, false, "A", "BytesType", NULL);
	expect_err(cf_ksdef_validate(&k, 0), CF_ERR_INVALID, "column family 'A' is defined twice");
	cf_ksdef_clear(&k);

	expect_ok(cf_ksdef_init(&k, "Ks"));
	make_cf(&d, "Ks", "A", false, "UTF8Type", NULL);
	expect_ok(cf_cfdef_add_column(&d, S("email"), "UTF8Type", true, "idx"));
	expect_ok(cf_ksdef_add_cf(&k, &d));
	make_cf(&d, "Ks", "B", false, "UTF8Type", NULL);
	expect_ok(cf_cfdef_add_column(&d, S("mail"), "UTF8Type", true, "idx"));
	expect_ok(cf_ksdef_add_cf(&k, &d));
	expect_err(cf_ksdef_validate(&k, 0), CF_ERR_INVALID, "index name 'idx' is used twice");
	cf_ksdef_clear(&k);

	/* a CF naming another keyspace */
	expect_ok(cf_ksdef_init(&k, "Ks"));
	make_cf(&d, "Other", "A", false, "UTF8Type", NULL);
	expect_ok(cf_ksdef_add_cf(&k, &d));
	expect_err(cf_ksdef_validate(&k, 0), CF_ERR_INVALID, "names keyspace 'Other'",
			   "defined in keyspace 'Ks'");
	cf_ksdef_clear(&k);
}

/* ---- copy-on-write changes and lookups ---- */

static void
keyspace_changes_are_copy_on_write(void **state)
{
	cf_schema  *s0 = cf_schema_new();
	cf_schema  *s1;
	cf_schema  *s2;
	cf_schema  *s3;
	cf_schema  *bad = (cf_schema *) 1;
	cf_ks_def	k;
	uint8_t		v0[CF_UUID_LEN];

	(void) state;
	memcpy(v0, cf_schema_version(s0), CF_UUID_LEN);
	assert_int_equal(cf_uuid_version(v0), 1);
	assert_int_equal(cf_schema_n_keyspaces(s0), 0);
	assert_int_equal(cf_schema_next_cf_id(s0), 1);

	twitter(&k);
	expect_ok(cf_schema_add_keyspace(s0, &k, 0, &s1));
	expect_err(cf_schema_add_keyspace(s1, &k, 0, &bad), CF_ERR_INVALID,
			   "keyspace 'Twitter' already exists");
	assert_null(bad);
	cf_ksdef_clear(&k);

	/* the old snapshot is unchanged; the new one has a later version */
	assert_int_equal(cf_schema_n_keyspaces(s0), 0);
	assert_null(cf_schema_keyspace(s0, "Twitter"));
	assert_memory_equal(cf_schema_version(s0), v0, CF_UUID_LEN);
	assert_true(cf_timeuuid_timestamp(cf_slice_of(cf_schema_version(s1), 16)) >
				cf_timeuuid_timestamp(cf_slice_of(v0, 16)));
	assert_int_equal(cf_schema_keyspace(s1, "Twitter")->n_cfs, 4);
	/* four CFs, then the index of Users.email */
	assert_int_equal(cf_schema_next_cf_id(s1), 6);
	assert_int_equal(cf_cfdef_column(cf_schema_cf(s1, "Twitter", "Users"),
									 S("email"))->index_id, 5);
	assert_int_equal(cf_cfdef_column(cf_schema_cf(s1, "Twitter", "Users"),
									 S("age"))->index_id, 0);

	/* update: strategy and rf change, CFs stay, CFs in the update are refused */
	expect_ok(cf_ksdef_init(&k, "Twitter"));
	k.replication_factor = 3;
	expect_ok(cf_ksdef_set_strategy(&k, "OldNetworkTopologyStrategy"));
	expect_ok(cf_schema_update_keyspace(s1, &k, 0, &s2));
	assert_int_equal(cf_schema_keyspace(s2, "Twitter")->replication_factor, 3);
	assert_int_equal(cf_schema_keyspace(s2, "Twitter")->strategy,
					 CF_STRATEGY_OLD_NETWORK_TOPOLOGY);
	assert_int_equal(cf_schema_keyspace(s2, "Twitter")->n_cfs, 4);
	assert_int_equal(cf_schema_keyspace(s1, "Twitter")->replication_factor, 1);
	add_cf(&k, false, "More", "BytesType", NULL);
	expect_err(cf_schema_update_keyspace(s1, &k, 0, &bad), CF_ERR_INVALID,
			   "cannot carry column family definitions");
	cf_ksdef_clear(&k);
	expect_ok(cf_ksdef_init(&k, "Nowhere"));
	expect_err(cf_schema_update_keyspace(s1, &k, 0, &bad), CF_ERR_NOT_FOUND,
			   "keyspace 'Nowhere' does not exist");
	cf_ksdef_clear(&k);

	/* drop */
	expect_ok(cf_schema_drop_keyspace(s2, "Twitter", 0, &s3));
	assert_null(cf_schema_keyspace(s3, "Twitter"));
	assert_null(cf_schema_cf_by_id(s3, 1));
	assert_non_null(cf_schema_cf_by_id(s2, 1));
	assert_null(cf_schema_index_by_id(s3, 5, NULL));
	assert_int_equal(cf_schema_next_cf_id(s3), 6);
	expect_err(cf_schema_drop_keyspace(s3, "Twitter", 0, &bad), CF_ERR_NOT_FOUND,
			   "'Twitter' does not exist");

	/* refcounting: a reader's reference keeps a snapshot alive after its owner's goes */
	{
		cf_schema  *reader = s1;

		cf_schema_ref(reader);
		cf_schema_unref(s1);	/* the owner's reference */
		s1 = NULL;
		assert_non_null(cf_schema_keyspace(reader, "Twitter"));
		assert_int_equal(cf_schema_keyspace(reader, "Twitter")->n_cfs, 4);
		assert_non_null(cf_schema_cf_by_id(reader, 1));
		cf_schema_unref(reader);	/* the last: frees it (ASan checks both ways) */
	}
	cf_schema_unref(s0);
	cf_schema_unref(s2);
	cf_schema_unref(s3);
	cf_schema_unref(NULL);
}

static void
cf_changes_assign_ids_never_reused(void **state)
{
	cf_schema  *s = seeds_schema();
	cf_schema  *s1;
	cf_schema  *s2;
	cf_schema  *s3;
	cf_schema  *bad;
	cf_cf_def	d;
	uint32_t	old_id;
	uint32_t	new_id;

	(void) state;
	assert_int_equal(cf_schema_next_cf_id(s), 10);
	make_cf(&d, "Twitter", "Timeline", false, "LongType", NULL);
	d.id = 77;					/* ignored: the schema assigns */
	expect_ok(cf_schema_add_cf(s, &d, 0, &s1));
	assert_int_equal(cf_schema_cf(s1, "Twitter", "Timeline")->id, 10);
	assert_null(cf_schema_cf(s, "Twitter", "Timeline"));
	expect_err(cf_schema_add_cf(s1, &d, 0, &bad), CF_ERR_INVALID,
			   "column family 'Timeline' already exists in keyspace 'Twitter'");
	free(d.keyspace);
	d.keyspace = strdup("Nope");
	expect_err(cf_schema_add_cf(s1, &d, 0, &bad), CF_ERR_NOT_FOUND,
			   "keyspace 'Nope' does not exist");
	free(d.keyspace);
	d.keyspace = NULL;
	expect_err(cf_schema_add_cf(s1, &d, 0, &bad), CF_ERR_INVALID, "must name the keyspace");
	cf_cfdef_clear(&d);
	/* a name not yet validated is quoted printable */
	make_cf(&d, NULL, "Bad\nName", false, "BytesType", NULL);
	expect_err(cf_schema_add_cf(s1, &d, 0, &bad), CF_ERR_INVALID,
			   "column family 'Bad?Name' must name the keyspace");
	expect_err(cf_cfdef_add_column(&d, S("c"), "NoSuchType", false, NULL), CF_ERR_INVALID,
			   "validation_class of column 'c' in column family 'Bad?Name'");
	cf_cfdef_clear(&d);

	/* drop, then add the same name: a new id */
	old_id = cf_schema_cf(s1, "Twitter", "Statuses")->id;
	expect_ok(cf_schema_drop_cf(s1, "Twitter", "Statuses", 0, &s2));
	assert_null(cf_schema_cf(s2, "Twitter", "Statuses"));
	assert_null(cf_schema_cf_by_id(s2, old_id));
	assert_non_null(cf_schema_cf(s1, "Twitter", "Statuses"));
	expect_err(cf_schema_drop_cf(s2, "Twitter", "Statuses", 0, &bad), CF_ERR_NOT_FOUND,
			   "column family 'Statuses' does not exist in keyspace 'Twitter'");
	expect_err(cf_schema_drop_cf(s2, "Nope", "Statuses", 0, &bad), CF_ERR_NOT_FOUND,
			   "keyspace 'Nope'");
	make_cf(&d, "Twitter", "Statuses", false, "UTF8Type", NULL);
	expect_ok(cf_schema_add_cf(s2, &d, 0, &s3));
	cf_cfdef_clear(&d);
	new_id = cf_schema_cf(s3, "Twitter", "Statuses")->id;
	assert_int_equal(new_id, 11);
	assert_true(new_id > old_id);
	assert_int_equal(cf_schema_next_cf_id(s3), 12);

	/* an index name already used in the keyspace */
	make_cf(&d, "Twitter", "Followers", false, "UTF8Type", NULL);
	expect_ok(cf_cfdef_add_column(&d, S("email"), "UTF8Type", true, "users_email"));
	expect_err(cf_schema_add_cf(s3, &d, 0, &bad), CF_ERR_INVALID,
			   "index name 'users_email' is used twice");
	cf_cfdef_clear(&d);

	cf_schema_unref(s);
	cf_schema_unref(s1);
	cf_schema_unref(s2);
	cf_schema_unref(s3);
}

static void
update_cf_follows_07_rules(void **state)
{
	cf_schema  *s = seeds_schema();
	cf_schema  *s1;
	cf_schema  *bad;
	const cf_cf_def *old = cf_schema_cf(s, "BloggyAppy", "Comments");
	const cf_cf_def *now;
	cf_cf_def	d;

	(void) state;
	expect_ok(cf_cfdef_copy(&d, old));
	d.id = 0;
	d.gc_grace_seconds = 3600;
	d.read_repair_chance = 0.1;
	expect_ok(cf_cfdef_set_comment(&d, "comments on entries"));
	expect_ok(cf_cfdef_add_column(&d, S("email"), "AsciiType", false, NULL));
	expect_ok(cf_schema_update_cf(s, &d, 0, &s1));
	now = cf_schema_cf(s1, "BloggyAppy", "Comments");
	assert_int_equal(now->id, old->id);
	assert_int_equal(now->gc_grace_seconds, 3600);
	assert_string_equal(now->comment, "comments on entries");
	assert_int_equal(now->n_columns, 1);
	assert_int_equal(old->gc_grace_seconds, 864000);	/* old snapshot unchanged */
	assert_null(old->comment);
	assert_ptr_equal(cf_schema_cf_by_id(s1, old->id), now);

	d.comparator = CF_TYPE_UTF8;
	expect_err(cf_schema_update_cf(s1, &d, 0, &bad), CF_ERR_INVALID,
			   "cannot change comparator_type of column family 'Comments' from TimeUUIDType "
			   "to UTF8Type");
	d.comparator = CF_TYPE_TIME_UUID;
	d.subcomparator = CF_TYPE_LONG;
	expect_err(cf_schema_update_cf(s1, &d, 0, &bad), CF_ERR_INVALID,
			   "cannot change subcomparator_type");
	d.subcomparator = CF_TYPE_BYTES;
	d.super = false;
	expect_err(cf_schema_update_cf(s1, &d, 0, &bad), CF_ERR_INVALID,
			   "cannot change column_type of column family 'Comments' from Super to Standard");
	d.super = true;

	/* by id: no rename, no move */
	d.id = old->id;
	free(d.name);
	d.name = strdup("Remarks");
	expect_err(cf_schema_update_cf(s1, &d, 0, &bad), CF_ERR_INVALID,
			   "cannot rename column family 'Comments'", "'Remarks'");
	free(d.name);
	d.name = strdup("Comments");
	free(d.keyspace);
	d.keyspace = strdup("Twitter");
	expect_err(cf_schema_update_cf(s1, &d, 0, &bad), CF_ERR_INVALID,
			   "cannot move column family 'Comments' from keyspace 'BloggyAppy'");
	d.id = 4242;
	expect_err(cf_schema_update_cf(s1, &d, 0, &bad), CF_ERR_NOT_FOUND,
			   "no column family has id 4242");
	d.id = 0;
	expect_err(cf_schema_update_cf(s1, &d, 0, &bad), CF_ERR_NOT_FOUND,
			   "column family 'Comments' does not exist in keyspace 'Twitter'");
	free(d.keyspace);
	d.keyspace = strdup("BloggyAppy");
	d.gc_grace_seconds = -2;
	expect_err(cf_schema_update_cf(s1, &d, 0, &bad), CF_ERR_INVALID, "gc_grace_seconds");
	cf_cfdef_clear(&d);

	/* an index name another CF of the keyspace uses */
	expect_ok(cf_cfdef_copy(&d, cf_schema_cf(s, "Twitter", "Statuses")));
	expect_ok(cf_cfdef_add_column(&d, S("email"), "UTF8Type", true, "users_email"));
	expect_err(cf_schema_update_cf(s, &d, 0, &bad), CF_ERR_INVALID,
			   "index name 'users_email' is used twice");
	assert_null(bad);
	cf_cfdef_clear(&d);

	cf_schema_unref(s);
	cf_schema_unref(s1);
}

static void
lookups(void **state)
{
	cf_schema  *s = seeds_schema();
	const cf_ks_def *k;
	const cf_cf_def *c;

	(void) state;
	assert_int_equal(cf_schema_n_keyspaces(s), 2);
	assert_string_equal(cf_schema_keyspace_at(s, 0)->name, "BloggyAppy");
	assert_string_equal(cf_schema_keyspace_at(s, 1)->name, "Twitter");
	assert_null(cf_schema_keyspace_at(s, 2));
	k = cf_schema_keyspace(s, "Twitter");
	assert_non_null(k);
	assert_null(cf_schema_keyspace(s, "twitter"));
	assert_null(cf_schema_keyspace(s, NULL));

	c = cf_schema_cf(s, "Twitter", "StatusRelationships");
	assert_non_null(c);
	assert_true(c->super);
	assert_int_equal(c->comparator, CF_TYPE_UTF8);
	assert_int_equal(c->subcomparator, CF_TYPE_TIME_UUID);
	assert_string_equal(c->keyspace, "Twitter");
	assert_ptr_equal(cf_schema_cf_by_id(s, c->id), c);
	assert_null(cf_schema_cf(s, "Twitter", "Comments"));
	assert_null(cf_schema_cf(s, "Nope", "Users"));
	assert_null(cf_schema_cf_by_id(s, 0));
	assert_null(cf_schema_cf_by_id(s, 10));

	/* id 5 is the index of Twitter.Users.email, which is no CF */
	{
		const cf_cf_def *base = NULL;
		const cf_column_def *col = cf_schema_index_by_id(s, 5, &base);

		assert_null(cf_schema_cf_by_id(s, 5));
		assert_non_null(col);
		assert_ptr_equal(base, cf_schema_cf(s, "Twitter", "Users"));
		assert_ptr_equal(col, cf_cfdef_column(base, S("email")));
		assert_null(cf_schema_index_by_id(s, 4, &base));
		assert_null(base);
		assert_null(cf_schema_index_by_id(s, 0, NULL));
	}

	/* every other id 1..9 resolves to the CF holding it */
	for (uint32_t id = 1; id <= 9; id++)
	{
		const cf_cf_def *x = cf_schema_cf_by_id(s, id);

		if (id == 5)
			continue;
		assert_non_null(x);
		assert_int_equal(x->id, id);
		assert_ptr_equal(cf_schema_cf(s, x->keyspace, x->name), x);
	}

	c = cf_schema_cf(s, "BloggyAppy", "Comments");
	{
		cf_col_order o = cf_cfdef_col_order(c);

		assert_true(o.super);
		assert_int_equal(o.cmp, CF_TYPE_TIME_UUID);
		assert_int_equal(o.subcmp, CF_TYPE_BYTES);
		o = cf_cfdef_col_order(cf_schema_cf(s, "BloggyAppy", "TaggedPosts"));
		assert_false(o.super);
		assert_int_equal(o.cmp, CF_TYPE_TIME_UUID);
	}
	cf_schema_unref(s);
}

/* ---- encoding ---- */

/* The keyspace record of the seeds' keyspace named ks. */
static void
encoded(const cf_schema *s, const char *ks, cf_buf *b)
{
	cf_buf_init(b, 0);
	expect_ok(cf_ksdef_encode(cf_schema_keyspace(s, ks), b));
}

static void
seeds_round_trip(void **state)
{
	cf_schema  *s = seeds_schema();
	cf_ks_def	twitter_ks;
	cf_ks_def	bloggy;
	cf_buf		b1;
	cf_buf		b2;
	const cf_cf_def *users;

	(void) state;
	encoded(s, "Twitter", &b1);
	expect_ok(cf_ksdef_decode(cf_slice_of(b1.data, b1.len), &twitter_ks));
	cf_buf_init(&b2, 0);
	expect_ok(cf_ksdef_encode(&twitter_ks, &b2));
	assert_int_equal(b1.len, b2.len);
	assert_memory_equal(b1.data, b2.data, b1.len);

	users = cf_ksdef_cf(&twitter_ks, "Users");
	assert_non_null(users);
	assert_int_equal(users->id, cf_schema_cf(s, "Twitter", "Users")->id);
	assert_string_equal(users->keyspace, "Twitter");
	assert_int_equal(users->comparator, CF_TYPE_UTF8);
	assert_string_equal(users->comment, "who tweets");
	assert_int_equal(users->n_columns, 2);
	assert_true(cf_cfdef_column(users, S("email"))->indexed);
	assert_string_equal(cf_cfdef_column(users, S("email"))->index_name, "users_email");
	assert_null(cf_cfdef_column(users, S("age"))->index_name);
	assert_true(users->memtable_operations_in_millions == 0.3);

	cf_buf_free(&b1);
	encoded(s, "BloggyAppy", &b1);
	expect_ok(cf_ksdef_decode(cf_slice_of(b1.data, b1.len), &bloggy));
	assert_true(cf_ksdef_cf(&bloggy, "Comments")->super);
	assert_int_equal(cf_ksdef_cf(&bloggy, "TaggedPosts")->comparator, CF_TYPE_TIME_UUID);
	assert_string_equal(cf_ksdef_option(&bloggy, "DC1"), "2");
	assert_int_equal(bloggy.replication_factor, 3);
	assert_int_equal(bloggy.strategy, CF_STRATEGY_NETWORK_TOPOLOGY);

	cf_ksdef_clear(&twitter_ks);
	cf_ksdef_clear(&bloggy);
	cf_buf_free(&b1);
	cf_buf_free(&b2);
	cf_schema_unref(s);
}

/* One keyspace per record, and a schema rebuilt from records (the db's load path). */
static void
keyspace_records_rebuild_schema(void **state)
{
	cf_schema  *s = seeds_schema();
	cf_schema  *r = NULL;
	cf_ks_def	kss[2];
	cf_buf		b = CF_BUF_INIT;

	(void) state;
	for (size_t i = 0; i < 2; i++)
	{
		cf_buf_reset(&b);
		expect_ok(cf_ksdef_encode(cf_schema_keyspace_at(s, i), &b));
		expect_ok(cf_ksdef_decode(cf_slice_of(b.data, b.len), &kss[i]));
		assert_string_equal(kss[i].name, cf_schema_keyspace_at(s, i)->name);
		/* trailing garbage is not a record */
		cf_buf_put_u8(&b, 0);
		{
			cf_ks_def	junk;

			expect_err(cf_ksdef_decode(cf_slice_of(b.data, b.len), &junk),
					   CF_ERR_CORRUPTION, "1 bytes follow");
		}
	}
	expect_ok(cf_schema_build(kss, 2, 0, NULL, &r));
	assert_int_equal(cf_schema_next_cf_id(r), 10);
	assert_non_null(cf_schema_index_by_id(r, 5, NULL));	/* the stored index id */
	assert_int_equal(cf_schema_cf(r, "Twitter", "Users")->id,
					 cf_schema_cf(s, "Twitter", "Users")->id);
	cf_schema_unref(r);
	expect_ok(cf_schema_build(kss, 2, 20, cf_schema_version(s), &r));
	assert_int_equal(cf_schema_next_cf_id(r), 20);
	assert_memory_equal(cf_schema_version(r), cf_schema_version(s), CF_UUID_LEN);
	cf_schema_unref(r);
	expect_err(cf_schema_build(kss, 2, 5, NULL, &r), CF_ERR_INVALID, "not below the next id");
	assert_null(r);
	kss[1].cfs[0].id = kss[0].cfs[0].id;
	expect_err(cf_schema_build(kss, 2, 0, NULL, &r), CF_ERR_INVALID, "used twice");
	kss[1].cfs[0].id = 0;
	expect_err(cf_schema_build(kss, 2, 0, NULL, &r), CF_ERR_INVALID, "zero");

	cf_ksdef_clear(&kss[0]);
	cf_ksdef_clear(&kss[1]);
	cf_buf_free(&b);
	cf_schema_unref(s);
}

static void
every_truncation_is_rejected(void **state)
{
	cf_schema  *s = seeds_schema();

	(void) state;
	for (size_t i = 0; i < cf_schema_n_keyspaces(s); i++)
	{
		cf_buf		k = CF_BUF_INIT;

		expect_ok(cf_ksdef_encode(cf_schema_keyspace_at(s, i), &k));
		for (size_t len = 0; len < k.len; len++)
		{
			cf_ks_def	out;
			cf_status  *st = cf_ksdef_decode(cf_slice_of(k.data, len), &out);

			if (st == NULL)
				fail_msg("a truncation to %zu of %zu bytes decoded", len, k.len);
			assert_int_equal(cf_status_code(st), CF_ERR_CORRUPTION);
			assert_null(out.name);
			cf_status_free(st);
		}
		cf_buf_free(&k);
	}
	cf_schema_unref(s);
}

static void
byte_flips_are_rejected_or_safe(void **state)
{
	cf_schema  *s = seeds_schema();
	size_t		rejected = 0;
	size_t		accepted = 0;

	(void) state;
	for (size_t ks = 0; ks < cf_schema_n_keyspaces(s); ks++)
	{
		cf_buf		b = CF_BUF_INIT;

		expect_ok(cf_ksdef_encode(cf_schema_keyspace_at(s, ks), &b));
		/* every byte, three different flips: low bit, high bit, all bits */
		for (size_t i = 0; i < b.len; i++)
		{
			static const uint8_t masks[] = {0x01, 0x80, 0xff};

			for (size_t m = 0; m < sizeof(masks); m++)
			{
				cf_ks_def	d;
				cf_status  *st;

				b.data[i] ^= masks[m];
				st = cf_ksdef_decode(cf_slice_of(b.data, b.len), &d);
				b.data[i] ^= masks[m];
				if (st != NULL)
				{
					assert_int_equal(cf_status_code(st), CF_ERR_CORRUPTION);
					assert_null(d.name);
					cf_status_free(st);
					rejected++;
				}
				else
				{
					/* decoded: it is a valid keyspace; it must re-encode */
					cf_buf		again = CF_BUF_INIT;

					expect_ok(cf_ksdef_encode(&d, &again));
					assert_int_equal(again.len, b.len);
					cf_buf_free(&again);
					cf_ksdef_clear(&d);
					accepted++;
				}
			}
		}
		cf_buf_free(&b);
	}
	print_message("byte flips: %zu rejected, %zu decoded\n", rejected, accepted);
	assert_true(rejected > 0 && accepted > 0);
	cf_schema_unref(s);
}

static void
forged_counts_and_versions(void **state)
{
	cf_ks_def	k;
	uint8_t		huge_ks[] = {CF_SCHEMA_FORMAT_VERSION, 1, 'K', 0, 0, 0, 0, 1,
		0xff, 0xff, 0xff, 0xff, 0x0f};	/* n_options 2^32-1 */
	uint8_t		rf0[] = {CF_SCHEMA_FORMAT_VERSION, 1, 'K', 0, 0, 0, 0, 0, 0, 0};
	uint8_t		v2[] = {2, 1, 'K', 0, 0, 0, 0, 1, 0, 0};

	(void) state;
	expect_err(cf_ksdef_decode(cf_slice_of(v2, sizeof(v2)), &k), CF_ERR_CORRUPTION,
			   "format version 2");
	/* an options count far beyond the bytes */
	expect_err(cf_ksdef_decode(cf_slice_of(huge_ks, sizeof(huge_ks)), &k), CF_ERR_CORRUPTION,
			   "keyspace record");
	/* a well-formed record whose definition is invalid (replication_factor 0) */
	expect_err(cf_ksdef_decode(cf_slice_of(rf0, sizeof(rf0)), &k), CF_ERR_CORRUPTION,
			   "stored definition is invalid", "replication_factor");
	/* the smallest valid record: a keyspace without options or CFs */
	rf0[7] = 1;					/* replication_factor 1 */
	expect_ok(cf_ksdef_decode(cf_slice_of(rf0, sizeof(rf0)), &k));
	assert_string_equal(k.name, "K");
	assert_int_equal(k.n_cfs, 0);
	cf_ksdef_clear(&k);
}

/* ---- out of memory ---- */

/* Leaves a recognisable non-NULL pattern where the next call's locals will be. */
static void __attribute__((noinline))
scribble_stack(void)
{
	volatile unsigned char junk[4096];

	for (size_t i = 0; i < sizeof(junk); i++)
		junk[i] = 0xa5;
}

/* Every allocation of cf_ksdef_add_option fails in turn: NO_MEMORY, k unchanged. */
static void
add_option_out_of_memory(void **state)
{
	cf_ks_def	k;
	unsigned long n;

	(void) state;
	expect_ok(cf_ksdef_init(&k, "Ks"));
	expect_ok(cf_ksdef_add_option(&k, "DC1", "1"));
	for (n = 1;; n++)
	{
		cf_status  *st;

		scribble_stack();
		cf_schema_test_fail_alloc(n);
		st = cf_ksdef_add_option(&k, "DC2", "2");
		if (!cf_schema_test_fail_alloc(0))
		{
			expect_ok(st);
			break;
		}
		expect_err(st, CF_ERR_NO_MEMORY, "adding a strategy option");
		assert_int_equal(k.n_options, 1);
	}
	assert_true(n > 3);			/* key, value and the array were each failed */
	assert_int_equal(k.n_options, 2);
	assert_string_equal(cf_ksdef_option(&k, "DC2"), "2");
	cf_ksdef_clear(&k);
}

/*
 * Every allocation of decoding a keyspace record fails in turn, those of validating
 * the decoded definition included: NO_MEMORY (not CORRUPTION), and *out clear.
 */
static void
decode_out_of_memory(void **state)
{
	cf_schema  *s = seeds_schema();
	cf_buf		b = CF_BUF_INIT;
	unsigned long n;

	(void) state;
	expect_ok(cf_ksdef_encode(cf_schema_keyspace(s, "Twitter"), &b));
	for (n = 1;; n++)
	{
		cf_ks_def	k;
		cf_status  *st;

		cf_schema_test_fail_alloc(n);
		st = cf_ksdef_decode(cf_slice_of(b.data, b.len), &k);
		if (!cf_schema_test_fail_alloc(0))
		{
			expect_ok(st);
			assert_int_equal(k.n_cfs, 4);
			cf_ksdef_clear(&k);
			break;
		}
		if (st == NULL || cf_status_code(st) != CF_ERR_NO_MEMORY)
			fail_msg("allocation %lu failed: %s, expected NO_MEMORY", n,
					 st ? cf_status_msg(st) : "success");
		cf_status_free(st);
		assert_null(k.name);
		assert_null(k.cfs);
	}
	/* the record's strings and arrays, and validation's scratch arrays */
	print_message("keyspace record decoding: %lu allocations failed in turn\n", n - 1);
	assert_true(n > 10);
	cf_buf_free(&b);
	cf_schema_unref(s);
}

/* ---- mutation validation ---- */

static cf_cell
cell(const void *sc, size_t sc_len, const void *name, size_t name_len, const char *value)
{
	cf_cell		c = {.sc = cf_slice_of(sc, sc_len), .name = cf_slice_of(name, name_len),
	.value = S(value), .timestamp = 1};

	return c;
}

static cf_status *
check(const cf_cf_def *d, cf_cell *cells, size_t n, cf_range_tomb *tombs, size_t nt)
{
	cf_cf_update u = {.cf_id = d->id, .row_del = cf_deletion_none(), .cells = cells,
	.n_cells = n, .tombs = tombs, .n_tombs = nt};

	return cf_cfdef_validate_update(d, &u, 1300000000);
}

static void
mutation_names_and_values(void **state)
{
	cf_cf_def	d;
	uint8_t		seven[7] = {0};
	uint8_t		eight[8] = {0, 0, 0, 0, 0, 0, 0, 42};
	cf_cell		c;

	(void) state;
	make_cf(&d, "Ks", "Counts", false, "LongType", NULL);
	c = cell("", 0, seven, 7, "v");
	expect_err(check(&d, &c, 1, NULL, 0), CF_ERR_INVALID, "column family 'Counts'",
			   "column name: LongType requires exactly 8 bytes, got 7");
	c = cell("", 0, eight, 8, "v");
	expect_ok(check(&d, &c, 1, NULL, 0));
	c.timestamp = INT64_MIN;	/* timestamps: any int64 */
	expect_ok(check(&d, &c, 1, NULL, 0));
	c.timestamp = INT64_MAX;
	expect_ok(check(&d, &c, 1, NULL, 0));
	c = cell("", 0, "", 0, "v");
	expect_err(check(&d, &c, 1, NULL, 0), CF_ERR_INVALID, "column name must not be empty");
	cf_cfdef_clear(&d);

	/* values: column_metadata by name, else default_validator */
	make_cf(&d, "Ks", "Users", false, "UTF8Type", NULL);
	expect_ok(cf_cfdef_add_column(&d, S("email"), "UTF8Type", false, NULL));
	expect_ok(cf_cfdef_set_default_validator(&d, "LongType"));
	c = cell("", 0, "email", 5, "a\xc3(b");
	expect_err(check(&d, &c, 1, NULL, 0), CF_ERR_INVALID,
			   "column family 'Users': value of column 'email'", "invalid UTF-8 at byte 1",
			   "UTF8Type");
	c = cell("", 0, "email", 5, "joe@example.com");
	expect_ok(check(&d, &c, 1, NULL, 0));
	c = cell("", 0, "age", 3, "abc");
	expect_err(check(&d, &c, 1, NULL, 0), CF_ERR_INVALID, "value of column 'age'",
			   "LongType requires exactly 8 bytes, got 3");
	c.flags = CF_CELL_DELETED;	/* a tombstone's value is not checked */
	c.local_time = 1300000000;
	expect_ok(check(&d, &c, 1, NULL, 0));
	c = cell("", 0, "\xff", 1, "");
	expect_err(check(&d, &c, 1, NULL, 0), CF_ERR_INVALID, "column name",
			   "invalid UTF-8 at byte 0");
	{
		size_t		big = CF_NAME_MAX + 1;
		char	   *name = malloc(big);

		memset(name, 'n', big);
		c = cell("", 0, name, big, "");
		expect_err(check(&d, &c, 1, NULL, 0), CF_ERR_INVALID, "65536 bytes",
				   "longer than the 65535 allowed");
		free(name);
	}
	/* the first problem of several is reported */
	{
		cf_cell		two[2] = {cell("", 0, "email", 5, "ok"), cell("", 0, "x", 1, "bad")};

		expect_err(check(&d, two, 2, NULL, 0), CF_ERR_INVALID, "value of column 'x'");
	}
	cf_cfdef_clear(&d);
}

static void
mutation_super_and_standard(void **state)
{
	cf_cf_def	std;
	cf_cf_def	sup;
	uint8_t		tu[16];
	uint8_t		v4[16];
	cf_cell		c;
	cf_range_tomb t = {.del = {5, 1300000000}};

	(void) state;
	cf_uuid_v1_now(tu);
	memset(v4, 0x11, sizeof(v4));
	v4[6] = 0x41;				/* version 4 */
	make_cf(&std, "BloggyAppy", "TaggedPosts", false, "TimeUUIDType", NULL);
	make_cf(&sup, "BloggyAppy", "Comments", true, "TimeUUIDType", "UTF8Type");

	c = cell("sc", 2, tu, 16, "entry");
	expect_err(check(&std, &c, 1, NULL, 0), CF_ERR_INVALID,
			   "column family 'TaggedPosts' is Standard", "leave super_column unset");
	c = cell("", 0, tu, 16, "entry");
	expect_ok(check(&std, &c, 1, NULL, 0));
	c = cell("", 0, v4, 16, "entry");
	expect_err(check(&std, &c, 1, NULL, 0), CF_ERR_INVALID,
			   "column name: TimeUUIDType requires a version 1 UUID, got version 4");

	t.sc = S("sc");
	expect_err(check(&std, NULL, 0, &t, 1), CF_ERR_INVALID, "'TaggedPosts' is Standard",
			   "deletion");
	t.sc = S("");
	expect_ok(check(&std, NULL, 0, &t, 1));		/* both bounds open */
	t.start = cf_slice_of(v4, 16);
	expect_err(check(&std, NULL, 0, &t, 1), CF_ERR_INVALID, "deletion range start",
			   "version 1");
	t.start = cf_slice_of(tu, 16);
	expect_ok(check(&std, NULL, 0, &t, 1));

	c = cell("", 0, "commenter", 9, "Joe");
	expect_err(check(&sup, &c, 1, NULL, 0), CF_ERR_INVALID,
			   "column family 'Comments' is Super", "set a non-empty super_column");
	c = cell(tu, 16, "commenter", 9, "Joe");
	expect_ok(check(&sup, &c, 1, NULL, 0));
	c = cell(v4, 16, "commenter", 9, "Joe");
	expect_err(check(&sup, &c, 1, NULL, 0), CF_ERR_INVALID, "super column name: TimeUUIDType");
	c = cell(tu, 16, "", 0, "Joe");
	expect_err(check(&sup, &c, 1, NULL, 0), CF_ERR_INVALID, "sub-column name must not be empty");
	c = cell(tu, 16, "\xc0\x80", 2, "Joe");
	expect_err(check(&sup, &c, 1, NULL, 0), CF_ERR_INVALID, "sub-column name",
			   "UTF8Type");

	/* Super tombstones: top-level bounds are super column names (TimeUUIDType) */
	memset(&t, 0, sizeof(t));
	t.start = S("a");
	expect_err(check(&sup, NULL, 0, &t, 1), CF_ERR_INVALID, "deletion range start",
			   "TimeUUIDType");
	/* inside a super column they are sub-column names (UTF8Type), start <= finish */
	t.sc = cf_slice_of(tu, 16);
	t.start = S("b");
	t.finish = S("a");
	expect_err(check(&sup, NULL, 0, &t, 1), CF_ERR_INVALID,
			   "deletion range start sorts after its finish under UTF8Type");
	t.finish = S("c");
	expect_ok(check(&sup, NULL, 0, &t, 1));
	t.sc = cf_slice_of(v4, 16);
	expect_err(check(&sup, NULL, 0, &t, 1), CF_ERR_INVALID, "super column name");

	cf_cfdef_clear(&std);
	cf_cfdef_clear(&sup);
}

static void
mutation_ttls(void **state)
{
	cf_cf_def	d;
	cf_cell		c;
	cf_cf_update u;

	(void) state;
	make_cf(&d, "Ks", "Sessions", false, "UTF8Type", NULL);
	c = cell("", 0, "token", 5, "x");
	c.flags = CF_CELL_EXPIRING;
	c.ttl = 0;
	expect_err(check(&d, &c, 1, NULL, 0), CF_ERR_INVALID, "column 'token'",
			   "ttl must be positive, got 0");
	c.ttl = -5;
	expect_err(check(&d, &c, 1, NULL, 0), CF_ERR_INVALID, "ttl must be positive, got -5");
	c.flags = 0;				/* a ttl without the flag is checked all the same */
	expect_err(check(&d, &c, 1, NULL, 0), CF_ERR_INVALID, "got -5");
	c.flags = CF_CELL_EXPIRING;
	c.ttl = CF_SCHEMA_TTL_MAX + 1;
	expect_err(check(&d, &c, 1, NULL, 0), CF_ERR_INVALID, "ttl 630720001 exceeds the maximum "
			   "of 630720000 seconds (20 years)");
	c.ttl = CF_SCHEMA_TTL_MAX;
	expect_ok(check(&d, &c, 1, NULL, 0));
	c.ttl = 1;
	expect_ok(check(&d, &c, 1, NULL, 0));
	/* the expiry time must fit an int32 */
	c.ttl = 1000;
	u = (cf_cf_update) {.row_del = cf_deletion_none(), .cells = &c, .n_cells = 1};
	expect_err(cf_cfdef_validate_update(&d, &u, INT32_MAX - 999), CF_ERR_INVALID, "2038");
	expect_ok(cf_cfdef_validate_update(&d, &u, INT32_MAX - 1000));
	c.flags = CF_CELL_EXPIRING | CF_CELL_DELETED;
	expect_err(check(&d, &c, 1, NULL, 0), CF_ERR_INVALID,
			   "both a deletion and an expiring column");
	cf_cfdef_clear(&d);
}

/* Index ids: assigned after CF ids, kept while an index lives, retired when it goes. */
static void
index_ids(void **state)
{
	cf_schema  *s = seeds_schema();
	cf_schema  *s1, *s2, *s3, *s4, *r;
	cf_cf_def	d;
	const cf_cf_def *base = NULL;
	const cf_column_def *c;
	cf_ks_def	k;
	cf_buf		b = CF_BUF_INIT;

	(void) state;
	/* index "age": the next id; email keeps its own, whatever a caller set */
	expect_ok(cf_cfdef_copy(&d, cf_schema_cf(s, "Twitter", "Users")));
	d.column_metadata[1].indexed = true;
	d.column_metadata[1].index_id = 3;	/* ignored: the schema assigns */
	d.column_metadata[0].index_id = 0;
	expect_ok(cf_schema_update_cf(s, &d, 0, &s1));
	assert_int_equal(cf_cfdef_column(cf_schema_cf(s1, "Twitter", "Users"), S("age"))->index_id,
					 10);
	assert_int_equal(cf_cfdef_column(cf_schema_cf(s1, "Twitter", "Users"), S("email"))->index_id,
					 5);
	assert_int_equal(cf_schema_next_cf_id(s1), 11);
	c = cf_schema_index_by_id(s1, 10, &base);
	assert_non_null(c);
	assert_string_equal(base->name, "Users");
	assert_true(cf_slice_eq(cf_slice_of(c->name, c->name_len), S("age")));

	/* a new index_name keeps the index; a new validator makes a new one */
	free(d.column_metadata[0].index_name);
	d.column_metadata[0].index_name = strdup("email_idx");
	d.column_metadata[0].validator = CF_TYPE_UTF8;
	expect_ok(cf_schema_update_cf(s1, &d, 0, &s2));
	assert_int_equal(cf_cfdef_column(cf_schema_cf(s2, "Twitter", "Users"), S("email"))->index_id,
					 5);
	d.column_metadata[0].validator = CF_TYPE_ASCII;
	expect_ok(cf_schema_update_cf(s2, &d, 0, &s3));
	assert_int_equal(cf_cfdef_column(cf_schema_cf(s3, "Twitter", "Users"), S("email"))->index_id,
					 11);
	assert_null(cf_schema_index_by_id(s3, 5, NULL));

	/* dropping an index retires its id */
	d.column_metadata[1].indexed = false;
	expect_ok(cf_schema_update_cf(s3, &d, 0, &s4));
	assert_int_equal(cf_cfdef_column(cf_schema_cf(s4, "Twitter", "Users"), S("age"))->index_id,
					 0);
	assert_null(cf_schema_index_by_id(s4, 10, NULL));
	assert_int_equal(cf_schema_next_cf_id(s4), 12);
	cf_cfdef_clear(&d);

	/* the id is stored with the keyspace and comes back */
	expect_ok(cf_ksdef_encode(cf_schema_keyspace(s4, "Twitter"), &b));
	expect_ok(cf_ksdef_decode(cf_slice_of(b.data, b.len), &k));
	assert_int_equal(cf_cfdef_column(cf_ksdef_cf(&k, "Users"), S("email"))->index_id, 11);
	expect_ok(cf_schema_build(&k, 1, 12, NULL, &r));
	assert_non_null(cf_schema_index_by_id(r, 11, NULL));
	assert_int_equal(cf_schema_next_cf_id(r), 12);
	cf_schema_unref(r);
	/* an index id that is also a CF id is refused */
	((cf_column_def *) cf_cfdef_column(cf_ksdef_cf(&k, "Users"), S("email")))->index_id =
		cf_ksdef_cf(&k, "Statuses")->id;
	expect_err(cf_schema_build(&k, 1, 12, NULL, &r), CF_ERR_INVALID, "used twice");
	/* a record from before indexes had ids: the build assigns one, past next_cf_id */
	((cf_column_def *) cf_cfdef_column(cf_ksdef_cf(&k, "Users"), S("email")))->index_id = 0;
	expect_ok(cf_schema_build(&k, 1, 12, NULL, &r));
	assert_int_equal(cf_cfdef_column(cf_schema_cf(r, "Twitter", "Users"), S("email"))->index_id,
					 12);
	assert_int_equal(cf_schema_next_cf_id(r), 13);
	cf_schema_unref(r);
	cf_ksdef_clear(&k);
	cf_buf_free(&b);

	cf_schema_unref(s);
	cf_schema_unref(s1);
	cf_schema_unref(s2);
	cf_schema_unref(s3);
	cf_schema_unref(s4);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(defaults_match_reference),
		cmocka_unit_test(class_names_short_or_qualified),
		cmocka_unit_test(names_are_validated),
		cmocka_unit_test(system_keyspace_is_reserved),
		cmocka_unit_test(cf_definition_rules),
		cmocka_unit_test(numeric_settings),
		cmocka_unit_test(keyspace_rules),
		cmocka_unit_test(keyspace_changes_are_copy_on_write),
		cmocka_unit_test(cf_changes_assign_ids_never_reused),
		cmocka_unit_test(update_cf_follows_07_rules),
		cmocka_unit_test(lookups),
		cmocka_unit_test(seeds_round_trip),
		cmocka_unit_test(keyspace_records_rebuild_schema),
		cmocka_unit_test(index_ids),
		cmocka_unit_test(every_truncation_is_rejected),
		cmocka_unit_test(byte_flips_are_rejected_or_safe),
		cmocka_unit_test(forged_counts_and_versions),
		cmocka_unit_test(mutation_names_and_values),
		cmocka_unit_test(mutation_super_and_standard),
		cmocka_unit_test(mutation_ttls),
		cmocka_unit_test(add_option_out_of_memory),
		cmocka_unit_test(decode_out_of_memory),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
