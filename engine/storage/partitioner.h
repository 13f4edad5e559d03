/*
 * storage/partitioner.h — partitioners: how a row key becomes a token, how tokens
 * order, print and parse, exactly as Cassandra 0.7's partitioners define them.
 *
 * A token is a byte string whose byte order (memcmp, shorter prefix first: cf_slice_cmp)
 * IS the token order under every partitioner, so SSTables, memtables and the ring sort
 * and compare tokens without knowing which partitioner made them:
 *  - RandomPartitioner (the default): the absolute value of the MD5 of the key read as
 *    a signed big-endian 128-bit integer (0..2^127), stored as CF_RANDOM_TOKEN_LEN
 *    bytes of big-endian unsigned magnitude. Printed in decimal.
 *  - ByteOrderedPartitioner: the key bytes. Printed in lowercase hex.
 *  - OrderPreservingPartitioner: the key bytes, which must be valid UTF-8. Printed as
 *    the text itself.
 *  - CollatingOrderPreservingPartitioner: the ICU en_US sort key of the key (which ends
 *    with one 0x00 byte and holds no other 0x00), followed by the key's UTF-8 bytes, so
 *    the order is en_US collation with ties broken by the key's bytes, and the key can
 *    still be printed. Printed as the key's text.
 * The empty token is the minimum token (Cassandra's MINIMUM): it sorts before every
 * other token, and it is the token of the empty key under the byte-ordered and the
 * order-preserving partitioners (not under Random or Collating, whose tokens of the
 * empty key are not empty). Every function here prints it as "".
 *
 * Ranges are Cassandra's: (left, right], start-exclusive, end-inclusive, wrapping past
 * the end of the ring when left >= right; (t, t] is the whole ring.
 *
 * Functions that append to a cf_buf leave its length unchanged when they return an
 * error other than the buffer's own failure (whose status they return).
 *
 * Thread safety: every function may be called from any thread. The collating
 * partitioner opens one ICU en_US collator per process, lazily on first use under
 * pthread_once, and never closes it (it lives as long as the process; a test program
 * may call ICU's u_cleanup() at exit). ucol_getSortKey is thread-safe on a shared
 * collator, so no per-thread clone is needed.
 */
#ifndef CF_STORAGE_PARTITIONER_H
#define CF_STORAGE_PARTITIONER_H

#include <stdbool.h>

#include "util/buf.h"
#include "util/slice.h"
#include "util/status.h"

typedef enum cf_partitioner
{
	CF_PARTITIONER_RANDOM = 0,
	CF_PARTITIONER_BYTE_ORDERED,
	CF_PARTITIONER_ORDER_PRESERVING,
	CF_PARTITIONER_COLLATING_ORDER_PRESERVING,
	CF_PARTITIONER_COUNT_		/* number of partitioners; not a partitioner */
} cf_partitioner;

/* The partitioner of a cluster that names none (Cassandra 0.7's default). */
#define CF_PARTITIONER_DEFAULT CF_PARTITIONER_RANDOM

/* Length of every RandomPartitioner token except the minimum. */
#define CF_RANDOM_TOKEN_LEN 16

/*
 * Parses a partitioner name, short ("RandomPartitioner") or the class name
 * ("org.apache.cassandra.dht.RandomPartitioner"), case-sensitively as Cassandra does.
 * Unknown names (and NULL): CF_ERR_INVALID whose message lists the valid short names.
 */
cf_status  *cf_partitioner_parse(const char *name, cf_partitioner *out);

/* "RandomPartitioner"; "?" for a value out of range. */
const char *cf_partitioner_name(cf_partitioner p);

/* "org.apache.cassandra.dht.RandomPartitioner"; "?" for a value out of range. */
const char *cf_partitioner_class(cf_partitioner p);

/*
 * true when token order is key order (up to collation for the collating partitioner),
 * so key ranges can be scanned: every partitioner but Random.
 */
bool		cf_partitioner_preserves_order(cf_partitioner p);

/*
 * Appends the token of key to out. Errors: CF_ERR_INVALID naming the partitioner when
 * the key is not valid UTF-8 (order-preserving and collating partitioners);
 * collating only: CF_ERR_TOO_LARGE for a key over INT32_MAX bytes, CF_ERR_NO_MEMORY,
 * CF_ERR_INTERNAL when ICU fails; the buffer's status when out has failed.
 */
cf_status  *cf_partitioner_token(cf_partitioner p, cf_slice key, cf_buf *out);

/*
 * Appends the text form of token to out (no NUL): decimal for Random, lowercase hex
 * for ByteOrdered, the text for OrderPreserving, the key part for Collating; "" for
 * the minimum token. CF_ERR_INVALID when token is not a token of p (wrong length or
 * out of range for Random, invalid UTF-8, a collating token without its sort key).
 */
cf_status  *cf_token_to_string(cf_partitioner p, cf_slice token, cf_buf *out);

/*
 * Text → token, appended to out: Random takes a decimal integer from 0 to 2^127 (digits
 * only, no sign; the empty string is rejected), ByteOrdered an even number of hex
 * digits (either case; "" is the minimum token), OrderPreserving valid UTF-8 text (""
 * is the minimum token), Collating valid UTF-8 text, read as a key whose token it
 * returns. Malformed text: CF_ERR_INVALID naming the partitioner and what is valid.
 */
cf_status  *cf_token_from_string(cf_partitioner p, cf_slice text, cf_buf *out);

/* <0, 0, >0 as token a sorts before, equal to, after b, under every partitioner. */
static inline int
cf_token_cmp(cf_slice a, cf_slice b)
{
	return cf_slice_cmp(a, b);
}

/* true for the minimum token. */
static inline bool
cf_token_is_minimum(cf_slice t)
{
	return t.len == 0;
}

/*
 * Appends the token halfway along the range (left, right] to out, as Cassandra 0.7's
 * midpoint does:
 *  - Random: on the ring of 2^127 values; when left >= right the range wraps and the
 *    midpoint is left + (2^127 + right - left) / 2, modulo 2^127 (so for left == right
 *    it is the point opposite left). The minimum token counts as 0.
 *  - ByteOrdered: both tokens are padded on the right with zero bytes to the longer
 *    length n and read as n-byte unsigned integers on a ring of 2^(8n); the midpoint is
 *    n bytes, plus one 0x80 byte when the halving left a remainder.
 * Other partitioners: CF_ERR_NOT_SUPPORTED. A token that is not one of p:
 * CF_ERR_INVALID.
 */
cf_status  *cf_token_midpoint(cf_partitioner p, cf_slice left, cf_slice right,
							  cf_buf *out);

/*
 * Appends a random token of p to out, from getrandom(2): Random is uniform over
 * 0..2^127; ByteOrdered is 16 random bytes; the order-preserving partitioners take a
 * key of 16 random characters from [a-zA-Z0-9] (as Cassandra does). CF_ERR_IO if the
 * kernel gives no randomness.
 */
cf_status  *cf_token_random(cf_partitioner p, cf_buf *out);

/*
 * true when t lies in the range (left, right]. When left >= right the range wraps:
 * it holds every token after left and every token up to right; left == right is the
 * whole ring, and (left, minimum] is every token after left (and the minimum itself).
 * Pure; any partitioner.
 */
bool		cf_token_range_contains(cf_slice left, cf_slice right, cf_slice t);

#endif							/* CF_STORAGE_PARTITIONER_H */
