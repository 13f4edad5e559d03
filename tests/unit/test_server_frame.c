/*
 * tests/unit/test_server_frame.c — server/frame (the framed-transport reader), and the
 * bytes of the TApplicationException the server answers an unframed client with (the
 * codec's, thrift/cassandra.h).
 */
#include "support/cmocka_prelude.h"

#include <stdlib.h>
#include <string.h>

#include "server/frame.h"
#include "thrift/cassandra.h"
#include "support/slices.h"
#include "util/buf.h"

static size_t
put_frame(uint8_t *out, const char *payload)
{
	size_t		n = strlen(payload);

	cf_store_be32(out, (uint32_t) n);
	memcpy(out + 4, payload, n);
	return 4 + n;
}

static void
frames_split_anywhere(void **state)
{
	uint8_t		stream[256];
	size_t		len = 0;
	const char *want[] = {"first", "the second frame", "3rd!"};

	(void) state;
	for (int i = 0; i < 3; i++)
		len += put_frame(stream + len, want[i]);
	/* every chunk size from 1 byte to the whole stream gives the same frames */
	for (size_t chunk = 1; chunk <= len; chunk++)
	{
		cf_frame_reader r;
		int			got = 0;

		cf_frame_reader_init(&r, 4, 1024);
		for (size_t off = 0; off < len; off += chunk)
		{
			size_t		n = len - off < chunk ? len - off : chunk;
			size_t		pos = 0;

			while (pos < n)
			{
				size_t		used;
				cf_frame   *f;
				cf_frame_result res = cf_frame_feed(&r, stream + off + pos, n - pos, &used, &f);

				pos += used;
				if (res == CF_FRAME_MORE)
				{
					assert_int_equal(pos, n);
					break;
				}
				assert_int_equal(res, CF_FRAME_DONE);
				assert_true(got < 3);
				assert_int_equal(f->len, strlen(want[got]));
				assert_memory_equal(f->data, want[got], f->len);
				got++;
				free(f);
			}
		}
		assert_int_equal(got, 3);
		assert_false(cf_frame_partial(&r));
		cf_frame_reader_clear(&r);
	}
}

static void
bad_lengths(void **state)
{
	cf_frame_reader r;
	size_t		used;
	cf_frame   *f;
	uint8_t		b[12] = {0, 0, 0, 3, 'a', 'b', 'c'};

	(void) state;
	cf_frame_reader_init(&r, 4, 100);
	assert_int_equal(cf_frame_feed(&r, b, 7, &used, &f), CF_FRAME_TOO_SHORT);
	assert_int_equal(used, 4);
	assert_int_equal(r.declared, 3);
	assert_null(f);
	cf_frame_reader_clear(&r);

	cf_frame_reader_init(&r, 4, 100);
	cf_store_be32(b, 101);
	assert_int_equal(cf_frame_feed(&r, b, 8, &used, &f), CF_FRAME_TOO_LARGE);
	assert_int_equal(r.declared, 101);
	cf_frame_reader_clear(&r);

	/* the cap itself is accepted */
	cf_frame_reader_init(&r, 4, 100);
	cf_store_be32(b, 100);
	assert_int_equal(cf_frame_feed(&r, b, 4, &used, &f), CF_FRAME_MORE);
	assert_true(cf_frame_partial(&r));
	cf_frame_reader_clear(&r);

	/* a "length" of 0x8001xxxx is an unframed strict message: its bytes continue */
	cf_frame_reader_init(&r, 4, 100);
	memcpy(b, "\x80\x01\x00\x01\x00\x00\x00\x03get", 11);
	assert_int_equal(cf_frame_feed(&r, b, 11, &used, &f), CF_FRAME_UNFRAMED);
	assert_int_equal(used, 4);
	assert_memory_equal(r.hdr, "\x80\x01\x00\x01", 4);
	cf_frame_reader_clear(&r);

	/* over the cap but not 0x8001: just too large */
	cf_frame_reader_init(&r, 4, 100);
	memcpy(b, "\x80\x02\x00\x01", 4);
	assert_int_equal(cf_frame_feed(&r, b, 4, &used, &f), CF_FRAME_TOO_LARGE);
	cf_frame_reader_clear(&r);
}

/* A frame announced large holds memory for what arrived, not for what was announced. */
static void
memory_follows_the_bytes(void **state)
{
	cf_frame_reader r;
	uint8_t		hdr[4];
	uint8_t    *chunk = calloc(1, 100000);
	size_t		used;
	cf_frame   *f;
	size_t		total = 10u << 20;

	(void) state;
	assert_non_null(chunk);
	cf_frame_reader_init(&r, 4, 16u << 20);
	cf_store_be32(hdr, (uint32_t) total);
	assert_int_equal(cf_frame_feed(&r, hdr, 4, &used, &f), CF_FRAME_MORE);
	assert_true(r.cap <= 64 * 1024);
	assert_int_equal(cf_frame_feed(&r, chunk, 100000, &used, &f), CF_FRAME_MORE);
	assert_true(r.cap < 2 * 100000 + 64 * 1024);
	for (size_t sent = 100000; sent < total;)
	{
		size_t		n = total - sent < 100000 ? total - sent : 100000;
		cf_frame_result res = cf_frame_feed(&r, chunk, n, &used, &f);

		sent += n;
		assert_int_equal(res, sent == total ? CF_FRAME_DONE : CF_FRAME_MORE);
	}
	assert_non_null(f);
	assert_int_equal(f->len, total);
	free(f);
	free(chunk);
	cf_frame_reader_clear(&r);
}

/* The codec's header reader on msg[0..n): true if it decoded. */
static bool
peek(const void *msg, size_t n, cf_t_message_header *h)
{
	cf_rd		r;
	cf_status  *s;
	bool		ok;

	cf_rd_init(&r, msg, n);
	s = cf_t_read_message_header(&r, h);
	ok = s == NULL;
	cf_status_free(s);
	return ok;
}

static void
app_exception_bytes(void **state)
{
	cf_buf		b = CF_BUF_INIT;
	const uint8_t want[] = {
		0x80, 0x01, 0x00, 0x03,		/* strict, EXCEPTION */
		0, 0, 0, 3, 'g', 'e', 't',	/* name */
		0, 0, 0, 42,				/* seqid */
		11, 0, 1, 0, 0, 0, 2, 'n', 'o',	/* 1: string message */
		8, 0, 2, 0, 0, 0, 1,		/* 2: i32 type */
		0,							/* STOP */
	};
	cf_t_message_header h;

	(void) state;
	cf_t_write_app_exception(&b, S("get"), 42, CF_T_APP_UNKNOWN_METHOD, "no");
	assert_true(cf_buf_ok(&b));
	assert_int_equal(b.len, sizeof(want));
	assert_memory_equal(b.data, want, sizeof(want));
	assert_true(peek(b.data, b.len, &h));
	assert_int_equal(h.type, CF_T_EXCEPTION);
	assert_int_equal(h.seqid, 42);
	assert_int_equal(h.name.len, 3);
	assert_memory_equal(h.name.p, "get", 3);
	/* short, non-strict, or a name running past the end */
	assert_false(peek(b.data, 14, &h));
	assert_false(peek("\x00\x00\x00\x03get\x01\x00\x00\x00\x01", 12, &h));
	assert_false(peek("\x80\x01\x00\x01\x00\x00\x01\x00x", 9, &h));
	cf_buf_free(&b);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(frames_split_anywhere),
		cmocka_unit_test(bad_lengths),
		cmocka_unit_test(memory_follows_the_bytes),
		cmocka_unit_test(app_exception_bytes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
