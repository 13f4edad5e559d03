/*
 * thrift/dispatch_reply.c — the read methods' replies straight from db/read.h's
 * results (see dispatch_reply.h for why).
 *
 * Two passes over the result: the first adds up the exact size of the message (and
 * refuses a length the protocol's i32 cannot carry), the second stores into room made
 * once, with no per-field bounds check or growth. The field order, optional fields
 * and STOPs are those of the IDL tables in thrift/cassandra.c: Column {1: name,
 * 2: value, 3: timestamp, 4: ttl if > 0}, SuperColumn {1: name, 2: columns},
 * ColumnOrSuperColumn {1: column | 2: super_column}, KeySlice {1: key, 2: columns},
 * a result's success in field 0.
 */
#include "thrift/dispatch_reply.h"

#include <string.h>

#include "thrift/tbinary.h"

/* Wire sizes of the pieces (tbinary.h's encodings). */
#define FIELD_HDR 3				/* type byte, i16 id */
#define LIST_HDR 5				/* element type byte, i32 count */
#define MAP_HDR 6				/* key and value type bytes, i32 count */
#define BINARY_HDR 4			/* i32 length */
#define STOP 1

/* ---------------------------------------------------------------- sizing */

/* true if n can be a protocol length (i32); else false, out marked OVERRANGE. */
static bool
fits_i32(cf_buf *out, size_t n)
{
	if (n <= INT32_MAX)
		return true;
	if (out->failed == 0)
		out->failed = CF_BUF_OVERRANGE;
	return false;
}

static size_t
column_size(const cf_read_column *c)
{
	return FIELD_HDR + BINARY_HDR + c->name.len +
		FIELD_HDR + BINARY_HDR + c->value.len +
		FIELD_HDR + 8 +
		(c->ttl > 0 ? FIELD_HDR + 4 : 0) + STOP;
}

/* column_size of c; 0 (out failed) when its name or value is too long. */
static size_t
column_size_checked(cf_buf *out, const cf_read_column *c)
{
	if (!fits_i32(out, c->name.len) || !fits_i32(out, c->value.len))
		return 0;
	return column_size(c);
}

/* The size of a ColumnOrSuperColumn holding column c; 0 (out failed) if too long. */
static size_t
column_cosc_size(cf_buf *out, const cf_read_column *c)
{
	size_t		size = column_size_checked(out, c);

	return size ? FIELD_HDR + size + STOP : 0;
}

/* The size of a ColumnOrSuperColumn holding super column s; 0 (out failed) if too long. */
static size_t
super_cosc_size(cf_buf *out, const cf_read_super *s)
{
	size_t		size;

	if (!fits_i32(out, s->name.len) || !fits_i32(out, s->n_columns))
		return 0;
	size = FIELD_HDR + FIELD_HDR + BINARY_HDR + s->name.len + FIELD_HDR + LIST_HDR +
		STOP + STOP;
	for (size_t j = 0; j < s->n_columns; j++)
	{
		size_t		part = column_size_checked(out, &s->columns[j]);

		if (part == 0)
			return 0;
		size += part;
	}
	return size;
}

/* The size of list<ColumnOrSuperColumn> for rs; 0 (out failed) on an overlong length. */
static size_t
coscs_size(cf_buf *out, const cf_row_slice *rs)
{
	size_t		n = rs->is_super ? rs->n_supers : rs->n_columns;
	size_t		size = LIST_HDR;

	if (!fits_i32(out, n))
		return 0;
	for (size_t i = 0; i < n; i++)
	{
		size_t		part = rs->is_super ? super_cosc_size(out, &rs->supers[i]) :
			column_cosc_size(out, &rs->columns[i]);

		if (part == 0)
			return 0;
		size += part;
	}
	return size;
}

/* ---------------------------------------------------------------- storing */

static inline uint8_t *
put_field(uint8_t *p, uint8_t type, int16_t id)
{
	p[0] = type;
	p[1] = (uint8_t) ((uint16_t) id >> 8);
	p[2] = (uint8_t) id;
	return p + FIELD_HDR;
}

static inline uint8_t *
put_i32(uint8_t *p, int32_t v)
{
	cf_store_be32(p, (uint32_t) v);
	return p + 4;
}

static inline uint8_t *
put_binary(uint8_t *p, cf_slice s)
{
	p = put_i32(p, (int32_t) s.len);
	cf_copy_short(p, s.p, s.len);
	return p + s.len;
}

static inline uint8_t *
put_list(uint8_t *p, uint8_t elem, size_t n)
{
	*p++ = elem;
	return put_i32(p, (int32_t) n);
}

/* A Column struct (its fields and STOP). */
static inline uint8_t *
put_column(uint8_t *p, const cf_read_column *c)
{
	p = put_binary(put_field(p, CF_TB_STRING, 1), c->name);
	p = put_binary(put_field(p, CF_TB_STRING, 2), c->value);
	p = put_field(p, CF_TB_I64, 3);
	cf_store_be64(p, (uint64_t) c->timestamp);
	p += 8;
	if (c->ttl > 0)
		p = put_i32(put_field(p, CF_TB_I32, 4), c->ttl);
	*p++ = CF_TB_STOP;
	return p;
}

/* A ColumnOrSuperColumn struct holding column c. */
static inline uint8_t *
put_column_cosc(uint8_t *p, const cf_read_column *c)
{
	p = put_column(put_field(p, CF_TB_STRUCT, 1), c);
	*p++ = CF_TB_STOP;
	return p;
}

/* A ColumnOrSuperColumn struct holding super column s. */
static uint8_t *
put_super_cosc(uint8_t *p, const cf_read_super *s)
{
	p = put_field(p, CF_TB_STRUCT, 2);
	p = put_binary(put_field(p, CF_TB_STRING, 1), s->name);
	p = put_list(put_field(p, CF_TB_LIST, 2), CF_TB_STRUCT, s->n_columns);
	for (size_t j = 0; j < s->n_columns; j++)
		p = put_column(p, &s->columns[j]);
	*p++ = CF_TB_STOP;
	*p++ = CF_TB_STOP;
	return p;
}

/* One ColumnOrSuperColumn struct: element i of rs. */
static uint8_t *
put_cosc(uint8_t *p, const cf_row_slice *rs, size_t i)
{
	return rs->is_super ? put_super_cosc(p, &rs->supers[i]) :
		put_column_cosc(p, &rs->columns[i]);
}

/* list<ColumnOrSuperColumn> of rs. */
static uint8_t *
put_coscs(uint8_t *p, const cf_row_slice *rs)
{
	size_t		n = rs->is_super ? rs->n_supers : rs->n_columns;

	p = put_list(p, CF_TB_STRUCT, n);
	for (size_t i = 0; i < n; i++)
		p = put_cosc(p, rs, i);
	return p;
}

/* ---------------------------------------------------------------- replies */

static cf_status *
check_args(cf_t_method m, const cf_row_slice *rs, const cf_read_rows *rows)
{
	switch (m)
	{
		case CF_T_M_GET:
			if (rs == NULL || (rs->is_super ? rs->n_supers : rs->n_columns) != 1)
				return cf_status_make(CF_ERR_INVALID,
									  "get's reply takes exactly one column or super column");
			return NULL;
		case CF_T_M_GET_SLICE:
			if (rs == NULL)
				break;
			return NULL;
		case CF_T_M_MULTIGET_SLICE:
		case CF_T_M_GET_RANGE_SLICES:
		case CF_T_M_GET_INDEXED_SLICES:
			if (rows == NULL)
				break;
			return NULL;
		default:
			return cf_status_make(CF_ERR_INVALID, "%s is not a read method with rows",
								  cf_t_method_name(m) ? cf_t_method_name(m) : "(unknown)");
	}
	return cf_status_make(CF_ERR_INVALID, "%s: no result to encode", cf_t_method_name(m));
}

/* CF_ERR_TOO_LARGE: the message from mark would be size bytes, more than out's limit. */
static cf_status *
too_large(const cf_buf *out, size_t size)
{
	return cf_status_make(CF_ERR_TOO_LARGE, "it would be %zu bytes, more than the "
						  "limit of %zu", size, out->limit);
}

/*
 * Room in out for a reply's last size bytes (its header written from mark on): *p
 * where they go, or the error (too_large's over the limit, else out's).
 */
static cf_status *
reply_room(cf_buf *out, size_t mark, size_t size, uint8_t **p)
{
	if ((*p = cf_tb_room(out, size)) != NULL)
		return NULL;
	if (out->failed == CF_BUF_OVERLIMIT)
		return too_large(out, out->len - mark + size);
	return cf_buf_status(out);
}

/*
 * Ends method's reply, begun at mark, with the result's STOP at p. The sizing pass and
 * the stores disagreeing is a bug here: CF_ERR_INTERNAL, the reply taken back, never
 * sent.
 */
static cf_status *
reply_end(cf_buf *out, size_t mark, uint8_t *p, const char *method)
{
	*p++ = CF_TB_STOP;
	if (p == out->data + out->len)
		return NULL;
	out->len = mark;
	return cf_status_make(CF_ERR_INTERNAL, "%s: reply size miscounted", method);
}

/*
 * The size of rows as multiget_slice's map (as_map) or as a list<KeySlice>, the
 * container's header included; 0 (out failed) on an overlong length.
 */
static size_t
rows_size(cf_buf *out, const cf_read_rows *rows, bool as_map)
{
	size_t		size = as_map ? MAP_HDR : LIST_HDR;
	size_t		part;

	if (!fits_i32(out, rows->n_rows))
		return 0;
	for (size_t i = 0; i < rows->n_rows; i++)
	{
		const cf_read_row *r = &rows->rows[i];

		if (!fits_i32(out, r->key.len) || (part = coscs_size(out, &r->slice)) == 0)
			return 0;
		size += BINARY_HDR + r->key.len + part;
		if (!as_map)
			size += FIELD_HDR + FIELD_HDR + STOP;	/* KeySlice's fields and STOP */
	}
	return size;
}

/* The size of the result struct's success field and STOP; 0 (out failed) if too long. */
static size_t
result_size(cf_buf *out, cf_t_method m, const cf_row_slice *rs, const cf_read_rows *rows)
{
	size_t		size = FIELD_HDR + STOP;
	size_t		part;

	switch (m)
	{
		case CF_T_M_GET:
			/* one cosc: the list's size less its header */
			part = coscs_size(out, rs);
			return part ? size + part - LIST_HDR : 0;
		case CF_T_M_GET_SLICE:
			part = coscs_size(out, rs);
			return part ? size + part : 0;
		default:
			part = rows_size(out, rows, m == CF_T_M_MULTIGET_SLICE);
			return part ? size + part : 0;
	}
}

/* list<KeySlice> of rows (NULL: none). */
static uint8_t *
put_key_slices(uint8_t *p, const cf_read_rows *rows)
{
	size_t		n = rows ? rows->n_rows : 0;

	p = put_list(p, CF_TB_STRUCT, n);
	for (size_t i = 0; i < n; i++)
	{
		p = put_binary(put_field(p, CF_TB_STRING, 1), rows->rows[i].key);
		p = put_coscs(put_field(p, CF_TB_LIST, 2), &rows->rows[i].slice);
		*p++ = CF_TB_STOP;
	}
	return p;
}

cf_status *
cf_tr_write_reply(cf_buf *out, cf_t_method m, int32_t seqid, const cf_row_slice *rs,
				  const cf_read_rows *rows)
{
	cf_status  *s = check_args(m, rs, rows);
	size_t		mark = out->len;
	size_t		size;
	uint8_t    *p;

	if (s)
		return s;
	cf_t_write_message_header(out, cf_slice_str(cf_t_method_name(m)), CF_T_REPLY, seqid);
	if (!cf_buf_ok(out) || (size = result_size(out, m, rs, rows)) == 0)
		return cf_buf_status(out);
	if ((s = reply_room(out, mark, size, &p)) != NULL)
		return s;
	switch (m)
	{
		case CF_T_M_GET:
			p = put_cosc(put_field(p, CF_TB_STRUCT, 0), rs, 0);
			break;
		case CF_T_M_GET_SLICE:
			p = put_coscs(put_field(p, CF_TB_LIST, 0), rs);
			break;
		case CF_T_M_MULTIGET_SLICE:
			p = put_field(p, CF_TB_MAP, 0);
			*p++ = CF_TB_STRING;
			*p++ = CF_TB_LIST;
			p = put_i32(p, (int32_t) rows->n_rows);
			for (size_t i = 0; i < rows->n_rows; i++)
				p = put_coscs(put_binary(p, rows->rows[i].key), &rows->rows[i].slice);
			break;
		default:
			p = put_key_slices(put_field(p, CF_TB_LIST, 0), rows);
			break;
	}
	return reply_end(out, mark, p, cf_t_method_name(m));
}

cf_status *
cf_tr_write_chain_reply(cf_buf *out, const char *method, int32_t seqid,
						const cf_read_rows *const *steps, size_t n_steps)
{
	size_t		mark = out->len;
	size_t		size = FIELD_HDR + LIST_HDR + STOP;
	uint8_t    *p;
	cf_status  *s;

	cf_t_write_message_header(out, cf_slice_str(method), CF_T_REPLY, seqid);
	if (!cf_buf_ok(out) || !fits_i32(out, n_steps))
		return cf_buf_status(out);
	for (size_t i = 0; i < n_steps; i++)
	{
		size_t		part = steps[i] ? rows_size(out, steps[i], false) : LIST_HDR;

		if (part == 0)
			return cf_buf_status(out);
		size += part;
	}
	if ((s = reply_room(out, mark, size, &p)) != NULL)
		return s;
	p = put_list(put_field(p, CF_TB_LIST, 0), CF_TB_LIST, n_steps);
	for (size_t i = 0; i < n_steps; i++)
		p = put_key_slices(p, steps[i]);
	return reply_end(out, mark, p, method);
}

/* ---------------------------------------------------------------- streamed range replies */

/*
 * n bytes of w's message: room in the buffer, or NULL once the message is past the
 * limit (from then on only counted, in w->over) or the buffer failed otherwise.
 */
static uint8_t *
rw_room(cf_tr_range_writer *w, size_t n)
{
	uint8_t    *p;

	if (w->over)
	{
		w->over += n;
		return NULL;
	}
	p = cf_tb_room(w->out, n);
	if (p == NULL && w->out->failed == CF_BUF_OVERLIMIT)
		w->over = n;
	return p;
}

/* NULL while the message is written or only counted past the limit; else the failure. */
static cf_status *
rw_status(const cf_tr_range_writer *w)
{
	return w->over ? NULL : cf_buf_status(w->out);
}

/* Writes the open row's KeySlice up to its list's count, if not written yet. */
static cf_status *
rw_row_head(cf_tr_range_writer *w)
{
	uint8_t    *p;

	if (w->row_head)
		return NULL;
	if (!fits_i32(w->out, w->key.len))
		return cf_buf_status(w->out);
	w->row_head = true;
	w->row_n = 0;
	p = rw_room(w, FIELD_HDR + BINARY_HDR + w->key.len + FIELD_HDR + LIST_HDR);
	if (p == NULL)
		return rw_status(w);
	p = put_field(put_binary(put_field(p, CF_TB_STRING, 1), w->key), CF_TB_LIST, 2);
	w->row_off = (size_t) (p - w->out->data);
	put_list(p, CF_TB_STRUCT, 0);
	return NULL;
}

/* A callback's outcome s, marking the writer failed when s is an error. */
static cf_status *
rw_out(cf_tr_range_writer *w, cf_status *s)
{
	if (s != NULL)
		w->failed = true;
	return s;
}

static cf_status *
range_begin(cf_tr_range_writer *w)
{
	uint8_t    *p;

	w->out->len = w->mark;
	w->out->failed = 0;
	w->over = 0;
	w->n_rows = 0;
	w->failed = false;
	cf_t_write_message_header(w->out, cf_slice_str(cf_t_method_name(w->m)), CF_T_REPLY,
							  w->seqid);
	if (!cf_buf_ok(w->out))
		return cf_buf_status(w->out);
	if ((p = rw_room(w, FIELD_HDR + LIST_HDR)) == NULL)
		return rw_status(w);
	p = put_field(p, CF_TB_LIST, 0);
	w->list_off = (size_t) (p - w->out->data);
	put_list(p, CF_TB_STRUCT, 0);
	return NULL;
}

static cf_status *
rw_begin(void *arg)
{
	return rw_out(arg, range_begin(arg));
}

static cf_status *
rw_row_begin(void *arg, cf_slice token, cf_slice key)
{
	cf_tr_range_writer *w = arg;

	(void) token;
	w->key = key;
	w->row_head = false;
	return NULL;
}

/* One result of the open row: column c, or super column sc when c is NULL. */
static cf_status *
rw_result(cf_tr_range_writer *w, const cf_read_column *c, const cf_read_super *sc)
{
	size_t		size = c ? column_cosc_size(w->out, c) : super_cosc_size(w->out, sc);
	cf_status  *s;
	uint8_t    *p;

	if (size == 0)
		return cf_buf_status(w->out);
	if (!w->row_head && (s = rw_row_head(w)) != NULL)
		return s;
	w->row_n++;
	if ((p = rw_room(w, size)) == NULL)
		return rw_status(w);
	if (c)
		put_column_cosc(p, c);
	else
		put_super_cosc(p, sc);
	return NULL;
}

static cf_status *
rw_column(void *arg, const cf_read_column *c)
{
	return rw_out(arg, rw_result(arg, c, NULL));
}

static cf_status *
rw_super(void *arg, const cf_read_super *sc)
{
	return rw_out(arg, rw_result(arg, NULL, sc));
}

static cf_status *
range_row_end(cf_tr_range_writer *w, bool keep)
{
	cf_status  *s;
	uint8_t    *p;

	if (!keep)
	{
		if (w->row_head)
			return cf_status_make(CF_ERR_INTERNAL, "%s: a dropped row had results",
								  cf_t_method_name(w->m));
		return NULL;
	}
	if ((s = rw_row_head(w)) != NULL)
		return s;
	if (!fits_i32(w->out, w->row_n) || !fits_i32(w->out, w->n_rows + 1))
		return cf_buf_status(w->out);
	w->n_rows++;
	if (!w->over)
		cf_store_be32(w->out->data + w->row_off + 1, (uint32_t) w->row_n);
	if ((p = rw_room(w, STOP)) == NULL)
		return rw_status(w);
	*p = CF_TB_STOP;
	return NULL;
}

static cf_status *
rw_row_end(void *arg, bool keep)
{
	return rw_out(arg, range_row_end(arg, keep));
}

cf_status *
cf_tr_range_writer_init(cf_tr_range_writer *w, cf_buf *out, cf_t_method m, int32_t seqid,
						cf_read_sink *sink)
{
	if (m != CF_T_M_GET_RANGE_SLICES && m != CF_T_M_GET_INDEXED_SLICES)
		return cf_status_make(CF_ERR_INVALID, "%s's reply is not a list of KeySlices",
							  cf_t_method_name(m) ? cf_t_method_name(m) : "(unknown)");
	if (!cf_buf_ok(out))
		return cf_buf_status(out);
	memset(w, 0, sizeof(*w));
	w->out = out;
	w->m = m;
	w->seqid = seqid;
	w->mark = out->len;
	*sink = (cf_read_sink) {
		.arg = w,.begin = rw_begin,.row_begin = rw_row_begin,.column = rw_column,
		.super = rw_super,.row_end = rw_row_end
	};
	return NULL;
}

cf_status *
cf_tr_range_writer_finish(cf_tr_range_writer *w)
{
	uint8_t    *p;

	if (!w->over && !cf_buf_ok(w->out))
		return cf_buf_status(w->out);
	if ((p = rw_room(w, STOP)) != NULL)
	{
		*p = CF_TB_STOP;
		cf_store_be32(w->out->data + w->list_off + 1, (uint32_t) w->n_rows);
		return NULL;
	}
	if (w->over)
		return too_large(w->out, w->out->len - w->mark + w->over);
	return cf_buf_status(w->out);
}

bool
cf_tr_range_writer_failed(const cf_tr_range_writer *w)
{
	return w->failed;
}
