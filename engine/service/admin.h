/*
 * service/admin.h — node administration through the coordinator: flush, compact and
 * per-CF statistics of this node's column families (what Cassandra's nodetool did
 * over JMX; colfam serves them as Thrift methods, thrift/admin.h). Thin wrappers over
 * db/db.h that check the names first, in the coordinator's terms and messages, so
 * nothing is done when any name is wrong.
 *
 * Errors: CF_ERR_INVALID "Keyspace X does not exist" / "unconfigured columnfamily X";
 * the db's errors otherwise (I/O while flushing or compacting).
 *
 * Thread safety: as service.h; a flush or compaction blocks the calling thread until
 * it is done.
 */
#ifndef CF_SERVICE_ADMIN_H
#define CF_SERVICE_ADMIN_H

#include <stdbool.h>
#include <stddef.h>

#include "db/cfstore.h"
#include "db/schema.h"
#include "service/service.h"
#include "util/status.h"

/* Flushes the named CFs of keyspace (n == 0: every CF) and waits for the flushes. */
cf_status  *cf_service_flush(cf_service *svc, const char *keyspace,
							 const char *const *cfs, size_t n);

/* Compacts the named CFs (n == 0: every CF) now: size-tiered, or everything if major. */
cf_status  *cf_service_compact(cf_service *svc, const char *keyspace,
							   const char *const *cfs, size_t n, bool major);

typedef struct cf_service_cf_stat
{
	char		cf[CF_SCHEMA_NAME_MAX + 1];
	cf_cfstore_stats st;
} cf_service_cf_stat;

/* Statistics of every CF of keyspace, in schema order; *out is malloc'd (free()). */
cf_status  *cf_service_cf_stats(cf_service *svc, const char *keyspace,
								cf_service_cf_stat **out, size_t *n_out);

#endif							/* CF_SERVICE_ADMIN_H */
