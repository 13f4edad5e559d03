/* tests/unit/test_rowmerge.c — storage/rowmerge: one row across memtables and an
 * SSTable, reconciled, shadowed by deletions, walked both ways. */
#include "support/cmocka_prelude.h"
#include "support/slices.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "storage/rowmerge.h"
#include "support/tmpdir.h"

static const cf_col_order std_order = {false, CF_TYPE_UTF8, CF_TYPE_BYTES};
static const cf_col_order super_order = {true, CF_TYPE_UTF8, CF_TYPE_UTF8};

static void
put(cf_memtable *mt, const char *key, const char *sc, const char *name,
	const char *value, int64_t ts, uint8_t flags)
{
	cf_cell		c = {.sc = S(sc), .name = S(name), .value = S(value), .timestamp = ts,
	.flags = flags, .local_time = flags ? 100 : 0, .ttl = (flags & CF_CELL_EXPIRING) ? 5 : 0};
	cf_cf_update u = {.cf_id = 1, .row_del = cf_deletion_none(), .cells = &c, .n_cells = 1};

	assert_null(cf_memtable_apply(mt, S("tok"), S(key), &u));
}

static void
del(cf_memtable *mt, const char *key, int64_t row_ts, const cf_range_tomb *t)
{
	cf_cf_update u = {.cf_id = 1, .row_del = cf_deletion_none(),
	.tombs = (cf_range_tomb *) t, .n_tombs = t ? 1 : 0};

	if (row_ts != CF_LIVE)
		u.row_del = (cf_deletion) {row_ts, 100};
	assert_null(cf_memtable_apply(mt, S("tok"), S(key), &u));
}

typedef struct fixture
{
	char	   *dir;
	cf_memtable *a;				/* "older" memtable, flushed to t */
	cf_sstable *t;
	cf_memtable *b;				/* newer memtables */
	cf_memtable *c;
} fixture;

/* Flushes mt to an sstable in dir and opens it. */
static cf_sstable *
flush(const char *dir, cf_memtable *mt, const cf_col_order *o)
{
	cf_sstable_options opt = {.order = *o};
	cf_sstable_stats st;
	cf_sstable *t;
	const char *path = test_path(dir, "t-1.sst");

	assert_null(cf_sstable_write_memtable(cf_env_posix(), path, mt, &opt, &st));
	assert_null(cf_sstable_open(cf_env_posix(), path, o, &t));
	return t;
}

/* Sources for `key` from every table of the fixture, as the read path gathers them. */
static cf_row_merge *
merge_of(fixture *f, const char *key, bool reversed, const cf_col_order *o)
{
	cf_cell_source *src[3];
	size_t		n = 0;
	cf_sstable_row *row;
	cf_row_merge *m;

	assert_null(cf_sstable_get(f->t, S("tok"), S(key), &row));
	if (row)
		assert_null(cf_cell_source_sstable(row, &src[n++]));
	assert_null(cf_cell_source_memtable(f->b, S("tok"), S(key), &src[n]));
	if (src[n])
		n++;
	assert_null(cf_cell_source_memtable(f->c, S("tok"), S(key), &src[n]));
	if (src[n])
		n++;
	assert_null(cf_row_merge_new(o, src, n, reversed, &m));
	return m;
}

/* "name=value@ts" for each path from (sc,name), '~' marking shadowed winners. */
static const char *
walk(cf_row_merge *m, const char *sc, const char *name)
{
	static char out[1024];
	size_t		n = 0;

	out[0] = '\0';
	for (assert_null(cf_row_merge_seek(m, S(sc), S(name))); cf_row_merge_valid(m);
		 assert_null(cf_row_merge_next(m)))
	{
		const cf_cell *c = cf_row_merge_cell(m);

		n += snprintf(out + n, sizeof(out) - n, "%s%.*s%s%.*s=%.*s@%lld ",
					  cf_row_merge_shadowed(m) ? "~" : "",
					  (int) c->sc.len, c->sc.p, c->sc.len ? "/" : "",
					  (int) c->name.len, c->name.p, (int) c->value.len, c->value.p,
					  (long long) c->timestamp);
	}
	return out;
}

static int
setup(void **state, const cf_col_order *o)
{
	fixture    *f = calloc(1, sizeof(*f));

	f->dir = test_tmpdir_new("cf_rowmerge");
	f->a = cf_memtable_new(o);
	f->b = cf_memtable_new(o);
	f->c = cf_memtable_new(o);
	*state = f;
	return f->dir ? 0 : -1;
}

static int
setup_std(void **state)
{
	return setup(state, &std_order);
}

static int
setup_super(void **state)
{
	return setup(state, &super_order);
}

static int
teardown(void **state)
{
	fixture    *f = *state;

	if (f->t)
		cf_sstable_unref(f->t);
	cf_memtable_unref(f->a);
	cf_memtable_unref(f->b);
	cf_memtable_unref(f->c);
	test_tmpdir_free(f->dir);
	free(f);
	return 0;
}

static void
versions_reconcile_across_tables(void **state)
{
	fixture    *f = *state;
	cf_row_merge *m;

	put(f->a, "k", "", "a", "a-old", 1, 0);
	put(f->a, "k", "", "b", "b-new", 9, 0);
	put(f->a, "k", "", "d", "d-only", 1, 0);
	f->t = flush(f->dir, f->a, &std_order);
	put(f->b, "k", "", "a", "a-new", 5, 0);
	put(f->b, "k", "", "b", "b-old", 2, 0);
	put(f->c, "k", "", "c", "c-only", 1, 0);
	put(f->c, "k", "", "a", "", 5, CF_CELL_DELETED);	/* tie at 5: the delete wins */

	m = merge_of(f, "k", false, &std_order);
	assert_true(cf_row_merge_exists(m));
	assert_string_equal(walk(m, "", ""), "a=@5 b=b-new@9 c=c-only@1 d=d-only@1 ");
	assert_null(cf_row_merge_seek(m, S(""), S("a")));
	assert_true(cf_row_merge_cell(m)->flags & CF_CELL_DELETED);
	assert_string_equal(walk(m, "", "bb"), "c=c-only@1 d=d-only@1 ");
	cf_row_merge_free(m);

	m = merge_of(f, "k", true, &std_order);
	assert_string_equal(walk(m, "", ""), "d=d-only@1 c=c-only@1 b=b-new@9 a=@5 ");
	assert_string_equal(walk(m, "", "bb"), "b=b-new@9 a=@5 ");
	cf_row_merge_free(m);
}

static void
deletions_shadow_older_cells_only(void **state)
{
	fixture    *f = *state;
	cf_range_tomb t = {.start = S("c"), .finish = S("d"), .del = {6, 100}};
	cf_row_merge *m;

	put(f->a, "k", "", "a", "1", 3, 0);
	put(f->a, "k", "", "c", "1", 5, 0);
	put(f->a, "k", "", "d", "1", 7, 0);
	put(f->a, "k", "", "e", "1", 5, 0);
	f->t = flush(f->dir, f->a, &std_order);
	del(f->b, "k", 4, NULL);	/* row deletion at 4: hides a@3 only */
	del(f->c, "k", CF_LIVE, &t);	/* [c, d] at 6: hides c@5, not d@7 */

	m = merge_of(f, "k", false, &std_order);
	assert_true(cf_row_merge_deletion(m).timestamp == 4);
	assert_string_equal(walk(m, "", ""), "~a=1@3 ~c=1@5 d=1@7 e=1@5 ");
	cf_row_merge_free(m);
}

static void
super_columns_walk_and_end_of_super_column(void **state)
{
	fixture    *f = *state;
	cf_range_tomb whole_y = {.sc = S("y"), .del = {2, 100}};
	cf_row_merge *m;

	put(f->a, "k", "x", "1", "x1", 1, 0);
	put(f->a, "k", "y", "1", "y1", 1, 0);
	put(f->a, "k", "y", "3", "y3", 3, 0);
	f->t = flush(f->dir, f->a, &super_order);
	put(f->b, "k", "x", "2", "x2", 1, 0);
	put(f->c, "k", "y", "2", "y2", 1, 0);
	del(f->c, "k", CF_LIVE, &whole_y);	/* super column y deleted at 2: y3@3 survives */

	m = merge_of(f, "k", false, &super_order);
	assert_string_equal(walk(m, "", ""), "x/1=x1@1 x/2=x2@1 ~y/1=y1@1 ~y/2=y2@1 y/3=y3@3 ");
	assert_string_equal(walk(m, "y", ""), "~y/1=y1@1 ~y/2=y2@1 y/3=y3@3 ");
	cf_row_merge_free(m);

	m = merge_of(f, "k", true, &super_order);
	/* reversed from the open end of super column x */
	assert_string_equal(walk(m, "x", ""), "x/2=x2@1 x/1=x1@1 ");
	assert_string_equal(walk(m, "", ""), "y/3=y3@3 ~y/2=y2@1 ~y/1=y1@1 x/2=x2@1 x/1=x1@1 ");
	cf_row_merge_free(m);
}

static void
absent_rows_and_empty_merges(void **state)
{
	fixture    *f = *state;
	cf_row_merge *m;

	put(f->a, "k", "", "a", "1", 1, 0);
	f->t = flush(f->dir, f->a, &std_order);
	m = merge_of(f, "nope", false, &std_order);
	assert_false(cf_row_merge_exists(m));
	assert_string_equal(walk(m, "", ""), "");
	cf_row_merge_free(m);
	/* a row with only a deletion exists but has no cells */
	del(f->b, "gone", 7, NULL);
	m = merge_of(f, "gone", false, &std_order);
	assert_true(cf_row_merge_exists(m));
	assert_string_equal(walk(m, "", ""), "");
	assert_true(cf_row_merge_deletion(m).timestamp == 7);
	cf_row_merge_free(m);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(versions_reconcile_across_tables, setup_std, teardown),
		cmocka_unit_test_setup_teardown(deletions_shadow_older_cells_only, setup_std, teardown),
		cmocka_unit_test_setup_teardown(super_columns_walk_and_end_of_super_column,
										setup_super, teardown),
		cmocka_unit_test_setup_teardown(absent_rows_and_empty_merges, setup_std, teardown),
	};

	return cmocka_run_group_tests_name("storage/rowmerge", tests, NULL, NULL);
}
