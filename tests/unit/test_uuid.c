/*
 * tests/unit/test_uuid.c — util/uuid: text form, v1 layout against Python's uuid
 * module, the micros round trip and range, and the generator's strict monotonicity.
 */
#include "support/cmocka_prelude.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "util/status.h"
#include "util/uuid.h"

static const uint8_t node123456[6] = {0x01, 0x02, 0x03, 0x04, 0x05, 0x06};

static void
format_is_lowercase_8_4_4_4_12(void **state)
{
	static const uint8_t u[16] = {
		0xde, 0xad, 0xbe, 0xef, 0x01, 0x23, 0x45, 0x67,
		0x89, 0xab, 0xcd, 0xef, 0x00, 0x11, 0x22, 0xff,
	};
	char		text[CF_UUID_TEXT_LEN + 1];

	(void) state;
	memset(text, 'x', sizeof(text));
	cf_uuid_format(u, text);
	assert_string_equal(text, "deadbeef-0123-4567-89ab-cdef001122ff");
}

static void
parse_accepts_either_case(void **state)
{
	static const uint8_t want[16] = {
		0xde, 0xad, 0xbe, 0xef, 0x01, 0x23, 0x45, 0x67,
		0x89, 0xab, 0xcd, 0xef, 0x00, 0x11, 0x22, 0xff,
	};
	uint8_t		u[16];
	char		text[CF_UUID_TEXT_LEN + 1];

	(void) state;
	assert_null(cf_uuid_parse("DEADBEEF-0123-4567-89AB-CDEF001122FF", u));
	assert_memory_equal(u, want, 16);
	assert_null(cf_uuid_parse("deadbeef-0123-4567-89ab-cdef001122ff", u));
	assert_memory_equal(u, want, 16);
	cf_uuid_format(u, text);
	assert_string_equal(text, "deadbeef-0123-4567-89ab-cdef001122ff");
}

static void
parse_is_strict(void **state)
{
	static const char *const bad[] = {
		"",
		"deadbeef-0123-4567-89ab-cdef001122f",		/* short */
		"deadbeef-0123-4567-89ab-cdef001122ff0",	/* long */
		"deadbeef01234567-89ab-cdef001122ff----",	/* dashes moved */
		"deadbeef-0123-4567-89ab_cdef001122ff",		/* wrong separator */
		"deadbeef-0123-4567-89ab-cdef001122fg",		/* not hex */
		" deadbeef-0123-4567-89ab-cdef001122ff",	/* leading space */
		"{deadbeef-0123-4567-89ab-cdef001122ff}",	/* braces */
		"deadbeef0123456789abcdef001122ff",			/* no dashes */
		"deadbee-f0123-4567-89ab-cdef001122ff",
	};
	uint8_t		u[16];

	(void) state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
	{
		cf_status  *s = cf_uuid_parse(bad[i], u);

		assert_non_null(s);
		assert_int_equal(cf_status_code(s), CF_ERR_INVALID);
		assert_non_null(strstr(cf_status_msg(s), "8-4-4-4-12"));
		cf_status_free(s);
	}
}

/*
 * Expected bytes from Debian's python3:
 *   uuid.UUID(fields=(ts & 0xffffffff, (ts >> 32) & 0xffff,
 *                     ((ts >> 48) & 0xfff) | 0x1000, 0x80 | cs >> 8, cs & 0xff, node))
 * with ts = micros * 10 + 0x01B21DD213814000.
 */
static void
v1_layout_matches_python(void **state)
{
	uint8_t		u[16];
	char		text[CF_UUID_TEXT_LEN + 1];

	(void) state;
	assert_true(cf_uuid_v1_from_micros(INT64_C(1300000000123456), 0x1234, node123456, u));
	cf_uuid_format(u, text);
	assert_string_equal(text, "71a89680-4d40-11e0-9234-010203040506");
	assert_int_equal(cf_uuid_version(u), 1);
	assert_true(cf_uuid_v1_timestamp(u) == INT64_C(135192928001234560));
	assert_true(cf_uuid_v1_unix_micros(u) == INT64_C(1300000000123456));

	/* clock_seq keeps only its low 14 bits; the variant bits stay 10. */
	assert_true(cf_uuid_v1_from_micros(0, 0xffff, node123456, u));
	assert_int_equal(u[8], 0xbf);
	assert_int_equal(u[9], 0xff);
}

static void
v1_micros_range_and_round_trip(void **state)
{
	static const uint8_t zero_node[6] = {0};
	static const uint8_t ff_node[6] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
	const int64_t lo = -INT64_C(12219292800000000);	/* 1582-10-15 */
	const int64_t hi = INT64_C(103072857660684697);	/* last instant 60 bits hold */
	static const int64_t samples[] = {
		INT64_C(-12219292800000000), INT64_C(-1), 0, 1, INT64_C(999999),
		INT64_C(1300000000123456), INT64_C(4102444800000000),
		INT64_C(103072857660684697),
	};
	uint8_t		u[16];
	uint8_t		keep[16];
	char		text[CF_UUID_TEXT_LEN + 1];

	(void) state;
	assert_true(cf_uuid_v1_from_micros(lo, 0, zero_node, u));
	cf_uuid_format(u, text);
	assert_string_equal(text, "00000000-0000-1000-8000-000000000000");
	assert_true(cf_uuid_v1_from_micros(hi, 0x3fff, ff_node, u));
	cf_uuid_format(u, text);
	assert_string_equal(text, "fffffffa-ffff-1fff-bfff-ffffffffffff");

	/* pre-1970: python3 gives time 122192927999999990 for micros -1 */
	assert_true(cf_uuid_v1_from_micros(-1, 5, node123456, u));
	assert_true(cf_uuid_v1_timestamp(u) == INT64_C(122192927999999990));

	for (size_t i = 0; i < sizeof(samples) / sizeof(samples[0]); i++)
	{
		assert_true(cf_uuid_v1_from_micros(samples[i], 7, node123456, u));
		assert_true(cf_uuid_v1_unix_micros(u) == samples[i]);
	}

	memset(keep, 0xaa, sizeof(keep));
	memcpy(u, keep, sizeof(u));
	assert_false(cf_uuid_v1_from_micros(lo - 1, 0, zero_node, u));
	assert_false(cf_uuid_v1_from_micros(hi + 1, 0, zero_node, u));
	assert_false(cf_uuid_v1_from_micros(INT64_MIN, 0, zero_node, u));
	assert_false(cf_uuid_v1_from_micros(INT64_MAX, 0, zero_node, u));
	assert_memory_equal(u, keep, sizeof(u));
}

/* Rounds down, not towards zero, for a 100 ns tick before 1970. */
static void
v1_unix_micros_floors(void **state)
{
	uint8_t		u[16];

	(void) state;
	/* timestamp = offset - 1: 100 ns before 1970 → micros -1 */
	assert_null(cf_uuid_parse("13813fff-1dd2-11b2-8000-000000000000", u));
	assert_true(cf_uuid_v1_timestamp(u) == CF_UUID_GREGORIAN_OFFSET - 1);
	assert_true(cf_uuid_v1_unix_micros(u) == -1);
	/* timestamp = offset + 9: 900 ns after → micros 0 */
	assert_null(cf_uuid_parse("13814009-1dd2-11b2-8000-000000000000", u));
	assert_true(cf_uuid_v1_unix_micros(u) == 0);
}

static void
version_nibble(void **state)
{
	uint8_t		u[16];

	(void) state;
	assert_null(cf_uuid_parse("550e8400-e29b-41d4-a716-446655440000", u));
	assert_int_equal(cf_uuid_version(u), 4);
	assert_null(cf_uuid_parse("71a89680-4d40-11e0-9234-010203040506", u));
	assert_int_equal(cf_uuid_version(u), 1);
}

#define NOW_CALLS 100000

static void
now_is_strictly_increasing(void **state)
{
	uint8_t		prev[16];
	uint8_t		u[16];
	int64_t		before;
	int64_t		after;
	struct timespec ts;

	(void) state;
	clock_gettime(CLOCK_REALTIME, &ts);
	before = (int64_t) ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
	cf_uuid_v1_now(prev);
	assert_int_equal(cf_uuid_version(prev), 1);
	assert_int_equal(prev[8] & 0xc0, 0x80);		/* RFC 4122 variant */
	assert_int_equal(prev[10] & 0x01, 0x01);	/* multicast bit of the node */
	assert_true(cf_uuid_v1_unix_micros(prev) >= before - 1);

	for (int i = 1; i < NOW_CALLS; i++)
	{
		cf_uuid_v1_now(u);
		if (cf_uuid_v1_timestamp(u) <= cf_uuid_v1_timestamp(prev))
			fail_msg("call %d: timestamp %lld after %lld", i,
					 (long long) cf_uuid_v1_timestamp(u),
					 (long long) cf_uuid_v1_timestamp(prev));
		assert_memory_equal(u + 8, prev + 8, 8);	/* same clock_seq and node */
		memcpy(prev, u, 16);
	}
	clock_gettime(CLOCK_REALTIME, &ts);
	after = (int64_t) ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
	/* 100k ticks of 100 ns can run at most 10 ms ahead of the clock. */
	assert_true(cf_uuid_v1_unix_micros(prev) <= after + 10000 + 1);
}

/* Several threads at once: no timestamp is handed out twice. */
#define NTHREADS 4
#define PER_THREAD 20000

static void *
now_worker(void *arg)
{
	int64_t    *out = arg;
	uint8_t		u[16];

	for (int i = 0; i < PER_THREAD; i++)
	{
		cf_uuid_v1_now(u);
		out[i] = cf_uuid_v1_timestamp(u);
	}
	return NULL;
}

static int
cmp_int64(const void *a, const void *b)
{
	int64_t		x = *(const int64_t *) a;
	int64_t		y = *(const int64_t *) b;

	return (x > y) - (x < y);
}

static void
now_is_unique_across_threads(void **state)
{
	pthread_t	th[NTHREADS];
	int64_t    *all = calloc(NTHREADS * PER_THREAD, sizeof(int64_t));

	(void) state;
	assert_non_null(all);
	for (int t = 0; t < NTHREADS; t++)
		assert_int_equal(pthread_create(&th[t], NULL, now_worker, all + t * PER_THREAD), 0);
	for (int t = 0; t < NTHREADS; t++)
		assert_int_equal(pthread_join(th[t], NULL), 0);
	for (int t = 0; t < NTHREADS; t++)
		for (int i = 1; i < PER_THREAD; i++)
			assert_true(all[t * PER_THREAD + i] > all[t * PER_THREAD + i - 1]);
	qsort(all, NTHREADS * PER_THREAD, sizeof(int64_t), cmp_int64);
	for (int i = 1; i < NTHREADS * PER_THREAD; i++)
		assert_true(all[i] != all[i - 1]);
	free(all);
}

/* A forked child draws its own node, so it cannot repeat the parent's UUIDs. */
static void
fork_child_gets_new_node(void **state)
{
	uint8_t		parent[16];
	int			fds[2];
	pid_t		pid;
	uint8_t		child[16];
	int			status;

	(void) state;
	cf_uuid_v1_now(parent);
	assert_int_equal(pipe(fds), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0)
	{
		uint8_t		u[16];

		cf_uuid_v1_now(u);
		_exit(write(fds[1], u, 16) == 16 ? 0 : 1);
	}
	close(fds[1]);
	assert_int_equal(read(fds[0], child, 16), 16);
	close(fds[0]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	assert_int_equal(child[10] & 0x01, 0x01);
	/* 46 random bits: equal nodes would mean the child reused the parent's state. */
	assert_memory_not_equal(child + 10, parent + 10, 6);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(format_is_lowercase_8_4_4_4_12),
		cmocka_unit_test(parse_accepts_either_case),
		cmocka_unit_test(parse_is_strict),
		cmocka_unit_test(v1_layout_matches_python),
		cmocka_unit_test(v1_micros_range_and_round_trip),
		cmocka_unit_test(v1_unix_micros_floors),
		cmocka_unit_test(version_nibble),
		cmocka_unit_test(now_is_strictly_increasing),
		cmocka_unit_test(now_is_unique_across_threads),
		cmocka_unit_test(fork_child_gets_new_node),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
