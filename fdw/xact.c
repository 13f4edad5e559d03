/*-------------------------------------------------------------------------
 * fdw/xact.c — telling the user what a rollback cannot undo.
 *
 * colfamd has no transactions: it applies a write when it acknowledges it, so a
 * ROLLBACK, a ROLLBACK TO SAVEPOINT, a PL/pgSQL exception block or an ERROR that
 * aborts the transaction leaves colfam_fdw's writes in place (README: "a foreign table
 * is not transactional"). A user who counted on the rollback should hear of it where
 * it happens, not find out later: modify.c reports every acknowledged write here, and
 * an abort that follows writes raises a WARNING with how many rows were written (and
 * column families truncated) since the transaction or savepoint began. A multi-row
 * statement that fails after some of its batches were acknowledged is told the same
 * way, since its ERROR aborts the transaction.
 *
 * A subtransaction's abort is warned of when the transaction goes on (the next
 * savepoint starts, which a ROLLBACK TO does at once, or one is released, or the
 * transaction commits), not when it happens: a plain ROLLBACK with savepoints open
 * aborts each of them first, and then the one WARNING of the transaction covers
 * their writes. (A PL/pgSQL exception block inside a transaction block is thus
 * warned of by the statement that goes on, at the latest by COMMIT.)
 *
 * The counts are per backend: writes and truncates since the top-level transaction
 * began, for each open subtransaction the counts when it began (indexed by its
 * nesting level), and the rows of the current top-level statement, which a write's
 * ERROR reports (modify.c). The callbacks are registered when the library is loaded,
 * so every subtransaction's start is seen, and cost a few additions per event.
 *-------------------------------------------------------------------------
 */
#include "colfam_fdw.h"

#include "access/xact.h"
#include "nodes/plannodes.h"
#include "tcop/pquery.h"
#include "utils/memutils.h"
#include "utils/timestamp.h"

typedef struct WriteCounts
{
	int64		rows;			/* SQL rows colfamd acknowledged */
	int64		truncates;		/* column families truncated */
} WriteCounts;

static WriteCounts xact_writes;	/* since the top-level transaction began */
static WriteCounts *sub_start;	/* [nest level]: xact_writes when it began */
static int	sub_cap;
static WriteCounts sub_pending;	/* an aborted subtransaction's, not yet warned of */
static TimestampTz stmt_start;	/* the top-level statement stmt_rows counts for: */
static int	stmt_location;		/* its message's timestamp and its place in it */
static int64 stmt_rows;

/*
 * The WARNING for an abort after writes: d, the writes made since `since`, stay.
 * what: what is being rolled back.
 */
static void
warn_not_undone(WriteCounts d, const char *what, const char *since)
{
	if (d.rows == 0 && d.truncates == 0)
		return;
	ereport(WARNING,
			(errmsg("rolling back %s leaves colfam_fdw's writes in place: %s%s%s since %s",
					what,
					d.rows ? psprintf(INT64_FORMAT " row%s written", d.rows,
									  d.rows == 1 ? "" : "s") : "",
					d.rows && d.truncates ? " and " : "",
					d.truncates ? psprintf(INT64_FORMAT " column famil%s truncated",
										   d.truncates, d.truncates == 1 ? "y" : "ies")
					: "",
					since),
			 errdetail("Column families have no transactions: colfamd applied each write "
					   "when it acknowledged it.")));
}

/* The pending WARNING of an aborted subtransaction, now that the transaction goes on. */
static void
warn_sub_pending(void)
{
	WriteCounts d = sub_pending;

	memset(&sub_pending, 0, sizeof(sub_pending));
	warn_not_undone(d, "to a savepoint", "the savepoint");
}

static void
xact_callback(XactEvent event, void *arg)
{
	switch (event)
	{
		case XACT_EVENT_PRE_COMMIT:
		case XACT_EVENT_PRE_PREPARE:
			warn_sub_pending();
			break;
		case XACT_EVENT_ABORT:
		case XACT_EVENT_PARALLEL_ABORT:
			/* covers the writes of the subtransactions it aborted */
			warn_not_undone(xact_writes, "the transaction", "it began");
			/* fall through */
		case XACT_EVENT_COMMIT:
		case XACT_EVENT_PARALLEL_COMMIT:
		case XACT_EVENT_PREPARE:
			memset(&xact_writes, 0, sizeof(xact_writes));
			memset(&sub_pending, 0, sizeof(sub_pending));
			stmt_rows = 0;
			break;
		default:
			break;
	}
}

static void
subxact_callback(SubXactEvent event, SubTransactionId mySubid,
				 SubTransactionId parentSubid, void *arg)
{
	int			level = GetCurrentTransactionNestLevel();

	if (event == SUBXACT_EVENT_START_SUB || event == SUBXACT_EVENT_COMMIT_SUB)
		warn_sub_pending();
	if (event == SUBXACT_EVENT_START_SUB)
	{
		if (level >= sub_cap)
		{
			int			cap = Max(16, level * 2);

			sub_start = sub_start == NULL
				? MemoryContextAllocZero(TopMemoryContext, sizeof(WriteCounts) * cap)
				: repalloc(sub_start, sizeof(WriteCounts) * cap);
			sub_cap = cap;
		}
		sub_start[level] = xact_writes;
	}
	else if (event == SUBXACT_EVENT_ABORT_SUB && level < sub_cap)
	{
		/* its writes include those of any subtransaction inside it still pending */
		sub_pending.rows = xact_writes.rows - sub_start[level].rows;
		sub_pending.truncates = xact_writes.truncates - sub_start[level].truncates;
	}
}

/* Registers the callbacks; called once, when the library is loaded. */
void
colfam_xact_init(void)
{
	RegisterXactCallback(xact_callback, NULL);
	RegisterSubXactCallback(subxact_callback, NULL);
}

/*
 * Is stmt_start/stmt_location the top-level statement now running (else, with set,
 * make it so)? A client's message has one start timestamp however many statements its
 * text holds, so the statement is also told by its place in the text: that of the
 * statement the active portal runs, which is the top-level one also while a function
 * it calls runs statements of its own through SPI (not while a cursor's fetch runs
 * one, in the cursor's own portal).
 */
static bool
same_statement(bool set)
{
	TimestampTz start = GetCurrentStatementStartTimestamp();
	int			location = -1;

	if (ActivePortal != NULL && ActivePortal->stmts != NIL)
		location = linitial_node(PlannedStmt, ActivePortal->stmts)->stmt_location;
	if (start == stmt_start && location == stmt_location)
		return true;
	if (set)
	{
		stmt_start = start;
		stmt_location = location;
	}
	return false;
}

void
colfam_xact_rows_written(int64 rows)
{
	xact_writes.rows += rows;
	if (!same_statement(true))
		stmt_rows = 0;
	stmt_rows += rows;
}

int64
colfam_xact_statement_rows(void)
{
	return same_statement(false) ? stmt_rows : 0;
}

void
colfam_xact_truncated(void)
{
	xact_writes.truncates++;
}
