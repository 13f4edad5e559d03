/* tests/unit/test_db_faults.c — the whole db under the fault env (util/env_fault.h):
 * a failed commit-log fsync in batch mode, ENOSPC in the commit log and during
 * flushes, and simulated power loss with writers running. Each fails the write it
 * hits with an error, loses nothing acknowledged, and leaves a CF's secondary index
 * consistent with its rows after the db is opened again (the row and its index
 * changes share one commit-log record). Seeded: CF_TEST_SEED repeats a run. */
#include "support/cmocka_prelude.h"
#include "support/slices.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "db/db.h"
#include "support/dbfixture.h"
#include "support/envtest.h"
#include "util/env_fault.h"
#include "util/log.h"

#define KS "F"
#define NKEYS 64
#define NVALS 6

static unsigned rng;

static unsigned
rnd(unsigned n)
{
	rng = rng * 1103515245u + 12345u;
	return (rng >> 8) % n;
}

static unsigned
seed_of(const char *test)
{
	const char *env = getenv("CF_TEST_SEED");
	unsigned	seed = env ? (unsigned) strtoul(env, NULL, 10) : (unsigned) time(NULL);

	print_message("%s: seed %u (CF_TEST_SEED repeats it)\n", test, seed);
	return seed;
}

/*
 * Opens f->db. f->db is NULL until the open succeeds, so a failed open does not leave
 * the teardown a db closed or abandoned earlier.
 */
static void
open_db(db_fixture *f, cf_env *env, cf_commitlog_sync_mode mode, uint64_t memtable_ops)
{
	cf_db_options o = db_fixture_options(f);

	o.env = env;
	o.sync_mode = mode;
	o.memtable_max_ops = memtable_ops;
	db_fixture_open(f, &o);
}

/* Rows: UTF8 names; "v" (UTF8Type) indexed, "w" not. */
static void
add_schema(cf_db *db)
{
	cf_ks_def	ks;
	cf_cf_def	cf;

	OK(cf_ksdef_init(&ks, KS));
	OK(cf_cfdef_init(&cf, KS, "Rows"));
	OK(cf_cfdef_set_comparator(&cf, "UTF8Type"));
	OK(cf_cfdef_add_column(&cf, S("v"), "UTF8Type", true, "rows_v"));
	OK(cf_cfdef_add_column(&cf, S("w"), "UTF8Type", false, NULL));
	OK(cf_ksdef_add_cf(&ks, &cf));
	OK(cf_db_add_keyspace(db, &ks));
	cf_ksdef_clear(&ks);
}

static void
key_of(int k, char *out)
{
	snprintf(out, 16, "k%03d", k);
}

/* Writes v=value (or deletes v when value < 0) in row k, with a padding column. */
static cf_status *
write_v(cf_db *db, int k, int value, int64_t ts)
{
	char		key[16], val[16];
	cf_cell		c[2];
	size_t		n = 1;
	cf_db_update u = {.cf = "Rows",.u = {.row_del = cf_deletion_none(),.cells = c}};

	key_of(k, key);
	snprintf(val, sizeof(val), "val%d", value);
	if (value < 0)
		c[0] = (cf_cell) {.name = S("v"),.timestamp = ts,.flags = CF_CELL_DELETED,
		.local_time = (int32_t) time(NULL)};
	else
	{
		c[0] = (cf_cell) {.name = S("v"),.value = S(val),.timestamp = ts};
		c[1] = (cf_cell) {.name = S("w"),.value = S("padding-padding-padding"),.timestamp = ts};
		n = 2;
	}
	u.u.n_cells = n;
	return cf_db_apply(db, KS, S(key), &u, 1);
}

/* The live value of v in row k: 0..NVALS-1, or -1 when it has none. */
static int
read_v(cf_db *db, int k)
{
	char		key[16];
	cf_table_set v;
	cf_buf		token = CF_BUF_INIT;
	cf_read_result *r = NULL;
	cf_status  *s;
	int			out = -1;

	key_of(k, key);
	OK(cf_db_view(db, KS, "Rows", &v));
	OK(cf_db_token(db, S(key), &token));
	s = cf_read_get(&v, cf_slice_of(token.data, token.len), S(key), cf_slice_of(NULL, 0),
					S("v"), (int32_t) time(NULL), &r);
	if (s == NULL)
	{
		char		val[16];

		snprintf(val, sizeof(val), "%.*s", (int) r->slice.columns[0].value.len,
				 r->slice.columns[0].value.p);
		out = atoi(val + 3);
	}
	else if (cf_status_code(s) != CF_ERR_NOT_FOUND)
		fail_msg("reading %s: %s", key, cf_status_msg(s));
	cf_status_free(s);
	cf_read_result_free(r);
	cf_buf_free(&token);
	cf_cfstore_view_release(&v);
	return out;
}

/*
 * The index agrees with the rows: for every value, get_indexed_slices returns exactly
 * the rows whose live v is that value. Returns how many rows have a value.
 */
static int
check_index_matches_rows(cf_db *db, const char *when)
{
	int			vals[NKEYS];
	int			live = 0;

	for (int k = 0; k < NKEYS; k++)
		live += (vals[k] = read_v(db, k)) >= 0;
	for (int x = 0; x < NVALS; x++)
	{
		char		val[16];
		cf_index_expr e;
		cf_index_clause c;
		cf_predicate pred = {.range = {.count = 10}};
		cf_read_rows *r;
		bool		found[NKEYS] = {false};

		snprintf(val, sizeof(val), "val%d", x);
		e = (cf_index_expr) {S("v"), CF_INDEX_EQ, S(val)};
		c = (cf_index_clause) {.exprs = &e,.n_exprs = 1,.count = 1000};
		OK(cf_db_get_indexed_slices(db, KS, "Rows", &c, &pred, &r));
		for (size_t i = 0; i < r->n_rows; i++)
		{
			char		key[16];
			int			k;

			snprintf(key, sizeof(key), "%.*s", (int) r->rows[i].key.len, r->rows[i].key.p);
			k = atoi(key + 1);
			if (vals[k] != x)
				fail_msg("%s: the index returns %s for %s, whose value is %d", when, key, val,
						 vals[k]);
			found[k] = true;
		}
		for (int k = 0; k < NKEYS; k++)
			if (vals[k] == x && !found[k])
				fail_msg("%s: the index lacks k%03d for %s", when, k, val);
		cf_read_rows_free(r);
	}
	return live;
}

/* Fills the CF with acknowledged writes (state in last[], -1: no value). */
static void
fill(cf_db *db, int *last, int64_t *ts, int n)
{
	for (int i = 0; i < n; i++)
	{
		int			k = (int) rnd(NKEYS);
		int			v = rnd(8) == 0 ? -1 : (int) rnd(NVALS);

		OK(write_v(db, k, v, ++*ts));
		last[k] = v;
	}
}

/*
 * Writes random values to random rows until a write is refused or max were
 * acknowledged; last[] and *acked follow every acknowledged write. Returns the refusal
 * (NULL if none came).
 */
static cf_status *
write_until_refused(cf_db *db, int *last, int64_t *ts, int max, int *acked)
{
	cf_status  *s = NULL;

	while (s == NULL && *acked < max)
	{
		int			k = (int) rnd(NKEYS);
		int			v = (int) rnd(NVALS);

		if ((s = write_v(db, k, v, ++*ts)) == NULL)
		{
			last[k] = v;
			++*acked;
		}
	}
	return s;
}

static void
expect_rows(cf_db *db, const int *last, const char *when)
{
	for (int k = 0; k < NKEYS; k++)
	{
		int			got = read_v(db, k);

		if (got != last[k])
			fail_msg("%s: k%03d has %d, the last acknowledged write left %d", when, k, got,
					 last[k]);
	}
}

/*
 * A test's start: rng seeded for test, no row acknowledged yet in last[], and f->db
 * open over a new fault env (returned) in batch mode with the schema added.
 */
static cf_env *
start(db_fixture *f, const char *test, int *last, uint64_t memtable_ops)
{
	cf_env	   *env = cf_env_fault_new(cf_env_posix());

	rng = seed_of(test);
	for (int k = 0; k < NKEYS; k++)
		last[k] = -1;
	open_db(f, env, CF_COMMITLOG_BATCH, memtable_ops);
	add_schema(f->db);
	return env;
}

/* The power goes: env loses what was not synced, and f->db is abandoned. */
static void
power_off(db_fixture *f, cf_env *env)
{
	OK(cf_env_fault_crash(env));
	cf_status_free(cf_db_abandon(f->db));
	f->db = NULL;
}

/* Opens f->db again: it holds every acknowledged write and its index matches it. */
static void
reopen_and_check(db_fixture *f, cf_env *env, uint64_t memtable_ops, const int *last,
				 const char *when)
{
	open_db(f, env, CF_COMMITLOG_BATCH, memtable_ops);
	expect_rows(f->db, last, when);
	check_index_matches_rows(f->db, when);
}

/* A test's end: f->db closed cleanly, env freed. */
static void
finish(db_fixture *f, cf_env *env)
{
	db_fixture_close(f);
	cf_env_fault_free(env);
}

/*
 * Batch mode: the commit log's fsync fails. The write fails with an I/O error, so does
 * every later one (the log is failed for good), and after a power loss nothing
 * acknowledged is missing and the index matches the rows.
 */
static void
failed_fsync_in_batch_mode(void **state)
{
	db_fixture *f = *state;
	int			last[NKEYS];
	cf_env	   *env = start(f, "failed fsync", last, 1000000);
	int64_t		ts = 0;
	int			acked = 0;
	cf_status  *s;

	fill(f->db, last, &ts, 100);
	OK(cf_db_flush(f->db, KS, NULL));	/* some in SSTables, some only in the log */
	fill(f->db, last, &ts, 50);
	cf_env_fault_fail(env, CF_FAULT_SYNC, (int) rnd(20), EIO, 1);
	s = write_until_refused(f->db, last, &ts, INT_MAX, &acked);
	assert_non_null(s);
	assert_int_equal(cf_status_code(s), CF_ERR_IO);
	print_message("failed fsync: %d more writes acknowledged, then: %s\n", acked,
				  cf_status_msg(s));
	cf_status_free(s);
	FAILS(write_v(f->db, 0, 1, ++ts), CF_ERR_IO, "commit log failed earlier");
	/* the power goes: what was not synced is gone (the failed write was never synced) */
	power_off(f, env);
	reopen_and_check(f, env, 1000000, last, "after a failed fsync");
	finish(f, env);
}

/* The disk fills while the commit log appends: NO_SPACE, then nothing lost. */
static void
enospc_in_the_commit_log(void **state)
{
	db_fixture *f = *state;
	int			last[NKEYS];
	cf_env	   *env = start(f, "ENOSPC in the commit log", last, 1000000);
	int64_t		ts = 0;
	int			acked = 0;
	cf_status  *s;

	fill(f->db, last, &ts, 100);
	cf_env_fault_set_space(env, 20000 + rnd(20000));
	s = write_until_refused(f->db, last, &ts, INT_MAX, &acked);
	assert_non_null(s);			/* a write was refused */
	assert_true(cf_status_code(s) == CF_ERR_NO_SPACE || cf_status_code(s) == CF_ERR_IO);
	print_message("ENOSPC in the commit log: %d writes acknowledged, then: %s\n", acked,
				  cf_status_msg(s));
	assert_true(acked > 0);
	cf_status_free(s);
	power_off(f, env);
	/* the torn record of the failed write is cut off at replay: row and index alike */
	reopen_and_check(f, env, 1000000, last, "after ENOSPC in the commit log");
	finish(f, env);
}

/*
 * SSTables cannot be written (ENOSPC on every new file): flushes fail, writes are
 * refused with NO_SPACE once too many memtables wait, a refused write leaves no trace
 * in the row or the index, and nothing acknowledged is lost.
 */
static void
enospc_during_flush(void **state)
{
	db_fixture *f = *state;
	int			last[NKEYS];
	cf_env	   *env = start(f, "ENOSPC during flush", last, 40);
	int64_t		ts = 0;
	int			acked = 0;
	cf_status  *s;

	fill(f->db, last, &ts, 30);
	cf_env_fault_fail(env, CF_FAULT_OPEN_WRITE, 0, ENOSPC, -1);
	s = write_until_refused(f->db, last, &ts, 100000, &acked);
	assert_non_null(s);
	assert_int_equal(cf_status_code(s), CF_ERR_NO_SPACE);
	assert_non_null(strstr(cf_status_msg(s), "flushing fails"));
	print_message("ENOSPC during flush: %d writes acknowledged, then: %s\n", acked,
				  cf_status_msg(s));
	cf_status_free(s);
	/* still refused, still consistent while the disk stays full */
	FAILS(write_v(f->db, 1, 2, ++ts), CF_ERR_NO_SPACE, "flushing fails");
	check_index_matches_rows(f->db, "with the disk full");
	cf_status_free(cf_db_abandon(f->db));
	cf_env_fault_clear(env);
	reopen_and_check(f, env, 40, last, "after ENOSPC during flush");
	/* the disk has room again: flushing works and the db carries on */
	fill(f->db, last, &ts, 200);
	OK(cf_db_flush(f->db, KS, NULL));
	OK(cf_db_compact(f->db, KS, "Rows", true));
	expect_rows(f->db, last, "after the disk has room again");
	check_index_matches_rows(f->db, "after the disk has room again");
	finish(f, env);
}

/*
 * Segment ids come from the wall clock in milliseconds. Every segment retired and the
 * db opened again within the same millisecond: the new segment must still come after
 * every position an SSTable recorded as flushed, or replay takes the new records for
 * flushed ones and an acknowledged write is lost after a crash.
 */
static void
segment_ids_grow_past_flushed_positions(void **state)
{
	db_fixture *f = *state;
	cf_env	   *env = cf_env_fault_new(cf_env_posix());

	cf_env_fault_set_time(env, 1800000000LL * 1000000);	/* the clock stands still */
	open_db(f, env, CF_COMMITLOG_BATCH, 1000000);
	add_schema(f->db);
	OK(write_v(f->db, 1, 1, 1));
	db_fixture_close(f);		/* flushed: SSTables record where in the log */
	open_db(f, env, CF_COMMITLOG_BATCH, 1000000);
	db_fixture_close(f);		/* its segments retired: the log directory is empty */
	open_db(f, env, CF_COMMITLOG_BATCH, 1000000);
	OK(write_v(f->db, 2, 2, 2));	/* acknowledged: synced to the log */
	power_off(f, env);
	open_db(f, env, CF_COMMITLOG_BATCH, 1000000);
	assert_int_equal(read_v(f->db, 1), 1);
	assert_int_equal(read_v(f->db, 2), 2);
	check_index_matches_rows(f->db, "after a crash in the same millisecond");
	finish(f, env);
}

/* ---- power loss with writers running ---- */

#define WRITERS 4

typedef struct writer
{
	cf_db	   *db;
	int			id;				/* keys id, id + WRITERS, ... */
	unsigned	rng;
	int64_t		ts;
	atomic_int	stop;
	/* per key: the last acknowledged value and the one in flight (-2: none) */
	int			acked[NKEYS];
	int			inflight[NKEYS];
	int			n_acked;
	cf_status  *error;
} writer;

static void *
writer_main(void *arg)
{
	writer	   *w = arg;

	while (!atomic_load(&w->stop))
	{
		int			k;
		int			v;
		cf_status  *s;

		w->rng = w->rng * 1103515245u + 12345u;
		k = w->id + WRITERS * (int) ((w->rng >> 8) % (NKEYS / WRITERS));
		v = (w->rng >> 20) % 10 == 0 ? -1 : (int) ((w->rng >> 12) % NVALS);
		w->inflight[k] = v;
		s = write_v(w->db, k, v, ++w->ts);
		if (s)
		{
			w->error = s;		/* the first failure ends this writer */
			break;
		}
		w->acked[k] = v;
		w->inflight[k] = -2;
		w->n_acked++;
	}
	return NULL;
}

/*
 * Cycles of: writers overwrite and delete indexed values concurrently, the power goes
 * at a random moment, the db opens again. Batch mode: every row holds its last
 * acknowledged value or the one that was in flight. Both modes: the index matches the
 * rows exactly.
 */
static void
power_loss_with_writers(db_fixture *f, cf_commitlog_sync_mode mode, const char *name)
{
	cf_env	   *env = cf_env_fault_new(cf_env_posix());
	int			state[NKEYS];
	int64_t		ts_base = 0;
	int			total_acked = 0;

	rng = seed_of(name);
	for (int k = 0; k < NKEYS; k++)
		state[k] = -1;
	open_db(f, env, mode, 1000000);
	add_schema(f->db);
	db_fixture_close(f);
	for (int cycle = 0; cycle < 6; cycle++)
	{
		writer		w[WRITERS];
		pthread_t	th[WRITERS];
		char		when[64];

		open_db(f, env, mode, 1000000);
		check_index_matches_rows(f->db, "at the start of a cycle");
		if (cycle % 2)
		{
			/* sometimes with part of the data in SSTables already */
			OK(cf_db_flush(f->db, KS, NULL));
		}
		for (int i = 0; i < WRITERS; i++)
		{
			memset(&w[i], 0, sizeof(w[i]));
			w[i].db = f->db;
			w[i].id = i;
			w[i].rng = rnd(1u << 30);
			w[i].ts = ts_base + 1000000 * (cycle + 1);
			atomic_init(&w[i].stop, 0);
			for (int k = 0; k < NKEYS; k++)
			{
				w[i].acked[k] = state[k];
				w[i].inflight[k] = -2;
			}
			assert_int_equal(pthread_create(&th[i], NULL, writer_main, &w[i]), 0);
		}
		usleep((useconds_t) (2000 + rnd(30000)));
		OK(cf_env_fault_crash(env));
		for (int i = 0; i < WRITERS; i++)
		{
			atomic_store(&w[i].stop, 1);
			pthread_join(th[i], NULL);
			cf_status_free(w[i].error);
			total_acked += w[i].n_acked;
		}
		cf_status_free(cf_db_abandon(f->db));
		open_db(f, env, mode, 1000000);
		snprintf(when, sizeof(when), "%s, cycle %d", name, cycle);
		for (int k = 0; k < NKEYS; k++)
		{
			const writer *o = &w[k % WRITERS];
			int			got = read_v(f->db, k);

			if (mode == CF_COMMITLOG_BATCH && got != o->acked[k] && got != o->inflight[k])
				fail_msg("%s: k%03d has %d, not its last acknowledged value %d (nor %d, in "
						 "flight)", when, k, got, o->acked[k], o->inflight[k]);
			state[k] = got;
		}
		check_index_matches_rows(f->db, when);
		db_fixture_close(f);
		ts_base += 10000000;
	}
	print_message("%s: 6 power losses, %d writes acknowledged\n", name, total_acked);
	assert_true(total_acked > 0);
	cf_env_fault_free(env);
}

static void
power_loss_batch(void **state)
{
	power_loss_with_writers(*state, CF_COMMITLOG_BATCH, "power loss, batch mode");
}

static void
power_loss_periodic(void **state)
{
	power_loss_with_writers(*state, CF_COMMITLOG_PERIODIC, "power loss, periodic mode");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		DB_TEST(failed_fsync_in_batch_mode),
		DB_TEST(enospc_in_the_commit_log),
		DB_TEST(enospc_during_flush),
		DB_TEST(segment_ids_grow_past_flushed_positions),
		DB_TEST(power_loss_batch),
		DB_TEST(power_loss_periodic),
	};

	cf_log_set_level(CF_LOG_OFF);	/* the faults make the db log errors, as it should */
	return cmocka_run_group_tests_name("db/faults", tests, NULL, NULL);
}
