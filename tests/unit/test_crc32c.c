/* tests/unit/test_crc32c.c — util/crc32c: known vectors, hardware = software, extend, mask. */
#include "support/cmocka_prelude.h"

#include <stdlib.h>
#include <string.h>

#include "util/crc32c.h"

/* RFC 3720 (iSCSI) appendix B.4 and the classic check value. */
static void
known_vectors(void **state)
{
	uint8_t		buf[32];

	(void) state;
	assert_int_equal(cf_crc32c("123456789", 9), 0xe3069283u);
	assert_int_equal(cf_crc32c("", 0), 0);

	memset(buf, 0, sizeof(buf));
	assert_int_equal(cf_crc32c(buf, 32), 0x8a9136aau);
	memset(buf, 0xff, sizeof(buf));
	assert_int_equal(cf_crc32c(buf, 32), 0x62a8ab43u);
	for (int i = 0; i < 32; i++)
		buf[i] = (uint8_t) i;
	assert_int_equal(cf_crc32c(buf, 32), 0x46dd794eu);
	for (int i = 0; i < 32; i++)
		buf[i] = (uint8_t) (31 - i);
	assert_int_equal(cf_crc32c(buf, 32), 0x113fdb5cu);
}

/* Every length and alignment up to a few words, both implementations agree. */
static void
hardware_matches_software(void **state)
{
	uint8_t		buf[300];
	unsigned	seed = 12345;

	(void) state;
	for (size_t i = 0; i < sizeof(buf); i++)
	{
		seed = seed * 1103515245u + 12345u;
		buf[i] = (uint8_t) (seed >> 16);
	}
	for (size_t off = 0; off < 16; off++)
		for (size_t n = 0; n + off <= sizeof(buf); n += 7)
			assert_int_equal(cf_crc32c(buf + off, n), cf_crc32c_extend_sw(0, buf + off, n));
}

/*
 * Long inputs (the hardware path's three-lane stripes, with every remainder and
 * alignment around their bounds) agree with the software path, whole and extended.
 */
static void
long_inputs_match_software(void **state)
{
	static uint8_t buf[5000];
	unsigned	seed = 777;
	const size_t lens[] = {383, 384, 385, 767, 768, 769, 775, 1535, 1536, 1537, 2300, 2304, 4096, 4999};

	(void) state;
	for (size_t i = 0; i < sizeof(buf); i++)
	{
		seed = seed * 1103515245u + 12345u;
		buf[i] = (uint8_t) (seed >> 16);
	}
	for (size_t off = 0; off < 9; off++)
		for (size_t k = 0; k < sizeof(lens) / sizeof(lens[0]); k++)
		{
			size_t		n = lens[k] - (lens[k] + off > sizeof(buf) ? off : 0);
			uint32_t	want = cf_crc32c_extend_sw(0, buf + off, n);

			assert_int_equal(cf_crc32c(buf + off, n), want);
			assert_int_equal(cf_crc32c_extend(cf_crc32c(buf + off, n / 3), buf + off + n / 3,
											  n - n / 3), want);
		}
	/* and a flipped bit anywhere changes it */
	for (size_t i = 0; i < 4096; i += 97)
	{
		uint32_t	before = cf_crc32c(buf, 4096);

		buf[i] ^= 0x10;
		assert_int_not_equal(cf_crc32c(buf, 4096), before);
		buf[i] ^= 0x10;
	}
}

static void
extend_equals_whole(void **state)
{
	const char *s = "the quick brown fox jumps over the lazy dog, again and again";
	size_t		n = strlen(s);

	(void) state;
	for (size_t cut = 0; cut <= n; cut++)
	{
		uint32_t	a = cf_crc32c(s, cut);

		assert_int_equal(cf_crc32c_extend(a, s + cut, n - cut), cf_crc32c(s, n));
		assert_int_equal(cf_crc32c_extend_sw(a, s + cut, n - cut), cf_crc32c(s, n));
	}
}

static void
mask_round_trips_and_differs(void **state)
{
	static const uint32_t values[] = {0, 1, 0xe3069283u, 0xffffffffu, 0x80000000u};

	(void) state;
	for (size_t i = 0; i < sizeof(values) / sizeof(values[0]); i++)
	{
		assert_int_equal(cf_crc32c_unmask(cf_crc32c_mask(values[i])), values[i]);
		assert_int_not_equal(cf_crc32c_mask(values[i]), values[i]);
	}
}

static void
detects_single_bit_flips(void **state)
{
	uint8_t		buf[64];
	uint32_t	good;

	(void) state;
	for (size_t i = 0; i < sizeof(buf); i++)
		buf[i] = (uint8_t) (i * 31);
	good = cf_crc32c(buf, sizeof(buf));
	for (size_t bit = 0; bit < sizeof(buf) * 8; bit++)
	{
		buf[bit / 8] ^= (uint8_t) (1u << (bit % 8));
		assert_int_not_equal(cf_crc32c(buf, sizeof(buf)), good);
		buf[bit / 8] ^= (uint8_t) (1u << (bit % 8));
	}
}

static void
names_an_implementation(void **state)
{
	const char *impl = cf_crc32c_impl();

	(void) state;
	assert_true(strcmp(impl, "sse4.2") == 0 || strcmp(impl, "slice-by-8") == 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(known_vectors),
		cmocka_unit_test(hardware_matches_software),
		cmocka_unit_test(long_inputs_match_software),
		cmocka_unit_test(extend_equals_whole),
		cmocka_unit_test(mask_round_trips_and_differs),
		cmocka_unit_test(detects_single_bit_flips),
		cmocka_unit_test(names_an_implementation),
	};

	return cmocka_run_group_tests_name("util/crc32c", tests, NULL, NULL);
}
