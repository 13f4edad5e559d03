/*
 * tools/cli_parse.c — recursive-descent parser of the cassandra-cli (0.7) language
 * (grammar in cli.h) over cli_lex.c's tokens.
 *
 * One function per statement; each error names the position of the token it stopped
 * at and what it expected there, in the words a user thinks in ("after the row key").
 * Keywords are identifiers compared without case, so a column family may be called
 * "list" — only the statement's first word decides which statement it is.
 */
#include "tools/cli.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "thrift/cassandra.h"
#include "tools/cli_lex.h"

typedef struct parser
{
	const char *src;
	cft_tok    *toks;
	size_t		n;
	size_t		i;
	cf_arena   *arena;
} parser;

static const cft_tok *
peek(const parser *p)
{
	return &p->toks[p->i];
}

static const cft_tok *
peek2(const parser *p)
{
	return p->i + 1 < p->n ? &p->toks[p->i + 1] : &p->toks[p->n - 1];
}

static const cft_tok *
next(parser *p)
{
	const cft_tok *t = &p->toks[p->i];

	if (t->kind != CFT_TOK_EOF)
		p->i++;
	return t;
}

static bool
is_kw(const cft_tok *t, const char *kw)
{
	return t->kind == CFT_TOK_IDENT && strcasecmp(t->text, kw) == 0;
}

static bool
is_punct(const cft_tok *t, const char *s)
{
	return t->kind == CFT_TOK_PUNCT && strcmp(t->text, s) == 0;
}

/* How a token reads in "found ..." */
static void
describe_tok(const cft_tok *t, char *out, size_t cap)
{
	switch (t->kind)
	{
		case CFT_TOK_EOF:
			snprintf(out, cap, "the end of the input");
			break;
		case CFT_TOK_STRING:
			snprintf(out, cap, "string '%.40s%s'", t->text, t->len > 40 ? "..." : "");
			break;
		default:
			snprintf(out, cap, "'%.40s%s'", t->text, t->len > 40 ? "..." : "");
			break;
	}
}

/* "line L, column C: expected WHAT, found X" at token t. */
static cf_status *
expected_at(const cft_tok *t, const char *what)
{
	char		found[64];

	describe_tok(t, found, sizeof(found));
	return cf_status_make(CF_ERR_INVALID, "line %d, column %d: expected %s, found %s",
						  t->line, t->col, what, found);
}

cf_status *
cft_error_at(int line, int col, const char *fmt,...)
{
	va_list		ap;
	cf_status  *st;

	va_start(ap, fmt);
	st = cf_status_makev(CF_ERR_INVALID, fmt, ap);
	va_end(ap);
	return cf_status_wrap(st, "line %d, column %d", line, col);
}

static cf_status *
expect_punct(parser *p, const char *s, const char *what)
{
	if (!is_punct(peek(p), s))
		return expected_at(peek(p), what);
	next(p);
	return NULL;
}

static cf_status *
expect_kw(parser *p, const char *kw, const char *what)
{
	if (!is_kw(peek(p), kw))
		return expected_at(peek(p), what);
	next(p);
	return NULL;
}

static cf_status *
nomem(void)
{
	return cf_status_make(CF_ERR_NO_MEMORY, "out of memory parsing");
}

/* A name: identifier or string (CF names, keyspaces, types). */
static cf_status *
parse_name(parser *p, const char *what, const char **out)
{
	const cft_tok *t = peek(p);

	if (t->kind != CFT_TOK_IDENT && t->kind != CFT_TOK_STRING && t->kind != CFT_TOK_INTEGER)
		return expected_at(t, what);
	*out = t->text;
	next(p);
	return NULL;
}

static cf_status *
parse_int(parser *p, const char *what, int64_t min, int64_t max, int64_t *out)
{
	const cft_tok *t = peek(p);
	long long	v;
	char	   *end;

	if (t->kind != CFT_TOK_INTEGER)
		return expected_at(t, what);
	errno = 0;
	v = strtoll(t->text, &end, 10);
	if (errno != 0 || *end != '\0' || v < min || v > max)
	{
		return cft_error_at(t->line, t->col, "%s must be between %lld and %lld, not %s",
							what, (long long) min, (long long) max, t->text);
	}
	*out = v;
	next(p);
	return NULL;
}

static void
term_from_tok(const cft_tok *t, cft_term *out)
{
	memset(out, 0, sizeof(*out));
	out->kind = t->kind == CFT_TOK_STRING ? CFT_TERM_STRING :
		t->kind == CFT_TOK_INTEGER ? CFT_TERM_INTEGER :
		t->kind == CFT_TOK_DECIMAL ? CFT_TERM_DECIMAL : CFT_TERM_IDENT;
	out->text = t->text;
	out->len = t->len;
	out->line = t->line;
	out->col = t->col;
}

static const char *const functions[] = {
	"bytes", "integer", "long", "utf8", "ascii", "lexicaluuid", "timeuuid", NULL
};

/* term: 'string' | integer | decimal | identifier | function '(' [arg] ')' */
static cf_status *
parse_term(parser *p, const char *what, cft_term *out)
{
	const cft_tok *t = peek(p);

	if (t->kind == CFT_TOK_IDENT && is_punct(peek2(p), "("))
	{
		cft_term   *arg = NULL;
		char	   *fname;
		bool		known = false;
		cf_status  *st;

		for (int i = 0; functions[i]; i++)
			if (strcasecmp(t->text, functions[i]) == 0)
				known = true;
		if (!known)
			return cft_error_at(t->line, t->col,
								"unknown function %s(); hint: the functions are bytes, "
								"integer, long, utf8, ascii, lexicaluuid and timeuuid",
								t->text);
		term_from_tok(t, out);
		out->kind = CFT_TERM_FUNC;
		fname = cf_arena_dup(p->arena, t->text, t->len + 1);
		if (fname == NULL)
			return nomem();
		for (char *c = fname; *c; c++)
			*c = (char) tolower((unsigned char) *c);
		out->text = fname;
		next(p);
		next(p);				/* ( */
		if (!is_punct(peek(p), ")"))
		{
			const cft_tok *a = peek(p);

			if (a->kind == CFT_TOK_PUNCT || a->kind == CFT_TOK_EOF)
				return expected_at(a, "the function's argument or ')'");
			arg = cf_arena_alloc(p->arena, sizeof(cft_term));
			if (arg == NULL)
				return nomem();
			term_from_tok(a, arg);
			next(p);
		}
		if ((st = expect_punct(p, ")", "')' after the function's argument")) != NULL)
			return st;
		out->arg = arg;
		return NULL;
	}
	if (t->kind == CFT_TOK_STRING || t->kind == CFT_TOK_INTEGER ||
		t->kind == CFT_TOK_DECIMAL || t->kind == CFT_TOK_IDENT)
	{
		term_from_tok(t, out);
		next(p);
		return NULL;
	}
	return expected_at(t, what);
}

/*
 * CF '[' key ']' ( '[' term ']' ){0,2}. max_depth limits the terms after the key;
 * min_depth says how many are required.
 */
static cf_status *
parse_path(parser *p, int min_depth, int max_depth, const char *stmt, cft_path *out)
{
	static const char *const what[] = {"the row key", "the column or super column name",
	"the column name"};
	static const char *const after[] = {"']' after the row key",
		"']' after the column or super column name",
	"']' after the column name"};
	const cft_tok *cf = peek(p);
	cf_status  *st;

	memset(out, 0, sizeof(*out));
	if ((st = parse_name(p, "a column family name", &out->cf)) != NULL)
		return st;
	out->line = cf->line;
	out->col = cf->col;
	if ((st = expect_punct(p, "[", "'[' and the row key after the column family")) != NULL)
		return st;
	if ((st = parse_term(p, what[0], &out->key)) != NULL)
		return st;
	if ((st = expect_punct(p, "]", after[0])) != NULL)
		return st;
	while (is_punct(peek(p), "["))
	{
		if (out->depth == max_depth)
		{
			return cft_error_at(peek(p)->line, peek(p)->col,
								"%s takes at most %d name%s after the row key",
								stmt, max_depth, max_depth == 1 ? "" : "s");
		}
		next(p);
		if ((st = parse_term(p, what[out->depth + 1], &out->sub[out->depth])) != NULL)
			return st;
		if ((st = expect_punct(p, "]", after[out->depth + 1])) != NULL)
			return st;
		out->depth++;
	}
	if (out->depth < min_depth)
	{
		char		msg[128];

		snprintf(msg, sizeof(msg), "'[' and the column name (%s needs CF['key']['column'])",
				 stmt);
		return expected_at(peek(p), msg);
	}
	return NULL;
}

/* '{' term ':' term (',' term ':' term)* '}' */
static cf_status *
parse_hash(parser *p, cft_hash *out)
{
	size_t		cap = 4;
	cf_status  *st;

	out->line = peek(p)->line;
	out->col = peek(p)->col;
	if ((st = expect_punct(p, "{", "'{'")) != NULL)
		return st;
	out->pairs = cf_arena_alloc(p->arena, cap * sizeof(cft_pair));
	out->n_pairs = 0;
	if (out->pairs == NULL)
		return nomem();
	if (is_punct(peek(p), "}"))
	{
		next(p);
		return NULL;
	}
	for (;;)
	{
		cft_pair	pair;

		if ((st = parse_term(p, "a name inside {...}", &pair.key)) != NULL)
			return st;
		if ((st = expect_punct(p, ":", "':' after the name inside {...}")) != NULL)
			return st;
		if ((st = parse_term(p, "a value after ':'", &pair.value)) != NULL)
			return st;
		out->pairs = cf_arena_grow(p->arena, out->pairs, out->n_pairs, &cap, sizeof(cft_pair));
		if (out->pairs == NULL)
			return nomem();
		out->pairs[out->n_pairs++] = pair;
		if (is_punct(peek(p), ","))
		{
			next(p);
			continue;
		}
		return expect_punct(p, "}", "',' or '}' inside {...}");
	}
}

/* with name = value (and name = value)* */
static cf_status *
parse_attrs(parser *p, cft_stmt *s)
{
	size_t		cap = 8;
	cf_status  *st;

	if (!is_kw(peek(p), "with"))
		return NULL;
	next(p);
	s->attrs = cf_arena_alloc(p->arena, cap * sizeof(cft_attr));
	if (s->attrs == NULL)
		return nomem();
	for (;;)
	{
		cft_attr	a;
		const cft_tok *t = peek(p);

		memset(&a, 0, sizeof(a));
		if (t->kind != CFT_TOK_IDENT)
			return expected_at(t, "an attribute name (comparator, comment, ...)");
		a.name = t->text;
		a.line = t->line;
		a.col = t->col;
		next(p);
		if ((st = expect_punct(p, "=", "'=' after the attribute name")) != NULL)
			return st;
		if (is_punct(peek(p), "[") || is_punct(peek(p), "{"))
		{
			bool		bracket = is_punct(peek(p), "[");
			size_t		hcap = 4;

			a.is_list = true;
			a.hashes = cf_arena_alloc(p->arena, hcap * sizeof(cft_hash));
			if (a.hashes == NULL)
				return nomem();
			if (bracket)
				next(p);
			for (;;)
			{
				if (bracket && a.n_hashes == 0 && is_punct(peek(p), "]"))
					break;
				a.hashes = cf_arena_grow(p->arena, a.hashes, a.n_hashes, &hcap, sizeof(cft_hash));
				if (a.hashes == NULL)
					return nomem();
				if (!is_punct(peek(p), "{"))
					return expected_at(peek(p), "'{' starting a {name: value, ...} entry");
				if ((st = parse_hash(p, &a.hashes[a.n_hashes])) != NULL)
					return st;
				a.n_hashes++;
				if (!bracket)
					break;
				if (is_punct(peek(p), ","))
				{
					next(p);
					continue;
				}
				break;
			}
			if (bracket && (st = expect_punct(p, "]", "',' or ']' after {...}")) != NULL)
				return st;
		}
		else
		{
			const cft_tok *v = peek(p);

			if (v->kind == CFT_TOK_PUNCT || v->kind == CFT_TOK_EOF)
				return expected_at(v, "the attribute's value");
			term_from_tok(v, &a.value);
			next(p);
		}
		s->attrs = cf_arena_grow(p->arena, s->attrs, s->n_attrs, &cap, sizeof(cft_attr));
		if (s->attrs == NULL)
			return nomem();
		s->attrs[s->n_attrs++] = a;
		if (!is_kw(peek(p), "and"))
			return NULL;
		next(p);
	}
}

static cf_status *
parse_connect(parser *p, cft_stmt *s)
{
	const cft_tok *first = peek(p);
	size_t		start,
				end;
	char	   *host;
	int64_t		port;
	cf_status  *st;

	/* The host is the source text up to '/': names and dotted addresses alike. */
	while (!is_punct(peek(p), "/") && !is_punct(peek(p), ";") && peek(p)->kind != CFT_TOK_EOF)
		next(p);
	if (!is_punct(peek(p), "/"))
		return expected_at(peek(p), "HOST/PORT after connect (connect localhost/9160)");
	if (peek(p) == first)
		return expected_at(first, "a host name before '/'");
	start = first->off;
	end = p->toks[p->i - 1].end;
	for (size_t i = start; i < end; i++)
		if (isspace((unsigned char) p->src[i]))
			return cft_error_at(first->line, first->col,
								"a host name has no blanks (connect HOST/PORT)");
	if ((host = cf_arena_strndup(p->arena, p->src + start, end - start)) == NULL)
		return nomem();
	s->host = host;
	next(p);					/* / */
	if ((st = parse_int(p, "the port after '/'", 1, 65535, &port)) != NULL)
		return st;
	s->port = (int) port;
	if (peek(p)->kind == CFT_TOK_IDENT)
	{
		s->user = next(p)->text;
		if (peek(p)->kind != CFT_TOK_STRING)
			return expected_at(peek(p), "the password as a 'string' after the user name");
		s->password = next(p)->text;
	}
	return NULL;
}

/* [limit N] after get ... where and list: N from 1 to INT32_MAX. */
static cf_status *
parse_limit(parser *p, cft_stmt *s)
{
	int64_t		v;
	cf_status  *st;

	if (!is_kw(peek(p), "limit"))
		return NULL;
	next(p);
	if ((st = parse_int(p, "the row count after limit", 1, INT32_MAX, &v)) != NULL)
		return st;
	s->has_limit = true;
	s->limit = (int32_t) v;
	return NULL;
}

static cf_status *
parse_get(parser *p, cft_stmt *s)
{
	cf_status  *st;

	if (peek(p)->kind != CFT_TOK_EOF && is_kw(peek2(p), "where"))
	{
		size_t		cap = 4;

		s->kind = CFT_GET_WHERE;
		if ((st = parse_name(p, "a column family name", &s->name)) != NULL)
			return st;
		next(p);				/* where */
		s->exprs = cf_arena_alloc(p->arena, cap * sizeof(cft_expr));
		if (s->exprs == NULL)
			return nomem();
		for (;;)
		{
			cft_expr	e;
			const cft_tok *op;

			if ((st = parse_term(p, "a column name after where", &e.column)) != NULL)
				return st;
			op = peek(p);
			if (is_punct(op, "="))
				e.op = CF_T_OP_EQ;
			else if (is_punct(op, ">="))
				e.op = CF_T_OP_GTE;
			else if (is_punct(op, ">"))
				e.op = CF_T_OP_GT;
			else if (is_punct(op, "<="))
				e.op = CF_T_OP_LTE;
			else if (is_punct(op, "<"))
				e.op = CF_T_OP_LT;
			else
				return expected_at(op, "an operator (=, >, >=, <, <=) after the column name");
			next(p);
			if ((st = parse_term(p, "a value after the operator", &e.value)) != NULL)
				return st;
			s->exprs = cf_arena_grow(p->arena, s->exprs, s->n_exprs, &cap, sizeof(cft_expr));
			if (s->exprs == NULL)
				return nomem();
			s->exprs[s->n_exprs++] = e;
			if (!is_kw(peek(p), "and"))
				break;
			next(p);
		}
		return parse_limit(p, s);
	}
	if ((st = parse_path(p, 0, 2, "get", &s->path)) != NULL)
		return st;
	if (is_kw(peek(p), "as"))
	{
		next(p);
		if ((st = parse_name(p, "a type after as (ascii, bytes, integer, lexicaluuid, "
							 "long, timeuuid, utf8)", &s->as_type)) != NULL)
			return st;
	}
	return NULL;
}

static cf_status *
parse_list(parser *p, cft_stmt *s)
{
	cf_status  *st;

	if ((st = parse_name(p, "a column family name after list", &s->name)) != NULL)
		return st;
	if (is_punct(peek(p), "["))
	{
		next(p);
		if (!is_punct(peek(p), ":"))
		{
			if ((st = parse_term(p, "the start key or ':'", &s->start)) != NULL)
				return st;
			s->has_start = true;
		}
		if ((st = expect_punct(p, ":", "':' between the start and end keys")) != NULL)
			return st;
		if (!is_punct(peek(p), "]"))
		{
			if ((st = parse_term(p, "the end key or ']'", &s->end)) != NULL)
				return st;
			s->has_end = true;
		}
		if ((st = expect_punct(p, "]", "']' after the key range")) != NULL)
			return st;
	}
	return parse_limit(p, s);
}

/* keyspace NAME | column family NAME, after create/update/drop */
static cf_status *
parse_schema_target(parser *p, cft_stmt *s, cft_stmt_kind ks_kind, cft_stmt_kind cf_kind,
					bool with_attrs)
{
	cf_status  *st;

	if (is_kw(peek(p), "keyspace"))
	{
		next(p);
		s->kind = ks_kind;
		if ((st = parse_name(p, "a keyspace name", &s->name)) != NULL)
			return st;
	}
	else if (is_kw(peek(p), "column"))
	{
		next(p);
		if ((st = expect_kw(p, "family", "'family' after 'column'")) != NULL)
			return st;
		s->kind = cf_kind;
		if ((st = parse_name(p, "a column family name", &s->name)) != NULL)
			return st;
	}
	else
		return expected_at(peek(p), "'keyspace' or 'column family'");
	return with_attrs ? parse_attrs(p, s) : NULL;
}

static cf_status *
parse_help(parser *p, cft_stmt *s)
{
	size_t		start = peek(p)->off,
				end = start;
	char	   *topic,
			   *o;
	bool		space = false;

	while (!is_punct(peek(p), ";") && peek(p)->kind != CFT_TOK_EOF)
		end = next(p)->end;
	topic = cf_arena_alloc(p->arena, end - start + 1);
	if (topic == NULL)
		return nomem();
	o = topic;
	for (size_t i = start; i < end; i++)
	{
		unsigned char c = (unsigned char) p->src[i];

		if (isspace(c))
			space = o != topic;
		else
		{
			if (space)
				*o++ = ' ';
			space = false;
			*o++ = (char) tolower(c);
		}
	}
	*o = '\0';
	s->topic = topic;
	return NULL;
}

static const char statement_hint[] =
"hint: statements are connect, use, set, get, del, count, list, truncate, create, "
"update, drop, describe, show, assume, help, quit and exit";

/* assume CF comparator|sub_comparator|validator|keys as TYPE (after "assume") */
static cf_status *
parse_assume(parser *p, cft_stmt *s)
{
	static const char *const what[CFT_ASSUME_COUNT_] = {
		[CFT_ASSUME_COMPARATOR] = "comparator",
		[CFT_ASSUME_SUB_COMPARATOR] = "sub_comparator",
		[CFT_ASSUME_VALIDATOR] = "validator",
		[CFT_ASSUME_KEYS] = "keys",
	};
	const cft_tok *t;
	cf_status  *st;
	size_t		i = 0;

	if ((st = parse_name(p, "a column family name after assume", &s->name)) != NULL)
		return st;
	t = peek(p);
	while (i < CFT_ASSUME_COUNT_ && !is_kw(t, what[i]))
		i++;
	if (i == CFT_ASSUME_COUNT_)
		return expected_at(t, "comparator, sub_comparator, validator or keys after the "
						   "column family");
	s->assumed = (cft_assumed) i;
	next(p);
	if ((st = expect_kw(p, "as", "'as' and a type")) != NULL)
		return st;
	return parse_name(p, "a type after as (utf8, long, timeuuid, ... or a marshal type)",
					  &s->as_type);
}

static cf_status *
parse_statement(parser *p, cft_stmt *s)
{
	const cft_tok *t = next(p);
	cf_status  *st = NULL;
	int64_t		v;

	if (t->kind != CFT_TOK_IDENT)
		return cf_status_make(CF_ERR_INVALID, "line %d, column %d: expected a statement, "
							  "found '%.40s'\n%s", t->line, t->col, t->text, statement_hint);
	if (is_kw(t, "connect"))
	{
		s->kind = CFT_CONNECT;
		st = parse_connect(p, s);
	}
	else if (is_kw(t, "use"))
	{
		s->kind = CFT_USE;
		if ((st = parse_name(p, "a keyspace name after use", &s->name)) == NULL &&
			peek(p)->kind == CFT_TOK_IDENT)
		{
			s->user = next(p)->text;
			if (peek(p)->kind != CFT_TOK_STRING)
				return expected_at(peek(p), "the password as a 'string' after the user name");
			s->password = next(p)->text;
		}
	}
	else if (is_kw(t, "set"))
	{
		s->kind = CFT_SET;
		if ((st = parse_path(p, 1, 2, "set", &s->path)) != NULL)
			return st;
		if ((st = expect_punct(p, "=", "'=' and the value after the column")) != NULL)
			return st;
		if ((st = parse_term(p, "the value after '='", &s->value)) != NULL)
			return st;
		if (is_kw(peek(p), "with"))
		{
			next(p);
			if ((st = expect_kw(p, "ttl", "'ttl' after with")) != NULL ||
				(st = expect_punct(p, "=", "'=' after ttl")) != NULL ||
				(st = parse_int(p, "the ttl in seconds", 1, INT32_MAX, &v)) != NULL)
				return st;
			s->has_ttl = true;
			s->ttl = (int32_t) v;
		}
	}
	else if (is_kw(t, "get"))
	{
		s->kind = CFT_GET;
		st = parse_get(p, s);
	}
	else if (is_kw(t, "del") || is_kw(t, "delete"))
	{
		s->kind = CFT_DEL;
		st = parse_path(p, 0, 2, "del", &s->path);
	}
	else if (is_kw(t, "count"))
	{
		s->kind = CFT_COUNT;
		st = parse_path(p, 0, 1, "count", &s->path);
	}
	else if (is_kw(t, "list"))
	{
		s->kind = CFT_LIST;
		st = parse_list(p, s);
	}
	else if (is_kw(t, "truncate"))
	{
		s->kind = CFT_TRUNCATE;
		st = parse_name(p, "a column family name after truncate", &s->name);
	}
	else if (is_kw(t, "create"))
		st = parse_schema_target(p, s, CFT_CREATE_KEYSPACE, CFT_CREATE_CF, true);
	else if (is_kw(t, "update"))
		st = parse_schema_target(p, s, CFT_UPDATE_KEYSPACE, CFT_UPDATE_CF, true);
	else if (is_kw(t, "drop"))
		st = parse_schema_target(p, s, CFT_DROP_KEYSPACE, CFT_DROP_CF, false);
	else if (is_kw(t, "describe"))
	{
		if (is_kw(peek(p), "cluster"))
		{
			next(p);
			s->kind = CFT_DESCRIBE_CLUSTER;
		}
		else
		{
			if ((st = expect_kw(p, "keyspace", "'keyspace' or 'cluster' after describe")) != NULL)
				return st;
			s->kind = CFT_DESCRIBE_KEYSPACE;
			if (!is_punct(peek(p), ";"))
				st = parse_name(p, "a keyspace name or ';'", &s->name);
		}
	}
	else if (is_kw(t, "show"))
	{
		if (is_kw(peek(p), "keyspaces"))
		{
			next(p);
			s->kind = CFT_SHOW_KEYSPACES;
		}
		else if (is_kw(peek(p), "cluster"))
		{
			next(p);
			s->kind = CFT_SHOW_CLUSTER_NAME;
			st = expect_kw(p, "name", "'name' after show cluster");
		}
		else if (is_kw(peek(p), "api"))
		{
			next(p);
			s->kind = CFT_SHOW_API_VERSION;
			st = expect_kw(p, "version", "'version' after show api");
		}
		else
			return expected_at(peek(p), "'keyspaces', 'cluster name' or 'api version' after show");
	}
	else if (is_kw(t, "help"))
	{
		s->kind = CFT_HELP;
		st = parse_help(p, s);
	}
	else if (is_kw(t, "quit") || is_kw(t, "exit"))
		s->kind = CFT_QUIT;
	else if (is_kw(t, "assume"))
	{
		s->kind = CFT_ASSUME;
		st = parse_assume(p, s);
	}
	else
		return cf_status_make(CF_ERR_INVALID, "line %d, column %d: unknown statement '%.40s'\n%s",
							  t->line, t->col, t->text, statement_hint);
	if (st != NULL)
		return st;
	if (!is_punct(peek(p), ";"))
	{
		char		what[96];

		snprintf(what, sizeof(what), "';' at the end of the %s statement",
				 cft_stmt_name(s->kind));
		return expected_at(peek(p), what);
	}
	next(p);
	return NULL;
}

cf_status *
cft_parse(const char *src, size_t len, cf_arena *arena, cft_stmt **stmts, size_t *n)
{
	parser		p;
	cf_status  *st;
	size_t		cap = 8;
	cft_stmt   *out;

	memset(&p, 0, sizeof(p));
	p.src = src;
	p.arena = arena;
	*stmts = NULL;
	*n = 0;
	if ((st = cft_lex(src, len, arena, &p.toks, &p.n)) != NULL)
		return st;
	out = cf_arena_alloc(arena, cap * sizeof(cft_stmt));
	if (out == NULL)
		return nomem();
	while (peek(&p)->kind != CFT_TOK_EOF)
	{
		cft_stmt	s;
		const cft_tok *first = peek(&p);
		char	   *text;

		/* a stray ';' is an empty statement */
		if (is_punct(first, ";"))
		{
			next(&p);
			continue;
		}
		memset(&s, 0, sizeof(s));
		s.line = first->line;
		s.col = first->col;
		if ((st = parse_statement(&p, &s)) != NULL)
			return st;
		text = cf_arena_strndup(arena, src + first->off, p.toks[p.i - 1].end - first->off);
		if (text == NULL)
			return nomem();
		s.text = text;
		out = cf_arena_grow(arena, out, *n, &cap, sizeof(cft_stmt));
		if (out == NULL)
			return nomem();
		out[(*n)++] = s;
	}
	*stmts = out;
	return NULL;
}

bool
cft_input_complete(const char *src, size_t len)
{
	cf_arena   *a = cf_arena_new(0);
	cft_tok    *toks;
	size_t		n;
	cf_status  *st;
	bool		complete;

	if (a == NULL)
		return true;
	st = cft_lex(src, len, a, &toks, &n);
	if (st != NULL)
		complete = strstr(cf_status_msg(st), "not closed") == NULL;
	else
		complete = n == 1 || is_punct(&toks[n - 2], ";");
	cf_status_free(st);
	cf_arena_free(a);
	return complete;
}

const char *
cft_stmt_name(cft_stmt_kind k)
{
	switch (k)
	{
		case CFT_CONNECT:
			return "connect";
		case CFT_USE:
			return "use";
		case CFT_SET:
			return "set";
		case CFT_GET:
		case CFT_GET_WHERE:
			return "get";
		case CFT_DEL:
			return "del";
		case CFT_COUNT:
			return "count";
		case CFT_LIST:
			return "list";
		case CFT_TRUNCATE:
			return "truncate";
		case CFT_CREATE_KEYSPACE:
			return "create keyspace";
		case CFT_UPDATE_KEYSPACE:
			return "update keyspace";
		case CFT_DROP_KEYSPACE:
			return "drop keyspace";
		case CFT_CREATE_CF:
			return "create column family";
		case CFT_UPDATE_CF:
			return "update column family";
		case CFT_DROP_CF:
			return "drop column family";
		case CFT_DESCRIBE_KEYSPACE:
			return "describe keyspace";
		case CFT_DESCRIBE_CLUSTER:
			return "describe cluster";
		case CFT_SHOW_KEYSPACES:
			return "show keyspaces";
		case CFT_SHOW_CLUSTER_NAME:
			return "show cluster name";
		case CFT_SHOW_API_VERSION:
			return "show api version";
		case CFT_HELP:
			return "help";
		case CFT_QUIT:
			return "quit";
		case CFT_ASSUME:
			return "assume";
	}
	return "?";
}
