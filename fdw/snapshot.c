/*-------------------------------------------------------------------------
 * fdw/snapshot.c — which scans of a statement must not see the statement's own
 * writes, decided when the statement is planned.
 *
 * colfamd has no read snapshots (no MVCC): a scan pages through what is stored when
 * each page is asked. A statement that writes a column family while it scans it would
 * see its own writes (the Halloween problem):
 * `UPDATE t SET column_name = column_name || 'x'`
 * would meet the renamed columns again further on and rename them twice, and an
 * INSERT ... SELECT from the same CF could feed on its own rows. Postgres gives every
 * scan of a statement the snapshot taken when it began; colfam_fdw gets the same
 * result by reading such a scan whole before the statement's first write to that
 * column family (scan.c keeps the rows in a tuplestore, spilled to disk past
 * work_mem) and by planning it so that what it reads does not change while the
 * statement runs:
 *  - no parameterized paths and no pushed key-lookup joins over it (their lookups
 *    would run between writes);
 *  - no values pushed that change during the statement: a correlated subquery's
 *    outer values stay with Postgres's filter, so a rescan replays the rows read.
 *    Constants, the statement's parameters and its init plans' outputs are fixed.
 *
 * One scan is exempt: the target's own scan in a top-level UPDATE or DELETE whose
 * writes land only on rows it has already passed — a DELETE, or an UPDATE that keeps
 * each row's identity (key, super column, column name in the 'columns' mapping; key
 * and super column in 'rows') — when nothing else in the statement reads or writes
 * that column family. A scan pages forward from the last key and name it returned, so
 * it never comes back to a row behind it. Such a scan streams, with every pushdown.
 *
 * A column family is identified by keyspace and name, whatever the server: two
 * servers may reach the same cluster, and reading whole costs only time and memory.
 *-------------------------------------------------------------------------
 */
#include "colfam_fdw.h"
#include "colfam_table.h"

#include "access/sysattr.h"
#include "access/table.h"
#include "catalog/pg_class.h"
#include "catalog/pg_inherits.h"
#include "foreign/foreign.h"
#include "nodes/nodeFuncs.h"
#include "parser/parsetree.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"

/* Is relid a foreign table of colfam_fdw that maps t's column family? */
static bool
maps_cf(Oid relid, const ColfamTable *t)
{
	const ColfamTable *other;

	if (get_rel_relkind(relid) != RELKIND_FOREIGN_TABLE ||
		GetFdwRoutineByRelId(relid)->IterateForeignScan != colfam_iterate_scan)
		return false;
	other = colfam_get_table(relid);
	return strcmp(other->keyspace, t->keyspace) == 0 &&
		strcmp(other->column_family, t->column_family) == 0;
}

/* Does a write to relid (a table, or a parent of partitions or children) reach t's CF? */
static bool
write_reaches_cf(Oid relid, const ColfamTable *t)
{
	ListCell   *lc;

	foreach(lc, find_all_inheritors(relid, NoLock, NULL))
		if (maps_cf(lfirst_oid(lc), t))
			return true;
	return false;
}

/* Does q (a statement, or a data-modifying WITH query in it) write t's CF? */
static bool
query_writes_cf(Query *q, const ColfamTable *t)
{
	ListCell   *lc;

	if (q->commandType != CMD_SELECT && q->resultRelation > 0 &&
		write_reaches_cf(rt_fetch(q->resultRelation, q->rtable)->relid, t))
		return true;
	foreach(lc, q->cteList)
	{
		CommonTableExpr *cte = lfirst_node(CommonTableExpr, lc);

		if (IsA(cte->ctequery, Query) && query_writes_cf((Query *) cte->ctequery, t))
			return true;
	}
	return false;
}

typedef struct RefCount
{
	const ColfamTable *t;
	int			n;
} RefCount;

static bool
count_refs_walker(Node *node, RefCount *rc)
{
	if (node == NULL)
		return false;
	if (IsA(node, RangeTblEntry))
	{
		RangeTblEntry *rte = (RangeTblEntry *) node;

		if (rte->rtekind == RTE_RELATION && maps_cf(rte->relid, rc->t))
			rc->n++;
		return false;
	}
	if (IsA(node, Query))
		return query_tree_walker((Query *) node, count_refs_walker, rc,
								 QTW_EXAMINE_RTES_BEFORE);
	return expression_tree_walker(node, count_refs_walker, rc);
}

/*
 * How many range table entries of the statement map t's CF: those of its query tree
 * (subqueries in FROM, sublinks and WITH queries not planned yet) and those of the
 * subqueries already planned (glob->subroots). A subquery pulled up into its parent
 * may count twice: the count only ever errs high, toward reading whole.
 */
static int
statement_refs(PlannerInfo *top, const ColfamTable *t)
{
	RefCount	rc = {t, 0};
	ListCell   *lc;

	(void) count_refs_walker((Node *) top->parse, &rc);
	foreach(lc, top->glob->subroots)
	{
		PlannerInfo *sub = lfirst(lc);

		if (sub != NULL)
			(void) count_refs_walker((Node *) sub->parse, &rc);
	}
	return rc.n;
}

/*
 * Could an UPDATE of base rel relid give a row another identity? Its SET list names
 * the key or the super column (or, 'columns' mapping, the column name), or a BEFORE
 * ROW UPDATE trigger could change any column.
 */
static bool
update_moves_rows(PlannerInfo *root, Index relid, const ColfamTable *t)
{
	RangeTblEntry *rte = planner_rt_fetch(relid, root);
	AttrNumber	identity[3] = {t->key_att, t->super_att, t->rows_mapping ? 0 : t->name_att};
	Relation	rel;
	bool		triggers;

	for (int i = 0; i < 3; i++)
		if (identity[i] != InvalidAttrNumber &&
			bms_is_member(identity[i] - FirstLowInvalidHeapAttributeNumber, rte->updatedCols))
			return true;
	rel = table_open(rte->relid, NoLock);
	triggers = rel->trigdesc != NULL && rel->trigdesc->trig_update_before_row;
	table_close(rel, NoLock);
	return triggers;
}

/*
 * Must the scan of t, base rel relid of root, read all its rows before the statement
 * writes t's column family? (See the top of the file.)
 */
bool
colfam_scan_needs_snapshot(PlannerInfo *root, Index relid, const ColfamTable *t)
{
	PlannerInfo *top = root;
	Query	   *q;

	while (top->parent_root != NULL)
		top = top->parent_root;
	q = top->parse;
	if ((q->commandType == CMD_SELECT && !q->hasModifyingCTE) || !query_writes_cf(q, t))
		return false;
	if (root == top && !q->hasModifyingCTE &&
		(q->commandType == CMD_DELETE || q->commandType == CMD_UPDATE) &&
		bms_is_member(relid, root->all_result_relids) && statement_refs(top, t) == 1 &&
		(q->commandType == CMD_DELETE || !update_moves_rows(root, relid, t)))
		return false;
	return true;
}

/*
 * Is paramid set by an init plan of the statement's top query level? Those are
 * evaluated once. An init plan of a subquery is evaluated again whenever the outer
 * values it depends on change, so its output is not taken as fixed (pushing less).
 */
static bool
init_plan_output(PlannerInfo *root, int paramid)
{
	ListCell   *lc;

	while (root->parent_root != NULL)
		root = root->parent_root;
	foreach(lc, root->init_plans)
		if (list_member_int(lfirst_node(SubPlan, lc)->setParam, paramid))
			return true;
	return false;
}

static bool
changing_param_walker(Node *node, PlannerInfo *root)
{
	if (node == NULL)
		return false;
	if (IsA(node, Param))
	{
		Param	   *p = (Param *) node;

		return p->paramkind != PARAM_EXTERN &&
			!(p->paramkind == PARAM_EXEC && init_plan_output(root, p->paramid));
	}
	return expression_tree_walker(node, changing_param_walker, root);
}

/*
 * Does value keep one value for the whole statement? Constants, the statement's
 * parameters ($1) and the outputs of its top level's init plans do; the outer values
 * of a correlated subquery, set anew for each outer row, do not.
 */
bool
colfam_value_fixed(PlannerInfo *root, Node *value)
{
	return !changing_param_walker(value, root);
}
