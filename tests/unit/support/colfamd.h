/*
 * tests/unit/support/colfamd.h — the real colfamd binary as a child process of a unit
 * test: its own temp directory (data, commit log, log file), a loopback address the test
 * chooses (127.0.0.x) and a free port there, started and waited for, stopped with
 * SIGTERM or killed with SIGKILL, restarted on the same directories and port.
 *
 * The binary: $COLFAMD_BIN when set, else ../bin/colfamd next to the test program's
 * own directory (build/release/tests/test_x runs build/release/bin/colfamd, and the ASan
 * suite's build/asan/tests/test_x the ASan colfamd, which tests/run.sh builds with the
 * tests). A missing binary fails the test with the path it looked for: never a skip.
 *
 * Every failure (the binary missing, the process exiting during start-up, no port
 * accepting within the wait) fails the running test through cmocka and prints the tail
 * of colfamd's log. The child gets PR_SET_PDEATHSIG SIGKILL, so a crashed test leaves no
 * server behind. Start, stop and kill must be called from the thread that started it.
 */
#ifndef CF_TEST_COLFAMD_H
#define CF_TEST_COLFAMD_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

typedef struct test_colfamd test_colfamd;

/*
 * Starts colfamd on host (a numeric 127.0.0.x) and a free port, with
 * --data_file_directories and --commitlog_directory in a new temp directory, and
 * extra_args (a NULL-terminated list of "--key", "value", ...; NULL for none) after
 * them. Returns once the port accepts connections (up to 60 s).
 */
test_colfamd *test_colfamd_start(const char *host, const char *const *extra_args);

/* Starts it again on the same directories, port and arguments (after stop or kill). */
void		test_colfamd_restart(test_colfamd *d);

/*
 * SIGTERM, then waits up to 30 s for the exit (SIGKILL after that, which fails the
 * test). Fails the test unless colfamd exited with status 0.
 */
void		test_colfamd_stop(test_colfamd *d);

/* SIGKILL and reap: a crash, as far as the data is concerned. */
void		test_colfamd_kill(test_colfamd *d);

/* Kills it if running, removes the directory, frees d. NULL is ignored. */
void		test_colfamd_free(test_colfamd *d);

/* "127.0.0.x:PORT", for cfc_options.hosts. */
const char *test_colfamd_hosts(const test_colfamd *d);

/* The temp directory (colfamd.log is in it; tests may put files there too). */
const char *test_colfamd_dir(const test_colfamd *d);

pid_t		test_colfamd_pid(const test_colfamd *d);

/* The resident set size of the running process in KiB (VmRSS), -1 if unknown. */
long		test_colfamd_rss_kb(const test_colfamd *d);

/* Whether colfamd's log so far contains text. */
bool		test_colfamd_log_contains(const test_colfamd *d, const char *text);

/* Clocks for the tests that talk to it. Milliseconds of CLOCK_MONOTONIC. */
long		test_clock_ms(void);

/*
 * A client timestamp (microseconds of the real-time clock, as 0.7 clients send),
 * strictly greater than *last, which it updates: one writer's writes are then ordered
 * even within a microsecond or when the clock steps back. last NULL: just the clock.
 */
int64_t		test_timestamp_us(int64_t *last);

#endif
