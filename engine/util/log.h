/*
 * util/log.h — leveled logging for colfamd and the tools.
 *
 * One line per event: "2026-11-20T21:51:23.123Z INFO  [component] message". Lines go
 * to a sink, stderr by default; tests install their own to capture output. Messages
 * below the threshold cost one comparison: the arguments are not formatted.
 *
 * Never log secrets: passwords and password hashes stay out of every message.
 *
 * Thread safety: cf_log may be called from any thread; each line is written whole.
 * cf_log_set_level and cf_log_set_sink are for start-up, before threads exist.
 */
#ifndef CF_UTIL_LOG_H
#define CF_UTIL_LOG_H

#include <stdbool.h>

typedef enum cf_log_level
{
	CF_LOG_DEBUG = 0,
	CF_LOG_INFO,
	CF_LOG_WARN,
	CF_LOG_ERROR,
	CF_LOG_OFF					/* a threshold only: nothing is logged */
} cf_log_level;

/* Receives one formatted line, without the trailing newline. */
typedef void (*cf_log_sink) (void *arg, cf_log_level level, const char *line);

void		cf_log_set_level(cf_log_level level);
cf_log_level cf_log_get_level(void);

/* NULL restores the default sink (stderr). */
void		cf_log_set_sink(cf_log_sink sink, void *arg);

/*
 * Parses "debug", "info", "warn"/"warning", "error", "off" (any case). Returns false
 * for anything else; cf_log_level_names() lists the valid spellings for a hint.
 */
bool		cf_log_level_parse(const char *s, cf_log_level *out);
const char *cf_log_level_names(void);
const char *cf_log_level_name(cf_log_level level);

void		cf_log(cf_log_level level, const char *component, const char *fmt,...)
			__attribute__((format(printf, 3, 4)));

#define cf_log_debug(comp, ...) cf_log(CF_LOG_DEBUG, comp, __VA_ARGS__)
#define cf_log_info(comp, ...)  cf_log(CF_LOG_INFO, comp, __VA_ARGS__)
#define cf_log_warn(comp, ...)  cf_log(CF_LOG_WARN, comp, __VA_ARGS__)
#define cf_log_error(comp, ...) cf_log(CF_LOG_ERROR, comp, __VA_ARGS__)

#endif							/* CF_UTIL_LOG_H */
