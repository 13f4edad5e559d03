/*
 * util/log.c — leveled log lines to a replaceable sink (see log.h).
 *
 * Each line is formatted into a stack buffer and handed to the sink in one call, so
 * lines from different threads never interleave; the default sink writes it with a
 * single write(2)-sized fputs under the stream's lock.
 */
#include "util/log.h"

#include <stdarg.h>
#include <stdio.h>
#include <strings.h>
#include <time.h>

#define LOG_LINE_MAX 4096

static cf_log_level threshold = CF_LOG_INFO;
static cf_log_sink sink_fn;
static void *sink_arg;

static const char *const level_names[] = {"DEBUG", "INFO", "WARN", "ERROR", "OFF"};

void
cf_log_set_level(cf_log_level level)
{
	__atomic_store_n(&threshold, level, __ATOMIC_RELAXED);
}

cf_log_level
cf_log_get_level(void)
{
	return __atomic_load_n(&threshold, __ATOMIC_RELAXED);
}

void
cf_log_set_sink(cf_log_sink sink, void *arg)
{
	sink_fn = sink;
	sink_arg = arg;
}

bool
cf_log_level_parse(const char *s, cf_log_level *out)
{
	static const struct
	{
		const char *name;
		cf_log_level level;
	}			names[] = {
		{"debug", CF_LOG_DEBUG}, {"info", CF_LOG_INFO}, {"warn", CF_LOG_WARN},
		{"warning", CF_LOG_WARN}, {"error", CF_LOG_ERROR}, {"off", CF_LOG_OFF},
	};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
	{
		if (strcasecmp(s, names[i].name) == 0)
		{
			*out = names[i].level;
			return true;
		}
	}
	return false;
}

const char *
cf_log_level_names(void)
{
	return "debug, info, warn, error, off";
}

const char *
cf_log_level_name(cf_log_level level)
{
	return (unsigned) level <= CF_LOG_OFF ? level_names[level] : "?";
}

static void
stderr_sink(void *arg, cf_log_level level, const char *line)
{
	(void) arg;
	(void) level;
	flockfile(stderr);
	fputs(line, stderr);
	fputc('\n', stderr);
	funlockfile(stderr);
}

void
cf_log(cf_log_level level, const char *component, const char *fmt,...)
{
	char		line[LOG_LINE_MAX];
	struct timespec ts;
	struct tm	tm;
	int			n;
	va_list		ap;

	if (level < cf_log_get_level() || level >= CF_LOG_OFF)
		return;

	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	n = snprintf(line, sizeof(line), "%04d-%02d-%02dT%02d:%02d:%02d.%03ldZ %-5s [%s] ",
				 tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
				 tm.tm_hour, tm.tm_min, tm.tm_sec, ts.tv_nsec / 1000000,
				 level_names[level], component ? component : "-");
	if (n < 0 || (size_t) n >= sizeof(line))
		return;
	va_start(ap, fmt);
	vsnprintf(line + n, sizeof(line) - (size_t) n, fmt, ap);
	va_end(ap);

	(sink_fn ? sink_fn : stderr_sink) (sink_arg, level, line);
}
