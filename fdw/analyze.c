/*-------------------------------------------------------------------------
 * fdw/analyze.c — ANALYZE of a colfam foreign table: a sample of its SQL rows for
 * Postgres's statistics, and how many rows there are.
 *
 * The rows are those a scan of the table returns, as its mapping presents them ('columns':
 * one SQL row per column, or per sub-column of a Super CF; 'rows': one per row key, or
 * per super column). colfamd has no random access to rows, so the whole CF is read
 * through scan.c's paging (get_range_slices a page of rows at a time, a wide row
 * continued with the column pager), which never holds more than a page, and each row
 * is offered to a reservoir of targrows rows (Vitter's algorithm, as Postgres's own
 * samplers). totalrows is then exact, not an estimate; the pages reported are the
 * requests such a scan takes (rows / fetch_size), what the planner's costs count.
 * Query cancel is honoured between rows and during every request (scan.c).
 *-------------------------------------------------------------------------
 */
#include "colfam_fdw.h"
#include "colfam_table.h"

#include <math.h>

#include "access/htup_details.h"
#include "commands/vacuum.h"
#include "executor/tuptable.h"
#include "miscadmin.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/sampling.h"

/* A spec that reads every row of the table, every column (see plan.c's specs). */
static ColfamScanSpec *
full_scan_spec(ColfamTable *t)
{
	ColfamScanSpec *spec = colfam_spec_new(t, colfam_get_cf_meta(t)->super);

	spec->slice_supers = spec->super;	/* no super column is pinned */
	spec->kind = COLFAM_SCAN_ALL;
	return spec;
}

/*
 * AcquireSampleRowsFunc: up to targrows rows of relation into rows (allocated in the
 * caller's memory context), their number returned; *totalrows the rows read,
 * *totaldeadrows 0 (colfamd returns no deleted rows).
 */
static int
colfam_acquire_sample_rows(Relation relation, int elevel, HeapTuple *rows, int targrows,
						   double *totalrows, double *totaldeadrows)
{
	MemoryContext caller = CurrentMemoryContext;
	MemoryContext scan_cxt = AllocSetContextCreate(caller, "colfam_fdw analyze",
												   ALLOCSET_DEFAULT_SIZES);
	MemoryContext row_cxt = AllocSetContextCreate(scan_cxt, "colfam_fdw analyze row",
												  ALLOCSET_DEFAULT_SIZES);
	ColfamTable *t = colfam_get_table(RelationGetRelid(relation));
	TupleDesc	desc = RelationGetDescr(relation);
	TupleTableSlot *slot;
	ColfamScanState *scan;
	ReservoirStateData rstate;
	double		seen = 0;
	double		rowstoskip = -1;
	int			numrows = 0;
	MemoryContext old;

	old = MemoryContextSwitchTo(scan_cxt);
	slot = MakeSingleTupleTableSlot(desc, &TTSOpsVirtual);
	scan = colfam_scan_begin(full_scan_spec(t), t, scan_cxt);
	reservoir_init_selection_state(&rstate, targrows);

	for (;;)
	{
		int			pos = -1;

		/* ANALYZE's cost-based delay; it also checks for interrupts */
		vacuum_delay_point();
		MemoryContextReset(row_cxt);
		MemoryContextSwitchTo(row_cxt);
		ExecClearTuple(slot);
		if (!colfam_scan_next(scan, slot))
			break;
		ExecStoreVirtualTuple(slot);

		if (numrows < targrows)
			pos = numrows++;
		else
		{
			/* the reservoir is full: keep this row with the probability Vitter's S gives */
			if (rowstoskip < 0)
				rowstoskip = reservoir_get_next_S(&rstate, seen, targrows);
			if (rowstoskip <= 0)
			{
				pos = (int) (targrows * sampler_random_fract(&rstate.randstate));
				Assert(pos >= 0 && pos < targrows);
				heap_freetuple(rows[pos]);
			}
			rowstoskip -= 1;
		}
		if (pos >= 0)
		{
			MemoryContextSwitchTo(caller);
			rows[pos] = heap_form_tuple(desc, slot->tts_values, slot->tts_isnull);
		}
		seen += 1;
	}

	MemoryContextSwitchTo(old);
	ExecDropSingleTupleTableSlot(slot);
	MemoryContextDelete(scan_cxt);

	*totalrows = seen;
	*totaldeadrows = 0;
	ereport(elevel,
			(errmsg("\"%s\": colfamd column family %s.%s returned %.0f rows; %d rows in sample",
					RelationGetRelationName(relation), t->keyspace, t->column_family,
					seen, numrows)));
	return numrows;
}

/* AnalyzeForeignTable: every colfam table can be analyzed. */
bool
colfam_analyze_table(Relation relation, AcquireSampleRowsFunc *func,
					 BlockNumber *totalpages)
{
	ColfamTable *t = colfam_get_table(RelationGetRelid(relation));
	double		keys,
				columns;

	*func = colfam_acquire_sample_rows;

	/*
	 * The pages ANALYZE stores as relpages: what a scan costs in requests, by colfamd's
	 * estimate of the rows; 1 without one (ANALYZE's own row count replaces it as
	 * reltuples).
	 */
	*totalpages = 1;
	if (colfam_cf_estimate(t, &keys, &columns))
		*totalpages = (BlockNumber) Max(1.0, ceil((t->rows_mapping ? keys : columns) /
												  Max(t->fetch_size, 1)));
	return true;
}
