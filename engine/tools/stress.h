/*
 * tools/stress.h — `colfam stress`, Cassandra 0.7's contrib/stress (py_stress) in C:
 * N threads, one libcolfam connection each, run one operation over a key space and
 * report throughput and latency. With --connections C above N, the N threads drive
 * the C connections on event loops instead (stress_async.c): the same calls, one in
 * flight per connection, at a fraction of the client's CPU.
 *
 * Operations (one "op" each, timed as one latency):
 *  - insert: one row of C columns "C0".."C<C-1>", values of S bytes: one batch_mutate
 *    (--batch) or C insert calls. Keys are written in order (op i writes key
 *    i mod keys), so a run of at least --keys inserts writes every key.
 *  - read: get_slice of the row's first C columns;
 *  - slice: get_slice of the row's last K columns (reversed SliceRange, count K);
 *  - multiget: multiget_slice of --keys-per-call rows (C columns each);
 *  - rangeslice: get_range_slices of --keys-per-call rows from the key (C columns).
 * Reads pick keys uniform or gaussian (mean keys/2, deviation keys/10, redrawn when
 * outside) over the key space. A row that comes back empty is a miss (counted per key,
 * never an error). Keys are decimal, zero-padded to 7 digits (more if --keys needs).
 *
 * Schema: the keyspace (SimpleStrategy, replication_factor 1) and the CF (Standard,
 * BytesType) are created when missing, as py_stress did.
 *
 * Output: a progress line every second (total ops, ops/s and mean latency over the
 * last interval, elapsed), then the summary: ops, ops/s, columns/s (insert), latency
 * percentiles from a histogram merged across threads (tools/histogram.h), misses,
 * errors by kind and the first error's message. With --output json the summary is
 * one JSON object on stdout and the progress goes to stderr.
 *
 * Thread safety: cft_stress_run starts and joins its own threads.
 */
#ifndef CF_TOOLS_STRESS_H
#define CF_TOOLS_STRESS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "tools/histogram.h"
#include "util/status.h"

typedef enum cft_stress_op
{
	CFT_STRESS_INSERT,
	CFT_STRESS_READ,
	CFT_STRESS_SLICE,
	CFT_STRESS_MULTIGET,
	CFT_STRESS_RANGESLICE
} cft_stress_op;

typedef struct cft_stress_opts
{
	cft_stress_op op;
	int			threads;		/* [50, as py_stress] */
	int			connections;	/* [threads]; more: threads run event loops over them */
	int64_t		keys;			/* key space [1000000] */
	int			columns;		/* per row [5] */
	int			value_size;		/* bytes [34] */
	int			slice_count;	/* slice: K [10] */
	int			keys_per_call;	/* multiget, rangeslice [10] */
	bool		gaussian;		/* else uniform */
	int64_t		operations;		/* 0 with duration set; default = keys */
	double		duration;		/* seconds; 0: run --operations */
	int			consistency;	/* cf_t_consistency [ONE] */
	const char *keyspace;		/* [Keyspace1] */
	const char *cf;				/* [Standard1] */
	const char *host;			/* [localhost] */
	int			port;			/* [9160] */
	bool		batch;
	bool		json;
	double		interval;		/* progress period in seconds [1] */
} cft_stress_opts;

/*
 * Parses colfam stress's arguments (argv[0] = "stress") into o. Returns -1 to go on,
 * else the exit status: 0 after --help (usage on out), 2 on a usage error (the
 * message and a hint naming the valid values on err).
 */
int			cft_stress_parse(int argc, char **argv, cft_stress_opts *o, FILE *out, FILE *err);

typedef struct cft_stress_result
{
	uint64_t	ops;
	uint64_t	columns;		/* written (insert) or read */
	uint64_t	misses;
	uint64_t	errors;
	uint64_t	errors_by_code[32];	/* indexed by cf_code */
	char		first_error[256];
	double		seconds;
	cft_hist	latency_us;
} cft_stress_result;

/*
 * Creates the schema if missing, runs the workload, prints progress to progress (NULL:
 * none). An error only when nothing could run (connection, schema); failures of
 * single operations are counted in res.
 */
cf_status  *cft_stress_run(const cft_stress_opts *o, FILE *progress, cft_stress_result *res);

/* The summary, as text or (o->json) one JSON object and a newline. */
void		cft_stress_report(const cft_stress_opts *o, const cft_stress_result *res, FILE *out);

#endif							/* CF_TOOLS_STRESS_H */
