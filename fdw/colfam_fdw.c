/*-------------------------------------------------------------------------
 * fdw/colfam_fdw.c — the handler of colfam_fdw: the FdwRoutine the planner and
 * executor call.
 *
 * The planner callbacks are in plan.c (pushdown, paths, EXPLAIN), the executor's in
 * scan.c (requests and paging), pushed joins in join.c, IMPORT FOREIGN SCHEMA in
 * import.c, ANALYZE in analyze.c, parallel scans' shared chunks in parallel.c, what a
 * rollback cannot undo in xact.c.
 *-------------------------------------------------------------------------
 */
#include "colfam_fdw.h"
#include "colfam_table.h"

#include "foreign/fdwapi.h"

PG_MODULE_MAGIC;

void		_PG_init(void);

/* When the library is loaded: the transaction callbacks of xact.c. */
void
_PG_init(void)
{
	colfam_xact_init();
}

PG_FUNCTION_INFO_V1(colfam_fdw_handler);

Datum
colfam_fdw_handler(PG_FUNCTION_ARGS)
{
	FdwRoutine *routine = makeNode(FdwRoutine);

	routine->GetForeignRelSize = colfam_get_rel_size;
	routine->GetForeignPaths = colfam_get_paths;
	routine->GetForeignPlan = colfam_get_plan;
	routine->GetForeignJoinPaths = colfam_get_join_paths;
	routine->ExplainForeignScan = colfam_explain_scan;
	routine->BeginForeignScan = colfam_begin_scan;
	routine->IterateForeignScan = colfam_iterate_scan;
	routine->ReScanForeignScan = colfam_rescan;
	routine->EndForeignScan = colfam_end_scan;
	routine->IsForeignScanParallelSafe = colfam_parallel_safe;
	routine->EstimateDSMForeignScan = colfam_parallel_estimate;
	routine->InitializeDSMForeignScan = colfam_parallel_init;
	routine->ReInitializeDSMForeignScan = colfam_parallel_reinit;
	routine->InitializeWorkerForeignScan = colfam_parallel_init_worker;
	routine->ImportForeignSchema = colfam_import_schema;
	routine->AnalyzeForeignTable = colfam_analyze_table;

	routine->AddForeignUpdateTargets = colfam_add_update_targets;
	routine->PlanForeignModify = colfam_plan_modify;
	routine->BeginForeignModify = colfam_begin_modify;
	routine->ExecForeignInsert = colfam_exec_insert;
	routine->ExecForeignBatchInsert = colfam_exec_batch_insert;
	routine->GetForeignModifyBatchSize = colfam_batch_size;
	routine->ExecForeignUpdate = colfam_exec_update;
	routine->ExecForeignDelete = colfam_exec_delete;
	routine->EndForeignModify = colfam_end_modify;
	routine->BeginForeignInsert = colfam_begin_foreign_insert;
	routine->ExecForeignTruncate = colfam_exec_truncate;

	PG_RETURN_POINTER(routine);
}
