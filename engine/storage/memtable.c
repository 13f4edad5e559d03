/*
 * storage/memtable.c — one skiplist of entries per column family (see memtable.h).
 *
 * Entry order: row (token bytes, then key bytes), then `bound` (only search targets
 * carry a non-zero bound: -1 sorts before every entry of its row, +1 after), then the
 * path under the CF's comparators. The header entry has the empty path and so comes
 * first in its row.
 *
 * Publication: every entry, version and meta record is fully written before a release
 * store makes it reachable (the skiplist publishes entries; the entry's `version`
 * pointer is swapped with __atomic release stores and read with acquire loads).
 */
#include "storage/memtable.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "util/arena.h"

/* A row's token and key, stored once per row and shared by its entries. */
typedef struct mt_row
{
	const uint8_t *bytes;		/* token, then key */
	uint16_t	token_len;
	uint16_t	key_len;
} mt_row;

/* One version of a cell; immutable once published. */
typedef struct mt_version
{
	int64_t		timestamp;
	int32_t		ttl;
	int32_t		local_time;
	uint32_t	value_len;
	uint8_t		flags;
	uint8_t		value[];
} mt_version;

/*
 * A header's deletion info: a small snapshot, immutable once published and replaced
 * whole. Its tombstones are the first n_tombs slots of an append-only array shared by
 * the row's successive snapshots: a writer fills slot n_tombs (which no published
 * snapshot covers) and then publishes a snapshot with n_tombs + 1, so readers never see
 * a slot being written. A full array is copied once into one of twice the capacity, so
 * adding a tombstone is amortised O(1) and memory stays linear in their number.
 */
typedef struct mt_meta
{
	cf_deletion del;
	size_t		n_tombs;
	size_t		cap;
	cf_range_tomb *tombs;
} mt_meta;

typedef struct mt_entry
{
	const mt_row *row;
	void	   *current;		/* mt_version (cell) or mt_meta (header); atomic */
	union
	{
		const uint8_t *p;		/* sc, then name, in the arena */
		uint8_t		inl[8];		/* ... or here, when they fit (names_inline) */
	}			names;
	uint16_t	sc_len;
	uint16_t	name_len;
	int8_t		bound;			/* search targets only: row -1 before, +1 after */
	uint8_t		header;
	uint8_t		name_inf;		/* search targets only: the name is +infinity */
} mt_entry;

struct cf_memtable
{
	cf_col_order order;
	cf_arena   *arena;			/* rows, entries, names, versions, deletion info */
	cf_arena   *index;			/* the skiplist and its nodes only */
	cf_skiplist *list;
	pthread_mutex_t write_lock;
	uint64_t	ops;			/* atomic */
	uint64_t	rows;			/* atomic */
	int			refs;			/* atomic */
};

static inline cf_slice
row_token(const mt_row *r)
{
	return cf_slice_of(r->bytes, r->token_len);
}

static inline cf_slice
row_key(const mt_row *r)
{
	return cf_slice_of(r->bytes + r->token_len, r->key_len);
}

/*
 * Whether n bytes of names live inside the entry: a short name (most are) then costs
 * no allocation of its own, nor the padding before the next 16-aligned one.
 */
static inline bool
names_inline(size_t n)
{
	return n <= sizeof(((mt_entry *) NULL)->names.inl);
}

static inline const uint8_t *
entry_names(const mt_entry *e)
{
	return names_inline((size_t) e->sc_len + e->name_len) ? e->names.inl : e->names.p;
}

/*
 * Sets e's names to sc then name: copied into the entry when they fit, else to buf
 * (room for both), which e then points to. REQUIRES: buf != NULL unless they fit.
 */
static void
entry_set_names(mt_entry *e, cf_slice sc, cf_slice name, uint8_t *buf)
{
	uint8_t    *dst = names_inline(sc.len + name.len) ? e->names.inl : buf;

	if (sc.len)
		memcpy(dst, sc.p, sc.len);
	if (name.len)
		memcpy(dst + sc.len, name.p, name.len);
	if (dst == buf)
		e->names.p = buf;
	e->sc_len = (uint16_t) sc.len;
	e->name_len = (uint16_t) name.len;
}

static inline cf_slice
entry_sc(const mt_entry *e)
{
	return cf_slice_of(entry_names(e), e->sc_len);
}

static inline cf_slice
entry_name(const mt_entry *e)
{
	return cf_slice_of(entry_names(e) + e->sc_len, e->name_len);
}

/*
 * A token's first 8 bytes, big-endian, zero-padded: entries of different rows whose
 * prefixes differ compare by them alone, as their tokens' bytes would (a difference
 * within the first 8 bytes decides memcmp order, and a shorter token that is a prefix
 * of the other pads with zeros, so it never compares greater). The skiplist keeps it
 * in every node (entry_prefix): most compares of a search are between rows, and this
 * spares them a load of the entry, its row and its bytes, usually a cache miss each.
 */
static inline uint64_t
tok_prefix(cf_slice t)
{
	uint64_t	v = 0;

	for (size_t i = 0; i < 8; i++)
		v = v << 8 | (i < t.len ? t.p[i] : 0);
	return v;
}

static int
entry_cmp(void *ctx, const void *va, const void *vb)
{
	const cf_col_order *o = ctx;
	const mt_entry *a = va;
	const mt_entry *b = vb;
	int			c;

	if (a->row != b->row)
	{
		c = cf_slice_cmp(row_token(a->row), row_token(b->row));
		if (c == 0)
			c = cf_slice_cmp(row_key(a->row), row_key(b->row));
		if (c != 0)
			return c;
	}
	if (a->bound != b->bound)
		return a->bound < b->bound ? -1 : 1;
	if (a->header != b->header)
		return a->header ? -1 : 1;
	if (a->header)
		return 0;
	if (o->super && (c = cf_type_compare(o->cmp, entry_sc(a), entry_sc(b))) != 0)
		return c;
	if (a->name_inf != b->name_inf)
		return a->name_inf ? 1 : -1;
	if (a->name_inf)
		return 0;
	return cf_type_compare(o->super ? o->subcmp : o->cmp, entry_name(a), entry_name(b));
}

/*
 * The skiplist's prefix of an entry: its row's token prefix, which entry_cmp's first
 * test orders by (entries of one row share it), so it never contradicts entry_cmp.
 */
static uint64_t
entry_prefix(void *ctx, const void *ve)
{
	(void) ctx;
	return tok_prefix(row_token(((const mt_entry *) ve)->row));
}

cf_memtable *
cf_memtable_new(const cf_col_order *order)
{
	cf_memtable *mt = calloc(1, sizeof(*mt));

	if (mt == NULL)
		return NULL;
	mt->order = *order;
	mt->arena = cf_arena_new(0);
	mt->index = cf_arena_new(0);
	if (mt->arena && mt->index)
		mt->list = cf_skiplist_new_prefixed(mt->index, entry_cmp, entry_prefix, &mt->order);
	if (mt->list == NULL)
	{
		cf_arena_free(mt->arena);
		cf_arena_free(mt->index);
		free(mt);
		return NULL;
	}
	pthread_mutex_init(&mt->write_lock, NULL);
	mt->refs = 1;
	return mt;
}

void
cf_memtable_ref(cf_memtable *mt)
{
	__atomic_add_fetch(&mt->refs, 1, __ATOMIC_RELAXED);
}

void
cf_memtable_unref(cf_memtable *mt)
{
	if (mt && __atomic_sub_fetch(&mt->refs, 1, __ATOMIC_ACQ_REL) == 0)
	{
		pthread_mutex_destroy(&mt->write_lock);
		cf_arena_free(mt->arena);
		cf_arena_free(mt->index);
		free(mt);
	}
}

size_t
cf_memtable_memory(const cf_memtable *mt)
{
	return cf_arena_memory_usage(mt->arena) + cf_arena_memory_usage(mt->index);
}

uint64_t
cf_memtable_ops(const cf_memtable *mt)
{
	return __atomic_load_n(&mt->ops, __ATOMIC_RELAXED);
}

uint64_t
cf_memtable_rows(const cf_memtable *mt)
{
	return __atomic_load_n(&mt->rows, __ATOMIC_RELAXED);
}

const cf_col_order *
cf_memtable_order(const cf_memtable *mt)
{
	return &mt->order;
}

/* ---- writing (under write_lock) ---- */

/*
 * The stored row for (token, key), or a new one copied into the arena (*is_new set).
 * A new row is reachable only through its entries, so it counts as a row once the
 * caller has inserted one; if none is, the arena bytes are simply unused.
 */
static const mt_row *
find_or_add_row(cf_memtable *mt, cf_slice token, cf_slice key, bool *is_new,
				cf_skiplist_hint *hint)
{
	mt_row		probe_row = {NULL, 0, 0};
	uint8_t    *bytes;
	mt_row	   *row;
	uint8_t		stack[512];
	uint8_t    *tmp = stack;
	mt_entry	probe = {0};
	const mt_entry *e;

	/* the probe needs token and key contiguous; small ones go on the stack */
	if (token.len + key.len > sizeof(stack) && !(tmp = malloc(token.len + key.len)))
		return NULL;
	memcpy(tmp, token.p, token.len);
	memcpy(tmp + token.len, key.p, key.len);
	probe_row.bytes = tmp;
	probe_row.token_len = (uint16_t) token.len;
	probe_row.key_len = (uint16_t) key.len;
	probe.row = &probe_row;
	probe.bound = -1;

	/* the hint: where the row's entries are, or go; its cells are inserted from there */
	e = cf_skiplist_seek_hint(mt->list, &probe, hint);
	if (e != NULL && cf_slice_eq(row_token(e->row), token) && cf_slice_eq(row_key(e->row), key))
	{
		if (tmp != stack)
			free(tmp);
		return e->row;
	}
	if (tmp != stack)
		free(tmp);

	row = cf_arena_alloc(mt->arena, sizeof(*row));
	bytes = cf_arena_alloc(mt->arena, token.len + key.len);
	if (row == NULL || bytes == NULL)
		return NULL;
	memcpy(bytes, token.p, token.len);
	memcpy(bytes + token.len, key.p, key.len);
	row->bytes = bytes;
	row->token_len = (uint16_t) token.len;
	row->key_len = (uint16_t) key.len;
	*is_new = true;
	return row;
}

static mt_entry *
new_entry(cf_memtable *mt, const mt_row *row, cf_slice sc, cf_slice name, bool header)
{
	mt_entry   *e = cf_arena_alloc(mt->arena, sizeof(*e));
	uint8_t    *names = NULL;

	if (e == NULL || (!names_inline(sc.len + name.len) &&
					  (names = cf_arena_alloc(mt->arena, sc.len + name.len)) == NULL))
		return NULL;
	/* every field, so none is left as whatever the arena block held */
	*e = (mt_entry) {.row = row,.header = header};
	entry_set_names(e, sc, name, names);
	return e;
}

static mt_version *
new_version(cf_memtable *mt, const cf_cell *c)
{
	mt_version *v = cf_arena_alloc(mt->arena, sizeof(*v) + c->value.len);

	if (v == NULL)
		return NULL;
	v->timestamp = c->timestamp;
	v->ttl = c->ttl;
	v->local_time = c->local_time;
	v->value_len = (uint32_t) c->value.len;
	v->flags = c->flags;
	if (c->value.len)
		memcpy(v->value, c->value.p, c->value.len);
	return v;
}

static void
version_to_cell(const mt_entry *e, const mt_version *v, cf_cell *c)
{
	c->sc = entry_sc(e);
	c->name = entry_name(e);
	c->value = cf_slice_of(v->value, v->value_len);
	c->timestamp = v->timestamp;
	c->ttl = v->ttl;
	c->local_time = v->local_time;
	c->flags = v->flags;
}

/* What cf_skiplist_find_or_insert builds when a cell's path is new. */
typedef struct new_cell
{
	cf_memtable *mt;
	const mt_row *row;
	const cf_cell *c;
} new_cell;

static const void *
make_entry(void *arg)
{
	new_cell   *n = arg;
	mt_entry   *e = new_entry(n->mt, n->row, n->c->sc, n->c->name, false);
	mt_version *v = e ? new_version(n->mt, n->c) : NULL;

	if (v == NULL)
		return NULL;
	e->current = v;
	return e;
}

/*
 * Stores c: a new path costs one skiplist search from hint (the row's place: a walk
 * among the row's own entries), an existing one a reconcile.
 */
static cf_status *
apply_cell(cf_memtable *mt, const mt_row *row, const cf_cell *c, const cf_skiplist_hint *hint)
{
	mt_entry	probe = {.row = row};
	uint8_t		stack[1024];
	uint8_t    *tmp = stack;
	new_cell	arg = {mt, row, c};
	mt_entry   *e;
	mt_version *v;
	bool		inserted;

	if (c->sc.len + c->name.len > sizeof(stack) && !(tmp = malloc(c->sc.len + c->name.len)))
		return cf_status_make(CF_ERR_NO_MEMORY, "memtable: out of memory");
	entry_set_names(&probe, c->sc, c->name, tmp);
	e = (mt_entry *) cf_skiplist_find_or_insert_hint(mt->list, hint, &probe, make_entry, &arg,
													  &inserted);
	if (tmp != stack)
		free(tmp);

	if (e == NULL)
		return cf_status_make(CF_ERR_NO_MEMORY, "memtable: out of memory");
	if (!inserted)
	{
		const mt_version *cur = __atomic_load_n(&e->current, __ATOMIC_ACQUIRE);
		cf_cell		old;

		version_to_cell(e, cur, &old);
		if (cf_cell_reconcile(c, &old) <= 0)
			return NULL;		/* the stored version wins or is identical */
		if ((v = new_version(mt, c)) == NULL)
			return cf_status_make(CF_ERR_NO_MEMORY, "memtable: out of memory");
		__atomic_store_n(&e->current, v, __ATOMIC_RELEASE);
	}
	return NULL;
}

/* Copies a slice into the arena (empty stays empty). */
static bool
arena_slice(cf_arena *a, cf_slice in, cf_slice *out)
{
	uint8_t    *p = in.len ? cf_arena_dup(a, in.p, in.len) : NULL;

	if (in.len && p == NULL)
		return false;
	*out = cf_slice_of(p, in.len);
	return true;
}

/*
 * Merges a row deletion and range tombstones into the row's header, creating it if
 * needed. New tombstones already shadowed by the row deletion are not stored; older
 * ones it shadows stay (they hide nothing more than the deletion does) so that no
 * write rewrites the array.
 */
static cf_status *
apply_deletion(cf_memtable *mt, const mt_row *row, const cf_cf_update *u)
{
	mt_entry	probe = {.row = row, .header = 1};
	mt_entry   *e = (mt_entry *) cf_skiplist_find(mt->list, &probe);
	const mt_meta *old = e ? __atomic_load_n(&e->current, __ATOMIC_ACQUIRE) : NULL;
	mt_meta    *m = cf_arena_alloc(mt->arena, sizeof(*m));

	if (m == NULL)
		return cf_status_make(CF_ERR_NO_MEMORY, "memtable: out of memory");
	*m = old ? *old : (mt_meta) {cf_deletion_none(), 0, 0, NULL};
	m->del = cf_deletion_max(m->del, u->row_del);

	for (size_t i = 0; i < u->n_tombs; i++)
	{
		const cf_range_tomb *t = &u->tombs[i];
		cf_range_tomb *dst;

		if (cf_deletion_shadows(m->del, t->del.timestamp))
			continue;
		if (m->n_tombs == m->cap)
		{
			size_t		cap = m->cap ? 2 * m->cap : 4;
			cf_range_tomb *grown = cf_arena_alloc(mt->arena, cap * sizeof(*grown));

			if (grown == NULL)
				return cf_status_make(CF_ERR_NO_MEMORY, "memtable: out of memory");
			if (m->n_tombs)
				memcpy(grown, m->tombs, m->n_tombs * sizeof(*grown));
			m->tombs = grown;
			m->cap = cap;
		}
		dst = &m->tombs[m->n_tombs];
		if (!arena_slice(mt->arena, t->sc, &dst->sc) ||
			!arena_slice(mt->arena, t->start, &dst->start) ||
			!arena_slice(mt->arena, t->finish, &dst->finish))
			return cf_status_make(CF_ERR_NO_MEMORY, "memtable: out of memory");
		dst->del = t->del;
		m->n_tombs++;
	}

	if (e)
	{
		__atomic_store_n(&e->current, m, __ATOMIC_RELEASE);
		return NULL;
	}
	if ((e = new_entry(mt, row, cf_slice_of(NULL, 0), cf_slice_of(NULL, 0), true)) == NULL)
		return cf_status_make(CF_ERR_NO_MEMORY, "memtable: out of memory");
	e->current = m;
	if (!cf_skiplist_insert(mt->list, e))
		return cf_status_make(CF_ERR_NO_MEMORY, "memtable: out of memory");
	return NULL;
}

cf_status *
cf_memtable_apply(cf_memtable *mt, cf_slice token, cf_slice key, const cf_cf_update *u)
{
	const mt_row *row;
	cf_status  *s = NULL;
	uint64_t	ops = u->n_cells + u->n_tombs + !cf_deletion_is_live(u->row_del);
	uint64_t	entries_before;
	bool		is_new = false;
	cf_skiplist_hint hint;

	if (token.len > UINT16_MAX || key.len > UINT16_MAX)
		return cf_status_make(CF_ERR_INVALID, "memtable: token or key over 65535 bytes");
	if (ops == 0)
		return NULL;			/* nothing to store: no row either */

	pthread_mutex_lock(&mt->write_lock);
	entries_before = cf_skiplist_count(mt->list);
	row = find_or_add_row(mt, token, key, &is_new, &hint);
	if (row == NULL)
		s = cf_status_make(CF_ERR_NO_MEMORY, "memtable: out of memory");
	if (!s && (u->n_tombs || !cf_deletion_is_live(u->row_del)))
		s = apply_deletion(mt, row, u);
	for (size_t i = 0; !s && i < u->n_cells; i++)
		s = apply_cell(mt, row, &u->cells[i], &hint);
	if (is_new && cf_skiplist_count(mt->list) > entries_before)
		__atomic_add_fetch(&mt->rows, 1, __ATOMIC_RELAXED);
	pthread_mutex_unlock(&mt->write_lock);

	if (!s)
		__atomic_add_fetch(&mt->ops, ops, __ATOMIC_RELAXED);
	return s;
}

/* ---- reading ---- */

void
cf_mt_iter_init(cf_mt_iter *it, const cf_memtable *mt)
{
	cf_skiplist_iter_init(&it->it, mt->list);
	it->mt = mt;
}

bool
cf_mt_iter_valid(const cf_mt_iter *it)
{
	return cf_skiplist_iter_valid(&it->it);
}

void
cf_mt_iter_next(cf_mt_iter *it)
{
	cf_skiplist_iter_next(&it->it);
}

void
cf_mt_iter_prev(cf_mt_iter *it)
{
	cf_skiplist_iter_prev(&it->it);
}

void
cf_mt_iter_seek_first(cf_mt_iter *it)
{
	cf_skiplist_iter_seek_first(&it->it);
}

void
cf_mt_iter_seek_last(cf_mt_iter *it)
{
	cf_skiplist_iter_seek_last(&it->it);
}

/*
 * Search targets point at the caller's bytes: the row's token and key must be
 * contiguous for mt_row, so they are copied to a small buffer (or the heap when long).
 */
typedef struct probe
{
	mt_row		row;
	mt_entry	entry;
	uint8_t    *heap;
	uint8_t		buf[256];
} probe;

static bool
probe_init(probe *p, cf_slice token, cf_slice key, int8_t bound, cf_slice sc, cf_slice name,
		   bool le)
{
	size_t		n = token.len + key.len + sc.len + name.len;
	uint8_t    *b = p->buf;

	/* p->entry points into p (its names may be inline): p must not move once set */
	p->heap = NULL;
	if (n > sizeof(p->buf) && (b = p->heap = malloc(n)) == NULL)
		return false;
	if (token.len)
		memcpy(b, token.p, token.len);
	if (key.len)
		memcpy(b + token.len, key.p, key.len);
	p->row = (mt_row) {b, (uint16_t) token.len, (uint16_t) key.len};
	p->entry = (mt_entry) {
		.row = &p->row,.bound = bound,
		.header = (bound == 0 && sc.len == 0 && name.len == 0),
	};
	entry_set_names(&p->entry, sc, name, b + token.len + key.len);
	if (le && bound == 0 && name.len == 0)
	{
		/* an empty finish is open: the end of super column sc, or of the row */
		p->entry.header = 0;
		if (sc.len)
			p->entry.name_inf = 1;
		else
			p->entry.bound = 1;
	}
	return true;
}

static void
probe_done(probe *p)
{
	free(p->heap);
}

/* Positions it by a probe; on allocation failure the iterator becomes invalid. */
static void
seek_probe(cf_mt_iter *it, cf_slice token, cf_slice key, int8_t bound,
		   cf_slice sc, cf_slice name, bool le)
{
	probe		p;

	if (!probe_init(&p, token, key, bound, sc, name, le))
	{
		it->it.node = NULL;
		return;
	}
	if (le)
		cf_skiplist_iter_seek_le(&it->it, &p.entry);
	else
		cf_skiplist_iter_seek(&it->it, &p.entry);
	probe_done(&p);
}

void
cf_mt_iter_seek_row(cf_mt_iter *it, cf_slice token, cf_slice key)
{
	seek_probe(it, token, key, -1, cf_slice_of(NULL, 0), cf_slice_of(NULL, 0), false);
}

void
cf_mt_iter_seek_after_row(cf_mt_iter *it, cf_slice token, cf_slice key)
{
	seek_probe(it, token, key, 1, cf_slice_of(NULL, 0), cf_slice_of(NULL, 0), false);
}

void
cf_mt_iter_seek_row_last(cf_mt_iter *it, cf_slice token, cf_slice key)
{
	seek_probe(it, token, key, 1, cf_slice_of(NULL, 0), cf_slice_of(NULL, 0), true);
}

void
cf_mt_iter_seek(cf_mt_iter *it, cf_slice token, cf_slice key, cf_slice sc, cf_slice name)
{
	seek_probe(it, token, key, 0, sc, name, false);
}

void
cf_mt_iter_seek_le(cf_mt_iter *it, cf_slice token, cf_slice key, cf_slice sc, cf_slice name)
{
	seek_probe(it, token, key, 0, sc, name, true);
}

static inline const mt_entry *
cur_entry(const cf_mt_iter *it)
{
	return cf_skiplist_iter_key(&it->it);
}

cf_slice
cf_mt_iter_token(const cf_mt_iter *it)
{
	return row_token(cur_entry(it)->row);
}

cf_slice
cf_mt_iter_key(const cf_mt_iter *it)
{
	return row_key(cur_entry(it)->row);
}

bool
cf_mt_iter_is_header(const cf_mt_iter *it)
{
	return cur_entry(it)->header;
}

void
cf_mt_iter_cell(const cf_mt_iter *it, cf_cell *cell)
{
	const mt_entry *e = cur_entry(it);

	version_to_cell(e, __atomic_load_n(&e->current, __ATOMIC_ACQUIRE), cell);
}

void
cf_mt_iter_deletion(const cf_mt_iter *it, cf_deletion *del,
					const cf_range_tomb **tombs, size_t *n_tombs)
{
	const mt_meta *m = __atomic_load_n(&cur_entry(it)->current, __ATOMIC_ACQUIRE);

	*del = m->del;
	*tombs = m->tombs;
	*n_tombs = m->n_tombs;
}
