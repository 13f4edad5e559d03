/*
 * tools/cmd_transfer.c — `colfam export` and `colfam import`: a column family to and
 * from sstable2json JSON (sstable_json.h), with progress on stderr.
 */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client/client.h"
#include "tools/commands.h"
#include "tools/connopt.h"
#include "tools/sstable_json.h"

#define DEFAULT_BATCH 500
#define ROW_PAGE 100
#define COL_PAGE 1000

typedef struct xfer_opts
{
	cft_connopt conn;
	const char *output;
	long		batch;
	bool		quiet;
} xfer_opts;

static void
usage(FILE *out, bool export)
{
	if (export)
		fprintf(out, "usage: colfam export -k KEYSPACE CF [-o FILE] [-h HOST] [-p PORT] "
				"[-u USER -P PASSWORD] [-q]\n"
				"  writes CF as sstable2json JSON (hex keys, names and values) to FILE or stdout\n");
	else
		fprintf(out, "usage: colfam import -k KEYSPACE CF FILE [--batch-size N] [-h HOST] "
				"[-p PORT] [-u USER -P PASSWORD] [-q]\n"
				"  reads sstable2json JSON (FILE or - for stdin) into CF, N columns per "
				"batch_mutate (default %d)\n", DEFAULT_BATCH);
}

/* Parses the options; returns -1 to go on, else the exit status. */
static int
parse(int argc, char **argv, bool export, xfer_opts *o, const char **cf, const char **file)
{
	static const struct option opts[] = {
		CFT_CONNOPT_LONG,
		{"output", required_argument, NULL, 'o'},
		{"batch-size", required_argument, NULL, 'b'},
		{"quiet", no_argument, NULL, 'q'},
		{"help", no_argument, NULL, '?' + 256},
		{NULL, 0, NULL, 0}
	};
	const char *name = export ? "export" : "import";
	int			c;

	memset(o, 0, sizeof(*o));
	cft_connopt_init(&o->conn);
	o->batch = DEFAULT_BATCH;
	optind = 1;
	opterr = 1;				/* getopt reports (another command may have silenced it) */
	while ((c = getopt_long(argc, argv, export ? "h:p:k:u:P:o:q" : "h:p:k:u:P:q", opts, NULL)) != -1)
	{
		int			taken = cft_connopt_take(&o->conn, c, optarg, name, stderr);
		char	   *end;

		if (taken < 0)
			return 2;
		if (taken)
			continue;
		switch (c)
		{
			case 'o':
				if (!export)
				{
					fprintf(stderr, "colfam import: -o/--output is an option of export only "
							"(import reads FILE)\n");
					return 2;
				}
				o->output = optarg;
				break;
			case 'b':
				if (export)
				{
					fprintf(stderr, "colfam export: --batch-size is an option of import only\n");
					return 2;
				}
				o->batch = strtol(optarg, &end, 10);
				if (*optarg == '\0' || *end != '\0' || o->batch < 1 || o->batch > 100000)
				{
					fprintf(stderr, "colfam %s: --batch-size must be 1-100000, not \"%s\"\n",
							name, optarg);
					return 2;
				}
				break;
			case 'q':
				o->quiet = true;
				break;
			case '?' + 256:
				usage(stdout, export);
				return 0;
			default:
				usage(stderr, export);
				return 2;
		}
	}
	if (o->conn.keyspace == NULL)
	{
		fprintf(stderr, "colfam %s: -k KEYSPACE is required\n", name);
		usage(stderr, export);
		return 2;
	}
	if (argc - optind != (export ? 1 : 2))
	{
		usage(stderr, export);
		return 2;
	}
	if (!cft_connopt_check(&o->conn, name, stderr))
		return 2;
	*cf = argv[optind];
	*file = export ? o->output : argv[optind + 1];
	return -1;
}

static int
run(int argc, char **argv, bool export)
{
	const char *name = export ? "export" : "import";
	xfer_opts	o;
	const char *cf,
			   *file;
	int			rc = parse(argc, argv, export, &o, &cf, &file);
	cfc_conn   *c = NULL;
	FILE	   *f = NULL;
	bool		super;
	cft_progress pr;
	cf_status  *st;

	if (rc >= 0)
		return rc;
	if ((st = cft_connopt_connect(&o.conn, &c)) == NULL)
		st = cft_cf_is_super(c, o.conn.keyspace, cf, &super);
	if (st == NULL)
	{
		if (export)
			f = file ? fopen(file, "w") : stdout;
		else
			f = strcmp(file, "-") == 0 ? stdin : fopen(file, "r");
		if (f == NULL)
			st = cf_status_errno(errno, "opening %s", file);
	}
	if (st == NULL)
	{
		cft_progress_init(&pr, o.quiet ? NULL : stderr, export ? "exported" : "imported");
		if (export)
			st = cft_export(c, cf, super, f, ROW_PAGE, COL_PAGE, &pr);
		else
			st = cft_import(c, cf, super, f, strcmp(file, "-") == 0 ? "stdin" : file,
							(int) o.batch, &pr);
		if (st == NULL)
			cft_progress_done(&pr);
	}
	if (f && f != stdout && f != stdin && fclose(f) != 0 && st == NULL)
		st = cf_status_errno(errno, "writing %s", file);
	cfc_free(c);
	if (st != NULL)
	{
		fprintf(stderr, "colfam %s: %s\n", name, cf_status_msg(st));
		cf_status_free(st);
		return 1;
	}
	return 0;
}

int
cft_cmd_export(int argc, char **argv)
{
	return run(argc, argv, true);
}

int
cft_cmd_import(int argc, char **argv)
{
	return run(argc, argv, false);
}
