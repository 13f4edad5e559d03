/*
 * util/env.c — helpers every env shares, written once over the env operations so the
 * fault-injecting env exercises them exactly as the POSIX one does.
 *
 * Design assumptions: whole-file reads are for small files (schema, metadata), read in
 * one allocation of the size seen at open; atomic writes use one temp name per target,
 * "<path>.tmp", so callers serialise writers of one path, and a temp file left by a
 * crash is simply overwritten by the next attempt.
 */
#include "util/env.h"

#include <errno.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

cf_status *
cf_rfile_read_exact(cf_rfile *f, uint64_t offset, void *dst, size_t n)
{
	size_t		got = 0;
	cf_status  *s = cf_rfile_read_at(f, offset, dst, n, &got);

	if (s != NULL)
		return s;
	if (got < n)
		return cf_status_make(CF_ERR_CORRUPTION,
							  "%s: wanted %zu bytes at offset %llu but the file ends after %zu",
							  f->path, n, (unsigned long long) offset, got);
	return NULL;
}

cf_status *
cf_env_read_file(cf_env *e, const char *path, uint8_t **data, size_t *len)
{
	cf_rfile   *f;
	uint64_t	size;
	uint8_t    *buf;
	cf_status  *s;

	*data = NULL;
	*len = 0;
	if ((s = cf_env_open_read(e, path, &f)) != NULL)
		return s;
	size = cf_rfile_size(f);
	if (size >= SIZE_MAX)
	{
		cf_rfile_close(f);
		return cf_status_make(CF_ERR_TOO_LARGE, "reading %s: %llu bytes do not fit in memory",
							  path, (unsigned long long) size);
	}
	buf = malloc(size ? (size_t) size : 1);
	if (buf == NULL)
	{
		cf_rfile_close(f);
		return cf_status_errno(ENOMEM, "reading %s", path);
	}
	s = cf_rfile_read_exact(f, 0, buf, (size_t) size);
	cf_rfile_close(f);
	if (s != NULL)
	{
		free(buf);
		return s;
	}
	*data = buf;
	*len = (size_t) size;
	return NULL;
}

char *
cf_path_join(const char *dir, const char *name)
{
	size_t		n = strlen(dir) + 1 + strlen(name) + 1;
	char	   *p = malloc(n);

	if (p != NULL)
		snprintf(p, n, "%s/%s", dir, name);
	return p;
}

size_t
cf_path_dir_len(const char *path)
{
	const char *slash = strrchr(path, '/');

	if (slash == NULL)
		return 0;
	return slash == path ? 1 : (size_t) (slash - path);
}

/* The directory of path as a malloc'd string ("." for a bare name). */
static char *
dir_of(const char *path)
{
	size_t		n = cf_path_dir_len(path);

	return n ? strndup(path, n) : strdup(".");
}

cf_status *
cf_env_write_file_atomic(cf_env *e, const char *path, const void *data, size_t len)
{
	size_t		plen = strlen(path);
	char	   *tmp = malloc(plen + sizeof(".tmp"));
	char	   *dir = dir_of(path);
	cf_wfile   *f;
	cf_status  *s;

	if (tmp == NULL || dir == NULL)
	{
		free(tmp);
		free(dir);
		return cf_status_errno(ENOMEM, "writing %s", path);
	}
	memcpy(tmp, path, plen);
	memcpy(tmp + plen, ".tmp", sizeof(".tmp"));

	s = cf_env_open_write(e, tmp, CF_OPEN_TRUNCATE, &f);
	if (s == NULL)
	{
		cf_status  *cs;

		s = cf_wfile_append(f, data, len);
		if (s == NULL)
			s = cf_wfile_sync(f);
		cs = cf_wfile_close(f);
		if (s == NULL)
			s = cs;
		else
			cf_status_free(cs);
		if (s == NULL)
			s = cf_env_rename(e, tmp, path);
		if (s != NULL)
			cf_status_free(cf_env_remove(e, tmp));	/* best effort; the error is s */
	}
	/* After the rename only the directory entry is at stake; the temp name is gone. */
	if (s == NULL)
		s = cf_env_sync_dir(e, dir);

	free(tmp);
	free(dir);
	return cf_status_wrap(s, "writing %s atomically", path);
}
