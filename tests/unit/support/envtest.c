/* tests/unit/support/envtest.c — file helpers for env tests (see envtest.h). */
#include "support/cmocka_prelude.h"

#include <stdlib.h>

#include "support/envtest.h"

void
test_put(cf_env *e, const char *path, cf_open_mode mode, const char *text)
{
	cf_wfile   *f;

	OK(cf_env_open_write(e, path, mode, &f));
	OK(cf_wfile_append(f, text, strlen(text)));
	OK(cf_wfile_close(f));
}

void
test_expect_contents(cf_env *e, const char *path, const char *text)
{
	uint8_t    *data;
	size_t		len;

	OK(cf_env_read_file(e, path, &data, &len));
	if (len != strlen(text) || memcmp(data, text, len) != 0)
		fail_msg("%s holds \"%.*s\", not \"%s\"", path, (int) len, (const char *) data, text);
	free(data);
}
