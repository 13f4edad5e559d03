/*
 * storage/compaction.c — merging sstables into one (cf_compaction_run) and size-tiered
 * selection of what to merge (cf_compaction_pick).
 *
 * The rows of the inputs are merged with a binary heap of row iterators keyed by
 * (token, key): O(log n) per row for n inputs, since a major compaction may have many
 * more inputs than the handful a read merges. Every input holding the current row
 * becomes a cell source of one cf_row_merge, which yields the reconciled winner of
 * each path; this file decides only what of the row survives (engine/doc/compaction.md)
 * and streams it to the writer, so no row is ever materialised. Each input keeps one
 * cell iterator, reset to each of its rows in turn (cf_cell_source_sstable_reuse), so
 * a data block holding many rows is read and decoded once, not once per row. The
 * inputs' blocks are not added to the block cache (cf_sstable_iter_fill_cache): they
 * are read once and their tables are deleted after.
 *
 * Purging is decided per row, lazily: the caller's may_exist_elsewhere is asked only
 * when the row holds a tombstone old enough to purge, and its answer then holds for
 * every tombstone of the row, so a row is never half-purged against data outside.
 */
#include "storage/compaction.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "storage/rowmerge.h"
#include "util/log.h"

#define DEFAULT_PROGRESS_EVERY 1024

/* Whether purging the current row is safe: unknown until first needed. */
typedef enum purge_state
{
	PURGE_UNKNOWN,
	PURGE_SAFE,
	PURGE_UNSAFE,
} purge_state;

typedef struct compactor
{
	const cf_compaction_options *opts;
	cf_sstable *const *inputs;
	size_t		n;
	int32_t		now;
	cf_sstable_iter **its;		/* one per input */
	cf_sstable_cells **cells;	/* one per input, reset to each of its rows; NULL
								 * until its first row */
	uint64_t   *rows_read;		/* per input, for the bytes-read estimate */
	size_t	   *heap;			/* input indices, min-heap by (token, key) */
	size_t		heap_n;
	size_t	   *group;			/* the inputs holding the current row */
	cf_cell_source **srcs;
	cf_range_tomb *tombs;		/* the current row's surviving range tombstones */
	size_t		tomb_cap;
	cf_sstable_writer *w;
	cf_compaction_stats *st;
	/* the current row */
	cf_slice	token;
	cf_slice	key;
	purge_state purge;
} compactor;

/* ---------------------------------------------------------------- the row heap */

static int
row_cmp(const compactor *c, size_t a, size_t b)
{
	int			r = cf_slice_cmp(cf_sstable_iter_token(c->its[a]),
								 cf_sstable_iter_token(c->its[b]));

	if (r == 0)
		r = cf_slice_cmp(cf_sstable_iter_key(c->its[a]), cf_sstable_iter_key(c->its[b]));
	return r;
}

static void
heap_push(compactor *c, size_t input)
{
	size_t		i = c->heap_n++;

	c->heap[i] = input;
	while (i > 0)
	{
		size_t		parent = (i - 1) / 2;

		if (row_cmp(c, c->heap[parent], c->heap[i]) <= 0)
			break;
		c->heap[i] = c->heap[parent];
		c->heap[parent] = input;
		i = parent;
	}
}

static size_t
heap_pop(compactor *c)
{
	size_t		top = c->heap[0];
	size_t		i = 0;

	c->heap[0] = c->heap[--c->heap_n];
	for (;;)
	{
		size_t		l = 2 * i + 1,
					r = l + 1,
					m = i,
					tmp;

		if (l < c->heap_n && row_cmp(c, c->heap[l], c->heap[m]) < 0)
			m = l;
		if (r < c->heap_n && row_cmp(c, c->heap[r], c->heap[m]) < 0)
			m = r;
		if (m == i)
			break;
		tmp = c->heap[i];
		c->heap[i] = c->heap[m];
		c->heap[m] = tmp;
		i = m;
	}
	return top;
}

/* ---------------------------------------------------------------- one row */

/* May the current row's tombstones that are past gc_grace be dropped? */
static bool
purge_safe(compactor *c)
{
	if (c->purge == PURGE_UNKNOWN)
	{
		cf_compaction_may_exist_fn fn = c->opts->may_exist_elsewhere;

		c->purge = fn != NULL && !fn(c->opts->may_exist_arg, c->token, c->key)
			? PURGE_SAFE : PURGE_UNSAFE;
	}
	return c->purge == PURGE_SAFE;
}

/* Is a tombstone that died at local_time old enough, and safe, to purge? */
static bool
purgeable(compactor *c, int32_t local_time)
{
	return local_time < c->opts->gc_before && purge_safe(c);
}

/* Range tombstones by (sc, start, finish) bytes, the latest deletion first. */
static int
tomb_order(const void *a, const void *b)
{
	const cf_range_tomb *x = a,
			   *y = b;
	int			r = cf_slice_cmp(x->sc, y->sc);

	if (r == 0)
		r = cf_slice_cmp(x->start, y->start);
	if (r == 0)
		r = cf_slice_cmp(x->finish, y->finish);
	if (r == 0)
	{
		cf_deletion later = cf_deletion_max(x->del, y->del);

		if (x->del.timestamp != y->del.timestamp || x->del.local_time != y->del.local_time)
			r = (later.timestamp == x->del.timestamp &&
				 later.local_time == x->del.local_time) ? -1 : 1;
	}
	return r;
}

static bool
same_range(const cf_range_tomb *a, const cf_range_tomb *b)
{
	return cf_slice_eq(a->sc, b->sc) && cf_slice_eq(a->start, b->start) &&
		cf_slice_eq(a->finish, b->finish);
}

/*
 * The row's deletion and range tombstones as they are to be written: tombstones under
 * the row deletion and repeats of one range are dropped, and what is past gc_grace
 * purged when that is safe. Fills c->tombs[0..*n_out).
 */
static cf_status *
row_header(compactor *c, cf_row_merge *m, cf_deletion *del_out, size_t *n_out)
{
	cf_deletion del = cf_row_merge_deletion(m);
	size_t		nt,
				k = 0;
	const cf_range_tomb *const *tombs = cf_row_merge_tombs(m, &nt);

	*n_out = 0;
	*del_out = del;
	if (!cf_deletion_is_live(del) && purgeable(c, del.local_time))
	{
		*del_out = cf_deletion_none();
		c->st->row_dels_purged++;
	}
	if (nt > c->tomb_cap)
	{
		cf_range_tomb *t = realloc(c->tombs, nt * sizeof(*t));

		if (t == NULL)
			return cf_status_make(CF_ERR_NO_MEMORY, "compaction: out of memory");
		c->tombs = t;
		c->tomb_cap = nt;
	}
	for (size_t i = 0; i < nt; i++)
	{
		if (cf_deletion_shadows(del, tombs[i]->del.timestamp))
			c->st->range_tombs_shadowed++;
		else
			c->tombs[k++] = *tombs[i];
	}
	if (k > 1)
		qsort(c->tombs, k, sizeof(*c->tombs), tomb_order);
	for (size_t i = 0; i < k; i++)
	{
		const cf_range_tomb *t = &c->tombs[i];

		if (*n_out > 0 && same_range(&c->tombs[*n_out - 1], t))
			c->st->range_tombs_shadowed++;	/* an older deletion of the same range */
		else if (purgeable(c, t->del.local_time))
			c->st->range_tombs_purged++;
		else
			c->tombs[(*n_out)++] = *t;
	}
	return NULL;
}

/*
 * Writes what survives of the current row (merged by m) and frees m. A row with
 * nothing left is not written at all.
 */
static cf_status *
compact_row(compactor *c, cf_row_merge *m, uint64_t versions)
{
	cf_deletion del;
	size_t		n_tombs;
	bool		started = false;
	uint64_t	paths = 0;
	cf_status  *s;

	c->purge = PURGE_UNKNOWN;
	if ((s = row_header(c, m, &del, &n_tombs)) != NULL)
		goto done;
	if (!cf_deletion_is_live(del) || n_tombs > 0)
	{
		s = cf_sstable_writer_begin_row(c->w, c->token, c->key, del, c->tombs, n_tombs);
		if (s)
			goto done;
		started = true;
	}
	for (s = cf_row_merge_seek(m, cf_slice_of(NULL, 0), cf_slice_of(NULL, 0));
		 s == NULL && cf_row_merge_valid(m); s = cf_row_merge_next(m))
	{
		cf_cell		out = *cf_row_merge_cell(m);

		paths++;
		if (cf_row_merge_shadowed(m))
		{
			c->st->cells_shadowed++;
			continue;
		}
		if (!cf_cell_live(&out, c->now))
		{
			bool		expired = !(out.flags & CF_CELL_DELETED);

			if (purgeable(c, cf_cell_death_time(&out)))
			{
				if (expired)
					c->st->expired_purged++;
				else
					c->st->cell_tombs_purged++;
				continue;
			}
			if (expired)
			{
				/* it shadows older versions until gc_grace, as a tombstone would */
				out.flags = CF_CELL_DELETED;
				out.value = cf_slice_of(NULL, 0);
				out.ttl = 0;
				c->st->expired_to_tomb++;
			}
		}
		if (!started)
		{
			s = cf_sstable_writer_begin_row(c->w, c->token, c->key, del, c->tombs, n_tombs);
			if (s)
				goto done;
			started = true;
		}
		if ((s = cf_sstable_writer_add_cell(c->w, &out)) != NULL)
			goto done;
		c->st->cells_out++;
	}
	if (s)
		goto done;
	c->st->cells_superseded += versions - paths;
	if (started)
	{
		if ((s = cf_sstable_writer_end_row(c->w)) != NULL)
			goto done;
		c->st->rows_out++;
	}
done:
	cf_row_merge_free(m);
	return s;
}

/* ---------------------------------------------------------------- the run */

static uint64_t
bytes_read_estimate(const compactor *c)
{
	double		b = 0;

	for (size_t i = 0; i < c->n; i++)
	{
		const cf_sstable_stats *ts = cf_sstable_get_stats(c->inputs[i]);

		if (ts->rows > 0)
			b += (double) ts->file_bytes * (double) c->rows_read[i] / (double) ts->rows;
	}
	return (uint64_t) b;
}

/*
 * Takes every input at the smallest (token, key) off the heap, moves their iterators
 * on, and returns a merge over their rows in *out (versions: their cells, summed).
 * c->token and c->key then point into the merge's row handles.
 */
static cf_status *
next_row(compactor *c, cf_row_merge **out, uint64_t *versions)
{
	size_t		k = 0;
	cf_status  *s = NULL;

	*out = NULL;
	*versions = 0;
	c->group[k++] = heap_pop(c);
	while (c->heap_n > 0 && row_cmp(c, c->heap[0], c->group[0]) == 0)
		c->group[k++] = heap_pop(c);
	memset(c->srcs, 0, k * sizeof(*c->srcs));

	for (size_t i = 0; i < k && s == NULL; i++)
	{
		size_t		in = c->group[i];
		cf_sstable_row *row;

		if ((s = cf_sstable_iter_row(c->its[in], &row)) != NULL)
			break;
		if (i == 0)
		{
			c->token = cf_sstable_row_token(row);
			c->key = cf_sstable_row_key(row);
		}
		*versions += cf_sstable_row_cell_count(row);
		c->st->rows_in++;
		c->rows_read[in]++;
		if (c->cells[in] == NULL && (s = cf_sstable_cells_new(row, &c->cells[in])) != NULL)
		{
			cf_sstable_row_free(row);
			break;
		}
		s = cf_cell_source_sstable_reuse(row, c->cells[in], &c->srcs[i]);
	}
	/* the row handles are independent of the iterators, which may move on now */
	for (size_t i = 0; i < k && s == NULL; i++)
	{
		size_t		in = c->group[i];

		if ((s = cf_sstable_iter_next(c->its[in])) == NULL && cf_sstable_iter_valid(c->its[in]))
			heap_push(c, in);
	}
	if (s)
	{
		for (size_t i = 0; i < k; i++)
			if (c->srcs[i])
				c->srcs[i]->ops->free(c->srcs[i]);
		return s;
	}
	return cf_row_merge_new(&c->opts->sstable.order, c->srcs, k, false, out);
}

static void
compactor_free(compactor *c)
{
	if (c->its)
		for (size_t i = 0; i < c->n; i++)
			cf_sstable_iter_free(c->its[i]);
	if (c->cells)
		for (size_t i = 0; i < c->n; i++)
			cf_sstable_cells_free(c->cells[i]);
	free(c->its);
	free(c->cells);
	free(c->rows_read);
	free(c->heap);
	free(c->group);
	free(c->srcs);
	free(c->tombs);
}

/* Allocates the per-input state and positions every input at its first row. */
static cf_status *
compactor_init(compactor *c)
{
	size_t		n = c->n;
	cf_status  *s;

	c->its = calloc(n, sizeof(*c->its));
	c->cells = calloc(n, sizeof(*c->cells));
	c->rows_read = calloc(n, sizeof(*c->rows_read));
	c->heap = calloc(n, sizeof(*c->heap));
	c->group = calloc(n, sizeof(*c->group));
	c->srcs = calloc(n, sizeof(*c->srcs));
	if (!c->its || !c->cells || !c->rows_read || !c->heap || !c->group || !c->srcs)
		return cf_status_make(CF_ERR_NO_MEMORY, "compaction: out of memory");
	for (size_t i = 0; i < n; i++)
	{
		const cf_sstable_stats *ts = cf_sstable_get_stats(c->inputs[i]);

		c->st->bytes_in += ts->file_bytes;
		if ((s = cf_sstable_iter_new(c->inputs[i], &c->its[i])) != NULL)
			return s;
		/* one pass over tables about to be deleted: leave the block cache to readers */
		cf_sstable_iter_fill_cache(c->its[i], false);
		if ((s = cf_sstable_iter_first(c->its[i])) != NULL)
			return s;
		if (cf_sstable_iter_valid(c->its[i]))
			heap_push(c, i);
	}
	return NULL;
}

static bool
cancelled(const compactor *c)
{
	return c->opts->cancel != NULL && atomic_load(c->opts->cancel) != 0;
}

static void
report_progress(compactor *c)
{
	if (c->opts->progress)
		c->opts->progress(c->opts->progress_arg, c->st->rows_merged, bytes_read_estimate(c));
}

/* The merge loop: every row of the inputs, in order, into c->w. */
static cf_status *
merge_all(compactor *c)
{
	uint64_t	every = c->opts->progress_every ? c->opts->progress_every
		: DEFAULT_PROGRESS_EVERY;

	while (c->heap_n > 0)
	{
		cf_row_merge *m;
		uint64_t	versions;
		cf_status  *s;

		if (cancelled(c))
			return cf_status_make(CF_ERR_CANCELLED, "compaction cancelled after %" PRIu64 " rows",
								  c->st->rows_merged);
		if ((s = next_row(c, &m, &versions)) != NULL)
			return s;
		c->st->cells_in += versions;
		if ((s = compact_row(c, m, versions)) != NULL)
			return s;
		if (++c->st->rows_merged % every == 0)
			report_progress(c);
	}
	report_progress(c);
	return NULL;
}

cf_status *
cf_compaction_run(cf_env *env, cf_sstable *const *inputs, size_t n, const char *out_path,
				  const cf_compaction_options *opts, cf_compaction_stats *stats)
{
	cf_compaction_stats local;
	compactor	c = {.opts = opts, .inputs = inputs, .n = n};
	int64_t		t0 = cf_env_mono_micros(env);
	cf_sstable_stats ws;
	cf_status  *s;

	c.st = stats ? stats : &local;
	memset(c.st, 0, sizeof(*c.st));
	if (n == 0)
		return cf_status_make(CF_ERR_INVALID, "compaction of %s: no input sstables", out_path);
	c.now = opts->now ? opts->now : (int32_t) (cf_env_now_micros(env) / 1000000);

	s = compactor_init(&c);
	if (s == NULL)
		s = cf_sstable_writer_open(env, out_path, &opts->sstable, &c.w);
	if (s == NULL)
		s = merge_all(&c);
	compactor_free(&c);
	if (s == NULL && c.st->rows_out > 0)
	{
		s = cf_sstable_writer_finish(c.w, &ws);
		if (s == NULL)
			c.st->bytes_out = ws.file_bytes;
	}
	else
		cf_sstable_writer_abandon(c.w);	/* an error, or nothing survived: no file */
	c.st->elapsed_us = cf_env_mono_micros(env) - t0;
	if (s)
		return cf_status_wrap(s, "compaction into %s", out_path);
	cf_log_info("compaction", "compacted %zu sstables into %s: %" PRIu64 " rows in, %" PRIu64
				" out, %" PRIu64 " -> %" PRIu64 " bytes, %.3f s",
				n, c.st->rows_out ? out_path : "(nothing)", c.st->rows_in, c.st->rows_out,
				c.st->bytes_in, c.st->bytes_out, (double) c.st->elapsed_us / 1e6);
	return NULL;
}

/* ---------------------------------------------------------------- size tiers */

/* Sorts idx[0..n) by (sizes[idx], idx): insertion sort, n is the tables of one CF. */
static void
sort_by_size(const uint64_t *sizes, size_t *idx, size_t n)
{
	for (size_t i = 1; i < n; i++)
	{
		size_t		v = idx[i],
					j = i;

		while (j > 0 && (sizes[idx[j - 1]] > sizes[v] ||
						 (sizes[idx[j - 1]] == sizes[v] && idx[j - 1] > v)))
		{
			idx[j] = idx[j - 1];
			j--;
		}
		idx[j] = v;
	}
}

/*
 * Does a table of size belong in a bucket of average avg? Its sizes are ascending, so
 * size >= avg and only the upper bound can fail: Cassandra's
 * avg/2 < size < 3*avg/2, or both under the small-table size.
 */
static bool
fits_bucket(uint64_t size, unsigned __int128 avg)
{
	if (size < CF_COMPACTION_SMALL_BYTES && avg < CF_COMPACTION_SMALL_BYTES)
		return true;
	return 2 * (unsigned __int128) size > avg && 2 * (unsigned __int128) size < 3 * avg;
}

void
cf_compaction_pick(const uint64_t *sizes, size_t n, int min_threshold, int max_threshold,
				   size_t *chosen, size_t *n_chosen)
{
	size_t		best = 0,
				best_n = 0;
	unsigned __int128 best_avg = 0;

	*n_chosen = 0;
	if (min_threshold <= 0 || max_threshold <= 0)
		return;
	if (min_threshold < 2)
		min_threshold = 2;
	if (max_threshold < min_threshold)
		max_threshold = min_threshold;
	for (size_t i = 0; i < n; i++)
		chosen[i] = i;
	sort_by_size(sizes, chosen, n);

	/* in ascending order a bucket is a run: extend it while the next table fits */
	for (size_t start = 0; start < n;)
	{
		unsigned __int128 sum = sizes[chosen[start]];
		size_t		end = start + 1;

		while (end < n && fits_bucket(sizes[chosen[end]], sum / (end - start)))
			sum += sizes[chosen[end++]];
		if (end - start >= (size_t) min_threshold &&
			(best_n == 0 || sum / (end - start) < best_avg))
		{
			best = start;
			best_n = end - start;
			best_avg = sum / best_n;
		}
		start = end;
	}
	if (best_n > (size_t) max_threshold)
		best_n = (size_t) max_threshold;
	memmove(chosen, chosen + best, best_n * sizeof(*chosen));
	*n_chosen = best_n;
}
