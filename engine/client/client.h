/*
 * client/client.h — libcolfam: the C client of colfamd (and of any Cassandra 0.7
 * node) over the Thrift API: framed transport, strict binary protocol, port 9160.
 * The colfam tool and the PostgreSQL extension use it; it depends only on util/ and
 * the codec of thrift/cassandra.h.
 *
 * Design assumptions (the FDW embeds this in a PostgreSQL backend):
 *  - No global state, no threads, no signals (MSG_NOSIGNAL: no SIGPIPE), no exit(), no
 *    printing. Every failure is a cf_status (NULL = success) whose code a caller can
 *    branch on and whose message names the host and what to do. Credentials never
 *    appear in a message.
 *  - Thread safety: a cfc_conn belongs to one thread at a time (one connection per
 *    thread); distinct connections share nothing and may be used concurrently.
 *  - Blocking waits come in slices of CFC_POLL_SLICE_MS (a poll() while connecting or
 *    sending, a recv() under SO_RCVTIMEO while receiving), so a cancel callback
 *    (the FDW's interrupt check) is honoured within that time: the call returns
 *    CF_ERR_CANCELLED and the connection is closed (a reply may still be in flight).
 *    The callback should return true rather than longjmp; if it does longjmp (an
 *    ereport from CHECK_FOR_INTERRUPTS) the next call notices the abandoned call and
 *    reconnects. Name resolution (getaddrinfo) is the one wait that cannot be
 *    interrupted; give numeric addresses where that matters.
 *  - Timeouts are inactivity timeouts, like Thrift's TSocket: connecting to one
 *    address may take connect_timeout_ms, and each wait for the socket to become
 *    readable or writable during a call io_timeout_ms. A socket timeout is
 *    CF_ERR_TIMEOUT and closes the connection (the stream is out of step).
 *  - The connection object outlives errors: after any failure the socket is closed
 *    and the next call reconnects through the host list; the keyspace and the
 *    credentials last set are applied again on every (re)connect.
 *
 * Retry policy. Connecting walks the host list, starting after the last host that
 * failed, and takes the first host that accepts, logs in and sets the keyspace; a
 * refused or timed-out connect moves on to the next host. A request whose connection
 * is lost mid-flight (send failure, reset, EOF before the reply) is sent again on the
 * next host, up to max_attempts sends in all, when it is safe to repeat:
 *  - reads, describe_*, login and set_keyspace: always;
 *  - insert, remove and batch_mutate: yes unless retry_writes is false. A 0.7 write
 *    carries its client timestamp, so replaying it writes the same cells with the same
 *    timestamps, which the server resolves to the same state (last write wins, ties
 *    to the same value); 0.7 has no counters, the one non-idempotent write of later
 *    versions. This is what Hector and pycassa did.
 *  - truncate and system_* (schema changes): never; a replay could truncate writes
 *    made in between, or report "already exists" for a change that did happen.
 * Not retried either: socket timeouts (the server may be slow, not dead; a retry would
 * double the caller's wait), declared exceptions (TimedOutException and
 * UnavailableException are answers, the caller chooses), protocol errors (a bug, not
 * hidden) and cancellation.
 *
 * Memory: a call decodes its reply into the caller's arena (the frame itself is read
 * into that arena and the result's slices point into it), so a result lives exactly
 * as long as the arena, independent of later calls on the same connection. Arguments
 * are only read during the call.
 */
#ifndef CF_CLIENT_CLIENT_H
#define CF_CLIENT_CLIENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "thrift/admin.h"
#include "thrift/cassandra.h"
#include "util/arena.h"
#include "util/slice.h"
#include "util/status.h"

#define CFC_DEFAULT_PORT 9160
#define CFC_DEFAULT_CONNECT_TIMEOUT_MS 5000
#define CFC_DEFAULT_IO_TIMEOUT_MS 10000
#define CFC_DEFAULT_MAX_FRAME (15u * 1024 * 1024)	/* 0.7's thrift_framed_transport_size */
#define CFC_DEFAULT_MAX_ATTEMPTS 3
#define CFC_POLL_SLICE_MS 100	/* how often the cancel callback is polled */

/* Returns true when the current call should stop (e.g. a query cancel is pending). */
typedef bool (*cfc_cancel_fn) (void *arg);

/* Connection options; zero-initialise, set what you need, cfc_new copies them. */
typedef struct cfc_options
{
	const char *hosts;			/* "h1:9160,h2,[::1]:9161" (port default 9160), an entry
								 * that begins with '/' a unix socket's path
								 * (colfamd's rpc_unix_socket); required */
	int			connect_timeout_ms; /* per address; 0: default */
	int			io_timeout_ms;	/* per wait while sending or receiving; 0: default */
	size_t		max_frame;		/* largest frame sent or accepted; 0: default */
	const char *keyspace;		/* set_keyspace on every connect; NULL: none */
	const char *username;		/* login on every connect when set; NULL: no login */
	const char *password;
	int			max_attempts;	/* sends of one request, failover included; 0: default */
	bool		no_retry_writes;	/* true: never resend insert/remove/batch_mutate */
	cfc_cancel_fn cancel;		/* polled during waits; NULL: none */
	void	   *cancel_arg;
} cfc_options;

typedef struct cfc_conn cfc_conn;

/* ---- in conn.c ---- */

/*
 * Validates and copies the options into a new, unconnected connection (no I/O: the
 * first call connects). Errors: CF_ERR_INVALID naming the bad option (host list syntax,
 * port range, negative timeout, a password without a username), CF_ERR_NO_MEMORY.
 */
cf_status  *cfc_new(const cfc_options *opt, cfc_conn **out);

/*
 * Connects now if not connected (failover over the host list, login, set_keyspace).
 * Calls do this themselves; use it to report connection problems early.
 */
cf_status  *cfc_connect(cfc_conn *c);

/* Closes the socket (the next call reconnects); the object stays usable. */
void		cfc_disconnect(cfc_conn *c);

/* Closes and frees; wipes the stored password. NULL is ignored. */
void		cfc_free(cfc_conn *c);

/* "host:port" of the connected host, NULL when not connected. Valid until the next call. */
const char *cfc_host(const cfc_conn *c);

/* Replaces the cancel callback (the FDW sets it per query). */
void		cfc_set_cancel(cfc_conn *c, cfc_cancel_fn fn, void *arg);

/* ---- in call.c ---- */

/*
 * Sends method m with args and decodes the reply into res, allocating in arena (NULL:
 * a scratch arena of the connection, valid until the next call on c — fine for void
 * and count results). A declared Thrift exception becomes the status instead:
 * InvalidRequest → CF_ERR_INVALID (with its why), NotFound → CF_ERR_NOT_FOUND,
 * Unavailable → CF_ERR_UNAVAILABLE, TimedOut → CF_ERR_TIMEOUT, Authentication/
 * Authorization → CF_ERR_AUTHENTICATION/AUTHORIZATION; res->exception still says which.
 * Other errors: CF_ERR_IO (connection failed; the message names host:port),
 * CF_ERR_TIMEOUT (socket timeout), CF_ERR_PROTOCOL (TApplicationException, garbage,
 * a frame over max_frame), CF_ERR_TOO_LARGE (the request exceeds max_frame; nothing
 * sent), CF_ERR_CANCELLED, CF_ERR_NO_MEMORY.
 */
cf_status  *cfc_call(cfc_conn *c, cf_t_method m, const cf_t_args *args,
					 cf_arena *arena, cf_t_result *res);

/*
 * The status cfc_call makes of res->exception (NULL when there is none), for method m
 * sent at level cl to host: for clients that do their own framed I/O (colfam stress's
 * event loops) and should report exceptions as libcolfam does.
 */
cf_status  *cfc_exception_status(cf_t_method m, int32_t cl, const char *host,
								 const cf_t_result *res);

/*
 * Typed wrappers: one per API method, same errors as cfc_call. Results are allocated
 * in arena (pointers into it); cl is a cf_t_consistency (0: ONE).
 */
cf_status  *cfc_login(cfc_conn *c, const char *username, const char *password);
cf_status  *cfc_set_keyspace(cfc_conn *c, const char *keyspace);
cf_status  *cfc_get(cfc_conn *c, cf_slice key, const cf_t_column_path *path, int cl,
					cf_arena *arena, cf_t_cosc *out);
cf_status  *cfc_get_slice(cfc_conn *c, cf_slice key, const cf_t_column_parent *parent,
						  const cf_t_slice_predicate *pred, int cl, cf_arena *arena,
						  cf_t_cosc **out, size_t *n_out);
cf_status  *cfc_get_count(cfc_conn *c, cf_slice key, const cf_t_column_parent *parent,
						  const cf_t_slice_predicate *pred, int cl, int32_t *out);
cf_status  *cfc_multiget_slice(cfc_conn *c, const cf_slice *keys, size_t n_keys,
							   const cf_t_column_parent *parent,
							   const cf_t_slice_predicate *pred, int cl, cf_arena *arena,
							   cf_t_key_coscs **out, size_t *n_out);
cf_status  *cfc_multiget_count(cfc_conn *c, const cf_slice *keys, size_t n_keys,
							   const cf_t_column_parent *parent,
							   const cf_t_slice_predicate *pred, int cl, cf_arena *arena,
							   cf_t_key_count **out, size_t *n_out);
cf_status  *cfc_get_range_slices(cfc_conn *c, const cf_t_column_parent *parent,
								 const cf_t_slice_predicate *pred,
								 const cf_t_key_range *range, int cl, cf_arena *arena,
								 cf_t_key_slice **out, size_t *n_out);
cf_status  *cfc_get_indexed_slices(cfc_conn *c, const cf_t_column_parent *parent,
								   const cf_t_index_clause *clause,
								   const cf_t_slice_predicate *pred, int cl,
								   cf_arena *arena, cf_t_key_slice **out, size_t *n_out);
cf_status  *cfc_insert(cfc_conn *c, cf_slice key, const cf_t_column_parent *parent,
					   const cf_t_column *column, int cl);
cf_status  *cfc_remove(cfc_conn *c, cf_slice key, const cf_t_column_path *path,
					   int64_t timestamp, int cl);
cf_status  *cfc_batch_mutate(cfc_conn *c, const cf_t_key_mutations *map, size_t n_map,
							 int cl);
cf_status  *cfc_truncate(cfc_conn *c, const char *cfname);
cf_status  *cfc_describe_schema_versions(cfc_conn *c, cf_arena *arena,
										 cf_t_schema_version **out, size_t *n_out);
cf_status  *cfc_describe_keyspaces(cfc_conn *c, cf_arena *arena, cf_t_ks_def **out,
								   size_t *n_out);
cf_status  *cfc_describe_cluster_name(cfc_conn *c, cf_arena *arena, cf_slice *out);
cf_status  *cfc_describe_version(cfc_conn *c, cf_arena *arena, cf_slice *out);
cf_status  *cfc_describe_partitioner(cfc_conn *c, cf_arena *arena, cf_slice *out);
cf_status  *cfc_describe_snitch(cfc_conn *c, cf_arena *arena, cf_slice *out);
cf_status  *cfc_describe_ring(cfc_conn *c, const char *keyspace, cf_arena *arena,
							  cf_t_token_range **out, size_t *n_out);
cf_status  *cfc_describe_keyspace(cfc_conn *c, const char *keyspace, cf_arena *arena,
								  cf_t_ks_def *out);
cf_status  *cfc_describe_splits(cfc_conn *c, const char *cfname, const char *start_token,
								const char *end_token, int32_t keys_per_split,
								cf_arena *arena, cf_slice **out, size_t *n_out);
/* system_*: *schema_id (may be NULL) receives the new schema version. */
cf_status  *cfc_system_add_column_family(cfc_conn *c, const cf_t_cf_def *def,
										 cf_arena *arena, cf_slice *schema_id);
cf_status  *cfc_system_update_column_family(cfc_conn *c, const cf_t_cf_def *def,
											cf_arena *arena, cf_slice *schema_id);
cf_status  *cfc_system_drop_column_family(cfc_conn *c, const char *cfname,
										  cf_arena *arena, cf_slice *schema_id);
cf_status  *cfc_system_add_keyspace(cfc_conn *c, const cf_t_ks_def *def,
									cf_arena *arena, cf_slice *schema_id);
cf_status  *cfc_system_update_keyspace(cfc_conn *c, const cf_t_ks_def *def,
									   cf_arena *arena, cf_slice *schema_id);
cf_status  *cfc_system_drop_keyspace(cfc_conn *c, const char *keyspace,
									 cf_arena *arena, cf_slice *schema_id);

/* ---- in admin.c ---- */

/*
 * colfam's admin methods (thrift/admin.h; not Cassandra 0.7 methods: a Cassandra or
 * older colfam server answers them with a TApplicationException UNKNOWN_METHOD,
 * CF_ERR_PROTOCOL "Invalid method name"). cfs/n name column families of keyspace
 * (n == 0: every CF). Sent once, never resent on failover. Errors as cfc_call; the
 * server's InvalidRequestException is CF_ERR_INVALID (unknown keyspace or CF, not
 * logged in, no <modify-keyspaces> grant). cfstats' array is allocated in arena.
 */
cf_status  *cfc_colfam_flush(cfc_conn *c, const char *keyspace, const char *const *cfs,
							 size_t n);
cf_status  *cfc_colfam_compact(cfc_conn *c, const char *keyspace, const char *const *cfs,
							   size_t n, bool major);
cf_status  *cfc_colfam_cfstats(cfc_conn *c, const char *keyspace, cf_arena *arena,
							   cf_ta_cf_stats **out, size_t *n_out);

/*
 * The snapshot methods: kss/n name keyspaces (n == 0: every keyspace but system to
 * take a snapshot, every keyspace the node has snapshots of to list or clear). name
 * is the snapshot's (clearsnapshot: NULL for every one). *out, one entry per column
 * family (what was taken, what there is, what was removed), is allocated in arena.
 */
cf_status  *cfc_colfam_snapshot(cfc_conn *c, const char *const *kss, size_t n,
								const char *name, cf_arena *arena, cf_ta_snapshot **out,
								size_t *n_out);
cf_status  *cfc_colfam_listsnapshots(cfc_conn *c, const char *const *kss, size_t n,
									 cf_arena *arena, cf_ta_snapshot **out, size_t *n_out);
cf_status  *cfc_colfam_clearsnapshot(cfc_conn *c, const char *const *kss, size_t n,
									 const char *name, cf_arena *arena, cf_ta_snapshot **out,
									 size_t *n_out);

/*
 * colfam_multiget_chain (thrift/admin.h; thrift.md): step 0 is multiget_slice(keys,
 * parent, pred, cl); step i (steps[i - 1]) a multiget_slice whose keys colfamd draws
 * from step steps[i - 1].from_step's answer (its source: every value, name, super
 * column name, non-empty row's key, or the value of every column named source_name;
 * distinct, in first-seen order; empty or over-long candidates skipped), all in one
 * round trip. *out (n_steps + 1 answers, in arena): answer 0 for keys (one KeySlice
 * per distinct key, an empty list for a row with no column), answer i for steps[i - 1].
 * A read: resent on failover like cfc_multiget_slice. Errors as cfc_call; the server's
 * InvalidRequestException (CF_ERR_INVALID) names the step ("chain step 2: ...").
 * A server without the method (an older colfamd, a Cassandra) answers CF_ERR_PROTOCOL
 * that cfc_unknown_method recognises; the connection is closed then, as for any
 * TApplicationException, and the next call reconnects.
 */
cf_status  *cfc_colfam_multiget_chain(cfc_conn *c, const cf_slice *keys, size_t n_keys,
									  const cf_t_column_parent *parent,
									  const cf_t_slice_predicate *pred,
									  const cf_ta_chain_step *steps, size_t n_steps,
									  int cl, cf_arena *arena, cf_ta_chain_answer **out,
									  size_t *n_out);

/*
 * Is st the server's "unknown method" answer (a TApplicationException UNKNOWN_METHOD:
 * an older colfamd, or a Cassandra, asked for a colfam_* method it does not serve)?
 * False for NULL and for every other error.
 */
bool		cfc_unknown_method(const cf_status *st);

/*
 * Is st the server's "the reply does not fit in a frame" answer (an
 * InvalidRequestException from colfamd's thrift_framed_transport_size_in_mb): the
 * request was fine, its answer too big for one reply? False for NULL and for every
 * other error.
 */
bool		cfc_reply_too_large(const cf_status *st);

/* ---- in pager.c ---- */

/*
 * Pagers: scans that never hold more than one page. Each next() call frees the
 * previous page and returns the next one (items valid until the next next() or free);
 * *n_out == 0 means the end, and is the only empty page. Errors are those of cfc_call;
 * after an error the pager may be retried with next() (it resumes where it stopped)
 * or freed. The connection must outlive the pager; other calls may be made on the
 * connection between pages (each page's reply lives in the pager's own arena).
 *
 * Column pager: the columns (super columns for a super CF without a super column in
 * the parent) of one row, by get_slice.
 *  - A SliceRange predicate: pages of page_size columns in comparator order (reversed
 *    honoured); slice_range.count is the total over all pages (INT32_MAX: no limit).
 *    The next page starts at the last name returned (SliceRange start is inclusive, so
 *    that name comes back first and is skipped; the page asks for one more to make up
 *    for it). Only byte equality of names is needed, so any comparator works.
 *  - A column_names predicate: the names are sent page_size at a time, in the given
 *    order; names that do not exist are simply absent.
 * The predicate, parent and key are copied.
 */
typedef struct cfc_column_pager cfc_column_pager;

cf_status  *cfc_column_pager_new(cfc_conn *c, cf_slice key,
								 const cf_t_column_parent *parent,
								 const cf_t_slice_predicate *pred, int32_t page_size,
								 int cl, cfc_column_pager **out);
cf_status  *cfc_column_pager_next(cfc_column_pager *p, const cf_t_cosc **items,
								  size_t *n_out);
/*
 * Sets the page size of the pages still to come (clamped as by _new: at least 1); the
 * total and the position are unchanged. E.g. a first page the size of a LIMIT, later
 * pages of a fetch size.
 */
void		cfc_column_pager_set_page_size(cfc_column_pager *p, int32_t page_size);
void		cfc_column_pager_free(cfc_column_pager *p);

/*
 * Key-range pager: rows of a KeyRange, by get_range_slices, page_size rows a page;
 * range->count is the total over all pages (INT32_MAX: no limit).
 *  - A key range (start_key/end_key; also when neither keys nor tokens are set):
 *    continues from start_key = the last key returned; start_key is inclusive, so that
 *    row comes back first and is skipped. Ends when a page comes back short or the
 *    last key is end_key.
 *  - A token range (start_token/end_token, start-exclusive, may wrap): continues from
 *    start_token = the token of the last key, which needs the partitioner (asked once
 *    with describe_partitioner; Random: MD5, ByteOrdered: hex, order-preserving: the
 *    key). Ends when a page comes back short or the last key's token is end_token
 *    (continuing would make (end, end], the whole ring). Rows whose tokens collide
 *    with the last key's (an MD5 collision) would be skipped.
 * Rows with no columns (deleted rows, "range ghosts") are returned as they come.
 */
typedef struct cfc_range_pager cfc_range_pager;

cf_status  *cfc_range_pager_new(cfc_conn *c, const cf_t_column_parent *parent,
								const cf_t_slice_predicate *pred,
								const cf_t_key_range *range, int32_t page_size, int cl,
								cfc_range_pager **out);
cf_status  *cfc_range_pager_next(cfc_range_pager *p, const cf_t_key_slice **rows,
								 size_t *n_out);
/* As cfc_column_pager_set_page_size. */
void		cfc_range_pager_set_page_size(cfc_range_pager *p, int32_t page_size);
/*
 * The SliceRange count (columns per row) of the pages still to come, when the pager's
 * predicate is a SliceRange (else nothing changes): a scan that finds its rows wide can
 * ask fewer rows with more columns each. The rows already returned are not asked again.
 */
void		cfc_range_pager_set_row_count(cfc_range_pager *p, int32_t count);
/*
 * The caller used only the first `used` rows of the page _next returned last (call it
 * before the next _next): the rest are asked again, the next page starting after row
 * used - 1 (before the page when used is 0), under the page size and row count set by
 * then. E.g. a scan that finds its rows wider than it asked re-asks them with more
 * columns each. Drops a prefetch. NO_MEMORY leaves the pager at its end.
 */
cf_status  *cfc_range_pager_rewind(cfc_range_pager *p, size_t used);
/*
 * Prefetch (off by default): from the second page on, each page sends the next page's
 * request as soon as its own reply is in (its keys skimmed, before it is decoded), and
 * the next call reads that reply, so the server makes a page while this client
 * decodes the last one and the caller works through it. Up to two pages are then
 * in memory. Another call on the connection first reads the pending reply into the
 * pager; a new page size or row count drops it; any failure of a prefetch only means
 * that the page is asked again in the ordinary way (retries, failover, its errors).
 */
void		cfc_range_pager_set_prefetch(cfc_range_pager *p, bool on);
void		cfc_range_pager_free(cfc_range_pager *p);

/*
 * The text form of key's token under a partitioner named as describe_partitioner
 * answers (short or class name), appended to out: what start_token needs.
 * CF_ERR_NOT_SUPPORTED for a partitioner this library cannot compute tokens for.
 */
cf_status  *cfc_token_string(cf_slice partitioner, cf_slice key, cf_buf *out);

#endif							/* CF_CLIENT_CLIENT_H */
