/* tools/progress.c — see progress.h. */
#include "tools/progress.h"

#include <inttypes.h>
#include <time.h>
#include <unistd.h>

int64_t
cft_now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t) ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

void
cft_progress_init(cft_progress *p, FILE *out, const char *verb)
{
	p->out = out;
	p->verb = verb;
	p->tty = out != NULL && isatty(fileno(out));
	p->start_us = p->last_us = cft_now_us();
	p->drawn = false;
	p->rows = p->columns = p->bytes = 0;
}

static void
line(cft_progress *p, int64_t now)
{
	double		secs = (double) (now - p->start_us) / 1e6;

	fprintf(p->out, "%s %" PRIu64 " rows, %" PRIu64 " columns, %.1f MB in %.1f s (%.0f columns/s)",
			p->verb, p->rows, p->columns, (double) p->bytes / 1e6, secs,
			secs > 0 ? (double) p->columns / secs : 0.0);
}

void
cft_progress_tick(cft_progress *p)
{
	int64_t		now;

	if (p->out == NULL)
		return;
	now = cft_now_us();
	if (now - p->last_us < (p->tty ? 200000 : 5000000))
		return;
	p->last_us = now;
	if (p->tty)
		fputs("\r\033[K", p->out);
	line(p, now);
	if (!p->tty)
		fputc('\n', p->out);
	p->drawn = p->tty;
	fflush(p->out);
}

void
cft_progress_done(cft_progress *p)
{
	if (p->out == NULL)
		return;
	if (p->drawn)
		fputs("\r\033[K", p->out);
	line(p, cft_now_us());
	fputc('\n', p->out);
	fflush(p->out);
}
