/*
 * db/snapshot.h — the snapshots on disk under a data directory: finding, measuring and
 * removing them. A snapshot of a column family is the directory
 * <data_dir>/<keyspace>/<cf>/snapshots/<name>/ of hard links to the SSTables and the
 * MANIFEST the CF had when it was taken (cf_cfstore_snapshot makes one; cf_db_snapshot
 * takes one of every CF of some keyspaces under one name). This module reads the disk,
 * not the schema, so the automatic snapshots of dropped CFs and keyspaces
 * ("dropped-<µs>", whose live files are gone) and of truncated CFs ("truncated-<µs>")
 * are found like any other.
 *
 * Bytes: a snapshot's files are hard links. bytes is their size; unshared_bytes the
 * size of those no other link names (neither a live SSTable nor another snapshot),
 * which is what removing this snapshot alone frees.
 *
 * Thread safety: no state of its own. The caller serialises removals against the
 * taking and listing of snapshots (cf_db does, under its snapshot lock).
 */
#ifndef CF_DB_SNAPSHOT_H
#define CF_DB_SNAPSHOT_H

#include <stddef.h>
#include <stdint.h>

#include "util/env.h"
#include "util/status.h"

/* The longest snapshot name. */
#define CF_SNAPSHOT_NAME_MAX 200

/* One CF's snapshot; every string malloc'd. */
typedef struct cf_snapshot_info
{
	char	   *keyspace;
	char	   *cf;
	char	   *name;
	char	   *dir;			/* <data_dir>/<keyspace>/<cf>/snapshots/<name> */
	uint64_t	files;
	uint64_t	bytes;
	uint64_t	unshared_bytes;
} cf_snapshot_info;

/* A growable array of them; zero-initialise, free with cf_snapshot_list_free. */
typedef struct cf_snapshot_list
{
	cf_snapshot_info *v;
	size_t		n;
	size_t		cap;
} cf_snapshot_list;

/*
 * NULL if name may name a snapshot: 1 to CF_SNAPSHOT_NAME_MAX letters, digits, '_' and
 * '-' (so never a path, '.' or '..'). CF_ERR_INVALID saying what is allowed otherwise.
 */
cf_status  *cf_snapshot_name_check(const char *name);

/*
 * Appends to out the snapshots under data_dir of keyspace (of every keyspace
 * directory when NULL) named name (every one when NULL), sorted by keyspace, name and
 * CF. A keyspace without a directory has none. Errors: I/O reading a directory or a
 * file's size (out then holds what was found before it).
 */
cf_status  *cf_snapshot_find(cf_env *env, const char *data_dir, const char *keyspace,
							 const char *name, cf_snapshot_list *out);

/*
 * Removes one snapshot: its files (links only: a live SSTable one shares keeps its
 * data), its directory, and snapshots/ when that is left empty. Refuses (CF_ERR_IO) a
 * directory inside it rather than recurse, as snapshots hold files only.
 */
cf_status  *cf_snapshot_remove(cf_env *env, const cf_snapshot_info *info);

void		cf_snapshot_list_free(cf_snapshot_list *l);

#endif							/* CF_DB_SNAPSHOT_H */
