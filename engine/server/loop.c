/*
 * server/loop.c — one event loop: epoll over the listening sockets, a wake-up eventfd
 * and the connections this loop owns (conn.c); accepting and handing connections out,
 * the mailbox (finished jobs, handed-off sockets), and the shutdown's state changes.
 *
 * Level-triggered epoll, one read of at most SRV_SCRATCH_SIZE bytes per readable
 * connection per round: a connection that floods cannot starve the others of its
 * loop, since the loop goes round all ready sockets before reading it again.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include "server/server_int.h"
#include "util/log.h"

#define MAX_EVENTS 128
#define ACCEPT_BATCH 32

/* The calling thread's voluntary context switches so far (times it blocked). */
long
cf_srv_thread_nvcsw(void)
{
	struct rusage ru;

	return getrusage(RUSAGE_THREAD, &ru) == 0 ? ru.ru_nvcsw : 0;
}

void
cf_srv_loop_wake(srv_loop *l)
{
	uint64_t	one = 1;
	ssize_t		rc;

	/* EAGAIN means the counter is already non-zero: the loop will wake anyway */
	do
		rc = write(l->wakefd, &one, sizeof(one));
	while (rc < 0 && errno == EINTR);
}

/* Called on a drop in the count of connections: shutdown may be waiting for zero. */
void
cf_srv_conns_changed(cf_server *srv)
{
	if (atomic_load(&srv->state) == SRV_RUNNING)
		return;
	pthread_mutex_lock(&srv->mu);
	pthread_cond_broadcast(&srv->cv);
	pthread_mutex_unlock(&srv->mu);
}

/* A refusal line at most once a second, with the count of those not logged. */
static void
log_refusal(cf_server *srv, const char *peer, const char *why)
{
	int64_t		now = cf_srv_now_us();
	int64_t		last = atomic_load(&srv->refuse_logged_at);

	if (now - last < 1000000 ||
		!atomic_compare_exchange_strong(&srv->refuse_logged_at, &last, now))
	{
		atomic_fetch_add(&srv->refuse_unlogged, 1);
		return;
	}
	{
		uint64_t	more = atomic_exchange(&srv->refuse_unlogged, 0);

		if (more)
			cf_log_warn(SRV_LOG, "refusing connection from %s: %s (and %" PRIu64
						" more refused since the last such line)", peer, why, more);
		else
			cf_log_warn(SRV_LOG, "refusing connection from %s: %s", peer, why);
	}
}

/* Out of descriptors: accept the pending connection with the spare one and close it. */
static void
accept_out_of_fds(cf_server *srv, int listen_fd, int err)
{
	int			fd;

	pthread_mutex_lock(&srv->spare_mu);
	if (srv->spare_fd >= 0)
	{
		close(srv->spare_fd);
		srv->spare_fd = -1;
		fd = accept4(listen_fd, NULL, NULL, SOCK_CLOEXEC);
		if (fd >= 0)
		{
			close(fd);
			srv_stat_add(&srv->st_refused, 1);
		}
		srv->spare_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	}
	pthread_mutex_unlock(&srv->spare_mu);
	log_refusal(srv, "a client", err == EMFILE ?
				"colfamd has no file descriptor left (raise ulimit -n or lower "
				"rpc_max_connections)" : "the system has no file descriptor left");
}

/*
 * The CPU a unix-socket peer last ran on: its pid from SO_PEERCRED, then field 39 of
 * /proc/PID/stat (a single-threaded client's, such as a Postgres backend; for a
 * threaded one, its main thread's). -1 when unknown (no pid in this namespace, no
 * /proc).
 */
static int
peer_cpu(int fd)
{
	long		pid = cf_srv_peer_pid(fd);
	char		path[64],
				buf[1024];
	const char *p;
	int			pfd,
				field = 2;
	ssize_t		n;

	if (pid <= 0)
		return -1;
	snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
	if ((pfd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return -1;
	n = read(pfd, buf, sizeof(buf) - 1);
	close(pfd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	/* field 2, the command, is in parentheses and may hold spaces: count after it */
	if ((p = strrchr(buf, ')')) == NULL)
		return -1;
	for (; *p && field < 39; p++)
		if (*p == ' ')
			field++;
	return field == 39 && *p >= '0' && *p <= '9' ? atoi(p) : -1;
}

/*
 * The loop to own a new connection. With the loops pinned (io_cpus), a unix-socket
 * client goes to a loop on the CPU it last ran on (round robin among several there),
 * so its requests and replies tend to wake threads on one CPU rather than send an
 * inter-processor interrupt to the other (see server.h). Otherwise, and when the
 * client's CPU is unknown or has no loop, round robin over all loops.
 */
static srv_loop *
pick_loop(cf_server *srv, int fd, bool on_unix)
{
	unsigned	rr = atomic_fetch_add(&srv->rr, 1);
	srv_loop   *any = &srv->loops[rr % srv->nloops];
	unsigned	on_cpu = 0;
	unsigned	pick;
	int			cpu;

	if (!on_unix || srv->n_io_cpus == 0 || (cpu = peer_cpu(fd)) < 0)
		return any;
	for (unsigned i = 0; i < srv->nloops; i++)
		on_cpu += srv->io_cpus[i % srv->n_io_cpus] == cpu;
	if (on_cpu == 0)
		return any;				/* no loop on the client's CPU */
	pick = rr % on_cpu;
	for (unsigned i = 0; i < srv->nloops; i++)
		if (srv->io_cpus[i % srv->n_io_cpus] == cpu && pick-- == 0)
			return &srv->loops[i];
	return any;					/* not reached: pick < on_cpu */
}

/* Accepts up to ACCEPT_BATCH connections on the unix listener or the TCP one. */
static void
accept_some(srv_loop *l, bool on_unix)
{
	cf_server  *srv = l->srv;
	int			listen_fd = on_unix ? srv->unix_fd : srv->listen_fd;
	const char *where = on_unix ? srv->unix_path : srv->addrstr;

	for (int i = 0; i < ACCEPT_BATCH; i++)
	{
		struct sockaddr_storage sa;
		socklen_t	salen = sizeof(sa);
		int			fd = accept4(listen_fd, (struct sockaddr *) &sa, &salen,
								 SOCK_NONBLOCK | SOCK_CLOEXEC);
		srv_loop   *to;

		if (fd < 0)
		{
			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			if (errno == EMFILE || errno == ENFILE)
				accept_out_of_fds(srv, listen_fd, errno);
			else if (errno != EAGAIN && errno != EWOULDBLOCK)
				cf_log_error(SRV_LOG, "accept on %s: %s", where, strerror(errno));
			return;
		}
		if (atomic_fetch_add(&srv->nconns, 1) >= srv->o.max_connections)
		{
			char		peer[64];
			char		why[96];

			atomic_fetch_sub(&srv->nconns, 1);
			cf_srv_format_peer(fd, &sa, salen, peer, sizeof(peer));
			close(fd);
			srv_stat_add(&srv->st_refused, 1);
			snprintf(why, sizeof(why), "%u connections are open (rpc_max_connections)",
					 srv->o.max_connections);
			log_refusal(srv, peer, why);
			continue;
		}
		to = pick_loop(srv, fd, on_unix);
		if (to == l)
		{
			cf_srv_conn_new(l, fd, &sa, salen);
			continue;
		}
		pthread_mutex_lock(&to->mu);
		if (to->nhand == to->caphand)
		{
			size_t		cap = to->caphand ? to->caphand * 2 : 16;
			srv_handoff *h = realloc(to->hand, cap * sizeof(*h));

			if (h == NULL)
			{
				pthread_mutex_unlock(&to->mu);
				cf_srv_conn_new(l, fd, &sa, salen);
				continue;
			}
			to->hand = h;
			to->caphand = cap;
		}
		to->hand[to->nhand].fd = fd;
		to->hand[to->nhand].sa = sa;
		to->hand[to->nhand].salen = salen;
		to->nhand++;
		pthread_mutex_unlock(&to->mu);
		cf_srv_loop_wake(to);
	}
}

static void
take_mail(srv_loop *l)
{
	uint64_t	v;
	srv_conn   *done;
	srv_handoff *hand;
	size_t		nhand;
	ssize_t		rc;

	do
		rc = read(l->wakefd, &v, sizeof(v));
	while (rc < 0 && errno == EINTR);
	pthread_mutex_lock(&l->mu);
	done = l->done_head;
	l->done_head = l->done_tail = NULL;
	hand = l->hand;
	nhand = l->nhand;
	l->hand = NULL;
	l->nhand = l->caphand = 0;
	pthread_mutex_unlock(&l->mu);

	for (size_t i = 0; i < nhand; i++)
		cf_srv_conn_new(l, hand[i].fd, &hand[i].sa, hand[i].salen);
	free(hand);
	while (done)
	{
		srv_conn   *c = done;
		bool		dead = c->dead;

		done = c->next_job;
		c->next_job = NULL;
		cf_srv_job_done(c);
		if (!dead)
			cf_srv_conn_advance(c);
	}
}

static void
state_changed(srv_loop *l, int st)
{
	cf_server  *srv = l->srv;
	int			was = l->seen_state;

	l->seen_state = st;
	if (st >= SRV_DRAINING && was < SRV_DRAINING)
	{
		if (l->listening)
		{
			epoll_ctl(l->ep, EPOLL_CTL_DEL, srv->listen_fd, NULL);
			if (srv->unix_fd >= 0)
				epoll_ctl(l->ep, EPOLL_CTL_DEL, srv->unix_fd, NULL);
			l->listening = false;
		}
		pthread_mutex_lock(&srv->mu);
		srv->listen_acks++;
		pthread_cond_broadcast(&srv->cv);
		pthread_mutex_unlock(&srv->mu);
	}
	if (st == SRV_DRAINING)
	{
		for (srv_conn *c = l->live, *next; c; c = next)
		{
			next = c->next;
			c->closing = true;
			cf_frame_reader_clear(&c->rd);
			cf_srv_conn_advance(c);
		}
	}
	else if (st >= SRV_FORCE)
	{
		while (l->live)
		{
			srv_conn   *c = l->live;

			/* a running job's job_n: set by this thread before the job left, read-only since */
			if (c->qhead || c->busy || c->ohead)
				cf_log_warn(SRV_LOG, "closing connection from %s with %u unanswered "
							"requests at the shutdown deadline", c->peer.addr,
							c->nqueued + (c->busy ? c->job_n : 0u));
			cf_srv_conn_close(c);
		}
	}
}

void *
cf_srv_loop_main(void *arg)
{
	srv_loop   *l = arg;
	cf_server  *srv = l->srv;
	struct epoll_event ev[MAX_EVENTS];

	for (;;)
	{
		int			st = atomic_load(&srv->state);
		int			n;

		if (st != l->seen_state)
		{
			state_changed(l, st);
			cf_srv_reap(l);
		}
		if (st == SRV_STOPPED)
			break;
		n = epoll_wait(l->ep, ev, MAX_EVENTS, -1);
		if (n < 0)
		{
			if (errno == EINTR)
				continue;
			cf_log_error(SRV_LOG, "epoll_wait: %s", strerror(errno));
			break;
		}
		l->inline_marked = false;	/* epoll_wait may have blocked */
		for (int i = 0; i < n; i++)
		{
			int			kind = *(int *) ev[i].data.ptr;

			if (kind == SRV_EV_LISTEN || kind == SRV_EV_LISTEN_UNIX)
			{
				if (l->listening)
					accept_some(l, kind == SRV_EV_LISTEN_UNIX);
			}
			else if (kind == SRV_EV_WAKE)
				take_mail(l);
			else
			{
				srv_conn   *c = ev[i].data.ptr;

				if (c->dead)
					continue;
				if ((ev[i].events & EPOLLERR) ||
					((ev[i].events & EPOLLHUP) && !(c->events & EPOLLIN)))
				{
					cf_srv_conn_close(c);
					continue;
				}
				if (ev[i].events & (EPOLLIN | EPOLLHUP))
					cf_srv_conn_read(c);
				if (!c->dead)
					cf_srv_conn_advance(c);
			}
		}
		cf_srv_reap(l);
	}
	pthread_mutex_lock(&srv->mu);
	srv->loops_exited++;
	pthread_cond_broadcast(&srv->cv);
	pthread_mutex_unlock(&srv->mu);
	return NULL;
}

/*
 * After the loop thread has stopped (or never ran) and every worker has been joined,
 * so no job is running: frees every connection, handed-off socket and finished job
 * left on this loop. Nothing is started.
 */
void
cf_srv_loop_release(srv_loop *l)
{
	cf_server  *srv = l->srv;
	srv_conn   *done;

	pthread_mutex_lock(&l->mu);
	done = l->done_head;
	l->done_head = l->done_tail = NULL;
	pthread_mutex_unlock(&l->mu);
	for (size_t i = 0; i < l->nhand; i++)
	{
		close(l->hand[i].fd);
		atomic_fetch_sub(&srv->nconns, 1);
	}
	free(l->hand);
	l->hand = NULL;
	l->nhand = l->caphand = 0;
	while (done)
	{
		srv_conn   *c = done;

		done = c->next_job;
		c->next_job = NULL;
		cf_srv_job_done(c);
	}
	while (l->live)
		cf_srv_conn_close(l->live);
	cf_srv_reap(l);
}
