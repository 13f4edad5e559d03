/*
 * util/env_fault.h — an env that wraps another and injects faults, for crash, recovery
 * and error-path tests (LevelDB's fault_injection_test, in C). The code under test
 * takes it as its cf_env and needs no mocks.
 *
 * What it can do:
 *  - make the next calls of one operation fail with an errno, without side effects
 *    (cf_env_fault_fail), e.g. ENOSPC on the third append or EIO on the first sync;
 *  - tear one write in half (cf_env_fault_short_write) or fill the disk
 *    (cf_env_fault_set_space): what fits reaches the file, then ENOSPC;
 *  - as with the POSIX env, a file whose write or sync failed (injected or not)
 *    refuses every later append, flush and sync: only a new handle carries on;
 *  - lose power (cf_env_fault_crash): unsynced bytes and new, un-dir-synced files
 *    disappear, handles from before the crash are dead;
 *  - run a fake clock (cf_env_fault_set_time, cf_env_fault_advance_time);
 *  - count what reached the disk (cf_env_fault_stats).
 *
 * Design assumptions:
 *  - Writable files of this env do not buffer: every cf_wfile_append goes straight to
 *    the base file's append and flush, so a fault hits exactly the append it names and
 *    "bytes written" means bytes the base file received. cf_wfile_flush is a no-op.
 *  - Crash bookkeeping is per path, as spelled by the caller: a directory passed to
 *    cf_env_sync_dir must be spelled as the part of the file paths before their last
 *    '/' ("." for bare names). A file opened with CF_OPEN_APPEND counts its size at
 *    open as durable; one opened with CF_OPEN_TRUNCATE counts nothing as durable.
 *    A renamed file keeps its bookkeeping under the new name (a rename into another
 *    directory makes it new there); a hard link is a new file. A rename that replaces
 *    an older file and is lost in a crash removes the target rather than restoring
 *    the older contents, and a removal is durable at once — simplifications LevelDB's
 *    fault env makes too.
 *  - One writer per file at a time (the engine's rule); two handles on one file sync
 *    the larger of their sizes.
 *
 * Thread safety: every function may be called from any thread; one mutex guards the
 * env's state and is held across each base file operation (not across sleeps or
 * cf_env_list_dir callbacks), so a crash never interleaves with a write.
 */
#ifndef CF_UTIL_ENV_FAULT_H
#define CF_UTIL_ENV_FAULT_H

#include <stdint.h>

#include "util/env.h"

/* The operations a fault can be attached to. */
typedef enum cf_fault_op
{
	CF_FAULT_OPEN_WRITE,		/* cf_env_open_write */
	CF_FAULT_WRITE,				/* cf_wfile_append: the bytes reaching the base file */
	CF_FAULT_SYNC,				/* cf_wfile_sync */
	CF_FAULT_OPEN_READ,			/* cf_env_open_read */
	CF_FAULT_READ,				/* cf_rfile_read_at (and so read_exact, read_file) */
	CF_FAULT_RENAME,			/* cf_env_rename */
	CF_FAULT_REMOVE,			/* cf_env_remove */
	CF_FAULT_LINK,				/* cf_env_link */
	CF_FAULT_TRUNCATE,			/* cf_env_truncate */
	CF_FAULT_MKDIRS,			/* cf_env_mkdirs */
	CF_FAULT_REMOVE_DIR,		/* cf_env_remove_dir */
	CF_FAULT_SYNC_DIR,			/* cf_env_sync_dir */
	CF_FAULT_LIST_DIR,			/* cf_env_list_dir */
	CF_FAULT_FILE_SIZE,			/* cf_env_file_size, cf_env_file_links */
	CF_FAULT_LOCK,				/* cf_env_lock */
	CF_FAULT_OP_COUNT_			/* number of operations; not an operation */
} cf_fault_op;

/*
 * What reached the base env since cf_env_fault_new; cumulative, crashes included.
 * A struct tag without a typedef: the name is also the function's.
 */
struct cf_env_fault_stats
{
	uint64_t	writes;			/* appends that reached the base file (torn ones too) */
	uint64_t	bytes_written;	/* bytes the base files received */
	uint64_t	syncs;			/* successful cf_wfile_sync calls */
	uint64_t	sync_dirs;		/* successful cf_env_sync_dir calls */
	uint64_t	injected;		/* calls failed by an injected fault (not by the base) */
	uint64_t	crashes;		/* cf_env_fault_crash calls */
};

/*
 * A new fault env over base, with no faults and the base's clocks. base must outlive
 * it. Returns NULL when out of memory.
 */
cf_env	   *cf_env_fault_new(cf_env *base);

/*
 * Frees the env. Every file and lock opened through it must be closed first. NULL is
 * accepted.
 */
void		cf_env_fault_free(cf_env *env);

/*
 * After skip more calls of op, fail the next count calls (-1: every later call) with
 * errnum (ENOSPC, EIO, ...; the status code follows cf_status_errno). A failed call
 * has no side effect: nothing reaches the base env. Replaces any earlier rule for op.
 */
void		cf_env_fault_fail(cf_env *env, cf_fault_op op, int skip, int errnum, int count);

/*
 * After skip more appends, the next append writes only the first half of its bytes
 * (rounded down) to the base file, then fails with ENOSPC. Once.
 */
void		cf_env_fault_short_write(cf_env *env, int skip);

/*
 * From now on at most bytes more may be written through this env, across all files;
 * an append that does not fit writes what fits and fails with ENOSPC. Removing or
 * truncating files gives nothing back. bytes < 0 removes the budget.
 */
void		cf_env_fault_set_space(cf_env *env, int64_t bytes);

/* Removes every fail rule, the pending short write and the space budget. */
void		cf_env_fault_clear(cf_env *env);

/*
 * Power loss. Every file written through the env is cut back to its size at its last
 * successful sync (see above for what counts as synced at open); every file created
 * (or linked) through it since the last successful cf_env_sync_dir of its directory is
 * removed; every cf_wfile opened before fails all later operations with EIO (close
 * still frees it). Injected faults are cleared; the clock and the stats are kept.
 * Afterwards the env works normally, for the test to reopen and recover.
 *
 * Returns the first error of the base env while undoing (a test bug, typically).
 */
cf_status  *cf_env_fault_crash(cf_env *env);

/*
 * Fake clock. From the first call on, now_micros returns the fake wall time;
 * mono_micros starts from the base's monotonic time at that moment and advances only
 * with cf_env_fault_advance_time and sleeps; sleep_micros advances both clocks and
 * returns at once. set_time steps the wall clock only (as an NTP step would).
 * advance_time with no fake clock yet starts one at the base's current times.
 * us < 0 is ignored by advance_time.
 */
void		cf_env_fault_set_time(cf_env *env, int64_t now_us);
void		cf_env_fault_advance_time(cf_env *env, int64_t us);

/* Copies the counters into *stats. */
void		cf_env_fault_stats(cf_env *env, struct cf_env_fault_stats *stats);

#endif							/* CF_UTIL_ENV_FAULT_H */
