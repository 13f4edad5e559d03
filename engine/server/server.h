/*
 * server/server.h — colfamd's network server: a listening socket, one epoll event
 * loop per thread, framed transport, a worker pool that runs requests, connection
 * limits and a bounded, draining shutdown. It knows nothing of Thrift's structs or of
 * the database: it hands each complete frame to a request handler (below) and writes
 * back what the handler appends. Redis's split, in C: read → frame → queue → execute
 * → queue reply are separate steps, and the executor never touches a socket.
 *
 * Wire: TFramedTransport. A frame is a 4-byte big-endian length N, then N bytes (one
 * Thrift message). N < CF_SERVER_FRAME_MIN or N > max_frame closes the connection
 * (logged at info with the peer). A connection whose frame starts with 0x80 0x01 (the
 * strict binary version, i.e. an UNFRAMED client) is answered with one unframed
 * TApplicationException PROTOCOL_ERROR "unframed transport is not supported; use
 * TFramedTransport" when its header is readable, logged, and closed: unframed messages
 * have no length, so serving them would mean parsing every message here.
 *
 * Order and sessions: requests of one connection run one at a time, in arrival order,
 * and their replies go out in that order — a Thrift client matches replies to calls by
 * order, and a session's state (login, set_keyspace) must apply before the next call
 * on it. Pipelined requests queue on their connection (bounded, see below) while other
 * connections' requests run in parallel on the workers; when a connection's requests
 * start, all those waiting go to one worker as a batch, run in order (one handoff per
 * batch rather than per request).
 *
 * Memory bounds per connection: a frame in progress grows with the bytes that arrive
 * (never to more than max_frame); a connection stops being read while it has
 * CF_SERVER_MAX_PIPELINE requests waiting or while its waiting requests plus unsent
 * replies exceed conn_buffer_limit bytes, and no request of it starts while its unsent
 * replies exceed that limit (a batch stops there too); both resume when the client
 * reads. A client that never reads thus holds about conn_buffer_limit, plus one read
 * (64 KiB) of requests, one frame in progress and one reply past the limit.
 *
 * Threads: io_threads loop threads own the sockets; worker_threads run the handler
 * (0: the handler runs inline on the loop thread — only for handlers that never
 * block). The listening sockets (TCP, and the unix socket when there is one) are
 * shared by every loop (EPOLLEXCLUSIVE); an accepted connection is handed round-robin
 * to a loop, which owns it for life. Both kinds of connection are served alike: same
 * framing, limits, sessions and authentication. Threads are named (cf-loop-N,
 * cf-worker-N) for top -H and /proc.
 *
 * Pinned loops (io_cpus): with each loop held on one CPU, a client on the same machine
 * that talks to a loop tends to be woken on that loop's CPU, and their round trip
 * stays on one CPU: a wake-up there is a switch, not an inter-processor interrupt,
 * and on a virtual machine an IPI costs an exit to the hypervisor (a same-CPU pipe
 * round trip took 4.3 µs on the 2-CPU test VM, a cross-CPU one 44 µs). colfam_fdw's
 * backends are such clients; a unix-socket client is given to the loop on the CPU it
 * ran on when it connected (round robin when that is unknown). Off by default: on a
 * machine shared with other busy processes a pinned loop cannot move away from a CPU
 * they keep busy.
 *
 * Inline requests: a handle on a worker costs two thread hand-offs (loop → worker →
 * loop: a condition variable and an eventfd), several times the work of a short
 * request. A handler with a route callback names the requests that are short and
 * seldom block; those run inline on the loop thread, the others on the workers, and
 * one connection's requests still run one at a time and reply in order (a run of
 * inline requests at the head of its queue runs inline; a job for the workers takes
 * every request waiting, inline ones included). route puts each inline request in a
 * lane (a kind of request that may block for the same reason, e.g. reads, writes):
 * when one inline request of a lane runs longer than CF_SERVER_INLINE_SLOW_US and
 * its thread blocked meanwhile (it was not merely preempted), the loop sends that
 * lane's requests to the workers for the next CF_SERVER_INLINE_BACKOFF_US, so a
 * request that does block (a write waiting for a memtable flush) stalls its loop
 * once, not for as long as the cause lasts.
 */
#ifndef CF_SERVER_SERVER_H
#define CF_SERVER_SERVER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "util/buf.h"
#include "util/slice.h"
#include "util/status.h"

/* Shortest frame accepted: anything shorter cannot hold a message header. */
#define CF_SERVER_FRAME_MIN 4

/* Requests that may wait on one connection before it stops being read. */
#define CF_SERVER_MAX_PIPELINE 128

/* route's answers: run on a worker, or inline on the loop in lane 1..CF_SERVER_LANES. */
#define CF_SERVER_POOL 0
#define CF_SERVER_LANES 4

/* An inline request slower than this sends its lane to the workers for a while ... */
#define CF_SERVER_INLINE_SLOW_US 5000
/* ... for this long, on its loop. */
#define CF_SERVER_INLINE_BACKOFF_US 500000

/* Who is on the other end of a connection. */
typedef struct cf_peer_info
{
	uint64_t	id;				/* connection number, unique within the server, from 1 */
	char		addr[64];		/* "127.0.0.1:53122" or "[::1]:53122" */
	struct sockaddr_storage sa;
	socklen_t	salen;
} cf_peer_info;

/*
 * The request handler: what the server runs for each frame. Every callback but
 * handle may be NULL. The server copies the struct; ctx must outlive the server. The
 * callbacks of different sessions run concurrently on different threads, so whatever
 * ctx shares between sessions must be thread-safe.
 *
 * session_open: on a new connection, on its loop thread, before any handle of it.
 *   Returns the session pointer given to handle and session_close (may be NULL).
 *   Must not block.
 * session_close: once per opened session, on its loop thread, after the last handle
 *   of the session has returned (the connection is closed by then). Must not block.
 * handle: one complete message (the frame's payload, without the length), on a worker
 *   thread (on the loop thread with worker_threads 0). Never called concurrently for
 *   one session; calls of different sessions run in parallel. request is valid only
 *   during the call. The handler appends the reply message to reply, which is empty,
 *   limited to max_frame bytes; leaving it empty sends nothing (a oneway call). A
 *   handler whose reply does not fit may cf_buf_reset it and write something smaller;
 *   a reply still failed (cf_buf_ok false) when handle returns closes the connection
 *   with an error logged. Returns false to close the connection once this reply is
 *   sent (requests still queued on it are dropped).
 * route: on the connection's loop thread, before the request runs, while no handle
 *   of its session runs. Returns CF_SERVER_POOL to run the request on a worker, or a
 *   lane 1..CF_SERVER_LANES to run it inline on the loop thread (see "Inline
 *   requests" above); anything else counts as CF_SERVER_POOL. Must be cheap (it runs
 *   once per request on the loop) and must not block. NULL, or worker_threads 0:
 *   every request runs where worker_threads says. A request may be routed before
 *   the requests ahead of it on its connection have run (a run of pipelined inline
 *   requests is routed first, then run), so a route that reads session state sees
 *   it as it was before them; a request routed to the workers ends the run, and the
 *   requests behind it go with it.
 * drain: once, from cf_server_shutdown, after every request finished and every
 *   session closed, on the thread that called shutdown (colfamd flushes and closes
 *   the database here). Not called when the shutdown timed out.
 */
typedef struct cf_server_handler
{
	void	   *(*session_open) (void *ctx, const cf_peer_info *peer);
	void		(*session_close) (void *ctx, void *session);
	bool		(*handle) (void *ctx, void *session, cf_slice request, cf_buf *reply);
	int			(*route) (void *ctx, void *session, cf_slice request);
	void		(*drain) (void *ctx);
	void	   *ctx;
} cf_server_handler;

typedef struct cf_server_options
{
	const char *address;		/* numeric address or host name (its first address);
								 * NULL: 127.0.0.1 */
	uint16_t	port;			/* 0: an ephemeral port (tests; see cf_server_port) */
	unsigned	io_threads;		/* event loops; 0: one per online CPU */
	unsigned	worker_threads; /* request workers; 0: run requests on the loop thread */
	size_t		max_frame;		/* largest frame accepted and reply sent, bytes; 0: 15 MiB */
	unsigned	max_connections;	/* more are accepted and closed at once; 0: 1024 */
	size_t		conn_buffer_limit;	/* per-connection waiting requests + unsent replies;
									 * 0: 4 MiB */
	bool		keepalive;		/* SO_KEEPALIVE on client sockets */
	int			send_buffer;	/* SO_SNDBUF of client sockets; 0: the OS default */
	int			recv_buffer;	/* SO_RCVBUF of client sockets; 0: the OS default */
	const char *unix_path;		/* also listen on this unix-domain socket (local clients
								 * skip TCP's per-packet cost); NULL or "": not */
	unsigned	unix_mode;		/* its permission bits (as chmod); 0: 0700 */
	const char *io_cpus;		/* pin event loop i to the i-th CPU of this list
								 * (util/cpulist.h; round robin when the loops
								 * outnumber it); NULL, "" or "none": not pinned */
} cf_server_options;

typedef struct cf_server cf_server;

/*
 * Creates the server: resolves address, binds (SO_REUSEADDR) and listens, but runs no
 * thread yet, so a caller can bind before a slow start-up step (opening the database)
 * and fail fast on a busy port. With unix_path it also listens there, after the TCP
 * port: a socket file left by a colfamd that died is replaced, but only when it is a
 * socket nobody accepts on; any other file there, or a live socket, is an error
 * (CF_ERR_BUSY for a socket in use, CF_ERR_INVALID for a file that is not a socket).
 * The socket file is removed by cf_server_shutdown and cf_server_free, when it is
 * still the one this server made. Errors: CF_ERR_BUSY "port P on A is in use";
 * CF_ERR_INVALID for an address that does not resolve or is not this machine's;
 * CF_ERR_AUTHORIZATION for a privileged port; CF_ERR_IO otherwise; CF_ERR_INVALID
 * for options out of range (no handle, max_frame < CF_SERVER_FRAME_MIN, no
 * connections allowed, an io_cpus that util/cpulist.h refuses).
 */
cf_status  *cf_server_create(const cf_server_options *opts, const cf_server_handler *h,
							 cf_server **out);

/* The port listened on (the ephemeral one when opts->port was 0). */
uint16_t	cf_server_port(const cf_server *srv);

/* "127.0.0.1:9160", for log lines. Valid as long as srv. */
const char *cf_server_address(const cf_server *srv);

/* The unix socket's path, or NULL when it listens on TCP only. Valid as long as srv. */
const char *cf_server_unix_path(const cf_server *srv);

/* The event loops it runs (opts->io_threads, or the default that 0 chose). */
unsigned	cf_server_io_threads(const cf_server *srv);

/* Starts the loop and worker threads: connections are accepted from now on. */
cf_status  *cf_server_start(cf_server *srv);

/*
 * Stops the server gracefully. Stops accepting at once (the listening socket is closed,
 * so new connections are refused); stops reading requests; runs every request already
 * received and sends its reply; closes each connection when it has nothing left. When
 * every connection is closed before timeout_ms, stops the threads, calls the handler's
 * drain and returns NULL. At the deadline the remaining connections are closed (their
 * unanswered requests dropped) and running requests get up to one more second; if one
 * still runs, returns CF_ERR_TIMEOUT without calling drain: the process should then
 * exit (cf_server_free would wait for that request). Call once, from one thread.
 */
cf_status  *cf_server_shutdown(cf_server *srv, int timeout_ms);

/*
 * Stops everything still running (waiting for running requests to return), closes
 * every connection and frees the server. Does not call drain. NULL is accepted.
 */
void		cf_server_free(cf_server *srv);

typedef struct cf_server_stats
{
	uint64_t	connections;	/* open now */
	uint64_t	accepted;		/* since start, refused ones excluded */
	uint64_t	refused;		/* closed at accept: over max_connections or out of fds */
	uint64_t	requests;		/* frames handled */
	uint64_t	inline_requests;	/* of those, run on a loop thread */
	uint64_t	inline_backoffs;	/* times a slow inline request sent its lane to the
									 * workers */
	uint64_t	protocol_errors;	/* connections closed for a bad frame */
	uint64_t	bytes_in;
	uint64_t	bytes_out;
	uint64_t	read_pauses;	/* times a connection stopped being read for its buffers */
	uint64_t	peak_buffered;	/* most waiting-request + unsent-reply bytes of one conn */
} cf_server_stats;

void		cf_server_stats_get(cf_server *srv, cf_server_stats *st);

#endif							/* CF_SERVER_SERVER_H */
