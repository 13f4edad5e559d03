/*
 * tests/unit/support/statusexpect.h — assertions on a cf_status, for tests: it
 * succeeded, or it failed with a given code and message. Each fails the running test
 * (cmocka) with the status's own message, and frees the status.
 */
#ifndef CF_TEST_STATUSEXPECT_H
#define CF_TEST_STATUSEXPECT_H

#include "util/status.h"

/* s is NULL, or the test fails with "unexpected error: <message>". */
void		test_check(cf_status *s);

/* s failed with code and a message containing part. */
void		test_expect(cf_status *s, cf_code code, const char *part);

#endif
