/*
 * storage/commitlog.c — the commit log: segments, group commit, periodic sync, replay
 * and segment retirement (contract in commitlog.h, format in
 * engine/doc/commitlog_format.md).
 *
 * Design assumptions:
 *  - One mutex (mu) guards the log's state. File I/O happens outside it, by whoever
 *    holds the "I/O token" (io_busy): a write-group leader, the background syncer,
 *    cf_commitlog_sync or close. Only the token holder touches the active cf_wfile, so
 *    the env's one-thread-per-file rule holds without locking around fsync, and
 *    appenders keep queueing while an fsync runs.
 *  - Appenders frame and checksum their record before taking mu, then queue. The
 *    queue's head takes the token when it is free and becomes the leader: under mu it
 *    takes every queued record (up to GROUP_MAX_BYTES), assigns each its position,
 *    rolls segments over and marks the CFs dirty, all before any byte is written, so a
 *    concurrent cf_flushed never sees a segment without the records planned for it.
 *    Then it writes, syncs (BATCH) or flushes to the OS (PERIODIC), and wakes the group.
 *  - A group shares its fate: if any write of it fails, none of it is acknowledged.
 *  - A segment is retired when it is closed (no handle open on it), is not the active
 *    one and has no dirty CF. Per segment and CF the log keeps the position of that
 *    CF's last record there; CFs are few per segment, so a small array searched
 *    linearly is enough.
 *  - Segments are opened CF_OPEN_CREATE_LOG: a record is in the page cache once its
 *    append returns (the POSIX env copies it into a shared mapping), so PERIODIC's
 *    flush to the OS costs no system call. A segment never closed (the process died)
 *    ends in the zeros its env reserved ahead; replay cuts them off as such.
 *  - Replay reads through a 1 MiB window with pread, so memory is bounded by the window
 *    plus the largest record (CF_COMMITLOG_MAX_BODY), never by a length read from disk.
 */
#include "storage/commitlog.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "util/buf.h"
#include "util/crc32c.h"
#include "util/log.h"
#include "util/thread.h"

#define LOG_COMPONENT "commitlog"
#define GROUP_MAX_BYTES (1024 * 1024)	/* most bytes one leader writes at once */
#define READ_WINDOW (1024 * 1024)

/* What the log knows of one CF in one segment. */
typedef struct clog_dirty
{
	uint32_t	cf_id;
	uint64_t	last;			/* offset of the CF's last record in the segment */
} clog_dirty;

typedef struct clog_segment
{
	struct clog_segment *next;	/* the list is in id order */
	uint64_t	id;
	char	   *path;
	uint64_t	size;			/* bytes planned: header plus every record assigned */
	bool		closed;			/* no handle is open on it and none will be */
	clog_dirty *dirty;
	size_t		ndirty;
	size_t		capdirty;
} clog_segment;

/* One appender, on its own stack, queued until a leader writes its record. */
typedef struct clog_writer
{
	struct clog_writer *next;
	uint8_t    *rec;			/* the framed record (the appender's memory) */
	size_t		len;
	const uint32_t *cf_ids;
	uint16_t	ncf;
	clog_segment *seg;			/* planned by the leader */
	cf_commitlog_pos pos;
	cf_status  *status;
	bool		done;
	pthread_cond_t *cv;			/* the appending thread's (thread_cv) */
} clog_writer;

struct cf_commitlog
{
	cf_env	   *env;
	char	   *dir;
	cf_commitlog_sync_mode mode;
	int64_t		sync_period_us;
	int64_t		batch_window_us;
	uint64_t	segment_size;
	void	   *lock;

	pthread_mutex_t mu;
	pthread_cond_t io_cv;		/* the I/O token was released */
	pthread_cond_t bg_cv;		/* wakes the background syncer early (close) */
	bool		io_busy;		/* the I/O token is held */
	clog_writer *qhead;
	clog_writer *qtail;
	clog_segment *segs;
	clog_segment *segs_tail;
	clog_segment *active;		/* where new records go; NULL until the first */
	uint64_t	next_id;
	bool		replayed;
	bool		replay_failed;	/* a failed replay is final for this handle */
	bool		closing;
	cf_status  *failure;		/* set once: the log has failed */
	bool		unsynced;		/* bytes reached the OS since the last sync */
	cf_commitlog_pos written_end;
	struct cf_commitlog_stats stats;	/* segments, bytes and failed are computed on demand */
	uint64_t   *found_ids;		/* segments listed by open, sorted, for replay */
	size_t		nfound;

	/* Owned by the I/O token holder. */
	cf_wfile   *wf;
	clog_segment *wf_seg;

	pthread_t	bg;
	bool		bg_running;
};

/* ---- names ---- */

bool
cf_commitlog_segment_name(uint64_t id, char *buf, size_t size)
{
	int			n = snprintf(buf, size, CF_COMMITLOG_PREFIX "%" PRIu64 CF_COMMITLOG_SUFFIX, id);

	return n > 0 && (size_t) n < size;
}

bool
cf_commitlog_parse_segment_name(const char *name, uint64_t *id)
{
	size_t		plen = strlen(CF_COMMITLOG_PREFIX);
	char		canon[64];
	const char *p;
	uint64_t	v = 0;

	if (strncmp(name, CF_COMMITLOG_PREFIX, plen) != 0)
		return false;
	for (p = name + plen; *p >= '0' && *p <= '9'; p++)
	{
		if (v > (UINT64_MAX - 9) / 10)
			return false;
		v = v * 10 + (uint64_t) (*p - '0');
	}
	/* Only the canonical spelling: no sign, no leading zeros, the exact suffix. */
	if (!cf_commitlog_segment_name(v, canon, sizeof(canon)) || strcmp(canon, name) != 0)
		return false;
	*id = v;
	return true;
}

static char *
segment_path(const char *dir, uint64_t id)
{
	char		name[64];

	cf_commitlog_segment_name(id, name, sizeof(name));
	return cf_path_join(dir, name);
}

/* ---- segments and their dirty CFs ---- */

static clog_segment *
segment_new(const char *dir, uint64_t id)
{
	clog_segment *seg = calloc(1, sizeof(*seg));

	if (seg == NULL)
		return NULL;
	if ((seg->path = segment_path(dir, id)) == NULL)
	{
		free(seg);
		return NULL;
	}
	seg->id = id;
	seg->size = CF_COMMITLOG_HEADER_SIZE;
	return seg;
}

static void
segment_free(clog_segment *seg)
{
	if (seg == NULL)
		return;
	free(seg->dirty);
	free(seg->path);
	free(seg);
}

/* Appends seg to the log's list. REQUIRES: mu held (or no other thread yet). */
static void
segment_link(cf_commitlog *log, clog_segment *seg)
{
	if (log->segs_tail)
		log->segs_tail->next = seg;
	else
		log->segs = seg;
	log->segs_tail = seg;
}

/* Notes a record of cf_id at offset in seg. false when out of memory. */
static bool
segment_mark_dirty(clog_segment *seg, uint32_t cf_id, uint64_t offset)
{
	for (size_t i = 0; i < seg->ndirty; i++)
		if (seg->dirty[i].cf_id == cf_id)
		{
			if (seg->dirty[i].last < offset)
				seg->dirty[i].last = offset;
			return true;
		}
	if (seg->ndirty == seg->capdirty)
	{
		size_t		cap = seg->capdirty ? seg->capdirty * 2 : 4;
		clog_dirty *d = realloc(seg->dirty, cap * sizeof(*d));

		if (d == NULL)
			return false;
		seg->dirty = d;
		seg->capdirty = cap;
	}
	seg->dirty[seg->ndirty].cf_id = cf_id;
	seg->dirty[seg->ndirty].last = offset;
	seg->ndirty++;
	return true;
}

/* Forgets cf_id in seg if its last record there lies before pos. */
static void
segment_mark_flushed(clog_segment *seg, uint32_t cf_id, cf_commitlog_pos pos)
{
	for (size_t i = 0; i < seg->ndirty; i++)
	{
		cf_commitlog_pos last = {seg->id, seg->dirty[i].last};

		if (seg->dirty[i].cf_id != cf_id)
			continue;
		if (cf_commitlog_pos_cmp(last, pos) < 0)
			seg->dirty[i] = seg->dirty[--seg->ndirty];
		return;
	}
}

/*
 * Unlinks every retirable segment (closed, not active, no dirty CF) from the list and
 * returns them as a chain for remove_segments. REQUIRES: mu held.
 */
static clog_segment *
take_retirable(cf_commitlog *log)
{
	clog_segment *chain = NULL;
	clog_segment **link = &log->segs;
	clog_segment *prev = NULL;

	while (*link != NULL)
	{
		clog_segment *seg = *link;

		if (seg->closed && seg != log->active && seg->ndirty == 0)
		{
			*link = seg->next;
			seg->next = chain;
			chain = seg;
			log->stats.retired++;
			continue;
		}
		prev = seg;
		link = &seg->next;
	}
	log->segs_tail = prev;
	return chain;
}

/*
 * Deletes the chain's files and frees it, then syncs the directory once. A file already
 * gone is fine. Returns the first error. Called without mu: the chain is ours alone.
 */
static cf_status *
remove_segments(cf_commitlog *log, clog_segment *chain)
{
	cf_status  *first = NULL;
	bool		any = chain != NULL;

	while (chain != NULL)
	{
		clog_segment *next = chain->next;
		cf_status  *s = cf_env_remove(log->env, chain->path);

		if (cf_status_code(s) == CF_ERR_NOT_FOUND)
		{
			cf_status_free(s);
			s = NULL;
		}
		if (s == NULL)
			cf_log_debug(LOG_COMPONENT, "retired %s", chain->path);
		if (first == NULL)
			first = s;
		else
			cf_status_free(s);
		segment_free(chain);
		chain = next;
	}
	if (any && first == NULL)
		first = cf_env_sync_dir(log->env, log->dir);
	return cf_status_wrap(first, "retiring commit log segments");
}

/* ---- the I/O token ---- */

/* Waits for the token and takes it. REQUIRES: mu held. */
static void
io_acquire(cf_commitlog *log)
{
	while (log->io_busy)
		pthread_cond_wait(&log->io_cv, &log->mu);
	log->io_busy = true;
}

/* Releases the token and wakes whoever may want it next. REQUIRES: mu held. */
static void
io_release(cf_commitlog *log)
{
	log->io_busy = false;
	if (log->qhead != NULL)
		pthread_cond_signal(log->qhead->cv);
	pthread_cond_broadcast(&log->io_cv);
}

/* Enters the failed state with s's message, keeping the first failure. REQUIRES: mu held. */
static void
set_failed(cf_commitlog *log, const cf_status *s)
{
	if (log->failure != NULL)
		return;
	log->failure = cf_status_make(CF_ERR_IO, "commit log failed earlier: %s",
								  cf_status_msg(s));
	cf_log_error(LOG_COMPONENT, "%s; every later append fails", cf_status_msg(s));
}

static cf_status *
failed_status(cf_commitlog *log)
{
	return cf_status_make(CF_ERR_IO, "%s", cf_status_msg(log->failure));
}

/*
 * Syncs the token holder's file, naming the segment in the error. *syncs counts it.
 * REQUIRES: the I/O token, mu not held.
 */
static cf_status *
sync_active_file(cf_commitlog *log, uint64_t *syncs)
{
	cf_status  *s;

	if (log->wf == NULL)
		return NULL;
	s = cf_wfile_sync(log->wf);
	if (s == NULL)
		(*syncs)++;
	return cf_status_wrap(s, "commit log segment %" PRIu64, log->wf_seg->id);
}

/*
 * Makes seg the file being written: syncs and closes the previous segment (so nothing
 * in seg is acknowledged before the older one is durable), creates seg with its header,
 * syncs it and its directory entry. REQUIRES: the I/O token, mu not held.
 */
static cf_status *
switch_segment(cf_commitlog *log, clog_segment *seg, uint64_t *syncs)
{
	uint8_t		hdr[CF_COMMITLOG_HEADER_SIZE];
	cf_status  *s;

	if (log->wf != NULL)
	{
		s = sync_active_file(log, syncs);
		if (s == NULL)
			s = cf_status_wrap(cf_wfile_close(log->wf), "commit log segment %" PRIu64,
							   log->wf_seg->id);
		else
			cf_status_free(cf_wfile_close(log->wf));
		log->wf = NULL;
		log->wf_seg = NULL;
		if (s != NULL)
			return s;
	}

	cf_store_be32(hdr, CF_COMMITLOG_MAGIC);
	cf_store_be32(hdr + 4, CF_COMMITLOG_VERSION);
	cf_store_be64(hdr + 8, seg->id);
	cf_store_be32(hdr + 16, cf_crc32c_mask(cf_crc32c(hdr, 16)));

	if ((s = cf_env_open_write(log->env, seg->path, CF_OPEN_CREATE_LOG, &log->wf)) != NULL)
		return cf_status_wrap(s, "commit log segment %" PRIu64, seg->id);
	log->wf_seg = seg;
	if ((s = cf_wfile_append(log->wf, hdr, sizeof(hdr))) != NULL)
		return cf_status_wrap(s, "commit log segment %" PRIu64, seg->id);
	if ((s = sync_active_file(log, syncs)) != NULL)
		return s;
	return cf_status_wrap(cf_env_sync_dir(log->env, log->dir),
						  "commit log segment %" PRIu64, seg->id);
}

/* Marks every segment but the one being written closed. REQUIRES: mu and the token. */
static void
mark_closed(cf_commitlog *log)
{
	for (clog_segment *seg = log->segs; seg != NULL; seg = seg->next)
		if (seg != log->wf_seg && seg != log->active)
			seg->closed = true;
}

/* ---- append: the write group ---- */

size_t
cf_commitlog_record_prefix(size_t n)
{
	return CF_COMMITLOG_RECORD_HEADER + CF_COMMITLOG_BODY_MIN + 4 * n;
}

/*
 * Checks a record of n CFs and a payload of payload_len bytes against the format: 1 to
 * 65535 CFs, a body of at most CF_COMMITLOG_MAX_BODY. Before anything is sized by them.
 */
static cf_status *
check_record(size_t n, size_t payload_len)
{
	size_t		ids;

	/* a record no CF owns would keep no segment alive: retirement would drop it */
	if (n == 0 || n > UINT16_MAX)
		return cf_status_make(CF_ERR_INVALID,
							  "commit log record names %zu column families; 1 to %u",
							  n, (unsigned) UINT16_MAX);
	ids = CF_COMMITLOG_BODY_MIN + 4 * n;	/* far below the limit for 65535 CFs */
	if (payload_len > CF_COMMITLOG_MAX_BODY - ids)
		return cf_status_make(CF_ERR_TOO_LARGE,
							  "commit log record of %zu bytes exceeds the limit of %u bytes",
							  payload_len + ids, (unsigned) CF_COMMITLOG_MAX_BODY);
	return NULL;
}

/*
 * Frames the record in r (len bytes: cf_commitlog_record_prefix(n) bytes of room, then
 * the payload) in place: length | masked CRC | ncf | cf ids | payload.
 */
static cf_status *
frame_record(const uint32_t *cf_ids, size_t n, uint8_t *r, size_t len)
{
	size_t		prefix = cf_commitlog_record_prefix(n);
	size_t		body;
	uint8_t    *p;
	uint32_t	crc;
	cf_status  *s;

	if ((s = check_record(n, len >= prefix ? len - prefix : 0)) != NULL)
		return s;
	if (len < prefix)
		return cf_status_make(CF_ERR_INVALID, "commit log record of %zu bytes is shorter "
							  "than its own header", len);
	body = len - CF_COMMITLOG_RECORD_HEADER;

	cf_store_be32(r, (uint32_t) body);
	p = r + CF_COMMITLOG_RECORD_HEADER;
	p[0] = (uint8_t) (n >> 8);
	p[1] = (uint8_t) n;
	p += 2;
	for (size_t i = 0; i < n; i++, p += 4)
		cf_store_be32(p, cf_ids[i]);
	crc = cf_crc32c(r, 4);
	crc = cf_crc32c_extend(crc, r + CF_COMMITLOG_RECORD_HEADER, body);
	cf_store_be32(r + 4, cf_crc32c_mask(crc));
	return NULL;
}

/*
 * Takes the head of the queue and as many followers as fit in GROUP_MAX_BYTES off the
 * queue, assigns positions, creates segment entries for rollovers and marks CFs dirty.
 * Returns the group's last member, or NULL (log failed) when out of memory.
 * REQUIRES: mu and the token held; the queue is not empty.
 */
static clog_writer *
plan_group(cf_commitlog *log)
{
	clog_writer *w = log->qhead;
	clog_writer *last = NULL;
	size_t		bytes = 0;

	while (w != NULL && (last == NULL || bytes + w->len <= GROUP_MAX_BYTES))
	{
		clog_segment *seg = log->active;

		if (seg == NULL ||
			(seg->size > CF_COMMITLOG_HEADER_SIZE && seg->size + w->len > log->segment_size))
		{
			if ((seg = segment_new(log->dir, log->next_id)) == NULL)
				return NULL;
			log->next_id++;
			segment_link(log, seg);
			log->active = seg;
		}
		w->seg = seg;
		w->pos.segment = seg->id;
		w->pos.offset = seg->size;
		seg->size += w->len;
		for (uint16_t i = 0; i < w->ncf; i++)
			if (!segment_mark_dirty(seg, w->cf_ids[i], w->pos.offset))
				return NULL;
		bytes += w->len;
		last = w;
		w = w->next;
	}
	log->qhead = w;
	if (w == NULL)
		log->qtail = NULL;
	last->next = NULL;
	return last;
}

/*
 * Writes the group's records, rolling over where planned, then syncs (BATCH) or
 * flushes to the OS (PERIODIC). REQUIRES: the token, mu not held.
 */
static cf_status *
write_group(cf_commitlog *log, clog_writer *group, uint64_t *syncs)
{
	cf_status  *s;

	for (clog_writer *w = group; w != NULL; w = w->next)
	{
		if (w->seg != log->wf_seg && (s = switch_segment(log, w->seg, syncs)) != NULL)
			return s;
		if ((s = cf_wfile_append(log->wf, w->rec, w->len)) != NULL)
			return cf_status_wrap(s, "commit log segment %" PRIu64, w->seg->id);
	}
	if (log->mode == CF_COMMITLOG_BATCH)
		return sync_active_file(log, syncs);
	return cf_status_wrap(cf_wfile_flush(log->wf), "commit log segment %" PRIu64,
						  log->wf_seg->id);
}

/* Waits up to us on w's condition variable (nobody signals it meanwhile). REQUIRES: mu. */
static void
timed_wait(pthread_cond_t *cv, pthread_mutex_t *mu, int64_t us)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	ts.tv_sec += us / 1000000;
	ts.tv_nsec += (long) (us % 1000000) * 1000;
	if (ts.tv_nsec >= 1000000000L)
	{
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000L;
	}
	pthread_cond_timedwait(cv, mu, &ts);
}

/* A condition variable on the monotonic clock, for timed_wait. */
static int
cond_init_mono(pthread_cond_t *cv)
{
	pthread_condattr_t attr;
	int			rc;

	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	rc = pthread_cond_init(cv, &attr);
	pthread_condattr_destroy(&attr);
	return rc;
}

/*
 * The calling thread's condition variable for its appends, made on its first one: a
 * thread is in one append at a time, so one each serves, and an append costs no
 * init and destroy. Never destroyed (a process-private one holds no resources).
 * NULL if it cannot be made.
 */
static pthread_cond_t *
thread_cv(void)
{
	static __thread pthread_cond_t cv;
	static __thread bool ready;

	if (!ready && cond_init_mono(&cv) != 0)
		return NULL;
	ready = true;
	return &cv;
}

/*
 * Leads one write group: the caller is the queue's head and holds the token. Returns
 * with mu held and the token released; the caller's own record is done.
 */
static void
lead_group(cf_commitlog *log, clog_writer *self)
{
	clog_writer *group = self;
	clog_writer *last;
	clog_segment *retire;
	uint64_t	syncs = 0;
	cf_status  *s = NULL;

	if (log->mode == CF_COMMITLOG_BATCH && log->batch_window_us > 0)
		timed_wait(self->cv, &log->mu, log->batch_window_us);

	if ((last = plan_group(log)) == NULL)
	{
		/* Out of memory mid-plan: positions were handed out, so the log cannot go on. */
		s = cf_status_errno(ENOMEM, "planning a commit log write");
		log->qhead = self->next;
		if (log->qhead == NULL)
			log->qtail = NULL;
		self->next = NULL;
		last = self;
	}
	else
	{
		pthread_mutex_unlock(&log->mu);
		s = write_group(log, group, &syncs);
		pthread_mutex_lock(&log->mu);
	}

	log->stats.groups++;
	log->stats.syncs += syncs;
	if (s != NULL)
		set_failed(log, s);
	else
	{
		for (clog_writer *w = group; w != NULL; w = w->next)
			log->stats.records++;
		log->written_end.segment = last->pos.segment;
		log->written_end.offset = last->pos.offset + last->len;
		if (log->mode == CF_COMMITLOG_PERIODIC)
			log->unsynced = true;
	}
	for (clog_writer *w = group; w != NULL;)
	{
		clog_writer *next = w->next;

		if (s != NULL)
			w->status = (w == group) ? s : cf_status_make(cf_status_code(s), "%s",
														 cf_status_msg(s));
		w->done = true;
		if (w != self)
			pthread_cond_signal(w->cv);
		w = next;
	}
	mark_closed(log);
	retire = take_retirable(log);
	io_release(log);
	if (retire != NULL)
	{
		pthread_mutex_unlock(&log->mu);
		cf_status_free(remove_segments(log, retire));
		pthread_mutex_lock(&log->mu);
	}
}

cf_status *
cf_commitlog_append(cf_commitlog *log, const uint32_t *cf_ids, size_t n, cf_slice payload,
					cf_commitlog_pos *pos)
{
	size_t		prefix = cf_commitlog_record_prefix(n);
	uint8_t    *rec;
	cf_status  *s;

	if ((s = check_record(n, payload.len)) != NULL)
		return s;
	if ((rec = malloc(prefix + payload.len)) == NULL)
		return cf_status_errno(ENOMEM, "encoding a commit log record of %zu bytes",
							   prefix + payload.len);
	if (payload.len > 0)
		memcpy(rec + prefix, payload.p, payload.len);
	s = cf_commitlog_append_framed(log, cf_ids, n, rec, prefix + payload.len, pos);
	free(rec);
	return s;
}

cf_status *
cf_commitlog_append_framed(cf_commitlog *log, const uint32_t *cf_ids, size_t n,
						   uint8_t *rec, size_t len, cf_commitlog_pos *pos)
{
	clog_writer w;
	cf_status  *s;

	if ((s = frame_record(cf_ids, n, rec, len)) != NULL)
		return s;
	w.rec = rec;
	w.len = len;
	w.next = NULL;
	w.cf_ids = cf_ids;
	w.ncf = (uint16_t) n;
	w.seg = NULL;
	w.status = NULL;
	w.done = false;
	if ((w.cv = thread_cv()) == NULL)
		return cf_status_make(CF_ERR_INTERNAL, "commit log: cannot make a condition variable");

	pthread_mutex_lock(&log->mu);
	if (log->replay_failed)
		s = cf_status_make(CF_ERR_INVALID,
						   "commit log %s: its replay failed; reopen it once the damage "
						   "is dealt with", log->dir);
	else if (!log->replayed)
		s = cf_status_make(CF_ERR_INVALID,
						   "commit log %s: replay must run before the first append", log->dir);
	else if (log->failure != NULL)
		s = failed_status(log);
	if (s != NULL)
		goto out;

	if (log->qtail)
		log->qtail->next = &w;
	else
		log->qhead = &w;
	log->qtail = &w;

	while (!w.done && !(log->qhead == &w && !log->io_busy))
		pthread_cond_wait(w.cv, &log->mu);
	if (!w.done)
	{
		/* The head, with the token free: lead, or fail at once if the log has failed. */
		if (log->failure != NULL)
		{
			log->qhead = w.next;
			if (log->qhead == NULL)
				log->qtail = NULL;
			if (log->qhead != NULL)
				pthread_cond_signal(log->qhead->cv);
			s = failed_status(log);
			goto out;
		}
		log->io_busy = true;
		lead_group(log, &w);
	}
	s = w.status;
	if (s == NULL && pos != NULL)
		*pos = w.pos;
out:
	pthread_mutex_unlock(&log->mu);
	return s;
}

void
cf_commitlog_start_after(cf_commitlog *log, cf_commitlog_pos pos)
{
	pthread_mutex_lock(&log->mu);
	if (log->active == NULL && log->next_id <= pos.segment)
	{
		log->next_id = pos.segment + 1;
		log->written_end = (cf_commitlog_pos) {log->next_id, 0};
	}
	pthread_mutex_unlock(&log->mu);
}

cf_commitlog_pos
cf_commitlog_position(cf_commitlog *log)
{
	cf_commitlog_pos pos;

	pthread_mutex_lock(&log->mu);
	pos = log->written_end;
	pthread_mutex_unlock(&log->mu);
	return pos;
}

cf_status *
cf_commitlog_cf_flushed(cf_commitlog *log, uint32_t cf_id, cf_commitlog_pos pos)
{
	clog_segment *retire;

	pthread_mutex_lock(&log->mu);
	for (clog_segment *seg = log->segs; seg != NULL && seg->id <= pos.segment; seg = seg->next)
		segment_mark_flushed(seg, cf_id, pos);
	retire = take_retirable(log);
	pthread_mutex_unlock(&log->mu);
	return remove_segments(log, retire);
}

/* ---- syncing ---- */

/*
 * Syncs the active file if anything reached the OS unsynced. A failure fails the log.
 * REQUIRES: mu held, the token not held by the caller; returns with mu held.
 */
static cf_status *
sync_locked(cf_commitlog *log)
{
	uint64_t	syncs = 0;
	cf_status  *s = NULL;

	io_acquire(log);
	if (log->failure != NULL)
		s = failed_status(log);
	else if (log->unsynced && log->wf != NULL)
	{
		pthread_mutex_unlock(&log->mu);
		s = sync_active_file(log, &syncs);
		pthread_mutex_lock(&log->mu);
		log->stats.syncs += syncs;
		if (s != NULL)
			set_failed(log, s);
		else
			log->unsynced = false;
	}
	io_release(log);
	return s;
}

cf_status *
cf_commitlog_sync(cf_commitlog *log)
{
	cf_status  *s;

	pthread_mutex_lock(&log->mu);
	s = sync_locked(log);
	pthread_mutex_unlock(&log->mu);
	return s;
}

/* The PERIODIC mode's background syncer. */
static void *
bg_main(void *arg)
{
	cf_commitlog *log = arg;

	pthread_mutex_lock(&log->mu);
	while (!log->closing)
	{
		timed_wait(&log->bg_cv, &log->mu, log->sync_period_us);
		if (log->closing || log->failure != NULL || !log->unsynced)
			continue;
		/* The error is the log's failed state now; appenders report it. */
		cf_status_free(sync_locked(log));
	}
	pthread_mutex_unlock(&log->mu);
	return NULL;
}

void
cf_commitlog_stats(cf_commitlog *log, struct cf_commitlog_stats *stats)
{
	pthread_mutex_lock(&log->mu);
	*stats = log->stats;
	stats->segments = 0;
	stats->bytes = 0;
	for (clog_segment *seg = log->segs; seg != NULL; seg = seg->next)
	{
		stats->segments++;
		stats->bytes += seg->size;
	}
	stats->failed = log->failure != NULL;
	pthread_mutex_unlock(&log->mu);
}

/* ---- replay ---- */

/* A bounded read window over one segment file. */
typedef struct clog_reader
{
	cf_rfile   *f;
	uint64_t	size;
	uint8_t    *buf;
	size_t		cap;
	uint64_t	win_off;
	size_t		win_len;
} clog_reader;

/*
 * Points *out at n bytes at off. REQUIRES: off + n <= r->size; n <= the largest record.
 */
static cf_status *
reader_get(clog_reader *r, uint64_t off, size_t n, const uint8_t **out)
{
	size_t		want;

	if (off >= r->win_off && off + n <= r->win_off + r->win_len)
	{
		*out = r->buf + (off - r->win_off);
		return NULL;
	}
	want = n > READ_WINDOW ? n : READ_WINDOW;
	if (want > r->size - off)
		want = (size_t) (r->size - off);
	if (want > r->cap)
	{
		uint8_t    *b = realloc(r->buf, want);

		if (b == NULL)
			return cf_status_errno(ENOMEM, "reading %s", r->f->path);
		r->buf = b;
		r->cap = want;
	}
	r->win_len = 0;
	if (want > 0)
	{
		cf_status  *s = cf_rfile_read_exact(r->f, off, r->buf, want);

		if (s != NULL)
			return s;
	}
	r->win_off = off;
	r->win_len = want;
	*out = r->buf;
	return NULL;
}

/* Cuts the torn tail of path at size and makes the cut durable. */
static cf_status *
truncate_tail(cf_env *env, const char *path, uint64_t size)
{
	cf_wfile   *f;
	cf_status  *s;

	if ((s = cf_env_truncate(env, path, size)) != NULL)
		return s;
	if ((s = cf_env_open_write(env, path, CF_OPEN_APPEND, &f)) != NULL)
		return s;
	s = cf_wfile_sync(f);
	if (s == NULL)
		s = cf_wfile_close(f);
	else
		cf_status_free(cf_wfile_close(f));
	return s;
}

/*
 * Whether every byte of r from off to its end is zero: the space a log file reserves
 * ahead of its appends (CF_OPEN_CREATE_LOG), left behind by a process that died.
 */
static cf_status *
zeros_to_end(clog_reader *r, uint64_t off, bool *all_zero)
{
	*all_zero = true;
	while (off < r->size && *all_zero)
	{
		size_t		n = r->size - off < READ_WINDOW ? (size_t) (r->size - off) : READ_WINDOW;
		const uint8_t *p;
		cf_status  *s;

		if ((s = reader_get(r, off, n, &p)) != NULL)
			return s;
		for (size_t i = 0; i < n; i++)
			if (p[i] != 0)
			{
				*all_zero = false;
				break;
			}
		off += n;
	}
	return NULL;
}

/* Checks a segment header; a reason string if it is bad, NULL if good. */
static const char *
check_header(const uint8_t *h, uint64_t id, cf_code *code)
{
	*code = CF_ERR_CORRUPTION;
	if (cf_load_be32(h) != CF_COMMITLOG_MAGIC)
		return "bad magic number";
	if (cf_crc32c_unmask(cf_load_be32(h + 16)) != cf_crc32c(h, 16))
		return "header checksum mismatch";
	if (cf_load_be32(h + 4) != CF_COMMITLOG_VERSION)
	{
		*code = CF_ERR_NOT_SUPPORTED;
		return "unsupported format version";
	}
	if (cf_load_be64(h + 8) != id)
		return "header names another segment id";
	return NULL;
}

/* What one segment's replay found; the segment entry is handed to the log. */
typedef struct clog_replay_ctx
{
	cf_commitlog *log;
	cf_commitlog_replay_fn fn;
	void	   *arg;
	cf_commitlog_replay_stats *stats;
} clog_replay_ctx;

/*
 * Reads the records of seg from r, starting after the header, calling back for each.
 * On a damaged record sets *bad_off and *why and returns NULL; on success *why is NULL.
 */
static cf_status *
replay_records(clog_replay_ctx *ctx, clog_segment *seg, clog_reader *r,
			   uint64_t *bad_off, const char **why)
{
	uint64_t	off = CF_COMMITLOG_HEADER_SIZE;
	cf_status  *s;

	*why = NULL;
	while (off < r->size)
	{
		const uint8_t *h;
		const uint8_t *body;
		uint32_t	len;
		uint32_t	crc;
		size_t		ncf;
		cf_commitlog_pos pos = {seg->id, off};

		*bad_off = off;
		if (r->size - off < CF_COMMITLOG_RECORD_HEADER)
		{
			*why = "record header cut short";
			return NULL;
		}
		if ((s = reader_get(r, off, CF_COMMITLOG_RECORD_HEADER, &h)) != NULL)
			return s;
		len = cf_load_be32(h);
		crc = cf_crc32c_unmask(cf_load_be32(h + 4));
		if (len < CF_COMMITLOG_BODY_MIN || len > CF_COMMITLOG_MAX_BODY)
		{
			*why = len == 0 ? "zero length" : "record length out of range";
			return NULL;
		}
		if (len > r->size - off - CF_COMMITLOG_RECORD_HEADER)
		{
			*why = "record runs past the end of the file";
			return NULL;
		}
		if ((s = reader_get(r, off, CF_COMMITLOG_RECORD_HEADER + len, &h)) != NULL)
			return s;
		body = h + CF_COMMITLOG_RECORD_HEADER;
		if (cf_crc32c_extend(cf_crc32c(h, 4), body, len) != crc)
		{
			*why = "record checksum mismatch";
			return NULL;
		}

		/* The checksum holds, so this is what was written: a bad body is never a tail. */
		ncf = ((size_t) body[0] << 8) | body[1];
		if (CF_COMMITLOG_BODY_MIN + 4 * ncf > len)
			return cf_status_make(CF_ERR_CORRUPTION,
								  "commit log segment %s: record at offset %" PRIu64
								  " names %zu column families in a %u-byte body",
								  seg->path, off, ncf, len);
		for (size_t i = 0; i < ncf; i++)
			if (!segment_mark_dirty(seg, cf_load_be32(body + 2 + 4 * i), off))
				return cf_status_errno(ENOMEM, "replaying %s", seg->path);
		if ((s = ctx->fn(ctx->arg, cf_slice_of(body + 2 + 4 * ncf, len - 2 - 4 * ncf), pos)) != NULL)
			return cf_status_wrap(s, "replaying %s at offset %" PRIu64, seg->path, off);
		ctx->stats->records++;
		ctx->stats->bytes += CF_COMMITLOG_RECORD_HEADER + len;
		off += CF_COMMITLOG_RECORD_HEADER + len;
		seg->size = off;
	}
	return NULL;
}

/*
 * Replays one segment file. last: it is the newest, where a torn tail is expected.
 * On success the segment entry joins the log's list (unless a torn header removed the
 * file).
 */
static cf_status *
replay_segment(clog_replay_ctx *ctx, uint64_t id, bool last)
{
	cf_commitlog *log = ctx->log;
	clog_reader r = {0};
	clog_segment *seg;
	const uint8_t *h;
	const char *why;
	uint64_t	bad_off = 0;
	cf_code		code = CF_ERR_CORRUPTION;
	bool		keep = false;	/* the file stays, with its entry on the list */
	bool		zero_tail = false;
	cf_status  *s;

	if ((seg = segment_new(log->dir, id)) == NULL)
		return cf_status_errno(ENOMEM, "replaying commit log segment %" PRIu64, id);
	seg->closed = true;
	if ((s = cf_env_open_read(log->env, seg->path, &r.f)) != NULL)
		goto out;
	r.size = cf_rfile_size(r.f);
	ctx->stats->segments++;

	if (r.size < CF_COMMITLOG_HEADER_SIZE)
		why = "header cut short";
	else if ((s = reader_get(&r, 0, CF_COMMITLOG_HEADER_SIZE, &h)) != NULL)
		goto out;
	else
		why = check_header(h, id, &code);
	if (why != NULL)
	{
		/*
		 * A segment is synced with its header before any record goes in it, so a bad
		 * header followed by nothing, or by reserved zeros only, is a torn creation.
		 */
		if (last && code != CF_ERR_NOT_SUPPORTED && r.size > CF_COMMITLOG_HEADER_SIZE &&
			(s = zeros_to_end(&r, CF_COMMITLOG_HEADER_SIZE, &zero_tail)) != NULL)
			goto out;
		if (last && code != CF_ERR_NOT_SUPPORTED &&
			(r.size <= CF_COMMITLOG_HEADER_SIZE || zero_tail))
		{
			cf_log_warn(LOG_COMPONENT, "commit log segment %s: %s; a torn segment creation, "
						"removing it (%" PRIu64 " bytes ignored)", seg->path, why, r.size);
			ctx->stats->torn_bytes += r.size;
			if ((s = cf_env_remove(log->env, seg->path)) == NULL)
				s = cf_env_sync_dir(log->env, log->dir);
			goto out;
		}
		s = cf_status_make(code, "commit log segment %s: %s at offset 0", seg->path, why);
		goto out;
	}

	if ((s = replay_records(ctx, seg, &r, &bad_off, &why)) != NULL)
		goto out;
	if (why == NULL)
	{
		keep = true;
		goto out;
	}
	if (last && (s = zeros_to_end(&r, bad_off, &zero_tail)) != NULL)
		goto out;
	if (zero_tail)
	{
		/* Not damage: the reserved space of a segment whose writer never closed it. */
		cf_log_info(LOG_COMPONENT, "commit log segment %s: %" PRIu64 " bytes of reserved "
					"space after the last record at offset %" PRIu64 "; cutting them off",
					seg->path, r.size - bad_off, bad_off);
		ctx->stats->reserved_bytes += r.size - bad_off;
	}
	else if (!last)
	{
		s = cf_status_make(CF_ERR_CORRUPTION,
						   "commit log segment %s: %s at offset %" PRIu64
						   " (%" PRIu64 " bytes follow); it is not the last segment, "
						   "so this is damage, not a torn write",
						   seg->path, why, bad_off, r.size - bad_off);
		goto out;
	}
	else
	{
		cf_log_warn(LOG_COMPONENT, "commit log segment %s: torn tail at offset %" PRIu64
					" (%s); ignoring %" PRIu64 " bytes", seg->path, bad_off, why,
					r.size - bad_off);
		ctx->stats->torn_bytes += r.size - bad_off;
	}
	cf_rfile_close(r.f);
	r.f = NULL;
	s = truncate_tail(log->env, seg->path, bad_off);
	keep = true;

out:
	cf_rfile_close(r.f);
	free(r.buf);
	if (s == NULL && keep)
	{
		segment_link(log, seg);
		return NULL;
	}
	segment_free(seg);
	return s;
}

cf_status *
cf_commitlog_replay(cf_commitlog *log, cf_commitlog_replay_fn fn, void *arg,
					cf_commitlog_replay_stats *stats)
{
	cf_commitlog_replay_stats local = {0};
	clog_replay_ctx ctx = {log, fn, arg, stats ? stats : &local};
	clog_segment *retire;
	cf_status  *s = NULL;

	*ctx.stats = local;
	if (log->replayed || log->replay_failed)
		return cf_status_make(CF_ERR_INVALID, "commit log %s: replay runs once", log->dir);
	for (size_t i = 0; i < log->nfound && s == NULL; i++)
		s = replay_segment(&ctx, log->found_ids[i], i + 1 == log->nfound);
	if (s != NULL)
	{
		/* segments replayed so far stay linked: a second attempt would link them again */
		log->replay_failed = true;
		return s;
	}

	pthread_mutex_lock(&log->mu);
	log->replayed = true;
	retire = take_retirable(log);	/* segments without a record */
	pthread_mutex_unlock(&log->mu);
	if (ctx.stats->segments > 0)
		cf_log_info(LOG_COMPONENT, "replayed %" PRIu64 " records (%" PRIu64
					" bytes) from %" PRIu64 " segments in %s",
					ctx.stats->records, ctx.stats->bytes, ctx.stats->segments, log->dir);
	return remove_segments(log, retire);
}

/* ---- open and close ---- */

typedef struct clog_listing
{
	uint64_t   *ids;
	size_t		n;
	size_t		cap;
	bool		nomem;
} clog_listing;

static bool
list_segment(void *arg, const char *name)
{
	clog_listing *l = arg;
	uint64_t	id;

	if (!cf_commitlog_parse_segment_name(name, &id))
		return true;
	if (l->n == l->cap)
	{
		size_t		cap = l->cap ? l->cap * 2 : 16;
		uint64_t   *ids = realloc(l->ids, cap * sizeof(*ids));

		if (ids == NULL)
		{
			l->nomem = true;
			return false;
		}
		l->ids = ids;
		l->cap = cap;
	}
	l->ids[l->n++] = id;
	return true;
}

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t	x = *(const uint64_t *) a;
	uint64_t	y = *(const uint64_t *) b;

	return x < y ? -1 : x > y;
}

static cf_status *
check_options(const cf_commitlog_options *o)
{
	if (o == NULL || o->env == NULL || o->dir == NULL || o->dir[0] == '\0')
		return cf_status_make(CF_ERR_INVALID, "commit log: env and dir are required");
	if (o->sync_mode != CF_COMMITLOG_PERIODIC && o->sync_mode != CF_COMMITLOG_BATCH)
		return cf_status_make(CF_ERR_INVALID, "commit log: unknown sync mode %d",
							  (int) o->sync_mode);
	if (o->sync_period_us < 0 || o->batch_window_us < 0)
		return cf_status_make(CF_ERR_INVALID,
							  "commit log: sync_period_us and batch_window_us must not be negative");
	if (o->segment_size != 0 && o->segment_size < 2 * CF_COMMITLOG_HEADER_SIZE)
		return cf_status_make(CF_ERR_INVALID,
							  "commit log: segment_size %" PRIu64 " is too small",
							  o->segment_size);
	return NULL;
}

/* Frees the log's memory (files and lock must be closed already). */
static void
log_free(cf_commitlog *log)
{
	while (log->segs != NULL)
	{
		clog_segment *next = log->segs->next;

		segment_free(log->segs);
		log->segs = next;
	}
	cf_status_free(log->failure);
	free(log->found_ids);
	free(log->dir);
	pthread_cond_destroy(&log->bg_cv);
	pthread_cond_destroy(&log->io_cv);
	pthread_mutex_destroy(&log->mu);
	free(log);
}

cf_status *
cf_commitlog_open(const cf_commitlog_options *opts, cf_commitlog **out)
{
	cf_commitlog *log;
	clog_listing l = {0};
	char	   *lock_path;
	uint64_t	clock_id;
	size_t		dlen;
	cf_status  *s;

	*out = NULL;
	if ((s = check_options(opts)) != NULL)
		return s;
	if ((log = calloc(1, sizeof(*log))) == NULL || (log->dir = strdup(opts->dir)) == NULL)
	{
		free(log);
		return cf_status_errno(ENOMEM, "opening commit log %s", opts->dir);
	}
	/* One spelling of the directory, as env_fault's crash bookkeeping wants. */
	dlen = strlen(log->dir);
	while (dlen > 1 && log->dir[dlen - 1] == '/')
		log->dir[--dlen] = '\0';
	log->env = opts->env;
	log->mode = opts->sync_mode;
	log->sync_period_us = opts->sync_period_us ? opts->sync_period_us
		: CF_COMMITLOG_DEFAULT_SYNC_PERIOD_US;
	log->batch_window_us = opts->batch_window_us;
	log->segment_size = opts->segment_size ? opts->segment_size
		: CF_COMMITLOG_DEFAULT_SEGMENT_SIZE;
	pthread_mutex_init(&log->mu, NULL);
	pthread_cond_init(&log->io_cv, NULL);
	cond_init_mono(&log->bg_cv);

	if ((s = cf_env_mkdirs(log->env, log->dir)) != NULL)
		goto fail;
	if ((lock_path = cf_path_join(log->dir, CF_COMMITLOG_LOCK_NAME)) == NULL)
	{
		s = cf_status_errno(ENOMEM, "opening commit log %s", log->dir);
		goto fail;
	}
	s = cf_env_lock(log->env, lock_path, &log->lock);
	free(lock_path);
	if (s != NULL)
		goto fail;
	if ((s = cf_env_list_dir(log->env, log->dir, list_segment, &l)) == NULL && l.nomem)
		s = cf_status_errno(ENOMEM, "listing commit log %s", log->dir);
	if (s != NULL)
	{
		free(l.ids);
		cf_env_unlock(log->env, log->lock);
		goto fail;
	}
	if (l.n > 1)
		qsort(l.ids, l.n, sizeof(*l.ids), cmp_u64);
	log->found_ids = l.ids;
	log->nfound = l.n;

	clock_id = (uint64_t) (cf_env_now_micros(log->env) / 1000);
	log->next_id = l.n > 0 && l.ids[l.n - 1] >= clock_id ? l.ids[l.n - 1] + 1 : clock_id;
	log->written_end.segment = log->next_id;
	log->written_end.offset = 0;

	if (log->mode == CF_COMMITLOG_PERIODIC)
	{
		if (pthread_create(&log->bg, NULL, bg_main, log) != 0)
		{
			s = cf_status_make(CF_ERR_INTERNAL, "commit log %s: cannot start the syncer thread",
							   log->dir);
			cf_env_unlock(log->env, log->lock);
			goto fail;
		}
		log->bg_running = true;
		cf_thread_name(log->bg, "cf-clog-sync");
	}
	*out = log;
	return NULL;

fail:
	log_free(log);
	return cf_status_wrap(s, "opening commit log");
}

cf_status *
cf_commitlog_close(cf_commitlog *log)
{
	uint64_t	syncs = 0;
	cf_status  *s = NULL;

	if (log == NULL)
		return NULL;
	pthread_mutex_lock(&log->mu);
	log->closing = true;
	pthread_cond_broadcast(&log->bg_cv);
	pthread_mutex_unlock(&log->mu);
	if (log->bg_running)
		pthread_join(log->bg, NULL);

	pthread_mutex_lock(&log->mu);
	io_acquire(log);
	pthread_mutex_unlock(&log->mu);
	if (log->wf != NULL)
	{
		if (log->failure == NULL && log->mode == CF_COMMITLOG_PERIODIC && log->unsynced)
			s = sync_active_file(log, &syncs);
		if (s == NULL)
			s = cf_wfile_close(log->wf);
		else
			cf_status_free(cf_wfile_close(log->wf));
	}
	cf_env_unlock(log->env, log->lock);
	log_free(log);
	return cf_status_wrap(s, "closing commit log");
}
