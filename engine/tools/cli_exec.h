/*
 * tools/cli_exec.h — runs cassandra-cli statements (tools/cli.h) against a server
 * through the tool's backend (tools/backend.h), printing what cassandra-cli 0.7
 * printed:
 *   set            Value inserted.
 *   get            => (column=NAME, value=VALUE, timestamp=T[, ttl=N]) per column, or
 *                  => (super_column=NAME,\n     (column=...)\n     (column=...)) and
 *                  "Returned N results."; one named column prints alone; a missing
 *                  one prints "Value was not found".
 *   get ... where, list
 *                  -------------------\nRowKey: KEY\n=> (...) per row, then
 *                  "N Row(s) Returned." (list without limit first says
 *                  "Using default limit of 100").
 *   del            "row removed." / "column removed."
 *   count          "N columns"
 *   schema changes "Keyspace created." ... "Column family dropped."
 *   describe / show  as 0.7's describe keyspace, show keyspaces, show cluster name,
 *                  show api version.
 * Names are shown under the CF's comparator (sub-columns under its subcomparator) and
 * values under the column's validation class (column_metadata), else the CF's
 * default_validation_class, else BytesType (hex): cli_types.h's cft_bytes_format.
 * assume CF comparator|sub_comparator|validator|keys as TYPE ("Assumption for column
 * family 'CF' added successfully.") overrides the comparator, subcomparator, default
 * validation class or the keys' type (printable text, else hex) for printing and for
 * reading plain terms, for the rest of the session. The current keyspace's definition
 * is fetched with describe_keyspace and cached until a schema statement or use.
 *
 * Whole rows stream: get CF['key'] reads its columns 1000 a time (get_slice paging),
 * printing as it goes.
 *
 * Errors: every statement's failure is a cf_status; cft_shell_run prints it with the
 * statement's line ("line 3: set: ...") and stops unless told to continue.
 */
#ifndef CF_TOOLS_CLI_EXEC_H
#define CF_TOOLS_CLI_EXEC_H

#include <stdbool.h>
#include <stdio.h>

#include "tools/backend.h"
#include "tools/cli.h"
#include "util/status.h"

/* Makes a connection (cft_backend_connect, or a test's). */
typedef cf_status *(*cft_connect_fn) (const char *host, int port, cft_backend *out);

typedef struct cft_shell_options
{
	FILE	   *out;			/* results */
	FILE	   *err;			/* errors */
	cft_connect_fn connect;		/* NULL: cft_backend_connect */
} cft_shell_options;

typedef struct cft_shell cft_shell;

/* A new unconnected shell; NULL when out of memory. */
cft_shell  *cft_shell_new(const cft_shell_options *opt);
void		cft_shell_free(cft_shell *sh);

/*
 * Executes one statement. *quit (may be NULL) becomes true for quit/exit. Errors are
 * the server's (cft_call's) and the tool's own (CF_ERR_INVALID: a value that does not
 * fit its type, a super column path on a standard CF, no keyspace chosen).
 */
cf_status  *cft_shell_exec(cft_shell *sh, const cft_stmt *s, bool *quit);

/*
 * Parses src[0..len) (statements from line first_line of the input) and executes each
 * statement. On an error: prints "NAME:LINE: message" to err (name: the input's name,
 * e.g. the file, or NULL for just "line LINE: ...") and stops, unless cont. Returns the
 * number of statements that failed (a parse error counts as one and always stops).
 */
int			cft_shell_run(cft_shell *sh, const char *src, size_t len, const char *name,
						  int first_line, bool cont, bool *quit);

/* "[user@Keyspace] ": default without a login, unknown without a keyspace. */
const char *cft_shell_prompt(cft_shell *sh);

#endif							/* CF_TOOLS_CLI_EXEC_H */
