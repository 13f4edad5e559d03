/*
 * tests/bench/bench_index.c — what a KEYS secondary index costs and buys in colfam's
 * local database: write throughput into a CF with one index against the same CF
 * without one (fresh rows, then overwrites that move every row to another value),
 * and get_indexed_slices latency for an EQ that matches 10 rows among N, served by
 * the index and, for comparison, by the scan a query falls back on while an index is
 * being built; and, for scale, random single-row reads (what a write that changes an
 * indexed value reads first). Prints a markdown report on stdout.
 *
 *   bench_index [-n ROWS] [-q QUERIES] [-d TMPDIR]
 *
 * Assumptions: RandomPartitioner, the periodic commit log, default memtable
 * thresholds, no background compaction; each row has a 16-byte key, an indexed
 * UTF8Type "city" shared by 10 rows, and a 100-byte "name". The two CFs are written in
 * turn with the same data, each phase timed until its last write is acknowledged,
 * with a flush (untimed) between phases. Query latency is measured after a flush and a
 * major compaction of both CFs (every row in one SSTable), each answer checked: 10
 * rows, each with its city. Built with `make -f mk/engine.mk benches`; not part of
 * `make test` or `make bench`.
 */
#include <ftw.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "db/db.h"
#include "util/log.h"

#define KS "Bench"
#define PER_CITY 10

static char *tmp_dir;

static void
die(const char *what, cf_status *s)
{
	fprintf(stderr, "bench_index: %s: %s\n", what, s ? cf_status_msg(s) : "failed");
	exit(1);
}

static void
ok(const char *what, cf_status *s)
{
	if (s)
		die(what, s);
}

static double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double) ts.tv_sec + ts.tv_nsec / 1e9;
}

static int
rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void) st;
	(void) flag;
	(void) ftw;
	return remove(path);
}

static void
add_cf(cf_db *db, const char *name, bool indexed)
{
	cf_cf_def	cf;

	ok("cfdef", cf_cfdef_init(&cf, KS, name));
	ok("comparator", cf_cfdef_set_comparator(&cf, "UTF8Type"));
	ok("column", cf_cfdef_add_column(&cf, cf_slice_str("city"), "UTF8Type", indexed, NULL));
	ok("add_cf", cf_db_add_cf(db, &cf));
	cf_cfdef_clear(&cf);
}

static void
key_of(long i, char *out)
{
	snprintf(out, 17, "user%012ld", i % 1000000000000L);
}

/* The city of row i in a round: PER_CITY rows share one, a round moves every row. */
static void
city_of(long i, long n, int round, char *out)
{
	snprintf(out, 32, "city%02d-%08ld", round % 100, ((i * 7919) % n) / PER_CITY % 100000000L);
}

/* Writes every row once; returns writes per second. */
static double
write_all(cf_db *db, const char *cf, long n, int round, int64_t ts)
{
	char		name[101];
	double		t0 = now_s();

	memset(name, 'n', 100);
	name[100] = '\0';
	for (long i = 0; i < n; i++)
	{
		char		key[17], city[32];
		cf_cell		c[2];
		cf_db_update u = {.cf = cf,.u = {.row_del = cf_deletion_none(),.cells = c,.n_cells = 2}};

		key_of(i, key);
		city_of(i, n, round, city);
		memcpy(name, key, 16);
		c[0] = (cf_cell) {.name = cf_slice_str("city"),.value = cf_slice_str(city),.timestamp = ts};
		c[1] = (cf_cell) {.name = cf_slice_str("name"),.value = cf_slice_of(name, 100),
		.timestamp = ts};
		ok("write", cf_db_apply(db, KS, cf_slice_str(key), &u, 1));
	}
	return (double) n / (now_s() - t0);
}

static int
cmp_double(const void *a, const void *b)
{
	double		x = *(const double *) a, y = *(const double *) b;

	return x < y ? -1 : x > y;
}

/* q EQ queries on random cities of the last round; latencies in µs, sorted. */
static void
query_latency(cf_db *db, long n, int round, int q, bool scan, double *lat)
{
	cf_predicate all = {.range = {.count = 100}};

	for (int i = 0; i < q; i++)
	{
		char		city[32];
		long		row = (long) (((unsigned long) i * 2654435761u) % (unsigned long) n);
		cf_index_expr e;
		cf_index_clause c;
		cf_read_rows *r = NULL;
		double		t0;

		city_of(row, n, round, city);
		e = (cf_index_expr) {cf_slice_str("city"), CF_INDEX_EQ, cf_slice_str(city)};
		c = (cf_index_clause) {.exprs = &e,.n_exprs = 1,.count = 100};
		t0 = now_s();
		if (scan)
		{
			/* the fallback while an index builds: a filtered scan of the CF */
			cf_schema  *s = cf_db_schema(db);
			cf_table_set v;
			cf_index_query iq = {.def = cf_schema_cf(s, KS, "Indexed"),
			.partitioner = CF_PARTITIONER_RANDOM,.now_sec = (int32_t) time(NULL)};

			ok("view", cf_db_view(db, KS, "Indexed", &v));
			iq.base = &v;
			ok("scan", cf_index_query_run(&iq, &c, 0, &all, &r));
			cf_cfstore_view_release(&v);
			cf_schema_unref(s);
		}
		else
			ok("query", cf_db_get_indexed_slices(db, KS, "Indexed", &c, &all, &r));
		lat[i] = (now_s() - t0) * 1e6;
		if (r->n_rows != PER_CITY)
		{
			fprintf(stderr, "bench_index: %s matched %zu rows, not %d\n", city, r->n_rows,
					PER_CITY);
			exit(1);
		}
		for (size_t k = 0; k < r->n_rows; k++)
			if (r->rows[k].slice.n_columns != 2 ||
				!cf_slice_eq(r->rows[k].slice.columns[0].value, cf_slice_str(city)))
			{
				fprintf(stderr, "bench_index: a row of %s has the wrong columns\n", city);
				exit(1);
			}
		cf_read_rows_free(r);
	}
	qsort(lat, (size_t) q, sizeof(*lat), cmp_double);
}

/* For scale: random reads of one column of a row (what a read-before-write costs). */
static double
point_reads(cf_db *db, long n, int count)
{
	cf_slice	nm = cf_slice_str("city");
	cf_predicate p = {.by_names = true,.names = &nm,.n_names = 1};
	cf_table_set v;
	double		t0;

	ok("view", cf_db_view(db, KS, "Plain", &v));
	t0 = now_s();
	for (int i = 0; i < count; i++)
	{
		char		key[17];
		cf_buf		tok = CF_BUF_INIT;
		cf_read_result *r;

		key_of((long) (((unsigned long) i * 2654435761u) % (unsigned long) n), key);
		ok("token", cf_db_token(db, cf_slice_str(key), &tok));
		ok("read", cf_read_slice(&v, cf_slice_of(tok.data, tok.len), cf_slice_str(key),
								 cf_slice_of(NULL, 0), &p, 0, &r));
		if (r->slice.n_columns != 1)
			die("a row without its city", NULL);
		cf_read_result_free(r);
		cf_buf_free(&tok);
	}
	cf_cfstore_view_release(&v);
	return count / (now_s() - t0);
}

int
main(int argc, char **argv)
{
	long		n = 100000;
	int			q = 2000;
	const char *base = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	char		data[600], log[600];
	cf_db_options o = {.env = cf_env_posix(),.partitioner = CF_PARTITIONER_RANDOM,
	.sync_mode = CF_COMMITLOG_PERIODIC};
	cf_db	   *db;
	cf_ks_def	ks;
	double		w_plain, w_idx, o_plain, o_idx, reads;
	double	   *lat, *slat;
	int			nscan;
	int			opt;

	while ((opt = getopt(argc, argv, "n:q:d:")) != -1)
	{
		if (opt == 'n')
			n = atol(optarg);
		else if (opt == 'q')
			q = atoi(optarg);
		else if (opt == 'd')
			base = optarg;
		else
		{
			fprintf(stderr, "usage: bench_index [-n ROWS] [-q QUERIES] [-d TMPDIR]\n");
			return 2;
		}
	}
	if (n < PER_CITY || q < 1)
	{
		fprintf(stderr, "bench_index: -n must be at least %d, -q at least 1\n", PER_CITY);
		return 2;
	}
	nscan = q < 20 ? q : 20;
	cf_log_set_level(CF_LOG_WARN);
	if (asprintf(&tmp_dir, "%s/bench_index.XXXXXX", base) < 0 || mkdtemp(tmp_dir) == NULL)
		die("making a temporary directory", NULL);
	snprintf(data, sizeof(data), "%s/data", tmp_dir);
	snprintf(log, sizeof(log), "%s/commitlog", tmp_dir);
	o.data_dir = data;
	o.commitlog_dir = log;
	ok("open", cf_db_open(&o, &db));
	ok("ksdef", cf_ksdef_init(&ks, KS));
	ok("add_keyspace", cf_db_add_keyspace(db, &ks));
	cf_ksdef_clear(&ks);
	add_cf(db, "Plain", false);
	add_cf(db, "Indexed", true);

	fprintf(stderr, "writing %ld rows without an index...\n", n);
	w_plain = write_all(db, "Plain", n, 0, 1);
	ok("flush", cf_db_flush(db, KS, NULL));
	fprintf(stderr, "writing %ld rows with one index...\n", n);
	w_idx = write_all(db, "Indexed", n, 0, 1);
	ok("flush", cf_db_flush(db, KS, NULL));
	fprintf(stderr, "overwriting every row with a new city...\n");
	o_plain = write_all(db, "Plain", n, 1, 2);
	ok("flush", cf_db_flush(db, KS, NULL));
	o_idx = write_all(db, "Indexed", n, 1, 2);
	ok("flush", cf_db_flush(db, KS, NULL));
	ok("compact", cf_db_compact(db, KS, "Plain", true));
	ok("compact", cf_db_compact(db, KS, "Indexed", true));

	lat = calloc((size_t) q, sizeof(*lat));
	slat = calloc((size_t) nscan, sizeof(*slat));
	fprintf(stderr, "%d indexed queries, %d scans...\n", q, nscan);
	query_latency(db, n, 1, q, false, lat);
	query_latency(db, n, 1, nscan, true, slat);
	reads = point_reads(db, n, q * 5);

	printf("## KEYS secondary index: %ld rows, EQ matching %d rows\n\n", n, PER_CITY);
	printf("| workload | no index | one index | ratio |\n|---|---:|---:|---:|\n");
	printf("| insert (writes/s) | %.0f | %.0f | %.2f |\n", w_plain, w_idx, w_idx / w_plain);
	printf("| overwrite, value moves (writes/s) | %.0f | %.0f | %.2f |\n\n", o_plain, o_idx,
		   o_idx / o_plain);
	printf("For scale: random reads of one column of a row in an SSTable (the read a "
		   "write moving an indexed value makes first): %.0f reads/s.\n\n", reads);
	printf("| get_indexed_slices, EQ -> 10 rows | median µs | p99 µs | max µs |\n"
		   "|---|---:|---:|---:|\n");
	printf("| served by the index (%d queries) | %.1f | %.1f | %.1f |\n", q, lat[q / 2],
		   lat[(int) (q * 0.99)], lat[q - 1]);
	printf("| scan fallback while building (%d queries) | %.0f | %.0f | %.0f |\n", nscan,
		   slat[nscan / 2], slat[(int) (nscan * 0.99)], slat[nscan - 1]);

	ok("close", cf_db_close(db));
	nftw(tmp_dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
	free(tmp_dir);
	free(lat);
	free(slat);
	return 0;
}
