/*
 * storage/skiplist.h — an ordered set of pointers with one writer and lock-free
 * readers: the index of a memtable (rows by token and key, columns by comparator).
 *
 * Keys are opaque pointers ordered by a caller-supplied compare function; the list
 * never copies, moves or frees them. Nodes live in a cf_arena, so a list is freed by
 * freeing its arena. Nothing is ever removed.
 *
 * Thread safety (LevelDB's skiplist contract):
 *  - Writes (cf_skiplist_insert) require external synchronisation: one writer at a
 *    time, typically the memtable's writer lock.
 *  - Reads (contains, iterators) need no lock and may run concurrently with a writer:
 *    a node is published with a release store after it is fully initialised, and read
 *    with acquire loads, so a reader sees either the old or the new list, never a torn
 *    node.
 *  - REQUIRES: a key object is immutable once inserted, as far as the compare function
 *    can see; the arena outlives the list and every iterator over it.
 */
#ifndef CF_STORAGE_SKIPLIST_H
#define CF_STORAGE_SKIPLIST_H

#include <stdbool.h>
#include <stdint.h>

#include "util/arena.h"

/* <0, 0, >0 as a sorts before, equal to, after b. ctx is the list's context. */
typedef int (*cf_skiplist_cmp) (void *ctx, const void *a, const void *b);

typedef struct cf_skiplist cf_skiplist;
typedef struct cf_skiplist_node cf_skiplist_node;

/* A new empty list whose nodes come from arena. NULL on no memory. */
cf_skiplist *cf_skiplist_new(cf_arena *arena, cf_skiplist_cmp cmp, void *ctx);

/*
 * A key's 64-bit prefix: a coarser order than cmp, kept in the key's node so that most
 * steps of a search decide without calling cmp or loading the key. REQUIRES for all
 * keys a, b: prefix(a) < prefix(b) implies cmp(a, b) < 0 (so keys that cmp calls equal
 * have equal prefixes); keys with equal prefixes are ordered by cmp alone.
 */
typedef uint64_t (*cf_skiplist_prefix) (void *ctx, const void *key);

/* cf_skiplist_new with a prefix function (NULL: every prefix is 0, cmp decides). */
cf_skiplist *cf_skiplist_new_prefixed(cf_arena *arena, cf_skiplist_cmp cmp,
									  cf_skiplist_prefix prefix, void *ctx);

/*
 * Inserts key. REQUIRES: no equal key is in the list; external write synchronisation.
 * Returns false (list unchanged) when the arena is out of memory.
 */
bool		cf_skiplist_insert(cf_skiplist *list, const void *key);

/*
 * One search for both: the stored key equal to key if there is one; otherwise the key
 * make(arg) builds (it must compare equal to key) is inserted where the search ended
 * and returned, with *inserted set. NULL when make returns NULL or the arena is out of
 * memory (the list is unchanged). Same synchronisation as cf_skiplist_insert.
 */
const void *cf_skiplist_find_or_insert(cf_skiplist *list, const void *key,
									   const void *(*make) (void *arg), void *arg,
									   bool *inserted);

/* The stored key equal to key, or NULL. */
const void *cf_skiplist_find(const cf_skiplist *list, const void *key);

/* The most levels a list has. */
#define CF_SKIPLIST_MAX_HEIGHT 12

/*
 * Where a writer's search ended: the last node before its key on every level. Writes
 * at or after that key can start from it instead of from the head (a memtable finds a
 * row, then inserts the row's cells: one full search per write, not two).
 */
typedef struct cf_skiplist_hint
{
	cf_skiplist_node *prev[CF_SKIPLIST_MAX_HEIGHT];
} cf_skiplist_hint;

/*
 * The first stored key >= key (NULL if none), as an iterator seek would find it, and
 * the hint for key. Writer only (external write synchronisation).
 */
const void *cf_skiplist_seek_hint(cf_skiplist *list, const void *key, cf_skiplist_hint *hint);

/*
 * cf_skiplist_find_or_insert, searching from hint rather than from the head. REQUIRES:
 * hint came from cf_skiplist_seek_hint for a key k0 <= key, and no key < k0 has been
 * inserted since (keys >= k0 may have been); external write synchronisation.
 */
const void *cf_skiplist_find_or_insert_hint(cf_skiplist *list, const cf_skiplist_hint *hint,
											const void *key,
											const void *(*make) (void *arg), void *arg,
											bool *inserted);

/* Number of keys inserted so far (may lag a concurrent insert). */
size_t		cf_skiplist_count(const cf_skiplist *list);

/* An iterator: a position in the list; copyable, needs no cleanup. */
typedef struct cf_skiplist_iter
{
	const cf_skiplist *list;
	const cf_skiplist_node *node;	/* NULL: not valid */
} cf_skiplist_iter;

void		cf_skiplist_iter_init(cf_skiplist_iter *it, const cf_skiplist *list);
bool		cf_skiplist_iter_valid(const cf_skiplist_iter *it);

/* REQUIRES: valid. */
const void *cf_skiplist_iter_key(const cf_skiplist_iter *it);
void		cf_skiplist_iter_next(cf_skiplist_iter *it);

/* Moves to the last key before the current one, O(log n). REQUIRES: valid. */
void		cf_skiplist_iter_prev(cf_skiplist_iter *it);

/* Moves to the first key >= target (invalid if none). */
void		cf_skiplist_iter_seek(cf_skiplist_iter *it, const void *target);

/* Moves to the last key <= target (invalid if none). */
void		cf_skiplist_iter_seek_le(cf_skiplist_iter *it, const void *target);

void		cf_skiplist_iter_seek_first(cf_skiplist_iter *it);
void		cf_skiplist_iter_seek_last(cf_skiplist_iter *it);

#endif							/* CF_STORAGE_SKIPLIST_H */
