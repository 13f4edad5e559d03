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
#include "tools/connopt.h"
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
			"  -h, --host   server host, or /path of its unix socket (default localhost)\n"
			"  -p, --port   server port (default 9160)\n");
}

enum
{
	O_UPDATE = 256, O_DRY_RUN, O_HELP
};

int
cft_cmd_schema(int argc, char **argv)
{
	/* -h and -p of the connection options: the schema is loaded without a login */
	static const struct option opts[] = {
		{"update", no_argument, NULL, O_UPDATE},
		{"dry-run", no_argument, NULL, O_DRY_RUN},
		{"host", required_argument, NULL, 'h'},
		{"port", required_argument, NULL, 'p'},
		{"help", no_argument, NULL, O_HELP},
		{NULL, 0, NULL, 0}
	};
	cft_connopt co;
	bool		update = false,
				dry_run = false;
	int			c;
	cf_arena   *arena;
	cf_t_ks_def *defs;
	size_t		n;
	cf_status  *st;
	cft_backend b;
	int			rc = 0;

	cft_connopt_init(&co);
	optind = 1;
	opterr = 1;				/* getopt reports (another command may have silenced it) */
	while ((c = getopt_long(argc, argv, "h:p:", opts, NULL)) != -1)
	{
		int			taken = cft_connopt_take(&co, c, optarg, "schema", stderr);

		if (taken < 0)
			return 2;
		if (taken)
			continue;
		switch (c)
		{
			case O_UPDATE:
				update = true;
				break;
			case O_DRY_RUN:
				dry_run = true;
				break;
			case O_HELP:
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
	if ((st = cft_backend_connect(co.host, co.port, &b)) != NULL)
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
