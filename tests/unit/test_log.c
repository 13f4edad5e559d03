/* tests/unit/test_log.c — util/log: levels, parsing, line format, sinks. */
#include "support/cmocka_prelude.h"

#include <regex.h>
#include <stdio.h>
#include <string.h>

#include "util/log.h"

typedef struct capture
{
	int			lines;
	cf_log_level level;
	char		last[512];
} capture;

static void
capture_sink(void *arg, cf_log_level level, const char *line)
{
	capture    *c = arg;

	c->lines++;
	c->level = level;
	snprintf(c->last, sizeof(c->last), "%s", line);
}

static int
setup(void **state)
{
	static capture c;

	memset(&c, 0, sizeof(c));
	cf_log_set_sink(capture_sink, &c);
	cf_log_set_level(CF_LOG_INFO);
	*state = &c;
	return 0;
}

static int
teardown(void **state)
{
	(void) state;
	cf_log_set_sink(NULL, NULL);
	cf_log_set_level(CF_LOG_INFO);
	return 0;
}

static void
line_has_time_level_component(void **state)
{
	capture    *c = *state;
	regex_t		re;

	cf_log_info("commitlog", "replayed %d records", 42);
	assert_int_equal(c->lines, 1);
	assert_int_equal(c->level, CF_LOG_INFO);
	assert_int_equal(regcomp(&re, "^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}"
							 "\\.[0-9]{3}Z INFO  \\[commitlog\\] replayed 42 records$",
							 REG_EXTENDED | REG_NOSUB), 0);
	assert_int_equal(regexec(&re, c->last, 0, NULL, 0), 0);
	regfree(&re);
}

static void
threshold_filters(void **state)
{
	capture    *c = *state;

	cf_log_debug("x", "hidden");
	assert_int_equal(c->lines, 0);
	cf_log_set_level(CF_LOG_DEBUG);
	cf_log_debug("x", "shown");
	assert_int_equal(c->lines, 1);
	cf_log_set_level(CF_LOG_OFF);
	cf_log_error("x", "hidden too");
	assert_int_equal(c->lines, 1);
	cf_log_set_level(CF_LOG_ERROR);
	cf_log_warn("x", "hidden");
	cf_log_error("x", "shown");
	assert_int_equal(c->lines, 2);
	assert_int_equal(c->level, CF_LOG_ERROR);
}

static void
level_names_parse(void **state)
{
	cf_log_level l;

	(void) state;
	assert_true(cf_log_level_parse("debug", &l));
	assert_int_equal(l, CF_LOG_DEBUG);
	assert_true(cf_log_level_parse("WARNING", &l));
	assert_int_equal(l, CF_LOG_WARN);
	assert_true(cf_log_level_parse("Off", &l));
	assert_int_equal(l, CF_LOG_OFF);
	assert_false(cf_log_level_parse("verbose", &l));
	assert_false(cf_log_level_parse("", &l));
	assert_non_null(strstr(cf_log_level_names(), "debug"));
	assert_string_equal(cf_log_level_name(CF_LOG_WARN), "WARN");
}

static void
long_messages_are_cut_not_overflowed(void **state)
{
	capture    *c = *state;
	static char big[10000];

	memset(big, 'y', sizeof(big) - 1);
	cf_log_info("big", "%s", big);
	assert_int_equal(c->lines, 1);
	assert_true(strlen(c->last) == sizeof(c->last) - 1);	/* the capture cut it */
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(line_has_time_level_component, setup, teardown),
		cmocka_unit_test_setup_teardown(threshold_filters, setup, teardown),
		cmocka_unit_test_setup_teardown(level_names_parse, setup, teardown),
		cmocka_unit_test_setup_teardown(long_messages_are_cut_not_overflowed, setup, teardown),
	};

	return cmocka_run_group_tests_name("util/log", tests, NULL, NULL);
}
