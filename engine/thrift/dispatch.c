/*
 * thrift/dispatch.c — see dispatch.h. One call: header → arguments (into a per-call
 * arena) → the method's handler (validation, conversion to engine terms, the service)
 * → result built in the same arena → encoded reply. The read methods' answers are
 * encoded straight from the engine's result (thrift/dispatch_reply.h), without
 * ColumnOrSuperColumn structs. Handlers return a cf_status; the mapping to Thrift
 * exceptions happens once, in dsp_reply.
 *
 * Design assumptions: predicates and names are validated by the db's read and write
 * paths (their messages are already the user-facing ones), so this file checks only
 * what the conversion to engine terms would lose: the shape of ColumnOrSuperColumn,
 * Mutation, Deletion, KeyRange and SlicePredicate, super columns on Standard CFs,
 * the session's keyspace and grants.
 */
#include "thrift/dispatch.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "db/schema.h"
#include "service/admin.h"
#include "thrift/admin.h"
#include "thrift/dispatch_reply.h"
#include "util/crc32c.h"
#include "util/log.h"

struct cf_dispatch
{
	cf_service *svc;
	cf_auth    *auth;
	cf_t_limits limits;
};

struct cf_dispatch_session
{
	char		peer[64];
	bool		has_keyspace;
	char		keyspace[CF_SCHEMA_NAME_MAX + 1];
	char	   *user;			/* NULL until login */
};

/* One call's state: its arena and the engine results its reply points into. */
typedef struct dsp_call
{
	cf_dispatch *d;
	cf_dispatch_session *sess;
	cf_t_method m;
	cf_arena   *arena;
	cf_t_args	args;
	cf_t_result res;
	cf_read_result *read;
	cf_read_rows *rows;
	/* a read's answer, encoded by thrift/dispatch_reply.h rather than from res */
	const cf_row_slice *reply_slice;
	const cf_read_rows *reply_rows;
	/* the reply's buffer and seqid, for a handler that streams its reply */
	cf_buf	   *reply;
	int32_t		seqid;
	bool		streamed;		/* the handler wrote the reply (or failed to: ws) */
	cf_status  *stream_ws;		/* its encoding error; reply is back as it was */
	cf_service_token_range *ring;
	size_t		n_ring;
	char	  **strings;
	size_t		n_strings;
	cf_schema  *schema;			/* referenced when a handler looked at it */
} dsp_call;

#define DSP_NO_MEMORY() cf_status_make(CF_ERR_NO_MEMORY, "dispatch: out of memory")

cf_status *
cf_dispatch_new(const cf_dispatch_options *opts, cf_dispatch **out)
{
	cf_dispatch *d;

	*out = NULL;
	if (opts->service == NULL)
		return cf_status_make(CF_ERR_INVALID, "dispatch: no service given");
	d = calloc(1, sizeof(*d));
	if (d == NULL)
		return DSP_NO_MEMORY();
	d->svc = opts->service;
	d->auth = opts->auth;
	d->limits = opts->limits ? *opts->limits : cf_t_limits_default();
	*out = d;
	return NULL;
}

void
cf_dispatch_free(cf_dispatch *d)
{
	free(d);
}

cf_dispatch_session *
cf_dispatch_session_new(cf_dispatch *d, const char *peer)
{
	cf_dispatch_session *s = calloc(1, sizeof(*s));

	(void) d;
	if (s)
		snprintf(s->peer, sizeof(s->peer), "%s", peer ? peer : "?");
	return s;
}

void
cf_dispatch_session_free(cf_dispatch_session *s)
{
	if (s == NULL)
		return;
	free(s->user);
	free(s);
}

/*
 * A keyspace or CF name from the wire as a C string in buf; false (buf untouched)
 * when v can name none in any schema: empty, over CF_SCHEMA_NAME_MAX bytes, a NUL.
 */
static bool
dsp_name_buf(cf_slice v, char buf[CF_SCHEMA_NAME_MAX + 1])
{
	if (v.len == 0 || v.len > CF_SCHEMA_NAME_MAX || memchr(v.p, '\0', v.len) != NULL)
		return false;
	memcpy(buf, v.p, v.len);
	buf[v.len] = '\0';
	return true;
}

bool
cf_dispatch_cf_is_super(cf_dispatch *d, const cf_dispatch_session *s, cf_slice cf)
{
	char		name[CF_SCHEMA_NAME_MAX + 1];
	cf_schema  *schema;
	const cf_cf_def *def;
	bool		super;

	if (s == NULL || !s->has_keyspace || !dsp_name_buf(cf, name))
		return false;			/* no such CF: the read is refused */
	schema = cf_db_schema(cf_service_db(d->svc));
	def = cf_schema_cf(schema, s->keyspace, name);
	super = def != NULL && def->super;
	cf_schema_unref(schema);
	return super;
}

/* ---------------------------------------------------------------- helpers */

static void *
dsp_alloc(dsp_call *c, size_t n, size_t size)
{
	if (n == 0)
		return NULL;
	if (n > SIZE_MAX / size)
		return NULL;
	return cf_arena_alloc(c->arena, n * size);
}

/* A slice as a C string in arena; CF_ERR_INVALID if it holds a NUL. */
static cf_status *
dsp_cstr_arena(cf_arena *arena, cf_slice v, const char *what, const char **out)
{
	char	   *p;

	if (v.len && memchr(v.p, '\0', v.len))
		return cf_status_make(CF_ERR_INVALID, "%s may not contain a NUL byte", what);
	p = cf_arena_strndup(arena, v.len ? (const char *) v.p : "", v.len);
	if (p == NULL)
		return DSP_NO_MEMORY();
	*out = p;
	return NULL;
}

/* The same in the call's arena. */
static cf_status *
dsp_cstr(dsp_call *c, cf_slice v, const char *what, const char **out)
{
	return dsp_cstr_arena(c->arena, v, what, out);
}

static cf_slice
dsp_str_slice_arena(cf_arena *arena, const char *s)
{
	size_t		n = s ? strlen(s) : 0;
	void	   *p = n ? cf_arena_dup(arena, s, n) : NULL;

	return cf_slice_of(p, p ? n : 0);
}

static cf_slice
dsp_str_slice(dsp_call *c, const char *s)
{
	return dsp_str_slice_arena(c->arena, s);
}

static int32_t
dsp_now_sec(void)
{
	return (int32_t) time(NULL);
}

static cf_schema *
dsp_schema(dsp_call *c)
{
	if (c->schema == NULL)
		c->schema = cf_db_schema(cf_service_db(c->d->svc));
	return c->schema;
}

/* Is name the system keyspace, which exists whether or not the schema lists it? */
static bool
dsp_is_system_ks(const char *name)
{
	return strcmp(name, CF_SCHEMA_SYSTEM_KEYSPACE) == 0;
}

/* NULL if keyspace ks exists (in the schema, or system), else InvalidRequest's error. */
static cf_status *
dsp_keyspace_exists(dsp_call *c, const char *ks)
{
	if (cf_schema_keyspace(dsp_schema(c), ks) == NULL && !dsp_is_system_ks(ks))
		return cf_status_make(CF_ERR_INVALID, "Keyspace %s does not exist", ks);
	return NULL;
}

static cf_status *
dsp_require_keyspace(dsp_call *c)
{
	if (!c->sess->has_keyspace)
		return cf_status_make(CF_ERR_INVALID, "You have not set a keyspace for this session");
	return dsp_keyspace_exists(c, c->sess->keyspace);
}

/* The session keyspace's CF named cf, checked for perm. */
static cf_status *
dsp_cf(dsp_call *c, cf_slice cf, cf_auth_perm perm, const char **name,
	   const cf_cf_def **def)
{
	cf_status  *s = dsp_require_keyspace(c);

	if (s == NULL)
		s = dsp_cstr(c, cf, "column_family", name);
	if (s)
		return s;
	*def = cf_schema_cf(dsp_schema(c), c->sess->keyspace, *name);
	if (*def == NULL)
		return cf_status_make(CF_ERR_INVALID, "unconfigured columnfamily %s", *name);
	return cf_auth_authorize(c->d->auth, c->sess->user, c->sess->keyspace, *name, perm);
}

/* ColumnParent: the CF, and a super column only for a Super CF. */
static cf_status *
dsp_parent(dsp_call *c, const cf_t_column_parent *p, cf_auth_perm perm, const char **name,
		   const cf_cf_def **def, cf_slice *sc)
{
	cf_status  *s = dsp_cf(c, p->column_family, perm, name, def);

	*sc = cf_slice_of(NULL, 0);
	if (s || !p->has_super_column)
		return s;
	if (!(*def)->super)
		return cf_status_make(CF_ERR_INVALID,
							  "columnfamily alone is required for standard CF %s (no super_column)",
							  *name);
	s = cf_name_validate((*def)->comparator, p->super_column, "super_column name", false);
	*sc = p->super_column;
	return s;
}

static cf_status *
dsp_predicate(const cf_t_slice_predicate *tp, cf_predicate *p)
{
	memset(p, 0, sizeof(*p));
	if (tp->has_column_names)
	{
		p->by_names = true;
		p->names = tp->column_names;
		p->n_names = tp->n_column_names;
		return NULL;
	}
	if (!tp->has_slice_range)
		return cf_status_make(CF_ERR_INVALID,
							  "A SlicePredicate must be given a list of Columns, a SliceRange, or both");
	p->range.start = tp->slice_range.start;
	p->range.finish = tp->slice_range.finish;
	p->range.reversed = tp->slice_range.reversed;
	p->range.count = tp->slice_range.count;
	if (p->range.count < 0)
		return cf_status_make(CF_ERR_INVALID, "get_slice requires non-negative count");
	return NULL;
}

/* A read's column_parent (checked for read access) and its predicate. */
static cf_status *
dsp_read_parent(dsp_call *c, const char **cf, cf_slice *sc, cf_predicate *pred)
{
	const cf_cf_def *def;
	cf_status  *s = dsp_parent(c, &c->args.column_parent, CF_AUTH_READ, cf, &def, sc);

	if (s == NULL)
		s = dsp_predicate(&c->args.predicate, pred);
	return s;
}

/* ---------------------------------------------------------------- session */

static cf_status *
dsp_login(dsp_call *c)
{
	const cf_t_auth_request *ar = &c->args.auth_request;
	cf_slice	user = {0},
				pw = {0};
	bool		has_user = false,
				has_pw = false;
	const char *u;
	char	   *copy;
	cf_status  *s;

	for (size_t i = 0; i < ar->n_credentials; i++)
	{
		if (cf_slice_eq(ar->credentials[i].key, cf_slice_str("username")))
		{
			user = ar->credentials[i].value;
			has_user = true;
		}
		else if (cf_slice_eq(ar->credentials[i].key, cf_slice_str("password")))
		{
			pw = ar->credentials[i].value;
			has_pw = true;
		}
	}
	if (!has_user)
		return cf_status_make(CF_ERR_AUTHENTICATION,
							  "Authentication request was missing the required key 'username'");
	if (!has_pw && cf_auth_required(c->d->auth))
		return cf_status_make(CF_ERR_AUTHENTICATION,
							  "Authentication request was missing the required key 'password'");
	s = dsp_cstr(c, user, "username", &u);
	if (s)
	{
		cf_status_free(s);
		return cf_status_make(CF_ERR_AUTHENTICATION, "invalid username or password");
	}
	s = cf_auth_login(c->d->auth, user, pw);
	if (s)
		return s;
	copy = strdup(u);
	if (copy == NULL)
		return DSP_NO_MEMORY();
	free(c->sess->user);
	c->sess->user = copy;
	if (cf_auth_required(c->d->auth))
		cf_log_info("dispatch", "%s: logged in as %s", c->sess->peer, u);
	return NULL;
}

static cf_status *
dsp_set_keyspace(dsp_call *c)
{
	const char *ks;
	cf_status  *s = dsp_cstr(c, c->args.keyspace, "keyspace", &ks);

	if (s == NULL)
		s = dsp_keyspace_exists(c, ks);
	if (s)
		return s;
	s = cf_auth_authorize_keyspace_use(c->d->auth, c->sess->user, ks);
	if (s)
		return s;
	snprintf(c->sess->keyspace, sizeof(c->sess->keyspace), "%s", ks);
	c->sess->has_keyspace = true;
	return NULL;
}

/* ---------------------------------------------------------------- reads */

static cf_status *
dsp_get(dsp_call *c)
{
	const cf_t_column_path *p = &c->args.column_path;
	const char *cf;
	const cf_cf_def *def;
	cf_status  *s = dsp_cf(c, p->column_family, CF_AUTH_READ, &cf, &def);

	if (s)
		return s;
	if (!def->super && p->has_super_column)
		return cf_status_make(CF_ERR_INVALID,
							  "supercolumn parameter is invalid for standard CF %s", cf);
	if (!def->super && !p->has_column)
		return cf_status_make(CF_ERR_INVALID,
							  "column parameter is not optional for standard CF %s", cf);
	if (def->super && !p->has_super_column)
		return cf_status_make(CF_ERR_INVALID,
							  "column_path.super_column is required for super CF %s", cf);
	if (p->has_column && p->column.len == 0)
		return cf_status_make(CF_ERR_INVALID, "column name must not be empty");
	s = cf_service_get(c->d->svc, c->sess->keyspace, cf, c->args.key,
					   p->has_super_column ? p->super_column : cf_slice_of(NULL, 0),
					   p->has_column ? p->column : cf_slice_of(NULL, 0),
					   c->args.consistency_level, &c->read);
	if (s)
		return s;
	if (c->read->slice.is_super)
	{
		if (c->read->slice.n_supers != 1)
			return cf_status_make(CF_ERR_NOT_FOUND, "not found");
	}
	else if (c->read->slice.n_columns != 1)
		return cf_status_make(CF_ERR_NOT_FOUND, "not found");
	c->reply_slice = &c->read->slice;
	return NULL;
}

static cf_status *
dsp_get_slice(dsp_call *c)
{
	const char *cf;
	cf_slice	sc;
	cf_predicate pred;
	cf_status  *s = dsp_read_parent(c, &cf, &sc, &pred);

	if (s == NULL)
		s = cf_service_slice(c->d->svc, c->sess->keyspace, cf, c->args.key, sc, &pred,
							 c->args.consistency_level, &c->read);
	if (s == NULL)
		c->reply_slice = &c->read->slice;
	return s;
}

static cf_status *
dsp_get_count(dsp_call *c)
{
	const char *cf;
	cf_slice	sc;
	cf_predicate pred;
	cf_status  *s = dsp_read_parent(c, &cf, &sc, &pred);

	if (s == NULL)
		s = cf_service_count(c->d->svc, c->sess->keyspace, cf, c->args.key, sc, &pred,
							 c->args.consistency_level, &c->res.count);
	return s;
}

static cf_status *
dsp_multiget(dsp_call *c, bool counts)
{
	const char *cf;
	cf_slice	sc;
	cf_predicate pred;
	cf_status  *s = dsp_read_parent(c, &cf, &sc, &pred);

	if (s == NULL)
		s = cf_service_multiget(c->d->svc, c->sess->keyspace, cf, c->args.keys,
								c->args.n_keys, sc, &pred, c->args.consistency_level,
								&c->rows);
	if (s)
		return s;
	if (counts)
	{
		cf_t_key_count *kc = dsp_alloc(c, c->rows->n_rows, sizeof(*kc));

		if (c->rows->n_rows && kc == NULL)
			return DSP_NO_MEMORY();
		for (size_t i = 0; i < c->rows->n_rows; i++)
		{
			const cf_row_slice *rs = &c->rows->rows[i].slice;

			kc[i].key = c->rows->rows[i].key;
			kc[i].count = (int32_t) (rs->is_super ? rs->n_supers : rs->n_columns);
		}
		c->res.key_counts = kc;
		c->res.n_key_counts = c->rows->n_rows;
		return NULL;
	}
	c->reply_rows = c->rows;
	return NULL;
}

/*
 * get_range_slices' reply encoded as the scan merges its rows (dispatch_reply.h's
 * range writer), straight into c->reply: no per-cell copy into a result first. An
 * error of the read is returned (the reply buffer back as it was, for dsp_reply's
 * exception); an error of the encoding (the frame limit, memory) is left in
 * c->stream_ws for dsp_reply, which words it as for the other read methods.
 */
static cf_status *
dsp_stream_range(dsp_call *c, const char *cf, const cf_service_range *r, cf_slice sc,
				 const cf_predicate *pred)
{
	cf_tr_range_writer w;
	cf_read_sink sink;
	size_t		mark = c->reply->len;
	uint8_t		failed = c->reply->failed;
	cf_status  *s = cf_tr_range_writer_init(&w, c->reply, c->m, c->seqid, &sink);

	if (s == NULL)
		s = cf_service_range_slices_sink(c->d->svc, c->sess->keyspace, cf, r, sc, pred,
										 c->args.consistency_level, &sink);
	if (s == NULL)
	{
		c->streamed = true;
		c->stream_ws = cf_tr_range_writer_finish(&w);
	}
	else if (cf_tr_range_writer_failed(&w))
	{
		/* the writer's failure (an overlong length, no memory): the encoding's */
		c->streamed = true;
		c->stream_ws = s;
		s = NULL;
	}
	if (s != NULL || c->stream_ws != NULL)
	{
		c->reply->len = mark;
		c->reply->failed = failed;
	}
	return s;
}

static cf_status *
dsp_get_range_slices(dsp_call *c)
{
	const cf_t_key_range *kr = &c->args.range;
	const char *cf;
	cf_slice	sc;
	cf_predicate pred;
	cf_service_range r = {.count = kr->count};
	cf_status  *s = dsp_read_parent(c, &cf, &sc, &pred);

	if (s)
		return s;
	if (kr->has_start_key == kr->has_start_token || kr->has_end_key == kr->has_end_token)
		return cf_status_make(CF_ERR_INVALID,
							  "exactly one of {start key, end key} or {start token, end token} must be specified");
	if (kr->has_start_key != kr->has_end_key)
		return cf_status_make(CF_ERR_INVALID,
							  "a KeyRange takes both keys or both tokens: start %s with end %s is not supported",
							  kr->has_start_key ? "key" : "token",
							  kr->has_end_key ? "key" : "token");
	r.by_token = kr->has_start_token;
	r.start_key = kr->start_key;
	r.end_key = kr->end_key;
	r.start_token = kr->start_token;
	r.end_token = kr->end_token;
	return dsp_stream_range(c, cf, &r, sc, &pred);
}

static cf_status *
dsp_get_indexed_slices(dsp_call *c)
{
	const cf_t_index_clause *ic = &c->args.index_clause;
	const char *cf;
	cf_slice	sc;
	cf_predicate pred;
	cf_index_expr *ex;
	cf_index_clause q = {.n_exprs = ic->n_expressions,.start_key = ic->start_key,
	.count = ic->count};
	cf_status  *s = dsp_read_parent(c, &cf, &sc, &pred);

	if (s)
		return s;
	if (sc.len)
		return cf_status_make(CF_ERR_INVALID,
							  "get_indexed_slices does not take a super_column");
	ex = dsp_alloc(c, ic->n_expressions, sizeof(*ex));
	if (ic->n_expressions && ex == NULL)
		return DSP_NO_MEMORY();
	for (size_t i = 0; i < ic->n_expressions; i++)
	{
		ex[i].column = ic->expressions[i].column_name;
		ex[i].op = (cf_index_op) ic->expressions[i].op;	/* checked by the db */
		ex[i].value = ic->expressions[i].value;
	}
	q.exprs = ex;
	s = cf_service_indexed_slices(c->d->svc, c->sess->keyspace, cf, &q, &pred,
								  c->args.consistency_level, &c->rows);
	if (s == NULL)
		c->reply_rows = c->rows;
	return s;
}

/* ---------------------------------------------------------------- writes */

/* A cell of a Thrift Column under super column sc (empty: none). */
static cf_status *
dsp_cell(const cf_t_column *tc, cf_slice sc, int32_t now, cf_cell *cell)
{
	memset(cell, 0, sizeof(*cell));
	cell->sc = sc;
	cell->name = tc->name;
	cell->value = tc->value;
	cell->timestamp = tc->timestamp;
	if (tc->has_ttl)
	{
		if (tc->ttl <= 0)
			return cf_status_make(CF_ERR_INVALID, "ttl must be positive, got %d", tc->ttl);
		if (tc->ttl > CF_SCHEMA_TTL_MAX)
			return cf_status_make(CF_ERR_INVALID, "ttl %d is over the maximum of %d seconds",
								  tc->ttl, CF_SCHEMA_TTL_MAX);
		cell->flags = CF_CELL_EXPIRING;
		cell->ttl = tc->ttl;
		cell->local_time = now + tc->ttl;
	}
	return NULL;
}

static cf_cell
dsp_tombstone(cf_slice sc, cf_slice name, int64_t ts, int32_t now)
{
	cf_cell		t = {.sc = sc,.name = name,.timestamp = ts,.local_time = now,
	.flags = CF_CELL_DELETED};

	return t;
}

static cf_status *
dsp_insert(dsp_call *c)
{
	const char *cf;
	const cf_cf_def *def;
	cf_slice	sc;
	cf_cell		cell;
	cf_db_update u = {.u = {.row_del = cf_deletion_none(),.cells = &cell,.n_cells = 1}};
	cf_row_mutation row = {.key = c->args.key,.updates = &u,.n_updates = 1};
	cf_status  *s = dsp_parent(c, &c->args.column_parent, CF_AUTH_WRITE, &cf, &def, &sc);

	if (s)
		return s;
	if (def->super && sc.len == 0)
		return cf_status_make(CF_ERR_INVALID,
							  "missing super_column: column_parent of super CF %s must name one",
							  cf);
	s = dsp_cell(&c->args.column, sc, dsp_now_sec(), &cell);
	if (s)
		return s;
	u.cf = cf;
	return cf_service_mutate(c->d->svc, c->sess->keyspace, &row, 1,
							 c->args.consistency_level);
}

static cf_status *
dsp_remove(dsp_call *c)
{
	const cf_t_column_path *p = &c->args.column_path;
	const char *cf;
	const cf_cf_def *def;
	int32_t		now = dsp_now_sec();
	int64_t		ts = c->args.timestamp;
	cf_cell		cell;
	cf_range_tomb tomb;
	cf_db_update u = {.u = {.row_del = cf_deletion_none()}};
	cf_row_mutation row = {.key = c->args.key,.updates = &u,.n_updates = 1};
	cf_status  *s = dsp_cf(c, p->column_family, CF_AUTH_WRITE, &cf, &def);

	if (s)
		return s;
	u.cf = cf;
	if (!def->super && p->has_super_column)
		return cf_status_make(CF_ERR_INVALID,
							  "supercolumn parameter is invalid for standard CF %s", cf);
	if (def->super && p->has_column && !p->has_super_column)
		return cf_status_make(CF_ERR_INVALID,
							  "A column cannot be specified without specifying a super column for removal on super CF %s",
							  cf);
	if (p->has_column)
	{
		cell = dsp_tombstone(p->has_super_column ? p->super_column : cf_slice_of(NULL, 0),
							 p->column, ts, now);
		u.u.cells = &cell;
		u.u.n_cells = 1;
	}
	else if (p->has_super_column)
	{
		tomb = (cf_range_tomb) {.sc = p->super_column,.del = {ts, now}};
		if (p->super_column.len == 0)
			return cf_status_make(CF_ERR_INVALID, "super_column name must not be empty");
		u.u.tombs = &tomb;
		u.u.n_tombs = 1;
	}
	else
		u.u.row_del = (cf_deletion) {ts, now};
	return cf_service_mutate(c->d->svc, c->sess->keyspace, &row, 1,
							 c->args.consistency_level);
}

/* Adds one Deletion to u (arrays in the call's arena, grown by count given). */
static cf_status *
dsp_deletion(const cf_cf_def *def, const cf_t_deletion *del, int32_t now,
			 cf_cf_update *u)
{
	cf_slice	sc = del->has_super_column ? del->super_column : cf_slice_of(NULL, 0);
	cf_deletion d = {del->timestamp, now};

	if (del->has_super_column && !def->super)
		return cf_status_make(CF_ERR_INVALID,
							  "Deletion of a super_column is invalid for standard CF %s",
							  def->name);
	if (del->has_super_column && del->super_column.len == 0)
		return cf_status_make(CF_ERR_INVALID, "super_column name must not be empty");
	if (!del->has_predicate)
	{
		if (sc.len)
			u->tombs[u->n_tombs++] = (cf_range_tomb) {.sc = sc,.del = d};
		else
			u->row_del = cf_deletion_is_live(u->row_del) ? d :
				cf_deletion_max(u->row_del, d);
		return NULL;
	}
	if (del->predicate.has_column_names)
	{
		for (size_t i = 0; i < del->predicate.n_column_names; i++)
		{
			cf_slice	name = del->predicate.column_names[i];

			if (def->super && sc.len == 0)	/* whole super columns by name */
				u->tombs[u->n_tombs++] = (cf_range_tomb) {
					.start = name,.finish = name,.del = d,
				};
			else
				u->cells[u->n_cells++] = dsp_tombstone(sc, name, del->timestamp, now);
			if (name.len == 0)
				return cf_status_make(CF_ERR_INVALID,
									  "Deletion predicate column name must not be empty");
		}
		return NULL;
	}
	if (del->predicate.has_slice_range)
	{
		const cf_t_slice_range *r = &del->predicate.slice_range;

		u->tombs[u->n_tombs++] = (cf_range_tomb) {
			.sc = sc,.start = r->reversed ? r->finish : r->start,
			.finish = r->reversed ? r->start : r->finish,.del = d,
		};
		return NULL;
	}
	return cf_status_make(CF_ERR_INVALID,
						  "A SlicePredicate must be given a list of Columns, a SliceRange, or both");
}

static cf_status *
dsp_cf_mutations(dsp_call *c, const cf_t_cf_mutations *cm, int32_t now, cf_db_update *out)
{
	const char *cf;
	const cf_cf_def *def;
	size_t		max_cells = 0,
				max_tombs = 0;
	cf_cf_update *u = &out->u;
	cf_status  *s = dsp_cf(c, cm->column_family, CF_AUTH_WRITE, &cf, &def);

	if (s)
		return s;
	out->cf = cf;
	memset(u, 0, sizeof(*u));
	u->row_del = cf_deletion_none();
	for (size_t i = 0; i < cm->n_mutations; i++)
	{
		const cf_t_mutation *m = &cm->mutations[i];

		if (m->has_cosc == m->has_deletion)
			return cf_status_make(CF_ERR_INVALID,
								  "Mutation must have one and only one of column_or_supercolumn or deletion");
		if (m->has_cosc)
		{
			if (m->cosc.has_column == m->cosc.has_super_column)
				return cf_status_make(CF_ERR_INVALID,
									  "ColumnOrSuperColumn must have one (and only one) of column or super_column");
			max_cells += m->cosc.has_column ? 1 : m->cosc.super_column.n_columns;
		}
		else if (m->deletion.has_predicate && m->deletion.predicate.has_column_names)
			max_cells += m->deletion.predicate.n_column_names,
				max_tombs += m->deletion.predicate.n_column_names;
		else
			max_tombs++;
	}
	u->cells = dsp_alloc(c, max_cells, sizeof(cf_cell));
	u->tombs = dsp_alloc(c, max_tombs, sizeof(cf_range_tomb));
	if ((max_cells && u->cells == NULL) || (max_tombs && u->tombs == NULL))
		return DSP_NO_MEMORY();
	for (size_t i = 0; s == NULL && i < cm->n_mutations; i++)
	{
		const cf_t_mutation *m = &cm->mutations[i];

		if (m->has_deletion)
			s = dsp_deletion(def, &m->deletion, now, u);
		else if (m->cosc.has_column)
		{
			if (def->super)
				return cf_status_make(CF_ERR_INVALID,
									  "a Column must be inside a SuperColumn for super CF %s", cf);
			s = dsp_cell(&m->cosc.column, cf_slice_of(NULL, 0), now, &u->cells[u->n_cells++]);
		}
		else
		{
			const cf_t_super_column *sup = &m->cosc.super_column;

			if (!def->super)
				return cf_status_make(CF_ERR_INVALID,
									  "a SuperColumn is invalid for standard CF %s", cf);
			if (sup->name.len == 0)
				return cf_status_make(CF_ERR_INVALID, "super_column name must not be empty");
			for (size_t j = 0; s == NULL && j < sup->n_columns; j++)
				s = dsp_cell(&sup->columns[j], sup->name, now, &u->cells[u->n_cells++]);
		}
	}
	return s;
}

static cf_status *
dsp_batch_mutate(dsp_call *c)
{
	int32_t		now = dsp_now_sec();
	size_t		n = c->args.n_mutation_map;
	cf_row_mutation *rows = dsp_alloc(c, n, sizeof(*rows));
	cf_status  *s = dsp_require_keyspace(c);

	if (s)
		return s;
	if (n && rows == NULL)
		return DSP_NO_MEMORY();
	for (size_t i = 0; s == NULL && i < n; i++)
	{
		const cf_t_key_mutations *km = &c->args.mutation_map[i];
		cf_db_update *ups = dsp_alloc(c, km->n_cfs, sizeof(*ups));

		if (km->n_cfs && ups == NULL)
			return DSP_NO_MEMORY();
		rows[i] = (cf_row_mutation) {.key = km->key,.updates = ups,.n_updates = km->n_cfs};
		for (size_t j = 0; s == NULL && j < km->n_cfs; j++)
			s = dsp_cf_mutations(c, &km->cfs[j], now, &ups[j]);
	}
	if (s == NULL)
		s = cf_service_mutate(c->d->svc, c->sess->keyspace, rows, n,
							  c->args.consistency_level);
	return s;
}

static cf_status *
dsp_truncate(dsp_call *c)
{
	const char *cf;
	const cf_cf_def *def;
	cf_status  *s = dsp_cf(c, c->args.cfname, CF_AUTH_WRITE, &cf, &def);

	if (s == NULL)
		s = cf_service_truncate(c->d->svc, c->sess->keyspace, cf);
	return s;
}

/* ---------------------------------------------------------------- describe */

static cf_t_cf_def
dsp_t_cf_def(dsp_call *c, const cf_cf_def *d, bool *oom)
{
	cf_t_cf_def t = {0};

	t.keyspace = dsp_str_slice(c, d->keyspace);
	t.name = dsp_str_slice(c, d->name);
	t.has_column_type = true;
	t.column_type = cf_slice_str(d->super ? "Super" : "Standard");
	t.has_comparator_type = true;
	t.comparator_type = cf_slice_str(cf_type_class(d->comparator));
	if (d->super)
	{
		t.has_subcomparator_type = true;
		t.subcomparator_type = cf_slice_str(cf_type_class(d->subcomparator));
	}
	if (d->comment)
	{
		t.has_comment = true;
		t.comment = dsp_str_slice(c, d->comment);
	}
	t.has_row_cache_size = t.has_key_cache_size = t.has_read_repair_chance = true;
	t.row_cache_size = d->row_cache_size;
	t.key_cache_size = d->key_cache_size;
	t.read_repair_chance = d->read_repair_chance;
	t.has_gc_grace_seconds = true;
	t.gc_grace_seconds = d->gc_grace_seconds;
	t.has_default_validation_class = true;
	t.default_validation_class = cf_slice_str(cf_type_class(d->default_validator));
	t.has_id = true;
	t.id = (int32_t) d->id;
	t.has_min_compaction_threshold = t.has_max_compaction_threshold = true;
	t.min_compaction_threshold = d->min_compaction_threshold;
	t.max_compaction_threshold = d->max_compaction_threshold;
	t.has_row_cache_save_period_in_seconds = t.has_key_cache_save_period_in_seconds = true;
	t.row_cache_save_period_in_seconds = d->row_cache_save_period_in_seconds;
	t.key_cache_save_period_in_seconds = d->key_cache_save_period_in_seconds;
	t.has_memtable_flush_after_mins = t.has_memtable_throughput_in_mb = true;
	t.memtable_flush_after_mins = d->memtable_flush_after_mins;
	t.memtable_throughput_in_mb = d->memtable_throughput_in_mb;
	t.has_memtable_operations_in_millions = true;
	t.memtable_operations_in_millions = d->memtable_operations_in_millions;
	t.has_column_metadata = true;
	t.n_column_metadata = d->n_columns;
	t.column_metadata = dsp_alloc(c, d->n_columns, sizeof(cf_t_column_def));
	if (d->n_columns && t.column_metadata == NULL)
	{
		*oom = true;
		t.n_column_metadata = 0;
	}
	for (size_t i = 0; i < t.n_column_metadata; i++)
	{
		const cf_column_def *cd = &d->column_metadata[i];
		cf_t_column_def *tc = &t.column_metadata[i];

		memset(tc, 0, sizeof(*tc));
		tc->name = cf_slice_of(cd->name, cd->name_len);
		tc->validation_class = cf_slice_str(cf_type_class(cd->validator));
		if (cd->indexed)
		{
			tc->has_index_type = true;
			tc->index_type = CF_T_INDEX_KEYS;
		}
		if (cd->index_name)
		{
			tc->has_index_name = true;
			tc->index_name = dsp_str_slice(c, cd->index_name);
		}
	}
	return t;
}

static cf_status *
dsp_t_ks_def(dsp_call *c, const cf_ks_def *k, cf_t_ks_def *t)
{
	bool		oom = false;

	memset(t, 0, sizeof(*t));
	t->name = dsp_str_slice(c, k->name);
	t->strategy_class = cf_slice_str(cf_strategy_class(k->strategy));
	t->replication_factor = k->replication_factor;
	if (k->n_options)
	{
		t->has_strategy_options = true;
		t->strategy_options = dsp_alloc(c, k->n_options, sizeof(cf_t_string_pair));
		if (t->strategy_options == NULL)
			return DSP_NO_MEMORY();
		t->n_strategy_options = k->n_options;
		for (size_t i = 0; i < k->n_options; i++)
		{
			t->strategy_options[i].key = dsp_str_slice(c, k->strategy_options[i].key);
			t->strategy_options[i].value = dsp_str_slice(c, k->strategy_options[i].value);
		}
	}
	t->cf_defs = dsp_alloc(c, k->n_cfs, sizeof(cf_t_cf_def));
	if (k->n_cfs && t->cf_defs == NULL)
		return DSP_NO_MEMORY();
	t->n_cf_defs = k->n_cfs;
	for (size_t i = 0; i < k->n_cfs; i++)
		t->cf_defs[i] = dsp_t_cf_def(c, &k->cfs[i], &oom);
	return oom ? DSP_NO_MEMORY() : NULL;
}

/*
 * The system keyspace as the describe_* calls show it when the schema has none (it
 * never does: users may not create it). Cassandra 0.7 listed "system" among the
 * keyspaces (LocalStrategy, replication_factor 1), and its clients expect to see it
 * there and to skip it themselves. colfam keeps its own tables in it, which are not
 * Cassandra's and are not served as column families, so it shows none.
 */
static void
dsp_t_system_ks_def(cf_t_ks_def *t)
{
	memset(t, 0, sizeof(*t));
	t->name = cf_slice_str(CF_SCHEMA_SYSTEM_KEYSPACE);
	t->strategy_class = cf_slice_str("org.apache.cassandra.locator.LocalStrategy");
	t->replication_factor = 1;
}

static cf_status *
dsp_describe_keyspaces(dsp_call *c)
{
	cf_schema  *schema = dsp_schema(c);
	size_t		n = cf_schema_n_keyspaces(schema);
	bool		add_system = cf_schema_keyspace(schema, CF_SCHEMA_SYSTEM_KEYSPACE) == NULL;
	cf_status  *s = NULL;

	c->res.ks_defs = dsp_alloc(c, n + add_system, sizeof(cf_t_ks_def));
	if (n + add_system && c->res.ks_defs == NULL)
		return DSP_NO_MEMORY();
	c->res.n_ks_defs = n + add_system;
	for (size_t i = 0; s == NULL && i < n; i++)
		s = dsp_t_ks_def(c, cf_schema_keyspace_at(schema, i), &c->res.ks_defs[i]);
	if (add_system)
		dsp_t_system_ks_def(&c->res.ks_defs[n]);
	return s;
}

static cf_status *
dsp_describe_keyspace(dsp_call *c)
{
	const char *name;
	const cf_ks_def *k;
	cf_status  *s = dsp_cstr(c, c->args.keyspace, "keyspace", &name);

	if (s)
		return s;
	k = cf_schema_keyspace(dsp_schema(c), name);
	if (k == NULL && dsp_is_system_ks(name))
	{
		dsp_t_system_ks_def(&c->res.ks_def);
		return NULL;
	}
	if (k == NULL)
		return cf_status_make(CF_ERR_NOT_FOUND, "Keyspace %s does not exist", name);
	return dsp_t_ks_def(c, k, &c->res.ks_def);
}

static cf_status *
dsp_describe_ring(dsp_call *c)
{
	const char *name;
	cf_t_token_range *tr;
	cf_status  *s = dsp_cstr(c, c->args.keyspace, "keyspace", &name);

	if (s == NULL && dsp_is_system_ks(name))
		s = cf_status_make(CF_ERR_INVALID, "There is no ring for the keyspace: %s", name);
	if (s == NULL)
		s = cf_service_describe_ring(c->d->svc, name, &c->ring, &c->n_ring);
	if (s)
		return s;
	tr = dsp_alloc(c, c->n_ring, sizeof(*tr));
	if (c->n_ring && tr == NULL)
		return DSP_NO_MEMORY();
	for (size_t i = 0; i < c->n_ring; i++)
	{
		tr[i].start_token = cf_slice_str(c->ring[i].start_token);
		tr[i].end_token = cf_slice_str(c->ring[i].end_token);
		tr[i].n_endpoints = c->ring[i].n_endpoints;
		tr[i].endpoints = dsp_alloc(c, c->ring[i].n_endpoints, sizeof(cf_slice));
		if (tr[i].n_endpoints && tr[i].endpoints == NULL)
			return DSP_NO_MEMORY();
		for (size_t j = 0; j < tr[i].n_endpoints; j++)
			tr[i].endpoints[j] = cf_slice_str(c->ring[i].endpoints[j]);
	}
	c->res.token_ranges = tr;
	c->res.n_token_ranges = c->n_ring;
	return NULL;
}

static cf_status *
dsp_describe_schema_versions(dsp_call *c)
{
	cf_schema_id id;
	cf_t_schema_version *v = dsp_alloc(c, 1, sizeof(*v));
	cf_slice   *hosts = dsp_alloc(c, 1, sizeof(*hosts));
	cf_status  *s = cf_service_schema_id(c->d->svc, id);

	if (s)
		return s;
	if (v == NULL || hosts == NULL)
		return DSP_NO_MEMORY();
	hosts[0] = cf_slice_str(cf_service_endpoint(c->d->svc));
	v->version = dsp_str_slice(c, id);
	v->hosts = hosts;
	v->n_hosts = 1;
	c->res.schema_versions = v;
	c->res.n_schema_versions = 1;
	return NULL;
}

static cf_status *
dsp_describe_splits(dsp_call *c)
{
	const char *cf;
	const cf_cf_def *def;
	cf_status  *s = dsp_cf(c, c->args.cfname, CF_AUTH_READ, &cf, &def);

	if (s == NULL)
		s = cf_service_describe_splits(c->d->svc, c->sess->keyspace, cf,
									   c->args.start_token, c->args.end_token,
									   c->args.keys_per_split, &c->strings, &c->n_strings);
	if (s)
		return s;
	c->res.strings = dsp_alloc(c, c->n_strings, sizeof(cf_slice));
	if (c->n_strings && c->res.strings == NULL)
		return DSP_NO_MEMORY();
	for (size_t i = 0; i < c->n_strings; i++)
		c->res.strings[i] = cf_slice_str(c->strings[i]);
	c->res.n_strings = c->n_strings;
	return NULL;
}

/* ---------------------------------------------------------------- schema changes */

/* A Thrift class-name string as a C string for the schema builders. */
static cf_status *
dsp_cf_def(dsp_call *c, const cf_t_cf_def *t, cf_cf_def *d)
{
	const char *ks,
			   *name,
			   *v;
	cf_status  *s;

	s = dsp_cstr(c, t->keyspace, "CfDef.keyspace", &ks);
	if (s == NULL)
		s = dsp_cstr(c, t->name, "CfDef.name", &name);
	if (s == NULL)
		s = cf_cfdef_init(d, ks, name);
	if (s)
		return s;
	if (s == NULL && t->has_column_type &&
		(s = dsp_cstr(c, t->column_type, "column_type", &v)) == NULL)
		s = cf_cfdef_set_column_type(d, v);
	if (s == NULL && t->has_comparator_type &&
		(s = dsp_cstr(c, t->comparator_type, "comparator_type", &v)) == NULL)
		s = cf_cfdef_set_comparator(d, v);
	if (s == NULL && t->has_subcomparator_type &&
		(s = dsp_cstr(c, t->subcomparator_type, "subcomparator_type", &v)) == NULL)
		s = cf_cfdef_set_subcomparator(d, v);
	if (s == NULL && t->has_default_validation_class &&
		(s = dsp_cstr(c, t->default_validation_class, "default_validation_class", &v)) == NULL)
		s = cf_cfdef_set_default_validator(d, v);
	if (s == NULL && t->has_comment && (s = dsp_cstr(c, t->comment, "comment", &v)) == NULL)
		s = cf_cfdef_set_comment(d, v);
	if (s)
		return s;
	if (t->has_id)
		d->id = (uint32_t) t->id;
	if (t->has_row_cache_size)
		d->row_cache_size = t->row_cache_size;
	if (t->has_key_cache_size)
		d->key_cache_size = t->key_cache_size;
	if (t->has_read_repair_chance)
		d->read_repair_chance = t->read_repair_chance;
	if (t->has_gc_grace_seconds)
		d->gc_grace_seconds = t->gc_grace_seconds;
	if (t->has_min_compaction_threshold)
		d->min_compaction_threshold = t->min_compaction_threshold;
	if (t->has_max_compaction_threshold)
		d->max_compaction_threshold = t->max_compaction_threshold;
	if (t->has_row_cache_save_period_in_seconds)
		d->row_cache_save_period_in_seconds = t->row_cache_save_period_in_seconds;
	if (t->has_key_cache_save_period_in_seconds)
		d->key_cache_save_period_in_seconds = t->key_cache_save_period_in_seconds;
	if (t->has_memtable_flush_after_mins)
		d->memtable_flush_after_mins = t->memtable_flush_after_mins;
	if (t->has_memtable_throughput_in_mb)
		d->memtable_throughput_in_mb = t->memtable_throughput_in_mb;
	if (t->has_memtable_operations_in_millions)
		d->memtable_operations_in_millions = t->memtable_operations_in_millions;
	for (size_t i = 0; s == NULL && t->has_column_metadata && i < t->n_column_metadata; i++)
	{
		const cf_t_column_def *cd = &t->column_metadata[i];
		const char *vc,
				   *iname = NULL;

		if (cd->has_index_type && cd->index_type != CF_T_INDEX_KEYS)
			return cf_status_make(CF_ERR_INVALID,
								  "column_metadata: index_type %d is not KEYS (0), the only index type",
								  cd->index_type);
		s = dsp_cstr(c, cd->validation_class, "validation_class", &vc);
		if (s == NULL && cd->has_index_name)
			s = dsp_cstr(c, cd->index_name, "index_name", &iname);
		if (s == NULL)
			s = cf_cfdef_add_column(d, cd->name, vc, cd->has_index_type, iname);
	}
	return s;
}

static cf_status *
dsp_ks_def(dsp_call *c, const cf_t_ks_def *t, cf_ks_def *k)
{
	const char *name,
			   *strategy;
	cf_status  *s = dsp_cstr(c, t->name, "KsDef.name", &name);

	if (s == NULL)
		s = cf_ksdef_init(k, name);
	if (s)
		return s;
	s = dsp_cstr(c, t->strategy_class, "strategy_class", &strategy);
	if (s == NULL)
		s = cf_ksdef_set_strategy(k, strategy);
	k->replication_factor = t->replication_factor;
	for (size_t i = 0; s == NULL && t->has_strategy_options && i < t->n_strategy_options; i++)
	{
		const char *key,
				   *val;

		s = dsp_cstr(c, t->strategy_options[i].key, "strategy option", &key);
		if (s == NULL)
			s = dsp_cstr(c, t->strategy_options[i].value, "strategy option", &val);
		if (s == NULL)
			s = cf_ksdef_add_option(k, key, val);
	}
	for (size_t i = 0; s == NULL && i < t->n_cf_defs; i++)
	{
		cf_cf_def	d;

		memset(&d, 0, sizeof(d));
		s = dsp_cf_def(c, &t->cf_defs[i], &d);
		if (s == NULL && strcmp(d.keyspace, name) != 0)
			s = cf_status_make(CF_ERR_INVALID,
							   "CfDef (%s) had a keyspace definition that did not match KsDef",
							   d.name);
		if (s == NULL)
			s = cf_ksdef_add_cf(k, &d);
		cf_cfdef_clear(&d);
	}
	return s;
}

static cf_status *
dsp_schema_result(dsp_call *c, cf_status *s, const cf_schema_id id)
{
	if (s == NULL)
		c->res.string = dsp_str_slice(c, id);
	return s;
}

static cf_status *
dsp_system_keyspace(dsp_call *c)
{
	cf_schema_id id;
	cf_ks_def	k;
	cf_status  *s = cf_auth_authorize_keyspaces(c->d->auth, c->sess->user);

	if (s)
		return s;
	memset(&k, 0, sizeof(k));
	if (c->m == CF_T_M_SYSTEM_DROP_KEYSPACE)
	{
		const char *name;

		s = dsp_cstr(c, c->args.keyspace, "keyspace", &name);
		if (s == NULL)
			s = cf_service_drop_keyspace(c->d->svc, name, id);
		return dsp_schema_result(c, s, id);
	}
	s = dsp_ks_def(c, &c->args.ks_def, &k);
	if (s == NULL && c->m == CF_T_M_SYSTEM_ADD_KEYSPACE)
		s = cf_service_add_keyspace(c->d->svc, &k, id);
	else if (s == NULL)
	{
		if (k.n_cfs)
			s = cf_status_make(CF_ERR_INVALID,
							   "Keyspace update must not contain any column family definitions");
		else
			s = cf_service_update_keyspace(c->d->svc, &k, id);
	}
	cf_ksdef_clear(&k);
	return dsp_schema_result(c, s, id);
}

static cf_status *
dsp_system_cf(dsp_call *c)
{
	cf_schema_id id;
	cf_cf_def	d;
	cf_status  *s;

	if (c->m == CF_T_M_SYSTEM_DROP_COLUMN_FAMILY)
	{
		const char *name;

		s = dsp_require_keyspace(c);
		if (s == NULL)
			s = cf_auth_authorize(c->d->auth, c->sess->user, c->sess->keyspace, NULL,
								  CF_AUTH_WRITE);
		if (s == NULL)
			s = dsp_cstr(c, c->args.cfname, "column_family", &name);
		if (s == NULL)
			s = cf_service_drop_cf(c->d->svc, c->sess->keyspace, name, id);
		return dsp_schema_result(c, s, id);
	}
	memset(&d, 0, sizeof(d));
	s = dsp_cf_def(c, &c->args.cf_def, &d);
	if (s == NULL)
		s = dsp_keyspace_exists(c, d.keyspace);
	if (s == NULL)
		s = cf_auth_authorize(c->d->auth, c->sess->user, d.keyspace, NULL, CF_AUTH_WRITE);
	if (s == NULL && c->m == CF_T_M_SYSTEM_ADD_COLUMN_FAMILY)
	{
		d.id = 0;
		s = cf_service_add_cf(c->d->svc, &d, id);
	}
	else if (s == NULL)
		s = cf_service_update_cf(c->d->svc, &d, id);
	cf_cfdef_clear(&d);
	return dsp_schema_result(c, s, id);
}

/* ---------------------------------------------------------------- the call */

/* NULL if sess may make calls: authentication is off or it has logged in. */
static cf_status *
dsp_logged_in(const cf_dispatch *d, const cf_dispatch_session *sess)
{
	if (cf_auth_required(d->auth) && sess->user == NULL)
		return cf_status_make(CF_ERR_AUTHENTICATION, "you have not logged in");
	return NULL;
}

static cf_status *
dsp_run(dsp_call *c)
{
	cf_dispatch *d = c->d;
	cf_status  *s;

	if (c->m != CF_T_M_LOGIN && c->m != CF_T_M_DESCRIBE_VERSION &&
		(s = dsp_logged_in(d, c->sess)) != NULL)
		return s;

	switch (c->m)
	{
		case CF_T_M_LOGIN:
			return dsp_login(c);
		case CF_T_M_SET_KEYSPACE:
			return dsp_set_keyspace(c);
		case CF_T_M_GET:
			return dsp_get(c);
		case CF_T_M_GET_SLICE:
			return dsp_get_slice(c);
		case CF_T_M_GET_COUNT:
			return dsp_get_count(c);
		case CF_T_M_MULTIGET_SLICE:
			return dsp_multiget(c, false);
		case CF_T_M_MULTIGET_COUNT:
			return dsp_multiget(c, true);
		case CF_T_M_GET_RANGE_SLICES:
			return dsp_get_range_slices(c);
		case CF_T_M_GET_INDEXED_SLICES:
			return dsp_get_indexed_slices(c);
		case CF_T_M_INSERT:
			return dsp_insert(c);
		case CF_T_M_REMOVE:
			return dsp_remove(c);
		case CF_T_M_BATCH_MUTATE:
			return dsp_batch_mutate(c);
		case CF_T_M_TRUNCATE:
			return dsp_truncate(c);
		case CF_T_M_DESCRIBE_SCHEMA_VERSIONS:
			return dsp_describe_schema_versions(c);
		case CF_T_M_DESCRIBE_KEYSPACES:
			return dsp_describe_keyspaces(c);
		case CF_T_M_DESCRIBE_CLUSTER_NAME:
			c->res.string = cf_slice_str(cf_service_cluster_name(d->svc));
			return NULL;
		case CF_T_M_DESCRIBE_VERSION:
			c->res.string = cf_slice_str(CF_THRIFT_API_VERSION);
			return NULL;
		case CF_T_M_DESCRIBE_RING:
			return dsp_describe_ring(c);
		case CF_T_M_DESCRIBE_PARTITIONER:
			c->res.string = cf_slice_str(cf_service_partitioner_class(d->svc));
			return NULL;
		case CF_T_M_DESCRIBE_SNITCH:
			c->res.string = cf_slice_str(CF_SERVICE_SNITCH);
			return NULL;
		case CF_T_M_DESCRIBE_KEYSPACE:
			return dsp_describe_keyspace(c);
		case CF_T_M_DESCRIBE_SPLITS:
			return dsp_describe_splits(c);
		case CF_T_M_SYSTEM_ADD_COLUMN_FAMILY:
		case CF_T_M_SYSTEM_DROP_COLUMN_FAMILY:
		case CF_T_M_SYSTEM_UPDATE_COLUMN_FAMILY:
			return dsp_system_cf(c);
		case CF_T_M_SYSTEM_ADD_KEYSPACE:
		case CF_T_M_SYSTEM_DROP_KEYSPACE:
		case CF_T_M_SYSTEM_UPDATE_KEYSPACE:
			return dsp_system_keyspace(c);
		case CF_T_M_COUNT_:
			break;
	}
	return cf_status_make(CF_ERR_INTERNAL, "method %d has no handler", (int) c->m);
}

/* The declared exception an error becomes, or NONE for "no declared one fits". */
static cf_t_exception_kind
dsp_exception_kind(cf_t_method m, cf_code code)
{
	switch (code)
	{
		case CF_ERR_NOT_FOUND:
			if (m == CF_T_M_GET || m == CF_T_M_DESCRIBE_KEYSPACE)
				return CF_T_EXC_NOT_FOUND;
			return CF_T_EXC_INVALID_REQUEST;
		case CF_ERR_INVALID:
		case CF_ERR_TOO_LARGE:
			return CF_T_EXC_INVALID_REQUEST;
		case CF_ERR_UNAVAILABLE:
			return CF_T_EXC_UNAVAILABLE;
		case CF_ERR_TIMEOUT:
			return CF_T_EXC_TIMED_OUT;
		case CF_ERR_AUTHENTICATION:
			return m == CF_T_M_LOGIN ? CF_T_EXC_AUTHENTICATION : CF_T_EXC_INVALID_REQUEST;
		case CF_ERR_AUTHORIZATION:
			return m == CF_T_M_LOGIN ? CF_T_EXC_AUTHORIZATION : CF_T_EXC_INVALID_REQUEST;
		default:
			return CF_T_EXC_NONE;
	}
}

static bool
dsp_user_error(cf_code code)
{
	return dsp_exception_kind(CF_T_M_GET, code) != CF_T_EXC_NONE;
}

/*
 * Drops what a failed encoding appended after mark, and the failure it left on the
 * buffer (which was whole at mark: failed is its flag then), so that a smaller reply,
 * an exception, can take its place.
 */
static void
dsp_rewind(cf_buf *reply, size_t mark, uint8_t failed)
{
	reply->len = mark;
	reply->failed = failed;
}

/*
 * The error of a reply of method that did not fit in its frame (ws, the encoder's
 * CF_ERR_TOO_LARGE, taken): what the client is told, the sizes named.
 */
static cf_status *
dsp_too_large(const cf_dispatch_session *sess, const char *method, cf_status *ws)
{
	cf_status  *s = cf_status_make(CF_ERR_TOO_LARGE, "the reply of %s " CF_T_TOO_LARGE_WORDS
								   ": %s (colfamd's thrift_framed_transport_size_in_mb); "
								   "ask for fewer rows or columns per call", method,
								   cf_status_msg(ws));

	cf_status_free(ws);
	cf_log_info("dispatch", "%s: %s", sess->peer, cf_status_msg(s));
	return s;
}

/*
 * Writes the reply for a handler's outcome s (taken). A result larger than reply's
 * limit (the server's frame limit) becomes the call's error, an InvalidRequest naming
 * the sizes: the client learns why and the connection stays usable.
 */
static void
dsp_reply(dsp_call *c, cf_slice name, int32_t seqid, cf_status *s, cf_buf *reply)
{
	size_t		mark = reply->len;
	uint8_t		failed = reply->failed;
	cf_status  *ws;

	if (s == NULL)
	{
		if (c->streamed)
		{
			ws = c->stream_ws;
			c->stream_ws = NULL;
		}
		else if (c->reply_slice || c->reply_rows)
			ws = cf_tr_write_reply(reply, c->m, seqid, c->reply_slice, c->reply_rows);
		else
			ws = cf_t_write_reply(reply, c->m, seqid, &c->res);
		if (ws == NULL)
			return;
		dsp_rewind(reply, mark, failed);
		if (cf_status_code(ws) != CF_ERR_TOO_LARGE)
		{
			cf_log_error("dispatch", "%s: encoding the reply of %s: %s", c->sess->peer,
						 cf_t_method_name(c->m), cf_status_msg(ws));
			cf_t_write_app_exception(reply, name, seqid, CF_T_APP_INTERNAL_ERROR,
									 cf_status_msg(ws));
			cf_status_free(ws);
			return;
		}
		s = dsp_too_large(c->sess, cf_t_method_name(c->m), ws);
	}
	c->res.exception.kind = dsp_exception_kind(c->m, cf_status_code(s));
	c->res.exception.why = dsp_str_slice(c, cf_status_msg(s));
	if (!dsp_user_error(cf_status_code(s)))
		cf_log_error("dispatch", "%s: %s failed: %s", c->sess->peer,
					 cf_t_method_name(c->m), cf_status_msg(s));
	if ((ws = cf_t_write_reply(reply, c->m, seqid, &c->res)) != NULL)
	{
		/*
		 * The method declares no exception for this error (describe_splits declares
		 * none; a server fault fits none): a TApplicationException carries it.
		 */
		dsp_rewind(reply, mark, failed);
		cf_t_write_app_exception(reply, name, seqid, dsp_user_error(cf_status_code(s)) ?
								 CF_T_APP_UNKNOWN : CF_T_APP_INTERNAL_ERROR,
								 cf_status_msg(s));
		cf_status_free(ws);
	}
	cf_status_free(s);
}

/* ---------------------------------------------------------------- colfam_multiget_chain */

static const char *const chain_source_names[] = {
	[CF_TA_CHAIN_VALUE] = "VALUE",[CF_TA_CHAIN_NAME] = "NAME",
	[CF_TA_CHAIN_SUPER_NAME] = "SUPER_NAME",[CF_TA_CHAIN_KEY] = "KEY",
	[CF_TA_CHAIN_NAMED_VALUE] = "NAMED_VALUE",
};

/*
 * The checks of the steps that need no read (thrift.md's rules): how many, from_step,
 * source and source_name. Step i is steps[i - 1].
 */
static cf_status *
dsp_chain_check(const cf_ta_args *a)
{
	if (a->n_steps > CF_TA_CHAIN_MAX_STEPS)
		return cf_status_make(CF_ERR_INVALID, "colfam_multiget_chain takes at most %d "
							  "steps after step 0, got %zu", CF_TA_CHAIN_MAX_STEPS,
							  a->n_steps);
	for (size_t i = 1; i <= a->n_steps; i++)
	{
		const cf_ta_chain_step *st = &a->steps[i - 1];

		if (st->from_step < 0 || (size_t) st->from_step >= i)
			return cf_status_make(CF_ERR_INVALID, "chain step %zu: from_step %d must name "
								  "an earlier step (0..%zu)", i, (int) st->from_step, i - 1);
		if (st->source < CF_TA_CHAIN_VALUE || st->source > CF_TA_CHAIN_NAMED_VALUE)
			return cf_status_make(CF_ERR_INVALID, "chain step %zu: source %d is not a "
								  "ChainSource (VALUE 0, NAME 1, SUPER_NAME 2, KEY 3, "
								  "NAMED_VALUE 4)", i, (int) st->source);
		if (st->source == CF_TA_CHAIN_NAMED_VALUE && !st->has_source_name)
			return cf_status_make(CF_ERR_INVALID, "chain step %zu: source NAMED_VALUE "
								  "needs a source_name", i);
		if (st->source != CF_TA_CHAIN_NAMED_VALUE && st->has_source_name)
			return cf_status_make(CF_ERR_INVALID, "chain step %zu: source_name is for "
								  "source NAMED_VALUE only, not %s", i,
								  chain_source_names[st->source]);
	}
	return NULL;
}

/*
 * One derived step's keys: distinct (bytewise) in first-seen order, at most cap;
 * slots is an open-addressing set of their indexes + 1 (0: free), mask + 1 of them.
 */
typedef struct chain_keys
{
	cf_slice   *keys;
	size_t		n;
	size_t		cap;
	uint32_t   *slots;
	size_t		mask;
	bool		over;			/* a distinct key past cap came */
} chain_keys;

/* Adds candidate k unless it names no row (empty, over CF_KEY_MAX) or came before. */
static void
chain_add(chain_keys *ks, cf_slice k)
{
	size_t		h;

	if (k.len == 0 || k.len > CF_KEY_MAX)
		return;
	for (h = cf_crc32c(k.p, k.len) & ks->mask; ks->slots[h]; h = (h + 1) & ks->mask)
	{
		if (cf_slice_eq(ks->keys[ks->slots[h] - 1], k))
			return;
	}
	if (ks->n == ks->cap)
	{
		ks->over = true;
		return;
	}
	ks->keys[ks->n++] = k;
	ks->slots[h] = (uint32_t) ks->n;
}

/* The candidates one column gives under st's source. */
static void
chain_column(chain_keys *ks, const cf_ta_chain_step *st, const cf_read_column *col)
{
	if (st->source == CF_TA_CHAIN_VALUE)
		chain_add(ks, col->value);
	else if (st->source == CF_TA_CHAIN_NAME)
		chain_add(ks, col->name);
	else if (st->source == CF_TA_CHAIN_NAMED_VALUE && cf_slice_eq(col->name, st->source_name))
		chain_add(ks, col->value);
}

/*
 * Walks rows (each row, then each of its results; a super column's sub-columns are
 * its columns) for st's candidates; calls chain_add on each when ks is not NULL.
 * Returns how many candidates there are (an upper bound on the distinct keys).
 */
static size_t
chain_walk(chain_keys *ks, const cf_ta_chain_step *st, const cf_read_rows *rows)
{
	size_t		n = 0;

	for (size_t i = 0; rows && i < rows->n_rows; i++)
	{
		const cf_row_slice *rs = &rows->rows[i].slice;
		size_t		n_res = rs->is_super ? rs->n_supers : rs->n_columns;

		if (st->source == CF_TA_CHAIN_KEY)
		{
			if (n_res == 0)
				continue;
			n++;
			if (ks)
				chain_add(ks, rows->rows[i].key);
			continue;
		}
		for (size_t j = 0; j < n_res; j++)
		{
			const cf_read_super *sc = rs->is_super ? &rs->supers[j] : NULL;

			if (st->source == CF_TA_CHAIN_SUPER_NAME)
			{
				n += sc != NULL;
				if (sc && ks)
					chain_add(ks, sc->name);
				continue;
			}
			n += sc ? sc->n_columns : 1;
			for (size_t k = 0; ks && k < (sc ? sc->n_columns : 1); k++)
				chain_column(ks, st, sc ? &sc->columns[k] : &rs->columns[j]);
		}
	}
	return n;
}

/* Step i's keys (st its step), drawn from from's answer, in the call's arena. */
static cf_status *
dsp_chain_keys(dsp_call *c, size_t i, const cf_ta_chain_step *st, const cf_read_rows *from,
			   cf_slice **keys, size_t *n_keys)
{
	size_t		n_cand = chain_walk(NULL, st, from);
	size_t		n_slots = 16;
	chain_keys	ks = {.cap = CF_TA_CHAIN_MAX_KEYS};

	*keys = NULL;
	*n_keys = 0;
	if (n_cand == 0)
		return NULL;
	/* room for every distinct key up to the cap, the set at most half full */
	while (n_slots < 2 * (n_cand < ks.cap + 1 ? n_cand : ks.cap + 1))
		n_slots *= 2;
	ks.keys = dsp_alloc(c, n_cand < ks.cap ? n_cand : ks.cap, sizeof(cf_slice));
	ks.slots = dsp_alloc(c, n_slots, sizeof(uint32_t));
	if (ks.keys == NULL || ks.slots == NULL)
		return DSP_NO_MEMORY();
	memset(ks.slots, 0, n_slots * sizeof(uint32_t));
	ks.mask = n_slots - 1;
	chain_walk(&ks, st, from);
	if (ks.over)
		return cf_status_make(CF_ERR_INVALID, "chain step %zu: it would look up more than "
							  "%d keys (the %s of step %d's answer); a step looks up at "
							  "most %d", i, CF_TA_CHAIN_MAX_KEYS,
							  chain_source_names[st->source], (int) st->from_step,
							  CF_TA_CHAIN_MAX_KEYS);
	*keys = ks.keys;
	*n_keys = ks.n;
	return NULL;
}

/*
 * The chain's reads: step 0 as multiget_slice (dsp_multiget: its checks, messages,
 * grants and read), then each step's keys from its from_step's answer and the same
 * multiget, its errors prefixed "chain step N: ". rows[i] (CF_TA_CHAIN_MAX_STEPS + 1
 * of them, NULL; a chain of more steps is refused before any read) receives step i's
 * answer (the caller frees them, also on error).
 */
static cf_status *
dsp_chain_run(dsp_call *c, const cf_ta_args *a, cf_read_rows **rows)
{
	cf_status  *s;

	if ((s = dsp_logged_in(c->d, c->sess)) != NULL || (s = dsp_chain_check(a)) != NULL)
		return s;
	c->args.consistency_level = a->consistency_level;
	for (size_t i = 0; i <= a->n_steps; i++)
	{
		const cf_ta_chain_step *st = i ? &a->steps[i - 1] : NULL;

		if (st == NULL)
		{
			c->args.keys = a->keys;
			c->args.n_keys = a->n_keys;
			c->args.column_parent = a->column_parent;
			c->args.predicate = a->predicate;
		}
		else
		{
			s = dsp_chain_keys(c, i, st, rows[st->from_step], &c->args.keys,
							   &c->args.n_keys);
			if (s)
				return s;
			c->args.column_parent = st->column_parent;
			c->args.predicate = st->predicate;
		}
		/* a step without keys is still checked (its CF, grant, predicate) */
		s = dsp_multiget(c, false);
		rows[i] = c->rows;
		c->rows = NULL;
		if (s)
			return i ? cf_status_wrap(s, "chain step %zu", i) : s;
	}
	return NULL;
}

/*
 * One colfam_multiget_chain call (its args decoded into arena): the reads, then the
 * reply straight from the engine's answers (dispatch_reply.h). Returns the call's
 * error, the reply then not written (dsp_admin answers it as multiget_slice would: its
 * declared IRE, UE or TE, else an INTERNAL_ERROR TApplicationException): a step's, the
 * frame limit's (dsp_too_large's words) or an encoding fault (CF_ERR_INTERNAL).
 */
static cf_status *
dsp_chain(cf_dispatch *d, cf_dispatch_session *sess, const cf_ta_args *a, cf_arena *arena,
		  int32_t seqid, cf_buf *reply)
{
	const char *name = cf_ta_method_name(CF_TA_M_MULTIGET_CHAIN);
	dsp_call	c = {.d = d,.sess = sess,.arena = arena,.m = CF_T_M_MULTIGET_SLICE};
	cf_read_rows *rows[CF_TA_CHAIN_MAX_STEPS + 1] = {NULL};
	size_t		mark = reply->len;
	uint8_t		failed = reply->failed;
	cf_status  *s = dsp_chain_run(&c, a, rows);
	cf_status  *ws;

	if (s == NULL &&
		(ws = cf_tr_write_chain_reply(reply, name, seqid, (const cf_read_rows *const *) rows,
									  a->n_steps + 1)) != NULL)
	{
		dsp_rewind(reply, mark, failed);
		if (cf_status_code(ws) == CF_ERR_TOO_LARGE)
			s = dsp_too_large(sess, name, ws);
		else
		{
			/* not the user's: an INTERNAL_ERROR, as dsp_reply does */
			s = cf_status_make(CF_ERR_INTERNAL, "encoding the reply: %s", cf_status_msg(ws));
			cf_status_free(ws);
		}
	}
	for (size_t i = 0; i <= CF_TA_CHAIN_MAX_STEPS; i++)
		cf_read_rows_free(rows[i]);
	cf_schema_unref(c.schema);
	return s;
}

/* ---------------------------------------------------------------- admin methods */

/*
 * The snapshot methods' work (dsp_admin_run's, after the grant): the names as C
 * strings, the service, and each CF's snapshot as a SnapshotInfo in arena.
 */
static cf_status *
dsp_admin_snapshots(cf_dispatch *d, cf_ta_method m, const cf_ta_args *a, cf_arena *arena,
					cf_ta_result *res)
{
	const char **kss = a->n_keyspaces ?
		cf_arena_alloc(arena, a->n_keyspaces * sizeof(*kss)) : NULL;
	const char *name = NULL;
	cf_snapshot_list l = {0};
	cf_status  *s = a->n_keyspaces && kss == NULL ? DSP_NO_MEMORY() : NULL;

	for (size_t i = 0; s == NULL && i < a->n_keyspaces; i++)
		s = dsp_cstr_arena(arena, a->keyspaces[i], "a keyspace name", &kss[i]);
	if (s == NULL && (m == CF_TA_M_SNAPSHOT || a->has_name))
		s = dsp_cstr_arena(arena, a->name, "a snapshot name", &name);
	if (s == NULL && m == CF_TA_M_SNAPSHOT)
		s = cf_service_snapshot(d->svc, kss, a->n_keyspaces, name, &l);
	else if (s == NULL && m == CF_TA_M_LISTSNAPSHOTS)
		s = cf_service_list_snapshots(d->svc, kss, a->n_keyspaces, &l);
	else if (s == NULL)
		s = cf_service_clear_snapshots(d->svc, kss, a->n_keyspaces, name, &l);
	if (s == NULL && l.n &&
		(res->snapshots = cf_arena_alloc(arena, l.n * sizeof(*res->snapshots))) == NULL)
		s = DSP_NO_MEMORY();
	for (size_t i = 0; s == NULL && i < l.n; i++)
	{
		cf_ta_snapshot *o = &res->snapshots[i];

		o->keyspace = dsp_str_slice_arena(arena, l.v[i].keyspace);
		o->column_family = dsp_str_slice_arena(arena, l.v[i].cf);
		o->name = dsp_str_slice_arena(arena, l.v[i].name);
		o->directory = dsp_str_slice_arena(arena, l.v[i].dir);
		o->files = (int64_t) l.v[i].files;
		o->bytes = (int64_t) l.v[i].bytes;
		o->unshared_bytes = (int64_t) l.v[i].unshared_bytes;
		if (!o->keyspace.p || !o->column_family.p || !o->name.p || !o->directory.p)
			s = DSP_NO_MEMORY();
	}
	res->n_snapshots = s ? 0 : l.n;
	cf_snapshot_list_free(&l);
	return s;
}

/*
 * The admin methods' work (thrift/admin.h): names checked and converted, then the
 * service. With authentication on they need a logged-in user allowed to modify
 * keyspaces (<modify-keyspaces>), as they act on the whole node.
 */
static cf_status *
dsp_admin_run(cf_dispatch *d, cf_dispatch_session *sess, cf_ta_method m,
			  const cf_ta_args *a, cf_arena *arena, cf_ta_result *res)
{
	char		ks[CF_SCHEMA_NAME_MAX + 1];
	const char **cfs = NULL;
	cf_service_cf_stat *st = NULL;
	size_t		n_st = 0;
	cf_status  *s = NULL;

	if ((s = dsp_logged_in(d, sess)) != NULL)
		return s;
	if (cf_auth_required(d->auth) &&
		(s = cf_auth_authorize_keyspaces(d->auth, sess->user)) != NULL)
		return s;
	if (m == CF_TA_M_SNAPSHOT || m == CF_TA_M_LISTSNAPSHOTS || m == CF_TA_M_CLEARSNAPSHOT)
		return dsp_admin_snapshots(d, m, a, arena, res);
	if (!dsp_name_buf(a->keyspace, ks))
		return cf_status_make(CF_ERR_INVALID, "Keyspace %.*s does not exist",
							  (int) (a->keyspace.len > 64 ? 64 : a->keyspace.len),
							  (const char *) a->keyspace.p);
	if (m != CF_TA_M_CFSTATS && a->n_column_families)
	{
		cfs = cf_arena_alloc(arena, a->n_column_families * sizeof(*cfs));
		if (cfs == NULL)
			return DSP_NO_MEMORY();
		for (size_t i = 0; i < a->n_column_families; i++)
		{
			s = dsp_cstr_arena(arena, a->column_families[i], "column_family", &cfs[i]);
			if (s)
				return s;
		}
	}
	switch (m)
	{
		case CF_TA_M_FLUSH:
			return cf_service_flush(d->svc, ks, cfs, a->n_column_families);
		case CF_TA_M_COMPACT:
			return cf_service_compact(d->svc, ks, cfs, a->n_column_families, a->major);
		case CF_TA_M_CFSTATS:
			if ((s = cf_service_cf_stats(d->svc, ks, &st, &n_st)) != NULL)
				return s;
			res->stats = n_st ? cf_arena_alloc(arena, n_st * sizeof(*res->stats)) : NULL;
			if (n_st && res->stats == NULL)
				s = DSP_NO_MEMORY();
			for (size_t i = 0; s == NULL && i < n_st; i++)
			{
				cf_ta_cf_stats *o = &res->stats[i];
				size_t		len = strlen(st[i].cf);

				o->column_family = cf_slice_of(cf_arena_dup(arena, st[i].cf, len), len);
				o->memtable_bytes = (int64_t) st[i].st.memtable_bytes;
				o->memtable_operations = (int64_t) st[i].st.memtable_ops;
				o->pending_flushes = st[i].st.pending_flushes;
				o->sstables = (int64_t) st[i].st.sstables;
				o->sstable_bytes = (int64_t) st[i].st.sstable_bytes;
				o->flushes = (int64_t) st[i].st.flushes;
				o->flush_failures = (int64_t) st[i].st.flush_failures;
				o->has_estimated_keys = o->has_estimated_columns = true;
				o->estimated_keys = (int64_t) st[i].st.est_rows;
				o->estimated_columns = (int64_t) st[i].st.est_cells;
				if (o->column_family.p == NULL)
					s = DSP_NO_MEMORY();
			}
			res->n_stats = s ? 0 : n_st;
			free(st);
			return s;
		case CF_TA_M_SNAPSHOT:
		case CF_TA_M_LISTSNAPSHOTS:
		case CF_TA_M_CLEARSNAPSHOT:
		case CF_TA_M_MULTIGET_CHAIN:
		case CF_TA_M_COUNT_:
			break;
	}
	return cf_status_make(CF_ERR_INTERNAL, "admin method %d has no handler", (int) m);
}

/*
 * One call of a colfam method (r at the args). Errors: user errors (those 0.7
 * methods report as InvalidRequestException) become the declared IRE, or for
 * multiget_chain, a read, multiget_slice's declared exception (IRE, UE or TE);
 * anything else an INTERNAL_ERROR TApplicationException. The connection stays open
 * whatever the outcome, an undecodable call's included (as cf_dispatch_handle's).
 */
static void
dsp_admin(cf_dispatch *d, cf_dispatch_session *sess, cf_ta_method m, cf_rd *r,
		  int32_t seqid, cf_buf *reply)
{
	cf_slice	name = cf_slice_str(cf_ta_method_name(m));
	cf_arena   *arena = cf_arena_new(4096);
	cf_ta_args	a;
	cf_ta_result res;
	cf_status  *s;
	size_t		mark = reply->len;
	uint8_t		failed = reply->failed;
	bool		read = m == CF_TA_M_MULTIGET_CHAIN;
	bool		write_res;

	if (arena == NULL)
	{
		cf_t_write_app_exception(reply, name, seqid, CF_T_APP_INTERNAL_ERROR, "out of memory");
		return;
	}
	memset(&res, 0, sizeof(res));
	if ((s = cf_ta_read_args(r, m, &d->limits, arena, &a)) != NULL)
	{
		cf_log_info("dispatch", "%s: undecodable %s call: %s", sess->peer,
					cf_ta_method_name(m), cf_status_msg(s));
		cf_t_write_app_exception(reply, name, seqid, CF_T_APP_PROTOCOL_ERROR, cf_status_msg(s));
		cf_status_free(s);
		cf_arena_free(arena);
		return;
	}
	/* res is the reply to write: an admin method's success, or a declared exception */
	if (read)
		s = dsp_chain(d, sess, &a, arena, seqid, reply);	/* writes its success */
	else
		s = dsp_admin_run(d, sess, m, &a, arena, &res);
	write_res = s == NULL && !read;
	if (s)
	{
		cf_t_exception_kind k = dsp_exception_kind(CF_T_M_MULTIGET_SLICE, cf_status_code(s));

		memset(&res, 0, sizeof(res));
		write_res = k != CF_T_EXC_NONE;
		if (write_res)
		{
			res.has_ue = read && k == CF_T_EXC_UNAVAILABLE;
			res.has_te = read && k == CF_T_EXC_TIMED_OUT;
			res.has_ire = !res.has_ue && !res.has_te;
			res.ire.why = dsp_str_slice_arena(arena, cf_status_msg(s));
		}
		else
		{
			cf_log_error("dispatch", "%s: %s failed: %s", sess->peer, cf_ta_method_name(m),
						 cf_status_msg(s));
			cf_t_write_app_exception(reply, name, seqid, CF_T_APP_INTERNAL_ERROR,
									 cf_status_msg(s));
		}
	}
	if (write_res)
	{
		cf_status  *ws = cf_ta_write_reply(reply, m, seqid, &res);

		if (ws)
		{
			dsp_rewind(reply, mark, failed);
			cf_t_write_app_exception(reply, name, seqid, CF_T_APP_INTERNAL_ERROR,
									 cf_status_msg(ws));
			cf_status_free(ws);
		}
	}
	cf_status_free(s);
	cf_arena_free(arena);
}

bool
cf_dispatch_handle(cf_dispatch *d, cf_dispatch_session *sess, cf_slice message,
				   cf_buf *reply)
{
	cf_rd		r;
	cf_t_message_header h;
	dsp_call	c;
	cf_status  *s;

	cf_rd_init(&r, message.p, message.len);
	s = cf_t_read_message_header(&r, &h);
	if (s)
	{
		cf_log_info("dispatch", "%s: undecodable message header: %s", sess->peer,
					cf_status_msg(s));
		cf_t_write_app_exception(reply, cf_slice_of(NULL, 0), 0, CF_T_APP_PROTOCOL_ERROR,
								 cf_status_msg(s));
		cf_status_free(s);
		return false;
	}
	if (h.type != CF_T_CALL)
	{
		cf_t_write_app_exception(reply, h.name, h.seqid, CF_T_APP_INVALID_MESSAGE_TYPE,
								 h.type == CF_T_ONEWAY ? "the Cassandra service has no oneway methods"
								 : "a client may only send CALL messages");
		return false;
	}

	memset(&c, 0, sizeof(c));
	c.d = d;
	c.sess = sess;
	if (!cf_t_method_lookup(h.name, &c.m))
	{
		char		msg[160];
		cf_ta_method am;

		if (cf_ta_method_lookup(h.name, &am))
		{
			dsp_admin(d, sess, am, &r, h.seqid, reply);
			return true;
		}

		snprintf(msg, sizeof(msg), "Invalid method name: '%.*s'",
				 (int) (h.name.len > 100 ? 100 : h.name.len), (const char *) h.name.p);
		cf_t_write_app_exception(reply, h.name, h.seqid, CF_T_APP_UNKNOWN_METHOD, msg);
		return true;
	}
	c.arena = cf_arena_new(8192);
	if (c.arena == NULL)
	{
		cf_t_write_app_exception(reply, h.name, h.seqid, CF_T_APP_INTERNAL_ERROR,
								 "out of memory");
		return true;
	}
	s = cf_t_read_args(&r, c.m, &d->limits, c.arena, &c.args);
	if (s)
	{
		/*
		 * 0.7's generated processor answered a TProtocolException from the
		 * arguments (a required field missing, a bad size) with PROTOCOL_ERROR and
		 * went on serving the connection; so do we. The message was a whole frame,
		 * so whatever was wrong inside it, the next frame starts where it should.
		 */
		cf_log_info("dispatch", "%s: undecodable %s call: %s", sess->peer,
					cf_t_method_name(c.m), cf_status_msg(s));
		cf_t_write_app_exception(reply, h.name, h.seqid, CF_T_APP_PROTOCOL_ERROR,
								 cf_status_msg(s));
		cf_status_free(s);
	}
	else
	{
		c.reply = reply;
		c.seqid = h.seqid;
		dsp_reply(&c, h.name, h.seqid, dsp_run(&c), reply);
	}

	cf_read_result_free(c.read);
	cf_read_rows_free(c.rows);
	cf_service_ring_free(c.ring, c.n_ring);
	cf_service_strings_free(c.strings, c.n_strings);
	cf_schema_unref(c.schema);
	cf_arena_free(c.arena);
	return true;
}
