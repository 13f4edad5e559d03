/*
 * tools/cmd_shell.c — `colfam shell`: the cassandra-cli 0.7 language (cli.h) run by
 * cli_exec.c. Interactive with readline (history in ~/.colfam_history) when stdin is
 * a terminal; otherwise, or with --batch or -f FILE, statements are read line by line
 * and each completed statement runs as soon as it is read, so a script's earlier
 * statements take effect even when a later one is wrong. In batch mode the first
 * failure stops the run with its line number (--continue goes on), and the exit
 * status is 1 when any statement failed.
 */
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <readline/history.h>
#include <readline/readline.h>

#include "tools/cli_exec.h"
#include "tools/commands.h"
#include "tools/connopt.h"

#define HISTORY_FILE ".colfam_history"
#define HISTORY_LINES 500

static void
usage(FILE *out)
{
	fprintf(out,
			"usage: colfam shell [-h HOST] [-p PORT] [-k KEYSPACE] [-u USER -P PASSWORD]\n"
			"                    [-f FILE | --batch] [--continue]\n"
			"\n"
			"  -h, --host       connect to HOST at start (default localhost when -p, -k\n"
			"                   or -u is given; otherwise start unconnected: connect H/P;)\n"
			"  -p, --port       port (default 9160)\n"
			"  -k, --keyspace   use KEYSPACE at start\n"
			"  -u, --username   log in as USER (with -P PASSWORD)\n"
			"  -f, --file       run the statements of FILE, then exit\n"
			"  -B, --batch      read statements from stdin without a prompt, even on a terminal\n"
			"      --continue   in batch mode, go on after a failed statement\n"
			"\n"
			"Statements are cassandra-cli 0.7's; type help; for the list.\n");
}

/*
 * Reads statements line by line from in and runs each as soon as it is complete.
 * Returns the number of failed statements; stops at the first unless cont.
 */
static int
run_stream(cft_shell *sh, FILE *in, const char *name, bool cont, bool *quit)
{
	char	   *line = NULL;
	size_t		cap = 0;
	ssize_t		n;
	char	   *buf = NULL;
	size_t		len = 0,
				bcap = 0;
	int			lineno = 0,
				first = 1,
				failed = 0;

	while (!*quit && (n = getline(&line, &cap, in)) >= 0)
	{
		lineno++;
		if (len == 0)
			first = lineno;
		if (len + (size_t) n + 1 > bcap)
		{
			size_t		nc = (len + (size_t) n + 1) * 2;
			char	   *nb = realloc(buf, nc);

			if (nb == NULL)
			{
				fprintf(stderr, "colfam shell: out of memory\n");
				failed++;
				break;
			}
			buf = nb;
			bcap = nc;
		}
		memcpy(buf + len, line, (size_t) n);
		len += (size_t) n;
		buf[len] = '\0';
		if (!cft_input_complete(buf, len))
			continue;
		failed += cft_shell_run(sh, buf, len, name, first, cont, quit);
		len = 0;
		if (failed && !cont)
			break;
	}
	if (len > 0 && !*quit && (failed == 0 || cont))
	{
		/* what is left lacks its ';': the parser says so, with the line */
		failed += cft_shell_run(sh, buf, len, name, first, cont, quit);
	}
	free(line);
	free(buf);
	return failed;
}

static void
history_path(char *out, size_t n)
{
	const char *home = getenv("HOME");

	if (home == NULL || *home == '\0')
		out[0] = '\0';
	else
		snprintf(out, n, "%s/%s", home, HISTORY_FILE);
}

static void
run_interactive(cft_shell *sh)
{
	char		hist[4096];
	char	   *buf = NULL;
	size_t		len = 0;
	bool		quit = false;

	history_path(hist, sizeof(hist));
	using_history();
	if (hist[0])
		read_history(hist);
	printf("Welcome to the colfam shell (cassandra-cli 0.7 statements).\n\n"
		   "Type 'help;' or '?' for help. Type 'quit;' or 'exit;' to quit.\n");
	while (!quit)
	{
		char	   *line = readline(len ? "...\t" : cft_shell_prompt(sh));
		size_t		ll;
		char	   *nb;

		if (line == NULL)
		{
			putchar('\n');
			break;
		}
		if (len == 0 && strcmp(line, "?") == 0)
		{
			free(line);
			line = strdup("help;");
			if (line == NULL)
				break;
		}
		ll = strlen(line);
		if ((nb = realloc(buf, len + ll + 2)) == NULL)
		{
			free(line);
			fprintf(stderr, "colfam shell: out of memory\n");
			break;
		}
		buf = nb;
		memcpy(buf + len, line, ll);
		len += ll;
		buf[len++] = '\n';
		buf[len] = '\0';
		free(line);
		if (!cft_input_complete(buf, len))
			continue;
		buf[len - 1] = '\0';
		if (strspn(buf, " \t\n") != len - 1)
			add_history(buf);
		buf[len - 1] = '\n';
		cft_shell_run(sh, buf, len, NULL, 1, false, &quit);
		len = 0;
	}
	free(buf);
	if (hist[0])
	{
		write_history(hist);
		history_truncate_file(hist, HISTORY_LINES);
	}
}

int
cft_cmd_shell(int argc, char **argv)
{
	static const struct option opts[] = {
		CFT_CONNOPT_LONG,
		{"file", required_argument, NULL, 'f'},
		{"batch", no_argument, NULL, 'B'},
		{"continue", no_argument, NULL, 'c'},
		{"help", no_argument, NULL, '?' + 256},
		{NULL, 0, NULL, 0}
	};
	cft_connopt co;
	const char *file = NULL;
	bool		batch = false,
				cont = false,
				quit = false;
	int			c,
				failed = 0;
	cft_shell  *sh;

	cft_connopt_init(&co);
	optind = 1;
	opterr = 1;				/* getopt reports (another command may have silenced it) */
	while ((c = getopt_long(argc, argv, "h:p:k:u:P:f:B", opts, NULL)) != -1)
	{
		int			taken = cft_connopt_take(&co, c, optarg, "shell", stderr);

		if (taken < 0)
			return 2;
		if (taken)
			continue;
		switch (c)
		{
			case 'f':
				file = optarg;
				break;
			case 'B':
				batch = true;
				break;
			case 'c':
				cont = true;
				break;
			case '?' + 256:
				usage(stdout);
				return 0;
			default:
				usage(stderr);
				return 2;
		}
	}
	if (optind != argc)
	{
		fprintf(stderr, "colfam shell: unexpected argument \"%s\"\n", argv[optind]);
		usage(stderr);
		return 2;
	}
	if (!cft_connopt_check(&co, "shell", stderr))
		return 2;
	if (file && batch)
	{
		fprintf(stderr, "colfam shell: -f and --batch exclude each other (-f is batch mode)\n");
		return 2;
	}
	if ((sh = cft_shell_new(&(cft_shell_options) {0})) == NULL)
	{
		fprintf(stderr, "colfam shell: out of memory\n");
		return 1;
	}
	if (co.given)
	{
		cft_stmt	s;
		cf_status  *st;

		memset(&s, 0, sizeof(s));
		s.kind = CFT_CONNECT;
		s.host = co.host;
		s.port = co.port;
		s.user = co.user;
		s.password = co.password;
		st = cft_shell_exec(sh, &s, NULL);
		if (st == NULL && co.keyspace)
		{
			memset(&s, 0, sizeof(s));
			s.kind = CFT_USE;
			s.name = co.keyspace;
			st = cft_shell_exec(sh, &s, NULL);
		}
		if (st != NULL)
		{
			fprintf(stderr, "colfam shell: %s\n", cf_status_msg(st));
			cf_status_free(st);
			cft_shell_free(sh);
			return 1;
		}
	}
	if (file)
	{
		FILE	   *in = fopen(file, "r");

		if (in == NULL)
		{
			fprintf(stderr, "colfam shell: cannot open %s: %m\n", file);
			cft_shell_free(sh);
			return 1;
		}
		failed = run_stream(sh, in, file, cont, &quit);
		fclose(in);
	}
	else if (!batch && isatty(STDIN_FILENO))
		run_interactive(sh);
	else
		failed = run_stream(sh, stdin, "stdin", cont, &quit);
	cft_shell_free(sh);
	return failed ? 1 : 0;
}
