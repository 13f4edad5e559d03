/*
 * tests/unit/test_env_fault.c — util/env_fault: every injected fault, the crash model
 * and the fake clock, over the POSIX env in a private temporary directory.
 */
#include "support/cmocka_prelude.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "support/envtest.h"
#include "support/tmpdir.h"
#include "util/env_fault.h"

typedef struct fixture
{
	char	   *dir;
	cf_env	   *env;
} fixture;

static int
setup(void **state)
{
	fixture    *fx = calloc(1, sizeof(*fx));

	if (fx == NULL || (fx->dir = test_tmpdir_new("test_env_fault")) == NULL ||
		(fx->env = cf_env_fault_new(cf_env_posix())) == NULL)
		return -1;
	*state = fx;
	return 0;
}

static int
teardown(void **state)
{
	fixture    *fx = *state;

	cf_env_fault_free(fx->env);
	test_tmpdir_free(fx->dir);
	free(fx);
	return 0;
}

/* The size of path on the real disk, or -1 if it does not exist. */
static int64_t
disk_size(const char *path)
{
	uint64_t	size;
	cf_status  *s = cf_env_file_size(cf_env_posix(), path, &size);

	if (s != NULL)
	{
		cf_status_free(s);
		return -1;
	}
	return (int64_t) size;
}

static void
enospc_on_nth_write(void **state)
{
	fixture    *fx = *state;
	const char *p = test_path(fx->dir, "log");
	cf_wfile   *f;

	OK(cf_env_open_write(fx->env, p, CF_OPEN_TRUNCATE, &f));
	cf_env_fault_fail(fx->env, CF_FAULT_WRITE, 2, ENOSPC, 1);
	OK(cf_wfile_append(f, "aa", 2));
	OK(cf_wfile_append(f, "bb", 2));
	FAILS(cf_wfile_append(f, "cc", 2), CF_ERR_NO_SPACE, "appending to");
	assert_int_equal(disk_size(p), 4);			/* no side effect */
	assert_int_equal(cf_wfile_size(f), 4);
	/* as with POSIX, the handle is done after a failed write; a new one carries on */
	FAILS(cf_wfile_append(f, "dd", 2), CF_ERR_NO_SPACE, "failed earlier");
	FAILS(cf_wfile_sync(f), CF_ERR_NO_SPACE, "failed earlier");
	OK(cf_wfile_close(f));
	test_expect_contents(fx->env, p, "aabb");
	OK(cf_env_open_write(fx->env, p, CF_OPEN_APPEND, &f));
	OK(cf_wfile_append(f, "dd", 2));			/* the injected count was 1 */
	OK(cf_wfile_close(f));
	test_expect_contents(fx->env, p, "aabbdd");

	/* Forever, until cleared. */
	cf_env_fault_fail(fx->env, CF_FAULT_OPEN_WRITE, 0, EIO, -1);
	for (int i = 0; i < 3; i++)
		FAILS(cf_env_open_write(fx->env, p, CF_OPEN_APPEND, &f), CF_ERR_IO, "injected");
	cf_env_fault_clear(fx->env);
	OK(cf_env_open_write(fx->env, p, CF_OPEN_APPEND, &f));
	OK(cf_wfile_close(f));
}

static void
failed_sync(void **state)
{
	fixture    *fx = *state;
	const char *p = test_path(fx->dir, "data");
	struct cf_env_fault_stats st;
	cf_wfile   *f;

	OK(cf_env_open_write(fx->env, p, CF_OPEN_TRUNCATE, &f));
	OK(cf_env_sync_dir(fx->env, fx->dir));
	OK(cf_wfile_append(f, "durable", 7));
	OK(cf_wfile_sync(f));
	OK(cf_wfile_append(f, "-lost", 5));
	cf_env_fault_fail(fx->env, CF_FAULT_SYNC, 0, EIO, 1);
	FAILS(cf_wfile_sync(f), CF_ERR_IO, p);
	/* no second chance: a retried fsync must not report success (PostgreSQL's lesson) */
	FAILS(cf_wfile_sync(f), CF_ERR_IO, "failed earlier");
	FAILS(cf_wfile_append(f, "x", 1), CF_ERR_IO, "failed earlier");
	cf_env_fault_stats(fx->env, &st);
	assert_int_equal(st.syncs, 1);
	assert_int_equal(st.injected, 1);

	/* The failed sync made nothing durable: a crash keeps only the first sync. */
	OK(cf_env_fault_crash(fx->env));
	FAILS(cf_wfile_close(f), CF_ERR_IO, "crash");
	test_expect_contents(fx->env, p, "durable");
}

static void
short_write_leaves_half(void **state)
{
	fixture    *fx = *state;
	const char *p = test_path(fx->dir, "torn");
	cf_wfile   *f;

	OK(cf_env_open_write(fx->env, p, CF_OPEN_TRUNCATE, &f));
	cf_env_fault_short_write(fx->env, 1);
	OK(cf_wfile_append(f, "head", 4));
	FAILS(cf_wfile_append(f, "0123456789", 10), CF_ERR_NO_SPACE, "5 of 10");
	assert_int_equal(cf_wfile_size(f), 9);
	assert_int_equal(disk_size(p), 9);
	FAILS(cf_wfile_append(f, "!", 1), CF_ERR_NO_SPACE, "failed earlier");
	OK(cf_wfile_close(f));
	test_expect_contents(fx->env, p, "head01234");	/* the torn record stays torn */
}

static void
space_budget(void **state)
{
	fixture    *fx = *state;
	const char *a = test_path(fx->dir, "a");
	const char *b = test_path(fx->dir, "b");
	cf_wfile   *fa;
	cf_wfile   *fb;

	cf_env_fault_set_space(fx->env, 10);
	OK(cf_env_open_write(fx->env, a, CF_OPEN_TRUNCATE, &fa));
	OK(cf_env_open_write(fx->env, b, CF_OPEN_TRUNCATE, &fb));
	OK(cf_wfile_append(fa, "123456", 6));
	FAILS(cf_wfile_append(fb, "abcdef", 6), CF_ERR_NO_SPACE, "4 of 6");	/* shared */
	FAILS(cf_wfile_append(fa, "x", 1), CF_ERR_NO_SPACE, "0 of 1");
	assert_int_equal(disk_size(a), 6);
	assert_int_equal(disk_size(b), 4);

	cf_env_fault_set_space(fx->env, -1);
	FAILS(cf_wfile_append(fa, "7", 1), CF_ERR_NO_SPACE, "failed earlier");
	OK(cf_wfile_close(fa));
	OK(cf_wfile_close(fb));
	OK(cf_env_open_write(fx->env, a, CF_OPEN_APPEND, &fa));	/* space again, new handle */
	OK(cf_wfile_append(fa, "7", 1));
	OK(cf_wfile_close(fa));
	test_expect_contents(fx->env, a, "1234567");
	test_expect_contents(fx->env, b, "abcd");
}

static void
crash_keeps_only_what_was_synced(void **state)
{
	fixture    *fx = *state;
	char	   *synced = strdup(test_path(fx->dir, "synced"));
	char	   *partly = strdup(test_path(fx->dir, "partly"));
	char	   *undir = strdup(test_path(fx->dir, "sub/new"));
	char	   *never = strdup(test_path(fx->dir, "never"));
	char	   *old = strdup(test_path(fx->dir, "old"));
	char	   *sub = strdup(test_path(fx->dir, "sub"));
	cf_wfile   *f;

	/* A file that existed before: what was there counts as durable. */
	test_put(cf_env_posix(), old, CF_OPEN_TRUNCATE, "before");
	OK(cf_env_mkdirs(fx->env, sub));
	OK(cf_env_sync_dir(fx->env, fx->dir));

	test_put(fx->env, synced, CF_OPEN_TRUNCATE, "");
	OK(cf_env_open_write(fx->env, synced, CF_OPEN_APPEND, &f));
	OK(cf_wfile_append(f, "all of it", 9));
	OK(cf_wfile_sync(f));
	OK(cf_wfile_close(f));

	OK(cf_env_open_write(fx->env, partly, CF_OPEN_CREATE_NEW, &f));
	OK(cf_wfile_append(f, "kept", 4));
	OK(cf_wfile_sync(f));
	OK(cf_wfile_append(f, "+dropped", 8));
	OK(cf_wfile_close(f));

	OK(cf_env_open_write(fx->env, never, CF_OPEN_TRUNCATE, &f));
	OK(cf_wfile_append(f, "gone", 4));
	OK(cf_wfile_close(f));

	OK(cf_env_open_write(fx->env, old, CF_OPEN_APPEND, &f));
	OK(cf_wfile_append(f, " after", 6));
	OK(cf_wfile_close(f));

	OK(cf_env_sync_dir(fx->env, fx->dir));	/* not sub: undir stays new */
	OK(cf_env_open_write(fx->env, undir, CF_OPEN_TRUNCATE, &f));
	OK(cf_wfile_append(f, "synced but not its dir", 22));
	OK(cf_wfile_sync(f));
	OK(cf_wfile_close(f));
	test_expect_contents(fx->env, partly, "kept+dropped");

	OK(cf_env_fault_crash(fx->env));
	test_expect_contents(fx->env, synced, "all of it");
	test_expect_contents(fx->env, partly, "kept");
	test_expect_contents(fx->env, never, "");
	test_expect_contents(fx->env, old, "before");
	assert_false(cf_env_exists(fx->env, undir));

	/* The env works normally again. */
	test_put(fx->env, undir, CF_OPEN_TRUNCATE, "again");
	test_expect_contents(fx->env, undir, "again");

	free(synced);
	free(partly);
	free(undir);
	free(never);
	free(old);
	free(sub);
}

static void
crash_removes_files_not_dir_synced(void **state)
{
	fixture    *fx = *state;
	char	   *a = strdup(test_path(fx->dir, "a"));
	char	   *b = strdup(test_path(fx->dir, "b"));
	char	   *c = strdup(test_path(fx->dir, "c"));
	char	   *tmp = strdup(test_path(fx->dir, "t"));

	/* Synced data in a new, un-dir-synced file is lost with its name. */
	OK(cf_env_write_file_atomic(fx->env, a, "atomic", 6));	/* syncs the dir */
	test_put(fx->env, tmp, CF_OPEN_TRUNCATE, "renamed");
	OK(cf_env_rename(fx->env, tmp, b));
	OK(cf_env_link(fx->env, a, c));
	OK(cf_env_fault_crash(fx->env));

	test_expect_contents(fx->env, a, "atomic");
	assert_false(cf_env_exists(fx->env, b));
	assert_false(cf_env_exists(fx->env, tmp));
	assert_false(cf_env_exists(fx->env, c));

	/* A removed file stays removed. */
	OK(cf_env_remove(fx->env, a));
	OK(cf_env_fault_crash(fx->env));
	assert_false(cf_env_exists(fx->env, a));

	free(a);
	free(b);
	free(c);
	free(tmp);
}

static void
old_handles_fail_after_crash(void **state)
{
	fixture    *fx = *state;
	const char *p = test_path(fx->dir, "open");
	cf_wfile   *old;
	cf_wfile   *f;

	OK(cf_env_open_write(fx->env, p, CF_OPEN_TRUNCATE, &old));
	OK(cf_wfile_append(old, "x", 1));
	OK(cf_env_sync_dir(fx->env, fx->dir));
	cf_env_fault_set_space(fx->env, 0);		/* cleared by the crash */
	OK(cf_env_fault_crash(fx->env));

	FAILS(cf_wfile_append(old, "y", 1), CF_ERR_IO, "crash");
	FAILS(cf_wfile_flush(old), CF_ERR_IO, "crash");
	FAILS(cf_wfile_sync(old), CF_ERR_IO, "crash");
	assert_int_equal(disk_size(p), 0);

	OK(cf_env_open_write(fx->env, p, CF_OPEN_APPEND, &f));
	OK(cf_wfile_append(f, "new", 3));
	OK(cf_wfile_sync(f));
	FAILS(cf_wfile_close(old), CF_ERR_IO, "crash");	/* still frees it */
	OK(cf_wfile_close(f));
	test_expect_contents(fx->env, p, "new");
}

static void
other_operations_fail(void **state)
{
	fixture    *fx = *state;
	const char *p = test_path(fx->dir, "f");
	const char *q = test_path(fx->dir, "g");
	uint8_t    *data;
	size_t		len;
	uint64_t	size;
	void	   *lock;
	cf_rfile   *r;
	char		buf[4];

	test_put(fx->env, p, CF_OPEN_TRUNCATE, "abc");

	cf_env_fault_fail(fx->env, CF_FAULT_READ, 0, EIO, 1);
	FAILS(cf_env_read_file(fx->env, p, &data, &len), CF_ERR_IO, "reading");
	cf_env_fault_fail(fx->env, CF_FAULT_OPEN_READ, 0, ENOENT, 1);
	FAILS(cf_env_open_read(fx->env, p, &r), CF_ERR_NOT_FOUND, "injected");
	OK(cf_env_open_read(fx->env, p, &r));
	OK(cf_rfile_read_exact(r, 0, buf, 3));
	assert_int_equal(cf_rfile_size(r), 3);
	cf_rfile_close(r);

	cf_env_fault_fail(fx->env, CF_FAULT_RENAME, 0, EIO, 1);
	FAILS(cf_env_rename(fx->env, p, q), CF_ERR_IO, "renaming");
	assert_true(cf_env_exists(fx->env, p));
	cf_env_fault_fail(fx->env, CF_FAULT_LINK, 0, EIO, 1);
	FAILS(cf_env_link(fx->env, p, q), CF_ERR_IO, "linking");
	assert_false(cf_env_exists(fx->env, q));
	cf_env_fault_fail(fx->env, CF_FAULT_TRUNCATE, 0, EIO, 1);
	FAILS(cf_env_truncate(fx->env, p, 0), CF_ERR_IO, "truncating");
	cf_env_fault_fail(fx->env, CF_FAULT_REMOVE, 0, EIO, 1);
	FAILS(cf_env_remove(fx->env, p), CF_ERR_IO, "removing");
	test_expect_contents(fx->env, p, "abc");
	cf_env_fault_fail(fx->env, CF_FAULT_MKDIRS, 0, ENOSPC, 1);
	FAILS(cf_env_mkdirs(fx->env, q), CF_ERR_NO_SPACE, "creating directory");
	assert_false(cf_env_exists(fx->env, q));
	cf_env_fault_fail(fx->env, CF_FAULT_SYNC_DIR, 0, EIO, 1);
	FAILS(cf_env_sync_dir(fx->env, fx->dir), CF_ERR_IO, "syncing directory");
	cf_env_fault_fail(fx->env, CF_FAULT_FILE_SIZE, 0, EIO, 1);
	FAILS(cf_env_file_size(fx->env, p, &size), CF_ERR_IO, "size");
	cf_env_fault_fail(fx->env, CF_FAULT_LOCK, 0, EAGAIN, 1);
	FAILS(cf_env_lock(fx->env, q, &lock), CF_ERR_BUSY, "locking");
	OK(cf_env_lock(fx->env, q, &lock));
	cf_env_unlock(fx->env, lock);

	/* A failed atomic write leaves neither the target nor its temp file. */
	cf_env_fault_fail(fx->env, CF_FAULT_SYNC, 0, EIO, 1);
	FAILS(cf_env_write_file_atomic(fx->env, test_path(fx->dir, "meta"), "m", 1),
		  CF_ERR_IO, "meta");
	assert_false(cf_env_exists(fx->env, test_path(fx->dir, "meta")));
	assert_false(cf_env_exists(fx->env, test_path(fx->dir, "meta.tmp")));
}

static void
fake_clock(void **state)
{
	fixture    *fx = *state;
	int64_t		m0;
	int64_t		real0 = cf_env_mono_micros(cf_env_posix());

	assert_true(cf_env_mono_micros(fx->env) >= real0);	/* real until set */
	cf_env_fault_set_time(fx->env, 1000000);
	m0 = cf_env_mono_micros(fx->env);
	assert_int_equal(cf_env_now_micros(fx->env), 1000000);

	cf_env_fault_advance_time(fx->env, 250);
	assert_int_equal(cf_env_now_micros(fx->env), 1000250);
	assert_int_equal(cf_env_mono_micros(fx->env), m0 + 250);

	cf_env_sleep_micros(fx->env, 3600LL * 1000000);	/* returns at once */
	assert_int_equal(cf_env_now_micros(fx->env), 1000250 + 3600LL * 1000000);
	assert_int_equal(cf_env_mono_micros(fx->env), m0 + 250 + 3600LL * 1000000);

	cf_env_fault_set_time(fx->env, 5);			/* a wall step back; mono holds */
	assert_int_equal(cf_env_now_micros(fx->env), 5);
	assert_int_equal(cf_env_mono_micros(fx->env), m0 + 250 + 3600LL * 1000000);
	cf_env_fault_advance_time(fx->env, -10);	/* ignored */
	assert_int_equal(cf_env_now_micros(fx->env), 5);
}

static void
stats_count_what_reached_disk(void **state)
{
	fixture    *fx = *state;
	struct cf_env_fault_stats st;
	cf_wfile   *f;

	OK(cf_env_open_write(fx->env, test_path(fx->dir, "s"), CF_OPEN_TRUNCATE, &f));
	OK(cf_wfile_append(f, "12345", 5));
	OK(cf_wfile_append(f, "678", 3));
	cf_env_fault_fail(fx->env, CF_FAULT_WRITE, 0, EIO, 1);
	FAILS(cf_wfile_append(f, "zz", 2), CF_ERR_IO, "injected");
	OK(cf_wfile_close(f));
	OK(cf_env_open_write(fx->env, test_path(fx->dir, "s"), CF_OPEN_APPEND, &f));
	OK(cf_wfile_sync(f));
	OK(cf_wfile_sync(f));
	OK(cf_wfile_close(f));
	OK(cf_env_sync_dir(fx->env, fx->dir));
	OK(cf_env_fault_crash(fx->env));

	cf_env_fault_stats(fx->env, &st);
	assert_int_equal(st.writes, 2);
	assert_int_equal(st.bytes_written, 8);
	assert_int_equal(st.syncs, 2);
	assert_int_equal(st.sync_dirs, 1);
	assert_int_equal(st.injected, 1);
	assert_int_equal(st.crashes, 1);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(enospc_on_nth_write, setup, teardown),
		cmocka_unit_test_setup_teardown(failed_sync, setup, teardown),
		cmocka_unit_test_setup_teardown(short_write_leaves_half, setup, teardown),
		cmocka_unit_test_setup_teardown(space_budget, setup, teardown),
		cmocka_unit_test_setup_teardown(crash_keeps_only_what_was_synced, setup, teardown),
		cmocka_unit_test_setup_teardown(crash_removes_files_not_dir_synced, setup, teardown),
		cmocka_unit_test_setup_teardown(old_handles_fail_after_crash, setup, teardown),
		cmocka_unit_test_setup_teardown(other_operations_fail, setup, teardown),
		cmocka_unit_test_setup_teardown(fake_clock, setup, teardown),
		cmocka_unit_test_setup_teardown(stats_count_what_reached_disk, setup, teardown),
	};

	return cmocka_run_group_tests_name("util/env", tests, NULL, NULL);
}
