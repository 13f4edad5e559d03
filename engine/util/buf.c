/*
 * util/buf.c — growable writer and bounds-checked reader (see buf.h).
 *
 * Growth doubles the capacity (amortised O(1) appends) from a 64-byte floor, clamped
 * to the limit so a capped buffer never allocates more than it may hold.
 */
#include "util/buf.h"

#include <stdlib.h>
#include <string.h>

#define BUF_MIN_CAP 64

void
cf_buf_init(cf_buf *b, size_t limit)
{
	b->data = NULL;
	b->len = 0;
	b->cap = 0;
	b->limit = limit;
	b->failed = 0;
}

void
cf_buf_free(cf_buf *b)
{
	free(b->data);
	cf_buf_init(b, b->limit);
}

void
cf_buf_reset(cf_buf *b)
{
	b->len = 0;
	b->failed = 0;
}

bool
cf_buf_reserve(cf_buf *b, size_t n)
{
	size_t		limit = b->limit ? b->limit : SIZE_MAX;
	size_t		need;
	size_t		cap;
	uint8_t    *p;

	if (b->failed)
		return false;
	if (n > limit - b->len)
	{
		b->failed = CF_BUF_OVERLIMIT;
		return false;
	}
	need = b->len + n;
	if (need <= b->cap)
		return true;

	cap = b->cap ? b->cap : BUF_MIN_CAP;
	while (cap < need)
		cap = cap > SIZE_MAX / 2 ? SIZE_MAX : cap * 2;
	if (cap > limit)
		cap = limit;

	p = realloc(b->data, cap);
	if (p == NULL)
	{
		b->failed = CF_BUF_NOMEM;
		return false;
	}
	b->data = p;
	b->cap = cap;
	return true;
}

uint8_t *
cf_buf_extend_slow(cf_buf *b, size_t n)
{
	uint8_t    *p;

	if (!cf_buf_reserve(b, n))
		return NULL;
	p = b->data + b->len;
	b->len += n;
	return p;
}

void
cf_buf_put_varint(cf_buf *b, uint64_t v)
{
	uint8_t		tmp[CF_VARINT64_MAX];
	size_t		n = 0;

	while (v >= 0x80)
	{
		tmp[n++] = (uint8_t) (v | 0x80);
		v >>= 7;
	}
	tmp[n++] = (uint8_t) v;
	cf_buf_put(b, tmp, n);
}

void
cf_buf_put_bytes(cf_buf *b, cf_slice s)
{
	cf_buf_put_varint(b, s.len);
	cf_buf_put(b, s.p, s.len);
}

void
cf_buf_patch_u32(cf_buf *b, size_t off, uint32_t v)
{
	if (!b->failed && off <= b->len && b->len - off >= 4)
		cf_store_be32(b->data + off, v);
}

cf_status *
cf_buf_status(const cf_buf *b)
{
	switch (b->failed)
	{
		case 0:
			return NULL;
		case CF_BUF_OVERLIMIT:
			return cf_status_make(CF_ERR_TOO_LARGE,
								  "buffer would exceed its limit of %zu bytes", b->limit);
		case CF_BUF_OVERRANGE:
			return cf_status_make(CF_ERR_TOO_LARGE,
								  "a length or count is too large for its encoding");
		default:
			return cf_status_make(CF_ERR_NO_MEMORY,
								  "out of memory growing a buffer past %zu bytes", b->cap);
	}
}

uint8_t *
cf_buf_detach(cf_buf *b, size_t *len_out)
{
	uint8_t    *p;

	if (b->failed)
	{
		*len_out = 0;
		return NULL;
	}
	p = b->data;
	*len_out = b->len;
	cf_buf_init(b, b->limit);
	return p;
}

uint64_t
cf_rd_varint_slow(cf_rd *r)
{
	uint64_t	v = 0;
	const uint8_t *p;

	for (unsigned i = 0; i < CF_VARINT64_MAX; i++)
	{
		if (!cf_rd_take(r, 1, &p))
			return 0;
		/* The tenth byte may only carry the top bit of a 64-bit value. */
		if (i == CF_VARINT64_MAX - 1 && *p > 1)
			break;
		v |= (uint64_t) (*p & 0x7f) << (7 * i);
		if ((*p & 0x80) == 0)
		{
			/* A zero final byte after the first means an overlong encoding. */
			if (i > 0 && *p == 0)
				break;
			return v;
		}
	}
	r->failed = true;
	return 0;
}

bool
cf_rd_copy(cf_rd *r, void *dst, size_t n)
{
	const uint8_t *p;

	if (!cf_rd_take(r, n, &p))
		return false;
	if (n)
		memcpy(dst, p, n);
	return true;
}

bool
cf_rd_skip(cf_rd *r, size_t n)
{
	const uint8_t *p;

	return cf_rd_take(r, n, &p);
}

cf_status *
cf_rd_status(const cf_rd *r, const char *what)
{
	if (!r->failed)
		return NULL;
	return cf_status_make(CF_ERR_CORRUPTION,
						  "%s: truncated or malformed at byte %zu of %zu",
						  what, r->pos, r->len);
}
