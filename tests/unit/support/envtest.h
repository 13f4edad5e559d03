/*
 * tests/unit/support/envtest.h — assertions on cf_status results and small file
 * helpers for the tests of util/env and of the code written over an env.
 *
 * Include after support/cmocka_prelude.h. Every helper fails the running test
 * (cmocka's fail_msg) instead of returning an error.
 */
#ifndef CF_TEST_ENVTEST_H
#define CF_TEST_ENVTEST_H

#include <string.h>

#include "util/env.h"
#include "util/status.h"

/* Fails the test with the status's message unless expr returns NULL. */
#define OK(expr) \
	do { \
		cf_status  *ok_s_ = (expr); \
		if (ok_s_ != NULL) \
			fail_msg("%s: %s", #expr, cf_status_msg(ok_s_)); \
	} while (0)

/* Asserts expr fails with code and a message containing needle; frees the status. */
#define FAILS(expr, code, needle) \
	do { \
		cf_status  *fails_s_ = (expr); \
		assert_non_null(fails_s_); \
		assert_string_equal(cf_code_name(cf_status_code(fails_s_)), cf_code_name(code)); \
		if (strstr(cf_status_msg(fails_s_), (needle)) == NULL) \
			fail_msg("message \"%s\" lacks \"%s\"", cf_status_msg(fails_s_), (needle)); \
		cf_status_free(fails_s_); \
	} while (0)

/* Opens path with mode, appends text, closes. */
void		test_put(cf_env *e, const char *path, cf_open_mode mode, const char *text);

/* Asserts the file at path holds exactly text. */
void		test_expect_contents(cf_env *e, const char *path, const char *text);

#endif
