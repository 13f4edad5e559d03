/*
 * server/route.c — colfamd's route (contract in route.h). Reads the message header;
 * only the reads (colfam_multiget_chain too) have their arguments decoded, to count
 * what they select and see which column families they read (the worker or loop that
 * runs them decodes them again: a few hundred nanoseconds against the hand-off this
 * saves). The schema is asked last, only about a read the count lets run inline.
 */
#include "server/route.h"

#include "server/server.h"
#include "thrift/admin.h"
#include "thrift/cassandra.h"
#include "util/arena.h"

/* Columns one key's predicate selects at most (0 when it selects none or is invalid). */
static uint64_t
predicate_cells(const cf_t_slice_predicate *p)
{
	if (p->has_column_names)
		return p->n_column_names;
	if (p->has_slice_range && p->slice_range.count > 0)
		return (uint64_t) p->slice_range.count;
	return 0;
}

/*
 * Does a read of parent answer whole super columns, each with all its sub-columns
 * (a Super CF, no super column named)? With no schema to ask: whenever it names none.
 */
static bool
whole_supers(const cf_route_schema *schema, const cf_t_column_parent *parent)
{
	if (parent->has_super_column)
		return false;
	return schema == NULL || schema->is_super(schema->ctx, parent->column_family);
}

/*
 * The read lane when the call's arguments select few enough columns and no whole
 * super column, else the pool.
 */
static int
route_read(cf_rd *r, cf_t_method m, const cf_route_schema *schema)
{
	cf_t_limits lim = cf_t_limits_default();
	cf_arena   *arena = cf_arena_new(4096);
	cf_t_args	args = {0};
	cf_status  *s;
	int			lane = CF_SERVER_POOL;

	if (arena == NULL)
		return CF_SERVER_POOL;
	s = cf_t_read_args(r, m, &lim, arena, &args);
	if (s == NULL && m == CF_T_M_GET)
	{
		/* one column, or (a super column named, no column) that whole super column */
		if (!args.column_path.has_super_column || args.column_path.has_column)
			lane = CF_ROUTE_READS;
	}
	else if (s == NULL)
	{
		uint64_t	keys = (m == CF_T_M_MULTIGET_SLICE || m == CF_T_M_MULTIGET_COUNT) ?
			args.n_keys : 1;

		if (keys * predicate_cells(&args.predicate) <= CF_ROUTE_INLINE_CELLS &&
			!whole_supers(schema, &args.column_parent))
			lane = CF_ROUTE_READS;
	}
	cf_status_free(s);
	cf_arena_free(arena);
	return lane;
}

/*
 * colfam_multiget_chain's lane, by multiget_slice's rule over every step: step 0
 * selects keys x its predicate's columns, and a step's keys are at most the results
 * of the step it draws from (its rows for KEY), each selecting its predicate's
 * columns; and no step may answer whole super columns.
 */
static int
route_chain(cf_rd *r, const cf_route_schema *schema)
{
	cf_t_limits lim = cf_t_limits_default();
	cf_arena   *arena = cf_arena_new(4096);
	cf_ta_args	args;
	cf_status  *s;
	int			lane = CF_SERVER_POOL;

	if (arena == NULL)
		return CF_SERVER_POOL;
	if ((s = cf_ta_read_args(r, CF_TA_M_MULTIGET_CHAIN, &lim, arena, &args)) == NULL &&
		args.n_steps <= CF_TA_CHAIN_MAX_STEPS)
	{
		uint64_t	rows[CF_TA_CHAIN_MAX_STEPS + 1];
		uint64_t	cells[CF_TA_CHAIN_MAX_STEPS + 1];
		uint64_t	total;

		rows[0] = args.n_keys;
		cells[0] = total = args.n_keys * predicate_cells(&args.predicate);
		for (size_t i = 1; i <= args.n_steps && total <= CF_ROUTE_INLINE_CELLS; i++)
		{
			const cf_ta_chain_step *st = &args.steps[i - 1];
			uint64_t	keys;

			if (st->from_step < 0 || (size_t) st->from_step >= i)
				break;			/* refused by the dispatch: no matter where */
			keys = st->source == CF_TA_CHAIN_KEY ? rows[st->from_step] : cells[st->from_step];
			rows[i] = keys;
			cells[i] = keys * predicate_cells(&st->predicate);
			total += cells[i];
		}
		if (total <= CF_ROUTE_INLINE_CELLS && !whole_supers(schema, &args.column_parent))
		{
			lane = CF_ROUTE_READS;
			for (size_t i = 0; i < args.n_steps && lane != CF_SERVER_POOL; i++)
				if (whole_supers(schema, &args.steps[i].column_parent))
					lane = CF_SERVER_POOL;
		}
	}
	cf_status_free(s);
	cf_arena_free(arena);
	return lane;
}

int
cf_route_request(cf_slice request, bool writes_inline, const cf_route_schema *schema)
{
	cf_rd		r;
	cf_t_message_header h;
	cf_t_method m;
	cf_status  *s;

	if (request.len > CF_ROUTE_INLINE_FRAME)
		return CF_SERVER_POOL;
	cf_rd_init(&r, request.p, request.len);
	if ((s = cf_t_read_message_header(&r, &h)) != NULL)
	{
		cf_status_free(s);
		return CF_SERVER_POOL;
	}
	if (h.type != CF_T_CALL)
		return CF_SERVER_POOL;
	if (!cf_t_method_lookup(h.name, &m))
	{
		cf_ta_method am;

		if (cf_ta_method_lookup(h.name, &am) && am == CF_TA_M_MULTIGET_CHAIN)
			return route_chain(&r, schema);
		return CF_SERVER_POOL;
	}
	switch (m)
	{
		case CF_T_M_DESCRIBE_VERSION:
		case CF_T_M_DESCRIBE_CLUSTER_NAME:
		case CF_T_M_DESCRIBE_PARTITIONER:
		case CF_T_M_DESCRIBE_SNITCH:
			return CF_ROUTE_READS;
		case CF_T_M_GET:
		case CF_T_M_GET_SLICE:
		case CF_T_M_GET_COUNT:
		case CF_T_M_MULTIGET_SLICE:
		case CF_T_M_MULTIGET_COUNT:
			return route_read(&r, m, schema);
		case CF_T_M_INSERT:
		case CF_T_M_REMOVE:
		case CF_T_M_BATCH_MUTATE:
			return writes_inline ? CF_ROUTE_WRITES : CF_SERVER_POOL;
		default:
			return CF_SERVER_POOL;
	}
}
