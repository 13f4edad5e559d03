/*
 * storage/skiplist.c — one writer, lock-free readers: LevelDB's skiplist in C11
 * atomics (see skiplist.h).
 *
 * A node is its key's prefix (see cf_skiplist_prefix) and key pointer followed by
 * height next pointers, allocated in one piece from the arena; the head is a node of
 * SL_MAX_HEIGHT levels with no key. Heights are drawn with probability 1/SL_BRANCHING
 * of each extra level from a xorshift64* state that only the writer touches.
 *
 * Memory ordering: the writer fills a new node (prefix, key and next pointers, plain or
 * relaxed stores) and then links it into each level with a release store into the
 * predecessor's next pointer; readers load next pointers with acquire, so whoever
 * reaches a node through a pointer sees it fully initialised. Lower levels are
 * linked first, so a node reachable on level i is already on every level below i.
 * No lock is taken anywhere: the caller serialises writers.
 */
#include "storage/skiplist.h"

#include <assert.h>
#include <stdint.h>

#define SL_MAX_HEIGHT CF_SKIPLIST_MAX_HEIGHT
#define SL_BRANCHING 4

struct cf_skiplist_node
{
	uint64_t	pfx;			/* prefix(key); immutable once published */
	const void *key;
	cf_skiplist_node *next[];	/* height entries; accessed atomically */
};

struct cf_skiplist
{
	cf_arena   *arena;
	cf_skiplist_cmp cmp;
	cf_skiplist_prefix prefix;	/* NULL: every prefix is 0 */
	void	   *ctx;
	cf_skiplist_node *head;
	int			max_height;		/* atomic: highest level in use, >= 1 */
	size_t		count;			/* atomic: keys inserted */
	uint64_t	rng;			/* xorshift64* state; writer only */
};

static inline cf_skiplist_node *
sl_next(const cf_skiplist_node *n, int level)
{
	return __atomic_load_n(&n->next[level], __ATOMIC_ACQUIRE);
}

static inline void
sl_set_next(cf_skiplist_node *n, int level, cf_skiplist_node *x)
{
	__atomic_store_n(&n->next[level], x, __ATOMIC_RELEASE);
}

/*
 * The height is read relaxed, as in LevelDB. A reader that sees a stale (smaller)
 * value merely starts lower and walks a little further. A reader that sees the new
 * value before the head's new pointers either finds NULL there and drops to the next
 * level, or finds the new node, which it reached through an acquire load and so sees
 * whole. Either way it is correct; no ordering with the nodes is needed.
 */
static inline int
sl_max_height(const cf_skiplist *list)
{
	return __atomic_load_n(&list->max_height, __ATOMIC_RELAXED);
}

static inline uint64_t
sl_prefix(const cf_skiplist *list, const void *key)
{
	return list->prefix ? list->prefix(list->ctx, key) : 0;
}

/*
 * <0, 0, >0 as node's key sorts before, equal to, after key, whose prefix is kp: the
 * prefixes decide when they differ, without a load of the node's key or a call of cmp.
 */
static inline int
sl_cmp_node(const cf_skiplist *list, const cf_skiplist_node *node, const void *key,
			uint64_t kp)
{
	if (node->pfx != kp)
		return node->pfx < kp ? -1 : 1;
	return list->cmp(list->ctx, node->key, key);
}

/* A node of height levels holding key, its next pointers NULL; NULL on no memory. */
static cf_skiplist_node *
sl_new_node(cf_skiplist *list, const void *key, int height)
{
	cf_skiplist_node *x;

	x = cf_arena_alloc(list->arena,
					   sizeof(cf_skiplist_node) + sizeof(x->next[0]) * (size_t) height);
	if (x == NULL)
		return NULL;
	x->key = key;
	x->pfx = key ? sl_prefix(list, key) : 0;
	for (int i = 0; i < height; i++)
		__atomic_store_n(&x->next[i], NULL, __ATOMIC_RELAXED);
	return x;
}

/* 1 + the number of successes of a 1-in-SL_BRANCHING draw, capped; writer only. */
static int
sl_random_height(cf_skiplist *list)
{
	int			height = 1;

	while (height < SL_MAX_HEIGHT)
	{
		uint64_t	x = list->rng;

		x ^= x >> 12;
		x ^= x << 25;
		x ^= x >> 27;
		list->rng = x;
		/* xorshift64*: the high bits of the product are the good ones. */
		if (((x * 0x2545F4914F6CDD1Dull) >> 32) % SL_BRANCHING != 0)
			break;
		height++;
	}
	return height;
}

/*
 * The first node whose key is >= key, or NULL. When prev is not NULL, prev[i] is set
 * to the last node before that position on level i, for every level in use.
 */
static cf_skiplist_node *
sl_find_ge(const cf_skiplist *list, const void *key, cf_skiplist_node **prev)
{
	cf_skiplist_node *x = list->head;
	int			level = sl_max_height(list) - 1;
	uint64_t	kp = sl_prefix(list, key);

	for (;;)
	{
		cf_skiplist_node *next = sl_next(x, level);

		/*
		 * The node the walk goes to if it drops a level here: fetched while next's key is
		 * compared, so the two likely misses of this step overlap.
		 */
		if (level > 0)
			__builtin_prefetch(sl_next(x, level - 1));
		if (next != NULL && sl_cmp_node(list, next, key, kp) < 0)
			x = next;
		else
		{
			if (prev != NULL)
				prev[level] = x;
			if (level == 0)
				return next;
			level--;
		}
	}
}

/*
 * sl_find_ge starting from hint (see cf_skiplist_find_or_insert_hint): on each level
 * the walk starts at hint's node for that level, unless a higher level already moved
 * past the hint's key — then the node it reached is further on than any hint node,
 * since every key inserted since the hint was taken sorts at or after the hint's key.
 * So the search costs O(log n) within the keys at or after the hint's key, whatever
 * lies before it.
 */
static cf_skiplist_node *
sl_find_ge_from(const cf_skiplist *list, const void *key, cf_skiplist_node *const *hint,
				cf_skiplist_node **prev)
{
	int			level = sl_max_height(list) - 1;
	cf_skiplist_node *x = hint[level];
	bool		moved = false;
	uint64_t	kp = sl_prefix(list, key);

	for (;;)
	{
		cf_skiplist_node *next = sl_next(x, level);

		if (next != NULL && sl_cmp_node(list, next, key, kp) < 0)
		{
			x = next;
			moved = true;
		}
		else
		{
			prev[level] = x;
			if (level == 0)
				return next;
			level--;
			if (!moved)
				x = hint[level];
		}
	}
}

/*
 * The last node whose key is < key (<= key when inclusive), or the head when there is
 * none: LevelDB's FindLessThan, O(log n).
 */
static const cf_skiplist_node *
sl_find_before(const cf_skiplist *list, const void *key, bool inclusive)
{
	const cf_skiplist_node *x = list->head;
	int			level = sl_max_height(list) - 1;
	uint64_t	kp = sl_prefix(list, key);

	for (;;)
	{
		cf_skiplist_node *next = sl_next(x, level);
		int			c;

		if (next != NULL &&
			((c = sl_cmp_node(list, next, key, kp)) < 0 || (inclusive && c == 0)))
			x = next;
		else if (level == 0)
			return x;
		else
			level--;
	}
}

/* The last node, or the head when the list is empty. */
static const cf_skiplist_node *
sl_find_last(const cf_skiplist *list)
{
	const cf_skiplist_node *x = list->head;
	int			level = sl_max_height(list) - 1;

	for (;;)
	{
		cf_skiplist_node *next = sl_next(x, level);

		if (next != NULL)
			x = next;
		else if (level == 0)
			return x;
		else
			level--;
	}
}

cf_skiplist *
cf_skiplist_new(cf_arena *arena, cf_skiplist_cmp cmp, void *ctx)
{
	return cf_skiplist_new_prefixed(arena, cmp, NULL, ctx);
}

cf_skiplist *
cf_skiplist_new_prefixed(cf_arena *arena, cf_skiplist_cmp cmp, cf_skiplist_prefix prefix,
						 void *ctx)
{
	cf_skiplist *list = cf_arena_alloc(arena, sizeof(cf_skiplist));

	if (list == NULL)
		return NULL;
	list->arena = arena;
	list->cmp = cmp;
	list->prefix = prefix;
	list->ctx = ctx;
	list->max_height = 1;
	list->count = 0;
	/* A fixed seed (any non-zero value) keeps shapes, and so timings, reproducible. */
	list->rng = 0x9E3779B97F4A7C15ull;
	list->head = sl_new_node(list, NULL, SL_MAX_HEIGHT);
	if (list->head == NULL)
		return NULL;
	return list;
}

/*
 * Links x, a new node of height levels holding its key, after prev[] (a search's
 * result for that key).
 */
static void
sl_link_node(cf_skiplist *list, cf_skiplist_node **prev, cf_skiplist_node *x, int height)
{
	int			max_height = sl_max_height(list);

	if (height > max_height)
	{
		for (int i = max_height; i < height; i++)
			prev[i] = list->head;
		__atomic_store_n(&list->max_height, height, __ATOMIC_RELAXED);
	}

	for (int i = 0; i < height; i++)
	{
		/* x is not yet reachable: a relaxed store suffices, the release below orders it. */
		__atomic_store_n(&x->next[i],
						 __atomic_load_n(&prev[i]->next[i], __ATOMIC_RELAXED),
						 __ATOMIC_RELAXED);
		sl_set_next(prev[i], i, x);
	}

	__atomic_store_n(&list->count,
					 __atomic_load_n(&list->count, __ATOMIC_RELAXED) + 1,
					 __ATOMIC_RELEASE);
}

/*
 * Links a new node holding key after prev[] (a search's result for key). false when
 * the arena is out of memory (the list is unchanged).
 */
static bool
sl_link(cf_skiplist *list, cf_skiplist_node **prev, const void *key)
{
	int			height = sl_random_height(list);
	cf_skiplist_node *x = sl_new_node(list, key, height);

	if (x == NULL)
		return false;
	sl_link_node(list, prev, x, height);
	return true;
}

bool
cf_skiplist_insert(cf_skiplist *list, const void *key)
{
	cf_skiplist_node *prev[SL_MAX_HEIGHT];
	cf_skiplist_node *x = sl_find_ge(list, key, prev);

	assert(x == NULL || list->cmp(list->ctx, x->key, key) != 0);	/* no duplicates */
	(void) x;
	return sl_link(list, prev, key);
}

/*
 * The end of both find-or-insert calls: x is the first node >= key, prev its
 * predecessors. Returns x's key if it equals key, else links what make builds.
 */
static const void *
sl_found_or_made(cf_skiplist *list, cf_skiplist_node *x, cf_skiplist_node **prev,
				 const void *key, const void *(*make) (void *arg), void *arg, bool *inserted)
{
	const void *made;
	int			height;
	cf_skiplist_node *node;

	*inserted = false;
	if (x != NULL && sl_cmp_node(list, x, key, sl_prefix(list, key)) == 0)
		return x->key;
	/*
	 * The node first, then the key: when make allocates the key from the list's arena,
	 * it lands right after the node, so a search step's load of the node and of the key
	 * it compares usually touch one cache line, or two adjacent ones, not two apart.
	 */
	height = sl_random_height(list);
	if ((node = sl_new_node(list, NULL, height)) == NULL || (made = make(arg)) == NULL)
		return NULL;
	assert(list->cmp(list->ctx, made, key) == 0);
	node->key = made;
	node->pfx = sl_prefix(list, made);
	sl_link_node(list, prev, node, height);
	*inserted = true;
	return made;
}

const void *
cf_skiplist_find_or_insert(cf_skiplist *list, const void *key,
						   const void *(*make) (void *arg), void *arg, bool *inserted)
{
	cf_skiplist_node *prev[SL_MAX_HEIGHT];
	cf_skiplist_node *x = sl_find_ge(list, key, prev);

	return sl_found_or_made(list, x, prev, key, make, arg, inserted);
}

const void *
cf_skiplist_seek_hint(cf_skiplist *list, const void *key, cf_skiplist_hint *hint)
{
	cf_skiplist_node *x = sl_find_ge(list, key, hint->prev);

	/* levels above the current height: the head, where a taller insert links */
	for (int i = sl_max_height(list); i < SL_MAX_HEIGHT; i++)
		hint->prev[i] = list->head;
	return x ? x->key : NULL;
}

const void *
cf_skiplist_find_or_insert_hint(cf_skiplist *list, const cf_skiplist_hint *hint,
								const void *key, const void *(*make) (void *arg), void *arg,
								bool *inserted)
{
	cf_skiplist_node *prev[SL_MAX_HEIGHT];
	cf_skiplist_node *x = sl_find_ge_from(list, key, hint->prev, prev);

	return sl_found_or_made(list, x, prev, key, make, arg, inserted);
}

const void *
cf_skiplist_find(const cf_skiplist *list, const void *key)
{
	const cf_skiplist_node *x = sl_find_ge(list, key, NULL);

	if (x != NULL && sl_cmp_node(list, x, key, sl_prefix(list, key)) == 0)
		return x->key;
	return NULL;
}

size_t
cf_skiplist_count(const cf_skiplist *list)
{
	/* Acquire: a reader that sees count n can reach at least n nodes. */
	return __atomic_load_n(&list->count, __ATOMIC_ACQUIRE);
}

void
cf_skiplist_iter_init(cf_skiplist_iter *it, const cf_skiplist *list)
{
	it->list = list;
	it->node = NULL;
}

bool
cf_skiplist_iter_valid(const cf_skiplist_iter *it)
{
	return it->node != NULL;
}

const void *
cf_skiplist_iter_key(const cf_skiplist_iter *it)
{
	return it->node->key;
}

void
cf_skiplist_iter_next(cf_skiplist_iter *it)
{
	it->node = sl_next(it->node, 0);
}

/* Nodes have no back links: search for the last node before the current key. */
void
cf_skiplist_iter_prev(cf_skiplist_iter *it)
{
	const cf_skiplist_node *x = sl_find_before(it->list, it->node->key, false);

	it->node = x == it->list->head ? NULL : x;
}

void
cf_skiplist_iter_seek(cf_skiplist_iter *it, const void *target)
{
	it->node = sl_find_ge(it->list, target, NULL);
}

void
cf_skiplist_iter_seek_le(cf_skiplist_iter *it, const void *target)
{
	const cf_skiplist_node *x = sl_find_before(it->list, target, true);

	it->node = x == it->list->head ? NULL : x;
}

void
cf_skiplist_iter_seek_first(cf_skiplist_iter *it)
{
	it->node = sl_next(it->list->head, 0);
}

void
cf_skiplist_iter_seek_last(cf_skiplist_iter *it)
{
	const cf_skiplist_node *x = sl_find_last(it->list);

	it->node = x == it->list->head ? NULL : x;
}
