/*
 * util/cache.h — a sharded LRU cache of reference-counted values with a byte capacity:
 * the engine's block cache (decoded SSTable blocks, keyed by file id and offset).
 *
 * Keys are two integers (id, off). Values are opaque: an insert hands over a value, its
 * charge (the bytes it costs, as the caller counts them) and a deleter. A lookup or an
 * insert returns a handle that pins its value: an entry is freed (its deleter called)
 * only once it has left the cache — evicted, erased, or the cache destroyed — and the
 * last handle on it is released, so a reader never sees a value freed under it.
 *
 * Eviction: the sum of the charges of the entries in the cache is kept at or below the
 * capacity by evicting entries that no handle pins, least recently used first (CLOCK,
 * an approximation of LRU that costs a hit no list update: see cache.c). Pinned
 * entries are never evicted; while they alone exceed the capacity the cache is over it
 * until they are released (an insert never fails for lack of room). Capacity 0 caches
 * nothing: inserts return detached handles (see cf_cache_detached).
 *
 * Keys never go stale by reuse: ids come from cf_cache_new_id, unique in the process, so
 * a table deleted and a new one written at the same path have different ids. Entries of
 * an id that will not be read again can be dropped at once (cf_cache_erase_id) or left
 * to age out.
 *
 * The cache is split in CF_CACHE_SHARDS shards by key hash, each with its own mutex, LRU
 * list and share of the capacity, so readers on many threads rarely contend.
 *
 * Thread safety: every function may be called from any thread at once. A handle
 * belongs to whoever holds it; cf_cache_dup gives a second, independent one.
 */
#ifndef CF_UTIL_CACHE_H
#define CF_UTIL_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CF_CACHE_SHARDS 16

/* The default capacity of a db's block cache (cf_db_options.block_cache_bytes 0). */
#define CF_CACHE_DEFAULT_CAPACITY ((size_t) 64 << 20)

typedef struct cf_cache cf_cache;
typedef struct cf_cache_handle cf_cache_handle;

typedef void (*cf_cache_deleter) (void *value);

/* A new cache of capacity bytes with one reference; NULL on no memory. */
cf_cache   *cf_cache_new(size_t capacity);

/*
 * Reference counting (each table using the cache holds one). The last unref frees the
 * cache and every entry in it. REQUIRES: no handle is outstanding then.
 */
void		cf_cache_ref(cf_cache *c);
void		cf_cache_unref(cf_cache *c);

/* An id no other caller of this function in the process ever gets (never 0). */
uint64_t	cf_cache_new_id(void);

/* A handle on the entry (id, off), or NULL if it is not cached (a miss). */
cf_cache_handle *cf_cache_lookup(cf_cache *c, uint64_t id, uint64_t off);

/*
 * Caches value under (id, off) and returns a handle on it. If the key is already
 * cached (another thread loaded the same block meanwhile), value is deleted at once
 * and the handle is on the entry already there: values under one key are equal by
 * contract. Entries may be evicted to make room. NULL on no memory (value not deleted:
 * it is still the caller's). With capacity 0, a detached handle.
 */
cf_cache_handle *cf_cache_insert(cf_cache *c, uint64_t id, uint64_t off, void *value,
								 size_t charge, cf_cache_deleter deleter);

/*
 * A handle on value outside any cache (nothing is charged, nothing can find it): its
 * release deletes value. For readers that must not fill the cache, or have none.
 * NULL on no memory (value not deleted).
 */
cf_cache_handle *cf_cache_detached(void *value, cf_cache_deleter deleter);

/* Another handle on the same entry, released on its own. */
cf_cache_handle *cf_cache_dup(cf_cache_handle *h);

void	   *cf_cache_value(const cf_cache_handle *h);

/* Drops a handle. NULL is accepted. */
void		cf_cache_release(cf_cache_handle *h);

/* Drops every entry of id from the cache (handles on them stay valid). */
void		cf_cache_erase_id(cf_cache *c, uint64_t id);

/* A new capacity, effective at once (evicting what no longer fits). */
void		cf_cache_set_capacity(cf_cache *c, size_t capacity);

typedef struct cf_cache_stats
{
	size_t		capacity;
	size_t		usage;			/* sum of the charges of the entries in the cache */
	size_t		entries;
	uint64_t	hits;			/* lookups that found the key */
	uint64_t	misses;			/* lookups that did not */
	uint64_t	inserts;		/* entries added (an insert of a cached key not counted) */
	uint64_t	evictions;		/* entries removed to make room */
} cf_cache_stats;

void		cf_cache_get_stats(cf_cache *c, cf_cache_stats *st);

#endif							/* CF_UTIL_CACHE_H */
