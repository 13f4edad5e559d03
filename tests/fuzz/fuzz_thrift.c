/*
 * tests/fuzz/fuzz_thrift.c — libFuzzer target for thrift/cassandra.h's decoder.
 *
 * One input is read three ways, as the server and the client would meet it:
 *  1. cf_t_read_message_header, then the body as every method's arguments;
 *  2. the whole input as every method's reply (cf_t_read_reply);
 * and whatever decodes is re-encoded (cf_t_write_call / cf_t_write_reply), decoded
 * again and re-encoded again: the two encodings must be identical, so the encoder
 * and decoder agree on everything the decoder accepts. The only failure allowed on
 * the second decode is the memory budget (TOO_LARGE): it is relative to the input's
 * size, and the re-encoding drops unknown fields, so it may be smaller.
 *
 * Build and run: make -f mk/engine.mk fuzz; tests/run.sh fuzz (FUZZ_SECONDS=N).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "thrift/cassandra.h"
#include "util/arena.h"

int			LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void
die(const char *what, cf_t_method m, const cf_status *s)
{
	fprintf(stderr, "fuzz_thrift: %s for %s: %s\n", what, cf_t_method_name(m),
			cf_status_msg(s));
	abort();
}

static void
same_bytes(const cf_buf *a, const cf_buf *b, cf_t_method m)
{
	if (a->len != b->len || memcmp(a->data, b->data, a->len) != 0)
		die("re-encoding differs", m, NULL);
}

/* Decoded args of m: encode, decode, encode again; the encodings must match. */
static void
check_args(cf_t_method m, const cf_t_args *args, int32_t seqid, const cf_t_limits *lim)
{
	cf_buf		b1 = CF_BUF_INIT;
	cf_buf		b2 = CF_BUF_INIT;
	cf_arena   *a = cf_arena_new(0);
	cf_t_message_header h;
	cf_t_args	again;
	cf_status  *s;
	cf_rd		r;

	if ((s = cf_t_write_call(&b1, m, seqid, args)) != NULL)
		die("write_call failed", m, s);
	cf_rd_init(&r, b1.data, b1.len);
	if ((s = cf_t_read_message_header(&r, &h)) != NULL)
		die("own header does not decode", m, s);
	s = cf_t_read_args(&r, m, lim, a, &again);
	if (s == NULL)
	{
		if (cf_rd_left(&r) != 0)
			die("own call has trailing bytes", m, NULL);
		if ((s = cf_t_write_call(&b2, m, seqid, &again)) != NULL)
			die("second write_call failed", m, s);
		same_bytes(&b1, &b2, m);
	}
	else if (cf_status_code(s) != CF_ERR_TOO_LARGE)
		die("own call does not decode", m, s);
	cf_status_free(s);
	cf_buf_free(&b1);
	cf_buf_free(&b2);
	cf_arena_free(a);
}

static void
check_reply(cf_t_method m, const cf_t_result *res, int32_t seqid, const cf_t_limits *lim)
{
	cf_buf		b1 = CF_BUF_INIT;
	cf_buf		b2 = CF_BUF_INIT;
	cf_arena   *a = cf_arena_new(0);
	cf_t_result again;
	cf_status  *s;

	if ((s = cf_t_write_reply(&b1, m, seqid, res)) != NULL)
		die("write_reply failed", m, s);
	s = cf_t_read_reply(cf_slice_of(b1.data, b1.len), m, seqid, lim, a, &again);
	if (s == NULL)
	{
		if ((s = cf_t_write_reply(&b2, m, seqid, &again)) != NULL)
			die("second write_reply failed", m, s);
		same_bytes(&b1, &b2, m);
	}
	else if (cf_status_code(s) != CF_ERR_TOO_LARGE)
		die("own reply does not decode", m, s);
	cf_status_free(s);
	cf_buf_free(&b1);
	cf_buf_free(&b2);
	cf_arena_free(a);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	cf_t_limits lim = cf_t_limits_default();
	cf_t_message_header h;
	cf_status  *s;
	cf_rd		r;

	/* small caps, so the fuzzer reaches them */
	lim.max_container = 4096;
	lim.max_string = 1 << 20;
	cf_rd_init(&r, data, size);
	s = cf_t_read_message_header(&r, &h);
	for (int i = 0; i < CF_T_M_COUNT_; i++)
	{
		cf_t_method m = (cf_t_method) i;
		cf_arena   *a = cf_arena_new(0);
		cf_t_args	args;
		cf_t_result res;
		cf_status  *st;
		cf_rd		body;

		if (s == NULL)
		{
			cf_rd_init(&body, data + r.pos, size - r.pos);
			st = cf_t_read_args(&body, m, &lim, a, &args);
			if (st == NULL)
				check_args(m, &args, h.seqid, &lim);
			cf_status_free(st);
		}
		st = cf_t_read_reply(cf_slice_of(data, size), m, s == NULL ? h.seqid : 0, &lim, a, &res);
		if (st == NULL)
			check_reply(m, &res, h.seqid, &lim);
		cf_status_free(st);
		cf_arena_free(a);
	}
	cf_status_free(s);
	return 0;
}
