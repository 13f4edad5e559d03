/*
 * tests/unit/test_env.c — util/env: the POSIX env and the shared helpers, against a
 * private temporary directory made per test and removed after it.
 */
#include "support/cmocka_prelude.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "support/envtest.h"
#include "support/tmpdir.h"
#include "util/env.h"

static int
make_dir(void **state)
{
	*state = test_tmpdir_new("test_env");
	return *state ? 0 : -1;
}

static int
remove_dir(void **state)
{
	test_tmpdir_free(*state);
	return 0;
}

static void
open_modes(void **state)
{
	cf_env	   *e = cf_env_posix();
	const char *p = test_path(*state, "f");
	cf_wfile   *f;

	test_put(e, p, CF_OPEN_TRUNCATE, "hello");
	test_put(e, p, CF_OPEN_APPEND, " world");
	test_expect_contents(e, p, "hello world");
	test_put(e, p, CF_OPEN_TRUNCATE, "new");
	test_expect_contents(e, p, "new");

	f = (cf_wfile *) 1;
	FAILS(cf_env_open_write(e, p, CF_OPEN_CREATE_NEW, &f), CF_ERR_BUSY, p);
	assert_null(f);
	test_expect_contents(e, p, "new");		/* untouched */

	test_put(e, test_path(*state, "g"), CF_OPEN_CREATE_NEW, "g");
	test_expect_contents(e, test_path(*state, "g"), "g");

	FAILS(cf_env_open_write(e, test_path(*state, "no/such/dir"), CF_OPEN_TRUNCATE, &f),
		  CF_ERR_NOT_FOUND, "no/such/dir");
}

static void
buffered_size_accounting(void **state)
{
	cf_env	   *e = cf_env_posix();
	const char *p = test_path(*state, "sized");
	size_t		big = 200 * 1024;
	uint8_t    *data = malloc(big);
	uint8_t    *back;
	uint64_t	on_disk;
	size_t		len;
	cf_wfile   *f;

	for (size_t i = 0; i < big; i++)
		data[i] = (uint8_t) (i * 7 + i / 251);

	test_put(e, p, CF_OPEN_TRUNCATE, "0123456789");
	OK(cf_env_open_write(e, p, CF_OPEN_APPEND, &f));
	assert_int_equal(cf_wfile_size(f), 10);		/* appending starts at the end */
	OK(cf_wfile_append(f, data, 100));
	assert_int_equal(cf_wfile_size(f), 110);
	OK(cf_env_file_size(e, p, &on_disk));
	assert_int_equal(on_disk, 10);				/* still in the buffer */
	OK(cf_wfile_flush(f));
	OK(cf_env_file_size(e, p, &on_disk));
	assert_int_equal(on_disk, 110);

	/* Fills the buffer, then a large rest goes straight through. */
	OK(cf_wfile_append(f, data + 100, big - 100));
	assert_int_equal(cf_wfile_size(f), 10 + big);
	OK(cf_wfile_append(f, "", 0));
	OK(cf_wfile_sync(f));
	OK(cf_env_file_size(e, p, &on_disk));
	assert_int_equal(on_disk, 10 + big);
	OK(cf_wfile_close(f));

	OK(cf_env_read_file(e, p, &back, &len));
	assert_int_equal(len, 10 + big);
	assert_memory_equal(back, "0123456789", 10);
	assert_memory_equal(back + 10, data, big);
	free(back);
	free(data);
}

/* Asserts path's bytes are data's first n, then zeros to its end (reserved space). */
static void
expect_log_bytes(cf_env *e, const char *path, const uint8_t *data, size_t n)
{
	uint8_t    *back;
	size_t		len;

	OK(cf_env_read_file(e, path, &back, &len));
	assert_true(len >= n);
	assert_memory_equal(back, data, n);
	for (size_t i = n; i < len; i++)
		if (back[i] != 0)
			fail_msg("byte %zu of %zu after the appends is %u, not 0", i, len, back[i]);
	free(back);
}

/*
 * CF_OPEN_CREATE_LOG: appends reach the OS as they return (no flush; the file may be
 * longer, by zeros, while open), across windows of the mapping; close cuts the zeros
 * off; a process that dies with the file open loses none of its appends.
 */
static void
log_files(void **state)
{
	cf_env	   *e = cf_env_posix();
	const char *p = test_path(*state, "log");
	size_t		big = 9 * 1024 * 1024 + 123;	/* more than two windows */
	uint8_t    *data = malloc(big);
	uint64_t	on_disk;
	cf_wfile   *f;
	pid_t		pid;
	int			status;

	assert_non_null(data);
	for (size_t i = 0; i < big; i++)
		data[i] = (uint8_t) (i * 7 + i / 251 + 1);

	OK(cf_env_open_write(e, p, CF_OPEN_CREATE_LOG, &f));
	OK(cf_wfile_append(f, data, 100));
	assert_int_equal(cf_wfile_size(f), 100);
	expect_log_bytes(e, p, data, 100);		/* readable before any flush */
	/* appends that end exactly at a window's end, and ones that cross it */
	OK(cf_wfile_append(f, data + 100, 4 * 1024 * 1024 - 100));
	OK(cf_wfile_append(f, data + 4 * 1024 * 1024, 1));
	OK(cf_wfile_append(f, data + 4 * 1024 * 1024 + 1, big - 4 * 1024 * 1024 - 1));
	assert_int_equal(cf_wfile_size(f), big);
	OK(cf_wfile_flush(f));
	OK(cf_wfile_sync(f));
	expect_log_bytes(e, p, data, big);
	OK(cf_wfile_close(f));
	OK(cf_env_file_size(e, p, &on_disk));
	assert_int_equal(on_disk, big);			/* the reserved zeros are cut off */
	expect_log_bytes(e, p, data, big);

	/* like CF_OPEN_CREATE_NEW, it never opens a file that exists */
	f = (cf_wfile *) 1;
	FAILS(cf_env_open_write(e, p, CF_OPEN_CREATE_LOG, &f), CF_ERR_BUSY, p);
	assert_null(f);

	/* A process that dies with the log open: every append is in the file. */
	p = test_path(*state, "log2");
	fflush(NULL);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0)
	{
		if (cf_env_open_write(e, p, CF_OPEN_CREATE_LOG, &f) != NULL ||
			cf_wfile_append(f, data, 5000) != NULL)
			_exit(1);
		kill(getpid(), SIGKILL);
		_exit(2);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
	OK(cf_env_file_size(e, p, &on_disk));
	assert_true(on_disk > 5000);			/* its reserved space stayed */
	expect_log_bytes(e, p, data, 5000);

	/*
	 * No room for a window (a file size limit below it: EFBIG, like ENOSPC): the append
	 * fails saying why, and so does every later use, naming the earlier failure; close
	 * still works. In a child, whose limit dies with it.
	 */
	p = test_path(*state, "log3");
	fflush(NULL);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0)
	{
		struct rlimit lim = {1 << 20, 1 << 20};
		cf_status  *s1,
				   *s2,
				   *s3;
		int			rc;

		signal(SIGXFSZ, SIG_IGN);
		if (setrlimit(RLIMIT_FSIZE, &lim) != 0 ||
			cf_env_open_write(e, p, CF_OPEN_CREATE_LOG, &f) != NULL)
			_exit(10);
		s1 = cf_wfile_append(f, data, 100);
		s2 = cf_wfile_flush(f);
		s3 = cf_wfile_sync(f);
		rc = s1 == NULL || strstr(cf_status_msg(s1), "reserving space in") == NULL ? 11 :
			s2 == NULL || strstr(cf_status_msg(s2), "after an earlier failure") == NULL ? 12 :
			s3 == NULL || strstr(cf_status_msg(s3), "after an earlier failure") == NULL ? 13 :
			cf_wfile_close(f) != NULL ? 14 : 0;
		_exit(rc);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	free(data);
}

static void
read_at_and_read_exact(void **state)
{
	cf_env	   *e = cf_env_posix();
	const char *p = test_path(*state, "r");
	char		buf[16];
	size_t		got;
	cf_rfile   *r;

	test_put(e, p, CF_OPEN_TRUNCATE, "abcdefgh");
	OK(cf_env_open_read(e, p, &r));
	assert_int_equal(cf_rfile_size(r), 8);

	OK(cf_rfile_read_at(r, 2, buf, 3, &got));
	assert_int_equal(got, 3);
	assert_memory_equal(buf, "cde", 3);

	OK(cf_rfile_read_at(r, 6, buf, 10, &got));	/* short only at the end */
	assert_int_equal(got, 2);
	assert_memory_equal(buf, "gh", 2);
	OK(cf_rfile_read_at(r, 100, buf, 4, &got));
	assert_int_equal(got, 0);

	OK(cf_rfile_read_exact(r, 4, buf, 4));
	assert_memory_equal(buf, "efgh", 4);
	FAILS(cf_rfile_read_exact(r, 4, buf, 5), CF_ERR_CORRUPTION, p);
	cf_rfile_close(r);
	cf_rfile_close(NULL);

	r = (cf_rfile *) 1;
	FAILS(cf_env_open_read(e, test_path(*state, "missing"), &r), CF_ERR_NOT_FOUND, "missing");
	assert_null(r);
}

static void
rename_link_remove(void **state)
{
	cf_env	   *e = cf_env_posix();
	const char *a = test_path(*state, "a");
	const char *b = test_path(*state, "b");
	const char *c = test_path(*state, "c");

	test_put(e, a, CF_OPEN_TRUNCATE, "A");
	test_put(e, b, CF_OPEN_TRUNCATE, "B");
	OK(cf_env_rename(e, a, b));				/* replaces the target */
	assert_false(cf_env_exists(e, a));
	test_expect_contents(e, b, "A");

	OK(cf_env_link(e, b, c));
	test_expect_contents(e, c, "A");
	FAILS(cf_env_link(e, b, c), CF_ERR_IO, c);	/* EEXIST */

	OK(cf_env_remove(e, b));
	assert_false(cf_env_exists(e, b));
	test_expect_contents(e, c, "A");				/* the link keeps the data */
	FAILS(cf_env_remove(e, b), CF_ERR_NOT_FOUND, b);
	FAILS(cf_env_rename(e, a, b), CF_ERR_NOT_FOUND, a);

	OK(cf_env_truncate(e, c, 0));
	test_expect_contents(e, c, "");
	FAILS(cf_env_truncate(e, a, 0), CF_ERR_NOT_FOUND, a);
}

/* Collects names into a bitmask of the expected ones; counts the rest. */
struct listing
{
	int			seen;
	int			other;
	int			calls;
	int			stop_after;
};

static bool
collect(void *arg, const char *name)
{
	struct listing *l = arg;

	l->calls++;
	if (strcmp(name, "x") == 0)
		l->seen |= 1;
	else if (strcmp(name, "y") == 0)
		l->seen |= 2;
	else if (strcmp(name, "sub") == 0)
		l->seen |= 4;
	else
		l->other++;
	return l->calls != l->stop_after;
}

static void
directories(void **state)
{
	cf_env	   *e = cf_env_posix();
	struct listing l = {0};
	char		deep[4096];
	uint64_t	size;

	snprintf(deep, sizeof(deep), "%s/sub/one/two", (char *) *state);

	OK(cf_env_mkdirs(e, deep));
	OK(cf_env_mkdirs(e, deep));				/* existing is fine */
	assert_true(cf_env_exists(e, deep));
	test_put(e, test_path(*state, "x"), CF_OPEN_TRUNCATE, "12345");
	test_put(e, test_path(*state, "y"), CF_OPEN_TRUNCATE, "");
	FAILS(cf_env_mkdirs(e, test_path(*state, "x/z")), CF_ERR_IO, "x/z");

	OK(cf_env_list_dir(e, *state, collect, &l));
	assert_int_equal(l.seen, 7);
	assert_int_equal(l.other, 0);				/* no "." or ".." */

	memset(&l, 0, sizeof(l));
	l.stop_after = 1;
	OK(cf_env_list_dir(e, *state, collect, &l));
	assert_int_equal(l.calls, 1);
	FAILS(cf_env_list_dir(e, test_path(*state, "nope"), collect, &l), CF_ERR_NOT_FOUND, "nope");

	OK(cf_env_file_size(e, test_path(*state, "x"), &size));
	assert_int_equal(size, 5);
	FAILS(cf_env_file_size(e, test_path(*state, "nope"), &size), CF_ERR_NOT_FOUND, "nope");

	OK(cf_env_sync_dir(e, *state));
	FAILS(cf_env_sync_dir(e, test_path(*state, "nope")), CF_ERR_NOT_FOUND, "nope");
	FAILS(cf_env_remove_dir(e, test_path(*state, "sub/one")), CF_ERR_IO, "sub/one");
	OK(cf_env_remove_dir(e, deep));
	assert_false(cf_env_exists(e, deep));
}

static void
lock_is_exclusive(void **state)
{
	cf_env	   *e = cf_env_posix();
	const char *p = test_path(*state, "LOCK");
	void	   *h1;
	void	   *h2;

	OK(cf_env_lock(e, p, &h1));
	assert_non_null(h1);
	FAILS(cf_env_lock(e, p, &h2), CF_ERR_BUSY, p);
	assert_null(h2);
	cf_env_unlock(e, h1);
	OK(cf_env_lock(e, p, &h2));				/* free again after unlock */
	cf_env_unlock(e, h2);
	FAILS(cf_env_lock(e, test_path(*state, "no/LOCK"), &h2), CF_ERR_NOT_FOUND, "no/LOCK");
}

static void
atomic_write_and_read_file(void **state)
{
	cf_env	   *e = cf_env_posix();
	const char *p = test_path(*state, "schema");
	struct listing l = {0};
	uint8_t    *data = (uint8_t *) 1;
	size_t		len = 99;

	OK(cf_env_write_file_atomic(e, p, "v1", 2));
	test_expect_contents(e, p, "v1");
	OK(cf_env_write_file_atomic(e, p, "version 2", 9));
	test_expect_contents(e, p, "version 2");
	OK(cf_env_write_file_atomic(e, test_path(*state, "x"), "", 0));
	test_expect_contents(e, test_path(*state, "x"), "");

	/* No temp file is left behind. */
	OK(cf_env_list_dir(e, *state, collect, &l));
	assert_int_equal(l.calls, 2);

	FAILS(cf_env_read_file(e, test_path(*state, "missing"), &data, &len),
		  CF_ERR_NOT_FOUND, "missing");
	assert_null(data);
	assert_int_equal(len, 0);
	FAILS(cf_env_write_file_atomic(e, test_path(*state, "no/dir/f"), "x", 1),
		  CF_ERR_NOT_FOUND, "writing");
}

static void
clocks(void **state)
{
	cf_env	   *e = cf_env_posix();
	int64_t		m0 = cf_env_mono_micros(e);
	int64_t		now = cf_env_now_micros(e);
	int64_t		m1;

	(void) state;
	assert_true(now > 1600000000LL * 1000000);	/* after 2020 */
	cf_env_sleep_micros(e, 2000);
	cf_env_sleep_micros(e, -5);				/* ignored */
	m1 = cf_env_mono_micros(e);
	assert_true(m1 - m0 >= 2000);
	assert_true(cf_env_mono_micros(e) >= m1);
	assert_true(cf_env_now_micros(e) >= now);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(open_modes, make_dir, remove_dir),
		cmocka_unit_test_setup_teardown(buffered_size_accounting, make_dir, remove_dir),
		cmocka_unit_test_setup_teardown(log_files, make_dir, remove_dir),
		cmocka_unit_test_setup_teardown(read_at_and_read_exact, make_dir, remove_dir),
		cmocka_unit_test_setup_teardown(rename_link_remove, make_dir, remove_dir),
		cmocka_unit_test_setup_teardown(directories, make_dir, remove_dir),
		cmocka_unit_test_setup_teardown(lock_is_exclusive, make_dir, remove_dir),
		cmocka_unit_test_setup_teardown(atomic_write_and_read_file, make_dir, remove_dir),
		cmocka_unit_test(clocks),
	};

	return cmocka_run_group_tests_name("util/env", tests, NULL, NULL);
}
