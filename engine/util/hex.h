/*
 * util/hex.h — hex digits: the UUID text form, BytesType literals, ByteOrdered tokens.
 */
#ifndef CF_UTIL_HEX_H
#define CF_UTIL_HEX_H

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

#endif							/* CF_UTIL_HEX_H */
