/*
 * tests/unit/test_client.c — client/: libcolfam against an in-test fake server, and
 * cfc_colfam_multiget_chain against a live colfamd.
 *
 * The fake is a thread on 127.0.0.1 (ephemeral port), or on a unix socket for the
 * tests of waits (timeouts, cancels and signals hold on both), that reads frames,
 * decodes each
 * call with the codec's server side (cf_t_read_message_header, cf_t_read_args),
 * records it, and does what the test scripted: answer a result, a TApplicationException
 * or raw bytes, close, or never answer; or ask a handler that simulates a server (the
 * pager tests). The fake never calls cmocka: it records its own failures in
 * fake->error, which the test thread checks.
 */
#include "support/cmocka_prelude.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "client/client.h"
#include "storage/partitioner.h"
#include "support/colfamd.h"
#include "support/sockio.h"
#include "support/slices.h"

/* ---------------------------------------------------------------- the fake server */

typedef enum act
{
	ACT_REPLY,					/* res, via cf_t_write_reply */
	ACT_APP_EXC,				/* a TApplicationException */
	ACT_RAW,					/* raw bytes, as they are (frame header included) */
	ACT_CLOSE,					/* close the connection without answering */
	ACT_HANG,					/* never answer; wait for the client to go away */
	ACT_HANDLER					/* ask fake->handler */
} act;

typedef struct step
{
	act			kind;
	cf_t_result res;
	cf_ta_result ta_res;		/* ACT_REPLY to one of colfam's methods (thrift/admin.h) */
	const void *raw;
	size_t		raw_len;
} step;

typedef struct fake fake;
typedef void (*handler_fn) (fake *f, cf_t_method m, const cf_t_args *args, cf_arena *arena,
							cf_t_result *res);

#define MAX_STEPS 64
#define MAX_CALLS 8192

struct fake
{
	int			lfd;
	int			port;			/* 0 on a unix socket */
	char		path[64];		/* the unix socket's path, "" on TCP */
	pthread_t	thread;
	atomic_bool stop;
	step		steps[MAX_STEPS];
	int			n_steps;
	int			next_step;
	handler_fn	handler;		/* when the script has run out (or ACT_HANDLER) */
	void	   *handler_arg;
	/* recorded; read by the test only after a call returned */
	atomic_int	n_calls;
	atomic_int	n_accepts;
	cf_t_method methods[MAX_CALLS];
	cf_t_args	args[MAX_CALLS];
	/*
	 * colfam's methods, served when serves_ta (else answered UNKNOWN_METHOD, as a
	 * Cassandra answers any name it lacks): is_ta[i] says call i was one of them
	 */
	bool		serves_ta;
	bool		is_ta[MAX_CALLS];
	cf_ta_method ta_methods[MAX_CALLS];
	cf_ta_args	ta_args[MAX_CALLS];
	atomic_int	n_unknown;		/* calls answered UNKNOWN_METHOD */
	uint8_t    *frames[MAX_CALLS];
	cf_arena   *arenas[MAX_CALLS];
	char		error[256];
};

static void
fake_fail(fake *f, const char *msg)
{
	if (f->error[0] == '\0')
		snprintf(f->error, sizeof(f->error), "%s", msg);
}

/* Reads exactly n bytes, giving up on EOF or stop. */
static bool
fake_read(fake *f, int fd, uint8_t *p, size_t n)
{
	while (n > 0)
	{
		struct pollfd pfd = {fd, POLLIN, 0};
		ssize_t		r;

		if (atomic_load(&f->stop))
			return false;
		if (poll(&pfd, 1, 20) <= 0)
			continue;
		r = read(fd, p, n);
		if (r <= 0)
			return false;
		p += r;
		n -= (size_t) r;
	}
	return true;
}

static void
fake_write(int fd, const uint8_t *p, size_t n)
{
	while (n > 0)
	{
		ssize_t		r = send(fd, p, n, MSG_NOSIGNAL);

		if (r <= 0)
			return;
		p += r;
		n -= (size_t) r;
	}
}

/* Writes buf's bytes after the 4 reserved at its start as one frame. */
static void
fake_send_frame(int fd, cf_buf *b)
{
	cf_buf_patch_u32(b, 0, (uint32_t) (b->len - 4));
	fake_write(fd, b->data, b->len);
}

/* Serves one connection until it closes; false when the fake should drop it. */
static void
fake_serve(fake *f, int fd)
{
	for (;;)
	{
		uint8_t		hdr[4];
		uint32_t	len;
		uint8_t    *frame;
		cf_arena   *arena;
		cf_rd		r;
		cf_t_message_header mh;
		cf_t_method m = CF_T_M_COUNT_;
		cf_ta_method am = CF_TA_M_COUNT_;
		cf_t_args	args;
		cf_ta_args	ta_args;
		cf_t_limits lim = cf_t_limits_default();
		step		st = {.kind = ACT_HANDLER};
		cf_buf		out = CF_BUF_INIT;
		cf_status  *s;
		int			i;

		if (!fake_read(f, fd, hdr, 4))
			return;
		len = cf_load_be32(hdr);
		if (len > 64 * 1024 * 1024)
		{
			fake_fail(f, "fake: huge frame from the client");
			return;
		}
		frame = malloc(len ? len : 1);
		arena = cf_arena_new(0);
		if (!fake_read(f, fd, frame, len))
		{
			free(frame);
			cf_arena_free(arena);
			return;
		}
		cf_rd_init(&r, frame, len);
		s = cf_t_read_message_header(&r, &mh);
		if (s == NULL && !cf_t_method_lookup(mh.name, &m) &&
			!(f->serves_ta && cf_ta_method_lookup(mh.name, &am)))
		{
			char		msg[200];

			/* what Cassandra 0.7's generated processor answers */
			snprintf(msg, sizeof(msg), "Invalid method name: '%.*s'", (int) mh.name.len,
					 (const char *) mh.name.p);
			cf_buf_put_u32(&out, 0);
			cf_t_write_app_exception(&out, mh.name, mh.seqid, CF_T_APP_UNKNOWN_METHOD, msg);
			/* counted before the reply goes, as n_calls: the client may look at once */
			atomic_fetch_add(&f->n_unknown, 1);
			fake_send_frame(fd, &out);
			cf_buf_free(&out);
			free(frame);
			cf_arena_free(arena);
			continue;
		}
		if (s == NULL)
			s = am != CF_TA_M_COUNT_ ? cf_ta_read_args(&r, am, &lim, arena, &ta_args) :
				cf_t_read_args(&r, m, &lim, arena, &args);
		if (s != NULL)
		{
			char		msg[200];

			snprintf(msg, sizeof(msg), "fake: cannot decode a call: %s", cf_status_msg(s));
			fake_fail(f, msg);
			cf_status_free(s);
			free(frame);
			cf_arena_free(arena);
			return;
		}
		i = atomic_load(&f->n_calls);
		if (i >= MAX_CALLS)
		{
			fake_fail(f, "fake: too many calls");
			free(frame);
			cf_arena_free(arena);
			return;
		}
		f->methods[i] = m;
		f->is_ta[i] = am != CF_TA_M_COUNT_;
		if (f->is_ta[i])
		{
			f->ta_methods[i] = am;
			f->ta_args[i] = ta_args;
		}
		else
			f->args[i] = args;
		f->frames[i] = frame;
		f->arenas[i] = arena;
		atomic_store(&f->n_calls, i + 1);

		if (f->next_step < f->n_steps)
			st = f->steps[f->next_step++];
		cf_buf_put_u32(&out, 0);
		switch (st.kind)
		{
			case ACT_HANDLER:
				if (f->handler == NULL || am != CF_TA_M_COUNT_)
				{
					fake_fail(f, "fake: a call beyond the script");
					cf_t_write_app_exception(&out, mh.name, mh.seqid, CF_T_APP_INTERNAL_ERROR,
											 "no script");
					fake_send_frame(fd, &out);
					break;
				}
				memset(&st.res, 0, sizeof(st.res));
				f->handler(f, m, &args, arena, &st.res);
				/* fall through */
			case ACT_REPLY:
				s = am != CF_TA_M_COUNT_ ? cf_ta_write_reply(&out, am, mh.seqid, &st.ta_res) :
					cf_t_write_reply(&out, m, mh.seqid, &st.res);
				if (s != NULL)
				{
					fake_fail(f, "fake: cf_t_write_reply failed");
					cf_status_free(s);
				}
				fake_send_frame(fd, &out);
				break;
			case ACT_APP_EXC:
				cf_t_write_app_exception(&out, mh.name, mh.seqid, CF_T_APP_INTERNAL_ERROR,
										 "boom inside the server");
				fake_send_frame(fd, &out);
				break;
			case ACT_RAW:
				fake_write(fd, st.raw, st.raw_len);
				break;
			case ACT_CLOSE:
				cf_buf_free(&out);
				return;
			case ACT_HANG:
				{
					uint8_t		sink[256];

					while (!atomic_load(&f->stop))
					{
						struct pollfd pfd = {fd, POLLIN, 0};

						if (poll(&pfd, 1, 20) > 0 && read(fd, sink, sizeof(sink)) <= 0)
							break;
					}
					cf_buf_free(&out);
					return;
				}
		}
		cf_buf_free(&out);
	}
}

static void *
fake_main(void *arg)
{
	fake	   *f = arg;

	while (!atomic_load(&f->stop))
	{
		struct pollfd pfd = {f->lfd, POLLIN, 0};
		int			fd;

		if (poll(&pfd, 1, 20) <= 0)
			continue;
		fd = accept(f->lfd, NULL, NULL);
		if (fd < 0)
			continue;
		atomic_fetch_add(&f->n_accepts, 1);
		fake_serve(f, fd);
		close(fd);
	}
	return NULL;
}

/* A listening socket on 127.0.0.1 and an ephemeral port. */
static int
listen_loopback(int *port)
{
	struct sockaddr_in sa = {0};
	socklen_t	len = sizeof(sa);
	int			fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	assert_true(fd >= 0);
	sa.sin_family = AF_INET;
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_int_equal(bind(fd, (struct sockaddr *) &sa, sizeof(sa)), 0);
	assert_int_equal(listen(fd, 8), 0);
	assert_int_equal(getsockname(fd, (struct sockaddr *) &sa, &len), 0);
	*port = ntohs(sa.sin_port);
	return fd;
}

/* A listening unix-domain socket at a new path under /tmp, written to path. */
static int
listen_unix(char *path, size_t size)
{
	static atomic_int seq;
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	int			fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	assert_true(fd >= 0);
	snprintf(path, size, "/tmp/colfam-fake-%d-%d.sock", (int) getpid(),
			 atomic_fetch_add(&seq, 1));
	unlink(path);
	assert_true(strlen(path) < sizeof(sa.sun_path));
	strcpy(sa.sun_path, path);
	assert_int_equal(bind(fd, (struct sockaddr *) &sa, sizeof(sa)), 0);
	assert_int_equal(listen(fd, 8), 0);
	return fd;
}

/* Starts a fake on TCP, or on a unix socket when over_unix. */
static fake *
fake_start_on(handler_fn handler, bool over_unix)
{
	fake	   *f = calloc(1, sizeof(*f));

	assert_non_null(f);
	if (over_unix)
		f->lfd = listen_unix(f->path, sizeof(f->path));
	else
		f->lfd = listen_loopback(&f->port);
	f->handler = handler;
	atomic_init(&f->stop, false);
	assert_int_equal(pthread_create(&f->thread, NULL, fake_main, f), 0);
	return f;
}

static fake *
fake_start(handler_fn handler)
{
	return fake_start_on(handler, false);
}

/* The fake's address as a hosts option: its socket's path or 127.0.0.1:port. */
static void
fake_hosts(const fake *f, char *hosts, size_t size)
{
	if (f->path[0] != '\0')
		snprintf(hosts, size, "%s", f->path);
	else
		snprintf(hosts, size, "127.0.0.1:%d", f->port);
}

/* Script a step; call before the client sends the call it answers. */
static void
fake_push(fake *f, step st)
{
	assert_true(f->n_steps < MAX_STEPS);
	f->steps[f->n_steps++] = st;
}

/* Stops the fake; asserts that it saw no failure of its own. */
static void
fake_stop(fake *f)
{
	char		error[256];

	atomic_store(&f->stop, true);
	pthread_join(f->thread, NULL);
	close(f->lfd);
	if (f->path[0] != '\0')
		unlink(f->path);
	for (int i = 0; i < atomic_load(&f->n_calls); i++)
	{
		free(f->frames[i]);
		cf_arena_free(f->arenas[i]);
	}
	memcpy(error, f->error, sizeof(error));
	free(f);
	if (error[0] != '\0')
		fail_msg("%s", error);
}

/* A port on 127.0.0.1 that refuses connections (bound, then closed). */
static int
refused_port(void)
{
	int			port;
	int			fd = listen_loopback(&port);

	close(fd);
	return port;
}

static cfc_conn *
connect_to(const char *hosts, int io_timeout_ms)
{
	cfc_options opt = {0};
	cfc_conn   *c = NULL;
	cf_status  *s;

	opt.hosts = hosts;
	opt.io_timeout_ms = io_timeout_ms;
	opt.connect_timeout_ms = 1000;
	s = cfc_new(&opt, &c);
	assert_null(s);
	return c;
}

static cfc_conn *
connect_fake(fake *f)
{
	char		hosts[64];

	fake_hosts(f, hosts, sizeof(hosts));
	return connect_to(hosts, 2000);
}

/* Asserts s has code and a message containing needle, then frees it. */
static void
expect_status(cf_status *s, cf_code code, const char *needle)
{
	if (cf_status_code(s) != code || (needle && !strstr(cf_status_msg(s), needle)))
		fail_msg("expected %s containing \"%s\", got %s: %s", cf_code_name(code),
				 needle ? needle : "", cf_code_name(cf_status_code(s)), cf_status_msg(s));
	cf_status_free(s);
}

static void
expect_ok(cf_status *s)
{
	if (s != NULL)
		fail_msg("unexpected error %s: %s", cf_code_name(cf_status_code(s)),
				 cf_status_msg(s));
}

/* ---------------------------------------------------------------- options */

static void
options_are_validated(void **state)
{
	static const char *const bad[] = {
		"", "h1,,h2", "h1:", "h1:0", "h1:65536", "h1:9x", ":9160", "[::1", "[::1]x",
		"[]:9160", " , ",
	};
	cfc_options opt = {0};
	cfc_conn   *c = NULL;

	(void) state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
	{
		opt.hosts = bad[i];
		expect_status(cfc_new(&opt, &c), CF_ERR_INVALID, "hosts");
		assert_null(c);
	}
	opt.hosts = NULL;
	expect_status(cfc_new(&opt, &c), CF_ERR_INVALID, "no host");
	opt.hosts = "h1";
	opt.io_timeout_ms = -1;
	expect_status(cfc_new(&opt, &c), CF_ERR_INVALID, "io_timeout_ms");
	opt.io_timeout_ms = 0;
	opt.password = "secret";
	expect_status(cfc_new(&opt, &c), CF_ERR_INVALID, "username");
	opt.password = NULL;
	opt.hosts = " h1:9161 , h2,[::1]:9162, ::1 ,[fe80::1]";
	expect_ok(cfc_new(&opt, &c));
	assert_non_null(c);
	assert_null(cfc_host(c));	/* no I/O yet */
	cfc_free(c);
}

/* ---------------------------------------------------------------- wrappers */

/* Answers every method with a canned, recognisable result. */
static void
canned_handler(fake *f, cf_t_method m, const cf_t_args *args, cf_arena *arena,
			   cf_t_result *res)
{
	static cf_t_cosc coscs[2];
	static cf_t_key_coscs kc[1];
	static cf_t_key_count kn[1];
	static cf_t_key_slice ks[1];
	static cf_t_schema_version sv[1];
	static cf_slice hosts[1];
	static cf_t_ks_def ksd[1];
	static cf_t_token_range tr[1];
	static cf_slice eps[1];
	static cf_slice splits[3];

	(void) f;
	(void) args;
	(void) arena;
	coscs[0].has_column = true;
	coscs[0].column = (cf_t_column) {S("c1"), S("v1"), 11, false, 0};
	coscs[1].has_column = true;
	coscs[1].column = (cf_t_column) {S("c2"), S("v2"), 12, true, 60};
	switch (m)
	{
		case CF_T_M_GET:
			res->cosc = coscs[1];
			break;
		case CF_T_M_GET_SLICE:
			res->coscs = coscs;
			res->n_coscs = 2;
			break;
		case CF_T_M_GET_COUNT:
			res->count = 42;
			break;
		case CF_T_M_MULTIGET_SLICE:
			kc[0] = (cf_t_key_coscs) {S("k1"), coscs, 2};
			res->key_coscs = kc;
			res->n_key_coscs = 1;
			break;
		case CF_T_M_MULTIGET_COUNT:
			kn[0] = (cf_t_key_count) {S("k1"), 7};
			res->key_counts = kn;
			res->n_key_counts = 1;
			break;
		case CF_T_M_GET_RANGE_SLICES:
		case CF_T_M_GET_INDEXED_SLICES:
			ks[0] = (cf_t_key_slice) {S("rk"), coscs, 1};
			res->key_slices = ks;
			res->n_key_slices = 1;
			break;
		case CF_T_M_DESCRIBE_SCHEMA_VERSIONS:
			hosts[0] = S("127.0.0.1");
			sv[0] = (cf_t_schema_version) {S("v-1"), hosts, 1};
			res->schema_versions = sv;
			res->n_schema_versions = 1;
			break;
		case CF_T_M_DESCRIBE_KEYSPACES:
		case CF_T_M_DESCRIBE_KEYSPACE:
			memset(ksd, 0, sizeof(ksd));
			ksd[0].name = S("Blog");
			ksd[0].strategy_class = S("SimpleStrategy");
			ksd[0].replication_factor = 3;
			res->ks_defs = ksd;
			res->n_ks_defs = 1;
			res->ks_def = ksd[0];
			break;
		case CF_T_M_DESCRIBE_RING:
			eps[0] = S("127.0.0.2");
			tr[0] = (cf_t_token_range) {S("0"), S("100"), eps, 1};
			res->token_ranges = tr;
			res->n_token_ranges = 1;
			break;
		case CF_T_M_DESCRIBE_SPLITS:
			splits[0] = S("0");
			splits[1] = S("50");
			splits[2] = S("100");
			res->strings = splits;
			res->n_strings = 3;
			break;
		case CF_T_M_DESCRIBE_CLUSTER_NAME:
			res->string = S("Test Cluster");
			break;
		case CF_T_M_DESCRIBE_VERSION:
			res->string = S(CF_THRIFT_API_VERSION);
			break;
		case CF_T_M_DESCRIBE_PARTITIONER:
			res->string = S("org.apache.cassandra.dht.RandomPartitioner");
			break;
		case CF_T_M_DESCRIBE_SNITCH:
			res->string = S("SimpleSnitch");
			break;
		default:
			res->string = S("schema-id");	/* system_*; ignored by void methods */
			break;
	}
}

/* The last call the fake decoded: its method is m. */
static const cf_t_args *
last_call(fake *f, cf_t_method m)
{
	int			n = atomic_load(&f->n_calls);

	assert_true(n > 0);
	assert_string_equal(cf_t_method_name(f->methods[n - 1]), cf_t_method_name(m));
	return &f->args[n - 1];
}

static void
read_wrappers_encode_and_decode(void **state)
{
	fake	   *f = fake_start(canned_handler);
	cfc_conn   *c = connect_fake(f);
	cf_arena   *a = cf_arena_new(0);
	cf_t_column_path path = {S("Users"), true, S("sc"), true, S("email")};
	cf_t_column_parent parent = {S("Users"), false, {0}};
	cf_slice	names[2] = {S("a"), S("b")};
	cf_t_slice_predicate byname = {.has_column_names = true, .column_names = names, .n_column_names = 2};
	cf_t_slice_predicate byrange = {false, NULL, 0, true, {S("a"), S("z"), true, 17}};
	cf_slice	keys[3] = {S("k1"), S("k2"), S("")};
	cf_t_key_range range = {0};
	cf_t_index_expression ie[1] = {{S("state"), CF_T_OP_EQ, S("TX")}};
	cf_t_index_clause clause = {ie, 1, S("start"), 25};
	const cf_t_args *got;
	cf_t_cosc	cosc;
	cf_t_cosc  *coscs;
	cf_t_key_coscs *kc;
	cf_t_key_count *kn;
	cf_t_key_slice *ks;
	size_t		n;
	int32_t		count;

	(void) state;
	expect_ok(cfc_get(c, S("row"), &path, CF_T_CL_QUORUM, a, &cosc));
	got = last_call(f, CF_T_M_GET);
	assert_true(S_EQ(got->key, "row"));
	assert_true(S_EQ(got->column_path.column_family, "Users"));
	assert_true(got->column_path.has_super_column && S_EQ(got->column_path.super_column, "sc"));
	assert_true(got->column_path.has_column && S_EQ(got->column_path.column, "email"));
	assert_int_equal(got->consistency_level, CF_T_CL_QUORUM);
	assert_true(cosc.has_column && S_EQ(cosc.column.name, "c2"));
	assert_true(cosc.column.has_ttl && cosc.column.ttl == 60 && cosc.column.timestamp == 12);

	expect_ok(cfc_get_slice(c, S("row"), &parent, &byname, 0, a, &coscs, &n));
	got = last_call(f, CF_T_M_GET_SLICE);
	assert_int_equal(got->consistency_level, CF_T_CL_ONE);	/* 0 means ONE */
	assert_false(got->column_parent.has_super_column);
	assert_true(got->predicate.has_column_names && got->predicate.n_column_names == 2);
	assert_true(S_EQ(got->predicate.column_names[1], "b"));
	assert_int_equal(n, 2);
	assert_true(S_EQ(coscs[0].column.value, "v1"));

	expect_ok(cfc_get_count(c, S("row"), &parent, &byrange, CF_T_CL_ALL, &count));
	got = last_call(f, CF_T_M_GET_COUNT);
	assert_true(got->predicate.has_slice_range && got->predicate.slice_range.reversed);
	assert_int_equal(got->predicate.slice_range.count, 17);
	assert_true(S_EQ(got->predicate.slice_range.start, "a"));
	assert_true(S_EQ(got->predicate.slice_range.finish, "z"));
	assert_int_equal(got->consistency_level, CF_T_CL_ALL);
	assert_int_equal(count, 42);

	expect_ok(cfc_multiget_slice(c, keys, 3, &parent, &byrange, 0, a, &kc, &n));
	got = last_call(f, CF_T_M_MULTIGET_SLICE);
	assert_int_equal(got->n_keys, 3);
	assert_true(S_EQ(got->keys[1], "k2") && got->keys[2].len == 0);
	assert_int_equal(n, 1);
	assert_true(S_EQ(kc[0].key, "k1") && kc[0].n_columns == 2);

	expect_ok(cfc_multiget_count(c, keys, 2, &parent, &byrange, 0, a, &kn, &n));
	got = last_call(f, CF_T_M_MULTIGET_COUNT);
	assert_int_equal(got->n_keys, 2);
	assert_int_equal(n, 1);
	assert_int_equal(kn[0].count, 7);

	range.has_start_token = true;
	range.start_token = S("10");
	range.has_end_token = true;
	range.end_token = S("20");
	range.count = 5;
	expect_ok(cfc_get_range_slices(c, &parent, &byname, &range, 0, a, &ks, &n));
	got = last_call(f, CF_T_M_GET_RANGE_SLICES);
	assert_false(got->range.has_start_key);
	assert_true(got->range.has_start_token && S_EQ(got->range.start_token, "10"));
	assert_true(got->range.has_end_token && S_EQ(got->range.end_token, "20"));
	assert_int_equal(got->range.count, 5);
	assert_int_equal(n, 1);
	assert_true(S_EQ(ks[0].key, "rk"));

	expect_ok(cfc_get_indexed_slices(c, &parent, &clause, &byname, 0, a, &ks, &n));
	got = last_call(f, CF_T_M_GET_INDEXED_SLICES);
	assert_int_equal(got->index_clause.n_expressions, 1);
	assert_int_equal(got->index_clause.expressions[0].op, CF_T_OP_EQ);
	assert_true(S_EQ(got->index_clause.expressions[0].value, "TX"));
	assert_true(S_EQ(got->index_clause.start_key, "start"));
	assert_int_equal(got->index_clause.count, 25);
	assert_true(got->predicate.has_column_names);

	cf_arena_free(a);
	cfc_free(c);
	fake_stop(f);
}

static void
write_and_schema_wrappers_encode(void **state)
{
	fake	   *f = fake_start(canned_handler);
	cfc_conn   *c = connect_fake(f);
	cf_arena   *a = cf_arena_new(0);
	cf_t_column_parent parent = {S("Super1"), true, S("sc")};
	cf_t_column col = {S("name"), S("value"), 1234567, true, 30};
	cf_t_column_path path = {S("Standard1"), false, {0}, true, S("gone")};
	cf_t_mutation muts[2] = {0};
	cf_t_cf_mutations cfm[1] = {{S("Standard1"), muts, 2}};
	cf_t_key_mutations km[1] = {{S("bk"), cfm, 1}};
	cf_t_cf_def cfd = {0};
	cf_t_ks_def ksd = {0};
	const cf_t_args *got;
	cf_slice	id;

	(void) state;
	expect_ok(cfc_insert(c, S("ik"), &parent, &col, CF_T_CL_ANY));
	got = last_call(f, CF_T_M_INSERT);
	assert_true(S_EQ(got->key, "ik"));
	assert_true(got->column_parent.has_super_column && S_EQ(got->column_parent.super_column, "sc"));
	assert_true(S_EQ(got->column.value, "value"));
	assert_true(got->column.timestamp == 1234567 && got->column.has_ttl && got->column.ttl == 30);
	assert_int_equal(got->consistency_level, CF_T_CL_ANY);

	expect_ok(cfc_remove(c, S("rk"), &path, 99, 0));
	got = last_call(f, CF_T_M_REMOVE);
	assert_true(got->timestamp == 99 && S_EQ(got->column_path.column, "gone"));

	muts[0].has_cosc = true;
	muts[0].cosc.has_column = true;
	muts[0].cosc.column = col;
	muts[1].has_deletion = true;
	muts[1].deletion.timestamp = 77;
	expect_ok(cfc_batch_mutate(c, km, 1, CF_T_CL_QUORUM));
	got = last_call(f, CF_T_M_BATCH_MUTATE);
	assert_int_equal(got->n_mutation_map, 1);
	assert_true(S_EQ(got->mutation_map[0].key, "bk"));
	assert_int_equal(got->mutation_map[0].n_cfs, 1);
	assert_int_equal(got->mutation_map[0].cfs[0].n_mutations, 2);
	assert_true(got->mutation_map[0].cfs[0].mutations[1].has_deletion);
	assert_true(got->mutation_map[0].cfs[0].mutations[1].deletion.timestamp == 77);

	expect_ok(cfc_truncate(c, "Standard1"));
	assert_true(S_EQ(last_call(f, CF_T_M_TRUNCATE)->cfname, "Standard1"));

	cfd.keyspace = S("Blog");
	cfd.name = S("Posts");
	cfd.has_comparator_type = true;
	cfd.comparator_type = S("TimeUUIDType");
	expect_ok(cfc_system_add_column_family(c, &cfd, a, &id));
	got = last_call(f, CF_T_M_SYSTEM_ADD_COLUMN_FAMILY);
	assert_true(S_EQ(got->cf_def.name, "Posts"));
	assert_true(S_EQ(got->cf_def.comparator_type, "TimeUUIDType"));
	assert_true(S_EQ(id, "schema-id"));
	expect_ok(cfc_system_update_column_family(c, &cfd, a, NULL));
	last_call(f, CF_T_M_SYSTEM_UPDATE_COLUMN_FAMILY);
	expect_ok(cfc_system_drop_column_family(c, "Posts", a, &id));
	assert_true(S_EQ(last_call(f, CF_T_M_SYSTEM_DROP_COLUMN_FAMILY)->cfname, "Posts"));

	ksd.name = S("Blog");
	ksd.strategy_class = S("SimpleStrategy");
	ksd.replication_factor = 2;
	expect_ok(cfc_system_add_keyspace(c, &ksd, a, &id));
	got = last_call(f, CF_T_M_SYSTEM_ADD_KEYSPACE);
	assert_true(S_EQ(got->ks_def.name, "Blog") && got->ks_def.replication_factor == 2);
	expect_ok(cfc_system_update_keyspace(c, &ksd, a, &id));
	last_call(f, CF_T_M_SYSTEM_UPDATE_KEYSPACE);
	expect_ok(cfc_system_drop_keyspace(c, "Blog", a, &id));
	assert_true(S_EQ(last_call(f, CF_T_M_SYSTEM_DROP_KEYSPACE)->keyspace, "Blog"));

	cf_arena_free(a);
	cfc_free(c);
	fake_stop(f);
}

static void
describe_and_session_wrappers(void **state)
{
	fake	   *f = fake_start(canned_handler);
	cfc_conn   *c = connect_fake(f);
	cf_arena   *a = cf_arena_new(0);
	cf_slice	str;
	cf_t_schema_version *sv;
	cf_t_ks_def *ksds;
	cf_t_ks_def ksd;
	cf_t_token_range *tr;
	cf_slice   *splits;
	size_t		n;
	const cf_t_args *got;

	(void) state;
	expect_ok(cfc_describe_cluster_name(c, a, &str));
	assert_true(S_EQ(str, "Test Cluster"));
	expect_ok(cfc_describe_version(c, a, &str));
	assert_true(S_EQ(str, CF_THRIFT_API_VERSION));
	expect_ok(cfc_describe_partitioner(c, a, &str));
	assert_true(S_EQ(str, "org.apache.cassandra.dht.RandomPartitioner"));
	expect_ok(cfc_describe_snitch(c, a, &str));
	assert_true(S_EQ(str, "SimpleSnitch"));
	expect_ok(cfc_describe_schema_versions(c, a, &sv, &n));
	assert_int_equal(n, 1);
	assert_true(S_EQ(sv[0].version, "v-1") && S_EQ(sv[0].hosts[0], "127.0.0.1"));
	expect_ok(cfc_describe_keyspaces(c, a, &ksds, &n));
	assert_int_equal(n, 1);
	assert_true(S_EQ(ksds[0].name, "Blog") && ksds[0].replication_factor == 3);
	expect_ok(cfc_describe_keyspace(c, "Blog", a, &ksd));
	assert_true(S_EQ(last_call(f, CF_T_M_DESCRIBE_KEYSPACE)->keyspace, "Blog"));
	assert_true(S_EQ(ksd.strategy_class, "SimpleStrategy"));
	expect_ok(cfc_describe_ring(c, "Blog", a, &tr, &n));
	assert_true(S_EQ(last_call(f, CF_T_M_DESCRIBE_RING)->keyspace, "Blog"));
	assert_int_equal(n, 1);
	assert_true(S_EQ(tr[0].end_token, "100") && S_EQ(tr[0].endpoints[0], "127.0.0.2"));
	expect_ok(cfc_describe_splits(c, "Users", "0", "100", 64, a, &splits, &n));
	got = last_call(f, CF_T_M_DESCRIBE_SPLITS);
	assert_true(S_EQ(got->cfname, "Users") && S_EQ(got->start_token, "0"));
	assert_true(S_EQ(got->end_token, "100") && got->keys_per_split == 64);
	assert_int_equal(n, 3);
	assert_true(S_EQ(splits[1], "50"));

	expect_ok(cfc_login(c, "jsmith", "havebadpass"));
	got = last_call(f, CF_T_M_LOGIN);
	assert_int_equal(got->auth_request.n_credentials, 2);
	assert_true(S_EQ(got->auth_request.credentials[0].key, "username"));
	assert_true(S_EQ(got->auth_request.credentials[0].value, "jsmith"));
	assert_true(S_EQ(got->auth_request.credentials[1].value, "havebadpass"));
	expect_ok(cfc_set_keyspace(c, "Blog"));
	assert_true(S_EQ(last_call(f, CF_T_M_SET_KEYSPACE)->keyspace, "Blog"));
	assert_int_equal(atomic_load(&f->n_accepts), 1);	/* one connection throughout */
	assert_non_null(cfc_host(c));

	cf_arena_free(a);
	cfc_free(c);
	fake_stop(f);
}

/* ---------------------------------------------------------------- errors */

static step
exc_step(cf_t_exception_kind kind, const char *why)
{
	step		st = {.kind = ACT_REPLY};

	st.res.exception.kind = kind;
	st.res.exception.why = why ? S(why) : cf_slice_of("", 0);
	return st;
}

static void
declared_exceptions_map_to_codes(void **state)
{
	fake	   *f = fake_start(NULL);
	cfc_conn   *c = connect_fake(f);
	cf_arena   *a = cf_arena_new(0);
	cf_t_column_path path = {S("Users"), false, {0}, true, S("x")};
	cf_t_column_parent parent = {S("Users"), false, {0}};
	cf_t_column col = {S("n"), S("v"), 1, false, 0};
	cf_t_cosc	cosc;
	cf_t_result res;
	cf_t_args	args = {0};

	(void) state;
	fake_push(f, exc_step(CF_T_EXC_NOT_FOUND, NULL));
	expect_status(cfc_get(c, S("k"), &path, 0, a, &cosc), CF_ERR_NOT_FOUND, "get: not found");
	fake_push(f, exc_step(CF_T_EXC_INVALID_REQUEST, "unconfigured columnfamily Users"));
	expect_status(cfc_get(c, S("k"), &path, 0, a, &cosc), CF_ERR_INVALID,
				  "unconfigured columnfamily Users");
	fake_push(f, exc_step(CF_T_EXC_UNAVAILABLE, NULL));
	expect_status(cfc_insert(c, S("k"), &parent, &col, CF_T_CL_QUORUM), CF_ERR_UNAVAILABLE,
				  "QUORUM");
	fake_push(f, exc_step(CF_T_EXC_TIMED_OUT, NULL));
	expect_status(cfc_insert(c, S("k"), &parent, &col, CF_T_CL_ALL), CF_ERR_TIMEOUT, "ALL");
	fake_push(f, exc_step(CF_T_EXC_AUTHENTICATION, "bad credentials"));
	expect_status(cfc_login(c, "joe", "hunter2"), CF_ERR_AUTHENTICATION, "bad credentials");
	fake_push(f, exc_step(CF_T_EXC_AUTHORIZATION, "no access to Blog"));
	expect_status(cfc_login(c, "joe", "hunter2"), CF_ERR_AUTHORIZATION, "no access to Blog");
	/* cfc_call leaves the exception in res too. */
	fake_push(f, exc_step(CF_T_EXC_INVALID_REQUEST, "bad"));
	args.keyspace = S("Nope");
	expect_status(cfc_call(c, CF_T_M_SET_KEYSPACE, &args, a, &res), CF_ERR_INVALID, "bad");
	assert_int_equal(res.exception.kind, CF_T_EXC_INVALID_REQUEST);
	/* Declared exceptions are answers: the connection stays, nothing is resent. */
	assert_int_equal(atomic_load(&f->n_accepts), 1);
	assert_int_equal(atomic_load(&f->n_calls), 7);
	expect_status(cfc_call(c, CF_T_M_COUNT_, &args, a, &res), CF_ERR_INVALID, "no method");

	cf_arena_free(a);
	cfc_free(c);
	fake_stop(f);
}

static void
garbage_replies_are_protocol_errors_and_reset(void **state)
{
	/* A frame whose payload is not a Thrift message; one over max_frame; a negative one. */
	static const uint8_t junk[] = {0, 0, 0, 5, 'h', 'e', 'l', 'l', 'o'};
	static const uint8_t huge[] = {0x01, 0x00, 0x00, 0x00, 'x'};
	static const uint8_t http[] = "HTTP/1.1 400 Bad Request\r\n\r\n";
	fake	   *f = fake_start(canned_handler);
	cfc_conn   *c = connect_fake(f);
	cf_arena   *a = cf_arena_new(0);
	cf_slice	str;

	(void) state;
	fake_push(f, (step) {.kind = ACT_APP_EXC});
	expect_status(cfc_describe_version(c, a, &str), CF_ERR_PROTOCOL, "boom inside the server");
	assert_null(cfc_host(c));	/* reset */
	fake_push(f, (step) {.kind = ACT_RAW, .raw = junk, .raw_len = sizeof(junk)});
	expect_status(cfc_describe_version(c, a, &str), CF_ERR_PROTOCOL, "describe_version");
	assert_null(cfc_host(c));
	fake_push(f, (step) {.kind = ACT_RAW, .raw = huge, .raw_len = sizeof(huge)});
	expect_status(cfc_describe_version(c, a, &str), CF_ERR_PROTOCOL, "max_frame");
	fake_push(f, (step) {.kind = ACT_RAW, .raw = http, .raw_len = sizeof(http) - 1});
	expect_status(cfc_describe_version(c, a, &str), CF_ERR_PROTOCOL, "framed Thrift");
	/* Each error closed the connection; the next call reconnects and works. */
	expect_ok(cfc_describe_version(c, a, &str));
	assert_true(S_EQ(str, CF_THRIFT_API_VERSION));
	assert_int_equal(atomic_load(&f->n_accepts), 5);
	assert_int_equal(atomic_load(&f->n_calls), 5);	/* none was resent */

	cf_arena_free(a);
	cfc_free(c);
	fake_stop(f);
}

/*
 * A reply frame too big for memory is CF_ERR_NO_MEMORY naming the host, not a crash
 * (the message once read the host after the close had forgotten it). Run in a child
 * whose address space is capped; not under ASan, which needs terabytes of it.
 */
static void
a_reply_too_big_for_memory_is_no_memory(void **state)
{
#if defined(__SANITIZE_ADDRESS__)
	(void) state;
	skip();
#else
	static const uint8_t big[] = {0x7f, 0xff, 0xff, 0x00, 'x'};	/* ~2 GiB announced */
	fake	   *f = fake_start(canned_handler);
	pid_t		pid;
	int			wstatus = 0;

	(void) state;
	fake_push(f, (step) {.kind = ACT_RAW, .raw = big, .raw_len = sizeof(big)});
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0)
	{
		struct rlimit rl = {(rlim_t) 1 << 30, (rlim_t) 1 << 30};
		char		hosts[64];
		cfc_options opt = {0};
		cfc_conn   *c;
		cf_arena   *a;
		cf_slice	str;
		cf_status  *s;
		int			ok;

		/* A crash must end the child, not return into cmocka's runner in it. */
		signal(SIGSEGV, SIG_DFL);
		signal(SIGBUS, SIG_DFL);
		signal(SIGABRT, SIG_DFL);
		snprintf(hosts, sizeof(hosts), "127.0.0.1:%d", f->port);
		opt.hosts = hosts;
		opt.max_frame = INT32_MAX;
		if (setrlimit(RLIMIT_AS, &rl) != 0 || cfc_new(&opt, &c) != NULL ||
			(a = cf_arena_new(0)) == NULL)
			_exit(2);
		s = cfc_describe_version(c, a, &str);
		ok = cf_status_code(s) == CF_ERR_NO_MEMORY &&
			strstr(cf_status_msg(s), hosts) != NULL && cfc_host(c) == NULL;
		_exit(ok ? 0 : 1);
	}
	assert_int_equal(waitpid(pid, &wstatus, 0), pid);
	assert_true(WIFEXITED(wstatus));
	assert_int_equal(WEXITSTATUS(wstatus), 0);
	fake_stop(f);
#endif
}

static void
requests_over_max_frame_are_not_sent(void **state)
{
	fake	   *f = fake_start(canned_handler);
	char		hosts[64];
	cfc_options opt = {0};
	cfc_conn   *c;
	char		big[2000];
	cf_t_column_parent parent = {S("Users"), false, {0}};
	cf_t_column col = {S("n"), cf_slice_of(big, sizeof(big)), 1, false, 0};

	(void) state;
	memset(big, 'v', sizeof(big));
	snprintf(hosts, sizeof(hosts), "127.0.0.1:%d", f->port);
	opt.hosts = hosts;
	opt.max_frame = 1024;
	expect_ok(cfc_new(&opt, &c));
	expect_status(cfc_insert(c, S("k"), &parent, &col, 0), CF_ERR_TOO_LARGE, "max_frame");
	assert_int_equal(atomic_load(&f->n_calls), 0);
	col.value = S("small");
	expect_ok(cfc_insert(c, S("k"), &parent, &col, 0));
	assert_int_equal(atomic_load(&f->n_calls), 1);
	cfc_free(c);
	fake_stop(f);
}

/* The transports of the wait tests (their prestate): TCP, and a unix socket. */
static bool over_tcp = false;
static bool over_unix = true;

/* A wait test over one transport, named after both. */
#define WAIT_TEST(f, how) {#f " (" #how ")", f, NULL, NULL, &how}

static void
a_silent_server_times_out(void **state)
{
	fake	   *f = fake_start_on(canned_handler, *(bool *) *state);
	char		hosts[64];
	cfc_conn   *c;
	cf_arena   *a = cf_arena_new(0);
	cf_slice	str;
	int64_t		t0;
	int64_t		took;

	fake_hosts(f, hosts, sizeof(hosts));
	c = connect_to(hosts, 300);
	fake_push(f, (step) {.kind = ACT_HANG});
	t0 = test_clock_ms();
	expect_status(cfc_describe_version(c, a, &str), CF_ERR_TIMEOUT, "300 ms");
	took = test_clock_ms() - t0;
	assert_true(took >= 290 && took < 1500);
	assert_null(cfc_host(c));
	/* A socket timeout is not resent (the server may only be slow). */
	assert_int_equal(atomic_load(&f->n_calls), 1);
	expect_ok(cfc_describe_version(c, a, &str));
	cfc_free(c);

	/* a timeout shorter than a cancel slice (100 ms) is kept, not rounded up to it */
	c = connect_to(hosts, 30);
	fake_push(f, (step) {.kind = ACT_HANG});
	t0 = test_clock_ms();
	expect_status(cfc_describe_version(c, a, &str), CF_ERR_TIMEOUT, "30 ms");
	took = test_clock_ms() - t0;
	assert_true(took >= 25 && took < 100);

	cf_arena_free(a);
	cfc_free(c);
	fake_stop(f);
}

static void
connect_timeout_to_a_blackhole(void **state)
{
	/* A listener whose backlog is full never completes our handshake. */
	int			port;
	int			lfd;
	int			fillers[8];
	int			nf = 0;
	char		hosts[64];
	cfc_options opt = {0};
	cfc_conn   *c;
	int64_t		t0;

	(void) state;
	{
		struct sockaddr_in sa = {0};
		socklen_t	len = sizeof(sa);

		lfd = socket(AF_INET, SOCK_STREAM, 0);
		sa.sin_family = AF_INET;
		sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		assert_int_equal(bind(lfd, (struct sockaddr *) &sa, sizeof(sa)), 0);
		assert_int_equal(listen(lfd, 0), 0);
		getsockname(lfd, (struct sockaddr *) &sa, &len);
		port = ntohs(sa.sin_port);
		/* Fill the backlog with non-blocking connects nobody accepts. */
		for (nf = 0; nf < 8; nf++)
		{
			fillers[nf] = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
			connect(fillers[nf], (struct sockaddr *) &sa, sizeof(sa));
		}
	}
	snprintf(hosts, sizeof(hosts), "127.0.0.1:%d", port);
	opt.hosts = hosts;
	opt.connect_timeout_ms = 300;
	expect_ok(cfc_new(&opt, &c));
	t0 = test_clock_ms();
	{
		cf_status  *s = cfc_connect(c);

		/* Some kernels accept into a full backlog anyway; only check the bound. */
		if (s != NULL)
			expect_status(s, CF_ERR_TIMEOUT, hosts);
	}
	assert_true(test_clock_ms() - t0 < 1500);
	cfc_free(c);
	for (int i = 0; i < nf; i++)
		close(fillers[i]);
	close(lfd);
}

/* ---------------------------------------------------------------- failover */

static void
failover_to_the_next_host(void **state)
{
	fake	   *f = fake_start(canned_handler);
	char		hosts[128];
	cfc_conn   *c;
	cf_arena   *a = cf_arena_new(0);
	cf_slice	str;
	char		want[64];
	int			dead = refused_port();

	(void) state;
	snprintf(hosts, sizeof(hosts), "127.0.0.1:%d,127.0.0.1:%d", dead, f->port);
	c = connect_to(hosts, 2000);
	expect_ok(cfc_describe_cluster_name(c, a, &str));
	snprintf(want, sizeof(want), "127.0.0.1:%d", f->port);
	assert_string_equal(cfc_host(c), want);
	cfc_free(c);

	/* All hosts down: CF_ERR_IO naming each. */
	snprintf(hosts, sizeof(hosts), "127.0.0.1:%d,localhost:%d", dead, dead);
	c = connect_to(hosts, 2000);
	{
		char		h1[64];

		snprintf(h1, sizeof(h1), "127.0.0.1:%d", dead);
		expect_status(cfc_describe_cluster_name(c, a, &str), CF_ERR_IO,
					  "could not connect to any of 2 hosts");
		expect_status(cfc_connect(c), CF_ERR_IO, h1);
	}
	cfc_free(c);
	cf_arena_free(a);
	fake_stop(f);
}

/* Two fakes; the first drops the connection on the first call it receives. */
static void
mid_call_failure_retries_idempotent_calls_only(void **state)
{
	fake	   *f1 = fake_start(canned_handler);
	fake	   *f2 = fake_start(canned_handler);
	char		hosts[128];
	cfc_conn   *c;
	cf_arena   *a = cf_arena_new(0);
	cf_t_column_parent parent = {S("Users"), false, {0}};
	cf_t_column col = {S("n"), S("v"), 1, false, 0};
	cf_t_slice_predicate pred = {false, NULL, 0, true, {{0}, {0}, false, 10}};
	cf_t_cosc  *coscs;
	size_t		n;
	cfc_options opt = {0};

	(void) state;
	snprintf(hosts, sizeof(hosts), "127.0.0.1:%d,127.0.0.1:%d", f1->port, f2->port);

	/* A read: resent to the second host, which answers. */
	c = connect_to(hosts, 2000);
	fake_push(f1, (step) {.kind = ACT_CLOSE});
	expect_ok(cfc_get_slice(c, S("k"), &parent, &pred, 0, a, &coscs, &n));
	assert_int_equal(n, 2);
	assert_int_equal(atomic_load(&f1->n_calls), 1);
	assert_int_equal(atomic_load(&f2->n_calls), 1);

	cfc_free(c);

	/* A write: resent by default (timestamped writes are idempotent). */
	c = connect_to(hosts, 2000);
	fake_push(f1, (step) {.kind = ACT_CLOSE});
	expect_ok(cfc_insert(c, S("k"), &parent, &col, 0));
	assert_int_equal(atomic_load(&f1->n_calls), 2);
	assert_int_equal(atomic_load(&f2->n_calls), 2);
	assert_string_equal(cf_t_method_name(f2->methods[1]), "insert");
	cfc_free(c);

	/* ... but not with no_retry_writes. */
	opt.hosts = hosts;
	opt.no_retry_writes = true;
	expect_ok(cfc_new(&opt, &c));
	fake_push(f1, (step) {.kind = ACT_CLOSE});
	expect_status(cfc_insert(c, S("k"), &parent, &col, 0), CF_ERR_IO,
				  "the server closed the connection");
	assert_int_equal(atomic_load(&f1->n_calls), 3);
	assert_int_equal(atomic_load(&f2->n_calls), 2);
	/* The object stays usable: the next call connects to the next host. */
	expect_ok(cfc_insert(c, S("k"), &parent, &col, 0));
	assert_int_equal(atomic_load(&f2->n_calls), 3);
	cfc_free(c);

	/* truncate is never resent: a replay could drop writes made in between. */
	c = connect_to(hosts, 2000);
	fake_push(f1, (step) {.kind = ACT_CLOSE});
	expect_status(cfc_truncate(c, "Users"), CF_ERR_IO, "truncate");
	assert_int_equal(atomic_load(&f1->n_calls), 4);
	assert_int_equal(atomic_load(&f2->n_calls), 3);
	cfc_free(c);

	cf_arena_free(a);
	fake_stop(f1);
	fake_stop(f2);
}

static void
resends_are_bounded_by_max_attempts(void **state)
{
	fake	   *f1 = fake_start(NULL);
	fake	   *f2 = fake_start(NULL);
	char		hosts[128];
	cfc_options opt = {0};
	cfc_conn   *c;
	cf_slice	str;

	(void) state;
	snprintf(hosts, sizeof(hosts), "127.0.0.1:%d,127.0.0.1:%d", f1->port, f2->port);
	for (int i = 0; i < 4; i++)
	{
		fake_push(f1, (step) {.kind = ACT_CLOSE});
		fake_push(f2, (step) {.kind = ACT_CLOSE});
	}
	opt.hosts = hosts;
	opt.max_attempts = 3;
	expect_ok(cfc_new(&opt, &c));
	expect_status(cfc_describe_version(c, NULL, &str), CF_ERR_IO, "failed 3 times");
	assert_int_equal(atomic_load(&f1->n_calls) + atomic_load(&f2->n_calls), 3);
	assert_int_equal(atomic_load(&f1->n_calls), 2);	/* f1, f2, f1 */
	cfc_free(c);
	/* The leftover steps are never used; the fakes must not complain of them. */
	fake_stop(f1);
	fake_stop(f2);
}

/* ---------------------------------------------------------------- cancellation */

typedef struct cancel_state
{
	int			polls;
	int			cancel_after;
} cancel_state;

static bool
cancel_cb(void *arg)
{
	cancel_state *cs = arg;

	return ++cs->polls > cs->cancel_after;
}

static void
the_cancel_callback_stops_a_wait(void **state)
{
	fake	   *f = fake_start_on(canned_handler, *(bool *) *state);
	cfc_conn   *c = connect_fake(f);	/* io timeout 2 s */
	cancel_state cs = {0, 3};
	cf_slice	str;
	int64_t		t0;
	int64_t		took;

	expect_ok(cfc_describe_version(c, NULL, &str));	/* connected before the hang */
	cfc_set_cancel(c, cancel_cb, &cs);
	fake_push(f, (step) {.kind = ACT_HANG});
	t0 = test_clock_ms();
	expect_status(cfc_describe_version(c, NULL, &str), CF_ERR_CANCELLED, "cancelled");
	took = test_clock_ms() - t0;
	/* Polled every CFC_POLL_SLICE_MS: cancelled after 3 slices, long before 2 s. */
	assert_true(took >= 2 * CFC_POLL_SLICE_MS && took < 1000);
	assert_true(cs.polls >= 4);
	assert_null(cfc_host(c));
	assert_int_equal(atomic_load(&f->n_calls), 2);	/* not resent */

	/* Once the callback says go on, the connection works again. */
	cfc_set_cancel(c, NULL, NULL);
	expect_ok(cfc_describe_version(c, NULL, &str));
	cfc_free(c);
	fake_stop(f);
}

static atomic_int alarms;

static void
count_alarm(int sig)
{
	(void) sig;
	atomic_fetch_add(&alarms, 1);
}

static bool
cancel_after_20_alarms(void *arg)
{
	(void) arg;
	return atomic_load(&alarms) >= 20;
}

/*
 * Signals every 2 ms, with a handler installed SA_RESTART as PostgreSQL installs its
 * own, keep breaking into the client's blocking recv (SO_RCVTIMEO: not restarted): a
 * reply far larger than the socket buffers still arrives whole, in many pieces, and a
 * wait for a silent server is no error but asks the cancel callback, which stops it.
 * The fake server's thread has SIGALRM blocked: only the client is interrupted.
 */
static void
signals_during_waits_are_harmless(void **state)
{
	sigset_t	alrm;
	fake	   *f;
	cfc_conn   *c;
	cf_arena   *a = cf_arena_new(0);
	struct sigaction sa = {0};
	struct sigaction old;
	struct itimerval every = {{0, 2000}, {0, 2000}};
	struct itimerval off = {{0, 0}, {0, 0}};
	size_t		big = 3 * 1024 * 1024;
	uint8_t    *value = malloc(big);
	const char *names[3] = {"a", "b", "c"};
	step		st = {.kind = ACT_REPLY};
	cf_t_cosc	coscs[3];
	cf_t_cosc  *got;
	size_t		n;
	cf_t_column_parent parent = {S("Users"), false, {0}};
	cf_t_slice_predicate pred = {false, NULL, 0, true, {{0}, {0}, false, 10}};
	cf_slice	str;

	sigemptyset(&alrm);
	sigaddset(&alrm, SIGALRM);
	pthread_sigmask(SIG_BLOCK, &alrm, NULL);
	f = fake_start_on(canned_handler, *(bool *) *state);	/* it inherits the blocked SIGALRM */
	pthread_sigmask(SIG_UNBLOCK, &alrm, NULL);
	c = connect_fake(f);
	assert_non_null(value);
	for (size_t i = 0; i < big; i++)
		value[i] = (uint8_t) (i * 7 + i / 251);
	memset(coscs, 0, sizeof(coscs));
	for (int i = 0; i < 3; i++)
	{
		coscs[i].has_column = true;
		coscs[i].column = (cf_t_column) {S(names[i]), cf_slice_of(value, big), i, false, 0};
	}
	st.res.coscs = coscs;
	st.res.n_coscs = 3;
	sa.sa_handler = count_alarm;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	assert_int_equal(sigaction(SIGALRM, &sa, &old), 0);
	atomic_store(&alarms, 0);
	assert_int_equal(setitimer(ITIMER_REAL, &every, NULL), 0);

	expect_ok(cfc_describe_version(c, a, &str));
	fake_push(f, st);
	expect_ok(cfc_get_slice(c, S("k"), &parent, &pred, 0, a, &got, &n));
	assert_int_equal(n, 3);
	for (size_t i = 0; i < n; i++)
	{
		assert_true(got[i].has_column);
		assert_true(S_EQ(got[i].column.name, names[i]));
		assert_int_equal(got[i].column.value.len, big);
		assert_memory_equal(got[i].column.value.p, value, big);
	}
	assert_non_null(cfc_host(c));

	cfc_set_cancel(c, cancel_after_20_alarms, NULL);
	atomic_store(&alarms, 0);
	fake_push(f, (step) {.kind = ACT_HANG});
	expect_status(cfc_describe_version(c, a, &str), CF_ERR_CANCELLED, "cancelled");
	assert_true(atomic_load(&alarms) >= 20);

	assert_int_equal(setitimer(ITIMER_REAL, &off, NULL), 0);
	assert_int_equal(sigaction(SIGALRM, &old, NULL), 0);
	cfc_set_cancel(c, NULL, NULL);
	expect_ok(cfc_describe_version(c, a, &str));
	free(value);
	cf_arena_free(a);
	cfc_free(c);
	fake_stop(f);
}

/* ---------------------------------------------------------------- session */

static void
login_and_keyspace_on_every_connect(void **state)
{
	fake	   *f = fake_start(canned_handler);
	char		hosts[64];
	cfc_options opt = {0};
	cfc_conn   *c;
	cf_slice	str;

	(void) state;
	snprintf(hosts, sizeof(hosts), "127.0.0.1:%d", f->port);
	opt.hosts = hosts;
	opt.keyspace = "Blog";
	opt.username = "jsmith";
	opt.password = "s3cr3t-pw";
	expect_ok(cfc_new(&opt, &c));
	expect_ok(cfc_describe_version(c, NULL, &str));
	assert_int_equal(atomic_load(&f->n_calls), 3);
	assert_int_equal(f->methods[0], CF_T_M_LOGIN);
	assert_true(S_EQ(f->args[0].auth_request.credentials[1].value, "s3cr3t-pw"));
	assert_int_equal(f->methods[1], CF_T_M_SET_KEYSPACE);
	assert_true(S_EQ(f->args[1].keyspace, "Blog"));

	/* A keyspace chosen later is the one set again after a reconnect. */
	expect_ok(cfc_set_keyspace(c, "Other"));
	fake_push(f, (step) {.kind = ACT_CLOSE});	/* describe_version: dropped */
	expect_ok(cfc_describe_version(c, NULL, &str));	/* resent after a reconnect */
	assert_int_equal(atomic_load(&f->n_accepts), 2);
	assert_int_equal(f->methods[5], CF_T_M_LOGIN);
	assert_int_equal(f->methods[6], CF_T_M_SET_KEYSPACE);
	assert_true(S_EQ(f->args[6].keyspace, "Other"));
	assert_int_equal(f->methods[7], CF_T_M_DESCRIBE_VERSION);
	cfc_free(c);

	/* A refused login: AUTHENTICATION, the password in no message, no failover. */
	opt.password = "wrong-pw-1234";
	expect_ok(cfc_new(&opt, &c));
	fake_push(f, exc_step(CF_T_EXC_AUTHENTICATION, "invalid password"));
	{
		cf_status  *s = cfc_describe_version(c, NULL, &str);

		assert_int_equal(cf_status_code(s), CF_ERR_AUTHENTICATION);
		assert_null(strstr(cf_status_msg(s), "wrong-pw-1234"));
		assert_non_null(strstr(cf_status_msg(s), "invalid password"));
		cf_status_free(s);
	}
	assert_null(cfc_host(c));
	cfc_free(c);

	/* A keyspace that does not exist: INVALID naming it. */
	opt.password = "s3cr3t-pw";
	opt.keyspace = "Nope";
	expect_ok(cfc_new(&opt, &c));
	fake_push(f, (step) {.kind = ACT_HANDLER});
	fake_push(f, exc_step(CF_T_EXC_INVALID_REQUEST, "Keyspace Nope does not exist"));
	expect_status(cfc_connect(c), CF_ERR_INVALID, "setting keyspace \"Nope\"");
	cfc_free(c);
	fake_stop(f);
}

/* An abandoned call (the cancel callback longjmp'd out) is noticed and reset. */
static jmp_buf escape;

static bool
longjmp_cb(void *arg)
{
	(void) arg;
	longjmp(escape, 1);
}

static void
an_abandoned_call_resets_the_connection(void **state)
{
	fake	   *f = fake_start(canned_handler);
	cfc_conn   *volatile c = connect_fake(f);
	cf_slice	str;

	(void) state;
	expect_ok(cfc_describe_version(c, NULL, &str));
	fake_push(f, (step) {.kind = ACT_HANG});
	cfc_set_cancel(c, longjmp_cb, NULL);
	if (setjmp(escape) == 0)
	{
		cf_status  *s = cfc_describe_version(c, NULL, &str);

		cf_status_free(s);
		fail_msg("the callback should have jumped out");
	}
	cfc_set_cancel(c, NULL, NULL);
	/* The hung reply is never read as the answer to the next call. */
	expect_ok(cfc_describe_version(c, NULL, &str));
	assert_true(S_EQ(str, CF_THRIFT_API_VERSION));
	assert_int_equal(atomic_load(&f->n_accepts), 2);
	cfc_free(c);
	fake_stop(f);
}

/* ---------------------------------------------------------------- pagers */

/* A simulated wide row: ROW_N columns "n000", "n003", ... in BytesType order. */
#define ROW_N 100
static char row_names[ROW_N][16];

/* A simulated key space: KEYS_N keys, and their RandomPartitioner tokens. */
#define KEYS_N 57
static char keys[KEYS_N][16];
static uint8_t key_tokens[KEYS_N][CF_RANDOM_TOKEN_LEN];
static int by_token[KEYS_N];	/* key indices in token order */

/*
 * Every n-th call of a pager test fails with TimedOutException (0: none), except
 * describe_partitioner, which declares no such exception.
 */
static atomic_int fail_call;

static int
token_order(const void *a, const void *b)
{
	return memcmp(key_tokens[*(const int *) a], key_tokens[*(const int *) b],
				  CF_RANDOM_TOKEN_LEN);
}

static void
sim_init(void)
{
	for (int i = 0; i < ROW_N; i++)
		snprintf(row_names[i], sizeof(row_names[i]), "n%03d", i * 3);
	for (int i = 0; i < KEYS_N; i++)
	{
		cf_buf		b = CF_BUF_INIT;

		snprintf(keys[i], sizeof(keys[i]), "key%02d", i);
		expect_ok(cf_partitioner_token(CF_PARTITIONER_RANDOM, S(keys[i]), &b));
		assert_int_equal(b.len, CF_RANDOM_TOKEN_LEN);
		memcpy(key_tokens[i], b.data, CF_RANDOM_TOKEN_LEN);
		cf_buf_free(&b);
		by_token[i] = i;
	}
	qsort(by_token, KEYS_N, sizeof(int), token_order);
}

/* get_slice over the simulated row, as the server would answer: indices into out. */
static size_t
sim_slice(const cf_t_slice_predicate *p, int *out)
{
	size_t		n = 0;

	if (p->has_column_names)
	{
		for (int i = 0; i < ROW_N; i++)
			for (size_t j = 0; j < p->n_column_names; j++)
				if (cf_slice_eq(p->column_names[j], S(row_names[i])))
				{
					out[n++] = i;
					break;
				}
		return n;
	}
	for (int k = 0; k < ROW_N && (int64_t) n < p->slice_range.count; k++)
	{
		const cf_t_slice_range *r = &p->slice_range;
		int			i = r->reversed ? ROW_N - 1 - k : k;
		int			from = r->start.len ? cf_slice_cmp(S(row_names[i]), r->start) : 0;
		int			to = r->finish.len ? cf_slice_cmp(S(row_names[i]), r->finish) : 0;

		if (r->reversed ? from > 0 : from < 0)
			continue;
		if (r->reversed ? to < 0 : to > 0)
			break;
		out[n++] = i;
	}
	return n;
}

/* A token's bytes from its text; "" is the minimum (empty) token. */
static cf_slice
parse_token(cf_slice text, cf_buf *b)
{
	cf_buf_reset(b);
	if (text.len > 0)
		expect_ok(cf_token_from_string(CF_PARTITIONER_RANDOM, text, b));
	return cf_slice_of(b->data, b->len);
}

/* get_range_slices over the simulated keys: key indices in answer order. */
static size_t
sim_range(const cf_t_key_range *r, int *out)
{
	size_t		n = 0;

	if (!r->has_start_token)
	{
		for (int i = 0; i < KEYS_N && (int64_t) n < r->count; i++)
		{
			if (cf_slice_cmp(S(keys[i]), r->start_key) < 0)
				continue;
			if (r->end_key.len && cf_slice_cmp(S(keys[i]), r->end_key) > 0)
				break;
			out[n++] = i;
		}
	}
	else
	{
		cf_buf		sb = CF_BUF_INIT;
		cf_buf		eb = CF_BUF_INIT;
		cf_slice	start = parse_token(r->start_token, &sb);
		cf_slice	end = parse_token(r->end_token, &eb);
		int			first = 0;

		/* Ring order from just after start, wrapping; keep what (start, end] holds. */
		while (first < KEYS_N &&
			   cf_slice_cmp(cf_slice_of(key_tokens[by_token[first]], CF_RANDOM_TOKEN_LEN),
							start) <= 0)
			first++;
		for (int k = 0; k < KEYS_N && (int64_t) n < r->count; k++)
		{
			int			i = by_token[(first + k) % KEYS_N];

			if (cf_token_range_contains(start, end,
										cf_slice_of(key_tokens[i], CF_RANDOM_TOKEN_LEN)))
				out[n++] = i;
		}
		cf_buf_free(&sb);
		cf_buf_free(&eb);
	}
	return n;
}

/* The SliceRange count of the last get_range_slices (-1: column names). */
static atomic_int sim_row_count;

static void
sim_handler(fake *f, cf_t_method m, const cf_t_args *args, cf_arena *arena,
			cf_t_result *res)
{
	int			idx[ROW_N + KEYS_N];
	size_t		n;
	int			fc = atomic_load(&fail_call);

	if (fc > 0 && atomic_load(&f->n_calls) % fc == 0 && m != CF_T_M_DESCRIBE_PARTITIONER)
	{
		res->exception.kind = CF_T_EXC_TIMED_OUT;
		return;
	}
	switch (m)
	{
		case CF_T_M_GET_SLICE:
			n = sim_slice(&args->predicate, idx);
			res->coscs = cf_arena_alloc(arena, n * sizeof(cf_t_cosc));
			memset(res->coscs, 0, n * sizeof(cf_t_cosc));
			for (size_t i = 0; i < n; i++)
			{
				res->coscs[i].has_column = true;
				res->coscs[i].column.name = S(row_names[idx[i]]);
				res->coscs[i].column.value = S("v");
			}
			res->n_coscs = n;
			break;
		case CF_T_M_GET_RANGE_SLICES:
			atomic_store(&sim_row_count, args->predicate.has_slice_range
						 ? args->predicate.slice_range.count : -1);
			n = sim_range(&args->range, idx);
			res->key_slices = cf_arena_alloc(arena, n * sizeof(cf_t_key_slice));
			memset(res->key_slices, 0, n * sizeof(cf_t_key_slice));
			for (size_t i = 0; i < n; i++)
				res->key_slices[i].key = S(keys[idx[i]]);
			res->n_key_slices = n;
			break;
		case CF_T_M_DESCRIBE_PARTITIONER:
			res->string = S("org.apache.cassandra.dht.RandomPartitioner");
			break;
		default:
			fake_fail(f, "sim: unexpected method");
			break;
	}
}

/*
 * Either pager, one page at a time: next() gives a page as indices into the simulation
 * (row_names for a column pager, keys for a range pager), at most room of them.
 */
typedef struct pager_ops
{
	cf_status  *(*next) (void *pager, int *idx, size_t room, size_t *n);
	void		(*set_page_size) (void *pager, int32_t page_size);
} pager_ops;

static cf_status *
column_page(void *pager, int *idx, size_t room, size_t *n)
{
	const cf_t_cosc *items;
	cf_status  *s = cfc_column_pager_next(pager, &items, n);

	if (s == NULL)
	{
		assert_true(*n <= room);
		for (size_t i = 0; i < *n; i++)
			idx[i] = atoi((const char *) items[i].column.name.p + 1) / 3;
	}
	return s;
}

static void
column_set_page_size(void *pager, int32_t page_size)
{
	cfc_column_pager_set_page_size(pager, page_size);
}

static const pager_ops column_ops = {column_page, column_set_page_size};

static cf_status *
range_page(void *pager, int *idx, size_t room, size_t *n)
{
	const cf_t_key_slice *rows;
	cf_status  *s = cfc_range_pager_next(pager, &rows, n);

	if (s == NULL)
	{
		assert_true(*n <= room);
		for (size_t i = 0; i < *n; i++)
			idx[i] = atoi((const char *) rows[i].key.p + 3);
	}
	return s;
}

static void
range_set_page_size(void *pager, int32_t page_size)
{
	cfc_range_pager_set_page_size(pager, page_size);
}

static const pager_ops range_ops = {range_page, range_set_page_size};

/* Called after each page (the pages so far, the items so far). */
typedef void (*page_hook) (void *pager, int pages, size_t total, void *arg);

/*
 * Runs a pager to the end, hook after each page (NULL: none): the indices seen, at
 * most cap. Pages are at most page items; a page that times out (fail_call) is asked
 * again.
 */
static size_t
collect_pages(const pager_ops *ops, void *pager, int32_t page, page_hook hook, void *arg,
			  int *seen, size_t cap)
{
	size_t		total = 0;
	int			pages = 0;

	for (;;)
	{
		size_t		n;
		cf_status  *s = ops->next(pager, seen + total, cap - total, &n);

		if (cf_status_code(s) == CF_ERR_TIMEOUT)
		{
			cf_status_free(s);	/* a failed page is asked again */
			continue;
		}
		expect_ok(s);
		if (n == 0)
			break;
		assert_true(n <= (size_t) page);
		total += n;
		if (hook != NULL)
			hook(pager, ++pages, total, arg);
	}
	return total;
}

/*
 * A pager whose page size changes after the first page (a LIMIT's size first, then a
 * fetch size): the first page has first items, the later ones at most later (some
 * exactly later), and the items are want[0 .. nw) (at most cap): nothing is lost or
 * repeated.
 */
static void
check_resized_pages(const pager_ops *ops, void *pager, int32_t first, int32_t later,
					const int *want, size_t nw, size_t cap)
{
	int			seen[ROW_N > KEYS_N ? ROW_N : KEYS_N];
	size_t		total = 0;
	size_t		biggest = 0;

	assert_true(cap <= sizeof(seen) / sizeof(seen[0]));
	for (int pages = 0;; pages++)
	{
		size_t		n;

		expect_ok(ops->next(pager, seen + total, cap - total, &n));
		if (n == 0)
			break;
		if (pages == 0)
		{
			assert_int_equal(n, first);
			ops->set_page_size(pager, later);
		}
		else
		{
			assert_true(n <= (size_t) later);
			biggest = n > biggest ? n : biggest;
		}
		total += n;
	}
	assert_int_equal(biggest, later);
	assert_int_equal(total, nw);
	assert_memory_equal(seen, want, nw * sizeof(int));
}

/* Runs a column pager to the end; the names seen, as indices; the calls it made. */
static size_t
run_column_pager(cfc_conn *c, fake *f, const cf_t_slice_predicate *pred, int32_t page,
				 int *seen, int *calls)
{
	cf_t_column_parent parent = {S("Wide"), false, {0}};
	cfc_column_pager *p;
	size_t		total;
	int			before = atomic_load(&f->n_calls);

	expect_ok(cfc_column_pager_new(c, S("row"), &parent, pred, page, 0, &p));
	total = collect_pages(&column_ops, p, page, NULL, NULL, seen, ROW_N);
	cfc_column_pager_free(p);
	*calls = atomic_load(&f->n_calls) - before;
	return total;
}

static void
check_column_pager(cfc_conn *c, fake *f, cf_t_slice_predicate pred, int32_t page)
{
	int			want[ROW_N];
	int			seen[ROW_N];
	int			calls;
	size_t		nw;
	size_t		ns;

	nw = sim_slice(&pred, want);
	ns = run_column_pager(c, f, &pred, page, seen, &calls);
	if (ns != nw || memcmp(want, seen, nw * sizeof(int)) != 0)
		fail_msg("page %d reversed %d: %zu columns paged, %zu expected", (int) page,
				 (int) pred.slice_range.reversed, ns, nw);
}

static void
column_pager_pages_a_wide_row(void **state)
{
	fake	   *f = fake_start(sim_handler);
	cfc_conn   *c = connect_fake(f);
	static const int32_t pages[] = {1, 2, 7, 33, 99, 100, 101, 1000};
	cf_t_slice_predicate all = {false, NULL, 0, true, {{0}, {0}, false, INT32_MAX}};
	int			seen[ROW_N];
	int			calls;

	(void) state;
	for (size_t i = 0; i < sizeof(pages) / sizeof(pages[0]); i++)
	{
		cf_t_slice_predicate p = all;

		check_column_pager(c, f, p, pages[i]);
		p.slice_range.reversed = true;
		check_column_pager(c, f, p, pages[i]);
		/* Bounds: forward n030..n150, reversed n150..n030, both inclusive. */
		p.slice_range.start = S("n150");
		p.slice_range.finish = S("n030");
		check_column_pager(c, f, p, pages[i]);
		p.slice_range.reversed = false;
		p.slice_range.start = S("n030");
		p.slice_range.finish = S("n150");
		check_column_pager(c, f, p, pages[i]);
		/* A start between two names. */
		p.slice_range.start = S("n031");
		check_column_pager(c, f, p, pages[i]);
		/* A total limit. */
		p.slice_range.count = 23;
		check_column_pager(c, f, p, pages[i]);
	}

	/* Pages of 10 over 100 columns: 10 full pages, then one that comes back short. */
	assert_int_equal(run_column_pager(c, f, &all, 10, seen, &calls), ROW_N);
	assert_int_equal(calls, 11);
	/* A limit that ends on a page boundary needs no extra call. */
	all.slice_range.count = 30;
	assert_int_equal(run_column_pager(c, f, &all, 10, seen, &calls), 30);
	assert_int_equal(calls, 3);
	/* A predicate that matches nothing: one call, then the end. */
	all.slice_range.start = S("z");
	assert_int_equal(run_column_pager(c, f, &all, 10, seen, &calls), 0);
	assert_int_equal(calls, 1);

	cfc_free(c);
	fake_stop(f);
}

static void
column_pager_pages_names_and_resumes_after_errors(void **state)
{
	fake	   *f = fake_start(sim_handler);
	cfc_conn   *c = connect_fake(f);
	cf_slice	names[25];
	char		buf[25][16];
	cf_t_slice_predicate pred = {.has_column_names = true, .column_names = names, .n_column_names = 25};
	cf_t_slice_predicate all = {false, NULL, 0, true, {{0}, {0}, false, INT32_MAX}};
	int			seen[ROW_N];
	int			calls;

	(void) state;
	/*
	 * Some names exist (multiples of 3), some not; the pager asks 4 at a time. Pages
	 * follow the order of the names (the server sorts within a page), so ascending
	 * names come back sorted.
	 */
	for (int i = 0; i < 25; i++)
	{
		snprintf(buf[i], sizeof(buf[i]), "n%03d", 4 * i + (i % 2));
		names[i] = S(buf[i]);
	}
	check_column_pager(c, f, pred, 4);
	assert_true(run_column_pager(c, f, &pred, 4, seen, &calls) > 0);
	assert_int_equal(calls, 7);	/* ceil(25 / 4) */

	/* Every 3rd call times out; the pager asks again and loses nothing. */
	atomic_store(&fail_call, 3);
	check_column_pager(c, f, all, 9);
	all.slice_range.reversed = true;
	check_column_pager(c, f, all, 4);
	atomic_store(&fail_call, 0);

	cfc_free(c);
	fake_stop(f);
}

/* check_resized_pages over a column pager. */
static void
check_column_pager_resized(cfc_conn *c, cf_t_slice_predicate pred, int32_t first,
						   int32_t later)
{
	cf_t_column_parent parent = {S("Wide"), false, {0}};
	cfc_column_pager *p;
	int			want[ROW_N];
	size_t		nw = sim_slice(&pred, want);

	expect_ok(cfc_column_pager_new(c, S("row"), &parent, &pred, first, 0, &p));
	check_resized_pages(&column_ops, p, first, later, want, nw, ROW_N);
	cfc_column_pager_free(p);
}

static void
column_pager_page_size_can_change(void **state)
{
	fake	   *f = fake_start(sim_handler);
	cfc_conn   *c = connect_fake(f);
	cf_t_slice_predicate all = {false, NULL, 0, true, {{0}, {0}, false, INT32_MAX}};
	cf_slice	names[40];
	char		buf[40][16];
	cf_t_slice_predicate byname = {.has_column_names = true, .column_names = names,
	.n_column_names = 40};

	(void) state;
	check_column_pager_resized(c, all, 3, 10);
	check_column_pager_resized(c, all, 30, 7);
	all.slice_range.reversed = true;
	check_column_pager_resized(c, all, 1, 25);
	for (int i = 0; i < 40; i++)
	{
		snprintf(buf[i], sizeof(buf[i]), "n%03d", 3 * i);	/* all exist */
		names[i] = S(buf[i]);
	}
	check_column_pager_resized(c, byname, 5, 12);
	cfc_free(c);
	fake_stop(f);
}

/*
 * Runs a range pager (prefetching when asked) to the end, hook after each page: key
 * indices seen; the calls it made. Pages are at most page rows.
 */
static size_t
run_range_pager_with(cfc_conn *c, fake *f, const cf_t_key_range *range, int32_t page,
					 bool prefetch, page_hook hook, void *arg, int *seen, int *calls)
{
	cf_t_column_parent parent = {S("Users"), false, {0}};
	cf_t_slice_predicate pred = {false, NULL, 0, true, {{0}, {0}, false, 10}};
	cfc_range_pager *p;
	size_t		total;
	int			before = atomic_load(&f->n_calls);

	expect_ok(cfc_range_pager_new(c, &parent, &pred, range, page, 0, &p));
	cfc_range_pager_set_prefetch(p, prefetch);
	total = collect_pages(&range_ops, p, page, hook, arg, seen, KEYS_N);
	cfc_range_pager_free(p);
	*calls = atomic_load(&f->n_calls) - before;
	return total;
}

/* Runs a range pager to the end: key indices seen; the calls it made. */
static size_t
run_range_pager(cfc_conn *c, fake *f, const cf_t_key_range *range, int32_t page,
				int *seen, int *calls)
{
	return run_range_pager_with(c, f, range, page, false, NULL, NULL, seen, calls);
}

static void
check_range_pager(cfc_conn *c, fake *f, cf_t_key_range range, int32_t page)
{
	int			want[KEYS_N];
	int			seen[KEYS_N];
	int			calls;
	size_t		nw;
	size_t		ns;
	cf_t_key_range sim = range;

	if (!sim.has_start_token)
		sim.has_start_key = sim.has_end_key = true;
	nw = sim_range(&sim, want);
	ns = run_range_pager(c, f, &range, page, seen, &calls);
	if (ns != nw || memcmp(want, seen, nw * sizeof(int)) != 0)
		fail_msg("page %d, %s range: %zu rows paged, %zu expected", (int) page,
				 range.has_start_token ? "token" : "key", ns, nw);
}

/* check_resized_pages over a range pager. */
static void
check_range_pager_resized(cfc_conn *c, cf_t_key_range range, int32_t first, int32_t later)
{
	cf_t_column_parent parent = {S("Users"), false, {0}};
	cf_t_slice_predicate pred = {false, NULL, 0, true, {{0}, {0}, false, 10}};
	cfc_range_pager *p;
	int			want[KEYS_N];
	cf_t_key_range sim = range;
	size_t		nw;

	if (!sim.has_start_token)
		sim.has_start_key = sim.has_end_key = true;
	nw = sim_range(&sim, want);
	expect_ok(cfc_range_pager_new(c, &parent, &pred, &range, first, 0, &p));
	check_resized_pages(&range_ops, p, first, later, want, nw, KEYS_N);
	cfc_range_pager_free(p);
}

static void
range_pager_page_size_can_change(void **state)
{
	fake	   *f = fake_start(sim_handler);
	cfc_conn   *c = connect_fake(f);
	cf_t_key_range keyr = {.count = INT32_MAX};
	cf_t_key_range tokr = {.count = INT32_MAX, .has_start_token = true,
	.has_end_token = true};

	(void) state;
	check_range_pager_resized(c, keyr, 2, 20);
	check_range_pager_resized(c, keyr, 20, 3);
	check_range_pager_resized(c, tokr, 1, 10);
	check_range_pager_resized(c, tokr, 10, 4);
	cfc_free(c);
	fake_stop(f);
}

/*
 * A range pager's columns per row can change between pages: the next page asks the
 * new SliceRange count, the rows go on where they were; a names predicate stays.
 */
static void
range_pager_row_count_can_change(void **state)
{
	fake	   *f = fake_start(sim_handler);
	cfc_conn   *c = connect_fake(f);
	cf_t_column_parent parent = {S("Users"), false, {0}};
	cf_t_slice_predicate pred = {false, NULL, 0, true, {{0}, {0}, false, 10}};
	cf_slice	name = S("n000");
	cf_t_slice_predicate byname = {.has_column_names = true, .column_names = &name,
	.n_column_names = 1};
	cf_t_key_range range = {.count = INT32_MAX};
	cfc_range_pager *p;
	const cf_t_key_slice *rows;
	size_t		n;
	size_t		total = 0;
	int			want[KEYS_N];
	int			seen[KEYS_N];
	cf_t_key_range sim = range;

	(void) state;
	sim.has_start_key = sim.has_end_key = true;
	expect_ok(cfc_range_pager_new(c, &parent, &pred, &range, 20, 0, &p));
	expect_ok(cfc_range_pager_next(p, &rows, &n));
	assert_int_equal(n, 20);
	assert_int_equal(atomic_load(&sim_row_count), 10);
	for (size_t i = 0; i < n; i++)
		seen[total++] = atoi((const char *) rows[i].key.p + 3);
	cfc_range_pager_set_row_count(p, 500);
	cfc_range_pager_set_row_count(p, 0);	/* not a count: ignored */
	for (;;)
	{
		expect_ok(cfc_range_pager_next(p, &rows, &n));
		if (n == 0)
			break;
		assert_int_equal(atomic_load(&sim_row_count), 500);
		for (size_t i = 0; i < n; i++)
		{
			assert_true(total < KEYS_N);
			seen[total++] = atoi((const char *) rows[i].key.p + 3);
		}
	}
	cfc_range_pager_free(p);
	assert_int_equal(total, sim_range(&sim, want));
	assert_memory_equal(seen, want, total * sizeof(int));

	expect_ok(cfc_range_pager_new(c, &parent, &byname, &range, 20, 0, &p));
	cfc_range_pager_set_row_count(p, 500);
	expect_ok(cfc_range_pager_next(p, &rows, &n));
	assert_int_equal(atomic_load(&sim_row_count), -1);
	cfc_range_pager_free(p);
	cfc_free(c);
	fake_stop(f);
}

/* What check_range_pager_prefetch's hook does between pages. */
typedef struct prefetch_case
{
	fake	   *f;
	cfc_conn   *c;
	int			mode;			/* 0: check the prefetch; 1: another call; 2: resize */
	int			first_call;		/* f->n_calls when the pager started */
	size_t		rows;			/* rows of the whole range */
} prefetch_case;

static void
prefetch_hook(void *pager, int pages, size_t total, void *arg)
{
	cfc_range_pager *p = pager;
	prefetch_case *pc = arg;

	if (pc->mode == 0 && pages == 2 && total < pc->rows)
	{
		/* the third page is asked before the caller comes back for it */
		int			asked = 0;

		for (int w = 0; w < 2000 && asked < 3; w++)
		{
			asked = 0;
			for (int i = pc->first_call; i < atomic_load(&pc->f->n_calls); i++)
				asked += pc->f->methods[i] == CF_T_M_GET_RANGE_SLICES;
			if (asked < 3)
				usleep(1000);
		}
		assert_int_equal(asked, 3);
	}
	if (pc->mode == 1)
	{
		cf_t_column_parent wide = {S("Wide"), false, {0}};
		cf_t_slice_predicate all = {false, NULL, 0, true, {{0}, {0}, false, INT32_MAX}};
		cf_arena   *a = cf_arena_new(0);
		cf_t_cosc  *cols;
		size_t		nc;
		cf_status  *s;

		while (cf_status_code(s = cfc_get_slice(pc->c, S("row"), &wide, &all, 0, a, &cols,
												&nc)) == CF_ERR_TIMEOUT)
			cf_status_free(s);	/* a failed call of fail_call's */
		expect_ok(s);
		assert_int_equal(nc, ROW_N);
		cf_arena_free(a);
	}
	if (pc->mode == 2 && pages == 3)
		cfc_range_pager_set_page_size(p, 3);
}

/*
 * A prefetching range pager: the next page's request reaches the server before the
 * caller asks for it; other calls between pages, a page size changed midway and
 * failed calls (every 4th times out, so some prefetches fail) lose and repeat nothing.
 */
static void
check_range_pager_prefetch(cfc_conn *c, fake *f, cf_t_key_range range, int mode)
{
	int			want[KEYS_N];
	int			seen[KEYS_N];
	int			calls;
	cf_t_key_range sim = range;
	size_t		nw;
	size_t		ns;
	prefetch_case pc = {f, c, mode, atomic_load(&f->n_calls), 0};

	if (!sim.has_start_token)
		sim.has_start_key = sim.has_end_key = true;
	nw = sim_range(&sim, want);
	pc.rows = nw;
	ns = run_range_pager_with(c, f, &range, 4, true, prefetch_hook, &pc, seen, &calls);
	if (ns != nw || memcmp(want, seen, nw * sizeof(int)) != 0)
		fail_msg("prefetch mode %d, %s range: %zu rows paged, %zu expected", mode,
				 range.has_start_token ? "token" : "key", ns, nw);
}

static void
range_pager_prefetches(void **state)
{
	/* a key range, and a token range */
	const cf_t_key_range ranges[2] = {{.count = INT32_MAX},
	{.count = INT32_MAX, .has_start_token = true, .has_end_token = true}};
	fake	   *f = fake_start(sim_handler);
	cfc_conn   *c = connect_fake(f);

	(void) state;
	for (int r = 0; r < 2; r++)
		for (int mode = 0; mode < 3; mode++)
			check_range_pager_prefetch(c, f, ranges[r], mode);
	atomic_store(&fail_call, 4);
	for (int r = 0; r < 2; r++)
		for (int mode = 1; mode < 3; mode++)
			check_range_pager_prefetch(c, f, ranges[r], mode);
	atomic_store(&fail_call, 0);
	cfc_free(c);
	fake_stop(f);
}

/*
 * A prefetching pager over key00.. with pages of 4: the first two pages, after which
 * the third page's request is on the wire, answered as the script says (third).
 */
static cfc_range_pager *
pager_with_prefetch_sent(cfc_conn *c, fake *f, step third)
{
	cf_t_column_parent parent = {S("Users"), false, {0}};
	cf_t_slice_predicate pred = {false, NULL, 0, true, {{0}, {0}, false, 10}};
	cf_t_key_range range = {.count = INT32_MAX};
	cfc_range_pager *p;
	const cf_t_key_slice *rows;
	size_t		n;

	fake_push(f, (step) {.kind = ACT_HANDLER});
	fake_push(f, (step) {.kind = ACT_HANDLER});
	fake_push(f, third);
	expect_ok(cfc_range_pager_new(c, &parent, &pred, &range, 4, 0, &p));
	cfc_range_pager_set_prefetch(p, true);
	for (int page = 0; page < 2; page++)
	{
		expect_ok(cfc_range_pager_next(p, &rows, &n));
		assert_int_equal(n, 4);
		assert_true(S_EQ(rows[0].key, keys[4 * page]));
	}
	return p;
}

/*
 * The pager's next page is key08..key11, asked again from key07 (the prefetch came to
 * nothing); the page after it may be prefetched already.
 */
static void
expect_third_page(cfc_range_pager *p, fake *f)
{
	const cf_t_key_slice *rows;
	size_t		n;
	int			before = atomic_load(&f->n_calls);

	expect_ok(cfc_range_pager_next(p, &rows, &n));
	assert_int_equal(n, 4);
	assert_true(S_EQ(rows[0].key, keys[8]));
	assert_true(S_EQ(rows[3].key, keys[11]));
	assert_true(atomic_load(&f->n_calls) > before);
	assert_int_equal(f->methods[before], CF_T_M_GET_RANGE_SLICES);
	assert_true(S_EQ(f->args[before].range.start_key, keys[7]));
}

/*
 * A prefetched reply that another call read off the socket, and then a disconnect: a
 * bad reply (a TApplicationException) is dropped, with no host left to name, and the
 * page is asked again.
 */
static void
a_bad_prefetch_read_before_a_disconnect_is_asked_again(void **state)
{
	fake	   *f = fake_start(sim_handler);
	cfc_conn   *c = connect_fake(f);
	cf_t_column_parent wide = {S("Wide"), false, {0}};
	cf_t_slice_predicate all = {false, NULL, 0, true, {{0}, {0}, false, INT32_MAX}};
	cfc_range_pager *p = pager_with_prefetch_sent(c, f, (step) {.kind = ACT_APP_EXC});
	cf_t_cosc  *cols;
	size_t		nc;

	(void) state;
	/* another call first reads the prefetched reply into the pager */
	expect_ok(cfc_get_slice(c, S("row"), &wide, &all, 0, NULL, &cols, &nc));
	assert_int_equal(nc, ROW_N);
	cfc_disconnect(c);
	expect_third_page(p, f);
	cfc_range_pager_free(p);
	cfc_free(c);
	fake_stop(f);
}

/*
 * The cancel callback longjmps out while the pager waits for its prefetched reply: the
 * next call notices the abandoned wait, reconnects, and the page is asked again.
 */
static void
an_abandoned_prefetch_resets_the_connection(void **state)
{
	fake	   *f = fake_start(sim_handler);
	cfc_conn   *c = connect_fake(f);
	cfc_range_pager *p = pager_with_prefetch_sent(c, f, (step) {.kind = ACT_HANG});

	(void) state;
	cfc_set_cancel(c, longjmp_cb, NULL);
	if (setjmp(escape) == 0)
	{
		const cf_t_key_slice *rows;
		size_t		n;

		cf_status_free(cfc_range_pager_next(p, &rows, &n));
		fail_msg("the callback should have jumped out");
	}
	cfc_set_cancel(c, NULL, NULL);
	expect_third_page(p, f);
	assert_int_equal(atomic_load(&f->n_accepts), 2);
	cfc_range_pager_free(p);
	cfc_free(c);
	fake_stop(f);
}

static atomic_bool swollen_sent;

/*
 * sim_handler, but the first page asked from key07 (the third, of pages of 4) has a
 * first row of 200000 empty ColumnOrSuperColumns: a canonical reply, which the skim
 * walks, but one over the decoder's memory budget, so it does not decode.
 */
static void
swollen_handler(fake *f, cf_t_method m, const cf_t_args *args, cf_arena *arena,
				cf_t_result *res)
{
	size_t		n = 200000;

	sim_handler(f, m, args, arena, res);
	if (m != CF_T_M_GET_RANGE_SLICES || res->n_key_slices == 0 ||
		!S_EQ(args->range.start_key, keys[7]) || atomic_exchange(&swollen_sent, true))
		return;
	res->key_slices[0].columns = cf_arena_alloc(arena, n * sizeof(cf_t_cosc));
	memset(res->key_slices[0].columns, 0, n * sizeof(cf_t_cosc));
	res->key_slices[0].n_columns = n;
}

/*
 * A prefetching range pager asks the next page as soon as a page's reply is in, before
 * decoding it: when the third page's reply turns out not to decode, the fourth page's
 * request (from key11, the third page's last key) has reached the server already. The
 * bad page is asked again (on a new connection) and nothing is lost or repeated.
 */
static void
range_pager_asks_before_decoding(void **state)
{
	fake	   *f = fake_start(swollen_handler);
	cfc_conn   *c = connect_fake(f);
	cf_t_key_range range = {.count = INT32_MAX};
	cf_t_key_range sim = {.count = INT32_MAX, .has_start_key = true, .has_end_key = true};
	int			want[KEYS_N];
	int			seen[KEYS_N];
	const char *order[3] = {keys[7], keys[11], keys[7]};
	int			next = 0;
	int			calls;
	size_t		nw = sim_range(&sim, want);

	(void) state;
	atomic_store(&swollen_sent, false);
	assert_int_equal(run_range_pager_with(c, f, &range, 4, true, NULL, NULL, seen, &calls),
					 nw);
	assert_memory_equal(seen, want, nw * sizeof(int));
	assert_true(atomic_load(&swollen_sent));
	for (int i = 0; i < atomic_load(&f->n_calls) && next < 3; i++)
		if (f->methods[i] == CF_T_M_GET_RANGE_SLICES &&
			S_EQ(f->args[i].range.start_key, order[next]))
			next++;
	assert_int_equal(next, 3);
	assert_int_equal(atomic_load(&f->n_accepts), 2);
	cfc_free(c);
	fake_stop(f);
}

/*
 * A range pager whose caller uses only part of some pages (cfc_range_pager_rewind):
 * page after page, none, a few or all of the rows are used, the rest asked again;
 * every row comes once, in order, with prefetch or not, whole ranges or counted ones,
 * and with failing calls (every 3rd times out) under it.
 */
static void
check_range_pager_rewinds(cfc_conn *c, cf_t_key_range range, bool prefetch)
{
	cf_t_column_parent parent = {S("Users"), false, {0}};
	cf_t_slice_predicate pred = {false, NULL, 0, true, {{0}, {0}, false, 10}};
	cfc_range_pager *p;
	int			want[KEYS_N];
	int			seen[KEYS_N];
	size_t		total = 0;
	cf_t_key_range sim = range;
	size_t		nw;

	if (!sim.has_start_token)
		sim.has_start_key = sim.has_end_key = true;
	nw = sim_range(&sim, want);
	expect_ok(cfc_range_pager_new(c, &parent, &pred, &range, 5, 0, &p));
	cfc_range_pager_set_prefetch(p, prefetch);
	for (int it = 0;; it++)
	{
		const cf_t_key_slice *rows;
		size_t		n;
		size_t		used;
		cf_status  *s = cfc_range_pager_next(p, &rows, &n);

		if (cf_status_code(s) == CF_ERR_TIMEOUT)
		{
			cf_status_free(s);
			continue;
		}
		expect_ok(s);
		if (n == 0)
			break;
		used = it % 3 == 0 ? 0 : (size_t) it % n + 1;
		for (size_t i = 0; i < used; i++)
		{
			assert_true(total < KEYS_N);
			seen[total++] = atoi((const char *) rows[i].key.p + 3);
		}
		expect_ok(cfc_range_pager_rewind(p, used));
		if (it % 4 == 1)
			cfc_range_pager_set_page_size(p, 3 + it % 5);
	}
	cfc_range_pager_free(p);
	if (total != nw || memcmp(want, seen, nw * sizeof(int)) != 0)
		fail_msg("rewinds, %s range, prefetch %d: %zu rows, %zu expected",
				 range.has_start_token ? "token" : "key", (int) prefetch, total, nw);
}

static void
range_pager_rewinds(void **state)
{
	const cf_t_key_range ranges[3] = {{.count = INT32_MAX},
	{.count = INT32_MAX, .has_start_token = true, .has_end_token = true},
	{.count = 23}};
	fake	   *f = fake_start(sim_handler);
	cfc_conn   *c = connect_fake(f);

	(void) state;
	for (int r = 0; r < 3; r++)
	{
		check_range_pager_rewinds(c, ranges[r], false);
		check_range_pager_rewinds(c, ranges[r], true);
	}
	atomic_store(&fail_call, 3);
	for (int r = 0; r < 3; r++)
		check_range_pager_rewinds(c, ranges[r], true);
	atomic_store(&fail_call, 0);
	cfc_free(c);
	fake_stop(f);
}

/* The text form of key i's token. */
static cf_slice
token_text(int i, cf_buf *b)
{
	cf_buf_reset(b);
	expect_ok(cf_token_to_string(CF_PARTITIONER_RANDOM,
								 cf_slice_of(key_tokens[i], CF_RANDOM_TOKEN_LEN), b));
	return cf_slice_of(b->data, b->len);
}

static void
range_pager_pages_keys_and_tokens(void **state)
{
	fake	   *f = fake_start(sim_handler);
	cfc_conn   *c = connect_fake(f);
	static const int32_t pages[] = {1, 2, 5, 56, 57, 58, 500};
	cf_t_key_range keyr = {0};
	cf_t_key_range tokr = {0};
	cf_buf		b1 = CF_BUF_INIT;
	cf_buf		b2 = CF_BUF_INIT;
	int			seen[KEYS_N];
	int			calls;

	(void) state;
	keyr.count = INT32_MAX;
	tokr.count = INT32_MAX;
	tokr.has_start_token = tokr.has_end_token = true;
	for (size_t i = 0; i < sizeof(pages) / sizeof(pages[0]); i++)
	{
		cf_t_key_range r = keyr;

		/* Keys: everything; bounded; limited. */
		check_range_pager(c, f, r, pages[i]);
		r.has_start_key = r.has_end_key = true;
		r.start_key = S("key10");
		r.end_key = S("key33");
		check_range_pager(c, f, r, pages[i]);
		r.count = 9;
		check_range_pager(c, f, r, pages[i]);

		/* Tokens: the whole ring (min, min]; a plain range; a wrapping range. */
		r = tokr;
		r.start_token = r.end_token = cf_slice_of("", 0);
		check_range_pager(c, f, r, pages[i]);
		r.start_token = token_text(by_token[5], &b1);
		r.end_token = token_text(by_token[40], &b2);
		check_range_pager(c, f, r, pages[i]);
		r.start_token = token_text(by_token[40], &b1);
		r.end_token = token_text(by_token[5], &b2);
		check_range_pager(c, f, r, pages[i]);
		/* (t, t] is the whole ring too, starting after t. */
		r.end_token = r.start_token;
		check_range_pager(c, f, r, pages[i]);
	}

	/*
	 * A token range ending exactly at the last key of a full page: the pager stops
	 * there instead of asking for (end, end], which would be the whole ring again.
	 */
	tokr.start_token = cf_slice_of("", 0);
	tokr.end_token = token_text(by_token[19], &b2);
	assert_int_equal(run_range_pager(c, f, &tokr, 5, seen, &calls), 20);
	assert_int_equal(calls, 4 + 1);	/* 4 pages + one describe_partitioner */
	/* The same for a key range ending at its end key. */
	keyr.has_start_key = keyr.has_end_key = true;
	keyr.start_key = S("key00");
	keyr.end_key = S("key19");
	assert_int_equal(run_range_pager(c, f, &keyr, 5, seen, &calls), 20);
	assert_int_equal(calls, 4);

	/* Failed pages are asked again; nothing is lost or repeated. */
	atomic_store(&fail_call, 4);
	check_range_pager(c, f, tokr, 3);
	check_range_pager(c, f, keyr, 3);
	atomic_store(&fail_call, 0);

	/* Keys and tokens together are refused. */
	{
		cfc_range_pager *p;
		cf_t_column_parent parent = {S("Users"), false, {0}};
		cf_t_slice_predicate pred = {false, NULL, 0, true, {{0}, {0}, false, 10}};

		keyr.has_start_token = true;
		expect_status(cfc_range_pager_new(c, &parent, &pred, &keyr, 5, 0, &p),
					  CF_ERR_INVALID, "not both");
		assert_null(p);
	}
	cf_buf_free(&b1);
	cf_buf_free(&b2);
	cfc_free(c);
	fake_stop(f);
}

static void
token_strings_match_the_partitioners(void **state)
{
	static const char *const ks[] = {"", "a", "key42", "\xff\x00\x01", "jsmith"};
	cf_buf		mine = CF_BUF_INIT;
	cf_buf		tok = CF_BUF_INIT;
	cf_buf		theirs = CF_BUF_INIT;

	(void) state;
	for (size_t i = 0; i < sizeof(ks) / sizeof(ks[0]); i++)
	{
		cf_slice	key = cf_slice_of(ks[i], i == 3 ? 3 : strlen(ks[i]));

		cf_buf_reset(&mine);
		cf_buf_reset(&tok);
		cf_buf_reset(&theirs);
		expect_ok(cfc_token_string(S("org.apache.cassandra.dht.RandomPartitioner"), key,
								   &mine));
		expect_ok(cf_partitioner_token(CF_PARTITIONER_RANDOM, key, &tok));
		expect_ok(cf_token_to_string(CF_PARTITIONER_RANDOM,
									 cf_slice_of(tok.data, tok.len), &theirs));
		assert_int_equal(mine.len, theirs.len);
		assert_memory_equal(mine.data, theirs.data, mine.len);

		cf_buf_reset(&mine);
		cf_buf_reset(&tok);
		cf_buf_reset(&theirs);
		expect_ok(cfc_token_string(S("ByteOrderedPartitioner"), key, &mine));
		expect_ok(cf_partitioner_token(CF_PARTITIONER_BYTE_ORDERED, key, &tok));
		expect_ok(cf_token_to_string(CF_PARTITIONER_BYTE_ORDERED,
									 cf_slice_of(tok.data, tok.len), &theirs));
		assert_int_equal(mine.len, theirs.len);
		if (mine.len)
			assert_memory_equal(mine.data, theirs.data, mine.len);
	}
	expect_status(cfc_token_string(S("com.example.MyPartitioner"), S("k"), &mine),
				  CF_ERR_NOT_SUPPORTED, "MyPartitioner");
	cf_buf_free(&mine);
	cf_buf_free(&tok);
	cf_buf_free(&theirs);
}

/* ---------------------------------------------------------------- colfam_multiget_chain */

/* A fake that serves colfam's methods too (thrift/admin.h). */
static fake *
fake_start_ta(void)
{
	fake	   *f = fake_start(NULL);

	f->serves_ta = true;		/* read by the fake only once a call has come */
	return f;
}

static step
chain_step_reply(cf_ta_chain_answer *ans, size_t n)
{
	step		st = {.kind = ACT_REPLY};

	st.ta_res.chain = ans;
	st.ta_res.n_chain = n;
	return st;
}

static void
chain_wrapper_encodes_decodes_and_resends(void **state)
{
	fake	   *f = fake_start_ta();
	fake	   *f2 = fake_start_ta();
	cfc_conn   *c;
	cf_arena   *a = cf_arena_new(0);
	char		hosts[128];
	cf_slice	ckeys[2] = {S("__notag__"), S("t2")};
	cf_slice	names[1] = {S("email")};
	cf_t_column_parent parent = {S("TaggedPosts"), false, {0}};
	cf_t_slice_predicate pred = {false, NULL, 0, true, {{0}, {0}, true, 10}};
	cf_ta_chain_step steps[2] = {
		{.column_parent = {S("BlogEntries"), false, {0}},.predicate = pred,
		.from_step = 0,.source = CF_TA_CHAIN_VALUE},
		{.column_parent = {S("Authors"), false, {0}},
			.predicate = {true, names, 1, false, {{0}, {0}, false, 0}},.from_step = 1,
		.source = CF_TA_CHAIN_NAMED_VALUE,.has_source_name = true,.source_name = S("author")},
	};
	cf_t_cosc	col = {.has_column = true,.column = {S("email"), S("a@x"), 3, false, 0}};
	cf_t_key_slice rows[2] = {{S("Arin"), &col, 1}, {S("Ian"), NULL, 0}};
	cf_ta_chain_answer ans[3] = {{rows, 2}, {NULL, 0}, {rows, 1}};
	cf_ta_chain_answer *out;
	size_t		n;
	cf_ta_args *got;

	(void) state;
	snprintf(hosts, sizeof(hosts), "127.0.0.1:%d,127.0.0.1:%d", f->port, f2->port);
	c = connect_to(hosts, 2000);
	fake_push(f, chain_step_reply(ans, 3));
	expect_ok(cfc_colfam_multiget_chain(c, ckeys, 2, &parent, &pred, steps, 2, 0, a, &out,
										&n));
	assert_int_equal(n, 3);
	assert_int_equal(out[0].n_rows, 2);
	assert_true(S_EQ(out[0].rows[0].key, "Arin"));
	assert_true(S_EQ(out[0].rows[0].columns[0].column.value, "a@x"));
	assert_int_equal(out[0].rows[1].n_columns, 0);
	assert_int_equal(out[1].n_rows, 0);
	assert_int_equal(out[2].n_rows, 1);
	/* what the server got */
	assert_int_equal(atomic_load(&f->n_calls), 1);
	assert_true(f->is_ta[0]);
	assert_int_equal(f->ta_methods[0], CF_TA_M_MULTIGET_CHAIN);
	got = &f->ta_args[0];
	assert_int_equal(got->n_keys, 2);
	assert_true(S_EQ(got->keys[1], "t2"));
	assert_true(S_EQ(got->column_parent.column_family, "TaggedPosts"));
	assert_true(got->predicate.slice_range.reversed);
	assert_int_equal(got->n_steps, 2);
	assert_int_equal(got->steps[1].from_step, 1);
	assert_int_equal(got->steps[1].source, CF_TA_CHAIN_NAMED_VALUE);
	assert_true(got->steps[1].has_source_name);
	assert_true(S_EQ(got->steps[1].source_name, "author"));
	assert_false(got->steps[0].has_source_name);
	assert_int_equal(got->consistency_level, CF_T_CL_ONE);	/* 0: ONE */

	/* an answer per step, no fewer */
	fake_push(f, chain_step_reply(ans, 2));
	expect_status(cfc_colfam_multiget_chain(c, ckeys, 2, &parent, &pred, steps, 2, 0, a, &out,
											&n), CF_ERR_PROTOCOL, "2 answers for 3 steps");
	assert_null(out);
	/* the declared exceptions, as multiget_slice's */
	fake_push(f, (step) {.kind = ACT_REPLY,.ta_res = {.has_ire = true,
	.ire = {S("chain step 1: unconfigured columnfamily Foo")}}});
	expect_status(cfc_colfam_multiget_chain(c, ckeys, 2, &parent, &pred, steps, 2, 0, a, &out,
											&n), CF_ERR_INVALID,
				  "colfam_multiget_chain: invalid request: chain step 1: unconfigured "
				  "columnfamily Foo");
	fake_push(f, (step) {.kind = ACT_REPLY,.ta_res = {.has_ue = true}});
	expect_status(cfc_colfam_multiget_chain(c, ckeys, 2, &parent, &pred, steps, 2,
											CF_T_CL_QUORUM, a, &out, &n),
				  CF_ERR_UNAVAILABLE, "consistency level QUORUM");
	fake_push(f, (step) {.kind = ACT_REPLY,.ta_res = {.has_te = true}});
	expect_status(cfc_colfam_multiget_chain(c, ckeys, 2, &parent, &pred, steps, 2,
											CF_T_CL_ALL, a, &out, &n),
				  CF_ERR_TIMEOUT, "consistency level ALL");
	assert_int_equal(atomic_load(&f->n_calls), 5);
	assert_int_equal(atomic_load(&f->n_accepts), 2);	/* the bad reply reconnected */
	cfc_free(c);

	/* a read: lost mid-flight, it is resent to the next host */
	c = connect_to(hosts, 2000);
	fake_push(f, (step) {.kind = ACT_CLOSE});
	fake_push(f2, chain_step_reply(ans, 3));
	expect_ok(cfc_colfam_multiget_chain(c, ckeys, 2, &parent, &pred, steps, 2, 0, a, &out,
										&n));
	assert_int_equal(n, 3);
	assert_int_equal(atomic_load(&f->n_calls), 6);
	assert_int_equal(atomic_load(&f2->n_calls), 1);
	assert_int_equal(f2->ta_methods[0], CF_TA_M_MULTIGET_CHAIN);
	/* ... where an admin method is not */
	fake_push(f2, (step) {.kind = ACT_CLOSE});
	assert_non_null(cfc_host(c));
	expect_status(cfc_colfam_flush(c, "K", NULL, 0), CF_ERR_IO, NULL);
	assert_int_equal(atomic_load(&f2->n_calls), 2);
	assert_int_equal(atomic_load(&f->n_calls), 6);

	cf_arena_free(a);
	cfc_free(c);
	fake_stop(f);
	fake_stop(f2);
}

static void
chain_on_an_older_server_is_unknown_method(void **state)
{
	fake	   *f = fake_start(canned_handler);	/* a 0.7 server: no colfam_* */
	cfc_conn   *c = connect_fake(f);
	cf_arena   *a = cf_arena_new(0);
	cf_slice	key = S("k");
	cf_t_column_parent parent = {S("Users"), false, {0}};
	cf_t_slice_predicate pred = {false, NULL, 0, true, {{0}, {0}, false, 10}};
	cf_ta_chain_answer *out;
	size_t		n;
	cf_slice	str;
	cf_status  *s;

	(void) state;
	s = cfc_colfam_multiget_chain(c, &key, 1, &parent, &pred, NULL, 0, 0, a, &out, &n);
	assert_int_equal(cf_status_code(s), CF_ERR_PROTOCOL);
	assert_true(cfc_unknown_method(s));
	assert_non_null(strstr(cf_status_msg(s), "Invalid method name: 'colfam_multiget_chain'"));
	cf_status_free(s);
	/* answered once, not resent; the next call works (on a new connection) */
	assert_int_equal(atomic_load(&f->n_unknown), 1);
	expect_ok(cfc_describe_version(c, a, &str));
	/* other errors are not "unknown method" */
	assert_false(cfc_unknown_method(NULL));
	fake_push(f, (step) {.kind = ACT_APP_EXC});
	s = cfc_describe_version(c, a, &str);
	assert_int_equal(cf_status_code(s), CF_ERR_PROTOCOL);
	assert_false(cfc_unknown_method(s));
	cf_status_free(s);
	fake_push(f, exc_step(CF_T_EXC_INVALID_REQUEST, "(UNKNOWN_METHOD, type 1)"));
	s = cfc_describe_keyspace(c, "K", a, &(cf_t_ks_def) {0});
	assert_int_equal(cf_status_code(s), CF_ERR_INVALID);
	assert_false(cfc_unknown_method(s));
	cf_status_free(s);
	/* the frame limit's InvalidRequest (any method's), and only it, is "reply too large" */
	assert_false(cfc_reply_too_large(NULL));
	fake_push(f, exc_step(CF_T_EXC_INVALID_REQUEST, "the reply of colfam_multiget_chain "
						  "does not fit in a frame: 2000000 bytes over the limit of 1048576"));
	s = cfc_describe_keyspace(c, "K", a, &(cf_t_ks_def) {0});
	assert_true(cfc_reply_too_large(s));
	assert_false(cfc_unknown_method(s));
	cf_status_free(s);
	fake_push(f, exc_step(CF_T_EXC_INVALID_REQUEST, "chain step 1: unconfigured columnfamily Foo"));
	s = cfc_describe_keyspace(c, "K", a, &(cf_t_ks_def) {0});
	assert_int_equal(cf_status_code(s), CF_ERR_INVALID);
	assert_false(cfc_reply_too_large(s));
	cf_status_free(s);

	cf_arena_free(a);
	cfc_free(c);
	fake_stop(f);
}

/* One call of method name (no arguments) on a raw socket to hosts; the reply's status. */
static cf_status *
raw_call_status(const char *hosts, const char *name, cf_arena *a)
{
	char		host[64];
	char	   *colon;
	struct sockaddr_in sa = {.sin_family = AF_INET};
	int			fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	cf_buf		b = CF_BUF_INIT;
	uint8_t		hdr[4];
	uint8_t    *body;
	uint32_t	len;
	cf_rd		r;

	snprintf(host, sizeof(host), "%s", hosts);
	colon = strrchr(host, ':');
	assert_non_null(colon);
	*colon = '\0';
	sa.sin_port = htons((uint16_t) atoi(colon + 1));
	assert_int_equal(inet_pton(AF_INET, host, &sa.sin_addr), 1);
	assert_true(fd >= 0);
	assert_int_equal(connect(fd, (struct sockaddr *) &sa, sizeof(sa)), 0);
	cf_buf_put_u32(&b, 0);
	cf_t_write_message_header(&b, cf_slice_str(name), CF_T_CALL, 5);
	cf_buf_put_u8(&b, 0);		/* an empty argument struct */
	cf_buf_patch_u32(&b, 0, (uint32_t) (b.len - 4));
	assert_true(test_send_all(fd, b.data, b.len));
	assert_true(test_recv_all(fd, hdr, 4));
	len = cf_load_be32(hdr);
	assert_true(len < 4096);
	body = cf_arena_alloc(a, len);
	assert_true(test_recv_all(fd, body, len));
	close(fd);
	cf_buf_free(&b);
	cf_rd_init(&r, body, len);
	return cf_t_read_reply_header(&r, name, 5, NULL, a);
}

static void
chain_against_colfamd(void **state)
{
	test_colfamd *node = test_colfamd_start("127.0.0.24", NULL);
	cfc_conn   *c = connect_to(test_colfamd_hosts(node), 5000);
	cf_arena   *a = cf_arena_new(0);
	cf_t_cf_def cfs[3] = {
		{.keyspace = S("Blog"),.name = S("Authors")},
		{.keyspace = S("Blog"),.name = S("BlogEntries")},
		{.keyspace = S("Blog"),.name = S("TaggedPosts")},
	};
	cf_t_ks_def ks = {.name = S("Blog"),.strategy_class = S("SimpleStrategy"),
	.replication_factor = 1,.cf_defs = cfs,.n_cf_defs = 3};
	static const char *const data[][4] = {
		{"Authors", "Arin", "email", "arin@example.com"},
		{"Authors", "Ian", "email", "ieure@example.com"},
		{"BlogEntries", "post-a", "author", "Arin"},
		{"BlogEntries", "post-a", "title", "A"},
		{"BlogEntries", "post-b", "author", "Ian"},
		{"BlogEntries", "post-b", "title", "B"},
		{"BlogEntries", "post-c", "author", "Arin"},
		{"TaggedPosts", "__notag__", "t1", "post-a"},
		{"TaggedPosts", "__notag__", "t2", "post-b"},
		{"TaggedPosts", "__notag__", "t3", "post-c"},
		{"TaggedPosts", "__notag__", "t4", "post-gone"},
	};
	cf_slice	notag = S("__notag__");
	cf_slice	ta[2] = {S("title"), S("author")};
	cf_slice	email = S("email");
	cf_t_column_parent tagged = {S("TaggedPosts"), false, {0}};
	cf_t_slice_predicate newest = {false, NULL, 0, true, {{0}, {0}, true, 10}};
	cf_ta_chain_step steps[2] = {
		{.column_parent = {S("BlogEntries"), false, {0}},
		.predicate = {true, ta, 2, false, {{0}, {0}, false, 0}},.source = CF_TA_CHAIN_VALUE},
		{.column_parent = {S("Authors"), false, {0}},
			.predicate = {true, &email, 1, false, {{0}, {0}, false, 0}},.from_step = 1,
		.source = CF_TA_CHAIN_NAMED_VALUE,.has_source_name = true,.source_name = S("author")},
	};
	cf_ta_chain_answer *out;
	size_t		n;
	cf_t_key_coscs *kc;
	size_t		n_kc;
	cf_status  *s;

	(void) state;
	expect_ok(cfc_system_add_keyspace(c, &ks, a, NULL));
	expect_ok(cfc_set_keyspace(c, "Blog"));
	for (size_t i = 0; i < sizeof(data) / sizeof(data[0]); i++)
	{
		cf_t_column_parent p = {cf_slice_str(data[i][0]), false, {0}};
		cf_t_column col = {cf_slice_str(data[i][2]), cf_slice_str(data[i][3]), 1, false, 0};

		expect_ok(cfc_insert(c, cf_slice_str(data[i][1]), &p, &col, 0));
	}

	/* the seeds' front page in one round trip */
	expect_ok(cfc_colfam_multiget_chain(c, &notag, 1, &tagged, &newest, steps, 2, 0, a, &out,
										&n));
	assert_int_equal(n, 3);
	assert_int_equal(out[0].n_rows, 1);
	assert_int_equal(out[0].rows[0].n_columns, 4);
	assert_true(S_EQ(out[0].rows[0].columns[0].column.name, "t4"));	/* newest first */
	/* step 1 as multiget_slice of the values, newest first */
	assert_int_equal(out[1].n_rows, 4);
	expect_ok(cfc_multiget_slice(c, (cf_slice[]) {S("post-gone"), S("post-c"), S("post-b"),
								 S("post-a")}, 4, &steps[0].column_parent,
								 &steps[0].predicate, 0, a, &kc, &n_kc));
	assert_int_equal(n_kc, 4);
	for (size_t i = 0; i < 4; i++)
	{
		assert_true(cf_slice_eq(out[1].rows[i].key, kc[i].key));
		assert_int_equal(out[1].rows[i].n_columns, kc[i].n_columns);
		for (size_t j = 0; j < kc[i].n_columns; j++)
			assert_true(cf_slice_eq(out[1].rows[i].columns[j].column.value,
									kc[i].columns[j].column.value));
	}
	assert_int_equal(out[1].rows[0].n_columns, 0);	/* post-gone: no row */
	assert_int_equal(out[1].rows[1].n_columns, 1);	/* post-c: no title */
	/* step 2: Arin (post-c's), then Ian (post-b's) */
	assert_int_equal(out[2].n_rows, 2);
	assert_true(S_EQ(out[2].rows[0].key, "Arin"));
	assert_true(S_EQ(out[2].rows[0].columns[0].column.value, "arin@example.com"));
	assert_true(S_EQ(out[2].rows[1].key, "Ian"));

	/* a step's error names the step */
	steps[1].column_parent.column_family = S("Foo");
	expect_status(cfc_colfam_multiget_chain(c, &notag, 1, &tagged, &newest, steps, 2, 0, a,
											&out, &n), CF_ERR_INVALID,
				  "chain step 2: unconfigured columnfamily Foo");
	steps[1].column_parent.column_family = S("Authors");
	expect_ok(cfc_colfam_multiget_chain(c, &notag, 1, &tagged, &newest, steps, 2, 0, a, &out,
										&n));

	/* a colfam_* method this colfamd does not serve: what cfc_unknown_method knows */
	s = raw_call_status(test_colfamd_hosts(node), "colfam_nosuch", a);
	assert_int_equal(cf_status_code(s), CF_ERR_PROTOCOL);
	assert_true(cfc_unknown_method(s));
	cf_status_free(s);
	/* and a method it serves is not */
	s = raw_call_status(test_colfamd_hosts(node), "describe_version", a);
	assert_null(s);

	cf_arena_free(a);
	cfc_free(c);
	test_colfamd_free(node);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(options_are_validated),
		cmocka_unit_test(read_wrappers_encode_and_decode),
		cmocka_unit_test(write_and_schema_wrappers_encode),
		cmocka_unit_test(describe_and_session_wrappers),
		cmocka_unit_test(declared_exceptions_map_to_codes),
		cmocka_unit_test(garbage_replies_are_protocol_errors_and_reset),
		cmocka_unit_test(a_reply_too_big_for_memory_is_no_memory),
		cmocka_unit_test(requests_over_max_frame_are_not_sent),
		WAIT_TEST(a_silent_server_times_out, over_tcp),
		WAIT_TEST(a_silent_server_times_out, over_unix),
		cmocka_unit_test(connect_timeout_to_a_blackhole),
		cmocka_unit_test(failover_to_the_next_host),
		cmocka_unit_test(mid_call_failure_retries_idempotent_calls_only),
		cmocka_unit_test(resends_are_bounded_by_max_attempts),
		cmocka_unit_test(chain_wrapper_encodes_decodes_and_resends),
		cmocka_unit_test(chain_on_an_older_server_is_unknown_method),
		cmocka_unit_test(chain_against_colfamd),
		WAIT_TEST(the_cancel_callback_stops_a_wait, over_tcp),
		WAIT_TEST(the_cancel_callback_stops_a_wait, over_unix),
		WAIT_TEST(signals_during_waits_are_harmless, over_tcp),
		WAIT_TEST(signals_during_waits_are_harmless, over_unix),
		cmocka_unit_test(login_and_keyspace_on_every_connect),
		cmocka_unit_test(an_abandoned_call_resets_the_connection),
		cmocka_unit_test(column_pager_pages_a_wide_row),
		cmocka_unit_test(column_pager_pages_names_and_resumes_after_errors),
		cmocka_unit_test(column_pager_page_size_can_change),
		cmocka_unit_test(range_pager_pages_keys_and_tokens),
		cmocka_unit_test(range_pager_page_size_can_change),
		cmocka_unit_test(range_pager_row_count_can_change),
		cmocka_unit_test(range_pager_prefetches),
		cmocka_unit_test(range_pager_rewinds),
		cmocka_unit_test(range_pager_asks_before_decoding),
		cmocka_unit_test(a_bad_prefetch_read_before_a_disconnect_is_asked_again),
		cmocka_unit_test(an_abandoned_prefetch_resets_the_connection),
		cmocka_unit_test(token_strings_match_the_partitioners),
	};

	sim_init();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
