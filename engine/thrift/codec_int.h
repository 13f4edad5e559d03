/*
 * thrift/codec_int.h — private to the message codecs (thrift/cassandra.c for the 0.7
 * IDL, thrift/admin.c for colfam's methods): the macros that write their tstruct.h
 * descriptor tables, the 0.7 types admin.c reuses, and the decoder set-up under
 * cf_t_limits that both use.
 * Not for other modules: they see the C structs of cassandra.h and admin.h only.
 *
 * Table macros: S is the C struct, m the member; a list or map member counts its
 * elements in n_<m>, an optional member has the flag has_<m>.
 *
 * Thread safety: the tables are immutable; nothing here keeps state.
 */
#ifndef CF_THRIFT_CODEC_INT_H
#define CF_THRIFT_CODEC_INT_H

#include <stddef.h>

#include "thrift/cassandra.h"
#include "thrift/tbinary.h"
#include "thrift/tstruct.h"

#define lengthof(a) ((int) (sizeof(a) / sizeof((a)[0])))

/* ---- value types ---- */

#define STRUCT_TYPE(st_) {.kind = CF_TS_STRUCT, .st = &(st_)}
#define LIST_TYPE(elem_, ctype) {.kind = CF_TS_LIST, .elem = &(elem_), .size = sizeof(ctype)}
/* map<K,V> stored as entries of type E: the key at E.k, the value at E.v. */
#define MAP_TYPE(key_, val_, E, k, v) \
	{.kind = CF_TS_MAP, .elem = &(key_), .val = &(val_), .size = sizeof(E), \
	 .key_off = offsetof(E, k), .val_off = offsetof(E, v)}
/* The same with a container value, its count at E.n_v. */
#define MAP_LIST_TYPE(key_, val_, E, k, v) \
	{.kind = CF_TS_MAP, .elem = &(key_), .val = &(val_), .size = sizeof(E), \
	 .key_off = offsetof(E, k), .val_off = offsetof(E, v), .val_n_off = offsetof(E, n_##v)}

/* list<list<T>> stored as elements of type E: the inner array at E.v (offset 0), its count at E.n_v. */
#define LIST_LIST_TYPE(elem_, E, v) \
	{.kind = CF_TS_LIST, .elem = &(elem_), .size = sizeof(E), .val_n_off = offsetof(E, n_##v)}

/* ---- fields ---- */

#define REQ(id_, S, m, t) \
	{.id = id_, .name = #m, .type = &(t), .off = offsetof(S, m), \
	 .has_off = CF_TS_NO_FLAG, .required = true}
#define REQ_N(id_, S, m, t) \
	{.id = id_, .name = #m, .type = &(t), .off = offsetof(S, m), \
	 .n_off = offsetof(S, n_##m), .has_off = CF_TS_NO_FLAG, .required = true}
#define OPT(id_, S, m, t) \
	{.id = id_, .name = #m, .type = &(t), .off = offsetof(S, m), \
	 .has_off = offsetof(S, has_##m)}
#define OPT_N(id_, S, m, t) \
	{.id = id_, .name = #m, .type = &(t), .off = offsetof(S, m), \
	 .n_off = offsetof(S, n_##m), .has_off = offsetof(S, has_##m)}

/* A required field with an IDL default: absent means the default, not an error. */
#define DEF_I(id_, S, m, t, v) \
	{.id = id_, .name = #m, .type = &(t), .off = offsetof(S, m), \
	 .has_off = CF_TS_NO_FLAG, .has_default = true, .def_i = (v)}

/* The descriptor var of the C struct S named idl_name, over the array fields_. */
#define STRUCT(var, idl_name, S, fields_) \
	static const cf_ts_struct var = {idl_name, sizeof(S), fields_, lengthof(fields_)}

/*
 * The 0.7 IDL's types that thrift/admin.c's methods reuse (defined in cassandra.c):
 * ColumnParent, SlicePredicate, list<KeySlice>.
 */
extern const cf_ts_type cf_t_type_column_parent;
extern const cf_ts_type cf_t_type_slice_predicate;
extern const cf_ts_type cf_t_type_list_key_slice;

/*
 * Starts decoding r into arena under lim's caps (cf_t_limits_default() when lim is
 * NULL).
 */
void		cf_t_dec_init(cf_tb_dec *d, cf_rd *r, const cf_t_limits *lim, cf_arena *arena);

#endif							/* CF_THRIFT_CODEC_INT_H */
