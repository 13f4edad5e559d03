/*-------------------------------------------------------------------------
 * fdw/colfam_fdw.h — the one shared header of colfam_fdw; its prototypes are
 * grouped by the file that defines them, so it doubles as a map of fdw/.
 *
 * The FDW links only against the engine's client library; it never includes storage
 * or server headers, and the engine never includes PostgreSQL headers.
 *-------------------------------------------------------------------------
 */
#ifndef COLFAM_FDW_H
#define COLFAM_FDW_H

#include "postgres.h"

#include "datatype/timestamp.h"
#include "fmgr.h"
#include "lib/stringinfo.h"
#include "nodes/pg_list.h"

/* Defaults the options fall back to (see option.c). */
#define COLFAM_DEFAULT_PORT 9160
#define COLFAM_DEFAULT_FETCH_SIZE 1000
#define COLFAM_DEFAULT_CONNECT_TIMEOUT_MS 5000
#define COLFAM_DEFAULT_IO_TIMEOUT_MS 10000

/*
 * Cassandra 0.7's bounds on a row key, a column name and a super column name: 1 to
 * 65535 bytes. colfamd refuses a request naming an empty or longer one; no row or
 * column has one, so a lookup by it finds nothing and a write of it is refused.
 */
#define COLFAM_NAME_BYTES_MAX 65535
#define colfam_name_len_ok(len) ((len) > 0 && (len) <= COLFAM_NAME_BYTES_MAX)

/* Microseconds from 1970-01-01 (Cassandra's epoch) to 2000-01-01 (PostgreSQL's). */
#define UNIX_TO_PG_USECS \
	((int64) (POSTGRES_EPOCH_JDATE - UNIX_EPOCH_JDATE) * USECS_PER_DAY)

/* in colfam_fdw.c */
extern Datum colfam_fdw_handler(PG_FUNCTION_ARGS);

/* in option.c */
extern Datum colfam_fdw_validator(PG_FUNCTION_ARGS);
extern void colfam_check_options(List *options, Oid catalog);
/* A duration option's value in milliseconds (units as the validator took them), or dflt. */
extern int	colfam_duration_option_ms(List *options, const char *name, int dflt);

/* in xact.c: an abort after writes WARNs that they stay (colfamd has no transactions) */
extern void colfam_xact_init(void);
/* colfamd acknowledged a write of rows SQL rows / a truncate of one column family */
extern void colfam_xact_rows_written(int64 rows);
extern void colfam_xact_truncated(void);
/* The rows colfamd acknowledged for the current top-level statement (any table). */
extern int64 colfam_xact_statement_rows(void);

/* in timeuuid.c: the timeuuid type (16 bytes, version-1 UUIDs in TimeUUIDType order) */
/* (the version and 60-bit timestamp of the bytes: cf_uuid_version, cf_uuid_v1_timestamp) */
/* <0, 0, >0 as a sorts before, equals, after b under TimeUUIDType (both version 1). */
extern int	colfam_timeuuid_compare(const uint8 *a, const uint8 *b);
/* ERROR with the given SQLSTATE unless the 16 bytes at u are a version-1 UUID. */
extern void colfam_timeuuid_check(const uint8 *u, int sqlstate);
/* end of timeuuid.c */

/* in convert.c: bytes of colfamd <-> Datums of declared SQL types */

/* Where a value comes from, for error messages; every field may be NULL/0. */
typedef struct ColfamValueContext
{
	const char *row_key;		/* the row key's bytes (not NUL-terminated) */
	size_t		row_key_len;
	const char *column;			/* the SQL column's name */
} ColfamValueContext;

/* Whether values of typid (or of a domain over it) can be converted. */
extern bool colfam_type_supported(Oid typid);
/* A row key for messages: 'text' when readable, else 0x-hex; long keys cut. */
extern char *colfam_quote_key(const char *key, size_t len);
/* A palloc'd copy of len bytes (0x00 included), NUL-terminated. */
extern char *colfam_copy_bytes(const void *p, size_t len);
/*
 * Stored bytes → a Datum of typid (typmod applied, domains checked), palloc'd in the
 * current context; *isnull for the empty value of a type colfam_empty_is_null names.
 * ERROR (HV004, 22021 bad UTF-8, 22P05 U+0000, 22003/22008 out of range) naming ctx's
 * column and row and the expected encoding; ctx may be NULL.
 */
extern Datum colfam_bytes_to_datum(Oid typid, int32 typmod, const char *data, size_t len,
								   const ColfamValueContext *ctx, bool *isnull);
/*
 * Whether the empty value reads as NULL under typid (and a NULL value of the 'columns'
 * mapping writes it): every type but text, varchar, char and bytea, whose empty value
 * is ''.
 */
extern bool colfam_empty_is_null(Oid typid);
/*
 * A non-null Datum of typid → its stored bytes, appended to out. ERROR for values the
 * encoding cannot hold (numeric fraction/NaN/Inf, sub-millisecond or infinite
 * timestamptz) or unsupported types. A bound that cannot be encoded is an ERROR, not a
 * silently rounded bound: callers pushing conditions down must not push such bounds.
 */
extern void colfam_datum_to_bytes(Oid typid, Datum value, StringInfo out,
								  const ColfamValueContext *ctx);
/*
 * IMPORT FOREIGN SCHEMA: the SQL type (and collation, else InvalidOid) for a comparator
 * or validator class, short or org.apache.cassandra.db.marshal.X; false if unknown.
 */
extern bool colfam_marshal_type(const char *marshal, Oid *typid, Oid *collid);
/*
 * The pushdown rule: true only if the btree order of typid under collid equals the
 * order of comparator (short or qualified name) on the bytes colfam_datum_to_bytes
 * writes for typid. Reads the catalogs (collation, the timeuuid type's OID).
 */
extern bool colfam_order_matches(Oid typid, Oid collid, const char *comparator);
/*
 * Does comparator (short or qualified name) validate names as ASCII (AsciiType)?
 * colfamd rejects a request naming a byte above 0x7f in such a CF.
 */
extern bool colfam_comparator_is_ascii(const char *comparator);
/*
 * The 'rows' mapping's extra jsonb holds each column no other column names as a member
 * whose name and value are JSON strings: the bytes' text when they are UTF-8 without
 * U+0000 that does not start with "0x", else "0x" and their hex, so that no two names
 * look alike and a row read and written back is unchanged.
 * colfam_extra_to_json: bytes → that JSON string (quoted), appended to buf.
 * colfam_extra_from_json: a string of it (len bytes, server encoding) → the bytes it
 * stands for, *bytes (s itself, or palloc'd) of *nbytes; false when it starts with
 * "0x" but the rest is not pairs of hex digits.
 */
extern void colfam_extra_to_json(StringInfo buf, const char *p, size_t len);
extern bool colfam_extra_from_json(const char *s, int len, const char **bytes,
								   size_t *nbytes);
/* The OID of the timeuuid type, or InvalidOid if the extension is not installed. */
extern Oid	colfam_timeuuid_typid(void);
/* end of convert.c */

#endif							/* COLFAM_FDW_H */
