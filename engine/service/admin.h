/*
 * service/admin.h — node administration through the coordinator: flush, compact,
 * per-CF statistics and snapshots of this node's column families (what Cassandra's
 * nodetool did over JMX; colfam serves them as Thrift methods, thrift/admin.h). Thin
 * wrappers over db/db.h that check the names first, in the coordinator's terms and
 * messages, so nothing is done when any name is wrong.
 *
 * Errors: CF_ERR_INVALID "Keyspace X does not exist" / "unconfigured columnfamily X"
 * (the snapshot calls: CF_ERR_NOT_FOUND "Keyspace X does not exist", as the db says
 * it), a bad or taken snapshot name; CF_ERR_NOT_FOUND for a snapshot name to clear
 * that no keyspace has; the db's errors otherwise (I/O while flushing, compacting, linking
 * or removing).
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
#include "db/snapshot.h"
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

/*
 * Snapshots (db.h's cf_db_snapshot, cf_db_list_snapshots, cf_db_clear_snapshots; the
 * keyspaces named, or with n == 0: every keyspace but system to take one, every
 * keyspace on disk to list or clear). Each fills out (zero-initialised by the caller;
 * cf_snapshot_list_free) with one entry per CF: what was taken, what there is, what
 * was removed. A snapshot's name is checked before anything is flushed.
 */
cf_status  *cf_service_snapshot(cf_service *svc, const char *const *keyspaces, size_t n,
								const char *name, cf_snapshot_list *out);
cf_status  *cf_service_list_snapshots(cf_service *svc, const char *const *keyspaces,
									  size_t n, cf_snapshot_list *out);
cf_status  *cf_service_clear_snapshots(cf_service *svc, const char *const *keyspaces,
									   size_t n, const char *name, cf_snapshot_list *out);

#endif							/* CF_SERVICE_ADMIN_H */
