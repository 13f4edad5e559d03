/*
 * util/slice.h — a view of bytes owned by someone else: keys, names, values.
 *
 * A slice never owns its bytes; whoever hands one out states how long they live.
 * Byte-wise comparison is memcmp order with the shorter prefix first (BytesType).
 */
#ifndef CF_UTIL_SLICE_H
#define CF_UTIL_SLICE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

typedef struct cf_slice
{
	const uint8_t *p;
	size_t		len;
} cf_slice;

static inline cf_slice
cf_slice_of(const void *p, size_t len)
{
	cf_slice	s = {(const uint8_t *) p, len};

	return s;
}

/* A slice over a NUL-terminated string, without the NUL. */
static inline cf_slice
cf_slice_str(const char *s)
{
	return cf_slice_of(s, strlen(s));
}

static inline int
cf_slice_cmp(cf_slice a, cf_slice b)
{
	size_t		n = a.len < b.len ? a.len : b.len;
	int			c = n ? memcmp(a.p, b.p, n) : 0;

	if (c != 0)
		return c;
	return a.len < b.len ? -1 : a.len > b.len ? 1 : 0;
}

static inline bool
cf_slice_eq(cf_slice a, cf_slice b)
{
	return a.len == b.len && (a.len == 0 || memcmp(a.p, b.p, a.len) == 0);
}

#endif							/* CF_UTIL_SLICE_H */
