/* tools/histogram.c — see histogram.h. */
#include "tools/histogram.h"

#include <math.h>
#include <string.h>

/* log2 of 64: the band of [2^k, 2^(k+1)) holds values shifted right by k - 6. */
#define SUB_BITS 6

void
cft_hist_init(cft_hist *h)
{
	memset(h, 0, sizeof(*h));
	h->min = UINT64_MAX;
}

int
cft_hist_bucket(uint64_t v)
{
	int			msb,
				shift;

	if (v < CFT_HIST_LINEAR)
		return (int) v;
	msb = 63 - __builtin_clzll(v);	/* >= 7 */
	shift = msb - SUB_BITS;		/* >= 1; v >> shift is in [64, 128) */
	return CFT_HIST_LINEAR + (shift - 1) * CFT_HIST_SUB +
		(int) ((v >> shift) - CFT_HIST_SUB);
}

void
cft_hist_bucket_range(int bucket, uint64_t *lo, uint64_t *hi)
{
	int			shift;
	uint64_t	top;

	if (bucket < CFT_HIST_LINEAR)
	{
		*lo = *hi = (uint64_t) bucket;
		return;
	}
	shift = (bucket - CFT_HIST_LINEAR) / CFT_HIST_SUB + 1;
	top = (uint64_t) ((bucket - CFT_HIST_LINEAR) % CFT_HIST_SUB + CFT_HIST_SUB);
	*lo = top << shift;
	*hi = ((top + 1) << shift) - 1;	/* wraps to UINT64_MAX for the last bucket */
}

void
cft_hist_record(cft_hist *h, uint64_t v)
{
	h->buckets[cft_hist_bucket(v)]++;
	h->count++;
	h->sum += v;
	if (v < h->min)
		h->min = v;
	if (v > h->max)
		h->max = v;
}

void
cft_hist_merge(cft_hist *dst, const cft_hist *src)
{
	for (int i = 0; i < CFT_HIST_BUCKETS; i++)
		dst->buckets[i] += src->buckets[i];
	dst->count += src->count;
	dst->sum += src->sum;
	if (src->min < dst->min)
		dst->min = src->min;
	if (src->max > dst->max)
		dst->max = src->max;
}

uint64_t
cft_hist_percentile(const cft_hist *h, double p)
{
	uint64_t	rank,
				seen = 0;

	if (h->count == 0)
		return 0;
	if (p >= 100)
		return h->max;
	rank = (uint64_t) ceil(p * (double) h->count / 100.0);	/* exact for integral p */
	if (rank < 1)
		rank = 1;
	for (int i = 0; i < CFT_HIST_BUCKETS; i++)
	{
		seen += h->buckets[i];
		if (seen >= rank)
		{
			uint64_t	lo,
						hi;

			cft_hist_bucket_range(i, &lo, &hi);
			return hi < h->max ? hi : h->max;
		}
	}
	return h->max;
}

double
cft_hist_mean(const cft_hist *h)
{
	return h->count ? (double) (h->sum / h->count) : 0;
}
