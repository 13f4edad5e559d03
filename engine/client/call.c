/*
 * client/call.c — one Thrift call: encode, send, receive, decode, map the declared
 * exceptions to status codes; and the retry policy around it (client.h states it).
 *
 * The reply frame is read into the caller's arena and decoded there (zero-copy), so
 * nothing of a result points into the connection.
 */
#include "client/client_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client/reply.h"

/* The consistency level's name, for messages. */
static const char *
cl_name(int32_t cl)
{
	if (cl == 0)
		cl = CF_T_CL_ONE;
	return cl > 0 && cl <= CF_T_CL_THREE ? cf_t_consistency_names[cl] : "?";
}

/* Methods that take a consistency level (for the messages of Unavailable/TimedOut). */
static bool
takes_cl(cf_t_method m)
{
	return m >= CF_T_M_GET && m <= CF_T_M_BATCH_MUTATE;
}

/* May a request that was lost mid-flight be sent again? See client.h. */
static bool
retryable(const cfc_conn *c, cf_t_method m)
{
	switch (m)
	{
		case CF_T_M_INSERT:
		case CF_T_M_REMOVE:
		case CF_T_M_BATCH_MUTATE:
			return c->retry_writes;
		case CF_T_M_TRUNCATE:
		case CF_T_M_SYSTEM_ADD_COLUMN_FAMILY:
		case CF_T_M_SYSTEM_DROP_COLUMN_FAMILY:
		case CF_T_M_SYSTEM_ADD_KEYSPACE:
		case CF_T_M_SYSTEM_DROP_KEYSPACE:
		case CF_T_M_SYSTEM_UPDATE_KEYSPACE:
		case CF_T_M_SYSTEM_UPDATE_COLUMN_FAMILY:
			return false;
		default:
			return true;
	}
}

cf_status *
cfc_exception_status(cf_t_method m, int32_t cl, const char *host, const cf_t_result *res)
{
	return cfc_exception_status_of(cf_t_method_name(m), takes_cl(m), cl, host,
								   &res->exception);
}

cf_status *
cfc_exception_status_of(const char *name, bool with_cl, int32_t cl, const char *host,
						const cf_t_exception *e)
{
	int			wl = e->why.len > 512 ? 512 : (int) e->why.len;
	const char *why = (const char *) e->why.p;

	switch (e->kind)
	{
		case CF_T_EXC_NONE:
			return NULL;
		case CF_T_EXC_INVALID_REQUEST:
			return cf_status_make(CF_ERR_INVALID, "%s: invalid request: %.*s", name, wl, why);
		case CF_T_EXC_NOT_FOUND:
			return cf_status_make(CF_ERR_NOT_FOUND, "%s: not found", name);
		case CF_T_EXC_UNAVAILABLE:
			if (!with_cl)
				return cf_status_make(CF_ERR_UNAVAILABLE, "%s: unavailable: not every node "
									  "of the cluster is up (seen from %s)", name, host);
			return cf_status_make(CF_ERR_UNAVAILABLE, "%s: unavailable: too few live "
								  "replicas for consistency level %s (seen from %s); "
								  "retry later or use a lower level", name, cl_name(cl),
								  host);
		case CF_T_EXC_TIMED_OUT:
			return cf_status_make(CF_ERR_TIMEOUT, "%s: timed out: replicas did not answer "
								  "%s in time at consistency level %s; retry, or use a "
								  "lower level", name, host, cl_name(cl));
		case CF_T_EXC_AUTHENTICATION:
			return cf_status_make(CF_ERR_AUTHENTICATION, "%s: authentication failed on %s: "
								  "%.*s", name, host, wl, why);
		case CF_T_EXC_AUTHORIZATION:
			return cf_status_make(CF_ERR_AUTHORIZATION, "%s: not authorized on %s: %.*s",
								  name, host, wl, why);
	}
	return cf_status_make(CF_ERR_PROTOCOL, "%s: reply from %s carries an unknown "
						  "exception kind %d", name, host, (int) e->kind);
}

cf_status *
cfc_begin_call(cfc_conn *c, cf_arena **arena)
{
	if (c->in_call)
		cfc_close_socket(c);	/* the last call was abandoned (longjmp): reply unread */
	if (c->prefetcher != NULL)
		cfc_range_pager_settle(c->prefetcher);
	if (*arena == NULL)
	{
		cf_arena_free(c->scratch);
		if ((c->scratch = cf_arena_new(4096)) == NULL)
			return cf_status_make(CF_ERR_NO_MEMORY, "out of memory");
		*arena = c->scratch;
	}
	return NULL;
}

int32_t
cfc_begin_frame(cfc_conn *c)
{
	c->seqid = c->seqid == INT32_MAX ? 1 : c->seqid + 1;
	cf_buf_reset(&c->wbuf);
	cf_buf_put_u32(&c->wbuf, 0);	/* the frame length, patched by cfc_exchange */
	return c->seqid;
}

cf_status *
cfc_send_request(cfc_conn *c, const char *name, bool *lost)
{
	char		what[64];

	*lost = false;
	if (c->wbuf.len - 4 > c->max_frame)
		return cf_status_make(CF_ERR_TOO_LARGE, "%s: the request is %zu bytes, over "
							  "max_frame (%zu bytes); send less per call (fewer keys, "
							  "mutations or names)", name, c->wbuf.len - 4, c->max_frame);
	cf_buf_patch_u32(&c->wbuf, 0, (uint32_t) (c->wbuf.len - 4));
	snprintf(what, sizeof(what), "sending %s to", name);
	return cfc_send_frame(c, what, lost);
}

cf_status *
cfc_recv_reply(cfc_conn *c, const char *name, cf_arena *arena, cf_slice *reply, bool *lost)
{
	char		what[64];
	const uint8_t *payload = NULL;
	size_t		len = 0;
	cf_status  *s;

	*lost = false;
	snprintf(what, sizeof(what), "reading the reply to %s from", name);
	if ((s = cfc_recv_frame(c, what, arena, &payload, &len, lost)) != NULL)
		return s;
	*reply = cf_slice_of(payload, len);
	return NULL;
}

cf_status *
cfc_exchange(cfc_conn *c, const char *name, cf_arena *arena, cf_slice *reply, bool *lost)
{
	cf_status  *s = cfc_send_request(c, name, lost);

	if (s != NULL)
		return s;
	return cfc_recv_reply(c, name, arena, reply, lost);
}

cf_status *
cfc_bad_reply(cfc_conn *c, const char *name, cf_status *s)
{
	cf_code		code = cf_status_code(s) == CF_ERR_NO_MEMORY ? CF_ERR_NO_MEMORY
		: CF_ERR_PROTOCOL;
	cf_status  *w = cf_status_make(code, "%s: bad reply from %s: %s", name,
								   cfc_host_named(c), cf_status_msg(s));

	cf_status_free(s);
	cfc_close_socket(c);
	return w;
}

cf_status *
cfc_roundtrip(cfc_conn *c, cf_t_method m, const cf_t_args *args, cf_arena *arena,
			  cf_t_result *res, bool *lost)
{
	const char *name = cf_t_method_name(m);
	int32_t		seqid = cfc_begin_frame(c);
	cf_slice	reply;
	cf_status  *s;

	*lost = false;
	memset(res, 0, sizeof(*res));
	if ((s = cf_t_write_call(&c->wbuf, m, seqid, args)) != NULL)
		return cf_status_wrap(s, "encoding %s", name);
	if ((s = cfc_exchange(c, name, arena, &reply, lost)) != NULL)
		return s;
	return cfc_decode_result(c, m, seqid, reply, arena, res);
}

cf_status *
cfc_decode_result(cfc_conn *c, cf_t_method m, int32_t seqid, cf_slice reply,
				  cf_arena *arena, cf_t_result *res)
{
	cf_t_limits lim = cf_t_limits_default();
	cf_status  *s;

	memset(res, 0, sizeof(*res));
	lim.max_string = c->max_frame;
	/* a scan's replies, in their canonical encoding: the hand-written reader */
	if (cfc_read_reply_fast(reply, m, seqid, &lim, arena, res))
		return NULL;
	/* Garbage, a TApplicationException, a stray seqid: start afresh next time. */
	if ((s = cf_t_read_reply(reply, m, seqid, &lim, arena, res)) != NULL)
		return cfc_bad_reply(c, cf_t_method_name(m), s);
	return NULL;
}

void
cfc_login_args(const char *username, const char *password, cf_t_string_pair cred[2],
			   cf_t_args *args)
{
	cred[0] = (cf_t_string_pair) {cf_slice_str("username"), cfc_str_slice(username)};
	cred[1] = (cf_t_string_pair) {cf_slice_str("password"), cfc_str_slice(password)};
	memset(args, 0, sizeof(*args));
	args->auth_request.credentials = cred;
	args->auth_request.n_credentials = password ? 2 : 1;
}

void
cfc_wipe_frame(cfc_conn *c)
{
	if (c->wbuf.data != NULL)
		explicit_bzero(c->wbuf.data, c->wbuf.len);
}

cf_status *
cfc_session_setup(cfc_conn *c, bool *lost)
{
	cf_t_args	args;
	cf_t_result res;
	cf_status  *s = NULL;

	*lost = false;
	if (c->scratch == NULL && (c->scratch = cf_arena_new(4096)) == NULL)
		return cf_status_make(CF_ERR_NO_MEMORY, "out of memory");
	if (c->username != NULL)
	{
		cf_t_string_pair cred[2];

		cfc_login_args(c->username, c->password, cred, &args);
		s = cfc_roundtrip(c, CF_T_M_LOGIN, &args, c->scratch, &res, lost);
		if (s == NULL)
			s = cfc_conn_exception_status(c, CF_T_M_LOGIN, 0, &res);
		cfc_wipe_frame(c);		/* the frame held the password */
	}
	if (s == NULL && c->keyspace != NULL)
	{
		memset(&args, 0, sizeof(args));
		args.keyspace = cf_slice_str(c->keyspace);
		s = cfc_roundtrip(c, CF_T_M_SET_KEYSPACE, &args, c->scratch, &res, lost);
		if (s == NULL)
			s = cfc_conn_exception_status(c, CF_T_M_SET_KEYSPACE, 0, &res);
		if (s != NULL)
			s = cf_status_wrap(s, "setting keyspace \"%s\" on connect", c->keyspace);
	}
	if (s != NULL)
		cfc_close_socket(c);
	return s;
}

/* Remembers what login/set_keyspace set, so every reconnect sets it again. */
static cf_status *
remember_session(cfc_conn *c, cf_t_method m, const cf_t_args *args)
{
	if (m == CF_T_M_SET_KEYSPACE)
	{
		char	   *ks = malloc(args->keyspace.len + 1);

		if (ks == NULL)
			return cf_status_make(CF_ERR_NO_MEMORY, "out of memory");
		memcpy(ks, args->keyspace.p, args->keyspace.len);
		ks[args->keyspace.len] = '\0';
		free(c->keyspace);
		c->keyspace = ks;
	}
	return NULL;
}

cf_status *
cfc_with_retries(cfc_conn *c, const char *name, bool retry, cfc_once_fn once, void *arg)
{
	cf_status  *s = NULL;
	int			attempt;

	c->in_call = true;
	for (attempt = 1;; attempt++)
	{
		bool		lost = false;

		cf_status_free(s);
		s = cfc_connect(c);
		if (s == NULL)
			s = once(c, arg, &lost);
		if (s == NULL)
			break;
		if (lost)				/* the next connect starts with the next host */
			c->next_host = (c->next_host + 1) % c->n_hosts;
		if (!lost || !retry || attempt >= c->max_attempts)
			break;
	}
	if (s != NULL && attempt > 1)
		s = cf_status_wrap(s, "%s failed %d times (connection lost, failover to the next "
						   "host); last error", name, attempt);
	c->in_call = false;
	return s;
}

/* cfc_call's request, for cfc_with_retries. */
typedef struct call_once
{
	cf_t_method m;
	const cf_t_args *args;
	cf_arena   *arena;
	cf_t_result *res;
} call_once;

static cf_status *
call_once_fn(cfc_conn *c, void *arg, bool *lost)
{
	call_once  *o = arg;
	cf_status  *s = cfc_roundtrip(c, o->m, o->args, o->arena, o->res, lost);

	if (s == NULL)
		s = cfc_conn_exception_status(c, o->m, o->args->consistency_level, o->res);
	if (s == NULL)
		s = remember_session(c, o->m, o->args);
	return s;
}

cf_status *
cfc_call(cfc_conn *c, cf_t_method m, const cf_t_args *args, cf_arena *arena,
		 cf_t_result *res)
{
	call_once	o = {m, args, arena, res};
	cf_status  *s;

	if (cf_t_method_name(m) == NULL)
		return cf_status_make(CF_ERR_INVALID, "cfc_call: no method %d", (int) m);
	if ((s = cfc_begin_call(c, &o.arena)) != NULL)
		return s;
	return cfc_with_retries(c, cf_t_method_name(m), retryable(c, m), call_once_fn, &o);
}
