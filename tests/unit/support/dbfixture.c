/* tests/unit/support/dbfixture.c — see dbfixture.h. */
#include "support/dbfixture.h"

#include <stdio.h>
#include <stdlib.h>

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
