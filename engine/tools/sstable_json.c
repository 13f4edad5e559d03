/* tools/sstable_json.c — sstable2json export and import (sstable_json.h). */
#include "tools/sstable_json.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <yajl/yajl_parse.h>

#include "util/hex.h"

#define DELETED_AT_NEVER INT64_MIN

cf_status *
cft_cf_is_super(cfc_conn *c, const char *keyspace, const char *cf, bool *super)
{
	cf_arena   *a = cf_arena_new(0);
	cf_t_ks_def ks;
	cf_status  *st;

	if (a == NULL)
		return cf_status_make(CF_ERR_NO_MEMORY, "out of memory");
	if ((st = cfc_describe_keyspace(c, keyspace, a, &ks)) != NULL)
	{
		cf_arena_free(a);
		if (cf_status_code(st) == CF_ERR_NOT_FOUND)
		{
			cf_status_free(st);
			return cf_status_make(CF_ERR_NOT_FOUND, "keyspace %s does not exist", keyspace);
		}
		return st;
	}
	for (size_t i = 0; i < ks.n_cf_defs; i++)
		if (cf_slice_eq(ks.cf_defs[i].name, cf_slice_str(cf)))
		{
			*super = ks.cf_defs[i].has_column_type &&
				cf_slice_eq(ks.cf_defs[i].column_type, cf_slice_str("Super"));
			cf_arena_free(a);
			return NULL;
		}
	cf_arena_free(a);
	return cf_status_make(CF_ERR_NOT_FOUND, "column family %s does not exist in keyspace %s",
						  cf, keyspace);
}

/* ---- export ---- */

static void
put_hex(FILE *out, cf_slice s)
{
	char		buf[512];

	fputc('"', out);
	for (size_t i = 0; i < s.len; i += sizeof(buf) / 2)
	{
		size_t		n = s.len - i < sizeof(buf) / 2 ? s.len - i : sizeof(buf) / 2;

		cf_hex_encode(s.p + i, n, buf);
		fwrite(buf, 1, 2 * n, out);
	}
	fputc('"', out);
}

static void
put_column(FILE *out, const cf_t_column *c)
{
	fputc('[', out);
	put_hex(out, c->name);
	fputs(", ", out);
	put_hex(out, c->value);
	fprintf(out, ", %" PRId64 ", false", c->timestamp);
	if (c->has_ttl)
		fprintf(out, ", %" PRId32 ", %" PRId64, c->ttl,
				c->timestamp / 1000000 + (int64_t) c->ttl);
	fputc(']', out);
}

/* Writes one item (column or super column) of a row, with its separator. */
static void
put_item(FILE *out, const cf_t_cosc *c, bool first, cft_progress *pr)
{
	if (!first)
		fputs(", ", out);
	if (c->has_super_column)
	{
		const cf_t_super_column *sc = &c->super_column;

		put_hex(out, sc->name);
		fprintf(out, ": {\"deletedAt\": %" PRId64 ", \"subColumns\": [", DELETED_AT_NEVER);
		for (size_t i = 0; i < sc->n_columns; i++)
		{
			if (i)
				fputs(", ", out);
			put_column(out, &sc->columns[i]);
			pr->bytes += sc->columns[i].name.len + sc->columns[i].value.len;
		}
		fputs("]}", out);
		pr->columns += sc->n_columns;
	}
	else
	{
		put_column(out, &c->column);
		pr->columns++;
		pr->bytes += c->column.name.len + c->column.value.len;
	}
}

static cf_slice
item_name(const cf_t_cosc *c)
{
	return c->has_super_column ? c->super_column.name : c->column.name;
}

/* The rest of a wide row: the columns after last, by a column pager. */
static cf_status *
export_rest(cfc_conn *c, const char *cf, cf_slice key, cf_slice last, int32_t col_page,
			FILE *out, cft_progress *pr)
{
	cf_t_column_parent parent = {.column_family = cf_slice_str(cf)};
	cf_t_slice_predicate pred = {.has_slice_range = true,
		.slice_range = {.start = last,.count = INT32_MAX}};
	cfc_column_pager *pg;
	cf_status  *st;
	bool		first = true;

	if ((st = cfc_column_pager_new(c, key, &parent, &pred, col_page, CF_T_CL_ONE, &pg)) != NULL)
		return st;
	for (;;)
	{
		const cf_t_cosc *items;
		size_t		n;

		if ((st = cfc_column_pager_next(pg, &items, &n)) != NULL || n == 0)
			break;
		for (size_t i = 0; i < n; i++)
		{
			/* start is inclusive: the pager's first item is the one already written */
			if (first && i == 0 && cf_slice_eq(item_name(&items[0]), last))
				continue;
			put_item(out, &items[i], false, pr);
		}
		first = false;
		cft_progress_tick(pr);
	}
	cfc_column_pager_free(pg);
	return st;
}

cf_status *
cft_export(cfc_conn *c, const char *cf, bool super, FILE *out, int32_t row_page,
		   int32_t col_page, cft_progress *pr)
{
	cf_t_column_parent parent = {.column_family = cf_slice_str(cf)};
	cf_t_slice_predicate pred = {.has_slice_range = true,.slice_range = {.count = col_page}};
	cf_t_key_range range = {.has_start_key = true,.has_end_key = true,.count = INT32_MAX};
	cfc_range_pager *rp;
	cf_status  *st;
	bool		first_row = true;

	if (row_page < 1 || col_page < 2)
		return cf_status_make(CF_ERR_INVALID, "export: row page must be >= 1 and column page >= 2");
	if ((st = cfc_range_pager_new(c, &parent, &pred, &range, row_page, CF_T_CL_ONE, &rp)) != NULL)
		return st;
	fputs("{", out);
	for (;;)
	{
		const cf_t_key_slice *rows;
		size_t		n;

		if ((st = cfc_range_pager_next(rp, &rows, &n)) != NULL || n == 0)
			break;
		for (size_t i = 0; i < n && st == NULL; i++)
		{
			const cf_t_key_slice *r = &rows[i];

			if (r->n_columns == 0)
				continue;		/* a range ghost: deleted, nothing to export */
			fputs(first_row ? "\n" : ",\n", out);
			first_row = false;
			put_hex(out, r->key);
			fputs(super ? ": {" : ": [", out);
			for (size_t j = 0; j < r->n_columns; j++)
				put_item(out, &r->columns[j], j == 0, pr);
			if (r->n_columns == (size_t) col_page)
				st = export_rest(c, cf, r->key, item_name(&r->columns[r->n_columns - 1]),
								 col_page, out, pr);
			fputs(super ? "}" : "]", out);
			pr->rows++;
			cft_progress_tick(pr);
		}
		if (st != NULL)
			break;
	}
	cfc_range_pager_free(rp);
	fputs("\n}\n", out);
	if (st == NULL && (fflush(out) != 0 || ferror(out)))
		st = cf_status_errno(errno, "writing the export");
	return st;
}

/* ---- import ---- */

typedef enum istate
{
	S_TOP,						/* before the outer { */
	S_ROWS,						/* in the outer map: a key or } */
	S_ROW_VALUE,				/* after a key: [ (standard) or { (super) */
	S_STD_COLS,					/* in a standard row: [ of a column or ] */
	S_COL,						/* in a column's array */
	S_SUPERS,					/* in a super row: a super column name or } */
	S_SUPER_VALUE,				/* after a super column name: { */
	S_SUPER_FIELDS,				/* deletedAt / subColumns / } */
	S_DELETED_AT,				/* the number */
	S_SUB_START,				/* [ of subColumns */
	S_SUB_COLS,					/* in subColumns: [ of a column or ] */
	S_END						/* after the outer } */
} istate;

typedef struct importer
{
	cfc_conn   *c;
	const char *cf;
	bool		super;
	int			max_cols;
	cft_progress *pr;
	istate		state;
	istate		col_parent;		/* S_STD_COLS or S_SUB_COLS */
	cf_status  *err;			/* a semantic error (the callbacks stop the parse) */

	/* the batch being built */
	cf_arena   *arena;
	cf_slice   *keys;			/* keys of the batch, in order */
	size_t		n_keys;
	cf_t_mutation *muts;
	size_t	   *mut_key;		/* index into keys */
	size_t		n_muts;
	cf_t_column *cols;			/* sub-columns of super column mutations */
	size_t		n_cols;
	size_t		batch_columns;	/* columns (and deletions) in the batch */
	uint64_t	batch_rows;		/* rows begun in this batch */
	uint64_t	row_columns;	/* columns of the current row in this batch */
	uint64_t	batch_bytes;

	/* the row, super column and column being read */
	cf_slice	key;			/* in the arena (copied again after a flush) */
	uint8_t    *key_buf;		/* malloc'd: survives flushes */
	size_t		key_len;
	uint8_t    *super_buf;
	size_t		super_len;
	bool		in_super;
	long		super_mut;		/* index of the open super column mutation, -1 none */
	int			field;
	cf_t_column col;
	bool		col_deleted;

	uint64_t	acked_columns;
	uint64_t	acked_rows;
} importer;

static int	fail(importer *im, const char *fmt,...) __attribute__((format(printf, 2, 3)));

/* Records a semantic error (the first one wins); returns 0 to stop yajl. */
static int
fail(importer *im, const char *fmt,...)
{
	va_list		ap;

	if (im->err == NULL)
	{
		va_start(ap, fmt);
		im->err = cf_status_makev(CF_ERR_INVALID, fmt, ap);
		va_end(ap);
	}
	return 0;
}

/* "N columns of M rows were imported before it, the rest was not", for a failure's message. */
static const char *
imported_so_far(const importer *im, char *buf, size_t n)
{
	snprintf(buf, n, "%" PRIu64 " columns of %" PRIu64 " rows were imported before it, "
			 "the rest was not", im->acked_columns, im->acked_rows);
	return buf;
}

static cf_status *
flush_batch(importer *im)
{
	cf_t_key_mutations *km;
	cf_t_cf_mutations *cm;
	size_t		nk = 0;
	cf_status  *st = NULL;

	if (im->n_muts > 0)
	{
		km = cf_arena_alloc(im->arena, im->n_keys * sizeof(*km));
		cm = cf_arena_alloc(im->arena, im->n_keys * sizeof(*cm));
		if (km == NULL || cm == NULL)
			return cf_status_make(CF_ERR_NO_MEMORY, "out of memory");
		for (size_t i = 0; i < im->n_muts; i++)
		{
			if (i == 0 || im->mut_key[i] != im->mut_key[i - 1])
			{
				km[nk].key = im->keys[im->mut_key[i]];
				km[nk].cfs = &cm[nk];
				km[nk].n_cfs = 1;
				cm[nk].column_family = cf_slice_str(im->cf);
				cm[nk].mutations = &im->muts[i];
				cm[nk].n_mutations = 0;
				nk++;
			}
			cm[nk - 1].n_mutations++;
		}
		if ((st = cfc_batch_mutate(im->c, km, nk, CF_T_CL_ONE)) != NULL)
			return cf_status_wrap(st, "batch_mutate of %zu columns", im->batch_columns);
		im->acked_columns += im->batch_columns;
		im->acked_rows += im->batch_rows;
		im->pr->columns += im->batch_columns;
		im->pr->rows += im->batch_rows;
		im->pr->bytes += im->batch_bytes;
		cft_progress_tick(im->pr);
	}
	cf_arena_free(im->arena);
	im->arena = cf_arena_new(0);
	if (im->arena == NULL)
		return cf_status_make(CF_ERR_NO_MEMORY, "out of memory");
	im->n_keys = im->n_muts = im->n_cols = im->batch_columns = 0;
	im->batch_rows = 0;
	im->batch_bytes = 0;
	im->super_mut = -1;
	return NULL;
}

/* Makes sure the batch's last key is the current row's. */
static bool
current_key(importer *im)
{
	if (im->n_keys > 0 && cf_slice_eq(im->keys[im->n_keys - 1],
									  cf_slice_of(im->key_buf, im->key_len)))
		return true;
	{
		void	   *p = cf_arena_dup(im->arena, im->key_buf ? (void *) im->key_buf : (void *) "",
									 im->key_len);

		if (p == NULL)
			return false;
		im->keys[im->n_keys++] = cf_slice_of(p, im->key_len);
	}
	return true;
}

/* Room for one more mutation and column in the batch; flushes when full. */
static bool
make_room(importer *im)
{
	if (im->batch_columns >= (size_t) im->max_cols)
	{
		cf_status  *st = flush_batch(im);

		if (st != NULL)
		{
			im->err = st;
			return false;
		}
	}
	if (!current_key(im))
	{
		im->err = cf_status_make(CF_ERR_NO_MEMORY, "out of memory");
		return false;
	}
	return true;
}

static cf_t_mutation *
new_mutation(importer *im)
{
	cf_t_mutation *m = &im->muts[im->n_muts];

	memset(m, 0, sizeof(*m));
	im->mut_key[im->n_muts++] = im->n_keys - 1;
	return m;
}

static void *
dup_or_empty(cf_arena *a, const void *p, size_t n)
{
	return cf_arena_dup(a, n ? p : (const void *) "", n);
}

/* A deletion of the current super column (deletedAt) or of one column. */
static bool
add_deletion(importer *im, int64_t ts, bool whole_super)
{
	cf_t_mutation *m;

	if (!make_room(im))
		return false;
	m = new_mutation(im);
	m->has_deletion = true;
	m->deletion.timestamp = ts;
	if (im->in_super)
	{
		void	   *p = dup_or_empty(im->arena, im->super_buf, im->super_len);

		if (p == NULL)
			goto nomem;
		m->deletion.has_super_column = true;
		m->deletion.super_column = cf_slice_of(p, im->super_len);
	}
	if (!whole_super)
	{
		cf_slice   *names = cf_arena_alloc(im->arena, sizeof(cf_slice));

		if (names == NULL)
			goto nomem;
		names[0] = im->col.name;
		m->deletion.has_predicate = true;
		m->deletion.predicate.has_column_names = true;
		m->deletion.predicate.column_names = names;
		m->deletion.predicate.n_column_names = 1;
	}
	im->super_mut = -1;			/* sub-columns after this start a new mutation */
	im->batch_columns++;
	im->row_columns++;
	return true;
nomem:
	im->err = cf_status_make(CF_ERR_NO_MEMORY, "out of memory");
	return false;
}

static bool
add_column(importer *im)
{
	cf_t_mutation *m;

	if (im->col_deleted)
		return add_deletion(im, im->col.timestamp, false);
	if (!make_room(im))
		return false;
	im->batch_bytes += im->col.name.len + im->col.value.len;
	im->batch_columns++;
	im->row_columns++;
	if (!im->in_super)
	{
		m = new_mutation(im);
		m->has_cosc = true;
		m->cosc.has_column = true;
		m->cosc.column = im->col;
		return true;
	}
	if (im->super_mut < 0)
	{
		void	   *p = dup_or_empty(im->arena, im->super_buf, im->super_len);

		if (p == NULL)
		{
			im->err = cf_status_make(CF_ERR_NO_MEMORY, "out of memory");
			return false;
		}
		m = new_mutation(im);
		m->has_cosc = true;
		m->cosc.has_super_column = true;
		m->cosc.super_column.name = cf_slice_of(p, im->super_len);
		m->cosc.super_column.columns = &im->cols[im->n_cols];
		im->super_mut = (long) (im->n_muts - 1);
	}
	im->cols[im->n_cols++] = im->col;
	im->muts[im->super_mut].cosc.super_column.n_columns++;
	return true;
}

/* Decodes hex text into a new allocation (arena, or malloc when a is NULL). */
static bool
unhex(importer *im, cf_arena *a, const unsigned char *s, size_t n, uint8_t **out,
	  size_t *len, const char *what)
{
	uint8_t    *p;

	if (n % 2 != 0)
		return fail(im, "%s is not hex: an odd number of digits", what);
	p = a ? cf_arena_alloc(a, n / 2 + 1) : malloc(n / 2 + 1);
	if (p == NULL)
	{
		im->err = cf_status_make(CF_ERR_NO_MEMORY, "out of memory");
		return false;
	}
	if (cf_hex_decode((const char *) s, n / 2, p) >= 0)
	{
		if (!a)
			free(p);
		return fail(im, "%s is not hex", what);
	}
	*out = p;
	*len = n / 2;
	return true;
}

static int
on_start_map(void *ctx)
{
	importer   *im = ctx;

	switch (im->state)
	{
		case S_TOP:
			im->state = S_ROWS;
			return 1;
		case S_ROW_VALUE:
			if (!im->super)
				return fail(im, "%s is a standard column family: a row is a list of "
							"columns [[name, value, timestamp, isDeleted], ...]", im->cf);
			im->state = S_SUPERS;
			im->batch_rows++;
			im->row_columns = 0;
			return 1;
		case S_SUPER_VALUE:
			im->state = S_SUPER_FIELDS;
			im->in_super = true;
			im->super_mut = -1;
			return 1;
		default:
			return fail(im, "unexpected '{' %s", "here");
	}
}

static int
on_map_key(void *ctx, const unsigned char *s, size_t n)
{
	importer   *im = ctx;

	switch (im->state)
	{
		case S_ROWS:
			free(im->key_buf);
			im->key_buf = NULL;
			if (n == 0)
				return fail(im, "a row key is empty (\"\"); keys need at least one byte");
			if (!unhex(im, NULL, s, n, &im->key_buf, &im->key_len, "a row key"))
				return 0;
			im->state = S_ROW_VALUE;
			return 1;
		case S_SUPERS:
			free(im->super_buf);
			im->super_buf = NULL;
			if (n == 0)
				return fail(im, "a super column name is empty (\"\"); names need at least "
							"one byte");
			if (!unhex(im, NULL, s, n, &im->super_buf, &im->super_len, "a super column name"))
				return 0;
			im->state = S_SUPER_VALUE;
			return 1;
		case S_SUPER_FIELDS:
			if (n == 9 && memcmp(s, "deletedAt", 9) == 0)
				im->state = S_DELETED_AT;
			else if (n == 10 && memcmp(s, "subColumns", 10) == 0)
				im->state = S_SUB_START;
			else
				return fail(im, "a super column holds \"deletedAt\" and \"subColumns\", "
							"not %s", "another member");
			return 1;
		default:
			return fail(im, "unexpected %s", "member name");
	}
}

static int
on_end_map(void *ctx)
{
	importer   *im = ctx;

	switch (im->state)
	{
		case S_ROWS:
			im->state = S_END;
			return 1;
		case S_SUPERS:
			im->state = S_ROWS;
			return 1;
		case S_SUPER_FIELDS:
			im->in_super = false;
			im->super_mut = -1;
			im->state = S_SUPERS;
			return 1;
		default:
			return fail(im, "unexpected %s", "'}'");
	}
}

static int
on_start_array(void *ctx)
{
	importer   *im = ctx;

	switch (im->state)
	{
		case S_ROW_VALUE:
			if (im->super)
				return fail(im, "%s is a super column family: a row is an object of "
							"super columns {\"<name>\": {\"deletedAt\": n, \"subColumns\": [...]}}",
							im->cf);
			im->state = S_STD_COLS;
			im->batch_rows++;
			im->row_columns = 0;
			return 1;
		case S_SUB_START:
			im->state = S_SUB_COLS;
			return 1;
		case S_STD_COLS:
		case S_SUB_COLS:
			/*
			 * A full batch goes out before a column is read: the column's bytes are
			 * allocated in the batch arena, which a flush frees.
			 */
			if (im->batch_columns >= (size_t) im->max_cols)
			{
				/*
				 * A row none of whose columns is in the full batch is not imported
				 * by it: it is counted with the next batch.
				 */
				bool		row_waits = im->row_columns == 0;
				cf_status  *st;

				if (row_waits)
					im->batch_rows--;
				if ((st = flush_batch(im)) != NULL)
				{
					im->err = st;
					return 0;
				}
				if (row_waits)
					im->batch_rows++;
				im->row_columns = 0;
			}
			im->col_parent = im->state;
			im->state = S_COL;
			im->field = 0;
			memset(&im->col, 0, sizeof(im->col));
			im->col_deleted = false;
			return 1;
		default:
			return fail(im, "unexpected %s", "'['");
	}
}

static int
on_end_array(void *ctx)
{
	importer   *im = ctx;

	switch (im->state)
	{
		case S_COL:
			if (im->field < 4)
				return fail(im, "a column needs [name, value, timestamp, isDeleted]%s", "");
			if (!add_column(im))
				return 0;
			im->state = im->col_parent;
			return 1;
		case S_STD_COLS:
			im->state = S_ROWS;
			return 1;
		case S_SUB_COLS:
			im->state = S_SUPER_FIELDS;
			return 1;
		default:
			return fail(im, "unexpected %s", "']'");
	}
}

static int
on_string(void *ctx, const unsigned char *s, size_t n)
{
	importer   *im = ctx;
	uint8_t    *p;
	size_t		len;

	if (im->state != S_COL || im->field > 1)
		return fail(im, "unexpected %s", "string");
	if (!unhex(im, im->arena, s, n, &p, &len, im->field == 0 ? "a column name" : "a value"))
		return 0;
	if (im->field == 0)
		im->col.name = cf_slice_of(p, len);
	else
		im->col.value = cf_slice_of(p, len);
	im->field++;
	return 1;
}

static int
on_integer(void *ctx, long long v)
{
	importer   *im = ctx;

	if (im->state == S_DELETED_AT)
	{
		im->state = S_SUPER_FIELDS;
		if (v > DELETED_AT_NEVER && !add_deletion(im, (int64_t) v, true))
			return 0;
		return 1;
	}
	if (im->state != S_COL)
		return fail(im, "unexpected %s", "number");
	switch (im->field)
	{
		case 2:
			im->col.timestamp = (int64_t) v;
			break;
		case 4:
			if (v < 1 || v > INT32_MAX)
				return fail(im, "a ttl must be 1-2147483647 seconds%s", "");
			im->col.has_ttl = true;
			im->col.ttl = (int32_t) v;
			break;
		case 5:
			break;				/* localExpirationTime: the server computes its own */
		default:
			return fail(im, "a column is [name, value, timestamp, isDeleted(, ttl, "
						"localExpirationTime)]: %s in the wrong place", "a number");
	}
	im->field++;
	return 1;
}

/*
 * Numbers arrive as text: yajl's own integer parser refuses -9223372036854775808,
 * the deletedAt that sstable2json writes for "never".
 */
static int
on_number(void *ctx, const char *s, size_t n)
{
	char		buf[32];
	char	   *end;
	long long	v;

	if (n >= sizeof(buf) || memchr(s, '.', n) || memchr(s, 'e', n) || memchr(s, 'E', n))
		return fail(ctx, "unexpected %.*s (timestamps and ttls are 64-bit integers)",
					(int) (n < 40 ? n : 40), s);
	memcpy(buf, s, n);
	buf[n] = '\0';
	errno = 0;
	v = strtoll(buf, &end, 10);
	if (errno != 0 || *end != '\0')
		return fail(ctx, "%s is not a 64-bit integer", buf);
	return on_integer(ctx, v);
}

static int
on_boolean(void *ctx, int b)
{
	importer   *im = ctx;

	if (im->state != S_COL || im->field != 3)
		return fail(im, "unexpected %s", "true/false");
	im->col_deleted = b != 0;
	im->field++;
	return 1;
}

static int
on_null(void *ctx)
{
	return fail(ctx, "unexpected %s", "null");
}

static const yajl_callbacks callbacks = {
	.yajl_null = on_null,
	.yajl_boolean = on_boolean,
	.yajl_number = on_number,
	.yajl_string = on_string,
	.yajl_start_map = on_start_map,
	.yajl_map_key = on_map_key,
	.yajl_end_map = on_end_map,
	.yajl_start_array = on_start_array,
	.yajl_end_array = on_end_array,
};

static size_t
count_lines(const unsigned char *p, size_t n)
{
	size_t		l = 0;

	for (size_t i = 0; i < n; i++)
		l += p[i] == '\n';
	return l;
}

cf_status *
cft_import(cfc_conn *c, const char *cf, bool super, FILE *in, const char *name,
		   int batch_columns, cft_progress *pr)
{
	importer	im;
	yajl_handle h;
	unsigned char buf[65536];
	char		done[128];	/* imported_so_far's text */
	uint64_t	offset = 0;
	uint64_t	lines = 0;
	cf_status  *st = NULL;
	bool		eof = false;
	bool		at_end = false;

	if (batch_columns < 1)
		return cf_status_make(CF_ERR_INVALID, "import: the batch size must be positive");
	memset(&im, 0, sizeof(im));
	im.c = c;
	im.cf = cf;
	im.super = super;
	im.max_cols = batch_columns;
	im.pr = pr;
	im.super_mut = -1;
	/* each column is at most one mutation, one key and one sub-column */
	im.keys = calloc((size_t) batch_columns + 1, sizeof(*im.keys));
	im.muts = calloc((size_t) batch_columns + 1, sizeof(*im.muts));
	im.mut_key = calloc((size_t) batch_columns + 1, sizeof(*im.mut_key));
	im.cols = calloc((size_t) batch_columns + 1, sizeof(*im.cols));
	im.arena = cf_arena_new(0);
	h = yajl_alloc(&callbacks, NULL, &im);
	if (!im.keys || !im.muts || !im.mut_key || !im.cols || !im.arena || !h)
		st = cf_status_make(CF_ERR_NO_MEMORY, "out of memory");
	while (st == NULL && !eof)
	{
		size_t		n = fread(buf, 1, sizeof(buf), in);
		yajl_status ys;

		if (n < sizeof(buf))
		{
			if (ferror(in))
			{
				st = cf_status_errno(errno, "reading %s", name);
				break;
			}
			eof = true;
		}
		ys = n > 0 ? yajl_parse(h, buf, n) : yajl_status_ok;
		if (ys == yajl_status_ok && eof)
		{
			ys = yajl_complete_parse(h);
			/* it consumed nothing: the error is where the input ends */
			at_end = true;
		}
		if (ys != yajl_status_ok)
		{
			size_t		used = at_end ? n : yajl_get_bytes_consumed(h);
			unsigned char *msg = NULL;
			const char *why;

			if (used > n)
				used = n;
			if (im.err != NULL)
				why = cf_status_msg(im.err);
			else if (at_end && im.state == S_TOP)
				why = "the file is empty: an export is one JSON object, {\"KEY\": ...}";
			else if (at_end)
				why = "the file ends in the middle of the JSON (truncated?)";
			else
			{
				msg = yajl_get_error(h, 0, buf, n);
				why = msg ? (const char *) msg : "malformed JSON";
			}
			if (im.err != NULL && cf_status_code(im.err) != CF_ERR_INVALID)
				st = cf_status_wrap(im.err, "%s:%" PRIu64 " (%s)", name,
									lines + count_lines(buf, used) + 1,
									imported_so_far(&im, done, sizeof(done)));
			else
			{
				/* strip yajl's trailing newline */
				size_t		wl = strlen(why);

				while (wl > 0 && (why[wl - 1] == '\n' || why[wl - 1] == ' '))
					wl--;
				st = cf_status_make(CF_ERR_INVALID, "%s:%" PRIu64 ": (byte %" PRIu64 ") %.*s; %s",
									name, lines + count_lines(buf, used) + 1, offset + used,
									(int) wl, why, imported_so_far(&im, done, sizeof(done)));
				cf_status_free(im.err);
			}
			im.err = NULL;
			if (msg)
				yajl_free_error(h, msg);
			break;
		}
		offset += n;
		lines += count_lines(buf, n);
	}
	if (st == NULL && im.state != S_END)
		st = cf_status_make(CF_ERR_INVALID, "%s: the file ends before its closing '}'", name);
	if (st == NULL && (st = flush_batch(&im)) != NULL)
		st = cf_status_wrap(st, "%s: the last batch (%s)", name,
							imported_so_far(&im, done, sizeof(done)));
	if (h)
		yajl_free(h);
	cf_arena_free(im.arena);
	free(im.keys);
	free(im.muts);
	free(im.mut_key);
	free(im.cols);
	free(im.key_buf);
	free(im.super_buf);
	return st;
}
