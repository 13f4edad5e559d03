/*
 * server/workers.c — the request pool: a FIFO of connections with a job, run by
 * worker_threads threads.
 *
 * Why a pool and not the loops: the database blocks (a batch-mode write waits for an
 * fsync, a read for the disk), and a loop thread that blocks stalls every connection
 * it owns. Sized from concurrent_reads + concurrent_writes, as Cassandra sizes its
 * read and write stages. One queue under one mutex: a request costs microseconds of
 * lock time against the handler's own work; per-worker queues with stealing would buy
 * nothing measurable at these request rates.
 *
 * A submit wakes a waiting worker only when the jobs queued outnumber the workers
 * already woken and not yet at the queue: a worker that finishes its job takes the
 * next one before it sleeps, so under load the woken worker often finds the queue
 * empty, and a signal per job would wake a second sleeper for nothing. pwaking never
 * counts more than the workers really on their way (a spurious wake-up only lowers
 * it), so every queued job has an awake worker that will reach it.
 */
#include <stdlib.h>

#include "server/server_int.h"
#include "util/thread.h"

static void *
worker_main(void *arg)
{
	cf_server  *srv = arg;

	pthread_mutex_lock(&srv->pmu);
	for (;;)
	{
		srv_conn   *c;

		while (srv->jhead == NULL && !srv->pstop)
		{
			srv->pidle++;
			pthread_cond_wait(&srv->pcv, &srv->pmu);
			srv->pidle--;
			if (srv->pwaking > 0)
				srv->pwaking--;
		}
		/* every submitted job runs, even while stopping: its connection waits for it */
		if ((c = srv->jhead) == NULL)
			break;
		srv->jhead = c->next_job;
		if (srv->jhead == NULL)
			srv->jtail = NULL;
		c->next_job = NULL;
		srv->pqueued--;
		srv->prunning++;
		pthread_mutex_unlock(&srv->pmu);

		cf_srv_run_job(srv, c, false);
		cf_srv_post_done(c);

		pthread_mutex_lock(&srv->pmu);
		srv->prunning--;
	}
	pthread_mutex_unlock(&srv->pmu);
	return NULL;
}

cf_status *
cf_srv_pool_start(cf_server *srv)
{
	if (srv->nworkers == 0)
		return NULL;
	srv->workers = calloc(srv->nworkers, sizeof(pthread_t));
	if (srv->workers == NULL)
		return cf_status_make(CF_ERR_NO_MEMORY, "starting %u workers: out of memory",
							  srv->nworkers);
	for (unsigned i = 0; i < srv->nworkers; i++)
	{
		int			rc = pthread_create(&srv->workers[i], NULL, worker_main, srv);

		if (rc != 0)
			return cf_status_errno(rc, "starting worker thread %u of %u", i + 1,
								   srv->nworkers);
		cf_thread_name(srv->workers[i], "cf-worker-%u", i);
		srv->nworkers_started++;
	}
	return NULL;
}

bool
cf_srv_pool_submit(cf_server *srv, srv_conn *c)
{
	pthread_mutex_lock(&srv->pmu);
	if (srv->pstop)
	{
		pthread_mutex_unlock(&srv->pmu);
		return false;
	}
	c->next_job = NULL;
	if (srv->jtail)
		srv->jtail->next_job = c;
	else
		srv->jhead = c;
	srv->jtail = c;
	srv->pqueued++;
	if (srv->pqueued > srv->pwaking && srv->pidle > srv->pwaking)
	{
		srv->pwaking++;
		pthread_cond_signal(&srv->pcv);
	}
	pthread_mutex_unlock(&srv->pmu);
	return true;
}

void
cf_srv_pool_stop(cf_server *srv)
{
	pthread_mutex_lock(&srv->pmu);
	srv->pstop = true;
	pthread_cond_broadcast(&srv->pcv);
	pthread_mutex_unlock(&srv->pmu);
	for (unsigned i = 0; i < srv->nworkers_started; i++)
		pthread_join(srv->workers[i], NULL);
	srv->nworkers_started = 0;
	free(srv->workers);
	srv->workers = NULL;
}
