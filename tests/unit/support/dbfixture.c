/* tests/unit/support/dbfixture.c — see dbfixture.h. */
#include "support/cmocka_prelude.h"

#include <stdio.h>
#include <stdlib.h>

#include "support/dbfixture.h"

#include "support/tmpdir.h"

int
db_fixture_setup(void **state)
{
	db_fixture *f = calloc(1, sizeof(*f));

	if (f == NULL || (f->dir = test_tmpdir_new("cf_db")) == NULL)
	{
		free(f);
		return -1;
	}
	snprintf(f->data, sizeof(f->data), "%s/data", f->dir);
	snprintf(f->log, sizeof(f->log), "%s/commitlog", f->dir);
	*state = f;
	return 0;
}

int
db_fixture_teardown(void **state)
{
	db_fixture *f = *state;

	/* a test that failed with its db open must not leave its threads running */
	if (f->db)
		cf_status_free(cf_db_abandon(f->db));
	test_tmpdir_free(f->dir);
	free(f);
	return 0;
}

cf_db_options
db_fixture_options(const db_fixture *f)
{
	cf_db_options o = {
		.env = cf_env_posix(),.data_dir = f->data,.commitlog_dir = f->log,
		.partitioner = CF_PARTITIONER_RANDOM,.sync_mode = CF_COMMITLOG_PERIODIC,
	};

	return o;
}

cf_db *
db_fixture_open(db_fixture *f, const cf_db_options *o)
{
	cf_status  *s;

	f->db = NULL;
	if ((s = cf_db_open(o, &f->db)) != NULL)
		fail_msg("cf_db_open: %s", cf_status_msg(s));
	return f->db;
}

void
db_fixture_close(db_fixture *f)
{
	cf_db	   *db = f->db;
	cf_status  *s;

	f->db = NULL;
	if ((s = cf_db_close(db)) != NULL)
		fail_msg("cf_db_close: %s", cf_status_msg(s));
}
