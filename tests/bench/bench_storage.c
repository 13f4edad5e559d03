/*
 * tests/bench/bench_storage.c — colfam's local database against LevelDB in one process,
 * on the same generated data: fills, overwrites, random gets, a full scan, reversed
 * slices of wide rows, memtable memory and size on disk. Prints a markdown report on
 * stdout; progress goes to stderr.
 *
 *   bench_storage [-n ENTRIES] [-w WIDE_MAX] [-q SLICES] [-d TMPDIR]
 *
 * Assumptions:
 *  - It measures, it does not judge: every figure comes from this run, LevelDB's
 *    included, and the targets are printed next to the figures, not enforced.
 *  - Rates are wall-clock; each flat phase also gets the process's CPU time per op
 *    (getrusage, every thread), which other processes competing for the cores move
 *    far less, so two engines measured minutes apart on a busy machine stay comparable.
 *  - colfam runs as colfamd does by default: RandomPartitioner, the periodic commit
 *    log, the CF's memtable thresholds, zstd SSTables, background compaction.
 *    LevelDB runs with its default options (WAL on, sync off, snappy if built in, an
 *    8 MiB block cache); one extra readrandom gives it colfam's 64 MiB block cache.
 *    Durability is alike: each engine hands every log record to the OS before it
 *    acknowledges the write, and neither fsyncs per write.
 *  - Both engines get the same keys and values from one seeded generator, so two runs
 *    with the same parameters write the same data. Values are db_bench's: 100 bytes
 *    that compress to about half, so compression has something to do; in the flat
 *    workloads each carries its index (value_make), so no two writes share a value.
 *  - Every answer is checked by its bytes, inside the timed loops, for both engines:
 *    a get or a scanned row against the latest value written to its key (the inputs
 *    keep the latest value index per key), a scan for every key once (in ascending
 *    order where it claims key order), a wide-row slice for every name in reversed
 *    order with its value.
 *  - The engines never run at the same time: the inputs are precomputed, then colfam
 *    runs its whole sequence and is closed, then LevelDB runs the same sequence. Each
 *    engine's own background work (flushes, compactions) during its timed phases is
 *    counted in them.
 *  - A write phase is timed until its last write is acknowledged; the flushes and
 *    compactions still running or due then are not counted, for either engine (as
 *    db_bench): before every timed phase after the first on a db the engine under test
 *    is quiesced, untimed (cfb_quiesce, ldb_quiesce): memtable flushed, no flush
 *    pending, no compaction running or due.
 *  - Everything lives under one temporary directory, removed at exit, also on a
 *    fatal error (die) and on SIGINT, SIGTERM or SIGHUP (signal_main).
 */
#include <errno.h>
#include <ftw.h>
#include <getopt.h>
#include <inttypes.h>
#include <leveldb/c.h>
#include <limits.h>
#include <link.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "db/db.h"
#include "util/buf.h"
#include "util/log.h"

#define KEY_LEN 16
#define VALUE_LEN 100
#define TS_LEN 8				/* a cell's timestamp, counted in the raw bytes */
#define NAME_LEN 8				/* wide rows: LongType names */
#define WIDE_BATCH 1000			/* cells per row mutation when loading a wide row */
#define WARMUP_SLICES 100
#define KS "Bench"

static const char *const STD_CF = "Std";	/* BytesType, one column "v" per row */
static const char *const WIDE_CF = "Wide";	/* LongType, one wide row */
static const char *const SUPER_CF = "Super";	/* Super, one super column of LongType */

/* ---------------------------------------------------------------- small helpers */

static char *tmp_root;

static void
die(const char *fmt,...)
{
	va_list		ap;

	va_start(ap, fmt);
	fprintf(stderr, "bench_storage: ");
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "\n");
	va_end(ap);
	exit(1);
}

static void
check(cf_status *s, const char *what)
{
	if (s)
		die("%s: %s", what, cf_status_msg(s));
}

static void
check_ldb(char *err, const char *what)
{
	if (err)
		die("%s: %s", what, err);
}

static double
now_sec(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double) t.tv_sec + (double) t.tv_nsec / 1e9;
}

/* CPU seconds (user + system) of the whole process so far: every thread of it. */
static double
cpu_sec(void)
{
	struct rusage u;

	if (getrusage(RUSAGE_SELF, &u) != 0)
		die("getrusage: %s", strerror(errno));
	return (double) (u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
		(double) (u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

/* splitmix64: one seeded stream, so both engines see the same data. */
static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;

static uint64_t
rng(void)
{
	uint64_t	z = (rng_state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static uint64_t
rng_below(uint64_t n)
{
	return rng() % n;
}

static void
key_of(uint64_t i, char *out)
{
	char		tmp[KEY_LEN + 1];

	snprintf(tmp, sizeof(tmp), "%016" PRIu64, i);
	memcpy(out, tmp, KEY_LEN);
}

/*
 * db_bench's values: a 1 MiB pool of pieces that compress to half (each 100-byte piece
 * is 50 random printable bytes written twice); value i starts at a varying offset.
 */
#define POOL_LEN (1 << 20)
static char *value_pool;

static void
pool_init(void)
{
	value_pool = malloc(POOL_LEN);
	if (value_pool == NULL)
		die("out of memory");
	for (size_t off = 0; off + VALUE_LEN <= POOL_LEN; off += VALUE_LEN)
	{
		for (size_t j = 0; j < VALUE_LEN / 2; j++)
			value_pool[off + j] = (char) (' ' + rng_below(95));
		memcpy(value_pool + off + VALUE_LEN / 2, value_pool + off, VALUE_LEN / 2);
	}
}

static const char *
value_of(uint64_t i)
{
	return value_pool + (i * 97) % (POOL_LEN - VALUE_LEN);
}

/*
 * The value of index vi in the flat workloads: value_of(vi) with vi stamped big-endian
 * into bytes 0-7 and again into 50-57, so both halves stay equal (it still compresses
 * to about half) and no two indexes share a value: a stale value cannot pass a check.
 */
static void
value_make(uint64_t vi, char *out)
{
	memcpy(out, value_of(vi), VALUE_LEN);
	cf_store_be64((uint8_t *) out, vi);
	cf_store_be64((uint8_t *) out + VALUE_LEN / 2, vi);
}

static bool
value_is(const char *v, size_t len, uint64_t vi)
{
	char		want[VALUE_LEN];

	value_make(vi, want);
	return len == VALUE_LEN && memcmp(v, want, VALUE_LEN) == 0;
}

/* The index of a key written by key_of, or UINT64_MAX if it is not one. */
static uint64_t
key_index(const char *k, size_t len)
{
	uint64_t	i = 0;

	if (len != KEY_LEN)
		return UINT64_MAX;
	for (size_t j = 0; j < KEY_LEN; j++)
	{
		if (k[j] < '0' || k[j] > '9')
			return UINT64_MAX;
		i = i * 10 + (uint64_t) (k[j] - '0');
	}
	return i;
}

/*
 * Checks a full scan's rows as they come: row `row` (0-based) has key index k and
 * value v. Every key is one of the N written, seen once, with the latest value written
 * to it (latest[k], or k when latest is NULL); with key_order, keys ascend. Returns
 * nothing; dies on a wrong answer.
 */
typedef struct scan_check
{
	const char *who;
	uint64_t	n;
	const uint64_t *latest;
	bool		key_order;
	uint64_t	last;
	uint8_t    *seen;			/* a bit per key, unless key_order (ascending is enough) */
} scan_check;

static void
scan_check_init(scan_check *sc, const char *who, uint64_t n, const uint64_t *latest,
				bool key_order)
{
	*sc = (scan_check) {.who = who,.n = n,.latest = latest,.key_order = key_order};
	if (!key_order && (sc->seen = calloc(n / 8 + 1, 1)) == NULL)
		die("out of memory");
}

static inline void
scan_check_row(scan_check *sc, uint64_t row, const char *key, size_t klen,
			   const char *v, size_t vlen)
{
	uint64_t	k = key_index(key, klen);

	if (k >= sc->n)
		die("%s: row %" PRIu64 " has a key that was never written", sc->who, row);
	if (sc->key_order)
	{
		if (row > 0 && k <= sc->last)
			die("%s: keys out of order at row %" PRIu64, sc->who, row);
		sc->last = k;
	}
	else
	{
		if (sc->seen[k / 8] & (1u << (k % 8)))
			die("%s: key %016" PRIu64 " returned twice", sc->who, k);
		sc->seen[k / 8] |= (uint8_t) (1u << (k % 8));
	}
	if (!value_is(v, vlen, sc->latest ? sc->latest[k] : k))
		die("%s: key %016" PRIu64 ": not the latest value written", sc->who, k);
}

static void
scan_check_done(scan_check *sc)
{
	free(sc->seen);
}

/* A random permutation of [0, n). */
static uint64_t *
permutation(uint64_t n)
{
	uint64_t   *p = malloc(n * sizeof(*p));

	if (p == NULL)
		die("out of memory");
	for (uint64_t i = 0; i < n; i++)
		p[i] = i;
	for (uint64_t i = n; i > 1; i--)
	{
		uint64_t	j = rng_below(i),
					t = p[i - 1];

		p[i - 1] = p[j];
		p[j] = t;
	}
	return p;
}

static int
rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void) st;
	(void) flag;
	(void) ftw;
	remove(path);
	return 0;
}

static void
rm_rf(const char *path)
{
	nftw(path, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

static uint64_t du_total;

static int
du_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void) path;
	(void) ftw;
	if (flag == FTW_F)
		du_total += (uint64_t) st->st_size;
	return 0;
}

/* Bytes of the regular files under path (apparent sizes). */
static uint64_t
dir_bytes(const char *path)
{
	du_total = 0;
	nftw(path, du_entry, 16, FTW_PHYS);
	return du_total;
}

static void
cleanup(void)
{
	if (tmp_root)
		rm_rf(tmp_root);
}

/*
 * SIGINT, SIGTERM and SIGHUP are blocked in every thread (main blocks them before any
 * other thread exists, and threads inherit the mask) and taken by this thread, which
 * removes the temporary directory from an ordinary thread context, then exits.
 */
static void *
signal_main(void *arg)
{
	sigset_t   *set = arg;
	int			sig;

	if (sigwait(set, &sig) != 0)
		return NULL;
	fprintf(stderr, "bench_storage: %s, removing %s\n", strsignal(sig), tmp_root);
	rm_rf(tmp_root);			/* twice: engine threads may still be writing into it */
	rm_rf(tmp_root);
	_exit(128 + sig);
}

static sigset_t stop_signals;

static void
block_stop_signals(void)
{
	sigemptyset(&stop_signals);
	sigaddset(&stop_signals, SIGINT);
	sigaddset(&stop_signals, SIGTERM);
	sigaddset(&stop_signals, SIGHUP);
	if (pthread_sigmask(SIG_BLOCK, &stop_signals, NULL) != 0)
		die("pthread_sigmask failed");
}

static void
start_signal_thread(void)
{
	pthread_t	t;

	if (pthread_create(&t, NULL, signal_main, &stop_signals) != 0)
		die("cannot start the signal thread");
	pthread_detach(t);
}

static char *
subdir(const char *name)
{
	char	   *p;

	if (asprintf(&p, "%s/%s", tmp_root, name) < 0)
		die("out of memory");
	rm_rf(p);
	return p;
}

/* Progress on stderr at every tenth of a long phase. */
static void
progress(const char *phase, uint64_t done, uint64_t total)
{
	if (total >= 100000 && done % (total / 10) == 0 && done > 0)
		fprintf(stderr, "  %s: %" PRIu64 "%%\n", phase, done * 100 / total);
}

static int
cmp_double(const void *a, const void *b)
{
	double		x = *(const double *) a,
				y = *(const double *) b;

	return (x > y) - (x < y);
}

typedef struct latency
{
	double		median_us;
	double		p99_us;
} latency;

static latency
latency_of(double *us, size_t n)
{
	latency		l;

	qsort(us, n, sizeof(*us), cmp_double);
	l.median_us = us[n / 2];
	l.p99_us = us[(size_t) ((double) n * 0.99) < n ? (size_t) ((double) n * 0.99) : n - 1];
	return l;
}

/* ---------------------------------------------------------------- colfam */

typedef struct cfb
{
	cf_db	   *db;
	char	   *dir;
	char	   *data_dir;		/* <dir>/data */
	char	   *log_dir;		/* <dir>/commitlog */
	cf_buf		token;
	int64_t		ts;				/* the next write's timestamp */
} cfb;

static void
cfb_add_keyspace(cf_db *db)
{
	cf_ks_def	ks;
	cf_cf_def	cf;

	check(cf_ksdef_init(&ks, KS), "keyspace");
	check(cf_cfdef_init(&cf, KS, STD_CF), "cf");
	check(cf_ksdef_add_cf(&ks, &cf), "cf");
	check(cf_cfdef_init(&cf, KS, WIDE_CF), "cf");
	check(cf_cfdef_set_comparator(&cf, "LongType"), "cf");
	check(cf_ksdef_add_cf(&ks, &cf), "cf");
	check(cf_cfdef_init(&cf, KS, SUPER_CF), "cf");
	check(cf_cfdef_set_column_type(&cf, "Super"), "cf");
	check(cf_cfdef_set_subcomparator(&cf, "LongType"), "cf");
	check(cf_ksdef_add_cf(&ks, &cf), "cf");
	check(cf_db_add_keyspace(db, &ks), "add keyspace");
	cf_ksdef_clear(&ks);
}

/*
 * A fresh db in <tmp>/<name> under the partitioner; memtable overrides 0 keep the CF's
 * own thresholds.
 */
static void
cfb_open(cfb *c, const char *name, cf_partitioner part, size_t mt_bytes, uint64_t mt_ops)
{
	cf_db_options o = {
		.env = cf_env_posix(),.partitioner = part,
		.sync_mode = CF_COMMITLOG_PERIODIC,.memtable_max_bytes = mt_bytes,
		.memtable_max_ops = mt_ops,.background_compaction = true,
	};

	memset(c, 0, sizeof(*c));
	c->dir = subdir(name);
	c->ts = 1;
	if (mkdir(c->dir, 0700) != 0 || asprintf(&c->data_dir, "%s/data", c->dir) < 0 ||
		asprintf(&c->log_dir, "%s/commitlog", c->dir) < 0)
		die("%s: %s", c->dir, strerror(errno));
	o.data_dir = c->data_dir;
	o.commitlog_dir = c->log_dir;
	check(cf_db_open(&o, &c->db), "cf_db_open");
	cfb_add_keyspace(c->db);
}

static void
cfb_close(cfb *c)
{
	check(cf_db_close(c->db), "cf_db_close");
	cf_buf_free(&c->token);
	rm_rf(c->dir);
	free(c->dir);
	free(c->data_dir);
	free(c->log_dir);
}

static cf_slice
cfb_token(cfb *c, cf_slice key)
{
	cf_buf_reset(&c->token);
	check(cf_db_token(c->db, key, &c->token), "token");
	return cf_slice_of(c->token.data, c->token.len);
}

static void
cfb_put(cfb *c, uint64_t k, uint64_t vi)
{
	char		key[KEY_LEN],
				val[VALUE_LEN];
	cf_cell		cell = {.name = cf_slice_of("v", 1),.value = cf_slice_of(val, VALUE_LEN),
	.timestamp = c->ts++};
	cf_db_update u = {.cf = STD_CF,.u = {.row_del = cf_deletion_none(),.cells = &cell,.n_cells = 1}};

	key_of(k, key);
	value_make(vi, val);
	check(cf_db_apply(c->db, KS, cf_slice_of(key, KEY_LEN), &u, 1), "put");
}

/* Gets key k; its value must be the one of index vi (the latest written to it). */
static void
cfb_get(cfb *c, uint64_t k, uint64_t vi)
{
	char		key[KEY_LEN];
	cf_table_set v;
	cf_read_result *r = NULL;
	cf_slice	ks = cf_slice_of(key, KEY_LEN);

	key_of(k, key);
	check(cf_db_view(c->db, KS, STD_CF, &v), "view");
	check(cf_read_get(&v, cfb_token(c, ks), ks, cf_slice_of("", 0), cf_slice_of("v", 1),
					  (int32_t) time(NULL), &r), "get");
	if (r->slice.n_columns != 1 || r->slice.columns[0].name.len != 1 ||
		memcmp(r->slice.columns[0].name.p, "v", 1) != 0 ||
		!value_is((const char *) r->slice.columns[0].value.p, r->slice.columns[0].value.len, vi))
		die("colfam get %016" PRIu64 ": not the latest value written", k);
	cf_read_result_free(r);
	cf_cfstore_view_release(&v);
}

/*
 * The whole CF in pages of 1,000 rows through the cursor, in token order; returns the
 * rows seen, each checked by sc (keys ascend when sc->key_order: an order-preserving
 * partitioner).
 */
static uint64_t
cfb_scan(cfb *c, scan_check *sc)
{
	cf_table_set v;
	cf_predicate p = {.range = {.count = 1}};
	cf_key_range kr = {.by_token = true,.count = 1000};
	cf_read_rows *prev = NULL,
			   *r;
	uint64_t	rows = 0;

	check(cf_db_view(c->db, KS, STD_CF, &v), "view");
	for (;;)
	{
		check(cf_read_range(&v, &kr, cf_slice_of("", 0), &p, (int32_t) time(NULL), &r), "range");
		cf_read_rows_free(prev);
		for (size_t i = 0; i < r->n_rows; i++)
		{
			const cf_read_row *row = &r->rows[i];

			if (row->slice.n_columns != 1)
				die("colfam scan: row without its column");
			scan_check_row(sc, rows + i, (const char *) row->key.p, row->key.len,
						   (const char *) row->slice.columns[0].value.p,
						   row->slice.columns[0].value.len);
		}
		rows += r->n_rows;
		if (!r->has_cursor)
			break;
		kr.after = &r->cursor;	/* r lives until the next page is read */
		prev = r;
	}
	cf_read_rows_free(r);
	cf_cfstore_view_release(&v);
	return rows;
}

static cf_cfstore_stats
cfb_stats(cfb *c, const char *cf)
{
	cf_cfstore_stats st;

	check(cf_db_cf_stats(c->db, KS, cf, &st), "cf stats");
	return st;
}

static void
cfb_compact(cfb *c, const char *cf)
{
	check(cf_db_flush(c->db, KS, cf), "flush");
	check(cf_db_compact(c->db, KS, cf, true), "major compaction");
}

/*
 * Lets colfam finish the background work its writes started, untimed: the memtable is
 * flushed (cf_db_flush waits) until no flush is pending, then size-tiered compaction —
 * what the background thread would run next — runs here until it finds nothing more
 * to merge. cf_db_compact takes the db's one compaction slot, so it also waits for a
 * background compaction already running.
 */
static void
cfb_quiesce(cfb *c, const char *cf)
{
	size_t		tables;

	check(cf_db_flush(c->db, KS, cf), "flush");
	while (cfb_stats(c, cf).pending_flushes > 0)
		usleep(1000);
	do
	{
		tables = cfb_stats(c, cf).sstables;
		check(cf_db_compact(c->db, KS, cf, false), "size-tiered compaction");
	} while (cfb_stats(c, cf).sstables < tables);
}

/* ---------------------------------------------------------------- LevelDB */

typedef struct ldb
{
	leveldb_t  *db;
	leveldb_options_t *opts;
	leveldb_writeoptions_t *wo;
	leveldb_readoptions_t *ro;
	leveldb_cache_t *cache;		/* NULL: LevelDB's default (an 8 MiB block cache) */
	char	   *dir;
} ldb;

static void
ldb_open(ldb *l, const char *name)
{
	char	   *err = NULL;

	l->dir = subdir(name);
	l->cache = NULL;
	l->opts = leveldb_options_create();
	leveldb_options_set_create_if_missing(l->opts, 1);
	leveldb_options_set_compression(l->opts, leveldb_snappy_compression);	/* the default */
	l->wo = leveldb_writeoptions_create();
	l->ro = leveldb_readoptions_create();
	l->db = leveldb_open(l->opts, l->dir, &err);
	check_ldb(err, "leveldb_open");
}

/*
 * Closes and reopens the db (its files kept) with a block cache of `bytes`, for a read
 * phase with as much block cache as colfam has.
 */
static void
ldb_reopen_with_cache(ldb *l, size_t bytes)
{
	char	   *err = NULL;

	leveldb_close(l->db);
	if (l->cache)
		leveldb_cache_destroy(l->cache);
	l->cache = leveldb_cache_create_lru(bytes);
	leveldb_options_set_cache(l->opts, l->cache);
	l->db = leveldb_open(l->opts, l->dir, &err);
	check_ldb(err, "leveldb_open (reopen)");
}

static void
ldb_close(ldb *l)
{
	leveldb_close(l->db);
	if (l->cache)
		leveldb_cache_destroy(l->cache);
	leveldb_options_destroy(l->opts);
	leveldb_writeoptions_destroy(l->wo);
	leveldb_readoptions_destroy(l->ro);
	rm_rf(l->dir);
	free(l->dir);
}

static void
ldb_put(ldb *l, uint64_t k, uint64_t vi)
{
	char		key[KEY_LEN],
				val[VALUE_LEN];
	char	   *err = NULL;

	key_of(k, key);
	value_make(vi, val);
	leveldb_put(l->db, l->wo, key, KEY_LEN, val, VALUE_LEN, &err);
	check_ldb(err, "leveldb_put");
}

static void
ldb_get(ldb *l, uint64_t k, uint64_t vi)
{
	char		key[KEY_LEN];
	char	   *err = NULL,
			   *v;
	size_t		vlen;

	key_of(k, key);
	v = leveldb_get(l->db, l->ro, key, KEY_LEN, &vlen, &err);
	check_ldb(err, "leveldb_get");
	if (v == NULL || !value_is(v, vlen, vi))
		die("leveldb get %016" PRIu64 ": not the latest value written", k);
	leveldb_free(v);
}

/* A full scan in key order; returns the rows seen, each checked by sc. */
static uint64_t
ldb_scan(ldb *l, scan_check *sc)
{
	leveldb_iterator_t *it = leveldb_create_iterator(l->db, l->ro);
	uint64_t	rows = 0;
	size_t		klen,
				vlen;

	for (leveldb_iter_seek_to_first(it); leveldb_iter_valid(it); leveldb_iter_next(it))
	{
		const char *k = leveldb_iter_key(it, &klen),
				   *v = leveldb_iter_value(it, &vlen);

		scan_check_row(sc, rows, k, klen, v, vlen);
		rows++;
	}
	leveldb_iter_destroy(it);
	return rows;
}

static void
ldb_compact(ldb *l)
{
	leveldb_compact_range(l->db, NULL, 0, NULL, 0);
}

#define LDB_LEVELS 7				/* config::kNumLevels */
#define LDB_L0_TRIGGER 4		/* config::kL0_CompactionTrigger */

/*
 * Would LevelDB start a size compaction now? Its rule (VersionSet::Finalize): level 0
 * when it holds 4 files, level L in 1..5 when its bytes reach 10^L MiB. Read from the
 * "leveldb.sstables" property (lines " <number>:<bytes>[...]" under "--- level L ---").
 */
static bool
ldb_needs_compaction(ldb *l, char **listing)
{
	char	   *p = leveldb_property_value(l->db, "leveldb.sstables");
	uint64_t	files[LDB_LEVELS] = {0},
				bytes[LDB_LEVELS] = {0};
	int			level = -1;
	bool		needs = false;
	double		limit = 10.0 * 1048576.0;

	if (p == NULL)
		die("leveldb: no leveldb.sstables property");
	for (char *line = p; line && *line;)
	{
		char	   *next = strchr(line, '\n');
		unsigned long long num,
					size;

		if (sscanf(line, "--- level %d ---", &level) == 1)
			;
		else if (level >= 0 && level < LDB_LEVELS &&
				 sscanf(line, " %llu:%llu[", &num, &size) == 2)
		{
			files[level]++;
			bytes[level] += size;
		}
		line = next ? next + 1 : NULL;
	}
	if (files[0] >= LDB_L0_TRIGGER)
		needs = true;
	for (int i = 1; i < LDB_LEVELS - 1; i++, limit *= 10)
		if ((double) bytes[i] >= limit)
			needs = true;
	*listing = p;
	return needs;
}

/*
 * Lets LevelDB finish the background work its writes started, untimed. compact_range
 * over an empty key range ("" to "", which no key overlaps) flushes the memtable, waits
 * for that flush, and queues a manual compaction with nothing to do behind whatever
 * compaction is running, so it returns only once that one is done. Repeated until no
 * level is due a size compaction and the table listing stays the same across a call.
 */
static void
ldb_quiesce(ldb *l)
{
	char	   *before = NULL,
			   *after = NULL;

	for (int rounds = 0;; rounds++)
	{
		bool		busy;

		leveldb_compact_range(l->db, "", 0, "", 0);
		busy = ldb_needs_compaction(l, &before);
		if (!busy)
		{
			leveldb_compact_range(l->db, "", 0, "", 0);
			busy = ldb_needs_compaction(l, &after) || strcmp(before, after) != 0;
		}
		leveldb_free(before);
		leveldb_free(after);
		before = after = NULL;
		if (!busy)
			return;
		if (rounds > 100000)
			die("leveldb: background compaction does not settle");
		usleep(1000);
	}
}

static int
find_snappy(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void) size;
	(void) arg;
	return info->dlpi_name && strstr(info->dlpi_name, "libsnappy") != NULL;
}

/* ---------------------------------------------------------------- the flat workloads */

typedef struct flat_result
{
	const char *name;
	const char *partitioner;	/* colfam's */
	double		colfam;			/* ops/s */
	double		leveldb;
	double		colfam_cpu_us;	/* process CPU time per op during the phase */
	double		leveldb_cpu_us;
} flat_result;

enum
{
	W_FILLSEQ, W_READSEQ, W_FILLRANDOM, W_OVERWRITE, W_READRANDOM, W_READRANDOM_CACHE,
	W_SCAN, W_COUNT_
};

typedef struct report
{
	uint64_t	n;
	flat_result flat[W_COUNT_];
	uint64_t	raw_bytes;		/* N entries: key + name + value + timestamp */
	uint64_t	cf_sstable_bytes;	/* the Std CF's SSTables only */
	uint64_t	cf_data_bytes;	/* colfam's whole data dir (every keyspace, CF, file) */
	uint64_t	cf_commitlog_bytes; /* colfam's commit-log dir */
	uint64_t	ldb_dir_bytes;	/* LevelDB's whole dir (tables, log, manifest) */
	double		cf_compact_s;
	double		ldb_compact_s;
	size_t		memtable_bytes;
	uint64_t	memtable_ops;	/* cells in that memtable: one per distinct key here */
	uint64_t	memtable_flushes;
	cf_cache_stats cache_rr;	/* colfam's block cache after readrandom; hits, misses during it */
} report;

/* The process CPU time per op of the last TIMED phase, in µs. */
static double timed_cpu_us;

/*
 * Runs op(i) for i in [0, n) on one engine and returns ops/s; leaves the CPU time per
 * op (the process's: the engine's background threads too) in timed_cpu_us.
 */
#define TIMED(label, n, stmt) \
	({ \
		double t0_ = now_sec(), c0_ = cpu_sec(); \
		for (uint64_t i = 0; i < (n); i++) \
		{ \
			stmt; \
			progress(label, i + 1, n); \
		} \
		timed_cpu_us = (cpu_sec() - c0_) * 1e6 / (double) (n); \
		(double) (n) / (now_sec() - t0_); \
	})

/* The precomputed inputs of the flat workloads, the same for both engines. */
typedef struct flat_inputs
{
	uint64_t	n;
	uint64_t	reads;
	uint64_t   *perm;			/* fillrandom: key perm[i] gets value i */
	uint64_t   *over;			/* overwrite: key over[i] gets value n + i */
	uint64_t   *rd;				/* readrandom: keys */
	uint64_t   *latest;			/* after overwrite: the latest value index of each key */
} flat_inputs;

static void
flat_inputs_make(flat_inputs *in, uint64_t n)
{
	in->n = n;
	in->reads = n / 10 ? n / 10 : 1;
	in->perm = permutation(n);
	in->over = malloc(n * sizeof(*in->over));
	in->rd = malloc(in->reads * sizeof(*in->rd));
	in->latest = malloc(n * sizeof(*in->latest));
	if (in->over == NULL || in->rd == NULL || in->latest == NULL)
		die("out of memory");
	for (uint64_t i = 0; i < n; i++)
		in->over[i] = rng_below(n);
	for (uint64_t i = 0; i < in->reads; i++)
		in->rd[i] = rng_below(n);
	for (uint64_t i = 0; i < n; i++)
		in->latest[in->perm[i]] = i;
	for (uint64_t i = 0; i < n; i++)
		in->latest[in->over[i]] = n + i;
}

static void
flat_inputs_free(flat_inputs *in)
{
	free(in->perm);
	free(in->over);
	free(in->rd);
	free(in->latest);
}

/* colfam's whole flat sequence; LevelDB is not open meanwhile. */
static void
cf_run_flat(report *rep, const flat_inputs *in)
{
	uint64_t	n = in->n;
	cfb			c;
	scan_check	sc;
	uint64_t	rows;
	double		t0,
				c0;
	cf_cache_stats cache0;

	/* Sequential keys are sequential tokens only under an order-preserving partitioner. */
	fprintf(stderr, "colfam fillseq, readseq (ByteOrderedPartitioner)\n");
	cfb_open(&c, "cf-seq", CF_PARTITIONER_BYTE_ORDERED, 0, 0);
	rep->flat[W_FILLSEQ].colfam = TIMED("colfam fillseq", n, cfb_put(&c, i, i));
	rep->flat[W_FILLSEQ].colfam_cpu_us = timed_cpu_us;
	cfb_quiesce(&c, STD_CF);
	scan_check_init(&sc, "colfam readseq", n, NULL, true);
	t0 = now_sec();
	c0 = cpu_sec();
	rows = cfb_scan(&c, &sc);
	rep->flat[W_READSEQ].colfam = (double) n / (now_sec() - t0);
	rep->flat[W_READSEQ].colfam_cpu_us = (cpu_sec() - c0) * 1e6 / (double) n;
	scan_check_done(&sc);
	if (rows != n)
		die("colfam readseq: %" PRIu64 " rows, expected %" PRIu64, rows, n);
	cfb_close(&c);

	fprintf(stderr, "colfam fillrandom, overwrite, readrandom, scan (RandomPartitioner)\n");
	cfb_open(&c, "cf-random", CF_PARTITIONER_RANDOM, 0, 0);
	rep->flat[W_FILLRANDOM].colfam = TIMED("colfam fillrandom", n, cfb_put(&c, in->perm[i], i));
	rep->flat[W_FILLRANDOM].colfam_cpu_us = timed_cpu_us;
	cfb_quiesce(&c, STD_CF);
	rep->flat[W_OVERWRITE].colfam = TIMED("colfam overwrite", n, cfb_put(&c, in->over[i], n + i));
	rep->flat[W_OVERWRITE].colfam_cpu_us = timed_cpu_us;
	cfb_quiesce(&c, STD_CF);
	cf_db_block_cache_stats(c.db, &cache0);
	rep->flat[W_READRANDOM].colfam = TIMED("colfam readrandom", in->reads, cfb_get(&c, in->rd[i], in->latest[in->rd[i]]));
	rep->flat[W_READRANDOM].colfam_cpu_us = timed_cpu_us;
	cf_db_block_cache_stats(c.db, &rep->cache_rr);
	rep->cache_rr.hits -= cache0.hits;
	rep->cache_rr.misses -= cache0.misses;
	/* colfam's side of the equal-cache row is the same run: it has this cache always */
	rep->flat[W_READRANDOM_CACHE].colfam = rep->flat[W_READRANDOM].colfam;
	rep->flat[W_READRANDOM_CACHE].colfam_cpu_us = rep->flat[W_READRANDOM].colfam_cpu_us;
	cfb_quiesce(&c, STD_CF);
	scan_check_init(&sc, "colfam scan", n, in->latest, false);
	t0 = now_sec();
	c0 = cpu_sec();
	rows = cfb_scan(&c, &sc);
	rep->flat[W_SCAN].colfam = (double) n / (now_sec() - t0);
	rep->flat[W_SCAN].colfam_cpu_us = (cpu_sec() - c0) * 1e6 / (double) n;
	scan_check_done(&sc);
	if (rows != n)
		die("colfam scan: %" PRIu64 " rows, expected %" PRIu64, rows, n);

	fprintf(stderr, "colfam major compaction\n");
	cfb_quiesce(&c, STD_CF);
	t0 = now_sec();
	cfb_compact(&c, STD_CF);
	rep->cf_compact_s = now_sec() - t0;
	rep->cf_sstable_bytes = cfb_stats(&c, STD_CF).sstable_bytes;
	rep->cf_data_bytes = dir_bytes(c.data_dir);
	rep->cf_commitlog_bytes = dir_bytes(c.log_dir);
	cfb_close(&c);

	/* Memory: the same fill into one memtable that never reaches a threshold. */
	fprintf(stderr, "colfam memtable memory\n");
	cfb_open(&c, "cf-memory", CF_PARTITIONER_RANDOM, (size_t) 1 << 30, UINT64_MAX / 2);
	(void) TIMED("colfam fill (one memtable)", n, cfb_put(&c, in->perm[i], i));
	{
		cf_cfstore_stats st = cfb_stats(&c, STD_CF);

		rep->memtable_bytes = st.memtable_bytes;
		rep->memtable_ops = st.memtable_ops;
		rep->memtable_flushes = st.flushes + (uint64_t) st.pending_flushes;
	}
	cfb_close(&c);
}

/* LevelDB's whole flat sequence, the same phases on the same inputs; colfam is closed. */
static void
ldb_run_flat(report *rep, const flat_inputs *in)
{
	uint64_t	n = in->n;
	ldb			l;
	scan_check	sc;
	uint64_t	rows;
	double		t0,
				c0;

	fprintf(stderr, "leveldb fillseq, readseq\n");
	ldb_open(&l, "ldb-seq");
	rep->flat[W_FILLSEQ].leveldb = TIMED("leveldb fillseq", n, ldb_put(&l, i, i));
	rep->flat[W_FILLSEQ].leveldb_cpu_us = timed_cpu_us;
	ldb_quiesce(&l);
	scan_check_init(&sc, "leveldb readseq", n, NULL, true);
	t0 = now_sec();
	c0 = cpu_sec();
	rows = ldb_scan(&l, &sc);
	rep->flat[W_READSEQ].leveldb = (double) n / (now_sec() - t0);
	rep->flat[W_READSEQ].leveldb_cpu_us = (cpu_sec() - c0) * 1e6 / (double) n;
	scan_check_done(&sc);
	if (rows != n)
		die("leveldb readseq: %" PRIu64 " rows, expected %" PRIu64, rows, n);
	ldb_close(&l);

	fprintf(stderr, "leveldb fillrandom, overwrite, readrandom, scan\n");
	ldb_open(&l, "ldb-random");
	rep->flat[W_FILLRANDOM].leveldb = TIMED("leveldb fillrandom", n, ldb_put(&l, in->perm[i], i));
	rep->flat[W_FILLRANDOM].leveldb_cpu_us = timed_cpu_us;
	ldb_quiesce(&l);
	rep->flat[W_OVERWRITE].leveldb = TIMED("leveldb overwrite", n, ldb_put(&l, in->over[i], n + i));
	rep->flat[W_OVERWRITE].leveldb_cpu_us = timed_cpu_us;
	ldb_quiesce(&l);
	rep->flat[W_READRANDOM].leveldb = TIMED("leveldb readrandom", in->reads, ldb_get(&l, in->rd[i], in->latest[in->rd[i]]));
	rep->flat[W_READRANDOM].leveldb_cpu_us = timed_cpu_us;
	ldb_quiesce(&l);
	scan_check_init(&sc, "leveldb scan", n, in->latest, true);
	t0 = now_sec();
	c0 = cpu_sec();
	rows = ldb_scan(&l, &sc);
	rep->flat[W_SCAN].leveldb = (double) n / (now_sec() - t0);
	rep->flat[W_SCAN].leveldb_cpu_us = (cpu_sec() - c0) * 1e6 / (double) n;
	scan_check_done(&sc);
	if (rows != n)
		die("leveldb scan: %" PRIu64 " rows, expected %" PRIu64, rows, n);

	/* the same gets again, LevelDB given a block cache of colfam's size */
	ldb_quiesce(&l);
	ldb_reopen_with_cache(&l, CF_CACHE_DEFAULT_CAPACITY);
	ldb_quiesce(&l);
	rep->flat[W_READRANDOM_CACHE].leveldb = TIMED("leveldb readrandom (64 MiB cache)", in->reads, ldb_get(&l, in->rd[i], in->latest[in->rd[i]]));
	rep->flat[W_READRANDOM_CACHE].leveldb_cpu_us = timed_cpu_us;

	fprintf(stderr, "leveldb major compaction\n");
	ldb_quiesce(&l);
	t0 = now_sec();
	ldb_compact(&l);
	rep->ldb_compact_s = now_sec() - t0;
	rep->ldb_dir_bytes = dir_bytes(l.dir);
	ldb_close(&l);
}

/* colfam_only: LevelDB's phases are skipped (profiling one engine; no report follows). */
static void
run_flat(report *rep, bool colfam_only)
{
	flat_inputs in;

	flat_inputs_make(&in, rep->n);
	cf_run_flat(rep, &in);
	if (!colfam_only)
		ldb_run_flat(rep, &in);
	flat_inputs_free(&in);
}

/* ---------------------------------------------------------------- wide rows */

typedef struct wide_result
{
	bool		super;
	uint64_t	columns;
	latency		cf;
	latency		ldb;
	latency		cf_warm;		/* the same names sliced again: their blocks cached */
	latency		ldb_warm;
	double		cf_reads;		/* block-cache misses (blocks read) a slice, first pass */
	double		cf_warm_reads;	/* the same on the second pass */
	double		cf_load_s;		/* writes + flush + major compaction */
	double		ldb_load_s;		/* writes + compact_range */
} wide_result;

static const uint8_t ROW_KEY[] = "row";
static const uint8_t SC_NAME[] = "sc";

/* One row (in one super column when super) of `columns` LongType names 0..columns-1. */
static double
cfb_load_wide(cfb *c, bool super, uint64_t columns)
{
	const char *cf = super ? SUPER_CF : WIDE_CF;
	cf_cell    *cells = calloc(WIDE_BATCH, sizeof(*cells));
	uint8_t    *names = malloc(WIDE_BATCH * NAME_LEN);
	char		label[64];
	double		t0 = now_sec();

	if (cells == NULL || names == NULL)
		die("out of memory");
	snprintf(label, sizeof(label), "colfam %s row of %" PRIu64, super ? "super" : "wide", columns);
	for (uint64_t i = 0; i < columns;)
	{
		size_t		k = 0;
		cf_db_update u = {.cf = cf,.u = {.row_del = cf_deletion_none(),.cells = cells}};

		for (; k < WIDE_BATCH && i < columns; k++, i++)
		{
			cf_store_be64(names + k * NAME_LEN, i);
			cells[k] = (cf_cell) {
				.sc = super ? cf_slice_of(SC_NAME, 2) : cf_slice_of("", 0),
				.name = cf_slice_of(names + k * NAME_LEN, NAME_LEN),
				.value = cf_slice_of(value_of(i), VALUE_LEN),.timestamp = c->ts++,
			};
			progress(label, i + 1, columns);
		}
		u.u.n_cells = k;
		check(cf_db_apply(c->db, KS, cf_slice_of(ROW_KEY, 3), &u, 1), "wide put");
	}
	cfb_compact(c, cf);
	if (cfb_stats(c, cf).sstables != 1)
		die("colfam %s: more than one sstable after a major compaction", cf);
	free(cells);
	free(names);
	return now_sec() - t0;
}

/* One reversed slice of 10 from start; checks the answer. */
static void
cfb_slice(cfb *c, bool super, uint64_t start)
{
	uint8_t		name[NAME_LEN];
	cf_table_set v;
	cf_read_result *r = NULL;
	cf_slice	key = cf_slice_of(ROW_KEY, 3);
	cf_predicate p = {.range = {.start = cf_slice_of(name, NAME_LEN),.reversed = true,.count = 10}};
	size_t		want = start + 1 < 10 ? start + 1 : 10;

	cf_store_be64(name, start);
	check(cf_db_view(c->db, KS, super ? SUPER_CF : WIDE_CF, &v), "view");
	check(cf_read_slice(&v, cfb_token(c, key), key,
						super ? cf_slice_of(SC_NAME, 2) : cf_slice_of("", 0), &p,
						(int32_t) time(NULL), &r), "slice");
	if (r->slice.n_columns != want)
		die("colfam slice from %" PRIu64 ": %zu columns, expected %zu", start,
			r->slice.n_columns, want);
	for (size_t j = 0; j < want; j++)
	{
		const cf_read_column *col = &r->slice.columns[j];

		cf_store_be64(name, start - j);	/* reversed: start, start - 1, ... */
		if (col->name.len != NAME_LEN || memcmp(col->name.p, name, NAME_LEN) != 0 ||
			col->value.len != VALUE_LEN || memcmp(col->value.p, value_of(start - j), VALUE_LEN) != 0)
			die("colfam slice from %" PRIu64 ": result %zu is not column %" PRIu64,
				start, j, start - j);
	}
	cf_read_result_free(r);
	cf_cfstore_view_release(&v);
}

/*
 * Times slices from starts[0..slices) (us: room for as many latencies); *reads: the
 * blocks the pass read (block-cache misses, every kind) per slice.
 */
static latency
cfb_slice_pass(cfb *c, bool super, const uint64_t *starts, int slices, double *us,
			   double *reads)
{
	cf_cache_stats before;
	cf_cache_stats after;

	cf_db_block_cache_stats(c->db, &before);
	for (int i = 0; i < slices; i++)
	{
		double		t0 = now_sec();

		cfb_slice(c, super, starts[i]);
		us[i] = (now_sec() - t0) * 1e6;
	}
	cf_db_block_cache_stats(c->db, &after);
	*reads = (double) (after.misses - before.misses) / slices;
	return latency_of(us, (size_t) slices);
}

/* LevelDB's layout of the same row: "row|" [+ "sc|"] + the 8-byte name. */
static size_t
ldb_wide_key(bool super, uint64_t i, uint8_t *out)
{
	size_t		n = super ? 7 : 4;

	memcpy(out, super ? "row|sc|" : "row|", n);
	cf_store_be64(out + n, i);
	return n + NAME_LEN;
}

static double
ldb_load_wide(ldb *l, bool super, uint64_t columns)
{
	leveldb_writebatch_t *b = leveldb_writebatch_create();
	uint8_t		key[16];
	char		label[64];
	char	   *err = NULL;
	double		t0 = now_sec();

	snprintf(label, sizeof(label), "leveldb %s row of %" PRIu64, super ? "super" : "wide", columns);
	for (uint64_t i = 0; i < columns; i++)
	{
		size_t		kl = ldb_wide_key(super, i, key);

		leveldb_writebatch_put(b, (char *) key, kl, value_of(i), VALUE_LEN);
		if ((i + 1) % WIDE_BATCH == 0 || i + 1 == columns)
		{
			leveldb_write(l->db, l->wo, b, &err);
			check_ldb(err, "leveldb_write");
			leveldb_writebatch_clear(b);
		}
		progress(label, i + 1, columns);
	}
	leveldb_writebatch_destroy(b);
	ldb_compact(l);
	return now_sec() - t0;
}

/* The same slice: seek to the start, step back over a key past it, then 10 prevs. */
static void
ldb_slice(ldb *l, bool super, uint64_t start)
{
	uint8_t		key[16];
	size_t		kl = ldb_wide_key(super, start, key),
				prefix = kl - NAME_LEN,
				len,
				got = 0,
				want = start + 1 < 10 ? start + 1 : 10;
	leveldb_iterator_t *it = leveldb_create_iterator(l->db, l->ro);
	uint8_t		want_key[16];

	leveldb_iter_seek(it, (char *) key, kl);
	if (!leveldb_iter_valid(it))
		leveldb_iter_seek_to_last(it);
	else
	{
		const char *k = leveldb_iter_key(it, &len);

		if (len != kl || memcmp(k, key, kl) != 0)
			leveldb_iter_prev(it);
	}
	for (; got < 10 && leveldb_iter_valid(it); leveldb_iter_prev(it))
	{
		const char *k = leveldb_iter_key(it, &len),
				   *v;

		if (len != kl || memcmp(k, key, prefix) != 0)
			break;
		/* reversed: start, start - 1, ... */
		if (got >= want || (ldb_wide_key(super, start - got, want_key), memcmp(k, want_key, kl) != 0))
			die("leveldb slice from %" PRIu64 ": result %zu is not column %" PRIu64,
				start, got, start - got);
		v = leveldb_iter_value(it, &len);
		if (len != VALUE_LEN || memcmp(v, value_of(start - got), VALUE_LEN) != 0)
			die("leveldb slice from %" PRIu64 ": result %zu has the wrong value", start, got);
		got++;
	}
	leveldb_iter_destroy(it);
	if (got != want)
		die("leveldb slice from %" PRIu64 ": wrong answer", start);
}

static void
run_wide(wide_result *w, int slices)
{
	uint64_t   *starts = malloc((size_t) (slices + WARMUP_SLICES) * sizeof(*starts));
	double	   *us = malloc((size_t) slices * sizeof(*us));
	cfb			c;
	ldb			l;

	if (starts == NULL || us == NULL)
		die("out of memory");
	for (int i = 0; i < slices + WARMUP_SLICES; i++)
		starts[i] = rng_below(w->columns);
	fprintf(stderr, "%s row of %" PRIu64 " columns\n", w->super ? "super" : "wide", w->columns);

	cfb_open(&c, "cf-wide", CF_PARTITIONER_DEFAULT, 0, 0);
	w->cf_load_s = cfb_load_wide(&c, w->super, w->columns);
	cfb_quiesce(&c, w->super ? SUPER_CF : WIDE_CF);
	for (int i = 0; i < WARMUP_SLICES; i++)
		cfb_slice(&c, w->super, starts[slices + i]);
	w->cf = cfb_slice_pass(&c, w->super, starts, slices, us, &w->cf_reads);
	w->cf_warm = cfb_slice_pass(&c, w->super, starts, slices, us, &w->cf_warm_reads);
	cfb_close(&c);

	ldb_open(&l, "ldb-wide");
	w->ldb_load_s = ldb_load_wide(&l, w->super, w->columns);
	ldb_quiesce(&l);
	for (int i = 0; i < WARMUP_SLICES; i++)
		ldb_slice(&l, w->super, starts[slices + i]);
	for (int i = 0; i < slices; i++)
	{
		double		t0 = now_sec();

		ldb_slice(&l, w->super, starts[i]);
		us[i] = (now_sec() - t0) * 1e6;
	}
	w->ldb = latency_of(us, (size_t) slices);
	for (int i = 0; i < slices; i++)
	{
		double		t0 = now_sec();

		ldb_slice(&l, w->super, starts[i]);
		us[i] = (now_sec() - t0) * 1e6;
	}
	w->ldb_warm = latency_of(us, (size_t) slices);
	ldb_close(&l);
	free(starts);
	free(us);
}

/* ---------------------------------------------------------------- the report */

static double
mib(uint64_t bytes)
{
	return (double) bytes / (1 << 20);
}

static void
cpu_model(char *out, size_t n)
{
	FILE	   *f = fopen("/proc/cpuinfo", "r");
	char		line[256];

	snprintf(out, n, "unknown CPU");
	if (f == NULL)
		return;
	while (fgets(line, sizeof(line), f))
		if (strncmp(line, "model name", 10) == 0 && strchr(line, ':'))
		{
			snprintf(out, n, "%s", strchr(line, ':') + 2);
			out[strcspn(out, "\n")] = '\0';
			break;
		}
	fclose(f);
}

static void
print_wide_summary(const wide_result *w, size_t nw, bool super)
{
	const wide_result *lo = NULL,
			   *hi = NULL;

	for (size_t i = 0; i < nw; i++)
		if (w[i].super == super)
		{
			if (lo == NULL)
				lo = &w[i];
			hi = &w[i];
		}
	if (lo == NULL || lo == hi)
		return;
	printf("- %s, %" PRIu64 " → %" PRIu64 " columns: median grows %.2fx, p99 %.2fx "
		   "(target ≤ 2x); LevelDB median %.2fx, p99 %.2fx. Warm (second pass): colfam "
		   "median %.2fx, LevelDB %.2fx. colfam blocks read a slice:",
		   super ? "Super CF" : "Standard CF", lo->columns, hi->columns,
		   hi->cf.median_us / lo->cf.median_us, hi->cf.p99_us / lo->cf.p99_us,
		   hi->ldb.median_us / lo->ldb.median_us, hi->ldb.p99_us / lo->ldb.p99_us,
		   hi->cf_warm.median_us / lo->cf_warm.median_us,
		   hi->ldb_warm.median_us / lo->ldb_warm.median_us);
	for (size_t i = 0; i < nw; i++)
		if (w[i].super == super)
			printf(" %.2f at %" PRIu64 "%s", w[i].cf_reads, w[i].columns, &w[i] == hi ? "\n" : ",");
}

static void
print_report(const report *rep, const wide_result *w, size_t nw, int slices, double total_s)
{
	char		cpu[128];
	bool		snappy = dl_iterate_phdr(find_snappy, NULL) != 0;
	uint64_t	cf_disk = rep->cf_data_bytes + rep->cf_commitlog_bytes;
	uint64_t	memtable_raw = rep->memtable_ops * (KEY_LEN + 1 + VALUE_LEN + TS_LEN);

	cpu_model(cpu, sizeof(cpu));
	printf("# colfam storage benchmark\n\n");
	printf("- machine: %ld cores, %s\n", sysconf(_SC_NPROCESSORS_ONLN), cpu);
	printf("- N = %" PRIu64 " entries: %d-byte keys, %d-byte values (compressible to about "
		   "half), one generator for both engines\n", rep->n, KEY_LEN, VALUE_LEN);
	printf("- colfam: one keyspace, Standard CF (BytesType), one column \"v\" per row; "
		   "the partitioner named in the table, periodic commit log, the CF's memtable thresholds "
		   "(64 MiB / 300,000 ops), zstd SSTables, background compaction, the db's default "
		   "64 MiB block cache\n");
	printf("- durability, like for like: both engines hand every mutation's log record to "
		   "the OS before acknowledging it, so a process crash loses no acknowledged write, "
		   "and neither fsyncs per write (LevelDB write()s the record; colfam copies it into "
		   "its commit log segment's shared mapping, in the page cache when the copy ends; "
		   "colfam's periodic commit log also fdatasyncs every 10 s from a background "
		   "thread; LevelDB never does with sync off)\n");
	printf("- LevelDB %d.%d: default options (WAL on, sync off, 4 MiB write buffer, 8 MiB "
		   "block cache), compression %s\n", leveldb_major_version(), leveldb_minor_version(),
		   snappy ? "snappy (libsnappy is loaded)" : "requested snappy, but libsnappy is not loaded: blocks are stored uncompressed");
	printf("- fillseq starts from an empty db and readseq (a full scan in key order) follows "
		   "on it; colfam runs both under ByteOrderedPartitioner, where sequential keys are "
		   "sequential tokens (under RandomPartitioner they are MD5-scattered, a random "
		   "fill)\n");
	printf("- fillrandom starts from an empty db; overwrite, readrandom (N/10 gets) and "
		   "scan (a full scan) follow on it, without a major compaction; colfam runs them "
		   "under RandomPartitioner (its default), so its scan is in token (MD5) order, "
		   "LevelDB's in key order\n");
	printf("- every answer is checked by its bytes inside the timed loops, for both engines: "
		   "gets and scanned rows against the latest value written to the key, scans for "
		   "every key once (ascending where in key order), wide-row slices for every name, "
		   "in order, and its value\n");
	printf("- one engine at a time: colfam runs every phase, is closed, then LevelDB runs the "
		   "same phases on the same precomputed inputs; an engine's own background work "
		   "during a timed phase counts in it\n");
	printf("- the equal-cache readrandom row: after its scan LevelDB is reopened with a "
		   "64 MiB block cache (colfam's default) and runs the same gets again; colfam's "
		   "figure is its one readrandom (it always has that cache)\n");
	printf("- before each timed phase after the first on a db, the engine is quiesced, "
		   "untimed: memtable flushed, no flush pending, no compaction running or due "
		   "(colfam: cf_db_flush, then size-tiered cf_db_compact until it merges nothing; "
		   "LevelDB: compact_range over an empty key range until no level is due a "
		   "compaction); work still running when a write phase's last write returns is "
		   "not counted in it\n\n");

	printf("| workload | colfam partitioner | colfam | LevelDB | colfam/LevelDB |\n"
		   "|---|---|---:|---:|---:|\n");
	for (int i = 0; i < W_COUNT_; i++)
		printf("| %s (ops/s) | %s | %.0f | %.0f | %.3g |\n", rep->flat[i].name,
			   rep->flat[i].partitioner, rep->flat[i].colfam, rep->flat[i].leveldb,
			   rep->flat[i].colfam / rep->flat[i].leveldb);
	printf("| major compaction after scan (s) | Random | %.2f | %.2f | %.2f |\n",
		   rep->cf_compact_s, rep->ldb_compact_s, rep->cf_compact_s / rep->ldb_compact_s);
	printf("| on disk after major compaction, whole footprint (MiB) | Random | %.1f | %.1f | "
		   "%.2f |\n", mib(cf_disk), mib(rep->ldb_dir_bytes),
		   (double) cf_disk / (double) rep->ldb_dir_bytes);

	printf("\nCPU time per operation of the same phases: the process's user + system time "
		   "(getrusage) over the phase divided by its operations, so an engine's background "
		   "threads count and the bench's own work (values, checks) is in both columns alike. "
		   "It moves far less than the rates above when other processes compete for the "
		   "cores; LevelDB/colfam ≥ 1 means colfam needs less CPU.\n\n");
	printf("| workload | colfam CPU µs/op | LevelDB CPU µs/op | LevelDB/colfam |\n"
		   "|---|---:|---:|---:|\n");
	for (int i = 0; i < W_COUNT_; i++)
		printf("| %s | %.2f | %.2f | %.3g |\n", rep->flat[i].name, rep->flat[i].colfam_cpu_us,
			   rep->flat[i].leveldb_cpu_us,
			   rep->flat[i].leveldb_cpu_us / rep->flat[i].colfam_cpu_us);

	printf("\n## Wide rows: %d reversed slices of count 10 from random names\n\n", slices);
	printf("After a flush and a major compaction (one SSTable), %d untimed warm-up slices "
		   "first. colfam: cf_db_view + token + cf_read_slice (range start = the name, "
		   "reversed, count 10); LevelDB: keys \"row|<8-byte name>\" (\"row|sc|<name>\" "
		   "for the Super row), a new iterator, seek, 10 prev steps. Load = writes in "
		   "batches of %d + flush + major compaction (LevelDB: compact_range). The timed "
		   "slices start from random names, so in a row larger than the block cache nearly "
		   "every one reads a block from the OS page cache; \"warm\" is a second pass "
		   "over the same names, whose blocks are then cached (both engines). colfam's "
		   "blocks read a slice are its block cache's misses over a pass (key-index, "
		   "column-index and data blocks) divided by its slices: the O(log n) block reads "
		   "that keep a slice's work flat as the row grows.\n\n",
		   WARMUP_SLICES, WIDE_BATCH);
	printf("| row | columns | colfam median µs | colfam p99 µs | LevelDB median µs | "
		   "LevelDB p99 µs | colfam warm median µs | LevelDB warm median µs | colfam blocks "
		   "read a slice | colfam warm blocks read a slice | colfam load s | LevelDB load s |\n"
		   "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
	for (size_t i = 0; i < nw; i++)
		printf("| %s | %" PRIu64 " | %.1f | %.1f | %.1f | %.1f | %.1f | %.1f | %.2f | %.2f "
			   "| %.1f | %.1f |\n",
			   w[i].super ? "Super (1 super column)" : "Standard (LongType)", w[i].columns,
			   w[i].cf.median_us, w[i].cf.p99_us, w[i].ldb.median_us, w[i].ldb.p99_us,
			   w[i].cf_warm.median_us, w[i].ldb_warm.median_us, w[i].cf_reads,
			   w[i].cf_warm_reads, w[i].cf_load_s, w[i].ldb_load_s);
	printf("\n");
	print_wide_summary(w, nw, false);
	print_wide_summary(w, nw, true);

	printf("\n## Memory and disk\n\n");
	printf("Raw bytes per entry: key %d + name 1 + value %d + timestamp %d = %d; "
		   "N entries = %.1f MiB.\n\n", KEY_LEN, VALUE_LEN, TS_LEN,
		   KEY_LEN + 1 + VALUE_LEN + TS_LEN, mib(rep->raw_bytes));
	/* raw bytes of what the memtable holds: a flush leaves fewer than N entries in it */
	if (rep->memtable_ops > 0)
		printf("- colfam memtable after filling N distinct random keys into one memtable "
			   "(memtable_max_bytes = 1 GiB; %" PRIu64 " flushes, so it holds %" PRIu64
			   " entries = %.1f MiB raw): %.1f MiB = %.2fx its raw bytes (target ≤ 2x)\n",
			   rep->memtable_flushes, rep->memtable_ops, mib(memtable_raw),
			   mib(rep->memtable_bytes), (double) rep->memtable_bytes / (double) memtable_raw);
	else
		printf("- colfam memtable: empty after the fill (%" PRIu64 " flushes); no ratio\n",
			   rep->memtable_flushes);
	printf("\nOn disk after the major compaction, both dbs still open (apparent file sizes):\n\n");
	printf("- colfam whole footprint: %.1f MiB = %.2fx raw: data dir %.1f MiB (every file "
		   "under it, the system keyspace included) + commit-log dir %.1f MiB (segments "
		   "not yet retired)\n", mib(cf_disk), (double) cf_disk / (double) rep->raw_bytes,
		   mib(rep->cf_data_bytes), mib(rep->cf_commitlog_bytes));
	printf("- LevelDB whole footprint (its directory after leveldb_compact_range: tables, "
		   "log, manifest): %.1f MiB = %.2fx raw\n",
		   mib(rep->ldb_dir_bytes), (double) rep->ldb_dir_bytes / (double) rep->raw_bytes);
	printf("- colfam SSTable bytes of the benchmarked CF alone (not a footprint; no commit "
		   "log): %.1f MiB = %.2fx raw\n",
		   mib(rep->cf_sstable_bytes), (double) rep->cf_sstable_bytes / (double) rep->raw_bytes);
	{
		const cf_cache_stats *cs = &rep->cache_rr;
		uint64_t	lookups = cs->hits + cs->misses;

		printf("\ncolfam block cache (decoded key-index, column-index and data blocks, shared "
			   "by every CF): capacity %.0f MiB; during readrandom %" PRIu64 " lookups, %.1f%% "
			   "hits; after it %.1f MiB in %zu blocks\n", mib(cs->capacity), lookups,
			   lookups ? 100.0 * (double) cs->hits / (double) lookups : 0.0, mib(cs->usage),
			   cs->entries);
	}
	printf("\nTotal time: %.0f s.\n", total_s);
}

/* ---------------------------------------------------------------- main */

static uint64_t
parse_count(const char *s, const char *what)
{
	char	   *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end || v == 0 || *s == '-')
		die("%s must be a positive integer, not \"%s\"", what, s);
	return v;
}

int
main(int argc, char **argv)
{
	static const uint64_t std_sizes[] = {1000, 100000, 10000000};
	static const uint64_t super_sizes[] = {1000, 100000, 1000000};
	report		rep = {.n = 1000000};
	uint64_t	wide_max = 10000000;
	int			slices = 1000;
	const char *tmp = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	wide_result w[8];
	size_t		nw = 0;
	int			opt;
	bool		colfam_only = false;
	double		t0 = now_sec();

	while ((opt = getopt(argc, argv, "n:w:q:d:c")) != -1)
		switch (opt)
		{
			case 'n':
				rep.n = parse_count(optarg, "-n (entries)");
				break;
			case 'w':
				wide_max = parse_count(optarg, "-w (most columns of a wide row)");
				break;
			case 'q':
				{
					uint64_t	q = parse_count(optarg, "-q (slices per row)");

					if (q > 10000000)
						die("-q (slices per row) must be at most 10000000, not \"%s\"", optarg);
					slices = (int) q;
				}
				break;
			case 'd':
				tmp = optarg;
				break;
			case 'c':
				colfam_only = true;
				break;
			default:
				fprintf(stderr, "usage: bench_storage [-n ENTRIES] [-w WIDE_MAX] [-q SLICES] [-d TMPDIR] [-c]\n"
						"  -c  colfam's flat phases only, for profiling: phase rates on stderr, no report\n");
				return 2;
		}
	block_stop_signals();
	if (asprintf(&tmp_root, "%s/colfam-bench-XXXXXX", tmp) < 0 || mkdtemp(tmp_root) == NULL)
		die("cannot create a directory under %s: %s", tmp, strerror(errno));
	atexit(cleanup);
	start_signal_thread();
	cf_log_set_level(CF_LOG_WARN);
	pool_init();

	rep.flat[W_FILLSEQ] = (flat_result) {.name = "fillseq",.partitioner = "ByteOrdered"};
	rep.flat[W_READSEQ] = (flat_result) {.name = "readseq (key order)",.partitioner = "ByteOrdered"};
	rep.flat[W_FILLRANDOM] = (flat_result) {.name = "fillrandom",.partitioner = "Random"};
	rep.flat[W_OVERWRITE] = (flat_result) {.name = "overwrite",.partitioner = "Random"};
	rep.flat[W_READRANDOM] = (flat_result) {.name = "readrandom",.partitioner = "Random"};
	rep.flat[W_READRANDOM_CACHE] = (flat_result) {.name = "readrandom, LevelDB with colfam's 64 MiB block cache",.partitioner = "Random"};
	rep.flat[W_SCAN] = (flat_result) {.name = "scan after overwrite (colfam: token order)",.partitioner = "Random"};
	rep.raw_bytes = rep.n * (KEY_LEN + 1 + VALUE_LEN + TS_LEN);
	run_flat(&rep, colfam_only);
	if (colfam_only)
	{
		for (size_t i = 0; i < sizeof(rep.flat) / sizeof(rep.flat[0]); i++)
			if (rep.flat[i].name != NULL)
				fprintf(stderr, "%s: %.0f ops/s, %.2f CPU µs/op\n", rep.flat[i].name,
						rep.flat[i].colfam, rep.flat[i].colfam_cpu_us);
		return 0;
	}

	for (size_t i = 0; i < 3; i++)
		if (std_sizes[i] <= wide_max)
			w[nw++] = (wide_result) {.super = false,.columns = std_sizes[i]};
	for (size_t i = 0; i < 3; i++)
		if (super_sizes[i] <= wide_max)
			w[nw++] = (wide_result) {.super = true,.columns = super_sizes[i]};
	for (size_t i = 0; i < nw; i++)
		run_wide(&w[i], slices);

	print_report(&rep, w, nw, slices, now_sec() - t0);
	return 0;
}
