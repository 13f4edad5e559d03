/*
 * tests/fuzz/fuzz_cli.c — libFuzzer target for the colfam shell's parser (tools/cli.h):
 * cassandra-cli text comes from files and pipes a user did not write, so whatever the
 * bytes, the parser must answer without a crash, a leak or undefined behaviour.
 *
 * Checked for every input:
 *  - cft_parse either parses or fails with CF_ERR_INVALID "line L, column C: ..." whose
 *    L is a line of the input (cft_shell_run reads L back to name the line);
 *  - every parsed statement has a kind with a name (not cft_stmt_name's "?"), a line
 *    of the input, and source text that is a non-empty part of the input, ending in ';';
 *  - parsing the same bytes again gives the same outcome (no hidden state);
 *  - cft_input_complete answers (the interactive shell calls it on every line).
 *
 * The corpus starts from the seeds' .cli scripts (tests/run.sh fuzz copies them).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/cli.h"
#include "util/arena.h"

int			LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void
die(const char *what, const char *detail)
{
	fprintf(stderr, "fuzz_cli: %s%s%s\n", what, detail ? ": " : "", detail ? detail : "");
	abort();
}

/* Lines of src[0..len): newlines + 1. */
static int
count_lines(const char *src, size_t len)
{
	int			n = 1;

	for (size_t i = 0; i < len; i++)
		n += src[i] == '\n';
	return n;
}

/* Parses src; the outcome as "ok N" or the error message, in out. */
static void
parse_once(const char *src, size_t len, int lines, char *out, size_t n)
{
	cf_arena   *a = cf_arena_new(0);
	cft_stmt   *stmts = NULL;
	size_t		n_stmts = 0;
	cf_status  *s;

	if (a == NULL)
		die("out of memory", NULL);
	s = cft_parse(src, len, a, &stmts, &n_stmts);
	if (s != NULL)
	{
		const char *msg = cf_status_msg(s);
		int			line = 0,
					col = 0;

		if (cf_status_code(s) != CF_ERR_INVALID)
			die("a parse error that is not CF_ERR_INVALID", msg);
		if (sscanf(msg, "line %d, column %d:", &line, &col) != 2)
			die("a parse error without its line and column", msg);
		if (line < 1 || line > lines || col < 1)
			die("a parse error outside the input", msg);
		snprintf(out, n, "%s", msg);
		cf_status_free(s);
		cf_arena_free(a);
		return;
	}
	for (size_t i = 0; i < n_stmts; i++)
	{
		const cft_stmt *st = &stmts[i];

		const char *name = cft_stmt_name(st->kind);
		size_t		tl = st->text ? strlen(st->text) : 0;

		if (strcmp(name, "?") == 0)
			die("a statement kind without a name", NULL);
		if (st->line < 1 || st->line > lines)
			die("a statement outside the input", name);
		if (tl == 0 || st->text[tl - 1] != ';' || memmem(src, len, st->text, tl) == NULL)
			die("a statement's text that is not a part of the input up to its ';'", name);
	}
	snprintf(out, n, "ok %zu", n_stmts);
	cf_arena_free(a);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* the shell hands the parser C strings: no NUL inside */
	char	   *src = malloc(size + 1);
	char		first[512];
	char		second[512];
	int			lines;

	if (src == NULL)
		return 0;
	memcpy(src, data, size);
	src[size] = '\0';
	size = strlen(src);
	lines = count_lines(src, size);

	parse_once(src, size, lines, first, sizeof(first));
	parse_once(src, size, lines, second, sizeof(second));
	if (strcmp(first, second) != 0)
		die("two parses of the same input differ", first);
	(void) cft_input_complete(src, size);
	free(src);
	return 0;
}
