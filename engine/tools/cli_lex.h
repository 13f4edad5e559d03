/*
 * tools/cli_lex.h — the lexer of the cassandra-cli (0.7) language: private to the
 * parser (cli_parse.c) and the shell's "is this statement complete?" check.
 *
 * Tokens: identifiers ([A-Za-z0-9_][A-Za-z0-9_-]*, keywords are identifiers the
 * parser compares without case), integers (-?digits), decimals (-?digits.digits),
 * strings ('...' with \' \\ \n \t escapes and '' for a quote), and punctuation
 * ; [ ] ( ) { } = , : / . < > <= >=. Comments run from "--" or "//" to the end of
 * the line, or between "/ *" and "* /". Every token keeps its byte offset, line and
 * column (both from 1, the column counted in bytes) for error messages.
 *
 * Thread safety: none needed; a lexer belongs to one caller.
 */
#ifndef CF_TOOLS_CLI_LEX_H
#define CF_TOOLS_CLI_LEX_H

#include <stddef.h>

#include "util/arena.h"
#include "util/status.h"

typedef enum cft_tok_kind
{
	CFT_TOK_EOF = 0,
	CFT_TOK_IDENT,
	CFT_TOK_INTEGER,
	CFT_TOK_DECIMAL,
	CFT_TOK_STRING,
	CFT_TOK_PUNCT				/* text holds the one or two characters */
} cft_tok_kind;

typedef struct cft_tok
{
	cft_tok_kind kind;
	const char *text;			/* NUL-terminated, in the arena; a string's decoded bytes */
	size_t		len;			/* bytes of text (a string may hold NULs: no, see below) */
	size_t		off;			/* byte offset of the token's first character */
	size_t		end;			/* byte offset just past the token */
	int			line;
	int			col;
} cft_tok;

/*
 * Splits src[0..len) into tokens, allocated in arena; *out gets the array, ending
 * with one CFT_TOK_EOF token. Errors (CF_ERR_INVALID, "line L, column C: ..."): an
 * unterminated string or comment, a character the language does not use. Strings
 * cannot hold NUL bytes (bytes('00') writes one).
 */
cf_status  *cft_lex(const char *src, size_t len, cf_arena *arena,
					cft_tok **out, size_t *n_out);

#endif							/* CF_TOOLS_CLI_LEX_H */
