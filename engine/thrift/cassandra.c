/*
 * thrift/cassandra.c — the Cassandra 0.7 IDL as thrift/tstruct.h tables, and the
 * message-level codec of thrift/cassandra.h over them.
 *
 * Every struct, every method's argument struct and every method's success type is a
 * table below, written from /work/shared/reference/thrift-api-0.7.md; the field ids,
 * requiredness and defaults are there and nowhere else. A method's arguments are all
 * required (0.7 declares them so) except consistency_level, which defaults to ONE.
 * A reply's declared exceptions (fields 1..) are handled here rather than in a table,
 * because their field id selects res->exception.kind.
 */
#include "thrift/cassandra.h"

#include <string.h>
#include <strings.h>

#include "thrift/codec_int.h"

/* The longest method name a message header may carry. */
#define MAX_METHOD_NAME (64 * 1024)

/* ---- value types ---- */

static const cf_ts_type t_bool = {.kind = CF_TS_BOOL};
static const cf_ts_type t_i32 = {.kind = CF_TS_I32};
static const cf_ts_type t_i64 = {.kind = CF_TS_I64};
static const cf_ts_type t_double = {.kind = CF_TS_DOUBLE};
static const cf_ts_type t_binary = {.kind = CF_TS_BINARY};
static const cf_ts_type t_string = {.kind = CF_TS_STRING};

/* ---- fields (and see codec_int.h) ---- */

#define OPT_DEF_S(id_, S, m, v) \
	{.id = id_, .name = #m, .type = &t_string, .off = offsetof(S, m), \
	 .has_off = offsetof(S, has_##m), .has_default = true, .def_s = (v)}
#define OPT_DEF_D(id_, S, m, v) \
	{.id = id_, .name = #m, .type = &t_double, .off = offsetof(S, m), \
	 .has_off = offsetof(S, has_##m), .has_default = true, .def_d = (v)}

/* Structs refer to each other; declare them first (tentative definitions). */
static const cf_ts_struct st_column;
static const cf_ts_struct st_super_column;
static const cf_ts_struct st_cosc;
static const cf_ts_struct st_slice_range;
static const cf_ts_struct st_slice_predicate;
static const cf_ts_struct st_index_expression;
static const cf_ts_struct st_deletion;
static const cf_ts_struct st_mutation;
static const cf_ts_struct st_column_def;
static const cf_ts_struct st_cf_def;

static const cf_ts_type t_column = STRUCT_TYPE(st_column);
static const cf_ts_type t_super_column = STRUCT_TYPE(st_super_column);
static const cf_ts_type t_cosc = STRUCT_TYPE(st_cosc);
static const cf_ts_type t_slice_range = STRUCT_TYPE(st_slice_range);
static const cf_ts_type t_slice_predicate = STRUCT_TYPE(st_slice_predicate);
static const cf_ts_type t_index_expression = STRUCT_TYPE(st_index_expression);
static const cf_ts_type t_deletion = STRUCT_TYPE(st_deletion);
static const cf_ts_type t_mutation = STRUCT_TYPE(st_mutation);
static const cf_ts_type t_column_def = STRUCT_TYPE(st_column_def);
static const cf_ts_type t_cf_def = STRUCT_TYPE(st_cf_def);

static const cf_ts_type t_list_binary = LIST_TYPE(t_binary, cf_slice);
static const cf_ts_type t_list_string = LIST_TYPE(t_string, cf_slice);
static const cf_ts_type t_list_column = LIST_TYPE(t_column, cf_t_column);
static const cf_ts_type t_list_cosc = LIST_TYPE(t_cosc, cf_t_cosc);
static const cf_ts_type t_list_index_expression =
LIST_TYPE(t_index_expression, cf_t_index_expression);
static const cf_ts_type t_list_mutation = LIST_TYPE(t_mutation, cf_t_mutation);
static const cf_ts_type t_list_column_def = LIST_TYPE(t_column_def, cf_t_column_def);
static const cf_ts_type t_list_cf_def = LIST_TYPE(t_cf_def, cf_t_cf_def);
static const cf_ts_type t_map_string_string =
MAP_TYPE(t_string, t_string, cf_t_string_pair, key, value);

/* ---- the IDL's structs ---- */

static const cf_ts_field column_f[] = {
	REQ(1, cf_t_column, name, t_binary),
	REQ(2, cf_t_column, value, t_binary),
	REQ(3, cf_t_column, timestamp, t_i64),
	OPT(4, cf_t_column, ttl, t_i32),
};
STRUCT(st_column, "Column", cf_t_column, column_f);

static const cf_ts_field super_column_f[] = {
	REQ(1, cf_t_super_column, name, t_binary),
	REQ_N(2, cf_t_super_column, columns, t_list_column),
};
STRUCT(st_super_column, "SuperColumn", cf_t_super_column, super_column_f);

static const cf_ts_field cosc_f[] = {
	OPT(1, cf_t_cosc, column, t_column),
	OPT(2, cf_t_cosc, super_column, t_super_column),
};
STRUCT(st_cosc, "ColumnOrSuperColumn", cf_t_cosc, cosc_f);

static const cf_ts_field column_parent_f[] = {
	REQ(3, cf_t_column_parent, column_family, t_string),
	OPT(4, cf_t_column_parent, super_column, t_binary),
};
STRUCT(st_column_parent, "ColumnParent", cf_t_column_parent, column_parent_f);
static const cf_ts_type t_column_parent = STRUCT_TYPE(st_column_parent);

static const cf_ts_field column_path_f[] = {
	REQ(3, cf_t_column_path, column_family, t_string),
	OPT(4, cf_t_column_path, super_column, t_binary),
	OPT(5, cf_t_column_path, column, t_binary),
};
STRUCT(st_column_path, "ColumnPath", cf_t_column_path, column_path_f);
static const cf_ts_type t_column_path = STRUCT_TYPE(st_column_path);

static const cf_ts_field slice_range_f[] = {
	REQ(1, cf_t_slice_range, start, t_binary),
	REQ(2, cf_t_slice_range, finish, t_binary),
	DEF_I(3, cf_t_slice_range, reversed, t_bool, false),
	DEF_I(4, cf_t_slice_range, count, t_i32, 100),
};
STRUCT(st_slice_range, "SliceRange", cf_t_slice_range, slice_range_f);

static const cf_ts_field slice_predicate_f[] = {
	OPT_N(1, cf_t_slice_predicate, column_names, t_list_binary),
	OPT(2, cf_t_slice_predicate, slice_range, t_slice_range),
};
STRUCT(st_slice_predicate, "SlicePredicate", cf_t_slice_predicate, slice_predicate_f);

static const cf_ts_field index_expression_f[] = {
	REQ(1, cf_t_index_expression, column_name, t_binary),
	REQ(2, cf_t_index_expression, op, t_i32),
	REQ(3, cf_t_index_expression, value, t_binary),
};
STRUCT(st_index_expression, "IndexExpression", cf_t_index_expression, index_expression_f);

static const cf_ts_field index_clause_f[] = {
	REQ_N(1, cf_t_index_clause, expressions, t_list_index_expression),
	REQ(2, cf_t_index_clause, start_key, t_binary),
	DEF_I(3, cf_t_index_clause, count, t_i32, 100),
};
STRUCT(st_index_clause, "IndexClause", cf_t_index_clause, index_clause_f);
static const cf_ts_type t_index_clause = STRUCT_TYPE(st_index_clause);

static const cf_ts_field key_range_f[] = {
	OPT(1, cf_t_key_range, start_key, t_binary),
	OPT(2, cf_t_key_range, end_key, t_binary),
	OPT(3, cf_t_key_range, start_token, t_string),
	OPT(4, cf_t_key_range, end_token, t_string),
	DEF_I(5, cf_t_key_range, count, t_i32, 100),
};
STRUCT(st_key_range, "KeyRange", cf_t_key_range, key_range_f);
static const cf_ts_type t_key_range = STRUCT_TYPE(st_key_range);

static const cf_ts_field key_slice_f[] = {
	REQ(1, cf_t_key_slice, key, t_binary),
	REQ_N(2, cf_t_key_slice, columns, t_list_cosc),
};
STRUCT(st_key_slice, "KeySlice", cf_t_key_slice, key_slice_f);
static const cf_ts_type t_key_slice = STRUCT_TYPE(st_key_slice);

static const cf_ts_field deletion_f[] = {
	REQ(1, cf_t_deletion, timestamp, t_i64),
	OPT(2, cf_t_deletion, super_column, t_binary),
	OPT(3, cf_t_deletion, predicate, t_slice_predicate),
};
STRUCT(st_deletion, "Deletion", cf_t_deletion, deletion_f);

static const cf_ts_field mutation_f[] = {
	OPT(1, cf_t_mutation, cosc, t_cosc),
	OPT(2, cf_t_mutation, deletion, t_deletion),
};
STRUCT(st_mutation, "Mutation", cf_t_mutation, mutation_f);

static const cf_ts_field token_range_f[] = {
	REQ(1, cf_t_token_range, start_token, t_string),
	REQ(2, cf_t_token_range, end_token, t_string),
	REQ_N(3, cf_t_token_range, endpoints, t_list_string),
};
STRUCT(st_token_range, "TokenRange", cf_t_token_range, token_range_f);
static const cf_ts_type t_token_range = STRUCT_TYPE(st_token_range);

static const cf_ts_field auth_request_f[] = {
	REQ_N(1, cf_t_auth_request, credentials, t_map_string_string),
};
STRUCT(st_auth_request, "AuthenticationRequest", cf_t_auth_request, auth_request_f);
static const cf_ts_type t_auth_request = STRUCT_TYPE(st_auth_request);

static const cf_ts_field column_def_f[] = {
	REQ(1, cf_t_column_def, name, t_binary),
	REQ(2, cf_t_column_def, validation_class, t_string),
	OPT(3, cf_t_column_def, index_type, t_i32),
	OPT(4, cf_t_column_def, index_name, t_string),
};
STRUCT(st_column_def, "ColumnDef", cf_t_column_def, column_def_f);

/* Ids 4, 7 and 10 belonged to pre-release versions: unknown, hence skipped. */
static const cf_ts_field cf_def_f[] = {
	REQ(1, cf_t_cf_def, keyspace, t_string),
	REQ(2, cf_t_cf_def, name, t_string),
	OPT_DEF_S(3, cf_t_cf_def, column_type, "Standard"),
	OPT_DEF_S(5, cf_t_cf_def, comparator_type, "BytesType"),
	OPT(6, cf_t_cf_def, subcomparator_type, t_string),
	OPT(8, cf_t_cf_def, comment, t_string),
	OPT_DEF_D(9, cf_t_cf_def, row_cache_size, 0),
	OPT_DEF_D(11, cf_t_cf_def, key_cache_size, 200000),
	OPT_DEF_D(12, cf_t_cf_def, read_repair_chance, 1.0),
	OPT_N(13, cf_t_cf_def, column_metadata, t_list_column_def),
	OPT(14, cf_t_cf_def, gc_grace_seconds, t_i32),
	OPT(15, cf_t_cf_def, default_validation_class, t_string),
	OPT(16, cf_t_cf_def, id, t_i32),
	OPT(17, cf_t_cf_def, min_compaction_threshold, t_i32),
	OPT(18, cf_t_cf_def, max_compaction_threshold, t_i32),
	OPT(19, cf_t_cf_def, row_cache_save_period_in_seconds, t_i32),
	OPT(20, cf_t_cf_def, key_cache_save_period_in_seconds, t_i32),
	OPT(21, cf_t_cf_def, memtable_flush_after_mins, t_i32),
	OPT(22, cf_t_cf_def, memtable_throughput_in_mb, t_i32),
	OPT(23, cf_t_cf_def, memtable_operations_in_millions, t_double),
};
STRUCT(st_cf_def, "CfDef", cf_t_cf_def, cf_def_f);

static const cf_ts_field ks_def_f[] = {
	REQ(1, cf_t_ks_def, name, t_string),
	REQ(2, cf_t_ks_def, strategy_class, t_string),
	OPT_N(3, cf_t_ks_def, strategy_options, t_map_string_string),
	REQ(4, cf_t_ks_def, replication_factor, t_i32),
	REQ_N(5, cf_t_ks_def, cf_defs, t_list_cf_def),
};
STRUCT(st_ks_def, "KsDef", cf_t_ks_def, ks_def_f);
static const cf_ts_type t_ks_def = STRUCT_TYPE(st_ks_def);

/* Exceptions: three carry {1: required string why}, three are empty. */
static const cf_ts_field why_f[] = {
	REQ(1, cf_t_exception, why, t_string),
};
static const cf_ts_struct exception_st[] = {
	[CF_T_EXC_INVALID_REQUEST] = {"InvalidRequestException", sizeof(cf_t_exception), why_f, 1},
	[CF_T_EXC_NOT_FOUND] = {"NotFoundException", sizeof(cf_t_exception), NULL, 0},
	[CF_T_EXC_UNAVAILABLE] = {"UnavailableException", sizeof(cf_t_exception), NULL, 0},
	[CF_T_EXC_TIMED_OUT] = {"TimedOutException", sizeof(cf_t_exception), NULL, 0},
	[CF_T_EXC_AUTHENTICATION] = {"AuthenticationException", sizeof(cf_t_exception), why_f, 1},
	[CF_T_EXC_AUTHORIZATION] = {"AuthorizationException", sizeof(cf_t_exception), why_f, 1},
};

/* TApplicationException {1: string message, 2: i32 type}, both optional. */
typedef struct app_exception
{
	bool		has_message;
	cf_slice	message;
	bool		has_type;
	int32_t		type;
} app_exception;

static const cf_ts_field app_exception_f[] = {
	OPT(1, app_exception, message, t_string),
	OPT(2, app_exception, type, t_i32),
};
STRUCT(st_app_exception, "TApplicationException", app_exception, app_exception_f);

/* ---- method arguments (all over cf_t_args) ---- */

#define A_REQ(id_, m, t) REQ(id_, cf_t_args, m, t)
#define A_REQ_N(id_, m, t) REQ_N(id_, cf_t_args, m, t)
#define A_CL(id_) DEF_I(id_, cf_t_args, consistency_level, t_i32, CF_T_CL_ONE)
#define ARGS(method, ...) \
	static const cf_ts_field method##_args_f[] = {__VA_ARGS__}; \
	STRUCT(method##_args, #method "_args", cf_t_args, method##_args_f)

static const cf_ts_type t_list_keys = LIST_TYPE(t_binary, cf_slice);
static const cf_ts_type t_cf_mutations =
MAP_LIST_TYPE(t_string, t_list_mutation, cf_t_cf_mutations, column_family, mutations);
static const cf_ts_type t_mutation_map =
MAP_LIST_TYPE(t_binary, t_cf_mutations, cf_t_key_mutations, key, cfs);

ARGS(login, A_REQ(1, auth_request, t_auth_request));
ARGS(set_keyspace, A_REQ(1, keyspace, t_string));
ARGS(get, A_REQ(1, key, t_binary), A_REQ(2, column_path, t_column_path), A_CL(3));
ARGS(get_slice, A_REQ(1, key, t_binary), A_REQ(2, column_parent, t_column_parent),
	 A_REQ(3, predicate, t_slice_predicate), A_CL(4));
ARGS(get_count, A_REQ(1, key, t_binary), A_REQ(2, column_parent, t_column_parent),
	 A_REQ(3, predicate, t_slice_predicate), A_CL(4));
ARGS(multiget_slice, A_REQ_N(1, keys, t_list_keys),
	 A_REQ(2, column_parent, t_column_parent), A_REQ(3, predicate, t_slice_predicate),
	 A_CL(4));
ARGS(multiget_count, A_REQ_N(1, keys, t_list_keys),
	 A_REQ(2, column_parent, t_column_parent), A_REQ(3, predicate, t_slice_predicate),
	 A_CL(4));
ARGS(get_range_slices, A_REQ(1, column_parent, t_column_parent),
	 A_REQ(2, predicate, t_slice_predicate), A_REQ(3, range, t_key_range), A_CL(4));
ARGS(get_indexed_slices, A_REQ(1, column_parent, t_column_parent),
	 A_REQ(2, index_clause, t_index_clause), A_REQ(3, predicate, t_slice_predicate),
	 A_CL(4));
ARGS(insert, A_REQ(1, key, t_binary), A_REQ(2, column_parent, t_column_parent),
	 A_REQ(3, column, t_column), A_CL(4));
ARGS(remove, A_REQ(1, key, t_binary), A_REQ(2, column_path, t_column_path),
	 A_REQ(3, timestamp, t_i64), A_CL(4));
ARGS(batch_mutate, A_REQ_N(1, mutation_map, t_mutation_map), A_CL(2));
ARGS(truncate, A_REQ(1, cfname, t_string));
ARGS(describe_ring, A_REQ(1, keyspace, t_string));
ARGS(describe_keyspace, A_REQ(1, keyspace, t_string));
ARGS(describe_splits, A_REQ(1, cfname, t_string), A_REQ(2, start_token, t_string),
	 A_REQ(3, end_token, t_string), A_REQ(4, keys_per_split, t_i32));
ARGS(system_add_column_family, A_REQ(1, cf_def, t_cf_def));
ARGS(system_drop_column_family, A_REQ(1, cfname, t_string));
ARGS(system_add_keyspace, A_REQ(1, ks_def, t_ks_def));
ARGS(system_drop_keyspace, A_REQ(1, keyspace, t_string));
ARGS(system_update_keyspace, A_REQ(1, ks_def, t_ks_def));
ARGS(system_update_column_family, A_REQ(1, cf_def, t_cf_def));
static const cf_ts_struct no_args = {"args", sizeof(cf_t_args), NULL, 0};

/* ---- method results: field 0 (success) over cf_t_result ---- */

/*
 * codec_int.h: what thrift/admin.c's colfam_multiget_chain reuses (list<KeySlice> is
 * also get_range_slices' and get_indexed_slices' result)
 */
const cf_ts_type cf_t_type_column_parent = STRUCT_TYPE(st_column_parent);
const cf_ts_type cf_t_type_slice_predicate = STRUCT_TYPE(st_slice_predicate);
const cf_ts_type cf_t_type_list_key_slice = LIST_TYPE(t_key_slice, cf_t_key_slice);
static const cf_ts_type t_list_ks_def = LIST_TYPE(t_ks_def, cf_t_ks_def);
static const cf_ts_type t_list_token_range = LIST_TYPE(t_token_range, cf_t_token_range);
static const cf_ts_type t_map_key_coscs =
MAP_LIST_TYPE(t_binary, t_list_cosc, cf_t_key_coscs, key, columns);
static const cf_ts_type t_map_key_count = MAP_TYPE(t_binary, t_i32, cf_t_key_count, key, count);
static const cf_ts_type t_map_schema_versions =
MAP_LIST_TYPE(t_string, t_list_string, cf_t_schema_version, version, hosts);

#define SUCCESS(var, m, t) \
	static const cf_ts_field var = {.id = 0, .name = "success", .type = &(t), \
		.off = offsetof(cf_t_result, m), .has_off = CF_TS_NO_FLAG}
#define SUCCESS_N(var, m, t) \
	static const cf_ts_field var = {.id = 0, .name = "success", .type = &(t), \
		.off = offsetof(cf_t_result, m), .n_off = offsetof(cf_t_result, n_##m), \
		.has_off = CF_TS_NO_FLAG}

SUCCESS(r_cosc, cosc, t_cosc);
SUCCESS_N(r_coscs, coscs, t_list_cosc);
SUCCESS(r_count, count, t_i32);
SUCCESS_N(r_key_coscs, key_coscs, t_map_key_coscs);
SUCCESS_N(r_key_counts, key_counts, t_map_key_count);
SUCCESS_N(r_key_slices, key_slices, cf_t_type_list_key_slice);
SUCCESS_N(r_schema_versions, schema_versions, t_map_schema_versions);
SUCCESS_N(r_ks_defs, ks_defs, t_list_ks_def);
SUCCESS(r_ks_def, ks_def, t_ks_def);
SUCCESS(r_string, string, t_string);
SUCCESS_N(r_token_ranges, token_ranges, t_list_token_range);
SUCCESS_N(r_strings, strings, t_list_string);

/* ---- the method table ---- */

typedef struct method_desc
{
	const char *name;
	const cf_ts_struct *args;
	const cf_ts_field *success; /* NULL: void */
	int			n_exc;
	cf_t_exception_kind exc[4]; /* exc[i] is reply field i + 1 */
} method_desc;

#define IRE CF_T_EXC_INVALID_REQUEST
#define NFE CF_T_EXC_NOT_FOUND
#define UE CF_T_EXC_UNAVAILABLE
#define TE CF_T_EXC_TIMED_OUT
#define EXC(...) \
	.n_exc = sizeof((cf_t_exception_kind[]) {__VA_ARGS__}) / sizeof(cf_t_exception_kind), \
	.exc = {__VA_ARGS__}
#define M(e, method, success_, ...) \
	[e] = {#method, &method##_args, success_, __VA_ARGS__}
#define M0(e, method, success_, ...) \
	[e] = {#method, &no_args, success_, __VA_ARGS__}

static const method_desc methods[CF_T_M_COUNT_] = {
	M(CF_T_M_LOGIN, login, NULL, EXC(CF_T_EXC_AUTHENTICATION, CF_T_EXC_AUTHORIZATION)),
	M(CF_T_M_SET_KEYSPACE, set_keyspace, NULL, EXC(IRE)),
	M(CF_T_M_GET, get, &r_cosc, EXC(IRE, NFE, UE, TE)),
	M(CF_T_M_GET_SLICE, get_slice, &r_coscs, EXC(IRE, UE, TE)),
	M(CF_T_M_GET_COUNT, get_count, &r_count, EXC(IRE, UE, TE)),
	M(CF_T_M_MULTIGET_SLICE, multiget_slice, &r_key_coscs, EXC(IRE, UE, TE)),
	M(CF_T_M_MULTIGET_COUNT, multiget_count, &r_key_counts, EXC(IRE, UE, TE)),
	M(CF_T_M_GET_RANGE_SLICES, get_range_slices, &r_key_slices, EXC(IRE, UE, TE)),
	M(CF_T_M_GET_INDEXED_SLICES, get_indexed_slices, &r_key_slices, EXC(IRE, UE, TE)),
	M(CF_T_M_INSERT, insert, NULL, EXC(IRE, UE, TE)),
	M(CF_T_M_REMOVE, remove, NULL, EXC(IRE, UE, TE)),
	M(CF_T_M_BATCH_MUTATE, batch_mutate, NULL, EXC(IRE, UE, TE)),
	M(CF_T_M_TRUNCATE, truncate, NULL, EXC(IRE, UE)),
	M0(CF_T_M_DESCRIBE_SCHEMA_VERSIONS, describe_schema_versions, &r_schema_versions,
	   EXC(IRE)),
	M0(CF_T_M_DESCRIBE_KEYSPACES, describe_keyspaces, &r_ks_defs, EXC(IRE)),
	M0(CF_T_M_DESCRIBE_CLUSTER_NAME, describe_cluster_name, &r_string, .n_exc = 0),
	M0(CF_T_M_DESCRIBE_VERSION, describe_version, &r_string, .n_exc = 0),
	M(CF_T_M_DESCRIBE_RING, describe_ring, &r_token_ranges, EXC(IRE)),
	M0(CF_T_M_DESCRIBE_PARTITIONER, describe_partitioner, &r_string, .n_exc = 0),
	M0(CF_T_M_DESCRIBE_SNITCH, describe_snitch, &r_string, .n_exc = 0),
	M(CF_T_M_DESCRIBE_KEYSPACE, describe_keyspace, &r_ks_def, EXC(NFE, IRE)),
	M(CF_T_M_DESCRIBE_SPLITS, describe_splits, &r_strings, .n_exc = 0),
	M(CF_T_M_SYSTEM_ADD_COLUMN_FAMILY, system_add_column_family, &r_string, EXC(IRE)),
	M(CF_T_M_SYSTEM_DROP_COLUMN_FAMILY, system_drop_column_family, &r_string, EXC(IRE)),
	M(CF_T_M_SYSTEM_ADD_KEYSPACE, system_add_keyspace, &r_string, EXC(IRE)),
	M(CF_T_M_SYSTEM_DROP_KEYSPACE, system_drop_keyspace, &r_string, EXC(IRE)),
	M(CF_T_M_SYSTEM_UPDATE_KEYSPACE, system_update_keyspace, &r_string, EXC(IRE)),
	M(CF_T_M_SYSTEM_UPDATE_COLUMN_FAMILY, system_update_column_family, &r_string, EXC(IRE)),
};

static const method_desc *
method_of(cf_t_method m)
{
	return (unsigned) m < CF_T_M_COUNT_ ? &methods[m] : NULL;
}

const char *const cf_t_consistency_names[CF_T_CL_THREE + 1] = {
	[CF_T_CL_ONE] = "ONE",[CF_T_CL_QUORUM] = "QUORUM",
	[CF_T_CL_LOCAL_QUORUM] = "LOCAL_QUORUM",[CF_T_CL_EACH_QUORUM] = "EACH_QUORUM",
	[CF_T_CL_ALL] = "ALL",[CF_T_CL_ANY] = "ANY",[CF_T_CL_TWO] = "TWO",[CF_T_CL_THREE] = "THREE",
};

bool
cf_t_consistency_lookup(const char *name, cf_t_consistency *out)
{
	for (int i = CF_T_CL_ONE; i <= CF_T_CL_THREE; i++)
	{
		if (strcasecmp(name, cf_t_consistency_names[i]) == 0)
		{
			*out = (cf_t_consistency) i;
			return true;
		}
	}
	return false;
}

const char *
cf_t_method_name(cf_t_method m)
{
	const method_desc *md = method_of(m);

	return md ? md->name : NULL;
}

bool
cf_t_method_lookup(cf_slice name, cf_t_method *out)
{
	for (int i = 0; i < CF_T_M_COUNT_; i++)
	{
		if (strlen(methods[i].name) == name.len &&
			memcmp(methods[i].name, name.p, name.len) == 0)
		{
			*out = (cf_t_method) i;
			return true;
		}
	}
	return false;
}

cf_t_limits
cf_t_limits_default(void)
{
	cf_t_limits lim = {16 * 1024 * 1024, 1024 * 1024, 64};

	return lim;
}

void
cf_t_dec_init(cf_tb_dec *d, cf_rd *r, const cf_t_limits *lim, cf_arena *arena)
{
	cf_t_limits def = cf_t_limits_default();

	if (lim == NULL)
		lim = &def;
	cf_tb_dec_init(d, r, arena, lim->max_string, lim->max_container, lim->max_depth);
}

/* ---- messages ---- */

cf_status *
cf_t_read_message_header(cf_rd *r, cf_t_message_header *out)
{
	cf_tb_dec	d;
	uint32_t	version;

	memset(out, 0, sizeof(*out));
	cf_tb_dec_init(&d, r, NULL, MAX_METHOD_NAME, 0, 1);
	version = (uint32_t) cf_tb_read_i32(&d);
	if (cf_tb_ok(&d) && (version & CF_TB_VERSION_MASK) != CF_TB_VERSION_1)
	{
		if (version & 0x80000000u)
			cf_tb_fail(&d, CF_ERR_PROTOCOL, "unsupported protocol version 0x%04x",
					   (unsigned) (version >> 16));
		else
			cf_tb_fail(&d, CF_ERR_PROTOCOL,
					   "non-strict (unversioned) header: use TBinaryProtocol with strict writes");
	}
	else if (cf_tb_ok(&d) && ((version & 0xff) < CF_T_CALL || (version & 0xff) > CF_T_ONEWAY))
		cf_tb_fail(&d, CF_ERR_PROTOCOL, "unknown message type %u",
				   (unsigned) (version & 0xff));
	out->type = (cf_t_message_type) (version & 0xff);
	out->name = cf_tb_read_string(&d);
	out->seqid = cf_tb_read_i32(&d);
	return cf_tb_dec_status(&d, "message header");
}

void
cf_t_write_message_header(cf_buf *out, cf_slice name, cf_t_message_type type,
						  int32_t seqid)
{
	cf_buf_put_u32(out, CF_TB_VERSION_1 | (uint32_t) type);
	cf_tb_write_binary(out, name);
	cf_tb_write_i32(out, seqid);
}

/* True if the argument struct has a field stored at off. */
static bool
args_have(const cf_ts_struct *st, size_t off)
{
	for (int i = 0; i < st->n_fields; i++)
	{
		if (st->fields[i].off == off)
			return true;
	}
	return false;
}

cf_status *
cf_t_read_args(cf_rd *r, cf_t_method m, const cf_t_limits *lim, cf_arena *arena,
			   cf_t_args *args)
{
	const method_desc *md = method_of(m);
	cf_tb_dec	d;

	if (md == NULL)
		return cf_status_make(CF_ERR_INVALID, "no method %d", (int) m);
	cf_t_dec_init(&d, r, lim, arena);
	cf_ts_read_struct(&d, md->args, args);
	if (!args_have(md->args, offsetof(cf_t_args, consistency_level)))
		args->consistency_level = CF_T_CL_ONE;
	return cf_tb_dec_status(&d, md->args->name);
}

cf_status *
cf_t_write_call(cf_buf *out, cf_t_method m, int32_t seqid, const cf_t_args *args)
{
	const method_desc *md = method_of(m);
	cf_t_args	with_cl;

	if (md == NULL)
		return cf_status_make(CF_ERR_INVALID, "no method %d", (int) m);
	if (args->consistency_level == 0 &&
		args_have(md->args, offsetof(cf_t_args, consistency_level)))
	{
		with_cl = *args;
		with_cl.consistency_level = CF_T_CL_ONE;
		args = &with_cl;
	}
	cf_t_write_message_header(out, cf_slice_str(md->name), CF_T_CALL, seqid);
	cf_ts_write_struct(out, md->args, args);
	return cf_buf_status(out);
}

static const char *
exception_name(cf_t_exception_kind kind)
{
	if (kind > CF_T_EXC_NONE && kind <= CF_T_EXC_AUTHORIZATION)
		return exception_st[kind].name;
	return "no exception";
}

cf_status *
cf_t_write_reply(cf_buf *out, cf_t_method m, int32_t seqid, const cf_t_result *res)
{
	const method_desc *md = method_of(m);
	cf_t_exception_kind kind = res->exception.kind;
	int			field = 0;

	if (md == NULL)
		return cf_status_make(CF_ERR_INVALID, "no method %d", (int) m);
	if (kind != CF_T_EXC_NONE)
	{
		while (field < md->n_exc && md->exc[field] != kind)
			field++;
		if (field == md->n_exc)
			return cf_status_make(CF_ERR_INVALID, "%s does not declare %s",
								  md->name, exception_name(kind));
	}
	cf_t_write_message_header(out, cf_slice_str(md->name), CF_T_REPLY, seqid);
	if (kind != CF_T_EXC_NONE)
	{
		cf_tb_write_field(out, CF_TB_STRUCT, (int16_t) (field + 1));
		cf_ts_write_struct(out, &exception_st[kind], &res->exception);
	}
	else if (md->success != NULL)
		cf_ts_write_field(out, md->success, res);
	cf_tb_write_stop(out);
	return cf_buf_status(out);
}

void
cf_t_write_app_exception(cf_buf *out, cf_slice method_name, int32_t seqid,
						 cf_t_app_error type, const char *message)
{
	app_exception e = {true, cf_slice_str(message ? message : ""), true, (int32_t) type};

	cf_t_write_message_header(out, method_name, CF_T_EXCEPTION, seqid);
	cf_ts_write_struct(out, &st_app_exception, &e);
}

static const char *
app_error_name(int32_t type)
{
	static const char *const names[] = {
		"UNKNOWN", "UNKNOWN_METHOD", "INVALID_MESSAGE_TYPE", "WRONG_METHOD_NAME",
		"BAD_SEQUENCE_ID", "MISSING_RESULT", "INTERNAL_ERROR", "PROTOCOL_ERROR",
	};

	return type >= 0 && type < lengthof(names) ? names[type] : "UNKNOWN";
}

/* An EXCEPTION message's body, as the status the client gets. */
static cf_status *
read_app_exception(cf_tb_dec *d, const char *method)
{
	app_exception e;
	cf_status  *s;

	cf_ts_read_struct(d, &st_app_exception, &e);
	if ((s = cf_tb_dec_status(d, "TApplicationException")) != NULL)
		return cf_status_wrap(s, "%s", method);
	return cf_status_make(CF_ERR_PROTOCOL, "%s: server error: %.*s (%s, type %d)",
						  method, (int) e.message.len, (const char *) e.message.p,
						  app_error_name(e.type), (int) e.type);
}

/* The result struct of a REPLY: field 0 or one of the declared exceptions. */
static void
read_result(cf_tb_dec *d, const method_desc *md, cf_t_result *res, bool *got)
{
	uint8_t		type;
	int16_t		id;

	*got = false;
	if (!cf_tb_enter(d))
		return;
	while (cf_tb_read_field(d, &type, &id))
	{
		if (id == 0 && md->success != NULL && type == cf_ts_wire_type(md->success->type))
		{
			cf_ts_read_field(d, md->success, res);
			*got = true;
		}
		else if (id >= 1 && id <= md->n_exc && type == CF_TB_STRUCT)
		{
			cf_t_exception_kind kind = md->exc[id - 1];

			cf_ts_read_struct(d, &exception_st[kind], &res->exception);
			res->exception.kind = kind;
			*got = true;
		}
		else
			cf_tb_skip(d, type);
	}
	cf_tb_leave(d);
}

cf_status *
cf_t_read_reply_header(cf_rd *r, const char *method, int32_t seqid,
					   const cf_t_limits *lim, cf_arena *arena)
{
	cf_t_message_header h;
	cf_tb_dec	d;
	cf_status  *s;

	if ((s = cf_t_read_message_header(r, &h)) != NULL)
		return cf_status_wrap(s, "%s reply", method);
	if (h.type == CF_T_EXCEPTION)
	{
		cf_t_dec_init(&d, r, lim, arena);
		return read_app_exception(&d, method);
	}
	if (h.type != CF_T_REPLY)
		return cf_status_make(CF_ERR_PROTOCOL, "%s: message type %d where a reply is expected",
							  method, (int) h.type);
	if (!cf_slice_eq(h.name, cf_slice_str(method)))
		return cf_status_make(CF_ERR_PROTOCOL, "%s: the reply is for method '%.*s'",
							  method, (int) h.name.len, (const char *) h.name.p);
	if (h.seqid != seqid)
		return cf_status_make(CF_ERR_PROTOCOL, "%s: reply has sequence id %d, expected %d",
							  method, (int) h.seqid, (int) seqid);
	return NULL;
}

cf_status *
cf_t_read_reply(cf_slice msg, cf_t_method m, int32_t seqid, const cf_t_limits *lim,
				cf_arena *arena, cf_t_result *res)
{
	const method_desc *md = method_of(m);
	cf_tb_dec	d;
	cf_rd		r;
	cf_status  *s;
	bool		got;

	memset(res, 0, sizeof(*res));
	if (md == NULL)
		return cf_status_make(CF_ERR_INVALID, "no method %d", (int) m);
	cf_rd_init(&r, msg.p, msg.len);
	if ((s = cf_t_read_reply_header(&r, md->name, seqid, lim, arena)) != NULL)
		return s;
	cf_t_dec_init(&d, &r, lim, arena);
	read_result(&d, md, res, &got);
	if ((s = cf_tb_dec_status(&d, "result")) != NULL)
		return cf_status_wrap(s, "%s", md->name);
	if (!got && md->success != NULL)
		return cf_status_make(CF_ERR_PROTOCOL, "%s: the reply carries no result (MISSING_RESULT)",
							  md->name);
	return NULL;
}

/* ---- standalone struct codecs ---- */

static cf_status *
read_one(cf_rd *r, const cf_t_limits *lim, cf_arena *arena, const cf_ts_struct *st,
		 void *out)
{
	cf_tb_dec	d;

	cf_t_dec_init(&d, r, lim, arena);
	cf_ts_read_struct(&d, st, out);
	return cf_tb_dec_status(&d, st->name);
}

void
cf_t_write_ks_def(cf_buf *out, const cf_t_ks_def *v)
{
	cf_ts_write_struct(out, &st_ks_def, v);
}

cf_status *
cf_t_read_ks_def(cf_rd *r, const cf_t_limits *lim, cf_arena *arena, cf_t_ks_def *out)
{
	return read_one(r, lim, arena, &st_ks_def, out);
}
