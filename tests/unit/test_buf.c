/* tests/unit/test_buf.c — util/buf: writer growth and limits, reader bounds, varints. */
#include "support/cmocka_prelude.h"

#include <stdlib.h>
#include <string.h>

#include "util/buf.h"

static void
integers_are_big_endian(void **state)
{
	cf_buf		b = CF_BUF_INIT;
	static const uint8_t want[] = {
		0x7f,
		0x12, 0x34,
		0xde, 0xad, 0xbe, 0xef,
		0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08,
	};

	(void) state;
	cf_buf_put_u8(&b, 0x7f);
	cf_buf_put_u16(&b, 0x1234);
	cf_buf_put_u32(&b, 0xdeadbeefu);
	cf_buf_put_u64(&b, 0x0102030405060708ull);
	assert_true(cf_buf_ok(&b));
	assert_int_equal(b.len, sizeof(want));
	assert_memory_equal(b.data, want, sizeof(want));
	cf_buf_free(&b);
}

static void
round_trip_through_reader(void **state)
{
	cf_buf		b = CF_BUF_INIT;
	cf_rd		r;

	(void) state;
	cf_buf_put_u8(&b, 200);
	cf_buf_put_u16(&b, 65000);
	cf_buf_put_u32(&b, 4000000000u);
	cf_buf_put_u64(&b, UINT64_MAX - 1);
	cf_buf_put(&b, "tail", 4);

	cf_rd_init(&r, b.data, b.len);
	assert_int_equal(cf_rd_u8(&r), 200);
	assert_int_equal(cf_rd_u16(&r), 65000);
	assert_int_equal(cf_rd_u32(&r), 4000000000u);
	assert_true(cf_rd_u64(&r) == UINT64_MAX - 1);
	assert_memory_equal(cf_rd_bytes(&r, 4), "tail", 4);
	assert_int_equal(cf_rd_left(&r), 0);
	assert_true(cf_rd_ok(&r));
	assert_null(cf_rd_status(&r, "frame"));
	cf_buf_free(&b);
}

static void
grows_across_many_appends(void **state)
{
	cf_buf		b = CF_BUF_INIT;

	(void) state;
	for (uint32_t i = 0; i < 100000; i++)
		cf_buf_put_u32(&b, i);
	assert_true(cf_buf_ok(&b));
	assert_int_equal(b.len, 400000);
	assert_true(b.cap >= b.len);
	for (uint32_t i = 0; i < 100000; i += 997)
		assert_int_equal(cf_load_be32(b.data + 4 * i), i);
	cf_buf_free(&b);
	assert_null(b.data);
	assert_int_equal(b.len, 0);
}

static void
limit_fails_sticky_with_status(void **state)
{
	cf_buf		b;
	cf_status  *s;

	(void) state;
	cf_buf_init(&b, 10);
	cf_buf_put(&b, "0123456789", 10);
	assert_true(cf_buf_ok(&b));
	assert_true(b.cap <= 10);	/* never allocates past the limit */
	cf_buf_put_u8(&b, 'x');
	assert_false(cf_buf_ok(&b));
	assert_int_equal(b.len, 10);	/* the failed append wrote nothing */
	cf_buf_reset(&b);
	cf_buf_put_u8(&b, 'y');		/* reset clears the failure */
	assert_true(cf_buf_ok(&b));
	cf_buf_put(&b, "0123456789", 10);
	cf_buf_put_u8(&b, 'z');		/* a later append after a failure is a no-op */
	assert_false(cf_buf_ok(&b));
	assert_int_equal(b.len, 1);

	s = cf_buf_status(&b);
	assert_int_equal(cf_status_code(s), CF_ERR_TOO_LARGE);
	assert_non_null(strstr(cf_status_msg(s), "10 bytes"));
	cf_status_free(s);
	cf_buf_free(&b);
}

static void
detach_hands_over_memory(void **state)
{
	cf_buf		b = CF_BUF_INIT;
	size_t		len;
	uint8_t    *p;

	(void) state;
	cf_buf_put(&b, "abc", 3);
	p = cf_buf_detach(&b, &len);
	assert_int_equal(len, 3);
	assert_memory_equal(p, "abc", 3);
	assert_null(b.data);
	assert_int_equal(b.len, 0);
	free(p);
}

static void
patch_overwrites_inside_only(void **state)
{
	cf_buf		b = CF_BUF_INIT;

	(void) state;
	cf_buf_put_u32(&b, 0);
	cf_buf_put(&b, "body", 4);
	cf_buf_patch_u32(&b, 0, 4);
	cf_buf_patch_u32(&b, 6, 0xffffffffu);	/* would run past the end: ignored */
	assert_int_equal(cf_load_be32(b.data), 4);
	assert_memory_equal(b.data + 4, "body", 4);
	cf_buf_free(&b);
}

static void
reader_refuses_to_run_past_end(void **state)
{
	static const uint8_t data[] = {0, 0, 0, 5, 'a', 'b'};
	cf_rd		r;
	uint32_t	claimed;
	cf_status  *s;

	(void) state;
	cf_rd_init(&r, data, sizeof(data));
	claimed = cf_rd_u32(&r);	/* a length field that lies */
	assert_int_equal(claimed, 5);
	assert_null(cf_rd_bytes(&r, claimed));
	assert_false(cf_rd_ok(&r));
	assert_int_equal(cf_rd_left(&r), 0);
	assert_int_equal(cf_rd_u8(&r), 0);	/* sticky: later reads yield zero */

	s = cf_rd_status(&r, "frame");
	assert_int_equal(cf_status_code(s), CF_ERR_CORRUPTION);
	assert_non_null(strstr(cf_status_msg(s), "frame: truncated"));
	cf_status_free(s);

	/* a huge claimed length must not wrap the bounds check */
	cf_rd_init(&r, data, sizeof(data));
	cf_rd_skip(&r, 2);
	assert_null(cf_rd_bytes(&r, SIZE_MAX));
	assert_false(cf_rd_ok(&r));
}

static void
varints_round_trip(void **state)
{
	static const uint64_t values[] = {
		0, 1, 127, 128, 255, 300, 16383, 16384, UINT32_MAX, (uint64_t) 1 << 63, UINT64_MAX,
	};
	static const size_t sizes[] = {1, 1, 1, 2, 2, 2, 2, 3, 5, 10, 10};
	cf_buf		b = CF_BUF_INIT;
	cf_rd		r;

	(void) state;
	for (size_t i = 0; i < sizeof(values) / sizeof(values[0]); i++)
	{
		size_t		before = b.len;

		cf_buf_put_varint(&b, values[i]);
		assert_int_equal(b.len - before, sizes[i]);
	}
	cf_rd_init(&r, b.data, b.len);
	for (size_t i = 0; i < sizeof(values) / sizeof(values[0]); i++)
		assert_true(cf_rd_varint(&r) == values[i]);
	assert_true(cf_rd_ok(&r));
	assert_int_equal(cf_rd_left(&r), 0);
	cf_buf_free(&b);
}

static void
malformed_varints_fail(void **state)
{
	static const uint8_t truncated[] = {0x80, 0x80};
	static const uint8_t overlong[] = {0x80, 0x00};
	static const uint8_t too_big[] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02};
	static const uint8_t too_long[] = {0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
	0x80, 0x01};
	static const struct
	{
		const uint8_t *p;
		size_t		n;
	}			cases[] = {
		{truncated, sizeof(truncated)}, {overlong, sizeof(overlong)},
		{too_big, sizeof(too_big)}, {too_long, sizeof(too_long)},
	};
	cf_rd		r;

	(void) state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
	{
		cf_rd_init(&r, cases[i].p, cases[i].n);
		assert_true(cf_rd_varint(&r) == 0);
		assert_false(cf_rd_ok(&r));
	}
}

static void
byte_strings_round_trip_and_respect_max(void **state)
{
	cf_buf		b = CF_BUF_INIT;
	cf_rd		r;
	cf_slice	x;

	(void) state;
	cf_buf_put_bytes(&b, cf_slice_of("jsmith", 6));
	cf_buf_put_bytes(&b, cf_slice_of(NULL, 0));
	cf_buf_put_bytes(&b, cf_slice_of("toolong", 7));
	cf_rd_init(&r, b.data, b.len);
	x = cf_rd_slice(&r, 6);
	assert_int_equal(x.len, 6);
	assert_memory_equal(x.p, "jsmith", 6);
	assert_true(x.p >= b.data && x.p < b.data + b.len);	/* zero-copy */
	assert_int_equal(cf_rd_slice(&r, 6).len, 0);
	assert_true(cf_rd_ok(&r));
	x = cf_rd_slice(&r, 6);	/* 7 bytes against a cap of 6 */
	assert_int_equal(x.len, 0);
	assert_false(cf_rd_ok(&r));
	/* a length running past the end */
	cf_rd_init(&r, b.data, 3);
	assert_int_equal(cf_rd_slice(&r, SIZE_MAX).len, 0);
	assert_false(cf_rd_ok(&r));
	cf_buf_free(&b);
}

static void
copy_and_skip(void **state)
{
	static const uint8_t data[] = {1, 2, 3, 4, 5};
	uint8_t		out[3] = {0};
	cf_rd		r;

	(void) state;
	cf_rd_init(&r, data, sizeof(data));
	assert_true(cf_rd_skip(&r, 1));
	assert_true(cf_rd_copy(&r, out, 3));
	assert_memory_equal(out, data + 1, 3);
	assert_false(cf_rd_copy(&r, out, 3));
	assert_false(cf_rd_ok(&r));
}

/* cf_copy_short copies exactly n bytes for every length class, and nothing around them. */
static void
copy_short_copies_exactly_n(void **state)
{
	uint8_t		src[160],
				dst[160 + 32];

	(void) state;
	for (size_t i = 0; i < sizeof(src); i++)
		src[i] = (uint8_t) (i * 7 + 1);
	for (size_t n = 0; n <= 130; n++)
		for (size_t off = 0; off < 3; off++)
		{
			memset(dst, 0xEE, sizeof(dst));
			cf_copy_short(dst + 16, src + off, n);
			assert_memory_equal(dst + 16, src + off, n);
			for (size_t k = 0; k < 16; k++)
				assert_int_equal(dst[k], 0xEE);
			for (size_t k = 16 + n; k < sizeof(dst); k++)
				assert_int_equal(dst[k], 0xEE);
		}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(integers_are_big_endian),
		cmocka_unit_test(round_trip_through_reader),
		cmocka_unit_test(grows_across_many_appends),
		cmocka_unit_test(limit_fails_sticky_with_status),
		cmocka_unit_test(detach_hands_over_memory),
		cmocka_unit_test(patch_overwrites_inside_only),
		cmocka_unit_test(reader_refuses_to_run_past_end),
		cmocka_unit_test(varints_round_trip),
		cmocka_unit_test(malformed_varints_fail),
		cmocka_unit_test(byte_strings_round_trip_and_respect_max),
		cmocka_unit_test(copy_and_skip),
		cmocka_unit_test(copy_short_copies_exactly_n),
	};

	return cmocka_run_group_tests_name("util/buf", tests, NULL, NULL);
}
