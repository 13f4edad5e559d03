/*
 * client/reply.c — hand-written readers of list<KeySlice> and list<ColumnOrSuperColumn>
 * replies, and the skim of a list<KeySlice> reply (contracts in client/reply.h).
 *
 * Why not thrift/tstruct.c: its table-driven reader is general (fields in any order,
 * defaults, required-field bookkeeping, a descriptor lookup per field, a memset per
 * struct), and a range scan's replies are almost all Columns: in a profile of a
 * foreign scan over wide rows it took a quarter of the PostgreSQL backend's CPU. The
 * canonical encoding of these few structs is fixed, so a reader that expects it byte
 * by byte does a few compares and loads per column. Anything it does not expect sends
 * the reply to the generic reader, so the rare cases (exceptions, foreign encoders)
 * keep one implementation and one set of error messages; tests/fuzz/fuzz_thrift.c
 * checks that both readers agree on whatever this one accepts.
 *
 * Caps, as cf_t_read_reply applies them: a string of more than max_string bytes, a
 * container of more than max_container elements or of more elements than the bytes
 * left could hold, arrays over the memory budget (CF_TB_BUDGET_BASE +
 * CF_TB_BUDGET_FACTOR x the bytes after the message header, charged array by array in
 * the same order) and nesting deeper than max_depth all give up.
 */
#include "client/reply.h"

#include <string.h>

#include "thrift/tbinary.h"

/* The deepest nesting of a list<KeySlice> reply: result, list, KeySlice, list, CoSC,
 * SuperColumn, list, Column. */
#define REPLY_DEPTH 8

typedef struct fast_rd
{
	const uint8_t *p;
	const uint8_t *end;
	size_t		max_string;
	size_t		max_container;
	size_t		budget;			/* arena bytes still allowed */
	cf_arena   *arena;			/* NULL: skim, nothing is kept ... */
	cf_arena   *keys_arena;		/* ... but the keys, here, when not NULL */
	cf_slice   *keys;
} fast_rd;

static inline bool
have(const fast_rd *r, size_t n)
{
	return (size_t) (r->end - r->p) >= n;
}

/* Consumes the field header (type, id) when it is next; false (nothing read) if not. */
static inline bool
field_is(fast_rd *r, uint8_t type, int16_t id)
{
	if (!have(r, 3) || r->p[0] != type || r->p[1] != (uint8_t) ((uint16_t) id >> 8) ||
		r->p[2] != (uint8_t) id)
		return false;
	r->p += 3;
	return true;
}

static inline bool
stop(fast_rd *r)
{
	if (!have(r, 1) || r->p[0] != CF_TB_STOP)
		return false;
	r->p++;
	return true;
}

static inline bool
read_binary(fast_rd *r, cf_slice *out)
{
	int32_t		n;

	if (!have(r, 4))
		return false;
	n = (int32_t) cf_load_be32(r->p);
	if (n < 0 || (size_t) n > r->max_string || !have(r, 4 + (size_t) n))
		return false;
	*out = cf_slice_of(r->p + 4, (size_t) n);
	r->p += 4 + (size_t) n;
	return true;
}

/*
 * A list header of elements of wire type want (elem_min bytes each at least), and
 * room for them in the arena when building: *arr (NULL when empty or skimming).
 */
static bool
list_begin(fast_rd *r, uint8_t want, size_t elem_min, size_t size, void **arr, size_t *n)
{
	int32_t		count;

	*arr = NULL;
	if (!have(r, 5))
		return false;
	count = (int32_t) cf_load_be32(r->p + 1);
	if (count < 0 || (count > 0 && r->p[0] != want))
		return false;
	r->p += 5;
	*n = (size_t) count;
	if (count == 0)
		return true;
	if (*n > r->max_container || *n > (size_t) (r->end - r->p) / elem_min)
		return false;
	if (r->arena == NULL)
		return true;
	if (*n > r->budget / size || (*arr = cf_arena_alloc(r->arena, *n * size)) == NULL)
		return false;
	r->budget -= *n * size;
	return true;
}

/* Column: 1 name, 2 value, 3 timestamp, [4 ttl], STOP. */
static inline bool
read_column(fast_rd *r, cf_t_column *col)
{
	if (!field_is(r, CF_TB_STRING, 1) || !read_binary(r, &col->name) ||
		!field_is(r, CF_TB_STRING, 2) || !read_binary(r, &col->value) ||
		!field_is(r, CF_TB_I64, 3) || !have(r, 8))
		return false;
	col->timestamp = (int64_t) cf_load_be64(r->p);
	r->p += 8;
	col->has_ttl = field_is(r, CF_TB_I32, 4);
	col->ttl = 0;
	if (col->has_ttl)
	{
		if (!have(r, 4))
			return false;
		col->ttl = (int32_t) cf_load_be32(r->p);
		r->p += 4;
	}
	return stop(r);
}

/* SuperColumn: 1 name, 2 list<Column>, STOP. Skimming walks the columns into one. */
static bool
read_super_column(fast_rd *r, cf_t_super_column *sc)
{
	void	   *arr;
	cf_t_column scratch;

	if (!field_is(r, CF_TB_STRING, 1) || !read_binary(r, &sc->name) ||
		!field_is(r, CF_TB_LIST, 2) ||
		!list_begin(r, CF_TB_STRUCT, 1, sizeof(cf_t_column), &arr, &sc->n_columns))
		return false;
	sc->columns = arr;
	for (size_t i = 0; i < sc->n_columns; i++)
		if (!read_column(r, arr ? &sc->columns[i] : &scratch))
			return false;
	return stop(r);
}

/* ColumnOrSuperColumn: [1 Column], [2 SuperColumn], STOP. */
static inline bool
read_cosc(fast_rd *r, cf_t_cosc *c)
{
	c->has_column = field_is(r, CF_TB_STRUCT, 1);
	if (c->has_column)
	{
		if (!read_column(r, &c->column))
			return false;
	}
	else
		memset(&c->column, 0, sizeof(c->column));
	c->has_super_column = field_is(r, CF_TB_STRUCT, 2);
	if (c->has_super_column)
	{
		if (!read_super_column(r, &c->super_column))
			return false;
	}
	else
		memset(&c->super_column, 0, sizeof(c->super_column));
	return stop(r);
}

/* A list<ColumnOrSuperColumn> (its header next) into *out, *n. */
static bool
read_cosc_list(fast_rd *r, cf_t_cosc **out, size_t *n)
{
	void	   *arr;
	cf_t_cosc	scratch;

	if (!list_begin(r, CF_TB_STRUCT, 1, sizeof(cf_t_cosc), &arr, n))
		return false;
	*out = arr;
	for (size_t i = 0; i < *n; i++)
		if (!read_cosc(r, arr ? &(*out)[i] : &scratch))
			return false;
	return true;
}

/* KeySlice: 1 key, 2 list<ColumnOrSuperColumn>, STOP. */
static bool
read_key_slice(fast_rd *r, cf_t_key_slice *ks)
{
	return field_is(r, CF_TB_STRING, 1) && read_binary(r, &ks->key) &&
		field_is(r, CF_TB_LIST, 2) && read_cosc_list(r, &ks->columns, &ks->n_columns) &&
		stop(r);
}

/*
 * Starts r on a REPLY of seqid to m whose success is a list: after the message header
 * and the result's field 0 header. False for anything else (an exception field, an
 * EXCEPTION message: the generic reader reports them).
 */
static bool
begin_reply(fast_rd *r, cf_slice reply, cf_t_method m, int32_t seqid,
			const cf_t_limits *lim, cf_arena *arena)
{
	cf_t_limits def = cf_t_limits_default();
	cf_rd		rd;
	cf_status  *s;
	size_t		left;

	if (lim == NULL)
		lim = &def;
	if (lim->max_depth < REPLY_DEPTH)
		return false;
	cf_rd_init(&rd, reply.p, reply.len);
	if ((s = cf_t_read_reply_header(&rd, cf_t_method_name(m), seqid, lim, arena)) != NULL)
	{
		cf_status_free(s);
		return false;
	}
	left = cf_rd_left(&rd);
	r->p = reply.p + rd.pos;
	r->end = r->p + left;
	r->max_string = lim->max_string ? lim->max_string : SIZE_MAX;
	r->max_container = lim->max_container ? lim->max_container : SIZE_MAX;
	r->budget = left > (SIZE_MAX - CF_TB_BUDGET_BASE) / CF_TB_BUDGET_FACTOR ? SIZE_MAX :
		CF_TB_BUDGET_BASE + left * CF_TB_BUDGET_FACTOR;
	r->arena = arena;
	r->keys_arena = NULL;
	r->keys = NULL;
	return field_is(r, CF_TB_LIST, 0);
}

/*
 * The list<KeySlice> of a reply begun by begin_reply, and the result's STOP; a skim
 * with keys_arena set collects the keys in r->keys.
 */
static bool
read_key_slices(fast_rd *r, cf_t_key_slice **out, size_t *n)
{
	void	   *arr;
	cf_t_key_slice scratch;

	if (!list_begin(r, CF_TB_STRUCT, 1, sizeof(cf_t_key_slice), &arr, n))
		return false;
	*out = arr;
	if (r->keys_arena != NULL && *n > 0 &&
		(r->keys = cf_arena_alloc(r->keys_arena, *n * sizeof(cf_slice))) == NULL)
		return false;
	for (size_t i = 0; i < *n; i++)
	{
		cf_t_key_slice *ks = arr ? &(*out)[i] : &scratch;

		if (!read_key_slice(r, ks))
			return false;
		if (r->keys != NULL)
			r->keys[i] = ks->key;
	}
	return stop(r);
}

bool
cfc_read_reply_fast(cf_slice reply, cf_t_method m, int32_t seqid, const cf_t_limits *lim,
					cf_arena *arena, cf_t_result *res)
{
	fast_rd		r;

	memset(res, 0, sizeof(*res));
	if (arena == NULL)
		return false;
	switch (m)
	{
		case CF_T_M_GET_SLICE:
			if (begin_reply(&r, reply, m, seqid, lim, arena) &&
				read_cosc_list(&r, &res->coscs, &res->n_coscs) && stop(&r))
				return true;
			break;
		case CF_T_M_GET_RANGE_SLICES:
		case CF_T_M_GET_INDEXED_SLICES:
			if (begin_reply(&r, reply, m, seqid, lim, arena) &&
				read_key_slices(&r, &res->key_slices, &res->n_key_slices))
				return true;
			break;
		default:
			return false;
	}
	memset(res, 0, sizeof(*res));
	return false;
}

bool
cfc_skim_reply_keys(cf_slice reply, cf_t_method m, int32_t seqid, cf_arena *arena,
					cf_slice **keys, size_t *n)
{
	fast_rd		r;
	cf_t_key_slice *none;
	size_t		count;

	*keys = NULL;
	*n = 0;
	if ((m != CF_T_M_GET_RANGE_SLICES && m != CF_T_M_GET_INDEXED_SLICES) || arena == NULL ||
		!begin_reply(&r, reply, m, seqid, NULL, arena))
		return false;
	r.arena = NULL;				/* walk the columns, keep nothing but the keys */
	r.keys_arena = arena;
	if (!read_key_slices(&r, &none, &count))
		return false;
	*keys = r.keys;
	*n = count;
	return true;
}
