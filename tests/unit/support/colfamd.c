/*
 * tests/unit/support/colfamd.c — colfamd as a child process (see colfamd.h).
 *
 * The port is found by binding port 0 on the host and closing the socket; another
 * process could take it before colfamd binds, so a start whose colfamd exits with
 * "busy port" (status 1 before accepting) is retried on a new port, up to 5 times.
 */
#include "support/cmocka_prelude.h"
#include "support/colfamd.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "support/tmpdir.h"

#define START_WAIT_MS 60000
#define STOP_WAIT_MS 30000
#define MAX_EXTRA 32

struct test_colfamd
{
	char	   *dir;
	char		bin[PATH_MAX];
	char		host[32];
	int			port;
	char		hosts[64];
	char	   *extra[MAX_EXTRA + 1];
	pid_t		pid;			/* 0: not running */
	long		log_at;			/* the log's size when pid was spawned */
};

long
test_clock_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

int64_t
test_timestamp_us(int64_t *last)
{
	struct timespec ts;
	int64_t		t;

	clock_gettime(CLOCK_REALTIME, &ts);
	t = (int64_t) ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
	if (last == NULL)
		return t;
	*last = t > *last ? t : *last + 1;
	return *last;
}

static void
sleep_ms(int ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};

	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

/* The size of colfamd's log so far (0 before it exists). */
static long
log_size(const test_colfamd *d)
{
	struct stat st;

	return stat(test_path(d->dir, "colfamd.log"), &st) == 0 ? (long) st.st_size : 0;
}

/* Whether colfamd's log from byte offset from on contains text. */
static bool
log_contains_from(const test_colfamd *d, long from, const char *text)
{
	FILE	   *f = fopen(test_path(d->dir, "colfamd.log"), "r");
	char	   *all = NULL;
	size_t		cap = 0;
	bool		found;

	if (f == NULL)
		return false;
	found = fseek(f, from, SEEK_SET) == 0 && getdelim(&all, &cap, '\0', f) > 0 &&
		strstr(all, text) != NULL;
	free(all);
	fclose(f);
	return found;
}

/* The last lines of colfamd's log on stderr, for a failure's context. */
static void
print_log_tail(const test_colfamd *d)
{
	char		buf[4096];
	FILE	   *f = fopen(test_path(d->dir, "colfamd.log"), "r");
	long		size;
	size_t		n;

	if (f == NULL)
		return;
	fseek(f, 0, SEEK_END);
	size = ftell(f);
	fseek(f, size > (long) sizeof(buf) - 1 ? size - (long) sizeof(buf) + 1 : 0, SEEK_SET);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	fprintf(stderr, "--- colfamd log (%s/colfamd.log), last %zu bytes ---\n%s--- end ---\n",
			d->dir, n, buf);
}

static void
find_binary(test_colfamd *d)
{
	const char *env = getenv("COLFAMD_BIN");
	char		self[PATH_MAX];
	ssize_t		n;

	if (env && env[0])
		snprintf(d->bin, sizeof(d->bin), "%s", env);
	else
	{
		n = readlink("/proc/self/exe", self, sizeof(self) - 1);
		if (n <= 0)
			fail_msg("colfamd: cannot read /proc/self/exe: %s", strerror(errno));
		self[n] = '\0';
		snprintf(d->bin, sizeof(d->bin), "%s/../bin/colfamd", dirname(self));
	}
	if (access(d->bin, X_OK) != 0)
		fail_msg("colfamd: no executable at %s (%s); build it (make -f mk/engine.mk%s all) "
				 "or set COLFAMD_BIN", d->bin, strerror(errno),
				 strstr(d->bin, "asan") ? " SAN=1" : "");
}

static int
free_port(const char *host)
{
	struct sockaddr_in sa = {.sin_family = AF_INET};
	socklen_t	len = sizeof(sa);
	int			fd = socket(AF_INET, SOCK_STREAM, 0);
	int			port;

	assert_true(fd >= 0);
	assert_int_equal(inet_pton(AF_INET, host, &sa.sin_addr), 1);
	if (bind(fd, (struct sockaddr *) &sa, sizeof(sa)) != 0 ||
		getsockname(fd, (struct sockaddr *) &sa, &len) != 0)
		fail_msg("colfamd: no free port on %s: %s", host, strerror(errno));
	port = ntohs(sa.sin_port);
	close(fd);
	return port;
}

static bool
accepts(const test_colfamd *d)
{
	struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t) d->port)};
	int			fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	bool		ok;

	if (fd < 0)
		return false;
	inet_pton(AF_INET, d->host, &sa.sin_addr);
	ok = connect(fd, (struct sockaddr *) &sa, sizeof(sa)) == 0;
	close(fd);
	return ok;
}

static void
spawn(test_colfamd *d)
{
	char		port[16];
	const char *argv[16 + MAX_EXTRA];
	int			argc = 0;
	pid_t		pid;

	snprintf(port, sizeof(port), "%d", d->port);
	argv[argc++] = d->bin;
	argv[argc++] = "--rpc_address";
	argv[argc++] = d->host;
	argv[argc++] = "--rpc_port";
	argv[argc++] = port;
	argv[argc++] = "--listen_address";
	argv[argc++] = d->host;
	argv[argc++] = "--data_file_directories";
	argv[argc++] = test_path(d->dir, "data");
	argv[argc++] = "--commitlog_directory";
	argv[argc++] = test_path(d->dir, "commitlog");
	for (int i = 0; d->extra[i]; i++)
		argv[argc++] = d->extra[i];
	argv[argc] = NULL;

	d->log_at = log_size(d);
	fflush(NULL);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0)
	{
		int			fd = open(test_path(d->dir, "colfamd.log"),
							  O_WRONLY | O_CREAT | O_APPEND, 0644);

		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (fd < 0 || dup2(fd, 1) < 0 || dup2(fd, 2) < 0)
			_exit(127);
		fd = open("/dev/null", O_RDONLY);
		if (fd >= 0)
			dup2(fd, 0);
		for (int i = 3; i < 1024; i++)
			close(i);
		execv(d->bin, (char *const *) argv);
		fprintf(stderr, "exec %s: %s\n", d->bin, strerror(errno));
		_exit(127);
	}
	d->pid = pid;
}

/*
 * Spawns and waits for the port; false if colfamd exited with status 1 saying the
 * port is in use. Only this start's part of the log counts: a busy port on an earlier
 * start must not turn a later start's other failure into a retry.
 */
static bool
start_once(test_colfamd *d)
{
	long		deadline = test_clock_ms() + START_WAIT_MS;

	spawn(d);
	while (test_clock_ms() < deadline)
	{
		int			st;
		pid_t		r = waitpid(d->pid, &st, WNOHANG);

		if (r == d->pid)
		{
			d->pid = 0;
			if (WIFEXITED(st) && WEXITSTATUS(st) == 1 &&
				log_contains_from(d, d->log_at, "in use"))
				return false;
			print_log_tail(d);
			fail_msg("colfamd on %s exited during start-up (%s %d)", d->hosts,
					 WIFEXITED(st) ? "status" : "signal",
					 WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st));
		}
		if (accepts(d))
			return true;
		sleep_ms(20);
	}
	print_log_tail(d);
	kill(d->pid, SIGKILL);
	waitpid(d->pid, NULL, 0);
	d->pid = 0;
	fail_msg("colfamd on %s accepted no connection within %d ms", d->hosts, START_WAIT_MS);
	return false;
}

static void
set_port(test_colfamd *d, int port)
{
	d->port = port;
	snprintf(d->hosts, sizeof(d->hosts), "%s:%d", d->host, port);
}

test_colfamd *
test_colfamd_start(const char *host, const char *const *extra_args)
{
	test_colfamd *d = calloc(1, sizeof(*d));
	int			n = 0;

	assert_non_null(d);
	find_binary(d);
	snprintf(d->host, sizeof(d->host), "%s", host);
	d->dir = test_tmpdir_new("cf_colfamd");
	assert_non_null(d->dir);
	for (; extra_args && extra_args[n]; n++)
	{
		assert_true(n < MAX_EXTRA);
		d->extra[n] = strdup(extra_args[n]);
	}
	d->extra[n] = NULL;
	for (int attempt = 0; attempt < 5; attempt++)
	{
		set_port(d, free_port(host));
		if (start_once(d))
			return d;
	}
	print_log_tail(d);
	fail_msg("colfamd on %s: the port was taken 5 times in a row", host);
	return NULL;
}

void
test_colfamd_restart(test_colfamd *d)
{
	assert_int_equal(d->pid, 0);
	/* same port: a client's host list stays valid; retry only if someone took it */
	for (int attempt = 0; attempt < 50; attempt++)
	{
		if (start_once(d))
			return;
		sleep_ms(100);
	}
	print_log_tail(d);
	fail_msg("colfamd: %s stayed busy; cannot restart there", d->hosts);
}

void
test_colfamd_stop(test_colfamd *d)
{
	long		deadline = test_clock_ms() + STOP_WAIT_MS;
	int			st = 0;

	if (d->pid == 0)
		return;
	kill(d->pid, SIGTERM);
	for (;;)
	{
		pid_t		r = waitpid(d->pid, &st, WNOHANG);

		if (r == d->pid)
			break;
		if (test_clock_ms() > deadline)
		{
			kill(d->pid, SIGKILL);
			waitpid(d->pid, &st, 0);
			d->pid = 0;
			print_log_tail(d);
			fail_msg("colfamd on %s ignored SIGTERM for %d ms", d->hosts, STOP_WAIT_MS);
		}
		sleep_ms(20);
	}
	d->pid = 0;
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
	{
		print_log_tail(d);
		fail_msg("colfamd on %s: SIGTERM ended it with %s %d, not status 0", d->hosts,
				 WIFEXITED(st) ? "status" : "signal",
				 WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st));
	}
}

void
test_colfamd_kill(test_colfamd *d)
{
	if (d->pid == 0)
		return;
	kill(d->pid, SIGKILL);
	waitpid(d->pid, NULL, 0);
	d->pid = 0;
}

void
test_colfamd_free(test_colfamd *d)
{
	if (d == NULL)
		return;
	test_colfamd_kill(d);
	for (int i = 0; d->extra[i]; i++)
		free(d->extra[i]);
	if (getenv("COLFAMD_KEEP"))
		fprintf(stderr, "colfamd: kept %s\n", d->dir);
	else
		test_tmpdir_free(d->dir);
	free(d);
}

const char *
test_colfamd_hosts(const test_colfamd *d)
{
	return d->hosts;
}

const char *
test_colfamd_dir(const test_colfamd *d)
{
	return d->dir;
}

pid_t
test_colfamd_pid(const test_colfamd *d)
{
	return d->pid;
}

long
test_colfamd_rss_kb(const test_colfamd *d)
{
	char		path[64];
	char		line[256];
	long		kb = -1;
	FILE	   *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int) d->pid);
	if ((f = fopen(path, "r")) == NULL)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "VmRSS: %ld kB", &kb) == 1)
			break;
	fclose(f);
	return kb;
}

bool
test_colfamd_log_contains(const test_colfamd *d, const char *text)
{
	return log_contains_from(d, 0, text);
}
