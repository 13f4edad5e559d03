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

#endif
