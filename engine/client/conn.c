/*
 * client/conn.c — the connection: options and host list, connect with failover,
 * framed I/O with poll()-based timeouts and the cancel hook.
 *
 * The socket is non-blocking while it connects, so that wait is a poll() we control:
 * in slices of CFC_POLL_SLICE_MS, with the cancel callback asked between slices, up to
 * the timeout. Once connected it blocks with SO_RCVTIMEO of one slice, so a reply is
 * read by recv() alone, which returns when bytes arrive or a slice has passed (then
 * the cancel callback and the timeout are checked, and it waits again): a round trip
 * is one send and one recv, where a poll() before each recv cost a third system call
 * per call. (Over a unix socket, colfamd's read of a request wakes a recv() asleep on
 * our end for nothing — room to write, unix_write_space — which a poll() for POLLIN
 * would not see: the front-page join went from ~11 to ~8.2 context switches per query
 * with one. Its CPU per query, and the benchmarks' throughput, did not improve, twice
 * measured; so recv() it stays.) send() never blocks (MSG_DONTWAIT; a full socket
 * buffer is waited for with poll) and uses MSG_NOSIGNAL: a dead peer is an error, not
 * a SIGPIPE. EINTR is not an error (a backend gets signals; a socket with a timeout is
 * not restarted by SA_RESTART, so a cancel is seen at once); it just starts the next
 * slice.
 *
 * A host list entry that begins with '/' is the path of colfamd's unix-domain socket
 * (rpc_unix_socket), as a libpq host that begins with '/' is a socket directory: a
 * local client saves TCP's per-packet work (checksums, the loopback's softirq) on
 * every round trip. Such entries mix freely with host:port ones, and failover goes
 * along the list whatever the kind.
 */
#include "client/client_int.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "util/unixsock.h"

/* ---------------------------------------------------------------- options */

static char *
dup_str(const char *s, size_t n)
{
	char	   *d = malloc(n + 1);

	if (d != NULL)
	{
		memcpy(d, s, n);
		d[n] = '\0';
	}
	return d;
}

/*
 * A host list entry that is a unix socket's path (n bytes from s, trimmed); one too
 * long for sun_path is refused here, with cf_unix_sockaddr's message.
 */
static cf_status *
parse_socket_path(const char *s, size_t n, cfc_host_addr *out)
{
	struct sockaddr_un sa;
	socklen_t	len;

	out->unix_socket = true;
	out->host = dup_str(s, n);
	out->desc = dup_str(s, n);
	if (out->host == NULL || out->desc == NULL)
		return cf_status_make(CF_ERR_NO_MEMORY, "out of memory");
	return cf_status_wrap(cf_unix_sockaddr(out->host, &sa, &len), "hosts");
}

/*
 * Parses one entry of the host list ("h", "h:p", "[v6]", "[v6]:p", or "/path" of a
 * unix socket), trimmed.
 */
static cf_status *
parse_host(const char *s, size_t n, cfc_host_addr *out)
{
	const char *host = s;
	size_t		host_len = n;
	const char *port = NULL;
	size_t		port_len = 0;
	long		portnum = CFC_DEFAULT_PORT;

	while (n > 0 && (*s == ' ' || *s == '\t'))
		s++, n--;
	while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t'))
		n--;
	if (n == 0)
		return cf_status_make(CF_ERR_INVALID, "hosts: empty entry in the host list "
							  "(expected \"host[:port],...\" or /socket/path)");
	if (s[0] == '/')
		return parse_socket_path(s, n, out);
	host = s;
	host_len = n;
	if (s[0] == '[')
	{
		const char *close = memchr(s, ']', n);

		if (close == NULL || close == s + 1)
			return cf_status_make(CF_ERR_INVALID, "hosts: \"%.*s\": unterminated or empty "
								  "[IPv6 address]", (int) n, s);
		host = s + 1;
		host_len = (size_t) (close - host);
		if (close + 1 < s + n)
		{
			if (close[1] != ':')
				return cf_status_make(CF_ERR_INVALID, "hosts: \"%.*s\": expected ':port' "
									  "after ']'", (int) n, s);
			port = close + 2;
			port_len = (size_t) (s + n - port);
		}
	}
	else
	{
		const char *colon = memchr(s, ':', n);

		/* One colon: host:port. More: an unbracketed IPv6 address, default port. */
		if (colon != NULL && memchr(colon + 1, ':', (size_t) (s + n - colon - 1)) == NULL)
		{
			host_len = (size_t) (colon - s);
			port = colon + 1;
			port_len = (size_t) (s + n - port);
			if (host_len == 0)
				return cf_status_make(CF_ERR_INVALID, "hosts: \"%.*s\": no host name "
									  "before ':'", (int) n, s);
		}
	}
	if (port != NULL)
	{
		portnum = 0;
		for (size_t i = 0; i < port_len && portnum <= 65535; i++)
		{
			if (port[i] < '0' || port[i] > '9')
			{
				portnum = -1;
				break;
			}
			portnum = portnum * 10 + (port[i] - '0');
		}
		if (port_len == 0 || portnum < 1 || portnum > 65535)
			return cf_status_make(CF_ERR_INVALID, "hosts: \"%.*s\": port must be a number "
								  "from 1 to 65535", (int) n, s);
	}
	out->host = dup_str(host, host_len);
	snprintf(out->port, sizeof(out->port), "%ld", portnum);
	if (out->host != NULL)
	{
		bool		v6 = memchr(host, ':', host_len) != NULL;
		size_t		dlen = host_len + strlen(out->port) + 4;

		out->desc = malloc(dlen);
		if (out->desc != NULL)
			snprintf(out->desc, dlen, v6 ? "[%s]:%s" : "%s:%s", out->host, out->port);
	}
	if (out->host == NULL || out->desc == NULL)
		return cf_status_make(CF_ERR_NO_MEMORY, "out of memory");
	return NULL;
}

static cf_status *
parse_hosts(cfc_conn *c, const char *list)
{
	int			n = 1;
	const char *p;

	if (list == NULL)
		return cf_status_make(CF_ERR_INVALID, "hosts: no host given (expected "
							  "\"host[:port],...\", default port %d, or a unix socket's "
							  "/path)", CFC_DEFAULT_PORT);
	for (p = list; *p; p++)
		n += *p == ',';
	c->hosts = calloc((size_t) n, sizeof(*c->hosts));
	if (c->hosts == NULL)
		return cf_status_make(CF_ERR_NO_MEMORY, "out of memory");
	p = list;
	for (int i = 0; i < n; i++)
	{
		const char *end = strchr(p, ',');
		cf_status  *s;

		if (end == NULL)
			end = p + strlen(p);
		s = parse_host(p, (size_t) (end - p), &c->hosts[i]);
		c->n_hosts = i + 1;		/* so cfc_free frees what was made */
		if (s != NULL)
			return s;
		p = end + 1;
	}
	return NULL;
}

static cf_status *
check_nonneg(int v, const char *name)
{
	if (v < 0)
		return cf_status_make(CF_ERR_INVALID, "%s must not be negative (0: default)", name);
	return NULL;
}

cf_status *
cfc_new(const cfc_options *opt, cfc_conn **out)
{
	cfc_conn   *c;
	cf_status  *s;

	*out = NULL;
	if ((s = check_nonneg(opt->connect_timeout_ms, "connect_timeout_ms")) != NULL ||
		(s = check_nonneg(opt->io_timeout_ms, "io_timeout_ms")) != NULL ||
		(s = check_nonneg(opt->max_attempts, "max_attempts")) != NULL)
		return s;
	if (opt->max_frame != 0 && (opt->max_frame < 64 || opt->max_frame > INT32_MAX))
		return cf_status_make(CF_ERR_INVALID, "max_frame must be from 64 to %d bytes "
							  "(0: default %u)", INT32_MAX, CFC_DEFAULT_MAX_FRAME);
	if (opt->password != NULL && opt->username == NULL)
		return cf_status_make(CF_ERR_INVALID, "a password was given without a username");
	c = calloc(1, sizeof(*c));
	if (c == NULL)
		return cf_status_make(CF_ERR_NO_MEMORY, "out of memory");
	c->fd = -1;
	c->host = -1;
	c->connect_timeout_ms = opt->connect_timeout_ms ? opt->connect_timeout_ms
		: CFC_DEFAULT_CONNECT_TIMEOUT_MS;
	c->io_timeout_ms = opt->io_timeout_ms ? opt->io_timeout_ms : CFC_DEFAULT_IO_TIMEOUT_MS;
	c->max_frame = opt->max_frame ? opt->max_frame : CFC_DEFAULT_MAX_FRAME;
	c->max_attempts = opt->max_attempts ? opt->max_attempts : CFC_DEFAULT_MAX_ATTEMPTS;
	c->retry_writes = !opt->no_retry_writes;
	c->cancel = opt->cancel;
	c->cancel_arg = opt->cancel_arg;
	cf_buf_init(&c->wbuf, 0);
	if ((s = parse_hosts(c, opt->hosts)) != NULL)
	{
		cfc_free(c);
		return s;
	}
	if ((opt->keyspace && (c->keyspace = strdup(opt->keyspace)) == NULL) ||
		(opt->username && (c->username = strdup(opt->username)) == NULL) ||
		(opt->password && (c->password = strdup(opt->password)) == NULL))
	{
		cfc_free(c);
		return cf_status_make(CF_ERR_NO_MEMORY, "out of memory");
	}
	*out = c;
	return NULL;
}

void
cfc_free_secret(char *s)
{
	if (s != NULL)
	{
		explicit_bzero(s, strlen(s));
		free(s);
	}
}

void
cfc_free(cfc_conn *c)
{
	if (c == NULL)
		return;
	cfc_close_socket(c);
	for (int i = 0; i < c->n_hosts; i++)
	{
		free(c->hosts[i].host);
		free(c->hosts[i].desc);
	}
	free(c->hosts);
	free(c->keyspace);
	cfc_free_secret(c->username);
	cfc_free_secret(c->password);
	cf_buf_free(&c->wbuf);
	cf_arena_free(c->scratch);
	free(c);
}

const char *
cfc_host(const cfc_conn *c)
{
	return c->fd >= 0 && c->host >= 0 ? c->hosts[c->host].desc : NULL;
}

void
cfc_set_cancel(cfc_conn *c, cfc_cancel_fn fn, void *arg)
{
	c->cancel = fn;
	c->cancel_arg = arg;
}

/* ---------------------------------------------------------------- waiting */

static int64_t
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t) ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/*
 * Between two slices of a wait that began with deadline = start + timeout_ms: the
 * error when the cancel callback says so or the deadline has passed, else NULL.
 */
static cf_status *
wait_over(cfc_conn *c, int64_t deadline, int timeout_ms, const char *what,
		  const char *desc)
{
	if (c->cancel != NULL && c->cancel(c->cancel_arg))
		return cf_status_make(CF_ERR_CANCELLED, "%s %s: cancelled", what, desc);
	if (deadline - now_ms() <= 0)
		return cf_status_make(CF_ERR_TIMEOUT, "%s %s: no progress in %d ms "
							  "(the host may be overloaded or unreachable)",
							  what, desc, timeout_ms);
	return NULL;
}

/*
 * Waits until fd is ready for events, at most timeout_ms, asking the cancel callback
 * every slice. what/desc name the operation for the messages.
 */
static cf_status *
wait_fd(cfc_conn *c, int fd, short events, int timeout_ms, const char *what,
		const char *desc)
{
	int64_t		deadline = now_ms() + timeout_ms;

	for (;;)
	{
		struct pollfd pfd = {fd, events, 0};
		int64_t		left = deadline - now_ms();
		int			r;
		cf_status  *s;

		if ((s = wait_over(c, deadline, timeout_ms, what, desc)) != NULL)
			return s;
		r = poll(&pfd, 1, (int) (left < CFC_POLL_SLICE_MS ? left : CFC_POLL_SLICE_MS));
		if (r > 0)
			return NULL;		/* ready, or an error condition the next call reports */
		if (r < 0 && errno != EINTR)
			return cf_status_errno(errno, "%s %s: poll", what, desc);
	}
}

/* ---------------------------------------------------------------- connect */

void
cfc_close_socket(cfc_conn *c)
{
	if (c->prefetcher != NULL)
		cfc_range_pager_forget(c->prefetcher);
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
	c->host = -1;
	c->rpos = c->rlen = 0;
}

void
cfc_disconnect(cfc_conn *c)
{
	cfc_close_socket(c);
}

/* What a failed connect to a unix socket likely means, or NULL. */
static const char *
unix_connect_hint(int errnum)
{
	switch (errnum)
	{
		case ENOENT:
			return "no socket there: is colfamd running with this rpc_unix_socket?";
		case ECONNREFUSED:
			return "nothing accepts on it: colfamd may have stopped";
		case EAGAIN:
			return "the server's queue of new connections is full";
		default:
			return NULL;
	}
}

/* Connects to one address; returns the fd or -1 with *err set. */
static int
connect_addr(cfc_conn *c, const struct addrinfo *ai, const char *desc, cf_status **err)
{
	int			fd = socket(ai->ai_family, ai->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC,
							ai->ai_protocol);
	int			one = 1;
	int			soerr = 0;
	int			flags;
	socklen_t	len = sizeof(soerr);
	/* a slice, or the whole io timeout when that is shorter, so a wait never overruns it */
	int			slice_ms = c->io_timeout_ms < CFC_POLL_SLICE_MS ? c->io_timeout_ms
		: CFC_POLL_SLICE_MS;
	struct timeval slice = {slice_ms / 1000, (slice_ms % 1000) * 1000};

	if (fd < 0)
	{
		*err = cf_status_errno(errno, "connecting to %s: socket", desc);
		return -1;
	}
	if (connect(fd, ai->ai_addr, ai->ai_addrlen) < 0)
	{
		/* a unix socket does not connect in the background: any failure is final */
		if (ai->ai_family == AF_UNIX || (errno != EINPROGRESS && errno != EINTR))
		{
			const char *hint = ai->ai_family == AF_UNIX ? unix_connect_hint(errno) : NULL;

			*err = cf_status_make(CF_ERR_IO, "connecting to %s: %s%s%s%s", desc,
								  strerror(errno), hint ? " (" : "", hint ? hint : "",
								  hint ? ")" : "");
			close(fd);
			return -1;
		}
		*err = wait_fd(c, fd, POLLOUT, c->connect_timeout_ms, "connecting to", desc);
		if (*err == NULL && getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &len) < 0)
			soerr = errno;
		if (*err == NULL && soerr != 0)
			*err = cf_status_make(CF_ERR_IO, "connecting to %s: %s", desc, strerror(soerr));
		if (*err != NULL)
		{
			close(fd);
			return -1;
		}
	}
	/* Requests are one write each; never wait for Nagle. Failure only costs latency. */
	if (ai->ai_family != AF_UNIX)
		(void) setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	/* from now on recv blocks, one slice at a time (see the top of the file) */
	if ((flags = fcntl(fd, F_GETFL)) < 0 || fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) < 0 ||
		setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &slice, sizeof(slice)) < 0)
	{
		*err = cf_status_errno(errno, "connecting to %s: setting the socket's timeout", desc);
		close(fd);
		return -1;
	}
	return fd;
}

/* Connects to the unix socket of host i; NULL on success with c->fd set. */
static cf_status *
connect_unix(cfc_conn *c, int i)
{
	const cfc_host_addr *h = &c->hosts[i];
	struct sockaddr_un sa;
	struct addrinfo ai = {0};
	cf_status  *err;
	int			fd;

	if ((err = cf_unix_sockaddr(h->host, &sa, &ai.ai_addrlen)) != NULL)
		return err;
	ai.ai_family = AF_UNIX;
	ai.ai_socktype = SOCK_STREAM;
	ai.ai_addr = (struct sockaddr *) &sa;
	fd = connect_addr(c, &ai, h->desc, &err);
	if (fd < 0)
		return err;
	c->fd = fd;
	c->host = i;
	c->rpos = c->rlen = 0;
	return NULL;
}

/* Connects to host i (any of its addresses); NULL on success with c->fd set. */
static cf_status *
connect_host(cfc_conn *c, int i)
{
	const cfc_host_addr *h = &c->hosts[i];
	struct addrinfo hints = {0};
	struct addrinfo *res = NULL;
	cf_status  *err = NULL;
	int			r;

	if (h->unix_socket)
		return connect_unix(c, i);
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_NUMERICSERV;
	r = getaddrinfo(h->host, h->port, &hints, &res);
	if (r != 0)
		return cf_status_make(CF_ERR_IO, "connecting to %s: cannot resolve host: %s",
							  h->desc, r == EAI_SYSTEM ? strerror(errno) : gai_strerror(r));
	for (struct addrinfo *ai = res; ai != NULL; ai = ai->ai_next)
	{
		int			fd;

		cf_status_free(err);
		err = NULL;
		fd = connect_addr(c, ai, h->desc, &err);
		if (fd >= 0)
		{
			c->fd = fd;
			c->host = i;
			c->rpos = c->rlen = 0;
			break;
		}
		if (cf_status_code(err) == CF_ERR_CANCELLED)
			break;
	}
	freeaddrinfo(res);
	return err;
}

cf_status *
cfc_connect(cfc_conn *c)
{
	char		failures[CF_STATUS_MSG_MAX] = "";
	size_t		flen = 0;
	bool		all_timeouts = true;

	if (c->fd >= 0)
		return NULL;
	for (int tried = 0; tried < c->n_hosts; tried++)
	{
		int			i = (c->next_host + tried) % c->n_hosts;
		cf_status  *s = connect_host(c, i);
		bool		lost = false;

		if (s == NULL)
		{
			s = cfc_session_setup(c, &lost);
			if (s == NULL)
			{
				c->next_host = i;
				return NULL;
			}
		}
		/*
		 * Cancel, and refusals of login or keyspace, are the same on every host: stop.
		 * A host that is down, slow or drops us: try the next.
		 */
		if (cf_status_code(s) != CF_ERR_IO && cf_status_code(s) != CF_ERR_TIMEOUT &&
			!lost)
		{
			c->next_host = i;
			return s;
		}
		all_timeouts &= cf_status_code(s) == CF_ERR_TIMEOUT;
		if (flen < sizeof(failures))
			flen += (size_t) snprintf(failures + flen, sizeof(failures) - flen, "%s%s",
									  flen ? "; " : "", cf_status_msg(s));
		cf_status_free(s);
	}
	/* Next time start after the host we began with, so one dead host is not first. */
	c->next_host = (c->next_host + 1) % c->n_hosts;
	/* TIMEOUT only when every host timed out: then they may be merely slow. */
	if (c->n_hosts == 1)
		return cf_status_make(all_timeouts ? CF_ERR_TIMEOUT : CF_ERR_IO, "%s", failures);
	return cf_status_make(all_timeouts ? CF_ERR_TIMEOUT : CF_ERR_IO,
						  "could not connect to any of %d hosts: %s", c->n_hosts, failures);
}

/* ---------------------------------------------------------------- framed I/O */

/* A failed send/recv: closes the socket; resets and EOF count as a lost connection. */
static cf_status *
io_failed(cfc_conn *c, int errnum, const char *what, bool *lost)
{
	const char *desc = c->host >= 0 ? c->hosts[c->host].desc : "?";
	cf_status  *s;

	if (errnum == 0)
		s = cf_status_make(CF_ERR_IO, "%s %s: the server closed the connection", what, desc);
	else
		s = cf_status_make(CF_ERR_IO, "%s %s: %s", what, desc, strerror(errnum));
	*lost = true;
	cfc_close_socket(c);
	return s;
}

/* A wait that ended without the socket becoming ready: closes the socket. */
static cf_status *
wait_io(cfc_conn *c, short events, const char *what)
{
	cf_status  *s = wait_fd(c, c->fd, events, c->io_timeout_ms, what,
							c->hosts[c->host].desc);

	if (s != NULL)
		cfc_close_socket(c);
	return s;
}

cf_status *
cfc_send_frame(cfc_conn *c, const char *what, bool *lost)
{
	size_t		off = 0;

	while (off < c->wbuf.len)
	{
		ssize_t		r = send(c->fd, c->wbuf.data + off, c->wbuf.len - off,
							 MSG_NOSIGNAL | MSG_DONTWAIT);
		cf_status  *s;

		if (r > 0)
		{
			off += (size_t) r;
			continue;
		}
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0 && errno != EAGAIN && errno != EWOULDBLOCK)
			return io_failed(c, errno, what, lost);
		if ((s = wait_io(c, POLLOUT, what)) != NULL)
			return s;
	}
	return NULL;
}

/*
 * Receives exactly n bytes into dst: first from the buffer, then from the socket (big
 * remainders straight into dst, small ones through the buffer to save syscalls).
 */
static cf_status *
recv_exact(cfc_conn *c, uint8_t *dst, size_t n, const char *what, bool *lost)
{
	int64_t		deadline = 0;	/* of the wait in progress, 0 when none */

	for (;;)
	{
		size_t		have = c->rlen - c->rpos;
		size_t		take = have < n ? have : n;
		uint8_t    *into;
		size_t		room;
		ssize_t		r;
		cf_status  *s;

		memcpy(dst, c->rbuf + c->rpos, take);
		c->rpos += take;
		dst += take;
		n -= take;
		if (n == 0)
			return NULL;
		/* The buffer is empty now. */
		c->rpos = c->rlen = 0;
		if (n >= CFC_RBUF_SIZE)
			into = dst, room = n;
		else
			into = c->rbuf, room = CFC_RBUF_SIZE;
		if (deadline == 0)
			deadline = now_ms() + c->io_timeout_ms;
		r = recv(c->fd, into, room, 0);	/* returns within a slice */
		if (r > 0)
		{
			deadline = 0;		/* progress: the next wait has its own timeout */
			if (into == dst)
				dst += r, n -= (size_t) r;
			else
				c->rlen = (size_t) r;
			continue;
		}
		if (r == 0)
			return io_failed(c, 0, what, lost);
		if (errno != EINTR && errno != EAGAIN && errno != EWOULDBLOCK)
			return io_failed(c, errno, what, lost);
		/* a slice passed or a signal came, and nothing arrived */
		if ((s = wait_over(c, deadline, c->io_timeout_ms, what,
						   c->hosts[c->host].desc)) != NULL)
		{
			cfc_close_socket(c);
			return s;
		}
	}
}

cf_status *
cfc_recv_frame(cfc_conn *c, const char *what, cf_arena *arena, const uint8_t **payload,
			   size_t *len, bool *lost)
{
	uint8_t		hdr[4];
	uint32_t	n;
	uint8_t    *p;
	cf_status  *s;

	if ((s = recv_exact(c, hdr, 4, what, lost)) != NULL)
		return s;
	n = cf_load_be32(hdr);
	if (n > c->max_frame)
	{
		s = cf_status_make(CF_ERR_PROTOCOL, "%s %s: frame of %u bytes exceeds max_frame "
						   "(%zu bytes): the port may not speak framed Thrift, or the "
						   "reply is that large (raise max_frame)", what,
						   c->hosts[c->host].desc, n, c->max_frame);
		cfc_close_socket(c);
		return s;
	}
	p = cf_arena_alloc(arena, n);
	if (p == NULL)
	{
		/* Made before the close, which forgets the host. */
		s = cf_status_make(CF_ERR_NO_MEMORY, "%s %s: out of memory for a %u-byte reply",
						   what, c->hosts[c->host].desc, n);
		cfc_close_socket(c);	/* the frame is unread: the stream is out of step */
		return s;
	}
	if ((s = recv_exact(c, p, n, what, lost)) != NULL)
		return s;
	*payload = p;
	*len = n;
	return NULL;
}
