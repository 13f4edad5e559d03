/*-------------------------------------------------------------------------
 * fdw/join.c — INNER joins of colfam tables pushed into one ForeignScan whose inner
 * side is looked up by key in batches.
 *
 * Without it, `JOIN e ON e.key = t.value` is a nested loop over a scan parameterized
 * by t.value (plan.c): one round trip to colfamd per outer row. Here the FDW runs the
 * outer side itself — the outer path (a colfam base scan, or an already pushed colfam
 * join) becomes the ForeignScan's outer plan — takes its rows in batches, sends the
 * batch's distinct keys as one multiget_slice (scan.c's KEYS scan) and emits the joined
 * rows in the outer rows' order. So the outer path's pathkeys still hold (a reversed
 * slice stays the ORDER BY) and a LIMIT stops the join early: the first batch is as
 * small as the LIMIT when the LIMIT bounds the join's output, later ones fetch_size.
 *
 * Pushed only when every piece is provably Postgres's own join:
 *  - JOIN_INNER, no row marks (no EPQ recheck), no placeholders, no pseudoconstant
 *    clause, nothing lateral;
 *  - the inner side is a colfam base table in the 'rows' mapping of a Standard CF
 *    (one SQL row per key, so a key finds at most one inner row);
 *  - one join clause is `inner.key = expr` with the key type's btree equality whose
 *    colfamd form (equal bytes) is SQL's (plan.c: colfam_key_clause_usable), expr
 *    holding only outer columns, nothing volatile. expr is converted to the key's type
 *    as the operator's implicit cast does; a NULL, a value that cannot be encoded, or
 *    one encoded as an empty or over-65535-byte key (no row has one) equals no key,
 *    so its outer row joins nothing.
 * Every other join clause and the inner table's own restrictions are evaluated by
 * Postgres on the joined row (the ForeignScan's qual over fdw_scan_tlist).
 *-------------------------------------------------------------------------
 */
#include "colfam_fdw.h"
#include "colfam_table.h"

#include <math.h>

#include "executor/executor.h"
#include "executor/tuptable.h"
#include "mb/pg_wchar.h"
#include "miscadmin.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/cost.h"
#include "optimizer/optimizer.h"
#include "optimizer/pathnode.h"
#include "optimizer/paths.h"
#include "optimizer/planmain.h"
#include "optimizer/restrictinfo.h"
#include "optimizer/tlist.h"
#include "parser/parse_coerce.h"
#include "parser/parsetree.h"
#include "utils/memutils.h"
#include "utils/rel.h"

#include "client/client.h"

/* The order of a join plan's fdw_private. */
enum
{
	JP_INNER_SPEC,				/* the inner table's KEYS scan (colfam_spec_to_list) */
	JP_INNER_REL,				/* its pg_class OID (Integer) */
	JP_KEY_TYPE,				/* the key column's type (Integer) */
	JP_SOURCES,					/* per fdw_scan_tlist entry: >0 outer resno, <0 -inner attno */
	JP_FIRST_BATCH,				/* outer rows in the first batch (Integer) */
	JP_BATCH,					/* outer rows in the later ones (Integer) */
	JP_EXPLAIN,					/* the EXPLAIN line (String) */
	JP_CHAIN					/* the join's chain (below), or NIL */
};

/*
 * A chain: when the outer side is a KEYS scan (a key = or key = ANY slice), or a join
 * that is itself a chain over one, and the key is a plain column of the outer side,
 * the scan's first request and the first batch of every join above it go to colfamd
 * as one colfam_multiget_chain: colfamd reads the scan's first page, takes each join's
 * keys from an earlier step's answer and looks them up, and answers every step at once
 * (engine/doc/thrift.md). Step 0 is the scan, step k the k-th join up. Each answer is
 * only a prefetched reply: a join uses it if it holds every key of its first batch as
 * the FDW computes them (the outer rows decoded, the key encoded), else sends its own
 * multiget_slice, so a chain never changes a result, only saves the round trips. The
 * plan's chain (JP_CHAIN) is a List:
 */
enum
{
	JC_RELIDS,					/* the base relid of each step (IntList) */
	JC_FROM,					/* the step this join's keys come from (Integer) */
	JC_SOURCE,					/* how: a cf_ta_chain_source (Integer) */
	JC_NAME,					/* NAMED_VALUE: the Cassandra column (String) */
	JC_EXPLAIN					/* the EXPLAIN line (String) */
};

/* ---- planning ---- */

/*
 * The key clause of a join to inner (a colfam base rel): `inner.key = expr` with
 * expr over outer's columns only. Returns expr converted to the key's type and sets
 * *key_rinfo, or NULL.
 */
static Expr *
key_lookup_clause(PlannerInfo *root, RelOptInfo *outerrel, RelOptInfo *innerrel,
				  const ColfamTable *t, List *restrictlist, RestrictInfo **key_rinfo)
{
	Oid			keytype = t->cols[t->key_att - 1].typid;
	ListCell   *lc;

	foreach(lc, restrictlist)
	{
		RestrictInfo *rinfo = lfirst_node(RestrictInfo, lc);
		OpExpr	   *op;
		Node	   *other;
		Node	   *value;

		if (!colfam_key_clause_usable(t, rinfo, innerrel->relid))
			continue;
		op = (OpExpr *) rinfo->clause;
		other = bms_is_member(innerrel->relid, pull_varnos(root, linitial(op->args)))
			? lsecond(op->args) : linitial(op->args);
		if (!bms_is_subset(pull_varnos(root, other), outerrel->relids) ||
			!colfam_pushable_value(root, other, innerrel->relid))
			continue;
		value = exprType(other) == keytype ? other :
			coerce_to_target_type(NULL, other, exprType(other), keytype, -1,
								  COERCION_IMPLICIT, COERCE_IMPLICIT_CAST, -1);
		if (value == NULL)
			continue;
		*key_rinfo = rinfo;
		return (Expr *) value;
	}
	return NULL;
}

/* Does any Var of relid in node name a system column or the whole row? */
static bool
uses_system_columns(Node *node, Index relid)
{
	List	   *vars = pull_var_clause(node, PVC_RECURSE_PLACEHOLDERS);
	ListCell   *lc;

	foreach(lc, vars)
	{
		Var		   *v = lfirst(lc);

		if ((Index) v->varno == relid && v->varattno <= 0)
			return true;
	}
	return false;
}

/*
 * GetForeignJoinPaths: for each unparameterized colfam path of the outer side, a
 * join path over it with its pathkeys, when the join can be done by key lookups
 * (see the file's comment).
 */
void
colfam_get_join_paths(PlannerInfo *root, RelOptInfo *joinrel, RelOptInfo *outerrel,
					  RelOptInfo *innerrel, JoinType jointype, JoinPathExtraData *extra)
{
	ColfamCfMeta *meta;
	ColfamTable *t;
	RestrictInfo *key_rinfo = NULL;
	Expr	   *key;
	List	   *local;
	ListCell   *lc;

	if (jointype != JOIN_INNER || root->parse->rowMarks != NIL || root->rowMarks != NIL ||
		root->placeholder_list != NIL || root->hasLateralRTEs ||
		innerrel->reloptkind != RELOPT_BASEREL ||
		(outerrel->reloptkind != RELOPT_BASEREL && outerrel->reloptkind != RELOPT_JOINREL) ||
		!bms_is_empty(innerrel->lateral_relids) || !bms_is_empty(outerrel->lateral_relids))
		return;
	t = colfam_rel_table(innerrel, &meta);
	if (!t->rows_mapping || meta->super || t->key_att == InvalidAttrNumber ||
		colfam_rel_snapshot(innerrel))
		return;
	foreach(lc, extra->restrictlist)
		if (lfirst_node(RestrictInfo, lc)->pseudoconstant)
			return;
	key = key_lookup_clause(root, outerrel, innerrel, t, extra->restrictlist, &key_rinfo);
	if (key == NULL)
		return;
	local = list_concat(list_delete_ptr(list_copy(extra->restrictlist), key_rinfo),
						innerrel->baserestrictinfo);
	if (uses_system_columns((Node *) joinrel->reltarget->exprs, innerrel->relid) ||
		uses_system_columns((Node *) extract_actual_clauses(local, false), innerrel->relid))
		return;

	foreach(lc, outerrel->pathlist)
	{
		Path	   *outer = lfirst(lc);
		double		batches;
		QualCost	qual;
		Cost		startup,
					total;

		if (!IsA(outer, ForeignPath) || outer->param_info != NULL)
			continue;
		batches = Max(1.0, ceil(outer->rows / Max(t->fetch_size, 1)));
		cost_qual_eval(&qual, extract_actual_clauses(local, false), root);
		startup = outer->startup_cost + COLFAM_ROUNDTRIP_COST + qual.startup;
		total = outer->total_cost + batches * COLFAM_ROUNDTRIP_COST + qual.startup +
			outer->rows * (COLFAM_TUPLE_COST + cpu_tuple_cost + qual.per_tuple) +
			joinrel->rows * cpu_tuple_cost;
		add_path(joinrel, (Path *)
				 create_foreign_join_path(root, joinrel, NULL, joinrel->rows,
										  startup, total, outer->pathkeys, NULL, outer,
										  list_make3(makeInteger(innerrel->relid),
													 key, local)));
	}
}

/* Where tlist holds a Var equal to v (its resno), or 0. */
static int
tlist_position(List *tlist, Var *v)
{
	ListCell   *lc;

	foreach(lc, tlist)
	{
		TargetEntry *tle = lfirst_node(TargetEntry, lc);

		if (equal(tle->expr, v))
			return tle->resno;
	}
	return 0;
}

/*
 * Types whose value decoded and encoded again as a key gives back the very bytes
 * colfamd stored: a chain's keys, taken from those bytes, are then the keys the join
 * asks. (Text only when no encoding conversion stands between them.)
 */
static bool
chain_type(Oid typid)
{
	switch (typid)
	{
		case TEXTOID:
			return GetDatabaseEncoding() == PG_UTF8;
		case BYTEAOID:
		case INT8OID:
		case UUIDOID:
			return true;
		default:
			return OidIsValid(typid) && typid == colfam_timeuuid_typid();
	}
}

/* What a step's source is, for EXPLAIN. */
static const char *
chain_source_text(int source, const char *name)
{
	switch (source)
	{
		case CF_TA_CHAIN_KEY:
			return "the row keys";
		case CF_TA_CHAIN_NAME:
			return "the column names";
		case CF_TA_CHAIN_SUPER_NAME:
			return "the super column names";
		case CF_TA_CHAIN_VALUE:
			return "the column values";
		default:
			return psprintf("the values of column \"%s\"", name);
	}
}

/*
 * The chain of a join of inner (at inner_relid) by key over outer_plan (see JP_CHAIN),
 * or NIL when the join cannot be one.
 */
static List *
chain_of(PlannerInfo *root, Plan *outer_plan, Index inner_relid, const ColfamTable *inner,
		 Expr *key)
{
	ForeignScan *fs = (ForeignScan *) outer_plan;
	ColfamCfMeta *meta;
	const ColfamTable *base;
	const ColfamTable *src;
	const ColfamColumn *col;
	List	   *relids;
	Var		   *v;
	int			from = -1;
	int			source;
	const char *name = "";
	char	   *explain;
	ListCell   *lc;

	if (!IsA(outer_plan, ForeignScan))
		return NIL;
	if (colfam_is_join_plan(fs))
	{
		List	   *outer_chain = list_nth(fs->fdw_private, JP_CHAIN);

		if (outer_chain == NIL)
			return NIL;
		relids = list_copy(list_nth(outer_chain, JC_RELIDS));
	}
	else
	{
		ColfamScanSpec *spec = colfam_spec_from_list(fs->fdw_private);

		if (spec->kind != COLFAM_SCAN_KEYS || spec->snapshot)
			return NIL;
		relids = list_make1_int((int) fs->scan.scanrelid);
	}
	if (list_length(relids) > CF_TA_CHAIN_MAX_STEPS)
		return NIL;
	/* one request: one keyspace and one consistency level (the server is one already) */
	base = colfam_rel_table(find_base_rel(root, linitial_int(relids)), &meta);
	if (strcmp(base->keyspace, inner->keyspace) != 0 || base->read_cl != inner->read_cl)
		return NIL;

	/* the key: a column of a step, of the key's own type, that a source can name */
	while (IsA(key, RelabelType) &&
		   ((RelabelType *) key)->resulttype == exprType((Node *) ((RelabelType *) key)->arg))
		key = ((RelabelType *) key)->arg;	/* another collation: the same bytes */
	if (!IsA(key, Var) || ((Var *) key)->varlevelsup != 0 || ((Var *) key)->varattno <= 0)
		return NIL;
	v = (Var *) key;
	foreach(lc, relids)
		if ((Index) lfirst_int(lc) == (Index) v->varno)
			from = foreach_current_index(lc);
	if (from < 0)
		return NIL;
	src = colfam_rel_table(find_base_rel(root, v->varno), &meta);
	col = &src->cols[v->varattno - 1];
	if (col->typid != inner->cols[inner->key_att - 1].typid || !chain_type(col->typid))
		return NIL;
	switch (col->role)
	{
		case COLFAM_ROLE_KEY:
			source = CF_TA_CHAIN_KEY;
			break;
		case COLFAM_ROLE_SUPER:
			source = CF_TA_CHAIN_SUPER_NAME;
			break;
		case COLFAM_ROLE_NAME:
			source = CF_TA_CHAIN_NAME;
			break;
		case COLFAM_ROLE_VALUE:
			source = CF_TA_CHAIN_VALUE;
			break;
		case COLFAM_ROLE_FIELD:
			source = CF_TA_CHAIN_NAMED_VALUE;
			name = col->name;
			break;
		default:
			return NIL;
	}
	explain = psprintf("step %d of one request from %s.%s; keys: %s of step %d (%s)",
					   list_length(relids), base->keyspace, base->column_family,
					   chain_source_text(source, name), from, src->column_family);
	relids = lappend_int(relids, (int) inner_relid);
	return list_make5(relids, makeInteger(from), makeInteger(source),
					  makeString(pstrdup(name)), makeString(explain));
}

/*
 * GetForeignPlan of a join path: the outer path's plan below, the inner table's
 * KEYS scan in fdw_private, the key expression as fdw_exprs, the other clauses as
 * the qual; all over fdw_scan_tlist, the Vars the join's target, qual and key read.
 */
ForeignScan *
colfam_join_plan(PlannerInfo *root, RelOptInfo *joinrel, ForeignPath *best_path,
				 List *tlist, Plan *outer_plan)
{
	Index		inner_relid = intVal(linitial(best_path->fdw_private));
	Expr	   *key = lsecond(best_path->fdw_private);
	List	   *local = extract_actual_clauses(lthird(best_path->fdw_private), false);
	RelOptInfo *innerrel = find_base_rel(root, inner_relid);
	ColfamCfMeta *meta;
	ColfamTable *t = colfam_rel_table(innerrel, &meta);
	ColfamScanSpec *spec = colfam_spec_new(t, false);	/* a Standard CF, 'rows' */
	List	   *scan_tlist;
	List	   *sources = NIL;
	Bitmapset  *inner_attrs = NULL;	/* the inner columns it reads */
	List	   *private;
	char	   *explain;
	char	   *names_text;
	int			first;
	ListCell   *lc;

	/* the tlist may be NIL (a projection above sets it later): use the join's target */
	scan_tlist = add_to_flat_tlist(NIL, pull_var_clause((Node *) joinrel->reltarget->exprs,
														PVC_RECURSE_PLACEHOLDERS));
	scan_tlist = add_to_flat_tlist(scan_tlist, pull_var_clause((Node *) tlist, PVC_RECURSE_PLACEHOLDERS));
	scan_tlist = add_to_flat_tlist(scan_tlist, pull_var_clause((Node *) local, PVC_RECURSE_PLACEHOLDERS));
	scan_tlist = add_to_flat_tlist(scan_tlist, pull_var_clause((Node *) key, PVC_RECURSE_PLACEHOLDERS));
	foreach(lc, scan_tlist)
	{
		Var		   *v = (Var *) lfirst_node(TargetEntry, lc)->expr;
		int			at;

		if ((Index) v->varno == inner_relid)
		{
			at = -v->varattno;
			inner_attrs = bms_add_member(inner_attrs,
										 v->varattno - FirstLowInvalidHeapAttributeNumber);
		}
		else if ((at = tlist_position(outer_plan->targetlist, v)) == 0)
			elog(ERROR, "colfam_fdw: a column of the join's outer side is missing from its plan");
		sources = lappend_int(sources, at);
	}

	spec->kind = COLFAM_SCAN_KEYS;
	names_text = colfam_project_rows(spec, t, inner_attrs);
	spec->explain = list_make2(makeString(""), makeString(""));

	/* a LIMIT that bounds this join's output sizes the first batch */
	first = colfam_first_count(root, &best_path->path, joinrel, t->fetch_size);

	explain = psprintf("%s.%s: key lookups of %s in batches of %d%s, %s",
					   t->keyspace, t->column_family, colfam_describe_value(root, key),
					   t->fetch_size,
					   first < t->fetch_size ? psprintf(" (the first %d)", first) : "",
					   names_text ? names_text : "every column");
	private = list_make5(colfam_spec_to_list(spec), makeInteger((int) t->relid),
						 makeInteger((int) t->cols[t->key_att - 1].typid), sources,
						 makeInteger(first));
	private = lappend(private, makeInteger(t->fetch_size));
	private = lappend(private, makeString(explain));
	private = lappend(private, chain_of(root, outer_plan, inner_relid, t, key));
	return make_foreignscan(tlist, local, 0, list_make1(key), private,
							scan_tlist, NIL, outer_plan);
}

/* ---- execution ---- */

/* An inner row of the batch: its key's bytes and the row. */
typedef struct InnerRow
{
	cf_slice	key;
	MinimalTuple tuple;
} InnerRow;

typedef struct ColfamJoinState
{
	ColfamScanState *inner;		/* the inner table's KEYS scan */
	TupleTableSlot *inner_slot; /* a row of the inner table (scan.c fills its values) */
	TupleTableSlot *outer_slot; /* a copied outer row */
	ExprState  *key_state;		/* the key, over the scan tuple (fdw_scan_tlist) */
	Oid			key_type;
	int			nsources;
	int		   *sources;		/* per scan tuple column: >0 outer resno, <0 -inner attno */
	int			first_batch;
	int			batch;
	MemoryContext batch_cxt;	/* one batch: its outer and inner rows */

	bool		first_done;		/* the first batch has been read */
	bool		outer_done;		/* the outer plan is exhausted */
	int			n_outer;
	MinimalTuple *outer_rows;
	bool	   *has_key;
	cf_slice   *outer_keys;
	int			n_inner;
	InnerRow   *inner_rows;		/* sorted by key */
	int			pos;			/* the next outer row to emit */

	int			cl;				/* the consistency level of every table of the join */

	/* the plan's chain (JP_CHAIN) */
	int			chain_step;		/* this join's step; 0: the plan has no chain */
	int			chain_from;
	int			chain_source;
	char	   *chain_name;
	bool		chain_below;	/* the join above sends the chain, this step with it */
	cf_arena   *chain_arena;	/* the answers of the chain this join sent last */
	int			chain_requests; /* chains this join sent */
} ColfamJoinState;

static int
inner_row_cmp(const void *a, const void *b)
{
	return cf_slice_cmp(((const InnerRow *) a)->key, ((const InnerRow *) b)->key);
}

static void
free_chain_arena(void *arg)
{
	ColfamJoinState *js = arg;

	cf_arena_free(js->chain_arena);
	js->chain_arena = NULL;
}

void
colfam_join_begin(ForeignScanState *node, int eflags)
{
	ForeignScan *plan = (ForeignScan *) node->ss.ps.plan;
	List	   *priv = plan->fdw_private;
	EState	   *estate = node->ss.ps.state;
	MemoryContext cxt = estate->es_query_cxt;
	ColfamJoinState *js;
	ColfamTable *t;
	List	   *sources = list_nth(priv, JP_SOURCES);
	Relation	rel;
	ListCell   *lc;

	if (eflags & EXEC_FLAG_EXPLAIN_ONLY)
		return;
	js = MemoryContextAllocZero(cxt, sizeof(ColfamJoinState));
	t = colfam_get_table((Oid) intVal(list_nth(priv, JP_INNER_REL)));
	js->inner = colfam_scan_begin(colfam_spec_from_list(list_nth(priv, JP_INNER_SPEC)), t, cxt);
	js->cl = t->read_cl;
	rel = RelationIdGetRelation(t->relid);
	js->inner_slot = ExecInitExtraTupleSlot(estate, CreateTupleDescCopy(RelationGetDescr(rel)),
											&TTSOpsMinimalTuple);
	RelationClose(rel);
	js->outer_slot = ExecInitExtraTupleSlot(estate,
											ExecGetResultType(outerPlanState(node)),
											&TTSOpsMinimalTuple);
	js->key_state = ExecInitExpr(linitial(plan->fdw_exprs), (PlanState *) node);
	js->key_type = (Oid) intVal(list_nth(priv, JP_KEY_TYPE));
	js->nsources = list_length(sources);
	js->sources = palloc(sizeof(int) * Max(js->nsources, 1));
	foreach(lc, sources)
		js->sources[foreach_current_index(lc)] = lfirst_int(lc);
	js->first_batch = intVal(list_nth(priv, JP_FIRST_BATCH));
	js->batch = intVal(list_nth(priv, JP_BATCH));
	js->batch_cxt = AllocSetContextCreate(cxt, "colfam_fdw join batch", ALLOCSET_DEFAULT_SIZES);
	node->fdw_state = js;

	if (list_nth(priv, JP_CHAIN) != NIL)
	{
		List	   *chain = list_nth(priv, JP_CHAIN);
		ForeignScanState *outer = (ForeignScanState *) outerPlanState(node);
		MemoryContextCallback *cb = MemoryContextAllocZero(cxt, sizeof(*cb));

		js->chain_step = list_length(list_nth(chain, JC_RELIDS)) - 1;
		js->chain_from = intVal(list_nth(chain, JC_FROM));
		js->chain_source = intVal(list_nth(chain, JC_SOURCE));
		js->chain_name = strVal(list_nth(chain, JC_NAME));
		/* the outer join's step goes with this one's chain (the outer state is made) */
		if (colfam_is_join_plan((ForeignScan *) outer->ss.ps.plan))
			((ColfamJoinState *) outer->fdw_state)->chain_below = true;
		cb->func = free_chain_arena;
		cb->arg = js;
		MemoryContextRegisterResetCallback(cxt, cb);
	}
}

/* The most items (columns or super columns) a row answers pred with. */
static double
most_items(const cf_t_slice_predicate *pred)
{
	return pred->has_column_names ? (double) pred->n_column_names
		: (double) pred->slice_range.count;
}

/*
 * Sends the chain of node, the topmost join of it: the first request of the scan at
 * its bottom and the first batch of every join up to node in one
 * colfam_multiget_chain, and gives each scan its answer (colfam_scan_preset). Sends
 * nothing when the scan has no such request, when a step could ask more keys than
 * colfamd takes, or to a colfamd that does not know the method; and gives no answer
 * when the answers together do not fit in colfamd's reply frame.
 */
static void
send_chain(ForeignScanState *node, ColfamJoinState *js)
{
	int			n = js->chain_step;
	ColfamJoinState **joins = palloc(sizeof(*joins) * (n + 1));	/* [step] */
	cf_t_slice_predicate *preds = palloc0(sizeof(*preds) * (n + 1));
	cf_ta_chain_step *steps = palloc0(sizeof(*steps) * n);
	double	   *rows = palloc(sizeof(double) * (n + 1));	/* most rows a step answers */
	double	   *items = palloc(sizeof(double) * (n + 1));	/* ... and items */
	ForeignScanState *cur = node;
	ColfamScanState *base;
	bool		super0;			/* step 0 is a Super CF's unpinned scan */
	cfc_conn   *conn;
	const cf_slice *keys;
	size_t		n_keys;
	cf_t_column_parent parent;
	cf_ta_chain_answer *answers;
	size_t		n_answers;
	cf_status  *st;

	/*
	 * The joins from node down (node is step n), then the scan under them (step 0). A
	 * node whose parameters changed would be rescanned when first run; the chain reads
	 * its request now, so it is rescanned now (as ExecProcNode would).
	 */
	for (int k = n; k >= 1; k--)
	{
		joins[k] = cur->fdw_state;
		cur = (ForeignScanState *) outerPlanState(cur);
		if (cur->ss.ps.chgParam != NULL)
			ExecReScan(&cur->ss.ps);
	}
	base = cur->fdw_state;
	super0 = colfam_scan_super_unpinned(base);
	if (!colfam_scan_chain_first(base, cur->ss.ps.ps_ExprContext, &conn, &keys, &n_keys,
								 &parent, &preds[0]) ||
		colfam_conn_chainless(conn))
		return;

	/*
	 * Every step's keys must stay within what colfamd takes, and within its join's
	 * first batch (the answer serves that batch only: more would be read for nothing).
	 * Step k answers at most rows[k] rows of items[k] items (a names predicate's names,
	 * or a range's count, a row). Its keys: a row key is one a row; a named column's
	 * value one a row (one a super column of a Super CF's unpinned scan: step 0 only,
	 * the joins' tables are Standard); a super column name one an item; every column's
	 * name or value one a column — and an unpinned scan's super columns hold any number.
	 */
	rows[0] = (double) n_keys;
	items[0] = rows[0] * most_items(&preds[0]);
	for (int k = 1; k <= n; k++)
	{
		ColfamJoinState *j = joins[k];
		bool		from_super = j->chain_from == 0 && super0;
		cfc_conn   *c;

		colfam_scan_lookup_request(j->inner, &c, &steps[k - 1].column_parent, &preds[k]);
		if (c != conn)
			return;
		steps[k - 1].predicate = preds[k];
		steps[k - 1].from_step = j->chain_from;
		steps[k - 1].source = j->chain_source;
		steps[k - 1].has_source_name = j->chain_source == CF_TA_CHAIN_NAMED_VALUE;
		steps[k - 1].source_name = cf_slice_str(j->chain_name);
		switch (j->chain_source)
		{
			case CF_TA_CHAIN_KEY:
				rows[k] = rows[j->chain_from];
				break;
			case CF_TA_CHAIN_NAMED_VALUE:
				rows[k] = from_super ? items[j->chain_from] : rows[j->chain_from];
				break;
			case CF_TA_CHAIN_SUPER_NAME:
				rows[k] = items[j->chain_from];
				break;
			default:			/* every column's name or value */
				if (from_super)
					return;
				rows[k] = items[j->chain_from];
				break;
		}
		if (rows[k] > Min(j->first_batch, CF_TA_CHAIN_MAX_KEYS))
			return;
		items[k] = rows[k] * most_items(&preds[k]);
	}

	/* the answers of the chain before this one go: no scan may hold them */
	colfam_scan_preset(base, NULL, 0, NULL);
	for (int k = 1; k <= n; k++)
		colfam_scan_preset(joins[k]->inner, NULL, 0, NULL);
	cf_arena_free(js->chain_arena);
	js->chain_arena = cf_arena_new(0);
	if (js->chain_arena == NULL)
		ereport(ERROR, (errcode(ERRCODE_OUT_OF_MEMORY), errmsg("out of memory")));
	st = cfc_colfam_multiget_chain(conn, keys, n_keys, &parent, &preds[0], steps, (size_t) n,
								   js->cl, js->chain_arena, &answers,
								   &n_answers);
	if (st != NULL && cfc_unknown_method(st))
	{
		colfam_conn_set_chainless(conn);	/* not asked again on this connection */
		cf_status_free(st);
		return;
	}
	if (st != NULL && cfc_reply_too_large(st))
	{
		/*
		 * Every step's answer in one reply is over colfamd's frame limit, though each
		 * step's own request may fit: the scan and the joins ask for themselves.
		 */
		cf_status_free(st);
		return;
	}
	if (st != NULL)
		colfam_report(st, "reading the first rows of a join chain (colfam_multiget_chain)",
					  NULL, 0);
	if (n_answers != (size_t) n + 1)
		ereport(ERROR,
				(errcode(ERRCODE_FDW_ERROR),
				 errmsg("colfam_multiget_chain answered %zu steps of %d", n_answers, n + 1)));
	js->chain_requests++;
	colfam_scan_preset(base, answers[0].rows, answers[0].n_rows, &preds[0]);
	for (int k = 1; k <= n; k++)
		colfam_scan_preset(joins[k]->inner, answers[k].rows, answers[k].n_rows, &preds[k]);
}

/*
 * Fills the scan tuple (fdw_scan_tlist) with outer row i and, when inner is not NULL,
 * that inner row; the inner columns are NULL otherwise.
 */
static void
fill_scan_tuple(ColfamJoinState *js, TupleTableSlot *slot, int i, InnerRow *inner)
{
	ExecClearTuple(slot);
	ExecStoreMinimalTuple(js->outer_rows[i], js->outer_slot, false);
	slot_getallattrs(js->outer_slot);
	if (inner != NULL)
	{
		ExecStoreMinimalTuple(inner->tuple, js->inner_slot, false);
		slot_getallattrs(js->inner_slot);
	}
	for (int c = 0; c < js->nsources; c++)
	{
		int			at = js->sources[c];

		if (at > 0)
		{
			slot->tts_values[c] = js->outer_slot->tts_values[at - 1];
			slot->tts_isnull[c] = js->outer_slot->tts_isnull[at - 1];
		}
		else if (inner != NULL)
		{
			slot->tts_values[c] = js->inner_slot->tts_values[-at - 1];
			slot->tts_isnull[c] = js->inner_slot->tts_isnull[-at - 1];
		}
		else
		{
			slot->tts_values[c] = (Datum) 0;
			slot->tts_isnull[c] = true;
		}
	}
	ExecStoreVirtualTuple(slot);
}

/*
 * Reads the next batch of outer rows (the first one first_batch rows, then batch),
 * evaluates each one's key and looks the batch's distinct keys up in one request.
 * The inner rows are copied into the batch's memory.
 */
static void
read_batch(ForeignScanState *node, ColfamJoinState *js)
{
	PlanState  *outer = outerPlanState(node);
	ExprContext *econtext = node->ss.ps.ps_ExprContext;
	TupleTableSlot *scan_slot = node->ss.ss_ScanTupleSlot;
	int			want = js->first_done ? js->batch : js->first_batch;
	int			n_keys = 0;
	cf_slice   *keys;
	int			cap;
	MemoryContext old;

	MemoryContextReset(js->batch_cxt);
	old = MemoryContextSwitchTo(js->batch_cxt);
	if (!js->first_done && js->chain_step > 0 && !js->chain_below)
		send_chain(node, js);	/* in the batch's memory: a rescan does not add up */
	js->first_done = true;
	js->outer_rows = palloc(sizeof(MinimalTuple) * want);
	js->has_key = palloc(sizeof(bool) * want);
	js->outer_keys = palloc(sizeof(cf_slice) * want);
	keys = palloc(sizeof(cf_slice) * want);
	js->n_outer = 0;
	js->pos = 0;
	while (js->n_outer < want)
	{
		TupleTableSlot *o = ExecProcNode(outer);
		int			i = js->n_outer;
		bool		isnull;
		Datum		d;

		if (TupIsNull(o))
		{
			js->outer_done = true;
			break;
		}
		js->outer_rows[i] = ExecCopySlotMinimalTuple(o);
		js->n_outer++;
		fill_scan_tuple(js, scan_slot, i, NULL);
		econtext->ecxt_scantuple = scan_slot;
		d = ExecEvalExpr(js->key_state, econtext, &isnull);
		/* an empty or over-long key is left out of the lookup (colfam_scan_lookup) */
		js->has_key[i] = !isnull && colfam_encode_value(js->key_type, d, &js->outer_keys[i]);
		if (js->has_key[i])
			keys[n_keys++] = js->outer_keys[i];
		ResetExprContext(econtext);
	}

	/* the inner rows of the batch's keys, one row per key found */
	js->n_inner = 0;
	cap = Max(n_keys, 1);
	js->inner_rows = palloc(sizeof(InnerRow) * cap);
	if (n_keys > 0)
	{
		colfam_scan_lookup(js->inner, keys, n_keys);
		for (;;)
		{
			cf_slice	k;
			InnerRow   *r;

			ExecClearTuple(js->inner_slot);
			if (!colfam_scan_next(js->inner, js->inner_slot))
				break;
			ExecStoreVirtualTuple(js->inner_slot);
			if (js->n_inner == cap)
			{
				cap *= 2;
				js->inner_rows = repalloc(js->inner_rows, sizeof(InnerRow) * cap);
			}
			r = &js->inner_rows[js->n_inner++];
			k = colfam_scan_row_key(js->inner);
			r->key = cf_slice_of(colfam_copy_bytes(k.p, k.len), k.len);
			r->tuple = ExecCopySlotMinimalTuple(js->inner_slot);
		}
		qsort(js->inner_rows, js->n_inner, sizeof(InnerRow), inner_row_cmp);
	}
	MemoryContextSwitchTo(old);
}

/* IterateForeignScan of a join: the next joined row, in the outer rows' order. */
TupleTableSlot *
colfam_join_iterate(ForeignScanState *node)
{
	ColfamJoinState *js = node->fdw_state;
	TupleTableSlot *slot = node->ss.ss_ScanTupleSlot;

	for (;;)
	{
		CHECK_FOR_INTERRUPTS();
		while (js->pos < js->n_outer)
		{
			int			i = js->pos++;
			InnerRow	probe;
			InnerRow   *hit;

			if (!js->has_key[i] || js->n_inner == 0)
				continue;
			probe.key = js->outer_keys[i];
			hit = bsearch(&probe, js->inner_rows, js->n_inner, sizeof(InnerRow), inner_row_cmp);
			if (hit == NULL)
				continue;
			fill_scan_tuple(js, slot, i, hit);
			return slot;
		}
		if (js->outer_done)
			return ExecClearTuple(slot);
		read_batch(node, js);
	}
}

/* ReScanForeignScan of a join (the executor rescans the outer plan itself). */
void
colfam_join_rescan(ForeignScanState *node)
{
	ColfamJoinState *js = node->fdw_state;

	MemoryContextReset(js->batch_cxt);
	colfam_scan_preset(js->inner, NULL, 0, NULL);	/* a chain's answer is for one scan */
	js->first_done = js->outer_done = false;
	js->n_outer = js->n_inner = js->pos = 0;
}

/* EXPLAIN of a join: which table is looked up, by what, in batches of how many. */
void
colfam_join_explain(ForeignScanState *node, ExplainState *es)
{
	ForeignScan *plan = (ForeignScan *) node->ss.ps.plan;
	List	   *chain = list_nth(plan->fdw_private, JP_CHAIN);
	ColfamJoinState *js = node->fdw_state;

	ExplainPropertyText("Colfam Join", strVal(list_nth(plan->fdw_private, JP_EXPLAIN)), es);
	if (chain == NIL)
		return;
	ExplainPropertyText("Colfam Chain", strVal(list_nth(chain, JC_EXPLAIN)), es);
	if (es->analyze && js != NULL)
	{
		if (!js->chain_below)
			ExplainPropertyInteger("Colfam Chain Requests", NULL, js->chain_requests, es);
		ExplainPropertyInteger("Colfam Chain Answers Used", NULL,
							   colfam_scan_preset_hits(js->inner), es);
	}
}
