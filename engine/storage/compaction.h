/*
 * storage/compaction.h — merging SSTables of one column family into one, and choosing
 * which to merge (size-tiered, as Cassandra 0.7 does).
 *
 * cf_compaction_run reads its inputs row by row in (token, key) order, reconciles each
 * row across the inputs that hold it (storage/rowmerge.h), drops what is superseded or
 * shadowed, purges tombstones older than gc_grace where that is safe, and writes what
 * is left to one new sstable. The rules are in engine/doc/compaction.md. A major
 * compaction is cf_compaction_run over every sstable of the CF; the caller decides
 * which tables to pass (cf_compaction_pick for a minor one) and what to do with the
 * result (rename into place, sync the directory, open it, retire the inputs).
 *
 * Design assumptions:
 *  - The inputs are open sstables of one CF written with the order in the options;
 *    they are only read, never changed or removed.
 *  - Whether a tombstone may be purged depends on data outside the compaction (other
 *    sstables, memtables); the caller answers that per row through a callback. Without
 *    one, nothing is ever purged.
 *  - The read side holds one row and one decoded data block of each input at a time,
 *    so memory is bounded by the number of inputs, not by the size of rows (a wide
 *    row streams through), and each block of an input is read about once.
 */
#ifndef CF_STORAGE_COMPACTION_H
#define CF_STORAGE_COMPACTION_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "storage/sstable.h"
#include "util/env.h"
#include "util/slice.h"
#include "util/status.h"

/*
 * May a table that is NOT in this compaction (another sstable, a memtable) hold data
 * of the row (token, key) older than what the compaction holds? false makes purging
 * the row's old tombstones safe; a false "true" (a bloom filter's) only keeps them
 * longer. Called at most once per row, only for rows with something to purge, from the
 * compacting thread.
 */
typedef bool (*cf_compaction_may_exist_fn) (void *arg, cf_slice token, cf_slice key);

/*
 * Progress, every progress_every rows and once at the end: distinct rows merged so far
 * and input bytes read (estimated from each input's share of rows read; exact at the
 * end). Called from the compacting thread; may set the cancel flag.
 */
typedef void (*cf_compaction_progress_fn) (void *arg, uint64_t rows_done, uint64_t bytes_read);

typedef struct cf_compaction_options
{
	cf_sstable_options sstable;	/* for the output; its order must be the inputs' */
	int32_t		now;			/* server seconds deciding expiry; 0: the env's clock */
	int32_t		gc_before;		/* purge tombstones with local_time < this (now -
								 * gc_grace_seconds); INT32_MIN: purge nothing */
	cf_compaction_may_exist_fn may_exist_elsewhere;	/* NULL: every row may (no purge) */
	void	   *may_exist_arg;
	const atomic_int *cancel;	/* non-zero: stop at the next row; NULL: never */
	cf_compaction_progress_fn progress;	/* NULL: none */
	void	   *progress_arg;
	uint64_t	progress_every;	/* rows between progress calls; 0: 1024 */
} cf_compaction_options;

typedef struct cf_compaction_stats
{
	uint64_t	rows_in;		/* row pieces read, summed over the inputs */
	uint64_t	rows_merged;	/* distinct rows */
	uint64_t	rows_out;		/* rows written (rows_merged - rows that vanished) */
	uint64_t	cells_in;		/* cell versions read, summed over the inputs */
	uint64_t	cells_out;		/* cells written, tombstones included */
	uint64_t	cells_superseded;	/* versions that lost to a newer one of the path */
	uint64_t	cells_shadowed;	/* winners hidden by a row deletion or range tombstone */
	uint64_t	cell_tombs_purged;	/* cell tombstones dropped after gc_grace */
	uint64_t	range_tombs_purged;	/* range tombstones dropped after gc_grace */
	uint64_t	range_tombs_shadowed;	/* range tombstones under the row deletion or
										 * repeated (same range, older) */
	uint64_t	row_dels_purged;	/* row deletions dropped after gc_grace */
	uint64_t	expired_to_tomb;	/* expired cells written as tombstones */
	uint64_t	expired_purged; /* expired cells dropped after gc_grace */
	uint64_t	bytes_in;		/* the inputs' file sizes */
	uint64_t	bytes_out;		/* the output's file size; 0 when none was written */
	int64_t		elapsed_us;		/* wall time of the run (the env's monotonic clock) */
} cf_compaction_stats;

/*
 * Merges inputs[0..n) into a new sstable at out_path (which must not exist) and
 * fills *stats (may be NULL) on success and failure alike.
 *
 * On success the output is finished, synced and closed; the caller renames it into
 * place (or uses it where it is), syncs the directory and opens it. When no row
 * survives, no file is created and stats->rows_out is 0: the inputs can simply be
 * retired. On any error, and on cancel (CF_ERR_CANCELLED), nothing is left at
 * out_path. Errors: CF_ERR_INVALID (n == 0); an input's CF_ERR_CORRUPTION naming its
 * file; the env's (CF_ERR_NO_SPACE ...); CF_ERR_NO_MEMORY.
 *
 * The inputs stay owned by the caller, who must keep them open for the call. Thread
 * safety: one call runs on the calling thread; the inputs may be read concurrently by
 * others meanwhile; cancel may be set from any thread.
 */
cf_status  *cf_compaction_run(cf_env *env, cf_sstable *const *inputs, size_t n,
							  const char *out_path, const cf_compaction_options *opts,
							  cf_compaction_stats *stats);

/* Tables smaller than this all share one bucket (Cassandra's min_sstable_size). */
#define CF_COMPACTION_SMALL_BYTES (50ULL * 1024 * 1024)

/*
 * Size-tiered selection. sizes[i] is sstable i's size in bytes. Tables are bucketed
 * by size (each within 0.5x..1.5x of its bucket's average, or all under
 * CF_COMPACTION_SMALL_BYTES together); the bucket of at least min_threshold tables
 * with the smallest average is chosen, at most max_threshold of it, smallest first.
 * Writes their indices to chosen (room for n entries; also scratch) in ascending size
 * (ties by index) and their count to *n_chosen; 0 when no bucket qualifies or when
 * min_threshold or max_threshold is <= 0 (compaction disabled). A min_threshold of 1
 * counts as 2 (one table is not a merge); a max_threshold below min_threshold counts
 * as min_threshold. Pure: no I/O, no allocation, any thread.
 */
void		cf_compaction_pick(const uint64_t *sizes, size_t n, int min_threshold,
							   int max_threshold, size_t *chosen, size_t *n_chosen);

#endif							/* CF_STORAGE_COMPACTION_H */
