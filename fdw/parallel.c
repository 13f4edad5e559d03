/*-------------------------------------------------------------------------
 * fdw/parallel.c — parallel foreign scans: a token range of a RandomPartitioner
 * cluster cut into chunks that the leader and the workers claim one at a time.
 *
 * Only scans of the whole ring or of a token(key) range split (plan.c offers partial
 * paths for nothing else): RandomPartitioner's tokens are the integers 0 to 2^127, so
 * a range (lo, hi] cuts into K chunks (lo + i·L/K, lo + (i+1)·L/K], L = hi − lo, and
 * every token of the range falls in exactly one of them. Each participant evaluates
 * the same plan values, so each works out the same (lo, hi] by itself: the shared
 * memory holds only the number of chunks and the next one to claim. A participant
 * pages through its chunk on its own connection, then claims another; the rows of
 * different chunks interleave across participants (a partial path has no order).
 *
 * The chunks are many more than the participants (COLFAM_CHUNKS_PER_PROCESS each),
 * so that one slow chunk (wide rows, a busy node) does not leave the others idle.
 *-------------------------------------------------------------------------
 */
#include "colfam_fdw.h"
#include "colfam_table.h"

#include "access/parallel.h"
#include "port/atomics.h"

#define COLFAM_CHUNKS_PER_PROCESS 8

struct ColfamParallelScan
{
	pg_atomic_uint32 next;		/* the next chunk to claim */
	uint32		n_chunks;
};

typedef unsigned __int128 u128;

/*
 * RandomPartitioner tokens as 128-bit integers. Hand-written: C has no 128-bit
 * printf or strtoul, and Postgres's numeric would allocate per chunk for nothing.
 */
static bool
parse_token(const char *text, u128 *out)
{
	u128		v = 0;

	if (*text == '\0')
		return false;
	for (; *text; text++)
	{
		if (*text < '0' || *text > '9' || v > (~(u128) 0 - 9) / 10)
			return false;		/* not a number, or v·10 + 9 would overflow */
		v = v * 10 + (u128) (*text - '0');
	}
	*out = v;
	return true;
}

static void
format_token(u128 v, char *buf)
{
	char		tmp[COLFAM_TOKEN_BUFSIZE];
	int			n = 0;

	do
	{
		tmp[n++] = (char) ('0' + (int) (v % 10));
		v /= 10;
	} while (v > 0);
	while (n > 0)
		*buf++ = tmp[--n];
	*buf = '\0';
}

/*
 * Any colfam_fdw scan can run in a parallel worker, a parallel-aware one or not: a
 * worker opens its own connection (connection.c) as the same user, with the same
 * options.
 */
bool
colfam_parallel_safe(PlannerInfo *root, RelOptInfo *rel, RangeTblEntry *rte)
{
	return true;
}

Size
colfam_parallel_estimate(ForeignScanState *node, ParallelContext *pcxt)
{
	return sizeof(ColfamParallelScan);
}

void
colfam_parallel_init(ForeignScanState *node, ParallelContext *pcxt, void *coordinate)
{
	ColfamParallelScan *ps = coordinate;

	pg_atomic_init_u32(&ps->next, 0);
	ps->n_chunks = (uint32) (COLFAM_CHUNKS_PER_PROCESS * (pcxt->nworkers + 1));
	colfam_scan_set_parallel(node->fdw_state, ps);
}

void
colfam_parallel_reinit(ForeignScanState *node, ParallelContext *pcxt, void *coordinate)
{
	ColfamParallelScan *ps = coordinate;

	pg_atomic_write_u32(&ps->next, 0);
}

void
colfam_parallel_init_worker(ForeignScanState *node, shm_toc *toc, void *coordinate)
{
	colfam_scan_set_parallel(node->fdw_state, coordinate);
}

/*
 * Claims the next non-empty chunk of the token range (lo, hi] — lo NULL: from the
 * start of the ring, token 0 included; hi NULL: to its end, 2^127 included — into
 * start and end (COLFAM_TOKEN_BUFSIZE bytes each; start "2^127" for the start of the
 * ring, as the ring wraps). False when every chunk is claimed.
 */
bool
colfam_parallel_claim(ColfamParallelScan *ps, const char *lo, const char *hi,
					  char *start, char *end)
{
	const u128	top = ((u128) 1) << 127;
	u128		a,
				b,
				len,
				step,
				rest;

	/* (lo, hi] shifted up by one, so that "before token 0" is 0: (a, b] */
	if (lo == NULL)
		a = 0;
	else if (parse_token(lo, &a))
		a = a + 1;
	else
		elog(ERROR, "colfam_fdw: bad start token \"%s\" for a parallel scan", lo);
	if (hi == NULL)
		b = top + 1;
	else if (parse_token(hi, &b))
		b = b + 1;
	else
		elog(ERROR, "colfam_fdw: bad end token \"%s\" for a parallel scan", hi);
	if (b <= a || b > top + 1)
		return false;
	len = b - a;
	step = len / ps->n_chunks;
	rest = len % ps->n_chunks;
	for (;;)
	{
		uint32		i = pg_atomic_fetch_add_u32(&ps->next, 1);
		u128		from,
					to;

		if (i >= ps->n_chunks)
			return false;
		/* a + i·len/K, without overflowing: rest·i < K² */
		from = a + step * i + rest * i / ps->n_chunks;
		to = a + step * (i + 1) + rest * (i + 1) / ps->n_chunks;
		if (to == from)
			continue;			/* fewer tokens than chunks: (t, t] would be the whole ring */
		if (from == 0)
			format_token(top, start);	/* (2^127, ...] wraps to token 0 */
		else
			format_token(from - 1, start);
		format_token(to - 1, end);
		return true;
	}
}
