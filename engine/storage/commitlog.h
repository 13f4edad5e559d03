/*
 * storage/commitlog.h — the commit log: every mutation is appended here, and made
 * durable as the sync mode says, before it is applied to a memtable; after a crash,
 * replaying it rebuilds the memtables that were not flushed yet. Cassandra 0.7's
 * CommitLog, with LevelDB's checksummed records and torn-tail rules.
 *
 * The log is a directory of segment files, CommitLog-<id>.log, written one after the
 * other; the on-disk format is engine/doc/commitlog_format.md, and its constants are
 * below. Payloads are opaque bytes (an encoded row mutation); each record also names
 * the column families (CF ids) it touches, so that a segment can be deleted once every
 * one of them has been flushed past it.
 *
 * Design assumptions:
 *  - One process uses a directory at a time: open takes an exclusive lock on
 *    <dir>/LOCK, and a second open fails with CF_ERR_BUSY.
 *  - Two sync modes, as in Cassandra. PERIODIC: append returns once its record is
 *    in the OS (page cache) and a background thread syncs every sync_period_us, so a
 *    power loss may lose up to that much acknowledged work. BATCH: append returns only
 *    after an fsync covering its record; concurrent appenders share one fsync (group
 *    commit, LevelDB's writer queue): the first waiting appender leads, writes every
 *    record queued before it started, syncs once and wakes the others.
 *  - A failed write or fsync puts the log into a failed state for good: what reached
 *    the disk after a failed fsync is unknown (PostgreSQL's fsync lesson), so every
 *    later append fails with CF_ERR_IO. In batch mode every record acknowledged before
 *    the failure was synced and stays. In periodic mode records acknowledged since the
 *    last periodic sync were never promised durable, and after a failed write they are
 *    not synced again (the file refuses further syncs): a crash then loses them, the
 *    same window periodic mode always risks.
 *  - Replay ends at a torn tail in the last segment (a crash mid-write) and succeeds;
 *    damage anywhere else is CF_ERR_CORRUPTION. Replay truncates the torn tail and the
 *    log then starts a new segment, so older segments are always whole.
 *  - Segment ids grow across restarts: a new log starts at max(largest existing id + 1,
 *    the wall clock in milliseconds), as Cassandra does, and past every position the
 *    owner says it stored elsewhere (cf_commitlog_start_after: an SSTable's "flushed up
 *    to"), so those stay ordered after every segment was deleted, even when the log is
 *    opened again within the same millisecond or the clock steps back.
 *
 * Thread safety: cf_commitlog_append, _position, _cf_flushed, _sync and _stats may be
 * called from any number of threads at once. cf_commitlog_replay must run alone, once,
 * before the first append; cf_commitlog_close must run when no other call is under way.
 */
#ifndef CF_STORAGE_COMMITLOG_H
#define CF_STORAGE_COMMITLOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/env.h"
#include "util/slice.h"
#include "util/status.h"

/* ---- format constants (engine/doc/commitlog_format.md) ---- */

#define CF_COMMITLOG_PREFIX "CommitLog-"	/* segment file: CommitLog-<id>.log */
#define CF_COMMITLOG_SUFFIX ".log"
#define CF_COMMITLOG_LOCK_NAME "LOCK"

#define CF_COMMITLOG_MAGIC 0x43464c47u	/* "CFLG", first 4 bytes of a segment */
#define CF_COMMITLOG_VERSION 1u
/* magic u32 | version u32 | segment id u64 | masked CRC-32C of those 16 bytes u32 */
#define CF_COMMITLOG_HEADER_SIZE 20u

/* length u32 | masked CRC-32C u32 (of the length and the body) | body */
#define CF_COMMITLOG_RECORD_HEADER 8u
/* body: CF id count u16 | CF ids u32 each | payload */
#define CF_COMMITLOG_BODY_MIN 2u
/* Largest body a record may have; a larger length on disk is corruption. */
#define CF_COMMITLOG_MAX_BODY (64u * 1024 * 1024)

#define CF_COMMITLOG_DEFAULT_SEGMENT_SIZE (128ull * 1024 * 1024)
#define CF_COMMITLOG_DEFAULT_SYNC_PERIOD_US 10000000	/* Cassandra's 10 s */

/* ---- positions ---- */

/*
 * A place in the log: a record's position is where its length field starts. Positions
 * are totally ordered (segment id, then offset), across restarts too.
 */
typedef struct cf_commitlog_pos
{
	uint64_t	segment;
	uint64_t	offset;
} cf_commitlog_pos;

static inline int
cf_commitlog_pos_cmp(cf_commitlog_pos a, cf_commitlog_pos b)
{
	if (a.segment != b.segment)
		return a.segment < b.segment ? -1 : 1;
	if (a.offset != b.offset)
		return a.offset < b.offset ? -1 : 1;
	return 0;
}

/* ---- options, stats ---- */

typedef enum cf_commitlog_sync_mode
{
	CF_COMMITLOG_PERIODIC,		/* ack after write(2); sync every sync_period_us */
	CF_COMMITLOG_BATCH,			/* ack after an fsync covering the record (group commit) */
} cf_commitlog_sync_mode;

typedef struct cf_commitlog_options
{
	cf_env	   *env;			/* all file I/O goes through it; must outlive the log */
	const char *dir;			/* created if missing; copied */
	cf_commitlog_sync_mode sync_mode;
	int64_t		sync_period_us; /* PERIODIC: background sync interval; 0 = default */
	int64_t		batch_window_us;	/* BATCH: a leader waits this long to gather more
									 * appenders before it writes; 0 = no wait */
	uint64_t	segment_size;	/* roll over past this many bytes; 0 = default */
} cf_commitlog_options;

/* A struct tag without a typedef: the name is also the function's. */
struct cf_commitlog_stats
{
	uint64_t	segments;		/* segment files the log holds (not yet retired) */
	uint64_t	bytes;			/* bytes in those files, headers included */
	uint64_t	syncs;			/* fsyncs of segment files since open */
	uint64_t	records;		/* records appended since open */
	uint64_t	groups;			/* write groups (one leader each) since open */
	uint64_t	retired;		/* segments deleted since open */
	bool		failed;			/* the log is in the failed state */
};

typedef struct cf_commitlog_replay_stats
{
	uint64_t	segments;		/* segment files read */
	uint64_t	records;		/* records handed to the callback */
	uint64_t	bytes;			/* bytes of those records */
	uint64_t	torn_bytes;		/* bytes of the torn tail cut off the last segment */
	uint64_t	reserved_bytes; /* zeros reserved ahead of appends, cut off it */
} cf_commitlog_replay_stats;

/*
 * Called once per good record, in log order. payload is valid only during the call;
 * pos is the record's position. A non-NULL return stops the replay, which returns it.
 */
typedef cf_status *(*cf_commitlog_replay_fn) (void *arg, cf_slice payload,
											   cf_commitlog_pos pos);

typedef struct cf_commitlog cf_commitlog;

/* ---- API ---- */

/*
 * Opens the log in opts->dir (creating it), locks the directory and lists the existing
 * segments for cf_commitlog_replay. In PERIODIC mode starts the background syncer.
 * Errors: CF_ERR_INVALID for bad options, CF_ERR_BUSY if another handle holds the
 * directory, env errors otherwise. *out is NULL on error.
 */
cf_status  *cf_commitlog_open(const cf_commitlog_options *opts, cf_commitlog **out);

/*
 * Reads every existing segment in id order and calls fn once per good record. A torn
 * tail of the last segment is logged (cf_log_warn: segment, offset, bytes ignored),
 * cut off, and replay succeeds; damage in any other segment, or a record whose
 * checksum holds but whose body does not parse, is CF_ERR_CORRUPTION naming the file
 * and offset. Segments left with no record are deleted. stats may be NULL.
 * REQUIRES: called once, before the first append, with no other call under way.
 * Replayed segments count as unflushed for every CF their records name, until
 * cf_commitlog_cf_flushed says otherwise.
 */
cf_status  *cf_commitlog_replay(cf_commitlog *log, cf_commitlog_replay_fn fn, void *arg,
								 cf_commitlog_replay_stats *stats);

/*
 * Makes every position the log hands out from now on come after pos: the first new
 * segment's id is at least pos.segment + 1. For positions kept elsewhere (a flushed
 * SSTable's) that may name a segment since deleted, whose id the clock could give out
 * again; replay would then take the new records for flushed ones.
 * REQUIRES: called before the first append, with no other call under way.
 */
void		cf_commitlog_start_after(cf_commitlog *log, cf_commitlog_pos pos);

/*
 * Appends one record naming n CF ids (1 <= n <= 65535) with the payload, and returns
 * when the sync mode says it is acknowledged; *pos (may be NULL) receives its position.
 * A segment lives while a CF it names has unflushed records, so every record names at
 * least one. Errors: CF_ERR_INVALID before replay, after a failed replay, or for n
 * outside 1..65535; CF_ERR_TOO_LARGE if the body
 * exceeds CF_COMMITLOG_MAX_BODY; a write or sync failure (the env's code: IO,
 * NO_SPACE, ...) naming the segment and the OS error, after which the log is failed
 * and every append fails with CF_ERR_IO "commit log failed earlier: ...".
 * Thread safety: any number of threads.
 */
cf_status  *cf_commitlog_append(cf_commitlog *log, const uint32_t *cf_ids, size_t n,
								 cf_slice payload, cf_commitlog_pos *pos);

/* The bytes of a record naming n CFs before its payload: its header and CF ids. */
size_t		cf_commitlog_record_prefix(size_t n);

/*
 * cf_commitlog_append of a record the caller built in rec (len bytes): the first
 * cf_commitlog_record_prefix(n) are room that is filled here, the payload follows. It
 * saves the copy of the payload into a record of its own. rec stays the caller's; it
 * is not needed after the call returns. Errors as cf_commitlog_append, and
 * CF_ERR_INVALID if len is below the prefix.
 */
cf_status  *cf_commitlog_append_framed(cf_commitlog *log, const uint32_t *cf_ids, size_t n,
									   uint8_t *rec, size_t len, cf_commitlog_pos *pos);

/*
 * The position just past the last acknowledged record (or, before any, a position
 * after every replayed record). A CF flushed at this moment may pass it to
 * cf_commitlog_cf_flushed. Thread safety: any thread.
 */
cf_commitlog_pos cf_commitlog_position(cf_commitlog *log);

/*
 * Declares that every record of cf_id positioned before pos is durable elsewhere (in
 * an SSTable). Every segment that is not the active one and holds no record of any CF
 * that is still unflushed is then deleted, and the directory synced. Returns an env
 * error if a deletion fails (the segment is forgotten anyway; replay would read it
 * again). Thread safety: any thread.
 */
cf_status  *cf_commitlog_cf_flushed(cf_commitlog *log, uint32_t cf_id, cf_commitlog_pos pos);

/*
 * Syncs everything appended so far (useful in PERIODIC mode). A failure puts the log
 * into the failed state. Thread safety: any thread.
 */
cf_status  *cf_commitlog_sync(cf_commitlog *log);

/* Copies the counters. Thread safety: any thread. */
void		cf_commitlog_stats(cf_commitlog *log, struct cf_commitlog_stats *stats);

/*
 * Syncs what was appended (unless the log has failed), stops the background thread,
 * closes the files, releases the lock and frees the log, even on error. Returns the
 * first error of the final sync or close. NULL is accepted.
 * REQUIRES: no other call on the log is under way.
 */
cf_status  *cf_commitlog_close(cf_commitlog *log);

/* The file name of segment id ("CommitLog-<id>.log") into buf; false if it does not fit. */
bool		cf_commitlog_segment_name(uint64_t id, char *buf, size_t size);

/* Parses a segment file name; false for any other name. */
bool		cf_commitlog_parse_segment_name(const char *name, uint64_t *id);

#endif							/* CF_STORAGE_COMMITLOG_H */
