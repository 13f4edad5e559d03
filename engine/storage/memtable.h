/*
 * storage/memtable.h — the in-memory table of one column family: every write lands
 * here (after the commit log) and stays readable until the memtable is flushed to an
 * SSTable and dropped.
 *
 * Layout: one skiplist of entries ordered by (token, key, path) — LevelDB's memtable
 * shape rather than a skiplist per row, so a row costs no per-row index head and
 * memory stays near the raw data (each entry: node, 32-byte entry, its names and one
 * version record). A row's deletion and range tombstones live in a header entry with
 * the empty path, which sorts before every cell of the row (names are never empty).
 * A row's key bytes are stored once and shared by its entries.
 *
 * Versions: an entry holds a pointer to its winning version; a write reconciles the new
 * cell with it (cf_cell_reconcile) and, if the new one wins, publishes a new version
 * with a release store. Losing versions are never stored, so overwrites of one column
 * grow memory only by the versions that won.
 *
 * Thread safety: cf_memtable_apply may be called from many threads (an internal mutex
 * serialises writers). Iterators need no lock and may run concurrently with writers;
 * a reader sees each cell either before or after a write, but may see a multi-cell
 * mutation partly applied (as Cassandra 0.7 readers could). Readers hold a reference
 * (cf_memtable_ref) for as long as they use the memtable or any view from it.
 */
#ifndef CF_STORAGE_MEMTABLE_H
#define CF_STORAGE_MEMTABLE_H

#include <stdbool.h>
#include <stdint.h>

#include "storage/cell.h"
#include "storage/mutation.h"
#include "storage/skiplist.h"
#include "util/status.h"

typedef struct cf_memtable cf_memtable;

/* A new empty memtable with one reference. NULL on no memory. */
cf_memtable *cf_memtable_new(const cf_col_order *order);

void		cf_memtable_ref(cf_memtable *mt);

/* Drops a reference; the last one frees the memtable and everything read from it. */
void		cf_memtable_unref(cf_memtable *mt);

/*
 * Applies one CF's changes to the row (token, key), copying every byte. REQUIRES: the
 * names and values were validated by the caller (the db layer) and u's cells name no
 * path twice. CF_ERR_NO_MEMORY leaves the memtable consistent but possibly with a
 * prefix of u applied; the commit log replays the whole mutation at restart.
 */
cf_status  *cf_memtable_apply(cf_memtable *mt, cf_slice token, cf_slice key,
							  const cf_cf_update *u);

/* Bytes held (arena blocks). Any thread. */
size_t		cf_memtable_memory(const cf_memtable *mt);

/* Operations applied (cells + tombstones + row deletions). Any thread. */
uint64_t	cf_memtable_ops(const cf_memtable *mt);

/* Distinct rows. Any thread; may lag a concurrent apply. */
uint64_t	cf_memtable_rows(const cf_memtable *mt);

const cf_col_order *cf_memtable_order(const cf_memtable *mt);

/* ---- reading ---- */

/*
 * An iterator over all entries in (token, key, path) order. Copyable; no cleanup.
 * Each position is either a row header (deletion info) or a cell.
 */
typedef struct cf_mt_iter
{
	cf_skiplist_iter it;
	const cf_memtable *mt;
} cf_mt_iter;

void		cf_mt_iter_init(cf_mt_iter *it, const cf_memtable *mt);
bool		cf_mt_iter_valid(const cf_mt_iter *it);
void		cf_mt_iter_next(cf_mt_iter *it);
void		cf_mt_iter_prev(cf_mt_iter *it);
void		cf_mt_iter_seek_first(cf_mt_iter *it);
void		cf_mt_iter_seek_last(cf_mt_iter *it);

/* First entry of the first row >= (token, key). */
void		cf_mt_iter_seek_row(cf_mt_iter *it, cf_slice token, cf_slice key);

/* First entry of the first row > (token, key). */
void		cf_mt_iter_seek_after_row(cf_mt_iter *it, cf_slice token, cf_slice key);

/* First entry >= (token, key, sc, name). */
void		cf_mt_iter_seek(cf_mt_iter *it, cf_slice token, cf_slice key,
							cf_slice sc, cf_slice name);

/*
 * Last entry <= (token, key, sc, name). An empty name is an open finish: the last
 * entry of super column sc, or, with sc empty too, of the row.
 */
void		cf_mt_iter_seek_le(cf_mt_iter *it, cf_slice token, cf_slice key,
						   cf_slice sc, cf_slice name);

/* Last entry of the row (token, key) or before it: the start of a reversed read. */
void		cf_mt_iter_seek_row_last(cf_mt_iter *it, cf_slice token, cf_slice key);

/* REQUIRES: valid. The bytes live as long as the memtable. */
cf_slice	cf_mt_iter_token(const cf_mt_iter *it);
cf_slice	cf_mt_iter_key(const cf_mt_iter *it);

/* Is the current entry a row header (deletion info) rather than a cell? */
bool		cf_mt_iter_is_header(const cf_mt_iter *it);

/* REQUIRES: valid, not a header. Fills *cell with a snapshot of the current version. */
void		cf_mt_iter_cell(const cf_mt_iter *it, cf_cell *cell);

/*
 * REQUIRES: valid, a header. A snapshot of the row's deletion and range tombstones;
 * the array lives as long as the memtable. Tombstones the row deletion came to shadow
 * after they were written are still listed (they hide nothing more than it does).
 */
void		cf_mt_iter_deletion(const cf_mt_iter *it, cf_deletion *del,
								const cf_range_tomb **tombs, size_t *n_tombs);

#endif							/* CF_STORAGE_MEMTABLE_H */
