/*
 * tools/colfam_main.c — colfam, the command-line tool: dispatches subcommands.
 *
 * Each subcommand is a row of the table below; the shell, node admin, schema
 * loading, import/export and stress join it as they are built.
 */
#include <stdio.h>
#include <string.h>

#include "tools/commands.h"
#include "util/crc32c.h"
#include "util/version.h"

typedef struct command
{
	const char *name;
	const char *summary;
	int			(*run) (int argc, char **argv);
} command;

static int	cmd_help(int argc, char **argv);

static int
cmd_version(int argc, char **argv)
{
	(void) argc;
	(void) argv;
	printf("colfam %s (Thrift API %s, crc32c %s)\n",
		   CF_VERSION, CF_THRIFT_API_VERSION, cf_crc32c_impl());
	return 0;
}

static const command commands[] = {
	{"help", "list the commands", cmd_help},
	{"version", "print the version", cmd_version},
	{"shell", "the cassandra-cli 0.7 shell (interactive, -f FILE or --batch)", cft_cmd_shell},
	{"export", "write a column family as sstable2json JSON", cft_cmd_export},
	{"import", "load sstable2json JSON into a column family", cft_cmd_import},
	{"schema", "load a storage-conf.xml or schema.json schema", cft_cmd_schema},
	{"stress", "load generator like Cassandra 0.7's contrib/stress", cft_cmd_stress},
	{"status", "cluster, API version, partitioner, snitch, keyspaces", cft_cmd_status},
	{"info", "status and every keyspace's replication and CFs", cft_cmd_status},
	{"ring", "ring ranges and endpoints per keyspace", cft_cmd_status},
	{"flush", "flush memtables of a keyspace or CFs (-k KS [CF...])", cft_cmd_flush},
	{"compact", "compact a keyspace or CFs (-k KS [CF...] [--major])", cft_cmd_compact},
	{"cfstats", "statistics of every CF (-k KS [CF...])", cft_cmd_cfstats},
	{"snapshot", "hard-link the SSTables of keyspaces as a snapshot ([-k KS]... [-t NAME])",
	cft_cmd_snapshot},
	{"listsnapshots", "the snapshots on the node: files and bytes ([-k KS]...)", cft_cmd_snapshot},
	{"clearsnapshot", "remove snapshots ([-k KS]... [-t NAME])", cft_cmd_snapshot},
};

#define NCOMMANDS (sizeof(commands) / sizeof(commands[0]))

static void
list_commands(FILE *out)
{
	fprintf(out, "usage: colfam COMMAND [ARGS]\n\ncommands:\n");
	for (size_t i = 0; i < NCOMMANDS; i++)
		fprintf(out, "  %-10s %s\n", commands[i].name, commands[i].summary);
}

static int
cmd_help(int argc, char **argv)
{
	(void) argc;
	(void) argv;
	list_commands(stdout);
	return 0;
}

int
main(int argc, char **argv)
{
	const char *name;

	if (argc < 2)
	{
		list_commands(stderr);
		return 2;
	}
	name = argv[1];
	if (strcmp(name, "--help") == 0 || strcmp(name, "-h") == 0)
		name = "help";
	else if (strcmp(name, "--version") == 0 || strcmp(name, "-V") == 0)
		name = "version";

	for (size_t i = 0; i < NCOMMANDS; i++)
		if (strcmp(name, commands[i].name) == 0)
			return commands[i].run(argc - 1, argv + 1);

	fprintf(stderr, "colfam: unknown command \"%s\"\nhint: valid commands are", name);
	for (size_t i = 0; i < NCOMMANDS; i++)
		fprintf(stderr, "%s %s", i ? "," : "", commands[i].name);
	fputc('\n', stderr);
	return 2;
}
