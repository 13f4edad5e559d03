/*
 * tools/sstable_json.h — `colfam export` / `colfam import`: a column family as
 * Cassandra 0.7's sstable2json JSON, both ways, streaming.
 *
 * Format (keys, names and values in lowercase hex; one row per line):
 *   Standard: {"<key>": [["<name>", "<value>", <timestamp>, false(, <ttl>, <expires>)], ...],
 *              ...}
 *   Super:    {"<key>": {"<super>": {"deletedAt": <i64>, "subColumns": [[...], ...]}, ...},
 *              ...}
 * What the Thrift API cannot see is written as a live cell shows it: isDeleted is
 * always false on export, deletedAt is -9223372036854775808 (Long.MIN_VALUE, "never"),
 * and <expires> (0.7's localExpirationTime, seconds) is timestamp/10^6 + ttl, which
 * assumes microsecond timestamps. Import takes what sstable2json wrote: a column whose
 * isDeleted is true becomes a deletion at its timestamp; a deletedAt above MIN deletes
 * the super column at that time; a ttl is sent as is (the server starts it again).
 *
 * Export: rows by the key-range pager (row_page rows a page, each with up to col_page
 * columns); a row with more columns continues with a column pager from its last name,
 * so no whole wide row is ever held (a super column is held whole: Thrift returns
 * super columns whole). Rows come in the partitioner's order; range ghosts (rows
 * without live columns) are skipped.
 *
 * Import: yajl's callback parser on 64 KiB reads; mutations are collected into
 * batch_mutate calls of at most batch_columns columns. A malformed file stops with
 * "FILE:LINE: (byte OFFSET) message" (a file cut short: the position of its end), and
 * a batch the server refuses with "FILE: ..."; the batches sent before the error are
 * acknowledged and stay, the columns of the unsent batch are not written, and the
 * message says how many columns, and of how many rows, were imported. An empty row
 * key or super column name is refused before it is sent.
 */
#ifndef CF_TOOLS_SSTABLE_JSON_H
#define CF_TOOLS_SSTABLE_JSON_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "client/client.h"
#include "tools/progress.h"
#include "util/status.h"

/* Whether keyspace.cf exists and is a super CF (describe_keyspace). */
cf_status  *cft_cf_is_super(cfc_conn *c, const char *keyspace, const char *cf, bool *super);

/* Writes cf (on c's keyspace) to out; counts go to pr (which may print them). */
cf_status  *cft_export(cfc_conn *c, const char *cf, bool super, FILE *out,
					   int32_t row_page, int32_t col_page, cft_progress *pr);

/* Reads in (name for messages) into cf. */
cf_status  *cft_import(cfc_conn *c, const char *cf, bool super, FILE *in, const char *name,
					   int batch_columns, cft_progress *pr);

#endif							/* CF_TOOLS_SSTABLE_JSON_H */
