/*
 * server/frame.c — the framed-transport reader (see frame.h).
 */
#include "server/frame.h"

#include <stdlib.h>
#include <string.h>

#include "util/buf.h"

/* First allocation of a frame; it doubles as the bytes arrive. */
#define FRAME_INITIAL_CAP (64u * 1024)

void
cf_frame_reader_init(cf_frame_reader *r, size_t min, size_t max)
{
	memset(r, 0, sizeof(*r));
	r->min = min;
	r->max = max;
}

void
cf_frame_reader_clear(cf_frame_reader *r)
{
	free(r->cur);
	r->cur = NULL;
	r->cap = 0;
	r->hdr_len = 0;
}

/* Room for need bytes of data in r->cur, growing by doubling up to the frame's length. */
static int
frame_reserve(cf_frame_reader *r, size_t need)
{
	size_t		cap = r->cap;
	cf_frame   *f;

	if (need <= cap)
		return 1;
	while (cap < need)
		cap *= 2;
	if (cap > r->declared)
		cap = r->declared;
	f = realloc(r->cur, sizeof(cf_frame) + cap);
	if (f == NULL)
		return 0;
	r->cur = f;
	r->cap = cap;
	return 1;
}

cf_frame_result
cf_frame_feed(cf_frame_reader *r, const uint8_t *p, size_t n, size_t *used,
			  cf_frame **out)
{
	size_t		i = 0;

	*out = NULL;
	while (i < n)
	{
		if (r->cur == NULL)
		{
			size_t		cap;

			while (r->hdr_len < 4 && i < n)
				r->hdr[r->hdr_len++] = p[i++];
			if (r->hdr_len < 4)
				break;
			r->declared = cf_load_be32(r->hdr);
			*used = i;
			if (r->hdr[0] == 0x80 && r->hdr[1] == 0x01)
				return CF_FRAME_UNFRAMED;
			if (r->declared < r->min)
				return CF_FRAME_TOO_SHORT;
			if (r->declared > r->max)
				return CF_FRAME_TOO_LARGE;
			cap = r->declared < FRAME_INITIAL_CAP ? r->declared : FRAME_INITIAL_CAP;
			r->cur = malloc(sizeof(cf_frame) + cap);
			if (r->cur == NULL)
				return CF_FRAME_NO_MEMORY;
			r->cur->next = NULL;
			r->cur->lane = -1;
			r->cur->len = 0;
			r->cap = cap;
		}
		{
			size_t		want = r->declared - r->cur->len;
			size_t		take = n - i < want ? n - i : want;

			if (!frame_reserve(r, r->cur->len + take))
			{
				*used = i;
				return CF_FRAME_NO_MEMORY;
			}
			memcpy(r->cur->data + r->cur->len, p + i, take);
			r->cur->len += take;
			i += take;
		}
		if (r->cur->len == r->declared)
		{
			*out = r->cur;
			r->cur = NULL;
			r->cap = 0;
			r->hdr_len = 0;
			*used = i;
			return CF_FRAME_DONE;
		}
	}
	*used = i;
	return CF_FRAME_MORE;
}
