/*
 * util/thread.h — naming threads, so that ps -L, top -H, perf and gdb tell colfamd's
 * threads apart (cf-loop-0, cf-worker-3, cf-flush-Users, cf-maint, ...).
 *
 * Linux keeps at most 15 bytes of a thread's name: a longer one is cut there, not
 * refused (the names put in are ASCII: keyspace and column family names are word
 * characters).
 *
 * Thread safety: any thread may name any thread of its process.
 */
#ifndef CF_UTIL_THREAD_H
#define CF_UTIL_THREAD_H

#include <pthread.h>

/* The kernel's limit on a thread name, the terminating NUL included. */
#define CF_THREAD_NAME_MAX 16

/*
 * Names thread t with fmt's output, cut to CF_THREAD_NAME_MAX - 1 bytes. A name is a
 * courtesy: a failure to set it is ignored.
 */
void		cf_thread_name(pthread_t t, const char *fmt,...)
			__attribute__((format(printf, 2, 3)));

#endif							/* CF_UTIL_THREAD_H */
