/*
 * thrift/dispatch_reply.h — the replies of the read methods (get, get_slice,
 * multiget_slice, get_range_slices, get_indexed_slices, colfam_multiget_chain) encoded
 * straight from the engine's results (db/read.h), for the server's dispatch.
 *
 * Why not thrift/cassandra.h's cf_t_write_reply: that path first copies every cell
 * into a ColumnOrSuperColumn struct, then walks them with the table-driven encoder
 * (thrift/tstruct.h), which pays a descriptor lookup, a switch and a bounds check per
 * field. A range scan page is ~100k cells, and that path was a quarter of colfamd's
 * CPU in a scan. These encoders size the reply first, make room once, and store
 * straight into it. The bytes are those cf_t_write_reply writes for the same result
 * (tests/unit/test_dispatch_reply.c builds that result and compares them).
 *
 * Part of the server side (like dispatch.c, left out of libcolfam): it knows the db's
 * result types.
 *
 * Thread safety: none needed; the functions keep no state.
 */
#ifndef CF_THRIFT_DISPATCH_REPLY_H
#define CF_THRIFT_DISPATCH_REPLY_H

#include <stdint.h>

#include "db/read.h"
#include "thrift/cassandra.h"
#include "util/buf.h"
#include "util/status.h"

/*
 * Appends the REPLY message of a successful call m with seqid to out, its result
 * taken from the engine's answer:
 *  - CF_T_M_GET: rs must hold exactly one column or super column;
 *  - CF_T_M_GET_SLICE: rs;
 *  - CF_T_M_MULTIGET_SLICE: rows, as the map key → columns;
 *  - CF_T_M_GET_RANGE_SLICES, CF_T_M_GET_INDEXED_SLICES: rows, as KeySlices.
 * The argument the method does not use may be NULL. Errors: CF_ERR_INVALID for
 * another method or a get without exactly one result; CF_ERR_TOO_LARGE naming the
 * message's size and out's limit when it would pass that limit; the buffer's error
 * (cf_buf_status) when it fails otherwise (no memory, a length over the protocol's
 * i32). On error out may hold a partial message and be failed: the caller truncates.
 */
cf_status  *cf_tr_write_reply(cf_buf *out, cf_t_method m, int32_t seqid,
							  const cf_row_slice *rs, const cf_read_rows *rows);

/*
 * Appends the REPLY message of a successful colfam_multiget_chain (thrift/admin.h;
 * method is its wire name) with seqid: list<list<KeySlice>>, list i holding steps[i]'s
 * rows (NULL: a step that read nothing, an empty list). The bytes are those
 * cf_ta_write_reply writes for the same answers. Errors as cf_tr_write_reply's.
 */
cf_status  *cf_tr_write_chain_reply(cf_buf *out, const char *method, int32_t seqid,
									const cf_read_rows *const *steps, size_t n_steps);

/*
 * A get_range_slices (or get_indexed_slices) reply streamed from a range scan: the
 * sink that cf_tr_range_writer_init sets up, given to db/read.h cf_read_range_sink
 * (directly or through the service), appends the message to out as the rows arrive,
 * each cell stored once, straight from the merge; the list counts are patched in as
 * they become known. Past out's limit it only counts the bytes, so that the error
 * names the whole size. The bytes equal cf_tr_write_reply's for the rows
 * cf_read_range returns for the same scan.
 *
 * Usage: init; the scan (which calls begin first: the message restarts at out's
 * length at init, so a retried scan starts over); then finish, which completes the
 * message. Errors as cf_tr_write_reply's (the scan returns the sink's; finish
 * returns CF_ERR_TOO_LARGE naming the size and the limit); on any error the caller
 * truncates out to its length at init. cf_tr_range_writer_failed tells whether the
 * scan's error came from the writer (an encoding error) rather than from the read. init: CF_ERR_INVALID for a method whose reply
 * is not KeySlices. The fields are private.
 */
typedef struct cf_tr_range_writer
{
	cf_buf	   *out;
	cf_t_method m;
	int32_t		seqid;
	size_t		mark;			/* out's length at init: the message starts there */
	size_t		over;			/* bytes past the limit, counted, not written */
	size_t		list_off;		/* the KeySlice list's header */
	size_t		n_rows;
	cf_slice	key;			/* the open row's key */
	bool		row_head;		/* its KeySlice is started */
	size_t		row_off;		/* its list's header */
	size_t		row_n;			/* its results so far */
	bool		failed;			/* a callback of this attempt returned an error */
} cf_tr_range_writer;

cf_status  *cf_tr_range_writer_init(cf_tr_range_writer *w, cf_buf *out, cf_t_method m,
									int32_t seqid, cf_read_sink *sink);
cf_status  *cf_tr_range_writer_finish(cf_tr_range_writer *w);
bool		cf_tr_range_writer_failed(const cf_tr_range_writer *w);

#endif							/* CF_THRIFT_DISPATCH_REPLY_H */
