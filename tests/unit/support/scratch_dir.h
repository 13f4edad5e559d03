/*
 * tests/unit/support/scratch_dir.h — throwaway directories for tests that write files.
 *
 * A scratch directory lives under $TMPDIR (or /tmp), is named after the test, and is
 * removed with everything in it. Test-only code: it calls the OS directly, not an env.
 */
#ifndef CF_TEST_SCRATCH_DIR_H
#define CF_TEST_SCRATCH_DIR_H

/* A new empty directory "<tmp>/<prefix>_XXXXXX" (malloc'd path); aborts the test on error. */
char	   *cf_test_scratch_dir(const char *prefix);

/* Removes dir and everything under it, then frees the path. NULL is accepted. */
void		cf_test_scratch_dir_remove(char *dir);

#endif
