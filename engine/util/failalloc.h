/*
 * util/failalloc.h — allocations that a test can make fail: from the n-th on, every
 * allocation through one cf_failalloc returns NULL, so out-of-memory paths can be
 * exercised one allocation at a time. Disarmed, a call costs one relaxed load.
 *
 * Each module that offers the hook keeps one static cf_failalloc and exposes an arming
 * function (e.g. cf_read_test_fail_alloc). Arming is process-wide for that module:
 * arm only while no other thread allocates through it.
 */
#ifndef CF_UTIL_FAILALLOC_H
#define CF_UTIL_FAILALLOC_H

#include <stdbool.h>
#include <stddef.h>

typedef struct cf_failalloc
{
	unsigned long at;			/* from this allocation after arming on, all fail; 0: off */
	unsigned long seen;			/* allocations since arming */
	bool		fired;			/* the armed failure happened */
} cf_failalloc;

/* Arms failure from the n-th allocation on (0 disarms); returns whether the previous
 * arming fired. */
bool		cf_failalloc_arm(cf_failalloc *f, unsigned long n);

/* Should this allocation fail? For allocators other than the three below. */
bool		cf_failalloc_fails(cf_failalloc *f);

void	   *cf_failalloc_malloc(cf_failalloc *f, size_t n);
void	   *cf_failalloc_calloc(cf_failalloc *f, size_t n, size_t size);
void	   *cf_failalloc_realloc(cf_failalloc *f, void *p, size_t n);

#endif							/* CF_UTIL_FAILALLOC_H */
