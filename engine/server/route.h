/*
 * server/route.h — colfamd's route (server.h, "Inline requests"): which Thrift calls
 * run inline on an event loop thread and which go to the worker pool.
 *
 * Inline, in lane CF_ROUTE_READS: get; get_slice, get_count, multiget_slice and
 * multiget_count selecting at most CF_ROUTE_INLINE_CELLS columns in all (keys times
 * the predicate's column names or slice count); colfam_multiget_chain under the same
 * bound summed over its steps (a derived step's keys counted as the columns, or for
 * KEY the rows, its source step may return); set_keyspace and the describe_*
 * calls that read only in-memory state (version, cluster name, partitioner, snitch).
 * Inline, in lane CF_ROUTE_WRITES, only when writes_inline (colfamd: the periodic
 * commit log, where no write waits for an fsync of its own): insert, remove and
 * batch_mutate. Everything else runs on the workers: login (a deliberately slow
 * password hash), range and index scans, schema changes, truncate, describe_ring,
 * describe_splits, describe_keyspace(s), schema versions, colfam's admin calls, and
 * any message over CF_ROUTE_INLINE_FRAME bytes or whose header or arguments do not
 * decode (the worker answers those with the dispatch's error).
 *
 * What may still block inline, and why it is acceptable: a read whose blocks are not
 * in the page cache waits for the disk; a write waits while the memtable flush
 * backlog is full (db/cfstore.h's admission) or while the periodic syncer holds the
 * commit log for its fsync. The server's slow-request guard then sends that lane to
 * the workers for a while, so such a wait stalls a loop once, not for as long as its
 * cause lasts. Valid while the coordinator serves every request locally (a one-node
 * ring): a request that waits on remote replicas must go to the workers.
 *
 * Thread safety: none needed (no state).
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

/* The lane of one message (a frame's payload), or CF_SERVER_POOL. */
int			cf_route_request(cf_slice request, bool writes_inline);

#endif							/* CF_SERVER_ROUTE_H */
