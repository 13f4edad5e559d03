/*
 * tests/unit/test_commitlog.c — storage/commitlog: round trips across segments, replay
 * order, retirement, the directory lock, torn tails and corruption, injected write and
 * sync failures, simulated power loss (env_fault) and group commit.
 *
 * Every test works in a fresh directory under $TMPDIR (or /tmp) and removes it.
 * Records carry "id=<n>;" and a filler whose length and letter follow from n, so a
 * replayed record is checked byte for byte without keeping copies.
 */
#include "support/cmocka_prelude.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "storage/commitlog.h"
#include "support/tmpdir.h"
#include "util/env_fault.h"
#include "util/log.h"

/* ==================== helpers ==================== */

typedef struct replayed
{
	uint32_t   *ids;
	cf_commitlog_pos *pos;
	size_t		n;
	size_t		cap;
	bool		bad;			/* a record did not parse */
} replayed;

/* The payload of record id into buf (at least 256 bytes); returns its length. */
static size_t
make_payload(uint32_t id, char *buf)
{
	int			n = sprintf(buf, "id=%u;", id);
	size_t		fill = (id * 7u) % 150u;

	memset(buf + n, 'a' + (int) (id % 26), fill);
	return (size_t) n + fill;
}

/* Parses and checks a payload made by make_payload; false if it is not one. */
static bool
parse_payload(cf_slice p, uint32_t *id)
{
	char		buf[256];
	unsigned	v;

	if (p.len >= sizeof(buf) - 1)
		return false;
	memcpy(buf, p.p, p.len);
	buf[p.len] = '\0';
	if (sscanf(buf, "id=%u;", &v) != 1)
		return false;
	*id = v;
	return make_payload(v, buf) == p.len && memcmp(buf, p.p, p.len) == 0;
}

static cf_status *
collect(void *arg, cf_slice payload, cf_commitlog_pos pos)
{
	replayed   *r = arg;
	uint32_t	id;

	if (!parse_payload(payload, &id))
	{
		r->bad = true;
		return NULL;
	}
	if (r->n == r->cap)
	{
		r->cap = r->cap ? r->cap * 2 : 64;
		r->ids = realloc(r->ids, r->cap * sizeof(*r->ids));
		r->pos = realloc(r->pos, r->cap * sizeof(*r->pos));
		assert_non_null(r->ids);
		assert_non_null(r->pos);
	}
	r->ids[r->n] = id;
	r->pos[r->n] = pos;
	r->n++;
	return NULL;
}

static void
replayed_free(replayed *r)
{
	free(r->ids);
	free(r->pos);
	memset(r, 0, sizeof(*r));
}

static bool
replayed_has(const replayed *r, uint32_t id)
{
	for (size_t i = 0; i < r->n; i++)
		if (r->ids[i] == id)
			return true;
	return false;
}

static char *
make_tmpdir(void)
{
	char	   *d = test_tmpdir_new("cf_commitlog");

	assert_non_null(d);
	return d;
}

static void
remove_tmpdir(char *d)
{
	test_tmpdir_free(d);
}

static void
assert_ok(cf_status *s)
{
	if (s != NULL)
		fail_msg("unexpected error %s: %s", cf_code_name(cf_status_code(s)), cf_status_msg(s));
}

/* Asserts s has code and a message containing want (if not NULL), then frees it. */
static void
assert_error(cf_status *s, cf_code code, const char *want)
{
	assert_non_null(s);
	if (cf_status_code(s) != code || (want && strstr(cf_status_msg(s), want) == NULL))
		fail_msg("want %s containing \"%s\", got %s: %s", cf_code_name(code),
				 want ? want : "", cf_code_name(cf_status_code(s)), cf_status_msg(s));
	cf_status_free(s);
}

/* Opens a log and replays it into *r (which may be NULL). */
static cf_commitlog *
open_log(cf_env *env, const char *dir, cf_commitlog_sync_mode mode, uint64_t segsize,
		 replayed *r)
{
	/* periodic syncs happen only when a test asks (an hour never comes in a test) */
	cf_commitlog_options o = {
		.env = env, .dir = dir, .sync_mode = mode, .segment_size = segsize,
		.sync_period_us = 3600LL * 1000000,
	};
	replayed	scratch = {0};
	cf_commitlog *log;

	assert_ok(cf_commitlog_open(&o, &log));
	assert_ok(cf_commitlog_replay(log, collect, r ? r : &scratch, NULL));
	replayed_free(&scratch);
	return log;
}

/* Appends record id for the CF; returns its position. */
static cf_commitlog_pos
append_id(cf_commitlog *log, uint32_t cf, uint32_t id)
{
	char		buf[256];
	size_t		len = make_payload(id, buf);
	cf_commitlog_pos pos;

	assert_ok(cf_commitlog_append(log, &cf, 1, cf_slice_of(buf, len), &pos));
	return pos;
}

/* The path of segment id in dir (malloc'd). */
static char *
seg_path(const char *dir, uint64_t id)
{
	char		name[64];
	char	   *p;

	assert_true(cf_commitlog_segment_name(id, name, sizeof(name)));
	assert_true(asprintf(&p, "%s/%s", dir, name) > 0);
	return p;
}

static bool
count_segment(void *arg, const char *name)
{
	uint64_t	id;

	if (cf_commitlog_parse_segment_name(name, &id))
		(*(size_t *) arg)++;
	return true;
}

static size_t
segment_files(const char *dir)
{
	size_t		n = 0;

	assert_ok(cf_env_list_dir(cf_env_posix(), dir, count_segment, &n));
	return n;
}

static uint8_t *
read_file(const char *path, size_t *len)
{
	uint8_t    *data;

	assert_ok(cf_env_read_file(cf_env_posix(), path, &data, len));
	return data;
}

static void
write_file(const char *path, const uint8_t *data, size_t len)
{
	cf_wfile   *f;

	assert_ok(cf_env_open_write(cf_env_posix(), path, CF_OPEN_TRUNCATE, &f));
	assert_ok(cf_wfile_append(f, data, len));
	assert_ok(cf_wfile_close(f));
}

/* Captured warnings, so the torn-tail tests check what was logged. */
static char last_warning[1024];
static int	warnings;

static void
capture_sink(void *arg, cf_log_level level, const char *line)
{
	(void) arg;
	if (level >= CF_LOG_WARN)
	{
		snprintf(last_warning, sizeof(last_warning), "%s", line);
		warnings++;
	}
}

static int
setup_quiet_log(void **state)
{
	(void) state;
	cf_log_set_sink(capture_sink, NULL);
	warnings = 0;
	last_warning[0] = '\0';
	return 0;
}

static int
teardown_log(void **state)
{
	(void) state;
	cf_log_set_sink(NULL, NULL);
	return 0;
}

/* ==================== round trips and order ==================== */

static void
round_trip_across_segments(void **state)
{
	char	   *dir = make_tmpdir();
	cf_commitlog_pos pos[300];
	struct cf_commitlog_stats st;
	replayed	r = {0};
	cf_commitlog *log;

	(void) state;
	log = open_log(cf_env_posix(), dir, CF_COMMITLOG_PERIODIC, 4096, NULL);
	for (uint32_t i = 0; i < 300; i++)
	{
		pos[i] = append_id(log, 1 + i % 3, i);
		if (i > 0)
			assert_true(cf_commitlog_pos_cmp(pos[i - 1], pos[i]) < 0);
	}
	assert_true(cf_commitlog_pos_cmp(pos[299], cf_commitlog_position(log)) < 0);
	cf_commitlog_stats(log, &st);
	assert_int_equal(st.records, 300);
	assert_true(st.segments >= 5);
	assert_int_equal(segment_files(dir), st.segments);
	assert_ok(cf_commitlog_close(log));

	/* Replay gives every record once, in append order, at the position append gave. */
	log = open_log(cf_env_posix(), dir, CF_COMMITLOG_PERIODIC, 4096, &r);
	assert_false(r.bad);
	assert_int_equal(r.n, 300);
	for (uint32_t i = 0; i < 300; i++)
	{
		assert_int_equal(r.ids[i], i);
		assert_int_equal(cf_commitlog_pos_cmp(r.pos[i], pos[i]), 0);
	}
	replayed_free(&r);

	/* New records go after the old ones, in a new segment. */
	for (uint32_t i = 300; i < 310; i++)
	{
		cf_commitlog_pos p = append_id(log, 1, i);

		assert_true(p.segment > pos[299].segment);
	}
	assert_ok(cf_commitlog_close(log));
	log = open_log(cf_env_posix(), dir, CF_COMMITLOG_BATCH, 4096, &r);
	assert_int_equal(r.n, 310);
	for (uint32_t i = 0; i < 310; i++)
		assert_int_equal(r.ids[i], i);
	replayed_free(&r);
	assert_ok(cf_commitlog_close(log));
	remove_tmpdir(dir);
}

static void
segment_names_round_trip(void **state)
{
	char		name[64];
	uint64_t	id;

	(void) state;
	assert_true(cf_commitlog_segment_name(1732131083123ull, name, sizeof(name)));
	assert_string_equal(name, "CommitLog-1732131083123.log");
	assert_true(cf_commitlog_parse_segment_name(name, &id));
	assert_true(id == 1732131083123ull);
	assert_false(cf_commitlog_parse_segment_name("CommitLog-01.log", &id));
	assert_false(cf_commitlog_parse_segment_name("CommitLog-1.log.tmp", &id));
	assert_false(cf_commitlog_parse_segment_name("CommitLog-.log", &id));
	assert_false(cf_commitlog_parse_segment_name("LOCK", &id));
	assert_false(cf_commitlog_parse_segment_name("CommitLog-99999999999999999999.log", &id));
	assert_false(cf_commitlog_segment_name(1, name, 8));
}

static void
misuse_is_refused(void **state)
{
	char	   *dir = make_tmpdir();
	cf_commitlog_options o = {.env = cf_env_posix(), .dir = dir};
	cf_commitlog *log;
	uint32_t	cf = 1;
	char	   *big;

	(void) state;
	o.sync_mode = (cf_commitlog_sync_mode) 7;
	assert_error(cf_commitlog_open(&o, &log), CF_ERR_INVALID, "sync mode");
	assert_null(log);
	o.sync_mode = CF_COMMITLOG_BATCH;
	o.segment_size = 10;
	assert_error(cf_commitlog_open(&o, &log), CF_ERR_INVALID, "segment_size");
	o.segment_size = 0;

	assert_ok(cf_commitlog_open(&o, &log));
	assert_error(cf_commitlog_append(log, &cf, 1, cf_slice_str("x"), NULL),
				 CF_ERR_INVALID, "replay must run");
	assert_ok(cf_commitlog_replay(log, collect, &(replayed) {0}, NULL));
	assert_error(cf_commitlog_replay(log, collect, NULL, NULL), CF_ERR_INVALID, "once");

	big = malloc(CF_COMMITLOG_MAX_BODY);
	assert_non_null(big);
	assert_error(cf_commitlog_append(log, &cf, 1, cf_slice_of(big, CF_COMMITLOG_MAX_BODY), NULL),
				 CF_ERR_TOO_LARGE, "exceeds the limit");
	free(big);
	assert_error(cf_commitlog_append(log, &cf, 70000, cf_slice_str("x"), NULL),
				 CF_ERR_INVALID, "column families");
	/* a count whose header size wraps around is refused before anything is sized */
	assert_error(cf_commitlog_append(log, &cf, SIZE_MAX / 4 + 1, cf_slice_str("x"), NULL),
				 CF_ERR_INVALID, "column families");
	assert_error(cf_commitlog_append_framed(log, &cf, SIZE_MAX / 4 + 1, (uint8_t *) "x", 1, NULL),
				 CF_ERR_INVALID, "column families");
	assert_ok(cf_commitlog_close(log));
	remove_tmpdir(dir);
}

static void
lock_prevents_double_open(void **state)
{
	char	   *dir = make_tmpdir();
	cf_commitlog_options o = {.env = cf_env_posix(), .dir = dir};
	cf_commitlog *a;
	cf_commitlog *b;

	(void) state;
	assert_ok(cf_commitlog_open(&o, &a));
	assert_error(cf_commitlog_open(&o, &b), CF_ERR_BUSY, "LOCK");
	assert_null(b);
	assert_ok(cf_commitlog_close(a));
	assert_ok(cf_commitlog_open(&o, &b));	/* released by close */
	assert_ok(cf_commitlog_close(b));
	remove_tmpdir(dir);
}

/* ==================== retirement ==================== */

static bool
segment_exists(const char *dir, uint64_t id)
{
	char	   *p = seg_path(dir, id);
	bool		e = cf_env_exists(cf_env_posix(), p);

	free(p);
	return e;
}

static void
retirement_deletes_exactly_flushed_segments(void **state)
{
	char	   *dir = make_tmpdir();
	cf_commitlog_pos first;
	cf_commitlog_pos mid;
	cf_commitlog_pos last;
	cf_commitlog_pos cf2;
	struct cf_commitlog_stats st;
	cf_commitlog *log;

	(void) state;
	log = open_log(cf_env_posix(), dir, CF_COMMITLOG_PERIODIC, 1024, NULL);
	first = append_id(log, 1, 0);
	for (uint32_t i = 1; i < 40; i++)
		append_id(log, 1, i);
	cf2 = append_id(log, 2, 40);	/* one CF 2 record in a middle segment */
	mid = append_id(log, 1, 41);
	for (uint32_t i = 42; i < 80; i++)
		last = append_id(log, 1, i);
	assert_true(cf2.segment > first.segment + 1);
	assert_true(last.segment > cf2.segment + 1);

	/* CF 1 flushed up to mid: segments before cf2's go, the rest stay. */
	assert_ok(cf_commitlog_cf_flushed(log, 1, mid));
	for (uint64_t id = first.segment; id <= last.segment; id++)
		assert_int_equal(segment_exists(dir, id), id >= cf2.segment);

	/* CF 1 flushed entirely: only cf2's segment (CF 2 unflushed) and the active one. */
	assert_ok(cf_commitlog_cf_flushed(log, 1, cf_commitlog_position(log)));
	for (uint64_t id = first.segment; id <= last.segment; id++)
		assert_int_equal(segment_exists(dir, id), id == cf2.segment || id == last.segment);

	/* A CF 2 flush that ends before its record keeps it; one past it retires it. */
	assert_ok(cf_commitlog_cf_flushed(log, 2, cf2));
	assert_true(segment_exists(dir, cf2.segment));
	cf_commitlog_stats(log, &st);
	assert_int_equal(st.segments, 2);
	assert_ok(cf_commitlog_cf_flushed(log, 2, cf_commitlog_position(log)));
	assert_false(segment_exists(dir, cf2.segment));

	/* The active segment stays even though it is clean. */
	assert_true(segment_exists(dir, last.segment));
	assert_int_equal(segment_files(dir), 1);
	cf_commitlog_stats(log, &st);
	assert_int_equal(st.segments, 1);
	assert_true(st.retired >= 4);
	assert_ok(cf_commitlog_close(log));
	remove_tmpdir(dir);
}

static void
replayed_segments_retire_after_flush(void **state)
{
	char	   *dir = make_tmpdir();
	replayed	r = {0};
	cf_commitlog *log;

	(void) state;
	log = open_log(cf_env_posix(), dir, CF_COMMITLOG_BATCH, 1024, NULL);
	for (uint32_t i = 0; i < 30; i++)
		append_id(log, 7, i);
	assert_ok(cf_commitlog_close(log));
	assert_true(segment_files(dir) >= 3);

	log = open_log(cf_env_posix(), dir, CF_COMMITLOG_BATCH, 1024, &r);
	assert_int_equal(r.n, 30);
	/* Another CF's flush frees nothing; CF 7's frees every replayed segment. */
	assert_ok(cf_commitlog_cf_flushed(log, 8, cf_commitlog_position(log)));
	assert_true(segment_files(dir) >= 3);
	assert_ok(cf_commitlog_cf_flushed(log, 7, cf_commitlog_position(log)));
	assert_int_equal(segment_files(dir), 0);
	replayed_free(&r);
	assert_ok(cf_commitlog_close(log));
	remove_tmpdir(dir);
}

/* ==================== torn tails and corruption ==================== */

/* Writes n records (CF 1) and closes; returns the positions (caller frees). */
static cf_commitlog_pos *
write_records(const char *dir, uint32_t n, uint64_t segsize)
{
	cf_commitlog_pos *pos = calloc(n, sizeof(*pos));
	cf_commitlog *log = open_log(cf_env_posix(), dir, CF_COMMITLOG_PERIODIC, segsize, NULL);

	assert_non_null(pos);
	for (uint32_t i = 0; i < n; i++)
		pos[i] = append_id(log, 1, i);
	assert_ok(cf_commitlog_close(log));
	return pos;
}

/* Opens, replays and returns the replay status; r receives the records. */
static cf_status *
try_replay(const char *dir, replayed *r, cf_commitlog_replay_stats *st)
{
	cf_commitlog_options o = {.env = cf_env_posix(), .dir = dir,
	.sync_mode = CF_COMMITLOG_PERIODIC};
	cf_commitlog *log;
	cf_status  *s;

	assert_ok(cf_commitlog_open(&o, &log));
	s = cf_commitlog_replay(log, collect, r, st);
	assert_ok(cf_commitlog_close(log));
	return s;
}

/*
 * cf_commitlog_append_framed: a record built with room for its header replays like
 * one appended by payload, and the two kinds interleave; a buffer shorter than the
 * header is refused.
 */
static void
framed_records_replay_like_copied_ones(void **state)
{
	char	   *dir = make_tmpdir();
	cf_commitlog *log = open_log(cf_env_posix(), dir, CF_COMMITLOG_PERIODIC, 1 << 20, NULL);
	uint32_t	cfs[2] = {7, 9};
	size_t		prefix = cf_commitlog_record_prefix(2);
	uint8_t		rec[512];
	cf_commitlog_pos pos;
	replayed	r = {0};
	cf_status  *s;

	(void) state;
	assert_int_equal(prefix, CF_COMMITLOG_RECORD_HEADER + CF_COMMITLOG_BODY_MIN + 8);
	for (uint32_t id = 0; id < 6; id++)
	{
		size_t		len;

		if (id % 2)
		{
			(void) append_id(log, 7, id);
			continue;
		}
		memset(rec, 0xaa, prefix);	/* whatever is there is overwritten */
		len = make_payload(id, (char *) rec + prefix);
		assert_ok(cf_commitlog_append_framed(log, cfs, 2, rec, prefix + len, &pos));
	}
	s = cf_commitlog_append_framed(log, cfs, 2, rec, prefix - 1, NULL);
	assert_non_null(s);
	assert_int_equal(cf_status_code(s), CF_ERR_INVALID);
	cf_status_free(s);
	assert_ok(cf_commitlog_close(log));

	assert_ok(try_replay(dir, &r, NULL));
	assert_false(r.bad);
	assert_int_equal(r.n, 6);
	for (uint32_t i = 0; i < 6; i++)
		assert_int_equal(r.ids[i], i);
	replayed_free(&r);
	remove_tmpdir(dir);
}

static void
torn_tail_at_every_offset(void **state)
{
	char	   *dir = make_tmpdir();
	cf_commitlog_pos *pos = write_records(dir, 12, 1 << 20);
	char	   *path = seg_path(dir, pos[0].segment);
	size_t		len;
	uint8_t    *orig = read_file(path, &len);
	uint64_t	start = pos[11].offset;
	uint64_t	size;

	(void) state;
	for (uint64_t cut = start; cut < len; cut++)
	{
		replayed	r = {0};
		cf_commitlog_replay_stats st;
		bool		zeros;

		write_file(path, orig, (size_t) cut);
		warnings = 0;
		assert_ok(try_replay(dir, &r, &st));
		assert_false(r.bad);
		assert_int_equal(r.n, 11);
		for (uint32_t i = 0; i < 11; i++)
			assert_int_equal(r.ids[i], i);
		/*
		 * A tail of zeros only (the start of a length field) cannot be told from the
		 * space a log file reserves ahead of its appends: it is cut off as that.
		 */
		zeros = true;
		for (uint64_t i = start; i < cut; i++)
			zeros = zeros && orig[i] == 0;
		assert_int_equal(st.torn_bytes + st.reserved_bytes, cut - start);
		assert_int_equal(st.reserved_bytes, zeros ? cut - start : 0);
		/* The tail is cut away (nothing to cut when the cut fell on the boundary). */
		assert_ok(cf_env_file_size(cf_env_posix(), path, &size));
		assert_int_equal(size, start);
		if (zeros)
			assert_int_equal(warnings, 0);
		else
		{
			assert_int_equal(warnings, 1);
			assert_non_null(strstr(last_warning, "torn tail at offset"));
			assert_non_null(strstr(last_warning, "CommitLog-"));
		}
		replayed_free(&r);
	}

	/* After a torn tail, new appends go after the good data and replay cleanly. */
	write_file(path, orig, (size_t) (start + 5));
	{
		replayed	r = {0};
		cf_commitlog *log = open_log(cf_env_posix(), dir, CF_COMMITLOG_BATCH, 1 << 20, &r);

		assert_int_equal(r.n, 11);
		append_id(log, 1, 100);
		assert_ok(cf_commitlog_close(log));
		replayed_free(&r);
		assert_ok(try_replay(dir, &r, NULL));
		assert_int_equal(r.n, 12);
		assert_int_equal(r.ids[11], 100);
		replayed_free(&r);
	}
	free(orig);
	free(path);
	free(pos);
	remove_tmpdir(dir);
}

/* Flips one byte at off in path. */
static void
flip_byte(const char *path, uint64_t off)
{
	size_t		len;
	uint8_t    *data = read_file(path, &len);

	assert_true(off < len);
	data[off] ^= 0x40;
	write_file(path, data, len);
	free(data);
}

static void
flipped_byte_in_last_segment_is_a_tail(void **state)
{
	char	   *dir = make_tmpdir();
	cf_commitlog_pos *pos = write_records(dir, 20, 1 << 20);
	char	   *path = seg_path(dir, pos[0].segment);
	replayed	r = {0};

	(void) state;
	flip_byte(path, pos[15].offset + 12);	/* inside record 15's body */
	assert_ok(try_replay(dir, &r, NULL));
	assert_int_equal(r.n, 15);
	assert_non_null(strstr(last_warning, "checksum mismatch"));
	replayed_free(&r);
	free(path);
	free(pos);
	remove_tmpdir(dir);
}

static void
flipped_byte_in_middle_segment_is_corruption(void **state)
{
	char	   *dir = make_tmpdir();
	cf_commitlog_pos *pos = write_records(dir, 60, 1024);
	uint32_t	victim = 0;
	replayed	r = {0};
	char	   *path;
	char		want[64];
	cf_status  *s;

	(void) state;
	/* The second record of the second segment. */
	while (pos[victim].segment == pos[0].segment)
		victim++;
	victim++;
	assert_true(pos[victim].segment < pos[59].segment);
	path = seg_path(dir, pos[victim].segment);
	flip_byte(path, pos[victim].offset + 9);

	s = try_replay(dir, &r, NULL);
	snprintf(want, sizeof(want), "at offset %llu", (unsigned long long) pos[victim].offset);
	assert_non_null(s);
	assert_int_equal(cf_status_code(s), CF_ERR_CORRUPTION);
	assert_non_null(strstr(cf_status_msg(s), path));
	assert_non_null(strstr(cf_status_msg(s), want));
	cf_status_free(s);
	/* Records before the damage were handed over; nothing after it was skipped to. */
	assert_int_equal(r.n, victim);
	replayed_free(&r);

	/* A failed replay is final for its handle: no second replay, no appends. */
	{
		cf_commitlog_options o = {.env = cf_env_posix(), .dir = dir,
		.sync_mode = CF_COMMITLOG_PERIODIC};
		cf_commitlog *log;
		uint32_t	cf = 1;

		assert_ok(cf_commitlog_open(&o, &log));
		s = cf_commitlog_replay(log, collect, &r, NULL);
		assert_int_equal(cf_status_code(s), CF_ERR_CORRUPTION);
		cf_status_free(s);
		s = cf_commitlog_replay(log, collect, &r, NULL);
		assert_int_equal(cf_status_code(s), CF_ERR_INVALID);
		cf_status_free(s);
		s = cf_commitlog_append(log, &cf, 1, cf_slice_of("x", 1), NULL);
		assert_int_equal(cf_status_code(s), CF_ERR_INVALID);
		assert_non_null(strstr(cf_status_msg(s), "its replay failed"));
		cf_status_free(s);
		assert_int_equal(r.n, victim);	/* the retry handed over nothing twice */
		assert_ok(cf_commitlog_close(log));
		replayed_free(&r);
	}

	/* A damaged header of a middle segment is corruption too. */
	flip_byte(path, pos[victim].offset + 9);	/* repair */
	flip_byte(path, 2);
	s = try_replay(dir, &r, NULL);
	assert_non_null(s);
	assert_int_equal(cf_status_code(s), CF_ERR_CORRUPTION);
	assert_non_null(strstr(cf_status_msg(s), "magic"));
	cf_status_free(s);
	replayed_free(&r);
	free(path);
	free(pos);
	remove_tmpdir(dir);
}

static void
garbage_tails_are_torn(void **state)
{
	char	   *dir = make_tmpdir();
	cf_commitlog_pos *pos = write_records(dir, 5, 1 << 20);
	char	   *path = seg_path(dir, pos[0].segment);
	size_t		len;
	uint8_t    *orig = read_file(path, &len);
	uint8_t    *data = malloc(len + 64);
	static const uint8_t huge[] = {0xff, 0xff, 0xff, 0xf0, 1, 2, 3, 4, 5, 6, 7, 8};
	static const uint8_t just_over[] = {0x04, 0x00, 0x00, 0x01, 0, 0, 0, 0};
	replayed	r = {0};
	cf_commitlog_replay_stats st;
	uint64_t	size;

	(void) state;
	assert_non_null(data);
	memcpy(data, orig, len);

	/* Zeros only: a segment's reserved space, left by a writer that died. No warning. */
	memset(data + len, 0, 64);
	write_file(path, data, len + 64);
	warnings = 0;
	assert_ok(try_replay(dir, &r, &st));
	assert_int_equal(r.n, 5);
	assert_int_equal(warnings, 0);
	assert_int_equal(st.reserved_bytes, 64);
	assert_int_equal(st.torn_bytes, 0);
	assert_ok(cf_env_file_size(cf_env_posix(), path, &size));
	assert_int_equal(size, len);
	replayed_free(&r);

	/* Zeros, then a byte that is not: a torn write, however far in the byte is. */
	data[len + 63] = 1;
	write_file(path, data, len + 64);
	assert_ok(try_replay(dir, &r, &st));
	assert_int_equal(r.n, 5);
	assert_int_equal(warnings, 1);
	assert_non_null(strstr(last_warning, "zero length"));
	assert_int_equal(st.torn_bytes, 64);
	replayed_free(&r);

	/* A garbage length of ~4 GiB and one just over the 64 MiB cap: no huge allocation. */
	memcpy(data + len, huge, sizeof(huge));
	write_file(path, data, len + sizeof(huge));
	assert_ok(try_replay(dir, &r, NULL));
	assert_int_equal(r.n, 5);
	assert_non_null(strstr(last_warning, "out of range"));
	replayed_free(&r);
	memcpy(data + len, just_over, sizeof(just_over));
	write_file(path, data, len + sizeof(just_over));
	assert_ok(try_replay(dir, &r, NULL));
	assert_int_equal(r.n, 5);
	replayed_free(&r);

	/* A torn segment header (crash while creating the next segment) is dropped. */
	{
		char	   *next = seg_path(dir, pos[0].segment + 1);

		write_file(next, orig, 7);
		assert_ok(try_replay(dir, &r, NULL));
		assert_int_equal(r.n, 5);
		assert_false(cf_env_exists(cf_env_posix(), next));
		assert_non_null(strstr(last_warning, "torn segment creation"));
		replayed_free(&r);

		/* ... also when the space reserved ahead of the header follows it */
		memset(data, 0, len + 64);
		memcpy(data, orig, 7);
		write_file(next, data, len + 64);
		last_warning[0] = '\0';
		assert_ok(try_replay(dir, &r, NULL));
		assert_int_equal(r.n, 5);
		assert_false(cf_env_exists(cf_env_posix(), next));
		assert_non_null(strstr(last_warning, "torn segment creation"));
		replayed_free(&r);

		/* ... but not when anything follows it: that is damage */
		data[len + 63] = 1;
		write_file(next, data, len + 64);
		{
			cf_status  *bad = try_replay(dir, &r, NULL);

			assert_non_null(bad);
			assert_int_equal(cf_status_code(bad), CF_ERR_CORRUPTION);
			cf_status_free(bad);
			replayed_free(&r);
		}
		assert_true(cf_env_exists(cf_env_posix(), next));
		assert_ok(cf_env_remove(cf_env_posix(), next));
		free(next);
	}
	free(data);
	free(orig);
	free(path);
	free(pos);
	remove_tmpdir(dir);
}

static cf_status *
stop_at_three(void *arg, cf_slice payload, cf_commitlog_pos pos)
{
	int		   *n = arg;

	(void) payload;
	(void) pos;
	if (++*n == 3)
		return cf_status_make(CF_ERR_INVALID, "mutation does not decode");
	return NULL;
}

static void
callback_error_stops_replay(void **state)
{
	char	   *dir = make_tmpdir();
	cf_commitlog_pos *pos = write_records(dir, 5, 1 << 20);
	cf_commitlog_options o = {.env = cf_env_posix(), .dir = dir};
	cf_commitlog *log;
	int			n = 0;

	(void) state;
	assert_ok(cf_commitlog_open(&o, &log));
	assert_error(cf_commitlog_replay(log, stop_at_three, &n, NULL), CF_ERR_INVALID,
				 "does not decode");
	assert_int_equal(n, 3);
	assert_ok(cf_commitlog_close(log));
	free(pos);
	remove_tmpdir(dir);
}

/* ==================== injected failures ==================== */

/* A scratch directory and a fault env over the POSIX one, with warnings captured. */
typedef struct fault_fixture
{
	char	   *dir;
	cf_env	   *env;
} fault_fixture;

static int
setup_fault(void **state)
{
	fault_fixture *fx = calloc(1, sizeof(*fx));

	assert_non_null(fx);
	fx->dir = make_tmpdir();
	assert_non_null(fx->env = cf_env_fault_new(cf_env_posix()));
	*state = fx;
	return setup_quiet_log(state);
}

static int
teardown_fault(void **state)
{
	fault_fixture *fx = *state;

	cf_env_fault_free(fx->env);
	remove_tmpdir(fx->dir);
	free(fx);
	return teardown_log(state);
}

/*
 * Appends ids from *next on until an append fails; returns that failure. acked[] gets
 * every acknowledged id.
 */
static cf_status *
append_until_failure(cf_commitlog *log, uint32_t *next, uint32_t limit)
{
	char		buf[256];
	uint32_t	cf = 1;

	for (; *next < limit; (*next)++)
	{
		size_t		len = make_payload(*next, buf);
		cf_status  *s = cf_commitlog_append(log, &cf, 1, cf_slice_of(buf, len), NULL);

		if (s != NULL)
			return s;
	}
	return NULL;
}

/* Reopens dir through env and checks ids 0..acked-1 are all there, in order. */
static void
assert_acked_survive(cf_env *env, const char *dir, uint32_t acked, uint32_t at_most)
{
	replayed	r = {0};
	cf_commitlog *log = open_log(env, dir, CF_COMMITLOG_BATCH, 0, &r);

	assert_false(r.bad);
	if (r.n < acked || r.n > at_most)
		fail_msg("replayed %zu records; %u were acknowledged, at most %u written",
				 r.n, acked, at_most);
	for (uint32_t i = 0; i < r.n; i++)
		assert_int_equal(r.ids[i], i);
	/* And the log works again after recovery. */
	append_id(log, 1, 999999);
	replayed_free(&r);
	assert_ok(cf_commitlog_close(log));
}

static void
failed_sync_fails_the_log(void **state)
{
	fault_fixture *fx = *state;
	const char *dir = fx->dir;
	cf_env	   *env = fx->env;
	cf_commitlog *log = open_log(env, dir, CF_COMMITLOG_BATCH, 0, NULL);
	uint32_t	next = 0;
	cf_status  *s;
	struct cf_commitlog_stats st;

	assert_null(append_until_failure(log, &next, 10));
	cf_env_fault_fail(env, CF_FAULT_SYNC, 0, EIO, 1);
	s = append_until_failure(log, &next, 20);
	assert_int_equal(next, 10);
	assert_error(s, CF_ERR_IO, "CommitLog-");
	cf_commitlog_stats(log, &st);
	assert_true(st.failed);

	/* The fault is gone, but the log stays failed: the fsync's outcome is unknown. */
	s = append_until_failure(log, &next, 20);
	assert_error(s, CF_ERR_IO, "commit log failed earlier");
	assert_error(cf_commitlog_sync(log), CF_ERR_IO, "failed earlier");
	assert_ok(cf_commitlog_close(log));

	assert_acked_survive(env, dir, 10, 11);
}

static void
enospc_fails_the_log(void **state)
{
	cf_commitlog_sync_mode modes[] = {CF_COMMITLOG_BATCH, CF_COMMITLOG_PERIODIC};

	(void) state;
	for (int m = 0; m < 2; m++)
	{
		char	   *dir = make_tmpdir();
		cf_env	   *env = cf_env_fault_new(cf_env_posix());
		cf_commitlog *log = open_log(env, dir, modes[m], 2048, NULL);
		uint32_t	next = 0;
		cf_status  *s;

		/* Room for a few segments, then a full disk in the middle of a record. */
		cf_env_fault_set_space(env, 5000);
		s = append_until_failure(log, &next, 1000);
		assert_true(next > 20);
		assert_non_null(s);
		assert_int_equal(cf_status_code(s), CF_ERR_NO_SPACE);
		assert_non_null(strstr(cf_status_msg(s), "CommitLog-"));
		assert_non_null(strstr(cf_status_msg(s), "No space left on device"));
		cf_status_free(s);

		cf_env_fault_set_space(env, -1);
		s = append_until_failure(log, &next, 1000);
		assert_error(s, CF_ERR_IO, "commit log failed earlier: ");
		cf_status_free(cf_commitlog_close(log));

		warnings = 0;
		assert_acked_survive(env, dir, next, next);
		assert_int_equal(warnings, 1);	/* the half-written record: a torn tail */
		cf_env_fault_free(env);
		remove_tmpdir(dir);
	}
}

static void
short_write_and_failed_rollover(void **state)
{
	char	   *dir = make_tmpdir();
	cf_env	   *env = cf_env_fault_new(cf_env_posix());
	cf_commitlog *log = open_log(env, dir, CF_COMMITLOG_PERIODIC, 1024, NULL);
	uint32_t	next = 0;

	(void) state;
	/* A torn write: half of a record reaches the file. */
	cf_env_fault_short_write(env, 5);
	assert_error(append_until_failure(log, &next, 100), CF_ERR_NO_SPACE, "injected");
	cf_status_free(cf_commitlog_close(log));
	assert_acked_survive(env, dir, next, next);

	/* The next segment cannot be created: the records before stay. */
	remove_tmpdir(dir);
	dir = make_tmpdir();
	log = open_log(env, dir, CF_COMMITLOG_PERIODIC, 1024, NULL);
	next = 0;
	cf_env_fault_fail(env, CF_FAULT_OPEN_WRITE, 1, EIO, -1);
	assert_error(append_until_failure(log, &next, 100), CF_ERR_IO, "Input/output error");
	assert_true(next > 3);
	cf_status_free(cf_commitlog_close(log));
	cf_env_fault_clear(env);
	assert_acked_survive(env, dir, next, next);
	cf_env_fault_free(env);
	remove_tmpdir(dir);
}

/* A record naming no CF would keep no segment alive, and one naming too many is refused. */
static void
records_name_one_to_65535_cfs(void **state)
{
	char	   *dir = make_tmpdir();
	cf_commitlog *log = open_log(cf_env_posix(), dir, CF_COMMITLOG_BATCH, 0, NULL);
	static uint32_t many[65536];
	cf_status  *s;

	(void) state;
	s = cf_commitlog_append(log, many, 0, cf_slice_of("x", 1), NULL);
	assert_int_equal(cf_status_code(s), CF_ERR_INVALID);
	assert_non_null(strstr(cf_status_msg(s), "1 to 65535"));
	cf_status_free(s);
	s = cf_commitlog_append(log, many, 65536, cf_slice_of("x", 1), NULL);
	assert_int_equal(cf_status_code(s), CF_ERR_INVALID);
	cf_status_free(s);
	assert_ok(cf_commitlog_append(log, many, 65535, cf_slice_of("x", 1), NULL));
	assert_ok(cf_commitlog_close(log));
	remove_tmpdir(dir);
}

/* ==================== simulated power loss ==================== */

#define CRASH_WORKER_MAX 10000	/* bounds a worker even if the crash never reaches it */

typedef struct crash_worker
{
	cf_commitlog *log;
	uint32_t	first;			/* ids first, first + 1, ... */
	uint32_t	acked;			/* how many were acknowledged; atomic */
	pthread_t	th;
} crash_worker;

static void *
crash_worker_main(void *arg)
{
	crash_worker *w = arg;
	uint32_t	next = w->first;
	cf_status  *s = NULL;

	while (s == NULL && next < w->first + CRASH_WORKER_MAX)
	{
		s = append_until_failure(w->log, &next, next + 1);
		__atomic_store_n(&w->acked, next - w->first, __ATOMIC_RELEASE);
	}
	cf_status_free(s);
	return NULL;
}

/* Waits (up to 30 s) until every worker has had a record acknowledged. */
static void
wait_all_acked(crash_worker *w, int n)
{
	for (int tries = 0; tries < 3000; tries++)
	{
		int			ready = 0;

		for (int i = 0; i < n; i++)
			ready += __atomic_load_n(&w[i].acked, __ATOMIC_ACQUIRE) > 0;
		if (ready == n)
			return;
		usleep(10000);
	}
	fail_msg("crash workers acknowledged nothing within 30 s");
}

static void
batch_crash_keeps_every_acknowledged_record(void **state)
{
	fault_fixture *fx = *state;
	const char *dir = fx->dir;
	cf_env	   *env = fx->env;
	crash_worker w[4];
	replayed	r = {0};
	cf_commitlog *log;
	size_t		total = 0;

	for (int round = 0; round < 3; round++)
	{
		log = open_log(env, dir, CF_COMMITLOG_BATCH, 4096, &r);
		assert_false(r.bad);
		/* Every record acknowledged in earlier rounds is still here. */
		for (int i = 0; i < 4 && round > 0; i++)
			for (uint32_t k = 0; k < w[i].acked; k++)
				assert_true(replayed_has(&r, w[i].first + k));
		replayed_free(&r);

		for (int i = 0; i < 4; i++)
		{
			w[i].log = log;
			w[i].first = (uint32_t) (round * 4 + i) * 1000000u;
			w[i].acked = 0;
			assert_int_equal(pthread_create(&w[i].th, NULL, crash_worker_main, &w[i]), 0);
		}
		/* crash mid-stream: only once every worker is appending */
		wait_all_acked(w, 4);
		usleep(20000);
		assert_ok(cf_env_fault_crash(env));
		for (int i = 0; i < 4; i++)
		{
			pthread_join(w[i].th, NULL);
			total += w[i].acked;
		}
		cf_status_free(cf_commitlog_close(log));
	}
	log = open_log(env, dir, CF_COMMITLOG_BATCH, 4096, &r);
	for (int i = 0; i < 4; i++)
		for (uint32_t k = 0; k < w[i].acked; k++)
			assert_true(replayed_has(&r, w[i].first + k));
	assert_true(total > 0);
	print_message("batch crash: %zu records acknowledged over 3 crashes, all present\n", total);
	replayed_free(&r);
	assert_ok(cf_commitlog_close(log));
}

static void
periodic_crash_loses_only_unsynced_records(void **state)
{
	fault_fixture *fx = *state;
	const char *dir = fx->dir;
	cf_env	   *env = fx->env;
	cf_commitlog *log = open_log(env, dir, CF_COMMITLOG_PERIODIC, 0, NULL);
	replayed	r = {0};
	cf_commitlog_pos pos[300];

	/* Synced by hand: the background period (an hour, see open_log) never comes. */
	for (uint32_t i = 0; i < 50; i++)
		append_id(log, 1, i);
	assert_ok(cf_commitlog_sync(log));
	for (uint32_t i = 50; i < 100; i++)
		append_id(log, 1, i);
	assert_ok(cf_env_fault_crash(env));
	cf_status_free(cf_commitlog_close(log));

	log = open_log(env, dir, CF_COMMITLOG_PERIODIC, 2048, &r);
	assert_int_equal(r.n, 50);	/* exactly what the last sync covered */
	for (uint32_t i = 0; i < 50; i++)
		assert_int_equal(r.ids[i], i);
	replayed_free(&r);
	assert_ok(cf_commitlog_cf_flushed(log, 1, cf_commitlog_position(log)));

	/* Rollover syncs the old segment: only the active segment's records may go. */
	for (uint32_t i = 0; i < 300; i++)
		pos[i] = append_id(log, 1, i);
	assert_ok(cf_env_fault_crash(env));
	cf_status_free(cf_commitlog_close(log));
	log = open_log(env, dir, CF_COMMITLOG_PERIODIC, 2048, &r);
	for (uint32_t i = 0; i < r.n; i++)
		assert_int_equal(r.ids[i], i);
	for (uint32_t i = 0; i < 300; i++)
		if (pos[i].segment < pos[299].segment)
			assert_true(i < r.n);
	assert_true(r.n < 300);
	print_message("periodic crash: %zu of 300 records survived (lost: the active segment's)\n",
				  r.n);
	replayed_free(&r);
	assert_ok(cf_commitlog_close(log));
}

static void
periodic_background_sync_runs(void **state)
{
	fault_fixture *fx = *state;
	const char *dir = fx->dir;
	cf_env	   *env = fx->env;
	cf_commitlog_options o = {.env = env, .dir = dir, .sync_mode = CF_COMMITLOG_PERIODIC,
	.sync_period_us = 2000};
	struct cf_commitlog_stats st;
	uint64_t	before;
	replayed	r = {0};
	cf_commitlog *log;

	assert_ok(cf_commitlog_open(&o, &log));
	assert_ok(cf_commitlog_replay(log, collect, &r, NULL));
	for (uint32_t i = 0; i < 20; i++)
		append_id(log, 1, i);

	/*
	 * The syncer may have run between the appends (it did, under load: 9 of 20 then
	 * survived), so count from after the last one. Syncs and writes take turns (the
	 * log's I/O token), so any sync counted after the last append returned covers it.
	 */
	cf_commitlog_stats(log, &st);
	before = st.syncs;
	for (int i = 0; i < 10000; i++)	/* up to 10 s on a loaded machine */
	{
		cf_commitlog_stats(log, &st);
		if (st.syncs >= before + 1)
			break;
		usleep(1000);
	}
	assert_true(st.syncs >= before + 1);
	assert_ok(cf_env_fault_crash(env));
	cf_status_free(cf_commitlog_close(log));
	log = open_log(env, dir, CF_COMMITLOG_PERIODIC, 0, &r);
	assert_int_equal(r.n, 20);
	replayed_free(&r);
	assert_ok(cf_commitlog_close(log));
}

/* ==================== group commit ==================== */

#define GC_THREADS 8
#define GC_APPENDS 150

typedef struct gc_worker
{
	cf_commitlog *log;
	uint32_t	first;
	pthread_t	th;
} gc_worker;

static void *
gc_worker_main(void *arg)
{
	gc_worker  *w = arg;
	char		buf[256];
	uint32_t	cf = 3;

	for (uint32_t i = 0; i < GC_APPENDS; i++)
	{
		size_t		len = make_payload(w->first + i, buf);
		cf_status  *s = cf_commitlog_append(w->log, &cf, 1, cf_slice_of(buf, len), NULL);

		if (s != NULL)
		{
			cf_status_free(s);
			return (void *) 1;
		}
	}
	return NULL;
}

/* Runs GC_THREADS x GC_APPENDS appends; returns the stats and the rate. */
static double
run_appenders(const char *dir, cf_commitlog_sync_mode mode, int64_t window,
			  struct cf_commitlog_stats *st)
{
	cf_commitlog_options o = {.env = cf_env_posix(), .dir = dir, .sync_mode = mode,
	.batch_window_us = window};
	gc_worker	w[GC_THREADS];
	cf_commitlog *log;
	replayed	r = {0};
	struct timespec t0;
	struct timespec t1;
	double		secs;

	assert_ok(cf_commitlog_open(&o, &log));
	assert_ok(cf_commitlog_replay(log, collect, &r, NULL));
	replayed_free(&r);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (int i = 0; i < GC_THREADS; i++)
	{
		w[i].log = log;
		w[i].first = (uint32_t) i * 1000u;
		assert_int_equal(pthread_create(&w[i].th, NULL, gc_worker_main, &w[i]), 0);
	}
	for (int i = 0; i < GC_THREADS; i++)
	{
		void	   *ret;

		pthread_join(w[i].th, &ret);
		assert_null(ret);
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	cf_commitlog_stats(log, st);
	assert_ok(cf_commitlog_cf_flushed(log, 3, cf_commitlog_position(log)));
	assert_ok(cf_commitlog_close(log));
	secs = (double) (t1.tv_sec - t0.tv_sec) + (double) (t1.tv_nsec - t0.tv_nsec) / 1e9;
	return (double) (GC_THREADS * GC_APPENDS) / secs;
}

static void
group_commit_shares_fsyncs(void **state)
{
	char	   *dir = make_tmpdir();
	struct cf_commitlog_stats b;
	struct cf_commitlog_stats bw;
	struct cf_commitlog_stats p;
	double		rb;
	double		rbw;
	double		rp;
	replayed	r = {0};
	cf_commitlog *log;

	(void) state;
	rb = run_appenders(dir, CF_COMMITLOG_BATCH, 0, &b);
	rbw = run_appenders(dir, CF_COMMITLOG_BATCH, 500, &bw);
	rp = run_appenders(dir, CF_COMMITLOG_PERIODIC, 0, &p);
	print_message("%d threads x %d appends:\n", GC_THREADS, GC_APPENDS);
	print_message("  batch:             %8.0f appends/s, %4llu syncs, %4llu groups\n",
				  rb, (unsigned long long) b.syncs, (unsigned long long) b.groups);
	print_message("  batch, 500us window: %6.0f appends/s, %4llu syncs, %4llu groups\n",
				  rbw, (unsigned long long) bw.syncs, (unsigned long long) bw.groups);
	print_message("  periodic:          %8.0f appends/s, %4llu syncs, %4llu groups\n",
				  rp, (unsigned long long) p.syncs, (unsigned long long) p.groups);
	assert_int_equal(b.records, GC_THREADS * GC_APPENDS);
	assert_true(b.syncs < b.records);
	assert_true(bw.syncs < bw.records);
	/* One sync per group, plus the new segment's header. */
	assert_int_equal(b.syncs, b.groups + 1);

	/*
	 * Each run flushed CF 3 and so retired the segments it replayed; only the last
	 * run's segment (active when it was flushed) is left.
	 */
	log = open_log(cf_env_posix(), dir, CF_COMMITLOG_BATCH, 0, &r);
	assert_false(r.bad);
	assert_int_equal(r.n, GC_THREADS * GC_APPENDS);
	replayed_free(&r);
	assert_ok(cf_commitlog_close(log));
	remove_tmpdir(dir);
}

static void
concurrent_appends_replay_in_order(void **state)
{
	char	   *dir = make_tmpdir();
	cf_commitlog_options o = {.env = cf_env_posix(), .dir = dir,
	.sync_mode = CF_COMMITLOG_BATCH, .segment_size = 8192};
	gc_worker	w[GC_THREADS];
	replayed	r = {0};
	uint32_t	seen[GC_THREADS] = {0};
	cf_commitlog *log;

	(void) state;
	assert_ok(cf_commitlog_open(&o, &log));
	assert_ok(cf_commitlog_replay(log, collect, &r, NULL));
	for (int i = 0; i < GC_THREADS; i++)
	{
		w[i].log = log;
		w[i].first = (uint32_t) i * 1000u;
		assert_int_equal(pthread_create(&w[i].th, NULL, gc_worker_main, &w[i]), 0);
	}
	for (int i = 0; i < GC_THREADS; i++)
		pthread_join(w[i].th, NULL);
	assert_ok(cf_commitlog_close(log));

	log = open_log(cf_env_posix(), dir, CF_COMMITLOG_BATCH, 8192, &r);
	assert_int_equal(r.n, GC_THREADS * GC_APPENDS);
	for (size_t k = 0; k < r.n; k++)
	{
		uint32_t	t = r.ids[k] / 1000u;

		assert_true(t < GC_THREADS);
		assert_int_equal(r.ids[k] % 1000u, seen[t]);	/* per-thread order kept */
		seen[t]++;
		if (k > 0)
			assert_true(cf_commitlog_pos_cmp(r.pos[k - 1], r.pos[k]) < 0);
	}
	replayed_free(&r);
	assert_ok(cf_commitlog_close(log));
	remove_tmpdir(dir);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(records_name_one_to_65535_cfs),
		cmocka_unit_test(segment_names_round_trip),
		cmocka_unit_test(round_trip_across_segments),
		cmocka_unit_test(framed_records_replay_like_copied_ones),
		cmocka_unit_test(misuse_is_refused),
		cmocka_unit_test(lock_prevents_double_open),
		cmocka_unit_test(retirement_deletes_exactly_flushed_segments),
		cmocka_unit_test(replayed_segments_retire_after_flush),
		cmocka_unit_test_setup_teardown(torn_tail_at_every_offset, setup_quiet_log, teardown_log),
		cmocka_unit_test_setup_teardown(flipped_byte_in_last_segment_is_a_tail, setup_quiet_log, teardown_log),
		cmocka_unit_test_setup_teardown(flipped_byte_in_middle_segment_is_corruption, setup_quiet_log, teardown_log),
		cmocka_unit_test_setup_teardown(garbage_tails_are_torn, setup_quiet_log, teardown_log),
		cmocka_unit_test(callback_error_stops_replay),
		cmocka_unit_test_setup_teardown(failed_sync_fails_the_log, setup_fault, teardown_fault),
		cmocka_unit_test_setup_teardown(enospc_fails_the_log, setup_quiet_log, teardown_log),
		cmocka_unit_test_setup_teardown(short_write_and_failed_rollover, setup_quiet_log, teardown_log),
		cmocka_unit_test_setup_teardown(batch_crash_keeps_every_acknowledged_record, setup_fault, teardown_fault),
		cmocka_unit_test_setup_teardown(periodic_crash_loses_only_unsynced_records, setup_fault, teardown_fault),
		cmocka_unit_test_setup_teardown(periodic_background_sync_runs, setup_fault, teardown_fault),
		cmocka_unit_test(group_commit_shares_fsyncs),
		cmocka_unit_test(concurrent_appends_replay_in_order),
	};

	cf_log_set_level(CF_LOG_WARN);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
