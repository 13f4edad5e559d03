/*
 * tests/unit/test_commitlog_crash.c — storage/commitlog under real process crashes.
 *
 * Each cycle forks a child that opens the log and appends from four threads, writing
 * the id of every acknowledged record to a pipe; the parent SIGKILLs it after a random
 * delay, reads every id that made it into the pipe, then reopens the log, replays it and
 * checks that every acknowledged record is there and every replayed record is well
 * formed. It then declares everything flushed, so the next cycle starts from an empty
 * log and the retirement path runs after every crash too.
 *
 * SIGKILL loses the process, not the machine: the OS keeps what was written, so in
 * PERIODIC mode too nothing acknowledged may be missing. Power loss (unsynced bytes
 * gone) is test_commitlog.c's job, through env_fault.
 *
 * The delays come from a seed, printed first; set CF_CRASH_SEED to repeat a run.
 */
#include "support/cmocka_prelude.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "storage/commitlog.h"
#include "support/tmpdir.h"
#include "util/buf.h"
#include "util/log.h"

#define CYCLES 30
#define THREADS 4
#define MAX_SEQ 100000			/* per thread and cycle; a child stops there */
#define CF_ID 9

static uint64_t rng_state;

static uint64_t
rng_next(void)
{
	/* xorshift64*: small, seedable, good enough for delays. */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545F4914F6CDD1Dull;
}

/* ---- records: cycle u32 | thread u32 | seq u32 | filler derived from them ---- */

static size_t
make_record(uint32_t cycle, uint32_t thread, uint32_t seq, uint8_t *buf)
{
	size_t		fill = (seq * 13u + thread) % 200u;

	cf_store_be32(buf, cycle);
	cf_store_be32(buf + 4, thread);
	cf_store_be32(buf + 8, seq);
	for (size_t k = 0; k < fill; k++)
		buf[12 + k] = (uint8_t) (cycle * 31u + seq * 7u + k);
	return 12 + fill;
}

typedef struct cycle_check
{
	uint32_t	cycle;
	uint8_t    *seen[THREADS];	/* seen[t][seq]: replayed */
	uint64_t	records;
	uint64_t	malformed;
} cycle_check;

static cf_status *
check_record(void *arg, cf_slice p, cf_commitlog_pos pos)
{
	cycle_check *c = arg;
	uint8_t		want[256];
	uint32_t	thread;
	uint32_t	seq;

	(void) pos;
	c->records++;
	if (p.len < 12)
	{
		c->malformed++;
		return NULL;
	}
	thread = cf_load_be32(p.p + 4);
	seq = cf_load_be32(p.p + 8);
	if (cf_load_be32(p.p) != c->cycle || thread >= THREADS || seq >= MAX_SEQ ||
		make_record(c->cycle, thread, seq, want) != p.len ||
		memcmp(want, p.p, p.len) != 0)
	{
		c->malformed++;
		return NULL;
	}
	c->seen[thread][seq] = 1;
	return NULL;
}

/* ---- the child ---- */

typedef struct child_thread
{
	cf_commitlog *log;
	uint32_t	cycle;
	uint32_t	thread;
	int			fd;
} child_thread;

static void *
child_appender(void *arg)
{
	child_thread *c = arg;
	uint8_t		buf[256];
	uint32_t	cf = CF_ID;

	for (uint32_t seq = 0; seq < MAX_SEQ; seq++)
	{
		size_t		len = make_record(c->cycle, c->thread, seq, buf);
		uint32_t	ack[2] = {c->thread, seq};
		cf_status  *s = cf_commitlog_append(c->log, &cf, 1, cf_slice_of(buf, len), NULL);

		if (s != NULL)
		{
			cf_status_free(s);
			break;
		}
		/* 8 bytes < PIPE_BUF: each report arrives whole. */
		if (write(c->fd, ack, sizeof(ack)) != (ssize_t) sizeof(ack))
			break;
	}
	return NULL;
}

static cf_status *
ignore_record(void *arg, cf_slice p, cf_commitlog_pos pos)
{
	(void) arg;
	(void) p;
	(void) pos;
	return NULL;
}

/* Runs in the child: appends until killed (or MAX_SEQ), never returns. */
static void
child_main(const char *dir, cf_commitlog_sync_mode mode, uint32_t cycle, int fd)
{
	cf_commitlog_options o = {.env = cf_env_posix(), .dir = dir, .sync_mode = mode,
	.sync_period_us = 5000, .segment_size = 16384};
	child_thread t[THREADS];
	pthread_t	th[THREADS];
	cf_commitlog *log;
	cf_status  *s;

	if ((s = cf_commitlog_open(&o, &log)) != NULL ||
		(s = cf_commitlog_replay(log, ignore_record, NULL, NULL)) != NULL)
	{
		fprintf(stderr, "child: %s\n", cf_status_msg(s));
		_exit(2);
	}
	for (uint32_t i = 0; i < THREADS; i++)
	{
		t[i] = (child_thread) {log, cycle, i, fd};
		if (pthread_create(&th[i], NULL, child_appender, &t[i]) != 0)
			_exit(3);
	}
	pause();					/* the parent kills us */
	_exit(0);
}

/* ---- the parent ---- */

/*
 * Reads ack reports from fd into acked[thread][seq] until deadline_ms (or forever when
 * deadline_ms < 0, i.e. until EOF). Returns the number read.
 */
static uint64_t
read_acks(int fd, uint8_t **acked, int64_t wait_ms)
{
	struct timespec t0;
	uint64_t	n = 0;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;)
	{
		struct pollfd pfd = {fd, POLLIN, 0};
		struct timespec now;
		int64_t		left = -1;
		uint32_t	ack[2];
		ssize_t		r;

		if (wait_ms >= 0)
		{
			clock_gettime(CLOCK_MONOTONIC, &now);
			left = wait_ms - ((now.tv_sec - t0.tv_sec) * 1000 +
							  (now.tv_nsec - t0.tv_nsec) / 1000000);
			if (left <= 0)
				return n;
		}
		if (poll(&pfd, 1, (int) left) <= 0)
			continue;
		r = read(fd, ack, sizeof(ack));
		if (r == 0)
			return n;			/* EOF: the child is gone */
		if (r < 0 && errno == EINTR)
			continue;
		assert_int_equal(r, sizeof(ack));
		assert_true(ack[0] < THREADS && ack[1] < MAX_SEQ);
		acked[ack[0]][ack[1]] = 1;
		n++;
	}
}

static void
crash_cycles(cf_commitlog_sync_mode mode, const char *name)
{
	const char *seed_env = getenv("CF_CRASH_SEED");
	uint64_t	seed;
	char	   *dir;
	uint8_t    *acked[THREADS];
	uint64_t	total_acked = 0;
	uint64_t	total_replayed = 0;
	uint64_t	lost = 0;
	struct timespec t0;
	struct timespec t1;

	seed = seed_env ? strtoull(seed_env, NULL, 0)
		: (uint64_t) time(NULL) ^ ((uint64_t) getpid() << 32);
	if (seed == 0)
		seed = 1;
	rng_state = seed;
	print_message("%s: seed %llu (set CF_CRASH_SEED to repeat)\n", name,
				  (unsigned long long) seed);

	dir = test_tmpdir_new("cf_clcrash");
	assert_non_null(dir);
	for (int t = 0; t < THREADS; t++)
		assert_non_null(acked[t] = malloc(MAX_SEQ));

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (uint32_t cycle = 1; cycle <= CYCLES; cycle++)
	{
		int64_t		delay_ms = 1 + (int64_t) (rng_next() % 25);
		cycle_check check = {.cycle = cycle};
		cf_commitlog_options o = {.env = cf_env_posix(), .dir = dir, .sync_mode = mode};
		cf_commitlog *log;
		uint64_t	n_acked;
		int			fds[2];
		int			status;
		pid_t		pid;

		for (int t = 0; t < THREADS; t++)
		{
			memset(acked[t], 0, MAX_SEQ);
			assert_non_null(check.seen[t] = calloc(MAX_SEQ, 1));
		}
		assert_int_equal(pipe(fds), 0);
		fflush(NULL);
		pid = fork();
		assert_true(pid >= 0);
		if (pid == 0)
		{
			close(fds[0]);
			child_main(dir, mode, cycle, fds[1]);
		}
		close(fds[1]);
		n_acked = read_acks(fds[0], acked, delay_ms);
		assert_int_equal(kill(pid, SIGKILL), 0);
		n_acked += read_acks(fds[0], acked, -1);
		close(fds[0]);
		assert_int_equal(waitpid(pid, &status, 0), pid);
		if (!WIFSIGNALED(status))
			fail_msg("cycle %u: the child exited with %d before it was killed", cycle,
					 WEXITSTATUS(status));

		/* Reopen as the next colfamd would: every acknowledged record must be there. */
		assert_null(cf_commitlog_open(&o, &log));
		{
			cf_status  *s = cf_commitlog_replay(log, check_record, &check, NULL);

			if (s != NULL)
				fail_msg("cycle %u (seed %llu): %s", cycle, (unsigned long long) seed,
						 cf_status_msg(s));
		}
		if (check.malformed > 0)
			fail_msg("cycle %u (seed %llu): %llu malformed records replayed", cycle,
					 (unsigned long long) seed, (unsigned long long) check.malformed);
		for (int t = 0; t < THREADS; t++)
			for (uint32_t q = 0; q < MAX_SEQ; q++)
				if (acked[t][q] && !check.seen[t][q])
					lost++;
		if (lost > 0)
			fail_msg("cycle %u (seed %llu): %llu acknowledged records missing", cycle,
					 (unsigned long long) seed, (unsigned long long) lost);
		total_acked += n_acked;
		total_replayed += check.records;

		/* Everything is "flushed": the next cycle starts from an empty log. */
		assert_null(cf_commitlog_cf_flushed(log, CF_ID, cf_commitlog_position(log)));
		assert_null(cf_commitlog_close(log));
		for (int t = 0; t < THREADS; t++)
			free(check.seen[t]);
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	print_message("%s: %d cycles in %.2f s, %llu records acknowledged, %llu replayed, "
				  "%llu acknowledged but lost\n", name, CYCLES,
				  (double) (t1.tv_sec - t0.tv_sec) + (double) (t1.tv_nsec - t0.tv_nsec) / 1e9,
				  (unsigned long long) total_acked, (unsigned long long) total_replayed,
				  (unsigned long long) lost);
	assert_true(total_acked > 0);
	for (int t = 0; t < THREADS; t++)
		free(acked[t]);
	test_tmpdir_free(dir);
}

static void
batch_mode_survives_sigkill(void **state)
{
	(void) state;
	crash_cycles(CF_COMMITLOG_BATCH, "batch");
}

static void
periodic_mode_survives_sigkill(void **state)
{
	(void) state;
	crash_cycles(CF_COMMITLOG_PERIODIC, "periodic");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(batch_mode_survives_sigkill),
		cmocka_unit_test(periodic_mode_survives_sigkill),
	};

	cf_log_set_level(CF_LOG_ERROR);	/* torn tails are expected here */
	return cmocka_run_group_tests(tests, NULL, NULL);
}
