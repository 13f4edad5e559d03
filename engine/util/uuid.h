/*
 * util/uuid.h — 16-byte UUIDs: text form, version, and version-1 (time-based) UUIDs.
 *
 * A UUID is 16 bytes in network order (RFC 4122, the layout Cassandra's UUIDGen and
 * java.util.UUID use). A version-1 UUID carries a 60-bit timestamp counted in 100 ns
 * intervals since 1582-10-15 (the Gregorian reform):
 *   bytes 0-3 time_low, 4-5 time_mid, 6-7 version (high nibble) and time_hi,
 *   bytes 8-9 variant (top two bits 10) and 14-bit clock sequence, 10-15 node.
 *
 * Thread safety: every function is pure except cf_uuid_v1_now, which is thread-safe.
 */
#ifndef CF_UTIL_UUID_H
#define CF_UTIL_UUID_H

#include <stdbool.h>
#include <stdint.h>

#include "util/hex.h"

#include "util/status.h"

#define CF_UUID_LEN 16
#define CF_UUID_TEXT_LEN 36		/* 8-4-4-4-12 hex digits and dashes, no NUL */

/* 100 ns intervals from 1582-10-15 00:00 UTC to 1970-01-01 00:00 UTC. */
#define CF_UUID_GREGORIAN_OFFSET INT64_C(0x01B21DD213814000)

/* Largest 60-bit v1 timestamp. */
#define CF_UUID_V1_TIMESTAMP_MAX ((INT64_C(1) << 60) - 1)


/*
 * Writes u as 36 lowercase characters "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx" and a
 * NUL into out (CF_UUID_TEXT_LEN + 1 bytes).
 */
void		cf_uuid_format(const uint8_t u[CF_UUID_LEN], char out[CF_UUID_TEXT_LEN + 1]);

/*
 * Parses exactly the 8-4-4-4-12 form (hex digits in either case, dashes where they
 * belong, nothing before or after) into out. CF_ERR_INVALID quoting the text
 * otherwise; out is then unspecified.
 */
cf_status  *cf_uuid_parse(const char *s, uint8_t out[CF_UUID_LEN]);

/* The version nibble (1 for time-based UUIDs, 4 for random ones). */
int			cf_uuid_version(const uint8_t u[CF_UUID_LEN]);

/*
 * The 60-bit timestamp field (100 ns intervals since 1582-10-15), whatever the
 * version; meaningful only for version 1.
 */
int64_t		cf_uuid_v1_timestamp(const uint8_t u[CF_UUID_LEN]);

/*
 * Builds a version-1, RFC 4122 variant UUID for the instant unix_micros (microseconds
 * since 1970-01-01 UTC, negative before), the low 14 bits of clock_seq and the 6-byte
 * node. false (out untouched) if the instant is outside what 60 bits of 100 ns hold:
 * before 1582-10-15 or after about the year 5236.
 */
bool		cf_uuid_v1_from_micros(int64_t unix_micros, uint16_t clock_seq,
								   const uint8_t node[6], uint8_t out[CF_UUID_LEN]);

/*
 * The instant of a version-1 UUID in microseconds since 1970-01-01 UTC, rounded down
 * (the UUID counts 100 ns). The inverse of cf_uuid_v1_from_micros. u should be
 * version 1 (check cf_uuid_version); other versions give a meaningless number.
 */
int64_t		cf_uuid_v1_unix_micros(const uint8_t u[CF_UUID_LEN]);

/*
 * A new version-1 UUID for now. Timestamps are strictly increasing across all calls
 * in the process (if the clock stalls or steps back, each call takes the previous
 * timestamp plus one), so UUIDs made here sort in the order they were made under
 * TimeUUIDType. The node is random with the multicast bit set (RFC 4122 4.5: it can
 * never equal a real MAC address) and the clock sequence random, both drawn once per
 * process from getrandom(). Thread-safe.
 */
void		cf_uuid_v1_now(uint8_t out[CF_UUID_LEN]);

#endif							/* CF_UTIL_UUID_H */
