/*
 * db/cfstore.c — a column family's tables, flusher and MANIFEST (see cfstore.h).
 *
 * State is guarded by one mutex; the flusher does its file I/O (writing an SSTable)
 * outside it and takes it only to publish the result, so reads and writes never wait
 * for a flush. The MANIFEST is written under the mutex because it must describe
 * exactly the published state; it is one small file written atomically.
 */
#include "db/cfstore.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "db/snapshot.h"
#include "util/buf.h"
#include "util/crc32c.h"
#include "util/log.h"
#include "util/thread.h"

#define LOG_COMPONENT "cfstore"
#define MANIFEST_NAME "MANIFEST"
#define MANIFEST_MAGIC 0x43464d46u	/* "CFMF" */
#define MANIFEST_VERSION 1
#define MANIFEST_MAX_TABLES 1000000
#define FLUSH_RETRY_US (1000 * 1000)

typedef struct pending
{
	cf_memtable *mt;
	cf_commitlog_pos pos;
} pending;

typedef struct table
{
	cf_sstable *t;
	uint64_t	gen;
} table;

struct cf_cfstore
{
	cf_cfstore_options o;
	char	   *dir;
	char	   *name;
	pthread_mutex_t mu;
	pthread_cond_t cv;			/* flusher work, flush progress, backlog space */
	cf_memtable *active;
	int64_t		active_since;	/* mono µs */
	pending    *queue;			/* FIFO of switched memtables, oldest first */
	int			nqueue;
	int			capqueue;
	table	   *tables;			/* oldest first */
	size_t		ntables;
	size_t		captables;
	uint64_t	next_gen;
	cf_commitlog_pos replay_pos;
	cf_status  *flush_error;	/* the flusher's last failure, cleared on success */
	uint64_t	flushes;
	uint64_t	flush_failures;
	bool		closing;
	pthread_t	flusher;
};

/* ---------------------------------------------------------------- paths, manifest */


static char *
sstable_path(const cf_cfstore *cf, uint64_t gen)
{
	char		file[300];

	snprintf(file, sizeof(file), "%s-%" PRIu64 ".sst", cf->name, gen);
	return cf_path_join(cf->dir, file);
}

/* Parses "<name>-<gen>.sst"; false for any other file name. */
static bool
parse_sstable_name(const cf_cfstore *cf, const char *file, uint64_t *gen)
{
	size_t		n = strlen(cf->name);
	char	   *end;

	if (strncmp(file, cf->name, n) != 0 || file[n] != '-' || file[n + 1] < '0' ||
		file[n + 1] > '9')
		return false;
	errno = 0;
	*gen = strtoull(file + n + 1, &end, 10);
	return errno == 0 && strcmp(end, ".sst") == 0;
}

/* Writes the MANIFEST for the current state. REQUIRES: mu held. */
static cf_status *
manifest_write(cf_cfstore *cf)
{
	cf_buf		b = CF_BUF_INIT;
	char	   *path = cf_path_join(cf->dir, MANIFEST_NAME);
	cf_status  *s;

	if (path == NULL)
		return cf_status_make(CF_ERR_NO_MEMORY, "%s: out of memory", cf->name);
	cf_buf_put_u32(&b, MANIFEST_MAGIC);
	cf_buf_put_u32(&b, MANIFEST_VERSION);
	cf_buf_put_u64(&b, cf->replay_pos.segment);
	cf_buf_put_u64(&b, cf->replay_pos.offset);
	cf_buf_put_u64(&b, cf->next_gen);
	cf_buf_put_u32(&b, (uint32_t) cf->ntables);
	for (size_t i = 0; i < cf->ntables; i++)
		cf_buf_put_u64(&b, cf->tables[i].gen);
	if (cf_buf_ok(&b))
		cf_buf_put_u32(&b, cf_crc32c_mask(cf_crc32c(b.data, b.len)));
	if ((s = cf_buf_status(&b)) == NULL)
		s = cf_env_write_file_atomic(cf->o.env, path, b.data, b.len);
	cf_buf_free(&b);
	free(path);
	return cf_status_wrap(s, "writing the MANIFEST of %s", cf->name);
}

/* Reads the MANIFEST into *gens (malloc'd); *n = 0 and no error if there is none. */
static cf_status *
manifest_read(cf_cfstore *cf, uint64_t **gens, size_t *n)
{
	char	   *path = cf_path_join(cf->dir, MANIFEST_NAME);
	uint8_t    *data = NULL;
	size_t		len = 0;
	cf_status  *s;
	cf_rd		r;
	uint32_t	count;

	*gens = NULL;
	*n = 0;
	if (path == NULL)
		return cf_status_make(CF_ERR_NO_MEMORY, "%s: out of memory", cf->name);
	if (!cf_env_exists(cf->o.env, path))
	{
		free(path);
		return NULL;
	}
	s = cf_env_read_file(cf->o.env, path, &data, &len);
	if (s == NULL && (len < 4 ||
					  cf_crc32c_unmask(cf_load_be32(data + len - 4)) != cf_crc32c(data, len - 4)))
		s = cf_status_make(CF_ERR_CORRUPTION, "%s: checksum mismatch", path);
	if (s == NULL)
	{
		cf_rd_init(&r, data, len - 4);
		if (cf_rd_u32(&r) != MANIFEST_MAGIC)
			s = cf_status_make(CF_ERR_CORRUPTION, "%s: not a colfam MANIFEST", path);
		else if (cf_rd_u32(&r) != MANIFEST_VERSION)
			s = cf_status_make(CF_ERR_NOT_SUPPORTED,
							   "%s: MANIFEST version is newer than this build reads", path);
	}
	if (s == NULL)
	{
		cf->replay_pos.segment = cf_rd_u64(&r);
		cf->replay_pos.offset = cf_rd_u64(&r);
		cf->next_gen = cf_rd_u64(&r);
		count = cf_rd_u32(&r);
		if (count > MANIFEST_MAX_TABLES || count > cf_rd_left(&r) / 8)
			cf_rd_fail(&r);
		else if (count && (*gens = malloc(count * sizeof(**gens))) == NULL)
			s = cf_status_make(CF_ERR_NO_MEMORY, "%s: out of memory", path);
		for (uint32_t i = 0; s == NULL && i < count && cf_rd_ok(&r); i++)
			(*gens)[i] = cf_rd_u64(&r);
		if (s == NULL)
			s = cf_rd_status(&r, path);
		if (s == NULL && cf_rd_left(&r) != 0)
			s = cf_status_make(CF_ERR_CORRUPTION, "%s: trailing bytes", path);
		if (s == NULL)
			*n = count;
	}
	if (s != NULL)
	{
		free(*gens);
		*gens = NULL;
	}
	free(data);
	free(path);
	return s;
}

/* ---------------------------------------------------------------- table list */

/* REQUIRES: mu held (or single-threaded at open). */
static bool
tables_push(cf_cfstore *cf, cf_sstable *t, uint64_t gen)
{
	if (cf->ntables == cf->captables)
	{
		size_t		cap = cf->captables ? 2 * cf->captables : 8;
		table	   *p = realloc(cf->tables, cap * sizeof(*p));

		if (p == NULL)
			return false;
		cf->tables = p;
		cf->captables = cap;
	}
	cf->tables[cf->ntables].t = t;
	cf->tables[cf->ntables].gen = gen;
	cf->ntables++;
	return true;
}

static int
cmp_gen(const void *a, const void *b)
{
	uint64_t	x = *(const uint64_t *) a;
	uint64_t	y = *(const uint64_t *) b;

	return x < y ? -1 : x > y;
}

typedef struct cleanup_ctx
{
	cf_cfstore *cf;
	const uint64_t *gens;
	size_t		n;
	char	  **doomed;
	size_t		ndoomed;
	bool		oom;
} cleanup_ctx;

/* Collects files the MANIFEST does not list: unfinished flushes and compactions. */
static bool
collect_orphan(void *arg, const char *file)
{
	cleanup_ctx *c = arg;
	uint64_t	gen;
	size_t		len = strlen(file);
	bool		orphan = false;

	if (parse_sstable_name(c->cf, file, &gen))
		orphan = c->n == 0 || bsearch(&gen, c->gens, c->n, sizeof(gen), cmp_gen) == NULL;
	else if (len > 4 && strcmp(file + len - 4, ".tmp") == 0)
		orphan = true;
	if (orphan)
	{
		char	  **p = realloc(c->doomed, (c->ndoomed + 1) * sizeof(*p));

		if (p == NULL || (p[c->ndoomed] = cf_path_join(c->cf->dir, file)) == NULL)
		{
			if (p)
				c->doomed = p;
			c->oom = true;
			return false;
		}
		c->doomed = p;
		c->ndoomed++;
	}
	return true;
}

static cf_status *
remove_orphans(cf_cfstore *cf, uint64_t *gens, size_t n)
{
	cleanup_ctx c = {cf, gens, n, NULL, 0, false};
	cf_status  *s;

	if (n)
		qsort(gens, n, sizeof(*gens), cmp_gen);
	s = cf_env_list_dir(cf->o.env, cf->dir, collect_orphan, &c);
	if (s == NULL && c.oom)
		s = cf_status_make(CF_ERR_NO_MEMORY, "%s: out of memory", cf->name);
	for (size_t i = 0; i < c.ndoomed; i++)
	{
		if (s == NULL)
		{
			cf_log_info(LOG_COMPONENT, "%s: removing %s, left by an unfinished flush or "
						"compaction", cf->name, c.doomed[i]);
			s = cf_env_remove(cf->o.env, c.doomed[i]);
		}
		free(c.doomed[i]);
	}
	free(c.doomed);
	if (s == NULL && c.ndoomed)
		s = cf_env_sync_dir(cf->o.env, cf->dir);
	return s;
}

/* ---------------------------------------------------------------- flusher */

static cf_status *
flush_one(cf_cfstore *cf, cf_memtable *mt, cf_sstable **out, uint64_t *gen_out)
{
	cf_sstable_stats st;
	cf_status  *s;
	char	   *path;
	uint64_t	gen;

	*out = NULL;
	pthread_mutex_lock(&cf->mu);
	gen = cf->next_gen++;
	pthread_mutex_unlock(&cf->mu);
	if ((path = sstable_path(cf, gen)) == NULL)
		return cf_status_make(CF_ERR_NO_MEMORY, "%s: out of memory", cf->name);
	s = cf_sstable_write_memtable(cf->o.env, path, mt, &cf->o.sstable, &st);
	if (s == NULL)
		s = cf_env_sync_dir(cf->o.env, cf->dir);
	if (s == NULL)
		s = cf_sstable_open_cached(cf->o.env, path, &cf->o.order, cf->o.block_cache, out);
	if (s != NULL && cf_env_exists(cf->o.env, path))
		cf_status_free(cf_env_remove(cf->o.env, path));
	else if (s == NULL)
		cf_log_info(LOG_COMPONENT, "%s: flushed %" PRIu64 " rows, %" PRIu64 " cells to %s",
					cf->name, st.rows, st.cells, path);
	free(path);
	*gen_out = gen;
	return cf_status_wrap(s, "flushing %s", cf->name);
}

static void *
flusher_main(void *arg)
{
	cf_cfstore *cf = arg;

	pthread_mutex_lock(&cf->mu);
	for (;;)
	{
		pending		p;
		cf_sstable *t = NULL;
		uint64_t	gen = 0;
		cf_status  *s = NULL;

		while (cf->nqueue == 0 && !cf->closing)
			pthread_cond_wait(&cf->cv, &cf->mu);
		if (cf->nqueue == 0)
			break;				/* closing, and everything switched is flushed */
		p = cf->queue[0];		/* stays queued (and readable) until published */
		cf_memtable_ref(p.mt);	/* ours while we write it, whatever truncate does */
		pthread_mutex_unlock(&cf->mu);

		if (cf_memtable_ops(p.mt) > 0)
			s = flush_one(cf, p.mt, &t, &gen);

		pthread_mutex_lock(&cf->mu);
		if (cf->nqueue == 0 || cf->queue[0].mt != p.mt)
		{
			/* truncated meanwhile: what we wrote is no longer wanted */
			pthread_mutex_unlock(&cf->mu);
			cf_status_free(s);
			if (t)
			{
				char	   *path = sstable_path(cf, gen);

				cf_sstable_unref(t);
				if (path)
					cf_status_free(cf_env_remove(cf->o.env, path));
				free(path);
			}
			cf_memtable_unref(p.mt);
			pthread_mutex_lock(&cf->mu);
			continue;
		}
		if (s == NULL && t != NULL && !tables_push(cf, t, gen))
		{
			cf_sstable_unref(t);
			s = cf_status_make(CF_ERR_NO_MEMORY, "flushing %s: out of memory", cf->name);
		}
		if (s == NULL)
		{
			cf_commitlog_pos before = cf->replay_pos;

			cf->replay_pos = p.pos;
			if ((s = manifest_write(cf)) != NULL)
			{
				/* not durable: forget the table (its file is an orphan until reopen) */
				cf->replay_pos = before;
				if (t)
				{
					cf->ntables--;
					cf_sstable_unref(t);
				}
			}
		}
		if (s != NULL)
		{
			cf->flush_failures++;
			cf_log_error(LOG_COMPONENT, "%s; retrying in %d s", cf_status_msg(s),
						 FLUSH_RETRY_US / 1000000);
			cf_status_free(cf->flush_error);
			cf->flush_error = s;
			pthread_cond_broadcast(&cf->cv);
			cf_memtable_unref(p.mt);
			if (cf->closing)
				break;			/* give up: the commit log still holds the data */
			{
				/* a second's pause, cut short by close */
				struct timespec until;

				clock_gettime(CLOCK_MONOTONIC, &until);
				until.tv_sec += FLUSH_RETRY_US / 1000000;
				pthread_cond_timedwait(&cf->cv, &cf->mu, &until);
			}
			continue;
		}
		cf_status_free(cf->flush_error);
		cf->flush_error = NULL;
		cf->flushes++;
		pthread_mutex_unlock(&cf->mu);

		/*
		 * Tell the db before the memtable leaves the queue: whoever waits for the
		 * flush (a shutdown about to close the commit log) must not wake before this
		 * call is over. Meanwhile readers see the rows twice, which reconciles.
		 */
		if (cf->o.on_flushed)
			cf->o.on_flushed(cf->o.arg, cf->o.cf_id, p.pos);

		pthread_mutex_lock(&cf->mu);
		memmove(cf->queue, cf->queue + 1, (size_t) (cf->nqueue - 1) * sizeof(*cf->queue));
		cf->nqueue--;
		pthread_cond_broadcast(&cf->cv);
		pthread_mutex_unlock(&cf->mu);
		cf_memtable_unref(p.mt);	/* the queue's reference */
		cf_memtable_unref(p.mt);	/* ours */
		pthread_mutex_lock(&cf->mu);
	}
	pthread_mutex_unlock(&cf->mu);
	return NULL;
}

/* ---------------------------------------------------------------- open, close */

static void
store_free(cf_cfstore *cf)
{
	for (size_t i = 0; i < cf->ntables; i++)
		cf_sstable_unref(cf->tables[i].t);
	for (int i = 0; i < cf->nqueue; i++)
		cf_memtable_unref(cf->queue[i].mt);
	cf_memtable_unref(cf->active);
	cf_status_free(cf->flush_error);
	pthread_mutex_destroy(&cf->mu);
	pthread_cond_destroy(&cf->cv);
	free(cf->tables);
	free(cf->queue);
	free(cf->dir);
	free(cf->name);
	cf_cache_unref(cf->o.block_cache);
	free(cf);
}

cf_status *
cf_cfstore_open(const cf_cfstore_options *opts, cf_cfstore **out)
{
	cf_cfstore *cf = calloc(1, sizeof(*cf));
	uint64_t   *gens = NULL;
	size_t		n = 0;
	cf_status  *s = NULL;

	*out = NULL;
	if (cf == NULL)
		return cf_status_make(CF_ERR_NO_MEMORY, "opening %s: out of memory", opts->name);
	cf->o = *opts;
	if (cf->o.block_cache)
		cf_cache_ref(cf->o.block_cache);
	cf->dir = strdup(opts->dir);
	cf->name = strdup(opts->name);
	cf->o.dir = cf->dir;
	cf->o.name = cf->name;
	cf->o.sstable.order = opts->order;
	if (!cf->o.memtable_max_bytes)
		cf->o.memtable_max_bytes = 64u << 20;
	if (!cf->o.memtable_max_ops)
		cf->o.memtable_max_ops = 300000;
	if (!cf->o.memtable_max_age_us)
		cf->o.memtable_max_age_us = 60LL * 60 * 1000000;
	if (cf->o.max_pending_flushes <= 0)
		cf->o.max_pending_flushes = 2;
	cf->next_gen = 1;
	pthread_mutex_init(&cf->mu, NULL);
	{
		pthread_condattr_t ca;	/* the retry pause waits on the monotonic clock */

		pthread_condattr_init(&ca);
		pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
		pthread_cond_init(&cf->cv, &ca);
		pthread_condattr_destroy(&ca);
	}
	if (cf->dir == NULL || cf->name == NULL ||
		(cf->active = cf_memtable_new(&opts->order)) == NULL)
	{
		store_free(cf);
		return cf_status_make(CF_ERR_NO_MEMORY, "opening %s: out of memory", opts->name);
	}
	cf->active_since = cf_env_mono_micros(cf->o.env);

	s = cf_env_mkdirs(cf->o.env, cf->dir);
	if (s == NULL)
		s = manifest_read(cf, &gens, &n);
	for (size_t i = 0; s == NULL && i < n; i++)
	{
		char	   *path = sstable_path(cf, gens[i]);
		cf_sstable *t = NULL;

		if (path == NULL)
			s = cf_status_make(CF_ERR_NO_MEMORY, "opening %s: out of memory", cf->name);
		else if ((s = cf_sstable_open_cached(cf->o.env, path, &cf->o.order, cf->o.block_cache, &t)) == NULL &&
				 !tables_push(cf, t, gens[i]))
		{
			cf_sstable_unref(t);
			s = cf_status_make(CF_ERR_NO_MEMORY, "opening %s: out of memory", cf->name);
		}
		if (gens[i] >= cf->next_gen)
			cf->next_gen = gens[i] + 1;
		free(path);
	}
	if (s == NULL)
		s = remove_orphans(cf, gens, n);
	free(gens);
	if (s == NULL && pthread_create(&cf->flusher, NULL, flusher_main, cf) != 0)
		s = cf_status_make(CF_ERR_INTERNAL, "opening %s: cannot start the flusher", cf->name);
	else if (s == NULL)
		cf_thread_name(cf->flusher, "cf-flush-%s", cf->name);	/* cut to 15 bytes */
	if (s != NULL)
	{
		store_free(cf);
		return cf_status_wrap(s, "opening column family %s", opts->name);
	}
	cf_log_info(LOG_COMPONENT, "%s: opened with %zu sstables, replay from %" PRIu64 ":%" PRIu64,
				cf->name, cf->ntables, cf->replay_pos.segment, cf->replay_pos.offset);
	*out = cf;
	return NULL;
}

cf_status *
cf_cfstore_close(cf_cfstore *cf)
{
	cf_status  *s;

	if (cf == NULL)
		return NULL;
	pthread_mutex_lock(&cf->mu);
	cf->closing = true;
	pthread_cond_broadcast(&cf->cv);
	pthread_mutex_unlock(&cf->mu);
	pthread_join(cf->flusher, NULL);
	s = cf->flush_error;
	cf->flush_error = NULL;
	store_free(cf);
	return s;
}

cf_commitlog_pos
cf_cfstore_replay_position(cf_cfstore *cf)
{
	cf_commitlog_pos p;

	pthread_mutex_lock(&cf->mu);
	p = cf->replay_pos;
	pthread_mutex_unlock(&cf->mu);
	return p;
}

/* ---------------------------------------------------------------- writes */

cf_status *
cf_cfstore_admit(cf_cfstore *cf)
{
	cf_status  *s = NULL;

	pthread_mutex_lock(&cf->mu);
	while (cf->nqueue >= cf->o.max_pending_flushes && !cf->closing)
	{
		if (cf->flush_error)
		{
			s = cf_status_make(cf_status_code(cf->flush_error),
							   "%s: writes refused while flushing fails: %s", cf->name,
							   cf_status_msg(cf->flush_error));
			break;
		}
		pthread_cond_wait(&cf->cv, &cf->mu);
	}
	pthread_mutex_unlock(&cf->mu);
	return s;
}

/* Has mt crossed a threshold? Empty memtables are never due (nothing to flush). */
static bool
due(cf_cfstore *cf, cf_memtable *mt)
{
	if (cf_memtable_ops(mt) == 0)
		return false;
	return cf_memtable_memory(mt) >= __atomic_load_n(&cf->o.memtable_max_bytes, __ATOMIC_RELAXED) ||
		cf_memtable_ops(mt) >= __atomic_load_n(&cf->o.memtable_max_ops, __ATOMIC_RELAXED) ||
		cf_env_mono_micros(cf->o.env) - __atomic_load_n(&cf->active_since, __ATOMIC_RELAXED) >=
		__atomic_load_n(&cf->o.memtable_max_age_us, __ATOMIC_RELAXED);
}

cf_status *
cf_cfstore_apply(cf_cfstore *cf, cf_slice token, cf_slice key, const cf_cf_update *u,
				 bool *switch_due)
{
	cf_memtable *mt;
	cf_status  *s;

	pthread_mutex_lock(&cf->mu);
	mt = cf->active;
	cf_memtable_ref(mt);
	pthread_mutex_unlock(&cf->mu);

	s = cf_memtable_apply(mt, token, key, u);
	*switch_due = due(cf, mt);
	cf_memtable_unref(mt);
	return s;
}

bool
cf_cfstore_switch_due(cf_cfstore *cf)
{
	cf_memtable *mt;
	bool		d;

	pthread_mutex_lock(&cf->mu);
	mt = cf->active;
	cf_memtable_ref(mt);
	pthread_mutex_unlock(&cf->mu);
	d = due(cf, mt);
	cf_memtable_unref(mt);
	return d;
}

void
cf_cfstore_set_thresholds(cf_cfstore *cf, size_t max_bytes, uint64_t max_ops,
						  int64_t max_age_us)
{
	if (max_bytes)
		__atomic_store_n(&cf->o.memtable_max_bytes, max_bytes, __ATOMIC_RELAXED);
	if (max_ops)
		__atomic_store_n(&cf->o.memtable_max_ops, max_ops, __ATOMIC_RELAXED);
	if (max_age_us)
		__atomic_store_n(&cf->o.memtable_max_age_us, max_age_us, __ATOMIC_RELAXED);
}

cf_status *
cf_cfstore_switch(cf_cfstore *cf, cf_commitlog_pos pos)
{
	cf_memtable *fresh = cf_memtable_new(&cf->o.order);

	if (fresh == NULL)
		return cf_status_make(CF_ERR_NO_MEMORY, "%s: out of memory switching memtables",
							  cf->name);
	pthread_mutex_lock(&cf->mu);
	if (cf->nqueue == cf->capqueue)
	{
		int			cap = cf->capqueue ? 2 * cf->capqueue : 4;
		pending    *q = realloc(cf->queue, (size_t) cap * sizeof(*q));

		if (q == NULL)
		{
			pthread_mutex_unlock(&cf->mu);
			cf_memtable_unref(fresh);
			return cf_status_make(CF_ERR_NO_MEMORY, "%s: out of memory switching memtables",
								  cf->name);
		}
		cf->queue = q;
		cf->capqueue = cap;
	}
	cf->queue[cf->nqueue].mt = cf->active;
	cf->queue[cf->nqueue].pos = pos;
	cf->nqueue++;
	cf->active = fresh;
	__atomic_store_n(&cf->active_since, cf_env_mono_micros(cf->o.env), __ATOMIC_RELAXED);
	pthread_cond_broadcast(&cf->cv);
	pthread_mutex_unlock(&cf->mu);
	return NULL;
}

cf_status *
cf_cfstore_wait_flushed(cf_cfstore *cf)
{
	cf_status  *s = NULL;

	uint64_t	failures;

	pthread_mutex_lock(&cf->mu);
	failures = cf->flush_failures;
	while (cf->nqueue > 0 && cf->flush_failures == failures && !cf->closing)
		pthread_cond_wait(&cf->cv, &cf->mu);
	if (cf->nqueue > 0 && cf->flush_error)
		s = cf_status_make(cf_status_code(cf->flush_error), "%s",
						   cf_status_msg(cf->flush_error));
	pthread_mutex_unlock(&cf->mu);
	return s;
}

/* ---------------------------------------------------------------- reads */

cf_status *
cf_cfstore_view_get(cf_cfstore *cf, cf_cfstore_view *v)
{
	memset(v, 0, sizeof(*v));
	v->order = cf->o.order;
	pthread_mutex_lock(&cf->mu);
	/* one allocation: the memtables, then the sstables (freed through v->memtables) */
	v->memtables = malloc((size_t) (cf->nqueue + 1) * sizeof(*v->memtables) +
						  (cf->ntables + 1) * sizeof(*v->sstables));
	if (v->memtables == NULL)
	{
		pthread_mutex_unlock(&cf->mu);
		memset(v, 0, sizeof(*v));
		return cf_status_make(CF_ERR_NO_MEMORY, "%s: out of memory reading", cf->name);
	}
	v->sstables = (cf_sstable **) (v->memtables + cf->nqueue + 1);
	v->memtables[v->n_memtables++] = cf->active;
	for (int i = cf->nqueue - 1; i >= 0; i--)
		v->memtables[v->n_memtables++] = cf->queue[i].mt;
	for (size_t i = 0; i < cf->ntables; i++)
		v->sstables[v->n_sstables++] = cf->tables[i].t;
	for (size_t i = 0; i < v->n_memtables; i++)
		cf_memtable_ref(v->memtables[i]);
	for (size_t i = 0; i < v->n_sstables; i++)
		cf_sstable_ref(v->sstables[i]);
	pthread_mutex_unlock(&cf->mu);
	return NULL;
}

void
cf_cfstore_view_release(cf_cfstore_view *v)
{
	for (size_t i = 0; i < v->n_memtables; i++)
		cf_memtable_unref(v->memtables[i]);
	for (size_t i = 0; i < v->n_sstables; i++)
		cf_sstable_unref(v->sstables[i]);
	free(v->memtables);			/* the sstables' array too */
	memset(v, 0, sizeof(*v));
}

/* ---------------------------------------------------------------- truncate, replace */

/* Unlinks the files of removed tables and drops their references. */
static void
drop_tables(cf_cfstore *cf, table *gone, size_t n)
{
	for (size_t i = 0; i < n; i++)
	{
		char	   *path = sstable_path(cf, gone[i].gen);
		cf_status  *s = path ? cf_env_remove(cf->o.env, path) : NULL;

		if (s)
		{
			/* harmless: an orphan the next open removes */
			cf_log_warn(LOG_COMPONENT, "%s", cf_status_msg(s));
			cf_status_free(s);
		}
		free(path);
		cf_sstable_unref(gone[i].t);
	}
	cf_status_free(cf_env_sync_dir(cf->o.env, cf->dir));
}

cf_status *
cf_cfstore_truncate(cf_cfstore *cf, cf_commitlog_pos pos)
{
	cf_memtable *fresh = cf_memtable_new(&cf->o.order);
	table	   *gone;
	size_t		ngone;
	cf_memtable *old_active;
	pending    *old_queue;
	int			old_n;
	cf_commitlog_pos old_pos;
	cf_status  *s;

	if (fresh == NULL)
		return cf_status_make(CF_ERR_NO_MEMORY, "truncating %s: out of memory", cf->name);
	pthread_mutex_lock(&cf->mu);
	/* let a flush in progress finish first: it publishes into the list we clear */
	while (cf->nqueue > 0 && cf->flush_error == NULL)
		pthread_cond_wait(&cf->cv, &cf->mu);
	gone = cf->tables;
	ngone = cf->ntables;
	old_active = cf->active;
	old_queue = cf->queue;
	old_n = cf->nqueue;
	old_pos = cf->replay_pos;
	cf->tables = NULL;
	cf->ntables = cf->captables = 0;
	cf->queue = NULL;
	cf->nqueue = cf->capqueue = 0;
	cf->active = fresh;
	if (cf_commitlog_pos_cmp(pos, cf->replay_pos) > 0)
		cf->replay_pos = pos;
	if ((s = manifest_write(cf)) != NULL)
	{
		/* nothing changed on disk: put everything back */
		cf_memtable_unref(fresh);
		cf->tables = gone;
		cf->ntables = cf->captables = ngone;
		cf->queue = old_queue;
		cf->nqueue = cf->capqueue = old_n;
		cf->active = old_active;
		cf->replay_pos = old_pos;
		pthread_mutex_unlock(&cf->mu);
		return cf_status_wrap(s, "truncating %s", cf->name);
	}
	pthread_mutex_unlock(&cf->mu);

	cf_memtable_unref(old_active);
	for (int i = 0; i < old_n; i++)
		cf_memtable_unref(old_queue[i].mt);
	free(old_queue);
	drop_tables(cf, gone, ngone);
	free(gone);
	cf_log_info(LOG_COMPONENT, "%s: truncated (%zu sstables removed)", cf->name, ngone);
	if (cf->o.on_flushed)
		cf->o.on_flushed(cf->o.arg, cf->o.cf_id, pos);
	return NULL;
}

cf_status *
cf_cfstore_replace(cf_cfstore *cf, cf_sstable *const *old, size_t n, cf_sstable *replacement)
{
	table	   *gone = calloc(n ? n : 1, sizeof(*gone));
	table	   *keep;
	size_t		capkeep;
	size_t		nkeep = 0;
	size_t		ngone = 0;
	uint64_t	gen = 0;
	cf_status  *s;

	if (gone == NULL)
		return cf_status_make(CF_ERR_NO_MEMORY, "%s: out of memory", cf->name);
	if (replacement && !parse_sstable_name(cf, strrchr(cf_sstable_path(replacement), '/') ?
										   strrchr(cf_sstable_path(replacement), '/') + 1 :
										   cf_sstable_path(replacement), &gen))
	{
		free(gone);
		return cf_status_make(CF_ERR_INVALID, "%s: %s is not one of its sstables", cf->name,
							  cf_sstable_path(replacement));
	}
	pthread_mutex_lock(&cf->mu);
	capkeep = cf->ntables + 1;
	keep = malloc(capkeep * sizeof(*keep));
	if (keep == NULL)
	{
		pthread_mutex_unlock(&cf->mu);
		free(gone);
		return cf_status_make(CF_ERR_NO_MEMORY, "%s: out of memory", cf->name);
	}
	for (size_t i = 0; i < cf->ntables; i++)
	{
		bool		replaced = false;

		for (size_t k = 0; k < n && !replaced; k++)
			replaced = cf->tables[i].t == old[k];
		if (replaced)
			gone[ngone++] = cf->tables[i];
		else
			keep[nkeep++] = cf->tables[i];
	}
	if (ngone != n)
	{
		pthread_mutex_unlock(&cf->mu);
		free(gone);
		free(keep);
		return cf_status_make(CF_ERR_INVALID, "%s: replacing sstables that are not live "
							  "(a concurrent truncate or compaction?)", cf->name);
	}
	if (replacement)
	{
		cf_sstable_ref(replacement);
		keep[nkeep].t = replacement;
		keep[nkeep].gen = gen;
		nkeep++;
	}
	{
		table	   *before = cf->tables;
		size_t		nbefore = cf->ntables;
		size_t		capbefore = cf->captables;

		cf->tables = keep;
		cf->ntables = nkeep;
		cf->captables = capkeep;
		if ((s = manifest_write(cf)) != NULL)
		{
			cf->tables = before;
			cf->ntables = nbefore;
			cf->captables = capbefore;
			if (replacement)
				cf_sstable_unref(replacement);
			pthread_mutex_unlock(&cf->mu);
			free(keep);
			free(gone);
			return s;
		}
		free(before);
	}
	pthread_mutex_unlock(&cf->mu);
	drop_tables(cf, gone, ngone);
	free(gone);
	return NULL;
}

char *
cf_cfstore_new_sstable_path(cf_cfstore *cf)
{
	uint64_t	gen;

	pthread_mutex_lock(&cf->mu);
	gen = cf->next_gen++;
	pthread_mutex_unlock(&cf->mu);
	return sstable_path(cf, gen);
}

/* ---------------------------------------------------------------- snapshots, stats */

cf_status *
cf_cfstore_snapshot(cf_cfstore *cf, const char *name)
{
	char		sub[512];
	char	   *dir;
	cf_status  *s = NULL;

	if ((s = cf_snapshot_name_check(name)) != NULL)
		return s;
	snprintf(sub, sizeof(sub), "snapshots/%s", name);
	if ((dir = cf_path_join(cf->dir, sub)) == NULL)
		return cf_status_make(CF_ERR_NO_MEMORY, "%s: out of memory", cf->name);
	if (cf_env_exists(cf->o.env, dir))
	{
		free(dir);
		return cf_status_make(CF_ERR_BUSY, "%s: snapshot \"%s\" exists already", cf->name, name);
	}
	s = cf_env_mkdirs(cf->o.env, dir);

	/* under mu so compaction cannot unlink a file between listing and linking */
	pthread_mutex_lock(&cf->mu);
	for (size_t i = 0; s == NULL && i <= cf->ntables; i++)
	{
		char		file[300];
		char	   *from;
		char	   *to;

		if (i < cf->ntables)
			snprintf(file, sizeof(file), "%s-%" PRIu64 ".sst", cf->name, cf->tables[i].gen);
		else
			snprintf(file, sizeof(file), "%s", MANIFEST_NAME);
		from = cf_path_join(cf->dir, file);
		to = cf_path_join(dir, file);
		if (from == NULL || to == NULL)
			s = cf_status_make(CF_ERR_NO_MEMORY, "%s: out of memory", cf->name);
		else if (i < cf->ntables || cf_env_exists(cf->o.env, from))
			s = cf_env_link(cf->o.env, from, to);
		free(from);
		free(to);
	}
	pthread_mutex_unlock(&cf->mu);
	if (s == NULL)
		s = cf_env_sync_dir(cf->o.env, dir);
	free(dir);
	return cf_status_wrap(s, "snapshot \"%s\" of %s", name, cf->name);
}

void
cf_cfstore_stats_get(cf_cfstore *cf, cf_cfstore_stats *st)
{
	memset(st, 0, sizeof(*st));
	pthread_mutex_lock(&cf->mu);
	st->memtable_bytes = cf_memtable_memory(cf->active);
	st->memtable_ops = cf_memtable_ops(cf->active);
	st->pending_flushes = cf->nqueue;
	st->sstables = cf->ntables;
	st->est_rows = cf_memtable_rows(cf->active);
	st->est_cells = st->memtable_ops;
	for (int i = 0; i < cf->nqueue; i++)
	{
		st->est_rows += cf_memtable_rows(cf->queue[i].mt);
		st->est_cells += cf_memtable_ops(cf->queue[i].mt);
	}
	for (size_t i = 0; i < cf->ntables; i++)
	{
		const cf_sstable_stats *ss = cf_sstable_get_stats(cf->tables[i].t);

		st->sstable_bytes += ss->file_bytes;
		st->est_rows += ss->rows;
		st->est_cells += ss->cells;
	}
	st->flushes = cf->flushes;
	st->flush_failures = cf->flush_failures;
	pthread_mutex_unlock(&cf->mu);
}
