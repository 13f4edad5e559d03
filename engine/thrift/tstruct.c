/*
 * thrift/tstruct.c — the table-driven struct reader and writer (see tstruct.h).
 *
 * Lists hold scalars, strings, structs or lists, and maps hold scalar or string keys
 * (all the Cassandra IDL and colfam's methods need), so an element or key is stored
 * inline at an offset, with a count of its own only when it is a list (the outer
 * list's val_n_off); a map's value may be a container (val_n_off).
 */
#include "thrift/tstruct.h"

#include <string.h>

#define AT(base, off) ((char *) (base) + (off))
#define CAT(base, off) ((const char *) (base) + (off))

void
cf_ts_init_struct(const cf_ts_struct *st, void *base)
{
	memset(base, 0, st->size);
	for (int i = 0; i < st->n_fields; i++)
	{
		const cf_ts_field *f = &st->fields[i];

		if (!f->has_default)
			continue;
		switch (f->type->kind)
		{
			case CF_TS_BOOL:
				*(bool *) AT(base, f->off) = f->def_i != 0;
				break;
			case CF_TS_I32:
				*(int32_t *) AT(base, f->off) = f->def_i;
				break;
			case CF_TS_DOUBLE:
				*(double *) AT(base, f->off) = f->def_d;
				break;
			case CF_TS_STRING:
				*(cf_slice *) AT(base, f->off) = cf_slice_str(f->def_s);
				break;
			default:
				break;			/* no other kind has an IDL default here */
		}
	}
}

static void read_value(cf_tb_dec *d, const cf_ts_type *t, void *base, size_t off,
					   size_t n_off);

static void
read_list(cf_tb_dec *d, const cf_ts_type *t, void *base, size_t off, size_t n_off)
{
	size_t		n;
	char	   *arr;

	if (!cf_tb_read_list_begin(d, cf_ts_wire_type(t->elem), &n))
		return;
	arr = cf_tb_alloc_array(d, n, t->size);
	for (size_t i = 0; i < n && cf_tb_ok(d); i++)
		read_value(d, t->elem, arr + i * t->size, 0, t->val_n_off);
	cf_tb_leave(d);
	*(void **) AT(base, off) = arr;
	*(size_t *) AT(base, n_off) = cf_tb_ok(d) ? n : 0;
}

static void
read_map(cf_tb_dec *d, const cf_ts_type *t, void *base, size_t off, size_t n_off)
{
	size_t		n;
	char	   *arr;

	if (!cf_tb_read_map_begin(d, cf_ts_wire_type(t->elem), cf_ts_wire_type(t->val), &n))
		return;
	arr = cf_tb_alloc_array(d, n, t->size);
	for (size_t i = 0; i < n && cf_tb_ok(d); i++)
	{
		char	   *entry = arr + i * t->size;

		read_value(d, t->elem, entry, t->key_off, 0);
		read_value(d, t->val, entry, t->val_off, t->val_n_off);
	}
	cf_tb_leave(d);
	*(void **) AT(base, off) = arr;
	*(size_t *) AT(base, n_off) = cf_tb_ok(d) ? n : 0;
}

static void
read_value(cf_tb_dec *d, const cf_ts_type *t, void *base, size_t off, size_t n_off)
{
	switch (t->kind)
	{
		case CF_TS_BOOL:
			*(bool *) AT(base, off) = cf_tb_read_bool(d);
			break;
		case CF_TS_I32:
			*(int32_t *) AT(base, off) = cf_tb_read_i32(d);
			break;
		case CF_TS_I64:
			*(int64_t *) AT(base, off) = cf_tb_read_i64(d);
			break;
		case CF_TS_DOUBLE:
			*(double *) AT(base, off) = cf_tb_read_double(d);
			break;
		case CF_TS_BINARY:
			*(cf_slice *) AT(base, off) = cf_tb_read_binary(d);
			break;
		case CF_TS_STRING:
			*(cf_slice *) AT(base, off) = cf_tb_read_string(d);
			break;
		case CF_TS_STRUCT:
			cf_ts_read_struct(d, t->st, AT(base, off));
			break;
		case CF_TS_LIST:
			read_list(d, t, base, off, n_off);
			break;
		case CF_TS_MAP:
			read_map(d, t, base, off, n_off);
			break;
	}
}

void
cf_ts_read_field(cf_tb_dec *d, const cf_ts_field *f, void *base)
{
	read_value(d, f->type, base, f->off, f->n_off);
	if (f->has_off != CF_TS_NO_FLAG)
		*(bool *) AT(base, f->has_off) = true;
}

/* The index of field id in st, trying *hint (the field after the last one) first. */
static int
find_field(const cf_ts_struct *st, int16_t id, int *hint)
{
	if (*hint < st->n_fields && st->fields[*hint].id == id)
		return (*hint)++;
	for (int i = 0; i < st->n_fields; i++)
	{
		if (st->fields[i].id == id)
		{
			*hint = i + 1;
			return i;
		}
	}
	return -1;
}

void
cf_ts_read_struct(cf_tb_dec *d, const cf_ts_struct *st, void *base)
{
	uint32_t	seen = 0;
	int			hint = 0;
	uint8_t		type;
	int16_t		id;

	cf_ts_init_struct(st, base);
	if (!cf_tb_enter(d))
		return;
	while (cf_tb_read_field(d, &type, &id))
	{
		int			i = find_field(st, id, &hint);

		if (i < 0 || type != cf_ts_wire_type(st->fields[i].type))
		{
			cf_tb_skip(d, type);	/* unknown, or a known id with the wrong type */
			continue;
		}
		cf_ts_read_field(d, &st->fields[i], base);
		seen |= (uint32_t) 1 << i;
	}
	cf_tb_leave(d);
	for (int i = 0; i < st->n_fields && cf_tb_ok(d); i++)
	{
		if (st->fields[i].required && !(seen & ((uint32_t) 1 << i)))
			cf_tb_fail(d, CF_ERR_PROTOCOL, "required field %s.%s missing",
					   st->name, st->fields[i].name);
	}
}

static void write_value(cf_buf *b, const cf_ts_type *t, const void *base, size_t off,
						size_t n_off);

static void
write_list(cf_buf *b, const cf_ts_type *t, const void *base, size_t off, size_t n_off)
{
	const char *arr = *(const void *const *) CAT(base, off);
	size_t		n = *(const size_t *) CAT(base, n_off);

	cf_tb_write_list_begin(b, cf_ts_wire_type(t->elem), n);
	for (size_t i = 0; i < n && cf_buf_ok(b); i++)
		write_value(b, t->elem, arr + i * t->size, 0, t->val_n_off);
}

static void
write_map(cf_buf *b, const cf_ts_type *t, const void *base, size_t off, size_t n_off)
{
	const char *arr = *(const void *const *) CAT(base, off);
	size_t		n = *(const size_t *) CAT(base, n_off);

	cf_tb_write_map_begin(b, cf_ts_wire_type(t->elem), cf_ts_wire_type(t->val), n);
	for (size_t i = 0; i < n && cf_buf_ok(b); i++)
	{
		const char *entry = arr + i * t->size;

		write_value(b, t->elem, entry, t->key_off, 0);
		write_value(b, t->val, entry, t->val_off, t->val_n_off);
	}
}

static void
write_value(cf_buf *b, const cf_ts_type *t, const void *base, size_t off, size_t n_off)
{
	switch (t->kind)
	{
		case CF_TS_BOOL:
			cf_tb_write_bool(b, *(const bool *) CAT(base, off));
			break;
		case CF_TS_I32:
			cf_tb_write_i32(b, *(const int32_t *) CAT(base, off));
			break;
		case CF_TS_I64:
			cf_tb_write_i64(b, *(const int64_t *) CAT(base, off));
			break;
		case CF_TS_DOUBLE:
			cf_tb_write_double(b, *(const double *) CAT(base, off));
			break;
		case CF_TS_BINARY:
		case CF_TS_STRING:
			cf_tb_write_binary(b, *(const cf_slice *) CAT(base, off));
			break;
		case CF_TS_STRUCT:
			cf_ts_write_struct(b, t->st, CAT(base, off));
			break;
		case CF_TS_LIST:
			write_list(b, t, base, off, n_off);
			break;
		case CF_TS_MAP:
			write_map(b, t, base, off, n_off);
			break;
	}
}

void
cf_ts_write_field(cf_buf *b, const cf_ts_field *f, const void *base)
{
	cf_tb_write_field(b, cf_ts_wire_type(f->type), f->id);
	write_value(b, f->type, base, f->off, f->n_off);
}

void
cf_ts_write_struct(cf_buf *b, const cf_ts_struct *st, const void *base)
{
	for (int i = 0; i < st->n_fields; i++)
	{
		const cf_ts_field *f = &st->fields[i];

		if (f->has_off != CF_TS_NO_FLAG && !*(const bool *) CAT(base, f->has_off))
			continue;
		cf_ts_write_field(b, f, base);
	}
	cf_tb_write_stop(b);
}
