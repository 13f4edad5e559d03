/*
 * client/admin.c — colfam's methods outside the 0.7 IDL (thrift/admin.h) over a
 * connection: cfc_colfam_flush, cfc_colfam_compact, cfc_colfam_cfstats, the snapshot
 * calls cfc_colfam_snapshot, cfc_colfam_listsnapshots, cfc_colfam_clearsnapshot, and
 * the read cfc_colfam_multiget_chain (client.h); cfc_unknown_method and
 * cfc_reply_too_large.
 *
 * The admin methods are sent once, no failover resend: a flush or a compaction lost
 * mid-flight may be running still, and resending it elsewhere would act on another
 * node. multiget_chain is a read, resent as cfc_call resends reads. The steps
 * of a call are call.c's (frame, send, receive into the arena, close on garbage).
 */
#include "client/client_int.h"

#include <stdlib.h>
#include <string.h>

#include "thrift/admin.h"

/* One request of m and its reply on the connected socket (cfc_roundtrip's steps). */
static cf_status *
admin_roundtrip(cfc_conn *c, cf_ta_method m, const cf_ta_args *args, cf_arena *arena,
				cf_ta_result *res, bool *lost)
{
	const char *name = cf_ta_method_name(m);
	int32_t		seqid = cfc_begin_frame(c);
	cf_slice	reply;
	cf_t_limits lim = cf_t_limits_default();
	cf_status  *s;

	*lost = false;
	memset(res, 0, sizeof(*res));
	if ((s = cf_ta_write_call(&c->wbuf, m, seqid, args)) != NULL)
		return cf_status_wrap(s, "encoding %s", name);
	if ((s = cfc_exchange(c, name, arena, &reply, lost)) != NULL)
		return s;
	lim.max_string = c->max_frame;
	if ((s = cf_ta_read_reply(reply, m, seqid, &lim, arena, res)) != NULL)
		return cfc_bad_reply(c, name, s);
	return NULL;
}

/* admin_call's request, for cfc_with_retries. */
typedef struct admin_once
{
	cf_ta_method m;
	const cf_ta_args *args;
	cf_arena   *arena;
	cf_ta_result *res;
} admin_once;

/* One send of the request and its outcome, the declared exceptions as cfc_call's. */
static cf_status *
admin_once_fn(cfc_conn *c, void *arg, bool *lost)
{
	admin_once *o = arg;
	cf_ta_result *res = o->res;
	cf_t_exception e = {CF_T_EXC_NONE, {0}};
	cf_status  *s = admin_roundtrip(c, o->m, o->args, o->arena, res, lost);

	if (s != NULL)
		return s;
	e.why = res->ire.why;
	e.kind = res->has_ire ? CF_T_EXC_INVALID_REQUEST : res->has_ue ? CF_T_EXC_UNAVAILABLE :
		res->has_te ? CF_T_EXC_TIMED_OUT : CF_T_EXC_NONE;
	return cfc_exception_status_of(cf_ta_method_name(o->m), o->m == CF_TA_M_MULTIGET_CHAIN,
								   o->args->consistency_level, cfc_host_named(c), &e);
}

/*
 * Sends m and decodes its reply into res (arena: as cfc_call's). Resent on failover,
 * as cfc_call resends, when retry (a read); else sent once. The declared exceptions
 * become the status, as cfc_call's.
 */
static cf_status *
admin_call(cfc_conn *c, cf_ta_method m, const cf_ta_args *args, cf_arena *arena,
		   cf_ta_result *res, bool retry)
{
	admin_once	o = {m, args, arena, res};
	cf_status  *s;

	if ((s = cfc_begin_call(c, &o.arena)) != NULL)
		return s;
	return cfc_with_retries(c, cf_ta_method_name(m), retry, admin_once_fn, &o);
}

/* The keyspace and CF names as args (slices over the caller's strings). */
static cf_status *
admin_args(const char *keyspace, const char *const *cfs, size_t n, cf_slice *buf,
		   cf_ta_args *a)
{
	memset(a, 0, sizeof(*a));
	if (keyspace == NULL)
		return cf_status_make(CF_ERR_INVALID, "no keyspace given");
	a->keyspace = cf_slice_str(keyspace);
	for (size_t i = 0; i < n; i++)
		buf[i] = cf_slice_str(cfs[i]);
	a->column_families = n ? buf : NULL;
	a->n_column_families = n;
	return NULL;
}

static cf_status *
admin_cfs(cfc_conn *c, cf_ta_method m, const char *keyspace, const char *const *cfs,
		  size_t n, bool major)
{
	cf_slice   *names = n ? calloc(n, sizeof(*names)) : NULL;
	cf_ta_args	a;
	cf_ta_result res;
	cf_status  *s;

	if (n && names == NULL)
		return cf_status_make(CF_ERR_NO_MEMORY, "out of memory");
	if ((s = admin_args(keyspace, cfs, n, names, &a)) == NULL)
	{
		a.major = major;
		s = admin_call(c, m, &a, NULL, &res, false);
	}
	free(names);
	return s;
}

cf_status *
cfc_colfam_flush(cfc_conn *c, const char *keyspace, const char *const *cfs, size_t n)
{
	return admin_cfs(c, CF_TA_M_FLUSH, keyspace, cfs, n, false);
}

cf_status *
cfc_colfam_compact(cfc_conn *c, const char *keyspace, const char *const *cfs, size_t n,
				   bool major)
{
	return admin_cfs(c, CF_TA_M_COMPACT, keyspace, cfs, n, major);
}

cf_status *
cfc_colfam_cfstats(cfc_conn *c, const char *keyspace, cf_arena *arena,
				   cf_ta_cf_stats **out, size_t *n_out)
{
	cf_ta_args	a;
	cf_ta_result res;
	cf_status  *s = admin_args(keyspace, NULL, 0, NULL, &a);

	*out = NULL;
	*n_out = 0;
	if (s == NULL)
		s = admin_call(c, CF_TA_M_CFSTATS, &a, arena, &res, false);
	if (s == NULL)
	{
		*out = res.stats;
		*n_out = res.n_stats;
	}
	return s;
}

/* One of the snapshot methods: name NULL when not sent (list, clear all). */
static cf_status *
admin_snapshots(cfc_conn *c, cf_ta_method m, const char *const *kss, size_t n,
				const char *name, cf_arena *arena, cf_ta_snapshot **out, size_t *n_out)
{
	cf_slice   *names = n ? calloc(n, sizeof(*names)) : NULL;
	cf_ta_args	a;
	cf_ta_result res;
	cf_status  *s = NULL;

	*out = NULL;
	*n_out = 0;
	if (n && names == NULL)
		return cf_status_make(CF_ERR_NO_MEMORY, "out of memory");
	memset(&a, 0, sizeof(a));
	for (size_t i = 0; i < n; i++)
		names[i] = cf_slice_str(kss[i]);
	a.keyspaces = names;
	a.n_keyspaces = n;
	if (name)
	{
		a.has_name = true;
		a.name = cf_slice_str(name);
	}
	else if (m == CF_TA_M_SNAPSHOT)
		s = cf_status_make(CF_ERR_INVALID, "no snapshot name given");
	if (s == NULL)
		s = admin_call(c, m, &a, arena, &res, false);
	if (s == NULL)
	{
		*out = res.snapshots;
		*n_out = res.n_snapshots;
	}
	free(names);
	return s;
}

cf_status *
cfc_colfam_snapshot(cfc_conn *c, const char *const *kss, size_t n, const char *name,
					cf_arena *arena, cf_ta_snapshot **out, size_t *n_out)
{
	return admin_snapshots(c, CF_TA_M_SNAPSHOT, kss, n, name, arena, out, n_out);
}

cf_status *
cfc_colfam_listsnapshots(cfc_conn *c, const char *const *kss, size_t n, cf_arena *arena,
						 cf_ta_snapshot **out, size_t *n_out)
{
	return admin_snapshots(c, CF_TA_M_LISTSNAPSHOTS, kss, n, NULL, arena, out, n_out);
}

cf_status *
cfc_colfam_clearsnapshot(cfc_conn *c, const char *const *kss, size_t n, const char *name,
						 cf_arena *arena, cf_ta_snapshot **out, size_t *n_out)
{
	return admin_snapshots(c, CF_TA_M_CLEARSNAPSHOT, kss, n, name, arena, out, n_out);
}

cf_status *
cfc_colfam_multiget_chain(cfc_conn *c, const cf_slice *keys, size_t n_keys,
						  const cf_t_column_parent *parent,
						  const cf_t_slice_predicate *pred, const cf_ta_chain_step *steps,
						  size_t n_steps, int cl, cf_arena *arena,
						  cf_ta_chain_answer **out, size_t *n_out)
{
	cf_ta_args	a = {0};
	cf_ta_result res;
	cf_status  *s;

	*out = NULL;
	*n_out = 0;
	a.keys = (cf_slice *) keys;
	a.n_keys = n_keys;
	a.column_parent = *parent;
	a.predicate = *pred;
	a.steps = (cf_ta_chain_step *) steps;
	a.n_steps = n_steps;
	a.consistency_level = cl;
	if ((s = admin_call(c, CF_TA_M_MULTIGET_CHAIN, &a, arena, &res, true)) != NULL)
		return s;
	if (res.n_chain != n_steps + 1)
		return cfc_bad_reply(c, cf_ta_method_name(CF_TA_M_MULTIGET_CHAIN),
							 cf_status_make(CF_ERR_PROTOCOL, "%zu answers for %zu steps",
											res.n_chain, n_steps + 1));
	*out = res.chain;
	*n_out = res.n_chain;
	return NULL;
}

bool
cfc_unknown_method(const cf_status *st)
{
	/* cassandra.c's read_app_exception names the TApplicationException's type so */
	return cf_status_code(st) == CF_ERR_PROTOCOL &&
		strstr(cf_status_msg(st), "(UNKNOWN_METHOD, type 1)") != NULL;
}

bool
cfc_reply_too_large(const cf_status *st)
{
	/* thrift/dispatch.c's dsp_too_large words the InvalidRequestException so */
	return cf_status_code(st) == CF_ERR_INVALID &&
		strstr(cf_status_msg(st), CF_T_TOO_LARGE_WORDS) != NULL;
}
