/*
 * service/admin.c — see admin.h.
 */
#include "service/admin.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db/db.h"

/*
 * The CF names to work on, checked against the schema: the given ones, or every CF
 * of the keyspace when n == 0. *names is malloc'd (pointers into cfs or the schema,
 * which the caller keeps referenced).
 */
static cf_status *
admin_targets(const cf_schema *schema, const char *keyspace, const char *const *cfs,
			  size_t n, const char ***names, size_t *n_names)
{
	const cf_ks_def *ks = cf_schema_keyspace(schema, keyspace);
	size_t		count;

	*names = NULL;
	*n_names = 0;
	if (ks == NULL)
		return cf_status_make(CF_ERR_INVALID, "Keyspace %s does not exist", keyspace);
	for (size_t i = 0; i < n; i++)
		if (cf_ksdef_cf(ks, cfs[i]) == NULL)
			return cf_status_make(CF_ERR_INVALID, "unconfigured columnfamily %s in keyspace %s",
								  cfs[i], keyspace);
	count = n ? n : ks->n_cfs;
	if (count == 0)
		return NULL;
	if ((*names = calloc(count, sizeof(**names))) == NULL)
		return cf_status_make(CF_ERR_NO_MEMORY, "out of memory");
	for (size_t i = 0; i < count; i++)
		(*names)[i] = n ? cfs[i] : ks->cfs[i].name;
	*n_names = count;
	return NULL;
}

/* Runs flush (major < 0) or compact on each target CF; the first error stops. */
static cf_status *
admin_each(cf_service *svc, const char *keyspace, const char *const *cfs, size_t n,
		   int major)
{
	cf_db	   *db = cf_service_db(svc);
	cf_schema  *schema = cf_db_schema(db);
	const char **names;
	size_t		n_names;
	cf_status  *s = admin_targets(schema, keyspace, cfs, n, &names, &n_names);

	for (size_t i = 0; s == NULL && i < n_names; i++)
	{
		s = major < 0 ? cf_db_flush(db, keyspace, names[i])
			: cf_db_compact(db, keyspace, names[i], major > 0);
		if (s)
			s = cf_status_wrap(s, "%s %s.%s", major < 0 ? "flushing" : "compacting",
							   keyspace, names[i]);
	}
	free(names);
	cf_schema_unref(schema);
	return s;
}

cf_status *
cf_service_flush(cf_service *svc, const char *keyspace, const char *const *cfs, size_t n)
{
	return admin_each(svc, keyspace, cfs, n, -1);
}

cf_status *
cf_service_compact(cf_service *svc, const char *keyspace, const char *const *cfs,
				   size_t n, bool major)
{
	return admin_each(svc, keyspace, cfs, n, major ? 1 : 0);
}

cf_status *
cf_service_cf_stats(cf_service *svc, const char *keyspace, cf_service_cf_stat **out,
					size_t *n_out)
{
	cf_db	   *db = cf_service_db(svc);
	cf_schema  *schema = cf_db_schema(db);
	const char **names;
	size_t		n_names;
	cf_service_cf_stat *v = NULL;
	cf_status  *s = admin_targets(schema, keyspace, NULL, 0, &names, &n_names);

	*out = NULL;
	*n_out = 0;
	if (s == NULL && n_names && (v = calloc(n_names, sizeof(*v))) == NULL)
		s = cf_status_make(CF_ERR_NO_MEMORY, "out of memory");
	for (size_t i = 0; s == NULL && i < n_names; i++)
	{
		snprintf(v[i].cf, sizeof(v[i].cf), "%s", names[i]);
		s = cf_db_cf_stats(db, keyspace, names[i], &v[i].st);
	}
	free(names);
	cf_schema_unref(schema);
	if (s)
	{
		free(v);
		return s;
	}
	*out = v;
	*n_out = n_names;
	return NULL;
}

cf_status *
cf_service_snapshot(cf_service *svc, const char *const *keyspaces, size_t n,
					const char *name, cf_snapshot_list *out)
{
	return cf_db_snapshot(cf_service_db(svc), keyspaces, n, name, out);
}

cf_status *
cf_service_list_snapshots(cf_service *svc, const char *const *keyspaces, size_t n,
						  cf_snapshot_list *out)
{
	return cf_db_list_snapshots(cf_service_db(svc), keyspaces, n, NULL, out);
}

cf_status *
cf_service_clear_snapshots(cf_service *svc, const char *const *keyspaces, size_t n,
						   const char *name, cf_snapshot_list *out)
{
	return cf_db_clear_snapshots(cf_service_db(svc), keyspaces, n, name, out);
}
