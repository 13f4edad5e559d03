/*
 * tools/progress.h — progress lines on stderr for long tool runs (export, import):
 * rows, columns, bytes and the column rate. On a terminal the line is redrawn in
 * place at most every 200 ms; otherwise a full line is written every 5 s, so logs stay
 * readable. cft_progress_done ends the line and prints the summary.
 */
#ifndef CF_TOOLS_PROGRESS_H
#define CF_TOOLS_PROGRESS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

typedef struct cft_progress
{
	FILE	   *out;			/* NULL: silent */
	const char *verb;			/* "exported", "imported" */
	bool		tty;
	int64_t		start_us;
	int64_t		last_us;
	bool		drawn;
	uint64_t	rows;
	uint64_t	columns;
	uint64_t	bytes;
} cft_progress;

/* out may be NULL (no output); tty decides the style. */
void		cft_progress_init(cft_progress *p, FILE *out, const char *verb);

/* Call after counting; prints when due. */
void		cft_progress_tick(cft_progress *p);

/* "exported 12 rows, 3400 columns, 1.2 MB in 0.8 s (4250 columns/s)" */
void		cft_progress_done(cft_progress *p);

/* Microseconds on the monotonic clock. */
int64_t		cft_now_us(void);

#endif							/* CF_TOOLS_PROGRESS_H */
