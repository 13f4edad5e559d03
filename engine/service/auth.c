/*
 * service/auth.c — the password and access files of auth.h, parsed once into arrays,
 * and the checks made against them. Passwords are verified with crypt_r(3) from
 * libxcrypt (the hash names its own method and salt) and compared in constant time.
 * The files are small (a few users): lookups are linear, not worth an index.
 */
#include "service/auth.h"

#include <crypt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/env.h"
#include "util/log.h"

typedef struct auth_user
{
	char	   *name;
	char	   *hash;
} auth_user;

/* One grant: resource "<modify-keyspaces>", "ks" or "ks.cf", to one user. */
typedef struct auth_grant
{
	char	   *resource;
	char	   *user;
	bool		write;			/* <rw> (or 0.6's plain form); else <ro> */
} auth_grant;

struct cf_auth
{
	bool		on;
	auth_user  *users;
	size_t		n_users;
	auth_grant *grants;
	size_t		n_grants;
};

#define MODIFY_KEYSPACES "<modify-keyspaces>"

void
cf_auth_free(cf_auth *a)
{
	if (a == NULL)
		return;
	for (size_t i = 0; i < a->n_users; i++)
	{
		free(a->users[i].name);
		if (a->users[i].hash)
			explicit_bzero(a->users[i].hash, strlen(a->users[i].hash));
		free(a->users[i].hash);
	}
	for (size_t i = 0; i < a->n_grants; i++)
	{
		free(a->grants[i].resource);
		free(a->grants[i].user);
	}
	free(a->users);
	free(a->grants);
	free(a);
}

static char *
trim(char *s)
{
	char	   *e;

	while (*s == ' ' || *s == '\t' || *s == '\r')
		s++;
	e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
		*--e = '\0';
	return s;
}

/* Calls line_fn for each meaningful line of path: "name=value", both trimmed. */
static cf_status *
auth_read_lines(const char *path, cf_auth *a,
				cf_status *(*line_fn) (cf_auth *a, const char *path, int lineno,
									   char *name, char *value))
{
	uint8_t    *data;
	size_t		len;
	char	   *text,
			   *save = NULL,
			   *line;
	int			lineno = 0;
	cf_status  *s = cf_env_read_file(cf_env_posix(), path, &data, &len);

	if (s)
		return s;
	text = malloc(len + 1);
	if (text == NULL)
	{
		free(data);
		return cf_status_make(CF_ERR_NO_MEMORY, "%s: out of memory", path);
	}
	memcpy(text, data, len);
	text[len] = '\0';
	explicit_bzero(data, len);
	free(data);
	if (strlen(text) != len)
		s = cf_status_make(CF_ERR_INVALID, "%s: holds a NUL byte", path);

	/* strsep, not strtok: empty lines must still count for line numbers */
	save = text;
	while (s == NULL && (line = strsep(&save, "\n")) != NULL)
	{
		char	   *eq,
				   *t;

		lineno++;
		t = trim(line);
		if (*t == '\0' || *t == '#')
			continue;
		eq = strchr(t, '=');
		if (eq == NULL)
		{
			s = cf_status_make(CF_ERR_INVALID, "%s line %d: expected name=value", path,
							   lineno);
			break;
		}
		*eq = '\0';
		s = line_fn(a, path, lineno, trim(t), trim(eq + 1));
	}
	explicit_bzero(text, len);
	free(text);
	return s;
}

static cf_status *
auth_passwd_line(cf_auth *a, const char *path, int lineno, char *name, char *value)
{
	auth_user  *u;

	if (*name == '\0')
		return cf_status_make(CF_ERR_INVALID, "%s line %d: empty user name", path, lineno);
	if (value[0] != '$' || strlen(value) < 4)
		return cf_status_make(CF_ERR_INVALID,
							  "%s line %d: user %s: the value must be a crypt(3) hash such as \"$6$...\" or \"$y$...\" (make one with mkpasswd -m sha-512)",
							  path, lineno, name);
	for (size_t i = 0; i < a->n_users; i++)
		if (strcmp(a->users[i].name, name) == 0)
			return cf_status_make(CF_ERR_INVALID, "%s line %d: user %s appears twice", path,
								  lineno, name);
	u = realloc(a->users, (a->n_users + 1) * sizeof(*u));
	if (u == NULL)
		return cf_status_make(CF_ERR_NO_MEMORY, "%s: out of memory", path);
	a->users = u;
	u = &a->users[a->n_users];
	u->name = strdup(name);
	u->hash = strdup(value);
	if (u->name == NULL || u->hash == NULL)
	{
		free(u->name);
		free(u->hash);
		return cf_status_make(CF_ERR_NO_MEMORY, "%s: out of memory", path);
	}
	a->n_users++;
	return NULL;
}

static cf_status *
auth_add_grant(cf_auth *a, const char *resource, const char *user, bool write)
{
	auth_grant *g = realloc(a->grants, (a->n_grants + 1) * sizeof(*g));

	if (g == NULL)
		return cf_status_make(CF_ERR_NO_MEMORY, "access file: out of memory");
	a->grants = g;
	g = &a->grants[a->n_grants];
	g->resource = strdup(resource);
	g->user = strdup(user);
	g->write = write;
	if (g->resource == NULL || g->user == NULL)
	{
		free(g->resource);
		free(g->user);
		return cf_status_make(CF_ERR_NO_MEMORY, "access file: out of memory");
	}
	a->n_grants++;
	return NULL;
}

/* Names of keyspaces and CFs: [A-Za-z0-9_]+ (schema.h). */
static bool
auth_name_ok(const char *s, size_t n)
{
	if (n == 0)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
			  (s[i] >= '0' && s[i] <= '9') || s[i] == '_'))
			return false;
	return true;
}

static cf_status *
auth_access_line(cf_auth *a, const char *path, int lineno, char *name, char *value)
{
	char		resource[256];
	bool		write = true;
	size_t		n = strlen(name);
	char	   *save,
			   *user;
	cf_status  *s = NULL;

	if (strcmp(name, MODIFY_KEYSPACES) == 0)
		snprintf(resource, sizeof(resource), "%s", name);
	else
	{
		const char *dot1,
				   *dot2 = NULL;

		if (n > 5 && strcmp(name + n - 5, ".<rw>") == 0)
			n -= 5;
		else if (n > 5 && strcmp(name + n - 5, ".<ro>") == 0)
		{
			n -= 5;
			write = false;
		}
		dot1 = memchr(name, '.', n);
		if (dot1)
			dot2 = memchr(dot1 + 1, '.', n - (size_t) (dot1 + 1 - name));
		if (n >= sizeof(resource) || dot2 ||
			!auth_name_ok(name, dot1 ? (size_t) (dot1 - name) : n) ||
			(dot1 && !auth_name_ok(dot1 + 1, n - (size_t) (dot1 + 1 - name))))
			return cf_status_make(CF_ERR_INVALID,
								  "%s line %d: \"%s\" is not <modify-keyspaces>, Keyspace[.ColumnFamily][.<rw>|.<ro>]",
								  path, lineno, name);
		memcpy(resource, name, n);
		resource[n] = '\0';
	}
	save = value;
	while (s == NULL && (user = strsep(&save, ",")) != NULL)
	{
		user = trim(user);
		if (*user)
			s = auth_add_grant(a, resource, user, write);
	}
	return cf_status_wrap(s, "%s line %d", path, lineno);
}

cf_status *
cf_auth_open(const char *passwd_path, const char *access_path, cf_auth **out)
{
	cf_auth    *a;
	cf_status  *s;

	*out = NULL;
	if ((passwd_path == NULL) != (access_path == NULL))
		return cf_status_make(CF_ERR_INVALID,
							  "authentication needs both a password file and an access file");
	a = calloc(1, sizeof(*a));
	if (a == NULL)
		return cf_status_make(CF_ERR_NO_MEMORY, "auth: out of memory");
	a->on = passwd_path != NULL;
	s = a->on ? auth_read_lines(passwd_path, a, auth_passwd_line) : NULL;
	if (s == NULL && a->on)
		s = auth_read_lines(access_path, a, auth_access_line);
	if (s)
	{
		cf_auth_free(a);
		return s;
	}
	if (a->on)
		cf_log_info("auth", "authentication on: %zu users, %zu grants", a->n_users,
					a->n_grants);
	*out = a;
	return NULL;
}

bool
cf_auth_required(const cf_auth *a)
{
	return a != NULL && a->on;
}

static bool
const_time_eq(const char *x, const char *y)
{
	size_t		nx = strlen(x),
				ny = strlen(y);
	unsigned char d = nx != ny;

	for (size_t i = 0; i < nx && i < ny; i++)
		d |= (unsigned char) (x[i] ^ y[i]);
	return d == 0;
}

cf_status *
cf_auth_login(const cf_auth *a, cf_slice user, cf_slice password)
{
	const auth_user *u = NULL;
	struct crypt_data *cd;
	char	   *pw;
	const char *h;
	bool		ok;

	if (!cf_auth_required(a))
		return NULL;
	for (size_t i = 0; i < a->n_users; i++)
		if (strlen(a->users[i].name) == user.len &&
			memcmp(a->users[i].name, user.p, user.len) == 0)
			u = &a->users[i];
	if (u == NULL || memchr(password.p, '\0', password.len) != NULL)
	{
		cf_log_info("auth", "login failed for user \"%.*s\"",
					(int) (user.len > 64 ? 64 : user.len), (const char *) user.p);
		return cf_status_make(CF_ERR_AUTHENTICATION, "invalid username or password");
	}
	cd = calloc(1, sizeof(*cd));
	pw = malloc(password.len + 1);
	if (cd == NULL || pw == NULL)
	{
		free(cd);
		free(pw);
		return cf_status_make(CF_ERR_NO_MEMORY, "login: out of memory");
	}
	if (password.len)
		memcpy(pw, password.p, password.len);
	pw[password.len] = '\0';
	h = crypt_r(pw, u->hash, cd);
	/* libxcrypt returns a "*"-prefixed failure token, never NULL by default */
	ok = h != NULL && h[0] != '*' && const_time_eq(h, u->hash);
	explicit_bzero(pw, password.len);
	explicit_bzero(cd, sizeof(*cd));
	free(pw);
	free(cd);
	if (!ok)
	{
		cf_log_info("auth", "login failed for user \"%s\"", u->name);
		return cf_status_make(CF_ERR_AUTHENTICATION, "invalid username or password");
	}
	return NULL;
}

static bool
auth_granted(const cf_auth *a, const char *user, const char *resource, cf_auth_perm perm)
{
	for (size_t i = 0; i < a->n_grants; i++)
	{
		const auth_grant *g = &a->grants[i];

		if (strcmp(g->user, user) == 0 && strcmp(g->resource, resource) == 0 &&
			(g->write || perm == CF_AUTH_READ))
			return true;
	}
	return false;
}

static const char *
perm_name(cf_auth_perm perm)
{
	return perm == CF_AUTH_WRITE ? "WRITE" : "READ";
}

cf_status *
cf_auth_authorize(const cf_auth *a, const char *user, const char *keyspace,
				  const char *cf, cf_auth_perm perm)
{
	char		res[256];

	if (!cf_auth_required(a))
		return NULL;
	if (user == NULL)
		return cf_status_make(CF_ERR_AUTHENTICATION, "you have not logged in");
	if (auth_granted(a, user, keyspace, perm))
		return NULL;
	if (cf)
	{
		snprintf(res, sizeof(res), "%s.%s", keyspace, cf);
		if (auth_granted(a, user, res, perm))
			return NULL;
	}
	return cf_status_make(CF_ERR_AUTHORIZATION, "user %s does not have %s permission on %s%s%s",
						  user, perm_name(perm), keyspace, cf ? "." : "", cf ? cf : "");
}

cf_status *
cf_auth_authorize_keyspace_use(const cf_auth *a, const char *user, const char *keyspace)
{
	size_t		n = strlen(keyspace);

	if (!cf_auth_required(a))
		return NULL;
	if (user == NULL)
		return cf_status_make(CF_ERR_AUTHENTICATION, "you have not logged in");
	for (size_t i = 0; i < a->n_grants; i++)
	{
		const auth_grant *g = &a->grants[i];

		if (strcmp(g->user, user) == 0 && strncmp(g->resource, keyspace, n) == 0 &&
			(g->resource[n] == '\0' || g->resource[n] == '.'))
			return NULL;
	}
	return cf_status_make(CF_ERR_AUTHORIZATION, "user %s has no access to keyspace %s",
						  user, keyspace);
}

cf_status *
cf_auth_authorize_keyspaces(const cf_auth *a, const char *user)
{
	if (!cf_auth_required(a))
		return NULL;
	if (user == NULL)
		return cf_status_make(CF_ERR_AUTHENTICATION, "you have not logged in");
	if (auth_granted(a, user, MODIFY_KEYSPACES, CF_AUTH_WRITE))
		return NULL;
	return cf_status_make(CF_ERR_AUTHORIZATION,
						  "user %s may not add, drop or update keyspaces (%s)", user,
						  MODIFY_KEYSPACES);
}
