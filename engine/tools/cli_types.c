/*
 * tools/cli_types.c — marshal type names and term ↔ bytes conversion (cli_types.h).
 *
 * IntegerType is arbitrary precision: decimal text is converted by schoolbook
 * multiply-and-add on a big-endian byte array (O(digits²), fine for cli literals),
 * and printed by repeated division by 10.
 */
#include "tools/cli_types.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "util/hex.h"
#include "util/random.h"
#include "util/utf8.h"
#include "util/uuid.h"

#define MARSHAL_PREFIX "org.apache.cassandra.db.marshal."

static const struct
{
	const char *name;
	const char *alias;			/* cli function / `as` name */
	const char *desc;
} types[CFT_TYPE_COUNT_] = {
	[CFT_BYTES] = {"BytesType", "bytes", "hex bytes"},
	[CFT_ASCII] = {"AsciiType", "ascii", "US-ASCII text"},
	[CFT_UTF8] = {"UTF8Type", "utf8", "UTF-8 text"},
	[CFT_LONG] = {"LongType", "long", "a 64-bit integer"},
	[CFT_INTEGER] = {"IntegerType", "integer", "an integer"},
	[CFT_LEXICALUUID] = {"LexicalUUIDType", "lexicaluuid", "a UUID"},
	[CFT_TIMEUUID] = {"TimeUUIDType", "timeuuid", "a version 1 UUID"},
};

const char	cft_type_names_hint[] =
"BytesType, AsciiType, UTF8Type, LongType, IntegerType, LexicalUUIDType, TimeUUIDType";

cf_status *
cft_type_parse(cf_slice name, const char *what, cft_type *out)
{
	const char *p = (const char *) name.p;
	size_t		n = name.len;
	size_t		plen = strlen(MARSHAL_PREFIX);

	if (n > plen && memcmp(p, MARSHAL_PREFIX, plen) == 0)
	{
		p += plen;
		n -= plen;
	}
	for (int t = 0; t < CFT_TYPE_COUNT_; t++)
	{
		if ((strlen(types[t].name) == n && strncasecmp(p, types[t].name, n) == 0) ||
			(strlen(types[t].alias) == n && strncasecmp(p, types[t].alias, n) == 0))
		{
			*out = (cft_type) t;
			return NULL;
		}
	}
	return cf_status_make(CF_ERR_INVALID, "unknown %s \"%.*s\"\nhint: valid types are %s "
						  "(alone or as org.apache.cassandra.db.marshal.<Type>)",
						  what, (int) (name.len > 200 ? 200 : name.len),
						  (const char *) name.p, cft_type_names_hint);
}

const char *
cft_type_name(cft_type t)
{
	return t < CFT_TYPE_COUNT_ ? types[t].name : "?";
}

const char *
cft_type_class(cft_type t)
{
	static const char *const classes[CFT_TYPE_COUNT_] = {
		[CFT_BYTES] = MARSHAL_PREFIX "BytesType",
		[CFT_ASCII] = MARSHAL_PREFIX "AsciiType",
		[CFT_UTF8] = MARSHAL_PREFIX "UTF8Type",
		[CFT_LONG] = MARSHAL_PREFIX "LongType",
		[CFT_INTEGER] = MARSHAL_PREFIX "IntegerType",
		[CFT_LEXICALUUID] = MARSHAL_PREFIX "LexicalUUIDType",
		[CFT_TIMEUUID] = MARSHAL_PREFIX "TimeUUIDType",
	};

	return t < CFT_TYPE_COUNT_ ? classes[t] : "?";
}

/*
 * text's first 60 bytes or so for a message, in out (cap >= 256): valid UTF-8 as it
 * is, a control character or a byte of invalid UTF-8 as \xNN, and "..." after a cut.
 */
static const char *
quote_text(const char *text, char *out, size_t cap)
{
	const uint8_t *p = (const uint8_t *) text;
	size_t		n = strlen(text),
				i = 0,
				o = 0;

	while (i < n && i < 60 && o + 8 < cap)
	{
		/* a character is at most 4 bytes: > 0 when the one at i is whole and valid */
		size_t		ok = cf_utf8_invalid_at(p + i, n - i < 4 ? n - i : 4);

		if (p[i] >= 0x20 && p[i] != 0x7f && ok > 0)
		{
			/* that character, as long as its lead byte says (stray bytes after: \xNN) */
			size_t		len = p[i] < 0x80 ? 1 : p[i] < 0xe0 ? 2 : p[i] < 0xf0 ? 3 : 4;

			if (o + len + 8 >= cap)
				break;
			memcpy(out + o, p + i, len);
			o += len;
			i += len;
		}
		else
		{
			o += (size_t) snprintf(out + o, cap - o, "\\x%02x", p[i]);
			i++;
		}
	}
	if (i < n)
		o += (size_t) snprintf(out + o, cap - o, "...");
	out[o] = '\0';
	return out;
}

static cf_status *
not_a(const cft_term *t, const char *text, cft_type type, const char *why)
{
	const char *name = types[type].name;
	char		q[256];

	return cf_status_make(CF_ERR_INVALID, "line %d, column %d: '%s' is not %s %s (%s)%s%s",
						  t->line, t->col, quote_text(text, q, sizeof(q)),
						  strchr("AEIO", name[0]) ? "an" : "a", name, types[type].desc,
						  why ? ": " : "", why ? why : "");
}

/* Decimal text → minimal two's-complement big-endian bytes. */
static cf_status *
integer_bytes(const cft_term *t, const char *s, cf_buf *out)
{
	size_t		n = strlen(s);
	bool		neg = false;
	uint8_t    *mag;
	size_t		cap,
				len = 0;
	const char *d = s;

	if (*d == '-' || *d == '+')
	{
		neg = *d == '-';
		d++;
	}
	if (*d == '\0')
		return not_a(t, s, CFT_INTEGER, NULL);
	for (const char *c = d; *c; c++)
		if (*c < '0' || *c > '9')
			return not_a(t, s, CFT_INTEGER, NULL);
	cap = n / 2 + 2;
	mag = calloc(cap, 1);		/* little-endian magnitude */
	if (mag == NULL)
		return cf_status_make(CF_ERR_NO_MEMORY, "out of memory converting an integer");
	for (const char *c = d; *c; c++)
	{
		unsigned	carry = (unsigned) (*c - '0');

		for (size_t i = 0; i < len; i++)
		{
			unsigned	v = mag[i] * 10u + carry;

			mag[i] = (uint8_t) v;
			carry = v >> 8;
		}
		if (carry)
			mag[len++] = (uint8_t) carry;
	}
	if (len == 0)
		mag[len++] = 0;
	if (neg)
	{
		/* two's complement of the magnitude, with a sign byte if needed */
		unsigned	carry = 1;
		bool		zero = true;

		for (size_t i = 0; i < len; i++)
			if (mag[i])
				zero = false;
		if (!zero)
		{
			for (size_t i = 0; i < len; i++)
			{
				unsigned	v = (uint8_t) ~mag[i] + carry;

				mag[i] = (uint8_t) v;
				carry = v >> 8;
			}
			if (!(mag[len - 1] & 0x80))
				mag[len++] = 0xff;
			/* drop redundant sign bytes: ff followed by a byte with the top bit set */
			while (len > 1 && mag[len - 1] == 0xff && (mag[len - 2] & 0x80))
				len--;
		}
	}
	else
	{
		if (mag[len - 1] & 0x80)
			mag[len++] = 0;
	}
	for (size_t i = 0; i < len; i++)
		cf_buf_put_u8(out, mag[len - 1 - i]);
	free(mag);
	return NULL;
}

static cf_status *
long_bytes(const cft_term *t, const char *s, cf_buf *out)
{
	char	   *end;
	long long	v;

	errno = 0;
	v = strtoll(s, &end, 10);
	if (*s == '\0' || *end != '\0' || errno == ERANGE)
		return not_a(t, s, CFT_LONG, errno == ERANGE ? "out of range" : NULL);
	cf_buf_put_u64(out, (uint64_t) v);
	return NULL;
}

static cf_status *
uuid_bytes(const cft_term *t, const char *s, cft_type type, cf_buf *out)
{
	uint8_t		u[CF_UUID_LEN];
	cf_status  *st = cf_uuid_parse(s, u);

	if (st != NULL)
	{
		cf_status_free(st);
		return not_a(t, s, type, "write 8-4-4-4-12 hex digits");
	}
	if (type == CFT_TIMEUUID && cf_uuid_version(u) != 1)
		return not_a(t, s, type, "its version is not 1 (time-based)");
	cf_buf_put(out, u, CF_UUID_LEN);
	return NULL;
}

static cf_status *
text_bytes(const cft_term *t, const char *s, size_t n, cft_type type, cf_buf *out)
{
	if (type == CFT_ASCII)
	{
		for (size_t i = 0; i < n; i++)
			if ((unsigned char) s[i] > 0x7f)
				return not_a(t, s, type, "it has a byte above 0x7f");
	}
	else if (cf_utf8_invalid_at((const uint8_t *) s, n) != n)
		return not_a(t, s, type, "it is not valid UTF-8");
	cf_buf_put(out, s, n);
	return NULL;
}

static cf_status *
hex_bytes(const cft_term *t, const char *s, size_t n, cf_buf *out)
{
	uint8_t    *p;

	if (n % 2 != 0)
		return not_a(t, s, CFT_BYTES, "an odd number of hex digits");
	p = cf_buf_extend(out, n / 2);
	if (p == NULL)
		return cf_buf_status(out);
	if (cf_hex_decode(s, n / 2, p) >= 0)
		return not_a(t, s, CFT_BYTES, "only 0-9 and a-f are hex digits");
	return NULL;
}

/* Converts text s[0..n) under type. */
static cf_status *
convert(const cft_term *t, const char *s, size_t n, cft_type type, bool bytes_hex, cf_buf *out)
{
	switch (type)
	{
		case CFT_BYTES:
			if (bytes_hex)
				return hex_bytes(t, s, n, out);
			cf_buf_put(out, s, n);
			return NULL;
		case CFT_ASCII:
		case CFT_UTF8:
			return text_bytes(t, s, n, type, out);
		case CFT_LONG:
			return long_bytes(t, s, out);
		case CFT_INTEGER:
			return integer_bytes(t, s, out);
		case CFT_LEXICALUUID:
		case CFT_TIMEUUID:
			return uuid_bytes(t, s, type, out);
		default:
			break;
	}
	return cf_status_make(CF_ERR_INTERNAL, "unknown cli type %d", (int) type);
}

cf_status *
cft_term_bytes(const cft_term *t, cft_type type, cf_buf *out)
{
	cf_status  *st;

	if (t->kind == CFT_TERM_FUNC)
	{
		cft_type	ft;

		if ((st = cft_type_parse(cf_slice_str(t->text), "function", &ft)) != NULL)
			return st;
		if (t->arg == NULL)
		{
			uint8_t		u[CF_UUID_LEN];

			if (ft == CFT_TIMEUUID)
				cf_uuid_v1_now(u);
			else if (ft == CFT_LEXICALUUID)
			{
				if ((st = cf_random_bytes(u, sizeof(u))) != NULL)
					return st;
				u[6] = (uint8_t) ((u[6] & 0x0f) | 0x40);	/* version 4 */
				u[8] = (uint8_t) ((u[8] & 0x3f) | 0x80);	/* RFC 4122 variant */
			}
			else
				return cf_status_make(CF_ERR_INVALID, "line %d, column %d: %s() needs an "
									  "argument", t->line, t->col, t->text);
			cf_buf_put(out, u, sizeof(u));
			return cf_buf_status(out);
		}
		st = convert(t->arg, t->arg->text, t->arg->len, ft, true, out);
	}
	else
		st = convert(t, t->text, t->len, type, false, out);
	return st != NULL ? st : cf_buf_status(out);
}

/* Appends the decimal text of a big-endian two's-complement integer. */
static void
integer_format(cf_slice v, cf_buf *out)
{
	uint8_t    *mag;
	size_t		n = v.len;
	bool		neg = n > 0 && (v.p[0] & 0x80);
	char	   *digits;
	size_t		nd = 0;

	if (n == 0)
	{
		cf_buf_put(out, "0", 1);
		return;
	}
	mag = malloc(n);
	digits = malloc(n * 3 + 2);
	if (mag == NULL || digits == NULL)
	{
		free(mag);
		free(digits);
		cf_buf_put(out, "?", 1);
		return;
	}
	memcpy(mag, v.p, n);
	if (neg)
	{
		unsigned	carry = 1;

		for (size_t i = n; i-- > 0;)
		{
			unsigned	x = (uint8_t) ~mag[i] + carry;

			mag[i] = (uint8_t) x;
			carry = x >> 8;
		}
	}
	for (;;)
	{
		unsigned	rem = 0;
		bool		zero = true;

		for (size_t i = 0; i < n; i++)
		{
			unsigned	cur = rem * 256 + mag[i];

			mag[i] = (uint8_t) (cur / 10);
			rem = cur % 10;
			if (mag[i])
				zero = false;
		}
		digits[nd++] = (char) ('0' + rem);
		if (zero)
			break;
	}
	if (neg)
		cf_buf_put_u8(out, '-');
	while (nd > 0)
		cf_buf_put_u8(out, (uint8_t) digits[--nd]);
	free(mag);
	free(digits);
}

static void
hex_format(cf_slice v, cf_buf *out)
{
	char	   *p = (char *) cf_buf_extend(out, v.len * 2);

	if (p != NULL)
		cf_hex_encode(v.p, v.len, p);
}

void
cft_bytes_format(cft_type type, cf_slice v, cf_buf *out)
{
	char		text[64];

	switch (type)
	{
		case CFT_ASCII:
		case CFT_UTF8:
			if (cf_utf8_invalid_at(v.p, v.len) == v.len)
			{
				cf_buf_put(out, v.p, v.len);
				return;
			}
			break;
		case CFT_LONG:
			if (v.len == 8)
			{
				int			n = snprintf(text, sizeof(text), "%" PRId64,
										 (int64_t) cf_load_be64(v.p));

				cf_buf_put(out, text, (size_t) n);
				return;
			}
			break;
		case CFT_INTEGER:
			integer_format(v, out);
			return;
		case CFT_LEXICALUUID:
		case CFT_TIMEUUID:
			if (v.len == CF_UUID_LEN)
			{
				cf_uuid_format(v.p, text);
				cf_buf_put(out, text, CF_UUID_TEXT_LEN);
				return;
			}
			break;
		default:
			break;
	}
	hex_format(v, out);
}
