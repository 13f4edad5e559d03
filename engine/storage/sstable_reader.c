/*
 * storage/sstable_reader.c — opens an SSTable and reads rows and cells from it (see
 * sstable.h; the format is engine/doc/sstable_format.md).
 *
 * Design assumptions:
 *  - Open reads only the footer, the top-level index (one entry per key-index block),
 *    the bloom filter and the statistics; everything else is read per request with
 *    pread, verified (block checksum, handle bounds against the section it must lie
 *    in) and decoded into buffers owned by the iterator, so an open cf_sstable is
 *    immutable and shared by threads without locks (only the refcount and the
 *    block-read counter are atomic).
 *  - There is no block cache, here or in any layer above: a block is kept only by the
 *    iterator that decoded it, for as long as it stays on that block. Every new row
 *    iterator or cell iterator, and every cf_sstable_get, reads its blocks again
 *    (pread, CRC-32C, zstd, parse), so hot rows cost a key-index block and a data
 *    block per read per sstable (the OS page cache saves only the disk read). A walk
 *    over many rows avoids the repeats by keeping one cell iterator
 *    (cf_sstable_cells_reset).
 *  - Of a decoded data block only the records of the row being read are parsed (from
 *    its row-start record, or the block's start in a later block of a wide row, up to
 *    the next row-start record), into an array, so seeks inside it are binary searches
 *    and reverse iteration needs no restart points, and a point read does not parse
 *    the hundreds of other rows sharing the block. Every length and count is checked
 *    against the bytes actually present before use; an array is sized only after a
 *    first pass has proved its elements are there.
 *  - A row without a column index is treated as a row whose column index has exactly
 *    one entry (its start block), so one code path serves narrow and wide rows.
 */
#include "storage/sstable.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "storage/block.h"
#include "storage/bloom.h"
#include "storage/sstable_format.h"
#include "util/buf.h"
#include "util/crc32c.h"

/* One key-index block of the top-level index. */
typedef struct top_entry
{
	cf_slice	first_tok;
	cf_slice	first_key;
	cf_slice	last_tok;
	cf_slice	last_key;
	cf_block_handle h;
} top_entry;

/* One column-index entry: the first path of a block and the block. */
typedef struct col_entry
{
	cf_slice	sc;
	cf_slice	name;
	cf_block_handle h;
} col_entry;

struct cf_sstable
{
	cf_rfile   *file;
	char	   *path;
	cf_col_order order;
	int			refs;			/* atomic */
	uint64_t	block_reads;	/* atomic */
	uint64_t	data_end;		/* data, column- and key-index blocks lie in [0, data_end) */
	cf_sstable_stats stats;
	cf_slice	first_tok, first_key, last_tok, last_key;	/* into stats_raw */
	cf_buf		stats_raw;
	cf_buf		top_raw;
	top_entry  *top;
	size_t		n_top;
	uint8_t    *bloom_bytes;
	cf_bloom   *bloom;
};

/* A key-index entry's place in its decoded block. */
typedef struct key_entry
{
	size_t		off;
	size_t		len;
	cf_slice	tok;
	cf_slice	key;
} key_entry;

struct cf_sstable_iter
{
	cf_sstable *t;
	cf_buf		scratch;
	void	   *dctx;			/* zstd context, created at the first zstd block */
	cf_buf		raw;			/* the key-index block loaded */
	key_entry  *e;
	size_t		n;
	size_t		cap;
	size_t		blk;			/* its index in t->top; SIZE_MAX: none */
	size_t		pos;
	bool		valid;
};

struct cf_sstable_row
{
	cf_sstable *t;
	uint8_t    *bytes;			/* a copy of the key-index entry */
	cf_block_handle start;
	uint64_t	row_off;
	cf_slice	tok;
	cf_slice	key;
	cf_deletion del;
	cf_range_tomb *tombs;
	size_t		n_tombs;
	uint64_t	n_cells;
	col_entry  *top;			/* column-index blocks; none for a narrow row */
	size_t		n_top;
};

/* One record of a decoded data block; a row-start record keeps (token, key) in (sc, name). */
typedef struct data_rec
{
	cf_cell		c;
	uint64_t	off;
	bool		row;
} data_rec;

struct cf_sstable_cells
{
	const cf_sstable_row *row;
	cf_sstable *t;
	cf_buf		scratch;
	void	   *dctx;			/* zstd context, created at the first zstd block */
	cf_buf		ci_raw;			/* column-index block loaded */
	col_entry  *ci;
	size_t		n_ci;
	size_t		ci_cap;
	size_t		top_i;			/* which one (SIZE_MAX: none) */
	size_t		ci_i;			/* the data block loaded, in ci */
	cf_buf		db_raw;			/* data block loaded */
	data_rec   *recs;
	size_t		n_recs;
	size_t		rec_cap;
	uint64_t	db_off;			/* its file offset (UINT64_MAX: none) */
	uint64_t	parse_from;		/* the byte recs were parsed from (UINT64_MAX: none) */
	size_t		lo;				/* the row's cells in it: [lo, hi) */
	size_t		hi;
	size_t		pos;
	bool		valid;
};

static cf_status *
corrupt(const cf_sstable *t, const char *what, uint64_t off)
{
	return cf_status_make(CF_ERR_CORRUPTION, "%s: %s (block at offset %" PRIu64 ")",
						  t->path, what, off);
}

static cf_deletion
get_deletion(cf_rd *r)
{
	cf_deletion d;

	d.timestamp = (int64_t) cf_rd_u64(r);
	d.local_time = (int32_t) cf_rd_u32(r);
	return d;
}

/* Grows *arr (of elements of size sz, capacity *cap) to hold n; false on no memory. */
static bool
grow(void **arr, size_t *cap, size_t n, size_t sz)
{
	size_t		c = *cap ? *cap : 16;
	void	   *p;

	if (n <= *cap)
		return true;
	while (c < n)
		c *= 2;
	p = realloc(*arr, c * sz);
	if (p == NULL)
		return false;
	*arr = p;
	*cap = c;
	return true;
}

static int
row_cmp(cf_slice ta, cf_slice ka, cf_slice tb, cf_slice kb)
{
	int			c = cf_slice_cmp(ta, tb);

	return c ? c : cf_slice_cmp(ka, kb);
}

/*
 * Sign of (sc, name) - target. With open_end the target is the end of super column tsc
 * (Super CF, tsc set) or of the row.
 */
static int
target_cmp(const cf_col_order *o, cf_slice sc, cf_slice name, cf_slice tsc, cf_slice tname,
		   bool open_end)
{
	if (!open_end)
		return cf_path_cmp(o, sc, name, tsc, tname);
	if (!o->super || tsc.len == 0)
		return -1;
	return cf_type_compare(o->cmp, sc, tsc) <= 0 ? -1 : 1;
}

/* Reads a block of t; dctx is the reader's zstd context (see cf_block_decode). */
static cf_status *
read_block(cf_sstable *t, cf_block_handle h, uint64_t end, void **dctx, cf_buf *scratch,
		   cf_buf *out)
{
	__atomic_add_fetch(&t->block_reads, 1, __ATOMIC_RELAXED);
	return cf_block_read(t->file, h, end, dctx, scratch, out);
}

/* ---- open ---- */

static cf_status *
parse_top(cf_sstable *t)
{
	cf_rd		r;
	size_t		cap = 0;

	cf_rd_init(&r, t->top_raw.data, t->top_raw.len);
	while (cf_rd_left(&r) > 0)
	{
		top_entry	e;

		e.first_tok = cf_rd_slice(&r, CF_BLOCK_MAX_RAW);
		e.first_key = cf_rd_slice(&r, CF_BLOCK_MAX_RAW);
		e.last_tok = cf_rd_slice(&r, CF_BLOCK_MAX_RAW);
		e.last_key = cf_rd_slice(&r, CF_BLOCK_MAX_RAW);
		e.h = cf_block_handle_get(&r);
		if (!cf_rd_ok(&r))
			break;
		if (e.h.offset > t->data_end || e.h.size > t->data_end - e.h.offset ||
			row_cmp(e.first_tok, e.first_key, e.last_tok, e.last_key) > 0 ||
			(t->n_top > 0 && row_cmp(t->top[t->n_top - 1].last_tok, t->top[t->n_top - 1].last_key,
									 e.first_tok, e.first_key) >= 0))
			return cf_status_make(CF_ERR_CORRUPTION, "%s: top-level index entry %zu is out of bounds or order",
								  t->path, t->n_top);
		if (!grow((void **) &t->top, &cap, t->n_top + 1, sizeof(top_entry)))
			return cf_status_make(CF_ERR_NO_MEMORY, "%s: top-level index", t->path);
		t->top[t->n_top++] = e;
	}
	return cf_status_wrap(cf_rd_status(&r, "top-level index"), "%s", t->path);
}

static cf_status *
parse_stats(cf_sstable *t)
{
	cf_sstable_stats *st = &t->stats;
	cf_rd		r;

	cf_rd_init(&r, t->stats_raw.data, t->stats_raw.len);
	if (cf_rd_u8(&r) != CF_SST_STATS_VERSION && cf_rd_ok(&r))
		return cf_status_make(CF_ERR_CORRUPTION, "%s: unknown statistics version: was it written by a newer colfam?",
							  t->path);
	st->rows = cf_rd_varint(&r);
	st->cells = cf_rd_varint(&r);
	st->tombstones = cf_rd_varint(&r);
	st->expiring = cf_rd_varint(&r);
	st->raw_bytes = cf_rd_varint(&r);
	st->data_blocks = cf_rd_varint(&r);
	st->index_blocks = cf_rd_varint(&r);
	st->wide_rows = cf_rd_varint(&r);
	st->min_timestamp = (int64_t) cf_rd_u64(&r);
	st->max_timestamp = (int64_t) cf_rd_u64(&r);
	st->max_local_deletion_time = (int32_t) cf_rd_u32(&r);
	t->first_tok = cf_rd_slice(&r, CF_BLOCK_MAX_RAW);
	t->first_key = cf_rd_slice(&r, CF_BLOCK_MAX_RAW);
	t->last_tok = cf_rd_slice(&r, CF_BLOCK_MAX_RAW);
	t->last_key = cf_rd_slice(&r, CF_BLOCK_MAX_RAW);
	if (cf_rd_ok(&r) && (cf_rd_left(&r) != 0 || st->index_blocks != t->n_top))
		return cf_status_make(CF_ERR_CORRUPTION, "%s: statistics disagree with the index", t->path);
	st->file_bytes = cf_rfile_size(t->file);
	return cf_status_wrap(cf_rd_status(&r, "statistics"), "%s", t->path);
}

/* Reads and checks the footer; the section handles come back in h[0..2]. */
static cf_status *
read_footer(cf_sstable *t, cf_block_handle h[3])
{
	uint8_t		f[CF_SSTABLE_FOOTER_SIZE];
	uint64_t	size = cf_rfile_size(t->file);
	uint64_t	footer_at;
	uint64_t	magic;
	uint32_t	version;
	cf_status  *s;

	if (size < CF_SSTABLE_FOOTER_SIZE)
		return cf_status_make(CF_ERR_CORRUPTION, "%s: %" PRIu64 " bytes is too short for an sstable footer",
							  t->path, size);
	footer_at = size - CF_SSTABLE_FOOTER_SIZE;
	if ((s = cf_rfile_read_exact(t->file, footer_at, f, sizeof(f))) != NULL)
		return s;
	magic = cf_load_be64(f + CF_SSTABLE_FOOTER_MAGIC_AT);
	version = cf_load_be32(f + CF_SSTABLE_FOOTER_VERSION_AT);
	if (magic != CF_SSTABLE_MAGIC)
		return cf_status_make(CF_ERR_CORRUPTION,
							  "%s: not an sstable of this format (magic %016" PRIx64
							  "): corrupt, or was it written by a newer colfam?", t->path, magic);
	if (version != CF_SSTABLE_VERSION)
		return cf_status_make(CF_ERR_CORRUPTION,
							  "%s: sstable format version %" PRIu32 ", this build reads %d: "
							  "was it written by a newer colfam?", t->path, version, CF_SSTABLE_VERSION);
	if (cf_load_be32(f + CF_SSTABLE_FOOTER_CRC_AT) !=
		cf_crc32c_mask(cf_crc32c(f, CF_SSTABLE_FOOTER_CRC_AT)))
		return cf_status_make(CF_ERR_CORRUPTION, "%s: footer checksum mismatch (footer at offset %" PRIu64 ")",
							  t->path, footer_at);
	for (int i = 0; i < 3; i++)
	{
		h[i].offset = cf_load_be64(f + 16 * i);
		h[i].size = cf_load_be64(f + 8 + 16 * i);
	}
	/* sections in order: blocks | top | bloom | stats | footer */
	if (h[0].size > h[1].offset - h[0].offset ||
		h[1].offset < h[0].offset || h[2].offset < h[1].offset ||
		h[1].size > h[2].offset - h[1].offset || h[2].offset > footer_at ||
		h[2].size > footer_at - h[2].offset)
		return cf_status_make(CF_ERR_CORRUPTION, "%s: footer section handles out of order or bounds", t->path);
	t->data_end = h[0].offset;
	return NULL;
}

static cf_status *
open_sections(cf_sstable *t)
{
	cf_block_handle h[3];
	cf_buf		scratch = CF_BUF_INIT;
	void	   *dctx = NULL;
	cf_status  *s;

	if ((s = read_footer(t, h)) != NULL)
		return s;
	s = read_block(t, h[0], h[1].offset, &dctx, &scratch, &t->top_raw);
	if (s == NULL)
		s = parse_top(t);
	if (s == NULL)
		s = read_block(t, h[2], cf_rfile_size(t->file) - CF_SSTABLE_FOOTER_SIZE, &dctx,
					   &scratch, &t->stats_raw);
	cf_buf_free(&scratch);
	cf_block_dctx_free(dctx);
	if (s == NULL)
		s = parse_stats(t);
	if (s)
		return s;
	t->bloom_bytes = malloc(h[1].size ? (size_t) h[1].size : 1);
	if (t->bloom_bytes == NULL)
		return cf_status_make(CF_ERR_NO_MEMORY, "%s: bloom filter of %" PRIu64 " bytes", t->path, h[1].size);
	if ((s = cf_rfile_read_exact(t->file, h[1].offset, t->bloom_bytes, (size_t) h[1].size)) != NULL)
		return s;
	return cf_status_wrap(cf_bloom_open(cf_slice_of(t->bloom_bytes, (size_t) h[1].size), &t->bloom),
						  "%s: bloom filter at offset %" PRIu64, t->path, h[1].offset);
}

static void
sstable_free(cf_sstable *t)
{
	cf_bloom_free(t->bloom);
	free(t->bloom_bytes);
	free(t->top);
	cf_buf_free(&t->top_raw);
	cf_buf_free(&t->stats_raw);
	cf_rfile_close(t->file);
	free(t->path);
	free(t);
}

cf_status *
cf_sstable_open(cf_env *env, const char *path, const cf_col_order *order, cf_sstable **out)
{
	cf_sstable *t = calloc(1, sizeof(*t));
	cf_status  *s;

	*out = NULL;
	if (t == NULL || (t->path = strdup(path)) == NULL)
	{
		free(t);
		return cf_status_make(CF_ERR_NO_MEMORY, "%s: sstable", path);
	}
	t->order = *order;
	t->refs = 1;
	s = cf_env_open_read(env, path, &t->file);
	if (s == NULL)
		s = open_sections(t);
	if (s)
	{
		sstable_free(t);
		return s;
	}
	*out = t;
	return NULL;
}

void
cf_sstable_ref(cf_sstable *t)
{
	__atomic_add_fetch(&t->refs, 1, __ATOMIC_RELAXED);
}

void
cf_sstable_unref(cf_sstable *t)
{
	if (t && __atomic_sub_fetch(&t->refs, 1, __ATOMIC_ACQ_REL) == 0)
		sstable_free(t);
}

const char *
cf_sstable_path(const cf_sstable *t)
{
	return t->path;
}

const cf_sstable_stats *
cf_sstable_get_stats(const cf_sstable *t)
{
	return &t->stats;
}

void
cf_sstable_first_row(const cf_sstable *t, cf_slice *token, cf_slice *key)
{
	*token = t->first_tok;
	*key = t->first_key;
}

void
cf_sstable_last_row(const cf_sstable *t, cf_slice *token, cf_slice *key)
{
	*token = t->last_tok;
	*key = t->last_key;
}

size_t
cf_sstable_sample_count(const cf_sstable *t)
{
	return t->n_top;
}

void
cf_sstable_sample(const cf_sstable *t, size_t i, cf_slice *token, cf_slice *key)
{
	*token = t->top[i].first_tok;
	*key = t->top[i].first_key;
}

bool
cf_sstable_may_contain(const cf_sstable *t, cf_slice key)
{
	return cf_bloom_may_contain(t->bloom, key);
}

uint64_t
cf_sstable_block_reads(const cf_sstable *t)
{
	return __atomic_load_n(&t->block_reads, __ATOMIC_RELAXED);
}

/* ---- key index ---- */

/*
 * Parses one key-index entry into x. x->tombs and x->top are filled only with fill
 * set, and must then have room for the counts a first pass (fill false) left in
 * x->n_tombs and x->n_top; a first pass proves the elements are there, so those counts
 * are bounded by the entry's size. Failures show in cf_rd_ok(r).
 */
static void
parse_entry(cf_rd *r, cf_sstable_row *x, bool fill)
{
	uint64_t	n;

	x->start = cf_block_handle_get(r);
	x->row_off = cf_rd_varint(r);
	x->tok = cf_rd_slice(r, CF_BLOCK_MAX_RAW);
	x->key = cf_rd_slice(r, CF_BLOCK_MAX_RAW);
	x->del = cf_deletion_none();
	switch (cf_rd_u8(r))
	{
		case 0:
			break;
		case 1:
			x->del = get_deletion(r);
			if (x->del.timestamp == CF_LIVE)
				cf_rd_fail(r);
			break;
		default:
			cf_rd_fail(r);
	}
	n = cf_rd_varint(r);
	if (n > cf_rd_left(r))
		cf_rd_fail(r);
	for (uint64_t i = 0; cf_rd_ok(r) && i < n; i++)
	{
		cf_range_tomb tb;

		tb.sc = cf_rd_slice(r, CF_BLOCK_MAX_RAW);
		tb.start = cf_rd_slice(r, CF_BLOCK_MAX_RAW);
		tb.finish = cf_rd_slice(r, CF_BLOCK_MAX_RAW);
		tb.del = get_deletion(r);
		if (fill)
			x->tombs[i] = tb;
	}
	x->n_tombs = (size_t) n;
	x->n_cells = cf_rd_varint(r);
	n = cf_rd_varint(r);
	if (n > cf_rd_left(r))
		cf_rd_fail(r);
	for (uint64_t i = 0; cf_rd_ok(r) && i < n; i++)
	{
		col_entry	e;

		e.sc = cf_rd_slice(r, CF_BLOCK_MAX_RAW);
		e.name = cf_rd_slice(r, CF_BLOCK_MAX_RAW);
		e.h = cf_block_handle_get(r);
		if (fill)
			x->top[i] = e;
	}
	x->n_top = (size_t) n;
}

/* Loads and parses key-index block i into the iterator. */
static cf_status *
load_kblock(cf_sstable_iter *it, size_t i)
{
	cf_sstable *t = it->t;
	cf_status  *s;
	cf_rd		r;

	it->n = 0;
	it->blk = SIZE_MAX;
	if ((s = read_block(t, t->top[i].h, t->data_end, &it->dctx, &it->scratch, &it->raw)) != NULL)
		return s;
	cf_rd_init(&r, it->raw.data, it->raw.len);
	while (cf_rd_left(&r) > 0)
	{
		key_entry	e;
		cf_sstable_row x;

		e.off = r.pos;
		parse_entry(&r, &x, false);
		if (!cf_rd_ok(&r))
			break;
		e.tok = x.tok;
		e.key = x.key;
		e.len = r.pos - e.off;
		if (it->n > 0 && row_cmp(it->e[it->n - 1].tok, it->e[it->n - 1].key, e.tok, e.key) >= 0)
			return corrupt(t, "key index rows out of order", t->top[i].h.offset);
		if (!grow((void **) &it->e, &it->cap, it->n + 1, sizeof(key_entry)))
			return cf_status_make(CF_ERR_NO_MEMORY, "%s: key index", t->path);
		it->e[it->n++] = e;
	}
	if (!cf_rd_ok(&r) || it->n == 0)
		return corrupt(t, "malformed key-index block", t->top[i].h.offset);
	it->blk = i;
	return NULL;
}

cf_status *
cf_sstable_iter_new(cf_sstable *t, cf_sstable_iter **out)
{
	cf_sstable_iter *it = calloc(1, sizeof(*it));

	*out = NULL;
	if (it == NULL)
		return cf_status_make(CF_ERR_NO_MEMORY, "%s: iterator", t->path);
	cf_sstable_ref(t);
	it->t = t;
	it->blk = SIZE_MAX;
	*out = it;
	return NULL;
}

void
cf_sstable_iter_free(cf_sstable_iter *it)
{
	if (it == NULL)
		return;
	cf_buf_free(&it->scratch);
	cf_buf_free(&it->raw);
	cf_block_dctx_free(it->dctx);
	free(it->e);
	cf_sstable_unref(it->t);
	free(it);
}

/* Positions on entry pos of key-index block blk, moving on to later blocks as needed. */
static cf_status *
iter_settle(cf_sstable_iter *it, size_t blk, size_t pos)
{
	cf_status  *s;

	it->valid = false;
	for (;;)
	{
		if (blk >= it->t->n_top)
			return NULL;
		if (it->blk != blk && (s = load_kblock(it, blk)) != NULL)
			return s;
		if (pos < it->n)
			break;
		blk++;
		pos = 0;
	}
	it->pos = pos;
	it->valid = true;
	return NULL;
}

cf_status *
cf_sstable_iter_first(cf_sstable_iter *it)
{
	return iter_settle(it, 0, 0);
}

cf_status *
cf_sstable_iter_seek(cf_sstable_iter *it, cf_slice token, cf_slice key)
{
	const cf_sstable *t = it->t;
	size_t		lo = 0,
				hi = t->n_top;
	cf_status  *s;

	/* the first key-index block whose last row >= target */
	while (lo < hi)
	{
		size_t		mid = lo + (hi - lo) / 2;

		if (row_cmp(t->top[mid].last_tok, t->top[mid].last_key, token, key) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	it->valid = false;
	if (lo >= t->n_top)
		return NULL;
	if (it->blk != lo && (s = load_kblock(it, lo)) != NULL)
		return s;
	{
		size_t		b = lo;

		lo = 0;
		hi = it->n;
		while (lo < hi)
		{
			size_t		mid = lo + (hi - lo) / 2;

			if (row_cmp(it->e[mid].tok, it->e[mid].key, token, key) < 0)
				lo = mid + 1;
			else
				hi = mid;
		}
		return iter_settle(it, b, lo);
	}
}

cf_status *
cf_sstable_iter_next(cf_sstable_iter *it)
{
	return iter_settle(it, it->blk, it->pos + 1);
}

bool
cf_sstable_iter_valid(const cf_sstable_iter *it)
{
	return it->valid;
}

cf_slice
cf_sstable_iter_token(const cf_sstable_iter *it)
{
	return it->e[it->pos].tok;
}

cf_slice
cf_sstable_iter_key(const cf_sstable_iter *it)
{
	return it->e[it->pos].key;
}

cf_status *
cf_sstable_iter_row(cf_sstable_iter *it, cf_sstable_row **out)
{
	const key_entry *e = &it->e[it->pos];
	cf_sstable *t = it->t;
	cf_sstable_row *row;
	cf_sstable_row x;
	cf_rd		r;

	*out = NULL;
	cf_rd_init(&r, it->raw.data + e->off, e->len);
	parse_entry(&r, &x, false);	/* counts, proven present by load_kblock */
	row = calloc(1, sizeof(*row));
	if (row == NULL || (row->bytes = malloc(e->len ? e->len : 1)) == NULL ||
		(row->tombs = calloc(x.n_tombs + 1, sizeof(cf_range_tomb))) == NULL ||
		(row->top = calloc(x.n_top + 1, sizeof(col_entry))) == NULL)
	{
		if (row)
		{
			free(row->bytes);
			free(row->tombs);
		}
		free(row);
		return cf_status_make(CF_ERR_NO_MEMORY, "%s: row", t->path);
	}
	memcpy(row->bytes, it->raw.data + e->off, e->len);
	cf_rd_init(&r, row->bytes, e->len);
	parse_entry(&r, row, true);
	cf_sstable_ref(t);
	row->t = t;
	if (row->start.offset > t->data_end || row->start.size > t->data_end - row->start.offset)
	{
		cf_sstable_row_free(row);
		return corrupt(t, "row's data block handle out of bounds", t->top[it->blk].h.offset);
	}
	*out = row;
	return NULL;
}

cf_status *
cf_sstable_get(cf_sstable *t, cf_slice token, cf_slice key, cf_sstable_row **out)
{
	cf_sstable_iter it;
	cf_status  *s;

	*out = NULL;
	if (!cf_bloom_may_contain(t->bloom, key))
		return NULL;
	memset(&it, 0, sizeof(it));
	it.t = t;
	it.blk = SIZE_MAX;
	s = cf_sstable_iter_seek(&it, token, key);
	if (s == NULL && it.valid && cf_slice_eq(cf_sstable_iter_token(&it), token) &&
		cf_slice_eq(cf_sstable_iter_key(&it), key))
		s = cf_sstable_iter_row(&it, out);
	cf_buf_free(&it.scratch);
	cf_buf_free(&it.raw);
	cf_block_dctx_free(it.dctx);
	free(it.e);
	return s;
}

/* ---- rows ---- */

void
cf_sstable_row_free(cf_sstable_row *row)
{
	if (row == NULL)
		return;
	cf_sstable_unref(row->t);
	free(row->bytes);
	free(row->tombs);
	free(row->top);
	free(row);
}

cf_slice
cf_sstable_row_token(const cf_sstable_row *row)
{
	return row->tok;
}

cf_slice
cf_sstable_row_key(const cf_sstable_row *row)
{
	return row->key;
}

cf_deletion
cf_sstable_row_deletion(const cf_sstable_row *row)
{
	return row->del;
}

const cf_range_tomb *
cf_sstable_row_tombs(const cf_sstable_row *row, size_t *n)
{
	*n = row->n_tombs;
	return row->tombs;
}

uint64_t
cf_sstable_row_cell_count(const cf_sstable_row *row)
{
	return row->n_cells;
}

bool
cf_sstable_row_has_column_index(const cf_sstable_row *row)
{
	return row->n_top > 0;
}

/* ---- cells ---- */

static size_t
n_top_blocks(const cf_sstable_cells *ci)
{
	return ci->row->n_top ? ci->row->n_top : 1;
}

/* Loads column-index block i (for a narrow row: its one-entry stand-in). */
static cf_status *
load_colidx(cf_sstable_cells *ci, size_t i)
{
	const cf_sstable_row *row = ci->row;
	cf_sstable *t = ci->t;
	cf_status  *s;
	cf_rd		r;

	if (ci->top_i == i)
		return NULL;
	ci->top_i = SIZE_MAX;
	ci->n_ci = 0;
	if (row->n_top == 0)
	{
		if (!grow((void **) &ci->ci, &ci->ci_cap, 1, sizeof(col_entry)))
			return cf_status_make(CF_ERR_NO_MEMORY, "%s: column index", t->path);
		memset(&ci->ci[0], 0, sizeof(col_entry));
		ci->ci[0].h = row->start;
		ci->n_ci = 1;
		ci->top_i = 0;
		return NULL;
	}
	if ((s = read_block(t, row->top[i].h, t->data_end, &ci->dctx, &ci->scratch, &ci->ci_raw)) != NULL)
		return s;
	cf_rd_init(&r, ci->ci_raw.data, ci->ci_raw.len);
	while (cf_rd_left(&r) > 0)
	{
		col_entry	e;

		e.sc = cf_rd_slice(&r, CF_BLOCK_MAX_RAW);
		e.name = cf_rd_slice(&r, CF_BLOCK_MAX_RAW);
		e.h = cf_block_handle_get(&r);
		if (!cf_rd_ok(&r))
			break;
		if (!grow((void **) &ci->ci, &ci->ci_cap, ci->n_ci + 1, sizeof(col_entry)))
			return cf_status_make(CF_ERR_NO_MEMORY, "%s: column index", t->path);
		ci->ci[ci->n_ci++] = e;
	}
	if (!cf_rd_ok(&r) || ci->n_ci == 0)
		return corrupt(t, "malformed column-index block", row->top[i].h.offset);
	ci->top_i = i;
	return NULL;
}

/*
 * Parses one row's records of the loaded data block into ci->recs: from byte `from`
 * (the row's row-start record in its first block, 0 in a later block of a wide row)
 * up to the next row-start record or the block's end. Offsets are the block's.
 */
static cf_status *
parse_data(cf_sstable_cells *ci, uint64_t blk_off, uint64_t from)
{
	cf_rd		r;

	ci->n_recs = 0;
	if (from > ci->db_raw.len)
		return corrupt(ci->t, "row-start record not where the key index says", blk_off);
	cf_rd_init(&r, ci->db_raw.data + from, ci->db_raw.len - (size_t) from);
	while (cf_rd_left(&r) > 0)
	{
		data_rec	d;
		uint8_t		tag;

		if (ci->n_recs > 0 && r.p[r.pos] == CF_SST_TAG_ROW)
			break;				/* the next row's */
		memset(&d, 0, sizeof(d));
		d.off = from + r.pos;
		tag = cf_rd_u8(&r);
		if (tag == CF_SST_TAG_ROW)
		{
			d.row = true;
			d.c.sc = cf_rd_slice(&r, CF_BLOCK_MAX_RAW);
			d.c.name = cf_rd_slice(&r, CF_BLOCK_MAX_RAW);
		}
		else
		{
			if ((tag & ~CF_SST_TAG_CELL_MASK) ||
				(tag & (CF_CELL_DELETED | CF_CELL_EXPIRING)) == (CF_CELL_DELETED | CF_CELL_EXPIRING))
				return corrupt(ci->t, "bad record tag in data block", blk_off);
			d.c.flags = tag & (CF_CELL_DELETED | CF_CELL_EXPIRING);
			if (tag & CF_SST_TAG_SAME_SC)
			{
				if (ci->n_recs == 0 || ci->recs[ci->n_recs - 1].row)
					return corrupt(ci->t, "shared super column without a previous cell", blk_off);
				d.c.sc = ci->recs[ci->n_recs - 1].c.sc;
			}
			else
				d.c.sc = cf_rd_slice(&r, CF_BLOCK_MAX_RAW);
			d.c.name = cf_rd_slice(&r, CF_BLOCK_MAX_RAW);
			d.c.value = cf_rd_slice(&r, CF_BLOCK_MAX_RAW);
			d.c.timestamp = (int64_t) cf_rd_u64(&r);
			if (d.c.flags & CF_CELL_EXPIRING)
			{
				d.c.ttl = (int32_t) cf_rd_u32(&r);
				d.c.local_time = (int32_t) cf_rd_u32(&r);
			}
			if (d.c.flags & CF_CELL_DELETED)
				d.c.local_time = (int32_t) cf_rd_u32(&r);
		}
		if (!cf_rd_ok(&r))
			break;
		if (!grow((void **) &ci->recs, &ci->rec_cap, ci->n_recs + 1, sizeof(data_rec)))
			return cf_status_make(CF_ERR_NO_MEMORY, "%s: data block", ci->t->path);
		ci->recs[ci->n_recs++] = d;
	}
	if (!cf_rd_ok(&r))
		return corrupt(ci->t, "malformed data block", blk_off);
	return NULL;
}

/* Loads data block j of the loaded column-index block and finds the row's cells in it. */
static cf_status *
load_data(cf_sstable_cells *ci, size_t j)
{
	const cf_sstable_row *row = ci->row;
	cf_block_handle h = ci->ci[j].h;
	uint64_t	from = h.offset == row->start.offset ? row->row_off : 0;
	cf_status  *s;
	size_t		lo = 0,
				hi;

	ci->ci_i = j;
	if (ci->db_off != h.offset)
	{
		ci->db_off = UINT64_MAX;
		ci->parse_from = UINT64_MAX;
		if ((s = read_block(ci->t, h, ci->t->data_end, &ci->dctx, &ci->scratch, &ci->db_raw)) != NULL)
			return s;
		ci->db_off = h.offset;
	}
	if (ci->parse_from != from)
	{
		ci->parse_from = UINT64_MAX;
		if ((s = parse_data(ci, h.offset, from)) != NULL)
			return s;
		ci->parse_from = from;
	}
	if (h.offset == row->start.offset)
	{
		if (lo == ci->n_recs || ci->recs[lo].off != row->row_off || !ci->recs[lo].row ||
			!cf_slice_eq(ci->recs[lo].c.sc, row->tok) || !cf_slice_eq(ci->recs[lo].c.name, row->key))
			return corrupt(ci->t, "row-start record not where the key index says", h.offset);
		lo++;
	}
	for (hi = lo; hi < ci->n_recs && !ci->recs[hi].row; hi++)
		;
	if (row->n_top > 0 && lo == hi)
		return corrupt(ci->t, "data block of a wide row holds none of its cells", h.offset);
	ci->lo = lo;
	ci->hi = hi;
	return NULL;
}

/* Loads data block (top i, entry j); j SIZE_MAX means the last entry. */
static cf_status *
goto_block(cf_sstable_cells *ci, size_t i, size_t j)
{
	cf_status  *s = load_colidx(ci, i);

	if (s)
		return s;
	if (j == SIZE_MAX || j >= ci->n_ci)
		j = ci->n_ci - 1;
	return load_data(ci, j);
}

/* Moves to the next (dir > 0) or previous data block of the row; *ok false at the end. */
static cf_status *
step_block(cf_sstable_cells *ci, int dir, bool *ok)
{
	*ok = true;
	if (dir > 0)
	{
		if (ci->ci_i + 1 < ci->n_ci)
			return load_data(ci, ci->ci_i + 1);
		if (ci->top_i + 1 < n_top_blocks(ci))
			return goto_block(ci, ci->top_i + 1, 0);
	}
	else
	{
		if (ci->ci_i > 0)
			return load_data(ci, ci->ci_i - 1);
		if (ci->top_i > 0)
			return goto_block(ci, ci->top_i - 1, SIZE_MAX);
	}
	*ok = false;
	return NULL;
}

/* Records a move's outcome: an error invalidates the iterator. */
static cf_status *
settle(cf_sstable_cells *ci, cf_status *s, bool valid)
{
	ci->valid = s == NULL && valid;
	return s;
}

cf_status *
cf_sstable_cells_new(const cf_sstable_row *row, cf_sstable_cells **out)
{
	cf_sstable_cells *ci = calloc(1, sizeof(*ci));

	*out = NULL;
	if (ci == NULL)
		return cf_status_make(CF_ERR_NO_MEMORY, "%s: cell iterator", row->t->path);
	ci->row = row;
	ci->t = row->t;
	ci->top_i = SIZE_MAX;
	ci->db_off = UINT64_MAX;
	ci->parse_from = UINT64_MAX;
	*out = ci;
	return NULL;
}

void
cf_sstable_cells_reset(cf_sstable_cells *ci, const cf_sstable_row *row)
{
	/* the column index is the row's; the decoded data block (db_off, db_raw) the file's */
	ci->row = row;
	ci->top_i = SIZE_MAX;
	ci->n_ci = 0;
	ci->ci_i = 0;
	ci->lo = ci->hi = ci->pos = 0;
	ci->valid = false;
}

void
cf_sstable_cells_free(cf_sstable_cells *ci)
{
	if (ci == NULL)
		return;
	cf_buf_free(&ci->scratch);
	cf_block_dctx_free(ci->dctx);
	cf_buf_free(&ci->ci_raw);
	cf_buf_free(&ci->db_raw);
	free(ci->ci);
	free(ci->recs);
	free(ci);
}

cf_status *
cf_sstable_cells_first(cf_sstable_cells *ci)
{
	cf_status  *s = goto_block(ci, 0, 0);

	ci->pos = ci->lo;
	return settle(ci, s, s == NULL && ci->lo < ci->hi);
}

cf_status *
cf_sstable_cells_last(cf_sstable_cells *ci)
{
	cf_status  *s = goto_block(ci, n_top_blocks(ci) - 1, SIZE_MAX);

	ci->pos = ci->hi - 1;
	return settle(ci, s, s == NULL && ci->lo < ci->hi);
}

/* The last entry of e[0..n) whose first path is <= the target; SIZE_MAX if none. */
static size_t
find_entry(const cf_col_order *o, const col_entry *e, size_t n, cf_slice sc, cf_slice name,
		   bool open_end)
{
	size_t		lo = 0,
				hi = n;

	while (lo < hi)
	{
		size_t		mid = lo + (hi - lo) / 2;

		if (target_cmp(o, e[mid].sc, e[mid].name, sc, name, open_end) <= 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo == 0 ? SIZE_MAX : lo - 1;
}

/* Loads the data block that holds the last cell <= target (the first block if none). */
static cf_status *
find_block(cf_sstable_cells *ci, cf_slice sc, cf_slice name, bool open_end, bool *before_all)
{
	const cf_sstable_row *row = ci->row;
	size_t		i = 0,
				j;
	cf_status  *s;

	*before_all = false;
	if (row->n_top > 0)
	{
		i = find_entry(&ci->t->order, row->top, row->n_top, sc, name, open_end);
		if (i == SIZE_MAX)
		{
			*before_all = true;
			i = 0;
		}
	}
	if ((s = load_colidx(ci, i)) != NULL)
		return s;
	j = 0;
	if (row->n_top > 0)
	{
		j = find_entry(&ci->t->order, ci->ci, ci->n_ci, sc, name, open_end);
		if (j == SIZE_MAX)
		{
			*before_all = true;
			j = 0;
		}
	}
	return load_data(ci, j);
}

cf_status *
cf_sstable_cells_seek(cf_sstable_cells *ci, cf_slice sc, cf_slice name)
{
	const cf_col_order *o = &ci->t->order;
	bool		before,
				ok = true;
	cf_status  *s = find_block(ci, sc, name, false, &before);
	size_t		lo,
				hi;

	if (s)
		return settle(ci, s, false);
	lo = ci->lo;
	hi = ci->hi;
	while (lo < hi)
	{
		size_t		mid = lo + (hi - lo) / 2;

		if (cf_path_cmp(o, ci->recs[mid].c.sc, ci->recs[mid].c.name, sc, name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == ci->hi)
	{
		s = step_block(ci, 1, &ok);
		lo = ci->lo;
	}
	ci->pos = lo;
	return settle(ci, s, ok && ci->pos < ci->hi);
}

cf_status *
cf_sstable_cells_seek_le(cf_sstable_cells *ci, cf_slice sc, cf_slice name)
{
	const cf_col_order *o = &ci->t->order;
	bool		before,
				open_end = name.len == 0,
				ok = true;
	cf_status  *s = find_block(ci, sc, name, open_end, &before);
	size_t		lo,
				hi;

	if (s || before)
		return settle(ci, s, false);
	lo = ci->lo;
	hi = ci->hi;
	/* lo becomes the first cell > target */
	while (lo < hi)
	{
		size_t		mid = lo + (hi - lo) / 2;

		if (target_cmp(o, ci->recs[mid].c.sc, ci->recs[mid].c.name, sc, name, open_end) <= 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == ci->lo)
	{
		/* only a narrow row, or a corrupt first path, gets here */
		s = step_block(ci, -1, &ok);
		lo = ci->hi;
		if (s == NULL && ok && ci->lo == ci->hi)
			ok = false;
	}
	ci->pos = lo - 1;
	return settle(ci, s, ok && lo > ci->lo);
}

cf_status *
cf_sstable_cells_next(cf_sstable_cells *ci)
{
	bool		ok = true;
	cf_status  *s = NULL;

	if (++ci->pos >= ci->hi)
	{
		s = step_block(ci, 1, &ok);
		ci->pos = ci->lo;
	}
	return settle(ci, s, ok && ci->pos < ci->hi);
}

cf_status *
cf_sstable_cells_prev(cf_sstable_cells *ci)
{
	bool		ok = true;
	cf_status  *s = NULL;

	if (ci->pos == ci->lo)
	{
		s = step_block(ci, -1, &ok);
		ci->pos = ci->hi;
	}
	if (ci->pos == ci->lo)
		ok = false;
	ci->pos--;
	return settle(ci, s, ok);
}

bool
cf_sstable_cells_valid(const cf_sstable_cells *ci)
{
	return ci->valid;
}

void
cf_sstable_cells_cell(const cf_sstable_cells *ci, cf_cell *cell)
{
	*cell = ci->recs[ci->pos].c;
}
