/*
 * tests/unit/test_e2e_crash.c — kill -9 of the real colfamd under load with
 * commitlog_sync: batch loses nothing acknowledged.
 *
 * Each cycle: WRITERS threads, each with its own libcolfam connection (no resends, so
 * an acknowledgement is for exactly one send), insert single columns and batch_mutate
 * several rows at once, recording every write colfamd acknowledged; each also
 * overwrites one column of its own ("last") with an increasing sequence number. At a
 * random moment the test sends SIGKILL, restarts colfamd on the same directories and
 * reads back every write acknowledged in this and every earlier cycle: the exact
 * value. The "last" column must hold the last acknowledged sequence number or a later
 * one that was sent (a write may be durable without its acknowledgement arriving).
 *
 * A writer stops after MAX_ACKED acknowledged writes in a cycle, which bounds the
 * read-back if colfamd gets much faster.
 *
 * Seeded: the seed is printed; E2E_SEED=N reproduces the cycle timings and choices
 * (thread scheduling does the rest). Bounded: at most CYCLES cycles and no new cycle
 * after BUDGET_MS (the whole test stays well under 60 s).
 */
#include "support/cmocka_prelude.h"

#include <inttypes.h>
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

#define HOST "127.0.0.6"
#define KS "Crash"
#define CF "W"
#define WRITERS 6
#define CYCLES 6
#define BUDGET_MS 35000
#define BATCH_ROWS 4
#define MAX_ACKED 4000			/* per writer and cycle: bounds the read-back */

typedef struct record
{
	char		key[80];
	char		col[16];
	char		value[112];
} record;

typedef struct writer
{
	int			id;
	int			cycle;
	unsigned	seed;
	const char *hosts;
	atomic_bool *stop;
	atomic_bool *killed;
	pthread_t	thread;
	/* acknowledged writes, this cycle */
	record	   *acked;
	size_t		n_acked;
	size_t		cap;
	/* the "last" column: the last acknowledged and the last sent sequence numbers */
	long		last_acked;
	long		last_sent;
	int64_t		ts;
	char		error[512];		/* an error before the kill */
} writer;

static void
remember(writer *w, const record *r)
{
	if (w->n_acked == w->cap)
	{
		w->cap = w->cap ? 2 * w->cap : 1024;
		w->acked = realloc(w->acked, w->cap * sizeof(record));
		if (w->acked == NULL)
			abort();
	}
	w->acked[w->n_acked++] = *r;
}

/* Keeps the first failure that happened before the kill. */
static bool
failed(writer *w, cf_status *s, const char *what)
{
	if (s == NULL)
		return false;
	if (!atomic_load(w->killed) && w->error[0] == '\0')
		snprintf(w->error, sizeof(w->error), "writer %d, %s: %s", w->id, what,
				 cf_status_msg(s));
	cf_status_free(s);
	return true;
}

static void *
writer_main(void *arg)
{
	writer	   *w = arg;
	cfc_options o = {0};
	cfc_conn   *c;
	cf_t_column_parent p = {.column_family = S(CF)};

	o.hosts = w->hosts;
	o.keyspace = KS;
	o.max_attempts = 1;
	o.no_retry_writes = true;
	o.io_timeout_ms = 30000;
	if (failed(w, cfc_new(&o, &c), "cfc_new"))
		return NULL;
	for (long seq = 0; !atomic_load(w->stop) && w->n_acked < MAX_ACKED; seq++)
	{
		if (rand_r(&w->seed) % 2 == 0)
		{
			record		r;
			cf_t_column col;

			snprintf(r.key, sizeof(r.key), "c%d-w%d-%ld", w->cycle, w->id, seq);
			snprintf(r.col, sizeof(r.col), "v");
			snprintf(r.value, sizeof(r.value), "insert %d/%d/%ld %u", w->cycle, w->id, seq,
					 rand_r(&w->seed));
			col = (cf_t_column) {.name = S(r.col),.value = S(r.value),.timestamp = test_timestamp_us(&w->ts)};
			if (failed(w, cfc_insert(c, S(r.key), &p, &col, CF_T_CL_ONE), "insert"))
				break;
			remember(w, &r);
		}
		else
		{
			/* BATCH_ROWS rows of two columns, plus this writer's "last" column */
			record		r[BATCH_ROWS * 2];
			char		lastkey[32],
						lastval[32];
			cf_t_mutation m[BATCH_ROWS][2],
						lm;
			cf_t_cf_mutations cm[BATCH_ROWS + 1];
			cf_t_key_mutations km[BATCH_ROWS + 1];
			int64_t		ts = test_timestamp_us(&w->ts);

			for (int k = 0; k < BATCH_ROWS; k++)
			{
				for (int j = 0; j < 2; j++)
				{
					record	   *x = &r[k * 2 + j];

					snprintf(x->key, sizeof(x->key), "c%d-w%d-%ld-b%d", w->cycle, w->id, seq, k);
					snprintf(x->col, sizeof(x->col), "col%d", j);
					snprintf(x->value, sizeof(x->value), "batch %d/%d/%ld/%d/%d %u", w->cycle,
							 w->id, seq, k, j, rand_r(&w->seed));
					m[k][j] = (cf_t_mutation) {.has_cosc = true,.cosc = {.has_column = true,
					.column = {.name = S(x->col),.value = S(x->value),.timestamp = ts}}};
				}
				cm[k] = (cf_t_cf_mutations) {.column_family = S(CF),.mutations = m[k],
				.n_mutations = 2};
				km[k] = (cf_t_key_mutations) {.key = S(r[k * 2].key),.cfs = &cm[k],.n_cfs = 1};
			}
			snprintf(lastkey, sizeof(lastkey), "last-w%d", w->id);
			snprintf(lastval, sizeof(lastval), "%012ld", ++w->last_sent);
			lm = (cf_t_mutation) {.has_cosc = true,.cosc = {.has_column = true,
			.column = {.name = S("last"),.value = S(lastval),.timestamp = ts}}};
			cm[BATCH_ROWS] = (cf_t_cf_mutations) {.column_family = S(CF),.mutations = &lm,
			.n_mutations = 1};
			km[BATCH_ROWS] = (cf_t_key_mutations) {.key = S(lastkey),.cfs = &cm[BATCH_ROWS],
			.n_cfs = 1};
			if (failed(w, cfc_batch_mutate(c, km, BATCH_ROWS + 1, CF_T_CL_ONE), "batch_mutate"))
				break;
			w->last_acked = w->last_sent;
			for (int i = 0; i < BATCH_ROWS * 2; i++)
				remember(w, &r[i]);
		}
	}
	cfc_free(c);
	return NULL;
}

static cfc_conn *
reader(const test_colfamd *d)
{
	cfc_options o = {0};
	cfc_conn   *c;

	o.hosts = test_colfamd_hosts(d);
	o.keyspace = KS;
	o.io_timeout_ms = 60000;
	assert_null(cfc_new(&o, &c));
	return c;
}

/* Reads one column; NULL when it is not there. */
static char *
read_value(cfc_conn *c, const char *key, const char *col, cf_arena *a)
{
	cf_t_column_path cp = {.column_family = S(CF),.has_column = true,.column = S(col)};
	cf_t_cosc	out;
	cf_status  *s = cfc_get(c, S(key), &cp, CF_T_CL_ONE, a, &out);

	if (s && cf_status_code(s) == CF_ERR_NOT_FOUND)
	{
		cf_status_free(s);
		return NULL;
	}
	if (s)
		fail_msg("get %s/%s: %s", key, col, cf_status_msg(s));
	return cf_arena_strndup(a, (const char *) out.column.value.p, out.column.value.len);
}

static void
kill9_under_load_loses_nothing_acknowledged(void **state)
{
	static const char *const args[] = {
		"--commitlog_sync", "batch", "--commitlog_sync_batch_window_in_ms", "2", NULL};
	const char *env = getenv("E2E_SEED");
	unsigned	seed = env ? (unsigned) strtoul(env, NULL, 10) :
		(unsigned) time(NULL) ^ ((unsigned) getpid() << 8);
	test_colfamd *d;
	cfc_conn   *c;
	cf_arena   *a;
	record	   *all = NULL;
	size_t		n_all = 0;
	long		last_acked[WRITERS] = {0},
				last_sent[WRITERS] = {0};
	long		start = test_clock_ms();
	int			cycle;

	(void) state;
	print_message("kill -9 test: seed %u (E2E_SEED=%u reproduces it)\n", seed, seed);
	d = test_colfamd_start(HOST, args);
	c = reader(d);
	a = cf_arena_new(0);
	{
		cf_t_cf_def cf = {.keyspace = S(KS),.name = S(CF)};
		cf_t_ks_def ks = {.name = S(KS),.strategy_class = S("SimpleStrategy"),
		.replication_factor = 1,.cf_defs = &cf,.n_cf_defs = 1};
		cfc_options o = {.hosts = test_colfamd_hosts(d)};
		cfc_conn   *admin;

		assert_null(cfc_new(&o, &admin));
		OK(cfc_system_add_keyspace(admin, &ks, a, NULL));
		cfc_free(admin);
	}

	for (cycle = 0; cycle < CYCLES && (cycle < 2 || test_clock_ms() - start < BUDGET_MS); cycle++)
	{
		writer		w[WRITERS];
		atomic_bool stop = false,
					killed = false;
		int			run_ms = 150 + (int) (rand_r(&seed) % 1200);
		size_t		acked = 0,
					checked = 0;

		memset(w, 0, sizeof(w));
		for (int i = 0; i < WRITERS; i++)
		{
			w[i].id = i;
			w[i].cycle = cycle;
			w[i].seed = rand_r(&seed);
			w[i].hosts = test_colfamd_hosts(d);
			w[i].stop = &stop;
			w[i].killed = &killed;
			w[i].last_acked = last_acked[i];
			w[i].last_sent = last_sent[i];
			assert_int_equal(pthread_create(&w[i].thread, NULL, writer_main, &w[i]), 0);
		}
		usleep((useconds_t) run_ms * 1000);
		atomic_store(&killed, true);
		test_colfamd_kill(d);
		atomic_store(&stop, true);
		for (int i = 0; i < WRITERS; i++)
		{
			pthread_join(w[i].thread, NULL);
			if (w[i].error[0])
				fail_msg("cycle %d (seed %u): %s", cycle, seed, w[i].error);
			all = realloc(all, (n_all + w[i].n_acked) * sizeof(record));
			assert_non_null(all);
			memcpy(all + n_all, w[i].acked, w[i].n_acked * sizeof(record));
			n_all += w[i].n_acked;
			acked += w[i].n_acked;
			last_acked[i] = w[i].last_acked;
			last_sent[i] = w[i].last_sent;
			free(w[i].acked);
		}

		test_colfamd_restart(d);
		cfc_disconnect(c);
		for (size_t i = 0; i < n_all; i++, checked++)
		{
			char	   *v = read_value(c, all[i].key, all[i].col, a);

			if (v == NULL || strcmp(v, all[i].value) != 0)
				fail_msg("cycle %d (seed %u): acknowledged %s/%s = \"%s\" reads back as %s%s%s "
						 "after kill -9 and restart", cycle, seed, all[i].key, all[i].col,
						 all[i].value, v ? "\"" : "", v ? v : "nothing", v ? "\"" : "");
			if (i % 4096 == 4095)
			{
				cf_arena_free(a);
				a = cf_arena_new(0);
			}
		}
		for (int i = 0; i < WRITERS; i++)
		{
			char		key[32];
			char	   *v;
			long		got;

			snprintf(key, sizeof(key), "last-w%d", i);
			v = read_value(c, key, "last", a);
			got = v ? atol(v) : 0;
			if (got < last_acked[i] || got > last_sent[i])
				fail_msg("cycle %d (seed %u): %s/last reads %ld; acknowledged %ld, sent up to %ld",
						 cycle, seed, key, got, last_acked[i], last_sent[i]);
			/* what was read is now the state; later cycles continue from it */
			last_acked[i] = got;
			last_sent[i] = got > last_sent[i] ? got : last_sent[i];
		}
		print_message("cycle %d: killed after %d ms; %zu writes acknowledged, %zu checked "
					  "(all cycles)\n", cycle, run_ms, acked, checked);
	}
	print_message("%d cycles in %ld ms\n", cycle, test_clock_ms() - start);
	if (n_all == 0)
		fail_msg("no write was acknowledged in %d cycles: nothing was tested", cycle);
	cfc_free(c);
	cf_arena_free(a);
	free(all);
	test_colfamd_stop(d);
	test_colfamd_free(d);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(kill9_under_load_loses_nothing_acknowledged),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
