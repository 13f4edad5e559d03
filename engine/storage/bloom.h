/*
 * storage/bloom.h — the bloom filter an SSTable keeps over its row keys (and may keep
 * over the column names of a wide row), so a read can skip an SSTable that cannot
 * hold the key without touching its index or data.
 *
 * A filter answers "maybe present" or "certainly absent": never a false negative, and
 * false positives at about 1% for the default 10 bits per key. Each key is hashed once
 * (XXH3, 128 bits); the k probes are derived by double hashing and all fall inside one
 * 64-byte block, so a query touches one cache line (bloom.c says why and what it costs).
 *
 * Life cycle: cf_bloom_new sizes a filter for an expected number of keys, cf_bloom_add
 * fills it, cf_bloom_serialize writes it out; cf_bloom_open reads serialized bytes
 * back without copying the bit array, after validating every field and the checksum.
 *
 * The serialized format is documented in engine/doc/bloom_format.md; its constants are
 * the CF_BLOOM_* macros below. Change one only with a new CF_BLOOM_VERSION and the doc.
 *
 * Thread safety: building (cf_bloom_new, cf_bloom_add) is single-threaded. A filter
 * that is no longer being added to — built or opened — is read-only, and
 * cf_bloom_may_contain, cf_bloom_serialize and the accessors may be called on it from
 * any number of threads at once without locking.
 */
#ifndef CF_STORAGE_BLOOM_H
#define CF_STORAGE_BLOOM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/buf.h"
#include "util/slice.h"
#include "util/status.h"

/* ---- format constants (engine/doc/bloom_format.md) ---- */

/* The one version this build writes and reads. */
#define CF_BLOOM_VERSION 1

/* Header: version (1 byte), k (1 byte), bit count (8 bytes, big-endian). */
#define CF_BLOOM_HEADER_SIZE 10

/* Trailer: masked CRC-32C of every byte before it (4 bytes, big-endian). */
#define CF_BLOOM_TRAILER_SIZE 4

/* Size of the block that holds all k probes of a key: one 64-byte cache line. */
#define CF_BLOOM_BLOCK_BITS 512

/* Bounds on the bit count: a filter is never smaller or larger than these. */
#define CF_BLOOM_MIN_BITS 64
#define CF_BLOOM_MAX_BITS ((uint64_t) 1 << 32)

/* Bounds on k, the number of probes per key. */
#define CF_BLOOM_MIN_K 1
#define CF_BLOOM_MAX_K 30

/* Bits per key when the caller passes 0: about 1% false positives. */
#define CF_BLOOM_DEFAULT_BITS_PER_KEY 10

/* ---- API ---- */

typedef struct cf_bloom cf_bloom;

/*
 * A new empty filter sized for expected_keys keys at bits_per_key bits each (0: the
 * default, 10). Sizing: bits = expected_keys * bits_per_key, saturating, clamped to
 * [CF_BLOOM_MIN_BITS, CF_BLOOM_MAX_BITS], then rounded up to a power of two while at
 * most one block (64..512 bits) or to a whole number of blocks above that; k =
 * round(bits_per_key * ln 2) clamped to [CF_BLOOM_MIN_K, CF_BLOOM_MAX_K]. So 0 keys
 * gives a valid 64-bit filter that contains nothing, and a huge request asks for at
 * most 512 MiB.
 *
 * On success *out is the filter, which the caller frees with cf_bloom_free. Errors:
 * CF_ERR_NO_MEMORY (naming the size) when the bit array cannot be allocated; *out is
 * then NULL.
 */
cf_status  *cf_bloom_new(uint64_t expected_keys, unsigned bits_per_key, cf_bloom **out);

/*
 * cf_bloom_new with the bit array's allocator supplied: zalloc(n) must return n zeroed
 * bytes that free() releases, or NULL. For fault injection in tests; everyone else
 * calls cf_bloom_new (which passes a calloc wrapper).
 */
cf_status  *cf_bloom_new_alloc(uint64_t expected_keys, unsigned bits_per_key,
							   void *(*zalloc) (size_t n), cf_bloom **out);

/*
 * Adds key (any bytes, any length, the empty key included). REQUIRES: f came from
 * cf_bloom_new (an opened filter is read-only); no concurrent call on f of any kind.
 */
void		cf_bloom_add(cf_bloom *f, cf_slice key);

/*
 * false if key was certainly never added; true if it may have been. Never a false
 * negative. Pure: safe from any number of threads on a filter not being added to.
 */
bool		cf_bloom_may_contain(const cf_bloom *f, cf_slice key);

/*
 * Appends the serialized filter (cf_bloom_serialized_size(f) bytes) to out. Returns
 * NULL, or out's failure (CF_ERR_NO_MEMORY / CF_ERR_TOO_LARGE, see cf_buf_status) if
 * out has failed, now or before.
 */
cf_status  *cf_bloom_serialize(const cf_bloom *f, cf_buf *out);

/*
 * A read-only filter over serialized bytes. The bit array is not copied: *out points
 * into bytes, so REQUIRES bytes to stay valid and unchanged until cf_bloom_free(*out)
 * (an mmap'd or cached Filter.db block, say). No alignment is required.
 *
 * bytes must be exactly one serialized filter. Errors, *out then NULL:
 *  - CF_ERR_CORRUPTION, the message naming the field and both values, when the length
 *    is too short or does not match the bit count, the version is not
 *    CF_BLOOM_VERSION, k or the bit count is out of range or not a valid size, or the
 *    stored checksum does not match;
 *  - CF_ERR_NO_MEMORY for the small handle.
 */
cf_status  *cf_bloom_open(cf_slice bytes, cf_bloom **out);

/* Frees f (not the bytes an opened filter reads). NULL is ignored. */
void		cf_bloom_free(cf_bloom *f);

/* The size of the bit array in bits, and the number of probes per key. */
uint64_t	cf_bloom_bits(const cf_bloom *f);
unsigned	cf_bloom_k(const cf_bloom *f);

/* How many bytes cf_bloom_serialize appends: header + bits / 8 + trailer. */
size_t		cf_bloom_serialized_size(const cf_bloom *f);

#endif							/* CF_STORAGE_BLOOM_H */
