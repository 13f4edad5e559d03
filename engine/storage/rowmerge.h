/*
 * storage/rowmerge.h — one row read across every table that holds a piece of it.
 *
 * A row may have versions in the active memtable, in memtables being flushed and in
 * any number of SSTables. Each piece is a cf_cell_source (one vtable over a memtable
 * row or an SSTable row); cf_row_merge walks them together in path order, forward or
 * reversed, and at each path yields the reconciled winner (cf_cell_reconcile) and
 * whether it is shadowed by the row's combined deletion or a range tombstone. The
 * read path skips shadowed and expired cells; compaction keeps tombstones until
 * gc_grace has passed. Nothing is materialised: a merge holds one position per source.
 *
 * Ownership: a merge owns its sources and frees them (a source over a borrowed cell
 * iterator leaves the iterator to its owner). A cell returned by
 * cf_row_merge_cell is valid until the merge moves or is freed.
 *
 * Thread safety: a merge and its sources belong to one thread. The tables beneath
 * them are referenced by the sources and may be read concurrently by others.
 */
#ifndef CF_STORAGE_ROWMERGE_H
#define CF_STORAGE_ROWMERGE_H

#include <stdbool.h>

#include "storage/cell.h"
#include "storage/memtable.h"
#include "storage/sstable.h"
#include "util/status.h"

typedef struct cf_cell_source cf_cell_source;

struct cf_cell_source_ops
{
	/* First cell >= (sc, name); an empty sc and name: the first cell of the row. */
	cf_status  *(*seek) (cf_cell_source *s, cf_slice sc, cf_slice name);
	/* Last cell <= (sc, name); an empty name is open (end of sc, or of the row). */
	cf_status  *(*seek_le) (cf_cell_source *s, cf_slice sc, cf_slice name);
	cf_status  *(*next) (cf_cell_source *s);
	cf_status  *(*prev) (cf_cell_source *s);
	bool		(*valid) (const cf_cell_source *s);
	/* REQUIRES valid. The current cell, as it stays until the source moves or is freed. */
	const cf_cell *(*cell) (cf_cell_source *s);
	/* The row's deletion and tombstones in this table; valid as long as the source. */
	void		(*deletion) (const cf_cell_source *s, cf_deletion *del,
							 const cf_range_tomb **tombs, size_t *n);
	void		(*free) (cf_cell_source *s);
};

struct cf_cell_source
{
	const struct cf_cell_source_ops *ops;
};

/*
 * The row (token, key) of a memtable as a source, holding a reference on mt; *out is
 * NULL when the memtable has nothing of the row (no cell and no deletion).
 */
cf_status  *cf_cell_source_memtable(cf_memtable *mt, cf_slice token, cf_slice key,
									cf_cell_source **out);

/* An SSTable row as a source; takes ownership of row (freed with the source). */
cf_status  *cf_cell_source_sstable(cf_sstable_row *row, cf_cell_source **out);

/*
 * As cf_cell_source_sstable, but over cells, a cell iterator of the row's sstable
 * that the caller keeps across rows: cells is reset to row (cf_sstable_cells_reset)
 * and borrowed, not freed with the source, so the data block it holds serves the next
 * row too. Takes ownership of row. REQUIRES: cells outlives the source and serves no
 * other source meanwhile.
 */
cf_status  *cf_cell_source_sstable_reuse(cf_sstable_row *row, cf_sstable_cells *cells,
										 cf_cell_source **out);

typedef struct cf_row_merge cf_row_merge;

/*
 * A merge over n sources (taking ownership of them, even on error), walking forward
 * or reversed. Invalid until positioned by cf_row_merge_seek. n may be 0.
 */
cf_status  *cf_row_merge_new(const cf_col_order *order, cf_cell_source **sources, size_t n,
							 bool reversed, cf_row_merge **out);
void		cf_row_merge_free(cf_row_merge *m);

/*
 * Positions at the first path in walking order from (sc, name): forward, the first
 * >= it (empty sc and name: the start of the row); reversed, the last <= it (an empty
 * name is open: the end of sc, or with sc empty, of the row).
 */
cf_status  *cf_row_merge_seek(cf_row_merge *m, cf_slice sc, cf_slice name);

/* To the next distinct path in walking order. REQUIRES: valid. */
cf_status  *cf_row_merge_next(cf_row_merge *m);

bool		cf_row_merge_valid(const cf_row_merge *m);

/* REQUIRES: valid. The reconciled winner at the current path. */
const cf_cell *cf_row_merge_cell(const cf_row_merge *m);

/* REQUIRES: valid. Is the winner hidden by the row deletion or a range tombstone? */
bool		cf_row_merge_shadowed(const cf_row_merge *m);

/* The row deletion combined across all sources (the latest). */
cf_deletion cf_row_merge_deletion(const cf_row_merge *m);

/* The range tombstones of all sources (pointers into them), *n of them. */
const cf_range_tomb *const *cf_row_merge_tombs(const cf_row_merge *m, size_t *n);

/* Did any source hold anything of the row (a cell, a deletion or a tombstone)? */
bool		cf_row_merge_exists(const cf_row_merge *m);

#endif							/* CF_STORAGE_ROWMERGE_H */
