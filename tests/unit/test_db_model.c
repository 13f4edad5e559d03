/* tests/unit/test_db_model.c — the db against an in-memory reference: random writes,
 * overwrites with colliding timestamps, cell and row deletions, range tombstones,
 * flushes, major compactions and restarts, compared after every step. Seeded and
 * reproducible: the seed is printed, CF_TEST_SEED repeats it. */
#include "support/cmocka_prelude.h"
#include "support/slices.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "db/db.h"
#include "support/dbfixture.h"
#include "util/log.h"

#define NKEYS 24
#define NNAMES 16
#define STEPS 1500

/* The reference: per key, the winning version of each name and the deletions. */
typedef struct ref_cell
{
	bool		present;
	int64_t		ts;
	bool		deleted;
	char		value[16];
} ref_cell;

typedef struct ref_tomb
{
	int			lo;				/* name indexes, inclusive */
	int			hi;
	int64_t		ts;
} ref_tomb;

typedef struct ref_row
{
	ref_cell	cells[NNAMES];
	int64_t		row_del;		/* CF_LIVE when none */
	ref_tomb	tombs[64];
	int			ntombs;
} ref_row;

static ref_row model[NKEYS];
static unsigned rng;

static unsigned
rnd(unsigned n)
{
	rng = rng * 1103515245u + 12345u;
	return (rng >> 8) % n;
}

static void
name_of(int i, char *out)
{
	/* names sort by index under UTF8Type */
	snprintf(out, 8, "n%02d", i);
}

static void
key_of(int i, char *out)
{
	snprintf(out, 16, "key%03d", i);
}

/* Cassandra's reconcile, on the reference's terms. */
static bool
wins(int64_t ts, bool deleted, const char *value, const ref_cell *old)
{
	if (!old->present || ts != old->ts)
		return !old->present || ts > old->ts;
	if (deleted != old->deleted)
		return deleted;
	return strcmp(value, old->value) > 0;
}

static bool
ref_visible(const ref_row *r, int n)
{
	const ref_cell *c = &r->cells[n];

	if (!c->present || c->deleted || c->ts <= r->row_del)
		return false;
	for (int t = 0; t < r->ntombs; t++)
		if (n >= r->tombs[t].lo && n <= r->tombs[t].hi && c->ts <= r->tombs[t].ts)
			return false;
	return true;
}

static cf_db *
open_db(db_fixture *f)
{
	cf_db_options o = db_fixture_options(f);

	o.memtable_max_ops = 97;	/* switches happen on their own too */
	return db_fixture_open(f, &o);
}

static void
apply(db_fixture *f, int k, cf_cf_update *u)
{
	char		key[16];
	cf_db_update du = {.cf = "Data",.u = *u};
	cf_status  *s;

	key_of(k, key);
	if ((s = cf_db_apply(f->db, "Model", S(key), &du, 1)) != NULL)
		fail_msg("apply: %s", cf_status_msg(s));
}

/* Compares every row, and a full range scan, with the reference. */
static void
compare(db_fixture *f, int step, unsigned seed)
{
	cf_table_set v;
	cf_predicate all = {.range = {.count = 1000}};
	cf_key_range whole = {.count = 1000};
	cf_read_rows *rows;
	int			live_rows = 0;

	assert_null(cf_db_view(f->db, "Model", "Data", &v));
	for (int k = 0; k < NKEYS; k++)
	{
		char		key[16];
		cf_buf		token = CF_BUF_INIT;
		cf_read_result *r;
		size_t		at = 0;
		bool		any = false;

		key_of(k, key);
		assert_null(cf_db_token(f->db, S(key), &token));
		assert_null(cf_read_slice(&v, cf_slice_of(token.data, token.len), S(key),
								  cf_slice_of(NULL, 0), &all, 0, &r));
		for (int n = 0; n < NNAMES; n++)
		{
			char		name[8];

			if (!ref_visible(&model[k], n))
				continue;
			any = true;
			name_of(n, name);
			if (at >= r->slice.n_columns ||
				!cf_slice_eq(r->slice.columns[at].name, S(name)) ||
				!cf_slice_eq(r->slice.columns[at].value, S(model[k].cells[n].value)) ||
				r->slice.columns[at].timestamp != model[k].cells[n].ts)
				fail_msg("step %d (seed %u): %s/%s should be %s@%lld", step, seed, key, name,
						 model[k].cells[n].value, (long long) model[k].cells[n].ts);
			at++;
		}
		if (at != r->slice.n_columns)
			fail_msg("step %d (seed %u): %s has %zu columns, the model %zu", step, seed, key,
					 r->slice.n_columns, at);
		live_rows += any;
		cf_read_result_free(r);
		cf_buf_free(&token);
	}
	assert_null(cf_read_range(&v, &whole, cf_slice_of(NULL, 0), &all, 0, &rows));
	if ((int) rows->n_rows != live_rows)
		fail_msg("step %d (seed %u): a range scan found %zu rows, the model %d", step, seed,
				 rows->n_rows, live_rows);
	cf_read_rows_free(rows);
	cf_cfstore_view_release(&v);
}

static void
random_history_matches_the_reference(void **state)
{
	db_fixture *f = *state;
	unsigned	seed = (unsigned) time(NULL);
	const char *env = getenv("CF_TEST_SEED");
	int64_t		clock = 1000;
	int			flushes = 0, compactions = 0, restarts = 0, replays = 0;
	cf_ks_def	ks;
	cf_cf_def	cf;

	if (env)
		seed = (unsigned) strtoul(env, NULL, 10);
	rng = seed;
	print_message("db model: seed %u (CF_TEST_SEED repeats it)\n", seed);
	for (int k = 0; k < NKEYS; k++)
		model[k].row_del = CF_LIVE;

	assert_null(cf_ksdef_init(&ks, "Model"));
	assert_null(cf_cfdef_init(&cf, "Model", "Data"));
	assert_null(cf_cfdef_set_comparator(&cf, "UTF8Type"));
	/*
	 * The default gc_grace (10 days): no tombstone is purged during the test. With 0,
	 * compaction purges tombstones at once and the late writes this test makes come
	 * back, as Cassandra intends after gc_grace; the purge rules have their own tests
	 * (test_compaction.c).
	 */
	assert_null(cf_ksdef_add_cf(&ks, &cf));
	open_db(f);
	assert_null(cf_db_add_keyspace(f->db, &ks));
	cf_ksdef_clear(&ks);

	for (int step = 0; step < STEPS; step++)
	{
		unsigned	op = rnd(100);
		int			k = (int) rnd(NKEYS);
		/* timestamps mostly grow, sometimes collide or go back */
		int64_t		ts = rnd(10) == 0 ? clock - (int64_t) rnd(50) : (clock += 1 + rnd(3));

		/* one time in five a cell write ties with the version it meets */
		int			n = (int) rnd(NNAMES);

		if (model[k].cells[n].present && rnd(5) == 0)
			ts = model[k].cells[n].ts;

		if (op < 55)
		{
			char		name[8], value[16];
			cf_cell		c;
			cf_cf_update u = {.row_del = cf_deletion_none(),.cells = &c,.n_cells = 1};

			name_of(n, name);
			snprintf(value, sizeof(value), "v%u", rnd(1000));
			c = (cf_cell) {.name = S(name),.value = S(value),.timestamp = ts};
			apply(f, k, &u);
			if (wins(ts, false, value, &model[k].cells[n]))
				model[k].cells[n] = (ref_cell) {true, ts, false, ""},
					snprintf(model[k].cells[n].value, 16, "%s", value);
		}
		else if (op < 70)
		{
			char		name[8];
			cf_cell		c;
			cf_cf_update u = {.row_del = cf_deletion_none(),.cells = &c,.n_cells = 1};

			name_of(n, name);
			c = (cf_cell) {.name = S(name),.timestamp = ts,.flags = CF_CELL_DELETED,
			.local_time = (int32_t) time(NULL)};
			apply(f, k, &u);
			if (wins(ts, true, "", &model[k].cells[n]))
				model[k].cells[n] = (ref_cell) {true, ts, true, ""};
		}
		else if (op < 75)
		{
			cf_cf_update u = {.row_del = {ts, (int32_t) time(NULL)}};

			apply(f, k, &u);
			if (ts > model[k].row_del)
				model[k].row_del = ts;
		}
		else if (op < 82 && model[k].ntombs < 64)
		{
			int			lo = (int) rnd(NNAMES), hi = lo + (int) rnd(4);
			char		a[8], b[8];
			cf_range_tomb t;
			cf_cf_update u = {.row_del = cf_deletion_none(),.tombs = &t,.n_tombs = 1};

			if (hi >= NNAMES)
				hi = NNAMES - 1;
			name_of(lo, a);
			name_of(hi, b);
			t = (cf_range_tomb) {.start = S(a),.finish = S(b),
			.del = {ts, (int32_t) time(NULL)}};
			apply(f, k, &u);
			model[k].tombs[model[k].ntombs++] = (ref_tomb) {lo, hi, ts};
		}
		else if (op < 90)
		{
			assert_null(cf_db_flush(f->db, "Model", "Data"));
			flushes++;
		}
		else if (op < 95)
		{
			assert_null(cf_db_flush(f->db, "Model", "Data"));
			assert_null(cf_db_compact(f->db, "Model", "Data", true));
			compactions++;
		}
		else
		{
			/* half the restarts are clean, half leave the memtables to replay */
			if (rnd(2))
				db_fixture_close(f);
			else
			{
				assert_null(cf_db_abandon(f->db));
				replays++;
			}
			open_db(f);
			restarts++;
		}
		compare(f, step, seed);
	}
	print_message("db model: %d steps, %d flushes, %d major compactions, %d restarts "
				  "(%d replaying unflushed memtables)\n",
				  STEPS, flushes, compactions, restarts, replays);
	db_fixture_close(f);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		DB_TEST(random_history_matches_the_reference),
	};

	cf_log_set_level(CF_LOG_WARN);
	return cmocka_run_group_tests_name("db/model", tests, NULL, NULL);
}
