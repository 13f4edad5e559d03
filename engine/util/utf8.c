/*
 * util/utf8.c — strict UTF-8 validation (see utf8.h).
 */
#include "util/utf8.h"

/*
 * Offset of the first byte of the first ill-formed sequence in p[0..n), or n if it is
 * all well-formed UTF-8 (Unicode table 3-7: no overlong forms, no surrogates
 * U+D800..U+DFFF, nothing above U+10FFFF, no truncated sequence).
 */
size_t
cf_utf8_invalid_at(const uint8_t *p, size_t n)
{
	size_t		i = 0;

	while (i < n)
	{
		uint8_t		c = p[i];
		size_t		need;
		uint8_t		lo = 0x80,
					hi = 0xbf;	/* range of the second byte */

		if (c < 0x80)
		{
			i++;
			continue;
		}
		if (c < 0xc2)			/* continuation byte, or overlong 2-byte lead */
			return i;
		if (c < 0xe0)
			need = 1;
		else if (c < 0xf0)
		{
			need = 2;
			if (c == 0xe0)
				lo = 0xa0;		/* overlong */
			else if (c == 0xed)
				hi = 0x9f;		/* surrogates */
		}
		else if (c < 0xf5)
		{
			need = 3;
			if (c == 0xf0)
				lo = 0x90;		/* overlong */
			else if (c == 0xf4)
				hi = 0x8f;		/* above U+10FFFF */
		}
		else
			return i;

		if (n - i - 1 < need || p[i + 1] < lo || p[i + 1] > hi)
			return i;
		for (size_t k = 2; k <= need; k++)
			if ((p[i + k] & 0xc0) != 0x80)
				return i;
		i += need + 1;
	}
	return n;
}
