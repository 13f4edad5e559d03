/*
 * storage/sstable_writer.c — writes one SSTable from rows given in order (see
 * sstable.h; the format is engine/doc/sstable_format.md).
 *
 * Design assumptions:
 *  - Rows and cells arrive sorted; the writer checks the order (CF_ERR_INVALID) rather
 *    than sorting, so it streams: memory is one data block, one key-index block, the
 *    column index of the current row (one entry per data block of it, ~1/3000 of its
 *    cells) and the row keys for the bloom filter, which is sized and built at finish
 *    because the row count is not known before.
 *  - The key index is sparse (format version 2): a data block in which rows start gets
 *    one entry, its first row and its handle, emitted when the block is written (only
 *    then is the handle known); the rows of the block are found by their row-start
 *    records. A row still open when its first block is written is a wide row: its
 *    row-start record, still in that block's buffer, is retagged ROW_WIDE before the
 *    block is sealed, its blocks are collected in a column index, the block in
 *    progress is written at end_row (so the row's last data block is known), the
 *    column-index blocks follow, and then the row's own entry.
 *  - The row-start record is written together with the row's first cell (or at end_row
 *    for a row without cells), so every data block of a wide row holds at least one of
 *    its cells and the column index's first paths are real cells.
 *  - Any error poisons the writer: later calls fail and finish removes the file.
 */
#include "storage/sstable.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#define ZSTD_STATIC_LINKING_ONLY	/* ZSTD_c_literalCompressionMode */
#include <zstd.h>

#include "storage/block.h"
#include "storage/bloom.h"
#include "storage/sstable_format.h"
#include "util/buf.h"
#include "util/crc32c.h"

struct cf_sstable_writer
{
	cf_env	   *env;
	cf_wfile   *file;
	char	   *path;
	cf_sstable_options opt;
	size_t		kidx_size;		/* key-index block target */
	size_t		colidx_size;	/* column-index block target */
	ZSTD_CCtx  *cctx;
	bool		failed;			/* poisoned: every later call fails */
	uint64_t	off;			/* bytes written to the file */

	cf_buf		data;			/* data block in progress (uncompressed) */
	cf_buf		sealed;			/* scratch: a block in stored form */
	cf_buf		kblock;			/* key-index block in progress */
	cf_buf		kfirst;			/* its first row: bytes token | bytes key */
	cf_buf		klast;			/* its last row, the same way */
	cf_buf		top;			/* top-level index entries */
	cf_buf		keys;			/* every row key, as bytes, for the bloom filter */

	/* rows ended inside the data block in progress (bytes token | bytes key) */
	bool		blk_rows;		/* any? */
	cf_buf		blk_first;		/* the first: record 0 of the block */
	cf_buf		blk_last;		/* the last */

	/* the open row */
	bool		in_row;
	cf_buf		row_tk;			/* token then key */
	size_t		row_tok_len;
	cf_buf		row_meta;		/* encoded deletion and tombstones */
	uint64_t	row_cells;
	bool		row_started;	/* its row-start record is written */
	uint64_t	row_off;		/* offset of that record in its block */
	bool		start_known;	/* its first block is written: a wide row */
	cf_block_handle start;
	cf_buf		last_path;		/* bytes sc | bytes name of its last cell */
	cf_slice	last_sc;		/* into last_path */
	cf_slice	last_name;
	bool		in_block;		/* the block in progress holds cells of the row */
	cf_buf		block_first;	/* bytes sc | bytes name: first of them */
	cf_buf		colidx;			/* column index entries of the row */

	/* the previous row, for the order check */
	bool		have_prev;
	cf_buf		prev_tk;
	size_t		prev_tok_len;

	cf_buf		first_tk;		/* first row: bytes token | bytes key */
	cf_sstable_stats stats;
};

static void
put_deletion(cf_buf *b, cf_deletion d)
{
	cf_buf_put_u64(b, (uint64_t) d.timestamp);
	cf_buf_put_u32(b, (uint32_t) d.local_time);
}

/* Poisons w with s (which it returns) unless s is NULL. */
static cf_status *
fail(cf_sstable_writer *w, cf_status *s)
{
	if (s)
		w->failed = true;
	return s;
}

/* A caller's bug: CF_ERR_INVALID "<path>: <what>", and the writer poisoned. */
static cf_status *
invalid(cf_sstable_writer *w, const char *what)
{
	return fail(w, cf_status_make(CF_ERR_INVALID, "%s: %s", w->path, what));
}

/* Points sc and name at the two byte strings of an encoded path (bytes sc | bytes name). */
static void
path_of(const cf_buf *b, cf_slice *sc, cf_slice *name)
{
	cf_rd		r;

	cf_rd_init(&r, b->data, b->len);
	sc->len = (size_t) cf_rd_varint(&r);
	sc->p = cf_rd_bytes(&r, sc->len);
	name->len = (size_t) cf_rd_varint(&r);
	name->p = cf_rd_bytes(&r, name->len);
}

static cf_status *
poisoned(const cf_sstable_writer *w)
{
	return cf_status_make(CF_ERR_INVALID, "%s: sstable writer failed earlier; abandon it", w->path);
}

static void
note_timestamp(cf_sstable_writer *w, int64_t ts)
{
	if (ts < w->stats.min_timestamp)
		w->stats.min_timestamp = ts;
	if (ts > w->stats.max_timestamp)
		w->stats.max_timestamp = ts;
}

static void
note_local_time(cf_sstable_writer *w, int32_t lt)
{
	if (lt > w->stats.max_local_deletion_time)
		w->stats.max_local_deletion_time = lt;
}

/* Seals raw into w->sealed, appends it to the file and returns its handle. */
static cf_status *
write_block(cf_sstable_writer *w, const cf_buf *raw, cf_block_handle *h)
{
	cf_status  *s;

	cf_buf_reset(&w->sealed);
	s = cf_block_seal(raw->data, raw->len, w->opt.zstd_level, w->cctx, &w->sealed, NULL);
	if (s == NULL)
		s = cf_wfile_append(w->file, w->sealed.data, w->sealed.len);
	if (s)
		return fail(w, s);
	h->offset = w->off;
	h->size = w->sealed.len;
	w->off += w->sealed.len;
	return NULL;
}

static cf_status *
flush_kblock(cf_sstable_writer *w)
{
	cf_block_handle h;
	cf_status  *s;

	if (w->kblock.len == 0)
		return NULL;
	if ((s = write_block(w, &w->kblock, &h)) != NULL)
		return s;
	cf_buf_put(&w->top, w->kfirst.data, w->kfirst.len);
	cf_buf_put(&w->top, w->klast.data, w->klast.len);
	cf_block_handle_put(&w->top, h);
	cf_buf_reset(&w->kblock);
	w->stats.index_blocks++;
	if (!cf_buf_ok(&w->top))
		return fail(w, cf_buf_status(&w->top));
	/* the top-level index is one block: fail now, not after the whole file is written */
	if (w->top.len > CF_BLOCK_MAX_RAW)
		return fail(w, cf_status_make(CF_ERR_TOO_LARGE,
									  "top-level index of %s: %zu bytes after %" PRIu64
									  " key-index blocks exceeds the block limit of %zu "
									  "(its entries hold each key-index block's first and last "
									  "token and key: keys too long for one sstable)",
									  w->path, w->top.len, w->stats.index_blocks,
									  CF_BLOCK_MAX_RAW));
	return NULL;
}

/*
 * Appends a key-index entry (entry[0..n)) whose first row is `first` and whose last row
 * is `last` (each bytes token | bytes key); writes the key-index block once full.
 */
static cf_status *
emit_entry(cf_sstable_writer *w, const uint8_t *entry, size_t n, const cf_buf *first,
		   const cf_buf *last)
{
	if (w->kblock.len == 0)
	{
		cf_buf_reset(&w->kfirst);
		cf_buf_put(&w->kfirst, first->data, first->len);
	}
	cf_buf_reset(&w->klast);
	cf_buf_put(&w->klast, last->data, last->len);
	cf_buf_put(&w->kblock, entry, n);
	if (!cf_buf_ok(&w->kblock) || !cf_buf_ok(&w->kfirst) || !cf_buf_ok(&w->klast))
		return fail(w, cf_status_make(CF_ERR_NO_MEMORY, "%s: key index", w->path));
	if (w->kblock.len >= w->kidx_size)
		return flush_kblock(w);
	return NULL;
}

/*
 * Writes the data block in progress and, if rows ended in it, its key-index entry
 * (kind BLOCK: its first row and its handle). The open row, if it started in this
 * block, becomes a wide row: its row-start record is retagged first.
 */
static cf_status *
flush_data(cf_sstable_writer *w)
{
	cf_block_handle h;
	cf_status  *s;

	if (w->data.len == 0)
		return NULL;
	if (w->in_row && w->row_started && !w->start_known)
		w->data.data[w->row_off] = CF_SST_TAG_ROW_WIDE;
	if ((s = write_block(w, &w->data, &h)) != NULL)
		return s;
	w->stats.raw_bytes += w->data.len;
	w->stats.data_blocks++;
	cf_buf_reset(&w->data);
	if (w->blk_rows)
	{
		cf_buf		e = CF_BUF_INIT;

		cf_buf_put_u8(&e, CF_SST_ENTRY_BLOCK);
		cf_buf_put(&e, w->blk_first.data, w->blk_first.len);
		cf_block_handle_put(&e, h);
		s = cf_buf_ok(&e) ? emit_entry(w, e.data, e.len, &w->blk_first, &w->blk_last) :
			fail(w, cf_status_make(CF_ERR_NO_MEMORY, "%s: key index", w->path));
		cf_buf_free(&e);
		if (s)
			return s;
		w->blk_rows = false;
	}
	if (w->in_row && w->row_started)
	{
		if (!w->start_known)
		{
			w->start = h;
			w->start_known = true;
		}
		if (w->in_block)
		{
			cf_buf_put(&w->colidx, w->block_first.data, w->block_first.len);
			cf_block_handle_put(&w->colidx, h);
			w->in_block = false;
		}
	}
	return fail(w, cf_buf_status(&w->colidx));
}

/* Makes room for a record of n bytes: writes the block in progress if it would overflow. */
static cf_status *
room_for(cf_sstable_writer *w, size_t n)
{
	if (w->data.len > 0 && w->data.len + n > w->opt.block_size)
		return flush_data(w);
	return NULL;
}

/* Appends bytes token | bytes key of the open row to b. */
static void
put_row_tk(const cf_sstable_writer *w, cf_buf *b)
{
	cf_buf_put_bytes(b, cf_slice_of(w->row_tk.data, w->row_tok_len));
	cf_buf_put_bytes(b, cf_slice_of(w->row_tk.data + w->row_tok_len,
									w->row_tk.len - w->row_tok_len));
}

/* The open row's row-start record (tagged narrow; flush_data retags a wide row's). */
static void
put_row_record(cf_sstable_writer *w)
{
	w->row_off = w->data.len;
	cf_buf_put_u8(&w->data, CF_SST_TAG_ROW);
	put_row_tk(w, &w->data);
	cf_buf_put(&w->data, w->row_meta.data, w->row_meta.len);
	w->row_started = true;
}

static void writer_free(cf_sstable_writer *w);

static size_t
row_record_size(const cf_sstable_writer *w)
{
	return 1 + 2 * CF_VARINT64_MAX + w->row_tk.len + w->row_meta.len;
}

cf_status *
cf_sstable_writer_open(cf_env *env, const char *path, const cf_sstable_options *opts,
					   cf_sstable_writer **out)
{
	cf_sstable_writer *w;
	cf_status  *s;

	*out = NULL;
	if (opts->block_size != 0 &&
		(opts->block_size < CF_SST_MIN_BLOCK_SIZE || opts->block_size > CF_SST_MAX_BLOCK_SIZE))
		return cf_status_make(CF_ERR_INVALID, "%s: block size %zu outside [%d, %zu]", path,
							  opts->block_size, CF_SST_MIN_BLOCK_SIZE, CF_SST_MAX_BLOCK_SIZE);
	w = calloc(1, sizeof(*w));
	if (w == NULL || (w->path = strdup(path)) == NULL || (w->cctx = ZSTD_createCCtx()) == NULL)
	{
		if (w)
			free(w->path);
		free(w);
		return cf_status_make(CF_ERR_NO_MEMORY, "%s: sstable writer", path);
	}
	w->env = env;
	w->opt = *opts;
	if (w->opt.block_size == 0)
		w->opt.block_size = CF_SST_DEFAULT_BLOCK_SIZE;
	if (w->opt.zstd_level == 0)
		w->opt.zstd_level = CF_SST_DEFAULT_ZSTD_LEVEL;
	/* see engine/doc/sstable_format.md, "Blocks", for why these */
	w->kidx_size = w->opt.block_size / CF_SST_KEY_INDEX_BLOCK_DIVISOR;
	if (w->kidx_size < CF_SST_MIN_BLOCK_SIZE)
		w->kidx_size = CF_SST_MIN_BLOCK_SIZE;
	w->colidx_size = w->opt.block_size * CF_SST_COLUMN_INDEX_BLOCK_FACTOR;
	if (w->colidx_size > CF_SST_MAX_BLOCK_SIZE)
		w->colidx_size = CF_SST_MAX_BLOCK_SIZE;
	/*
	 * Literals stored as they are, not Huffman-coded: blocks decompress about three
	 * times faster (what every read that misses the block cache pays) for a few percent
	 * more bytes. A writer-side choice: any zstd frame reads back the same. An older
	 * libzstd without the parameter just keeps Huffman.
	 */
	(void) ZSTD_CCtx_setParameter(w->cctx, ZSTD_c_literalCompressionMode, ZSTD_lcm_uncompressed);
	if (w->opt.bloom_bits_per_key == 0)
		w->opt.bloom_bits_per_key = CF_BLOOM_DEFAULT_BITS_PER_KEY;
	w->stats.min_timestamp = INT64_MAX;
	w->stats.max_timestamp = INT64_MIN;
	w->stats.max_local_deletion_time = INT32_MIN;
	s = cf_env_open_write(env, path, CF_OPEN_CREATE_NEW, &w->file);
	if (s)
	{
		writer_free(w);			/* not abandon: the file may be someone else's */
		return s;
	}
	*out = w;
	return NULL;
}

cf_status *
cf_sstable_writer_begin_row(cf_sstable_writer *w, cf_slice token, cf_slice key,
							cf_deletion del, const cf_range_tomb *tombs, size_t n_tombs)
{
	if (w->failed)
		return poisoned(w);
	if (w->in_row)
		return invalid(w, "begin_row with a row open");
	if (token.len > CF_KEY_MAX || key.len > CF_KEY_MAX)
		return invalid(w, token.len > CF_KEY_MAX ? "token longer than 65535 bytes"
					   : "key longer than 65535 bytes");
	if (w->have_prev)
	{
		cf_slice	pt = cf_slice_of(w->prev_tk.data, w->prev_tok_len);
		cf_slice	pk = cf_slice_of(w->prev_tk.data + w->prev_tok_len,
									 w->prev_tk.len - w->prev_tok_len);
		int			c = cf_slice_cmp(token, pt);

		if (c == 0)
			c = cf_slice_cmp(key, pk);
		if (c <= 0)
			return invalid(w, "rows out of order: (token, key) not greater than the previous row's");
	}
	for (size_t i = 0; i < n_tombs; i++)
	{
		const cf_range_tomb *t = &tombs[i];

		if (t->sc.len > CF_NAME_MAX || t->start.len > CF_NAME_MAX || t->finish.len > CF_NAME_MAX)
			return invalid(w, "range tombstone bound longer than 65535 bytes");
		if (cf_deletion_is_live(t->del))
			return invalid(w, "range tombstone without a timestamp");
	}

	cf_buf_reset(&w->row_tk);
	cf_buf_put(&w->row_tk, token.p, token.len);
	cf_buf_put(&w->row_tk, key.p, key.len);
	w->row_tok_len = token.len;
	cf_buf_reset(&w->row_meta);
	cf_buf_put_u8(&w->row_meta, cf_deletion_is_live(del) ? 0 : 1);
	if (!cf_deletion_is_live(del))
	{
		put_deletion(&w->row_meta, del);
		note_timestamp(w, del.timestamp);
		note_local_time(w, del.local_time);
		w->stats.tombstones++;
	}
	cf_buf_put_varint(&w->row_meta, n_tombs);
	for (size_t i = 0; i < n_tombs; i++)
	{
		cf_buf_put_bytes(&w->row_meta, tombs[i].sc);
		cf_buf_put_bytes(&w->row_meta, tombs[i].start);
		cf_buf_put_bytes(&w->row_meta, tombs[i].finish);
		put_deletion(&w->row_meta, tombs[i].del);
		note_timestamp(w, tombs[i].del.timestamp);
		note_local_time(w, tombs[i].del.local_time);
	}
	w->stats.tombstones += n_tombs;
	if (!cf_buf_ok(&w->row_tk) || !cf_buf_ok(&w->row_meta))
		return fail(w, cf_status_make(CF_ERR_NO_MEMORY, "%s: row", w->path));
	w->in_row = true;
	w->row_cells = 0;
	w->row_started = false;
	w->start_known = false;
	w->in_block = false;
	cf_buf_reset(&w->colidx);
	return NULL;
}

cf_status *
cf_sstable_writer_add_cell(cf_sstable_writer *w, const cf_cell *c)
{
	const cf_col_order *o = &w->opt.order;
	bool		same_sc;
	size_t		size;
	uint8_t		tag;
	cf_status  *s;

	if (w->failed)
		return poisoned(w);
	if (!w->in_row)
		return invalid(w, "add_cell outside a row");
	if (c->name.len == 0 || c->name.len > CF_NAME_MAX)
		return invalid(w, c->name.len ? "cell name longer than 65535 bytes" : "empty cell name");
	if (o->super ? (c->sc.len == 0 || c->sc.len > CF_NAME_MAX) : c->sc.len != 0)
		return invalid(w, o->super ? "a Super CF's cell needs a super column name of 1..65535 bytes"
					   : "a Standard CF's cell has a super column");
	if ((c->flags & ~(CF_CELL_DELETED | CF_CELL_EXPIRING)) ||
		(c->flags & CF_CELL_DELETED && c->flags & CF_CELL_EXPIRING))
		return invalid(w, "cell flags must be DELETED, EXPIRING or neither");
	if (c->value.len > CF_BLOCK_MAX_RAW / 2)
		return invalid(w, "cell value larger than 32 MiB");
	if (w->row_cells > 0 && cf_path_cmp(o, c->sc, c->name, w->last_sc, w->last_name) <= 0)
		return invalid(w, "cells out of order: a path not greater than the previous cell's");

	size = 2 + 3 * CF_VARINT64_MAX + c->sc.len + c->name.len + c->value.len + 16;
	if (!w->row_started)
		size += row_record_size(w);
	if ((s = room_for(w, size)) != NULL)
		return s;
	if (!w->row_started)
		put_row_record(w);
	same_sc = w->in_block && o->super && cf_slice_eq(c->sc, w->last_sc);

	/* path bookkeeping (before last_path is overwritten) */
	cf_buf_reset(&w->last_path);
	cf_buf_put_bytes(&w->last_path, c->sc);
	cf_buf_put_bytes(&w->last_path, c->name);
	if (!w->in_block)
	{
		cf_buf_reset(&w->block_first);
		cf_buf_put(&w->block_first, w->last_path.data, w->last_path.len);
		w->in_block = true;
	}

	tag = (uint8_t) (c->flags | (same_sc ? CF_SST_TAG_SAME_SC : 0));
	cf_buf_put_u8(&w->data, tag);
	if (!same_sc)
		cf_buf_put_bytes(&w->data, c->sc);
	cf_buf_put_bytes(&w->data, c->name);
	cf_buf_put_bytes(&w->data, c->value);
	cf_buf_put_u64(&w->data, (uint64_t) c->timestamp);
	if (c->flags & CF_CELL_EXPIRING)
	{
		cf_buf_put_u32(&w->data, (uint32_t) c->ttl);
		cf_buf_put_u32(&w->data, (uint32_t) c->local_time);
		w->stats.expiring++;
		note_local_time(w, c->local_time);
	}
	if (c->flags & CF_CELL_DELETED)
	{
		cf_buf_put_u32(&w->data, (uint32_t) c->local_time);
		w->stats.tombstones++;
		note_local_time(w, c->local_time);
	}
	if (!cf_buf_ok(&w->data) || !cf_buf_ok(&w->last_path) || !cf_buf_ok(&w->block_first))
		return fail(w, cf_status_make(CF_ERR_NO_MEMORY, "%s: data block", w->path));

	path_of(&w->last_path, &w->last_sc, &w->last_name);
	note_timestamp(w, c->timestamp);
	w->row_cells++;
	w->stats.cells++;
	return NULL;
}

/* Writes a wide row's column index in blocks; returns the top level in `top`. */
static cf_status *
write_column_index(cf_sstable_writer *w, cf_buf *top, uint64_t *n_top)
{
	cf_buf		blk = CF_BUF_INIT;
	cf_rd		r;
	size_t		first = 0;
	cf_status  *s = NULL;

	*n_top = 0;
	cf_rd_init(&r, w->colidx.data, w->colidx.len);
	while (s == NULL && cf_rd_left(&r) > 0)
	{
		size_t		at = r.pos;
		cf_block_handle h;

		(void) cf_rd_bytes(&r, cf_rd_varint(&r));	/* sc */
		(void) cf_rd_bytes(&r, cf_rd_varint(&r));	/* name */
		if (blk.len == 0)
			first = at;
		(void) cf_block_handle_get(&r);
		cf_buf_put(&blk, w->colidx.data + at, r.pos - at);
		if (blk.len >= w->colidx_size || cf_rd_left(&r) == 0)
		{
			cf_rd		fr;

			if ((s = write_block(w, &blk, &h)) != NULL)
				break;
			/* the block's first entry's path, then its handle */
			cf_rd_init(&fr, w->colidx.data + first, w->colidx.len - first);
			(void) cf_rd_bytes(&fr, cf_rd_varint(&fr));
			(void) cf_rd_bytes(&fr, cf_rd_varint(&fr));
			cf_buf_put(top, w->colidx.data + first, fr.pos);
			cf_block_handle_put(top, h);
			(*n_top)++;
			cf_buf_reset(&blk);
		}
	}
	if (s == NULL && (!cf_rd_ok(&r) || !cf_buf_ok(&blk) || !cf_buf_ok(top)))
		s = fail(w, cf_status_make(CF_ERR_NO_MEMORY, "%s: column index", w->path));
	cf_buf_free(&blk);
	return s;
}

/*
 * A wide row's end: its last data block, its column-index blocks, then its own
 * key-index entry (kind ROW).
 */
static cf_status *
end_wide_row(cf_sstable_writer *w)
{
	cf_buf		e = CF_BUF_INIT;
	cf_buf		tk = CF_BUF_INIT;
	cf_buf		top = CF_BUF_INIT;
	uint64_t	n_top = 0;
	cf_status  *s;

	if ((s = flush_data(w)) == NULL && (s = write_column_index(w, &top, &n_top)) == NULL)
	{
		put_row_tk(w, &tk);
		cf_buf_put_u8(&e, CF_SST_ENTRY_ROW);
		cf_buf_put(&e, tk.data, tk.len);
		cf_block_handle_put(&e, w->start);
		cf_buf_put_varint(&e, w->row_off);
		cf_buf_put(&e, w->row_meta.data, w->row_meta.len);
		cf_buf_put_varint(&e, w->row_cells);
		cf_buf_put_varint(&e, n_top);
		cf_buf_put(&e, top.data, top.len);
		if (!cf_buf_ok(&e) || !cf_buf_ok(&tk))
			s = fail(w, cf_status_make(CF_ERR_NO_MEMORY, "%s: key index", w->path));
		else
			s = emit_entry(w, e.data, e.len, &tk, &tk);
	}
	cf_buf_free(&e);
	cf_buf_free(&tk);
	cf_buf_free(&top);
	w->stats.wide_rows++;
	return s;
}

cf_status *
cf_sstable_writer_end_row(cf_sstable_writer *w)
{
	cf_status  *s = NULL;
	cf_slice	key;

	if (w->failed)
		return poisoned(w);
	if (!w->in_row)
		return invalid(w, "end_row without a row");
	if (!w->row_started)
	{
		if ((s = room_for(w, row_record_size(w))) != NULL)
			return s;
		put_row_record(w);
	}
	key = cf_slice_of(w->row_tk.data + w->row_tok_len, w->row_tk.len - w->row_tok_len);
	if (w->start_known)
		s = end_wide_row(w);
	else
	{
		/* a narrow row: found through its block's entry, written with the block */
		if (!w->blk_rows)
		{
			cf_buf_reset(&w->blk_first);
			put_row_tk(w, &w->blk_first);
		}
		cf_buf_reset(&w->blk_last);
		put_row_tk(w, &w->blk_last);
		w->blk_rows = true;
		if (!cf_buf_ok(&w->blk_first) || !cf_buf_ok(&w->blk_last))
			s = fail(w, cf_status_make(CF_ERR_NO_MEMORY, "%s: key index", w->path));
	}
	if (s)
		return s;

	cf_buf_put_bytes(&w->keys, key);
	if (!w->have_prev)
		put_row_tk(w, &w->first_tk);	/* empty until now */
	cf_buf_reset(&w->prev_tk);
	cf_buf_put(&w->prev_tk, w->row_tk.data, w->row_tk.len);
	w->prev_tok_len = w->row_tok_len;
	w->have_prev = true;
	w->in_row = false;
	w->stats.rows++;
	if (!cf_buf_ok(&w->keys) || !cf_buf_ok(&w->prev_tk) || !cf_buf_ok(&w->first_tk))
		return fail(w, cf_status_make(CF_ERR_NO_MEMORY, "%s: row keys", w->path));
	return NULL;
}

/* The bloom filter over every row key, serialized into out. */
static cf_status *
build_bloom(cf_sstable_writer *w, cf_buf *out)
{
	cf_bloom   *bloom;
	cf_rd		r;
	cf_status  *s = cf_bloom_new(w->stats.rows, w->opt.bloom_bits_per_key, &bloom);

	if (s)
		return s;
	cf_rd_init(&r, w->keys.data, w->keys.len);
	while (cf_rd_left(&r) > 0)
	{
		size_t		n = (size_t) cf_rd_varint(&r);
		const uint8_t *p = cf_rd_bytes(&r, n);

		if (p == NULL && n > 0)
			break;
		cf_bloom_add(bloom, cf_slice_of(p, n));
	}
	s = cf_bloom_serialize(bloom, out);
	cf_bloom_free(bloom);
	return s;
}

static void
put_stats(cf_sstable_writer *w, cf_buf *b)
{
	const cf_sstable_stats *st = &w->stats;

	cf_buf_put_u8(b, CF_SST_STATS_VERSION);
	cf_buf_put_varint(b, st->rows);
	cf_buf_put_varint(b, st->cells);
	cf_buf_put_varint(b, st->tombstones);
	cf_buf_put_varint(b, st->expiring);
	cf_buf_put_varint(b, st->raw_bytes);
	cf_buf_put_varint(b, st->data_blocks);
	cf_buf_put_varint(b, st->index_blocks);
	cf_buf_put_varint(b, st->wide_rows);
	cf_buf_put_u64(b, (uint64_t) st->min_timestamp);
	cf_buf_put_u64(b, (uint64_t) st->max_timestamp);
	cf_buf_put_u32(b, (uint32_t) st->max_local_deletion_time);
	if (w->have_prev)
	{
		cf_buf_put(b, w->first_tk.data, w->first_tk.len);
		cf_buf_put_bytes(b, cf_slice_of(w->prev_tk.data, w->prev_tok_len));
		cf_buf_put_bytes(b, cf_slice_of(w->prev_tk.data + w->prev_tok_len, w->prev_tk.len - w->prev_tok_len));
	}
	else
	{
		for (int i = 0; i < 4; i++)
			cf_buf_put_varint(b, 0);
	}
}

/* Everything after the last row: indexes, bloom, stats, footer; then sync. */
static cf_status *
write_tail(cf_sstable_writer *w)
{
	cf_block_handle top_h, bloom_h, stats_h;
	cf_buf		b = CF_BUF_INIT;
	uint8_t		footer[CF_SSTABLE_FOOTER_SIZE];
	cf_status  *s;

	if ((s = flush_data(w)) != NULL)
		return s;
	if ((s = flush_kblock(w)) != NULL)
		return s;
	if ((s = write_block(w, &w->top, &top_h)) != NULL)
		return cf_status_wrap(s, "top-level index of %s", w->path);

	s = build_bloom(w, &b);
	if (s == NULL)
		s = cf_wfile_append(w->file, b.data, b.len);
	bloom_h.offset = w->off;
	bloom_h.size = b.len;
	w->off += b.len;
	cf_buf_reset(&b);
	if (s == NULL)
	{
		put_stats(w, &b);
		s = cf_buf_status(&b);
	}
	if (s == NULL)
		s = write_block(w, &b, &stats_h);
	cf_buf_free(&b);
	if (s)
		return fail(w, s);

	cf_store_be64(footer, top_h.offset);
	cf_store_be64(footer + 8, top_h.size);
	cf_store_be64(footer + 16, bloom_h.offset);
	cf_store_be64(footer + 24, bloom_h.size);
	cf_store_be64(footer + 32, stats_h.offset);
	cf_store_be64(footer + 40, stats_h.size);
	cf_store_be32(footer + CF_SSTABLE_FOOTER_VERSION_AT, CF_SSTABLE_VERSION);
	cf_store_be32(footer + CF_SSTABLE_FOOTER_CRC_AT,
				  cf_crc32c_mask(cf_crc32c(footer, CF_SSTABLE_FOOTER_CRC_AT)));
	cf_store_be64(footer + CF_SSTABLE_FOOTER_MAGIC_AT, CF_SSTABLE_MAGIC);
	if ((s = cf_wfile_append(w->file, footer, sizeof(footer))) != NULL)
		return fail(w, s);
	w->off += sizeof(footer);
	w->stats.file_bytes = w->off;
	return fail(w, cf_wfile_sync(w->file));
}

/* Frees everything but the file. */
static void
writer_free(cf_sstable_writer *w)
{
	cf_buf	   *bufs[] = {&w->data, &w->sealed, &w->kblock, &w->kfirst, &w->klast, &w->top,
		&w->keys, &w->blk_first, &w->blk_last, &w->row_tk, &w->row_meta, &w->last_path, &w->block_first,
	&w->colidx, &w->prev_tk, &w->first_tk};

	for (size_t i = 0; i < sizeof(bufs) / sizeof(bufs[0]); i++)
		cf_buf_free(bufs[i]);
	ZSTD_freeCCtx(w->cctx);
	free(w->path);
	free(w);
}

cf_status *
cf_sstable_writer_finish(cf_sstable_writer *w, cf_sstable_stats *stats)
{
	cf_status  *s;

	if (w->failed)
		s = poisoned(w);
	else if (w->in_row)
		s = cf_status_make(CF_ERR_INVALID, "%s: finish with a row open", w->path);
	else
		s = write_tail(w);
	if (s)
	{
		cf_sstable_writer_abandon(w);
		return s;
	}
	s = cf_wfile_close(w->file);
	w->file = NULL;
	if (s)
	{
		cf_sstable_writer_abandon(w);
		return s;
	}
	if (stats)
		*stats = w->stats;
	writer_free(w);
	return NULL;
}

void
cf_sstable_writer_abandon(cf_sstable_writer *w)
{
	if (w == NULL)
		return;
	if (w->file)
		cf_status_free(cf_wfile_close(w->file));
	cf_status_free(cf_env_remove(w->env, w->path));
	writer_free(w);
}

/* Writes the row at `it` (positioned on its first entry) and leaves it on the next row. */
static cf_status *
write_mt_row(cf_sstable_writer *w, cf_mt_iter *it)
{
	cf_slice	token = cf_mt_iter_token(it);
	cf_slice	key = cf_mt_iter_key(it);
	cf_deletion del = cf_deletion_none();
	const cf_range_tomb *tombs = NULL;
	size_t		n_tombs = 0;
	cf_status  *s;

	if (cf_mt_iter_is_header(it))
	{
		cf_mt_iter_deletion(it, &del, &tombs, &n_tombs);
		cf_mt_iter_next(it);
	}
	if ((s = cf_sstable_writer_begin_row(w, token, key, del, tombs, n_tombs)) != NULL)
		return s;
	for (; cf_mt_iter_valid(it); cf_mt_iter_next(it))
	{
		cf_cell		c;

		if (!cf_slice_eq(cf_mt_iter_key(it), key) || !cf_slice_eq(cf_mt_iter_token(it), token))
			break;
		cf_mt_iter_cell(it, &c);
		if ((s = cf_sstable_writer_add_cell(w, &c)) != NULL)
			return s;
	}
	return cf_sstable_writer_end_row(w);
}

cf_status *
cf_sstable_write_memtable(cf_env *env, const char *path, cf_memtable *mt,
						  const cf_sstable_options *opts, cf_sstable_stats *stats)
{
	cf_sstable_writer *w;
	cf_mt_iter	it;
	cf_status  *s = cf_sstable_writer_open(env, path, opts, &w);

	if (s)
		return s;
	cf_mt_iter_init(&it, mt);
	for (cf_mt_iter_seek_first(&it); s == NULL && cf_mt_iter_valid(&it);)
		s = write_mt_row(w, &it);
	if (s)
	{
		cf_sstable_writer_abandon(w);
		return s;
	}
	return cf_sstable_writer_finish(w, stats);
}
