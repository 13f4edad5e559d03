/*
 * tools/cmd_schema.c — `colfam schema load FILE`: reads storage-conf.xml or
 * schema.json (schema_load.h) and creates the keyspaces on a server, or with
 * --dry-run prints them as cassandra-cli statements without connecting.
 */
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/backend.h"
#include "tools/commands.h"
#include "tools/schema_load.h"

static void
usage(FILE *out)
{
	fprintf(out,
			"usage: colfam schema load FILE [--update] [--dry-run] [-h HOST] [-p PORT]\n"
			"\n"
			"  FILE         storage-conf.xml (<Keyspaces><Keyspace Name=...>) or schema.json\n"
			"  --update     update keyspaces that exist (and add or update their column\n"
			"               families) instead of failing\n"
			"  --dry-run    print the schema as cassandra-cli statements; do not connect\n"
			"  -h, --host   server host (default localhost)\n"
			"  -p, --port   server port (default 9160)\n");
}

int
cft_cmd_schema(int argc, char **argv)
{
	static const struct option opts[] = {
		{"update", no_argument, NULL, 'u'},
		{"dry-run", no_argument, NULL, 'n'},
		{"host", required_argument, NULL, 'h'},
		{"port", required_argument, NULL, 'p'},
		{"help", no_argument, NULL, '?' + 256},
		{NULL, 0, NULL, 0}
	};
	const char *host = "localhost";
	long		port = 9160;
	bool		update = false,
				dry_run = false;
	int			c;
	cf_arena   *arena;
	cf_t_ks_def *defs;
	size_t		n;
	cf_status  *st;
	cft_backend b;
	int			rc = 0;

	optind = 1;
	while ((c = getopt_long(argc, argv, "h:p:", opts, NULL)) != -1)
	{
		char	   *end;

		switch (c)
		{
			case 'u':
				update = true;
				break;
			case 'n':
				dry_run = true;
				break;
			case 'h':
				host = optarg;
				break;
			case 'p':
				port = strtol(optarg, &end, 10);
				if (*optarg == '\0' || *end != '\0' || port < 1 || port > 65535)
				{
					fprintf(stderr, "colfam schema: port must be 1-65535, not \"%s\"\n", optarg);
					return 2;
				}
				break;
			case '?' + 256:
				usage(stdout);
				return 0;
			default:
				usage(stderr);
				return 2;
		}
	}
	if (argc - optind != 2 || strcmp(argv[optind], "load") != 0)
	{
		usage(stderr);
		return 2;
	}
	arena = cf_arena_new(0);
	if (arena == NULL)
	{
		fprintf(stderr, "colfam schema: out of memory\n");
		return 1;
	}
	if ((st = cft_schema_load_file(argv[optind + 1], arena, &defs, &n)) != NULL)
	{
		fprintf(stderr, "colfam schema: %s\n", cf_status_msg(st));
		cf_status_free(st);
		cf_arena_free(arena);
		return 1;
	}
	if (dry_run)
	{
		for (size_t i = 0; i < n; i++)
			cft_schema_print_cli(stdout, &defs[i]);
		cf_arena_free(arena);
		return 0;
	}
	if ((st = cft_backend_connect(host, (int) port, &b)) != NULL)
	{
		fprintf(stderr, "colfam schema: %s\n", cf_status_msg(st));
		cf_status_free(st);
		cf_arena_free(arena);
		return 1;
	}
	for (size_t i = 0; i < n && rc == 0; i++)
		if ((st = cft_schema_apply(&b, &defs[i], update, stdout)) != NULL)
		{
			fprintf(stderr, "colfam schema: %s\n", cf_status_msg(st));
			cf_status_free(st);
			rc = 1;
		}
	cft_backend_close(&b);
	cf_arena_free(arena);
	return rc;
}
