/*-------------------------------------------------------------------------
 * fdw/plan.c — the planner side of colfam_fdw: which conditions go to colfamd, the
 * paths (plain, ordered, parameterized on the key), the plan and its EXPLAIN.
 *
 * What is pushed (see colfam_table.h for the request it becomes):
 *  - rows: key = v and key = ANY(array) become get_slice/multiget_slice; key ranges
 *    become a KeyRange by keys under the order-preserving partitioners (whose token
 *    order is the keys' byte order, i.e. text COLLATE "C" or bytea); token(key)
 *    ranges become a KeyRange by tokens under RandomPartitioner; in the 'rows'
 *    mapping, field = v on a KEYS-indexed column becomes get_indexed_slices; else
 *    the whole ring is walked.
 *  - columns: column_name (or super_column) =, = ANY, <, <=, >, >= become the slice
 *    predicate (names, or a range between the bounds); ORDER BY column_name [DESC]
 *    over one row becomes the slice's direction, so Postgres does not sort; a LIMIT
 *    sizes the first page.
 *  - a join on the key (e.key = t.value) becomes a path parameterized by the outer
 *    side: each outer row is one key lookup.
 * A comparison is pushed only if the operator is the btree operator of the column's
 * type and the value holds no variable of this table and nothing volatile; ranges
 * and orderings only if the type's order under the column's collation is the
 * comparator's (colfam_order_matches); names of an AsciiType CF only if the value is
 * an ASCII constant (colfamd rejects others). Every pushed comparison whose pushed
 * form is not exactly its SQL meaning (strict bounds become inclusive, types whose
 * encoding is not one-to-one, bounds of types some values of which do not encode) is
 * also kept as a local filter.
 *-------------------------------------------------------------------------
 */
#include "colfam_fdw.h"
#include "colfam_table.h"

#include <math.h>

#include "access/stratnum.h"
#include "catalog/pg_am.h"
#include "catalog/pg_extension.h"
#include "catalog/pg_proc.h"
#include "catalog/pg_type.h"
#include "catalog/dependency.h"
#include "commands/defrem.h"
#include "commands/explain.h"
#include "commands/extension.h"
#include "foreign/fdwapi.h"
#include "mb/pg_wchar.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/cost.h"
#include "optimizer/clauses.h"
#include "optimizer/optimizer.h"
#include "optimizer/pathnode.h"
#include "optimizer/paths.h"
#include "optimizer/planmain.h"
#include "optimizer/restrictinfo.h"
#include "parser/parse_coerce.h"
#include "parser/parsetree.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/syscache.h"

#include "client/client.h"		/* thrift/cassandra.h's level names */

#define COLFAM_DEFAULT_TUPLES 1000000.0	/* never ANALYZEd, no estimate: CFs are big */
#define COLFAM_DEFAULT_ARRAY_KEYS 10.0	/* key = ANY(an array not known at plan time) */
#define COLFAM_MIN_PAGES 10.0		/* never ANALYZEd: at least 10 requests' worth of rows */
#define COLFAM_MIN_WIRE_WIDTH 64	/* bytes a column costs on the wire, whatever is read */

/* What the planner keeps in RelOptInfo.fdw_private. */
typedef struct ColfamRelInfo
{
	ColfamTable *table;
	ColfamCfMeta *meta;
	bool		order_preserving;	/* key ranges can be pushed */
	bool		random_partitioner; /* token(key) ranges can be pushed */
	/*
	 * Not ANALYZEd, but colfamd estimated the CF (connection.c): its rows, and how
	 * many SQL rows one key gives. est_keys is 0 otherwise (then Postgres's own
	 * selectivities apply, from ANALYZE's statistics or its defaults).
	 */
	double		est_keys;
	double		est_rows_per_key;
	/*
	 * The statement writes this CF and the scan must read whole before that
	 * (snapshot.c): no parameterized paths, no values that change during the statement.
	 */
	bool		snapshot;
} ColfamRelInfo;

/* A comparison the pushdown may use: column op value. */
typedef struct Cand
{
	RestrictInfo *rinfo;
	ColfamRole	role;			/* KEY, SUPER, NAME, FIELD, or TOKEN (role KEY + token) */
	bool		token;			/* token(key) op value */
	AttrNumber	attnum;
	int			strategy;		/* BTEqualStrategyNumber ... */
	bool		is_array;		/* = ANY(array) */
	Expr	   *value;			/* coerced to the column's type (array of it) */
	bool		exact_eq;		/* equality whose pushed form is exactly SQL's */
	bool		orderable;		/* the type's order is the comparator's */
} Cand;

/* ---- small helpers ---- */

static Node *
strip_relabel(Node *n)
{
	while (n && IsA(n, RelabelType))
		n = (Node *) ((RelabelType *) n)->arg;
	return n;
}

static AttrNumber
our_var(Node *n, Index relid)
{
	n = strip_relabel(n);
	if (n && IsA(n, Var))
	{
		Var		   *v = (Var *) n;

		if ((Index) v->varno == relid && v->varlevelsup == 0 && v->varattno > 0)
			return v->varattno;
	}
	return InvalidAttrNumber;
}

/* Is n the extension's token() applied to this table's key? */
static bool
is_token_of_key(Node *n, Index relid, const ColfamTable *t)
{
	FuncExpr   *f;
	Oid			ext;

	n = strip_relabel(n);
	if (n == NULL || !IsA(n, FuncExpr))
		return false;
	f = (FuncExpr *) n;
	if (list_length(f->args) != 1 || our_var(linitial(f->args), relid) != t->key_att)
		return false;
	if (strcmp(get_func_name(f->funcid), "token") != 0)
		return false;
	ext = get_extension_oid("colfam_fdw", true);
	return OidIsValid(ext) && getExtensionOfObject(ProcedureRelationId, f->funcid) == ext;
}

/*
 * A value colfamd can be sent: nothing of this table, nothing volatile, no subplan.
 * Variables of other tables are allowed in the clauses of a parameterized path
 * (they become parameters).
 */
bool
colfam_pushable_value(PlannerInfo *root, Node *value, Index relid)
{
	Relids		varnos = pull_varnos(root, value);

	return !bms_is_member(relid, varnos) &&
		!contain_volatile_functions(value) &&
		!contain_subplans(value) &&
		!contain_agg_clause(value) &&
		!contain_window_function(value);
}

/* The btree strategy of opno in the default btree opfamily of typid; 0 if none. */
static int
btree_strategy(Oid opno, Oid typid, Oid *opfamily)
{
	Oid			opclass = GetDefaultOpClass(typid, BTREE_AM_OID);
	Oid			fam;

	if (!OidIsValid(opclass))
		return 0;
	fam = get_opclass_family(opclass);
	if (opfamily)
		*opfamily = fam;
	return get_op_opfamily_strategy(opno, fam);
}

/*
 * Does every value of typid encode (colfam_datum_to_bytes), one-to-one? A slice bound
 * that does not encode (a numeric with a fraction, NaN or infinity) is dropped at
 * execution (scan.c), so its comparison must stay with Postgres even where it is
 * inclusive.
 */
static bool
encoding_is_total(Oid typid)
{
	switch (typid)
	{
		case TEXTOID:
		case VARCHAROID:
		case BYTEAOID:
		case INT8OID:
		case INT4OID:
		case INT2OID:
		case UUIDOID:
			return true;
		default:
			return typid == colfam_timeuuid_typid();
	}
}

/*
 * Is an inclusive slice bound exactly SQL's comparison once colfamd has it? Every value
 * of the column's type must encode (encoding_is_total); and as scan.c drops a bound
 * longer than any name (COLFAM_NAME_BYTES_MAX), a text or bytea bound must be a
 * constant that fits: a parameter might not.
 */
static bool
bound_is_exact(const Cand *c, Oid typid)
{
	Node	   *v;
	StringInfoData buf;
	bool		fits;

	if (!encoding_is_total(typid))
		return false;
	if (typid != TEXTOID && typid != VARCHAROID && typid != BYTEAOID)
		return true;			/* fixed-length encodings */
	v = strip_relabel((Node *) c->value);
	if (v == NULL || !IsA(v, Const))
		return false;
	if (((Const *) v)->constisnull)
		return true;			/* matches nothing; nothing is sent */
	/* its encoding's length: text is sent in UTF-8, whatever the database's encoding */
	initStringInfo(&buf);
	colfam_datum_to_bytes(typid, ((Const *) v)->constvalue, &buf, NULL);
	fits = buf.len <= COLFAM_NAME_BYTES_MAX;
	pfree(buf.data);
	return fits;
}

/*
 * Types whose bytes and SQL equality are one-to-one: an equality sent to colfamd
 * (which matches keys by bytes and names by comparator equality) finds exactly the
 * rows SQL's = finds. text needs a deterministic collation: with none (two implicit
 * collations in conflict) SQL's = is an ERROR, which Postgres raises when it is left
 * to Postgres.
 */
static bool
equality_is_bytewise(Oid typid, Oid collid)
{
	if ((typid == TEXTOID || typid == VARCHAROID) &&
		(!OidIsValid(collid) || !get_collation_isdeterministic(collid)))
		return false;
	return encoding_is_total(typid);
}

/*
 * colfamd rejects a request naming a byte above 0x7f in an AsciiType CF, where SQL
 * simply finds no such name (or finds them all below it). So only a constant text,
 * varchar or bytea (an array of them if is_array) whose bytes are all ASCII is pushed
 * there; a parameter, whose value the plan cannot see, is left to Postgres.
 */
static bool
ascii_constant(Node *value, Oid coltype, bool is_array)
{
	Const	   *k;
	Datum	   *elems;
	bool	   *nulls = NULL;
	int			n = 1;

	if (coltype != TEXTOID && coltype != VARCHAROID && coltype != BYTEAOID)
		return false;
	value = strip_relabel(value);
	if (value == NULL || !IsA(value, Const))
		return false;
	k = (Const *) value;
	if (k->constisnull)
		return true;			/* matches nothing; nothing is sent */
	elems = &k->constvalue;
	if (is_array)
		deconstruct_array(DatumGetArrayTypeP(k->constvalue), coltype, -1, false,
						  TYPALIGN_INT, &elems, &nulls, &n);
	for (int i = 0; i < n; i++)
	{
		bytea	   *b;
		const unsigned char *p;

		if (nulls && nulls[i])
			continue;
		b = DatumGetByteaPP(elems[i]);
		p = (const unsigned char *) VARDATA_ANY(b);
		for (int j = 0; j < (int) VARSIZE_ANY_EXHDR(b); j++)
			if (p[j] > 0x7f)
				return false;
	}
	return true;
}

/* The comparator names and sub-column names of this CF are ordered by. */
static const char *
comparator_of(const ColfamRelInfo *ri, ColfamRole role)
{
	return ri->meta->super && role == COLFAM_ROLE_NAME ? ri->meta->subcomparator
		: ri->meta->comparator;
}

/* Is the Cassandra column `name` of a 'rows' table KEYS-indexed? */
static bool
field_indexed(const ColfamCfMeta *meta, const char *name)
{
	for (int i = 0; i < meta->ncolumns; i++)
		if (meta->columns[i].indexed &&
			meta->columns[i].name_len == (int) strlen(name) &&
			memcmp(meta->columns[i].name, name, meta->columns[i].name_len) == 0)
			return true;
	return false;
}

/*
 * Turns one restriction into a candidate, or returns false. Forms: var op value,
 * value op var, var = ANY(array), token(key) op value.
 */
static bool
make_cand(PlannerInfo *root, RelOptInfo *baserel, ColfamRelInfo *ri,
		  RestrictInfo *rinfo, Cand *c)
{
	Expr	   *clause = rinfo->clause;
	const ColfamTable *t = ri->table;
	Node	   *left,
			   *right;
	Oid			opno;
	Oid			inputcollid;
	AttrNumber	att;
	const ColfamColumn *col;
	Oid			coltype;
	Node	   *value;
	Oid			valtype;
	Oid			want;

	memset(c, 0, sizeof(*c));
	c->rinfo = rinfo;
	if (IsA(clause, OpExpr) && list_length(((OpExpr *) clause)->args) == 2)
	{
		OpExpr	   *op = (OpExpr *) clause;

		left = linitial(op->args);
		right = lsecond(op->args);
		opno = op->opno;
		inputcollid = op->inputcollid;
		if (is_token_of_key(left, baserel->relid, t) || our_var(left, baserel->relid))
			 /* var op value */ ;
		else if (is_token_of_key(right, baserel->relid, t) || our_var(right, baserel->relid))
		{
			Node	   *tmp = left;

			left = right;
			right = tmp;
			opno = get_commutator(opno);
			if (!OidIsValid(opno))
				return false;
		}
		else
			return false;
	}
	else if (IsA(clause, ScalarArrayOpExpr))
	{
		ScalarArrayOpExpr *sa = (ScalarArrayOpExpr *) clause;

		if (!sa->useOr || list_length(sa->args) != 2)
			return false;
		left = linitial(sa->args);
		right = lsecond(sa->args);
		opno = sa->opno;
		inputcollid = sa->inputcollid;
		c->is_array = true;
	}
	else
		return false;

	if (!colfam_pushable_value(root, right, baserel->relid) ||
		(ri->snapshot && !colfam_value_fixed(root, right)))
		return false;

	if (is_token_of_key(left, baserel->relid, t))
	{
		if (c->is_array || !ri->random_partitioner)
			return false;
		c->token = true;
		c->role = COLFAM_ROLE_KEY;
		c->attnum = t->key_att;
		coltype = NUMERICOID;
		c->strategy = btree_strategy(opno, NUMERICOID, NULL);
		if (c->strategy == 0 || c->strategy == BTEqualStrategyNumber)
			return false;		/* token = v: rare; left to Postgres */
		valtype = exprType(right);
		value = coerce_to_target_type(NULL, right, valtype, NUMERICOID, -1,
									  COERCION_IMPLICIT, COERCE_IMPLICIT_CAST, -1);
		if (value == NULL)
			return false;
		c->value = (Expr *) value;
		return true;
	}

	att = our_var(left, baserel->relid);
	if (att == InvalidAttrNumber)
		return false;
	col = &t->cols[att - 1];
	coltype = col->typid;
	if (col->role != COLFAM_ROLE_KEY && col->role != COLFAM_ROLE_SUPER &&
		col->role != COLFAM_ROLE_NAME && col->role != COLFAM_ROLE_FIELD)
		return false;
	c->role = col->role;
	c->attnum = att;
	c->strategy = btree_strategy(opno, coltype, NULL);
	if (c->strategy == 0)
		return false;
	if (c->is_array && c->strategy != BTEqualStrategyNumber)
		return false;

	/* the value in the column's type, so convert.c encodes it as the column is */
	valtype = exprType(right);
	want = c->is_array ? get_array_type(coltype) : coltype;
	if (!OidIsValid(want))
		return false;
	value = valtype == want ? right :
		coerce_to_target_type(NULL, right, valtype, want, -1,
							  COERCION_IMPLICIT, COERCE_IMPLICIT_CAST, -1);
	if (value == NULL)
		return false;
	c->value = (Expr *) value;
	if ((col->role == COLFAM_ROLE_NAME || col->role == COLFAM_ROLE_SUPER) &&
		colfam_comparator_is_ascii(comparator_of(ri, col->role)) &&
		!ascii_constant(value, coltype, c->is_array))
		return false;

	/* an operator under another collation than the column's orders differently */
	if (c->strategy == BTEqualStrategyNumber)
		c->exact_eq = equality_is_bytewise(coltype, inputcollid);
	else
	{
		if (col->role == COLFAM_ROLE_FIELD)
			return false;		/* only EQ reaches an index */
		if (inputcollid != col->collid)
			return false;		/* or none: SQL's comparison is an ERROR */
	}
	if (col->role == COLFAM_ROLE_FIELD)
		return c->exact_eq && field_indexed(ri->meta, col->name);
	if (col->role == COLFAM_ROLE_KEY)
	{
		if (c->strategy == BTEqualStrategyNumber)
			return c->exact_eq;
		c->orderable = ri->order_preserving &&
			(coltype == BYTEAOID ||
			 ((coltype == TEXTOID || coltype == VARCHAROID) &&
			  colfam_order_matches(coltype, col->collid, "BytesType")));
		return c->orderable;
	}
	c->orderable = colfam_order_matches(coltype, col->collid,
										comparator_of(ri, col->role));
	if (c->strategy == BTEqualStrategyNumber)
		return c->exact_eq;
	return c->orderable;
}

/* ---- the scan spec ---- */

static List *
value_to_list(const ColfamValue *v)
{
	return list_make5(makeInteger(v->role), makeBoolean(v->is_array),
					  makeInteger((int) v->typid), makeInteger(v->attnum),
					  makeString(v->index_column ? pstrdup(v->index_column) : pstrdup("")));
}

static ColfamValue *
value_from_list(List *l)
{
	ColfamValue *v = palloc0(sizeof(ColfamValue));
	char	   *s;

	v->role = (ColfamValueRole) intVal(linitial(l));
	v->is_array = boolVal(lsecond(l));
	v->typid = (Oid) intVal(lthird(l));
	v->attnum = (AttrNumber) intVal(lfourth(l));
	s = strVal(list_nth(l, 4));
	v->index_column = *s ? s : NULL;
	return v;
}

/*
 * A spec of table t (super: its CF is a Super CF) with what every scan of it shares:
 * the CF, the mapping, the read consistency, fetch_size as the page sizes, and every
 * column of a row fetched. The caller sets the kind of scan and everything else.
 */
ColfamScanSpec *
colfam_spec_new(const ColfamTable *t, bool super)
{
	ColfamScanSpec *spec = palloc0(sizeof(ColfamScanSpec));

	spec->keyspace = t->keyspace;
	spec->column_family = t->column_family;
	spec->rows_mapping = t->rows_mapping;
	spec->super = super;
	spec->consistency = pstrdup(cf_t_consistency_names[t->read_cl]);	/* what is sent */
	spec->fetch_size = t->fetch_size;
	spec->first_count = t->fetch_size;
	spec->fetch_all = true;		/* colfam_project_rows may narrow it */
	spec->decode_all = true;	/* colfam_project_decode may narrow it */
	return spec;
}

/* The spec as a List of nodes copyObject can copy (ForeignScan.fdw_private). */
List *
colfam_spec_to_list(const ColfamScanSpec *spec)
{
	List	   *values = NIL;
	List	   *names = NIL;
	List	   *explain = NIL;
	List	   *decode = NIL;
	ListCell   *lc;

	foreach(lc, spec->decode_atts)
		decode = lappend(decode, makeInteger(intVal(lfirst(lc))));
	foreach(lc, spec->values)
		values = lappend(values, value_to_list(lfirst(lc)));
	foreach(lc, spec->fetch_names)
		names = lappend(names, makeString(pstrdup(strVal(lfirst(lc)))));
	foreach(lc, spec->explain)
		explain = lappend(explain, makeString(pstrdup(strVal(lfirst(lc)))));
	return list_make4(list_make4(makeString(pstrdup(spec->keyspace)),
								 makeString(pstrdup(spec->column_family)),
								 makeString(pstrdup(spec->consistency)),
								 list_concat(list_make5(makeBoolean(spec->rows_mapping),
														makeBoolean(spec->super),
														makeBoolean(spec->slice_supers),
														makeBoolean(spec->reversed),
														makeBoolean(spec->fetch_all)),
											 list_make2(makeBoolean(spec->decode_all),
														makeBoolean(spec->snapshot)))),
					  list_make3(makeInteger(spec->kind), makeInteger(spec->first_count),
								 makeInteger(spec->fetch_size)),
					  values,
					  list_make3(names, explain, decode));
}

ColfamScanSpec *
colfam_spec_from_list(List *list)
{
	ColfamScanSpec *spec = palloc0(sizeof(ColfamScanSpec));
	List	   *strs = linitial(list);
	List	   *flags = lfourth(strs);
	List	   *ints = lsecond(list);
	List	   *tail = lfourth(list);
	ListCell   *lc;

	spec->keyspace = strVal(linitial(strs));
	spec->column_family = strVal(lsecond(strs));
	spec->consistency = strVal(lthird(strs));
	spec->rows_mapping = boolVal(linitial(flags));
	spec->super = boolVal(lsecond(flags));
	spec->slice_supers = boolVal(lthird(flags));
	spec->reversed = boolVal(lfourth(flags));
	spec->fetch_all = boolVal(list_nth(flags, 4));
	spec->decode_all = boolVal(list_nth(flags, 5));
	spec->snapshot = boolVal(list_nth(flags, 6));
	spec->kind = (ColfamScanKind) intVal(linitial(ints));
	spec->first_count = intVal(lsecond(ints));
	spec->fetch_size = intVal(lthird(ints));
	foreach(lc, (List *) lthird(list))
		spec->values = lappend(spec->values, value_from_list(lfirst(lc)));
	spec->fetch_names = linitial(tail);
	spec->explain = lsecond(tail);
	spec->decode_atts = lthird(tail);
	return spec;
}

/* ---- relation size ---- */

static ColfamRelInfo *
rel_info(Oid relid)
{
	ColfamRelInfo *ri = palloc0(sizeof(ColfamRelInfo));
	const ColfamTable *t;
	const char *p;

	ri->table = colfam_get_table(relid);
	ri->meta = colfam_get_cf_meta(ri->table);
	t = ri->table;
	if (ri->meta->super && !t->rows_mapping && t->super_att == InvalidAttrNumber)
		ereport(ERROR,
				(errcode(ERRCODE_FDW_INVALID_OPTION_NAME),
				 errmsg("foreign table \"%s\" maps Super column family \"%s\" without a super_column column",
						t->relname, t->column_family),
				 errhint("Add a column named super_column (or with OPTIONS (role 'super_column')).")));
	if (!ri->meta->super && t->super_att != InvalidAttrNumber)
		ereport(ERROR,
				(errcode(ERRCODE_FDW_INVALID_OPTION_NAME),
				 errmsg("foreign table \"%s\" has a super_column column but column family \"%s\" is Standard",
						t->relname, t->column_family),
				 errhint("Drop column \"%s\" or map a Super column family.",
						 t->cols[t->super_att - 1].attname)));
	p = ri->meta->partitioner;
	ri->order_preserving = strcmp(p, "OrderPreservingPartitioner") == 0 ||
		strcmp(p, "ByteOrderedPartitioner") == 0;
	ri->random_partitioner = strcmp(p, "RandomPartitioner") == 0;
	return ri;
}


/* ---- paths ---- */

/* The candidate restrictions of a clause list. */
static List *
candidates(PlannerInfo *root, RelOptInfo *baserel, ColfamRelInfo *ri, List *clauses)
{
	List	   *out = NIL;
	ListCell   *lc;

	foreach(lc, clauses)
	{
		RestrictInfo *rinfo = lfirst_node(RestrictInfo, lc);
		Cand		c;

		if (rinfo->pseudoconstant)
			continue;
		if (make_cand(root, baserel, ri, rinfo, &c))
		{
			Cand	   *p = palloc(sizeof(Cand));

			*p = c;
			out = lappend(out, p);
		}
	}
	return out;
}

/*
 * The first lower (> or >=) and the first upper (< or <=) bound among the candidates
 * of role, or of token(key) if token; NULL where there is none. Only these two are
 * pushed; further bounds stay with the local filters. (candidate() keeps a range
 * comparison only where the column's order is the comparator's.)
 */
static void
first_bounds(List *cands, ColfamRole role, bool token, Cand **lo, Cand **hi)
{
	ListCell   *lc;

	*lo = *hi = NULL;
	foreach(lc, cands)
	{
		Cand	   *c = lfirst(lc);

		if (c->role != role || c->token != token || c->strategy == BTEqualStrategyNumber)
			continue;
		if (c->strategy >= BTGreaterEqualStrategyNumber)
		{
			if (*lo == NULL)
				*lo = c;
		}
		else if (*hi == NULL)
			*hi = c;
	}
}

static Cand *
find_cand(List *cands, ColfamRole role, bool token, bool eq, bool scalar_only)
{
	ListCell   *lc;

	foreach(lc, cands)
	{
		Cand	   *c = lfirst(lc);

		if (c->role != role || c->token != token)
			continue;
		if (eq != (c->strategy == BTEqualStrategyNumber))
			continue;
		if (scalar_only && c->is_array)
			continue;
		return c;
	}
	return NULL;
}

/* Does the scan read one row only (key = a single value)? */
static bool
single_key(List *cands)
{
	return find_cand(cands, COLFAM_ROLE_KEY, false, true, true) != NULL;
}

/*
 * The size of a table never ANALYZEd: colfamd's estimate of the CF, as SQL rows of the
 * table's mapping ('columns': one per column; 'rows': one per key), else
 * COLFAM_DEFAULT_TUPLES. ANALYZE's reltuples/relpages win when present.
 *
 * The estimate counts at least COLFAM_MIN_PAGES pages of fetch_size rows, as
 * postgres_fdw assumes at least 10 pages of a table it has no statistics for: the
 * counts are one node's and miss writes still arriving, and the two mistakes cost
 * differently — a small CF thought bigger costs a few key lookups where one scan would
 * do, a big CF thought small a whole-CF scan for every join. The rows per key stay
 * the estimate's.
 */
static void
estimate_size(ColfamRelInfo *ri, RelOptInfo *baserel)
{
	double		keys,
				columns;

	if (baserel->tuples >= 0)
		return;					/* ANALYZEd */
	if (!colfam_cf_estimate(ri->table, &keys, &columns))
	{
		/* no estimate: a big table, so key lookups still win over full scans */
		baserel->tuples = COLFAM_DEFAULT_TUPLES;
		baserel->pages = 10;
		return;
	}
	keys = Max(keys, 1.0);
	baserel->tuples = Max(ri->table->rows_mapping ? keys : columns, 1.0);
	ri->est_rows_per_key = baserel->tuples / keys;
	baserel->tuples = Max(baserel->tuples, COLFAM_MIN_PAGES * ri->table->fetch_size);
	ri->est_keys = baserel->tuples / ri->est_rows_per_key;
	baserel->pages = (BlockNumber) ceil(baserel->tuples / Max(ri->table->fetch_size, 1));
}

/* How many keys key = value or key = ANY(value) names, as far as the plan knows. */
static double
keys_named(Cand *c)
{
	Node	   *v = strip_relabel((Node *) c->value);

	if (!c->is_array)
		return 1.0;
	if (IsA(v, Const) && !((Const *) v)->constisnull)
	{
		ArrayType  *a = DatumGetArrayTypeP(((Const *) v)->constvalue);

		return (double) ArrayGetNItems(ARR_NDIM(a), ARR_DIMS(a));
	}
	if (IsA(v, ArrayExpr))
		return (double) list_length(((ArrayExpr *) v)->elements);
	return COLFAM_DEFAULT_ARRAY_KEYS;
}

void
colfam_get_rel_size(PlannerInfo *root, RelOptInfo *baserel, Oid foreigntableid)
{
	ColfamRelInfo *ri = rel_info(foreigntableid);
	Cand	   *key;

	baserel->fdw_private = ri;
	ri->snapshot = colfam_scan_needs_snapshot(root, baserel->relid, ri->table);
	estimate_size(ri, baserel);
	set_baserel_size_estimates(root, baserel);

	/*
	 * Without ANALYZE's statistics Postgres guesses key = v at 0.5% of the table; with
	 * colfamd's estimate a key is est_rows_per_key rows, times the other clauses'
	 * selectivity.
	 */
	if (ri->est_keys > 0 &&
		((key = find_cand(candidates(root, baserel, ri, baserel->baserestrictinfo),
						  COLFAM_ROLE_KEY, false, true, false)) != NULL))
	{
		List	   *others = list_copy(baserel->baserestrictinfo);
		double		n = Min(keys_named(key), ri->est_keys);

		others = list_delete_ptr(others, key->rinfo);
		baserel->rows = clamp_row_est(n * ri->est_rows_per_key *
									  clauselist_selectivity(root, others, baserel->relid,
															 JOIN_INNER, NULL));
	}
}

/* The default btree opfamily of a type, or InvalidOid. */
static Oid
btree_family(Oid typid)
{
	Oid			opclass = GetDefaultOpClass(typid, BTREE_AM_OID);

	return OidIsValid(opclass) ? get_opclass_family(opclass) : InvalidOid;
}

/* The attribute a pathkey sorts by, if it is a plain column of this rel; else 0. */
static AttrNumber
pathkey_att(PathKey *pk, RelOptInfo *baserel)
{
	ListCell   *lc;

	if (pk->pk_eclass->ec_has_volatile)
		return InvalidAttrNumber;
	foreach(lc, pk->pk_eclass->ec_members)
	{
		EquivalenceMember *em = lfirst(lc);

		if (bms_equal(em->em_relids, baserel->relids))
		{
			AttrNumber	a = our_var((Node *) em->em_expr, baserel->relid);

			if (a != InvalidAttrNumber)
				return a;
		}
	}
	return InvalidAttrNumber;
}

/*
 * Is a pathkey on att (a name or super column) its comparator's order, under the
 * column's own opfamily and collation?
 */
static bool
pathkey_ok(ColfamRelInfo *ri, PathKey *pk, AttrNumber att)
{
	const ColfamColumn *col = &ri->table->cols[att - 1];
	const char *comparator = comparator_of(ri, col->role);

	if (pk->pk_opfamily != btree_family(col->typid))
		return false;
	if (pk->pk_eclass->ec_collation != col->collid)
		return false;
	/* names are never NULL, so NULLS FIRST/LAST does not matter */
	return colfam_order_matches(col->typid, col->collid, comparator);
}

/*
 * Can a one-row scan produce `pathkeys`? The order a slice comes back in: by name
 * (Standard CF, or the sub-columns of one super column), by super column then by
 * name ascending (a Super CF: reversing walks the super columns down only); a
 * slice of several names has none. *reversed says which way to walk.
 */
static bool
ordering_matches(ColfamRelInfo *ri, RelOptInfo *baserel, List *cands, List *pathkeys,
				 bool *reversed)
{
	const ColfamTable *t = ri->table;
	bool		pinned = find_cand(cands, COLFAM_ROLE_SUPER, false, true, true) != NULL;
	PathKey    *first,
			   *second = NULL;
	AttrNumber	a1,
				a2 = InvalidAttrNumber;
	Cand	   *names;

	if (t->rows_mapping || pathkeys == NIL || list_length(pathkeys) > 2)
		return false;
	/*
	 * A names predicate (name = ANY(...), the one colfam_get_plan pushes) is asked a
	 * page of names at a time in the query's order of them, each page coming back
	 * sorted, never reversed: no order over the whole scan.
	 */
	names = find_cand(cands, !ri->meta->super || pinned ? COLFAM_ROLE_NAME : COLFAM_ROLE_SUPER,
					  false, true, false);
	if (names != NULL && names->is_array)
		return false;
	first = linitial(pathkeys);
	a1 = pathkey_att(first, baserel);
	if (list_length(pathkeys) == 2)
	{
		second = lsecond(pathkeys);
		a2 = pathkey_att(second, baserel);
	}
	*reversed = first->pk_strategy == BTGreaterStrategyNumber;

	if (!ri->meta->super || pinned)
		return second == NULL && a1 == t->name_att &&
			pathkey_ok(ri, first, a1);
	if (a1 != t->super_att || !pathkey_ok(ri, first, a1))
		return false;
	if (second == NULL)
		return true;
	return a2 == t->name_att && second->pk_strategy == BTLessStrategyNumber &&
		pathkey_ok(ri, second, a2);
}

static double
fetch_cost(ColfamRelInfo *ri, double rows)
{
	double		pages = ceil(Max(rows, 1.0) / Max(ri->table->fetch_size, 1));

	return pages * COLFAM_ROUNDTRIP_COST + rows * (COLFAM_TUPLE_COST + cpu_tuple_cost);
}

/*
 * Is rinfo `key = v` (either way round) on table t (range table index relid) with
 * the key type's btree equality, whose colfamd form (bytes equal) is exactly SQL's?
 */
bool
colfam_key_clause_usable(const ColfamTable *t, RestrictInfo *rinfo, Index relid)
{
	Expr	   *clause = rinfo->clause;
	OpExpr	   *op;
	AttrNumber	att;
	Oid			typid;

	if (t->key_att == InvalidAttrNumber ||
		!IsA(clause, OpExpr) || list_length(((OpExpr *) clause)->args) != 2)
		return false;
	typid = t->cols[t->key_att - 1].typid;
	op = (OpExpr *) clause;
	att = our_var(linitial(op->args), relid);
	if (att == InvalidAttrNumber)
		att = our_var(lsecond(op->args), relid);
	return att == t->key_att &&
		btree_strategy(op->opno, typid, NULL) == BTEqualStrategyNumber &&
		equality_is_bytewise(typid, op->inputcollid);
}

static bool
key_ec_member(PlannerInfo *root, RelOptInfo *rel, EquivalenceClass *ec,
			  EquivalenceMember *em, void *arg)
{
	ColfamRelInfo *ri = arg;

	return our_var((Node *) em->em_expr, rel->relid) == ri->table->key_att;
}

static void
add_param_path(PlannerInfo *root, RelOptInfo *baserel, ColfamRelInfo *ri,
			   RestrictInfo *rinfo, List **seen)
{
	Relids		outer = bms_difference(rinfo->clause_relids, baserel->relids);
	ParamPathInfo *ppi;
	double		rows;
	Cost		run;
	ListCell   *lc;

	outer = bms_union(outer, baserel->lateral_relids);
	if (bms_is_empty(outer) || !colfam_key_clause_usable(ri->table, rinfo, baserel->relid))
		return;
	foreach(lc, *seen)
		if (bms_equal(lfirst(lc), outer))
			return;
	*seen = lappend(*seen, outer);
	ppi = get_baserel_parampathinfo(root, baserel, outer);
	rows = ppi->ppi_rows;
	if (ri->est_keys > 0)
	{
		/* one key's rows, as colfamd estimates them, through the local filters */
		rows = clamp_row_est(ri->est_rows_per_key * baserel->rows / Max(baserel->tuples, 1.0));
		ppi->ppi_rows = rows;
	}
	run = fetch_cost(ri, rows) + baserel->baserestrictcost.per_tuple * rows;
	add_path(baserel, (Path *)
			 create_foreignscan_path(root, baserel, NULL, rows,
									 COLFAM_ROUNDTRIP_COST, COLFAM_ROUNDTRIP_COST + run,
									 NIL, outer, NULL, list_make1(makeBoolean(false))));
}

/*
 * How colfam_get_plan reads the rows of a scan with these candidates: key = (or = ANY)
 * first, then a key range, a token(key) range, an index, else the whole ring.
 */
static ColfamScanKind
rows_kind(List *cands)
{
	if (find_cand(cands, COLFAM_ROLE_KEY, false, true, false) != NULL)
		return COLFAM_SCAN_KEYS;
	if (find_cand(cands, COLFAM_ROLE_KEY, false, false, true) != NULL)
		return COLFAM_SCAN_KEY_RANGE;
	if (find_cand(cands, COLFAM_ROLE_KEY, true, false, true) != NULL)
		return COLFAM_SCAN_TOKEN_RANGE;
	if (find_cand(cands, COLFAM_ROLE_FIELD, false, true, true) != NULL)
		return COLFAM_SCAN_INDEX;
	return COLFAM_SCAN_ALL;
}

/*
 * A partial path for a scan of tokens, whose chunks the processes of a parallel plan
 * share (parallel.c): as many workers as Postgres would give a heap of the bytes it
 * fetches, each process's share of the rows and of the cost, as for a parallel
 * sequential scan.
 */
static void
add_partial_scan_path(PlannerInfo *root, RelOptInfo *baserel, ColfamRelInfo *ri,
					  double fetched, Cost startup)
{
	double		bytes = baserel->tuples * Max(baserel->reltarget->width, COLFAM_MIN_WIRE_WIDTH);
	int			workers = compute_parallel_worker(baserel, bytes / BLCKSZ, -1,
												  max_parallel_workers_per_gather);
	double		divisor = workers;
	Cost		run;
	Path	   *path;

	if (workers <= 0)
		return;
	/* the leader reads chunks too, less the more workers it must gather from */
	if (parallel_leader_participation && 1.0 - 0.3 * workers > 0)
		divisor += 1.0 - 0.3 * workers;
	run = fetch_cost(ri, fetched / divisor) +
		baserel->baserestrictcost.per_tuple * fetched / divisor;
	path = (Path *) create_foreignscan_path(root, baserel, NULL,
											clamp_row_est(baserel->rows / divisor),
											startup, startup + run, NIL, NULL, NULL,
											list_make1(makeBoolean(false)));
	path->parallel_aware = true;
	path->parallel_workers = workers;
	add_partial_path(baserel, path);
}

void
colfam_get_paths(PlannerInfo *root, RelOptInfo *baserel, Oid foreigntableid)
{
	ColfamRelInfo *ri = baserel->fdw_private;
	List	   *cands = candidates(root, baserel, ri, baserel->baserestrictinfo);
	ColfamScanKind kind = rows_kind(cands);
	double		fetched = baserel->rows;
	Cost		startup = COLFAM_ROUNDTRIP_COST + baserel->baserestrictcost.startup;
	Cost		run;
	bool		reversed;
	List	   *seen = NIL;
	ListCell   *lc;

	/* what colfamd returns is at least what survives the local filters */
	if (kind != COLFAM_SCAN_KEYS)
		fetched = Max(fetched, baserel->tuples * 0.1);
	run = fetch_cost(ri, fetched) + baserel->baserestrictcost.per_tuple * fetched;

	add_path(baserel, (Path *)
			 create_foreignscan_path(root, baserel, NULL, baserel->rows, startup,
									 startup + run, NIL, NULL, NULL,
									 list_make1(makeBoolean(false))));

	/* one row's slice comes back sorted: offer the query's order when it is the slice's */
	if (single_key(cands) &&
		ordering_matches(ri, baserel, cands, root->query_pathkeys, &reversed))
		add_path(baserel, (Path *)
				 create_foreignscan_path(root, baserel, NULL, baserel->rows, startup,
										 startup + run, root->query_pathkeys, NULL, NULL,
										 list_make1(makeBoolean(reversed))));

	/* only a scan of tokens, all the ring or a token(key) range, cuts into chunks */
	if (baserel->consider_parallel && ri->random_partitioner &&
		(kind == COLFAM_SCAN_ALL || kind == COLFAM_SCAN_TOKEN_RANGE))
		add_partial_scan_path(root, baserel, ri, fetched, startup);

	/* joins on the key: one lookup per outer row (not between the statement's writes) */
	if (ri->table->key_att != InvalidAttrNumber && !ri->snapshot)
	{
		List	   *eqs = generate_implied_equalities_for_column(root, baserel, key_ec_member,
																 ri, baserel->lateral_referencers);

		foreach(lc, eqs)
			add_param_path(root, baserel, ri, lfirst_node(RestrictInfo, lc), &seen);
		foreach(lc, baserel->joininfo)
		{
			RestrictInfo *rinfo = lfirst_node(RestrictInfo, lc);

			if (join_clause_is_movable_to(rinfo, baserel))
				add_param_path(root, baserel, ri, rinfo, &seen);
		}
	}
}

/* ---- the plan ---- */

/*
 * 'rows' mapping: makes spec fetch by name only the fields among attrs (attribute
 * numbers offset by FirstLowInvalidHeapAttributeNumber, as pull_varattnos gives them)
 * and returns the EXPLAIN text of that slice; NULL, spec untouched (every column
 * fetched), when the query needs the whole row: a whole-row Var, the extra column, or
 * super columns sliced.
 */
char *
colfam_project_rows(ColfamScanSpec *spec, const ColfamTable *t, Bitmapset *attrs)
{
	int			a = -1;

	if (bms_is_member(0 - FirstLowInvalidHeapAttributeNumber, attrs) ||
		(t->extra_att != InvalidAttrNumber &&
		 bms_is_member(t->extra_att - FirstLowInvalidHeapAttributeNumber, attrs)) ||
		spec->slice_supers)
		return NULL;
	spec->fetch_all = false;
	while ((a = bms_next_member(attrs, a)) >= 0)
	{
		AttrNumber	att = a + FirstLowInvalidHeapAttributeNumber;

		if (att > 0 && t->cols[att - 1].role == COLFAM_ROLE_FIELD)
			spec->fetch_names = lappend(spec->fetch_names, makeString(t->cols[att - 1].name));
	}
	return spec->fetch_names == NIL ? "existence only"
		: psprintf("%d named column%s", list_length(spec->fetch_names),
				   list_length(spec->fetch_names) == 1 ? "" : "s");
}

/*
 * Makes spec decode only the attributes among attrs (offset as for
 * colfam_project_rows): the others are returned NULL, which nothing above the scan
 * reads. Unchanged (every attribute decoded) when the query needs the whole row.
 */
void
colfam_project_decode(ColfamScanSpec *spec, const ColfamTable *t, Bitmapset *attrs)
{
	int			a = -1;

	if (bms_is_member(0 - FirstLowInvalidHeapAttributeNumber, attrs))
		return;
	spec->decode_all = false;
	spec->decode_atts = NIL;
	while ((a = bms_next_member(attrs, a)) >= 0)
	{
		AttrNumber	att = a + FirstLowInvalidHeapAttributeNumber;

		if (att > 0 && att <= t->natts)
			spec->decode_atts = lappend(spec->decode_atts, makeInteger(att));
	}
}

/*
 * The first page's size (rows or columns) of a scan or pushed join of rel along path:
 * the LIMIT's, when the LIMIT bounds rel's output in path's order and is smaller than
 * fetch_size; else fetch_size.
 */
int
colfam_first_count(PlannerInfo *root, Path *path, RelOptInfo *rel, int fetch_size)
{
	if (root->limit_tuples > 0 &&
		((path->pathkeys != NIL && pathkeys_contained_in(root->query_pathkeys, path->pathkeys)) ||
		 (root->query_pathkeys == NIL && bms_equal(root->all_baserels, rel->relids))))
		return (int) Min((double) fetch_size, ceil(root->limit_tuples));
	return fetch_size;
}

/*
 * EXPLAIN shows a literal longer than DESCRIBE_LITERAL_MAX bytes by its first
 * DESCRIBE_LITERAL_START bytes (whole characters) and its length.
 */
#define DESCRIBE_LITERAL_MAX 256
#define DESCRIBE_LITERAL_START 64

/* A value as EXPLAIN shows it: a constant's text, $n, or the outer column. */
char *
colfam_describe_value(PlannerInfo *root, Expr *e)
{
	Node	   *n = strip_relabel((Node *) e);

	if (IsA(n, Const))
	{
		Const	   *k = (Const *) n;
		Oid			out;
		bool		varlena;
		char	   *lit;
		int			len;

		if (k->constisnull)
			return "NULL";
		getTypeOutputInfo(k->consttype, &out, &varlena);
		lit = OidOutputFunctionCall(out, k->constvalue);
		len = strlen(lit);
		/* a long one (a key or name can be 64 KiB) by its start and its length */
		if (len > DESCRIBE_LITERAL_MAX)
		{
			int			start = pg_mbcliplen(lit, len, DESCRIBE_LITERAL_START);

			return psprintf("%s... (%d characters)",
							quote_literal_cstr(pnstrdup(lit, start)),
							pg_mbstrlen_with_len(lit, len));
		}
		return quote_literal_cstr(lit);
	}
	if (IsA(n, Param))
		return psprintf("$%d", ((Param *) n)->paramid);
	if (IsA(n, Var))
	{
		Var		   *v = (Var *) n;
		RangeTblEntry *rte = planner_rt_fetch(v->varno, root);

		return psprintf("%s.%s", rte->eref->aliasname,
						get_rte_attribute_name(rte, v->varattno));
	}
	if (IsA(n, FuncExpr) && ((FuncExpr *) n)->funcformat == COERCE_IMPLICIT_CAST)
		return colfam_describe_value(root, linitial(((FuncExpr *) n)->args));
	if (IsA(n, CoerceViaIO))
		return psprintf("%s::%s", colfam_describe_value(root, ((CoerceViaIO *) n)->arg),
						format_type_be(((CoerceViaIO *) n)->resulttype));
	return "(expression)";
}

static void
push_value(ColfamScanSpec *spec, List **exprs, Cand *c, ColfamValueRole role,
		   const char *index_column)
{
	ColfamValue *v = palloc0(sizeof(ColfamValue));
	Oid			t = exprType((Node *) c->value);

	v->role = role;
	v->is_array = c->is_array;
	v->typid = c->is_array ? get_element_type(t) : t;
	v->attnum = c->attnum;
	v->index_column = index_column ? pstrdup(index_column) : NULL;
	spec->values = lappend(spec->values, v);
	*exprs = lappend(*exprs, c->value);
}

/* A SliceRange as EXPLAIN shows it; '' is an open bound. */
static const char *
slice_bounds_text(PlannerInfo *root, Cand *lo, Cand *hi, bool reversed)
{
	const char *l = lo ? colfam_describe_value(root, lo->value) : "''";
	const char *h = hi ? colfam_describe_value(root, hi->value) : "''";

	if (lo == NULL && hi == NULL)
		return reversed ? "reversed" : "forward";
	return reversed ? psprintf("start %s, finish %s, reversed", h, l)
		: psprintf("start %s, finish %s", l, h);
}

ForeignScan *
colfam_get_plan(PlannerInfo *root, RelOptInfo *baserel, Oid foreigntableid,
				ForeignPath *best_path, List *tlist, List *scan_clauses,
				Plan *outer_plan)
{
	ColfamRelInfo *ri = baserel->fdw_private;
	const ColfamTable *t;
	ColfamScanSpec *spec;
	List	   *cands = candidates(root, baserel, ri, scan_clauses);
	List	   *exact = NIL;	/* RestrictInfos fully done by colfamd */
	List	   *exprs = NIL;
	List	   *local = NIL;
	Cand	   *c,
			   *lo,
			   *hi;
	Cand	   *pinned = NULL;
	const char *rows_text;
	const char *slice_text;
	ListCell   *lc;

	if (IS_JOIN_REL(baserel))
		return colfam_join_plan(root, baserel, best_path, tlist, outer_plan);
	t = ri->table;
	spec = colfam_spec_new(t, ri->meta->super);
	spec->reversed = boolVal(linitial(best_path->fdw_private));
	spec->snapshot = ri->snapshot;

	/* ---- which rows ---- */
	spec->kind = rows_kind(cands);
	if (spec->kind == COLFAM_SCAN_KEYS)
	{
		/* a single key rather than = ANY when there are both */
		if ((c = find_cand(cands, COLFAM_ROLE_KEY, false, true, true)) == NULL)
			c = find_cand(cands, COLFAM_ROLE_KEY, false, true, false);
		push_value(spec, &exprs, c, COLFAM_V_KEY, NULL);
		exact = lappend(exact, c->rinfo);
		rows_text = c->is_array
			? psprintf("multiget of keys in %s (batches of up to %d keys)",
					   colfam_describe_value(root, c->value), spec->fetch_size)
			: psprintf("key %s", colfam_describe_value(root, c->value));
	}
	else if (spec->kind == COLFAM_SCAN_KEY_RANGE)
	{
		first_bounds(cands, COLFAM_ROLE_KEY, false, &lo, &hi);
		if (lo)
			push_value(spec, &exprs, lo, COLFAM_V_KEY_LO, NULL);
		if (hi)
			push_value(spec, &exprs, hi, COLFAM_V_KEY_HI, NULL);
		rows_text = psprintf("keys from %s to %s",
							 lo ? colfam_describe_value(root, lo->value) : "the first",
							 hi ? colfam_describe_value(root, hi->value) : "the last");
	}
	else if (spec->kind == COLFAM_SCAN_TOKEN_RANGE)
	{
		Cand	   *tlo,
				   *thi;

		first_bounds(cands, COLFAM_ROLE_KEY, true, &tlo, &thi);
		if (tlo)
			push_value(spec, &exprs, tlo,
					   tlo->strategy == BTGreaterStrategyNumber ? COLFAM_V_TOKEN_LO_EXCL
					   : COLFAM_V_TOKEN_LO, NULL);
		if (thi)
			push_value(spec, &exprs, thi, COLFAM_V_TOKEN_HI, NULL);
		rows_text = psprintf("tokens %s %s to %s",
							 tlo && tlo->strategy == BTGreaterStrategyNumber ? "after" : "from",
							 tlo ? colfam_describe_value(root, tlo->value) : "the start",
							 thi ? colfam_describe_value(root, thi->value) : "the end of the ring");
	}
	else if (spec->kind == COLFAM_SCAN_INDEX)
	{
		StringInfoData buf;

		initStringInfo(&buf);
		foreach(lc, cands)
		{
			c = lfirst(lc);
			if (c->role != COLFAM_ROLE_FIELD || c->is_array)
				continue;
			push_value(spec, &exprs, c, COLFAM_V_INDEX_EQ, t->cols[c->attnum - 1].name);
			appendStringInfo(&buf, "%s%s = %s", buf.len ? " and " : "",
							 t->cols[c->attnum - 1].name, colfam_describe_value(root, c->value));
		}
		rows_text = psprintf("index lookup %s", buf.data);
		/* the index is re-checked against each row by colfamd, but we filter too */
	}
	else
		rows_text = "all keys";

	/* ---- which columns ---- */
	if (spec->super && (pinned = find_cand(cands, COLFAM_ROLE_SUPER, false, true, true)) != NULL)
	{
		push_value(spec, &exprs, pinned, COLFAM_V_SUPER, NULL);
		exact = lappend(exact, pinned->rinfo);
	}
	spec->slice_supers = spec->super && pinned == NULL;
	slice_text = NULL;
	if (!t->rows_mapping || spec->slice_supers)
	{
		ColfamRole	r = spec->slice_supers ? COLFAM_ROLE_SUPER : COLFAM_ROLE_NAME;

		if ((c = find_cand(cands, r, false, true, false)) != NULL)
		{
			push_value(spec, &exprs, c, COLFAM_V_SLICE_EQ, NULL);
			if (c->exact_eq)
				exact = lappend(exact, c->rinfo);
			slice_text = psprintf("%s %s", c->is_array ? "names in" : "name",
								  colfam_describe_value(root, c->value));
		}
		else
		{
			first_bounds(cands, r, false, &lo, &hi);
			/*
			 * an inclusive bound colfamd takes as it is (bound_is_exact) is exactly
			 * SQL's; a strict one, or one scan.c may drop, is rechecked
			 */
			if (lo)
			{
				push_value(spec, &exprs, lo, COLFAM_V_SLICE_LO, NULL);
				if (lo->strategy == BTGreaterEqualStrategyNumber &&
					bound_is_exact(lo, t->cols[lo->attnum - 1].typid))
					exact = lappend(exact, lo->rinfo);
			}
			if (hi)
			{
				push_value(spec, &exprs, hi, COLFAM_V_SLICE_HI, NULL);
				if (hi->strategy == BTLessEqualStrategyNumber &&
					bound_is_exact(hi, t->cols[hi->attnum - 1].typid))
					exact = lappend(exact, hi->rinfo);
			}
			if (lo || hi || spec->reversed)
				slice_text = slice_bounds_text(root, lo, hi, spec->reversed);
		}
	}

	/*
	 * Only the attributes the query reads (its target and the clauses Postgres
	 * checks) are decoded; in the 'rows' mapping only their columns are fetched.
	 */
	{
		Bitmapset  *attrs = NULL;
		char	   *names_text;

		pull_varattnos((Node *) baserel->reltarget->exprs, baserel->relid, &attrs);
		foreach(lc, scan_clauses)
		{
			RestrictInfo *rinfo = lfirst_node(RestrictInfo, lc);

			if (!list_member_ptr(exact, rinfo))
				pull_varattnos((Node *) rinfo->clause, baserel->relid, &attrs);
		}
		colfam_project_decode(spec, t, attrs);
		if (t->rows_mapping && (names_text = colfam_project_rows(spec, t, attrs)) != NULL)
			slice_text = names_text;
	}

	if (best_path->path.parallel_aware)
		rows_text = psprintf("%s, in chunks of tokens shared by the parallel processes",
							 rows_text);

	/* a LIMIT over this scan's order sizes the first page; later pages are fetch_size */
	spec->first_count = colfam_first_count(root, &best_path->path, baserel, spec->fetch_size);

	/* what colfamd does not do exactly, Postgres filters */
	foreach(lc, scan_clauses)
	{
		RestrictInfo *rinfo = lfirst_node(RestrictInfo, lc);

		if (rinfo->pseudoconstant || !list_member_ptr(exact, rinfo))
			local = lappend(local, rinfo->clause);
	}

	spec->explain = list_make2(makeString(psprintf("%s.%s: %s", t->keyspace, t->column_family,
												   rows_text)),
							   makeString(psprintf("%s%s%scount %d%s",
												   pinned ? psprintf("super column %s, ",
																	 colfam_describe_value(root, pinned->value)) : "",
												   slice_text ? slice_text : "",
												   slice_text ? ", " : "",
												   spec->first_count,
												   spec->first_count < spec->fetch_size
												   ? psprintf(" (first page; then %d)", spec->fetch_size)
												   : "")));

	return make_foreignscan(tlist, local, baserel->relid, exprs,
							colfam_spec_to_list(spec), NIL, NIL, outer_plan);
}

/* EXPLAIN: what is sent to colfamd, and with VERBOSE how. */
void
colfam_explain_scan(ForeignScanState *node, ExplainState *es)
{
	ForeignScan *plan = (ForeignScan *) node->ss.ps.plan;
	ColfamScanSpec *spec;

	if (colfam_is_join_plan(plan))
	{
		colfam_join_explain(node, es);
		return;
	}
	spec = colfam_spec_from_list(plan->fdw_private);
	ExplainPropertyText("Colfam Rows", strVal(linitial(spec->explain)), es);
	ExplainPropertyText("Colfam Slice", strVal(lsecond(spec->explain)), es);
	if (spec->snapshot)
		ExplainPropertyText("Colfam Snapshot",
							"read whole before the statement writes the column family", es);
	if (es->verbose)
	{
		ExplainPropertyText("Colfam Consistency", spec->consistency, es);
		ExplainPropertyInteger("Colfam Fetch Size", NULL, spec->fetch_size, es);
	}
	/* a join chain (join.c) answered its first request */
	if (es->analyze && node->fdw_state != NULL &&
		colfam_scan_preset_hits(node->fdw_state) > 0)
		ExplainPropertyInteger("Colfam Chain Answers Used", NULL,
							   colfam_scan_preset_hits(node->fdw_state), es);
}

/* Is plan a pushed join (join.c) rather than a scan of one table? */
bool
colfam_is_join_plan(ForeignScan *plan)
{
	return plan->scan.scanrelid == 0;
}

/* Must the scan of a colfam base rel read whole before the statement writes (snapshot.c)? */
bool
colfam_rel_snapshot(RelOptInfo *baserel)
{
	return ((ColfamRelInfo *) baserel->fdw_private)->snapshot;
}

/* The table of a colfam base rel, and its CF's metadata. */
ColfamTable *
colfam_rel_table(RelOptInfo *baserel, ColfamCfMeta **meta)
{
	ColfamRelInfo *ri = baserel->fdw_private;

	*meta = ri->meta;
	return ri->table;
}
