/*
 * util/status.c — error values with a code and a message.
 *
 * Messages are formatted once, when the error happens, into one allocation holding
 * the struct and the text, so freeing is one call and no error path allocates twice.
 */
#include "util/status.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct cf_status
{
	cf_code		code;
	size_t		len;			/* strlen(msg) */
	char		msg[];
};

/* Returned when the status itself cannot be allocated; never freed. */
static struct
{
	cf_status	hdr;
	char		text[sizeof("out of memory")];
}			oom_status = {{CF_ERR_NO_MEMORY, sizeof("out of memory") - 1}, "out of memory"};

#define OOM_STATUS (&oom_status.hdr)

static const char *const code_names[CF_CODE_COUNT_] = {
	[CF_OK] = "OK",
	[CF_ERR_NOT_FOUND] = "NOT_FOUND",
	[CF_ERR_INVALID] = "INVALID",
	[CF_ERR_CORRUPTION] = "CORRUPTION",
	[CF_ERR_IO] = "IO_ERROR",
	[CF_ERR_NO_SPACE] = "NO_SPACE",
	[CF_ERR_NO_MEMORY] = "NO_MEMORY",
	[CF_ERR_TOO_LARGE] = "TOO_LARGE",
	[CF_ERR_NOT_SUPPORTED] = "NOT_SUPPORTED",
	[CF_ERR_TIMEOUT] = "TIMEOUT",
	[CF_ERR_UNAVAILABLE] = "UNAVAILABLE",
	[CF_ERR_AUTHENTICATION] = "AUTHENTICATION",
	[CF_ERR_AUTHORIZATION] = "AUTHORIZATION",
	[CF_ERR_BUSY] = "BUSY",
	[CF_ERR_PROTOCOL] = "PROTOCOL",
	[CF_ERR_CANCELLED] = "CANCELLED",
	[CF_ERR_INTERNAL] = "INTERNAL",
};

const char *
cf_code_name(cf_code code)
{
	if ((unsigned) code >= CF_CODE_COUNT_)
		return "UNKNOWN";
	return code_names[code];
}

/* Build a status from a formatted message, cut to CF_STATUS_MSG_MAX bytes. */
static cf_status *
status_build(cf_code code, const char *fmt, va_list ap)
{
	char		text[CF_STATUS_MSG_MAX + 1];
	size_t		used;
	int			n;
	cf_status  *s;

	if (code == CF_OK || (unsigned) code >= CF_CODE_COUNT_)
		code = CF_ERR_INTERNAL;

	n = vsnprintf(text, sizeof(text), fmt, ap);
	if (n < 0)
		n = 0;
	used = (size_t) n < sizeof(text) ? (size_t) n : sizeof(text) - 1;
	text[used] = '\0';

	/* Mark a cut message so nobody mistakes it for the whole story. */
	if ((size_t) n > CF_STATUS_MSG_MAX)
		memcpy(text + CF_STATUS_MSG_MAX - 3, "...", 4);

	s = malloc(sizeof(*s) + used + 1);
	if (s == NULL)
		return OOM_STATUS;
	s->code = code;
	s->len = used;
	memcpy(s->msg, text, used + 1);
	return s;
}

cf_status *
cf_status_makev(cf_code code, const char *fmt, va_list ap)
{
	return status_build(code, fmt, ap);
}

cf_status *
cf_status_make(cf_code code, const char *fmt,...)
{
	va_list		ap;
	cf_status  *s;

	va_start(ap, fmt);
	s = status_build(code, fmt, ap);
	va_end(ap);
	return s;
}

static cf_code
code_from_errno(int errnum)
{
	switch (errnum)
	{
		case ENOENT:
			return CF_ERR_NOT_FOUND;
		case ENOSPC:
		case EDQUOT:
			return CF_ERR_NO_SPACE;
		case ENOMEM:
			return CF_ERR_NO_MEMORY;
		case EADDRINUSE:
		case EBUSY:
		case EAGAIN:
			return CF_ERR_BUSY;
		case ETIMEDOUT:
			return CF_ERR_TIMEOUT;
		case EINTR:
		case ECANCELED:
			return CF_ERR_CANCELLED;
		case EACCES:
		case EPERM:
			return CF_ERR_AUTHORIZATION;
		case EFBIG:
		case EMSGSIZE:
			return CF_ERR_TOO_LARGE;
		default:
			return CF_ERR_IO;
	}
}

cf_status *
cf_status_errno(int errnum, const char *fmt,...)
{
	char		what[CF_STATUS_MSG_MAX + 1];
	char		ebuf[128];
	const char *etext;
	va_list		ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);

	/* GNU strerror_r may return a static string instead of filling ebuf. */
	etext = strerror_r(errnum, ebuf, sizeof(ebuf));
	return cf_status_make(code_from_errno(errnum), "%s: %s", what, etext);
}

cf_status *
cf_status_wrap(cf_status *s, const char *fmt,...)
{
	char		prefix[CF_STATUS_MSG_MAX + 1];
	size_t		plen;
	cf_status  *w;
	va_list		ap;

	if (s == NULL || s == OOM_STATUS)
		return s;

	va_start(ap, fmt);
	vsnprintf(prefix, sizeof(prefix) - 2, fmt, ap);
	va_end(ap);
	plen = strlen(prefix);
	memcpy(prefix + plen, ": ", 3);

	w = cf_status_make(s->code, "%s%s", prefix, s->msg);
	if (w == OOM_STATUS)
		return s;				/* keep the original error rather than lose it */
	free(s);
	return w;
}

cf_code
cf_status_code(const cf_status *s)
{
	return s ? s->code : CF_OK;
}

const char *
cf_status_msg(const cf_status *s)
{
	return s ? s->msg : "OK";
}

void
cf_status_free(cf_status *s)
{
	if (s != NULL && s != OOM_STATUS)
		free(s);
}
