/*
 * tools/cli_types.h — the tool's view of Cassandra 0.7's marshal types: names as
 * schemas write them, and conversion of cli terms to bytes and of bytes to text.
 *
 * The tool sits above the client only (DESIGN.md), so it cannot use storage's
 * comparators; the encodings here are the wire ones and match storage/comparator.c:
 * LongType 8 bytes big-endian, IntegerType minimal two's-complement big-endian,
 * the UUID types 16 bytes, AsciiType/UTF8Type validated text, BytesType anything.
 *
 * Conversion rules (cassandra-cli 0.7's, with one difference noted):
 *   - a function term decides its own encoding: long(42), integer(-7), utf8('x'),
 *     ascii('x'), bytes('00ff'), lexicaluuid('u') / lexicaluuid() (random v4),
 *     timeuuid('u') / timeuuid() (a new v1 for now);
 *   - any other term is converted by the type it is checked against (the CF's
 *     comparator, subcomparator, the column's validation class or the default one):
 *     '123' under LongType is 8 bytes; a UUID's text under the UUID types;
 *   - under BytesType a plain literal is its UTF-8 bytes (0.7.0 stored values that
 *     way; its names insisted on hex, which made the seeds' text names unwritable) —
 *     write bytes('cafe') for raw bytes. Bytes print as hex under BytesType.
 */
#ifndef CF_TOOLS_CLI_TYPES_H
#define CF_TOOLS_CLI_TYPES_H

#include <stddef.h>

#include "tools/cli.h"
#include "util/buf.h"
#include "util/slice.h"
#include "util/status.h"

typedef enum cft_type
{
	CFT_BYTES,
	CFT_ASCII,
	CFT_UTF8,
	CFT_LONG,
	CFT_INTEGER,
	CFT_LEXICALUUID,
	CFT_TIMEUUID,
	CFT_TYPE_COUNT_
} cft_type;

/* "BytesType, AsciiType, UTF8Type, LongType, IntegerType, LexicalUUIDType, TimeUUIDType" */
extern const char cft_type_names_hint[];

/*
 * The type of a name as schemas write it: "UTF8Type", the full class name
 * "org.apache.cassandra.db.marshal.UTF8Type", the short name without case, or the
 * cli function names (utf8, long, ...) that `get ... as` takes. CF_ERR_INVALID
 * naming the valid names otherwise (what is quoted in the message).
 */
cf_status  *cft_type_parse(cf_slice name, const char *what, cft_type *out);

/* "UTF8Type" */
const char *cft_type_name(cft_type t);

/* "org.apache.cassandra.db.marshal.UTF8Type", what 0.7 servers report and accept. */
const char *cft_type_class(cft_type t);

/*
 * Appends the bytes of term t checked against type (see the rules above). Errors are
 * CF_ERR_INVALID with the term's line and column: "line 1, column 20: 'abc' is not a
 * LongType (a 64-bit integer)".
 */
cf_status  *cft_term_bytes(const cft_term *t, cft_type type, cf_buf *out);

/*
 * Appends the text form of v under type (no NUL): hex for BytesType and for bytes that
 * are not a valid value of type, decimal for LongType/IntegerType, the 8-4-4-4-12
 * form for the UUID types, the text itself for AsciiType/UTF8Type.
 */
void		cft_bytes_format(cft_type type, cf_slice v, cf_buf *out);

#endif							/* CF_TOOLS_CLI_TYPES_H */
