/*
 * db/read.c — the local read path: predicates over merged rows, results copied into
 * one arena per result, and range scans over the row iterators of every table.
 *
 * Design: a predicate is validated and normalised once (spec); a slice of one row is
 * a walk of a cf_row_merge positioned by seek (ranges) or by one seek per name
 * (names), feeding a builder that copies live cells into the result's arena, or only
 * counts them (get_count). A range scan keeps one row iterator per table, takes the
 * smallest (token, key) among them each step, and merges that row from exactly the
 * tables positioned on it: an sstable's row comes from its iterator, while a
 * memtable's is looked up again in its skip list (cf_cell_source_memtable seeks by
 * key, O(log n) per row), and tables without the row are not searched; each sstable
 * keeps one cell iterator for the whole scan, so a data block holding many rows is
 * fetched once, not once per row.
 *
 * A names predicate over columns (get, and get_slice by names) reads the sstables that
 * may hold the row newest first, by their largest timestamp, and stops as soon as every
 * name has a version newer than anything the unread ones hold (Cassandra's
 * time-ordered read): an overwritten column costs the newest table with it, not every
 * table with a version of the row. Ranges and super column names read every table.
 *
 * Assumptions: see read.h. The builder grows its arrays with realloc in scratch
 * vectors and copies each finished array into the arena, so a result is one arena
 * however it was built.
 */
#include "db/read.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "db/schema.h"
#include "storage/partitioner.h"
#include "util/buf.h"
#include "util/failalloc.h"

/*
 * A result's arena: its first block holds a point read's column or two (one small
 * malloc, which a cache of free chunks serves), later ones double up to 64 KiB, so a
 * range scan's page (~100k cells, megabytes) is some hundred mallocs, not thousands.
 */
#define RESULT_ARENA_FIRST 512
#define RESULT_ARENA_BLOCK 65536

/* Tables a read keeps its per-table arrays for on the stack; more are allocated. */
#define STACK_TABLES 8

/* ---------------------------------------------------------------- allocation */

/* The test-only failure injection of read.h. */
static cf_failalloc failalloc;

bool
cf_read_test_fail_alloc(unsigned long n)
{
	return cf_failalloc_arm(&failalloc, n);
}

#define alloc_fails() cf_failalloc_fails(&failalloc)
#define mem_malloc(n) cf_failalloc_malloc(&failalloc, (n))
#define mem_calloc(n, size) cf_failalloc_calloc(&failalloc, (n), (size))
#define mem_realloc(p, n) cf_failalloc_realloc(&failalloc, (p), (n))

static cf_arena *
mem_arena_new(void)
{
	return alloc_fails() ? NULL : cf_arena_new_growing(RESULT_ARENA_FIRST, RESULT_ARENA_BLOCK);
}

static void *
mem_arena_alloc(cf_arena *a, size_t n)
{
	return alloc_fails() ? NULL : cf_arena_alloc(a, n);
}

static void *
mem_arena_dup(cf_arena *a, const void *p, size_t n)
{
	return alloc_fails() ? NULL : cf_arena_dup(a, p, n);
}

/* An append that may grow b; an injected failure fails b as no memory would. */
static void
mem_buf_put(cf_buf *b, const void *p, size_t n)
{
	if (alloc_fails())
		b->failed = CF_BUF_NOMEM;
	else
		cf_buf_put(b, p, n);
}

static void
mem_buf_put_u8(cf_buf *b, uint8_t v)
{
	if (alloc_fails())
		b->failed = CF_BUF_NOMEM;
	else
		cf_buf_put_u8(b, v);
}

/* ---------------------------------------------------------------- predicates */

typedef enum level
{
	LEVEL_COLUMNS,				/* Standard CF: column names */
	LEVEL_SUPERS,				/* Super CF, no parent: super column names */
	LEVEL_SUBS					/* Super CF, parent given: its sub-column names */
} level;

/* A validated predicate; names sorted and deduplicated (pointing at caller bytes). */
typedef struct spec
{
	const cf_col_order *o;
	level		lv;
	cf_type		t;				/* the type of the names the predicate selects */
	cf_slice	parent;			/* LEVEL_SUBS */
	bool		by_names;
	cf_slice   *names;			/* malloc'd, or one_name for a single name */
	size_t		n_names;
	cf_slice	one_name;
	cf_slice	start;
	cf_slice	finish;
	bool		reversed;		/* a range walking down; never set for names */
	int32_t		count;
} spec;

static void
spec_free(spec *sp)
{
	if (sp->names != &sp->one_name)
		free(sp->names);
	sp->names = NULL;
}

static cf_status *
check_parent(const cf_col_order *o, cf_slice super_column)
{
	if (super_column.len && !o->super)
		return cf_status_make(CF_ERR_INVALID,
							  "a super column was given for a Standard column family; "
							  "omit super_column (it applies to Super column families only)");
	if (super_column.len)
		return cf_name_validate(o->cmp, super_column, "super column name", false);
	return NULL;
}

static int
cmp_names(const void *a, const void *b, void *arg)
{
	return cf_type_compare(*(const cf_type *) arg, *(const cf_slice *) a,
						   *(const cf_slice *) b);
}

static cf_status *
spec_init(spec *sp, const cf_col_order *o, cf_slice super_column, const cf_predicate *p)
{
	cf_status  *st;

	memset(sp, 0, sizeof(*sp));
	sp->o = o;
	if ((st = check_parent(o, super_column)) != NULL)
		return st;
	sp->parent = super_column;
	sp->lv = !o->super ? LEVEL_COLUMNS : super_column.len ? LEVEL_SUBS : LEVEL_SUPERS;
	sp->t = sp->lv == LEVEL_SUBS ? o->subcmp : o->cmp;
	sp->by_names = p->by_names;
	if (p->by_names)
	{
		const char *what = sp->lv == LEVEL_SUPERS ? "super column name in column_names" :
			"column name in column_names";

		for (size_t i = 0; i < p->n_names; i++)
			if ((st = cf_name_validate(sp->t, p->names[i], what, false)) != NULL)
				return st;
		if (p->n_names == 0)
			return NULL;
		/* a get's one name needs no array */
		if ((sp->names = p->n_names == 1 ? &sp->one_name :
			 mem_malloc(p->n_names * sizeof(cf_slice))) == NULL)
			return cf_status_make(CF_ERR_NO_MEMORY, "read: out of memory");
		memcpy(sp->names, p->names, p->n_names * sizeof(cf_slice));
		qsort_r(sp->names, p->n_names, sizeof(cf_slice), cmp_names, &sp->t);
		for (size_t i = 0; i < p->n_names; i++)
			if (sp->n_names == 0 ||
				cf_type_compare(sp->t, sp->names[sp->n_names - 1], sp->names[i]) != 0)
				sp->names[sp->n_names++] = sp->names[i];
		return NULL;
	}
	if (p->range.count < 0)
		return cf_status_make(CF_ERR_INVALID,
							  "slice range count is %d; it must be zero or more",
							  (int) p->range.count);
	if ((st = cf_name_validate(sp->t, p->range.start, "slice range start", true)) != NULL ||
		(st = cf_name_validate(sp->t, p->range.finish, "slice range finish", true)) != NULL)
		return st;
	if (p->range.start.len && p->range.finish.len)
	{
		int			c = cf_type_compare(sp->t, p->range.start, p->range.finish);

		if (p->range.reversed ? c < 0 : c > 0)
			return cf_status_make(CF_ERR_INVALID,
								  "range finish must come after start in the order of "
								  "traversal; with reversed=%s the start is the %s end: "
								  "swap start and finish or flip reversed",
								  p->range.reversed ? "true" : "false",
								  p->range.reversed ? "high" : "low");
	}
	sp->start = p->range.start;
	sp->finish = p->range.finish;
	sp->reversed = p->range.reversed;
	sp->count = p->range.count;
	return NULL;
}

/* ---------------------------------------------------------------- results */

typedef struct builder
{
	cf_arena   *arena;			/* NULL: count only */
	size_t		count;			/* results (columns or super columns) so far */
	cf_read_column *cols;		/* scratch: top-level columns of the row */
	size_t		n_cols,
				cap_cols;
	cf_read_column *subs;		/* scratch: sub-columns of the open super column */
	size_t		n_subs,
				cap_subs;
	cf_read_super *sups;		/* scratch: super columns of the row */
	size_t		n_sups,
				cap_sups;
	cf_buf		sc;				/* name of the open super column */
	bool		nomem;			/* an allocation or the sink failed: stop */
	const cf_read_sink *sink;	/* set: results go to it, not to arrays */
	cf_status  *sink_st;		/* the sink's error, until builder_status */
} builder;

static void
builder_free(builder *b)
{
	free(b->cols);
	free(b->subs);
	free(b->sups);
	cf_buf_free(&b->sc);
}

/* Starts a new row; scratch memory is kept. */
static void
builder_reset(builder *b)
{
	b->count = b->n_cols = b->n_subs = b->n_sups = 0;
}

static bool
grow(void **p, size_t *cap, size_t n, size_t size)
{
	void	   *q;
	size_t		ncap;

	if (n < *cap)
		return true;
	ncap = *cap ? *cap * 2 : 16;
	if ((q = mem_realloc(*p, ncap * size)) == NULL)
		return false;
	*p = q;
	*cap = ncap;
	return true;
}

static cf_slice
arena_copy(builder *b, cf_slice s)
{
	void	   *p = mem_arena_dup(b->arena, s.p ? s.p : (const uint8_t *) "", s.len);

	if (p == NULL)
	{
		b->nomem = true;
		return cf_slice_of("", 0);
	}
	return cf_slice_of(p, s.len);
}

/* Records a sink callback's outcome st (taken): an error stops the builder. */
static void
builder_sink(builder *b, cf_status *st)
{
	if (st)
	{
		b->sink_st = st;
		b->nomem = true;
	}
}

/*
 * Adds a live cell as a column, to the row or to the open super column. With a sink,
 * a top-level column goes to it uncopied.
 */
static void
builder_column(builder *b, const cf_cell *c, bool in_super)
{
	cf_read_column *col;
	uint8_t    *bytes;

	if (!in_super)
		b->count++;
	if (b->sink && !in_super)
	{
		cf_read_column sc = {.name = c->name,.value = c->value,.timestamp = c->timestamp,
		.ttl = (c->flags & CF_CELL_EXPIRING) ? c->ttl : 0};

		b->n_cols++;
		builder_sink(b, b->sink->column(b->sink->arg, &sc));
		return;
	}
	if (b->arena == NULL)
	{
		b->n_subs += in_super;
		return;
	}
	if (in_super ? !grow((void **) &b->subs, &b->cap_subs, b->n_subs, sizeof(*col)) :
		!grow((void **) &b->cols, &b->cap_cols, b->n_cols, sizeof(*col)))
	{
		b->nomem = true;
		return;
	}
	col = in_super ? &b->subs[b->n_subs++] : &b->cols[b->n_cols++];
	/* name and value in one allocation: a scan copies ~100k cells a page */
	bytes = mem_arena_alloc(b->arena, c->name.len + c->value.len);
	if (bytes == NULL)
	{
		b->nomem = true;
		col->name = col->value = cf_slice_of("", 0);
	}
	else
	{
		cf_copy_short(bytes, c->name.p, c->name.len);
		cf_copy_short(bytes + c->name.len, c->value.p, c->value.len);
		col->name = cf_slice_of(bytes, c->name.len);
		col->value = cf_slice_of(bytes + c->name.len, c->value.len);
	}
	col->timestamp = c->timestamp;
	col->ttl = (c->flags & CF_CELL_EXPIRING) ? c->ttl : 0;
}

static void
builder_begin_super(builder *b, cf_slice name)
{
	cf_buf_reset(&b->sc);
	mem_buf_put(&b->sc, name.p, name.len);
	if (!cf_buf_ok(&b->sc))
		b->nomem = true;
	b->n_subs = 0;
}

static cf_slice
builder_super_name(const builder *b)
{
	return cf_slice_of(b->sc.data, b->sc.len);
}

/*
 * Ends the open super column: kept if it has a live sub-column. reversed: the
 * sub-columns arrived in reverse order and are put back in sub-comparator order.
 */
static void
builder_end_super(builder *b, bool reversed)
{
	cf_read_super *s;

	if (b->n_subs == 0)
		return;
	b->count++;
	if (b->arena == NULL)
		return;
	if (reversed)
		for (size_t i = 0, j = b->n_subs - 1; i < j; i++, j--)
		{
			cf_read_column tmp = b->subs[i];

			b->subs[i] = b->subs[j];
			b->subs[j] = tmp;
		}
	if (b->sink)
	{
		cf_read_super ss = {.name = builder_super_name(b),.columns = b->subs,
		.n_columns = b->n_subs};

		b->n_sups++;
		builder_sink(b, b->sink->super(b->sink->arg, &ss));
		return;
	}
	if (!grow((void **) &b->sups, &b->cap_sups, b->n_sups, sizeof(*s)))
	{
		b->nomem = true;
		return;
	}
	s = &b->sups[b->n_sups++];
	s->name = arena_copy(b, builder_super_name(b));
	s->n_columns = b->n_subs;
	s->columns = mem_arena_dup(b->arena, b->subs, b->n_subs * sizeof(*b->subs));
	if (s->columns == NULL)
		b->nomem = true;
}

/*
 * The sink's error (handed over once), else NO_MEMORY once an allocation of the
 * builder has failed, else NULL.
 */
static cf_status *
builder_status(builder *b)
{
	cf_status  *st = b->sink_st;

	if (st)
	{
		b->sink_st = NULL;
		return st;
	}
	return b->nomem ?
		cf_status_make(CF_ERR_NO_MEMORY, "read: out of memory building the result") : NULL;
}

/* Copies the row's arrays into the arena as *out. */
static cf_status *
builder_finish(builder *b, bool is_super, cf_row_slice *out)
{
	memset(out, 0, sizeof(*out));
	out->is_super = is_super;
	if (!b->nomem && b->n_cols &&
		(out->columns = mem_arena_dup(b->arena, b->cols, b->n_cols * sizeof(*b->cols))) == NULL)
		b->nomem = true;
	if (!b->nomem && b->n_sups &&
		(out->supers = mem_arena_dup(b->arena, b->sups, b->n_sups * sizeof(*b->sups))) == NULL)
		b->nomem = true;
	if (b->nomem)
		return builder_status(b);
	out->n_columns = b->n_cols;
	out->n_supers = b->n_sups;
	return NULL;
}

/* A result lives in its own arena (alloc_with_arena): freeing the arena frees it. */
void
cf_read_result_free(cf_read_result *r)
{
	if (r)
		cf_arena_free(r->arena);
}

void
cf_read_rows_free(cf_read_rows *r)
{
	if (r)
		cf_arena_free(r->arena);
}

cf_status *
cf_read_cursor_copy(const cf_read_cursor *c, cf_buf *buf, cf_read_cursor *out)
{
	cf_status  *s;

	cf_buf_reset(buf);
	cf_buf_put(buf, c->token.p, c->token.len);
	cf_buf_put(buf, c->key.p, c->key.len);
	if ((s = cf_buf_status(buf)) != NULL)
		return s;
	out->token = cf_slice_of(buf->data, c->token.len);
	out->key = cf_slice_of(buf->data + c->token.len, c->key.len);
	return NULL;
}

/* ---------------------------------------------------------------- one row */

static bool
cell_live(cf_row_merge *m, int32_t now_sec)
{
	return !cf_row_merge_shadowed(m) && cf_cell_live(cf_row_merge_cell(m), now_sec);
}

/*
 * Walks the cells of the super column the merge sits on (in its walking order), and
 * leaves the merge past them. NO_MEMORY as soon as the builder fails: a builder
 * without the super column's name would match none of its cells and not advance.
 */
static cf_status *
collect_super(const spec *sp, cf_row_merge *m, int32_t now_sec, builder *b, bool reversed)
{
	cf_status  *st;

	builder_begin_super(b, cf_row_merge_cell(m)->sc);
	while (!b->nomem && cf_row_merge_valid(m) &&
		   cf_type_compare(sp->o->cmp, cf_row_merge_cell(m)->sc, builder_super_name(b)) == 0)
	{
		if (cell_live(m, now_sec))
			builder_column(b, cf_row_merge_cell(m), true);
		if ((st = cf_row_merge_next(m)) != NULL)
			return st;
	}
	builder_end_super(b, reversed);
	return builder_status(b);
}

/* A names predicate; m walks forward. NO_MEMORY as soon as the builder fails. */
static cf_status *
slice_names(const spec *sp, cf_row_merge *m, int32_t now_sec, builder *b)
{
	cf_status  *st;

	for (size_t i = 0; i < sp->n_names && !b->nomem; i++)
	{
		cf_slice	name = sp->names[i];

		if (sp->lv == LEVEL_SUPERS)
		{
			if ((st = cf_row_merge_seek(m, name, cf_slice_of("", 0))) != NULL)
				return st;
			if (cf_row_merge_valid(m) &&
				cf_type_compare(sp->t, cf_row_merge_cell(m)->sc, name) == 0 &&
				(st = collect_super(sp, m, now_sec, b, false)) != NULL)
				return st;
			continue;
		}
		if ((st = cf_row_merge_seek(m, sp->parent, name)) != NULL)
			return st;
		if (cf_row_merge_valid(m) &&
			cf_path_cmp(sp->o, cf_row_merge_cell(m)->sc, cf_row_merge_cell(m)->name,
						sp->parent, name) == 0 &&
			cell_live(m, now_sec))
			builder_column(b, cf_row_merge_cell(m), false);
	}
	return builder_status(b);
}

/* Is name past the finish bound in walking order? */
static bool
past_finish(const spec *sp, cf_slice name)
{
	int			c;

	if (sp->finish.len == 0)
		return false;
	c = cf_type_compare(sp->t, name, sp->finish);
	return sp->reversed ? c < 0 : c > 0;
}

/*
 * A range predicate; m walks in the predicate's direction. NO_MEMORY as soon as the
 * builder fails.
 */
static cf_status *
slice_range(const spec *sp, cf_row_merge *m, int32_t now_sec, builder *b)
{
	cf_status  *st;

	if (sp->count == 0)
		return NULL;
	if (sp->lv == LEVEL_SUPERS)
		st = cf_row_merge_seek(m, sp->start, cf_slice_of("", 0));
	else
		st = cf_row_merge_seek(m, sp->parent, sp->start);
	if (st)
		return st;
	while (!b->nomem && cf_row_merge_valid(m) && b->count < (size_t) sp->count)
	{
		const cf_cell *c = cf_row_merge_cell(m);

		if (sp->lv == LEVEL_SUPERS)
		{
			if (past_finish(sp, c->sc))
				break;
			if ((st = collect_super(sp, m, now_sec, b, sp->reversed)) != NULL)
				return st;
			continue;
		}
		if (sp->lv == LEVEL_SUBS && cf_type_compare(sp->o->cmp, c->sc, sp->parent) != 0)
			break;
		if (past_finish(sp, c->name))
			break;
		if (cell_live(m, now_sec))
			builder_column(b, c, false);
		if ((st = cf_row_merge_next(m)) != NULL)
			return st;
	}
	return builder_status(b);
}

static cf_status *
slice_row(const spec *sp, cf_row_merge *m, int32_t now_sec, builder *b)
{
	return sp->by_names ? slice_names(sp, m, now_sec, b) : slice_range(sp, m, now_sec, b);
}

/* Does the row hold any live cell? Walks until the first one. */
static cf_status *
row_has_live(cf_row_merge *m, int32_t now_sec, bool *live)
{
	cf_status  *st = cf_row_merge_seek(m, cf_slice_of("", 0), cf_slice_of("", 0));

	*live = false;
	while (st == NULL && cf_row_merge_valid(m))
	{
		if (cell_live(m, now_sec))
		{
			*live = true;
			break;
		}
		st = cf_row_merge_next(m);
	}
	return st;
}

/* Frees the first n sources of src, and src itself when own_array. */
static void
free_sources(cf_cell_source **src, size_t n, bool own_array)
{
	for (size_t i = 0; i < n; i++)
		src[i]->ops->free(src[i]);
	if (own_array)
		free(src);
}

/* Orders rows: by token, then by key. */
static int
pos_cmp(cf_slice ta, cf_slice ka, cf_slice tb, cf_slice kb)
{
	int			c = cf_token_cmp(ta, tb);

	return c ? c : cf_slice_cmp(ka, kb);
}

/* A range scan's row iterators, merged in (token, key) order (see cf_read_range). */
typedef struct row_scan
{
	const cf_table_set *ts;
	cf_mt_iter *mt;				/* one per memtable, at the first entry of a row */
	cf_sstable_iter **sst;		/* one per sstable */
	cf_sstable_cells **cells;	/* one per sstable, reset to each of its rows in turn */
	cf_buf		cur;			/* the current row: token then key */
	cf_slice	token;
	cf_slice	key;
	bool		valid;
} row_scan;

/* Is memtable i's iterator on the current row? */
static bool
scan_mt_at(const row_scan *s, size_t i)
{
	return cf_mt_iter_valid(&s->mt[i]) &&
		pos_cmp(cf_mt_iter_token(&s->mt[i]), cf_mt_iter_key(&s->mt[i]), s->token, s->key) == 0;
}

/* Is sstable i's iterator on the current row? */
static bool
scan_sst_at(const row_scan *s, size_t i)
{
	return cf_sstable_iter_valid(s->sst[i]) &&
		pos_cmp(cf_sstable_iter_token(s->sst[i]), cf_sstable_iter_key(s->sst[i]),
				s->token, s->key) == 0;
}

/*
 * The merge of the row (token, key). Without a scan each table is searched for the
 * row (the bloom filter first); with one, only the tables whose iterator sits on the
 * row take part and the sstables' rows come from their iterators.
 */
static cf_status *
build_merge(const cf_table_set *ts, cf_slice token, cf_slice key, bool reversed,
			const row_scan *scan, cf_row_merge **out)
{
	cf_cell_source *stack_src[STACK_TABLES];
	size_t		n_tables = ts->n_memtables + ts->n_sstables;
	cf_cell_source **src = n_tables <= STACK_TABLES ? stack_src :
		mem_calloc(n_tables, sizeof(*src));
	size_t		n = 0;
	cf_status  *st = NULL;

	*out = NULL;
	if (src == NULL)
		return cf_status_make(CF_ERR_NO_MEMORY, "read: out of memory");
	for (size_t i = 0; i < ts->n_memtables; i++)
	{
		if (scan && !scan_mt_at(scan, i))
			continue;
		if ((st = cf_cell_source_memtable(ts->memtables[i], token, key, &src[n])) != NULL)
			goto fail;
		n += src[n] != NULL;
	}
	for (size_t i = 0; i < ts->n_sstables; i++)
	{
		cf_sstable_row *row = NULL;

		if (scan ? !scan_sst_at(scan, i) : !cf_sstable_may_contain(ts->sstables[i], key))
			continue;
		st = scan ? cf_sstable_iter_row(scan->sst[i], &row) :
			cf_sstable_get(ts->sstables[i], token, key, &row);
		if (st)
		{
			st = cf_status_wrap(st, "reading %s", cf_sstable_path(ts->sstables[i]));
			goto fail;
		}
		if (row == NULL)
			continue;
		if (scan)
		{
			/* the scan's cell iterator keeps the data block the previous row was in */
			if (scan->cells[i] == NULL && (st = cf_sstable_cells_new(row, &scan->cells[i])) != NULL)
			{
				cf_sstable_row_free(row);
				goto fail;
			}
			st = cf_cell_source_sstable_reuse(row, scan->cells[i], &src[n]);
		}
		else
			st = cf_cell_source_sstable(row, &src[n]);
		if (st)
			goto fail;
		n++;
	}
	st = cf_row_merge_new(&ts->order, src, n, reversed, out);
	if (src != stack_src)
		free(src);
	return st;

fail:
	free_sources(src, n, src != stack_src);
	return st;
}

cf_status *
cf_read_row_merge(const cf_table_set *ts, cf_slice token, cf_slice key, bool reversed,
				  cf_row_merge **out)
{
	return build_merge(ts, token, key, reversed, NULL, out);
}

/*
 * Does m (a merge over the newer tables) settle every name of sp against tables whose
 * newest timestamp is older_max? A name is settled when its winner there has a
 * timestamp above older_max: no version in those tables can outrank it (a reconcile
 * needs a timestamp at least as high), nor can their row deletions and range
 * tombstones shadow it (their timestamps are counted in older_max too).
 */
static cf_status *
names_settled(const spec *sp, cf_row_merge *m, int64_t older_max, bool *settled)
{
	*settled = false;
	for (size_t i = 0; i < sp->n_names; i++)
	{
		cf_status  *st = cf_row_merge_seek(m, sp->parent, sp->names[i]);
		const cf_cell *c;

		if (st)
			return st;
		if (!cf_row_merge_valid(m))
			return NULL;
		c = cf_row_merge_cell(m);
		if (cf_path_cmp(sp->o, c->sc, c->name, sp->parent, sp->names[i]) != 0 ||
			c->timestamp <= older_max)
			return NULL;
	}
	*settled = true;
	return NULL;
}

static int
cmp_newest_first(const void *a, const void *b)
{
	int64_t		x = cf_sstable_get_stats(*(cf_sstable *const *) a)->max_timestamp;
	int64_t		y = cf_sstable_get_stats(*(cf_sstable *const *) b)->max_timestamp;

	return (x < y) - (x > y);
}

/* Rounds of the time-ordered read before it reads every table at once. */
#define TIME_ORDERED_ROUNDS 4

/*
 * A names predicate over columns (Cassandra's time-ordered read): the sstables that may
 * hold the row are read newest first (by their largest timestamp), the memtables
 * always, and the read stops as soon as what it has settles every name (names_settled):
 * an overwritten column then costs the newest table holding it, not every table with a
 * version of the row. *done false: not settled within a few tables (or not worth it),
 * and the caller reads every table.
 */
static cf_status *
read_names_newest_first(const cf_table_set *ts, const spec *sp, cf_slice token,
						cf_slice key, int32_t now_sec, builder *b, bool *done)
{
	cf_sstable *stack_order[STACK_TABLES];
	cf_sstable **order = ts->n_sstables <= STACK_TABLES ? stack_order :
		mem_malloc(ts->n_sstables * sizeof(*order));
	cf_table_set sub = *ts;
	size_t		k = 0;
	cf_status  *st = NULL;

	*done = false;
	if (order == NULL)
		return cf_status_make(CF_ERR_NO_MEMORY, "read: out of memory");
	for (size_t i = 0; i < ts->n_sstables; i++)
		if (cf_sstable_may_contain(ts->sstables[i], key))
			order[k++] = ts->sstables[i];
	if (k < 2)
	{
		if (order != stack_order)
			free(order);		/* nothing to skip */
		return NULL;
	}
	qsort(order, k, sizeof(*order), cmp_newest_first);
	sub.sstables = order;
	for (size_t used = 1; used < k && used <= TIME_ORDERED_ROUNDS && st == NULL; used++)
	{
		cf_row_merge *m;
		bool		settled;

		sub.n_sstables = used;
		if ((st = cf_read_row_merge(&sub, token, key, false, &m)) != NULL)
			break;
		st = names_settled(sp, m, cf_sstable_get_stats(order[used])->max_timestamp, &settled);
		if (st == NULL && settled)
		{
			builder_reset(b);
			st = slice_row(sp, m, now_sec, b);
			*done = true;
		}
		cf_row_merge_free(m);
		if (*done)
			break;
	}
	if (order != stack_order)
		free(order);
	return st;
}

/* The slice of one row into b (reset first). */
static cf_status *
read_one(const cf_table_set *ts, const spec *sp, cf_slice token, cf_slice key,
		 int32_t now_sec, builder *b)
{
	cf_row_merge *m;
	cf_status  *st;

	builder_reset(b);
	if (sp->by_names && sp->lv != LEVEL_SUPERS && sp->n_names > 0 && ts->n_sstables > 1)
	{
		bool		done;

		st = read_names_newest_first(ts, sp, token, key, now_sec, b, &done);
		if (st || done)
			return st;
		builder_reset(b);
	}
	if ((st = cf_read_row_merge(ts, token, key, sp->reversed, &m)) != NULL)
		return st;
	st = slice_row(sp, m, now_sec, b);
	cf_row_merge_free(m);
	return st;
}

/*
 * A zeroed object of size bytes, allocated from a new arena stored in it at
 * arena_offset: a result or a rows result, freed with its arena. NULL on no memory.
 */
static void *
alloc_with_arena(size_t size, size_t arena_offset)
{
	cf_arena   *a = mem_arena_new();
	char	   *obj = a ? cf_arena_alloc(a, size) : NULL;

	if (obj == NULL)
	{
		cf_arena_free(a);
		return NULL;
	}
	memset(obj, 0, size);
	memcpy(obj + arena_offset, &a, sizeof(a));
	return obj;
}

static cf_status *
new_result(cf_read_result **out)
{
	*out = alloc_with_arena(sizeof(cf_read_result), offsetof(cf_read_result, arena));
	return *out ? NULL : cf_status_make(CF_ERR_NO_MEMORY, "read: out of memory");
}

/* Runs sp over one row into a new result. */
static cf_status *
slice_result(const cf_table_set *ts, const spec *sp, cf_slice token, cf_slice key,
			 int32_t now_sec, cf_read_result **out)
{
	builder		b = {0};
	cf_read_result *r;
	cf_status  *st;

	if ((st = new_result(&r)) != NULL)
		return st;
	b.arena = r->arena;
	st = read_one(ts, sp, token, key, now_sec, &b);
	if (st == NULL)
		st = builder_finish(&b, sp->lv == LEVEL_SUPERS, &r->slice);
	builder_free(&b);
	if (st)
	{
		cf_read_result_free(r);
		return st;
	}
	*out = r;
	return NULL;
}

cf_status *
cf_read_slice(const cf_table_set *ts, cf_slice token, cf_slice key, cf_slice super_column,
			  const cf_predicate *pred, int32_t now_sec, cf_read_result **out)
{
	spec		sp;
	cf_status  *st;

	*out = NULL;
	if ((st = spec_init(&sp, &ts->order, super_column, pred)) == NULL)
		st = slice_result(ts, &sp, token, key, now_sec, out);
	spec_free(&sp);
	return st;
}

cf_status *
cf_read_get(const cf_table_set *ts, cf_slice token, cf_slice key, cf_slice super_column,
			cf_slice column, int32_t now_sec, cf_read_result **out)
{
	cf_predicate p = {.by_names = true, .n_names = 1};
	cf_slice	name = column.len ? column : super_column;
	spec		sp;
	cf_status  *st;

	*out = NULL;
	if (ts->order.super && super_column.len == 0)
		return cf_status_make(CF_ERR_INVALID,
							  "column_path.super_column is required for a Super column family");
	if (!ts->order.super && column.len == 0)
		return cf_status_make(CF_ERR_INVALID,
							  "column_path.column is required for a Standard column family");
	p.names = &name;
	if (column.len == 0)
		super_column = cf_slice_of("", 0);	/* the super column itself, at the top level */
	if ((st = spec_init(&sp, &ts->order, super_column, &p)) == NULL)
		st = slice_result(ts, &sp, token, key, now_sec, out);
	spec_free(&sp);
	if (st == NULL && (*out)->slice.n_columns + (*out)->slice.n_supers == 0)
	{
		cf_read_result_free(*out);
		*out = NULL;
		return cf_status_make(CF_ERR_NOT_FOUND, "%s not found",
							  column.len ? "column" : "super column");
	}
	return st;
}

cf_status *
cf_read_count(const cf_table_set *ts, cf_slice token, cf_slice key, cf_slice super_column,
			  const cf_predicate *pred, int32_t now_sec, int32_t *count)
{
	builder		b = {0};			/* no arena: counts only */
	spec		sp;
	cf_status  *st;

	*count = 0;
	if ((st = spec_init(&sp, &ts->order, super_column, pred)) == NULL)
		st = read_one(ts, &sp, token, key, now_sec, &b);
	if (st == NULL)
		*count = b.count > INT32_MAX ? INT32_MAX : (int32_t) b.count;
	builder_free(&b);
	spec_free(&sp);
	return st;
}

/* ---------------------------------------------------------------- many rows */

/* Appends a row (token, key copied) with b's slice to the scratch rows. */
static cf_status *
rows_add(cf_read_rows *r, cf_read_row **rows, size_t *cap, builder *b, bool is_super,
		 cf_slice token, cf_slice key)
{
	cf_read_row *row;
	cf_status  *st;

	if (!grow((void **) rows, cap, r->n_rows, sizeof(**rows)))
		return cf_status_make(CF_ERR_NO_MEMORY, "read: out of memory");
	row = &(*rows)[r->n_rows];
	if ((st = builder_finish(b, is_super, &row->slice)) != NULL)
		return st;
	row->token = arena_copy(b, token);
	row->key = arena_copy(b, key);
	if (b->nomem)
		return cf_status_make(CF_ERR_NO_MEMORY, "read: out of memory");
	r->n_rows++;
	return NULL;
}

/* Moves the scratch rows into the arena and sets the cursor if r has one. Frees rows. */
static cf_status *
rows_finish(cf_read_rows *r, cf_read_row *rows)
{
	if (r->n_rows && (r->rows = mem_arena_dup(r->arena, rows, r->n_rows * sizeof(*rows))) == NULL)
	{
		free(rows);
		return cf_status_make(CF_ERR_NO_MEMORY, "read: out of memory");
	}
	free(rows);
	if (r->has_cursor)
	{
		r->cursor.token = r->rows[r->n_rows - 1].token;
		r->cursor.key = r->rows[r->n_rows - 1].key;
	}
	return NULL;
}

cf_status *
cf_read_rows_new(cf_read_rows **out)
{
	*out = alloc_with_arena(sizeof(cf_read_rows), offsetof(cf_read_rows, arena));
	return *out ? NULL : cf_status_make(CF_ERR_NO_MEMORY, "read: out of memory");
}

static int
cmp_index_by_key(const void *a, const void *b, void *arg)
{
	const cf_slice *keys = arg;
	size_t		i = *(const size_t *) a,
				j = *(const size_t *) b;
	int			c = cf_slice_cmp(keys[i], keys[j]);

	return c ? c : (i > j) - (i < j);
}

/* The common end of multiget and range scans: frees the scratch, hands over or frees r. */
static cf_status *
rows_done(builder *b, spec *sp, cf_read_rows *r, cf_status *st, cf_read_rows **out)
{
	builder_free(b);
	spec_free(sp);
	if (st)
		cf_read_rows_free(r);
	else
		*out = r;
	return st;
}

cf_status *
cf_read_multi(const cf_table_set *ts, const cf_slice *tokens, const cf_slice *keys,
			  size_t n_keys, cf_slice super_column, const cf_predicate *pred,
			  int32_t now_sec, cf_read_rows **out)
{
	builder		b = {0};
	spec		sp;
	cf_read_rows *r = NULL;
	cf_read_row *rows = NULL;
	size_t		cap = 0;
	size_t	   *order = NULL;
	bool	   *dup = NULL;
	cf_status  *st;

	*out = NULL;
	if ((st = spec_init(&sp, &ts->order, super_column, pred)) != NULL)
		goto done;
	/* duplicates: sort indexes by key; every index after the first of a key repeats it */
	if (n_keys && ((order = mem_malloc(n_keys * sizeof(*order))) == NULL ||
				   (dup = mem_calloc(n_keys, sizeof(*dup))) == NULL))
	{
		st = cf_status_make(CF_ERR_NO_MEMORY, "read: out of memory");
		goto done;
	}
	for (size_t i = 0; i < n_keys; i++)
		order[i] = i;
	if (n_keys)
		qsort_r(order, n_keys, sizeof(*order), cmp_index_by_key, (void *) keys);
	for (size_t i = 1; i < n_keys; i++)
		if (cf_slice_eq(keys[order[i]], keys[order[i - 1]]))
			dup[order[i]] = true;
	if ((st = cf_read_rows_new(&r)) != NULL)
		goto done;
	b.arena = r->arena;
	for (size_t i = 0; i < n_keys && st == NULL; i++)
	{
		if (dup[i])
			continue;
		st = read_one(ts, &sp, tokens[i], keys[i], now_sec, &b);
		if (st == NULL)
			st = rows_add(r, &rows, &cap, &b, sp.lv == LEVEL_SUPERS, tokens[i], keys[i]);
	}
	if (st == NULL)
	{
		st = rows_finish(r, rows);
		rows = NULL;
	}
done:
	free(rows);
	free(order);
	free(dup);
	return rows_done(&b, &sp, r, st, out);
}

/* ---- range scans ---- */

/* A position between rows: (token, key), or with key_open the end of token's keys. */
typedef struct bound
{
	bool		none;			/* an end bound: none = to the end of the ring */
	cf_slice	token;
	cf_slice	key;
	bool		key_open;		/* start: after every key of token; end: up to all of them */
	bool		exclusive;		/* start only: strictly after (token, key) */
} bound;

/* One contiguous stretch of the ring to scan: rows from start up to end. */
typedef struct segment
{
	bound		start;			/* none: from the beginning of the ring */
	bound		end;
} segment;

/*
 * <0, 0, >0 as the row (token, key) sorts before, at or after the bound's position;
 * a key_open bound is compared by token alone.
 */
static int
bound_cmp(const bound *b, cf_slice token, cf_slice key)
{
	int			c = cf_token_cmp(token, b->token);

	return (c != 0 || b->key_open) ? c : cf_slice_cmp(key, b->key);
}

/* Is the row (token, key) at or before the end bound? */
static bool
within_end(const bound *e, cf_slice token, cf_slice key)
{
	return e->none || bound_cmp(e, token, key) <= 0;
}

/* Is the row (token, key) at or after the start bound? */
static bool
within_start(const bound *s, cf_slice token, cf_slice key)
{
	int			c;

	if (s->none)
		return true;
	c = bound_cmp(s, token, key);
	return (s->key_open || s->exclusive) ? c > 0 : c >= 0;
}

static void
scan_free(row_scan *s)
{
	if (s->sst)
		for (size_t i = 0; i < s->ts->n_sstables; i++)
			cf_sstable_iter_free(s->sst[i]);
	if (s->cells)
		for (size_t i = 0; i < s->ts->n_sstables; i++)
			cf_sstable_cells_free(s->cells[i]);
	free(s->sst);
	free(s->cells);
	free(s->mt);
	cf_buf_free(&s->cur);
}

static cf_status *
scan_init(row_scan *s, const cf_table_set *ts)
{
	cf_status  *st;

	memset(s, 0, sizeof(*s));
	s->ts = ts;
	if ((s->mt = mem_calloc(ts->n_memtables + 1, sizeof(*s->mt))) == NULL ||
		(s->sst = mem_calloc(ts->n_sstables + 1, sizeof(*s->sst))) == NULL ||
		(s->cells = mem_calloc(ts->n_sstables + 1, sizeof(*s->cells))) == NULL)
		return cf_status_make(CF_ERR_NO_MEMORY, "read: out of memory");
	for (size_t i = 0; i < ts->n_memtables; i++)
		cf_mt_iter_init(&s->mt[i], ts->memtables[i]);
	for (size_t i = 0; i < ts->n_sstables; i++)
	{
		if ((st = cf_sstable_iter_new(ts->sstables[i], &s->sst[i])) != NULL)
			return cf_status_wrap(st, "reading %s", cf_sstable_path(ts->sstables[i]));

		/*
		 * A scan reads each block once, in order (LevelDB's fill_cache = false): adding
		 * them would evict the point reads' working set for blocks nobody reads again,
		 * and pay an insert and an eviction per block. Cached blocks are still used.
		 */
		cf_sstable_iter_fill_cache(s->sst[i], false);
	}
	return NULL;
}

/* Picks the smallest row among the iterators as the current one (copied). */
static cf_status *
scan_settle(row_scan *s)
{
	bool		have = false;
	cf_slice	bt = {0},
				bk = {0};

	for (size_t i = 0; i < s->ts->n_memtables; i++)
	{
		cf_slice	t,
					k;

		if (!cf_mt_iter_valid(&s->mt[i]))
			continue;
		t = cf_mt_iter_token(&s->mt[i]);
		k = cf_mt_iter_key(&s->mt[i]);
		if (!have || pos_cmp(t, k, bt, bk) < 0)
			bt = t, bk = k, have = true;
	}
	for (size_t i = 0; i < s->ts->n_sstables; i++)
	{
		cf_slice	t,
					k;

		if (!cf_sstable_iter_valid(s->sst[i]))
			continue;
		t = cf_sstable_iter_token(s->sst[i]);
		k = cf_sstable_iter_key(s->sst[i]);
		if (!have || pos_cmp(t, k, bt, bk) < 0)
			bt = t, bk = k, have = true;
	}
	s->valid = have;
	if (!have)
		return NULL;
	cf_buf_reset(&s->cur);
	mem_buf_put(&s->cur, bt.p, bt.len);
	mem_buf_put(&s->cur, bk.p, bk.len);
	if (!cf_buf_ok(&s->cur))
		return cf_status_make(CF_ERR_NO_MEMORY, "read: out of memory");
	s->token = cf_slice_of(s->cur.data, bt.len);
	s->key = cf_slice_of(s->cur.data + bt.len, bk.len);
	return NULL;
}

/* Positions every iterator at the first row at or after the start bound. */
static cf_status *
scan_seek(row_scan *s, const bound *b)
{
	cf_buf		succ = CF_BUF_INIT;
	cf_slice	token = b->token,
				key = b->key;
	bool		after = b->exclusive && !b->key_open;
	cf_status  *st = NULL;

	if (!b->none && b->key_open)
	{
		/* the rows after every key of token start at (token + 0x00, empty key) */
		mem_buf_put(&succ, b->token.p, b->token.len);
		mem_buf_put_u8(&succ, 0);
		if (!cf_buf_ok(&succ))
			return cf_status_make(CF_ERR_NO_MEMORY, "read: out of memory");
		token = cf_slice_of(succ.data, succ.len);
		key = cf_slice_of("", 0);
	}
	for (size_t i = 0; i < s->ts->n_memtables; i++)
	{
		if (b->none)
			cf_mt_iter_seek_first(&s->mt[i]);
		else if (after)
			cf_mt_iter_seek_after_row(&s->mt[i], token, key);
		else
			cf_mt_iter_seek_row(&s->mt[i], token, key);
	}
	for (size_t i = 0; i < s->ts->n_sstables && st == NULL; i++)
	{
		cf_sstable_iter *it = s->sst[i];

		st = b->none ? cf_sstable_iter_first(it) : cf_sstable_iter_seek(it, token, key);
		if (st == NULL && after && cf_sstable_iter_valid(it) &&
			pos_cmp(cf_sstable_iter_token(it), cf_sstable_iter_key(it), token, key) == 0)
			st = cf_sstable_iter_next(it);
		if (st)
			st = cf_status_wrap(st, "reading %s", cf_sstable_path(s->ts->sstables[i]));
	}
	cf_buf_free(&succ);
	return st ? st : scan_settle(s);
}

/* Moves every iterator on the current row to its next row. */
static cf_status *
scan_next(row_scan *s)
{
	for (size_t i = 0; i < s->ts->n_memtables; i++)
		if (scan_mt_at(s, i))
			cf_mt_iter_seek_after_row(&s->mt[i], s->token, s->key);
	for (size_t i = 0; i < s->ts->n_sstables; i++)
	{
		cf_status  *st;

		if (scan_sst_at(s, i) && (st = cf_sstable_iter_next(s->sst[i])) != NULL)
			return cf_status_wrap(st, "reading %s", cf_sstable_path(s->ts->sstables[i]));
	}
	return scan_settle(s);
}

/* The segments of the ring a range covers (at most two: a token range may wrap). */
static cf_status *
range_segments(const cf_key_range *kr, segment seg[2], size_t *n)
{
	memset(seg, 0, 2 * sizeof(*seg));
	if (kr->count < 0)
		return cf_status_make(CF_ERR_INVALID,
							  "key range count is %d; it must be zero or more", (int) kr->count);
	if (kr->by_token)
	{
		/* (L, R]: rows whose token is after L and at most R */
		bound		s = {.token = kr->start_token, .key_open = true};
		bound		e = {.token = kr->end_token, .key_open = true};

		seg[0].start = s;
		if (cf_token_cmp(kr->start_token, kr->end_token) < 0)
		{
			seg[0].end = e;
			*n = 1;
		}
		else
		{
			/* wraps: to the end of the ring, then from its beginning up to R */
			seg[0].end.none = true;
			seg[1].start.none = true;
			seg[1].end = e;
			*n = 2;
		}
		return NULL;
	}
	seg[0].start.none = kr->start_key.len == 0;
	seg[0].start.token = kr->start_token;
	seg[0].start.key = kr->start_key;
	seg[0].end.none = kr->end_key.len == 0;
	seg[0].end.token = kr->end_token;
	seg[0].end.key = kr->end_key;
	if (kr->start_key.len && kr->end_key.len &&
		pos_cmp(kr->start_token, kr->start_key, kr->end_token, kr->end_key) > 0)
		return cf_status_make(CF_ERR_INVALID,
							  "the key range's end_key sorts before its start_key in token "
							  "order; give an end_key after the start_key, or none to scan "
							  "to the end of the ring");
	*n = 1;
	return NULL;
}

/* Applies a resume cursor: drops what lies before it and starts strictly after it. */
static void
range_resume(const cf_key_range *kr, segment seg[2], size_t *n)
{
	const cf_read_cursor *c = kr->after;
	bound		after = {.token = c->token, .key = c->key, .exclusive = true};

	if (*n == 2 && !within_start(&seg[0].start, c->token, c->key))
	{
		/* the cursor is in the wrapped part: the first segment is done */
		seg[0] = seg[1];
		*n = 1;
	}
	if (within_start(&seg[0].start, c->token, c->key))
		seg[0].start = after;
}

/*
 * The scan of cf_read_range and cf_read_range_sink: rows into r (b->arena is r's), or
 * with b->sink to the sink (b->arena a scratch arena for super columns, renewed per
 * row). The caller frees b and sp.
 */
static cf_status *
range_scan(const cf_table_set *ts, const cf_key_range *kr, cf_slice super_column,
		   const cf_predicate *pred, int32_t now_sec, spec *sp, builder *b,
		   cf_read_rows *r)
{
	row_scan	scan = {0};
	segment		seg[2];
	size_t		n_seg = 0;
	size_t		n_rows = 0;
	cf_read_row *rows = NULL;
	size_t		cap = 0;
	const cf_read_sink *sink = b->sink;
	cf_status  *st;

	memset(sp, 0, sizeof(*sp));
	if ((st = range_segments(kr, seg, &n_seg)) != NULL ||
		(st = spec_init(sp, &ts->order, super_column, pred)) != NULL)
		return st;
	if (kr->after)
		range_resume(kr, seg, &n_seg);
	if ((st = scan_init(&scan, ts)) != NULL)
		goto done;
	if (sink && (st = sink->begin(sink->arg)) != NULL)
		goto done;
	for (size_t g = 0; g < n_seg && n_rows < (size_t) kr->count && st == NULL; g++)
	{
		st = scan_seek(&scan, &seg[g].start);
		while (st == NULL && scan.valid && n_rows < (size_t) kr->count &&
			   within_end(&seg[g].end, scan.token, scan.key))
		{
			cf_row_merge *m;
			bool		live = true;

			builder_reset(b);
			if (sink && sp->lv == LEVEL_SUPERS)
			{
				cf_arena_free(b->arena);
				if ((b->arena = mem_arena_new()) == NULL)
				{
					st = cf_status_make(CF_ERR_NO_MEMORY, "read: out of memory");
					break;
				}
			}
			if (sink && (st = sink->row_begin(sink->arg, scan.token, scan.key)) != NULL)
				break;
			if ((st = build_merge(ts, scan.token, scan.key, sp->reversed, &scan,
								  &m)) != NULL)
				break;
			st = slice_row(sp, m, now_sec, b);
			if (st == NULL && b->n_cols + b->n_sups == 0)
				st = row_has_live(m, now_sec, &live);
			cf_row_merge_free(m);
			if (st == NULL && sink)
				st = sink->row_end(sink->arg, live);
			else if (st == NULL && live)
				st = rows_add(r, &rows, &cap, b, sp->lv == LEVEL_SUPERS, scan.token,
							  scan.key);
			n_rows += live;
			if (st == NULL)
				st = scan_next(&scan);
		}
	}
	if (st == NULL && r)
	{
		r->has_cursor = r->n_rows > 0;
		st = rows_finish(r, rows);
		rows = NULL;
	}
done:
	free(rows);
	if (scan.ts)
		scan_free(&scan);
	return st;
}

cf_status *
cf_read_range(const cf_table_set *ts, const cf_key_range *kr, cf_slice super_column,
			  const cf_predicate *pred, int32_t now_sec, cf_read_rows **out)
{
	builder		b = {0};
	spec		sp;
	cf_read_rows *r = NULL;
	cf_status  *st;

	*out = NULL;
	memset(&sp, 0, sizeof(sp));
	if ((st = cf_read_rows_new(&r)) == NULL)
	{
		b.arena = r->arena;
		st = range_scan(ts, kr, super_column, pred, now_sec, &sp, &b, r);
	}
	return rows_done(&b, &sp, r, st, out);
}

cf_status *
cf_read_range_sink(const cf_table_set *ts, const cf_key_range *kr, cf_slice super_column,
				   const cf_predicate *pred, int32_t now_sec, const cf_read_sink *sink)
{
	builder		b = {.sink = sink};
	spec		sp;
	cf_status  *st;

	st = range_scan(ts, kr, super_column, pred, now_sec, &sp, &b, NULL);
	cf_arena_free(b.arena);
	builder_free(&b);
	spec_free(&sp);
	return st;
}
