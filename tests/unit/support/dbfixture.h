/*
 * tests/unit/support/dbfixture.h — a temp directory with data/ and commitlog/ paths for
 * tests that open a whole db; cmocka setup and teardown functions.
 */
#ifndef CF_TEST_DBFIXTURE_H
#define CF_TEST_DBFIXTURE_H

#include "db/db.h"

typedef struct db_fixture
{
	char	   *dir;
	char		data[512];		/* <dir>/data */
	char		log[512];		/* <dir>/commitlog */
	cf_db	   *db;				/* the test's to open and close */
} db_fixture;

int			db_fixture_setup(void **state);
int			db_fixture_teardown(void **state);

/* A cmocka test of fn in a fresh db_fixture (*state). */
#define DB_TEST(fn) cmocka_unit_test_setup_teardown(fn, db_fixture_setup, db_fixture_teardown)

/*
 * The options of a db in f's directories: the POSIX env, RandomPartitioner, the
 * periodic commit log, every threshold at its default. The caller adjusts them.
 */
cf_db_options db_fixture_options(const db_fixture *f);

/*
 * Opens f->db with o and returns it; fails the running test on an error. f->db is
 * NULL until the open succeeds, so the teardown never abandons a db the test had
 * already closed or abandoned.
 */
cf_db	   *db_fixture_open(db_fixture *f, const cf_db_options *o);

/*
 * Closes f->db, which must close cleanly: fails the running test with the close's
 * message otherwise. f->db is NULL before that check (cf_db_close frees the db even
 * when it reports an error), so the teardown never abandons a freed db.
 */
void		db_fixture_close(db_fixture *f);

#endif
