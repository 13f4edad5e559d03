/*
 * db/db.c — keyspaces over cfstores, the commit log, replay, the schema and the
 * secondary indexes' stores and builds (see db.h, index.h).
 *
 * Locks, outermost first: schema_mu (one schema change at a time); the key locks (a
 * write to a CF with an index holds its row key's stripe from its read-before-write
 * to its apply); drop_lock
 * (compactions shared, removing a dropped CF's store exclusive — so a long compaction
 * never holds the barrier); the barrier (writes shared, memtable switches, truncation
 * and store removal exclusive); mu (the schema pointer, the store table, the builds).
 * compact_mu (one compaction at a time) is taken inside drop_lock, never with the
 * barrier or mu held. snap_mu (snapshots taken, listed and removed one at a time) is
 * taken inside drop_lock and outside a cfstore's own lock, never with the barrier held.
 * No lock is held across a commit-log fsync except the barrier in shared mode, exactly
 * as Cassandra's switch lock, a key-lock stripe, and drop_lock in shared mode (a write
 * holds it from its store lookups to its memtable switches; a schema change, its only
 * exclusive holder, waits for the barrier anyway).
 *
 * The epoch counts the changes that invalidate a write prepared against an older
 * state: a schema published (an index may have appeared: a write prepared without it
 * would escape the index's build) and a truncation (a read-before-write from before it
 * is wrong after it). It only changes under the barrier held exclusively; a write reads
 * it before preparing and compares under the barrier shared before logging, and
 * starts over if it moved.
 */
#include "db/db.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "db/index.h"
#include "db/snapshot.h"
#include "storage/compaction.h"
#include "storage/mutation.h"
#include "util/log.h"
#include "util/thread.h"

#define LOG_COMPONENT "db"
#define SYSTEM_KS "system"
#define SCHEMA_CF "Schema"
#define SCHEMA_CF_ID 0			/* user CF ids start at 1 */
#define META_KEY "~meta"		/* not a keyspace name: those are word characters */
#define KEY_LOCKS 1024			/* stripes of the per-row-key write lock */
#define BUILD_BATCH 256			/* base rows an index build indexes per record */
#define BUILT_MARKER "BUILT"	/* in an index store's directory once it is complete */

typedef struct store_entry
{
	uint32_t	id;
	cf_cfstore *cf;
	bool		needs_compaction;
	bool		is_index;		/* a hidden index CF: rows placed by key, not token */
	bool		built;			/* index: complete, queries may use it (under mu) */
} store_entry;

/* A background build of one index over its CF's existing rows. */
typedef struct index_build
{
	struct cf_db *db;
	uint32_t	index_id;
	pthread_t	thread;
	bool		done;			/* under mu */
	struct index_build *next;
} index_build;

struct cf_db
{
	cf_db_options o;
	char	   *data_dir;
	char	   *commitlog_dir;
	pthread_mutex_t schema_mu;
	pthread_mutex_t compact_mu; /* one compaction at a time, as Cassandra 0.7 */
	pthread_mutex_t snap_mu;	/* see the top of the file */
	pthread_rwlock_t drop_lock;
	pthread_rwlock_t barrier;
	pthread_mutex_t mu;
	pthread_cond_t maint_cv;
	cf_schema  *schema;
	cf_cfstore *system;
	store_entry *stores;
	size_t		nstores;
	cf_commitlog *log;
	cf_cache   *block_cache;	/* every CF's SSTables read through it */
	cf_db_replay_stats replay;
	bool		stopping;
	atomic_int	cancel_compaction;
	bool		maintenance_started;
	pthread_t	maintenance;
	atomic_ulong epoch;			/* see the top of the file */
	pthread_mutex_t key_locks[KEY_LOCKS];
	index_build *builds;		/* under mu */
	pthread_cond_t builds_cv;	/* a build finished */
	atomic_int	stop_builds;
};

static int32_t
now_sec(cf_db *db)
{
	return (int32_t) (cf_env_now_micros(db->o.env) / 1000000);
}

/* ---------------------------------------------------------------- stores */

/* REQUIRES: mu held. */
static store_entry *
store_by_id(cf_db *db, uint32_t id)
{
	for (size_t i = 0; i < db->nstores; i++)
		if (db->stores[i].id == id)
			return &db->stores[i];
	return NULL;
}

/* The store id names (NULL if none), telling whether it is an index's. */
static cf_cfstore *
store_lookup(cf_db *db, uint32_t id, bool *is_index)
{
	store_entry *s;
	cf_cfstore *cf;

	*is_index = false;
	if (id == SCHEMA_CF_ID)
		return db->system;
	/* the entry is read under mu: adding a store may move the table */
	pthread_mutex_lock(&db->mu);
	s = store_by_id(db, id);
	cf = s ? s->cf : NULL;
	*is_index = s && s->is_index;
	pthread_mutex_unlock(&db->mu);
	return cf;
}

static cf_cfstore *
cfstore_by_id(cf_db *db, uint32_t id)
{
	bool		is_index;

	return store_lookup(db, id, &is_index);
}

/*
 * The definition that governs a store: the CF's own, or for an index's store the
 * definition of the CF it indexes (then *col, if col is not NULL, is the indexed
 * column). NULL when the schema has neither.
 */
static const cf_cf_def *
def_of_store(const cf_schema *schema, uint32_t id, const cf_column_def **col)
{
	const cf_cf_def *def = cf_schema_cf_by_id(schema, id);
	const cf_column_def *c = NULL;

	if (def == NULL)
		c = cf_schema_index_by_id(schema, id, &def);
	if (col)
		*col = c;
	return def;
}

/* The row key's stripe of the key locks. */
static size_t
key_stripe(cf_slice key)
{
	uint32_t	h = 2166136261u;	/* FNV-1a */

	for (size_t i = 0; i < key.len; i++)
		h = (h ^ key.p[i]) * 16777619u;
	return h % KEY_LOCKS;
}

static void
on_flushed(void *arg, uint32_t cf_id, cf_commitlog_pos pos)
{
	cf_db	   *db = arg;
	cf_status  *s;

	if (db->log && (s = cf_commitlog_cf_flushed(db->log, cf_id, pos)) != NULL)
	{
		cf_log_warn(LOG_COMPONENT, "%s", cf_status_msg(s));
		cf_status_free(s);
	}
	if (db->o.background_compaction && cf_id != SCHEMA_CF_ID)
	{
		pthread_mutex_lock(&db->mu);
		{
			store_entry *st = store_by_id(db, cf_id);

			if (st)
				st->needs_compaction = true;
		}
		pthread_cond_signal(&db->maint_cv);
		pthread_mutex_unlock(&db->mu);
	}
}

/* The directory and file name of an index's store: "<cf>.<index id>". */
static void
index_store_name(const cf_cf_def *def, const cf_column_def *col, char *buf, size_t size)
{
	snprintf(buf, size, "%s.%u", def->name, (unsigned) col->index_id);
}

static char *
cf_dir(cf_db *db, const char *keyspace, const char *cf)
{
	size_t		n = strlen(db->data_dir) + strlen(keyspace) + strlen(cf) + 3;
	char	   *p = malloc(n);

	if (p)
		snprintf(p, n, "%s/%s/%s", db->data_dir, keyspace, cf);
	return p;
}

/* The memtable thresholds of a CF: its definition, unless the db overrides them. */
static void
thresholds_of(cf_db *db, const cf_cf_def *def, size_t *bytes, uint64_t *ops, int64_t *age_us)
{
	*bytes = db->o.memtable_max_bytes ? db->o.memtable_max_bytes :
		(size_t) def->memtable_throughput_in_mb << 20;
	*ops = db->o.memtable_max_ops ? db->o.memtable_max_ops :
		(uint64_t) (def->memtable_operations_in_millions * 1e6);
	*age_us = (int64_t) def->memtable_flush_after_mins * 60 * 1000000;
}

static cf_status *
open_cfstore(cf_db *db, const cf_cf_def *def, cf_cfstore **out)
{
	char	   *dir = cf_dir(db, def->keyspace, def->name);
	cf_cfstore_options o = {
		.env = db->o.env,.dir = dir,.name = def->name,.cf_id = def->id,
		.order = cf_cfdef_col_order(def),.on_flushed = on_flushed,.arg = db,
		.block_cache = db->block_cache,
	};
	cf_status  *s;

	if (dir == NULL)
		return cf_status_make(CF_ERR_NO_MEMORY, "opening %s: out of memory", def->name);
	thresholds_of(db, def, &o.memtable_max_bytes, &o.memtable_max_ops, &o.memtable_max_age_us);
	s = cf_cfstore_open(&o, out);
	free(dir);
	return s;
}

/*
 * Opens the store of an index: a Standard CF of BytesType names in
 * <data>/<keyspace>/<cf>.<index id>/, with its CF's memtable thresholds. *built tells
 * whether its build finished (the marker file exists).
 */
static cf_status *
open_index_store(cf_db *db, const cf_cf_def *def, const cf_column_def *col,
				 cf_cfstore **out, bool *built)
{
	char		name[CF_SCHEMA_NAME_MAX + 16];
	char	   *dir;
	char	   *marker = NULL;
	cf_cfstore_options o = {
		.env = db->o.env,.name = name,.cf_id = col->index_id,
		.order = cf_index_col_order(),.on_flushed = on_flushed,.arg = db,
		.block_cache = db->block_cache,
	};
	cf_status  *s;

	index_store_name(def, col, name, sizeof(name));
	if ((dir = cf_dir(db, def->keyspace, name)) == NULL ||
		(marker = cf_path_join(dir, BUILT_MARKER)) == NULL)
	{
		free(dir);
		return cf_status_make(CF_ERR_NO_MEMORY, "opening %s: out of memory", name);
	}
	o.dir = dir;
	thresholds_of(db, def, &o.memtable_max_bytes, &o.memtable_max_ops, &o.memtable_max_age_us);
	s = cf_cfstore_open(&o, out);
	*built = s == NULL && cf_env_exists(db->o.env, marker);
	free(marker);
	free(dir);
	return s;
}

/* Records that an index's build finished, in its store's directory. */
static cf_status *
mark_built(cf_db *db, const cf_cf_def *def, const cf_column_def *col)
{
	char		name[CF_SCHEMA_NAME_MAX + 16];
	char	   *dir;
	char	   *marker = NULL;
	cf_status  *s;

	index_store_name(def, col, name, sizeof(name));
	if ((dir = cf_dir(db, def->keyspace, name)) == NULL ||
		(marker = cf_path_join(dir, BUILT_MARKER)) == NULL)
		s = cf_status_make(CF_ERR_NO_MEMORY, "out of memory");
	else
		s = cf_env_write_file_atomic(db->o.env, marker, "built\n", 6);
	free(marker);
	free(dir);
	return s;
}

/* Room for n more stores, so adding them cannot fail. REQUIRES: mu held (or open). */
static cf_status *
stores_reserve(cf_db *db, size_t n)
{
	store_entry *p = realloc(db->stores, (db->nstores + n + 1) * sizeof(*p));

	if (p == NULL)
		return cf_status_make(CF_ERR_NO_MEMORY, "out of memory");
	db->stores = p;
	return NULL;
}

/* REQUIRES: mu held, room reserved. */
static void
stores_add(cf_db *db, uint32_t id, cf_cfstore *cf, bool is_index, bool built)
{
	db->stores[db->nstores++] = (store_entry) {id, cf, false, is_index, built};
}

/* Removes a store from the table and returns it. REQUIRES: mu held. */
static cf_cfstore *
stores_remove(cf_db *db, uint32_t id)
{
	for (size_t i = 0; i < db->nstores; i++)
	{
		if (db->stores[i].id == id)
		{
			cf_cfstore *cf = db->stores[i].cf;

			db->stores[i] = db->stores[--db->nstores];
			return cf;
		}
	}
	return NULL;
}

/* The schema's CF def and its store; NOT_FOUND naming what is missing. */
static cf_status *
resolve(cf_db *db, const char *keyspace, const char *cf, cf_schema **schema,
		const cf_cf_def **def, cf_cfstore **store_out)
{
	pthread_mutex_lock(&db->mu);
	*schema = db->schema;
	cf_schema_ref(*schema);
	pthread_mutex_unlock(&db->mu);
	if (cf_schema_keyspace(*schema, keyspace) == NULL)
	{
		cf_schema_unref(*schema);
		return cf_status_make(CF_ERR_NOT_FOUND, "keyspace %s does not exist", keyspace);
	}
	if ((*def = cf_schema_cf(*schema, keyspace, cf)) == NULL)
	{
		cf_schema_unref(*schema);
		return cf_status_make(CF_ERR_NOT_FOUND, "column family %s does not exist in "
							  "keyspace %s", cf, keyspace);
	}
	if (store_out && (*store_out = cfstore_by_id(db, (*def)->id)) == NULL)
	{
		cf_schema_unref(*schema);
		return cf_status_make(CF_ERR_INTERNAL, "column family %s.%s has no store",
							  keyspace, cf);
	}
	return NULL;
}

/* ---------------------------------------------------------------- writes */

/* Switches the memtable of one store at the current commit-log position. */
static cf_status *
switch_store(cf_db *db, cf_cfstore *cf)
{
	cf_status  *s;

	pthread_rwlock_wrlock(&db->barrier);
	s = cf_cfstore_switch(cf, cf_commitlog_position(db->log));
	pthread_rwlock_unlock(&db->barrier);
	return s;
}

/* The stores a write touches, each looked up once. */
typedef struct write_store
{
	uint32_t	id;
	cf_cfstore *cf;
	bool		is_index;
} write_store;

static const write_store *
write_store_of(const write_store *st, size_t n, uint32_t id)
{
	for (size_t j = 0; j < n; j++)
		if (st[j].id == id)
			return &st[j];
	return NULL;
}

/*
 * Logs the mutations as one commit-log record (cf_mutation_batch_encode) and applies
 * every CF update of them to its store: index stores place a row by its key, the
 * others by its token. The updates carry resolved CF ids; the caller has validated
 * them. With epoch set, nothing is logged if the db's epoch moved since the caller
 * read it: *stale is set and NULL returned, for the caller to start over. Switches
 * memtables that crossed a threshold.
 *
 * drop_lock (shared) is held throughout: no schema change can close a store between
 * its lookup and its admit, apply or switch. A store already gone is refused before
 * anything is logged.
 */
static cf_status *
write_batch(cf_db *db, const cf_mutation *ms, size_t nm, const unsigned long *epoch,
			bool *stale)
{
	cf_buf		rec = CF_BUF_INIT;
	cf_buf		tokens = CF_BUF_INIT;	/* each mutation's token, one after the other */
	size_t		tok_at[16];
	size_t	   *tok = nm <= 15 ? tok_at : malloc((nm + 1) * sizeof(*tok));
	uint32_t	ids_at[64];
	uint32_t   *ids = ids_at;	/* for the record: each CF once */
	write_store st_at[64];
	write_store *st = st_at;
	size_t		nst = 0;
	size_t		total = 0;
	cf_cfstore *due[64];
	size_t		ndue = 0;
	cf_status  *s = NULL;

	if (stale)
		*stale = false;
	for (size_t i = 0; i < nm; i++)
		total += ms[i].n_cfs;
	if (total > 64)
	{
		ids = malloc(total * sizeof(*ids));
		st = malloc(total * sizeof(*st));
	}
	if (tok == NULL || ids == NULL || st == NULL)
	{
		s = cf_status_make(CF_ERR_NO_MEMORY, "out of memory");
		goto out;
	}
	pthread_rwlock_rdlock(&db->drop_lock);
	for (size_t i = 0; s == NULL && i < nm; i++)
		for (size_t k = 0; s == NULL && k < ms[i].n_cfs; k++)
		{
			uint32_t	id = ms[i].cfs[k].cf_id;

			if (write_store_of(st, nst, id))
				continue;
			st[nst].id = ids[nst] = id;
			st[nst].cf = store_lookup(db, id, &st[nst].is_index);
			if (st[nst].cf == NULL && epoch && atomic_load(&db->epoch) != *epoch)
			{
				*stale = true;	/* dropped since the caller read the schema */
				goto unlock;
			}
			if (st[nst].cf == NULL)
				s = cf_status_make(CF_ERR_NOT_FOUND, "column family %u was dropped", id);
			nst++;
		}
	/*
	 * Tokens before the record is logged (a key the partitioner refuses must not reach
	 * the log); an index's rows need none: their token is their key.
	 */
	for (size_t i = 0; s == NULL && i < nm; i++)
	{
		bool		base = false;

		tok[i] = tokens.len;
		for (size_t k = 0; k < ms[i].n_cfs && !base; k++)
			base = !write_store_of(st, nst, ms[i].cfs[k].cf_id)->is_index;
		if (base)
			s = cf_partitioner_token(db->o.partitioner, ms[i].key, &tokens);
	}
	tok[nm] = tokens.len;
	/* the record is built where it is logged from: room for its header, then the body */
	if (s == NULL)
	{
		(void) cf_buf_reserve(&rec, 256);	/* most records: no growth on the way */
		(void) cf_buf_extend(&rec, cf_commitlog_record_prefix(nst));
		if ((s = cf_buf_status(&rec)) == NULL)
			s = cf_mutation_batch_encode(ms, nm, &rec);
	}
	/* backpressure before the record is logged: a refused write leaves no trace */
	for (size_t j = 0; s == NULL && j < nst; j++)
		s = cf_cfstore_admit(st[j].cf);
	if (s == NULL)
	{
		pthread_rwlock_rdlock(&db->barrier);
		if (epoch && atomic_load(&db->epoch) != *epoch)
		{
			pthread_rwlock_unlock(&db->barrier);
			*stale = true;
			goto unlock;
		}
		s = cf_commitlog_append_framed(db->log, ids, nst, rec.data, rec.len, NULL);
		for (size_t i = 0; s == NULL && i < nm; i++)
		{
			for (size_t k = 0; s == NULL && k < ms[i].n_cfs; k++)
			{
				const cf_cf_update *u = &ms[i].cfs[k];
				const write_store *w = write_store_of(st, nst, u->cf_id);
				bool		switch_due = false;
				cf_slice	t = w->is_index ? ms[i].key :
					cf_slice_of(tokens.data + tok[i], tok[i + 1] - tok[i]);

				s = cf_cfstore_apply(w->cf, t, ms[i].key, u, &switch_due);
				if (s == NULL && switch_due && ndue < 64)
				{
					size_t		j = 0;

					while (j < ndue && due[j] != w->cf)
						j++;
					if (j == ndue)
						due[ndue++] = w->cf;
				}
			}
		}
		pthread_rwlock_unlock(&db->barrier);
	}
	for (size_t i = 0; s == NULL && i < ndue; i++)
		s = switch_store(db, due[i]);
unlock:
	pthread_rwlock_unlock(&db->drop_lock);
out:
	if (ids != ids_at)
		free(ids);
	if (st != st_at)
		free(st);
	if (tok != tok_at)
		free(tok);
	cf_buf_free(&rec);
	cf_buf_free(&tokens);
	return s;
}

/* One row mutation, logged and applied with no epoch check (the db's own writes). */
static cf_status *
write_mutation(cf_db *db, cf_slice key, cf_cf_update *ups, size_t n)
{
	cf_mutation m = {.key = key,.cfs = ups,.n_cfs = n};

	return write_batch(db, &m, 1, NULL, NULL);
}

/*
 * A row mutation touching CFs with indexes: under the row key's lock, reads the
 * indexed columns it changes (cf_index_plan_write) and logs the base mutation and the
 * index changes as one record.
 */
static cf_status *
write_indexed(cf_db *db, cf_slice key, cf_cf_update *ups, const cf_cf_def **defs,
			  size_t n, unsigned long epoch, bool *stale)
{
	pthread_mutex_t *lock = &db->key_locks[key_stripe(key)];
	cf_buf		token = CF_BUF_INIT;
	cf_index_plan plan;
	cf_mutation *ms = NULL;
	cf_status  *s;

	*stale = false;
	cf_index_plan_init(&plan);
	pthread_mutex_lock(lock);
	s = cf_partitioner_token(db->o.partitioner, key, &token);
	for (size_t i = 0; s == NULL && i < n; i++)
	{
		cf_cfstore *cf;
		cf_table_set v;

		if (!cf_index_cf_has_indexes(defs[i]))
			continue;
		pthread_rwlock_rdlock(&db->drop_lock);
		if ((cf = cfstore_by_id(db, ups[i].cf_id)) == NULL)
			*stale = true;		/* dropped since the schema was read */
		else
			s = cf_cfstore_view_get(cf, &v);
		pthread_rwlock_unlock(&db->drop_lock);
		if (*stale)
			break;
		if (s == NULL)
		{
			s = cf_index_plan_write(&plan, defs[i], &v, db->o.partitioner,
									cf_slice_of(token.data, token.len), key, &ups[i],
									now_sec(db));
			cf_cfstore_view_release(&v);
		}
	}
	if (s == NULL && !*stale && (ms = calloc(plan.n_muts + 1, sizeof(*ms))) == NULL)
		s = cf_status_make(CF_ERR_NO_MEMORY, "out of memory");
	if (s == NULL && !*stale)
	{
		ms[0] = (cf_mutation) {.key = key,.cfs = ups,.n_cfs = n};
		if (plan.n_muts)
			memcpy(ms + 1, plan.muts, plan.n_muts * sizeof(*ms));
		s = write_batch(db, ms, plan.n_muts + 1, &epoch, stale);
	}
	pthread_mutex_unlock(lock);
	free(ms);
	cf_index_plan_free(&plan);
	cf_buf_free(&token);
	return s;
}

cf_status *
cf_db_apply(cf_db *db, const char *keyspace, cf_slice key, const cf_db_update *updates,
			size_t n)
{
	cf_cf_update ups_at[4];
	const cf_cf_def *defs_at[4];
	cf_cf_update *ups = ups_at;
	const cf_cf_def **defs = defs_at;
	cf_status  *s = NULL;
	int32_t		now = now_sec(db);
	bool		stale = true;

	if (key.len == 0)
		return cf_status_make(CF_ERR_INVALID, "key may not be empty");
	if (key.len > CF_KEY_MAX)
		return cf_status_make(CF_ERR_INVALID, "key is %zu bytes; the limit is %d",
							  key.len, CF_KEY_MAX);
	if (strcmp(keyspace, SYSTEM_KS) == 0)
		return cf_status_make(CF_ERR_INVALID, "the system keyspace is not writable");
	if (n == 0)
		return NULL;
	/* a row mutation names a CF or two: no allocation for those */
	if (n > sizeof(ups_at) / sizeof(ups_at[0]))
	{
		ups = calloc(n, sizeof(*ups));
		defs = calloc(n, sizeof(*defs));
		if (ups == NULL || defs == NULL)
		{
			free(ups);
			free(defs);
			return cf_status_make(CF_ERR_NO_MEMORY, "out of memory");
		}
	}
	else
	{
		memset(ups_at, 0, sizeof(ups_at));
		memset(defs_at, 0, sizeof(defs_at));
	}

	/* starts over when a schema change or a truncation slips in before it is logged */
	while (s == NULL && stale)
	{
		unsigned long epoch = atomic_load(&db->epoch);
		cf_schema  *schema = cf_db_schema(db);
		bool		indexed = false;

		if (cf_schema_keyspace(schema, keyspace) == NULL)
			s = cf_status_make(CF_ERR_NOT_FOUND, "keyspace %s does not exist", keyspace);
		for (size_t i = 0; s == NULL && i < n; i++)
		{
			const cf_cf_def *def = cf_schema_cf(schema, keyspace, updates[i].cf);

			if (def == NULL)
				s = cf_status_make(CF_ERR_NOT_FOUND, "column family %s does not exist in "
								   "keyspace %s", updates[i].cf, keyspace);
			else if ((s = cf_cfdef_validate_update(def, &updates[i].u, now)) == NULL)
			{
				ups[i] = updates[i].u;
				ups[i].cf_id = def->id;
				defs[i] = def;
				indexed |= cf_index_cf_has_indexes(def);
			}
		}
		for (size_t i = 0; s == NULL && i < n; i++)
			for (size_t k = 0; k < i; k++)
				if (ups[k].cf_id == ups[i].cf_id)
					s = cf_status_make(CF_ERR_INVALID, "column family %s appears twice in one "
									   "row mutation; merge its changes", updates[i].cf);
		if (s == NULL && indexed)
			s = write_indexed(db, key, ups, defs, n, epoch, &stale);
		else if (s == NULL)
		{
			cf_mutation m = {.key = key,.cfs = ups,.n_cfs = n};

			s = write_batch(db, &m, 1, &epoch, &stale);
		}
		cf_schema_unref(schema);
	}
	if (ups != ups_at)
	{
		free(ups);
		free(defs);
	}
	return s;
}

cf_partitioner
cf_db_partitioner(cf_db *db)
{
	return db->o.partitioner;
}

cf_status *
cf_db_token(cf_db *db, cf_slice key, cf_buf *out)
{
	return cf_partitioner_token(db->o.partitioner, key, out);
}

/* ---------------------------------------------------------------- the schema */

/*
 * Rewrites the rows of system.Schema for the schema `next` (one per keyspace, the
 * dropped keyspace's row deleted, and "~meta") and flushes them: the change is then
 * durable. Every keyspace is rewritten: schemas are small and change rarely.
 */
static cf_status *
schema_persist(cf_db *db, const cf_schema *next, const char *dropped_ks)
{
	cf_buf		def = CF_BUF_INIT;
	uint8_t		next_id[4];
	char		part[64];
	cf_cell		cells[2];
	cf_cf_update u = {.cf_id = SCHEMA_CF_ID,.row_del = cf_deletion_none()};
	int64_t		ts = cf_env_now_micros(db->o.env);
	cf_status  *s = NULL;

	for (size_t i = 0; s == NULL && i < cf_schema_n_keyspaces(next); i++)
	{
		const cf_ks_def *ks = cf_schema_keyspace_at(next, i);

		cf_buf_reset(&def);
		if ((s = cf_ksdef_encode(ks, &def)) != NULL)
			break;
		cells[0] = (cf_cell) {.name = cf_slice_str("def"),
		.value = cf_slice_of(def.data, def.len),.timestamp = ts};
		u.cells = cells;
		u.n_cells = 1;
		u.row_del = cf_deletion_none();
		s = write_mutation(db, cf_slice_str(ks->name), &u, 1);
	}
	if (s == NULL && dropped_ks)
	{
		u.cells = NULL;
		u.n_cells = 0;
		u.row_del = (cf_deletion) {ts, now_sec(db)};
		s = write_mutation(db, cf_slice_str(dropped_ks), &u, 1);
	}
	if (s == NULL)
	{
		cf_store_be32(next_id, cf_schema_next_cf_id(next));
		snprintf(part, sizeof(part), "%s", cf_partitioner_class(db->o.partitioner));
		cells[0] = (cf_cell) {.name = cf_slice_str("next_cf_id"),
		.value = cf_slice_of(next_id, 4),.timestamp = ts};
		cells[1] = (cf_cell) {.name = cf_slice_str("partitioner"),
		.value = cf_slice_str(part),.timestamp = ts};
		u.cells = cells;
		u.n_cells = 2;
		u.row_del = cf_deletion_none();
		s = write_mutation(db, cf_slice_str(META_KEY), &u, 1);
	}
	if (s == NULL)
		s = switch_store(db, db->system);
	if (s == NULL)
		s = cf_cfstore_wait_flushed(db->system);
	cf_buf_free(&def);
	return cf_status_wrap(s, "saving the schema");
}

/*
 * Reads the schema from system.Schema (its SSTables; see db.h). *repersist is set
 * when building it assigned ids the stored schema lacks (indexes declared before
 * indexes had ids), so it must be saved again.
 */
static cf_status *
schema_load(cf_db *db, cf_schema **out, bool *repersist)
{
	cf_table_set v;
	cf_key_range all = {.count = INT32_MAX};
	cf_predicate pred = {.range = {.count = 16}};
	cf_read_rows *rows = NULL;
	cf_ks_def  *kss = NULL;
	size_t		nks = 0;
	uint32_t	next_id = 1;
	cf_status  *s;

	*out = NULL;
	if ((s = cf_cfstore_view_get(db->system, &v)) != NULL)
		return s;
	s = cf_read_range(&v, &all, cf_slice_of(NULL, 0), &pred, now_sec(db), &rows);
	if (s == NULL && (kss = calloc(rows->n_rows + 1, sizeof(*kss))) == NULL)
		s = cf_status_make(CF_ERR_NO_MEMORY, "out of memory");
	for (size_t i = 0; s == NULL && i < rows->n_rows; i++)
	{
		const cf_read_row *r = &rows->rows[i];

		for (size_t c = 0; s == NULL && c < r->slice.n_columns; c++)
		{
			const cf_read_column *col = &r->slice.columns[c];

			if (cf_slice_eq(col->name, cf_slice_str("def")))
			{
				if ((s = cf_ksdef_decode(col->value, &kss[nks])) == NULL)
					nks++;
			}
			else if (cf_slice_eq(col->name, cf_slice_str("next_cf_id")) && col->value.len == 4)
				next_id = cf_load_be32(col->value.p);
			else if (cf_slice_eq(col->name, cf_slice_str("partitioner")) &&
					 !cf_slice_eq(col->value, cf_slice_str(cf_partitioner_class(db->o.partitioner))))
				s = cf_status_make(CF_ERR_INVALID, "the data in %s was written with the "
								   "partitioner %.*s, not %s; configure that partitioner "
								   "(a partitioner cannot be changed on existing data)",
								   db->data_dir, (int) col->value.len, col->value.p,
								   cf_partitioner_class(db->o.partitioner));
		}
	}
	if (s == NULL)
		s = cf_schema_build(kss, nks, next_id, NULL, out);
	*repersist = s == NULL && cf_schema_next_cf_id(*out) != next_id;
	for (size_t i = 0; i < nks; i++)
		cf_ksdef_clear(&kss[i]);
	free(kss);
	cf_read_rows_free(rows);
	cf_cfstore_view_release(&v);
	return cf_status_wrap(s, "loading the schema from %s/%s/%s", db->data_dir, SYSTEM_KS,
						  SCHEMA_CF);
}

/* Removes dir and everything under it (a few levels); the first error is returned. */
static cf_status *
remove_tree(cf_env *env, const char *dir, int depth);

typedef struct tree_ctx
{
	cf_env	   *env;
	const char *dir;
	int			depth;
	cf_status  *s;
} tree_ctx;

static bool
remove_entry(void *arg, const char *name)
{
	tree_ctx   *t = arg;
	char	   *path;
	cf_status  *s;

	if (strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
		return true;
	if ((path = cf_path_join(t->dir, name)) == NULL)
	{
		t->s = cf_status_make(CF_ERR_NO_MEMORY, "out of memory");
		return false;
	}
	if ((s = cf_env_remove(t->env, path)) != NULL)
	{
		/* not a file: a directory (snapshots/...) */
		cf_status_free(s);
		s = t->depth > 0 ? remove_tree(t->env, path, t->depth - 1) :
			cf_status_make(CF_ERR_IO, "%s: nested too deep to remove", path);
		if (s && t->s == NULL)
			t->s = s;
		else
			cf_status_free(s);
	}
	free(path);
	return true;
}

static cf_status *
remove_tree(cf_env *env, const char *dir, int depth)
{
	tree_ctx	t = {env, dir, depth, NULL};
	cf_status  *s = cf_env_list_dir(env, dir, remove_entry, &t);

	if (s == NULL)
		s = t.s;
	else
		cf_status_free(t.s);
	if (s == NULL)
		s = cf_env_remove_dir(env, dir);
	return s;
}

/*
 * The automatic snapshot "<prefix>-<µs>" of cf (dropped-, truncated-), taken under
 * snap_mu like any other.
 */
static cf_status *
auto_snapshot(cf_db *db, cf_cfstore *cf, const char *prefix)
{
	char		snap[64];
	cf_status  *s;

	snprintf(snap, sizeof(snap), "%s-%" PRId64, prefix, cf_env_now_micros(db->o.env));
	pthread_mutex_lock(&db->snap_mu);
	s = cf_cfstore_snapshot(cf, snap);
	pthread_mutex_unlock(&db->snap_mu);
	return s;
}

/*
 * Flushes, snapshots, empties and closes the store of a dropped CF; problems are
 * logged. It is out of the store table already, so no write reaches it and its switch
 * needs no barrier. The flush matters: the snapshot links SSTables only, and replay
 * skips a dropped CF's records, so unflushed rows would otherwise be gone.
 *
 * An index's store (index_dir set) holds only what its CF's rows imply: it is closed
 * without a flush or a snapshot and its directory removed (its commit-log records are
 * skipped by replay like any dropped CF's).
 */
static void
retire_store(cf_db *db, cf_cfstore *cf, const char *index_dir)
{
	cf_status  *s = NULL;

	if (index_dir)
	{
		s = cf_cfstore_truncate(cf, cf_commitlog_position(db->log));
		if (s == NULL)
			s = cf_cfstore_close(cf);
		else
			cf_status_free(cf_cfstore_close(cf));
		if (s == NULL)
			s = remove_tree(db->o.env, index_dir, 3);
		if (s)
		{
			cf_log_warn(LOG_COMPONENT, "removing a dropped index: %s", cf_status_msg(s));
			cf_status_free(s);
		}
		return;
	}
	s = cf_cfstore_switch(cf, cf_commitlog_position(db->log));
	if (s == NULL)
		s = cf_cfstore_wait_flushed(cf);
	if (s == NULL)
		s = auto_snapshot(db, cf, "dropped");
	if (s == NULL)
		s = cf_cfstore_truncate(cf, cf_commitlog_position(db->log));
	if (s == NULL)
		s = cf_cfstore_close(cf);
	else
		cf_status_free(cf_cfstore_close(cf));
	if (s)
	{
		cf_log_warn(LOG_COMPONENT, "removing a dropped column family: %s", cf_status_msg(s));
		cf_status_free(s);
	}
}

static void start_build(cf_db *db, uint32_t index_id);

/* A store opened for a schema being installed. */
typedef struct fresh_store
{
	uint32_t	id;
	cf_cfstore *cf;
	bool		is_index;
	bool		built;
	uint32_t	base_id;		/* index: its CF's id */
} fresh_store;

/* A store a schema change takes away. */
typedef struct gone_store
{
	cf_cfstore *cf;
	char	   *index_dir;		/* an index's: its directory, removed; else NULL */
} gone_store;

static bool
is_fresh(const fresh_store *fresh, size_t n, uint32_t id)
{
	for (size_t i = 0; i < n; i++)
		if (fresh[i].id == id)
			return true;
	return false;
}

/*
 * Installs a new schema: opens the stores of new CFs and indexes, persists the schema,
 * publishes it with the new stores and every CF's (possibly updated) memtable
 * thresholds, then snapshots and removes the stores of dropped CFs, removes those of
 * dropped indexes, and starts building the new indexes of existing CFs (an index of a
 * new CF is complete from the start). Nothing after the persist can fail, so a schema
 * on disk always has its stores. Takes ownership of next.
 * REQUIRES: schema_mu held.
 */
static cf_status *
schema_install(cf_db *db, cf_schema *next, const char *dropped_ks)
{
	fresh_store *fresh = NULL;
	size_t		nfresh = 0;
	size_t		nstores = 0;
	gone_store *gone = NULL;
	size_t		ngone = 0;
	cf_schema  *old;
	cf_status  *s = NULL;

	for (size_t i = 0; i < cf_schema_n_keyspaces(next); i++)
	{
		const cf_ks_def *ks = cf_schema_keyspace_at(next, i);

		nstores += ks->n_cfs;
		for (size_t c = 0; c < ks->n_cfs; c++)
			for (size_t k = 0; k < ks->cfs[c].n_columns; k++)
				nstores += ks->cfs[c].column_metadata[k].indexed;
	}
	pthread_mutex_lock(&db->mu);
	fresh = calloc(nstores + 1, sizeof(*fresh));
	gone = calloc(db->nstores + 1, sizeof(*gone));
	if (!fresh || !gone)
		s = cf_status_make(CF_ERR_NO_MEMORY, "out of memory");
	else
		s = stores_reserve(db, nstores);
	pthread_mutex_unlock(&db->mu);

	/* 1. the stores of CFs and indexes that are new */
	for (size_t i = 0; s == NULL && i < cf_schema_n_keyspaces(next); i++)
	{
		const cf_ks_def *ks = cf_schema_keyspace_at(next, i);

		for (size_t c = 0; s == NULL && c < ks->n_cfs; c++)
		{
			const cf_cf_def *def = &ks->cfs[c];

			if (cfstore_by_id(db, def->id) == NULL &&
				(s = open_cfstore(db, def, &fresh[nfresh].cf)) == NULL)
				fresh[nfresh++].id = def->id;
			for (size_t k = 0; s == NULL && k < def->n_columns; k++)
			{
				const cf_column_def *col = &def->column_metadata[k];
				fresh_store *f = &fresh[nfresh];

				if (!col->indexed || cfstore_by_id(db, col->index_id))
					continue;
				if ((s = open_index_store(db, def, col, &f->cf, &f->built)) == NULL)
				{
					f->id = col->index_id;
					f->is_index = true;
					f->base_id = def->id;
					nfresh++;
				}
			}
		}
	}
	/* 2. durable */
	if (s == NULL)
		s = schema_persist(db, next, dropped_ks);
	if (s != NULL)
	{
		for (size_t i = 0; i < nfresh; i++)
			cf_status_free(cf_cfstore_close(fresh[i].cf));
		free(fresh);
		free(gone);
		cf_schema_unref(next);
		return s;
	}
	/* an index of a CF created with it has nothing to build */
	for (size_t i = 0; i < nfresh; i++)
	{
		const cf_column_def *col;
		const cf_cf_def *def;

		if (!fresh[i].is_index || fresh[i].built || !is_fresh(fresh, nfresh, fresh[i].base_id))
			continue;
		fresh[i].built = true;
		col = cf_schema_index_by_id(next, fresh[i].id, &def);
		if ((s = mark_built(db, def, col)) != NULL)
		{
			/* only costs a rebuild (of nothing much) at the next open */
			cf_log_warn(LOG_COMPONENT, "recording that index %u is complete: %s",
						(unsigned) fresh[i].id, cf_status_msg(s));
			cf_status_free(s);
			s = NULL;
		}
	}

	/* 3. published; no compaction or write may be working on a store we take away */
	atomic_store(&db->cancel_compaction, 1);
	pthread_rwlock_wrlock(&db->drop_lock);
	atomic_store(&db->cancel_compaction, 0);
	pthread_rwlock_wrlock(&db->barrier);
	pthread_mutex_lock(&db->mu);
	old = db->schema;
	db->schema = next;
	atomic_fetch_add(&db->epoch, 1);
	for (size_t i = 0; i < nfresh; i++)
		stores_add(db, fresh[i].id, fresh[i].cf, fresh[i].is_index, fresh[i].built);
	for (size_t i = 0; i < db->nstores;)
	{
		const cf_cf_def *def = def_of_store(next, db->stores[i].id, NULL);
		size_t		bytes;
		uint64_t	ops;
		int64_t		age;

		if (def == NULL)
		{
			const cf_column_def *col;
			const cf_cf_def *odef = def_of_store(old, db->stores[i].id, &col);
			char		name[CF_SCHEMA_NAME_MAX + 16];

			gone[ngone].index_dir = NULL;
			if (db->stores[i].is_index && odef && col)
			{
				index_store_name(odef, col, name, sizeof(name));
				gone[ngone].index_dir = cf_dir(db, odef->keyspace, name);
			}
			gone[ngone++].cf = stores_remove(db, db->stores[i].id);
			continue;
		}
		thresholds_of(db, def, &bytes, &ops, &age);
		cf_cfstore_set_thresholds(db->stores[i].cf, bytes, ops, age);
		i++;
	}
	pthread_mutex_unlock(&db->mu);
	pthread_rwlock_unlock(&db->barrier);
	pthread_rwlock_unlock(&db->drop_lock);
	cf_schema_unref(old);

	/* 4. the dropped, and the new indexes of existing rows */
	for (size_t i = 0; i < ngone; i++)
	{
		retire_store(db, gone[i].cf, gone[i].index_dir);
		free(gone[i].index_dir);
	}
	for (size_t i = 0; i < nfresh; i++)
		if (fresh[i].is_index && !fresh[i].built)
			start_build(db, fresh[i].id);
	free(fresh);
	free(gone);
	return NULL;
}

cf_schema *
cf_db_schema(cf_db *db)
{
	cf_schema  *s;

	pthread_mutex_lock(&db->mu);
	s = db->schema;
	cf_schema_ref(s);
	pthread_mutex_unlock(&db->mu);
	return s;
}

typedef enum schema_op
{
	ADD_KS, DROP_KS, UPDATE_KS, ADD_CF, DROP_CF, UPDATE_CF,
} schema_op;

typedef struct schema_change
{
	schema_op	op;
	const cf_ks_def *ks;
	const cf_cf_def *cf;
	const char *keyspace;		/* DROP_KS, DROP_CF */
	const char *cf_name;		/* DROP_CF */
} schema_change;

/* The next schema after one change, computed from cur (never modified). */
static cf_status *
schema_next(const cf_schema *cur, const schema_change *c, cf_schema **out)
{
	switch (c->op)
	{
		case ADD_KS:
			return cf_schema_add_keyspace(cur, c->ks, 0, out);
		case DROP_KS:
			return cf_schema_drop_keyspace(cur, c->keyspace, 0, out);
		case UPDATE_KS:
			return cf_schema_update_keyspace(cur, c->ks, 0, out);
		case ADD_CF:
			return cf_schema_add_cf(cur, c->cf, 0, out);
		case DROP_CF:
			return cf_schema_drop_cf(cur, c->keyspace, c->cf_name, 0, out);
		case UPDATE_CF:
			return cf_schema_update_cf(cur, c->cf, 0, out);
	}
	return cf_status_make(CF_ERR_INTERNAL, "unknown schema change %d", (int) c->op);
}

static cf_status *
change_schema(cf_db *db, const schema_change *c)
{
	cf_schema  *cur;
	cf_schema  *next = NULL;
	cf_status  *s;

	pthread_mutex_lock(&db->schema_mu);
	cur = cf_db_schema(db);
	s = schema_next(cur, c, &next);
	cf_schema_unref(cur);
	if (s == NULL)
		s = schema_install(db, next, c->op == DROP_KS ? c->keyspace : NULL);
	pthread_mutex_unlock(&db->schema_mu);
	return s;
}

cf_status *
cf_db_add_keyspace(cf_db *db, const cf_ks_def *ks)
{
	return change_schema(db, &(schema_change) {.op = ADD_KS,.ks = ks});
}

cf_status *
cf_db_drop_keyspace(cf_db *db, const char *keyspace)
{
	return change_schema(db, &(schema_change) {.op = DROP_KS,.keyspace = keyspace});
}

cf_status *
cf_db_update_keyspace(cf_db *db, const cf_ks_def *ks)
{
	return change_schema(db, &(schema_change) {.op = UPDATE_KS,.ks = ks});
}

cf_status *
cf_db_add_cf(cf_db *db, const cf_cf_def *cf)
{
	return change_schema(db, &(schema_change) {.op = ADD_CF,.cf = cf});
}

cf_status *
cf_db_drop_cf(cf_db *db, const char *keyspace, const char *cf)
{
	return change_schema(db, &(schema_change) {.op = DROP_CF,.keyspace = keyspace,
	.cf_name = cf});
}

cf_status *
cf_db_update_cf(cf_db *db, const cf_cf_def *cf)
{
	return change_schema(db, &(schema_change) {.op = UPDATE_CF,.cf = cf});
}

/* ---------------------------------------------------------------- compaction */

typedef struct purge_ctx
{
	const cf_table_set *v;
	cf_sstable *const *inputs;
	size_t		n;
} purge_ctx;

/* Could a table outside the compaction hold older data of the row? */
static bool
may_exist_elsewhere(void *arg, cf_slice token, cf_slice key)
{
	const purge_ctx *p = arg;

	for (size_t i = 0; i < p->v->n_memtables; i++)
	{
		cf_cell_source *src = NULL;
		cf_status  *s = cf_cell_source_memtable(p->v->memtables[i], token, key, &src);

		if (s || src)
		{
			cf_status_free(s);
			if (src)
				src->ops->free(src);
			return true;
		}
	}
	for (size_t i = 0; i < p->v->n_sstables; i++)
	{
		bool		input = false;

		for (size_t k = 0; k < p->n && !input; k++)
			input = p->inputs[k] == p->v->sstables[i];
		if (!input && cf_sstable_may_contain(p->v->sstables[i], key))
			return true;
	}
	return false;
}

static cf_status *
compact_store(cf_db *db, cf_cfstore *cf, const cf_cf_def *def, bool major)
{
	cf_table_set v;
	uint64_t   *sizes = NULL;
	size_t	   *chosen = NULL;
	size_t		nchosen = 0;
	cf_sstable **inputs = NULL;
	cf_compaction_stats st;
	cf_sstable *out = NULL;
	char	   *path = NULL;
	cf_status  *s;

	pthread_mutex_lock(&db->compact_mu);
	if ((s = cf_cfstore_view_get(cf, &v)) != NULL)
	{
		pthread_mutex_unlock(&db->compact_mu);
		return s;
	}
	if (v.n_sstables < 2)
		goto done;
	sizes = calloc(v.n_sstables, sizeof(*sizes));
	chosen = calloc(v.n_sstables, sizeof(*chosen));
	inputs = calloc(v.n_sstables, sizeof(*inputs));
	if (!sizes || !chosen || !inputs)
	{
		s = cf_status_make(CF_ERR_NO_MEMORY, "out of memory");
		goto done;
	}
	for (size_t i = 0; i < v.n_sstables; i++)
		sizes[i] = cf_sstable_get_stats(v.sstables[i])->file_bytes;
	if (major)
	{
		for (size_t i = 0; i < v.n_sstables; i++)
			chosen[i] = i;
		nchosen = v.n_sstables;
	}
	else
		cf_compaction_pick(sizes, v.n_sstables, def->min_compaction_threshold,
						   def->max_compaction_threshold, chosen, &nchosen);
	if (nchosen < 2)
		goto done;
	for (size_t i = 0; i < nchosen; i++)
		inputs[i] = v.sstables[chosen[i]];
	{
		purge_ctx	p = {&v, inputs, nchosen};
		cf_compaction_options o = {
			.sstable = {.order = v.order},
			.gc_before = now_sec(db) - def->gc_grace_seconds,
			.may_exist_elsewhere = may_exist_elsewhere,.may_exist_arg = &p,
			.cancel = &db->cancel_compaction,
		};

		if ((path = cf_cfstore_new_sstable_path(cf)) == NULL)
			s = cf_status_make(CF_ERR_NO_MEMORY, "out of memory");
		if (s == NULL)
			s = cf_compaction_run(db->o.env, inputs, nchosen, path, &o, &st);
		if (s == NULL && st.rows_out > 0)
			s = cf_sstable_open_cached(db->o.env, path, &v.order, db->block_cache, &out);
		if (s == NULL)
			s = cf_cfstore_replace(cf, inputs, nchosen, out);
		if (s == NULL)
			cf_log_info(LOG_COMPONENT, "%s.%s: compacted %zu sstables (%" PRIu64
						" bytes) into %" PRIu64 " bytes, %" PRIu64 " rows, in %" PRId64 " ms",
						def->keyspace, def->name, nchosen, st.bytes_in, st.bytes_out,
						st.rows_out, st.elapsed_us / 1000);
		else if (out == NULL && path && cf_env_exists(db->o.env, path))
			cf_status_free(cf_env_remove(db->o.env, path));
	}
done:
	if (out)
		cf_sstable_unref(out);
	free(path);
	free(sizes);
	free(chosen);
	free(inputs);
	cf_cfstore_view_release(&v);
	pthread_mutex_unlock(&db->compact_mu);
	return s;
}

/* Switches every store whose memtable is past its age (or another) threshold. */
static void
switch_due_stores(cf_db *db)
{
	uint32_t   *ids;
	size_t		n = 0;

	pthread_mutex_lock(&db->mu);
	ids = malloc((db->nstores + 1) * sizeof(*ids));
	for (size_t i = 0; ids && i < db->nstores; i++)
		if (cf_cfstore_switch_due(db->stores[i].cf))
			ids[n++] = db->stores[i].id;
	if (ids && cf_cfstore_switch_due(db->system))
		ids[n++] = SCHEMA_CF_ID;
	pthread_mutex_unlock(&db->mu);

	/* drop_lock keeps a drop from closing a store between lookup and switch */
	pthread_rwlock_rdlock(&db->drop_lock);
	for (size_t i = 0; i < n; i++)
	{
		cf_cfstore *cf = cfstore_by_id(db, ids[i]);
		cf_status  *s = cf ? switch_store(db, cf) : NULL;

		if (s)
		{
			cf_log_error(LOG_COMPONENT, "switching a memtable: %s", cf_status_msg(s));
			cf_status_free(s);
		}
	}
	pthread_rwlock_unlock(&db->drop_lock);
	free(ids);
}

/*
 * The db's background thread: once a second it switches memtables past their age
 * threshold (a quiet CF would otherwise keep its commit-log segments forever), and
 * after flushes it runs size-tiered compaction when that is enabled.
 */
static void *
maintenance_main(void *arg)
{
	cf_db	   *db = arg;

	pthread_mutex_lock(&db->mu);
	while (!db->stopping)
	{
		store_entry *todo = NULL;
		struct timespec until;

		for (size_t i = 0; i < db->nstores && !todo; i++)
			if (db->stores[i].needs_compaction)
				todo = &db->stores[i];
		if (todo)
		{
			uint32_t	id = todo->id;
			cf_cfstore *cf = todo->cf;
			cf_schema  *schema = db->schema;
			const cf_cf_def *def;
			cf_status  *s = NULL;

			todo->needs_compaction = false;
			cf_schema_ref(schema);
			pthread_mutex_unlock(&db->mu);
			/* drop_lock (shared) keeps a drop from closing the store under us */
			pthread_rwlock_rdlock(&db->drop_lock);
			if ((def = def_of_store(schema, id, NULL)) != NULL && cfstore_by_id(db, id) == cf)
				s = compact_store(db, cf, def, false);
			pthread_rwlock_unlock(&db->drop_lock);
			if (s && cf_status_code(s) != CF_ERR_CANCELLED)
				cf_log_error(LOG_COMPONENT, "background compaction: %s", cf_status_msg(s));
			cf_status_free(s);
			cf_schema_unref(schema);
			pthread_mutex_lock(&db->mu);
			continue;
		}
		pthread_mutex_unlock(&db->mu);
		switch_due_stores(db);
		pthread_mutex_lock(&db->mu);
		if (db->stopping)
			break;
		clock_gettime(CLOCK_MONOTONIC, &until);
		until.tv_sec += 1;
		pthread_cond_timedwait(&db->maint_cv, &db->mu, &until);
	}
	pthread_mutex_unlock(&db->mu);
	return NULL;
}

/* ---------------------------------------------------------------- index builds */

/*
 * Indexes one batch of base rows: the mirror of each row's current value, logged as
 * one record. It takes no key lock: a mirror reconciles by timestamp, so a write that
 * overtakes the build's read of a row leaves the index right in either order (its
 * tombstone, if any, is at least as new as the mirror). *redo when the epoch moved (a
 * schema change or a truncation) or the CF is gone: the caller looks again.
 */
static cf_status *
build_batch(cf_db *db, const cf_cf_def *def, const cf_column_def *col,
			const cf_read_rows *rows, bool *redo)
{
	unsigned long epoch = atomic_load(&db->epoch);
	cf_index_plan plan;
	cf_cfstore *base;
	cf_table_set v;
	cf_status  *s = NULL;

	*redo = false;
	cf_index_plan_init(&plan);
	pthread_rwlock_rdlock(&db->drop_lock);
	if ((base = cfstore_by_id(db, def->id)) == NULL)
		*redo = true;
	else
		s = cf_cfstore_view_get(base, &v);
	pthread_rwlock_unlock(&db->drop_lock);
	if (base && s == NULL)
	{
		for (size_t i = 0; s == NULL && i < rows->n_rows; i++)
			if (rows->rows[i].slice.n_columns > 0)
				s = cf_index_plan_mirror(&plan, def, col, &v, db->o.partitioner,
										 rows->rows[i].token, rows->rows[i].key);
		cf_cfstore_view_release(&v);
	}
	if (s == NULL && !*redo && plan.n_muts > 0)
		s = write_batch(db, plan.muts, plan.n_muts, &epoch, redo);
	cf_index_plan_free(&plan);
	return s;
}

/* One page of a CF's rows with the live value of one column, after a cursor. */
static cf_status *
build_page(cf_db *db, const cf_cf_def *def, const cf_column_def *col,
		   const cf_read_cursor *after, cf_read_rows **rows)
{
	cf_slice	name = cf_slice_of(col->name, col->name_len);
	cf_predicate pred = {.by_names = true,.names = &name,.n_names = 1};
	cf_key_range kr = {.count = BUILD_BATCH,.after = after};
	cf_table_set v;
	cf_status  *s;

	*rows = NULL;
	if ((s = cf_db_view(db, def->keyspace, def->name, &v)) != NULL)
		return s;
	s = cf_read_range(&v, &kr, cf_slice_of(NULL, 0), &pred, now_sec(db), rows);
	cf_cfstore_view_release(&v);
	return s;
}

/*
 * The end of a build: flushes the index (so every mirror it wrote is in an SSTable,
 * whatever the commit log's sync mode), records that it is complete, and lets
 * queries use it.
 */
static cf_status *
finish_build(cf_db *db, const cf_cf_def *def, const cf_column_def *col)
{
	cf_cfstore *store;
	cf_status  *s = NULL;

	pthread_rwlock_rdlock(&db->drop_lock);
	if ((store = cfstore_by_id(db, col->index_id)) == NULL)
		s = cf_status_make(CF_ERR_CANCELLED, "index %u was dropped", (unsigned) col->index_id);
	if (s == NULL && (s = switch_store(db, store)) == NULL)
		s = cf_cfstore_wait_flushed(store);
	if (s == NULL)
		s = mark_built(db, def, col);
	if (s == NULL)
	{
		store_entry *e;

		pthread_mutex_lock(&db->mu);
		if ((e = store_by_id(db, col->index_id)) != NULL)
			e->built = true;
		pthread_mutex_unlock(&db->mu);
	}
	pthread_rwlock_unlock(&db->drop_lock);
	return s;
}

/*
 * Builds the index index_id over every existing row of its CF, page by page in token
 * order; writes that land meanwhile maintain it themselves (their schema has it).
 * CF_ERR_CANCELLED when the db stops or the index or its CF is dropped meanwhile.
 */
static cf_status *
build_index(cf_db *db, uint32_t index_id)
{
	cf_buf		cursor = CF_BUF_INIT;
	cf_read_cursor after = {0};
	bool		has_after = false;
	uint64_t	rows_seen = 0;
	uint64_t	next_report = 100000;
	int64_t		t0 = cf_env_mono_micros(db->o.env);
	char		what[2 * CF_SCHEMA_NAME_MAX + 64] = "";
	cf_status  *s = NULL;

	for (;;)
	{
		cf_schema  *schema = cf_db_schema(db);
		const cf_cf_def *def;
		const cf_column_def *col = cf_schema_index_by_id(schema, index_id, &def);
		cf_read_rows *rows = NULL;
		bool		redo = false;

		if (atomic_load(&db->stop_builds) || col == NULL)
			s = cf_status_make(CF_ERR_CANCELLED, "index %u: build stopped",
							   (unsigned) index_id);
		if (s == NULL && what[0] == '\0')
		{
			snprintf(what, sizeof(what), "index %s of %s.%s (id %u)",
					 col->index_name ? col->index_name : "(unnamed)", def->keyspace,
					 def->name, (unsigned) index_id);
			cf_log_info(LOG_COMPONENT, "building %s over the existing rows", what);
		}
		if (s == NULL)
			s = build_page(db, def, col, has_after ? &after : NULL, &rows);
		if (s == NULL && rows->n_rows == 0)
		{
			s = finish_build(db, def, col);
			cf_read_rows_free(rows);
			cf_schema_unref(schema);
			if (s == NULL)
				cf_log_info(LOG_COMPONENT, "built %s: %" PRIu64 " rows in %" PRId64 " ms",
							what, rows_seen, (cf_env_mono_micros(db->o.env) - t0) / 1000);
			break;
		}
		if (s == NULL)
			s = build_batch(db, def, col, rows, &redo);
		if (s == NULL && !redo)
		{
			rows_seen += rows->n_rows;
			if ((s = cf_read_cursor_copy(&rows->cursor, &cursor, &after)) == NULL)
				has_after = true;
			if (rows_seen >= next_report)
			{
				cf_log_info(LOG_COMPONENT, "building %s: %" PRIu64 " rows so far", what,
							rows_seen);
				next_report += 100000;
			}
		}
		cf_read_rows_free(rows);
		cf_schema_unref(schema);
		if (s)
			break;
	}
	cf_buf_free(&cursor);
	return s;
}

static void *
build_main(void *arg)
{
	index_build *b = arg;
	cf_db	   *db = b->db;
	cf_status  *s = build_index(db, b->index_id);

	if (s && cf_status_code(s) != CF_ERR_CANCELLED && cf_status_code(s) != CF_ERR_NOT_FOUND)
		cf_log_error(LOG_COMPONENT, "building index %u failed: %s; queries on it scan its "
					 "column family until a build succeeds (at the next open)",
					 (unsigned) b->index_id, cf_status_msg(s));
	cf_status_free(s);
	pthread_mutex_lock(&db->mu);
	b->done = true;
	pthread_cond_broadcast(&db->builds_cv);
	pthread_mutex_unlock(&db->mu);
	return NULL;
}

/* Joins and frees finished builds. REQUIRES: mu held. */
static void
reap_builds(cf_db *db)
{
	for (index_build **p = &db->builds; *p;)
	{
		index_build *b = *p;

		if (!b->done)
		{
			p = &b->next;
			continue;
		}
		*p = b->next;
		pthread_join(b->thread, NULL);
		free(b);
	}
}

/* Starts building an index in the background; a failure to start is logged. */
static void
start_build(cf_db *db, uint32_t index_id)
{
	index_build *b = calloc(1, sizeof(*b));

	if (b == NULL)
	{
		cf_log_error(LOG_COMPONENT, "index %u: out of memory starting its build; it is "
					 "built at the next open", (unsigned) index_id);
		return;
	}
	b->db = db;
	b->index_id = index_id;
	pthread_mutex_lock(&db->mu);
	reap_builds(db);
	if (pthread_create(&b->thread, NULL, build_main, b) != 0)
	{
		pthread_mutex_unlock(&db->mu);
		cf_log_error(LOG_COMPONENT, "index %u: cannot start its build; it is built at the "
					 "next open", (unsigned) index_id);
		free(b);
		return;
	}
	cf_thread_name(b->thread, "cf-ixbuild-%u", (unsigned) index_id);
	b->next = db->builds;
	db->builds = b;
	pthread_mutex_unlock(&db->mu);
}

/* Stops every build and waits for them (an unfinished one restarts at the next open). */
static void
stop_builds(cf_db *db)
{
	atomic_store(&db->stop_builds, 1);
	pthread_mutex_lock(&db->mu);
	while (db->builds)
	{
		while (db->builds && !db->builds->done)
			pthread_cond_wait(&db->builds_cv, &db->mu);
		reap_builds(db);
	}
	pthread_mutex_unlock(&db->mu);
}

void
cf_db_wait_index_builds(cf_db *db)
{
	pthread_mutex_lock(&db->mu);
	for (;;)
	{
		bool		running = false;

		reap_builds(db);
		for (index_build *b = db->builds; b; b = b->next)
			running |= !b->done;
		if (!running)
			break;
		pthread_cond_wait(&db->builds_cv, &db->mu);
	}
	pthread_mutex_unlock(&db->mu);
}

/* ---------------------------------------------------------------- replay */

static cf_status *
replay_record(void *arg, cf_slice payload, cf_commitlog_pos pos)
{
	cf_db	   *db = arg;
	cf_mutation *ms;
	size_t		nm;
	cf_buf		token = CF_BUF_INIT;
	cf_status  *s = cf_mutation_batch_decode(payload, &ms, &nm);

	if (s)
		return cf_status_wrap(s, "replaying the commit log at %" PRIu64 ":%" PRIu64,
							  pos.segment, pos.offset);
	db->replay.records++;
	for (size_t r = 0; s == NULL && r < nm; r++)
	{
		const cf_mutation *m = &ms[r];
		bool		have_token = false;

		for (size_t i = 0; s == NULL && i < m->n_cfs; i++)
		{
			bool		is_index;
			cf_cfstore *cf = store_lookup(db, m->cfs[i].cf_id, &is_index);
			bool		due = false;
			cf_slice	tok = m->key;

			if (cf == NULL || cf_commitlog_pos_cmp(pos, cf_cfstore_replay_position(cf)) < 0)
			{
				db->replay.skipped++;	/* dropped since, or already in an SSTable */
				continue;
			}
			if (!is_index && !have_token)
			{
				cf_buf_reset(&token);
				if ((s = cf_partitioner_token(db->o.partitioner, m->key, &token)) != NULL)
					break;
				have_token = true;
			}
			if (!is_index)
				tok = cf_slice_of(token.data, token.len);
			s = cf_cfstore_apply(cf, tok, m->key, &m->cfs[i], &due);
			if (s == NULL)
				db->replay.applied++;
			/* records before pos are in the old memtable; pos itself replays again: harmless */
			if (s == NULL && due)
				s = cf_cfstore_switch(cf, pos);
		}
	}
	cf_buf_free(&token);
	cf_mutation_batch_release(ms, nm);
	return s;
}

/* ---------------------------------------------------------------- open, close */

static void
db_free(cf_db *db)
{
	for (int i = 0; i < KEY_LOCKS; i++)
		pthread_mutex_destroy(&db->key_locks[i]);
	pthread_cond_destroy(&db->builds_cv);
	free(db->stores);
	cf_cache_unref(db->block_cache);
	if (db->schema)
		cf_schema_unref(db->schema);
	pthread_mutex_destroy(&db->schema_mu);
	pthread_mutex_destroy(&db->compact_mu);
	pthread_mutex_destroy(&db->snap_mu);
	pthread_rwlock_destroy(&db->drop_lock);
	pthread_rwlock_destroy(&db->barrier);
	pthread_mutex_destroy(&db->mu);
	pthread_cond_destroy(&db->maint_cv);
	free(db->data_dir);
	free(db->commitlog_dir);
	free(db);
}

/* Flushes and closes every store, then the commit log; keeps the first error. */
static cf_status *
shutdown_stores(cf_db *db, bool flush)
{
	cf_status  *first = NULL;

	if (flush && db->log)
	{
		pthread_rwlock_wrlock(&db->barrier);
		for (size_t i = 0; i <= db->nstores; i++)
		{
			cf_cfstore *cf = i < db->nstores ? db->stores[i].cf : db->system;
			cf_status  *s = cf ? cf_cfstore_switch(cf, cf_commitlog_position(db->log)) : NULL;

			if (s && !first)
				first = s;
			else
				cf_status_free(s);
		}
		pthread_rwlock_unlock(&db->barrier);
	}
	for (size_t i = 0; i <= db->nstores; i++)
	{
		cf_cfstore *cf = i < db->nstores ? db->stores[i].cf : db->system;
		cf_status  *s;

		if (cf == NULL)
			continue;
		s = flush ? cf_cfstore_wait_flushed(cf) : NULL;
		if (s == NULL)
			s = cf_cfstore_close(cf);
		else
			cf_status_free(cf_cfstore_close(cf));
		if (s && !first)
			first = s;
		else
			cf_status_free(s);
	}
	db->system = NULL;
	for (size_t i = 0; i < db->nstores; i++)
		db->stores[i].cf = NULL;
	if (db->log)
	{
		cf_status  *s = cf_commitlog_close(db->log);

		if (s && !first)
			first = s;
		else
			cf_status_free(s);
		db->log = NULL;
	}
	return first;
}

cf_status *
cf_db_open(const cf_db_options *opts, cf_db **out)
{
	cf_db	   *db = calloc(1, sizeof(*db));
	cf_cf_def	sysdef;
	cf_status  *s;
	cf_commitlog_replay_stats rst;
	bool		repersist = false;

	*out = NULL;
	if (db == NULL)
		return cf_status_make(CF_ERR_NO_MEMORY, "opening the database: out of memory");
	db->o = *opts;
	db->data_dir = strdup(opts->data_dir);
	db->commitlog_dir = strdup(opts->commitlog_dir);
	db->o.data_dir = db->data_dir;
	db->o.commitlog_dir = db->commitlog_dir;
	pthread_mutex_init(&db->schema_mu, NULL);
	pthread_mutex_init(&db->compact_mu, NULL);
	pthread_mutex_init(&db->snap_mu, NULL);
	pthread_rwlock_init(&db->drop_lock, NULL);
	pthread_rwlock_init(&db->barrier, NULL);
	pthread_mutex_init(&db->mu, NULL);
	{
		/* the maintenance thread's timed waits use the monotonic clock */
		pthread_condattr_t ca;

		pthread_condattr_init(&ca);
		pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
		pthread_cond_init(&db->maint_cv, &ca);
		pthread_condattr_destroy(&ca);
	}
	atomic_init(&db->cancel_compaction, 0);
	atomic_init(&db->epoch, 0);
	atomic_init(&db->stop_builds, 0);
	for (int i = 0; i < KEY_LOCKS; i++)
		pthread_mutex_init(&db->key_locks[i], NULL);
	pthread_cond_init(&db->builds_cv, NULL);
	if (db->data_dir == NULL || db->commitlog_dir == NULL ||
		(db->block_cache = cf_cache_new(opts->block_cache_bytes ? opts->block_cache_bytes :
										CF_CACHE_DEFAULT_CAPACITY)) == NULL)
	{
		db_free(db);
		return cf_status_make(CF_ERR_NO_MEMORY, "opening the database: out of memory");
	}

	{
		cf_commitlog_options lo = {
			.env = opts->env,.dir = opts->commitlog_dir,.sync_mode = opts->sync_mode,
			.sync_period_us = opts->sync_period_us,.batch_window_us = opts->batch_window_us,
			.segment_size = opts->segment_size,
		};

		s = cf_commitlog_open(&lo, &db->log);
	}
	/* system.Schema: a Standard CF of BytesType names, id 0 */
	if (s == NULL && (s = cf_cfdef_init(&sysdef, SYSTEM_KS, SCHEMA_CF)) == NULL)
	{
		sysdef.id = SCHEMA_CF_ID;
		s = open_cfstore(db, &sysdef, &db->system);
		cf_cfdef_clear(&sysdef);
	}
	if (s == NULL)
		s = schema_load(db, &db->schema, &repersist);
	for (size_t i = 0; s == NULL && i < cf_schema_n_keyspaces(db->schema); i++)
	{
		const cf_ks_def *ks = cf_schema_keyspace_at(db->schema, i);

		for (size_t c = 0; s == NULL && c < ks->n_cfs; c++)
		{
			const cf_cf_def *def = &ks->cfs[c];
			cf_cfstore *cf;
			bool		built;

			if ((s = stores_reserve(db, 1)) == NULL &&
				(s = open_cfstore(db, def, &cf)) == NULL)
				stores_add(db, def->id, cf, false, false);
			for (size_t k = 0; s == NULL && k < def->n_columns; k++)
			{
				if (!def->column_metadata[k].indexed)
					continue;
				if ((s = stores_reserve(db, 1)) == NULL &&
					(s = open_index_store(db, def, &def->column_metadata[k], &cf,
										  &built)) == NULL)
					stores_add(db, def->column_metadata[k].index_id, cf, true, built);
			}
		}
	}
	if (s == NULL)
	{
		/* new segments come after every flushed position, whatever the clock says */
		cf_commitlog_pos last = cf_cfstore_replay_position(db->system);

		for (size_t i = 0; i < db->nstores; i++)
		{
			cf_commitlog_pos p = cf_cfstore_replay_position(db->stores[i].cf);

			if (cf_commitlog_pos_cmp(p, last) > 0)
				last = p;
		}
		cf_commitlog_start_after(db->log, last);
		s = cf_commitlog_replay(db->log, replay_record, db, &rst);
	}
	if (s == NULL && repersist)
	{
		pthread_mutex_lock(&db->schema_mu);
		s = schema_persist(db, db->schema, NULL);
		pthread_mutex_unlock(&db->schema_mu);
	}
	if (s == NULL)
	{
		if (pthread_create(&db->maintenance, NULL, maintenance_main, db) != 0)
			s = cf_status_make(CF_ERR_INTERNAL, "cannot start the maintenance thread");
		else
		{
			db->maintenance_started = true;
			cf_thread_name(db->maintenance, "cf-maint");
		}
	}
	/* indexes whose build did not finish (a crash, or a close) start it over */
	for (size_t i = 0; s == NULL && i < db->nstores; i++)
		if (db->stores[i].is_index && !db->stores[i].built)
			start_build(db, db->stores[i].id);
	if (s != NULL)
	{
		stop_builds(db);
		if (db->maintenance_started)
		{
			pthread_mutex_lock(&db->mu);
			db->stopping = true;
			pthread_cond_broadcast(&db->maint_cv);
			pthread_mutex_unlock(&db->mu);
			pthread_join(db->maintenance, NULL);
		}
		cf_status_free(shutdown_stores(db, false));
		db_free(db);
		return cf_status_wrap(s, "opening the database in %s", opts->data_dir);
	}
	cf_log_info(LOG_COMPONENT, "opened %s: %zu keyspaces, %zu column families; replayed "
				"%" PRIu64 " records (%" PRIu64 " applied, %" PRIu64 " already flushed)",
				db->data_dir, cf_schema_n_keyspaces(db->schema), db->nstores,
				db->replay.records, db->replay.applied, db->replay.skipped);
	*out = db;
	return NULL;
}

static cf_status *
stop(cf_db *db, bool flush)
{
	cf_status  *s;

	if (db == NULL)
		return NULL;
	stop_builds(db);
	if (db->maintenance_started)
	{
		pthread_mutex_lock(&db->mu);
		db->stopping = true;
		atomic_store(&db->cancel_compaction, 1);
		pthread_cond_broadcast(&db->maint_cv);
		pthread_mutex_unlock(&db->mu);
		pthread_join(db->maintenance, NULL);
	}
	s = shutdown_stores(db, flush);
	db_free(db);
	return s;
}

cf_status *
cf_db_close(cf_db *db)
{
	return stop(db, true);
}

cf_status *
cf_db_abandon(cf_db *db)
{
	return stop(db, false);
}

void
cf_db_replay_stats_get(cf_db *db, cf_db_replay_stats *st)
{
	*st = db->replay;
}

/* ---------------------------------------------------------------- per-CF operations */

cf_status *
cf_db_view(cf_db *db, const char *keyspace, const char *cf, cf_table_set *view)
{
	cf_schema  *schema;
	const cf_cf_def *def;
	cf_cfstore *store;
	cf_status  *s;

	pthread_rwlock_rdlock(&db->drop_lock);
	if ((s = resolve(db, keyspace, cf, &schema, &def, &store)) == NULL)
	{
		s = cf_cfstore_view_get(store, view);
		cf_schema_unref(schema);
	}
	pthread_rwlock_unlock(&db->drop_lock);
	return s;
}

cf_status *
cf_db_flush(cf_db *db, const char *keyspace, const char *cf)
{
	cf_schema  *schema = cf_db_schema(db);
	const cf_ks_def *ks = cf_schema_keyspace(schema, keyspace);
	cf_status  *s = NULL;

	if (ks == NULL)
		s = cf_status_make(CF_ERR_NOT_FOUND, "keyspace %s does not exist", keyspace);
	else if (cf && cf_ksdef_cf(ks, cf) == NULL)
		s = cf_status_make(CF_ERR_NOT_FOUND, "column family %s does not exist in keyspace %s",
						   cf, keyspace);
	pthread_rwlock_rdlock(&db->drop_lock);
	for (size_t i = 0; s == NULL && ks && i < ks->n_cfs; i++)
	{
		const cf_cf_def *def = &ks->cfs[i];

		if (cf && strcmp(def->name, cf) != 0)
			continue;
		/* the CF, then its indexes */
		for (size_t k = 0; s == NULL && k <= def->n_columns; k++)
		{
			uint32_t	id = k == 0 ? def->id : def->column_metadata[k - 1].index_id;
			cf_cfstore *store;

			if ((k > 0 && !def->column_metadata[k - 1].indexed) ||
				(store = cfstore_by_id(db, id)) == NULL)
				continue;
			if ((s = switch_store(db, store)) == NULL)
				s = cf_cfstore_wait_flushed(store);
		}
	}
	pthread_rwlock_unlock(&db->drop_lock);
	cf_schema_unref(schema);
	return s;
}

cf_status *
cf_db_compact(cf_db *db, const char *keyspace, const char *cf, bool major)
{
	cf_schema  *schema;
	const cf_cf_def *def;
	cf_cfstore *store;
	cf_status  *s;

	pthread_rwlock_rdlock(&db->drop_lock);
	if ((s = resolve(db, keyspace, cf, &schema, &def, &store)) == NULL)
	{
		s = compact_store(db, store, def, major);
		for (size_t k = 0; s == NULL && k < def->n_columns; k++)
		{
			cf_cfstore *ix;

			if (def->column_metadata[k].indexed &&
				(ix = cfstore_by_id(db, def->column_metadata[k].index_id)) != NULL)
				s = compact_store(db, ix, def, major);
		}
		cf_schema_unref(schema);
	}
	pthread_rwlock_unlock(&db->drop_lock);
	return s;
}

cf_status *
cf_db_truncate(cf_db *db, const char *keyspace, const char *cf)
{
	cf_schema  *schema;
	const cf_cf_def *def;
	cf_cfstore *store;
	cf_status  *s;

	if ((s = cf_db_flush(db, keyspace, cf)) != NULL)
		return s;
	pthread_rwlock_rdlock(&db->drop_lock);
	if ((s = resolve(db, keyspace, cf, &schema, &def, &store)) == NULL)
	{
		if ((s = auto_snapshot(db, store, "truncated")) == NULL)
		{
			/* the CF and its indexes at one position, and no write prepared before it */
			pthread_rwlock_wrlock(&db->barrier);
			atomic_fetch_add(&db->epoch, 1);
			s = cf_cfstore_truncate(store, cf_commitlog_position(db->log));
			for (size_t k = 0; s == NULL && k < def->n_columns; k++)
			{
				cf_cfstore *ix;

				if (def->column_metadata[k].indexed &&
					(ix = cfstore_by_id(db, def->column_metadata[k].index_id)) != NULL)
					s = cf_cfstore_truncate(ix, cf_commitlog_position(db->log));
			}
			pthread_rwlock_unlock(&db->barrier);
		}
		cf_schema_unref(schema);
	}
	pthread_rwlock_unlock(&db->drop_lock);
	return s;
}

/* ---------------------------------------------------------------- snapshots */

/* Whether name could be a keyspace's (cf_schema_name_check, without its message). */
static bool
keyspace_name_ok(const char *name)
{
	cf_status  *s = cf_schema_name_check("keyspace", name);
	bool		ok = s == NULL;

	cf_status_free(s);
	return ok;
}

/*
 * The keyspaces a snapshot call names, checked: the given ones, each system or in the
 * schema (or, on_disk, at least a directory under the data directory: a dropped keyspace's
 * snapshots outlive it), each once; or, when n == 0, every keyspace of the schema but
 * system. *out is malloc'd (pointers into keyspaces or schema, which the caller keeps).
 */
static cf_status *
snapshot_keyspaces(cf_db *db, const cf_schema *schema, const char *const *keyspaces,
				   size_t n, bool on_disk, const char ***out, size_t *n_out)
{
	size_t		count = n ? n : cf_schema_n_keyspaces(schema);
	size_t		j;

	*n_out = 0;
	if ((*out = calloc(count ? count : 1, sizeof(**out))) == NULL)
		return cf_status_make(CF_ERR_NO_MEMORY, "out of memory");
	for (size_t i = 0; i < n; i++)
	{
		char	   *dir = NULL;
		bool		known = cf_schema_keyspace(schema, keyspaces[i]) != NULL ||
			strcmp(keyspaces[i], SYSTEM_KS) == 0;
		bool		oom = false;

		if (!known && on_disk && keyspace_name_ok(keyspaces[i]))
		{
			dir = cf_path_join(db->data_dir, keyspaces[i]);
			oom = dir == NULL;
			known = dir && cf_env_exists(db->o.env, dir);
			free(dir);
		}
		if (!known)
		{
			free(*out);
			*out = NULL;
			*n_out = 0;
			if (oom)
				return cf_status_make(CF_ERR_NO_MEMORY, "out of memory");
			return cf_status_make(CF_ERR_NOT_FOUND, "Keyspace %.*s does not exist",
								  CF_SCHEMA_NAME_MAX, keyspaces[i]);
		}
		/* a keyspace named twice is one keyspace */
		for (j = 0; j < *n_out && strcmp((*out)[j], keyspaces[i]) != 0; j++)
			;
		if (j == *n_out)
			(*out)[(*n_out)++] = keyspaces[i];
	}
	for (size_t i = 0; n == 0 && i < count; i++)
	{
		const cf_ks_def *ks = cf_schema_keyspace_at(schema, i);

		if (strcmp(ks->name, SYSTEM_KS) != 0)
			(*out)[(*n_out)++] = ks->name;
	}
	return NULL;
}

/*
 * Appends to out the snapshots named name (every one when NULL) of the keyspaces, each
 * in the schema or on disk (every keyspace directory when n == 0). REQUIRES: snap_mu.
 */
static cf_status *
find_snapshots(cf_db *db, const char *const *keyspaces, size_t n, const char *name,
			   cf_snapshot_list *out)
{
	cf_schema  *schema = cf_db_schema(db);
	const char **kss = NULL;
	size_t		nks = 0;
	cf_status  *s = n ? snapshot_keyspaces(db, schema, keyspaces, n, true, &kss, &nks) : NULL;

	if (s == NULL && n == 0)
		s = cf_snapshot_find(db->o.env, db->data_dir, NULL, name, out);
	for (size_t i = 0; s == NULL && i < nks; i++)
		s = cf_snapshot_find(db->o.env, db->data_dir, kss[i], name, out);
	free(kss);
	cf_schema_unref(schema);
	return s;
}

/*
 * Removes every snapshot named name of the keyspaces (checked already).
 * REQUIRES: snap_mu held.
 */
static cf_status *
remove_named(cf_db *db, const char *const *kss, size_t n, const char *name)
{
	cf_snapshot_list found = {0};
	cf_status  *s = NULL;

	for (size_t i = 0; s == NULL && i < n; i++)
		s = cf_snapshot_find(db->o.env, db->data_dir, kss[i], name, &found);
	for (size_t i = 0; s == NULL && i < found.n; i++)
		s = cf_snapshot_remove(db->o.env, &found.v[i]);
	cf_snapshot_list_free(&found);
	return s;
}

cf_status *
cf_db_snapshot(cf_db *db, const char *const *keyspaces, size_t n, const char *name,
			   cf_snapshot_list *out)
{
	cf_schema  *schema;
	const char **kss = NULL;
	size_t		nks = 0;
	cf_snapshot_list found = {0};
	cf_status  *s;

	if ((s = cf_snapshot_name_check(name)) != NULL)
		return s;
	schema = cf_db_schema(db);
	s = snapshot_keyspaces(db, schema, keyspaces, n, false, &kss, &nks);
	/* system.Schema is flushed by every schema change: nothing to flush there */
	for (size_t i = 0; s == NULL && i < nks; i++)
		if (strcmp(kss[i], SYSTEM_KS) != 0)
			s = cf_db_flush(db, kss[i], NULL);
	if (s)
	{
		free(kss);
		cf_schema_unref(schema);
		return s;
	}
	pthread_rwlock_rdlock(&db->drop_lock);
	pthread_mutex_lock(&db->snap_mu);
	/* every name free first, so a refusal leaves nothing behind */
	for (size_t i = 0; s == NULL && i < nks; i++)
	{
		if ((s = cf_snapshot_find(db->o.env, db->data_dir, kss[i], name, &found)) == NULL &&
			found.n > 0)
			s = cf_status_make(CF_ERR_INVALID, "keyspace %s has a snapshot \"%s\" already "
							   "(%s); choose another name, or clear it first", kss[i], name,
							   found.v[0].dir);
		cf_snapshot_list_free(&found);
	}
	if (s == NULL)
	{
		for (size_t i = 0; s == NULL && i < nks; i++)
		{
			const cf_ks_def *ks = cf_schema_keyspace(schema, kss[i]);

			if (strcmp(kss[i], SYSTEM_KS) == 0)
				s = cf_cfstore_snapshot(db->system, name);
			for (size_t j = 0; s == NULL && ks && j < ks->n_cfs; j++)
			{
				cf_cfstore *store = cfstore_by_id(db, ks->cfs[j].id);

				/* a CF dropped since the schema was read has its own snapshot */
				if (store)
					s = cf_cfstore_snapshot(store, name);
			}
		}
		/* what was taken, as the disk has it: this call's and no older one's */
		for (size_t i = 0; s == NULL && i < nks; i++)
			s = cf_snapshot_find(db->o.env, db->data_dir, kss[i], name, out);
		if (s)
		{
			/* the name was free in every keyspace: whatever has it now, this call made */
			cf_status  *rs = remove_named(db, kss, nks, name);

			cf_snapshot_list_free(out);
			if (rs)
			{
				cf_log_warn(LOG_COMPONENT, "snapshot \"%s\" failed, and removing what it "
							"made: %s", name, cf_status_msg(rs));
				cf_status_free(rs);
			}
		}
		else
			cf_log_info(LOG_COMPONENT, "snapshot \"%s\" taken of %zu keyspace%s, %zu column "
						"famil%s, under %s/<keyspace>/<cf>/snapshots/%s", name, nks,
						nks == 1 ? "" : "s", out->n, out->n == 1 ? "y" : "ies", db->data_dir,
						name);
	}
	pthread_mutex_unlock(&db->snap_mu);
	pthread_rwlock_unlock(&db->drop_lock);
	free(kss);
	cf_schema_unref(schema);
	return s;
}

cf_status *
cf_db_list_snapshots(cf_db *db, const char *const *keyspaces, size_t n, const char *name,
					 cf_snapshot_list *out)
{
	cf_status  *s;

	pthread_mutex_lock(&db->snap_mu);
	s = find_snapshots(db, keyspaces, n, name, out);
	pthread_mutex_unlock(&db->snap_mu);
	return s;
}

cf_status *
cf_db_clear_snapshots(cf_db *db, const char *const *keyspaces, size_t n, const char *name,
					  cf_snapshot_list *out)
{
	size_t		first = out->n;
	size_t		done = first;	/* out->v[first..done) are removed */
	cf_status  *s = name ? cf_snapshot_name_check(name) : NULL;

	pthread_mutex_lock(&db->snap_mu);
	if (s == NULL)
		s = find_snapshots(db, keyspaces, n, name, out);
	if (s == NULL && name && out->n == first)
		s = cf_status_make(CF_ERR_NOT_FOUND, "no snapshot \"%s\" in %s%.*s", name,
						   n == 1 ? "keyspace " : n ? "those keyspaces" : "any keyspace",
						   CF_SCHEMA_NAME_MAX, n == 1 ? keyspaces[0] : "");
	while (s == NULL && done < out->n)
		if ((s = cf_snapshot_remove(db->o.env, &out->v[done])) == NULL)
			done++;
	pthread_mutex_unlock(&db->snap_mu);
	for (size_t i = first; i < done; i++)
		cf_log_info(LOG_COMPONENT, "snapshot \"%s\" of %s.%s cleared: %" PRIu64 " files, %"
					PRIu64 " bytes (%" PRIu64 " not shared with live SSTables or other "
					"snapshots)", out->v[i].name, out->v[i].keyspace, out->v[i].cf,
					out->v[i].files, out->v[i].bytes, out->v[i].unshared_bytes);
	if (s && done > first)
		s = cf_status_wrap(s, "after clearing %zu snapshot director%s", done - first,
						   done - first == 1 ? "y" : "ies");
	return s;
}

cf_status *
cf_db_cf_stats(cf_db *db, const char *keyspace, const char *cf, cf_cfstore_stats *st)
{
	cf_schema  *schema;
	const cf_cf_def *def;
	cf_cfstore *store;
	cf_status  *s;

	pthread_rwlock_rdlock(&db->drop_lock);
	if ((s = resolve(db, keyspace, cf, &schema, &def, &store)) == NULL)
	{
		cf_cfstore_stats_get(store, st);
		cf_schema_unref(schema);
	}
	pthread_rwlock_unlock(&db->drop_lock);
	return s;
}

cf_status *
cf_db_get_indexed_slices(cf_db *db, const char *keyspace, const char *cf,
						 const cf_index_clause *clause, const cf_predicate *pred,
						 cf_read_rows **out)
{
	cf_schema  *schema;
	const cf_cf_def *def;
	cf_cfstore *store;
	cf_cfstore *ix = NULL;
	bool		built = false;
	size_t		primary;
	cf_table_set base;
	cf_table_set index;
	bool		have_base = false;
	bool		have_index = false;
	cf_status  *s;

	*out = NULL;
	pthread_rwlock_rdlock(&db->drop_lock);
	if ((s = resolve(db, keyspace, cf, &schema, &def, &store)) != NULL)
	{
		pthread_rwlock_unlock(&db->drop_lock);
		return s;
	}
	if ((s = cf_index_clause_check(def, clause, &primary)) == NULL)
	{
		const cf_column_def *col = NULL;
		store_entry *e;

		for (size_t k = 0; k < def->n_columns && col == NULL; k++)
			if (def->column_metadata[k].indexed &&
				cf_type_compare(def->comparator, clause->exprs[primary].column,
								cf_slice_of(def->column_metadata[k].name,
											def->column_metadata[k].name_len)) == 0)
				col = &def->column_metadata[k];
		pthread_mutex_lock(&db->mu);
		if (col && (e = store_by_id(db, col->index_id)) != NULL)
		{
			ix = e->cf;
			built = e->built;
		}
		pthread_mutex_unlock(&db->mu);
		/* the index first: a row written between the two views is then re-checked */
		if (ix && built && (s = cf_cfstore_view_get(ix, &index)) == NULL)
			have_index = true;
		if (s == NULL && (s = cf_cfstore_view_get(store, &base)) == NULL)
			have_base = true;
	}
	pthread_rwlock_unlock(&db->drop_lock);
	if (s == NULL)
	{
		cf_index_query q = {
			.def = def,.partitioner = db->o.partitioner,.base = &base,
			.index = have_index ? &index : NULL,.now_sec = now_sec(db),
		};

		s = cf_index_query_run(&q, clause, primary, pred, out);
	}
	if (have_index)
		cf_cfstore_view_release(&index);
	if (have_base)
		cf_cfstore_view_release(&base);
	cf_schema_unref(schema);
	return s;
}

void
cf_db_block_cache_stats(cf_db *db, cf_cache_stats *st)
{
	cf_cache_get_stats(db->block_cache, st);
}
