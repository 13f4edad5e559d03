/*
 * thrift/tbinary.c — strict binary protocol primitives (see tbinary.h).
 *
 * Every length and count from the wire is checked against the bytes left before it is
 * used; the only allocation is cf_tb_alloc_array, charged against the budget.
 */
#include "thrift/tbinary.h"

#include <stdarg.h>

#include "util/utf8.h"

void
cf_tb_dec_init(cf_tb_dec *d, cf_rd *r, cf_arena *arena, size_t max_string,
			   size_t max_container, int max_depth)
{
	size_t		left = cf_rd_left(r);

	d->r = r;
	d->arena = arena;
	d->max_string = max_string ? max_string : SIZE_MAX;
	d->max_container = max_container ? max_container : SIZE_MAX;
	d->max_depth = max_depth;
	d->depth = 0;
	d->budget = left > (SIZE_MAX - CF_TB_BUDGET_BASE) / CF_TB_BUDGET_FACTOR ? SIZE_MAX :
		CF_TB_BUDGET_BASE + left * CF_TB_BUDGET_FACTOR;
	d->err = NULL;
}

cf_status *
cf_tb_dec_status(cf_tb_dec *d, const char *what)
{
	cf_status  *s = d->err;

	d->err = NULL;
	if (s != NULL)
		return cf_status_wrap(s, "%s", what);
	if (d->r->failed)
		return cf_status_make(CF_ERR_PROTOCOL, "%s: truncated at byte %zu of %zu",
							  what, d->r->pos, d->r->len);
	return NULL;
}

void
cf_tb_fail(cf_tb_dec *d, cf_code code, const char *fmt,...)
{
	va_list		ap;

	if (d->err == NULL && !d->r->failed)
	{
		va_start(ap, fmt);
		d->err = cf_status_makev(code, fmt, ap);
		va_end(ap);
	}
	d->r->failed = true;
}

/* The length prefix of a string/binary, checked; -1 after an error. */
static size_t
read_length(cf_tb_dec *d)
{
	int32_t		n = cf_tb_read_i32(d);

	if (!cf_tb_ok(d))
		return 0;
	if (n < 0)
	{
		cf_tb_fail(d, CF_ERR_PROTOCOL, "negative string length %d", (int) n);
		return 0;
	}
	if ((size_t) n > d->max_string)
	{
		cf_tb_fail(d, CF_ERR_TOO_LARGE, "string of %d bytes exceeds the limit of %zu",
				   (int) n, d->max_string);
		return 0;
	}
	if ((size_t) n > cf_rd_left(d->r))
	{
		cf_tb_fail(d, CF_ERR_PROTOCOL, "string of %d bytes but only %zu left",
				   (int) n, cf_rd_left(d->r));
		return 0;
	}
	return (size_t) n;
}

cf_slice
cf_tb_read_binary(cf_tb_dec *d)
{
	size_t		n = read_length(d);
	const uint8_t *p = cf_tb_take(d, n);

	return cf_slice_of(p ? p : (const uint8_t *) "", p ? n : 0);
}

cf_slice
cf_tb_read_string(cf_tb_dec *d)
{
	cf_slice	s = cf_tb_read_binary(d);
	size_t		bad = cf_utf8_invalid_at(s.p, s.len);

	if (bad != s.len)
	{
		cf_tb_fail(d, CF_ERR_PROTOCOL, "string is not valid UTF-8 (byte %zu of %zu)",
				   bad, s.len);
		return cf_slice_of("", 0);
	}
	return s;
}

size_t
cf_tb_min_size(uint8_t type)
{
	switch (type)
	{
		case CF_TB_BOOL:
		case CF_TB_BYTE:
		case CF_TB_STRUCT:		/* just STOP */
			return 1;
		case CF_TB_I16:
			return 2;
		case CF_TB_I32:
		case CF_TB_STRING:		/* the length */
			return 4;
		case CF_TB_DOUBLE:
		case CF_TB_I64:
			return 8;
		case CF_TB_LIST:
		case CF_TB_SET:
			return 5;
		case CF_TB_MAP:
			return 6;
		default:
			return 0;
	}
}

static const char *
type_name(uint8_t type)
{
	switch (type)
	{
		case CF_TB_BOOL:
			return "bool";
		case CF_TB_BYTE:
			return "byte";
		case CF_TB_DOUBLE:
			return "double";
		case CF_TB_I16:
			return "i16";
		case CF_TB_I32:
			return "i32";
		case CF_TB_I64:
			return "i64";
		case CF_TB_STRING:
			return "string";
		case CF_TB_STRUCT:
			return "struct";
		case CF_TB_MAP:
			return "map";
		case CF_TB_SET:
			return "set";
		case CF_TB_LIST:
			return "list";
		default:
			return "unknown type";
	}
}

bool
cf_tb_enter(cf_tb_dec *d)
{
	if (!cf_tb_ok(d))
		return false;
	if (d->depth >= d->max_depth)
	{
		cf_tb_fail(d, CF_ERR_TOO_LARGE, "nesting deeper than %d", d->max_depth);
		return false;
	}
	d->depth++;
	return true;
}

/*
 * Checks a container's count, given the smallest encoding of one element, and enters
 * the container. elem_min 0 means an unknown element type.
 */
static bool
begin_container(cf_tb_dec *d, int32_t n, size_t elem_min, size_t *count)
{
	*count = 0;
	if (!cf_tb_ok(d))
		return false;
	if (n < 0)
	{
		cf_tb_fail(d, CF_ERR_PROTOCOL, "negative container size %d", (int) n);
		return false;
	}
	if (n > 0 && elem_min == 0)
	{
		cf_tb_fail(d, CF_ERR_PROTOCOL, "container of an unknown element type");
		return false;
	}
	/* a count the bytes cannot back is a lie (PROTOCOL) before it is a cap (TOO_LARGE) */
	if (n > 0 && (size_t) n > cf_rd_left(d->r) / elem_min)
	{
		cf_tb_fail(d, CF_ERR_PROTOCOL, "container of %d elements but only %zu bytes left",
				   (int) n, cf_rd_left(d->r));
		return false;
	}
	if ((size_t) n > d->max_container)
	{
		cf_tb_fail(d, CF_ERR_TOO_LARGE, "container of %d elements exceeds the limit of %zu",
				   (int) n, d->max_container);
		return false;
	}
	if (!cf_tb_enter(d))
		return false;
	*count = (size_t) n;
	return true;
}

/* A container's element type byte against what the field declares. */
static bool
check_elem(cf_tb_dec *d, uint8_t got, uint8_t want, int32_t n)
{
	if (n == 0 || got == want || cf_tb_min_size(want) == 0)
		return true;
	cf_tb_fail(d, CF_ERR_PROTOCOL, "container of %s where %s is expected",
			   type_name(got), type_name(want));
	return false;
}

bool
cf_tb_read_list_begin(cf_tb_dec *d, uint8_t want, size_t *count)
{
	uint8_t		elem = cf_tb_read_byte(d);
	int32_t		n = cf_tb_read_i32(d);

	*count = 0;
	if (!cf_tb_ok(d) || !check_elem(d, elem, want, n))
		return false;
	return begin_container(d, n, cf_tb_min_size(elem), count);
}

bool
cf_tb_read_map_begin(cf_tb_dec *d, uint8_t want_key, uint8_t want_val, size_t *count)
{
	uint8_t		k = cf_tb_read_byte(d);
	uint8_t		v = cf_tb_read_byte(d);
	int32_t		n = cf_tb_read_i32(d);
	size_t		kmin = cf_tb_min_size(k);
	size_t		vmin = cf_tb_min_size(v);

	*count = 0;
	if (!cf_tb_ok(d) || !check_elem(d, k, want_key, n) || !check_elem(d, v, want_val, n))
		return false;
	return begin_container(d, n, kmin && vmin ? kmin + vmin : 0, count);
}

void
cf_tb_skip(cf_tb_dec *d, uint8_t type)
{
	uint8_t		ftype;
	uint8_t		k;
	uint8_t		v;
	int16_t		id;
	size_t		n;

	switch (type)
	{
		case CF_TB_BOOL:
		case CF_TB_BYTE:
		case CF_TB_I16:
		case CF_TB_I32:
		case CF_TB_I64:
		case CF_TB_DOUBLE:
			cf_tb_take(d, cf_tb_min_size(type));
			break;
		case CF_TB_STRING:
			cf_tb_take(d, read_length(d));
			break;
		case CF_TB_STRUCT:
			if (!cf_tb_enter(d))
				break;
			while (cf_tb_read_field(d, &ftype, &id))
				cf_tb_skip(d, ftype);
			cf_tb_leave(d);
			break;
		case CF_TB_LIST:
		case CF_TB_SET:
			k = cf_tb_read_byte(d);
			if (!begin_container(d, cf_tb_read_i32(d), cf_tb_min_size(k), &n))
				break;
			for (size_t i = 0; i < n && cf_tb_ok(d); i++)
				cf_tb_skip(d, k);
			cf_tb_leave(d);
			break;
		case CF_TB_MAP:
			k = cf_tb_read_byte(d);
			v = cf_tb_read_byte(d);
			if (!begin_container(d, cf_tb_read_i32(d),
								 cf_tb_min_size(k) && cf_tb_min_size(v) ?
								 cf_tb_min_size(k) + cf_tb_min_size(v) : 0, &n))
				break;
			for (size_t i = 0; i < n && cf_tb_ok(d); i++)
			{
				cf_tb_skip(d, k);
				cf_tb_skip(d, v);
			}
			cf_tb_leave(d);
			break;
		default:
			cf_tb_fail(d, CF_ERR_PROTOCOL, "unknown wire type %u", (unsigned) type);
			break;
	}
}

void *
cf_tb_alloc_array(cf_tb_dec *d, size_t count, size_t size)
{
	void	   *p;

	if (count == 0 || !cf_tb_ok(d))
		return NULL;
	if (size != 0 && count > d->budget / size)
	{
		cf_tb_fail(d, CF_ERR_TOO_LARGE,
				   "decoding needs more than %zu bytes of memory per input byte",
				   (size_t) CF_TB_BUDGET_FACTOR);
		return NULL;
	}
	if (d->arena == NULL || (p = cf_arena_alloc(d->arena, count * size)) == NULL)
	{
		cf_tb_fail(d, CF_ERR_NO_MEMORY, "out of memory decoding %zu elements", count);
		return NULL;
	}
	d->budget -= count * size;
	memset(p, 0, count * size);
	return p;
}

/* ---- writing ---- */

/* An i32 length or count; over INT32_MAX fails the buffer (the protocol cannot say it). */
static void
write_count(cf_buf *b, size_t n)
{
	if (n > INT32_MAX)
	{
		if (b->failed == 0)
			b->failed = CF_BUF_OVERRANGE;
		return;
	}
	cf_buf_put_u32(b, (uint32_t) n);
}

void
cf_tb_write_binary(cf_buf *b, cf_slice s)
{
	uint8_t    *p;

	if (s.len > INT32_MAX)
	{
		write_count(b, s.len);
		return;
	}
	if ((p = cf_tb_room(b, 4 + s.len)) == NULL)
		return;
	cf_store_be32(p, (uint32_t) s.len);
	if (s.len)
		memcpy(p + 4, s.p, s.len);
}

void
cf_tb_write_list_begin(cf_buf *b, uint8_t elem, size_t count)
{
	cf_buf_put_u8(b, elem);
	write_count(b, count);
}

void
cf_tb_write_map_begin(cf_buf *b, uint8_t key, uint8_t val, size_t count)
{
	cf_buf_put_u8(b, key);
	cf_buf_put_u8(b, val);
	write_count(b, count);
}
