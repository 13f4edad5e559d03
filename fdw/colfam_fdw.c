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
#include "colfam_table.h"

#include "foreign/fdwapi.h"
#include "optimizer/pathnode.h"
#include "utils/lsyscache.h"

PG_MODULE_MAGIC;

PG_FUNCTION_INFO_V1(colfam_fdw_handler);

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

	routine->GetForeignRelSize = colfam_get_rel_size;
	routine->GetForeignPaths = colfam_get_paths;
	routine->GetForeignPlan = colfam_get_plan;
	routine->ExplainForeignScan = colfam_explain_scan;
	routine->BeginForeignScan = colfamBeginForeignScan;
	routine->IterateForeignScan = colfamIterateForeignScan;
	routine->ReScanForeignScan = colfamReScanForeignScan;
	routine->EndForeignScan = colfamEndForeignScan;

	PG_RETURN_POINTER(routine);
}
