/*
 * storage/comparator.c — Cassandra 0.7's marshal types: order, validation, text
 * (see comparator.h for the orders).
 *
 * Assumptions:
 *  - Compare is the hot path (every memtable insert and every slice step), so it
 *    neither allocates nor validates beyond the length and version checks it needs to
 *    choose the typed order; anything that fails them is compared as bytes.
 *  - IntegerType text conversion works on arbitrary-precision values with a small
 *    byte-array bignum: decimal → binary multiplies by 10^9 per nine digits, binary →
 *    decimal divides by 10^9 per nine digits. Both are O(n²) in the length, as Java's
 *    BigInteger is for such sizes; names and values of kilobytes convert instantly.
 *  - Text → bytes leaves the output buffer as it was when it reports an error.
 */
#include "storage/comparator.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/hex.h"
#include "util/utf8.h"
#include "util/uuid.h"

#define MARSHAL_PREFIX "org.apache.cassandra.db.marshal."

static const struct
{
	const char *name;			/* short name, as cassandra-cli and storage-conf.xml write it */
	const char *class;			/* the Java class */
}			type_names[CF_TYPE_COUNT_] = {
	[CF_TYPE_BYTES] = {"BytesType", MARSHAL_PREFIX "BytesType"},
	[CF_TYPE_ASCII] = {"AsciiType", MARSHAL_PREFIX "AsciiType"},
	[CF_TYPE_UTF8] = {"UTF8Type", MARSHAL_PREFIX "UTF8Type"},
	[CF_TYPE_LONG] = {"LongType", MARSHAL_PREFIX "LongType"},
	[CF_TYPE_INTEGER] = {"IntegerType", MARSHAL_PREFIX "IntegerType"},
	[CF_TYPE_LEXICAL_UUID] = {"LexicalUUIDType", MARSHAL_PREFIX "LexicalUUIDType"},
	[CF_TYPE_TIME_UUID] = {"TimeUUIDType", MARSHAL_PREFIX "TimeUUIDType"},
};


static bool
type_valid(cf_type t)
{
	return (unsigned) t < CF_TYPE_COUNT_;
}

/* ---------------------------------------------------------------- names */

cf_status *
cf_type_parse(const char *name, cf_type *out)
{
	const char *shortname = name;
	size_t		plen = strlen(MARSHAL_PREFIX);

	if (name == NULL)
		name = shortname = "";
	if (strncmp(name, MARSHAL_PREFIX, plen) == 0)
		shortname = name + plen;
	for (int t = 0; t < CF_TYPE_COUNT_; t++)
	{
		if (strcmp(shortname, type_names[t].name) == 0)
		{
			*out = (cf_type) t;
			return NULL;
		}
	}
	return cf_status_make(CF_ERR_INVALID,
						  "unknown type '%.200s': valid types are BytesType, AsciiType, "
						  "UTF8Type, LongType, IntegerType, LexicalUUIDType and "
						  "TimeUUIDType, optionally prefixed with " MARSHAL_PREFIX, name);
}

const char *
cf_type_name(cf_type t)
{
	return type_valid(t) ? type_names[t].name : "UnknownType";
}

const char *
cf_type_class(cf_type t)
{
	return type_valid(t) ? type_names[t].class : MARSHAL_PREFIX "UnknownType";
}

/* ---------------------------------------------------------------- order */

static int
cmp_i64(int64_t a, int64_t b)
{
	return (a > b) - (a < b);
}

/*
 * Drops the sign-extension bytes a two's-complement varint may carry (0x00 before a
 * byte below 0x80, 0xff before one from 0x80), so equal numbers have equal length.
 */
static cf_slice
varint_trim(cf_slice v)
{
	while (v.len > 1 &&
		   ((v.p[0] == 0x00 && (v.p[1] & 0x80) == 0) ||
			(v.p[0] == 0xff && (v.p[1] & 0x80) != 0)))
	{
		v.p++;
		v.len--;
	}
	return v;
}

/* Numeric order of two non-empty two's-complement big-endian varints. */
static int
varint_compare(cf_slice a, cf_slice b)
{
	bool		aneg = (a.p[0] & 0x80) != 0;
	bool		bneg = (b.p[0] & 0x80) != 0;

	if (aneg != bneg)
		return aneg ? -1 : 1;
	a = varint_trim(a);
	b = varint_trim(b);
	if (a.len != b.len)
	{
		/* More significant bytes: larger magnitude, so larger if positive. */
		int			longer = a.len > b.len ? 1 : -1;

		return aneg ? -longer : longer;
	}
	/* Same sign and width: two's complement orders like unsigned. */
	return memcmp(a.p, b.p, a.len);
}

/* java.util.UUID.compareTo: most significant long, then least, both signed. */
static int
lexical_uuid_compare(const uint8_t *a, const uint8_t *b)
{
	int			c = cmp_i64((int64_t) cf_load_be64(a), (int64_t) cf_load_be64(b));

	if (c != 0)
		return c;
	return cmp_i64((int64_t) cf_load_be64(a + 8), (int64_t) cf_load_be64(b + 8));
}

int
cf_type_compare(cf_type t, cf_slice a, cf_slice b)
{
	/* The empty value is the unbounded end of a slice: before everything. */
	if (a.len == 0 || b.len == 0)
		return (a.len != 0) - (b.len != 0);

	switch (t)
	{
		case CF_TYPE_LONG:
			if (a.len == 8 && b.len == 8)
				return cmp_i64((int64_t) cf_load_be64(a.p), (int64_t) cf_load_be64(b.p));
			break;
		case CF_TYPE_INTEGER:
			return varint_compare(a, b);
		case CF_TYPE_LEXICAL_UUID:
			if (a.len == CF_UUID_LEN && b.len == CF_UUID_LEN)
				return lexical_uuid_compare(a.p, b.p);
			break;
		case CF_TYPE_TIME_UUID:
			{
				int64_t		ta = cf_timeuuid_timestamp(a);
				int64_t		tb = cf_timeuuid_timestamp(b);

				if (ta >= 0 && tb >= 0)
				{
					if (ta != tb)
						return cmp_i64(ta, tb);
					/*
					 * Equal times: Cassandra 0.7 falls back to ByteBuffer.compareTo,
					 * which compares bytes as signed Java bytes.
					 */
					for (size_t i = 0; i < CF_UUID_LEN; i++)
						if (a.p[i] != b.p[i])
							return (int8_t) a.p[i] < (int8_t) b.p[i] ? -1 : 1;
					return 0;
				}
				break;			/* invalid: byte order */
			}
		case CF_TYPE_BYTES:
		case CF_TYPE_ASCII:
		case CF_TYPE_UTF8:
		default:
			break;
	}
	return cf_slice_cmp(a, b);
}

int64_t
cf_timeuuid_timestamp(cf_slice u)
{
	if (u.len != CF_UUID_LEN || cf_uuid_version(u.p) != 1)
		return -1;
	return cf_uuid_v1_timestamp(u.p);
}

/* ---------------------------------------------------------------- validation */

static cf_status *
length_error(const char *what, cf_type t, size_t want, size_t got)
{
	return cf_status_make(CF_ERR_INVALID, "%s: %s requires exactly %zu bytes, got %zu",
						  what, cf_type_name(t), want, got);
}

cf_status *
cf_type_validate(cf_type t, cf_slice v, const char *what)
{
	if (what == NULL)
		what = "value";
	if (!type_valid(t))
		return cf_status_make(CF_ERR_INVALID, "%s: unknown type %d", what, (int) t);
	if (v.len == 0)
		return NULL;

	switch (t)
	{
		case CF_TYPE_BYTES:
		case CF_TYPE_INTEGER:
			return NULL;		/* every byte string is one */
		case CF_TYPE_ASCII:
			for (size_t i = 0; i < v.len; i++)
				if (v.p[i] >= 0x80)
					return cf_status_make(CF_ERR_INVALID,
										  "%s: non-ASCII byte 0x%02x at byte %zu for AsciiType",
										  what, v.p[i], i);
			return NULL;
		case CF_TYPE_UTF8:
			{
				size_t		bad = cf_utf8_invalid_at(v.p, v.len);

				if (bad < v.len)
					return cf_status_make(CF_ERR_INVALID,
										  "%s: invalid UTF-8 at byte %zu for UTF8Type",
										  what, bad);
				return NULL;
			}
		case CF_TYPE_LONG:
			return v.len == 8 ? NULL : length_error(what, t, 8, v.len);
		case CF_TYPE_LEXICAL_UUID:
			return v.len == CF_UUID_LEN ? NULL : length_error(what, t, CF_UUID_LEN, v.len);
		case CF_TYPE_TIME_UUID:
			if (v.len != CF_UUID_LEN)
				return length_error(what, t, CF_UUID_LEN, v.len);
			if (cf_uuid_version(v.p) != 1)
				return cf_status_make(CF_ERR_INVALID,
									  "%s: TimeUUIDType requires a version 1 UUID, got version %d",
									  what, cf_uuid_version(v.p));
			return NULL;
		case CF_TYPE_COUNT_:
			break;
	}
	return NULL;
}

/* ---------------------------------------------------------------- text → bytes */

static cf_status *
bytes_from_string(const char *s, cf_buf *out)
{
	size_t		n = strlen(s);
	size_t		start = out->len;
	uint8_t    *p;
	ptrdiff_t	bad;

	if (n % 2 != 0)
		return cf_status_make(CF_ERR_INVALID,
							  "invalid BytesType literal '%.100s': expected an even number "
							  "of hex digits, got %zu", s, n);
	p = cf_buf_extend(out, n / 2);
	if (p == NULL)
		return NULL;			/* the caller sees it in cf_buf_status(out) */
	if ((bad = cf_hex_decode(s, n / 2, p)) >= 0)
	{
		out->len = start;		/* the buffer is left as it was */
		return cf_status_make(CF_ERR_INVALID,
							  "invalid BytesType literal '%.100s': '%c' at position %td "
							  "is not a hex digit", s, s[bad], bad);
	}
	return NULL;
}

/*
 * Splits a decimal literal into its sign and digits: optional '+' or '-', then one
 * or more ASCII digits and nothing else (Java's Long.parseLong and BigInteger(String)
 * read the same). false if it is anything else.
 */
static bool
split_decimal(const char *s, bool *neg, const char **digits)
{
	*neg = (*s == '-');
	if (*s == '-' || *s == '+')
		s++;
	*digits = s;
	if (*s == '\0')
		return false;
	for (; *s; s++)
		if (*s < '0' || *s > '9')
			return false;
	return true;
}

static cf_status *
long_from_string(const char *s, cf_buf *out)
{
	bool		neg;
	const char *d;
	uint64_t	mag = 0;
	uint64_t	limit;

	if (!split_decimal(s, &neg, &d))
		return cf_status_make(CF_ERR_INVALID,
							  "invalid LongType literal '%.100s': expected a decimal integer", s);
	limit = neg ? (uint64_t) INT64_MAX + 1 : (uint64_t) INT64_MAX;
	for (; *d; d++)
	{
		unsigned	digit = (unsigned) (*d - '0');

		if (mag > (limit - digit) / 10)
			return cf_status_make(CF_ERR_INVALID,
								  "LongType literal '%.100s' is out of range "
								  "(-9223372036854775808 to 9223372036854775807)", s);
		mag = mag * 10 + digit;
	}
	/* Unsigned negation: -(2^63) stays representable, no signed overflow. */
	cf_buf_put_u64(out, neg ? (uint64_t) 0 - mag : mag);
	return NULL;
}

/*
 * Decimal → minimal two's-complement big-endian varint (what Java's
 * BigInteger.toByteArray() gives): 0 is 0x00, 255 is 0x00ff, -1 is 0xff, -128 0x80.
 */
static cf_status *
integer_from_string(const char *s, cf_buf *out)
{
	bool		neg;
	const char *d;
	size_t		ndigits;
	uint8_t    *mag;			/* magnitude, little-endian */
	size_t		mlen = 0;
	uint8_t    *p;

	if (!split_decimal(s, &neg, &d))
		return cf_status_make(CF_ERR_INVALID,
							  "invalid IntegerType literal '%.100s': expected a decimal integer", s);
	while (d[0] == '0' && d[1] != '\0')
		d++;
	ndigits = strlen(d);

	/* log256(10) < 0.5, so n digits need at most n/2 + 1 bytes. */
	mag = malloc(ndigits / 2 + 1);
	if (mag == NULL)
		return cf_status_make(CF_ERR_NO_MEMORY, "IntegerType literal of %zu digits", ndigits);

	while (*d)
	{
		uint64_t	mul = 1;
		uint64_t	carry = 0;

		for (int k = 0; k < 9 && *d; k++, d++)
		{
			mul *= 10;
			carry = carry * 10 + (uint64_t) (*d - '0');
		}
		for (size_t i = 0; i < mlen; i++)
		{
			uint64_t	v = mag[i] * mul + carry;

			mag[i] = (uint8_t) v;
			carry = v >> 8;
		}
		for (; carry != 0; carry >>= 8)
			mag[mlen++] = (uint8_t) carry;
	}

	if (mlen == 0)
	{
		free(mag);
		cf_buf_put_u8(out, 0x00);
		return NULL;
	}
	if (neg)
	{
		/* mag becomes 2^(8 mlen) - mag, the low mlen bytes of -mag. */
		unsigned	carry = 1;

		for (size_t i = 0; i < mlen; i++)
		{
			unsigned	v = (uint8_t) ~mag[i] + carry;

			mag[i] = (uint8_t) v;
			carry = v >> 8;
		}
	}
	/* A sign byte is needed when the top bit disagrees with the sign. */
	{
		bool		top = (mag[mlen - 1] & 0x80) != 0;
		size_t		sign = top != neg ? 1 : 0;

		p = cf_buf_extend(out, mlen + sign);
		if (p != NULL)
		{
			if (sign)
				*p++ = neg ? 0xff : 0x00;
			for (size_t i = 0; i < mlen; i++)
				p[i] = mag[mlen - 1 - i];
		}
	}
	free(mag);
	return NULL;
}

static cf_status *
uuid_from_string(cf_type t, const char *s, cf_buf *out)
{
	uint8_t		u[CF_UUID_LEN];
	cf_status  *st = cf_uuid_parse(s, u);

	if (st != NULL)
		return cf_status_wrap(st, "%s literal", cf_type_name(t));
	if (t == CF_TYPE_TIME_UUID && cf_uuid_version(u) != 1)
		return cf_status_make(CF_ERR_INVALID,
							  "TimeUUIDType literal '%.100s': requires a version 1 UUID, got version %d",
							  s, cf_uuid_version(u));
	cf_buf_put(out, u, sizeof(u));
	return NULL;
}

cf_status *
cf_type_from_string(cf_type t, const char *s, cf_buf *out)
{
	if (!type_valid(t))
		return cf_status_make(CF_ERR_INVALID, "unknown type %d", (int) t);
	if (s == NULL || *s == '\0')
		return NULL;			/* the empty value, valid for every type */

	switch (t)
	{
		case CF_TYPE_BYTES:
			return bytes_from_string(s, out);
		case CF_TYPE_ASCII:
		case CF_TYPE_UTF8:
			{
				cf_slice	v = cf_slice_str(s);
				cf_status  *st = cf_type_validate(t, v, "literal");

				if (st == NULL)
					cf_buf_put(out, v.p, v.len);
				return st;
			}
		case CF_TYPE_LONG:
			return long_from_string(s, out);
		case CF_TYPE_INTEGER:
			return integer_from_string(s, out);
		case CF_TYPE_LEXICAL_UUID:
		case CF_TYPE_TIME_UUID:
			return uuid_from_string(t, s, out);
		case CF_TYPE_COUNT_:
			break;
	}
	return NULL;
}

/* ---------------------------------------------------------------- bytes → text */

static void
put_hex(cf_slice v, cf_buf *out)
{
	uint8_t    *p = cf_buf_extend(out, v.len * 2);

	if (p != NULL)
		cf_hex_encode(v.p, v.len, (char *) p);
}

/* Two's-complement big-endian varint (non-empty) → decimal, like BigInteger.toString(). */
static void
integer_to_string(cf_slice v, cf_buf *out)
{
	bool		neg = (v.p[0] & 0x80) != 0;
	size_t		n = v.len;
	uint8_t    *mag;			/* magnitude, big-endian */
	char	   *digits;			/* written backwards from the end */
	size_t		cap,
				at,
				start = 0;

	/* 8 n log10(2) < 2.41 n digits, plus one nine-digit chunk of slack. */
	if (n > (SIZE_MAX - 16) / 3)
	{
		out->failed = CF_BUF_OVERRANGE;
		return;
	}
	cap = 3 * n + 16;
	mag = malloc(n);
	digits = malloc(cap);
	if (mag == NULL || digits == NULL)
	{
		free(mag);
		free(digits);
		out->failed = CF_BUF_NOMEM;
		return;
	}
	memcpy(mag, v.p, n);
	if (neg)
	{
		/* |v| = ~v + 1; for -2^(8n-1) that is 0x80 00.., right when read unsigned. */
		unsigned	carry = 1;

		for (size_t i = n; i-- > 0;)
		{
			unsigned	x = (uint8_t) ~mag[i] + carry;

			mag[i] = (uint8_t) x;
			carry = x >> 8;
		}
	}

	at = cap;
	for (;;)
	{
		uint64_t	rem = 0;

		while (start < n && mag[start] == 0)
			start++;
		if (start == n)
			break;
		for (size_t i = start; i < n; i++)
		{
			uint64_t	cur = rem << 8 | mag[i];

			mag[i] = (uint8_t) (cur / 1000000000u);
			rem = cur % 1000000000u;
		}
		for (int k = 0; k < 9; k++)
		{
			digits[--at] = (char) ('0' + rem % 10);
			rem /= 10;
		}
	}
	while (at < cap && digits[at] == '0')
		at++;
	if (at == cap)
		digits[--at] = '0';
	else if (neg)
		digits[--at] = '-';
	cf_buf_put(out, digits + at, cap - at);
	free(mag);
	free(digits);
}

void
cf_type_to_string(cf_type t, cf_slice v, cf_buf *out)
{
	char		text[CF_UUID_TEXT_LEN + 1];
	cf_status  *invalid;

	if (v.len == 0)
		return;
	invalid = cf_type_validate(t, v, "value");
	if (invalid != NULL)
	{
		cf_status_free(invalid);
		put_hex(v, out);
		return;
	}
	switch (t)
	{
		case CF_TYPE_ASCII:
		case CF_TYPE_UTF8:
			cf_buf_put(out, v.p, v.len);
			return;
		case CF_TYPE_LONG:
			{
				char		num[24];
				int			len = snprintf(num, sizeof(num), "%" PRId64,
										   (int64_t) cf_load_be64(v.p));

				cf_buf_put(out, num, (size_t) len);
				return;
			}
		case CF_TYPE_INTEGER:
			integer_to_string(v, out);
			return;
		case CF_TYPE_LEXICAL_UUID:
		case CF_TYPE_TIME_UUID:
			cf_uuid_format(v.p, text);
			cf_buf_put(out, text, CF_UUID_TEXT_LEN);
			return;
		case CF_TYPE_BYTES:
		case CF_TYPE_COUNT_:
			break;
	}
	put_hex(v, out);
}
