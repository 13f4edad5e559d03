/*
 * tools/cli.h — the cassandra-cli (0.7) language of `colfam shell`: its syntax tree
 * and parser. Parsing never talks to a server and never executes; cli_exec.c runs
 * the tree, cli_schema.c turns create/update attributes into KsDef/CfDef and
 * cli_types.c converts terms to bytes under a comparator or validator.
 *
 * Statements (keywords without case, each statement ends with ';'):
 *   connect HOST/PORT [USER 'PASS'];          use KEYSPACE [USER 'PASS'];
 *   set CF['key']['col'] = VALUE [with ttl = N];   set CF['key']['super']['col'] = ...;
 *   get CF['key'] [['super']] [['col']] [as TYPE];
 *   get CF where COL = VALUE [and COL > VALUE ...] [limit N];
 *   del CF['key'] [['super']] [['col']];      count CF['key'] [['super']];
 *   list CF [[START:END]] [limit N];          truncate CF;
 *   create|update keyspace K [with ATTR = V [and ...]];   drop keyspace K;
 *   create|update column family CF [with ATTR = V [and ...]]; drop column family CF;
 *   describe keyspace [K]; describe cluster; show keyspaces; show cluster name;
 *   show api version; help [TOPIC]; quit; exit;
 *   assume CF comparator|sub_comparator|validator|keys as TYPE;
 * A term (key, name, value) is 'string', integer, identifier, or a function
 * call: bytes('hex'), integer(n), long(n), utf8('s'), ascii('s'), lexicaluuid('u'),
 * lexicaluuid(), timeuuid('u'), timeuuid(). An attribute value is a scalar or
 * [{k: v, ...}, ...] (column_metadata, strategy_options).
 *
 * Memory: the tree lives in the caller's arena and points into it only; the source
 * text may be freed after parsing.
 */
#ifndef CF_TOOLS_CLI_H
#define CF_TOOLS_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/arena.h"
#include "util/status.h"

typedef enum cft_term_kind
{
	CFT_TERM_STRING,			/* 'text' */
	CFT_TERM_INTEGER,			/* 123, -5 */
	CFT_TERM_DECIMAL,			/* 0.5 */
	CFT_TERM_IDENT,				/* jsmith, UTF8Type */
	CFT_TERM_FUNC				/* long(123): text is the function name in lower case */
} cft_term_kind;

typedef struct cft_term
{
	cft_term_kind kind;
	const char *text;			/* NUL-terminated */
	size_t		len;
	const struct cft_term *arg; /* FUNC: the argument; NULL for timeuuid() */
	int			line;
	int			col;
} cft_term;

/* CF['key']['super']['col']: depth counts the bracketed terms after the key. */
typedef struct cft_path
{
	const char *cf;
	int			line;
	int			col;
	cft_term	key;
	int			depth;			/* 0, 1 or 2 */
	cft_term	sub[2];
} cft_path;

typedef struct cft_pair
{
	cft_term	key;
	cft_term	value;
} cft_pair;

typedef struct cft_hash
{
	cft_pair   *pairs;
	size_t		n_pairs;
	int			line;
	int			col;
} cft_hash;

/* name = value in a with-clause. */
typedef struct cft_attr
{
	const char *name;			/* as written */
	int			line;
	int			col;
	bool		is_list;		/* [{...}, ...] (a lone {...} is a list of one) */
	cft_term	value;			/* !is_list */
	cft_hash   *hashes;			/* is_list */
	size_t		n_hashes;
} cft_attr;

/* One expression of get ... where. op is a cf_t_index_operator. */
typedef struct cft_expr
{
	cft_term	column;
	int			op;
	cft_term	value;
} cft_expr;

typedef enum cft_stmt_kind
{
	CFT_CONNECT,
	CFT_USE,
	CFT_SET,
	CFT_GET,
	CFT_GET_WHERE,
	CFT_DEL,
	CFT_COUNT,
	CFT_LIST,
	CFT_TRUNCATE,
	CFT_CREATE_KEYSPACE,
	CFT_UPDATE_KEYSPACE,
	CFT_DROP_KEYSPACE,
	CFT_CREATE_CF,
	CFT_UPDATE_CF,
	CFT_DROP_CF,
	CFT_DESCRIBE_KEYSPACE,
	CFT_DESCRIBE_CLUSTER,
	CFT_SHOW_KEYSPACES,
	CFT_SHOW_CLUSTER_NAME,
	CFT_SHOW_API_VERSION,
	CFT_HELP,
	CFT_QUIT,
	CFT_ASSUME
} cft_stmt_kind;

/* What an assume statement sets the type of (in the order the parser knows them). */
typedef enum cft_assumed
{
	CFT_ASSUME_COMPARATOR,
	CFT_ASSUME_SUB_COMPARATOR,
	CFT_ASSUME_VALIDATOR,
	CFT_ASSUME_KEYS,
	CFT_ASSUME_COUNT_
} cft_assumed;

typedef struct cft_stmt
{
	cft_stmt_kind kind;
	int			line;			/* of the first token */
	int			col;
	const char *text;			/* the statement's source up to and with ';' */

	const char *host;			/* connect */
	int			port;
	const char *name;			/* use, keyspace and column family statements,
								 * describe keyspace (NULL: the current one),
								 * list/truncate/get-where's column family */
	const char *user;			/* connect, use (NULL: none) */
	const char *password;

	cft_path	path;			/* set, get, del, count */
	cft_term	value;			/* set */
	bool		has_ttl;
	int32_t		ttl;
	const char *as_type;		/* get ... as TYPE (NULL: none); assume's TYPE */
	cft_assumed assumed;		/* assume */

	cft_expr   *exprs;			/* get ... where */
	size_t		n_exprs;
	bool		has_limit;		/* get ... where, list */
	int32_t		limit;
	bool		has_start;		/* list CF[start:end] */
	cft_term	start;
	bool		has_end;
	cft_term	end;

	cft_attr   *attrs;			/* create/update keyspace/column family */
	size_t		n_attrs;

	const char *topic;			/* help: the words after help, lower case, one space
								 * apart; "" for plain help */
} cft_stmt;

/*
 * Parses every statement of src[0..len) into *stmts (*n of them, in the arena).
 * Errors: CF_ERR_INVALID with "line L, column C: expected ']' after the row key" and
 * the like, for the first mistake; nothing is returned for the other statements.
 */
cf_status  *cft_parse(const char *src, size_t len, cf_arena *arena,
					  cft_stmt **stmts, size_t *n);

/*
 * For the interactive shell: true when src holds only whole statements (it ends with
 * ';' outside strings and comments, or holds nothing but blanks and comments) or
 * holds a mistake the parser will report; false when more lines are needed.
 */
bool		cft_input_complete(const char *src, size_t len);

/*
 * CF_ERR_INVALID "line L, column C: <message>", the form of every mistake found in cli
 * text (by the parser, cli_schema.c and cli_types.c); cft_shell_run reads the
 * position back to name the input's line.
 */
cf_status  *cft_error_at(int line, int col, const char *fmt,...)
			__attribute__((format(printf, 3, 4)));

/* The statement kind's name for messages ("set", "create column family"). */
const char *cft_stmt_name(cft_stmt_kind k);

#endif							/* CF_TOOLS_CLI_H */
