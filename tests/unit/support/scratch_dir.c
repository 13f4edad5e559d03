/* tests/unit/support/scratch_dir.c — throwaway directories (see scratch_dir.h). */
#include "support/cmocka_prelude.h"

#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>

#include "support/scratch_dir.h"

char *
cf_test_scratch_dir(const char *prefix)
{
	const char *base = getenv("TMPDIR");
	char	   *d;

	assert_true(asprintf(&d, "%s/%s_XXXXXX", base && *base ? base : "/tmp", prefix) > 0);
	assert_non_null(mkdtemp(d));
	return d;
}

static int
remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void) st;
	(void) flag;
	(void) ftw;
	return remove(path);
}

void
cf_test_scratch_dir_remove(char *dir)
{
	if (dir == NULL)
		return;
	nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
	free(dir);
}
