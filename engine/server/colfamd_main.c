/*
 * server/colfamd_main.c — colfamd, the column-family store node.
 *
 * Parses and validates the command line. The network server (config file, event
 * loops, the Thrift service) arrives with the colfamd issue; until then colfamd says
 * so and exits non-zero rather than pretend to serve.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "util/crc32c.h"
#include "util/log.h"
#include "util/version.h"

static void
usage(FILE *out)
{
	fprintf(out,
			"usage: colfamd [-c FILE] [--log-level LEVEL]\n"
			"\n"
			"  -c, --config FILE      configuration file (YAML, Cassandra 0.7 key names)\n"
			"  -l, --log-level LEVEL  %s (default info)\n"
			"  -V, --version          print the version and exit\n"
			"  -h, --help             print this help and exit\n",
			cf_log_level_names());
}

int
main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"config", required_argument, NULL, 'c'},
		{"log-level", required_argument, NULL, 'l'},
		{"version", no_argument, NULL, 'V'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	const char *config = NULL;
	cf_log_level level;
	int			opt;

	while ((opt = getopt_long(argc, argv, "c:l:Vh", longopts, NULL)) != -1)
	{
		switch (opt)
		{
			case 'c':
				config = optarg;
				break;
			case 'l':
				if (!cf_log_level_parse(optarg, &level))
				{
					fprintf(stderr, "colfamd: invalid log level \"%s\"\n"
							"hint: valid levels are %s\n", optarg, cf_log_level_names());
					return 2;
				}
				cf_log_set_level(level);
				break;
			case 'V':
				printf("colfamd %s (Thrift API %s, crc32c %s)\n",
					   CF_VERSION, CF_THRIFT_API_VERSION, cf_crc32c_impl());
				return 0;
			case 'h':
				usage(stdout);
				return 0;
			default:
				usage(stderr);
				return 2;
		}
	}
	if (optind < argc)
	{
		fprintf(stderr, "colfamd: unexpected argument \"%s\"\n", argv[optind]);
		usage(stderr);
		return 2;
	}
	if (config && access(config, R_OK) != 0)
	{
		perror(config);
		fprintf(stderr, "colfamd: cannot read the configuration file \"%s\"\n", config);
		return 1;
	}

	cf_log_error("colfamd", "this build cannot serve clients yet: the network server "
				 "is not implemented");
	return 1;
}
