/* tests/unit/test_dispatch.c — thrift/dispatch: encoded calls through
 * cf_dispatch_handle and decoded replies for every method of the 0.7 service, each
 * documented error, garbage and truncated messages, sessions and login, the seeds'
 * Twitter and BloggyAppy examples end to end, and colfam_multiget_chain (the seeds'
 * front page, every source, its errors) checked against separate multiget_slice calls. */
#include "support/authfiles.h"
#include "support/cmocka_prelude.h"
#include "support/slices.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support/dbfixture.h"
#include "support/envtest.h"
#include "support/tmpdir.h"
#include "thrift/admin.h"
#include "thrift/dispatch.h"
#include "util/log.h"

typedef struct T
{
	db_fixture *f;
	cf_service *svc;
	cf_dispatch *d;
	cf_dispatch_session *sess;
	cf_auth    *auth;
	cf_buf		reply;
	cf_arena   *arena;
	int32_t		seqid;
	bool		keep;
} T;

static T   *
t_open(db_fixture *f, cf_auth *auth, int64_t timeout_us)
{
	T		   *t = calloc(1, sizeof(*t));
	cf_db_options o = {
		.env = cf_env_posix(),.data_dir = f->data,.commitlog_dir = f->log,
		.partitioner = CF_PARTITIONER_RANDOM,.sync_mode = CF_COMMITLOG_PERIODIC,
	};

	assert_non_null(t);
	t->f = f;
	if (f->db == NULL)
		OK(cf_db_open(&o, &f->db));
	OK(cf_service_new(&(cf_service_options) {.db = f->db,.endpoint = "127.0.0.9",
					  .rpc_timeout_us = timeout_us}, &t->svc));
	OK(cf_dispatch_new(&(cf_dispatch_options) {.service = t->svc,.auth = auth}, &t->d));
	t->sess = cf_dispatch_session_new(t->d, "test:1");
	assert_non_null(t->sess);
	t->auth = auth;
	return t;
}

static void
t_close(T *t)
{
	cf_dispatch_session_free(t->sess);
	cf_dispatch_free(t->d);
	cf_service_free(t->svc);
	cf_buf_free(&t->reply);
	cf_arena_free(t->arena);
	free(t);
}

/* Sends one raw message; the reply stays in t->reply. */
static void
raw(T *t, const void *msg, size_t len)
{
	cf_buf_reset(&t->reply);
	t->keep = cf_dispatch_handle(t->d, t->sess, cf_slice_of(msg, len), &t->reply);
	assert_true(cf_buf_ok(&t->reply));
	assert_true(t->reply.len > 0);
}

/*
 * One call of m: encode, dispatch, decode. Returns the decode status (a
 * TApplicationException shows as CF_ERR_PROTOCOL); the result points into t.
 */
static cf_status *
call(T *t, cf_t_method m, const cf_t_args *a, cf_t_result *res)
{
	cf_buf		msg = CF_BUF_INIT;
	cf_t_args	dflt = {.consistency_level = CF_T_CL_ONE};
	cf_status  *s;

	OK(cf_t_write_call(&msg, m, ++t->seqid, a ? a : &dflt));
	raw(t, msg.data, msg.len);
	cf_buf_free(&msg);
	cf_arena_free(t->arena);
	t->arena = cf_arena_new(4096);
	s = cf_t_read_reply(cf_slice_of(t->reply.data, t->reply.len), m, t->seqid, NULL,
						t->arena, res);
	return s;
}

/* A call expected to succeed without a declared exception. */
static void
ok(T *t, cf_t_method m, const cf_t_args *a, cf_t_result *res)
{
	cf_t_result tmp;

	OK(call(t, m, a, res ? res : &tmp));
	if ((res ? res : &tmp)->exception.kind != CF_T_EXC_NONE)
		fail_msg("%s: exception %d: %.*s", cf_t_method_name(m),
				 (res ? res : &tmp)->exception.kind,
				 (int) (res ? res : &tmp)->exception.why.len,
				 (const char *) (res ? res : &tmp)->exception.why.p);
	assert_true(t->keep);
}

/* A call expected to end in a declared exception whose why contains part. */
static void
fails(T *t, cf_t_method m, const cf_t_args *a, cf_t_exception_kind kind, const char *part)
{
	cf_t_result res;
	char		why[1200];

	OK(call(t, m, a, &res));
	snprintf(why, sizeof(why), "%.*s", (int) res.exception.why.len,
			 (const char *) res.exception.why.p);
	if (res.exception.kind != kind)
		fail_msg("%s: exception %d (%s), expected %d", cf_t_method_name(m),
				 res.exception.kind, why, kind);
	if (part && strstr(why, part) == NULL)
		fail_msg("%s: why \"%s\" lacks \"%s\"", cf_t_method_name(m), why, part);
	assert_true(t->keep);
}

/* A call answered by a TApplicationException whose text contains part. */
static void
app_error(T *t, cf_t_method m, const cf_t_args *a, const char *part)
{
	cf_t_result res;
	cf_status  *s = call(t, m, a, &res);

	if (cf_status_code(s) != CF_ERR_PROTOCOL || strstr(cf_status_msg(s), part) == NULL)
		fail_msg("%s: expected a TApplicationException with \"%s\", got %s", cf_t_method_name(m),
				 part, cf_status_msg(s));
	cf_status_free(s);
}

static cf_t_args
args(void)
{
	cf_t_args	a;

	memset(&a, 0, sizeof(a));
	a.consistency_level = CF_T_CL_ONE;
	return a;
}

/* ---- the seeds' schemas, through system_add_keyspace ---- */

static cf_t_cf_def
cfdef(const char *ks, const char *name, const char *type, const char *cmp, const char *sub)
{
	cf_t_cf_def d;

	memset(&d, 0, sizeof(d));
	d.keyspace = cf_slice_str(ks);
	d.name = cf_slice_str(name);
	d.has_column_type = true;
	d.column_type = cf_slice_str(type);
	d.has_comparator_type = true;
	d.comparator_type = cf_slice_str(cmp);
	if (sub)
	{
		d.has_subcomparator_type = true;
		d.subcomparator_type = cf_slice_str(sub);
	}
	return d;
}

static cf_t_column_def state_col = {
	.name = {(const uint8_t *) "state", 5},.validation_class = {(const uint8_t *) "UTF8Type", 8},
	.has_index_type = true,.index_type = CF_T_INDEX_KEYS,
};

static void
add_twitter(T *t, int rf)
{
	cf_t_cf_def cfs[3];
	cf_t_args	a = args();
	cf_t_result res;
	cf_t_result ver;

	cfs[0] = cfdef("Twitter", "Users", "Standard", "UTF8Type", NULL);
	cfs[0].has_column_metadata = true;
	cfs[0].column_metadata = &state_col;
	cfs[0].n_column_metadata = 1;
	cfs[1] = cfdef("Twitter", "Statuses", "Standard", "UTF8Type", NULL);
	cfs[2] = cfdef("Twitter", "UserTimeline", "Standard",
				   "org.apache.cassandra.db.marshal.TimeUUIDType", NULL);
	a.ks_def = (cf_t_ks_def) {.name = S("Twitter"),
		.strategy_class = S("org.apache.cassandra.locator.SimpleStrategy"),
	.replication_factor = rf,.cf_defs = cfs,.n_cf_defs = 3};
	ok(t, CF_T_M_SYSTEM_ADD_KEYSPACE, &a, &res);
	assert_int_equal(res.string.len, 36);
	{
		char		id[37];

		snprintf(id, sizeof(id), "%.*s", (int) res.string.len, (const char *) res.string.p);
		ok(t, CF_T_M_DESCRIBE_SCHEMA_VERSIONS, NULL, &ver);
		assert_int_equal(ver.n_schema_versions, 1);
		assert_true(S_EQ(ver.schema_versions[0].version, id));
		assert_int_equal(ver.schema_versions[0].n_hosts, 1);
		assert_true(S_EQ(ver.schema_versions[0].hosts[0], "127.0.0.9"));
	}
}

static void
set_ks(T *t, const char *ks)
{
	cf_t_args	a = args();

	a.keyspace = cf_slice_str(ks);
	ok(t, CF_T_M_SET_KEYSPACE, &a, NULL);
}

static void
insert(T *t, const char *cf, cf_slice key, cf_slice name, cf_slice value, int64_t ts)
{
	cf_t_args	a = args();

	a.key = key;
	a.column_parent.column_family = cf_slice_str(cf);
	a.column = (cf_t_column) {.name = name,.value = value,.timestamp = ts};
	ok(t, CF_T_M_INSERT, &a, NULL);
}

/* A v1 time UUID at µs (the node bytes fixed). */
static cf_slice
tuuid(uint8_t buf[16], int64_t us)
{
	static const uint8_t node[6] = {1, 2, 3, 4, 5, 6};

	assert_true(cf_uuid_v1_from_micros(us, 7, node, buf));
	return cf_slice_of(buf, 16);
}

static int
setup(void **state)
{
	return db_fixture_setup(state);
}

static int
teardown(void **state)
{
	return db_fixture_teardown(state);
}

/* ---------------------------------------------------------------- tests */

static void
describe_methods(void **state)
{
	T		   *t = t_open(*state, NULL, 0);
	cf_t_result r;
	cf_t_args	a = args();

	ok(t, CF_T_M_DESCRIBE_VERSION, NULL, &r);
	assert_true(S_EQ(r.string, "19.4.0"));
	ok(t, CF_T_M_DESCRIBE_CLUSTER_NAME, NULL, &r);
	assert_true(S_EQ(r.string, "Test Cluster"));
	ok(t, CF_T_M_DESCRIBE_PARTITIONER, NULL, &r);
	assert_true(S_EQ(r.string, "org.apache.cassandra.dht.RandomPartitioner"));
	ok(t, CF_T_M_DESCRIBE_SNITCH, NULL, &r);
	assert_true(S_EQ(r.string, "org.apache.cassandra.locator.SimpleSnitch"));

	add_twitter(t, 1);
	ok(t, CF_T_M_DESCRIBE_KEYSPACES, NULL, &r);
	{
		bool		found = false,
					found_system = false;

		for (size_t i = 0; i < r.n_ks_defs; i++)
			if (S_EQ(r.ks_defs[i].name, "Twitter"))
			{
				found = true;
				assert_int_equal(r.ks_defs[i].n_cf_defs, 3);
				assert_true(S_EQ(r.ks_defs[i].strategy_class,
									 "org.apache.cassandra.locator.SimpleStrategy"));
			}
			else if (S_EQ(r.ks_defs[i].name, "system"))
			{
				/* listed as 0.7 listed it, with none of colfam's own tables */
				found_system = true;
				assert_true(S_EQ(r.ks_defs[i].strategy_class,
									 "org.apache.cassandra.locator.LocalStrategy"));
				assert_int_equal(r.ks_defs[i].replication_factor, 1);
				assert_int_equal(r.ks_defs[i].n_cf_defs, 0);
			}
		assert_true(found);
		assert_true(found_system);
		assert_int_equal(r.n_ks_defs, 2);
	}
	a.keyspace = S("system");
	ok(t, CF_T_M_DESCRIBE_KEYSPACE, &a, &r);
	assert_true(S_EQ(r.ks_def.name, "system"));
	assert_int_equal(r.ks_def.n_cf_defs, 0);
	a.keyspace = S("Twitter");
	ok(t, CF_T_M_DESCRIBE_KEYSPACE, &a, &r);
	assert_true(S_EQ(r.ks_def.name, "Twitter"));
	assert_int_equal(r.ks_def.replication_factor, 1);
	for (size_t i = 0; i < r.ks_def.n_cf_defs; i++)
		if (S_EQ(r.ks_def.cf_defs[i].name, "UserTimeline"))
			assert_true(S_EQ(r.ks_def.cf_defs[i].comparator_type,
								 "org.apache.cassandra.db.marshal.TimeUUIDType"));
		else if (S_EQ(r.ks_def.cf_defs[i].name, "Users"))
		{
			assert_int_equal(r.ks_def.cf_defs[i].n_column_metadata, 1);
			assert_true(r.ks_def.cf_defs[i].column_metadata[0].has_index_type);
		}
	a.keyspace = S("Nope");
	fails(t, CF_T_M_DESCRIBE_KEYSPACE, &a, CF_T_EXC_NOT_FOUND, NULL);

	a.keyspace = S("Twitter");
	ok(t, CF_T_M_DESCRIBE_RING, &a, &r);
	assert_int_equal(r.n_token_ranges, 1);
	assert_true(S_EQ(r.token_ranges[0].start_token, "0"));
	assert_true(S_EQ(r.token_ranges[0].end_token, "0"));
	assert_true(S_EQ(r.token_ranges[0].endpoints[0], "127.0.0.9"));
	a.keyspace = S("Nope");
	fails(t, CF_T_M_DESCRIBE_RING, &a, CF_T_EXC_INVALID_REQUEST, "Keyspace Nope does not exist");

	/* describe_splits takes the session's keyspace */
	a = args();
	a.cfname = S("Users");
	a.start_token = S("0");
	a.end_token = S("0");
	a.keys_per_split = 100;
	app_error(t, CF_T_M_DESCRIBE_SPLITS, &a, "You have not set a keyspace");
	set_ks(t, "Twitter");
	ok(t, CF_T_M_DESCRIBE_SPLITS, &a, &r);
	assert_int_equal(r.n_strings, 2);	/* nothing flushed: (start, end] whole */
	assert_true(S_EQ(r.strings[0], "0"));
	a.keys_per_split = 0;
	app_error(t, CF_T_M_DESCRIBE_SPLITS, &a, "keys_per_split");

	/* a client may choose system, as in 0.7; it has no column family to read or write */
	set_ks(t, "system");
	a = args();
	a.key = S("k");
	a.column_parent.column_family = S("Schema");
	a.predicate.has_slice_range = true;
	a.predicate.slice_range = (cf_t_slice_range) {.count = 10};
	fails(t, CF_T_M_GET_SLICE, &a, CF_T_EXC_INVALID_REQUEST, "unconfigured columnfamily Schema");
	a.column = (cf_t_column) {.name = S("n"),.value = S("v"),.timestamp = 1};
	fails(t, CF_T_M_INSERT, &a, CF_T_EXC_INVALID_REQUEST, "unconfigured columnfamily Schema");
	t_close(t);
}

static void
schema_changes(void **state)
{
	T		   *t = t_open(*state, NULL, 0);
	cf_t_args	a = args();
	cf_t_result r1,
				r2;
	cf_t_cf_def d = cfdef("Twitter", "Extra", "Standard", "BytesType", NULL);

	add_twitter(t, 1);
	a.cf_def = d;
	ok(t, CF_T_M_SYSTEM_ADD_COLUMN_FAMILY, &a, &r1);
	fails(t, CF_T_M_SYSTEM_ADD_COLUMN_FAMILY, &a, CF_T_EXC_INVALID_REQUEST, "Extra");
	a.cf_def.has_comment = true;
	a.cf_def.comment = S("now with a comment");
	ok(t, CF_T_M_SYSTEM_UPDATE_COLUMN_FAMILY, &a, &r2);
	assert_false(cf_slice_eq(r1.string, r2.string));
	a.cf_def.comparator_type = S("LongType");
	fails(t, CF_T_M_SYSTEM_UPDATE_COLUMN_FAMILY, &a, CF_T_EXC_INVALID_REQUEST, "compar");
	a.cf_def = cfdef("Nope", "X", "Standard", "BytesType", NULL);
	fails(t, CF_T_M_SYSTEM_ADD_COLUMN_FAMILY, &a, CF_T_EXC_INVALID_REQUEST,
		  "Keyspace Nope does not exist");
	a.cf_def = cfdef("Twitter", "Y", "Standard", "NoSuchType", NULL);
	fails(t, CF_T_M_SYSTEM_ADD_COLUMN_FAMILY, &a, CF_T_EXC_INVALID_REQUEST, "NoSuchType");

	a = args();
	a.cfname = S("Extra");
	fails(t, CF_T_M_SYSTEM_DROP_COLUMN_FAMILY, &a, CF_T_EXC_INVALID_REQUEST,
		  "You have not set a keyspace");
	set_ks(t, "Twitter");
	ok(t, CF_T_M_SYSTEM_DROP_COLUMN_FAMILY, &a, NULL);
	fails(t, CF_T_M_SYSTEM_DROP_COLUMN_FAMILY, &a, CF_T_EXC_INVALID_REQUEST, "Extra");

	a = args();
	a.ks_def = (cf_t_ks_def) {.name = S("Twitter"),.strategy_class = S("SimpleStrategy"),
	.replication_factor = 2};
	ok(t, CF_T_M_SYSTEM_UPDATE_KEYSPACE, &a, NULL);
	a.ks_def.strategy_class = S("NoStrategy");
	fails(t, CF_T_M_SYSTEM_UPDATE_KEYSPACE, &a, CF_T_EXC_INVALID_REQUEST, "NoStrategy");
	a.ks_def.strategy_class = S("SimpleStrategy");
	a.ks_def.cf_defs = &d;
	a.ks_def.n_cf_defs = 1;
	fails(t, CF_T_M_SYSTEM_UPDATE_KEYSPACE, &a, CF_T_EXC_INVALID_REQUEST, "column family");
	a.ks_def.name = S("Other");
	fails(t, CF_T_M_SYSTEM_ADD_KEYSPACE, &a, CF_T_EXC_INVALID_REQUEST, "did not match");

	a = args();
	a.keyspace = S("Twitter");
	ok(t, CF_T_M_SYSTEM_DROP_KEYSPACE, &a, NULL);
	fails(t, CF_T_M_SYSTEM_DROP_KEYSPACE, &a, CF_T_EXC_INVALID_REQUEST, "Twitter");
	fails(t, CF_T_M_SET_KEYSPACE, &a, CF_T_EXC_INVALID_REQUEST, "Keyspace Twitter does not exist");
	t_close(t);
}

/* The Twissandra example: users, statuses and a reversed TimeUUID timeline. */
static void
twitter_end_to_end(void **state)
{
	T		   *t = t_open(*state, NULL, 0);
	cf_t_args	a;
	cf_t_result r;
	uint8_t		u[5][16];
	int64_t		base = INT64_C(1300000000000000);

	add_twitter(t, 1);
	set_ks(t, "Twitter");
	insert(t, "Users", S("ericflo"), S("password"), S("****"), 1);
	insert(t, "Users", S("ericflo"), S("state"), S("TX"), 1);
	insert(t, "Users", S("jbellis"), S("state"), S("TX"), 1);
	insert(t, "Users", S("dozer"), S("state"), S("UT"), 1);
	for (int i = 0; i < 5; i++)
	{
		char		id[16];

		snprintf(id, sizeof(id), "st%d", i % 10);
		insert(t, "Statuses", S(id), S("body"), S("hello"), 1);
		insert(t, "UserTimeline", S("ericflo"), tuuid(u[i], base + i * 1000), S(id), 1);
	}

	/* newest two, as the front page asks: reversed, count 2 */
	a = args();
	a.key = S("ericflo");
	a.column_parent.column_family = S("UserTimeline");
	a.predicate.has_slice_range = true;
	a.predicate.slice_range = (cf_t_slice_range) {.reversed = true,.count = 2};
	ok(t, CF_T_M_GET_SLICE, &a, &r);
	assert_int_equal(r.n_coscs, 2);
	assert_true(r.coscs[0].has_column && !r.coscs[0].has_super_column);
	assert_true(S_EQ(r.coscs[0].column.value, "st4"));
	assert_true(S_EQ(r.coscs[1].column.value, "st3"));
	a.predicate.slice_range.count = 100;
	ok(t, CF_T_M_GET_COUNT, &a, &r);
	assert_int_equal(r.count, 5);

	/* get, and the only NotFoundException */
	a = args();
	a.key = S("ericflo");
	a.column_path.column_family = S("Users");
	a.column_path.has_column = true;
	a.column_path.column = S("state");
	ok(t, CF_T_M_GET, &a, &r);
	assert_true(r.cosc.has_column);
	assert_true(S_EQ(r.cosc.column.value, "TX"));
	assert_int_equal(r.cosc.column.timestamp, 1);
	a.column_path.column = S("zip");
	fails(t, CF_T_M_GET, &a, CF_T_EXC_NOT_FOUND, NULL);

	/* multiget_slice and multiget_count */
	{
		cf_slice	keys[3] = {S("jbellis"), S("ericflo"), S("nobody")};

		a = args();
		a.keys = keys;
		a.n_keys = 3;
		a.column_parent.column_family = S("Users");
		a.predicate.has_slice_range = true;
		a.predicate.slice_range.count = 100;
		ok(t, CF_T_M_MULTIGET_SLICE, &a, &r);
		assert_int_equal(r.n_key_coscs, 3);
		assert_true(S_EQ(r.key_coscs[1].key, "ericflo"));
		assert_int_equal(r.key_coscs[1].n_columns, 2);
		assert_int_equal(r.key_coscs[2].n_columns, 0);
		ok(t, CF_T_M_MULTIGET_COUNT, &a, &r);
		assert_int_equal(r.n_key_counts, 3);
		assert_int_equal(r.key_counts[0].count, 1);
		assert_int_equal(r.key_counts[1].count, 2);
	}

	/* get_range_slices over the whole ring by tokens, then by keys */
	a = args();
	a.column_parent.column_family = S("Users");
	a.predicate.has_slice_range = true;
	a.predicate.slice_range.count = 100;
	a.range = (cf_t_key_range) {.has_start_token = true,.start_token = S("0"),
	.has_end_token = true,.end_token = S("0"),.count = 100};
	ok(t, CF_T_M_GET_RANGE_SLICES, &a, &r);
	assert_int_equal(r.n_key_slices, 3);
	a.range = (cf_t_key_range) {.has_start_key = true,.start_key = r.key_slices[1].key,
	.has_end_key = true,.end_key = S(""),.count = 100};
	ok(t, CF_T_M_GET_RANGE_SLICES, &a, &r);
	assert_int_equal(r.n_key_slices, 2);

	/* get_indexed_slices: state = 'TX' */
	{
		cf_t_index_expression e = {.column_name = S("state"),.op = CF_T_OP_EQ,
		.value = S("TX")};

		a = args();
		a.column_parent.column_family = S("Users");
		a.predicate.has_column_names = true;
		a.predicate.column_names = &e.column_name;
		a.predicate.n_column_names = 1;
		a.index_clause = (cf_t_index_clause) {.expressions = &e,.n_expressions = 1,
		.count = 100};
		ok(t, CF_T_M_GET_INDEXED_SLICES, &a, &r);
		assert_int_equal(r.n_key_slices, 2);
		for (size_t i = 0; i < r.n_key_slices; i++)
		{
			assert_int_equal(r.key_slices[i].n_columns, 1);
			assert_true(S_EQ(r.key_slices[i].columns[0].column.value, "TX"));
		}
		e.column_name = S("password");
		fails(t, CF_T_M_GET_INDEXED_SLICES, &a, CF_T_EXC_INVALID_REQUEST,
			  "needs an EQ expression on an indexed column");
	}

	/* remove a column, then a row; then truncate */
	a = args();
	a.key = S("ericflo");
	a.column_path.column_family = S("Users");
	a.column_path.has_column = true;
	a.column_path.column = S("state");
	a.timestamp = 2;
	ok(t, CF_T_M_REMOVE, &a, NULL);
	fails(t, CF_T_M_GET, &a, CF_T_EXC_NOT_FOUND, NULL);
	a.column_path.has_column = false;
	a.column_path.column_family = S("UserTimeline");
	ok(t, CF_T_M_REMOVE, &a, NULL);
	a = args();
	a.key = S("ericflo");
	a.column_parent.column_family = S("UserTimeline");
	a.predicate.has_slice_range = true;
	a.predicate.slice_range.count = 100;
	ok(t, CF_T_M_GET_COUNT, &a, &r);
	assert_int_equal(r.count, 0);
	a = args();
	a.cfname = S("Users");
	ok(t, CF_T_M_TRUNCATE, &a, NULL);
	a.cfname = S("Nope");
	fails(t, CF_T_M_TRUNCATE, &a, CF_T_EXC_INVALID_REQUEST, "unconfigured columnfamily Nope");
	t_close(t);
}

/* BloggyAppy: TaggedPosts (TimeUUID names) and Comments, a super CF, via batch_mutate. */
static void
bloggyappy_super_columns(void **state)
{
	T		   *t = t_open(*state, NULL, 0);
	cf_t_args	a = args();
	cf_t_result r;
	cf_t_cf_def cfs[2] = {
		cfdef("BloggyAppy", "TaggedPosts", "Standard", "TimeUUIDType", NULL),
		cfdef("BloggyAppy", "Comments", "Super", "TimeUUIDType", "UTF8Type"),
	};
	uint8_t		u[3][16];
	cf_t_column sub[3][2];
	cf_t_mutation muts[3];
	cf_t_mutation tag;
	cf_t_cf_mutations cfm[2];
	cf_t_key_mutations km[2];

	a.ks_def = (cf_t_ks_def) {.name = S("BloggyAppy"),.strategy_class = S("SimpleStrategy"),
	.replication_factor = 1,.cf_defs = cfs,.n_cf_defs = 2};
	ok(t, CF_T_M_SYSTEM_ADD_KEYSPACE, &a, NULL);
	set_ks(t, "BloggyAppy");

	for (int i = 0; i < 3; i++)
	{
		sub[i][0] = (cf_t_column) {.name = S("commenter"),.value = S("bob"),.timestamp = 1};
		sub[i][1] = (cf_t_column) {.name = S("text"),.value = S("nice"),.timestamp = 1};
		memset(&muts[i], 0, sizeof(muts[i]));
		muts[i].has_cosc = true;
		muts[i].cosc.has_super_column = true;
		muts[i].cosc.super_column = (cf_t_super_column) {
			.name = tuuid(u[i], INT64_C(1300000000000000) + i),.columns = sub[i],.n_columns = 2,
		};
	}
	memset(&tag, 0, sizeof(tag));
	tag.has_cosc = true;
	tag.cosc.has_column = true;
	tag.cosc.column = (cf_t_column) {.name = cf_slice_of(u[0], 16),.value = S("first-post"),
	.timestamp = 1};
	cfm[0] = (cf_t_cf_mutations) {.column_family = S("Comments"),.mutations = muts,
	.n_mutations = 3};
	cfm[1] = (cf_t_cf_mutations) {.column_family = S("TaggedPosts"),.mutations = &tag,
	.n_mutations = 1};
	km[0] = (cf_t_key_mutations) {.key = S("first-post"),.cfs = cfm,.n_cfs = 1};
	km[1] = (cf_t_key_mutations) {.key = S("__notag__"),.cfs = &cfm[1],.n_cfs = 1};
	a = args();
	a.mutation_map = km;
	a.n_mutation_map = 2;
	ok(t, CF_T_M_BATCH_MUTATE, &a, NULL);

	/* the super columns, newest first, each with its sub-columns */
	a = args();
	a.key = S("first-post");
	a.column_parent.column_family = S("Comments");
	a.predicate.has_slice_range = true;
	a.predicate.slice_range = (cf_t_slice_range) {.reversed = true,.count = 10};
	ok(t, CF_T_M_GET_SLICE, &a, &r);
	assert_int_equal(r.n_coscs, 3);
	assert_true(r.coscs[0].has_super_column);
	assert_memory_equal(r.coscs[0].super_column.name.p, u[2], 16);
	assert_int_equal(r.coscs[0].super_column.n_columns, 2);
	/* one super column's sub-columns */
	a.column_parent.has_super_column = true;
	a.column_parent.super_column = cf_slice_of(u[1], 16);
	ok(t, CF_T_M_GET_SLICE, &a, &r);
	assert_int_equal(r.n_coscs, 2);
	assert_true(r.coscs[0].has_column);
	/* get of a whole super column */
	a = args();
	a.key = S("first-post");
	a.column_path.column_family = S("Comments");
	a.column_path.has_super_column = true;
	a.column_path.super_column = cf_slice_of(u[1], 16);
	ok(t, CF_T_M_GET, &a, &r);
	assert_true(r.cosc.has_super_column);
	assert_int_equal(r.cosc.super_column.n_columns, 2);

	/* a range deletion (colfam extension): the two oldest comments */
	{
		cf_t_mutation del;

		memset(&del, 0, sizeof(del));
		del.has_deletion = true;
		del.deletion.timestamp = 2;
		del.deletion.has_predicate = true;
		del.deletion.predicate.has_slice_range = true;
		del.deletion.predicate.slice_range = (cf_t_slice_range) {
			.start = S(""),.finish = cf_slice_of(u[1], 16),.count = 100,
		};
		cfm[0] = (cf_t_cf_mutations) {.column_family = S("Comments"),.mutations = &del,
		.n_mutations = 1};
		a = args();
		a.mutation_map = km;
		a.n_mutation_map = 1;
		ok(t, CF_T_M_BATCH_MUTATE, &a, NULL);
		a = args();
		a.key = S("first-post");
		a.column_parent.column_family = S("Comments");
		a.predicate.has_slice_range = true;
		a.predicate.slice_range.count = 10;
		ok(t, CF_T_M_GET_SLICE, &a, &r);
		assert_int_equal(r.n_coscs, 1);
		assert_memory_equal(r.coscs[0].super_column.name.p, u[2], 16);

		/* deleting one sub-column by name */
		del.deletion.timestamp = 3;
		del.deletion.has_super_column = true;
		del.deletion.super_column = cf_slice_of(u[2], 16);
		del.deletion.predicate = (cf_t_slice_predicate) {.has_column_names = true,
		.column_names = &sub[0][1].name,.n_column_names = 1};
		a = args();
		a.mutation_map = km;
		a.n_mutation_map = 1;
		ok(t, CF_T_M_BATCH_MUTATE, &a, NULL);
		a = args();
		a.key = S("first-post");
		a.column_parent.column_family = S("Comments");
		a.predicate.has_slice_range = true;
		a.predicate.slice_range.count = 10;
		ok(t, CF_T_M_GET_SLICE, &a, &r);
		assert_int_equal(r.coscs[0].super_column.n_columns, 1);
		assert_true(S_EQ(r.coscs[0].super_column.columns[0].name, "commenter"));
	}
	t_close(t);
}

static void
invalid_requests(void **state)
{
	T		   *t = t_open(*state, NULL, 0);
	cf_t_args	a = args();
	cf_t_mutation m;
	cf_t_cf_mutations cfm;
	cf_t_key_mutations km;
	cf_t_cf_def longcf = cfdef("Twitter", "Counts", "Standard", "LongType", NULL);

	/* no keyspace yet */
	a.key = S("k");
	a.column_parent.column_family = S("Users");
	a.predicate.has_slice_range = true;
	a.predicate.slice_range.count = 10;
	fails(t, CF_T_M_GET_SLICE, &a, CF_T_EXC_INVALID_REQUEST,
		  "You have not set a keyspace for this session");
	a = args();
	a.keyspace = S("Foo");
	fails(t, CF_T_M_SET_KEYSPACE, &a, CF_T_EXC_INVALID_REQUEST, "Keyspace Foo does not exist");

	add_twitter(t, 3);
	a = args();
	a.cf_def = longcf;
	ok(t, CF_T_M_SYSTEM_ADD_COLUMN_FAMILY, &a, NULL);
	set_ks(t, "Twitter");

	a = args();
	a.key = S("k");
	a.column_parent.column_family = S("Nope");
	a.predicate.has_slice_range = true;
	a.predicate.slice_range.count = 10;
	fails(t, CF_T_M_GET_SLICE, &a, CF_T_EXC_INVALID_REQUEST, "unconfigured columnfamily Nope");
	a.column_parent.column_family = S("Users");
	a.column_parent.has_super_column = true;
	a.column_parent.super_column = S("sc");
	fails(t, CF_T_M_GET_SLICE, &a, CF_T_EXC_INVALID_REQUEST, "standard CF Users");
	a.column_parent.has_super_column = false;
	a.predicate.slice_range.count = -1;
	fails(t, CF_T_M_GET_SLICE, &a, CF_T_EXC_INVALID_REQUEST, "non-negative count");
	a.predicate.slice_range = (cf_t_slice_range) {.start = S("z"),.finish = S("a"),.count = 5};
	fails(t, CF_T_M_GET_SLICE, &a, CF_T_EXC_INVALID_REQUEST, NULL);
	a.predicate.has_slice_range = false;
	fails(t, CF_T_M_GET_SLICE, &a, CF_T_EXC_INVALID_REQUEST, "SlicePredicate");
	a.predicate.has_slice_range = true;
	a.predicate.slice_range = (cf_t_slice_range) {.count = 5};
	a.consistency_level = CF_T_CL_ANY;
	fails(t, CF_T_M_GET_SLICE, &a, CF_T_EXC_INVALID_REQUEST, "read operations");
	a.consistency_level = CF_T_CL_LOCAL_QUORUM;
	fails(t, CF_T_M_GET_SLICE, &a, CF_T_EXC_INVALID_REQUEST, "not compatible");
	a.consistency_level = CF_T_CL_QUORUM;	/* rf 3 on one node */
	fails(t, CF_T_M_GET_SLICE, &a, CF_T_EXC_UNAVAILABLE, NULL);
	a.consistency_level = 99;
	fails(t, CF_T_M_GET_SLICE, &a, CF_T_EXC_INVALID_REQUEST, "consistency level");
	a.consistency_level = CF_T_CL_ONE;
	a.key = S("");
	fails(t, CF_T_M_GET_SLICE, &a, CF_T_EXC_INVALID_REQUEST, "Key may not be empty");

	/* column names: 7-byte LongType, empty, over 64 KiB, invalid UTF-8 */
	a = args();
	a.key = S("k");
	a.column_parent.column_family = S("Counts");
	a.column = (cf_t_column) {.name = S("7bytes!"),.value = S("v"),.timestamp = 1};
	fails(t, CF_T_M_INSERT, &a, CF_T_EXC_INVALID_REQUEST, "LongType");
	a.column_parent.column_family = S("Users");
	a.column.name = S("");
	fails(t, CF_T_M_INSERT, &a, CF_T_EXC_INVALID_REQUEST, "empty");
	{
		uint8_t    *big = calloc(1, 70000);

		memset(big, 'a', 70000);
		a.column.name = cf_slice_of(big, 70000);
		fails(t, CF_T_M_INSERT, &a, CF_T_EXC_INVALID_REQUEST, NULL);
		free(big);
	}
	a.column.name = cf_slice_of("\xff\xfe", 2);
	fails(t, CF_T_M_INSERT, &a, CF_T_EXC_INVALID_REQUEST, "UTF-8");
	a.column.name = S("name");
	a.column.has_ttl = true;
	a.column.ttl = 0;
	fails(t, CF_T_M_INSERT, &a, CF_T_EXC_INVALID_REQUEST, "ttl");
	a.column.has_ttl = false;
	a.consistency_level = CF_T_CL_ALL;
	fails(t, CF_T_M_INSERT, &a, CF_T_EXC_UNAVAILABLE, NULL);

	/* get paths */
	a = args();
	a.key = S("k");
	a.column_path.column_family = S("Users");
	fails(t, CF_T_M_GET, &a, CF_T_EXC_INVALID_REQUEST, "column parameter is not optional");
	a.column_path.has_super_column = true;
	a.column_path.super_column = S("x");
	fails(t, CF_T_M_GET, &a, CF_T_EXC_INVALID_REQUEST, "supercolumn parameter is invalid");

	/* batch_mutate shapes */
	memset(&m, 0, sizeof(m));
	cfm = (cf_t_cf_mutations) {.column_family = S("Users"),.mutations = &m,.n_mutations = 1};
	km = (cf_t_key_mutations) {.key = S("k"),.cfs = &cfm,.n_cfs = 1};
	a = args();
	a.mutation_map = &km;
	a.n_mutation_map = 1;
	fails(t, CF_T_M_BATCH_MUTATE, &a, CF_T_EXC_INVALID_REQUEST, "one and only one");
	m.has_cosc = true;
	fails(t, CF_T_M_BATCH_MUTATE, &a, CF_T_EXC_INVALID_REQUEST,
		  "ColumnOrSuperColumn must have one (and only one)");
	m.cosc.has_column = m.cosc.has_super_column = true;
	m.cosc.column = (cf_t_column) {.name = S("a"),.value = S("b"),.timestamp = 1};
	fails(t, CF_T_M_BATCH_MUTATE, &a, CF_T_EXC_INVALID_REQUEST, "only one");
	m.cosc.has_column = false;
	fails(t, CF_T_M_BATCH_MUTATE, &a, CF_T_EXC_INVALID_REQUEST, "SuperColumn is invalid");
	memset(&m, 0, sizeof(m));
	m.has_deletion = true;
	m.deletion.has_super_column = true;
	m.deletion.super_column = S("sc");
	fails(t, CF_T_M_BATCH_MUTATE, &a, CF_T_EXC_INVALID_REQUEST, "standard CF Users");
	cfm.column_family = S("Nope");
	fails(t, CF_T_M_BATCH_MUTATE, &a, CF_T_EXC_INVALID_REQUEST, "unconfigured columnfamily");

	/* key ranges */
	a = args();
	a.column_parent.column_family = S("Users");
	a.predicate.has_slice_range = true;
	a.predicate.slice_range.count = 10;
	a.range = (cf_t_key_range) {.count = 10};
	fails(t, CF_T_M_GET_RANGE_SLICES, &a, CF_T_EXC_INVALID_REQUEST, "exactly one of");
	a.range = (cf_t_key_range) {.has_start_key = true,.has_end_key = true,
		.has_start_token = true,.has_end_token = true,.start_token = S("0"),
	.end_token = S("0"),.count = 10};
	fails(t, CF_T_M_GET_RANGE_SLICES, &a, CF_T_EXC_INVALID_REQUEST, "exactly one of");
	a.range = (cf_t_key_range) {.has_start_key = true,.has_end_token = true,
	.end_token = S("0"),.count = 10};
	fails(t, CF_T_M_GET_RANGE_SLICES, &a, CF_T_EXC_INVALID_REQUEST, "not supported");
	a.range = (cf_t_key_range) {.has_start_token = true,.has_end_token = true,
	.start_token = S("abc"),.end_token = S("0"),.count = 10};
	fails(t, CF_T_M_GET_RANGE_SLICES, &a, CF_T_EXC_INVALID_REQUEST, "start_token");
	a.range.start_token = S("0");
	a.range.count = 0;
	fails(t, CF_T_M_GET_RANGE_SLICES, &a, CF_T_EXC_INVALID_REQUEST, "maxRows");
	t_close(t);
}

static void
timeouts_are_timed_out_exceptions(void **state)
{
	T		   *setup_t = t_open(*state, NULL, 0);
	T		   *t;
	cf_t_args	a = args();

	add_twitter(setup_t, 1);
	t_close(setup_t);
	t = t_open(*state, NULL, 1);	/* 1 µs */
	set_ks(t, "Twitter");
	a.key = S("k");
	a.column_parent.column_family = S("Users");
	a.column = (cf_t_column) {.name = S("a"),.value = S("b"),.timestamp = 1};
	fails(t, CF_T_M_INSERT, &a, CF_T_EXC_TIMED_OUT, NULL);
	t_close(t);
}

/* The byte offset just past a strict header "name" with seqid: for hand-made frames. */
static size_t
header(uint8_t *p, const char *name, uint32_t type, int32_t seqid)
{
	size_t		n = strlen(name);

	cf_store_be32(p, 0x80010000u | type);
	cf_store_be32(p + 4, (uint32_t) n);
	memcpy(p + 8, name, n);
	cf_store_be32(p + 8 + n, (uint32_t) seqid);
	return 12 + n;
}

static void
expect_app_exception(T *t, const char *type_name, bool keep)
{
	cf_arena   *ar = cf_arena_new(1024);
	cf_t_result res;
	cf_status  *s = cf_t_read_reply(cf_slice_of(t->reply.data, t->reply.len),
									CF_T_M_DESCRIBE_VERSION, 0, NULL, ar, &res);

	if (cf_status_code(s) != CF_ERR_PROTOCOL || strstr(cf_status_msg(s), type_name) == NULL)
		fail_msg("expected a TApplicationException %s, got %s", type_name, cf_status_msg(s));
	cf_status_free(s);
	cf_arena_free(ar);
	assert_int_equal(t->keep, keep);
}

static void
garbage_and_truncated_messages(void **state)
{
	T		   *t = t_open(*state, NULL, 0);
	uint8_t		msg[256];
	size_t		n;
	cf_buf		call_msg = CF_BUF_INIT;
	cf_t_args	a = args();

	raw(t, "\x00\x01garbage", 9);
	expect_app_exception(t, "PROTOCOL_ERROR", false);
	raw(t, "", 0);
	expect_app_exception(t, "PROTOCOL_ERROR", false);

	n = header(msg, "no_such_method", CF_T_CALL, 7);
	msg[n++] = 0;				/* STOP */
	raw(t, msg, n);
	expect_app_exception(t, "UNKNOWN_METHOD", true);
	assert_non_null(memmem(t->reply.data, t->reply.len, "no_such_method", 14));

	n = header(msg, "describe_version", CF_T_REPLY, 7);
	msg[n++] = 0;
	raw(t, msg, n);
	expect_app_exception(t, "INVALID_MESSAGE_TYPE", false);

	/*
	 * every prefix of a real call is refused, never crashes: one without a whole
	 * header closes the connection, one whose arguments are cut short does not
	 */
	a.key = S("some-key");
	a.column_parent.column_family = S("Users");
	a.column = (cf_t_column) {.name = S("n"),.value = S("v"),.timestamp = 5};
	OK(cf_t_write_call(&call_msg, CF_T_M_INSERT, 1, &a));
	n = 12 + strlen("insert");	/* the header */
	for (size_t len = 0; len < call_msg.len; len++)
	{
		uint8_t    *copy = malloc(len + 1);	/* exact size, so ASan sees overreads */

		memcpy(copy, call_msg.data, len);
		cf_buf_reset(&t->reply);
		t->keep = cf_dispatch_handle(t->d, t->sess, cf_slice_of(copy, len), &t->reply);
		assert_int_equal(t->keep, len >= n);
		assert_true(t->reply.len > 0);
		free(copy);
	}
	cf_buf_free(&call_msg);

	/* a whole call lacking a required field: PROTOCOL_ERROR, the connection kept */
	n = header(msg, "remove", CF_T_CALL, 8);
	msg[n++] = 11;				/* key: STRING, id 1 */
	msg[n++] = 0;
	msg[n++] = 1;
	cf_store_be32(msg + n, 1);
	n += 4;
	msg[n++] = 'k';
	msg[n++] = 0;				/* STOP: no column_path, no timestamp */
	raw(t, msg, n);
	expect_app_exception(t, "PROTOCOL_ERROR", true);
	assert_non_null(memmem(t->reply.data, t->reply.len, "required field", 14));

	/* a session still works after all that */
	{
		cf_t_result r;

		ok(t, CF_T_M_DESCRIBE_VERSION, NULL, &r);
		assert_true(S_EQ(r.string, "19.4.0"));
	}
	t_close(t);
}

static void
sessions_keep_their_own_keyspace(void **state)
{
	T		   *t = t_open(*state, NULL, 0);
	cf_dispatch_session *other = cf_dispatch_session_new(t->d, "test:2");
	cf_dispatch_session *mine = t->sess;
	cf_t_args	a = args();

	add_twitter(t, 1);
	set_ks(t, "Twitter");
	a.key = S("k");
	a.column_parent.column_family = S("Users");
	a.predicate.has_slice_range = true;
	a.predicate.slice_range.count = 10;
	ok(t, CF_T_M_GET_SLICE, &a, NULL);
	t->sess = other;
	fails(t, CF_T_M_GET_SLICE, &a, CF_T_EXC_INVALID_REQUEST, "You have not set a keyspace");
	t->sess = mine;
	ok(t, CF_T_M_GET_SLICE, &a, NULL);
	cf_dispatch_session_free(other);
	t_close(t);
}

/*
 * cf_dispatch_cf_is_super, the route's question: a Super CF of the session's own
 * keyspace in the schema as it is now; false for everything else.
 */
static void
cf_is_super_asks_the_session_keyspace(void **state)
{
	T		   *t = t_open(*state, NULL, 0);
	cf_dispatch_session *other = cf_dispatch_session_new(t->d, "test:2");
	cf_t_args	a = args();
	cf_t_cf_def cfs[2] = {
		cfdef("BloggyAppy", "TaggedPosts", "Standard", "TimeUUIDType", NULL),
		cfdef("BloggyAppy", "Comments", "Super", "TimeUUIDType", "UTF8Type"),
	};
	char		longname[CF_SCHEMA_NAME_MAX + 2];

	assert_non_null(other);
	assert_false(cf_dispatch_cf_is_super(t->d, t->sess, S("Comments")));
	a.ks_def = (cf_t_ks_def) {.name = S("BloggyAppy"),.strategy_class = S("SimpleStrategy"),
	.replication_factor = 1,.cf_defs = cfs,.n_cf_defs = 2};
	ok(t, CF_T_M_SYSTEM_ADD_KEYSPACE, &a, NULL);
	add_twitter(t, 1);
	/* no keyspace yet */
	assert_false(cf_dispatch_cf_is_super(t->d, t->sess, S("Comments")));
	assert_false(cf_dispatch_cf_is_super(t->d, NULL, S("Comments")));
	set_ks(t, "BloggyAppy");
	assert_true(cf_dispatch_cf_is_super(t->d, t->sess, S("Comments")));
	assert_false(cf_dispatch_cf_is_super(t->d, t->sess, S("TaggedPosts")));
	assert_false(cf_dispatch_cf_is_super(t->d, other, S("Comments")));
	/* names no CF has */
	assert_false(cf_dispatch_cf_is_super(t->d, t->sess, S("Nope")));
	assert_false(cf_dispatch_cf_is_super(t->d, t->sess, S("")));
	assert_false(cf_dispatch_cf_is_super(t->d, t->sess, cf_slice_of("Comments\0x", 10)));
	assert_false(cf_dispatch_cf_is_super(t->d, t->sess, cf_slice_of("Comments", 7)));
	memset(longname, 'C', sizeof(longname));
	assert_false(cf_dispatch_cf_is_super(t->d, t->sess, cf_slice_of(longname,
																	 sizeof(longname))));
	/* another keyspace's, and the system keyspace (no CF) */
	set_ks(t, "Twitter");
	assert_false(cf_dispatch_cf_is_super(t->d, t->sess, S("Comments")));
	set_ks(t, "system");
	assert_false(cf_dispatch_cf_is_super(t->d, t->sess, S("Comments")));
	/* schema changes are seen at once: dropped, back as Standard, back as Super */
	set_ks(t, "BloggyAppy");
	a = args();
	a.cfname = S("Comments");
	ok(t, CF_T_M_SYSTEM_DROP_COLUMN_FAMILY, &a, NULL);
	assert_false(cf_dispatch_cf_is_super(t->d, t->sess, S("Comments")));
	a = args();
	a.cf_def = cfdef("BloggyAppy", "Comments", "Standard", "TimeUUIDType", NULL);
	ok(t, CF_T_M_SYSTEM_ADD_COLUMN_FAMILY, &a, NULL);
	assert_false(cf_dispatch_cf_is_super(t->d, t->sess, S("Comments")));
	a = args();
	a.cfname = S("Comments");
	ok(t, CF_T_M_SYSTEM_DROP_COLUMN_FAMILY, &a, NULL);
	a = args();
	a.cf_def = cfs[1];
	ok(t, CF_T_M_SYSTEM_ADD_COLUMN_FAMILY, &a, NULL);
	assert_true(cf_dispatch_cf_is_super(t->d, t->sess, S("Comments")));
	cf_dispatch_session_free(other);
	t_close(t);
}

static void
login_and_grants(void **state)
{
	db_fixture *f = *state;
	cf_auth    *auth;
	T		   *t;
	cf_t_args	a = args();
	cf_t_result r;
	cf_t_string_pair cred[2];

	/* the schema first, with authentication off */
	t = t_open(f, NULL, 0);
	add_twitter(t, 1);
	t_close(t);

	test_auth_files(f->dir, (const char *const[]) {"alice:secret", "carol:pw2", NULL},
					"<modify-keyspaces>=alice\nTwitter.<rw>=alice\nTwitter.<ro>=carol\n");
	OK(cf_auth_open(test_path(f->dir, "passwd"), test_path(f->dir, "access"), &auth));
	t = t_open(f, auth, 0);

	ok(t, CF_T_M_DESCRIBE_VERSION, NULL, &r);
	fails(t, CF_T_M_DESCRIBE_KEYSPACES, NULL, CF_T_EXC_INVALID_REQUEST, "you have not logged in");
	app_error(t, CF_T_M_DESCRIBE_CLUSTER_NAME, NULL, "you have not logged in");
	a.keyspace = S("Twitter");
	fails(t, CF_T_M_SET_KEYSPACE, &a, CF_T_EXC_INVALID_REQUEST, "you have not logged in");

	a = args();
	cred[0] = (cf_t_string_pair) {.key = S("username"),.value = S("carol")};
	cred[1] = (cf_t_string_pair) {.key = S("password"),.value = S("wrong")};
	a.auth_request = (cf_t_auth_request) {.credentials = cred,.n_credentials = 2};
	fails(t, CF_T_M_LOGIN, &a, CF_T_EXC_AUTHENTICATION, "invalid username or password");
	a.auth_request.n_credentials = 0;
	fails(t, CF_T_M_LOGIN, &a, CF_T_EXC_AUTHENTICATION, "'username'");
	a.auth_request.n_credentials = 2;
	cred[1].value = S("pw2");
	ok(t, CF_T_M_LOGIN, &a, NULL);

	/* carol reads Twitter but may not write it or change keyspaces */
	set_ks(t, "Twitter");
	a = args();
	a.key = S("k");
	a.column_parent.column_family = S("Users");
	a.predicate.has_slice_range = true;
	a.predicate.slice_range.count = 10;
	ok(t, CF_T_M_GET_SLICE, &a, NULL);
	a.column = (cf_t_column) {.name = S("a"),.value = S("b"),.timestamp = 1};
	fails(t, CF_T_M_INSERT, &a, CF_T_EXC_INVALID_REQUEST, "carol does not have WRITE");
	a = args();
	a.keyspace = S("Twitter");
	fails(t, CF_T_M_SYSTEM_DROP_KEYSPACE, &a, CF_T_EXC_INVALID_REQUEST, "<modify-keyspaces>");

	/* alice may */
	a = args();
	cred[0].value = S("alice");
	cred[1].value = S("secret");
	a.auth_request = (cf_t_auth_request) {.credentials = cred,.n_credentials = 2};
	ok(t, CF_T_M_LOGIN, &a, NULL);
	insert(t, "Users", S("k"), S("a"), S("b"), 1);
	t_close(t);
	cf_auth_free(auth);
}

/* ---------------------------------------------------------------- colfam_multiget_chain */

/* One colfam_multiget_chain call: encode, dispatch, decode (as call()). */
static cf_status *
chain_call(T *t, const cf_ta_args *a, cf_ta_result *res)
{
	cf_buf		msg = CF_BUF_INIT;
	cf_status  *s;

	OK(cf_ta_write_call(&msg, CF_TA_M_MULTIGET_CHAIN, ++t->seqid, a));
	raw(t, msg.data, msg.len);
	cf_buf_free(&msg);
	cf_arena_free(t->arena);
	t->arena = cf_arena_new(4096);
	s = cf_ta_read_reply(cf_slice_of(t->reply.data, t->reply.len), CF_TA_M_MULTIGET_CHAIN,
						 t->seqid, NULL, t->arena, res);
	assert_true(t->keep);
	return s;
}

/* A chain's reply kept past t's next call: its bytes and the arena it decodes into. */
typedef struct chain_hold
{
	cf_buf		msg;
	cf_arena   *arena;
} chain_hold;

static void
chain_hold_free(chain_hold *h)
{
	cf_buf_free(&h->msg);
	cf_arena_free(h->arena);
}

/* A chain expected to succeed: its n_steps + 1 answers (in h, until its next use). */
static const cf_ta_chain_answer *
chain_ok(T *t, const cf_ta_args *a, chain_hold *h)
{
	cf_ta_result res;

	OK(chain_call(t, a, &res));
	if (res.has_ire || res.has_ue || res.has_te)
		fail_msg("chain: exception (ire %d ue %d te %d): %.*s", res.has_ire, res.has_ue,
				 res.has_te, (int) res.ire.why.len, (const char *) res.ire.why.p);
	cf_buf_reset(&h->msg);
	cf_buf_put(&h->msg, t->reply.data, t->reply.len);
	cf_arena_free(h->arena);
	h->arena = cf_arena_new(4096);
	OK(cf_ta_read_reply(cf_slice_of(h->msg.data, h->msg.len), CF_TA_M_MULTIGET_CHAIN,
						t->seqid, NULL, h->arena, &res));
	assert_true(res.has_chain);
	assert_int_equal(res.n_chain, a->n_steps + 1);
	return res.chain;
}

/* A chain expected to fail with IRE (part in its why: exactly, when exact), UE or TE. */
static void
chain_fails(T *t, const cf_ta_args *a, char kind, const char *part, bool exact)
{
	cf_ta_result res;
	char		why[1200];

	OK(chain_call(t, a, &res));
	snprintf(why, sizeof(why), "%.*s", (int) res.ire.why.len, (const char *) res.ire.why.p);
	if (res.has_chain || (kind == 'I') != res.has_ire || (kind == 'U') != res.has_ue ||
		(kind == 'T') != res.has_te)
		fail_msg("chain: expected %c, got chain %d ire %d ue %d te %d (%s)", kind,
				 res.has_chain, res.has_ire, res.has_ue, res.has_te, why);
	if (part && (exact ? strcmp(why, part) != 0 : strstr(why, part) == NULL))
		fail_msg("chain: why \"%s\" is not%s \"%s\"", why, exact ? "" : " like", part);
}

/* multiget_slice of keys on parent/pred, as separate calls would make it (in t). */
static cf_t_result
chain_multiget(T *t, const cf_slice *keys, size_t n, const cf_t_column_parent *parent,
			   const cf_t_slice_predicate *pred)
{
	cf_t_args	a = args();
	cf_t_result r;

	a.keys = (cf_slice *) keys;
	a.n_keys = n;
	a.column_parent = *parent;
	a.predicate = *pred;
	ok(t, CF_T_M_MULTIGET_SLICE, &a, &r);
	return r;
}

static void
same_column(const cf_t_column *a, const cf_t_column *b)
{
	assert_true(cf_slice_eq(a->name, b->name));
	assert_true(cf_slice_eq(a->value, b->value));
	assert_true(a->timestamp == b->timestamp);
}

/* A chain's answer equals multiget_slice's map for the same keys, entry for entry. */
static void
same_as_multiget(const cf_ta_chain_answer *ans, const cf_t_result *mg)
{
	assert_int_equal(ans->n_rows, mg->n_key_coscs);
	for (size_t i = 0; i < ans->n_rows; i++)
	{
		const cf_t_key_slice *ks = &ans->rows[i];
		const cf_t_key_coscs *kc = &mg->key_coscs[i];

		assert_true(cf_slice_eq(ks->key, kc->key));
		assert_int_equal(ks->n_columns, kc->n_columns);
		for (size_t j = 0; j < ks->n_columns; j++)
		{
			const cf_t_cosc *x = &ks->columns[j];
			const cf_t_cosc *y = &kc->columns[j];

			assert_int_equal(x->has_column, y->has_column);
			assert_int_equal(x->has_super_column, y->has_super_column);
			if (x->has_column)
				same_column(&x->column, &y->column);
			else
			{
				assert_true(cf_slice_eq(x->super_column.name, y->super_column.name));
				assert_int_equal(x->super_column.n_columns, y->super_column.n_columns);
				for (size_t k = 0; k < x->super_column.n_columns; k++)
					same_column(&x->super_column.columns[k], &y->super_column.columns[k]);
			}
		}
	}
}

/* The keys of an answer, for comparing with the keys a step should have derived. */
static void
answer_keys(const cf_ta_chain_answer *ans, const cf_slice *want, size_t n)
{
	assert_int_equal(ans->n_rows, n);
	for (size_t i = 0; i < n; i++)
		if (!cf_slice_eq(ans->rows[i].key, want[i]))
			fail_msg("answer key %zu is \"%.*s\", expected \"%.*s\"", i,
					 (int) ans->rows[i].key.len, (const char *) ans->rows[i].key.p,
					 (int) want[i].len, (const char *) want[i].p);
}

static void
insert_sc(T *t, const char *cf, cf_slice key, cf_slice sc, cf_slice name, cf_slice value)
{
	cf_t_args	a = args();

	a.key = key;
	a.column_parent.column_family = cf_slice_str(cf);
	a.column_parent.has_super_column = sc.len > 0;
	a.column_parent.super_column = sc;
	a.column = (cf_t_column) {.name = name,.value = value,.timestamp = 5};
	ok(t, CF_T_M_INSERT, &a, NULL);
}

static cf_t_slice_predicate
names_pred(cf_slice *names, size_t n)
{
	return (cf_t_slice_predicate) {.has_column_names = true,.column_names = names,
	.n_column_names = n};
}

static cf_t_slice_predicate
range_pred(int32_t count, bool reversed)
{
	return (cf_t_slice_predicate) {.has_slice_range = true,
	.slice_range = {.count = count,.reversed = reversed}};
}

static cf_ta_chain_step
step(const char *cf, cf_t_slice_predicate pred, int from, int source, const char *name)
{
	cf_ta_chain_step st = {.predicate = pred,.from_step = from,.source = source};

	st.column_parent.column_family = cf_slice_str(cf);
	if (name)
	{
		st.has_source_name = true;
		st.source_name = cf_slice_str(name);
	}
	return st;
}

/* The seeds' BloggyAppy (bloggyappy.cli) in small, with the odd cases a chain meets. */
static void
add_blog(T *t, uint8_t u[8][16])
{
	cf_t_args	a = args();
	cf_t_cf_def cfs[4] = {
		cfdef("Blog", "Authors", "Standard", "BytesType", NULL),
		cfdef("Blog", "BlogEntries", "Standard", "BytesType", NULL),
		cfdef("Blog", "TaggedPosts", "Standard", "TimeUUIDType", NULL),
		cfdef("Blog", "Comments", "Super", "TimeUUIDType", "UTF8Type"),
	};
	static const char *const tagged[7] = {
		"post-a", "post-b", "post-c", "post-d", "post-a", "", "post-missing",
	};
	uint8_t    *big = malloc(CF_KEY_MAX + 1);

	a.ks_def = (cf_t_ks_def) {.name = S("Blog"),.strategy_class = S("SimpleStrategy"),
	.replication_factor = 1,.cf_defs = cfs,.n_cf_defs = 4};
	ok(t, CF_T_M_SYSTEM_ADD_KEYSPACE, &a, NULL);
	set_ks(t, "Blog");
	insert(t, "Authors", S("Arin"), S("email"), S("arin@example.com"), 1);
	insert(t, "Authors", S("Arin"), S("twitter"), S("phatduckk"), 1);
	insert(t, "Authors", S("Ian"), S("email"), S("ieure@example.com"), 1);
	insert(t, "Authors", S("Chris"), S("email"), S("goffinet@example.com"), 1);
	insert(t, "BlogEntries", S("post-a"), S("title"), S("A"), 2);
	insert(t, "BlogEntries", S("post-a"), S("author"), S("Arin"), 2);
	insert(t, "BlogEntries", S("post-a"), S("body"), S("aaa"), 2);
	insert(t, "BlogEntries", S("post-b"), S("title"), S("B"), 2);
	insert(t, "BlogEntries", S("post-b"), S("author"), S("Ian"), 2);
	insert(t, "BlogEntries", S("post-c"), S("title"), S("C"), 2);
	insert(t, "BlogEntries", S("post-c"), S("author"), S("Arin"), 2);
	insert(t, "BlogEntries", S("post-d"), S("title"), S("D"), 2);	/* no author */
	/* an author no row key can be: over the key limit, skipped */
	assert_non_null(big);
	memset(big, 'x', CF_KEY_MAX + 1);
	insert(t, "BlogEntries", S("post-e"), S("author"), cf_slice_of(big, CF_KEY_MAX + 1), 2);
	free(big);
	for (int i = 0; i < 7; i++)
		insert(t, "TaggedPosts", S("__notag__"),
			   tuuid(u[i], INT64_C(1300000000000000) + i), cf_slice_str(tagged[i]), 3);
	/* comments: post-a's by Ian and Chris, post-b's by Arin */
	insert_sc(t, "Comments", S("post-a"), tuuid(u[7], INT64_C(1300000000000100)),
			  S("commenter"), S("Ian"));
	insert_sc(t, "Comments", S("post-a"), cf_slice_of(u[7], 16), S("text"), S("nice"));
	insert_sc(t, "Comments", S("post-a"), cf_slice_of(u[0], 16), S("commenter"), S("Chris"));
	insert_sc(t, "Comments", S("post-b"), cf_slice_of(u[1], 16), S("commenter"), S("Arin"));
	insert_sc(t, "Comments", S("post-b"), cf_slice_of(u[1], 16), S("text"), S("nice"));
}

static void
chain_front_page(void **state)
{
	chain_hold	h = {CF_BUF_INIT, NULL};
	T		   *t = t_open(*state, NULL, 0);
	uint8_t		u[8][16];
	cf_slice	notag = S("__notag__");
	cf_slice	title_author[2] = {S("title"), S("author")};
	cf_slice	email = S("email");
	cf_ta_chain_step steps[4];
	cf_ta_args	a = {0};
	const cf_ta_chain_answer *ans;
	cf_t_result mg;
	cf_slice	posts[5] = {S("post-missing"), S("post-a"), S("post-d"), S("post-c"),
	S("post-b")};
	cf_slice	authors[2] = {S("Arin"), S("Ian")};

	add_blog(t, u);
	/* TaggedPosts (newest 10) → BlogEntries by VALUE → Authors by NAMED_VALUE author */
	a.keys = &notag;
	a.n_keys = 1;
	a.column_parent.column_family = S("TaggedPosts");
	a.predicate = range_pred(10, true);
	steps[0] = step("BlogEntries", names_pred(title_author, 2), 0, CF_TA_CHAIN_VALUE, NULL);
	steps[1] = step("Authors", names_pred(&email, 1), 1, CF_TA_CHAIN_NAMED_VALUE, "author");
	/* a step that skips one: step 0's KEY, again in BlogEntries (no such row) */
	steps[2] = step("BlogEntries", names_pred(title_author, 2), 0, CF_TA_CHAIN_KEY, NULL);
	/* KEY of step 1: the rows with a column (not post-missing's) */
	steps[3] = step("BlogEntries", names_pred(&email, 1), 1, CF_TA_CHAIN_KEY, NULL);
	a.steps = steps;
	a.n_steps = 4;
	ans = chain_ok(t, &a, &h);

	/* step 0: the slice, as multiget_slice gives it */
	mg = chain_multiget(t, &notag, 1, &a.column_parent, &a.predicate);
	same_as_multiget(&ans[0], &mg);
	assert_int_equal(ans[0].rows[0].n_columns, 7);
	/* step 1: the distinct non-empty values, first seen first (post-a once, "" skipped) */
	answer_keys(&ans[1], posts, 5);
	assert_int_equal(ans[1].rows[0].n_columns, 0);	/* a missing row: an empty list */
	mg = chain_multiget(t, posts, 5, &steps[0].column_parent, &steps[0].predicate);
	same_as_multiget(&ans[1], &mg);
	/* step 2: the authors named, distinct, post-d's (none) and post-e's absent */
	answer_keys(&ans[2], authors, 2);
	mg = chain_multiget(t, authors, 2, &steps[1].column_parent, &steps[1].predicate);
	same_as_multiget(&ans[2], &mg);
	assert_true(S_EQ(ans[2].rows[0].columns[0].column.value, "arin@example.com"));
	/* step 3: KEY of step 0 */
	answer_keys(&ans[3], &notag, 1);
	assert_int_equal(ans[3].rows[0].n_columns, 0);
	answer_keys(&ans[4], posts + 1, 4);

	/* the over-long author is skipped, not an error: post-e's chain has no lookup */
	{
		cf_slice	pe = S("post-e");
		cf_slice	author = S("author");

		a.keys = &pe;
		a.column_parent.column_family = S("BlogEntries");
		a.predicate = names_pred(&author, 1);
		steps[0] = step("Authors", names_pred(&email, 1), 0, CF_TA_CHAIN_VALUE, NULL);
		a.n_steps = 1;
		ans = chain_ok(t, &a, &h);
		assert_int_equal(ans[0].rows[0].n_columns, 1);
		assert_int_equal(ans[1].n_rows, 0);
	}

	/* step 0's keys: duplicates once, in the order first given; a missing row empty */
	{
		cf_slice	keys[4] = {S("post-b"), S("post-a"), S("post-b"), S("nope")};

		a.keys = keys;
		a.n_keys = 4;
		a.predicate = range_pred(100, false);
		a.n_steps = 0;
		ans = chain_ok(t, &a, &h);
		answer_keys(&ans[0], (cf_slice[]) {S("post-b"), S("post-a"), S("nope")}, 3);
		assert_int_equal(ans[0].rows[2].n_columns, 0);
		mg = chain_multiget(t, keys, 4, &a.column_parent, &a.predicate);
		same_as_multiget(&ans[0], &mg);
		/* no keys at all: an empty answer, and a step from it reads nothing */
		a.n_keys = 0;
		a.n_steps = 1;
		steps[0] = step("Authors", range_pred(10, false), 0, CF_TA_CHAIN_KEY, NULL);
		ans = chain_ok(t, &a, &h);
		assert_int_equal(ans[0].n_rows, 0);
		assert_int_equal(ans[1].n_rows, 0);
	}
	chain_hold_free(&h);
	t_close(t);
}

static void
chain_sources_and_super(void **state)
{
	chain_hold	h = {CF_BUF_INIT, NULL};
	T		   *t = t_open(*state, NULL, 0);
	uint8_t		u[8][16];
	cf_slice	posts[2] = {S("post-a"), S("post-b")};
	cf_slice	email = S("email");
	cf_ta_chain_step steps[6];
	cf_ta_args	a = {0};
	const cf_ta_chain_answer *ans;
	cf_t_result mg;

	add_blog(t, u);
	/* a Super CF as the source: Comments of post-a and post-b */
	a.keys = posts;
	a.n_keys = 2;
	a.column_parent.column_family = S("Comments");
	a.predicate = range_pred(10, false);
	steps[0] = step("Authors", names_pred(&email, 1), 0, CF_TA_CHAIN_NAMED_VALUE, "commenter");
	steps[1] = step("Authors", range_pred(10, false), 0, CF_TA_CHAIN_SUPER_NAME, NULL);
	steps[2] = step("Authors", range_pred(10, false), 0, CF_TA_CHAIN_VALUE, NULL);
	steps[3] = step("Authors", range_pred(10, false), 0, CF_TA_CHAIN_NAME, NULL);
	steps[4] = step("BlogEntries", range_pred(1, false), 0, CF_TA_CHAIN_KEY, NULL);
	/* a Standard source's SUPER_NAME: none */
	steps[5] = step("Authors", range_pred(10, false), 2, CF_TA_CHAIN_SUPER_NAME, NULL);
	a.steps = steps;
	a.n_steps = 6;
	ans = chain_ok(t, &a, &h);
	mg = chain_multiget(t, posts, 2, &a.column_parent, &a.predicate);
	same_as_multiget(&ans[0], &mg);
	/* post-a: u[0] {commenter Chris}, u[7] {commenter Ian, text nice}; post-b: u[1] */
	assert_int_equal(ans[0].rows[0].n_columns, 2);
	assert_true(ans[0].rows[0].columns[0].has_super_column);
	/* NAMED_VALUE over sub-columns */
	answer_keys(&ans[1], (cf_slice[]) {S("Chris"), S("Ian"), S("Arin")}, 3);
	mg = chain_multiget(t, (cf_slice[]) {S("Chris"), S("Ian"), S("Arin")}, 3,
						&steps[0].column_parent, &steps[0].predicate);
	same_as_multiget(&ans[1], &mg);
	/* SUPER_NAME: the super columns' names in order */
	answer_keys(&ans[2], (cf_slice[]) {cf_slice_of(u[0], 16), cf_slice_of(u[7], 16),
				cf_slice_of(u[1], 16)}, 3);
	/* VALUE and NAME over every sub-column, distinct */
	answer_keys(&ans[3], (cf_slice[]) {S("Chris"), S("Ian"), S("nice"), S("Arin")}, 4);
	answer_keys(&ans[4], (cf_slice[]) {S("commenter"), S("text")}, 2);
	/* KEY: the rows with a result */
	answer_keys(&ans[5], posts, 2);
	mg = chain_multiget(t, posts, 2, &steps[4].column_parent, &steps[4].predicate);
	same_as_multiget(&ans[5], &mg);
	assert_int_equal(ans[6].n_rows, 0);

	/* a super column in the parent: step 0's answer is its sub-columns */
	a.keys = posts;
	a.n_keys = 1;
	a.column_parent.has_super_column = true;
	a.column_parent.super_column = cf_slice_of(u[7], 16);
	steps[0] = step("Authors", names_pred(&email, 1), 0, CF_TA_CHAIN_NAMED_VALUE, "commenter");
	a.n_steps = 1;
	ans = chain_ok(t, &a, &h);
	assert_true(ans[0].rows[0].columns[0].has_column);
	answer_keys(&ans[1], (cf_slice[]) {S("Ian")}, 1);
	chain_hold_free(&h);
	t_close(t);
}

static void
chain_errors(void **state)
{
	chain_hold	h = {CF_BUF_INIT, NULL};
	T		   *t = t_open(*state, NULL, 0);
	uint8_t		u[8][16];
	cf_slice	notag = S("__notag__");
	cf_slice	email = S("email");
	cf_slice	wide = S("wide");
	cf_ta_chain_step steps[CF_TA_CHAIN_MAX_STEPS + 1];
	cf_ta_args	a = {0};
	cf_t_args	ma = args();
	cf_t_result mres;
	char		msg[200];

	/* no keyspace yet: multiget_slice's message, unprefixed */
	a.keys = &notag;
	a.n_keys = 1;
	a.column_parent.column_family = S("TaggedPosts");
	a.predicate = range_pred(10, true);
	chain_fails(t, &a, 'I', "You have not set a keyspace for this session", true);
	add_blog(t, u);

	/* step 0 is multiget_slice: the same message for the same mistake */
	a.column_parent.column_family = S("Foo");
	chain_fails(t, &a, 'I', "unconfigured columnfamily Foo", true);
	a.column_parent.column_family = S("TaggedPosts");
	a.keys = (cf_slice[]) {S("")};
	ma.keys = a.keys;
	ma.n_keys = 1;
	ma.column_parent = a.column_parent;
	ma.predicate = a.predicate;
	OK(call(t, CF_T_M_MULTIGET_SLICE, &ma, &mres));
	assert_int_equal(mres.exception.kind, CF_T_EXC_INVALID_REQUEST);
	snprintf(msg, sizeof(msg), "%.*s", (int) mres.exception.why.len,
			 (const char *) mres.exception.why.p);
	chain_fails(t, &a, 'I', msg, true);
	a.keys = &notag;
	a.predicate.slice_range.count = -1;
	chain_fails(t, &a, 'I', "get_slice requires non-negative count", true);
	a.predicate.slice_range.count = 10;

	/* a step's multiget_slice errors, prefixed with the step */
	a.steps = steps;
	a.n_steps = 2;
	steps[0] = step("BlogEntries", range_pred(10, false), 0, CF_TA_CHAIN_VALUE, NULL);
	steps[1] = step("Foo", range_pred(10, false), 1, CF_TA_CHAIN_KEY, NULL);
	chain_fails(t, &a, 'I', "chain step 2: unconfigured columnfamily Foo", true);
	steps[1] = step("Authors", range_pred(-1, false), 1, CF_TA_CHAIN_KEY, NULL);
	chain_fails(t, &a, 'I', "chain step 2: get_slice requires non-negative count", true);
	steps[1] = step("Authors", range_pred(10, false), 1, CF_TA_CHAIN_KEY, NULL);
	steps[1].column_parent.has_super_column = true;
	steps[1].column_parent.super_column = S("sc");
	chain_fails(t, &a, 'I', "chain step 2: columnfamily alone is required for standard CF "
				"Authors", false);
	/* checked also when it has no key to read: step 1 of an empty step 0 */
	a.n_keys = 0;
	steps[0] = step("Foo", range_pred(10, false), 0, CF_TA_CHAIN_VALUE, NULL);
	a.n_steps = 1;
	chain_fails(t, &a, 'I', "chain step 1: unconfigured columnfamily Foo", true);
	a.n_keys = 1;

	/* from_step */
	steps[0] = step("BlogEntries", range_pred(10, false), 0, CF_TA_CHAIN_VALUE, NULL);
	steps[1] = step("Authors", names_pred(&email, 1), 2, CF_TA_CHAIN_KEY, NULL);
	a.n_steps = 2;
	chain_fails(t, &a, 'I', "chain step 2: from_step 2 must name an earlier step (0..1)", true);
	steps[1].from_step = 3;
	chain_fails(t, &a, 'I', "chain step 2: from_step 3 must name an earlier step (0..1)", true);
	steps[1].from_step = -1;
	chain_fails(t, &a, 'I', "chain step 2: from_step -1 must name an earlier step (0..1)", true);
	steps[0].from_step = 1;
	chain_fails(t, &a, 'I', "chain step 1: from_step 1 must name an earlier step (0..0)", true);
	steps[0].from_step = 0;
	steps[1].from_step = 1;
	/* source */
	steps[1].source = 5;
	chain_fails(t, &a, 'I', "chain step 2: source 5 is not a ChainSource", false);
	steps[1].source = -1;
	chain_fails(t, &a, 'I', "chain step 2: source -1 is not a ChainSource", false);
	steps[1].source = CF_TA_CHAIN_NAMED_VALUE;
	chain_fails(t, &a, 'I', "chain step 2: source NAMED_VALUE needs a source_name", true);
	steps[1] = step("Authors", names_pred(&email, 1), 1, CF_TA_CHAIN_VALUE, "author");
	chain_fails(t, &a, 'I', "chain step 2: source_name is for source NAMED_VALUE only, "
				"not VALUE", true);
	/* an empty source_name is a name (no column has it): not "missing" */
	steps[1] = step("Authors", names_pred(&email, 1), 1, CF_TA_CHAIN_NAMED_VALUE, "");
	chain_ok(t, &a, &h);

	/* 16 steps are fine, 17 are not */
	for (int i = 0; i <= CF_TA_CHAIN_MAX_STEPS; i++)
		steps[i] = step("TaggedPosts", range_pred(10, true), i, CF_TA_CHAIN_KEY, NULL);
	a.n_steps = CF_TA_CHAIN_MAX_STEPS;
	chain_ok(t, &a, &h);
	a.n_steps = CF_TA_CHAIN_MAX_STEPS + 1;
	chain_fails(t, &a, 'I', "colfam_multiget_chain takes at most 16 steps after step 0, "
				"got 17", true);

	/* 10,000 distinct keys a step, not one more */
	{
		enum
		{
		N = CF_TA_CHAIN_MAX_KEYS + 1};
		cf_t_mutation *m = calloc(N, sizeof(*m));
		char	   *names = malloc((size_t) N * 16);
		cf_t_cf_mutations cfm = {.column_family = S("BlogEntries"),.mutations = m,
		.n_mutations = N};
		cf_t_key_mutations km = {.key = S("wide"),.cfs = &cfm,.n_cfs = 1};
		cf_t_args	b = args();

		assert_non_null(m);
		assert_non_null(names);
		for (int i = 0; i < N; i++)
		{
			snprintf(names + i * 16, 16, "c%06d", i);
			m[i].has_cosc = m[i].cosc.has_column = true;
			m[i].cosc.column = (cf_t_column) {.name = cf_slice_of(names + i * 16, 7),
			.value = S("v"),.timestamp = 1};
		}
		b.mutation_map = &km;
		b.n_mutation_map = 1;
		ok(t, CF_T_M_BATCH_MUTATE, &b, NULL);
		a.keys = &wide;
		a.column_parent.column_family = S("BlogEntries");
		a.predicate = range_pred(CF_TA_CHAIN_MAX_KEYS, false);
		steps[0] = step("Authors", names_pred(&email, 1), 0, CF_TA_CHAIN_NAME, NULL);
		/* the values are all "v": one key, however many columns */
		steps[1] = step("Authors", names_pred(&email, 1), 0, CF_TA_CHAIN_VALUE, NULL);
		a.n_steps = 2;
		{
			const cf_ta_chain_answer *ans = chain_ok(t, &a, &h);

			assert_int_equal(ans[1].n_rows, CF_TA_CHAIN_MAX_KEYS);
			assert_int_equal(ans[2].n_rows, 1);
		}
		a.predicate = range_pred(N, false);
		chain_fails(t, &a, 'I', "chain step 1: it would look up more than 10000 keys", false);
		/* the cap counts distinct keys: 10,001 values that are all "v" are one */
		a.steps = steps + 1;
		a.n_steps = 1;
		{
			const cf_ta_chain_answer *ans = chain_ok(t, &a, &h);

			assert_int_equal(ans[0].rows[0].n_columns, N);
			answer_keys(&ans[1], (cf_slice[]) {S("v")}, 1);
		}
		a.steps = steps;
		free(m);
		free(names);
	}

	/* a reply over the frame limit: multiget_slice's error, naming the method */
	a.predicate = range_pred(CF_TA_CHAIN_MAX_KEYS, false);
	a.n_steps = 1;
	t->reply.limit = 64 * 1024;
	cf_buf_free(&t->reply);		/* a fresh buffer, as the server's (cf_tb_room's fast path) */
	chain_fails(t, &a, 'I', "the reply of colfam_multiget_chain does not fit in a frame", false);
	t->reply.limit = 0;
	chain_ok(t, &a, &h);
	chain_hold_free(&h);
	t_close(t);
}

static void
chain_unavailable_timeout_and_auth(void **state)
{
	chain_hold	h = {CF_BUF_INIT, NULL};
	db_fixture *f = *state;
	T		   *t = t_open(f, NULL, 0);
	cf_slice	k = S("k");
	cf_ta_chain_step st;
	cf_ta_args	a = {0};
	cf_t_string_pair cred[2];
	cf_t_args	la = args();
	cf_auth    *auth;

	add_twitter(t, 3);
	set_ks(t, "Twitter");
	insert(t, "Users", S("k"), S("state"), S("CA"), 1);
	a.keys = &k;
	a.n_keys = 1;
	a.column_parent.column_family = S("Users");
	a.predicate = range_pred(10, false);
	st = step("Users", range_pred(10, false), 0, CF_TA_CHAIN_KEY, NULL);
	a.steps = &st;
	a.n_steps = 1;
	a.consistency_level = CF_T_CL_QUORUM;	/* rf 3 on one node */
	chain_fails(t, &a, 'U', NULL, false);
	a.consistency_level = CF_T_CL_ONE;
	chain_ok(t, &a, &h);
	t_close(t);

	/*
	 * 1 µs: a read that takes longer than the (coarse) clock's tick is too late.
	 * Step 0 of 20,000 keys does, as multiget_slice of them does.
	 */
	t = t_open(f, NULL, 1);
	set_ks(t, "Twitter");
	{
		enum
		{
		NK = 20000};
		cf_slice   *many = calloc(NK, sizeof(*many));
		char	   *kb = malloc((size_t) NK * 16);
		cf_t_args	ma = args();

		assert_non_null(many);
		assert_non_null(kb);
		for (int i = 0; i < NK; i++)
		{
			snprintf(kb + i * 16, 16, "k%06d", i);
			many[i] = cf_slice_of(kb + i * 16, 7);
		}
		ma.keys = many;
		ma.n_keys = NK;
		ma.column_parent = a.column_parent;
		ma.predicate = a.predicate;
		fails(t, CF_T_M_MULTIGET_SLICE, &ma, CF_T_EXC_TIMED_OUT, NULL);
		a.keys = many;
		a.n_keys = NK;
		chain_fails(t, &a, 'T', NULL, false);
		a.keys = &k;
		a.n_keys = 1;
		free(many);
		free(kb);
	}
	t_close(t);

	test_auth_files(f->dir, (const char *const[]) {"carol:pw2", "dave:pw3", NULL},
					"Twitter.<ro>=carol\nTwitter.Users.<ro>=dave\n");
	OK(cf_auth_open(test_path(f->dir, "passwd"), test_path(f->dir, "access"), &auth));
	t = t_open(f, auth, 0);
	chain_fails(t, &a, 'I', "you have not logged in", true);
	cred[0] = (cf_t_string_pair) {.key = S("username"),.value = S("dave")};
	cred[1] = (cf_t_string_pair) {.key = S("password"),.value = S("pw3")};
	la.auth_request = (cf_t_auth_request) {.credentials = cred,.n_credentials = 2};
	ok(t, CF_T_M_LOGIN, &la, NULL);
	set_ks(t, "Twitter");
	chain_ok(t, &a, &h);
	/* dave may read Users only: a step on Statuses is refused, naming the step */
	st.column_parent.column_family = S("Statuses");
	chain_fails(t, &a, 'I', "chain step 1: ", false);
	chain_fails(t, &a, 'I', "dave does not have READ", false);
	chain_hold_free(&h);
	t_close(t);
	cf_auth_free(auth);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(describe_methods, setup, teardown),
		cmocka_unit_test_setup_teardown(schema_changes, setup, teardown),
		cmocka_unit_test_setup_teardown(twitter_end_to_end, setup, teardown),
		cmocka_unit_test_setup_teardown(bloggyappy_super_columns, setup, teardown),
		cmocka_unit_test_setup_teardown(invalid_requests, setup, teardown),
		cmocka_unit_test_setup_teardown(timeouts_are_timed_out_exceptions, setup, teardown),
		cmocka_unit_test_setup_teardown(garbage_and_truncated_messages, setup, teardown),
		cmocka_unit_test_setup_teardown(sessions_keep_their_own_keyspace, setup, teardown),
		cmocka_unit_test_setup_teardown(cf_is_super_asks_the_session_keyspace, setup, teardown),
		cmocka_unit_test_setup_teardown(login_and_grants, setup, teardown),
		cmocka_unit_test_setup_teardown(chain_front_page, setup, teardown),
		cmocka_unit_test_setup_teardown(chain_sources_and_super, setup, teardown),
		cmocka_unit_test_setup_teardown(chain_errors, setup, teardown),
		cmocka_unit_test_setup_teardown(chain_unavailable_timeout_and_auth, setup, teardown),
	};

	cf_log_set_level(CF_LOG_WARN);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
