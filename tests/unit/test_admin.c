/*
 * tests/unit/test_admin.c — colfam's admin methods (thrift/admin.h): the codec's round
 * trips and truncations; the dispatch through a node in the test (support/testnode.h)
 * and libcolfam's cfc_colfam_* — flush, compact, cfstats, snapshots taken, listed and
 * cleared, unknown names as IRE, the grant they need with authentication on; and
 * `colfam status|info|ring|flush|compact|cfstats|snapshot|listsnapshots|clearsnapshot`
 * output against that node.
 */
#include "support/authfiles.h"
#include "support/cmocka_prelude.h"
#include "support/envtest.h"
#include "support/slices.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "client/client.h"
#include "support/testnode.h"
#include "support/tmpdir.h"
#include "thrift/admin.h"
#include "thrift/tbinary.h"
#include "tools/commands.h"
#include "util/log.h"

/* ---- codec ---- */

static void
codec_round_trips(void **state)
{
	cf_slice	cfs[2] = {S("Standard1"), S("Super1")};
	cf_slice	kss[3] = {S("K1"), S("K2"), S("K3")};
	cf_ta_args	a = {.keyspace = S("Keyspace1"),.column_families = cfs,
	.n_column_families = 2,.major = true,.keyspaces = kss,.n_keyspaces = 3,
	.has_name = true,.name = S("before-upgrade")};
	cf_ta_args	back;
	cf_ta_cf_stats st[2] = {
		{S("A"), 1, 2, 3, 4, 5, 6, 7, false, 0, false, 0}, {S("B"), INT64_MAX, 0, 0, 1, 1 << 20, 9, 0,
		true, 12, true, 345},
	};
	cf_ta_result res = {.stats = st,.n_stats = 2};
	cf_ta_result got;
	cf_buf		b = CF_BUF_INIT;
	cf_arena   *arena = cf_arena_new(1024);
	cf_t_message_header h;
	cf_rd		r;

	(void) state;
	for (int m = 0; m < CF_TA_M_COUNT_; m++)
	{
		cf_ta_method am;

		assert_true(cf_ta_method_lookup(cf_slice_str(cf_ta_method_name(m)), &am));
		assert_int_equal(am, m);
		if (m == CF_TA_M_MULTIGET_CHAIN)
			continue;			/* a read; its codec is test_thrift_codec.c's */
		cf_buf_reset(&b);
		OK(cf_ta_write_call(&b, m, 7, &a));
		cf_rd_init(&r, b.data, b.len);
		OK(cf_t_read_message_header(&r, &h));
		assert_int_equal(h.type, CF_T_CALL);
		assert_int_equal(h.seqid, 7);
		OK(cf_ta_read_args(&r, m, NULL, arena, &back));
		if (m == CF_TA_M_SNAPSHOT || m == CF_TA_M_LISTSNAPSHOTS || m == CF_TA_M_CLEARSNAPSHOT)
		{
			/* keyspaces and the name, no keyspace */
			assert_int_equal(back.keyspace.len, 0);
			assert_int_equal(back.n_keyspaces, 3);
			assert_true(cf_slice_eq(back.keyspaces[2], kss[2]));
			assert_int_equal(back.has_name, m == CF_TA_M_CLEARSNAPSHOT);
			if (m != CF_TA_M_LISTSNAPSHOTS)
				assert_true(cf_slice_eq(back.name, a.name));
			else
				assert_int_equal(back.name.len, 0);
		}
		else
			assert_true(cf_slice_eq(back.keyspace, a.keyspace));
		if (m == CF_TA_M_FLUSH || m == CF_TA_M_COMPACT)
		{
			assert_int_equal(back.n_column_families, 2);
			assert_true(cf_slice_eq(back.column_families[1], cfs[1]));
		}
		assert_int_equal(back.major, m == CF_TA_M_COMPACT);

		/* every truncation of the call fails cleanly */
		for (size_t cut = 0; cut < b.len; cut++)
		{
			cf_rd		tr;
			cf_status  *s;

			cf_rd_init(&tr, b.data, cut);
			s = cf_t_read_message_header(&tr, &h);
			if (s == NULL)
				s = cf_ta_read_args(&tr, m, NULL, arena, &back);
			assert_non_null(s);
			assert_int_equal(cf_status_code(s), CF_ERR_PROTOCOL);
			cf_status_free(s);
		}
	}
	assert_false(cf_ta_method_lookup(S("get_slice"), &(cf_ta_method) {0}));
	assert_null(cf_ta_method_name(CF_TA_M_COUNT_));

	/* cfstats' success and every truncation of it */
	cf_buf_reset(&b);
	OK(cf_ta_write_reply(&b, CF_TA_M_CFSTATS, 9, &res));
	OK(cf_ta_read_reply(cf_slice_of(b.data, b.len), CF_TA_M_CFSTATS, 9, NULL, arena, &got));
	assert_false(got.has_ire);
	assert_int_equal(got.n_stats, 2);
	assert_true(cf_slice_eq(got.stats[1].column_family, S("B")));
	assert_true(got.stats[1].memtable_bytes == INT64_MAX);
	assert_int_equal(got.stats[0].pending_flushes, 3);
	assert_int_equal(got.stats[0].flush_failures, 7);
	assert_int_equal(got.stats[1].sstable_bytes, 1 << 20);
	/* the optional estimates: absent stays absent, present comes back */
	assert_false(got.stats[0].has_estimated_keys);
	assert_false(got.stats[0].has_estimated_columns);
	assert_true(got.stats[1].has_estimated_keys && got.stats[1].has_estimated_columns);
	assert_int_equal(got.stats[1].estimated_keys, 12);
	assert_int_equal(got.stats[1].estimated_columns, 345);
	for (size_t cut = 0; cut < b.len; cut++)
	{
		cf_status  *s = cf_ta_read_reply(cf_slice_of(b.data, cut), CF_TA_M_CFSTATS, 9, NULL,
										 arena, &got);

		assert_non_null(s);
		cf_status_free(s);
	}
	/* a snapshot list, and every truncation of it */
	{
		cf_ta_snapshot sn[2] = {
			{S("K"), S("A"), S("one"), S("/d/K/A/snapshots/one"), 2, 1000, 40},
			{S("K"), S("B"), S("one"), S("/d/K/B/snapshots/one"), 1, INT64_MAX, 0},
		};

		cf_buf_reset(&b);
		OK(cf_ta_write_reply(&b, CF_TA_M_LISTSNAPSHOTS, 5,
								&(cf_ta_result) {.snapshots = sn,.n_snapshots = 2}));
		OK(cf_ta_read_reply(cf_slice_of(b.data, b.len), CF_TA_M_LISTSNAPSHOTS, 5, NULL,
							   arena, &got));
		assert_true(got.has_snapshots);
		assert_int_equal(got.n_snapshots, 2);
		assert_true(cf_slice_eq(got.snapshots[1].column_family, S("B")));
		assert_true(cf_slice_eq(got.snapshots[0].directory, S("/d/K/A/snapshots/one")));
		assert_int_equal(got.snapshots[0].files, 2);
		assert_int_equal(got.snapshots[0].unshared_bytes, 40);
		assert_true(got.snapshots[1].bytes == INT64_MAX);
		for (size_t cut = 0; cut < b.len; cut++)
		{
			cf_status  *s = cf_ta_read_reply(cf_slice_of(b.data, cut), CF_TA_M_LISTSNAPSHOTS,
											 5, NULL, arena, &got);

			assert_non_null(s);
			cf_status_free(s);
		}
		/* an empty list is a result too, and no result is MISSING_RESULT */
		cf_buf_reset(&b);
		OK(cf_ta_write_reply(&b, CF_TA_M_CLEARSNAPSHOT, 6, &(cf_ta_result) {0}));
		OK(cf_ta_read_reply(cf_slice_of(b.data, b.len), CF_TA_M_CLEARSNAPSHOT, 6, NULL,
							   arena, &got));
		assert_true(got.has_snapshots);
		assert_int_equal(got.n_snapshots, 0);
		cf_buf_reset(&b);
		cf_t_write_message_header(&b, S("colfam_snapshot"), CF_T_REPLY, 6);
		cf_tb_write_stop(&b);
		FAILS(cf_ta_read_reply(cf_slice_of(b.data, b.len), CF_TA_M_SNAPSHOT, 6, NULL, arena,
								&got), CF_ERR_PROTOCOL, "MISSING_RESULT");
	}

	/* wrong seqid, wrong method */
	cf_buf_reset(&b);
	OK(cf_ta_write_reply(&b, CF_TA_M_CFSTATS, 9, &res));
	FAILS(cf_ta_read_reply(cf_slice_of(b.data, b.len), CF_TA_M_CFSTATS, 10, NULL, arena, &got),
		   CF_ERR_PROTOCOL, "sequence id");
	FAILS(cf_ta_read_reply(cf_slice_of(b.data, b.len), CF_TA_M_FLUSH, 9, NULL, arena, &got),
		   CF_ERR_PROTOCOL, "colfam_cfstats");

	/* an IRE, a void success, a TApplicationException */
	cf_buf_reset(&b);
	OK(cf_ta_write_reply(&b, CF_TA_M_FLUSH, 1, &(cf_ta_result) {.has_ire = true,
							.ire.why = S("no such keyspace")}));
	OK(cf_ta_read_reply(cf_slice_of(b.data, b.len), CF_TA_M_FLUSH, 1, NULL, arena, &got));
	assert_true(got.has_ire);
	assert_true(cf_slice_eq(got.ire.why, S("no such keyspace")));
	cf_buf_reset(&b);
	OK(cf_ta_write_reply(&b, CF_TA_M_COMPACT, 2, &(cf_ta_result) {0}));
	OK(cf_ta_read_reply(cf_slice_of(b.data, b.len), CF_TA_M_COMPACT, 2, NULL, arena, &got));
	assert_false(got.has_ire);
	/* a cfstats reply with neither field 0 nor the IRE is MISSING_RESULT */
	cf_buf_reset(&b);
	cf_t_write_message_header(&b, S("colfam_cfstats"), CF_T_REPLY, 3);
	cf_tb_write_stop(&b);
	FAILS(cf_ta_read_reply(cf_slice_of(b.data, b.len), CF_TA_M_CFSTATS, 3, NULL, arena, &got),
		   CF_ERR_PROTOCOL, "MISSING_RESULT");
	cf_buf_reset(&b);
	cf_t_write_app_exception(&b, S("colfam_flush"), 4, CF_T_APP_UNKNOWN_METHOD,
							 "Invalid method name: 'colfam_flush'");
	FAILS(cf_ta_read_reply(cf_slice_of(b.data, b.len), CF_TA_M_FLUSH, 4, NULL, arena, &got),
		   CF_ERR_PROTOCOL, "Invalid method name");
	/* a required argument missing */
	cf_buf_reset(&b);
	cf_tb_write_field(&b, CF_TB_STRING, 1);
	cf_tb_write_binary(&b, S("K"));
	cf_tb_write_stop(&b);
	cf_rd_init(&r, b.data, b.len);
	FAILS(cf_ta_read_args(&r, CF_TA_M_COMPACT, NULL, arena, &back), CF_ERR_PROTOCOL,
		   "required field colfam_compact_args.column_families missing");

	cf_buf_free(&b);
	cf_arena_free(arena);
}

/* ---- through a node ---- */

static cfc_conn *
conn(test_node *n, const char *user, const char *pw)
{
	cfc_conn   *c;

	OK(cfc_new(&(cfc_options) {.hosts = test_node_hosts(n),.username = user,
				  .password = pw}, &c));
	return c;
}

/* Keyspace K with Standard CFs A and B, and n rows of one column in A. */
static void
make_schema(cfc_conn *c, int rows)
{
	cf_t_cf_def cfs[2] = {{.keyspace = S("K"),.name = S("A")}, {.keyspace = S("K"),.name = S("B")}};
	cf_t_ks_def ks = {.name = S("K"),.strategy_class = S("SimpleStrategy"),
	.replication_factor = 1,.cf_defs = cfs,.n_cf_defs = 2};
	cf_t_column_parent parent = {.column_family = S("A")};

	OK(cfc_system_add_keyspace(c, &ks, NULL, NULL));
	OK(cfc_set_keyspace(c, "K"));
	for (int i = 0; i < rows; i++)
	{
		char		key[16];
		cf_t_column col = {S("c"), S("value"), 1, false, 0};

		snprintf(key, sizeof(key), "k%d", i);
		OK(cfc_insert(c, cf_slice_str(key), &parent, &col, CF_T_CL_ONE));
	}
}

static const cf_ta_cf_stats *
stat_of(const cf_ta_cf_stats *st, size_t n, const char *cf)
{
	for (size_t i = 0; i < n; i++)
		if (cf_slice_eq(st[i].column_family, cf_slice_str(cf)))
			return &st[i];
	fail_msg("no cfstats for %s", cf);
	return NULL;
}

static void
flush_compact_cfstats(void **state)
{
	test_node  *n = test_node_start(NULL);
	cfc_conn   *c = conn(n, NULL, NULL);
	cf_arena   *a = cf_arena_new(1024);
	const char *only_a[] = {"A"};
	const char *bad[] = {"A", "Nope"};
	cf_ta_cf_stats *st;
	size_t		n_st;

	(void) state;
	make_schema(c, 10);
	OK(cfc_colfam_cfstats(c, "K", a, &st, &n_st));
	assert_int_equal(n_st, 2);
	assert_int_equal(stat_of(st, n_st, "A")->memtable_operations, 10);
	assert_int_equal(stat_of(st, n_st, "A")->sstables, 0);
	/* estimates from the memtable: 10 rows of one column; B is empty */
	assert_true(stat_of(st, n_st, "A")->has_estimated_keys);
	assert_int_equal(stat_of(st, n_st, "A")->estimated_keys, 10);
	assert_int_equal(stat_of(st, n_st, "A")->estimated_columns, 10);
	assert_int_equal(stat_of(st, n_st, "B")->estimated_keys, 0);

	/* a bad CF name anywhere in the list: nothing is done */
	FAILS(cfc_colfam_flush(c, "K", bad, 2), CF_ERR_INVALID, "unconfigured columnfamily Nope");
	FAILS(cfc_colfam_flush(c, "Nope", NULL, 0), CF_ERR_INVALID, "Keyspace Nope does not exist");
	FAILS(cfc_colfam_cfstats(c, "", a, &st, &n_st), CF_ERR_INVALID, "does not exist");
	OK(cfc_colfam_cfstats(c, "K", a, &st, &n_st));
	assert_int_equal(stat_of(st, n_st, "A")->sstables, 0);

	OK(cfc_colfam_flush(c, "K", only_a, 1));
	OK(cfc_colfam_cfstats(c, "K", a, &st, &n_st));
	assert_int_equal(stat_of(st, n_st, "A")->sstables, 1);
	assert_int_equal(stat_of(st, n_st, "A")->memtable_operations, 0);
	assert_int_equal(stat_of(st, n_st, "A")->flushes, 1);
	assert_true(stat_of(st, n_st, "A")->sstable_bytes > 0);
	/* ... and from the SSTable once flushed */
	assert_int_equal(stat_of(st, n_st, "A")->estimated_keys, 10);
	assert_int_equal(stat_of(st, n_st, "A")->estimated_columns, 10);

	/* a second table, then a major compaction of every CF makes one */
	{
		cf_t_column_parent parent = {.column_family = S("A")};
		cf_t_column col = {S("d"), S("v2"), 2, false, 0};

		OK(cfc_insert(c, S("k1"), &parent, &col, CF_T_CL_ONE));
	}
	OK(cfc_colfam_flush(c, "K", NULL, 0));
	OK(cfc_colfam_cfstats(c, "K", a, &st, &n_st));
	assert_int_equal(stat_of(st, n_st, "A")->sstables, 2);
	/* k1 is in both SSTables: counted in each until they are merged */
	assert_int_equal(stat_of(st, n_st, "A")->estimated_keys, 11);
	assert_int_equal(stat_of(st, n_st, "A")->estimated_columns, 11);
	OK(cfc_colfam_compact(c, "K", NULL, 0, true));
	OK(cfc_colfam_cfstats(c, "K", a, &st, &n_st));
	assert_int_equal(stat_of(st, n_st, "A")->sstables, 1);
	assert_int_equal(stat_of(st, n_st, "A")->estimated_keys, 10);
	assert_int_equal(stat_of(st, n_st, "A")->estimated_columns, 11);
	FAILS(cfc_colfam_compact(c, "K", bad, 2, false), CF_ERR_INVALID, "Nope");

	/* the connection still serves 0.7 calls after the admin ones */
	{
		cf_slice	v;

		OK(cfc_describe_version(c, a, &v));
		assert_true(cf_slice_eq(v, S(CF_THRIFT_API_VERSION)));
	}
	cfc_free(c);
	cf_arena_free(a);
	test_node_stop(n);
}

static void
snapshots_through_a_node(void **state)
{
	test_node  *n = test_node_start(NULL);
	cfc_conn   *c = conn(n, NULL, NULL);
	cf_arena   *a = cf_arena_new(1024);
	const char *k[] = {"K"};
	const char *nope[] = {"K", "Nope"};
	const char *sys[] = {"system"};
	cf_ta_snapshot *v;
	size_t		nv;
	cf_t_column_parent parent = {.column_family = S("A")};
	cf_t_column col = {S("c"), S("later"), 5, false, 0};
	int32_t		count;

	(void) state;
	make_schema(c, 10);
	/* the memtable is flushed into it: A has an SSTable and a MANIFEST, B a MANIFEST */
	OK(cfc_colfam_snapshot(c, NULL, 0, "first", a, &v, &nv));
	assert_int_equal(nv, 2);
	assert_true(cf_slice_eq(v[0].keyspace, S("K")) && cf_slice_eq(v[0].column_family, S("A")));
	assert_true(cf_slice_eq(v[0].name, S("first")));
	assert_int_equal(v[0].files, 2);
	assert_non_null(memmem(v[0].directory.p, v[0].directory.len, "/K/A/snapshots/first", 20));

	/* errors, each leaving nothing behind */
	FAILS(cfc_colfam_snapshot(c, k, 1, "first", a, &v, &nv), CF_ERR_INVALID,
		   "keyspace K has a snapshot \"first\" already");
	FAILS(cfc_colfam_snapshot(c, nope, 2, "second", a, &v, &nv), CF_ERR_INVALID,
		   "Keyspace Nope does not exist");
	FAILS(cfc_colfam_snapshot(c, k, 1, "a/b", a, &v, &nv), CF_ERR_INVALID,
		   "use letters, digits, '_' and '-' only");
	FAILS(cfc_colfam_snapshot(c, k, 1, NULL, a, &v, &nv), CF_ERR_INVALID, "no snapshot name");
	FAILS(cfc_colfam_clearsnapshot(c, k, 1, "second", a, &v, &nv), CF_ERR_INVALID,
		   "no snapshot \"second\" in keyspace K");
	OK(cfc_colfam_listsnapshots(c, NULL, 0, a, &v, &nv));
	assert_int_equal(nv, 2);

	/* clearing leaves the live SSTables: the rows, and a later one, still read */
	OK(cfc_insert(c, S("k99"), &parent, &col, CF_T_CL_ONE));
	OK(cfc_colfam_clearsnapshot(c, k, 1, NULL, a, &v, &nv));
	assert_int_equal(nv, 2);
	OK(cfc_colfam_listsnapshots(c, k, 1, a, &v, &nv));
	assert_int_equal(nv, 0);
	OK(cfc_get_count(c, S("k3"), &parent, &(cf_t_slice_predicate) {.has_slice_range = true,
						.slice_range = {.count = 100}}, CF_T_CL_ONE, &count));
	assert_int_equal(count, 1);
	OK(cfc_get_count(c, S("k99"), &parent, &(cf_t_slice_predicate) {.has_slice_range = true,
						.slice_range = {.count = 100}}, CF_T_CL_ONE, &count));
	assert_int_equal(count, 1);

	/* what a snapshot says it took is what it took: not system's of the same name */
	OK(cfc_colfam_snapshot(c, sys, 1, "both", a, &v, &nv));
	assert_true(nv >= 1 && cf_slice_eq(v[0].keyspace, S("system")));
	OK(cfc_colfam_snapshot(c, NULL, 0, "both", a, &v, &nv));
	assert_int_equal(nv, 2);
	assert_true(cf_slice_eq(v[0].keyspace, S("K")) && cf_slice_eq(v[1].keyspace, S("K")));
	cfc_free(c);
	cf_arena_free(a);
	test_node_stop(n);
}

static void
admin_needs_modify_keyspaces(void **state)
{
	char	   *dir = test_tmpdir_new("admin-auth");
	cf_auth    *auth;
	test_node  *n;
	cfc_conn   *c;
	cf_arena   *a = cf_arena_new(1024);
	cf_ta_cf_stats *st;
	size_t		n_st;

	(void) state;
	test_auth_files(dir, (const char *const[]) {"alice:secret", "carol:pw2", NULL},
					"<modify-keyspaces>=alice\nK.<rw>=alice,carol\n");
	OK(cf_auth_open(test_path(dir, "passwd"), test_path(dir, "access"), &auth));
	n = test_node_start(auth);

	c = conn(n, "alice", "secret");
	make_schema(c, 1);
	OK(cfc_colfam_flush(c, "K", NULL, 0));
	OK(cfc_colfam_cfstats(c, "K", a, &st, &n_st));
	cfc_free(c);

	/* carol may write K, but not administer the node */
	c = conn(n, "carol", "pw2");
	FAILS(cfc_colfam_flush(c, "K", NULL, 0), CF_ERR_INVALID, "<modify-keyspaces>");
	FAILS(cfc_colfam_compact(c, "K", NULL, 0, false), CF_ERR_INVALID, "<modify-keyspaces>");
	FAILS(cfc_colfam_cfstats(c, "K", a, &st, &n_st), CF_ERR_INVALID, "<modify-keyspaces>");
	{
		cf_ta_snapshot *v;
		size_t		nv;

		FAILS(cfc_colfam_snapshot(c, NULL, 0, "s", a, &v, &nv), CF_ERR_INVALID,
			   "<modify-keyspaces>");
		FAILS(cfc_colfam_listsnapshots(c, NULL, 0, a, &v, &nv), CF_ERR_INVALID,
			   "<modify-keyspaces>");
		FAILS(cfc_colfam_clearsnapshot(c, NULL, 0, NULL, a, &v, &nv), CF_ERR_INVALID,
			   "<modify-keyspaces>");
	}
	cfc_free(c);

	/* nobody logged in */
	c = conn(n, NULL, NULL);
	FAILS(cfc_colfam_cfstats(c, "K", a, &st, &n_st), CF_ERR_INVALID, "not logged in");
	cfc_free(c);

	test_node_stop(n);
	cf_auth_free(auth);
	cf_arena_free(a);
	test_tmpdir_free(dir);
}

/* ---- the tool ---- */

/* Runs a colfam command with stdout captured into out (NUL-terminated); its status. */
static int
run_tool(int (*fn) (int, char **), char *out, size_t size, int argc, char **argv)
{
	FILE	   *tmp = tmpfile();
	int			saved = dup(STDOUT_FILENO);
	int			rc;
	size_t		got;

	fflush(stdout);
	dup2(fileno(tmp), STDOUT_FILENO);
	rc = fn(argc, argv);
	fflush(stdout);
	dup2(saved, STDOUT_FILENO);
	close(saved);
	rewind(tmp);
	got = fread(out, 1, size - 1, tmp);
	out[got] = '\0';
	fclose(tmp);
	return rc;
}

#define TOOL(fn, out, ...) \
	run_tool(fn, out, sizeof(out), \
			 (int) (sizeof((char *[]) {__VA_ARGS__}) / sizeof(char *)), (char *[]) {__VA_ARGS__})

static void
contains(const char *text, const char *part)
{
	if (strstr(text, part) == NULL)
		fail_msg("output lacks \"%s\":\n%s", part, text);
}

static void
tool_output(void **state)
{
	test_node  *n = test_node_start(NULL);
	cfc_conn   *c = conn(n, NULL, NULL);
	char		port[16];
	char		out[8192];

	(void) state;
	make_schema(c, 3);
	cfc_free(c);
	snprintf(port, sizeof(port), "%d", test_node_port(n));

	assert_int_equal(TOOL(cft_cmd_status, out, "status", "-h", "127.0.0.1", "-p", port), 0);
	contains(out, "Cluster:      Test Cluster");
	contains(out, "API version:  " CF_THRIFT_API_VERSION);
	contains(out, "Partitioner:  org.apache.cassandra.dht.");
	contains(out, "Snitch:       org.apache.cassandra.locator.SimpleSnitch");
	contains(out, "  K\n");

	assert_int_equal(TOOL(cft_cmd_status, out, "info", "-h", "127.0.0.1", "-p", port), 0);
	contains(out, "  K: org.apache.cassandra.locator.SimpleStrategy, replication_factor 1, "
			 "2 column families");
	contains(out, "    A (Standard, ");

	assert_int_equal(TOOL(cft_cmd_status, out, "ring", "-h", "127.0.0.1", "-p", port), 0);
	contains(out, "Keyspace K: 1 range\n");
	contains(out, "]  127.0.0.1");
	assert_null(strstr(out, "Keyspace system"));
	assert_int_equal(TOOL(cft_cmd_status, out, "ring", "Nope", "-h", "127.0.0.1", "-p", port), 1);

	assert_int_equal(TOOL(cft_cmd_cfstats, out, "cfstats", "-k", "K", "A", "-p", port,
						  "-h", "127.0.0.1"), 0);
	contains(out, "Keyspace: K\n\tColumn Family: A\n\tSSTable count: 0\n");
	contains(out, "\tMemtable operations: 3\n");
	contains(out, "\tNumber of keys (estimate): 3\n");
	assert_null(strstr(out, "Column Family: B"));

	assert_int_equal(TOOL(cft_cmd_flush, out, "flush", "-k", "K", "-h", "127.0.0.1", "-p", port), 0);
	contains(out, "flushed K\n");
	assert_int_equal(TOOL(cft_cmd_compact, out, "compact", "--major", "-h", "127.0.0.1", "-p", port), 0);
	contains(out, "compacted K (major)\n");
	assert_int_equal(TOOL(cft_cmd_cfstats, out, "cfstats", "-h", "127.0.0.1", "-p", port), 0);
	contains(out, "Column Family: A\n\tSSTable count: 1\n");
	contains(out, "Column Family: B\n");
	contains(out, "\tFlushes: 1\n");

	/* errors: the message on stderr, status 1; usage errors 2 */
	assert_int_equal(TOOL(cft_cmd_flush, out, "flush", "-k", "K", "Nope", "-h", "127.0.0.1",
						  "-p", port), 1);
	assert_int_equal(TOOL(cft_cmd_cfstats, out, "cfstats", "-k", "K", "Nope", "-h", "127.0.0.1",
						  "-p", port), 1);
	assert_int_equal(TOOL(cft_cmd_flush, out, "flush", "A"), 2);
	assert_int_equal(TOOL(cft_cmd_flush, out, "flush", "--major"), 2);
	assert_int_equal(TOOL(cft_cmd_status, out, "status", "-p", "0"), 2);
	assert_int_equal(TOOL(cft_cmd_status, out, "status", "extra"), 2);
	assert_int_equal(TOOL(cft_cmd_status, out, "status", "--help"), 0);
	contains(out, "usage: colfam status");

	/* snapshots: taken (the time in ms by default), listed, cleared */
	assert_int_equal(TOOL(cft_cmd_snapshot, out, "snapshot", "-t", "s1", "-h", "127.0.0.1",
						  "-p", port), 0);
	contains(out, "Took snapshot \"s1\" of K: 2 column families, 3 files (hard links), ");
	contains(out, "/K/A/snapshots/s1\n");
	assert_int_equal(TOOL(cft_cmd_snapshot, out, "snapshot", "-k", "K", "-h", "127.0.0.1",
						  "-p", port), 0);
	contains(out, "Took snapshot \"1");
	assert_int_equal(TOOL(cft_cmd_snapshot, out, "listsnapshots", "-h", "127.0.0.1", "-p", port), 0);
	contains(out, "Snapshot       Keyspace   CFs   Files           Bytes  Clearing frees\n");
	contains(out, "\ns1             K            2       3  ");
	contains(out, "Snapshot files are hard links");
	assert_int_equal(TOOL(cft_cmd_snapshot, out, "clearsnapshot", "-t", "s1", "-h", "127.0.0.1",
						  "-p", port), 0);
	contains(out, "Cleared snapshot \"s1\" of K: 2 column families, 3 files (hard links), ");
	assert_int_equal(TOOL(cft_cmd_snapshot, out, "clearsnapshot", "-h", "127.0.0.1", "-p", port), 0);
	assert_null(strstr(out, "\"s1\""));
	assert_int_equal(TOOL(cft_cmd_snapshot, out, "listsnapshots", "-h", "127.0.0.1", "-p", port), 0);
	contains(out, "No snapshots.\n");
	assert_int_equal(TOOL(cft_cmd_snapshot, out, "snapshot", "-t", "s1", "-k", "Nope",
						  "-h", "127.0.0.1", "-p", port), 1);
	assert_int_equal(TOOL(cft_cmd_snapshot, out, "snapshot", "K"), 2);
	assert_int_equal(TOOL(cft_cmd_snapshot, out, "listsnapshots", "-t", "x"), 2);
	assert_int_equal(TOOL(cft_cmd_snapshot, out, "clearsnapshot", "--help"), 0);
	contains(out, "usage: colfam clearsnapshot [-k KEYSPACE]... [-t NAME]");
	test_node_stop(n);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(codec_round_trips),
		cmocka_unit_test(flush_compact_cfstats),
		cmocka_unit_test(snapshots_through_a_node),
		cmocka_unit_test(admin_needs_modify_keyspaces),
		cmocka_unit_test(tool_output),
	};

	cf_log_set_level(CF_LOG_WARN);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
