/*
 * thrift/dispatch.h — the Cassandra 0.7 service over the codec (thrift/cassandra.h):
 * one decoded call → validation as 0.7's ThriftValidation → the coordinator
 * (service/service.h) → one encoded reply. It never touches a socket: the server
 * (engine/server) reads a whole framed message, hands it here with the connection's
 * session, and writes what was appended to the reply buffer.
 *
 * Replies:
 *  - a method's result, or the declared exception the error maps to:
 *    CF_ERR_INVALID / NOT_FOUND / TOO_LARGE → InvalidRequestException (NotFound only
 *    from get and describe_keyspace), UNAVAILABLE → UnavailableException, TIMEOUT →
 *    TimedOutException; AUTHENTICATION / AUTHORIZATION → login's declared exceptions,
 *    and InvalidRequestException from every other method (as 0.7's ClientState did);
 *  - a TApplicationException when the method declares no exception that fits
 *    (UNKNOWN for a refused request, INTERNAL_ERROR for a server fault, logged),
 *    UNKNOWN_METHOD for a name that is neither a 0.7 method nor one of colfam's admin
 *    methods (the connection stays open);
 *  - PROTOCOL_ERROR for a message whose header does not decode and INVALID_MESSAGE_TYPE
 *    for anything but a CALL: cf_dispatch_handle then returns false and the server
 *    closes the connection after sending the reply;
 *  - PROTOCOL_ERROR for a call whose arguments do not decode (a required field
 *    missing, a bad size, a truncated struct), and the connection stays open: 0.7's
 *    generated processor answered a TProtocolException from the arguments so and
 *    went on, and each message is a whole frame, so the next one is read in step.
 *
 * Sessions: one per connection; holds the keyspace chosen by set_keyspace and the
 * logged-in user. With authentication on (an auth object that requires login),
 * nothing but login and describe_version works before a login, and set_keyspace,
 * reads, writes and schema changes check the user's grants (service/auth.h).
 *
 * colfam's methods (thrift/admin.h) are served next to the 0.7 ones. The admin
 * methods (colfam_flush, colfam_compact, colfam_cfstats and the snapshot calls) go
 * through service/admin.h; with authentication on they need a logged-in user holding
 * <modify-keyspaces>; every user error (unknown keyspace or CF, not logged in, not
 * allowed) is their declared InvalidRequestException, a server fault an
 * INTERNAL_ERROR TApplicationException. colfam_multiget_chain is a read, its steps
 * multiget_slice's (their checks, grants and declared exceptions: IRE, UE, TE).
 *
 * The system keyspace: describe_keyspaces lists it and describe_keyspace and
 * set_keyspace accept it, as in 0.7 (LocalStrategy, replication_factor 1), but with no
 * column family: colfam's own tables there are not Cassandra's and are not served, so
 * every data call in it is "unconfigured columnfamily" and schema changes to it are
 * refused. describe_ring refuses it as 0.7 did.
 *
 * Range deletions: 0.7 refused a Deletion whose predicate is a SliceRange; colfam
 * applies it as a range tombstone over [start, finish] (count is ignored; reversed
 * swaps the bounds), because the engine stores range tombstones.
 *
 * Thread safety: cf_dispatch_handle may run on many threads at once, each with its
 * own session; a session belongs to one thread at a time.
 */
#ifndef CF_THRIFT_DISPATCH_H
#define CF_THRIFT_DISPATCH_H

#include <stdbool.h>

#include "service/auth.h"
#include "service/service.h"
#include "thrift/cassandra.h"
#include "util/buf.h"
#include "util/slice.h"
#include "util/status.h"

typedef struct cf_dispatch cf_dispatch;
typedef struct cf_dispatch_session cf_dispatch_session;

typedef struct cf_dispatch_options
{
	cf_service *service;		/* required; not owned */
	cf_auth    *auth;			/* NULL or off: AllowAll; not owned */
	const cf_t_limits *limits;	/* NULL: cf_t_limits_default() */
} cf_dispatch_options;

cf_status  *cf_dispatch_new(const cf_dispatch_options *opts, cf_dispatch **out);
void		cf_dispatch_free(cf_dispatch *d);

/* A session for a new connection; peer ("10.0.0.1:53122") names it in logs. NULL: no memory. */
cf_dispatch_session *cf_dispatch_session_new(cf_dispatch *d, const char *peer);
void		cf_dispatch_session_free(cf_dispatch_session *s);

/*
 * Whether cf names a Super column family of s's keyspace in the current schema: false
 * for a Standard one, and when s has no keyspace or the keyspace or cf does not
 * exist (the system keyspace has none). Cheap and never blocks: a schema reference
 * (a short mutex), two binary searches, no I/O. For colfamd's route
 * (server/route.h), on the loop thread, while no cf_dispatch_handle of s runs.
 */
bool		cf_dispatch_cf_is_super(cf_dispatch *d, const cf_dispatch_session *s, cf_slice cf);

/*
 * Handles one whole message (a frame's payload) and appends the whole reply message
 * to reply (which may already hold bytes). Returns false when the connection must be
 * closed once the reply is sent. Never fails otherwise: every error becomes a reply,
 * and so does a result larger than reply's limit (the frame limit): InvalidRequest
 * (a TApplicationException from describe_splits) naming its size and the limit. If
 * reply itself fails (cf_buf_ok false: out of memory, or an exception still over its
 * limit) the caller must close the connection.
 */
bool		cf_dispatch_handle(cf_dispatch *d, cf_dispatch_session *s, cf_slice message,
							   cf_buf *reply);

#endif							/* CF_THRIFT_DISPATCH_H */
