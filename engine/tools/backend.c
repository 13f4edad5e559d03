/*
 * tools/backend.c — the tool's server connection (backend.h) over libcolfam.
 *
 * The adaptor keeps backend.h's contract: libcolfam's cfc_call turns a declared
 * exception into a status and leaves res->exception set; here that status is dropped
 * so cft_call makes the one message the tool prints for it.
 */
#include "tools/backend.h"

#include <stdlib.h>
#include <string.h>

#include "client/client.h"
#include "tools/connopt.h"

/* A credential of a login request as a malloc'd C string (NULL: absent or no memory). */
static char *
credential(const cf_t_args *args, const char *name)
{
	for (size_t i = 0; i < args->auth_request.n_credentials; i++)
	{
		const cf_t_string_pair *p = &args->auth_request.credentials[i];

		if (cf_slice_eq(p->key, cf_slice_str(name)))
			return strndup((const char *) p->value.p, p->value.len);
	}
	return NULL;
}

static cf_status *
conn_call(void *ctx, cf_t_method m, const cf_t_args *args, cf_arena *arena, cf_t_result *res)
{
	cf_status  *st;

	/*
	 * A login goes through cfc_login, which remembers the user so a reconnect logs in
	 * again (a plain cfc_call of login would not).
	 */
	if (m == CF_T_M_LOGIN)
	{
		char	   *user = credential(args, "username");
		char	   *password = credential(args, "password");

		st = user ? cfc_login((cfc_conn *) ctx, user, password) :
			cf_status_make(CF_ERR_AUTHENTICATION, "login: no username given");
		if (password)
			explicit_bzero(password, strlen(password));
		free(user);
		free(password);
		return st;
	}
	st = cfc_call((cfc_conn *) ctx, m, args, arena, res);

	if (st != NULL && res->exception.kind != CF_T_EXC_NONE)
	{
		cf_status_free(st);
		return NULL;
	}
	return st;
}

static void
conn_close(void *ctx)
{
	cfc_free((cfc_conn *) ctx);
}

cf_status *
cft_backend_connect(const char *host, int port, cft_backend *out)
{
	cft_connopt o;
	cfc_conn   *c;
	cf_status  *st;

	memset(out, 0, sizeof(*out));
	cft_connopt_init(&o);
	o.host = host;
	o.port = port;
	if ((st = cft_connopt_connect(&o, &c)) != NULL)
		return st;
	out->call = conn_call;
	out->close = conn_close;
	out->ctx = c;
	return NULL;
}

void
cft_backend_close(cft_backend *b)
{
	if (b->close != NULL)
		b->close(b->ctx);
	memset(b, 0, sizeof(*b));
}

cf_status *
cft_call(cft_backend *b, cf_t_method m, const cf_t_args *args, cf_arena *arena,
		 cf_t_result *res)
{
	cf_status  *st;
	const cf_t_exception *e = &res->exception;

	memset(res, 0, sizeof(*res));
	if (b->call == NULL)
		return cf_status_make(CF_ERR_INVALID, "not connected; hint: connect HOST/PORT first");
	if ((st = b->call(b->ctx, m, args, arena, res)) != NULL)
		return st;
	switch (e->kind)
	{
		case CF_T_EXC_NONE:
			return NULL;
		case CF_T_EXC_INVALID_REQUEST:
			return cf_status_make(CF_ERR_INVALID, "%.*s", (int) e->why.len,
								  (const char *) e->why.p);
		case CF_T_EXC_NOT_FOUND:
			return cf_status_make(CF_ERR_NOT_FOUND, "not found (NotFoundException)");
		case CF_T_EXC_UNAVAILABLE:
			return cf_status_make(CF_ERR_UNAVAILABLE, "not enough replicas are up (UnavailableException)");
		case CF_T_EXC_TIMED_OUT:
			return cf_status_make(CF_ERR_TIMEOUT, "timed out (TimedOutException)");
		case CF_T_EXC_AUTHENTICATION:
			return cf_status_make(CF_ERR_AUTHENTICATION, "%.*s", (int) e->why.len,
								  (const char *) e->why.p);
		case CF_T_EXC_AUTHORIZATION:
			return cf_status_make(CF_ERR_AUTHORIZATION, "%.*s", (int) e->why.len,
								  (const char *) e->why.p);
	}
	return cf_status_make(CF_ERR_PROTOCOL, "unknown exception kind %d", (int) e->kind);
}
