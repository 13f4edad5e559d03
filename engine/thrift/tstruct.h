/*
 * thrift/tstruct.h — a table-driven codec for Thrift structs held in C structs.
 *
 * A struct is described once, as data: each field's id, name, value type, where it
 * lives in the C struct (offsetof), its has_ flag if optional, and its IDL default.
 * One reader and one writer walk those tables, so every struct of thrift/cassandra.h
 * gets the same checks (required fields, wrong types skipped, defaults, caps) from the
 * same few hundred lines instead of one hand-written codec per struct.
 *
 * Storage conventions (those of thrift/cassandra.h):
 *  - bool / i32 / i64 / double: the C type at off;
 *  - string / binary: a cf_slice at off (strings are UTF-8-checked on decode);
 *  - struct: the C struct at off;
 *  - list<T>: a T* at off and a size_t count at n_off; a list of lists holds one
 *    (T*, count) struct per element, the array at offset 0, the count at the outer
 *    type's val_n_off;
 *  - map<K,V>: an array of entries (entry_size bytes each) at off, the count at
 *    n_off; the key lives at key_off inside an entry, the value at val_off (and its
 *    count at val_n_off when the value is a container).
 *
 * Decoding zeroes the struct, applies defaults, then fills fields as they come;
 * a required field (no has_ flag, no default) that never came is CF_ERR_PROTOCOL
 * "required field <Struct>.<field> missing". Field order on the wire is free; a
 * field that comes twice keeps the last value.
 *
 * Thread safety: descriptors are immutable; the functions keep no state.
 */
#ifndef CF_THRIFT_TSTRUCT_H
#define CF_THRIFT_TSTRUCT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "thrift/tbinary.h"

typedef enum cf_ts_kind
{
	CF_TS_BOOL,
	CF_TS_I32,
	CF_TS_I64,
	CF_TS_DOUBLE,
	CF_TS_BINARY,
	CF_TS_STRING,
	CF_TS_STRUCT,
	CF_TS_LIST,
	CF_TS_MAP
} cf_ts_kind;

typedef struct cf_ts_struct cf_ts_struct;
typedef struct cf_ts_type cf_ts_type;

struct cf_ts_type
{
	cf_ts_kind	kind;
	const cf_ts_struct *st;		/* STRUCT */
	const cf_ts_type *elem;		/* LIST: the element type; MAP: the key type */
	size_t		size;			/* LIST: bytes per element; MAP: bytes per entry */
	const cf_ts_type *val;		/* MAP: the value type */
	uint16_t	key_off;		/* MAP: the key's offset in an entry */
	uint16_t	val_off;		/* MAP: the value's offset in an entry */
	uint16_t	val_n_off;		/* MAP: the value's count, if it is a container;
								 * LIST of lists: each element's count */
};

/* has_off of a field without a has_ flag. */
#define CF_TS_NO_FLAG UINT16_MAX

typedef struct cf_ts_field
{
	int16_t		id;
	const char *name;
	const cf_ts_type *type;
	uint16_t	off;			/* the value */
	uint16_t	n_off;			/* LIST/MAP: the count */
	uint16_t	has_off;		/* optional: the bool has_ flag; else CF_TS_NO_FLAG */
	bool		required;		/* missing → error (only without a default) */
	bool		has_default;	/* filled in when absent */
	int32_t		def_i;			/* BOOL/I32 default */
	double		def_d;			/* DOUBLE default */
	const char *def_s;			/* STRING default */
} cf_ts_field;

struct cf_ts_struct
{
	const char *name;			/* the IDL's name, for error messages */
	size_t		size;			/* sizeof the C struct */
	const cf_ts_field *fields;	/* ascending ids, at most 32 */
	int			n_fields;
};

/* The wire type byte of a value type. */
static inline uint8_t
cf_ts_wire_type(const cf_ts_type *t)
{
	static const uint8_t wire[] = {
		[CF_TS_BOOL] = CF_TB_BOOL, [CF_TS_I32] = CF_TB_I32, [CF_TS_I64] = CF_TB_I64,
		[CF_TS_DOUBLE] = CF_TB_DOUBLE, [CF_TS_BINARY] = CF_TB_STRING,
		[CF_TS_STRING] = CF_TB_STRING, [CF_TS_STRUCT] = CF_TB_STRUCT,
		[CF_TS_LIST] = CF_TB_LIST, [CF_TS_MAP] = CF_TB_MAP,
	};

	return wire[t->kind];
}

/*
 * Reads a struct of descriptor st (the reader at its first field header) into base.
 * Errors are recorded in d (see tbinary.h).
 */
void		cf_ts_read_struct(cf_tb_dec *d, const cf_ts_struct *st, void *base);

/*
 * Reads one value of field f into base (the field header already read and its wire
 * type checked); used for fields handled outside a descriptor (a reply's success).
 */
void		cf_ts_read_field(cf_tb_dec *d, const cf_ts_field *f, void *base);

/* Appends the fields of base (optional ones only when flagged present), then STOP. */
void		cf_ts_write_struct(cf_buf *b, const cf_ts_struct *st, const void *base);

/* Appends field f of base with its header, whether or not it is flagged present. */
void		cf_ts_write_field(cf_buf *b, const cf_ts_field *f, const void *base);

/* Fills base's defaults (and zeroes the rest), as the decoder does before reading. */
void		cf_ts_init_struct(const cf_ts_struct *st, void *base);

#endif							/* CF_THRIFT_TSTRUCT_H */
