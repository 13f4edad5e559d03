/*
 * tests/unit/support/testnode.h — a whole colfam node inside a unit test: a db in a
 * temp directory, the service, the Thrift dispatch, and a framed-transport listener on
 * 127.0.0.1 (an ephemeral port) with one thread per connection. It stands in for
 * colfamd so libcolfam's real connection, pagers and retries, and the colfam tool on
 * top of them, can be tested against the real dispatch without a server binary.
 *
 * Not a server: no limits beyond the codec's, no graceful shutdown of slow clients
 * (test_node_stop shuts every socket down and joins every thread).
 */
#ifndef CF_TEST_TESTNODE_H
#define CF_TEST_TESTNODE_H

#include "service/auth.h"

typedef struct test_node test_node;

/*
 * Starts a node; auth may be NULL (AllowAll) and stays the caller's. Fails the
 * running test on any error.
 */
test_node  *test_node_start(cf_auth *auth);

/* The port it listens on (127.0.0.1). */
int			test_node_port(const test_node *n);

/* "127.0.0.1:PORT" */
const char *test_node_hosts(const test_node *n);

/* The node's temp directory (removed by test_node_stop). */
const char *test_node_dir(const test_node *n);

/* Stops the listener and every connection, closes the db, removes the directory. */
void		test_node_stop(test_node *n);

#endif
