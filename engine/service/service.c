/*
 * service/service.c — the coordinator (service.h): consistency levels, replica plans,
 * reads and writes through the plan, schema changes and their ids, describe calls.
 *
 * Design assumptions: the ring is this node alone until engine/cluster exists, so
 * svc_natural_endpoints returns at most the local endpoint and the only "send" is a
 * call into the local db. Everything above that function is written for many
 * replicas: block_for comes from the replication factor, not from the ring, which is
 * why QUORUM on a one-node ring with replication_factor 3 is UNAVAILABLE, as in 0.7.
 */
#include "service/service.h"

#include <inttypes.h>
#include <md5.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "storage/partitioner.h"
#include "util/log.h"
#include "util/uuid.h"

#define SVC_DEFAULT_TIMEOUT_US INT64_C(10000000)
#define SVC_MAX_REPLICAS 16

struct cf_service
{
	cf_db	   *db;
	cf_partitioner partitioner;
	char	   *cluster_name;
	char	   *endpoint;
	char	   *token_text;
	int64_t		rpc_timeout_us;
};

/* One replica of a plan: where to send, and whether it can answer now. */
typedef struct svc_replica
{
	const char *endpoint;
	const char *dc;
	bool		local;
	bool		alive;
} svc_replica;

typedef struct svc_plan
{
	svc_replica replicas[SVC_MAX_REPLICAS];
	size_t		n;
	int			block_for;
	int64_t		deadline_us;
} svc_plan;

static const char *const cl_names[] = {
	NULL, "ONE", "QUORUM", "LOCAL_QUORUM", "EACH_QUORUM", "ALL", "ANY", "TWO", "THREE"
};

const char *
cf_consistency_name(int cl)
{
	if (cl < 1 || cl > CF_CL_THREE)
		return NULL;
	return cl_names[cl];
}

static int64_t
svc_now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t) ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static int32_t
svc_now_sec(void)
{
	return (int32_t) time(NULL);
}

cf_status *
cf_service_new(const cf_service_options *opts, cf_service **out)
{
	cf_service *svc;
	const char *token = opts->token;
	cf_buf		tok = CF_BUF_INIT;
	cf_status  *s;

	*out = NULL;
	if (opts->db == NULL)
		return cf_status_make(CF_ERR_INVALID, "service: no db given");
	svc = calloc(1, sizeof(*svc));
	if (svc == NULL)
		return cf_status_make(CF_ERR_NO_MEMORY, "service: out of memory");
	svc->db = opts->db;
	svc->partitioner = cf_db_partitioner(opts->db);
	svc->rpc_timeout_us = opts->rpc_timeout_us > 0 ? opts->rpc_timeout_us
		: SVC_DEFAULT_TIMEOUT_US;
	svc->cluster_name = strdup(opts->cluster_name ? opts->cluster_name : "Test Cluster");
	svc->endpoint = strdup(opts->endpoint ? opts->endpoint : "127.0.0.1");
	if (token == NULL)
		token = svc->partitioner == CF_PARTITIONER_RANDOM ? "0" : "";
	s = cf_token_from_string(svc->partitioner, cf_slice_str(token), &tok);
	cf_buf_free(&tok);
	if (s == NULL)
		svc->token_text = strdup(token);
	else
		s = cf_status_wrap(s, "service: the node's token");
	if (s == NULL && (!svc->cluster_name || !svc->endpoint || !svc->token_text))
		s = cf_status_make(CF_ERR_NO_MEMORY, "service: out of memory");
	if (s)
	{
		cf_service_free(svc);
		return s;
	}
	*out = svc;
	return NULL;
}

void
cf_service_free(cf_service *svc)
{
	if (svc == NULL)
		return;
	free(svc->cluster_name);
	free(svc->endpoint);
	free(svc->token_text);
	free(svc);
}

cf_db *
cf_service_db(cf_service *svc)
{
	return svc->db;
}

const char *
cf_service_cluster_name(cf_service *svc)
{
	return svc->cluster_name;
}

const char *
cf_service_endpoint(cf_service *svc)
{
	return svc->endpoint;
}

const char *
cf_service_partitioner_class(cf_service *svc)
{
	return cf_partitioner_class(svc->partitioner);
}

/* ---------------------------------------------------------------- schema lookups */

static cf_status *
svc_keyspace(const cf_schema *schema, const char *keyspace, const cf_ks_def **out)
{
	*out = cf_schema_keyspace(schema, keyspace);
	if (*out == NULL)
		return cf_status_make(CF_ERR_NOT_FOUND, "Keyspace %s does not exist", keyspace);
	return NULL;
}

static cf_status *
svc_cf(const cf_schema *schema, const char *keyspace, const char *cf,
	   const cf_ks_def **ks_out, const cf_cf_def **cf_out)
{
	cf_status  *s = svc_keyspace(schema, keyspace, ks_out);

	if (s)
		return s;
	*cf_out = cf_ksdef_cf(*ks_out, cf);
	if (*cf_out == NULL)
		return cf_status_make(CF_ERR_NOT_FOUND, "unconfigured columnfamily %s", cf);
	return NULL;
}

/* Keys as 0.7's ThriftValidation.validateKey takes them. */
static cf_status *
svc_check_key(cf_slice key)
{
	if (key.len == 0)
		return cf_status_make(CF_ERR_INVALID, "Key may not be empty");
	if (key.len > CF_KEY_MAX)
		return cf_status_make(CF_ERR_INVALID,
							  "Key length of %zu is longer than maximum of %d",
							  key.len, CF_KEY_MAX);
	return NULL;
}

/* ---------------------------------------------------------------- consistency */

/* A NetworkTopologyStrategy option's replica count; 0 if not a count. */
static int
svc_dc_count(const char *v)
{
	char	   *end;
	long		n = strtol(v, &end, 10);

	if (*v == '\0' || *end != '\0' || n < 0 || n > 1000)
		return 0;
	return (int) n;
}

static int
svc_replication_factor(const cf_ks_def *ks)
{
	int			rf = 0;

	if (ks->strategy != CF_STRATEGY_NETWORK_TOPOLOGY)
		return ks->replication_factor;
	for (size_t i = 0; i < ks->n_options; i++)
		rf += svc_dc_count(ks->strategy_options[i].value);
	return rf;
}

static int
svc_dc_replicas(const cf_ks_def *ks, const char *dc)
{
	const char *v = cf_ksdef_option(ks, dc);

	return v ? svc_dc_count(v) : 0;
}

static cf_status *
svc_check_cl(const cf_ks_def *ks, int cl, bool is_write)
{
	if (cf_consistency_name(cl) == NULL)
		return cf_status_make(CF_ERR_INVALID, "unknown consistency level %d", cl);
	if (!is_write && cl == CF_CL_ANY)
		return cf_status_make(CF_ERR_INVALID,
							  "Consistency level any may not be applied to read operations");
	if ((cl == CF_CL_LOCAL_QUORUM || cl == CF_CL_EACH_QUORUM) &&
		ks->strategy != CF_STRATEGY_NETWORK_TOPOLOGY)
		return cf_status_make(CF_ERR_INVALID,
							  "consistency level %s not compatible with replication strategy (%s)",
							  cf_consistency_name(cl), cf_strategy_class(ks->strategy));
	return NULL;
}

cf_status *
cf_service_validate_cl(cf_service *svc, const char *keyspace, int cl, bool is_write)
{
	cf_schema  *schema = cf_db_schema(svc->db);
	const cf_ks_def *ks;
	cf_status  *s = svc_keyspace(schema, keyspace, &ks);

	if (s == NULL)
		s = svc_check_cl(ks, cl, is_write);
	cf_schema_unref(schema);
	return s;
}

/*
 * The replicas of token for ks, nearest first. The ring is this node alone: it holds
 * every range, so it is the one replica whenever the strategy places any replica in
 * its data centre (SimpleStrategy: rf >= 1; NetworkTopologyStrategy: an option for
 * datacenter1 above 0).
 */
static void
svc_natural_endpoints(cf_service *svc, const cf_ks_def *ks, cf_slice token, svc_plan *p)
{
	bool		here;

	(void) token;
	if (ks->strategy == CF_STRATEGY_NETWORK_TOPOLOGY)
		here = svc_dc_replicas(ks, CF_SERVICE_DATACENTER) > 0;
	else
		here = ks->replication_factor >= 1;
	p->n = 0;
	if (here)
		p->replicas[p->n++] = (svc_replica) {
			.endpoint = svc->endpoint,.dc = CF_SERVICE_DATACENTER,.local = true,.alive = true,
		};
}

static int
svc_live_in_dc(const svc_plan *p, const char *dc)
{
	int			n = 0;

	for (size_t i = 0; i < p->n; i++)
		if (p->replicas[i].alive && strcmp(p->replicas[i].dc, dc) == 0)
			n++;
	return n;
}

/*
 * Fills p with the replicas of token and how many must answer for cl, and checks
 * that enough are alive (CF_ERR_UNAVAILABLE otherwise, before anything is sent).
 */
static cf_status *
svc_plan_for(cf_service *svc, const cf_ks_def *ks, cf_slice token, int cl,
			 bool is_write, svc_plan *p)
{
	int			rf = svc_replication_factor(ks);
	int			live = 0;
	cf_status  *s = svc_check_cl(ks, cl, is_write);

	if (s)
		return s;
	svc_natural_endpoints(svc, ks, token, p);
	p->deadline_us = svc_now_us() + svc->rpc_timeout_us;
	for (size_t i = 0; i < p->n; i++)
		live += p->replicas[i].alive;

	switch ((cf_consistency) cl)
	{
		case CF_CL_ANY:
			/* a hint on the coordinator counts: the coordinator is alive */
			p->block_for = 1;
			return NULL;
		case CF_CL_ONE:
			p->block_for = 1;
			break;
		case CF_CL_TWO:
			p->block_for = 2;
			break;
		case CF_CL_THREE:
			p->block_for = 3;
			break;
		case CF_CL_QUORUM:
			p->block_for = rf / 2 + 1;
			break;
		case CF_CL_ALL:
			p->block_for = rf;
			break;
		case CF_CL_LOCAL_QUORUM:
			p->block_for = svc_dc_replicas(ks, CF_SERVICE_DATACENTER) / 2 + 1;
			live = svc_live_in_dc(p, CF_SERVICE_DATACENTER);
			break;
		case CF_CL_EACH_QUORUM:
			for (size_t i = 0; i < ks->n_options; i++)
			{
				const char *dc = ks->strategy_options[i].key;
				int			need = svc_dc_count(ks->strategy_options[i].value) / 2 + 1;
				int			have = svc_live_in_dc(p, dc);

				if (have < need)
					return cf_status_make(CF_ERR_UNAVAILABLE,
										  "cannot achieve EACH_QUORUM: %d of %d replicas alive in data centre %s",
										  have, need, dc);
			}
			p->block_for = (int) p->n;
			return NULL;
	}
	if (p->block_for < 1)
		p->block_for = 1;
	if (live < p->block_for)
		return cf_status_make(CF_ERR_UNAVAILABLE,
							  "cannot achieve consistency level %s: %d replica(s) alive, %d required (replication_factor %d)",
							  cf_consistency_name(cl), live, p->block_for, rf);
	return NULL;
}

/* A response that came after the deadline does not count. */
static cf_status *
svc_check_deadline(const svc_plan *p, const char *what)
{
	if (svc_now_us() > p->deadline_us)
		return cf_status_make(CF_ERR_TIMEOUT, "%s: no answer from enough replicas in time",
							  what);
	return NULL;
}

/* ---------------------------------------------------------------- reads */

/*
 * One replica's part of a read: runs over the replica's tables and leaves its
 * answer in arg (freeing any earlier one is the callback's job).
 */
typedef cf_status *(*svc_read_fn) (cf_service *svc, const cf_cf_def *def,
								   const cf_table_set *ts, void *arg);

/*
 * The read path: plan, ask block_for replicas (nearest first), resolve. With one
 * answer resolution is that answer; the cluster layer will reconcile several by
 * timestamp (and repair the stale ones) here.
 */
static cf_status *
svc_read(cf_service *svc, const char *keyspace, const char *cf, cf_slice token, int cl,
		 svc_read_fn fn, void *arg)
{
	cf_schema  *schema = cf_db_schema(svc->db);
	const cf_ks_def *ks;
	const cf_cf_def *def;
	svc_plan	plan;
	int			answered = 0;
	cf_status  *s = svc_cf(schema, keyspace, cf, &ks, &def);

	if (s == NULL)
		s = svc_plan_for(svc, ks, token, cl, false, &plan);
	for (size_t i = 0; s == NULL && i < plan.n && answered < plan.block_for; i++)
	{
		cf_table_set ts;

		if (!plan.replicas[i].alive)
			continue;
		if (!plan.replicas[i].local)
		{
			s = cf_status_make(CF_ERR_INTERNAL, "no messaging to %s yet",
							   plan.replicas[i].endpoint);
			break;
		}
		s = cf_db_view(svc->db, keyspace, cf, &ts);
		if (s)
			break;
		s = fn(svc, def, &ts, arg);
		cf_cfstore_view_release(&ts);
		if (s == NULL)
			s = svc_check_deadline(&plan, "read");
		if (s == NULL)
			answered++;
	}
	cf_schema_unref(schema);
	return s;
}

/* rows if s is NULL; else frees them and returns NULL (a read's answer on error). */
static cf_read_rows *
svc_rows_or_free(cf_status *s, cf_read_rows *rows)
{
	if (s == NULL)
		return rows;
	cf_read_rows_free(rows);
	return NULL;
}

static cf_status *
svc_token(cf_service *svc, cf_slice key, cf_buf *tok)
{
	cf_status  *s = svc_check_key(key);

	if (s == NULL)
		s = cf_db_token(svc->db, key, tok);
	return s;
}

typedef struct svc_one
{
	cf_slice	token;
	cf_slice	key;
	cf_slice	sc;
	cf_slice	column;
	const cf_predicate *pred;
	cf_read_result *result;
	int32_t		count;
} svc_one;

static cf_status *
svc_get_fn(cf_service *svc, const cf_cf_def *def, const cf_table_set *ts, void *arg)
{
	svc_one    *a = arg;

	(void) svc;
	(void) def;
	cf_read_result_free(a->result);
	a->result = NULL;
	return cf_read_get(ts, a->token, a->key, a->sc, a->column, svc_now_sec(), &a->result);
}

static cf_status *
svc_slice_fn(cf_service *svc, const cf_cf_def *def, const cf_table_set *ts, void *arg)
{
	svc_one    *a = arg;

	(void) svc;
	(void) def;
	cf_read_result_free(a->result);
	a->result = NULL;
	return cf_read_slice(ts, a->token, a->key, a->sc, a->pred, svc_now_sec(), &a->result);
}

static cf_status *
svc_count_fn(cf_service *svc, const cf_cf_def *def, const cf_table_set *ts, void *arg)
{
	svc_one    *a = arg;

	(void) svc;
	(void) def;
	return cf_read_count(ts, a->token, a->key, a->sc, a->pred, svc_now_sec(), &a->count);
}

/*
 * Reads a's key through fn (a->token set from a->key); on an error a->result is
 * freed and NULL.
 */
static cf_status *
svc_one_read(cf_service *svc, const char *keyspace, const char *cf, svc_one *a, int cl,
			 svc_read_fn fn)
{
	cf_buf		tok = CF_BUF_INIT;
	cf_status  *s = svc_token(svc, a->key, &tok);

	if (s == NULL)
	{
		a->token = cf_slice_of(tok.data, tok.len);
		s = svc_read(svc, keyspace, cf, a->token, cl, fn, a);
	}
	cf_buf_free(&tok);
	if (s)
	{
		cf_read_result_free(a->result);
		a->result = NULL;
	}
	return s;
}

cf_status *
cf_service_get(cf_service *svc, const char *keyspace, const char *cf, cf_slice key,
			   cf_slice super_column, cf_slice column, int cl, cf_read_result **out)
{
	svc_one		a = {.key = key,.sc = super_column,.column = column};
	cf_status  *s = svc_one_read(svc, keyspace, cf, &a, cl, svc_get_fn);

	*out = a.result;
	return s;
}

cf_status *
cf_service_slice(cf_service *svc, const char *keyspace, const char *cf, cf_slice key,
				 cf_slice super_column, const cf_predicate *pred, int cl,
				 cf_read_result **out)
{
	svc_one		a = {.key = key,.sc = super_column,.pred = pred};
	cf_status  *s = svc_one_read(svc, keyspace, cf, &a, cl, svc_slice_fn);

	*out = a.result;
	return s;
}

cf_status *
cf_service_count(cf_service *svc, const char *keyspace, const char *cf, cf_slice key,
				 cf_slice super_column, const cf_predicate *pred, int cl, int32_t *count)
{
	svc_one		a = {.key = key,.sc = super_column,.pred = pred};
	cf_status  *s = svc_one_read(svc, keyspace, cf, &a, cl, svc_count_fn);

	*count = s ? 0 : a.count;
	return s;
}

typedef struct svc_multi
{
	const cf_slice *tokens;
	const cf_slice *keys;
	size_t		n_keys;
	cf_slice	sc;
	const cf_predicate *pred;
	cf_read_rows *rows;
} svc_multi;

static cf_status *
svc_multi_fn(cf_service *svc, const cf_cf_def *def, const cf_table_set *ts, void *arg)
{
	svc_multi  *a = arg;

	(void) svc;
	(void) def;
	cf_read_rows_free(a->rows);
	a->rows = NULL;
	return cf_read_multi(ts, a->tokens, a->keys, a->n_keys, a->sc, a->pred,
						 svc_now_sec(), &a->rows);
}

cf_status *
cf_service_multiget(cf_service *svc, const char *keyspace, const char *cf,
					const cf_slice *keys, size_t n_keys, cf_slice super_column,
					const cf_predicate *pred, int cl, cf_read_rows **out)
{
	cf_buf		toks = CF_BUF_INIT;
	size_t	   *offs = NULL;
	cf_slice   *tokens = NULL;
	svc_multi	a = {.keys = keys,.n_keys = n_keys,.sc = super_column,.pred = pred};
	cf_status  *s = NULL;

	*out = NULL;
	if (n_keys > 0)
	{
		offs = malloc((n_keys + 1) * sizeof(*offs));
		tokens = malloc(n_keys * sizeof(*tokens));
		if (offs == NULL || tokens == NULL)
			s = cf_status_make(CF_ERR_NO_MEMORY, "multiget: out of memory");
	}
	for (size_t i = 0; s == NULL && i < n_keys; i++)
	{
		offs[i] = toks.len;
		s = svc_token(svc, keys[i], &toks);
	}
	if (s == NULL)
	{
		for (size_t i = 0; i < n_keys; i++)
			tokens[i] = cf_slice_of(toks.data + offs[i],
									(i + 1 < n_keys ? offs[i + 1] : toks.len) - offs[i]);
		a.tokens = tokens;

		/*
		 * The keys of a multiget may live on different replicas; with one node they
		 * share one plan. The cluster layer groups them by replica set here.
		 */
		s = svc_read(svc, keyspace, cf, n_keys ? tokens[0] : cf_slice_of(NULL, 0), cl,
					 svc_multi_fn, &a);
	}
	*out = svc_rows_or_free(s, a.rows);
	free(offs);
	free(tokens);
	cf_buf_free(&toks);
	return s;
}

typedef struct svc_range
{
	const cf_key_range *range;
	cf_slice	sc;
	const cf_predicate *pred;
	const cf_read_sink *sink;	/* set: the rows go to it, not to rows */
	cf_read_rows *rows;
} svc_range;

static cf_status *
svc_range_fn(cf_service *svc, const cf_cf_def *def, const cf_table_set *ts, void *arg)
{
	svc_range  *a = arg;

	(void) svc;
	(void) def;
	if (a->sink)
		return cf_read_range_sink(ts, a->range, a->sc, a->pred, svc_now_sec(), a->sink);
	cf_read_rows_free(a->rows);
	a->rows = NULL;
	return cf_read_range(ts, a->range, a->sc, a->pred, svc_now_sec(), &a->rows);
}

static cf_status *
svc_parse_token(cf_service *svc, cf_slice text, const char *what, cf_buf *out)
{
	return cf_status_wrap(cf_token_from_string(svc->partitioner, text, out), "%s", what);
}

/* get_range_slices into a->rows, or a->sink if set (a->range is set here). */
static cf_status *
svc_range_slices(cf_service *svc, const char *keyspace, const char *cf,
				 const cf_service_range *range, int cl, svc_range *a)
{
	cf_buf		start = CF_BUF_INIT;
	cf_buf		end = CF_BUF_INIT;
	cf_key_range kr = {.by_token = range->by_token,.count = range->count};
	cf_status  *s = NULL;

	a->range = &kr;
	if (range->count <= 0)
		return cf_status_make(CF_ERR_INVALID, "maxRows must be positive");
	if (range->by_token)
	{
		s = svc_parse_token(svc, range->start_token, "start_token", &start);
		if (s == NULL)
			s = svc_parse_token(svc, range->end_token, "end_token", &end);
	}
	else
	{
		if (range->start_key.len > CF_KEY_MAX || range->end_key.len > CF_KEY_MAX)
			s = cf_status_make(CF_ERR_INVALID, "Key length is longer than maximum of %d",
							   CF_KEY_MAX);
		if (s == NULL && range->start_key.len)
			s = cf_db_token(svc->db, range->start_key, &start);
		if (s == NULL && range->end_key.len)
			s = cf_db_token(svc->db, range->end_key, &end);
		if (s == NULL && range->start_key.len && range->end_key.len &&
			cf_token_cmp(cf_slice_of(start.data, start.len),
						 cf_slice_of(end.data, end.len)) > 0)
		{
			if (svc->partitioner == CF_PARTITIONER_RANDOM)
				s = cf_status_make(CF_ERR_INVALID,
								   "start key's md5 sorts after end key's md5.  this is not allowed; you probably should not specify end key at all, under RandomPartitioner");
			else
				s = cf_status_make(CF_ERR_INVALID,
								   "start key must sort before (or equal to) finish key in your partitioner!");
		}
		kr.start_key = range->start_key;
		kr.end_key = range->end_key;
	}
	if (s == NULL)
	{
		kr.start_token = cf_slice_of(start.data, start.len);
		kr.end_token = cf_slice_of(end.data, end.len);
		s = svc_read(svc, keyspace, cf, kr.end_token, cl, svc_range_fn, a);
	}
	cf_buf_free(&start);
	cf_buf_free(&end);
	return s;
}

cf_status *
cf_service_range_slices(cf_service *svc, const char *keyspace, const char *cf,
						const cf_service_range *range, cf_slice super_column,
						const cf_predicate *pred, int cl, cf_read_rows **out)
{
	svc_range	a = {.sc = super_column,.pred = pred};
	cf_status  *s = svc_range_slices(svc, keyspace, cf, range, cl, &a);

	*out = svc_rows_or_free(s, a.rows);
	return s;
}

cf_status *
cf_service_range_slices_sink(cf_service *svc, const char *keyspace, const char *cf,
							 const cf_service_range *range, cf_slice super_column,
							 const cf_predicate *pred, int cl, const cf_read_sink *sink)
{
	svc_range	a = {.sc = super_column,.pred = pred,.sink = sink};

	return svc_range_slices(svc, keyspace, cf, range, cl, &a);
}

/* ---------------------------------------------------------------- indexed reads */

typedef struct svc_indexed
{
	const char *keyspace;
	const char *cf;
	const cf_index_clause *q;
	const cf_predicate *pred;
	cf_read_rows *rows;
} svc_indexed;

/* The local replica's answer: from the db's index (it validates the clause). */
static cf_status *
svc_indexed_fn(cf_service *svc, const cf_cf_def *def, const cf_table_set *ts, void *arg)
{
	svc_indexed *a = arg;

	(void) def;
	(void) ts;
	cf_read_rows_free(a->rows);
	a->rows = NULL;
	return cf_db_get_indexed_slices(svc->db, a->keyspace, a->cf, a->q, a->pred, &a->rows);
}

cf_status *
cf_service_indexed_slices(cf_service *svc, const char *keyspace, const char *cf,
						  const cf_index_clause *q, const cf_predicate *pred, int cl,
						  cf_read_rows **out)
{
	svc_indexed a = {.keyspace = keyspace,.cf = cf,.q = q,.pred = pred};
	cf_status  *s;

	*out = NULL;
	if (q->start_key.len > CF_KEY_MAX)
		return cf_status_make(CF_ERR_INVALID, "start_key is longer than %d bytes", CF_KEY_MAX);
	s = svc_read(svc, keyspace, cf, cf_slice_of(NULL, 0), cl, svc_indexed_fn, &a);
	*out = svc_rows_or_free(s, a.rows);
	return s;
}

/* ---------------------------------------------------------------- writes */

/* Validates every update of every row against the schema before anything applies. */
static cf_status *
svc_validate_rows(const cf_schema *schema, const char *keyspace,
				  const cf_row_mutation *rows, size_t n_rows)
{
	int32_t		now = svc_now_sec();

	for (size_t r = 0; r < n_rows; r++)
	{
		cf_status  *s = svc_check_key(rows[r].key);

		if (s)
			return s;
		for (size_t i = 0; i < rows[r].n_updates; i++)
		{
			const cf_ks_def *ks;
			const cf_cf_def *def;

			s = svc_cf(schema, keyspace, rows[r].updates[i].cf, &ks, &def);
			if (s == NULL)
				s = cf_cfdef_validate_update(def, &rows[r].updates[i].u, now);
			if (s)
				return s;
		}
	}
	return NULL;
}

/* One row to every replica of its key; waits for block_for acknowledgements. */
static cf_status *
svc_write_row(cf_service *svc, const cf_ks_def *ks, const char *keyspace,
			  const cf_row_mutation *row, int cl)
{
	cf_buf		tok = CF_BUF_INIT;
	svc_plan	plan;
	int			acks = 0;
	cf_status  *s = cf_db_token(svc->db, row->key, &tok);

	if (s == NULL)
		s = svc_plan_for(svc, ks, cf_slice_of(tok.data, tok.len), cl, true, &plan);
	for (size_t i = 0; s == NULL && i < plan.n; i++)
	{
		if (!plan.replicas[i].alive)
			continue;			/* the cluster layer writes a hint here */
		if (!plan.replicas[i].local)
		{
			s = cf_status_make(CF_ERR_INTERNAL, "no messaging to %s yet",
							   plan.replicas[i].endpoint);
			break;
		}
		s = cf_db_apply(svc->db, keyspace, row->key, row->updates, row->n_updates);
		if (s == NULL && svc_now_us() <= plan.deadline_us)
			acks++;
	}
	if (s == NULL && acks < plan.block_for && cl != CF_CL_ANY)
		s = cf_status_make(CF_ERR_TIMEOUT,
						   "write: %d of %d replica acknowledgements in time", acks,
						   plan.block_for);
	cf_buf_free(&tok);
	return s;
}

cf_status *
cf_service_mutate(cf_service *svc, const char *keyspace, const cf_row_mutation *rows,
				  size_t n_rows, int cl)
{
	cf_schema  *schema = cf_db_schema(svc->db);
	const cf_ks_def *ks;
	cf_status  *s = svc_keyspace(schema, keyspace, &ks);

	if (s == NULL)
		s = svc_check_cl(ks, cl, true);
	if (s == NULL)
		s = svc_validate_rows(schema, keyspace, rows, n_rows);
	for (size_t r = 0; s == NULL && r < n_rows; r++)
		s = svc_write_row(svc, ks, keyspace, &rows[r], cl);
	cf_schema_unref(schema);
	return s;
}

cf_status *
cf_service_truncate(cf_service *svc, const char *keyspace, const char *cf)
{
	cf_schema  *schema = cf_db_schema(svc->db);
	const cf_ks_def *ks;
	const cf_cf_def *def;
	cf_status  *s = svc_cf(schema, keyspace, cf, &ks, &def);

	cf_schema_unref(schema);
	/* every node of the ring must be up: the ring is this node, which is */
	if (s == NULL)
		s = cf_db_truncate(svc->db, keyspace, cf);
	return s;
}

/* ---------------------------------------------------------------- schema */

cf_status *
cf_service_schema_id(cf_service *svc, cf_schema_id out)
{
	cf_schema  *schema = cf_db_schema(svc->db);
	cf_buf		enc = CF_BUF_INIT;
	MD5_CTX		ctx;
	uint8_t		digest[MD5_DIGEST_LENGTH];
	uint8_t		next[4];
	cf_status  *s = NULL;

	MD5Init(&ctx);
	for (size_t i = 0; s == NULL && i < cf_schema_n_keyspaces(schema); i++)
	{
		cf_buf_reset(&enc);
		s = cf_ksdef_encode(cf_schema_keyspace_at(schema, i), &enc);
		if (s == NULL)
			s = cf_buf_status(&enc);
		if (s == NULL)
			MD5Update(&ctx, enc.data, enc.len);
	}
	cf_store_be32(next, cf_schema_next_cf_id(schema));
	MD5Update(&ctx, next, sizeof(next));
	MD5Final(digest, &ctx);
	cf_schema_unref(schema);
	cf_buf_free(&enc);
	if (s)
		return s;
	digest[6] = (uint8_t) ((digest[6] & 0x0f) | 0x30);	/* version 3: name-based, MD5 */
	digest[8] = (uint8_t) ((digest[8] & 0x3f) | 0x80);	/* RFC 4122 variant */
	cf_uuid_format(digest, out);
	return NULL;
}

static cf_status *
svc_after_change(cf_service *svc, cf_status *s, cf_schema_id id_out)
{
	if (s == NULL && id_out)
		s = cf_service_schema_id(svc, id_out);
	return s;
}

cf_status *
cf_service_add_keyspace(cf_service *svc, const cf_ks_def *ks, cf_schema_id id_out)
{
	return svc_after_change(svc, cf_db_add_keyspace(svc->db, ks), id_out);
}

cf_status *
cf_service_drop_keyspace(cf_service *svc, const char *keyspace, cf_schema_id id_out)
{
	return svc_after_change(svc, cf_db_drop_keyspace(svc->db, keyspace), id_out);
}

cf_status *
cf_service_update_keyspace(cf_service *svc, const cf_ks_def *ks, cf_schema_id id_out)
{
	return svc_after_change(svc, cf_db_update_keyspace(svc->db, ks), id_out);
}

cf_status *
cf_service_add_cf(cf_service *svc, const cf_cf_def *cf, cf_schema_id id_out)
{
	return svc_after_change(svc, cf_db_add_cf(svc->db, cf), id_out);
}

cf_status *
cf_service_drop_cf(cf_service *svc, const char *keyspace, const char *cf,
				   cf_schema_id id_out)
{
	return svc_after_change(svc, cf_db_drop_cf(svc->db, keyspace, cf), id_out);
}

cf_status *
cf_service_update_cf(cf_service *svc, const cf_cf_def *cf, cf_schema_id id_out)
{
	return svc_after_change(svc, cf_db_update_cf(svc->db, cf), id_out);
}

/* ---------------------------------------------------------------- describe */

void
cf_service_ring_free(cf_service_token_range *r, size_t n)
{
	for (size_t i = 0; r && i < n; i++)
	{
		free(r[i].start_token);
		free(r[i].end_token);
		cf_service_strings_free(r[i].endpoints, r[i].n_endpoints);
	}
	free(r);
}

void
cf_service_strings_free(char **v, size_t n)
{
	for (size_t i = 0; v && i < n; i++)
		free(v[i]);
	free(v);
}

cf_status *
cf_service_describe_ring(cf_service *svc, const char *keyspace,
						 cf_service_token_range **out, size_t *n_out)
{
	cf_schema  *schema = cf_db_schema(svc->db);
	const cf_ks_def *ks;
	cf_service_token_range *r;
	cf_status  *s = svc_keyspace(schema, keyspace, &ks);

	cf_schema_unref(schema);
	*out = NULL;
	*n_out = 0;
	if (s)
		return s;
	r = calloc(1, sizeof(*r));
	if (r == NULL)
		return cf_status_make(CF_ERR_NO_MEMORY, "describe_ring: out of memory");
	r->start_token = strdup(svc->token_text);
	r->end_token = strdup(svc->token_text);
	r->endpoints = calloc(1, sizeof(char *));
	if (r->endpoints)
	{
		r->endpoints[0] = strdup(svc->endpoint);
		r->n_endpoints = 1;
	}
	if (!r->start_token || !r->end_token || !r->endpoints || !r->endpoints[0])
	{
		cf_service_ring_free(r, 1);
		return cf_status_make(CF_ERR_NO_MEMORY, "describe_ring: out of memory");
	}
	*out = r;
	*n_out = 1;
	return NULL;
}

typedef struct svc_sample
{
	int			group;			/* 0: after start; 1: wrapped past the end of the ring */
	cf_slice	token;
	double		weight;			/* rows it stands for */
} svc_sample;

static int
svc_sample_cmp(const void *a, const void *b)
{
	const svc_sample *x = a;
	const svc_sample *y = b;

	if (x->group != y->group)
		return x->group - y->group;
	return cf_token_cmp(x->token, y->token);
}

static char *
svc_slice_strdup(cf_slice s)
{
	char	   *p = malloc(s.len + 1);

	if (p)
	{
		if (s.len)
			memcpy(p, s.p, s.len);
		p[s.len] = '\0';
	}
	return p;
}

cf_status *
cf_service_describe_splits(cf_service *svc, const char *keyspace, const char *cf,
						   cf_slice start_token, cf_slice end_token,
						   int32_t keys_per_split, char ***out, size_t *n_out)
{
	cf_buf		sb = CF_BUF_INIT;
	cf_buf		eb = CF_BUF_INIT;
	cf_buf		text = CF_BUF_INIT;
	cf_table_set ts;
	bool		have_view = false;
	svc_sample *samples = NULL;
	size_t		n_samples = 0;
	char	  **res = NULL;
	size_t		n_res = 0;
	cf_status  *s = NULL;

	*out = NULL;
	*n_out = 0;
	if (keys_per_split <= 0)
		return cf_status_make(CF_ERR_INVALID, "keys_per_split must be positive, got %d",
							  keys_per_split);
	s = svc_parse_token(svc, start_token, "start_token", &sb);
	if (s == NULL)
		s = svc_parse_token(svc, end_token, "end_token", &eb);
	if (s == NULL)
		s = cf_db_view(svc->db, keyspace, cf, &ts);
	have_view = s == NULL;
	if (s == NULL)
	{
		size_t		total = 0;

		for (size_t i = 0; i < ts.n_sstables; i++)
			total += cf_sstable_sample_count(ts.sstables[i]);
		samples = malloc((total + 1) * sizeof(*samples));
		res = malloc((total + 2) * sizeof(*res));
		if (samples == NULL || res == NULL)
			s = cf_status_make(CF_ERR_NO_MEMORY, "describe_splits: out of memory");
	}
	if (s == NULL)
	{
		cf_slice	st = cf_slice_of(sb.data, sb.len);
		cf_slice	et = cf_slice_of(eb.data, eb.len);

		for (size_t i = 0; i < ts.n_sstables; i++)
		{
			size_t		n = cf_sstable_sample_count(ts.sstables[i]);
			double		w = n ? (double) cf_sstable_get_stats(ts.sstables[i])->rows / n : 0;

			for (size_t j = 0; j < n; j++)
			{
				cf_slice	tk,
							key;

				cf_sstable_sample(ts.sstables[i], j, &tk, &key);
				if (!cf_token_range_contains(st, et, tk))
					continue;
				samples[n_samples++] = (svc_sample) {
					.group = cf_token_cmp(tk, st) > 0 ? 0 : 1,.token = tk,.weight = w,
				};
			}
		}
		qsort(samples, n_samples, sizeof(*samples), svc_sample_cmp);

		res[n_res] = svc_slice_strdup(start_token);
		if (res[n_res++] == NULL)
			s = cf_status_make(CF_ERR_NO_MEMORY, "describe_splits: out of memory");
		{
			double		acc = 0;

			for (size_t i = 0; s == NULL && i < n_samples; i++)
			{
				acc += samples[i].weight;
				if (acc < keys_per_split || cf_token_cmp(samples[i].token, et) == 0)
					continue;
				if (i + 1 < n_samples &&
					cf_token_cmp(samples[i].token, samples[i + 1].token) == 0)
					continue;	/* one split point per token */
				acc = 0;
				cf_buf_reset(&text);
				s = cf_token_to_string(svc->partitioner, samples[i].token, &text);
				if (s == NULL)
					s = cf_buf_status(&text);
				if (s == NULL)
				{
					res[n_res] = svc_slice_strdup(cf_slice_of(text.data, text.len));
					if (res[n_res++] == NULL)
						s = cf_status_make(CF_ERR_NO_MEMORY, "describe_splits: out of memory");
				}
			}
		}
		if (s == NULL)
		{
			res[n_res] = svc_slice_strdup(end_token);
			if (res[n_res++] == NULL)
				s = cf_status_make(CF_ERR_NO_MEMORY, "describe_splits: out of memory");
		}
	}
	if (have_view)
		cf_cfstore_view_release(&ts);
	free(samples);
	cf_buf_free(&sb);
	cf_buf_free(&eb);
	cf_buf_free(&text);
	if (s)
	{
		cf_service_strings_free(res, n_res);
		return s;
	}
	*out = res;
	*n_out = n_res;
	return NULL;
}
