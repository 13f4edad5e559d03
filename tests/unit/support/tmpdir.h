/*
 * tests/unit/support/tmpdir.h — a private temporary directory for a unit test, made
 * with mkdtemp under $TMPDIR (or /tmp) and removed with everything in it.
 */
#ifndef CF_TEST_TMPDIR_H
#define CF_TEST_TMPDIR_H

/* A new empty directory "<tmp>/<prefix>.XXXXXX"; malloc'd path, NULL on failure. */
char	   *test_tmpdir_new(const char *prefix);

/* Removes the directory and its contents and frees path. NULL is accepted. */
void		test_tmpdir_free(char *path);

/*
 * "<dir>/<name>" in one of 16 static buffers used in turn: valid for the next 15 calls,
 * enough for the paths of one test step; copy a path kept longer. Aborts if it does
 * not fit. Not thread-safe.
 */
const char *test_path(const char *dir, const char *name);

#endif
