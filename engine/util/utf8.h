/*
 * util/utf8.h — strict UTF-8 validation (Unicode table 3-7): no overlong forms, no
 * surrogates U+D800..U+DFFF, nothing above U+10FFFF, no truncated sequence. Used for
 * UTF8Type names and values, order-preserving partitioner keys and Thrift strings.
 */
#ifndef CF_UTIL_UTF8_H
#define CF_UTIL_UTF8_H

#include <stddef.h>
#include <stdint.h>

/* Offset of the first byte of the first ill-formed sequence in p[0..n), or n if none. */
size_t		cf_utf8_invalid_at(const uint8_t *p, size_t n);

#endif							/* CF_UTIL_UTF8_H */
