/*
 * util/random.c — getrandom with retries (see random.h).
 */
#include "util/random.h"

#include <errno.h>
#include <stdint.h>
#include <sys/random.h>

cf_status *
cf_random_bytes(void *p, size_t n)
{
	uint8_t    *b = p;

	while (n > 0)
	{
		ssize_t		got = getrandom(b, n, 0);

		if (got < 0)
		{
			if (errno == EINTR)
				continue;
			return cf_status_errno(errno, "getrandom");
		}
		b += got;
		n -= (size_t) got;
	}
	return NULL;
}
