/*
 * tools/stress.c — see stress.h. The main thread parses, sets the schema up, opens
 * every connection, starts the workers and prints progress; each worker owns its
 * connection, histogram and counters (progress reads two atomics per worker), and
 * the results are merged after the join.
 */
#include "tools/stress.h"

#include <errno.h>
#include <getopt.h>
#include <json-c/json.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "client/client.h"
#include "tools/commands.h"
#include "tools/stress_int.h"
#include "tools/connopt.h"
#include "tools/progress.h"

#define MAX_THREADS 1000
#define MAX_CONNECTIONS 10000
#define MAX_COLUMNS 100000
#define MAX_VALUE_SIZE (1024 * 1024)
#define MIN_KEY_WIDTH 7

static const char *const op_names[] = {"insert", "read", "slice", "multiget", "rangeslice"};

#define N_OPS ((int) (sizeof(op_names) / sizeof(op_names[0])))

/* ---------------------------------------------------------------- options */

static void
usage(FILE *out)
{
	fprintf(out,
			"usage: colfam stress [OPTIONS]\n"
			"  a load generator like Cassandra 0.7's contrib/stress\n\n"
			"  -o, --operation OP      insert, read, slice, multiget or rangeslice [insert]\n"
			"  -t, --threads N         client threads, one connection each [50]\n"
			"      --connections C     connections (calls in flight) [--threads]; more than\n"
			"                          --threads: each thread drives its share of them on an\n"
			"                          event loop, as redis-benchmark does\n"
			"  -n, --keys N            key space: keys 0..N-1 [1000000]\n"
			"  -c, --columns C         columns per row [5]\n"
			"  -S, --value-size S      bytes per column value [34]\n"
			"      --slice-count K     slice: the last K columns of a row [10]\n"
			"  -g, --keys-per-call N   multiget and rangeslice: rows per call [10]\n"
			"      --distribution D    uniform or gaussian key choice for reads [uniform]\n"
			"      --operations N      operations to run [--keys]\n"
			"  -d, --duration SECONDS  run this long instead of --operations\n"
			"  -e, --consistency CL    ONE, QUORUM, LOCAL_QUORUM, EACH_QUORUM, ALL, ANY, TWO\n"
			"                          or THREE [ONE]\n"
			"  -k, --keyspace KS       [Keyspace1], created if missing (replication_factor 1)\n"
			"      --column-family CF  [Standard1], created if missing\n"
			"  -b, --batch             insert with one batch_mutate per row (else one insert\n"
			"                          per column)\n"
			"      --output FORMAT     text or json (the summary as one JSON object on stdout,\n"
			"                          progress on stderr) [text]\n"
			"      --interval SECONDS  progress line period [1]\n"
			"  -h, --host HOST         [localhost]; /path: colfamd's unix socket\n"
			"  -p, --port PORT         [9160]\n"
			"      --help              this text\n"
			"Exit status: 0 when every operation succeeded (misses are not failures), 1 when\n"
			"some failed or nothing could run, 2 for a usage error.\n");
}

/* An integer option in [min, max]; false (message on err) otherwise. */
static bool
opt_int(FILE *err, const char *name, const char *arg, int64_t min, int64_t max,
		int64_t *out)
{
	char	   *end;
	long long	v;

	errno = 0;
	v = strtoll(arg, &end, 10);
	if (*arg == '\0' || *end != '\0' || errno != 0 || v < min || v > max)
	{
		fprintf(err, "colfam stress: %s must be an integer from %lld to %lld, not \"%s\"\n",
				name, (long long) min, (long long) max, arg);
		return false;
	}
	*out = v;
	return true;
}

static bool
opt_double(FILE *err, const char *name, const char *arg, double min, double max,
		   double *out)
{
	char	   *end;
	double		v;

	errno = 0;
	v = strtod(arg, &end);
	if (*arg == '\0' || *end != '\0' || errno != 0 || !(v >= min && v <= max))
	{
		fprintf(err, "colfam stress: %s must be a number of seconds from %g to %g, not \"%s\"\n",
				name, min, max, arg);
		return false;
	}
	*out = v;
	return true;
}

/* One of names[0..n) (case-insensitive; NULL entries skipped); -1 with a hint. */
static int
opt_enum(FILE *err, const char *name, const char *arg, const char *const *names, int n)
{
	for (int i = 0; i < n; i++)
		if (names[i] && strcasecmp(arg, names[i]) == 0)
			return i;
	fprintf(err, "colfam stress: unknown %s \"%s\"\nhint: valid values are", name, arg);
	for (int i = 0, first = 1; i < n; i++)
	{
		if (names[i] == NULL)
			continue;
		fprintf(err, "%s %s", first ? "" : ",", names[i]);
		first = 0;
	}
	fputc('\n', err);
	return -1;
}

enum
{
	O_SLICE_COUNT = 256, O_CONNECTIONS, O_DISTRIBUTION, O_OPERATIONS, O_CF, O_OUTPUT, O_INTERVAL, O_HELP
};

int
cft_stress_parse(int argc, char **argv, cft_stress_opts *o, FILE *out, FILE *err)
{
	static const struct option opts[] = {
		{"operation", required_argument, NULL, 'o'},
		{"threads", required_argument, NULL, 't'},
		{"connections", required_argument, NULL, O_CONNECTIONS},
		{"keys", required_argument, NULL, 'n'},
		{"columns", required_argument, NULL, 'c'},
		{"value-size", required_argument, NULL, 'S'},
		{"slice-count", required_argument, NULL, O_SLICE_COUNT},
		{"keys-per-call", required_argument, NULL, 'g'},
		{"distribution", required_argument, NULL, O_DISTRIBUTION},
		{"operations", required_argument, NULL, O_OPERATIONS},
		{"duration", required_argument, NULL, 'd'},
		{"consistency", required_argument, NULL, 'e'},
		{"keyspace", required_argument, NULL, 'k'},
		{"column-family", required_argument, NULL, O_CF},
		{"batch", no_argument, NULL, 'b'},
		{"output", required_argument, NULL, O_OUTPUT},
		{"interval", required_argument, NULL, O_INTERVAL},
		{"host", required_argument, NULL, 'h'},
		{"port", required_argument, NULL, 'p'},
		{"help", no_argument, NULL, O_HELP},
		{NULL, 0, NULL, 0}
	};
	static const char *const dists[] = {"uniform", "gaussian"};
	static const char *const outputs[] = {"text", "json"};
	bool		ops_given = false;
	int64_t		v;
	int			c,
				i;

	memset(o, 0, sizeof(*o));
	o->op = CFT_STRESS_INSERT;
	o->threads = 50;
	o->keys = 1000000;
	o->columns = 5;
	o->value_size = 34;
	o->slice_count = 10;
	o->keys_per_call = 10;
	o->consistency = 1;
	o->keyspace = "Keyspace1";
	o->cf = "Standard1";
	o->host = "localhost";
	o->port = CFC_DEFAULT_PORT;
	o->interval = 1;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":o:t:n:c:S:g:d:e:k:bh:p:", opts, NULL)) != -1)
	{
		bool		ok = true;

		switch (c)
		{
			case 'o':
				if ((i = opt_enum(err, "--operation", optarg, op_names, N_OPS)) < 0)
					return 2;
				o->op = (cft_stress_op) i;
				break;
			case 't':
				if ((ok = opt_int(err, "--threads", optarg, 1, MAX_THREADS, &v)))
					o->threads = (int) v;
				break;
			case O_CONNECTIONS:
				if ((ok = opt_int(err, "--connections", optarg, 1, MAX_CONNECTIONS, &v)))
					o->connections = (int) v;
				break;
			case 'n':
				if ((ok = opt_int(err, "--keys", optarg, 1, INT64_C(1000000000000), &v)))
					o->keys = v;
				break;
			case 'c':
				if ((ok = opt_int(err, "--columns", optarg, 1, MAX_COLUMNS, &v)))
					o->columns = (int) v;
				break;
			case 'S':
				if ((ok = opt_int(err, "--value-size", optarg, 0, MAX_VALUE_SIZE, &v)))
					o->value_size = (int) v;
				break;
			case O_SLICE_COUNT:
				if ((ok = opt_int(err, "--slice-count", optarg, 1, MAX_COLUMNS, &v)))
					o->slice_count = (int) v;
				break;
			case 'g':
				if ((ok = opt_int(err, "--keys-per-call", optarg, 1, 10000, &v)))
					o->keys_per_call = (int) v;
				break;
			case O_DISTRIBUTION:
				if ((i = opt_enum(err, "--distribution", optarg, dists, 2)) < 0)
					return 2;
				o->gaussian = i == 1;
				break;
			case O_OPERATIONS:
				if ((ok = opt_int(err, "--operations", optarg, 1, INT64_MAX / 2, &v)))
					o->operations = v;
				ops_given = true;
				break;
			case 'd':
				ok = opt_double(err, "--duration", optarg, 0.001, 366 * 86400.0, &o->duration);
				break;
			case 'e':
				if ((i = opt_enum(err, "--consistency", optarg, cf_t_consistency_names,
								   STRESS_N_CLS)) < 0)
					return 2;
				o->consistency = i;
				break;
			case 'k':
				o->keyspace = optarg;
				break;
			case O_CF:
				o->cf = optarg;
				break;
			case 'b':
				o->batch = true;
				break;
			case O_OUTPUT:
				if ((i = opt_enum(err, "--output", optarg, outputs, 2)) < 0)
					return 2;
				o->json = i == 1;
				break;
			case O_INTERVAL:
				ok = opt_double(err, "--interval", optarg, 0.01, 3600, &o->interval);
				break;
			case 'h':
				o->host = optarg;
				break;
			case 'p':
				if ((ok = opt_int(err, "--port", optarg, 1, 65535, &v)))
					o->port = (int) v;
				break;
			case O_HELP:
				usage(out);
				return 0;
			case ':':
				fprintf(err, "colfam stress: option %s needs a value\n", argv[optind - 1]);
				fprintf(err, "hint: colfam stress --help lists the options\n");
				return 2;
			default:
				fprintf(err, "colfam stress: unknown option \"%s\"\n", argv[optind - 1]);
				fprintf(err, "hint: colfam stress --help lists the options\n");
				return 2;
		}
		if (!ok)
			return 2;
	}
	if (optind < argc)
	{
		fprintf(err, "colfam stress: unexpected argument \"%s\"\n"
				"hint: colfam stress --help lists the options\n", argv[optind]);
		return 2;
	}
	if (ops_given && o->duration > 0)
	{
		fprintf(err, "colfam stress: --operations and --duration exclude each other\n"
				"hint: give one: a number of operations or a run time in seconds\n");
		return 2;
	}
	if (*o->keyspace == '\0' || *o->cf == '\0')
	{
		fprintf(err, "colfam stress: --keyspace and --column-family must not be empty\n");
		return 2;
	}
	if (o->consistency == CF_T_CL_ANY && o->op != CFT_STRESS_INSERT)
	{
		fprintf(err, "colfam stress: consistency ANY is for writes only\n"
				"hint: valid levels for reads are ONE, QUORUM, LOCAL_QUORUM, EACH_QUORUM, "
				"ALL, TWO, THREE\n");
		return 2;
	}
	if (o->connections == 0)
		o->connections = o->threads;
	if (o->connections < o->threads)
	{
		fprintf(err, "colfam stress: --connections (%d) must not be below --threads (%d)\n"
				"hint: each thread needs a connection; give fewer threads\n",
				o->connections, o->threads);
		return 2;
	}
	if (!ops_given && o->duration == 0)
		o->operations = o->keys;
	return -1;
}

/* ---------------------------------------------------------------- the workers */

static uint64_t
rng_next(uint64_t *s)
{
	uint64_t	x = *s;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*s = x;
	return x * UINT64_C(2685821657736338717);
}

/* A read's key index under the distribution. */
static int64_t
pick_key(worker *w)
{
	const cft_stress_opts *o = w->sh->o;

	if (!o->gaussian)
		return (int64_t) (rng_next(&w->rng) % (uint64_t) o->keys);
	for (;;)
	{
		double		u1 = ((double) (rng_next(&w->rng) >> 11) + 1) / 9007199254740993.0;
		double		u2 = (double) (rng_next(&w->rng) >> 11) / 9007199254740992.0;
		double		g = sqrt(-2 * log(u1)) * cos(2 * M_PI * u2);
		double		k = floor((double) o->keys / 2 + g * (double) o->keys / 10);

		if (k >= 0 && k < (double) o->keys)
			return (int64_t) k;
	}
}

/* Key k (< keys: it fits key_width digits, at most 19), zero-padded, into buf. */
static cf_slice
format_key(const stress_shared *sh, int64_t k, char *buf)
{
	for (int i = sh->key_width - 1; i >= 0; i--)
	{
		buf[i] = (char) ('0' + k % 10);
		k /= 10;
	}
	return cf_slice_of(buf, (size_t) sh->key_width);
}

int64_t
stress_now_us_wall(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t) ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static cf_t_slice_predicate
range_pred(int32_t count, bool reversed)
{
	cf_t_slice_predicate p;

	memset(&p, 0, sizeof(p));
	p.has_slice_range = true;
	p.slice_range.count = count;
	p.slice_range.reversed = reversed;
	return p;
}

/* multiget: the rows one call asks for. */
static size_t
multiget_keys(const cft_stress_opts *o)
{
	return (size_t) (o->keys_per_call < o->keys ? o->keys_per_call : o->keys);
}

int
stress_op_calls(const cft_stress_opts *o)
{
	return o->op == CFT_STRESS_INSERT && !o->batch ? o->columns : 1;
}

bool
stress_op_next(worker *w, int64_t *i)
{
	const stress_shared *sh = w->sh;

	*i = atomic_fetch_add(&w->sh->next, 1);
	return sh->o->duration > 0 ? cft_now_us() < sh->deadline_us : *i < sh->o->operations;
}

void
stress_op_call(worker *w, int64_t i, int step, int64_t ts, stress_call *call)
{
	const stress_shared *sh = w->sh;
	const cft_stress_opts *o = sh->o;
	cf_t_args  *a = &call->a;

	memset(a, 0, sizeof(*a));
	a->column_parent.column_family = cf_slice_str(o->cf);
	a->consistency_level = o->consistency ? o->consistency : CF_T_CL_ONE;
	switch (o->op)
	{
		case CFT_STRESS_INSERT:
			a->key = format_key(sh, i % o->keys, call->kb);
			if (o->batch)
			{
				for (int j = 0; j < o->columns; j++)
					w->muts[j].cosc.column.timestamp = ts;
				call->cfm = (cf_t_cf_mutations) {a->column_parent.column_family, w->muts,
				(size_t) o->columns};
				call->km = (cf_t_key_mutations) {a->key, &call->cfm, 1};
				a->mutation_map = &call->km;
				a->n_mutation_map = 1;
				call->m = CF_T_M_BATCH_MUTATE;
				return;
			}
			a->column = (cf_t_column) {sh->names[step], cf_slice_of(sh->value, (size_t) o->value_size),
			ts, false, 0};
			call->m = CF_T_M_INSERT;
			return;
		case CFT_STRESS_READ:
		case CFT_STRESS_SLICE:
			a->key = format_key(sh, pick_key(w), call->kb);
			a->predicate = o->op == CFT_STRESS_READ ? range_pred(o->columns, false)
				: range_pred(o->slice_count, true);
			call->m = CF_T_M_GET_SLICE;
			return;
		case CFT_STRESS_MULTIGET:
			{
				int64_t		start = pick_key(w);
				size_t		nk = multiget_keys(o);

				for (size_t j = 0; j < nk; j++)
					w->keys[j] = format_key(sh, (start + (int64_t) j) % o->keys,
											w->keybuf + j * 24);
				a->keys = w->keys;
				a->n_keys = nk;
				a->predicate = range_pred(o->columns, false);
				call->m = CF_T_M_MULTIGET_SLICE;
				return;
			}
		case CFT_STRESS_RANGESLICE:
			a->range.has_start_key = a->range.has_end_key = true;
			a->range.start_key = format_key(sh, pick_key(w), call->kb);
			a->range.end_key = cf_slice_of("", 0);
			a->range.count = o->keys_per_call;
			a->predicate = range_pred(o->columns, false);
			call->m = CF_T_M_GET_RANGE_SLICES;
			return;
	}
}

void
stress_op_count(worker *w, const stress_call *call, const cf_t_result *res)
{
	const cft_stress_opts *o = w->sh->o;
	size_t		hits = 0;

	switch (call->m)
	{
		case CF_T_M_BATCH_MUTATE:
			w->r.columns += (uint64_t) o->columns;
			break;
		case CF_T_M_INSERT:
			w->r.columns++;
			break;
		case CF_T_M_GET_SLICE:
			w->r.columns += res->n_coscs;
			w->r.misses += res->n_coscs == 0;
			break;
		case CF_T_M_MULTIGET_SLICE:
			for (size_t j = 0; j < res->n_key_coscs; j++)
			{
				w->r.columns += res->key_coscs[j].n_columns;
				hits += res->key_coscs[j].n_columns > 0;
			}
			w->r.misses += multiget_keys(o) - hits;
			break;
		case CF_T_M_GET_RANGE_SLICES:
			for (size_t j = 0; j < res->n_key_slices; j++)
				w->r.columns += res->key_slices[j].n_columns;
			w->r.misses += res->n_key_slices == 0;
			break;
		default:
			break;
	}
}

void
stress_op_done(worker *w, int64_t t0, int64_t t1, cf_status *s)
{
	cft_hist_record(&w->r.latency_us, (uint64_t) (t1 - t0));
	if (s)
	{
		cf_code		code = cf_status_code(s);

		w->r.errors++;
		w->r.errors_by_code[(unsigned) code < 32 ? code : CF_ERR_INTERNAL]++;
		if (w->r.first_error[0] == '\0')
			snprintf(w->r.first_error, sizeof(w->r.first_error), "%s", cf_status_msg(s));
		cf_status_free(s);
	}
	w->r.ops++;
	atomic_store_explicit(&w->lat_sum_us, atomic_load_explicit(&w->lat_sum_us,
					 memory_order_relaxed) + (uint64_t) (t1 - t0), memory_order_relaxed);
	atomic_store_explicit(&w->ops, w->r.ops, memory_order_relaxed);
}

/* One operation number i through libcolfam; counts columns and misses into w->r. */
static cf_status *
run_op(worker *w, int64_t i, cf_arena *arena)
{
	int64_t		ts = w->sh->o->op == CFT_STRESS_INSERT ? stress_now_us_wall() : 0;
	int			n = stress_op_calls(w->sh->o);

	for (int step = 0; step < n; step++)
	{
		stress_call call;
		cf_t_result res;
		cf_status  *s;

		stress_op_call(w, i, step, ts, &call);
		if ((s = cfc_call(w->c, call.m, &call.a, arena, &res)) != NULL)
			return s;
		stress_op_count(w, &call, &res);
	}
	return NULL;
}

/* A blocking worker: one libcolfam connection, one call at a time. */
static void *
worker_main(void *arg)
{
	worker	   *w = arg;
	int64_t		i;

	while (stress_op_next(w, &i))
	{
		int64_t		t0;
		cf_arena   *arena = cf_arena_new(8192);
		cf_status  *s;

		t0 = cft_now_us();
		s = arena ? run_op(w, i, arena) : cf_status_make(CF_ERR_NO_MEMORY, "out of memory");
		cf_arena_free(arena);
		stress_op_done(w, t0, cft_now_us(), s);
	}
	atomic_fetch_sub(&w->sh->running, 1);
	return NULL;
}

/* ---------------------------------------------------------------- setup */

/* A connection to o's host and port, using keyspace (NULL: none). */
static cf_status *
open_conn(const cft_stress_opts *o, const char *keyspace, cfc_conn **out)
{
	cft_connopt co;

	cft_connopt_init(&co);
	co.host = o->host;
	co.port = o->port;
	co.keyspace = keyspace;
	return cft_connopt_connect(&co, out);
}

/* The keyspace and CF, created when missing (py_stress's create_keyspace). */
static cf_status *
ensure_schema(const cft_stress_opts *o)
{
	cfc_conn   *c;
	cf_arena   *arena = cf_arena_new(4096);
	cf_t_ks_def ks;
	cf_t_cf_def cf;
	cf_status  *s;

	if (arena == NULL)
		return cf_status_make(CF_ERR_NO_MEMORY, "out of memory");
	if ((s = open_conn(o, NULL, &c)) != NULL)
	{
		cf_arena_free(arena);
		return s;
	}
	memset(&cf, 0, sizeof(cf));
	cf.keyspace = cf_slice_str(o->keyspace);
	cf.name = cf_slice_str(o->cf);
	s = cfc_describe_keyspace(c, o->keyspace, arena, &ks);
	if (s && cf_status_code(s) == CF_ERR_NOT_FOUND)
	{
		cf_status_free(s);
		memset(&ks, 0, sizeof(ks));
		ks.name = cf_slice_str(o->keyspace);
		ks.strategy_class = cf_slice_str("org.apache.cassandra.locator.SimpleStrategy");
		ks.replication_factor = 1;
		ks.cf_defs = &cf;
		ks.n_cf_defs = 1;
		s = cfc_system_add_keyspace(c, &ks, arena, NULL);
		if (s)
			s = cf_status_wrap(s, "creating keyspace %s", o->keyspace);
	}
	else if (s == NULL)
	{
		const cf_t_cf_def *found = NULL;

		for (size_t i = 0; i < ks.n_cf_defs; i++)
			if (cf_slice_eq(ks.cf_defs[i].name, cf.name))
				found = &ks.cf_defs[i];
		if (found == NULL)
		{
			s = cfc_system_add_column_family(c, &cf, arena, NULL);
			if (s)
				s = cf_status_wrap(s, "creating column family %s.%s", o->keyspace, o->cf);
		}
		else if (cf_slice_eq(found->column_type, cf_slice_str("Super")))
			s = cf_status_make(CF_ERR_INVALID, "%s.%s is a Super column family; stress "
							   "needs a Standard one (hint: pick another --column-family, "
							   "it is created if missing)", o->keyspace, o->cf);
	}
	cfc_free(c);
	cf_arena_free(arena);
	return s;
}

static void
print_progress(worker *ws, int n, int64_t start, int64_t now,
			   uint64_t *last_ops, uint64_t *last_lat, int64_t *last_t, FILE *out)
{
	uint64_t	ops = 0,
				lat = 0;
	double		dt = (double) (now - *last_t) / 1e6;

	for (int i = 0; i < n; i++)
	{
		ops += atomic_load_explicit(&ws[i].ops, memory_order_relaxed);
		lat += atomic_load_explicit(&ws[i].lat_sum_us, memory_order_relaxed);
	}
	fprintf(out, "%12llu %12.0f %14.3f %10.1f\n", (unsigned long long) ops,
			dt > 0 ? (double) (ops - *last_ops) / dt : 0,
			ops > *last_ops ? (double) (lat - *last_lat) / (double) (ops - *last_ops) / 1000 : 0,
			(double) (now - start) / 1e6);
	fflush(out);
	*last_ops = ops;
	*last_lat = lat;
	*last_t = now;
}

cf_status *
cft_stress_run(const cft_stress_opts *o, FILE *progress, cft_stress_result *res)
{
	stress_shared sh;
	worker	   *ws = NULL;
	char	   *namebuf = NULL;
	int			started = 0;
	cf_status  *s = NULL;
	int64_t		start,
				last_t;
	uint64_t	last_ops = 0,
				last_lat = 0;

	memset(res, 0, sizeof(*res));
	cft_hist_init(&res->latency_us);
	memset(&sh, 0, sizeof(sh));
	sh.o = o;
	sh.key_width = snprintf(NULL, 0, "%lld", (long long) (o->keys - 1));
	if (sh.key_width < MIN_KEY_WIDTH)
		sh.key_width = MIN_KEY_WIDTH;
	if ((s = ensure_schema(o)) != NULL)
		return s;

	ws = calloc((size_t) o->threads, sizeof(*ws));
	sh.names = calloc((size_t) o->columns, sizeof(*sh.names));
	namebuf = malloc((size_t) o->columns * 8);
	sh.value = malloc((size_t) o->value_size + 1);
	if (!ws || !sh.names || !namebuf || !sh.value)
		s = cf_status_make(CF_ERR_NO_MEMORY, "out of memory");
	for (int j = 0; s == NULL && j < o->columns; j++)
	{
		int			n = snprintf(namebuf + j * 8, 8, "C%d", j);

		sh.names[j] = cf_slice_of(namebuf + j * 8, (size_t) n);
	}
	for (int j = 0; s == NULL && j < o->value_size; j++)
		sh.value[j] = (uint8_t) ('a' + (j * 7 + 3) % 26);

	/* every connection first, so a bad address fails before the clock starts */
	for (int t = 0; s == NULL && t < o->threads; t++)
	{
		worker	   *w = &ws[t];

		w->sh = &sh;
		w->rng = UINT64_C(0x9E3779B97F4A7C15) * (uint64_t) (t + 1) ^ (uint64_t) stress_now_us_wall();
		cft_hist_init(&w->r.latency_us);
		w->muts = calloc((size_t) o->columns, sizeof(*w->muts));
		w->keys = calloc((size_t) o->keys_per_call, sizeof(*w->keys));
		w->keybuf = malloc((size_t) o->keys_per_call * 24);
		if (!w->muts || !w->keys || !w->keybuf)
		{
			s = cf_status_make(CF_ERR_NO_MEMORY, "out of memory");
			break;
		}
		for (int j = 0; j < o->columns; j++)
		{
			cf_t_mutation *m = &w->muts[j];

			m->has_cosc = true;
			m->cosc.has_column = true;
			m->cosc.column.name = sh.names[j];
			m->cosc.column.value = cf_slice_of(sh.value, (size_t) o->value_size);
		}
		if (o->connections > o->threads)
		{
			/* thread t drives connections t, t + threads, t + 2 * threads ... */
			int			share = (o->connections - t + o->threads - 1) / o->threads;

			if ((s = stress_async_open(w, share)) != NULL)
				s = cf_status_wrap(s, "connections of thread %d of %d", t + 1, o->threads);
		}
		else if ((s = open_conn(o, o->keyspace, &w->c)) != NULL)
			s = cf_status_wrap(s, "connection %d of %d", t + 1, o->threads);
	}

	if (s == NULL)
	{
		if (progress)
		{
			fprintf(progress, "%12s %12s %14s %10s\n", "total", "interval_op/s",
					"interval_lat_ms", "elapsed_s");
			fflush(progress);
		}
		start = last_t = cft_now_us();
		sh.deadline_us = start + (int64_t) (o->duration * 1e6);
		atomic_store(&sh.running, o->threads);
		for (; started < o->threads; started++)
		{
			int			e = pthread_create(&ws[started].th, NULL,
										   o->connections > o->threads ? stress_async_main :
										   worker_main, &ws[started]);

			if (e != 0)
			{
				s = cf_status_errno(e, "starting stress thread %d", started + 1);
				atomic_store(&sh.next, INT64_MAX / 2);	/* the started ones stop */
				sh.deadline_us = 0;
				atomic_fetch_sub(&sh.running, o->threads - started);
				break;
			}
		}
		{
			int64_t		next_print = start + (int64_t) (o->interval * 1e6);

			while (atomic_load(&sh.running) > 0)
			{
				int64_t		now = cft_now_us();

				if (progress && now >= next_print)
				{
					print_progress(ws, started, start, now, &last_ops, &last_lat,
								   &last_t, progress);
					next_print += (int64_t) (o->interval * 1e6);
				}
				usleep(10000);
			}
		}
		for (int t = 0; t < started; t++)
			pthread_join(ws[t].th, NULL);
		res->seconds = (double) (cft_now_us() - start) / 1e6;
		if (progress && s == NULL)
			print_progress(ws, started, start, cft_now_us(), &last_ops, &last_lat,
						   &last_t, progress);
		for (int t = 0; t < started; t++)
		{
			const cft_stress_result *r = &ws[t].r;

			res->ops += r->ops;
			res->columns += r->columns;
			res->misses += r->misses;
			res->errors += r->errors;
			for (int k = 0; k < 32; k++)
				res->errors_by_code[k] += r->errors_by_code[k];
			if (res->first_error[0] == '\0' && r->first_error[0] != '\0')
				memcpy(res->first_error, r->first_error, sizeof(res->first_error));
			cft_hist_merge(&res->latency_us, &r->latency_us);
		}
	}
	for (int t = 0; ws && t < o->threads; t++)
	{
		cfc_free(ws[t].c);
		stress_async_free(&ws[t]);
		free(ws[t].muts);
		free(ws[t].keys);
		free(ws[t].keybuf);
	}
	free(ws);
	free(sh.names);
	free(namebuf);
	free(sh.value);
	return s;
}

/* ---------------------------------------------------------------- the summary */

static double
ms(uint64_t us)
{
	return (double) us / 1000.0;
}

static void
report_json(const cft_stress_opts *o, const cft_stress_result *r, FILE *out)
{
	json_object *j = json_object_new_object();
	json_object *lat = json_object_new_object();
	json_object *errs = json_object_new_object();
	double		secs = r->seconds > 0 ? r->seconds : 1e-9;

	json_object_object_add(j, "operation", json_object_new_string(op_names[o->op]));
	json_object_object_add(j, "threads", json_object_new_int(o->threads));
	json_object_object_add(j, "connections", json_object_new_int(o->connections));
	json_object_object_add(j, "keys", json_object_new_int64(o->keys));
	json_object_object_add(j, "columns", json_object_new_int(o->columns));
	json_object_object_add(j, "value_size", json_object_new_int(o->value_size));
	json_object_object_add(j, "batch", json_object_new_boolean(o->batch));
	json_object_object_add(j, "distribution",
						   json_object_new_string(o->gaussian ? "gaussian" : "uniform"));
	json_object_object_add(j, "consistency", json_object_new_string(cf_t_consistency_names[o->consistency]));
	json_object_object_add(j, "total_ops", json_object_new_int64((int64_t) r->ops));
	json_object_object_add(j, "seconds", json_object_new_double(r->seconds));
	json_object_object_add(j, "ops_per_sec", json_object_new_double((double) r->ops / secs));
	json_object_object_add(j, "columns_per_sec",
						   json_object_new_double((double) r->columns / secs));
	json_object_object_add(lat, "mean", json_object_new_double(cft_hist_mean(&r->latency_us) / 1000));
	json_object_object_add(lat, "p50", json_object_new_double(ms(cft_hist_percentile(&r->latency_us, 50))));
	json_object_object_add(lat, "p95", json_object_new_double(ms(cft_hist_percentile(&r->latency_us, 95))));
	json_object_object_add(lat, "p99", json_object_new_double(ms(cft_hist_percentile(&r->latency_us, 99))));
	json_object_object_add(lat, "max", json_object_new_double(ms(r->latency_us.max)));
	json_object_object_add(j, "latency_ms", lat);
	json_object_object_add(j, "misses", json_object_new_int64((int64_t) r->misses));
	json_object_object_add(j, "errors", json_object_new_int64((int64_t) r->errors));
	for (int k = 0; k < 32; k++)
		if (r->errors_by_code[k])
			json_object_object_add(errs, cf_code_name((cf_code) k),
								   json_object_new_int64((int64_t) r->errors_by_code[k]));
	json_object_object_add(j, "errors_by_kind", errs);
	if (r->first_error[0])
		json_object_object_add(j, "first_error", json_object_new_string(r->first_error));
	fprintf(out, "%s\n", json_object_to_json_string_ext(j, JSON_C_TO_STRING_PLAIN));
	json_object_put(j);
}

void
cft_stress_report(const cft_stress_opts *o, const cft_stress_result *r, FILE *out)
{
	double		secs = r->seconds > 0 ? r->seconds : 1e-9;
	const cft_hist *h = &r->latency_us;

	if (o->json)
	{
		report_json(o, r, out);
		return;
	}
	fprintf(out, "operation    %s%s, %d threads, %d connections, consistency %s\n",
			op_names[o->op],
			o->op != CFT_STRESS_INSERT ? "" : o->batch ? " (batch_mutate)" : " (insert per column)",
			o->threads, o->connections, cf_t_consistency_names[o->consistency]);
	fprintf(out, "total ops    %llu in %.2f s\n", (unsigned long long) r->ops, r->seconds);
	fprintf(out, "ops/s        %.0f\n", (double) r->ops / secs);
	fprintf(out, "columns/s    %.0f %s\n", (double) r->columns / secs,
			o->op == CFT_STRESS_INSERT ? "written" : "read");
	fprintf(out, "latency ms   mean %.3f  p50 %.3f  p95 %.3f  p99 %.3f  max %.3f\n",
			cft_hist_mean(h) / 1000, ms(cft_hist_percentile(h, 50)),
			ms(cft_hist_percentile(h, 95)), ms(cft_hist_percentile(h, 99)), ms(h->max));
	if (o->op != CFT_STRESS_INSERT)
		fprintf(out, "misses       %llu (keys never written: not errors)\n",
				(unsigned long long) r->misses);
	fprintf(out, "errors       %llu", (unsigned long long) r->errors);
	for (int k = 0, first = 1; k < 32; k++)
	{
		if (r->errors_by_code[k] == 0)
			continue;
		fprintf(out, "%s%s %llu", first ? " (" : ", ", cf_code_name((cf_code) k),
				(unsigned long long) r->errors_by_code[k]);
		first = 0;
	}
	fprintf(out, "%s\n", r->errors ? ")" : "");
	if (r->first_error[0])
		fprintf(out, "first error  %s\n", r->first_error);
}

/* ---------------------------------------------------------------- the command */

int
cft_cmd_stress(int argc, char **argv)
{
	cft_stress_opts o;
	cft_stress_result *r;
	cf_status  *s;
	int			rc = cft_stress_parse(argc, argv, &o, stdout, stderr);

	if (rc >= 0)
		return rc;
	if ((r = malloc(sizeof(*r))) == NULL)
	{
		fprintf(stderr, "colfam stress: out of memory\n");
		return 1;
	}
	s = cft_stress_run(&o, o.json ? stderr : stdout, r);
	if (s)
	{
		fprintf(stderr, "colfam stress: %s\n", cf_status_msg(s));
		cf_status_free(s);
		free(r);
		return 1;
	}
	cft_stress_report(&o, r, stdout);
	rc = r->errors ? 1 : 0;
	free(r);
	return rc;
}
