/*-------------------------------------------------------------------------
 * fdw/modify.c — INSERT, UPDATE, DELETE, COPY FROM and TRUNCATE on foreign tables:
 * SQL rows become row mutations sent with batch_mutate at the table's
 * write_consistency.
 *
 *  'columns' mapping: a SQL row is one column. INSERT writes it (key, [super_column,]
 *    column_name, value; ttl if set; writetime if set, else now). DELETE removes it.
 *    UPDATE writes the new column (at now unless it sets the writetime), and removes
 *    the old one when key, super_column or column_name changed. RETURNING sees the
 *    timestamp written; a DELETE's RETURNING the row its scan read.
 *  'rows' mapping: a SQL row is one row (one super column of a Super CF). INSERT
 *    writes every non-NULL named column and each member of the extra jsonb (strings
 *    as their text, other JSON values as their JSON text; a string "0x..." is the
 *    bytes its hex digits spell, as a scan shows a name or value that is not UTF-8
 *    text or that starts with 0x, so a row read and written back is the same row).
 *    A row that would write no column is an ERROR: a Cassandra row exists only
 *    through its columns, and INSERT would count a row that is never read back.
 *    (An UPDATE that sets every column NULL removes them all, as a DELETE would:
 *    the columns are what the statement names.) UPDATE writes the non-NULL
 *    columns and removes the ones set to NULL; with an extra column, whose members
 *    are all the row's other columns, it also removes the members the new extra no
 *    longer has (the old row goes, below the new one's timestamp). DELETE removes
 *    the row (the super column). A row writes each Cassandra column once: an extra
 *    member naming a column that a SQL column holds, or two SQL columns that name
 *    one Cassandra column with different values, is an ERROR (at one timestamp,
 *    colfamd's tie-break would choose the value read back).
 * Timestamps are microseconds since 1970, strictly increasing within a backend, so
 * two writes of one transaction never tie (each row of a batched INSERT has its own:
 * of two rows writing one column, the later wins). An UPDATE removes old columns at a
 * timestamp taken when the statement starts, older than every column it writes: a
 * rename onto a name that another row of the statement renames away (c1 -> c2,
 * c2 -> c3) keeps the new column whatever order the rows come in, as SQL's snapshot
 * semantics want. A row that a join gives several times (UPDATE ... FROM, DELETE ...
 * USING) is updated or deleted once, by its first join row, and counted once, as
 * PostgreSQL does for its own tables. Rows to update or delete are identified
 * by their key (and super column and column name) fetched by the scan as junk
 * columns colfam_key, colfam_super, colfam_name.
 *
 * A write is acknowledged per row (batched inserts: per batch); a failure is an ERROR
 * and, as in Cassandra, what was acknowledged before it stays written: a foreign
 * table is not transactional. The ERROR says how many rows of the statement were
 * written before it. A row key, column name or super column name outside 1..65535
 * bytes (Cassandra 0.7's bounds: an empty one included) is refused before its batch
 * is sent, so no row of that batch is written.
 *-------------------------------------------------------------------------
 */
#include "colfam_fdw.h"
#include "colfam_table.h"

#include "access/sysattr.h"
#include "catalog/pg_type.h"
#include "common/hashfn.h"
#include "common/int.h"
#include "datatype/timestamp.h"
#include "executor/executor.h"
#include "foreign/fdwapi.h"
#include "foreign/foreign.h"
#include "nodes/makefuncs.h"
#include "optimizer/appendinfo.h"
#include "parser/parsetree.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/timestamp.h"

#include "client/client.h"

#define COLFAM_INSERT_BATCH 100

/* The identities (key, super column, column name) a statement updated or deleted. */
typedef struct SeenEntry
{
	bytea	   *id;
	uint32		hash;
	char		status;
} SeenEntry;

#define SH_PREFIX seen
#define SH_ELEMENT_TYPE SeenEntry
#define SH_KEY_TYPE bytea *
#define SH_KEY id
#define SH_HASH_KEY(tb, key) \
	hash_bytes((const unsigned char *) VARDATA(key), VARSIZE(key) - VARHDRSZ)
#define SH_EQUAL(tb, a, b) \
	(VARSIZE(a) == VARSIZE(b) && memcmp(VARDATA(a), VARDATA(b), VARSIZE(a) - VARHDRSZ) == 0)
#define SH_STORE_HASH
#define SH_GET_HASH(tb, a) ((a)->hash)
#define SH_SCOPE static inline
#define SH_DECLARE
#define SH_DEFINE
#include "lib/simplehash.h"

/* A SQL column of the 'rows' mapping and the Cassandra column it names. */
typedef struct FieldName
{
	const char *name;
	AttrNumber	att;
} FieldName;

typedef struct ColfamModifyState
{
	ColfamTable *table;
	cfc_conn   *conn;
	int			cl;
	bool		super;
	MemoryContext cxt;			/* one batch; reset after it is sent */
	AttrNumber	junk_key;
	AttrNumber	junk_super;
	AttrNumber	junk_name;
	AttrNumber	junk_row;		/* the whole old row (UPDATE; DELETE with RETURNING) */
	int64		delete_ts;		/* UPDATE: removals of old columns, below its writes */
	bool		sets_writetime; /* UPDATE: it assigns the writetime column */
	seen_hash  *seen;			/* UPDATE, DELETE whose plan may give a row twice: the
								 * rows done, in seen_cxt; else NULL */
	MemoryContext seen_cxt;
	/* 'rows' mapping: the Cassandra columns the SQL columns name (see field_names) */
	FieldName  *fields;			/* sorted by name, then attnum */
	int			nfields;
	AttrNumber *same_as;		/* [attnum - 1]: the first column naming the same
								 * Cassandra column, or InvalidAttrNumber */
	bool	   *writes;			/* UPDATE of 'rows' (see update_writes): [attnum - 1]
								 * whether it writes the column's field; NULL: every
								 * field, and the row is rewritten whole */
} ColfamModifyState;

static int64 last_timestamp = 0;

/*
 * The first of n consecutive timestamps: now in µs since 1970, strictly increasing
 * within the backend (one clock read for a whole batch).
 */
static int64
write_timestamps(int n)
{
	int64		now = GetCurrentTimestamp() + UNIX_TO_PG_USECS;

	if (now <= last_timestamp)
		now = last_timestamp + 1;
	last_timestamp = now + n - 1;
	return now;
}


static bool any_may_repeat_rows(List *plans);

/*
 * Could the plan under an UPDATE or DELETE give one target row more than once? Only
 * through a join (UPDATE ... FROM, DELETE ... USING, a pushed key-lookup join): a
 * scan returns each row once. Without one, the statement keeps no list of the rows
 * it has done, so a large UPDATE needs no memory per row.
 */
static bool
plan_may_repeat_rows(Plan *plan)
{
	if (plan == NULL)
		return false;
	switch (nodeTag(plan))
	{
		case T_NestLoop:
		case T_MergeJoin:
		case T_HashJoin:
			if (((Join *) plan)->jointype != JOIN_SEMI &&
				((Join *) plan)->jointype != JOIN_ANTI)
				return true;
			/* a semi or anti join gives each of its outer rows once at most */
			return plan_may_repeat_rows(outerPlan(plan));
		case T_ForeignScan:
			if (((ForeignScan *) plan)->scan.scanrelid == 0)
				return true;
			break;
		case T_CustomScan:
			return true;
		case T_Append:
			return any_may_repeat_rows(((Append *) plan)->appendplans);
		case T_MergeAppend:
			return any_may_repeat_rows(((MergeAppend *) plan)->mergeplans);
		case T_SubqueryScan:
			return plan_may_repeat_rows(((SubqueryScan *) plan)->subplan);
		default:
			break;
	}
	return plan_may_repeat_rows(outerPlan(plan)) || plan_may_repeat_rows(innerPlan(plan));
}

/* plan_may_repeat_rows of any plan in the list */
static bool
any_may_repeat_rows(List *plans)
{
	ListCell   *lc;

	foreach(lc, plans)
		if (plan_may_repeat_rows(lfirst(lc)))
			return true;
	return false;
}

/* ---- planning ---- */

static void
add_junk(PlannerInfo *root, Index rtindex, Relation rel, AttrNumber att, const char *name)
{
	Form_pg_attribute a = TupleDescAttr(RelationGetDescr(rel), att - 1);
	Var		   *var = makeVar(rtindex, att, a->atttypid, a->atttypmod, a->attcollation, 0);

	add_row_identity_var(root, var, rtindex, name);
}

void
colfam_add_update_targets(PlannerInfo *root, Index rtindex, RangeTblEntry *target_rte,
						  Relation target_relation)
{
	ColfamTable *t = colfam_get_table(RelationGetRelid(target_relation));

	add_junk(root, rtindex, target_relation, t->key_att, "colfam_key");
	if (t->super_att != InvalidAttrNumber)
		add_junk(root, rtindex, target_relation, t->super_att, "colfam_super");
	if (!t->rows_mapping)
		add_junk(root, rtindex, target_relation, t->name_att, "colfam_name");

	/*
	 * DELETE ... RETURNING needs the deleted row, which the FDW must put in the slot it
	 * returns: have the scan give the whole row, as PostgreSQL itself asks for UPDATE
	 * and for row triggers (then it adds the same Var, so it is not added twice).
	 */
	if (root->parse->commandType == CMD_DELETE && root->parse->returningList != NIL &&
		!(target_relation->trigdesc &&
		  (target_relation->trigdesc->trig_delete_after_row ||
		   target_relation->trigdesc->trig_delete_before_row)))
		add_row_identity_var(root, makeVar(rtindex, InvalidAttrNumber, RECORDOID, -1,
										   InvalidOid, 0),
							 rtindex, "wholerow");
}

/* ---- execution ---- */

/*
 * INSERT ... ON CONFLICT DO NOTHING asks to keep what is stored; a column family's
 * writes always replace it (and 0.7 has no conditional write), so the clause would be
 * silently ignored. (DO UPDATE needs a unique index, which a foreign table has not:
 * PostgreSQL refuses it first.)
 */
static void
refuse_on_conflict(OnConflictAction action, Oid relid)
{
	if (action != ONCONFLICT_NONE)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("ON CONFLICT is not supported on foreign table \"%s\"",
						get_rel_name(relid)),
				 errdetail("A write to a column family replaces the columns it names; "
						   "colfamd has no write that keeps what is stored."),
				 errhint("Leave out ON CONFLICT to replace existing columns, or INSERT only "
						 "the rows a NOT EXISTS subquery finds missing (not atomic).")));
}

List *
colfam_plan_modify(PlannerInfo *root, ModifyTable *plan, Index resultRelation,
				   int subplan_index)
{
	refuse_on_conflict(plan->onConflictAction, planner_rt_fetch(resultRelation, root)->relid);
	return NIL;
}

/*
 * TRUNCATE of foreign tables: each one's column family is truncated in colfamd, once
 * however many of the tables map it. Every table must be truncatable before any CF is
 * touched. Like every write of the FDW it happens at once: ROLLBACK does not undo it.
 */
void
colfam_exec_truncate(List *rels, DropBehavior behavior, bool restart_seqs)
{
	List	   *tables = NIL;
	List	   *done = NIL;
	ListCell   *lc;

	foreach(lc, rels)
	{
		ColfamTable *t = colfam_get_table(RelationGetRelid((Relation) lfirst(lc)));

		if (!t->truncatable)
		{
			bool		own = colfam_option(GetForeignTable(t->relid)->options,
											"truncatable") != NULL;

			ereport(ERROR,
					(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
					 errmsg("foreign table \"%s\" does not allow truncates", t->relname),
					 own ? errdetail("Its option truncatable is false.") :
					 errdetail("Its server \"%s\" has truncatable false.", t->servername),
					 errhint("ALTER FOREIGN TABLE %s OPTIONS (%s truncatable 'true') allows it.",
							 quote_identifier(t->relname), own ? "SET" : "ADD")));
		}
		tables = lappend(tables, t);
	}
	foreach(lc, tables)
	{
		ColfamTable *t = lfirst(lc);
		char	   *id = psprintf("%u/%s/%s", t->serverid, t->keyspace, t->column_family);
		cf_status  *st;

		if (list_member(done, makeString(id)))
			continue;
		done = lappend(done, makeString(id));
		colfam_snapshot_before_write(t);
		st = cfc_truncate(colfam_connect(t->serverid, t->keyspace), t->column_family);
		if (st != NULL)
			colfam_report(st, psprintf("truncating %s.%s", t->keyspace, t->column_family),
						  NULL, 0);
		colfam_xact_truncated();
		ereport(DEBUG1,
				(errmsg_internal("colfam_fdw: truncated %s.%s", t->keyspace,
								 t->column_family)));
	}
}

static int
field_name_cmp(const void *a, const void *b)
{
	const FieldName *x = a;
	const FieldName *y = b;
	int			c = strcmp(x->name, y->name);

	return c != 0 ? c : (int) x->att - (int) y->att;
}

/* bsearch's comparison: by name only */
static int
field_name_key_cmp(const void *a, const void *b)
{
	return strcmp(((const FieldName *) a)->name, ((const FieldName *) b)->name);
}

/*
 * 'rows' mapping: the Cassandra column names of the SQL columns, sorted (an extra
 * member is looked up in them), and for each column the first one naming the same
 * Cassandra column (two SQL columns may read one, e.g. as bigint and as bytea; a row
 * must not write it twice with different values).
 */
static void
field_names(ColfamModifyState *m)
{
	ColfamTable *t = m->table;

	m->fields = palloc(sizeof(FieldName) * Max(t->natts, 1));
	m->same_as = palloc0(sizeof(AttrNumber) * Max(t->natts, 1));
	for (int a = 1; a <= t->natts; a++)
		if (t->cols[a - 1].role == COLFAM_ROLE_FIELD)
		{
			m->fields[m->nfields].name = t->cols[a - 1].name;
			m->fields[m->nfields++].att = a;
		}
	qsort(m->fields, m->nfields, sizeof(FieldName), field_name_cmp);
	for (int i = 1, first = 0; i < m->nfields; i++)
	{
		if (strcmp(m->fields[i].name, m->fields[first].name) != 0)
			first = i;
		else
			m->same_as[m->fields[i].att - 1] = m->fields[first].att;
	}
}

/* The state of writes to rel for the statement of estate: its table, connection, memory. */
static ColfamModifyState *
modify_state_create(EState *estate, Relation rel)
{
	ColfamModifyState *m = palloc0(sizeof(ColfamModifyState));

	m->table = colfam_get_table(RelationGetRelid(rel));
	m->super = colfam_get_cf_meta(m->table)->super;
	m->cl = m->table->write_cl;
	m->conn = colfam_connect(m->table->serverid, m->table->keyspace);
	m->cxt = AllocSetContextCreate(estate->es_query_cxt, "colfam_fdw modify",
								   ALLOCSET_DEFAULT_SIZES);
	if (m->table->rows_mapping)
		field_names(m);
	return m;
}

/*
 * An UPDATE of a 'rows' table writes only the fields of the columns it sets (and of
 * those naming the same Cassandra columns, which must agree with them), so the
 * Cassandra columns it does not touch keep their timestamps and TTLs, and an empty
 * value that reads as NULL stays stored. [attnum - 1] for each column; NULL when the
 * UPDATE rewrites the row whole: it sets extra (the row becomes exactly the SQL row,
 * members it lost included), or a BEFORE ROW trigger may change any column (as
 * postgres_fdw then sends every column). Generated columns count as set.
 */
static bool *
update_writes(ColfamModifyState *m, ResultRelInfo *rinfo, EState *estate)
{
	ColfamTable *t = m->table;
	Bitmapset  *set;
	bool	   *writes;

	if (!t->rows_mapping ||
		(rinfo->ri_TrigDesc && rinfo->ri_TrigDesc->trig_update_before_row))
		return NULL;
	set = bms_union(ExecGetUpdatedCols(rinfo, estate), ExecGetExtraUpdatedCols(rinfo, estate));
	if (t->extra_att != InvalidAttrNumber &&
		bms_is_member(t->extra_att - FirstLowInvalidHeapAttributeNumber, set))
		return NULL;
	writes = palloc0(sizeof(bool) * Max(t->natts, 1));
	/* a set column marks its Cassandra column's first SQL column, then all of them */
	for (int a = 1; a <= t->natts; a++)
		if (bms_is_member(a - FirstLowInvalidHeapAttributeNumber, set))
			writes[(m->same_as[a - 1] != InvalidAttrNumber ? m->same_as[a - 1] : a) - 1] = true;
	for (int a = 1; a <= t->natts; a++)
		if (m->same_as[a - 1] != InvalidAttrNumber)
			writes[a - 1] = writes[m->same_as[a - 1] - 1];
	return writes;
}

void
colfam_begin_modify(ModifyTableState *mtstate, ResultRelInfo *rinfo, List *fdw_private,
					int subplan_index, int eflags)
{
	ColfamModifyState *m;
	Relation	rel = rinfo->ri_RelationDesc;
	CmdType		op = mtstate->operation;

	if (eflags & EXEC_FLAG_EXPLAIN_ONLY)
		return;
	m = modify_state_create(mtstate->ps.state, rel);
	if (op == CMD_UPDATE || op == CMD_DELETE)
	{
		Plan	   *subplan = outerPlanState(mtstate)->plan;

		m->junk_key = ExecFindJunkAttributeInTlist(subplan->targetlist, "colfam_key");
		m->junk_super = ExecFindJunkAttributeInTlist(subplan->targetlist, "colfam_super");
		m->junk_name = ExecFindJunkAttributeInTlist(subplan->targetlist, "colfam_name");
		m->junk_row = ExecFindJunkAttributeInTlist(subplan->targetlist, "wholerow");
		if (!AttributeNumberIsValid(m->junk_key))
			elog(ERROR, "colfam_fdw: the row key of the rows to modify is missing");
		if (op == CMD_UPDATE)
		{
			AttrNumber	wt = m->table->writetime_att;

			m->delete_ts = write_timestamps(1);
			m->sets_writetime = wt != InvalidAttrNumber &&
				bms_is_member(wt - FirstLowInvalidHeapAttributeNumber,
							  ExecGetUpdatedCols(rinfo, mtstate->ps.state));
			m->writes = update_writes(m, rinfo, mtstate->ps.state);
		}
		if (plan_may_repeat_rows(subplan))
		{
			m->seen_cxt = AllocSetContextCreate(mtstate->ps.state->es_query_cxt,
												"colfam_fdw modified rows",
												ALLOCSET_DEFAULT_SIZES);
			m->seen = seen_create(m->seen_cxt, 64, NULL);
		}
	}
	rinfo->ri_FdwState = m;
}

/*
 * Inserts that no INSERT plan of this table set up: COPY FROM into the foreign table,
 * and rows routed into it as a partition (an INSERT into, or an UPDATE that moves
 * rows into, a partitioned table). A partition that the same UPDATE also updates
 * already has its state from BeginForeignModify, which writes inserts as well.
 */
void
colfam_begin_foreign_insert(ModifyTableState *mtstate, ResultRelInfo *rinfo)
{
	ModifyTable *plan = (ModifyTable *) mtstate->ps.plan;	/* NULL for COPY */

	if (plan != NULL)
		refuse_on_conflict(plan->onConflictAction, RelationGetRelid(rinfo->ri_RelationDesc));
	if (rinfo->ri_FdwState == NULL)
		rinfo->ri_FdwState = modify_state_create(mtstate->ps.state, rinfo->ri_RelationDesc);
}

/* The stored bytes of a non-NULL value of attribute att. */
static cf_slice
encode(ColfamModifyState *m, AttrNumber att, Datum d)
{
	StringInfoData buf;
	ColfamValueContext ctx = {0};

	ctx.column = m->table->cols[att - 1].attname;
	initStringInfo(&buf);
	colfam_datum_to_bytes(m->table->cols[att - 1].typid, d, &buf, &ctx);
	return cf_slice_of(buf.data, buf.len);
}

/* Encodes attribute att of slot; ERROR (naming the column) if NULL and required. */
static bool
encode_att(ColfamModifyState *m, TupleTableSlot *slot, AttrNumber att, bool required,
		   cf_slice *out)
{
	ColfamColumn *c = &m->table->cols[att - 1];
	bool		isnull;
	Datum		d = slot_getattr(slot, att, &isnull);

	if (isnull)
	{
		if (required)
			ereport(ERROR,
					(errcode(ERRCODE_NOT_NULL_VIOLATION),
					 errmsg("column \"%s\" of foreign table \"%s\" cannot be NULL",
							c->attname, m->table->relname),
					 c->role == COLFAM_ROLE_VALUE ?
					 errdetail("It holds the value, and the empty value of type %s is '', not NULL.",
							   format_type_be(c->typid)) :
					 errdetail("It holds the %s, which a column family cannot leave empty.",
							   colfam_role_name(c->role)),
					 c->role == COLFAM_ROLE_VALUE ?
					 errhint("Write '' for an empty value, or delete the column.") : 0));
		return false;
	}
	*out = encode(m, att, d);
	return true;
}

/* The bytes of the row to modify's identity column att, from the junk column junk. */
static cf_slice
junk_bytes(ColfamModifyState *m, TupleTableSlot *planSlot, AttrNumber junk, AttrNumber att)
{
	bool		isnull;
	Datum		d = ExecGetJunkAttribute(planSlot, junk, &isnull);

	if (isnull)
		elog(ERROR, "colfam_fdw: the identity of the row to modify is NULL");
	return encode(m, att, d);
}

/* A growing list of mutations for one key and this CF. */
typedef struct RowMut
{
	cf_slice	key;
	cf_t_mutation *muts;
	int			n;
	int			cap;
} RowMut;

static cf_t_mutation *
add_mut(RowMut *r)
{
	if (r->n == r->cap)
	{
		r->cap = r->cap ? r->cap * 2 : 8;
		r->muts = r->muts ? repalloc(r->muts, sizeof(cf_t_mutation) * r->cap)
			: palloc(sizeof(cf_t_mutation) * r->cap);
	}
	memset(&r->muts[r->n], 0, sizeof(cf_t_mutation));
	return &r->muts[r->n++];
}

/* A column insertion, under super (may be NULL). */
static void
add_column(RowMut *r, const cf_slice *super, cf_slice name, cf_slice value, int64 ts,
		   bool has_ttl, int32 ttl)
{
	cf_t_mutation *mu = add_mut(r);

	mu->has_cosc = true;
	if (super != NULL)
	{
		cf_t_column *c = palloc0(sizeof(cf_t_column));

		c->name = name;
		c->value = value;
		c->timestamp = ts;
		c->has_ttl = has_ttl;
		c->ttl = ttl;
		mu->cosc.has_super_column = true;
		mu->cosc.super_column.name = *super;
		mu->cosc.super_column.columns = c;
		mu->cosc.super_column.n_columns = 1;
	}
	else
	{
		mu->cosc.has_column = true;
		mu->cosc.column.name = name;
		mu->cosc.column.value = value;
		mu->cosc.column.timestamp = ts;
		mu->cosc.column.has_ttl = has_ttl;
		mu->cosc.column.ttl = ttl;
	}
}

/* A deletion of one column (name set), a super column, or the whole row. */
static void
add_deletion(RowMut *r, const cf_slice *super, const cf_slice *name, int64 ts)
{
	cf_t_mutation *mu = add_mut(r);

	mu->has_deletion = true;
	mu->deletion.timestamp = ts;
	if (super != NULL)
	{
		mu->deletion.has_super_column = true;
		mu->deletion.super_column = *super;
	}
	if (name != NULL)
	{
		mu->deletion.has_predicate = true;
		mu->deletion.predicate.has_column_names = true;
		mu->deletion.predicate.column_names = palloc(sizeof(cf_slice));
		mu->deletion.predicate.column_names[0] = *name;
		mu->deletion.predicate.n_column_names = 1;
	}
}

/*
 * The column timestamp (µs since 1970) a non-NULL writetime value gives: a bigint as
 * it is, a timestamptz converted. ERROR for a timestamptz that has none (infinity, or
 * beyond what int64 microseconds since 1970 hold) rather than a wrapped number.
 */
static int64
writetime_micros(ColfamTable *t, Datum d)
{
	TimestampTz ts;
	int64		us;

	if (t->cols[t->writetime_att - 1].typid != TIMESTAMPTZOID)
		return DatumGetInt64(d);
	ts = DatumGetTimestampTz(d);
	if (TIMESTAMP_NOT_FINITE(ts) || pg_add_s64_overflow(ts, UNIX_TO_PG_USECS, &us))
		ereport(ERROR,
				(errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
				 errmsg("writetime %s of foreign table \"%s\" is out of range",
						timestamptz_to_str(ts), t->relname),
				 errdetail("A column's timestamp is a count of microseconds since "
						   "1970-01-01 in a bigint.")));
	return us;
}

/*
 * 'rows' mapping: columns w and a of a row name one Cassandra column, which w wrote
 * (has_value, written: its encoded value, or none: a deletion). a may only write the
 * same again: two writes at one timestamp would leave colfamd's tie-break (the greater
 * value, a deletion over a value) to decide.
 */
static void
check_same_write(ColfamModifyState *m, AttrNumber w, AttrNumber a, const bool *has_value,
				 const cf_slice *written)
{
	ColfamTable *t = m->table;
	bool		h1 = has_value[w - 1];
	bool		h2 = has_value[a - 1];

	if (h1 && h2 ? cf_slice_eq(written[w - 1], written[a - 1]) : h1 == h2)
		return;
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("columns \"%s\" and \"%s\" of foreign table \"%s\" write Cassandra column \"%s\" with different values",
					t->cols[w - 1].attname, t->cols[a - 1].attname, t->relname,
					t->cols[a - 1].name),
			 errhint("Give the columns that name one Cassandra column the same value.")));
}

/*
 * 'rows' mapping: member key of the extra column (attribute a) must not name a
 * Cassandra column that a SQL column holds: both would be written, and the row read
 * back would show the SQL column with whichever value colfamd's tie-break kept.
 */
static void
check_extra_member(ColfamModifyState *m, AttrNumber a, cf_slice key)
{
	ColfamTable *t = m->table;
	FieldName	probe = {NULL, 0};
	FieldName  *f;

	if (m->nfields == 0 || memchr(key.p, '\0', key.len) != NULL)
		return;					/* a field's name has no U+0000 */
	probe.name = colfam_copy_bytes(key.p, key.len);
	f = bsearch(&probe, m->fields, m->nfields, sizeof(FieldName), field_name_key_cmp);
	if (f == NULL)
		return;
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("member \"%s\" of column \"%s\" of foreign table \"%s\" names the Cassandra column of column \"%s\"",
					probe.name, t->cols[a - 1].attname, t->relname, t->cols[f->att - 1].attname),
			 errhint("Set column \"%s\" instead: \"%s\" holds only the columns that no other column names.",
					 t->cols[f->att - 1].attname, t->cols[a - 1].attname)));
}

/*
 * The bytes a string of the extra column (attribute a) stands for: "0x" and hex digits
 * are those bytes, any other string its text in UTF-8 (colfam_extra_from_json).
 */
static cf_slice
extra_bytes(ColfamModifyState *m, AttrNumber a, const char *s, int len)
{
	const char *bytes;
	size_t		n;

	if (!colfam_extra_from_json(s, len, &bytes, &n))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
				 errmsg("string \"%s\" of column \"%s\" of foreign table \"%s\" is not 0x and hex digits",
						pnstrdup(s, len), m->table->cols[a - 1].attname, m->table->relname),
				 errdetail("A string that starts with 0x stands for the bytes its hex digits spell, as the column shows names and values that are not UTF-8 text or that start with 0x."),
				 errhint("Write a text that starts with 0x as 0x and the hex of its UTF-8 bytes: \"0x3078\" is \"0x\".")));
	return cf_slice_of(bytes, n);
}

/*
 * The columns a SQL row writes, appended to r, at timestamp ts; in the 'columns'
 * mapping at the row's writetime instead when it has one and own_writetime (an INSERT,
 * or an UPDATE that sets it: the writetime an UPDATE read back from the column is the
 * version it replaces, and writing at it again could lose to that very version).
 * An UPDATE's (update) NULL fields delete their columns, and it writes only the
 * fields m->writes names; an INSERT's NULL fields write nothing.
 */
static void
row_to_mutations(ColfamModifyState *m, TupleTableSlot *slot, RowMut *r, int64 ts,
				 bool update, bool own_writetime)
{
	ColfamTable *t = m->table;
	cf_slice	super,
				name,
				value;
	cf_slice   *sp = NULL;
	cf_slice   *written;
	bool	   *has_value;
	AttrNumber *writer;			/* [first - 1]: the column that wrote its Cassandra column */

	if (t->super_att != InvalidAttrNumber)
	{
		encode_att(m, slot, t->super_att, true, &super);
		sp = &super;
	}
	else if (m->super)
		ereport(ERROR,
				(errcode(ERRCODE_FDW_ERROR),
				 errmsg("foreign table \"%s\" cannot write Super column family \"%s\" without a super_column column",
						t->relname, t->column_family)));

	if (!t->rows_mapping)
	{
		bool		isnull;
		bool		has_ttl = false;
		int64		col_ts = ts;
		int32		ttl = 0;

		encode_att(m, slot, t->name_att, true, &name);
		/* NULL is the empty value where that reads as NULL (colfam_empty_is_null) */
		if (t->value_att == InvalidAttrNumber ||
			!encode_att(m, slot, t->value_att,
						!colfam_empty_is_null(t->cols[t->value_att - 1].typid), &value))
			value = cf_slice_of("", 0);
		if (t->ttl_att != InvalidAttrNumber)
		{
			Datum		d = slot_getattr(slot, t->ttl_att, &isnull);

			if (!isnull)
			{
				int64		v = t->cols[t->ttl_att - 1].typid == INT8OID ? DatumGetInt64(d)
					: DatumGetInt32(d);

				if (v <= 0 || v > PG_INT32_MAX)
					ereport(ERROR,
							(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
							 errmsg("ttl %lld is out of range", (long long) v),
							 errhint("A ttl is a positive number of seconds.")));
				has_ttl = true;
				ttl = (int32) v;
			}
		}
		if (t->writetime_att != InvalidAttrNumber && own_writetime)
		{
			Datum		d = slot_getattr(slot, t->writetime_att, &isnull);

			if (!isnull)
				col_ts = writetime_micros(t, d);
		}
		add_column(r, sp, name, value, col_ts, has_ttl, ttl);
		return;
	}

	written = palloc(sizeof(cf_slice) * Max(t->natts, 1));
	has_value = palloc(sizeof(bool) * Max(t->natts, 1));
	writer = palloc0(sizeof(AttrNumber) * Max(t->natts, 1));
	for (int a = 1; a <= t->natts; a++)
	{
		ColfamColumn *c = &t->cols[a - 1];

		if (update && m->writes != NULL && !m->writes[a - 1])
			continue;			/* an UPDATE that leaves it (and extra: not set) */
		if (c->role == COLFAM_ROLE_FIELD)
		{
			AttrNumber	first = m->same_as[a - 1];

			if (first == InvalidAttrNumber)
				first = a;
			name = cf_slice_str(c->name);
			has_value[a - 1] = encode_att(m, slot, a, false, &written[a - 1]);
			if (!has_value[a - 1] && !update)
				continue;		/* writes nothing */
			if (writer[first - 1] != InvalidAttrNumber)
			{
				/* the Cassandra column is written already: only again as it is */
				check_same_write(m, writer[first - 1], a, has_value, written);
				continue;
			}
			writer[first - 1] = a;
			if (has_value[a - 1])
				add_column(r, sp, name, written[a - 1], ts, false, 0);
			else
				add_deletion(r, sp, &name, ts);
		}
		else if (c->role == COLFAM_ROLE_EXTRA)
		{
			bool		isnull;
			Datum		d = slot_getattr(slot, a, &isnull);
			Jsonb	   *jb;
			JsonbIterator *it;
			JsonbValue	v;
			JsonbIteratorToken tok;
			cf_slice	key = {0};

			if (isnull)
				continue;
			jb = DatumGetJsonbP(d);
			if (!JB_ROOT_IS_OBJECT(jb))
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("column \"%s\" of foreign table \"%s\" must be a JSON object",
								c->attname, t->relname),
						 errhint("Each member is one Cassandra column: {\"name\": \"value\"}.")));
			it = JsonbIteratorInit(&jb->root);
			while ((tok = JsonbIteratorNext(&it, &v, true)) != WJB_DONE)
			{
				/* skipNested: a KEY, then its VALUE, for each member */
				if (tok == WJB_KEY)
				{
					key = extra_bytes(m, a, v.val.string.val, v.val.string.len);
					check_extra_member(m, a, key);
				}
				else if (tok == WJB_VALUE && v.type == jbvString)
					add_column(r, sp, key,
							   extra_bytes(m, a, v.val.string.val, v.val.string.len),
							   ts, false, 0);
				else if (tok == WJB_VALUE && v.type != jbvNull)
				{
					/* its JSON text, which never starts with 0x */
					char	   *json = JsonbToCString(NULL, &JsonbValueToJsonb(&v)->root, 0);

					add_column(r, sp, key, extra_bytes(m, a, json, (int) strlen(json)),
							   ts, false, 0);
				}
			}
		}
	}
}

/*
 * A foreign table that is a partition holds only rows of its partition: PostgreSQL's
 * INSERT and UPDATE check the bound of their own partitions but leave a foreign one's
 * to the FDW, and a row outside it would be pruned from every query through the
 * partitioned table.
 * Rows routed to the partition were checked by the routing (unless a BEFORE ROW
 * trigger changed them since); an UPDATE that takes a row out of the bound is an
 * ERROR, as PostgreSQL cannot move a row out of a foreign partition.
 */
static void
check_partition(EState *estate, ResultRelInfo *rinfo, TupleTableSlot *slot, bool update)
{
	if (!rinfo->ri_RelationDesc->rd_rel->relispartition)
		return;
	if (!update && rinfo->ri_RootResultRelInfo != NULL &&
		!(rinfo->ri_TrigDesc && rinfo->ri_TrigDesc->trig_insert_before_row))
		return;
	if (!ExecPartitionCheck(rinfo, slot, estate, false))
		ereport(ERROR,
				(errcode(ERRCODE_CHECK_VIOLATION),
				 errmsg("new row for foreign table \"%s\" violates its partition constraint",
						RelationGetRelationName(rinfo->ri_RelationDesc)),
				 update ?
				 errhint("A row cannot move out of a foreign partition: DELETE it and INSERT "
						 "it into the partitioned table.") :
				 errhint("INSERT the row into the partitioned table, which routes it to its "
						 "partition.")));
}

/*
 * The WITH CHECK OPTIONs of the views a row is written through, checked before the row
 * is written: PostgreSQL checks them after the FDW's write and leaves a row that fails
 * to the transaction's rollback, which does not undo a column family's write.
 */
static void
check_view_options(EState *estate, ResultRelInfo *rinfo, TupleTableSlot *slot)
{
	if (rinfo->ri_WithCheckOptions != NIL)
		ExecWithCheckOptions(WCO_VIEW_CHECK, rinfo, slot, estate);
}

/*
 * A row's writetime column, when the row does not give the timestamp it is written
 * at, becomes that timestamp before it is written: its views' check options,
 * RETURNING and AFTER ROW triggers see the row as stored. (Nobody else sees the slot:
 * skipped when none of them is there.)
 */
static void
show_writetime(ResultRelInfo *rinfo, TupleTableSlot *slot, int64 ts)
{
	ColfamModifyState *m = rinfo->ri_FdwState;
	AttrNumber	att = m->table->writetime_att;
	TupleDesc	desc = slot->tts_tupleDescriptor;
	Datum	   *values;
	bool	   *nulls;

	if (rinfo->ri_projectReturning == NULL && rinfo->ri_TrigDesc == NULL &&
		rinfo->ri_WithCheckOptions == NIL)
		return;
	slot_getallattrs(slot);
	values = palloc(sizeof(Datum) * desc->natts);
	nulls = palloc(sizeof(bool) * desc->natts);
	memcpy(values, slot->tts_values, sizeof(Datum) * desc->natts);
	memcpy(nulls, slot->tts_isnull, sizeof(bool) * desc->natts);
	values[att - 1] = m->table->cols[att - 1].typid == TIMESTAMPTZOID ?
		TimestampTzGetDatum(ts - UNIX_TO_PG_USECS) : Int64GetDatum(ts);
	nulls[att - 1] = false;
	/*
	 * Formed before the slot lets go of the tuple its values point into. The arrays
	 * are freed: this runs in the statement's memory, once a row.
	 */
	ExecForceStoreHeapTuple(heap_form_tuple(desc, values, nulls), slot, true);
	pfree(values);
	pfree(nulls);
}

/*
 * What the statement wrote before a batch that fails, for an ERROR's detail: palloc'd
 * words ("the statement wrote nothing before it"). xact.c counts the top-level
 * statement's rows, whatever table (a partitioned table's foreign partitions) or
 * function wrote them.
 */
static char *
written_before(void)
{
	int64		n = colfam_xact_statement_rows();

	if (n == 0)
		return pstrdup("the statement wrote nothing before it");
	return psprintf("the %lld row%s the statement wrote before it stay%s written",
					(long long) n, n == 1 ? "" : "s", n == 1 ? "s" : "");
}

/*
 * ERROR unless name, a row key or the column name or super column name (`what`) that
 * row in_row writes or removes (NULL for a key), in a batch of sql_rows SQL rows, is 1
 * to 65535 bytes: colfamd refuses the whole batch otherwise, and no row has such a
 * name. Raised before the batch is sent, so none of it is written; the detail says
 * what the statement wrote before.
 */
static void
check_name(ColfamModifyState *m, const char *what, cf_slice name, const RowMut *in_row,
		   int sql_rows)
{
	const char *where = "";

	if (colfam_name_len_ok(name.len))
		return;
	if (in_row != NULL)
		where = psprintf(" in row %s",
						 colfam_quote_key((const char *) in_row->key.p, in_row->key.len));
	ereport(ERROR,
			(errcode(name.len == 0 ? ERRCODE_ZERO_LENGTH_CHARACTER_STRING
					 : ERRCODE_STRING_DATA_RIGHT_TRUNCATION),
			 name.len == 0 ?
			 errmsg("empty %s%s of foreign table \"%s\"", what, where, m->table->relname)
			 : errmsg("%s of %zu bytes%s of foreign table \"%s\"", what, name.len, where,
					  m->table->relname),
			 errdetail("A row key, column name or super column name is 1 to %d bytes in Cassandra. Nothing of %s was sent; %s.",
					   COLFAM_NAME_BYTES_MAX,
					   sql_rows > 1 ? psprintf("its batch of %d rows", sql_rows) : "the row",
					   written_before())));
}

/* check_name of every key and name the n row mutations of rows write or remove. */
static void
check_names(ColfamModifyState *m, const RowMut *rows, int n, int sql_rows)
{
	for (int i = 0; i < n; i++)
	{
		const RowMut *r = &rows[i];

		check_name(m, "row key", r->key, NULL, sql_rows);
		for (int j = 0; j < r->n; j++)
		{
			const cf_t_mutation *mu = &r->muts[j];

			if (mu->has_cosc && mu->cosc.has_column)
				check_name(m, "column name", mu->cosc.column.name, r, sql_rows);
			if (mu->has_cosc && mu->cosc.has_super_column)
			{
				check_name(m, "super column name", mu->cosc.super_column.name, r, sql_rows);
				for (size_t c = 0; c < mu->cosc.super_column.n_columns; c++)
					check_name(m, "column name", mu->cosc.super_column.columns[c].name, r,
							   sql_rows);
			}
			if (mu->has_deletion && mu->deletion.has_super_column)
				check_name(m, "super column name", mu->deletion.super_column, r, sql_rows);
			if (mu->has_deletion && mu->deletion.has_predicate)
				for (size_t c = 0; c < mu->deletion.predicate.n_column_names; c++)
					check_name(m, "column name", mu->deletion.predicate.column_names[c], r,
							   sql_rows);
		}
	}
}

/*
 * Sends the n row mutations of rows, which write sql_rows SQL rows (an UPDATE that
 * moves a column to another key is two mutations of one row), as one batch_mutate;
 * ERROR if a name is out of bounds (nothing sent) or colfamd fails, saying what the
 * statement wrote before. xact.c counts the rows once colfamd has acknowledged them.
 */
static void
send_batch(ColfamModifyState *m, RowMut *rows, int n, int sql_rows)
{
	cf_t_key_mutations *map = palloc0(sizeof(cf_t_key_mutations) * Max(n, 1));
	cf_t_cf_mutations *cfs = palloc0(sizeof(cf_t_cf_mutations) * Max(n, 1));
	cf_status  *st;

	check_names(m, rows, n, sql_rows);
	colfam_snapshot_before_write(m->table);
	for (int i = 0; i < n; i++)
	{
		cfs[i].column_family = cf_slice_str(m->table->column_family);
		cfs[i].mutations = rows[i].muts;
		cfs[i].n_mutations = rows[i].n;
		map[i].key = rows[i].key;
		map[i].cfs = &cfs[i];
		map[i].n_cfs = 1;
	}
	st = cfc_batch_mutate(m->conn, map, n, m->cl);
	if (st != NULL)
		colfam_report(st, psprintf("writing %s.%s%s; %s", m->table->keyspace,
								   m->table->column_family,
								   sql_rows > 1 ? psprintf(", a batch of %d rows", sql_rows) : "",
								   written_before()),
					  n == 1 ? (const char *) rows[0].key.p : NULL, n == 1 ? rows[0].key.len : 0);
	colfam_xact_rows_written(sql_rows);
}

/*
 * 'rows' mapping: an INSERTed row r that writes no column (every column but the key
 * and super column NULL, no extra member) would store nothing, since a Cassandra row
 * exists only through its columns: refused, rather than counted as inserted and then
 * never read back. (Raised before its batch is sent: no row of the batch is written.)
 */
static void
pg_attribute_noreturn()
empty_row(ColfamModifyState *m, const RowMut *r)
{
	ColfamTable *t = m->table;

	ereport(ERROR,
			(errcode(ERRCODE_NOT_NULL_VIOLATION),
			 errmsg("row %s of foreign table \"%s\" has no column to store",
					colfam_quote_key((const char *) r->key.p, r->key.len), t->relname),
			 errdetail("Its columns but the key%s are NULL (or an extra without a member that has a value), and a Cassandra row exists only through its columns: nothing would be stored.",
					   t->super_att != InvalidAttrNumber ? " and the super column" : ""),
			 errhint("Give at least one column of the row a value, or leave the row out.")));
}

TupleTableSlot **
colfam_exec_batch_insert(EState *estate, ResultRelInfo *rinfo, TupleTableSlot **slots,
						 TupleTableSlot **planSlots, int *numSlots)
{
	ColfamModifyState *m = rinfo->ri_FdwState;
	MemoryContext old;
	RowMut	   *rows;
	int64		ts = write_timestamps(*numSlots);

	/* a timestamp per row: of two rows writing one column, the later one wins */
	for (int i = 0; i < *numSlots; i++)
	{
		bool		isnull;

		check_partition(estate, rinfo, slots[i], false);
		if (m->table->writetime_att != InvalidAttrNumber &&
			(slot_getattr(slots[i], m->table->writetime_att, &isnull), isnull))
			show_writetime(rinfo, slots[i], ts + i);
		check_view_options(estate, rinfo, slots[i]);
	}
	old = MemoryContextSwitchTo(m->cxt);
	rows = palloc0(sizeof(RowMut) * Max(*numSlots, 1));
	for (int i = 0; i < *numSlots; i++)
	{
		encode_att(m, slots[i], m->table->key_att, true, &rows[i].key);
		row_to_mutations(m, slots[i], &rows[i], ts + i, false, true);
		if (rows[i].n == 0)
			empty_row(m, &rows[i]);
	}
	send_batch(m, rows, *numSlots, *numSlots);
	MemoryContextSwitchTo(old);
	MemoryContextReset(m->cxt);
	return slots;
}

TupleTableSlot *
colfam_exec_insert(EState *estate, ResultRelInfo *rinfo, TupleTableSlot *slot,
				   TupleTableSlot *planSlot)
{
	int			one = 1;

	return *colfam_exec_batch_insert(estate, rinfo, &slot, &planSlot, &one);
}

int
colfam_batch_size(ResultRelInfo *rinfo)
{
	/* RETURNING and row triggers need each row back at once */
	if (rinfo->ri_projectReturning != NULL ||
		(rinfo->ri_TrigDesc && rinfo->ri_TrigDesc->trig_insert_after_row))
		return 1;
	return COLFAM_INSERT_BATCH;
}

/* The identity (key, super column, column name) of the row a plan slot names. */
static void
old_identity(ColfamModifyState *m, TupleTableSlot *planSlot, RowMut *r, cf_slice *super,
			 bool *has_super, cf_slice *name)
{
	ColfamTable *t = m->table;

	r->key = junk_bytes(m, planSlot, m->junk_key, t->key_att);
	*has_super = AttributeNumberIsValid(m->junk_super);
	if (*has_super)
		*super = junk_bytes(m, planSlot, m->junk_super, t->super_att);
	if (!t->rows_mapping)
		*name = junk_bytes(m, planSlot, m->junk_name, t->name_att);
}

/*
 * Was the row with this identity already updated or deleted by the statement (a
 * join gave it again)? Remembers it otherwise. The identity is the length-prefixed
 * key, super column (if any) and column name ('columns' mapping).
 */
static bool
already_done(ColfamModifyState *m, const RowMut *r, bool has_super, const cf_slice *super,
			 const cf_slice *name)
{
	cf_slice	parts[3];
	int			n = 0;
	StringInfoData buf;
	bool		found;
	MemoryContext old;

	if (m->seen == NULL)
		return false;
	old = MemoryContextSwitchTo(m->seen_cxt);

	parts[n++] = r->key;
	if (has_super)
		parts[n++] = *super;
	if (!m->table->rows_mapping)
		parts[n++] = *name;
	initStringInfo(&buf);
	appendStringInfoSpaces(&buf, VARHDRSZ);
	for (int i = 0; i < n; i++)
	{
		uint32		len = (uint32) parts[i].len;

		appendBinaryStringInfo(&buf, (const char *) &len, sizeof(len));
		appendBinaryStringInfo(&buf, (const char *) parts[i].p, parts[i].len);
	}
	SET_VARSIZE(buf.data, buf.len);
	seen_insert(m->seen, (bytea *) buf.data, &found);
	if (found)
		pfree(buf.data);
	MemoryContextSwitchTo(old);
	return found;
}

/* The row a DELETE removed, as its scan read it, into slot (for RETURNING). */
static void
deleted_row(ColfamModifyState *m, TupleTableSlot *planSlot, TupleTableSlot *slot)
{
	HeapTupleData tuple;
	bool		isnull;
	Datum		d;

	if (!AttributeNumberIsValid(m->junk_row))
		elog(ERROR, "colfam_fdw: the deleted row for RETURNING is missing");
	d = ExecGetJunkAttribute(planSlot, m->junk_row, &isnull);
	if (isnull)
		elog(ERROR, "colfam_fdw: the deleted row for RETURNING is NULL");
	tuple.t_data = DatumGetHeapTupleHeader(d);
	tuple.t_len = HeapTupleHeaderGetDatumLength(tuple.t_data);
	ItemPointerSetInvalid(&tuple.t_self);
	tuple.t_tableOid = m->table->relid;
	/* a copy the slot owns: the slot keeps the HeapTuple itself, not just its data */
	ExecForceStoreHeapTuple(heap_copytuple(&tuple), slot, true);
}

TupleTableSlot *
colfam_exec_delete(EState *estate, ResultRelInfo *rinfo, TupleTableSlot *slot,
				   TupleTableSlot *planSlot)
{
	ColfamModifyState *m = rinfo->ri_FdwState;
	MemoryContext old = MemoryContextSwitchTo(m->cxt);
	RowMut		r = {0};
	cf_slice	super,
				name;
	bool		has_super;

	old_identity(m, planSlot, &r, &super, &has_super, &name);
	if (already_done(m, &r, has_super, &super, &name))
	{
		MemoryContextSwitchTo(old);
		MemoryContextReset(m->cxt);
		return NULL;
	}
	add_deletion(&r, has_super ? &super : NULL, m->table->rows_mapping ? NULL : &name,
				 write_timestamps(1));
	send_batch(m, &r, 1, 1);
	MemoryContextSwitchTo(old);
	MemoryContextReset(m->cxt);
	if (rinfo->ri_projectReturning != NULL)
		deleted_row(m, planSlot, slot);
	return slot;
}

TupleTableSlot *
colfam_exec_update(EState *estate, ResultRelInfo *rinfo, TupleTableSlot *slot,
				   TupleTableSlot *planSlot)
{
	ColfamModifyState *m = rinfo->ri_FdwState;
	ColfamTable *t = m->table;
	MemoryContext old = MemoryContextSwitchTo(m->cxt);
	RowMut		oldrow = {0};
	RowMut		newrow = {0};
	cf_slice	super,
				name,
				nsuper = {0},
				nname = {0};
	bool		has_super;
	bool		moved;
	int64		ts = write_timestamps(1);

	old_identity(m, planSlot, &oldrow, &super, &has_super, &name);
	if (already_done(m, &oldrow, has_super, &super, &name))
	{
		MemoryContextSwitchTo(old);
		MemoryContextReset(m->cxt);
		return NULL;
	}
	check_partition(estate, rinfo, slot, true);
	if (t->writetime_att != InvalidAttrNumber && !m->sets_writetime)
	{
		MemoryContextSwitchTo(old);
		show_writetime(rinfo, slot, ts);
		MemoryContextSwitchTo(m->cxt);
	}
	check_view_options(estate, rinfo, slot);
	encode_att(m, slot, t->key_att, true, &newrow.key);
	if (has_super)
		encode_att(m, slot, t->super_att, true, &nsuper);
	if (!t->rows_mapping)
		encode_att(m, slot, t->name_att, true, &nname);
	moved = !cf_slice_eq(oldrow.key, newrow.key) ||
		(has_super && !cf_slice_eq(super, nsuper)) ||
		(!t->rows_mapping && !cf_slice_eq(name, nname));
	if (moved && t->rows_mapping)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("cannot change the key or super column of a row of foreign table \"%s\"",
						t->relname),
				 errhint("INSERT the row under its new key and DELETE the old one.")));
	/*
	 * 'rows' with an extra column, rewritten whole (update_writes): the SQL row holds
	 * every column of the row, so the row becomes exactly it; extra members it no
	 * longer has go with the old row
	 */
	if (t->rows_mapping && t->extra_att != InvalidAttrNumber && m->writes == NULL)
		add_deletion(&newrow, has_super ? &super : NULL, NULL, m->delete_ts);
	row_to_mutations(m, slot, &newrow, ts, true, m->sets_writetime);
	if (!moved)
	{
		if (newrow.n > 0)		/* none if it sets only the key or super column, unchanged */
			send_batch(m, &newrow, 1, 1);
	}
	else if (cf_slice_eq(oldrow.key, newrow.key))
	{
		/* one row mutation: the old column out (older timestamp), the new one in */
		add_deletion(&newrow, has_super ? &super : NULL, &name, m->delete_ts);
		send_batch(m, &newrow, 1, 1);
	}
	else
	{
		RowMut		both[2];

		add_deletion(&oldrow, has_super ? &super : NULL, &name, m->delete_ts);
		both[0] = oldrow;
		both[1] = newrow;
		send_batch(m, both, 2, 1);
	}
	MemoryContextSwitchTo(old);
	MemoryContextReset(m->cxt);
	return slot;
}

void
colfam_end_modify(EState *estate, ResultRelInfo *rinfo)
{
}
