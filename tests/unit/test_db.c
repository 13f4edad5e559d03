/* tests/unit/test_db.c — db/db: writes and reads through the schema, restart and
 * replay, schema changes that persist, validation, truncate, compaction, and a
 * SIGKILL crash test of acknowledged writes in batch mode. */
#include "support/cmocka_prelude.h"
#include "support/slices.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "db/db.h"
#include "support/dbfixture.h"
#include "util/env_fault.h"
#include "util/log.h"

static cf_db *
open_db(db_fixture *f, cf_commitlog_sync_mode mode, uint64_t memtable_ops, bool compaction)
{
	cf_db_options o = db_fixture_options(f);
	cf_db	   *db;
	cf_status  *s;

	o.sync_mode = mode;
	o.memtable_max_ops = memtable_ops;
	o.background_compaction = compaction;
	s = cf_db_open(&o, &db);

	if (s)
		fail_msg("cf_db_open: %s", cf_status_msg(s));
	return db;
}

/*
 * open_db for a forked child: cmocka must not be called there (a failure would
 * longjmp into the child's copy of the test runner), so it exits with status 4.
 */
static cf_db *
child_open_db(db_fixture *f, cf_commitlog_sync_mode mode, uint64_t memtable_ops)
{
	cf_db_options o = db_fixture_options(f);
	cf_db	   *db;
	cf_status  *s;

	o.sync_mode = mode;
	o.memtable_max_ops = memtable_ops;
	if ((s = cf_db_open(&o, &db)) != NULL)
	{
		fprintf(stderr, "child: cf_db_open: %s\n", cf_status_msg(s));
		_exit(4);
	}
	return db;
}

/* The seeds' Twitter keyspace: Users (UTF8), Counts (LongType), Timeline (Super). */
static void
add_twitter(cf_db *db)
{
	cf_ks_def	ks;
	cf_cf_def	cf;

	assert_null(cf_ksdef_init(&ks, "Twitter"));
	assert_null(cf_cfdef_init(&cf, "Twitter", "Users"));
	assert_null(cf_cfdef_set_comparator(&cf, "UTF8Type"));
	assert_null(cf_ksdef_add_cf(&ks, &cf));
	assert_null(cf_cfdef_init(&cf, "Twitter", "Counts"));
	assert_null(cf_cfdef_set_comparator(&cf, "LongType"));
	assert_null(cf_ksdef_add_cf(&ks, &cf));
	assert_null(cf_cfdef_init(&cf, "Twitter", "Timeline"));
	assert_null(cf_cfdef_set_column_type(&cf, "Super"));
	assert_null(cf_cfdef_set_comparator(&cf, "UTF8Type"));
	assert_null(cf_cfdef_set_subcomparator(&cf, "UTF8Type"));
	assert_null(cf_ksdef_add_cf(&ks, &cf));
	assert_null(cf_db_add_keyspace(db, &ks));
	cf_ksdef_clear(&ks);
}

static cf_status *
put_sc(cf_db *db, const char *cf, const char *key, const char *sc, const char *name,
	   const char *value, int64_t ts)
{
	cf_cell		c = {.sc = S(sc),.name = S(name),.value = S(value),.timestamp = ts};
	cf_db_update u = {.cf = cf,.u = {.row_del = cf_deletion_none(),.cells = &c,.n_cells = 1}};

	return cf_db_apply(db, "Twitter", S(key), &u, 1);
}

static void
put(cf_db *db, const char *cf, const char *key, const char *name, const char *value, int64_t ts)
{
	cf_status  *s = put_sc(db, cf, key, "", name, value, ts);

	if (s)
		fail_msg("put: %s", cf_status_msg(s));
}

/* A column's value through the read path, "" when absent. */
static const char *
get_sc(cf_db *db, const char *cf, const char *key, const char *sc, const char *name)
{
	static char out[256];
	cf_table_set v;
	cf_buf		token = CF_BUF_INIT;
	cf_read_result *r = NULL;
	cf_status  *s;

	out[0] = '\0';
	assert_null(cf_db_view(db, "Twitter", cf, &v));
	assert_null(cf_db_token(db, S(key), &token));
	s = cf_read_get(&v, cf_slice_of(token.data, token.len), S(key), S(sc), S(name),
					(int32_t) time(NULL), &r);
	if (s == NULL && r->slice.n_columns == 1)
		snprintf(out, sizeof(out), "%.*s", (int) r->slice.columns[0].value.len,
				 r->slice.columns[0].value.p);
	else if (s)
		assert_int_equal(cf_status_code(s), CF_ERR_NOT_FOUND);
	cf_status_free(s);
	cf_read_result_free(r);
	cf_buf_free(&token);
	cf_cfstore_view_release(&v);
	return out;
}

static const char *
get(cf_db *db, const char *cf, const char *key, const char *name)
{
	return get_sc(db, cf, key, "", name);
}

static void
write_read_close_reopen(void **state)
{
	db_fixture *f = *state;
	cf_db	   *db = open_db(f, CF_COMMITLOG_PERIODIC, 0, false);
	cf_db_replay_stats rs;
	cf_schema  *schema;

	add_twitter(db);
	put(db, "Users", "jsmith", "email", "jsmith@example.com", 1);
	put_sc(db, "Timeline", "jsmith", "2010", "t1", "first", 1);
	assert_string_equal(get(db, "Users", "jsmith", "email"), "jsmith@example.com");
	assert_string_equal(get_sc(db, "Timeline", "jsmith", "2010", "t1"), "first");
	assert_null(cf_db_close(db));	/* flushes everything */

	db = open_db(f, CF_COMMITLOG_PERIODIC, 0, false);
	cf_db_replay_stats_get(db, &rs);
	assert_int_equal(rs.applied, 0);	/* all of it came back from SSTables */
	schema = cf_db_schema(db);
	assert_non_null(cf_schema_cf(schema, "Twitter", "Counts"));
	cf_schema_unref(schema);
	assert_string_equal(get(db, "Users", "jsmith", "email"), "jsmith@example.com");
	assert_string_equal(get_sc(db, "Timeline", "jsmith", "2010", "t1"), "first");
	assert_null(cf_db_close(db));
}

/* A child that writes and is killed: replay brings back what it wrote. */
static void
replay_after_kill(void **state)
{
	db_fixture *f = *state;
	cf_db	   *db = open_db(f, CF_COMMITLOG_BATCH, 0, false);
	cf_db_replay_stats rs;
	pid_t		pid;
	int			status;

	add_twitter(db);
	assert_null(cf_db_close(db));
	pid = fork();
	if (pid == 0)
	{
		db = child_open_db(f, CF_COMMITLOG_BATCH, 0);
		for (int i = 0; i < 50; i++)
		{
			char		key[16];

			snprintf(key, sizeof(key), "u%d", i);
			if (put_sc(db, "Users", key, "", "email", key, 1))
				_exit(2);
		}
		kill(getpid(), SIGKILL);	/* no close: nothing flushed */
		_exit(3);
	}
	assert_true(waitpid(pid, &status, 0) == pid);
	assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
	db = open_db(f, CF_COMMITLOG_BATCH, 0, false);
	cf_db_replay_stats_get(db, &rs);
	assert_int_equal(rs.applied, 50);
	assert_string_equal(get(db, "Users", "u0", "email"), "u0");
	assert_string_equal(get(db, "Users", "u49", "email"), "u49");
	assert_null(cf_db_close(db));
}

static void
invalid_writes_are_refused_whole(void **state)
{
	db_fixture *f = *state;
	cf_db	   *db = open_db(f, CF_COMMITLOG_PERIODIC, 0, false);
	cf_cell		good = {.name = S("email"),.value = S("x"),.timestamp = 1};
	cf_cell		bad = {.name = S("7bytes!"),.value = S("1"),.timestamp = 1};
	cf_db_update two[2] = {
		{.cf = "Users",.u = {.row_del = cf_deletion_none(),.cells = &good,.n_cells = 1}},
		{.cf = "Counts",.u = {.row_del = cf_deletion_none(),.cells = &bad,.n_cells = 1}},
	};
	cf_status  *s;

	add_twitter(db);
	s = cf_db_apply(db, "Twitter", S("k"), two, 2);
	assert_int_equal(cf_status_code(s), CF_ERR_INVALID);
	assert_non_null(strstr(cf_status_msg(s), "LongType"));
	assert_non_null(strstr(cf_status_msg(s), "8 bytes"));
	cf_status_free(s);
	assert_string_equal(get(db, "Users", "k", "email"), "");	/* nothing applied */

	s = cf_db_apply(db, "Nope", S("k"), two, 1);
	assert_int_equal(cf_status_code(s), CF_ERR_NOT_FOUND);
	assert_non_null(strstr(cf_status_msg(s), "keyspace Nope"));
	cf_status_free(s);
	two[0].cf = "Nope";
	s = cf_db_apply(db, "Twitter", S("k"), two, 1);
	assert_int_equal(cf_status_code(s), CF_ERR_NOT_FOUND);
	cf_status_free(s);
	s = cf_db_apply(db, "system", S("k"), two, 1);
	assert_int_equal(cf_status_code(s), CF_ERR_INVALID);
	cf_status_free(s);
	s = put_sc(db, "Users", "", "", "email", "x", 1);
	assert_int_equal(cf_status_code(s), CF_ERR_INVALID);
	cf_status_free(s);
	s = put_sc(db, "Timeline", "k", "", "t1", "no super column", 1);
	assert_int_equal(cf_status_code(s), CF_ERR_INVALID);
	cf_status_free(s);
	assert_null(cf_db_close(db));
}

/* Does some snapshot under dir hold an SSTable? */
static bool
snapshot_has_sstable(const char *dir)
{
	DIR		   *d = opendir(dir);
	struct dirent *e;
	bool		found = false;

	while (d && !found && (e = readdir(d)) != NULL)
	{
		char		sub[1024];
		DIR		   *sd;
		struct dirent *se;

		if (e->d_name[0] == '.')
			continue;
		snprintf(sub, sizeof(sub), "%s/%s", dir, e->d_name);
		for (sd = opendir(sub); sd && !found && (se = readdir(sd)) != NULL;)
			found = strstr(se->d_name, ".sst") != NULL;
		if (sd)
			closedir(sd);
	}
	if (d)
		closedir(d);
	return found;
}

static void
schema_changes_persist(void **state)
{
	db_fixture *f = *state;
	cf_db	   *db = open_db(f, CF_COMMITLOG_PERIODIC, 0, false);
	cf_cf_def	cf;
	cf_schema  *schema;
	uint32_t	dropped_id;
	char		snapdir[600];
	cf_status  *s;

	add_twitter(db);
	put(db, "Users", "a", "email", "1", 1);
	schema = cf_db_schema(db);
	dropped_id = cf_schema_cf(schema, "Twitter", "Users")->id;
	cf_schema_unref(schema);
	assert_null(cf_db_drop_cf(db, "Twitter", "Users"));
	s = put_sc(db, "Users", "a", "", "email", "1", 1);
	assert_int_equal(cf_status_code(s), CF_ERR_NOT_FOUND);
	cf_status_free(s);
	/* its data was snapshotted before removal */
	snprintf(snapdir, sizeof(snapdir), "%s/Twitter/Users/snapshots", f->data);
	assert_true(snapshot_has_sstable(snapdir));

	assert_null(cf_cfdef_init(&cf, "Twitter", "Users"));
	assert_null(cf_db_add_cf(db, &cf));
	cf_cfdef_clear(&cf);
	assert_string_equal(get(db, "Users", "a", "email"), "");	/* a new, empty CF */
	assert_null(cf_db_close(db));

	db = open_db(f, CF_COMMITLOG_PERIODIC, 0, false);
	schema = cf_db_schema(db);
	assert_non_null(cf_schema_cf(schema, "Twitter", "Users"));
	assert_true(cf_schema_cf(schema, "Twitter", "Users")->id > dropped_id);	/* not reused */
	cf_schema_unref(schema);
	assert_null(cf_db_drop_keyspace(db, "Twitter"));
	assert_null(cf_db_close(db));
	db = open_db(f, CF_COMMITLOG_PERIODIC, 0, false);
	schema = cf_db_schema(db);
	assert_null(cf_schema_keyspace(schema, "Twitter"));
	cf_schema_unref(schema);
	assert_null(cf_db_close(db));
}

static void
truncate_and_compaction(void **state)
{
	db_fixture *f = *state;
	cf_db	   *db = open_db(f, CF_COMMITLOG_PERIODIC, 200, true);
	cf_cfstore_stats st;

	add_twitter(db);
	/* small memtables: many flushes, and background size-tiered compactions */
	for (int i = 0; i < 3000; i++)
	{
		char		key[16], value[16];

		snprintf(key, sizeof(key), "k%d", i % 500);
		snprintf(value, sizeof(value), "v%d", i);
		put(db, "Users", key, "c", value, i);
	}
	assert_null(cf_db_flush(db, "Twitter", "Users"));
	assert_null(cf_db_compact(db, "Twitter", "Users", true));
	assert_null(cf_db_cf_stats(db, "Twitter", "Users", &st));
	assert_int_equal(st.sstables, 1);
	assert_string_equal(get(db, "Users", "k7", "c"), "v2507");
	assert_string_equal(get(db, "Users", "k499", "c"), "v2999");

	assert_null(cf_db_truncate(db, "Twitter", "Users"));
	assert_string_equal(get(db, "Users", "k7", "c"), "");
	assert_null(cf_db_close(db));
	db = open_db(f, CF_COMMITLOG_PERIODIC, 0, false);
	assert_string_equal(get(db, "Users", "k7", "c"), "");	/* replay does not revive it */
	assert_null(cf_db_close(db));
}

static void
partitioner_cannot_change(void **state)
{
	db_fixture *f = *state;
	cf_db	   *db = open_db(f, CF_COMMITLOG_PERIODIC, 0, false);
	cf_db_options o = {
		.env = cf_env_posix(),.data_dir = f->data,.commitlog_dir = f->log,
		.partitioner = CF_PARTITIONER_BYTE_ORDERED,
	};
	cf_status  *s;

	add_twitter(db);
	assert_null(cf_db_close(db));
	s = cf_db_open(&o, &db);
	assert_int_equal(cf_status_code(s), CF_ERR_INVALID);
	assert_non_null(strstr(cf_status_msg(s), "RandomPartitioner"));
	cf_status_free(s);
}

/* The disk fills up: writes fail with NO_SPACE, nothing acknowledged is lost. */
static void
full_disk_fails_writes_and_loses_nothing(void **state)
{
	db_fixture *f = *state;
	cf_env	   *env = cf_env_fault_new(cf_env_posix());
	cf_db_options o = {
		.env = env,.data_dir = f->data,.commitlog_dir = f->log,
		.partitioner = CF_PARTITIONER_RANDOM,.sync_mode = CF_COMMITLOG_BATCH,
		.memtable_max_ops = 300,
	};
	cf_db	   *db;
	cf_status  *s = NULL;
	int			acked = 0;

	assert_null(cf_db_open(&o, &db));
	add_twitter(db);
	cf_env_fault_set_space(env, 256 * 1024);	/* from here on, 256 KiB of disk left */
	for (int i = 0; i < 100000 && s == NULL; i++)
	{
		char		key[32];

		snprintf(key, sizeof(key), "full%d", i);
		if ((s = put_sc(db, "Users", key, "", "v", key, 1)) == NULL)
			acked++;
	}
	assert_non_null(s);
	assert_true(cf_status_code(s) == CF_ERR_NO_SPACE || cf_status_code(s) == CF_ERR_IO);
	print_message("full disk: %d writes acknowledged, then: %s\n", acked, cf_status_msg(s));
	assert_true(acked > 0);		/* else "nothing lost" below checks nothing */
	cf_status_free(s);
	cf_status_free(cf_db_abandon(db));	/* the log is in its failed state: no flush */
	cf_env_fault_free(env);

	db = open_db(f, CF_COMMITLOG_BATCH, 0, false);
	for (int i = 0; i < acked; i++)
	{
		char		key[32];

		snprintf(key, sizeof(key), "full%d", i);
		if (strcmp(get(db, "Users", key, "v"), key) != 0)
			fail_msg("acknowledged write %s lost after the disk filled up", key);
	}
	assert_null(cf_db_close(db));
}

/* A quiet CF flushes once its memtable is older than memtable_flush_after_mins. */
static void
idle_memtable_flushes_by_age(void **state)
{
	db_fixture *f = *state;
	cf_env	   *env = cf_env_fault_new(cf_env_posix());
	cf_db_options o = {
		.env = env,.data_dir = f->data,.commitlog_dir = f->log,
		.partitioner = CF_PARTITIONER_RANDOM,.sync_mode = CF_COMMITLOG_PERIODIC,
	};
	cf_cfstore_stats st = {0};
	cf_db	   *db;

	cf_env_fault_set_time(env, 1800000000LL * 1000000);
	assert_null(cf_db_open(&o, &db));
	add_twitter(db);
	put(db, "Users", "quiet", "c", "v", 1);
	cf_env_fault_advance_time(env, 61LL * 60 * 1000000);	/* past the default 60 minutes */
	for (int i = 0; i < 600 && st.sstables == 0; i++)	/* up to 30 s on a loaded machine */
	{
		usleep(50000);
		assert_null(cf_db_cf_stats(db, "Twitter", "Users", &st));
	}
	assert_int_equal(st.sstables, 1);	/* no further write was needed */
	assert_null(cf_db_close(db));
	cf_env_fault_free(env);
}

/* update_cf of the memtable thresholds takes effect without a restart. */
static void
updated_thresholds_apply_at_once(void **state)
{
	db_fixture *f = *state;
	cf_db	   *db = open_db(f, CF_COMMITLOG_PERIODIC, 0, false);
	cf_schema  *schema;
	cf_cf_def	def;
	cf_cfstore_stats st;

	add_twitter(db);
	schema = cf_db_schema(db);
	assert_null(cf_cfdef_copy(&def, cf_schema_cf(schema, "Twitter", "Users")));
	cf_schema_unref(schema);
	def.memtable_operations_in_millions = 0.0001;	/* 100 operations */
	assert_null(cf_db_update_cf(db, &def));
	cf_cfdef_clear(&def);
	for (int i = 0; i < 150; i++)
	{
		char		key[16];

		snprintf(key, sizeof(key), "t%d", i);
		put(db, "Users", key, "c", key, 1);
	}
	assert_null(cf_db_cf_stats(db, "Twitter", "Users", &st));
	assert_true(st.flushes + (uint64_t) st.pending_flushes >= 1);
	assert_null(cf_db_close(db));
}

/* A CF whose store cannot be created is not added, not even on disk. */
static void
failed_add_cf_is_not_persisted(void **state)
{
	db_fixture *f = *state;
	cf_env	   *env = cf_env_fault_new(cf_env_posix());
	cf_db_options o = {
		.env = env,.data_dir = f->data,.commitlog_dir = f->log,
		.partitioner = CF_PARTITIONER_RANDOM,.sync_mode = CF_COMMITLOG_PERIODIC,
	};
	cf_cf_def	cf;
	cf_schema  *schema;
	cf_db	   *db;
	cf_status  *s;

	assert_null(cf_db_open(&o, &db));
	add_twitter(db);
	assert_null(cf_cfdef_init(&cf, "Twitter", "Extra"));
	cf_env_fault_fail(env, CF_FAULT_MKDIRS, 0, EACCES, 1);
	s = cf_db_add_cf(db, &cf);
	cf_cfdef_clear(&cf);
	assert_non_null(s);
	cf_status_free(s);
	schema = cf_db_schema(db);
	assert_null(cf_schema_cf(schema, "Twitter", "Extra"));
	cf_schema_unref(schema);
	assert_null(cf_db_close(db));
	cf_env_fault_free(env);
	db = open_db(f, CF_COMMITLOG_PERIODIC, 0, false);
	schema = cf_db_schema(db);
	assert_null(cf_schema_cf(schema, "Twitter", "Extra"));
	assert_non_null(cf_schema_cf(schema, "Twitter", "Users"));
	cf_schema_unref(schema);
	assert_null(cf_db_close(db));
}

/*
 * Flushing fails (no space for new SSTables): writes are eventually refused, and a
 * refused write must not come back after a restart — it was never logged.
 */
static void
refused_write_is_not_logged(void **state)
{
	db_fixture *f = *state;
	cf_env	   *env = cf_env_fault_new(cf_env_posix());
	cf_db_options o = {
		.env = env,.data_dir = f->data,.commitlog_dir = f->log,
		.partitioner = CF_PARTITIONER_RANDOM,.sync_mode = CF_COMMITLOG_BATCH,
		.memtable_max_ops = 50,
	};
	cf_db	   *db;
	cf_status  *s = NULL;
	char		refused[32] = "";
	int			acked = 0;

	assert_null(cf_db_open(&o, &db));
	add_twitter(db);
	cf_env_fault_fail(env, CF_FAULT_OPEN_WRITE, 0, ENOSPC, -1);	/* SSTables cannot be made */
	for (int i = 0; i < 100000 && s == NULL; i++)
	{
		char		key[32];

		snprintf(key, sizeof(key), "r%d", i);
		if ((s = put_sc(db, "Users", key, "", "v", key, 1)) == NULL)
			acked++;
		else
			snprintf(refused, sizeof(refused), "%s", key);
	}
	assert_non_null(s);
	assert_int_equal(cf_status_code(s), CF_ERR_NO_SPACE);
	assert_non_null(strstr(cf_status_msg(s), "flushing fails"));
	assert_true(acked > 0);
	cf_status_free(s);
	cf_status_free(cf_db_abandon(db));
	cf_env_fault_free(env);

	db = open_db(f, CF_COMMITLOG_BATCH, 0, false);
	for (int i = 0; i < acked; i++)
	{
		char		key[32];

		snprintf(key, sizeof(key), "r%d", i);
		if (strcmp(get(db, "Users", key, "v"), key) != 0)
			fail_msg("acknowledged write %s lost", key);
	}
	assert_string_equal(get(db, "Users", refused, "v"), "");
	assert_null(cf_db_close(db));
}

/*
 * Many cycles: a child writes in batch mode and reports each acknowledged write over
 * a pipe; the parent kills it at a random moment and checks every acknowledged write.
 */
static void
sigkill_loses_no_acknowledged_write(void **state)
{
	db_fixture *f = *state;
	cf_db	   *db = open_db(f, CF_COMMITLOG_BATCH, 500, false);
	unsigned	seed = (unsigned) time(NULL);
	const char *env_seed = getenv("CF_CRASH_SEED");
	int			total_acked = 0;
	int			cycles_acked = 0;

	if (env_seed)
		seed = (unsigned) strtoul(env_seed, NULL, 10);
	print_message("db crash test: seed %u (CF_CRASH_SEED repeats it)\n", seed);
	srand(seed);
	add_twitter(db);
	assert_null(cf_db_close(db));

	for (int cycle = 0; cycle < 8; cycle++)
	{
		int			fds[2];
		pid_t		pid;
		int			acked[4096];
		int			n = 0;
		int			v;
		int			status;

		assert_int_equal(pipe(fds), 0);
		pid = fork();
		if (pid == 0)
		{
			int			ready = -1;

			close(fds[0]);
			db = child_open_db(f, CF_COMMITLOG_BATCH, 500);
			/* the parent's clock starts once the db is open, not while it replays */
			if (write(fds[1], &ready, sizeof(ready)) != sizeof(ready))
				_exit(3);
			for (int i = 0; i < 4096; i++)
			{
				char		key[32];

				snprintf(key, sizeof(key), "c%d-%d", cycle, i);
				if (put_sc(db, "Users", key, "", "v", key, 1))
					_exit(2);
				if (write(fds[1], &i, sizeof(i)) != sizeof(i))
					_exit(3);
			}
			_exit(0);
		}
		close(fds[1]);
		if (read(fds[0], &v, sizeof(v)) != sizeof(v) || v != -1)
			fail_msg("cycle %d: the child did not open the db", cycle);
		usleep((useconds_t) (5000 + rand() % 40000));
		kill(pid, SIGKILL);
		while (n < 4096 && read(fds[0], &v, sizeof(v)) == sizeof(v))
			acked[n++] = v;
		close(fds[0]);
		assert_true(waitpid(pid, &status, 0) == pid);
		/* killed, or done with every write; never a failed write */
		if (!(WIFSIGNALED(status) || (WIFEXITED(status) && WEXITSTATUS(status) == 0)))
			fail_msg("cycle %d: the child failed with status %d", cycle, WEXITSTATUS(status));

		db = open_db(f, CF_COMMITLOG_BATCH, 500, false);
		for (int i = 0; i < n; i++)
		{
			char		key[32];

			snprintf(key, sizeof(key), "c%d-%d", cycle, acked[i]);
			if (strcmp(get(db, "Users", key, "v"), key) != 0)
				fail_msg("cycle %d: acknowledged write %s lost (seed %u)", cycle, key, seed);
		}
		total_acked += n;
		cycles_acked += n > 0;
		assert_null(cf_db_close(db));
	}
	/* most cycles must have had something to check, or the test proves little */
	assert_true(cycles_acked >= 4);
	print_message("db crash test: 8 SIGKILL cycles (%d with writes), %d acknowledged "
				  "writes, none lost\n", cycles_acked, total_acked);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		DB_TEST(write_read_close_reopen),
		DB_TEST(replay_after_kill),
		DB_TEST(invalid_writes_are_refused_whole),
		DB_TEST(schema_changes_persist),
		DB_TEST(truncate_and_compaction),
		DB_TEST(partitioner_cannot_change),
		DB_TEST(idle_memtable_flushes_by_age),
		DB_TEST(updated_thresholds_apply_at_once),
		DB_TEST(failed_add_cf_is_not_persisted),
		DB_TEST(refused_write_is_not_logged),
		DB_TEST(full_disk_fails_writes_and_loses_nothing),
		DB_TEST(sigkill_loses_no_acknowledged_write),
	};

	cf_log_set_level(CF_LOG_WARN);
	return cmocka_run_group_tests_name("db/db", tests, NULL, NULL);
}
