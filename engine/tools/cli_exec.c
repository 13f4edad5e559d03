/*
 * tools/cli_exec.c — executes cassandra-cli statements (cli_exec.h).
 *
 * Every statement gets a fresh arena (sh->arena) for its requests and replies; the
 * current keyspace's definition lives in sh->ks_arena until it is invalidated.
 */
#include "tools/cli_exec.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

#include "tools/cli_schema.h"
#include "tools/cli_types.h"
#include "util/utf8.h"

#define GET_PAGE 1000
#define LIST_DEFAULT_LIMIT 100
#define LIST_COLUMNS 100

struct cft_shell
{
	cft_shell_options opt;
	cft_backend b;
	bool		connected;
	char	   *host;
	int			port;
	char	   *keyspace;		/* NULL: none */
	char	   *user;			/* NULL: not logged in */
	cf_arena   *arena;			/* per statement */
	cf_arena   *ks_arena;		/* the cached keyspace definition */
	cf_t_ks_def *ks_def;		/* NULL: not fetched */
	struct assumption *assumptions; /* one per column family assumed of */
	char		prompt[300];
};

/*
 * What assume statements said of keyspace.cf: its names, sub-column names, values
 * (without column_metadata of their own) or keys are shown and read as type[what]
 * where set[what] (the latest statement of each kind). Kept for the session, whatever
 * the schema becomes.
 */
typedef struct assumption
{
	struct assumption *next;
	char	   *keyspace;
	char	   *cf;
	bool		set[CFT_ASSUME_COUNT_];	/* indexed by cft_assumed */
	cft_type	type[CFT_ASSUME_COUNT_];
} assumption;

/* What printing and converting need to know of a column family. */
typedef struct cf_info
{
	const cf_t_cf_def *def;
	bool		super;
	cft_type	cmp;
	cft_type	sub;
	cft_type	dflt;
	bool		key_assumed;	/* assume CF keys as key */
	cft_type	key;			/* the keys' type (BytesType without an assumption) */
} cf_info;

static cf_status *
nomem(void)
{
	return cf_status_make(CF_ERR_NO_MEMORY, "out of memory");
}

static int64_t
now_micros(void)
{
	struct timeval tv;

	gettimeofday(&tv, NULL);
	return (int64_t) tv.tv_sec * 1000000 + tv.tv_usec;
}

cft_shell *
cft_shell_new(const cft_shell_options *opt)
{
	cft_shell  *sh = calloc(1, sizeof(*sh));

	if (sh == NULL)
		return NULL;
	sh->opt = *opt;
	if (sh->opt.out == NULL)
		sh->opt.out = stdout;
	if (sh->opt.err == NULL)
		sh->opt.err = stderr;
	if (sh->opt.connect == NULL)
		sh->opt.connect = cft_backend_connect;
	return sh;
}

static void
forget_keyspace_def(cft_shell *sh)
{
	cf_arena_free(sh->ks_arena);
	sh->ks_arena = NULL;
	sh->ks_def = NULL;
}

static void
set_str(char **dst, const char *src)
{
	free(*dst);
	*dst = src ? strdup(src) : NULL;
}

void
cft_shell_free(cft_shell *sh)
{
	if (sh == NULL)
		return;
	cft_backend_close(&sh->b);
	forget_keyspace_def(sh);
	cf_arena_free(sh->arena);
	free(sh->host);
	free(sh->keyspace);
	free(sh->user);
	while (sh->assumptions)
	{
		assumption *next = sh->assumptions->next;

		free(sh->assumptions->keyspace);
		free(sh->assumptions->cf);
		free(sh->assumptions);
		sh->assumptions = next;
	}
	free(sh);
}

const char *
cft_shell_prompt(cft_shell *sh)
{
	snprintf(sh->prompt, sizeof(sh->prompt), "[%.120s@%.120s] ",
			 sh->user ? sh->user : "default", sh->keyspace ? sh->keyspace : "unknown");
	return sh->prompt;
}

/* ---- calls ---- */

static cf_status *
call(cft_shell *sh, cf_t_method m, const cf_t_args *args, cf_t_result *res)
{
	static const cf_t_args none = {.consistency_level = CF_T_CL_ONE};

	if (args == NULL)
		args = &none;
	if (!sh->connected)
		return cf_status_make(CF_ERR_INVALID,
							  "not connected to a server; hint: connect HOST/PORT; first");
	return cft_call(&sh->b, m, args, sh->arena, res);
}

static cf_status *
need_keyspace(cft_shell *sh)
{
	if (sh->keyspace == NULL)
		return cf_status_make(CF_ERR_INVALID,
							  "no keyspace has been chosen; hint: use KEYSPACE; first");
	return NULL;
}

static cf_status *
keyspace_def(cft_shell *sh, const cf_t_ks_def **out)
{
	cf_t_args	a = {0};
	cf_t_result r;
	cf_status  *st;

	if ((st = need_keyspace(sh)) != NULL)
		return st;
	if (sh->ks_def == NULL)
	{
		cf_arena   *ka = cf_arena_new(0);

		if (ka == NULL)
			return nomem();
		a.keyspace = cf_slice_str(sh->keyspace);
		if ((st = cft_call(&sh->b, CF_T_M_DESCRIBE_KEYSPACE, &a, ka, &r)) != NULL)
		{
			cf_arena_free(ka);
			return cf_status_wrap(st, "describing keyspace %s", sh->keyspace);
		}
		if ((sh->ks_def = cf_arena_alloc(ka, sizeof(*sh->ks_def))) == NULL)
		{
			cf_arena_free(ka);
			return nomem();
		}
		*sh->ks_def = r.ks_def;
		sh->ks_arena = ka;
	}
	*out = sh->ks_def;
	return NULL;
}

static cft_type
type_or_bytes(cf_slice name)
{
	cft_type	t = CFT_BYTES;
	cf_status  *st;

	if (name.len == 0)
		return CFT_BYTES;
	if ((st = cft_type_parse(name, "type", &t)) != NULL)
	{
		cf_status_free(st);
		return CFT_BYTES;		/* a class this tool does not know: show hex */
	}
	return t;
}

/* What printing and converting need of column family definition d. */
static void
cf_info_of(const cf_t_cf_def *d, cf_info *ci)
{
	ci->def = d;
	ci->super = d->has_column_type &&
		cf_slice_eq(d->column_type, cf_slice_str("Super"));
	ci->cmp = d->has_comparator_type ? type_or_bytes(d->comparator_type) : CFT_BYTES;
	ci->sub = d->has_subcomparator_type ? type_or_bytes(d->subcomparator_type) : CFT_BYTES;
	ci->dflt = d->has_default_validation_class ?
		type_or_bytes(d->default_validation_class) : CFT_BYTES;
	ci->key_assumed = false;
	ci->key = CFT_BYTES;
}

/* The session's assumptions about cf of the current keyspace (NULL: none). */
static assumption *
find_assumption(const cft_shell *sh, const char *cf)
{
	for (assumption *a = sh->assumptions; a; a = a->next)
		if (strcmp(a->keyspace, sh->keyspace) == 0 && strcmp(a->cf, cf) == 0)
			return a;
	return NULL;
}

/* Applies the session's assumptions about cf (of the current keyspace) to ci. */
static void
apply_assumptions(const cft_shell *sh, const char *cf, cf_info *ci)
{
	const assumption *a = find_assumption(sh, cf);

	if (a == NULL)
		return;
	if (a->set[CFT_ASSUME_COMPARATOR])
		ci->cmp = a->type[CFT_ASSUME_COMPARATOR];
	if (a->set[CFT_ASSUME_SUB_COMPARATOR])
		ci->sub = a->type[CFT_ASSUME_SUB_COMPARATOR];
	if (a->set[CFT_ASSUME_VALIDATOR])
		ci->dflt = a->type[CFT_ASSUME_VALIDATOR];
	ci->key_assumed = a->set[CFT_ASSUME_KEYS];
	if (ci->key_assumed)
		ci->key = a->type[CFT_ASSUME_KEYS];
}

static cf_status *
cf_lookup(cft_shell *sh, const char *cf, cf_info *ci)
{
	const cf_t_ks_def *ks;
	cf_status  *st;

	if (!sh->connected)
		return call(sh, CF_T_M_DESCRIBE_VERSION, NULL, NULL);
	if ((st = keyspace_def(sh, &ks)) != NULL)
		return st;
	for (size_t i = 0; i < ks->n_cf_defs; i++)
		if (cf_slice_eq(ks->cf_defs[i].name, cf_slice_str(cf)))
		{
			cf_info_of(&ks->cf_defs[i], ci);
			apply_assumptions(sh, cf, ci);
			return NULL;
		}
	return cf_status_make(CF_ERR_INVALID, "unknown column family %s in keyspace %s; "
						  "hint: show keyspaces; lists them", cf, sh->keyspace);
}

static cft_type
validator(const cf_info *ci, cf_slice name)
{
	for (size_t i = 0; i < ci->def->n_column_metadata; i++)
		if (cf_slice_eq(ci->def->column_metadata[i].name, name))
			return type_or_bytes(ci->def->column_metadata[i].validation_class);
	return ci->dflt;
}

/* The bytes of term t under type, in the statement arena. */
static cf_status *
term_bytes(cft_shell *sh, const cft_term *t, cft_type type, cf_slice *out)
{
	cf_buf		b = CF_BUF_INIT;
	cf_status  *st = cft_term_bytes(t, type, &b);
	void	   *p;

	if (st == NULL && (st = cf_buf_status(&b)) == NULL)
	{
		if ((p = cf_arena_dup(sh->arena, b.data ? (void *) b.data : (void *) "", b.len)) == NULL)
			st = nomem();
		else
			*out = cf_slice_of(p, b.len);
	}
	cf_buf_free(&b);
	return st;
}

/* ---- printing ---- */

/* v under type as text, NUL-terminated in the statement arena ("" on no memory). */
static const char *
fmt(cft_shell *sh, cft_type type, cf_slice v)
{
	cf_buf		b = CF_BUF_INIT;
	char	   *s;

	cft_bytes_format(type, v, &b);
	s = cf_buf_ok(&b) ? cf_arena_strndup(sh->arena, b.data ? (const char *) b.data : "", b.len) : NULL;
	cf_buf_free(&b);
	return s ? s : "";
}

/* A row key: under its assumed type, else its text when it is printable UTF-8, else hex. */
static const char *
fmt_key(cft_shell *sh, const cf_info *ci, cf_slice k)
{
	bool		text = cf_utf8_invalid_at(k.p, k.len) == k.len;

	if (ci->key_assumed)
		return fmt(sh, ci->key, k);

	for (size_t i = 0; text && i < k.len; i++)
		if (k.p[i] < 0x20 || k.p[i] == 0x7f)
			text = false;
	return fmt(sh, text ? CFT_UTF8 : CFT_BYTES, k);
}

static void
print_column(cft_shell *sh, const cf_info *ci, const cf_t_column *c, cft_type name_type,
			 const char *indent, const char *as_type_name)
{
	cft_type	vt = validator(ci, c->name);

	if (as_type_name)
		vt = type_or_bytes(cf_slice_str(as_type_name));
	fprintf(sh->opt.out, "%s(column=%s, value=%s, timestamp=%" PRId64, indent,
			fmt(sh, name_type, c->name), fmt(sh, vt, c->value), c->timestamp);
	if (c->has_ttl)
		fprintf(sh->opt.out, ", ttl=%" PRId32, c->ttl);
	fputc(')', sh->opt.out);
}

static void
print_cosc(cft_shell *sh, const cf_info *ci, const cf_t_cosc *c, const char *as_type)
{
	if (c->has_super_column)
	{
		const cf_t_super_column *sc = &c->super_column;

		fprintf(sh->opt.out, "=> (super_column=%s,", fmt(sh, ci->cmp, sc->name));
		for (size_t i = 0; i < sc->n_columns; i++)
		{
			fputc('\n', sh->opt.out);
			print_column(sh, ci, &sc->columns[i], ci->sub, "     ", as_type);
		}
		fputs(")\n", sh->opt.out);
	}
	else if (c->has_column)
	{
		print_column(sh, ci, &c->column, ci->super ? ci->sub : ci->cmp, "=> ", as_type);
		fputc('\n', sh->opt.out);
	}
}

static void
print_rows(cft_shell *sh, const cf_info *ci, const cf_t_key_slice *rows, size_t n)
{
	for (size_t i = 0; i < n; i++)
	{
		fprintf(sh->opt.out, "-------------------\nRowKey: %s\n", fmt_key(sh, ci, rows[i].key));
		for (size_t j = 0; j < rows[i].n_columns; j++)
			print_cosc(sh, ci, &rows[i].columns[j], NULL);
	}
	fprintf(sh->opt.out, "\n%zu Row%s Returned.\n", n, n == 1 ? "" : "s");
}

/* ---- data statements ---- */

/* The key, super column and column of a path, converted; ci is looked up. */
typedef struct resolved
{
	cf_info		ci;
	cf_slice	key;
	bool		has_super;
	cf_slice	super;
	bool		has_column;
	cf_slice	column;
} resolved;

static cf_status *
resolve(cft_shell *sh, const cft_path *p, resolved *r)
{
	cf_status  *st;

	memset(r, 0, sizeof(*r));
	if ((st = cf_lookup(sh, p->cf, &r->ci)) != NULL)
		return st;
	if ((st = term_bytes(sh, &p->key, r->ci.key, &r->key)) != NULL)
		return st;
	if (r->ci.super)
	{
		if (p->depth >= 1)
		{
			r->has_super = true;
			if ((st = term_bytes(sh, &p->sub[0], r->ci.cmp, &r->super)) != NULL)
				return st;
		}
		if (p->depth == 2)
		{
			r->has_column = true;
			if ((st = term_bytes(sh, &p->sub[1], r->ci.sub, &r->column)) != NULL)
				return st;
		}
	}
	else
	{
		if (p->depth == 2)
			return cf_status_make(CF_ERR_INVALID, "line %d, column %d: %s is a standard "
								  "column family: it has no super columns; hint: "
								  "%s['key']['column']", p->line, p->col, p->cf, p->cf);
		if (p->depth == 1)
		{
			r->has_column = true;
			if ((st = term_bytes(sh, &p->sub[0], r->ci.cmp, &r->column)) != NULL)
				return st;
		}
	}
	return NULL;
}

/* The column parent (CF and super column) of path p, resolved as r. */
static cf_t_column_parent
parent_of(const cft_path *p, const resolved *r)
{
	return (cf_t_column_parent) {
		.column_family = cf_slice_str(p->cf),
		.has_super_column = r->has_super,
		.super_column = r->super,
	};
}

/* The column path (CF, super column, column) of path p, resolved as r. */
static cf_t_column_path
path_of(const cft_path *p, const resolved *r)
{
	return (cf_t_column_path) {
		.column_family = cf_slice_str(p->cf),
		.has_super_column = r->has_super,
		.super_column = r->super,
		.has_column = r->has_column,
		.column = r->column,
	};
}

static cf_status *
exec_set(cft_shell *sh, const cft_stmt *s)
{
	resolved	r;
	cf_t_args	a = {0};
	cf_t_result res;
	cf_status  *st;

	if ((st = resolve(sh, &s->path, &r)) != NULL)
		return st;
	if (!r.has_column)
		return cf_status_make(CF_ERR_INVALID, "line %d, column %d: set needs a column: "
							  "%s['key']%s['column'] = value", s->path.line, s->path.col,
							  s->path.cf, r.ci.super ? "['super']" : "");
	if ((st = term_bytes(sh, &s->value, validator(&r.ci, r.column), &a.column.value)) != NULL)
		return st;
	a.key = r.key;
	a.column_parent = parent_of(&s->path, &r);
	a.column.name = r.column;
	a.column.timestamp = now_micros();
	a.column.has_ttl = s->has_ttl;
	a.column.ttl = s->ttl;
	a.consistency_level = CF_T_CL_ONE;
	if ((st = call(sh, CF_T_M_INSERT, &a, &res)) != NULL)
		return st;
	fputs("Value inserted.\n", sh->opt.out);
	return NULL;
}

/*
 * Prints the columns of a row (or of a super column) page by page. Each page and its
 * formatted text live in an arena of their own, freed before the next page; r's
 * slices stay in the statement arena.
 */
static cf_status *
get_all(cft_shell *sh, const cft_stmt *s, const resolved *r)
{
	cf_t_args	a = {0};
	cf_t_result res;
	cf_status  *st = NULL;
	size_t		total = 0;
	cf_buf		last = CF_BUF_INIT;
	bool		first_page = true;
	cf_arena   *stmt_arena = sh->arena;

	a.key = r->key;
	a.column_parent = parent_of(&s->path, r);
	a.predicate.has_slice_range = true;
	a.consistency_level = CF_T_CL_ONE;
	for (;;)
	{
		size_t		skip = first_page ? 0 : 1;
		cf_arena   *page = cf_arena_new(0);
		bool		more = false;

		if (page == NULL)
		{
			st = nomem();
			break;
		}
		a.predicate.slice_range.start = cf_slice_of(last.data, last.len);
		a.predicate.slice_range.count = GET_PAGE + (int32_t) skip;
		sh->arena = page;
		if ((st = call(sh, CF_T_M_GET_SLICE, &a, &res)) == NULL)
		{
			for (size_t i = skip; i < res.n_coscs; i++)
				print_cosc(sh, &r->ci, &res.coscs[i], s->as_type);
			total += res.n_coscs > skip ? res.n_coscs - skip : 0;
			more = res.n_coscs == (size_t) a.predicate.slice_range.count;
			if (more)
			{
				const cf_t_cosc *c = &res.coscs[res.n_coscs - 1];
				cf_slice	n = c->has_super_column ? c->super_column.name : c->column.name;

				cf_buf_reset(&last);
				cf_buf_put(&last, n.p, n.len);
				st = cf_buf_status(&last);
			}
		}
		sh->arena = stmt_arena;
		cf_arena_free(page);
		if (st != NULL || !more)
			break;
		first_page = false;
	}
	cf_buf_free(&last);
	if (st == NULL)
		fprintf(sh->opt.out, "Returned %zu results.\n", total);
	return st;
}

static cf_status *
exec_get(cft_shell *sh, const cft_stmt *s)
{
	resolved	r;
	cf_t_args	a = {0};
	cf_t_result res;
	cf_status  *st;

	if ((st = resolve(sh, &s->path, &r)) != NULL)
		return st;
	if (s->as_type)
	{
		cft_type	t;

		if ((st = cft_type_parse(cf_slice_str(s->as_type), "as", &t)) != NULL)
			return st;
	}
	if (!r.has_column)
		return get_all(sh, s, &r);
	a.key = r.key;
	a.column_path = path_of(&s->path, &r);
	a.consistency_level = CF_T_CL_ONE;
	if ((st = call(sh, CF_T_M_GET, &a, &res)) != NULL)
	{
		if (cf_status_code(st) == CF_ERR_NOT_FOUND)
		{
			cf_status_free(st);
			fputs("Value was not found\n", sh->opt.out);
			return NULL;
		}
		return st;
	}
	print_cosc(sh, &r.ci, &res.cosc, s->as_type);
	return NULL;
}

/*
 * Sends the get_indexed_slices or get_range_slices request a (its index clause or key
 * range filled in) for CF name, asking for each row's first LIST_COLUMNS columns, and
 * prints the rows.
 */
static cf_status *
rows(cft_shell *sh, cf_t_method m, const char *name, const cf_info *ci, cf_t_args *a)
{
	cf_t_result res;
	cf_status  *st;

	a->column_parent.column_family = cf_slice_str(name);
	a->predicate.has_slice_range = true;
	a->predicate.slice_range.count = LIST_COLUMNS;
	a->consistency_level = CF_T_CL_ONE;
	if ((st = call(sh, m, a, &res)) != NULL)
		return st;
	print_rows(sh, ci, res.key_slices, res.n_key_slices);
	return NULL;
}

static cf_status *
exec_get_where(cft_shell *sh, const cft_stmt *s)
{
	cf_info		ci;
	cf_t_args	a = {0};
	cf_status  *st;

	if ((st = cf_lookup(sh, s->name, &ci)) != NULL)
		return st;
	a.index_clause.expressions = cf_arena_alloc(sh->arena, s->n_exprs * sizeof(cf_t_index_expression));
	if (a.index_clause.expressions == NULL)
		return nomem();
	a.index_clause.n_expressions = s->n_exprs;
	for (size_t i = 0; i < s->n_exprs; i++)
	{
		cf_t_index_expression *e = &a.index_clause.expressions[i];

		if ((st = term_bytes(sh, &s->exprs[i].column, ci.cmp, &e->column_name)) != NULL ||
			(st = term_bytes(sh, &s->exprs[i].value, validator(&ci, e->column_name),
							 &e->value)) != NULL)
			return st;
		e->op = s->exprs[i].op;
	}
	a.index_clause.count = s->has_limit ? s->limit : LIST_DEFAULT_LIMIT;
	return rows(sh, CF_T_M_GET_INDEXED_SLICES, s->name, &ci, &a);
}

/* The parser took the limit (1 to INT32_MAX) when there is one. */
static cf_status *
exec_list(cft_shell *sh, const cft_stmt *s)
{
	cf_info		ci;
	cf_t_args	a = {0};
	cf_status  *st;

	if ((st = cf_lookup(sh, s->name, &ci)) != NULL)
		return st;
	a.range.has_start_key = true;
	a.range.has_end_key = true;
	if (s->has_start && (st = term_bytes(sh, &s->start, ci.key, &a.range.start_key)) != NULL)
		return st;
	if (s->has_end && (st = term_bytes(sh, &s->end, ci.key, &a.range.end_key)) != NULL)
		return st;
	a.range.count = s->has_limit ? s->limit : LIST_DEFAULT_LIMIT;
	if (!s->has_limit)
		fprintf(sh->opt.out, "Using default limit of %d\n", LIST_DEFAULT_LIMIT);
	return rows(sh, CF_T_M_GET_RANGE_SLICES, s->name, &ci, &a);
}

static cf_status *
exec_del(cft_shell *sh, const cft_stmt *s)
{
	resolved	r;
	cf_t_args	a = {0};
	cf_t_result res;
	cf_status  *st;

	if ((st = resolve(sh, &s->path, &r)) != NULL)
		return st;
	a.key = r.key;
	a.column_path = path_of(&s->path, &r);
	a.timestamp = now_micros();
	a.consistency_level = CF_T_CL_ONE;
	if ((st = call(sh, CF_T_M_REMOVE, &a, &res)) != NULL)
		return st;
	fputs(r.has_column || r.has_super ? "column removed.\n" : "row removed.\n", sh->opt.out);
	return NULL;
}

static cf_status *
exec_count(cft_shell *sh, const cft_stmt *s)
{
	resolved	r;
	cf_t_args	a = {0};
	cf_t_result res;
	cf_status  *st;

	if ((st = resolve(sh, &s->path, &r)) != NULL)
		return st;
	if (r.has_column)
		return cf_status_make(CF_ERR_INVALID, "line %d, column %d: count takes a row%s, "
							  "not a column", s->path.line, s->path.col,
							  r.ci.super ? " or a super column" : "");
	a.key = r.key;
	a.column_parent = parent_of(&s->path, &r);
	a.predicate.has_slice_range = true;
	a.predicate.slice_range.count = INT32_MAX;
	a.consistency_level = CF_T_CL_ONE;
	if ((st = call(sh, CF_T_M_GET_COUNT, &a, &res)) != NULL)
		return st;
	fprintf(sh->opt.out, "%" PRId32 " columns\n", res.count);
	return NULL;
}

static cf_status *
exec_truncate(cft_shell *sh, const cft_stmt *s)
{
	cf_t_args	a = {0};
	cf_t_result res;
	cf_status  *st;

	if ((st = need_keyspace(sh)) != NULL)
		return st;
	a.cfname = cf_slice_str(s->name);
	if ((st = call(sh, CF_T_M_TRUNCATE, &a, &res)) != NULL)
		return st;
	fprintf(sh->opt.out, "%s truncated.\n", s->name);
	return NULL;
}

/* ---- session statements ---- */

static cf_status *
login(cft_shell *sh, const char *user, const char *password)
{
	cf_t_string_pair cred[2] = {
		{cf_slice_str("username"), cf_slice_str(user)},
		{cf_slice_str("password"), cf_slice_str(password ? password : "")},
	};
	cf_t_args	a = {0};
	cf_t_result res;
	cf_status  *st;

	a.auth_request.credentials = cred;
	a.auth_request.n_credentials = 2;
	if ((st = call(sh, CF_T_M_LOGIN, &a, &res)) != NULL)
		return cf_status_wrap(st, "login as %s", user);
	set_str(&sh->user, user);
	return NULL;
}

static cf_status *
exec_connect(cft_shell *sh, const cft_stmt *s)
{
	cf_t_result res;
	cf_status  *st;

	cft_backend_close(&sh->b);
	sh->connected = false;
	set_str(&sh->keyspace, NULL);
	set_str(&sh->user, NULL);
	forget_keyspace_def(sh);
	if ((st = sh->opt.connect(s->host, s->port, &sh->b)) != NULL)
		return st;
	sh->connected = true;
	set_str(&sh->host, s->host);
	sh->port = s->port;
	if (s->user && (st = login(sh, s->user, s->password)) != NULL)
		return st;
	if ((st = call(sh, CF_T_M_DESCRIBE_CLUSTER_NAME, NULL, &res)) != NULL)
		return st;
	if (s->host[0] == '/')		/* a unix socket: no port */
		fprintf(sh->opt.out, "Connected to: \"%.*s\" on %s\n", (int) res.string.len,
				(const char *) res.string.p, s->host);
	else
		fprintf(sh->opt.out, "Connected to: \"%.*s\" on %s/%d\n", (int) res.string.len,
				(const char *) res.string.p, s->host, s->port);
	return NULL;
}

static cf_status *
exec_use(cft_shell *sh, const cft_stmt *s)
{
	cf_t_args	a = {0};
	cf_t_result res;
	cf_status  *st;

	if (s->user && (st = login(sh, s->user, s->password)) != NULL)
		return st;
	a.keyspace = cf_slice_str(s->name);
	if ((st = call(sh, CF_T_M_SET_KEYSPACE, &a, &res)) != NULL)
		return st;
	set_str(&sh->keyspace, s->name);
	forget_keyspace_def(sh);
	fprintf(sh->opt.out, "Authenticated to keyspace: %s\n", s->name);
	return NULL;
}

/* ---- schema statements ---- */

static cf_status *
find_ks(cft_shell *sh, const char *name, cf_t_ks_def *out)
{
	cf_t_args	a = {0};
	cf_t_result res;
	cf_status  *st;

	a.keyspace = cf_slice_str(name);
	if ((st = call(sh, CF_T_M_DESCRIBE_KEYSPACE, &a, &res)) != NULL)
	{
		if (cf_status_code(st) == CF_ERR_NOT_FOUND)
		{
			cf_status_free(st);
			return cf_status_make(CF_ERR_NOT_FOUND, "keyspace %s does not exist; "
								  "hint: show keyspaces; lists them", name);
		}
		return st;
	}
	*out = res.ks_def;
	return NULL;
}

static cf_status *
exec_schema(cft_shell *sh, const cft_stmt *s)
{
	cf_t_args	a = {0};
	cf_t_result res;
	cf_t_method m;
	cf_status  *st;
	const char *done;

	switch (s->kind)
	{
		case CFT_CREATE_KEYSPACE:
			cft_ks_def_init(&a.ks_def, s->name);
			if ((st = cft_ks_def_apply(s, sh->arena, &a.ks_def)) != NULL)
				return st;
			m = CF_T_M_SYSTEM_ADD_KEYSPACE;
			done = "Keyspace created.";
			break;
		case CFT_UPDATE_KEYSPACE:
			if ((st = find_ks(sh, s->name, &a.ks_def)) != NULL)
				return st;
			a.ks_def.cf_defs = NULL;	/* 0.7: an update carries no CF definitions */
			a.ks_def.n_cf_defs = 0;
			if ((st = cft_ks_def_apply(s, sh->arena, &a.ks_def)) != NULL)
				return st;
			m = CF_T_M_SYSTEM_UPDATE_KEYSPACE;
			done = "Keyspace updated.";
			break;
		case CFT_DROP_KEYSPACE:
			a.keyspace = cf_slice_str(s->name);
			m = CF_T_M_SYSTEM_DROP_KEYSPACE;
			done = "Keyspace dropped.";
			break;
		case CFT_CREATE_CF:
			if ((st = need_keyspace(sh)) != NULL)
				return st;
			cft_cf_def_init(&a.cf_def, sh->keyspace, s->name);
			if ((st = cft_cf_def_apply(s, sh->arena, &a.cf_def)) != NULL)
				return st;
			m = CF_T_M_SYSTEM_ADD_COLUMN_FAMILY;
			done = "Column family created.";
			break;
		case CFT_UPDATE_CF:
			{
				cf_info		ci;

				forget_keyspace_def(sh);
				if ((st = cf_lookup(sh, s->name, &ci)) != NULL)
					return st;
				a.cf_def = *ci.def;
				if ((st = cft_cf_def_apply(s, sh->arena, &a.cf_def)) != NULL)
					return st;
				m = CF_T_M_SYSTEM_UPDATE_COLUMN_FAMILY;
				done = "Column family updated.";
				break;
			}
		case CFT_DROP_CF:
			if ((st = need_keyspace(sh)) != NULL)
				return st;
			a.cfname = cf_slice_str(s->name);
			m = CF_T_M_SYSTEM_DROP_COLUMN_FAMILY;
			done = "Column family dropped.";
			break;
		default:
			return cf_status_make(CF_ERR_INTERNAL, "not a schema statement");
	}
	st = call(sh, m, &a, &res);
	forget_keyspace_def(sh);
	if (st != NULL)
		return st;
	if (s->kind == CFT_DROP_KEYSPACE && sh->keyspace && strcmp(sh->keyspace, s->name) == 0)
		set_str(&sh->keyspace, NULL);
	fprintf(sh->opt.out, "%s\n", done);
	return NULL;
}

static void
print_double(FILE *out, double d)
{
	/* Java's Double.toString for the values schemas hold: 200000.0, 0.5, 1.0 */
	if (d == (double) (int64_t) d && d < 1e15 && d > -1e15)
		fprintf(out, "%.1f", d);
	else
		fprintf(out, "%g", d);
}

static void
describe_ks(cft_shell *sh, const cf_t_ks_def *ks)
{
	FILE	   *o = sh->opt.out;

	fprintf(o, "Keyspace: %.*s:\n", (int) ks->name.len, (const char *) ks->name.p);
	fprintf(o, "  Replication Strategy: %.*s\n", (int) ks->strategy_class.len,
			(const char *) ks->strategy_class.p);
	fprintf(o, "    Replication Factor: %" PRId32 "\n", ks->replication_factor);
	for (size_t i = 0; i < ks->n_strategy_options; i++)
		fprintf(o, "    Option: %.*s = %.*s\n", (int) ks->strategy_options[i].key.len,
				(const char *) ks->strategy_options[i].key.p,
				(int) ks->strategy_options[i].value.len,
				(const char *) ks->strategy_options[i].value.p);
	fprintf(o, "  Column Families:\n");
	for (size_t i = 0; i < ks->n_cf_defs; i++)
	{
		const cf_t_cf_def *d = &ks->cf_defs[i];
		cf_info		ci;

		cf_info_of(d, &ci);
		fprintf(o, "    ColumnFamily: %.*s%s\n", (int) d->name.len, (const char *) d->name.p,
				ci.super ? " (Super)" : "");
		if (d->has_comment && d->comment.len)
			fprintf(o, "    \"%.*s\"\n", (int) d->comment.len, (const char *) d->comment.p);
		fprintf(o, "      Columns sorted by: %.*s", (int) d->comparator_type.len,
				(const char *) d->comparator_type.p);
		if (ci.super && d->has_subcomparator_type)
			fprintf(o, "/%.*s", (int) d->subcomparator_type.len,
					(const char *) d->subcomparator_type.p);
		fputc('\n', o);
		if (d->has_default_validation_class)
			fprintf(o, "      Default column value validator: %.*s\n",
					(int) d->default_validation_class.len,
					(const char *) d->default_validation_class.p);
		fputs("      Row cache size / save period: ", o);
		print_double(o, d->row_cache_size);
		fprintf(o, "/%" PRId32 "\n", d->row_cache_save_period_in_seconds);
		fputs("      Key cache size / save period: ", o);
		print_double(o, d->key_cache_size);
		fprintf(o, "/%" PRId32 "\n", d->key_cache_save_period_in_seconds);
		fputs("      Memtable thresholds: ", o);
		print_double(o, d->memtable_operations_in_millions);
		fprintf(o, "/%" PRId32 "/%" PRId32 "\n", d->memtable_throughput_in_mb,
				d->memtable_flush_after_mins);
		fprintf(o, "      GC grace seconds: %" PRId32 "\n", d->gc_grace_seconds);
		fprintf(o, "      Compaction min/max thresholds: %" PRId32 "/%" PRId32 "\n",
				d->min_compaction_threshold, d->max_compaction_threshold);
		fputs("      Read repair chance: ", o);
		print_double(o, d->read_repair_chance);
		fputc('\n', o);
		if (d->n_column_metadata)
			fputs("      Column Metadata:\n", o);
		for (size_t j = 0; j < d->n_column_metadata; j++)
		{
			const cf_t_column_def *cd = &d->column_metadata[j];

			fprintf(o, "        Column Name: %s\n", fmt(sh, ci.super ? CFT_BYTES : ci.cmp, cd->name));
			fprintf(o, "          Validation Class: %.*s\n", (int) cd->validation_class.len,
					(const char *) cd->validation_class.p);
			if (cd->has_index_type)
				fprintf(o, "          Index Type: %s\n",
						cd->index_type == CF_T_INDEX_KEYS ? "KEYS" : "unknown");
			if (cd->has_index_name)
				fprintf(o, "          Index Name: %.*s\n", (int) cd->index_name.len,
						(const char *) cd->index_name.p);
		}
	}
}

static cf_status *
exec_describe(cft_shell *sh, const cft_stmt *s)
{
	cf_t_result res;
	cf_status  *st;

	switch (s->kind)
	{
		case CFT_DESCRIBE_KEYSPACE:
			{
				cf_t_ks_def ks;
				const char *name = s->name ? s->name : sh->keyspace;

				if (name == NULL)
					return need_keyspace(sh);
				if ((st = find_ks(sh, name, &ks)) != NULL)
					return st;
				describe_ks(sh, &ks);
				return NULL;
			}
		case CFT_SHOW_KEYSPACES:
			if ((st = call(sh, CF_T_M_DESCRIBE_KEYSPACES, NULL, &res)) != NULL)
				return st;
			for (size_t i = 0; i < res.n_ks_defs; i++)
				describe_ks(sh, &res.ks_defs[i]);
			return NULL;
		case CFT_SHOW_CLUSTER_NAME:
		case CFT_SHOW_API_VERSION:
			if ((st = call(sh, s->kind == CFT_SHOW_CLUSTER_NAME ?
						   CF_T_M_DESCRIBE_CLUSTER_NAME : CF_T_M_DESCRIBE_VERSION,
						   NULL, &res)) != NULL)
				return st;
			fprintf(sh->opt.out, "%.*s\n", (int) res.string.len, (const char *) res.string.p);
			return NULL;
		case CFT_DESCRIBE_CLUSTER:
			{
				FILE	   *o = sh->opt.out;
				cf_slice	snitch,
							part;

				if ((st = call(sh, CF_T_M_DESCRIBE_SNITCH, NULL, &res)) != NULL)
					return st;
				snitch = res.string;
				if ((st = call(sh, CF_T_M_DESCRIBE_PARTITIONER, NULL, &res)) != NULL)
					return st;
				part = res.string;
				fprintf(o, "Cluster Information:\n   Snitch: %.*s\n   Partitioner: %.*s\n",
						(int) snitch.len, (const char *) snitch.p, (int) part.len,
						(const char *) part.p);
				if ((st = call(sh, CF_T_M_DESCRIBE_SCHEMA_VERSIONS, NULL, &res)) != NULL)
					return st;
				fputs("   Schema versions: \n", o);
				for (size_t i = 0; i < res.n_schema_versions; i++)
				{
					const cf_t_schema_version *v = &res.schema_versions[i];

					fprintf(o, "\t%.*s: [", (int) v->version.len, (const char *) v->version.p);
					for (size_t j = 0; j < v->n_hosts; j++)
						fprintf(o, "%s%.*s", j ? ", " : "", (int) v->hosts[j].len,
								(const char *) v->hosts[j].p);
					fputs("]\n", o);
				}
				return NULL;
			}
		default:
			return cf_status_make(CF_ERR_INTERNAL, "not a describe statement");
	}
}

/* assume CF what as TYPE: recorded for the session once CF and TYPE are known. */
static cf_status *
exec_assume(cft_shell *sh, const cft_stmt *s)
{
	cf_info		ci;
	cft_type	t;
	assumption *a;
	cf_status  *st;

	if ((st = cf_lookup(sh, s->name, &ci)) != NULL)
		return st;
	if ((st = cft_type_parse(cf_slice_str(s->as_type), "type", &t)) != NULL)
		return st;
	if (s->assumed == CFT_ASSUME_SUB_COMPARATOR && !ci.super)
		return cf_status_make(CF_ERR_INVALID, "%s is a standard column family: it has no "
							  "sub_comparator", s->name);
	if ((a = find_assumption(sh, s->name)) == NULL)
	{
		if ((a = calloc(1, sizeof(*a))) == NULL ||
			(a->keyspace = strdup(sh->keyspace)) == NULL || (a->cf = strdup(s->name)) == NULL)
		{
			if (a)
				free(a->keyspace);
			free(a);
			return nomem();
		}
		a->next = sh->assumptions;
		sh->assumptions = a;
	}
	a->set[s->assumed] = true;
	a->type[s->assumed] = t;
	fprintf(sh->opt.out, "Assumption for column family '%s' added successfully.\n", s->name);
	return NULL;
}

static const char help_text[] =
"List of all CLI commands:\n"
"help;                                                      Display this help.\n"
"help <command>;                                            Display detailed, command-specific help.\n"
"connect <hostname>/<port> [<username> '<password>'];      Connect to thrift service.\n"
"use <keyspace> [<username> '<password>'];                 Switch to a keyspace.\n"
"describe keyspace [<keyspace>];                            Describe keyspace.\n"
"exit; quit;                                                Exit CLI.\n"
"describe cluster;                                          Describe the cluster configuration.\n"
"show cluster name;                                         Display cluster name.\n"
"show keyspaces;                                            Show list of keyspaces.\n"
"show api version;                                          Show server API version.\n"
"create keyspace <keyspace> [with <att1>=<value1> [and <att2>=<value2> ...]];\n"
"                Add a new keyspace with the specified attribute(s) and value(s).\n"
"update keyspace <keyspace> [with <att1>=<value1> [and <att2>=<value2> ...]];\n"
"                Update a keyspace with the specified attribute(s) and value(s).\n"
"create column family <cf> [with <att1>=<value1> [and <att2>=<value2> ...]];\n"
"                Create a new column family with the specified attribute(s) and value(s).\n"
"update column family <cf> [with <att1>=<value1> [and <att2>=<value2> ...]];\n"
"                Update a column family with the specified attribute(s) and value(s).\n"
"drop keyspace <keyspace>;                                  Delete a keyspace.\n"
"drop column family <cf>;                                   Delete a column family.\n"
"get <cf>['<key>'];                                         Get a slice of columns.\n"
"get <cf>['<key>']['<super>'];                              Get a slice of sub columns.\n"
"get <cf> where <column> = <value> [and <column> > <value> and ...] [limit int];\n"
"                Get rows by a secondary index (at least one = on an indexed column).\n"
"get <cf>['<key>']['<col>'] (as <type>)*;                   Get a column value.\n"
"get <cf>['<key>']['<super>']['<col>'] (as <type>)*;        Get a sub column value.\n"
"set <cf>['<key>']['<col>'] = <value> (with ttl = <secs>)*; Set a column.\n"
"set <cf>['<key>']['<super>']['<col>'] = <value> (with ttl = <secs>)*;\n"
"                Set a sub column.\n"
"del <cf>['<key>'];                                         Delete record.\n"
"del <cf>['<key>']['<col>'];                                Delete column.\n"
"del <cf>['<key>']['<super>']['<col>'];                     Delete sub column.\n"
"count <cf>['<key>'];                                       Count columns in record.\n"
"count <cf>['<key>']['<super>'];                            Count columns in a super column.\n"
"truncate <column_family>;                                  Truncate specified column family.\n"
"assume <cf> comparator as <type>;                          Show and read the column names as <type>.\n"
"assume <cf> sub_comparator as <type>;                      Show and read the sub-column names as <type>.\n"
"assume <cf> validator as <type>;                           Show and read the values as <type>.\n"
"assume <cf> keys as <type>;                                Show and read the row keys as <type>.\n"
"list <cf>;                                                 List all rows in the column family.\n"
"list <cf>[<startKey>:];                                    List rows starting at the key.\n"
"list <cf>[<startKey>:<endKey>] limit N;                    List at most N rows in the range.\n"
"\n"
"Values: 'text', integers, and the functions bytes('hex'), integer(n), long(n), utf8('s'),\n"
"ascii('s'), lexicaluuid(['u']), timeuuid(['u']); a plain term is converted by the\n"
"comparator or validator of the column family.\n";

/*
 * Whether the help line line[0..n) documents topic t: one of its commands (the line's
 * start, or after "; " as in "exit; quit;") begins with t's words, whole words.
 */
static bool
help_line_matches(const char *line, size_t n, const char *t, size_t tl)
{
	for (size_t p = 0; p + tl <= n; p++)
	{
		char		next;

		if (p > 0 && !(p >= 2 && line[p - 2] == ';' && line[p - 1] == ' '))
			continue;
		if (strncasecmp(line + p, t, tl) != 0)
			continue;
		next = p + tl < n ? line[p + tl] : '\0';
		if (!isalnum((unsigned char) next) && next != '_')
			return true;
	}
	return false;
}

static void
exec_help(cft_shell *sh, const cft_stmt *s)
{
	const char *t = s->topic ? s->topic : "";
	const char *line;
	size_t		tl = strlen(t);
	bool		any = false;

	if (tl == 0)
	{
		fputs(help_text, sh->opt.out);
		return;
	}
	/*
	 * help TOPIC: the lines of the command list (after its title, up to the blank
	 * line before the notes on values) that start with the topic's words
	 */
	line = strchr(help_text, '\n') + 1;
	while (*line && *line != '\n')
	{
		const char *end = strchr(line, '\n');
		size_t		n = end ? (size_t) (end - line) : strlen(line);

		if (help_line_matches(line, n, t, tl))
		{
			fprintf(sh->opt.out, "%.*s\n", (int) n, line);
			any = true;
			/* and the indented continuation lines */
			while (end && strncmp(end + 1, "                ", 16) == 0)
			{
				const char *e2 = strchr(end + 1, '\n');

				fprintf(sh->opt.out, "%.*s\n", (int) (e2 - end - 1), end + 1);
				end = e2;
			}
		}
		line = end ? end + 1 : line + n;
	}
	if (!any)
		fprintf(sh->opt.out, "No help for \"%s\"; help; lists the commands.\n", t);
}

cf_status *
cft_shell_exec(cft_shell *sh, const cft_stmt *s, bool *quit)
{
	cf_status  *st;

	cf_arena_free(sh->arena);
	if ((sh->arena = cf_arena_new(0)) == NULL)
		return nomem();
	switch (s->kind)
	{
		case CFT_CONNECT:
			st = exec_connect(sh, s);
			break;
		case CFT_USE:
			st = exec_use(sh, s);
			break;
		case CFT_SET:
			st = exec_set(sh, s);
			break;
		case CFT_GET:
			st = exec_get(sh, s);
			break;
		case CFT_GET_WHERE:
			st = exec_get_where(sh, s);
			break;
		case CFT_DEL:
			st = exec_del(sh, s);
			break;
		case CFT_COUNT:
			st = exec_count(sh, s);
			break;
		case CFT_LIST:
			st = exec_list(sh, s);
			break;
		case CFT_TRUNCATE:
			st = exec_truncate(sh, s);
			break;
		case CFT_CREATE_KEYSPACE:
		case CFT_UPDATE_KEYSPACE:
		case CFT_DROP_KEYSPACE:
		case CFT_CREATE_CF:
		case CFT_UPDATE_CF:
		case CFT_DROP_CF:
			st = exec_schema(sh, s);
			break;
		case CFT_DESCRIBE_KEYSPACE:
		case CFT_DESCRIBE_CLUSTER:
		case CFT_SHOW_KEYSPACES:
		case CFT_SHOW_CLUSTER_NAME:
		case CFT_SHOW_API_VERSION:
			st = exec_describe(sh, s);
			break;
		case CFT_HELP:
			exec_help(sh, s);
			st = NULL;
			break;
		case CFT_QUIT:
			if (quit)
				*quit = true;
			st = NULL;
			break;
		case CFT_ASSUME:
			st = exec_assume(sh, s);
			break;
		default:
			st = cf_status_make(CF_ERR_INTERNAL, "unknown statement kind %d", (int) s->kind);
	}
	fflush(sh->opt.out);
	return st;
}

/*
 * Prints msg to err as "NAME:L[:C]: [what: ]rest" ("line L[, column C]: ..." without a
 * name). A message of the parser's or of the tool's own checks starts "line L, column
 * C: ", relative to the parsed text, which starts at the input's line first_line;
 * any other message is placed at the statement's line stmt_line of that text.
 */
static void
report(cft_shell *sh, const char *name, int first_line, int stmt_line, const char *what,
	   const char *msg)
{
	int			l = stmt_line,
				c = 0,
				n = 0;
	char		at[64];

	if (sscanf(msg, "line %d, column %d: %n", &l, &c, &n) == 2 && n > 0)
		msg += n;
	else
	{
		l = stmt_line;
		c = 0;
	}
	l += first_line - 1;
	if (name)
		snprintf(at, sizeof(at), c > 0 ? "%d:%d" : "%d", l, c);
	else
		snprintf(at, sizeof(at), c > 0 ? "line %d, column %d" : "line %d", l, c);
	fprintf(sh->opt.err, "%s%s%s: %s%s%s\n", name ? name : "", name ? ":" : "", at,
			what ? what : "", what ? ": " : "", msg);
	fflush(sh->opt.err);
}

int
cft_shell_run(cft_shell *sh, const char *src, size_t len, const char *name, int first_line,
			  bool cont, bool *quit)
{
	cf_arena   *a = cf_arena_new(0);
	cft_stmt   *stmts;
	size_t		n;
	cf_status  *st;
	int			failed = 0;

	if (a == NULL)
	{
		fprintf(sh->opt.err, "out of memory\n");
		return 1;
	}
	if ((st = cft_parse(src, len, a, &stmts, &n)) != NULL)
	{
		report(sh, name, first_line, 1, NULL, cf_status_msg(st));
		cf_status_free(st);
		cf_arena_free(a);
		return 1;
	}
	for (size_t i = 0; i < n; i++)
	{
		bool		q = false;

		if ((st = cft_shell_exec(sh, &stmts[i], &q)) != NULL)
		{
			failed++;
			report(sh, name, first_line, stmts[i].line, cft_stmt_name(stmts[i].kind),
				   cf_status_msg(st));
			cf_status_free(st);
			if (!cont)
				break;
		}
		if (q)
		{
			if (quit)
				*quit = true;
			break;
		}
	}
	cf_arena_free(a);
	return failed;
}
