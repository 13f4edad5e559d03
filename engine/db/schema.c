/*
 * db/schema.c — keyspace and column-family definitions, their validation, schema
 * snapshots, the encoding of a keyspace record, and mutation validation (see schema.h;
 * the encoding is engine/doc/schema_format.md).
 *
 * Assumptions: schemas are small (tens of keyspaces, hundreds of CFs) and change
 * rarely, so every change deep-copies the snapshot and rebuilds its indexes; lookups on
 * the read path are binary searches over arrays sorted when a snapshot is made.
 * Messages quote user-supplied names only after clean_text() has made them printable
 * and short, since they travel back to clients as InvalidRequestException.why.
 */
#include "db/schema.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/types.h>

#include "util/failalloc.h"
#include "util/utf8.h"

struct cf_schema
{
	int			refs;			/* atomic */
	uint8_t		version[CF_UUID_LEN];
	uint32_t	next_cf_id;
	cf_ks_def  *ks;				/* sorted by name; each one's cfs sorted by name */
	size_t		n_ks;
	const cf_cf_def **by_id;	/* every CF, sorted by id */
	size_t		n_ids;
	struct index_ref *idx_by_id;	/* every index, sorted by index id */
	size_t		n_idx;
};

struct index_ref
{
	uint32_t	id;
	const cf_cf_def *cf;
	const cf_column_def *col;
};

#define STRATEGY_PREFIX "org.apache.cassandra.locator."

static const char *const strategy_names[CF_STRATEGY_COUNT_] = {
	"SimpleStrategy",
	"OldNetworkTopologyStrategy",
	"NetworkTopologyStrategy",
};

static const char *const strategy_classes[CF_STRATEGY_COUNT_] = {
	STRATEGY_PREFIX "SimpleStrategy",
	STRATEGY_PREFIX "OldNetworkTopologyStrategy",
	STRATEGY_PREFIX "NetworkTopologyStrategy",
};

/* Room for a quoted name or value in a message. */
#define TEXT_MAX 72

/* ---- allocation, with the test-only failure injection of schema.h ---- */

static cf_failalloc failalloc;

bool
cf_schema_test_fail_alloc(unsigned long n)
{
	return cf_failalloc_arm(&failalloc, n);
}

#define alloc_fails() cf_failalloc_fails(&failalloc)
#define mem_malloc(n) cf_failalloc_malloc(&failalloc, (n))
#define mem_calloc(n, size) cf_failalloc_calloc(&failalloc, (n), (size))
#define mem_realloc(p, n) cf_failalloc_realloc(&failalloc, (p), (n))

static char *
mem_strdup(const char *s)
{
	return alloc_fails() ? NULL : strdup(s);
}

/* ---- small helpers ---- */

static cf_status *
no_memory(const char *what)
{
	return cf_status_make(CF_ERR_NO_MEMORY, "out of memory %s", what);
}

/* *dst = copy of src (NULL stays NULL). false on no memory. */
static bool
dup_str(char **dst, const char *src)
{
	*dst = NULL;
	if (src == NULL)
		return true;
	*dst = mem_strdup(src);
	return *dst != NULL;
}

/*
 * A printable, bounded rendering of v into out (size >= 8): control bytes become '?',
 * and so do bytes >= 0x80 unless v is valid UTF-8; longer text is cut at a character
 * boundary and ends in "...".
 */
static const char *
clean_text(cf_slice v, char *out, size_t size)
{
	bool		utf8 = cf_utf8_invalid_at(v.p, v.len) == v.len;
	size_t		n = 0;
	size_t		i;

	for (i = 0; i < v.len && n + 4 < size; i++)
	{
		uint8_t		c = v.p[i];

		out[n++] = (char) ((c < 0x20 || c == 0x7f || (c >= 0x80 && !utf8)) ? '?' : c);
	}
	if (i < v.len)
	{
		/* Cut inside a character: drop its lead byte and continuation bytes. */
		if (utf8 && (v.p[i] & 0xC0) == 0x80)
		{
			while (n > 0 && ((uint8_t) out[n - 1] & 0xC0) == 0x80)
				n--;
			if (n > 0)
				n--;
		}
		memcpy(out + n, "...", 3);
		n += 3;
	}
	out[n] = '\0';
	return out;
}

static const char *
clean_str(const char *s, char *out, size_t size)
{
	return clean_text(cf_slice_str(s ? s : ""), out, size);
}

/* A name (valid under t) as text for a message. */
static const char *
describe(cf_type t, cf_slice v, char *out, size_t size)
{
	cf_buf		b = CF_BUF_INIT;

	cf_type_to_string(t, v, &b);
	if (!cf_buf_ok(&b))
		clean_text(v, out, size);
	else
		clean_text(cf_slice_of(b.data, b.len), out, size);
	cf_buf_free(&b);
	return out;
}

static bool
type_ok(cf_type t)
{
	return (int) t >= 0 && t < CF_TYPE_COUNT_;
}

/* A keyspace, column family or index name (schema.h). */
cf_status *
cf_schema_name_check(const char *what, const char *name)
{
	char		txt[TEXT_MAX];
	size_t		len;

	if (name == NULL || name[0] == '\0')
		return cf_status_make(CF_ERR_INVALID,
							  "%s name must not be empty: use 1 to %d characters of "
							  "A-Z, a-z, 0-9 and _", what, CF_SCHEMA_NAME_MAX);
	len = strlen(name);
	for (size_t i = 0; i < len; i++)
	{
		char		c = name[i];

		if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
			  (c >= '0' && c <= '9') || c == '_'))
			return cf_status_make(CF_ERR_INVALID,
								  "%s name '%s' has an invalid character (byte 0x%02x at "
								  "offset %zu): use only A-Z, a-z, 0-9 and _",
								  what, clean_str(name, txt, sizeof(txt)),
								  (unsigned) (uint8_t) c, i);
	}
	if (len > CF_SCHEMA_NAME_MAX)
		return cf_status_make(CF_ERR_INVALID,
							  "%s name '%s' is %zu characters long: at most %d are allowed",
							  what, clean_str(name, txt, sizeof(txt)), len,
							  CF_SCHEMA_NAME_MAX);
	return NULL;
}

static bool
is_system(const char *keyspace)
{
	return keyspace != NULL && strcasecmp(keyspace, CF_SCHEMA_SYSTEM_KEYSPACE) == 0;
}

static cf_status *
check_not_system(const char *keyspace, unsigned flags)
{
	if (is_system(keyspace) && !(flags & CF_SCHEMA_ALLOW_SYSTEM))
		return cf_status_make(CF_ERR_INVALID,
							  "keyspace '%s' is reserved for colfam's own tables and "
							  "cannot be created, changed or dropped by users; use another "
							  "keyspace name", CF_SCHEMA_SYSTEM_KEYSPACE);
	return NULL;
}

/* A Thrift string we keep: at most CF_SCHEMA_STRING_MAX bytes of valid UTF-8. */
static cf_status *
check_text(const char *what, const char *s)
{
	size_t		len = strlen(s);
	size_t		bad;

	if (len > CF_SCHEMA_STRING_MAX)
		return cf_status_make(CF_ERR_INVALID, "%s is %zu bytes long: at most %d are allowed",
							  what, len, CF_SCHEMA_STRING_MAX);
	bad = cf_utf8_invalid_at((const uint8_t *) s, len);
	if (bad != len)
		return cf_status_make(CF_ERR_INVALID, "%s has invalid UTF-8 at byte %zu", what, bad);
	return NULL;
}

static int
cmp_strp(const void *a, const void *b)
{
	return strcmp(*(const char *const *) a, *(const char *const *) b);
}

/*
 * Sorts names (an array the caller owns) and sets *dup to a name that occurs twice,
 * or NULL. O(n log n).
 */
static void
find_duplicate(const char **names, size_t n, const char **dup)
{
	*dup = NULL;
	if (n < 2)
		return;
	qsort(names, n, sizeof(*names), cmp_strp);
	for (size_t i = 1; i < n; i++)
	{
		if (strcmp(names[i - 1], names[i]) == 0)
		{
			*dup = names[i];
			return;
		}
	}
}

/* ---- strategies ---- */

cf_status *
cf_strategy_parse(const char *name, cf_strategy *out)
{
	const char *shortname = name ? name : "";
	char		txt[TEXT_MAX];

	if (strncmp(shortname, STRATEGY_PREFIX, strlen(STRATEGY_PREFIX)) == 0)
		shortname += strlen(STRATEGY_PREFIX);
	for (int s = 0; s < CF_STRATEGY_COUNT_; s++)
	{
		if (strcmp(shortname, strategy_names[s]) == 0)
		{
			*out = (cf_strategy) s;
			return NULL;
		}
	}
	return cf_status_make(CF_ERR_INVALID,
						  "unknown strategy_class '%s': valid classes are SimpleStrategy, "
						  "OldNetworkTopologyStrategy and NetworkTopologyStrategy, "
						  "optionally prefixed with " STRATEGY_PREFIX,
						  clean_str(name, txt, sizeof(txt)));
}

const char *
cf_strategy_name(cf_strategy s)
{
	return ((int) s >= 0 && s < CF_STRATEGY_COUNT_) ? strategy_names[s] : "UnknownStrategy";
}

const char *
cf_strategy_class(cf_strategy s)
{
	return ((int) s >= 0 && s < CF_STRATEGY_COUNT_) ? strategy_classes[s] : "UnknownStrategy";
}

/* ---- column family definitions ---- */

cf_status *
cf_cfdef_init(cf_cf_def *d, const char *keyspace, const char *name)
{
	memset(d, 0, sizeof(*d));
	d->comparator = CF_TYPE_BYTES;
	d->subcomparator = CF_TYPE_BYTES;
	d->default_validator = CF_TYPE_BYTES;
	d->row_cache_size = 0;
	d->key_cache_size = CF_CFDEF_DEFAULT_KEY_CACHE_SIZE;
	d->read_repair_chance = CF_CFDEF_DEFAULT_READ_REPAIR_CHANCE;
	d->gc_grace_seconds = CF_CFDEF_DEFAULT_GC_GRACE_SECONDS;
	d->min_compaction_threshold = CF_CFDEF_DEFAULT_MIN_COMPACTION_THRESHOLD;
	d->max_compaction_threshold = CF_CFDEF_DEFAULT_MAX_COMPACTION_THRESHOLD;
	d->row_cache_save_period_in_seconds = CF_CFDEF_DEFAULT_ROW_CACHE_SAVE_PERIOD;
	d->key_cache_save_period_in_seconds = CF_CFDEF_DEFAULT_KEY_CACHE_SAVE_PERIOD;
	d->memtable_flush_after_mins = CF_CFDEF_DEFAULT_MEMTABLE_FLUSH_AFTER_MINS;
	d->memtable_throughput_in_mb = CF_CFDEF_DEFAULT_MEMTABLE_THROUGHPUT_IN_MB;
	d->memtable_operations_in_millions = CF_CFDEF_DEFAULT_MEMTABLE_OPERATIONS_IN_MILLIONS;
	if (!dup_str(&d->keyspace, keyspace) || !dup_str(&d->name, name))
		return no_memory("initialising a column family definition");
	return NULL;
}

static void
column_clear(cf_column_def *c)
{
	free(c->name);
	free(c->index_name);
	memset(c, 0, sizeof(*c));
}

void
cf_cfdef_clear(cf_cf_def *d)
{
	if (d == NULL)
		return;
	for (size_t i = 0; i < d->n_columns; i++)
		column_clear(&d->column_metadata[i]);
	free(d->column_metadata);
	free(d->keyspace);
	free(d->name);
	free(d->comment);
	memset(d, 0, sizeof(*d));
}

static bool
column_copy(cf_column_def *dst, const cf_column_def *src)
{
	*dst = *src;
	dst->name = NULL;
	dst->index_name = NULL;
	if (src->name_len > 0)
	{
		dst->name = mem_malloc(src->name_len);
		if (dst->name == NULL)
			return false;
		memcpy(dst->name, src->name, src->name_len);
	}
	return dup_str(&dst->index_name, src->index_name);
}

cf_status *
cf_cfdef_copy(cf_cf_def *dst, const cf_cf_def *src)
{
	*dst = *src;
	dst->keyspace = dst->name = dst->comment = NULL;
	dst->column_metadata = NULL;
	dst->n_columns = 0;
	if (!dup_str(&dst->keyspace, src->keyspace) || !dup_str(&dst->name, src->name) ||
		!dup_str(&dst->comment, src->comment))
		goto oom;
	if (src->n_columns > 0)
	{
		dst->column_metadata = mem_calloc(src->n_columns, sizeof(cf_column_def));
		if (dst->column_metadata == NULL)
			goto oom;
		for (size_t i = 0; i < src->n_columns; i++)
		{
			dst->n_columns++;
			if (!column_copy(&dst->column_metadata[i], &src->column_metadata[i]))
				goto oom;
		}
	}
	return NULL;

oom:
	cf_cfdef_clear(dst);
	return no_memory("copying a column family definition");
}

cf_status *
cf_cfdef_set_column_type(cf_cf_def *d, const char *column_type)
{
	char		txt[TEXT_MAX];

	if (column_type != NULL && strcmp(column_type, "Standard") == 0)
		d->super = false;
	else if (column_type != NULL && strcmp(column_type, "Super") == 0)
		d->super = true;
	else
		return cf_status_make(CF_ERR_INVALID,
							  "column_type '%s' is not valid: use Standard or Super",
							  clean_str(column_type, txt, sizeof(txt)));
	return NULL;
}

static cf_status *
set_type(const cf_cf_def *d, const char *field, const char *type_name, cf_type *out)
{
	char		txt[TEXT_MAX];

	return cf_status_wrap(cf_type_parse(type_name, out), "%s of column family '%s'",
						  field, clean_str(d->name, txt, sizeof(txt)));
}

cf_status *
cf_cfdef_set_comparator(cf_cf_def *d, const char *type_name)
{
	return set_type(d, "comparator_type", type_name, &d->comparator);
}

cf_status *
cf_cfdef_set_subcomparator(cf_cf_def *d, const char *type_name)
{
	cf_status  *st = set_type(d, "subcomparator_type", type_name, &d->subcomparator);

	if (st == NULL)
		d->has_subcomparator = true;
	return st;
}

cf_status *
cf_cfdef_set_default_validator(cf_cf_def *d, const char *type_name)
{
	return set_type(d, "default_validation_class", type_name, &d->default_validator);
}

cf_status *
cf_cfdef_set_comment(cf_cf_def *d, const char *comment)
{
	char	   *c;

	if (!dup_str(&c, comment))
		return no_memory("setting a comment");
	free(d->comment);
	d->comment = c;
	return NULL;
}

cf_status *
cf_cfdef_add_column(cf_cf_def *d, cf_slice name, const char *validation_class,
					bool indexed, const char *index_name)
{
	cf_column_def c = {0};
	cf_column_def *grown;
	cf_status  *st;
	char		txt[TEXT_MAX];
	char		cftxt[TEXT_MAX];

	st = cf_type_parse(validation_class, &c.validator);
	if (st != NULL)
		return cf_status_wrap(st, "validation_class of column '%s' in column family '%s'",
							  clean_text(name, txt, sizeof(txt)),
							  clean_str(d->name, cftxt, sizeof(cftxt)));
	c.indexed = indexed;
	c.name_len = name.len;
	if (name.len > 0)
	{
		c.name = mem_malloc(name.len);
		if (c.name == NULL)
			return no_memory("adding a column definition");
		memcpy(c.name, name.p, name.len);
	}
	if (!dup_str(&c.index_name, index_name))
		goto oom;
	grown = mem_realloc(d->column_metadata, (d->n_columns + 1) * sizeof(cf_column_def));
	if (grown == NULL)
		goto oom;
	d->column_metadata = grown;
	d->column_metadata[d->n_columns++] = c;
	return NULL;

oom:
	column_clear(&c);
	return no_memory("adding a column definition");
}

const cf_column_def *
cf_cfdef_column(const cf_cf_def *d, cf_slice name)
{
	/* Linear: CFs declare few columns, and this runs once per cell written. */
	for (size_t i = 0; i < d->n_columns; i++)
	{
		const cf_column_def *c = &d->column_metadata[i];

		if (cf_slice_eq(cf_slice_of(c->name, c->name_len), name))
			return c;
	}
	return NULL;
}

cf_col_order
cf_cfdef_col_order(const cf_cf_def *d)
{
	cf_col_order o;

	o.super = d->super;
	o.cmp = d->comparator;
	o.subcmp = d->super ? d->subcomparator : CF_TYPE_BYTES;
	return o;
}

static int
cmp_column_defp(const void *a, const void *b)
{
	const cf_column_def *x = *(const cf_column_def *const *) a;
	const cf_column_def *y = *(const cf_column_def *const *) b;

	return cf_slice_cmp(cf_slice_of(x->name, x->name_len), cf_slice_of(y->name, y->name_len));
}

static cf_status *
check_columns(const cf_cf_def *d, const char *cfname)
{
	cf_type		name_type = d->super ? d->subcomparator : d->comparator;
	const char *label = d->super ?
		"column_metadata name (a sub-column, checked by subcomparator_type)" :
		"column_metadata name";
	const cf_column_def **sorted;
	char		txt[TEXT_MAX];

	for (size_t i = 0; i < d->n_columns; i++)
	{
		const cf_column_def *c = &d->column_metadata[i];
		cf_slice	name = cf_slice_of(c->name, c->name_len);
		cf_status  *st;

		/* The column is described (describe()) only in a message, never up front. */
		if ((st = cf_name_validate(name_type, name, label, false)) != NULL)
			return cf_status_wrap(st, "column family '%s'", cfname);
		if (!type_ok(c->validator))
			return cf_status_make(CF_ERR_INVALID,
								  "column family '%s': column '%s' has an unknown "
								  "validation_class (%d)", cfname,
								  describe(name_type, name, txt, sizeof(txt)),
								  (int) c->validator);
		if (c->index_name != NULL && !c->indexed)
			return cf_status_make(CF_ERR_INVALID,
								  "column family '%s': column '%s' has an index_name but no "
								  "index_type; set index_type KEYS or leave index_name unset",
								  cfname, describe(name_type, name, txt, sizeof(txt)));
		if (c->indexed && d->super)
			return cf_status_make(CF_ERR_INVALID,
								  "column family '%s': column '%s' cannot be indexed: "
								  "secondary indexes are not supported on Super column "
								  "families", cfname, describe(name_type, name, txt, sizeof(txt)));
		if (c->index_name != NULL &&
			(st = cf_schema_name_check("index", c->index_name)) != NULL)
			return cf_status_wrap(st, "column family '%s', column '%s'", cfname,
								  describe(name_type, name, txt, sizeof(txt)));
	}
	if (d->n_columns < 2)
		return NULL;
	sorted = mem_malloc(d->n_columns * sizeof(*sorted));
	if (sorted == NULL)
		return no_memory("checking column_metadata");
	for (size_t i = 0; i < d->n_columns; i++)
		sorted[i] = &d->column_metadata[i];
	qsort(sorted, d->n_columns, sizeof(*sorted), cmp_column_defp);
	for (size_t i = 1; i < d->n_columns; i++)
	{
		if (cmp_column_defp(&sorted[i - 1], &sorted[i]) == 0)
		{
			describe(name_type, cf_slice_of(sorted[i]->name, sorted[i]->name_len), txt,
					 sizeof(txt));
			free(sorted);
			return cf_status_make(CF_ERR_INVALID,
								  "column family '%s': column '%s' is defined twice in "
								  "column_metadata", cfname, txt);
		}
	}
	free(sorted);
	return NULL;
}

static cf_status *
check_numbers(const cf_cf_def *d, const char *cfname)
{
	int32_t		min = d->min_compaction_threshold;
	int32_t		max = d->max_compaction_threshold;

	if (!isfinite(d->row_cache_size) || d->row_cache_size < 0)
		return cf_status_make(CF_ERR_INVALID,
							  "column family '%s': row_cache_size must be >= 0 (a fraction "
							  "of the rows if < 1, else a number of rows), got %g",
							  cfname, d->row_cache_size);
	if (!isfinite(d->key_cache_size) || d->key_cache_size < 0)
		return cf_status_make(CF_ERR_INVALID,
							  "column family '%s': key_cache_size must be >= 0 (a fraction "
							  "of the keys if < 1, else a number of keys), got %g",
							  cfname, d->key_cache_size);
	if (!(d->read_repair_chance >= 0.0 && d->read_repair_chance <= 1.0))
		return cf_status_make(CF_ERR_INVALID,
							  "column family '%s': read_repair_chance must be between 0 and "
							  "1, got %g", cfname, d->read_repair_chance);
	if (d->gc_grace_seconds < 0)
		return cf_status_make(CF_ERR_INVALID,
							  "column family '%s': gc_grace_seconds must be >= 0, got %d",
							  cfname, (int) d->gc_grace_seconds);
	if (min < 0 || max < 0)
		return cf_status_make(CF_ERR_INVALID,
							  "column family '%s': compaction thresholds must be >= 0 "
							  "(0 disables compaction), got min %d and max %d",
							  cfname, (int) min, (int) max);
	if (min != 0 && max != 0 && (min < 2 || min > max))
		return cf_status_make(CF_ERR_INVALID,
							  "column family '%s': compaction thresholds need 2 <= "
							  "min_compaction_threshold <= max_compaction_threshold (or 0 "
							  "to disable compaction), got min %d and max %d",
							  cfname, (int) min, (int) max);
	if (d->row_cache_save_period_in_seconds < 0 || d->key_cache_save_period_in_seconds < 0)
		return cf_status_make(CF_ERR_INVALID,
							  "column family '%s': cache save periods must be >= 0 seconds "
							  "(0 disables saving), got row %d and key %d", cfname,
							  (int) d->row_cache_save_period_in_seconds,
							  (int) d->key_cache_save_period_in_seconds);
	if (d->memtable_flush_after_mins <= 0)
		return cf_status_make(CF_ERR_INVALID,
							  "column family '%s': memtable_flush_after_mins must be > 0, "
							  "got %d", cfname, (int) d->memtable_flush_after_mins);
	if (d->memtable_throughput_in_mb <= 0 ||
		d->memtable_throughput_in_mb > CF_CFDEF_MEMTABLE_THROUGHPUT_MAX)
		return cf_status_make(CF_ERR_INVALID,
							  "column family '%s': memtable_throughput_in_mb must be between "
							  "1 and %d, got %d", cfname, CF_CFDEF_MEMTABLE_THROUGHPUT_MAX,
							  (int) d->memtable_throughput_in_mb);
	if (!(d->memtable_operations_in_millions > 0.0 &&
		  d->memtable_operations_in_millions <= CF_CFDEF_MEMTABLE_OPERATIONS_MAX))
		return cf_status_make(CF_ERR_INVALID,
							  "column family '%s': memtable_operations_in_millions must be "
							  "> 0 and <= %g, got %g", cfname,
							  CF_CFDEF_MEMTABLE_OPERATIONS_MAX,
							  d->memtable_operations_in_millions);
	return NULL;
}

cf_status *
cf_cfdef_validate(const cf_cf_def *d)
{
	cf_status  *st;
	const char *cfname = d->name;

	if (d->keyspace != NULL && (st = cf_schema_name_check("keyspace", d->keyspace)) != NULL)
		return st;
	if ((st = cf_schema_name_check("column family", d->name)) != NULL)
		return st;
	if (!type_ok(d->comparator) || !type_ok(d->subcomparator) ||
		!type_ok(d->default_validator))
		return cf_status_make(CF_ERR_INVALID,
							  "column family '%s' has an unknown comparator_type, "
							  "subcomparator_type or default_validation_class", cfname);
	if (!d->super && d->has_subcomparator)
		return cf_status_make(CF_ERR_INVALID,
							  "column family '%s' is Standard: subcomparator_type applies "
							  "only to Super column families (set column_type to Super or "
							  "leave subcomparator_type unset)", cfname);
	if (d->comment != NULL)
	{
		char		what[TEXT_MAX + 32];

		snprintf(what, sizeof(what), "comment of column family '%s'", cfname);
		if ((st = check_text(what, d->comment)) != NULL)
			return st;
	}
	if ((st = check_numbers(d, cfname)) != NULL)
		return st;
	return check_columns(d, cfname);
}

/* ---- mutation validation ---- */

cf_status *
cf_name_validate(cf_type t, cf_slice v, const char *what, bool allow_empty)
{
	if (v.len == 0 && !allow_empty)
		return cf_status_make(CF_ERR_INVALID, "%s must not be empty", what);
	if (v.len > CF_NAME_MAX)
		return cf_status_make(CF_ERR_INVALID, "%s is %zu bytes, longer than the %d allowed",
							  what, v.len, CF_NAME_MAX);
	return cf_type_validate(t, v, what);
}

/*
 * cf_name_validate for a name (allow_empty: a range tombstone bound) in d's
 * mutations. label is a fixed string; the CF's name is added only to a message.
 */
static cf_status *
check_cell_name(const cf_cf_def *d, cf_type t, cf_slice name, const char *label,
				bool allow_empty)
{
	return cf_status_wrap(cf_name_validate(t, name, label, allow_empty),
						  "column family '%s'", d->name);
}

/*
 * One cell. Runs for every cell of every mutation, so nothing is formatted up front:
 * the column is described (describe(): an allocation, a conversion to text and a
 * UTF-8 scan) only for a message.
 */
static cf_status *
check_cell(const cf_cf_def *d, const cf_cell *c, int32_t now_sec)
{
	cf_type		name_type = d->super ? d->subcomparator : d->comparator;
	cf_type		value_type;
	const cf_column_def *cd;
	cf_status  *st;
	char		txt[TEXT_MAX];
	char		what[2 * TEXT_MAX + 64];

	if (!d->super && c->sc.len > 0)
		return cf_status_make(CF_ERR_INVALID,
							  "column family '%s' is Standard: a column cannot be inside a "
							  "super column (super columns exist only in Super column "
							  "families); leave super_column unset", d->name);
	if (d->super && c->sc.len == 0)
		return cf_status_make(CF_ERR_INVALID,
							  "column family '%s' is Super: every column must be inside a "
							  "super column; set a non-empty super_column", d->name);
	if (d->super &&
		(st = check_cell_name(d, d->comparator, c->sc, "super column name", false)) != NULL)
		return st;
	if ((st = check_cell_name(d, name_type, c->name,
							  d->super ? "sub-column name" : "column name", false)) != NULL)
		return st;
	if ((c->flags & CF_CELL_DELETED) && (c->flags & CF_CELL_EXPIRING))
		return cf_status_make(CF_ERR_INVALID,
							  "column family '%s': column '%s' is both a deletion and an "
							  "expiring column", d->name,
							  describe(name_type, c->name, txt, sizeof(txt)));
	if ((c->flags & CF_CELL_EXPIRING) || c->ttl != 0)
	{
		if (c->ttl <= 0)
			return cf_status_make(CF_ERR_INVALID,
								  "column family '%s': column '%s': ttl must be positive, "
								  "got %d", d->name,
								  describe(name_type, c->name, txt, sizeof(txt)), (int) c->ttl);
		if (c->ttl > CF_SCHEMA_TTL_MAX)
			return cf_status_make(CF_ERR_INVALID,
								  "column family '%s': column '%s': ttl %d exceeds the "
								  "maximum of %d seconds (20 years)", d->name,
								  describe(name_type, c->name, txt, sizeof(txt)),
								  (int) c->ttl, CF_SCHEMA_TTL_MAX);
		if ((int64_t) now_sec + c->ttl > INT32_MAX)
			return cf_status_make(CF_ERR_INVALID,
								  "column family '%s': column '%s': ttl %d from now expires "
								  "after 2038-01-19, beyond what expiry times (int32 "
								  "seconds) hold", d->name,
								  describe(name_type, c->name, txt, sizeof(txt)), (int) c->ttl);
	}
	if (c->flags & CF_CELL_DELETED)
		return NULL;
	cd = cf_cfdef_column(d, c->name);
	value_type = cd ? cd->validator : d->default_validator;
	if ((st = cf_type_validate(value_type, c->value, NULL)) == NULL)
		return NULL;
	/*
	 * The message names the column between its parts, which wrapping cannot do:
	 * validate again with the full description (an invalid value only).
	 */
	cf_status_free(st);
	snprintf(what, sizeof(what), "column family '%s': value of column '%s'", d->name,
			 describe(name_type, c->name, txt, sizeof(txt)));
	return cf_type_validate(value_type, c->value, what);
}

static cf_status *
check_tomb(const cf_cf_def *d, const cf_range_tomb *t)
{
	cf_type		bound_type;
	cf_status  *st;

	if (!d->super && t->sc.len > 0)
		return cf_status_make(CF_ERR_INVALID,
							  "column family '%s' is Standard: a deletion cannot name a "
							  "super column (super columns exist only in Super column "
							  "families); leave super_column unset", d->name);
	if (t->sc.len > 0 &&
		(st = check_cell_name(d, d->comparator, t->sc, "super column name", false)) != NULL)
		return st;
	/* Top-level bounds name super columns in a Super CF, sub-columns inside one. */
	bound_type = (d->super && t->sc.len > 0) ? d->subcomparator : d->comparator;
	if ((st = check_cell_name(d, bound_type, t->start, "deletion range start", true)) != NULL ||
		(st = check_cell_name(d, bound_type, t->finish, "deletion range finish", true)) != NULL)
		return st;
	if (t->start.len > 0 && t->finish.len > 0 &&
		cf_type_compare(bound_type, t->start, t->finish) > 0)
		return cf_status_make(CF_ERR_INVALID,
							  "column family '%s': deletion range start sorts after its "
							  "finish under %s; swap them", d->name, cf_type_name(bound_type));
	return NULL;
}

cf_status *
cf_cfdef_validate_update(const cf_cf_def *d, const cf_cf_update *u, int32_t now_sec)
{
	cf_status  *st;

	for (size_t i = 0; i < u->n_tombs; i++)
		if ((st = check_tomb(d, &u->tombs[i])) != NULL)
			return st;
	for (size_t i = 0; i < u->n_cells; i++)
		if ((st = check_cell(d, &u->cells[i], now_sec)) != NULL)
			return st;
	return NULL;
}

/* ---- keyspace definitions ---- */

cf_status *
cf_ksdef_init(cf_ks_def *k, const char *name)
{
	memset(k, 0, sizeof(*k));
	k->strategy = CF_STRATEGY_SIMPLE;
	k->replication_factor = 1;
	if (!dup_str(&k->name, name))
		return no_memory("initialising a keyspace definition");
	return NULL;
}

void
cf_ksdef_clear(cf_ks_def *k)
{
	if (k == NULL)
		return;
	for (size_t i = 0; i < k->n_options; i++)
	{
		free(k->strategy_options[i].key);
		free(k->strategy_options[i].value);
	}
	free(k->strategy_options);
	for (size_t i = 0; i < k->n_cfs; i++)
		cf_cfdef_clear(&k->cfs[i]);
	free(k->cfs);
	free(k->name);
	memset(k, 0, sizeof(*k));
}

cf_status *
cf_ksdef_copy(cf_ks_def *dst, const cf_ks_def *src)
{
	cf_status  *st;

	*dst = *src;
	dst->name = NULL;
	dst->strategy_options = NULL;
	dst->n_options = 0;
	dst->cfs = NULL;
	dst->n_cfs = 0;
	if (!dup_str(&dst->name, src->name))
		goto oom;
	if (src->n_options > 0)
	{
		dst->strategy_options = mem_calloc(src->n_options, sizeof(cf_strategy_option));
		if (dst->strategy_options == NULL)
			goto oom;
		for (size_t i = 0; i < src->n_options; i++)
		{
			dst->n_options++;
			if (!dup_str(&dst->strategy_options[i].key, src->strategy_options[i].key) ||
				!dup_str(&dst->strategy_options[i].value, src->strategy_options[i].value))
				goto oom;
		}
	}
	if (src->n_cfs > 0)
	{
		dst->cfs = mem_calloc(src->n_cfs, sizeof(cf_cf_def));
		if (dst->cfs == NULL)
			goto oom;
		for (size_t i = 0; i < src->n_cfs; i++)
		{
			if ((st = cf_cfdef_copy(&dst->cfs[i], &src->cfs[i])) != NULL)
			{
				cf_ksdef_clear(dst);
				return st;
			}
			dst->n_cfs++;
		}
	}
	return NULL;

oom:
	cf_ksdef_clear(dst);
	return no_memory("copying a keyspace definition");
}

cf_status *
cf_ksdef_set_strategy(cf_ks_def *k, const char *strategy_class)
{
	return cf_strategy_parse(strategy_class, &k->strategy);
}

cf_status *
cf_ksdef_add_option(cf_ks_def *k, const char *key, const char *value)
{
	cf_strategy_option o = {0};
	cf_strategy_option *grown;

	if (!dup_str(&o.key, key) || !dup_str(&o.value, value))
		goto oom;
	grown = mem_realloc(k->strategy_options, (k->n_options + 1) * sizeof(*grown));
	if (grown == NULL)
		goto oom;
	k->strategy_options = grown;
	k->strategy_options[k->n_options++] = o;
	return NULL;

oom:
	free(o.key);
	free(o.value);
	return no_memory("adding a strategy option");
}

const char *
cf_ksdef_option(const cf_ks_def *k, const char *key)
{
	for (size_t i = 0; i < k->n_options; i++)
		if (k->strategy_options[i].key && strcmp(k->strategy_options[i].key, key) == 0)
			return k->strategy_options[i].value;
	return NULL;
}

cf_status *
cf_ksdef_add_cf(cf_ks_def *k, cf_cf_def *cf)
{
	cf_cf_def  *grown = mem_realloc(k->cfs, (k->n_cfs + 1) * sizeof(*grown));

	if (grown == NULL)
		return no_memory("adding a column family definition");
	k->cfs = grown;
	k->cfs[k->n_cfs++] = *cf;
	memset(cf, 0, sizeof(*cf));
	return NULL;
}

const cf_cf_def *
cf_ksdef_cf(const cf_ks_def *k, const char *name)
{
	for (size_t i = 0; i < k->n_cfs; i++)
		if (k->cfs[i].name && strcmp(k->cfs[i].name, name) == 0)
			return &k->cfs[i];
	return NULL;
}

/* A NetworkTopologyStrategy option value: a replica count, decimal 0..INT32_MAX. */
static bool
is_replica_count(const char *v)
{
	long long	n = 0;

	if (v[0] == '\0')
		return false;
	for (const char *p = v; *p; p++)
	{
		if (*p < '0' || *p > '9')
			return false;
		n = n * 10 + (*p - '0');
		if (n > INT32_MAX)
			return false;
	}
	return true;
}

static cf_status *
check_options(const cf_ks_def *k)
{
	const char **keys;
	const char *dup;
	char		txt[TEXT_MAX];
	char		txt2[TEXT_MAX];
	cf_status  *st;

	for (size_t i = 0; i < k->n_options; i++)
	{
		const cf_strategy_option *o = &k->strategy_options[i];

		if (o->key == NULL || o->key[0] == '\0' || o->value == NULL)
			return cf_status_make(CF_ERR_INVALID,
								  "keyspace '%s': strategy_options must be pairs of a "
								  "non-empty key and a value", k->name);
		if ((st = check_text("strategy option key", o->key)) != NULL ||
			(st = check_text("strategy option value", o->value)) != NULL)
			return cf_status_wrap(st, "keyspace '%s'", k->name);
		if (k->strategy == CF_STRATEGY_NETWORK_TOPOLOGY && !is_replica_count(o->value))
			return cf_status_make(CF_ERR_INVALID,
								  "keyspace '%s': NetworkTopologyStrategy option '%s' must "
								  "be a replica count for that datacenter (a non-negative "
								  "integer), got '%s'", k->name,
								  clean_str(o->key, txt, sizeof(txt)),
								  clean_str(o->value, txt2, sizeof(txt2)));
	}
	if (k->n_options < 2)
		return NULL;
	keys = mem_malloc(k->n_options * sizeof(*keys));
	if (keys == NULL)
		return no_memory("checking strategy options");
	for (size_t i = 0; i < k->n_options; i++)
		keys[i] = k->strategy_options[i].key;
	find_duplicate(keys, k->n_options, &dup);
	st = dup ? cf_status_make(CF_ERR_INVALID,
							  "keyspace '%s': strategy option '%s' is given twice",
							  k->name, clean_str(dup, txt, sizeof(txt))) : NULL;
	free(keys);
	return st;
}

/* CF names unique, index names unique across the keyspace. */
static cf_status *
check_unique_names(const cf_ks_def *k)
{
	size_t		n_idx = 0;
	size_t		cap = k->n_cfs;
	const char **names;
	const char *dup;
	cf_status  *st = NULL;

	for (size_t i = 0; i < k->n_cfs; i++)
		for (size_t j = 0; j < k->cfs[i].n_columns; j++)
			cap += k->cfs[i].column_metadata[j].index_name != NULL;
	if (cap < 2)
		return NULL;
	names = mem_malloc(cap * sizeof(*names));
	if (names == NULL)
		return no_memory("checking names");
	for (size_t i = 0; i < k->n_cfs; i++)
		names[i] = k->cfs[i].name;
	find_duplicate(names, k->n_cfs, &dup);
	if (dup)
		st = cf_status_make(CF_ERR_INVALID,
							"keyspace '%s': column family '%s' is defined twice; column "
							"family names must be unique in a keyspace", k->name, dup);
	for (size_t i = 0; st == NULL && i < k->n_cfs; i++)
		for (size_t j = 0; j < k->cfs[i].n_columns; j++)
			if (k->cfs[i].column_metadata[j].index_name != NULL)
				names[n_idx++] = k->cfs[i].column_metadata[j].index_name;
	if (st == NULL)
	{
		find_duplicate(names, n_idx, &dup);
		if (dup)
			st = cf_status_make(CF_ERR_INVALID,
								"keyspace '%s': index name '%s' is used twice; index names "
								"must be unique in a keyspace", k->name, dup);
	}
	free(names);
	return st;
}

cf_status *
cf_ksdef_validate(const cf_ks_def *k, unsigned flags)
{
	cf_status  *st;

	if ((st = cf_schema_name_check("keyspace", k->name)) != NULL ||
		(st = check_not_system(k->name, flags)) != NULL)
		return st;
	if ((int) k->strategy < 0 || k->strategy >= CF_STRATEGY_COUNT_)
		return cf_status_make(CF_ERR_INVALID, "keyspace '%s' has an unknown strategy_class",
							  k->name);
	if (k->replication_factor < 1)
		return cf_status_make(CF_ERR_INVALID,
							  "keyspace '%s': replication_factor must be at least 1, got %d",
							  k->name, (int) k->replication_factor);
	if ((st = check_options(k)) != NULL)
		return st;
	for (size_t i = 0; i < k->n_cfs; i++)
	{
		const cf_cf_def *cf = &k->cfs[i];

		if ((st = cf_cfdef_validate(cf)) != NULL)
			return st;
		if (cf->keyspace != NULL && strcmp(cf->keyspace, k->name) != 0)
			return cf_status_make(CF_ERR_INVALID,
								  "column family '%s' names keyspace '%s' but is defined in "
								  "keyspace '%s'", cf->name, cf->keyspace, k->name);
	}
	return check_unique_names(k);
}

/* ---- schema snapshots ---- */

static void
free_ks_array(cf_ks_def *kss, size_t n)
{
	for (size_t i = 0; i < n; i++)
		cf_ksdef_clear(&kss[i]);
	free(kss);
}

static int
cmp_ks(const void *a, const void *b)
{
	return strcmp(((const cf_ks_def *) a)->name, ((const cf_ks_def *) b)->name);
}

static int
cmp_cf(const void *a, const void *b)
{
	return strcmp(((const cf_cf_def *) a)->name, ((const cf_cf_def *) b)->name);
}

static int
cmp_cf_id(const void *a, const void *b)
{
	uint32_t	x = (*(const cf_cf_def *const *) a)->id;
	uint32_t	y = (*(const cf_cf_def *const *) b)->id;

	return x < y ? -1 : x > y;
}

static int
cmp_index_ref(const void *a, const void *b)
{
	uint32_t	x = ((const struct index_ref *) a)->id;
	uint32_t	y = ((const struct index_ref *) b)->id;

	return x < y ? -1 : x > y;
}

/*
 * Gives every indexed column of kss without an index id the next id (from *next,
 * which grows), in schema order (kss sorted); clears the id of columns that are not
 * indexed. *n_out counts the indexes.
 */
static cf_status *
assign_index_ids(cf_ks_def *kss, size_t n, uint32_t *next, size_t *n_out)
{
	*n_out = 0;
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < kss[i].n_cfs; j++)
			for (size_t c = 0; c < kss[i].cfs[j].n_columns; c++)
			{
				cf_column_def *col = &kss[i].cfs[j].column_metadata[c];

				if (!col->indexed)
				{
					col->index_id = 0;
					continue;
				}
				(*n_out)++;
				if (col->index_id != 0)
					continue;
				if (*next == UINT32_MAX)
					return cf_status_make(CF_ERR_INVALID, "column family ids are exhausted");
				col->index_id = (*next)++;
			}
	return NULL;
}

/*
 * Makes a snapshot of kss (taken: freed on error too). The keyspaces must be valid
 * (names set). Sorts, fills in each CF's keyspace, assigns the missing index ids, and
 * indexes the CFs and the indexes by id; CF and index ids together must be non-zero,
 * unique and below next_cf_id (0: one past the largest).
 */
static cf_status *
schema_make(cf_ks_def *kss, size_t n, uint32_t next_cf_id, const uint8_t *version,
			cf_schema **out)
{
	cf_schema  *s;
	size_t		n_ids = 0;
	uint32_t	max_id = 0;

	*out = NULL;
	s = mem_calloc(1, sizeof(*s));
	if (s == NULL)
	{
		free_ks_array(kss, n);
		return no_memory("making a schema");
	}
	s->refs = 1;
	s->ks = kss;
	s->n_ks = n;
	if (n > 0)
		qsort(kss, n, sizeof(*kss), cmp_ks);
	for (size_t i = 0; i < n; i++)
	{
		if (i > 0 && strcmp(kss[i - 1].name, kss[i].name) == 0)
		{
			cf_schema_unref(s);
			return cf_status_make(CF_ERR_INVALID, "keyspace '%s' is defined twice",
								  kss[i].name);
		}
		if (kss[i].n_cfs > 0)
			qsort(kss[i].cfs, kss[i].n_cfs, sizeof(cf_cf_def), cmp_cf);
		for (size_t j = 0; j < kss[i].n_cfs; j++)
		{
			cf_cf_def  *cf = &kss[i].cfs[j];

			if (cf->keyspace == NULL && !dup_str(&cf->keyspace, kss[i].name))
			{
				cf_schema_unref(s);
				return no_memory("making a schema");
			}
		}
		n_ids += kss[i].n_cfs;
	}
	s->by_id = mem_malloc((n_ids ? n_ids : 1) * sizeof(*s->by_id));
	if (s->by_id == NULL)
	{
		cf_schema_unref(s);
		return no_memory("making a schema");
	}
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < kss[i].n_cfs; j++)
			s->by_id[s->n_ids++] = &kss[i].cfs[j];
	if (n_ids > 0)
		qsort(s->by_id, n_ids, sizeof(*s->by_id), cmp_cf_id);
	for (size_t i = 0; i < n_ids; i++)
	{
		const cf_cf_def *cf = s->by_id[i];

		if (cf->id == 0 || (i > 0 && s->by_id[i - 1]->id == cf->id))
		{
			cf_status  *st = cf_status_make(CF_ERR_INVALID,
											"column family '%s.%s' has id %u, which is "
											"zero or used twice", cf->keyspace, cf->name,
											(unsigned) cf->id);

			cf_schema_unref(s);
			return st;
		}
		max_id = cf->id;
	}
	/* the largest stored index id counts too, before the missing ones are assigned */
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < kss[i].n_cfs; j++)
			for (size_t c = 0; c < kss[i].cfs[j].n_columns; c++)
			{
				const cf_column_def *col = &kss[i].cfs[j].column_metadata[c];

				if (col->indexed && col->index_id > max_id)
					max_id = col->index_id;
			}
	if (next_cf_id == 0)
	{
		if (max_id == UINT32_MAX)
		{
			cf_schema_unref(s);
			return cf_status_make(CF_ERR_INVALID, "column family ids are exhausted");
		}
		next_cf_id = max_id + 1;
	}
	if (max_id >= next_cf_id)
	{
		cf_schema_unref(s);
		return cf_status_make(CF_ERR_INVALID,
							  "column family id %u is not below the next id %u",
							  (unsigned) max_id, (unsigned) next_cf_id);
	}
	{
		size_t		n_idx;
		cf_status  *st = assign_index_ids(kss, n, &next_cf_id, &n_idx);

		if (st == NULL &&
			(s->idx_by_id = mem_malloc((n_idx ? n_idx : 1) * sizeof(*s->idx_by_id))) == NULL)
			st = no_memory("making a schema");
		for (size_t i = 0; st == NULL && i < n; i++)
			for (size_t j = 0; j < kss[i].n_cfs; j++)
				for (size_t c = 0; c < kss[i].cfs[j].n_columns; c++)
					if (kss[i].cfs[j].column_metadata[c].indexed)
						s->idx_by_id[s->n_idx++] = (struct index_ref) {
							kss[i].cfs[j].column_metadata[c].index_id, &kss[i].cfs[j],
							&kss[i].cfs[j].column_metadata[c]};
		if (st == NULL && s->n_idx > 0)
			qsort(s->idx_by_id, s->n_idx, sizeof(*s->idx_by_id), cmp_index_ref);
		for (size_t i = 0; st == NULL && i < s->n_idx; i++)
		{
			const struct index_ref *x = &s->idx_by_id[i];

			if ((i > 0 && s->idx_by_id[i - 1].id == x->id) ||
				cf_schema_cf_by_id(s, x->id) != NULL)
				st = cf_status_make(CF_ERR_INVALID, "the index of a column of column family "
									"'%s.%s' has id %u, which is used twice",
									x->cf->keyspace, x->cf->name, (unsigned) x->id);
		}
		if (st != NULL)
		{
			cf_schema_unref(s);
			return st;
		}
	}
	s->next_cf_id = next_cf_id;
	if (version != NULL)
		memcpy(s->version, version, CF_UUID_LEN);
	else
		cf_uuid_v1_now(s->version);
	*out = s;
	return NULL;
}

cf_schema *
cf_schema_new(void)
{
	cf_schema  *s = NULL;
	cf_status  *st = schema_make(NULL, 0, 1, NULL, &s);

	cf_status_free(st);
	return s;
}

cf_status *
cf_schema_build(const cf_ks_def *kss, size_t n, uint32_t next_cf_id,
				const uint8_t *version, cf_schema **out)
{
	cf_ks_def  *copy;
	cf_status  *st;

	*out = NULL;
	for (size_t i = 0; i < n; i++)
		if ((st = cf_ksdef_validate(&kss[i], CF_SCHEMA_ALLOW_SYSTEM)) != NULL)
			return st;
	copy = mem_calloc(n ? n : 1, sizeof(*copy));
	if (copy == NULL)
		return no_memory("building a schema");
	for (size_t i = 0; i < n; i++)
	{
		if ((st = cf_ksdef_copy(&copy[i], &kss[i])) != NULL)
		{
			free_ks_array(copy, i);
			return st;
		}
	}
	return schema_make(copy, n, next_cf_id, version, out);
}

void
cf_schema_ref(cf_schema *s)
{
	__atomic_add_fetch(&s->refs, 1, __ATOMIC_RELAXED);
}

void
cf_schema_unref(cf_schema *s)
{
	if (s == NULL || __atomic_sub_fetch(&s->refs, 1, __ATOMIC_ACQ_REL) != 0)
		return;
	free(s->by_id);
	free(s->idx_by_id);
	free_ks_array(s->ks, s->n_ks);
	free(s);
}

const uint8_t *
cf_schema_version(const cf_schema *s)
{
	return s->version;
}

uint32_t
cf_schema_next_cf_id(const cf_schema *s)
{
	return s->next_cf_id;
}

size_t
cf_schema_n_keyspaces(const cf_schema *s)
{
	return s->n_ks;
}

const cf_ks_def *
cf_schema_keyspace_at(const cf_schema *s, size_t i)
{
	return i < s->n_ks ? &s->ks[i] : NULL;
}

/*
 * Binary search for name in an array of n structs of `stride` bytes, sorted by the
 * char * at name_off in each: its index, or -1.
 */
static ssize_t
find_by_name(const void *base, size_t n, size_t stride, size_t name_off, const char *name)
{
	size_t		lo = 0;
	size_t		hi = n;

	if (name == NULL)
		return -1;
	while (lo < hi)
	{
		size_t		mid = lo + (hi - lo) / 2;
		const char *m;
		int			c;

		memcpy(&m, (const char *) base + mid * stride + name_off, sizeof(m));
		c = strcmp(m, name);
		if (c == 0)
			return (ssize_t) mid;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

static ssize_t
ks_index(const cf_schema *s, const char *name)
{
	return find_by_name(s->ks, s->n_ks, sizeof(cf_ks_def), offsetof(cf_ks_def, name), name);
}

static ssize_t
cf_index(const cf_ks_def *k, const char *name)
{
	return find_by_name(k->cfs, k->n_cfs, sizeof(cf_cf_def), offsetof(cf_cf_def, name), name);
}

const cf_ks_def *
cf_schema_keyspace(const cf_schema *s, const char *keyspace)
{
	ssize_t		i = ks_index(s, keyspace);

	return i < 0 ? NULL : &s->ks[i];
}

const cf_cf_def *
cf_schema_cf(const cf_schema *s, const char *keyspace, const char *cf)
{
	const cf_ks_def *k = cf_schema_keyspace(s, keyspace);
	ssize_t		j = k ? cf_index(k, cf) : -1;

	return j < 0 ? NULL : &k->cfs[j];
}

const cf_cf_def *
cf_schema_cf_by_id(const cf_schema *s, uint32_t id)
{
	size_t		lo = 0;
	size_t		hi = s->n_ids;

	while (lo < hi)
	{
		size_t		mid = lo + (hi - lo) / 2;
		uint32_t	m = s->by_id[mid]->id;

		if (m == id)
			return s->by_id[mid];
		if (m < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

const cf_column_def *
cf_schema_index_by_id(const cf_schema *s, uint32_t id, const cf_cf_def **cf)
{
	size_t		lo = 0;
	size_t		hi = s->n_idx;

	while (lo < hi)
	{
		size_t		mid = lo + (hi - lo) / 2;
		uint32_t	m = s->idx_by_id[mid].id;

		if (m == id)
		{
			if (cf)
				*cf = s->idx_by_id[mid].cf;
			return s->idx_by_id[mid].col;
		}
		if (m < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (cf)
		*cf = NULL;
	return NULL;
}

/* Clears the index ids of d's columns: the schema assigns them (see schema.h). */
static void
clear_index_ids(cf_cf_def *d)
{
	for (size_t c = 0; c < d->n_columns; c++)
		d->column_metadata[c].index_id = 0;
}

/*
 * A deep copy of s's keyspaces with room for `extra` more, skipping index `skip`
 * (-1: none). *n_out counts the copies.
 */
static cf_status *
copy_keyspaces(const cf_schema *s, size_t extra, ssize_t skip, cf_ks_def **out,
			   size_t *n_out)
{
	cf_ks_def  *kss = mem_calloc(s->n_ks + extra + 1, sizeof(*kss));
	size_t		n = 0;
	cf_status  *st;

	*out = NULL;
	*n_out = 0;
	if (kss == NULL)
		return no_memory("copying the schema");
	for (size_t i = 0; i < s->n_ks; i++)
	{
		if ((ssize_t) i == skip)
			continue;
		if ((st = cf_ksdef_copy(&kss[n], &s->ks[i])) != NULL)
		{
			free_ks_array(kss, n);
			return st;
		}
		n++;
	}
	*out = kss;
	*n_out = n;
	return NULL;
}

static cf_status *
keyspace_missing(const char *keyspace)
{
	char		txt[TEXT_MAX];

	return cf_status_make(CF_ERR_NOT_FOUND, "keyspace '%s' does not exist",
						  clean_str(keyspace, txt, sizeof(txt)));
}

cf_status *
cf_schema_add_keyspace(const cf_schema *s, const cf_ks_def *ks, unsigned flags,
					   cf_schema **out)
{
	cf_ks_def  *kss;
	size_t		n;
	uint32_t	next = s->next_cf_id;
	cf_status  *st;

	*out = NULL;
	if ((st = cf_ksdef_validate(ks, flags)) != NULL)
		return st;
	if (ks_index(s, ks->name) >= 0)
		return cf_status_make(CF_ERR_INVALID, "keyspace '%s' already exists", ks->name);
	if (ks->n_cfs > (size_t) (UINT32_MAX - next))
		return cf_status_make(CF_ERR_INVALID, "column family ids are exhausted");
	if ((st = copy_keyspaces(s, 1, -1, &kss, &n)) != NULL)
		return st;
	if ((st = cf_ksdef_copy(&kss[n], ks)) != NULL)
	{
		free_ks_array(kss, n);
		return st;
	}
	n++;
	for (size_t i = 0; i < kss[n - 1].n_cfs; i++)
	{
		kss[n - 1].cfs[i].id = next++;
		clear_index_ids(&kss[n - 1].cfs[i]);
	}
	return schema_make(kss, n, next, NULL, out);
}

cf_status *
cf_schema_drop_keyspace(const cf_schema *s, const char *keyspace, unsigned flags,
						cf_schema **out)
{
	ssize_t		i;
	cf_ks_def  *kss;
	size_t		n;
	cf_status  *st;

	*out = NULL;
	if ((st = check_not_system(keyspace, flags)) != NULL)
		return st;
	if ((i = ks_index(s, keyspace)) < 0)
		return keyspace_missing(keyspace);
	if ((st = copy_keyspaces(s, 0, i, &kss, &n)) != NULL)
		return st;
	return schema_make(kss, n, s->next_cf_id, NULL, out);
}

cf_status *
cf_schema_update_keyspace(const cf_schema *s, const cf_ks_def *ks, unsigned flags,
						  cf_schema **out)
{
	ssize_t		i;
	cf_ks_def  *kss;
	cf_ks_def	upd;
	size_t		n;
	cf_status  *st;

	*out = NULL;
	if (ks->n_cfs > 0)
		return cf_status_make(CF_ERR_INVALID,
							  "keyspace '%s': an update of a keyspace cannot carry column "
							  "family definitions; send cf_defs empty and use the column "
							  "family calls to add, update or drop them", ks->name);
	if ((st = cf_ksdef_validate(ks, flags)) != NULL)
		return st;
	if ((i = ks_index(s, ks->name)) < 0)
		return keyspace_missing(ks->name);
	if ((st = copy_keyspaces(s, 0, -1, &kss, &n)) != NULL)
		return st;
	if ((st = cf_ksdef_copy(&upd, ks)) != NULL)
	{
		free_ks_array(kss, n);
		return st;
	}
	/* Keep the existing CFs: move them into the updated definition. */
	upd.cfs = kss[i].cfs;
	upd.n_cfs = kss[i].n_cfs;
	kss[i].cfs = NULL;
	kss[i].n_cfs = 0;
	cf_ksdef_clear(&kss[i]);
	kss[i] = upd;
	return schema_make(kss, n, s->next_cf_id, NULL, out);
}

cf_status *
cf_schema_add_cf(const cf_schema *s, const cf_cf_def *cf, unsigned flags, cf_schema **out)
{
	ssize_t		i;
	cf_ks_def  *kss;
	cf_cf_def	copy;
	size_t		n;
	cf_status  *st;
	char		txt[TEXT_MAX];

	*out = NULL;
	if (cf->keyspace == NULL)
		return cf_status_make(CF_ERR_INVALID,
							  "column family '%s' must name the keyspace it belongs to",
							  clean_str(cf->name, txt, sizeof(txt)));
	if ((st = cf_cfdef_validate(cf)) != NULL ||
		(st = check_not_system(cf->keyspace, flags)) != NULL)
		return st;
	if ((i = ks_index(s, cf->keyspace)) < 0)
		return keyspace_missing(cf->keyspace);
	if (cf_index(&s->ks[i], cf->name) >= 0)
		return cf_status_make(CF_ERR_INVALID,
							  "column family '%s' already exists in keyspace '%s'",
							  cf->name, cf->keyspace);
	if (s->next_cf_id == UINT32_MAX)
		return cf_status_make(CF_ERR_INVALID, "column family ids are exhausted");
	if ((st = copy_keyspaces(s, 0, -1, &kss, &n)) != NULL)
		return st;
	if ((st = cf_cfdef_copy(&copy, cf)) == NULL)
	{
		copy.id = s->next_cf_id;
		clear_index_ids(&copy);
		if ((st = cf_ksdef_add_cf(&kss[i], &copy)) != NULL)
			cf_cfdef_clear(&copy);
	}
	/* cf is valid on its own; what it can break in its keyspace is uniqueness */
	if (st == NULL)
		st = check_unique_names(&kss[i]);
	if (st != NULL)
	{
		free_ks_array(kss, n);
		return st;
	}
	return schema_make(kss, n, s->next_cf_id + 1, NULL, out);
}

cf_status *
cf_schema_drop_cf(const cf_schema *s, const char *keyspace, const char *cf,
				  unsigned flags, cf_schema **out)
{
	ssize_t		i;
	ssize_t		j;
	cf_ks_def  *kss;
	cf_ks_def  *k;
	size_t		n;
	cf_status  *st;
	char		txt[TEXT_MAX];

	*out = NULL;
	if ((st = check_not_system(keyspace, flags)) != NULL)
		return st;
	if ((i = ks_index(s, keyspace)) < 0)
		return keyspace_missing(keyspace);
	if ((j = cf_index(&s->ks[i], cf)) < 0)
		return cf_status_make(CF_ERR_NOT_FOUND,
							  "column family '%s' does not exist in keyspace '%s'",
							  clean_str(cf, txt, sizeof(txt)), keyspace);
	if ((st = copy_keyspaces(s, 0, -1, &kss, &n)) != NULL)
		return st;
	k = &kss[i];
	cf_cfdef_clear(&k->cfs[j]);
	memmove(&k->cfs[j], &k->cfs[j + 1], (k->n_cfs - (size_t) j - 1) * sizeof(cf_cf_def));
	k->n_cfs--;
	return schema_make(kss, n, s->next_cf_id, NULL, out);
}

/* The CF an update names: by id when set (then name and keyspace may not differ). */
static cf_status *
find_updated_cf(const cf_schema *s, const cf_cf_def *cf, const cf_cf_def **old)
{
	char		txt[TEXT_MAX];

	*old = NULL;
	if (cf->id != 0)
	{
		*old = cf_schema_cf_by_id(s, cf->id);
		if (*old == NULL)
			return cf_status_make(CF_ERR_NOT_FOUND, "no column family has id %u",
								  (unsigned) cf->id);
		if (cf->keyspace != NULL && strcmp(cf->keyspace, (*old)->keyspace) != 0)
			return cf_status_make(CF_ERR_INVALID,
								  "cannot move column family '%s' from keyspace '%s' to "
								  "'%s': a column family's keyspace cannot change",
								  (*old)->name, (*old)->keyspace,
								  clean_str(cf->keyspace, txt, sizeof(txt)));
		if (cf->name != NULL && strcmp(cf->name, (*old)->name) != 0)
			return cf_status_make(CF_ERR_INVALID,
								  "cannot rename column family '%s' (id %u) to '%s': a "
								  "column family's name cannot change", (*old)->name,
								  (unsigned) cf->id, clean_str(cf->name, txt, sizeof(txt)));
		return NULL;
	}
	if (cf->keyspace == NULL || cf->name == NULL)
		return cf_status_make(CF_ERR_INVALID,
							  "a column family update must name its keyspace and column "
							  "family (or give its id)");
	if (ks_index(s, cf->keyspace) < 0)
		return keyspace_missing(cf->keyspace);
	*old = cf_schema_cf(s, cf->keyspace, cf->name);
	if (*old == NULL)
		return cf_status_make(CF_ERR_NOT_FOUND,
							  "column family '%s' does not exist in keyspace '%s'",
							  clean_str(cf->name, txt, sizeof(txt)), cf->keyspace);
	return NULL;
}

cf_status *
cf_schema_update_cf(const cf_schema *s, const cf_cf_def *cf, unsigned flags,
					cf_schema **out)
{
	const cf_cf_def *old;
	cf_cf_def	upd;
	cf_ks_def  *kss;
	size_t		n;
	ssize_t		i;
	ssize_t		j;
	cf_status  *st;

	*out = NULL;
	if ((st = find_updated_cf(s, cf, &old)) != NULL ||
		(st = check_not_system(old->keyspace, flags)) != NULL)
		return st;
	if (cf->super != old->super)
		return cf_status_make(CF_ERR_INVALID,
							  "cannot change column_type of column family '%s' from %s to %s",
							  old->name, old->super ? "Super" : "Standard",
							  cf->super ? "Super" : "Standard");
	if (cf->comparator != old->comparator)
		return cf_status_make(CF_ERR_INVALID,
							  "cannot change comparator_type of column family '%s' from %s "
							  "to %s", old->name, cf_type_name(old->comparator),
							  cf_type_name(cf->comparator));
	if (old->super && cf->subcomparator != old->subcomparator)
		return cf_status_make(CF_ERR_INVALID,
							  "cannot change subcomparator_type of column family '%s' from "
							  "%s to %s", old->name, cf_type_name(old->subcomparator),
							  cf_type_name(cf->subcomparator));
	if ((st = cf_cfdef_copy(&upd, cf)) != NULL)
		return st;
	free(upd.keyspace);
	free(upd.name);
	upd.id = old->id;
	/* an index lives on while its column stays indexed under the same validator */
	for (size_t c = 0; c < upd.n_columns; c++)
	{
		cf_column_def *col = &upd.column_metadata[c];
		const cf_column_def *was = cf_cfdef_column(old, cf_slice_of(col->name,
																	col->name_len));

		col->index_id = col->indexed && was && was->indexed &&
			was->validator == col->validator ? was->index_id : 0;
	}
	if (!dup_str(&upd.keyspace, old->keyspace) || !dup_str(&upd.name, old->name))
	{
		cf_cfdef_clear(&upd);
		return no_memory("updating a column family");
	}
	if ((st = cf_cfdef_validate(&upd)) != NULL)
	{
		cf_cfdef_clear(&upd);
		return st;
	}
	if ((st = copy_keyspaces(s, 0, -1, &kss, &n)) != NULL)
	{
		cf_cfdef_clear(&upd);
		return st;
	}
	i = ks_index(s, old->keyspace);
	j = cf_index(&s->ks[i], old->name);
	cf_cfdef_clear(&kss[i].cfs[j]);
	kss[i].cfs[j] = upd;
	/* upd is valid on its own; what it can break in its keyspace is uniqueness */
	if ((st = check_unique_names(&kss[i])) != NULL)
	{
		free_ks_array(kss, n);
		return st;
	}
	return schema_make(kss, n, s->next_cf_id, NULL, out);
}

/* ---- encoding ---- */

#define CF_FLAG_SUPER 0x01
#define CF_FLAG_HAS_SUBCOMPARATOR 0x02
#define COL_FLAG_INDEXED 0x01
#define COL_FLAG_HAS_INDEX_NAME 0x02
#define COL_FLAG_HAS_INDEX_ID 0x04

/* Smallest encodings, for bounding counts before allocating. */
#define MIN_OPTION_BYTES 2		/* two empty strings */
#define MIN_COLUMN_BYTES 3		/* empty name, validator, flags */
#define MIN_CF_BYTES 71			/* u32 id, 1-byte name len, 4 u8, empty comment,
								 * 4 f64, 7 i32, column count */

static void
put_str(cf_buf *b, const char *s)
{
	size_t		len = s ? strlen(s) : 0;

	cf_buf_put_varint(b, len);
	cf_buf_put(b, s, len);
}

static void
put_f64(cf_buf *b, double v)
{
	uint64_t	bits;

	memcpy(&bits, &v, sizeof(bits));
	cf_buf_put_u64(b, bits);
}

static void
put_cf(cf_buf *b, const cf_cf_def *d)
{
	cf_buf_put_u32(b, d->id);
	put_str(b, d->name);
	cf_buf_put_u8(b, (uint8_t) ((d->super ? CF_FLAG_SUPER : 0) |
								(d->has_subcomparator ? CF_FLAG_HAS_SUBCOMPARATOR : 0)));
	cf_buf_put_u8(b, (uint8_t) d->comparator);
	cf_buf_put_u8(b, (uint8_t) d->subcomparator);
	cf_buf_put_u8(b, (uint8_t) d->default_validator);
	put_str(b, d->comment);
	put_f64(b, d->row_cache_size);
	put_f64(b, d->key_cache_size);
	put_f64(b, d->read_repair_chance);
	cf_buf_put_u32(b, (uint32_t) d->gc_grace_seconds);
	cf_buf_put_u32(b, (uint32_t) d->min_compaction_threshold);
	cf_buf_put_u32(b, (uint32_t) d->max_compaction_threshold);
	cf_buf_put_u32(b, (uint32_t) d->row_cache_save_period_in_seconds);
	cf_buf_put_u32(b, (uint32_t) d->key_cache_save_period_in_seconds);
	cf_buf_put_u32(b, (uint32_t) d->memtable_flush_after_mins);
	cf_buf_put_u32(b, (uint32_t) d->memtable_throughput_in_mb);
	put_f64(b, d->memtable_operations_in_millions);
	cf_buf_put_varint(b, d->n_columns);
	for (size_t i = 0; i < d->n_columns; i++)
	{
		const cf_column_def *c = &d->column_metadata[i];

		cf_buf_put_varint(b, c->name_len);
		cf_buf_put(b, c->name, c->name_len);
		cf_buf_put_u8(b, (uint8_t) c->validator);
		bool		has_id = c->indexed && c->index_id != 0;

		cf_buf_put_u8(b, (uint8_t) ((c->indexed ? COL_FLAG_INDEXED : 0) |
									(c->index_name ? COL_FLAG_HAS_INDEX_NAME : 0) |
									(has_id ? COL_FLAG_HAS_INDEX_ID : 0)));
		if (c->index_name)
			put_str(b, c->index_name);
		if (has_id)
			cf_buf_put_u32(b, c->index_id);
	}
}

cf_status *
cf_ksdef_encode(const cf_ks_def *k, cf_buf *out)
{
	cf_buf_put_u8(out, CF_SCHEMA_FORMAT_VERSION);
	put_str(out, k->name);
	cf_buf_put_u8(out, (uint8_t) k->strategy);
	cf_buf_put_u32(out, (uint32_t) k->replication_factor);
	cf_buf_put_varint(out, k->n_options);
	for (size_t i = 0; i < k->n_options; i++)
	{
		put_str(out, k->strategy_options[i].key);
		put_str(out, k->strategy_options[i].value);
	}
	cf_buf_put_varint(out, k->n_cfs);
	for (size_t i = 0; i < k->n_cfs; i++)
		put_cf(out, &k->cfs[i]);
	return cf_buf_status(out);
}

/* A string of at most CF_SCHEMA_STRING_MAX bytes without NUL; NULL if empty. */
static bool
get_str(cf_rd *r, char **out, bool empty_is_null)
{
	uint64_t	len = cf_rd_varint(r);
	const uint8_t *p;

	*out = NULL;
	if (!cf_rd_ok(r) || len > CF_SCHEMA_STRING_MAX)
	{
		cf_rd_fail(r);
		return false;
	}
	p = cf_rd_bytes(r, (size_t) len);	/* NULL, the reader failed, if short */
	if (p == NULL || memchr(p, '\0', (size_t) len) != NULL)
	{
		cf_rd_fail(r);
		return false;
	}
	if (len == 0 && empty_is_null)
		return true;
	*out = mem_malloc((size_t) len + 1);
	if (*out == NULL)
		return false;
	memcpy(*out, p, (size_t) len);
	(*out)[len] = '\0';
	return true;
}

static double
get_f64(cf_rd *r)
{
	uint64_t	bits = cf_rd_u64(r);
	double		v;

	memcpy(&v, &bits, sizeof(v));
	return v;
}

static cf_type
get_type(cf_rd *r)
{
	uint8_t		t = cf_rd_u8(r);

	if (t >= CF_TYPE_COUNT_)
		cf_rd_fail(r);
	return (cf_type) (t < CF_TYPE_COUNT_ ? t : 0);
}

/* A count of elements of at least min_bytes each that the rest of r could hold. */
static size_t
get_count(cf_rd *r, size_t min_bytes)
{
	uint64_t	n = cf_rd_varint(r);

	if (!cf_rd_ok(r) || n > cf_rd_left(r) / min_bytes)
	{
		cf_rd_fail(r);
		return 0;
	}
	return (size_t) n;
}

/* Decodes one column into c (zeroed by the caller). false: no memory (else see r). */
static bool
get_column(cf_rd *r, cf_column_def *c)
{
	uint64_t	len = cf_rd_varint(r);
	const uint8_t *p;
	uint8_t		flags;

	if (!cf_rd_ok(r) || len > CF_NAME_MAX || (p = cf_rd_bytes(r, (size_t) len)) == NULL)
	{
		cf_rd_fail(r);
		return true;
	}
	if (len > 0)
	{
		c->name = mem_malloc((size_t) len);
		if (c->name == NULL)
			return false;
		memcpy(c->name, p, (size_t) len);
		c->name_len = (size_t) len;
	}
	c->validator = get_type(r);
	flags = cf_rd_u8(r);
	if ((flags & ~(COL_FLAG_INDEXED | COL_FLAG_HAS_INDEX_NAME | COL_FLAG_HAS_INDEX_ID)) ||
		((flags & COL_FLAG_HAS_INDEX_ID) && !(flags & COL_FLAG_INDEXED)))
		cf_rd_fail(r);
	c->indexed = (flags & COL_FLAG_INDEXED) != 0;
	if (cf_rd_ok(r) && (flags & COL_FLAG_HAS_INDEX_NAME) &&
		!get_str(r, &c->index_name, false) && cf_rd_ok(r))
		return false;
	if (cf_rd_ok(r) && (flags & COL_FLAG_HAS_INDEX_ID) && (c->index_id = cf_rd_u32(r)) == 0)
		cf_rd_fail(r);
	return true;
}

/* Decodes one CF into d (zeroed by the caller). false: no memory (else see r). */
static bool
get_cf(cf_rd *r, cf_cf_def *d)
{
	uint8_t		flags;

	d->id = cf_rd_u32(r);
	if (!get_str(r, &d->name, false))
		return !cf_rd_ok(r);
	flags = cf_rd_u8(r);
	if (flags & ~(CF_FLAG_SUPER | CF_FLAG_HAS_SUBCOMPARATOR))
		cf_rd_fail(r);
	d->super = (flags & CF_FLAG_SUPER) != 0;
	d->has_subcomparator = (flags & CF_FLAG_HAS_SUBCOMPARATOR) != 0;
	d->comparator = get_type(r);
	d->subcomparator = get_type(r);
	d->default_validator = get_type(r);
	if (!get_str(r, &d->comment, true))
		return !cf_rd_ok(r);
	d->row_cache_size = get_f64(r);
	d->key_cache_size = get_f64(r);
	d->read_repair_chance = get_f64(r);
	d->gc_grace_seconds = (int32_t) cf_rd_u32(r);
	d->min_compaction_threshold = (int32_t) cf_rd_u32(r);
	d->max_compaction_threshold = (int32_t) cf_rd_u32(r);
	d->row_cache_save_period_in_seconds = (int32_t) cf_rd_u32(r);
	d->key_cache_save_period_in_seconds = (int32_t) cf_rd_u32(r);
	d->memtable_flush_after_mins = (int32_t) cf_rd_u32(r);
	d->memtable_throughput_in_mb = (int32_t) cf_rd_u32(r);
	d->memtable_operations_in_millions = get_f64(r);
	d->n_columns = get_count(r, MIN_COLUMN_BYTES);
	if (d->n_columns > 0)
	{
		d->column_metadata = mem_calloc(d->n_columns, sizeof(cf_column_def));
		if (d->column_metadata == NULL)
		{
			d->n_columns = 0;
			return false;
		}
	}
	for (size_t i = 0; i < d->n_columns && cf_rd_ok(r); i++)
		if (!get_column(r, &d->column_metadata[i]))
			return false;
	return true;
}

/* Decodes a keyspace record from r; *k zeroed by the caller and cleared on error. */
static cf_status *
get_ks(cf_rd *r, cf_ks_def *k)
{
	uint8_t		version = cf_rd_u8(r);
	uint8_t		strategy;
	cf_status  *st;

	if (cf_rd_ok(r) && version != CF_SCHEMA_FORMAT_VERSION)
		return cf_status_make(CF_ERR_CORRUPTION,
							  "keyspace record: format version %u is not supported (this "
							  "build reads version %d)", version, CF_SCHEMA_FORMAT_VERSION);
	if (!get_str(r, &k->name, false) && cf_rd_ok(r))
		goto oom;
	strategy = cf_rd_u8(r);
	if (strategy >= CF_STRATEGY_COUNT_)
		cf_rd_fail(r);
	k->strategy = (cf_strategy) (strategy < CF_STRATEGY_COUNT_ ? strategy : 0);
	k->replication_factor = (int32_t) cf_rd_u32(r);
	k->n_options = get_count(r, MIN_OPTION_BYTES);
	if (k->n_options > 0)
	{
		k->strategy_options = mem_calloc(k->n_options, sizeof(cf_strategy_option));
		if (k->strategy_options == NULL)
		{
			k->n_options = 0;
			goto oom;
		}
	}
	for (size_t i = 0; i < k->n_options && cf_rd_ok(r); i++)
	{
		if ((!get_str(r, &k->strategy_options[i].key, false) ||
			 !get_str(r, &k->strategy_options[i].value, false)) && cf_rd_ok(r))
			goto oom;
	}
	k->n_cfs = get_count(r, MIN_CF_BYTES);
	if (k->n_cfs > 0)
	{
		k->cfs = mem_calloc(k->n_cfs, sizeof(cf_cf_def));
		if (k->cfs == NULL)
		{
			k->n_cfs = 0;
			goto oom;
		}
	}
	for (size_t i = 0; i < k->n_cfs && cf_rd_ok(r); i++)
	{
		if (!get_cf(r, &k->cfs[i]))
			goto oom;
		if (cf_rd_ok(r) && !dup_str(&k->cfs[i].keyspace, k->name))
			goto oom;
	}
	if ((st = cf_rd_status(r, "keyspace record")) != NULL)
		return st;
	/* An invalid stored definition is corruption; running out of memory is not. */
	if ((st = cf_ksdef_validate(k, CF_SCHEMA_ALLOW_SYSTEM)) != NULL &&
		cf_status_code(st) == CF_ERR_INVALID)
	{
		cf_status  *c = cf_status_make(CF_ERR_CORRUPTION,
									   "keyspace record: stored definition is invalid: %s",
									   cf_status_msg(st));

		cf_status_free(st);
		return c;
	}
	if (st != NULL)
		return st;
	for (size_t i = 0; i < k->n_cfs; i++)
		if (k->cfs[i].id == 0)
			return cf_status_make(CF_ERR_CORRUPTION,
								  "keyspace record: column family '%s' has no id",
								  k->cfs[i].name);
	return NULL;

oom:
	return no_memory("decoding a keyspace record");
}

cf_status *
cf_ksdef_decode(cf_slice data, cf_ks_def *out)
{
	cf_rd		r;
	cf_status  *st;

	memset(out, 0, sizeof(*out));
	cf_rd_init(&r, data.p, data.len);
	st = get_ks(&r, out);
	if (st == NULL && cf_rd_left(&r) != 0)
		st = cf_status_make(CF_ERR_CORRUPTION,
							"keyspace record: %zu bytes follow the end of the record",
							cf_rd_left(&r));
	if (st != NULL)
		cf_ksdef_clear(out);
	return st;
}
