/*
 * db/read.h — the local read path of one column family: Cassandra 0.7's get,
 * get_slice, get_count, multiget_slice and get_range_slices over a snapshot of the
 * CF's tables, with tombstones and TTLs applied.
 *
 * Assumptions:
 *  - The caller (the CF store) builds a cf_table_set and keeps every table in it
 *    referenced for the duration of a call. Results own copies of every byte, so they
 *    outlive the tables.
 *  - Tokens are computed by the caller (the partitioner is the cluster's, not the
 *    CF's); this layer only compares them as bytes (storage/partitioner.h).
 *  - Nothing is materialised beyond the result: a slice seeks each table's row and
 *    walks only the cells the predicate selects (plus the dead cells in between), so a
 *    slice of count 10 of a row of 1M columns touches O(log n + 10) cells.
 *
 * Semantics (Cassandra 0.7):
 *  - A cell counts and is returned only when live: not a tombstone, not expired at
 *    now_sec, not shadowed by the row deletion or a range tombstone.
 *  - Standard CF: the predicate selects column names. A range walks from start to
 *    finish (empty bounds are open; with reversed, start is the high end and the walk
 *    goes down) and returns at most count live columns. A names predicate returns the
 *    live columns among the names, in comparator order, each name once (comparator
 *    equality), count ignored.
 *  - Super CF without a super column: the predicate selects super column names; each
 *    result is a super column with all its live sub-columns in sub-comparator order
 *    (also when reversed: only the super columns come in reverse order). A super
 *    column without a live sub-column is omitted and does not count.
 *  - Super CF with a super column (ColumnParent.super_column): the predicate selects
 *    that super column's sub-columns; results are columns.
 *  - get: one column, or one super column when the path names only a super column;
 *    CF_ERR_NOT_FOUND when it has no live value (the only NOT_FOUND of the API).
 *  - count: the number of results get_slice would return for the same predicate,
 *    so a range's count caps it (as 0.7's get_count, which counted the slice).
 *  - multiget: every distinct key once, in the order first given, each with its
 *    slice (empty for an absent row), as multiget_slice's map.
 *  - range: rows in (token, key) order within the range, each with its slice. Rows
 *    with no live cell at all ("range ghosts": only tombstones, or everything expired
 *    or shadowed) are omitted, unlike 0.7's empty KeySlices; a live row whose slice is
 *    empty is returned (so a count-0 predicate lists keys). count counts returned
 *    rows. To decide that a row with an empty slice is a ghost its cells are walked
 *    until the first live one.
 *  - Errors: CF_ERR_INVALID, with a message saying what to change, for what the API
 *    rejects: count < 0; a range whose finish comes before its start in the order of
 *    traversal; a super column for a Standard CF; a get path lacking the column
 *    (Standard) or super column (Super); empty names or names (and bounds) not valid
 *    for the comparator; key ranges whose end sorts before their start. Storage
 *    errors (CF_ERR_CORRUPTION, I/O) pass through, prefixed with what was being read.
 *
 * Thread safety: every function may be called from any number of threads at once on
 * the same tables (memtable readers need no lock; sstables are immutable); a result
 * belongs to one thread at a time.
 */
#ifndef CF_DB_READ_H
#define CF_DB_READ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "storage/cell.h"
#include "storage/memtable.h"
#include "storage/rowmerge.h"
#include "storage/sstable.h"
#include "util/arena.h"
#include "util/buf.h"
#include "util/slice.h"
#include "util/status.h"

/*
 * A snapshot of one CF's tables. Memtables newest first (the order does not change
 * results: versions reconcile by timestamp). The caller owns the arrays and keeps
 * every table referenced while a read runs.
 */
typedef struct cf_table_set
{
	cf_col_order order;
	cf_memtable **memtables;
	size_t		n_memtables;
	cf_sstable **sstables;
	size_t		n_sstables;
} cf_table_set;

/* Thrift's SliceRange. Empty start/finish are open; with reversed start is the high end. */
typedef struct cf_slice_range
{
	cf_slice	start;
	cf_slice	finish;
	bool		reversed;
	int32_t		count;
} cf_slice_range;

/* Thrift's SlicePredicate: the names when by_names (column_names wins), else range. */
typedef struct cf_predicate
{
	bool		by_names;
	const cf_slice *names;
	size_t		n_names;
	cf_slice_range range;
} cf_predicate;

/* ---- results: every slice points into the result's arena ---- */

typedef struct cf_read_column
{
	cf_slice	name;
	cf_slice	value;
	int64_t		timestamp;
	int32_t		ttl;			/* seconds it was written with; 0 if none */
} cf_read_column;

typedef struct cf_read_super
{
	cf_slice	name;
	cf_read_column *columns;	/* sub-comparator order */
	size_t		n_columns;
} cf_read_super;

/* One row's answer: super columns (is_super) or columns, in the predicate's order. */
typedef struct cf_row_slice
{
	bool		is_super;
	cf_read_column *columns;
	size_t		n_columns;
	cf_read_super *supers;
	size_t		n_supers;
} cf_row_slice;

typedef struct cf_read_result
{
	cf_row_slice slice;
	cf_arena   *arena;			/* private: owns everything above */
} cf_read_result;

typedef struct cf_read_row
{
	cf_slice	token;
	cf_slice	key;
	cf_row_slice slice;
} cf_read_row;

/* Where a range scan stopped: the last row returned. */
typedef struct cf_read_cursor
{
	cf_slice	token;
	cf_slice	key;
} cf_read_cursor;

typedef struct cf_read_rows
{
	cf_read_row *rows;
	size_t		n_rows;
	bool		has_cursor;		/* a range returned at least one row */
	cf_read_cursor cursor;		/* the last row returned (range only) */
	cf_arena   *arena;			/* private */
} cf_read_rows;

/* Frees a result and everything it points to. NULL is accepted. */
void		cf_read_result_free(cf_read_result *r);
void		cf_read_rows_free(cf_read_rows *r);

/*
 * An empty rows result, for a caller that builds one itself (rows and their bytes from
 * r->arena): the struct lives in its own arena, so only cf_read_rows_free may free it.
 * Errors: CF_ERR_NO_MEMORY.
 */
cf_status  *cf_read_rows_new(cf_read_rows **out);

/*
 * Copies the cursor c into buf (emptied first) and points *out at the copy, which
 * outlives the result c belongs to: for resuming a range (cf_key_range.after) after
 * freeing the page. On failure (cf_buf_status) *out is unchanged.
 */
cf_status  *cf_read_cursor_copy(const cf_read_cursor *c, cf_buf *buf, cf_read_cursor *out);

/* ---- reads ---- */

/*
 * The merge of the row (token, key) across ts: one source per memtable holding
 * anything of the row and per sstable whose bloom filter may hold the key and that
 * has the row. The merge (cf_row_merge_free) holds references on its tables and is
 * not positioned. A row found nowhere gives a merge over no sources.
 */
cf_status  *cf_read_row_merge(const cf_table_set *ts, cf_slice token, cf_slice key,
							  bool reversed, cf_row_merge **out);

/*
 * get_slice: the row's columns (or super columns) selected by pred under the parent
 * super_column (empty: none). *out is a new result, also for an absent row (empty).
 */
cf_status  *cf_read_slice(const cf_table_set *ts, cf_slice token, cf_slice key,
						  cf_slice super_column, const cf_predicate *pred,
						  int32_t now_sec, cf_read_result **out);

/*
 * get: the column at (super_column, column), or with column empty in a Super CF the
 * whole super column (its live sub-columns). CF_ERR_NOT_FOUND if it has no live value.
 */
cf_status  *cf_read_get(const cf_table_set *ts, cf_slice token, cf_slice key,
						cf_slice super_column, cf_slice column, int32_t now_sec,
						cf_read_result **out);

/* get_count: how many results cf_read_slice would return, without copying them. */
cf_status  *cf_read_count(const cf_table_set *ts, cf_slice token, cf_slice key,
						  cf_slice super_column, const cf_predicate *pred,
						  int32_t now_sec, int32_t *count);

/*
 * multiget_slice: tokens[i] is the token of keys[i]. One row per distinct key, in the
 * order of first appearance, each with its slice (empty for an absent row). No cursor.
 */
cf_status  *cf_read_multi(const cf_table_set *ts, const cf_slice *tokens,
						  const cf_slice *keys, size_t n_keys, cf_slice super_column,
						  const cf_predicate *pred, int32_t now_sec, cf_read_rows **out);

/*
 * Thrift's KeyRange, tokens precomputed by the caller.
 *  - by_token: rows whose token is in (start_token, end_token], wrapping past the end
 *    of the ring when start_token >= end_token (equal: the whole ring). Keys unused.
 *  - else by keys: rows from (start_token, start_key) to (end_token, end_key), both
 *    inclusive, where start_token/end_token are the keys' tokens. An empty start_key
 *    starts at the beginning of the ring, an empty end_key runs to its end (their
 *    tokens are then ignored). No wrap: an end before the start is CF_ERR_INVALID.
 * count (>= 0) limits the rows returned. after, if not NULL, resumes strictly after
 * that row (a previous call's cursor), still within the range.
 */
typedef struct cf_key_range
{
	bool		by_token;
	cf_slice	start_token;
	cf_slice	start_key;
	cf_slice	end_token;
	cf_slice	end_key;
	int32_t		count;
	const cf_read_cursor *after;
} cf_key_range;

/* get_range_slices: see cf_key_range and the ghost rule above. */
cf_status  *cf_read_range(const cf_table_set *ts, const cf_key_range *range,
						  cf_slice super_column, const cf_predicate *pred,
						  int32_t now_sec, cf_read_rows **out);

/*
 * A range scan's answer streamed to a consumer instead of built as a cf_read_rows:
 * cf_read_range_sink calls, in order, begin (once per attempt: whatever the sink
 * received before is void), and per row in range order row_begin, its results
 * (column for a Standard CF or a super column's sub-columns, super for whole super
 * columns; each valid only during the call, so a consumer that keeps them copies),
 * and row_end. keep is false for a range ghost (no result was passed for it), which
 * is not part of the answer. A callback's error stops the scan and is returned.
 * Columns and super columns arrive in the order cf_read_range would list them.
 */
typedef struct cf_read_sink
{
	void	   *arg;
	cf_status  *(*begin) (void *arg);
	cf_status  *(*row_begin) (void *arg, cf_slice token, cf_slice key);
	cf_status  *(*column) (void *arg, const cf_read_column *c);
	cf_status  *(*super) (void *arg, const cf_read_super *s);
	cf_status  *(*row_end) (void *arg, bool keep);
} cf_read_sink;

/*
 * get_range_slices into sink: the rows and results of cf_read_range for the same
 * arguments, without copying a Standard row's cells (a super column's sub-columns are
 * still gathered per super column, to be put in sub-comparator order).
 */
cf_status  *cf_read_range_sink(const cf_table_set *ts, const cf_key_range *range,
							   cf_slice super_column, const cf_predicate *pred,
							   int32_t now_sec, const cf_read_sink *sink);

/* ---- testing ---- */

/*
 * Testing only (fault injection): counting from this call, the n-th allocation this
 * module makes itself (1: the next; results, scratch arrays, merges' source lists, the
 * names it copies) and every one after it fail as if memory were exhausted; n 0
 * disarms. Allocations inside the storage layer (row merges, sstable readers) are not
 * counted. Returns whether the failure armed by the previous call happened, so a test
 * can start the failure at each allocation of a read in turn until one run passes
 * untouched. A process-wide setting: arm it only while no other thread reads.
 */
bool		cf_read_test_fail_alloc(unsigned long n);

#endif							/* CF_DB_READ_H */
