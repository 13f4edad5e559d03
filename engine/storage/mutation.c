/*
 * storage/mutation.c — encoding and decoding of row mutations.
 *
 * Layout (all integers big-endian or unsigned LEB128 varints; see
 * engine/doc/mutation_format.md):
 *   u8 version | bytes key | varint n_cfs | n_cfs × cf_update
 *   cf_update: varint cf_id | u8 has_row_del [i64 ts i32 local] |
 *              varint n_tombs × tomb | varint n_cells × cell
 *   tomb:      bytes sc | bytes start | bytes finish | i64 ts | i32 local
 *   cell:      u8 flags | bytes sc | bytes name | bytes value | i64 ts |
 *              [i32 ttl i32 local if EXPIRING] [i32 local if DELETED]
 *   bytes:     varint length | that many bytes
 *
 * Decoding is two passes over the record: the first validates and counts, the second
 * fills one allocation sized by the first. So counts are never trusted, partial states
 * never need unwinding, and a decoded mutation is a single free.
 */
#include "storage/mutation.h"

#include <stdlib.h>

#define KNOWN_FLAGS (CF_CELL_DELETED | CF_CELL_EXPIRING)

/* Smallest possible encodings, used to bound counts by the bytes left. */
#define MIN_TOMB_BYTES (3 + 8 + 4)
#define MIN_CELL_BYTES (1 + 3 + 8)
#define MIN_CF_BYTES (1 + 1 + 1 + 1)

static cf_status *
check_len(cf_slice s, size_t max, const char *what)
{
	if (s.len > max)
		return cf_status_make(CF_ERR_INVALID, "%s is %zu bytes; the limit is %zu",
							  what, s.len, max);
	return NULL;
}

cf_status *
cf_mutation_encode(const cf_mutation *m, cf_buf *out)
{
	cf_status  *s;

	if ((s = check_len(m->key, CF_KEY_MAX, "row key")))
		return s;

	cf_buf_put_u8(out, CF_MUTATION_VERSION);
	cf_buf_put_bytes(out, m->key);
	cf_buf_put_varint(out, m->n_cfs);
	for (size_t i = 0; i < m->n_cfs; i++)
	{
		const cf_cf_update *u = &m->cfs[i];

		cf_buf_put_varint(out, u->cf_id);
		cf_buf_put_u8(out, !cf_deletion_is_live(u->row_del));
		if (!cf_deletion_is_live(u->row_del))
		{
			cf_buf_put_u64(out, (uint64_t) u->row_del.timestamp);
			cf_buf_put_u32(out, (uint32_t) u->row_del.local_time);
		}
		cf_buf_put_varint(out, u->n_tombs);
		for (size_t t = 0; t < u->n_tombs; t++)
		{
			const cf_range_tomb *rt = &u->tombs[t];

			if ((s = check_len(rt->sc, CF_NAME_MAX, "super column name")) ||
				(s = check_len(rt->start, CF_NAME_MAX, "slice start")) ||
				(s = check_len(rt->finish, CF_NAME_MAX, "slice finish")))
				return s;
			cf_buf_put_bytes(out, rt->sc);
			cf_buf_put_bytes(out, rt->start);
			cf_buf_put_bytes(out, rt->finish);
			cf_buf_put_u64(out, (uint64_t) rt->del.timestamp);
			cf_buf_put_u32(out, (uint32_t) rt->del.local_time);
		}
		cf_buf_put_varint(out, u->n_cells);
		for (size_t c = 0; c < u->n_cells; c++)
		{
			const cf_cell *cell = &u->cells[c];

			if ((s = check_len(cell->sc, CF_NAME_MAX, "super column name")) ||
				(s = check_len(cell->name, CF_NAME_MAX, "column name")))
				return s;
			if (cell->flags & ~KNOWN_FLAGS)
				return cf_status_make(CF_ERR_INTERNAL, "cell has unknown flags 0x%x",
									  cell->flags);
			cf_buf_put_u8(out, cell->flags);
			cf_buf_put_bytes(out, cell->sc);
			cf_buf_put_bytes(out, cell->name);
			cf_buf_put_bytes(out, cell->value);
			cf_buf_put_u64(out, (uint64_t) cell->timestamp);
			if (cell->flags & CF_CELL_EXPIRING)
			{
				cf_buf_put_u32(out, (uint32_t) cell->ttl);
				cf_buf_put_u32(out, (uint32_t) cell->local_time);
			}
			if (cell->flags & CF_CELL_DELETED)
				cf_buf_put_u32(out, (uint32_t) cell->local_time);
		}
	}
	return cf_buf_status(out);
}

/* A count that cannot exceed what the remaining bytes could hold. */
static size_t
get_count(cf_rd *r, size_t min_each)
{
	uint64_t	n = cf_rd_varint(r);

	if (n > cf_rd_left(r) / min_each)
	{
		cf_rd_fail(r);
		return 0;
	}
	return (size_t) n;
}

/*
 * One pass over the record. With m == NULL it only validates and counts (totals in
 * *n_cfs, *n_tombs, *n_cells); otherwise it fills m's arrays, whose sizes pass one
 * established.
 */
static cf_status *
decode_pass(cf_slice data, cf_mutation *m, size_t *n_cfs, size_t *n_tombs, size_t *n_cells)
{
	cf_rd		r;
	uint8_t		version;
	cf_slice	key;
	size_t		ncf;
	size_t		tomb_at = 0;
	size_t		cell_at = 0;

	cf_rd_init(&r, data.p, data.len);
	version = cf_rd_u8(&r);
	if (cf_rd_ok(&r) && version != CF_MUTATION_VERSION)
		return cf_status_make(CF_ERR_CORRUPTION,
							  "mutation: unknown format version %u (this build reads %d)",
							  version, CF_MUTATION_VERSION);
	key = cf_rd_slice(&r, CF_KEY_MAX);
	ncf = get_count(&r, MIN_CF_BYTES);
	if (m)
	{
		m->key = key;
		m->n_cfs = ncf;
	}

	for (size_t i = 0; i < ncf && cf_rd_ok(&r); i++)
	{
		uint64_t	cf_id = cf_rd_varint(&r);
		uint8_t		has_del = cf_rd_u8(&r);
		cf_deletion del = cf_deletion_none();
		size_t		nt;
		size_t		nc;
		cf_cf_update *u = m ? &m->cfs[i] : NULL;

		if (cf_id > UINT32_MAX || has_del > 1)
			cf_rd_fail(&r);
		if (has_del)
		{
			del.timestamp = (int64_t) cf_rd_u64(&r);
			del.local_time = (int32_t) cf_rd_u32(&r);
			if (del.timestamp == CF_LIVE)
				cf_rd_fail(&r);
		}
		nt = get_count(&r, MIN_TOMB_BYTES);
		if (u)
		{
			u->cf_id = (uint32_t) cf_id;
			u->row_del = del;
			u->tombs = m->cfs[0].tombs + tomb_at;
			u->n_tombs = nt;
		}
		for (size_t t = 0; t < nt && cf_rd_ok(&r); t++)
		{
			cf_range_tomb rt;

			rt.sc = cf_rd_slice(&r, CF_NAME_MAX);
			rt.start = cf_rd_slice(&r, CF_NAME_MAX);
			rt.finish = cf_rd_slice(&r, CF_NAME_MAX);
			rt.del.timestamp = (int64_t) cf_rd_u64(&r);
			rt.del.local_time = (int32_t) cf_rd_u32(&r);
			if (u)
				u->tombs[t] = rt;
		}
		tomb_at += nt;

		nc = get_count(&r, MIN_CELL_BYTES);
		if (u)
		{
			u->cells = m->cfs[0].cells + cell_at;
			u->n_cells = nc;
		}
		for (size_t c = 0; c < nc && cf_rd_ok(&r); c++)
		{
			cf_cell		cell = {0};

			cell.flags = cf_rd_u8(&r);
			if ((cell.flags & ~KNOWN_FLAGS) ||
				cell.flags == (CF_CELL_DELETED | CF_CELL_EXPIRING))
				cf_rd_fail(&r);
			cell.sc = cf_rd_slice(&r, CF_NAME_MAX);
			cell.name = cf_rd_slice(&r, CF_NAME_MAX);
			cell.value = cf_rd_slice(&r, SIZE_MAX);
			cell.timestamp = (int64_t) cf_rd_u64(&r);
			if (cell.flags & CF_CELL_EXPIRING)
			{
				cell.ttl = (int32_t) cf_rd_u32(&r);
				cell.local_time = (int32_t) cf_rd_u32(&r);
				if (cell.ttl <= 0)
					cf_rd_fail(&r);
			}
			else if (cell.flags & CF_CELL_DELETED)
				cell.local_time = (int32_t) cf_rd_u32(&r);
			if (u)
				u->cells[c] = cell;
		}
		cell_at += nc;
	}
	if (cf_rd_ok(&r) && cf_rd_left(&r) != 0)
		return cf_status_make(CF_ERR_CORRUPTION,
							  "mutation: %zu bytes left over after the last column family",
							  cf_rd_left(&r));
	if (n_cfs)
	{
		*n_cfs = ncf;
		*n_tombs = tomb_at;
		*n_cells = cell_at;
	}
	return cf_rd_status(&r, "mutation");
}

cf_status *
cf_mutation_decode(cf_slice data, cf_mutation *out)
{
	size_t		ncf;
	size_t		nt;
	size_t		nc;
	cf_status  *s;
	char	   *mem;

	*out = (cf_mutation) {0};
	if ((s = decode_pass(data, NULL, &ncf, &nt, &nc)))
		return s;

	/* One block: the cf updates, then all tombstones, then all cells. */
	mem = calloc(1, ncf * sizeof(cf_cf_update) + nt * sizeof(cf_range_tomb) +
				 nc * sizeof(cf_cell) + 1);
	if (mem == NULL)
		return cf_status_make(CF_ERR_NO_MEMORY, "mutation: out of memory decoding %zu cells",
							  nc);
	out->alloc_ = mem;
	out->cfs = (cf_cf_update *) mem;
	if (ncf)
	{
		out->cfs[0].tombs = (cf_range_tomb *) (mem + ncf * sizeof(cf_cf_update));
		out->cfs[0].cells = (cf_cell *) (mem + ncf * sizeof(cf_cf_update) +
										 nt * sizeof(cf_range_tomb));
	}
	if ((s = decode_pass(data, out, NULL, NULL, NULL)))
	{
		/* the first pass accepted the same bytes: this cannot happen */
		cf_mutation_release(out);
		return cf_status_wrap(s, "mutation: second decoding pass disagreed");
	}
	return NULL;
}

void
cf_mutation_release(cf_mutation *m)
{
	free(m->alloc_);
	*m = (cf_mutation) {0};
}

/* Smallest batch element: a length byte and a version-1 mutation (version, key, count). */
#define MIN_BATCH_ELEM_BYTES (1 + 1 + 1 + 1)

cf_status *
cf_mutation_batch_encode(const cf_mutation *ms, size_t n, cf_buf *out)
{
	cf_buf		one = CF_BUF_INIT;
	cf_status  *s = NULL;

	if (n == 0)
		return cf_status_make(CF_ERR_INTERNAL, "a mutation batch needs at least one mutation");
	if (n == 1)
		return cf_mutation_encode(&ms[0], out);
	cf_buf_put_u8(out, CF_MUTATION_BATCH_VERSION);
	cf_buf_put_varint(out, n);
	for (size_t i = 0; s == NULL && i < n; i++)
	{
		cf_buf_reset(&one);
		if ((s = cf_mutation_encode(&ms[i], &one)) == NULL)
			cf_buf_put_bytes(out, cf_slice_of(one.data, one.len));
	}
	cf_buf_free(&one);
	return s ? s : cf_buf_status(out);
}

cf_status *
cf_mutation_batch_decode(cf_slice data, cf_mutation **out, size_t *n_out)
{
	cf_rd		r;
	size_t		n;
	cf_mutation *ms;
	cf_status  *s = NULL;

	*out = NULL;
	*n_out = 0;
	if (data.len > 0 && data.p[0] == CF_MUTATION_VERSION)
	{
		if ((ms = calloc(1, sizeof(*ms))) == NULL)
			return cf_status_make(CF_ERR_NO_MEMORY, "mutation: out of memory");
		if ((s = cf_mutation_decode(data, ms)) != NULL)
		{
			free(ms);
			return s;
		}
		*out = ms;
		*n_out = 1;
		return NULL;
	}
	cf_rd_init(&r, data.p, data.len);
	if (cf_rd_u8(&r) != CF_MUTATION_BATCH_VERSION && cf_rd_ok(&r))
		return cf_status_make(CF_ERR_CORRUPTION,
							  "mutation: unknown format version %u (this build reads %d "
							  "and %d)", data.p[0], CF_MUTATION_VERSION,
							  CF_MUTATION_BATCH_VERSION);
	n = get_count(&r, MIN_BATCH_ELEM_BYTES);
	if (cf_rd_ok(&r) && n < 2)
		cf_rd_fail(&r);
	if ((s = cf_rd_status(&r, "mutation batch")) != NULL)
		return s;
	if ((ms = calloc(n, sizeof(*ms))) == NULL)
		return cf_status_make(CF_ERR_NO_MEMORY, "mutation: out of memory decoding a "
							  "batch of %zu", n);
	for (size_t i = 0; s == NULL && i < n; i++)
	{
		cf_slice	one = cf_rd_slice(&r, SIZE_MAX);

		if ((s = cf_rd_status(&r, "mutation batch")) == NULL)
			s = cf_mutation_decode(one, &ms[i]);
		if (s)
			s = cf_status_wrap(s, "mutation %zu of a batch of %zu", i + 1, n);
	}
	if (s == NULL && cf_rd_left(&r) != 0)
		s = cf_status_make(CF_ERR_CORRUPTION, "mutation batch: %zu bytes left over after "
						   "the last mutation", cf_rd_left(&r));
	if (s)
	{
		cf_mutation_batch_release(ms, n);
		return s;
	}
	*out = ms;
	*n_out = n;
	return NULL;
}

void
cf_mutation_batch_release(cf_mutation *ms, size_t n)
{
	for (size_t i = 0; ms && i < n; i++)
		cf_mutation_release(&ms[i]);
	free(ms);
}

size_t
cf_mutation_ops(const cf_mutation *m)
{
	size_t		n = 0;

	for (size_t i = 0; i < m->n_cfs; i++)
		n += m->cfs[i].n_cells + m->cfs[i].n_tombs +
			!cf_deletion_is_live(m->cfs[i].row_del);
	return n;
}
