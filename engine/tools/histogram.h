/*
 * tools/histogram.h — a log-linear (HDR-style) histogram of non-negative integers
 * (colfam stress records latencies in microseconds), fixed size, no allocation.
 *
 * Buckets: values below 128 have one bucket each (exact); above, every power-of-two
 * band [2^k, 2^(k+1)) is cut into 64 equal buckets, so a bucket is at most 1/64 of
 * its values wide (relative error under 1.6 %) over the whole uint64 range.
 *
 * Percentiles: the p-th percentile is the smallest recorded value v such that at
 * least p % of the values are <= v (nearest rank: rank ceil(p/100 × count), at least
 * 1), reported as the highest value of v's bucket, capped at the exact maximum. So it
 * is exact below 128 and for the maximum, and never under-reports.
 *
 * Thread safety: none; give each thread its own and cft_hist_merge them at the end.
 */
#ifndef CF_TOOLS_HISTOGRAM_H
#define CF_TOOLS_HISTOGRAM_H

#include <stdint.h>

#define CFT_HIST_LINEAR 128		/* values with a bucket of their own */
#define CFT_HIST_SUB 64			/* buckets per power-of-two band above that */
#define CFT_HIST_BUCKETS (CFT_HIST_LINEAR + 57 * CFT_HIST_SUB)

typedef struct cft_hist
{
	uint64_t	count;
	uint64_t	min;			/* UINT64_MAX while empty */
	uint64_t	max;
	long double sum;
	uint64_t	buckets[CFT_HIST_BUCKETS];
} cft_hist;

void		cft_hist_init(cft_hist *h);
void		cft_hist_record(cft_hist *h, uint64_t v);

/* Adds src's values to dst. */
void		cft_hist_merge(cft_hist *dst, const cft_hist *src);

/* The p-th percentile (0 < p <= 100) as above; 0 when empty. */
uint64_t	cft_hist_percentile(const cft_hist *h, double p);

/* The mean; 0 when empty. */
double		cft_hist_mean(const cft_hist *h);

/* The bucket of v and its value range (for tests). */
int			cft_hist_bucket(uint64_t v);
void		cft_hist_bucket_range(int bucket, uint64_t *lo, uint64_t *hi);

#endif							/* CF_TOOLS_HISTOGRAM_H */
