/*
 * tests/unit/support/tmpdir.c — temporary directories for unit tests (see tmpdir.h).
 *
 * Removal walks the tree depth first with nftw and never follows symbolic links, so a
 * test can never delete outside its own directory.
 */
#include "support/tmpdir.h"

#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *
test_tmpdir_new(const char *prefix)
{
	const char *base = getenv("TMPDIR");
	char	   *path;

	if (base == NULL || base[0] == '\0')
		base = "/tmp";
	if (asprintf(&path, "%s/%s.XXXXXX", base, prefix) < 0)
		return NULL;
	if (mkdtemp(path) == NULL)
	{
		free(path);
		return NULL;
	}
	return path;
}

static int
remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void) st;
	(void) flag;
	(void) ftw;
	remove(path);
	return 0;
}

void
test_tmpdir_free(char *path)
{
	if (path == NULL)
		return;
	nftw(path, remove_one, 16, FTW_DEPTH | FTW_PHYS);
	free(path);
}

const char *
test_path(const char *dir, const char *name)
{
	static char bufs[16][4096];
	static int	next;
	char	   *b = bufs[next++ % 16];

	if ((size_t) snprintf(b, sizeof(bufs[0]), "%s/%s", dir, name) >= sizeof(bufs[0]))
		abort();
	return b;
}
