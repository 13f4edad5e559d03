/*
 * util/env.h — the environment: every file, directory and clock operation of the
 * engine goes through a cf_env, so tests can inject short writes, ENOSPC, fsync
 * failure, lost unsynced data (a crash) and a controllable clock without mocking the
 * code under test. LevelDB's Env, in C.
 *
 * An env is a table of operations plus its own state. cf_env_posix() is the real one;
 * util/env_fault.h wraps any env with injected faults. Callers use the cf_env_* and
 * cf_wfile_* / cf_rfile_* wrappers below, never the function pointers directly.
 *
 * Errors: every operation returns a cf_status (NULL on success) whose message names the
 * path and the OS error; ENOSPC/EDQUOT map to CF_ERR_NO_SPACE, ENOENT to
 * CF_ERR_NOT_FOUND (see util/status.h).
 *
 * Durability contract (what the commit log and SSTable writers rely on):
 *  - cf_wfile_append may buffer; bytes reach the OS by cf_wfile_flush or close (or at
 *    once, for a file opened CF_OPEN_CREATE_LOG).
 *  - cf_wfile_sync makes every appended byte durable (fdatasync); a failed sync leaves
 *    the file's durable contents unknown, and the caller must treat the file as bad.
 *  - A new file's directory entry is durable only after cf_env_sync_dir on its
 *    directory; so is a rename or a removal.
 *  - cf_env_rename replaces the target atomically.
 *
 * Thread safety: an env may be used from any number of threads. A cf_wfile belongs to
 * one thread at a time; a cf_rfile may be read by many threads at once (pread).
 */
#ifndef CF_UTIL_ENV_H
#define CF_UTIL_ENV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/status.h"

typedef struct cf_env cf_env;
typedef struct cf_wfile cf_wfile;
typedef struct cf_rfile cf_rfile;

/* How cf_env_open_write treats an existing file. */
typedef enum cf_open_mode
{
	CF_OPEN_CREATE_NEW,			/* fail with CF_ERR_BUSY if the file exists */
	CF_OPEN_TRUNCATE,			/* create or empty it */
	CF_OPEN_APPEND,				/* create or append to its end */

	/*
	 * A new file (CF_ERR_BUSY if it exists) that is a log: written only by appends,
	 * every one of which has reached the OS when it returns, so a flush has nothing to
	 * do and a process that dies loses none of it. The env may reserve space ahead of
	 * the appends (the POSIX env copies them into a shared mapping of zeroed space it
	 * allocates a window at a time): until close cuts the file back to what was
	 * appended, zero bytes follow the last append, and they stay there if the process
	 * dies first.
	 */
	CF_OPEN_CREATE_LOG,
} cf_open_mode;

/* Called once per directory entry by cf_env_list_dir; return false to stop early. */
typedef bool (*cf_dir_fn) (void *arg, const char *name);

struct cf_wfile_ops
{
	cf_status  *(*append) (cf_wfile *f, const void *data, size_t n);
	cf_status  *(*flush) (cf_wfile *f);
	cf_status  *(*sync) (cf_wfile *f);
	cf_status  *(*close) (cf_wfile *f);	/* flushes (no sync) and frees f, even on error */
	/*
	 * The file's size as this handle sees it: its size at open (non-zero only with
	 * CF_OPEN_APPEND) plus every byte appended, buffered included.
	 */
	uint64_t	(*size) (cf_wfile *f);
};

/* The head of every writable file; implementations embed it as their first member. */
struct cf_wfile
{
	const struct cf_wfile_ops *ops;
	cf_env	   *env;
	char	   *path;			/* malloc'd copy, for messages */
};

struct cf_rfile_ops
{
	/*
	 * Reads up to n bytes at offset into dst; *got is how many (fewer only at end of
	 * file). A short read is not an error; the caller decides.
	 */
	cf_status  *(*read_at) (cf_rfile *f, uint64_t offset, void *dst, size_t n, size_t *got);
	uint64_t	(*size) (cf_rfile *f);	/* the size when opened */
	void		(*close) (cf_rfile *f);

	/*
	 * Optional (NULL: the env cannot): the file's bytes as they were at open, all of
	 * them, mapped read-only into memory until close, so reading them costs no system
	 * call and no copy; NULL if mapping fails (the caller then uses read_at) or the file
	 * is empty. Call it before the handle is shared between threads. Only for files no
	 * one truncates while they are open (SSTables are immutable).
	 */
	const uint8_t *(*map) (cf_rfile *f);
};

struct cf_rfile
{
	const struct cf_rfile_ops *ops;
	cf_env	   *env;
	char	   *path;
};

struct cf_env_ops
{
	cf_status  *(*open_write) (cf_env *env, const char *path, cf_open_mode mode, cf_wfile **out);
	cf_status  *(*open_read) (cf_env *env, const char *path, cf_rfile **out);
	cf_status  *(*remove) (cf_env *env, const char *path);
	cf_status  *(*rename) (cf_env *env, const char *from, const char *to);
	cf_status  *(*link) (cf_env *env, const char *from, const char *to);	/* hard link */
	cf_status  *(*truncate) (cf_env *env, const char *path, uint64_t size);
	cf_status  *(*mkdirs) (cf_env *env, const char *path);	/* mkdir -p; existing is fine */
	cf_status  *(*remove_dir) (cf_env *env, const char *path);	/* empty directory only */
	cf_status  *(*sync_dir) (cf_env *env, const char *path);
	cf_status  *(*list_dir) (cf_env *env, const char *path, cf_dir_fn fn, void *arg);
	cf_status  *(*file_size) (cf_env *env, const char *path, uint64_t *size);
	/* How many directory entries (hard links) name the file: 1 if only path does. */
	cf_status  *(*file_links) (cf_env *env, const char *path, uint64_t *links);
	bool		(*exists) (cf_env *env, const char *path);
	/* An exclusive advisory lock on path (created if needed), held until unlock. */
	cf_status  *(*lock) (cf_env *env, const char *path, void **handle);
	void		(*unlock) (cf_env *env, void *handle);
	int64_t		(*now_micros) (cf_env *env);	/* wall clock, µs since the epoch */
	int64_t		(*mono_micros) (cf_env *env);	/* monotonic clock, µs */
	void		(*sleep_micros) (cf_env *env, int64_t us);
};

struct cf_env
{
	const struct cf_env_ops *ops;
	void	   *state;			/* the implementation's */
};

/* The process-wide POSIX env. Never freed. */
cf_env	   *cf_env_posix(void);

/* ---- wrappers: the only way the engine calls an env ---- */

static inline cf_status *
cf_env_open_write(cf_env *e, const char *path, cf_open_mode mode, cf_wfile **out)
{
	return e->ops->open_write(e, path, mode, out);
}

static inline cf_status *
cf_env_open_read(cf_env *e, const char *path, cf_rfile **out)
{
	return e->ops->open_read(e, path, out);
}

static inline cf_status *
cf_env_remove(cf_env *e, const char *path)
{
	return e->ops->remove(e, path);
}

static inline cf_status *
cf_env_rename(cf_env *e, const char *from, const char *to)
{
	return e->ops->rename(e, from, to);
}

static inline cf_status *
cf_env_link(cf_env *e, const char *from, const char *to)
{
	return e->ops->link(e, from, to);
}

static inline cf_status *
cf_env_truncate(cf_env *e, const char *path, uint64_t size)
{
	return e->ops->truncate(e, path, size);
}

static inline cf_status *
cf_env_mkdirs(cf_env *e, const char *path)
{
	return e->ops->mkdirs(e, path);
}

static inline cf_status *
cf_env_remove_dir(cf_env *e, const char *path)
{
	return e->ops->remove_dir(e, path);
}

static inline cf_status *
cf_env_sync_dir(cf_env *e, const char *path)
{
	return e->ops->sync_dir(e, path);
}

static inline cf_status *
cf_env_list_dir(cf_env *e, const char *path, cf_dir_fn fn, void *arg)
{
	return e->ops->list_dir(e, path, fn, arg);
}

static inline cf_status *
cf_env_file_size(cf_env *e, const char *path, uint64_t *size)
{
	return e->ops->file_size(e, path, size);
}

static inline cf_status *
cf_env_file_links(cf_env *e, const char *path, uint64_t *links)
{
	return e->ops->file_links(e, path, links);
}

static inline bool
cf_env_exists(cf_env *e, const char *path)
{
	return e->ops->exists(e, path);
}

static inline cf_status *
cf_env_lock(cf_env *e, const char *path, void **handle)
{
	return e->ops->lock(e, path, handle);
}

static inline void
cf_env_unlock(cf_env *e, void *handle)
{
	e->ops->unlock(e, handle);
}

static inline int64_t
cf_env_now_micros(cf_env *e)
{
	return e->ops->now_micros(e);
}

static inline int64_t
cf_env_mono_micros(cf_env *e)
{
	return e->ops->mono_micros(e);
}

static inline void
cf_env_sleep_micros(cf_env *e, int64_t us)
{
	e->ops->sleep_micros(e, us);
}

static inline cf_status *
cf_wfile_append(cf_wfile *f, const void *data, size_t n)
{
	return f->ops->append(f, data, n);
}

static inline cf_status *
cf_wfile_flush(cf_wfile *f)
{
	return f->ops->flush(f);
}

static inline cf_status *
cf_wfile_sync(cf_wfile *f)
{
	return f->ops->sync(f);
}

static inline cf_status *
cf_wfile_close(cf_wfile *f)
{
	return f->ops->close(f);
}

static inline uint64_t
cf_wfile_size(cf_wfile *f)
{
	return f->ops->size(f);
}

static inline cf_status *
cf_rfile_read_at(cf_rfile *f, uint64_t offset, void *dst, size_t n, size_t *got)
{
	return f->ops->read_at(f, offset, dst, n, got);
}

/* Reads exactly n bytes at offset, or CF_ERR_CORRUPTION naming the file if it is short. */
cf_status  *cf_rfile_read_exact(cf_rfile *f, uint64_t offset, void *dst, size_t n);

/* See cf_rfile_ops.map; NULL when the env cannot map. */
static inline const uint8_t *
cf_rfile_map(cf_rfile *f)
{
	return f->ops->map ? f->ops->map(f) : NULL;
}

static inline uint64_t
cf_rfile_size(cf_rfile *f)
{
	return f->ops->size(f);
}

static inline void
cf_rfile_close(cf_rfile *f)
{
	if (f)
		f->ops->close(f);
}

/* "<dir>/<name>" in a malloc'd string the caller frees; NULL when out of memory. */
char	   *cf_path_join(const char *dir, const char *name);

/*
 * Length of the directory part of path: "a/b/c" → 3 ("a/b"), "/c" → 1 ("/"), "c" → 0
 * (the current directory).
 */
size_t		cf_path_dir_len(const char *path);

/* Reads a whole (small) file into a malloc'd buffer the caller frees. */
cf_status  *cf_env_read_file(cf_env *e, const char *path, uint8_t **data, size_t *len);

/* Writes data to path atomically: a temp file, sync, rename, sync of the directory. */
cf_status  *cf_env_write_file_atomic(cf_env *e, const char *path, const void *data, size_t len);

#endif							/* CF_UTIL_ENV_H */
