/*
 * util/thread.c — naming threads (see thread.h).
 */
#include "util/thread.h"

#include <stdarg.h>
#include <stdio.h>

void
cf_thread_name(pthread_t t, const char *fmt,...)
{
	char		name[CF_THREAD_NAME_MAX];
	va_list		ap;

	va_start(ap, fmt);
	(void) vsnprintf(name, sizeof(name), fmt, ap);	/* cut, never refused */
	va_end(ap);
	(void) pthread_setname_np(t, name);
}
