/*-------------------------------------------------------------------------
 * fdw/timeuuid.c — the timeuuid SQL type: version-1 UUIDs ordered as Cassandra
 * 0.7's TimeUUIDType orders them.
 *
 * A timeuuid is the 16 bytes of a UUID (the layout of PostgreSQL's uuid, so the cast
 * to uuid is binary) that must be version 1. Its btree order is the engine's
 * (engine/storage/comparator.c, cf_type_compare for CF_TYPE_TIME_UUID): the 60-bit
 * timestamp first, then, on equal timestamps, the 16 bytes compared as signed bytes
 * (Java's ByteBuffer.compareTo, which Cassandra 0.7 falls back to). The FDW pushes
 * ORDER BY and range bounds on timeuuid columns down to colfamd, so the two orders
 * must agree byte for byte; tests/pgtap/timeuuid.sql checks them against each other.
 *
 * Assumptions:
 *  - Two timeuuids compare equal only when their bytes are equal (the version nibble
 *    is the one bit of the timestamp bytes not in the timestamp, and it is always 1),
 *    so hashing the bytes is consistent with equality.
 *  - The variant bits are not checked: Cassandra's TimeUUIDType checks only the
 *    version, and min_timeuuid/max_timeuuid need the 0x80/0x7f tails.
 *-------------------------------------------------------------------------
 */
#include "colfam_fdw.h"

#include "common/hashfn.h"
#include "common/int.h"
#include "datatype/timestamp.h"
#include "lib/stringinfo.h"
#include "libpq/pqformat.h"
#include "utils/builtins.h"
#include "utils/sortsupport.h"
#include "utils/timestamp.h"
#include "utils/uuid.h"

#include "util/hex.h"
#include "util/uuid.h"

PG_FUNCTION_INFO_V1(timeuuid_in);
PG_FUNCTION_INFO_V1(timeuuid_out);
PG_FUNCTION_INFO_V1(timeuuid_recv);
PG_FUNCTION_INFO_V1(timeuuid_send);
PG_FUNCTION_INFO_V1(timeuuid_from_uuid);
PG_FUNCTION_INFO_V1(timeuuid_cmp);
PG_FUNCTION_INFO_V1(timeuuid_eq);
PG_FUNCTION_INFO_V1(timeuuid_ne);
PG_FUNCTION_INFO_V1(timeuuid_lt);
PG_FUNCTION_INFO_V1(timeuuid_le);
PG_FUNCTION_INFO_V1(timeuuid_gt);
PG_FUNCTION_INFO_V1(timeuuid_ge);
PG_FUNCTION_INFO_V1(timeuuid_sortsupport);
PG_FUNCTION_INFO_V1(timeuuid_hash);
PG_FUNCTION_INFO_V1(timeuuid_hash_extended);
PG_FUNCTION_INFO_V1(timeuuid_time);
PG_FUNCTION_INFO_V1(min_timeuuid);
PG_FUNCTION_INFO_V1(max_timeuuid);
PG_FUNCTION_INFO_V1(now_timeuuid);

/*
 * The v1 layout, its epoch and the generator are engine/util/uuid.h's (libcolfam):
 * 100 ns ticks from 1582-10-15 to 1970-01-01, in microseconds (a multiple of 10).
 */
#define GREGORIAN_TO_UNIX_USECS (CF_UUID_GREGORIAN_OFFSET / 10)

/* The tails (bytes 8-15) that sort first and last among equal timestamps. */
#define TAIL_MIN 0x80			/* -128 as a signed byte */
#define TAIL_MAX 0x7f			/* 127 */

/* ---------------------------------------------------------------- bytes */

int
colfam_timeuuid_compare(const uint8 *a, const uint8 *b)
{
	int64		ta = cf_uuid_v1_timestamp(a);
	int64		tb = cf_uuid_v1_timestamp(b);

	if (ta != tb)
		return ta < tb ? -1 : 1;
	for (int i = 0; i < UUID_LEN; i++)
		if (a[i] != b[i])
			return (int8) a[i] < (int8) b[i] ? -1 : 1;
	return 0;
}

/* Lays out a version-1 UUID with the given timestamp and every tail byte = tail. */
static void
timeuuid_build(uint8 *out, int64 ticks, uint8 tail)
{
	out[0] = (uint8) (ticks >> 24);	/* time_low */
	out[1] = (uint8) (ticks >> 16);
	out[2] = (uint8) (ticks >> 8);
	out[3] = (uint8) ticks;
	out[4] = (uint8) (ticks >> 40);	/* time_mid */
	out[5] = (uint8) (ticks >> 32);
	out[6] = (uint8) (0x10 | ((ticks >> 56) & 0x0f));	/* version 1, time_hi */
	out[7] = (uint8) (ticks >> 48);
	memset(out + 8, tail, UUID_LEN - 8);
}

void
colfam_timeuuid_check(const uint8 *u, int sqlstate)
{
	int			version = cf_uuid_version(u);
	char		text[CF_UUID_TEXT_LEN + 1];

	if (version == 1)
		return;
	cf_uuid_format(u, text);
	ereport(ERROR,
			(errcode(sqlstate),
			 errmsg("timeuuid requires a version 1 UUID, got version %d", version),
			 errdetail("The UUID is %s; Cassandra's TimeUUIDType holds only version 1 "
					   "(time-based) UUIDs.", text),
			 errhint("Use the uuid type for UUIDs of other versions.")));
}

/* ---------------------------------------------------------------- I/O */

/*
 * Parses what PostgreSQL's uuid_in accepts (string_to_uuid in utils/adt/uuid.c): 32
 * hex digits in either case, optionally in braces, with a hyphen allowed after any
 * group of four digits but the last. Written out rather than calling uuid_in so the
 * error names timeuuid.
 */
static bool
parse_uuid_text(const char *src, uint8 *out)
{
	bool		braces = false;

	if (*src == '{')
	{
		src++;
		braces = true;
	}
	for (int i = 0; i < UUID_LEN; i++)
	{
		int			hi,
					lo;

		if (src[0] == '\0' || src[1] == '\0')
			return false;
		hi = cf_hex_value(src[0]);
		lo = cf_hex_value(src[1]);
		if (hi < 0 || lo < 0)
			return false;
		out[i] = (uint8) (hi << 4 | lo);
		src += 2;
		if (src[0] == '-' && (i % 2) == 1 && i < UUID_LEN - 1)
			src++;
	}
	if (braces)
	{
		if (*src != '}')
			return false;
		src++;
	}
	return *src == '\0';
}

Datum
timeuuid_in(PG_FUNCTION_ARGS)
{
	char	   *text = PG_GETARG_CSTRING(0);
	pg_uuid_t  *u = palloc(sizeof(pg_uuid_t));

	if (!parse_uuid_text(text, u->data))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
				 errmsg("invalid input syntax for type %s: \"%s\"", "timeuuid", text)));
	colfam_timeuuid_check(u->data, ERRCODE_INVALID_TEXT_REPRESENTATION);
	PG_RETURN_UUID_P(u);
}

Datum
timeuuid_out(PG_FUNCTION_ARGS)
{
	/* The same bytes and text as uuid's. */
	return uuid_out(fcinfo);
}

Datum
timeuuid_recv(PG_FUNCTION_ARGS)
{
	StringInfo	buf = (StringInfo) PG_GETARG_POINTER(0);
	pg_uuid_t  *u = palloc(sizeof(pg_uuid_t));

	memcpy(u->data, pq_getmsgbytes(buf, UUID_LEN), UUID_LEN);
	colfam_timeuuid_check(u->data, ERRCODE_INVALID_BINARY_REPRESENTATION);
	PG_RETURN_UUID_P(u);
}

Datum
timeuuid_send(PG_FUNCTION_ARGS)
{
	return uuid_send(fcinfo);
}

/* uuid → timeuuid, the explicit cast: the same bytes once the version is checked. */
Datum
timeuuid_from_uuid(PG_FUNCTION_ARGS)
{
	pg_uuid_t  *u = PG_GETARG_UUID_P(0);

	colfam_timeuuid_check(u->data, ERRCODE_INVALID_PARAMETER_VALUE);
	PG_RETURN_UUID_P(u);
}

/* ---------------------------------------------------------------- order */

#define ARG_BYTES(n) (PG_GETARG_UUID_P(n)->data)

Datum
timeuuid_cmp(PG_FUNCTION_ARGS)
{
	PG_RETURN_INT32(colfam_timeuuid_compare(ARG_BYTES(0), ARG_BYTES(1)));
}

/* Equality is byte equality (see the assumptions at the top). */
Datum
timeuuid_eq(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(memcmp(ARG_BYTES(0), ARG_BYTES(1), UUID_LEN) == 0);
}

Datum
timeuuid_ne(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(memcmp(ARG_BYTES(0), ARG_BYTES(1), UUID_LEN) != 0);
}

Datum
timeuuid_lt(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(colfam_timeuuid_compare(ARG_BYTES(0), ARG_BYTES(1)) < 0);
}

Datum
timeuuid_le(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(colfam_timeuuid_compare(ARG_BYTES(0), ARG_BYTES(1)) <= 0);
}

Datum
timeuuid_gt(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(colfam_timeuuid_compare(ARG_BYTES(0), ARG_BYTES(1)) > 0);
}

Datum
timeuuid_ge(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(colfam_timeuuid_compare(ARG_BYTES(0), ARG_BYTES(1)) >= 0);
}

static int
timeuuid_fastcmp(Datum a, Datum b, SortSupport ssup)
{
	return colfam_timeuuid_compare(DatumGetUUIDP(a)->data, DatumGetUUIDP(b)->data);
}

/* Sorts call the comparator directly; abbreviated keys are not worth it here. */
Datum
timeuuid_sortsupport(PG_FUNCTION_ARGS)
{
	SortSupport ssup = (SortSupport) PG_GETARG_POINTER(0);

	ssup->comparator = timeuuid_fastcmp;
	PG_RETURN_VOID();
}

Datum
timeuuid_hash(PG_FUNCTION_ARGS)
{
	return hash_any(ARG_BYTES(0), UUID_LEN);
}

Datum
timeuuid_hash_extended(PG_FUNCTION_ARGS)
{
	return hash_any_extended(ARG_BYTES(0), UUID_LEN, PG_GETARG_INT64(1));
}

/* ---------------------------------------------------------------- time */

/* The instant of a timeuuid, rounded down to the microsecond. */
Datum
timeuuid_time(PG_FUNCTION_ARGS)
{
	/* 0 to 2^60-1 ticks is 1582-10-15 to 5236-03-31: always a valid timestamptz. */
	PG_RETURN_TIMESTAMPTZ(cf_uuid_v1_unix_micros(ARG_BYTES(0)) - UNIX_TO_PG_USECS);
}

/*
 * The first 100 ns tick of the microsecond t, or an ERROR naming fname if no v1
 * timestamp falls in it.
 */
static int64
first_tick_of(TimestampTz t, const char *fname)
{
	int64		usecs;

	if (TIMESTAMP_NOT_FINITE(t) ||
		pg_add_s64_overflow(t, UNIX_TO_PG_USECS + GREGORIAN_TO_UNIX_USECS, &usecs) ||
		usecs < 0 || usecs > CF_UUID_V1_TIMESTAMP_MAX / 10)
		ereport(ERROR,
				(errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
				 errmsg("%s: timestamp out of the range of timeuuid", fname),
				 errdetail("A version 1 UUID holds instants from 1582-10-15 00:00:00 UTC "
						   "to 5236-03-31 21:21:00.684697 UTC.")));
	return usecs * 10;
}

/*
 * The smallest timeuuid of the instant t: its first tick, and the tail that sorts
 * first under the signed byte order.
 */
Datum
min_timeuuid(PG_FUNCTION_ARGS)
{
	pg_uuid_t  *u = palloc(sizeof(pg_uuid_t));

	timeuuid_build(u->data, first_tick_of(PG_GETARG_TIMESTAMPTZ(0), "min_timeuuid"), TAIL_MIN);
	PG_RETURN_UUID_P(u);
}

/* The largest timeuuid of the instant t: its last tick (10 per µs), the last tail. */
Datum
max_timeuuid(PG_FUNCTION_ARGS)
{
	pg_uuid_t  *u = palloc(sizeof(pg_uuid_t));
	int64		last = first_tick_of(PG_GETARG_TIMESTAMPTZ(0), "max_timeuuid") + 9;

	timeuuid_build(u->data, Min(last, CF_UUID_V1_TIMESTAMP_MAX), TAIL_MAX);
	PG_RETURN_UUID_P(u);
}

/*
 * A new version-1 UUID for now (cf_uuid_v1_now): timestamps strictly increase within
 * the backend, so the values sort in the order they were made; the node is random
 * with the multicast bit set and never equals a real MAC address.
 */
Datum
now_timeuuid(PG_FUNCTION_ARGS)
{
	pg_uuid_t  *u = palloc(sizeof(pg_uuid_t));

	cf_uuid_v1_now(u->data);
	PG_RETURN_UUID_P(u);
}
