/*
 * tests/unit/support/sockio.h — whole-buffer I/O on a blocking socket, for tests that
 * play client or server by hand: EINTR is retried, a short count continues, and EOF or
 * any other error is false. Sends never raise SIGPIPE.
 */
#ifndef CF_TEST_SOCKIO_H
#define CF_TEST_SOCKIO_H

#include <stdbool.h>
#include <stddef.h>

/* Sends all n bytes of p; false on an error or a closed peer. */
bool		test_send_all(int fd, const void *p, size_t n);

/* Receives exactly n bytes into p; false on an error or EOF before n. */
bool		test_recv_all(int fd, void *p, size_t n);

#endif
