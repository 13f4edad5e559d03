/*
 * tests/unit/test_comparator.c — storage/comparator: every type's order with its edge
 * cases, validation and its messages, text conversion both ways. Expected encodings of
 * big integers and UTF-8 error offsets were computed with Debian's /usr/bin/python3
 * (int.to_bytes(n, length, 'big', signed=True); UnicodeDecodeError.start).
 */
#include "support/cmocka_prelude.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "storage/comparator.h"
#include "util/uuid.h"

/* ---------------------------------------------------------------- helpers */

/* Decodes a hex string (test data only; aborts the test on a typo). */
static cf_slice
hex(const char *h, uint8_t *store)
{
	size_t		n = strlen(h);

	assert_int_equal(n % 2, 0);
	for (size_t i = 0; i < n; i += 2)
	{
		unsigned	v;

		assert_int_equal(sscanf(h + i, "%2x", &v), 1);
		store[i / 2] = (uint8_t) v;
	}
	return cf_slice_of(store, n / 2);
}

static int
sign(int c)
{
	return (c > 0) - (c < 0);
}

/* Compares two hex-written values under t, sign only. */
static int
cmp_hex(cf_type t, const char *a, const char *b)
{
	uint8_t		x[256],
				y[256];

	return sign(cf_type_compare(t, hex(a, x), hex(b, y)));
}

/*
 * Every pair of vals (hex, ascending) compares as its indexes do, both ways round,
 * and each equals itself.
 */
static void
assert_ascending(cf_type t, const char *const *vals, size_t n)
{
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < n; j++)
		{
			int			want = (i > j) - (i < j);
			int			got = cmp_hex(t, vals[i], vals[j]);

			if (got != want)
				fail_msg("%s: compare(%s, %s) = %d, want %d", cf_type_name(t),
						 vals[i], vals[j], got, want);
		}
}

/* Runs from_string and returns the bytes as lowercase hex in a static buffer. */
static const char *
from_string_hex(cf_type t, const char *s)
{
	static char text[2048];
	cf_buf		b = CF_BUF_INIT;
	cf_status  *st = cf_type_from_string(t, s, &b);

	if (st != NULL)
		fail_msg("%s from_string('%s'): %s", cf_type_name(t), s, cf_status_msg(st));
	assert_true(cf_buf_ok(&b));
	assert_true(b.len * 2 < sizeof(text));
	for (size_t i = 0; i < b.len; i++)
		snprintf(text + 2 * i, 3, "%02x", b.data[i]);
	text[2 * b.len] = '\0';
	cf_buf_free(&b);
	return text;
}

/* Runs to_string on hex-written bytes and returns the text in a static buffer. */
static const char *
to_string_of_hex(cf_type t, const char *h)
{
	static char text[4096];
	uint8_t		v[1024];
	cf_buf		b = CF_BUF_INIT;

	cf_type_to_string(t, hex(h, v), &b);
	assert_true(cf_buf_ok(&b));
	assert_true(b.len < sizeof(text));
	if (b.len)
		memcpy(text, b.data, b.len);
	text[b.len] = '\0';
	cf_buf_free(&b);
	return text;
}

/* from_string must fail with CF_ERR_INVALID, a message containing each of needles, and leave out alone. */
static void
assert_from_string_fails(cf_type t, const char *s, const char *needle1, const char *needle2)
{
	cf_buf		b = CF_BUF_INIT;
	cf_status  *st;

	cf_buf_put(&b, "keep", 4);
	st = cf_type_from_string(t, s, &b);
	if (st == NULL)
		fail_msg("%s from_string('%s') accepted", cf_type_name(t), s);
	assert_int_equal(cf_status_code(st), CF_ERR_INVALID);
	if (needle1 && strstr(cf_status_msg(st), needle1) == NULL)
		fail_msg("message '%s' lacks '%s'", cf_status_msg(st), needle1);
	if (needle2 && strstr(cf_status_msg(st), needle2) == NULL)
		fail_msg("message '%s' lacks '%s'", cf_status_msg(st), needle2);
	assert_int_equal(b.len, 4);
	assert_memory_equal(b.data, "keep", 4);
	cf_status_free(st);
	cf_buf_free(&b);
}

/* ---------------------------------------------------------------- names */

static void
parse_short_and_qualified_names(void **state)
{
	cf_type		t;

	(void) state;
	for (int i = 0; i < CF_TYPE_COUNT_; i++)
	{
		t = CF_TYPE_COUNT_;
		assert_null(cf_type_parse(cf_type_name((cf_type) i), &t));
		assert_int_equal(t, i);
		t = CF_TYPE_COUNT_;
		assert_null(cf_type_parse(cf_type_class((cf_type) i), &t));
		assert_int_equal(t, i);
	}
	assert_null(cf_type_parse("org.apache.cassandra.db.marshal.TimeUUIDType", &t));
	assert_int_equal(t, CF_TYPE_TIME_UUID);
	assert_string_equal(cf_type_name(CF_TYPE_UTF8), "UTF8Type");
	assert_string_equal(cf_type_class(CF_TYPE_LEXICAL_UUID),
						"org.apache.cassandra.db.marshal.LexicalUUIDType");
}

static void
parse_unknown_lists_valid_names(void **state)
{
	static const char *const bad[] = {
		"utf8type", "UTF8", "", "org.apache.cassandra.db.marshal.", "Foo",
		"org.apache.cassandra.db.marshal.utf8type", "java.lang.UTF8Type",
		"UTF8Type ", "CounterColumnType",
	};
	cf_type		t = CF_TYPE_BYTES;

	(void) state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
	{
		cf_status  *st = cf_type_parse(bad[i], &t);

		assert_non_null(st);
		assert_int_equal(cf_status_code(st), CF_ERR_INVALID);
		for (int k = 0; k < CF_TYPE_COUNT_; k++)
			assert_non_null(strstr(cf_status_msg(st), cf_type_name((cf_type) k)));
		cf_status_free(st);
	}
	assert_int_equal(t, CF_TYPE_BYTES);
}

/* ---------------------------------------------------------------- order */

static void
empty_sorts_first_in_every_type(void **state)
{
	/* one valid and one invalid non-empty value per type */
	static const char *const some[CF_TYPE_COUNT_][2] = {
		[CF_TYPE_BYTES] = {"00", "ff"},
		[CF_TYPE_ASCII] = {"00", "ff"},
		[CF_TYPE_UTF8] = {"00", "ff"},
		[CF_TYPE_LONG] = {"8000000000000000", "80"},
		[CF_TYPE_INTEGER] = {"80", "ff00000000000000000000"},
		[CF_TYPE_LEXICAL_UUID] = {"80000000000000000000000000000000", "80"},
		[CF_TYPE_TIME_UUID] = {"00000000000010008000000000000000", "00"},
	};

	(void) state;
	for (int t = 0; t < CF_TYPE_COUNT_; t++)
	{
		assert_int_equal(cmp_hex((cf_type) t, "", ""), 0);
		for (int k = 0; k < 2; k++)
		{
			assert_int_equal(cmp_hex((cf_type) t, "", some[t][k]), -1);
			assert_int_equal(cmp_hex((cf_type) t, some[t][k], ""), 1);
		}
		assert_null(cf_type_validate((cf_type) t, cf_slice_of(NULL, 0), "name"));
	}
}

static void
bytes_ascii_utf8_order_is_unsigned_bytes(void **state)
{
	static const char *const asc[] = {
		"00", "0000", "01", "41", "4141", "41410000", "4142", "7f", "80", "c3a9", "ff", "ffff",
	};

	(void) state;
	assert_ascending(CF_TYPE_BYTES, asc, sizeof(asc) / sizeof(asc[0]));
	assert_ascending(CF_TYPE_ASCII, asc, sizeof(asc) / sizeof(asc[0]));
	assert_ascending(CF_TYPE_UTF8, asc, sizeof(asc) / sizeof(asc[0]));
	/* UTF-8 byte order is code point order: U+FFFF < U+10000 */
	assert_int_equal(cmp_hex(CF_TYPE_UTF8, "efbfbf", "f0908080"), -1);
}

static void
long_order_is_signed(void **state)
{
	static const char *const asc[] = {
		"8000000000000000",		/* INT64_MIN */
		"8000000000000001",
		"ff00000000000000",
		"fffffffffffffffe",
		"ffffffffffffffff",		/* -1 */
		"0000000000000000",
		"0000000000000001",
		"00000000000000ff",
		"0000000000000100",
		"7ffffffffffffffe",
		"7fffffffffffffff",		/* INT64_MAX */
	};

	(void) state;
	assert_ascending(CF_TYPE_LONG, asc, sizeof(asc) / sizeof(asc[0]));
}

static void
integer_order_is_numeric(void **state)
{
	static const char *const asc[] = {
		"f0000000000000000000000000",	/* -2^100 */
		"ff7fffffffffffffff",	/* -2^63 - 1 */
		"8000000000000000",		/* -2^63 */
		"fe",					/* -2 */
		"ff",					/* -1 */
		"00",					/* 0 */
		"01",
		"7f",					/* 127 */
		"0080",					/* 128 */
		"00ff",					/* 255 */
		"0100",					/* 256 */
		"7fffffffffffffff",		/* 2^63 - 1 */
		"008000000000000000",	/* 2^63 */
		"10000000000000000000000000",	/* 2^100 */
	};

	(void) state;
	assert_ascending(CF_TYPE_INTEGER, asc, sizeof(asc) / sizeof(asc[0]));

	/* the cases the brief names, spelled out */
	assert_int_equal(cmp_hex(CF_TYPE_INTEGER, "ff", "00"), -1);		/* -1 < 0 */
	assert_int_equal(cmp_hex(CF_TYPE_INTEGER, "00", "01"), -1);		/* 0 < 1 */
	assert_int_equal(cmp_hex(CF_TYPE_INTEGER, "00ff", "7f"), 1);	/* 255 > 127 */
	assert_int_equal(cmp_hex(CF_TYPE_INTEGER, "ff00", "ff"), -1);	/* -256 < -1 */
	assert_int_equal(cmp_hex(CF_TYPE_INTEGER, "ff", "ff00"), 1);
	assert_int_equal(cmp_hex(CF_TYPE_INTEGER, "80", "ff7f"), 1);	/* -128 > -129 */

	/* redundant sign-extension bytes do not change the number */
	assert_int_equal(cmp_hex(CF_TYPE_INTEGER, "00ff", "0000ff"), 0);
	assert_int_equal(cmp_hex(CF_TYPE_INTEGER, "ff", "ffffff"), 0);
	assert_int_equal(cmp_hex(CF_TYPE_INTEGER, "00", "00000000"), 0);
	assert_int_equal(cmp_hex(CF_TYPE_INTEGER, "ff80", "80"), 0);
	assert_int_equal(cmp_hex(CF_TYPE_INTEGER, "0000000001", "02"), -1);
	assert_int_equal(cmp_hex(CF_TYPE_INTEGER, "ffffffff80", "ff7f"), 1);
	assert_int_equal(cmp_hex(CF_TYPE_INTEGER, "000000007f", "0080"), -1);
}

/* Minimal two's-complement of v plus pad sign-extension bytes, into p. */
static size_t
encode_varint(int64_t v, int pad, uint8_t *p)
{
	uint8_t		full[8];
	size_t		skip = 0;
	uint8_t		ext = v < 0 ? 0xff : 0x00;
	size_t		n = 0;

	cf_store_be64(full, (uint64_t) v);
	while (skip < 7 && full[skip] == ext && ((full[skip + 1] ^ ext) & 0x80) == 0)
		skip++;
	for (int i = 0; i < pad; i++)
		p[n++] = ext;
	memcpy(p + n, full + skip, 8 - skip);
	return n + 8 - skip;
}

/* IntegerType agrees with int64 order on many values of every width, padded or not. */
static void
integer_order_matches_int64(void **state)
{
	uint64_t	x = 0x9E3779B97F4A7C15ull;

	(void) state;
	for (int i = 0; i < 20000; i++)
	{
		int64_t		v[2];
		uint8_t		e[2][16];
		size_t		n[2];

		for (int k = 0; k < 2; k++)
		{
			/* xorshift64, then a random width so small numbers are common */
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			v[k] = (int64_t) x >> (x % 64);
			if (i % 7 == 0 && k == 1 && v[0] > INT64_MIN && v[0] < INT64_MAX)
				v[1] = v[0] + (int64_t) (x % 3) - 1;	/* neighbours and equals */
			n[k] = encode_varint(v[k], (int) (x >> 60) % 3, e[k]);
		}
		if (sign(cf_type_compare(CF_TYPE_INTEGER, cf_slice_of(e[0], n[0]),
								 cf_slice_of(e[1], n[1]))) != (v[0] > v[1]) - (v[0] < v[1]))
			fail_msg("compare(%lld, %lld) wrong", (long long) v[0], (long long) v[1]);
	}
}

static void
lexical_uuid_order_is_java_signed(void **state)
{
	/* Java's UUID.compareTo: msb as a signed long, then lsb as a signed long */
	static const char *const fixed[] = {
		"80000000000000000000000000000000",
		"ffffffffffffffff8000000000000000",
		"ffffffffffffffff0000000000000000",
		"ffffffffffffffff7fffffffffffffff",
		"00000000000000008000000000000000",
		"0000000000000000ffffffffffffffff",	/* lsb -1 */
		"00000000000000000000000000000000",
		"00000000000000007fffffffffffffff",
		"7fffffffffffffff0000000000000000",
	};

	(void) state;
	assert_ascending(CF_TYPE_LEXICAL_UUID, fixed, sizeof(fixed) / sizeof(fixed[0]));
	/* and this is not byte order */
	assert_int_equal(cmp_hex(CF_TYPE_BYTES, fixed[0], fixed[8]), 1);
}

static void
time_uuid_order_is_by_time_not_bytes(void **state)
{
	/* 1: time_low f0000000, time_mid 4d40; 2: 0x20000000 ticks later, time_low wrapped */
	const char *earlier = "f00000004d4011e08000000000000000";
	const char *later = "100000004d4111e08000000000000000";
	/* time_hi differs: the earlier has the larger low bytes in every field */
	const char *much_later = "000000000000121f8000000000000000";
	uint8_t		a[16],
				b[16];

	(void) state;
	assert_int_equal(cmp_hex(CF_TYPE_BYTES, earlier, later), 1);
	assert_int_equal(cmp_hex(CF_TYPE_TIME_UUID, earlier, later), -1);
	assert_int_equal(cmp_hex(CF_TYPE_TIME_UUID, later, earlier), 1);
	assert_int_equal(cmp_hex(CF_TYPE_TIME_UUID, later, much_later), -1);
	assert_true(cf_timeuuid_timestamp(hex(earlier, a)) < cf_timeuuid_timestamp(hex(later, b)));

	/* generated from micros: later micros sort later whatever the bytes say */
	{
		static const uint8_t node[6] = {1, 2, 3, 4, 5, 6};
		int64_t		m = INT64_C(1300000000123456);
		int			disagreements = 0;

		for (int i = 0; i < 1000; i++)
		{
			int64_t		step = INT64_C(1) << (i % 50);

			if (!cf_uuid_v1_from_micros(m, 0, node, a) ||
				!cf_uuid_v1_from_micros(m + step, 0, node, b))
				continue;
			assert_int_equal(sign(cf_type_compare(CF_TYPE_TIME_UUID, cf_slice_of(a, 16),
												  cf_slice_of(b, 16))), -1);
			disagreements += memcmp(a, b, 16) > 0;
		}
		assert_true(disagreements > 0);		/* the test did cover the interesting case */
	}
}

static void
time_uuid_equal_times_break_ties_on_signed_bytes(void **state)
{
	(void) state;
	/* same timestamp; clock_seq differs */
	assert_int_equal(cmp_hex(CF_TYPE_TIME_UUID,
							 "71a896804d4011e08000000000000000",
							 "71a896804d4011e08001000000000000"), -1);
	/* same timestamp; node byte 0x7f against 0x80: signed as in Java, so 0x80 first */
	assert_int_equal(cmp_hex(CF_TYPE_TIME_UUID,
							 "71a896804d4011e080007f0000000000",
							 "71a896804d4011e0800080000000000f"), 1);
	assert_int_equal(cmp_hex(CF_TYPE_TIME_UUID,
							 "71a896804d4011e08000010203040506",
							 "71a896804d4011e08000010203040506"), 0);
}

static void
invalid_input_compares_as_bytes(void **state)
{
	static const struct
	{
		cf_type		t;
		const char *a;
		const char *b;
	}			cases[] = {
		{CF_TYPE_LONG, "80000000000000", "0000000000000000"},	/* 7 bytes vs 8 */
		{CF_TYPE_LONG, "ff", "01"},
		{CF_TYPE_LEXICAL_UUID, "80", "00000000000000000000000000000000"},
		{CF_TYPE_TIME_UUID, "00", "ff"},
		/* a v4 whose time field is higher than a v1's: byte order, not time order */
		{CF_TYPE_TIME_UUID, "00000000ffff4fff8000000000000000",
		"ffffffff000011e08000000000000000"},
		{(cf_type) 99, "01", "02"},
		{(cf_type) -1, "ff", "01"},
	};

	(void) state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
	{
		assert_int_equal(cmp_hex(cases[i].t, cases[i].a, cases[i].b),
						 cmp_hex(CF_TYPE_BYTES, cases[i].a, cases[i].b));
		assert_int_equal(cmp_hex(cases[i].t, cases[i].b, cases[i].a),
						 cmp_hex(CF_TYPE_BYTES, cases[i].b, cases[i].a));
	}
}

/* ---------------------------------------------------------------- validation */

/* validate must fail with a message that starts with what and contains needles. */
static void
assert_invalid(cf_type t, const char *h, const char *what, const char *n1, const char *n2)
{
	uint8_t		v[256];
	cf_status  *st = cf_type_validate(t, hex(h, v), what);

	if (st == NULL)
		fail_msg("%s accepted %s", cf_type_name(t), h);
	assert_int_equal(cf_status_code(st), CF_ERR_INVALID);
	assert_int_equal(strncmp(cf_status_msg(st), what, strlen(what)), 0);
	if (strstr(cf_status_msg(st), n1) == NULL || (n2 && strstr(cf_status_msg(st), n2) == NULL))
		fail_msg("message '%s' lacks '%s' or '%s'", cf_status_msg(st), n1, n2 ? n2 : "");
	cf_status_free(st);
}

static void
assert_valid(cf_type t, const char *h)
{
	uint8_t		v[256];
	cf_status  *st = cf_type_validate(t, hex(h, v), "value");

	if (st != NULL)
		fail_msg("%s rejected %s: %s", cf_type_name(t), h, cf_status_msg(st));
}

static void
validate_lengths(void **state)
{
	cf_status  *st;
	uint8_t		v[8] = {0};

	(void) state;
	st = cf_type_validate(CF_TYPE_LONG, cf_slice_of(v, 7), "column name");
	assert_non_null(st);
	assert_string_equal(cf_status_msg(st),
						"column name: LongType requires exactly 8 bytes, got 7");
	cf_status_free(st);
	assert_invalid(CF_TYPE_LONG, "000000000000000000", "value of column 'age'", "LongType", "8 bytes");
	assert_valid(CF_TYPE_LONG, "8000000000000000");
	assert_invalid(CF_TYPE_LEXICAL_UUID, "00", "name", "LexicalUUIDType", "16 bytes");
	assert_invalid(CF_TYPE_LEXICAL_UUID, "0000000000000000000000000000000000", "name",
				   "LexicalUUIDType", "got 17");
	assert_valid(CF_TYPE_LEXICAL_UUID, "550e8400e29b41d4a716446655440000");
	assert_invalid(CF_TYPE_TIME_UUID, "000000000000100080000000000000", "name",
				   "TimeUUIDType", "16 bytes");
	/* every byte string is a BytesType and an IntegerType */
	assert_valid(CF_TYPE_BYTES, "00ff80");
	assert_valid(CF_TYPE_INTEGER, "0000000000ff");
	/* NULL what is allowed */
	st = cf_type_validate(CF_TYPE_LONG, cf_slice_of(v, 1), NULL);
	assert_non_null(st);
	cf_status_free(st);
	st = cf_type_validate((cf_type) 42, cf_slice_of(v, 1), "x");
	assert_int_equal(cf_status_code(st), CF_ERR_INVALID);
	cf_status_free(st);
}

static void
validate_time_uuid_version(void **state)
{
	(void) state;
	assert_valid(CF_TYPE_TIME_UUID, "71a896804d4011e09234010203040506");
	assert_invalid(CF_TYPE_TIME_UUID, "550e8400e29b41d4a716446655440000", "column name",
				   "TimeUUIDType", "version 4");
	assert_invalid(CF_TYPE_TIME_UUID, "00000000000000000000000000000000", "column name",
				   "TimeUUIDType", "version 0");
	assert_invalid(CF_TYPE_TIME_UUID, "0000000000002000000000000000000f", "column name",
				   "TimeUUIDType", "version 2");
	assert_int_equal(cf_timeuuid_timestamp(cf_slice_of("\x71\xa8\x96\x80\x4d\x40\x11\xe0"
													   "\x92\x34\x01\x02\x03\x04\x05\x06", 16)),
					 INT64_C(135192928001234560));
	assert_int_equal(cf_timeuuid_timestamp(cf_slice_of("\x55\x0e\x84\x00\xe2\x9b\x41\xd4"
													   "\xa7\x16\x44\x66\x55\x44\x00\x00", 16)), -1);
	assert_int_equal(cf_timeuuid_timestamp(cf_slice_of("\x00", 1)), -1);
	assert_int_equal(cf_timeuuid_timestamp(cf_slice_of(NULL, 0)), -1);
}

static void
validate_ascii(void **state)
{
	(void) state;
	assert_valid(CF_TYPE_ASCII, "00417f");
	assert_invalid(CF_TYPE_ASCII, "414280", "name", "AsciiType", "at byte 2");
	assert_invalid(CF_TYPE_ASCII, "c3a9", "name", "AsciiType", "0xc3");
}

static void
validate_utf8(void **state)
{
	/* hex → offset of the first bad byte, from python3's UnicodeDecodeError.start */
	static const struct
	{
		const char *h;
		size_t		at;
	}			bad[] = {
		{"6180", 1},			/* stray continuation byte */
		{"6162c080", 2},		/* overlong NUL */
		{"c1bf", 0},			/* overlong 2-byte */
		{"616263e08080", 3},	/* overlong 3-byte */
		{"eda080", 0},			/* U+D800 */
		{"7878edbfbf", 2},		/* U+DFFF */
		{"f4908080", 0},		/* U+110000 */
		{"f5808080", 0},		/* lead byte past U+10FFFF */
		{"61626364e282", 4},	/* truncated at end */
		{"e24141", 0},			/* continuation missing */
		{"6f6bf09f98", 2},		/* truncated 4-byte */
		{"ff", 0},
		{"61f08fbfbf", 1},		/* overlong 4-byte */
	};
	static const char *const good[] = {
		"ed9fbf", "ee8080", "f48fbfbf", "f0908080", "c280", "dfbf", "e0a080", "00", "7f",
		"68c3a96c6c6f", "f09f9880",
	};

	(void) state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
	{
		char		want[64];

		snprintf(want, sizeof(want), "invalid UTF-8 at byte %zu for UTF8Type", bad[i].at);
		assert_invalid(CF_TYPE_UTF8, bad[i].h, "value of column 'bio'", want, NULL);
	}
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++)
		assert_valid(CF_TYPE_UTF8, good[i]);
}

/* ---------------------------------------------------------------- text */

static void
integer_text_round_trips(void **state)
{
	/* decimal → minimal encoding, from python3 int.to_bytes(..., signed=True) */
	static const char *const pairs[][2] = {
		{"0", "00"},
		{"1", "01"},
		{"-1", "ff"},
		{"127", "7f"},
		{"128", "0080"},
		{"255", "00ff"},
		{"-128", "80"},
		{"-129", "ff7f"},
		{"-256", "ff00"},
		{"256", "0100"},
		{"9223372036854775807", "7fffffffffffffff"},
		{"9223372036854775808", "008000000000000000"},
		{"-9223372036854775808", "8000000000000000"},
		{"-9223372036854775809", "ff7fffffffffffffff"},
		{"1267650600228229401496703205376", "10000000000000000000000000"},	/* 2^100 */
		{"-1267650600228229401496703205376", "f0000000000000000000000000"},
		{"1267650600228229401496703205375", "0fffffffffffffffffffffffff"},
		{"-1267650600228229401496703205375", "f0000000000000000000000001"},
		{"10000000000000000000000000000000000000000", "1d6329f1c35ca4bfabb9f5610000000000"},
		{"-10000000000000000000000000000000000000000", "e29cd60e3ca35b4054460a9f0000000000"},
	};

	(void) state;
	for (size_t i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++)
	{
		assert_string_equal(from_string_hex(CF_TYPE_INTEGER, pairs[i][0]), pairs[i][1]);
		assert_string_equal(to_string_of_hex(CF_TYPE_INTEGER, pairs[i][1]), pairs[i][0]);
	}
	/* accepted spellings that are not the canonical one */
	assert_string_equal(from_string_hex(CF_TYPE_INTEGER, "+255"), "00ff");
	assert_string_equal(from_string_hex(CF_TYPE_INTEGER, "-0"), "00");
	assert_string_equal(from_string_hex(CF_TYPE_INTEGER, "000042"), "2a");
	assert_string_equal(from_string_hex(CF_TYPE_INTEGER, "-000"), "00");
	/* redundant sign bytes read as the same number */
	assert_string_equal(to_string_of_hex(CF_TYPE_INTEGER, "000000ff"), "255");
	assert_string_equal(to_string_of_hex(CF_TYPE_INTEGER, "ffffff80"), "-128");
	assert_string_equal(to_string_of_hex(CF_TYPE_INTEGER, "0000"), "0");
}

static void
integer_text_long_values(void **state)
{
	char		digits[701];
	cf_buf		b = CF_BUF_INIT;
	cf_buf		t = CF_BUF_INIT;

	(void) state;
	/* -(a 700-digit number): round trips, is negative, sorts below -2^100 */
	digits[0] = '-';
	for (int i = 1; i < 700; i++)
		digits[i] = (char) ('0' + (i * 7 + 3) % 10);
	digits[1] = '9';
	digits[700] = '\0';
	assert_null(cf_type_from_string(CF_TYPE_INTEGER, digits, &b));
	assert_true(b.len > 280 && b.len < 300);	/* 699 digits ≈ 2322 bits */
	assert_true(b.data[0] & 0x80);
	cf_type_to_string(CF_TYPE_INTEGER, cf_slice_of(b.data, b.len), &t);
	assert_int_equal(t.len, 700);
	assert_memory_equal(t.data, digits, 700);
	{
		uint8_t		m[16];

		assert_int_equal(sign(cf_type_compare(CF_TYPE_INTEGER, cf_slice_of(b.data, b.len),
											  hex("f0000000000000000000000000", m))), -1);
	}
	cf_buf_free(&b);
	cf_buf_free(&t);
}

static void
integer_order_matches_text_order(void **state)
{
	static const char *const asc[] = {
		"-10000000000000000000000000000000000000001",
		"-10000000000000000000000000000000000000000",
		"-1267650600228229401496703205376", "-9223372036854775809", "-65536", "-257",
		"-256", "-255", "-129", "-128", "-127", "-2", "-1", "0", "1", "126", "127", "128",
		"255", "256", "32767", "32768", "65535", "9223372036854775808",
		"1267650600228229401496703205376",
	};
	uint8_t		enc[sizeof(asc) / sizeof(asc[0])][32];
	size_t		len[sizeof(asc) / sizeof(asc[0])];
	size_t		n = sizeof(asc) / sizeof(asc[0]);

	(void) state;
	for (size_t i = 0; i < n; i++)
	{
		cf_buf		b = CF_BUF_INIT;

		assert_null(cf_type_from_string(CF_TYPE_INTEGER, asc[i], &b));
		assert_true(b.len <= sizeof(enc[i]));
		memcpy(enc[i], b.data, b.len);
		len[i] = b.len;
		cf_buf_free(&b);
	}
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < n; j++)
			if (sign(cf_type_compare(CF_TYPE_INTEGER, cf_slice_of(enc[i], len[i]),
									 cf_slice_of(enc[j], len[j]))) != (i > j) - (i < j))
				fail_msg("compare(%s, %s) wrong", asc[i], asc[j]);
}

static void
long_text(void **state)
{
	(void) state;
	assert_string_equal(from_string_hex(CF_TYPE_LONG, "0"), "0000000000000000");
	assert_string_equal(from_string_hex(CF_TYPE_LONG, "-1"), "ffffffffffffffff");
	assert_string_equal(from_string_hex(CF_TYPE_LONG, "+256"), "0000000000000100");
	assert_string_equal(from_string_hex(CF_TYPE_LONG, "9223372036854775807"), "7fffffffffffffff");
	assert_string_equal(from_string_hex(CF_TYPE_LONG, "-9223372036854775808"), "8000000000000000");
	assert_string_equal(to_string_of_hex(CF_TYPE_LONG, "8000000000000000"), "-9223372036854775808");
	assert_string_equal(to_string_of_hex(CF_TYPE_LONG, "7fffffffffffffff"), "9223372036854775807");
	assert_string_equal(to_string_of_hex(CF_TYPE_LONG, "ffffffffffffffff"), "-1");
	assert_string_equal(to_string_of_hex(CF_TYPE_LONG, "010203"), "010203");	/* invalid: hex */

	assert_from_string_fails(CF_TYPE_LONG, "9223372036854775808", "LongType", "out of range");
	assert_from_string_fails(CF_TYPE_LONG, "-9223372036854775809", "LongType", "out of range");
	assert_from_string_fails(CF_TYPE_LONG, "99999999999999999999999", "LongType", "out of range");
	assert_from_string_fails(CF_TYPE_LONG, "12a", "LongType", "decimal");
	assert_from_string_fails(CF_TYPE_LONG, "-", "LongType", NULL);
	assert_from_string_fails(CF_TYPE_LONG, " 1", "LongType", NULL);
	assert_from_string_fails(CF_TYPE_LONG, "1.0", "LongType", NULL);
	assert_from_string_fails(CF_TYPE_LONG, "0x10", "LongType", NULL);
	assert_from_string_fails(CF_TYPE_INTEGER, "--1", "IntegerType", "decimal");
	assert_from_string_fails(CF_TYPE_INTEGER, "1e5", "IntegerType", NULL);
	assert_from_string_fails(CF_TYPE_INTEGER, "+", "IntegerType", NULL);
}

static void
bytes_and_text_text(void **state)
{
	(void) state;
	assert_string_equal(from_string_hex(CF_TYPE_BYTES, "DEADbeef00"), "deadbeef00");
	assert_string_equal(to_string_of_hex(CF_TYPE_BYTES, "deadbeef00"), "deadbeef00");
	assert_from_string_fails(CF_TYPE_BYTES, "abc", "BytesType", "even");
	assert_from_string_fails(CF_TYPE_BYTES, "zz", "BytesType", "hex");

	assert_string_equal(from_string_hex(CF_TYPE_ASCII, "Ab~"), "41627e");
	assert_string_equal(to_string_of_hex(CF_TYPE_ASCII, "41627e"), "Ab~");
	assert_from_string_fails(CF_TYPE_ASCII, "h\xc3\xa9", "AsciiType", NULL);
	assert_string_equal(to_string_of_hex(CF_TYPE_ASCII, "41c3a9"), "41c3a9");	/* invalid: hex */

	assert_string_equal(from_string_hex(CF_TYPE_UTF8, "h\xc3\xa9"), "68c3a9");
	assert_string_equal(to_string_of_hex(CF_TYPE_UTF8, "68c3a9"), "h\xc3\xa9");
	assert_from_string_fails(CF_TYPE_UTF8, "a\xed\xa0\x80", "UTF8Type", "byte 1");
	assert_string_equal(to_string_of_hex(CF_TYPE_UTF8, "61ff"), "61ff");
}

static void
uuid_text(void **state)
{
	(void) state;
	assert_string_equal(from_string_hex(CF_TYPE_LEXICAL_UUID,
										"550E8400-E29B-41D4-A716-446655440000"),
						"550e8400e29b41d4a716446655440000");
	assert_string_equal(to_string_of_hex(CF_TYPE_LEXICAL_UUID,
										 "550e8400e29b41d4a716446655440000"),
						"550e8400-e29b-41d4-a716-446655440000");
	assert_string_equal(from_string_hex(CF_TYPE_TIME_UUID,
										"71A89680-4d40-11e0-9234-010203040506"),
						"71a896804d4011e09234010203040506");
	assert_string_equal(to_string_of_hex(CF_TYPE_TIME_UUID,
										 "71a896804d4011e09234010203040506"),
						"71a89680-4d40-11e0-9234-010203040506");
	/* a v4 is no TimeUUIDType: parse error, and written as hex */
	assert_from_string_fails(CF_TYPE_TIME_UUID, "550e8400-e29b-41d4-a716-446655440000",
							 "TimeUUIDType", "version 4");
	assert_string_equal(to_string_of_hex(CF_TYPE_TIME_UUID,
										 "550e8400e29b41d4a716446655440000"),
						"550e8400e29b41d4a716446655440000");
	assert_from_string_fails(CF_TYPE_LEXICAL_UUID, "550e8400e29b41d4a716446655440000",
							 "LexicalUUIDType", "8-4-4-4-12");
	assert_from_string_fails(CF_TYPE_TIME_UUID, "now", "TimeUUIDType", "8-4-4-4-12");
}

static void
empty_text_is_the_empty_value(void **state)
{
	(void) state;
	for (int t = 0; t < CF_TYPE_COUNT_; t++)
	{
		assert_string_equal(from_string_hex((cf_type) t, ""), "");
		assert_string_equal(to_string_of_hex((cf_type) t, ""), "");
	}
	assert_from_string_fails((cf_type) 77, "1", "unknown type", NULL);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(parse_short_and_qualified_names),
		cmocka_unit_test(parse_unknown_lists_valid_names),
		cmocka_unit_test(empty_sorts_first_in_every_type),
		cmocka_unit_test(bytes_ascii_utf8_order_is_unsigned_bytes),
		cmocka_unit_test(long_order_is_signed),
		cmocka_unit_test(integer_order_is_numeric),
		cmocka_unit_test(integer_order_matches_int64),
		cmocka_unit_test(lexical_uuid_order_is_java_signed),
		cmocka_unit_test(time_uuid_order_is_by_time_not_bytes),
		cmocka_unit_test(time_uuid_equal_times_break_ties_on_signed_bytes),
		cmocka_unit_test(invalid_input_compares_as_bytes),
		cmocka_unit_test(validate_lengths),
		cmocka_unit_test(validate_time_uuid_version),
		cmocka_unit_test(validate_ascii),
		cmocka_unit_test(validate_utf8),
		cmocka_unit_test(integer_text_round_trips),
		cmocka_unit_test(integer_text_long_values),
		cmocka_unit_test(integer_order_matches_text_order),
		cmocka_unit_test(long_text),
		cmocka_unit_test(bytes_and_text_text),
		cmocka_unit_test(uuid_text),
		cmocka_unit_test(empty_text_is_the_empty_value),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
