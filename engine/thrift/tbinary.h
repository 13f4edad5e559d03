/*
 * thrift/tbinary.h — the strict Thrift binary protocol's primitives: a decoder that
 * never trusts a length, and the matching writers. thrift/tstruct.h builds struct
 * codecs over it; engine/doc/thrift.md describes the wire format and the limits.
 *
 * Decoding: a cf_tb_dec wraps a cf_rd and keeps the first error. Once anything fails
 * (a read past the end, a negative or oversized length, a cap exceeded) the reader is
 * marked failed, every later read returns zero/empty without moving, every loop over
 * fields or elements ends, and cf_tb_dec_status() reports the first error. So code
 * over it stays linear and checks once at the end, like util/buf.h's sticky flag.
 *
 * Allocation: arrays come from the caller's arena and are charged against a budget of
 * CF_TB_BUDGET_FACTOR bytes per input byte plus CF_TB_BUDGET_BASE, so a message of
 * many tiny elements (an empty struct is one byte on the wire, far more in memory)
 * cannot make the decoder allocate without bound.
 *
 * Writing appends to a cf_buf (big-endian, as util/buf.h writes). A string or
 * container too long for the protocol's i32 length marks the buffer failed
 * (CF_BUF_OVERRANGE), so cf_buf_status() reports it.
 *
 * Thread safety: none; a decoder belongs to one thread. No global state.
 */
#ifndef CF_THRIFT_TBINARY_H
#define CF_THRIFT_TBINARY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "util/arena.h"
#include "util/buf.h"
#include "util/slice.h"
#include "util/status.h"

/* Wire type bytes. */
#define CF_TB_STOP 0
#define CF_TB_BOOL 2
#define CF_TB_BYTE 3
#define CF_TB_DOUBLE 4
#define CF_TB_I16 6
#define CF_TB_I32 8
#define CF_TB_I64 10
#define CF_TB_STRING 11
#define CF_TB_STRUCT 12
#define CF_TB_MAP 13
#define CF_TB_SET 14
#define CF_TB_LIST 15

/* The strict message header's version word, before the type is or'ed in. */
#define CF_TB_VERSION_1 0x80010000u
#define CF_TB_VERSION_MASK 0xffff0000u

/* Decoded memory allowed: BASE + FACTOR × input bytes (see the file comment). */
#define CF_TB_BUDGET_BASE ((size_t) 64 * 1024)
#define CF_TB_BUDGET_FACTOR 64

typedef struct cf_tb_dec
{
	cf_rd	   *r;
	cf_arena   *arena;			/* may be NULL when nothing is allocated */
	size_t		max_string;
	size_t		max_container;
	int			max_depth;
	int			depth;			/* structs and containers entered, not yet left */
	size_t		budget;			/* arena bytes still allowed */
	cf_status  *err;			/* first error; NULL while only r may have failed */
} cf_tb_dec;

/*
 * Starts decoding at r's position. The budget is computed from the bytes left in r.
 * The caps are those of cf_t_limits (0 for max_string/max_container: no cap).
 */
void		cf_tb_dec_init(cf_tb_dec *d, cf_rd *r, cf_arena *arena, size_t max_string,
						   size_t max_container, int max_depth);

/*
 * NULL if everything decoded, else the first error (the caller owns it): the one
 * recorded by cf_tb_fail, or CF_ERR_PROTOCOL "<what>: truncated at byte N" when the
 * reader ran out. Clears the decoder's error (ownership moves to the caller).
 */
cf_status  *cf_tb_dec_status(cf_tb_dec *d, const char *what);

/* Records an error (the first one wins) and fails the reader. */
void		cf_tb_fail(cf_tb_dec *d, cf_code code, const char *fmt,...)
			__attribute__((format(printf, 3, 4)));

static inline bool
cf_tb_ok(const cf_tb_dec *d)
{
	return !d->r->failed;
}

/* The next n bytes (NULL, reader failed, if fewer are left). */
static inline const uint8_t *
cf_tb_take(cf_tb_dec *d, size_t n)
{
	cf_rd	   *r = d->r;
	const uint8_t *p;

	if (r->failed || n > r->len - r->pos)
	{
		r->failed = true;
		return NULL;
	}
	p = r->p + r->pos;
	r->pos += n;
	return p;
}

static inline uint8_t
cf_tb_read_byte(cf_tb_dec *d)
{
	const uint8_t *p = cf_tb_take(d, 1);

	return p ? p[0] : 0;
}

static inline bool
cf_tb_read_bool(cf_tb_dec *d)
{
	return cf_tb_read_byte(d) != 0;
}

static inline int16_t
cf_tb_read_i16(cf_tb_dec *d)
{
	const uint8_t *p = cf_tb_take(d, 2);

	return p ? (int16_t) (((uint16_t) p[0] << 8) | p[1]) : 0;
}

static inline int32_t
cf_tb_read_i32(cf_tb_dec *d)
{
	const uint8_t *p = cf_tb_take(d, 4);

	return p ? (int32_t) cf_load_be32(p) : 0;
}

static inline int64_t
cf_tb_read_i64(cf_tb_dec *d)
{
	const uint8_t *p = cf_tb_take(d, 8);

	return p ? (int64_t) cf_load_be64(p) : 0;
}

static inline double
cf_tb_read_double(cf_tb_dec *d)
{
	uint64_t	bits = (uint64_t) cf_tb_read_i64(d);
	double		v;

	memcpy(&v, &bits, sizeof(v));
	return v;
}

/* A binary value, zero-copy. A negative length or one over max_string fails. */
cf_slice	cf_tb_read_binary(cf_tb_dec *d);

/* A string value: a binary that must also be valid UTF-8. */
cf_slice	cf_tb_read_string(cf_tb_dec *d);

/*
 * A field header: false at STOP or after an error, else *type and *id are set and
 * the caller reads or skips the value.
 */
static inline bool
cf_tb_read_field(cf_tb_dec *d, uint8_t *type, int16_t *id)
{
	*type = cf_tb_read_byte(d);
	if (*type == CF_TB_STOP)
		return false;
	*id = cf_tb_read_i16(d);
	return cf_tb_ok(d);
}

/*
 * Container headers. The count is checked: negative → PROTOCOL; more elements than
 * the bytes left could hold at their smallest encoding → PROTOCOL; over
 * max_container → TOO_LARGE. Elements of another wire type than want (a non-empty
 * container only) → PROTOCOL. Enters one level of depth: call cf_tb_leave after the
 * elements. false on any error (nothing to leave then).
 */
bool		cf_tb_read_list_begin(cf_tb_dec *d, uint8_t want, size_t *count);
bool		cf_tb_read_map_begin(cf_tb_dec *d, uint8_t want_key, uint8_t want_val,
								 size_t *count);

/* Enters a struct (one level deeper); false (TOO_LARGE) past max_depth. */
bool		cf_tb_enter(cf_tb_dec *d);

static inline void
cf_tb_leave(cf_tb_dec *d)
{
	d->depth--;
}

/*
 * Steps over one value of wire type type, containers and structs included, within
 * the depth cap; an unknown type byte is PROTOCOL.
 */
void		cf_tb_skip(cf_tb_dec *d, uint8_t type);

/*
 * An array of count elements of size bytes, zeroed, from the arena and the budget.
 * NULL with count 0 (no allocation), or on an error (TOO_LARGE over the budget,
 * NO_MEMORY), which is recorded.
 */
void	   *cf_tb_alloc_array(cf_tb_dec *d, size_t count, size_t size);

/* The smallest encoding of one value of a wire type, in bytes (0: unknown type). */
size_t		cf_tb_min_size(uint8_t type);

/* ---- writing ---- */

/*
 * n bytes at the end of b to fill, or NULL if b has failed. The fast path (room
 * already there) is inline: the encoder appends a few bytes at a time.
 */
static inline uint8_t *
cf_tb_room(cf_buf *b, size_t n)
{
	uint8_t    *p;

	if (b->failed == 0 && b->cap - b->len >= n)
	{
		p = b->data + b->len;
		b->len += n;
		return p;
	}
	return cf_buf_extend(b, n);
}

static inline void
cf_tb_write_field(cf_buf *b, uint8_t type, int16_t id)
{
	uint8_t    *p = cf_tb_room(b, 3);

	if (p)
	{
		p[0] = type;
		p[1] = (uint8_t) ((uint16_t) id >> 8);
		p[2] = (uint8_t) id;
	}
}

static inline void
cf_tb_write_stop(cf_buf *b)
{
	uint8_t    *p = cf_tb_room(b, 1);

	if (p)
		p[0] = CF_TB_STOP;
}

static inline void
cf_tb_write_bool(cf_buf *b, bool v)
{
	uint8_t    *p = cf_tb_room(b, 1);

	if (p)
		p[0] = v ? 1 : 0;
}

static inline void
cf_tb_write_i32(cf_buf *b, int32_t v)
{
	uint8_t    *p = cf_tb_room(b, 4);

	if (p)
		cf_store_be32(p, (uint32_t) v);
}

static inline void
cf_tb_write_i64(cf_buf *b, int64_t v)
{
	uint8_t    *p = cf_tb_room(b, 8);

	if (p)
		cf_store_be64(p, (uint64_t) v);
}

static inline void
cf_tb_write_double(cf_buf *b, double v)
{
	uint64_t	bits;

	memcpy(&bits, &v, sizeof(bits));
	cf_tb_write_i64(b, (int64_t) bits);
}

/* i32 length + bytes (string or binary alike). */
void		cf_tb_write_binary(cf_buf *b, cf_slice s);

void		cf_tb_write_list_begin(cf_buf *b, uint8_t elem, size_t count);
void		cf_tb_write_map_begin(cf_buf *b, uint8_t key, uint8_t val, size_t count);

#endif							/* CF_THRIFT_TBINARY_H */
