/*-------------------------------------------------------------------------
 * fdw/colfam_fdw.c — the handler of colfam_fdw: the FdwRoutine the planner and
 * executor call.
 *
 * Reading and writing column families (slice pushdown, paging, key lookups for joins)
 * comes with the FDW issue. Until then every planner entry point refuses clearly, at
 * the first callback, so no query can reach a half-built executor path.
 *-------------------------------------------------------------------------
 */
#include "colfam_fdw.h"

#include "foreign/fdwapi.h"
#include "optimizer/pathnode.h"
#include "utils/lsyscache.h"

PG_MODULE_MAGIC;

PG_FUNCTION_INFO_V1(colfam_fdw_handler);

static void
colfamGetForeignRelSize(PlannerInfo *root, RelOptInfo *baserel, Oid foreigntableid)
{
	ereport(ERROR,
			(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
			 errmsg("colfam_fdw cannot scan foreign tables in this version"),
			 errdetail("Foreign table \"%s\" is defined, but reading column families "
					   "is not implemented yet.", get_rel_name(foreigntableid)),
			 errhint("Upgrade colfam_fdw to a version that supports scans.")));
}

/*
 * The planner stops at GetForeignRelSize above, so the callbacks below cannot run; the
 * executor requires them to be set.
 */
static void
colfamGetForeignPaths(PlannerInfo *root, RelOptInfo *baserel, Oid foreigntableid)
{
	elog(ERROR, "colfam_fdw: GetForeignPaths reached without a size estimate");
}

static ForeignScan *
colfamGetForeignPlan(PlannerInfo *root, RelOptInfo *baserel, Oid foreigntableid,
					 ForeignPath *best_path, List *tlist, List *scan_clauses,
					 Plan *outer_plan)
{
	elog(ERROR, "colfam_fdw: GetForeignPlan reached without a path");
	return NULL;
}

static void
colfamBeginForeignScan(ForeignScanState *node, int eflags)
{
	elog(ERROR, "colfam_fdw: BeginForeignScan reached without a plan");
}

static TupleTableSlot *
colfamIterateForeignScan(ForeignScanState *node)
{
	elog(ERROR, "colfam_fdw: IterateForeignScan reached without a scan");
	return NULL;
}

static void
colfamReScanForeignScan(ForeignScanState *node)
{
	elog(ERROR, "colfam_fdw: ReScanForeignScan reached without a scan");
}

static void
colfamEndForeignScan(ForeignScanState *node)
{
}

Datum
colfam_fdw_handler(PG_FUNCTION_ARGS)
{
	FdwRoutine *routine = makeNode(FdwRoutine);

	routine->GetForeignRelSize = colfamGetForeignRelSize;
	routine->GetForeignPaths = colfamGetForeignPaths;
	routine->GetForeignPlan = colfamGetForeignPlan;
	routine->BeginForeignScan = colfamBeginForeignScan;
	routine->IterateForeignScan = colfamIterateForeignScan;
	routine->ReScanForeignScan = colfamReScanForeignScan;
	routine->EndForeignScan = colfamEndForeignScan;

	PG_RETURN_POINTER(routine);
}
