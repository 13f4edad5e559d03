/*
 * thrift/admin.h — colfam's Thrift methods outside the Cassandra 0.7 IDL (generated
 * 0.7 clients never send them), served by the same dispatch next to the 0.7 service:
 * the node-administration methods `colfam flush|compact|cfstats|snapshot|listsnapshots|
 * clearsnapshot` calls, and colfam_multiget_chain, a read (colfam_fdw's joins).
 * engine/doc/thrift.md documents them as IDL:
 *
 *   struct CfStats {
 *     1: required string column_family,
 *     2: required i64 memtable_bytes,    3: required i64 memtable_operations,
 *     4: required i32 pending_flushes,   5: required i64 sstables,
 *     6: required i64 sstable_bytes,     7: required i64 flushes,
 *     8: required i64 flush_failures,
 *     9: optional i64 estimated_keys,   10: optional i64 estimated_columns }
 *   void colfam_flush(1: required string keyspace,
 *                     2: required list<string> column_families)
 *        throws (1: InvalidRequestException ire)
 *   void colfam_compact(1: required string keyspace,
 *                       2: required list<string> column_families, 3: required bool major)
 *        throws (1: InvalidRequestException ire)
 *   list<CfStats> colfam_cfstats(1: required string keyspace)
 *        throws (1: InvalidRequestException ire)
 *   struct SnapshotInfo {
 *     1: required string keyspace,       2: required string column_family,
 *     3: required string name,           4: required string directory,
 *     5: required i64 files,             6: required i64 bytes,
 *     7: required i64 unshared_bytes }
 *   list<SnapshotInfo> colfam_snapshot(1: required list<string> keyspaces,
 *                                      2: required string name)
 *        throws (1: InvalidRequestException ire)
 *   list<SnapshotInfo> colfam_listsnapshots(1: required list<string> keyspaces)
 *        throws (1: InvalidRequestException ire)
 *   list<SnapshotInfo> colfam_clearsnapshot(1: required list<string> keyspaces,
 *                                           2: optional string name)
 *        throws (1: InvalidRequestException ire)
 *
 * and one read that is no admin method (a session's keyspace and read grants, as
 * multiget_slice; see thrift.md "colfam_multiget_chain"):
 *
 *   enum ChainSource { VALUE = 0, NAME = 1, SUPER_NAME = 2, KEY = 3, NAMED_VALUE = 4 }
 *   struct ChainStep {
 *     1: required ColumnParent column_parent, 2: required SlicePredicate predicate,
 *     3: required i32 from_step,             4: required ChainSource source,
 *     5: optional binary source_name }
 *   list<list<KeySlice>> colfam_multiget_chain(1: required list<binary> keys,
 *       2: required ColumnParent column_parent, 3: required SlicePredicate predicate,
 *       4: required list<ChainStep> steps,
 *       5: required ConsistencyLevel consistency_level = ONE)
 *     throws (1: InvalidRequestException ire, 2: UnavailableException ue,
 *             3: TimedOutException te)
 *
 * An empty column_families list means every CF of the keyspace; an empty keyspaces
 * list every keyspace (see thrift.md for which).
 *
 * The codec is that of thrift/cassandra.h (the same tbinary/tstruct primitives, the
 * same limits, zero-copy decode into a caller's arena, strict message headers) and
 * reuses its message header and TApplicationException writers and its reply-header
 * reader.
 *
 * Thread safety: no global mutable state.
 */
#ifndef CF_THRIFT_ADMIN_H
#define CF_THRIFT_ADMIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "thrift/cassandra.h"
#include "util/arena.h"
#include "util/buf.h"
#include "util/slice.h"
#include "util/status.h"

typedef enum cf_ta_method
{
	CF_TA_M_FLUSH,
	CF_TA_M_COMPACT,
	CF_TA_M_CFSTATS,
	CF_TA_M_SNAPSHOT,
	CF_TA_M_LISTSNAPSHOTS,
	CF_TA_M_CLEARSNAPSHOT,
	CF_TA_M_MULTIGET_CHAIN,		/* a read, not an admin method: see above */
	CF_TA_M_COUNT_				/* number of methods; not a method */
} cf_ta_method;

/* The wire name ("colfam_flush"); NULL for an out-of-range value. */
const char *cf_ta_method_name(cf_ta_method m);

/* The admin method of a wire name; false if the name is not one. */
bool		cf_ta_method_lookup(cf_slice name, cf_ta_method *out);

/* ChainSource: where a chain step's keys come from in an earlier step's answer. */
typedef enum cf_ta_chain_source
{
	CF_TA_CHAIN_VALUE = 0,		/* each column's value */
	CF_TA_CHAIN_NAME = 1,		/* each column's name */
	CF_TA_CHAIN_SUPER_NAME = 2, /* each super column's name */
	CF_TA_CHAIN_KEY = 3,		/* each row key whose row has at least one column */
	CF_TA_CHAIN_NAMED_VALUE = 4 /* the value of each column named source_name */
} cf_ta_chain_source;

/* The most steps a chain takes (besides step 0), and keys one derived step looks up. */
#define CF_TA_CHAIN_MAX_STEPS 16
#define CF_TA_CHAIN_MAX_KEYS 10000

/* ChainStep: a multiget_slice whose keys come from step from_step's answer. */
typedef struct cf_ta_chain_step
{
	cf_t_column_parent column_parent;
	cf_t_slice_predicate predicate;
	int32_t		from_step;
	int32_t		source;			/* a cf_ta_chain_source; unknown values kept for dispatch */
	bool		has_source_name;
	cf_slice	source_name;
} cf_ta_chain_step;

/* One step's answer: a KeySlice per key the step read, in the reply's order. */
typedef struct cf_ta_chain_answer
{
	cf_t_key_slice *rows;
	size_t		n_rows;
} cf_ta_chain_answer;

/* The arguments of any admin method (fields a method does not take are ignored). */
typedef struct cf_ta_args
{
	cf_slice	keyspace;		/* flush, compact, cfstats */
	cf_slice   *column_families;	/* flush, compact */
	size_t		n_column_families;
	bool		major;			/* compact */
	cf_slice   *keyspaces;		/* the snapshot methods */
	size_t		n_keyspaces;
	bool		has_name;		/* clearsnapshot: whether name came */
	cf_slice	name;			/* snapshot (always), clearsnapshot */
	cf_slice   *keys;			/* multiget_chain: step 0's keys, */
	size_t		n_keys;
	cf_t_column_parent column_parent;	/* its column_parent, */
	cf_t_slice_predicate predicate; /* its predicate, */
	cf_ta_chain_step *steps;	/* steps 1.. */
	size_t		n_steps;
	int32_t		consistency_level;	/* default CF_T_CL_ONE (0 is sent as ONE) */
} cf_ta_args;

typedef struct cf_ta_cf_stats
{
	cf_slice	column_family;
	int64_t		memtable_bytes;
	int64_t		memtable_operations;
	int32_t		pending_flushes;
	int64_t		sstables;
	int64_t		sstable_bytes;
	int64_t		flushes;
	int64_t		flush_failures;
	/*
	 * Rows and columns of the CF on this node, for query planners (memtables plus
	 * SSTables; a row in several counts in each). Optional: older servers omit them.
	 */
	bool		has_estimated_keys;
	int64_t		estimated_keys;
	bool		has_estimated_columns;
	int64_t		estimated_columns;
} cf_ta_cf_stats;

/* The longest snapshot name a server takes (db/snapshot.h's CF_SNAPSHOT_NAME_MAX). */
#define CF_TA_SNAPSHOT_NAME_MAX 200

/* One CF's snapshot (db/snapshot.h): its files are hard links; see thrift.md. */
typedef struct cf_ta_snapshot
{
	cf_slice	keyspace;
	cf_slice	column_family;
	cf_slice	name;
	cf_slice	directory;
	int64_t		files;
	int64_t		bytes;
	int64_t		unshared_bytes;
} cf_ta_snapshot;

/*
 * InvalidRequestException {1: required string why}; also UnavailableException {} and
 * TimedOutException {}, which have no field (why stays empty).
 */
typedef struct cf_ta_ire
{
	cf_slice	why;
} cf_ta_ire;

/*
 * A result: has_ire (ire.why says why), has_ue or has_te (multiget_chain only), or
 * the success value (stats for cfstats, snapshots for the snapshot methods, chain for
 * multiget_chain: answer i for step i; the decoder sets its has_ flag when field 0
 * came, the encoder ignores the flags).
 */
typedef struct cf_ta_result
{
	bool		has_stats;
	cf_ta_cf_stats *stats;
	size_t		n_stats;
	bool		has_snapshots;
	cf_ta_snapshot *snapshots;
	size_t		n_snapshots;
	bool		has_chain;
	cf_ta_chain_answer *chain;
	size_t		n_chain;
	bool		has_ire;
	cf_ta_ire	ire;
	bool		has_ue;
	cf_ta_ire	ue;
	bool		has_te;
	cf_ta_ire	te;
} cf_ta_result;

/*
 * Server side. Decodes the argument struct of m (r at the body). Errors as
 * cf_t_read_args: CF_ERR_PROTOCOL (malformed, "required field
 * colfam_flush_args.keyspace missing"), CF_ERR_TOO_LARGE (a cap).
 */
cf_status  *cf_ta_read_args(cf_rd *r, cf_ta_method m, const cf_t_limits *lim,
							cf_arena *arena, cf_ta_args *args);

/*
 * Server side. Appends a whole REPLY message for m: the IRE, UE or TE if set (the
 * first of them; UE and TE only for multiget_chain, which declares them), else the
 * success. CF_ERR_INVALID for an exception m does not declare.
 */
cf_status  *cf_ta_write_reply(cf_buf *out, cf_ta_method m, int32_t seqid,
							  const cf_ta_result *res);

/* Client side. Appends a whole CALL message for m. */
cf_status  *cf_ta_write_call(cf_buf *out, cf_ta_method m, int32_t seqid,
							 const cf_ta_args *args);

/*
 * Client side. Decodes a whole reply message for m with sequence id seqid, as
 * cf_t_read_reply does: the IRE into res (has_ire), an EXCEPTION message into
 * CF_ERR_PROTOCOL carrying the TApplicationException's message (so an older server's
 * UNKNOWN_METHOD shows as "Invalid method name: 'colfam_flush'"), a wrong name or
 * seqid, or a reply of cfstats, a snapshot method or multiget_chain without a result,
 * into CF_ERR_PROTOCOL.
 */
cf_status  *cf_ta_read_reply(cf_slice msg, cf_ta_method m, int32_t seqid,
							 const cf_t_limits *lim, cf_arena *arena, cf_ta_result *res);

#endif							/* CF_THRIFT_ADMIN_H */
