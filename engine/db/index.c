/*
 * db/index.c — KEYS secondary indexes: entry names, the index changes of a write
 * (read-before-write against the base row), and queries (see index.h and
 * engine/doc/index_format.md).
 */
#include "db/index.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PLAN_ARENA_BLOCK 4096
#define QUERY_PAGE 1000			/* index entries or base rows read at a time */
#define NAME_TXT 64				/* bytes of a column name quoted in a message */

/* ---------------------------------------------------------------- layout */

cf_col_order
cf_index_col_order(void)
{
	cf_col_order o = {.super = false,.cmp = CF_TYPE_BYTES,.subcmp = CF_TYPE_BYTES};

	return o;
}

bool
cf_index_cf_has_indexes(const cf_cf_def *d)
{
	for (size_t i = 0; i < d->n_columns; i++)
		if (d->column_metadata[i].indexed)
			return true;
	return false;
}

cf_slice
cf_index_row_key(cf_type validator, cf_slice v)
{
	if (validator != CF_TYPE_INTEGER)
		return v;
	/* two's complement: a leading 0x00 (0xff) is redundant before a byte < (>=) 0x80 */
	while (v.len >= 2 &&
		   ((v.p[0] == 0x00 && v.p[1] < 0x80) || (v.p[0] == 0xff && v.p[1] >= 0x80)))
	{
		v.p++;
		v.len--;
	}
	return v;
}

cf_status *
cf_index_entry_name(cf_partitioner p, cf_slice token, cf_slice key, cf_buf *out)
{
	size_t		len;

	switch (p)
	{
		case CF_PARTITIONER_RANDOM:
			if (token.len != CF_RANDOM_TOKEN_LEN)
				return cf_status_make(CF_ERR_INVALID, "index entry: a RandomPartitioner "
									  "token of %zu bytes", token.len);
			len = token.len + key.len;
			break;
		case CF_PARTITIONER_BYTE_ORDERED:
		case CF_PARTITIONER_ORDER_PRESERVING:
			token = cf_slice_of(NULL, 0);
			len = key.len;
			break;
		case CF_PARTITIONER_COLLATING_ORDER_PRESERVING:
			if (token.len < key.len + 1 || token.p[token.len - key.len - 1] != 0x00)
				return cf_status_make(CF_ERR_INVALID, "index entry: not a collating token "
									  "of the key");
			key = cf_slice_of(NULL, 0);
			len = token.len;
			break;
		default:
			return cf_status_make(CF_ERR_INVALID, "index entry: unknown partitioner %d",
								  (int) p);
	}
	if (len > CF_NAME_MAX)
		return cf_status_make(CF_ERR_INVALID,
							  "a row key of %zu bytes is too long for a column family with "
							  "a secondary index under %s: the index entry would be %zu "
							  "bytes, over the %d-byte limit of a column name", key.len ?
							  key.len : len, cf_partitioner_name(p), len, CF_NAME_MAX);
	cf_buf_put(out, token.p, token.len);
	cf_buf_put(out, key.p, key.len);
	return cf_buf_status(out);
}

cf_status *
cf_index_entry_parse(cf_partitioner p, cf_slice name, cf_slice *token, cf_slice *key)
{
	const uint8_t *z;

	switch (p)
	{
		case CF_PARTITIONER_RANDOM:
			if (name.len <= CF_RANDOM_TOKEN_LEN)
				break;
			*token = cf_slice_of(name.p, CF_RANDOM_TOKEN_LEN);
			*key = cf_slice_of(name.p + CF_RANDOM_TOKEN_LEN, name.len - CF_RANDOM_TOKEN_LEN);
			return NULL;
		case CF_PARTITIONER_BYTE_ORDERED:
		case CF_PARTITIONER_ORDER_PRESERVING:
			if (name.len == 0)
				break;
			*token = *key = name;
			return NULL;
		case CF_PARTITIONER_COLLATING_ORDER_PRESERVING:
			if (name.len == 0 || (z = memchr(name.p, 0, name.len)) == NULL ||
				z == name.p + name.len - 1)
				break;
			*token = name;
			*key = cf_slice_of(z + 1, (size_t) (name.p + name.len - z - 1));
			return NULL;
		default:
			break;
	}
	return cf_status_make(CF_ERR_CORRUPTION, "index entry: a name of %zu bytes is not an "
						  "entry of %s", name.len, cf_partitioner_name(p));
}

/* ---------------------------------------------------------------- plans */

void
cf_index_plan_init(cf_index_plan *p)
{
	memset(p, 0, sizeof(*p));
}

void
cf_index_plan_reset(cf_index_plan *p)
{
	cf_arena_free(p->arena_);
	p->arena_ = NULL;
	p->n_muts = 0;
}

void
cf_index_plan_free(cf_index_plan *p)
{
	cf_arena_free(p->arena_);
	free(p->muts);
	memset(p, 0, sizeof(*p));
}

static cf_status *
plan_oom(void)
{
	return cf_status_make(CF_ERR_NO_MEMORY, "planning index changes: out of memory");
}

/* Copies s into the plan's arena. */
static bool
plan_copy(cf_index_plan *p, cf_slice s, cf_slice *out)
{
	void	   *d = cf_arena_dup(p->arena_, s.len ? s.p : (const uint8_t *) "", s.len);

	*out = cf_slice_of(d, s.len);
	return d != NULL;
}

/*
 * Appends one index change: in the row row_key of the index CF index_id, the cell c
 * (its name, value and bytes are copied).
 */
static cf_status *
plan_add(cf_index_plan *p, uint32_t index_id, cf_slice row_key, const cf_cell *c)
{
	cf_cf_update *u;
	cf_cell    *cell;
	cf_mutation *m;

	if (p->arena_ == NULL && (p->arena_ = cf_arena_new(PLAN_ARENA_BLOCK)) == NULL)
		return plan_oom();
	if (p->n_muts == p->cap_)
	{
		size_t		cap = p->cap_ ? p->cap_ * 2 : 4;
		cf_mutation *g = realloc(p->muts, cap * sizeof(*g));

		if (g == NULL)
			return plan_oom();
		p->muts = g;
		p->cap_ = cap;
	}
	u = cf_arena_alloc(p->arena_, sizeof(*u));
	cell = cf_arena_alloc(p->arena_, sizeof(*cell));
	if (u == NULL || cell == NULL)
		return plan_oom();
	*cell = *c;
	cell->sc = cf_slice_of(NULL, 0);
	*u = (cf_cf_update) {.cf_id = index_id,.row_del = cf_deletion_none(),.cells = cell,
	.n_cells = 1};
	m = &p->muts[p->n_muts];
	*m = (cf_mutation) {.cfs = u,.n_cfs = 1};
	if (!plan_copy(p, row_key, &m->key) || !plan_copy(p, c->name, &cell->name) ||
		!plan_copy(p, c->value, &cell->value))
		return plan_oom();
	p->n_muts++;
	return NULL;
}

/* The entry value of a base value: empty, or the value itself for IntegerType. */
static cf_slice
entry_value(cf_type validator, cf_slice v)
{
	return validator == CF_TYPE_INTEGER ? v : cf_slice_of(NULL, 0);
}

/* Appends the mirror of the base cell w to the index row of its value. */
static cf_status *
plan_mirror(cf_index_plan *p, const cf_column_def *col, cf_slice entry, const cf_cell *w)
{
	cf_cell		m = {
		.name = entry,.value = entry_value(col->validator, w->value),
		.timestamp = w->timestamp,.ttl = w->ttl,.local_time = w->local_time,
		.flags = (uint8_t) (w->flags & CF_CELL_EXPIRING),
	};

	if (w->value.len > CF_KEY_MAX)
		return cf_status_make(CF_ERR_INVALID, "a value of %zu bytes cannot be indexed: an "
							  "indexed value is a row key of the index, at most %d bytes",
							  w->value.len, CF_KEY_MAX);
	return plan_add(p, col->index_id, cf_index_row_key(col->validator, w->value), &m);
}

static bool
is_column(const cf_cf_def *def, cf_slice name, const cf_column_def *col)
{
	return cf_type_compare(def->comparator, name, cf_slice_of(col->name, col->name_len)) == 0;
}

/* The latest deletion among the row's deletion and its range tombstones covering col. */
static cf_deletion
deletion_covering(const cf_cf_def *def, const cf_column_def *col, cf_deletion row_del,
				  const cf_range_tomb *const *tombs_p, const cf_range_tomb *tombs, size_t n)
{
	cf_col_order o = cf_cfdef_col_order(def);
	cf_slice	name = cf_slice_of(col->name, col->name_len);
	cf_deletion d = row_del;

	for (size_t i = 0; i < n; i++)
	{
		const cf_range_tomb *t = tombs_p ? tombs_p[i] : &tombs[i];

		if (t->sc.len == 0 && cf_range_tomb_covers(&o, t, cf_slice_of(NULL, 0), name))
			d = cf_deletion_is_live(d) ? t->del : cf_deletion_max(d, t->del);
	}
	return d;
}

/*
 * The column's current winner in the merge (*has false if the row has no version of
 * it) and the deletion covering it.
 */
static cf_status *
current_state(cf_row_merge *m, const cf_cf_def *def, const cf_column_def *col, cf_cell *w,
			  bool *has, cf_deletion *del)
{
	size_t		n;
	const cf_range_tomb *const *tombs = cf_row_merge_tombs(m, &n);
	cf_status  *s;

	*has = false;
	*del = deletion_covering(def, col, cf_row_merge_deletion(m), tombs, NULL, n);
	if ((s = cf_row_merge_seek(m, cf_slice_of(NULL, 0),
							   cf_slice_of(col->name, col->name_len))) != NULL)
		return s;
	if (cf_row_merge_valid(m) && is_column(def, cf_row_merge_cell(m)->name, col))
	{
		*w = *cf_row_merge_cell(m);
		*has = true;
	}
	return NULL;
}

/* Is the version w indexed: a value, neither deleted nor shadowed by del? */
static bool
indexed_state(const cf_cell *w, cf_deletion del)
{
	return !(w->flags & CF_CELL_DELETED) && !cf_deletion_shadows(del, w->timestamp);
}

cf_status *
cf_index_plan_write(cf_index_plan *plan, const cf_cf_def *def, const cf_table_set *base,
					cf_partitioner p, cf_slice token, cf_slice key, const cf_cf_update *u,
					int32_t now_sec)
{
	cf_row_merge *m = NULL;
	cf_buf		entry = CF_BUF_INIT;
	cf_status  *s = NULL;

	for (size_t ci = 0; s == NULL && ci < def->n_columns; ci++)
	{
		const cf_column_def *col = &def->column_metadata[ci];
		const cf_cell *nw = NULL;	/* the winner among u's versions of the column */
		cf_deletion ud;
		cf_cell		w = {0};
		bool		has_w;
		cf_deletion old_del;
		cf_deletion new_del;
		const cf_cell *w2;
		bool		old_ix;
		bool		new_ix;
		cf_slice	old_key = {0};
		cf_slice	new_key = {0};

		if (!col->indexed || col->index_id == 0)
			continue;
		for (size_t i = 0; i < u->n_cells; i++)
			if (u->cells[i].sc.len == 0 && is_column(def, u->cells[i].name, col) &&
				(nw == NULL || cf_cell_reconcile(&u->cells[i], nw) > 0))
				nw = &u->cells[i];
		ud = deletion_covering(def, col, u->row_del, NULL, u->tombs, u->n_tombs);
		if (nw == NULL && cf_deletion_is_live(ud))
			continue;			/* u leaves this column alone */

		if (entry.len == 0 && (s = cf_index_entry_name(p, token, key, &entry)) != NULL)
			break;
		if (m == NULL && (s = cf_read_row_merge(base, token, key, false, &m)) != NULL)
			break;
		if ((s = current_state(m, def, col, &w, &has_w, &old_del)) != NULL)
			break;
		new_del = cf_deletion_is_live(ud) ? old_del :
			cf_deletion_is_live(old_del) ? ud : cf_deletion_max(old_del, ud);
		w2 = has_w ? &w : NULL;
		if (nw && (w2 == NULL || cf_cell_reconcile(nw, w2) > 0))
			w2 = nw;
		old_ix = has_w && indexed_state(&w, old_del);
		new_ix = w2 && indexed_state(w2, new_del);
		if (old_ix)
			old_key = cf_index_row_key(col->validator, w.value);
		if (new_ix)
			new_key = cf_index_row_key(col->validator, w2->value);

		/*
		 * The old entry goes when the column is dead now or indexed under another key,
		 * by a tombstone no version that may still win can be older than or tie with
		 * (index_format.md, "Why the tombstones are safe").
		 */
		if (old_ix && (!new_ix || !cf_slice_eq(old_key, new_key)))
		{
			int64_t		ts = w.timestamp;
			bool		tomb = true;

			if (!new_ix)
			{
				if (w2->flags & CF_CELL_DELETED)
					ts = w2->timestamp;
				if (cf_deletion_shadows(new_del, w2->timestamp) && new_del.timestamp > ts)
					ts = new_del.timestamp;
			}
			else
				tomb = w2->timestamp > w.timestamp;	/* a tie could hide a later winner */
			if (tomb)
			{
				cf_cell		t = {.name = cf_slice_of(entry.data, entry.len),
					.timestamp = ts,.local_time = now_sec,.flags = CF_CELL_DELETED};

				s = plan_add(plan, col->index_id, old_key, &t);
			}
		}
		/* a new version won: its mirror (old_ix with the same version needs nothing) */
		if (s == NULL && new_ix && w2 == nw)
			s = plan_mirror(plan, col, cf_slice_of(entry.data, entry.len), nw);
	}
	if (m)
		cf_row_merge_free(m);
	cf_buf_free(&entry);
	return s;
}

cf_status *
cf_index_plan_mirror(cf_index_plan *plan, const cf_cf_def *def, const cf_column_def *col,
					 const cf_table_set *base, cf_partitioner p, cf_slice token, cf_slice key)
{
	cf_row_merge *m = NULL;
	cf_buf		entry = CF_BUF_INIT;
	cf_cell		w;
	bool		has_w = false;
	cf_deletion del;
	cf_status  *s;

	s = cf_read_row_merge(base, token, key, false, &m);
	if (s == NULL)
		s = current_state(m, def, col, &w, &has_w, &del);
	if (s == NULL && has_w && indexed_state(&w, del) &&
		(s = cf_index_entry_name(p, token, key, &entry)) == NULL)
		s = plan_mirror(plan, col, cf_slice_of(entry.data, entry.len), &w);
	if (m)
		cf_row_merge_free(m);
	cf_buf_free(&entry);
	return s;
}

/* ---------------------------------------------------------------- queries */

static const char *const op_names[CF_INDEX_OP_COUNT_] = {"EQ", "GTE", "GT", "LTE", "LT"};

const char *
cf_index_op_name(cf_index_op op)
{
	return (int) op >= 0 && op < CF_INDEX_OP_COUNT_ ? op_names[op] : "?";
}

bool
cf_index_expr_matches(cf_type t, cf_index_op op, cf_slice value, cf_slice operand)
{
	int			c = cf_type_compare(t, value, operand);

	switch (op)
	{
		case CF_INDEX_EQ:
			return c == 0;
		case CF_INDEX_GTE:
			return c >= 0;
		case CF_INDEX_GT:
			return c > 0;
		case CF_INDEX_LTE:
			return c <= 0;
		case CF_INDEX_LT:
			return c < 0;
		default:
			return false;
	}
}

/* The definition of the column named name (comparator equality), or NULL. */
static const cf_column_def *
column_of(const cf_cf_def *def, cf_slice name)
{
	for (size_t i = 0; i < def->n_columns; i++)
		if (is_column(def, name, &def->column_metadata[i]))
			return &def->column_metadata[i];
	return NULL;
}

static cf_type
validator_of(const cf_cf_def *def, cf_slice name)
{
	const cf_column_def *c = column_of(def, name);

	return c ? c->validator : def->default_validator;
}

/* A column name as text for a message, 'quoted', shortened past NAME_TXT bytes. */
static void
quote_name(cf_type t, cf_slice name, cf_buf *out)
{
	cf_buf		txt = CF_BUF_INIT;

	cf_type_to_string(t, name, &txt);
	cf_buf_put_u8(out, '\'');
	if (txt.len > NAME_TXT)
	{
		cf_buf_put(out, txt.data, NAME_TXT);
		cf_buf_put(out, "...", 3);
	}
	else
		cf_buf_put(out, txt.data, txt.len);
	cf_buf_put_u8(out, '\'');
	cf_buf_free(&txt);
}

static cf_status *
no_indexed_eq(const cf_cf_def *def)
{
	cf_buf		list = CF_BUF_INIT;
	size_t		n = 0;
	cf_status  *s;

	for (size_t i = 0; i < def->n_columns; i++)
	{
		const cf_column_def *c = &def->column_metadata[i];

		if (!c->indexed)
			continue;
		if (n++)
			cf_buf_put(&list, ", ", 2);
		quote_name(def->comparator, cf_slice_of(c->name, c->name_len), &list);
	}
	if (n == 0)
		s = cf_status_make(CF_ERR_INVALID, "get_indexed_slices on %s.%s: the column family "
						   "has no indexed column; add an index (index_type KEYS) to a "
						   "column with system_update_column_family first", def->keyspace,
						   def->name);
	else
		s = cf_status_make(CF_ERR_INVALID, "get_indexed_slices on %s.%s: the index clause "
						   "needs an EQ expression on an indexed column; indexed columns: "
						   "%.*s", def->keyspace, def->name, (int) list.len,
						   list.data ? (const char *) list.data : "");
	cf_buf_free(&list);
	return s;
}

cf_status *
cf_index_clause_check(const cf_cf_def *def, const cf_index_clause *c, size_t *primary)
{
	bool		found = false;

	*primary = 0;
	if (def->super)
		return cf_status_make(CF_ERR_INVALID, "get_indexed_slices on %s.%s: it is a Super "
							  "column family; secondary indexes exist only on Standard "
							  "column families", def->keyspace, def->name);
	if (c->count < 0)
		return cf_status_make(CF_ERR_INVALID, "get_indexed_slices on %s.%s: count must not "
							  "be negative, got %d", def->keyspace, def->name, (int) c->count);
	for (size_t i = 0; i < c->n_exprs; i++)
	{
		const cf_index_expr *e = &c->exprs[i];
		const cf_column_def *col;
		cf_status  *s;

		if ((int) e->op < 0 || e->op >= CF_INDEX_OP_COUNT_)
			return cf_status_make(CF_ERR_INVALID, "get_indexed_slices on %s.%s: expression "
								  "%zu has an unknown operator %d (valid: EQ, GTE, GT, LTE, "
								  "LT)", def->keyspace, def->name, i + 1, (int) e->op);
		if ((s = cf_name_validate(def->comparator, e->column, "index expression column",
								  false)) != NULL ||
			(s = cf_type_validate(validator_of(def, e->column), e->value,
								  "index expression value")) != NULL)
			return cf_status_wrap(s, "get_indexed_slices on %s.%s, expression %zu",
								  def->keyspace, def->name, i + 1);
		col = column_of(def, e->column);
		if (!found && e->op == CF_INDEX_EQ && col && col->indexed && col->index_id)
		{
			*primary = i;
			found = true;
		}
	}
	return found ? NULL : no_indexed_eq(def);
}

/* ---- results ---- */

typedef struct rows_builder
{
	cf_read_rows *r;
	cf_read_row *rows;
	size_t		cap;
} rows_builder;

static bool
rows_copy(cf_arena *a, cf_slice s, cf_slice *out)
{
	void	   *d = cf_arena_dup(a, s.len ? s.p : (const uint8_t *) "", s.len);

	*out = cf_slice_of(d, s.len);
	return d != NULL;
}

/* Appends the row (token, key) with a deep copy of slice. */
static cf_status *
rows_add(rows_builder *b, cf_slice token, cf_slice key, const cf_row_slice *slice)
{
	cf_arena   *a = b->r->arena;
	cf_read_row *row;

	if (b->r->n_rows == b->cap)
	{
		size_t		cap = b->cap ? b->cap * 2 : 16;
		cf_read_row *g = realloc(b->rows, cap * sizeof(*g));

		if (g == NULL)
			goto oom;
		b->rows = g;
		b->cap = cap;
	}
	row = &b->rows[b->r->n_rows];
	memset(row, 0, sizeof(*row));
	if (!rows_copy(a, token, &row->token) || !rows_copy(a, key, &row->key))
		goto oom;
	row->slice.is_super = false;
	if (slice->n_columns)
	{
		cf_read_column *cols = cf_arena_alloc(a, slice->n_columns * sizeof(*cols));

		if (cols == NULL)
			goto oom;
		for (size_t i = 0; i < slice->n_columns; i++)
		{
			cols[i] = slice->columns[i];
			if (!rows_copy(a, slice->columns[i].name, &cols[i].name) ||
				!rows_copy(a, slice->columns[i].value, &cols[i].value))
				goto oom;
		}
		row->slice.columns = cols;
		row->slice.n_columns = slice->n_columns;
	}
	b->r->n_rows++;
	return NULL;
oom:
	return cf_status_make(CF_ERR_NO_MEMORY, "get_indexed_slices: out of memory");
}

/* Moves the rows into the result's arena and sets the cursor. */
static cf_status *
rows_finish(rows_builder *b)
{
	cf_read_rows *r = b->r;

	if (r->n_rows)
	{
		r->rows = cf_arena_dup(r->arena, b->rows, r->n_rows * sizeof(*b->rows));
		if (r->rows == NULL)
			return cf_status_make(CF_ERR_NO_MEMORY, "get_indexed_slices: out of memory");
		r->has_cursor = true;
		r->cursor.token = r->rows[r->n_rows - 1].token;
		r->cursor.key = r->rows[r->n_rows - 1].key;
	}
	return NULL;
}

/* ---- the query ---- */

typedef struct query_state
{
	const cf_index_query *q;
	const cf_index_clause *c;
	const cf_predicate *pred;
	cf_slice   *names;			/* the expressions' columns: the check's predicate */
	rows_builder out;
} query_state;

/* Does a row whose expression columns are cols (live, from a names read) match? */
static bool
columns_match(const query_state *st, const cf_row_slice *cols)
{
	const cf_cf_def *def = st->q->def;

	for (size_t i = 0; i < st->c->n_exprs; i++)
	{
		const cf_index_expr *e = &st->c->exprs[i];
		const cf_read_column *v = NULL;

		for (size_t k = 0; k < cols->n_columns && v == NULL; k++)
			if (cf_type_compare(def->comparator, cols->columns[k].name, e->column) == 0)
				v = &cols->columns[k];
		if (v == NULL ||
			!cf_index_expr_matches(validator_of(def, e->column), e->op, v->value, e->value))
			return false;
	}
	return true;
}

/* A matching row: reads pred's slice of it and adds it to the result. */
static cf_status *
emit(query_state *st, cf_slice token, cf_slice key)
{
	cf_read_result *r = NULL;
	cf_status  *s = cf_read_slice(st->q->base, token, key, cf_slice_of(NULL, 0), st->pred,
								  st->q->now_sec, &r);

	if (s == NULL)
		s = rows_add(&st->out, token, key, &r->slice);
	cf_read_result_free(r);
	return s;
}

/*
 * Would pred's slice of a row hold its live column name, if it had one? For a names
 * predicate, when the name is among them; for a range, when the name is inside it and
 * the slice was not cut short by count (got: how many columns it returned).
 */
static bool
pred_covers(const cf_cf_def *def, const cf_predicate *p, cf_slice name, size_t got)
{
	cf_type		t = def->comparator;
	const cf_slice_range *r = &p->range;
	cf_slice	lo = r->reversed ? r->finish : r->start;
	cf_slice	hi = r->reversed ? r->start : r->finish;

	if (p->by_names)
	{
		for (size_t i = 0; i < p->n_names; i++)
			if (cf_type_compare(t, p->names[i], name) == 0)
				return true;
		return false;
	}
	return got < (size_t) r->count && (lo.len == 0 || cf_type_compare(t, name, lo) >= 0) &&
		(hi.len == 0 || cf_type_compare(t, name, hi) <= 0);
}

/*
 * A candidate from the index: is the base row, as it is now, a match? Emits it if so.
 * One read when pred's slice shows every expression's column (or shows it absent):
 * the common case of a whole-row predicate; else a second read of the expressions'
 * columns decides.
 */
static cf_status *
check_and_emit(query_state *st, cf_slice token, cf_slice key)
{
	const cf_cf_def *def = st->q->def;
	cf_read_result *r = NULL;
	bool		known = true;
	bool		match = true;
	cf_status  *s = cf_read_slice(st->q->base, token, key, cf_slice_of(NULL, 0), st->pred,
								  st->q->now_sec, &r);

	for (size_t i = 0; s == NULL && match && i < st->c->n_exprs; i++)
	{
		const cf_index_expr *e = &st->c->exprs[i];
		const cf_read_column *v = NULL;

		for (size_t k = 0; k < r->slice.n_columns && v == NULL; k++)
			if (cf_type_compare(def->comparator, r->slice.columns[k].name, e->column) == 0)
				v = &r->slice.columns[k];
		if (v)
			match = cf_index_expr_matches(validator_of(def, e->column), e->op, v->value,
										  e->value);
		else if (pred_covers(def, st->pred, e->column, r->slice.n_columns))
			match = false;		/* the row has no live value there */
		else
			known = false;
	}
	if (s == NULL && match && !known)
	{
		cf_predicate np = {.by_names = true,.names = st->names,.n_names = st->c->n_exprs};
		cf_read_result *x = NULL;

		if ((s = cf_read_slice(st->q->base, token, key, cf_slice_of(NULL, 0), &np,
							   st->q->now_sec, &x)) == NULL)
			match = columns_match(st, &x->slice);
		cf_read_result_free(x);
	}
	if (s == NULL && match)
		s = rows_add(&st->out, token, key, &r->slice);
	cf_read_result_free(r);
	return s;
}

/* Serves the primary expression from its index row. */
static cf_status *
run_index(query_state *st, size_t primary)
{
	const cf_index_query *q = st->q;
	const cf_index_expr *e = &st->c->exprs[primary];
	cf_slice	row = cf_index_row_key(validator_of(q->def, e->column), e->value);
	cf_buf		start = CF_BUF_INIT;
	cf_buf		tok = CF_BUF_INIT;
	bool		skip_start = false;
	cf_status  *s = NULL;

	if (st->c->start_key.len &&
		(s = cf_partitioner_token(q->partitioner, st->c->start_key, &tok)) == NULL)
		s = cf_index_entry_name(q->partitioner, cf_slice_of(tok.data, tok.len),
								st->c->start_key, &start);
	while (s == NULL && st->out.r->n_rows < (size_t) st->c->count)
	{
		size_t		want = (size_t) st->c->count - st->out.r->n_rows;
		int32_t		page = (int32_t) (want < QUERY_PAGE ? want : QUERY_PAGE) + skip_start;
		cf_predicate ip = {.range = {.start = cf_slice_of(start.data, start.len),
		.count = page}};
		cf_read_result *entries = NULL;
		size_t		n;

		if ((s = cf_read_slice(q->index, row, row, cf_slice_of(NULL, 0), &ip, q->now_sec,
							   &entries)) != NULL)
			break;
		n = entries->slice.n_columns;
		for (size_t i = 0; s == NULL && i < n &&
			 st->out.r->n_rows < (size_t) st->c->count; i++)
		{
			cf_slice	name = entries->slice.columns[i].name;
			cf_slice	token;
			cf_slice	key;

			if (i == 0 && skip_start && cf_slice_eq(name, cf_slice_of(start.data, start.len)))
				continue;
			if ((s = cf_index_entry_parse(q->partitioner, name, &token, &key)) == NULL)
				s = check_and_emit(st, token, key);
		}
		if (s == NULL && n == (size_t) page)
		{
			cf_slice	last = entries->slice.columns[n - 1].name;

			cf_buf_reset(&start);
			cf_buf_put(&start, last.p, last.len);
			s = cf_buf_status(&start);
			skip_start = true;
		}
		cf_read_result_free(entries);
		if (n < (size_t) page)
			break;
	}
	cf_buf_free(&start);
	cf_buf_free(&tok);
	return s;
}

/* No index yet (being built): a range scan of the base CF, filtered. */
static cf_status *
run_scan(query_state *st)
{
	const cf_index_query *q = st->q;
	cf_predicate np = {.by_names = true,.names = st->names,.n_names = st->c->n_exprs};
	cf_buf		tok = CF_BUF_INIT;
	cf_buf		after_buf = CF_BUF_INIT;
	cf_read_cursor after;
	bool		has_after = false;
	cf_status  *s = NULL;

	if (st->c->start_key.len)
		s = cf_partitioner_token(q->partitioner, st->c->start_key, &tok);
	while (s == NULL && st->out.r->n_rows < (size_t) st->c->count)
	{
		cf_key_range kr = {
			.start_token = cf_slice_of(tok.data, tok.len),.start_key = st->c->start_key,
			.count = QUERY_PAGE,.after = has_after ? &after : NULL,
		};
		cf_read_rows *rows = NULL;
		size_t		n;

		if ((s = cf_read_range(q->base, &kr, cf_slice_of(NULL, 0), &np, q->now_sec,
							   &rows)) != NULL)
			break;
		n = rows->n_rows;
		for (size_t i = 0; s == NULL && i < n &&
			 st->out.r->n_rows < (size_t) st->c->count; i++)
			if (columns_match(st, &rows->rows[i].slice))
				s = emit(st, rows->rows[i].token, rows->rows[i].key);
		if (s == NULL && rows->has_cursor)
		{
			if ((s = cf_read_cursor_copy(&rows->cursor, &after_buf, &after)) == NULL)
				has_after = true;
		}
		cf_read_rows_free(rows);
		if (n < QUERY_PAGE)
			break;
	}
	cf_buf_free(&tok);
	cf_buf_free(&after_buf);
	return s;
}

cf_status *
cf_index_query_run(const cf_index_query *q, const cf_index_clause *c, size_t primary,
				   const cf_predicate *pred, cf_read_rows **out)
{
	query_state st = {.q = q,.c = c,.pred = pred};
	cf_table_set none = {.order = q->base->order};
	cf_read_result *probe = NULL;
	cf_status  *s;

	*out = NULL;
	/* the predicate is checked once, on no tables, so it is refused even with no match */
	if ((s = cf_read_slice(&none, cf_slice_of(NULL, 0), cf_slice_of("", 0), cf_slice_of(NULL, 0),
						   pred, q->now_sec, &probe)) != NULL)
		return cf_status_wrap(s, "get_indexed_slices on %s.%s", q->def->keyspace,
							  q->def->name);
	cf_read_result_free(probe);
	if ((s = cf_read_rows_new(&st.out.r)) != NULL)
		return cf_status_wrap(s, "get_indexed_slices on %s.%s", q->def->keyspace,
							  q->def->name);
	if ((st.names = calloc(c->n_exprs + 1, sizeof(*st.names))) == NULL)
	{
		cf_read_rows_free(st.out.r);
		return cf_status_make(CF_ERR_NO_MEMORY, "get_indexed_slices: out of memory");
	}
	for (size_t i = 0; i < c->n_exprs; i++)
		st.names[i] = c->exprs[i].column;
	if (c->count > 0)
		s = q->index ? run_index(&st, primary) : run_scan(&st);
	if (s == NULL)
		s = rows_finish(&st.out);
	free(st.out.rows);
	free(st.names);
	if (s)
	{
		cf_read_rows_free(st.out.r);
		return cf_status_wrap(s, "get_indexed_slices on %s.%s", q->def->keyspace,
							  q->def->name);
	}
	*out = st.out.r;
	return NULL;
}
