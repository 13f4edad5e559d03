/*
 * db/cfstore.h — one column family on one node: its active memtable, the memtables
 * being flushed, its SSTables, the flusher, its MANIFEST, truncate and snapshots.
 *
 * Write barrier (Cassandra's switch lock): the db holds a read/write barrier; a write
 * holds it shared across its commit-log append and its memtable applies, and a
 * memtable switch holds it exclusively while it records the commit-log position. So
 * every record before that position is in the old memtable or earlier, and every later
 * one in the new memtable: after the old one is flushed, replay may skip this CF's
 * records before the position.
 *
 * Durability: the MANIFEST (engine/doc/cfstore_format.md), rewritten atomically after
 * every flush, compaction or truncate, lists the live SSTables and the replay position.
 * Files in the directory that it does not list are leftovers of a crash and removed at
 * open. One flusher thread per CF flushes memtables in switch order, so the replay
 * position only grows.
 *
 * Backpressure: at most max_pending_flushes switched memtables wait for the flusher;
 * beyond that cf_cfstore_apply waits, and fails with the flusher's error if flushing
 * keeps failing (a full disk), rather than growing memory without bound.
 *
 * Thread safety: every function may be called from any thread, with the barrier
 * rules above for apply and switch.
 */
#ifndef CF_DB_CFSTORE_H
#define CF_DB_CFSTORE_H

#include <stdbool.h>
#include <stdint.h>

#include "db/read.h"
#include "storage/commitlog.h"
#include "storage/memtable.h"
#include "storage/sstable.h"
#include "util/env.h"

typedef struct cf_cfstore cf_cfstore;

typedef struct cf_cfstore_options
{
	cf_env	   *env;
	const char *dir;			/* the CF's own directory (created if missing) */
	const char *name;			/* the CF's name: file names and messages */
	uint32_t	cf_id;
	cf_col_order order;
	cf_sstable_options sstable; /* block size, compression, bloom; order is set from order */
	size_t		memtable_max_bytes; /* a switch is due past this; 0: 64 MiB */
	uint64_t	memtable_max_ops;	/* 0: 300,000 */
	int64_t		memtable_max_age_us;	/* 0: 60 minutes */
	int			max_pending_flushes;	/* 0: 2 */
	cf_cache   *block_cache;	/* SSTables are read through it (referenced); NULL: none */
	/* Called by the flusher after a flush is durable: the db tells the commit log. */
	void		(*on_flushed) (void *arg, uint32_t cf_id, cf_commitlog_pos pos);
	void	   *arg;
} cf_cfstore_options;

/* Opens (or creates) the CF's directory, its MANIFEST and SSTables; starts the flusher. */
cf_status  *cf_cfstore_open(const cf_cfstore_options *opts, cf_cfstore **out);

/*
 * Stops the flusher after the memtables already switched are flushed, then frees the
 * store. The active memtable is NOT flushed: the commit log still holds it (the db
 * switches and waits first for a clean shutdown).
 */
cf_status  *cf_cfstore_close(cf_cfstore *cf);

/* Records before this position are durable in SSTables (from the MANIFEST and flushes). */
cf_commitlog_pos cf_cfstore_replay_position(cf_cfstore *cf);

/*
 * Backpressure, before a write is logged: waits while too many switched memtables wait
 * for the flusher, and returns the flusher's error instead of waiting when flushing
 * keeps failing (a full disk). A write refused here never reaches the commit log.
 */
cf_status  *cf_cfstore_admit(cf_cfstore *cf);

/*
 * Applies u to the row in the active memtable. REQUIRES: the barrier held shared, and
 * cf_cfstore_admit passed for this write. Fails only when memory runs out.
 * *switch_due is set when a threshold (size, ops, age) is crossed: the caller should
 * switch.
 */
cf_status  *cf_cfstore_apply(cf_cfstore *cf, cf_slice token, cf_slice key,
							 const cf_cf_update *u, bool *switch_due);

/* Is a switch due now (a non-empty memtable past a threshold)? For a periodic check. */
bool		cf_cfstore_switch_due(cf_cfstore *cf);

/* New memtable thresholds (0 keeps the current one); any thread, effective at once. */
void		cf_cfstore_set_thresholds(cf_cfstore *cf, size_t max_bytes, uint64_t max_ops,
									  int64_t max_age_us);

/*
 * Replaces the active memtable with an empty one and queues the old one for flushing
 * with the commit-log position pos. REQUIRES: the barrier held exclusively. Cheap: no
 * I/O.
 */
cf_status  *cf_cfstore_switch(cf_cfstore *cf, cf_commitlog_pos pos);

/*
 * Waits until every memtable switched so far is flushed, or returns the error of the
 * first flush attempt that fails after the call began (the flusher keeps retrying).
 */
cf_status  *cf_cfstore_wait_flushed(cf_cfstore *cf);

/*
 * A consistent set of tables for a read (db/read.h's cf_table_set: memtables newest
 * first — active, then pending flushes — and SSTables oldest first), each referenced
 * until released.
 */
typedef cf_table_set cf_cfstore_view;

cf_status  *cf_cfstore_view_get(cf_cfstore *cf, cf_cfstore_view *view);
void		cf_cfstore_view_release(cf_cfstore_view *view);

/*
 * Drops every row: the memtables are discarded (not flushed) and the SSTables removed,
 * with the replay position moved to pos so replay does not bring them back.
 * REQUIRES: the barrier held exclusively (no write in flight).
 */
cf_status  *cf_cfstore_truncate(cf_cfstore *cf, cf_commitlog_pos pos);

/*
 * Hard-links the live SSTables and the MANIFEST into <dir>/snapshots/<name>/. Flush
 * first (the db does) to include the memtables. name as cf_snapshot_name_check
 * (db/snapshot.h) allows; CF_ERR_BUSY if the CF has a snapshot of that name.
 */
cf_status  *cf_cfstore_snapshot(cf_cfstore *cf, const char *name);

/*
 * Replaces the SSTables `old` (n of them, all live in cf) with `replacement` (NULL if
 * the merge left nothing), atomically in the MANIFEST; the old files are unlinked
 * (readers that hold them keep reading through their open descriptors). Takes a
 * reference on replacement. For compaction.
 */
cf_status  *cf_cfstore_replace(cf_cfstore *cf, cf_sstable *const *old, size_t n,
							   cf_sstable *replacement);

/* A path for a new SSTable of this CF (a fresh generation); the caller frees it. */
char	   *cf_cfstore_new_sstable_path(cf_cfstore *cf);

typedef struct cf_cfstore_stats
{
	size_t		memtable_bytes;
	uint64_t	memtable_ops;
	int			pending_flushes;
	size_t		sstables;
	uint64_t	sstable_bytes;
	uint64_t	flushes;
	uint64_t	flush_failures;
	/*
	 * Estimates for query planners: the rows and the cells of the memtables (active and
	 * pending) and the SSTables, summed; a row (or cell) in several of them counts once
	 * in each, as Cassandra's estimatedKeys does, and memtable cells are operations
	 * (an overwrite counts twice) until flushed.
	 */
	uint64_t	est_rows;
	uint64_t	est_cells;
} cf_cfstore_stats;

void		cf_cfstore_stats_get(cf_cfstore *cf, cf_cfstore_stats *st);

#endif							/* CF_DB_CFSTORE_H */
