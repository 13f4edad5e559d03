/*
 * tests/unit/test_block.c — storage/block: round trips with and without compression,
 * incompressible data stored raw, every single-byte flip and every truncation of a
 * block detected, handle bounds when reading from a file.
 */
#include "support/cmocka_prelude.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "storage/block.h"
#include "support/envtest.h"

/* n bytes of text-like, compressible data. */
static uint8_t *
compressible(size_t n)
{
	uint8_t    *p = malloc(n);

	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t) ("column-family "[i % 14] + (i / 997) % 3);
	return p;
}

/* n bytes of xorshift noise zstd cannot shrink. */
static uint8_t *
noise(size_t n)
{
	uint8_t    *p = malloc(n);
	uint64_t	x = 88172645463325252ull;

	for (size_t i = 0; i < n; i++)
	{
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		p[i] = (uint8_t) x;
	}
	return p;
}

static void
round_trip(const uint8_t *raw, size_t n, int level, uint8_t want_type)
{
	cf_buf		stored = CF_BUF_INIT;
	cf_buf		out = CF_BUF_INIT;
	uint8_t		type = 0xff;

	assert_null(cf_block_seal(raw, n, level, NULL, &stored, &type));
	assert_int_equal(type, want_type);
	assert_int_equal(stored.data[stored.len - CF_BLOCK_TRAILER_SIZE], want_type);
	if (want_type == CF_BLOCK_ZSTD)
		assert_true(stored.len < n + CF_BLOCK_TRAILER_SIZE);
	else
		assert_int_equal(stored.len, n + CF_BLOCK_TRAILER_SIZE);
	assert_null(cf_block_decode(stored.data, stored.len, NULL, &out));
	assert_int_equal(out.len, n);
	if (n)
		assert_memory_equal(out.data, raw, n);
	/* a reused context: created at the first zstd block only, then kept */
	{
		void	   *dctx = NULL;

		for (int i = 0; i < 3; i++)
		{
			void	   *was = dctx;

			assert_null(cf_block_decode(stored.data, stored.len, &dctx, &out));
			assert_int_equal(out.len, n);
			if (n)
				assert_memory_equal(out.data, raw, n);
			assert_true(want_type == CF_BLOCK_ZSTD ? dctx != NULL : dctx == NULL);
			assert_true(i == 0 || dctx == was);
		}
		cf_block_dctx_free(dctx);
	}
	cf_buf_free(&stored);
	cf_buf_free(&out);
}

static void
round_trips(void **state)
{
	uint8_t    *c = compressible(65536);
	uint8_t    *r = noise(65536);

	(void) state;
	round_trip(c, 65536, 3, CF_BLOCK_ZSTD);
	round_trip(c, 65536, 0, CF_BLOCK_RAW);	/* compression off */
	round_trip(c, 1, 3, CF_BLOCK_RAW);	/* too small to shrink */
	round_trip(c, 0, 3, CF_BLOCK_RAW);	/* empty block */
	round_trip(r, 65536, 3, CF_BLOCK_RAW);	/* incompressible: stored raw */
	round_trip(r, 65536, 19, CF_BLOCK_RAW);
	free(c);
	free(r);
}

/* Every single-byte flip and every truncation of a sealed block fails to decode. */
static void
check_every_flip_and_cut(const uint8_t *raw, size_t n, int level)
{
	cf_buf		stored = CF_BUF_INIT;
	cf_buf		out = CF_BUF_INIT;
	void	   *dctx = NULL;	/* one context through every failure */

	assert_null(cf_block_seal(raw, n, level, NULL, &stored, NULL));
	for (size_t i = 0; i < stored.len; i++)
	{
		for (int bit = 0; bit < 8; bit += 7)
		{
			stored.data[i] ^= (uint8_t) (1u << bit);
			FAILS(cf_block_decode(stored.data, stored.len, &dctx, &out), CF_ERR_CORRUPTION, "");
			stored.data[i] ^= (uint8_t) (1u << bit);
		}
	}
	for (size_t len = 0; len < stored.len; len++)
		FAILS(cf_block_decode(stored.data, len, &dctx, &out), CF_ERR_CORRUPTION, "");
	assert_null(cf_block_decode(stored.data, stored.len, &dctx, &out));
	assert_null(cf_block_decode(stored.data, stored.len, NULL, &out));
	cf_block_dctx_free(dctx);
	cf_buf_free(&stored);
	cf_buf_free(&out);
}

static void
every_flip_and_truncation_detected(void **state)
{
	uint8_t    *c = compressible(4096);
	uint8_t    *r = noise(1024);

	(void) state;
	check_every_flip_and_cut(c, 4096, 3);	/* zstd */
	check_every_flip_and_cut(r, 1024, 3);	/* raw */
	check_every_flip_and_cut(c, 0, 3);	/* empty */
	free(c);
	free(r);
}

/*
 * The length field is outside the CRC (which covers the stored bytes and the type):
 * a length over CF_BLOCK_MAX_RAW, or one that disagrees with the stored size, is
 * corruption of its own.
 */
static void
huge_length_rejected(void **state)
{
	cf_buf		stored = CF_BUF_INIT;
	cf_buf		out = CF_BUF_INIT;
	uint8_t		buf[64] = {0};
	uint8_t    *c = compressible(100);

	(void) state;
	assert_null(cf_block_seal(c, 100, 3, NULL, &stored, NULL));
	FAILS(cf_block_seal(c, CF_BLOCK_MAX_RAW + 1, 3, NULL, &stored, NULL), CF_ERR_TOO_LARGE, "limit");
	/* a raw block whose length field disagrees with its size */
	cf_buf_reset(&stored);
	assert_null(cf_block_seal(buf, 10, 0, NULL, &stored, NULL));
	cf_store_be32(stored.data + 10 + 1, 0x7fffffff);
	FAILS(cf_block_decode(stored.data, stored.len, NULL, &out), CF_ERR_CORRUPTION, "exceeds the limit");
	cf_store_be32(stored.data + 10 + 1, 11);
	FAILS(cf_block_decode(stored.data, stored.len, NULL, &out), CF_ERR_CORRUPTION, "claims 11");
	free(c);
	cf_buf_free(&stored);
	cf_buf_free(&out);
}

static void
read_from_file_checks_bounds(void **state)
{
	char		path[] = "/tmp/test_block_XXXXXX";
	int			fd = mkstemp(path);
	cf_env	   *env = cf_env_posix();
	cf_wfile   *w;
	cf_rfile   *r;
	cf_buf		stored = CF_BUF_INIT;
	cf_buf		scratch = CF_BUF_INIT;
	cf_buf		out = CF_BUF_INIT;
	uint8_t    *c = compressible(5000);
	cf_block_handle h = {100, 0};

	(void) state;
	assert_true(fd >= 0);
	close(fd);
	assert_null(cf_block_seal(c, 5000, 3, NULL, &stored, NULL));
	h.size = stored.len;
	OK(cf_env_open_write(env, path, CF_OPEN_TRUNCATE, &w));
	OK(cf_wfile_append(w, c, 100));
	OK(cf_wfile_append(w, stored.data, stored.len));
	OK(cf_wfile_close(w));
	OK(cf_env_open_read(env, path, &r));
	OK(cf_block_read(r, h, cf_rfile_size(r), NULL, &scratch, &out));
	assert_int_equal(out.len, 5000);
	assert_memory_equal(out.data, c, 5000);
	FAILS(cf_block_read(r, h, cf_rfile_size(r) - 1, NULL, &scratch, &out), CF_ERR_CORRUPTION, path);
	h.offset = UINT64_MAX - 3;
	FAILS(cf_block_read(r, h, cf_rfile_size(r), NULL, &scratch, &out), CF_ERR_CORRUPTION, "out of bounds");
	h.offset = 99;				/* misaligned: checksum fails, message names the offset */
	FAILS(cf_block_read(r, h, cf_rfile_size(r), NULL, &scratch, &out), CF_ERR_CORRUPTION, "offset 99");
	/* the same through the file mapped in memory (the posix env maps) */
	{
		const uint8_t *map = cf_rfile_map(r);

		assert_non_null(map);
		assert_ptr_equal(cf_rfile_map(r), map);	/* mapped once */
		h.offset = 100;
		OK(cf_block_read_mapped(map, path, h, cf_rfile_size(r), NULL, &out));
		assert_int_equal(out.len, 5000);
		assert_memory_equal(out.data, c, 5000);
		FAILS(cf_block_read_mapped(map, path, h, cf_rfile_size(r) - 1, NULL, &out),
			  CF_ERR_CORRUPTION, path);
		h.offset = UINT64_MAX - 3;
		FAILS(cf_block_read_mapped(map, path, h, cf_rfile_size(r), NULL, &out),
			  CF_ERR_CORRUPTION, "out of bounds");
		h.offset = 99;
		FAILS(cf_block_read_mapped(map, path, h, cf_rfile_size(r), NULL, &out),
			  CF_ERR_CORRUPTION, "offset 99");
	}
	cf_rfile_close(r);
	OK(cf_env_remove(env, path));
	cf_buf_free(&stored);
	cf_buf_free(&scratch);
	cf_buf_free(&out);
	free(c);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(round_trips),
		cmocka_unit_test(every_flip_and_truncation_detected),
		cmocka_unit_test(huge_length_rejected),
		cmocka_unit_test(read_from_file_checks_bounds),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
