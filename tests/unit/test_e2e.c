/*
 * tests/unit/test_e2e.c — every method of the 0.7 service through libcolfam against
 * the real colfamd binary on 127.0.0.4 (support/colfamd.h): results, the documented
 * errors (InvalidRequestException reasons, NotFoundException from get, login and
 * access with SimpleAuthenticator), TTL expiry, every consistency level, schema changes
 * that survive a restart (SIGTERM and SIGKILL), and the pagers over a long row and a
 * long key range.
 *
 * The tests share one colfamd (started by the group setup) and run in order: the
 * schema test creates the keyspace the later ones use.
 */
#include "support/authfiles.h"
#include "support/cmocka_prelude.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "client/client.h"
#include "support/colfamd.h"
#include "support/envtest.h"
#include "support/slices.h"
#include "support/tmpdir.h"

#define HOST "127.0.0.4"
#define KS "E2E"
#define CLUSTER "E2E Cluster"

static test_colfamd *node;

/*
 * The connection and arena of the running test, made by its setup (in_keyspace or
 * no_keyspace) and freed by its teardown (disconnect), also when it fails.
 */
static cfc_conn *conn;
static cf_arena *arena;

/* ---------------------------------------------------------------- helpers */

static cfc_conn *
conn_new_as(const test_colfamd *d, const char *keyspace, const char *user,
			const char *password)
{
	cfc_options o = {0};
	cfc_conn   *c;

	o.hosts = test_colfamd_hosts(d);
	o.keyspace = keyspace;
	o.username = user;
	o.password = password;
	o.io_timeout_ms = 60000;
	o.connect_timeout_ms = 10000;
	assert_null(cfc_new(&o, &c));
	return c;
}

static void
ok(cf_status *s, const char *what)
{
	if (s)
		fail_msg("%s: %s: %s", what, cf_code_name(cf_status_code(s)), cf_status_msg(s));
}

/* s must be an error of code whose message contains part; frees s. */
static void
fails(cf_status *s, cf_code code, const char *part, const char *what)
{
	if (s == NULL)
		fail_msg("%s: succeeded; expected %s \"%s\"", what, cf_code_name(code), part);
	if (cf_status_code(s) != code || strstr(cf_status_msg(s), part) == NULL)
		fail_msg("%s: got %s \"%s\"; expected %s containing \"%s\"", what,
				 cf_code_name(cf_status_code(s)), cf_status_msg(s), cf_code_name(code), part);
	cf_status_free(s);
}

static void
assert_slice(cf_slice s, const char *text)
{
	if (!S_EQ(s, text))
		fail_msg("got \"%.*s\", expected \"%s\"", (int) s.len, (const char *) s.p, text);
}

static cf_t_column_parent
parent(const char *cf)
{
	return (cf_t_column_parent) {.column_family = S(cf)};
}

static cf_t_column_path
path(const char *cf, const char *col)
{
	return (cf_t_column_path) {.column_family = S(cf),.has_column = true,.column = S(col)};
}

static cf_t_slice_predicate
all_columns(int32_t count)
{
	return (cf_t_slice_predicate) {.has_slice_range = true,
	.slice_range = {.start = S(""),.finish = S(""),.count = count}};
}

static void
put(cfc_conn *c, const char *cf, const char *key, const char *col, const char *val, int cl)
{
	cf_t_column_parent p = parent(cf);
	cf_t_column col_ = {.name = S(col),.value = S(val),.timestamp = test_timestamp_us(NULL)};

	ok(cfc_insert(c, S(key), &p, &col_, cl), "insert");
}

/* The value of key/col in cf, or fails; NULL for NotFound when may_miss. */
static char *
get_value(cfc_conn *c, const char *cf, const char *key, const char *col, int cl,
		  cf_arena *a, bool may_miss)
{
	cf_t_column_path cp = path(cf, col);
	cf_t_cosc	out;
	cf_status  *s = cfc_get(c, S(key), &cp, cl, a, &out);

	if (s && may_miss && cf_status_code(s) == CF_ERR_NOT_FOUND)
	{
		cf_status_free(s);
		return NULL;
	}
	ok(s, "get");
	assert_true(out.has_column);
	assert_slice(out.column.name, col);
	return cf_arena_strndup(a, (const char *) out.column.value.p, out.column.value.len);
}

static cf_t_cf_def
cf_def(const char *name, const char *comparator)
{
	cf_t_cf_def d = {0};

	d.keyspace = S(KS);
	d.name = S(name);
	d.has_comparator_type = true;
	d.comparator_type = S(comparator);
	return d;
}

/* The CfDef named cf in ks; NULL when ks has none. */
static cf_t_cf_def *
find_cf(cf_t_ks_def *ks, const char *cf)
{
	for (size_t i = 0; i < ks->n_cf_defs; i++)
		if (S_EQ(ks->cf_defs[i].name, cf))
			return &ks->cf_defs[i];
	return NULL;
}

/* ---------------------------------------------------------------- setup */

static int
group_setup(void **state)
{
	static const char *const args[] = {"--cluster_name", CLUSTER, NULL};

	(void) state;
	node = test_colfamd_start(HOST, args);
	return 0;
}

static int
group_teardown(void **state)
{
	(void) state;
	if (node)
		test_colfamd_stop(node);
	test_colfamd_free(node);
	return 0;
}

static int
connect_to(const char *keyspace)
{
	conn = conn_new_as(node, keyspace, NULL, NULL);
	arena = cf_arena_new(0);
	return 0;
}

static int
in_keyspace(void **state)
{
	(void) state;
	return connect_to(KS);
}

static int
no_keyspace(void **state)
{
	(void) state;
	return connect_to(NULL);
}

static int
disconnect(void **state)
{
	(void) state;
	cf_arena_free(arena);
	cfc_free(conn);
	arena = NULL;
	conn = NULL;
	return 0;
}

/* ---------------------------------------------------------------- describe_* */

static void
describe_methods_tell_the_truth(void **state)
{
	cf_slice	s;
	cf_t_schema_version *sv;
	cf_t_ks_def *ksds;
	cf_t_token_range *ring;
	size_t		n;
	bool		found = false;

	(void) state;
	ok(cfc_describe_version(conn, arena, &s), "describe_version");
	assert_slice(s, "19.4.0");
	ok(cfc_describe_cluster_name(conn, arena, &s), "describe_cluster_name");
	assert_slice(s, CLUSTER);
	ok(cfc_describe_partitioner(conn, arena, &s), "describe_partitioner");
	assert_slice(s, "org.apache.cassandra.dht.RandomPartitioner");
	ok(cfc_describe_snitch(conn, arena, &s), "describe_snitch");
	assert_true(s.len > 0 && memmem(s.p, s.len, "Snitch", 6) != NULL);
	ok(cfc_describe_schema_versions(conn, arena, &sv, &n), "describe_schema_versions");
	assert_int_equal(n, 1);
	assert_int_equal(sv[0].n_hosts, 1);
	assert_slice(sv[0].hosts[0], HOST);
	ok(cfc_describe_keyspaces(conn, arena, &ksds, &n), "describe_keyspaces");
	for (size_t i = 0; i < n; i++)
		found |= S_EQ(ksds[i].name, KS);
	assert_true(found);
	ok(cfc_describe_ring(conn, KS, arena, &ring, &n), "describe_ring");
	assert_int_equal(n, 1);
	assert_int_equal(ring[0].n_endpoints, 1);
	assert_slice(ring[0].endpoints[0], HOST);
	fails(cfc_describe_ring(conn, "Nope", arena, &ring, &n), CF_ERR_INVALID,
		  "Keyspace Nope does not exist", "describe_ring Nope");
	{
		cf_t_ks_def ksd;

		fails(cfc_describe_keyspace(conn, "Nope", arena, &ksd), CF_ERR_NOT_FOUND, "",
			  "describe_keyspace Nope");
	}
}

/* ---------------------------------------------------------------- schema */

/* The keyspace as schema_changes_persist_across_restarts leaves it. */
static void
check_schema(cfc_conn *c, cf_arena *a)
{
	cf_t_ks_def ksd;
	cf_t_cf_def *cf;

	ok(cfc_describe_keyspace(c, KS, a, &ksd), "describe_keyspace");
	assert_slice(ksd.name, KS);
	assert_true(ksd.strategy_class.len > 0 &&
				memmem(ksd.strategy_class.p, ksd.strategy_class.len, "SimpleStrategy", 14));
	cf = find_cf(&ksd, "Std");
	assert_non_null(cf);
	assert_true(memmem(cf->comparator_type.p, cf->comparator_type.len, "UTF8Type", 8));
	assert_true(cf->has_comment);
	assert_slice(cf->comment, "updated by test_e2e");
	cf = find_cf(&ksd, "Sup");
	assert_non_null(cf);
	assert_slice(cf->column_type, "Super");
	cf = find_cf(&ksd, "Idx");
	assert_non_null(cf);
	assert_true(cf->n_column_metadata >= 1);
	assert_null(find_cf(&ksd, "Temp"));	/* dropped */
	assert_non_null(find_cf(&ksd, "Late"));
	assert_int_equal(ksd.replication_factor, 1);
	assert_true(ksd.has_strategy_options || ksd.n_strategy_options == 0);
}

static void
schema_changes_persist_across_restarts(void **state)
{
	cf_t_cf_def cfs[4];
	cf_t_column_def meta[2] = {
		{.name = S("state"),.validation_class = S("UTF8Type"),.has_index_type = true,
		.index_type = CF_T_INDEX_KEYS},
		{.name = S("age"),.validation_class = S("LongType")},
	};
	cf_t_ks_def ksd = {.name = S(KS),.strategy_class =
	S("org.apache.cassandra.locator.SimpleStrategy"),.replication_factor = 1};
	cf_slice	id1,
				id2;
	cf_t_schema_version *sv;
	size_t		n;

	(void) state;
	cfs[0] = cf_def("Std", "UTF8Type");
	cfs[1] = cf_def("Sup", "UTF8Type");
	cfs[1].has_column_type = true;
	cfs[1].column_type = S("Super");
	cfs[1].has_subcomparator_type = true;
	cfs[1].subcomparator_type = S("UTF8Type");
	cfs[2] = cf_def("Idx", "UTF8Type");
	cfs[2].has_column_metadata = true;
	cfs[2].column_metadata = meta;
	cfs[2].n_column_metadata = 2;
	cfs[3] = cf_def("Temp", "BytesType");
	ksd.cf_defs = cfs;
	ksd.n_cf_defs = 4;

	ok(cfc_system_add_keyspace(conn, &ksd, arena, &id1), "system_add_keyspace");
	assert_true(id1.len > 0);
	ok(cfc_describe_schema_versions(conn, arena, &sv, &n), "describe_schema_versions");
	assert_int_equal(n, 1);
	assert_true(cf_slice_eq(sv[0].version, id1));
	fails(cfc_system_add_keyspace(conn, &ksd, arena, NULL), CF_ERR_INVALID, "already exists",
		  "add the keyspace twice");
	{
		cf_t_ks_def bad = ksd;

		bad.name = S("Bad");
		bad.strategy_class = S("NoStrategy");
		bad.n_cf_defs = 0;
		fails(cfc_system_add_keyspace(conn, &bad, arena, NULL), CF_ERR_INVALID, "NoStrategy",
			  "an unknown strategy");
	}
	/* CF changes need the keyspace */
	{
		cf_t_cf_def late = cf_def("Late", "LongType");

		/* CfDef.keyspace names the keyspace, which must exist */
		late.keyspace = S("Nope");
		fails(cfc_system_add_column_family(conn, &late, arena, NULL), CF_ERR_INVALID,
			  "Keyspace Nope does not exist", "add_column_family to an unknown keyspace");
		late.keyspace = S(KS);
		/* dropping one names it in the session's keyspace */
		fails(cfc_system_drop_column_family(conn, "Temp", arena, NULL), CF_ERR_INVALID,
			  "You have not set a keyspace", "drop_column_family without set_keyspace");
		ok(cfc_set_keyspace(conn, KS), "set_keyspace");
		ok(cfc_system_add_column_family(conn, &late, arena, &id2), "system_add_column_family");
		assert_false(cf_slice_eq(id1, id2));
		fails(cfc_system_add_column_family(conn, &late, arena, NULL), CF_ERR_INVALID, "Late",
			  "add Late twice");
	}
	{
		cf_t_cf_def upd;
		cf_t_ks_def kd;
		cf_t_cf_def *cur;

		/* an update names the CF by id, as 0.7's clients send what describe gave */
		ok(cfc_describe_keyspace(conn, KS, arena, &kd), "describe_keyspace");
		cur = find_cf(&kd, "Std");
		assert_non_null(cur);
		upd = *cur;
		upd.has_comment = true;
		upd.comment = S("updated by test_e2e");
		ok(cfc_system_update_column_family(conn, &upd, arena, NULL),
		   "system_update_column_family");
		upd.comparator_type = S("LongType");
		fails(cfc_system_update_column_family(conn, &upd, arena, NULL), CF_ERR_INVALID,
			  "compar", "changing a comparator");
	}
	{
		cf_t_ks_def upd = ksd;

		upd.n_cf_defs = 0;
		upd.cf_defs = NULL;
		ok(cfc_system_update_keyspace(conn, &upd, arena, NULL), "system_update_keyspace");
	}
	ok(cfc_system_drop_column_family(conn, "Temp", arena, NULL), "system_drop_column_family");
	fails(cfc_system_drop_column_family(conn, "Temp", arena, NULL), CF_ERR_INVALID, "Temp",
		  "dropping Temp twice");
	/* a keyspace made and dropped leaves nothing */
	{
		cf_t_ks_def gone = {.name = S("Gone"),.strategy_class = S("SimpleStrategy"),
		.replication_factor = 1};
		cf_t_ks_def out;

		ok(cfc_system_add_keyspace(conn, &gone, arena, NULL), "add Gone");
		ok(cfc_system_drop_keyspace(conn, "Gone", arena, NULL), "system_drop_keyspace");
		fails(cfc_describe_keyspace(conn, "Gone", arena, &out), CF_ERR_NOT_FOUND, "",
			  "describe a dropped keyspace");
		fails(cfc_system_drop_keyspace(conn, "Gone", arena, NULL), CF_ERR_INVALID, "Gone",
			  "drop Gone twice");
	}
	check_schema(conn, arena);
	put(conn, "Std", "persist", "c", "before restart", CF_T_CL_ONE);

	/* a clean restart, then a crash: the schema and the data are still there */
	test_colfamd_stop(node);
	test_colfamd_restart(node);
	cfc_disconnect(conn);
	check_schema(conn, arena);
	assert_string_equal(get_value(conn, "Std", "persist", "c", 0, arena, false),
						"before restart");
	{
		cf_t_cf_def again = cf_def("AfterRestart", "BytesType");

		ok(cfc_system_add_column_family(conn, &again, arena, NULL), "add after restart");
	}
	test_colfamd_kill(node);
	test_colfamd_restart(node);
	cfc_disconnect(conn);
	check_schema(conn, arena);
	{
		cf_t_ks_def kd;

		ok(cfc_describe_keyspace(conn, KS, arena, &kd), "describe_keyspace after kill");
		if (find_cf(&kd, "AfterRestart") == NULL)
			fail_msg("a column family added before a kill -9 is gone after the restart");
	}
	ok(cfc_system_drop_column_family(conn, "AfterRestart", arena, NULL), "drop AfterRestart");
}

/* ---------------------------------------------------------------- reads and writes */

static void
reads_and_writes(void **state)
{
	cf_t_column_parent p = parent("Std");
	cf_t_slice_predicate pred = all_columns(100);
	cf_t_cosc  *cols;
	size_t		n;
	int32_t		count;

	(void) state;
	for (int i = 0; i < 5; i++)
	{
		char		key[32],
					col[32],
					val[32];

		snprintf(key, sizeof(key), "row%d", i);
		for (int j = 0; j <= i; j++)
		{
			snprintf(col, sizeof(col), "col%02d", j);
			snprintf(val, sizeof(val), "v-%d-%d", i, j);
			put(conn, "Std", key, col, val, CF_T_CL_ONE);
		}
	}
	/* get, and NotFound for a missing column and a missing row */
	assert_string_equal(get_value(conn, "Std", "row3", "col02", 0, arena, false), "v-3-2");
	assert_null(get_value(conn, "Std", "row3", "col09", 0, arena, true));
	assert_null(get_value(conn, "Std", "nosuchrow", "col00", 0, arena, true));

	/* get_slice: comparator order, reversed, a name list */
	ok(cfc_get_slice(conn, S("row4"), &p, &pred, 0, arena, &cols, &n), "get_slice");
	assert_int_equal(n, 5);
	for (size_t j = 0; j < n; j++)
	{
		char		col[32];

		snprintf(col, sizeof(col), "col%02d", (int) j);
		assert_slice(cols[j].column.name, col);
	}
	pred.slice_range.reversed = true;
	pred.slice_range.count = 2;
	ok(cfc_get_slice(conn, S("row4"), &p, &pred, 0, arena, &cols, &n), "reversed get_slice");
	assert_int_equal(n, 2);
	assert_slice(cols[0].column.name, "col04");
	assert_slice(cols[1].column.name, "col03");
	{
		cf_slice	names[] = {S("col01"), S("zzz"), S("col03")};
		cf_t_slice_predicate np = {.has_column_names = true,.column_names = names,
		.n_column_names = 3};

		ok(cfc_get_slice(conn, S("row4"), &p, &np, 0, arena, &cols, &n), "get_slice by names");
		assert_int_equal(n, 2);
		assert_slice(cols[0].column.value, "v-4-1");
		assert_slice(cols[1].column.value, "v-4-3");
	}
	ok(cfc_get_slice(conn, S("nosuchrow"), &p, &pred, 0, arena, &cols, &n), "empty get_slice");
	assert_int_equal(n, 0);

	/* counts */
	pred = all_columns(100);
	ok(cfc_get_count(conn, S("row2"), &p, &pred, 0, &count), "get_count");
	assert_int_equal(count, 3);
	{
		cf_slice	keys[] = {S("row0"), S("row4"), S("nosuchrow")};
		cf_t_key_coscs *kc;
		cf_t_key_count *cnt;

		ok(cfc_multiget_slice(conn, keys, 3, &p, &pred, 0, arena, &kc, &n), "multiget_slice");
		assert_int_equal(n, 3);
		for (size_t i = 0; i < n; i++)
		{
			size_t		want = S_EQ(kc[i].key, "row0") ? 1 : S_EQ(kc[i].key, "row4") ? 5 : 0;

			assert_true(S_EQ(kc[i].key, "row0") || S_EQ(kc[i].key, "row4") ||
						S_EQ(kc[i].key, "nosuchrow"));
			assert_int_equal(kc[i].n_columns, want);
		}
		ok(cfc_multiget_count(conn, keys, 3, &p, &pred, 0, arena, &cnt, &n), "multiget_count");
		assert_int_equal(n, 3);
		for (size_t i = 0; i < n; i++)
			assert_int_equal(cnt[i].count,
							 S_EQ(cnt[i].key, "row0") ? 1 : S_EQ(cnt[i].key, "row4") ? 5 : 0);
	}

	/* remove: a column, then a whole row */
	ok(cfc_remove(conn, S("row4"), &(cf_t_column_path) {.column_family = S("Std"),
				  .has_column = true,.column = S("col00")}, test_timestamp_us(NULL), 0), "remove column");
	assert_null(get_value(conn, "Std", "row4", "col00", 0, arena, true));
	ok(cfc_get_count(conn, S("row4"), &p, &pred, 0, &count), "get_count after remove");
	assert_int_equal(count, 4);
	ok(cfc_remove(conn, S("row3"), &(cf_t_column_path) {.column_family = S("Std")}, test_timestamp_us(NULL), 0),
	   "remove row");
	ok(cfc_get_count(conn, S("row3"), &p, &pred, 0, &count), "get_count of a removed row");
	assert_int_equal(count, 0);
	/* an older timestamp than the tombstone's does not bring it back */
	{
		cf_t_column old = {.name = S("col00"),.value = S("stale"),.timestamp = 1};

		ok(cfc_insert(conn, S("row3"), &p, &old, 0), "insert under a tombstone");
		assert_null(get_value(conn, "Std", "row3", "col00", 0, arena, true));
	}

	/* batch_mutate: insertions in two rows and CFs, a deletion by predicate */
	{
		cf_t_mutation m1[2] = {
			{.has_cosc = true,.cosc = {.has_column = true,.column = {.name = S("b1"),
			.value = S("x1"),.timestamp = test_timestamp_us(NULL)}}},
			{.has_cosc = true,.cosc = {.has_column = true,.column = {.name = S("b2"),
			.value = S("x2"),.timestamp = test_timestamp_us(NULL)}}},
		};
		cf_slice	delnames[] = {S("col01"), S("col02")};
		cf_t_mutation m2[1] = {
			{.has_deletion = true,.deletion = {.timestamp = test_timestamp_us(NULL),.has_predicate = true,
			.predicate = {.has_column_names = true,.column_names = delnames,
			.n_column_names = 2}}},
		};
		cf_t_cf_mutations cm1[1] = {{.column_family = S("Std"),.mutations = m1,
		.n_mutations = 2}};
		cf_t_cf_mutations cm2[1] = {{.column_family = S("Std"),.mutations = m2,
		.n_mutations = 1}};
		cf_t_key_mutations km[2] = {
			{.key = S("batch"),.cfs = cm1,.n_cfs = 1},
			{.key = S("row4"),.cfs = cm2,.n_cfs = 1},
		};

		ok(cfc_batch_mutate(conn, km, 2, CF_T_CL_QUORUM), "batch_mutate");
		assert_string_equal(get_value(conn, "Std", "batch", "b2", 0, arena, false), "x2");
		ok(cfc_get_slice(conn, S("row4"), &p, &pred, 0, arena, &cols, &n), "after batch");
		assert_int_equal(n, 2);
		assert_slice(cols[0].column.name, "col03");
		assert_slice(cols[1].column.name, "col04");
	}

	/* get_range_slices over the whole ring: every live row once */
	{
		cf_t_key_range r = {.has_start_key = true,.start_key = S(""),.has_end_key = true,
		.end_key = S(""),.count = 100};
		cf_t_key_slice *rows;
		int			seen = 0;

		ok(cfc_get_range_slices(conn, &p, &pred, &r, 0, arena, &rows, &n), "get_range_slices");
		for (size_t i = 0; i < n; i++)
		{
			if (rows[i].n_columns == 0)
				continue;		/* range ghosts */
			seen++;
			if (S_EQ(rows[i].key, "row2"))
				assert_int_equal(rows[i].n_columns, 3);
		}
		/* row0..row2, row4, batch, persist (schema test); row3 is deleted */
		assert_int_equal(seen, 6);
		r.count = -1;
		fails(cfc_get_range_slices(conn, &p, &pred, &r, 0, arena, &rows, &n), CF_ERR_INVALID,
			  "maxRows", "a negative range count");
	}

	/* super columns */
	{
		cf_t_column_parent sp = {.column_family = S("Sup"),.has_super_column = true,
		.super_column = S("sc1")};
		cf_t_column_parent top = parent("Sup");
		cf_t_column sc = {.name = S("sub"),.value = S("subval"),.timestamp = test_timestamp_us(NULL)};
		cf_t_column_path gp = {.column_family = S("Sup"),.has_super_column = true,
		.super_column = S("sc1"),.has_column = true,.column = S("sub")};
		cf_t_cosc	got;

		ok(cfc_insert(conn, S("s"), &sp, &sc, 0), "insert into a super column");
		ok(cfc_get(conn, S("s"), &gp, 0, arena, &got), "get a subcolumn");
		assert_true(got.has_column);
		assert_slice(got.column.value, "subval");
		ok(cfc_get_slice(conn, S("s"), &top, &pred, 0, arena, &cols, &n),
		   "get_slice of a super CF");
		assert_int_equal(n, 1);
		assert_true(cols[0].has_super_column);
		assert_slice(cols[0].super_column.name, "sc1");
		assert_int_equal(cols[0].super_column.n_columns, 1);
		fails(cfc_insert(conn, S("s"), &top, &sc, 0), CF_ERR_INVALID, "",
			  "insert into a super CF without a super column");
	}

	/* truncate */
	{
		cf_t_column_parent sp = parent("Sup");

		ok(cfc_truncate(conn, "Sup"), "truncate");
		ok(cfc_get_count(conn, S("s"), &sp, &pred, 0, &count), "count after truncate");
		assert_int_equal(count, 0);
		fails(cfc_truncate(conn, "Nope"), CF_ERR_INVALID, "unconfigured columnfamily Nope",
			  "truncate an unknown CF");
	}
}

/*
 * Writes and reads at one consistency level in cf of the connection's keyspace
 * (replication factor 1): ANY is refused for reads; TWO and THREE need more replicas
 * than there are, an UnavailableException as in 0.7.
 */
static void
write_and_read_at(cfc_conn *c, const char *cf, int cl, cf_arena *a)
{
	cf_t_column_parent p = parent(cf);
	cf_t_slice_predicate pred = all_columns(10);
	cf_t_cosc  *cols;
	size_t		n;
	char		val[32];

	snprintf(val, sizeof(val), "cl%d", cl);
	if (cl == CF_T_CL_TWO || cl == CF_T_CL_THREE)
	{
		cf_t_column col = {.name = S(val),.value = S(val),.timestamp = test_timestamp_us(NULL)};

		fails(cfc_insert(c, S("cl"), &p, &col, cl), CF_ERR_UNAVAILABLE,
			  "too few live replicas", "a write at TWO or THREE, RF 1");
		fails(cfc_get_slice(c, S("cl"), &p, &pred, cl, a, &cols, &n), CF_ERR_UNAVAILABLE,
			  "too few live replicas", "a read at TWO or THREE, RF 1");
		return;
	}
	put(c, cf, "cl", val, val, cl);
	if (cl == CF_T_CL_ANY)
	{
		fails(cfc_get_slice(c, S("cl"), &p, &pred, cl, a, &cols, &n), CF_ERR_INVALID,
			  "may not be applied to read operations", "a read at ANY");
		return;
	}
	assert_string_equal(get_value(c, cf, "cl", val, cl, a, false), val);
	ok(cfc_get_slice(c, S("cl"), &p, &pred, cl, a, &cols, &n), "get_slice at a level");
	assert_true(n >= 1);
}

/*
 * Every consistency level is served on one node: under SimpleStrategy all but the
 * datacenter-aware ones (LOCAL_QUORUM, EACH_QUORUM: an InvalidRequestException, as in
 * 0.7), under NetworkTopologyStrategy all of them.
 */
static void
every_consistency_level(void **state)
{
	cf_t_column_parent p = parent("Std");
	cf_t_slice_predicate pred = all_columns(10);
	cf_t_cosc  *cols;
	size_t		n;
	cf_t_cf_def cf = cf_def("Dc", "UTF8Type");
	cf_t_string_pair opt = {.key = S("datacenter1"),.value = S("1")};
	cf_t_ks_def nts = {.name = S("Nts"),
		.strategy_class = S("org.apache.cassandra.locator.NetworkTopologyStrategy"),
		.has_strategy_options = true,.strategy_options = &opt,.n_strategy_options = 1,
	.replication_factor = 1,.cf_defs = &cf,.n_cf_defs = 1};

	(void) state;
	for (int cl = CF_T_CL_ONE; cl <= CF_T_CL_THREE; cl++)
	{
		if (cl == CF_T_CL_LOCAL_QUORUM || cl == CF_T_CL_EACH_QUORUM)
		{
			cf_t_column col = {.name = S("x"),.value = S("x"),.timestamp = test_timestamp_us(NULL)};

			fails(cfc_insert(conn, S("cl"), &p, &col, cl), CF_ERR_INVALID,
				  "not compatible with replication strategy", "a DC level, SimpleStrategy");
			continue;
		}
		write_and_read_at(conn, "Std", cl, arena);
	}
	fails(cfc_get_slice(conn, S("cl"), &p, &pred, 42, arena, &cols, &n), CF_ERR_INVALID,
		  "consistency level", "an unknown level");

	cf.keyspace = S("Nts");
	ok(cfc_system_add_keyspace(conn, &nts, arena, NULL),
	   "add a NetworkTopologyStrategy keyspace");
	ok(cfc_set_keyspace(conn, "Nts"), "set_keyspace Nts");
	for (int cl = CF_T_CL_ONE; cl <= CF_T_CL_THREE; cl++)
		write_and_read_at(conn, "Dc", cl, arena);
	ok(cfc_system_drop_keyspace(conn, "Nts", arena, NULL), "drop Nts");
}

static void
ttl_expires(void **state)
{
	cf_t_column_parent p = parent("Std");
	cf_t_column col = {.name = S("t"),.value = S("short-lived"),.timestamp = test_timestamp_us(NULL),
	.has_ttl = true,.ttl = 1};
	cf_t_column keep = {.name = S("k"),.value = S("stays"),.timestamp = test_timestamp_us(NULL)};
	time_t		start = time(NULL);
	char	   *v;

	(void) state;
	ok(cfc_insert(conn, S("ttl"), &p, &col, 0), "insert with a TTL");
	ok(cfc_insert(conn, S("ttl"), &p, &keep, 0), "insert without");
	v = get_value(conn, "Std", "ttl", "t", 0, arena, true);
	/* the column lives at least until the second after it was written */
	if (time(NULL) <= start)
		assert_non_null(v);
	while ((v = get_value(conn, "Std", "ttl", "t", 0, arena, true)) != NULL &&
		   time(NULL) < start + 10)
		usleep(100 * 1000);
	if (v != NULL)
		fail_msg("a column with ttl 1 still reads %s 10 s later", v);
	assert_string_equal(get_value(conn, "Std", "ttl", "k", 0, arena, false), "stays");
	col.ttl = -1;
	fails(cfc_insert(conn, S("ttl"), &p, &col, 0), CF_ERR_INVALID, "ttl", "a negative ttl");
}

static void
indexed_slices(void **state)
{
	cf_t_column_parent p = parent("Idx");
	cf_t_slice_predicate pred = all_columns(10);
	cf_t_index_expression ex[2] = {
		{.column_name = S("state"),.op = CF_T_OP_EQ,.value = S("TX")},
		{.column_name = S("age"),.op = CF_T_OP_GT,.value = cf_slice_of("\0\0\0\0\0\0\0\x1e", 8)},
	};
	cf_t_index_clause clause = {.expressions = ex,.n_expressions = 1,.start_key = S(""),
	.count = 100};
	cf_t_key_slice *rows;
	size_t		n;
	int			tx = 0;

	(void) state;
	for (int i = 0; i < 20; i++)
	{
		char		key[32];
		uint8_t		age[8] = {0};
		cf_t_column agec = {.name = S("age"),.value = cf_slice_of(age, 8),
		.timestamp = test_timestamp_us(NULL)};

		snprintf(key, sizeof(key), "u%02d", i);
		put(conn, "Idx", key, "state", i % 3 == 0 ? "TX" : "CA", 0);
		age[7] = (uint8_t) (20 + i);
		ok(cfc_insert(conn, S(key), &p, &agec, 0), "insert age");
		tx += i % 3 == 0;
	}
	ok(cfc_get_indexed_slices(conn, &p, &clause, &pred, 0, arena, &rows, &n),
	   "get_indexed_slices");
	assert_int_equal(n, (size_t) tx);
	for (size_t i = 0; i < n; i++)
	{
		int			k = atoi((const char *) rows[i].key.p + 1);

		assert_int_equal(k % 3, 0);
		assert_int_equal(rows[i].n_columns, 2);
	}
	/* EQ and a second expression on an unindexed column */
	clause.n_expressions = 2;
	ok(cfc_get_indexed_slices(conn, &p, &clause, &pred, 0, arena, &rows, &n),
	   "two expressions");
	for (size_t i = 0; i < n; i++)
		assert_true(atoi((const char *) rows[i].key.p + 1) + 20 > 30);
	assert_int_equal(n, 3);		/* u12, u15, u18 */
	/* no EQ on an indexed column: an error a user can act on */
	clause.expressions = &ex[1];
	clause.n_expressions = 1;
	fails(cfc_get_indexed_slices(conn, &p, &clause, &pred, 0, arena, &rows, &n),
		  CF_ERR_INVALID, "index", "no indexed EQ expression");
	/* the LongType validator */
	fails(cfc_insert(conn, S("u00"), &p, &(cf_t_column) {.name = S("age"),.value = S("abc"),
					 .timestamp = test_timestamp_us(NULL)}, 0), CF_ERR_INVALID, "LongType",
		  "a 3-byte LongType value");
}

/* InvalidRequestException reasons a user can act on. */
static void
invalid_requests(void **state)
{
	cf_t_column_parent p = parent("Std");
	cf_t_slice_predicate pred = all_columns(10);
	cf_t_cosc  *cols;
	size_t		n;

	(void) state;
	fails(cfc_get_slice(conn, S("k"), &p, &pred, 0, arena, &cols, &n), CF_ERR_INVALID,
		  "You have not set a keyspace", "no keyspace");
	fails(cfc_set_keyspace(conn, "Nope"), CF_ERR_INVALID, "Keyspace Nope does not exist",
		  "set_keyspace Nope");
	ok(cfc_set_keyspace(conn, KS), "set_keyspace");
	p = parent("Nope");
	fails(cfc_get_slice(conn, S("k"), &p, &pred, 0, arena, &cols, &n), CF_ERR_INVALID,
		  "unconfigured columnfamily Nope", "an unknown CF");
	p = parent("Std");
	fails(cfc_get_slice(conn, S(""), &p, &pred, 0, arena, &cols, &n), CF_ERR_INVALID,
		  "Key may not be empty", "an empty key");
	pred.slice_range.count = -1;
	fails(cfc_get_slice(conn, S("k"), &p, &pred, 0, arena, &cols, &n), CF_ERR_INVALID,
		  "non-negative count", "a negative count");
	fails(cfc_insert(conn, S("k"), &p, &(cf_t_column) {.name = S(""),.value = S("v"),
					 .timestamp = 1}, 0), CF_ERR_INVALID, "empty", "an empty column name");
	fails(cfc_insert(conn, S("k"), &p, &(cf_t_column) {.name = cf_slice_of("\xff\xfe", 2),
					 .value = S("v"),.timestamp = 1}, 0), CF_ERR_INVALID, "UTF-8",
		  "a name that is not UTF-8 under UTF8Type");
	{
		cf_t_column_path cp = {.column_family = S("Std")};
		cf_t_cosc	out;

		fails(cfc_get(conn, S("k"), &cp, 0, arena, &out), CF_ERR_INVALID,
			  "column parameter is not optional", "get without a column");
	}
	/* the connection is still usable after each of them */
	put(conn, "Std", "after-errors", "c", "fine", 0);
	assert_string_equal(get_value(conn, "Std", "after-errors", "c", 0, arena, false), "fine");
}

/* describe_splits from SSTable statistics after a flush. */
static void
describe_splits_after_flush(void **state)
{
	const char *cfs[] = {"Std"};
	cf_slice   *toks;
	size_t		n;

	(void) state;
	for (int i = 0; i < 600; i++)
	{
		char		key[32];

		snprintf(key, sizeof(key), "split%04d", i);
		put(conn, "Std", key, "c", key, 0);
	}
	ok(cfc_colfam_flush(conn, KS, cfs, 1), "flush");
	ok(cfc_describe_splits(conn, "Std", "0", "170141183460469231731687303715884105728", 100, arena,
						   &toks, &n), "describe_splits");
	assert_true(n >= 3);
	assert_slice(toks[0], "0");
	assert_slice(toks[n - 1], "170141183460469231731687303715884105728");
}

/*
 * What truncate, remove and drop_column_family took away stays away after a kill -9:
 * the commit log replay must not bring back the writes before them, and a CF added
 * again under a dropped one's name starts empty.
 */
static void
deletions_survive_a_crash(void **state)
{
	cf_t_cf_def tr = cf_def("Trunc", "UTF8Type");
	cf_t_cf_def dr = cf_def("Dropped", "UTF8Type");
	cf_t_column_parent tp = parent("Trunc");
	cf_t_slice_predicate pred = all_columns(100);
	int32_t		count;

	(void) state;
	ok(cfc_system_add_column_family(conn, &tr, arena, NULL), "add Trunc");
	ok(cfc_system_add_column_family(conn, &dr, arena, NULL), "add Dropped");
	for (int i = 0; i < 50; i++)
	{
		char		key[32];

		snprintf(key, sizeof(key), "r%d", i);
		put(conn, "Trunc", key, "c", "old", 0);
		put(conn, "Dropped", key, "c", "old", 0);
		put(conn, "Std", key, "gone", "old", 0);
		if (i == 24)
		{
			/* half of it in SSTables, half in memtables and the commit log only */
			const char *cfs[] = {"Trunc", "Dropped", "Std"};

			ok(cfc_colfam_flush(conn, KS, cfs, 3), "flush");
		}
	}
	ok(cfc_truncate(conn, "Trunc"), "truncate");
	put(conn, "Trunc", "r1", "after", "new", 0);
	ok(cfc_system_drop_column_family(conn, "Dropped", arena, NULL), "drop Dropped");
	for (int i = 0; i < 50; i++)
	{
		char		key[32];
		cf_t_column_path cp = path("Std", "gone");

		snprintf(key, sizeof(key), "r%d", i);
		ok(cfc_remove(conn, S(key), &cp, test_timestamp_us(NULL), 0), "remove");
	}

	test_colfamd_kill(node);
	test_colfamd_restart(node);
	cfc_disconnect(conn);

	ok(cfc_get_count(conn, S("r2"), &tp, &pred, 0, &count), "count after the crash");
	if (count != 0)
		fail_msg("a truncated row has %d columns again after kill -9 and restart", count);
	assert_null(get_value(conn, "Trunc", "r1", "c", 0, arena, true));
	assert_string_equal(get_value(conn, "Trunc", "r1", "after", 0, arena, false), "new");
	assert_null(get_value(conn, "Std", "r7", "gone", 0, arena, true));
	ok(cfc_system_add_column_family(conn, &dr, arena, NULL), "add Dropped again");
	{
		cf_t_column_parent dp = parent("Dropped");

		ok(cfc_get_count(conn, S("r3"), &dp, &pred, 0, &count), "count in the new Dropped");
		if (count != 0)
			fail_msg("a CF added again under a dropped one's name has its old data");
	}
	ok(cfc_system_drop_column_family(conn, "Dropped", arena, NULL), "drop Dropped again");
	ok(cfc_system_drop_column_family(conn, "Trunc", arena, NULL), "drop Trunc");
}

/* ---------------------------------------------------------------- pagers */

#define LONG_ROW 2500
#define LONG_RANGE 1200

static void
pagers_page_through_long_slices_and_ranges(void **state)
{
	cf_t_column_parent p = parent("Std");
	cf_t_cf_def pg = cf_def("Pages", "UTF8Type");
	static bool seen[LONG_RANGE];

	(void) state;
	ok(cfc_system_add_column_family(conn, &pg, arena, NULL), "add Pages");
	/* a long row, written in batches of 250 columns */
	for (int b = 0; b < LONG_ROW / 250; b++)
	{
		cf_t_mutation m[250];
		char		names[250][32];
		cf_t_cf_mutations cm = {.column_family = S("Std"),.mutations = m,.n_mutations = 250};
		cf_t_key_mutations km = {.key = S("long"),.cfs = &cm,.n_cfs = 1};

		for (int i = 0; i < 250; i++)
		{
			snprintf(names[i], sizeof(names[i]), "c%05d", b * 250 + i);
			m[i] = (cf_t_mutation) {.has_cosc = true,.cosc = {.has_column = true,
			.column = {.name = S(names[i]),.value = S(names[i]),.timestamp = test_timestamp_us(NULL)}}};
		}
		ok(cfc_batch_mutate(conn, &km, 1, 0), "batch_mutate a long row");
	}
	for (int reversed = 0; reversed <= 1; reversed++)
	{
		cf_t_slice_predicate pred = all_columns(INT32_MAX);
		cfc_column_pager *cp;
		const cf_t_cosc *items;
		size_t		n;
		int			got = 0,
					pages = 0;

		pred.slice_range.reversed = reversed;
		ok(cfc_column_pager_new(conn, S("long"), &p, &pred, 97, 0, &cp), "column pager");
		for (;;)
		{
			ok(cfc_column_pager_next(cp, &items, &n), "column pager next");
			if (n == 0)
				break;
			pages++;
			for (size_t i = 0; i < n; i++, got++)
			{
				char		want[32];

				snprintf(want, sizeof(want), "c%05d", reversed ? LONG_ROW - 1 - got : got);
				assert_slice(items[i].column.name, want);
				assert_slice(items[i].column.value, want);
			}
		}
		assert_int_equal(got, LONG_ROW);
		assert_true(pages >= LONG_ROW / 97);
		cfc_column_pager_free(cp);
	}
	/* a long key range in its own CF, by key and by token range */
	p = parent("Pages");
	for (int i = 0; i < LONG_RANGE; i++)
	{
		char		key[32];

		snprintf(key, sizeof(key), "k%05d", i);
		put(conn, "Pages", key, "v", key, 0);
	}
	for (int by_token = 0; by_token <= 1; by_token++)
	{
		cf_t_slice_predicate pred = all_columns(10);
		cf_t_key_range r = {.count = INT32_MAX};
		cfc_range_pager *rp;
		const cf_t_key_slice *rows;
		size_t		n;
		int			got = 0;

		if (by_token)
		{
			r.has_start_token = r.has_end_token = true;
			r.start_token = S("0");
			r.end_token = S("0");
		}
		else
		{
			r.has_start_key = r.has_end_key = true;
			r.start_key = r.end_key = S("");
		}
		memset(seen, 0, sizeof(seen));
		ok(cfc_range_pager_new(conn, &p, &pred, &r, 113, 0, &rp), "range pager");
		for (;;)
		{
			ok(cfc_range_pager_next(rp, &rows, &n), "range pager next");
			if (n == 0)
				break;
			for (size_t i = 0; i < n; i++, got++)
			{
				char		key[32];
				int			k;

				snprintf(key, sizeof(key), "%.*s", (int) rows[i].key.len,
						 (const char *) rows[i].key.p);
				k = atoi(key + 1);
				assert_true(k >= 0 && k < LONG_RANGE);
				if (seen[k])
					fail_msg("range pager (%s): %s returned twice", by_token ? "tokens" : "keys",
							 key);
				seen[k] = true;
				assert_int_equal(rows[i].n_columns, 1);
				assert_slice(rows[i].columns[0].column.value, key);
			}
		}
		assert_int_equal(got, LONG_RANGE);
		cfc_range_pager_free(rp);
	}
}

/* ---------------------------------------------------------------- authentication */

static void
authentication_and_access(void **state)
{
	char	   *dir = test_tmpdir_new("cf_e2e_auth");
	char		pwpath[4096],
				acpath[4096];
	test_colfamd *secure;
	cfc_conn   *anon,
			   *alice,
			   *carol,
			   *bad;
	cf_arena   *a = cf_arena_new(0);
	cf_t_ks_def *ksds;
	size_t		n;

	(void) state;
	assert_non_null(dir);
	test_auth_files(dir, (const char *const[]) {"alice:wonderland", "carol:rosebud", NULL},
					"<modify-keyspaces>=alice\nSec.<rw>=alice\nSec.<ro>=carol\n");
	snprintf(pwpath, sizeof(pwpath), "%s", test_path(dir, "passwd"));
	snprintf(acpath, sizeof(acpath), "%s", test_path(dir, "access"));
	{
		const char *const args[] = {
			"--authenticator", "org.apache.cassandra.auth.SimpleAuthenticator",
			"--authority", "org.apache.cassandra.auth.SimpleAuthority",
			"--auth_passwd_file", pwpath, "--auth_access_file", acpath, NULL};

		secure = test_colfamd_start("127.0.0.5", args);
	}

	/* nothing works before login */
	anon = conn_new_as(secure, NULL, NULL, NULL);
	fails(cfc_describe_keyspaces(anon, a, &ksds, &n), CF_ERR_INVALID,
		  "you have not logged in", "describe_keyspaces before login");
	fails(cfc_set_keyspace(anon, "system"), CF_ERR_INVALID, "you have not logged in",
		  "set_keyspace before login");
	fails(cfc_login(anon, "alice", "wonderlan"), CF_ERR_AUTHENTICATION,
		  "invalid username or password", "a wrong password");
	fails(cfc_login(anon, "mallory", "wonderland"), CF_ERR_AUTHENTICATION,
		  "invalid username or password", "an unknown user");
	ok(cfc_login(anon, "alice", "wonderland"), "login");
	ok(cfc_describe_keyspaces(anon, a, &ksds, &n), "describe_keyspaces after login");

	/* alice may make a keyspace and write it; carol may read it only */
	alice = conn_new_as(secure, NULL, "alice", "wonderland");
	{
		cf_t_cf_def cf = cf_def("Data", "UTF8Type");
		cf_t_ks_def ks = {.name = S("Sec"),.strategy_class = S("SimpleStrategy"),
		.replication_factor = 1,.cf_defs = &cf,.n_cf_defs = 1};

		cf.keyspace = S("Sec");
		ok(cfc_system_add_keyspace(alice, &ks, a, NULL), "alice adds a keyspace");
	}
	ok(cfc_set_keyspace(alice, "Sec"), "alice uses Sec");
	put(alice, "Data", "k", "c", "secret", 0);

	carol = conn_new_as(secure, "Sec", "carol", "rosebud");
	assert_string_equal(get_value(carol, "Data", "k", "c", 0, a, false), "secret");
	{
		cf_t_column_parent p = parent("Data");
		cf_t_column col = {.name = S("c"),.value = S("mine"),.timestamp = test_timestamp_us(NULL)};

		fails(cfc_insert(carol, S("k"), &p, &col, 0), CF_ERR_INVALID,
			  "carol does not have WRITE", "carol writes");
		fails(cfc_system_drop_keyspace(carol, "Sec", a, NULL), CF_ERR_INVALID,
			  "<modify-keyspaces>", "carol drops a keyspace");
	}
	/* bad credentials in the options: the connect itself fails, without the password */
	bad = conn_new_as(secure, "Sec", "carol", "wrong-password");
	{
		cf_status  *s = cfc_connect(bad);

		assert_non_null(s);
		assert_int_equal(cf_status_code(s), CF_ERR_AUTHENTICATION);
		assert_null(strstr(cf_status_msg(s), "wrong-password"));
		cf_status_free(s);
	}
	test_colfamd_stop(secure);
	assert_false(test_colfamd_log_contains(secure, "wonderland"));
	assert_false(test_colfamd_log_contains(secure, "rosebud"));
	assert_false(test_colfamd_log_contains(secure, "wrong-password"));
	cfc_free(bad);
	cfc_free(carol);
	cfc_free(alice);
	cfc_free(anon);
	cf_arena_free(a);
	test_colfamd_free(secure);
	test_tmpdir_free(dir);
}

/* A test that gets conn and arena: a connection in the keyspace KS, or in none. */
#define IN_KS(f) cmocka_unit_test_setup_teardown(f, in_keyspace, disconnect)
#define NO_KS(f) cmocka_unit_test_setup_teardown(f, no_keyspace, disconnect)

int
main(void)
{
	const struct CMUnitTest tests[] = {
		NO_KS(schema_changes_persist_across_restarts),
		NO_KS(describe_methods_tell_the_truth),
		IN_KS(reads_and_writes),
		IN_KS(every_consistency_level),
		IN_KS(ttl_expires),
		IN_KS(indexed_slices),
		NO_KS(invalid_requests),
		IN_KS(describe_splits_after_flush),
		IN_KS(deletions_survive_a_crash),
		IN_KS(pagers_page_through_long_slices_and_ranges),
		cmocka_unit_test(authentication_and_access),
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
