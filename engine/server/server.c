/*
 * server/server.c — the server's lifecycle: bind and listen, start the loops and the
 * workers, the graceful shutdown, free, statistics (see server.h).
 *
 * Listening: one socket, SO_REUSEADDR (a restart need not wait for TIME_WAIT) but not
 * SO_REUSEPORT, which would let a second colfamd bind the same port silently and share
 * its clients. The socket is in every loop's epoll with EPOLLEXCLUSIVE (one loop woken
 * per connection) and whichever loop accepts hands the connection round-robin to a
 * loop: EPOLLEXCLUSIVE alone would give every connection to the first idle loop.
 *
 * The unix socket, when configured, is a second listener handled the same way. Its
 * file outlives a colfamd that is killed, so start-up replaces a socket file nobody
 * accepts on (connect says ECONNREFUSED), as PostgreSQL and Redis do, and refuses
 * anything else: a live socket is another server's, and a regular file or directory
 * is not ours to delete. Permissions are set between bind and listen, so no client
 * can connect while the file still has the umask's mode.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <netdb.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "server/server_int.h"
#include "util/cpulist.h"
#include "util/log.h"
#include "util/thread.h"
#include "util/unixsock.h"

#define DEFAULT_MAX_FRAME ((size_t) 15 << 20)
#define DEFAULT_MAX_CONNECTIONS 1024u
#define DEFAULT_CONN_BUFFER ((size_t) 4 << 20)
#define DEFAULT_UNIX_MODE 0700

/* Extra time the forced close gives running requests before shutdown gives up. */
#define FORCE_GRACE_MS 1000

static cf_status *
listen_error(int err, const char *address, unsigned port)
{
	switch (err)
	{
		case EADDRINUSE:
			return cf_status_make(CF_ERR_BUSY, "port %u on %s is in use", port, address);
		case EADDRNOTAVAIL:
			return cf_status_make(CF_ERR_INVALID, "%s is not an address of this machine "
								  "(cannot listen on it)", address);
		case EACCES:
		case EPERM:
			return cf_status_make(CF_ERR_AUTHORIZATION, "listening on port %u on %s needs "
								  "privileges this process does not have", port, address);
		default:
			return cf_status_errno(err, "listening on %s port %u", address, port);
	}
}

static cf_status *
open_listener(cf_server *srv)
{
	struct addrinfo hints = {0};
	struct addrinfo *res = NULL;
	char		portstr[16];
	int			rc;
	int			fd;
	int			one = 1;
	struct sockaddr_storage sa;
	socklen_t	salen = sizeof(sa);
	char		host[INET6_ADDRSTRLEN];

	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
	snprintf(portstr, sizeof(portstr), "%u", (unsigned) srv->o.port);
	rc = getaddrinfo(srv->address, portstr, &hints, &res);
	if (rc != 0)
		return cf_status_make(CF_ERR_INVALID, "cannot resolve the address \"%s\": %s",
							  srv->address, rc == EAI_SYSTEM ? strerror(errno) : gai_strerror(rc));
	fd = socket(res->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
	{
		int			err = errno;

		freeaddrinfo(res);
		return cf_status_errno(err, "creating a socket for %s", srv->address);
	}
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	/* set before listen so accepted sockets inherit it and the window scale fits */
	if (srv->o.recv_buffer > 0)
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &srv->o.recv_buffer, sizeof(int));
	if (bind(fd, res->ai_addr, res->ai_addrlen) != 0 || listen(fd, SOMAXCONN) != 0)
	{
		int			err = errno;

		freeaddrinfo(res);
		close(fd);
		return listen_error(err, srv->address, srv->o.port);
	}
	freeaddrinfo(res);
	if (getsockname(fd, (struct sockaddr *) &sa, &salen) != 0)
	{
		int			err = errno;

		close(fd);
		return cf_status_errno(err, "getsockname on %s", srv->address);
	}
	srv->port = ntohs(sa.ss_family == AF_INET6 ?
					  ((struct sockaddr_in6 *) &sa)->sin6_port :
					  ((struct sockaddr_in *) &sa)->sin_port);
	if (getnameinfo((struct sockaddr *) &sa, salen, host, sizeof(host), NULL, 0,
					NI_NUMERICHOST) != 0)
		snprintf(host, sizeof(host), "%s", srv->address);
	snprintf(srv->addrstr, sizeof(srv->addrstr), sa.ss_family == AF_INET6 ? "[%s]:%u" : "%s:%u",
			 host, (unsigned) srv->port);
	srv->listen_fd = fd;
	return NULL;
}

/*
 * Whether a socket file is left at path that may be replaced: NULL when there is
 * none or it is a socket nobody accepts on (then *stale is set), else the error.
 */
static cf_status *
check_unix_path(const char *path, const struct sockaddr_un *sa, socklen_t salen, bool *stale)
{
	struct stat st;
	int			fd;
	int			err;

	*stale = false;
	if (lstat(path, &st) != 0)
	{
		if (errno == ENOENT)
			return NULL;
		return cf_status_errno(errno, "unix socket %s", path);
	}
	if (!S_ISSOCK(st.st_mode))
		return cf_status_make(CF_ERR_INVALID, "unix socket %s: a file that is not a socket is "
							  "in the way; remove it or choose another rpc_unix_socket", path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return cf_status_errno(errno, "creating a unix socket to probe %s", path);
	err = connect(fd, (const struct sockaddr *) sa, salen) == 0 ? 0 : errno;
	close(fd);
	if (err == ECONNREFUSED)
	{
		*stale = true;
		return NULL;
	}
	if (err == 0 || err == EAGAIN)
		return cf_status_make(CF_ERR_BUSY, "unix socket %s is in use: another server accepts "
							  "on it", path);
	return cf_status_errno(err, "unix socket %s: probing whether a server uses it", path);
}

/* Binds and listens on the unix socket srv->unix_path, replacing a stale one. */
static cf_status *
open_unix_listener(cf_server *srv)
{
	const char *path = srv->unix_path;
	unsigned	mode = srv->o.unix_mode ? srv->o.unix_mode : DEFAULT_UNIX_MODE;
	struct sockaddr_un sa;
	socklen_t	salen;
	struct stat st;
	bool		stale;
	cf_status  *s;
	int			fd;

	if ((s = cf_unix_sockaddr(path, &sa, &salen)) != NULL)
		return s;
	if ((s = check_unix_path(path, &sa, salen, &stale)) != NULL)
		return s;
	if (stale)
	{
		if (unlink(path) != 0 && errno != ENOENT)
			return cf_status_errno(errno, "removing the stale unix socket %s", path);
		cf_log_info(SRV_LOG, "removed the stale unix socket %s (nothing accepted on it)", path);
	}
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return cf_status_errno(errno, "creating a unix socket for %s", path);
	if (bind(fd, (struct sockaddr *) &sa, salen) != 0)
	{
		int			err = errno;

		close(fd);
		if (err == EADDRINUSE)
			return cf_status_make(CF_ERR_BUSY, "unix socket %s is in use (made by another "
								  "process as this one started)", path);
		return cf_status_errno(err, "binding the unix socket %s", path);
	}
	if (lstat(path, &st) == 0)
	{
		srv->unix_dev = st.st_dev;
		srv->unix_ino = st.st_ino;
		srv->unix_made = true;
	}
	srv->unix_fd = fd;
	if (chmod(path, (mode_t) mode) != 0)
		return cf_status_errno(errno, "setting mode %04o on the unix socket %s", mode, path);
	if (srv->o.recv_buffer > 0)
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &srv->o.recv_buffer, sizeof(int));
	if (listen(fd, SOMAXCONN) != 0)
		return cf_status_errno(errno, "listening on the unix socket %s", path);
	return NULL;
}

/* Closes the unix listener and removes its file, if the file is still the one made. */
static void
close_unix_listener(cf_server *srv)
{
	struct stat st;

	if (srv->unix_fd >= 0)
		close(srv->unix_fd);
	srv->unix_fd = -1;
	if (!srv->unix_made)
		return;
	srv->unix_made = false;
	if (lstat(srv->unix_path, &st) == 0 && st.st_dev == srv->unix_dev &&
		st.st_ino == srv->unix_ino && unlink(srv->unix_path) != 0)
		cf_log_warn(SRV_LOG, "cannot remove the unix socket %s: %s", srv->unix_path,
					strerror(errno));
}

cf_status *
cf_server_create(const cf_server_options *opts, const cf_server_handler *h, cf_server **out)
{
	cf_server  *srv;
	cf_status  *s;
	pthread_condattr_t ca;

	*out = NULL;
	if (h == NULL || h->handle == NULL)
		return cf_status_make(CF_ERR_INVALID, "server: a handler with a handle function "
							  "is required");
	if (opts->max_frame != 0 && opts->max_frame < CF_SERVER_FRAME_MIN)
		return cf_status_make(CF_ERR_INVALID, "server: max_frame %zu is below the %d-byte "
							  "minimum frame", opts->max_frame, CF_SERVER_FRAME_MIN);
	if (opts->max_frame > UINT32_MAX)
		return cf_status_make(CF_ERR_INVALID, "server: max_frame %zu does not fit a "
							  "4-byte frame length", opts->max_frame);
	srv = calloc(1, sizeof(*srv));
	if (srv == NULL)
		return cf_status_make(CF_ERR_NO_MEMORY, "server: out of memory");
	srv->o = *opts;
	srv->h = *h;
	srv->listen_fd = -1;
	srv->unix_fd = -1;
	srv->spare_fd = -1;
	if (srv->o.max_frame == 0)
		srv->o.max_frame = DEFAULT_MAX_FRAME;
	if (srv->o.max_connections == 0)
		srv->o.max_connections = DEFAULT_MAX_CONNECTIONS;
	if (srv->o.conn_buffer_limit == 0)
		srv->o.conn_buffer_limit = DEFAULT_CONN_BUFFER;
	srv->nloops = opts->io_threads;
	if (srv->nloops == 0)
	{
		long		n = sysconf(_SC_NPROCESSORS_ONLN);

		srv->nloops = n > 0 ? (unsigned) n : 1;
	}
	srv->nworkers = opts->worker_threads;
	srv->address = strdup(opts->address ? opts->address : "127.0.0.1");
	srv->o.address = srv->address;
	if (opts->unix_path != NULL && opts->unix_path[0] != '\0')
	{
		srv->unix_path = strdup(opts->unix_path);
		if (srv->unix_path == NULL)
		{
			cf_server_free(srv);
			return cf_status_make(CF_ERR_NO_MEMORY, "server: out of memory");
		}
	}
	srv->o.unix_path = srv->unix_path;
	pthread_mutex_init(&srv->spare_mu, NULL);
	pthread_mutex_init(&srv->pmu, NULL);
	pthread_cond_init(&srv->pcv, NULL);
	pthread_mutex_init(&srv->mu, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&srv->cv, &ca);
	pthread_condattr_destroy(&ca);
	if (srv->address == NULL)
	{
		cf_server_free(srv);
		return cf_status_make(CF_ERR_NO_MEMORY, "server: out of memory");
	}
	if (opts->io_cpus != NULL &&
		(s = cf_cpu_list_parse(opts->io_cpus, &srv->io_cpus, &srv->n_io_cpus)) != NULL)
	{
		cf_server_free(srv);
		return cf_status_wrap(s, "server: io_cpus");
	}
	srv->o.io_cpus = NULL;		/* the caller's text is not kept */
	if ((s = open_listener(srv)) != NULL ||
		(srv->unix_path != NULL && (s = open_unix_listener(srv)) != NULL))
	{
		cf_server_free(srv);
		return s;
	}
	srv->spare_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	*out = srv;
	return NULL;
}

uint16_t
cf_server_port(const cf_server *srv)
{
	return srv->port;
}

const char *
cf_server_address(const cf_server *srv)
{
	return srv->addrstr;
}

const char *
cf_server_unix_path(const cf_server *srv)
{
	return srv->unix_path;
}

unsigned
cf_server_io_threads(const cf_server *srv)
{
	return srv->nloops;
}

static cf_status *
loop_init(srv_loop *l, unsigned idx)
{
	struct epoll_event e = {.events = EPOLLIN};

	l->scratch = malloc(SRV_SCRATCH_SIZE);
	if (l->scratch == NULL)
		return cf_status_make(CF_ERR_NO_MEMORY, "server: out of memory for loop %u", idx);
	l->ep = epoll_create1(EPOLL_CLOEXEC);
	if (l->ep < 0)
		return cf_status_errno(errno, "epoll_create1 for loop %u", idx);
	l->wakefd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (l->wakefd < 0)
		return cf_status_errno(errno, "eventfd for loop %u", idx);
	e.data.ptr = &l->wake_kind;
	if (epoll_ctl(l->ep, EPOLL_CTL_ADD, l->wakefd, &e) != 0)
		return cf_status_errno(errno, "epoll_ctl for loop %u", idx);
	return NULL;
}

/* Adds the listeners (TCP, and unix if any) to loop l's epoll with events. */
static int
watch_in(cf_server *srv, srv_loop *l, uint32_t events)
{
	struct epoll_event e = {.events = events,.data.ptr = &l->listen_kind};

	if (epoll_ctl(l->ep, EPOLL_CTL_ADD, srv->listen_fd, &e) != 0)
		return -1;
	e.data.ptr = &l->unix_kind;
	if (srv->unix_fd >= 0 && epoll_ctl(l->ep, EPOLL_CTL_ADD, srv->unix_fd, &e) != 0)
	{
		int			err = errno;

		epoll_ctl(l->ep, EPOLL_CTL_DEL, srv->listen_fd, NULL);
		errno = err;
		return -1;
	}
	l->listening = true;
	return 0;
}

/* The listening sockets in every loop with EPOLLEXCLUSIVE, else (old kernels) in loop 0. */
static cf_status *
watch_listener(cf_server *srv)
{
	srv->exclusive = true;
	for (unsigned i = 0; i < srv->nloops; i++)
	{
		if (watch_in(srv, &srv->loops[i], EPOLLIN | EPOLLEXCLUSIVE) == 0)
			continue;
		if (i == 0 && errno == EINVAL)
		{
			if (watch_in(srv, &srv->loops[0], EPOLLIN) == 0)
			{
				srv->exclusive = false;
				break;
			}
		}
		return cf_status_errno(errno, "watching the listening sockets");
	}
	return NULL;
}

/* Pins loop i to its CPU (io_cpus); a failure leaves it unpinned, with a warning. */
static void
pin_loop(cf_server *srv, unsigned i)
{
	cpu_set_t	set;
	int			cpu;
	int			rc;

	if (srv->n_io_cpus == 0)
		return;
	cpu = srv->io_cpus[i % srv->n_io_cpus];
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	rc = pthread_setaffinity_np(srv->loops[i].thread, sizeof(set), &set);
	if (rc != 0)
		cf_log_warn(SRV_LOG, "event loop %u stays unpinned: pinning it to CPU %d failed: %s",
					i, cpu, strerror(rc));
}

cf_status *
cf_server_start(cf_server *srv)
{
	cf_status  *s = NULL;
	sigset_t	all;
	sigset_t	old;

	if (srv->started)
		return cf_status_make(CF_ERR_INVALID, "server: already started");
	srv->loops = calloc(srv->nloops, sizeof(srv_loop));
	if (srv->loops == NULL)
		return cf_status_make(CF_ERR_NO_MEMORY, "server: out of memory");
	for (unsigned i = 0; i < srv->nloops; i++)
	{
		srv_loop   *l = &srv->loops[i];

		l->srv = srv;
		l->idx = i;
		l->wake_kind = SRV_EV_WAKE;
		l->listen_kind = SRV_EV_LISTEN;
		l->unix_kind = SRV_EV_LISTEN_UNIX;
		l->ep = -1;
		l->wakefd = -1;
		pthread_mutex_init(&l->mu, NULL);
	}
	for (unsigned i = 0; i < srv->nloops && s == NULL; i++)
		s = loop_init(&srv->loops[i], i);
	if (s == NULL)
		s = watch_listener(srv);
	if (s != NULL)
		return s;

	/* the server's threads take no signal: the program's own threads handle them */
	srv->started = true;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	s = cf_srv_pool_start(srv);
	for (unsigned i = 0; i < srv->nloops && s == NULL; i++)
	{
		int			rc = pthread_create(&srv->loops[i].thread, NULL, cf_srv_loop_main,
										&srv->loops[i]);

		if (rc != 0)
			s = cf_status_errno(rc, "starting event loop thread %u of %u", i + 1, srv->nloops);
		else
		{
			srv->loops[i].running = true;
			cf_thread_name(srv->loops[i].thread, "cf-loop-%u", i);
			pin_loop(srv, i);
		}
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (s == NULL && srv->n_io_cpus > 0)
	{
		char		list[256];
		unsigned	n = srv->nloops < srv->n_io_cpus ? srv->nloops : (unsigned) srv->n_io_cpus;

		cf_log_info(SRV_LOG, "event loops pinned to CPUs %s%s",
					cf_cpu_list_format(srv->io_cpus, n, list, sizeof(list)),
					srv->nloops > srv->n_io_cpus ? " (round robin: more loops than CPUs)" : "");
	}
	if (s == NULL)
		cf_log_debug(SRV_LOG, "serving %s%s%s with %u event loops (%s) and %u workers",
					 srv->addrstr, srv->unix_path ? " and " : "",
					 srv->unix_path ? srv->unix_path : "", srv->nloops, srv->exclusive ? "shared listener" :
					 "loop 0 accepts", srv->nworkers);
	return s;
}

static void
set_state(cf_server *srv, int st)
{
	atomic_store(&srv->state, st);
	for (unsigned i = 0; i < srv->nloops; i++)
		if (srv->loops[i].running)
			cf_srv_loop_wake(&srv->loops[i]);
}

static struct timespec
deadline_after(int ms)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	ts.tv_sec += ms / 1000;
	ts.tv_nsec += (long) (ms % 1000) * 1000000;
	if (ts.tv_nsec >= 1000000000)
	{
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000;
	}
	return ts;
}

static unsigned
running_loops(cf_server *srv)
{
	unsigned	n = 0;

	for (unsigned i = 0; i < srv->nloops; i++)
		n += srv->loops[i].running;
	return n;
}

/* Waits under srv->mu until done(srv), or the deadline; returns done(srv). */
static bool
wait_until(cf_server *srv, const struct timespec *deadline, bool (*done) (cf_server *))
{
	bool		ok;

	pthread_mutex_lock(&srv->mu);
	while (!(ok = done(srv)))
		if (pthread_cond_timedwait(&srv->cv, &srv->mu, deadline) == ETIMEDOUT)
		{
			ok = done(srv);
			break;
		}
	pthread_mutex_unlock(&srv->mu);
	return ok;
}

static bool
all_acked(cf_server *srv)
{
	return srv->listen_acks >= running_loops(srv);
}

static bool
no_connections(cf_server *srv)
{
	return atomic_load(&srv->nconns) == 0;
}

/* Stops and joins the loops and workers. REQUIRES: no connection left, or FORCE set. */
static void
join_all(cf_server *srv)
{
	if (srv->joined)
		return;
	cf_srv_pool_stop(srv);
	set_state(srv, SRV_STOPPED);
	for (unsigned i = 0; i < srv->nloops; i++)
		if (srv->loops[i].running)
		{
			pthread_join(srv->loops[i].thread, NULL);
			srv->loops[i].running = false;
		}
	srv->joined = true;
}

cf_status *
cf_server_shutdown(cf_server *srv, int timeout_ms)
{
	struct timespec deadline = deadline_after(timeout_ms);
	uint64_t	open_conns = atomic_load(&srv->nconns);

	if (!srv->started)
	{
		srv->joined = true;
		if (srv->h.drain)
			srv->h.drain(srv->h.ctx);
		return NULL;
	}
	cf_log_info(SRV_LOG, "stopping: no new connections on %s%s%s; finishing the requests "
				"of %" PRIu64 " open connections (up to %d ms)", srv->addrstr,
				srv->unix_path ? " or " : "", srv->unix_path ? srv->unix_path : "",
				open_conns, timeout_ms);
	set_state(srv, SRV_DRAINING);
	if (wait_until(srv, &deadline, all_acked))
	{
		close(srv->listen_fd);
		srv->listen_fd = -1;
		close_unix_listener(srv);
	}
	if (!wait_until(srv, &deadline, no_connections))
	{
		struct timespec grace = deadline_after(FORCE_GRACE_MS);

		cf_log_warn(SRV_LOG, "%" PRIu64 " connections still busy after %d ms; closing them",
					(uint64_t) atomic_load(&srv->nconns), timeout_ms);
		set_state(srv, SRV_FORCE);
		if (!wait_until(srv, &grace, no_connections))
		{
			unsigned	running;

			pthread_mutex_lock(&srv->pmu);
			running = srv->prunning;
			pthread_mutex_unlock(&srv->pmu);
			return cf_status_make(CF_ERR_TIMEOUT, "%u requests still running %d ms after "
								  "shutdown began", running, timeout_ms + FORCE_GRACE_MS);
		}
	}
	join_all(srv);
	for (unsigned i = 0; i < srv->nloops; i++)
		cf_srv_loop_release(&srv->loops[i]);
	cf_log_info(SRV_LOG, "stopped serving %s", srv->addrstr);
	if (srv->h.drain)
		srv->h.drain(srv->h.ctx);
	return NULL;
}

void
cf_server_free(cf_server *srv)
{
	if (srv == NULL)
		return;
	if (srv->started && !srv->joined)
	{
		/* close everything first, so no loop hands the pool a new job while it stops */
		set_state(srv, SRV_FORCE);
		join_all(srv);
	}
	for (unsigned i = 0; srv->loops && i < srv->nloops; i++)
	{
		srv_loop   *l = &srv->loops[i];

		cf_srv_loop_release(l);
		if (l->ep >= 0)
			close(l->ep);
		if (l->wakefd >= 0)
			close(l->wakefd);
		free(l->scratch);
		pthread_mutex_destroy(&l->mu);
	}
	free(srv->loops);
	if (srv->workers)
		cf_srv_pool_stop(srv);
	if (srv->listen_fd >= 0)
		close(srv->listen_fd);
	close_unix_listener(srv);
	if (srv->spare_fd >= 0)
		close(srv->spare_fd);
	pthread_mutex_destroy(&srv->spare_mu);
	pthread_mutex_destroy(&srv->pmu);
	pthread_cond_destroy(&srv->pcv);
	pthread_mutex_destroy(&srv->mu);
	pthread_cond_destroy(&srv->cv);
	free(srv->address);
	free(srv->unix_path);
	free(srv->io_cpus);
	free(srv);
}

void
cf_server_stats_get(cf_server *srv, cf_server_stats *st)
{
	st->connections = atomic_load(&srv->nconns);
	st->accepted = atomic_load(&srv->st_accepted);
	st->refused = atomic_load(&srv->st_refused);
	st->requests = atomic_load(&srv->st_requests);
	st->inline_requests = atomic_load(&srv->st_inline_requests);
	st->inline_backoffs = atomic_load(&srv->st_inline_backoffs);
	st->protocol_errors = atomic_load(&srv->st_protocol_errors);
	st->bytes_in = atomic_load(&srv->st_bytes_in);
	st->bytes_out = atomic_load(&srv->st_bytes_out);
	st->read_pauses = atomic_load(&srv->st_read_pauses);
	st->peak_buffered = atomic_load(&srv->st_peak_buffered);
}
