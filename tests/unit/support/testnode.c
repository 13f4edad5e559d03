/* tests/unit/support/testnode.c — see testnode.h. */
#include "support/cmocka_prelude.h"
#include "support/testnode.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "support/dbfixture.h"
#include "support/sockio.h"
#include "thrift/dispatch.h"

#define MAX_CONNS 256

typedef struct conn
{
	test_node  *node;
	int			fd;
	pthread_t	thread;
} conn;

struct test_node
{
	db_fixture *fx;				/* the directory; fx->db is the node's db */
	cf_service *svc;
	cf_dispatch *d;
	int			lfd;
	int			port;
	char		hosts[64];
	pthread_t	acceptor;
	pthread_mutex_t mu;
	conn	   *conns[MAX_CONNS];
	int			n_conns;
	int			stopping;
};

static void
check(cf_status *s, const char *what)
{
	if (s)
		fail_msg("test node: %s: %s", what, cf_status_msg(s));
}

static void *
conn_main(void *arg)
{
	conn	   *c = arg;
	cf_dispatch_session *s = cf_dispatch_session_new(c->node->d, "testnode");
	cf_buf		reply = CF_BUF_INIT;
	uint8_t    *msg = NULL;

	for (bool keep = s != NULL; keep;)
	{
		uint8_t		hdr[4];
		uint32_t	len;

		if (!test_recv_all(c->fd, hdr, 4))
			break;
		len = cf_load_be32(hdr);
		if (len > 16u * 1024 * 1024 || (msg = malloc(len ? len : 1)) == NULL)
			break;
		if (!test_recv_all(c->fd, msg, len))
			break;
		cf_buf_reset(&reply);
		cf_buf_put_u32(&reply, 0);
		keep = cf_dispatch_handle(c->node->d, s, cf_slice_of(msg, len), &reply);
		free(msg);
		msg = NULL;
		if (!cf_buf_ok(&reply))
			break;
		cf_buf_patch_u32(&reply, 0, (uint32_t) (reply.len - 4));
		if (!test_send_all(c->fd, reply.data, reply.len))
			break;
	}
	free(msg);
	cf_buf_free(&reply);
	if (s)
		cf_dispatch_session_free(s);
	shutdown(c->fd, SHUT_RDWR);
	return NULL;
}

static void *
accept_main(void *arg)
{
	test_node  *n = arg;

	for (;;)
	{
		int			fd = accept(n->lfd, NULL, NULL);
		int			one = 1;
		conn	   *c;

		if (fd < 0)
		{
			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			return NULL;
		}
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		pthread_mutex_lock(&n->mu);
		if (n->stopping || n->n_conns == MAX_CONNS || (c = calloc(1, sizeof(*c))) == NULL)
		{
			pthread_mutex_unlock(&n->mu);
			close(fd);
			continue;
		}
		c->node = n;
		c->fd = fd;
		if (pthread_create(&c->thread, NULL, conn_main, c) != 0)
		{
			free(c);
			close(fd);
		}
		else
			n->conns[n->n_conns++] = c;
		pthread_mutex_unlock(&n->mu);
	}
}

test_node *
test_node_start(cf_auth *auth)
{
	test_node  *n = calloc(1, sizeof(*n));
	void	   *fx;
	cf_db_options o;
	struct sockaddr_in sa;
	socklen_t	sl = sizeof(sa);
	int			one = 1;

	assert_non_null(n);
	assert_int_equal(db_fixture_setup(&fx), 0);
	n->fx = fx;
	o = db_fixture_options(n->fx);
	db_fixture_open(n->fx, &o);
	check(cf_service_new(&(cf_service_options) {.db = n->fx->db,.endpoint = "127.0.0.1"},
						 &n->svc), "starting the service");
	check(cf_dispatch_new(&(cf_dispatch_options) {.service = n->svc,.auth = auth}, &n->d),
		  "starting the dispatch");
	pthread_mutex_init(&n->mu, NULL);
	n->lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	assert_true(n->lfd >= 0);
	setsockopt(n->lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	memset(&sa, 0, sizeof(sa));
	sa.sin_family = AF_INET;
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_int_equal(bind(n->lfd, (struct sockaddr *) &sa, sizeof(sa)), 0);
	assert_int_equal(listen(n->lfd, 128), 0);
	assert_int_equal(getsockname(n->lfd, (struct sockaddr *) &sa, &sl), 0);
	n->port = ntohs(sa.sin_port);
	snprintf(n->hosts, sizeof(n->hosts), "127.0.0.1:%d", n->port);
	assert_int_equal(pthread_create(&n->acceptor, NULL, accept_main, n), 0);
	return n;
}

int
test_node_port(const test_node *n)
{
	return n->port;
}

const char *
test_node_hosts(const test_node *n)
{
	return n->hosts;
}

const char *
test_node_dir(const test_node *n)
{
	return n->fx->dir;
}

void
test_node_stop(test_node *n)
{
	void	   *fx;

	if (n == NULL)
		return;
	pthread_mutex_lock(&n->mu);
	n->stopping = 1;
	pthread_mutex_unlock(&n->mu);
	shutdown(n->lfd, SHUT_RDWR);
	pthread_join(n->acceptor, NULL);
	close(n->lfd);
	for (int i = 0; i < n->n_conns; i++)
	{
		shutdown(n->conns[i]->fd, SHUT_RDWR);
		pthread_join(n->conns[i]->thread, NULL);
		close(n->conns[i]->fd);
		free(n->conns[i]);
	}
	cf_dispatch_free(n->d);
	cf_service_free(n->svc);
	check(cf_db_close(n->fx->db), "closing the db");
	n->fx->db = NULL;
	pthread_mutex_destroy(&n->mu);
	fx = n->fx;
	db_fixture_teardown(&fx);
	free(n);
}
