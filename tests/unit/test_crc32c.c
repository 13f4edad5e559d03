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
		cmocka_unit_test(extend_equals_whole),
		cmocka_unit_test(mask_round_trips_and_differs),
		cmocka_unit_test(detects_single_bit_flips),
		cmocka_unit_test(names_an_implementation),
	};

	return cmocka_run_group_tests_name("util/crc32c", tests, NULL, NULL);
}
