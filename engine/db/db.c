/*
 * db/db.c — keyspaces over cfstores, the commit log, replay and the schema (see db.h).
 *
 * Locks, outermost first: schema_mu (one schema change at a time); drop_lock
 * (compactions shared, removing a dropped CF's store exclusive — so a long compaction
 * never holds the barrier); the barrier (writes shared, memtable switches and store
 * removal exclusive); mu (the schema pointer and the store table). No lock is held
 * across a commit-log fsync except the barrier in shared mode, exactly as Cassandra's
 * switch lock.
 */
#include "db/db.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "storage/compaction.h"
#include "storage/mutation.h"
#include "util/log.h"

#define LOG_COMPONENT "db"
#define SYSTEM_KS "system"
#define SCHEMA_CF "Schema"
#define SCHEMA_CF_ID 0			/* user CF ids start at 1 */
#define META_KEY "~meta"		/* not a keyspace name: those are word characters */

typedef struct store_entry
{
	uint32_t	id;
	cf_cfstore *cf;
	bool		needs_compaction;
} store_entry;

struct cf_db
{
	cf_db_options o;
	char	   *data_dir;
	char	   *commitlog_dir;
	pthread_mutex_t schema_mu;
	pthread_mutex_t compact_mu; /* one compaction at a time, as Cassandra 0.7 */
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

static cf_cfstore *
cfstore_by_id(cf_db *db, uint32_t id)
{
	store_entry *s;

	if (id == SCHEMA_CF_ID)
		return db->system;
	pthread_mutex_lock(&db->mu);
	s = store_by_id(db, id);
	pthread_mutex_unlock(&db->mu);
	return s ? s->cf : NULL;
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
stores_add(cf_db *db, uint32_t id, cf_cfstore *cf)
{
	db->stores[db->nstores++] = (store_entry) {id, cf, false};
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

/*
 * Logs and applies one mutation whose updates carry resolved CF ids. The caller has
 * validated it. Switches memtables that crossed a threshold.
 */
static cf_status *
write_mutation(cf_db *db, cf_slice key, cf_cf_update *ups, size_t n)
{
	cf_mutation m = {.key = key,.cfs = ups,.n_cfs = n};
	cf_buf		rec = CF_BUF_INIT;
	cf_buf		token = CF_BUF_INIT;
	uint32_t	ids[64];
	uint32_t   *idp = n <= 64 ? ids : malloc(n * sizeof(*idp));
	cf_cfstore *due[64];
	size_t		ndue = 0;
	cf_status  *s;

	if (idp == NULL)
		return cf_status_make(CF_ERR_NO_MEMORY, "out of memory");
	for (size_t i = 0; i < n; i++)
		idp[i] = ups[i].cf_id;
	s = cf_mutation_encode(&m, &rec);
	if (s == NULL)
		s = cf_partitioner_token(db->o.partitioner, key, &token);
	/* backpressure before the record is logged: a refused write leaves no trace */
	for (size_t i = 0; s == NULL && i < n; i++)
	{
		cf_cfstore *cf = cfstore_by_id(db, ups[i].cf_id);

		if (cf)
			s = cf_cfstore_admit(cf);
	}
	if (s == NULL)
	{
		pthread_rwlock_rdlock(&db->barrier);
		s = cf_commitlog_append(db->log, idp, n, cf_slice_of(rec.data, rec.len), NULL);
		for (size_t i = 0; s == NULL && i < n; i++)
		{
			cf_cfstore *cf = cfstore_by_id(db, ups[i].cf_id);
			bool		switch_due = false;

			if (cf == NULL)
				s = cf_status_make(CF_ERR_NOT_FOUND, "column family %u was dropped",
								   ups[i].cf_id);
			else
				s = cf_cfstore_apply(cf, cf_slice_of(token.data, token.len), key, &ups[i],
									 &switch_due);
			if (s == NULL && switch_due && ndue < 64)
				due[ndue++] = cf;
		}
		pthread_rwlock_unlock(&db->barrier);
	}
	for (size_t i = 0; s == NULL && i < ndue; i++)
		s = switch_store(db, due[i]);
	if (idp != ids)
		free(idp);
	cf_buf_free(&rec);
	cf_buf_free(&token);
	return s;
}

cf_status *
cf_db_apply(cf_db *db, const char *keyspace, cf_slice key, const cf_db_update *updates,
			size_t n)
{
	cf_schema  *schema;
	cf_cf_update *ups;
	cf_status  *s = NULL;
	int32_t		now = now_sec(db);

	if (key.len == 0)
		return cf_status_make(CF_ERR_INVALID, "key may not be empty");
	if (key.len > CF_KEY_MAX)
		return cf_status_make(CF_ERR_INVALID, "key is %zu bytes; the limit is %d",
							  key.len, CF_KEY_MAX);
	if (strcmp(keyspace, SYSTEM_KS) == 0)
		return cf_status_make(CF_ERR_INVALID, "the system keyspace is not writable");
	if (n == 0)
		return NULL;
	if ((ups = calloc(n, sizeof(*ups))) == NULL)
		return cf_status_make(CF_ERR_NO_MEMORY, "out of memory");

	pthread_mutex_lock(&db->mu);
	schema = db->schema;
	cf_schema_ref(schema);
	pthread_mutex_unlock(&db->mu);
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
		}
	}
	for (size_t i = 0; s == NULL && i < n; i++)
		for (size_t k = 0; k < i; k++)
			if (ups[k].cf_id == ups[i].cf_id)
				s = cf_status_make(CF_ERR_INVALID, "column family %s appears twice in one "
								   "row mutation; merge its changes", updates[i].cf);
	if (s == NULL)
		s = write_mutation(db, key, ups, n);
	cf_schema_unref(schema);
	free(ups);
	return s;
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

/* Reads the schema from system.Schema (its SSTables; see db.h). */
static cf_status *
schema_load(cf_db *db, cf_schema **out)
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
	for (size_t i = 0; i < nks; i++)
		cf_ksdef_clear(&kss[i]);
	free(kss);
	cf_read_rows_free(rows);
	cf_cfstore_view_release(&v);
	return cf_status_wrap(s, "loading the schema from %s/%s/%s", db->data_dir, SYSTEM_KS,
						  SCHEMA_CF);
}

/*
 * Flushes, snapshots, empties and closes the store of a dropped CF; problems are
 * logged. It is out of the store table already, so no write reaches it and its switch
 * needs no barrier. The flush matters: the snapshot links SSTables only, and replay
 * skips a dropped CF's records, so unflushed rows would otherwise be gone.
 */
static void
retire_store(cf_db *db, cf_cfstore *cf)
{
	char		snap[64];
	cf_status  *s;

	snprintf(snap, sizeof(snap), "dropped-%" PRId64, cf_env_now_micros(db->o.env));
	s = cf_cfstore_switch(cf, cf_commitlog_position(db->log));
	if (s == NULL)
		s = cf_cfstore_wait_flushed(cf);
	if (s == NULL)
		s = cf_cfstore_snapshot(cf, snap);
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

/*
 * Installs a new schema: opens the stores of new CFs, persists the schema, publishes
 * it with the new stores and every CF's (possibly updated) memtable thresholds, then
 * snapshots and removes the stores of dropped CFs. Nothing after the persist can fail,
 * so a schema on disk always has its stores. Takes ownership of next.
 * REQUIRES: schema_mu held.
 */
static cf_status *
schema_install(cf_db *db, cf_schema *next, const char *dropped_ks)
{
	cf_cfstore **fresh = NULL;
	uint32_t   *fresh_ids = NULL;
	size_t		nfresh = 0;
	size_t		ncfs = 0;
	cf_cfstore **gone = NULL;
	size_t		ngone = 0;
	cf_schema  *old;
	cf_status  *s = NULL;

	for (size_t i = 0; i < cf_schema_n_keyspaces(next); i++)
		ncfs += cf_schema_keyspace_at(next, i)->n_cfs;
	pthread_mutex_lock(&db->mu);
	fresh = calloc(ncfs + 1, sizeof(*fresh));
	fresh_ids = calloc(ncfs + 1, sizeof(*fresh_ids));
	gone = calloc(db->nstores + 1, sizeof(*gone));
	if (!fresh || !fresh_ids || !gone)
		s = cf_status_make(CF_ERR_NO_MEMORY, "out of memory");
	else
		s = stores_reserve(db, ncfs);
	pthread_mutex_unlock(&db->mu);

	/* 1. the stores of CFs that are new */
	for (size_t i = 0; s == NULL && i < cf_schema_n_keyspaces(next); i++)
	{
		const cf_ks_def *ks = cf_schema_keyspace_at(next, i);

		for (size_t c = 0; s == NULL && c < ks->n_cfs; c++)
		{
			if (cfstore_by_id(db, ks->cfs[c].id))
				continue;
			if ((s = open_cfstore(db, &ks->cfs[c], &fresh[nfresh])) == NULL)
				fresh_ids[nfresh++] = ks->cfs[c].id;
		}
	}
	/* 2. durable */
	if (s == NULL)
		s = schema_persist(db, next, dropped_ks);
	if (s != NULL)
	{
		for (size_t i = 0; i < nfresh; i++)
			cf_status_free(cf_cfstore_close(fresh[i]));
		free(fresh);
		free(fresh_ids);
		free(gone);
		cf_schema_unref(next);
		return s;
	}

	/* 3. published; no compaction or write may be working on a store we take away */
	atomic_store(&db->cancel_compaction, 1);
	pthread_rwlock_wrlock(&db->drop_lock);
	atomic_store(&db->cancel_compaction, 0);
	pthread_rwlock_wrlock(&db->barrier);
	pthread_mutex_lock(&db->mu);
	old = db->schema;
	db->schema = next;
	for (size_t i = 0; i < nfresh; i++)
		stores_add(db, fresh_ids[i], fresh[i]);
	for (size_t i = 0; i < db->nstores;)
	{
		const cf_cf_def *def = cf_schema_cf_by_id(next, db->stores[i].id);
		size_t		bytes;
		uint64_t	ops;
		int64_t		age;

		if (def == NULL)
		{
			gone[ngone++] = stores_remove(db, db->stores[i].id);
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

	/* 4. the dropped */
	for (size_t i = 0; i < ngone; i++)
		retire_store(db, gone[i]);
	free(fresh);
	free(fresh_ids);
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
			if ((def = cf_schema_cf_by_id(schema, id)) != NULL && cfstore_by_id(db, id) == cf)
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

/* ---------------------------------------------------------------- replay */

static cf_status *
replay_record(void *arg, cf_slice payload, cf_commitlog_pos pos)
{
	cf_db	   *db = arg;
	cf_mutation m;
	cf_buf		token = CF_BUF_INIT;
	cf_status  *s = cf_mutation_decode(payload, &m);

	if (s)
		return cf_status_wrap(s, "replaying the commit log at %" PRIu64 ":%" PRIu64,
							  pos.segment, pos.offset);
	db->replay.records++;
	s = cf_partitioner_token(db->o.partitioner, m.key, &token);
	for (size_t i = 0; s == NULL && i < m.n_cfs; i++)
	{
		cf_cfstore *cf = cfstore_by_id(db, m.cfs[i].cf_id);
		bool		due = false;

		if (cf == NULL || cf_commitlog_pos_cmp(pos, cf_cfstore_replay_position(cf)) < 0)
		{
			db->replay.skipped++;	/* dropped since, or already in an SSTable */
			continue;
		}
		s = cf_cfstore_apply(cf, cf_slice_of(token.data, token.len), m.key, &m.cfs[i], &due);
		if (s == NULL)
			db->replay.applied++;
		/* records before pos are in the old memtable; pos itself replays again: harmless */
		if (s == NULL && due)
			s = cf_cfstore_switch(cf, pos);
	}
	cf_buf_free(&token);
	cf_mutation_release(&m);
	return s;
}

/* ---------------------------------------------------------------- open, close */

static void
db_free(cf_db *db)
{
	free(db->stores);
	cf_cache_unref(db->block_cache);
	if (db->schema)
		cf_schema_unref(db->schema);
	pthread_mutex_destroy(&db->schema_mu);
	pthread_mutex_destroy(&db->compact_mu);
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
		s = schema_load(db, &db->schema);
	for (size_t i = 0; s == NULL && i < cf_schema_n_keyspaces(db->schema); i++)
	{
		const cf_ks_def *ks = cf_schema_keyspace_at(db->schema, i);

		for (size_t c = 0; s == NULL && c < ks->n_cfs; c++)
		{
			cf_cfstore *cf;

			if ((s = stores_reserve(db, 1)) == NULL &&
				(s = open_cfstore(db, &ks->cfs[c], &cf)) == NULL)
				stores_add(db, ks->cfs[c].id, cf);
		}
	}
	if (s == NULL)
		s = cf_commitlog_replay(db->log, replay_record, db, &rst);
	if (s == NULL)
	{
		if (pthread_create(&db->maintenance, NULL, maintenance_main, db) != 0)
			s = cf_status_make(CF_ERR_INTERNAL, "cannot start the maintenance thread");
		else
			db->maintenance_started = true;
	}
	if (s != NULL)
	{
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
		cf_cfstore *store;

		if (cf && strcmp(ks->cfs[i].name, cf) != 0)
			continue;
		if ((store = cfstore_by_id(db, ks->cfs[i].id)) == NULL)
			continue;
		if ((s = switch_store(db, store)) == NULL)
			s = cf_cfstore_wait_flushed(store);
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
	char		snap[64];

	if ((s = cf_db_flush(db, keyspace, cf)) != NULL)
		return s;
	pthread_rwlock_rdlock(&db->drop_lock);
	if ((s = resolve(db, keyspace, cf, &schema, &def, &store)) == NULL)
	{
		snprintf(snap, sizeof(snap), "truncated-%" PRId64, cf_env_now_micros(db->o.env));
		s = cf_cfstore_snapshot(store, snap);
		if (s == NULL)
		{
			pthread_rwlock_wrlock(&db->barrier);
			s = cf_cfstore_truncate(store, cf_commitlog_position(db->log));
			pthread_rwlock_unlock(&db->barrier);
		}
		cf_schema_unref(schema);
	}
	pthread_rwlock_unlock(&db->drop_lock);
	return s;
}

cf_status *
cf_db_snapshot(cf_db *db, const char *keyspace, const char *name)
{
	cf_schema  *schema;
	const cf_ks_def *ks;
	cf_status  *s;

	if ((s = cf_db_flush(db, keyspace, NULL)) != NULL)
		return s;
	schema = cf_db_schema(db);
	ks = cf_schema_keyspace(schema, keyspace);
	pthread_rwlock_rdlock(&db->drop_lock);
	for (size_t i = 0; s == NULL && ks && i < ks->n_cfs; i++)
	{
		cf_cfstore *store = cfstore_by_id(db, ks->cfs[i].id);

		if (store)
			s = cf_cfstore_snapshot(store, name);
	}
	pthread_rwlock_unlock(&db->drop_lock);
	cf_schema_unref(schema);
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

void
cf_db_block_cache_stats(cf_db *db, cf_cache_stats *st)
{
	cf_cache_get_stats(db->block_cache, st);
}
