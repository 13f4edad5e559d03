/*-------------------------------------------------------------------------
 * fdw/table.c — a foreign table's mapping, read from the catalogs.
 *
 * The options were checked one by one when they were set (option.c); here they are
 * checked together: the roles a mapping allows, at most one column per role, a
 * type the role can hold. A table that breaks a rule fails when it is used, with
 * the column and the fix named.
 *
 * Role defaults: a column without a `role` option takes the role its name spells
 * (key, super_column, column_name, value, writetime, ttl) when the mapping has that
 * role; in the 'rows' mapping every other column is the Cassandra column of its
 * name (or of its `name` option).
 *
 * The mappings are cached per backend (every scan asks for its table's, and reading
 * the catalogs cost more than the rest of a one-key scan's setup): an entry is dropped
 * when the table's relcache entry is invalidated (its options, its columns' options,
 * ALTER, DROP, rename) or any foreign server changes (keyspace, read_consistency,
 * fetch_size may come from the server). A dropped mapping may still be in use by the
 * running query, so its memory goes with the transaction, not at once.
 *-------------------------------------------------------------------------
 */
#include "colfam_fdw.h"
#include "colfam_table.h"

#include "access/htup_details.h"
#include "access/table.h"
#include "catalog/pg_type.h"
#include "commands/defrem.h"
#include "foreign/foreign.h"
#include "utils/builtins.h"
#include "utils/hsearch.h"
#include "utils/inval.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/syscache.h"

#include "client/client.h"

static const char *const role_names[] = {
	[COLFAM_ROLE_NONE] = "none",
	[COLFAM_ROLE_KEY] = "key",
	[COLFAM_ROLE_SUPER] = "super_column",
	[COLFAM_ROLE_NAME] = "column_name",
	[COLFAM_ROLE_VALUE] = "value",
	[COLFAM_ROLE_WRITETIME] = "writetime",
	[COLFAM_ROLE_TTL] = "ttl",
	[COLFAM_ROLE_EXTRA] = "extra",
	[COLFAM_ROLE_FIELD] = "field",
};

const char *
colfam_role_name(ColfamRole role)
{
	return role_names[role];
}

static ColfamRole
role_of_word(const char *w)
{
	for (int r = COLFAM_ROLE_KEY; r <= COLFAM_ROLE_EXTRA; r++)
		if (strcmp(w, role_names[r]) == 0)
			return (ColfamRole) r;
	return COLFAM_ROLE_NONE;
}

static bool
role_allowed(ColfamRole role, bool rows_mapping)
{
	switch (role)
	{
		case COLFAM_ROLE_KEY:
		case COLFAM_ROLE_SUPER:
			return true;
		case COLFAM_ROLE_NAME:
		case COLFAM_ROLE_VALUE:
		case COLFAM_ROLE_WRITETIME:
		case COLFAM_ROLE_TTL:
			return !rows_mapping;
		case COLFAM_ROLE_EXTRA:
		case COLFAM_ROLE_FIELD:
			return rows_mapping;
		case COLFAM_ROLE_NONE:
			break;
	}
	return false;
}

/* The SQL types a role can hold, beyond the value types convert.c decodes. */
static void
check_role_type(ColfamTable *t, ColfamColumn *c)
{
	bool		ok = true;
	const char *want = NULL;

	switch (c->role)
	{
		case COLFAM_ROLE_WRITETIME:
			ok = c->typid == INT8OID || c->typid == TIMESTAMPTZOID;
			want = "bigint (microseconds since the epoch) or timestamptz";
			break;
		case COLFAM_ROLE_TTL:
			ok = c->typid == INT4OID || c->typid == INT8OID;
			want = "integer or bigint (seconds)";
			break;
		case COLFAM_ROLE_EXTRA:
			ok = c->typid == JSONBOID;
			want = "jsonb";
			break;
		default:
			ok = colfam_type_supported(c->typid);
			want = "one of text, varchar, bytea, bigint, integer, smallint, numeric, uuid, "
				"timeuuid, boolean, double precision, timestamptz, jsonb";
			break;
	}
	if (!ok)
		ereport(ERROR,
				(errcode(ERRCODE_FDW_INVALID_DATA_TYPE),
				 errmsg("column \"%s\" of foreign table \"%s\" has type %s, which role \"%s\" cannot hold",
						c->attname, t->relname, format_type_be(c->typid),
						colfam_role_name(c->role)),
				 errhint("Declare it as %s.", want)));
}

static AttrNumber *
role_slot(ColfamTable *t, ColfamRole role)
{
	switch (role)
	{
		case COLFAM_ROLE_KEY:
			return &t->key_att;
		case COLFAM_ROLE_SUPER:
			return &t->super_att;
		case COLFAM_ROLE_NAME:
			return &t->name_att;
		case COLFAM_ROLE_VALUE:
			return &t->value_att;
		case COLFAM_ROLE_WRITETIME:
			return &t->writetime_att;
		case COLFAM_ROLE_TTL:
			return &t->ttl_att;
		case COLFAM_ROLE_EXTRA:
			return &t->extra_att;
		default:
			return NULL;
	}
}

/* The value of option `name` in a catalog's options, or NULL. */
char *
colfam_option(List *options, const char *name)
{
	ListCell   *lc;

	foreach(lc, options)
	{
		DefElem    *def = lfirst_node(DefElem, lc);

		if (strcmp(def->defname, name) == 0)
			return defGetString(def);
	}
	return NULL;
}

/*
 * A consistency level's Thrift value. The option validator let only level names in,
 * in any case ('quorum'); an unknown one (never) means ONE.
 */
static int
consistency_level(const char *name)
{
	cf_t_consistency cl;

	return cf_t_consistency_lookup(name, &cl) ? (int) cl : CF_T_CL_ONE;
}

/*
 * The mapping of foreign table relid read from the catalogs, allocated in the current
 * memory context. ERROR when the table's options and columns do not make a valid
 * mapping.
 */
static ColfamTable *
read_table(Oid relid)
{
	ForeignTable *ft = GetForeignTable(relid);
	ForeignServer *server = GetForeignServer(ft->serverid);
	ColfamTable *t = palloc0(sizeof(ColfamTable));
	Relation	rel;
	TupleDesc	desc;
	char	   *s;

	t->relid = relid;
	t->relname = get_rel_name(relid);
	t->serverid = server->serverid;
	t->servername = pstrdup(server->servername);

	t->keyspace = colfam_option(ft->options, "keyspace");
	if (t->keyspace == NULL)
		t->keyspace = colfam_option(server->options, "keyspace");
	if (t->keyspace == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_FDW_OPTION_NAME_NOT_FOUND),
				 errmsg("foreign table \"%s\" names no keyspace", t->relname),
				 errhint("Set OPTIONS (keyspace '...') on the table or on server \"%s\".",
						 t->servername)));
	t->column_family = colfam_option(ft->options, "column_family");
	if (t->column_family == NULL)
		t->column_family = t->relname;
	s = colfam_option(ft->options, "mapping");
	t->rows_mapping = s != NULL && strcmp(s, "rows") == 0;

	t->read_consistency = colfam_option(ft->options, "read_consistency");
	if (t->read_consistency == NULL)
		t->read_consistency = colfam_option(server->options, "read_consistency");
	if (t->read_consistency == NULL)
		t->read_consistency = "ONE";
	t->write_consistency = colfam_option(ft->options, "write_consistency");
	if (t->write_consistency == NULL)
		t->write_consistency = colfam_option(server->options, "write_consistency");
	if (t->write_consistency == NULL)
		t->write_consistency = "ONE";
	t->read_cl = consistency_level(t->read_consistency);
	t->write_cl = consistency_level(t->write_consistency);
	s = colfam_option(ft->options, "fetch_size");
	if (s == NULL)
		s = colfam_option(server->options, "fetch_size");
	t->fetch_size = s != NULL ? atoi(s) : COLFAM_DEFAULT_FETCH_SIZE;
	s = colfam_option(ft->options, "truncatable");
	if (s == NULL)
		s = colfam_option(server->options, "truncatable");
	t->truncatable = true;
	if (s != NULL)
		(void) parse_bool(s, &t->truncatable);

	rel = table_open(relid, AccessShareLock);
	desc = RelationGetDescr(rel);
	t->natts = desc->natts;
	t->cols = palloc0(sizeof(ColfamColumn) * Max(desc->natts, 1));
	for (int i = 0; i < desc->natts; i++)
	{
		Form_pg_attribute att = TupleDescAttr(desc, i);
		ColfamColumn *c = &t->cols[i];
		List	   *opts;
		char	   *role;
		AttrNumber *slot;

		if (att->attisdropped)
			continue;
		c->attname = pstrdup(NameStr(att->attname));
		c->typid = att->atttypid;
		c->typmod = att->atttypmod;
		c->collid = att->attcollation;
		opts = GetForeignColumnOptions(relid, att->attnum);
		role = colfam_option(opts, "role");
		c->name = colfam_option(opts, "name");
		if (role != NULL)
		{
			c->role = role_of_word(role);
			if (!role_allowed(c->role, t->rows_mapping))
				ereport(ERROR,
						(errcode(ERRCODE_FDW_INVALID_OPTION_NAME),
						 errmsg("column \"%s\" of foreign table \"%s\" has role \"%s\", which the '%s' mapping does not have",
								c->attname, t->relname, role,
								t->rows_mapping ? "rows" : "columns"),
						 errhint(t->rows_mapping
								 ? "The 'rows' mapping has the roles key, super_column and extra; other columns are Cassandra columns by name."
								 : "The 'columns' mapping has the roles key, super_column, column_name, value, writetime and ttl.")));
		}
		else
		{
			c->role = role_of_word(c->attname);
			if (c->role == COLFAM_ROLE_NONE || !role_allowed(c->role, t->rows_mapping) ||
				c->role == COLFAM_ROLE_EXTRA)
			{
				if (!t->rows_mapping)
					ereport(ERROR,
							(errcode(ERRCODE_FDW_INVALID_OPTION_NAME),
							 errmsg("column \"%s\" of foreign table \"%s\" has no role",
									c->attname, t->relname),
							 errhint("In the 'columns' mapping name a column key, super_column, column_name, value, writetime or ttl, or set OPTIONS (role '...').")));
				c->role = COLFAM_ROLE_FIELD;
			}
		}
		if (c->name != NULL && c->role != COLFAM_ROLE_FIELD)
			ereport(ERROR,
					(errcode(ERRCODE_FDW_INVALID_OPTION_NAME),
					 errmsg("column \"%s\" of foreign table \"%s\" has option \"name\" but role \"%s\"",
							c->attname, t->relname, colfam_role_name(c->role)),
					 errhint("Option \"name\" names a Cassandra column in the 'rows' mapping; drop it here.")));
		if (c->role == COLFAM_ROLE_FIELD && c->name == NULL)
			c->name = c->attname;
		slot = role_slot(t, c->role);
		if (slot != NULL)
		{
			if (*slot != InvalidAttrNumber)
				ereport(ERROR,
						(errcode(ERRCODE_FDW_INVALID_OPTION_NAME),
						 errmsg("foreign table \"%s\" has two columns with role \"%s\": \"%s\" and \"%s\"",
								t->relname, colfam_role_name(c->role),
								t->cols[*slot - 1].attname, c->attname),
						 errhint("Give one of them another role.")));
			*slot = att->attnum;
		}
		check_role_type(t, c);
	}
	table_close(rel, AccessShareLock);

	if (!t->rows_mapping && (t->name_att == InvalidAttrNumber || t->key_att == InvalidAttrNumber))
		ereport(ERROR,
				(errcode(ERRCODE_FDW_INVALID_OPTION_NAME),
				 errmsg("foreign table \"%s\" needs a column with role \"key\" and one with role \"column_name\"",
						t->relname),
				 errhint("The 'columns' mapping is one SQL row per Cassandra column: (key, [super_column,] column_name, value).")));
	if (t->rows_mapping && t->key_att == InvalidAttrNumber)
		ereport(ERROR,
				(errcode(ERRCODE_FDW_INVALID_OPTION_NAME),
				 errmsg("foreign table \"%s\" needs a column with role \"key\"", t->relname),
				 errhint("The 'rows' mapping is one SQL row per Cassandra row: add a column named key or set OPTIONS (role 'key').")));
	return t;
}

/* ---- the backend's cache of mappings ---- */

typedef struct TableCacheEntry
{
	Oid			relid;
	bool		valid;
	MemoryContext cxt;			/* owns table */
	ColfamTable *table;
} TableCacheEntry;

static HTAB *table_cache = NULL;

static void
invalidate_tables(Oid relid)
{
	HASH_SEQ_STATUS scan;
	TableCacheEntry *e;

	if (table_cache == NULL)
		return;
	if (OidIsValid(relid))
	{
		e = hash_search(table_cache, &relid, HASH_FIND, NULL);
		if (e != NULL)
			e->valid = false;
		return;
	}
	hash_seq_init(&scan, table_cache);
	while ((e = hash_seq_search(&scan)) != NULL)
		e->valid = false;
}

static void
relcache_callback(Datum arg, Oid relid)
{
	invalidate_tables(relid);
}

static void
server_callback(Datum arg, int cacheid, uint32 hashvalue)
{
	invalidate_tables(InvalidOid);
}

/*
 * The mapping of foreign table relid (see read_table), from the backend's cache: it
 * stays valid at least until the end of the transaction and must not be modified.
 */
ColfamTable *
colfam_get_table(Oid relid)
{
	TableCacheEntry *e;
	MemoryContext cxt;
	MemoryContext old;
	ColfamTable *t;
	bool		found;

	if (table_cache == NULL)
	{
		HASHCTL		ctl;

		ctl.keysize = sizeof(Oid);
		ctl.entrysize = sizeof(TableCacheEntry);
		table_cache = hash_create("colfam_fdw tables", 16, &ctl, HASH_ELEM | HASH_BLOBS);
		CacheRegisterRelcacheCallback(relcache_callback, (Datum) 0);
		CacheRegisterSyscacheCallback(FOREIGNSERVEROID, server_callback, (Datum) 0);
	}
	e = hash_search(table_cache, &relid, HASH_FIND, NULL);
	if (e != NULL && e->valid)
		return e->table;

	/* read it in a context of its own, kept only when the mapping is valid */
	cxt = AllocSetContextCreate(CurrentMemoryContext, "colfam_fdw table",
								ALLOCSET_SMALL_SIZES);
	old = MemoryContextSwitchTo(cxt);
	t = read_table(relid);
	MemoryContextSwitchTo(old);

	/* an invalidation may have come while reading (it opens the table): look again */
	e = hash_search(table_cache, &relid, HASH_ENTER, &found);
	if (found)
		MemoryContextSetParent(e->cxt, TopTransactionContext);	/* in use maybe */
	MemoryContextSetParent(cxt, CacheMemoryContext);
	e->cxt = cxt;
	e->table = t;
	e->valid = true;
	return t;
}
