/*-------------------------------------------------------------------------
 * fdw/option.c — the options of colfam_fdw and their validation.
 *
 * One table lists every option with the catalog it belongs to and the check of its
 * value. CREATE/ALTER of a server, user mapping, foreign table or column calls the
 * validator, which rejects unknown options with a hint listing the valid ones (and
 * where a misplaced option belongs) and malformed values with a hint stating the
 * valid values. Checks never echo a password.
 *
 * Assumption: a value that passes here is well-formed; what depends on the remote
 * schema (does the keyspace exist?) is checked when the table is used.
 *-------------------------------------------------------------------------
 */
#include "colfam_fdw.h"
#include "colfam_table.h"

#include <ctype.h>

#include "access/reloptions.h"
#include "catalog/pg_attribute.h"
#include "catalog/pg_foreign_data_wrapper.h"
#include "catalog/pg_foreign_server.h"
#include "catalog/pg_foreign_table.h"
#include "catalog/pg_user_mapping.h"
#include "commands/defrem.h"
#include "lib/stringinfo.h"
#include "utils/builtins.h"
#include "utils/guc.h"

#include "util/unixsock.h"

PG_FUNCTION_INFO_V1(colfam_fdw_validator);

/* Checks one value; ereports ERROR when it is malformed. */
typedef void (*colfam_option_check) (DefElem *def);

typedef struct ColfamOption
{
	const char *name;
	Oid			catalog;		/* where it may be set */
	colfam_option_check check;
} ColfamOption;

/* Cassandra 0.7 names: word characters; 48 is the limit later releases enforce. */
#define COLFAM_NAME_MAX 48
#define COLFAM_HOSTS_MAX 64
#define COLFAM_FETCH_SIZE_MAX 100000
#define COLFAM_TIMEOUT_MAX_MS (3600 * 1000)

static void check_hosts(DefElem *def);
static void check_schema_name(DefElem *def);
static void check_read_consistency(DefElem *def);
static void check_write_consistency(DefElem *def);
static void check_fetch_size(DefElem *def);
static void check_timeout(DefElem *def);
static void check_truncatable(DefElem *def);
static void check_nonempty(DefElem *def);
static void check_any(DefElem *def);
static void check_mapping(DefElem *def);
static void check_role(DefElem *def);
static void check_column_name(DefElem *def);

static const ColfamOption colfam_options[] = {
	{"hosts", ForeignServerRelationId, check_hosts},
	{"keyspace", ForeignServerRelationId, check_schema_name},
	{"read_consistency", ForeignServerRelationId, check_read_consistency},
	{"write_consistency", ForeignServerRelationId, check_write_consistency},
	{"fetch_size", ForeignServerRelationId, check_fetch_size},
	{"connect_timeout", ForeignServerRelationId, check_timeout},
	{"io_timeout", ForeignServerRelationId, check_timeout},
	{"truncatable", ForeignServerRelationId, check_truncatable},

	{"username", UserMappingRelationId, check_nonempty},
	{"password", UserMappingRelationId, check_any},

	{"keyspace", ForeignTableRelationId, check_schema_name},
	{"column_family", ForeignTableRelationId, check_schema_name},
	{"mapping", ForeignTableRelationId, check_mapping},
	{"read_consistency", ForeignTableRelationId, check_read_consistency},
	{"write_consistency", ForeignTableRelationId, check_write_consistency},
	{"fetch_size", ForeignTableRelationId, check_fetch_size},
	{"truncatable", ForeignTableRelationId, check_truncatable},

	{"role", AttributeRelationId, check_role},
	{"name", AttributeRelationId, check_column_name},
};

#define N_OPTIONS ((int) lengthof(colfam_options))

static const char *const consistency_levels[] = {
	"ONE", "TWO", "THREE", "QUORUM", "LOCAL_QUORUM", "EACH_QUORUM", "ALL", "ANY",
};
static const char *const mappings[] = {"columns", "rows"};
static const char *const roles[] = {
	"key", "super_column", "column_name", "value", "writetime", "ttl", "extra",
};

static const char *
catalog_noun(Oid catalog)
{
	switch (catalog)
	{
		case ForeignDataWrapperRelationId:
			return "foreign-data wrapper";
		case ForeignServerRelationId:
			return "server";
		case UserMappingRelationId:
			return "user mapping";
		case ForeignTableRelationId:
			return "foreign table";
		case AttributeRelationId:
			return "column";
	}
	return "object";
}

/* "a, b, c" of the options valid in catalog; empty if there are none. */
static char *
options_for(Oid catalog)
{
	StringInfoData buf;

	initStringInfo(&buf);
	for (int i = 0; i < N_OPTIONS; i++)
	{
		if (colfam_options[i].catalog != catalog)
			continue;
		appendStringInfo(&buf, "%s%s", buf.len ? ", " : "", colfam_options[i].name);
	}
	return buf.data;
}

/* "a, b, c" of a word list, for hints. */
static char *
join_words(const char *const *words, int n, int skip_last)
{
	StringInfoData buf;

	initStringInfo(&buf);
	for (int i = 0; i < n - skip_last; i++)
		appendStringInfo(&buf, "%s%s", i ? ", " : "", words[i]);
	return buf.data;
}

static void
reject_unknown(DefElem *def, Oid catalog)
{
	const char *belongs = NULL;
	char	   *valid = options_for(catalog);

	for (int i = 0; i < N_OPTIONS; i++)
	{
		if (strcmp(colfam_options[i].name, def->defname) == 0)
		{
			belongs = catalog_noun(colfam_options[i].catalog);
			break;
		}
	}

	ereport(ERROR,
			(errcode(ERRCODE_FDW_INVALID_OPTION_NAME),
			 errmsg("invalid option \"%s\"", def->defname),
			 belongs ? errdetail("Option \"%s\" is set on the %s, not on the %s.",
								 def->defname, belongs, catalog_noun(catalog)) : 0,
			 valid[0] ?
			 errhint("Valid options on a colfam_fdw %s are: %s.",
					 catalog_noun(catalog), valid) :
			 errhint("colfam_fdw takes no options on the %s; set them on the server, "
					 "user mapping, foreign table or column.", catalog_noun(catalog))));
}

static void
check_one(DefElem *def, Oid catalog)
{
	for (int i = 0; i < N_OPTIONS; i++)
	{
		if (colfam_options[i].catalog == catalog &&
			strcmp(colfam_options[i].name, def->defname) == 0)
		{
			colfam_options[i].check(def);
			return;
		}
	}
	reject_unknown(def, catalog);
}

/*
 * Validates a list of DefElem for the given catalog; ERROR on the first bad option.
 * Also used to recheck options read back from the catalogs.
 */
void
colfam_check_options(List *options, Oid catalog)
{
	ListCell   *lc;

	foreach(lc, options)
		check_one((DefElem *) lfirst(lc), catalog);
}

Datum
colfam_fdw_validator(PG_FUNCTION_ARGS)
{
	List	   *options = untransformRelOptions(PG_GETARG_DATUM(0));
	Oid			catalog = PG_GETARG_OID(1);

	colfam_check_options(options, catalog);
	PG_RETURN_VOID();
}

/* ---------- value checks ---------- */

static void
bad_value(DefElem *def, const char *value, const char *hint)
{
	ereport(ERROR,
			(errcode(ERRCODE_FDW_INVALID_ATTRIBUTE_VALUE),
			 errmsg("invalid value for option \"%s\": \"%s\"", def->defname, value),
			 errhint("%s", hint)));
}

/*
 * host, host:port, [v6], [v6]:port, or /path of colfamd's unix socket. Returns what is
 * wrong with the entry, as the end of a sentence that begins with the entry, or NULL if
 * it is valid.
 */
static const char *
parse_host_entry(const char *s, int len)
{
	int			i = 0;
	int			hostlen = 0;

	if (len == 0)
		return "is empty";
	if (s[0] == '/')
	{
		/* libcolfam's rule (util/unixsock.h): a unix socket's path, within sun_path */
		if (len > (int) CF_UNIX_PATH_MAX)
			return psprintf("is a unix socket path of %d bytes; the system allows at most %d",
							len, (int) CF_UNIX_PATH_MAX);
		if (s[len - 1] == '/')
			return "names a directory; name colfamd's socket file in it (its rpc_unix_socket)";
		for (i = 0; i < len; i++)
			if (iscntrl((unsigned char) s[i]))
				return "has a control character in its socket path";
		return NULL;
	}
	if (s[0] == '[')
	{
		for (i = 1; i < len && s[i] != ']'; i++)
			if (!isxdigit((unsigned char) s[i]) && s[i] != ':' && s[i] != '.')
				return "has an IPv6 address with characters other than hex digits, ':' and '.'";
		if (i == len)
			return "lacks the closing ']' of its IPv6 address";
		hostlen = i - 1;
		i++;
	}
	else
	{
		for (; i < len && s[i] != ':'; i++)
			if (!isalnum((unsigned char) s[i]) && s[i] != '.' && s[i] != '-' && s[i] != '_')
				return "has a host name with characters other than letters, digits, '.', '-' and '_'";
		hostlen = i;
	}
	if (hostlen == 0)
		return "has an empty host";
	if (i < len)
	{
		long		port = 0;
		int			digits = 0;

		if (s[i] != ':')
			return "has something other than ':port' after the host";
		for (i++; i < len; i++, digits++)
		{
			if (!isdigit((unsigned char) s[i]))
				return "has a port that is not a number";
			port = port * 10 + (s[i] - '0');
			if (port > 65535)
				break;
		}
		if (digits == 0)
			return "has an empty port";
		if (port < 1 || port > 65535)
			return "has a port outside 1..65535";
	}
	return NULL;
}

static void
check_hosts(DefElem *def)
{
	const char *value = defGetString(def);
	const char *p = value;
	int			count = 0;

	for (;;)
	{
		const char *end = strchr(p, ',');
		int			len = end ? (int) (end - p) : (int) strlen(p);
		const char *why;

		/* trim blanks around the entry */
		while (len > 0 && isspace((unsigned char) *p))
			p++, len--;
		while (len > 0 && isspace((unsigned char) p[len - 1]))
			len--;

		why = parse_host_entry(p, len);
		if (why)
			ereport(ERROR,
					(errcode(ERRCODE_FDW_INVALID_ATTRIBUTE_VALUE),
					 errmsg("invalid value for option \"hosts\": \"%s\"", value),
					 errdetail("Entry %d (\"%.*s\") %s.", count + 1, len, p, why),
					 errhint("Give a comma-separated list of host, host:port or the /path of "
							 "colfamd's unix socket (its rpc_unix_socket), such as "
							 "'/tmp/colfamd.sock, 127.0.0.1:9160'; the port defaults to %d.",
							 COLFAM_DEFAULT_PORT)));
		if (++count > COLFAM_HOSTS_MAX)
			bad_value(def, value, psprintf("List at most %d hosts.", COLFAM_HOSTS_MAX));
		if (!end)
			break;
		p = end + 1;
	}
}

static void
check_schema_name(DefElem *def)
{
	const char *value = defGetString(def);
	size_t		len = strlen(value);
	bool		ok = len > 0 && len <= COLFAM_NAME_MAX;

	for (size_t i = 0; ok && i < len; i++)
		ok = isalnum((unsigned char) value[i]) || value[i] == '_';
	if (!ok)
		bad_value(def, value,
				  psprintf("Keyspace and column family names are 1 to %d ASCII letters, "
						   "digits or underscores.", COLFAM_NAME_MAX));
}

/* Case-insensitive membership of value in words[0..n). */
static bool
word_in(const char *value, const char *const *words, int n)
{
	for (int i = 0; i < n; i++)
		if (pg_strcasecmp(value, words[i]) == 0)
			return true;
	return false;
}

static void
check_consistency(DefElem *def, bool for_writes)
{
	const char *value = defGetString(def);
	int			n = (int) lengthof(consistency_levels);

	/* ANY (a hint counts as a write) is meaningless for reads; it is last in the list */
	if (!word_in(value, consistency_levels, for_writes ? n : n - 1))
	{
		if (!for_writes && pg_strcasecmp(value, "ANY") == 0)
			ereport(ERROR,
					(errcode(ERRCODE_FDW_INVALID_ATTRIBUTE_VALUE),
					 errmsg("invalid value for option \"%s\": \"%s\"", def->defname, value),
					 errdetail("ANY is a consistency level for writes only."),
					 errhint("Valid read consistency levels are: %s.",
							 join_words(consistency_levels, n, 1))));
		bad_value(def, value,
				  psprintf("Valid %s consistency levels are: %s.",
						   for_writes ? "write" : "read",
						   join_words(consistency_levels, n, for_writes ? 0 : 1)));
	}
}

static void
check_read_consistency(DefElem *def)
{
	check_consistency(def, false);
}

static void
check_write_consistency(DefElem *def)
{
	check_consistency(def, true);
}

static void
check_fetch_size(DefElem *def)
{
	const char *value = defGetString(def);
	int			n;

	if (!parse_int(value, &n, 0, NULL) || n < 1 || n > COLFAM_FETCH_SIZE_MAX)
		bad_value(def, value,
				  psprintf("fetch_size is a whole number of columns or rows per request "
						   "from 1 to %d.", COLFAM_FETCH_SIZE_MAX));
}

static void
check_truncatable(DefElem *def)
{
	const char *value = defGetString(def);
	bool		b;

	if (!parse_bool(value, &b))
		bad_value(def, value,
				  "truncatable is a boolean: true or false (also on/off, yes/no, 1/0).");
}

/* connect_timeout and io_timeout: durations, with or without a unit */
static void
check_timeout(DefElem *def)
{
	const char *value = defGetString(def);
	int			ms;

	if (!parse_int(value, &ms, GUC_UNIT_MS, NULL) ||
		ms < 1 || ms > COLFAM_TIMEOUT_MAX_MS)
		bad_value(def, value,
				  psprintf("%s is a duration from 1ms to 1h, such as '500ms' or '5s'; "
						   "a bare number is milliseconds.", def->defname));
}

/* Parsed as check_timeout parses it. */
int
colfam_duration_option_ms(List *options, const char *name, int dflt)
{
	char	   *value = colfam_option(options, name);
	int			ms;

	if (value == NULL || !parse_int(value, &ms, GUC_UNIT_MS, NULL))
		return dflt;
	return ms;
}

static void
check_nonempty(DefElem *def)
{
	if (defGetString(def)[0] == '\0')
		ereport(ERROR,
				(errcode(ERRCODE_FDW_INVALID_ATTRIBUTE_VALUE),
				 errmsg("option \"%s\" must not be empty", def->defname)));
}

/* Any string is valid (passwords); defGetString still rejects a non-string. */
static void
check_any(DefElem *def)
{
	(void) defGetString(def);
}

static void
check_mapping(DefElem *def)
{
	const char *value = defGetString(def);

	if (!word_in(value, mappings, lengthof(mappings)))
		bad_value(def, value,
				  "Valid mappings are: columns (one SQL row per Cassandra column) and rows "
				  "(one SQL row per Cassandra row).");
}

static void
check_role(DefElem *def)
{
	const char *value = defGetString(def);

	if (!word_in(value, roles, lengthof(roles)))
		bad_value(def, value,
				  psprintf("Valid column roles are: %s.",
						   join_words(roles, lengthof(roles), 0)));
}

static void
check_column_name(DefElem *def)
{
	const char *value = defGetString(def);
	size_t		len = strlen(value);

	if (len == 0 || len > COLFAM_NAME_BYTES_MAX)
		bad_value(def, len ? "(too long)" : value,
				  psprintf("A Cassandra column name is 1 to %d bytes.",
						   COLFAM_NAME_BYTES_MAX));
}
