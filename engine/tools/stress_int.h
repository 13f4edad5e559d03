/*
 * tools/stress_int.h — what stress.c (options, the blocking workers, setup and the
 * summary) shares with stress_async.c (the event-loop workers of --connections):
 * the run's shared state, a worker's counters, and one operation as Thrift calls.
 * Not for use outside engine/tools/stress*.c.
 *
 * An operation is one or more calls (insert without --batch: one insert per column),
 * built by stress_op_call and counted by stress_op_count whichever way they travel:
 * through libcolfam's cfc_call (a blocking connection per thread) or framed and
 * decoded by the event loops with the same codec (thrift/cassandra.h).
 */
#ifndef CF_TOOLS_STRESS_INT_H
#define CF_TOOLS_STRESS_INT_H

#include <pthread.h>
#include <stdatomic.h>

#include "client/client.h"
#include "thrift/cassandra.h"
#include "tools/stress.h"

/* Consistency levels by their Thrift value (0: none), as the options spell them. */
#define STRESS_N_CLS (CF_T_CL_THREE + 1)	/* cf_t_consistency_names' entries */

typedef struct stress_shared
{
	const cft_stress_opts *o;
	_Atomic int64_t next;		/* the next operation's index */
	int64_t		deadline_us;	/* duration mode */
	_Atomic int running;		/* workers not finished */
	int			key_width;
	cf_slice   *names;			/* "C0".."C<columns-1>" */
	uint8_t    *value;
} stress_shared;

typedef struct stress_aconn stress_aconn;	/* stress_async.c */

typedef struct worker
{
	pthread_t	th;
	stress_shared *sh;
	cfc_conn   *c;				/* blocking mode */
	stress_aconn *conns;		/* event-loop mode: nconns connections */
	int			nconns;
	uint64_t	rng;
	_Atomic uint64_t ops;		/* read by the progress line */
	_Atomic uint64_t lat_sum_us;
	cft_stress_result r;		/* this worker's part (r.ops mirrors ops) */
	cf_t_mutation *muts;
	cf_slice   *keys;			/* multiget */
	char	   *keybuf;			/* keys_per_call keys of 24 bytes each */
} worker;

/* One call of an operation; a.* point into it, into w and into the shared state. */
typedef struct stress_call
{
	cf_t_method m;
	cf_t_args	a;
	char		kb[24];
	cf_t_cf_mutations cfm;
	cf_t_key_mutations km;
} stress_call;

/* Calls per operation. */
int			stress_op_calls(const cft_stress_opts *o);

/* Takes the next operation's index; false once the run is over. */
bool		stress_op_next(worker *w, int64_t *i);

/*
 * Call `step` (0 .. stress_op_calls - 1) of operation i into *call; ts is the
 * operation's write timestamp (inserts). Reads pick their key here.
 */
void		stress_op_call(worker *w, int64_t i, int step, int64_t ts, stress_call *call);

/* Counts a call's successful result into w->r (columns read or written, misses). */
void		stress_op_count(worker *w, const stress_call *call, const cf_t_result *res);

/* An operation finished (s: its failure, freed here): latency, errors, progress. */
void		stress_op_done(worker *w, int64_t t0, int64_t t1, cf_status *s);

/* The write timestamp of an operation starting now: µs since the epoch. */
int64_t		stress_now_us_wall(void);

/* stress_async.c: a non-blocking connection with o's keyspace set; thread: run them. */
cf_status  *stress_async_open(worker *w, int nconns);
void	   *stress_async_main(void *arg);
void		stress_async_free(worker *w);

#endif							/* CF_TOOLS_STRESS_INT_H */
