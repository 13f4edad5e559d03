/*
 * tests/unit/support/authfiles.h — the password and access files of colfamd's
 * SimpleAuthenticator / SimpleAuthority, written for a test.
 *
 * The tests that log in (service, dispatch, admin, a colfamd started end to end) all
 * need a "passwd" of crypt(3) hashes and an "access" file; this writes both.
 */
#ifndef CF_TEST_AUTHFILES_H
#define CF_TEST_AUTHFILES_H

/*
 * Writes dir/passwd, one "user=HASH" line for each "user:password" of users
 * (NULL-terminated; SHA-512 crypt), and dir/access holding access as given. Fails the
 * running test on any error (a cmocka assertion).
 */
void		test_auth_files(const char *dir, const char *const *users, const char *access);

#endif							/* CF_TEST_AUTHFILES_H */
