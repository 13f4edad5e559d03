/*
 * server/server_int.h — the server's private structs, shared by server.c (lifecycle),
 * loop.c (event loops), conn.c (connections) and workers.c (the request pool). Not
 * for use outside engine/server.
 *
 * Ownership: a connection belongs to its loop thread, except its job fields while busy
 * is set: then the worker running the job owns job, job_n, job_replies, job_ran and
 * job_keep, and hands them back through the loop's mailbox (cf_srv_post_done). A
 * connection is freed only by its loop thread, when it is closed (dead) and not busy.
 *
 * A job is every request waiting on the connection when it starts (up to
 * CF_SERVER_MAX_PIPELINE), run in order by one worker: a pipelining client pays one
 * handoff per batch, not one per request. An inline job is the run of requests at the
 * head of the queue that the handler's route puts in one lane not backed off on the
 * loop; it runs on the loop thread, in the same job fields, and is done before the
 * loop does anything else.
 */
#ifndef CF_SERVER_SERVER_INT_H
#define CF_SERVER_SERVER_INT_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <sys/types.h>

#include "server/frame.h"
#include "server/server.h"
#include "util/env.h"

#define SRV_LOG "server"

/* Bytes one read(2) of a connection takes at most: each loop's scratch buffer. */
#define SRV_SCRATCH_SIZE (64u * 1024)

/* What an epoll event's data.ptr points to (the first member of each target). */
enum
{
	SRV_EV_LISTEN = 1,			/* the TCP listener */
	SRV_EV_LISTEN_UNIX,			/* the unix-domain listener */
	SRV_EV_WAKE,
	SRV_EV_CONN,
};

/* Server states, in the order a shutdown moves through them. */
enum
{
	SRV_RUNNING = 0,
	SRV_DRAINING,				/* stop accepting and reading; finish what was received */
	SRV_FORCE,					/* close every connection now */
	SRV_STOPPED,				/* loops exit */
};

/* One reply waiting to be written: a frame header and the handler's buffer. */
typedef struct srv_out
{
	struct srv_out *next;
	uint8_t		hdr[4];
	cf_buf		body;
	size_t		off;			/* bytes of hdr + body sent; starts at 4 for a raw reply */
} srv_out;

typedef struct srv_loop srv_loop;

typedef struct srv_conn
{
	int			kind;			/* SRV_EV_CONN */
	int			fd;				/* -1 once closed */
	srv_loop   *loop;
	struct srv_conn *prev;		/* the loop's live list, or its graveyard (next only) */
	struct srv_conn *next;
	struct srv_conn *next_job;	/* the pool's queue or a loop's done mailbox */
	cf_peer_info peer;
	void	   *session;
	bool		session_open;

	cf_frame_reader rd;
	cf_frame   *qhead;			/* received requests not yet run */
	cf_frame   *qtail;
	unsigned	nqueued;
	size_t		queued_bytes;	/* their bytes plus the running request's */
	srv_out    *ohead;			/* replies not yet fully written */
	srv_out    *otail;
	size_t		out_bytes;
	uint32_t	events;			/* epoll interest registered */
	bool		busy;			/* a request is with a worker */
	bool		closing;		/* read no more; close once nothing is left to do */
	bool		dead;			/* socket closed; freed once not busy */
	bool		paused;			/* not read because its buffers are full */

	cf_frame   *job;			/* the requests being run, in order */
	unsigned	job_n;
	cf_buf	   *job_replies;	/* job_n replies: job_reply1, or malloc'd */
	cf_buf		job_reply1;
	unsigned	job_ran;		/* requests handled (fewer after a close or a failed reply) */
	bool		job_keep;		/* the last one handled did not ask to close */
} srv_conn;

/* An accepted socket on its way to the loop that will own it. */
typedef struct srv_handoff
{
	int			fd;
	struct sockaddr_storage sa;
	socklen_t	salen;
} srv_handoff;

struct srv_loop
{
	int			wake_kind;		/* SRV_EV_WAKE: data.ptr of the eventfd */
	int			listen_kind;	/* SRV_EV_LISTEN: data.ptr of the listening socket */
	int			unix_kind;		/* SRV_EV_LISTEN_UNIX: data.ptr of the unix one */
	cf_server  *srv;
	unsigned	idx;
	pthread_t	thread;
	bool		running;		/* thread started and not joined */
	int			ep;
	int			wakefd;

	pthread_mutex_t mu;			/* the mailbox: */
	srv_conn   *done_head;		/* connections whose job finished */
	srv_conn   *done_tail;
	srv_handoff *hand;			/* accepted sockets handed to this loop */
	size_t		nhand;
	size_t		caphand;

	/* loop thread only */
	bool		listening;		/* the listening sockets are in this epoll */
	int			seen_state;
	srv_conn   *live;
	size_t		nlive;
	srv_conn   *grave;
	uint8_t    *scratch;
	int64_t		lane_pool_until[CF_SERVER_LANES + 1];	/* µs: backed off until then */
	long		inline_nvcsw;	/* the thread's voluntary context switches ... */
	bool		inline_marked;	/* ... counted since the last epoll_wait */
};

struct cf_server
{
	cf_server_options o;
	cf_server_handler h;
	char	   *address;		/* copy of o.address */
	char		addrstr[80];	/* "host:port" for logs */
	uint16_t	port;
	int			listen_fd;
	int			unix_fd;		/* -1: no unix socket */
	char	   *unix_path;		/* o.unix_path's copy, NULL when none */
	dev_t		unix_dev;		/* the socket file made, removed only if still there */
	ino_t		unix_ino;
	bool		unix_made;		/* the file at unix_path is ours to remove */
	int			spare_fd;		/* given up to accept-and-close when out of fds */
	pthread_mutex_t spare_mu;
	bool		exclusive;		/* the listening socket is in every loop */
	bool		started;
	bool		joined;			/* loops and workers stopped */

	srv_loop   *loops;
	unsigned	nloops;
	int		   *io_cpus;		/* loop i's CPU is io_cpus[i % n_io_cpus]; NULL: none */
	size_t		n_io_cpus;

	/* the worker pool (workers.c) */
	pthread_t  *workers;
	unsigned	nworkers;
	unsigned	nworkers_started;
	pthread_mutex_t pmu;
	pthread_cond_t pcv;
	srv_conn   *jhead;
	srv_conn   *jtail;
	bool		pstop;
	unsigned	prunning;		/* jobs being run */
	unsigned	pqueued;		/* jobs in the queue */
	unsigned	pidle;			/* workers waiting on pcv */
	unsigned	pwaking;		/* signals sent that no worker has woken from yet */

	atomic_int	state;
	atomic_uint_fast64_t nconns;	/* accepted and not yet freed */
	atomic_uint_fast64_t next_id;
	atomic_uint	rr;				/* round-robin cursor over loops */

	pthread_mutex_t mu;			/* shutdown's waits: */
	pthread_cond_t cv;
	unsigned	listen_acks;	/* loops that removed the listening socket */
	unsigned	loops_exited;

	atomic_int_fast64_t refuse_logged_at;	/* µs; rate limit of refusal lines */
	atomic_uint_fast64_t refuse_unlogged;

	atomic_uint_fast64_t st_accepted;
	atomic_uint_fast64_t st_refused;
	atomic_uint_fast64_t st_requests;
	atomic_uint_fast64_t st_inline_requests;
	atomic_uint_fast64_t st_inline_backoffs;
	atomic_uint_fast64_t st_protocol_errors;
	atomic_uint_fast64_t st_bytes_in;
	atomic_uint_fast64_t st_bytes_out;
	atomic_uint_fast64_t st_read_pauses;
	atomic_uint_fast64_t st_peak_buffered;
};

static inline void
srv_stat_add(atomic_uint_fast64_t *s, uint64_t n)
{
	atomic_fetch_add_explicit(s, n, memory_order_relaxed);
}

static inline void
srv_stat_max(atomic_uint_fast64_t *s, uint64_t v)
{
	uint64_t	cur = atomic_load_explicit(s, memory_order_relaxed);

	while (v > cur && !atomic_compare_exchange_weak_explicit(s, &cur, v, memory_order_relaxed,
															 memory_order_relaxed))
		;
}

/* The monotonic clock, in µs: the process's POSIX env's. */
static inline int64_t
cf_srv_now_us(void)
{
	return cf_env_mono_micros(cf_env_posix());
}

/* in loop.c */
long		cf_srv_thread_nvcsw(void);
void	   *cf_srv_loop_main(void *arg);
void		cf_srv_loop_wake(srv_loop *l);
void		cf_srv_loop_release(srv_loop *l);
void		cf_srv_conns_changed(cf_server *srv);

/* in conn.c (loop thread, but for run_job and post_done) */
void		cf_srv_conn_new(srv_loop *l, int fd, const struct sockaddr_storage *sa,
							socklen_t salen);
void		cf_srv_conn_read(srv_conn *c);
void		cf_srv_conn_advance(srv_conn *c);
void		cf_srv_conn_close(srv_conn *c);
void		cf_srv_job_done(srv_conn *c);
void		cf_srv_reap(srv_loop *l);
/* The pid of a unix-socket peer (SO_PEERCRED); 0 when unknown (not in this namespace). */
long		cf_srv_peer_pid(int fd);
/* The peer of accepted socket fd: "host:port", or "unix socket, pid N" (SO_PEERCRED). */
void		cf_srv_format_peer(int fd, const struct sockaddr_storage *sa, socklen_t len,
							   char *out, size_t n);
int64_t		cf_srv_run_job(cf_server *srv, srv_conn *c, bool timed);
void		cf_srv_post_done(srv_conn *c);

/* in workers.c */
cf_status  *cf_srv_pool_start(cf_server *srv);
/* false once the pool is stopping: the job was not taken */
bool		cf_srv_pool_submit(cf_server *srv, srv_conn *c);
void		cf_srv_pool_stop(cf_server *srv);

#endif							/* CF_SERVER_SERVER_INT_H */
