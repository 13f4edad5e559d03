/*
 * storage/sstable_reader.c — opens an SSTable and reads rows and cells from it (see
 * sstable.h; the format is engine/doc/sstable_format.md).
 *
 * Design assumptions:
 *  - Open reads only the footer, the top-level index (one entry per key-index block),
 *    the bloom filter and the statistics; everything else is read per request —
 *    from the file mapped in memory when the env can map it (cf_rfile_map: no system
 *    call or copy per block), else with pread — verified (block checksum, handle bounds
 *    against the section it must lie in) and decoded, so an open cf_sstable is
 *    immutable and shared by threads without locks (only the refcount and the
 *    block-read counter are atomic).
 *  - Blocks are read through the block cache (util/cache.h) the table was opened with:
 *    a key-index, column-index or data block is read, checked, decompressed and
 *    indexed once, then served from memory to every reader until evicted. An entry is
 *    keyed by (the table's cache id, the block's offset); ids are unique in the
 *    process, so a table written where a deleted one was never sees its blocks. A
 *    table opened without a cache, and a reader told not to fill it (compaction),
 *    decode blocks privately (detached handles), kept for as long as the reader stays
 *    on them. Readers hold a handle on every block they point into, so eviction never
 *    frees bytes under them.
 *  - A decoded block is indexed when it is loaded: where each key-index entry, column-
 *    index entry or data record begins (u32 offsets; a data block also where each
 *    cell's super column is, and which records start rows). Loading parses every entry
 *    with the bounds-checked reader, so a malformed block is CF_ERR_CORRUPTION there;
 *    later decodes of the same bytes (binary-search probes, the current cell) use
 *    unchecked varint reads over those proven offsets. Nothing is parsed per call
 *    beyond what a probe touches: a point read binary-searches the key-index block,
 *    the row starts of the one data block its entry names, then that block's records,
 *    and decodes only the cells it returns.
 *  - The key index is sparse (version 2): one entry per data block in which rows start
 *    (its first row), plus one per wide row. The row iterator walks entries and, on a
 *    block's entry, the row-start records of that block (the narrow ones: a wide row
 *    at the end of the block is reached through its own entry, which follows).
 *  - A row handle holds the block its metadata lies in: a wide row's handle its
 *    key-index block, whose load indexed where each entry of the row's top level
 *    begins, so neither making the handle nor a seek parses the top level (a row of
 *    10M columns has ~140 entries there); a narrow row's handle copies its row-start
 *    record and holds its data block, which its cell iterators take over.
 *  - A row without a column index is treated as a row whose column index has exactly
 *    one entry (its start block), so one code path serves narrow and wide rows.
 */
#include "storage/sstable.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "storage/block.h"
#include "storage/bloom.h"
#include "storage/sstable_format.h"
#include "util/alloc.h"
#include "util/buf.h"
#include "util/cache.h"
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
	const uint8_t *map;			/* the file mapped (cf_rfile_map), or NULL: pread */
	char	   *path;
	cf_col_order order;
	int			refs;			/* atomic */
	uint64_t	block_reads;	/* atomic */
	cf_cache   *cache;			/* NULL: every block decoded privately */
	uint64_t	cache_id;		/* this table's part of the cache key */
	uint64_t	data_end;		/* data, column- and key-index blocks lie in [0, data_end) */
	cf_sstable_stats stats;
	cf_slice	first_tok, first_key, last_tok, last_key;	/* into stats_raw */
	cf_buf		stats_raw;
	cf_buf		top_raw;
	top_entry  *top;
	size_t		n_top;
	/*
	 * For the binary search of top: every last_tok shares its first pfx_skip bytes;
	 * top_pfx[i] is the next 8 bytes of top[i].last_tok (big-endian, zero-padded), so a
	 * probe reads 8 bytes of one array instead of an entry and its token elsewhere.
	 */
	size_t		pfx_skip;
	uint64_t   *top_pfx;
	uint8_t    *bloom_bytes;
	cf_bloom   *bloom;
};

/* What a block of the block region is; a cached block is only ever used as what it was read as. */
typedef enum blk_kind
{
	BLK_KEY_INDEX = 1,
	BLK_COL_INDEX,
	BLK_DATA
} blk_kind;

/* Where an entry or record begins, and one more offset: see cblk. */
typedef struct blk_at
{
	uint32_t	at;
	uint32_t	aux;
} blk_at;

/*
 * A decoded, indexed block, as the cache holds it (immutable once loaded).
 *  - key index: ix[i].at where entry i begins, ix[i].aux where its token (bytes) is;
 *    the top level of a row entry i (its col_entry list) begins at tops[top_first[i]
 *    .. top_first[i + 1]) (top_first has n + 1 elements; a block entry's range is empty);
 *    when a row entry's top-level entries qualify as a column-index block's do for its
 *    dense key array (below), tk[i].aux is their names' length and keys + tk[i].at
 *    holds the names with their summary levels (tk NULL when no entry has them);
 *  - column index: ix[i].at where entry i begins; when every entry has the same super
 *    column (byte for byte) and a name of the same length klen <= DENSE_KEY_MAX, keys
 *    holds the names one after the other (entry i's at keys + i * klen), so a search
 *    probes one dense array instead of ix and the entry it points at (klen 0: none),
 *    followed by its summary levels (see key_levels_build);
 *  - data: ix[i].at where record i begins; for a cell, ix[i].aux where its super column
 *    (bytes) is — its own, or the one SAME_SC refers to; rows[] the record numbers of
 *    the row-start records, ascending.
 * A key-index block, which a point read binary-searches while it sits in the cache
 * (cold), also has pfx[]: the 8 bytes of each entry's token after the pfx_skip bytes
 * every token of the block shares (token_pfx), so a probe reads one integer of a
 * small array and the entry itself only on a tie. (A data block is searched mostly
 * right after it is decoded, still in the CPU's cache: it has none.)
 */
typedef struct cblk
{
	blk_kind	kind;
	uint64_t	size;			/* its handle's size */
	const uint8_t *data;
	size_t		len;
	blk_at	   *ix;
	uint32_t	n;
	uint32_t	n_rows;
	uint32_t   *rows;
	uint32_t   *top_first;		/* key index only (else NULL) */
	uint32_t   *tops;
	uint32_t	n_tops;
	uint32_t	klen;			/* column index only (else 0) */
	blk_at	   *tk;				/* key index only: see above (else NULL) */
	const uint8_t *keys;
	uint64_t   *pfx;			/* key index: n entries; else none */
	size_t		pfx_skip;
	size_t		cap;			/* bytes of its allocation */
	bool		recycle;		/* kept as its thread's spare when released */
	/* then pfx, ix, rows, top_first, tops, tk, keys and data, in the same allocation */
} cblk;

/*
 * Longest name a column-index block keeps in its dense key array: LongType names are
 * 8 bytes, UUIDs 16; longer ones (or names of several lengths) are searched through ix.
 */
#define DENSE_KEY_MAX 16

/*
 * A dense key array is searched as a static B-tree of cache lines: after the keys
 * (level 0) come summary levels, level k + 1 holding every KEY_GROUP(klen)-th key of
 * level k, until a level has at most one group; every level starts on a KEY_LINE
 * boundary. A search takes the top level, then one group of each level below: about
 * one cache line a level, the top ones shared by every search of the block, instead of
 * a binary search's ~log2(n / group) lines scattered over the array (~9 of them in a
 * 4000-entry column-index block of a 10M-column row, each a cache miss there).
 */
#define KEY_LINE 64
#define KEY_GROUP(klen) (KEY_LINE / (klen))

/* x rounded up to a multiple of KEY_LINE. */
static size_t
line_up(size_t x)
{
	return (x + KEY_LINE - 1) & ~((size_t) KEY_LINE - 1);
}

/* The most of a data block's records load_data prefetches (see there). */
#define PREFETCH_MAX 4096

/* Asks the CPU to bring the n bytes at p into its cache (a hint: no fault, no wait). */
static inline void
prefetch_range(const void *p, size_t n)
{
	const char *c = (const char *) ((uintptr_t) p & ~(uintptr_t) (KEY_LINE - 1));

	for (; c < (const char *) p + n; c += KEY_LINE)
		__builtin_prefetch(c);
}

/* Bytes of n dense keys of klen (1..DENSE_KEY_MAX) with their summary levels. */
static size_t
key_levels_bytes(size_t n, size_t klen)
{
	size_t		g = KEY_GROUP(klen),
				total = line_up(n * klen);

	for (; n > g; total += line_up(n * klen))
		n = (n + g - 1) / g;
	return total;
}

/* Fills the summary levels after the n keys of klen at keys (KEY_LINE aligned). */
static void
key_levels_build(uint8_t *keys, size_t n, size_t klen)
{
	size_t		g = KEY_GROUP(klen);

	while (n > g)
	{
		size_t		m = (n + g - 1) / g;
		uint8_t    *up = keys + line_up(n * klen);

		for (size_t i = 0; i < m; i++)
			memcpy(up + i * klen, keys + i * g * klen, klen);
		keys = up;
		n = m;
	}
}

/*
 * Is the dense key at k (klen bytes) <= name under t? u64 set: the keys and name are 8
 * bytes of a type that orders them as big-endian integers (LongType signed, the byte
 * types unsigned), and target is name so loaded, its sign bit flipped when signed.
 */
static inline bool
key_le(cf_type t, const uint8_t *k, size_t klen, cf_slice name, bool u64, uint64_t flip,
	   uint64_t target)
{
	if (u64)
		return (cf_load_be64(k) ^ flip) <= target;
	return cf_type_compare(t, cf_slice_of(k, klen), name) <= 0;
}

/*
 * The last of the n keys of klen at keys (with their summary levels) that is <= name
 * under t; SIZE_MAX if none. Keys in order, as a column index's are. aux is an array of
 * n elements of aux_size bytes the caller reads at the answer next: the elements of the
 * group the answer lies in are prefetched while level 0 is searched.
 */
static size_t
key_levels_search(cf_type t, const uint8_t *keys, size_t n, size_t klen, cf_slice name,
				  const void *aux, size_t aux_size)
{
	const uint8_t *lv[64];
	size_t		cnt[64],
				g = KEY_GROUP(klen),
				lo = 0,
				hi;
	int			k = 0;
	bool		u64 = klen == 8 && name.len == 8 &&
		(t == CF_TYPE_LONG || t == CF_TYPE_BYTES || t == CF_TYPE_ASCII || t == CF_TYPE_UTF8);
	uint64_t	flip = t == CF_TYPE_LONG ? (uint64_t) 1 << 63 : 0,
				target = u64 ? cf_load_be64(name.p) ^ flip : 0;

	lv[0] = keys;
	cnt[0] = n;
	/* g >= 4 and n < 2^32: far fewer than 64 levels */
	while (cnt[k] > g)
	{
		lv[k + 1] = lv[k] + line_up(cnt[k] * klen);
		cnt[k + 1] = (cnt[k] + g - 1) / g;
		k++;
	}
	hi = cnt[k];
	for (;; k--)
	{
		size_t		a = lo,
					b = hi;

		while (a < b)
		{
			size_t		mid = a + (b - a) / 2;

			if (key_le(t, lv[k] + mid * klen, klen, name, u64, flip, target))
				a = mid + 1;
			else
				b = mid;
		}
		/* below the top, the group's first key is its parent, already <= name */
		if (a == lo)
			return SIZE_MAX;
		if (k == 0)
			return a - 1;
		lo = (a - 1) * g;
		hi = lo + g < cnt[k - 1] ? lo + g : cnt[k - 1];
		if (k == 1)
			prefetch_range((const char *) aux + lo * aux_size, (hi - lo) * aux_size);
	}
}

struct cf_sstable_iter
{
	cf_sstable *t;
	bool		fill;			/* add the blocks it reads to the cache */
	cf_cache_handle *kh;		/* the key-index block loaded */
	const cblk  *kb;
	size_t		blk;			/* its index in t->top; SIZE_MAX: none */
	size_t		pos;			/* the entry in it */
	cf_cache_handle *dh;		/* the data block of a block entry, loaded */
	const cblk  *db;
	uint64_t	db_off;			/* its offset (UINT64_MAX: none) */
	size_t		drow;			/* on a block entry: the row, an index in db->rows */
	bool		valid;
	cf_slice	tok;			/* of entry pos, while valid */
	cf_slice	key;
};

struct cf_sstable_row
{
	cf_sstable *t;
	bool		fill;
	cf_block_handle start;
	uint64_t	row_off;
	cf_slice	tok;			/* into the row's copy of its entry */
	cf_slice	key;
	cf_deletion del;
	cf_range_tomb *tombs;
	size_t		n_tombs;
	uint64_t	n_cells;
	const uint8_t *tbase;		/* a wide row's key-index block's bytes... */
	const uint32_t *top_at;		/* ...where each entry of its top level begins there */
	size_t		n_top;			/* column-index blocks; none for a narrow row */
	const uint8_t *top_keys;	/* its top level's dense names, if it has them (cblk.tk) */
	size_t		top_klen;		/* their length; 0: none */
	cf_cache_handle *kh;		/* a wide row's key-index block (NULL for a narrow row) */
	cf_cache_handle *dh;		/* a narrow row's data block (NULL for a wide row) */
	/* then tombs and (a narrow row) its record's bytes, in the same allocation */
};

struct cf_sstable_cells
{
	const cf_sstable_row *row;
	cf_sstable *t;
	bool		fill;
	cf_cache_handle *cih;		/* column-index block loaded (a wide row's) */
	const cblk  *cb;
	size_t		n_ci;			/* entries in it (1 for a narrow row's stand-in) */
	size_t		top_i;			/* which one (SIZE_MAX: none) */
	size_t		ci_i;			/* the data block loaded, in the column index */
	cf_cache_handle *dh;		/* data block loaded */
	const cblk  *db;
	uint64_t	db_off;			/* its file offset (UINT64_MAX: none) */
	size_t		lo;				/* the row's cells in it: records [lo, hi) */
	size_t		hi;
	size_t		pos;
	bool		valid;
	cf_cell		cur;			/* record pos, while valid */
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

/* ---- unchecked decoding of bytes a block's load has proven well-formed ---- */

static inline uint64_t
dec_varint(const uint8_t **pp)
{
	const uint8_t *p = *pp;
	uint64_t	v = *p & 0x7f;
	unsigned	shift = 7;

	while (*p++ & 0x80)
	{
		v |= (uint64_t) (*p & 0x7f) << shift;
		shift += 7;
	}
	*pp = p;
	return v;
}

static inline cf_slice
dec_bytes(const uint8_t **pp)
{
	size_t		n = (size_t) dec_varint(pp);
	cf_slice	s = cf_slice_of(*pp, n);

	*pp += n;
	return s;
}

static inline uint64_t
dec_u64(const uint8_t **pp)
{
	uint64_t	v = cf_load_be64(*pp);

	*pp += 8;
	return v;
}

static inline uint32_t
dec_u32(const uint8_t **pp)
{
	uint32_t	v = cf_load_be32(*pp);

	*pp += 4;
	return v;
}

/* ---- open ---- */

/* Reads a section block at open (not cached: the table keeps it). */
static cf_status *
read_block(cf_sstable *t, cf_block_handle h, uint64_t end, void **dctx, cf_buf *scratch,
		   cf_buf *out)
{
	__atomic_add_fetch(&t->block_reads, 1, __ATOMIC_RELAXED);
	return cf_block_read(t->file, h, end, dctx, scratch, out);
}

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

/* The 8 bytes of s after its first skip, big-endian, zero-padded. REQUIRES skip <= s.len. */
static uint64_t
token_pfx(cf_slice s, size_t skip)
{
	uint64_t	v = 0;

	if (s.len >= skip + 8)
		return cf_load_be64(s.p + skip);
	for (size_t i = 0; i < 8; i++)
		v = v << 8 | (skip + i < s.len ? s.p[skip + i] : 0);
	return v;
}

/* How many leading bytes a and b share. */
static size_t
shared_len(cf_slice a, cf_slice b)
{
	size_t		n = 0;

	while (n < a.len && n < b.len && a.p[n] == b.p[n])
		n++;
	return n;
}

/*
 * For a binary search over tokens that all share their first skip bytes (ref is one of
 * them): *tp is the target token's token_pfx after skip. false when the target does
 * not begin with those bytes: then the prefixes say nothing, and whole rows decide.
 */
static bool
target_pfx(cf_slice token, cf_slice ref, size_t skip, uint64_t *tp)
{
	if (token.len < skip || (skip > 0 && memcmp(token.p, ref.p, skip) != 0))
		return false;
	*tp = token_pfx(token, skip);
	return true;
}

/*
 * Sign of (an indexed row whose token's prefix is p) - target (prefix tp), when
 * has_tp and the prefixes differ; 0 when only the whole rows can tell.
 */
static inline int
pfx_order(bool has_tp, uint64_t p, uint64_t tp)
{
	return !has_tp || p == tp ? 0 : p < tp ? -1 : 1;
}

/* top_pfx and pfx_skip (see cf_sstable). */
static cf_status *
index_top(cf_sstable *t)
{
	if (t->n_top == 0)
		return NULL;
	/* sorted: what the first and last share, every one in between shares */
	t->pfx_skip = shared_len(t->top[0].last_tok, t->top[t->n_top - 1].last_tok);
	if ((t->top_pfx = malloc(t->n_top * sizeof(uint64_t))) == NULL)
		return cf_status_make(CF_ERR_NO_MEMORY, "%s: top-level index", t->path);
	for (size_t i = 0; i < t->n_top; i++)
		t->top_pfx[i] = token_pfx(t->top[i].last_tok, t->pfx_skip);
	return NULL;
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
	if (version == CF_SSTABLE_VERSION_DENSE_INDEX)
		return cf_status_make(CF_ERR_CORRUPTION,
							  "%s: sstable format version %d (one key-index entry per row) is "
							  "no longer read; this build reads version %d only: load the data "
							  "again (e.g. a dump of it) with this build", t->path,
							  CF_SSTABLE_VERSION_DENSE_INDEX, CF_SSTABLE_VERSION);
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
		s = index_top(t);
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
	if (t->cache)
	{
		/* no reader is left: its blocks can go now rather than age out */
		cf_cache_erase_id(t->cache, t->cache_id);
		cf_cache_unref(t->cache);
	}
	cf_bloom_free(t->bloom);
	free(t->bloom_bytes);
	free(t->top);
	free(t->top_pfx);
	cf_buf_free(&t->top_raw);
	cf_buf_free(&t->stats_raw);
	cf_rfile_close(t->file);
	free(t->path);
	free(t);
}

cf_status *
cf_sstable_open(cf_env *env, const char *path, const cf_col_order *order, cf_sstable **out)
{
	return cf_sstable_open_cached(env, path, order, NULL, out);
}

cf_status *
cf_sstable_open_cached(cf_env *env, const char *path, const cf_col_order *order,
					   cf_cache *cache, cf_sstable **out)
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
	t->cache_id = cf_cache_new_id();
	if (cache)
	{
		cf_cache_ref(cache);
		t->cache = cache;
	}
	s = cf_env_open_read(env, path, &t->file);
	if (s == NULL)
	{
		t->map = cf_rfile_map(t->file);
		s = open_sections(t);
	}
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

/* ---- blocks: load, index, cache ---- */

/*
 * A thread's scratch for loading blocks: the stored bytes, the decoded bytes and the
 * index being built, reused from one load to the next so a cache miss allocates only
 * the block it adds (freed when the thread exits).
 */
typedef struct load_scratch
{
	cf_buf		stored;
	cf_buf		raw;
	blk_at	   *ix;
	size_t		ix_cap;
	size_t		n;
	uint32_t   *rows;
	size_t		rows_cap;
	size_t		n_rows;
	uint32_t   *tops;			/* a key-index block's cblk.tops and top_first */
	size_t		tops_cap;
	size_t		n_tops;
	uint32_t   *top_first;
	size_t		tf_cap;
	blk_at	   *tk;				/* a key-index block's cblk.tk, one per entry */
	size_t		tk_cap;
	size_t		tk_bytes;		/* the dense top-level names it needs, 0: no tk */
	size_t		klen;			/* a column-index block's cblk.klen */
	cblk	   *spare;			/* a released uncached block's memory, for the next */
} load_scratch;

static pthread_key_t scratch_key;
static pthread_once_t scratch_once = PTHREAD_ONCE_INIT;
static bool scratch_key_ok;

static void
scratch_destroy(void *p)
{
	load_scratch *sc = p;

	cf_buf_free(&sc->stored);
	cf_buf_free(&sc->raw);
	free(sc->ix);
	free(sc->rows);
	free(sc->tops);
	free(sc->top_first);
	free(sc->tk);
	free(sc->spare);
	free(sc);
}

static void
scratch_key_init(void)
{
	scratch_key_ok = pthread_key_create(&scratch_key, scratch_destroy) == 0;
}

/* The calling thread's scratch; NULL on no memory. */
static load_scratch *
thread_scratch(void)
{
	load_scratch *sc;

	pthread_once(&scratch_once, scratch_key_init);
	if (!scratch_key_ok)
		return NULL;
	if ((sc = pthread_getspecific(scratch_key)) == NULL && (sc = calloc(1, sizeof(*sc))) != NULL &&
		pthread_setspecific(scratch_key, sc) != 0)
	{
		free(sc);
		sc = NULL;
	}
	return sc;
}

/*
 * A block's deleter. A block of at most SPARE_MAX bytes becomes the releasing thread's
 * spare (the one before it is freed), for load_block's next block: a scan's uncached
 * blocks reuse one allocation block after block, and a cold read's fill reuses the
 * block its insert evicted — instead of a malloc and a free of a few KiB each, which
 * glibc serves from its large bins.
 */
static void
blk_free(void *p)
{
	cblk	   *b = p;
	load_scratch *sc;

	if (b->recycle && (sc = thread_scratch()) != NULL)
	{
		free(sc->spare);
		sc->spare = b;
		return;
	}
	free(b);
}

/* Appends v to the u32 array *arr of *n elements (capacity *cap); false on no memory. */
static bool
u32_push(uint32_t **arr, size_t *cap, size_t *n, size_t v)
{
	if (!grow((void **) arr, cap, *n + 1, sizeof(uint32_t)))
		return false;
	(*arr)[(*n)++] = (uint32_t) v;
	return true;
}

/* Appends (at, aux) to the scratch index; false on no memory. */
static bool
ix_push(load_scratch *sc, size_t at, size_t aux)
{
	if (!grow((void **) &sc->ix, &sc->ix_cap, sc->n + 1, sizeof(blk_at)))
		return false;
	sc->ix[sc->n].at = (uint32_t) at;
	sc->ix[sc->n].aux = (uint32_t) aux;
	sc->n++;
	return true;
}

/*
 * Parses a row's deletion and range tombstones (u8 has_deletion [deletion] | varint
 * n_tombs | tomb x n_tombs) into x; tombs filled only with fill set, into an array with
 * room for the count a first pass left in x->n_tombs (a first pass proves the elements
 * are there, so that count is bounded by the bytes' size). Failures show in cf_rd_ok(r).
 */
static void
parse_meta(cf_rd *r, cf_sstable_row *x, bool fill)
{
	uint64_t	n;

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
	x->n_tombs = cf_rd_ok(r) ? (size_t) n : 0;
}

/*
 * Parses one key-index entry into x: its kind (CF_SST_ENTRY_*), row (token, key) and
 * handle; for a ROW entry also the rest of a row (as parse_meta for fill and tombs)
 * and its top level's size (x->n_top). With top_from set, the top level's entries are
 * parsed too and *top_from receives the reader position of the first; without, they
 * are skipped unread, which only a caller whose block's load parsed them may do (the
 * reader is left inside the entry). *tok_at, if not NULL, receives the reader position
 * of the token. Failures show in cf_rd_ok(r).
 */
static void
parse_entry(cf_rd *r, cf_sstable_row *x, bool fill, size_t *tok_at, uint8_t *kind,
			size_t *top_from)
{
	uint64_t	n;

	*kind = cf_rd_u8(r);
	if (tok_at)
		*tok_at = r->pos;
	x->tok = cf_rd_slice(r, CF_BLOCK_MAX_RAW);
	x->key = cf_rd_slice(r, CF_BLOCK_MAX_RAW);
	x->start = cf_block_handle_get(r);
	x->row_off = 0;
	x->del = cf_deletion_none();
	x->n_tombs = 0;
	x->n_cells = 0;
	x->n_top = 0;
	if (*kind == CF_SST_ENTRY_BLOCK)
		return;
	if (*kind != CF_SST_ENTRY_ROW)
	{
		cf_rd_fail(r);
		return;
	}
	x->row_off = cf_rd_varint(r);
	parse_meta(r, x, fill);
	x->n_cells = cf_rd_varint(r);
	n = cf_rd_varint(r);
	if (n == 0 || n > cf_rd_left(r))
		cf_rd_fail(r);			/* a wide row has a column index */
	if (top_from)
		*top_from = r->pos;
	for (uint64_t i = 0; top_from && cf_rd_ok(r) && i < n; i++)
	{
		(void) cf_rd_slice(r, CF_BLOCK_MAX_RAW);	/* super column */
		(void) cf_rd_slice(r, CF_BLOCK_MAX_RAW);	/* name */
		(void) cf_block_handle_get(r);
	}
	x->n_top = cf_rd_ok(r) ? (size_t) n : 0;
}

/*
 * Whether a run of column-index entries (a column-index block's, or a row's top level)
 * qualifies for a dense key array: one super column, byte for byte, and names of one
 * length of 1..DENSE_KEY_MAX bytes.
 */
typedef struct dense_check
{
	cf_slice	sc0;
	size_t		klen;
	size_t		n;
	bool		dense;
} dense_check;

static void
dense_add(dense_check *d, cf_slice esc, cf_slice name)
{
	if (d->n++ == 0)
	{
		d->sc0 = esc;
		d->klen = name.len;
		d->dense = name.len > 0 && name.len <= DENSE_KEY_MAX;
	}
	else if (d->dense && (name.len != d->klen || !cf_slice_eq(esc, d->sc0)))
		d->dense = false;
}

/* The names' length if the run qualifies, else 0. */
static size_t
dense_klen(const dense_check *d)
{
	return d->n > 0 && d->dense ? d->klen : 0;
}

/*
 * The index builders below parse a decoded block (data, len) into the thread's scratch
 * (sc->ix, sc->rows), every entry with the bounds-checked reader: anything malformed
 * is CF_ERR_CORRUPTION naming the block.
 */

/*
 * A key-index block: every entry parsed, rows in strictly increasing order; where each
 * entry of a row entry's top level begins goes to sc->tops, entry i's first in
 * sc->top_first[i] (one more element at the end: the count).
 */
static cf_status *
index_kblock(const cf_sstable *t, const uint8_t *data, size_t len, load_scratch *sc,
			 uint64_t off)
{
	cf_rd		r;
	cf_slice	ptok = {0},
				pkey = {0};
	size_t		n_first = 0;

	cf_rd_init(&r, data, len);
	while (cf_rd_left(&r) > 0)
	{
		cf_sstable_row x;
		size_t		at = r.pos,
					tok_at,
					top_from = 0;
		uint8_t		kind;
		const uint8_t *p;
		dense_check dc;

		parse_entry(&r, &x, false, &tok_at, &kind, &top_from);
		if (!cf_rd_ok(&r))
			break;
		if (sc->n > 0 && row_cmp(ptok, pkey, x.tok, x.key) >= 0)
			return corrupt(t, "key index rows out of order", off);
		if (x.start.offset > t->data_end || x.start.size > t->data_end - x.start.offset)
			return corrupt(t, "key-index entry's data block handle out of bounds", off);
		if (!ix_push(sc, at, tok_at) ||
			!u32_push(&sc->top_first, &sc->tf_cap, &n_first, sc->n_tops))
			return cf_status_make(CF_ERR_NO_MEMORY, "%s: key index", t->path);
		/* the top level just parsed: its entries' offsets, decoded unchecked */
		p = data + top_from;
		dc = (dense_check) {0};
		for (size_t i = 0; i < x.n_top; i++)
		{
			cf_slice	esc;

			if (!u32_push(&sc->tops, &sc->tops_cap, &sc->n_tops, (size_t) (p - data)))
				return cf_status_make(CF_ERR_NO_MEMORY, "%s: key index", t->path);
			esc = dec_bytes(&p);
			dense_add(&dc, esc, dec_bytes(&p));
			(void) dec_varint(&p);
			(void) dec_varint(&p);
		}
		/* where its dense names will go (load_block copies them) */
		if (!grow((void **) &sc->tk, &sc->tk_cap, sc->n, sizeof(blk_at)))
			return cf_status_make(CF_ERR_NO_MEMORY, "%s: key index", t->path);
		sc->tk[sc->n - 1].at = (uint32_t) sc->tk_bytes;
		sc->tk[sc->n - 1].aux = (uint32_t) dense_klen(&dc);
		if (dense_klen(&dc))
			sc->tk_bytes += key_levels_bytes(x.n_top, dense_klen(&dc));
		ptok = x.tok;
		pkey = x.key;
	}
	if (!cf_rd_ok(&r) || sc->n == 0)
		return corrupt(t, "malformed key-index block", off);
	if (!u32_push(&sc->top_first, &sc->tf_cap, &n_first, sc->n_tops))
		return cf_status_make(CF_ERR_NO_MEMORY, "%s: key index", t->path);
	return NULL;
}

/*
 * A column-index block: (bytes sc, bytes name, handle) entries, at least one; sc->klen
 * is the length of their names when they qualify for the dense array (see cblk), else 0.
 */
static cf_status *
index_colblock(const cf_sstable *t, const uint8_t *data, size_t len, load_scratch *sc,
			   uint64_t off)
{
	cf_rd		r;
	dense_check dc = {0};

	cf_rd_init(&r, data, len);
	while (cf_rd_left(&r) > 0)
	{
		size_t		at = r.pos;
		cf_slice	esc = cf_rd_slice(&r, CF_BLOCK_MAX_RAW);
		cf_slice	name = cf_rd_slice(&r, CF_BLOCK_MAX_RAW);

		(void) cf_block_handle_get(&r);
		if (!cf_rd_ok(&r))
			break;
		dense_add(&dc, esc, name);
		if (!ix_push(sc, at, 0))
			return cf_status_make(CF_ERR_NO_MEMORY, "%s: column index", t->path);
	}
	if (!cf_rd_ok(&r) || sc->n == 0)
		return corrupt(t, "malformed column-index block", off);
	sc->klen = dense_klen(&dc);
	return NULL;
}

/*
 * A data block: every record parsed (row starts and cells), each cell's super column
 * located (a SAME_SC cell's is the previous cell's, which must be a cell of the same
 * row: the record before it, not a row start).
 */
static cf_status *
index_datablock(const cf_sstable *t, const uint8_t *data, size_t len, load_scratch *sc,
				uint64_t off)
{
	cf_rd		r;
	bool		prev_cell = false;
	size_t		prev_sc = 0;
	cf_slice	ptok = {0},
				pkey = {0};

	cf_rd_init(&r, data, len);
	while (cf_rd_left(&r) > 0)
	{
		size_t		at = r.pos,
					sc_at = 0;
		uint8_t		tag = cf_rd_u8(&r);

		if (tag == CF_SST_TAG_ROW || tag == CF_SST_TAG_ROW_WIDE)
		{
			cf_sstable_row x;

			x.tok = cf_rd_slice(&r, CF_BLOCK_MAX_RAW);
			x.key = cf_rd_slice(&r, CF_BLOCK_MAX_RAW);
			parse_meta(&r, &x, false);
			prev_cell = false;
			if (!cf_rd_ok(&r))
				break;
			if (sc->n_rows > 0 && row_cmp(ptok, pkey, x.tok, x.key) >= 0)
				return corrupt(t, "data block rows out of order", off);
			/* a wide row continues past the block: no row starts after it */
			if (sc->n_rows > 0 && data[sc->ix[sc->rows[sc->n_rows - 1]].at] == CF_SST_TAG_ROW_WIDE)
				return corrupt(t, "a row starts after a wide row in a data block", off);
			ptok = x.tok;
			pkey = x.key;
			if (!u32_push(&sc->rows, &sc->rows_cap, &sc->n_rows, sc->n))
				return cf_status_make(CF_ERR_NO_MEMORY, "%s: data block", t->path);
		}
		else
		{
			if ((tag & ~CF_SST_TAG_CELL_MASK) ||
				(tag & (CF_CELL_DELETED | CF_CELL_EXPIRING)) == (CF_CELL_DELETED | CF_CELL_EXPIRING))
				return corrupt(t, "bad record tag in data block", off);
			if (tag & CF_SST_TAG_SAME_SC)
			{
				if (!prev_cell)
					return corrupt(t, "shared super column without a previous cell", off);
				sc_at = prev_sc;
			}
			else
			{
				sc_at = r.pos;
				(void) cf_rd_slice(&r, CF_BLOCK_MAX_RAW);
			}
			(void) cf_rd_slice(&r, CF_BLOCK_MAX_RAW);	/* name */
			(void) cf_rd_slice(&r, CF_BLOCK_MAX_RAW);	/* value */
			(void) cf_rd_u64(&r);	/* timestamp */
			if (tag & CF_CELL_EXPIRING)
				(void) cf_rd_u64(&r);	/* ttl, expiry */
			if (tag & CF_CELL_DELETED)
				(void) cf_rd_u32(&r);	/* local deletion time */
			prev_cell = true;
			prev_sc = sc_at;
			if (!cf_rd_ok(&r))
				break;
		}
		if (!ix_push(sc, at, sc_at))
			return cf_status_make(CF_ERR_NO_MEMORY, "%s: data block", t->path);
	}
	if (!cf_rd_ok(&r))
		return corrupt(t, "malformed data block", off);
	return NULL;
}

/* The token of key-index entry i of b. */
static cf_slice
pfx_token(const cblk *b, size_t i)
{
	const uint8_t *p = b->data + b->ix[i].aux;

	return dec_bytes(&p);
}

/* Fills b->pfx_skip and b->pfx[0..n) (see cblk) from the block's indexed tokens. */
static void
index_prefixes(cblk *b, size_t n)
{
	/* sorted: what the first and last share, every one in between shares */
	b->pfx_skip = n ? shared_len(pfx_token(b, 0), pfx_token(b, n - 1)) : 0;
	for (size_t i = 0; i < n; i++)
		b->pfx[i] = token_pfx(pfx_token(b, i), b->pfx_skip);
}

/* Largest block allocation kept as a thread's spare (most blocks are a few KiB). */
#define SPARE_MAX ((size_t) 256 << 10)

/*
 * Where entry i begins: data + the uint32_t that begins element i of at, an array of
 * elements of stride bytes (a block's ix of blk_at, or a run of tops' uint32_t).
 */
static inline const uint8_t *
entry_at(const uint8_t *data, const void *at, size_t stride, size_t i)
{
	return data + *(const uint32_t *) ((const char *) at + i * stride);
}

/*
 * Fills keys (KEY_LINE aligned, key_levels_bytes(n, klen) of them) with the names of n
 * column-index entries (entry_at(data, at, stride, i)) and their summary levels, each
 * name klen bytes long (proven by the index builder that chose klen).
 */
static void
dense_fill(uint8_t *keys, const uint8_t *data, const void *at, size_t stride, size_t n,
		   size_t klen)
{
	for (size_t i = 0; i < n; i++)
	{
		const uint8_t *e = entry_at(data, at, stride, i);

		(void) dec_bytes(&e);	/* its super column */
		memcpy(keys + i * klen, dec_bytes(&e).p, klen);
	}
	key_levels_build(keys, n, klen);
}

/*
 * Reads, checks, decodes and indexes the block at h as a block of kind into a new
 * cblk: one allocation holding the header, the index and the decoded bytes, the
 * thread's spare (see blk_free) when that is big enough. uncached: the block will not
 * enter the cache (a scan's). A cached block takes the spare only if at most a third
 * of it would go unused, since the cache charges the whole allocation (blk_charge).
 */
static cf_status *
load_block(cf_sstable *t, cf_block_handle h, blk_kind kind, bool uncached, cblk **out)
{
	load_scratch *sc = thread_scratch();
	cblk	   *b;
	uint8_t    *p;
	size_t		n_first,
				n_pfx,
				n_tk,
				keys_bytes,
				need;
	cf_status  *s;

	*out = NULL;
	if (sc == NULL)
		return cf_status_make(CF_ERR_NO_MEMORY, "%s: block", t->path);
	__atomic_add_fetch(&t->block_reads, 1, __ATOMIC_RELAXED);
	sc->n = sc->n_rows = sc->n_tops = sc->tk_bytes = 0;
	/* blocks are at most CF_BLOCK_MAX_RAW (64 MiB): offsets in them fit a u32 */
	s = t->map ? cf_block_read_mapped(t->map, t->path, h, t->data_end, NULL, &sc->raw) :
		cf_block_read(t->file, h, t->data_end, NULL, &sc->stored, &sc->raw);
	if (s == NULL)
		s = kind == BLK_KEY_INDEX ? index_kblock(t, sc->raw.data, sc->raw.len, sc, h.offset) :
			kind == BLK_COL_INDEX ? index_colblock(t, sc->raw.data, sc->raw.len, sc, h.offset) :
			index_datablock(t, sc->raw.data, sc->raw.len, sc, h.offset);
	if (s)
		return s;
	n_first = kind == BLK_KEY_INDEX ? sc->n + 1 : 0;
	n_pfx = kind == BLK_KEY_INDEX ? sc->n : 0;
	if (kind != BLK_COL_INDEX)
		sc->klen = 0;
	/* dense names: a column-index block's, or the top levels of a key-index block's rows */
	n_tk = kind == BLK_KEY_INDEX && sc->tk_bytes ? sc->n : 0;
	keys_bytes = sc->klen ? key_levels_bytes(sc->n, sc->klen) : n_tk ? sc->tk_bytes : 0;
	need = sizeof(cblk) + n_pfx * sizeof(uint64_t) + (sc->n + n_tk) * sizeof(blk_at) +
		(sc->n_rows + n_first + sc->n_tops) * sizeof(uint32_t) +
		(keys_bytes ? KEY_LINE - 1 + keys_bytes : 0) + sc->raw.len;
	if (sc->spare && sc->spare->cap >= need && (uncached || sc->spare->cap - need <= need / 2))
	{
		b = sc->spare;
		sc->spare = NULL;
	}
	else
	{
		if ((b = malloc(need)) == NULL)
			return cf_status_make(CF_ERR_NO_MEMORY, "%s: block", t->path);
		b->cap = need;
	}
	b->recycle = b->cap <= SPARE_MAX;
	b->kind = kind;
	b->size = h.size;
	b->n = (uint32_t) sc->n;
	b->n_rows = (uint32_t) sc->n_rows;
	b->n_tops = (uint32_t) sc->n_tops;
	b->pfx = (uint64_t *) (b + 1);	/* first: sizeof(cblk) keeps it 8-aligned */
	b->ix = (blk_at *) (b->pfx + n_pfx);
	b->rows = (uint32_t *) (b->ix + b->n);
	b->top_first = n_first ? b->rows + b->n_rows : NULL;
	b->tops = b->rows + b->n_rows + n_first;
	b->klen = (uint32_t) sc->klen;
	b->tk = n_tk ? (blk_at *) (b->tops + b->n_tops) : NULL;
	p = (uint8_t *) (b->tops + b->n_tops + 2 * n_tk);
	b->keys = keys_bytes ? (uint8_t *) line_up((uintptr_t) p) : NULL;
	/* a column-index block's names, proven by index_colblock */
	if (sc->klen)
		dense_fill((uint8_t *) b->keys, sc->raw.data, sc->ix, sizeof(blk_at), sc->n, sc->klen);
	/* the names of each row entry's top level, proven by index_kblock */
	if (n_tk)
		memcpy(b->tk, sc->tk, n_tk * sizeof(blk_at));
	for (size_t i = 0; i < n_tk; i++)
		if (sc->tk[i].aux)
			dense_fill((uint8_t *) b->keys + sc->tk[i].at, sc->raw.data,
					   sc->tops + sc->top_first[i], sizeof(uint32_t),
					   sc->top_first[i + 1] - sc->top_first[i], sc->tk[i].aux);
	if (keys_bytes)
		p = (uint8_t *) b->keys + keys_bytes;
	memcpy(b->ix, sc->ix, sc->n * sizeof(blk_at));
	if (sc->n_rows)
		memcpy(b->rows, sc->rows, sc->n_rows * sizeof(uint32_t));
	if (n_first)
		memcpy(b->top_first, sc->top_first, n_first * sizeof(uint32_t));
	if (sc->n_tops)
		memcpy(b->tops, sc->tops, sc->n_tops * sizeof(uint32_t));
	if (sc->raw.len)
		memcpy(p, sc->raw.data, sc->raw.len);
	b->data = p;
	b->len = sc->raw.len;
	index_prefixes(b, n_pfx);
	/* a big block once should not pin its memory in the thread's scratch forever */
	if (sc->stored.cap > ((size_t) 1 << 20))
		cf_buf_free(&sc->stored);
	if (sc->raw.cap > ((size_t) 1 << 20))
		cf_buf_free(&sc->raw);
	*out = b;
	return NULL;
}

/*
 * What a block costs the cache: its allocation (header, index and decoded bytes, and
 * any slack of a reused spare) and the bookkeeping.
 */
static size_t
blk_charge(const cblk *b)
{
	return b->cap + 64;
}

/*
 * A handle on the block at h, decoded as kind: from the table's cache if it holds it,
 * else loaded, and (when the table has a cache and fill is set) added to the cache.
 * *b points at the block while the handle is held.
 */
static cf_status *
get_block(cf_sstable *t, cf_block_handle h, blk_kind kind, bool fill, cf_cache_handle **out,
		  const cblk **b)
{
	cf_cache_handle *ch = NULL;
	cblk		   *nb;
	cf_status  *s;

	*out = NULL;
	*b = NULL;
	if (t->cache)
		ch = cf_cache_lookup(t->cache, t->cache_id, h.offset);
	if (ch == NULL)
	{
		if ((s = load_block(t, h, kind, !(t->cache && fill), &nb)) != NULL)
			return s;
		ch = t->cache && fill ? cf_cache_insert(t->cache, t->cache_id, h.offset, nb, blk_charge(nb), blk_free) :
			cf_cache_detached(nb, blk_free);
		if (ch == NULL)
		{
			blk_free(nb);
			return cf_status_make(CF_ERR_NO_MEMORY, "%s: block cache", t->path);
		}
	}
	*b = cf_cache_value(ch);
	if ((*b)->kind != kind || (*b)->size != h.size)
	{
		/* two handles of the file name the same offset as different blocks */
		cf_cache_release(ch);
		*b = NULL;
		return corrupt(t, "a block is referenced as two different blocks", h.offset);
	}
	*out = ch;
	return NULL;
}

/* The token and key of key-index entry i of b. */
static void
kentry_row(const cblk *b, size_t i, cf_slice *tok, cf_slice *key)
{
	const uint8_t *p = b->data + b->ix[i].aux;

	*tok = dec_bytes(&p);
	*key = dec_bytes(&p);
}

/* The token and key of data record i of b, a row start. */
static void
rec_row(const cblk *b, size_t i, cf_slice *tok, cf_slice *key)
{
	const uint8_t *p = b->data + b->ix[i].at + 1;

	*tok = dec_bytes(&p);
	*key = dec_bytes(&p);
}

/* The kind (CF_SST_ENTRY_*) of key-index entry i of b. */
static uint8_t
kentry_kind(const cblk *b, size_t i)
{
	return b->data[b->ix[i].at];
}

/* The data block handle of key-index entry i of b. */
static cf_block_handle
kentry_handle(const cblk *b, size_t i)
{
	const uint8_t *p = b->data + b->ix[i].aux;
	cf_block_handle h;

	(void) dec_bytes(&p);
	(void) dec_bytes(&p);
	h.offset = dec_varint(&p);
	h.size = dec_varint(&p);
	return h;
}

/* The col_entry at p (proven well-formed by its block's load). */
static col_entry
colentry_at(const uint8_t *p)
{
	col_entry	e;

	e.sc = dec_bytes(&p);
	e.name = dec_bytes(&p);
	e.h.offset = dec_varint(&p);
	e.h.size = dec_varint(&p);
	return e;
}

/* Entry i of a column-index block. */
static col_entry
colentry(const cblk *b, size_t i)
{
	return colentry_at(b->data + b->ix[i].at);
}

/* The path of data record i of b (a cell). */
static void
rec_path(const cblk *b, size_t i, cf_slice *sc, cf_slice *name)
{
	const uint8_t *p = b->data + b->ix[i].aux;

	*sc = dec_bytes(&p);
	p = b->data + b->ix[i].at;
	if (!(*p++ & CF_SST_TAG_SAME_SC))
		(void) dec_bytes(&p);
	*name = dec_bytes(&p);
}

/* Data record i of b, a cell. */
static void
rec_cell(const cblk *b, size_t i, cf_cell *c)
{
	const uint8_t *p = b->data + b->ix[i].aux;
	uint8_t		tag;

	memset(c, 0, sizeof(*c));
	c->sc = dec_bytes(&p);
	p = b->data + b->ix[i].at;
	tag = *p++;
	if (!(tag & CF_SST_TAG_SAME_SC))
		(void) dec_bytes(&p);
	c->flags = tag & (CF_CELL_DELETED | CF_CELL_EXPIRING);
	c->name = dec_bytes(&p);
	c->value = dec_bytes(&p);
	c->timestamp = (int64_t) dec_u64(&p);
	if (c->flags & CF_CELL_EXPIRING)
	{
		c->ttl = (int32_t) dec_u32(&p);
		c->local_time = (int32_t) dec_u32(&p);
	}
	if (c->flags & CF_CELL_DELETED)
		c->local_time = (int32_t) dec_u32(&p);
}

/* ---- key index: the row iterator ---- */

/* Makes nh (the data block at offset off) the one held in *dh, *db, *db_off. */
static void
hold_data(cf_cache_handle **dh, const cblk **db, uint64_t *db_off, cf_cache_handle *nh,
		  uint64_t off)
{
	cf_cache_release(*dh);
	*dh = nh;
	*db = cf_cache_value(nh);
	*db_off = off;
}

/* Makes key-index block i the iterator's. */
static cf_status *
load_kblock(cf_sstable_iter *it, size_t i)
{
	cf_cache_handle *h;
	const cblk  *b;
	cf_status  *s;

	if (it->blk == i)
		return NULL;
	if ((s = get_block(it->t, it->t->top[i].h, BLK_KEY_INDEX, it->fill, &h, &b)) != NULL)
		return s;
	cf_cache_release(it->kh);
	it->kh = h;
	it->kb = b;
	it->blk = i;
	return NULL;
}

/*
 * Makes the data block of block entry pos of the loaded key-index block the
 * iterator's, and checks that it starts with the narrow row the entry names.
 */
static cf_status *
iter_load_data(cf_sstable_iter *it, size_t pos)
{
	cf_block_handle h = kentry_handle(it->kb, pos);
	const cblk  *b;
	cf_slice	et,
				ek,
				rt,
				rk;
	cf_status  *s;

	if (it->db_off != h.offset)
	{
		cf_cache_handle *dh;

		if ((s = get_block(it->t, h, BLK_DATA, it->fill, &dh, &b)) != NULL)
			return s;
		hold_data(&it->dh, &it->db, &it->db_off, dh, h.offset);
	}
	b = it->db;
	if (b->size != h.size || b->n_rows == 0 || b->rows[0] != 0 ||
		b->data[b->ix[0].at] != CF_SST_TAG_ROW)
		return corrupt(it->t, "data block does not start with the row its key-index entry names",
					   h.offset);
	kentry_row(it->kb, pos, &et, &ek);
	rec_row(b, 0, &rt, &rk);
	if (!cf_slice_eq(et, rt) || !cf_slice_eq(ek, rk))
		return corrupt(it->t, "data block does not start with the row its key-index entry names",
					   h.offset);
	return NULL;
}

static void
iter_init(cf_sstable_iter *it, cf_sstable *t)
{
	memset(it, 0, sizeof(*it));
	it->t = t;
	it->fill = true;
	it->blk = SIZE_MAX;
	it->db_off = UINT64_MAX;
}

/* Releases the blocks it holds. */
static void
iter_release(cf_sstable_iter *it)
{
	cf_cache_release(it->kh);
	cf_cache_release(it->dh);
}

cf_status *
cf_sstable_iter_new(cf_sstable *t, cf_sstable_iter **out)
{
	cf_sstable_iter *it = malloc(sizeof(*it));

	*out = NULL;
	if (it == NULL)
		return cf_status_make(CF_ERR_NO_MEMORY, "%s: iterator", t->path);
	cf_sstable_ref(t);
	iter_init(it, t);
	*out = it;
	return NULL;
}

void
cf_sstable_iter_fill_cache(cf_sstable_iter *it, bool fill)
{
	it->fill = fill;
}

void
cf_sstable_iter_free(cf_sstable_iter *it)
{
	if (it == NULL)
		return;
	iter_release(it);
	cf_sstable_unref(it->t);
	free(it);
}

/*
 * Positions on entry pos of key-index block blk — on a block entry, on the narrow row
 * rows[r] of its data block — moving on to later entries and blocks as needed.
 */
static cf_status *
iter_settle(cf_sstable_iter *it, size_t blk, size_t pos, size_t r)
{
	cf_status  *s;

	it->valid = false;
	for (;;)
	{
		if (blk >= it->t->n_top)
			return NULL;
		if ((s = load_kblock(it, blk)) != NULL)
			return s;
		if (pos >= it->kb->n)
		{
			blk++;
			pos = r = 0;
			continue;
		}
		if (kentry_kind(it->kb, pos) == CF_SST_ENTRY_ROW)
		{
			kentry_row(it->kb, pos, &it->tok, &it->key);
			r = 0;
			break;
		}
		if ((s = iter_load_data(it, pos)) != NULL)
			return s;
		/* a wide row starting in the block is reached through its own entry */
		if (r < it->db->n_rows && it->db->data[it->db->ix[it->db->rows[r]].at] == CF_SST_TAG_ROW)
		{
			rec_row(it->db, it->db->rows[r], &it->tok, &it->key);
			break;
		}
		pos++;
		r = 0;
	}
	it->pos = pos;
	it->drow = r;
	it->valid = true;
	return NULL;
}

cf_status *
cf_sstable_iter_first(cf_sstable_iter *it)
{
	return iter_settle(it, 0, 0, 0);
}

cf_status *
cf_sstable_iter_seek(cf_sstable_iter *it, cf_slice token, cf_slice key)
{
	const cf_sstable *t = it->t;
	size_t		lo = 0,
				hi = t->n_top,
				b,
				e;
	cf_slice	mt,
				mk;
	uint64_t	tp = 0;
	bool		has_tp;
	cf_status  *s;

	/*
	 * The first key-index block whose last row >= target; both searches compare the
	 * tokens' bytes after the shared prefix, and whole rows only on a tie.
	 */
	has_tp = t->n_top > 0 && target_pfx(token, t->top[0].last_tok, t->pfx_skip, &tp);
	while (lo < hi)
	{
		size_t		mid = lo + (hi - lo) / 2;
		int			c = pfx_order(has_tp, t->top_pfx[mid], tp);

		if (c == 0)
			c = row_cmp(t->top[mid].last_tok, t->top[mid].last_key, token, key);
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	it->valid = false;
	if (lo >= t->n_top)
		return NULL;
	if ((s = load_kblock(it, lo)) != NULL)
		return s;
	b = lo;
	/* the last entry whose first row <= target */
	lo = 0;
	hi = it->kb->n;
	has_tp = target_pfx(token, pfx_token(it->kb, 0), it->kb->pfx_skip, &tp);
	while (lo < hi)
	{
		size_t		mid = lo + (hi - lo) / 2;
		int			c = pfx_order(has_tp, it->kb->pfx[mid], tp);

		if (c == 0)
		{
			kentry_row(it->kb, mid, &mt, &mk);
			c = row_cmp(mt, mk, token, key);
		}
		if (c <= 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return iter_settle(it, b, 0, 0);
	e = lo - 1;
	if (kentry_kind(it->kb, e) == CF_SST_ENTRY_ROW)
	{
		kentry_row(it->kb, e, &mt, &mk);
		return iter_settle(it, b, row_cmp(mt, mk, token, key) == 0 ? e : e + 1, 0);
	}
	/* a block's entry: the first of its rows >= target */
	if ((s = iter_load_data(it, e)) != NULL)
		return s;
	lo = 0;
	hi = it->db->n_rows;
	while (lo < hi)
	{
		size_t		mid = lo + (hi - lo) / 2;

		rec_row(it->db, it->db->rows[mid], &mt, &mk);
		if (row_cmp(mt, mk, token, key) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return iter_settle(it, b, e, lo);
}

cf_status *
cf_sstable_iter_next(cf_sstable_iter *it)
{
	if (kentry_kind(it->kb, it->pos) == CF_SST_ENTRY_BLOCK)
		return iter_settle(it, it->blk, it->pos, it->drow + 1);
	return iter_settle(it, it->blk, it->pos + 1, 0);
}

bool
cf_sstable_iter_valid(const cf_sstable_iter *it)
{
	return it->valid;
}

cf_slice
cf_sstable_iter_token(const cf_sstable_iter *it)
{
	return it->tok;
}

cf_slice
cf_sstable_iter_key(const cf_sstable_iter *it)
{
	return it->key;
}

/*
 * Parses a row's bytes into x: a wide row's key-index entry (entry set; its top level
 * not read) or a narrow row's row-start record; fill as parse_meta.
 */
static void
parse_row_bytes(cf_rd *r, cf_sstable_row *x, bool fill, bool entry)
{
	uint8_t		kind;

	if (entry)
	{
		parse_entry(r, x, fill, NULL, &kind, NULL);
		return;
	}
	(void) cf_rd_u8(r);			/* the tag */
	x->tok = cf_rd_slice(r, CF_BLOCK_MAX_RAW);
	x->key = cf_rd_slice(r, CF_BLOCK_MAX_RAW);
	parse_meta(r, x, fill);
	x->n_top = 0;
}

cf_status *
cf_sstable_iter_row(cf_sstable_iter *it, cf_sstable_row **out)
{
	bool		wide = kentry_kind(it->kb, it->pos) == CF_SST_ENTRY_ROW;
	const cblk  *b = wide ? it->kb : it->db;
	size_t		i = wide ? it->pos : it->db->rows[it->drow];
	size_t		at = b->ix[i].at;
	size_t		len = (i + 1 < b->n ? b->ix[i + 1].at : b->len) - at;
	cf_sstable *t = it->t;
	cf_sstable_row *row;
	cf_sstable_row x;
	uint8_t    *bytes;
	cf_rd		r;

	*out = NULL;
	cf_rd_init(&r, b->data + at, len);
	parse_row_bytes(&r, &x, false, wide);	/* counts, proven present by the block's load */
	/* a wide row's bytes stay in its key-index block, which it holds; a narrow one's are copied */
	row = malloc(sizeof(*row) + x.n_tombs * sizeof(cf_range_tomb) + (wide ? 0 : len));
	if (row == NULL)
		return cf_status_make(CF_ERR_NO_MEMORY, "%s: row", t->path);
	row->tombs = (cf_range_tomb *) (row + 1);
	bytes = (uint8_t *) (row->tombs + x.n_tombs);
	if (!wide)
		memcpy(bytes, b->data + at, len);
	cf_rd_init(&r, wide ? b->data + at : bytes, len);
	parse_row_bytes(&r, row, true, wide);
	if (x.n_tombs == 0)
		row->tombs = NULL;
	row->tbase = NULL;
	row->top_at = NULL;
	row->top_keys = NULL;
	row->top_klen = 0;
	row->kh = NULL;
	row->dh = NULL;
	if (wide)
	{
		row->tbase = b->data;
		row->top_at = b->tops + b->top_first[i];
		row->n_top = b->top_first[i + 1] - b->top_first[i];
		if (b->tk && b->tk[i].aux)
		{
			row->top_keys = b->keys + b->tk[i].at;
			row->top_klen = b->tk[i].aux;
		}
		row->kh = cf_cache_dup(it->kh);
	}
	else
	{
		/* its cells: the records up to the next row start (or the block's end) */
		row->start = kentry_handle(it->kb, it->pos);
		row->row_off = at;
		row->n_cells = (it->drow + 1 < b->n_rows ? b->rows[it->drow + 1] : b->n) - i - 1;
		row->dh = cf_cache_dup(it->dh);
	}
	cf_sstable_ref(t);
	row->t = t;
	row->fill = it->fill;
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
	iter_init(&it, t);
	s = cf_sstable_iter_seek(&it, token, key);
	if (s == NULL && it.valid && cf_slice_eq(it.tok, token) && cf_slice_eq(it.key, key))
		s = cf_sstable_iter_row(&it, out);
	iter_release(&it);
	return s;
}

/* ---- rows ---- */

void
cf_sstable_row_free(cf_sstable_row *row)
{
	if (row == NULL)
		return;
	cf_cache_release(row->kh);
	cf_cache_release(row->dh);
	cf_sstable_unref(row->t);
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

/* Entry i of a wide row's top level. */
static col_entry
row_top(const cf_sstable_row *row, size_t i)
{
	return colentry_at(row->tbase + row->top_at[i]);
}

/* Entry j of the loaded column index (a narrow row's: its start block). */
static col_entry
ci_entry(const cf_sstable_cells *ci, size_t j)
{
	col_entry	e = {0};

	if (ci->row->n_top == 0)
	{
		e.h = ci->row->start;
		return e;
	}
	return colentry(ci->cb, j);
}

/* Loads column-index block i (for a narrow row: its one-entry stand-in). */
static cf_status *
load_colidx(cf_sstable_cells *ci, size_t i)
{
	const cf_sstable_row *row = ci->row;
	cf_cache_handle *h;
	const cblk  *b;
	cf_status  *s;

	if (ci->top_i == i)
		return NULL;
	if (row->n_top == 0)
	{
		ci->n_ci = 1;
		ci->top_i = 0;
		return NULL;
	}
	ci->top_i = SIZE_MAX;
	if ((s = get_block(ci->t, row_top(row, i).h, BLK_COL_INDEX, ci->fill, &h, &b)) != NULL)
		return s;
	cf_cache_release(ci->cih);
	ci->cih = h;
	ci->cb = b;
	ci->n_ci = b->n;
	ci->top_i = i;
	return NULL;
}

/* The number of the first record of b at or after byte at (b->n if none). */
static size_t
rec_at(const cblk *b, uint64_t at)
{
	size_t		lo = 0,
				hi = b->n;

	while (lo < hi)
	{
		size_t		mid = lo + (hi - lo) / 2;

		if (b->ix[mid].at < at)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The first row-start record of b numbered >= i (b->n if none). */
static size_t
next_row_rec(const cblk *b, size_t i)
{
	size_t		lo = 0,
				hi = b->n_rows;

	while (lo < hi)
	{
		size_t		mid = lo + (hi - lo) / 2;

		if (b->rows[mid] < i)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < b->n_rows ? b->rows[lo] : b->n;
}

/* Loads data block j of the loaded column-index block and finds the row's cells in it. */
static cf_status *
load_data(cf_sstable_cells *ci, size_t j)
{
	const cf_sstable_row *row = ci->row;
	cf_block_handle h = ci_entry(ci, j).h;
	const cblk  *b;
	cf_status  *s;
	size_t		lo = 0;

	ci->ci_i = j;
	if (ci->db_off != h.offset)
	{
		cf_cache_handle *dh;

		if (row->dh && h.offset == row->start.offset)
		{
			/* a narrow row's handle holds its block */
			dh = cf_cache_dup(row->dh);
			b = cf_cache_value(dh);
		}
		else if ((s = get_block(ci->t, h, BLK_DATA, ci->fill, &dh, &b)) != NULL)
		{
			ci->lo = ci->hi = 0;
			return s;
		}
		hold_data(&ci->dh, &ci->db, &ci->db_off, dh, h.offset);
	}
	b = ci->db;
	if (h.offset == row->start.offset)
	{
		const uint8_t *p;
		cf_slice	tok,
					key;

		lo = rec_at(b, row->row_off);
		if (lo == b->n || b->ix[lo].at != row->row_off ||
			b->data[row->row_off] != (row->n_top ? CF_SST_TAG_ROW_WIDE : CF_SST_TAG_ROW))
			return corrupt(ci->t, "row-start record not where the key index says", h.offset);
		p = b->data + b->ix[lo].at + 1;
		tok = dec_bytes(&p);
		key = dec_bytes(&p);
		if (!cf_slice_eq(tok, row->tok) || !cf_slice_eq(key, row->key))
			return corrupt(ci->t, "row-start record not where the key index says", h.offset);
		lo++;
	}
	ci->lo = lo;
	ci->hi = next_row_rec(b, lo);
	if (row->n_top > 0 && ci->lo < ci->hi)
	{
		/*
		 * A wide row's block: a seek binary-searches its records and a slice then
		 * decodes and copies a run of them, a dozen or more cache lines that are cold
		 * when the row is much larger than the CPU's caches. Asking for all of them now
		 * overlaps their misses instead of taking them one after another (~1 µs less
		 * per warm slice of a 10M-column row). A block is ~2 KiB; one that holds a big
		 * cell is more, and only its first PREFETCH_MAX bytes are asked for: a seek
		 * or a count may never touch the rest, and the whole would push the lines
		 * just asked for out of the CPU's first-level cache.
		 */
		size_t		from = b->ix[ci->lo].at,
					to = ci->hi < b->n ? b->ix[ci->hi].at : b->len;

		prefetch_range(b->ix + ci->lo, (ci->hi - ci->lo) * sizeof(blk_at));
		prefetch_range(b->data + from, to - from < PREFETCH_MAX ? to - from : PREFETCH_MAX);
	}
	if (row->n_top > 0 && ci->lo == ci->hi)
		return corrupt(ci->t, "data block of a wide row holds none of its cells", h.offset);
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

/* Records a move's outcome: an error invalidates the iterator; a valid one decodes its cell. */
static cf_status *
cells_settle(cf_sstable_cells *ci, cf_status *s, bool valid)
{
	ci->valid = s == NULL && valid;
	if (ci->valid)
		rec_cell(ci->db, ci->pos, &ci->cur);
	return s;
}

cf_status *
cf_sstable_cells_new(const cf_sstable_row *row, cf_sstable_cells **out)
{
	cf_sstable_cells *ci = cf_zalloc(sizeof(*ci));

	*out = NULL;
	if (ci == NULL)
		return cf_status_make(CF_ERR_NO_MEMORY, "%s: cell iterator", row->t->path);
	ci->row = row;
	ci->t = row->t;
	ci->fill = row->fill;
	ci->top_i = SIZE_MAX;
	ci->db_off = UINT64_MAX;
	*out = ci;
	return NULL;
}

void
cf_sstable_cells_reset(cf_sstable_cells *ci, const cf_sstable_row *row)
{
	/* the column index is the row's; the data block (db_off, dh) the file's */
	cf_cache_release(ci->cih);
	ci->cih = NULL;
	ci->cb = NULL;
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
	cf_cache_release(ci->cih);
	cf_cache_release(ci->dh);
	free(ci);
}

cf_status *
cf_sstable_cells_first(cf_sstable_cells *ci)
{
	cf_status  *s = goto_block(ci, 0, 0);

	ci->pos = ci->lo;
	return cells_settle(ci, s, s == NULL && ci->lo < ci->hi);
}

cf_status *
cf_sstable_cells_last(cf_sstable_cells *ci)
{
	cf_status  *s = goto_block(ci, n_top_blocks(ci) - 1, SIZE_MAX);

	ci->pos = ci->hi - 1;
	return cells_settle(ci, s, s == NULL && ci->lo < ci->hi);
}

/*
 * The last of n column-index entries whose first path is <= the target; SIZE_MAX if
 * none. Entry i is at data + the uint32_t that begins element i of at (elements of
 * stride bytes: a column-index block's ix, or a wide row's top_at). With their dense
 * names (keys, klen; klen 0: none) every entry has the first one's super column, so
 * either that decides for all of them or the names alone do, searched in the array
 * (the group of at the answer lies in prefetched on the way: it is read next).
 */
static size_t
find_entry(const cf_col_order *o, const uint8_t *data, const void *at, size_t stride,
		   size_t n, const uint8_t *keys, size_t klen, cf_slice sc, cf_slice name,
		   bool open_end)
{
	size_t		lo = 0,
				hi = n;

	if (klen)
	{
		col_entry	e0 = colentry_at(entry_at(data, at, stride, 0));

		if (open_end || (o->super && cf_type_compare(o->cmp, e0.sc, sc) != 0))
			return target_cmp(o, e0.sc, e0.name, sc, name, open_end) <= 0 ? n - 1 : SIZE_MAX;
		return key_levels_search(o->super ? o->subcmp : o->cmp, keys, n, klen, name, at,
								 stride);
	}
	while (lo < hi)
	{
		size_t		mid = lo + (hi - lo) / 2;
		col_entry	e = colentry_at(entry_at(data, at, stride, mid));

		if (target_cmp(o, e.sc, e.name, sc, name, open_end) <= 0)
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
		i = find_entry(&ci->t->order, row->tbase, row->top_at, sizeof(uint32_t), row->n_top,
					   row->top_keys, row->top_klen, sc, name, open_end);
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
		j = find_entry(&ci->t->order, ci->cb->data, ci->cb->ix, sizeof(blk_at), ci->cb->n,
					   ci->cb->keys, ci->cb->klen, sc, name, open_end);
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
		return cells_settle(ci, s, false);
	lo = ci->lo;
	hi = ci->hi;
	while (lo < hi)
	{
		size_t		mid = lo + (hi - lo) / 2;
		cf_slice	msc,
					mname;

		rec_path(ci->db, mid, &msc, &mname);
		if (cf_path_cmp(o, msc, mname, sc, name) < 0)
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
	return cells_settle(ci, s, ok && ci->pos < ci->hi);
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
		return cells_settle(ci, s, false);
	lo = ci->lo;
	hi = ci->hi;
	/* lo becomes the first cell > target */
	while (lo < hi)
	{
		size_t		mid = lo + (hi - lo) / 2;
		cf_slice	msc,
					mname;

		rec_path(ci->db, mid, &msc, &mname);
		if (target_cmp(o, msc, mname, sc, name, open_end) <= 0)
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
	return cells_settle(ci, s, ok && lo > ci->lo);
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
	return cells_settle(ci, s, ok && ci->pos < ci->hi);
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
	return cells_settle(ci, s, ok);
}

bool
cf_sstable_cells_valid(const cf_sstable_cells *ci)
{
	return ci->valid;
}

void
cf_sstable_cells_cell(const cf_sstable_cells *ci, cf_cell *cell)
{
	*cell = ci->cur;
}

const cf_cell *
cf_sstable_cells_current(const cf_sstable_cells *ci)
{
	return &ci->cur;
}
