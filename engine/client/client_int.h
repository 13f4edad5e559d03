/*
 * client/client_int.h — libcolfam's private header: the connection object and the
 * transport functions call.c builds on. Not for users of the library.
 */
#ifndef CF_CLIENT_CLIENT_INT_H
#define CF_CLIENT_CLIENT_INT_H

#include "client/client.h"
#include "util/buf.h"

#define CFC_RBUF_SIZE 16384

typedef struct cfc_host_addr
{
	char	   *host;			/* without brackets; the path of a unix socket */
	char		port[8];		/* "" for a unix socket */
	char	   *desc;			/* "host:port", "[v6]:port" or the socket's path */
	bool		unix_socket;	/* host is a unix-domain socket's path */
} cfc_host_addr;

struct cfc_conn
{
	/* options, copied */
	cfc_host_addr *hosts;
	int			n_hosts;
	int			connect_timeout_ms;
	int			io_timeout_ms;
	size_t		max_frame;
	int			max_attempts;
	bool		retry_writes;
	cfc_cancel_fn cancel;
	void	   *cancel_arg;

	/* session state, applied on every connect */
	char	   *keyspace;		/* NULL: none */
	char	   *username;		/* NULL: no login */
	char	   *password;

	/* the socket */
	int			fd;				/* -1: not connected */
	int			host;			/* index of the connected host, -1 when none */
	int			next_host;		/* where the next connect starts */
	int32_t		seqid;
	bool		in_call;		/* set during a call (and a prefetch's send or read):
								 * still set means it was abandoned */
	struct cfc_range_pager *prefetcher; /* its next page's request is sent, the reply
										 * unread: read first by any other call */

	cf_buf		wbuf;			/* the frame being sent */
	uint8_t		rbuf[CFC_RBUF_SIZE];	/* received, not yet consumed: [rpos, rlen) */
	size_t		rpos;
	size_t		rlen;
	cf_arena   *scratch;		/* results of calls given no arena */
};

/* ---- in conn.c ---- */

/* Zeroes and frees a stored credential; NULL is ignored. */
void		cfc_free_secret(char *s);

/*
 * Closes the socket, drops buffered bytes; the next call reconnects. A range pager's
 * unread prefetched reply is lost with it (cfc_range_pager_forget).
 */
void		cfc_close_socket(cfc_conn *c);

/*
 * Sends the whole frame in c->wbuf. *lost is set when the connection failed in a way
 * that a resend elsewhere may cure (reset, EOF). Closes the socket on any error.
 */
cf_status  *cfc_send_frame(cfc_conn *c, const char *what, bool *lost);

/*
 * Receives one frame's payload into arena memory (*payload, *len). Errors as
 * cfc_send_frame; a length over max_frame or negative is CF_ERR_PROTOCOL.
 */
cf_status  *cfc_recv_frame(cfc_conn *c, const char *what, cf_arena *arena,
						   const uint8_t **payload, size_t *len, bool *lost);

/* ---- in call.c ---- */

/*
 * The steps of one call, shared by cfc_roundtrip and the admin methods (admin.c):
 *
 * cfc_begin_call: closes the socket when the last call was abandoned (c->in_call still
 * set: its reply is unread), reads a range pager's prefetched reply off the socket
 * (cfc_range_pager_settle); a NULL *arena becomes a fresh scratch arena of c.
 * cfc_begin_frame: starts c->wbuf as a frame (length placeholder); returns the next
 * sequence id, for the CALL message the caller then appends.
 * cfc_exchange: sends that frame (CF_ERR_TOO_LARGE and nothing sent when it exceeds
 * max_frame) and receives the reply frame into arena; errors as cfc_recv_frame. It is
 * cfc_send_request then cfc_recv_reply, which a prefetch does apart.
 * cfc_decode_result: decodes the reply to the CALL of m numbered seqid into res
 * (arena memory); a reply that does not decode is cfc_bad_reply's error.
 * cfc_bad_reply: a reply that did not decode (s, freed): CF_ERR_PROTOCOL naming method
 * and host (CF_ERR_NO_MEMORY stays), and the socket closed, the stream out of step. The
 * socket may be closed already (a range pager's prefetched reply, read earlier).
 */
cf_status  *cfc_begin_call(cfc_conn *c, cf_arena **arena);
int32_t		cfc_begin_frame(cfc_conn *c);
cf_status  *cfc_exchange(cfc_conn *c, const char *name, cf_arena *arena, cf_slice *reply,
						 bool *lost);
cf_status  *cfc_send_request(cfc_conn *c, const char *name, bool *lost);
cf_status  *cfc_recv_reply(cfc_conn *c, const char *name, cf_arena *arena, cf_slice *reply,
						   bool *lost);
cf_status  *cfc_decode_result(cfc_conn *c, cf_t_method m, int32_t seqid, cf_slice reply,
							  cf_arena *arena, cf_t_result *res);
cf_status  *cfc_bad_reply(cfc_conn *c, const char *name, cf_status *s);

/*
 * The retry policy around one request (client.h), shared by cfc_call and colfam's
 * methods (admin.c): connect, then once(c, arg, &lost), which sends the request and
 * returns its outcome (a declared exception's status included), setting *lost when
 * the connection failed mid-flight; when lost and retry, again on the next host, up to
 * max_attempts sends. name is the method's, for the message of a resent failure. Sets
 * c->in_call for its duration (cfc_begin_call comes first).
 */
typedef cf_status *(*cfc_once_fn) (cfc_conn *c, void *arg, bool *lost);
cf_status  *cfc_with_retries(cfc_conn *c, const char *name, bool retry, cfc_once_fn once,
							 void *arg);

/*
 * One request and its reply on the connected socket: no retry, no reconnect. Used by
 * cfc_call and by connect (login, set_keyspace). Declared exceptions stay in res.
 */
cf_status  *cfc_roundtrip(cfc_conn *c, cf_t_method m, const cf_t_args *args,
						  cf_arena *arena, cf_t_result *res, bool *lost);

/*
 * cfc_exception_status's work for exception e of the method named name (with_cl: it
 * takes a consistency level, cl, which its Unavailable/TimedOut messages name); also
 * for colfam's methods (admin.c).
 */
cf_status  *cfc_exception_status_of(const char *name, bool with_cl, int32_t cl,
									const char *host, const cf_t_exception *e);

/* c's host as errors name it: the connected one, else "the server". */
static inline const char *
cfc_host_named(const cfc_conn *c)
{
	return cfc_host(c) ? cfc_host(c) : "the server";
}

/* cfc_exception_status of a reply on c, named by its connected host. */
static inline cf_status *
cfc_conn_exception_status(const cfc_conn *c, cf_t_method m, int32_t cl,
						  const cf_t_result *res)
{
	return cfc_exception_status(m, cl, cfc_host_named(c), res);
}

/* A C string as a slice over it (no copy); NULL is the empty slice. */
static inline cf_slice
cfc_str_slice(const char *s)
{
	return s ? cf_slice_str(s) : cf_slice_of("", 0);
}

/* login's arguments: cred holds username and, when not NULL, password. */
void		cfc_login_args(const char *username, const char *password,
						   cf_t_string_pair cred[2], cf_t_args *args);

/* Zeroes the frame last sent (after a login: it held the password). */
void		cfc_wipe_frame(cfc_conn *c);

/* login and set_keyspace on a fresh connection; closes it on failure. */
cf_status  *cfc_session_setup(cfc_conn *c, bool *lost);

/* ---- in pager.c ---- */

/*
 * A range pager's prefetch (cfc_range_pager_set_prefetch): settle reads the reply
 * that c->prefetcher (p) has in flight into p's memory, so that another call can use
 * the socket; on failure the prefetch is dropped (the page is asked again in the
 * ordinary way) and the socket closed. forget drops an unread prefetch whose socket
 * was closed. Both clear c->prefetcher.
 */
void		cfc_range_pager_settle(struct cfc_range_pager *p);
void		cfc_range_pager_forget(struct cfc_range_pager *p);

#endif							/* CF_CLIENT_CLIENT_INT_H */
