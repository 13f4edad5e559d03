/*
 * storage/cell.h — the data model as stored: cells (column versions), deletions and
 * range tombstones, the order of names within a row, and how versions reconcile.
 *
 * A row holds cells sorted by their path. In a Standard CF the path is the column name;
 * in a Super CF it is (super column name, sub-column name), sorted by the comparator
 * and then the sub-comparator, so every super column is a contiguous run of cells and a
 * slice of one super column is a slice of the row (this is what makes a slice of a
 * super column with 1M sub-columns O(log n), which Cassandra 0.6/0.7 could not do).
 * Cassandra rejects empty column and super column names, so an empty `sc` means
 * "no super column" and an empty slice bound means "unbounded".
 *
 * Deletion is by tombstones, never by removing data:
 *  - a cell tombstone (CF_CELL_DELETED) hides older versions of one column;
 *  - a row deletion hides every cell with timestamp <= its timestamp;
 *  - a range tombstone hides the cells of a name range with timestamp <= its
 *    timestamp: a range of columns (Standard), a range of whole super columns (Super,
 *    sc empty), or a range of sub-columns inside one super column (sc set; both bounds
 *    empty deletes the whole super column).
 * An expiring cell (CF_CELL_EXPIRING) reads as deleted once its expiry time has
 * passed, and from then on shadows older versions exactly like a tombstone written at
 * its timestamp. Tombstones are kept for gc_grace_seconds past their local_time.
 *
 * Times: timestamps are the client's microseconds (any int64); local times are the
 * server's seconds since the epoch (int32, Cassandra's localDeletionTime).
 */
#ifndef CF_STORAGE_CELL_H
#define CF_STORAGE_CELL_H

#include <stdbool.h>
#include <stdint.h>

#include "storage/comparator.h"
#include "util/slice.h"

#define CF_CELL_DELETED 0x01	/* a tombstone; value is empty */
#define CF_CELL_EXPIRING 0x02	/* has a ttl; local_time is its expiry time */

/* Cassandra's limits: a name is at most 64 KiB; a value is bounded by the frame. */
#define CF_NAME_MAX 65535
#define CF_KEY_MAX 65535

typedef struct cf_cell
{
	cf_slice	sc;				/* super column name; empty in a Standard CF */
	cf_slice	name;
	cf_slice	value;
	int64_t		timestamp;
	int32_t		ttl;			/* seconds, when EXPIRING; else 0 */
	int32_t		local_time;		/* DELETED: deletion time; EXPIRING: expiry time */
	uint8_t		flags;
} cf_cell;

/* A row (or whole super column) deletion; timestamp CF_LIVE means none. */
typedef struct cf_deletion
{
	int64_t		timestamp;
	int32_t		local_time;
} cf_deletion;

#define CF_LIVE INT64_MIN

static inline cf_deletion
cf_deletion_none(void)
{
	cf_deletion d = {CF_LIVE, INT32_MAX};

	return d;
}

static inline bool
cf_deletion_is_live(cf_deletion d)
{
	return d.timestamp == CF_LIVE;
}

/* The later of two deletions (by timestamp, then local time). */
static inline cf_deletion
cf_deletion_max(cf_deletion a, cf_deletion b)
{
	if (a.timestamp != b.timestamp)
		return a.timestamp > b.timestamp ? a : b;
	return a.local_time >= b.local_time ? a : b;
}

typedef struct cf_range_tomb
{
	cf_slice	sc;				/* empty: top-level names; else sub-columns of sc */
	cf_slice	start;			/* inclusive; empty = from the first */
	cf_slice	finish;			/* inclusive; empty = to the last */
	cf_deletion del;
} cf_range_tomb;

/* How the names of a column family sort. */
typedef struct cf_col_order
{
	bool		super;
	cf_type		cmp;			/* CompareWith: column names, or super column names */
	cf_type		subcmp;			/* CompareSubcolumnsWith (Super CFs only) */
} cf_col_order;

/* Order of two paths (sc, name) in a row. */
int			cf_path_cmp(const cf_col_order *o, cf_slice sc_a, cf_slice name_a,
						cf_slice sc_b, cf_slice name_b);

static inline int
cf_cell_cmp(const cf_col_order *o, const cf_cell *a, const cf_cell *b)
{
	return cf_path_cmp(o, a->sc, a->name, b->sc, b->name);
}

/* Is name within [start, finish] under type t, empty bounds being open? */
bool		cf_name_in_range(cf_type t, cf_slice name, cf_slice start, cf_slice finish);

/* Does the range tombstone cover the path (sc, name)? (Its timestamp not considered.) */
bool		cf_range_tomb_covers(const cf_col_order *o, const cf_range_tomb *t,
								 cf_slice sc, cf_slice name);

/*
 * Which of two versions of the same column wins: >0 a, <0 b, 0 identical. Higher
 * timestamp wins; on a tie a tombstone wins over a live cell, then the greater value
 * (bytes), then the later local time — a total order, so every replica picks the same.
 */
int			cf_cell_reconcile(const cf_cell *a, const cf_cell *b);

/* Is the cell a live value at now_sec (not a tombstone, not expired)? */
static inline bool
cf_cell_live(const cf_cell *c, int32_t now_sec)
{
	if (c->flags & CF_CELL_DELETED)
		return false;
	return !(c->flags & CF_CELL_EXPIRING) || c->local_time > now_sec;
}

/*
 * When a dead cell (tombstone or expired) became dead, in server seconds, for
 * gc_grace purging; INT32_MAX for a live cell.
 */
static inline int32_t
cf_cell_death_time(const cf_cell *c)
{
	return (c->flags & (CF_CELL_DELETED | CF_CELL_EXPIRING)) ? c->local_time : INT32_MAX;
}

/* Is the cell shadowed by a deletion (its timestamp <= the deletion's)? */
static inline bool
cf_deletion_shadows(cf_deletion d, int64_t timestamp)
{
	return d.timestamp != CF_LIVE && timestamp <= d.timestamp;
}

#endif							/* CF_STORAGE_CELL_H */
