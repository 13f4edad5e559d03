/*
 * tests/unit/test_snapshot.c — db/snapshot and the db's snapshot calls: taking one of
 * some keyspaces or of all but system, all or nothing (a name taken in one keyspace,
 * bad names, unknown keyspaces); listing with files, bytes and the bytes no live
 * SSTable shares; the automatic dropped- and truncated- ones, a dropped keyspace's
 * included; clearing by name or all, and the live data still read afterwards; the
 * snapshot holding the data as of when it was taken, reopened as a db of its own.
 */
#include "support/cmocka_prelude.h"
#include "support/envtest.h"
#include "support/slices.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "db/db.h"
#include "db/snapshot.h"
#include "support/dbfixture.h"
#include "support/tmpdir.h"
#include "util/env_fault.h"

/* A keyspace of two Standard CFs, A and B. */
static void
add_keyspace(cf_db *db, const char *name)
{
	cf_ks_def	ks;
	cf_cf_def	cf;

	assert_null(cf_ksdef_init(&ks, name));
	assert_null(cf_cfdef_init(&cf, name, "A"));
	assert_null(cf_ksdef_add_cf(&ks, &cf));
	assert_null(cf_cfdef_init(&cf, name, "B"));
	assert_null(cf_ksdef_add_cf(&ks, &cf));
	assert_null(cf_db_add_keyspace(db, &ks));
	cf_ksdef_clear(&ks);
}

/* Rows first..first+n-1 ("r<i>", one column "c") into ks.cf. */
static void
write_rows(cf_db *db, const char *ks, const char *cf, int first, int n)
{
	for (int i = first; i < first + n; i++)
	{
		char		key[16];
		cf_cell		c = {.sc = S(""),.name = S("c"),.value = S("v"),.timestamp = i + 1};
		cf_db_update u = {.cf = cf,.u = {.row_del = cf_deletion_none(),.cells = &c,.n_cells = 1}};

		snprintf(key, sizeof(key), "r%d", i);
		assert_null(cf_db_apply(db, ks, S(key), &u, 1));
	}
}

/* How many live rows ks.cf has, through the read path. */
static size_t
live_rows(cf_db *db, const char *ks, const char *cf)
{
	cf_table_set v;
	cf_key_range kr = {.count = 100000};
	cf_predicate p = {.range = {.count = 1}};
	cf_read_rows *r;
	size_t		n;

	assert_null(cf_db_view(db, ks, cf, &v));
	assert_null(cf_read_range(&v, &kr, S(""), &p, (int32_t) time(NULL), &r));
	n = r->n_rows;
	cf_read_rows_free(r);
	cf_cfstore_view_release(&v);
	return n;
}

static cf_db *
open_plain(db_fixture *f)
{
	cf_db_options o = db_fixture_options(f);

	return db_fixture_open(f, &o);
}

/* Takes snapshot name of the keyspaces; fails the test on an error. */
static void
take(cf_db *db, const char *const *kss, size_t n, const char *name)
{
	cf_snapshot_list l = {0};

	OK(cf_db_snapshot(db, kss, n, name, &l));
	cf_snapshot_list_free(&l);
}

/* How many CF snapshots cf_db_list_snapshots finds (clear: cf_db_clear_snapshots removes). */
static size_t
count_snapshots(cf_db *db, const char *const *kss, size_t n, const char *name, bool clear)
{
	cf_snapshot_list l = {0};
	size_t		count;

	OK(clear ? cf_db_clear_snapshots(db, kss, n, name, &l) :
	   cf_db_list_snapshots(db, kss, n, name, &l));
	count = l.n;
	cf_snapshot_list_free(&l);
	return count;
}

static void
take_list_clear(void **state)
{
	db_fixture *f = *state;
	cf_db	   *db = open_plain(f);
	const char *k1[] = {"K1"};
	cf_snapshot_list l = {0};
	struct stat st;
	char		path[1024];

	add_keyspace(db, "K1");
	add_keyspace(db, "K2");
	write_rows(db, "K1", "A", 0, 50);
	write_rows(db, "K1", "B", 0, 5);
	OK(cf_db_snapshot(db, k1, 1, "one", &l));
	assert_int_equal(l.n, 2);	/* what it took: K1's A and B */
	assert_string_equal(l.v[1].cf, "B");
	cf_snapshot_list_free(&l);

	/* one per CF of K1, none of K2; the memtables were flushed into it */
	OK(cf_db_list_snapshots(db, NULL, 0, NULL, &l));
	assert_int_equal(l.n, 2);
	assert_string_equal(l.v[0].keyspace, "K1");
	assert_string_equal(l.v[0].cf, "A");
	assert_string_equal(l.v[1].cf, "B");
	assert_string_equal(l.v[0].name, "one");
	snprintf(path, sizeof(path), "%s/K1/A/snapshots/one", f->data);
	assert_string_equal(l.v[0].dir, path);
	assert_int_equal(l.v[0].files, 2);	/* one SSTable and the MANIFEST */
	assert_true(l.v[0].bytes > 0);
	/* the SSTable is a live one too: only the MANIFEST is the snapshot's alone */
	snprintf(path, sizeof(path), "%s/K1/A/snapshots/one/MANIFEST", f->data);
	assert_int_equal(stat(path, &st), 0);
	assert_true(l.v[0].unshared_bytes <= (uint64_t) st.st_size);
	cf_snapshot_list_free(&l);

	/* a major compaction replaces the live SSTable: the snapshot's copy is its own now */
	write_rows(db, "K1", "A", 50, 10);
	assert_null(cf_db_flush(db, "K1", "A"));
	assert_null(cf_db_compact(db, "K1", "A", true));
	OK(cf_db_list_snapshots(db, k1, 1, "one", &l));
	assert_int_equal(l.n, 2);
	assert_int_equal(l.v[0].unshared_bytes, l.v[0].bytes);
	cf_snapshot_list_free(&l);

	/* the same name again: refused, and nothing new under K1 */
	FAILS(cf_db_snapshot(db, NULL, 0, "one", &l), CF_ERR_INVALID,
		   "keyspace K1 has a snapshot \"one\" already");
	snprintf(path, sizeof(path), "%s/K2/A/snapshots/one", f->data);
	assert_int_not_equal(access(path, F_OK), 0);

	/* clear by name: removed, said, and the live rows still read */
	assert_int_equal(count_snapshots(db, k1, 1, "one", true), 2);
	snprintf(path, sizeof(path), "%s/K1/A/snapshots", f->data);
	assert_int_not_equal(access(path, F_OK), 0);	/* gone with its last snapshot */
	assert_int_equal(live_rows(db, "K1", "A"), 60);
	assert_int_equal(live_rows(db, "K1", "B"), 5);
	FAILS(cf_db_clear_snapshots(db, k1, 1, "one", &l), CF_ERR_NOT_FOUND,
		   "no snapshot \"one\" in keyspace K1");
	cf_snapshot_list_free(&l);

	/* and after a restart */
	db_fixture_close(f);
	db = open_plain(f);
	assert_int_equal(live_rows(db, "K1", "A"), 60);
	db_fixture_close(f);
}

static void
every_keyspace_but_system(void **state)
{
	db_fixture *f = *state;
	cf_db	   *db = open_plain(f);
	const char *sys[] = {"system"};
	cf_snapshot_list l = {0};

	add_keyspace(db, "K1");
	add_keyspace(db, "K2");
	take(db, NULL, 0, "all");
	OK(cf_db_list_snapshots(db, NULL, 0, NULL, &l));
	assert_int_equal(l.n, 4);
	assert_string_equal(l.v[0].keyspace, "K1");
	assert_string_equal(l.v[3].keyspace, "K2");
	cf_snapshot_list_free(&l);

	/* a keyspace named twice is taken, listed and cleared once */
	{
		const char *twice[] = {"K2", "K2"};

		take(db, twice, 2, "dup");
		assert_int_equal(count_snapshots(db, twice, 2, "dup", false), 2);
		assert_int_equal(count_snapshots(db, twice, 2, "dup", true), 2);
	}

	/* system when named, and listed and cleared with the rest */
	take(db, sys, 1, "all");
	OK(cf_db_list_snapshots(db, sys, 1, NULL, &l));
	assert_true(l.n >= 1);
	assert_string_equal(l.v[0].keyspace, "system");
	cf_snapshot_list_free(&l);
	/* what a snapshot of all but system says it took leaves system's of that name out */
	OK(cf_db_snapshot(db, sys, 1, "both", &l));
	assert_true(l.n >= 1);
	assert_string_equal(l.v[0].keyspace, "system");
	cf_snapshot_list_free(&l);
	OK(cf_db_snapshot(db, NULL, 0, "both", &l));
	assert_int_equal(l.n, 4);
	assert_string_equal(l.v[0].keyspace, "K1");
	assert_string_equal(l.v[3].keyspace, "K2");
	cf_snapshot_list_free(&l);
	assert_true(count_snapshots(db, NULL, 0, NULL, true) >= 5);
	assert_int_equal(count_snapshots(db, NULL, 0, NULL, false), 0);
	/* clearing everything when there is nothing is no error */
	assert_int_equal(count_snapshots(db, NULL, 0, NULL, true), 0);
	db_fixture_close(f);
}

static void
refusals(void **state)
{
	db_fixture *f = *state;
	cf_db	   *db = open_plain(f);
	const char *nope[] = {"K1", "Nope"};
	const char *bad[] = {"../K1"};
	const char *k1[] = {"K1"};
	cf_snapshot_list l = {0};
	char		longname[CF_SNAPSHOT_NAME_MAX + 2];

	add_keyspace(db, "K1");
	memset(longname, 'x', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	FAILS(cf_db_snapshot(db, k1, 1, "", &l), CF_ERR_INVALID, "1 to 200 characters");
	FAILS(cf_db_snapshot(db, k1, 1, longname, &l), CF_ERR_INVALID, "(got 201)");
	FAILS(cf_db_snapshot(db, k1, 1, "..", &l), CF_ERR_INVALID, "letters, digits, '_' and '-'");
	FAILS(cf_db_snapshot(db, k1, 1, "a/b", &l), CF_ERR_INVALID, "letters, digits");
	FAILS(cf_db_snapshot(db, nope, 2, "x", &l), CF_ERR_NOT_FOUND, "Keyspace Nope does not exist");
	FAILS(cf_db_list_snapshots(db, bad, 1, NULL, &l), CF_ERR_NOT_FOUND,
		   "Keyspace ../K1 does not exist");
	FAILS(cf_db_clear_snapshots(db, k1, 1, "a.b", &l), CF_ERR_INVALID, "letters");
	FAILS(cf_db_clear_snapshots(db, NULL, 0, "x", &l), CF_ERR_NOT_FOUND,
		   "no snapshot \"x\" in any keyspace");
	assert_int_equal(l.n, 0);	/* no call's out holds anything */
	/* none of it left anything */
	assert_int_equal(count_snapshots(db, NULL, 0, NULL, false), 0);
	db_fixture_close(f);
}

/* A link failing in the second CF: the first CF's part is removed again. */
static void
failure_leaves_nothing(void **state)
{
	db_fixture *f = *state;
	cf_env	   *env = cf_env_fault_new(cf_env_posix());
	cf_db_options o = db_fixture_options(f);
	const char *k1[] = {"K1"};
	cf_snapshot_list l = {0};
	cf_db	   *db;

	o.env = env;
	db = db_fixture_open(f, &o);
	add_keyspace(db, "K1");
	write_rows(db, "K1", "A", 0, 10);
	write_rows(db, "K1", "B", 0, 10);
	assert_null(cf_db_flush(db, "K1", NULL));
	/* A's SSTable and MANIFEST link, B's SSTable does not */
	cf_env_fault_fail(env, CF_FAULT_LINK, 2, EIO, 1);
	FAILS(cf_db_snapshot(db, k1, 1, "half", &l), CF_ERR_IO, "snapshot \"half\" of B");
	assert_int_equal(l.n, 0);	/* out left empty */
	assert_int_equal(count_snapshots(db, NULL, 0, NULL, false), 0);
	assert_int_not_equal(access(test_path(f->data, "K1/A/snapshots"), F_OK), 0);
	/* the name is free again, and the data whole */
	take(db, k1, 1, "half");
	assert_int_equal(count_snapshots(db, NULL, 0, NULL, false), 2);
	assert_int_equal(live_rows(db, "K1", "B"), 10);

	/* a removal failing in B's: A's is gone and counted, B's stays, out has both */
	cf_env_fault_fail(env, CF_FAULT_REMOVE, 2, EIO, 1);
	FAILS(cf_db_clear_snapshots(db, k1, 1, "half", &l), CF_ERR_IO,
		  "after clearing 1 snapshot directory");
	assert_int_equal(l.n, 2);
	cf_snapshot_list_free(&l);
	OK(cf_db_list_snapshots(db, NULL, 0, NULL, &l));
	assert_int_equal(l.n, 1);
	assert_string_equal(l.v[0].cf, "B");
	cf_snapshot_list_free(&l);
	db_fixture_close(f);
	cf_env_fault_free(env);
}

static void
automatic_ones_are_listed(void **state)
{
	db_fixture *f = *state;
	cf_db	   *db = open_plain(f);
	const char *gone[] = {"K2"};
	cf_snapshot_list l = {0};

	add_keyspace(db, "K1");
	add_keyspace(db, "K2");
	write_rows(db, "K1", "A", 0, 10);
	write_rows(db, "K2", "B", 0, 10);
	assert_null(cf_db_truncate(db, "K1", "A"));
	assert_null(cf_db_drop_keyspace(db, "K2"));
	OK(cf_db_list_snapshots(db, NULL, 0, NULL, &l));
	assert_int_equal(l.n, 3);
	assert_string_equal(l.v[0].keyspace, "K1");
	assert_int_equal(strncmp(l.v[0].name, "truncated-", 10), 0);
	/* truncated: no live SSTable shares its files any more */
	assert_int_equal(l.v[0].unshared_bytes, l.v[0].bytes);
	assert_string_equal(l.v[1].keyspace, "K2");
	assert_int_equal(strncmp(l.v[1].name, "dropped-", 8), 0);
	assert_string_equal(l.v[2].cf, "B");
	assert_int_equal(l.v[2].files, 2);
	cf_snapshot_list_free(&l);

	/* a dropped keyspace can still be named to list and clear its snapshots */
	assert_int_equal(count_snapshots(db, gone, 1, NULL, false), 2);
	assert_int_equal(count_snapshots(db, gone, 1, NULL, true), 2);
	assert_int_equal(count_snapshots(db, NULL, 0, NULL, false), 1);
	db_fixture_close(f);
}

/*
 * The snapshot is the data as of when it was taken: its files, copied over a CF's in
 * a copy of the data directory, open as that CF with the old rows and not the new.
 */
static void
snapshot_restores(void **state)
{
	db_fixture *f = *state;
	cf_db	   *db = open_plain(f);
	const char *k1[] = {"K1"};
	cf_db_options o;
	char		cmd[4096];
	char	   *copy = test_tmpdir_new("snaprestore");
	char		log[1024];

	add_keyspace(db, "K1");
	write_rows(db, "K1", "A", 0, 30);
	take(db, k1, 1, "before");
	write_rows(db, "K1", "A", 30, 20);
	db_fixture_close(f);

	snprintf(cmd, sizeof(cmd), "cp -a '%s' '%s/data' && cd '%s/data/K1/A' && "
			 "rm -f *.sst MANIFEST && cp snapshots/before/* . && rm -r snapshots",
			 f->data, copy, copy);
	assert_int_equal(system(cmd), 0);
	snprintf(log, sizeof(log), "%s/commitlog", copy);
	o = db_fixture_options(f);
	snprintf(cmd, sizeof(cmd), "%s/data", copy);
	o.data_dir = cmd;
	o.commitlog_dir = log;
	assert_null(cf_db_open(&o, &db));
	assert_int_equal(live_rows(db, "K1", "A"), 30);
	assert_null(cf_db_close(db));

	db = open_plain(f);
	assert_int_equal(live_rows(db, "K1", "A"), 50);
	db_fixture_close(f);
	test_tmpdir_free(copy);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		DB_TEST(take_list_clear),
		DB_TEST(every_keyspace_but_system),
		DB_TEST(refusals),
		DB_TEST(failure_leaves_nothing),
		DB_TEST(automatic_ones_are_listed),
		DB_TEST(snapshot_restores),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
