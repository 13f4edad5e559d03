/*-------------------------------------------------------------------------
 * fdw/connection.c — connections to colfamd, the column families' metadata, and the
 * one place engine errors become SQL errors.
 *
 * Connections: one libcolfam connection per (server, user mapping) per backend,
 * opened on first use and kept for later queries, like postgres_fdw's. libcolfam
 * reconnects and fails over along the server's hosts by itself. A change to the
 * server or the user mapping drops the cached connection (syscache callbacks). Query
 * cancel: libcolfam polls a callback during every wait; it reports the interrupt
 * pending, the call returns CF_ERR_CANCELLED, and the error path runs
 * CHECK_FOR_INTERRUPTS so the cancel is reported as Postgres reports it.
 *
 * SQLSTATEs (colfam_report, sqlstate_of): no host could be reached, or the connection
 * was lost on every retry — HV00N (fdw_unable_to_establish_connection), with a hint
 * naming the hosts option; a socket timeout (connect_timeout, or io_timeout — 10 s by
 * default — without a byte of a reply) or colfamd's TimedOutException — 08006;
 * UnavailableException — 57P03; a failed login, or a login missing where colfamd
 * requires one — 28000; no grant — 42501; NotFoundException — HV00R
 * (fdw_table_not_found); a keyspace that does not exist — HV00Q; any other
 * InvalidRequestException — HV000, with colfamd's reason; a cancel or statement_timeout
 * — 57014, as Postgres reports it.
 *
 * Metadata: describe_keyspace and describe_partitioner per (server, keyspace), cached
 * for COLFAM_META_TTL_SEC; a column family the cached answer lacks is asked again at
 * once (it may have just been created).
 *
 * Size estimates for the planner: colfam's admin method colfam_cfstats (every CF of a
 * keyspace in one answer: this node's rows and columns) and describe_ring (how many
 * nodes share the keyspace, and its replication), asked once per (server, keyspace)
 * per backend and kept for COLFAM_STATS_TTL_SEC. A server that cannot answer (a
 * Cassandra or older colfamd, a user without the grant cfstats needs) gives no
 * estimate, and is not asked again within the TTL.
 *-------------------------------------------------------------------------
 */
#include "colfam_fdw.h"
#include "colfam_table.h"

#include "access/xact.h"
#include "catalog/pg_user_mapping.h"
#include "commands/defrem.h"
#include "foreign/foreign.h"
#include "mb/pg_wchar.h"
#include "miscadmin.h"
#include "utils/hsearch.h"
#include "utils/inval.h"
#include "utils/memutils.h"
#include "utils/syscache.h"
#include "utils/timestamp.h"

#include "client/client.h"

#define COLFAM_META_TTL_SEC 10
#define COLFAM_STATS_TTL_SEC 300

typedef struct ConnKey
{
	Oid			serverid;
	Oid			umid;			/* the user mapping's oid; InvalidOid for none */
} ConnKey;

typedef struct ConnEntry
{
	ConnKey		key;
	cfc_conn   *conn;
	char	   *keyspace;		/* set on the connection; malloc'd */
	uint32		server_hash;	/* syscache hash values, for invalidation */
	uint32		mapping_hash;
	bool		invalid;
	bool		logs_in;		/* the user mapping gives a username */
	bool		chainless;		/* colfamd refused colfam_multiget_chain (join.c) */
} ConnEntry;

typedef struct MetaKey
{
	Oid			serverid;
	char		keyspace[NAMEDATALEN];
} MetaKey;

typedef struct MetaEntry
{
	MetaKey		key;
	TimestampTz fetched;
	MemoryContext cxt;			/* owns everything below */
	char	   *partitioner;
	int			ncfs;
	char	  **cf_names;
	ColfamCfMeta *cfs;
} MetaEntry;

/* colfam_cfstats' estimates of a keyspace's CFs, scaled to the cluster. */
typedef struct StatsEntry
{
	MetaKey		key;
	TimestampTz fetched;
	MemoryContext cxt;			/* owns the arrays; NULL when the server gave nothing */
	int			ncfs;
	char	  **cf_names;
	double	   *keys;
	double	   *columns;
} StatsEntry;

static HTAB *conn_hash = NULL;
static HTAB *meta_hash = NULL;
static HTAB *stats_hash = NULL;

/* ---- errors ---- */

static int
sqlstate_of(cf_code code)
{
	switch (code)
	{
		case CF_ERR_NOT_FOUND:
			return ERRCODE_FDW_TABLE_NOT_FOUND;
		case CF_ERR_INVALID:
			return ERRCODE_FDW_ERROR;
		case CF_ERR_IO:
			return ERRCODE_FDW_UNABLE_TO_ESTABLISH_CONNECTION;
		case CF_ERR_TIMEOUT:
			return ERRCODE_CONNECTION_FAILURE;
		case CF_ERR_UNAVAILABLE:
			return ERRCODE_CANNOT_CONNECT_NOW;
		case CF_ERR_AUTHENTICATION:
			return ERRCODE_INVALID_AUTHORIZATION_SPECIFICATION;
		case CF_ERR_AUTHORIZATION:
			return ERRCODE_INSUFFICIENT_PRIVILEGE;
		case CF_ERR_PROTOCOL:
		case CF_ERR_CORRUPTION:
			return ERRCODE_PROTOCOL_VIOLATION;
		case CF_ERR_TOO_LARGE:
			return ERRCODE_PROGRAM_LIMIT_EXCEEDED;
		case CF_ERR_NO_MEMORY:
			return ERRCODE_OUT_OF_MEMORY;
		case CF_ERR_CANCELLED:
			return ERRCODE_QUERY_CANCELED;
		case CF_ERR_NOT_SUPPORTED:
			return ERRCODE_FEATURE_NOT_SUPPORTED;
		default:
			return ERRCODE_FDW_ERROR;
	}
}

static void report_as(cf_status *st, int sqlstate, const char *hint, const char *what,
					  const char *key, size_t key_len) pg_attribute_noreturn();

static const char *
hint_of(cf_code code)
{
	switch (code)
	{
		case CF_ERR_IO:
			return "Check that colfamd runs and that the server's hosts option names it (ALTER SERVER ... OPTIONS (SET hosts 'host:9160')), or its rpc_unix_socket ('/path/colfamd.sock').";
		case CF_ERR_TIMEOUT:
			return "Retry, or look at colfamd's log. \"No progress\" on a request colfamd needs long for: raise the server's io_timeout (10s unless set), e.g. ALTER SERVER ... OPTIONS (ADD io_timeout '60s'); replicas that did not answer: a lower consistency level.";
		case CF_ERR_UNAVAILABLE:
			return "Too few replicas are up for the consistency level; lower read_consistency or bring nodes back.";
		case CF_ERR_AUTHENTICATION:
			return "Check username and password of the user mapping.";
		case CF_ERR_AUTHORIZATION:
			return "Ask the colfamd administrator for access to this keyspace.";
		case CF_ERR_NOT_FOUND:
			return "Check the table's keyspace and column_family options (IMPORT FOREIGN SCHEMA lists what exists).";
		default:
			return NULL;
	}
}

static void forget_metadata(void);

/*
 * Reports an engine error as a Postgres ERROR and frees it: the one translation of
 * engine codes to SQLSTATEs. `what` says what was being done ("reading
 * BloggyAppy.TaggedPosts"); key (may be NULL) the row concerned. An invalid request
 * or a missing object may mean the schema changed under the cached metadata (a CF
 * dropped while a scan paged): the next statement describes the keyspaces again.
 */
void
colfam_report(cf_status *st, const char *what, const char *key, size_t key_len)
{
	cf_code		code = cf_status_code(st);

	report_as(st, sqlstate_of(code), hint_of(code), what, key, key_len);
}

/* colfam_report's ERROR, with the SQLSTATE and hint (may be NULL) given. */
static void
report_as(cf_status *st, int sqlstate, const char *hint, const char *what,
		  const char *key, size_t key_len)
{
	cf_code		code = cf_status_code(st);
	char	   *msg = pstrdup(cf_status_msg(st));

	cf_status_free(st);
	if (code == CF_ERR_INVALID || code == CF_ERR_NOT_FOUND)
		forget_metadata();
	if (code == CF_ERR_CANCELLED)
		CHECK_FOR_INTERRUPTS();
	ereport(ERROR,
			(errcode(sqlstate),
			 errmsg("colfamd: %s", msg),
			 key ? errdetail("While %s, row key %s.", what, colfam_quote_key(key, key_len))
			 : errdetail("While %s.", what),
			 hint ? errhint("%s", hint) : 0));
}

/* ---- connections ---- */

static bool
cancel_pending(void *arg)
{
	return QueryCancelPending || ProcDiePending;
}

static void
inval_callback(Datum arg, int cacheid, uint32 hashvalue)
{
	HASH_SEQ_STATUS scan;
	ConnEntry  *e;

	if (conn_hash == NULL)
		return;
	hash_seq_init(&scan, conn_hash);
	while ((e = hash_seq_search(&scan)) != NULL)
	{
		if (hashvalue == 0 ||
			(cacheid == FOREIGNSERVEROID && e->server_hash == hashvalue) ||
			(cacheid == USERMAPPINGOID && e->mapping_hash == hashvalue))
			e->invalid = true;
	}
	if (cacheid == FOREIGNSERVEROID)
		forget_metadata();
	if (cacheid == FOREIGNSERVEROID && stats_hash != NULL)
	{
		HASH_SEQ_STATUS ss;
		StatsEntry *se;

		hash_seq_init(&ss, stats_hash);
		while ((se = hash_seq_search(&ss)) != NULL)
			se->fetched = 0;
	}
}

/* Makes every cached keyspace description stale: the next use describes it again. */
static void
forget_metadata(void)
{
	HASH_SEQ_STATUS ms;
	MetaEntry  *m;

	if (meta_hash == NULL)
		return;
	hash_seq_init(&ms, meta_hash);
	while ((m = hash_seq_search(&ms)) != NULL)
		m->fetched = 0;
}

static void
drop_entry(ConnEntry *e)
{
	cfc_free(e->conn);
	e->conn = NULL;
	free(e->keyspace);
	e->keyspace = NULL;
	e->invalid = false;
	e->chainless = false;
}

/* Is there a user mapping for userid (or PUBLIC) on the server? */
static bool
has_user_mapping(Oid userid, Oid serverid)
{
	Oid			users[2] = {userid, InvalidOid};

	for (int i = 0; i < 2; i++)
	{
		HeapTuple	tp = SearchSysCache2(USERMAPPINGUSERSERVER, ObjectIdGetDatum(users[i]),
										 ObjectIdGetDatum(serverid));

		if (HeapTupleIsValid(tp))
		{
			ReleaseSysCache(tp);
			return true;
		}
	}
	return false;
}

/*
 * Reports the failure of set_keyspace on connection e. colfamd (as Cassandra 0.7)
 * refuses it as an invalid request both for a keyspace that does not exist ("Keyspace
 * X does not exist": HV00Q, fdw_schema_not_found) and, when it has an authenticator,
 * for a session that did not log in ("You have not logged in": a missing user
 * mapping, 28000).
 */
static void
report_keyspace_error(cf_status *st, ConnEntry *e, const char *keyspace)
{
	const char *what = psprintf("choosing keyspace \"%s\"", keyspace);

	if (cf_status_code(st) == CF_ERR_INVALID &&
		strstr(cf_status_msg(st), "does not exist") != NULL)
		report_as(st, ERRCODE_FDW_SCHEMA_NOT_FOUND,
				  "Keyspace names are case-sensitive: check the server's or the table's "
				  "keyspace option, or quote the name in IMPORT FOREIGN SCHEMA \"Name\".",
				  what, NULL, 0);
	if (!e->logs_in && cf_status_code(st) == CF_ERR_INVALID &&
		strstr(cf_status_msg(st), "not logged in") != NULL)
		report_as(st, ERRCODE_INVALID_AUTHORIZATION_SPECIFICATION,
				  psprintf("colfamd requires a login: create a user mapping for role \"%s\" "
						   "on server \"%s\" with options username and password.",
						   GetUserNameFromId(GetUserId(), false),
						   GetForeignServer(e->key.serverid)->servername),
				  what, NULL, 0);
	colfam_report(st, what, NULL, 0);
}

/*
 * The connection for a server as the current user (its user mapping, if any), with
 * keyspace set. Valid until the end of the transaction at least.
 */
cfc_conn *
colfam_connect(Oid serverid, const char *keyspace)
{
	ConnKey		k;
	ConnEntry  *e;
	bool		found;
	UserMapping *um = NULL;
	Oid			umid = InvalidOid;
	cf_status  *st;

	if (conn_hash == NULL)
	{
		HASHCTL		ctl;

		ctl.keysize = sizeof(ConnKey);
		ctl.entrysize = sizeof(ConnEntry);
		conn_hash = hash_create("colfam_fdw connections", 8, &ctl, HASH_ELEM | HASH_BLOBS);
		CacheRegisterSyscacheCallback(FOREIGNSERVEROID, inval_callback, (Datum) 0);
		CacheRegisterSyscacheCallback(USERMAPPINGOID, inval_callback, (Datum) 0);
	}

	/* a user mapping is optional: colfamd runs without authentication by default */
	if (has_user_mapping(GetUserId(), serverid))
	{
		um = GetUserMapping(GetUserId(), serverid);
		umid = um->umid;
	}

	memset(&k, 0, sizeof(k));
	k.serverid = serverid;
	k.umid = umid;
	e = hash_search(conn_hash, &k, HASH_ENTER, &found);
	if (!found)
	{
		e->conn = NULL;
		e->keyspace = NULL;
		e->invalid = false;
		e->chainless = false;
	}
	if (e->invalid)
		drop_entry(e);

	if (e->conn == NULL)
	{
		ForeignServer *server = GetForeignServer(serverid);
		cfc_options o;

		memset(&o, 0, sizeof(o));
		o.hosts = colfam_option(server->options, "hosts");
		if (o.hosts == NULL)
			o.hosts = "127.0.0.1:9160";
		/* durations carry units ('2s'): parsed as the validator did */
		o.connect_timeout_ms = colfam_duration_option_ms(server->options, "connect_timeout",
														 COLFAM_DEFAULT_CONNECT_TIMEOUT_MS);
		o.io_timeout_ms = colfam_duration_option_ms(server->options, "io_timeout",
													COLFAM_DEFAULT_IO_TIMEOUT_MS);
		if (um != NULL)
		{
			o.username = colfam_option(um->options, "username");
			o.password = colfam_option(um->options, "password");
		}
		o.cancel = cancel_pending;
		e->logs_in = o.username != NULL;
		st = cfc_new(&o, &e->conn);
		if (st != NULL)
		{
			e->conn = NULL;
			colfam_report(st, psprintf("connecting to server \"%s\"", server->servername),
						  NULL, 0);
		}
		e->server_hash = GetSysCacheHashValue1(FOREIGNSERVEROID, ObjectIdGetDatum(serverid));
		e->mapping_hash = OidIsValid(umid)
			? GetSysCacheHashValue1(USERMAPPINGOID, ObjectIdGetDatum(umid)) : 0;
	}

	if (keyspace != NULL && (e->keyspace == NULL || strcmp(e->keyspace, keyspace) != 0))
	{
		free(e->keyspace);
		e->keyspace = NULL;
		st = cfc_set_keyspace(e->conn, keyspace);
		if (st != NULL)
			report_keyspace_error(st, e, keyspace);
		e->keyspace = strdup(keyspace);
		if (e->keyspace == NULL)
			ereport(ERROR, (errcode(ERRCODE_OUT_OF_MEMORY), errmsg("out of memory")));
	}
	return e->conn;
}

/* The cached connection entry of conn, or NULL. */
static ConnEntry *
entry_of(const cfc_conn *conn)
{
	HASH_SEQ_STATUS scan;
	ConnEntry  *e;

	if (conn_hash == NULL)
		return NULL;
	hash_seq_init(&scan, conn_hash);
	while ((e = hash_seq_search(&scan)) != NULL)
		if (e->conn == conn)
		{
			hash_seq_term(&scan);
			return e;
		}
	return NULL;
}

/*
 * Has the colfamd behind conn refused colfam_multiget_chain (an older colfamd, or a
 * Cassandra)? Remembered with the cached connection: a changed server or user mapping
 * (ALTER SERVER pointing at an upgraded colfamd) makes a new one, which asks again.
 */
bool
colfam_conn_chainless(const cfc_conn *conn)
{
	ConnEntry  *e = entry_of(conn);

	return e != NULL && e->chainless;
}

void
colfam_conn_set_chainless(const cfc_conn *conn)
{
	ConnEntry  *e = entry_of(conn);

	if (e != NULL)
		e->chainless = true;
}

/* ---- metadata ---- */

/* "UTF8Type" of "org.apache.cassandra.db.marshal.UTF8Type", in the current context. */
static char *
short_class(cf_slice s)
{
	const char *p = (const char *) s.p;
	size_t		n = s.len;

	for (size_t i = 0; i < s.len; i++)
		if (s.p[i] == '.')
		{
			p = (const char *) s.p + i + 1;
			n = s.len - i - 1;
		}
	return pnstrdup(p, n);
}

static void
free_arena_callback(void *arg)
{
	cf_arena_free(arg);
}

/*
 * A libcolfam arena that the current memory context's reset or deletion frees, so an
 * ERROR anywhere in the caller (colfamd's, or palloc's out of memory) cannot leak it.
 */
static cf_arena *
arena_in_current_context(void)
{
	cf_arena   *arena = cf_arena_new(0);
	MemoryContextCallback *cb;

	if (arena == NULL)
		ereport(ERROR, (errcode(ERRCODE_OUT_OF_MEMORY), errmsg("out of memory")));
	cb = MemoryContextAlloc(CurrentMemoryContext, sizeof(MemoryContextCallback));
	cb->func = free_arena_callback;
	cb->arg = arena;
	MemoryContextRegisterResetCallback(CurrentMemoryContext, cb);
	return arena;
}

/*
 * Describes keyspace into *m. The new description is built in a context of its own
 * and replaces the old one only once complete: an ERROR on the way (colfamd's, or out
 * of memory) leaves the entry as it was, never half filled. The old description is
 * freed at the end of the transaction, not at once: the running query may hold it.
 */
static void
fill_meta(MetaEntry *m, cfc_conn *conn, const char *keyspace)
{
	cf_arena   *arena = arena_in_current_context();
	cf_t_ks_def ks;
	cf_slice	part;
	cf_status  *st;
	MemoryContext cxt;
	MemoryContext old;
	MetaEntry	n;

	st = cfc_describe_keyspace(conn, keyspace, arena, &ks);
	if (st == NULL)
		st = cfc_describe_partitioner(conn, arena, &part);
	if (st != NULL)
		colfam_report(st, psprintf("describing keyspace \"%s\"", keyspace), NULL, 0);
	/* under the caller's context until complete, so an ERROR frees it */
	cxt = AllocSetContextCreate(CurrentMemoryContext, "colfam_fdw metadata",
								ALLOCSET_SMALL_SIZES);
	old = MemoryContextSwitchTo(cxt);
	n.partitioner = short_class(part);
	n.ncfs = (int) ks.n_cf_defs;
	n.cf_names = palloc0(sizeof(char *) * Max(n.ncfs, 1));
	n.cfs = palloc0(sizeof(ColfamCfMeta) * Max(n.ncfs, 1));
	for (int i = 0; i < n.ncfs; i++)
	{
		const cf_t_cf_def *d = &ks.cf_defs[i];
		ColfamCfMeta *c = &n.cfs[i];

		n.cf_names[i] = pnstrdup((const char *) d->name.p, d->name.len);
		c->super = d->has_column_type && d->column_type.len == 5 &&
			memcmp(d->column_type.p, "Super", 5) == 0;
		c->comparator = d->has_comparator_type ? short_class(d->comparator_type)
			: pstrdup("BytesType");
		c->subcomparator = d->has_subcomparator_type
			? short_class(d->subcomparator_type)
			: (c->super ? pstrdup("BytesType") : NULL);
		c->default_validation_class = d->has_default_validation_class
			? short_class(d->default_validation_class) : pstrdup("BytesType");
		c->partitioner = n.partitioner;
		c->ncolumns = (int) d->n_column_metadata;
		c->columns = palloc0(sizeof(ColfamColumnMeta) * Max(c->ncolumns, 1));
		for (int j = 0; j < c->ncolumns; j++)
		{
			const cf_t_column_def *cd = &d->column_metadata[j];

			c->columns[j].name = colfam_copy_bytes(cd->name.p, cd->name.len);
			c->columns[j].name_len = (int) cd->name.len;
			c->columns[j].validation_class = short_class(cd->validation_class);
			c->columns[j].indexed = cd->has_index_type && cd->index_type == CF_T_INDEX_KEYS;
		}
	}
	MemoryContextSwitchTo(old);

	MemoryContextSetParent(cxt, CacheMemoryContext);
	/* the old description may still be in use by this query: it goes with the transaction */
	if (m->cxt != NULL)
		MemoryContextSetParent(m->cxt, TopTransactionContext);
	m->cxt = cxt;
	m->partitioner = n.partitioner;
	m->ncfs = n.ncfs;
	m->cf_names = n.cf_names;
	m->cfs = n.cfs;
	m->fetched = GetCurrentTimestamp();
}

static ColfamCfMeta *
find_cf(MetaEntry *m, const char *cf)
{
	for (int i = 0; i < m->ncfs; i++)
		if (strcmp(m->cf_names[i], cf) == 0)
			return &m->cfs[i];
	return NULL;
}

/*
 * The entry of (serverid, keyspace) in the backend's cache *hash (named name, entries
 * of entrysize starting with a MetaKey), created on first use; *found says whether it
 * was there.
 */
static void *
keyspace_entry(HTAB **hash, const char *name, Size entrysize, Oid serverid,
			   const char *keyspace, bool *found)
{
	MetaKey		k;

	if (*hash == NULL)
	{
		HASHCTL		ctl;

		ctl.keysize = sizeof(MetaKey);
		ctl.entrysize = entrysize;
		*hash = hash_create(name, 8, &ctl, HASH_ELEM | HASH_BLOBS);
	}
	memset(&k, 0, sizeof(k));
	k.serverid = serverid;
	strlcpy(k.keyspace, keyspace, sizeof(k.keyspace));
	return hash_search(*hash, &k, HASH_ENTER, found);
}

/* The keyspace's description (every CF), fresh within COLFAM_META_TTL_SEC. */
static MetaEntry *
keyspace_meta(Oid serverid, const char *keyspace, bool refresh)
{
	MetaEntry  *m;
	bool		found;

	m = keyspace_entry(&meta_hash, "colfam_fdw metadata", sizeof(MetaEntry), serverid,
					   keyspace, &found);
	if (!found)
	{
		m->cxt = NULL;
		m->fetched = 0;
	}
	if (refresh || m->cxt == NULL ||
		TimestampDifferenceExceeds(m->fetched, GetCurrentTimestamp(), COLFAM_META_TTL_SEC * 1000))
		fill_meta(m, colfam_connect(serverid, keyspace), keyspace);
	return m;
}

ColfamCfMeta *
colfam_get_cf_meta(ColfamTable *t)
{
	MetaEntry  *m = keyspace_meta(t->serverid, t->keyspace, false);
	ColfamCfMeta *c = find_cf(m, t->column_family);

	if (c == NULL)
	{
		m = keyspace_meta(t->serverid, t->keyspace, true);
		c = find_cf(m, t->column_family);
	}
	if (c == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_FDW_TABLE_NOT_FOUND),
				 errmsg("column family \"%s\" does not exist in keyspace \"%s\"",
						t->column_family, t->keyspace),
				 errdetail("Foreign table \"%s\" maps it on server \"%s\".",
						   t->relname, t->servername),
				 errhint("Set the table's column_family option to an existing column family, or create it in colfamd.")));
	return c;
}

/* Every column family of a keyspace, for IMPORT FOREIGN SCHEMA. */
int
colfam_keyspace_cfs(Oid serverid, const char *keyspace, char ***names, ColfamCfMeta **cfs)
{
	MetaEntry  *m = keyspace_meta(serverid, keyspace, true);

	*names = m->cf_names;
	*cfs = m->cfs;
	return m->ncfs;
}

/* ---- size estimates ---- */

/*
 * How many times the data one node holds goes into the cluster's: nodes / replicas,
 * from describe_ring (each range lists its replicas). 1 when the ring is not known.
 */
static double
cluster_factor(cfc_conn *conn, const char *keyspace, cf_arena *arena)
{
	cf_t_token_range *ranges;
	size_t		n;
	cf_status  *st = cfc_describe_ring(conn, keyspace, arena, &ranges, &n);
	List	   *nodes = NIL;
	size_t		replicas = 1;

	if (st != NULL)
	{
		cf_status_free(st);
		return 1.0;
	}
	for (size_t i = 0; i < n; i++)
	{
		replicas = Max(replicas, ranges[i].n_endpoints);
		for (size_t j = 0; j < ranges[i].n_endpoints; j++)
		{
			char	   *ep = pnstrdup((const char *) ranges[i].endpoints[j].p,
									  ranges[i].endpoints[j].len);

			if (!list_member(nodes, makeString(ep)))
				nodes = lappend(nodes, makeString(ep));
		}
	}
	return Max(1.0, (double) list_length(nodes) / (double) replicas);
}

/* Asks colfamd for the estimates of every CF of the entry's keyspace. */
static void
fill_stats(StatsEntry *e, Oid serverid, const char *keyspace)
{
	cfc_conn   *conn = colfam_connect(serverid, keyspace);
	cf_arena   *arena = arena_in_current_context();
	cf_ta_cf_stats *st;
	size_t		n;
	cf_status  *status;
	double		factor;
	MemoryContext old;

	if (e->cxt != NULL)
		MemoryContextDelete(e->cxt);
	e->cxt = NULL;
	e->ncfs = 0;
	e->fetched = GetCurrentTimestamp();
	status = cfc_colfam_cfstats(conn, keyspace, arena, &st, &n);
	if (status != NULL)
	{
		/* no estimates from this server: the planner's defaults apply */
		elog(DEBUG1, "colfam_fdw: no size estimates for keyspace \"%s\": %s",
			 keyspace, cf_status_msg(status));
		cf_status_free(status);
		return;
	}
	factor = cluster_factor(conn, keyspace, arena);
	e->cxt = AllocSetContextCreate(CacheMemoryContext, "colfam_fdw estimates",
								   ALLOCSET_SMALL_SIZES);
	old = MemoryContextSwitchTo(e->cxt);
	e->cf_names = palloc0(sizeof(char *) * Max(n, 1));
	e->keys = palloc0(sizeof(double) * Max(n, 1));
	e->columns = palloc0(sizeof(double) * Max(n, 1));
	for (size_t i = 0; i < n; i++)
	{
		if (!st[i].has_estimated_keys || !st[i].has_estimated_columns)
			continue;
		e->cf_names[e->ncfs] = pnstrdup((const char *) st[i].column_family.p,
										st[i].column_family.len);
		e->keys[e->ncfs] = (double) st[i].estimated_keys * factor;
		e->columns[e->ncfs] = (double) st[i].estimated_columns * factor;
		e->ncfs++;
	}
	MemoryContextSwitchTo(old);
}

/*
 * colfamd's estimate of the table's column family: its rows (*keys) and columns
 * (*columns) across the cluster. False when the server gives no estimate.
 */
bool
colfam_cf_estimate(const ColfamTable *t, double *keys, double *columns)
{
	StatsEntry *e;
	bool		found;

	e = keyspace_entry(&stats_hash, "colfam_fdw estimates", sizeof(StatsEntry),
					   t->serverid, t->keyspace, &found);
	if (!found)
	{
		e->cxt = NULL;
		e->ncfs = 0;
		e->fetched = 0;
	}
	if (e->fetched == 0 ||
		TimestampDifferenceExceeds(e->fetched, GetCurrentTimestamp(), COLFAM_STATS_TTL_SEC * 1000))
		fill_stats(e, t->serverid, t->keyspace);
	for (int i = 0; i < e->ncfs; i++)
		if (strcmp(e->cf_names[i], t->column_family) == 0)
		{
			*keys = e->keys[i];
			*columns = e->columns[i];
			return true;
		}
	return false;
}
