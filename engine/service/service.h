/*
 * service/service.h — the coordinator: every client request goes through it. It
 * speaks engine terms (keyspace and CF names, keys, db predicates, row mutations,
 * cf_ks_def), never Thrift types, so the Thrift dispatch, tools and tests share it.
 *
 * Every data request runs the same path, whatever the cluster size:
 *   1. validate the consistency level for the keyspace (as 0.7's ThriftValidation);
 *   2. pick the replicas of the key by the keyspace's replication strategy;
 *   3. count the live ones: fewer than the level needs is CF_ERR_UNAVAILABLE;
 *   4. send the request to each chosen replica and wait for the level's number of
 *      responses until rpc_timeout: past it, CF_ERR_TIMEOUT (the write may or may not
 *      have been applied, as Cassandra's TimedOutException says);
 *   5. resolve the responses (reads: the newest version of each cell).
 * With one node the ring holds only the local endpoint, so a replica set is at most
 * that node: ONE (and ANY for writes) always succeed, while QUORUM, ALL, TWO, THREE
 * need as many replicas as the replication factor implies and are UNAVAILABLE when
 * the keyspace's replication_factor asks for more nodes than exist — what 0.7 does
 * on a one-node ring. The cluster layer adds endpoints to step 2 and remote sends to
 * step 4 without changing the callers.
 *
 * Consistency levels (Cassandra 0.7): ANY is refused for reads; LOCAL_QUORUM and
 * EACH_QUORUM only with NetworkTopologyStrategy; an unknown value is refused. Blocked
 * for: ONE 1, TWO 2, THREE 3, QUORUM rf/2+1, ALL rf, ANY 1 (a hint would count),
 * LOCAL_QUORUM (replicas in the local data centre)/2+1, EACH_QUORUM that in every
 * data centre. SimpleSnitch puts every node in "datacenter1", rack "rack1".
 *
 * Errors: CF_ERR_INVALID with a message a user can act on (Thrift sends it as
 * InvalidRequestException.why); CF_ERR_NOT_FOUND only from get (no live value) and
 * for unknown keyspaces/CFs (the dispatch turns those into IRE); CF_ERR_UNAVAILABLE,
 * CF_ERR_TIMEOUT as above; anything else is a server error.
 *
 * Write timestamps are the client's, unchanged. Reads use the server clock for TTLs.
 *
 * Thread safety: every function may be called from any thread concurrently, except
 * cf_service_free. The service does not own the db.
 */
#ifndef CF_SERVICE_SERVICE_H
#define CF_SERVICE_SERVICE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "db/db.h"
#include "db/read.h"
#include "db/schema.h"
#include "util/buf.h"
#include "util/slice.h"
#include "util/status.h"

/* The values of Thrift's ConsistencyLevel, so the dispatch passes them through. */
typedef enum cf_consistency
{
	CF_CL_ONE = 1,
	CF_CL_QUORUM = 2,
	CF_CL_LOCAL_QUORUM = 3,
	CF_CL_EACH_QUORUM = 4,
	CF_CL_ALL = 5,
	CF_CL_ANY = 6,
	CF_CL_TWO = 7,
	CF_CL_THREE = 8
} cf_consistency;

/* "ONE", "LOCAL_QUORUM", ...; NULL for a value that is not a level. */
const char *cf_consistency_name(int cl);

/* Cassandra's names of the node's snitch and of its only data centre. */
#define CF_SERVICE_SNITCH "org.apache.cassandra.locator.SimpleSnitch"
#define CF_SERVICE_DATACENTER "datacenter1"

typedef struct cf_service cf_service;

typedef struct cf_service_options
{
	cf_db	   *db;				/* required; not owned */
	const char *cluster_name;	/* NULL: "Test Cluster" (0.7's default) */
	const char *endpoint;		/* this node's rpc/listen address; NULL: "127.0.0.1" */
	const char *token;			/* this node's token as text; NULL: the partitioner's
								 * "0" (Random) or the minimum token (others) */
	int64_t		rpc_timeout_us; /* 0: 10 s (0.7's rpc_timeout_in_ms 10000) */
} cf_service_options;

/* A new service over opts->db (copied options). CF_ERR_INVALID for a bad token. */
cf_status  *cf_service_new(const cf_service_options *opts, cf_service **out);
void		cf_service_free(cf_service *svc);

cf_db	   *cf_service_db(cf_service *svc);

/*
 * Checks a level for a request on keyspace (as each call below does first):
 * CF_ERR_INVALID for an unknown level, ANY on a read, LOCAL/EACH_QUORUM without
 * NetworkTopologyStrategy; CF_ERR_NOT_FOUND for an unknown keyspace.
 */
cf_status  *cf_service_validate_cl(cf_service *svc, const char *keyspace, int cl,
								   bool is_write);

/* ---- reads (results: see db/read.h; the caller frees them) ---- */

/* get: CF_ERR_NOT_FOUND when the column (or super column) has no live value. */
cf_status  *cf_service_get(cf_service *svc, const char *keyspace, const char *cf,
						   cf_slice key, cf_slice super_column, cf_slice column,
						   int cl, cf_read_result **out);

cf_status  *cf_service_slice(cf_service *svc, const char *keyspace, const char *cf,
							 cf_slice key, cf_slice super_column,
							 const cf_predicate *pred, int cl, cf_read_result **out);

cf_status  *cf_service_count(cf_service *svc, const char *keyspace, const char *cf,
							 cf_slice key, cf_slice super_column,
							 const cf_predicate *pred, int cl, int32_t *count);

/* multiget_slice: one row per distinct key, in first-given order. */
cf_status  *cf_service_multiget(cf_service *svc, const char *keyspace, const char *cf,
								const cf_slice *keys, size_t n_keys,
								cf_slice super_column, const cf_predicate *pred,
								int cl, cf_read_rows **out);

/*
 * get_range_slices' KeyRange: by keys (start_key..end_key, inclusive, empty = open;
 * under RandomPartitioner the end key's token must not sort before the start key's)
 * or by tokens as text ((start_token, end_token], wrapping; equal = the whole ring).
 */
typedef struct cf_service_range
{
	bool		by_token;
	cf_slice	start_key;
	cf_slice	end_key;
	cf_slice	start_token;	/* text, as describe_ring prints tokens */
	cf_slice	end_token;
	int32_t		count;
} cf_service_range;

cf_status  *cf_service_range_slices(cf_service *svc, const char *keyspace,
									const char *cf, const cf_service_range *range,
									cf_slice super_column, const cf_predicate *pred,
									int cl, cf_read_rows **out);

/*
 * The same read with its rows streamed to sink (db/read.h cf_read_range_sink), which
 * may be called for more than one attempt (each starts with its begin).
 */
cf_status  *cf_service_range_slices_sink(cf_service *svc, const char *keyspace,
										 const char *cf, const cf_service_range *range,
										 cf_slice super_column, const cf_predicate *pred,
										 int cl, const cf_read_sink *sink);

/*
 * get_indexed_slices (db/index.h's clause): rows (in index order, from start_key)
 * matching every expression, each with its slice under pred. As 0.7: a Standard CF,
 * and at least one EQ expression on a column declared with a KEYS index
 * (CF_ERR_INVALID otherwise, naming the CF's indexed columns); values compare under
 * the column's validator. Served from the index (db/db.h cf_db_get_indexed_slices).
 */
cf_status  *cf_service_indexed_slices(cf_service *svc, const char *keyspace,
									  const char *cf, const cf_index_clause *q,
									  const cf_predicate *pred, int cl,
									  cf_read_rows **out);

/* ---- writes ---- */

/* One row mutation: every change to one key in one keyspace (db.h's updates). */
typedef struct cf_row_mutation
{
	cf_slice	key;
	const cf_db_update *updates;
	size_t		n_updates;
} cf_row_mutation;

/*
 * Applies row mutations (insert, remove: one; batch_mutate: many), each atomically
 * for its key; rows apply in order and the first error stops the batch (earlier rows
 * stay applied, as in 0.7). Everything is validated before anything is applied, so a
 * batch rejected as CF_ERR_INVALID (or NOT_FOUND) applied nothing.
 */
cf_status  *cf_service_mutate(cf_service *svc, const char *keyspace,
							  const cf_row_mutation *rows, size_t n_rows, int cl);

/*
 * Removes every row of the CF. As 0.7, every node of the ring must be up
 * (CF_ERR_UNAVAILABLE otherwise).
 */
cf_status  *cf_service_truncate(cf_service *svc, const char *keyspace, const char *cf);

/* ---- schema ---- */

/* A schema version: a UUID in text form (36 characters and a NUL). */
typedef char cf_schema_id[37];

/*
 * The id of the current schema: a name-based UUID (version 3 layout) of the MD5 of
 * every keyspace's encoding and the next CF id, so it is the same for the same schema
 * on any node and changes with every schema change that changes anything.
 */
cf_status  *cf_service_schema_id(cf_service *svc, cf_schema_id out);

/* Each change returns the new schema's id in id_out (may be NULL). */
cf_status  *cf_service_add_keyspace(cf_service *svc, const cf_ks_def *ks,
									cf_schema_id id_out);
cf_status  *cf_service_drop_keyspace(cf_service *svc, const char *keyspace,
									 cf_schema_id id_out);
cf_status  *cf_service_update_keyspace(cf_service *svc, const cf_ks_def *ks,
									   cf_schema_id id_out);
cf_status  *cf_service_add_cf(cf_service *svc, const cf_cf_def *cf, cf_schema_id id_out);
cf_status  *cf_service_drop_cf(cf_service *svc, const char *keyspace, const char *cf,
							   cf_schema_id id_out);
cf_status  *cf_service_update_cf(cf_service *svc, const cf_cf_def *cf,
								 cf_schema_id id_out);

/* ---- describe ---- */

const char *cf_service_cluster_name(cf_service *svc);
const char *cf_service_endpoint(cf_service *svc);

/* "org.apache.cassandra.dht.RandomPartitioner" etc. */
const char *cf_service_partitioner_class(cf_service *svc);

/* One range of the ring and the endpoints that replicate it. */
typedef struct cf_service_token_range
{
	char	   *start_token;	/* text */
	char	   *end_token;
	char	  **endpoints;
	size_t		n_endpoints;
} cf_service_token_range;

/*
 * describe_ring: the ranges (left, right] of the ring for keyspace (one node: one
 * range from its token to itself, i.e. the whole ring). CF_ERR_NOT_FOUND for an
 * unknown keyspace. Free with cf_service_ring_free.
 */
cf_status  *cf_service_describe_ring(cf_service *svc, const char *keyspace,
									 cf_service_token_range **out, size_t *n_out);
void		cf_service_ring_free(cf_service_token_range *r, size_t n);

/*
 * describe_splits: tokens t0 = start, t1, ..., tn = end (text) splitting
 * (start, end] into pieces of about keys_per_split rows each, estimated from the key
 * samples of the CF's SSTables (each sample stands for rows/samples rows of its
 * table; rows only in memtables are not counted). keys_per_split must be > 0
 * (CF_ERR_INVALID). *out is an array of malloc'd strings; free with
 * cf_service_strings_free.
 */
cf_status  *cf_service_describe_splits(cf_service *svc, const char *keyspace,
									   const char *cf, cf_slice start_token,
									   cf_slice end_token, int32_t keys_per_split,
									   char ***out, size_t *n_out);
void		cf_service_strings_free(char **v, size_t n);

#endif							/* CF_SERVICE_SERVICE_H */
