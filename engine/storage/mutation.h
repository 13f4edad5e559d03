/*
 * storage/mutation.h — a row mutation: every change to one row key across the column
 * families of a keyspace, applied atomically. It is the unit of the commit log (one
 * record each), of memtable application and, later, of replication.
 *
 * The encoding (engine/doc/mutation_format.md) is compact and self-delimiting; the
 * decoder trusts nothing: every length and count is checked against the bytes that are
 * actually there before anything is allocated or read, so a corrupt or hostile record
 * yields CF_ERR_CORRUPTION, never a crash or a huge allocation.
 *
 * Ownership: a decoded mutation's slices point into the bytes it was decoded from
 * (zero-copy), which must outlive it; its arrays are one allocation freed by
 * cf_mutation_release. An encoder-side mutation is the caller's to build and own.
 */
#ifndef CF_STORAGE_MUTATION_H
#define CF_STORAGE_MUTATION_H

#include <stddef.h>
#include <stdint.h>

#include "storage/cell.h"
#include "util/buf.h"
#include "util/status.h"

#define CF_MUTATION_VERSION 1
#define CF_MUTATION_BATCH_VERSION 2	/* several row mutations in one record */

/* The changes to one column family of the row. */
typedef struct cf_cf_update
{
	uint32_t	cf_id;			/* the CF's id, unique in the node's schema */
	cf_deletion row_del;		/* a row deletion, or cf_deletion_none() */
	cf_range_tomb *tombs;
	size_t		n_tombs;
	cf_cell    *cells;			/* any order; the memtable sorts */
	size_t		n_cells;
} cf_cf_update;

typedef struct cf_mutation
{
	cf_slice	key;
	cf_cf_update *cfs;
	size_t		n_cfs;
	void	   *alloc_;			/* decoder's allocation; NULL for caller-built */
} cf_mutation;

/* Appends the encoding of m to out. CF_ERR_INVALID if a key or name is too long. */
cf_status  *cf_mutation_encode(const cf_mutation *m, cf_buf *out);

/*
 * Decodes one mutation occupying exactly `data`. On success *out references data (see
 * Ownership); on error *out is empty and needs no release.
 */
cf_status  *cf_mutation_decode(cf_slice data, cf_mutation *out);

/* Frees a decoded mutation's arrays; harmless on a caller-built or empty one. */
void		cf_mutation_release(cf_mutation *m);

/*
 * A batch: several row mutations (different row keys, e.g. a row and the secondary
 * index rows a write changes) encoded as ONE payload, so that one commit-log record
 * holds them all and replay brings back all of them or none. A batch of one is
 * encoded exactly as cf_mutation_encode encodes that mutation (version 1); two or
 * more use version 2 (engine/doc/mutation_format.md). n must be at least 1.
 */
cf_status  *cf_mutation_batch_encode(const cf_mutation *ms, size_t n, cf_buf *out);

/*
 * Decodes a payload of either version into a malloc'd array of *n >= 1 mutations (a
 * version-1 payload gives one), each referencing data as cf_mutation_decode's do.
 * Release with cf_mutation_batch_release. On error *out is NULL and *n 0.
 */
cf_status  *cf_mutation_batch_decode(cf_slice data, cf_mutation **out, size_t *n);

/* Releases every mutation of a decoded batch and the array. NULL is accepted. */
void		cf_mutation_batch_release(cf_mutation *ms, size_t n);

/* Cells plus tombstones plus row deletions: the "operations" memtable thresholds count. */
size_t		cf_mutation_ops(const cf_mutation *m);

#endif							/* CF_STORAGE_MUTATION_H */
