/*
 * storage/rowmerge.c — merging one row's cells across memtables and SSTables.
 *
 * The merge keeps one position per source and, at each step, scans them for the next
 * path in walking order: O(n) per step for n sources. A heap would make that O(log n),
 * but n is the number of tables holding the row (a few memtables plus the SSTables
 * compaction has not merged yet, single digits in steady state), where a linear scan
 * is faster; revisit if size-tiered compaction lets n grow past ~16.
 */
#include "storage/rowmerge.h"

#include <stdlib.h>
#include <string.h>

#include "util/alloc.h"

/* ---------------------------------------------------------------- memtable source */

typedef struct mt_source
{
	cf_cell_source base;
	cf_memtable *mt;
	cf_mt_iter	it;
	cf_slice	token;			/* copies (after the struct), for seeks and row checks */
	cf_slice	key;
	bool		has_header;
	cf_mt_iter	header;			/* positioned at the header when has_header */
	cf_cell		cur;			/* the cell op's last answer */
} mt_source;

/* Is it on an entry of the row (token, key)? */
static bool
mt_iter_in_row(const cf_mt_iter *it, cf_slice token, cf_slice key)
{
	return cf_mt_iter_valid(it) && cf_slice_eq(cf_mt_iter_key(it), key) &&
		cf_slice_eq(cf_mt_iter_token(it), token);
}

static bool
mt_in_row(const mt_source *s)
{
	return mt_iter_in_row(&s->it, s->token, s->key);
}

static bool
mt_valid(const cf_cell_source *src)
{
	const mt_source *s = (const mt_source *) src;

	return mt_in_row(s) && !cf_mt_iter_is_header(&s->it);
}

static cf_status *
mt_seek(cf_cell_source *src, cf_slice sc, cf_slice name)
{
	mt_source  *s = (mt_source *) src;

	if (sc.len == 0 && name.len == 0)
		cf_mt_iter_seek_row(&s->it, s->token, s->key);
	else
		cf_mt_iter_seek(&s->it, s->token, s->key, sc, name);
	if (mt_in_row(s) && cf_mt_iter_is_header(&s->it))
		cf_mt_iter_next(&s->it);
	return NULL;
}

static cf_status *
mt_seek_le(cf_cell_source *src, cf_slice sc, cf_slice name)
{
	mt_source  *s = (mt_source *) src;

	cf_mt_iter_seek_le(&s->it, s->token, s->key, sc, name);
	return NULL;
}

static cf_status *
mt_next(cf_cell_source *src)
{
	cf_mt_iter_next(&((mt_source *) src)->it);
	return NULL;
}

static cf_status *
mt_prev(cf_cell_source *src)
{
	cf_mt_iter_prev(&((mt_source *) src)->it);
	return NULL;
}

static const cf_cell *
mt_cell(cf_cell_source *src)
{
	mt_source  *s = (mt_source *) src;

	cf_mt_iter_cell(&s->it, &s->cur);
	return &s->cur;
}

static void
mt_deletion(const cf_cell_source *src, cf_deletion *del, const cf_range_tomb **tombs,
			size_t *n)
{
	const mt_source *s = (const mt_source *) src;

	if (!s->has_header)
	{
		*del = cf_deletion_none();
		*tombs = NULL;
		*n = 0;
		return;
	}
	cf_mt_iter_deletion(&s->header, del, tombs, n);
}

static void
mt_free(cf_cell_source *src)
{
	mt_source  *s = (mt_source *) src;

	cf_memtable_unref(s->mt);
	free(s);
}

static const struct cf_cell_source_ops mt_ops = {
	mt_seek, mt_seek_le, mt_next, mt_prev, mt_valid, mt_cell, mt_deletion, mt_free,
};

/*
 * The memtable is searched before anything is allocated: a read probes every memtable
 * of the CF, and most hold nothing of the row.
 */
cf_status *
cf_cell_source_memtable(cf_memtable *mt, cf_slice token, cf_slice key, cf_cell_source **out)
{
	cf_mt_iter	it;
	mt_source  *s;
	uint8_t    *rowkey;

	*out = NULL;
	cf_mt_iter_init(&it, mt);
	cf_mt_iter_seek_row(&it, token, key);
	if (!mt_iter_in_row(&it, token, key))
		return NULL;			/* nothing of the row here */
	if ((s = cf_zalloc(sizeof(*s) + token.len + key.len)) == NULL)
		return cf_status_make(CF_ERR_NO_MEMORY, "row merge: out of memory");
	s->base.ops = &mt_ops;
	rowkey = (uint8_t *) (s + 1);
	if (token.len)
		memcpy(rowkey, token.p, token.len);
	if (key.len)
		memcpy(rowkey + token.len, key.p, key.len);
	s->token = cf_slice_of(rowkey, token.len);
	s->key = cf_slice_of(rowkey + token.len, key.len);
	cf_memtable_ref(mt);
	s->mt = mt;
	s->it = it;
	if (cf_mt_iter_is_header(&s->it))
	{
		s->has_header = true;
		s->header = s->it;
	}
	*out = &s->base;
	return NULL;
}

/* ---------------------------------------------------------------- sstable source */

typedef struct sst_source
{
	cf_cell_source base;
	cf_sstable_row *row;
	cf_sstable_cells *cells;
	bool		own_cells;		/* false: borrowed, its owner frees it */
} sst_source;

static cf_status *
sst_seek(cf_cell_source *src, cf_slice sc, cf_slice name)
{
	sst_source *s = (sst_source *) src;

	if (sc.len == 0 && name.len == 0)
		return cf_sstable_cells_first(s->cells);
	return cf_sstable_cells_seek(s->cells, sc, name);
}

static cf_status *
sst_seek_le(cf_cell_source *src, cf_slice sc, cf_slice name)
{
	return cf_sstable_cells_seek_le(((sst_source *) src)->cells, sc, name);
}

static cf_status *
sst_next(cf_cell_source *src)
{
	return cf_sstable_cells_next(((sst_source *) src)->cells);
}

static cf_status *
sst_prev(cf_cell_source *src)
{
	return cf_sstable_cells_prev(((sst_source *) src)->cells);
}

static bool
sst_valid(const cf_cell_source *src)
{
	return cf_sstable_cells_valid(((const sst_source *) src)->cells);
}

static const cf_cell *
sst_cell(cf_cell_source *src)
{
	return cf_sstable_cells_current(((const sst_source *) src)->cells);
}

static void
sst_deletion(const cf_cell_source *src, cf_deletion *del, const cf_range_tomb **tombs,
			 size_t *n)
{
	const sst_source *s = (const sst_source *) src;

	*del = cf_sstable_row_deletion(s->row);
	*tombs = cf_sstable_row_tombs(s->row, n);
}

static void
sst_free(cf_cell_source *src)
{
	sst_source *s = (sst_source *) src;

	if (s->own_cells)
		cf_sstable_cells_free(s->cells);
	cf_sstable_row_free(s->row);
	free(s);
}

static const struct cf_cell_source_ops sst_ops = {
	sst_seek, sst_seek_le, sst_next, sst_prev, sst_valid, sst_cell, sst_deletion, sst_free,
};

/*
 * A source over row (taken: freed with the source, or here on error) and cells; with
 * cells NULL the source makes and owns its own, else it borrows cells, reset to row.
 */
static cf_status *
sst_source_new(cf_sstable_row *row, cf_sstable_cells *cells, cf_cell_source **out)
{
	sst_source *s = cf_zalloc(sizeof(*s));
	cf_status  *st;

	*out = NULL;
	if (s == NULL)
	{
		cf_sstable_row_free(row);
		return cf_status_make(CF_ERR_NO_MEMORY, "row merge: out of memory");
	}
	s->base.ops = &sst_ops;
	s->row = row;
	s->own_cells = cells == NULL;
	if (cells)
	{
		s->cells = cells;
		cf_sstable_cells_reset(cells, row);
	}
	else if ((st = cf_sstable_cells_new(row, &s->cells)) != NULL)
	{
		cf_sstable_row_free(row);
		free(s);
		return st;
	}
	*out = &s->base;
	return NULL;
}

cf_status *
cf_cell_source_sstable(cf_sstable_row *row, cf_cell_source **out)
{
	return sst_source_new(row, NULL, out);
}

cf_status *
cf_cell_source_sstable_reuse(cf_sstable_row *row, cf_sstable_cells *cells, cf_cell_source **out)
{
	return sst_source_new(row, cells, out);
}

/* ---------------------------------------------------------------- the merge */

struct cf_row_merge
{
	cf_col_order order;
	bool		reversed;
	size_t		n;
	cf_cell_source **src;		/* src and at_cur: after the struct */
	bool	   *at_cur;			/* which sources sit at the current path */
	bool		valid;
	const cf_cell *cur;			/* the winner at the current path: a source's cell */
	cf_deletion del;			/* combined row deletion */
	const cf_range_tomb **tombs;
	size_t		n_tombs;
	bool		exists;
};

void
cf_row_merge_free(cf_row_merge *m)
{
	if (m == NULL)
		return;
	for (size_t i = 0; i < m->n; i++)
		if (m->src[i])
			m->src[i]->ops->free(m->src[i]);
	free(m->tombs);
	free(m);
}

cf_status *
cf_row_merge_new(const cf_col_order *order, cf_cell_source **sources, size_t n,
				 bool reversed, cf_row_merge **out)
{
	/* the merge, then its sources and flags, in one allocation */
	cf_row_merge *m = cf_zalloc(sizeof(*m) + n * (sizeof(*m->src) + sizeof(*m->at_cur)));
	size_t		total = 0;

	*out = NULL;
	if (m == NULL)
	{
		for (size_t i = 0; i < n; i++)
			sources[i]->ops->free(sources[i]);
		return cf_status_make(CF_ERR_NO_MEMORY, "row merge: out of memory");
	}
	m->src = (cf_cell_source **) (m + 1);
	m->at_cur = (bool *) (m->src + n);
	m->order = *order;
	m->reversed = reversed;
	m->n = n;
	m->del = cf_deletion_none();
	if (n)
		memcpy(m->src, sources, n * sizeof(*sources));
	m->exists = n > 0;

	for (size_t i = 0; i < n; i++)
	{
		cf_deletion d;
		const cf_range_tomb *t;
		size_t		nt;

		m->src[i]->ops->deletion(m->src[i], &d, &t, &nt);
		m->del = cf_deletion_max(m->del, d);
		total += nt;
	}
	if (total && (m->tombs = malloc(total * sizeof(*m->tombs))) == NULL)
	{
		cf_row_merge_free(m);
		return cf_status_make(CF_ERR_NO_MEMORY, "row merge: out of memory");
	}
	for (size_t i = 0; i < n; i++)
	{
		cf_deletion d;
		const cf_range_tomb *t;
		size_t		nt;

		m->src[i]->ops->deletion(m->src[i], &d, &t, &nt);
		for (size_t k = 0; k < nt; k++)
			m->tombs[m->n_tombs++] = &t[k];
	}
	*out = m;
	return NULL;
}

/*
 * Picks the next path among the sources and reconciles the versions there; cur points
 * at the winning source's cell (no copy: it stays until that source moves, and the
 * merge moves it only in next or seek, which settle again). A merge of one source (a
 * compacted table: the whole of a steady-state scan) takes that source's cell without
 * the comparisons.
 */
static void
settle(cf_row_merge *m)
{
	bool		have = false;

	if (m->n == 1)
	{
		cf_cell_source *s = m->src[0];

		m->valid = m->at_cur[0] = s->ops->valid(s);
		if (m->valid)
			m->cur = s->ops->cell(s);
		return;
	}
	for (size_t i = 0; i < m->n; i++)
	{
		const cf_cell *c;
		int			cmp;

		m->at_cur[i] = false;
		if (!m->src[i]->ops->valid(m->src[i]))
			continue;
		c = m->src[i]->ops->cell(m->src[i]);
		if (!have)
		{
			m->cur = c;
			m->at_cur[i] = true;
			have = true;
			continue;
		}
		cmp = cf_cell_cmp(&m->order, c, m->cur);
		if (m->reversed)
			cmp = -cmp;
		if (cmp < 0)
		{
			/* a path earlier in walking order: it becomes the current one */
			for (size_t k = 0; k < i; k++)
				m->at_cur[k] = false;
			m->cur = c;
			m->at_cur[i] = true;
		}
		else if (cmp == 0)
		{
			m->at_cur[i] = true;
			if (cf_cell_reconcile(c, m->cur) > 0)
				m->cur = c;
		}
	}
	m->valid = have;
}

cf_status *
cf_row_merge_seek(cf_row_merge *m, cf_slice sc, cf_slice name)
{
	for (size_t i = 0; i < m->n; i++)
	{
		cf_cell_source *s = m->src[i];
		cf_status  *st = m->reversed ? s->ops->seek_le(s, sc, name) : s->ops->seek(s, sc, name);

		if (st)
		{
			m->valid = false;
			return st;
		}
	}
	settle(m);
	return NULL;
}

cf_status *
cf_row_merge_next(cf_row_merge *m)
{
	for (size_t i = 0; i < m->n; i++)
	{
		cf_cell_source *s = m->src[i];
		cf_status  *st;

		if (!m->at_cur[i])
			continue;
		st = m->reversed ? s->ops->prev(s) : s->ops->next(s);
		if (st)
		{
			m->valid = false;
			return st;
		}
	}
	settle(m);
	return NULL;
}

bool
cf_row_merge_valid(const cf_row_merge *m)
{
	return m->valid;
}

const cf_cell *
cf_row_merge_cell(const cf_row_merge *m)
{
	return m->cur;
}

bool
cf_row_merge_shadowed(const cf_row_merge *m)
{
	const cf_cell *c = m->cur;

	if (cf_deletion_shadows(m->del, c->timestamp))
		return true;
	for (size_t i = 0; i < m->n_tombs; i++)
	{
		const cf_range_tomb *t = m->tombs[i];

		if (cf_deletion_shadows(t->del, c->timestamp) &&
			cf_range_tomb_covers(&m->order, t, c->sc, c->name))
			return true;
	}
	return false;
}

cf_deletion
cf_row_merge_deletion(const cf_row_merge *m)
{
	return m->del;
}

const cf_range_tomb *const *
cf_row_merge_tombs(const cf_row_merge *m, size_t *n)
{
	*n = m->n_tombs;
	return m->tombs;
}

bool
cf_row_merge_exists(const cf_row_merge *m)
{
	return m->exists;
}
