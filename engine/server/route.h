/*
 * server/route.h — colfamd's route (server.h, "Inline requests"): which Thrift calls
 * run inline on an event loop thread and which go to the worker pool.
 *
 * Inline, in lane CF_ROUTE_READS:
 *  - get, except one whose column_path names a super column and no column (it
 *    answers that whole super column, every sub-column of it);
 *  - get_slice, get_count, multiget_slice and multiget_count selecting at most
 *    CF_ROUTE_INLINE_CELLS columns in all (keys times the predicate's column names
 *    or slice count), except on a Super column family without
 *    column_parent.super_column: there the predicate selects super columns, each
 *    answered (or counted through) with all its sub-columns, however many, so such
 *    a read goes to the workers whatever its count. With a super column named the
 *    count is of its sub-columns and the bound stands;
 *  - colfam_multiget_chain under the same bound summed over its steps (a derived
 *    step's keys counted as the columns, or for KEY the rows, its source step may
 *    return), and only while no step (step 0 included) reads a Super column family
 *    without a super column;
 *  - the describe_* calls that read only in-memory state (version, cluster name,
 *    partitioner, snitch).
 * Whether a column family is Super is asked of schema (cf_route_schema), for the
 * session's keyspace, only for a read that would otherwise run inline. A column
 * family or keyspace that does not exist, or no keyspace set, counts as not Super:
 * the dispatch refuses such a read at once. With schema NULL nothing can be asked,
 * so every such read that names no super column goes to the workers: a caller
 * without a schema loses the inline reads, never runs a big one inline (colfamd
 * always passes one).
 * Inline, in lane CF_ROUTE_WRITES, only when writes_inline (colfamd: the periodic
 * commit log, where no write waits for an fsync of its own): insert, remove and
 * batch_mutate. Everything else runs on the workers: login (a deliberately slow
 * password hash), set_keyspace (see below), range and index scans, schema changes,
 * truncate, describe_ring, describe_splits, describe_keyspace(s), schema versions,
 * colfam's admin calls, and any message over CF_ROUTE_INLINE_FRAME bytes or whose
 * header or arguments do not decode (the worker answers those with the dispatch's
 * error).
 *
 * Why set_keyspace runs on a worker: the server routes a run of pipelined requests
 * before running any of them (server.h, "Inline requests"), so a read queued behind
 * an inline set_keyspace would be asked about in the keyspace the session had
 * before it. A request for the workers ends the run: the worker takes it and every
 * request queued behind it, and whatever arrives later is routed after it has run.
 * It costs one hand-off per set_keyspace, which clients send once per connection or
 * keyspace change. A schema change made by another connection between a request's
 * route and its run (microseconds) can still make a read of a column family just
 * re-created as Super run inline once.
 *
 * What may still block inline, and why it is acceptable: a read whose blocks are not
 * in the page cache waits for the disk; a write waits while the memtable flush
 * backlog is full (db/cfstore.h's admission) or while the periodic syncer holds the
 * commit log for its fsync. The server's slow-request guard then sends that lane to
 * the workers for a while, so such a wait stalls a loop once, not for as long as its
 * cause lasts. Valid while the coordinator serves every request locally (a one-node
 * ring): a request that waits on remote replicas must go to the workers.
 *
 * Thread safety: none needed (no state); schema's is_super is called on the calling
 * thread only, during the call.
 */
#ifndef CF_SERVER_ROUTE_H
#define CF_SERVER_ROUTE_H

#include <stdbool.h>

#include "util/slice.h"

/* colfamd's lanes: reads and writes block for different reasons. */
enum
{
	CF_ROUTE_READS = 1,
	CF_ROUTE_WRITES = 2,
};

/* Largest message that may run inline. */
#define CF_ROUTE_INLINE_FRAME (64u * 1024)

/* Most columns a read may select (in all its keys) and still run inline. */
#define CF_ROUTE_INLINE_CELLS 1000

/*
 * What the route may ask of the schema. is_super: whether cf names a Super column
 * family of the session's keyspace; false when it names a Standard one, or when the
 * keyspace or the column family does not exist or no keyspace is set. It must be
 * cheap and must not block (no I/O, no lock held for long): it runs on the event
 * loop for every read that would otherwise run inline.
 */
typedef struct cf_route_schema
{
	bool		(*is_super) (void *ctx, cf_slice cf);
	void	   *ctx;
} cf_route_schema;

/*
 * The lane of one message (a frame's payload), or CF_SERVER_POOL. schema may be
 * NULL (then no read naming no super column runs inline, see above).
 */
int			cf_route_request(cf_slice request, bool writes_inline,
							 const cf_route_schema *schema);

#endif							/* CF_SERVER_ROUTE_H */
