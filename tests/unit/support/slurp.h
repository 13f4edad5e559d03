/*
 * tests/unit/support/slurp.h — whole files and streams read into memory, for tests
 * that compare what a tool wrote or feed it a file. Each fails the running test
 * (cmocka) when the bytes cannot be read.
 */
#ifndef CF_TEST_SLURP_H
#define CF_TEST_SLURP_H

#include <stddef.h>
#include <stdio.h>

/*
 * The bytes of stream f from offset from to what was written last (f is flushed
 * first), as a malloc'd NUL-terminated string; *len (if not NULL) their count. f is
 * left at its end, so later writes append.
 */
char	   *test_slurp_stream(FILE *f, long from, size_t *len);

/* The whole file at path (relative paths from the top of the tree), as above. */
char	   *test_slurp_file(const char *path, size_t *len);

#endif
