/*
 * tests/unit/test_server_loop.c — server/server, loop, workers: the event loops with a
 * test handler (echo, uppercase, sleep, oneway, close, big reply, gate) on 127.0.0.1
 * and ephemeral ports. Many concurrent clients, pipelined order, frame cap, connection
 * cap, garbage, unframed clients, a client that never reads, slow clients, shutdown
 * with requests in flight and past its deadline, a busy port; a route that runs some
 * requests inline on the loops (order kept, lanes, the slow-request back-off).
 *
 * Client sockets have 10 s receive/send timeouts, so a broken server fails a test
 * instead of hanging it. Client threads record failures for the test's thread to
 * assert (no cmocka outside it).
 */
#include "support/cmocka_prelude.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "server/server.h"
#include "support/colfamd.h"
#include "support/sockio.h"
#include "support/tmpdir.h"
#include "thrift/cassandra.h"
#include "util/log.h"
#include "util/unixsock.h"

/* ---- the log, captured ---- */

static pthread_mutex_t log_mu = PTHREAD_MUTEX_INITIALIZER;
static char log_text[1 << 16];
static size_t log_len;

static void
capture_sink(void *arg, cf_log_level level, const char *line)
{
	size_t		n = strlen(line);

	(void) arg;
	(void) level;
	pthread_mutex_lock(&log_mu);
	if (log_len + n + 2 < sizeof(log_text))
	{
		memcpy(log_text + log_len, line, n);
		log_len += n;
		log_text[log_len++] = '\n';
		log_text[log_len] = '\0';
	}
	pthread_mutex_unlock(&log_mu);
}

static void
log_clear(void)
{
	pthread_mutex_lock(&log_mu);
	log_len = 0;
	log_text[0] = '\0';
	pthread_mutex_unlock(&log_mu);
}

/* Waits up to 5 s for a log line holding every needle. */
static bool
log_has(const char *a, const char *b)
{
	for (int i = 0; i < 500; i++)
	{
		bool		found = false;

		pthread_mutex_lock(&log_mu);
		for (char *line = log_text; *line && !found;)
		{
			char	   *end = strchr(line, '\n');

			*end = '\0';
			found = strstr(line, a) && (b == NULL || strstr(line, b));
			*end = '\n';
			line = end + 1;
		}
		pthread_mutex_unlock(&log_mu);
		if (found)
			return true;
		usleep(10000);
	}
	pthread_mutex_lock(&log_mu);
	print_message("log:\n%s", log_text);
	pthread_mutex_unlock(&log_mu);
	return false;
}

/* ---- the test handler ---- */

typedef struct th
{
	atomic_int	opened;
	atomic_int	closed;
	atomic_int	handled;
	atomic_int	in_handle;
	atomic_int	parallel;
	atomic_int	max_parallel;
	atomic_int	overlaps;		/* two handles of one session at once: must stay 0 */
	atomic_int	drained;
	atomic_int	busy_at_drain;	/* handles running or sessions open when drain ran */
	pthread_mutex_t gate_mu;
	pthread_cond_t gate_cv;
	bool		gate_open;
} th;

typedef struct sess
{
	th		   *t;
	atomic_int	active;
	cf_peer_info peer;
} sess;

static void *
h_open(void *ctx, const cf_peer_info *peer)
{
	th		   *t = ctx;
	sess	   *s = calloc(1, sizeof(*s));

	s->t = t;
	s->peer = *peer;
	atomic_fetch_add(&t->opened, 1);
	return s;
}

static void
h_close(void *ctx, void *session)
{
	th		   *t = ctx;
	sess	   *s = session;

	if (atomic_load(&s->active) != 0)
		atomic_fetch_add(&t->overlaps, 1);
	free(s);
	atomic_fetch_add(&t->closed, 1);
}

static long
arg_of(cf_slice req)
{
	char		num[24];
	size_t		n = 0;

	for (size_t i = 1; i < req.len && n < sizeof(num) - 1 && isdigit(req.p[i]); i++)
		num[n++] = (char) req.p[i];
	num[n] = '\0';
	return atol(num);
}

static bool
h_handle(void *ctx, void *session, cf_slice req, cf_buf *reply)
{
	th		   *t = ctx;
	sess	   *s = session;
	bool		keep = true;
	int			par;

	if (atomic_fetch_add(&s->active, 1) != 0)
		atomic_fetch_add(&t->overlaps, 1);
	atomic_fetch_add(&t->in_handle, 1);
	par = atomic_fetch_add(&t->parallel, 1) + 1;
	for (int m = atomic_load(&t->max_parallel); par > m &&
		 !atomic_compare_exchange_weak(&t->max_parallel, &m, par);)
		;
	switch (req.len ? req.p[0] : 'E')
	{
		case 'S':				/* S<ms>:...: sleep, then echo */
			usleep((useconds_t) arg_of(req) * 1000);
			cf_buf_put(reply, req.p, req.len);
			break;
		case 'P':				/* P<ms>:...: spin (never block), then echo */
			{
				int64_t		until = test_clock_ms() + arg_of(req);

				while (test_clock_ms() < until)
					;
				cf_buf_put(reply, req.p, req.len);
			}
			break;
		case 'U':
			for (size_t i = 0; i < req.len; i++)
				cf_buf_put_u8(reply, (uint8_t) toupper(req.p[i]));
			break;
		case 'W':				/* W...: the CPU the handler runs on, as text */
			{
				char		cpu[16];

				snprintf(cpu, sizeof(cpu), "%d", sched_getcpu());
				cf_buf_put(reply, cpu, strlen(cpu));
			}
			break;
		case 'O':				/* oneway: nothing */
			break;
		case 'C':				/* echo, then close */
			cf_buf_put(reply, req.p, req.len);
			keep = false;
			break;
		case 'B':				/* B<n>: a reply of n bytes */
			{
				uint8_t    *p = cf_buf_extend(reply, (size_t) arg_of(req));

				if (p)
					memset(p, 'x', (size_t) arg_of(req));
			}
			break;
		case 'G':				/* wait for the gate, then echo */
			pthread_mutex_lock(&t->gate_mu);
			while (!t->gate_open)
				pthread_cond_wait(&t->gate_cv, &t->gate_mu);
			pthread_mutex_unlock(&t->gate_mu);
			cf_buf_put(reply, req.p, req.len);
			break;
		default:
			cf_buf_put(reply, req.p, req.len);
			break;
	}
	atomic_fetch_sub(&t->parallel, 1);
	atomic_fetch_sub(&t->in_handle, 1);
	atomic_fetch_add(&t->handled, 1);
	atomic_fetch_sub(&s->active, 1);
	return keep;
}

/* The test route: a request ending in '@' runs inline in lane 1, in '#' in lane 2. */
static int
h_route(void *ctx, void *session, cf_slice req)
{
	(void) ctx;
	(void) session;
	if (req.len > 0 && req.p[req.len - 1] == '@')
		return 1;
	if (req.len > 0 && req.p[req.len - 1] == '#')
		return 2;
	return CF_SERVER_POOL;
}

static void
h_drain(void *ctx)
{
	th		   *t = ctx;

	atomic_fetch_add(&t->drained, 1);
	atomic_store(&t->busy_at_drain, atomic_load(&t->in_handle) +
				 atomic_load(&t->opened) - atomic_load(&t->closed));
}

static void
gate_open(th *t)
{
	pthread_mutex_lock(&t->gate_mu);
	t->gate_open = true;
	pthread_cond_broadcast(&t->gate_cv);
	pthread_mutex_unlock(&t->gate_mu);
}

/* ---- fixture ---- */

typedef struct fx
{
	th			t;
	cf_server_handler h;
	cf_server_options o;
	cf_server  *srv;
	uint16_t	port;
} fx;

static int
setup(void **state)
{
	fx		   *f = calloc(1, sizeof(*f));

	pthread_mutex_init(&f->t.gate_mu, NULL);
	pthread_cond_init(&f->t.gate_cv, NULL);
	f->h = (cf_server_handler) {
		.session_open = h_open,.session_close = h_close,.handle = h_handle,
		.drain = h_drain,.ctx = &f->t,
	};
	f->o = (cf_server_options) {
		.address = "127.0.0.1",.port = 0,.io_threads = 2,.worker_threads = 4,
		.max_frame = 1u << 20,.max_connections = 256,.conn_buffer_limit = 1u << 20,
		.keepalive = true,
	};
	log_clear();
	cf_log_set_sink(capture_sink, NULL);
	cf_log_set_level(CF_LOG_DEBUG);
	*state = f;
	return 0;
}

static int
teardown(void **state)
{
	fx		   *f = *state;

	if (getenv("SHOWLOG"))
		print_message("log:\n%s", log_text);

	gate_open(&f->t);
	cf_server_free(f->srv);
	cf_log_set_sink(NULL, NULL);
	cf_log_set_level(CF_LOG_INFO);
	pthread_mutex_destroy(&f->t.gate_mu);
	pthread_cond_destroy(&f->t.gate_cv);
	free(f);
	return 0;
}

static void
start(fx *f)
{
	cf_status  *s = cf_server_create(&f->o, &f->h, &f->srv);

	if (s)
		fail_msg("create: %s", cf_status_msg(s));
	if ((s = cf_server_start(f->srv)) != NULL)
		fail_msg("start: %s", cf_status_msg(s));
	f->port = cf_server_port(f->srv);
	assert_true(f->port != 0);
}

static void
stop(fx *f)
{
	cf_status  *s = cf_server_shutdown(f->srv, 5000);

	if (s)
		fail_msg("shutdown: %s", cf_status_msg(s));
	cf_server_free(f->srv);
	f->srv = NULL;
}

/* Waits up to 5 s for the server's open connections to drop to n. */
static bool
wait_connections(cf_server *srv, uint64_t n)
{
	cf_server_stats st;

	for (int i = 0; i < 500; i++)
	{
		cf_server_stats_get(srv, &st);
		if (st.connections == n)
			return true;
		usleep(10000);
	}
	return false;
}

/* ---- a client ---- */

/* Gives a client socket 10 s send and receive timeouts, so a stuck test fails. */
static void
cli_timeouts(int fd)
{
	struct timeval tv = {10, 0};

	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
}

static int
cli_connect_opt(uint16_t port, int rcvbuf)
{
	int			fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	struct sockaddr_in sa = {.sin_family = AF_INET,.sin_port = htons(port)};

	if (fd < 0)
		return -1;
	cli_timeouts(fd);
	if (rcvbuf)
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (connect(fd, (struct sockaddr *) &sa, sizeof(sa)) != 0)
	{
		close(fd);
		return -1;
	}
	return fd;
}

static int
cli_connect(uint16_t port)
{
	return cli_connect_opt(port, 0);
}

static bool
send_frame(int fd, const void *p, size_t n)
{
	uint8_t    *b = malloc(4 + n);
	bool		ok;

	cf_store_be32(b, (uint32_t) n);
	memcpy(b + 4, p, n);
	ok = test_send_all(fd, b, 4 + n);
	free(b);
	return ok;
}

/* A frame's payload, malloc'd; NULL at EOF, error or timeout. */
static uint8_t *
recv_frame(int fd, size_t *len)
{
	uint8_t		hdr[4];
	uint8_t    *b;

	if (!test_recv_all(fd, hdr, 4))
		return NULL;
	*len = cf_load_be32(hdr);
	b = malloc(*len + 1);
	if (!test_recv_all(fd, b, *len))
	{
		free(b);
		return NULL;
	}
	b[*len] = '\0';
	return b;
}

/* true when the server closes fd (EOF or reset) within the receive timeout. */
static bool
closed_by_server(int fd)
{
	uint8_t		buf[4096];

	for (;;)
	{
		ssize_t		r = recv(fd, buf, sizeof(buf), 0);

		if (r == 0 || (r < 0 && (errno == ECONNRESET || errno == EPIPE)))
			return true;
		if (r < 0 && errno != EINTR)
			return false;		/* timeout */
	}
}

/* Sends text as a frame and expects want back. */
static bool
roundtrip(int fd, const char *text, const char *want)
{
	size_t		len;
	uint8_t    *r;
	bool		ok;

	if (!send_frame(fd, text, strlen(text)) || (r = recv_frame(fd, &len)) == NULL)
		return false;
	ok = len == strlen(want) && memcmp(r, want, len) == 0;
	if (!ok)
		print_message("got \"%.*s\", wanted \"%s\"\n", (int) len, r, want);
	free(r);
	return ok;
}

/* ---- tests ---- */

static void
echo_uppercase_and_peer(void **state)
{
	fx		   *f = *state;
	int			fd;
	struct sockaddr_in me;
	socklen_t	mel = sizeof(me);
	char		want[64];
	cf_server_stats st;

	start(f);
	fd = cli_connect(f->port);
	assert_true(fd >= 0);
	assert_true(roundtrip(fd, "Echo me", "Echo me"));
	assert_true(roundtrip(fd, "Up and away", "UP AND AWAY"));
	assert_int_equal(atomic_load(&f->t.opened), 1);
	/* the session saw this client's address */
	getsockname(fd, (struct sockaddr *) &me, &mel);
	snprintf(want, sizeof(want), "127.0.0.1:%u", ntohs(me.sin_port));
	assert_true(log_has("connection 1 from", want));
	close(fd);
	assert_true(wait_connections(f->srv, 0));
	assert_int_equal(atomic_load(&f->t.closed), 1);
	cf_server_stats_get(f->srv, &st);
	assert_int_equal(st.accepted, 1);
	assert_int_equal(st.requests, 2);
	assert_int_equal(st.bytes_in, 4 + 7 + 4 + 11);
	assert_int_equal(st.bytes_out, 4 + 7 + 4 + 11);
	stop(f);
	assert_int_equal(atomic_load(&f->t.drained), 1);
	assert_int_equal(atomic_load(&f->t.busy_at_drain), 0);
}

typedef struct client_job
{
	uint16_t	port;
	int			requests;
	unsigned	seed;
	int			failures;
	char		why[128];
} client_job;

static void *
client_main(void *arg)
{
	client_job *j = arg;
	int			fd = cli_connect(j->port);
	uint8_t    *buf = malloc(20001);

	if (fd < 0)
	{
		j->failures++;
		snprintf(j->why, sizeof(j->why), "connect: %s", strerror(errno));
		free(buf);
		return NULL;
	}
	for (int i = 0; i < j->requests && !j->failures; i++)
	{
		size_t		n = 1 + (size_t) (rand_r(&j->seed) % 20000);
		size_t		len;
		uint8_t    *r;

		/* S1 on every tenth request: workers must overlap for this to be quick */
		for (size_t k = 0; k < n; k++)
			buf[k] = (uint8_t) ('a' + (k + (size_t) i) % 26);
		if (i % 10 == 0 && n > 3)
			memcpy(buf, "S1:", 3);
		else
			buf[0] = 'E';
		if (!send_frame(fd, buf, n) || (r = recv_frame(fd, &len)) == NULL)
		{
			j->failures++;
			snprintf(j->why, sizeof(j->why), "request %d: no reply", i);
			break;
		}
		if (len != n || memcmp(r, buf, n) != 0)
		{
			j->failures++;
			snprintf(j->why, sizeof(j->why), "request %d: wrong reply (%zu bytes)", i, len);
		}
		free(r);
	}
	close(fd);
	free(buf);
	return NULL;
}

static void
many_concurrent_clients(void **state)
{
	fx		   *f = *state;
	enum
	{
	NCLIENTS = 48, NREQ = 100};
	pthread_t	tids[NCLIENTS];
	client_job	jobs[NCLIENTS];
	cf_server_stats st;

	f->o.worker_threads = 8;
	start(f);
	for (int i = 0; i < NCLIENTS; i++)
	{
		jobs[i] = (client_job) {.port = f->port,.requests = NREQ,.seed = (unsigned) i + 1};
		assert_int_equal(pthread_create(&tids[i], NULL, client_main, &jobs[i]), 0);
	}
	for (int i = 0; i < NCLIENTS; i++)
		pthread_join(tids[i], NULL);
	for (int i = 0; i < NCLIENTS; i++)
		if (jobs[i].failures)
			fail_msg("client %d: %s", i, jobs[i].why);
	assert_true(wait_connections(f->srv, 0));
	cf_server_stats_get(f->srv, &st);
	assert_int_equal(st.accepted, NCLIENTS);
	assert_int_equal(st.requests, NCLIENTS * NREQ);
	assert_int_equal(atomic_load(&f->t.opened), NCLIENTS);
	assert_int_equal(atomic_load(&f->t.closed), NCLIENTS);
	assert_int_equal(atomic_load(&f->t.overlaps), 0);
	/* requests of different connections ran at once */
	assert_true(atomic_load(&f->t.max_parallel) > 1);
	stop(f);
}

/* Pipelined requests are answered in order even when earlier ones are slower. */
static void
pipelined_replies_in_order(void **state)
{
	fx		   *f = *state;
	enum
	{
	N = 100};
	char	   *all = malloc(N * 32);
	size_t		len = 0;
	int			fd;

	start(f);
	fd = cli_connect(f->port);
	assert_true(fd >= 0);
	for (int i = 0; i < N; i++)
	{
		char		msg[24];
		int			n = snprintf(msg, sizeof(msg), "S%d:%03d", (N - i) % 3, i);

		cf_store_be32((uint8_t *) all + len, (uint32_t) n);
		memcpy(all + len + 4, msg, (size_t) n);
		len += 4 + (size_t) n;
	}
	assert_true(test_send_all(fd, all, len));	/* every request in one write */
	for (int i = 0; i < N; i++)
	{
		char		want[24];
		size_t		rl;
		uint8_t    *r = recv_frame(fd, &rl);

		snprintf(want, sizeof(want), "S%d:%03d", (N - i) % 3, i);
		assert_non_null(r);
		assert_int_equal(rl, strlen(want));
		assert_memory_equal(r, want, rl);
		free(r);
	}
	assert_int_equal(atomic_load(&f->t.overlaps), 0);
	close(fd);
	free(all);
	stop(f);
}

static void
inline_mode_serves_in_order(void **state)
{
	fx		   *f = *state;
	int			fd;
	size_t		l;
	uint8_t    *r;

	f->o.worker_threads = 0;
	f->o.io_threads = 1;
	start(f);
	fd = cli_connect(f->port);
	assert_true(fd >= 0);
	assert_true(send_frame(fd, "one!", 4) && send_frame(fd, "Oneway", 6) &&
				send_frame(fd, "two!", 4) && send_frame(fd, "Uthree", 6));
	r = recv_frame(fd, &l);
	assert_non_null(r);
	assert_string_equal((char *) r, "one!");
	free(r);
	r = recv_frame(fd, &l);
	assert_non_null(r);
	assert_string_equal((char *) r, "two!");
	free(r);
	r = recv_frame(fd, &l);
	assert_non_null(r);
	assert_string_equal((char *) r, "UTHREE");
	free(r);
	assert_int_equal(atomic_load(&f->t.overlaps), 0);
	close(fd);
	stop(f);
}

static void
oneway_sends_nothing(void **state)
{
	fx		   *f = *state;
	int			fd;

	start(f);
	fd = cli_connect(f->port);
	assert_true(send_frame(fd, "Oneway call", 11));
	/* the next reply is the echo's: the oneway's is not there */
	assert_true(roundtrip(fd, "Echo", "Echo"));
	close(fd);
	stop(f);
	assert_int_equal(atomic_load(&f->t.handled), 2);
}

static void
frame_cap_and_short_frames(void **state)
{
	fx		   *f = *state;
	int			fd;
	char	   *big = malloc(1025);
	uint8_t		hdr[4];

	f->o.max_frame = 1024;
	start(f);
	memset(big, 'E', 1025);

	fd = cli_connect(f->port);
	assert_true(send_frame(fd, big, 1024));	/* exactly the cap: served */
	{
		size_t		l;
		uint8_t    *r = recv_frame(fd, &l);

		assert_non_null(r);
		assert_int_equal(l, 1024);
		free(r);
	}
	assert_true(send_frame(fd, big, 1025));
	assert_true(closed_by_server(fd));
	close(fd);
	assert_true(log_has("frame of 1025 bytes exceeds the 1024-byte cap", "127.0.0.1:"));

	/* a length below 4: closed, even before the bytes it announced */
	fd = cli_connect(f->port);
	cf_store_be32(hdr, 2);
	assert_true(test_send_all(fd, hdr, 4));
	assert_true(closed_by_server(fd));
	close(fd);
	assert_true(log_has("frame length 2 is below the 4-byte minimum", "127.0.0.1:"));

	/* a huge length is refused at once, without waiting for its bytes */
	fd = cli_connect(f->port);
	cf_store_be32(hdr, 0x7fffffff);
	assert_true(test_send_all(fd, hdr, 4));
	assert_true(closed_by_server(fd));
	close(fd);
	free(big);
	{
		cf_server_stats st;

		cf_server_stats_get(f->srv, &st);
		assert_int_equal(st.protocol_errors, 3);
	}
	stop(f);
}

static void
unframed_client_gets_an_exception(void **state)
{
	fx		   *f = *state;
	int			fd;
	cf_buf		msg = CF_BUF_INIT;
	uint8_t		reply[256];
	size_t		got = 0;
	cf_rd		rd;
	cf_t_message_header h;

	start(f);
	fd = cli_connect(f->port);
	/* an unframed strict CALL of describe_version, seqid 9 */
	cf_buf_put_u32(&msg, 0x80010001);
	cf_buf_put_u32(&msg, 16);
	cf_buf_put(&msg, "describe_version", 16);
	cf_buf_put_u32(&msg, 9);
	cf_buf_put_u8(&msg, 0);
	assert_true(test_send_all(fd, msg.data, msg.len));
	for (;;)
	{
		ssize_t		r = recv(fd, reply + got, sizeof(reply) - got, 0);

		if (r <= 0)
			break;
		got += (size_t) r;
	}
	/* an unframed EXCEPTION, then EOF */
	cf_rd_init(&rd, reply, got);
	assert_null(cf_t_read_message_header(&rd, &h));
	assert_int_equal(h.type, CF_T_EXCEPTION);
	assert_int_equal(h.seqid, 9);
	assert_memory_equal(h.name.p, "describe_version", 16);
	assert_non_null(memmem(reply, got, "unframed transport is not supported; use "
						   "TFramedTransport", 57));
	assert_int_equal(cf_load_be32(reply + got - 5), CF_T_APP_PROTOCOL_ERROR);
	assert_true(log_has("unframed transport is not supported; use TFramedTransport",
						"127.0.0.1:"));
	close(fd);
	cf_buf_free(&msg);
	stop(f);
}

static void
connection_cap(void **state)
{
	fx		   *f = *state;
	int			fds[3];
	int			extra;
	cf_server_stats st;

	f->o.max_connections = 3;
	start(f);
	for (int i = 0; i < 3; i++)
	{
		fds[i] = cli_connect(f->port);
		assert_true(fds[i] >= 0);
		assert_true(roundtrip(fds[i], "Ehlo", "Ehlo"));
	}
	/* the kernel completes the handshake; colfamd closes it at once */
	extra = cli_connect(f->port);
	assert_true(extra >= 0);
	send_frame(extra, "Ehlo", 4);
	assert_true(closed_by_server(extra));
	close(extra);
	assert_true(log_has("refusing connection from 127.0.0.1:", "3 connections are open (rpc_max_connections)"));
	cf_server_stats_get(f->srv, &st);
	assert_int_equal(st.refused, 1);
	assert_int_equal(st.connections, 3);
	/* the others still work, and a freed slot is taken again */
	assert_true(roundtrip(fds[1], "Estill", "Estill"));
	close(fds[0]);
	assert_true(wait_connections(f->srv, 2));
	extra = cli_connect(f->port);
	assert_true(roundtrip(extra, "Eback", "Eback"));
	close(extra);
	close(fds[1]);
	close(fds[2]);
	stop(f);
}

static void
garbage_and_closing_handlers(void **state)
{
	fx		   *f = *state;
	int			good;
	int			bad;
	uint8_t		junk[4096];
	unsigned	seed = 7;

	start(f);
	good = cli_connect(f->port);
	assert_true(roundtrip(good, "Efirst", "Efirst"));
	for (int round = 0; round < 20; round++)
	{
		bad = cli_connect(f->port);
		for (size_t i = 0; i < sizeof(junk); i++)
			junk[i] = (uint8_t) rand_r(&seed);
		junk[0] |= 0x10;		/* a length over the 1 MiB cap */
		test_send_all(bad, junk, sizeof(junk));
		assert_true(closed_by_server(bad));
		close(bad);
	}
	assert_true(roundtrip(good, "Estill fine", "Estill fine"));

	/* a handler returning false: the reply is sent, then the connection closed */
	bad = cli_connect(f->port);
	assert_true(send_frame(bad, "Close me", 8) && send_frame(bad, "Enever", 6));
	{
		size_t		l;
		uint8_t    *r = recv_frame(bad, &l);

		assert_non_null(r);
		assert_string_equal((char *) r, "Close me");
		free(r);
	}
	assert_true(closed_by_server(bad));
	close(bad);

	/* a reply over the frame cap: the connection is closed, with an error logged */
	bad = cli_connect(f->port);
	assert_true(send_frame(bad, "B2000000", 8));
	assert_true(closed_by_server(bad));
	close(bad);
	assert_true(log_has("a reply failed (", "closing the connection"));
	assert_true(roundtrip(good, "Elast", "Elast"));
	close(good);
	stop(f);
}

/* A half-sent frame holds only its own connection. */
static void
slow_client_does_not_hold_others(void **state)
{
	fx		   *f = *state;
	int			slow;
	int			other;
	uint8_t		part[4 + 10];
	int64_t		t0;

	start(f);
	slow = cli_connect(f->port);
	cf_store_be32(part, 100);
	memcpy(part + 4, "Eslowslows", 10);
	assert_true(test_send_all(slow, part, sizeof(part)));
	t0 = test_clock_ms();
	for (int i = 0; i < 50; i++)
	{
		other = cli_connect(f->port);
		assert_true(roundtrip(other, "Equick", "Equick"));
		close(other);
	}
	assert_true(test_clock_ms() - t0 < 5000);
	close(slow);
	stop(f);
}

/* Request i of the never-reading client: 'E', its index in 8 digits, filler. */
#define NR_REQ 8192
static void
nr_request(uint8_t *out, size_t i)
{
	char		idx[16];

	cf_store_be32(out, NR_REQ);
	memset(out + 4, 'x', NR_REQ);
	snprintf(idx, sizeof(idx), "E%08zu", i);
	memcpy(out + 4, idx, 9);
}

/*
 * A client that sends and never reads: once its waiting requests and unsent replies
 * pass the limit the server stops reading it, so what it can push is bounded by the
 * limit plus the kernel's buffers; others are served meanwhile; when it finally reads
 * it gets every reply, in order.
 */
static void
client_that_never_reads(void **state)
{
	fx		   *f = *state;
	const size_t fr = 4 + NR_REQ;
	uint8_t    *req = malloc(fr);
	uint8_t    *rep = malloc(fr);
	size_t		rep_got = 0;
	size_t		replies = 0;
	int			fd;
	int			sb = 16 * 1024;
	size_t		nreq = 0;		/* requests begun */
	size_t		off = 0;		/* bytes of the current one sent */
	cf_server_stats st;
	int64_t		stalled_since = -1;

	f->o.conn_buffer_limit = 64 * 1024;
	f->o.send_buffer = 16 * 1024;
	f->o.recv_buffer = 16 * 1024;
	start(f);
	fd = cli_connect_opt(f->port, 16 * 1024);
	assert_true(fd >= 0);
	setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sb, sizeof(sb));
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);

	/* push until writes have stalled for 300 ms; 64 MiB would mean no bound at all */
	while (nreq * fr < (64u << 20))
	{
		ssize_t		w;

		if (off == 0 || off == fr)
		{
			nr_request(req, nreq++);
			off = 0;
		}
		w = send(fd, req + off, fr - off, MSG_NOSIGNAL);
		if (w > 0)
		{
			off += (size_t) w;
			stalled_since = -1;
			continue;
		}
		assert_true(w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK));
		if (stalled_since < 0)
			stalled_since = test_clock_ms();
		else if (test_clock_ms() - stalled_since > 300)
			break;
		poll(&(struct pollfd) {.fd = fd,.events = POLLOUT}, 1, 20);
	}
	assert_true(nreq * fr < (64u << 20));
	cf_server_stats_get(f->srv, &st);
	assert_true(st.read_pauses >= 1);
	/* bounded: the limit, plus one read (64 KiB) and one reply past it */
	if (st.peak_buffered > 64 * 1024 + 64 * 1024 + fr)
		fail_msg("a connection buffered %llu bytes", (unsigned long long) st.peak_buffered);

	/* another client is served meanwhile, promptly */
	{
		int			other = cli_connect(f->port);
		int64_t		t0 = test_clock_ms();

		assert_true(roundtrip(other, "Eanyone?", "Eanyone?"));
		assert_true(test_clock_ms() - t0 < 2000);
		close(other);
	}

	/* finish the request begun, and read: every reply comes, in order */
	while (off < fr || replies < nreq)
	{
		struct pollfd p = {.fd = fd,.events = POLLIN | (off < fr ? POLLOUT : 0)};

		assert_true(poll(&p, 1, 10000) > 0);
		if ((p.revents & POLLOUT) && off < fr)
		{
			ssize_t		w = send(fd, req + off, fr - off, MSG_NOSIGNAL);

			if (w > 0)
				off += (size_t) w;
		}
		if (p.revents & POLLIN)
		{
			ssize_t		r = recv(fd, rep + rep_got, fr - rep_got, 0);

			assert_true(r > 0);
			rep_got += (size_t) r;
			if (rep_got == fr)
			{
				char		idx[16];

				assert_int_equal(cf_load_be32(rep), NR_REQ);
				snprintf(idx, sizeof(idx), "E%08zu", replies);
				if (memcmp(rep + 4, idx, 9) != 0)
					fail_msg("reply %zu is for %.9s", replies, rep + 4);
				replies++;
				rep_got = 0;
			}
		}
	}
	cf_server_stats_get(f->srv, &st);
	assert_int_equal(st.requests, nreq + 1);
	close(fd);
	free(req);
	free(rep);
	stop(f);
}

/*
 * Small requests with large replies, never read: the server stops running them once
 * the unsent replies pass the limit, instead of buffering every reply.
 */
static void
big_replies_wait(fx *f)
{
	enum
	{
	N = 200, REPLY = 100000};
	char		one[4 + 8];
	char	   *all = malloc(N * sizeof(one));
	int			fd;
	cf_server_stats st;

	f->o.conn_buffer_limit = 64 * 1024;
	f->o.send_buffer = 16 * 1024;
	start(f);
	fd = cli_connect_opt(f->port, 16 * 1024);
	assert_true(fd >= 0);
	cf_store_be32((uint8_t *) one, 7);
	memcpy(one + 4, "B100000", 7);
	for (int i = 0; i < N; i++)
		memcpy(all + i * 11, one, 11);
	assert_true(test_send_all(fd, all, N * 11));
	usleep(500000);
	cf_server_stats_get(f->srv, &st);
	if (st.peak_buffered > 64 * 1024 + 64 * 1024 + 4 + REPLY)
		fail_msg("a connection buffered %llu bytes", (unsigned long long) st.peak_buffered);
	/* some ran (the kernel's buffers took their replies), most wait */
	assert_true(atomic_load(&f->t.handled) >= 1);
	assert_true(atomic_load(&f->t.handled) < N / 2);
	for (int i = 0; i < N; i++)
	{
		size_t		l;
		uint8_t    *r = recv_frame(fd, &l);

		if (r == NULL)
			fail_msg("reply %d of %d: %s", i, N, strerror(errno));
		assert_int_equal(l, REPLY);
		free(r);
	}
	assert_int_equal(atomic_load(&f->t.handled), N);
	close(fd);
	free(all);
	stop(f);
}

static void
big_replies_wait_for_the_client(void **state)
{
	big_replies_wait(*state);
}

static void
big_replies_wait_for_the_client_inline(void **state)
{
	fx		   *f = *state;

	f->o.worker_threads = 0;
	big_replies_wait(f);
}

typedef struct shut
{
	cf_server  *srv;
	int			timeout_ms;
	cf_status  *s;
	int64_t		took_ms;
	atomic_int	done;
} shut;

static void *
shutdown_main(void *arg)
{
	shut	   *sh = arg;
	int64_t		t0 = test_clock_ms();

	sh->s = cf_server_shutdown(sh->srv, sh->timeout_ms);
	sh->took_ms = test_clock_ms() - t0;
	atomic_store(&sh->done, 1);
	return NULL;
}

/* Waits up to 5 s for one of the handler's counters to reach n. */
static bool
wait_count(atomic_int *counter, int n)
{
	for (int i = 0; i < 500; i++)
	{
		if (atomic_load(counter) >= n)
			return true;
		usleep(10000);
	}
	return false;
}

static void
shutdown_finishes_requests_in_flight(void **state)
{
	fx		   *f = *state;
	int			a;
	int			b;
	int			idle;
	pthread_t	tid;
	shut		sh = {0};
	int			refused = 0;

	start(f);
	a = cli_connect(f->port);
	b = cli_connect(f->port);
	idle = cli_connect(f->port);
	assert_true(roundtrip(idle, "Ehi!", "Ehi!"));
	assert_true(send_frame(a, "S400:a", 6));
	/* three pipelined: one runs, two wait on the connection */
	assert_true(send_frame(b, "S100:b1", 7) && send_frame(b, "S100:b2", 7) &&
				send_frame(b, "S100:b3", 7));
	assert_true(wait_count(&f->t.in_handle, 2));
	usleep(20000);				/* b2 and b3 are read by now */

	sh.srv = f->srv;
	sh.timeout_ms = 5000;
	assert_int_equal(pthread_create(&tid, NULL, shutdown_main, &sh), 0);
	/* new connections are refused soon */
	for (int i = 0; i < 200 && !refused; i++)
	{
		int			fd = cli_connect(f->port);

		if (fd < 0)
			refused = errno == ECONNREFUSED;
		else
			close(fd);
		if (!refused)
			usleep(5000);
	}
	assert_true(refused);
	{
		size_t		l;
		uint8_t    *r = recv_frame(a, &l);

		assert_non_null(r);
		assert_string_equal((char *) r, "S400:a");
		free(r);
		for (int i = 1; i <= 3; i++)
		{
			char		want[24];

			snprintf(want, sizeof(want), "S100:b%d", i);
			r = recv_frame(b, &l);
			assert_non_null(r);
			assert_string_equal((char *) r, want);
			free(r);
		}
	}
	/* then every connection is closed, the idle one too */
	assert_true(closed_by_server(a));
	assert_true(closed_by_server(b));
	assert_true(closed_by_server(idle));
	pthread_join(tid, NULL);
	if (sh.s)
		fail_msg("shutdown: %s", cf_status_msg(sh.s));
	assert_true(sh.took_ms < 5000);
	assert_int_equal(atomic_load(&f->t.drained), 1);
	assert_int_equal(atomic_load(&f->t.busy_at_drain), 0);
	assert_int_equal(atomic_load(&f->t.handled), 5);
	assert_true(log_has("stopping: no new connections", NULL));
	close(a);
	close(b);
	close(idle);
	cf_server_free(f->srv);
	f->srv = NULL;
}

static void
shutdown_deadline(void **state)
{
	fx		   *f = *state;
	int			fd;
	int			waiting;
	shut		sh = {0};
	pthread_t	tid;

	start(f);
	fd = cli_connect(f->port);
	waiting = cli_connect(f->port);
	assert_true(send_frame(fd, "Gate", 4) && send_frame(fd, "Equeued behind it", 17));
	assert_true(wait_count(&f->t.in_handle, 1));
	/* the idle client's session must be open before the shutdown, or it never opens */
	assert_true(wait_count(&f->t.opened, 2));
	sh.srv = f->srv;
	sh.timeout_ms = 200;
	assert_int_equal(pthread_create(&tid, NULL, shutdown_main, &sh), 0);
	pthread_join(tid, NULL);
	/* the gated request outlives deadline and grace: TIMEOUT, and no drain */
	assert_non_null(sh.s);
	assert_int_equal(cf_status_code(sh.s), CF_ERR_TIMEOUT);
	assert_non_null(strstr(cf_status_msg(sh.s), "1 requests still running"));
	cf_status_free(sh.s);
	assert_true(sh.took_ms >= 200 && sh.took_ms < 4000);
	assert_int_equal(atomic_load(&f->t.drained), 0);
	/* both requests count, whether they went to the worker as one job or as two */
	assert_true(log_has("closing connection from 127.0.0.1:",
						"with 2 unanswered requests at the shutdown deadline"));
	/* the clients were closed at the deadline */
	assert_true(closed_by_server(fd));
	assert_true(closed_by_server(waiting));
	/* free waits for the request to return */
	gate_open(&f->t);
	cf_server_free(f->srv);
	f->srv = NULL;
	assert_int_equal(atomic_load(&f->t.closed), 2);
	assert_int_equal(atomic_load(&f->t.drained), 0);
	close(fd);
	close(waiting);
}

static void
busy_port_and_bad_addresses(void **state)
{
	fx		   *f = *state;
	cf_server  *second = NULL;
	cf_server_options o = f->o;
	cf_status  *s;
	char		want[64];

	start(f);
	o.port = f->port;
	s = cf_server_create(&o, &f->h, &second);
	assert_non_null(s);
	assert_null(second);
	assert_int_equal(cf_status_code(s), CF_ERR_BUSY);
	snprintf(want, sizeof(want), "port %u on 127.0.0.1 is in use", f->port);
	assert_string_equal(cf_status_msg(s), want);
	cf_status_free(s);

	o.port = 0;
	o.address = "256.1.1.1.x";
	s = cf_server_create(&o, &f->h, &second);
	assert_non_null(s);
	assert_int_equal(cf_status_code(s), CF_ERR_INVALID);
	assert_non_null(strstr(cf_status_msg(s), "cannot resolve the address \"256.1.1.1.x\""));
	cf_status_free(s);

	o.address = "192.0.2.1";	/* TEST-NET-1: never this machine's */
	s = cf_server_create(&o, &f->h, &second);
	assert_non_null(s);
	assert_int_equal(cf_status_code(s), CF_ERR_INVALID);
	assert_non_null(strstr(cf_status_msg(s), "192.0.2.1 is not an address of this machine"));
	cf_status_free(s);

	o.address = "127.0.0.1";
	o.max_frame = 2;
	s = cf_server_create(&o, &f->h, &second);
	assert_non_null(s);
	assert_int_equal(cf_status_code(s), CF_ERR_INVALID);
	cf_status_free(s);
	stop(f);
}

/*
 * By N, the CPU this process's thread named cf-loop-N may run on (its
 * Cpus_allowed_list): LOOP_UNPINNED when that is more than one CPU, LOOP_MISSING when
 * there is no such thread.
 */
#define LOOP_MISSING (-1)
#define LOOP_UNPINNED (-2)

static void
loop_cpus(int *cpu, int n)
{
	DIR		   *d = opendir("/proc/self/task");
	struct dirent *e;

	assert_non_null(d);
	for (int i = 0; i < n; i++)
		cpu[i] = LOOP_MISSING;
	while ((e = readdir(d)) != NULL)
	{
		char		path[300];
		char		line[256];
		FILE	   *fp;
		unsigned	idx;
		int			c;
		char		tail;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/self/task/%s/comm", e->d_name);
		if ((fp = fopen(path, "r")) == NULL)
			continue;			/* the thread ended meanwhile */
		if (fscanf(fp, "cf-loop-%u", &idx) != 1 || idx >= (unsigned) n)
		{
			fclose(fp);
			continue;
		}
		fclose(fp);
		snprintf(path, sizeof(path), "/proc/self/task/%s/status", e->d_name);
		assert_non_null(fp = fopen(path, "r"));
		while (fgets(line, sizeof(line), fp))
			if (sscanf(line, "Cpus_allowed_list: %d%c", &c, &tail) == 2)
				cpu[idx] = tail == '\n' ? c : LOOP_UNPINNED;
		fclose(fp);
	}
	closedir(d);
}

/*
 * io_cpus pins loop i to the i-th CPU of the list, round robin past its end, and names
 * the loops; "auto" is every CPU the process may run on; a bad list is refused at
 * create; without io_cpus nothing is pinned.
 */
static void
loops_pinned_to_io_cpus(void **state)
{
	fx		   *f = *state;
	cpu_set_t	allowed;
	int			cpus[CPU_SETSIZE];
	int			n = 0;
	int			got[3];
	char		one[16];
	cf_server  *other = NULL;
	cf_status  *s;

	assert_int_equal(sched_getaffinity(0, sizeof(allowed), &allowed), 0);
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &allowed))
			cpus[n++] = c;

	f->o.io_threads = 3;
	f->o.io_cpus = "auto";
	start(f);
	loop_cpus(got, 3);
	for (int i = 0; i < 3; i++)
		assert_int_equal(got[i], cpus[i % n]);
	assert_true(log_has("event loops pinned to CPUs", ""));
	stop(f);

	snprintf(one, sizeof(one), "%d", cpus[n - 1]);
	f->o.io_cpus = one;
	start(f);
	loop_cpus(got, 3);
	for (int i = 0; i < 3; i++)
		assert_int_equal(got[i], cpus[n - 1]);
	stop(f);

	f->o.io_cpus = NULL;
	start(f);
	loop_cpus(got, 3);
	for (int i = 0; i < 3; i++)		/* named, and free to run on every allowed CPU */
		assert_int_equal(got[i], n > 1 ? LOOP_UNPINNED : cpus[0]);
	stop(f);

	f->o.io_cpus = "0-x";
	s = cf_server_create(&f->o, &f->h, &other);
	assert_non_null(s);
	assert_null(other);
	assert_int_equal(cf_status_code(s), CF_ERR_INVALID);
	assert_non_null(strstr(cf_status_msg(s), "io_cpus: \"0-x\" is not a CPU list"));
	cf_status_free(s);
}

/* A connected unix-domain client socket with 10 s timeouts; -1 on failure. */
static int
cli_connect_unix(const char *path)
{
	int			fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	struct sockaddr_un sa;
	socklen_t	len;
	cf_status  *s;

	if (fd < 0)
		return -1;
	if ((s = cf_unix_sockaddr(path, &sa, &len)) != NULL)
	{
		cf_status_free(s);
		close(fd);
		return -1;
	}
	cli_timeouts(fd);
	if (connect(fd, (struct sockaddr *) &sa, len) != 0)
	{
		close(fd);
		return -1;
	}
	return fd;
}

/*
 * With the loops pinned, a unix-socket client is served by the loop on the CPU it ran
 * on when it connected: from each CPU in turn (the test pins itself there), a request
 * routed inline runs on that CPU.
 */
static void
unix_clients_go_to_the_loop_on_their_cpu(void **state)
{
	fx		   *f = *state;
	cpu_set_t	allowed,
				one;
	int			cpus[CPU_SETSIZE];
	int			n = 0;
	char	   *dir = test_tmpdir_new("cfloop");
	const char *path;

	assert_non_null(dir);
	path = test_path(dir, "sock");
	assert_int_equal(sched_getaffinity(0, sizeof(allowed), &allowed), 0);
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &allowed))
			cpus[n++] = c;
	f->o.unix_path = path;
	f->o.io_threads = (unsigned) (n < 4 ? n : 4);
	f->o.io_cpus = "auto";
	f->h.route = h_route;
	start(f);
	/* twice from each CPU in a row: round robin would send the second elsewhere */
	for (int i = 0; i < (int) f->o.io_threads; i++)
		for (int again = 0; again < 2; again++)
		{
			int			fd;
			char		want[16];

			CPU_ZERO(&one);
			CPU_SET(cpus[i], &one);
			assert_int_equal(sched_setaffinity(0, sizeof(one), &one), 0);
			fd = cli_connect_unix(path);
			assert_true(fd >= 0);
			snprintf(want, sizeof(want), "%d", cpus[i]);
			assert_true(roundtrip(fd, "Where@", want));
			close(fd);
		}
	assert_int_equal(sched_setaffinity(0, sizeof(allowed), &allowed), 0);
	stop(f);
	test_tmpdir_free(dir);
}

/* A client reset while its batch runs: the batch finishes, nothing leaks (ASan). */
static void
reset_while_a_batch_runs(void **state)
{
	fx		   *f = *state;
	int			fd;
	char		all[4 * 11];
	struct linger lg = {1, 0};

	f->o.conn_buffer_limit = 64 * 1024;
	start(f);
	fd = cli_connect(f->port);
	for (int i = 0; i < 4; i++)
	{
		cf_store_be32((uint8_t *) all + i * 11, 7);
		memcpy(all + i * 11 + 4, i == 0 ? "Gate!!!" : "B100000", 7);
	}
	assert_true(test_send_all(fd, all, sizeof(all)));
	assert_true(wait_count(&f->t.in_handle, 1));
	setsockopt(fd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
	close(fd);					/* RST */
	assert_true(log_has("closed", NULL));
	gate_open(&f->t);
	assert_true(wait_connections(f->srv, 0));
	assert_int_equal(atomic_load(&f->t.opened), 1);
	assert_int_equal(atomic_load(&f->t.closed), 1);
	stop(f);
}

/* Freeing a running server with clients and queued work leaks nothing (ASan checks). */
static void
free_without_shutdown(void **state)
{
	fx		   *f = *state;
	int			fd;

	start(f);
	fd = cli_connect(f->port);
	assert_true(send_frame(fd, "S50:x", 5) && send_frame(fd, "Ey", 2));
	assert_true(wait_count(&f->t.in_handle, 1));
	cf_server_free(f->srv);
	f->srv = NULL;
	assert_int_equal(atomic_load(&f->t.opened), atomic_load(&f->t.closed));
	assert_int_equal(atomic_load(&f->t.drained), 0);
	close(fd);
}

/* Starts f's server with the test route and connects a client. */
static int
start_routed(fx *f)
{
	int			fd;

	f->h.route = h_route;
	start(f);
	fd = cli_connect(f->port);
	assert_true(fd >= 0);
	return fd;
}

/* Inline and pooled requests of one pipelining connection still reply in order. */
static void
routed_inline_keeps_order(void **state)
{
	fx		   *f = *state;
	enum
	{
	N = 120};
	static const char *const shape[] = {"aaa@", "S1:b", "Uccc@", "ddd#", "eee@", "S0:f", "ggg#"};
	char	   *all = malloc(N * 32);
	size_t		len = 0;
	uint64_t	want_inline = 0;
	cf_server_stats st;
	int			fd = start_routed(f);

	for (int i = 0; i < N; i++)
	{
		char		msg[24];
		int			n = snprintf(msg, sizeof(msg), "%03d%s", i, shape[i % 7]);

		cf_store_be32((uint8_t *) all + len, (uint32_t) n);
		memcpy(all + len + 4, msg, (size_t) n);
		len += 4 + (size_t) n;
		want_inline += msg[n - 1] == '@' || msg[n - 1] == '#';
	}
	assert_true(test_send_all(fd, all, len));	/* every request in one write */
	for (int i = 0; i < N; i++)
	{
		char		want[24];
		size_t		rl;
		uint8_t    *r = recv_frame(fd, &rl);

		snprintf(want, sizeof(want), "%03d%s", i, shape[i % 7]);
		assert_non_null(r);
		assert_int_equal(rl, strlen(want));
		assert_memory_equal(r, want, rl);
		free(r);
	}
	/*
	 * The first request runs inline; a job for the workers takes every request
	 * waiting, so of the rest only those after such a job's end may.
	 */
	cf_server_stats_get(f->srv, &st);
	assert_int_equal(st.requests, N);
	assert_true(st.inline_requests >= 1 && st.inline_requests <= want_inline);
	/* one at a time, each routed request runs inline */
	for (int i = 0; i < 14; i++)
	{
		char		msg[24];

		snprintf(msg, sizeof(msg), "%s", shape[i % 7]);
		if (msg[0] == 'U')
			assert_true(roundtrip(fd, msg, "UCCC@"));
		else
			assert_true(roundtrip(fd, msg, msg));
	}
	want_inline = st.inline_requests + 10;
	cf_server_stats_get(f->srv, &st);
	assert_int_equal(st.requests, N + 14);
	assert_int_equal(st.inline_requests, want_inline);
	assert_int_equal(st.inline_backoffs, 0);
	assert_int_equal(atomic_load(&f->t.overlaps), 0);
	close(fd);
	free(all);
	stop(f);
}

/*
 * An inline request slower than CF_SERVER_INLINE_SLOW_US sends its lane (only) to the
 * workers on its loop; the lane comes back after CF_SERVER_INLINE_BACKOFF_US.
 */
static void
slow_inline_lane_backs_off(void **state)
{
	fx		   *f = *state;
	cf_server_stats st;
	int			fd = start_routed(f);

	assert_true(roundtrip(fd, "quick@", "quick@"));
	cf_server_stats_get(f->srv, &st);
	assert_int_equal(st.inline_requests, 1);
	assert_int_equal(st.inline_backoffs, 0);

	/* 20 ms inline: lane 1 goes to the workers, lane 2 stays inline */
	assert_true(roundtrip(fd, "S20:slow@", "S20:slow@"));
	assert_true(roundtrip(fd, "next@", "next@"));
	assert_true(roundtrip(fd, "other#", "other#"));
	cf_server_stats_get(f->srv, &st);
	assert_int_equal(st.inline_backoffs, 1);
	assert_int_equal(st.inline_requests, 3);	/* quick, slow, other */
	assert_true(log_has("inline and blocked; that lane runs on the workers", NULL));

	usleep(CF_SERVER_INLINE_BACKOFF_US + 100000);
	assert_true(roundtrip(fd, "again@", "again@"));
	cf_server_stats_get(f->srv, &st);
	assert_int_equal(st.inline_requests, 4);
	assert_int_equal(st.requests, 5);

	/* slow without blocking (busy, or preempted) is no reason to back off */
	assert_true(roundtrip(fd, "P20:busy@", "P20:busy@"));
	assert_true(roundtrip(fd, "after@", "after@"));
	cf_server_stats_get(f->srv, &st);
	assert_int_equal(st.inline_backoffs, 1);
	assert_int_equal(st.inline_requests, 6);
	close(fd);
	stop(f);
}

/* With worker_threads 0 every request runs on the loop, whatever the route says. */
static void
route_ignored_without_workers(void **state)
{
	fx		   *f = *state;
	cf_server_stats st;
	int			fd;

	f->o.worker_threads = 0;
	fd = start_routed(f);
	assert_true(roundtrip(fd, "pooled", "pooled"));
	assert_true(roundtrip(fd, "Uinline@", "UINLINE@"));
	cf_server_stats_get(f->srv, &st);
	assert_int_equal(st.requests, 2);
	assert_int_equal(st.inline_requests, 0);	/* counted only when routed inline */
	close(fd);
	stop(f);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(echo_uppercase_and_peer, setup, teardown),
		cmocka_unit_test_setup_teardown(many_concurrent_clients, setup, teardown),
		cmocka_unit_test_setup_teardown(pipelined_replies_in_order, setup, teardown),
		cmocka_unit_test_setup_teardown(inline_mode_serves_in_order, setup, teardown),
		cmocka_unit_test_setup_teardown(routed_inline_keeps_order, setup, teardown),
		cmocka_unit_test_setup_teardown(slow_inline_lane_backs_off, setup, teardown),
		cmocka_unit_test_setup_teardown(route_ignored_without_workers, setup, teardown),
		cmocka_unit_test_setup_teardown(oneway_sends_nothing, setup, teardown),
		cmocka_unit_test_setup_teardown(frame_cap_and_short_frames, setup, teardown),
		cmocka_unit_test_setup_teardown(unframed_client_gets_an_exception, setup, teardown),
		cmocka_unit_test_setup_teardown(connection_cap, setup, teardown),
		cmocka_unit_test_setup_teardown(garbage_and_closing_handlers, setup, teardown),
		cmocka_unit_test_setup_teardown(slow_client_does_not_hold_others, setup, teardown),
		cmocka_unit_test_setup_teardown(client_that_never_reads, setup, teardown),
		cmocka_unit_test_setup_teardown(big_replies_wait_for_the_client, setup, teardown),
		cmocka_unit_test_setup_teardown(big_replies_wait_for_the_client_inline, setup, teardown),
		cmocka_unit_test_setup_teardown(shutdown_finishes_requests_in_flight, setup, teardown),
		cmocka_unit_test_setup_teardown(shutdown_deadline, setup, teardown),
		cmocka_unit_test_setup_teardown(busy_port_and_bad_addresses, setup, teardown),
		cmocka_unit_test_setup_teardown(loops_pinned_to_io_cpus, setup, teardown),
		cmocka_unit_test_setup_teardown(unix_clients_go_to_the_loop_on_their_cpu, setup, teardown),
		cmocka_unit_test_setup_teardown(reset_while_a_batch_runs, setup, teardown),
		cmocka_unit_test_setup_teardown(free_without_shutdown, setup, teardown),
	};

	signal(SIGPIPE, SIG_IGN);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
