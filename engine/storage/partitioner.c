/*
 * storage/partitioner.c — tokens of keys, their text forms, midpoints and ranges
 * (see partitioner.h).
 *
 * Each partitioner is a row of operations (partitioner_ops, at the end); the API
 * functions pick the row and report a failed buffer once, after the operation.
 *
 * Assumptions:
 *  - unsigned __int128 (gcc, clang) holds every RandomPartitioner token, so decimal
 *    conversion and midpoint arithmetic are exact without a bignum library.
 *  - ByteOrdered midpoints work on tokens of any length, so they use byte-array
 *    arithmetic (big-endian, one carry byte in front) instead.
 *  - ICU sort keys end in one 0x00 and contain no other 0x00 (ICU's documented sort key
 *    format); collating_token checks it rather than trusting it, since token order and
 *    the printable key part both depend on it.
 */
#include "storage/partitioner.h"

#include <md5.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <unicode/ucol.h>
#include <unicode/ustring.h>
#include <unicode/utypes.h>

#include "util/hex.h"
#include "util/random.h"
#include "util/utf8.h"

typedef unsigned __int128 u128;

/* 2^127: the largest RandomPartitioner token, and the size of its ring. */
#define RANDOM_MAX ((u128) 1 << 127)
#define RANDOM_MAX_TEXT "170141183460469231731687303715884105728"

/* How much of a caller's text an error message quotes. */
#define QUOTE_MAX 64

/* ---------------------------------------------------------------- helpers */

/*
 * Returns s after undoing whatever was appended to out since it held start bytes, so
 * a failed call leaves out as it found it. A failed buffer stays failed.
 */
static cf_status *
undo(cf_buf *out, size_t start, cf_status *s)
{
	if (cf_buf_ok(out))
		out->len = start;
	return s;
}

static int
quote_len(cf_slice text)
{
	return (int) (text.len < QUOTE_MAX ? text.len : QUOTE_MAX);
}

/* NULL if s is valid UTF-8, else CF_ERR_INVALID: "<partitioner>: <what> is not ...". */
static cf_status *
check_utf8(cf_partitioner p, cf_slice s, const char *what)
{
	size_t		bad_at = cf_utf8_invalid_at(s.p, s.len);

	if (bad_at == s.len)
		return NULL;
	return cf_status_make(CF_ERR_INVALID,
						  "%s: %s is not valid UTF-8 (bad byte 0x%02x at offset %zu); "
						  "%s requires UTF-8 keys",
						  cf_partitioner_name(p), what, s.p[bad_at], bad_at,
						  cf_partitioner_name(p));
}

static u128
load_be128(const uint8_t *b)
{
	return ((u128) cf_load_be64(b) << 64) | cf_load_be64(b + 8);
}

static void
put_be128(cf_buf *out, u128 v)
{
	uint8_t    *b = cf_buf_extend(out, CF_RANDOM_TOKEN_LEN);

	if (b == NULL)
		return;
	cf_store_be64(b, (uint64_t) (v >> 64));
	cf_store_be64(b + 8, (uint64_t) v);
}


/* ---------------------------------------------------------------- Random */

static cf_status *
random_token(cf_slice key, cf_buf *out)
{
	MD5_CTX		ctx;
	uint8_t		digest[MD5_DIGEST_LENGTH];
	u128		v;

	MD5Init(&ctx);
	MD5Update(&ctx, key.len ? key.p : (const uint8_t *) "", key.len);
	MD5Final(digest, &ctx);
	v = load_be128(digest);
	/* Absolute value of the signed reading: negate when the sign bit is set. -2^127 → 2^127. */
	if (v & RANDOM_MAX)
		v = ~v + 1;
	put_be128(out, v);
	return NULL;
}

/* Reads a non-minimum Random token; false if it is not one (wrong length, > 2^127). */
static bool
random_value(cf_slice token, u128 *v)
{
	if (token.len != CF_RANDOM_TOKEN_LEN)
		return false;
	*v = load_be128(token.p);
	return *v <= RANDOM_MAX;
}

static cf_status *
random_invalid(cf_slice token)
{
	return cf_status_make(CF_ERR_INVALID,
						  "RandomPartitioner: not a token: expected %d bytes holding 0 to "
						  "2^127, got %zu bytes",
						  CF_RANDOM_TOKEN_LEN, token.len);
}

static cf_status *
random_to_string(cf_slice token, cf_buf *out)
{
	char		digits[40];		/* 2^128 has 39 digits */
	char	   *d = digits + sizeof(digits);
	u128		v;

	if (token.len == 0)
		return NULL;
	if (!random_value(token, &v))
		return random_invalid(token);
	do
	{
		*--d = (char) ('0' + (int) (v % 10));
		v /= 10;
	} while (v != 0);
	cf_buf_put(out, d, (size_t) (digits + sizeof(digits) - d));
	return NULL;
}

static cf_status *
random_from_string(cf_slice text, cf_buf *out)
{
	u128		v = 0;

	for (size_t i = 0; i < text.len; i++)
	{
		unsigned	digit = (unsigned) text.p[i] - '0';

		if (digit > 9 || v > (RANDOM_MAX - digit) / 10)
			goto bad;
		v = v * 10 + digit;
	}
	if (text.len == 0)
		goto bad;
	put_be128(out, v);
	return NULL;

bad:
	return cf_status_make(CF_ERR_INVALID,
						  "RandomPartitioner: invalid token \"%.*s\": expected a decimal "
						  "integer from 0 to 2^127 (" RANDOM_MAX_TEXT "), digits only",
						  quote_len(text), (const char *) text.p);
}

/* Cassandra's FBUtilities.midpoint on the ring of 2^127; the minimum counts as 0. */
static cf_status *
random_midpoint(cf_slice left, cf_slice right, cf_buf *out)
{
	u128		l = 0,
				r = 0,
				mid;

	if (left.len != 0 && !random_value(left, &l))
		return random_invalid(left);
	if (right.len != 0 && !random_value(right, &r))
		return random_invalid(right);
	if (l < r)
		mid = (l + r) >> 1;		/* l + r < 2^128: r <= 2^127 and l < r */
	else
	{
		u128		distance = RANDOM_MAX - (l - r);	/* 2^127 + r - l, <= 2^127 */

		mid = ((distance >> 1) + l) % RANDOM_MAX;
	}
	put_be128(out, mid);
	return NULL;
}

static cf_status *
random_random(cf_buf *out)
{
	uint8_t		b[CF_RANDOM_TOKEN_LEN];
	u128		v;

	/* Rejection sampling: 2^127 + 1 values fit once in 2^128, so half the draws pass. */
	do
	{
		cf_status  *s = cf_random_bytes(b, sizeof(b));

		if (s != NULL)
			return s;
		v = load_be128(b);
	} while (v > RANDOM_MAX);
	put_be128(out, v);
	return NULL;
}

/* ---------------------------------------------------------------- ByteOrdered */


/* Any bytes are a ByteOrdered token. */
static cf_status *
bop_token(cf_slice key, cf_buf *out)
{
	cf_buf_put(out, key.p, key.len);
	return NULL;
}

static cf_status *
bop_to_string(cf_slice token, cf_buf *out)
{
	char	   *d = (char *) cf_buf_extend(out, token.len * 2);

	if (d != NULL)				/* else the caller reports the buffer's failure */
		cf_hex_encode(token.p, token.len, d);
	return NULL;
}

static cf_status *
bop_from_string(cf_slice text, cf_buf *out)
{
	size_t		start = out->len;
	uint8_t    *b;

	if (text.len % 2 != 0)
		goto bad;
	b = cf_buf_extend(out, text.len / 2);
	if (b == NULL)
		return cf_buf_status(out);
	if (cf_hex_decode((const char *) text.p, text.len / 2, b) >= 0)
		goto bad;
	return NULL;

bad:
	return undo(out, start,
				cf_status_make(CF_ERR_INVALID,
							   "ByteOrderedPartitioner: invalid token \"%.*s\": expected an "
							   "even number of hex digits",
							   quote_len(text), (const char *) text.p));
}

/* acc[0..n) += b[0..n), big-endian; returns the carry out of acc[0]. */
static unsigned
be_add(uint8_t *acc, const uint8_t *b, size_t n)
{
	unsigned	carry = 0;

	while (n-- > 0)
	{
		carry += (unsigned) acc[n] + b[n];
		acc[n] = (uint8_t) carry;
		carry >>= 8;
	}
	return carry;
}

/* acc[0..n) -= b[0..n), big-endian, modulo 2^(8n). */
static void
be_sub(uint8_t *acc, const uint8_t *b, size_t n)
{
	unsigned	borrow = 0;

	while (n-- > 0)
	{
		unsigned	d = (unsigned) acc[n] - b[n] - borrow;

		acc[n] = (uint8_t) d;
		borrow = (d >> 8) & 1;
	}
}

/* acc[0..n) >>= 1, big-endian; returns the bit shifted out. */
static unsigned
be_shr1(uint8_t *acc, size_t n)
{
	unsigned	in = 0;

	for (size_t i = 0; i < n; i++)
	{
		unsigned	out = acc[i] & 1;

		acc[i] = (uint8_t) (acc[i] >> 1 | in << 7);
		in = out;
	}
	return in;
}

/*
 * Cassandra's ByteOrderedPartitioner.midpoint: both tokens right-padded with zeros to n
 * bytes, FBUtilities.midpoint on the ring of 2^(8n), a trailing 0x80 byte for an odd
 * sum. l and r carry one extra leading byte for the carry or the 2^(8n) term.
 */
static cf_status *
bop_midpoint(cf_slice left, cf_slice right, cf_buf *out)
{
	size_t		n = left.len > right.len ? left.len : right.len;
	uint8_t    *l = calloc(2, n + 1);
	uint8_t    *r = l + n + 1;
	unsigned	odd;

	if (l == NULL)
		return cf_status_make(CF_ERR_NO_MEMORY, "ByteOrderedPartitioner: midpoint of "
							  "%zu-byte tokens: out of memory", n);
	if (left.len)
		memcpy(l + 1, left.p, left.len);
	if (right.len)
		memcpy(r + 1, right.p, right.len);
	if (memcmp(l + 1, r + 1, n) < 0)
	{
		be_add(r, l, n + 1);	/* r = left + right */
		odd = be_shr1(r, n + 1);
	}
	else
	{
		/* wraps: left + (2^(8n) + right - left) / 2, modulo 2^(8n) */
		r[0] = 1;
		be_sub(r, l, n + 1);
		odd = be_shr1(r, n + 1);
		(void) be_add(r + 1, l + 1, n);
	}
	cf_buf_put(out, r + 1, n);
	if (odd)
		cf_buf_put_u8(out, 0x80);
	free(l);
	return NULL;
}

static cf_status *
bop_random(cf_buf *out)
{
	uint8_t		b[16];
	cf_status  *s = cf_random_bytes(b, sizeof(b));

	if (s == NULL)
		cf_buf_put(out, b, sizeof(b));
	return s;
}

/* ---------------------------------------------------------------- OrderPreserving */

/* A key and its token are the same UTF-8 bytes; what names which one is checked. */
static cf_status *
opp_put(cf_slice bytes, const char *what, cf_buf *out)
{
	cf_status  *s = check_utf8(CF_PARTITIONER_ORDER_PRESERVING, bytes, what);

	if (s == NULL)
		cf_buf_put(out, bytes.p, bytes.len);
	return s;
}

static cf_status *
opp_token(cf_slice key, cf_buf *out)
{
	return opp_put(key, "key", out);
}

static cf_status *
opp_to_string(cf_slice token, cf_buf *out)
{
	return opp_put(token, "token", out);
}

#define RANDOM_KEY_LEN 16

/*
 * Appends token_of(a random key of RANDOM_KEY_LEN characters from [a-zA-Z0-9]), as
 * Cassandra's order-preserving partitioners make random tokens. Uniform over the
 * alphabet: bytes of 248 (4 * 62) and up are dropped.
 */
static cf_status *
random_key_token(cf_status *(*token_of) (cf_slice key, cf_buf *out), cf_buf *out)
{
	char		key[RANDOM_KEY_LEN];
	static const char alnum[] =
		"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
	const size_t nalnum = sizeof(alnum) - 1;
	uint8_t		b[RANDOM_KEY_LEN];
	size_t		n = 0;

	while (n < RANDOM_KEY_LEN)
	{
		cf_status  *s = cf_random_bytes(b, sizeof(b));

		if (s != NULL)
			return s;
		for (size_t i = 0; i < sizeof(b) && n < RANDOM_KEY_LEN; i++)
			if (b[i] < 256 - 256 % nalnum)
				key[n++] = alnum[b[i] % nalnum];
	}
	return token_of(cf_slice_of(key, sizeof(key)), out);
}

static cf_status *
opp_random(cf_buf *out)
{
	return random_key_token(opp_token, out);
}

/* ---------------------------------------------------------------- Collating */

static pthread_once_t collator_once = PTHREAD_ONCE_INIT;
static UCollator *collator;		/* process lifetime; NULL if opening failed */
static UErrorCode collator_err;

static void
collator_open(void)
{
	UErrorCode	err = U_ZERO_ERROR;

	collator = ucol_open("en_US", &err);
	collator_err = err;
	if (U_FAILURE(err))
		collator = NULL;
}

/*
 * The key's UTF-16 form in *u: stack when it fits in stack_cap units, else malloc'd
 * (the caller frees *u when it is not stack).
 */
static cf_status *
to_utf16(cf_slice key, UChar *stack, int32_t stack_cap, UChar **u, int32_t *ulen)
{
	UErrorCode	err = U_ZERO_ERROR;
	const char *src = key.len ? (const char *) key.p : "";

	*u = stack;
	u_strFromUTF8(stack, stack_cap, ulen, src, (int32_t) key.len, &err);
	if (err == U_BUFFER_OVERFLOW_ERROR)
	{
		*u = malloc(sizeof(UChar) * (size_t) *ulen);
		if (*u == NULL)
			return cf_status_make(CF_ERR_NO_MEMORY, "CollatingOrderPreservingPartitioner: "
								  "%zu-byte key: out of memory", key.len);
		err = U_ZERO_ERROR;
		u_strFromUTF8(*u, *ulen, ulen, src, (int32_t) key.len, &err);
	}
	if (U_FAILURE(err))
	{
		if (*u != stack)
			free(*u);
		*u = NULL;
		return cf_status_make(CF_ERR_INTERNAL, "CollatingOrderPreservingPartitioner: "
							  "UTF-8 to UTF-16 failed: %s", u_errorName(err));
	}
	return NULL;
}

/* Appends the en_US sort key of u[0..ulen) and returns its length, or 0 on failure. */
static int32_t
put_sort_key(const UCollator *coll, const UChar *u, int32_t ulen, cf_buf *out)
{
	for (int attempt = 0; attempt < 2; attempt++)
	{
		size_t		avail = out->cap - out->len;
		int32_t		want = ucol_getSortKey(coll, u, ulen, out->data + out->len,
										   avail > INT32_MAX ? INT32_MAX : (int32_t) avail);

		if (want <= 0)
			return 0;
		if ((size_t) want <= avail)
			return cf_buf_extend(out, (size_t) want) ? want : 0;
		if (!cf_buf_reserve(out, (size_t) want))
			return 0;
	}
	return 0;
}

static cf_status *
collating_token(cf_slice key, cf_buf *out)
{
	const cf_partitioner p = CF_PARTITIONER_COLLATING_ORDER_PRESERVING;
	size_t		start = out->len;
	UChar		stack[256];
	UChar	   *u;
	int32_t		ulen;
	int32_t		klen;
	cf_status  *s;

	if ((s = check_utf8(p, key, "key")) != NULL)
		return s;
	if (key.len > INT32_MAX)
		return cf_status_make(CF_ERR_TOO_LARGE, "%s: key of %zu bytes is too long",
							  cf_partitioner_name(p), key.len);
	pthread_once(&collator_once, collator_open);
	if (collator == NULL)
		return cf_status_make(CF_ERR_INTERNAL, "%s: cannot open the ICU en_US collator: %s",
							  cf_partitioner_name(p), u_errorName(collator_err));
	if ((s = to_utf16(key, stack, (int32_t) (sizeof(stack) / sizeof(stack[0])),
					  &u, &ulen)) != NULL)
		return s;

	/* A first guess that fits most sort keys, so ICU usually runs once. */
	if (!cf_buf_reserve(out, (size_t) ulen * 4 + 16 + key.len))
		klen = 0;
	else
		klen = put_sort_key(collator, u, ulen, out);
	if (u != stack)
		free(u);
	if (!cf_buf_ok(out))
		return cf_buf_status(out);
	if (klen <= 0 || out->data[out->len - 1] != 0 ||
		memchr(out->data + start, 0, (size_t) klen - 1) != NULL)
		return undo(out, start,
					cf_status_make(CF_ERR_INTERNAL, "%s: ICU returned a malformed sort "
								   "key (%d bytes)", cf_partitioner_name(p), (int) klen));
	cf_buf_put(out, key.p, key.len);
	return NULL;
}

static cf_status *
collating_to_string(cf_slice token, cf_buf *out)
{
	const cf_partitioner p = CF_PARTITIONER_COLLATING_ORDER_PRESERVING;
	const uint8_t *nul;
	cf_slice	key;
	cf_status  *s;

	if (token.len == 0)
		return NULL;
	nul = memchr(token.p, 0, token.len);
	if (nul == NULL)
		return cf_status_make(CF_ERR_INVALID, "%s: not a token: no sort key terminator "
							  "in %zu bytes", cf_partitioner_name(p), token.len);
	key = cf_slice_of(nul + 1, token.len - (size_t) (nul + 1 - token.p));
	if ((s = check_utf8(p, key, "token's key")) != NULL)
		return s;
	cf_buf_put(out, key.p, key.len);
	return NULL;
}

static cf_status *
collating_random(cf_buf *out)
{
	return random_key_token(collating_token, out);
}

/* ---------------------------------------------------------------- the API */

/*
 * One row per partitioner: its names and its operations. Each operation appends to
 * out and may leave a failed buffer for the API function to report; midpoint is NULL
 * where Cassandra has none.
 */
typedef struct partitioner_ops
{
	const char *name;
	const char *class;
	cf_status  *(*token) (cf_slice key, cf_buf *out);
	cf_status  *(*to_string) (cf_slice token, cf_buf *out);
	cf_status  *(*from_string) (cf_slice text, cf_buf *out);
	cf_status  *(*midpoint) (cf_slice left, cf_slice right, cf_buf *out);
	cf_status  *(*random) (cf_buf *out);
} partitioner_ops;

static const partitioner_ops partitioners[CF_PARTITIONER_COUNT_] = {
	[CF_PARTITIONER_RANDOM] = {
		"RandomPartitioner", "org.apache.cassandra.dht.RandomPartitioner",
		random_token, random_to_string, random_from_string, random_midpoint,
		random_random,
	},
	[CF_PARTITIONER_BYTE_ORDERED] = {
		"ByteOrderedPartitioner", "org.apache.cassandra.dht.ByteOrderedPartitioner",
		bop_token, bop_to_string, bop_from_string, bop_midpoint, bop_random,
	},
	/* the text form of an order-preserving token is its key, so from_string is token */
	[CF_PARTITIONER_ORDER_PRESERVING] = {
		"OrderPreservingPartitioner",
		"org.apache.cassandra.dht.OrderPreservingPartitioner",
		opp_token, opp_to_string, opp_token, NULL, opp_random,
	},
	[CF_PARTITIONER_COLLATING_ORDER_PRESERVING] = {
		"CollatingOrderPreservingPartitioner",
		"org.apache.cassandra.dht.CollatingOrderPreservingPartitioner",
		collating_token, collating_to_string, collating_token, NULL, collating_random,
	},
};

cf_status *
cf_partitioner_parse(const char *name, cf_partitioner *out)
{
	for (int i = 0; name != NULL && i < CF_PARTITIONER_COUNT_; i++)
	{
		if (strcmp(name, partitioners[i].name) == 0 ||
			strcmp(name, partitioners[i].class) == 0)
		{
			*out = (cf_partitioner) i;
			return NULL;
		}
	}
	return cf_status_make(CF_ERR_INVALID,
						  "unknown partitioner \"%s\": valid partitioners are %s, %s, %s "
						  "and %s (short or org.apache.cassandra.dht.* class names)",
						  name ? name : "(null)",
						  partitioners[0].name, partitioners[1].name,
						  partitioners[2].name, partitioners[3].name);
}

/* The row of p, or NULL for a value out of range. */
static const partitioner_ops *
ops_of(cf_partitioner p)
{
	return (unsigned) p < CF_PARTITIONER_COUNT_ ? &partitioners[p] : NULL;
}

const char *
cf_partitioner_name(cf_partitioner p)
{
	return ops_of(p) ? ops_of(p)->name : "?";
}

const char *
cf_partitioner_class(cf_partitioner p)
{
	return ops_of(p) ? ops_of(p)->class : "?";
}

bool
cf_partitioner_preserves_order(cf_partitioner p)
{
	return ops_of(p) != NULL && p != CF_PARTITIONER_RANDOM;
}

/* An operation's result: its own error, else the buffer's, else NULL. */
static cf_status *
finish(cf_status *s, const cf_buf *out)
{
	return s ? s : cf_buf_status(out);
}

static cf_status *
unknown_partitioner(cf_partitioner p)
{
	return cf_status_make(CF_ERR_INTERNAL, "unknown partitioner %d", (int) p);
}

cf_status *
cf_partitioner_token(cf_partitioner p, cf_slice key, cf_buf *out)
{
	const partitioner_ops *ops = ops_of(p);

	return ops ? finish(ops->token(key, out), out) : unknown_partitioner(p);
}

cf_status *
cf_token_to_string(cf_partitioner p, cf_slice token, cf_buf *out)
{
	const partitioner_ops *ops = ops_of(p);

	return ops ? finish(ops->to_string(token, out), out) : unknown_partitioner(p);
}

cf_status *
cf_token_from_string(cf_partitioner p, cf_slice text, cf_buf *out)
{
	const partitioner_ops *ops = ops_of(p);

	return ops ? finish(ops->from_string(text, out), out) : unknown_partitioner(p);
}

cf_status *
cf_token_midpoint(cf_partitioner p, cf_slice left, cf_slice right, cf_buf *out)
{
	const partitioner_ops *ops = ops_of(p);

	if (ops == NULL)
		return unknown_partitioner(p);
	if (ops->midpoint == NULL)
		return cf_status_make(CF_ERR_NOT_SUPPORTED,
							  "%s has no midpoint of tokens; only RandomPartitioner "
							  "and ByteOrderedPartitioner do", ops->name);
	return finish(ops->midpoint(left, right, out), out);
}

cf_status *
cf_token_random(cf_partitioner p, cf_buf *out)
{
	const partitioner_ops *ops = ops_of(p);

	return ops ? finish(ops->random(out), out) : unknown_partitioner(p);
}

bool
cf_token_range_contains(cf_slice left, cf_slice right, cf_slice t)
{
	bool		after_left = cf_token_cmp(t, left) > 0;
	bool		upto_right = cf_token_cmp(t, right) <= 0;

	/* left >= right wraps past the end of the ring (left == right: all of it). */
	if (cf_token_cmp(left, right) >= 0)
		return after_left || upto_right;
	return after_left && upto_right;
}
