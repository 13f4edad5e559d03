/*
 * tests/unit/test_partitioner.c — storage/partitioner: tokens of keys under each
 * partitioner, their text forms, order, midpoints and ring ranges.
 *
 * The RandomPartitioner values were computed with Debian's python3 as
 * abs(int.from_bytes(hashlib.md5(k).digest(), 'big', signed=True)), and the midpoints
 * with Cassandra 0.7's FBUtilities.midpoint written out in python3.
 */
#include "support/cmocka_prelude.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "storage/partitioner.h"

#define RANDOM_MAX_TEXT "170141183460469231731687303715884105728"

static const cf_partitioner all_partitioners[] = {
	CF_PARTITIONER_RANDOM,
	CF_PARTITIONER_BYTE_ORDERED,
	CF_PARTITIONER_ORDER_PRESERVING,
	CF_PARTITIONER_COLLATING_ORDER_PRESERVING,
};

/* ---------------------------------------------------------------- helpers */

static void
assert_ok(cf_status *s)
{
	if (s != NULL)
		fail_msg("unexpected error %s: %s", cf_code_name(cf_status_code(s)),
				 cf_status_msg(s));
}

/* Asserts s is an error of code whose message contains needle; frees it. */
static void
assert_error(cf_status *s, cf_code code, const char *needle)
{
	if (s == NULL)
		fail_msg("expected %s, got success", cf_code_name(code));
	if (cf_status_code(s) != code || strstr(cf_status_msg(s), needle) == NULL)
		fail_msg("expected %s mentioning \"%s\", got %s: %s", cf_code_name(code), needle,
				 cf_code_name(cf_status_code(s)), cf_status_msg(s));
	cf_status_free(s);
}

static cf_slice
bslice(const cf_buf *b)
{
	return cf_slice_of(b->data, b->len);
}

/* The token of key (NUL-terminated) into *b, which is reset first. */
static cf_slice
token_of(cf_partitioner p, const char *key, cf_buf *b)
{
	cf_buf_reset(b);
	assert_ok(cf_partitioner_token(p, cf_slice_str(key), b));
	return bslice(b);
}

static cf_slice
token_from(cf_partitioner p, const char *text, cf_buf *b)
{
	cf_buf_reset(b);
	assert_ok(cf_token_from_string(p, cf_slice_str(text), b));
	return bslice(b);
}

/* Asserts the text form of token is want. */
static void
assert_token_text(cf_partitioner p, cf_slice token, const char *want)
{
	cf_buf		text = CF_BUF_INIT;

	assert_ok(cf_token_to_string(p, token, &text));
	if (text.len != strlen(want) || (text.len && memcmp(text.data, want, text.len) != 0))
		fail_msg("%s: token prints as \"%.*s\", want \"%s\"", cf_partitioner_name(p),
				 (int) text.len, (const char *) text.data, want);
	cf_buf_free(&text);
}

/* Asserts from_string rejects text with CF_ERR_INVALID naming p and leaves out alone. */
static void
assert_rejects_text(cf_partitioner p, cf_slice text, const char *needle)
{
	cf_buf		b = CF_BUF_INIT;

	cf_buf_put(&b, "keep", 4);
	assert_error(cf_token_from_string(p, text, &b), CF_ERR_INVALID, cf_partitioner_name(p));
	assert_error(cf_token_from_string(p, text, &b), CF_ERR_INVALID, needle);
	assert_int_equal(b.len, 4);
	assert_memory_equal(b.data, "keep", 4);
	cf_buf_free(&b);
}

static void
hex_to_bytes(const char *hex, uint8_t *out)
{
	for (size_t i = 0; hex[2 * i]; i++)
	{
		unsigned	v;

		assert_int_equal(sscanf(hex + 2 * i, "%2x", &v), 1);
		out[i] = (uint8_t) v;
	}
}

/*
 * Asserts that the tokens read from texts[0..n) ascend strictly, that each prints back
 * as its text, and that the minimum token precedes every one that is not the minimum.
 */
static void
assert_ascending(cf_partitioner p, const char *const *texts, size_t n)
{
	cf_buf	   *toks = calloc(n, sizeof(cf_buf));

	assert_non_null(toks);
	for (size_t i = 0; i < n; i++)
	{
		assert_ok(cf_token_from_string(p, cf_slice_str(texts[i]), &toks[i]));
		assert_token_text(p, bslice(&toks[i]), texts[i]);
		assert_true(cf_token_is_minimum(bslice(&toks[i])) ||
					cf_token_cmp(cf_slice_of(NULL, 0), bslice(&toks[i])) < 0);
	}
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < n; j++)
		{
			int			c = cf_token_cmp(bslice(&toks[i]), bslice(&toks[j]));

			if ((i < j && c >= 0) || (i == j && c != 0) || (i > j && c <= 0))
				fail_msg("%s: \"%s\" vs \"%s\" compares %d", cf_partitioner_name(p),
						 texts[i], texts[j], c);
		}
	for (size_t i = 0; i < n; i++)
		cf_buf_free(&toks[i]);
	free(toks);
}

/* A midpoint in text form: the midpoint of (left, right] is mid; "" is the minimum. */
typedef struct midpoint_case
{
	const char *left;
	const char *right;
	const char *mid;
} midpoint_case;

static void
assert_midpoints(cf_partitioner p, const midpoint_case *cases, size_t n)
{
	cf_buf		l = CF_BUF_INIT,
				r = CF_BUF_INIT,
				m = CF_BUF_INIT;

	for (size_t i = 0; i < n; i++)
	{
		cf_buf_reset(&l);
		cf_buf_reset(&r);
		cf_buf_reset(&m);
		if (*cases[i].left)
			token_from(p, cases[i].left, &l);
		if (*cases[i].right)
			token_from(p, cases[i].right, &r);
		assert_ok(cf_token_midpoint(p, bslice(&l), bslice(&r), &m));
		assert_true(m.len > 0);
		assert_token_text(p, bslice(&m), cases[i].mid);
	}
	cf_buf_free(&l);
	cf_buf_free(&r);
	cf_buf_free(&m);
}

/* ---------------------------------------------------------------- names */

static void
names_parse_short_and_class(void **state)
{
	(void) state;
	for (size_t i = 0; i < sizeof(all_partitioners) / sizeof(all_partitioners[0]); i++)
	{
		cf_partitioner p = all_partitioners[i];
		cf_partitioner got = CF_PARTITIONER_COUNT_;
		char		cls[128];

		assert_ok(cf_partitioner_parse(cf_partitioner_name(p), &got));
		assert_int_equal(got, p);
		got = CF_PARTITIONER_COUNT_;
		assert_ok(cf_partitioner_parse(cf_partitioner_class(p), &got));
		assert_int_equal(got, p);
		snprintf(cls, sizeof(cls), "org.apache.cassandra.dht.%s", cf_partitioner_name(p));
		assert_string_equal(cf_partitioner_class(p), cls);
	}
	assert_string_equal(cf_partitioner_name(CF_PARTITIONER_RANDOM), "RandomPartitioner");
	assert_string_equal(cf_partitioner_name(CF_PARTITIONER_BYTE_ORDERED),
						"ByteOrderedPartitioner");
	assert_string_equal(cf_partitioner_name(CF_PARTITIONER_ORDER_PRESERVING),
						"OrderPreservingPartitioner");
	assert_string_equal(cf_partitioner_class(CF_PARTITIONER_COLLATING_ORDER_PRESERVING),
						"org.apache.cassandra.dht.CollatingOrderPreservingPartitioner");
	assert_int_equal(CF_PARTITIONER_DEFAULT, CF_PARTITIONER_RANDOM);
	assert_string_equal(cf_partitioner_name(CF_PARTITIONER_COUNT_), "?");
}

static void
names_unknown_list_the_valid_ones(void **state)
{
	static const char *const bad[] = {
		"randompartitioner", "Random", "org.apache.cassandra.dht.Murmur3Partitioner",
		"", "org.apache.cassandra.dht.", "RandomPartitioner ",
	};
	cf_partitioner p = CF_PARTITIONER_BYTE_ORDERED;

	(void) state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
	{
		cf_status  *s = cf_partitioner_parse(bad[i], &p);

		assert_non_null(s);
		assert_int_equal(cf_status_code(s), CF_ERR_INVALID);
		for (size_t k = 0; k < sizeof(all_partitioners) / sizeof(all_partitioners[0]); k++)
			assert_non_null(strstr(cf_status_msg(s),
								   cf_partitioner_name(all_partitioners[k])));
		cf_status_free(s);
	}
	assert_error(cf_partitioner_parse(NULL, &p), CF_ERR_INVALID, "RandomPartitioner");
	assert_int_equal(p, CF_PARTITIONER_BYTE_ORDERED);	/* untouched on error */
}

static void
only_random_scrambles_order(void **state)
{
	(void) state;
	assert_false(cf_partitioner_preserves_order(CF_PARTITIONER_RANDOM));
	assert_true(cf_partitioner_preserves_order(CF_PARTITIONER_BYTE_ORDERED));
	assert_true(cf_partitioner_preserves_order(CF_PARTITIONER_ORDER_PRESERVING));
	assert_true(cf_partitioner_preserves_order(CF_PARTITIONER_COLLATING_ORDER_PRESERVING));
}

/* ---------------------------------------------------------------- Random */

static void
random_tokens_match_md5(void **state)
{
	static const struct
	{
		const char *key;		/* NULL: the 1000-byte key "abc...zabc..." */
		const char *decimal;
		const char *hex;
	}			cases[] = {
		/* "", "BloggyAppy" and "key155" have MD5s with the sign bit set */
		{"", "58332598431525814501020785164969033090",
		"2be2732670ff4dfb167ff6671307bd82"},
		{"a", "16955237001963240173058271559858726497",
		"0cc175b9c0f1b6a831c399e269772661"},
		{"jsmith", "76838167865092648291202220064490649847",
		"39ce7e2a8573b41ce73b5ba41617f8f7"},
		{"BloggyAppy", "15171796105584663700553848955796802687",
		"0b69fb4cf473296fc1e64671934d4c7f"},
		{NULL, "64133761917946477525886738623215494517",
		"303fb697b589019cb3edba04b794e575"},
		/* leading zero bytes in the magnitude, printed without leading zeros */
		{"key2197", "258898867899203337311209553503918",
		"00000cc3c35c235db1b62197235da6ae"},
		{"key155", "591606881655097137678929255989550599",
		"0071f078a4a60cbfc9ecaae071049e07"},
	};
	char		longkey[1000];
	cf_buf		b = CF_BUF_INIT;

	(void) state;
	for (size_t i = 0; i < sizeof(longkey); i++)
		longkey[i] = (char) ('a' + i % 26);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
	{
		cf_slice	key = cases[i].key ? cf_slice_str(cases[i].key) :
			cf_slice_of(longkey, sizeof(longkey));
		uint8_t		want[CF_RANDOM_TOKEN_LEN];

		hex_to_bytes(cases[i].hex, want);
		cf_buf_reset(&b);
		assert_ok(cf_partitioner_token(CF_PARTITIONER_RANDOM, key, &b));
		assert_int_equal(b.len, CF_RANDOM_TOKEN_LEN);
		assert_memory_equal(b.data, want, CF_RANDOM_TOKEN_LEN);
		assert_token_text(CF_PARTITIONER_RANDOM, bslice(&b), cases[i].decimal);
		/* a negative MD5 came out as its magnitude, below 2^127 here */
		assert_true((b.data[0] & 0x80) == 0);
	}
	cf_buf_free(&b);
}

static void
random_token_appends_after_existing_bytes(void **state)
{
	cf_buf		b = CF_BUF_INIT;
	uint8_t		want[CF_RANDOM_TOKEN_LEN];

	(void) state;
	hex_to_bytes("0cc175b9c0f1b6a831c399e269772661", want);
	cf_buf_put(&b, "xy", 2);
	assert_ok(cf_partitioner_token(CF_PARTITIONER_RANDOM, cf_slice_str("a"), &b));
	assert_int_equal(b.len, 2 + CF_RANDOM_TOKEN_LEN);
	assert_memory_equal(b.data, "xy", 2);
	assert_memory_equal(b.data + 2, want, CF_RANDOM_TOKEN_LEN);
	cf_buf_free(&b);
}

static void
random_strings_round_trip(void **state)
{
	static const char *const texts[] = {
		"0", "1", "9", "10", "18446744073709551615", "18446744073709551616",
		"58332598431525814501020785164969033090",
		"170141183460469231731687303715884105727", RANDOM_MAX_TEXT,
	};
	cf_buf		b = CF_BUF_INIT;
	cf_slice	t;

	(void) state;
	for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++)
	{
		t = token_from(CF_PARTITIONER_RANDOM, texts[i], &b);
		assert_int_equal(t.len, CF_RANDOM_TOKEN_LEN);
		assert_token_text(CF_PARTITIONER_RANDOM, t, texts[i]);
	}

	/* exact bytes at the edges */
	t = token_from(CF_PARTITIONER_RANDOM, RANDOM_MAX_TEXT, &b);
	assert_int_equal(t.p[0], 0x80);
	for (int i = 1; i < CF_RANDOM_TOKEN_LEN; i++)
		assert_int_equal(t.p[i], 0);
	t = token_from(CF_PARTITIONER_RANDOM, "258", &b);
	assert_int_equal(t.p[14], 1);
	assert_int_equal(t.p[15], 2);

	/* leading zeros are read (as Java's BigInteger does) but not printed */
	t = token_from(CF_PARTITIONER_RANDOM, "000042", &b);
	assert_token_text(CF_PARTITIONER_RANDOM, t, "42");

	/* the minimum token prints as "" */
	assert_token_text(CF_PARTITIONER_RANDOM, cf_slice_of(NULL, 0), "");
	cf_buf_free(&b);
}

static void
random_rejects_malformed_strings(void **state)
{
	static const char *const bad[] = {
		"", "-1", "-0", "+1", " 1", "1 ", "12a", "1.0", "0x10", "1e5",
		"170141183460469231731687303715884105729",	/* 2^127 + 1 */
		"340282366920938463463374607431768211456",	/* 2^128 */
		"999999999999999999999999999999999999999999999",
	};

	(void) state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_rejects_text(CF_PARTITIONER_RANDOM, cf_slice_str(bad[i]), RANDOM_MAX_TEXT);
	assert_rejects_text(CF_PARTITIONER_RANDOM, cf_slice_of("1\0" "2", 3), "decimal");
}

static void
random_rejects_foreign_tokens(void **state)
{
	uint8_t		over[CF_RANDOM_TOKEN_LEN] = {0x80, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 1};
	uint8_t		short_tok[CF_RANDOM_TOKEN_LEN - 1] = {0};
	cf_buf		b = CF_BUF_INIT;

	(void) state;
	assert_error(cf_token_to_string(CF_PARTITIONER_RANDOM, cf_slice_of(over, sizeof(over)),
									&b), CF_ERR_INVALID, "RandomPartitioner");
	assert_error(cf_token_to_string(CF_PARTITIONER_RANDOM,
									cf_slice_of(short_tok, sizeof(short_tok)), &b),
				 CF_ERR_INVALID, "15 bytes");
	assert_error(cf_token_midpoint(CF_PARTITIONER_RANDOM, cf_slice_of(over, sizeof(over)),
								   cf_slice_of(NULL, 0), &b),
				 CF_ERR_INVALID, "RandomPartitioner");
	assert_error(cf_token_midpoint(CF_PARTITIONER_RANDOM, cf_slice_of(NULL, 0),
								   cf_slice_of(short_tok, sizeof(short_tok)), &b),
				 CF_ERR_INVALID, "RandomPartitioner");
	assert_int_equal(b.len, 0);
	cf_buf_free(&b);
}

static void
random_order_is_numeric_order(void **state)
{
	/* ascending numerically; lexically "9" > "10", so byte order of text would fail */
	static const char *const asc[] = {
		"0", "1", "9", "10", "255", "256", "65535", "18446744073709551615",
		"18446744073709551616", "58332598431525814501020785164969033090",
		"76838167865092648291202220064490649847", RANDOM_MAX_TEXT,
	};

	(void) state;
	assert_ascending(CF_PARTITIONER_RANDOM, asc, sizeof(asc) / sizeof(asc[0]));
}

static void
random_midpoints_follow_cassandra(void **state)
{
	static const midpoint_case cases[] = {
		{"0", "10", "5"},
		{"1", "2", "1"},
		{"0", RANDOM_MAX_TEXT, "85070591730234615865843651857942052864"},
		{"170141183460469231731687303715884105727", RANDOM_MAX_TEXT,
		"170141183460469231731687303715884105727"},
		/* wrapping: left >= right */
		{"10", "0", "85070591730234615865843651857942052869"},
		{"170141183460469231731687303715884105718", "20", "5"},
		{RANDOM_MAX_TEXT, "0", "0"},
		{"5", "5", "85070591730234615865843651857942052869"},
		{"0", "0", "85070591730234615865843651857942052864"},
		{RANDOM_MAX_TEXT, RANDOM_MAX_TEXT, "85070591730234615865843651857942052864"},
		/* the minimum counts as 0 */
		{"", "", "85070591730234615865843651857942052864"},
		{"", "10", "5"},
	};

	(void) state;
	assert_midpoints(CF_PARTITIONER_RANDOM, cases, sizeof(cases) / sizeof(cases[0]));
}

static void
random_tokens_are_in_range_and_vary(void **state)
{
	cf_buf		a = CF_BUF_INIT,
				b = CF_BUF_INIT,
				max = CF_BUF_INIT;
	int			differ = 0;

	(void) state;
	token_from(CF_PARTITIONER_RANDOM, RANDOM_MAX_TEXT, &max);
	for (int i = 0; i < 64; i++)
	{
		cf_buf_reset(&a);
		cf_buf_reset(&b);
		assert_ok(cf_token_random(CF_PARTITIONER_RANDOM, &a));
		assert_ok(cf_token_random(CF_PARTITIONER_RANDOM, &b));
		assert_int_equal(a.len, CF_RANDOM_TOKEN_LEN);
		assert_true(cf_token_cmp(bslice(&a), bslice(&max)) <= 0);
		differ += !cf_slice_eq(bslice(&a), bslice(&b));
	}
	assert_int_equal(differ, 64);
	cf_buf_free(&a);
	cf_buf_free(&b);
	cf_buf_free(&max);
}

/* ---------------------------------------------------------------- ByteOrdered */

static void
bop_token_is_key_and_prints_hex(void **state)
{
	static const uint8_t key[] = {0x00, 0x01, 0x7f, 0x80, 0xab, 0xff};
	cf_buf		b = CF_BUF_INIT;
	cf_slice	t;

	(void) state;
	assert_ok(cf_partitioner_token(CF_PARTITIONER_BYTE_ORDERED,
								   cf_slice_of(key, sizeof(key)), &b));
	assert_int_equal(b.len, sizeof(key));
	assert_memory_equal(b.data, key, sizeof(key));
	assert_token_text(CF_PARTITIONER_BYTE_ORDERED, bslice(&b), "00017f80abff");

	t = token_from(CF_PARTITIONER_BYTE_ORDERED, "00017F80AbfF", &b);
	assert_int_equal(t.len, sizeof(key));
	assert_memory_equal(t.p, key, sizeof(key));
	assert_token_text(CF_PARTITIONER_BYTE_ORDERED, t, "00017f80abff");

	/* the empty key is the minimum token, and "" reads back as it */
	t = token_of(CF_PARTITIONER_BYTE_ORDERED, "", &b);
	assert_true(cf_token_is_minimum(t));
	assert_token_text(CF_PARTITIONER_BYTE_ORDERED, t, "");
	t = token_from(CF_PARTITIONER_BYTE_ORDERED, "", &b);
	assert_true(cf_token_is_minimum(t));

	assert_rejects_text(CF_PARTITIONER_BYTE_ORDERED, cf_slice_str("abc"), "even number");
	assert_rejects_text(CF_PARTITIONER_BYTE_ORDERED, cf_slice_str("0g"), "hex");
	assert_rejects_text(CF_PARTITIONER_BYTE_ORDERED, cf_slice_str("00 1"), "hex");
	assert_rejects_text(CF_PARTITIONER_BYTE_ORDERED, cf_slice_str("-1"), "hex");
	cf_buf_free(&b);
}

static void
bop_order_is_byte_order(void **state)
{
	/* ascending in unsigned byte order, shorter prefix first */
	static const char *const asc[] = {"", "00", "0000", "0001", "01", "7f", "80", "ff", "ff00"};

	(void) state;
	assert_ascending(CF_PARTITIONER_BYTE_ORDERED, asc, sizeof(asc) / sizeof(asc[0]));
}

static void
bop_midpoints_follow_cassandra(void **state)
{
	static const midpoint_case cases[] = {
		{"00", "02", "01"},
		{"00", "01", "0080"},	/* odd sum: a trailing 0x80 byte */
		{"61", "63", "62"},
		{"6162", "62", "61b1"},	/* "b" padded to "b\0" */
		{"ff", "01", "00"},		/* wraps */
		{"80", "80", "00"},		/* whole ring: the opposite point */
		{"ffff", "0001", "0000"},
		{"62", "61", "e180"},
		{"", "", "80"},
	};

	(void) state;
	assert_midpoints(CF_PARTITIONER_BYTE_ORDERED, cases, sizeof(cases) / sizeof(cases[0]));
}

static void
bop_midpoint_of_long_tokens(void **state)
{
	uint8_t		lo[300],
				hi[300];
	cf_buf		m = CF_BUF_INIT;

	(void) state;
	memset(lo, 0x10, sizeof(lo));
	memset(hi, 0x30, sizeof(hi));
	assert_ok(cf_token_midpoint(CF_PARTITIONER_BYTE_ORDERED, cf_slice_of(lo, sizeof(lo)),
								cf_slice_of(hi, sizeof(hi)), &m));
	assert_int_equal(m.len, sizeof(lo));
	for (size_t i = 0; i < m.len; i++)
		assert_int_equal(m.data[i], 0x20);
	assert_true(cf_token_range_contains(cf_slice_of(lo, sizeof(lo)),
										cf_slice_of(hi, sizeof(hi)), bslice(&m)));
	cf_buf_free(&m);
}

static void
bop_random_tokens_are_16_bytes(void **state)
{
	cf_buf		a = CF_BUF_INIT,
				b = CF_BUF_INIT;

	(void) state;
	assert_ok(cf_token_random(CF_PARTITIONER_BYTE_ORDERED, &a));
	assert_ok(cf_token_random(CF_PARTITIONER_BYTE_ORDERED, &b));
	assert_int_equal(a.len, 16);
	assert_int_equal(b.len, 16);
	assert_false(cf_slice_eq(bslice(&a), bslice(&b)));
	cf_buf_free(&a);
	cf_buf_free(&b);
}

/* ---------------------------------------------------------------- OrderPreserving */

static const struct
{
	const char *bytes;
	size_t		len;
	const char *what;
}			invalid_utf8[] = {
	{"\x80", 1, "lone continuation byte"},
	{"ab\xc0\x80", 4, "overlong NUL"},
	{"\xe0\x80\xaf", 3, "overlong 3-byte"},
	{"\xed\xa0\x80", 3, "surrogate"},
	{"\xf4\x90\x80\x80", 4, "past U+10FFFF"},
	{"\xf5\x80\x80\x80", 4, "f5 lead"},
	{"\xe2\x82", 2, "truncated"},
	{"\xff", 1, "ff"},
};

static void
opp_token_is_utf8_key(void **state)
{
	static const char *const keys[] = {
		"", "jsmith", "caf\xc3\xa9", "\xe2\x82\xac", "\xf0\x9f\x98\x80", "a\xf4\x8f\xbf\xbf",
	};
	cf_buf		b = CF_BUF_INIT;

	(void) state;
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
	{
		cf_slice	t = token_of(CF_PARTITIONER_ORDER_PRESERVING, keys[i], &b);

		assert_true(cf_slice_eq(t, cf_slice_str(keys[i])));
		assert_token_text(CF_PARTITIONER_ORDER_PRESERVING, t, keys[i]);
		t = token_from(CF_PARTITIONER_ORDER_PRESERVING, keys[i], &b);
		assert_true(cf_slice_eq(t, cf_slice_str(keys[i])));
	}
	assert_true(cf_token_is_minimum(token_of(CF_PARTITIONER_ORDER_PRESERVING, "", &b)));
	/* byte order: "B" < "a" */
	{
		cf_buf		a = CF_BUF_INIT;

		token_of(CF_PARTITIONER_ORDER_PRESERVING, "B", &b);
		token_of(CF_PARTITIONER_ORDER_PRESERVING, "a", &a);
		assert_true(cf_token_cmp(bslice(&b), bslice(&a)) < 0);
		cf_buf_free(&a);
	}
	cf_buf_free(&b);
}

static void
opp_rejects_invalid_utf8(void **state)
{
	cf_buf		b = CF_BUF_INIT;

	(void) state;
	for (size_t i = 0; i < sizeof(invalid_utf8) / sizeof(invalid_utf8[0]); i++)
	{
		cf_slice	k = cf_slice_of(invalid_utf8[i].bytes, invalid_utf8[i].len);

		cf_buf_reset(&b);
		assert_error(cf_partitioner_token(CF_PARTITIONER_ORDER_PRESERVING, k, &b),
					 CF_ERR_INVALID, "OrderPreservingPartitioner");
		assert_int_equal(b.len, 0);
		assert_error(cf_token_to_string(CF_PARTITIONER_ORDER_PRESERVING, k, &b),
					 CF_ERR_INVALID, "UTF-8");
		assert_rejects_text(CF_PARTITIONER_ORDER_PRESERVING, k, "UTF-8");
	}
	assert_error(cf_partitioner_token(CF_PARTITIONER_ORDER_PRESERVING,
									  cf_slice_str("ab\xc0\x80"), &b),
				 CF_ERR_INVALID, "offset 2");
	/* ByteOrdered takes the same bytes */
	cf_buf_reset(&b);
	assert_ok(cf_partitioner_token(CF_PARTITIONER_BYTE_ORDERED,
								   cf_slice_of(invalid_utf8[0].bytes, 1), &b));
	assert_int_equal(b.len, 1);
	cf_buf_free(&b);
}

static void
order_preserving_partitioners_have_no_midpoint(void **state)
{
	cf_buf		b = CF_BUF_INIT;

	(void) state;
	assert_error(cf_token_midpoint(CF_PARTITIONER_ORDER_PRESERVING, cf_slice_str("a"),
								   cf_slice_str("c"), &b),
				 CF_ERR_NOT_SUPPORTED, "OrderPreservingPartitioner");
	assert_error(cf_token_midpoint(CF_PARTITIONER_COLLATING_ORDER_PRESERVING,
								   cf_slice_str("a"), cf_slice_str("c"), &b),
				 CF_ERR_NOT_SUPPORTED, "CollatingOrderPreservingPartitioner");
	assert_int_equal(b.len, 0);
	cf_buf_free(&b);
}

static void
opp_random_tokens_are_alphanumeric(void **state)
{
	cf_partitioner ps[] = {CF_PARTITIONER_ORDER_PRESERVING,
	CF_PARTITIONER_COLLATING_ORDER_PRESERVING};
	cf_buf		b = CF_BUF_INIT,
				text = CF_BUF_INIT;

	(void) state;
	for (size_t k = 0; k < 2; k++)
	{
		cf_buf_reset(&b);
		cf_buf_reset(&text);
		assert_ok(cf_token_random(ps[k], &b));
		assert_ok(cf_token_to_string(ps[k], bslice(&b), &text));
		assert_int_equal(text.len, 16);
		for (size_t i = 0; i < text.len; i++)
			assert_non_null(strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
								   "0123456789", text.data[i]));
	}
	cf_buf_free(&b);
	cf_buf_free(&text);
}

/* ---------------------------------------------------------------- Collating */

static void
copp_orders_by_collation(void **state)
{
	const cf_partitioner p = CF_PARTITIONER_COLLATING_ORDER_PRESERVING;
	/* en_US order; in bytes "B" (0x42) and "Z" would come before "a" */
	static const char *const asc[] = {
		"", "a", "A", "ab", "B", "c", "caf\xc3\xa9", "cafe\xcc\x81x", "Z",
	};
	cf_buf		b = CF_BUF_INIT;
	cf_slice	t;

	(void) state;
	assert_ascending(p, asc, sizeof(asc) / sizeof(asc[0]));

	/* the token is the sort key, its 0x00, then the key's bytes */
	t = token_of(p, "B", &b);
	assert_true(t.len > 2);
	assert_int_equal(t.p[t.len - 1], 'B');
	assert_int_equal(t.p[t.len - 2], 0);
	assert_null(memchr(t.p, 0, t.len - 2));
	/* even the empty key has a non-empty token, after the minimum */
	assert_false(cf_token_is_minimum(token_of(p, "", &b)));
	cf_buf_free(&b);
}

static void
copp_breaks_ties_by_bytes(void **state)
{
	const cf_partitioner p = CF_PARTITIONER_COLLATING_ORDER_PRESERVING;
	/* pairs that collate equal: precomposed vs decomposed é, and an ignorable U+0000 */
	static const struct
	{
		const char *lo;
		size_t		lo_len;
		const char *hi;
		size_t		hi_len;
	}			pairs[] = {
		{"e\xcc\x81", 3, "\xc3\xa9", 2},
		{"a", 1, "a\0", 2},
	};
	cf_buf		a = CF_BUF_INIT,
				b = CF_BUF_INIT;

	(void) state;
	for (size_t i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++)
	{
		cf_buf_reset(&a);
		cf_buf_reset(&b);
		assert_ok(cf_partitioner_token(p, cf_slice_of(pairs[i].lo, pairs[i].lo_len), &a));
		assert_ok(cf_partitioner_token(p, cf_slice_of(pairs[i].hi, pairs[i].hi_len), &b));
		/* same sort key ... */
		assert_int_equal(a.len - pairs[i].lo_len, b.len - pairs[i].hi_len);
		assert_memory_equal(a.data, b.data, a.len - pairs[i].lo_len);
		/* ... so the key bytes decide */
		assert_true(cf_token_cmp(bslice(&a), bslice(&b)) < 0);
		assert_true(cf_token_cmp(bslice(&b), bslice(&a)) > 0);
	}
	/* the key part may hold 0x00; printing still returns it whole */
	cf_buf_reset(&b);
	cf_buf_reset(&a);
	assert_ok(cf_partitioner_token(p, cf_slice_of("a\0", 2), &b));
	assert_ok(cf_token_to_string(p, bslice(&b), &a));
	assert_int_equal(a.len, 2);
	assert_memory_equal(a.data, "a\0", 2);
	cf_buf_free(&a);
	cf_buf_free(&b);
}

static void
copp_strings_and_long_keys(void **state)
{
	const cf_partitioner p = CF_PARTITIONER_COLLATING_ORDER_PRESERVING;
	char		longkey[1001];
	cf_buf		a = CF_BUF_INIT,
				b = CF_BUF_INIT;

	(void) state;
	/* from_string reads the text as a key */
	token_from(p, "jsmith", &a);
	token_of(p, "jsmith", &b);
	assert_true(cf_slice_eq(bslice(&a), bslice(&b)));
	assert_token_text(p, bslice(&a), "jsmith");
	/* the minimum prints as "" */
	assert_token_text(p, cf_slice_of(NULL, 0), "");

	/* longer than the UTF-16 stack buffer; prefix sorts first */
	for (size_t i = 0; i < 1000; i++)
		longkey[i] = (char) ('a' + i % 26);
	longkey[1000] = '\0';
	token_of(p, longkey, &a);
	assert_token_text(p, bslice(&a), longkey);
	longkey[999] = '\0';
	token_of(p, longkey, &b);
	assert_true(cf_token_cmp(bslice(&b), bslice(&a)) < 0);

	for (size_t i = 0; i < sizeof(invalid_utf8) / sizeof(invalid_utf8[0]); i++)
	{
		cf_slice	k = cf_slice_of(invalid_utf8[i].bytes, invalid_utf8[i].len);

		cf_buf_reset(&a);
		assert_error(cf_partitioner_token(p, k, &a), CF_ERR_INVALID,
					 "CollatingOrderPreservingPartitioner");
		assert_int_equal(a.len, 0);
		assert_rejects_text(p, k, "UTF-8");
	}
	/* a token without a sort key terminator is not a Collating token */
	assert_error(cf_token_to_string(p, cf_slice_str("abc"), &a), CF_ERR_INVALID,
				 "CollatingOrderPreservingPartitioner");
	cf_buf_free(&a);
	cf_buf_free(&b);
}

/* Each thread computes the tokens of the same keys; the collator opens under them. */
#define COPP_THREADS 4

static void *
copp_thread(void *arg)
{
	cf_buf	   *out = arg;

	for (int i = 0; i < 200; i++)
	{
		char		key[16];

		snprintf(key, sizeof(key), "K%dz", i);
		if (cf_partitioner_token(CF_PARTITIONER_COLLATING_ORDER_PRESERVING,
								 cf_slice_str(key), out) != NULL)
			return "error";
	}
	return NULL;
}

/* Runs first in main, so the threads race to open the collator. */
static void
copp_first_use_from_many_threads(void **state)
{
	pthread_t	th[COPP_THREADS];
	cf_buf		out[COPP_THREADS];

	(void) state;
	for (int i = 0; i < COPP_THREADS; i++)
	{
		cf_buf_init(&out[i], 0);
		assert_int_equal(pthread_create(&th[i], NULL, copp_thread, &out[i]), 0);
	}
	for (int i = 0; i < COPP_THREADS; i++)
	{
		void	   *ret;

		assert_int_equal(pthread_join(th[i], &ret), 0);
		assert_null(ret);
	}
	for (int i = 1; i < COPP_THREADS; i++)
		assert_true(cf_slice_eq(bslice(&out[0]), bslice(&out[i])));
	assert_true(out[0].len > 200 * 4);
	for (int i = 0; i < COPP_THREADS; i++)
		cf_buf_free(&out[i]);
}

/* ---------------------------------------------------------------- ranges */

static void
ranges_are_start_exclusive_end_inclusive(void **state)
{
	/* "" is the minimum token */
	static const struct
	{
		const char *left;
		const char *right;
		const char *t;
		bool		in;
	}			cases[] = {
		/* (b, d] */
		{"b", "d", "a", false}, {"b", "d", "b", false}, {"b", "d", "ba", true},
		{"b", "d", "c", true}, {"b", "d", "d", true}, {"b", "d", "da", false},
		{"b", "d", "", false},
		/* (d, b] wraps: after d, or up to b */
		{"d", "b", "z", true}, {"d", "b", "a", true}, {"d", "b", "b", true},
		{"d", "b", "", true}, {"d", "b", "d", false}, {"d", "b", "c", false},
		/* (b, b] and (min, min] are the whole ring */
		{"b", "b", "b", true}, {"b", "b", "a", true}, {"b", "b", "zz", true},
		{"b", "b", "", true}, {"", "", "", true}, {"", "", "b", true},
		/* (min, d] from the start; (b, min] to the end */
		{"", "d", "a", true}, {"", "d", "", false}, {"", "d", "e", false},
		{"b", "", "zzz", true}, {"b", "", "a", false},
	};

	(void) state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		if (cf_token_range_contains(cf_slice_str(cases[i].left),
									cf_slice_str(cases[i].right),
									cf_slice_str(cases[i].t)) != cases[i].in)
			fail_msg("(\"%s\", \"%s\"] contains \"%s\": want %s", cases[i].left,
					 cases[i].right, cases[i].t, cases[i].in ? "true" : "false");
}

static void
random_ranges_follow_numeric_order(void **state)
{
	cf_buf		l = CF_BUF_INIT,
				r = CF_BUF_INIT,
				t = CF_BUF_INIT;

	(void) state;
	/* (2^127 - 1, 9]: wraps through 2^127 and 0 */
	token_from(CF_PARTITIONER_RANDOM, "170141183460469231731687303715884105727", &l);
	token_from(CF_PARTITIONER_RANDOM, "9", &r);
	token_from(CF_PARTITIONER_RANDOM, RANDOM_MAX_TEXT, &t);
	assert_true(cf_token_range_contains(bslice(&l), bslice(&r), bslice(&t)));
	token_from(CF_PARTITIONER_RANDOM, "0", &t);
	assert_true(cf_token_range_contains(bslice(&l), bslice(&r), bslice(&t)));
	token_from(CF_PARTITIONER_RANDOM, "9", &t);
	assert_true(cf_token_range_contains(bslice(&l), bslice(&r), bslice(&t)));
	token_from(CF_PARTITIONER_RANDOM, "10", &t);
	assert_false(cf_token_range_contains(bslice(&l), bslice(&r), bslice(&t)));

	/* (9, 10]: "100" is numerically outside even though it sorts between as text */
	token_from(CF_PARTITIONER_RANDOM, "9", &l);
	token_from(CF_PARTITIONER_RANDOM, "10", &r);
	token_from(CF_PARTITIONER_RANDOM, "100", &t);
	assert_false(cf_token_range_contains(bslice(&l), bslice(&r), bslice(&t)));
	/* the midpoint of a non-wrapping range lies inside it */
	token_from(CF_PARTITIONER_RANDOM, "1000", &r);
	cf_buf_reset(&t);
	assert_ok(cf_token_midpoint(CF_PARTITIONER_RANDOM, bslice(&l), bslice(&r), &t));
	assert_true(cf_token_range_contains(bslice(&l), bslice(&r), bslice(&t)));
	assert_token_text(CF_PARTITIONER_RANDOM, bslice(&t), "504");
	cf_buf_free(&l);
	cf_buf_free(&r);
	cf_buf_free(&t);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(copp_first_use_from_many_threads),
		cmocka_unit_test(names_parse_short_and_class),
		cmocka_unit_test(names_unknown_list_the_valid_ones),
		cmocka_unit_test(only_random_scrambles_order),
		cmocka_unit_test(random_tokens_match_md5),
		cmocka_unit_test(random_token_appends_after_existing_bytes),
		cmocka_unit_test(random_strings_round_trip),
		cmocka_unit_test(random_rejects_malformed_strings),
		cmocka_unit_test(random_rejects_foreign_tokens),
		cmocka_unit_test(random_order_is_numeric_order),
		cmocka_unit_test(random_midpoints_follow_cassandra),
		cmocka_unit_test(random_tokens_are_in_range_and_vary),
		cmocka_unit_test(bop_token_is_key_and_prints_hex),
		cmocka_unit_test(bop_order_is_byte_order),
		cmocka_unit_test(bop_midpoints_follow_cassandra),
		cmocka_unit_test(bop_midpoint_of_long_tokens),
		cmocka_unit_test(bop_random_tokens_are_16_bytes),
		cmocka_unit_test(opp_token_is_utf8_key),
		cmocka_unit_test(opp_rejects_invalid_utf8),
		cmocka_unit_test(order_preserving_partitioners_have_no_midpoint),
		cmocka_unit_test(opp_random_tokens_are_alphanumeric),
		cmocka_unit_test(copp_orders_by_collation),
		cmocka_unit_test(copp_breaks_ties_by_bytes),
		cmocka_unit_test(copp_strings_and_long_keys),
		cmocka_unit_test(ranges_are_start_exclusive_end_inclusive),
		cmocka_unit_test(random_ranges_follow_numeric_order),
	};

	return cmocka_run_group_tests_name("storage/partitioner", tests, NULL, NULL);
}
