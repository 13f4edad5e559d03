/*
 * tools/cli_lex.c — splits cassandra-cli statements into tokens (see cli_lex.h).
 *
 * The whole input is tokenised up front: statements are short (a batch file is read
 * whole anyway), and a token array lets the parser look ahead freely.
 */
#include "tools/cli_lex.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

typedef struct lexer
{
	const char *src;
	size_t		len;
	size_t		pos;
	int			line;
	size_t		line_start;		/* offset of the current line's first byte */
	cf_arena   *arena;
} lexer;

static int
col_of(const lexer *lx, size_t off)
{
	return (int) (off - lx->line_start) + 1;
}

static void
advance(lexer *lx)
{
	if (lx->src[lx->pos] == '\n')
	{
		lx->line++;
		lx->line_start = lx->pos + 1;
	}
	lx->pos++;
}

static bool
is_word_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		c == '_' || c == '-';
}

static bool
is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* Skips blanks and comments; an error for an unterminated block comment. */
static cf_status *
skip_space(lexer *lx)
{
	while (lx->pos < lx->len)
	{
		char		c = lx->src[lx->pos];
		char		n = lx->pos + 1 < lx->len ? lx->src[lx->pos + 1] : '\0';

		if (c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v')
			advance(lx);
		else if ((c == '-' && n == '-') || (c == '/' && n == '/'))
		{
			while (lx->pos < lx->len && lx->src[lx->pos] != '\n')
				advance(lx);
		}
		else if (c == '/' && n == '*')
		{
			int			line = lx->line;
			int			col = col_of(lx, lx->pos);

			advance(lx);
			advance(lx);
			for (;;)
			{
				if (lx->pos + 1 >= lx->len)
					return cf_status_make(CF_ERR_INVALID,
										  "line %d, column %d: comment not closed",
										  line, col);
				if (lx->src[lx->pos] == '*' && lx->src[lx->pos + 1] == '/')
				{
					advance(lx);
					advance(lx);
					break;
				}
				advance(lx);
			}
		}
		else
			break;
	}
	return NULL;
}

/* Reads a quoted string at lx->pos into tok. */
static cf_status *
lex_string(lexer *lx, cft_tok *tok)
{
	char		quote = lx->src[lx->pos];
	char	   *out;
	size_t		n = 0;

	/* The decoded text is never longer than the rest of the input. */
	out = cf_arena_alloc(lx->arena, lx->len - lx->pos + 1);
	if (out == NULL)
		return cf_status_make(CF_ERR_NO_MEMORY, "out of memory reading a string");
	advance(lx);
	for (;;)
	{
		char		c;

		if (lx->pos >= lx->len)
			return cf_status_make(CF_ERR_INVALID,
								  "line %d, column %d: string not closed (missing %c)",
								  tok->line, tok->col, quote);
		c = lx->src[lx->pos];
		if (c == '\0')
			return cf_status_make(CF_ERR_INVALID,
								  "line %d, column %d: NUL byte inside a string",
								  lx->line, col_of(lx, lx->pos));
		if (c == quote)
		{
			if (lx->pos + 1 < lx->len && lx->src[lx->pos + 1] == quote)
			{
				out[n++] = quote;
				advance(lx);
				advance(lx);
				continue;
			}
			advance(lx);
			break;
		}
		if (c == '\\' && lx->pos + 1 < lx->len)
		{
			char		e = lx->src[lx->pos + 1];

			switch (e)
			{
				case 'n':
					out[n++] = '\n';
					break;
				case 't':
					out[n++] = '\t';
					break;
				case 'r':
					out[n++] = '\r';
					break;
				case '\\':
				case '\'':
				case '"':
					out[n++] = e;
					break;
				default:
					return cf_status_make(CF_ERR_INVALID,
										  "line %d, column %d: unknown escape \\%c in a string",
										  lx->line, col_of(lx, lx->pos),
										  (e >= 0x20 && e < 0x7f) ? e : '?');
			}
			advance(lx);
			advance(lx);
			continue;
		}
		out[n++] = c;
		advance(lx);
	}
	out[n] = '\0';
	tok->kind = CFT_TOK_STRING;
	tok->text = out;
	tok->len = n;
	return NULL;
}

cf_status *
cft_lex(const char *src, size_t len, cf_arena *arena, cft_tok **out, size_t *n_out)
{
	lexer		lx = {src, len, 0, 1, 0, arena};
	cft_tok    *toks = NULL;
	size_t		n = 0,
				cap = 0;
	cf_status  *st;

	for (;;)
	{
		cft_tok		tok;
		char		c;

		if ((st = skip_space(&lx)) != NULL)
			return st;
		if (n == cap)
		{
			size_t		ncap = cap ? cap * 2 : 64;
			cft_tok    *nt = cf_arena_alloc(arena, ncap * sizeof(cft_tok));

			if (nt == NULL)
				return cf_status_make(CF_ERR_NO_MEMORY, "out of memory tokenising");
			if (n)
				memcpy(nt, toks, n * sizeof(cft_tok));
			toks = nt;
			cap = ncap;
		}
		memset(&tok, 0, sizeof(tok));
		tok.off = lx.pos;
		tok.line = lx.line;
		tok.col = col_of(&lx, lx.pos);
		if (lx.pos >= lx.len)
		{
			tok.kind = CFT_TOK_EOF;
			tok.text = "";
			tok.end = lx.pos;
			toks[n++] = tok;
			break;
		}
		c = src[lx.pos];
		if (c == '\'' || c == '"')
		{
			if ((st = lex_string(&lx, &tok)) != NULL)
				return st;
		}
		else if (is_word_char(c) &&
				 !(c == '-' && !(lx.pos + 1 < len && is_digit(src[lx.pos + 1]))))
		{
			size_t		start = lx.pos;
			size_t		i;
			bool		digits = true;

			advance(&lx);
			while (lx.pos < len && is_word_char(src[lx.pos]))
				advance(&lx);
			for (i = start + (c == '-'); i < lx.pos; i++)
				if (!is_digit(src[i]))
					digits = false;
			tok.kind = digits ? CFT_TOK_INTEGER : CFT_TOK_IDENT;
			/* digits '.' digits is a decimal (0.1); "127.0.0.1" is rebuilt by the parser */
			if (digits && lx.pos + 1 < len && src[lx.pos] == '.' && is_digit(src[lx.pos + 1]))
			{
				advance(&lx);
				while (lx.pos < len && is_digit(src[lx.pos]))
					advance(&lx);
				tok.kind = CFT_TOK_DECIMAL;
			}
			tok.text = cf_arena_strndup(arena, src + start, lx.pos - start);
			tok.len = lx.pos - start;
		}
		else
		{
			static const char single[] = ";[](){}=,:/.<>";
			size_t		start = lx.pos;

			if ((unsigned char) c >= 0x80)
				return cf_status_make(CF_ERR_INVALID,
									  "line %d, column %d: unexpected non-ASCII byte 0x%02x: "
									  "unquoted names are A-Z, a-z, 0-9, _ and -; put other "
									  "text in quotes ('...')",
									  tok.line, tok.col, (unsigned char) c);
			if (c == '\0' || strchr(single, c) == NULL)
				return cf_status_make(CF_ERR_INVALID,
									  "line %d, column %d: unexpected character '%c'%s",
									  tok.line, tok.col,
									  (c >= 0x20 && c < 0x7f) ? c : '?',
									  c == '-' ? " (a lone '-'; strings need quotes)" : "");
			advance(&lx);
			if ((c == '<' || c == '>') && lx.pos < len && src[lx.pos] == '=')
				advance(&lx);
			tok.kind = CFT_TOK_PUNCT;
			tok.text = cf_arena_strndup(arena, src + start, lx.pos - start);
			tok.len = lx.pos - start;
		}
		if (tok.text == NULL)
			return cf_status_make(CF_ERR_NO_MEMORY, "out of memory tokenising");
		tok.end = lx.pos;
		toks[n++] = tok;
	}
	*out = toks;
	*n_out = n;
	return NULL;
}
