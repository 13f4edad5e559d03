/*
 * storage/sstable.h — SSTables: immutable sorted files of rows and cells, written
 * once from a memtable (or by compaction) and then read by many threads.
 *
 * Rows are sorted by (token bytes, key bytes), each compared as memcmp-ordered bytes;
 * the cells of a row by cf_path_cmp under the CF's cf_col_order (a super column is a
 * contiguous run of cells). Cells are stored in zstd-compressed, checksummed data
 * blocks (storage/block.h); a key index gives each row's deletion, range tombstones,
 * cell count and where its cells start; a row spanning more than one data block also
 * has a two-level column index, so a seek anywhere in a row of 10M columns (or a super
 * column of 1M sub-columns) reads one key-index block, one column-index block and one
 * or two data blocks. A bloom filter over row keys lets a read skip the file. The
 * format is documented in engine/doc/sstable_format.md.
 *
 * Writing: cf_sstable_writer_open → (begin_row → add_cell… → end_row)… → finish, which
 * writes the indexes, bloom, statistics and footer, syncs and closes the file. The
 * caller then renames it into place and syncs the directory. A writer belongs to one
 * thread. Calls out of order (rows or cells not strictly increasing, a cell outside a
 * row) fail with CF_ERR_INVALID and poison the writer: the file is never written
 * wrong, and the caller must abandon it.
 *
 * Reading: cf_sstable_open validates the footer, the top-level index, the bloom filter
 * and the statistics; everything else is read on demand (from the file mapped in
 * memory, or through pread) and verified (checksum and bounds) every time it is read
 * from the file, so corruption is CF_ERR_CORRUPTION naming the file and offset, never
 * a crash or a huge allocation. Decoded blocks are kept in the block cache the table
 * was opened with (cf_sstable_open_cached), shared by every reader of every table
 * using it. An open sstable is immutable and may be used from any number of threads;
 * iterators, rows and cell iterators belong to one thread at a time, and iterators
 * hold (pin) the blocks they are on.
 *
 * All file I/O goes through the cf_env given at open.
 */
#ifndef CF_STORAGE_SSTABLE_H
#define CF_STORAGE_SSTABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "storage/cell.h"
#include "storage/memtable.h"
#include "util/cache.h"
#include "util/env.h"
#include "util/slice.h"
#include "util/status.h"

typedef struct cf_sstable_options
{
	cf_col_order order;			/* how the CF's names sort */
	size_t		block_size;		/* uncompressed data-block target; 0: 2 KiB (key-index
								 * blocks: half of it; column-index blocks: 32 times) */
	int			zstd_level;		/* 0: 3; < 0: store every block uncompressed */
	unsigned	bloom_bits_per_key;	/* 0: 10 */
} cf_sstable_options;

/* Counts describing one sstable (written by the writer, read back by the reader). */
typedef struct cf_sstable_stats
{
	uint64_t	rows;
	uint64_t	cells;
	uint64_t	tombstones;		/* cell tombstones + range tombstones + row deletions */
	uint64_t	expiring;		/* cells with a ttl */
	uint64_t	raw_bytes;		/* uncompressed data blocks (records as written) */
	uint64_t	file_bytes;		/* the whole file on disk */
	uint64_t	data_blocks;	/* data blocks (column-index blocks not counted) */
	uint64_t	index_blocks;	/* key-index blocks */
	uint64_t	wide_rows;		/* rows with a column index (more than one data block) */
	int64_t		min_timestamp;	/* of cells, deletions and tombstones; INT64_MAX if none */
	int64_t		max_timestamp;	/* INT64_MIN if none */
	int32_t		max_local_deletion_time;	/* of tombstones and expiring cells; INT32_MIN if none */
} cf_sstable_stats;

/* ---- writing (in sstable_writer.c) ---- */

typedef struct cf_sstable_writer cf_sstable_writer;

/*
 * Creates path (which must not exist: CF_ERR_BUSY) and returns a writer in *out.
 * opts is copied. Errors: the env's; CF_ERR_INVALID for a block size outside
 * [256 B, 16 MiB]; CF_ERR_NO_MEMORY. On error nothing is left behind.
 */
cf_status  *cf_sstable_writer_open(cf_env *env, const char *path,
								   const cf_sstable_options *opts, cf_sstable_writer **out);

/*
 * Starts the row (token, key) with its row deletion (cf_deletion_none() for none) and
 * range tombstones (copied). REQUIRES: no row open; (token, key) greater than the
 * previous row's; key and token at most CF_KEY_MAX bytes. Errors: CF_ERR_INVALID.
 */
cf_status  *cf_sstable_writer_begin_row(cf_sstable_writer *w, cf_slice token, cf_slice key,
										cf_deletion del, const cf_range_tomb *tombs,
										size_t n_tombs);

/*
 * Adds a cell (copied) to the open row. REQUIRES: its path greater than the row's
 * previous cell's under the CF's order; a non-empty name of at most CF_NAME_MAX
 * bytes; a super column exactly when the CF is Super; flags DELETED or EXPIRING or
 * neither. Errors: CF_ERR_INVALID; the env's (a block written out may fail).
 */
cf_status  *cf_sstable_writer_add_cell(cf_sstable_writer *w, const cf_cell *cell);

/* Ends the open row. Errors: CF_ERR_INVALID (no row open); the env's. */
cf_status  *cf_sstable_writer_end_row(cf_sstable_writer *w);

/*
 * Writes the key index, top-level index, bloom filter, statistics and footer, syncs and
 * closes the file, and frees w. stats, if not NULL, receives the statistics. On any
 * error (the writer poisoned earlier, a row still open, a failed write or sync) the
 * file is removed, w is freed all the same and the error returned.
 */
cf_status  *cf_sstable_writer_finish(cf_sstable_writer *w, cf_sstable_stats *stats);

/* Closes and removes the partial file and frees w. NULL is accepted. */
void		cf_sstable_writer_abandon(cf_sstable_writer *w);

/*
 * Writes every row of mt (header deletions, tombstones and cells) to a new sstable at
 * path with opts (whose order must be the memtable's). The caller holds a reference on
 * mt. On error no file is left.
 */
cf_status  *cf_sstable_write_memtable(cf_env *env, const char *path, cf_memtable *mt,
									  const cf_sstable_options *opts, cf_sstable_stats *stats);

/* ---- reading (in sstable_reader.c) ---- */

typedef struct cf_sstable cf_sstable;
typedef struct cf_sstable_iter cf_sstable_iter;
typedef struct cf_sstable_row cf_sstable_row;
typedef struct cf_sstable_cells cf_sstable_cells;

/*
 * Opens path, reads and validates the footer, the top-level index, the bloom filter
 * and the statistics, and returns it in *out with one reference. order must be the
 * CF's (it is not stored in the file). Errors: the env's (CF_ERR_NOT_FOUND ...);
 * CF_ERR_CORRUPTION naming the file (a different magic or version included: "was it
 * written by a newer colfam?"); CF_ERR_NO_MEMORY.
 */
cf_status  *cf_sstable_open(cf_env *env, const char *path, const cf_col_order *order,
							cf_sstable **out);

/*
 * As cf_sstable_open, reading the key-index, column-index and data blocks through
 * cache (util/cache.h), which the table references until it is freed; its entries are
 * erased from the cache then. NULL: no cache (every reader decodes its own blocks).
 * One cache may serve any number of tables.
 */
cf_status  *cf_sstable_open_cached(cf_env *env, const char *path, const cf_col_order *order,
								   cf_cache *cache, cf_sstable **out);

/* Reference counting; thread-safe. The last unref closes the file. */
void		cf_sstable_ref(cf_sstable *t);
void		cf_sstable_unref(cf_sstable *t);

const char *cf_sstable_path(const cf_sstable *t);
const cf_sstable_stats *cf_sstable_get_stats(const cf_sstable *t);

/* The first and last rows' (token, key); empty for a file without rows. Live with t. */
void		cf_sstable_first_row(const cf_sstable *t, cf_slice *token, cf_slice *key);
void		cf_sstable_last_row(const cf_sstable *t, cf_slice *token, cf_slice *key);

/*
 * A sample of row keys for split estimates: the first row of each key-index block,
 * in order. i < cf_sstable_sample_count(t). Live with t.
 */
size_t		cf_sstable_sample_count(const cf_sstable *t);
void		cf_sstable_sample(const cf_sstable *t, size_t i, cf_slice *token, cf_slice *key);

/* false if key is certainly not in t (the bloom filter); no I/O. */
bool		cf_sstable_may_contain(const cf_sstable *t, cf_slice key);

/*
 * Blocks read from the file since open (all threads), the ones served by the cache not
 * counted: for tests and metrics.
 */
uint64_t	cf_sstable_block_reads(const cf_sstable *t);

/*
 * Looks up the row (token, key): *out is a new row handle, or NULL if absent (the
 * bloom filter answers most misses without I/O). Errors: CF_ERR_CORRUPTION, the env's.
 */
cf_status  *cf_sstable_get(cf_sstable *t, cf_slice token, cf_slice key, cf_sstable_row **out);

/*
 * Row iterator in (token, key) order. It holds a reference on t. Moves return NULL or
 * an error (the iterator is then invalid); a new iterator is invalid until positioned.
 */
cf_status  *cf_sstable_iter_new(cf_sstable *t, cf_sstable_iter **out);
void		cf_sstable_iter_free(cf_sstable_iter *it);

/*
 * Whether the blocks it reads that the cache does not hold are added to it (default
 * true). A one-pass walk over a whole table (compaction) sets false, so it does not
 * evict what readers use; blocks already cached are used all the same. Rows made by
 * the iterator, and their cell iterators, inherit the setting.
 */
void		cf_sstable_iter_fill_cache(cf_sstable_iter *it, bool fill);
cf_status  *cf_sstable_iter_first(cf_sstable_iter *it);

/* The first row >= (token, key). */
cf_status  *cf_sstable_iter_seek(cf_sstable_iter *it, cf_slice token, cf_slice key);
cf_status  *cf_sstable_iter_next(cf_sstable_iter *it);
bool		cf_sstable_iter_valid(const cf_sstable_iter *it);

/* REQUIRES valid. Slices valid until the iterator moves. */
cf_slice	cf_sstable_iter_token(const cf_sstable_iter *it);
cf_slice	cf_sstable_iter_key(const cf_sstable_iter *it);

/* REQUIRES valid. A new handle on the current row (independent of the iterator). */
cf_status  *cf_sstable_iter_row(cf_sstable_iter *it, cf_sstable_row **out);

/*
 * A row handle holds a reference on its sstable (and, for a row within one data block,
 * that block, which its cell iterators then use without a lookup); its slices live
 * until it is freed.
 */
void		cf_sstable_row_free(cf_sstable_row *row);
cf_slice	cf_sstable_row_token(const cf_sstable_row *row);
cf_slice	cf_sstable_row_key(const cf_sstable_row *row);
cf_deletion cf_sstable_row_deletion(const cf_sstable_row *row);
const cf_range_tomb *cf_sstable_row_tombs(const cf_sstable_row *row, size_t *n);
uint64_t	cf_sstable_row_cell_count(const cf_sstable_row *row);

/* Does the row span more than one data block (and so have a column index)? */
bool		cf_sstable_row_has_column_index(const cf_sstable_row *row);

/*
 * Cell iterator over one row, invalid until positioned. REQUIRES: row outlives it.
 * Moves return NULL or an error (the iterator is then invalid). The current cell's
 * slices are valid until the iterator moves or is freed.
 */
cf_status  *cf_sstable_cells_new(const cf_sstable_row *row, cf_sstable_cells **out);
void		cf_sstable_cells_free(cf_sstable_cells *ci);

/*
 * Points ci at another row of the same sstable, as if it were new for that row, but
 * keeps the data block it has loaded: a walk over consecutive rows (compaction) then
 * reads and decodes each data block once, not once per row in it. ci is invalid until
 * positioned. REQUIRES: row is of the sstable ci was created for and outlives ci's
 * use of it; the row ci was on may already be freed. Any order of rows is correct;
 * only a row in the block loaded saves the read.
 */
void		cf_sstable_cells_reset(cf_sstable_cells *ci, const cf_sstable_row *row);
cf_status  *cf_sstable_cells_first(cf_sstable_cells *ci);
cf_status  *cf_sstable_cells_last(cf_sstable_cells *ci);

/* The first cell >= (sc, name) (an empty name: the start of sc). */
cf_status  *cf_sstable_cells_seek(cf_sstable_cells *ci, cf_slice sc, cf_slice name);

/*
 * The last cell <= (sc, name). An empty name is an open finish: the end of super
 * column sc, or with sc empty too, the end of the row (as cf_mt_iter_seek_le).
 */
cf_status  *cf_sstable_cells_seek_le(cf_sstable_cells *ci, cf_slice sc, cf_slice name);
cf_status  *cf_sstable_cells_next(cf_sstable_cells *ci);
cf_status  *cf_sstable_cells_prev(cf_sstable_cells *ci);
bool		cf_sstable_cells_valid(const cf_sstable_cells *ci);

/* REQUIRES valid. */
void		cf_sstable_cells_cell(const cf_sstable_cells *ci, cf_cell *cell);

/* REQUIRES valid. The current cell in place: it stays until ci moves or is freed. */
const cf_cell *cf_sstable_cells_current(const cf_sstable_cells *ci);

#endif							/* CF_STORAGE_SSTABLE_H */
