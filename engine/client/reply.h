/*
 * client/reply.h — libcolfam's hand-written readers of the replies a scan pages
 * through: get_slice (list<ColumnOrSuperColumn>), get_range_slices and
 * get_indexed_slices (list<KeySlice>); and a skim of a list<KeySlice> reply that finds
 * its keys without decoding the columns. Private to the client (call.c, pager.c) and
 * the fuzz target that holds them to thrift/cassandra.h's generic reader.
 *
 * Contract: the readers accept only the canonical encoding (what colfamd, like
 * Thrift's generated code, writes: fields in id order, the IDL's wire types, no
 * unknown field) under the caps and memory budget of cf_t_read_reply. On anything
 * else (an exception reply, an unknown or reordered field, a cap, a truncation) they
 * return false and report nothing: the caller decodes with cf_t_read_reply, which
 * gives the result or the error. What they accept they decode exactly as
 * cf_t_read_reply would. After a false, arena may hold memory of the partial decode.
 *
 * Thread safety: no state; the result lives in (and points into) arena and reply.
 */
#ifndef CF_CLIENT_REPLY_H
#define CF_CLIENT_REPLY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "thrift/cassandra.h"

/*
 * Decodes reply, the REPLY of seqid to m (GET_SLICE, GET_RANGE_SLICES or
 * GET_INDEXED_SLICES; any other method is false), into res; lim as cf_t_read_reply's
 * (NULL: the defaults). False: decode it with cf_t_read_reply.
 */
bool		cfc_read_reply_fast(cf_slice reply, cf_t_method m, int32_t seqid,
								const cf_t_limits *lim, cf_arena *arena, cf_t_result *res);

/*
 * The keys of a list<KeySlice> reply (GET_RANGE_SLICES or GET_INDEXED_SLICES) of
 * seqid, in order, into *keys (an arena array, NULL when none) and *n, walking over
 * the columns without building them. False when the reply is not a canonical success
 * (then nothing is known of it); a true does not promise that it decodes.
 */
bool		cfc_skim_reply_keys(cf_slice reply, cf_t_method m, int32_t seqid,
								cf_arena *arena, cf_slice **keys, size_t *n);

#endif							/* CF_CLIENT_REPLY_H */
