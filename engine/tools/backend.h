/*
 * tools/backend.h — how the tool reaches a server: one call of a Cassandra 0.7 method.
 *
 * Every subcommand talks through this small interface instead of libcolfam
 * directly, so the tool's logic (schema apply, shell statements, import/export) is
 * unit-tested against an in-memory backend instead of a server; backend.c adapts
 * libcolfam's cfc_call to it.
 *
 * Thread safety: a backend is used by one thread at a time (stress opens one each).
 */
#ifndef CF_TOOLS_BACKEND_H
#define CF_TOOLS_BACKEND_H

#include "thrift/cassandra.h"
#include "util/arena.h"
#include "util/status.h"

typedef struct cft_backend
{
	/*
	 * Calls method m with args; decodes the reply into *res in arena. Returns an error
	 * for transport/protocol failures only; declared exceptions come back in
	 * res->exception (cft_call turns them into statuses).
	 */
	cf_status  *(*call) (void *ctx, cf_t_method m, const cf_t_args *args,
						 cf_arena *arena, cf_t_result *res);
	void		(*close) (void *ctx);
	void	   *ctx;
} cft_backend;

/*
 * Connects to host:port (framed binary Thrift) now, so a wrong address is reported
 * before any work: libcolfam's CF_ERR_IO naming host:port, CF_ERR_INVALID for a bad
 * host.
 */
cf_status  *cft_backend_connect(const char *host, int port, cft_backend *out);

/* Closes b (if open) and zeroes it. */
void		cft_backend_close(cft_backend *b);

/*
 * b->call, with a declared exception turned into a status: InvalidRequest →
 * CF_ERR_INVALID (its why), NotFound → CF_ERR_NOT_FOUND, Unavailable →
 * CF_ERR_UNAVAILABLE, TimedOut → CF_ERR_TIMEOUT, Authentication/Authorization →
 * CF_ERR_AUTHENTICATION/AUTHORIZATION. res is zeroed first. Callers add what they
 * were doing (cf_status_wrap).
 */
cf_status  *cft_call(cft_backend *b, cf_t_method m, const cf_t_args *args,
					 cf_arena *arena, cf_t_result *res);

#endif							/* CF_TOOLS_BACKEND_H */
