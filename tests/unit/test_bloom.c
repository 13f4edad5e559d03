/*
 * tests/unit/test_bloom.c — storage/bloom: no false negatives, the false-positive rate
 * against theory (blocked layout vs a standard reference), sizing and clamping,
 * serialize/open round trip, rejection of every corruption and truncation, allocation
 * failure, concurrent readers.
 */
#include "support/cmocka_prelude.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <xxhash.h>

#include "storage/bloom.h"

#define NKEYS 100000

/* The i-th key of a family ("row" for present keys, "absent" for the others). */
static cf_slice
key_of(char *buf, size_t size, const char *family, uint32_t i)
{
	int			n = snprintf(buf, size, "%s:%08x", family, i);

	return cf_slice_of(buf, (size_t) n);
}

/* A filter holding keys row:0 .. row:n-1. */
static cf_bloom *
build_rows(uint32_t n, unsigned bits_per_key)
{
	cf_bloom   *f;
	char		kb[32];

	assert_null(cf_bloom_new(n, bits_per_key, &f));
	for (uint32_t i = 0; i < n; i++)
		cf_bloom_add(f, key_of(kb, sizeof(kb), "row", i));
	return f;
}

static uint32_t
count_false_positives(const cf_bloom *f, uint32_t nabsent)
{
	char		kb[32];
	uint32_t	fp = 0;

	for (uint32_t i = 0; i < nabsent; i++)
		fp += cf_bloom_may_contain(f, key_of(kb, sizeof(kb), "absent", i));
	return fp;
}

/* Serializes f into a fresh buffer the caller frees with cf_buf_free. */
static cf_buf
serialize(const cf_bloom *f)
{
	cf_buf		b = CF_BUF_INIT;

	assert_null(cf_bloom_serialize(f, &b));
	assert_int_equal(b.len, cf_bloom_serialized_size(f));
	return b;
}

/*
 * The standard (unblocked) layout, for comparison only: same hash, probes
 * (lo + i * hi) mod m over the whole array. Returns its false-positive rate.
 */
static double
standard_layout_fp_rate(uint32_t n, uint64_t m, unsigned k, uint32_t nabsent)
{
	uint8_t    *bits = calloc(m / 8 + 1, 1);
	char		kb[32];
	uint32_t	fp = 0;

	assert_non_null(bits);
	for (uint32_t i = 0; i < n + nabsent; i++)
	{
		cf_slice	key = i < n ? key_of(kb, sizeof(kb), "row", i) :
			key_of(kb, sizeof(kb), "absent", i - n);
		XXH128_hash_t h = XXH3_128bits(key.p, key.len);
		bool		all = true;

		for (unsigned j = 0; j < k; j++)
		{
			uint64_t	bit = (h.low64 + j * h.high64) % m;

			if (i < n)
				bits[bit / 8] |= (uint8_t) (1u << (bit % 8));
			else
				all = all && (bits[bit / 8] & (1u << (bit % 8)));
		}
		fp += i >= n && all;
	}
	free(bits);
	return (double) fp / nabsent;
}

/*
 * The expected rate of a blocked filter with independent random probes: each block
 * holds a Poisson number x of keys (mean n * block / m) and then answers "maybe" with
 * probability about (1 - (1 - 1/block)^(k x))^k.
 */
static double
blocked_layout_theory(uint32_t n, uint64_t m, unsigned k)
{
	double		block = m < CF_BLOOM_BLOCK_BITS ? (double) m : CF_BLOOM_BLOCK_BITS;
	double		lambda = n * block / (double) m;
	double		p = exp(-lambda);
	double		sum = 0;

	for (unsigned x = 0; x < 20 * lambda + 100; x++)
	{
		if (x > 0)
			p *= lambda / x;
		sum += p * pow(1.0 - pow(1.0 - 1.0 / block, (double) k * x), k);
	}
	return sum;
}

/* ---- membership ---- */

static void
no_false_negatives(void **state)
{
	cf_bloom   *f = build_rows(NKEYS, 0);
	char		kb[32];

	(void) state;
	for (uint32_t i = 0; i < NKEYS; i++)
		assert_true(cf_bloom_may_contain(f, key_of(kb, sizeof(kb), "row", i)));
	cf_bloom_free(f);
}

static void
false_positive_rate_near_theory(void **state)
{
	cf_bloom   *f = build_rows(NKEYS, CF_BLOOM_DEFAULT_BITS_PER_KEY);
	uint64_t	m = cf_bloom_bits(f);
	unsigned	k = cf_bloom_k(f);
	double		theory = pow(1.0 - exp(-(double) k * NKEYS / (double) m), k);
	double		blocked = (double) count_false_positives(f, NKEYS) / NKEYS;
	double		standard = standard_layout_fp_rate(NKEYS, m, k, NKEYS);
	double		blocked_theory = blocked_layout_theory(NKEYS, m, k);

	(void) state;
	print_message("bloom: %u keys, %u absent, %llu bits, k=%u: theory %.4f%% "
				  "(blocked %.4f%%); measured blocked (kept) %.4f%% (%.2fx), "
				  "standard %.4f%% (%.2fx)\n",
				  NKEYS, NKEYS, (unsigned long long) m, k, 100 * theory,
				  100 * blocked_theory, 100 * blocked, blocked / theory,
				  100 * standard, standard / theory);
	assert_int_equal(k, 7);
	assert_true(blocked <= 1.5 * theory);
	assert_true(blocked >= theory / 1.5);	/* not secretly spending more bits */
	assert_true(standard <= 1.5 * theory);	/* the reference itself is sound */
	/* the probe sequence is as good as random probes inside a block */
	assert_true(blocked <= 1.1 * blocked_theory);
	cf_bloom_free(f);
}

static void
empty_filter_contains_nothing(void **state)
{
	cf_bloom   *f;
	cf_bloom   *g;
	cf_buf		b;
	char		kb[32];

	(void) state;
	assert_null(cf_bloom_new(0, 0, &f));
	assert_int_equal(cf_bloom_bits(f), CF_BLOOM_MIN_BITS);
	assert_int_equal(cf_bloom_serialized_size(f), 8 + CF_BLOOM_HEADER_SIZE + CF_BLOOM_TRAILER_SIZE);
	assert_int_equal(count_false_positives(f, 1000), 0);
	assert_false(cf_bloom_may_contain(f, cf_slice_of(NULL, 0)));

	b = serialize(f);
	assert_null(cf_bloom_open(cf_slice_of(b.data, b.len), &g));
	assert_int_equal(count_false_positives(g, 1000), 0);
	cf_bloom_free(g);
	cf_buf_free(&b);

	/* the empty key is a key like any other */
	cf_bloom_add(f, cf_slice_of(NULL, 0));
	assert_true(cf_bloom_may_contain(f, cf_slice_of("", 0)));
	assert_false(cf_bloom_may_contain(f, key_of(kb, sizeof(kb), "row", 0)) &&
				 cf_bloom_may_contain(f, key_of(kb, sizeof(kb), "row", 1)) &&
				 cf_bloom_may_contain(f, key_of(kb, sizeof(kb), "row", 2)));
	cf_bloom_free(f);
}

/* ---- sizing ---- */

static void
sizes_round_to_the_format(void **state)
{
	static const struct
	{
		uint64_t	keys;
		unsigned	bits_per_key;
		uint64_t	bits;
		unsigned	k;
	}			cases[] = {
		{0, 10, 64, 7},
		{5, 10, 64, 7},			/* 50 → 64 */
		{7, 10, 128, 7},		/* 70 → 128 */
		{20, 10, 256, 7},
		{30, 10, 512, 7},		/* 300 → 512: one block */
		{52, 10, 1024, 7},		/* 520 → two blocks */
		{1000, 10, 10240, 7},
		{1000, 1, 1024, 1},		/* k = round(0.69) */
		{1000, 2, 2048, 1},		/* k = round(1.39) */
		{1000, 3, 3072, 2},
		{1000, 16, 16384, 11},
		{10, 100, 1024, 30},	/* k clamped */
		{10, 0, 128, 7},		/* 0 bits per key: the default */
	};

	(void) state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
	{
		cf_bloom   *f;

		assert_null(cf_bloom_new(cases[i].keys, cases[i].bits_per_key, &f));
		assert_int_equal(cf_bloom_bits(f), cases[i].bits);
		assert_int_equal(cf_bloom_k(f), cases[i].k);
		cf_bloom_free(f);
	}
}

static size_t failing_alloc_asked;

static void *
failing_alloc(size_t n)
{
	failing_alloc_asked = n;
	return NULL;
}

static void
huge_sizes_clamp_and_fail_cleanly(void **state)
{
	static const struct
	{
		uint64_t	keys;
		unsigned	bits_per_key;
	}			cases[] = {
		{UINT64_MAX, 10},		/* keys * bits overflows */
		{(uint64_t) 1 << 40, 10},
		{(uint64_t) 1 << 29, 9},	/* just past the cap */
		{2, UINT32_MAX},
	};

	(void) state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
	{
		cf_bloom   *f = (cf_bloom *) &failing_alloc_asked;	/* must be reset */
		cf_status  *s;

		failing_alloc_asked = 0;
		s = cf_bloom_new_alloc(cases[i].keys, cases[i].bits_per_key, failing_alloc, &f);
		assert_int_equal(cf_status_code(s), CF_ERR_NO_MEMORY);
		assert_null(f);
		assert_int_equal(failing_alloc_asked, CF_BLOOM_MAX_BITS / 8);	/* 512 MiB */
		assert_non_null(strstr(cf_status_msg(s), "536870912 bytes"));
		cf_status_free(s);
	}
}

/* ---- serialization ---- */

static void
round_trip_answers_identically(void **state)
{
	cf_bloom   *f = build_rows(NKEYS, 0);
	cf_bloom   *g;
	cf_buf		b = serialize(f);
	cf_buf		again;
	char		kb[32];
	char		ab[32];
	uint32_t	fp = 0;

	(void) state;
	assert_int_equal(b.data[0], CF_BLOOM_VERSION);
	assert_null(cf_bloom_open(cf_slice_of(b.data, b.len), &g));
	assert_int_equal(cf_bloom_bits(g), cf_bloom_bits(f));
	assert_int_equal(cf_bloom_k(g), cf_bloom_k(f));
	for (uint32_t i = 0; i < NKEYS; i++)
	{
		cf_slice	absent = key_of(ab, sizeof(ab), "absent", i);
		bool		answer = cf_bloom_may_contain(f, absent);

		assert_true(cf_bloom_may_contain(g, key_of(kb, sizeof(kb), "row", i)));
		assert_true(cf_bloom_may_contain(g, absent) == answer);
		fp += answer;
	}
	assert_true(fp > 0);		/* the comparison covered both answers */

	again = serialize(g);		/* an opened filter serializes to the same bytes */
	assert_int_equal(again.len, b.len);
	assert_memory_equal(again.data, b.data, b.len);
	cf_buf_free(&again);
	cf_bloom_free(g);
	cf_bloom_free(f);
	cf_buf_free(&b);
}

static void
open_needs_no_alignment(void **state)
{
	cf_bloom   *f = build_rows(1000, 0);
	cf_buf		b = serialize(f);
	uint8_t    *shifted = malloc(b.len + 1);
	cf_bloom   *g;
	char		kb[32];

	(void) state;
	assert_non_null(shifted);
	memcpy(shifted + 1, b.data, b.len);
	assert_null(cf_bloom_open(cf_slice_of(shifted + 1, b.len), &g));
	for (uint32_t i = 0; i < 1000; i++)
		assert_true(cf_bloom_may_contain(g, key_of(kb, sizeof(kb), "row", i)));
	cf_bloom_free(g);
	free(shifted);
	cf_bloom_free(f);
	cf_buf_free(&b);
}

static void
serialize_reports_a_failed_buffer(void **state)
{
	cf_bloom   *f = build_rows(10, 0);
	cf_buf		b;
	cf_status  *s;

	(void) state;
	cf_buf_init(&b, 10);
	s = cf_bloom_serialize(f, &b);
	assert_int_equal(cf_status_code(s), CF_ERR_TOO_LARGE);
	assert_non_null(strstr(cf_status_msg(s), "serializing a bloom filter"));
	assert_int_equal(b.len, 0);
	cf_status_free(s);
	cf_buf_free(&b);
	cf_bloom_free(f);
}

/* ---- corruption ---- */

/* Asserts open rejects bytes as corrupt; returns the message (caller frees s). */
static cf_status *
expect_corrupt(const uint8_t *p, size_t len)
{
	cf_bloom   *g = (cf_bloom *) p;	/* must be reset to NULL */
	cf_status  *s = cf_bloom_open(cf_slice_of(p, len), &g);

	assert_int_equal(cf_status_code(s), CF_ERR_CORRUPTION);
	assert_null(g);
	return s;
}

static void
expect_corrupt_msg(const uint8_t *p, size_t len, const char *want)
{
	cf_status  *s = expect_corrupt(p, len);

	if (strstr(cf_status_msg(s), want) == NULL)
		fail_msg("message \"%s\" lacks \"%s\"", cf_status_msg(s), want);
	cf_status_free(s);
}

/* Every value of every byte other than the right one is rejected. */
static void
check_every_byte_corruption(uint32_t nkeys)
{
	cf_bloom   *f = build_rows(nkeys, 0);
	cf_buf		b = serialize(f);
	size_t		bits_end = b.len - CF_BLOOM_TRAILER_SIZE;

	for (size_t pos = 0; pos < b.len; pos++)
	{
		uint8_t		orig = b.data[pos];

		for (unsigned delta = 1; delta < 256; delta++)
		{
			cf_status  *s;

			b.data[pos] = (uint8_t) (orig ^ delta);
			s = expect_corrupt(b.data, b.len);
			if (pos >= CF_BLOOM_HEADER_SIZE && pos < bits_end)
				assert_non_null(strstr(cf_status_msg(s), "checksum mismatch"));
			cf_status_free(s);
		}
		b.data[pos] = orig;
	}
	cf_bloom_free(f);
	cf_buf_free(&b);
}

static void
every_single_byte_corruption_is_rejected(void **state)
{
	(void) state;
	check_every_byte_corruption(0);		/* 64 bits */
	check_every_byte_corruption(100);	/* 1024 bits: two blocks */
}

static void
every_truncation_is_rejected(void **state)
{
	cf_bloom   *f = build_rows(100, 0);
	cf_buf		b = serialize(f);

	(void) state;
	for (size_t len = 0; len < b.len; len++)
		cf_status_free(expect_corrupt(b.data, len));
	cf_status_free(expect_corrupt(NULL, 0));
	cf_buf_put_u8(&b, 0);		/* and a trailing byte */
	expect_corrupt_msg(b.data, b.len, "bits need");
	cf_bloom_free(f);
	cf_buf_free(&b);
}

/* Each header check names its field, whether or not the checksum matches. */
static void
header_errors_name_the_field(void **state)
{
	cf_bloom   *f = build_rows(100, 0);
	cf_buf		b = serialize(f);
	uint8_t    *h = b.data;

	(void) state;
	h[0] = 2;
	expect_corrupt_msg(h, b.len, "unsupported version 2 (this build reads 1)");
	h[0] = CF_BLOOM_VERSION;

	h[1] = 0;
	expect_corrupt_msg(h, b.len, "0 hash functions, expected 1 to 30");
	h[1] = 31;
	expect_corrupt_msg(h, b.len, "31 hash functions");
	h[1] = 7;

	cf_store_be64(h + 2, 1000);
	expect_corrupt_msg(h, b.len, "1000 bits is not a valid size");
	cf_store_be64(h + 2, 96);
	expect_corrupt_msg(h, b.len, "96 bits is not a valid size");
	cf_store_be64(h + 2, CF_BLOOM_MAX_BITS + CF_BLOOM_BLOCK_BITS);
	expect_corrupt_msg(h, b.len, "4294967808 bits is not a valid size");
	cf_store_be64(h + 2, UINT64_MAX);
	expect_corrupt_msg(h, b.len, "not a valid size");
	cf_store_be64(h + 2, 2048);
	expect_corrupt_msg(h, b.len, "142 bytes, but 2048 bits need 270");
	cf_store_be64(h + 2, 1024);

	h[40] ^= 1;
	expect_corrupt_msg(h, b.len, "checksum mismatch");
	h[40] ^= 1;
	expect_corrupt_msg(h, 4, "4 bytes is shorter than the smallest filter (22)");

	cf_bloom_free(f);
	cf_buf_free(&b);
}

/* ---- threads ---- */

typedef struct reader_arg
{
	const cf_bloom *f;
	uint32_t	fp;
	bool		all_present;
} reader_arg;

static void *
reader(void *p)
{
	reader_arg *a = p;
	char		kb[32];

	a->all_present = true;
	for (uint32_t i = 0; i < 10000; i++)
		a->all_present &= cf_bloom_may_contain(a->f, key_of(kb, sizeof(kb), "row", i));
	a->fp = count_false_positives(a->f, 10000);
	return NULL;
}

static void
concurrent_readers_agree(void **state)
{
	cf_bloom   *f = build_rows(10000, 0);
	uint32_t	want = count_false_positives(f, 10000);
	pthread_t	t[4];
	reader_arg	args[4];

	(void) state;
	for (int i = 0; i < 4; i++)
	{
		args[i].f = f;
		assert_int_equal(pthread_create(&t[i], NULL, reader, &args[i]), 0);
	}
	for (int i = 0; i < 4; i++)
	{
		assert_int_equal(pthread_join(t[i], NULL), 0);
		assert_true(args[i].all_present);
		assert_int_equal(args[i].fp, want);
	}
	cf_bloom_free(f);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(no_false_negatives),
		cmocka_unit_test(false_positive_rate_near_theory),
		cmocka_unit_test(empty_filter_contains_nothing),
		cmocka_unit_test(sizes_round_to_the_format),
		cmocka_unit_test(huge_sizes_clamp_and_fail_cleanly),
		cmocka_unit_test(round_trip_answers_identically),
		cmocka_unit_test(open_needs_no_alignment),
		cmocka_unit_test(serialize_reports_a_failed_buffer),
		cmocka_unit_test(every_single_byte_corruption_is_rejected),
		cmocka_unit_test(every_truncation_is_rejected),
		cmocka_unit_test(header_errors_name_the_field),
		cmocka_unit_test(concurrent_readers_agree),
	};

	return cmocka_run_group_tests_name("storage/bloom", tests, NULL, NULL);
}
