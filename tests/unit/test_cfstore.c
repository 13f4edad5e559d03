/* tests/unit/test_cfstore.c — db/cfstore: flush and reopen, MANIFEST and orphans,
 * truncate, snapshots, replace, failing flushes with backpressure, concurrency. */
#include "support/cmocka_prelude.h"
#include "support/slices.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "db/cfstore.h"
#include "storage/rowmerge.h"
#include "support/tmpdir.h"
#include "util/env_fault.h"
#include "util/log.h"

static const cf_col_order order = {false, CF_TYPE_UTF8, CF_TYPE_BYTES};

typedef struct fixture
{
	char	   *dir;
	cf_env	   *env;
	cf_commitlog_pos flushed_to;
	int			flushed_calls;
	int			wrong_cf;		/* on_flushed runs on the flusher: no cmocka there */
} fixture;

static void
on_flushed(void *arg, uint32_t cf_id, cf_commitlog_pos pos)
{
	fixture    *f = arg;

	if (cf_id != 7)
		__atomic_store_n(&f->wrong_cf, 1, __ATOMIC_RELAXED);
	__atomic_store_n(&f->flushed_to.segment, pos.segment, __ATOMIC_RELAXED);
	__atomic_store_n(&f->flushed_to.offset, pos.offset, __ATOMIC_RELAXED);
	__atomic_add_fetch(&f->flushed_calls, 1, __ATOMIC_RELAXED);
}

static cf_cfstore *
open_store(fixture *f, int max_pending)
{
	cf_cfstore_options o = {
		.env = f->env,.dir = f->dir,.name = "Users",.cf_id = 7,.order = order,
		.max_pending_flushes = max_pending,.on_flushed = on_flushed,.arg = f,
	};
	cf_cfstore *cf;

	assert_null(cf_cfstore_open(&o, &cf));
	return cf;
}

static void
put(cf_cfstore *cf, const char *key, const char *name, const char *value, int64_t ts)
{
	cf_cell		c = {.name = S(name),.value = S(value),.timestamp = ts};
	cf_cf_update u = {.cf_id = 7,.row_del = cf_deletion_none(),.cells = &c,.n_cells = 1};
	bool		due;

	assert_null(cf_cfstore_admit(cf));
	assert_null(cf_cfstore_apply(cf, S(key), S(key), &u, &due));
}

/* The value of one column as every table of the store sees it together, or "". */
static const char *
get(cf_cfstore *cf, const char *key, const char *name)
{
	static char out[64];
	cf_cfstore_view v;
	cf_cell_source *src[16];
	size_t		n = 0;
	cf_row_merge *m;

	out[0] = '\0';
	assert_null(cf_cfstore_view_get(cf, &v));
	for (size_t i = 0; i < v.n_memtables; i++)
	{
		assert_null(cf_cell_source_memtable(v.memtables[i], S(key), S(key), &src[n]));
		if (src[n])
			n++;
	}
	for (size_t i = 0; i < v.n_sstables; i++)
	{
		cf_sstable_row *row;

		assert_null(cf_sstable_get(v.sstables[i], S(key), S(key), &row));
		if (row)
			assert_null(cf_cell_source_sstable(row, &src[n++]));
	}
	assert_null(cf_row_merge_new(&order, src, n, false, &m));
	assert_null(cf_row_merge_seek(m, S(""), S(name)));
	if (cf_row_merge_valid(m) && !cf_row_merge_shadowed(m) &&
		cf_slice_eq(cf_row_merge_cell(m)->name, S(name)))
		snprintf(out, sizeof(out), "%.*s", (int) cf_row_merge_cell(m)->value.len,
				 cf_row_merge_cell(m)->value.p);
	cf_row_merge_free(m);
	cf_cfstore_view_release(&v);
	return out;
}

static int
setup(void **state)
{
	fixture    *f = calloc(1, sizeof(*f));

	f->dir = test_tmpdir_new("cf_cfstore");
	f->env = cf_env_fault_new(cf_env_posix());
	cf_env_fault_set_time(f->env, 1000000000000000LL);	/* retries sleep in fake time */
	*state = f;
	return f->dir ? 0 : -1;
}

static int
teardown(void **state)
{
	fixture    *f = *state;
	bool		wrong = f->wrong_cf;

	cf_env_fault_free(f->env);
	test_tmpdir_free(f->dir);
	free(f);
	return wrong ? -1 : 0;		/* a flush reported for another CF fails the test */
}

static void
flush_persists_and_reopen_restores(void **state)
{
	fixture    *f = *state;
	cf_cfstore *cf = open_store(f, 2);
	cf_cfstore_stats st;
	cf_commitlog_pos p1 = {3, 100};

	put(cf, "jsmith", "email", "js@example.com", 1);
	assert_string_equal(get(cf, "jsmith", "email"), "js@example.com");
	assert_null(cf_cfstore_switch(cf, p1));
	assert_null(cf_cfstore_wait_flushed(cf));
	assert_int_equal(f->flushed_calls, 1);
	assert_true(f->flushed_to.segment == 3 && f->flushed_to.offset == 100);
	cf_cfstore_stats_get(cf, &st);
	assert_int_equal(st.sstables, 1);
	assert_int_equal(st.pending_flushes, 0);
	put(cf, "jsmith", "email", "new@example.com", 2);	/* memtable over sstable */
	assert_string_equal(get(cf, "jsmith", "email"), "new@example.com");
	assert_null(cf_cfstore_close(cf));	/* the active memtable is not flushed */

	cf = open_store(f, 2);
	assert_string_equal(get(cf, "jsmith", "email"), "js@example.com");
	assert_true(cf_cfstore_replay_position(cf).segment == 3);
	assert_true(cf_cfstore_replay_position(cf).offset == 100);
	assert_null(cf_cfstore_close(cf));
}

static void
empty_switch_advances_replay_position_without_a_table(void **state)
{
	fixture    *f = *state;
	cf_cfstore *cf = open_store(f, 2);
	cf_cfstore_stats st;

	assert_null(cf_cfstore_switch(cf, (cf_commitlog_pos) {5, 0}));
	assert_null(cf_cfstore_wait_flushed(cf));
	cf_cfstore_stats_get(cf, &st);
	assert_int_equal(st.sstables, 0);
	assert_true(cf_cfstore_replay_position(cf).segment == 5);
	assert_null(cf_cfstore_close(cf));
}

static void
orphans_are_removed_at_open(void **state)
{
	fixture    *f = *state;
	cf_cfstore *cf = open_store(f, 2);
	FILE	   *fp;

	put(cf, "k", "c", "v", 1);
	assert_null(cf_cfstore_switch(cf, (cf_commitlog_pos) {1, 1}));
	assert_null(cf_cfstore_wait_flushed(cf));
	assert_null(cf_cfstore_close(cf));
	/* what a crash mid-flush or mid-compaction leaves behind */
	assert_non_null(fp = fopen(test_path(f->dir, "Users-99.sst"), "w"));
	fclose(fp);
	assert_non_null(fp = fopen(test_path(f->dir, "MANIFEST.tmp"), "w"));
	fclose(fp);
	assert_non_null(fp = fopen(test_path(f->dir, "unrelated.txt"), "w"));
	fclose(fp);

	cf = open_store(f, 2);
	assert_int_equal(access(test_path(f->dir, "Users-99.sst"), F_OK), -1);
	assert_int_equal(access(test_path(f->dir, "MANIFEST.tmp"), F_OK), -1);
	assert_int_equal(access(test_path(f->dir, "unrelated.txt"), F_OK), 0);
	assert_string_equal(get(cf, "k", "c"), "v");
	/* a new flush does not reuse generation 99's name space wrongly: it is above 1 */
	put(cf, "k", "d", "w", 2);
	assert_null(cf_cfstore_switch(cf, (cf_commitlog_pos) {1, 2}));
	assert_null(cf_cfstore_wait_flushed(cf));
	assert_null(cf_cfstore_close(cf));
	cf = open_store(f, 2);
	assert_string_equal(get(cf, "k", "d"), "w");
	assert_null(cf_cfstore_close(cf));
}

static void
corrupt_manifest_is_refused(void **state)
{
	fixture    *f = *state;
	cf_cfstore *cf = open_store(f, 2);
	cf_cfstore_options o = {.env = f->env,.dir = f->dir,.name = "Users",.cf_id = 7,.order = order};
	FILE	   *fp;
	cf_status  *s;

	put(cf, "k", "c", "v", 1);
	assert_null(cf_cfstore_switch(cf, (cf_commitlog_pos) {1, 1}));
	assert_null(cf_cfstore_wait_flushed(cf));
	assert_null(cf_cfstore_close(cf));
	assert_non_null(fp = fopen(test_path(f->dir, "MANIFEST"), "r+"));
	fseek(fp, 10, SEEK_SET);
	fputc(0x5a, fp);
	fclose(fp);
	s = cf_cfstore_open(&o, &cf);
	assert_int_equal(cf_status_code(s), CF_ERR_CORRUPTION);
	assert_non_null(strstr(cf_status_msg(s), "MANIFEST"));
	cf_status_free(s);
}

static void
truncate_drops_everything_for_good(void **state)
{
	fixture    *f = *state;
	cf_cfstore *cf = open_store(f, 2);
	cf_cfstore_stats st;

	put(cf, "a", "c", "1", 1);
	assert_null(cf_cfstore_switch(cf, (cf_commitlog_pos) {1, 10}));
	assert_null(cf_cfstore_wait_flushed(cf));
	put(cf, "b", "c", "2", 1);
	assert_null(cf_cfstore_truncate(cf, (cf_commitlog_pos) {2, 0}));
	assert_string_equal(get(cf, "a", "c"), "");
	assert_string_equal(get(cf, "b", "c"), "");
	cf_cfstore_stats_get(cf, &st);
	assert_int_equal(st.sstables, 0);
	assert_int_equal(access(test_path(f->dir, "Users-1.sst"), F_OK), -1);
	assert_true(cf_cfstore_replay_position(cf).segment == 2);
	put(cf, "c", "c", "3", 1);	/* writable afterwards */
	assert_string_equal(get(cf, "c", "c"), "3");
	assert_null(cf_cfstore_close(cf));
	cf = open_store(f, 2);
	assert_string_equal(get(cf, "a", "c"), "");
	assert_true(cf_cfstore_replay_position(cf).segment == 2);
	assert_null(cf_cfstore_close(cf));
}

static void
snapshots_hard_link_the_tables(void **state)
{
	fixture    *f = *state;
	cf_cfstore *cf = open_store(f, 2);
	struct stat a, b;
	cf_status  *s;

	put(cf, "a", "c", "1", 1);
	assert_null(cf_cfstore_switch(cf, (cf_commitlog_pos) {1, 1}));
	assert_null(cf_cfstore_wait_flushed(cf));
	assert_null(cf_cfstore_snapshot(cf, "before-upgrade_1"));
	assert_int_equal(stat(test_path(f->dir, "Users-1.sst"), &a), 0);
	assert_int_equal(stat(test_path(f->dir, "snapshots/before-upgrade_1/Users-1.sst"), &b), 0);
	assert_true(a.st_ino == b.st_ino);	/* a link, not a copy */
	assert_int_equal(access(test_path(f->dir, "snapshots/before-upgrade_1/MANIFEST"), F_OK), 0);

	s = cf_cfstore_snapshot(cf, "before-upgrade_1");
	assert_int_equal(cf_status_code(s), CF_ERR_BUSY);
	cf_status_free(s);
	s = cf_cfstore_snapshot(cf, "../escape");
	assert_int_equal(cf_status_code(s), CF_ERR_INVALID);
	cf_status_free(s);
	/* a truncate afterwards leaves the snapshot readable */
	assert_null(cf_cfstore_truncate(cf, (cf_commitlog_pos) {2, 0}));
	assert_int_equal(access(test_path(f->dir, "snapshots/before-upgrade_1/Users-1.sst"), F_OK), 0);
	assert_null(cf_cfstore_close(cf));
}

static void
replace_swaps_tables_atomically(void **state)
{
	fixture    *f = *state;
	cf_cfstore *cf = open_store(f, 2);
	cf_cfstore_view v;
	cf_sstable_writer *w;
	cf_sstable_options so = {.order = order};
	cf_sstable_stats st;
	cf_sstable *merged;
	cf_cell		c = {.name = S("c"),.value = S("merged"),.timestamp = 9};
	char	   *path;

	put(cf, "a", "c", "1", 1);
	assert_null(cf_cfstore_switch(cf, (cf_commitlog_pos) {1, 1}));
	put(cf, "a", "c", "2", 2);
	assert_null(cf_cfstore_switch(cf, (cf_commitlog_pos) {1, 2}));
	assert_null(cf_cfstore_wait_flushed(cf));
	assert_null(cf_cfstore_view_get(cf, &v));
	assert_int_equal(v.n_sstables, 2);

	/* a stand-in for compaction's output */
	assert_non_null(path = cf_cfstore_new_sstable_path(cf));
	assert_null(cf_sstable_writer_open(f->env, path, &so, &w));
	assert_null(cf_sstable_writer_begin_row(w, S("a"), S("a"), cf_deletion_none(), NULL, 0));
	assert_null(cf_sstable_writer_add_cell(w, &c));
	assert_null(cf_sstable_writer_end_row(w));
	assert_null(cf_sstable_writer_finish(w, &st));
	assert_null(cf_sstable_open(f->env, path, &order, &merged));
	assert_null(cf_cfstore_replace(cf, v.sstables, v.n_sstables, merged));
	assert_string_equal(get(cf, "a", "c"), "merged");
	/* the old files are gone, yet the view taken before still reads them */
	assert_int_equal(access(test_path(f->dir, "Users-1.sst"), F_OK), -1);
	{
		cf_sstable_row *row;

		assert_null(cf_sstable_get(v.sstables[0], S("a"), S("a"), &row));
		assert_non_null(row);
		cf_sstable_row_free(row);
	}
	cf_cfstore_view_release(&v);
	cf_sstable_unref(merged);
	free(path);
	assert_null(cf_cfstore_close(cf));
	cf = open_store(f, 2);
	assert_string_equal(get(cf, "a", "c"), "merged");
	assert_null(cf_cfstore_close(cf));
}

static void
failing_flush_refuses_writes_then_recovers(void **state)
{
	fixture    *f = *state;
	cf_cfstore *cf;
	cf_cfstore_stats st;
	cf_status  *s;

	/* real time: the flusher retries once a second, not in a tight loop */
	cf_env_fault_free(f->env);
	f->env = cf_env_fault_new(cf_env_posix());
	cf = open_store(f, 1);
	/* the disk is full until the fault is cleared */
	cf_env_fault_fail(f->env, CF_FAULT_OPEN_WRITE, 0, ENOSPC, -1);
	put(cf, "a", "c", "1", 1);
	assert_null(cf_cfstore_switch(cf, (cf_commitlog_pos) {1, 1}));
	/* one flush pending (the limit) and failing: a write is refused, not queued forever */
	s = cf_cfstore_admit(cf);
	assert_non_null(s);
	assert_int_equal(cf_status_code(s), CF_ERR_NO_SPACE);
	assert_non_null(strstr(cf_status_msg(s), "flushing fails"));
	cf_status_free(s);
	/* the data is still readable from the pending memtable */
	assert_string_equal(get(cf, "a", "c"), "1");

	cf_env_fault_clear(f->env);	/* space again: the retrying flusher gets through */
	assert_null(cf_cfstore_wait_flushed(cf));
	cf_cfstore_stats_get(cf, &st);
	assert_int_equal(st.sstables, 1);
	assert_true(st.flush_failures > 0);
	put(cf, "b", "c", "2", 1);
	assert_null(cf_cfstore_close(cf));
	assert_true(f->flushed_to.segment == 1 && f->flushed_to.offset == 1);
}

/*
 * The db's write barrier, as cfstore.h requires it: writes hold it shared, switches
 * exclusively. Without it a switch could flush a memtable under a write still landing.
 */
static pthread_rwlock_t barrier = PTHREAD_RWLOCK_INITIALIZER;

/* Threads record failures (cmocka may only be called from the test's own thread). */
typedef struct race
{
	cf_cfstore *cf;
	int			id;
	int			stop;
	int			failed;
} race;

/* The db's order: admit first, then the barrier around the apply. */
static void *
writer(void *arg)
{
	race	   *r = arg;

	for (int i = 0; i < 3000; i++)
	{
		char		key[32], value[32];
		cf_cell		c;
		cf_cf_update u = {.cf_id = 7,.row_del = cf_deletion_none(),.cells = &c,.n_cells = 1};
		cf_status  *s;
		bool		due;

		snprintf(key, sizeof(key), "w%d-%d", r->id, i);
		snprintf(value, sizeof(value), "v%d", i);
		c = (cf_cell) {.name = S("c"),.value = S(value),.timestamp = 1};
		if ((s = cf_cfstore_admit(r->cf)) == NULL)
		{
			pthread_rwlock_rdlock(&barrier);
			s = cf_cfstore_apply(r->cf, S(key), S(key), &u, &due);
			pthread_rwlock_unlock(&barrier);
		}
		if (s)
		{
			__atomic_store_n(&r->failed, 1, __ATOMIC_RELAXED);
			cf_status_free(s);
		}
	}
	return NULL;
}

static void *
switcher(void *arg)
{
	race	   *r = arg;
	uint64_t	off = 0;

	while (!__atomic_load_n(&r->stop, __ATOMIC_ACQUIRE))
	{
		cf_status  *s;

		pthread_rwlock_wrlock(&barrier);
		s = cf_cfstore_switch(r->cf, (cf_commitlog_pos) {1, ++off});
		pthread_rwlock_unlock(&barrier);
		if (s)
		{
			__atomic_store_n(&r->failed, 1, __ATOMIC_RELAXED);
			cf_status_free(s);
		}
		usleep(2000);
	}
	return NULL;
}

static void
concurrent_writes_switches_and_reads(void **state)
{
	fixture    *f = *state;
	race		w[2], sw;
	pthread_t	tw[2], ts;

	(void) state;
	cf_env_fault_free(f->env);	/* real clock for this one */
	f->env = cf_env_fault_new(cf_env_posix());
	sw = (race) {.cf = open_store(f, 4)};
	pthread_create(&ts, NULL, switcher, &sw);
	for (int i = 0; i < 2; i++)
	{
		w[i] = (race) {.cf = sw.cf,.id = i};
		pthread_create(&tw[i], NULL, writer, &w[i]);
	}
	for (int i = 0; i < 2; i++)
		pthread_join(tw[i], NULL);
	__atomic_store_n(&sw.stop, 1, __ATOMIC_RELEASE);
	pthread_join(ts, NULL);
	assert_false(w[0].failed || w[1].failed || sw.failed);
	for (int wr = 0; wr < 2; wr++)
		for (int i = 0; i < 3000; i += 97)
		{
			char		key[32], want[32];

			snprintf(key, sizeof(key), "w%d-%d", wr, i);
			snprintf(want, sizeof(want), "v%d", i);
			assert_string_equal(get(sw.cf, key, "c"), want);
		}
	assert_null(cf_cfstore_wait_flushed(sw.cf));
	assert_null(cf_cfstore_close(sw.cf));
	assert_false(f->wrong_cf);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(flush_persists_and_reopen_restores, setup, teardown),
		cmocka_unit_test_setup_teardown(empty_switch_advances_replay_position_without_a_table,
										setup, teardown),
		cmocka_unit_test_setup_teardown(orphans_are_removed_at_open, setup, teardown),
		cmocka_unit_test_setup_teardown(corrupt_manifest_is_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(truncate_drops_everything_for_good, setup, teardown),
		cmocka_unit_test_setup_teardown(snapshots_hard_link_the_tables, setup, teardown),
		cmocka_unit_test_setup_teardown(replace_swaps_tables_atomically, setup, teardown),
		cmocka_unit_test_setup_teardown(failing_flush_refuses_writes_then_recovers, setup,
										teardown),
		cmocka_unit_test_setup_teardown(concurrent_writes_switches_and_reads, setup, teardown),
	};

	cf_log_set_level(CF_LOG_ERROR);
	return cmocka_run_group_tests_name("db/cfstore", tests, NULL, NULL);
}
