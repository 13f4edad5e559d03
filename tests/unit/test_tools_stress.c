/*
 * tests/unit/test_tools_stress.c — colfam stress: option parsing and every
 * validation's hint, the log-linear histogram's percentiles on known inputs, and
 * short runs against a node in the test (support/testnode.h): insert then read
 * with zero errors and zero misses, misses for keys never written, each read
 * operation, the JSON summary — with blocking threads, and again with event-loop
 * threads driving more connections (--connections).
 */
#include "support/cmocka_prelude.h"

#include <arpa/inet.h>
#include <json-c/json.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "support/sockio.h"
#include "support/testnode.h"
#include "tools/histogram.h"
#include "tools/stress.h"
#include "thrift/cassandra.h"
#include "util/arena.h"
#include "util/log.h"

#define ARGV(...) (int) (sizeof((char *[]) {__VA_ARGS__}) / sizeof(char *)), (char *[]) {__VA_ARGS__}

/* Parses; returns the status and the error text in err. */
static int
parse(cft_stress_opts *o, char *err, size_t size, int argc, char **argv)
{
	FILE	   *f = fmemopen(err, size, "w");
	int			rc = cft_stress_parse(argc, argv, o, f, f);

	fclose(f);
	return rc;
}

static void
bad(const char *part, int argc, char **argv)
{
	cft_stress_opts o;
	char		err[1024] = "";
	int			rc = parse(&o, err, sizeof(err), argc, argv);

	if (rc != 2 || strstr(err, part) == NULL)
		fail_msg("%s %s: status %d, message \"%s\", expected \"%s\"", argv[1],
				 argc > 2 ? argv[2] : "", rc, err, part);
}

static void
options(void **state)
{
	cft_stress_opts o;
	char		err[4096] = "";

	(void) state;
	assert_int_equal(parse(&o, err, sizeof(err), ARGV("stress")), -1);
	assert_int_equal(o.op, CFT_STRESS_INSERT);
	assert_int_equal(o.threads, 50);
	assert_int_equal(o.connections, 50);	/* one per thread */
	assert_int_equal(o.keys, 1000000);
	assert_int_equal(o.operations, 1000000);	/* defaults to the key space */
	assert_int_equal(o.columns, 5);
	assert_int_equal(o.consistency, 1);
	assert_string_equal(o.keyspace, "Keyspace1");
	assert_string_equal(o.cf, "Standard1");
	assert_int_equal(o.port, 9160);
	assert_false(o.batch);
	assert_false(o.json);

	assert_int_equal(parse(&o, err, sizeof(err), ARGV("stress", "--operation", "SLICE", "-t", "3",
						   "--keys", "77", "-c", "9", "--value-size", "0", "--slice-count", "4",
						   "--distribution", "gaussian", "--duration", "2.5", "-e", "quorum",
						   "-k", "KS", "--column-family", "CF", "-h", "::1", "-p", "9999",
						   "--batch", "--output", "json", "-g", "6")), -1);
	assert_int_equal(o.op, CFT_STRESS_SLICE);
	assert_int_equal(o.threads, 3);
	assert_int_equal(o.connections, 3);
	assert_int_equal(o.keys, 77);
	assert_int_equal(o.operations, 0);
	assert_true(o.duration == 2.5);
	assert_int_equal(o.columns, 9);
	assert_int_equal(o.value_size, 0);
	assert_int_equal(o.slice_count, 4);
	assert_int_equal(o.keys_per_call, 6);
	assert_true(o.gaussian);
	assert_int_equal(o.consistency, 2);
	assert_string_equal(o.keyspace, "KS");
	assert_string_equal(o.cf, "CF");
	assert_string_equal(o.host, "::1");
	assert_int_equal(o.port, 9999);
	assert_true(o.batch);
	assert_true(o.json);

	bad("hint: valid values are insert, read, slice, multiget, rangeslice",
		ARGV("stress", "--operation", "write"));
	bad("hint: valid values are uniform, gaussian", ARGV("stress", "--distribution", "zipf"));
	bad("hint: valid values are ONE, QUORUM, LOCAL_QUORUM, EACH_QUORUM, ALL, ANY, TWO, THREE",
		ARGV("stress", "-e", "SOME"));
	bad("hint: valid values are text, json", ARGV("stress", "--output", "xml"));
	bad("--threads must be an integer from 1 to 1000, not \"0\"", ARGV("stress", "-t", "0"));
	bad("--threads must be an integer from 1 to 1000", ARGV("stress", "-t", "5x"));
	bad("--keys must be an integer from 1", ARGV("stress", "-n", "-3"));
	bad("--columns must be an integer from 1", ARGV("stress", "-c", ""));
	bad("--value-size must be an integer from 0 to 1048576", ARGV("stress", "-S", "2000000"));
	bad("--slice-count must be", ARGV("stress", "--slice-count", "0"));
	bad("--operations must be", ARGV("stress", "--operations", "0"));
	bad("--duration must be a number of seconds", ARGV("stress", "-d", "never"));
	bad("--port must be an integer from 1 to 65535", ARGV("stress", "-p", "70000"));
	bad("exclude each other", ARGV("stress", "--operations", "5", "--duration", "1"));
	bad("ANY is for writes only", ARGV("stress", "-o", "read", "-e", "ANY"));
	bad("needs a value", ARGV("stress", "--threads"));
	bad("unknown option \"--frobnicate\"", ARGV("stress", "--frobnicate"));
	bad("unexpected argument \"extra\"", ARGV("stress", "extra"));
	bad("must not be empty", ARGV("stress", "-k", ""));
	bad("--connections (4) must not be below --threads (5)\nhint: ",
		ARGV("stress", "-t", "5", "--connections", "4"));
	bad("--connections must be an integer from 1 to 10000",
		ARGV("stress", "--connections", "10001"));
	assert_int_equal(parse(&o, err, sizeof(err), ARGV("stress", "-t", "2", "--connections",
														"9")), -1);
	assert_int_equal(o.threads, 2);
	assert_int_equal(o.connections, 9);
	assert_int_equal(parse(&o, err, sizeof(err), ARGV("stress", "--help")), 0);
	assert_non_null(strstr(err, "--operation OP"));
}

static void
histogram(void **state)
{
	cft_hist	a,
				b;
	uint64_t	lo,
				hi;

	(void) state;
	cft_hist_init(&a);
	assert_int_equal(cft_hist_percentile(&a, 50), 0);
	for (uint64_t v = 1; v <= 100; v++)
		cft_hist_record(&a, v);
	assert_int_equal(cft_hist_percentile(&a, 50), 50);
	assert_int_equal(cft_hist_percentile(&a, 95), 95);
	assert_int_equal(cft_hist_percentile(&a, 99), 99);
	assert_int_equal(cft_hist_percentile(&a, 7), 7);
	assert_int_equal(cft_hist_percentile(&a, 0.5), 1);
	assert_int_equal(cft_hist_percentile(&a, 100), 100);
	assert_true(cft_hist_mean(&a) == 50.5);
	assert_int_equal(a.min, 1);

	/* merged across "threads": 1..100 split in two gives the same answers */
	cft_hist_init(&a);
	cft_hist_init(&b);
	for (uint64_t v = 1; v <= 100; v++)
		cft_hist_record(v % 2 ? &a : &b, v);
	cft_hist_merge(&a, &b);
	assert_int_equal(a.count, 100);
	assert_int_equal(cft_hist_percentile(&a, 50), 50);
	assert_int_equal(cft_hist_percentile(&a, 99), 99);
	assert_int_equal(a.max, 100);

	/* large values: the bucket's top, within 1/64, capped at the exact max */
	cft_hist_init(&a);
	for (int i = 0; i < 98; i++)
		cft_hist_record(&a, 1000);
	cft_hist_record(&a, 5000);
	cft_hist_record(&a, 123456789);
	assert_int_equal(cft_hist_percentile(&a, 50), 1007);	/* bucket [1000, 1007] */
	assert_int_equal(cft_hist_percentile(&a, 99), 5055);	/* bucket [4992, 5055] */
	assert_int_equal(cft_hist_percentile(&a, 99.5), 123456789);
	assert_int_equal(a.max, 123456789);

	/* buckets tile the range: each starts where the previous ended */
	for (int i = 1; i < CFT_HIST_BUCKETS; i++)
	{
		uint64_t	plo,
					phi;

		cft_hist_bucket_range(i - 1, &plo, &phi);
		cft_hist_bucket_range(i, &lo, &hi);
		assert_true(lo == phi + 1);
		assert_int_equal(cft_hist_bucket(lo), i);
		assert_int_equal(cft_hist_bucket(hi), i);
		assert_true(hi - lo <= lo / 64);
	}
	assert_true(hi == UINT64_MAX);
	assert_int_equal(cft_hist_bucket(UINT64_MAX), CFT_HIST_BUCKETS - 1);
}

/* ---- against a node ---- */

/* 0: runs use 4 blocking threads; else 2 event-loop threads over this many connections */
static int async_conns;

static void
opts_for(cft_stress_opts *o, test_node *n, const char *op, int64_t ops, int64_t keys)
{
	char		ports[16],
				opsv[32],
				keysv[32];

	snprintf(ports, sizeof(ports), "%d", test_node_port(n));
	snprintf(opsv, sizeof(opsv), "%lld", (long long) ops);
	snprintf(keysv, sizeof(keysv), "%lld", (long long) keys);
	assert_int_equal(cft_stress_parse(ARGV("stress", "-o", (char *) op, "-t", "4", "-n", keysv,
										   "--operations", opsv, "-c", "5", "-h", "127.0.0.1",
										   "-p", ports, "--interval", "0.2"),
									  o, stderr, stderr), -1);
	if (async_conns)
	{
		o->threads = 2;
		o->connections = async_conns;
	}
}

static void
run(cft_stress_opts *o, cft_stress_result *r)
{
	cf_status  *s = cft_stress_run(o, NULL, r);

	if (s)
		fail_msg("stress: %s", cf_status_msg(s));
}

/* Every operation kind, errors, a duration run and the summaries, on node n. */
static void
run_all(test_node *n)
{
	cft_stress_opts o;
	cft_stress_result *r = malloc(sizeof(*r));
	char	   *text;
	size_t		len;
	FILE	   *f;
	json_object *j,
			   *v;

	/* batch inserts of every key, then plain inserts over them */
	opts_for(&o, n, "insert", 400, 400);
	o.batch = true;
	run(&o, r);
	assert_int_equal(r->ops, 400);
	assert_int_equal(r->errors, 0);
	assert_int_equal(r->columns, 2000);
	assert_int_equal(r->latency_us.count, 400);
	print_message("# batch insert: %.0f ops/s\n", r->ops / r->seconds);
	opts_for(&o, n, "insert", 100, 400);
	run(&o, r);
	assert_int_equal(r->errors, 0);
	assert_int_equal(r->columns, 500);

	/* every read kind finds what was written */
	opts_for(&o, n, "read", 400, 400);
	run(&o, r);
	assert_int_equal(r->ops, 400);
	assert_int_equal(r->errors, 0);
	assert_int_equal(r->misses, 0);
	assert_int_equal(r->columns, 2000);
	print_message("# read: %.0f ops/s, p99 %llu us\n", r->ops / r->seconds,
				  (unsigned long long) cft_hist_percentile(&r->latency_us, 99));
	opts_for(&o, n, "slice", 100, 400);
	o.slice_count = 2;
	o.gaussian = true;
	run(&o, r);
	assert_int_equal(r->errors, 0);
	assert_int_equal(r->misses, 0);
	assert_int_equal(r->columns, 200);
	opts_for(&o, n, "multiget", 50, 400);
	run(&o, r);
	assert_int_equal(r->errors, 0);
	assert_int_equal(r->misses, 0);
	assert_int_equal(r->columns, 50 * 10 * 5);
	opts_for(&o, n, "rangeslice", 50, 400);
	run(&o, r);
	assert_int_equal(r->errors, 0);
	assert_int_equal(r->misses, 0);
	assert_true(r->columns > 0);

	/* a key space beyond what was written: misses, not errors */
	opts_for(&o, n, "read", 200, 4000000);
	run(&o, r);
	assert_int_equal(r->errors, 0);
	assert_true(r->misses > 150);

	/* ALL over replication_factor 1 works; TWO cannot: errors by kind, run goes on */
	opts_for(&o, n, "read", 20, 400);
	o.consistency = 5;
	run(&o, r);
	assert_int_equal(r->errors, 0);
	opts_for(&o, n, "read", 20, 400);
	o.consistency = 7;
	run(&o, r);
	assert_int_equal(r->ops, 20);
	assert_int_equal(r->errors, 20);
	assert_int_equal(r->errors_by_code[CF_ERR_UNAVAILABLE], 20);
	assert_non_null(strstr(r->first_error, "TWO"));
	f = open_memstream(&text, &len);
	cft_stress_report(&o, r, f);
	fclose(f);
	assert_non_null(strstr(text, "errors       20 (UNAVAILABLE 20)\n"));
	free(text);

	/* a duration run stops on time */
	opts_for(&o, n, "insert", 1, 400);
	o.operations = 0;
	o.duration = 0.3;
	o.interval = 0.1;
	f = open_memstream(&text, &len);
	{
		cf_status  *s = cft_stress_run(&o, f, r);

		if (s)
			fail_msg("stress: %s", cf_status_msg(s));
	}
	fclose(f);
	assert_true(r->seconds >= 0.3 && r->seconds < 2);
	assert_true(r->ops > 0);
	/* the header, at least two interval lines and the final one */
	assert_non_null(strstr(text, "interval_op/s"));
	{
		int			lines = 0;

		for (char *p = text; (p = strchr(p, '\n')) != NULL; p++)
			lines++;
		assert_true(lines >= 4);
	}
	free(text);

	/* the JSON summary */
	o.json = true;
	f = open_memstream(&text, &len);
	cft_stress_report(&o, r, f);
	fclose(f);
	j = json_tokener_parse(text);
	assert_non_null(j);
	assert_true(json_object_object_get_ex(j, "total_ops", &v));
	assert_int_equal(json_object_get_int64(v), (int64_t) r->ops);
	assert_true(json_object_object_get_ex(j, "latency_ms", &v));
	assert_true(json_object_object_get_ex(v, "p99", NULL));
	assert_true(json_object_object_get_ex(j, "errors_by_kind", NULL));
	json_object_put(j);
	free(text);

	/* the text summary */
	o.json = false;
	f = open_memstream(&text, &len);
	cft_stress_report(&o, r, f);
	fclose(f);
	assert_non_null(strstr(text, "latency ms   mean "));
	assert_non_null(strstr(text, "errors       0\n"));
	free(text);

	free(r);
}

static void
runs(void **state)
{
	test_node  *n = test_node_start(NULL);

	(void) state;
	async_conns = 0;
	run_all(n);
	async_conns = 7;
	run_all(n);
	async_conns = 0;
	test_node_stop(n);
}

static void
unreachable_server(void **state)
{
	cft_stress_opts o;
	cft_stress_result *r = malloc(sizeof(*r));
	cf_status  *s;

	(void) state;
	assert_int_equal(cft_stress_parse(ARGV("stress", "-h", "127.0.0.1", "-p", "1",
										   "--operations", "5"), &o, stderr, stderr), -1);
	s = cft_stress_run(&o, NULL, r);
	assert_non_null(s);
	assert_int_equal(cf_status_code(s), CF_ERR_IO);
	cf_status_free(s);
	o.threads = 1;
	o.connections = 3;
	s = cft_stress_run(&o, NULL, r);
	assert_non_null(s);
	assert_int_equal(cf_status_code(s), CF_ERR_IO);
	assert_non_null(strstr(cf_status_msg(s), "127.0.0.1:1"));
	cf_status_free(s);
	free(r);
}

/*
 * A server that knows the schema and takes set_keyspace, then closes each connection
 * at its first data call: a thread per connection, so stress's setup can hold several.
 */
typedef struct quitter
{
	int			lfd;
	int			port;
	pthread_t	conn_th[16];
	int			nconn;
	pthread_t	th;
} quitter;

static void *
quitter_conn(void *arg)
{
	int			fd = (int) (intptr_t) arg;
	uint8_t		hdr[4];

	while (test_recv_all(fd, hdr, 4))
	{
		uint32_t	n = cf_load_be32(hdr);
		uint8_t    *msg = n < (1u << 20) ? malloc(n) : NULL;
		cf_t_message_header h;
		cf_t_method m;
		cf_t_result res;
		cf_t_cf_def cf;
		cf_buf		out;
		cf_rd		r;
		bool		answer;

		if (msg == NULL || !test_recv_all(fd, msg, n))
		{
			free(msg);
			break;
		}
		cf_rd_init(&r, msg, n);
		cf_status_free(cf_t_read_message_header(&r, &h));
		answer = cf_t_method_lookup(h.name, &m) &&
			(m == CF_T_M_DESCRIBE_KEYSPACE || m == CF_T_M_SET_KEYSPACE);
		memset(&res, 0, sizeof(res));
		memset(&cf, 0, sizeof(cf));
		cf.keyspace = res.ks_def.name = cf_slice_str("Keyspace1");
		cf.name = cf_slice_str("Standard1");
		res.ks_def.strategy_class = cf_slice_str("org.apache.cassandra.locator.SimpleStrategy");
		res.ks_def.replication_factor = 1;
		res.ks_def.cf_defs = &cf;
		res.ks_def.n_cf_defs = 1;
		cf_buf_init(&out, 0);
		cf_buf_put_u32(&out, 0);
		if (answer)
			cf_status_free(cf_t_write_reply(&out, m, h.seqid, &res));
		cf_store_be32(out.data, (uint32_t) (out.len - 4));
		free(msg);
		if (!answer || !test_send_all(fd, out.data, out.len))
		{
			cf_buf_free(&out);
			break;
		}
		cf_buf_free(&out);
	}
	close(fd);
	return NULL;
}

static void *
quitter_main(void *arg)
{
	quitter    *q = arg;
	int			fd;

	while (q->nconn < 16 && (fd = accept(q->lfd, NULL, NULL)) >= 0)
		pthread_create(&q->conn_th[q->nconn++], NULL, quitter_conn, (void *) (intptr_t) fd);
	return NULL;
}

static void
quitter_start(quitter *q)
{
	struct sockaddr_in sa = {.sin_family = AF_INET};
	socklen_t	len = sizeof(sa);

	memset(q, 0, sizeof(*q));
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	q->lfd = socket(AF_INET, SOCK_STREAM, 0);
	assert_true(q->lfd >= 0);
	assert_int_equal(bind(q->lfd, (struct sockaddr *) &sa, sizeof(sa)), 0);
	assert_int_equal(listen(q->lfd, 16), 0);
	assert_int_equal(getsockname(q->lfd, (struct sockaddr *) &sa, &len), 0);
	q->port = ntohs(sa.sin_port);
	assert_int_equal(pthread_create(&q->th, NULL, quitter_main, q), 0);
}

static void
quitter_stop(quitter *q)
{
	shutdown(q->lfd, SHUT_RDWR);
	close(q->lfd);
	pthread_join(q->th, NULL);
	for (int i = 0; i < q->nconn; i++)
		pthread_join(q->conn_th[i], NULL);
}

/* Event-loop threads: a connection the server closes fails its operation, no more. */
static void
server_closes_connections(void **state)
{
	quitter		q;
	cft_stress_opts o;
	cft_stress_result *r = malloc(sizeof(*r));
	char		port[16];
	cf_status  *s;

	(void) state;
	quitter_start(&q);
	snprintf(port, sizeof(port), "%d", q.port);
	assert_int_equal(cft_stress_parse(ARGV("stress", "-o", "read", "-t", "2", "--connections",
										   "5", "-h", "127.0.0.1", "-p", port, "--operations",
										   "1000"), &o, stderr, stderr), -1);
	s = cft_stress_run(&o, NULL, r);
	if (s)
		fail_msg("stress: %s", cf_status_msg(s));
	/* each connection's first operation fails; then nothing is left to run them */
	assert_int_equal(r->ops, 5);
	assert_int_equal(r->errors, 5);
	assert_int_equal(r->errors_by_code[CF_ERR_IO], 5);
	assert_non_null(strstr(r->first_error, "closed the connection"));
	quitter_stop(&q);
	free(r);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(options),
		cmocka_unit_test(histogram),
		cmocka_unit_test(runs),
		cmocka_unit_test(unreachable_server),
		cmocka_unit_test(server_closes_connections),
	};

	cf_log_set_level(CF_LOG_WARN);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
