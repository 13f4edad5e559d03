/*-------------------------------------------------------------------------
 * fdw/import.c — IMPORT FOREIGN SCHEMA: one foreign table per column family of a
 * keyspace, with the mapping and types its metadata implies.
 *
 *  - A CF with column_metadata (static, object-like rows) gets the 'rows' mapping:
 *    key, [super_column,] one SQL column per declared column (its validator's type),
 *    and `extra jsonb` for the columns nothing declares. A declared name that is a
 *    role's (key, super_column, extra) or longer than an SQL identifier (63 bytes,
 *    which CREATE would cut to another column's name) becomes colN OPTIONS (name
 *    '...'), N its place (colN_2, ... when a declared name is colN already); one that
 *    no option can spell (not UTF-8 text, e.g. a LongType name) is left out, with a
 *    NOTICE: the extra column shows it.
 *  - Any other CF gets the 'columns' mapping: key, [super_column,] column_name (the
 *    comparator's type, or the sub-comparator's in a Super CF), value (the default
 *    validator's type).
 *  - Types: BytesType → bytea (text COLLATE "C" with OPTIONS (bytes_as 'text')), UTF8Type and
 *    AsciiType → text COLLATE "C" (so orderings push down), LongType → bigint,
 *    IntegerType → numeric, TimeUUIDType → timeuuid, LexicalUUIDType → uuid. Keys are
 *    text COLLATE "C" (0.7 has no key validator; OPTIONS (key_type 'bytea') for binary
 *    keys).
 * LIMIT TO and EXCEPT name column families. Table names are the CF names.
 *-------------------------------------------------------------------------
 */
#include "colfam_fdw.h"
#include "colfam_table.h"

#include "catalog/pg_collation_d.h"
#include "catalog/pg_type_d.h"
#include "commands/defrem.h"
#include "common/string.h"
#include "foreign/foreign.h"
#include "lib/stringinfo.h"
#include "mb/pg_wchar.h"
#include "nodes/parsenodes.h"
#include "utils/builtins.h"

typedef struct ImportOptions
{
	bool		bytes_as_text;
	bool		key_bytea;
	bool		extra;
} ImportOptions;

static bool
word_option(DefElem *d, const char *a, const char *b)
{
	char	   *v = defGetString(d);

	if (strcmp(v, a) == 0)
		return true;
	if (strcmp(v, b) == 0)
		return false;
	ereport(ERROR,
			(errcode(ERRCODE_FDW_INVALID_ATTRIBUTE_VALUE),
			 errmsg("invalid value for IMPORT FOREIGN SCHEMA option \"%s\": \"%s\"", d->defname, v),
			 errhint("Valid values are '%s' and '%s'.", a, b)));
	return false;
}

static ImportOptions
import_options(List *options)
{
	ImportOptions o = {false, false, true};
	ListCell   *lc;

	foreach(lc, options)
	{
		DefElem    *d = lfirst_node(DefElem, lc);

		if (strcmp(d->defname, "bytes_as") == 0)
			o.bytes_as_text = word_option(d, "text", "bytea");
		else if (strcmp(d->defname, "key_type") == 0)
			o.key_bytea = word_option(d, "bytea", "text");
		else if (strcmp(d->defname, "extra") == 0)
			o.extra = word_option(d, "true", "false");
		else
			ereport(ERROR,
					(errcode(ERRCODE_FDW_INVALID_OPTION_NAME),
					 errmsg("invalid IMPORT FOREIGN SCHEMA option \"%s\"", d->defname),
					 errhint("Valid options are bytes_as ('bytea' or 'text'), key_type ('text' or 'bytea') and extra ('true' or 'false').")));
	}
	return o;
}

/*
 * The SQL type of a comparator or validator, as it goes into CREATE FOREIGN TABLE,
 * with the column options opts (NULL for none) in their place: after the type,
 * before its COLLATE clause.
 */
static char *
sql_type(const char *marshal, const ImportOptions *o, const char *cf, const char *what,
		 const char *opts)
{
	Oid			typid;
	Oid			collid;
	const char *type;

	/* "C" orders text by its UTF-8 bytes: BytesType's order, so slices push down */
	if (strcmp(marshal, "BytesType") == 0 && o->bytes_as_text)
	{
		typid = TEXTOID;
		collid = C_COLLATION_OID;
	}
	else if (!colfam_marshal_type(marshal, &typid, &collid))
		ereport(ERROR,
				(errcode(ERRCODE_FDW_INVALID_DATA_TYPE),
				 errmsg("column family \"%s\": %s %s has no SQL type", cf, what, marshal),
				 errhint("Use IMPORT FOREIGN SCHEMA ... EXCEPT (\"%s\") and define the table by hand.", cf)));
	type = format_type_be(typid);
	return psprintf("%s%s%s%s%s", type,
					opts != NULL ? " OPTIONS (" : "", opts != NULL ? opts : "",
					opts != NULL ? ")" : "",
					collid == C_COLLATION_OID ? " COLLATE \"C\"" : "");
}

/*
 * Can a 'rows' column's option "name" (a string in the database encoding, compared as
 * the name's bytes) name column c? Only when its name is UTF-8 text without U+0000
 * that the database encoding spells with the same bytes (UTF-8, or plain ASCII).
 */
static bool
nameable(const ColfamColumnMeta *c)
{
	/* the valid prefix stops before a 0x00 byte too; c->name is NUL-terminated */
	return c->name_len > 0 &&
		pg_encoding_verifymbstr(PG_UTF8, c->name, c->name_len) == c->name_len &&
		(GetDatabaseEncoding() == PG_UTF8 || pg_is_ascii(c->name));
}

/* Is name one of the n names of used (NULLs skipped)? */
static bool
name_used(const char *name, char **used, int n)
{
	for (int i = 0; i < n; i++)
		if (used[i] != NULL && strcmp(used[i], name) == 0)
			return true;
	return false;
}

/*
 * The SQL column names of the declared columns of m, into a palloc'd array: a name
 * as it is when an identifier spells it, else colN (unique among them all: colN_2,
 * colN_3, ... when colN is taken), whose option "name" then names the column (the
 * caller tells the two apart by comparing the names); NULL for a name that no option
 * can spell (nameable).
 */
static char **
field_sql_names(const ColfamCfMeta *m)
{
	char	  **out = palloc0(sizeof(char *) * Max(m->ncolumns, 1));

	for (int j = 0; j < m->ncolumns; j++)
	{
		const ColfamColumnMeta *c = &m->columns[j];

		if (nameable(c) && strcmp(c->name, "key") != 0 &&
			strcmp(c->name, "super_column") != 0 && strcmp(c->name, "extra") != 0 &&
			strlen(c->name) < NAMEDATALEN)
			out[j] = pstrdup(c->name);
	}
	for (int j = 0; j < m->ncolumns; j++)
	{
		char	   *alias;

		if (out[j] != NULL || !nameable(&m->columns[j]))
			continue;
		alias = psprintf("col%d", j + 1);
		for (int k = 2; name_used(alias, out, m->ncolumns); k++)
			alias = psprintf("col%d_%d", j + 1, k);
		out[j] = alias;
	}
	return out;
}

static bool
wanted(ImportForeignSchemaStmt *stmt, const char *cf)
{
	ListCell   *lc;
	bool		listed = false;

	if (stmt->list_type == FDW_IMPORT_SCHEMA_ALL)
		return true;
	foreach(lc, stmt->table_list)
		if (strcmp(((RangeVar *) lfirst(lc))->relname, cf) == 0)
			listed = true;
	return stmt->list_type == FDW_IMPORT_SCHEMA_LIMIT_TO ? listed : !listed;
}

/*
 * Every column family that LIMIT TO or EXCEPT names must exist in the keyspace: a
 * typo, or a name left unquoted and so folded to lower case, would otherwise import
 * the wrong tables without a word.
 */
static void
check_listed(ImportForeignSchemaStmt *stmt, char **names, int n)
{
	ListCell   *lc;

	foreach(lc, stmt->table_list)
	{
		const char *want = ((RangeVar *) lfirst(lc))->relname;
		const char *folded = NULL;
		StringInfoData all;
		int			i;

		for (i = 0; i < n && strcmp(names[i], want) != 0; i++)
			if (pg_strcasecmp(names[i], want) == 0)
				folded = names[i];
		if (i < n)
			continue;
		initStringInfo(&all);
		for (i = 0; i < n; i++)
			appendStringInfo(&all, "%s%s", i ? ", " : "", quote_identifier(names[i]));
		ereport(ERROR,
				(errcode(ERRCODE_FDW_TABLE_NOT_FOUND),
				 errmsg("column family \"%s\" named in %s does not exist in keyspace \"%s\"",
						want, stmt->list_type == FDW_IMPORT_SCHEMA_LIMIT_TO ? "LIMIT TO" : "EXCEPT",
						stmt->remote_schema),
				 folded ? errhint("Column family names are case-sensitive: write \"%s\" in double quotes.",
								  folded)
				 : n ? errhint("The keyspace's column families are %s.", all.data)
				 : errhint("The keyspace has no column families.")));
	}
}

List *
colfam_import_schema(ImportForeignSchemaStmt *stmt, Oid serverOid)
{
	ForeignServer *server = GetForeignServer(serverOid);
	ImportOptions o = import_options(stmt->options);
	char	  **names;
	ColfamCfMeta *cfs;
	int			n = colfam_keyspace_cfs(serverOid, stmt->remote_schema, &names, &cfs);
	List	   *out = NIL;

	check_listed(stmt, names, n);
	for (int i = 0; i < n; i++)
	{
		ColfamCfMeta *m = &cfs[i];
		StringInfoData sql;
		bool		rows = m->ncolumns > 0;

		if (!wanted(stmt, names[i]))
			continue;
		initStringInfo(&sql);
		appendStringInfo(&sql, "CREATE FOREIGN TABLE %s.%s (\n  key %s",
						 quote_identifier(stmt->local_schema), quote_identifier(names[i]),
						 o.key_bytea ? "bytea" : "text COLLATE \"C\"");
		if (m->super)
			appendStringInfo(&sql, ",\n  super_column %s",
							 sql_type(m->comparator, &o, names[i], "comparator", NULL));
		if (rows)
		{
			char	  **sqlnames = field_sql_names(m);

			for (int j = 0; j < m->ncolumns; j++)
			{
				ColfamColumnMeta *c = &m->columns[j];

				if (sqlnames[j] == NULL)
				{
					/* no option can name it: left to the extra column (as 0x-hex) */
					ereport(NOTICE,
							(errmsg("column family \"%s\": column %s is not imported",
									names[i], colfam_quote_key(c->name, c->name_len)),
							 errdetail("The option \"name\" names a column by its UTF-8 text; this name is not UTF-8 text without U+0000."),
							 o.extra ? errhint("Its value is in the \"extra\" column.") : 0));
					continue;
				}
				appendStringInfo(&sql, ",\n  %s %s", quote_identifier(sqlnames[j]),
								 sql_type(c->validation_class, &o, names[i], "validator",
										  strcmp(sqlnames[j], c->name) != 0 ?
										  psprintf("name %s", quote_literal_cstr(c->name)) :
										  NULL));
			}
			if (o.extra)
				appendStringInfoString(&sql, ",\n  extra jsonb OPTIONS (role 'extra')");
		}
		else
		{
			appendStringInfo(&sql, ",\n  column_name %s,\n  value %s",
							 sql_type(m->super ? m->subcomparator : m->comparator, &o,
									  names[i], m->super ? "subcomparator" : "comparator", NULL),
							 sql_type(m->default_validation_class, &o, names[i],
									  "default validator", NULL));
		}
		appendStringInfo(&sql, "\n) SERVER %s OPTIONS (keyspace %s, column_family %s%s)",
						 quote_identifier(server->servername),
						 quote_literal_cstr(stmt->remote_schema),
						 quote_literal_cstr(names[i]),
						 rows ? ", mapping 'rows'" : "");
		out = lappend(out, sql.data);
	}
	return out;
}
