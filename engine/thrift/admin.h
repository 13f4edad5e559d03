/*
 * thrift/admin.h — colfam's node-administration methods: Thrift methods outside the
 * Cassandra 0.7 IDL (generated 0.7 clients never send them), served by the same
 * dispatch next to the 0.7 service and called by `colfam flush|compact|cfstats|snapshot|
 * listsnapshots|clearsnapshot`. engine/doc/thrift.md documents them as IDL:
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
	CF_TA_M_COUNT_				/* number of methods; not a method */
} cf_ta_method;

/* The wire name ("colfam_flush"); NULL for an out-of-range value. */
const char *cf_ta_method_name(cf_ta_method m);

/* The admin method of a wire name; false if the name is not one. */
bool		cf_ta_method_lookup(cf_slice name, cf_ta_method *out);

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

/* InvalidRequestException {1: required string why}. */
typedef struct cf_ta_ire
{
	cf_slice	why;
} cf_ta_ire;

/*
 * A result: has_ire (ire.why says why), or the success value (stats for cfstats,
 * snapshots for the snapshot methods; the decoder sets its has_ flag when field 0
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
	bool		has_ire;
	cf_ta_ire	ire;
} cf_ta_result;

/*
 * Server side. Decodes the argument struct of m (r at the body). Errors as
 * cf_t_read_args: CF_ERR_PROTOCOL (malformed, "required field
 * colfam_flush_args.keyspace missing"), CF_ERR_TOO_LARGE (a cap).
 */
cf_status  *cf_ta_read_args(cf_rd *r, cf_ta_method m, const cf_t_limits *lim,
							cf_arena *arena, cf_ta_args *args);

/* Server side. Appends a whole REPLY message for m: the IRE if set, else the success. */
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
 * seqid, or a reply of cfstats or a snapshot method without a result, into
 * CF_ERR_PROTOCOL.
 */
cf_status  *cf_ta_read_reply(cf_slice msg, cf_ta_method m, int32_t seqid,
							 const cf_t_limits *lim, cf_arena *arena, cf_ta_result *res);

#endif							/* CF_THRIFT_ADMIN_H */
