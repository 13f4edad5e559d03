/*
 * tests/fuzz/fuzz_thrift.c — libFuzzer target for thrift/cassandra.h's decoder and
 * thrift/admin.h's (colfam's methods, colfam_multiget_chain's among them).
 *
 * One input is read three ways, as the server and the client would meet it:
 *  1. cf_t_read_message_header, then the body as every method's arguments (the 0.7
 *     methods' and colfam's, cf_ta_read_args);
 *  2. the whole input as every method's reply (cf_t_read_reply, cf_ta_read_reply);
 *  3. for the replies a scan pages through, by client/reply.h's hand-written reader
 *     and skim too: what they accept, cf_t_read_reply must decode to the same
 *     result (and keys), and the re-encoding of what cf_t_read_reply decodes
 *     (canonical) must be accepted by the hand-written reader alike;
 * and whatever decodes is re-encoded (cf_t_write_call / cf_t_write_reply, and
 * cf_ta_write_call / cf_ta_write_reply), decoded
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

#include "client/reply.h"
#include "thrift/admin.h"
#include "thrift/cassandra.h"
#include "util/arena.h"

int			LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A failed check of the method named method (a 0.7 method's or colfam's): abort. */
static void
die(const char *what, const char *method, const cf_status *s)
{
	fprintf(stderr, "fuzz_thrift: %s for %s: %s\n", what, method, cf_status_msg(s));
	abort();
}

static void
same_bytes(const cf_buf *a, const cf_buf *b, const char *method)
{
	if (a->len != b->len || memcmp(a->data, b->data, a->len) != 0)
		die("re-encoding differs", method, NULL);
}

/* Decoded args of m: encode, decode, encode again; the encodings must match. */
static void
check_args(cf_t_method m, const cf_t_args *args, int32_t seqid, const cf_t_limits *lim)
{
	const char *name = cf_t_method_name(m);
	cf_buf		b1 = CF_BUF_INIT;
	cf_buf		b2 = CF_BUF_INIT;
	cf_arena   *a = cf_arena_new(0);
	cf_t_message_header h;
	cf_t_args	again;
	cf_status  *s;
	cf_rd		r;

	if ((s = cf_t_write_call(&b1, m, seqid, args)) != NULL)
		die("write_call failed", name, s);
	cf_rd_init(&r, b1.data, b1.len);
	if ((s = cf_t_read_message_header(&r, &h)) != NULL)
		die("own header does not decode", name, s);
	s = cf_t_read_args(&r, m, lim, a, &again);
	if (s == NULL)
	{
		if (cf_rd_left(&r) != 0)
			die("own call has trailing bytes", name, NULL);
		if ((s = cf_t_write_call(&b2, m, seqid, &again)) != NULL)
			die("second write_call failed", name, s);
		same_bytes(&b1, &b2, name);
	}
	else if (cf_status_code(s) != CF_ERR_TOO_LARGE)
		die("own call does not decode", name, s);
	cf_status_free(s);
	cf_buf_free(&b1);
	cf_buf_free(&b2);
	cf_arena_free(a);
}

static void
check_reply(cf_t_method m, const cf_t_result *res, int32_t seqid, const cf_t_limits *lim)
{
	const char *name = cf_t_method_name(m);
	cf_buf		b1 = CF_BUF_INIT;
	cf_buf		b2 = CF_BUF_INIT;
	cf_arena   *a = cf_arena_new(0);
	cf_t_result again;
	cf_status  *s;

	if ((s = cf_t_write_reply(&b1, m, seqid, res)) != NULL)
		die("write_reply failed", name, s);
	s = cf_t_read_reply(cf_slice_of(b1.data, b1.len), m, seqid, lim, a, &again);
	if (s == NULL)
	{
		if ((s = cf_t_write_reply(&b2, m, seqid, &again)) != NULL)
			die("second write_reply failed", name, s);
		same_bytes(&b1, &b2, name);
	}
	else if (cf_status_code(s) != CF_ERR_TOO_LARGE)
		die("own reply does not decode", name, s);
	cf_status_free(s);
	cf_buf_free(&b1);
	cf_buf_free(&b2);
	cf_arena_free(a);
}

/*
 * colfam's methods (thrift/admin.h, colfam_multiget_chain's ChainSteps and
 * list<list<KeySlice>> among them): decoded args or result a re-encoded, decoded and
 * re-encoded again, as check_args and check_reply do for the 0.7 methods.
 */
static void
check_ta(cf_ta_method m, const cf_ta_args *args, const cf_ta_result *res, int32_t seqid,
		 const cf_t_limits *lim)
{
	const char *name = cf_ta_method_name(m);
	cf_buf		b1 = CF_BUF_INIT;
	cf_buf		b2 = CF_BUF_INIT;
	cf_arena   *a = cf_arena_new(0);
	cf_ta_args	args2;
	cf_ta_result res2;
	cf_status  *s;

	if ((s = args ? cf_ta_write_call(&b1, m, seqid, args) :
		 cf_ta_write_reply(&b1, m, seqid, res)) != NULL)
		die("write failed", name, s);
	if (args)
	{
		cf_t_message_header h;
		cf_rd		r;

		cf_rd_init(&r, b1.data, b1.len);
		if ((s = cf_t_read_message_header(&r, &h)) != NULL)
			die("own header does not decode", name, s);
		if ((s = cf_ta_read_args(&r, m, lim, a, &args2)) == NULL && cf_rd_left(&r) != 0)
			die("own call has trailing bytes", name, NULL);
	}
	else
		s = cf_ta_read_reply(cf_slice_of(b1.data, b1.len), m, seqid, lim, a, &res2);
	if (s == NULL)
	{
		if ((s = args ? cf_ta_write_call(&b2, m, seqid, &args2) :
			 cf_ta_write_reply(&b2, m, seqid, &res2)) != NULL)
			die("second write failed", name, s);
		same_bytes(&b1, &b2, name);
	}
	else if (cf_status_code(s) != CF_ERR_TOO_LARGE)
		die("own encoding does not decode", name, s);
	cf_status_free(s);
	cf_buf_free(&b1);
	cf_buf_free(&b2);
	cf_arena_free(a);
}

static bool
same_column(const cf_t_column *a, const cf_t_column *b)
{
	return cf_slice_eq(a->name, b->name) && cf_slice_eq(a->value, b->value) &&
		a->timestamp == b->timestamp && a->has_ttl == b->has_ttl && a->ttl == b->ttl;
}

static bool
same_coscs(const cf_t_cosc *a, const cf_t_cosc *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
	{
		const cf_t_super_column *sa = &a[i].super_column,
				   *sb = &b[i].super_column;

		if (a[i].has_column != b[i].has_column ||
			a[i].has_super_column != b[i].has_super_column ||
			!same_column(&a[i].column, &b[i].column) || !cf_slice_eq(sa->name, sb->name) ||
			sa->n_columns != sb->n_columns)
			return false;
		for (size_t j = 0; j < sa->n_columns; j++)
			if (!same_column(&sa->columns[j], &sb->columns[j]))
				return false;
	}
	return true;
}

/* The results of a scan method's reply (get_slice, or list<KeySlice>) are equal. */
static bool
same_scan_result(const cf_t_result *a, const cf_t_result *b)
{
	if (a->exception.kind != b->exception.kind || a->n_coscs != b->n_coscs ||
		a->n_key_slices != b->n_key_slices || !same_coscs(a->coscs, b->coscs, a->n_coscs))
		return false;
	for (size_t i = 0; i < a->n_key_slices; i++)
	{
		const cf_t_key_slice *ka = &a->key_slices[i],
				   *kb = &b->key_slices[i];

		if (!cf_slice_eq(ka->key, kb->key) || ka->n_columns != kb->n_columns ||
			!same_coscs(ka->columns, kb->columns, ka->n_columns))
			return false;
	}
	return true;
}

/*
 * The hand-written reader against the generic one on msg, for m (a scan method):
 * what it accepts decodes alike; what the skim accepts and the generic reader decodes
 * has the same keys. With canonical set (msg is an encoding of ours) it must accept
 * whatever success the generic reader decodes.
 */
static void
check_fast_reply(cf_slice msg, cf_t_method m, int32_t seqid, const cf_t_limits *lim,
				 bool canonical)
{
	const char *name = cf_t_method_name(m);
	cf_arena   *a = cf_arena_new(0);
	cf_t_result fast;
	cf_t_result slow;
	cf_slice   *keys;
	size_t		n_keys;
	bool		ok = cfc_read_reply_fast(msg, m, seqid, lim, a, &fast);
	bool		skim = cfc_skim_reply_keys(msg, m, seqid, a, &keys, &n_keys);
	cf_status  *s = cf_t_read_reply(msg, m, seqid, lim, a, &slow);

	if (ok && s != NULL)
		die("the hand-written reader accepts what the generic one refuses", name, s);
	if (ok && !same_scan_result(&fast, &slow))
		die("the hand-written reader decodes differently", name, NULL);
	if (canonical && s == NULL && slow.exception.kind == CF_T_EXC_NONE && !ok)
		die("the hand-written reader refuses a canonical reply", name, NULL);
	if (skim && s == NULL && m != CF_T_M_GET_SLICE)
	{
		if (n_keys != slow.n_key_slices)
			die("the skim counts other keys", name, NULL);
		for (size_t i = 0; i < n_keys; i++)
			if (!cf_slice_eq(keys[i], slow.key_slices[i].key))
				die("the skim finds other keys", name, NULL);
	}
	cf_status_free(s);
	cf_arena_free(a);
}

static bool
is_scan_method(cf_t_method m)
{
	return m == CF_T_M_GET_SLICE || m == CF_T_M_GET_RANGE_SLICES ||
		m == CF_T_M_GET_INDEXED_SLICES;
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
		if (is_scan_method(m))
		{
			check_fast_reply(cf_slice_of(data, size), m, s == NULL ? h.seqid : 0, &lim,
							 false);
			if (st == NULL)
			{
				cf_buf		b = CF_BUF_INIT;

				if (cf_t_write_reply(&b, m, h.seqid, &res) == NULL)
					check_fast_reply(cf_slice_of(b.data, b.len), m, h.seqid, &lim, true);
				cf_buf_free(&b);
			}
		}
		cf_status_free(st);
		cf_arena_free(a);
	}
	for (int i = 0; i < CF_TA_M_COUNT_; i++)
	{
		cf_ta_method m = (cf_ta_method) i;
		cf_arena   *a = cf_arena_new(0);
		cf_ta_args	args;
		cf_ta_result res;
		cf_status  *st;
		cf_rd		body;

		if (s == NULL)
		{
			cf_rd_init(&body, data + r.pos, size - r.pos);
			if ((st = cf_ta_read_args(&body, m, &lim, a, &args)) == NULL)
				check_ta(m, &args, NULL, h.seqid, &lim);
			cf_status_free(st);
		}
		st = cf_ta_read_reply(cf_slice_of(data, size), m, s == NULL ? h.seqid : 0, &lim, a,
							  &res);
		if (st == NULL)
			check_ta(m, NULL, &res, h.seqid, &lim);
		cf_status_free(st);
		cf_arena_free(a);
	}
	cf_status_free(s);
	return 0;
}
