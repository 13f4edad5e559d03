/*
 * util/env_posix.c — the POSIX env: files, directories, locks and clocks of the host.
 *
 * Design assumptions:
 *  - Writable files buffer appends in a 64 KiB buffer so the commit log's many small
 *    records cost few system calls; an append at least as large as the buffer goes
 *    straight to write(2) after the buffered bytes.
 *  - A write or sync error is sticky: the file's contents are then unknown, so every
 *    later append, flush and sync fails too (a retried fsync may "succeed" after the
 *    kernel dropped the dirty pages — the PostgreSQL fsync lesson). close still frees.
 *  - Every descriptor is opened O_CLOEXEC: colfamd must not leak files into children.
 *  - Locks are flock(2) locks on a descriptor of their own: they conflict between
 *    processes and between two handles of one process, and vanish when the process
 *    dies, so a crashed colfamd never leaves a stale lock behind.
 *  - Errors carry the path and strerror via cf_status_errno; the env never logs.
 */
#include "util/env.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define WFILE_BUF_SIZE (64 * 1024)

typedef struct posix_wfile
{
	cf_wfile	hdr;
	int			fd;
	int			failed_errno;	/* 0, or the errno of the first write/sync failure */
	uint64_t	size;			/* file size as this handle sees it, buffer included */
	size_t		len;			/* bytes in buf */
	uint8_t		buf[WFILE_BUF_SIZE];
} posix_wfile;

typedef struct posix_rfile
{
	cf_rfile	hdr;
	int			fd;
	uint64_t	size;
	void	   *map;			/* NULL until posix_rfile_map maps it */
	bool		map_tried;
} posix_rfile;

typedef struct posix_lock
{
	int			fd;
} posix_lockfile;

/* NULL when rc is 0, else an errno status "<what> <path>: <strerror>". */
static cf_status *
check(int rc, const char *what, const char *path)
{
	if (rc == 0)
		return NULL;
	return cf_status_errno(errno, "%s %s", what, path);
}

/* ---- writable files ---- */

/* write(2) all of n bytes, looping on partial writes and EINTR; 0 or an errno. */
static int
write_all(int fd, const uint8_t *p, size_t n)
{
	while (n > 0)
	{
		ssize_t		w = write(fd, p, n);

		if (w < 0)
		{
			if (errno == EINTR)
				continue;
			return errno;
		}
		p += w;
		n -= (size_t) w;
	}
	return 0;
}

/* The error of every use of a writable file after its first failure, err. */
static cf_status *
failed_earlier(const cf_wfile *wf, int err)
{
	return cf_status_errno(err, "writing %s after an earlier failure", wf->path);
}

static cf_status *
wfile_failed(posix_wfile *f)
{
	return failed_earlier(&f->hdr, f->failed_errno);
}

/* Writes n bytes; on failure records the sticky error and returns the status. */
static cf_status *
wfile_write(posix_wfile *f, const uint8_t *p, size_t n)
{
	int			err = write_all(f->fd, p, n);

	if (err == 0)
		return NULL;
	f->failed_errno = err;
	return cf_status_errno(err, "appending to %s", f->hdr.path);
}

static cf_status *
wfile_flush_buf(posix_wfile *f)
{
	size_t		n = f->len;

	if (f->failed_errno)
		return wfile_failed(f);
	f->len = 0;					/* dropped even on failure: the file is bad then */
	return wfile_write(f, f->buf, n);
}

static cf_status *
posix_wfile_append(cf_wfile *wf, const void *data, size_t n)
{
	posix_wfile *f = (posix_wfile *) wf;
	const uint8_t *p = data;
	size_t		room;
	cf_status  *s;

	if (f->failed_errno)
		return wfile_failed(f);

	/* Fill the buffer as far as it goes; done if everything fitted. */
	room = WFILE_BUF_SIZE - f->len;
	if (n <= room)
	{
		memcpy(f->buf + f->len, p, n);
		f->len += n;
		f->size += n;
		return NULL;
	}
	memcpy(f->buf + f->len, p, room);
	f->len += room;
	p += room;
	n -= room;
	f->size += room;

	if ((s = wfile_flush_buf(f)) != NULL)
		return s;

	/* A small rest is buffered; a large one goes straight to the file. */
	if (n < WFILE_BUF_SIZE)
	{
		memcpy(f->buf, p, n);
		f->len = n;
		f->size += n;
		return NULL;
	}
	if ((s = wfile_write(f, p, n)) != NULL)
		return s;
	f->size += n;
	return NULL;
}

static cf_status *
posix_wfile_flush(cf_wfile *wf)
{
	return wfile_flush_buf((posix_wfile *) wf);
}

static cf_status *
posix_wfile_sync(cf_wfile *wf)
{
	posix_wfile *f = (posix_wfile *) wf;
	cf_status  *s;

	if ((s = wfile_flush_buf(f)) != NULL)
		return s;
	if (fdatasync(f->fd) != 0)
	{
		f->failed_errno = errno;
		return cf_status_errno(errno, "syncing %s", f->hdr.path);
	}
	return NULL;
}

/*
 * Closes fd and frees the handle whose header (its first member) is wf, keeping s, the
 * first error of the close so far, over close's own.
 */
static cf_status *
free_wfile(cf_wfile *wf, int fd, cf_status *s)
{
	if (close(fd) != 0 && s == NULL)
		s = cf_status_errno(errno, "closing %s", wf->path);
	free(wf->path);
	free(wf);
	return s;
}

static cf_status *
posix_wfile_close(cf_wfile *wf)
{
	posix_wfile *f = (posix_wfile *) wf;

	return free_wfile(wf, f->fd, wfile_flush_buf(f));
}

static uint64_t
posix_wfile_size(cf_wfile *wf)
{
	return ((posix_wfile *) wf)->size;
}

static const struct cf_wfile_ops posix_wfile_ops = {
	.append = posix_wfile_append,
	.flush = posix_wfile_flush,
	.sync = posix_wfile_sync,
	.close = posix_wfile_close,
	.size = posix_wfile_size,
};

/*
 * ---- log files (CF_OPEN_CREATE_LOG) ----
 *
 * Appends are copied into a MAP_SHARED window of the file, so they are in the page
 * cache, where a process crash cannot lose them, as soon as the copy ends: the same
 * guarantee as a write(2) per append, without a system call per append. For a commit
 * log of small records in periodic mode that call was the largest cost of a write.
 * Each window of LOG_WINDOW bytes is allocated (posix_fallocate) before it is mapped,
 * so a full disk is an error of the append that needs the window, never a SIGBUS on a
 * store into an unbacked page. Close cuts the file back to the appended bytes and
 * syncs that, so a whole file never ends in reserved zeros; a crash leaves them.
 */
#define LOG_WINDOW (4u * 1024 * 1024)

typedef struct posix_logfile
{
	cf_wfile	hdr;
	int			fd;
	int			failed_errno;	/* 0, or the errno of the first failure */
	uint64_t	size;			/* bytes appended */
	uint64_t	allocated;		/* the file's size: appended bytes and zeros after */
	uint8_t    *win;			/* mapping of [win_off, win_off + LOG_WINDOW), or NULL */
	uint64_t	win_off;
} posix_logfile;

static cf_status *
logfile_fail(posix_logfile *f, int err, const char *what)
{
	if (f->failed_errno == 0)
		f->failed_errno = err;
	return cf_status_errno(err, "%s %s", what, f->hdr.path);
}

/* Maps the window that starts at f->size, allocating it first. REQUIRES: no window. */
static cf_status *
logfile_map_next(posix_logfile *f)
{
	uint64_t	off = f->size;
	void	   *m;
	int			err;

	if (f->allocated < off + LOG_WINDOW)
	{
		err = posix_fallocate(f->fd, (off_t) f->allocated,
							  (off_t) (off + LOG_WINDOW - f->allocated));
		if (err != 0)
			return logfile_fail(f, err, "reserving space in");
		f->allocated = off + LOG_WINDOW;
	}
	m = mmap(NULL, LOG_WINDOW, PROT_READ | PROT_WRITE, MAP_SHARED, f->fd, (off_t) off);
	if (m == MAP_FAILED)
		return logfile_fail(f, errno, "mapping");
	/*
	 * Not prefaulted (MADV_POPULATE_WRITE): that dirties the whole window at once, so
	 * the first sync after it writes 4 MiB, zeros included, a latency spike for a
	 * batch-mode log, and it showed no gain over a page fault per 4 KiB of appends.
	 */
	f->win = m;
	f->win_off = off;
	return NULL;
}

static void
logfile_unmap(posix_logfile *f)
{
	if (f->win != NULL)
		(void) munmap(f->win, LOG_WINDOW);
	f->win = NULL;
}

static cf_status *
posix_logfile_flush(cf_wfile *wf)
{
	posix_logfile *f = (posix_logfile *) wf;

	/* every append is in the page cache already: only an earlier failure to report */
	return f->failed_errno ? failed_earlier(wf, f->failed_errno) : NULL;
}

static cf_status *
posix_logfile_append(cf_wfile *wf, const void *data, size_t n)
{
	posix_logfile *f = (posix_logfile *) wf;
	const uint8_t *p = data;
	cf_status  *s;

	if ((s = posix_logfile_flush(wf)) != NULL)
		return s;
	while (n > 0)
	{
		size_t		take;

		/* windows start at multiples of LOG_WINDOW, so a full one ends at f->size */
		if (f->win != NULL && f->size == f->win_off + LOG_WINDOW)
			logfile_unmap(f);
		if (f->win == NULL && (s = logfile_map_next(f)) != NULL)
			return s;
		take = (size_t) (f->win_off + LOG_WINDOW - f->size);
		if (take > n)
			take = n;
		memcpy(f->win + (f->size - f->win_off), p, take);
		f->size += take;
		p += take;
		n -= take;
	}
	return NULL;
}

/* fdatasync writes back the pages dirtied through the mapping with the rest. */
static cf_status *
posix_logfile_sync(cf_wfile *wf)
{
	posix_logfile *f = (posix_logfile *) wf;
	cf_status  *s;

	if ((s = posix_logfile_flush(wf)) != NULL)
		return s;
	if (fdatasync(f->fd) != 0)
		return logfile_fail(f, errno, "syncing");
	return NULL;
}

static cf_status *
posix_logfile_close(cf_wfile *wf)
{
	posix_logfile *f = (posix_logfile *) wf;
	cf_status  *s = NULL;
	struct stat st;

	logfile_unmap(f);
	/*
	 * Cut the reserved zeros off and make the cut durable. Never lengthen the file:
	 * someone (a test's simulated crash) may have cut it shorter meanwhile.
	 */
	if (f->allocated > f->size && fstat(f->fd, &st) == 0 && (uint64_t) st.st_size > f->size &&
		(ftruncate(f->fd, (off_t) f->size) != 0 || fdatasync(f->fd) != 0))
		s = cf_status_errno(errno, "cutting the reserved space off %s", f->hdr.path);
	return free_wfile(wf, f->fd, s);
}

static uint64_t
posix_logfile_size(cf_wfile *wf)
{
	return ((posix_logfile *) wf)->size;
}

static const struct cf_wfile_ops posix_logfile_ops = {
	.append = posix_logfile_append,
	.flush = posix_logfile_flush,
	.sync = posix_logfile_sync,
	.close = posix_logfile_close,
	.size = posix_logfile_size,
};

/*
 * Opens path with flags (O_CLOEXEC added; EINTR retried) and reads its size. what
 * names the purpose in messages ("writing"). On error nothing stays open.
 */
static cf_status *
open_sized(const char *path, int flags, const char *what, int *fdp, uint64_t *size)
{
	struct stat st;
	cf_status  *s;
	int			fd;

	do
		fd = open(path, flags | O_CLOEXEC, 0644);
	while (fd < 0 && errno == EINTR);
	if (fd < 0)
	{
		if (errno == EEXIST)	/* only with O_EXCL */
			return cf_status_make(CF_ERR_BUSY, "creating %s: the file already exists",
								  path);
		return cf_status_errno(errno, "opening %s for %s", path, what);
	}
	if (fstat(fd, &st) != 0)
	{
		s = cf_status_errno(errno, "inspecting %s", path);
		close(fd);
		return s;
	}
	*fdp = fd;
	*size = (uint64_t) st.st_size;
	return NULL;
}

/*
 * A malloc'd handle of n bytes for the file fd, with a malloc'd copy of path in
 * *path_copy; on no memory closes fd and returns NULL.
 */
static void *
new_handle(size_t n, const char *path, int fd, char **path_copy)
{
	void	   *h = malloc(n);

	*path_copy = strdup(path);
	if (h == NULL || *path_copy == NULL)
	{
		free(h);
		free(*path_copy);
		close(fd);
		return NULL;
	}
	return h;
}

static cf_status *
posix_open_log(cf_env *e, const char *path, cf_wfile **out)
{
	posix_logfile *f;
	char	   *copy;
	uint64_t	size;
	int			fd;
	cf_status  *s;

	/* O_RDWR: a shared writable mapping needs a descriptor open for reading too */
	if ((s = open_sized(path, O_RDWR | O_CREAT | O_EXCL, "writing", &fd, &size)) != NULL)
		return s;
	if ((f = new_handle(sizeof(*f), path, fd, &copy)) == NULL)
		return cf_status_errno(ENOMEM, "opening %s for writing", path);
	f->hdr.ops = &posix_logfile_ops;
	f->hdr.env = e;
	f->hdr.path = copy;
	f->fd = fd;
	f->failed_errno = 0;
	f->size = 0;
	f->allocated = 0;
	f->win = NULL;
	f->win_off = 0;
	*out = &f->hdr;
	return NULL;
}

static cf_status *
posix_open_write(cf_env *e, const char *path, cf_open_mode mode, cf_wfile **out)
{
	int			flags = O_WRONLY | O_CREAT;
	posix_wfile *f;
	char	   *copy;
	uint64_t	size;
	int			fd;
	cf_status  *s;

	*out = NULL;
	if (mode == CF_OPEN_CREATE_LOG)
		return posix_open_log(e, path, out);
	if (mode == CF_OPEN_CREATE_NEW)
		flags |= O_EXCL;
	else if (mode == CF_OPEN_TRUNCATE)
		flags |= O_TRUNC;
	else
		flags |= O_APPEND;
	if ((s = open_sized(path, flags, "writing", &fd, &size)) != NULL)
		return s;
	if ((f = new_handle(sizeof(*f), path, fd, &copy)) == NULL)
		return cf_status_errno(ENOMEM, "opening %s for writing", path);

	f->hdr.ops = &posix_wfile_ops;
	f->hdr.env = e;
	f->hdr.path = copy;
	f->fd = fd;
	f->failed_errno = 0;
	f->size = size;				/* 0 unless appending */
	f->len = 0;
	*out = &f->hdr;
	return NULL;
}

/* ---- readable files ---- */

static cf_status *
posix_rfile_read_at(cf_rfile *rf, uint64_t offset, void *dst, size_t n, size_t *got)
{
	posix_rfile *f = (posix_rfile *) rf;
	uint8_t    *p = dst;
	size_t		done = 0;

	while (done < n)
	{
		ssize_t		r = pread(f->fd, p + done, n - done, (off_t) (offset + done));

		if (r < 0)
		{
			if (errno == EINTR)
				continue;
			*got = done;
			return cf_status_errno(errno, "reading %s at offset %llu", rf->path,
								   (unsigned long long) (offset + done));
		}
		if (r == 0)
			break;				/* end of file */
		done += (size_t) r;
	}
	*got = done;
	return NULL;
}

static uint64_t
posix_rfile_size(cf_rfile *rf)
{
	return ((posix_rfile *) rf)->size;
}

static void
posix_rfile_close(cf_rfile *rf)
{
	posix_rfile *f = (posix_rfile *) rf;

	if (f->map)
		munmap(f->map, (size_t) f->size);
	close(f->fd);
	free(f->hdr.path);
	free(f);
}

static const uint8_t *
posix_rfile_map(cf_rfile *rf)
{
	posix_rfile *f = (posix_rfile *) rf;

	if (!f->map_tried && f->size > 0 && f->size <= SIZE_MAX)
	{
		void	   *p = mmap(NULL, (size_t) f->size, PROT_READ, MAP_SHARED, f->fd, 0);

		f->map = p == MAP_FAILED ? NULL : p;
	}
	f->map_tried = true;
	return f->map;
}

static const struct cf_rfile_ops posix_rfile_ops = {
	.read_at = posix_rfile_read_at,
	.size = posix_rfile_size,
	.close = posix_rfile_close,
	.map = posix_rfile_map,
};

static cf_status *
posix_open_read(cf_env *e, const char *path, cf_rfile **out)
{
	posix_rfile *f;
	char	   *copy;
	uint64_t	size;
	int			fd;
	cf_status  *s;

	*out = NULL;
	if ((s = open_sized(path, O_RDONLY, "reading", &fd, &size)) != NULL)
		return s;
	if ((f = new_handle(sizeof(*f), path, fd, &copy)) == NULL)
		return cf_status_errno(ENOMEM, "opening %s for reading", path);

	f->hdr.ops = &posix_rfile_ops;
	f->hdr.env = e;
	f->hdr.path = copy;
	f->fd = fd;
	f->size = size;
	f->map = NULL;
	f->map_tried = false;
	*out = &f->hdr;
	return NULL;
}

/* ---- names and directories ---- */

static cf_status *
posix_remove(cf_env *e, const char *path)
{
	(void) e;
	return check(unlink(path), "removing", path);
}

static cf_status *
posix_rename(cf_env *e, const char *from, const char *to)
{
	(void) e;
	if (rename(from, to) != 0)
		return cf_status_errno(errno, "renaming %s to %s", from, to);
	return NULL;
}

static cf_status *
posix_link(cf_env *e, const char *from, const char *to)
{
	(void) e;
	if (link(from, to) != 0)
		return cf_status_errno(errno, "linking %s to %s", to, from);
	return NULL;
}

static cf_status *
posix_truncate(cf_env *e, const char *path, uint64_t size)
{
	(void) e;
	return check(truncate(path, (off_t) size), "truncating", path);
}

/* mkdir -p: creates each missing component; an existing directory is fine. */
static cf_status *
posix_mkdirs(cf_env *e, const char *path)
{
	char	   *copy;
	char	   *p;
	struct stat st;
	cf_status  *s = NULL;

	(void) e;
	if (path[0] == '\0')
		return cf_status_make(CF_ERR_INVALID, "creating directory: the path is empty");
	if ((copy = strdup(path)) == NULL)
		return cf_status_errno(ENOMEM, "creating directory %s", path);
	for (p = copy + 1;; p++)
	{
		bool		last = (*p == '\0');

		if (*p != '/' && !last)
			continue;
		*p = '\0';
		if (mkdir(copy, 0755) != 0 && errno != EEXIST)
		{
			s = cf_status_errno(errno, "creating directory %s", copy);
			break;
		}
		if (last)
			break;
		*p = '/';
	}
	free(copy);
	if (s == NULL && stat(path, &st) == 0 && !S_ISDIR(st.st_mode))
		s = cf_status_errno(ENOTDIR, "creating directory %s", path);
	return s;
}

static cf_status *
posix_remove_dir(cf_env *e, const char *path)
{
	(void) e;
	return check(rmdir(path), "removing directory", path);
}

static cf_status *
posix_sync_dir(cf_env *e, const char *path)
{
	cf_status  *s;
	int			fd;

	(void) e;
	fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return cf_status_errno(errno, "opening directory %s", path);
	s = check(fsync(fd), "syncing directory", path);
	close(fd);
	return s;
}

static cf_status *
posix_list_dir(cf_env *e, const char *path, cf_dir_fn fn, void *arg)
{
	DIR		   *d;
	struct dirent *ent;
	cf_status  *s = NULL;

	(void) e;
	d = opendir(path);
	if (d == NULL)
		return cf_status_errno(errno, "listing directory %s", path);
	for (;;)
	{
		errno = 0;
		ent = readdir(d);
		if (ent == NULL)
		{
			if (errno != 0)
				s = cf_status_errno(errno, "listing directory %s", path);
			break;
		}
		if (strcmp(ent->d_name, ".") == 0 || strcmp(ent->d_name, "..") == 0)
			continue;
		if (!fn(arg, ent->d_name))
			break;
	}
	closedir(d);
	return s;
}

static cf_status *
posix_file_size(cf_env *e, const char *path, uint64_t *size)
{
	struct stat st;

	(void) e;
	*size = 0;
	if (stat(path, &st) != 0)
		return cf_status_errno(errno, "getting the size of %s", path);
	*size = (uint64_t) st.st_size;
	return NULL;
}

static cf_status *
posix_file_links(cf_env *e, const char *path, uint64_t *links)
{
	struct stat st;

	(void) e;
	*links = 0;
	if (stat(path, &st) != 0)
		return cf_status_errno(errno, "getting the link count of %s", path);
	*links = (uint64_t) st.st_nlink;
	return NULL;
}

static bool
posix_exists(cf_env *e, const char *path)
{
	(void) e;
	return access(path, F_OK) == 0;
}

static cf_status *
posix_lock(cf_env *e, const char *path, void **handle)
{
	posix_lockfile *l;
	int			fd;

	(void) e;
	*handle = NULL;
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0)
		return cf_status_errno(errno, "opening lock file %s", path);
	while (flock(fd, LOCK_EX | LOCK_NB) != 0)
	{
		int			err = errno;

		if (err == EINTR)
			continue;
		close(fd);
		if (err == EWOULDBLOCK)
			return cf_status_make(CF_ERR_BUSY,
								  "locking %s: held by another process or handle "
								  "(is another colfamd using this directory?)", path);
		return cf_status_errno(err, "locking %s", path);
	}
	l = malloc(sizeof(*l));
	if (l == NULL)
	{
		close(fd);				/* drops the lock */
		return cf_status_errno(ENOMEM, "locking %s", path);
	}
	l->fd = fd;
	*handle = l;
	return NULL;
}

static void
posix_unlock(cf_env *e, void *handle)
{
	posix_lockfile *l = handle;

	(void) e;
	if (l == NULL)
		return;
	flock(l->fd, LOCK_UN);
	close(l->fd);
	free(l);
}

/* ---- clocks ---- */

static int64_t
clock_micros(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (int64_t) ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static int64_t
posix_now_micros(cf_env *e)
{
	(void) e;
	return clock_micros(CLOCK_REALTIME);
}

static int64_t
posix_mono_micros(cf_env *e)
{
	(void) e;
	return clock_micros(CLOCK_MONOTONIC);
}

static void
posix_sleep_micros(cf_env *e, int64_t us)
{
	struct timespec ts;

	(void) e;
	if (us <= 0)
		return;
	ts.tv_sec = us / 1000000;
	ts.tv_nsec = (long) (us % 1000000) * 1000;
	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

static const struct cf_env_ops posix_env_ops = {
	.open_write = posix_open_write,
	.open_read = posix_open_read,
	.remove = posix_remove,
	.rename = posix_rename,
	.link = posix_link,
	.truncate = posix_truncate,
	.mkdirs = posix_mkdirs,
	.remove_dir = posix_remove_dir,
	.sync_dir = posix_sync_dir,
	.list_dir = posix_list_dir,
	.file_size = posix_file_size,
	.file_links = posix_file_links,
	.exists = posix_exists,
	.lock = posix_lock,
	.unlock = posix_unlock,
	.now_micros = posix_now_micros,
	.mono_micros = posix_mono_micros,
	.sleep_micros = posix_sleep_micros,
};

static cf_env posix_env = {&posix_env_ops, NULL};

cf_env *
cf_env_posix(void)
{
	return &posix_env;
}
