/*
 * tools/schema_load.h — `colfam schema load`: keyspace definitions from the seeds'
 * schema files, and their application to a cluster.
 *
 * Two formats, told apart by their first non-blank character:
 *   - Cassandra 0.6's storage-conf.xml, as the seeds write it: a <Storage> file whose
 *     <Keyspaces> holds <Keyspace Name=...> elements, a bare <Keyspaces>, or a bare
 *     <Keyspace>. A Keyspace holds <ColumnFamily Name= CompareWith= ColumnType=
 *     CompareSubcolumnsWith= Comment= RowsCached= KeysCached= ReadRepairChance=
 *     GCGraceSeconds= FlushPeriodInMinutes= />, <ReplicaPlacementStrategy>,
 *     <ReplicationFactor> and <EndPointSnitch> (a node setting in 0.7: accepted and
 *     not sent). Parsed with libxml2, no network, no entity expansion.
 *   - schema.json as seed 004 writes it: {"Keyspace": {"CF": {"comparator_type": ...,
 *     "column_type": ..., "subcomparator_type": ...}, ...}}, trailing commas allowed
 *     (the seed has them). A keyspace member whose value is not an object is a
 *     keyspace attribute: replication_factor, strategy_class (or placement_strategy),
 *     strategy_options {name: value}. CF members are CfDef's field names (comment,
 *     row_cache_size, key_cache_size, read_repair_chance, gc_grace_seconds,
 *     default_validation_class, min/max_compaction_threshold, column_metadata
 *     [{"name", "validation_class", "index_type", "index_name"}]).
 * Types and strategies are checked and stored as full class names (cli_schema.h).
 * Errors are CF_ERR_INVALID "FILE:LINE: message" with the valid names as a hint.
 */
#ifndef CF_TOOLS_SCHEMA_LOAD_H
#define CF_TOOLS_SCHEMA_LOAD_H

#include <stdbool.h>
#include <stdio.h>

#include "thrift/cassandra.h"
#include "tools/backend.h"
#include "util/arena.h"
#include "util/status.h"

/* Parses storage-conf.xml text; file names the source in messages. */
cf_status  *cft_schema_from_xml(const char *file, const char *text, size_t len,
								cf_arena *arena, cf_t_ks_def **out, size_t *n_out);

/* Parses schema.json text. */
cf_status  *cft_schema_from_json(const char *file, const char *text, size_t len,
								 cf_arena *arena, cf_t_ks_def **out, size_t *n_out);

/* Reads path and parses it as XML ('<' first) or JSON ('{' first). */
cf_status  *cft_schema_load_file(const char *path, cf_arena *arena,
								 cf_t_ks_def **out, size_t *n_out);

/*
 * Creates keyspace ks through b: system_add_keyspace if it does not exist. If it
 * exists: CF_ERR_INVALID unless update, else system_update_keyspace and, per column
 * family, system_update_column_family (existing: its definition on the server with
 * the attributes the file sets, so indexes and settings the file does not mention
 * stay) or system_add_column_family (new). One line per change goes to log (may be
 * NULL).
 */
cf_status  *cft_schema_apply(cft_backend *b, const cf_t_ks_def *ks, bool update, FILE *log);

/* Writes ks as cassandra-cli statements (create keyspace, create column family ...). */
void		cft_schema_print_cli(FILE *out, const cf_t_ks_def *ks);

#endif							/* CF_TOOLS_SCHEMA_LOAD_H */
