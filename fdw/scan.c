/*-------------------------------------------------------------------------
 * fdw/scan.c — the executor side of colfam_fdw: sends the request plan.c built and
 * turns what colfamd returns into SQL rows, a page at a time.
 *
 * At each (re)scan the plan's values are evaluated and encoded (convert.c) into the
 * request: keys, names, bounds, the super column, index expressions. A value that is
 * NULL or cannot be encoded for its column cannot equal anything colfamd stores: an
 * equality then matches nothing (the key or name is dropped; when none is left the
 * scan is empty), a bound is dropped (the local filter still applies).
 *
 * Rows come from libcolfam's pagers: a column pager for a single key (KEYS), batches
 * of multiget_slice for several keys (KEYS: fetch_size keys a batch, the first batch
 * first_count), a range pager (KEY_RANGE, TOKEN_RANGE, ALL), pages of
 * get_indexed_slices (INDEX). In a batch or a range, each row's slice asks for
 * COLFAM_ROW_COLUMNS columns; a row that fills it goes on with a column pager from its
 * last name, and in a range the rest of that page and the pages after it are asked
 * with more columns and fewer rows (widen_range_rows). From its second page on, a
 * range pager prefetches: colfamd makes the next page while this backend decodes the
 * last one and turns it into rows (so a range scan may hold two pages). A
 * parallel-aware scan of tokens opens a range pager for each chunk of the range it
 * claims (parallel.c). Nothing holds more than a page, except that the 'rows'
 * mapping assembles one Cassandra row (one SQL row) at a time.
 *
 * A snapshot scan (spec->snapshot: the statement writes the column family it reads,
 * snapshot.c) reads every row into a tuplestore before it returns the first one, or
 * before the statement's first write to that column family if that comes sooner (a
 * scan that has not started yet, e.g. the second branch of a UNION ALL, waits on
 * pending_snapshots until modify.c's colfam_snapshot_before_write). It then serves
 * the rows from there, and a rescan replays them.
 *
 * libcolfam allocates with malloc; everything it owns hangs off the scan state and is
 * freed by a reset callback of the executor's memory context, so an ERROR (including
 * query cancel) leaks nothing.
 *-------------------------------------------------------------------------
 */
#include "colfam_fdw.h"
#include "colfam_table.h"

#include "access/nbtree.h"
#include "catalog/pg_type.h"
#include "common/int.h"
#include "datatype/timestamp.h"
#include "executor/executor.h"
#include "foreign/fdwapi.h"
#include "lib/ilist.h"
#include "miscadmin.h"
#include "nodes/nodeFuncs.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/numeric.h"
#include "utils/tuplestore.h"
#include "utils/typcache.h"

#include "client/client.h"

/* Columns asked per row in a range; a row with more goes on with a column pager. */
#define COLFAM_ROW_COLUMNS 100

/*
 * Columns a range page holds at most, per row of fetch_size: a page of wide rows has
 * fetch_size x COLFAM_PAGE_COLUMNS columns (20,000 at the default fetch_size, a reply of
 * about 1.4 MB with 34-byte values), a page of narrow rows fetch_size rows. Bigger
 * pages cost more than they save: a page's reply and its decoded rows are memory the
 * backend touches afresh (a parallel worker is a new process, and glibc gives big
 * freed blocks back to the system), and at 100 columns a row the page faults took a
 * third of the backend's CPU in a full scan.
 */
#define COLFAM_PAGE_COLUMNS 20

struct ColfamScanState
{
	ColfamScanSpec *spec;
	ColfamTable *table;
	bool	   *need;			/* [att]: the query reads it (else it stays NULL) */
	cfc_conn   *conn;
	int			cl;
	List	   *value_states;	/* ExprState per spec->values */
	MemoryContext batch_cxt;	/* one SQL row's decoding; reset per row */
	MemoryContext key_cxt;		/* key_datum; reset per Cassandra row */
	MemoryContext req_cxt;		/* the request of one (re)scan */

	/* the request */
	bool		empty;			/* nothing can match */
	bool		started;
	cf_slice   *keys;			/* KEYS: distinct, in the order SQL gave them */
	int			n_keys;
	int			key_i;			/* the next key to read (or to send in a batch) */
	cf_t_column_parent parent;
	cf_t_slice_predicate pred;
	cf_t_key_range range;
	cf_t_index_clause iclause;
	cf_slice	super_value;	/* pinned super column (parent.super_column) */

	/* where the scan is */
	cfc_column_pager *cpager;	/* columns of keys[key_i - 1], or of a wide range row */
	cfc_range_pager *rpager;
	cf_arena   *index_arena;	/* a page of get_indexed_slices or of multiget_slice */
	bool		index_done;
	cf_slice	cur_key;		/* the row the items belong to */
	const cf_t_cosc *items;		/* a page of one row's columns */
	size_t		n_items;
	size_t		item_i;
	size_t		sub_i;			/* within items[item_i]'s super column */
	const cf_t_key_slice *rows; /* a page of rows */
	size_t		n_rows;
	size_t		row_i;
	bool		new_row;		/* the items start cur_key's row */
	bool		page_preset;	/* the page of rows is a chain's answer (preset_count) */
	bool		first_page;		/* the column pager has not answered yet */
	bool		row_continues;	/* the range row filled row_pred: its pager is next */
	cf_buf		skip_name;		/* a continued row's pager returns this name first */
	cf_buf		key_copy;		/* cur_key's bytes when the row's page is gone */
	bool		key_decoded;	/* key_datum holds cur_key as the key column's type */
	Datum		key_datum;		/* decoded once per row, not once per SQL row */
	bool		key_isnull;		/* colfamd refuses empty keys; a bad server's reads NULL */
	cf_t_slice_predicate row_pred;	/* range and index scans: pred, at most
									 * COLFAM_ROW_COLUMNS columns a row (a range
									 * scan widens it: widen_range_rows) */
	int			range_rows;		/* rows a range page asks after the first */
	size_t		row_width;		/* columns of cur_key's row so far (range scans) */
	size_t		widest_row;		/* the widest range row so far */
	int64		range_rows_read;	/* rows the range pages have brought so far ... */
	int64		range_cols_read;	/* ... and their columns (not those of continuations) */

	/*
	 * A chain's answer (join.c) for the scan's first request, sorted by key: used
	 * if it holds every key of that request, dropped either way. Its rows live in
	 * the chain's memory until the scan is restarted.
	 */
	cf_t_key_slice *preset;
	size_t		n_preset;
	int32		preset_count;	/* the columns a row it asked (0: a names predicate) */
	int			preset_hits;	/* first requests answered by a chain, since begin */

	/* a parallel-aware scan (parallel.c): the token range, cut in shared chunks */
	ColfamParallelScan *parallel;	/* NULL: not parallel, the whole range here */
	const char *par_lo;			/* the range (par_lo, par_hi]; NULL: the ring's end */
	const char *par_hi;
	int			chunks;			/* chunks this process claimed since the (re)scan */
	char		chunk_lo[COLFAM_TOKEN_BUFSIZE]; /* the chunk being read */
	char		chunk_hi[COLFAM_TOKEN_BUFSIZE];

	/* a snapshot scan (spec->snapshot) */
	ForeignScanState *node;		/* its executor node */
	Bitmapset  *request_params; /* the PARAM_EXEC ids its request's values use */
	Tuplestorestate *stored;	/* every row, once read; NULL before */
	TupleTableSlot *stored_slot;	/* reads them back (minimal tuples) */
	uint64		read_at_write;	/* writes_sent when they were read */
	dlist_node	pending;		/* on pending_snapshots while not read */
	bool		is_pending;
};

/* Snapshot scans not read yet, of every statement running in this backend. */
static dlist_head pending_snapshots = DLIST_STATIC_INIT(pending_snapshots);

/* Writes modify.c has sent from this backend (colfam_snapshot_before_write). */
static uint64 writes_sent = 0;

/* What next_items found. */
typedef enum NextItems
{
	NI_ITEMS,					/* s->items holds columns of cur_key's row (maybe none) */
	NI_ROW_END,					/* the row whose columns came last has no more */
	NI_END						/* the scan is over */
} NextItems;

/* ---- cleanup ---- */

static void
close_pagers(ColfamScanState *s)
{
	cfc_column_pager_free(s->cpager);
	s->cpager = NULL;
	cfc_range_pager_free(s->rpager);
	s->rpager = NULL;
	cf_arena_free(s->index_arena);
	s->index_arena = NULL;
	s->items = NULL;
	s->n_items = s->item_i = s->sub_i = 0;
	s->rows = NULL;
	s->n_rows = s->row_i = 0;
	s->page_preset = false;
}

/* Takes s off pending_snapshots. */
static void
unpend(ColfamScanState *s)
{
	if (s->is_pending)
		dlist_delete(&s->pending);
	s->is_pending = false;
}

static void
release_callback(void *arg)
{
	ColfamScanState *s = arg;

	unpend(s);
	close_pagers(s);
	cf_buf_free(&s->skip_name);
	cf_buf_free(&s->key_copy);
}

/* ---- values ---- */

/*
 * Encodes d of type typid, or returns false if it cannot be encoded. convert.c
 * reports a value that does not fit with ERROR; the error is a pure validation (no
 * resource is held), so catching it here and flushing it is safe.
 */
static bool
try_encode(Oid typid, Datum d, cf_slice *out)
{
	MemoryContext cxt = CurrentMemoryContext;
	StringInfoData buf;
	volatile bool ok = true;

	initStringInfo(&buf);
	PG_TRY();
	{
		colfam_datum_to_bytes(typid, d, &buf, NULL);
	}
	PG_CATCH();
	{
		MemoryContextSwitchTo(cxt);
		FlushErrorState();
		ok = false;
	}
	PG_END_TRY();
	*out = cf_slice_of(buf.data, buf.len);
	return ok;
}

/*
 * Evaluates a value expression: its Datum in *value (also for the NULL test in
 * *isnull) and the encodings of its non-NULL values that can be encoded (each
 * element of an array), as cf_slice list items. Token bounds are numbers, not bytes:
 * they are only evaluated.
 */
static List *
encode_values(ExprState *es, ExprContext *econtext, const ColfamValue *v,
			  Datum *value, bool *isnull)
{
	Datum		d = ExecEvalExpr(es, econtext, isnull);
	List	   *out = NIL;
	Datum	   *elems = &d;
	bool	   *nulls = NULL;
	int			n = 1;

	*value = d;
	if (*isnull || v->role == COLFAM_V_TOKEN_LO || v->role == COLFAM_V_TOKEN_LO_EXCL ||
		v->role == COLFAM_V_TOKEN_HI)
		return NIL;
	if (v->is_array)
	{
		int16		typlen;
		bool		typbyval;
		char		typalign;

		get_typlenbyvalalign(v->typid, &typlen, &typbyval, &typalign);
		deconstruct_array(DatumGetArrayTypeP(d), v->typid, typlen, typbyval, typalign,
						  &elems, &nulls, &n);
	}
	for (int i = 0; i < n; i++)
	{
		cf_slice	e;

		if ((nulls == NULL || !nulls[i]) && try_encode(v->typid, elems[i], &e))
		{
			cf_slice   *p = palloc(sizeof(cf_slice));

			*p = e;
			out = lappend(out, p);
		}
	}
	return out;
}

/* 2^127: RandomPartitioner's largest token. */
#define RP_MAX_TOKEN "170141183460469231731687303715884105728"

/*
 * Token bound text for RandomPartitioner: floor/ceil of a numeric, less one if asked.
 * NaN and Infinity, which numeric orders after every number, become 2^127 (no token is
 * greater); -Infinity becomes -1 (before every token): the callers' clamps then read
 * them as the ring's ends, and colfamd is never sent a token that is not a number.
 */
static char *
token_text(Datum num, bool ceiling, int minus)
{
	Numeric		n = DatumGetNumeric(num);
	Datum		r;

	if (numeric_is_nan(n) || numeric_is_inf(n))
		return pstrdup(DatumGetInt32(DirectFunctionCall2(numeric_cmp, num,
														 NumericGetDatum(int64_to_numeric(0)))) > 0
					   ? RP_MAX_TOKEN : "-1");
	r = DirectFunctionCall1(ceiling ? numeric_ceil : numeric_floor, num);

	if (minus)
		r = DirectFunctionCall2(numeric_sub, r, NumericGetDatum(int64_to_numeric(minus)));
	return DatumGetCString(DirectFunctionCall1(numeric_out, r));
}

static int
numeric_sign_of(const char *text)
{
	return text[0] == '-' ? -1 : (strcmp(text, "0") == 0 ? 0 : 1);
}

static int
cmp_decimal(const char *a, const char *b)
{
	size_t		la = strlen(a),
				lb = strlen(b);

	if (la != lb)
		return la < lb ? -1 : 1;
	return strcmp(a, b);
}

static bool
slice_less(cf_slice a, cf_slice b)
{
	return cf_slice_cmp(a, b) < 0;
}

/* SQL order of two values of typid under collid: lo > hi means an empty range. */
static int
sql_compare(Oid typid, Oid collid, Datum a, Datum b)
{
	TypeCacheEntry *tc = lookup_type_cache(typid, TYPECACHE_CMP_PROC_FINFO);

	if (!OidIsValid(tc->cmp_proc_finfo.fn_oid))
		return 0;
	return DatumGetInt32(FunctionCall2Coll(&tc->cmp_proc_finfo, collid, a, b));
}

/* A key of key = ANY and where SQL gave it, for distinct_keys. */
typedef struct KeyAt
{
	cf_slice	key;
	int			at;
} KeyAt;

static int
key_at_cmp(const void *a, const void *b)
{
	const KeyAt *x = a,
			   *y = b;
	int			c = cf_slice_cmp(x->key, y->key);

	return c != 0 ? c : (x->at > y->at) - (x->at < y->at);
}

static int
key_at_pos_cmp(const void *a, const void *b)
{
	return (((const KeyAt *) a)->at > ((const KeyAt *) b)->at) -
		(((const KeyAt *) a)->at < ((const KeyAt *) b)->at);
}

/*
 * The names of the list (of cf_slice *) that can exist (colfam_name_len_ok), in
 * order: SQL finds no row with another, and colfamd refuses to be asked for one.
 */
static List *
names_that_can_exist(List *names)
{
	List	   *out = NIL;
	ListCell   *lc;

	foreach(lc, names)
		if (colfam_name_len_ok(((cf_slice *) lfirst(lc))->len))
			out = lappend(out, lfirst(lc));
	return out;
}

/*
 * The distinct keys of the list (of cf_slice *), each at its first place in the list,
 * into a palloc'd *out; returns how many. O(n log n): key = ANY may name many keys.
 * Keys that cannot exist (colfam_name_len_ok) are left out.
 */
static int
distinct_keys(List *keys, cf_slice **out)
{
	int			n = 0,
				kept = 0;
	KeyAt	   *ka = palloc(sizeof(KeyAt) * Max(list_length(keys), 1));
	ListCell   *lc;

	foreach(lc, keys)
	{
		cf_slice	k = *(cf_slice *) lfirst(lc);

		if (!colfam_name_len_ok(k.len))
			continue;
		ka[n].key = k;
		ka[n].at = foreach_current_index(lc);
		n++;
	}
	/* by key, first place first: keep the first of each run of equal keys */
	qsort(ka, n, sizeof(KeyAt), key_at_cmp);
	for (int i = 0; i < n; i++)
		if (i == 0 || cf_slice_cmp(ka[i].key, ka[kept - 1].key) != 0)
			ka[kept++] = ka[i];
	qsort(ka, kept, sizeof(KeyAt), key_at_pos_cmp);
	*out = palloc(sizeof(cf_slice) * Max(kept, 1));
	for (int i = 0; i < kept; i++)
		(*out)[i] = ka[i].key;
	pfree(ka);
	return kept;
}

/*
 * Is a bound of a key or name range (a value's encodings enc, or NULL) sent to
 * colfamd? False when s can match nothing (then s->empty is set) or the bound is
 * dropped. A bound that cannot be sent (unencodable, or longer than any key or name)
 * is dropped: plan.c leaves its comparison to Postgres (a key bound's always).
 */
static bool
bound_to_send(ColfamScanState *s, bool isnull, List *enc, bool is_end)
{
	const cf_slice *b = enc != NIL ? linitial(enc) : NULL;

	if (isnull)
		s->empty = true;		/* x < NULL is never true */
	else if (b == NULL || b->len > COLFAM_NAME_BYTES_MAX)
		;						/* dropped */
	else if (is_end && b->len == 0)
		s->empty = true;		/* an empty end would be open, but nothing is <= '' */
	else
		return true;			/* an empty start is open, as x >= '' is */
	return false;
}

/* Builds the request of a (re)scan from the plan's values (evaluated in econtext). */
static void
build_request(ExprContext *econtext, ColfamScanState *s)
{
	ColfamScanSpec *spec = s->spec;
	MemoryContext old;
	ListCell   *lv,
			   *le;
	List	   *keys = NIL;
	List	   *names = NIL;
	bool		have_names = false;
	cf_slice	lo = {0},
				hi = {0};
	bool		have_lo = false,
				have_hi = false;
	Datum		lo_d = 0,
				hi_d = 0;
	Oid			bound_type = InvalidOid,
				bound_coll = InvalidOid;
	char	   *tok_lo = NULL,
			   *tok_hi = NULL;
	cf_slice	key_lo = {0},
				key_hi = {0};
	List	   *iexprs = NIL;

	MemoryContextReset(s->req_cxt);
	old = MemoryContextSwitchTo(s->req_cxt);
	s->empty = false;
	memset(&s->parent, 0, sizeof(s->parent));
	memset(&s->pred, 0, sizeof(s->pred));
	memset(&s->range, 0, sizeof(s->range));
	memset(&s->iclause, 0, sizeof(s->iclause));
	s->par_lo = s->par_hi = NULL;
	s->chunks = 0;
	s->parent.column_family = cf_slice_str(pstrdup(spec->column_family));

	forboth(lv, spec->values, le, s->value_states)
	{
		ColfamValue *v = lfirst(lv);
		bool		isnull;
		Datum		d;
		List	   *enc = encode_values(lfirst(le), econtext, v, &d, &isnull);
		cf_slice	first = enc != NIL ? *(cf_slice *) linitial(enc) : cf_slice_of("", 0);

		switch (v->role)
		{
			case COLFAM_V_KEY:
				keys = list_concat(keys, enc);
				if (enc == NIL)
					s->empty = true;
				break;
			case COLFAM_V_SLICE_EQ:
				enc = names_that_can_exist(enc);
				names = list_concat(names, enc);
				have_names = true;
				if (enc == NIL)
					s->empty = true;
				break;
			case COLFAM_V_SUPER:
				if (enc == NIL || !colfam_name_len_ok(first.len))
					s->empty = true;
				s->super_value = first;
				s->parent.has_super_column = true;
				s->parent.super_column = first;
				break;
			case COLFAM_V_INDEX_EQ:
				if (enc == NIL)
					s->empty = true;
				else
				{
					cf_t_index_expression *ie = palloc0(sizeof(*ie));

					ie->column_name = cf_slice_str(v->index_column);
					ie->op = CF_T_OP_EQ;
					ie->value = first;
					iexprs = lappend(iexprs, ie);
				}
				break;
			case COLFAM_V_KEY_LO:
			case COLFAM_V_KEY_HI:
				if (!bound_to_send(s, isnull, enc, v->role == COLFAM_V_KEY_HI))
					break;
				if (v->role == COLFAM_V_KEY_LO)
					key_lo = first;
				else
					key_hi = first;
				break;
			case COLFAM_V_SLICE_LO:
			case COLFAM_V_SLICE_HI:
				bound_type = v->typid;
				bound_coll = s->table->cols[v->attnum - 1].collid;
				if (!bound_to_send(s, isnull, enc, v->role == COLFAM_V_SLICE_HI))
					break;
				if (v->role == COLFAM_V_SLICE_LO)
				{
					lo = first;
					lo_d = d;
					have_lo = true;
				}
				else
				{
					hi = first;
					hi_d = d;
					have_hi = true;
				}
				break;
			case COLFAM_V_TOKEN_LO:
			case COLFAM_V_TOKEN_LO_EXCL:
			case COLFAM_V_TOKEN_HI:
				if (isnull)
				{
					s->empty = true;
					break;
				}
				if (v->role == COLFAM_V_TOKEN_LO)
					tok_lo = token_text(d, true, 1);
				else if (v->role == COLFAM_V_TOKEN_LO_EXCL)
					tok_lo = token_text(d, false, 0);
				else
					tok_hi = token_text(d, false, 0);
				break;
		}
	}

	/* keys: distinct, as SQL's key = ANY returns a row once */
	if (spec->kind == COLFAM_SCAN_KEYS && !s->empty)
	{
		s->n_keys = distinct_keys(keys, &s->keys);
		if (s->n_keys == 0)
			s->empty = true;
	}
	s->key_i = 0;

	/* the slice predicate */
	if (have_names)
	{
		ListCell   *lc;
		int			i = 0;

		s->pred.has_column_names = true;
		s->pred.n_column_names = list_length(names);
		s->pred.column_names = palloc(sizeof(cf_slice) * Max(list_length(names), 1));
		foreach(lc, names)
			s->pred.column_names[i++] = *(cf_slice *) lfirst(lc);
	}
	else if (spec->rows_mapping && !spec->fetch_all && spec->fetch_names != NIL)
	{
		ListCell   *lc;
		int			i = 0;

		s->pred.has_column_names = true;
		s->pred.n_column_names = list_length(spec->fetch_names);
		s->pred.column_names = palloc(sizeof(cf_slice) * s->pred.n_column_names);
		foreach(lc, spec->fetch_names)
			s->pred.column_names[i++] = cf_slice_str(strVal(lfirst(lc)));
	}
	else
	{
		s->pred.has_slice_range = true;
		s->pred.slice_range.reversed = spec->reversed;
		s->pred.slice_range.count = INT32_MAX;
		if (have_lo && have_hi && sql_compare(bound_type, bound_coll, lo_d, hi_d) > 0)
			s->empty = true;
		if (spec->reversed)
		{
			s->pred.slice_range.start = have_hi ? hi : cf_slice_of("", 0);
			s->pred.slice_range.finish = have_lo ? lo : cf_slice_of("", 0);
		}
		else
		{
			s->pred.slice_range.start = have_lo ? lo : cf_slice_of("", 0);
			s->pred.slice_range.finish = have_hi ? hi : cf_slice_of("", 0);
		}
		/* 'rows' mapping, existence only: one column tells that the row is there */
		if (spec->rows_mapping && !spec->fetch_all)
			s->pred.slice_range.count = 1;
	}

	/* the rows */
	s->range.count = INT32_MAX;
	if (spec->kind == COLFAM_SCAN_KEY_RANGE)
	{
		/* start_key and end_key are inclusive; empty is open */
		s->range.has_start_key = true;
		s->range.start_key = key_lo;
		s->range.has_end_key = true;
		s->range.end_key = key_hi;
		if (key_hi.len > 0 && slice_less(key_hi, key_lo))
			s->empty = true;
	}
	else if (spec->kind == COLFAM_SCAN_TOKEN_RANGE)
	{
		/*
		 * Tokens are start-exclusive, end-inclusive and wrap. RandomPartitioner's
		 * tokens run from 0 to 2^127, so "from the first token" is (2^127, ...]: the
		 * range wraps past the largest token to the smallest, 0 included.
		 */
		if (tok_lo != NULL && numeric_sign_of(tok_lo) < 0)
			tok_lo = NULL;		/* from the first token */
		if (tok_hi != NULL && numeric_sign_of(tok_hi) < 0)
			s->empty = true;
		if (tok_hi != NULL && cmp_decimal(tok_hi, RP_MAX_TOKEN) >= 0)
			tok_hi = NULL;		/* to the last token */
		/* after the last token, or a range that ends where it starts or before */
		if (tok_lo != NULL && (cmp_decimal(tok_lo, RP_MAX_TOKEN) >= 0 ||
							   (tok_hi != NULL && cmp_decimal(tok_hi, tok_lo) <= 0)))
			s->empty = true;
		s->par_lo = tok_lo;
		s->par_hi = tok_hi;
		if (tok_lo == NULL && tok_hi == NULL)
		{
			/* the whole ring: as a key range, which needs no token arithmetic */
			s->range.has_start_key = s->range.has_end_key = true;
			s->range.start_key = s->range.end_key = cf_slice_of("", 0);
		}
		else
		{
			s->range.has_start_token = s->range.has_end_token = true;
			s->range.start_token = cf_slice_str(tok_lo != NULL ? tok_lo : RP_MAX_TOKEN);
			s->range.end_token = cf_slice_str(tok_hi != NULL ? tok_hi : RP_MAX_TOKEN);
		}
	}
	else if (spec->kind == COLFAM_SCAN_ALL)
	{
		/* every row: the key range from the first key to the last, as 0.7 clients asked */
		s->range.has_start_key = true;
		s->range.start_key = cf_slice_of("", 0);
		s->range.has_end_key = true;
		s->range.end_key = cf_slice_of("", 0);
	}
	else if (spec->kind == COLFAM_SCAN_INDEX)
	{
		ListCell   *lc;
		int			i = 0;

		s->iclause.n_expressions = list_length(iexprs);
		s->iclause.expressions = palloc(sizeof(cf_t_index_expression) * Max(i + list_length(iexprs), 1));
		foreach(lc, iexprs)
			s->iclause.expressions[i++] = *(cf_t_index_expression *) lfirst(lc);
		s->iclause.start_key = cf_slice_of("", 0);
		s->iclause.count = spec->first_count;
		s->index_done = false;
	}
	/* a range or index page holds at most COLFAM_ROW_COLUMNS columns of each row */
	s->row_pred = s->pred;
	if (s->row_pred.has_slice_range)
		s->row_pred.slice_range.count = Min(s->row_pred.slice_range.count, COLFAM_ROW_COLUMNS);
	MemoryContextSwitchTo(old);
}

/* ---- fetching ---- */

static void
check(ColfamScanState *s, cf_status *st, const char *what)
{
	if (st != NULL)
		colfam_report(st, psprintf("%s %s.%s", what, s->spec->keyspace, s->spec->column_family),
					  s->cur_key.len ? (const char *) s->cur_key.p : NULL, s->cur_key.len);
}

/* The name of a column or super column. */
static cf_slice
cosc_name(const cf_t_cosc *c)
{
	return c->has_column ? c->column.name : c->super_column.name;
}

/* Makes key (copied) the current row, with its first items. */
static void
start_row(ColfamScanState *s, cf_slice key, const cf_t_cosc *items, size_t n)
{
	cf_buf_reset(&s->key_copy);
	cf_buf_put(&s->key_copy, key.p, key.len);
	s->cur_key = cf_slice_of(s->key_copy.data, s->key_copy.len);
	s->key_decoded = false;
	s->items = items;
	s->n_items = n;
	s->item_i = s->sub_i = 0;
}

/* Opens a column pager over the current row with pred, page columns a page. */
static void
open_column_pager(ColfamScanState *s, const cf_t_slice_predicate *pred, int page)
{
	cfc_column_pager_free(s->cpager);
	s->cpager = NULL;
	check(s, cfc_column_pager_new(s->conn, s->cur_key, &s->parent, pred, page, s->cl,
								  &s->cpager),
		  "reading");
}

/* qsort/bsearch order of multiget answers by key bytes */
static int
key_coscs_cmp(const void *a, const void *b)
{
	return cf_slice_cmp(((const cf_t_key_coscs *) a)->key, ((const cf_t_key_coscs *) b)->key);
}

/* qsort/bsearch order of a chain's rows by key bytes */
static int
key_slice_cmp(const void *a, const void *b)
{
	return cf_slice_cmp(((const cf_t_key_slice *) a)->key, ((const cf_t_key_slice *) b)->key);
}

/*
 * The first request of the scan, for keys[key_i .. key_i + n), answered by the chain's
 * preset when it holds every one of those keys: they become the page of rows, in the
 * order of s->keys. The preset is dropped either way (it answers one request only);
 * false when it did not answer.
 */
static bool
take_preset(ColfamScanState *s, int n)
{
	cf_t_key_slice *rows;

	if (s->preset == NULL)
		return false;
	rows = MemoryContextAlloc(s->req_cxt, sizeof(*rows) * Max(n, 1));
	for (int i = 0; i < n; i++)
	{
		cf_t_key_slice probe = {.key = s->keys[s->key_i + i]};
		const cf_t_key_slice *hit = bsearch(&probe, s->preset, s->n_preset,
											sizeof(*s->preset), key_slice_cmp);

		if (hit == NULL)
		{
			s->preset = NULL;
			pfree(rows);
			return false;
		}
		rows[i] = *hit;
	}
	s->preset = NULL;
	s->preset_hits++;
	s->first_page = false;
	s->key_i += n;
	s->rows = rows;
	s->n_rows = (size_t) n;
	s->row_i = 0;
	s->page_preset = true;
	return true;
}

/*
 * KEYS with several keys: sends the next batch of keys (first_count keys first, then
 * fetch_size) as one multiget_slice with row_pred, and makes its answer the page of
 * rows (s->rows), in the order of s->keys whatever order the answer's map has; a key
 * the answer lacks is a row without columns. False when every key has been sent.
 */
static bool
fetch_key_batch(ColfamScanState *s)
{
	int			n = Min(s->n_keys - s->key_i,
						s->key_i == 0 ? s->spec->first_count : s->spec->fetch_size);
	cf_t_key_coscs *got;
	size_t		n_got;
	cf_t_key_slice *rows;

	if (n <= 0)
		return false;
	if (take_preset(s, n))
		return true;
	s->page_preset = false;
	cf_arena_free(s->index_arena);
	s->index_arena = cf_arena_new(0);
	if (s->index_arena == NULL)
		ereport(ERROR, (errcode(ERRCODE_OUT_OF_MEMORY), errmsg("out of memory")));
	s->cur_key = cf_slice_of("", 0);	/* an error names the batch, not a row */
	check(s, cfc_multiget_slice(s->conn, &s->keys[s->key_i], (size_t) n, &s->parent,
								&s->row_pred, s->cl, s->index_arena, &got, &n_got),
		  psprintf("reading %d keys (multiget_slice) of", n));
	qsort(got, n_got, sizeof(*got), key_coscs_cmp);
	rows = cf_arena_alloc(s->index_arena, sizeof(*rows) * n);
	if (rows == NULL)
		ereport(ERROR, (errcode(ERRCODE_OUT_OF_MEMORY), errmsg("out of memory")));
	for (int i = 0; i < n; i++)
	{
		cf_t_key_coscs probe = {.key = s->keys[s->key_i + i]};
		const cf_t_key_coscs *hit = n_got == 0 ? NULL
			: bsearch(&probe, got, n_got, sizeof(*got), key_coscs_cmp);

		rows[i].key = probe.key;
		rows[i].columns = hit ? hit->columns : NULL;
		rows[i].n_columns = hit ? hit->n_columns : 0;
	}
	s->key_i += n;
	s->rows = rows;
	s->n_rows = (size_t) n;
	s->row_i = 0;
	return true;
}

/*
 * Range scans over wide rows: a row that filled its slice of the range page goes on
 * with a column pager, one more round trip per row. So once a row has filled it, the
 * pages to come ask columns enough for the widest row seen (at least twice as many as
 * before) and fewer rows, so that a page still holds at most the page budget
 * (fetch_size x COLFAM_PAGE_COLUMNS columns); and the rest of the page in hand is
 * dropped and asked again that way (next_items, cfc_range_pager_rewind), rather than
 * costing a round trip a row. Only rows not yet read change: those read keep the count they were read
 * with, which is what decides whether they continue.
 */
static int64
page_budget(const ColfamScanState *s)
{
	return (int64) s->spec->fetch_size * COLFAM_PAGE_COLUMNS;
}

static bool
range_rows_too_narrow(const ColfamScanState *s)
{
	int64		budget = page_budget(s);
	int64		have = s->row_pred.slice_range.count;

	return s->row_pred.has_slice_range && (int64) s->widest_row >= have &&
		have < s->pred.slice_range.count && have < budget;
}

static void
widen_range_rows(ColfamScanState *s)
{
	int64		budget = page_budget(s);
	int64		have = s->row_pred.slice_range.count;
	int64		want;

	if (!range_rows_too_narrow(s))
		return;
	want = Max(have * 2, (int64) s->widest_row + 1);
	want = Min(want, Min(budget, (int64) s->pred.slice_range.count));
	s->row_pred.slice_range.count = (int32) want;
	s->range_rows = (int) Max(1, budget / want);
	cfc_range_pager_set_row_count(s->rpager, (int32) want);
	cfc_range_pager_set_page_size(s->rpager, s->range_rows);
}

/*
 * Rows the first range page asks: first_count, but no more than fill the page budget
 * if every row brings all the columns row_pred asks.
 */
static int
first_range_rows(const ColfamScanState *s)
{
	int64		per_row = 1;

	if (s->row_pred.has_slice_range)
		per_row = Max(1, s->row_pred.slice_range.count);
	else if (s->row_pred.has_column_names)
		per_row = Max(1, (int64) s->row_pred.n_column_names);
	return (int) Max(1, Min((int64) s->spec->first_count, page_budget(s) / per_row));
}

/*
 * Rows the range pages to come ask: fetch_size, but no more than fill the page budget
 * at the columns a row has brought on average so far, nor than would make a page of
 * more than fetch_size x COLFAM_ROW_COLUMNS columns were every row to bring all that
 * row_pred asks (what widen_range_rows allows).
 */
static void
fit_range_rows(ColfamScanState *s)
{
	int64		avg;
	int64		rows;

	if (s->range_rows_read == 0)
		return;
	avg = Max(1, (s->range_cols_read + s->range_rows_read - 1) / s->range_rows_read);
	rows = Min((int64) s->spec->fetch_size, page_budget(s) / avg);
	if (s->row_pred.has_slice_range)
		rows = Min(rows, (int64) s->spec->fetch_size * COLFAM_ROW_COLUMNS /
				   Max(1, s->row_pred.slice_range.count));
	rows = Max(1, rows);
	if (rows != s->range_rows)
	{
		s->range_rows = (int) rows;
		cfc_range_pager_set_page_size(s->rpager, s->range_rows);
	}
}

/*
 * Parallel scans: claims the next chunk of the token range into s->range; false when
 * the other processes have claimed the rest.
 */
static bool
claim_chunk(ColfamScanState *s)
{
	if (!colfam_parallel_claim(s->parallel, s->par_lo, s->par_hi, s->chunk_lo, s->chunk_hi))
		return false;
	memset(&s->range, 0, sizeof(s->range));
	s->range.count = INT32_MAX;
	s->range.has_start_token = s->range.has_end_token = true;
	s->range.start_token = cf_slice_str(s->chunk_lo);
	s->range.end_token = cf_slice_str(s->chunk_hi);
	s->chunks++;
	return true;
}

/*
 * The next piece of the scan (see NextItems). Every row begins with one NI_ITEMS with
 * s->new_row set, even a row without columns; the rest of a row that came through a
 * column pager follows as more NI_ITEMS, then NI_ROW_END. A single key is read with a
 * column pager; several keys, ranges and index scans come a page of rows at a time, a
 * row that filled row_pred going on with a column pager from its last name.
 */
static NextItems
next_items(ColfamScanState *s)
{
	for (;;)
	{
		const cf_t_cosc *items;
		size_t		n;

		CHECK_FOR_INTERRUPTS();
		if (s->cpager != NULL)
		{
			check(s, cfc_column_pager_next(s->cpager, &items, &n), "reading");
			/* a LIMIT sized the first page; the pages after it are fetch_size */
			cfc_column_pager_set_page_size(s->cpager, s->spec->fetch_size);
			if (n > 0 && s->skip_name.len > 0 &&
				cf_slice_eq(cosc_name(&items[0]), cf_slice_of(s->skip_name.data, s->skip_name.len)))
			{
				items++;
				n--;
			}
			s->skip_name.len = 0;
			s->row_width += n;
			s->widest_row = Max(s->widest_row, s->row_width);
			s->new_row = s->first_page;
			s->first_page = false;
			if (n == 0)
			{
				cfc_column_pager_free(s->cpager);
				s->cpager = NULL;
				if (!s->new_row)
					return NI_ROW_END;
			}
			s->items = items;
			s->n_items = n;
			s->item_i = s->sub_i = 0;
			return NI_ITEMS;
		}
		if (s->row_continues)
		{
			/* the range row just read filled its slice: the rest, from its last name */
			cf_t_slice_predicate pred = s->pred;

			pred.slice_range.start = cf_slice_of(s->skip_name.data, s->skip_name.len);
			s->row_continues = false;
			open_column_pager(s, &pred, s->spec->fetch_size);
			continue;
		}
		if (s->spec->kind == COLFAM_SCAN_KEYS && s->n_keys == 1 && s->row_i >= s->n_rows)
		{
			/*
			 * One key: get_slice pages, the first one first_count columns — unless a
			 * chain answered the first one: then that is a page of one row (below).
			 */
			if (s->key_i >= s->n_keys)
				return NI_END;
			if (take_preset(s, 1))
				continue;
			start_row(s, s->keys[s->key_i], NULL, 0);
			open_column_pager(s, &s->pred, s->spec->first_count);
			s->key_i++;
			s->first_page = true;
			continue;
		}

		/*
		 * A range page whose rows turn out wider than it asked (a row before this one
		 * filled row_pred): the rest of the page is asked again with more columns a
		 * row (widen_range_rows), not continued a row at a time.
		 */
		if (s->rpager != NULL && s->row_i > 0 && s->row_i < s->n_rows &&
			range_rows_too_narrow(s))
		{
			check(s, cfc_range_pager_rewind(s->rpager, s->row_i), "scanning");
			s->n_rows = s->row_i;
		}

		/* a batch, range or index scan: the next row of the page, or the next page */
		if (s->row_i < s->n_rows)
		{
			const cf_t_key_slice *r = &s->rows[s->row_i++];
			int32		asked;

			start_row(s, r->key, r->columns, r->n_columns);
			s->new_row = true;
			s->row_width = r->n_columns;
			s->widest_row = Max(s->widest_row, s->row_width);
			s->range_rows_read++;
			s->range_cols_read += r->n_columns;
			asked = s->page_preset ? s->preset_count : s->row_pred.slice_range.count;
			s->row_continues = s->row_pred.has_slice_range &&
				asked < s->pred.slice_range.count && r->n_columns == (size_t) asked;
			if (s->row_continues)
			{
				cf_slice	nm = cosc_name(&r->columns[r->n_columns - 1]);

				cf_buf_reset(&s->skip_name);
				cf_buf_put(&s->skip_name, nm.p, nm.len);
			}
			return NI_ITEMS;
		}
		if (s->spec->kind == COLFAM_SCAN_KEYS)
		{
			if (!fetch_key_batch(s))
				return NI_END;
			continue;
		}
		if (s->spec->kind == COLFAM_SCAN_INDEX)
		{
			cf_t_key_slice *rows;
			bool		again = s->n_rows > 0;

			if (s->index_done)
				return NI_END;
			if (again)
			{
				/* start_key is inclusive: the next page begins with the last key */
				cf_slice	last = s->rows[s->n_rows - 1].key;

				cf_buf_reset(&s->key_copy);
				cf_buf_put(&s->key_copy, last.p, last.len);
				s->iclause.start_key = cf_slice_of(s->key_copy.data, s->key_copy.len);
				s->iclause.count = s->spec->fetch_size + 1;
			}
			cf_arena_free(s->index_arena);
			s->index_arena = cf_arena_new(0);
			if (s->index_arena == NULL)
				ereport(ERROR, (errcode(ERRCODE_OUT_OF_MEMORY), errmsg("out of memory")));
			check(s, cfc_get_indexed_slices(s->conn, &s->parent, &s->iclause, &s->row_pred,
											s->cl, s->index_arena, &rows, &n),
				  "reading index of");
			s->index_done = n < (size_t) s->iclause.count;
			s->rows = rows;
			s->n_rows = n;
			s->row_i = again && n > 0 && cf_slice_eq(rows[0].key, s->iclause.start_key) ? 1 : 0;
			if (s->row_i >= n)
				return NI_END;
			continue;
		}
		if (s->rpager == NULL)
		{
			if (s->parallel != NULL && !claim_chunk(s))
				return NI_END;
			/* a later chunk goes on with the page sizes the scan widened to */
			check(s, cfc_range_pager_new(s->conn, &s->parent, &s->row_pred, &s->range,
										 s->chunks > 1 ? s->range_rows : first_range_rows(s),
										 s->cl, &s->rpager),
				  "scanning");
			cfc_range_pager_set_prefetch(s->rpager, true);
			if (s->chunks <= 1)
			{
				s->range_rows = s->spec->fetch_size;
				s->widest_row = 0;
				s->range_rows_read = s->range_cols_read = 0;
			}
		}
		else
		{
			widen_range_rows(s);
			fit_range_rows(s);
		}
		{
			const cf_t_key_slice *rows;

			check(s, cfc_range_pager_next(s->rpager, &rows, &n), "scanning");
			cfc_range_pager_set_page_size(s->rpager, s->range_rows);
			if (n == 0 && s->parallel != NULL)
			{
				/* this chunk is done: on to the next one */
				cfc_range_pager_free(s->rpager);
				s->rpager = NULL;
				continue;
			}
			if (n == 0)
				return NI_END;
			s->rows = rows;
			s->n_rows = n;
			s->row_i = 0;
		}
	}
}

/* ---- making SQL rows ---- */

static Datum
decode(ColfamScanState *s, AttrNumber att, cf_slice b, bool *isnull)
{
	ColfamColumn *c = &s->table->cols[att - 1];
	ColfamValueContext ctx;

	ctx.row_key = (const char *) s->cur_key.p;
	ctx.row_key_len = s->cur_key.len;
	ctx.column = c->attname;
	return colfam_bytes_to_datum(c->typid, c->typmod, (const char *) b.p, b.len, &ctx,
								 isnull);
}

/*
 * The current row's key into the key column. A wide row makes one SQL row per column in
 * the 'columns' mapping: the key is decoded once, into key_cxt, which lives until the
 * scan moves to another row (longer than the executor's per-tuple memory).
 */
static void
put_key(ColfamScanState *s, Datum *values, bool *nulls)
{
	AttrNumber	att = s->table->key_att;

	if (!s->key_decoded)
	{
		MemoryContext old;

		MemoryContextReset(s->key_cxt);
		old = MemoryContextSwitchTo(s->key_cxt);
		s->key_datum = decode(s, att, s->cur_key, &s->key_isnull);
		MemoryContextSwitchTo(old);
		s->key_decoded = true;
	}
	values[att - 1] = s->key_datum;
	nulls[att - 1] = s->key_isnull;
}

/*
 * A column's timestamp (µs since 1970) as the writetime column's type. ERROR when a
 * timestamptz cannot hold it (a client wrote a timestamp outside its range).
 */
static Datum
writetime_datum(ColfamScanState *s, int64 us)
{
	TimestampTz ts;

	if (s->table->cols[s->table->writetime_att - 1].typid != TIMESTAMPTZOID)
		return Int64GetDatum(us);
	if (pg_sub_s64_overflow(us, UNIX_TO_PG_USECS, &ts) || !IS_VALID_TIMESTAMP(ts))
		ereport(ERROR,
				(errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
				 errmsg("column timestamp " INT64_FORMAT " is out of range for type "
						"timestamp with time zone", us),
				 errdetail("Column \"%s\" of foreign table \"%s\" is the writetime; "
						   "the timestamp counts microseconds since 1970-01-01.",
						   s->table->cols[s->table->writetime_att - 1].attname,
						   s->table->relname),
				 errhint("Declare the column as bigint to read any timestamp.")));
	return TimestampTzGetDatum(ts);
}

static void
put(ColfamScanState *s, Datum *values, bool *nulls, AttrNumber att, Datum d)
{
	if (att != InvalidAttrNumber)
	{
		values[att - 1] = d;
		nulls[att - 1] = false;
	}
}

/* Attribute att decoded from b (NULL for an empty value colfam_empty_is_null names). */
static void
put_decoded(ColfamScanState *s, Datum *values, bool *nulls, AttrNumber att, cf_slice b)
{
	values[att - 1] = decode(s, att, b, &nulls[att - 1]);
}

/* Is att an attribute the query reads (InvalidAttrNumber: none)? */
static inline bool
wanted(const ColfamScanState *s, AttrNumber att)
{
	return att != InvalidAttrNumber && s->need[att];
}

/* 'columns' mapping: one SQL row for one column (of a super column when super != NULL). */
static void
column_row(ColfamScanState *s, Datum *values, bool *nulls, const cf_slice *super,
		   const cf_t_column *col)
{
	ColfamTable *t = s->table;

	if (wanted(s, t->key_att))
		put_key(s, values, nulls);
	if (super != NULL && wanted(s, t->super_att))
		put_decoded(s, values, nulls, t->super_att, *super);
	if (wanted(s, t->name_att))
		put_decoded(s, values, nulls, t->name_att, col->name);
	if (wanted(s, t->value_att))
		put_decoded(s, values, nulls, t->value_att, col->value);
	if (wanted(s, t->writetime_att))
		put(s, values, nulls, t->writetime_att, writetime_datum(s, col->timestamp));
	if (wanted(s, t->ttl_att) && col->has_ttl)
		put(s, values, nulls, t->ttl_att,
			t->cols[t->ttl_att - 1].typid == INT8OID ? Int64GetDatum(col->ttl)
			: Int32GetDatum(col->ttl));
}

/* 'rows' mapping: one SQL row from the columns of one Cassandra row (or super column). */
static void
fields_row(ColfamScanState *s, Datum *values, bool *nulls, const cf_slice *super,
		   const cf_t_column *cols, size_t n)
{
	ColfamTable *t = s->table;
	StringInfoData extra;
	bool		any_extra = false;
	bool		want_extra = wanted(s, t->extra_att);

	if (wanted(s, t->key_att))
		put_key(s, values, nulls);
	if (super != NULL && wanted(s, t->super_att))
		put_decoded(s, values, nulls, t->super_att, *super);
	if (want_extra)
	{
		initStringInfo(&extra);
		appendStringInfoChar(&extra, '{');
	}
	for (size_t i = 0; i < n; i++)
	{
		bool		named = false;

		for (int a = 0; a < t->natts; a++)
		{
			ColfamColumn *c = &t->cols[a];

			if (c->role == COLFAM_ROLE_FIELD && strlen(c->name) == cols[i].name.len &&
				memcmp(c->name, cols[i].name.p, cols[i].name.len) == 0)
			{
				named = true;
				if (s->need[a + 1])
					put_decoded(s, values, nulls, a + 1, cols[i].value);
			}
		}
		if (!named && want_extra)
		{
			if (any_extra)
				appendStringInfoString(&extra, ", ");
			colfam_extra_to_json(&extra, (const char *) cols[i].name.p, cols[i].name.len);
			appendStringInfoString(&extra, ": ");
			colfam_extra_to_json(&extra, (const char *) cols[i].value.p, cols[i].value.len);
			any_extra = true;
		}
	}
	if (want_extra)
	{
		appendStringInfoChar(&extra, '}');
		put(s, values, nulls, t->extra_att,
			DirectFunctionCall1(jsonb_in, CStringGetDatum(extra.data)));
	}
}

/* Does key (KEYS, 'rows' mapping with named columns) exist? An empty names slice does not tell. */
static bool
row_exists(ColfamScanState *s, cf_slice key)
{
	cf_t_slice_predicate pred;
	int32_t		n = 0;

	memset(&pred, 0, sizeof(pred));
	pred.has_slice_range = true;
	pred.slice_range.count = 1;
	check(s, cfc_get_count(s->conn, key, &s->parent, &pred, s->cl, &n), "reading");
	return n > 0;
}

/* Copies the columns of s->items into *cols (growing it) in batch_cxt. */
static void
collect_columns(ColfamScanState *s, cf_t_column **cols, size_t *n, size_t *cap)
{
	MemoryContext old = MemoryContextSwitchTo(s->batch_cxt);

	for (; s->item_i < s->n_items; s->item_i++)
	{
		const cf_t_cosc *c = &s->items[s->item_i];
		cf_t_column *col;

		if (!c->has_column)
			continue;
		if (*n == *cap)
		{
			*cap = *cap ? *cap * 2 : 16;
			*cols = *cols ? repalloc(*cols, *cap * sizeof(**cols)) : palloc(*cap * sizeof(**cols));
		}
		col = &(*cols)[(*n)++];
		*col = c->column;
		col->name = cf_slice_of(colfam_copy_bytes(c->column.name.p, c->column.name.len),
								c->column.name.len);
		col->value = cf_slice_of(colfam_copy_bytes(c->column.value.p, c->column.value.len),
								 c->column.value.len);
	}
	MemoryContextSwitchTo(old);
}

/* The next SQL row into slot; false at the end. */
static bool
next_row(ColfamScanState *s, TupleTableSlot *slot)
{
	ColfamTable *t = s->table;
	Datum	   *values = slot->tts_values;
	bool	   *nulls = slot->tts_isnull;
	const cf_slice *pinned = s->parent.has_super_column ? &s->super_value : NULL;

	for (int i = 0; i < t->natts; i++)
		nulls[i] = true;

	/*
	 * 'columns' mapping: a SQL row per column (per sub-column of a super column);
	 * 'rows' mapping of a Super CF whose super column is not pinned: per super column.
	 */
	if (!t->rows_mapping || s->spec->slice_supers)
	{
		for (;;)
		{
			const cf_t_cosc *c;

			if (s->item_i >= s->n_items)
			{
				if (next_items(s) == NI_END)
					return false;
				continue;
			}
			c = &s->items[s->item_i];
			if (t->rows_mapping)
			{
				s->item_i++;
				if (!c->has_super_column)
					continue;
				fields_row(s, values, nulls, &c->super_column.name, c->super_column.columns,
						   c->super_column.n_columns);
				return true;
			}
			if (c->has_column)
			{
				column_row(s, values, nulls, pinned, &c->column);
				s->item_i++;
				return true;
			}
			if (s->sub_i < c->super_column.n_columns)
			{
				column_row(s, values, nulls, &c->super_column.name,
						   &c->super_column.columns[s->sub_i++]);
				return true;
			}
			s->item_i++;
			s->sub_i = 0;
		}
	}

	/* 'rows' mapping: a whole Cassandra row (or pinned super column) is one SQL row */
	for (;;)
	{
		cf_t_column *cols = NULL;
		size_t		n = 0,
					cap = 0;
		bool		exists;
		NextItems	r;

		MemoryContextReset(s->batch_cxt);
		r = next_items(s);
		if (r == NI_END)
			return false;
		if (r != NI_ITEMS || !s->new_row)
			continue;			/* not a row's start: rows are read whole below */
		collect_columns(s, &cols, &n, &cap);
		while ((s->cpager != NULL || s->row_continues) && next_items(s) == NI_ITEMS)
			collect_columns(s, &cols, &n, &cap);

		/*
		 * A row with no column asked for: a range lists live rows only; a key is looked
		 * up (a names slice of a row that exists may be empty).
		 */
		exists = n > 0;
		if (!exists && !s->spec->fetch_all)
			exists = s->spec->kind != COLFAM_SCAN_KEYS || row_exists(s, s->cur_key);
		if (!exists)
			continue;
		fields_row(s, values, nulls, pinned, cols, n);
		return true;
	}
}

/* ---- snapshot scans ---- */

/* Adds the ids of the PARAM_EXEC parameters in node to *ids. */
static bool
exec_params_walker(Node *node, Bitmapset **ids)
{
	if (node == NULL)
		return false;
	if (IsA(node, Param) && ((Param *) node)->paramkind == PARAM_EXEC)
		*ids = bms_add_member(*ids, ((Param *) node)->paramid);
	return expression_tree_walker(node, exec_params_walker, ids);
}

/*
 * Reads every row of snapshot scan s into its tuplestore (in the executor's memory;
 * past work_mem, on disk), from the request its values give now.
 */
static void
snapshot_read(ColfamScanState *s)
{
	ForeignScanState *node = s->node;
	TupleTableSlot *slot = node->ss.ss_ScanTupleSlot;
	MemoryContext old;

	unpend(s);
	if (!s->started)
	{
		build_request(node->ss.ps.ps_ExprContext, s);
		s->started = true;
	}
	old = MemoryContextSwitchTo(node->ss.ps.state->es_query_cxt);
	s->stored = tuplestore_begin_heap(false, false, work_mem);
	MemoryContextSwitchTo(old);
	s->read_at_write = writes_sent;
	while (!s->empty)
	{
		CHECK_FOR_INTERRUPTS();
		ExecClearTuple(slot);
		if (!next_row(s, slot))
			break;
		ExecStoreVirtualTuple(slot);
		tuplestore_puttupleslot(s->stored, slot);
	}
	ExecClearTuple(slot);
	close_pagers(s);
}

/* The next row of snapshot scan s into slot (empty at the end); reads them first. */
static TupleTableSlot *
snapshot_next(ColfamScanState *s, TupleTableSlot *slot)
{
	int			natts = slot->tts_tupleDescriptor->natts;

	if (s->stored == NULL)
		snapshot_read(s);
	ExecClearTuple(slot);
	if (!tuplestore_gettupleslot(s->stored, true, false, s->stored_slot))
		return slot;
	slot_getallattrs(s->stored_slot);
	memcpy(slot->tts_values, s->stored_slot->tts_values, natts * sizeof(Datum));
	memcpy(slot->tts_isnull, s->stored_slot->tts_isnull, natts * sizeof(bool));
	return ExecStoreVirtualTuple(slot);
}

/*
 * Called by modify.c before each write to t's column family: first reads every
 * snapshot scan of that column family that has not read yet, in any statement of the
 * backend, so none of them sees the write.
 */
void
colfam_snapshot_before_write(const ColfamTable *t)
{
	dlist_mutable_iter it;

	dlist_foreach_modify(it, &pending_snapshots)
	{
		ColfamScanState *s = dlist_container(ColfamScanState, pending, it.cur);

		if (strcmp(s->spec->keyspace, t->keyspace) == 0 &&
			strcmp(s->spec->column_family, t->column_family) == 0)
			snapshot_read(s);
	}
	writes_sent++;
}

/* ---- the executor callbacks ---- */

/*
 * A scan state for spec over table, connected, allocated in cxt; what libcolfam
 * holds for it is freed when cxt is reset or deleted (also on ERROR).
 */
static ColfamScanState *
scan_state_new(ColfamScanSpec *spec, ColfamTable *table, MemoryContext cxt)
{
	ColfamScanState *s = MemoryContextAllocZero(cxt, sizeof(ColfamScanState));
	MemoryContextCallback *cb;

	s->spec = spec;
	s->table = table;
	s->need = MemoryContextAllocZero(cxt, sizeof(bool) * (table->natts + 1));
	if (spec->decode_all)
		memset(s->need, true, sizeof(bool) * (table->natts + 1));
	else
	{
		ListCell   *lc;

		foreach(lc, spec->decode_atts)
			s->need[intVal(lfirst(lc))] = true;
	}
	s->cl = table->read_cl;
	s->batch_cxt = AllocSetContextCreate(cxt, "colfam_fdw row", ALLOCSET_DEFAULT_SIZES);
	s->req_cxt = AllocSetContextCreate(cxt, "colfam_fdw request", ALLOCSET_SMALL_SIZES);
	s->key_cxt = AllocSetContextCreate(cxt, "colfam_fdw row key", ALLOCSET_SMALL_SIZES);
	cf_buf_init(&s->skip_name, 0);
	cf_buf_init(&s->key_copy, 0);
	cb = MemoryContextAllocZero(cxt, sizeof(MemoryContextCallback));
	cb->func = release_callback;
	cb->arg = s;
	MemoryContextRegisterResetCallback(cxt, cb);
	s->conn = colfam_connect(table->serverid, spec->keyspace);
	return s;
}

void
colfam_begin_scan(ForeignScanState *node, int eflags)
{
	ForeignScan *plan = (ForeignScan *) node->ss.ps.plan;
	ColfamScanState *s;

	if (colfam_is_join_plan(plan))
	{
		colfam_join_begin(node, eflags);
		return;
	}
	if (eflags & EXEC_FLAG_EXPLAIN_ONLY)
		return;
	s = scan_state_new(colfam_spec_from_list(plan->fdw_private),
					   colfam_get_table(RelationGetRelid(node->ss.ss_currentRelation)),
					   node->ss.ps.state->es_query_cxt);
	s->value_states = ExecInitExprList(plan->fdw_exprs, (PlanState *) node);
	if (s->spec->snapshot)
	{
		s->node = node;
		(void) exec_params_walker((Node *) plan->fdw_exprs, &s->request_params);
		s->stored_slot = ExecInitExtraTupleSlot(node->ss.ps.state,
												node->ss.ss_ScanTupleSlot->tts_tupleDescriptor,
												&TTSOpsMinimalTuple);
		dlist_push_tail(&pending_snapshots, &s->pending);
		s->is_pending = true;
	}
	node->fdw_state = s;
}

TupleTableSlot *
colfam_iterate_scan(ForeignScanState *node)
{
	ColfamScanState *s = node->fdw_state;
	TupleTableSlot *slot = node->ss.ss_ScanTupleSlot;

	if (colfam_is_join_plan((ForeignScan *) node->ss.ps.plan))
		return colfam_join_iterate(node);
	if (s->spec->snapshot)
		return snapshot_next(s, slot);
	ExecClearTuple(slot);
	if (!s->started)
	{
		build_request(node->ss.ps.ps_ExprContext, s);
		s->started = true;
	}
	if (s->empty)
		return slot;
	if (!next_row(s, slot))
		return slot;
	ExecStoreVirtualTuple(slot);
	return slot;
}

void
colfam_rescan(ForeignScanState *node)
{
	ColfamScanState *s = node->fdw_state;

	if (colfam_is_join_plan((ForeignScan *) node->ss.ps.plan))
	{
		colfam_join_rescan(node);
		return;
	}
	if (s->stored != NULL)
	{
		/* a filter's parameters may change (they are Postgres's); the request's not */
		if (!bms_overlap(node->ss.ps.chgParam, s->request_params))
		{
			tuplestore_rescan(s->stored);
			return;
		}
		/* plan.c pushes no value that changes: unreachable unless that rule breaks */
		if (writes_sent != s->read_at_write)
			ereport(ERROR,
					(errcode(ERRCODE_FDW_ERROR),
					 errmsg("colfam_fdw cannot read column family \"%s\".\"%s\" again with new values after the statement wrote it",
							s->spec->keyspace, s->spec->column_family)));
		tuplestore_end(s->stored);
		s->stored = NULL;
		dlist_push_tail(&pending_snapshots, &s->pending);
		s->is_pending = true;
	}
	close_pagers(s);
	s->started = false;
	s->row_continues = false;
	s->skip_name.len = 0;
	s->key_i = 0;
	s->preset = NULL;
}

void
colfam_end_scan(ForeignScanState *node)
{
	ColfamScanState *s = node->fdw_state;

	/* a join's inner scan is freed with the executor's memory */
	if (s != NULL && !colfam_is_join_plan((ForeignScan *) node->ss.ps.plan))
	{
		unpend(s);
		close_pagers(s);
		if (s->stored != NULL)
			tuplestore_end(s->stored);
		s->stored = NULL;
	}
}

/* ---- key lookups for a pushed join (join.c) ---- */

/*
 * Encodes d, a non-NULL value of typid, as the bytes colfamd stores (palloc'd in the
 * current memory context) into *out; false if it cannot be encoded, i.e. it equals
 * no stored key.
 */
bool
colfam_encode_value(Oid typid, Datum d, cf_slice *out)
{
	return try_encode(typid, d, out);
}

/*
 * Restarts s, a KEYS scan whose spec has no values (colfam_scan_begin), over the
 * distinct keys among keys[0..n) that can exist (distinct_keys: not an empty or
 * over-long one): one multiget_slice for up to fetch_size keys. The keys' bytes must
 * live until the scan is restarted or ends.
 */
void
colfam_scan_lookup(ColfamScanState *s, const cf_slice *keys, int n)
{
	MemoryContext old;
	List	   *list = NIL;

	Assert(s->spec->kind == COLFAM_SCAN_KEYS && s->spec->values == NIL);
	close_pagers(s);
	s->row_continues = false;
	s->skip_name.len = 0;
	build_request(NULL, s);
	old = MemoryContextSwitchTo(s->req_cxt);
	for (int i = 0; i < n; i++)
		list = lappend(list, (void *) &keys[i]);
	s->n_keys = distinct_keys(list, &s->keys);
	MemoryContextSwitchTo(old);
	s->key_i = 0;
	s->empty = s->n_keys == 0;
	s->started = true;
}

/*
 * Makes s, a scan of the whole ring or of a token range (the only ones plan.c makes
 * parallel-aware), read only the chunks of ps it claims.
 */
void
colfam_scan_set_parallel(ColfamScanState *s, ColfamParallelScan *ps)
{
	if (s->spec->kind != COLFAM_SCAN_ALL && s->spec->kind != COLFAM_SCAN_TOKEN_RANGE)
		elog(ERROR, "colfam_fdw: a parallel scan of %s must be a scan of tokens",
			 s->spec->column_family);
	s->parallel = ps;
}

/* ---- chains: a scan's first request and its joins' first lookups in one (join.c) ---- */

/*
 * The first request s, the KEYS scan of a plan node, is about to send — its values
 * evaluated in econtext, which starts the scan: the keys of its first batch, and the
 * parent and predicate it reads them with (valid until the scan is restarted). False
 * when it sends no such request: nothing can match, another kind of scan, a snapshot
 * scan, or one that has already sent its first.
 */
bool
colfam_scan_chain_first(ColfamScanState *s, ExprContext *econtext, cfc_conn **conn,
						const cf_slice **keys, size_t *n_keys, cf_t_column_parent *parent,
						cf_t_slice_predicate *pred)
{
	if (s->spec->kind != COLFAM_SCAN_KEYS || s->spec->snapshot || s->spec->values == NIL)
		return false;
	if (s->started)
		return false;
	build_request(econtext, s);
	s->started = true;
	if (s->empty)
		return false;
	*conn = s->conn;
	*keys = s->keys;
	*parent = s->parent;
	if (s->n_keys == 1)
	{
		/* what the column pager's first page asks: first_count columns */
		*n_keys = 1;
		*pred = s->pred;
		if (pred->has_slice_range)
			pred->slice_range.count = Min(pred->slice_range.count, s->spec->first_count);
	}
	else
	{
		/* what fetch_key_batch's first batch asks */
		*n_keys = (size_t) Min(s->n_keys, s->spec->first_count);
		*pred = s->row_pred;
	}
	return true;
}

/*
 * s, a join's inner scan (colfam_scan_begin, no values): the parent and predicate
 * its lookups read keys with (valid until its next lookup).
 */
void
colfam_scan_lookup_request(ColfamScanState *s, cfc_conn **conn, cf_t_column_parent *parent,
						   cf_t_slice_predicate *pred)
{
	Assert(s->spec->kind == COLFAM_SCAN_KEYS && s->spec->values == NIL);
	build_request(NULL, s);
	*conn = s->conn;
	*parent = s->parent;
	*pred = s->row_pred;
}

/*
 * Gives s a chain's answer for its first request: rows[0..n) (sorted here, in place),
 * read with pred — the one colfam_scan_chain_first or colfam_scan_lookup_request
 * gave. The rows must live until s is restarted. rows NULL: s has no chain answer.
 */
void
colfam_scan_preset(ColfamScanState *s, cf_t_key_slice *rows, size_t n,
				   const cf_t_slice_predicate *pred)
{
	if (rows == NULL)
	{
		s->preset = NULL;
		return;
	}
	if (n > 1)
		qsort(rows, n, sizeof(*rows), key_slice_cmp);
	s->preset = rows;
	s->n_preset = n;
	s->preset_count = pred->has_slice_range ? pred->slice_range.count : 0;
}

/* Are the items of s's rows super columns of any number of sub-columns? */
bool
colfam_scan_super_unpinned(const ColfamScanState *s)
{
	return s->spec->super && !s->parent.has_super_column;
}

/* How many first requests of s a chain's answer has answered. */
int
colfam_scan_preset_hits(const ColfamScanState *s)
{
	return s->preset_hits;
}

/* The row key of the row colfam_scan_next returned last. */
cf_slice
colfam_scan_row_key(ColfamScanState *s)
{
	return s->cur_key;
}

/* ---- a scan outside the executor (ANALYZE) ---- */

/*
 * Starts reading spec (which has no values: a whole-table scan) over table; the
 * state lives in cxt and is freed with it.
 */
ColfamScanState *
colfam_scan_begin(ColfamScanSpec *spec, ColfamTable *table, MemoryContext cxt)
{
	ColfamScanState *s = scan_state_new(spec, table, cxt);

	Assert(spec->values == NIL);
	build_request(NULL, s);
	s->started = true;
	return s;
}

/*
 * The next SQL row into slot's values and nulls (the caller stores it); false at the
 * end. Decoded values are allocated in the current memory context or the row's.
 */
bool
colfam_scan_next(ColfamScanState *s, TupleTableSlot *slot)
{
	return !s->empty && next_row(s, slot);
}
