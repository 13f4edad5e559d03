/* tests/unit/test_mutation.c — storage/mutation: round trips and hostile input. */
#include "support/cmocka_prelude.h"
#include "support/slices.h"

#include <stdlib.h>
#include <string.h>

#include "storage/mutation.h"

/* A mutation touching two CFs with every kind of change. */
static void
build_sample(cf_mutation *m, cf_cf_update cfs[2], cf_cell cells[4], cf_range_tomb tombs[2])
{
	static const uint8_t bin[] = {0, 1, 2, 0xff};

	memset(cells, 0, 4 * sizeof(cf_cell));
	cells[0] = (cf_cell) {.name = S("email"), .value = S("jsmith@example.com"),
	.timestamp = 1290000000000000};
	cells[1] = (cf_cell) {.name = S("session"), .value = S("abc"), .timestamp = -5,
	.ttl = 3600, .local_time = 1290003600, .flags = CF_CELL_EXPIRING};
	cells[2] = (cf_cell) {.name = S("old"), .timestamp = INT64_MAX,
	.local_time = 1290000000, .flags = CF_CELL_DELETED};
	cells[3] = (cf_cell) {.sc = S("entry-1"), .name = cf_slice_of(bin, sizeof(bin)),
	.value = cf_slice_of("", 0), .timestamp = 7};
	tombs[0] = (cf_range_tomb) {.start = S("a"), .finish = S(""),
	.del = {100, 1290000001}};
	tombs[1] = (cf_range_tomb) {.sc = S("entry-2"), .del = {101, 1290000002}};
	cfs[0] = (cf_cf_update) {.cf_id = 1000, .row_del = cf_deletion_none(),
	.cells = cells, .n_cells = 3, .tombs = tombs, .n_tombs = 1};
	cfs[1] = (cf_cf_update) {.cf_id = UINT32_MAX, .row_del = {42, 1290000000},
	.cells = cells + 3, .n_cells = 1, .tombs = tombs + 1, .n_tombs = 1};
	*m = (cf_mutation) {.key = S("jsmith"), .cfs = cfs, .n_cfs = 2};
}

/* The sample mutation and its encoding, for the tests that start from them. */
typedef struct sample
{
	cf_mutation m;
	cf_cf_update cfs[2];
	cf_cell		cells[4];
	cf_range_tomb tombs[2];
	cf_buf		b;
} sample;

static void
sample_encode(sample *s)
{
	build_sample(&s->m, s->cfs, s->cells, s->tombs);
	cf_buf_init(&s->b, 0);
	assert_null(cf_mutation_encode(&s->m, &s->b));
}

static void
assert_slice(cf_slice a, cf_slice b)
{
	assert_int_equal(a.len, b.len);
	if (a.len)
		assert_memory_equal(a.p, b.p, a.len);
}

static void
round_trip(void **state)
{
	sample		smp;
	cf_mutation d;

	(void) state;
	sample_encode(&smp);
	assert_null(cf_mutation_decode(cf_slice_of(smp.b.data, smp.b.len), &d));

	assert_slice(d.key, smp.m.key);
	assert_int_equal(d.n_cfs, 2);
	for (size_t i = 0; i < 2; i++)
	{
		assert_int_equal(d.cfs[i].cf_id, smp.m.cfs[i].cf_id);
		assert_true(d.cfs[i].row_del.timestamp == smp.m.cfs[i].row_del.timestamp);
		assert_int_equal(d.cfs[i].row_del.local_time, smp.m.cfs[i].row_del.local_time);
		assert_int_equal(d.cfs[i].n_cells, smp.m.cfs[i].n_cells);
		assert_int_equal(d.cfs[i].n_tombs, smp.m.cfs[i].n_tombs);
		for (size_t c = 0; c < d.cfs[i].n_cells; c++)
		{
			const cf_cell *x = &d.cfs[i].cells[c], *y = &smp.m.cfs[i].cells[c];

			assert_slice(x->sc, y->sc);
			assert_slice(x->name, y->name);
			assert_slice(x->value, y->value);
			assert_true(x->timestamp == y->timestamp);
			assert_int_equal(x->flags, y->flags);
			assert_int_equal(x->ttl, y->ttl);
			assert_int_equal(x->local_time, y->local_time);
		}
		for (size_t t = 0; t < d.cfs[i].n_tombs; t++)
		{
			const cf_range_tomb *x = &d.cfs[i].tombs[t], *y = &smp.m.cfs[i].tombs[t];

			assert_slice(x->sc, y->sc);
			assert_slice(x->start, y->start);
			assert_slice(x->finish, y->finish);
			assert_true(x->del.timestamp == y->del.timestamp);
			assert_int_equal(x->del.local_time, y->del.local_time);
		}
	}
	/* zero-copy: the key points into the encoded bytes */
	assert_true(d.key.p >= smp.b.data && d.key.p < smp.b.data + smp.b.len);
	assert_int_equal(cf_mutation_ops(&d), 4 + 2 + 1);	/* cells + tombstones + row deletions */
	cf_mutation_release(&d);
	cf_mutation_release(&d);	/* twice is harmless */
	cf_buf_free(&smp.b);
}

static void
empty_mutation(void **state)
{
	cf_mutation m = {.key = S("k")}, d;
	cf_buf		b = CF_BUF_INIT;

	(void) state;
	assert_null(cf_mutation_encode(&m, &b));
	assert_null(cf_mutation_decode(cf_slice_of(b.data, b.len), &d));
	assert_int_equal(d.n_cfs, 0);
	assert_int_equal(cf_mutation_ops(&d), 0);
	cf_mutation_release(&d);
	cf_buf_free(&b);
}

static void
every_truncation_is_corruption(void **state)
{
	sample		smp;
	cf_mutation d;

	(void) state;
	sample_encode(&smp);
	for (size_t n = 0; n < smp.b.len; n++)
	{
		/* a copy of exactly n bytes, so ASan sees any read past the end */
		uint8_t    *cut = malloc(n ? n : 1);
		cf_status  *s;

		memcpy(cut, smp.b.data, n);
		s = cf_mutation_decode(cf_slice_of(cut, n), &d);
		assert_int_equal(cf_status_code(s), CF_ERR_CORRUPTION);
		assert_null(d.alloc_);
		cf_status_free(s);
		free(cut);
	}
	cf_buf_free(&smp.b);
}

static void
every_byte_flip_is_safe(void **state)
{
	sample		smp;
	cf_mutation d;
	size_t		rejected = 0;

	(void) state;
	sample_encode(&smp);
	for (size_t i = 0; i < smp.b.len; i++)
	{
		static const uint8_t xors[] = {0x01, 0x80, 0xff};

		for (size_t x = 0; x < sizeof(xors); x++)
		{
			cf_status  *s;

			smp.b.data[i] ^= xors[x];
			s = cf_mutation_decode(cf_slice_of(smp.b.data, smp.b.len), &d);
			if (s)
			{
				assert_int_equal(cf_status_code(s), CF_ERR_CORRUPTION);
				rejected++;
			}
			cf_status_free(s);
			cf_mutation_release(&d);
			smp.b.data[i] ^= xors[x];
		}
	}
	/* flips in lengths, counts and flags must be caught; value bytes need not be */
	assert_true(rejected > smp.b.len / 2);
	cf_buf_free(&smp.b);
}

static void
forged_counts_do_not_allocate(void **state)
{
	/* version 1, key "k", then n_cfs = 2^62 */
	static const uint8_t forged[] = {1, 1, 'k', 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
	0x80, 0x40};
	cf_mutation d;
	cf_status  *s = cf_mutation_decode(cf_slice_of(forged, sizeof(forged)), &d);

	(void) state;
	assert_int_equal(cf_status_code(s), CF_ERR_CORRUPTION);
	cf_status_free(s);
}

static void
unknown_version_and_trailing_bytes(void **state)
{
	cf_mutation m = {.key = S("k")}, d;
	cf_buf		b = CF_BUF_INIT;
	cf_status  *s;

	(void) state;
	assert_null(cf_mutation_encode(&m, &b));
	b.data[0] = 9;
	s = cf_mutation_decode(cf_slice_of(b.data, b.len), &d);
	assert_int_equal(cf_status_code(s), CF_ERR_CORRUPTION);
	assert_non_null(strstr(cf_status_msg(s), "version 9"));
	cf_status_free(s);

	b.data[0] = CF_MUTATION_VERSION;
	cf_buf_put_u8(&b, 0);
	s = cf_mutation_decode(cf_slice_of(b.data, b.len), &d);
	assert_int_equal(cf_status_code(s), CF_ERR_CORRUPTION);
	assert_non_null(strstr(cf_status_msg(s), "left over"));
	cf_status_free(s);
	cf_buf_free(&b);
}

static void
oversized_names_are_refused(void **state)
{
	static uint8_t big[CF_NAME_MAX + 1];
	cf_cell		cell = {.name = cf_slice_of(big, sizeof(big)), .timestamp = 1};
	cf_cf_update u = {.cf_id = 1, .row_del = cf_deletion_none(), .cells = &cell, .n_cells = 1};
	cf_mutation m = {.key = S("k"), .cfs = &u, .n_cfs = 1};
	cf_buf		b = CF_BUF_INIT;
	cf_status  *s;

	(void) state;
	s = cf_mutation_encode(&m, &b);
	assert_int_equal(cf_status_code(s), CF_ERR_INVALID);
	assert_non_null(strstr(cf_status_msg(s), "column name is 65536 bytes"));
	cf_status_free(s);

	m.key = cf_slice_of(big, CF_KEY_MAX + 1);
	s = cf_mutation_encode(&m, &b);
	assert_int_equal(cf_status_code(s), CF_ERR_INVALID);
	cf_status_free(s);
	cf_buf_free(&b);
}

/* A batch: several row mutations in one payload; one mutation is a batch of one. */
static void
batches(void **state)
{
	sample		smp;
	cf_mutation ms[3];
	cf_mutation *d;
	size_t		n;
	cf_buf		b = CF_BUF_INIT;
	cf_buf		one = CF_BUF_INIT;
	cf_cell		c = {.name = S("entry"),.timestamp = 9};
	cf_cf_update u = {.cf_id = 7,.row_del = cf_deletion_none(),.cells = &c,.n_cells = 1};

	(void) state;
	sample_encode(&smp);
	ms[0] = smp.m;
	ms[1] = (cf_mutation) {.key = S("value-row"),.cfs = &u,.n_cfs = 1};
	ms[2] = (cf_mutation) {.key = S("other-row"),.cfs = &u,.n_cfs = 1};

	/* a batch of one is the mutation's own encoding */
	assert_null(cf_mutation_batch_encode(ms, 1, &one));
	assert_int_equal(one.len, smp.b.len);
	assert_memory_equal(one.data, smp.b.data, one.len);
	assert_null(cf_mutation_batch_decode(cf_slice_of(one.data, one.len), &d, &n));
	assert_int_equal(n, 1);
	assert_slice(d[0].key, S("jsmith"));
	cf_mutation_batch_release(d, n);

	assert_null(cf_mutation_batch_encode(ms, 3, &b));
	assert_int_equal(b.data[0], CF_MUTATION_BATCH_VERSION);
	assert_null(cf_mutation_batch_decode(cf_slice_of(b.data, b.len), &d, &n));
	assert_int_equal(n, 3);
	assert_slice(d[0].key, S("jsmith"));
	assert_int_equal(d[0].n_cfs, 2);
	assert_int_equal(d[0].cfs[1].cf_id, UINT32_MAX);
	assert_slice(d[1].key, S("value-row"));
	assert_slice(d[2].key, S("other-row"));
	assert_int_equal(d[2].cfs[0].cf_id, 7);
	assert_slice(d[2].cfs[0].cells[0].name, S("entry"));
	cf_mutation_batch_release(d, n);
	cf_mutation_batch_release(NULL, 0);

	/* every truncation and every byte flip: an error or a decoding, never a crash */
	for (size_t len = 0; len < b.len; len++)
	{
		cf_status  *st = cf_mutation_batch_decode(cf_slice_of(b.data, len), &d, &n);

		assert_non_null(st);
		assert_int_equal(cf_status_code(st), CF_ERR_CORRUPTION);
		assert_null(d);
		assert_int_equal(n, 0);
		cf_status_free(st);
	}
	for (size_t i = 0; i < b.len; i++)
	{
		cf_status  *st;

		b.data[i] ^= 0x5a;
		if ((st = cf_mutation_batch_decode(cf_slice_of(b.data, b.len), &d, &n)) == NULL)
			cf_mutation_batch_release(d, n);
		cf_status_free(st);
		b.data[i] ^= 0x5a;
	}
	/* trailing bytes; a batch claiming fewer than two; an unknown version */
	cf_buf_put_u8(&b, 0);
	{
		cf_status  *st = cf_mutation_batch_decode(cf_slice_of(b.data, b.len), &d, &n);

		assert_int_equal(cf_status_code(st), CF_ERR_CORRUPTION);
		assert_non_null(strstr(cf_status_msg(st), "left over"));
		cf_status_free(st);
	}
	{
		uint8_t		bad[] = {CF_MUTATION_BATCH_VERSION, 1, 0};
		uint8_t		v9[] = {9, 0};
		cf_status  *st = cf_mutation_batch_decode(cf_slice_of(bad, sizeof(bad)), &d, &n);

		assert_int_equal(cf_status_code(st), CF_ERR_CORRUPTION);
		cf_status_free(st);
		st = cf_mutation_batch_decode(cf_slice_of(v9, sizeof(v9)), &d, &n);
		assert_int_equal(cf_status_code(st), CF_ERR_CORRUPTION);
		assert_non_null(strstr(cf_status_msg(st), "version 9"));
		cf_status_free(st);
	}
	{
		cf_status  *st = cf_mutation_batch_encode(ms, 0, &one);

		assert_int_equal(cf_status_code(st), CF_ERR_INTERNAL);
		cf_status_free(st);
	}
	cf_buf_free(&b);
	cf_buf_free(&one);
	cf_buf_free(&smp.b);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(round_trip),
		cmocka_unit_test(empty_mutation),
		cmocka_unit_test(every_truncation_is_corruption),
		cmocka_unit_test(every_byte_flip_is_safe),
		cmocka_unit_test(forged_counts_do_not_allocate),
		cmocka_unit_test(unknown_version_and_trailing_bytes),
		cmocka_unit_test(oversized_names_are_refused),
		cmocka_unit_test(batches),
	};

	return cmocka_run_group_tests_name("storage/mutation", tests, NULL, NULL);
}
