/*
 * thrift/cassandra.h — the Cassandra 0.7 Thrift API (API VERSION "19.4.0") as C
 * structs, and their codec over the strict binary protocol. This is the contract that
 * colfamd's dispatch (thrift/dispatch.h), libcolfam (client/) and the colfam tool share;
 * /work/shared/reference/thrift-api-0.7.md lists the field ids, engine/doc/thrift.md
 * how this codec reads them.
 *
 * Representation:
 *  - binary and string fields are cf_slice (not NUL-terminated); a string field is
 *    checked to be valid UTF-8 by the decoder (Thrift strings are UTF-8).
 *  - optional fields have a has_<field> flag; a required field the decoder did not see
 *    is a CF_ERR_PROTOCOL naming the struct and field (0.7's generated code threw
 *    TProtocolException the same way). Defaults of the IDL (SliceRange.count = 100,
 *    column_type "Standard", ...) are filled in when a field is absent.
 *  - lists are (pointer, count); maps are arrays of entries in wire order.
 *
 * Ownership (zero-copy decode): the decoder allocates arrays in a caller-given arena
 * and points every slice into the input bytes, so the input must outlive the decoded
 * struct. The encoder reads the struct and appends to a cf_buf; it never keeps pointers.
 *
 * Limits: the decoder never trusts a length. Every string/binary length is checked
 * against the bytes left in the input; every container count against the bytes left
 * (each element takes at least one byte) and against cf_t_limits; nesting depth is
 * capped (skipping unknown fields included). The arena memory of one decode is capped
 * at 64 KiB + 64 x the input's size (CF_ERR_TOO_LARGE), so many empty structs cannot
 * make a small message expensive. Unknown fields are skipped. Wrong field
 * types for a known id are skipped too (as Thrift's generated code does). A column name
 * longer than 64 KiB is CF_ERR_INVALID at the dispatch, not here.
 *
 * Thread safety: no global mutable state.
 */
#ifndef CF_THRIFT_CASSANDRA_H
#define CF_THRIFT_CASSANDRA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/arena.h"
#include "util/buf.h"
#include "util/slice.h"
#include "util/status.h"

#define CF_THRIFT_API_VERSION "19.4.0"

/*
 * The words of colfamd's InvalidRequestException for a reply over its frame limit
 * (thrift/dispatch.c), which libcolfam recognises (cfc_reply_too_large): an IRE
 * carries only its message.
 */
#define CF_T_TOO_LARGE_WORDS "does not fit in a frame"

/* ---- enums ---- */

typedef enum cf_t_consistency
{
	CF_T_CL_ONE = 1,
	CF_T_CL_QUORUM = 2,
	CF_T_CL_LOCAL_QUORUM = 3,
	CF_T_CL_EACH_QUORUM = 4,
	CF_T_CL_ALL = 5,
	CF_T_CL_ANY = 6,
	CF_T_CL_TWO = 7,
	CF_T_CL_THREE = 8
} cf_t_consistency;

/* The levels' names ("ONE", ...) indexed by value; [0], not a level, is NULL. */
extern const char *const cf_t_consistency_names[CF_T_CL_THREE + 1];

/* The level named name (ASCII case ignored) in *out; false if no level has that name. */
bool		cf_t_consistency_lookup(const char *name, cf_t_consistency *out);

typedef enum cf_t_index_operator
{
	CF_T_OP_EQ = 0,
	CF_T_OP_GTE = 1,
	CF_T_OP_GT = 2,
	CF_T_OP_LTE = 3,
	CF_T_OP_LT = 4
} cf_t_index_operator;

#define CF_T_INDEX_KEYS 0

/* ---- structs ---- */

typedef struct cf_t_column
{
	cf_slice	name;
	cf_slice	value;
	int64_t		timestamp;
	bool		has_ttl;
	int32_t		ttl;
} cf_t_column;

typedef struct cf_t_super_column
{
	cf_slice	name;
	cf_t_column *columns;
	size_t		n_columns;
} cf_t_super_column;

/* Exactly one of column / super_column is set in a valid value (checked by dispatch). */
typedef struct cf_t_cosc
{
	bool		has_column;
	cf_t_column column;
	bool		has_super_column;
	cf_t_super_column super_column;
} cf_t_cosc;

typedef struct cf_t_column_parent
{
	cf_slice	column_family;
	bool		has_super_column;
	cf_slice	super_column;
} cf_t_column_parent;

typedef struct cf_t_column_path
{
	cf_slice	column_family;
	bool		has_super_column;
	cf_slice	super_column;
	bool		has_column;
	cf_slice	column;
} cf_t_column_path;

typedef struct cf_t_slice_range
{
	cf_slice	start;
	cf_slice	finish;
	bool		reversed;		/* default false */
	int32_t		count;			/* default 100 */
} cf_t_slice_range;

typedef struct cf_t_slice_predicate
{
	bool		has_column_names;
	cf_slice   *column_names;
	size_t		n_column_names;
	bool		has_slice_range;
	cf_t_slice_range slice_range;
} cf_t_slice_predicate;

typedef struct cf_t_index_expression
{
	cf_slice	column_name;
	int32_t		op;				/* cf_t_index_operator; unknown values kept for dispatch */
	cf_slice	value;
} cf_t_index_expression;

typedef struct cf_t_index_clause
{
	cf_t_index_expression *expressions;
	size_t		n_expressions;
	cf_slice	start_key;
	int32_t		count;			/* default 100 */
} cf_t_index_clause;

typedef struct cf_t_key_range
{
	bool		has_start_key;
	cf_slice	start_key;
	bool		has_end_key;
	cf_slice	end_key;
	bool		has_start_token;
	cf_slice	start_token;
	bool		has_end_token;
	cf_slice	end_token;
	int32_t		count;			/* default 100 */
} cf_t_key_range;

typedef struct cf_t_key_slice
{
	cf_slice	key;
	cf_t_cosc  *columns;
	size_t		n_columns;
} cf_t_key_slice;

typedef struct cf_t_key_count
{
	cf_slice	key;
	int32_t		count;
} cf_t_key_count;

typedef struct cf_t_deletion
{
	int64_t		timestamp;
	bool		has_super_column;
	cf_slice	super_column;
	bool		has_predicate;
	cf_t_slice_predicate predicate;
} cf_t_deletion;

typedef struct cf_t_mutation
{
	bool		has_cosc;
	cf_t_cosc	cosc;			/* column_or_supercolumn, field 1 */
	bool		has_deletion;
	cf_t_deletion deletion;
} cf_t_mutation;

typedef struct cf_t_token_range
{
	cf_slice	start_token;
	cf_slice	end_token;
	cf_slice   *endpoints;
	size_t		n_endpoints;
} cf_t_token_range;

typedef struct cf_t_string_pair
{
	cf_slice	key;
	cf_slice	value;
} cf_t_string_pair;

typedef struct cf_t_auth_request
{
	cf_t_string_pair *credentials;
	size_t		n_credentials;
} cf_t_auth_request;

typedef struct cf_t_column_def
{
	cf_slice	name;
	cf_slice	validation_class;
	bool		has_index_type;
	int32_t		index_type;
	bool		has_index_name;
	cf_slice	index_name;
} cf_t_column_def;

typedef struct cf_t_cf_def
{
	cf_slice	keyspace;
	cf_slice	name;
	bool		has_column_type;
	cf_slice	column_type;	/* default "Standard" */
	bool		has_comparator_type;
	cf_slice	comparator_type;	/* default "BytesType" */
	bool		has_subcomparator_type;
	cf_slice	subcomparator_type;
	bool		has_comment;
	cf_slice	comment;
	bool		has_row_cache_size;
	double		row_cache_size; /* default 0 */
	bool		has_key_cache_size;
	double		key_cache_size; /* default 200000 */
	bool		has_read_repair_chance;
	double		read_repair_chance; /* default 1.0 */
	bool		has_column_metadata;
	cf_t_column_def *column_metadata;
	size_t		n_column_metadata;
	bool		has_gc_grace_seconds;
	int32_t		gc_grace_seconds;
	bool		has_default_validation_class;
	cf_slice	default_validation_class;
	bool		has_id;
	int32_t		id;
	bool		has_min_compaction_threshold;
	int32_t		min_compaction_threshold;
	bool		has_max_compaction_threshold;
	int32_t		max_compaction_threshold;
	bool		has_row_cache_save_period_in_seconds;
	int32_t		row_cache_save_period_in_seconds;
	bool		has_key_cache_save_period_in_seconds;
	int32_t		key_cache_save_period_in_seconds;
	bool		has_memtable_flush_after_mins;
	int32_t		memtable_flush_after_mins;
	bool		has_memtable_throughput_in_mb;
	int32_t		memtable_throughput_in_mb;
	bool		has_memtable_operations_in_millions;
	double		memtable_operations_in_millions;
} cf_t_cf_def;

typedef struct cf_t_ks_def
{
	cf_slice	name;
	cf_slice	strategy_class;
	bool		has_strategy_options;
	cf_t_string_pair *strategy_options;
	size_t		n_strategy_options;
	int32_t		replication_factor;
	cf_t_cf_def *cf_defs;
	size_t		n_cf_defs;
} cf_t_ks_def;

/* batch_mutate's map<binary key, map<string cf, list<Mutation>>>, flattened. */
typedef struct cf_t_cf_mutations
{
	cf_slice	column_family;
	cf_t_mutation *mutations;
	size_t		n_mutations;
} cf_t_cf_mutations;

typedef struct cf_t_key_mutations
{
	cf_slice	key;
	cf_t_cf_mutations *cfs;
	size_t		n_cfs;
} cf_t_key_mutations;

/* multiget_slice's map<binary, list<ColumnOrSuperColumn>> entry. */
typedef struct cf_t_key_coscs
{
	cf_slice	key;
	cf_t_cosc  *columns;
	size_t		n_columns;
} cf_t_key_coscs;

/* describe_schema_versions' map<string, list<string>> entry. */
typedef struct cf_t_schema_version
{
	cf_slice	version;
	cf_slice   *hosts;
	size_t		n_hosts;
} cf_t_schema_version;

/* ---- exceptions ---- */

typedef enum cf_t_exception_kind
{
	CF_T_EXC_NONE = 0,
	CF_T_EXC_INVALID_REQUEST,	/* InvalidRequestException {1: why} */
	CF_T_EXC_NOT_FOUND,			/* NotFoundException {} */
	CF_T_EXC_UNAVAILABLE,		/* UnavailableException {} */
	CF_T_EXC_TIMED_OUT,			/* TimedOutException {} */
	CF_T_EXC_AUTHENTICATION,	/* AuthenticationException {1: why} */
	CF_T_EXC_AUTHORIZATION		/* AuthorizationException {1: why} */
} cf_t_exception_kind;

/* A declared exception of a method's result (why is empty for the field-less ones). */
typedef struct cf_t_exception
{
	cf_t_exception_kind kind;
	cf_slice	why;
} cf_t_exception;

/* TApplicationException's types. */
typedef enum cf_t_app_error
{
	CF_T_APP_UNKNOWN = 0,
	CF_T_APP_UNKNOWN_METHOD = 1,
	CF_T_APP_INVALID_MESSAGE_TYPE = 2,
	CF_T_APP_WRONG_METHOD_NAME = 3,
	CF_T_APP_BAD_SEQUENCE_ID = 4,
	CF_T_APP_MISSING_RESULT = 5,
	CF_T_APP_INTERNAL_ERROR = 6,
	CF_T_APP_PROTOCOL_ERROR = 7
} cf_t_app_error;

/* ---- methods ---- */

typedef enum cf_t_method
{
	CF_T_M_LOGIN,
	CF_T_M_SET_KEYSPACE,
	CF_T_M_GET,
	CF_T_M_GET_SLICE,
	CF_T_M_GET_COUNT,
	CF_T_M_MULTIGET_SLICE,
	CF_T_M_MULTIGET_COUNT,
	CF_T_M_GET_RANGE_SLICES,
	CF_T_M_GET_INDEXED_SLICES,
	CF_T_M_INSERT,
	CF_T_M_REMOVE,
	CF_T_M_BATCH_MUTATE,
	CF_T_M_TRUNCATE,
	CF_T_M_DESCRIBE_SCHEMA_VERSIONS,
	CF_T_M_DESCRIBE_KEYSPACES,
	CF_T_M_DESCRIBE_CLUSTER_NAME,
	CF_T_M_DESCRIBE_VERSION,
	CF_T_M_DESCRIBE_RING,
	CF_T_M_DESCRIBE_PARTITIONER,
	CF_T_M_DESCRIBE_SNITCH,
	CF_T_M_DESCRIBE_KEYSPACE,
	CF_T_M_DESCRIBE_SPLITS,
	CF_T_M_SYSTEM_ADD_COLUMN_FAMILY,
	CF_T_M_SYSTEM_DROP_COLUMN_FAMILY,
	CF_T_M_SYSTEM_ADD_KEYSPACE,
	CF_T_M_SYSTEM_DROP_KEYSPACE,
	CF_T_M_SYSTEM_UPDATE_KEYSPACE,
	CF_T_M_SYSTEM_UPDATE_COLUMN_FAMILY,
	CF_T_M_COUNT_					/* number of methods; not a method */
} cf_t_method;

/* The wire name ("get_slice"); NULL for an out-of-range value. */
const char *cf_t_method_name(cf_t_method m);

/* The method of a wire name; false if the name is not a 0.7 method. */
bool		cf_t_method_lookup(cf_slice name, cf_t_method *out);

/*
 * The arguments of any method: the fields a method does not take are ignored. A
 * method's consistency_level defaults to ONE when absent.
 */
typedef struct cf_t_args
{
	cf_t_auth_request auth_request;		/* login */
	cf_slice	keyspace;		/* set_keyspace, describe_ring, describe_keyspace,
								 * system_drop_keyspace */
	cf_slice	key;			/* get, get_slice, get_count, insert, remove */
	cf_slice   *keys;			/* multiget_slice, multiget_count */
	size_t		n_keys;
	cf_t_column_path column_path;	/* get, remove */
	cf_t_column_parent column_parent;	/* slices, counts, ranges, indexed, insert */
	cf_t_slice_predicate predicate; /* get_slice, get_count, multiget_*, get_range_slices,
									 * get_indexed_slices' column_predicate */
	cf_t_key_range range;		/* get_range_slices */
	cf_t_index_clause index_clause; /* get_indexed_slices */
	cf_t_column column;			/* insert */
	int64_t		timestamp;		/* remove */
	cf_t_key_mutations *mutation_map;	/* batch_mutate */
	size_t		n_mutation_map;
	cf_slice	cfname;			/* truncate, describe_splits' cfName,
								 * system_drop_column_family */
	cf_slice	start_token;	/* describe_splits */
	cf_slice	end_token;
	int32_t		keys_per_split;
	cf_t_cf_def cf_def;			/* system_add/update_column_family */
	cf_t_ks_def ks_def;			/* system_add/update_keyspace */
	int32_t		consistency_level;	/* default CF_T_CL_ONE */
} cf_t_args;

/*
 * The result of any method: exception.kind != NONE, or the success field of the
 * method's return type (void methods: none).
 */
typedef struct cf_t_result
{
	cf_t_exception exception;
	cf_t_cosc	cosc;			/* get */
	cf_t_cosc  *coscs;			/* get_slice */
	size_t		n_coscs;
	int32_t		count;			/* get_count */
	cf_t_key_coscs *key_coscs;	/* multiget_slice */
	size_t		n_key_coscs;
	cf_t_key_count *key_counts; /* multiget_count */
	size_t		n_key_counts;
	cf_t_key_slice *key_slices; /* get_range_slices, get_indexed_slices */
	size_t		n_key_slices;
	cf_t_schema_version *schema_versions;	/* describe_schema_versions */
	size_t		n_schema_versions;
	cf_t_ks_def *ks_defs;		/* describe_keyspaces */
	size_t		n_ks_defs;
	cf_t_ks_def ks_def;			/* describe_keyspace */
	cf_slice	string;			/* describe_cluster_name/version/partitioner/snitch,
								 * system_* (the new schema id) */
	cf_t_token_range *token_ranges; /* describe_ring */
	size_t		n_token_ranges;
	cf_slice   *strings;		/* describe_splits */
	size_t		n_strings;
} cf_t_result;

/* ---- messages ---- */

typedef enum cf_t_message_type
{
	CF_T_CALL = 1,
	CF_T_REPLY = 2,
	CF_T_EXCEPTION = 3,
	CF_T_ONEWAY = 4
} cf_t_message_type;

typedef struct cf_t_message_header
{
	cf_slice	name;
	cf_t_message_type type;
	int32_t		seqid;
} cf_t_message_header;

/* Decoder caps; cf_t_limits_default() gives the defaults in brackets. */
typedef struct cf_t_limits
{
	size_t		max_string;		/* one string/binary [16 MiB] */
	size_t		max_container;	/* elements of one list/map/set [1M] */
	int			max_depth;		/* struct/container nesting [64] */
} cf_t_limits;

cf_t_limits cf_t_limits_default(void);

/*
 * Reads a strict binary message header from the start of msg (a whole frame's
 * payload) and leaves r at the first byte of the body. Non-strict (old unversioned)
 * headers and versions other than 0x8001 are CF_ERR_PROTOCOL.
 */
cf_status  *cf_t_read_message_header(cf_rd *r, cf_t_message_header *out);

/* Appends a strict binary message header. */
void		cf_t_write_message_header(cf_buf *out, cf_slice name, cf_t_message_type type,
									  int32_t seqid);

/*
 * Server side. Decodes a call's argument struct (r at the body) for method m into
 * *args (zeroed first, IDL defaults applied). Errors: CF_ERR_PROTOCOL (malformed,
 * a required field missing), CF_ERR_TOO_LARGE (a cap exceeded).
 */
cf_status  *cf_t_read_args(cf_rd *r, cf_t_method m, const cf_t_limits *lim,
						   cf_arena *arena, cf_t_args *args);

/*
 * Server side. Appends a whole REPLY message (header + result struct) for method m:
 * the exception field the method declares for res->exception.kind, or the success
 * field. CF_ERR_INVALID if the method does not declare that exception (a dispatch bug).
 */
cf_status  *cf_t_write_reply(cf_buf *out, cf_t_method m, int32_t seqid,
							 const cf_t_result *res);

/* Appends a whole EXCEPTION message carrying a TApplicationException. */
void		cf_t_write_app_exception(cf_buf *out, cf_slice method_name, int32_t seqid,
									 cf_t_app_error type, const char *message);

/*
 * Client side. Appends a whole CALL message (header + argument struct) for method m.
 * A consistency_level of 0 (not set) is sent as ONE, the documented default.
 */
cf_status  *cf_t_write_call(cf_buf *out, cf_t_method m, int32_t seqid,
							const cf_t_args *args);

/*
 * Client side. Decodes a whole reply message for method m with sequence id seqid:
 * a REPLY into *res (declared exceptions into res->exception), an EXCEPTION message
 * into CF_ERR_PROTOCOL carrying the TApplicationException's message and type, a wrong
 * name or seqid into CF_ERR_PROTOCOL.
 */
cf_status  *cf_t_read_reply(cf_slice msg, cf_t_method m, int32_t seqid,
							const cf_t_limits *lim, cf_arena *arena, cf_t_result *res);

/*
 * Client side. Reads the header of a reply to method (r at the start of the message)
 * and leaves r at the result struct: an EXCEPTION message is CF_ERR_PROTOCOL carrying
 * the TApplicationException's message and type (decoded under lim into arena); another
 * message type, method name or sequence id than a REPLY to method with seqid is
 * CF_ERR_PROTOCOL. What cf_t_read_reply and thrift/admin.c's cf_ta_read_reply share.
 */
cf_status  *cf_t_read_reply_header(cf_rd *r, const char *method, int32_t seqid,
								   const cf_t_limits *lim, cf_arena *arena);

/* Standalone struct codecs (tests, export/import, the tool's schema loader). */
void		cf_t_write_ks_def(cf_buf *out, const cf_t_ks_def *v);
cf_status  *cf_t_read_ks_def(cf_rd *r, const cf_t_limits *lim, cf_arena *arena,
							 cf_t_ks_def *out);

#endif							/* CF_THRIFT_CASSANDRA_H */
