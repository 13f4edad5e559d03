/*
 * util/alloc.h — zeroed allocation for hot paths.
 *
 * cf_zalloc is malloc and a memset, not calloc: glibc's calloc (before 2.41) never takes
 * a chunk from the thread's tcache, while free puts chunks there and, once a tcache bin
 * is full, in the fastbins. On a read path that callocs small structs and mallocs
 * block-sized buffers, the freed small chunks pile up in the fastbins, and every
 * block-sized malloc (a large-bin request) first consolidates them: perf put about 15%
 * of a cold slice in calloc, _int_free and malloc_consolidate. Use it where allocations
 * repeat per request; calloc stays fine elsewhere.
 */
#ifndef CF_UTIL_ALLOC_H
#define CF_UTIL_ALLOC_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* n zeroed bytes; NULL on no memory. */
static inline void *
cf_zalloc(size_t n)
{
	void	   *p = malloc(n);

	if (p)
		memset(p, 0, n);
	return p;
}

/* n zeroed elements of size bytes; NULL on no memory or if n * size overflows. */
static inline void *
cf_zalloc_array(size_t n, size_t size)
{
	if (size && n > SIZE_MAX / size)
		return NULL;
	return cf_zalloc(n * size);
}

#endif							/* CF_UTIL_ALLOC_H */
