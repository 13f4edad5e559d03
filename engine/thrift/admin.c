/*
 * thrift/admin.c — see admin.h. colfam's methods' structs as tstruct tables, and
 * the message-level codec, shaped as cassandra.c's (header, one args or result
 * struct) but kept apart so the 0.7 IDL's tables stay exactly the 0.7 IDL. A reply's
 * header (TApplicationException, name and seqid checks) is read by cassandra.c; the
 * table macros and the decoder set-up are codec_int.h's, shared with it.
 */
#include "thrift/admin.h"

#include <string.h>

#include "db/snapshot.h"
#include "thrift/codec_int.h"

_Static_assert(CF_TA_SNAPSHOT_NAME_MAX == CF_SNAPSHOT_NAME_MAX,
			   "admin.h's snapshot name limit is the db's");

static const cf_ts_type t_bool = {.kind = CF_TS_BOOL};
static const cf_ts_type t_i32 = {.kind = CF_TS_I32};
static const cf_ts_type t_i64 = {.kind = CF_TS_I64};
static const cf_ts_type t_string = {.kind = CF_TS_STRING};
static const cf_ts_type t_list_string = LIST_TYPE(t_string, cf_slice);

/* ---- structs ---- */

static const cf_ts_field cf_stats_f[] = {
	REQ(1, cf_ta_cf_stats, column_family, t_string),
	REQ(2, cf_ta_cf_stats, memtable_bytes, t_i64),
	REQ(3, cf_ta_cf_stats, memtable_operations, t_i64),
	REQ(4, cf_ta_cf_stats, pending_flushes, t_i32),
	REQ(5, cf_ta_cf_stats, sstables, t_i64),
	REQ(6, cf_ta_cf_stats, sstable_bytes, t_i64),
	REQ(7, cf_ta_cf_stats, flushes, t_i64),
	REQ(8, cf_ta_cf_stats, flush_failures, t_i64),
	OPT(9, cf_ta_cf_stats, estimated_keys, t_i64),
	OPT(10, cf_ta_cf_stats, estimated_columns, t_i64),
};
STRUCT(st_cf_stats, "CfStats", cf_ta_cf_stats, cf_stats_f);
static const cf_ts_type t_cf_stats = STRUCT_TYPE(st_cf_stats);
static const cf_ts_type t_list_cf_stats = LIST_TYPE(t_cf_stats, cf_ta_cf_stats);

static const cf_ts_field snapshot_f[] = {
	REQ(1, cf_ta_snapshot, keyspace, t_string),
	REQ(2, cf_ta_snapshot, column_family, t_string),
	REQ(3, cf_ta_snapshot, name, t_string),
	REQ(4, cf_ta_snapshot, directory, t_string),
	REQ(5, cf_ta_snapshot, files, t_i64),
	REQ(6, cf_ta_snapshot, bytes, t_i64),
	REQ(7, cf_ta_snapshot, unshared_bytes, t_i64),
};
STRUCT(st_snapshot, "SnapshotInfo", cf_ta_snapshot, snapshot_f);
static const cf_ts_type t_snapshot = STRUCT_TYPE(st_snapshot);
static const cf_ts_type t_list_snapshot = LIST_TYPE(t_snapshot, cf_ta_snapshot);

static const cf_ts_field ire_f[] = {
	REQ(1, cf_ta_ire, why, t_string),
};
STRUCT(st_ire, "InvalidRequestException", cf_ta_ire, ire_f);
static const cf_ts_type t_ire = STRUCT_TYPE(st_ire);

/* UnavailableException {} and TimedOutException {}: no field, held in a cf_ta_ire. */
static const cf_ts_struct st_ue = {"UnavailableException", sizeof(cf_ta_ire), NULL, 0};
static const cf_ts_type t_ue = STRUCT_TYPE(st_ue);
static const cf_ts_struct st_te = {"TimedOutException", sizeof(cf_ta_ire), NULL, 0};
static const cf_ts_type t_te = STRUCT_TYPE(st_te);

static const cf_ts_type t_binary = {.kind = CF_TS_BINARY};
static const cf_ts_type t_list_binary = LIST_TYPE(t_binary, cf_slice);

static const cf_ts_field chain_step_f[] = {
	REQ(1, cf_ta_chain_step, column_parent, cf_t_type_column_parent),
	REQ(2, cf_ta_chain_step, predicate, cf_t_type_slice_predicate),
	REQ(3, cf_ta_chain_step, from_step, t_i32),
	REQ(4, cf_ta_chain_step, source, t_i32),
	OPT(5, cf_ta_chain_step, source_name, t_binary),
};
STRUCT(st_chain_step, "ChainStep", cf_ta_chain_step, chain_step_f);
static const cf_ts_type t_chain_step = STRUCT_TYPE(st_chain_step);
static const cf_ts_type t_list_chain_step = LIST_TYPE(t_chain_step, cf_ta_chain_step);

_Static_assert(offsetof(cf_ta_chain_answer, rows) == 0, "LIST_LIST_TYPE's inner array");
static const cf_ts_type t_list_list_key_slice =
LIST_LIST_TYPE(cf_t_type_list_key_slice, cf_ta_chain_answer, rows);

/* ---- methods ---- */

static const cf_ts_field flush_args_f[] = {
	REQ(1, cf_ta_args, keyspace, t_string),
	REQ_N(2, cf_ta_args, column_families, t_list_string),
};
STRUCT(st_flush_args, "colfam_flush_args", cf_ta_args, flush_args_f);

static const cf_ts_field compact_args_f[] = {
	REQ(1, cf_ta_args, keyspace, t_string),
	REQ_N(2, cf_ta_args, column_families, t_list_string),
	REQ(3, cf_ta_args, major, t_bool),
};
STRUCT(st_compact_args, "colfam_compact_args", cf_ta_args, compact_args_f);

static const cf_ts_field cfstats_args_f[] = {
	REQ(1, cf_ta_args, keyspace, t_string),
};
STRUCT(st_cfstats_args, "colfam_cfstats_args", cf_ta_args, cfstats_args_f);

static const cf_ts_field snapshot_args_f[] = {
	REQ_N(1, cf_ta_args, keyspaces, t_list_string),
	REQ(2, cf_ta_args, name, t_string),
};
STRUCT(st_snapshot_args, "colfam_snapshot_args", cf_ta_args, snapshot_args_f);

static const cf_ts_field listsnapshots_args_f[] = {
	REQ_N(1, cf_ta_args, keyspaces, t_list_string),
};
STRUCT(st_listsnapshots_args, "colfam_listsnapshots_args", cf_ta_args, listsnapshots_args_f);

static const cf_ts_field clearsnapshot_args_f[] = {
	REQ_N(1, cf_ta_args, keyspaces, t_list_string),
	OPT(2, cf_ta_args, name, t_string),
};
STRUCT(st_clearsnapshot_args, "colfam_clearsnapshot_args", cf_ta_args, clearsnapshot_args_f);

/* consistency_level: required with the IDL default ONE, as in the 0.7 methods */
static const cf_ts_field multiget_chain_args_f[] = {
	REQ_N(1, cf_ta_args, keys, t_list_binary),
	REQ(2, cf_ta_args, column_parent, cf_t_type_column_parent),
	REQ(3, cf_ta_args, predicate, cf_t_type_slice_predicate),
	REQ_N(4, cf_ta_args, steps, t_list_chain_step),
	DEF_I(5, cf_ta_args, consistency_level, t_i32, CF_T_CL_ONE),
};
STRUCT(st_multiget_chain_args, "colfam_multiget_chain_args", cf_ta_args,
	   multiget_chain_args_f);

/* Results: {0: success (cfstats, snapshots), 1: InvalidRequestException ire}. */
static const cf_ts_field void_result_f[] = {
	OPT(1, cf_ta_result, ire, t_ire),
};
STRUCT(st_void_result, "colfam_void_result", cf_ta_result, void_result_f);

static const cf_ts_field cfstats_result_f[] = {
	OPT_N(0, cf_ta_result, stats, t_list_cf_stats),
	OPT(1, cf_ta_result, ire, t_ire),
};
STRUCT(st_cfstats_result, "colfam_cfstats_result", cf_ta_result, cfstats_result_f);

static const cf_ts_field snapshots_result_f[] = {
	OPT_N(0, cf_ta_result, snapshots, t_list_snapshot),
	OPT(1, cf_ta_result, ire, t_ire),
};
STRUCT(st_snapshots_result, "colfam_snapshots_result", cf_ta_result, snapshots_result_f);

static const cf_ts_field multiget_chain_result_f[] = {
	OPT_N(0, cf_ta_result, chain, t_list_list_key_slice),
	OPT(1, cf_ta_result, ire, t_ire),
	OPT(2, cf_ta_result, ue, t_ue),
	OPT(3, cf_ta_result, te, t_te),
};
STRUCT(st_multiget_chain_result, "colfam_multiget_chain_result", cf_ta_result,
	   multiget_chain_result_f);

typedef struct method_desc
{
	const char *name;
	const cf_ts_struct *args;
	const cf_ts_struct *result;
	bool		has_success;
} method_desc;

static const method_desc methods[CF_TA_M_COUNT_] = {
	[CF_TA_M_FLUSH] = {"colfam_flush", &st_flush_args, &st_void_result, false},
	[CF_TA_M_COMPACT] = {"colfam_compact", &st_compact_args, &st_void_result, false},
	[CF_TA_M_CFSTATS] = {"colfam_cfstats", &st_cfstats_args, &st_cfstats_result, true},
	[CF_TA_M_SNAPSHOT] = {"colfam_snapshot", &st_snapshot_args, &st_snapshots_result, true},
	[CF_TA_M_LISTSNAPSHOTS] = {"colfam_listsnapshots", &st_listsnapshots_args,
	&st_snapshots_result, true},
	[CF_TA_M_CLEARSNAPSHOT] = {"colfam_clearsnapshot", &st_clearsnapshot_args,
	&st_snapshots_result, true},
	[CF_TA_M_MULTIGET_CHAIN] = {"colfam_multiget_chain", &st_multiget_chain_args,
	&st_multiget_chain_result, true},
};

static const method_desc *
method_of(cf_ta_method m)
{
	return (int) m >= 0 && m < CF_TA_M_COUNT_ ? &methods[m] : NULL;
}

const char *
cf_ta_method_name(cf_ta_method m)
{
	const method_desc *md = method_of(m);

	return md ? md->name : NULL;
}

bool
cf_ta_method_lookup(cf_slice name, cf_ta_method *out)
{
	for (int i = 0; i < CF_TA_M_COUNT_; i++)
	{
		if (cf_slice_eq(name, cf_slice_str(methods[i].name)))
		{
			*out = (cf_ta_method) i;
			return true;
		}
	}
	return false;
}

cf_status *
cf_ta_read_args(cf_rd *r, cf_ta_method m, const cf_t_limits *lim, cf_arena *arena,
				cf_ta_args *args)
{
	const method_desc *md = method_of(m);
	cf_tb_dec	d;

	memset(args, 0, sizeof(*args));
	if (md == NULL)
		return cf_status_make(CF_ERR_INVALID, "no admin method %d", (int) m);
	cf_t_dec_init(&d, r, lim, arena);
	cf_ts_read_struct(&d, md->args, args);
	return cf_tb_dec_status(&d, md->args->name);
}

cf_status *
cf_ta_write_call(cf_buf *out, cf_ta_method m, int32_t seqid, const cf_ta_args *args)
{
	const method_desc *md = method_of(m);

	cf_ta_args	with_cl;

	if (md == NULL)
		return cf_status_make(CF_ERR_INVALID, "no admin method %d", (int) m);
	if (m == CF_TA_M_MULTIGET_CHAIN && args->consistency_level == 0)
	{
		with_cl = *args;
		with_cl.consistency_level = CF_T_CL_ONE;
		args = &with_cl;
	}
	cf_t_write_message_header(out, cf_slice_str(md->name), CF_T_CALL, seqid);
	cf_ts_write_struct(out, md->args, args);
	return cf_buf_status(out);
}

cf_status *
cf_ta_write_reply(cf_buf *out, cf_ta_method m, int32_t seqid, const cf_ta_result *res)
{
	const method_desc *md = method_of(m);
	cf_ta_result r;

	bool		exc;

	if (md == NULL)
		return cf_status_make(CF_ERR_INVALID, "no admin method %d", (int) m);
	if ((res->has_ue || res->has_te) && m != CF_TA_M_MULTIGET_CHAIN)
		return cf_status_make(CF_ERR_INVALID, "%s declares no %s", md->name,
							  res->has_ue ? "UnavailableException" : "TimedOutException");
	r = *res;
	/* the first exception set, else the success */
	exc = r.has_ire || r.has_ue || r.has_te;
	r.has_ue = r.has_ue && !r.has_ire;
	r.has_te = r.has_te && !r.has_ire && !r.has_ue;
	/* one result struct per method declares field 0: the flags the others have are unread */
	r.has_stats = r.has_snapshots = r.has_chain = !exc && md->has_success;
	cf_t_write_message_header(out, cf_slice_str(md->name), CF_T_REPLY, seqid);
	cf_ts_write_struct(out, md->result, &r);
	return cf_buf_status(out);
}

cf_status *
cf_ta_read_reply(cf_slice msg, cf_ta_method m, int32_t seqid, const cf_t_limits *lim,
				 cf_arena *arena, cf_ta_result *res)
{
	const method_desc *md = method_of(m);
	cf_tb_dec	d;
	cf_rd		r;
	cf_status  *s;

	memset(res, 0, sizeof(*res));
	if (md == NULL)
		return cf_status_make(CF_ERR_INVALID, "no admin method %d", (int) m);
	cf_rd_init(&r, msg.p, msg.len);
	if ((s = cf_t_read_reply_header(&r, md->name, seqid, lim, arena)) != NULL)
		return s;
	cf_t_dec_init(&d, &r, lim, arena);
	cf_ts_read_struct(&d, md->result, res);
	if ((s = cf_tb_dec_status(&d, "result")) != NULL)
		return cf_status_wrap(s, "%s", md->name);
	if (md->has_success && !res->has_stats && !res->has_snapshots && !res->has_chain &&
		!res->has_ire && !res->has_ue && !res->has_te)
		return cf_status_make(CF_ERR_PROTOCOL, "%s: the reply carries no result (MISSING_RESULT)",
							  md->name);
	return NULL;
}
