/*
 * tests/unit/test_cpulist.c — util/cpulist: the CPU lists of rpc_io_cpus. Lists and
 * ranges in the order written, "auto" as the process's own CPUs, "none" and "" as no
 * list; syntax errors naming the valid forms; a CPU the process may not run on named
 * with the ones it may (the test narrows its own affinity to make one); and the
 * shortest text back, cut short with "..." when it does not fit.
 */
#include "support/cmocka_prelude.h"

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/cpulist.h"

/* The CPUs the calling thread may run on, ascending; returns how many. */
static int
allowed(int *cpus)
{
	cpu_set_t	set;
	int			n = 0;

	assert_int_equal(sched_getaffinity(0, sizeof(set), &set), 0);
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &set))
			cpus[n++] = c;
	return n;
}

/* Parses text, which must be valid, into *n CPUs (free() the result). */
static int *
parse_ok(const char *text, size_t *n)
{
	int		   *cpus = NULL;
	cf_status  *s = cf_cpu_list_parse(text, &cpus, n);

	if (s != NULL)
		fail_msg("\"%s\": %s", text, cf_status_msg(s));
	return cpus;
}

/* Parses text, which must be refused, and checks the message holds want. */
static void
parse_bad(const char *text, const char *want)
{
	int		   *cpus = (int *) 1;
	size_t		n = 99;
	cf_status  *s = cf_cpu_list_parse(text, &cpus, &n);

	if (s == NULL)
		fail_msg("\"%s\" was accepted", text);
	assert_int_equal(cf_status_code(s), CF_ERR_INVALID);
	if (strstr(cf_status_msg(s), want) == NULL)
		fail_msg("\"%s\": message \"%s\" lacks \"%s\"", text, cf_status_msg(s), want);
	assert_null(cpus);
	assert_int_equal(n, 0);
	cf_status_free(s);
}

static void
none_auto_and_lists(void **state)
{
	int			mine[CPU_SETSIZE];
	int			k = allowed(mine);
	size_t		n;
	int		   *cpus;
	char		text[64];

	(void) state;
	assert_null(parse_ok("", &n));
	assert_int_equal(n, 0);
	assert_null(parse_ok("none", &n));
	assert_int_equal(n, 0);

	cpus = parse_ok("auto", &n);
	assert_int_equal(n, (size_t) k);
	assert_memory_equal(cpus, mine, (size_t) k * sizeof(int));
	free(cpus);

	/* one CPU, and a range of one, are the same list */
	snprintf(text, sizeof(text), "%d", mine[0]);
	cpus = parse_ok(text, &n);
	assert_int_equal(n, 1);
	assert_int_equal(cpus[0], mine[0]);
	free(cpus);
	snprintf(text, sizeof(text), "%d-%d", mine[0], mine[0]);
	cpus = parse_ok(text, &n);
	assert_int_equal(n, 1);
	assert_int_equal(cpus[0], mine[0]);
	free(cpus);

	if (k >= 2)
	{
		/* the order written is the order kept */
		snprintf(text, sizeof(text), "%d,%d", mine[1], mine[0]);
		cpus = parse_ok(text, &n);
		assert_int_equal(n, 2);
		assert_int_equal(cpus[0], mine[1]);
		assert_int_equal(cpus[1], mine[0]);
		free(cpus);
	}
}

static void
bad_lists_are_refused(void **state)
{
	int			mine[CPU_SETSIZE];
	char		text[64];

	(void) state;
	allowed(mine);
	parse_bad("x", "\"x\" is not a CPU list (valid: none, auto, or CPU numbers and ranges "
			  "such as 0,2-3; CPUs 0 to 1023)");
	parse_bad("0,", "is not a CPU list");
	parse_bad(",0", "is not a CPU list");
	parse_bad("0-", "is not a CPU list");
	parse_bad("-1", "is not a CPU list");
	parse_bad("3-1", "is not a CPU list");
	parse_bad("0 ,1", "is not a CPU list");
	parse_bad("AUTO", "is not a CPU list");
	parse_bad("1024", "is not a CPU list");
	parse_bad("99999999999999999999", "is not a CPU list");
	snprintf(text, sizeof(text), "%d,%d", mine[0], mine[0]);
	parse_bad(text, "names CPU");
	snprintf(text, sizeof(text), "%d-%d,%d", mine[0], mine[0], mine[0]);
	parse_bad(text, "twice");
}

/* A CPU outside the thread's affinity is refused, naming the ones allowed. */
static void
cpus_not_allowed_are_refused(void **state)
{
	cpu_set_t	saved;
	cpu_set_t	narrow;
	int			mine[CPU_SETSIZE];
	int			k = allowed(mine);
	char		text[64];
	char		want[128];

	(void) state;
	assert_int_equal(sched_getaffinity(0, sizeof(saved), &saved), 0);
	CPU_ZERO(&narrow);
	CPU_SET(mine[0], &narrow);
	assert_int_equal(sched_setaffinity(0, sizeof(narrow), &narrow), 0);

	snprintf(text, sizeof(text), "%d", mine[0] + 1);
	snprintf(want, sizeof(want), "CPU %d is not one this process may run on (it may run "
			 "on %d)", mine[0] + 1, mine[0]);
	parse_bad(text, want);
	snprintf(text, sizeof(text), "%d-%d", mine[0], mine[0] + 1);
	parse_bad(text, want);
	{
		size_t		n;
		int		   *cpus = parse_ok("auto", &n);

		assert_int_equal(n, 1);
		assert_int_equal(cpus[0], mine[0]);
		free(cpus);
	}
	assert_int_equal(sched_setaffinity(0, sizeof(saved), &saved), 0);
	assert_int_equal(allowed(mine), k);
}

static void
format_is_shortest(void **state)
{
	char		out[64];
	char		tiny[8];
	const int	a[] = {0, 1, 2, 3, 6};
	const int	b[] = {3, 1, 2};
	const int	c[] = {0, 1};
	const int	d[] = {10, 20, 30, 40, 50};

	(void) state;
	assert_string_equal(cf_cpu_list_format(a, 5, out, sizeof(out)), "0-3,6");
	assert_string_equal(cf_cpu_list_format(b, 3, out, sizeof(out)), "3,1-2");
	assert_string_equal(cf_cpu_list_format(c, 2, out, sizeof(out)), "0-1");
	assert_string_equal(cf_cpu_list_format(a, 0, out, sizeof(out)), "");
	/* cut short, never past the buffer */
	assert_string_equal(cf_cpu_list_format(d, 5, tiny, sizeof(tiny)), "10,...");
	assert_string_equal(cf_cpu_list_format(d, 5, tiny, 4), "...");
	assert_string_equal(cf_cpu_list_format(d, 5, out, 10), "10,20,...");
	assert_true(strlen(tiny) < sizeof(tiny));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(none_auto_and_lists),
		cmocka_unit_test(bad_lists_are_refused),
		cmocka_unit_test(cpus_not_allowed_are_refused),
		cmocka_unit_test(format_is_shortest),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
