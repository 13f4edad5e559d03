/*
 * storage/comparator.h — the types of names and values: comparison, validation and
 * text conversion, exactly as Cassandra 0.7's marshal types define them.
 *
 * Columns are always sorted by their CF's comparator (CompareWith) and sub-columns by
 * CompareSubcolumnsWith; values are checked by validators of the same types. Every
 * compare function requires its inputs to have passed cf_type_validate (the write path
 * validates), but never crashes on invalid input: it then falls back to byte order.
 *
 * Orders (a, b valid):
 *  - BytesType: unsigned bytes, shorter prefix first. AsciiType, UTF8Type: the same.
 *  - LongType: exactly 8 bytes, signed big-endian integer.
 *  - IntegerType: two's-complement big-endian varint of any length, numeric order
 *    (so 0x00ff == 0xff is false in bytes but 0x00ff = 255 and 0xff = -1 numerically).
 *  - LexicalUUIDType: 16 bytes, compared as Java's UUID.compareTo does: the most
 *    significant 8 bytes as a signed long, then the least significant 8 as signed.
 *  - TimeUUIDType: 16-byte version-1 UUIDs, by their 60-bit timestamp, then by the
 *    bytes compared as signed (Java's ByteBuffer.compareTo, which 0.7 falls back to).
 * The empty value is valid for every type and sorts before everything else (it is the
 * unbounded start or finish of a slice).
 *
 * Thread safety: all functions are pure.
 */
#ifndef CF_STORAGE_COMPARATOR_H
#define CF_STORAGE_COMPARATOR_H

#include <stdint.h>

#include "util/buf.h"
#include "util/slice.h"
#include "util/status.h"

typedef enum cf_type
{
	CF_TYPE_BYTES = 0,
	CF_TYPE_ASCII,
	CF_TYPE_UTF8,
	CF_TYPE_LONG,
	CF_TYPE_INTEGER,
	CF_TYPE_LEXICAL_UUID,
	CF_TYPE_TIME_UUID,
	CF_TYPE_COUNT_				/* number of types; not a type */
} cf_type;

/*
 * Parses a type name, short ("UTF8Type") or fully qualified
 * ("org.apache.cassandra.db.marshal.UTF8Type"). Unknown names: CF_ERR_INVALID whose
 * message lists the valid short names.
 */
cf_status  *cf_type_parse(const char *name, cf_type *out);

/* "UTF8Type" */
const char *cf_type_name(cf_type t);

/* "org.apache.cassandra.db.marshal.UTF8Type" */
const char *cf_type_class(cf_type t);

/* <0, 0, >0 as a sorts before, equal to, after b under t. */
int			cf_type_compare(cf_type t, cf_slice a, cf_slice b);

/*
 * NULL if v is a valid value of t, else CF_ERR_INVALID with a message that starts
 * with `what` and names the type, e.g. "column name: LongType requires exactly 8
 * bytes, got 7" or "value of column 'age': invalid UTF-8 at byte 3 for UTF8Type".
 */
cf_status  *cf_type_validate(cf_type t, cf_slice v, const char *what);

/*
 * Text → bytes, appended to out, as cassandra-cli reads literals: BytesType takes hex
 * (an even number of hex digits), AsciiType/UTF8Type the text itself (validated),
 * LongType and IntegerType a decimal integer (LongType: within int64), the UUID types
 * the 8-4-4-4-12 hex form (TimeUUIDType: version 1 only). The empty string is the empty
 * value for every type. CF_ERR_INVALID naming the type on malformed text, and out is
 * then left as it was; an append that fails shows in cf_buf_status(out).
 */
cf_status  *cf_type_from_string(cf_type t, const char *s, cf_buf *out);

/*
 * Bytes → text, appended to out (no NUL), in the form cf_type_from_string reads:
 * hex for BytesType, the text for ASCII/UTF-8, decimal for the integer types, the
 * 8-4-4-4-12 form for UUIDs. Invalid bytes are written as hex; the empty value as
 * nothing.
 */
void		cf_type_to_string(cf_type t, cf_slice v, cf_buf *out);

/*
 * The 60-bit timestamp of a version-1 UUID (100 ns intervals since 1582-10-15), or -1
 * if u is not a 16-byte version-1 UUID.
 */
int64_t		cf_timeuuid_timestamp(cf_slice u);

#endif							/* CF_STORAGE_COMPARATOR_H */
