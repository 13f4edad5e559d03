/*
 * tests/unit/test_thrift_codec.c — thrift/cassandra.h: round trips of every method's
 * arguments and results (each declared exception too), golden bytes written by hand
 * from the protocol description, IDL defaults, required fields, skipping, and hostile
 * input (truncation at every byte, lying lengths and counts, depth bombs, bad UTF-8).
 * The equality checks and the per-method field lists below are written from
 * thrift-api-0.7.md, not from the codec's tables, so a wrong table entry fails here.
 */
#include "support/cmocka_prelude.h"
#include "support/envtest.h"
#include "support/slices.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "thrift/admin.h"
#include "thrift/cassandra.h"
#include "util/arena.h"

#define lengthof(a) (sizeof(a) / sizeof((a)[0]))

/* ---- equality, field by field ---- */

static void
eq_slice(cf_slice a, cf_slice b)
{
	assert_int_equal(a.len, b.len);
	if (a.len)
		assert_memory_equal(a.p, b.p, a.len);
}

static void
eq_slices(const cf_slice *a, size_t na, const cf_slice *b, size_t nb)
{
	assert_int_equal(na, nb);
	for (size_t i = 0; i < na; i++)
		eq_slice(a[i], b[i]);
}

static void
eq_column(const cf_t_column *a, const cf_t_column *b)
{
	eq_slice(a->name, b->name);
	eq_slice(a->value, b->value);
	assert_true(a->timestamp == b->timestamp);
	assert_int_equal(a->has_ttl, b->has_ttl);
	if (a->has_ttl)
		assert_int_equal(a->ttl, b->ttl);
}

static void
eq_super_column(const cf_t_super_column *a, const cf_t_super_column *b)
{
	eq_slice(a->name, b->name);
	assert_int_equal(a->n_columns, b->n_columns);
	for (size_t i = 0; i < a->n_columns; i++)
		eq_column(&a->columns[i], &b->columns[i]);
}

static void
eq_cosc(const cf_t_cosc *a, const cf_t_cosc *b)
{
	assert_int_equal(a->has_column, b->has_column);
	assert_int_equal(a->has_super_column, b->has_super_column);
	if (a->has_column)
		eq_column(&a->column, &b->column);
	if (a->has_super_column)
		eq_super_column(&a->super_column, &b->super_column);
}

static void
eq_coscs(const cf_t_cosc *a, size_t na, const cf_t_cosc *b, size_t nb)
{
	assert_int_equal(na, nb);
	for (size_t i = 0; i < na; i++)
		eq_cosc(&a[i], &b[i]);
}

static void
eq_parent(const cf_t_column_parent *a, const cf_t_column_parent *b)
{
	eq_slice(a->column_family, b->column_family);
	assert_int_equal(a->has_super_column, b->has_super_column);
	eq_slice(a->super_column, b->super_column);
}

static void
eq_path(const cf_t_column_path *a, const cf_t_column_path *b)
{
	eq_slice(a->column_family, b->column_family);
	assert_int_equal(a->has_super_column, b->has_super_column);
	eq_slice(a->super_column, b->super_column);
	assert_int_equal(a->has_column, b->has_column);
	eq_slice(a->column, b->column);
}

static void
eq_predicate(const cf_t_slice_predicate *a, const cf_t_slice_predicate *b)
{
	assert_int_equal(a->has_column_names, b->has_column_names);
	eq_slices(a->column_names, a->n_column_names, b->column_names, b->n_column_names);
	assert_int_equal(a->has_slice_range, b->has_slice_range);
	if (!a->has_slice_range)
		return;
	eq_slice(a->slice_range.start, b->slice_range.start);
	eq_slice(a->slice_range.finish, b->slice_range.finish);
	assert_int_equal(a->slice_range.reversed, b->slice_range.reversed);
	assert_int_equal(a->slice_range.count, b->slice_range.count);
}

static void
eq_index_clause(const cf_t_index_clause *a, const cf_t_index_clause *b)
{
	assert_int_equal(a->n_expressions, b->n_expressions);
	for (size_t i = 0; i < a->n_expressions; i++)
	{
		eq_slice(a->expressions[i].column_name, b->expressions[i].column_name);
		assert_int_equal(a->expressions[i].op, b->expressions[i].op);
		eq_slice(a->expressions[i].value, b->expressions[i].value);
	}
	eq_slice(a->start_key, b->start_key);
	assert_int_equal(a->count, b->count);
}

static void
eq_key_range(const cf_t_key_range *a, const cf_t_key_range *b)
{
	assert_int_equal(a->has_start_key, b->has_start_key);
	eq_slice(a->start_key, b->start_key);
	assert_int_equal(a->has_end_key, b->has_end_key);
	eq_slice(a->end_key, b->end_key);
	assert_int_equal(a->has_start_token, b->has_start_token);
	eq_slice(a->start_token, b->start_token);
	assert_int_equal(a->has_end_token, b->has_end_token);
	eq_slice(a->end_token, b->end_token);
	assert_int_equal(a->count, b->count);
}

static void
eq_mutation(const cf_t_mutation *a, const cf_t_mutation *b)
{
	assert_int_equal(a->has_cosc, b->has_cosc);
	if (a->has_cosc)
		eq_cosc(&a->cosc, &b->cosc);
	assert_int_equal(a->has_deletion, b->has_deletion);
	if (!a->has_deletion)
		return;
	assert_true(a->deletion.timestamp == b->deletion.timestamp);
	assert_int_equal(a->deletion.has_super_column, b->deletion.has_super_column);
	eq_slice(a->deletion.super_column, b->deletion.super_column);
	assert_int_equal(a->deletion.has_predicate, b->deletion.has_predicate);
	if (a->deletion.has_predicate)
		eq_predicate(&a->deletion.predicate, &b->deletion.predicate);
}

static void
eq_pairs(const cf_t_string_pair *a, size_t na, const cf_t_string_pair *b, size_t nb)
{
	assert_int_equal(na, nb);
	for (size_t i = 0; i < na; i++)
	{
		eq_slice(a[i].key, b[i].key);
		eq_slice(a[i].value, b[i].value);
	}
}

static void
eq_cf_def(const cf_t_cf_def *a, const cf_t_cf_def *b)
{
	eq_slice(a->keyspace, b->keyspace);
	eq_slice(a->name, b->name);
#define EQ_OPT_SLICE(f) do { assert_int_equal(a->has_##f, b->has_##f); \
		eq_slice(a->f, b->f); } while (0)
#define EQ_OPT_NUM(f) do { assert_int_equal(a->has_##f, b->has_##f); \
		assert_true(a->f == b->f); } while (0)
	EQ_OPT_SLICE(column_type);
	EQ_OPT_SLICE(comparator_type);
	EQ_OPT_SLICE(subcomparator_type);
	EQ_OPT_SLICE(comment);
	EQ_OPT_NUM(row_cache_size);
	EQ_OPT_NUM(key_cache_size);
	EQ_OPT_NUM(read_repair_chance);
	EQ_OPT_NUM(gc_grace_seconds);
	EQ_OPT_SLICE(default_validation_class);
	EQ_OPT_NUM(id);
	EQ_OPT_NUM(min_compaction_threshold);
	EQ_OPT_NUM(max_compaction_threshold);
	EQ_OPT_NUM(row_cache_save_period_in_seconds);
	EQ_OPT_NUM(key_cache_save_period_in_seconds);
	EQ_OPT_NUM(memtable_flush_after_mins);
	EQ_OPT_NUM(memtable_throughput_in_mb);
	EQ_OPT_NUM(memtable_operations_in_millions);
	assert_int_equal(a->has_column_metadata, b->has_column_metadata);
	assert_int_equal(a->n_column_metadata, b->n_column_metadata);
	for (size_t i = 0; i < a->n_column_metadata; i++)
	{
		const cf_t_column_def *x = &a->column_metadata[i];
		const cf_t_column_def *y = &b->column_metadata[i];

		eq_slice(x->name, y->name);
		eq_slice(x->validation_class, y->validation_class);
		assert_int_equal(x->has_index_type, y->has_index_type);
		assert_int_equal(x->index_type, y->index_type);
		assert_int_equal(x->has_index_name, y->has_index_name);
		eq_slice(x->index_name, y->index_name);
	}
}

static void
eq_ks_def(const cf_t_ks_def *a, const cf_t_ks_def *b)
{
	eq_slice(a->name, b->name);
	eq_slice(a->strategy_class, b->strategy_class);
	assert_int_equal(a->has_strategy_options, b->has_strategy_options);
	eq_pairs(a->strategy_options, a->n_strategy_options, b->strategy_options,
			 b->n_strategy_options);
	assert_int_equal(a->replication_factor, b->replication_factor);
	assert_int_equal(a->n_cf_defs, b->n_cf_defs);
	for (size_t i = 0; i < a->n_cf_defs; i++)
		eq_cf_def(&a->cf_defs[i], &b->cf_defs[i]);
}

static void
eq_key_slices(const cf_t_key_slice *a, size_t na, const cf_t_key_slice *b, size_t nb)
{
	assert_int_equal(na, nb);
	for (size_t i = 0; i < na; i++)
	{
		eq_slice(a[i].key, b[i].key);
		eq_coscs(a[i].columns, a[i].n_columns, b[i].columns, b[i].n_columns);
	}
}

/* ---- one sample of everything ---- */

static const uint8_t bin[] = {0x00, 0xff, 0x80, 0x7f};
#define BIN cf_slice_of(bin, sizeof(bin))

typedef struct sample
{
	cf_t_column cols[3];
	cf_t_super_column sc;
	cf_t_cosc	coscs[3];
	cf_slice	names[2];
	cf_t_index_expression exprs[2];
	cf_t_mutation muts[3];
	cf_t_cf_mutations cfm[2];
	cf_t_key_mutations km[2];
	cf_t_string_pair creds[2];
	cf_t_string_pair opts[1];
	cf_t_column_def cdefs[2];
	cf_t_cf_def cfdefs[2];
	cf_t_ks_def ksdefs[2];
	cf_t_key_slice kslices[2];
	cf_t_key_count kcounts[2];
	cf_t_key_coscs kcoscs[2];
	cf_t_schema_version sv[2];
	cf_slice	hosts[2];
	cf_t_token_range tr[2];
	cf_slice	keys[2];
	cf_t_args	args;
	cf_t_result res;
} sample;

static void
build_cf_defs(sample *s)
{
	s->cdefs[0] = (cf_t_column_def) {.name = S("birth_year"), .validation_class = S("LongType"),
	.has_index_type = true, .index_type = CF_T_INDEX_KEYS, .has_index_name = true,
	.index_name = S("by_year")};
	s->cdefs[1] = (cf_t_column_def) {.name = BIN, .validation_class = S("BytesType")};
	s->cfdefs[0] = (cf_t_cf_def) {.keyspace = S("Blog"), .name = S("Entries"),
		.has_column_type = true, .column_type = S("Super"),
		.has_comparator_type = true, .comparator_type = S("TimeUUIDType"),
		.has_subcomparator_type = true, .subcomparator_type = S("UTF8Type"),
		.has_comment = true, .comment = S("caf\xc3\xa9"),
		.has_row_cache_size = true, .row_cache_size = 0.5,
		.has_key_cache_size = true, .key_cache_size = 1e6,
		.has_read_repair_chance = true, .read_repair_chance = 0.25,
		.has_column_metadata = true, .column_metadata = s->cdefs, .n_column_metadata = 2,
		.has_gc_grace_seconds = true, .gc_grace_seconds = 864000,
		.has_default_validation_class = true, .default_validation_class = S("UTF8Type"),
		.has_id = true, .id = 1001,
		.has_min_compaction_threshold = true, .min_compaction_threshold = 4,
		.has_max_compaction_threshold = true, .max_compaction_threshold = 32,
		.has_row_cache_save_period_in_seconds = true, .row_cache_save_period_in_seconds = 1,
		.has_key_cache_save_period_in_seconds = true, .key_cache_save_period_in_seconds = 2,
		.has_memtable_flush_after_mins = true, .memtable_flush_after_mins = 60,
		.has_memtable_throughput_in_mb = true, .memtable_throughput_in_mb = 64,
		.has_memtable_operations_in_millions = true, .memtable_operations_in_millions = 0.3};
	/* Only the required fields; the decoder fills the rest with the IDL defaults. */
	s->cfdefs[1] = (cf_t_cf_def) {.keyspace = S("Blog"), .name = S("Authors"),
		.column_type = S("Standard"), .comparator_type = S("BytesType"),
	.key_cache_size = 200000, .read_repair_chance = 1.0};
	s->opts[0] = (cf_t_string_pair) {S("DC1"), S("3")};
	s->ksdefs[0] = (cf_t_ks_def) {.name = S("Blog"),
		.strategy_class = S("org.apache.cassandra.locator.SimpleStrategy"),
		.has_strategy_options = true, .strategy_options = s->opts, .n_strategy_options = 1,
	.replication_factor = 3, .cf_defs = s->cfdefs, .n_cf_defs = 2};
	s->ksdefs[1] = (cf_t_ks_def) {.name = S("Empty"), .strategy_class = S("SimpleStrategy"),
	.replication_factor = 1};
}

static void
build_sample(sample *s)
{
	memset(s, 0, sizeof(*s));
	s->cols[0] = (cf_t_column) {S("email"), S("jsmith@example.com"), 1290000000000000,
	true, 3600};
	s->cols[1] = (cf_t_column) {BIN, S(""), -1, false, 0};
	s->cols[2] = (cf_t_column) {S("body"), BIN, INT64_MAX, false, 0};
	s->sc = (cf_t_super_column) {S("entry-1"), s->cols + 1, 2};
	s->coscs[0] = (cf_t_cosc) {.has_column = true, .column = s->cols[0]};
	s->coscs[1] = (cf_t_cosc) {.has_super_column = true, .super_column = s->sc};
	s->coscs[2] = (cf_t_cosc) {.has_column = true, .column = s->cols[1]};
	s->names[0] = S("a");
	s->names[1] = BIN;
	s->exprs[0] = (cf_t_index_expression) {S("state"), CF_T_OP_EQ, S("UT")};
	s->exprs[1] = (cf_t_index_expression) {S("birth_year"), CF_T_OP_GT, BIN};
	s->muts[0] = (cf_t_mutation) {.has_cosc = true, .cosc = s->coscs[0]};
	s->muts[1] = (cf_t_mutation) {.has_deletion = true, .deletion = {.timestamp = 42,
			.has_super_column = true, .super_column = S("entry-2"), .has_predicate = true,
	.predicate = {.has_column_names = true, .column_names = s->names, .n_column_names = 2}}};
	s->muts[2] = (cf_t_mutation) {.has_deletion = true, .deletion = {.timestamp = 43,
			.has_predicate = true, .predicate = {.has_slice_range = true,
	.slice_range = {S("a"), S("z"), true, 7}}}};
	s->cfm[0] = (cf_t_cf_mutations) {S("Standard1"), s->muts, 3};
	s->cfm[1] = (cf_t_cf_mutations) {S("Super1"), s->muts + 1, 1};
	s->km[0] = (cf_t_key_mutations) {S("jsmith"), s->cfm, 2};
	s->km[1] = (cf_t_key_mutations) {BIN, s->cfm + 1, 1};
	s->creds[0] = (cf_t_string_pair) {S("username"), S("jsmith")};
	s->creds[1] = (cf_t_string_pair) {S("password"), S("havebadpass")};
	build_cf_defs(s);
	s->kslices[0] = (cf_t_key_slice) {S("k1"), s->coscs, 3};
	s->kslices[1] = (cf_t_key_slice) {BIN, NULL, 0};
	s->kcounts[0] = (cf_t_key_count) {S("k1"), 3};
	s->kcounts[1] = (cf_t_key_count) {BIN, 0};
	s->kcoscs[0] = (cf_t_key_coscs) {S("k1"), s->coscs, 2};
	s->kcoscs[1] = (cf_t_key_coscs) {BIN, NULL, 0};
	s->hosts[0] = S("127.0.0.1");
	s->hosts[1] = S("127.0.0.2");
	s->sv[0] = (cf_t_schema_version) {S("75eece10-bf48-11e0-0000-242d50cf1fbf"), s->hosts, 2};
	s->sv[1] = (cf_t_schema_version) {S("UNREACHABLE"), s->hosts + 1, 1};
	s->tr[0] = (cf_t_token_range) {S("0"), S("85070591730234615865843651857942052864"),
	s->hosts, 2};
	s->tr[1] = (cf_t_token_range) {S("85070591730234615865843651857942052864"), S("0"),
	s->hosts + 1, 1};
	s->keys[0] = S("k1");
	s->keys[1] = BIN;

	s->args = (cf_t_args) {
		.auth_request = {s->creds, 2},
		.keyspace = S("Blog"),
		.key = S("jsmith"),
		.keys = s->keys, .n_keys = 2,
		.column_path = {S("Standard1"), true, S("sc"), true, BIN},
		.column_parent = {S("Super1"), true, S("entry-1")},
		.predicate = {.has_column_names = true, .column_names = s->names,
		.n_column_names = 2, .has_slice_range = true, .slice_range = {S(""), BIN, true, 5}},
		.range = {true, S("a"), true, S("b"), false, {0}, true, S("99"), 17},
		.index_clause = {s->exprs, 2, S("start"), 55},
		.column = s->cols[0],
		.timestamp = -7,
		.mutation_map = s->km, .n_mutation_map = 2,
		.cfname = S("Standard1"),
		.start_token = S("0"),
		.end_token = S("100"),
		.keys_per_split = 128,
		.cf_def = s->cfdefs[0],
		.ks_def = s->ksdefs[0],
		.consistency_level = CF_T_CL_QUORUM,
	};
	s->res = (cf_t_result) {
		.cosc = s->coscs[1],
		.coscs = s->coscs, .n_coscs = 3,
		.count = 12345,
		.key_coscs = s->kcoscs, .n_key_coscs = 2,
		.key_counts = s->kcounts, .n_key_counts = 2,
		.key_slices = s->kslices, .n_key_slices = 2,
		.schema_versions = s->sv, .n_schema_versions = 2,
		.ks_defs = s->ksdefs, .n_ks_defs = 2,
		.ks_def = s->ksdefs[0],
		.string = S("19.4.0"),
		.token_ranges = s->tr, .n_token_ranges = 2,
		.strings = s->hosts, .n_strings = 2,
	};
}

/* ---- what each method carries, from the reference's method table ---- */

static void
eq_args(cf_t_method m, const cf_t_args *a, const cf_t_args *b)
{
	bool		cl = true;

	switch (m)
	{
		case CF_T_M_LOGIN:
			eq_pairs(a->auth_request.credentials, a->auth_request.n_credentials,
					 b->auth_request.credentials, b->auth_request.n_credentials);
			cl = false;
			break;
		case CF_T_M_SET_KEYSPACE:
		case CF_T_M_DESCRIBE_RING:
		case CF_T_M_DESCRIBE_KEYSPACE:
		case CF_T_M_SYSTEM_DROP_KEYSPACE:
			eq_slice(a->keyspace, b->keyspace);
			cl = false;
			break;
		case CF_T_M_GET:
			eq_slice(a->key, b->key);
			eq_path(&a->column_path, &b->column_path);
			break;
		case CF_T_M_GET_SLICE:
		case CF_T_M_GET_COUNT:
			eq_slice(a->key, b->key);
			eq_parent(&a->column_parent, &b->column_parent);
			eq_predicate(&a->predicate, &b->predicate);
			break;
		case CF_T_M_MULTIGET_SLICE:
		case CF_T_M_MULTIGET_COUNT:
			eq_slices(a->keys, a->n_keys, b->keys, b->n_keys);
			eq_parent(&a->column_parent, &b->column_parent);
			eq_predicate(&a->predicate, &b->predicate);
			break;
		case CF_T_M_GET_RANGE_SLICES:
			eq_parent(&a->column_parent, &b->column_parent);
			eq_predicate(&a->predicate, &b->predicate);
			eq_key_range(&a->range, &b->range);
			break;
		case CF_T_M_GET_INDEXED_SLICES:
			eq_parent(&a->column_parent, &b->column_parent);
			eq_index_clause(&a->index_clause, &b->index_clause);
			eq_predicate(&a->predicate, &b->predicate);
			break;
		case CF_T_M_INSERT:
			eq_slice(a->key, b->key);
			eq_parent(&a->column_parent, &b->column_parent);
			eq_column(&a->column, &b->column);
			break;
		case CF_T_M_REMOVE:
			eq_slice(a->key, b->key);
			eq_path(&a->column_path, &b->column_path);
			assert_true(a->timestamp == b->timestamp);
			break;
		case CF_T_M_BATCH_MUTATE:
			assert_int_equal(a->n_mutation_map, b->n_mutation_map);
			for (size_t i = 0; i < a->n_mutation_map; i++)
			{
				const cf_t_key_mutations *x = &a->mutation_map[i];
				const cf_t_key_mutations *y = &b->mutation_map[i];

				eq_slice(x->key, y->key);
				assert_int_equal(x->n_cfs, y->n_cfs);
				for (size_t j = 0; j < x->n_cfs; j++)
				{
					eq_slice(x->cfs[j].column_family, y->cfs[j].column_family);
					assert_int_equal(x->cfs[j].n_mutations, y->cfs[j].n_mutations);
					for (size_t k = 0; k < x->cfs[j].n_mutations; k++)
						eq_mutation(&x->cfs[j].mutations[k], &y->cfs[j].mutations[k]);
				}
			}
			break;
		case CF_T_M_TRUNCATE:
		case CF_T_M_SYSTEM_DROP_COLUMN_FAMILY:
			eq_slice(a->cfname, b->cfname);
			cl = false;
			break;
		case CF_T_M_DESCRIBE_SPLITS:
			eq_slice(a->cfname, b->cfname);
			eq_slice(a->start_token, b->start_token);
			eq_slice(a->end_token, b->end_token);
			assert_int_equal(a->keys_per_split, b->keys_per_split);
			cl = false;
			break;
		case CF_T_M_SYSTEM_ADD_COLUMN_FAMILY:
		case CF_T_M_SYSTEM_UPDATE_COLUMN_FAMILY:
			eq_cf_def(&a->cf_def, &b->cf_def);
			cl = false;
			break;
		case CF_T_M_SYSTEM_ADD_KEYSPACE:
		case CF_T_M_SYSTEM_UPDATE_KEYSPACE:
			eq_ks_def(&a->ks_def, &b->ks_def);
			cl = false;
			break;
		default:
			cl = false;			/* the describe_* methods without arguments */
			break;
	}
	/* A method without a consistency level reads as ONE. */
	assert_int_equal(b->consistency_level, cl ? a->consistency_level : CF_T_CL_ONE);
}

static void
eq_success(cf_t_method m, const cf_t_result *a, const cf_t_result *b)
{
	switch (m)
	{
		case CF_T_M_GET:
			eq_cosc(&a->cosc, &b->cosc);
			break;
		case CF_T_M_GET_SLICE:
			eq_coscs(a->coscs, a->n_coscs, b->coscs, b->n_coscs);
			break;
		case CF_T_M_GET_COUNT:
			assert_int_equal(a->count, b->count);
			break;
		case CF_T_M_MULTIGET_SLICE:
			assert_int_equal(a->n_key_coscs, b->n_key_coscs);
			for (size_t i = 0; i < a->n_key_coscs; i++)
			{
				eq_slice(a->key_coscs[i].key, b->key_coscs[i].key);
				eq_coscs(a->key_coscs[i].columns, a->key_coscs[i].n_columns,
						 b->key_coscs[i].columns, b->key_coscs[i].n_columns);
			}
			break;
		case CF_T_M_MULTIGET_COUNT:
			assert_int_equal(a->n_key_counts, b->n_key_counts);
			for (size_t i = 0; i < a->n_key_counts; i++)
			{
				eq_slice(a->key_counts[i].key, b->key_counts[i].key);
				assert_int_equal(a->key_counts[i].count, b->key_counts[i].count);
			}
			break;
		case CF_T_M_GET_RANGE_SLICES:
		case CF_T_M_GET_INDEXED_SLICES:
			eq_key_slices(a->key_slices, a->n_key_slices, b->key_slices, b->n_key_slices);
			break;
		case CF_T_M_DESCRIBE_SCHEMA_VERSIONS:
			assert_int_equal(a->n_schema_versions, b->n_schema_versions);
			for (size_t i = 0; i < a->n_schema_versions; i++)
			{
				eq_slice(a->schema_versions[i].version, b->schema_versions[i].version);
				eq_slices(a->schema_versions[i].hosts, a->schema_versions[i].n_hosts,
						  b->schema_versions[i].hosts, b->schema_versions[i].n_hosts);
			}
			break;
		case CF_T_M_DESCRIBE_KEYSPACES:
			assert_int_equal(a->n_ks_defs, b->n_ks_defs);
			for (size_t i = 0; i < a->n_ks_defs; i++)
				eq_ks_def(&a->ks_defs[i], &b->ks_defs[i]);
			break;
		case CF_T_M_DESCRIBE_KEYSPACE:
			eq_ks_def(&a->ks_def, &b->ks_def);
			break;
		case CF_T_M_DESCRIBE_RING:
			assert_int_equal(a->n_token_ranges, b->n_token_ranges);
			for (size_t i = 0; i < a->n_token_ranges; i++)
			{
				eq_slice(a->token_ranges[i].start_token, b->token_ranges[i].start_token);
				eq_slice(a->token_ranges[i].end_token, b->token_ranges[i].end_token);
				eq_slices(a->token_ranges[i].endpoints, a->token_ranges[i].n_endpoints,
						  b->token_ranges[i].endpoints, b->token_ranges[i].n_endpoints);
			}
			break;
		case CF_T_M_DESCRIBE_SPLITS:
			eq_slices(a->strings, a->n_strings, b->strings, b->n_strings);
			break;
		case CF_T_M_DESCRIBE_CLUSTER_NAME:
		case CF_T_M_DESCRIBE_VERSION:
		case CF_T_M_DESCRIBE_PARTITIONER:
		case CF_T_M_DESCRIBE_SNITCH:
		case CF_T_M_SYSTEM_ADD_COLUMN_FAMILY:
		case CF_T_M_SYSTEM_DROP_COLUMN_FAMILY:
		case CF_T_M_SYSTEM_ADD_KEYSPACE:
		case CF_T_M_SYSTEM_DROP_KEYSPACE:
		case CF_T_M_SYSTEM_UPDATE_KEYSPACE:
		case CF_T_M_SYSTEM_UPDATE_COLUMN_FAMILY:
			eq_slice(a->string, b->string);
			break;
		default:
			break;				/* void */
	}
}

/* The declared exceptions of each method, in reply field order (0-terminated). */
static const cf_t_exception_kind *
declared(cf_t_method m)
{
	static const cf_t_exception_kind login[] = {CF_T_EXC_AUTHENTICATION,
	CF_T_EXC_AUTHORIZATION, 0};
	static const cf_t_exception_kind ire[] = {CF_T_EXC_INVALID_REQUEST, 0};
	static const cf_t_exception_kind get[] = {CF_T_EXC_INVALID_REQUEST,
	CF_T_EXC_NOT_FOUND, CF_T_EXC_UNAVAILABLE, CF_T_EXC_TIMED_OUT, 0};
	static const cf_t_exception_kind data[] = {CF_T_EXC_INVALID_REQUEST,
	CF_T_EXC_UNAVAILABLE, CF_T_EXC_TIMED_OUT, 0};
	static const cf_t_exception_kind truncate[] = {CF_T_EXC_INVALID_REQUEST,
	CF_T_EXC_UNAVAILABLE, 0};
	static const cf_t_exception_kind nfe_ire[] = {CF_T_EXC_NOT_FOUND,
	CF_T_EXC_INVALID_REQUEST, 0};
	static const cf_t_exception_kind none[] = {0};

	switch (m)
	{
		case CF_T_M_LOGIN:
			return login;
		case CF_T_M_GET:
			return get;
		case CF_T_M_GET_SLICE:
		case CF_T_M_GET_COUNT:
		case CF_T_M_MULTIGET_SLICE:
		case CF_T_M_MULTIGET_COUNT:
		case CF_T_M_GET_RANGE_SLICES:
		case CF_T_M_GET_INDEXED_SLICES:
		case CF_T_M_INSERT:
		case CF_T_M_REMOVE:
		case CF_T_M_BATCH_MUTATE:
			return data;
		case CF_T_M_TRUNCATE:
			return truncate;
		case CF_T_M_DESCRIBE_KEYSPACE:
			return nfe_ire;
		case CF_T_M_DESCRIBE_CLUSTER_NAME:
		case CF_T_M_DESCRIBE_VERSION:
		case CF_T_M_DESCRIBE_PARTITIONER:
		case CF_T_M_DESCRIBE_SNITCH:
		case CF_T_M_DESCRIBE_SPLITS:
			return none;
		default:
			return ire;
	}
}

/* ---- helpers ---- */

static cf_t_limits lim;

static int
setup(void **state)
{
	*state = cf_arena_new(0);
	lim = cf_t_limits_default();
	return *state ? 0 : -1;
}

static int
teardown(void **state)
{
	cf_arena_free(*state);
	return 0;
}

/* Decodes a whole call message for method m. */
static cf_status *
decode_call(const cf_buf *b, cf_t_method m, int32_t seqid, cf_arena *a, cf_t_args *out)
{
	cf_rd		r;
	cf_t_message_header h;
	cf_status  *s;

	cf_rd_init(&r, b->data, b->len);
	if ((s = cf_t_read_message_header(&r, &h)) != NULL)
		return s;
	assert_int_equal(h.type, CF_T_CALL);
	assert_int_equal(h.seqid, seqid);
	eq_slice(h.name, S(cf_t_method_name(m)));
	s = cf_t_read_args(&r, m, &lim, a, out);
	if (s == NULL)
		assert_int_equal(cf_rd_left(&r), 0);
	return s;
}

static cf_slice
bytes_of(const cf_buf *b)
{
	return cf_slice_of(b->data, b->len);
}

/* ---- round trips ---- */

static void
methods_named(void **state)
{
	cf_t_method m;

	(void) state;
	assert_int_equal(CF_T_M_COUNT_, 28);
	for (int i = 0; i < CF_T_M_COUNT_; i++)
	{
		assert_true(cf_t_method_lookup(S(cf_t_method_name((cf_t_method) i)), &m));
		assert_int_equal(m, i);
	}
	assert_string_equal(cf_t_method_name(CF_T_M_GET_SLICE), "get_slice");
	assert_string_equal(cf_t_method_name(CF_T_M_SYSTEM_UPDATE_COLUMN_FAMILY),
						"system_update_column_family");
	assert_null(cf_t_method_name(CF_T_M_COUNT_));
	assert_false(cf_t_method_lookup(S("get_slice_"), &m));
	assert_false(cf_t_method_lookup(S("execute_cql_query"), &m));
}

static void
args_round_trip(void **state)
{
	static sample s;

	build_sample(&s);
	for (int i = 0; i < CF_T_M_COUNT_; i++)
	{
		cf_buf		b = CF_BUF_INIT;
		cf_t_args	got;

		OK(cf_t_write_call(&b, (cf_t_method) i, 1000 + i, &s.args));
		OK(decode_call(&b, (cf_t_method) i, 1000 + i, *state, &got));
		eq_args((cf_t_method) i, &s.args, &got);
		cf_buf_free(&b);
	}
}

static void
results_round_trip(void **state)
{
	static sample s;

	build_sample(&s);
	for (int i = 0; i < CF_T_M_COUNT_; i++)
	{
		cf_t_method m = (cf_t_method) i;
		const cf_t_exception_kind *exc = declared(m);
		cf_buf		b = CF_BUF_INIT;
		cf_t_result got;

		OK(cf_t_write_reply(&b, m, -i, &s.res));
		OK(cf_t_read_reply(bytes_of(&b), m, -i, &lim, *state, &got));
		assert_int_equal(got.exception.kind, CF_T_EXC_NONE);
		eq_success(m, &s.res, &got);

		/* every declared exception, at its field id */
		for (int k = 0; exc[k] != 0; k++)
		{
			cf_t_result r = {.exception = {exc[k], S("why not")}};
			bool		has_why = exc[k] == CF_T_EXC_INVALID_REQUEST ||
				exc[k] == CF_T_EXC_AUTHENTICATION || exc[k] == CF_T_EXC_AUTHORIZATION;

			cf_buf_reset(&b);
			OK(cf_t_write_reply(&b, m, 9, &r));
			/* result struct: field type STRUCT, id k+1, right after the header */
			assert_int_equal(b.data[12 + strlen(cf_t_method_name(m))], 12);
			assert_int_equal(b.data[14 + strlen(cf_t_method_name(m))], k + 1);
			OK(cf_t_read_reply(bytes_of(&b), m, 9, &lim, *state, &got));
			assert_int_equal(got.exception.kind, exc[k]);
			eq_slice(got.exception.why, has_why ? S("why not") : S(""));
		}
		/* an exception the method does not declare is a dispatch bug */
		for (int kind = CF_T_EXC_INVALID_REQUEST; kind <= CF_T_EXC_AUTHORIZATION; kind++)
		{
			cf_t_result r = {.exception = {kind, S("x")}};
			bool		ok = false;

			for (int k = 0; exc[k] != 0; k++)
				ok |= exc[k] == (cf_t_exception_kind) kind;
			if (ok)
				continue;
			cf_buf_reset(&b);
			FAILS(cf_t_write_reply(&b, m, 9, &r), CF_ERR_INVALID, "does not declare");
			assert_int_equal(b.len, 0);
		}
		cf_buf_free(&b);
	}
}

static void
ks_def_standalone(void **state)
{
	static sample s;
	cf_buf		b = CF_BUF_INIT;
	cf_t_ks_def got;
	cf_rd		r;

	build_sample(&s);
	cf_t_write_ks_def(&b, &s.ksdefs[0]);
	cf_rd_init(&r, b.data, b.len);
	OK(cf_t_read_ks_def(&r, &lim, *state, &got));
	eq_ks_def(&s.ksdefs[0], &got);
	/* the minimal CfDef came back with the IDL's defaults, flagged absent */
	assert_false(got.cf_defs[1].has_column_type);
	eq_slice(got.cf_defs[1].column_type, S("Standard"));
	eq_slice(got.cf_defs[1].comparator_type, S("BytesType"));
	assert_true(got.cf_defs[1].key_cache_size == 200000);
	assert_true(got.cf_defs[1].read_repair_chance == 1.0);
	assert_true(got.cf_defs[1].row_cache_size == 0);
	cf_buf_free(&b);
}

/* ---- golden bytes, written from the protocol description ---- */

static const uint8_t describe_version_call[] = {
	0x80, 0x01, 0x00, 0x01,		/* strict version 1, CALL */
	0, 0, 0, 16, 'd', 'e', 's', 'c', 'r', 'i', 'b', 'e', '_', 'v', 'e', 'r', 's', 'i', 'o', 'n',
	0, 0, 0, 1,					/* seqid */
	0,							/* describe_version_args: STOP */
};

static const uint8_t get_slice_call[] = {
	0x80, 0x01, 0x00, 0x01,
	0, 0, 0, 9, 'g', 'e', 't', '_', 's', 'l', 'i', 'c', 'e',
	0, 0, 0, 7,
	11, 0, 1, 0, 0, 0, 6, 'j', 's', 'm', 'i', 't', 'h',	/* 1: key */
	12, 0, 2,					/* 2: column_parent */
	11, 0, 3, 0, 0, 0, 9, 'S', 't', 'a', 'n', 'd', 'a', 'r', 'd', '1',
	0,
	12, 0, 3,					/* 3: predicate */
	12, 0, 2,					/* 2: slice_range */
	11, 0, 1, 0, 0, 0, 0,		/* start "" */
	11, 0, 2, 0, 0, 0, 0,		/* finish "" */
	2, 0, 3, 0,					/* reversed false */
	8, 0, 4, 0, 0, 0, 10,		/* count 10 */
	0,
	0,
	8, 0, 4, 0, 0, 0, 2,		/* 4: consistency_level QUORUM */
	0,
};

static const uint8_t describe_version_reply[] = {
	0x80, 0x01, 0x00, 0x02,		/* REPLY */
	0, 0, 0, 16, 'd', 'e', 's', 'c', 'r', 'i', 'b', 'e', '_', 'v', 'e', 'r', 's', 'i', 'o', 'n',
	0, 0, 0, 1,
	11, 0, 0, 0, 0, 0, 6, '1', '9', '.', '4', '.', '0',	/* 0: success */
	0,
};

static const uint8_t get_nfe_reply[] = {
	0x80, 0x01, 0x00, 0x02,
	0, 0, 0, 3, 'g', 'e', 't',
	0, 0, 0, 5,
	12, 0, 2, 0,				/* 2: NotFoundException {} */
	0,
};

static void
golden_calls(void **state)
{
	cf_buf		b = CF_BUF_INIT;
	cf_t_args	args = {.key = S("jsmith"), .column_parent = {.column_family = S("Standard1")},
		.predicate = {.has_slice_range = true, .slice_range = {S(""), S(""), false, 10}},
	.consistency_level = CF_T_CL_QUORUM};
	cf_t_args	empty = {0};
	cf_t_args	got;
	cf_rd		r;
	cf_t_message_header h;

	OK(cf_t_write_call(&b, CF_T_M_DESCRIBE_VERSION, 1, &empty));
	assert_int_equal(b.len, sizeof(describe_version_call));
	assert_memory_equal(b.data, describe_version_call, b.len);

	cf_buf_reset(&b);
	OK(cf_t_write_call(&b, CF_T_M_GET_SLICE, 7, &args));
	assert_int_equal(b.len, sizeof(get_slice_call));
	assert_memory_equal(b.data, get_slice_call, b.len);

	/* and the decoder reads the hand-written bytes */
	cf_rd_init(&r, get_slice_call, sizeof(get_slice_call));
	OK(cf_t_read_message_header(&r, &h));
	eq_slice(h.name, S("get_slice"));
	assert_int_equal(h.type, CF_T_CALL);
	assert_int_equal(h.seqid, 7);
	OK(cf_t_read_args(&r, CF_T_M_GET_SLICE, &lim, *state, &got));
	assert_int_equal(cf_rd_left(&r), 0);
	eq_slice(got.key, S("jsmith"));
	eq_slice(got.column_parent.column_family, S("Standard1"));
	assert_false(got.column_parent.has_super_column);
	assert_false(got.predicate.has_column_names);
	assert_true(got.predicate.has_slice_range);
	assert_int_equal(got.predicate.slice_range.count, 10);
	assert_false(got.predicate.slice_range.reversed);
	assert_int_equal(got.consistency_level, CF_T_CL_QUORUM);

	/* a consistency level left at 0 goes out as ONE, the default */
	cf_buf_reset(&b);
	args.consistency_level = 0;
	OK(cf_t_write_call(&b, CF_T_M_GET_SLICE, 8, &args));
	cf_rd_init(&r, b.data, b.len);
	OK(cf_t_read_message_header(&r, &h));
	OK(cf_t_read_args(&r, CF_T_M_GET_SLICE, &lim, *state, &got));
	assert_int_equal(got.consistency_level, CF_T_CL_ONE);
	assert_int_equal(args.consistency_level, 0);	/* the caller's args are untouched */
	cf_buf_free(&b);
}

static void
golden_replies(void **state)
{
	cf_buf		b = CF_BUF_INIT;
	cf_t_result res = {.string = S("19.4.0")};
	cf_t_result got;

	OK(cf_t_write_reply(&b, CF_T_M_DESCRIBE_VERSION, 1, &res));
	assert_int_equal(b.len, sizeof(describe_version_reply));
	assert_memory_equal(b.data, describe_version_reply, b.len);
	OK(cf_t_read_reply(cf_slice_of(describe_version_reply, sizeof(describe_version_reply)),
					   CF_T_M_DESCRIBE_VERSION, 1, &lim, *state, &got));
	eq_slice(got.string, S(CF_THRIFT_API_VERSION));

	cf_buf_reset(&b);
	res = (cf_t_result) {.exception = {CF_T_EXC_NOT_FOUND, S("")}};
	OK(cf_t_write_reply(&b, CF_T_M_GET, 5, &res));
	assert_int_equal(b.len, sizeof(get_nfe_reply));
	assert_memory_equal(b.data, get_nfe_reply, b.len);
	OK(cf_t_read_reply(cf_slice_of(get_nfe_reply, sizeof(get_nfe_reply)), CF_T_M_GET, 5,
					   &lim, *state, &got));
	assert_int_equal(got.exception.kind, CF_T_EXC_NOT_FOUND);

	/* describe_keyspace declares NotFound first: field 1, IRE field 2 */
	cf_buf_reset(&b);
	res = (cf_t_result) {.exception = {CF_T_EXC_INVALID_REQUEST, S("no")}};
	OK(cf_t_write_reply(&b, CF_T_M_DESCRIBE_KEYSPACE, 5, &res));
	{
		static const uint8_t tail[] = {12, 0, 2, 11, 0, 1, 0, 0, 0, 2, 'n', 'o', 0, 0};

		assert_int_equal(b.len, 12 + strlen("describe_keyspace") + sizeof(tail));
		assert_memory_equal(b.data + b.len - sizeof(tail), tail, sizeof(tail));
	}
	cf_buf_free(&b);
}

static void
app_exception(void **state)
{
	static const uint8_t want[] = {
		0x80, 0x01, 0x00, 0x03,	/* EXCEPTION */
		0, 0, 0, 3, 'f', 'o', 'o',
		0, 0, 0, 9,
		11, 0, 1, 0, 0, 0, 4, 'n', 'o', 'p', 'e',
		8, 0, 2, 0, 0, 0, 1,	/* UNKNOWN_METHOD */
		0,
	};
	cf_buf		b = CF_BUF_INIT;
	cf_t_result got;

	cf_t_write_app_exception(&b, S("foo"), 9, CF_T_APP_UNKNOWN_METHOD, "nope");
	assert_int_equal(b.len, sizeof(want));
	assert_memory_equal(b.data, want, b.len);

	cf_buf_reset(&b);
	cf_t_write_app_exception(&b, S("get_slice"), 3, CF_T_APP_INTERNAL_ERROR,
							 "Internal error processing get_slice");
	FAILS(cf_t_read_reply(bytes_of(&b), CF_T_M_GET_SLICE, 3, &lim, *state, &got),
		  CF_ERR_PROTOCOL, "Internal error processing get_slice");
	FAILS(cf_t_read_reply(bytes_of(&b), CF_T_M_GET_SLICE, 3, &lim, *state, &got),
		  CF_ERR_PROTOCOL, "INTERNAL_ERROR");
	cf_buf_free(&b);
}

/* ---- client-side checks ---- */

static void
client_checks(void **state)
{
	cf_buf		b = CF_BUF_INIT;
	cf_t_result res = {.count = 3};
	cf_t_result got;
	cf_t_args	args = {0};

	OK(cf_t_write_reply(&b, CF_T_M_GET_COUNT, 41, &res));
	OK(cf_t_read_reply(bytes_of(&b), CF_T_M_GET_COUNT, 41, &lim, *state, &got));
	assert_int_equal(got.count, 3);
	FAILS(cf_t_read_reply(bytes_of(&b), CF_T_M_GET_COUNT, 42, &lim, *state, &got),
		  CF_ERR_PROTOCOL, "sequence id 41, expected 42");
	FAILS(cf_t_read_reply(bytes_of(&b), CF_T_M_GET_SLICE, 41, &lim, *state, &got),
		  CF_ERR_PROTOCOL, "get_count");

	/* a CALL where a reply is expected */
	cf_buf_reset(&b);
	OK(cf_t_write_call(&b, CF_T_M_DESCRIBE_VERSION, 1, &args));
	FAILS(cf_t_read_reply(bytes_of(&b), CF_T_M_DESCRIBE_VERSION, 1, &lim, *state, &got),
		  CF_ERR_PROTOCOL, "reply is expected");

	/* a REPLY with neither success nor exception: MISSING_RESULT for non-void ... */
	cf_buf_reset(&b);
	cf_t_write_message_header(&b, S("describe_version"), CF_T_REPLY, 1);
	cf_buf_put_u8(&b, 0);
	FAILS(cf_t_read_reply(bytes_of(&b), CF_T_M_DESCRIBE_VERSION, 1, &lim, *state, &got),
		  CF_ERR_PROTOCOL, "no result");
	/* ... and success for a void method */
	cf_buf_reset(&b);
	cf_t_write_message_header(&b, S("insert"), CF_T_REPLY, 1);
	cf_buf_put_u8(&b, 0);
	OK(cf_t_read_reply(bytes_of(&b), CF_T_M_INSERT, 1, &lim, *state, &got));
	assert_int_equal(got.exception.kind, CF_T_EXC_NONE);
	cf_buf_free(&b);
}

static void
bad_headers(void **state)
{
	static const uint8_t unversioned[] = {0, 0, 0, 3, 'g', 'e', 't', 1, 0, 0, 0, 1};
	static const uint8_t version2[] = {0x80, 0x02, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1};
	static const uint8_t type0[] = {0x80, 0x01, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
	static const uint8_t type5[] = {0x80, 0x01, 0, 5, 0, 0, 0, 0, 0, 0, 0, 1};
	static const uint8_t neg_name[] = {0x80, 0x01, 0, 1, 0xff, 0xff, 0xff, 0xff, 0, 0, 0, 1};
	static const uint8_t bad_name[] = {0x80, 0x01, 0, 1, 0, 0, 0, 1, 0xc0, 0, 0, 0, 1};
	cf_t_message_header h;
	cf_rd		r;

	(void) state;
#define HDR_FAILS(bytes, needle) \
	do { cf_rd_init(&r, bytes, sizeof(bytes)); \
		FAILS(cf_t_read_message_header(&r, &h), CF_ERR_PROTOCOL, needle); } while (0)
	HDR_FAILS(unversioned, "non-strict");
	HDR_FAILS(version2, "version");
	HDR_FAILS(type0, "message type 0");
	HDR_FAILS(type5, "message type 5");
	HDR_FAILS(neg_name, "negative");
	HDR_FAILS(bad_name, "UTF-8");
	cf_rd_init(&r, type5, 3);
	FAILS(cf_t_read_message_header(&r, &h), CF_ERR_PROTOCOL, "truncated");
}

/* ---- defaults and required fields ---- */

/* Writes hand-built call bytes: header, then the body fn appends. */
static void
put_field(cf_buf *b, uint8_t type, int16_t id)
{
	cf_buf_put_u8(b, type);
	cf_buf_put_u16(b, (uint16_t) id);
}

static void
put_str(cf_buf *b, const char *s)
{
	cf_buf_put_u32(b, (uint32_t) strlen(s));
	cf_buf_put(b, s, strlen(s));
}

/* column_parent {3: "Standard1"} as field id */
static void
put_parent(cf_buf *b, int16_t id, const char *cf)
{
	put_field(b, 12, id);
	put_field(b, 11, 3);
	put_str(b, cf);
	cf_buf_put_u8(b, 0);
}

static cf_status *
read_body(const cf_buf *b, cf_t_method m, cf_arena *a, cf_t_args *out)
{
	cf_rd		r;

	cf_rd_init(&r, b->data, b->len);
	return cf_t_read_args(&r, m, &lim, a, out);
}

static void
defaults(void **state)
{
	cf_buf		b = CF_BUF_INIT;
	cf_t_args	got;

	/* get_slice with a SliceRange of start/finish only and no consistency level */
	put_field(&b, 11, 1);
	put_str(&b, "k");
	put_parent(&b, 2, "Standard1");
	put_field(&b, 12, 3);
	put_field(&b, 12, 2);
	put_field(&b, 11, 1);
	put_str(&b, "");
	put_field(&b, 11, 2);
	put_str(&b, "");
	cf_buf_put_u8(&b, 0);
	cf_buf_put_u8(&b, 0);
	cf_buf_put_u8(&b, 0);
	OK(read_body(&b, CF_T_M_GET_SLICE, *state, &got));
	assert_int_equal(got.predicate.slice_range.count, 100);
	assert_false(got.predicate.slice_range.reversed);
	assert_int_equal(got.consistency_level, CF_T_CL_ONE);

	/* get_range_slices: KeyRange.count and a minimal CfDef via add_column_family */
	cf_buf_reset(&b);
	put_parent(&b, 1, "Standard1");
	put_field(&b, 12, 2);
	cf_buf_put_u8(&b, 0);
	put_field(&b, 12, 3);
	cf_buf_put_u8(&b, 0);
	cf_buf_put_u8(&b, 0);
	OK(read_body(&b, CF_T_M_GET_RANGE_SLICES, *state, &got));
	assert_int_equal(got.range.count, 100);
	assert_false(got.range.has_start_key);
	assert_false(got.predicate.has_slice_range);

	cf_buf_reset(&b);
	put_field(&b, 12, 1);
	put_field(&b, 11, 1);
	put_str(&b, "Blog");
	put_field(&b, 11, 2);
	put_str(&b, "Entries");
	cf_buf_put_u8(&b, 0);
	cf_buf_put_u8(&b, 0);
	OK(read_body(&b, CF_T_M_SYSTEM_ADD_COLUMN_FAMILY, *state, &got));
	eq_slice(got.cf_def.column_type, S("Standard"));
	eq_slice(got.cf_def.comparator_type, S("BytesType"));
	assert_true(got.cf_def.key_cache_size == 200000.0);
	assert_true(got.cf_def.read_repair_chance == 1.0);
	assert_false(got.cf_def.has_column_type || got.cf_def.has_key_cache_size ||
				 got.cf_def.has_subcomparator_type || got.cf_def.has_id);

	/* get_indexed_slices: IndexClause.count */
	cf_buf_reset(&b);
	put_parent(&b, 1, "Users");
	put_field(&b, 12, 2);
	put_field(&b, 15, 1);
	cf_buf_put_u8(&b, 12);
	cf_buf_put_u32(&b, 0);
	put_field(&b, 11, 2);
	put_str(&b, "");
	cf_buf_put_u8(&b, 0);
	put_field(&b, 12, 3);
	cf_buf_put_u8(&b, 0);
	cf_buf_put_u8(&b, 0);
	OK(read_body(&b, CF_T_M_GET_INDEXED_SLICES, *state, &got));
	assert_int_equal(got.index_clause.count, 100);
	assert_int_equal(got.index_clause.n_expressions, 0);
	cf_buf_free(&b);
}

static void
required_missing(void **state)
{
	cf_buf		b = CF_BUF_INIT;
	cf_t_args	got;

	/* insert whose Column lacks its timestamp */
	put_field(&b, 11, 1);
	put_str(&b, "k");
	put_parent(&b, 2, "Standard1");
	put_field(&b, 12, 3);
	put_field(&b, 11, 1);
	put_str(&b, "name");
	put_field(&b, 11, 2);
	put_str(&b, "value");
	cf_buf_put_u8(&b, 0);
	cf_buf_put_u8(&b, 0);
	FAILS(read_body(&b, CF_T_M_INSERT, *state, &got), CF_ERR_PROTOCOL,
		  "required field Column.timestamp missing");

	/* get_slice without its key */
	cf_buf_reset(&b);
	put_parent(&b, 2, "Standard1");
	put_field(&b, 12, 3);
	cf_buf_put_u8(&b, 0);
	cf_buf_put_u8(&b, 0);
	FAILS(read_body(&b, CF_T_M_GET_SLICE, *state, &got), CF_ERR_PROTOCOL,
		  "get_slice_args.key");

	/* the key sent with the wrong type is skipped, hence missing */
	cf_buf_reset(&b);
	put_field(&b, 8, 1);
	cf_buf_put_u32(&b, 5);
	put_parent(&b, 2, "Standard1");
	put_field(&b, 12, 3);
	cf_buf_put_u8(&b, 0);
	cf_buf_put_u8(&b, 0);
	FAILS(read_body(&b, CF_T_M_GET_SLICE, *state, &got), CF_ERR_PROTOCOL,
		  "get_slice_args.key");

	/* ColumnParent without column_family */
	cf_buf_reset(&b);
	put_field(&b, 12, 1);
	cf_buf_put_u8(&b, 0);
	put_field(&b, 12, 2);
	cf_buf_put_u8(&b, 0);
	put_field(&b, 12, 3);
	cf_buf_put_u8(&b, 0);
	cf_buf_put_u8(&b, 0);
	FAILS(read_body(&b, CF_T_M_GET_RANGE_SLICES, *state, &got), CF_ERR_PROTOCOL,
		  "ColumnParent.column_family");

	/* a declared exception without its required why */
	cf_buf_reset(&b);
	cf_t_write_message_header(&b, S("set_keyspace"), CF_T_REPLY, 1);
	put_field(&b, 12, 1);
	cf_buf_put_u8(&b, 0);
	cf_buf_put_u8(&b, 0);
	{
		cf_t_result res;

		FAILS(cf_t_read_reply(bytes_of(&b), CF_T_M_SET_KEYSPACE, 1, &lim, *state, &res),
			  CF_ERR_PROTOCOL, "InvalidRequestException.why");
	}
	cf_buf_free(&b);
}

/* ---- every field id, hand-encoded from the reference ---- */

static void
put_i32f(cf_buf *b, int16_t id, int32_t v)
{
	put_field(b, 8, id);
	cf_buf_put_u32(b, (uint32_t) v);
}

static void
put_strf(cf_buf *b, int16_t id, const char *v)
{
	put_field(b, 11, id);
	put_str(b, v);
}

static void
put_doublef(cf_buf *b, int16_t id, double v)
{
	uint64_t	bits;

	memcpy(&bits, &v, 8);
	put_field(b, 4, id);
	cf_buf_put_u64(b, bits);
}

static void
put_list(cf_buf *b, int16_t id, uint8_t elem, uint32_t n)
{
	put_field(b, 15, id);
	cf_buf_put_u8(b, elem);
	cf_buf_put_u32(b, n);
}

/* Column {1 name, 2 value, 3 timestamp, 4 ttl}, as a list element (no field header). */
static void
put_column(cf_buf *b, const char *name, int32_t ttl)
{
	put_strf(b, 1, name);
	put_strf(b, 2, "v");
	put_field(b, 10, 3);
	cf_buf_put_u64(b, 77);
	put_i32f(b, 4, ttl);
	cf_buf_put_u8(b, 0);
}

/* SliceRange {1 start, 2 finish, 3 reversed, 4 count} */
static void
put_slice_range(cf_buf *b, int16_t id)
{
	put_field(b, 12, id);
	put_strf(b, 1, "a");
	put_strf(b, 2, "z");
	put_field(b, 2, 3);
	cf_buf_put_u8(b, 1);
	put_i32f(b, 4, 9);
	cf_buf_put_u8(b, 0);
}

static void
golden_ks_def(void **state)
{
	static const int16_t i32_ids[] = {14, 16, 17, 18, 19, 20, 21, 22};
	static const int16_t str_ids[] = {3, 5, 6, 8, 15};
	static const int16_t dbl_ids[] = {9, 11, 12, 23};
	cf_buf		b = CF_BUF_INIT;
	cf_t_args	got;
	const cf_t_cf_def *cf;
	char		text[8];

	put_field(&b, 12, 1);		/* system_add_keyspace 1: KsDef */
	put_strf(&b, 1, "Blog");
	put_strf(&b, 2, "SimpleStrategy");
	put_field(&b, 13, 3);		/* strategy_options */
	cf_buf_put_u8(&b, 11);
	cf_buf_put_u8(&b, 11);
	cf_buf_put_u32(&b, 1);
	put_str(&b, "DC1");
	put_str(&b, "2");
	put_i32f(&b, 4, 3);
	put_list(&b, 5, 12, 1);		/* cf_defs */
	put_strf(&b, 1, "Blog");
	put_strf(&b, 2, "Entries");
	for (size_t i = 0; i < lengthof(str_ids); i++)
	{
		snprintf(text, sizeof(text), "s%d", str_ids[i]);
		put_strf(&b, str_ids[i], text);
	}
	for (size_t i = 0; i < lengthof(i32_ids); i++)
		put_i32f(&b, i32_ids[i], i32_ids[i]);
	for (size_t i = 0; i < lengthof(dbl_ids); i++)
		put_doublef(&b, dbl_ids[i], dbl_ids[i] + 0.5);
	put_strf(&b, 4, "pre-release");	/* ids 4, 7, 10: skipped */
	put_i32f(&b, 7, 1);
	put_doublef(&b, 10, 1);
	put_list(&b, 13, 12, 1);	/* column_metadata: ColumnDef {1, 2, 3, 4} */
	put_strf(&b, 1, "state");
	put_strf(&b, 2, "UTF8Type");
	put_i32f(&b, 3, CF_T_INDEX_KEYS);
	put_strf(&b, 4, "by_state");
	cf_buf_put_u8(&b, 0);
	cf_buf_put_u8(&b, 0);		/* end CfDef */
	cf_buf_put_u8(&b, 0);		/* end KsDef */
	cf_buf_put_u8(&b, 0);		/* end args */
	OK(read_body(&b, CF_T_M_SYSTEM_ADD_KEYSPACE, *state, &got));

	eq_slice(got.ks_def.name, S("Blog"));
	eq_slice(got.ks_def.strategy_class, S("SimpleStrategy"));
	assert_true(got.ks_def.has_strategy_options);
	eq_slice(got.ks_def.strategy_options[0].key, S("DC1"));
	eq_slice(got.ks_def.strategy_options[0].value, S("2"));
	assert_int_equal(got.ks_def.replication_factor, 3);
	assert_int_equal(got.ks_def.n_cf_defs, 1);
	cf = &got.ks_def.cf_defs[0];
	eq_slice(cf->keyspace, S("Blog"));
	eq_slice(cf->name, S("Entries"));
	eq_slice(cf->column_type, S("s3"));
	eq_slice(cf->comparator_type, S("s5"));
	eq_slice(cf->subcomparator_type, S("s6"));
	eq_slice(cf->comment, S("s8"));
	eq_slice(cf->default_validation_class, S("s15"));
	assert_true(cf->has_column_type && cf->has_comparator_type && cf->has_subcomparator_type &&
				cf->has_comment && cf->has_default_validation_class);
	assert_true(cf->row_cache_size == 9.5 && cf->key_cache_size == 11.5 &&
				cf->read_repair_chance == 12.5 && cf->memtable_operations_in_millions == 23.5);
	assert_int_equal(cf->gc_grace_seconds, 14);
	assert_int_equal(cf->id, 16);
	assert_int_equal(cf->min_compaction_threshold, 17);
	assert_int_equal(cf->max_compaction_threshold, 18);
	assert_int_equal(cf->row_cache_save_period_in_seconds, 19);
	assert_int_equal(cf->key_cache_save_period_in_seconds, 20);
	assert_int_equal(cf->memtable_flush_after_mins, 21);
	assert_int_equal(cf->memtable_throughput_in_mb, 22);
	assert_int_equal(cf->n_column_metadata, 1);
	eq_slice(cf->column_metadata[0].name, S("state"));
	eq_slice(cf->column_metadata[0].validation_class, S("UTF8Type"));
	assert_true(cf->column_metadata[0].has_index_type && cf->column_metadata[0].has_index_name);
	eq_slice(cf->column_metadata[0].index_name, S("by_state"));
	cf_buf_free(&b);
}

static void
golden_data_args(void **state)
{
	cf_buf		b = CF_BUF_INIT;
	cf_t_args	got;
	const cf_t_cf_mutations *cfm;

	/* get: 1 key, 2 ColumnPath {3 cf, 4 super_column, 5 column}, 3 cl */
	put_strf(&b, 1, "k");
	put_field(&b, 12, 2);
	put_strf(&b, 3, "Super1");
	put_strf(&b, 4, "sc");
	put_strf(&b, 5, "col");
	cf_buf_put_u8(&b, 0);
	put_i32f(&b, 3, CF_T_CL_ALL);
	cf_buf_put_u8(&b, 0);
	OK(read_body(&b, CF_T_M_GET, *state, &got));
	eq_slice(got.column_path.column_family, S("Super1"));
	eq_slice(got.column_path.super_column, S("sc"));
	eq_slice(got.column_path.column, S("col"));
	assert_int_equal(got.consistency_level, CF_T_CL_ALL);

	/* remove: 3 timestamp; insert: 3 Column with ttl, 2 ColumnParent {3, 4} */
	cf_buf_reset(&b);
	put_strf(&b, 1, "k");
	put_field(&b, 12, 2);
	put_strf(&b, 3, "Standard1");
	cf_buf_put_u8(&b, 0);
	put_field(&b, 10, 3);
	cf_buf_put_u64(&b, 123);
	put_i32f(&b, 4, CF_T_CL_ANY);
	cf_buf_put_u8(&b, 0);
	OK(read_body(&b, CF_T_M_REMOVE, *state, &got));
	assert_true(got.timestamp == 123);
	assert_int_equal(got.consistency_level, CF_T_CL_ANY);

	cf_buf_reset(&b);
	put_strf(&b, 1, "k");
	put_field(&b, 12, 2);
	put_strf(&b, 3, "Super1");
	put_strf(&b, 4, "sc");
	cf_buf_put_u8(&b, 0);
	put_field(&b, 12, 3);
	put_column(&b, "n", 60);
	cf_buf_put_u8(&b, 0);
	OK(read_body(&b, CF_T_M_INSERT, *state, &got));
	eq_slice(got.column_parent.super_column, S("sc"));
	eq_slice(got.column.name, S("n"));
	eq_slice(got.column.value, S("v"));
	assert_true(got.column.timestamp == 77);
	assert_true(got.column.has_ttl);
	assert_int_equal(got.column.ttl, 60);

	/* batch_mutate: Mutation {1 cosc {2 SuperColumn}}, Mutation {2 Deletion {1, 2, 3}} */
	cf_buf_reset(&b);
	put_field(&b, 13, 1);
	cf_buf_put_u8(&b, 11);
	cf_buf_put_u8(&b, 13);
	cf_buf_put_u32(&b, 1);
	put_str(&b, "row");
	cf_buf_put_u8(&b, 11);
	cf_buf_put_u8(&b, 15);
	cf_buf_put_u32(&b, 1);
	put_str(&b, "Super1");
	cf_buf_put_u8(&b, 12);
	cf_buf_put_u32(&b, 2);
	put_field(&b, 12, 1);		/* Mutation 1: column_or_supercolumn */
	put_field(&b, 12, 2);		/* super_column */
	put_strf(&b, 1, "sc");
	put_list(&b, 2, 12, 1);
	put_column(&b, "sub", 5);
	cf_buf_put_u8(&b, 0);
	cf_buf_put_u8(&b, 0);
	cf_buf_put_u8(&b, 0);
	put_field(&b, 12, 2);		/* Mutation 2: deletion */
	put_field(&b, 10, 1);
	cf_buf_put_u64(&b, 99);
	put_strf(&b, 2, "sc2");
	put_field(&b, 12, 3);
	put_list(&b, 1, 11, 1);
	put_str(&b, "c1");
	put_slice_range(&b, 2);
	cf_buf_put_u8(&b, 0);
	cf_buf_put_u8(&b, 0);
	cf_buf_put_u8(&b, 0);
	put_i32f(&b, 2, CF_T_CL_QUORUM);
	cf_buf_put_u8(&b, 0);
	OK(read_body(&b, CF_T_M_BATCH_MUTATE, *state, &got));
	assert_int_equal(got.n_mutation_map, 1);
	eq_slice(got.mutation_map[0].key, S("row"));
	assert_int_equal(got.mutation_map[0].n_cfs, 1);
	cfm = &got.mutation_map[0].cfs[0];
	eq_slice(cfm->column_family, S("Super1"));
	assert_int_equal(cfm->n_mutations, 2);
	assert_true(cfm->mutations[0].has_cosc && !cfm->mutations[0].has_deletion);
	assert_true(cfm->mutations[0].cosc.has_super_column);
	eq_slice(cfm->mutations[0].cosc.super_column.name, S("sc"));
	assert_int_equal(cfm->mutations[0].cosc.super_column.n_columns, 1);
	assert_int_equal(cfm->mutations[0].cosc.super_column.columns[0].ttl, 5);
	assert_true(cfm->mutations[1].has_deletion && !cfm->mutations[1].has_cosc);
	assert_true(cfm->mutations[1].deletion.timestamp == 99);
	eq_slice(cfm->mutations[1].deletion.super_column, S("sc2"));
	assert_int_equal(cfm->mutations[1].deletion.predicate.n_column_names, 1);
	assert_true(cfm->mutations[1].deletion.predicate.slice_range.reversed);
	assert_int_equal(cfm->mutations[1].deletion.predicate.slice_range.count, 9);
	eq_slice(cfm->mutations[1].deletion.predicate.slice_range.finish, S("z"));
	assert_int_equal(got.consistency_level, CF_T_CL_QUORUM);
	cf_buf_free(&b);
}

static void
golden_range_args(void **state)
{
	cf_buf		b = CF_BUF_INIT;
	cf_t_args	got;

	/* get_range_slices: 3 KeyRange {1, 2, 3, 4, 5} */
	put_field(&b, 12, 1);
	put_strf(&b, 3, "Standard1");
	cf_buf_put_u8(&b, 0);
	put_field(&b, 12, 2);
	cf_buf_put_u8(&b, 0);
	put_field(&b, 12, 3);
	put_strf(&b, 1, "ka");
	put_strf(&b, 2, "kz");
	put_strf(&b, 3, "t1");
	put_strf(&b, 4, "t2");
	put_i32f(&b, 5, 33);
	cf_buf_put_u8(&b, 0);
	cf_buf_put_u8(&b, 0);
	OK(read_body(&b, CF_T_M_GET_RANGE_SLICES, *state, &got));
	eq_slice(got.range.start_key, S("ka"));
	eq_slice(got.range.end_key, S("kz"));
	eq_slice(got.range.start_token, S("t1"));
	eq_slice(got.range.end_token, S("t2"));
	assert_int_equal(got.range.count, 33);

	/* get_indexed_slices: 2 IndexClause {1 [IndexExpression {1, 2, 3}], 2, 3}, 3 predicate */
	cf_buf_reset(&b);
	put_field(&b, 12, 1);
	put_strf(&b, 3, "Users");
	cf_buf_put_u8(&b, 0);
	put_field(&b, 12, 2);
	put_list(&b, 1, 12, 1);
	put_strf(&b, 1, "state");
	put_i32f(&b, 2, CF_T_OP_LTE);
	put_strf(&b, 3, "UT");
	cf_buf_put_u8(&b, 0);
	put_strf(&b, 2, "start");
	put_i32f(&b, 3, 44);
	cf_buf_put_u8(&b, 0);
	put_field(&b, 12, 3);
	put_slice_range(&b, 2);
	cf_buf_put_u8(&b, 0);
	cf_buf_put_u8(&b, 0);
	OK(read_body(&b, CF_T_M_GET_INDEXED_SLICES, *state, &got));
	assert_int_equal(got.index_clause.n_expressions, 1);
	eq_slice(got.index_clause.expressions[0].column_name, S("state"));
	assert_int_equal(got.index_clause.expressions[0].op, CF_T_OP_LTE);
	eq_slice(got.index_clause.expressions[0].value, S("UT"));
	eq_slice(got.index_clause.start_key, S("start"));
	assert_int_equal(got.index_clause.count, 44);
	assert_true(got.predicate.has_slice_range);

	/* describe_splits 1..4, login 1 AuthenticationRequest {1 map} */
	cf_buf_reset(&b);
	put_strf(&b, 1, "cf");
	put_strf(&b, 2, "0");
	put_strf(&b, 3, "9");
	put_i32f(&b, 4, 128);
	cf_buf_put_u8(&b, 0);
	OK(read_body(&b, CF_T_M_DESCRIBE_SPLITS, *state, &got));
	eq_slice(got.cfname, S("cf"));
	eq_slice(got.start_token, S("0"));
	eq_slice(got.end_token, S("9"));
	assert_int_equal(got.keys_per_split, 128);

	cf_buf_reset(&b);
	put_field(&b, 12, 1);
	put_field(&b, 13, 1);
	cf_buf_put_u8(&b, 11);
	cf_buf_put_u8(&b, 11);
	cf_buf_put_u32(&b, 1);
	put_str(&b, "username");
	put_str(&b, "jsmith");
	cf_buf_put_u8(&b, 0);
	cf_buf_put_u8(&b, 0);
	OK(read_body(&b, CF_T_M_LOGIN, *state, &got));
	assert_int_equal(got.auth_request.n_credentials, 1);
	eq_slice(got.auth_request.credentials[0].value, S("jsmith"));
	cf_buf_free(&b);
}

static void
golden_results(void **state)
{
	cf_buf		b = CF_BUF_INIT;
	cf_t_result got;

	/* get_range_slices: 0 list<KeySlice {1 key, 2 list<cosc {1 Column}>}> */
	cf_t_write_message_header(&b, S("get_range_slices"), CF_T_REPLY, 1);
	put_list(&b, 0, 12, 1);
	put_strf(&b, 1, "k");
	put_list(&b, 2, 12, 1);
	put_field(&b, 12, 1);
	put_column(&b, "n", 1);
	cf_buf_put_u8(&b, 0);
	cf_buf_put_u8(&b, 0);
	cf_buf_put_u8(&b, 0);
	OK(cf_t_read_reply(bytes_of(&b), CF_T_M_GET_RANGE_SLICES, 1, &lim, *state, &got));
	assert_int_equal(got.n_key_slices, 1);
	eq_slice(got.key_slices[0].key, S("k"));
	assert_true(got.key_slices[0].columns[0].has_column);
	eq_slice(got.key_slices[0].columns[0].column.name, S("n"));

	/* describe_ring: 0 list<TokenRange {1, 2, 3 list<string>}> */
	cf_buf_reset(&b);
	cf_t_write_message_header(&b, S("describe_ring"), CF_T_REPLY, 1);
	put_list(&b, 0, 12, 1);
	put_strf(&b, 1, "a");
	put_strf(&b, 2, "b");
	put_list(&b, 3, 11, 1);
	put_str(&b, "10.0.0.1");
	cf_buf_put_u8(&b, 0);
	cf_buf_put_u8(&b, 0);
	OK(cf_t_read_reply(bytes_of(&b), CF_T_M_DESCRIBE_RING, 1, &lim, *state, &got));
	assert_int_equal(got.n_token_ranges, 1);
	eq_slice(got.token_ranges[0].end_token, S("b"));
	eq_slice(got.token_ranges[0].endpoints[0], S("10.0.0.1"));

	/* multiget_count: 0 map<binary, i32>; login's AuthorizationException is field 2 */
	cf_buf_reset(&b);
	cf_t_write_message_header(&b, S("multiget_count"), CF_T_REPLY, 1);
	put_field(&b, 13, 0);
	cf_buf_put_u8(&b, 11);
	cf_buf_put_u8(&b, 8);
	cf_buf_put_u32(&b, 1);
	put_str(&b, "k");
	cf_buf_put_u32(&b, 6);
	cf_buf_put_u8(&b, 0);
	OK(cf_t_read_reply(bytes_of(&b), CF_T_M_MULTIGET_COUNT, 1, &lim, *state, &got));
	assert_int_equal(got.n_key_counts, 1);
	assert_int_equal(got.key_counts[0].count, 6);

	cf_buf_reset(&b);
	cf_t_write_message_header(&b, S("login"), CF_T_REPLY, 1);
	put_field(&b, 12, 2);
	put_strf(&b, 1, "denied");
	cf_buf_put_u8(&b, 0);
	cf_buf_put_u8(&b, 0);
	OK(cf_t_read_reply(bytes_of(&b), CF_T_M_LOGIN, 1, &lim, *state, &got));
	assert_int_equal(got.exception.kind, CF_T_EXC_AUTHORIZATION);
	eq_slice(got.exception.why, S("denied"));
	cf_buf_free(&b);
}

/* ---- skipping ---- */

/* One unknown field of every wire type, containers nested, at id `id`+. */
static void
put_unknowns(cf_buf *b, int16_t id)
{
	put_field(b, 2, id++);		/* bool */
	cf_buf_put_u8(b, 1);
	put_field(b, 3, id++);		/* byte */
	cf_buf_put_u8(b, 0x7f);
	put_field(b, 4, id++);		/* double */
	cf_buf_put_u64(b, 0x400921fb54442d18ULL);
	put_field(b, 6, id++);		/* i16 */
	cf_buf_put_u16(b, 0xffff);
	put_field(b, 8, id++);		/* i32 */
	cf_buf_put_u32(b, 7);
	put_field(b, 10, id++);		/* i64 */
	cf_buf_put_u64(b, 8);
	put_field(b, 11, id++);		/* string, not UTF-8: unknown, so never checked */
	cf_buf_put_u32(b, 2);
	cf_buf_put_u16(b, 0xfffe);
	put_field(b, 12, id++);		/* struct { list<map<string,struct{}>>, set<i16> } */
	put_field(b, 15, 1);
	cf_buf_put_u8(b, 13);
	cf_buf_put_u32(b, 1);
	cf_buf_put_u8(b, 11);
	cf_buf_put_u8(b, 12);
	cf_buf_put_u32(b, 2);
	put_str(b, "a");
	put_field(b, 8, 1);
	cf_buf_put_u32(b, 1);
	cf_buf_put_u8(b, 0);
	put_str(b, "b");
	cf_buf_put_u8(b, 0);
	put_field(b, 14, 2);
	cf_buf_put_u8(b, 6);
	cf_buf_put_u32(b, 2);
	cf_buf_put_u32(b, 0x00010002);
	cf_buf_put_u8(b, 0);
	put_field(b, 13, id++);		/* map<i32, list<string>> */
	cf_buf_put_u8(b, 8);
	cf_buf_put_u8(b, 15);
	cf_buf_put_u32(b, 1);
	cf_buf_put_u32(b, 1);
	cf_buf_put_u8(b, 11);
	cf_buf_put_u32(b, 1);
	put_str(b, "x");
	put_field(b, 14, id++);		/* set<i64> */
	cf_buf_put_u8(b, 10);
	cf_buf_put_u32(b, 1);
	cf_buf_put_u64(b, 1);
	put_field(b, 15, id++);		/* list<struct> empty */
	cf_buf_put_u8(b, 12);
	cf_buf_put_u32(b, 0);
}

static void
unknown_fields_skipped(void **state)
{
	cf_buf		b = CF_BUF_INIT;
	cf_t_args	got;

	put_unknowns(&b, 100);
	put_field(&b, 11, 1);
	put_str(&b, "k");
	put_field(&b, 12, 2);		/* ColumnParent with unknowns inside, and ids 1 and 2 */
	put_unknowns(&b, 10);
	put_field(&b, 11, 3);
	put_str(&b, "Standard1");
	put_field(&b, 8, 4);		/* super_column as an i32: wrong type, skipped */
	cf_buf_put_u32(&b, 1);
	cf_buf_put_u8(&b, 0);
	put_field(&b, 2, 4);		/* consistency_level as a bool: skipped */
	cf_buf_put_u8(&b, 1);
	put_field(&b, 12, 3);
	put_field(&b, 15, 1);		/* column_names */
	cf_buf_put_u8(&b, 11);
	cf_buf_put_u32(&b, 1);
	put_str(&b, "c");
	put_unknowns(&b, 3);
	cf_buf_put_u8(&b, 0);
	put_unknowns(&b, -20);
	cf_buf_put_u8(&b, 0);
	OK(read_body(&b, CF_T_M_GET_SLICE, *state, &got));
	eq_slice(got.key, S("k"));
	eq_slice(got.column_parent.column_family, S("Standard1"));
	assert_false(got.column_parent.has_super_column);
	assert_int_equal(got.consistency_level, CF_T_CL_ONE);
	assert_true(got.predicate.has_column_names);
	assert_int_equal(got.predicate.n_column_names, 1);
	eq_slice(got.predicate.column_names[0], S("c"));
	cf_buf_free(&b);
}

/* ---- hostile input ---- */

static void
truncated_everywhere(void **state)
{
	static sample s;
	cf_buf		b = CF_BUF_INIT;
	cf_t_args	args;
	cf_t_result res;

	build_sample(&s);
	for (int i = 0; i < CF_T_M_COUNT_; i++)
	{
		cf_t_method m = (cf_t_method) i;

		cf_buf_reset(&b);
		OK(cf_t_write_call(&b, m, 1, &s.args));
		for (size_t n = 0; n < b.len; n++)
		{
			cf_rd		r;
			cf_t_message_header h;
			cf_status  *st;

			cf_rd_init(&r, b.data, n);
			st = cf_t_read_message_header(&r, &h);
			if (st == NULL)
				st = cf_t_read_args(&r, m, &lim, *state, &args);
			assert_non_null(st);
			assert_int_equal(cf_status_code(st), CF_ERR_PROTOCOL);
			cf_status_free(st);
		}
		cf_buf_reset(&b);
		OK(cf_t_write_reply(&b, m, 1, &s.res));
		for (size_t n = 0; n < b.len; n++)
		{
			cf_status  *st = cf_t_read_reply(cf_slice_of(b.data, n), m, 1, &lim, *state, &res);

			assert_non_null(st);
			assert_int_equal(cf_status_code(st), CF_ERR_PROTOCOL);
			cf_status_free(st);
		}
	}
	cf_buf_free(&b);
}

static void
lying_lengths(void **state)
{
	cf_buf		b = CF_BUF_INIT;
	cf_t_args	got;
	cf_arena   *a = cf_arena_new(0);
	size_t		before = cf_arena_memory_usage(a);

	(void) state;
	/* multiget_slice: keys list<binary> of 2^31-1 elements, 10 bytes left */
	put_field(&b, 15, 1);
	cf_buf_put_u8(&b, 11);
	cf_buf_put_u32(&b, INT32_MAX);
	cf_buf_put(&b, "0123456789", 10);
	FAILS(read_body(&b, CF_T_M_MULTIGET_SLICE, a, &got), CF_ERR_PROTOCOL, "only 10 bytes left");
	/* the same in an unknown field (the skip path) */
	cf_buf_reset(&b);
	put_field(&b, 15, 77);
	cf_buf_put_u8(&b, 12);
	cf_buf_put_u32(&b, INT32_MAX);
	cf_buf_put(&b, "0123456789", 10);
	FAILS(read_body(&b, CF_T_M_MULTIGET_SLICE, a, &got), CF_ERR_PROTOCOL, "bytes left");
	/* a map count */
	cf_buf_reset(&b);
	put_field(&b, 13, 1);
	cf_buf_put_u8(&b, 11);
	cf_buf_put_u8(&b, 13);
	cf_buf_put_u32(&b, 0x10000000);
	cf_buf_put(&b, "0123456789", 10);
	FAILS(read_body(&b, CF_T_M_BATCH_MUTATE, a, &got), CF_ERR_PROTOCOL, "bytes left");
	/* a string length of 2^31-1 and a negative one */
	cf_buf_reset(&b);
	put_field(&b, 11, 1);
	cf_buf_put_u32(&b, INT32_MAX);
	cf_buf_put(&b, "0123456789", 10);
	FAILS(read_body(&b, CF_T_M_GET, a, &got), CF_ERR_TOO_LARGE, "limit");
	lim.max_string = 0;			/* no cap: the bytes left still bound it */
	FAILS(read_body(&b, CF_T_M_GET, a, &got), CF_ERR_PROTOCOL, "only 10 left");
	lim = cf_t_limits_default();
	cf_buf_reset(&b);
	put_field(&b, 11, 1);
	cf_buf_put_u32(&b, 0xfffffff0);
	FAILS(read_body(&b, CF_T_M_GET, a, &got), CF_ERR_PROTOCOL, "negative");
	/* a negative count */
	cf_buf_reset(&b);
	put_field(&b, 15, 1);
	cf_buf_put_u8(&b, 11);
	cf_buf_put_u32(&b, 0x80000000);
	FAILS(read_body(&b, CF_T_M_MULTIGET_COUNT, a, &got), CF_ERR_PROTOCOL, "negative");
	/* the wrong element type in a known list */
	cf_buf_reset(&b);
	put_field(&b, 15, 1);
	cf_buf_put_u8(&b, 8);
	cf_buf_put_u32(&b, 1);
	cf_buf_put_u32(&b, 1);
	FAILS(read_body(&b, CF_T_M_MULTIGET_COUNT, a, &got), CF_ERR_PROTOCOL,
		  "container of i32 where string is expected");
	/* an unknown wire type */
	cf_buf_reset(&b);
	put_field(&b, 9, 1);
	FAILS(read_body(&b, CF_T_M_GET, a, &got), CF_ERR_PROTOCOL, "unknown wire type 9");
	/* caps */
	cf_buf_reset(&b);
	put_field(&b, 15, 1);
	cf_buf_put_u8(&b, 11);
	cf_buf_put_u32(&b, 3);
	for (int i = 0; i < 3; i++)
		put_str(&b, "key");
	lim.max_container = 2;
	FAILS(read_body(&b, CF_T_M_MULTIGET_COUNT, a, &got), CF_ERR_TOO_LARGE, "limit of 2");
	lim = cf_t_limits_default();
	lim.max_string = 2;
	FAILS(read_body(&b, CF_T_M_MULTIGET_COUNT, a, &got), CF_ERR_TOO_LARGE, "limit of 2");
	lim = cf_t_limits_default();
	assert_true(cf_arena_memory_usage(a) - before < 1024 * 1024);
	cf_arena_free(a);
	cf_buf_free(&b);
}

static void
memory_budget(void **state)
{
	cf_buf		b = CF_BUF_INIT;
	cf_t_args	got;
	cf_arena   *a = cf_arena_new(0);
	int			n = 200000;

	(void) state;
	/* batch_mutate: one key, one CF, 200000 empty Mutations (one byte each on the wire) */
	put_field(&b, 13, 1);
	cf_buf_put_u8(&b, 11);
	cf_buf_put_u8(&b, 13);
	cf_buf_put_u32(&b, 1);
	put_str(&b, "k");
	cf_buf_put_u8(&b, 11);
	cf_buf_put_u8(&b, 15);
	cf_buf_put_u32(&b, 1);
	put_str(&b, "Standard1");
	cf_buf_put_u8(&b, 12);
	cf_buf_put_u32(&b, (uint32_t) n);
	for (int i = 0; i < n; i++)
		cf_buf_put_u8(&b, 0);
	cf_buf_put_u8(&b, 0);
	FAILS(read_body(&b, CF_T_M_BATCH_MUTATE, a, &got), CF_ERR_TOO_LARGE, "memory");
	assert_true(cf_arena_memory_usage(a) < 1024 * 1024);
	cf_arena_free(a);
	cf_buf_free(&b);
}

static void
depth_bomb(void **state)
{
	cf_buf		b = CF_BUF_INIT;
	cf_t_args	got;
	int			depth = 100000;

	/* an unknown field of list<list<list<...>>> */
	put_field(&b, 15, 99);
	for (int i = 0; i < depth; i++)
	{
		cf_buf_put_u8(&b, 15);
		cf_buf_put_u32(&b, 1);
	}
	FAILS(read_body(&b, CF_T_M_DESCRIBE_VERSION, *state, &got), CF_ERR_TOO_LARGE,
		  "nesting deeper than 64");
	/* nested structs */
	cf_buf_reset(&b);
	for (int i = 0; i < depth; i++)
		put_field(&b, 12, 1);
	FAILS(read_body(&b, CF_T_M_DESCRIBE_VERSION, *state, &got), CF_ERR_TOO_LARGE, "nesting");
	/* a known path past a small cap */
	lim.max_depth = 1;
	cf_buf_reset(&b);
	put_field(&b, 11, 1);
	put_str(&b, "k");
	put_parent(&b, 2, "Standard1");
	put_field(&b, 12, 3);
	cf_buf_put_u8(&b, 0);
	cf_buf_put_u8(&b, 0);
	FAILS(read_body(&b, CF_T_M_GET_SLICE, *state, &got), CF_ERR_TOO_LARGE, "nesting");
	lim = cf_t_limits_default();
	OK(read_body(&b, CF_T_M_GET_SLICE, *state, &got));
	cf_buf_free(&b);
}

static void
invalid_utf8(void **state)
{
	cf_buf		b = CF_BUF_INIT;
	cf_t_args	got;

	put_field(&b, 11, 1);
	put_str(&b, "\xff\xfe");	/* key is binary: fine */
	put_parent(&b, 2, "Stan\xed\xa0\x80");	/* a surrogate in a string */
	put_field(&b, 12, 3);
	cf_buf_put_u8(&b, 0);
	cf_buf_put_u8(&b, 0);
	FAILS(read_body(&b, CF_T_M_GET_SLICE, *state, &got), CF_ERR_PROTOCOL, "UTF-8");
	cf_buf_reset(&b);
	put_field(&b, 11, 1);
	put_str(&b, "caf\xc3");		/* truncated sequence in set_keyspace's keyspace */
	cf_buf_put_u8(&b, 0);
	FAILS(read_body(&b, CF_T_M_SET_KEYSPACE, *state, &got), CF_ERR_PROTOCOL, "UTF-8");
	cf_buf_free(&b);
}

static void
encoder_limits(void **state)
{
	cf_buf		b;
	cf_t_args	args = {.keyspace = S("a-rather-long-keyspace-name")};

	(void) state;
	cf_buf_init(&b, 16);
	FAILS(cf_t_write_call(&b, CF_T_M_SET_KEYSPACE, 1, &args), CF_ERR_TOO_LARGE, "");
	cf_buf_free(&b);
	cf_buf_init(&b, 0);
	args.keyspace = cf_slice_of("x", (size_t) INT32_MAX + 1);	/* never read */
	FAILS(cf_t_write_call(&b, CF_T_M_SET_KEYSPACE, 1, &args), CF_ERR_TOO_LARGE, "");
	cf_buf_free(&b);
}

/* ---- speed: decode + encode of a typical request and a 100-column reply ---- */

static double
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);	/* CPU time: steadier on a shared machine */
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static void
speed(void **state)
{
	cf_t_column cols[100];
	cf_t_cosc	coscs[100];
	char		names[100][24];
	cf_t_result res = {.coscs = coscs, .n_coscs = 100};
	cf_t_result got_res;
	cf_t_args	got;
	cf_buf		call = CF_BUF_INIT;
	cf_buf		out = CF_BUF_INIT;
	cf_buf		reply = CF_BUF_INIT;
	int			iters = getenv("CF_THRIFT_BENCH_ITERS") ?
		atoi(getenv("CF_THRIFT_BENCH_ITERS")) : 20000;
	double		t0;
	double		req_ns;
	double		rep_ns;

	(void) state;
	for (int i = 0; i < 100; i++)
	{
		snprintf(names[i], sizeof(names[i]), "column-%04d", i);
		cols[i] = (cf_t_column) {S(names[i]), S("a value of some thirty bytes..."),
		1290000000000000 + i, false, 0};
		coscs[i] = (cf_t_cosc) {.has_column = true, .column = cols[i]};
	}
	cf_buf_put(&call, get_slice_call, sizeof(get_slice_call));
	OK(cf_t_write_reply(&reply, CF_T_M_GET_SLICE, 7, &res));

	t0 = now_ns();
	for (int i = 0; i < iters; i++)
	{
		cf_arena   *a = cf_arena_new(4096);
		cf_rd		r;
		cf_t_message_header h;
		cf_t_method m;

		cf_rd_init(&r, call.data, call.len);
		OK(cf_t_read_message_header(&r, &h));
		assert_true(cf_t_method_lookup(h.name, &m));
		OK(cf_t_read_args(&r, m, &lim, a, &got));
		cf_buf_reset(&out);
		OK(cf_t_write_call(&out, m, h.seqid, &got));
		assert_int_equal(out.len, call.len);
		cf_arena_free(a);
	}
	req_ns = (now_ns() - t0) / iters;

	t0 = now_ns();
	for (int i = 0; i < iters / 10; i++)
	{
		cf_arena   *a = cf_arena_new(16384);

		OK(cf_t_read_reply(bytes_of(&reply), CF_T_M_GET_SLICE, 7, &lim, a, &got_res));
		assert_int_equal(got_res.n_coscs, 100);
		cf_buf_reset(&out);
		OK(cf_t_write_reply(&out, CF_T_M_GET_SLICE, 7, &got_res));
		assert_int_equal(out.len, reply.len);
		cf_arena_free(a);
	}
	rep_ns = (now_ns() - t0) / (iters / 10);
	print_message("thrift codec: get_slice call decode+encode %.0f ns/op (%zu bytes); "
				  "100-column reply decode+encode %.0f ns/op (%zu bytes)\n",
				  req_ns, call.len, rep_ns, reply.len);
	cf_buf_free(&call);
	cf_buf_free(&out);
	cf_buf_free(&reply);
}

/* ---- colfam_multiget_chain (thrift/admin.h) ---- */

/* ColumnParent {3 column_family, 4 super_column} as field id (put_parent with sc). */
static void
put_parent_sc(cf_buf *b, int16_t id, const char *cf, const char *sc)
{
	put_field(b, 12, id);
	put_strf(b, 3, cf);
	put_strf(b, 4, sc);
	cf_buf_put_u8(b, 0);
}

/* The call of thrift.md's IDL, by hand: two keys, a range, two steps, QUORUM. */
static void
put_chain_call(cf_buf *b, bool with_cl)
{
	cf_t_write_message_header(b, S("colfam_multiget_chain"), CF_T_CALL, 3);
	put_list(b, 1, 11, 2);
	put_str(b, "k1");
	put_str(b, "k2");
	put_parent(b, 2, "TaggedPosts");
	put_field(b, 12, 3);		/* SlicePredicate {2 SliceRange} */
	put_slice_range(b, 2);
	cf_buf_put_u8(b, 0);
	put_list(b, 4, 12, 2);
	/* ChainStep {1 parent, 2 predicate {1 names}, 3 from_step 0, 4 source VALUE} */
	put_parent(b, 1, "BlogEntries");
	put_field(b, 12, 2);
	put_list(b, 1, 11, 1);
	put_str(b, "title");
	cf_buf_put_u8(b, 0);
	put_i32f(b, 3, 0);
	put_i32f(b, 4, 0);
	cf_buf_put_u8(b, 0);
	/* ChainStep {..., 3 from_step 1, 4 source NAMED_VALUE, 5 source_name "author"} */
	put_parent_sc(b, 1, "Authors", "sc");
	put_field(b, 12, 2);
	put_slice_range(b, 2);
	cf_buf_put_u8(b, 0);
	put_i32f(b, 3, 1);
	put_i32f(b, 4, 4);
	put_strf(b, 5, "author");
	cf_buf_put_u8(b, 0);
	if (with_cl)
		put_i32f(b, 5, CF_T_CL_QUORUM);
	cf_buf_put_u8(b, 0);
}

static cf_status *
decode_chain_call(const cf_buf *b, cf_arena *a, cf_ta_args *out)
{
	cf_rd		r;
	cf_t_message_header h;
	cf_status  *s;

	cf_rd_init(&r, b->data, b->len);
	if ((s = cf_t_read_message_header(&r, &h)) != NULL)
		return s;
	assert_int_equal(h.type, CF_T_CALL);
	eq_slice(h.name, S("colfam_multiget_chain"));
	s = cf_ta_read_args(&r, CF_TA_M_MULTIGET_CHAIN, &lim, a, out);
	if (s == NULL)
		assert_int_equal(cf_rd_left(&r), 0);
	return s;
}

static void
chain_golden_args(void **state)
{
	cf_buf		b = CF_BUF_INIT,
				again = CF_BUF_INIT;
	cf_ta_args	got;
	cf_t_slice_predicate range = {.has_slice_range = true,
	.slice_range = {S("a"), S("z"), true, 9}};

	put_chain_call(&b, true);
	OK(decode_chain_call(&b, *state, &got));
	eq_slices(got.keys, got.n_keys, (cf_slice[]) {S("k1"), S("k2")}, 2);
	eq_parent(&got.column_parent, &(cf_t_column_parent) {.column_family = S("TaggedPosts")});
	eq_predicate(&got.predicate, &range);
	assert_int_equal(got.n_steps, 2);
	eq_parent(&got.steps[0].column_parent,
			  &(cf_t_column_parent) {.column_family = S("BlogEntries")});
	eq_predicate(&got.steps[0].predicate, &(cf_t_slice_predicate) {.has_column_names = true,
				 .column_names = (cf_slice[]) {S("title")},.n_column_names = 1});
	assert_int_equal(got.steps[0].from_step, 0);
	assert_int_equal(got.steps[0].source, CF_TA_CHAIN_VALUE);
	assert_false(got.steps[0].has_source_name);
	eq_parent(&got.steps[1].column_parent, &(cf_t_column_parent) {
			  .column_family = S("Authors"),.has_super_column = true,.super_column = S("sc")});
	eq_predicate(&got.steps[1].predicate, &range);
	assert_int_equal(got.steps[1].from_step, 1);
	assert_int_equal(got.steps[1].source, CF_TA_CHAIN_NAMED_VALUE);
	assert_true(got.steps[1].has_source_name);
	eq_slice(got.steps[1].source_name, S("author"));
	assert_int_equal(got.consistency_level, CF_T_CL_QUORUM);
	/* the encoder writes the same bytes */
	OK(cf_ta_write_call(&again, CF_TA_M_MULTIGET_CHAIN, 3, &got));
	assert_int_equal(again.len, b.len);
	assert_memory_equal(again.data, b.data, b.len);

	/* consistency_level absent: ONE; 0 is sent as ONE */
	cf_buf_reset(&b);
	put_chain_call(&b, false);
	OK(decode_chain_call(&b, *state, &got));
	assert_int_equal(got.consistency_level, CF_T_CL_ONE);
	got.consistency_level = 0;
	cf_buf_reset(&again);
	OK(cf_ta_write_call(&again, CF_TA_M_MULTIGET_CHAIN, 3, &got));
	OK(decode_chain_call(&again, *state, &got));
	assert_int_equal(got.consistency_level, CF_T_CL_ONE);

	/* every truncation fails cleanly */
	cf_buf_reset(&b);
	put_chain_call(&b, true);
	for (size_t n = 0; n < b.len; n++)
	{
		cf_buf		cut = CF_BUF_INIT;

		cf_buf_put(&cut, b.data, n);
		FAILS(decode_chain_call(&cut, *state, &got), CF_ERR_PROTOCOL, "");
		cf_buf_free(&cut);
	}

	/* required fields: of the args, and of a ChainStep */
	cf_buf_reset(&b);
	cf_t_write_message_header(&b, S("colfam_multiget_chain"), CF_T_CALL, 3);
	put_list(&b, 1, 11, 0);
	put_parent(&b, 2, "C");
	put_field(&b, 12, 3);
	cf_buf_put_u8(&b, 0);
	cf_buf_put_u8(&b, 0);
	FAILS(decode_chain_call(&b, *state, &got), CF_ERR_PROTOCOL,
		  "required field colfam_multiget_chain_args.steps missing");
	cf_buf_reset(&b);
	cf_t_write_message_header(&b, S("colfam_multiget_chain"), CF_T_CALL, 3);
	put_list(&b, 4, 12, 1);
	put_parent(&b, 1, "C");
	put_field(&b, 12, 2);
	cf_buf_put_u8(&b, 0);
	put_i32f(&b, 3, 0);
	cf_buf_put_u8(&b, 0);
	cf_buf_put_u8(&b, 0);
	FAILS(decode_chain_call(&b, *state, &got), CF_ERR_PROTOCOL,
		  "required field ChainStep.source missing");
	cf_buf_free(&b);
	cf_buf_free(&again);
}

static void
chain_golden_reply(void **state)
{
	cf_buf		b = CF_BUF_INIT,
				again = CF_BUF_INIT;
	cf_ta_result got;

	/* 0 list<list<KeySlice>>: [[{1 "k", 2 [{1 Column n}]}], []] */
	cf_t_write_message_header(&b, S("colfam_multiget_chain"), CF_T_REPLY, 4);
	put_list(&b, 0, 15, 2);
	cf_buf_put_u8(&b, 12);
	cf_buf_put_u32(&b, 1);
	put_strf(&b, 1, "k");
	put_list(&b, 2, 12, 1);
	put_field(&b, 12, 1);
	put_column(&b, "n", 7);
	cf_buf_put_u8(&b, 0);
	cf_buf_put_u8(&b, 0);
	cf_buf_put_u8(&b, 12);
	cf_buf_put_u32(&b, 0);
	cf_buf_put_u8(&b, 0);
	OK(cf_ta_read_reply(bytes_of(&b), CF_TA_M_MULTIGET_CHAIN, 4, &lim, *state, &got));
	assert_true(got.has_chain);
	assert_false(got.has_ire || got.has_ue || got.has_te);
	assert_int_equal(got.n_chain, 2);
	assert_int_equal(got.chain[0].n_rows, 1);
	eq_slice(got.chain[0].rows[0].key, S("k"));
	assert_int_equal(got.chain[0].rows[0].n_columns, 1);
	eq_slice(got.chain[0].rows[0].columns[0].column.name, S("n"));
	assert_int_equal(got.chain[0].rows[0].columns[0].column.ttl, 7);
	assert_int_equal(got.chain[1].n_rows, 0);
	OK(cf_ta_write_reply(&again, CF_TA_M_MULTIGET_CHAIN, 4, &got));
	assert_int_equal(again.len, b.len);
	assert_memory_equal(again.data, b.data, b.len);
	for (size_t n = 0; n < b.len; n++)
		FAILS(cf_ta_read_reply(cf_slice_of(b.data, n), CF_TA_M_MULTIGET_CHAIN, 4, &lim,
							   *state, &got), CF_ERR_PROTOCOL, "");

	/* the declared exceptions: 1 ire {1 why}, 2 ue {}, 3 te {} */
	for (int16_t id = 1; id <= 3; id++)
	{
		cf_ta_result e = {.has_ire = id == 1,.has_ue = id == 2,.has_te = id == 3,
		.ire = {S("why")}};

		cf_buf_reset(&b);
		cf_t_write_message_header(&b, S("colfam_multiget_chain"), CF_T_REPLY, 4);
		put_field(&b, 12, id);
		if (id == 1)
			put_strf(&b, 1, "why");
		cf_buf_put_u8(&b, 0);
		cf_buf_put_u8(&b, 0);
		OK(cf_ta_read_reply(bytes_of(&b), CF_TA_M_MULTIGET_CHAIN, 4, &lim, *state, &got));
		assert_false(got.has_chain);
		assert_int_equal(got.has_ire, id == 1);
		assert_int_equal(got.has_ue, id == 2);
		assert_int_equal(got.has_te, id == 3);
		if (id == 1)
			eq_slice(got.ire.why, S("why"));
		cf_buf_reset(&again);
		OK(cf_ta_write_reply(&again, CF_TA_M_MULTIGET_CHAIN, 4, &e));
		assert_int_equal(again.len, b.len);
		assert_memory_equal(again.data, b.data, b.len);
	}
	/* the admin methods declare only the IRE */
	FAILS(cf_ta_write_reply(&again, CF_TA_M_FLUSH, 4, &(cf_ta_result) {.has_ue = true}),
		  CF_ERR_INVALID, "colfam_flush declares no UnavailableException");
	FAILS(cf_ta_write_reply(&again, CF_TA_M_CFSTATS, 4, &(cf_ta_result) {.has_te = true}),
		  CF_ERR_INVALID, "colfam_cfstats declares no TimedOutException");
	/* a reply with neither answer nor exception */
	cf_buf_reset(&b);
	cf_t_write_message_header(&b, S("colfam_multiget_chain"), CF_T_REPLY, 4);
	cf_buf_put_u8(&b, 0);
	FAILS(cf_ta_read_reply(bytes_of(&b), CF_TA_M_MULTIGET_CHAIN, 4, &lim, *state, &got),
		  CF_ERR_PROTOCOL, "MISSING_RESULT");
	/* an older server's answer */
	cf_buf_reset(&b);
	cf_t_write_app_exception(&b, S("colfam_multiget_chain"), 4, CF_T_APP_UNKNOWN_METHOD,
							 "Invalid method name: 'colfam_multiget_chain'");
	FAILS(cf_ta_read_reply(bytes_of(&b), CF_TA_M_MULTIGET_CHAIN, 4, &lim, *state, &got),
		  CF_ERR_PROTOCOL, "(UNKNOWN_METHOD, type 1)");
	cf_buf_free(&b);
	cf_buf_free(&again);
}

/*
 * With CF_THRIFT_SEED_DIR set, writes every method's call and reply of the sample
 * (and each declared exception) there as the fuzzer's seed corpus (tests/run.sh fuzz).
 */
static int
write_seeds(const char *dir)
{
	static sample s;

	build_sample(&s);
	for (int i = 0; i < CF_T_M_COUNT_; i++)
	{
		const cf_t_exception_kind *exc = declared((cf_t_method) i);

		for (int k = -2; k < 0 || exc[k] != 0; k++)
		{
			cf_buf		b = CF_BUF_INIT;
			cf_t_result r = {.exception = {k >= 0 ? exc[k] : 0, S("why")}};
			char		path[4096];
			FILE	   *f;
			cf_status  *st;

			if (k == -2)
				st = cf_t_write_call(&b, (cf_t_method) i, i, &s.args);
			else
				st = cf_t_write_reply(&b, (cf_t_method) i, i, k == -1 ? &s.res : &r);
			snprintf(path, sizeof(path), "%s/%s-%d", dir, cf_t_method_name((cf_t_method) i), k);
			if (st != NULL || (f = fopen(path, "wb")) == NULL ||
				fwrite(b.data, 1, b.len, f) != b.len || fclose(f) != 0)
			{
				fprintf(stderr, "cannot write seed %s\n", path);
				return 1;
			}
			cf_buf_free(&b);
		}
	}
	/* colfam_multiget_chain: its call, an answer and each exception */
	for (int k = -2; k <= 3; k++)
	{
		cf_buf		b = CF_BUF_INIT;
		char		path[4096];
		FILE	   *f;
		cf_ta_result r = {.has_ire = k == 1,.has_ue = k == 2,.has_te = k == 3,
		.ire = {S("why")}};
		cf_t_key_slice ks = {.key = S("k"),.columns = s.res.coscs,.n_columns = s.res.n_coscs};
		cf_ta_chain_answer ans[2] = {{&ks, 1}, {NULL, 0}};
		cf_status  *st = NULL;

		if (k == -2)
			put_chain_call(&b, true);
		else if (k == -1)
			continue;
		else
		{
			if (k == 0)
				r = (cf_ta_result) {.chain = ans,.n_chain = 2};
			st = cf_ta_write_reply(&b, CF_TA_M_MULTIGET_CHAIN, 3, &r);
		}
		snprintf(path, sizeof(path), "%s/colfam_multiget_chain-%d", dir, k);
		if (st != NULL || (f = fopen(path, "wb")) == NULL ||
			fwrite(b.data, 1, b.len, f) != b.len || fclose(f) != 0)
		{
			fprintf(stderr, "cannot write seed %s\n", path);
			return 1;
		}
		cf_buf_free(&b);
	}
	return 0;
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(methods_named),
		cmocka_unit_test_setup_teardown(args_round_trip, setup, teardown),
		cmocka_unit_test_setup_teardown(results_round_trip, setup, teardown),
		cmocka_unit_test_setup_teardown(ks_def_standalone, setup, teardown),
		cmocka_unit_test_setup_teardown(golden_calls, setup, teardown),
		cmocka_unit_test_setup_teardown(golden_replies, setup, teardown),
		cmocka_unit_test_setup_teardown(golden_ks_def, setup, teardown),
		cmocka_unit_test_setup_teardown(golden_data_args, setup, teardown),
		cmocka_unit_test_setup_teardown(golden_range_args, setup, teardown),
		cmocka_unit_test_setup_teardown(golden_results, setup, teardown),
		cmocka_unit_test_setup_teardown(app_exception, setup, teardown),
		cmocka_unit_test_setup_teardown(client_checks, setup, teardown),
		cmocka_unit_test(bad_headers),
		cmocka_unit_test_setup_teardown(defaults, setup, teardown),
		cmocka_unit_test_setup_teardown(required_missing, setup, teardown),
		cmocka_unit_test_setup_teardown(unknown_fields_skipped, setup, teardown),
		cmocka_unit_test_setup_teardown(truncated_everywhere, setup, teardown),
		cmocka_unit_test_setup_teardown(lying_lengths, setup, teardown),
		cmocka_unit_test_setup_teardown(memory_budget, setup, teardown),
		cmocka_unit_test_setup_teardown(depth_bomb, setup, teardown),
		cmocka_unit_test_setup_teardown(invalid_utf8, setup, teardown),
		cmocka_unit_test(encoder_limits),
		cmocka_unit_test_setup_teardown(speed, setup, teardown),
		cmocka_unit_test_setup_teardown(chain_golden_args, setup, teardown),
		cmocka_unit_test_setup_teardown(chain_golden_reply, setup, teardown),
	};

	if (getenv("CF_THRIFT_SEED_DIR"))
		return write_seeds(getenv("CF_THRIFT_SEED_DIR"));
	return cmocka_run_group_tests(tests, NULL, NULL);
}
