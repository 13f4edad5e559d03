/*-------------------------------------------------------------------------
 * fdw/convert.c — values between the bytes colfamd stores and the SQL types foreign
 * table columns declare; which Cassandra marshal type each SQL type corresponds to
 * and when their orders agree (the pushdown rule); the extra jsonb's names and values;
 * RandomPartitioner tokens.
 *
 * Every supported SQL type has exactly one encoding (README "SQL types" lists them):
 *   text, varchar, bpchar, jsonb      UTF-8 (UTF8Type); U+0000 is refused on read
 *   bytea                             the bytes (BytesType)
 *   bigint, integer, smallint         8-byte big-endian signed (LongType); integer and
 *                                     smallint are range-checked on read
 *   timestamptz                       LongType: milliseconds since 1970-01-01 UTC, as
 *                                     Cassandra's DateType; sub-millisecond values are
 *                                     refused on write, never rounded
 *   numeric                           two's-complement big-endian varint (IntegerType);
 *                                     fractions, NaN and infinities refused on write
 *   uuid / timeuuid                   16 bytes (LexicalUUIDType / TimeUUIDType, v1 only)
 *   boolean                           1 byte, 0x00 or 0x01 (no textual forms)
 *   double precision                  8-byte big-endian IEEE 754 binary64
 * Domains over these convert as their base type and are then checked. The empty value
 * (which Cassandra accepts under every validator) is '' for text, varchar, bpchar and
 * bytea, and NULL for the other types.
 *
 * Assumptions:
 *  - Text travels as UTF-8 whatever the database encoding; conversion to and from the
 *    server encoding happens here, so a character the server encoding cannot hold is
 *    PostgreSQL's usual conversion ERROR.
 *  - Errors raised here name the Cassandra type and the expected encoding in errdetail
 *    and the column and row (from ColfamValueContext) in errmsg; errors of PostgreSQL's
 *    own input functions called here (numeric_in, jsonb_in, varcharin) get the column
 *    and row as a CONTEXT line instead.
 *  - IntegerType ↔ numeric goes through decimal text with a small uint32-limb bignum,
 *    O(n²) in the length like Java's BigInteger; values beyond numeric's 131072 digits
 *    are refused before any arithmetic.
 *-------------------------------------------------------------------------
 */
#include "colfam_fdw.h"

#include "access/genam.h"
#include "access/htup_details.h"
#include "access/stratnum.h"
#include "access/table.h"
#include "catalog/indexing.h"
#include "catalog/pg_extension.h"
#include "catalog/pg_collation_d.h"
#include "catalog/pg_type.h"
#include "common/int.h"
#include "common/md5.h"
#include "datatype/timestamp.h"
#include "mb/pg_wchar.h"
#include "nodes/nodeFuncs.h"
#include "nodes/primnodes.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/inval.h"
#include "utils/json.h"
#include "utils/jsonb.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/numeric.h"
#include "utils/pg_locale.h"
#include "utils/rel.h"
#include "utils/syscache.h"
#include "utils/timestamp.h"

#include "util/buf.h"
#include "util/hex.h"
#include "util/uuid.h"
#include "utils/uuid.h"

PG_FUNCTION_INFO_V1(colfam_decode);
PG_FUNCTION_INFO_V1(colfam_encode);
PG_FUNCTION_INFO_V1(token_text);
PG_FUNCTION_INFO_V1(token_bytea);

#define MARSHAL_PREFIX "org.apache.cassandra.db.marshal."

/* Cassandra 0.7's marshal types, as engine/storage/comparator.h lists them. */
typedef enum ColfamMarshal
{
	MARSHAL_NONE = -1,
	MARSHAL_BYTES,
	MARSHAL_ASCII,
	MARSHAL_UTF8,
	MARSHAL_LONG,
	MARSHAL_INTEGER,
	MARSHAL_LEXICAL_UUID,
	MARSHAL_TIME_UUID,
	MARSHAL_COUNT_
} ColfamMarshal;

static const char *const marshal_names[MARSHAL_COUNT_] = {
	[MARSHAL_BYTES] = "BytesType",
	[MARSHAL_ASCII] = "AsciiType",
	[MARSHAL_UTF8] = "UTF8Type",
	[MARSHAL_LONG] = "LongType",
	[MARSHAL_INTEGER] = "IntegerType",
	[MARSHAL_LEXICAL_UUID] = "LexicalUUIDType",
	[MARSHAL_TIME_UUID] = "TimeUUIDType",
};

/*
 * numeric holds at most 131072 digits before the point, < 2^435412, so a varint of
 * more than 435412 / 8 + 1 bytes can never fit.
 */
#define INTEGER_MAX_BYTES (435412 / 8 + 1)

/* How much of a row key an error message shows. */
#define KEY_QUOTE_MAX 64

/* ---------------------------------------------------------------- names */

/* "UTF8Type" or "org.apache.cassandra.db.marshal.UTF8Type" → its enum; NONE if neither. */
static ColfamMarshal
marshal_parse(const char *name)
{
	if (name == NULL)
		return MARSHAL_NONE;
	if (strncmp(name, MARSHAL_PREFIX, strlen(MARSHAL_PREFIX)) == 0)
		name += strlen(MARSHAL_PREFIX);
	for (int m = 0; m < MARSHAL_COUNT_; m++)
		if (strcmp(name, marshal_names[m]) == 0)
			return (ColfamMarshal) m;
	return MARSHAL_NONE;
}

/*
 * The schema colfam_fdw is installed in, or InvalidOid (PostgreSQL 15 does not export
 * get_extension_schema).
 */
static Oid
extension_schema(void)
{
	Relation	rel;
	ScanKeyData key;
	SysScanDesc scan;
	HeapTuple	tuple;
	Oid			nsp = InvalidOid;

	rel = table_open(ExtensionRelationId, AccessShareLock);
	ScanKeyInit(&key, Anum_pg_extension_extname, BTEqualStrategyNumber, F_NAMEEQ,
				CStringGetDatum("colfam_fdw"));
	scan = systable_beginscan(rel, ExtensionNameIndexId, true, NULL, 1, &key);
	tuple = systable_getnext(scan);
	if (HeapTupleIsValid(tuple))
		nsp = ((Form_pg_extension) GETSTRUCT(tuple))->extnamespace;
	systable_endscan(scan);
	table_close(rel, AccessShareLock);
	return nsp;
}

/* The OID of the extension's timeuuid type, cached until pg_type changes. */
static Oid	timeuuid_typid_cache = InvalidOid;
static bool timeuuid_callback_registered = false;

static void
timeuuid_typid_reset(Datum arg, int cacheid, uint32 hashvalue)
{
	timeuuid_typid_cache = InvalidOid;
}

/*
 * The OID of timeuuid in the schema colfam_fdw is installed in, or InvalidOid when
 * the extension is not installed in this database.
 */
Oid
colfam_timeuuid_typid(void)
{
	Oid			nsp;

	if (OidIsValid(timeuuid_typid_cache))
		return timeuuid_typid_cache;
	if (!timeuuid_callback_registered)
	{
		CacheRegisterSyscacheCallback(TYPEOID, timeuuid_typid_reset, (Datum) 0);
		timeuuid_callback_registered = true;
	}
	nsp = extension_schema();
	if (!OidIsValid(nsp))
		return InvalidOid;
	timeuuid_typid_cache = GetSysCacheOid2(TYPENAMENSP, Anum_pg_type_oid,
										   CStringGetDatum("timeuuid"),
										   ObjectIdGetDatum(nsp));
	return timeuuid_typid_cache;
}

/* The marshal type a (non-domain) SQL type's encoding is a value of. */
static ColfamMarshal
encoding_of(Oid typid)
{
	switch (typid)
	{
		case TEXTOID:
		case VARCHAROID:
		case BPCHAROID:
		case JSONBOID:
			return MARSHAL_UTF8;
		case BYTEAOID:
		case BOOLOID:
		case FLOAT8OID:
			return MARSHAL_BYTES;
		case INT8OID:
		case INT4OID:
		case INT2OID:
		case TIMESTAMPTZOID:
			return MARSHAL_LONG;
		case NUMERICOID:
			return MARSHAL_INTEGER;
		case UUIDOID:
			return MARSHAL_LEXICAL_UUID;
		default:
			if (OidIsValid(typid) && typid == colfam_timeuuid_typid())
				return MARSHAL_TIME_UUID;
			return MARSHAL_NONE;
	}
}

/*
 * The base type of typid, and in *typmod (if not NULL) its typmod. The types this file
 * converts are answered without a catalog lookup (the per-value path of every scan
 * and write); only domains are looked up.
 */
static Oid
base_type(Oid typid, int32 *typmod)
{
	int32		ignored = -1;

	if (encoding_of(typid) != MARSHAL_NONE)
		return typid;
	return getBaseTypeAndTypmod(typid, typmod != NULL ? typmod : &ignored);
}

/* The ERROR for a type none of the conversions handle. */
static void
pg_attribute_noreturn()
unsupported_type(Oid typid)
{
	ereport(ERROR,
			(errcode(ERRCODE_FDW_INVALID_DATA_TYPE),
			 errmsg("colfam_fdw cannot convert values of type %s", format_type_be(typid)),
			 errhint("Declare the column with a type that README \"SQL types\" lists, "
					 "or as bytea.")));
}

bool
colfam_type_supported(Oid typid)
{
	return encoding_of(base_type(typid, NULL)) != MARSHAL_NONE;
}

bool
colfam_marshal_type(const char *marshal, Oid *typid, Oid *collid)
{
	*collid = InvalidOid;
	switch (marshal_parse(marshal))
	{
		case MARSHAL_BYTES:
			*typid = BYTEAOID;
			return true;
		case MARSHAL_ASCII:
		case MARSHAL_UTF8:
			*typid = TEXTOID;
			*collid = C_COLLATION_OID;
			return true;
		case MARSHAL_LONG:
			*typid = INT8OID;
			return true;
		case MARSHAL_INTEGER:
			*typid = NUMERICOID;
			return true;
		case MARSHAL_LEXICAL_UUID:
			*typid = UUIDOID;
			return true;
		case MARSHAL_TIME_UUID:
			*typid = colfam_timeuuid_typid();
			return OidIsValid(*typid);
		case MARSHAL_NONE:
		case MARSHAL_COUNT_:
			break;
	}
	*typid = InvalidOid;
	return false;
}

bool
colfam_comparator_is_ascii(const char *comparator)
{
	return marshal_parse(comparator) == MARSHAL_ASCII;
}

bool
colfam_order_matches(Oid typid, Oid collid, const char *comparator)
{
	ColfamMarshal m = marshal_parse(comparator);
	Oid			base = getBaseType(typid);

	if (m == MARSHAL_NONE)
		return false;
	switch (base)
	{
		case TEXTOID:
		case VARCHAROID:
			/*
			 * UTF-8 bytes in unsigned order are code point order, which is what the C
			 * collation gives only when the database encoding is UTF-8.
			 */
			return (m == MARSHAL_UTF8 || m == MARSHAL_ASCII || m == MARSHAL_BYTES) &&
				GetDatabaseEncoding() == PG_UTF8 &&
				OidIsValid(collid) && lc_collate_is_c(collid);
		case BYTEAOID:
		case BOOLOID:			/* 0x00 < 0x01 as false < true */
			return m == MARSHAL_BYTES;
		case INT8OID:
		case INT4OID:
		case INT2OID:
		case TIMESTAMPTZOID:	/* milliseconds: monotonic in the instant */
			return m == MARSHAL_LONG;
		case NUMERICOID:
			return m == MARSHAL_INTEGER;
		default:
			/*
			 * uuid orders as unsigned bytes, LexicalUUIDType as two signed longs;
			 * bpchar ignores trailing spaces; float8's bytes do not sort as numbers.
			 */
			return m == MARSHAL_TIME_UUID && OidIsValid(base) &&
				base == colfam_timeuuid_typid();
	}
}

/* ---------------------------------------------------------------- errors */

/*
 * A palloc'd copy of the len bytes at p, with a NUL after them. Unlike pnstrdup, it
 * copies past a 0x00 byte: keys, names and values are bytes (a LongType value of 10
 * is seven zero bytes and 0x0a).
 */
char *
colfam_copy_bytes(const void *p, size_t len)
{
	char	   *out = palloc(len + 1);

	memcpy(out, p, len);
	out[len] = '\0';
	return out;
}

/*
 * A row key for messages: 'text' when it is readable UTF-8 (and the server encoding
 * shows it), else 0x-hex; a long key is cut, with its length.
 */
char *
colfam_quote_key(const char *k, size_t len)
{
	StringInfoData s;
	int			n = (int) Min(len, KEY_QUOTE_MAX);
	int			nhex = (int) Min(len, KEY_QUOTE_MAX / 2);
	int			valid = pg_encoding_verifymbstr(PG_UTF8, k, n);
	bool		printable;

	initStringInfo(&s);
	/* A cut that splits the last character keeps the characters before it. */
	if ((size_t) n < len && valid > n - 4)
		n = valid;
	printable = valid >= n &&
		(GetDatabaseEncoding() == PG_UTF8 || GetDatabaseEncoding() == PG_SQL_ASCII);
	for (int i = 0; i < n && printable; i++)
		printable = (unsigned char) k[i] >= 0x20 && k[i] != 0x7f;
	if (printable)
		appendStringInfoString(&s, quote_literal_cstr(pnstrdup(k, n)));
	else
	{
		char	   *hex = palloc(2 * nhex + 1);

		cf_hex_encode((const uint8_t *) k, nhex, hex);
		hex[2 * nhex] = '\0';
		appendStringInfo(&s, "0x%s", hex);
		n = nhex;
	}
	if ((size_t) n < len)
		appendStringInfo(&s, "... (%zu bytes)", len);
	return s.data;
}

/* " in column "c" of row 'key'", or less when the context lacks them. */
static char *
value_location(const ColfamValueContext *ctx)
{
	StringInfoData s;

	initStringInfo(&s);
	if (ctx == NULL)
		return s.data;
	if (ctx->column != NULL)
		appendStringInfo(&s, " in column \"%s\"", ctx->column);
	if (ctx->row_key != NULL)
		appendStringInfo(&s, " of row %s", colfam_quote_key(ctx->row_key, ctx->row_key_len));
	return s.data;
}

/* A stored value that is not a valid value of its declared type. */
static void
pg_attribute_noreturn()
bad_bytes(const ColfamValueContext *ctx, int sqlstate, ColfamMarshal m, const char *detail)
{
	ereport(ERROR,
			(errcode(sqlstate),
			 errmsg("invalid %s value%s", marshal_names[m], value_location(ctx)),
			 errdetail_internal("%s", detail)));
}

/* A SQL value that the column's encoding cannot hold. */
static void
pg_attribute_noreturn()
unstorable(const ColfamValueContext *ctx, int sqlstate, ColfamMarshal m, const char *detail,
		   const char *hint)
{
	ereport(ERROR,
			(errcode(sqlstate),
			 errmsg("value%s cannot be stored as %s", value_location(ctx), marshal_names[m]),
			 errdetail_internal("%s", detail),
			 hint ? errhint("%s", hint) : 0));
}

static void
conversion_context(void *arg)
{
	const ColfamValueContext *ctx = arg;

	errcontext("converting the value%s", value_location(ctx));
}

/* fn(s, InvalidOid, typmod), with the value's column and row as error context. */
static Datum
call_input(PGFunction fn, const char *s, int32 typmod, const ColfamValueContext *ctx)
{
	ErrorContextCallback cb;
	Datum		d;

	cb.callback = conversion_context;
	cb.arg = (void *) ctx;
	cb.previous = error_context_stack;
	error_context_stack = &cb;
	d = DirectFunctionCall3(fn, CStringGetDatum(s), ObjectIdGetDatum(InvalidOid),
							Int32GetDatum(typmod));
	error_context_stack = cb.previous;
	return d;
}

/* Checks d (or NULL) against domain typid, with the value's column and row as context. */
static void
check_domain(Datum d, bool isnull, Oid typid, const ColfamValueContext *ctx)
{
	ErrorContextCallback cb;

	cb.callback = conversion_context;
	cb.arg = (void *) ctx;
	cb.previous = error_context_stack;
	error_context_stack = &cb;
	domain_check(d, isnull, typid, NULL, NULL);
	error_context_stack = cb.previous;
}

/* ---------------------------------------------------------------- fixed widths */

/* Appends v as 8 big-endian bytes (LongType, doubles). */
static void
append_be64(StringInfo out, uint64 v)
{
	enlargeStringInfo(out, 8);
	cf_store_be64((uint8_t *) out->data + out->len, v);
	out->len += 8;
	out->data[out->len] = '\0';
}

/* "1 byte", "8 bytes" */
static char *
n_bytes(size_t n)
{
	return psprintf("%zu byte%s", n, n == 1 ? "" : "s");
}

/* Refuses a value whose length is not want; shape says what the bytes should be. */
static void
need_length(size_t len, size_t want, ColfamMarshal m, const char *shape,
			const ColfamValueContext *ctx)
{
	if (len != want)
		bad_bytes(ctx, ERRCODE_FDW_INVALID_DATA_TYPE, m,
				  psprintf("%s; got %s.", shape, n_bytes(len)));
}

static int64
read_long(const char *data, size_t len, const ColfamValueContext *ctx)
{
	need_length(len, 8, MARSHAL_LONG, "LongType is 8 bytes, a big-endian signed integer", ctx);
	return (int64) cf_load_be64((const uint8_t *) data);
}

/* A LongType value narrowed to [min, max], the range of typname. */
static int64
read_long_in(const char *data, size_t len, int64 min, int64 max, const char *typname,
			 const ColfamValueContext *ctx)
{
	int64		v = read_long(data, len, ctx);

	if (v < min || v > max)
		bad_bytes(ctx, ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE, MARSHAL_LONG,
				  psprintf("The value " INT64_FORMAT " is out of range for type %s.",
						   v, typname));
	return v;
}

static Datum
read_timestamptz(const char *data, size_t len, const ColfamValueContext *ctx)
{
	int64		ms = read_long(data, len, ctx);
	int64		usecs;

	if (pg_sub_s64_overflow(ms, UNIX_TO_PG_USECS / 1000, &usecs) ||
		pg_mul_s64_overflow(usecs, 1000, &usecs) ||
		!IS_VALID_TIMESTAMP(usecs))
		bad_bytes(ctx, ERRCODE_DATETIME_VALUE_OUT_OF_RANGE, MARSHAL_LONG,
				  psprintf("%s milliseconds since 1970-01-01 is out of range for type "
						   "timestamp with time zone.", psprintf(INT64_FORMAT, ms)));
	return TimestampTzGetDatum(usecs);
}

static void
write_timestamptz(TimestampTz t, StringInfo out, const ColfamValueContext *ctx)
{
	if (TIMESTAMP_NOT_FINITE(t))
		unstorable(ctx, ERRCODE_DATETIME_VALUE_OUT_OF_RANGE, MARSHAL_LONG,
				   "An infinite timestamp has no millisecond count.", NULL);
	/* Milliseconds first: t + UNIX_TO_PG_USECS can overflow near the end of the range. */
	if (t % 1000 != 0)
		unstorable(ctx, ERRCODE_FDW_INVALID_DATA_TYPE, MARSHAL_LONG,
				   "timestamptz is stored as milliseconds since 1970-01-01 (Cassandra's "
				   "DateType); this value has a fraction of a millisecond.",
				   "Round it first, e.g. with date_trunc('milliseconds', ...).");
	append_be64(out, (uint64) (t / 1000 + UNIX_TO_PG_USECS / 1000));
}

static Datum
read_uuid(const char *data, size_t len, ColfamMarshal m, const ColfamValueContext *ctx)
{
	pg_uuid_t  *u;

	need_length(len, UUID_LEN, m, psprintf("%s is 16 bytes, a UUID in network byte order",
										   marshal_names[m]), ctx);
	u = palloc(sizeof(pg_uuid_t));
	memcpy(u->data, data, UUID_LEN);
	if (m == MARSHAL_TIME_UUID && cf_uuid_version(u->data) != 1)
		bad_bytes(ctx, ERRCODE_FDW_INVALID_DATA_TYPE, m,
				  psprintf("TimeUUIDType requires a version 1 UUID; got version %d.",
						   cf_uuid_version(u->data)));
	return UUIDPGetDatum(u);
}

/* ---------------------------------------------------------------- text */

/*
 * UTF-8 bytes → a NUL-terminated string in the server encoding. Refuses invalid UTF-8
 * and U+0000, which PostgreSQL text cannot hold.
 */
static char *
read_utf8(const char *data, size_t len, const ColfamValueContext *ctx)
{
	int			valid;

	if (len > MaxAllocSize - 1)
		bad_bytes(ctx, ERRCODE_PROGRAM_LIMIT_EXCEEDED, MARSHAL_UTF8,
				  psprintf("The value is %zu bytes, more than PostgreSQL text can hold.", len));
	/* The valid prefix; it stops before a 0x00 byte too. */
	valid = pg_encoding_verifymbstr(PG_UTF8, data, (int) len);
	if ((size_t) valid < len)
	{
		if (data[valid] == '\0')
			ereport(ERROR,
					(errcode(ERRCODE_UNTRANSLATABLE_CHARACTER),
					 errmsg("invalid UTF8Type value%s", value_location(ctx)),
					 errdetail("The value contains the character U+0000 at byte %d, which "
							   "PostgreSQL text cannot hold.", valid),
					 errhint("Declare the column as bytea to read such values.")));
		bad_bytes(ctx, ERRCODE_CHARACTER_NOT_IN_REPERTOIRE, MARSHAL_UTF8,
				  psprintf("UTF8Type is UTF-8 text; byte %d (0x%02x) is not valid UTF-8.",
						   valid, (unsigned char) data[valid]));
	}
	return pg_any_to_server(pnstrdup(data, len), (int) len, PG_UTF8);
}

/*
 * Server-encoded text (len bytes) → UTF-8, *utf8_len bytes: s itself when no
 * conversion is needed (then not NUL-terminated), else a palloc'd string.
 */
static const char *
to_utf8(const char *s, int len, size_t *utf8_len)
{
	char	   *utf8 = pg_server_to_any(s, len, PG_UTF8);

	*utf8_len = utf8 == s ? (size_t) len : strlen(utf8);
	return utf8;
}

/* Server-encoded text → UTF-8, appended to out. */
static void
write_utf8(const char *s, int len, StringInfo out)
{
	size_t		n;
	const char *utf8 = to_utf8(s, len, &n);

	appendBinaryStringInfo(out, utf8, (int) n);
}

/* ---------------------------------------------------------------- the extra jsonb */

/* Does the text start with "0x", the mark of a hex string in the extra jsonb? */
static bool
is_0x(const char *s, size_t len)
{
	return len >= 2 && s[0] == '0' && s[1] == 'x';
}

void
colfam_extra_to_json(StringInfo buf, const char *p, size_t len)
{
	/* the valid prefix stops before a 0x00 byte too */
	if (!is_0x(p, len) && pg_encoding_verifymbstr(PG_UTF8, p, (int) len) == (int) len)
	{
		escape_json(buf, pg_any_to_server(pnstrdup(p, len), (int) len, PG_UTF8));
		return;
	}
	appendStringInfoString(buf, "\"0x");
	enlargeStringInfo(buf, 2 * len + 1);
	cf_hex_encode((const uint8 *) p, len, buf->data + buf->len);
	buf->len += 2 * len;
	appendStringInfoChar(buf, '"');
}

bool
colfam_extra_from_json(const char *s, int len, const char **bytes, size_t *nbytes)
{
	uint8	   *out;

	if (!is_0x(s, len))
	{
		*bytes = to_utf8(s, len, nbytes);
		return true;
	}
	if (len % 2 != 0)
		return false;
	*nbytes = (size_t) (len - 2) / 2;
	out = palloc(*nbytes + 1);
	*bytes = (const char *) out;
	return cf_hex_decode(s + 2, *nbytes, out) < 0;
}

/* ---------------------------------------------------------------- IntegerType */

/*
 * A two's-complement big-endian varint of n > 0 bytes → its decimal text, as Java's
 * BigInteger.toString() writes it.
 */
static char *
varint_to_decimal(const unsigned char *p, size_t n)
{
	bool		neg = (p[0] & 0x80) != 0;
	size_t		nlimbs = n / 4 + 1;
	uint32	   *limb = palloc0(nlimbs * sizeof(uint32));	/* little-endian */
	size_t		top;
	StringInfoData chunks;		/* nine-digit chunks, least significant first */
	char	   *text;
	size_t		at;

	/* The magnitude: the bytes themselves, or for a negative value ~v + 1. */
	for (size_t i = 0; i < n; i++)
	{
		uint32		b = neg ? (uint8) ~p[n - 1 - i] : p[n - 1 - i];

		limb[i / 4] |= b << (8 * (i % 4));
	}
	if (neg)
		for (size_t i = 0; i < nlimbs && ++limb[i] == 0; i++)
			;

	initStringInfo(&chunks);
	top = nlimbs;
	for (;;)
	{
		uint64		rem = 0;

		while (top > 0 && limb[top - 1] == 0)
			top--;
		if (top == 0)
			break;
		for (size_t i = top; i-- > 0;)
		{
			uint64		cur = rem << 32 | limb[i];

			limb[i] = (uint32) (cur / 1000000000);
			rem = cur % 1000000000;
		}
		appendStringInfo(&chunks, "%09u", (unsigned) rem);
	}

	/* Reverse the chunks, drop leading zeros, add the sign. */
	text = palloc(chunks.len + 3);
	at = 0;
	if (neg)
		text[at++] = '-';
	for (int c = chunks.len - 9; c >= 0; c -= 9)
	{
		memcpy(text + at, chunks.data + c, 9);
		at += 9;
	}
	text[at] = '\0';
	{
		char	   *digits = text + (neg ? 1 : 0);
		size_t		skip = strspn(digits, "0");

		if (digits[skip] == '\0')
			return pstrdup("0");
		memmove(digits, digits + skip, strlen(digits + skip) + 1);
	}
	return text;
}

/*
 * Decimal digits (no sign, at least one) and a sign → the minimal two's-complement
 * big-endian varint (Java's BigInteger.toByteArray()): 0 is 00, 255 is 00 ff, -1 is
 * ff, -128 is 80.
 */
static void
decimal_to_varint(const char *digits, bool neg, StringInfo out)
{
	size_t		nd = strlen(digits);
	size_t		nlimbs = 0;
	uint32	   *limb = palloc0((nd / 9 + 2) * sizeof(uint32));
	size_t		first = nd % 9 ? nd % 9 : 9;
	size_t		nbytes;
	unsigned char *b;

	for (size_t at = 0; at < nd; first = 9)
	{
		uint64		mul = 1;
		uint64		carry = 0;

		for (size_t k = 0; k < first; k++, at++)
		{
			mul *= 10;
			carry = carry * 10 + (uint64) (digits[at] - '0');
		}
		for (size_t i = 0; i < nlimbs; i++)
		{
			uint64		v = (uint64) limb[i] * mul + carry;

			limb[i] = (uint32) v;
			carry = v >> 32;
		}
		if (carry != 0)
			limb[nlimbs++] = (uint32) carry;
	}

	/* Magnitude as little-endian bytes, one spare byte for the sign. */
	nbytes = nlimbs * 4;
	b = palloc0(nbytes + 1);
	for (size_t i = 0; i < nbytes; i++)
		b[i] = (unsigned char) (limb[i / 4] >> (8 * (i % 4)));
	while (nbytes > 0 && b[nbytes - 1] == 0)
		nbytes--;
	if (nbytes == 0)
	{
		appendStringInfoChar(out, '\0');
		return;
	}
	if (neg)
	{
		unsigned	carry = 1;

		for (size_t i = 0; i < nbytes; i++)
		{
			unsigned	v = (unsigned char) ~b[i] + carry;

			b[i] = (unsigned char) v;
			carry = v >> 8;
		}
	}
	/* A sign byte is needed when the top bit disagrees with the sign. */
	if (((b[nbytes - 1] & 0x80) != 0) != neg)
		b[nbytes++] = neg ? 0xff : 0x00;
	for (size_t i = nbytes; i-- > 0;)
		appendStringInfoChar(out, (char) b[i]);
}

static Datum
read_integer(const char *data, size_t len, int32 typmod, const ColfamValueContext *ctx)
{
	Assert(len > 0);			/* the empty value is NULL (colfam_bytes_to_datum) */
	if (len > INTEGER_MAX_BYTES)
		bad_bytes(ctx, ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE, MARSHAL_INTEGER,
				  psprintf("The value is %zu bytes long, beyond the range of type numeric.",
						   len));
	return call_input(numeric_in, varint_to_decimal((const unsigned char *) data, len),
					  typmod, ctx);
}

static void
write_integer(Numeric num, StringInfo out, const ColfamValueContext *ctx)
{
	char	   *text;
	bool		neg;
	char	   *point;

	if (numeric_is_nan(num) || numeric_is_inf(num))
		unstorable(ctx, ERRCODE_FEATURE_NOT_SUPPORTED, MARSHAL_INTEGER,
				   "IntegerType holds integers only, not NaN or infinity.", NULL);
	text = DatumGetCString(DirectFunctionCall1(numeric_out, NumericGetDatum(num)));
	neg = text[0] == '-';
	if (neg)
		text++;
	point = strchr(text, '.');
	if (point != NULL)
	{
		if (point[1 + strspn(point + 1, "0")] != '\0')
			unstorable(ctx, ERRCODE_FDW_INVALID_DATA_TYPE, MARSHAL_INTEGER,
					   "IntegerType holds integers only; this value has a fractional part.",
					   "Round or truncate the value first.");
		*point = '\0';
	}
	decimal_to_varint(text, neg, out);
}

/* ---------------------------------------------------------------- dispatch */

/*
 * UTF-8 bytes → a text Datum, as cstring_to_text(read_utf8()) but in one copy and one
 * validation when the database encoding is UTF-8 (there is nothing to convert then).
 */
static Datum
read_text(const char *data, size_t len, const ColfamValueContext *ctx)
{
	text	   *t;

	if (GetDatabaseEncoding() != PG_UTF8 || len > MaxAllocSize - VARHDRSZ ||
		(size_t) pg_encoding_verifymbstr(PG_UTF8, data, (int) len) < len)
		return PointerGetDatum(cstring_to_text(read_utf8(data, len, ctx)));	/* or its ERROR */
	t = (text *) palloc(len + VARHDRSZ);
	SET_VARSIZE(t, len + VARHDRSZ);
	memcpy(VARDATA(t), data, len);
	return PointerGetDatum(t);
}

/*
 * Whether the empty value of base type base is NULL: for every supported type but the
 * strings and bytea, whose empty value is '' (Cassandra accepts an empty value under any
 * validator, and its drivers read it as null for the other types).
 */
static bool
empty_is_null(Oid base)
{
	return base != TEXTOID && base != VARCHAROID && base != BPCHAROID && base != BYTEAOID &&
		encoding_of(base) != MARSHAL_NONE;
}

bool
colfam_empty_is_null(Oid typid)
{
	return empty_is_null(base_type(typid, NULL));
}

Datum
colfam_bytes_to_datum(Oid typid, int32 typmod, const char *data, size_t len,
					  const ColfamValueContext *ctx, bool *isnull)
{
	int32		basetypmod = typmod;
	Oid			base = base_type(typid, &basetypmod);
	Datum		d;

	*isnull = len == 0 && empty_is_null(base);
	if (*isnull)
	{
		if (typid != base)
			check_domain((Datum) 0, true, typid, ctx);
		return (Datum) 0;
	}
	switch (base)
	{
		case TEXTOID:
			d = read_text(data, len, ctx);
			break;
		case VARCHAROID:
			d = call_input(varcharin, read_utf8(data, len, ctx), basetypmod, ctx);
			break;
		case BPCHAROID:
			d = call_input(bpcharin, read_utf8(data, len, ctx), basetypmod, ctx);
			break;
		case JSONBOID:
			d = call_input(jsonb_in, read_utf8(data, len, ctx), -1, ctx);
			break;
		case BYTEAOID:
			{
				bytea	   *b;

				if (len > MaxAllocSize - VARHDRSZ)
					bad_bytes(ctx, ERRCODE_PROGRAM_LIMIT_EXCEEDED, MARSHAL_BYTES,
							  psprintf("The value is %zu bytes, more than bytea can hold.", len));
				b = palloc(len + VARHDRSZ);
				SET_VARSIZE(b, len + VARHDRSZ);
				memcpy(VARDATA(b), data, len);
				d = PointerGetDatum(b);
				break;
			}
		case INT8OID:
			d = Int64GetDatum(read_long(data, len, ctx));
			break;
		case INT4OID:
			d = Int32GetDatum((int32) read_long_in(data, len, PG_INT32_MIN, PG_INT32_MAX,
												   "integer", ctx));
			break;
		case INT2OID:
			d = Int16GetDatum((int16) read_long_in(data, len, PG_INT16_MIN, PG_INT16_MAX,
												   "smallint", ctx));
			break;
		case TIMESTAMPTZOID:
			d = read_timestamptz(data, len, ctx);
			break;
		case NUMERICOID:
			d = read_integer(data, len, basetypmod, ctx);
			break;
		case UUIDOID:
			d = read_uuid(data, len, MARSHAL_LEXICAL_UUID, ctx);
			break;
		case BOOLOID:
			need_length(len, 1, MARSHAL_BYTES, "A boolean is 1 byte, 0x00 (false) or 0x01 (true)", ctx);
			if (data[0] != 0 && data[0] != 1)
				bad_bytes(ctx, ERRCODE_FDW_INVALID_DATA_TYPE, MARSHAL_BYTES,
						  psprintf("A boolean is the byte 0x00 (false) or 0x01 (true); "
								   "got 0x%02x.", (unsigned char) data[0]));
			d = BoolGetDatum(data[0] == 1);
			break;
		case FLOAT8OID:
			{
				uint64		bits;
				float8		f;

				need_length(len, 8, MARSHAL_BYTES,
							"A double precision is 8 bytes, a big-endian IEEE 754 binary64", ctx);
				bits = cf_load_be64((const uint8_t *) data);
				memcpy(&f, &bits, sizeof(f));
				d = Float8GetDatum(f);
				break;
			}
		default:
			if (OidIsValid(base) && base == colfam_timeuuid_typid())
			{
				d = read_uuid(data, len, MARSHAL_TIME_UUID, ctx);
				break;
			}
			unsupported_type(typid);
	}
	if (typid != base)
		check_domain(d, false, typid, ctx);
	return d;
}

void
colfam_datum_to_bytes(Oid typid, Datum value, StringInfo out, const ColfamValueContext *ctx)
{
	Oid			base = base_type(typid, NULL);

	switch (base)
	{
		case TEXTOID:
		case VARCHAROID:
			{
				text	   *t = DatumGetTextPP(value);

				write_utf8(VARDATA_ANY(t), VARSIZE_ANY_EXHDR(t), out);
				break;
			}
		case BPCHAROID:
			{
				/* Without the padding, as char(n) → text casts do. */
				text	   *t = DatumGetBpCharPP(value);
				int			len = bpchartruelen(VARDATA_ANY(t), VARSIZE_ANY_EXHDR(t));

				write_utf8(VARDATA_ANY(t), len, out);
				break;
			}
		case JSONBOID:
			{
				char	   *s = DatumGetCString(DirectFunctionCall1(jsonb_out, value));

				write_utf8(s, (int) strlen(s), out);
				break;
			}
		case BYTEAOID:
			{
				bytea	   *b = DatumGetByteaPP(value);

				appendBinaryStringInfo(out, VARDATA_ANY(b), VARSIZE_ANY_EXHDR(b));
				break;
			}
		case INT8OID:
			append_be64(out, (uint64) DatumGetInt64(value));
			break;
		case INT4OID:
			append_be64(out, (uint64) (int64) DatumGetInt32(value));
			break;
		case INT2OID:
			append_be64(out, (uint64) (int64) DatumGetInt16(value));
			break;
		case TIMESTAMPTZOID:
			write_timestamptz(DatumGetTimestampTz(value), out, ctx);
			break;
		case NUMERICOID:
			write_integer(DatumGetNumeric(value), out, ctx);
			break;
		case UUIDOID:
			appendBinaryStringInfo(out, (char *) DatumGetUUIDP(value)->data, UUID_LEN);
			break;
		case BOOLOID:
			appendStringInfoChar(out, DatumGetBool(value) ? 1 : 0);
			break;
		case FLOAT8OID:
			{
				float8		f = DatumGetFloat8(value);
				uint64		bits;

				memcpy(&bits, &f, sizeof(bits));
				append_be64(out, bits);
				break;
			}
		default:
			if (OidIsValid(base) && base == colfam_timeuuid_typid())
			{
				appendBinaryStringInfo(out, (char *) DatumGetUUIDP(value)->data, UUID_LEN);
				break;
			}
			unsupported_type(typid);
	}
}

/* ---------------------------------------------------------------- SQL helpers */

/* The typmod of argument argno as the call site wrote it, or -1. */
static int32
arg_typmod(FunctionCallInfo fcinfo, int argno)
{
	Node	   *expr = fcinfo->flinfo ? fcinfo->flinfo->fn_expr : NULL;

	if (expr == NULL || !IsA(expr, FuncExpr))
		return -1;
	return exprTypmod((Node *) list_nth(((FuncExpr *) expr)->args, argno));
}

/*
 * colfam_decode(bytes bytea, witness anyelement [, row_key bytea, column_name text])
 * → anyelement: bytes as stored in colfamd read as the witness's type (and typmod),
 * e.g. colfam_decode(b, NULL::bigint). NULL bytes give NULL; the witness's value is
 * ignored; row_key and column_name, when given, are named in error messages.
 */
Datum
colfam_decode(PG_FUNCTION_ARGS)
{
	bytea	   *b;
	Oid			typid = get_fn_expr_argtype(fcinfo->flinfo, 1);
	ColfamValueContext ctx = {0};
	Datum		d;
	bool		isnull;

	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	if (!OidIsValid(typid))
		elog(ERROR, "colfam_decode: could not determine the type of its second argument");
	if (PG_NARGS() > 2 && !PG_ARGISNULL(2))
	{
		bytea	   *key = PG_GETARG_BYTEA_PP(2);

		ctx.row_key = VARDATA_ANY(key);
		ctx.row_key_len = VARSIZE_ANY_EXHDR(key);
	}
	if (PG_NARGS() > 3 && !PG_ARGISNULL(3))
		ctx.column = text_to_cstring(PG_GETARG_TEXT_PP(3));
	b = PG_GETARG_BYTEA_PP(0);
	d = colfam_bytes_to_datum(typid, arg_typmod(fcinfo, 1), VARDATA_ANY(b),
							  VARSIZE_ANY_EXHDR(b), &ctx, &isnull);
	if (isnull)
		PG_RETURN_NULL();
	PG_RETURN_DATUM(d);
}

/* colfam_encode(anyelement) → bytea: the bytes colfamd would store for the value. */
Datum
colfam_encode(PG_FUNCTION_ARGS)
{
	Oid			typid = get_fn_expr_argtype(fcinfo->flinfo, 0);
	StringInfoData out;
	bytea	   *b;

	if (!OidIsValid(typid))
		elog(ERROR, "colfam_encode: could not determine the type of its argument");
	initStringInfo(&out);
	colfam_datum_to_bytes(typid, PG_GETARG_DATUM(0), &out, NULL);
	b = palloc(out.len + VARHDRSZ);
	SET_VARSIZE(b, out.len + VARHDRSZ);
	memcpy(VARDATA(b), out.data, out.len);
	PG_RETURN_BYTEA_P(b);
}

/* ---------------------------------------------------------------- tokens */

/*
 * RandomPartitioner's token of a key: the MD5 digest read as a signed big-endian
 * 128-bit integer, then its absolute value (engine/storage/partitioner.c).
 */
static Datum
random_token(const char *key, size_t len)
{
	unsigned char v[1 + 16];	/* a zero byte, then the digest: a non-negative varint */
	const char *errstr = NULL;

	v[0] = 0;
	if (!pg_md5_binary(key, len, v + 1, &errstr))
		ereport(ERROR,
				(errcode(ERRCODE_INTERNAL_ERROR),
				 errmsg("could not compute the MD5 digest of a key: %s", errstr)));
	if (v[1] & 0x80)
	{
		/* Negative: |v| = ~v + 1; -2^127 becomes 0x80 00.., 2^127 read unsigned. */
		unsigned	carry = 1;

		for (int i = 16; i >= 1; i--)
		{
			unsigned	x = (unsigned char) ~v[i] + carry;

			v[i] = (unsigned char) x;
			carry = x >> 8;
		}
	}
	return DirectFunctionCall3(numeric_in, CStringGetDatum(varint_to_decimal(v, sizeof(v))),
							   ObjectIdGetDatum(InvalidOid), Int32GetDatum(-1));
}

/* token(text): the key is the text's UTF-8 bytes, as the FDW sends keys. */
Datum
token_text(PG_FUNCTION_ARGS)
{
	text	   *t = PG_GETARG_TEXT_PP(0);
	size_t		len;
	const char *utf8 = to_utf8(VARDATA_ANY(t), VARSIZE_ANY_EXHDR(t), &len);

	PG_RETURN_DATUM(random_token(utf8, len));
}

Datum
token_bytea(PG_FUNCTION_ARGS)
{
	bytea	   *b = PG_GETARG_BYTEA_PP(0);

	PG_RETURN_DATUM(random_token(VARDATA_ANY(b), VARSIZE_ANY_EXHDR(b)));
}
