/*
 * util/random.h — bytes from the kernel's random source (getrandom), for tokens and
 * UUID node ids. Thread-safe.
 */
#ifndef CF_UTIL_RANDOM_H
#define CF_UTIL_RANDOM_H

#include <stddef.h>

#include "util/status.h"

/* Fills p[0..n) with random bytes, retrying on EINTR; the OS error otherwise. */
cf_status  *cf_random_bytes(void *p, size_t n);

#endif							/* CF_UTIL_RANDOM_H */
