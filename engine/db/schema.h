/*
 * db/schema.h — keyspace and column-family definitions as Cassandra 0.7's KsDef and
 * CfDef describe them, their validation, immutable schema snapshots changed by
 * copy-on-write, the binary encoding of one keyspace (a keyspace record, what the db
 * stores per keyspace in system.Schema), and validation of row mutations against a
 * column family's definition.
 *
 * Definitions (cf_ks_def, cf_cf_def, cf_column_def) are plain structs that own every
 * byte they point to (malloc'd). Callers build them with the cf_ksdef_* / cf_cfdef_*
 * builders, which parse class names the way 0.7 does (short or fully qualified),
 * and free them with cf_ksdef_clear / cf_cfdef_clear.
 *
 * A cf_schema is an immutable snapshot: a version (a time UUID made when the snapshot
 * is), the keyspaces sorted by name (each with its column families sorted by name), an
 * index of column families by id, and the next id to assign. A change never touches
 * the snapshot it starts from: it returns a NEW snapshot, so the db swaps its current
 * pointer and readers keep using the one they hold. Every change deep-copies the
 * schema (O(size of the schema)): schema changes are rare and serialised by the db,
 * so sharing unchanged keyspaces between snapshots was not worth its refcounting.
 *
 * Column family ids: 0 means "not assigned"; ids start at 1, come from the snapshot's
 * next_cf_id, and are never reused, even after a drop (data files and commit-log
 * records name a CF by id, so a reused id could resurrect a dropped CF's data).
 *
 * Errors are CF_ERR_INVALID (or CF_ERR_NOT_FOUND for a missing keyspace or column
 * family) with a message the Thrift layer sends unchanged as
 * InvalidRequestException.why: it names what is wrong and what would be valid.
 *
 * Thread safety: a snapshot is immutable after creation and may be read from any
 * number of threads; its reference count is atomic. Definitions under construction
 * belong to one thread.
 */
#ifndef CF_DB_SCHEMA_H
#define CF_DB_SCHEMA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "storage/cell.h"
#include "storage/comparator.h"
#include "storage/mutation.h"
#include "util/buf.h"
#include "util/slice.h"
#include "util/status.h"
#include "util/uuid.h"

/* Keyspace, column family and index names: 1..48 characters of [A-Za-z0-9_]. */
#define CF_SCHEMA_NAME_MAX 48

/* The keyspace the db keeps its own tables in; users may not create or change it. */
#define CF_SCHEMA_SYSTEM_KEYSPACE "system"

/* Cassandra's longest ttl: 20 years, in seconds. */
#define CF_SCHEMA_TTL_MAX (20 * 365 * 86400)

/* Longest comment, strategy option key or value, in bytes. */
#define CF_SCHEMA_STRING_MAX 65535

/* Flags of the change functions. */
#define CF_SCHEMA_ALLOW_SYSTEM 0x01	/* the db itself may create/change "system" */

/* Defaults of CfDef (Cassandra 0.7). */
#define CF_CFDEF_DEFAULT_KEY_CACHE_SIZE 200000.0
#define CF_CFDEF_DEFAULT_READ_REPAIR_CHANCE 1.0
#define CF_CFDEF_DEFAULT_GC_GRACE_SECONDS 864000
#define CF_CFDEF_DEFAULT_MIN_COMPACTION_THRESHOLD 4
#define CF_CFDEF_DEFAULT_MAX_COMPACTION_THRESHOLD 32
#define CF_CFDEF_DEFAULT_ROW_CACHE_SAVE_PERIOD 0
#define CF_CFDEF_DEFAULT_KEY_CACHE_SAVE_PERIOD 3600
#define CF_CFDEF_DEFAULT_MEMTABLE_FLUSH_AFTER_MINS 60
#define CF_CFDEF_DEFAULT_MEMTABLE_THROUGHPUT_IN_MB 64
#define CF_CFDEF_DEFAULT_MEMTABLE_OPERATIONS_IN_MILLIONS 0.3

/* Sane upper bounds (validation). */
#define CF_CFDEF_MEMTABLE_THROUGHPUT_MAX (1 << 20)	/* MB: 1 TiB */
#define CF_CFDEF_MEMTABLE_OPERATIONS_MAX 1e9		/* millions */

/* Replica placement strategies of 0.7 (org.apache.cassandra.locator.*). */
typedef enum cf_strategy
{
	CF_STRATEGY_SIMPLE = 0,		/* SimpleStrategy */
	CF_STRATEGY_OLD_NETWORK_TOPOLOGY,	/* OldNetworkTopologyStrategy */
	CF_STRATEGY_NETWORK_TOPOLOGY,	/* NetworkTopologyStrategy */
	CF_STRATEGY_COUNT_			/* number of strategies; not a strategy */
} cf_strategy;

/* One ColumnDef: the declared validator (and optional index) of a column name. */
typedef struct cf_column_def
{
	uint8_t    *name;			/* the column name's bytes (sub-column in a Super CF) */
	size_t		name_len;
	cf_type		validator;		/* validation_class */
	bool		indexed;		/* index_type KEYS */
	char	   *index_name;		/* NULL if none */
	/*
	 * The id of the index's hidden column family (engine/doc/index_format.md): drawn
	 * from the same sequence as CF ids, assigned by the schema, never reused; 0 when
	 * not indexed. Callers building a definition leave it 0 (the schema ignores what
	 * they set, except in cf_schema_build, which keeps stored ids).
	 */
	uint32_t	index_id;
} cf_column_def;

/* One CfDef. */
typedef struct cf_cf_def
{
	uint32_t	id;				/* 0 until the schema assigns one */
	char	   *keyspace;
	char	   *name;
	bool		super;			/* column_type "Super" (else "Standard") */
	cf_type		comparator;		/* comparator_type: names (super column names) */
	cf_type		subcomparator;	/* subcomparator_type: sub-column names (Super) */
	bool		has_subcomparator;	/* subcomparator_type was given */
	cf_type		default_validator;	/* default_validation_class */
	cf_column_def *column_metadata;
	size_t		n_columns;
	char	   *comment;		/* NULL = none */
	double		row_cache_size;
	double		key_cache_size;
	double		read_repair_chance;
	int32_t		gc_grace_seconds;
	int32_t		min_compaction_threshold;	/* 0 (with max 0 or alone): disabled */
	int32_t		max_compaction_threshold;
	int32_t		row_cache_save_period_in_seconds;
	int32_t		key_cache_save_period_in_seconds;
	int32_t		memtable_flush_after_mins;
	int32_t		memtable_throughput_in_mb;
	double		memtable_operations_in_millions;
} cf_cf_def;

typedef struct cf_strategy_option
{
	char	   *key;
	char	   *value;
} cf_strategy_option;

/* One KsDef. */
typedef struct cf_ks_def
{
	char	   *name;
	cf_strategy strategy;		/* strategy_class */
	cf_strategy_option *strategy_options;
	size_t		n_options;
	int32_t		replication_factor;
	cf_cf_def  *cfs;
	size_t		n_cfs;
} cf_ks_def;

typedef struct cf_schema cf_schema;

/* ---- strategies ---- */

/*
 * Parses "SimpleStrategy" or "org.apache.cassandra.locator.SimpleStrategy" (and the
 * other two). CF_ERR_INVALID listing the valid names otherwise.
 */
cf_status  *cf_strategy_parse(const char *name, cf_strategy *out);

/* "SimpleStrategy" */
const char *cf_strategy_name(cf_strategy s);

/* "org.apache.cassandra.locator.SimpleStrategy" */
const char *cf_strategy_class(cf_strategy s);

/* ---- column family definitions ---- */

/*
 * Initialises d with 0.7's defaults (Standard, BytesType everywhere, the
 * CF_CFDEF_DEFAULT_* values, no columns) and copies of keyspace and name (either may be
 * NULL). On CF_ERR_NO_MEMORY d is still initialised and must be cleared.
 */
cf_status  *cf_cfdef_init(cf_cf_def *d, const char *keyspace, const char *name);

/* Frees everything d owns; d is left zeroed. NULL-safe. */
void		cf_cfdef_clear(cf_cf_def *d);

/* A deep copy of src into dst (dst is overwritten, not freed). NO_MEMORY leaves dst clear. */
cf_status  *cf_cfdef_copy(cf_cf_def *dst, const cf_cf_def *src);

/* column_type: "Standard" or "Super"; CF_ERR_INVALID otherwise. */
cf_status  *cf_cfdef_set_column_type(cf_cf_def *d, const char *column_type);

/*
 * comparator_type, subcomparator_type, default_validation_class: a type name as
 * cf_type_parse takes it; CF_ERR_INVALID naming the field and the valid types.
 */
cf_status  *cf_cfdef_set_comparator(cf_cf_def *d, const char *type_name);
cf_status  *cf_cfdef_set_subcomparator(cf_cf_def *d, const char *type_name);
cf_status  *cf_cfdef_set_default_validator(cf_cf_def *d, const char *type_name);

/* Replaces the comment (NULL: none). */
cf_status  *cf_cfdef_set_comment(cf_cf_def *d, const char *comment);

/*
 * Appends a ColumnDef: name bytes are copied, validation_class parsed (CF_ERR_INVALID
 * naming the column if unknown), index_name copied (NULL: none). Whether the name fits
 * the comparator, is unique, and the index rules are checked by validation.
 */
cf_status  *cf_cfdef_add_column(cf_cf_def *d, cf_slice name, const char *validation_class,
								bool indexed, const char *index_name);

/* The column with this name, or NULL. O(columns). */
const cf_column_def *cf_cfdef_column(const cf_cf_def *d, cf_slice name);

/* How d's names sort (subcmp BytesType for a Standard CF). */
cf_col_order cf_cfdef_col_order(const cf_cf_def *d);

/*
 * Validates one definition on its own: keyspace and CF names, comparators, columns
 * (names valid under the comparator — the subcomparator in a Super CF, where they
 * describe sub-columns — and unique; index names well formed and only with an index;
 * no index on a Super CF), numeric settings. Uniqueness across the keyspace (CF and
 * index names) is cf_ksdef_validate's. NULL if valid, else CF_ERR_INVALID.
 */
cf_status  *cf_cfdef_validate(const cf_cf_def *d);

/*
 * A column, super column or sub-column name of type t, or a slice or deletion bound
 * (allow_empty: empty means open): non-empty unless allow_empty, at most CF_NAME_MAX
 * bytes, valid for t. Else CF_ERR_INVALID with a message starting with `what`
 * ("column name must not be empty", "column name: ..."), for the caller to prefix
 * with its context. Pure; thread-safe.
 */
cf_status  *cf_name_validate(cf_type t, cf_slice v, const char *what, bool allow_empty);

/*
 * A keyspace, column family or index name: 1 to CF_SCHEMA_NAME_MAX of [A-Za-z0-9_].
 * what is "keyspace", "column family" or "index", for the message. NULL if valid,
 * else CF_ERR_INVALID naming the offending byte or the length.
 */
cf_status  *cf_schema_name_check(const char *what, const char *name);

/*
 * Validates one CF's part of a row mutation against its definition, the way 0.7's
 * ThriftValidation does, and reports the first problem found as CF_ERR_INVALID:
 *  - a Standard CF's cells and range tombstones name no super column; a Super CF's
 *    cells name a (non-empty) super column;
 *  - names (and super column names) are non-empty, at most CF_NAME_MAX bytes and valid
 *    for the comparator (sub-columns: the subcomparator);
 *  - live values are valid for the column's validator (column_metadata by name, else
 *    default_validator);
 *  - range tombstone bounds are empty (open) or valid names, start not after finish;
 *  - an expiring cell (or any cell with a ttl) has 0 < ttl <= CF_SCHEMA_TTL_MAX and
 *    now_sec + ttl fits an int32; a cell is not both deleted and expiring.
 * Timestamps may be any int64. u->cf_id is not checked (the caller resolved it).
 * Pure; thread-safe.
 */
cf_status  *cf_cfdef_validate_update(const cf_cf_def *d, const cf_cf_update *u,
									 int32_t now_sec);

/* ---- keyspace definitions ---- */

/*
 * Initialises k: a copy of name (may be NULL), SimpleStrategy, replication_factor 1,
 * no options, no CFs. On CF_ERR_NO_MEMORY k must still be cleared.
 */
cf_status  *cf_ksdef_init(cf_ks_def *k, const char *name);

/* Frees everything k owns, its CFs included; k is left zeroed. NULL-safe. */
void		cf_ksdef_clear(cf_ks_def *k);

/* A deep copy (dst overwritten, not freed). NO_MEMORY leaves dst clear. */
cf_status  *cf_ksdef_copy(cf_ks_def *dst, const cf_ks_def *src);

/* strategy_class, short or fully qualified (cf_strategy_parse). */
cf_status  *cf_ksdef_set_strategy(cf_ks_def *k, const char *strategy_class);

/* Appends a strategy option (copies both strings; duplicates are found by validation). */
cf_status  *cf_ksdef_add_option(cf_ks_def *k, const char *key, const char *value);

/* The value of a strategy option, or NULL. */
const char *cf_ksdef_option(const cf_ks_def *k, const char *key);

/*
 * Moves *cf into k (k owns it; *cf is left zeroed). On NO_MEMORY nothing moves and the
 * caller still owns *cf.
 */
cf_status  *cf_ksdef_add_cf(cf_ks_def *k, cf_cf_def *cf);

/* The CF named name, or NULL. */
const cf_cf_def *cf_ksdef_cf(const cf_ks_def *k, const char *name);

/*
 * Validates a keyspace and every CF in it: the name (and, unless flags has
 * CF_SCHEMA_ALLOW_SYSTEM, that it is not "system"), replication_factor >= 1, strategy
 * options (non-empty unique keys, bounded strings; NetworkTopologyStrategy values are
 * replica counts), every CF (cf_cfdef_validate, and its keyspace field, when set,
 * naming this keyspace), CF names unique, index names unique in the keyspace.
 */
cf_status  *cf_ksdef_validate(const cf_ks_def *k, unsigned flags);

/* ---- schema snapshots ---- */

/* A new empty schema (fresh version, next_cf_id 1) with one reference; NULL on no memory. */
cf_schema  *cf_schema_new(void);

/*
 * A schema from keyspaces as the db stored them (ids assigned), e.g. decoded with
 * cf_ksdef_decode from the system keyspace. Copies kss. version NULL: a fresh one.
 * next_cf_id 0: one past the largest id. Validates everything (system allowed) and that
 * ids (CF and index ids together) are non-zero, unique and below next_cf_id:
 * CF_ERR_INVALID otherwise. An indexed column stored without an index id (written
 * before indexes had ids) gets one from next_cf_id, so the result's next_cf_id is then
 * larger than the one given: the caller should persist the schema again.
 */
cf_status  *cf_schema_build(const cf_ks_def *kss, size_t n, uint32_t next_cf_id,
							const uint8_t *version, cf_schema **out);

/* Takes one more reference. Any thread. */
void		cf_schema_ref(cf_schema *s);

/* Drops a reference; the last one frees the snapshot. NULL-safe. Any thread. */
void		cf_schema_unref(cf_schema *s);

/* The snapshot's version (a v1 time UUID), CF_UUID_LEN bytes, valid while s is. */
const uint8_t *cf_schema_version(const cf_schema *s);

uint32_t	cf_schema_next_cf_id(const cf_schema *s);

/* Keyspaces in name order: count and i-th. Pointers valid while s is referenced. */
size_t		cf_schema_n_keyspaces(const cf_schema *s);
const cf_ks_def *cf_schema_keyspace_at(const cf_schema *s, size_t i);

/* Lookups: NULL if absent. O(log n). Pointers valid while s is referenced. */
const cf_ks_def *cf_schema_keyspace(const cf_schema *s, const char *keyspace);
const cf_cf_def *cf_schema_cf(const cf_schema *s, const char *keyspace, const char *cf);
const cf_cf_def *cf_schema_cf_by_id(const cf_schema *s, uint32_t id);

/*
 * The indexed column whose index has this id (cf_column_def.index_id), and in *cf
 * (may be NULL) the column family it belongs to; NULL if no index has the id (CF ids
 * are not index ids). O(log n).
 */
const cf_column_def *cf_schema_index_by_id(const cf_schema *s, uint32_t id,
										   const cf_cf_def **cf);

/*
 * Changes. Each validates, and on success stores a NEW snapshot with one reference in
 * *out (fresh version); s is never modified. On error *out is NULL. The argument
 * definitions are copied, never taken. flags: CF_SCHEMA_ALLOW_SYSTEM or 0.
 *
 * add_keyspace: the keyspace must not exist (CF_ERR_INVALID); its CFs get new ids in
 *   order (their `id` fields are ignored; their `keyspace`, when set, must match).
 * drop_keyspace: CF_ERR_NOT_FOUND if absent; its ids are retired.
 * update_keyspace: strategy, options and replication_factor; ks->n_cfs must be 0 (0.7:
 *   CFs change only through the CF calls); CF_ERR_NOT_FOUND if absent.
 * add_cf: cf->keyspace must exist (NOT_FOUND); the name must be free; gets the next id.
 * drop_cf: NOT_FOUND if the keyspace or CF is absent.
 * update_cf: finds the CF by cf->id when non-zero, else by (keyspace, name); may change
 *   everything but the name, keyspace, column type and comparators (CF_ERR_INVALID
 *   naming the field); keeps the id.
 *
 * Index ids: every indexed column without one gets the next id, after the CF ids
 * (keyspaces, CFs by name, columns in their order). update_cf keeps a column's index
 * id while the column stays indexed with the same validator (an index_name change
 * keeps it); an index whose column's validator changes is a new index (new id: its
 * entries are keyed by the validator, engine/doc/index_format.md). Dropping the index
 * (index_type unset) or its CF retires the id for good, like a CF id.
 */
cf_status  *cf_schema_add_keyspace(const cf_schema *s, const cf_ks_def *ks,
								   unsigned flags, cf_schema **out);
cf_status  *cf_schema_drop_keyspace(const cf_schema *s, const char *keyspace,
									unsigned flags, cf_schema **out);
cf_status  *cf_schema_update_keyspace(const cf_schema *s, const cf_ks_def *ks,
									  unsigned flags, cf_schema **out);
cf_status  *cf_schema_add_cf(const cf_schema *s, const cf_cf_def *cf,
							 unsigned flags, cf_schema **out);
cf_status  *cf_schema_drop_cf(const cf_schema *s, const char *keyspace, const char *cf,
							  unsigned flags, cf_schema **out);
cf_status  *cf_schema_update_cf(const cf_schema *s, const cf_cf_def *cf,
								unsigned flags, cf_schema **out);

/* ---- encoding (engine/doc/schema_format.md) ---- */

#define CF_SCHEMA_FORMAT_VERSION 1

/*
 * Appends the keyspace record of k (with its CFs and their ids) to out. A snapshot's
 * version and next_cf_id are not part of it: the db stores next_cf_id beside the
 * records (engine/doc/schema_format.md).
 */
cf_status  *cf_ksdef_encode(const cf_ks_def *k, cf_buf *out);

/*
 * Decodes one keyspace occupying exactly `data` into *out, which then owns copies of
 * every byte (data may be freed). Malformed, truncated or invalid input:
 * CF_ERR_CORRUPTION, never a crash or an allocation larger than data implies; no
 * memory: CF_ERR_NO_MEMORY. On error *out is clear.
 */
cf_status  *cf_ksdef_decode(cf_slice data, cf_ks_def *out);

/* ---- testing ---- */

/*
 * Testing only (fault injection): counting from this call, the n-th allocation this
 * module makes itself (1: the next; copies, definitions, snapshots, decoding,
 * validation's scratch arrays) and every one after it fail as if memory were
 * exhausted; n 0 disarms. Returns whether the failure armed by the previous call
 * happened, so a test can start the failure at each allocation of an operation in
 * turn until one run passes untouched. A process-wide setting: arm it only while no
 * other thread uses this module.
 */
bool		cf_schema_test_fail_alloc(unsigned long n);

#endif							/* CF_DB_SCHEMA_H */
