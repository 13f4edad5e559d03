/*
 * client/api.c — the typed wrappers: one function per Cassandra 0.7 method, each
 * filling a cf_t_args, calling cfc_call and handing back the method's result field.
 */
#include "client/client_int.h"

#include <stdlib.h>
#include <string.h>

cf_status *
cfc_login(cfc_conn *c, const char *username, const char *password)
{
	cf_t_args	args;
	cf_t_result res;
	cf_t_string_pair cred[2];
	char	   *u;
	char	   *p = NULL;
	cf_status  *s;

	if (username == NULL)
		return cf_status_make(CF_ERR_INVALID, "login: no username given");
	cfc_login_args(username, password, cred, &args);
	s = cfc_call(c, CF_T_M_LOGIN, &args, NULL, &res);
	cfc_wipe_frame(c);			/* the frame held the password */
	if (s != NULL)
		return s;
	/* Logged in: every reconnect logs in as this user from now on. */
	u = strdup(username);
	if (u == NULL || (password && (p = strdup(password)) == NULL))
	{
		free(u);
		return cf_status_make(CF_ERR_NO_MEMORY, "out of memory");
	}
	cfc_free_secret(c->username);
	cfc_free_secret(c->password);
	c->username = u;
	c->password = p;
	return NULL;
}

cf_status *
cfc_set_keyspace(cfc_conn *c, const char *keyspace)
{
	cf_t_args	args = {0};
	cf_t_result res;

	if (keyspace == NULL)
		return cf_status_make(CF_ERR_INVALID, "set_keyspace: no keyspace given");
	args.keyspace = cf_slice_str(keyspace);
	return cfc_call(c, CF_T_M_SET_KEYSPACE, &args, NULL, &res);
}

cf_status *
cfc_get(cfc_conn *c, cf_slice key, const cf_t_column_path *path, int cl, cf_arena *arena,
		cf_t_cosc *out)
{
	cf_t_args	args = {0};
	cf_t_result res;
	cf_status  *s;

	args.key = key;
	args.column_path = *path;
	args.consistency_level = cl;
	if ((s = cfc_call(c, CF_T_M_GET, &args, arena, &res)) == NULL)
		*out = res.cosc;
	return s;
}

cf_status *
cfc_get_slice(cfc_conn *c, cf_slice key, const cf_t_column_parent *parent,
			  const cf_t_slice_predicate *pred, int cl, cf_arena *arena, cf_t_cosc **out,
			  size_t *n_out)
{
	cf_t_args	args = {0};
	cf_t_result res;
	cf_status  *s;

	args.key = key;
	args.column_parent = *parent;
	args.predicate = *pred;
	args.consistency_level = cl;
	if ((s = cfc_call(c, CF_T_M_GET_SLICE, &args, arena, &res)) == NULL)
	{
		*out = res.coscs;
		*n_out = res.n_coscs;
	}
	return s;
}

cf_status *
cfc_get_count(cfc_conn *c, cf_slice key, const cf_t_column_parent *parent,
			  const cf_t_slice_predicate *pred, int cl, int32_t *out)
{
	cf_t_args	args = {0};
	cf_t_result res;
	cf_status  *s;

	args.key = key;
	args.column_parent = *parent;
	args.predicate = *pred;
	args.consistency_level = cl;
	if ((s = cfc_call(c, CF_T_M_GET_COUNT, &args, NULL, &res)) == NULL)
		*out = res.count;
	return s;
}

cf_status *
cfc_multiget_slice(cfc_conn *c, const cf_slice *keys, size_t n_keys,
				   const cf_t_column_parent *parent, const cf_t_slice_predicate *pred,
				   int cl, cf_arena *arena, cf_t_key_coscs **out, size_t *n_out)
{
	cf_t_args	args = {0};
	cf_t_result res;
	cf_status  *s;

	args.keys = (cf_slice *) keys;
	args.n_keys = n_keys;
	args.column_parent = *parent;
	args.predicate = *pred;
	args.consistency_level = cl;
	if ((s = cfc_call(c, CF_T_M_MULTIGET_SLICE, &args, arena, &res)) == NULL)
	{
		*out = res.key_coscs;
		*n_out = res.n_key_coscs;
	}
	return s;
}

cf_status *
cfc_multiget_count(cfc_conn *c, const cf_slice *keys, size_t n_keys,
				   const cf_t_column_parent *parent, const cf_t_slice_predicate *pred,
				   int cl, cf_arena *arena, cf_t_key_count **out, size_t *n_out)
{
	cf_t_args	args = {0};
	cf_t_result res;
	cf_status  *s;

	args.keys = (cf_slice *) keys;
	args.n_keys = n_keys;
	args.column_parent = *parent;
	args.predicate = *pred;
	args.consistency_level = cl;
	if ((s = cfc_call(c, CF_T_M_MULTIGET_COUNT, &args, arena, &res)) == NULL)
	{
		*out = res.key_counts;
		*n_out = res.n_key_counts;
	}
	return s;
}

cf_status *
cfc_get_range_slices(cfc_conn *c, const cf_t_column_parent *parent,
					 const cf_t_slice_predicate *pred, const cf_t_key_range *range, int cl,
					 cf_arena *arena, cf_t_key_slice **out, size_t *n_out)
{
	cf_t_args	args = {0};
	cf_t_result res;
	cf_status  *s;

	args.column_parent = *parent;
	args.predicate = *pred;
	args.range = *range;
	args.consistency_level = cl;
	if ((s = cfc_call(c, CF_T_M_GET_RANGE_SLICES, &args, arena, &res)) == NULL)
	{
		*out = res.key_slices;
		*n_out = res.n_key_slices;
	}
	return s;
}

cf_status *
cfc_get_indexed_slices(cfc_conn *c, const cf_t_column_parent *parent,
					   const cf_t_index_clause *clause, const cf_t_slice_predicate *pred,
					   int cl, cf_arena *arena, cf_t_key_slice **out, size_t *n_out)
{
	cf_t_args	args = {0};
	cf_t_result res;
	cf_status  *s;

	args.column_parent = *parent;
	args.index_clause = *clause;
	args.predicate = *pred;
	args.consistency_level = cl;
	if ((s = cfc_call(c, CF_T_M_GET_INDEXED_SLICES, &args, arena, &res)) == NULL)
	{
		*out = res.key_slices;
		*n_out = res.n_key_slices;
	}
	return s;
}

cf_status *
cfc_insert(cfc_conn *c, cf_slice key, const cf_t_column_parent *parent,
		   const cf_t_column *column, int cl)
{
	cf_t_args	args = {0};
	cf_t_result res;

	args.key = key;
	args.column_parent = *parent;
	args.column = *column;
	args.consistency_level = cl;
	return cfc_call(c, CF_T_M_INSERT, &args, NULL, &res);
}

cf_status *
cfc_remove(cfc_conn *c, cf_slice key, const cf_t_column_path *path, int64_t timestamp,
		   int cl)
{
	cf_t_args	args = {0};
	cf_t_result res;

	args.key = key;
	args.column_path = *path;
	args.timestamp = timestamp;
	args.consistency_level = cl;
	return cfc_call(c, CF_T_M_REMOVE, &args, NULL, &res);
}

cf_status *
cfc_batch_mutate(cfc_conn *c, const cf_t_key_mutations *map, size_t n_map, int cl)
{
	cf_t_args	args = {0};
	cf_t_result res;

	args.mutation_map = (cf_t_key_mutations *) map;
	args.n_mutation_map = n_map;
	args.consistency_level = cl;
	return cfc_call(c, CF_T_M_BATCH_MUTATE, &args, NULL, &res);
}

cf_status *
cfc_truncate(cfc_conn *c, const char *cfname)
{
	cf_t_args	args = {0};
	cf_t_result res;

	args.cfname = cfc_str_slice(cfname);
	return cfc_call(c, CF_T_M_TRUNCATE, &args, NULL, &res);
}

cf_status *
cfc_describe_schema_versions(cfc_conn *c, cf_arena *arena, cf_t_schema_version **out,
							 size_t *n_out)
{
	cf_t_args	args = {0};
	cf_t_result res;
	cf_status  *s;

	if ((s = cfc_call(c, CF_T_M_DESCRIBE_SCHEMA_VERSIONS, &args, arena, &res)) == NULL)
	{
		*out = res.schema_versions;
		*n_out = res.n_schema_versions;
	}
	return s;
}

cf_status *
cfc_describe_keyspaces(cfc_conn *c, cf_arena *arena, cf_t_ks_def **out, size_t *n_out)
{
	cf_t_args	args = {0};
	cf_t_result res;
	cf_status  *s;

	if ((s = cfc_call(c, CF_T_M_DESCRIBE_KEYSPACES, &args, arena, &res)) == NULL)
	{
		*out = res.ks_defs;
		*n_out = res.n_ks_defs;
	}
	return s;
}

/* The describe_* and system_* methods whose result is one string. */
static cf_status *
string_call(cfc_conn *c, cf_t_method m, const cf_t_args *args, cf_arena *arena,
			cf_slice *out)
{
	cf_t_result res;
	cf_status  *s = cfc_call(c, m, args, arena, &res);

	if (s == NULL && out != NULL)
		*out = res.string;
	return s;
}

cf_status *
cfc_describe_cluster_name(cfc_conn *c, cf_arena *arena, cf_slice *out)
{
	cf_t_args	args = {0};

	return string_call(c, CF_T_M_DESCRIBE_CLUSTER_NAME, &args, arena, out);
}

cf_status *
cfc_describe_version(cfc_conn *c, cf_arena *arena, cf_slice *out)
{
	cf_t_args	args = {0};

	return string_call(c, CF_T_M_DESCRIBE_VERSION, &args, arena, out);
}

cf_status *
cfc_describe_partitioner(cfc_conn *c, cf_arena *arena, cf_slice *out)
{
	cf_t_args	args = {0};

	return string_call(c, CF_T_M_DESCRIBE_PARTITIONER, &args, arena, out);
}

cf_status *
cfc_describe_snitch(cfc_conn *c, cf_arena *arena, cf_slice *out)
{
	cf_t_args	args = {0};

	return string_call(c, CF_T_M_DESCRIBE_SNITCH, &args, arena, out);
}

cf_status *
cfc_describe_ring(cfc_conn *c, const char *keyspace, cf_arena *arena,
				  cf_t_token_range **out, size_t *n_out)
{
	cf_t_args	args = {0};
	cf_t_result res;
	cf_status  *s;

	args.keyspace = cfc_str_slice(keyspace);
	if ((s = cfc_call(c, CF_T_M_DESCRIBE_RING, &args, arena, &res)) == NULL)
	{
		*out = res.token_ranges;
		*n_out = res.n_token_ranges;
	}
	return s;
}

cf_status *
cfc_describe_keyspace(cfc_conn *c, const char *keyspace, cf_arena *arena, cf_t_ks_def *out)
{
	cf_t_args	args = {0};
	cf_t_result res;
	cf_status  *s;

	args.keyspace = cfc_str_slice(keyspace);
	if ((s = cfc_call(c, CF_T_M_DESCRIBE_KEYSPACE, &args, arena, &res)) == NULL)
		*out = res.ks_def;
	return s;
}

cf_status *
cfc_describe_splits(cfc_conn *c, const char *cfname, const char *start_token,
					const char *end_token, int32_t keys_per_split, cf_arena *arena,
					cf_slice **out, size_t *n_out)
{
	cf_t_args	args = {0};
	cf_t_result res;
	cf_status  *s;

	args.cfname = cfc_str_slice(cfname);
	args.start_token = cfc_str_slice(start_token);
	args.end_token = cfc_str_slice(end_token);
	args.keys_per_split = keys_per_split;
	if ((s = cfc_call(c, CF_T_M_DESCRIBE_SPLITS, &args, arena, &res)) == NULL)
	{
		*out = res.strings;
		*n_out = res.n_strings;
	}
	return s;
}

cf_status *
cfc_system_add_column_family(cfc_conn *c, const cf_t_cf_def *def, cf_arena *arena,
							 cf_slice *schema_id)
{
	cf_t_args	args = {0};

	args.cf_def = *def;
	return string_call(c, CF_T_M_SYSTEM_ADD_COLUMN_FAMILY, &args, arena, schema_id);
}

cf_status *
cfc_system_update_column_family(cfc_conn *c, const cf_t_cf_def *def, cf_arena *arena,
								cf_slice *schema_id)
{
	cf_t_args	args = {0};

	args.cf_def = *def;
	return string_call(c, CF_T_M_SYSTEM_UPDATE_COLUMN_FAMILY, &args, arena, schema_id);
}

cf_status *
cfc_system_drop_column_family(cfc_conn *c, const char *cfname, cf_arena *arena,
							  cf_slice *schema_id)
{
	cf_t_args	args = {0};

	args.cfname = cfc_str_slice(cfname);
	return string_call(c, CF_T_M_SYSTEM_DROP_COLUMN_FAMILY, &args, arena, schema_id);
}

cf_status *
cfc_system_add_keyspace(cfc_conn *c, const cf_t_ks_def *def, cf_arena *arena,
						cf_slice *schema_id)
{
	cf_t_args	args = {0};

	args.ks_def = *def;
	return string_call(c, CF_T_M_SYSTEM_ADD_KEYSPACE, &args, arena, schema_id);
}

cf_status *
cfc_system_update_keyspace(cfc_conn *c, const cf_t_ks_def *def, cf_arena *arena,
						   cf_slice *schema_id)
{
	cf_t_args	args = {0};

	args.ks_def = *def;
	return string_call(c, CF_T_M_SYSTEM_UPDATE_KEYSPACE, &args, arena, schema_id);
}

cf_status *
cfc_system_drop_keyspace(cfc_conn *c, const char *keyspace, cf_arena *arena,
						 cf_slice *schema_id)
{
	cf_t_args	args = {0};

	args.keyspace = cfc_str_slice(keyspace);
	return string_call(c, CF_T_M_SYSTEM_DROP_KEYSPACE, &args, arena, schema_id);
}
