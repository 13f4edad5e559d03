/*
 * util/hex.h — hex digits: the UUID text form, BytesType literals, ByteOrdered tokens.
 */
#ifndef CF_UTIL_HEX_H
#define CF_UTIL_HEX_H

#include <stddef.h>
#include <stdint.h>

/* The value of one hex digit of either case, or -1. */
static inline int
cf_hex_value(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Writes the 2n lowercase hex digits of p[0..n) to out (no NUL). */
static inline void
cf_hex_encode(const uint8_t *p, size_t n, char *out)
{
	static const char digits[] = "0123456789abcdef";

	for (size_t i = 0; i < n; i++)
	{
		out[2 * i] = digits[p[i] >> 4];
		out[2 * i + 1] = digits[p[i] & 0x0f];
	}
}

/*
 * Decodes the 2n hex digits of s into out[0..n). Returns the offset of the first
 * character that is not a hex digit, or -1 when all are (then out is filled).
 */
static inline ptrdiff_t
cf_hex_decode(const char *s, size_t n, uint8_t *out)
{
	for (size_t i = 0; i < 2 * n; i++)
		if (cf_hex_value(s[i]) < 0)
			return (ptrdiff_t) i;
	for (size_t i = 0; i < n; i++)
		out[i] = (uint8_t) (cf_hex_value(s[2 * i]) << 4 | cf_hex_value(s[2 * i + 1]));
	return -1;
}

#endif							/* CF_UTIL_HEX_H */
