/*
 * util/unixsock.h — the address of a unix-domain socket, for colfamd's listener
 * (server/server.c) and for its clients (client/conn.c, the colfam tool): one place
 * that knows sun_path's size, so a path too long for it is refused with the same
 * message everywhere instead of being cut short by a silent truncation.
 *
 * Thread safety: pure functions.
 */
#ifndef CF_UTIL_UNIXSOCK_H
#define CF_UTIL_UNIXSOCK_H

#include <sys/socket.h>
#include <sys/un.h>

#include "util/status.h"

/* Longest path a unix socket may have, in bytes (sun_path less its terminating NUL). */
#define CF_UNIX_PATH_MAX (sizeof(((struct sockaddr_un *) 0)->sun_path) - 1)

/*
 * Fills *sa and *len with the address of the socket at path. CF_ERR_INVALID when path
 * is empty or longer than CF_UNIX_PATH_MAX bytes; the message names the path and the
 * limit and ends without a period, so callers may prefix it ("rpc_unix_socket: ...").
 */
cf_status  *cf_unix_sockaddr(const char *path, struct sockaddr_un *sa, socklen_t *len);

#endif							/* CF_UTIL_UNIXSOCK_H */
