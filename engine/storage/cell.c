/*
 * storage/cell.c — path order, range coverage and reconciliation of cells.
 */
#include "storage/cell.h"

int
cf_path_cmp(const cf_col_order *o, cf_slice sc_a, cf_slice name_a,
			cf_slice sc_b, cf_slice name_b)
{
	if (o->super)
	{
		int			c = cf_type_compare(o->cmp, sc_a, sc_b);

		if (c != 0)
			return c;
		return cf_type_compare(o->subcmp, name_a, name_b);
	}
	return cf_type_compare(o->cmp, name_a, name_b);
}

bool
cf_name_in_range(cf_type t, cf_slice name, cf_slice start, cf_slice finish)
{
	if (start.len && cf_type_compare(t, name, start) < 0)
		return false;
	if (finish.len && cf_type_compare(t, name, finish) > 0)
		return false;
	return true;
}

bool
cf_range_tomb_covers(const cf_col_order *o, const cf_range_tomb *t, cf_slice sc, cf_slice name)
{
	if (!o->super)
		return cf_name_in_range(o->cmp, name, t->start, t->finish);
	if (t->sc.len == 0)
		return cf_name_in_range(o->cmp, sc, t->start, t->finish);
	return cf_type_compare(o->cmp, t->sc, sc) == 0 &&
		cf_name_in_range(o->subcmp, name, t->start, t->finish);
}

int
cf_cell_reconcile(const cf_cell *a, const cf_cell *b)
{
	bool		a_del = (a->flags & CF_CELL_DELETED) != 0;
	bool		b_del = (b->flags & CF_CELL_DELETED) != 0;
	int			c;

	if (a->timestamp != b->timestamp)
		return a->timestamp > b->timestamp ? 1 : -1;
	if (a_del != b_del)
		return a_del ? 1 : -1;
	c = cf_slice_cmp(a->value, b->value);
	if (c != 0)
		return c;
	if (a->local_time != b->local_time)
		return a->local_time > b->local_time ? 1 : -1;
	if (a->flags != b->flags)
		return a->flags > b->flags ? 1 : -1;
	return 0;
}
