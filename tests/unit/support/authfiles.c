/*
 * tests/unit/support/authfiles.c — SimpleAuthenticator files for tests (authfiles.h).
 */
#include "support/cmocka_prelude.h"
#include "support/authfiles.h"

#include <crypt.h>
#include <stdio.h>
#include <string.h>

#include "support/tmpdir.h"

static void
write_text(const char *path, const char *text)
{
	FILE	   *fp = fopen(path, "w");

	assert_non_null(fp);
	assert_int_equal(fputs(text, fp) >= 0, 1);
	assert_int_equal(fclose(fp), 0);
}

void
test_auth_files(const char *dir, const char *const *users, const char *access)
{
	char		passwd[4096] = "";
	struct crypt_data cd;

	for (int i = 0; users[i] != NULL; i++)
	{
		const char *colon = strchr(users[i], ':');
		char		user[128];
		const char *h;
		size_t		len = strlen(passwd);

		assert_non_null(colon);
		snprintf(user, sizeof(user), "%.*s", (int) (colon - users[i]), users[i]);
		memset(&cd, 0, sizeof(cd));
		h = crypt_r(colon + 1, "$6$testsalt$", &cd);	/* into cd: one hash at a time */
		assert_true(h != NULL && h[0] == '$');
		assert_true((size_t) snprintf(passwd + len, sizeof(passwd) - len, "%s=%s\n", user, h) <
					sizeof(passwd) - len);
	}
	write_text(test_path(dir, "passwd"), passwd);
	write_text(test_path(dir, "access"), access);
}
