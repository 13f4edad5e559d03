/*
 * util/buf.h — byte buffers: a growable writer and a bounds-checked reader.
 *
 * Both carry a sticky failure flag, the way a stdio stream carries its error state:
 * once an append cannot be done (no memory, over the limit) or a read would run past
 * the end, every later call on that buffer is a no-op returning zero/NULL, and the
 * caller checks once at the end (cf_buf_status / cf_rd_status). Codecs stay linear and
 * no length from the wire is ever trusted: a read of n bytes checks n against what is
 * left before touching memory.
 *
 * Integers are written big-endian (the Thrift binary protocol's order, and the
 * on-disk order, so byte-wise comparison of fixed-width keys matches numeric order);
 * varints are unsigned LEB128, at most 10 bytes, with overlong encodings rejected.
 *
 * Thread safety: none; a buffer belongs to one thread at a time.
 */
#ifndef CF_UTIL_BUF_H
#define CF_UTIL_BUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "util/slice.h"
#include "util/status.h"

/* Longest LEB128 encoding of a uint64_t. */
#define CF_VARINT64_MAX 10

/* A growable byte buffer. Zero-initialise (CF_BUF_INIT) or cf_buf_init() before use. */
typedef struct cf_buf
{
	uint8_t    *data;			/* malloc'd; NULL until the first append */
	size_t		len;			/* bytes written */
	size_t		cap;			/* bytes allocated */
	size_t		limit;			/* most bytes it may hold; 0 = SIZE_MAX */
	uint8_t		failed;			/* 0, or CF_BUF_NOMEM / OVERLIMIT / OVERRANGE */
} cf_buf;

#define CF_BUF_NOMEM 1
#define CF_BUF_OVERLIMIT 2		/* more bytes than limit */
#define CF_BUF_OVERRANGE 3		/* a length or count its encoding cannot hold (an
								 * i32 field): set by the encoders above this one */
#define CF_BUF_INIT {NULL, 0, 0, 0, 0}

/* Empty buffer that refuses to grow past limit bytes (0: no limit). */
void		cf_buf_init(cf_buf *b, size_t limit);

/* Frees the memory; the buffer is empty and usable again (limit kept). */
void		cf_buf_free(cf_buf *b);

/* Drops the contents and the failure flag, keeps the memory. */
void		cf_buf_reset(cf_buf *b);

/* Makes room for n more bytes. false (and the buffer failed) if it cannot. */
bool		cf_buf_reserve(cf_buf *b, size_t n);

static inline void cf_store_be32(uint8_t *p, uint32_t v);
static inline void cf_store_be64(uint8_t *p, uint64_t v);

/* cf_buf_extend when the bytes do not fit in what is allocated: grows (or fails). */
uint8_t    *cf_buf_extend_slow(cf_buf *b, size_t n);

/*
 * Reserves n bytes at the end and returns them for the caller to fill (len grows by
 * n), or NULL if the buffer has failed. The pointer is valid until the next append.
 *
 * Inline, with the appends below: encoders (Thrift replies, SSTable blocks, mutation
 * records) append a field at a time, and the call was a tenth of their cost.
 */
static inline uint8_t *
cf_buf_extend(cf_buf *b, size_t n)
{
	if (__builtin_expect(b->failed == 0 && n <= b->cap - b->len &&
						 (b->limit == 0 || n <= b->limit - b->len), 1))
	{
		uint8_t    *p = b->data + b->len;

		b->len += n;
		return p;
	}
	return cf_buf_extend_slow(b, n);
}

static inline void
cf_buf_put(cf_buf *b, const void *src, size_t n)
{
	uint8_t    *p = cf_buf_extend(b, n);

	if (p && n)
		memcpy(p, src, n);
}

static inline void
cf_buf_put_u8(cf_buf *b, uint8_t v)
{
	uint8_t    *p = cf_buf_extend(b, 1);

	if (p)
		*p = v;
}

static inline void
cf_buf_put_u16(cf_buf *b, uint16_t v)
{
	uint8_t    *p = cf_buf_extend(b, 2);

	if (p)
	{
		p[0] = (uint8_t) (v >> 8);
		p[1] = (uint8_t) v;
	}
}

static inline void
cf_buf_put_u32(cf_buf *b, uint32_t v)
{
	uint8_t    *p = cf_buf_extend(b, 4);

	if (p)
		cf_store_be32(p, v);
}

static inline void
cf_buf_put_u64(cf_buf *b, uint64_t v)
{
	uint8_t    *p = cf_buf_extend(b, 8);

	if (p)
		cf_store_be64(p, v);
}
void		cf_buf_put_varint(cf_buf *b, uint64_t v);

/* A length-prefixed byte string: varint length, then the bytes. */
void		cf_buf_put_bytes(cf_buf *b, cf_slice s);

/* Overwrites 4 bytes at off (which must lie inside len), for lengths known late. */
void		cf_buf_patch_u32(cf_buf *b, size_t off, uint32_t v);

static inline bool
cf_buf_ok(const cf_buf *b)
{
	return b->failed == 0;
}

/* NULL if every append succeeded, else NO_MEMORY or TOO_LARGE naming the limit. */
cf_status  *cf_buf_status(const cf_buf *b);

/*
 * Hands the bytes to the caller (who frees them with free()) and empties the buffer.
 * Returns NULL for a failed buffer. *len_out receives the length.
 */
uint8_t    *cf_buf_detach(cf_buf *b, size_t *len_out);

/* A reader over bytes it does not own. */
typedef struct cf_rd
{
	const uint8_t *p;
	size_t		len;
	size_t		pos;
	bool		failed;			/* a read ran past the end or met a malformed varint */
} cf_rd;

static inline void
cf_rd_init(cf_rd *r, const void *p, size_t len)
{
	r->p = p;
	r->len = len;
	r->pos = 0;
	r->failed = false;
}

static inline size_t
cf_rd_left(const cf_rd *r)
{
	return r->failed ? 0 : r->len - r->pos;
}

static inline bool
cf_rd_ok(const cf_rd *r)
{
	return !r->failed;
}

/* Marks the reader failed (e.g. a decoded value is out of range). */
static inline void
cf_rd_fail(cf_rd *r)
{
	r->failed = true;
}

/*
 * The readers below are inline: decoding is the inner loop of every block and record
 * parse. Each fails the reader (and returns zero / NULL / an empty slice) when the
 * bytes are not there.
 */

/* True (and steps over them) if n bytes remain; else marks the reader failed. */
static inline bool
cf_rd_take(cf_rd *r, size_t n, const uint8_t **out)
{
	if (r->failed || n > r->len - r->pos)
	{
		r->failed = true;
		return false;
	}
	*out = r->p + r->pos;
	r->pos += n;
	return true;
}

static inline uint8_t
cf_rd_u8(cf_rd *r)
{
	const uint8_t *p;

	return cf_rd_take(r, 1, &p) ? p[0] : 0;
}

static inline uint16_t
cf_rd_u16(cf_rd *r)
{
	const uint8_t *p;

	return cf_rd_take(r, 2, &p) ? (uint16_t) ((p[0] << 8) | p[1]) : 0;
}

static inline uint32_t cf_load_be32(const uint8_t *p);
static inline uint64_t cf_load_be64(const uint8_t *p);

static inline uint32_t
cf_rd_u32(cf_rd *r)
{
	const uint8_t *p;

	return cf_rd_take(r, 4, &p) ? cf_load_be32(p) : 0;
}

static inline uint64_t
cf_rd_u64(cf_rd *r)
{
	const uint8_t *p;

	return cf_rd_take(r, 8, &p) ? cf_load_be64(p) : 0;
}

/* The general case of cf_rd_varint (several bytes, the end, malformed encodings). */
uint64_t	cf_rd_varint_slow(cf_rd *r);

static inline uint64_t
cf_rd_varint(cf_rd *r)
{
	/* one byte: most lengths and counts */
	if (!r->failed && r->pos < r->len && r->p[r->pos] < 0x80)
		return r->p[r->pos++];
	return cf_rd_varint_slow(r);
}

/*
 * Returns a pointer to the next n bytes inside the reader's memory (zero-copy) and
 * steps over them, or NULL (reader failed) if fewer than n remain.
 */
static inline const uint8_t *
cf_rd_bytes(cf_rd *r, size_t n)
{
	const uint8_t *p;

	return cf_rd_take(r, n, &p) ? p : NULL;
}

/*
 * Reads a cf_buf_put_bytes string, zero-copy; a length over max (or past the end) fails
 * the reader and yields an empty slice.
 */
static inline cf_slice
cf_rd_slice(cf_rd *r, size_t max)
{
	uint64_t	n = cf_rd_varint(r);
	const uint8_t *p;

	if (n > max)
	{
		cf_rd_fail(r);
		return cf_slice_of(NULL, 0);
	}
	p = cf_rd_bytes(r, (size_t) n);
	return cf_slice_of(p, p ? (size_t) n : 0);
}

/* Copies the next n bytes into dst; false (reader failed) if fewer remain. */
bool		cf_rd_copy(cf_rd *r, void *dst, size_t n);

/* Steps over n bytes; false (reader failed) if fewer remain. */
bool		cf_rd_skip(cf_rd *r, size_t n);

/* NULL if every read succeeded, else CORRUPTION "<what>: truncated or malformed at byte N". */
cf_status  *cf_rd_status(const cf_rd *r, const char *what);

/* Big-endian loads and stores on raw memory, for fixed layouts. */
static inline uint32_t
cf_load_be32(const uint8_t *p)
{
	return ((uint32_t) p[0] << 24) | ((uint32_t) p[1] << 16) |
		((uint32_t) p[2] << 8) | (uint32_t) p[3];
}

static inline uint64_t
cf_load_be64(const uint8_t *p)
{
	return ((uint64_t) cf_load_be32(p) << 32) | cf_load_be32(p + 4);
}

static inline void
cf_store_be32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t) (v >> 24);
	p[1] = (uint8_t) (v >> 16);
	p[2] = (uint8_t) (v >> 8);
	p[3] = (uint8_t) v;
}

static inline void
cf_store_be64(uint8_t *p, uint64_t v)
{
	cf_store_be32(p, (uint32_t) (v >> 32));
	cf_store_be32(p + 4, (uint32_t) v);
}

/*
 * memcpy for the short strings of cells (names and values of a few to some tens of
 * bytes), copied by the hundred thousand per scan page: up to 64 bytes it is two
 * overlapping fixed-size moves the compiler inlines, where libc's memcpy would be a
 * call and a dispatch on the length per string. Longer copies go to memcpy.
 * dst and src must not overlap; n may be 0 (src then need not be valid).
 */
static inline void
cf_copy_short(uint8_t *dst, const void *src, size_t n)
{
	const uint8_t *s = src;

	if (n >= 16)
	{
		if (n > 64)
			memcpy(dst, s, n);
		else if (n > 32)
		{
			memcpy(dst, s, 32);
			memcpy(dst + n - 32, s + n - 32, 32);
		}
		else
		{
			memcpy(dst, s, 16);
			memcpy(dst + n - 16, s + n - 16, 16);
		}
	}
	else if (n >= 8)
	{
		memcpy(dst, s, 8);
		memcpy(dst + n - 8, s + n - 8, 8);
	}
	else if (n >= 4)
	{
		memcpy(dst, s, 4);
		memcpy(dst + n - 4, s + n - 4, 4);
	}
	else if (n > 0)
	{
		dst[0] = s[0];
		dst[n / 2] = s[n / 2];
		dst[n - 1] = s[n - 1];
	}
}

#endif							/* CF_UTIL_BUF_H */
