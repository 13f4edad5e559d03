/*
 * util/env_fault.c — the fault-injecting env (see env_fault.h for what it simulates).
 *
 * Design assumptions:
 *  - Crash bookkeeping is a list of entries, one per path written, created or linked
 *    through the env since the last crash: its durable size and whether its directory
 *    entry is durable yet. Tests touch tens of files, so a list scanned linearly is
 *    enough. An entry removed (or crashed) while a file is still open on it stays
 *    allocated until that file closes.
 *  - Handles from before a crash are recognised by an epoch number that every crash
 *    bumps, so the crash need not find them.
 *  - One mutex for everything; I/O is serialised, which a test env can afford.
 */
#include "util/env_fault.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

typedef struct fault_entry
{
	struct fault_entry *next;
	char	   *path;
	uint64_t	synced;			/* the size a crash cuts the file back to */
	bool		written;		/* opened for writing here: cut back on a crash */
	bool		new_entry;		/* directory entry not durable yet: removed on a crash */
	bool		gone;			/* off the list (removed, replaced, crashed) */
	int			refs;			/* open fault_wfiles pointing at it */
} fault_entry;

typedef struct fault_rule
{
	int			skip;			/* calls still to let through */
	int			errnum;
	int			count;			/* calls still to fail; -1 forever; 0 no rule */
} fault_rule;

typedef struct fault_env
{
	cf_env		env;			/* what callers hold; env.state points back here */
	cf_env	   *base;
	pthread_mutex_t mu;
	fault_rule	rules[CF_FAULT_OP_COUNT_];
	int			short_skip;		/* appends before the torn one; -1 none */
	int64_t		space;			/* bytes that may still be written; -1 no budget */
	fault_entry *entries;
	unsigned	epoch;			/* bumped by every crash */
	bool		fake_clock;
	int64_t		fake_now;
	int64_t		fake_mono;
	struct cf_env_fault_stats stats;
} fault_env;

typedef struct fault_wfile
{
	cf_wfile	hdr;
	cf_wfile   *base;
	fault_entry *ent;
	uint64_t	size;			/* bytes in the base file as this handle sees it */
	unsigned	epoch;			/* the env's epoch at open */
	int			failed_errno;	/* set by a failed write or sync: the file is done */
} fault_wfile;

typedef struct fault_rfile
{
	cf_rfile	hdr;
	cf_rfile   *base;
} fault_rfile;

/* What each operation is called in messages: "<verb> <path> (injected fault): ..." */
static const char *const op_verbs[CF_FAULT_OP_COUNT_] = {
	[CF_FAULT_OPEN_WRITE] = "opening for writing",
	[CF_FAULT_WRITE] = "appending to",
	[CF_FAULT_SYNC] = "syncing",
	[CF_FAULT_OPEN_READ] = "opening for reading",
	[CF_FAULT_READ] = "reading",
	[CF_FAULT_RENAME] = "renaming",
	[CF_FAULT_REMOVE] = "removing",
	[CF_FAULT_LINK] = "linking to",
	[CF_FAULT_TRUNCATE] = "truncating",
	[CF_FAULT_MKDIRS] = "creating directory",
	[CF_FAULT_REMOVE_DIR] = "removing directory",
	[CF_FAULT_SYNC_DIR] = "syncing directory",
	[CF_FAULT_LIST_DIR] = "listing directory",
	[CF_FAULT_FILE_SIZE] = "getting the size of",
	[CF_FAULT_LOCK] = "locking",
};

static fault_env *
fault_of(cf_env *e)
{
	return (fault_env *) e->state;
}

/*
 * The injected failure for this call of op, or NULL to let it through. Counts the
 * call against the op's rule. REQUIRES: fe->mu held.
 */
static cf_status *
inject(fault_env *fe, cf_fault_op op, const char *path)
{
	fault_rule *r = &fe->rules[op];

	if (r->count == 0)
		return NULL;
	if (r->skip > 0)
	{
		r->skip--;
		return NULL;
	}
	if (r->count > 0)
		r->count--;
	fe->stats.injected++;
	return cf_status_errno(r->errnum, "%s %s (injected fault)", op_verbs[op], path);
}

static void
clear_faults(fault_env *fe)
{
	memset(fe->rules, 0, sizeof(fe->rules));
	fe->short_skip = -1;
	fe->space = -1;
}

/* ---- crash bookkeeping (all REQUIRE fe->mu held) ---- */

/* Is dir (trailing slashes allowed) the directory part of path? */
static bool
in_dir(const char *path, const char *dir)
{
	size_t		plen = cf_path_dir_len(path);
	size_t		dlen = strlen(dir);

	while (dlen > 1 && dir[dlen - 1] == '/')
		dlen--;
	if (plen == 0)
		return dlen == 1 && dir[0] == '.';
	return plen == dlen && memcmp(path, dir, dlen) == 0;
}

static fault_entry *
entry_find(fault_env *fe, const char *path)
{
	fault_entry *ent;

	for (ent = fe->entries; ent != NULL; ent = ent->next)
		if (strcmp(ent->path, path) == 0)
			return ent;
	return NULL;
}

/* A new entry at the head of the list, or NULL when out of memory. */
static fault_entry *
entry_add(fault_env *fe, const char *path)
{
	fault_entry *ent = calloc(1, sizeof(*ent));

	if (ent == NULL || (ent->path = strdup(path)) == NULL)
	{
		free(ent);
		return NULL;
	}
	ent->next = fe->entries;
	fe->entries = ent;
	return ent;
}

static void
entry_release(fault_entry *ent)
{
	if (ent->gone && ent->refs == 0)
	{
		free(ent->path);
		free(ent);
	}
}

/* Takes ent off the list; frees it unless a file still has it open. */
static void
entry_drop(fault_env *fe, fault_entry *ent)
{
	fault_entry **pp;

	for (pp = &fe->entries; *pp != NULL; pp = &(*pp)->next)
	{
		if (*pp == ent)
		{
			*pp = ent->next;
			break;
		}
	}
	ent->next = NULL;
	ent->gone = true;
	entry_release(ent);
}

/* A new directory entry at path (a link, a rename's target). */
static void
track_new(fault_env *fe, const char *path)
{
	fault_entry *ent = entry_find(fe, path);

	if (ent == NULL)
		ent = entry_add(fe, path);
	if (ent != NULL)
		ent->new_entry = true;
}

static void
track_rename(fault_env *fe, const char *from, const char *to)
{
	fault_entry *src = entry_find(fe, from);
	fault_entry *dst = entry_find(fe, to);
	char	   *copy;

	if (dst != NULL && dst != src)
		entry_drop(fe, dst);
	if (src == NULL)
		return;
	if ((copy = strdup(to)) == NULL)
	{
		entry_drop(fe, src);	/* forget it rather than track the wrong name */
		return;
	}
	if (cf_path_dir_len(from) != cf_path_dir_len(to) || memcmp(from, to, cf_path_dir_len(to)) != 0)
		src->new_entry = true;
	free(src->path);
	src->path = copy;
}

/* ---- writable files ---- */

static cf_status *
crashed(fault_wfile *w, const char *verb)
{
	return cf_status_errno(EIO, "%s %s after a simulated crash", verb, w->hdr.path);
}

/*
 * As the POSIX env does, a file whose write or sync failed refuses everything after:
 * after a failed fsync nobody knows what is durable, and after a short write the file
 * ends in half a record. Tests must not see a file keep working that production would
 * not.
 */
static cf_status *
already_failed(fault_wfile *w, const char *verb)
{
	return cf_status_errno(w->failed_errno, "%s %s, which failed earlier", verb, w->hdr.path);
}

/* Remembers that s (if an error) broke the file. */
static cf_status *
note_failure(fault_wfile *w, cf_status *s)
{
	if (s != NULL && w->failed_errno == 0)
		w->failed_errno = cf_status_code(s) == CF_ERR_NO_SPACE ? ENOSPC : EIO;
	return s;
}

static cf_status *
fault_wfile_append(cf_wfile *wf, const void *data, size_t n)
{
	fault_wfile *w = (fault_wfile *) wf;
	fault_env  *fe = fault_of(wf->env);
	size_t		take = n;
	cf_status  *s;

	pthread_mutex_lock(&fe->mu);
	if (w->epoch != fe->epoch)
		s = crashed(w, "appending to");
	else if (w->failed_errno)
		s = already_failed(w, "appending to");
	else if ((s = inject(fe, CF_FAULT_WRITE, wf->path)) == NULL)
	{
		/* A torn write or a full disk: what fits reaches the file, then ENOSPC. */
		if (fe->short_skip == 0)
			take = n / 2;
		if (fe->short_skip >= 0)
			fe->short_skip--;
		if (fe->space >= 0 && (uint64_t) take > (uint64_t) fe->space)
			take = (size_t) fe->space;

		s = cf_wfile_append(w->base, data, take);
		if (s == NULL)
			s = cf_wfile_flush(w->base);
		if (s == NULL)
		{
			w->size += take;
			fe->stats.writes++;
			fe->stats.bytes_written += take;
			if (fe->space >= 0)
				fe->space -= (int64_t) take;
			if (take < n)
			{
				fe->stats.injected++;
				s = cf_status_errno(ENOSPC, "appending to %s (injected fault after %zu of %zu bytes)",
									wf->path, take, n);
			}
		}
	}
	if (w->epoch == fe->epoch)
		note_failure(w, s);
	pthread_mutex_unlock(&fe->mu);
	return s;
}

/* Appends are never buffered here, so a flush has nothing to do. */
static cf_status *
fault_wfile_flush(cf_wfile *wf)
{
	fault_wfile *w = (fault_wfile *) wf;
	fault_env  *fe = fault_of(wf->env);
	cf_status  *s = NULL;

	pthread_mutex_lock(&fe->mu);
	if (w->epoch != fe->epoch)
		s = crashed(w, "flushing");
	else if (w->failed_errno)
		s = already_failed(w, "flushing");
	pthread_mutex_unlock(&fe->mu);
	return s;
}

static cf_status *
fault_wfile_sync(cf_wfile *wf)
{
	fault_wfile *w = (fault_wfile *) wf;
	fault_env  *fe = fault_of(wf->env);
	cf_status  *s;

	pthread_mutex_lock(&fe->mu);
	if (w->epoch != fe->epoch)
		s = crashed(w, "syncing");
	else if (w->failed_errno)
		s = already_failed(w, "syncing");
	else if ((s = note_failure(w, inject(fe, CF_FAULT_SYNC, wf->path))) == NULL &&
			 (s = note_failure(w, cf_wfile_sync(w->base))) == NULL)
	{
		fe->stats.syncs++;
		if (w->ent->synced < w->size)
			w->ent->synced = w->size;
	}
	pthread_mutex_unlock(&fe->mu);
	return s;
}

static cf_status *
fault_wfile_close(cf_wfile *wf)
{
	fault_wfile *w = (fault_wfile *) wf;
	fault_env  *fe = fault_of(wf->env);
	cf_status  *s;

	pthread_mutex_lock(&fe->mu);
	s = cf_wfile_close(w->base);
	if (w->epoch != fe->epoch)
	{
		cf_status_free(s);
		s = crashed(w, "closing");
	}
	w->ent->refs--;
	entry_release(w->ent);
	pthread_mutex_unlock(&fe->mu);
	free(w->hdr.path);
	free(w);
	return s;
}

static uint64_t
fault_wfile_size(cf_wfile *wf)
{
	return ((fault_wfile *) wf)->size;
}

static const struct cf_wfile_ops fault_wfile_ops = {
	.append = fault_wfile_append,
	.flush = fault_wfile_flush,
	.sync = fault_wfile_sync,
	.close = fault_wfile_close,
	.size = fault_wfile_size,
};

/*
 * The entry for a file just opened for writing, set up for what the open did to it.
 * NULL when out of memory. REQUIRES: fe->mu held.
 */
static fault_entry *
track_open(fault_env *fe, const char *path, cf_open_mode mode, bool existed,
		   uint64_t size_at_open)
{
	fault_entry *ent = entry_find(fe, path);

	if (ent == NULL)
	{
		if ((ent = entry_add(fe, path)) == NULL)
			return NULL;
		ent->new_entry = !existed;
		ent->synced = size_at_open;		/* what was there before counts as durable */
	}
	else if (!existed)
	{
		ent->new_entry = true;
		ent->synced = 0;
	}
	else if (mode != CF_OPEN_APPEND)
		ent->synced = 0;
	ent->written = true;
	ent->refs++;
	return ent;
}

static cf_status *
fault_open_write(cf_env *e, const char *path, cf_open_mode mode, cf_wfile **out)
{
	fault_env  *fe = fault_of(e);
	fault_wfile *w = NULL;
	cf_wfile   *base = NULL;
	bool		existed;
	cf_status  *s;

	*out = NULL;
	pthread_mutex_lock(&fe->mu);
	existed = cf_env_exists(fe->base, path);
	if ((s = inject(fe, CF_FAULT_OPEN_WRITE, path)) != NULL ||
		(s = cf_env_open_write(fe->base, path, mode, &base)) != NULL)
		goto out;

	w = calloc(1, sizeof(*w));
	if (w == NULL || (w->hdr.path = strdup(path)) == NULL ||
		(w->ent = track_open(fe, path, mode, existed, cf_wfile_size(base))) == NULL)
	{
		cf_status_free(cf_wfile_close(base));
		if (w != NULL)
			free(w->hdr.path);
		free(w);
		s = cf_status_errno(ENOMEM, "opening %s for writing", path);
		goto out;
	}
	w->hdr.ops = &fault_wfile_ops;
	w->hdr.env = e;
	w->base = base;
	w->size = cf_wfile_size(base);
	w->epoch = fe->epoch;
	*out = &w->hdr;
out:
	pthread_mutex_unlock(&fe->mu);
	return s;
}

/* ---- readable files ---- */

static cf_status *
fault_rfile_read_at(cf_rfile *rf, uint64_t offset, void *dst, size_t n, size_t *got)
{
	fault_env  *fe = fault_of(rf->env);
	cf_status  *s;

	*got = 0;
	pthread_mutex_lock(&fe->mu);
	s = inject(fe, CF_FAULT_READ, rf->path);
	pthread_mutex_unlock(&fe->mu);
	if (s != NULL)
		return s;
	return cf_rfile_read_at(((fault_rfile *) rf)->base, offset, dst, n, got);
}

static uint64_t
fault_rfile_size(cf_rfile *rf)
{
	return cf_rfile_size(((fault_rfile *) rf)->base);
}

static void
fault_rfile_close(cf_rfile *rf)
{
	fault_rfile *r = (fault_rfile *) rf;

	cf_rfile_close(r->base);
	free(r->hdr.path);
	free(r);
}

static const struct cf_rfile_ops fault_rfile_ops = {
	.read_at = fault_rfile_read_at,
	.size = fault_rfile_size,
	.close = fault_rfile_close,
};

static cf_status *
fault_open_read(cf_env *e, const char *path, cf_rfile **out)
{
	fault_env  *fe = fault_of(e);
	fault_rfile *r;
	cf_rfile   *base;
	cf_status  *s;

	*out = NULL;
	pthread_mutex_lock(&fe->mu);
	s = inject(fe, CF_FAULT_OPEN_READ, path);
	pthread_mutex_unlock(&fe->mu);
	if (s != NULL || (s = cf_env_open_read(fe->base, path, &base)) != NULL)
		return s;

	r = malloc(sizeof(*r));
	if (r == NULL || (r->hdr.path = strdup(path)) == NULL)
	{
		free(r);
		cf_rfile_close(base);
		return cf_status_errno(ENOMEM, "opening %s for reading", path);
	}
	r->hdr.ops = &fault_rfile_ops;
	r->hdr.env = e;
	r->base = base;
	*out = &r->hdr;
	return NULL;
}

/* ---- names and directories ---- */

/*
 * One operation on names: the injected fault if any, else the base's operation and
 * its bookkeeping, all under the mutex. to is the second path of rename and link;
 * size the length for truncate.
 */
static cf_status *
name_op(cf_env *e, cf_fault_op op, const char *path, const char *to, uint64_t size)
{
	fault_env  *fe = fault_of(e);
	cf_env	   *base = fe->base;
	fault_entry *ent;
	cf_status  *s;

	pthread_mutex_lock(&fe->mu);
	if ((s = inject(fe, op, path)) != NULL)
		goto out;
	switch (op)
	{
		case CF_FAULT_REMOVE:
			if ((s = cf_env_remove(base, path)) == NULL && (ent = entry_find(fe, path)) != NULL)
				entry_drop(fe, ent);
			break;
		case CF_FAULT_RENAME:
			if ((s = cf_env_rename(base, path, to)) == NULL)
				track_rename(fe, path, to);
			break;
		case CF_FAULT_LINK:
			if ((s = cf_env_link(base, path, to)) == NULL)
				track_new(fe, to);
			break;
		case CF_FAULT_TRUNCATE:
			if ((s = cf_env_truncate(base, path, size)) == NULL &&
				(ent = entry_find(fe, path)) != NULL && ent->synced > size)
				ent->synced = size;
			break;
		case CF_FAULT_MKDIRS:
			s = cf_env_mkdirs(base, path);
			break;
		case CF_FAULT_REMOVE_DIR:
			s = cf_env_remove_dir(base, path);
			break;
		case CF_FAULT_SYNC_DIR:
			if ((s = cf_env_sync_dir(base, path)) != NULL)
				break;
			fe->stats.sync_dirs++;
			for (ent = fe->entries; ent != NULL; ent = ent->next)
				if (in_dir(ent->path, path))
					ent->new_entry = false;
			break;
		default:
			s = cf_status_make(CF_ERR_INTERNAL, "env_fault: %d is not a name operation", (int) op);
			break;
	}
out:
	pthread_mutex_unlock(&fe->mu);
	return s;
}

static cf_status *
fault_remove(cf_env *e, const char *path)
{
	return name_op(e, CF_FAULT_REMOVE, path, NULL, 0);
}

static cf_status *
fault_rename(cf_env *e, const char *from, const char *to)
{
	return name_op(e, CF_FAULT_RENAME, from, to, 0);
}

static cf_status *
fault_link(cf_env *e, const char *from, const char *to)
{
	return name_op(e, CF_FAULT_LINK, from, to, 0);
}

static cf_status *
fault_truncate(cf_env *e, const char *path, uint64_t size)
{
	return name_op(e, CF_FAULT_TRUNCATE, path, NULL, size);
}

static cf_status *
fault_mkdirs(cf_env *e, const char *path)
{
	return name_op(e, CF_FAULT_MKDIRS, path, NULL, 0);
}

static cf_status *
fault_remove_dir(cf_env *e, const char *path)
{
	return name_op(e, CF_FAULT_REMOVE_DIR, path, NULL, 0);
}

static cf_status *
fault_sync_dir(cf_env *e, const char *path)
{
	return name_op(e, CF_FAULT_SYNC_DIR, path, NULL, 0);
}

/* Checks the rule under the mutex; the listing itself runs without it (fn may call us). */
static cf_status *
fault_list_dir(cf_env *e, const char *path, cf_dir_fn fn, void *arg)
{
	fault_env  *fe = fault_of(e);
	cf_status  *s;

	pthread_mutex_lock(&fe->mu);
	s = inject(fe, CF_FAULT_LIST_DIR, path);
	pthread_mutex_unlock(&fe->mu);
	return s ? s : cf_env_list_dir(fe->base, path, fn, arg);
}

/* file_size and file_links: a number about a file, both injected as CF_FAULT_FILE_SIZE. */
static cf_status *
fault_file_number(cf_env *e, const char *path, uint64_t *out,
				  cf_status *(*base_fn) (cf_env *, const char *, uint64_t *))
{
	fault_env  *fe = fault_of(e);
	cf_status  *s;

	*out = 0;
	pthread_mutex_lock(&fe->mu);
	s = inject(fe, CF_FAULT_FILE_SIZE, path);
	if (s == NULL)
		s = base_fn(fe->base, path, out);
	pthread_mutex_unlock(&fe->mu);
	return s;
}

static cf_status *
fault_file_size(cf_env *e, const char *path, uint64_t *size)
{
	return fault_file_number(e, path, size, cf_env_file_size);
}

static cf_status *
fault_file_links(cf_env *e, const char *path, uint64_t *links)
{
	return fault_file_number(e, path, links, cf_env_file_links);
}

static bool
fault_exists(cf_env *e, const char *path)
{
	return cf_env_exists(fault_of(e)->base, path);
}

static cf_status *
fault_lock(cf_env *e, const char *path, void **handle)
{
	fault_env  *fe = fault_of(e);
	cf_status  *s;

	*handle = NULL;
	pthread_mutex_lock(&fe->mu);
	s = inject(fe, CF_FAULT_LOCK, path);
	pthread_mutex_unlock(&fe->mu);
	return s ? s : cf_env_lock(fe->base, path, handle);
}

static void
fault_unlock(cf_env *e, void *handle)
{
	cf_env_unlock(fault_of(e)->base, handle);
}

/* ---- clocks ---- */

/* Starts the fake clocks at the base's times. REQUIRES: fe->mu held. */
static void
start_fake_clock(fault_env *fe)
{
	if (fe->fake_clock)
		return;
	fe->fake_clock = true;
	fe->fake_now = cf_env_now_micros(fe->base);
	fe->fake_mono = cf_env_mono_micros(fe->base);
}

static int64_t
fault_now_micros(cf_env *e)
{
	fault_env  *fe = fault_of(e);
	int64_t		t;

	pthread_mutex_lock(&fe->mu);
	t = fe->fake_clock ? fe->fake_now : cf_env_now_micros(fe->base);
	pthread_mutex_unlock(&fe->mu);
	return t;
}

static int64_t
fault_mono_micros(cf_env *e)
{
	fault_env  *fe = fault_of(e);
	int64_t		t;

	pthread_mutex_lock(&fe->mu);
	t = fe->fake_clock ? fe->fake_mono : cf_env_mono_micros(fe->base);
	pthread_mutex_unlock(&fe->mu);
	return t;
}

static void
fault_sleep_micros(cf_env *e, int64_t us)
{
	fault_env  *fe = fault_of(e);
	bool		fake;

	pthread_mutex_lock(&fe->mu);
	fake = fe->fake_clock;
	if (fake && us > 0)
	{
		fe->fake_now += us;
		fe->fake_mono += us;
	}
	pthread_mutex_unlock(&fe->mu);
	if (!fake)
		cf_env_sleep_micros(fe->base, us);
}

static const struct cf_env_ops fault_env_ops = {
	.open_write = fault_open_write,
	.open_read = fault_open_read,
	.remove = fault_remove,
	.rename = fault_rename,
	.link = fault_link,
	.truncate = fault_truncate,
	.mkdirs = fault_mkdirs,
	.remove_dir = fault_remove_dir,
	.sync_dir = fault_sync_dir,
	.list_dir = fault_list_dir,
	.file_size = fault_file_size,
	.file_links = fault_file_links,
	.exists = fault_exists,
	.lock = fault_lock,
	.unlock = fault_unlock,
	.now_micros = fault_now_micros,
	.mono_micros = fault_mono_micros,
	.sleep_micros = fault_sleep_micros,
};

/* ---- the public API ---- */

/* The fault env behind env; aborts if env is another kind (a test bug). */
static fault_env *
checked(cf_env *env)
{
	if (env == NULL || env->ops != &fault_env_ops)
		abort();
	return fault_of(env);
}

cf_env *
cf_env_fault_new(cf_env *base)
{
	fault_env  *fe = calloc(1, sizeof(*fe));

	if (fe == NULL)
		return NULL;
	if (pthread_mutex_init(&fe->mu, NULL) != 0)
	{
		free(fe);
		return NULL;
	}
	fe->env.ops = &fault_env_ops;
	fe->env.state = fe;
	fe->base = base;
	clear_faults(fe);
	return &fe->env;
}

void
cf_env_fault_free(cf_env *env)
{
	fault_env  *fe;

	if (env == NULL)
		return;
	fe = checked(env);
	while (fe->entries != NULL)
		entry_drop(fe, fe->entries);
	pthread_mutex_destroy(&fe->mu);
	free(fe);
}

void
cf_env_fault_fail(cf_env *env, cf_fault_op op, int skip, int errnum, int count)
{
	fault_env  *fe = checked(env);

	if ((unsigned) op >= CF_FAULT_OP_COUNT_)
		abort();
	pthread_mutex_lock(&fe->mu);
	fe->rules[op].skip = skip > 0 ? skip : 0;
	fe->rules[op].errnum = errnum;
	fe->rules[op].count = count < 0 ? -1 : count;
	pthread_mutex_unlock(&fe->mu);
}

void
cf_env_fault_short_write(cf_env *env, int skip)
{
	fault_env  *fe = checked(env);

	pthread_mutex_lock(&fe->mu);
	fe->short_skip = skip > 0 ? skip : 0;
	pthread_mutex_unlock(&fe->mu);
}

void
cf_env_fault_set_space(cf_env *env, int64_t bytes)
{
	fault_env  *fe = checked(env);

	pthread_mutex_lock(&fe->mu);
	fe->space = bytes < 0 ? -1 : bytes;
	pthread_mutex_unlock(&fe->mu);
}

void
cf_env_fault_clear(cf_env *env)
{
	fault_env  *fe = checked(env);

	pthread_mutex_lock(&fe->mu);
	clear_faults(fe);
	pthread_mutex_unlock(&fe->mu);
}

/* Undoes what a power loss would lose of one entry's file. REQUIRES: fe->mu held. */
static cf_status *
crash_entry(fault_env *fe, fault_entry *ent)
{
	uint64_t	size;
	cf_status  *s;

	if (ent->new_entry)
	{
		s = cf_env_remove(fe->base, ent->path);
		if (cf_status_code(s) == CF_ERR_NOT_FOUND)
		{
			cf_status_free(s);
			s = NULL;
		}
		return s;
	}
	if (!ent->written || !cf_env_exists(fe->base, ent->path))
		return NULL;
	if ((s = cf_env_file_size(fe->base, ent->path, &size)) != NULL || size <= ent->synced)
		return s;
	return cf_env_truncate(fe->base, ent->path, ent->synced);
}

cf_status *
cf_env_fault_crash(cf_env *env)
{
	fault_env  *fe = checked(env);
	cf_status  *first = NULL;

	pthread_mutex_lock(&fe->mu);
	while (fe->entries != NULL)
	{
		cf_status  *s = crash_entry(fe, fe->entries);

		if (first == NULL)
			first = s;
		else
			cf_status_free(s);
		entry_drop(fe, fe->entries);
	}
	fe->epoch++;
	fe->stats.crashes++;
	clear_faults(fe);
	pthread_mutex_unlock(&fe->mu);
	return cf_status_wrap(first, "simulating a crash");
}

void
cf_env_fault_set_time(cf_env *env, int64_t now_us)
{
	fault_env  *fe = checked(env);

	pthread_mutex_lock(&fe->mu);
	start_fake_clock(fe);
	fe->fake_now = now_us;
	pthread_mutex_unlock(&fe->mu);
}

void
cf_env_fault_advance_time(cf_env *env, int64_t us)
{
	fault_env  *fe = checked(env);

	pthread_mutex_lock(&fe->mu);
	start_fake_clock(fe);
	if (us > 0)
	{
		fe->fake_now += us;
		fe->fake_mono += us;
	}
	pthread_mutex_unlock(&fe->mu);
}

void
cf_env_fault_stats(cf_env *env, struct cf_env_fault_stats *stats)
{
	fault_env  *fe = checked(env);

	pthread_mutex_lock(&fe->mu);
	*stats = fe->stats;
	pthread_mutex_unlock(&fe->mu);
}
