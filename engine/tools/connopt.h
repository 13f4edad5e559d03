/*
 * tools/connopt.h — the connection options the colfam subcommands share and the
 * connect that follows them: -h/--host, -p/--port, -k/--keyspace, -u/--username,
 * -P/--password.
 *
 * A command lists CFT_CONNOPT_LONG in its getopt_long table (and the letters it takes
 * in its short string), hands every option to cft_connopt_take first, and after the
 * loop calls cft_connopt_check. Every command thus takes the same spellings and
 * refuses a bad port or a password without a user with the same message.
 *
 * Thread safety: none needed (pure functions of their arguments, and one connection
 * made per call).
 */
#ifndef CF_TOOLS_CONNOPT_H
#define CF_TOOLS_CONNOPT_H

#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>

#include "client/client.h"
#include "util/status.h"

typedef struct cft_connopt
{
	const char *host;			/* [localhost]; "/path": a unix socket */
	int			port;			/* [CFC_DEFAULT_PORT] */
	bool		given;			/* any of -h, -p, -k, -u, -P was given */
	bool		port_given;		/* -p was given */
	const char *keyspace;		/* NULL: none */
	const char *user;			/* NULL: no login */
	const char *password;
} cft_connopt;

/* The getopt_long rows of the five options (values 'h', 'p', 'k', 'u', 'P'). */
#define CFT_CONNOPT_LONG \
	{"host", required_argument, NULL, 'h'}, \
	{"port", required_argument, NULL, 'p'}, \
	{"keyspace", required_argument, NULL, 'k'}, \
	{"username", required_argument, NULL, 'u'}, \
	{"password", required_argument, NULL, 'P'}

/* The defaults: localhost, CFC_DEFAULT_PORT, nothing else. */
void		cft_connopt_init(cft_connopt *o);

/*
 * Takes option c with its argument arg when c is one of the five. Returns 1 when taken,
 * 0 when c is not a connection option, -1 when the value is bad (a port outside
 * 1-65535; "colfam CMD: port must be 1-65535, not "ARG"" on err).
 */
int			cft_connopt_take(cft_connopt *o, int c, const char *arg, const char *cmd,
							 FILE *err);

/*
 * After the options: false (the message on err) when -P came without -u, or -p with a
 * unix socket's path for -h (a port means nothing there).
 */
bool		cft_connopt_check(const cft_connopt *o, const char *cmd, FILE *err);

/*
 * A libcolfam connection to o's host and port, with its keyspace and login, connected
 * now so a wrong address is reported before any work (libcolfam's CF_ERR_IO naming
 * host:port, CF_ERR_INVALID for a bad or overlong host). An IPv6 literal host needs no
 * brackets; a host that begins with '/' is colfamd's unix socket (rpc_unix_socket),
 * and the port is then not used. *out is NULL on error.
 */
cf_status  *cft_connopt_connect(const cft_connopt *o, cfc_conn **out);

#endif							/* CF_TOOLS_CONNOPT_H */
