/*
 * tests/bench/bench_server.c — throughput of colfamd's network server (server/server.h)
 * with a trivial echo handler, against N concurrent connections on 127.0.0.1.
 *
 *   bench_server [-c 1,8,64,256] [-d SECONDS] [-s BYTES] [-p DEPTH] [-i IO] [-w WORKERS]
 *
 * Assumptions:
 *  - It measures the server core alone: framing, the loops, the worker handoff, the
 *    in-order write-back. The handler copies the request into the reply and nothing
 *    else, so the figures are the ceiling a real handler's cost comes on top of.
 *  - Clients and server share the machine (and its cores): every client is a thread
 *    with a blocking socket that keeps DEPTH requests outstanding (1: strict
 *    request-reply, as a Thrift client does) and checks each reply by its bytes.
 *  - Two server modes per client count: requests on the worker pool (colfamd's
 *    default; -w workers) and inline on the loop threads (worker_threads 0).
 *  - Each run warms up for a quarter of a second, then counts replies for -d seconds.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "server/server.h"
#include "util/env.h"
#include "util/log.h"

#include "support/sockio.h"

static atomic_int phase;		/* 0 warm-up, 1 counting, 2 stop */

typedef struct client
{
	uint16_t	port;
	size_t		size;
	int			depth;
	uint64_t	counted;
	uint64_t	lat_us_sum;
	int			failed;
	pthread_t	tid;
} client;

static bool
echo(void *ctx, void *session, cf_slice req, cf_buf *reply)
{
	(void) ctx;
	(void) session;
	cf_buf_put(reply, req.p, req.len);
	return true;
}

static void *
client_main(void *arg)
{
	client	   *c = arg;
	int			fd = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in sa = {.sin_family = AF_INET,.sin_port = htons(c->port)};
	size_t		fl = 4 + c->size;
	uint8_t    *req = malloc(fl * (size_t) c->depth);
	uint8_t    *rep = malloc(fl * (size_t) c->depth);
	int			one = 1;

	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (connect(fd, (struct sockaddr *) &sa, sizeof(sa)) != 0)
	{
		c->failed = 1;
		return NULL;
	}
	for (int d = 0; d < c->depth; d++)
	{
		cf_store_be32(req + d * fl, (uint32_t) c->size);
		memset(req + d * fl + 4, 'a' + d % 26, c->size);
	}
	while (atomic_load(&phase) < 2)
	{
		int64_t		t0 = cf_env_mono_micros(cf_env_posix());

		if (!test_send_all(fd, req, fl * (size_t) c->depth) ||
			!test_recv_all(fd, rep, fl * (size_t) c->depth) ||
			memcmp(req, rep, fl * (size_t) c->depth) != 0)
		{
			c->failed = 1;
			break;
		}
		if (atomic_load(&phase) == 1)
		{
			c->counted += (uint64_t) c->depth;
			c->lat_us_sum += (uint64_t) (cf_env_mono_micros(cf_env_posix()) - t0);
		}
	}
	close(fd);
	free(req);
	free(rep);
	return NULL;
}

static int
run(int nclients, bool inline_mode, unsigned io, unsigned workers, size_t size, int depth,
	double secs)
{
	cf_server_handler h = {.handle = echo};
	cf_server_options o = {
		.address = "127.0.0.1",.io_threads = io,.worker_threads = inline_mode ? 0 : workers,
		.max_frame = 15u << 20,.max_connections = 100000,.conn_buffer_limit = 4u << 20,
	};
	cf_server  *srv;
	cf_status  *s = cf_server_create(&o, &h, &srv);
	client	   *cl = calloc((size_t) nclients, sizeof(*cl));
	uint64_t	total = 0;
	uint64_t	lat = 0;
	int64_t		t0;
	int64_t		t1;

	if (s == NULL)
		s = cf_server_start(srv);
	if (s)
	{
		fprintf(stderr, "bench_server: %s\n", cf_status_msg(s));
		return 1;
	}
	atomic_store(&phase, 0);
	for (int i = 0; i < nclients; i++)
	{
		cl[i] = (client) {.port = cf_server_port(srv),.size = size,.depth = depth};
		pthread_create(&cl[i].tid, NULL, client_main, &cl[i]);
	}
	usleep(250000);
	t0 = cf_env_mono_micros(cf_env_posix());
	atomic_store(&phase, 1);
	usleep((useconds_t) (secs * 1e6));
	atomic_store(&phase, 2);
	t1 = cf_env_mono_micros(cf_env_posix());
	for (int i = 0; i < nclients; i++)
	{
		pthread_join(cl[i].tid, NULL);
		if (cl[i].failed)
		{
			fprintf(stderr, "bench_server: client %d failed\n", i);
			return 1;
		}
		total += cl[i].counted;
		lat += cl[i].lat_us_sum;
	}
	cf_status_free(cf_server_shutdown(srv, 5000));
	cf_server_free(srv);
	printf("| %d | %s | %.0f | %.1f | %.1f |\n", nclients,
		   inline_mode ? "inline" : "workers", total / ((t1 - t0) / 1e6),
		   total / ((t1 - t0) / 1e6) * (double) (4 + size) * 2 / 1e6,
		   total ? (double) lat / ((double) total / depth) : 0.0);
	fflush(stdout);
	free(cl);
	return 0;
}

int
main(int argc, char **argv)
{
	char		counts[256] = "1,8,64,256";
	double		secs = 2;
	size_t		size = 100;
	int			depth = 1;
	unsigned	io = 0;
	unsigned	workers = 40;
	int			opt;
	long		ncpu = sysconf(_SC_NPROCESSORS_ONLN);

	while ((opt = getopt(argc, argv, "c:d:s:p:i:w:")) != -1)
	{
		switch (opt)
		{
			case 'c':
				snprintf(counts, sizeof(counts), "%s", optarg);
				break;
			case 'd':
				secs = atof(optarg);
				break;
			case 's':
				size = (size_t) atol(optarg);
				break;
			case 'p':
				depth = atoi(optarg);
				break;
			case 'i':
				io = (unsigned) atoi(optarg);
				break;
			case 'w':
				workers = (unsigned) atoi(optarg);
				break;
			default:
				fprintf(stderr, "usage: bench_server [-c 1,8,64,256] [-d SECONDS] [-s BYTES] "
						"[-p DEPTH] [-i IO_THREADS] [-w WORKERS]\n");
				return 2;
		}
	}
	if (size < 4 || depth < 1)
	{
		fprintf(stderr, "bench_server: -s must be >= 4 and -p >= 1\n");
		return 2;
	}
	signal(SIGPIPE, SIG_IGN);
	cf_log_set_level(CF_LOG_WARN);
	printf("# colfamd server core: echo of %zu-byte frames, %d outstanding per connection\n\n"
		   "%ld CPUs shared by clients and server; %u event loops; %u workers; %.1f s per row\n\n"
		   "| connections | requests run | requests/s | MB/s (in+out) | mean µs per round trip |\n"
		   "|---|---|---|---|---|\n", size, depth, ncpu, io ? io : (unsigned) ncpu, workers,
		   secs);
	for (char *save = NULL, *tok = strtok_r(counts, ",", &save); tok;
		 tok = strtok_r(NULL, ",", &save))
	{
		int			n = atoi(tok);

		if (run(n, false, io, workers, size, depth, secs) || run(n, true, io, workers, size, depth, secs))
			return 1;
	}
	return 0;
}
