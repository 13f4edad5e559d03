/*
 * tests/unit/test_thread.c — util/thread: names set and cut at the kernel's limit; the
 * names of a db's background threads (maintenance, commit-log syncer, flushers).
 */
#include "support/cmocka_prelude.h"

#include <dirent.h>
#include <stdio.h>
#include <string.h>

#include "support/dbfixture.h"
#include "util/thread.h"

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static bool release;

static void *
wait_for_release(void *arg)
{
	(void) arg;
	pthread_mutex_lock(&mu);
	while (!release)
		pthread_cond_wait(&cv, &mu);
	pthread_mutex_unlock(&mu);
	return NULL;
}

static void
names_are_set_and_cut_at_fifteen_bytes(void **state)
{
	pthread_t	t;
	char		got[64];

	(void) state;
	release = false;
	assert_int_equal(pthread_create(&t, NULL, wait_for_release, NULL), 0);

	cf_thread_name(t, "cf-test-%u", 7u);
	assert_int_equal(pthread_getname_np(t, got, sizeof(got)), 0);
	assert_string_equal(got, "cf-test-7");

	cf_thread_name(t, "cf-flush-%s", "AVeryLongColumnFamilyName");
	assert_int_equal(pthread_getname_np(t, got, sizeof(got)), 0);
	assert_int_equal(strlen(got), CF_THREAD_NAME_MAX - 1);
	assert_string_equal(got, "cf-flush-AVeryL");

	pthread_mutex_lock(&mu);
	release = true;
	pthread_cond_broadcast(&cv);
	pthread_mutex_unlock(&mu);
	assert_int_equal(pthread_join(t, NULL), 0);
}

/* How many of this process's threads are named name. */
static int
threads_named(const char *name)
{
	DIR		   *d = opendir("/proc/self/task");
	struct dirent *e;
	int			n = 0;

	assert_non_null(d);
	while ((e = readdir(d)) != NULL)
	{
		char		path[300];
		char		comm[64] = "";
		FILE	   *fp;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/self/task/%s/comm", e->d_name);
		if ((fp = fopen(path, "r")) == NULL)
			continue;			/* the thread ended meanwhile */
		if (fgets(comm, sizeof(comm), fp) != NULL)
			comm[strcspn(comm, "\n")] = '\0';
		fclose(fp);
		n += strcmp(comm, name) == 0;
	}
	closedir(d);
	return n;
}

/* A db's background threads carry their names while it is open, and are gone after. */
static void
db_background_threads_are_named(void **state)
{
	db_fixture *f = *state;
	cf_db_options o = db_fixture_options(f);
	cf_ks_def	ks;
	cf_cf_def	cf;

	db_fixture_open(f, &o);
	assert_null(cf_ksdef_init(&ks, "Blog"));
	assert_null(cf_cfdef_init(&cf, "Blog", "Entries"));
	assert_null(cf_ksdef_add_cf(&ks, &cf));
	assert_null(cf_db_add_keyspace(f->db, &ks));
	cf_ksdef_clear(&ks);

	assert_int_equal(threads_named("cf-maint"), 1);
	assert_int_equal(threads_named("cf-clog-sync"), 1);	/* the periodic commit log's */
	assert_int_equal(threads_named("cf-flush-Entrie"), 1);	/* cut at 15 bytes */

	db_fixture_close(f);
	assert_int_equal(threads_named("cf-maint"), 0);
	assert_int_equal(threads_named("cf-clog-sync"), 0);
	assert_int_equal(threads_named("cf-flush-Entrie"), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(names_are_set_and_cut_at_fifteen_bytes),
		DB_TEST(db_background_threads_are_named),
	};

	return cmocka_run_group_tests_name("util/thread", tests, NULL, NULL);
}
