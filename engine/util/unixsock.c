/*
 * util/unixsock.c — the address of a unix-domain socket (see unixsock.h).
 */
#include "util/unixsock.h"

#include <stddef.h>
#include <string.h>

cf_status *
cf_unix_sockaddr(const char *path, struct sockaddr_un *sa, socklen_t *len)
{
	size_t		n = path ? strlen(path) : 0;

	if (n == 0)
		return cf_status_make(CF_ERR_INVALID, "an empty unix socket path");
	if (n > CF_UNIX_PATH_MAX)
		return cf_status_make(CF_ERR_INVALID, "the unix socket path \"%.120s%s\" is %zu bytes "
							  "long; the system allows at most %zu (choose a shorter one, "
							  "such as /tmp/colfamd.sock)", path, n > 120 ? "..." : "", n,
							  (size_t) CF_UNIX_PATH_MAX);
	memset(sa, 0, sizeof(*sa));
	sa->sun_family = AF_UNIX;
	memcpy(sa->sun_path, path, n + 1);
	*len = (socklen_t) (offsetof(struct sockaddr_un, sun_path) + n + 1);
	return NULL;
}
