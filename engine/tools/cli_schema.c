/*
 * tools/cli_schema.c — with-clauses of create/update keyspace and column family
 * statements applied to KsDef/CfDef (see cli_schema.h).
 *
 * Attributes are checked here, not in the parser, so the parser stays a pure
 * syntax check and the messages can name the valid attributes of each statement.
 */
#include "tools/cli_schema.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "tools/cli_types.h"

#define LOCATOR "org.apache.cassandra.locator."

const char	cft_strategy_names_hint[] =
"SimpleStrategy, NetworkTopologyStrategy, OldNetworkTopologyStrategy";

const char *
cft_strategy_class(const char *name, size_t len)
{
	static const struct
	{
		const char *name;
		const char *cls;
	}			map[] = {
		{"SimpleStrategy", LOCATOR "SimpleStrategy"},
		{"NetworkTopologyStrategy", LOCATOR "NetworkTopologyStrategy"},
		{"OldNetworkTopologyStrategy", LOCATOR "OldNetworkTopologyStrategy"},
		{"RackUnawareStrategy", LOCATOR "SimpleStrategy"},
		{"RackAwareStrategy", LOCATOR "OldNetworkTopologyStrategy"},
	};
	size_t		plen = strlen(LOCATOR);

	if (len > plen && memcmp(name, LOCATOR, plen) == 0)
	{
		name += plen;
		len -= plen;
	}
	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		if (strlen(map[i].name) == len && memcmp(map[i].name, name, len) == 0)
			return map[i].cls;
	return NULL;
}

void
cft_ks_def_init(cf_t_ks_def *def, const char *name)
{
	memset(def, 0, sizeof(*def));
	def->name = cf_slice_str(name);
	def->strategy_class = cf_slice_str(CFT_DEFAULT_STRATEGY);
	def->replication_factor = 1;
}

void
cft_cf_def_init(cf_t_cf_def *def, const char *keyspace, const char *name)
{
	memset(def, 0, sizeof(*def));
	def->keyspace = cf_slice_str(keyspace);
	def->name = cf_slice_str(name);
	def->has_column_type = true;
	def->column_type = cf_slice_str("Standard");
	def->has_comparator_type = true;
	def->comparator_type = cf_slice_str(cft_type_class(CFT_BYTES));
}

bool
cft_column_type_valid(cf_slice v, const char **canonical)
{
	if (v.len == 8 && strncasecmp((const char *) v.p, "Standard", 8) == 0)
		*canonical = "Standard";
	else if (v.len == 5 && strncasecmp((const char *) v.p, "Super", 5) == 0)
		*canonical = "Super";
	else
		return false;
	return true;
}

static cf_status *
want_scalar(const cft_attr *a)
{
	if (a->is_list)
		return cft_error_at(a->line, a->col,
							"%s takes one value, not a [{...}] list", a->name);
	return NULL;
}

static cf_status *
attr_int(const cft_attr *a, int64_t min, int64_t max, int32_t *out)
{
	char	   *end;
	long long	v;
	cf_status  *st;

	if ((st = want_scalar(a)) != NULL)
		return st;
	errno = 0;
	v = strtoll(a->value.text, &end, 10);
	if (a->value.kind == CFT_TERM_FUNC || *a->value.text == '\0' || *end != '\0' ||
		errno != 0 || v < min || v > max)
		return cft_error_at(a->line, a->col,
							"%s must be an integer from %lld to %lld, not '%.40s'",
							a->name, (long long) min, (long long) max, a->value.text);
	*out = (int32_t) v;
	return NULL;
}

static cf_status *
attr_double(const cft_attr *a, double min, double max, double *out)
{
	char	   *end;
	double		v;
	cf_status  *st;

	if ((st = want_scalar(a)) != NULL)
		return st;
	errno = 0;
	v = strtod(a->value.text, &end);
	if (a->value.kind == CFT_TERM_FUNC || *a->value.text == '\0' || *end != '\0' ||
		errno != 0 || !isfinite(v) || v < min || v > max)
		return cft_error_at(a->line, a->col, "%s must be a number from %g to %g, not '%.40s'",
							a->name, min, max, a->value.text);
	*out = v;
	return NULL;
}

/* A marshal type attribute, stored as its full class name. */
static cf_status *
attr_type(const cft_attr *a, cf_slice *out)
{
	cft_type	t;
	cf_status  *st;

	if ((st = want_scalar(a)) != NULL)
		return st;
	if ((st = cft_type_parse(cf_slice_str(a->value.text), a->name, &t)) != NULL)
		return cf_status_wrap(st, "line %d, column %d", a->line, a->col);
	*out = cf_slice_str(cft_type_class(t));
	return NULL;
}

cf_status *
cft_ks_def_apply(const cft_stmt *s, cf_arena *arena, cf_t_ks_def *def)
{
	cf_status  *st;

	for (size_t i = 0; i < s->n_attrs; i++)
	{
		const cft_attr *a = &s->attrs[i];

		if (strcasecmp(a->name, "placement_strategy") == 0)
		{
			const char *cls;

			if ((st = want_scalar(a)) != NULL)
				return st;
			cls = cft_strategy_class(a->value.text, a->value.len);
			if (cls == NULL)
				return cft_error_at(a->line, a->col,
									"unknown placement_strategy '%.80s'\nhint: valid "
									"strategies are %s (alone or as "
									"org.apache.cassandra.locator.<Strategy>)",
									a->value.text, cft_strategy_names_hint);
			def->strategy_class = cf_slice_str(cls);
		}
		else if (strcasecmp(a->name, "replication_factor") == 0)
		{
			if ((st = attr_int(a, 1, INT32_MAX, &def->replication_factor)) != NULL)
				return st;
		}
		else if (strcasecmp(a->name, "strategy_options") == 0)
		{
			size_t		n = 0;

			if (!a->is_list)
				return cft_error_at(a->line, a->col,
									"strategy_options takes [{name: value, ...}], e.g. "
									"[{DC1: 2, DC2: 2}]");
			for (size_t h = 0; h < a->n_hashes; h++)
				n += a->hashes[h].n_pairs;
			def->strategy_options = cf_arena_alloc(arena, (n ? n : 1) * sizeof(cf_t_string_pair));
			if (def->strategy_options == NULL)
				return cf_status_make(CF_ERR_NO_MEMORY, "out of memory");
			def->n_strategy_options = 0;
			for (size_t h = 0; h < a->n_hashes; h++)
				for (size_t k = 0; k < a->hashes[h].n_pairs; k++)
				{
					cf_t_string_pair *o = &def->strategy_options[def->n_strategy_options++];

					o->key = cf_slice_str(a->hashes[h].pairs[k].key.text);
					o->value = cf_slice_str(a->hashes[h].pairs[k].value.text);
				}
			def->has_strategy_options = true;
		}
		else
			return cft_error_at(a->line, a->col,
								"unknown keyspace attribute '%s'\nhint: valid attributes "
								"are placement_strategy, replication_factor and "
								"strategy_options", a->name);
	}
	return NULL;
}

static const char cf_attrs_hint[] =
"column_type, comparator, subcomparator, comment, rows_cached, row_cache_save_period, "
"keys_cached, key_cache_save_period, read_repair_chance, gc_grace, "
"default_validation_class, min_compaction_threshold, max_compaction_threshold, "
"memtable_flush_after, memtable_throughput, memtable_operations, column_metadata";

/* column_metadata = [{column_name: n, validation_class: T, index_type: KEYS, index_name: x}] */
static cf_status *
apply_column_metadata(const cft_attr *a, cf_arena *arena, cf_t_cf_def *def)
{
	cft_type	comparator = CFT_BYTES;
	const cf_slice name_type = def->has_subcomparator_type &&
		def->column_type.len == 5 ? def->subcomparator_type : def->comparator_type;
	cf_status  *st;

	if (!a->is_list)
		return cft_error_at(a->line, a->col,
							"column_metadata takes [{column_name: NAME, validation_class: "
							"TYPE[, index_type: KEYS][, index_name: NAME]}, ...]");
	if (def->has_comparator_type &&
		(st = cft_type_parse(name_type, "comparator", &comparator)) != NULL)
		return st;
	def->column_metadata = cf_arena_alloc(arena, (a->n_hashes ? a->n_hashes : 1) *
										  sizeof(cf_t_column_def));
	if (def->column_metadata == NULL)
		return cf_status_make(CF_ERR_NO_MEMORY, "out of memory");
	def->n_column_metadata = 0;
	def->has_column_metadata = true;
	for (size_t h = 0; h < a->n_hashes; h++)
	{
		const cft_hash *hash = &a->hashes[h];
		cf_t_column_def *cd = &def->column_metadata[def->n_column_metadata++];
		bool		has_name = false,
					has_class = false;

		memset(cd, 0, sizeof(*cd));
		for (size_t k = 0; k < hash->n_pairs; k++)
		{
			const cft_pair *p = &hash->pairs[k];
			const char *key = p->key.text;

			if (strcasecmp(key, "column_name") == 0)
			{
				cf_buf		b = CF_BUF_INIT;
				size_t		len;
				uint8_t    *bytes;

				if ((st = cft_term_bytes(&p->value, comparator, &b)) != NULL)
				{
					cf_buf_free(&b);
					return st;
				}
				bytes = cf_arena_dup(arena, b.data ? (void *) b.data : (void *) "", b.len);
				len = b.len;
				cf_buf_free(&b);
				if (bytes == NULL)
					return cf_status_make(CF_ERR_NO_MEMORY, "out of memory");
				cd->name = cf_slice_of(bytes, len);
				has_name = true;
			}
			else if (strcasecmp(key, "validation_class") == 0)
			{
				cft_type	t;

				if ((st = cft_type_parse(cf_slice_str(p->value.text), "validation_class",
										 &t)) != NULL)
					return cf_status_wrap(st, "line %d, column %d", p->value.line,
										  p->value.col);
				cd->validation_class = cf_slice_str(cft_type_class(t));
				has_class = true;
			}
			else if (strcasecmp(key, "index_type") == 0)
			{
				if (strcasecmp(p->value.text, "KEYS") != 0 && strcmp(p->value.text, "0") != 0)
					return cf_status_make(CF_ERR_INVALID, "line %d, column %d: unknown "
										  "index_type '%.40s'\nhint: 0.7 has one index type, "
										  "KEYS", p->value.line, p->value.col, p->value.text);
				cd->has_index_type = true;
				cd->index_type = CF_T_INDEX_KEYS;
			}
			else if (strcasecmp(key, "index_name") == 0)
			{
				cd->has_index_name = true;
				cd->index_name = cf_slice_str(p->value.text);
			}
			else
				return cf_status_make(CF_ERR_INVALID, "line %d, column %d: unknown "
									  "column_metadata field '%.40s'\nhint: valid fields are "
									  "column_name, validation_class, index_type and "
									  "index_name", p->key.line, p->key.col, key);
		}
		if (!has_name || !has_class)
			return cf_status_make(CF_ERR_INVALID, "line %d, column %d: column_metadata "
								  "entry lacks %s", hash->line, hash->col,
								  has_name ? "validation_class" : "column_name");
	}
	return NULL;
}

cf_status *
cft_cf_def_apply(const cft_stmt *s, cf_arena *arena, cf_t_cf_def *def)
{
	const cft_attr *metadata = NULL;
	cf_status  *st = NULL;

	for (size_t i = 0; i < s->n_attrs && st == NULL; i++)
	{
		const cft_attr *a = &s->attrs[i];
		const char *n = a->name;

		if (strcasecmp(n, "column_type") == 0)
		{
			const char *canon;

			if ((st = want_scalar(a)) == NULL &&
				!cft_column_type_valid(cf_slice_str(a->value.text), &canon))
				st = cft_error_at(a->line, a->col,
								  "column_type must be Standard or Super, not '%.40s'",
								  a->value.text);
			if (st == NULL)
			{
				def->has_column_type = true;
				def->column_type = cf_slice_str(canon);
			}
		}
		else if (strcasecmp(n, "comparator") == 0)
		{
			def->has_comparator_type = true;
			st = attr_type(a, &def->comparator_type);
		}
		else if (strcasecmp(n, "subcomparator") == 0)
		{
			def->has_subcomparator_type = true;
			st = attr_type(a, &def->subcomparator_type);
		}
		else if (strcasecmp(n, "default_validation_class") == 0)
		{
			def->has_default_validation_class = true;
			st = attr_type(a, &def->default_validation_class);
		}
		else if (strcasecmp(n, "comment") == 0)
		{
			if ((st = want_scalar(a)) == NULL)
			{
				def->has_comment = true;
				def->comment = cf_slice_str(a->value.text);
			}
		}
		else if (strcasecmp(n, "rows_cached") == 0)
		{
			def->has_row_cache_size = true;
			st = attr_double(a, 0, 1e12, &def->row_cache_size);
		}
		else if (strcasecmp(n, "keys_cached") == 0)
		{
			def->has_key_cache_size = true;
			st = attr_double(a, 0, 1e12, &def->key_cache_size);
		}
		else if (strcasecmp(n, "read_repair_chance") == 0)
		{
			def->has_read_repair_chance = true;
			st = attr_double(a, 0, 1, &def->read_repair_chance);
		}
		else if (strcasecmp(n, "memtable_operations") == 0)
		{
			def->has_memtable_operations_in_millions = true;
			st = attr_double(a, 0, 1e6, &def->memtable_operations_in_millions);
		}
		else if (strcasecmp(n, "gc_grace") == 0)
		{
			def->has_gc_grace_seconds = true;
			st = attr_int(a, 0, INT32_MAX, &def->gc_grace_seconds);
		}
		else if (strcasecmp(n, "row_cache_save_period") == 0)
		{
			def->has_row_cache_save_period_in_seconds = true;
			st = attr_int(a, 0, INT32_MAX, &def->row_cache_save_period_in_seconds);
		}
		else if (strcasecmp(n, "key_cache_save_period") == 0)
		{
			def->has_key_cache_save_period_in_seconds = true;
			st = attr_int(a, 0, INT32_MAX, &def->key_cache_save_period_in_seconds);
		}
		else if (strcasecmp(n, "min_compaction_threshold") == 0)
		{
			def->has_min_compaction_threshold = true;
			st = attr_int(a, 0, INT32_MAX, &def->min_compaction_threshold);
		}
		else if (strcasecmp(n, "max_compaction_threshold") == 0)
		{
			def->has_max_compaction_threshold = true;
			st = attr_int(a, 0, INT32_MAX, &def->max_compaction_threshold);
		}
		else if (strcasecmp(n, "memtable_flush_after") == 0)
		{
			def->has_memtable_flush_after_mins = true;
			st = attr_int(a, 1, INT32_MAX, &def->memtable_flush_after_mins);
		}
		else if (strcasecmp(n, "memtable_throughput") == 0)
		{
			def->has_memtable_throughput_in_mb = true;
			st = attr_int(a, 1, INT32_MAX, &def->memtable_throughput_in_mb);
		}
		else if (strcasecmp(n, "column_metadata") == 0)
			metadata = a;		/* after the comparator is known */
		else
			st = cft_error_at(a->line, a->col,
							  "unknown column family attribute '%s'\nhint: valid "
							  "attributes are %s", n, cf_attrs_hint);
	}
	if (st == NULL && def->has_subcomparator_type &&
		!(def->column_type.len == 5 && memcmp(def->column_type.p, "Super", 5) == 0))
		st = cf_status_make(CF_ERR_INVALID, "line %d, column %d: subcomparator is only for "
							"column_type = Super", s->line, s->col);
	if (st == NULL && metadata != NULL)
		st = apply_column_metadata(metadata, arena, def);
	return st;
}
