/*
 * tools/backend.c — the tool's server connection (backend.h).
 *
 * libcolfam (engine/client, branch wt-client) has no commits yet, so connecting
 * reports that plainly instead of pretending; cft_call and everything above it are
 * real and tested against an in-memory backend. When libcolfam lands,
 * cft_backend_connect wraps cfc_connect and cfc_call here and nothing else changes.
 */
#include "tools/backend.h"

#include <string.h>

cf_status *
cft_backend_connect(const char *host, int port, cft_backend *out)
{
	memset(out, 0, sizeof(*out));
	return cf_status_make(CF_ERR_NOT_SUPPORTED,
						  "cannot connect to %s/%d: this colfam was built without the "
						  "client library (libcolfam is not merged yet)", host, port);
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
