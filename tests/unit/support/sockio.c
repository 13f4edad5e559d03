/*
 * tests/unit/support/sockio.c — whole-buffer socket I/O (see sockio.h).
 */
#include "support/sockio.h"

#include <errno.h>
#include <stdint.h>
#include <sys/socket.h>

static bool
io_all(int fd, uint8_t *b, size_t n, bool rd)
{
	while (n > 0)
	{
		ssize_t		r = rd ? recv(fd, b, n, 0) : send(fd, b, n, MSG_NOSIGNAL);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return false;
		b += r;
		n -= (size_t) r;
	}
	return true;
}

bool
test_send_all(int fd, const void *p, size_t n)
{
	return io_all(fd, (uint8_t *) p, n, false);
}

bool
test_recv_all(int fd, void *p, size_t n)
{
	return io_all(fd, p, n, true);
}
