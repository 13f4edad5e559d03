/*
 * tests/unit/test_client_unix.c — colfamd's unix-domain socket (rpc_unix_socket) and
 * the clients that use it: libcolfam over the socket against a real colfamd (with
 * SimpleAuthenticator, so the socket is seen to need the same login as TCP), the colfam
 * tool's connect (-h /path), failover from a dead path (missing, or a stale socket) to a
 * live path and between paths and host:port entries, bad paths refused with the path and
 * the limit named; and the server's own rules (server/server.h): a stale socket
 * replaced, a live one or a regular file refused, the mode applied, the file removed.
 */
#include "support/authfiles.h"
#include "support/cmocka_prelude.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "client/client.h"
#include "server/server.h"
#include "support/colfamd.h"
#include "support/envtest.h"
#include "support/slices.h"
#include "support/tmpdir.h"
#include "tools/connopt.h"
#include "util/arena.h"
#include "util/env.h"
#include "util/log.h"
#include "util/unixsock.h"

#define HOST "127.0.0.21"

/* The colfamd every client test shares, its unix socket, and the temp directory. */
static test_colfamd *node;
static char *dir;
static char sock[128];

static void
ok(cf_status *s, const char *what)
{
	if (s != NULL)
		fail_msg("%s: %s", what, cf_status_msg(s));
}

/* s fails with code and a message containing text; frees it. */
static void
fails(cf_status *s, cf_code code, const char *text, const char *what)
{
	if (s == NULL)
		fail_msg("%s: expected an error", what);
	if (cf_status_code(s) != code || strstr(cf_status_msg(s), text) == NULL)
		fail_msg("%s: expected code %d with \"%s\", got code %d: %s", what, (int) code, text,
				 (int) cf_status_code(s), cf_status_msg(s));
	cf_status_free(s);
}

/* A connection to hosts as alice (the only user), not yet connected. */
static cfc_conn *
conn_to(const char *hosts, bool login)
{
	cfc_options o = {.hosts = hosts,.connect_timeout_ms = 2000,.io_timeout_ms = 10000};
	cfc_conn   *c;

	if (login)
	{
		o.username = "alice";
		o.password = "wonderland";
	}
	ok(cfc_new(&o, &c), hosts);
	return c;
}

/* A socket file at path that nothing accepts on: bound, then closed. */
static void
make_stale_socket(const char *path)
{
	struct sockaddr_un sa;
	socklen_t	len;
	int			fd = socket(AF_UNIX, SOCK_STREAM, 0);

	assert_true(fd >= 0);
	ok(cf_unix_sockaddr(path, &sa, &len), path);
	assert_int_equal(bind(fd, (struct sockaddr *) &sa, len), 0);
	close(fd);
}

static int
start_node(void **state)
{
	char		pwpath[256];
	char		acpath[256];

	(void) state;
	dir = test_tmpdir_new("cfunix");
	assert_non_null(dir);
	snprintf(sock, sizeof(sock), "%s", test_path(dir, "colfamd.sock"));
	test_auth_files(dir, (const char *const[]) {"alice:wonderland", NULL},
					"<modify-keyspaces>=alice\nU.<rw>=alice\n");
	snprintf(pwpath, sizeof(pwpath), "%s", test_path(dir, "passwd"));
	snprintf(acpath, sizeof(acpath), "%s", test_path(dir, "access"));
	{
		const char *const args[] = {
			"--authenticator", "org.apache.cassandra.auth.SimpleAuthenticator",
			"--authority", "org.apache.cassandra.auth.SimpleAuthority",
			"--auth_passwd_file", pwpath, "--auth_access_file", acpath,
			"--rpc_unix_socket", sock, "--rpc_unix_socket_mode", "0700", NULL};

		node = test_colfamd_start(HOST, args);
	}
	return 0;
}

static int
stop_node(void **state)
{
	(void) state;
	test_colfamd_free(node);
	test_tmpdir_free(dir);
	return 0;
}

static void
libcolfam_over_the_socket(void **state)
{
	cf_arena   *a = cf_arena_new(0);
	cfc_conn   *anon = conn_to(sock, false);
	cfc_conn   *c = conn_to(sock, true);
	cf_slice	name;
	cf_t_ks_def *ksds;
	size_t		n;
	struct stat st;

	(void) state;
	/* the file colfamd made, with the mode asked for */
	assert_int_equal(lstat(sock, &st), 0);
	assert_true(S_ISSOCK(st.st_mode));
	assert_int_equal(st.st_mode & 07777, 0700);
	/* logged just after the listeners open, which may be after the TCP port answers */
	for (int i = 0; i < 500 && !test_colfamd_log_contains(node, "listening for Thrift "
														   "clients on the unix socket"); i++)
		usleep(10 * 1000);
	assert_true(test_colfamd_log_contains(node, "listening for Thrift clients on the unix "
										  "socket"));

	/* the same login as over TCP */
	fails(cfc_describe_keyspaces(anon, a, &ksds, &n), CF_ERR_INVALID,
		  "you have not logged in", "describe_keyspaces before login");
	assert_string_equal(cfc_host(anon), sock);
	fails(cfc_login(anon, "alice", "wrong"), CF_ERR_AUTHENTICATION,
		  "invalid username or password", "a wrong password");

	ok(cfc_describe_cluster_name(c, a, &name), "describe_cluster_name");
	assert_true(S_EQ(name, "Test Cluster"));
	assert_string_equal(cfc_host(c), sock);
	ok(cfc_describe_keyspaces(c, a, &ksds, &n), "describe_keyspaces after login");

	/* a write and its read back, many round trips on one connection */
	{
		cf_t_cf_def cf = {.keyspace = S("U"),.name = S("Data"),.has_comparator_type = true,
		.comparator_type = S("UTF8Type")};
		cf_t_ks_def ks = {.name = S("U"),.strategy_class = S("SimpleStrategy"),
		.replication_factor = 1,.cf_defs = &cf,.n_cf_defs = 1};
		cf_t_column_parent p = {.column_family = S("Data")};
		cf_t_column_path cp = {.column_family = S("Data"),.has_column = true,.column = S("c")};

		ok(cfc_system_add_keyspace(c, &ks, a, NULL), "add keyspace U");
		ok(cfc_set_keyspace(c, "U"), "set_keyspace U");
		for (int i = 0; i < 200; i++)
		{
			char		key[16];
			char		val[16];
			cf_t_column col = {.name = S("c"),.timestamp = test_timestamp_us(NULL)};
			cf_t_cosc	got;

			snprintf(key, sizeof(key), "k%03d", i);
			snprintf(val, sizeof(val), "v%d", i * 7);
			col.value = S(val);
			ok(cfc_insert(c, S(key), &p, &col, CF_T_CL_ONE), "insert over the socket");
			ok(cfc_get(c, S(key), &cp, CF_T_CL_ONE, a, &got), "get over the socket");
			assert_true(got.has_column);
			assert_true(S_EQ(got.column.value, val));
		}
	}
	cfc_free(anon);
	cfc_free(c);
	cf_arena_free(a);
}

static void
the_tool_connects_with_a_path(void **state)
{
	cft_connopt o;
	cfc_conn   *c = NULL;
	cf_arena   *a = cf_arena_new(0);
	cf_slice	v;

	(void) state;
	cft_connopt_init(&o);
	o.host = sock;
	o.port = 1;					/* not used for a path */
	o.user = "alice";
	o.password = "wonderland";
	ok(cft_connopt_connect(&o, &c), "colfam -h PATH");
	assert_string_equal(cfc_host(c), sock);
	ok(cfc_describe_version(c, a, &v), "describe_version");
	assert_true(v.len > 0);
	cfc_free(c);

	o.host = test_path(dir, "missing.sock");
	fails(cft_connopt_connect(&o, &c), CF_ERR_IO, "missing.sock", "colfam -h MISSING");
	assert_null(c);
	cf_arena_free(a);
}

static void
failover_from_dead_paths(void **state)
{
	char		missing[128];
	char		stale[128];
	char		hosts[512];
	char		tcp[64];
	cfc_conn   *c;
	cf_arena   *a = cf_arena_new(0);
	cf_slice	name;

	(void) state;
	snprintf(missing, sizeof(missing), "%s", test_path(dir, "missing.sock"));
	snprintf(stale, sizeof(stale), "%s", test_path(dir, "stale.sock"));
	snprintf(tcp, sizeof(tcp), "%s", test_colfamd_hosts(node));
	make_stale_socket(stale);

	/* a missing path, then a stale socket, then the live one */
	snprintf(hosts, sizeof(hosts), "%s, %s ,%s", missing, stale, sock);
	c = conn_to(hosts, true);
	ok(cfc_describe_cluster_name(c, a, &name), "failover along paths");
	assert_string_equal(cfc_host(c), sock);
	cfc_free(c);

	/* every entry dead: each is named, with why */
	snprintf(hosts, sizeof(hosts), "%s,%s", missing, stale);
	c = conn_to(hosts, true);
	{
		cf_status  *s = cfc_connect(c);

		assert_non_null(s);
		assert_int_equal(cf_status_code(s), CF_ERR_IO);
		assert_non_null(strstr(cf_status_msg(s), "could not connect to any of 2 hosts"));
		assert_non_null(strstr(cf_status_msg(s), missing));
		assert_non_null(strstr(cf_status_msg(s), "no socket there"));
		assert_non_null(strstr(cf_status_msg(s), stale));
		assert_non_null(strstr(cf_status_msg(s), "nothing accepts on it"));
		cf_status_free(s);
	}
	cfc_free(c);

	/* mixed lists: a dead path to TCP, and a dead TCP port to the path */
	snprintf(hosts, sizeof(hosts), "%s,%s", stale, tcp);
	c = conn_to(hosts, true);
	ok(cfc_describe_cluster_name(c, a, &name), "a dead path, then host:port");
	assert_string_equal(cfc_host(c), tcp);
	cfc_free(c);

	snprintf(hosts, sizeof(hosts), HOST ":1,%s", sock);
	c = conn_to(hosts, true);
	ok(cfc_describe_cluster_name(c, a, &name), "a dead port, then the path");
	assert_string_equal(cfc_host(c), sock);
	cfc_free(c);
	cf_arena_free(a);
}

static void
bad_paths_are_refused(void **state)
{
	char		longpath[256];
	char		hosts[300];
	char		plain[128];
	cfc_options o = {0};
	cfc_conn   *c = NULL;

	(void) state;
	memset(longpath, 'x', sizeof(longpath));
	memcpy(longpath, "/tmp/", 5);
	longpath[CF_UNIX_PATH_MAX + 1] = '\0';	/* one byte too many */
	o.hosts = longpath;
	fails(cfc_new(&o, &c), CF_ERR_INVALID, "at most 107", "an overlong path");
	assert_null(c);
	snprintf(hosts, sizeof(hosts), "127.0.0.1, %s", longpath);
	o.hosts = hosts;
	fails(cfc_new(&o, &c), CF_ERR_INVALID, "unix socket path", "an overlong path in a list");

	/* the longest path that fits is accepted (connecting fails: nothing there) */
	longpath[CF_UNIX_PATH_MAX] = '\0';
	c = conn_to(longpath, false);
	fails(cfc_connect(c), CF_ERR_IO, longpath + 100, "the longest path");
	cfc_free(c);

	/* a file that is not a socket */
	snprintf(plain, sizeof(plain), "%s", test_path(dir, "plain"));
	test_put(cf_env_posix(), plain, CF_OPEN_CREATE_NEW, "not a socket\n");
	c = conn_to(plain, false);
	fails(cfc_connect(c), CF_ERR_IO, plain, "a regular file");
	cfc_free(c);
}

/* ---- the server's own rules, without colfamd ---- */

static bool
no_handle(void *ctx, void *session, cf_slice request, cf_buf *reply)
{
	(void) ctx;
	(void) session;
	(void) request;
	(void) reply;
	return false;
}

static cf_status *
server_on(const char *path, unsigned mode, cf_server **out)
{
	cf_server_handler h = {.handle = no_handle};
	cf_server_options o = {.address = "127.0.0.1",.io_threads = 1,.unix_path = path,
	.unix_mode = mode};

	return cf_server_create(&o, &h, out);
}

static void
server_socket_file_rules(void **state)
{
	char	   *d = test_tmpdir_new("cfsrvunix");
	char		path[128];
	char		plain[128];
	cf_server  *srv = NULL;
	cf_server  *other = NULL;
	struct stat st;

	(void) state;
	assert_non_null(d);
	snprintf(path, sizeof(path), "%s", test_path(d, "s.sock"));
	snprintf(plain, sizeof(plain), "%s", test_path(d, "plain"));

	/* a stale socket is replaced; the mode is applied */
	make_stale_socket(path);
	ok(server_on(path, 0660, &srv), "over a stale socket");
	assert_string_equal(cf_server_unix_path(srv), path);
	assert_int_equal(lstat(path, &st), 0);
	assert_true(S_ISSOCK(st.st_mode));
	assert_int_equal(st.st_mode & 07777, 0660);

	/* a live socket is another server's: refused, and left alone */
	fails(server_on(path, 0, &other), CF_ERR_BUSY, "is in use", "a live socket");
	assert_null(other);
	assert_int_equal(lstat(path, &st), 0);

	/* started and shut down: the file goes */
	ok(cf_server_start(srv), "start");
	ok(cf_server_shutdown(srv, 1000), "shutdown");
	assert_int_equal(lstat(path, &st), -1);
	assert_int_equal(errno, ENOENT);
	cf_server_free(srv);

	/* a regular file is not ours to delete */
	test_put(cf_env_posix(), plain, CF_OPEN_CREATE_NEW, "data\n");
	fails(server_on(plain, 0, &other), CF_ERR_INVALID, "not a socket", "a regular file");
	assert_int_equal(lstat(plain, &st), 0);
	assert_true(S_ISREG(st.st_mode));

	/* default mode 0700; free alone (never started) removes the file too */
	ok(server_on(path, 0, &srv), "default mode");
	assert_int_equal(lstat(path, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0700);
	cf_server_free(srv);
	assert_int_equal(lstat(path, &st), -1);

	/* a file replaced under the server is not removed by it */
	ok(server_on(path, 0, &srv), "again");
	assert_int_equal(unlink(path), 0);
	test_put(cf_env_posix(), path, CF_OPEN_CREATE_NEW, "someone else's\n");
	cf_server_free(srv);
	assert_int_equal(lstat(path, &st), 0);
	assert_true(S_ISREG(st.st_mode));
	test_tmpdir_free(d);
}

int
main(void)
{
	const struct CMUnitTest server_tests[] = {
		cmocka_unit_test(server_socket_file_rules),
	};
	const struct CMUnitTest client_tests[] = {
		cmocka_unit_test(libcolfam_over_the_socket),
		cmocka_unit_test(the_tool_connects_with_a_path),
		cmocka_unit_test(failover_from_dead_paths),
		cmocka_unit_test(bad_paths_are_refused),
	};
	int			rc;

	cf_log_set_level(CF_LOG_WARN);
	rc = cmocka_run_group_tests_name("server", server_tests, NULL, NULL);

	return rc + cmocka_run_group_tests_name("client", client_tests, start_node, stop_node);
}
