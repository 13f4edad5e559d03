/*
 * tests/unit/test_e2e_load.c — many concurrent clients against the real colfamd for a
 * bounded time, with no error.
 *
 * CLIENTS threads, each with its own libcolfam connection, run a random mix for
 * SECONDS: inserts, removes and batch_mutates of their own row (each keeps a model of
 * what the row must hold, with its own increasing timestamps), gets and get_slices of
 * that row checked against the model, and multiget_slice and get_range_slices over a
 * preloaded CF whose every value is known. Any error status or any wrong answer
 * counts; the test wants zero. Afterwards colfamd must still answer and stop cleanly
 * on SIGTERM. Its RSS is sampled throughout and printed; it must stay under a generous
 * cap (it holds a few MB of data).
 *
 * E2E_CLIENTS and E2E_LOAD_SECONDS override the defaults (200 clients; 15 s, or 8 s
 * in the ASan build, whose colfamd is several times slower).
 */
#include "support/cmocka_prelude.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "client/client.h"
#include "support/colfamd.h"
#include "support/envtest.h"
#include "support/slices.h"
#include "util/buf.h"

#define HOST "127.0.0.7"
#define KS "Load"
#define SHARED_ROWS 400
#define SHARED_COLS 10
#define OWN_COLS 24

#if defined(__SANITIZE_ADDRESS__)
#define DEFAULT_SECONDS 8
#define RSS_CAP_MB 3072
#else
#define DEFAULT_SECONDS 15
#define RSS_CAP_MB 1024
#endif

typedef struct client
{
	int			id;
	unsigned	seed;
	const char *hosts;
	long		deadline_ms;
	pthread_t	thread;
	long		ops;
	long		errors;
	char		first_error[512];
	/* the model of the own row: gen[k] == 0 means column k is absent */
	long		gen[OWN_COLS];
	long		next_gen;
	int64_t		ts;
} client;

static void
report(client *cl, const char *fmt,...) __attribute__((format(printf, 2, 3)));

/* Counts an error; keeps the first one's text. */
static void
report(client *cl, const char *fmt,...)
{
	va_list		ap;

	cl->errors++;
	if (cl->first_error[0])
		return;
	va_start(ap, fmt);
	vsnprintf(cl->first_error, sizeof(cl->first_error), fmt, ap);
	va_end(ap);
}

static bool
check(client *cl, cf_status *s, const char *what)
{
	if (s == NULL)
		return true;
	report(cl, "client %d, %s: %s", cl->id, what, cf_status_msg(s));
	cf_status_free(s);
	return false;
}

static void
own_name(int k, char *out, size_t n)
{
	snprintf(out, n, "n%02d", k);
}

static void
own_value(const client *cl, int k, long gen, char *out, size_t n)
{
	snprintf(out, n, "v%d-%d-%ld", cl->id, k, gen);
}

static void
shared_name(int col, char *out, size_t n)
{
	snprintf(out, n, "s%02d", col);
}

static void
shared_value(int row, int col, char *out, size_t n)
{
	snprintf(out, n, "sv-%d-%d", row, col);
}

/* A shared row's columns must be exactly its SHARED_COLS known values. */
static void
check_shared_row(client *cl, cf_slice key, const cf_t_cosc *cols, size_t n)
{
	int			row;
	char		k[32];

	snprintf(k, sizeof(k), "%.*s", (int) key.len, (const char *) key.p);
	if (sscanf(k, "shared-%d", &row) != 1 || n != SHARED_COLS)
	{
		report(cl, "client %d: shared row %s came with %zu columns", cl->id, k, n);
		return;
	}
	for (size_t j = 0; j < n; j++)
	{
		char		name[16],
					want[32];

		shared_name((int) j, name, sizeof(name));
		shared_value(row, (int) j, want, sizeof(want));
		if (!S_EQ(cols[j].column.name, name) || !S_EQ(cols[j].column.value, want))
			report(cl, "client %d: %s column %zu is %.*s=%.*s, want %s=%s", cl->id, k, j,
				   (int) cols[j].column.name.len, (const char *) cols[j].column.name.p,
				   (int) cols[j].column.value.len, (const char *) cols[j].column.value.p,
				   name, want);
	}
}

static void
op_write_own(client *cl, cfc_conn *c, char *rowkey)
{
	int			k = (int) (rand_r(&cl->seed) % OWN_COLS);
	char		name[16],
				val[48];
	long		gen = ++cl->next_gen;
	cf_t_column_parent p = {.column_family = S("Own")};
	cf_t_column col;

	own_name(k, name, sizeof(name));
	own_value(cl, k, gen, val, sizeof(val));
	col = (cf_t_column) {.name = S(name),.value = S(val),.timestamp = test_timestamp_us(&cl->ts)};
	if (check(cl, cfc_insert(c, S(rowkey), &p, &col, CF_T_CL_ONE), "insert"))
		cl->gen[k] = gen;
}

static void
op_remove_own(client *cl, cfc_conn *c, char *rowkey)
{
	int			k = (int) (rand_r(&cl->seed) % OWN_COLS);
	char		name[16];
	cf_t_column_path cp = {.column_family = S("Own"),.has_column = true};

	own_name(k, name, sizeof(name));
	cp.column = S(name);
	if (check(cl, cfc_remove(c, S(rowkey), &cp, test_timestamp_us(&cl->ts), CF_T_CL_QUORUM), "remove"))
		cl->gen[k] = 0;
}

static void
op_batch_own(client *cl, cfc_conn *c, char *rowkey)
{
	cf_t_mutation m[3];
	char		names[3][16],
				vals[3][48];
	int			ks[3];
	long		gens[3];
	cf_t_cf_mutations cm = {.column_family = S("Own"),.mutations = m,.n_mutations = 3};
	cf_t_key_mutations km = {.key = S(rowkey),.cfs = &cm,.n_cfs = 1};
	int64_t		ts = test_timestamp_us(&cl->ts);

	for (int i = 0; i < 3; i++)
	{
		ks[i] = (int) ((unsigned) (rand_r(&cl->seed) % (OWN_COLS / 3)) * 3 + (unsigned) i);
		gens[i] = ++cl->next_gen;
		own_name(ks[i], names[i], sizeof(names[i]));
		own_value(cl, ks[i], gens[i], vals[i], sizeof(vals[i]));
		m[i] = (cf_t_mutation) {.has_cosc = true,.cosc = {.has_column = true,
		.column = {.name = S(names[i]),.value = S(vals[i]),.timestamp = ts}}};
	}
	if (check(cl, cfc_batch_mutate(c, &km, 1, CF_T_CL_ALL), "batch_mutate"))
		for (int i = 0; i < 3; i++)
			cl->gen[ks[i]] = gens[i];
}

static void
op_get_own(client *cl, cfc_conn *c, char *rowkey, cf_arena *a)
{
	int			k = (int) (rand_r(&cl->seed) % OWN_COLS);
	char		name[16],
				want[48];
	cf_t_column_path cp = {.column_family = S("Own"),.has_column = true};
	cf_t_cosc	out;
	cf_status  *s;

	own_name(k, name, sizeof(name));
	cp.column = S(name);
	s = cfc_get(c, S(rowkey), &cp, CF_T_CL_ONE, a, &out);
	if (cl->gen[k] == 0)
	{
		if (s == NULL)
			report(cl, "client %d: removed column %s reads %.*s", cl->id, name,
				   (int) out.column.value.len, (const char *) out.column.value.p);
		else if (cf_status_code(s) != CF_ERR_NOT_FOUND)
			check(cl, s, "get of an absent column");
		else
			cf_status_free(s);
		return;
	}
	if (!check(cl, s, "get"))
		return;
	own_value(cl, k, cl->gen[k], want, sizeof(want));
	if (!S_EQ(out.column.value, want))
		report(cl, "client %d: %s reads %.*s, want %s", cl->id, name,
			   (int) out.column.value.len, (const char *) out.column.value.p, want);
}

static void
op_slice_own(client *cl, cfc_conn *c, char *rowkey, cf_arena *a)
{
	cf_t_column_parent p = {.column_family = S("Own")};
	cf_t_slice_predicate pred = {.has_slice_range = true,
	.slice_range = {.start = S(""),.finish = S(""),.count = 100}};
	cf_t_cosc  *cols;
	size_t		n,
				j = 0;

	if (!check(cl, cfc_get_slice(c, S(rowkey), &p, &pred, CF_T_CL_QUORUM, a, &cols, &n),
			   "get_slice"))
		return;
	for (int k = 0; k < OWN_COLS; k++)
	{
		char		name[16],
					want[48];

		if (cl->gen[k] == 0)
			continue;
		own_name(k, name, sizeof(name));
		own_value(cl, k, cl->gen[k], want, sizeof(want));
		if (j >= n || !S_EQ(cols[j].column.name, name) || !S_EQ(cols[j].column.value, want))
		{
			report(cl, "client %d: get_slice of its row differs at %s (%zu columns back)",
				   cl->id, name, n);
			return;
		}
		j++;
	}
	if (j != n)
		report(cl, "client %d: get_slice returned %zu columns, the model has %zu", cl->id, n, j);
}

static void
op_multiget_shared(client *cl, cfc_conn *c, cf_arena *a)
{
	char		keys[5][24];
	cf_slice	ks[5];
	cf_t_column_parent p = {.column_family = S("Shared")};
	cf_t_slice_predicate pred = {.has_slice_range = true,
	.slice_range = {.start = S(""),.finish = S(""),.count = 100}};
	cf_t_key_coscs *out;
	size_t		n;

	for (int i = 0; i < 5; i++)
	{
		snprintf(keys[i], sizeof(keys[i]), "shared-%d", (int) (rand_r(&cl->seed) % SHARED_ROWS));
		ks[i] = S(keys[i]);
	}
	if (!check(cl, cfc_multiget_slice(c, ks, 5, &p, &pred, CF_T_CL_ONE, a, &out, &n),
			   "multiget_slice"))
		return;
	if (n == 0 || n > 5)
		report(cl, "client %d: multiget_slice of 5 keys returned %zu", cl->id, n);
	for (size_t i = 0; i < n; i++)
		check_shared_row(cl, out[i].key, out[i].columns, out[i].n_columns);
}

static void
op_range_shared(client *cl, cfc_conn *c, cf_arena *a, cf_buf *tok)
{
	char		start[24];
	cf_t_column_parent p = {.column_family = S("Shared")};
	cf_t_slice_predicate pred = {.has_slice_range = true,
	.slice_range = {.start = S(""),.finish = S(""),.count = 100}};
	cf_t_key_range r = {.has_start_token = true,.has_end_token = true,.end_token = S("0"),
	.count = 20};
	cf_t_key_slice *rows;
	size_t		n;

	snprintf(start, sizeof(start), "shared-%d", (int) (rand_r(&cl->seed) % SHARED_ROWS));
	cf_buf_reset(tok);
	if (!check(cl, cfc_token_string(S("org.apache.cassandra.dht.RandomPartitioner"),
									S(start), tok), "token"))
		return;
	r.start_token = cf_slice_of(tok->data, tok->len);
	if (!check(cl, cfc_get_range_slices(c, &p, &pred, &r, CF_T_CL_ONE, a, &rows, &n),
			   "get_range_slices"))
		return;
	if (n > 20)
		report(cl, "client %d: get_range_slices count 20 returned %zu", cl->id, n);
	for (size_t i = 0; i < n; i++)
	{
		if (S_EQ(rows[i].key, start))
			report(cl, "client %d: the range (token(%s), 0] returned %s itself", cl->id,
				   start, start);
		check_shared_row(cl, rows[i].key, rows[i].columns, rows[i].n_columns);
	}
}

static void *
client_main(void *arg)
{
	client	   *cl = arg;
	cfc_options o = {0};
	cfc_conn   *c;
	cf_buf		tok = CF_BUF_INIT;
	char		rowkey[24];

	snprintf(rowkey, sizeof(rowkey), "own-%d", cl->id);
	o.hosts = cl->hosts;
	o.keyspace = KS;
	o.connect_timeout_ms = 20000;
	o.io_timeout_ms = 60000;
	if (!check(cl, cfc_new(&o, &c), "cfc_new"))
		return NULL;
	if (!check(cl, cfc_connect(c), "connect"))
	{
		cfc_free(c);
		return NULL;
	}
	while (test_clock_ms() < cl->deadline_ms)
	{
		cf_arena   *a = cf_arena_new(0);

		switch (rand_r(&cl->seed) % 8)
		{
			case 0:
			case 1:
				op_write_own(cl, c, rowkey);
				break;
			case 2:
				op_remove_own(cl, c, rowkey);
				break;
			case 3:
				op_batch_own(cl, c, rowkey);
				break;
			case 4:
				op_get_own(cl, c, rowkey, a);
				break;
			case 5:
				op_slice_own(cl, c, rowkey, a);
				break;
			case 6:
				op_multiget_shared(cl, c, a);
				break;
			default:
				op_range_shared(cl, c, a, &tok);
				break;
		}
		cf_arena_free(a);
		cl->ops++;
	}
	/* the last word: the whole row as the model says */
	{
		cf_arena   *a = cf_arena_new(0);

		op_slice_own(cl, c, rowkey, a);
		cf_arena_free(a);
	}
	cf_buf_free(&tok);
	cfc_free(c);
	return NULL;
}

static int
env_int(const char *name, int dflt)
{
	const char *v = getenv(name);

	return v && atoi(v) > 0 ? atoi(v) : dflt;
}

static void
preload(cfc_conn *c)
{
	cf_arena   *a = cf_arena_new(0);
	cf_t_cf_def cfs[2] = {
		{.keyspace = S(KS),.name = S("Own"),.has_comparator_type = true,
		.comparator_type = S("UTF8Type")},
		{.keyspace = S(KS),.name = S("Shared"),.has_comparator_type = true,
		.comparator_type = S("UTF8Type")},
	};
	cf_t_ks_def ks = {.name = S(KS),.strategy_class = S("SimpleStrategy"),
	.replication_factor = 1,.cf_defs = cfs,.n_cf_defs = 2};

	OK(cfc_system_add_keyspace(c, &ks, a, NULL));
	OK(cfc_set_keyspace(c, KS));
	for (int row = 0; row < SHARED_ROWS; row++)
	{
		char		key[24],
					names[SHARED_COLS][16],
					vals[SHARED_COLS][32];
		cf_t_mutation m[SHARED_COLS];
		cf_t_cf_mutations cm = {.column_family = S("Shared"),.mutations = m,
		.n_mutations = SHARED_COLS};
		cf_t_key_mutations km = {.cfs = &cm,.n_cfs = 1};

		snprintf(key, sizeof(key), "shared-%d", row);
		km.key = S(key);
		for (int j = 0; j < SHARED_COLS; j++)
		{
			shared_name(j, names[j], sizeof(names[j]));
			shared_value(row, j, vals[j], sizeof(vals[j]));
			m[j] = (cf_t_mutation) {.has_cosc = true,.cosc = {.has_column = true,
			.column = {.name = S(names[j]),.value = S(vals[j]),.timestamp = 1}}};
		}
		OK(cfc_batch_mutate(c, &km, 1, CF_T_CL_ONE));
	}
	cf_arena_free(a);
}

static void
many_clients_for_a_bounded_time_without_error(void **state)
{
	int			n_clients = env_int("E2E_CLIENTS", 200);
	int			seconds = env_int("E2E_LOAD_SECONDS", DEFAULT_SECONDS);
	unsigned	seed = (unsigned) time(NULL);
	test_colfamd *d = test_colfamd_start(HOST, NULL);
	cfc_options o = {.hosts = test_colfamd_hosts(d),.io_timeout_ms = 60000};
	cfc_conn   *c;
	client	   *cls = calloc((size_t) n_clients, sizeof(client));
	pthread_attr_t attr;
	long		start,
				ops = 0,
				errors = 0,
				rss_start,
				rss_max = 0,
				rss_end;
	cf_arena   *a = cf_arena_new(0);
	cf_slice	version;

	(void) state;
	assert_non_null(cls);
	assert_null(cfc_new(&o, &c));
	preload(c);
	rss_start = test_colfamd_rss_kb(d);

	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 256 * 1024);
	start = test_clock_ms();
	for (int i = 0; i < n_clients; i++)
	{
		cls[i].id = i;
		cls[i].seed = seed + (unsigned) i * 7919u;
		cls[i].hosts = test_colfamd_hosts(d);
		cls[i].deadline_ms = start + seconds * 1000L;
		assert_int_equal(pthread_create(&cls[i].thread, &attr, client_main, &cls[i]), 0);
	}
	while (test_clock_ms() < start + seconds * 1000L)
	{
		long		rss = test_colfamd_rss_kb(d);

		rss_max = rss > rss_max ? rss : rss_max;
		usleep(250 * 1000);
	}
	for (int i = 0; i < n_clients; i++)
	{
		pthread_join(cls[i].thread, NULL);
		ops += cls[i].ops;
		errors += cls[i].errors;
		if (cls[i].errors)
			print_message("client %d: %ld errors, the first: %s\n", i, cls[i].errors,
						  cls[i].first_error);
	}
	rss_end = test_colfamd_rss_kb(d);
	rss_max = rss_end > rss_max ? rss_end : rss_max;
	print_message("%d clients, %d s: %ld operations (%.0f/s), %ld errors; colfamd RSS "
				  "%ld KiB before, %ld KiB max, %ld KiB after\n", n_clients, seconds, ops,
				  ops * 1000.0 / (double) (test_clock_ms() - start), errors, rss_start, rss_max,
				  rss_end);
	assert_int_equal(errors, 0);
	for (int i = 0; i < n_clients; i++)
		if (cls[i].ops == 0)
			fail_msg("client %d did no operation in %d s", i, seconds);
	if (rss_max > RSS_CAP_MB * 1024L)
		fail_msg("colfamd's RSS reached %ld KiB (cap %d MiB)", rss_max, RSS_CAP_MB);

	/* still answering, and it stops cleanly */
	OK(cfc_describe_version(c, a, &version));
	assert_true(S_EQ(version, "19.4.0"));
	cfc_free(c);
	cf_arena_free(a);
	pthread_attr_destroy(&attr);
	free(cls);
	test_colfamd_stop(d);
	test_colfamd_free(d);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(many_clients_for_a_bounded_time_without_error),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
