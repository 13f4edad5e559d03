/*
 * server/conn.c — one connection: reading frames into its queue, running its requests
 * as jobs (on a worker or inline), writing its replies in order, its read and write
 * interest, closing and freeing it (see server.h for the rules, server_int.h for who
 * owns what).
 *
 * Everything here runs on the connection's loop thread, except cf_srv_run_job (on a
 * worker) and cf_srv_post_done (a worker handing the job back). A connection is never
 * freed in the middle of an event batch: closing moves it to the loop's graveyard (or
 * leaves it to its worker when busy), and cf_srv_reap empties the graveyard between
 * batches.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "server/server_int.h"
#include "thrift/cassandra.h"
#include "util/log.h"

/* Replies written by one sendmsg, at most (two iovecs each). */
#define WRITE_IOV 64

/* Longest method name an unframed client's header may carry and still be answered. */
#define UNFRAMED_NAME_MAX 1024

long
cf_srv_peer_pid(int fd)
{
	struct ucred cred;
	socklen_t	clen = sizeof(cred);

	return getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &clen) == 0 && cred.pid > 0 ?
		(long) cred.pid : 0;
}

void
cf_srv_format_peer(int fd, const struct sockaddr_storage *sa, socklen_t len, char *out,
				   size_t n)
{
	char		host[INET6_ADDRSTRLEN];
	char		serv[8];
	long		pid;

	if (sa->ss_family == AF_UNIX)
	{
		/* a client's end of a unix socket has no name: its process is what tells */
		if ((pid = cf_srv_peer_pid(fd)) > 0)
			snprintf(out, n, "unix socket, pid %ld", pid);
		else
			snprintf(out, n, "unix socket");
	}
	else if (getnameinfo((const struct sockaddr *) sa, len, host, sizeof(host), serv,
					sizeof(serv), NI_NUMERICHOST | NI_NUMERICSERV) != 0)
		snprintf(out, n, "?");
	else if (sa->ss_family == AF_INET6)
		snprintf(out, n, "[%s]:%s", host, serv);
	else
		snprintf(out, n, "%s:%s", host, serv);
}

/*
 * On a worker (or inline on the loop): runs the job's requests in order, each reply in
 * its own buffer, until one asks to close, a reply fails, or the replies pass the
 * connection's buffer limit. Touches only the job fields and the session. Returns the
 * longest request's run time in µs when timed, else 0.
 */
int64_t
cf_srv_run_job(cf_server *srv, srv_conn *c, bool timed)
{
	unsigned	i = 0;
	size_t		out = 0;
	int64_t		t0 = timed ? cf_srv_now_us() : 0;
	int64_t		slowest = 0;

	c->job_keep = true;
	for (cf_frame *f = c->job; f && c->job_keep; f = f->next)
	{
		cf_buf	   *r = &c->job_replies[i++];

		cf_buf_init(r, srv->o.max_frame);
		c->job_keep = srv->h.handle(srv->h.ctx, c->session, cf_slice_of(f->data, f->len), r);
		if (timed)
		{
			int64_t		t1 = cf_srv_now_us();

			if (t1 - t0 > slowest)
				slowest = t1 - t0;
			t0 = t1;
		}
		if (!cf_buf_ok(r))
			break;				/* the connection is closed after the replies before it */
		/* replies past the buffer limit wait for the client to read (cf_srv_job_done) */
		if ((out += r->len) >= srv->o.conn_buffer_limit)
			break;
	}
	c->job_ran = i;
	return slowest;
}

/* On the worker: hands the finished job back to the connection's loop. */
void
cf_srv_post_done(srv_conn *c)
{
	srv_loop   *l = c->loop;
	bool		was_empty;

	pthread_mutex_lock(&l->mu);
	was_empty = l->done_head == NULL;
	c->next_job = NULL;
	if (l->done_tail)
		l->done_tail->next_job = c;
	else
		l->done_head = c;
	l->done_tail = c;
	pthread_mutex_unlock(&l->mu);
	/* a non-empty mailbox already has a wake-up pending: the loop empties it whole */
	if (was_empty)
		cf_srv_loop_wake(l);
}

static void
drop_queue(srv_conn *c)
{
	while (c->qhead)
	{
		cf_frame   *f = c->qhead;

		c->qhead = f->next;
		c->queued_bytes -= f->len;
		free(f);
	}
	c->qtail = NULL;
	c->nqueued = 0;
}

static void
drop_output(srv_conn *c)
{
	while (c->ohead)
	{
		srv_out    *o = c->ohead;

		c->ohead = o->next;
		cf_buf_free(&o->body);
		free(o);
	}
	c->otail = NULL;
	c->out_bytes = 0;
}

/* Closes the socket; the connection is freed by cf_srv_reap() once no worker holds it. */
void
cf_srv_conn_close(srv_conn *c)
{
	srv_loop   *l = c->loop;

	if (c->dead)
		return;
	epoll_ctl(l->ep, EPOLL_CTL_DEL, c->fd, NULL);
	close(c->fd);
	c->fd = -1;
	c->dead = true;
	drop_queue(c);
	drop_output(c);
	cf_frame_reader_clear(&c->rd);
	if (c->prev)
		c->prev->next = c->next;
	else
		l->live = c->next;
	if (c->next)
		c->next->prev = c->prev;
	c->prev = NULL;
	l->nlive--;
	cf_log_debug(SRV_LOG, "connection %" PRIu64 " from %s closed", c->peer.id, c->peer.addr);
	if (!c->busy)
	{
		c->next = l->grave;
		l->grave = c;
	}
	else
		c->next = NULL;
}

/* Frees closed connections. Runs between event batches only. */
void
cf_srv_reap(srv_loop *l)
{
	cf_server  *srv = l->srv;
	uint64_t	n = 0;

	while (l->grave)
	{
		srv_conn   *c = l->grave;

		l->grave = c->next;
		if (c->session_open && srv->h.session_close)
			srv->h.session_close(srv->h.ctx, c->session);
		free(c);
		n++;
	}
	if (n)
	{
		atomic_fetch_sub(&srv->nconns, n);
		cf_srv_conns_changed(srv);
	}
}

static void
conn_set_events(srv_conn *c, uint32_t ev)
{
	struct epoll_event e = {.events = ev,.data.ptr = c};

	if (ev == c->events)
		return;
	if (epoll_ctl(c->loop->ep, EPOLL_CTL_MOD, c->fd, &e) == 0)
		c->events = ev;
	else
		cf_log_error(SRV_LOG, "epoll_ctl on connection from %s: %s", c->peer.addr,
					 strerror(errno));
}

static void
conn_update_interest(srv_conn *c)
{
	cf_server  *srv = c->loop->srv;
	bool		full = c->nqueued >= CF_SERVER_MAX_PIPELINE ||
		c->queued_bytes + c->out_bytes >= srv->o.conn_buffer_limit;
	bool		want_read = !c->closing && !full;

	if (full && !c->closing && !c->paused)
	{
		c->paused = true;
		srv_stat_add(&srv->st_read_pauses, 1);
		cf_log_debug(SRV_LOG, "connection from %s: %u requests and %zu bytes waiting; "
					 "not reading until the client reads", c->peer.addr, c->nqueued,
					 c->queued_bytes + c->out_bytes);
	}
	else if (!full)
		c->paused = false;
	conn_set_events(c, (want_read ? EPOLLIN : 0) | (c->ohead ? EPOLLOUT : 0));
}

static void
note_buffered(srv_conn *c)
{
	srv_stat_max(&c->loop->srv->st_peak_buffered, c->queued_bytes + c->out_bytes);
}

/*
 * Queues a reply (taking body). false when out of memory: the reply is dropped and the
 * connection is closing; the caller must queue no later reply, or it would reach the
 * client in the dropped one's place.
 */
static bool
out_append(srv_conn *c, cf_buf *body, bool raw)
{
	srv_out    *o = malloc(sizeof(*o));

	if (o == NULL)
	{
		cf_log_error(SRV_LOG, "connection from %s: out of memory for a reply of %zu "
					 "bytes; closing it", c->peer.addr, body->len);
		cf_buf_free(body);
		c->closing = true;
		drop_queue(c);
		return false;
	}
	o->next = NULL;
	cf_store_be32(o->hdr, (uint32_t) body->len);
	o->body = *body;
	o->off = raw ? 4 : 0;
	cf_buf_init(body, 0);
	if (c->otail)
		c->otail->next = o;
	else
		c->ohead = o;
	c->otail = o;
	c->out_bytes += 4 + o->body.len - o->off;
	note_buffered(c);
	return true;
}

/* Writes what it can. false when the connection was closed (a write error). */
static bool
conn_flush(srv_conn *c)
{
	cf_server  *srv = c->loop->srv;

	while (c->ohead)
	{
		struct iovec iov[WRITE_IOV];
		struct msghdr mh = {0};
		int			n = 0;
		ssize_t		w;
		size_t		left;

		for (srv_out *o = c->ohead; o && n + 2 <= WRITE_IOV; o = o->next)
		{
			size_t		b = o->off > 4 ? o->off - 4 : 0;	/* body bytes sent */

			if (o->off < 4)
			{
				iov[n].iov_base = o->hdr + o->off;
				iov[n++].iov_len = 4 - o->off;
			}
			if (o->body.len > b)
			{
				iov[n].iov_base = o->body.data + b;
				iov[n++].iov_len = o->body.len - b;
			}
		}
		mh.msg_iov = iov;
		mh.msg_iovlen = (size_t) n;
		w = sendmsg(c->fd, &mh, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (w < 0)
		{
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				return true;
			cf_log_debug(SRV_LOG, "connection from %s: write failed: %s", c->peer.addr,
						 strerror(errno));
			cf_srv_conn_close(c);
			return false;
		}
		srv_stat_add(&srv->st_bytes_out, (uint64_t) w);
		c->out_bytes -= (size_t) w;
		left = (size_t) w;
		while (left > 0)
		{
			srv_out    *o = c->ohead;
			size_t		rest = 4 + o->body.len - o->off;

			if (left < rest)
			{
				o->off += left;
				break;
			}
			left -= rest;
			c->ohead = o->next;
			if (c->ohead == NULL)
				c->otail = NULL;
			cf_buf_free(&o->body);
			free(o);
		}
	}
	return true;
}

/*
 * A finished job, back on the loop thread: frees the requests run, puts those not run
 * back at the head of the queue, queues the replies in order, and closes on request.
 */
void
cf_srv_job_done(srv_conn *c)
{
	cf_server  *srv = c->loop->srv;
	unsigned	i;

	c->busy = false;
	for (i = 0; i < c->job_ran; i++)
	{
		cf_frame   *f = c->job;

		c->job = f->next;
		c->queued_bytes -= f->len;
		free(f);
	}
	while (c->job && c->dead)
	{
		cf_frame   *f = c->job;

		c->job = f->next;
		free(f);
	}
	if (c->job)
	{
		/* requests the job stopped before go back to the head of the queue */
		cf_frame   *last = c->job;

		c->nqueued++;
		while (last->next)
		{
			last = last->next;
			c->nqueued++;
		}
		last->next = c->qhead;
		if (c->qhead == NULL)
			c->qtail = last;
		c->qhead = c->job;
		c->job = NULL;
	}
	srv_stat_add(&srv->st_requests, c->job_ran);
	for (i = 0; i < c->job_ran && !c->dead; i++)
	{
		cf_buf	   *r = &c->job_replies[i];

		if (!cf_buf_ok(r))
		{
			cf_status  *s = cf_buf_status(r);

			cf_log_error(SRV_LOG, "connection from %s: a reply failed (%s); closing the "
						 "connection", c->peer.addr, cf_status_msg(s));
			cf_status_free(s);
			c->closing = true;
			drop_queue(c);
			break;
		}
		if (r->len > 0 && !out_append(c, r, false))
			break;
	}
	for (unsigned j = 0; j < c->job_ran; j++)
		cf_buf_free(&c->job_replies[j]);
	if (c->job_replies != &c->job_reply1)
		free(c->job_replies);
	c->job_replies = NULL;
	c->job_n = c->job_ran = 0;
	if (c->dead)
	{
		c->next = c->loop->grave;
		c->loop->grave = c;
		return;
	}
	if (!c->job_keep)
	{
		cf_log_debug(SRV_LOG, "connection from %s: the handler asked to close it",
					 c->peer.addr);
		c->closing = true;
		drop_queue(c);
	}
}

/* Takes the first n (1..nqueued, at most CF_SERVER_MAX_PIPELINE) waiting requests as the next job. */
static void
job_take(srv_conn *c, unsigned n)
{
	cf_frame   *last;

	if (n > CF_SERVER_MAX_PIPELINE)
		n = CF_SERVER_MAX_PIPELINE;
	c->job_replies = &c->job_reply1;
	if (n > 1 && (c->job_replies = malloc(n * sizeof(cf_buf))) == NULL)
	{
		c->job_replies = &c->job_reply1;
		n = 1;
	}
	c->job = last = c->qhead;
	for (unsigned i = 1; i < n; i++)
		last = last->next;
	c->qhead = last->next;
	if (c->qhead == NULL)
		c->qtail = NULL;
	last->next = NULL;
	c->nqueued -= n;
	c->job_n = n;
	c->job_ran = 0;
}

/*
 * The lane of the requests at the head of c's queue that may run inline now, and in
 * *n how many of them do (one lane, at most CF_SERVER_MAX_PIPELINE); CF_SERVER_POOL
 * when the head request goes to the workers: route says so, or its lane is backed
 * off on this loop. Routes each request once (frame.lane).
 */
static int
inline_run(srv_conn *c, unsigned *n)
{
	cf_server  *srv = c->loop->srv;
	srv_loop   *l = c->loop;
	int			lane = CF_SERVER_POOL;
	unsigned	k = 0;

	for (cf_frame *f = c->qhead; f && k < CF_SERVER_MAX_PIPELINE; f = f->next)
	{
		if (f->lane < 0)
		{
			int			r = srv->h.route(srv->h.ctx, c->session, cf_slice_of(f->data, f->len));

			f->lane = r >= 1 && r <= CF_SERVER_LANES ? r : CF_SERVER_POOL;
		}
		if (f->lane == CF_SERVER_POOL || (k > 0 && f->lane != lane))
			break;
		if (k == 0)
		{
			if (l->lane_pool_until[f->lane] != 0)
			{
				if (cf_srv_now_us() < l->lane_pool_until[f->lane])
					break;
				l->lane_pool_until[f->lane] = 0;
			}
			lane = f->lane;
		}
		k++;
	}
	*n = k;
	return k > 0 ? lane : CF_SERVER_POOL;
}

/*
 * Runs the first n waiting requests of c, all routed to lane, inline on the loop
 * thread, counts them, and backs the lane off if one of them was slow because it
 * blocked. A slow request during which the thread never blocked (its voluntary
 * context switches did not grow since the loop's mark, taken at the first inline job
 * after an epoll_wait) was only preempted — a loaded machine, a CPU quota — and would
 * have been as slow on a worker. The replies are c's job's, for cf_srv_job_done.
 */
static void
inline_job(srv_conn *c, int lane, unsigned n)
{
	cf_server  *srv = c->loop->srv;
	srv_loop   *l = c->loop;
	int64_t		slowest;
	long		nv;

	if (!l->inline_marked)
	{
		l->inline_nvcsw = cf_srv_thread_nvcsw();
		l->inline_marked = true;
	}
	job_take(c, n);
	slowest = cf_srv_run_job(srv, c, true);
	srv_stat_add(&srv->st_inline_requests, c->job_ran);
	if (slowest <= CF_SERVER_INLINE_SLOW_US)
		return;
	nv = cf_srv_thread_nvcsw();
	if (nv == l->inline_nvcsw)
		return;
	l->inline_nvcsw = nv;
	l->lane_pool_until[lane] = cf_srv_now_us() + CF_SERVER_INLINE_BACKOFF_US;
	srv_stat_add(&srv->st_inline_backoffs, 1);
	cf_log_debug(SRV_LOG, "loop %u: a request of lane %d took %" PRId64 " µs inline and blocked; "
				 "that lane runs on the workers for %d ms", l->idx, lane, slowest,
				 CF_SERVER_INLINE_BACKOFF_US / 1000);
}

/*
 * Moves a connection forward: starts its next request, writes, closes it when it is
 * closing and has nothing left, updates its epoll interest. May close c.
 */
void
cf_srv_conn_advance(srv_conn *c)
{
	cf_server  *srv = c->loop->srv;
	bool		ran;

	/*
	 * Write first: what the client has read decides whether a job may start. No new
	 * job while its unsent replies exceed the limit; inline jobs add replies, so write
	 * and try again until nothing more can start.
	 */
	do
	{
		ran = false;
		if (c->dead || !conn_flush(c))
			return;
		while (!c->dead && !c->busy && c->qhead && c->out_bytes < srv->o.conn_buffer_limit)
		{
			unsigned	n = 0;
			int			lane = CF_SERVER_POOL;

			if (srv->nworkers == 0)
			{
				job_take(c, c->nqueued);
				cf_srv_run_job(srv, c, false);
				cf_srv_job_done(c);
				ran = true;
				continue;
			}
			if (srv->h.route && (lane = inline_run(c, &n)) != CF_SERVER_POOL)
			{
				inline_job(c, lane, n);
				cf_srv_job_done(c);
				ran = true;
				continue;
			}
			job_take(c, c->nqueued);
			c->busy = true;
			if (!cf_srv_pool_submit(srv, c))
			{
				/* only while the server is being freed: nothing runs any more */
				c->job_ran = 0;
				cf_srv_job_done(c);
				cf_srv_conn_close(c);
				return;
			}
		}
	} while (ran);
	if (c->dead)
		return;
	if (c->closing && !c->busy && !c->qhead && !c->ohead)
	{
		cf_srv_conn_close(c);
		return;
	}
	conn_update_interest(c);
}

/* The peer sent an unframed strict message: answer it unframed if its header is here. */
static void
reject_unframed(srv_conn *c, const uint8_t *rest, size_t nrest)
{
	uint8_t		msg[4 + 4 + UNFRAMED_NAME_MAX + 4];
	size_t		n = 4;
	cf_rd		r;
	cf_t_message_header h;
	cf_status  *s;

	memcpy(msg, c->rd.hdr, 4);
	if (nrest > sizeof(msg) - 4)
		nrest = sizeof(msg) - 4;
	memcpy(msg + 4, rest, nrest);
	n += nrest;
	cf_rd_init(&r, msg, n);
	if ((s = cf_t_read_message_header(&r, &h)) == NULL)
	{
		cf_buf		reply;

		cf_buf_init(&reply, 0);
		cf_t_write_app_exception(&reply, h.name, h.seqid, CF_T_APP_PROTOCOL_ERROR,
								 "unframed transport is not supported; use TFramedTransport");
		if (cf_buf_ok(&reply))
			(void) out_append(c, &reply, true);	/* the last reply: closing anyway */
		else
			cf_buf_free(&reply);
	}
	cf_status_free(s);
}

static void
protocol_error(srv_conn *c, cf_frame_result res, const uint8_t *rest, size_t nrest)
{
	cf_server  *srv = c->loop->srv;

	srv_stat_add(&srv->st_protocol_errors, 1);
	switch (res)
	{
		case CF_FRAME_TOO_SHORT:
			cf_log_info(SRV_LOG, "closing connection from %s: frame length %u is below the "
						"%d-byte minimum (is the client using TFramedTransport?)",
						c->peer.addr, c->rd.declared, CF_SERVER_FRAME_MIN);
			break;
		case CF_FRAME_TOO_LARGE:
			cf_log_info(SRV_LOG, "closing connection from %s: frame of %u bytes exceeds the "
						"%zu-byte cap (thrift_framed_transport_size_in_mb)",
						c->peer.addr, c->rd.declared, srv->o.max_frame);
			break;
		case CF_FRAME_UNFRAMED:
			cf_log_info(SRV_LOG, "closing connection from %s: unframed transport is not "
						"supported; use TFramedTransport", c->peer.addr);
			reject_unframed(c, rest, nrest);
			break;
		default:
			cf_log_error(SRV_LOG, "closing connection from %s: out of memory for a frame "
						 "of %u bytes", c->peer.addr, c->rd.declared);
			break;
	}
	c->closing = true;
}

/* One read: the frames it completes join the connection's queue. May close c. */
void
cf_srv_conn_read(srv_conn *c)
{
	cf_server  *srv = c->loop->srv;
	uint8_t    *buf = c->loop->scratch;
	ssize_t		n;
	size_t		off = 0;

	if (c->closing)
		return;
	do
		n = recv(c->fd, buf, SRV_SCRATCH_SIZE, 0);
	while (n < 0 && errno == EINTR);
	if (n < 0)
	{
		if (errno == EAGAIN || errno == EWOULDBLOCK)
			return;
		cf_log_debug(SRV_LOG, "connection from %s: read failed: %s", c->peer.addr,
					 strerror(errno));
		cf_srv_conn_close(c);
		return;
	}
	if (n == 0)
	{
		if (cf_frame_partial(&c->rd))
			cf_log_info(SRV_LOG, "connection from %s closed in the middle of a frame",
						c->peer.addr);
		c->closing = true;
		cf_frame_reader_clear(&c->rd);
		return;
	}
	srv_stat_add(&srv->st_bytes_in, (uint64_t) n);
	while (off < (size_t) n)
	{
		cf_frame   *f;
		size_t		used;
		cf_frame_result res = cf_frame_feed(&c->rd, buf + off, (size_t) n - off, &used, &f);

		off += used;
		if (res == CF_FRAME_MORE)
			break;
		if (res != CF_FRAME_DONE)
		{
			protocol_error(c, res, buf + off, (size_t) n - off);
			cf_frame_reader_clear(&c->rd);
			break;
		}
		if (c->qtail)
			c->qtail->next = f;
		else
			c->qhead = f;
		c->qtail = f;
		c->nqueued++;
		c->queued_bytes += f->len;
		note_buffered(c);
	}
}

/* Closes an accepted socket that never became a connection, and uncounts it. */
static void
conn_not_made(cf_server *srv, int fd)
{
	close(fd);
	atomic_fetch_sub(&srv->nconns, 1);
	cf_srv_conns_changed(srv);
}

/*
 * A socket accepted for this loop (and counted in nconns): options, the connection,
 * epoll, the handler's session. Closes it instead once the server is stopping.
 */
void
cf_srv_conn_new(srv_loop *l, int fd, const struct sockaddr_storage *sa, socklen_t salen)
{
	cf_server  *srv = l->srv;
	srv_conn   *c;
	struct epoll_event e;
	int			one = 1;

	if (atomic_load(&srv->state) != SRV_RUNNING)
	{
		conn_not_made(srv, fd);
		return;
	}
	if (sa->ss_family != AF_UNIX)
	{
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		if (srv->o.keepalive)
			setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &one, sizeof(one));
	}
	if (srv->o.send_buffer > 0)
		setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &srv->o.send_buffer, sizeof(int));
	if (srv->o.recv_buffer > 0)
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &srv->o.recv_buffer, sizeof(int));

	c = calloc(1, sizeof(*c));
	if (c == NULL)
	{
		cf_log_error(SRV_LOG, "out of memory for a new connection; closing it");
		conn_not_made(srv, fd);
		return;
	}
	c->kind = SRV_EV_CONN;
	c->fd = fd;
	c->loop = l;
	c->peer.id = atomic_fetch_add(&srv->next_id, 1) + 1;
	memcpy(&c->peer.sa, sa, salen);
	c->peer.salen = salen;
	cf_srv_format_peer(fd, sa, salen, c->peer.addr, sizeof(c->peer.addr));
	cf_frame_reader_init(&c->rd, CF_SERVER_FRAME_MIN, srv->o.max_frame);
	c->events = EPOLLIN;
	e.events = EPOLLIN;
	e.data.ptr = c;
	if (epoll_ctl(l->ep, EPOLL_CTL_ADD, fd, &e) != 0)
	{
		cf_log_error(SRV_LOG, "cannot watch the connection from %s: %s", c->peer.addr,
					 strerror(errno));
		free(c);
		conn_not_made(srv, fd);
		return;
	}
	c->next = l->live;
	if (l->live)
		l->live->prev = c;
	l->live = c;
	l->nlive++;
	srv_stat_add(&srv->st_accepted, 1);
	if (srv->h.session_open)
		c->session = srv->h.session_open(srv->h.ctx, &c->peer);
	c->session_open = true;
	cf_log_debug(SRV_LOG, "connection %" PRIu64 " from %s (loop %u, %" PRIu64 " open)",
				 c->peer.id, c->peer.addr, l->idx, (uint64_t) atomic_load(&srv->nconns));
}
