/*
 * client/admin.c — the colfam admin methods (thrift/admin.h) over a connection:
 * cfc_colfam_flush, cfc_colfam_compact, cfc_colfam_cfstats and the snapshot calls
 * cfc_colfam_snapshot, cfc_colfam_listsnapshots, cfc_colfam_clearsnapshot (client.h).
 *
 * One attempt each, no failover resend: a flush or a compaction lost mid-flight may
 * be running still, and resending it elsewhere would act on another node. The steps
 * of a call are call.c's (frame, send, receive into the arena, close on garbage).
 */
#include "client/client_int.h"

#include <stdlib.h>
#include <string.h>

#include "thrift/admin.h"

static cf_status *
admin_call(cfc_conn *c, cf_ta_method m, const cf_ta_args *args, cf_arena *arena,
		   cf_ta_result *res)
{
	const char *name = cf_ta_method_name(m);
	int32_t		seqid;
	cf_slice	reply;
	bool		lost;
	cf_t_limits lim = cf_t_limits_default();
	cf_status  *s;

	memset(res, 0, sizeof(*res));
	if ((s = cfc_begin_call(c, &arena)) != NULL)
		return s;
	c->in_call = true;
	if ((s = cfc_connect(c)) == NULL)
	{
		seqid = cfc_begin_frame(c);
		if ((s = cf_ta_write_call(&c->wbuf, m, seqid, args)) != NULL)
			s = cf_status_wrap(s, "encoding %s", name);
		else
			s = cfc_exchange(c, name, arena, &reply, &lost);
	}
	c->in_call = false;
	if (s != NULL)
		return s;
	lim.max_string = c->max_frame;
	if ((s = cf_ta_read_reply(reply, m, seqid, &lim, arena, res)) != NULL)
		return cfc_bad_reply(c, name, s);
	if (res->has_ire)
		return cf_status_make(CF_ERR_INVALID, "%s: invalid request: %.*s", name,
							  (int) (res->ire.why.len > 512 ? 512 : res->ire.why.len),
							  (const char *) res->ire.why.p);
	return NULL;
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
		s = admin_call(c, m, &a, NULL, &res);
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
		s = admin_call(c, CF_TA_M_CFSTATS, &a, arena, &res);
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
		s = admin_call(c, m, &a, arena, &res);
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
