/*
 * util/cache.c — the sharded LRU cache of util/cache.h.
 *
 * Design: every entry has a reference count. The cache's own reference is one while the
 * entry is in the cache's hash table (in_cache); every handle is one more. Leaving the
 * cache (eviction, erase, destroy) drops the cache's reference; whoever drops the last
 * one calls the deleter — outside the shard's lock, so a deleter may take its time.
 *
 * Replacement is CLOCK (second chance), an approximation of LRU that does not touch any
 * list on a hit: the entries of a shard sit on one list in insertion order, and a hit
 * only sets the entry's `referenced` flag. Eviction takes entries from the old end: one
 * that is pinned (a handle holds it) or referenced since it was last looked at has the
 * flag cleared and goes to the young end; the first that is neither is evicted. A hit
 * and a release thus cost a hash probe and a counter under the shard's lock, not the
 * four list splices of a strict LRU (each a cache miss on the neighbours).
 *
 * Attached entries' counts are guarded by their shard's mutex; a detached entry
 * (shard NULL) has no shard, and its count is atomic.
 *
 * Each shard's hash table is open addressing with linear probing, each slot the key's
 * full hash, the entry and its value (see slot), kept at most half full (doubling) and
 * without tombstones (a removal shifts the probe sequence back). A key's hash picks the
 * shard by its top bits and the home slot by its low ones. Why not chains: an entry is
 * a separate allocation, cold in the CPU cache by the time it is looked up again, and
 * walking a chain loads each entry to compare its key; perf put ~70% of a lookup on
 * that load. Here a probe reads the slots (adjacent, a line or two) and dereferences an
 * entry only when its full hash matches, so a miss (every lookup of a scan, which does
 * not fill the cache) costs about one cache line and a hit that plus the entry it takes
 * anyway.
 */
#include "util/cache.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "util/alloc.h"

typedef struct shard shard;

struct cf_cache_handle
{
	uint64_t	id;
	uint64_t	off;
	uint64_t	hash;
	void	   *value;
	size_t		charge;
	cf_cache_deleter deleter;
	shard	   *sh;				/* NULL: detached */
	unsigned	refs;
	bool		in_cache;
	bool		referenced;		/* hit since the clock hand last passed it */
	cf_cache_handle *next_doomed;	/* on a chain of entries to delete */
	cf_cache_handle *prev;		/* on the shard's clock list while in_cache */
	cf_cache_handle *next;
};

/*
 * A hash table slot: e NULL when empty. value is e's (a copy): a probe whose hash
 * matches prefetches it while it loads e, so a hit's caller, who reads the value next,
 * waits for one cold line instead of two in a row.
 */
typedef struct slot
{
	uint64_t	hash;
	cf_cache_handle *e;
	const void *value;
} slot;

/* Aligned to a cache line so threads on different shards do not share lines. */
struct shard
{
	pthread_mutex_t mu;
	size_t		capacity;
	size_t		usage;
	size_t		entries;
	slot	   *slots;
	size_t		n_slots;		/* a power of two, at least twice entries */
	cf_cache_handle clock;		/* list head: next is the oldest */
	uint64_t	hits,
				misses,
				inserts,
				evictions;
} __attribute__((aligned(64)));

struct cf_cache
{
	int			refs;			/* atomic */
	size_t		capacity;		/* atomic: 0 caches nothing */
	shard		shards[CF_CACHE_SHARDS];
};

#define INITIAL_SLOTS 128

static uint64_t
key_hash(uint64_t id, uint64_t off)
{
	/* splitmix64's finaliser over both words */
	uint64_t	z = id * 0x9e3779b97f4a7c15ULL ^ (off + 0x632be59bd9b4e019ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static shard *
shard_of(cf_cache *c, uint64_t hash)
{
	return &c->shards[hash >> 60];	/* 16 shards: the top four bits */
}

static void
list_remove(cf_cache_handle *e)
{
	e->next->prev = e->prev;
	e->prev->next = e->next;
}

/* Appends e as the newest entry of list. */
static void
list_append(cf_cache_handle *list, cf_cache_handle *e)
{
	e->next = list;
	e->prev = list->prev;
	e->prev->next = e;
	e->next->prev = e;
}

static void
list_init(cf_cache_handle *list)
{
	list->next = list->prev = list;
}

/*
 * The slot holding (id, off), or the empty slot ending its probe sequence (there is
 * always one: the table is never full). REQUIRES: s->mu held.
 */
static slot *
find_slot(shard *s, uint64_t id, uint64_t off, uint64_t hash)
{
	size_t		mask = s->n_slots - 1;

	for (size_t i = hash & mask;; i = (i + 1) & mask)
	{
		slot	   *sl = &s->slots[i];

		if (sl->e == NULL)
			return sl;
		if (sl->hash == hash)
		{
			__builtin_prefetch(sl->value);
			if (sl->e->id == id && sl->e->off == off)
				return sl;
		}
	}
}

/*
 * Empties slot sl (occupied), moving back the entries after it whose probe sequence
 * passes through it, so no lookup stops early. REQUIRES: s->mu held.
 */
static void
table_remove(shard *s, slot *sl)
{
	size_t		mask = s->n_slots - 1;
	size_t		hole = (size_t) (sl - s->slots);

	for (size_t j = (hole + 1) & mask; s->slots[j].e; j = (j + 1) & mask)
	{
		size_t		home = s->slots[j].hash & mask;

		/* the entry at j may fill the hole if the hole is no nearer j than its home */
		if (((j - home) & mask) >= ((j - hole) & mask))
		{
			s->slots[hole] = s->slots[j];
			hole = j;
		}
	}
	s->slots[hole].e = NULL;
}

/* Doubles the table; false (the table unchanged) on no memory. */
static bool
grow_table(shard *s)
{
	size_t		n = s->n_slots * 2;
	slot	   *t = calloc(n, sizeof(*t));

	if (t == NULL)
		return false;
	for (size_t i = 0; i < s->n_slots; i++)
	{
		size_t		j;

		if (s->slots[i].e == NULL)
			continue;
		for (j = s->slots[i].hash & (n - 1); t[j].e; j = (j + 1) & (n - 1))
			;
		t[j] = s->slots[i];
	}
	free(s->slots);
	s->slots = t;
	s->n_slots = n;
	return true;
}

/*
 * Takes e (in the cache, already unlinked from the hash table) out of the cache and
 * drops the cache's reference; returns e if that was the last (the caller deletes it
 * after unlocking), else NULL. REQUIRES: s->mu held.
 */
static cf_cache_handle *
leave_cache(shard *s, cf_cache_handle *e)
{
	list_remove(e);
	e->in_cache = false;
	s->usage -= e->charge;
	s->entries--;
	return --e->refs == 0 ? e : NULL;
}

/* Pushes e on a chain of entries to delete. */
static void
doom(cf_cache_handle **doomed, cf_cache_handle *e)
{
	if (e)
	{
		e->next_doomed = *doomed;
		*doomed = e;
	}
}

static void
delete_all(cf_cache_handle *doomed)
{
	while (doomed)
	{
		cf_cache_handle *next = doomed->next_doomed;

		doomed->deleter(doomed->value);
		free(doomed);
		doomed = next;
	}
}

/*
 * Evicts until usage fits: the clock hand goes from the oldest entry on, giving pinned
 * and recently referenced ones a second chance at the young end, and evicting the
 * first that is neither. Every entry is passed at most twice (once to clear its flag),
 * so a shard whose entries are all pinned stays over its capacity rather than spin.
 * REQUIRES: s->mu held.
 */
static void
evict(shard *s, cf_cache_handle **doomed)
{
	size_t		budget = 2 * s->entries;

	while (s->usage > s->capacity && s->clock.next != &s->clock && budget-- > 0)
	{
		cf_cache_handle *e = s->clock.next;

		if (e->refs > 1 || e->referenced)
		{
			e->referenced = false;
			list_remove(e);
			list_append(&s->clock, e);
			continue;
		}
		table_remove(s, find_slot(s, e->id, e->off, e->hash));
		s->evictions++;
		doom(doomed, leave_cache(s, e));
	}
}

static size_t
shard_capacity(size_t capacity)
{
	return capacity / CF_CACHE_SHARDS + (capacity % CF_CACHE_SHARDS != 0);
}

cf_cache *
cf_cache_new(size_t capacity)
{
	cf_cache   *c;

	/* the shards are cache-line aligned */
	if (posix_memalign((void **) &c, _Alignof(cf_cache), sizeof(*c)) != 0)
		return NULL;
	memset(c, 0, sizeof(*c));
	c->refs = 1;
	c->capacity = capacity;
	for (int i = 0; i < CF_CACHE_SHARDS; i++)
	{
		shard	   *s = &c->shards[i];

		pthread_mutex_init(&s->mu, NULL);
		s->capacity = shard_capacity(capacity);
		s->n_slots = INITIAL_SLOTS;
		list_init(&s->clock);
		if ((s->slots = calloc(s->n_slots, sizeof(*s->slots))) == NULL)
		{
			for (int k = 0; k <= i; k++)
			{
				free(c->shards[k].slots);
				pthread_mutex_destroy(&c->shards[k].mu);
			}
			free(c);
			return NULL;
		}
	}
	return c;
}

void
cf_cache_ref(cf_cache *c)
{
	__atomic_add_fetch(&c->refs, 1, __ATOMIC_RELAXED);
}

void
cf_cache_unref(cf_cache *c)
{
	if (c == NULL || __atomic_sub_fetch(&c->refs, 1, __ATOMIC_ACQ_REL) != 0)
		return;
	for (int i = 0; i < CF_CACHE_SHARDS; i++)
	{
		shard	   *s = &c->shards[i];
		cf_cache_handle *doomed = NULL;

		/* no handle is outstanding: every entry has only the cache's reference */
		while (s->clock.next != &s->clock)
			doom(&doomed, leave_cache(s, s->clock.next));
		delete_all(doomed);
		free(s->slots);
		pthread_mutex_destroy(&s->mu);
	}
	free(c);
}

uint64_t
cf_cache_new_id(void)
{
	static uint64_t next_id;

	return __atomic_add_fetch(&next_id, 1, __ATOMIC_RELAXED);
}

cf_cache_handle *
cf_cache_lookup(cf_cache *c, uint64_t id, uint64_t off)
{
	uint64_t	hash = key_hash(id, off);
	shard	   *s = shard_of(c, hash);
	cf_cache_handle *e;

	pthread_mutex_lock(&s->mu);
	e = find_slot(s, id, off, hash)->e;
	if (e)
	{
		e->refs++;
		e->referenced = true;
		s->hits++;
	}
	else
		s->misses++;
	pthread_mutex_unlock(&s->mu);
	return e;
}

cf_cache_handle *
cf_cache_detached(void *value, cf_cache_deleter deleter)
{
	cf_cache_handle *e = cf_zalloc(sizeof(*e));

	if (e == NULL)
		return NULL;
	e->value = value;
	e->deleter = deleter;
	e->refs = 1;
	return e;
}

cf_cache_handle *
cf_cache_insert(cf_cache *c, uint64_t id, uint64_t off, void *value, size_t charge,
				cf_cache_deleter deleter)
{
	uint64_t	hash = key_hash(id, off);
	shard	   *s = shard_of(c, hash);
	cf_cache_handle *e,
			   *doomed = NULL;
	slot	   *sl;

	if (__atomic_load_n(&c->capacity, __ATOMIC_RELAXED) == 0)
		return cf_cache_detached(value, deleter);
	if ((e = cf_zalloc(sizeof(*e))) == NULL)
		return NULL;
	e->id = id;
	e->off = off;
	e->hash = hash;
	e->value = value;
	e->charge = charge;
	e->deleter = deleter;
	e->sh = s;
	pthread_mutex_lock(&s->mu);
	sl = find_slot(s, id, off, hash);
	if (sl->e)
	{
		/* loaded meanwhile by another reader: keep that one */
		cf_cache_handle *have = sl->e;

		have->refs++;
		have->referenced = true;
		pthread_mutex_unlock(&s->mu);
		deleter(value);
		free(e);
		return have;
	}
	if ((s->entries + 1) * 2 > s->n_slots)
	{
		/* over half full: double, or past three quarters serve it uncached */
		if (!grow_table(s) && (s->entries + 1) * 4 > s->n_slots * 3)
		{
			pthread_mutex_unlock(&s->mu);
			free(e);
			return cf_cache_detached(value, deleter);
		}
		sl = find_slot(s, id, off, hash);
	}
	e->refs = 2;				/* the cache's and the handle's */
	e->in_cache = true;
	sl->hash = hash;
	sl->e = e;
	sl->value = value;
	list_append(&s->clock, e);
	s->usage += charge;
	s->entries++;
	s->inserts++;
	evict(s, &doomed);
	pthread_mutex_unlock(&s->mu);
	delete_all(doomed);
	return e;
}

cf_cache_handle *
cf_cache_dup(cf_cache_handle *h)
{
	if (h->sh == NULL)
	{
		__atomic_add_fetch(&h->refs, 1, __ATOMIC_RELAXED);
		return h;
	}
	pthread_mutex_lock(&h->sh->mu);
	h->refs++;
	pthread_mutex_unlock(&h->sh->mu);
	return h;
}

void *
cf_cache_value(const cf_cache_handle *h)
{
	return h->value;
}

void
cf_cache_release(cf_cache_handle *h)
{
	shard	   *s;
	cf_cache_handle *doomed = NULL;

	if (h == NULL)
		return;
	if ((s = h->sh) == NULL)
	{
		if (__atomic_sub_fetch(&h->refs, 1, __ATOMIC_ACQ_REL) == 0)
			doom(&doomed, h);
		delete_all(doomed);
		return;
	}
	pthread_mutex_lock(&s->mu);
	if (--h->refs == 0)
		doom(&doomed, h);		/* out of the cache already */
	else if (h->refs == 1 && s->usage > s->capacity)
		evict(s, &doomed);		/* pins held the shard over its capacity */
	pthread_mutex_unlock(&s->mu);
	delete_all(doomed);
}

void
cf_cache_erase_id(cf_cache *c, uint64_t id)
{
	for (int i = 0; i < CF_CACHE_SHARDS; i++)
	{
		shard	   *s = &c->shards[i];
		cf_cache_handle *doomed = NULL;

		pthread_mutex_lock(&s->mu);
		for (cf_cache_handle *e = s->clock.next, *next; e != &s->clock; e = next)
		{
			next = e->next;
			if (e->id != id)
				continue;
			table_remove(s, find_slot(s, e->id, e->off, e->hash));
			doom(&doomed, leave_cache(s, e));
		}
		pthread_mutex_unlock(&s->mu);
		delete_all(doomed);
	}
}

void
cf_cache_set_capacity(cf_cache *c, size_t capacity)
{
	__atomic_store_n(&c->capacity, capacity, __ATOMIC_RELAXED);
	for (int i = 0; i < CF_CACHE_SHARDS; i++)
	{
		shard	   *s = &c->shards[i];
		cf_cache_handle *doomed = NULL;

		pthread_mutex_lock(&s->mu);
		s->capacity = shard_capacity(capacity);
		evict(s, &doomed);
		pthread_mutex_unlock(&s->mu);
		delete_all(doomed);
	}
}

void
cf_cache_get_stats(cf_cache *c, cf_cache_stats *st)
{
	*st = (cf_cache_stats) {.capacity = __atomic_load_n(&c->capacity, __ATOMIC_RELAXED)};
	for (int i = 0; i < CF_CACHE_SHARDS; i++)
	{
		shard	   *s = &c->shards[i];

		pthread_mutex_lock(&s->mu);
		st->usage += s->usage;
		st->entries += s->entries;
		st->hits += s->hits;
		st->misses += s->misses;
		st->inserts += s->inserts;
		st->evictions += s->evictions;
		pthread_mutex_unlock(&s->mu);
	}
}
