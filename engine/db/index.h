/*
 * db/index.h — KEYS secondary indexes (Cassandra 0.7's get_indexed_slices): the layout
 * of an index's hidden column family, the index changes a write implies, and index
 * queries. The db (db.c) owns the stores, the locking, the commit log and the
 * background builds; this module is the pure part over table sets. The format and
 * the reasoning behind it: engine/doc/index_format.md.
 *
 * Layout. Every indexed column (cf_column_def.indexed, KEYS) of a Standard CF has a
 * hidden Standard CF of its own, with the id cf_column_def.index_id and BytesType
 * names:
 *  - its row key is the indexed value (cf_index_row_key: the value's bytes; for
 *    IntegerType without redundant leading sign bytes, so values equal under the
 *    validator share one row). Index rows are placed by their key's bytes, not by the
 *    partitioner (Cassandra's LocalPartitioner): their token is their key.
 *  - its columns are the base rows holding that value: the name is the base row's
 *    (token, key) encoded so that BytesType order is (token, key) order
 *    (cf_index_entry_name), so an index row lists its base rows in the order of a
 *    range scan of the base CF; the value is empty (IntegerType: the base value's
 *    bytes, see below); timestamp, ttl, expiry and flags are the base cell's.
 *
 * Maintenance (cf_index_plan_write): the entry is a *mirror* of the base column's
 * winning version: when a write makes a new version of an indexed column win, its
 * mirror is written to the index row of its value; when the column's previous winner
 * was live and indexed under another value (or the column is now dead: deleted,
 * shadowed by a row or range deletion), the old entry is deleted by a tombstone at a
 * timestamp chosen so it can never hide a version that could win later. Expiry needs
 * no write: a mirror expires with its base cell. The plan reads the column's current
 * winner (read-before-write); the caller logs it in the same commit-log record as the
 * base write (cf_mutation_batch_encode), so both are recovered together, and should
 * serialise writes to one row key (the db holds a per-key lock): the rules depend only
 * on timestamps, so a plan made from a read that a concurrent write overtook is still
 * correct, but it may leave a stale entry behind.
 *
 * Invariant the plans keep (proved in index_format.md): for every base row whose
 * indexed column has a live value v, the index row of v has a live entry for it.
 * Stale live entries can exist in rare cases (same-timestamp races) and are harmless:
 * queries re-check every candidate row against the base CF.
 *
 * Thread safety: everything here is pure over its arguments; a plan belongs to one
 * thread. Table sets are read as db/read.h says.
 */
#ifndef CF_DB_INDEX_H
#define CF_DB_INDEX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "db/read.h"
#include "db/schema.h"
#include "storage/cell.h"
#include "storage/mutation.h"
#include "storage/partitioner.h"
#include "util/arena.h"
#include "util/buf.h"
#include "util/slice.h"
#include "util/status.h"

/* ---- layout ---- */

/* How an index CF's names sort: a Standard CF of BytesType. */
cf_col_order cf_index_col_order(void);

/* Does d have an index (some column with index_type KEYS)? */
bool		cf_index_cf_has_indexes(const cf_cf_def *d);

/*
 * The key of the index row for value under the column's validator: value itself,
 * except IntegerType, where redundant leading sign bytes (0x00 before a byte < 0x80,
 * 0xff before a byte >= 0x80) are dropped. A sub-slice of value.
 */
cf_slice	cf_index_row_key(cf_type validator, cf_slice value);

/*
 * Appends the entry name of the base row (token, key) under partitioner p:
 *  - RandomPartitioner: the 16-byte token, then the key (tokens are fixed-length);
 *  - ByteOrdered, OrderPreserving: the key (it is the token);
 *  - CollatingOrderPreserving: the token (it holds the key after its sort key's
 *    0x00 terminator).
 * In each case byte order of names is (token, key) order. CF_ERR_INVALID when the
 * name would exceed CF_NAME_MAX (keys longer than 65519 bytes under Random, or whose
 * collation key makes the token too long), or the token is not one of p.
 */
cf_status  *cf_index_entry_name(cf_partitioner p, cf_slice token, cf_slice key, cf_buf *out);

/* The inverse: token and key point into name. CF_ERR_CORRUPTION if name is not one. */
cf_status  *cf_index_entry_parse(cf_partitioner p, cf_slice name, cf_slice *token,
								 cf_slice *key);

/* ---- maintenance ---- */

/*
 * Index changes to log and apply with a base write: n_muts row mutations, one per
 * index row touched, each with one cf update naming the index's CF id and holding one
 * cell (a mirror or a tombstone). Their tokens are their keys (see Layout). Every
 * byte lives in the plan until reset or freed.
 */
typedef struct cf_index_plan
{
	cf_mutation *muts;
	size_t		n_muts;
	size_t		cap_;			/* private */
	cf_arena   *arena_;			/* private */
} cf_index_plan;

void		cf_index_plan_init(cf_index_plan *p);
void		cf_index_plan_reset(cf_index_plan *p);	/* empty again, for another write */
void		cf_index_plan_free(cf_index_plan *p);

/*
 * Appends to plan the index changes of applying u (validated, a Standard CF's) to
 * the row (token, key) of the CF def, whose current state is read from base. Only
 * indexed columns that u writes or deletes (cells of the column, a row deletion, a
 * range tombstone covering it) are read. now_sec is the deletion time given to index
 * tombstones. Errors: CF_ERR_INVALID when a new indexed value is longer than
 * CF_KEY_MAX or the entry name too long (cf_index_entry_name); read errors.
 * The plan is correct whatever happens to the row meanwhile, except a truncation of
 * the CF (the db re-plans a write that a truncation overtook).
 */
cf_status  *cf_index_plan_write(cf_index_plan *plan, const cf_cf_def *def,
								const cf_table_set *base, cf_partitioner p, cf_slice token,
								cf_slice key, const cf_cf_update *u, int32_t now_sec);

/*
 * For building an index over existing data: appends the mirror of the current winner
 * of col (an indexed column of def, index_id set) in the row (token, key), if it is a
 * value that is not deleted or shadowed; nothing otherwise. Errors as above (for a
 * value or key the index cannot hold).
 */
cf_status  *cf_index_plan_mirror(cf_index_plan *plan, const cf_cf_def *def,
								 const cf_column_def *col, const cf_table_set *base,
								 cf_partitioner p, cf_slice token, cf_slice key);

/* ---- queries ---- */

/* IndexOperator of Thrift 0.7. */
typedef enum cf_index_op
{
	CF_INDEX_EQ = 0,
	CF_INDEX_GTE,
	CF_INDEX_GT,
	CF_INDEX_LTE,
	CF_INDEX_LT,
	CF_INDEX_OP_COUNT_			/* number of operators; not an operator */
} cf_index_op;

/* IndexExpression: column op value, compared under the column's validator. */
typedef struct cf_index_expr
{
	cf_slice	column;
	cf_index_op op;
	cf_slice	value;
} cf_index_expr;

/*
 * IndexClause: rows satisfying every expression, in index order ((token, key) of the
 * base rows), from start_key (inclusive; empty: the first) on, at most count.
 */
typedef struct cf_index_clause
{
	const cf_index_expr *exprs;
	size_t		n_exprs;
	cf_slice	start_key;
	int32_t		count;
} cf_index_clause;

/* "EQ", "GTE", ... */
const char *cf_index_op_name(cf_index_op op);

/* Does a live value satisfy `value op operand` under validator t? */
bool		cf_index_expr_matches(cf_type t, cf_index_op op, cf_slice value, cf_slice operand);

/*
 * Validates the clause for def (keyspace.cf named in messages) and picks the
 * expression the index serves: the first EQ on an indexed column, its position in
 * *primary. CF_ERR_INVALID, with a message saying what to change: a Super CF; count
 * < 0; an unknown operator; a column name or value invalid for the comparator or the
 * column's validator; no EQ expression on an indexed column (the message lists the
 * CF's indexed columns, or says it has none).
 */
cf_status  *cf_index_clause_check(const cf_cf_def *def, const cf_index_clause *c,
								  size_t *primary);

/* What a query reads. */
typedef struct cf_index_query
{
	const cf_cf_def *def;		/* the base CF */
	cf_partitioner partitioner;
	const cf_table_set *base;	/* the base CF's tables */
	/*
	 * The tables of the primary expression's index, or NULL while that index is being
	 * built: the query then scans the base CF in (token, key) order instead, with the
	 * same results, in time proportional to the CF.
	 */
	const cf_table_set *index;
	int32_t		now_sec;
} cf_index_query;

/*
 * get_indexed_slices: the rows satisfying c (checked with cf_index_clause_check,
 * primary from it), each with the slice pred selects (as cf_read_slice: possibly
 * empty), in the cf_read_rows shape of db/read.h; the cursor is the last row
 * returned. Every candidate from the index is re-checked against every expression on
 * the base row as it is now, so a row is returned iff its live values satisfy the
 * clause. A predicate the read path rejects is CF_ERR_INVALID even when no row
 * matches.
 */
cf_status  *cf_index_query_run(const cf_index_query *q, const cf_index_clause *c,
							   size_t primary, const cf_predicate *pred, cf_read_rows **out);

#endif							/* CF_DB_INDEX_H */
