/*
 * util/failalloc.c — test-only allocation failure (see failalloc.h).
 */
#include "util/failalloc.h"

#include <stdlib.h>

#include "util/alloc.h"

bool
cf_failalloc_arm(cf_failalloc *f, unsigned long n)
{
	bool		fired = f->fired;

	f->seen = 0;
	f->fired = false;
	__atomic_store_n(&f->at, n, __ATOMIC_RELAXED);
	return fired;
}

bool
cf_failalloc_fails(cf_failalloc *f)
{
	if (__atomic_load_n(&f->at, __ATOMIC_RELAXED) == 0 || ++f->seen < f->at)
		return false;
	f->fired = true;
	return true;
}

void *
cf_failalloc_malloc(cf_failalloc *f, size_t n)
{
	return cf_failalloc_fails(f) ? NULL : malloc(n);
}

void *
cf_failalloc_calloc(cf_failalloc *f, size_t n, size_t size)
{
	return cf_failalloc_fails(f) ? NULL : cf_zalloc_array(n, size);
}

void *
cf_failalloc_realloc(cf_failalloc *f, void *p, size_t n)
{
	return cf_failalloc_fails(f) ? NULL : realloc(p, n);
}
