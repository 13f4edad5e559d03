/*
 * tools/stress_async.c — the event-loop workers of `colfam stress --connections N`
 * (N above --threads): each thread drives its share of the N connections on one epoll
 * set, one call in flight per connection, as redis-benchmark and memtier_benchmark
 * drive theirs. A blocking client costs a thread wake-up and a context switch per
 * call; here one wake-up serves every reply that arrived meanwhile, so on a machine
 * where the client shares the CPUs with the server the client takes less of them.
 *
 * Each call is what libcolfam sends and checks: a strict binary CALL encoded by the
 * codec (cf_t_write_call) in a frame, and the reply decoded whole (cf_t_read_reply:
 * method name, sequence id, result struct), a declared exception or a
 * TApplicationException counting as the operation's error (the codes libcolfam gives:
 * client.h, cfc_call). No login: stress takes no credentials in either mode. A
 * connection that fails (reset, closed, a garbled reply) fails its operation and is
 * closed; the others go on.
 */
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "tools/progress.h"
#include "tools/stress_int.h"
#include "util/arena.h"
#include "util/buf.h"
#include "util/unixsock.h"

/* Connect and set_keyspace at setup: each waits this long at most. */
#define SETUP_TIMEOUT_MS 10000

struct stress_aconn
{
	int			fd;
	char		peer[80];		/* "host:port" for messages */
	cf_buf		out;			/* the framed call being sent */
	size_t		sent;
	uint8_t    *in;				/* the reply being received */
	size_t		in_len;
	size_t		in_cap;
	bool		want_out;		/* EPOLLOUT registered */
	/* the operation in flight */
	bool		busy;
	int64_t		op;
	int			step;
	int64_t		t0;
	int64_t		ts;
	int32_t		seqid;
	stress_call call;
	cf_arena   *arena;
};

/* Encodes call as a frame into a->out. */
static cf_status *
frame_call(stress_aconn *a, const stress_call *call)
{
	cf_status  *s;

	cf_buf_reset(&a->out);
	cf_buf_put_u32(&a->out, 0);	/* the frame's length, set below */
	if ((s = cf_t_write_call(&a->out, call->m, a->seqid, &call->a)) != NULL)
		return s;
	if (!cf_buf_ok(&a->out))
		return cf_buf_status(&a->out);
	cf_store_be32(a->out.data, (uint32_t) (a->out.len - 4));
	a->sent = 0;
	a->in_len = 0;
	return NULL;
}

/* The status of a reply's declared exception (NULL: none), as libcolfam's cfc_call. */
static cf_status *
exception_status(const stress_aconn *a, const cf_t_result *res)
{
	return cfc_exception_status(a->call.m, a->call.a.consistency_level, a->peer, res);
}

/*
 * Sends what is left of a->out. NULL when all of it went or the socket is full
 * (*done says which), else the failure.
 */
static cf_status *
send_some(stress_aconn *a, bool *done)
{
	while (a->sent < a->out.len)
	{
		ssize_t		r = send(a->fd, a->out.data + a->sent, a->out.len - a->sent,
							 MSG_NOSIGNAL | MSG_DONTWAIT);

		if (r < 0)
		{
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN || errno == EWOULDBLOCK)
			{
				*done = false;
				return NULL;
			}
			return cf_status_errno(errno, "sending to %s", a->peer);
		}
		a->sent += (size_t) r;
	}
	*done = true;
	return NULL;
}

/*
 * Receives what is there. NULL with *frame set to the reply's payload length once a
 * whole frame is in (0 while incomplete), else the failure (EOF, an error, a frame
 * over libcolfam's limit, bytes after the reply: one call is in flight).
 */
static cf_status *
recv_some(stress_aconn *a, size_t *frame)
{
	*frame = 0;
	for (;;)
	{
		size_t		want = a->in_len >= 4 ? 4 + (size_t) cf_load_be32(a->in) : 4;
		ssize_t		r;

		if (want - 4 > CFC_DEFAULT_MAX_FRAME)
			return cf_status_make(CF_ERR_PROTOCOL, "%s sent a frame of %zu bytes, over "
								  "the %u-byte limit", a->peer, want - 4, CFC_DEFAULT_MAX_FRAME);
		if (a->in_len >= 4 && a->in_len >= want)
		{
			if (a->in_len > want)
				return cf_status_make(CF_ERR_PROTOCOL, "%s sent more than the one reply "
									  "asked for", a->peer);
			*frame = want - 4;
			return NULL;
		}
		if (a->in_cap < want || a->in_cap - a->in_len < 1024)
		{
			size_t		cap = a->in_cap ? a->in_cap : 8192;
			uint8_t    *p;

			while (cap < want || cap - a->in_len < 1024)
				cap *= 2;
			if ((p = realloc(a->in, cap)) == NULL)
				return cf_status_make(CF_ERR_NO_MEMORY, "out of memory for a reply");
			a->in = p;
			a->in_cap = cap;
		}
		r = recv(a->fd, a->in + a->in_len, a->in_cap - a->in_len, MSG_DONTWAIT);
		if (r > 0)
		{
			a->in_len += (size_t) r;
			continue;
		}
		if (r == 0)
			return cf_status_make(CF_ERR_IO, "%s closed the connection", a->peer);
		if (errno == EINTR)
			continue;
		if (errno == EAGAIN || errno == EWOULDBLOCK)
			return NULL;
		return cf_status_errno(errno, "receiving from %s", a->peer);
	}
}

/* Builds and frames the current call of a's operation. */
static cf_status *
start_call(worker *w, stress_aconn *a)
{
	stress_op_call(w, a->op, a->step, a->ts, &a->call);
	a->seqid++;
	return frame_call(a, &a->call);
}

/* The operation in flight on a is over (s: its failure). */
static void
op_end(worker *w, stress_aconn *a, cf_status *s)
{
	cf_arena_free(a->arena);
	a->arena = NULL;
	a->busy = false;
	stress_op_done(w, a->t0, cft_now_us(), s);
}

/* Starts the next operation on a, framed; false when the run is over (a stays idle). */
static bool
start_op(worker *w, stress_aconn *a)
{
	while (stress_op_next(w, &a->op))
	{
		cf_status  *s;

		a->busy = true;
		a->step = 0;
		a->t0 = cft_now_us();
		a->ts = w->sh->o->op == CFT_STRESS_INSERT ? stress_now_us_wall() : 0;
		if ((a->arena = cf_arena_new(8192)) == NULL)
			s = cf_status_make(CF_ERR_NO_MEMORY, "out of memory");
		else
			s = start_call(w, a);
		if (s == NULL)
			return true;
		op_end(w, a, s);
	}
	return false;
}

/*
 * A whole reply of frame bytes is in: decodes and checks it, counts it, and frames the
 * operation's next call or starts the next operation. NULL unless the connection
 * failed (a reply that does not decode, or a TApplicationException).
 */
static cf_status *
take_reply(worker *w, stress_aconn *a, size_t frame)
{
	cf_t_limits lim = cf_t_limits_default();
	cf_t_result res;
	cf_status  *s = cf_t_read_reply(cf_slice_of(a->in + 4, frame), a->call.m, a->seqid,
									&lim, a->arena, &res);

	a->in_len = 0;
	if (s != NULL)
		return cf_status_wrap(s, "reply from %s", a->peer);
	/* a declared exception fails the operation, not the connection */
	if ((s = exception_status(a, &res)) == NULL)
	{
		stress_op_count(w, &a->call, &res);
		if (++a->step < stress_op_calls(w->sh->o) && (s = start_call(w, a)) == NULL)
			return NULL;
	}
	op_end(w, a, s);
	start_op(w, a);
	return NULL;
}

static void
close_conn(stress_aconn *a)
{
	if (a->fd >= 0)
		close(a->fd);
	a->fd = -1;
	a->busy = false;
	cf_arena_free(a->arena);
	a->arena = NULL;
}

/*
 * After an epoll event on a busy connection: receives and takes a reply when the call
 * is all sent, then sends what is framed. false once a is idle (the run is over: it
 * leaves the epoll set) or closed (after a failure, which fails its operation).
 */
static bool
conn_step(worker *w, int ep, stress_aconn *a)
{
	cf_status  *s = NULL;
	bool		sent;

	if (a->sent == a->out.len)
	{
		size_t		frame;

		if ((s = recv_some(a, &frame)) == NULL && frame == 0)
			return true;
		if (s == NULL && (s = take_reply(w, a, frame)) == NULL && !a->busy)
		{
			epoll_ctl(ep, EPOLL_CTL_DEL, a->fd, NULL);
			return false;
		}
	}
	if (s == NULL && (s = send_some(a, &sent)) == NULL)
	{
		struct epoll_event ev = {.events = EPOLLIN | (sent ? 0 : EPOLLOUT),.data.ptr = a};

		if (a->want_out == sent && epoll_ctl(ep, EPOLL_CTL_MOD, a->fd, &ev) == 0)
			a->want_out = !sent;
		return true;
	}
	close_conn(a);
	stress_op_done(w, a->t0, cft_now_us(), s);
	return false;
}

void *
stress_async_main(void *arg)
{
	worker	   *w = arg;
	struct epoll_event ev[64];
	int			active = 0;
	int			ep = epoll_create1(EPOLL_CLOEXEC);

	for (int i = 0; i < w->nconns; i++)
	{
		stress_aconn *a = &w->conns[i];
		struct epoll_event e = {.events = EPOLLIN,.data.ptr = a};

		if (ep < 0 || epoll_ctl(ep, EPOLL_CTL_ADD, a->fd, &e) != 0)
		{
			int64_t		now = cft_now_us();

			close_conn(a);
			stress_op_done(w, now, now, cf_status_errno(errno, "watching the connection "
														"to %s", a->peer));
			continue;
		}
		if (start_op(w, a))
			active += conn_step(w, ep, a);
	}
	while (active > 0)
	{
		int			n = epoll_wait(ep, ev, 64, -1);

		if (n < 0 && errno != EINTR)
		{
			int			err = errno;

			/* what is in flight fails */
			for (int i = 0; i < w->nconns; i++)
				if (w->conns[i].busy)
				{
					close_conn(&w->conns[i]);
					stress_op_done(w, w->conns[i].t0, cft_now_us(),
								   cf_status_errno(err, "waiting for replies"));
				}
			break;
		}
		for (int i = 0; i < n; i++)
			if (!conn_step(w, ep, ev[i].data.ptr))
				active--;
	}
	if (ep >= 0)
		close(ep);
	atomic_fetch_sub(&w->sh->running, 1);
	return NULL;
}

/* Waits up to SETUP_TIMEOUT_MS for fd to be ready for events. */
static cf_status *
wait_fd(int fd, short events, const char *what, const char *peer)
{
	struct pollfd p = {fd, events, 0};
	int			r;

	do
		r = poll(&p, 1, SETUP_TIMEOUT_MS);
	while (r < 0 && errno == EINTR);
	if (r == 0)
		return cf_status_make(CF_ERR_IO, "%s %s: no answer in %d s", what, peer,
							  SETUP_TIMEOUT_MS / 1000);
	return r < 0 ? cf_status_errno(errno, "%s %s", what, peer) : NULL;
}

/*
 * A non-blocking socket connected to host:port (every address tried), or to the unix
 * socket when host is a path ('/...', as libcolfam's host lists take it), into a.
 */
static cf_status *
connect_to(const cft_stress_opts *o, stress_aconn *a)
{
	struct addrinfo hints = {.ai_socktype = SOCK_STREAM};
	struct addrinfo *ai = NULL;
	struct addrinfo unix_ai = {.ai_family = AF_UNIX,.ai_socktype = SOCK_STREAM};
	struct sockaddr_un sun;
	char		port[8];
	cf_status  *s = NULL;
	int			rc;

	snprintf(port, sizeof(port), "%d", o->port);
	if (o->host[0] == '/')
	{
		snprintf(a->peer, sizeof(a->peer), "%s", o->host);
		if ((s = cf_unix_sockaddr(o->host, &sun, &unix_ai.ai_addrlen)) != NULL)
			return s;
		unix_ai.ai_addr = (struct sockaddr *) &sun;
	}
	else
	{
		snprintf(a->peer, sizeof(a->peer), "%s:%d", o->host, o->port);
		if ((rc = getaddrinfo(o->host, port, &hints, &ai)) != 0)
			return cf_status_make(CF_ERR_IO, "cannot resolve %s: %s", o->host,
								  gai_strerror(rc));
	}
	for (struct addrinfo *p = ai ? ai : &unix_ai; p; p = p->ai_next)
	{
		int			one = 1;
		int			err = 0;
		socklen_t	el = sizeof(err);

		cf_status_free(s);
		s = NULL;
		a->fd = socket(p->ai_family, p->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC,
					   p->ai_protocol);
		if (a->fd < 0)
		{
			s = cf_status_errno(errno, "connecting to %s", a->peer);
			continue;
		}
		if (p->ai_family != AF_UNIX)
			setsockopt(a->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		if (connect(a->fd, p->ai_addr, p->ai_addrlen) != 0 && errno != EINPROGRESS)
			err = errno;
		else if ((s = wait_fd(a->fd, POLLOUT, "connecting to", a->peer)) == NULL &&
				 getsockopt(a->fd, SOL_SOCKET, SO_ERROR, &err, &el) != 0)
			err = errno;
		if (s == NULL && err == 0)
			break;
		if (s == NULL)
			s = cf_status_make(CF_ERR_IO, "connecting to %s: %s", a->peer, strerror(err));
		close(a->fd);
		a->fd = -1;
	}
	if (ai != NULL)
		freeaddrinfo(ai);
	return s;
}

/* set_keyspace on a's new connection, waiting for the reply. */
static cf_status *
set_keyspace(const cft_stress_opts *o, stress_aconn *a)
{
	cf_t_result res;
	cf_status  *s;
	bool		sent = false;
	size_t		frame = 0;

	memset(&a->call, 0, sizeof(a->call));
	a->call.m = CF_T_M_SET_KEYSPACE;
	a->call.a.keyspace = cf_slice_str(o->keyspace);
	a->seqid++;
	if ((s = frame_call(a, &a->call)) != NULL)
		return s;
	while (s == NULL && !sent && (s = send_some(a, &sent)) == NULL && !sent)
		s = wait_fd(a->fd, POLLOUT, "sending to", a->peer);
	while (s == NULL && (s = recv_some(a, &frame)) == NULL && frame == 0)
		s = wait_fd(a->fd, POLLIN, "waiting for", a->peer);
	if (s == NULL && (a->arena = cf_arena_new(1024)) == NULL)
		s = cf_status_make(CF_ERR_NO_MEMORY, "out of memory");
	if (s == NULL)
	{
		cf_t_limits lim = cf_t_limits_default();

		s = cf_t_read_reply(cf_slice_of(a->in + 4, frame), a->call.m, a->seqid, &lim,
							a->arena, &res);
		a->in_len = 0;
	}
	if (s == NULL)
		s = exception_status(a, &res);
	cf_arena_free(a->arena);
	a->arena = NULL;
	return s ? cf_status_wrap(s, "setting keyspace \"%s\" on connect", o->keyspace) : NULL;
}

cf_status *
stress_async_open(worker *w, int nconns)
{
	const cft_stress_opts *o = w->sh->o;
	cf_status  *s = NULL;

	w->conns = calloc((size_t) nconns, sizeof(*w->conns));
	if (w->conns == NULL)
		return cf_status_make(CF_ERR_NO_MEMORY, "out of memory");
	w->nconns = nconns;
	for (int i = 0; i < nconns; i++)
	{
		w->conns[i].fd = -1;
		cf_buf_init(&w->conns[i].out, 0);
	}
	for (int i = 0; s == NULL && i < nconns; i++)
		if ((s = connect_to(o, &w->conns[i])) == NULL)
			s = set_keyspace(o, &w->conns[i]);
	return s;
}

void
stress_async_free(worker *w)
{
	for (int i = 0; i < w->nconns; i++)
	{
		close_conn(&w->conns[i]);
		cf_buf_free(&w->conns[i].out);
		free(w->conns[i].in);
	}
	free(w->conns);
	w->conns = NULL;
	w->nconns = 0;
}
