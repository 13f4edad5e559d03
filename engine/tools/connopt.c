/*
 * tools/connopt.c — the shared connection options and connect (connopt.h).
 */
#include "tools/connopt.h"

#include <stdlib.h>
#include <string.h>

void
cft_connopt_init(cft_connopt *o)
{
	memset(o, 0, sizeof(*o));
	o->host = "localhost";
	o->port = CFC_DEFAULT_PORT;
}

int
cft_connopt_take(cft_connopt *o, int c, const char *arg, const char *cmd, FILE *err)
{
	char	   *end;
	long		v;

	switch (c)
	{
		case 'h':
			o->host = arg;
			break;
		case 'p':
			v = strtol(arg, &end, 10);
			if (*arg == '\0' || *end != '\0' || v < 1 || v > 65535)
			{
				fprintf(err, "colfam %s: port must be 1-65535, not \"%s\"\n", cmd, arg);
				return -1;
			}
			o->port = (int) v;
			o->port_given = true;
			break;
		case 'k':
			o->keyspace = arg;
			break;
		case 'u':
			o->user = arg;
			break;
		case 'P':
			o->password = arg;
			break;
		default:
			return 0;
	}
	o->given = true;
	return 1;
}

bool
cft_connopt_check(const cft_connopt *o, const char *cmd, FILE *err)
{
	if (o->password && !o->user)
	{
		fprintf(err, "colfam %s: -P needs -u USER\n", cmd);
		return false;
	}
	if (o->port_given && o->host[0] == '/')
	{
		fprintf(err, "colfam %s: -p does not apply to the unix socket %s; drop -p, or give "
				"-h a host name\n", cmd, o->host);
		return false;
	}
	return true;
}

cf_status *
cft_connopt_connect(const cft_connopt *o, cfc_conn **out)
{
	char		hosts[600];
	cfc_options co;
	cf_status  *st;
	int			n;

	*out = NULL;

	/*
	 * one entry of libcolfam's host list: a unix socket's path as it is (the port does
	 * not apply), an IPv6 literal with brackets before ":port"
	 */
	if (o->host[0] == '/')
		n = snprintf(hosts, sizeof(hosts), "%s", o->host);
	else if (strchr(o->host, ':') != NULL && o->host[0] != '[')
		n = snprintf(hosts, sizeof(hosts), "[%s]:%d", o->host, o->port);
	else
		n = snprintf(hosts, sizeof(hosts), "%s:%d", o->host, o->port);
	if (n < 0 || (size_t) n >= sizeof(hosts))
		return cf_status_make(CF_ERR_INVALID, "host name too long (%zu bytes)", strlen(o->host));
	memset(&co, 0, sizeof(co));
	co.hosts = hosts;
	co.keyspace = o->keyspace;
	co.username = o->user;
	co.password = o->password;
	if ((st = cfc_new(&co, out)) != NULL)
		return st;
	if ((st = cfc_connect(*out)) != NULL)
	{
		cfc_free(*out);
		*out = NULL;
	}
	return st;
}
