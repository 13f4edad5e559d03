/* tests/unit/support/slurp.c — see slurp.h. */
#include "support/cmocka_prelude.h"

#include <stdlib.h>

#include "support/slurp.h"

char *
test_slurp_stream(FILE *f, long from, size_t *len)
{
	long		end;
	char	   *p;

	assert_int_equal(fflush(f), 0);
	assert_int_equal(fseek(f, 0, SEEK_END), 0);
	end = ftell(f);
	assert_true(end >= from);
	p = malloc((size_t) (end - from) + 1);
	assert_non_null(p);
	assert_int_equal(fseek(f, from, SEEK_SET), 0);
	assert_int_equal(fread(p, 1, (size_t) (end - from), f), (size_t) (end - from));
	p[end - from] = '\0';
	assert_int_equal(fseek(f, end, SEEK_SET), 0);
	if (len)
		*len = (size_t) (end - from);
	return p;
}

char *
test_slurp_file(const char *path, size_t *len)
{
	FILE	   *f = fopen(path, "rb");
	char	   *p;

	if (f == NULL)
		fail_msg("cannot open %s (run from the top of the tree)", path);
	p = test_slurp_stream(f, 0, len);
	fclose(f);
	return p;
}
