/*
 * service/auth.h — authentication and authorization of client sessions, as Cassandra
 * 0.7's AllowAllAuthenticator (the default) and SimpleAuthenticator/SimpleAuthority.
 *
 * Off (no files given): every session may do everything without logging in.
 *
 * On: two files, read once at open.
 *  - The password file: one `user=hash` per line, hash a crypt(3) string as
 *    libxcrypt makes it ("$6$<salt>$..." SHA-512 or "$y$..." yescrypt; make one with
 *    `mkpasswd -m sha-512` or `mkpasswd -m yescrypt`). Plain-text passwords are
 *    refused at open: the file never holds a password.
 *  - The access file, 0.7's access.properties:
 *        <modify-keyspaces>=alice            may add, drop and update keyspaces
 *        Twitter.<rw>=alice,bob              read and write every CF of Twitter,
 *                                            and add/drop/update its CFs
 *        Twitter.<ro>=carol                  read every CF of Twitter
 *        Twitter.Users.<rw>=dave             read and write Twitter.Users only
 *        Twitter.Users.<ro>=erin             read Twitter.Users only
 *        Twitter=frank                       0.6's form: the same as Twitter.<rw>
 *    User names are separated by commas; spaces around names are ignored.
 * In both files blank lines and lines starting with '#' are skipped; a malformed line
 * is CF_ERR_INVALID naming the file and line at open.
 *
 * Errors: CF_ERR_AUTHENTICATION (bad or missing credentials: the message never says
 * which of user or password was wrong, and no password is ever logged), and
 * CF_ERR_AUTHORIZATION naming the user, the permission and the resource.
 *
 * Thread safety: after cf_auth_open the object is read-only; any thread may use it.
 */
#ifndef CF_SERVICE_AUTH_H
#define CF_SERVICE_AUTH_H

#include <stdbool.h>

#include "util/slice.h"
#include "util/status.h"

typedef struct cf_auth cf_auth;

typedef enum cf_auth_perm
{
	CF_AUTH_READ = 1,
	CF_AUTH_WRITE = 2
} cf_auth_perm;

/*
 * Both paths NULL: authentication off. Both given: on, with the files read now.
 * One without the other: CF_ERR_INVALID. Unreadable file: the I/O error.
 */
cf_status  *cf_auth_open(const char *passwd_path, const char *access_path, cf_auth **out);
void		cf_auth_free(cf_auth *a);

/* Whether sessions must log in (false when off; NULL is off). */
bool		cf_auth_required(const cf_auth *a);

/* Checks a user's password. Always NULL (success) when off. */
cf_status  *cf_auth_login(const cf_auth *a, cf_slice user, cf_slice password);

/*
 * May user do perm on keyspace (cf NULL: on the keyspace itself, i.e. its schema) or
 * on keyspace.cf? A keyspace grant covers its CFs; <rw> covers <ro>.
 */
cf_status  *cf_auth_authorize(const cf_auth *a, const char *user, const char *keyspace,
							  const char *cf, cf_auth_perm perm);

/* May user set_keyspace to keyspace: any grant on it or on one of its CFs. */
cf_status  *cf_auth_authorize_keyspace_use(const cf_auth *a, const char *user,
										   const char *keyspace);

/* May user add, drop or update keyspaces (<modify-keyspaces>)? */
cf_status  *cf_auth_authorize_keyspaces(const cf_auth *a, const char *user);

#endif							/* CF_SERVICE_AUTH_H */
