/*
 * tests/fuzz/fuzz_sstable.c — libFuzzer target for the SSTable reader behind its
 * checksums.
 *
 * Flipped bytes on disk are caught by each block's CRC (tests/unit/test_sstable.c
 * checks that); what the CRC cannot catch is a block that is well sealed but wrong
 * inside — a writer bug, a bad RAM bit before sealing — and there the reader's own
 * checks must hold: records that overrun their block, varints that claim more than
 * the block holds, handles pointing anywhere, index entries out of order. This target
 * lets the fuzzer edit the inside of every block and reseals each one (a fresh CRC),
 * so the mutations reach the decoders instead of stopping at the checksum.
 *
 * Three templates are written once, uncompressed (zstd_level < 0, so the stored bytes
 * are the records themselves) with small blocks so rows have column indexes, each with
 * a row deletion, a range tombstone, a tombstone, an expiring cell and a wide row:
 *  0. a Standard CF (BytesType);
 *  1. a Super CF (UTF8Type super columns, TimeUUIDType sub-columns);
 *  2. a Standard CF (LongType, negative names too) whose wide row spans ~75 data
 *     blocks: its names are all 8 bytes, so the reader keeps the column-index block's
 *     names and the row's top level as dense key arrays, the block's with two summary
 *     levels, and searches them comparing integers (sstable_reader.c's find_entry,
 *     key_levels_search): the one template whose corrupt bytes reach its integer
 *     compares (0's 5-byte names and 1's 16-byte TimeUUIDs are searched as dense
 *     names too, compared as bytes).
 * Input byte 0 picks the template (modulo 3); the rest overlays the stored bytes of its
 * blocks, in file order (a shorter input leaves the rest as written). The file is
 * rebuilt, every block resealed, then opened and read every way: rows in order, each
 * row's cells forwards and backwards, seeks and reverse seeks, point gets of the
 * template's keys.
 *
 * Checked: no crash, leak or undefined behaviour (ASan, UBSan); every failure is
 * CF_ERR_CORRUPTION (or out of memory); and the unmodified template reads back whole.
 *
 * CF_FUZZ_SEED_DIR=DIR fuzz_sstable writes the templates' inputs there (template-0 ..
 * template-2) and exits (tests/run.sh fuzz seeds the corpus so).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "storage/block.h"
#include "storage/sstable.h"
#include "util/buf.h"
#include "util/crc32c.h"
#include "util/env.h"

int			LLVMFuzzerInitialize(int *argc, char ***argv);
int			LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_BLOCKS 4096
#define STEP_CAP 20000			/* cells a read may visit: a loop must end */
#define N_TEMPLATES 3

typedef struct blk
{
	size_t		off;			/* first stored byte */
	size_t		len;			/* stored bytes (the trailer follows) */
} blk;

typedef struct tmpl
{
	cf_col_order order;
	uint8_t    *file;			/* the file as written */
	size_t		size;
	blk			blocks[MAX_BLOCKS];
	size_t		n_blocks;
	size_t		payload;		/* stored bytes of every block */
	uint64_t	cells;			/* what a full read of the file visits */
	char		keys[16][16];
	int			n_keys;
} tmpl;

static tmpl templates[N_TEMPLATES];
static char dir[64];
static char path[128];
static uint8_t *work;			/* the rebuilt file */

static const cf_col_order std_order = {false, CF_TYPE_BYTES, CF_TYPE_BYTES};
static const cf_col_order super_order = {true, CF_TYPE_UTF8, CF_TYPE_TIME_UUID};
static const cf_col_order long_order = {false, CF_TYPE_LONG, CF_TYPE_BYTES};

/* A value long enough that a LongType template's data block holds only 2 or 3 cells. */
static const char long_value[] =
"a value that fills a block of the LongType template, 2 or 3 a block";

static void
die(const char *what, const cf_status *s)
{
	fprintf(stderr, "fuzz_sstable: %s%s%s\n", what, s ? ": " : "", s ? cf_status_msg(s) : "");
	abort();
}

static void
ok(cf_status *s, const char *what)
{
	if (s != NULL)
		die(what, s);
}

static cf_slice
str(const char *s)
{
	return cf_slice_of(s, strlen(s));
}

/* A version-1 UUID whose time is t: TimeUUIDType sorts by it. */
static cf_slice
timeuuid(uint8_t *u, uint64_t t)
{
	memset(u, 0, 16);
	u[0] = (uint8_t) (t >> 24);
	u[1] = (uint8_t) (t >> 16);
	u[2] = (uint8_t) (t >> 8);
	u[3] = (uint8_t) t;
	u[4] = (uint8_t) (t >> 40);
	u[5] = (uint8_t) (t >> 32);
	u[6] = (uint8_t) (0x10 | ((t >> 56) & 0x0f));
	u[7] = (uint8_t) (t >> 48);
	u[8] = 0x80;
	return cf_slice_of(u, 16);
}

/* The LongType name v: 8 bytes, big-endian two's complement. */
static cf_slice
longname(uint8_t *u, int64_t v)
{
	cf_store_be64(u, (uint64_t) v);
	return cf_slice_of(u, 8);
}

/* Name of cell i of a LongType template: INT64_MIN first, then steps of 1000 from -39000. */
static int64_t
long_at(int i)
{
	return i == 0 ? INT64_MIN : (int64_t) (i - 40) * 1000;
}

static void
add(cf_sstable_writer *w, cf_slice sc, cf_slice name, const char *value, uint8_t flags)
{
	cf_cell		c = {.sc = sc, .name = name, .value = str(value), .timestamp = 1000,
	.flags = flags};

	if (flags & CF_CELL_DELETED)
		c.value = cf_slice_of(NULL, 0);
	if (flags & (CF_CELL_DELETED | CF_CELL_EXPIRING))
		c.local_time = 2000000000;
	if (flags & CF_CELL_EXPIRING)
		c.ttl = 60;
	ok(cf_sstable_writer_add_cell(w, &c), "add_cell");
}

/* Writes template t (see the header: its order tells which) to path. */
static void
write_template(int t)
{
	tmpl	   *T = &templates[t];
	bool		is_long = !T->order.super && T->order.cmp == CF_TYPE_LONG;
	cf_sstable_options opt = {.order = T->order, .block_size = 256, .zstd_level = -1};
	cf_sstable_writer *w;
	uint8_t		u[16],
				lo[16],
				hi[16];
	char		name[32];
	const char *scs[] = {"alpha", "beta", "gamma"};

	unlink(path);
	ok(cf_sstable_writer_open(cf_env_posix(), path, &opt, &w), "writer_open");
	for (int r = 0; r < 6; r++)
	{
		cf_deletion del = cf_deletion_none();
		cf_range_tomb rt = {.sc = cf_slice_of(NULL, 0), .start = str("c0010"),
		.finish = str("c0020"), .del = {500, 1500000000}};
		char	   *key = T->keys[T->n_keys++];
		int			n = r != 3 ? 4 : is_long ? 150 : 300;

		snprintf(key, sizeof(T->keys[0]), "row%d", r);
		if (r == 1)
			del = (cf_deletion) {400, 1500000000};
		if (T->order.super)
		{
			rt.sc = str("beta");
			rt.start = timeuuid(lo, 1000010);
			rt.finish = timeuuid(hi, 1000020);
		}
		else if (is_long)
		{
			rt.start = longname(lo, long_at(10));
			rt.finish = longname(hi, long_at(20));
		}
		ok(cf_sstable_writer_begin_row(w, str("tok"), str(key), del, r == 2 ? &rt : NULL,
									   r == 2), "begin_row");
		for (int s = 0; s < (!T->order.super || r == 3 ? 1 : 3); s++)
			for (int i = 0; i < n; i++)
			{
				uint8_t		flags = i == 1 ? CF_CELL_DELETED : i == 2 ? CF_CELL_EXPIRING : 0;

				if (T->order.super)
					add(w, str(scs[s]), timeuuid(u, 1000000 + (uint64_t) i * 10), "v", flags);
				else if (is_long)
					add(w, cf_slice_of(NULL, 0), longname(u, long_at(i)), long_value, flags);
				else
				{
					snprintf(name, sizeof(name), "c%04d", i);
					add(w, cf_slice_of(NULL, 0), str(name), "value of the cell", flags);
				}
			}
		ok(cf_sstable_writer_end_row(w), "end_row");
	}
	ok(cf_sstable_writer_finish(w, NULL), "writer_finish");
}

/* The masked CRC a raw block's trailer tr holds for its stored bytes p[0..len). */
static uint32_t
block_crc(const uint8_t *p, size_t len, const uint8_t *tr)
{
	return cf_crc32c_mask(cf_crc32c_extend(cf_crc32c(p, len), tr, 1));
}

/* Reads path into T->file and finds its blocks: stored bytes, then a raw trailer. */
static void
load_template(tmpl *T)
{
	FILE	   *f = fopen(path, "rb");
	size_t		at = 0;

	if (f == NULL || fseek(f, 0, SEEK_END) != 0)
		die("cannot read the template", NULL);
	T->size = (size_t) ftell(f);
	rewind(f);
	if ((T->file = malloc(T->size)) == NULL || fread(T->file, 1, T->size, f) != T->size)
		die("cannot read the template", NULL);
	fclose(f);

	/* blocks lie back to back from offset 0; each ends in a trailer that seals it */
	while (at < T->size && T->n_blocks < MAX_BLOCKS)
	{
		size_t		end = 0;

		for (size_t e = at + CF_BLOCK_TRAILER_SIZE; e <= T->size; e++)
		{
			const uint8_t *tr = T->file + e - CF_BLOCK_TRAILER_SIZE;
			size_t		len = e - CF_BLOCK_TRAILER_SIZE - at;

			/* the CRC only where type and length already fit: O(file) in all */
			if (tr[0] == CF_BLOCK_RAW && cf_load_be32(tr + 1) == len &&
				block_crc(T->file + at, len, tr) == cf_load_be32(tr + 5))
			{
				end = e;
				break;
			}
		}
		if (end == 0)
			break;				/* the footer */
		T->blocks[T->n_blocks++] = (blk) {at, end - CF_BLOCK_TRAILER_SIZE - at};
		T->payload += end - CF_BLOCK_TRAILER_SIZE - at;
		at = end;
	}
	if (T->n_blocks < 10)
		die("the template has too few blocks", NULL);
}

/* Writes work (size bytes) to path. */
static void
store(size_t size)
{
	FILE	   *f = fopen(path, "wb");

	if (f == NULL || fwrite(work, 1, size, f) != size || fclose(f) != 0)
		die("cannot write the fuzzed file", NULL);
}

/* A failure the reader may report: corruption, or memory it could not get. */
static bool
allowed(cf_status *s, uint64_t *failures)
{
	if (s == NULL)
		return true;
	if (cf_status_code(s) != CF_ERR_CORRUPTION && cf_status_code(s) != CF_ERR_NO_MEMORY)
		die("a failure that is not CF_ERR_CORRUPTION", s);
	cf_status_free(s);
	(*failures)++;
	return false;
}

/*
 * Seek target i of template T into *sc, *nm (names in buf, 32 bytes); false past the
 * last. A LongType template's also lie between, before and after its names, and one is
 * 4 bytes long (not compared as an integer); a Super template's go into two super
 * columns, one the wide row's, whose sub-column index is searched as dense names.
 */
static bool
seek_target(const tmpl *T, int i, uint8_t *buf, cf_slice *sc, cf_slice *nm)
{
	static const int64_t longs[] = {INT64_MIN, -22999, 0, 110000, INT64_MAX};

	*sc = cf_slice_of(NULL, 0);
	if (T->order.super)
	{
		/* into "beta" (most rows), then "alpha" (the wide row's only super column) */
		if (i >= 8)
			return false;
		*sc = str(i < 4 ? "beta" : "alpha");
		*nm = timeuuid(buf, 1000000 + (uint64_t) (i % 4) * 975);
	}
	else if (T->order.cmp == CF_TYPE_LONG)
	{
		if (i > 5)
			return false;
		if (i == 5)
		{
			memcpy(buf, "\x00\x00\x00\x01", 4);
			*nm = cf_slice_of(buf, 4);
		}
		else
			*nm = longname(buf, longs[i]);
	}
	else
	{
		if (i >= 4)
			return false;
		snprintf((char *) buf, 32, "c%04d", i * 97);
		*nm = str((char *) buf);
	}
	return true;
}

/* Walks a row's cells forwards, backwards and by seeks; cells visited added to *cells. */
static void
read_cells(const tmpl *T, const cf_sstable_row *row, uint64_t *cells, uint64_t *failures)
{
	cf_sstable_cells *ci;
	cf_cell		c;
	uint8_t		buf[32];
	cf_slice	sc,
				nm;
	int			n;

	if (!allowed(cf_sstable_cells_new(row, &ci), failures))
		return;
	if (allowed(cf_sstable_cells_first(ci), failures))
		for (n = 0; cf_sstable_cells_valid(ci) && n < STEP_CAP; n++)
		{
			cf_sstable_cells_cell(ci, &c);
			(*cells)++;
			if (!allowed(cf_sstable_cells_next(ci), failures))
				break;
		}
	if (allowed(cf_sstable_cells_last(ci), failures))
		for (n = 0; cf_sstable_cells_valid(ci) && n < STEP_CAP; n++)
		{
			cf_sstable_cells_cell(ci, &c);
			if (!allowed(cf_sstable_cells_prev(ci), failures))
				break;
		}
	for (int i = 0; seek_target(T, i, buf, &sc, &nm); i++)
	{
		if (allowed(cf_sstable_cells_seek(ci, sc, nm), failures) && cf_sstable_cells_valid(ci))
			cf_sstable_cells_cell(ci, &c);
		if (allowed(cf_sstable_cells_seek_le(ci, sc, nm), failures) &&
			cf_sstable_cells_valid(ci))
			cf_sstable_cells_cell(ci, &c);
	}
	cf_sstable_cells_free(ci);
}

/* Reads path every way; returns the cells a forward pass visited. */
static uint64_t
read_all(const tmpl *T, uint64_t *failures)
{
	cf_sstable *t;
	cf_sstable_iter *it;
	cf_sstable_row *row;
	uint64_t	cells = 0;
	int			n;

	if (!allowed(cf_sstable_open(cf_env_posix(), path, &T->order, &t), failures))
		return 0;
	if (allowed(cf_sstable_iter_new(t, &it), failures))
	{
		if (allowed(cf_sstable_iter_first(it), failures))
			for (n = 0; cf_sstable_iter_valid(it) && n < STEP_CAP; n++)
			{
				if (allowed(cf_sstable_iter_row(it, &row), failures) && row != NULL)
				{
					size_t		n_tombs;

					(void) cf_sstable_row_deletion(row);
					(void) cf_sstable_row_tombs(row, &n_tombs);
					read_cells(T, row, &cells, failures);
					cf_sstable_row_free(row);
				}
				if (!allowed(cf_sstable_iter_next(it), failures))
					break;
			}
		if (allowed(cf_sstable_iter_seek(it, str("tok"), str("row3")), failures) &&
			cf_sstable_iter_valid(it) && allowed(cf_sstable_iter_row(it, &row), failures) &&
			row != NULL)
			cf_sstable_row_free(row);
		cf_sstable_iter_free(it);
	}
	for (int k = 0; k < T->n_keys + 1; k++)
	{
		const char *key = k < T->n_keys ? T->keys[k] : "absent";

		(void) cf_sstable_may_contain(t, str(key));
		if (allowed(cf_sstable_get(t, str("tok"), str(key), &row), failures) && row != NULL)
		{
			uint64_t	ignored = 0;

			read_cells(T, row, &ignored, failures);
			cf_sstable_row_free(row);
		}
	}
	cf_sstable_unref(t);
	return cells;
}

/* The fuzz input for template t unchanged: its index, then its stored bytes. */
static uint8_t *
seed_of(const tmpl *T, int t, size_t *n)
{
	uint8_t    *in = malloc(1 + T->payload);
	size_t		at = 1;

	if (in == NULL)
		die("out of memory", NULL);
	in[0] = (uint8_t) t;
	for (size_t b = 0; b < T->n_blocks; b++)
	{
		memcpy(in + at, T->file + T->blocks[b].off, T->blocks[b].len);
		at += T->blocks[b].len;
	}
	*n = at;
	return in;
}

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *seed_dir = getenv("CF_FUZZ_SEED_DIR");
	size_t		max = 0;

	(void) argc;
	(void) argv;
	snprintf(dir, sizeof(dir), "/tmp/fuzz_sstable.XXXXXX");
	if (mkdtemp(dir) == NULL)
		die("mkdtemp failed", NULL);
	snprintf(path, sizeof(path), "%s/t.db", dir);
	templates[0].order = std_order;
	templates[1].order = super_order;
	templates[2].order = long_order;
	for (int t = 0; t < N_TEMPLATES; t++)
	{
		uint64_t	failures = 0;

		write_template(t);
		load_template(&templates[t]);
		templates[t].cells = read_all(&templates[t], &failures);
		if (failures != 0 || templates[t].cells == 0)
			die("the template does not read back", NULL);
		if (templates[t].size > max)
			max = templates[t].size;
		if (seed_dir != NULL)
		{
			char		p[512];
			size_t		n;
			uint8_t    *in = seed_of(&templates[t], t, &n);
			FILE	   *f;

			snprintf(p, sizeof(p), "%s/template-%d", seed_dir, t);
			if ((f = fopen(p, "wb")) == NULL || fwrite(in, 1, n, f) != n || fclose(f) != 0)
				die("cannot write a seed", NULL);
			free(in);
		}
	}
	if ((work = malloc(max)) == NULL)
		die("out of memory", NULL);
	if (seed_dir != NULL)
	{
		unlink(path);
		rmdir(dir);
		exit(0);
	}
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const tmpl *T;
	size_t		at = 1;
	bool		same = true;
	uint64_t	failures = 0;
	uint64_t	cells;

	if (size < 1)
		return 0;
	T = &templates[data[0] % N_TEMPLATES];
	memcpy(work, T->file, T->size);
	for (size_t b = 0; b < T->n_blocks; b++)
	{
		const blk  *k = &T->blocks[b];
		uint8_t    *tr = work + k->off + k->len;
		size_t		n = at < size ? size - at : 0;

		if (n > k->len)
			n = k->len;
		if (n > 0)
		{
			same = same && memcmp(work + k->off, data + at, n) == 0;
			memcpy(work + k->off, data + at, n);
		}
		at += k->len;
		cf_store_be32(tr + 5, block_crc(work + k->off, k->len, tr));
	}
	store(T->size);
	cells = read_all(T, &failures);
	if (same && (failures != 0 || cells != T->cells))
		die("the unmodified template does not read back whole", NULL);
	return 0;
}
