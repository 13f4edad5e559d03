/*
 * db/db.h — the local database of one node: keyspaces and column families over
 * cfstores, the commit log, replay at open, the schema kept in the system keyspace,
 * and background compaction. The coordinator (engine/service) calls it for local reads
 * and writes; tests and tools may use it directly.
 *
 * Writes: cf_db_apply validates every change against the schema, appends one commit-log
 * record for the row mutation (all its CFs, atomic per row key) and applies it to the
 * memtables, holding the write barrier shared; a memtable switch holds it exclusively
 * (see cfstore.h). In batch mode an apply returns only when its record is synced.
 *
 * The schema: keyspace definitions are rows of system.Schema (key: keyspace name,
 * column "def": cf_ksdef_encode), plus the row "~meta" holding the next CF id. A schema
 * change is written like any mutation, then system.Schema is flushed before the change
 * is acknowledged, so at open the schema is read from SSTables before replay begins.
 * Dropping a CF or keyspace snapshots its tables ("dropped-<µs>") before removing them.
 *
 * Reads: cf_db_view gives the tables of one CF for db/read.h.
 *
 * Secondary indexes (KEYS; db/index.h, engine/doc/index_format.md): every indexed
 * column of a Standard CF has a hidden CF (id cf_column_def.index_id, directory
 * <data>/<keyspace>/<cf>.<index id>/) that is in no keyspace's list of CFs: it is
 * flushed, compacted and truncated with its CF and removed when the index or the CF is
 * dropped (it is not part of snapshots: it is rebuilt from its CF). A write to a CF
 * with an index holds a lock on its row key while it reads the indexed columns it
 * changes, and logs the index changes in the same commit-log record as the row
 * (a mutation batch), so both are replayed or neither. An index added to a CF that
 * has rows is built in the background; until it is complete, queries that need it
 * scan the CF (same results, slower); a build interrupted by a close or a crash
 * starts over at the next open. cf_db_get_indexed_slices answers get_indexed_slices.
 *
 * Thread safety: every function may be called from any thread concurrently, except
 * cf_db_close.
 */
#ifndef CF_DB_DB_H
#define CF_DB_DB_H

#include "db/cfstore.h"
#include "db/index.h"
#include "db/read.h"
#include "db/schema.h"
#include "db/snapshot.h"
#include "storage/commitlog.h"
#include "storage/partitioner.h"
#include "util/env.h"

typedef struct cf_db cf_db;

typedef struct cf_db_options
{
	cf_env	   *env;
	const char *data_dir;		/* <data_dir>/<keyspace>/<cf>/ */
	const char *commitlog_dir;
	cf_partitioner partitioner;
	cf_commitlog_sync_mode sync_mode;
	int64_t		sync_period_us; /* periodic: 0 = 10 s */
	int64_t		batch_window_us;
	uint64_t	segment_size;	/* 0: 128 MiB */
	size_t		memtable_max_bytes; /* override every CF's throughput (tests); 0: the CF's */
	uint64_t	memtable_max_ops;	/* likewise; 0: the CF's */
	bool		background_compaction;	/* size-tiered after flushes */
	size_t		block_cache_bytes;	/* decoded SSTable blocks, all CFs: 0 = 64 MiB */
} cf_db_options;

/* Opens or creates the database and replays the commit log. */
cf_status  *cf_db_open(const cf_db_options *opts, cf_db **out);

/*
 * Flushes every memtable (so the commit log can be retired), stops compaction, closes.
 * Frees db even when it reports an error.
 */
cf_status  *cf_db_close(cf_db *db);

/*
 * Stops without flushing the memtables, as a crash would leave them: the next open
 * replays the commit log (closed cleanly here) to rebuild them. For tests and tools.
 */
cf_status  *cf_db_abandon(cf_db *db);

/* The current schema, referenced: cf_schema_unref when done. */
cf_schema  *cf_db_schema(cf_db *db);

cf_status  *cf_db_add_keyspace(cf_db *db, const cf_ks_def *ks);
cf_status  *cf_db_drop_keyspace(cf_db *db, const char *keyspace);
cf_status  *cf_db_update_keyspace(cf_db *db, const cf_ks_def *ks);
cf_status  *cf_db_add_cf(cf_db *db, const cf_cf_def *cf);
cf_status  *cf_db_drop_cf(cf_db *db, const char *keyspace, const char *cf);
cf_status  *cf_db_update_cf(cf_db *db, const cf_cf_def *cf);

/* One CF's part of a row mutation, named as clients name it. */
typedef struct cf_db_update
{
	const char *cf;
	cf_cf_update u;				/* u.cf_id is ignored and set from the schema */
} cf_db_update;

/*
 * Applies a row mutation of one keyspace. CF_ERR_NOT_FOUND for an unknown keyspace or
 * CF, CF_ERR_INVALID (with the reason) for a change the schema rejects, or one an index
 * cannot hold (a value of an indexed column over CF_KEY_MAX bytes; under
 * RandomPartitioner, a write of an indexed column in a row whose key is over 65519
 * bytes); nothing is applied then. The CF's indexes change with the row, atomically
 * (see above).
 */
cf_status  *cf_db_apply(cf_db *db, const char *keyspace, cf_slice key,
						const cf_db_update *updates, size_t n);

/* The partitioner the db was opened with. */
cf_partitioner cf_db_partitioner(cf_db *db);

/* The token of a key under the db's partitioner, appended to out. */
cf_status  *cf_db_token(cf_db *db, cf_slice key, cf_buf *out);

/* The tables of one CF for a read; release with cf_cfstore_view_release. */
cf_status  *cf_db_view(cf_db *db, const char *keyspace, const char *cf, cf_table_set *view);

/* Flushes one CF (or every CF of the keyspace when cf is NULL) and waits. */
cf_status  *cf_db_flush(cf_db *db, const char *keyspace, const char *cf);

/* Compacts one CF now: size-tiered, or every SSTable when major. */
cf_status  *cf_db_compact(cf_db *db, const char *keyspace, const char *cf, bool major);

/* Removes every row of the CF (after a snapshot "truncated-<µs>"). */
cf_status  *cf_db_truncate(cf_db *db, const char *keyspace, const char *cf);

/*
 * Snapshots (db/snapshot.h for the layout and the byte counts): the hard links of a
 * CF's SSTables and MANIFEST under <data_dir>/<keyspace>/<cf>/snapshots/<name>/.
 * Taking, listing and clearing them is serialised (with the automatic "dropped-<µs>"
 * and "truncated-<µs>" ones), so a listing never sees one half made or half removed.
 */

/*
 * Flushes the keyspaces (every keyspace but system when n == 0), then snapshots each
 * of their CFs under name. All or nothing: CF_ERR_INVALID for a bad name
 * (cf_snapshot_name_check) or one a keyspace has already; CF_ERR_NOT_FOUND
 * "Keyspace X does not exist"; on an I/O error what was made is removed again.
 * Fills out (zero-initialised; left empty on an error) with what it took, one entry
 * per CF as cf_db_list_snapshots has them. Logged at info.
 */
cf_status  *cf_db_snapshot(cf_db *db, const char *const *keyspaces, size_t n,
						   const char *name, cf_snapshot_list *out);

/*
 * Appends to out the snapshots on disk named name (all when NULL) of the keyspaces
 * (every keyspace directory, system's and dropped keyspaces' included, when n == 0),
 * sorted by keyspace, name and CF. A named keyspace must be in the schema or have a
 * directory (a dropped one's snapshots outlive it): CF_ERR_NOT_FOUND otherwise.
 */
cf_status  *cf_db_list_snapshots(cf_db *db, const char *const *keyspaces, size_t n,
								 const char *name, cf_snapshot_list *out);

/*
 * Removes the snapshots cf_db_list_snapshots would list (never a live file: a
 * snapshot's files are links) and appends to out what it removed. CF_ERR_NOT_FOUND
 * when a name is given and no keyspace has it; CF_ERR_INVALID for a bad name. On an
 * I/O error out holds every snapshot found, of which those before the failed one are
 * gone (the message counts them). Logged at info.
 */
cf_status  *cf_db_clear_snapshots(cf_db *db, const char *const *keyspaces, size_t n,
								  const char *name, cf_snapshot_list *out);

typedef struct cf_db_replay_stats
{
	uint64_t	records;
	uint64_t	applied;		/* CF updates applied */
	uint64_t	skipped;		/* already in SSTables, or of a dropped CF */
} cf_db_replay_stats;

/* What the replay at open did. */
void		cf_db_replay_stats_get(cf_db *db, cf_db_replay_stats *st);

/*
 * get_indexed_slices on keyspace.cf: the rows whose live values satisfy every
 * expression of the clause, in (token, key) order from clause->start_key (inclusive),
 * at most clause->count, each with the columns pred selects; the shape of
 * cf_read_range's result (db/read.h), cursor on the last row. At least one expression
 * must be an EQ on an indexed column (the first such is served by its index; the
 * others filter the rows under their column's validator). CF_ERR_NOT_FOUND for an
 * unknown keyspace or CF; CF_ERR_INVALID as cf_index_clause_check says, or for a
 * predicate the read path rejects. Free the result with cf_read_rows_free.
 */
cf_status  *cf_db_get_indexed_slices(cf_db *db, const char *keyspace, const char *cf,
									 const cf_index_clause *clause, const cf_predicate *pred,
									 cf_read_rows **out);

/*
 * Waits until no index build is running (each finished, failed or was stopped). For
 * tests, tools and benchmarks; queries never need it.
 */
void		cf_db_wait_index_builds(cf_db *db);

/* Statistics of one CF (cfstats). */
cf_status  *cf_db_cf_stats(cf_db *db, const char *keyspace, const char *cf,
						   cf_cfstore_stats *st);

/* The block cache's statistics (every CF's SSTables share it; util/cache.h). */
void		cf_db_block_cache_stats(cf_db *db, cf_cache_stats *st);

#endif							/* CF_DB_DB_H */
