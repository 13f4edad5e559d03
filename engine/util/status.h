/*
 * util/status.h — the one status type of the engine.
 *
 * A function that can fail returns a cf_status pointer: NULL means success (CF_OK),
 * anything else is an error the caller owns and must pass to cf_status_free() (or
 * return further up). This is LevelDB's Status shape in C: success costs nothing, an
 * error carries a code a program can branch on and a message a person can act on.
 *
 * Running out of memory while making a status must not lose the error: the
 * constructors then return a shared static status with code CF_ERR_NO_MEMORY, which
 * cf_status_free() recognises and leaves alone.
 *
 * Thread safety: a status is owned by one thread at a time; the functions keep no
 * global mutable state.
 */
#ifndef CF_UTIL_STATUS_H
#define CF_UTIL_STATUS_H

#include <stdarg.h>

/*
 * Every error code of the engine, one range, one line each. The FDW maps each code to
 * one SQLSTATE in one place, so add a code only with its meaning stated here.
 */
typedef enum cf_code
{
	CF_OK = 0,					/* success; never stored in a status object */
	CF_ERR_NOT_FOUND,			/* the named thing (row, column, keyspace, file) does not exist */
	CF_ERR_INVALID,				/* the caller's input is wrong: bad name, bad option, bad type */
	CF_ERR_CORRUPTION,			/* stored or received bytes fail a checksum or do not parse */
	CF_ERR_IO,					/* the OS failed a file or socket operation (errno in the message) */
	CF_ERR_NO_SPACE,			/* the disk is full (ENOSPC, EDQUOT) */
	CF_ERR_NO_MEMORY,			/* an allocation failed */
	CF_ERR_TOO_LARGE,			/* a size exceeds a configured or protocol limit */
	CF_ERR_NOT_SUPPORTED,		/* valid request this build or configuration does not serve */
	CF_ERR_TIMEOUT,				/* a deadline passed before enough replicas answered */
	CF_ERR_UNAVAILABLE,			/* too few live replicas to meet the consistency level */
	CF_ERR_AUTHENTICATION,		/* login failed or is required */
	CF_ERR_AUTHORIZATION,		/* logged in, but not allowed to do this */
	CF_ERR_BUSY,				/* a resource is in use (port bound, file locked); retry may work */
	CF_ERR_PROTOCOL,			/* the peer broke the wire protocol */
	CF_ERR_CANCELLED,			/* the operation was interrupted on request */
	CF_ERR_INTERNAL,			/* a broken invariant: a bug in colfam, never the user's fault */
	CF_CODE_COUNT_				/* number of codes; not a code */
} cf_code;

typedef struct cf_status cf_status;

/* The longest message kept, in bytes; longer messages are cut with "...". */
#define CF_STATUS_MSG_MAX 1024

/* A new error with a printf-style message. code must not be CF_OK. */
cf_status  *cf_status_make(cf_code code, const char *fmt,...)
			__attribute__((format(printf, 2, 3)));
cf_status  *cf_status_makev(cf_code code, const char *fmt, va_list ap)
			__attribute__((format(printf, 2, 0)));

/*
 * A new error from an errno value: the code follows errnum (ENOENT → NOT_FOUND,
 * ENOSPC/EDQUOT → NO_SPACE, ENOMEM → NO_MEMORY, EADDRINUSE/EBUSY/EAGAIN → BUSY,
 * ETIMEDOUT → TIMEOUT, EINTR/ECANCELED → CANCELLED, EACCES/EPERM → AUTHORIZATION,
 * EFBIG/EMSGSIZE → TOO_LARGE, anything else → IO) and the message is
 * "<fmt>: <strerror(errnum)>".
 */
cf_status  *cf_status_errno(int errnum, const char *fmt,...)
			__attribute__((format(printf, 2, 3)));

/*
 * Prefix an error's message with context ("reading 3-Data.db: " + old message) and
 * return it. Takes ownership of s; returns NULL when s is NULL, so it can wrap any
 * call: return cf_status_wrap(f(), "flushing %s", cf).
 */
cf_status  *cf_status_wrap(cf_status *s, const char *fmt,...)
			__attribute__((format(printf, 2, 3)));

/* CF_OK for NULL. */
cf_code		cf_status_code(const cf_status *s);

/* The message; "OK" for NULL. Valid until s is freed. */
const char *cf_status_msg(const cf_status *s);

/* A stable upper-case name for a code ("NOT_FOUND"), "UNKNOWN" if out of range. */
const char *cf_code_name(cf_code code);

/* Frees s; NULL and the shared out-of-memory status are accepted and ignored. */
void		cf_status_free(cf_status *s);

#endif							/* CF_UTIL_STATUS_H */
