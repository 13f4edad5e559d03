/*
 * tools/cli_schema.h — keyspace and column family definitions for the tool: the
 * with-clauses of create/update statements, and the names shared with the schema
 * file loaders (schema_load.c): marshal types, placement strategies.
 *
 * Everything the functions store in a def points into the caller's arena or into
 * the statement (which lives in an arena too); nothing is malloc'd.
 */
#ifndef CF_TOOLS_CLI_SCHEMA_H
#define CF_TOOLS_CLI_SCHEMA_H

#include "thrift/cassandra.h"
#include "tools/cli.h"
#include "util/arena.h"
#include "util/status.h"

#define CFT_DEFAULT_STRATEGY "org.apache.cassandra.locator.SimpleStrategy"

/*
 * A placement strategy's full class name from a name as written: full 0.7 class
 * names, short names (SimpleStrategy, NetworkTopologyStrategy,
 * OldNetworkTopologyStrategy) and 0.6's RackUnawareStrategy (→ SimpleStrategy) and
 * RackAwareStrategy (→ OldNetworkTopologyStrategy), which 0.7 renamed. NULL if unknown.
 */
const char *cft_strategy_class(const char *name, size_t len);

/* "SimpleStrategy, NetworkTopologyStrategy, OldNetworkTopologyStrategy" for hints. */
extern const char cft_strategy_names_hint[];

/* A new keyspace definition as create keyspace makes it: SimpleStrategy, factor 1. */
void		cft_ks_def_init(cf_t_ks_def *def, const char *name);

/* A new column family definition (Standard, BytesType) in keyspace. */
void		cft_cf_def_init(cf_t_cf_def *def, const char *keyspace, const char *name);

/*
 * Applies a create/update keyspace statement's attributes to def (placement_strategy,
 * replication_factor, strategy_options). CF_ERR_INVALID with the attribute's line
 * and column for an unknown attribute (listing the valid ones) or a bad value.
 */
cf_status  *cft_ks_def_apply(const cft_stmt *s, cf_arena *arena, cf_t_ks_def *def);

/*
 * Applies a create/update column family statement's attributes to def: column_type,
 * comparator, subcomparator, comment, rows_cached, row_cache_save_period, keys_cached,
 * key_cache_save_period, read_repair_chance, gc_grace, default_validation_class,
 * min/max_compaction_threshold, memtable_flush_after, memtable_throughput,
 * memtable_operations and column_metadata = [{column_name, validation_class,
 * index_type, index_name}] (names converted by the comparator in effect). Types are
 * stored as full class names. Errors as for cft_ks_def_apply.
 */
cf_status  *cft_cf_def_apply(const cft_stmt *s, cf_arena *arena, cf_t_cf_def *def);

/* "Standard" or "Super"; false for anything else (compared without case). */
bool		cft_column_type_valid(cf_slice v, const char **canonical);

#endif							/* CF_TOOLS_CLI_SCHEMA_H */
