/* tests/unit/test_auth.c — service/auth: password and access files, login with
 * crypt(3) hashes, grants per keyspace and CF, malformed files, and that a failed
 * login never logs the password. */
#include "support/cmocka_prelude.h"
#include "support/slices.h"

#include <crypt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "service/auth.h"
#include "support/envtest.h"
#include "support/tmpdir.h"
#include "util/log.h"

static void
write_file(const char *path, const char *text)
{
	FILE	   *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static char logged[8192];

static void
capture(void *arg, cf_log_level level, const char *line)
{
	(void) arg;
	(void) level;
	strncat(logged, line, sizeof(logged) - strlen(logged) - 1);
}

/* alice (SHA-512) and bob (yescrypt when the library has it, else SHA-512). */
static cf_auth *
open_auth(char *dir)
{
	char		passwd[1024];
	struct crypt_data cd;
	cf_auth    *a;
	const char *h;

	memset(&cd, 0, sizeof(cd));
	h = crypt_r("wonderland", "$6$saltsalt$", &cd);
	assert_true(h && h[0] == '$');
	snprintf(passwd, sizeof(passwd), "# users\n\nalice = %s\n", h);
	h = crypt_r("builder", "$y$j9T$abcdefghijklmnopqrstu.$", &cd);
	if (h == NULL || h[0] != '$')
		h = crypt_r("builder", "$6$othersalt$", &cd);
	snprintf(passwd + strlen(passwd), sizeof(passwd) - strlen(passwd), "bob=%s\n", h);
	write_file(test_path(dir, "passwd"), passwd);
	write_file(test_path(dir, "access"),
			   "<modify-keyspaces>=alice\n"
			   "Twitter.<rw>=alice\n"
			   "Twitter.<ro>= carol , bob\n"
			   "Twitter.Users.<rw>=bob\n"
			   "Blog=dave\n");
	assert_null(cf_auth_open(test_path(dir, "passwd"), test_path(dir, "access"), &a));
	return a;
}

static void
off_allows_everything(void **state)
{
	cf_auth    *a;

	(void) state;
	assert_null(cf_auth_open(NULL, NULL, &a));
	assert_false(cf_auth_required(a));
	assert_null(cf_auth_login(a, S("x"), S("y")));
	assert_null(cf_auth_authorize(a, NULL, "Any", "Cf", CF_AUTH_WRITE));
	assert_null(cf_auth_authorize_keyspaces(a, NULL));
	cf_auth_free(a);
	FAILS(cf_auth_open("/nonexistent", NULL, &a), CF_ERR_INVALID, "both");
}

static void
login_checks_the_hash(void **state)
{
	char	   *dir = test_tmpdir_new("cf_auth");
	cf_auth    *a = open_auth(dir);

	(void) state;
	assert_true(cf_auth_required(a));
	cf_log_set_sink(capture, NULL);
	logged[0] = '\0';
	assert_null(cf_auth_login(a, S("alice"), S("wonderland")));
	assert_null(cf_auth_login(a, S("bob"), S("builder")));
	FAILS(cf_auth_login(a, S("alice"), S("wonderlan")), CF_ERR_AUTHENTICATION,
		  "invalid username or password");
	FAILS(cf_auth_login(a, S("alice"), S("")), CF_ERR_AUTHENTICATION, "");
	FAILS(cf_auth_login(a, S("mallory"), S("wonderland")), CF_ERR_AUTHENTICATION,
		  "invalid username or password");
	FAILS(cf_auth_login(a, S("alice"), cf_slice_of("wonderland\0x", 12)),
		  CF_ERR_AUTHENTICATION, "");
	cf_log_set_sink(NULL, NULL);
	assert_non_null(strstr(logged, "alice"));
	assert_null(strstr(logged, "wonderlan"));
	cf_auth_free(a);
	test_tmpdir_free(dir);
}

static void
grants_by_keyspace_and_cf(void **state)
{
	char	   *dir = test_tmpdir_new("cf_auth");
	cf_auth    *a = open_auth(dir);

	(void) state;
	assert_null(cf_auth_authorize(a, "alice", "Twitter", "Users", CF_AUTH_WRITE));
	assert_null(cf_auth_authorize(a, "alice", "Twitter", NULL, CF_AUTH_WRITE));
	assert_null(cf_auth_authorize(a, "carol", "Twitter", "Statuses", CF_AUTH_READ));
	FAILS(cf_auth_authorize(a, "carol", "Twitter", "Statuses", CF_AUTH_WRITE),
		  CF_ERR_AUTHORIZATION, "carol does not have WRITE permission on Twitter.Statuses");
	assert_null(cf_auth_authorize(a, "bob", "Twitter", "Users", CF_AUTH_WRITE));
	FAILS(cf_auth_authorize(a, "bob", "Twitter", "Statuses", CF_AUTH_WRITE),
		  CF_ERR_AUTHORIZATION, "");
	FAILS(cf_auth_authorize(a, "bob", "Twitter", NULL, CF_AUTH_WRITE),
		  CF_ERR_AUTHORIZATION, "");
	assert_null(cf_auth_authorize(a, "dave", "Blog", "Posts", CF_AUTH_WRITE));
	FAILS(cf_auth_authorize(a, "dave", "Twitter", "Users", CF_AUTH_READ),
		  CF_ERR_AUTHORIZATION, "");
	FAILS(cf_auth_authorize(a, NULL, "Twitter", "Users", CF_AUTH_READ),
		  CF_ERR_AUTHENTICATION, "you have not logged in");
	/* a prefix of a keyspace name is not that keyspace */
	FAILS(cf_auth_authorize_keyspace_use(a, "dave", "Blo"), CF_ERR_AUTHORIZATION, "");
	assert_null(cf_auth_authorize_keyspace_use(a, "dave", "Blog"));
	assert_null(cf_auth_authorize_keyspace_use(a, "bob", "Twitter"));
	assert_null(cf_auth_authorize_keyspaces(a, "alice"));
	FAILS(cf_auth_authorize_keyspaces(a, "bob"), CF_ERR_AUTHORIZATION,
		  "<modify-keyspaces>");
	cf_auth_free(a);
	test_tmpdir_free(dir);
}

static void
malformed_files_name_the_line(void **state)
{
	char	   *dir = test_tmpdir_new("cf_auth");
	char	   *pw = strdup(test_path(dir, "passwd"));
	char	   *ac = strdup(test_path(dir, "access"));
	cf_auth    *a;

	(void) state;
	write_file(ac, "Twitter=alice\n");
	write_file(pw, "alice=plaintext\n");
	FAILS(cf_auth_open(pw, ac, &a), CF_ERR_INVALID, "line 1: user alice");
	write_file(pw, "#\nalice\n");
	FAILS(cf_auth_open(pw, ac, &a), CF_ERR_INVALID, "line 2: expected name=value");
	write_file(pw, "alice=$6$x$y\nalice=$6$x$z\n");
	FAILS(cf_auth_open(pw, ac, &a), CF_ERR_INVALID, "twice");
	write_file(pw, "alice=$6$x$y\n");
	write_file(ac, "Twitter.a.b=alice\n");
	FAILS(cf_auth_open(pw, ac, &a), CF_ERR_INVALID, "line 1");
	write_file(ac, "Twit-ter=alice\n");
	FAILS(cf_auth_open(pw, ac, &a), CF_ERR_INVALID, "line 1");
	FAILS(cf_auth_open(test_path(dir, "missing"), ac, &a), CF_ERR_NOT_FOUND, "");
	free(pw);
	free(ac);
	test_tmpdir_free(dir);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(off_allows_everything),
		cmocka_unit_test(login_checks_the_hash),
		cmocka_unit_test(grants_by_keyspace_and_cf),
		cmocka_unit_test(malformed_files_name_the_line),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
