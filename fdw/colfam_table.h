/*-------------------------------------------------------------------------
 * fdw/colfam_table.h — what the planner knows of a foreign table, and the scan it
 * sends to colfamd.
 *
 *  ColfamTable   the table's options and column roles, read from the catalogs
 *                (table.c) — everything SQL says about the mapping.
 *  ColfamCfMeta  the column family as colfamd describes it (comparators, Super or
 *                Standard, indexed columns, the cluster's partitioner) — fetched by
 *                connection.c and cached per backend.
 *  ColfamScanSpec the request a ForeignScan sends: which rows (keys, a key or token
 *                range, an index lookup, or all), which columns (a slice predicate
 *                by names or by range, reversed or not), the first page's count and
 *                the page size. plan.c builds it; scan.c executes it. It travels in
 *                ForeignScan.fdw_private as a List (colfam_spec_to_list/from_list);
 *                the values it compares against (constants, parameters, outer
 *                values of a join) are the plan's fdw_exprs, evaluated by the executor
 *                at each (re)scan.
 *
 * Correctness rule of the pushdown (DESIGN.md): a pushed condition only narrows what
 * colfamd returns to a superset of the rows SQL wants. Every pushed condition that is
 * not exactly equal to its SQL meaning stays in the plan's local quals and is
 * rechecked; a LIMIT only sizes the first page, never ends the scan.
 *-------------------------------------------------------------------------
 */
#ifndef COLFAM_TABLE_H
#define COLFAM_TABLE_H

#include "postgres.h"

#include "access/attnum.h"
#include "commands/explain.h"
#include "foreign/fdwapi.h"
#include "nodes/execnodes.h"
#include "nodes/parsenodes.h"
#include "nodes/pathnodes.h"
#include "nodes/pg_list.h"
#include "nodes/plannodes.h"
#include "utils/relcache.h"

/* Costs of a request to colfamd on top of Postgres's own per-tuple costs (plan.c, join.c) */
#define COLFAM_ROUNDTRIP_COST 20.0	/* one request/response on a local network */
#define COLFAM_TUPLE_COST 0.02	/* transfer and decode of one column or row */

/* The role of a SQL column of a foreign table (option `role`, or its name by default). */
typedef enum ColfamRole
{
	COLFAM_ROLE_NONE = 0,		/* dropped attribute */
	COLFAM_ROLE_KEY,			/* the row key */
	COLFAM_ROLE_SUPER,			/* the super column's name (Super CFs) */
	COLFAM_ROLE_NAME,			/* 'columns' mapping: the column's name */
	COLFAM_ROLE_VALUE,			/* 'columns' mapping: the column's value */
	COLFAM_ROLE_WRITETIME,		/* 'columns' mapping: the column's timestamp (µs) */
	COLFAM_ROLE_TTL,			/* 'columns' mapping: the column's ttl (s), NULL if none */
	COLFAM_ROLE_EXTRA,			/* 'rows' mapping: jsonb of the columns no SQL column names */
	COLFAM_ROLE_FIELD			/* 'rows' mapping: the Cassandra column `name` */
} ColfamRole;

typedef struct ColfamColumn
{
	ColfamRole	role;
	char	   *attname;
	char	   *name;			/* FIELD: the Cassandra column name; else NULL */
	Oid			typid;
	int32		typmod;
	Oid			collid;
} ColfamColumn;

typedef struct ColfamTable
{
	Oid			relid;
	char	   *relname;
	Oid			serverid;
	char	   *servername;
	char	   *keyspace;		/* table option, else the server's */
	char	   *column_family;	/* table option, else the table's name */
	bool		rows_mapping;	/* mapping 'rows' */
	char	   *read_consistency;	/* "ONE", ... */
	char	   *write_consistency;
	int			read_cl;		/* their Thrift values */
	int			write_cl;
	int			fetch_size;
	bool		truncatable;	/* TRUNCATE may empty its CF (table option, else server's) */
	int			natts;
	ColfamColumn *cols;			/* [attnum - 1] */
	/* the attribute of each single role; InvalidAttrNumber if the table has none */
	AttrNumber	key_att;
	AttrNumber	super_att;
	AttrNumber	name_att;
	AttrNumber	value_att;
	AttrNumber	writetime_att;
	AttrNumber	ttl_att;
	AttrNumber	extra_att;
} ColfamTable;

/* A column of the CF's column_metadata. */
typedef struct ColfamColumnMeta
{
	char	   *name;			/* raw bytes as a C string is wrong for binary: len kept */
	int			name_len;
	char	   *validation_class;
	bool		indexed;
} ColfamColumnMeta;

typedef struct ColfamCfMeta
{
	bool		super;
	char	   *comparator;		/* short class name: "UTF8Type" */
	char	   *subcomparator;	/* Super CFs; else NULL */
	char	   *default_validation_class;
	int			ncolumns;
	ColfamColumnMeta *columns;
	char	   *partitioner;	/* short class name: "RandomPartitioner" */
} ColfamCfMeta;

/* Which rows a scan asks for. */
typedef enum ColfamScanKind
{
	COLFAM_SCAN_ALL = 0,		/* get_range_slices over the whole ring */
	COLFAM_SCAN_KEYS,			/* get_slice / multiget_slice of the KEY values */
	COLFAM_SCAN_KEY_RANGE,		/* get_range_slices by keys (order-preserving partitioners) */
	COLFAM_SCAN_TOKEN_RANGE,	/* get_range_slices by tokens (RandomPartitioner) */
	COLFAM_SCAN_INDEX			/* get_indexed_slices on INDEX_EQ values */
} ColfamScanKind;

/*
 * What one fdw_exprs entry means. Every value is converted to bytes with the SQL
 * type of the column it is compared with (convert.c), under the comparator or key
 * encoding; an ARRAY value (= ANY) contributes each non-NULL element. A NULL value
 * matches nothing (SQL's = and < are never true against NULL).
 *
 * A value that cannot be encoded (e.g. 1.5 for an IntegerType name) cannot equal
 * any stored name or key: an equality value is then dropped (it matches nothing); a
 * bound is dropped (the range is widened, the local recheck filters).
 */
typedef enum ColfamValueRole
{
	COLFAM_V_KEY = 0,			/* key = v (KEYS) */
	COLFAM_V_KEY_LO,			/* key >= v (KEY_RANGE start, inclusive) */
	COLFAM_V_KEY_HI,			/* key <= v (KEY_RANGE end, inclusive) */
	COLFAM_V_TOKEN_LO,			/* token(key) >= v (inclusive: send v - 1 as start_token) */
	COLFAM_V_TOKEN_LO_EXCL,		/* token(key) > v (start_token v) */
	COLFAM_V_TOKEN_HI,			/* token(key) <= v (end_token v) */
	COLFAM_V_SLICE_EQ,			/* slice name = v (names predicate) */
	COLFAM_V_SLICE_LO,			/* slice name >= v (SliceRange bound, inclusive) */
	COLFAM_V_SLICE_HI,			/* slice name <= v */
	COLFAM_V_SUPER,				/* ColumnParent.super_column = v (a single value) */
	COLFAM_V_INDEX_EQ			/* IndexExpression column EQ v */
} ColfamValueRole;

typedef struct ColfamValue
{
	ColfamValueRole role;
	bool		is_array;		/* the expr is an array: each element is a value */
	Oid			typid;			/* SQL type to encode from (the column's, or the element's) */
	AttrNumber	attnum;			/* the column the value is compared with */
	char	   *index_column;	/* INDEX_EQ: the Cassandra column name */
} ColfamValue;

typedef struct ColfamScanSpec
{
	char	   *keyspace;
	char	   *column_family;
	bool		rows_mapping;
	bool		super;			/* the CF is a Super CF */
	ColfamScanKind kind;
	List	   *values;			/* ColfamValue *, parallel to the plan's fdw_exprs */

	/*
	 * The slice predicate. It selects super columns when slice_supers (a Super CF
	 * whose super column is not a single SUPER value), else columns (of the SUPER
	 * value's super column in a Super CF). With SLICE_EQ values it is a names
	 * predicate; else a SliceRange between the SLICE_LO and SLICE_HI values (empty =
	 * open) — a bound list holding several values keeps the tightest at run time.
	 */
	bool		slice_supers;
	bool		reversed;		/* walk down: ORDER BY ... DESC pushed */
	bool		snapshot;		/* read every row before the statement writes the CF
								 * (snapshot.c, scan.c) */
	/*
	 * Page sizes. A slice of one row (KEYS) asks first_count columns first, then
	 * fetch_size at a time after the last name returned. A range or index scan asks
	 * first_count rows first, then fetch_size rows after the last key; each row's
	 * slice asks at most 100 columns (scan.c's COLFAM_ROW_COLUMNS) and a row with more
	 * continues with get_slice. A range scan's pages also keep to about fetch_size x
	 * 20 columns (COLFAM_PAGE_COLUMNS): fewer rows a page once its rows are wide.
	 * first_count is a LIMIT's size when the LIMIT bounds this scan's output in this
	 * order; the scan goes on fetching when Postgres wants more rows (local filters,
	 * joins that drop rows), so a LIMIT never ends it early.
	 */
	int			first_count;
	int			fetch_size;
	bool		fetch_all;		/* 'rows' mapping: every column (else fetch_names only) */
	List	   *fetch_names;	/* 'rows' mapping, !fetch_all: String names to fetch;
								 * NIL: none, the scan only needs to know a row exists */
	bool		decode_all;		/* every attribute is made (else decode_atts only) */
	List	   *decode_atts;	/* !decode_all: Integer attribute numbers the query
								 * reads; the others stay NULL, never decoded */
	char	   *consistency;
	List	   *explain;		/* String lines for EXPLAIN */
} ColfamScanSpec;

/* in table.c */
extern ColfamTable *colfam_get_table(Oid relid);
extern const char *colfam_role_name(ColfamRole role);
extern char *colfam_option(List *options, const char *name);

/* in connection.c */
struct cfc_conn;
struct cf_status;
extern ColfamCfMeta *colfam_get_cf_meta(ColfamTable *table);
extern struct cfc_conn *colfam_connect(Oid serverid, const char *keyspace);
extern void colfam_report(struct cf_status *st, const char *what, const char *key,
						  size_t key_len) pg_attribute_noreturn();
extern int	colfam_keyspace_cfs(Oid serverid, const char *keyspace, char ***names,
								ColfamCfMeta **cfs);
extern bool colfam_cf_estimate(const ColfamTable *t, double *keys, double *columns);
extern bool colfam_conn_chainless(const struct cfc_conn *conn);
extern void colfam_conn_set_chainless(const struct cfc_conn *conn);

/* in import.c */
extern List *colfam_import_schema(ImportForeignSchemaStmt *stmt, Oid serverOid);

/* in modify.c */
extern void colfam_add_update_targets(PlannerInfo *root, Index rtindex,
									  RangeTblEntry *target_rte, Relation target_relation);
extern List *colfam_plan_modify(PlannerInfo *root, ModifyTable *plan, Index resultRelation,
								int subplan_index);
extern void colfam_exec_truncate(List *rels, DropBehavior behavior, bool restart_seqs);
extern void colfam_begin_modify(ModifyTableState *mtstate, ResultRelInfo *rinfo,
								List *fdw_private, int subplan_index, int eflags);
extern TupleTableSlot *colfam_exec_insert(EState *estate, ResultRelInfo *rinfo,
										  TupleTableSlot *slot, TupleTableSlot *planSlot);
extern TupleTableSlot **colfam_exec_batch_insert(EState *estate, ResultRelInfo *rinfo,
												 TupleTableSlot **slots,
												 TupleTableSlot **planSlots, int *numSlots);
extern int	colfam_batch_size(ResultRelInfo *rinfo);
extern TupleTableSlot *colfam_exec_update(EState *estate, ResultRelInfo *rinfo,
										  TupleTableSlot *slot, TupleTableSlot *planSlot);
extern TupleTableSlot *colfam_exec_delete(EState *estate, ResultRelInfo *rinfo,
										  TupleTableSlot *slot, TupleTableSlot *planSlot);
extern void colfam_end_modify(EState *estate, ResultRelInfo *rinfo);
extern void colfam_begin_foreign_insert(ModifyTableState *mtstate, ResultRelInfo *rinfo);

/* in scan.c */
typedef struct ColfamScanState ColfamScanState;
extern void colfam_begin_scan(ForeignScanState *node, int eflags);
extern TupleTableSlot *colfam_iterate_scan(ForeignScanState *node);
extern void colfam_rescan(ForeignScanState *node);
extern void colfam_end_scan(ForeignScanState *node);
extern ColfamScanState *colfam_scan_begin(ColfamScanSpec *spec, ColfamTable *table,
										  MemoryContext cxt);
extern bool colfam_scan_next(ColfamScanState *s, TupleTableSlot *slot);
struct cf_slice;
extern bool colfam_encode_value(Oid typid, Datum d, struct cf_slice *out);
extern void colfam_scan_lookup(ColfamScanState *s, const struct cf_slice *keys, int n);
extern struct cf_slice colfam_scan_row_key(ColfamScanState *s);
typedef struct ColfamParallelScan ColfamParallelScan;
extern void colfam_scan_set_parallel(ColfamScanState *s, ColfamParallelScan *ps);
/* chains (join.c): a scan's first request and its joins' first lookups in one */
struct cf_t_column_parent;
struct cf_t_slice_predicate;
struct cf_t_key_slice;
extern bool colfam_scan_chain_first(ColfamScanState *s, ExprContext *econtext,
									struct cfc_conn **conn, const struct cf_slice **keys,
									size_t *n_keys, struct cf_t_column_parent *parent,
									struct cf_t_slice_predicate *pred);
extern void colfam_scan_lookup_request(ColfamScanState *s, struct cfc_conn **conn,
									   struct cf_t_column_parent *parent,
									   struct cf_t_slice_predicate *pred);
extern void colfam_scan_preset(ColfamScanState *s, struct cf_t_key_slice *rows, size_t n,
							   const struct cf_t_slice_predicate *pred);
extern bool colfam_scan_super_unpinned(const ColfamScanState *s);
extern int	colfam_scan_preset_hits(const ColfamScanState *s);

/* in parallel.c */
#define COLFAM_TOKEN_BUFSIZE 41 /* a RandomPartitioner token in decimal, and its NUL */
extern bool colfam_parallel_safe(PlannerInfo *root, RelOptInfo *rel, RangeTblEntry *rte);
extern Size colfam_parallel_estimate(ForeignScanState *node, ParallelContext *pcxt);
extern void colfam_parallel_init(ForeignScanState *node, ParallelContext *pcxt,
								 void *coordinate);
extern void colfam_parallel_reinit(ForeignScanState *node, ParallelContext *pcxt,
								   void *coordinate);
extern void colfam_parallel_init_worker(ForeignScanState *node, shm_toc *toc,
										void *coordinate);
extern bool colfam_parallel_claim(ColfamParallelScan *ps, const char *lo, const char *hi,
								  char *start, char *end);

/* in snapshot.c */
extern bool colfam_scan_needs_snapshot(PlannerInfo *root, Index relid, const ColfamTable *t);
extern bool colfam_value_fixed(PlannerInfo *root, Node *value);

/* in scan.c, for modify.c */
extern void colfam_snapshot_before_write(const ColfamTable *t);

/* in analyze.c */
extern bool colfam_analyze_table(Relation relation, AcquireSampleRowsFunc *func,
								 BlockNumber *totalpages);

/* in plan.c */
extern void colfam_get_rel_size(PlannerInfo *root, RelOptInfo *baserel, Oid foreigntableid);
extern void colfam_get_paths(PlannerInfo *root, RelOptInfo *baserel, Oid foreigntableid);
extern ForeignScan *colfam_get_plan(PlannerInfo *root, RelOptInfo *baserel, Oid foreigntableid,
									ForeignPath *best_path, List *tlist, List *scan_clauses,
									Plan *outer_plan);
extern void colfam_explain_scan(ForeignScanState *node, ExplainState *es);
extern List *colfam_spec_to_list(const ColfamScanSpec *spec);
extern ColfamScanSpec *colfam_spec_new(const ColfamTable *t, bool super);
/* plan.c's helpers join.c shares */
extern bool colfam_key_clause_usable(const ColfamTable *t, RestrictInfo *rinfo, Index relid);
extern bool colfam_pushable_value(PlannerInfo *root, Node *value, Index relid);
extern char *colfam_describe_value(PlannerInfo *root, Expr *e);
extern bool colfam_is_join_plan(ForeignScan *plan);
extern ColfamTable *colfam_rel_table(RelOptInfo *baserel, ColfamCfMeta **meta);
extern bool colfam_rel_snapshot(RelOptInfo *baserel);
extern char *colfam_project_rows(ColfamScanSpec *spec, const ColfamTable *t, Bitmapset *attrs);
extern void colfam_project_decode(ColfamScanSpec *spec, const ColfamTable *t, Bitmapset *attrs);
extern int	colfam_first_count(PlannerInfo *root, Path *path, RelOptInfo *rel, int fetch_size);

/* in join.c: INNER joins whose inner side is looked up by key, in batches */
extern void colfam_get_join_paths(PlannerInfo *root, RelOptInfo *joinrel,
								  RelOptInfo *outerrel, RelOptInfo *innerrel,
								  JoinType jointype, JoinPathExtraData *extra);
extern ForeignScan *colfam_join_plan(PlannerInfo *root, RelOptInfo *joinrel,
									 ForeignPath *best_path, List *tlist, Plan *outer_plan);
extern void colfam_join_begin(ForeignScanState *node, int eflags);
extern TupleTableSlot *colfam_join_iterate(ForeignScanState *node);
extern void colfam_join_rescan(ForeignScanState *node);
extern void colfam_join_explain(ForeignScanState *node, ExplainState *es);
extern ColfamScanSpec *colfam_spec_from_list(List *list);

#endif							/* COLFAM_TABLE_H */
