/*
 * tools/schema_load.c — storage-conf.xml and schema.json to KsDef, and applying a
 * KsDef through the backend (see schema_load.h).
 *
 * Every string stored in a def is copied into the caller's arena, so the parsed
 * document (libxml2 tree, json-c objects) is freed before returning.
 * json-c keeps no positions, so a semantic error's line is found by searching the
 * text for the quoted member names along its path, in order: exact for the files
 * people write, and the message also names the path ("Twitter.Users.comparator_type").
 */
#include "tools/schema_load.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <json-c/json.h>
#include <libxml/parser.h>
#include <libxml/tree.h>

#include "tools/cli_schema.h"
#include "tools/cli_types.h"

/* ---- helpers ---- */

static cf_slice
arena_slice(cf_arena *a, const char *s, size_t n)
{
	char	   *p = cf_arena_strndup(a, s, n);

	return p ? cf_slice_of(p, n) : cf_slice_of(NULL, 0);
}

static cf_status *file_error(const char *file, long line, const char *fmt,...)
			__attribute__((format(printf, 3, 4)));

static cf_status *
file_error(const char *file, long line, const char *fmt,...)
{
	char		msg[900];
	va_list		ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return cf_status_make(CF_ERR_INVALID, "%s:%ld: %s", file, line, msg);
}

/* A marshal type name checked and turned into its class name. */
static cf_status *
type_class(const char *file, long line, const char *what, const char *v, cf_slice *out)
{
	cft_type	t;
	cf_status  *st = cft_type_parse(cf_slice_str(v), what, &t);

	if (st != NULL)
	{
		cf_status  *e = file_error(file, line, "%s", cf_status_msg(st));

		cf_status_free(st);
		return e;
	}
	*out = cf_slice_str(cft_type_class(t));
	return NULL;
}

static cf_status *
nomem(void)
{
	return cf_status_make(CF_ERR_NO_MEMORY, "out of memory reading the schema");
}

/* ---- storage-conf.xml ---- */

static const char xml_cf_attrs[] =
"Name, CompareWith, ColumnType, CompareSubcolumnsWith, Comment, RowsCached, KeysCached, "
"ReadRepairChance, GCGraceSeconds, FlushPeriodInMinutes";

/* RowsCached/KeysCached: a count, or "N%" (a fraction of the rows, as 0.7 takes < 1). */
static bool
parse_cache(const char *v, double *out)
{
	char	   *end;
	double		d;

	errno = 0;
	d = strtod(v, &end);
	if (end == v || errno != 0 || !isfinite(d) || d < 0)
		return false;
	if (*end == '%' && end[1] == '\0' && d <= 100)
	{
		*out = d / 100.0;
		return true;
	}
	if (*end != '\0')
		return false;
	*out = d;
	return true;
}

static cf_status *
xml_column_family(const char *file, xmlNode *node, const char *ks, cf_arena *a,
				  cf_t_cf_def *cf)
{
	long		line = xmlGetLineNo(node);
	bool		has_name = false;
	cf_status  *st = NULL;

	memset(cf, 0, sizeof(*cf));
	cf->keyspace = cf_slice_str(ks);
	cf->has_column_type = true;
	cf->column_type = cf_slice_str("Standard");
	cf->has_comparator_type = true;
	cf->comparator_type = cf_slice_str(cft_type_class(CFT_BYTES));
	for (xmlAttr *at = node->properties; at != NULL && st == NULL; at = at->next)
	{
		const char *n = (const char *) at->name;
		xmlChar    *xv = xmlNodeListGetString(node->doc, at->children, 1);
		const char *v = xv ? (const char *) xv : "";
		char	   *end;
		long		l;

		if (strcmp(n, "Name") == 0)
		{
			cf->name = arena_slice(a, v, strlen(v));
			has_name = cf->name.p != NULL && *v != '\0';
			if (*v == '\0')
				st = file_error(file, line, "ColumnFamily has an empty Name");
		}
		else if (strcmp(n, "CompareWith") == 0)
			st = type_class(file, line, "CompareWith", v, &cf->comparator_type);
		else if (strcmp(n, "CompareSubcolumnsWith") == 0)
		{
			cf->has_subcomparator_type = true;
			st = type_class(file, line, "CompareSubcolumnsWith", v, &cf->subcomparator_type);
		}
		else if (strcmp(n, "ColumnType") == 0)
		{
			const char *canon;

			if (!cft_column_type_valid(cf_slice_str(v), &canon))
				st = file_error(file, line, "ColumnType must be Standard or Super, not \"%s\"", v);
			else
				cf->column_type = cf_slice_str(canon);
		}
		else if (strcmp(n, "Comment") == 0)
		{
			cf->has_comment = true;
			cf->comment = arena_slice(a, v, strlen(v));
		}
		else if (strcmp(n, "RowsCached") == 0 || strcmp(n, "KeysCached") == 0)
		{
			bool		rows = n[0] == 'R';
			double	   *d = rows ? &cf->row_cache_size : &cf->key_cache_size;

			if (rows)
				cf->has_row_cache_size = true;
			else
				cf->has_key_cache_size = true;
			if (!parse_cache(v, d))
				st = file_error(file, line, "%s must be a count or a percentage (\"10%%\"), "
								"not \"%s\"", n, v);
		}
		else if (strcmp(n, "ReadRepairChance") == 0)
		{
			errno = 0;
			cf->read_repair_chance = strtod(v, &end);
			cf->has_read_repair_chance = true;
			if (end == v || *end != '\0' || errno != 0 || !(cf->read_repair_chance >= 0 &&
															cf->read_repair_chance <= 1))
				st = file_error(file, line, "ReadRepairChance must be a number from 0 to 1, "
								"not \"%s\"", v);
		}
		else if (strcmp(n, "GCGraceSeconds") == 0 || strcmp(n, "FlushPeriodInMinutes") == 0)
		{
			bool		gc = n[0] == 'G';

			errno = 0;
			l = strtol(v, &end, 10);
			if (end == v || *end != '\0' || errno != 0 || l < (gc ? 0 : 1) || l > INT32_MAX)
				st = file_error(file, line, "%s must be a whole number%s, not \"%s\"", n,
								gc ? "" : " from 1", v);
			else if (gc)
			{
				cf->has_gc_grace_seconds = true;
				cf->gc_grace_seconds = (int32_t) l;
			}
			else
			{
				cf->has_memtable_flush_after_mins = true;
				cf->memtable_flush_after_mins = (int32_t) l;
			}
		}
		else
			st = file_error(file, line, "unknown ColumnFamily attribute \"%s\"\nhint: valid "
							"attributes are %s", n, xml_cf_attrs);
		xmlFree(xv);
	}
	if (st != NULL)
		return st;
	if (!has_name)
		return file_error(file, line, "ColumnFamily needs a Name attribute");
	if (cf->has_subcomparator_type && strcmp((const char *) cf->column_type.p, "Super") != 0)
		return file_error(file, line, "ColumnFamily \"%s\" has CompareSubcolumnsWith but is not "
						  "ColumnType=\"Super\"", (const char *) cf->name.p);
	return NULL;
}

/* The trimmed text of an element, copied into the arena. */
static cf_slice
xml_text(xmlNode *node, cf_arena *a)
{
	xmlChar    *t = xmlNodeGetContent(node);
	const char *s = t ? (const char *) t : "";
	size_t		n;
	cf_slice	out;

	while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r')
		s++;
	n = strlen(s);
	while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\n' || s[n - 1] == '\r'))
		n--;
	out = arena_slice(a, s, n);
	xmlFree(t);
	return out;
}

static cf_status *
xml_keyspace(const char *file, xmlNode *node, cf_arena *a, cf_t_ks_def *ks)
{
	long		line = xmlGetLineNo(node);
	xmlChar    *name = NULL;
	size_t		cap = 0;
	cf_status  *st = NULL;

	for (xmlAttr *at = node->properties; at != NULL; at = at->next)
		if (strcmp((const char *) at->name, "Name") != 0)
			return file_error(file, line, "unknown Keyspace attribute \"%s\"\nhint: a Keyspace "
							  "has only Name", (const char *) at->name);
	name = xmlGetProp(node, (const xmlChar *) "Name");
	if (name == NULL || *name == '\0')
	{
		xmlFree(name);
		return file_error(file, line, "Keyspace needs a Name attribute");
	}
	memset(ks, 0, sizeof(*ks));
	ks->name = arena_slice(a, (const char *) name, strlen((const char *) name));
	xmlFree(name);
	if (ks->name.p == NULL)
		return nomem();
	ks->strategy_class = cf_slice_str(CFT_DEFAULT_STRATEGY);
	ks->replication_factor = 1;
	for (xmlNode *c = node->children; c != NULL && st == NULL; c = c->next)
	{
		const char *n = (const char *) c->name;
		long		cl = xmlGetLineNo(c);

		if (c->type != XML_ELEMENT_NODE)
			continue;
		if (strcmp(n, "ColumnFamily") == 0)
		{
			cf_t_cf_def *defs = cf_arena_grow(a, ks->cf_defs, ks->n_cf_defs, &cap,
											  sizeof(cf_t_cf_def));

			if (defs == NULL)
				return nomem();
			ks->cf_defs = defs;
			st = xml_column_family(file, c, (const char *) ks->name.p, a,
								   &ks->cf_defs[ks->n_cf_defs]);
			for (size_t i = 0; st == NULL && i < ks->n_cf_defs; i++)
				if (cf_slice_eq(ks->cf_defs[i].name, ks->cf_defs[ks->n_cf_defs].name))
					st = file_error(file, cl, "ColumnFamily \"%s\" is defined twice in "
									"Keyspace \"%s\"", (const char *) ks->cf_defs[i].name.p,
									(const char *) ks->name.p);
			if (st == NULL)
				ks->n_cf_defs++;
		}
		else if (strcmp(n, "ReplicaPlacementStrategy") == 0)
		{
			cf_slice	v = xml_text(c, a);
			const char *cls = cft_strategy_class((const char *) v.p, v.len);

			if (cls == NULL)
				st = file_error(file, cl, "unknown ReplicaPlacementStrategy \"%.*s\"\nhint: "
								"valid strategies are %s, and 0.6's RackUnawareStrategy and "
								"RackAwareStrategy", (int) v.len, (const char *) v.p,
								cft_strategy_names_hint);
			else
				ks->strategy_class = cf_slice_str(cls);
		}
		else if (strcmp(n, "ReplicationFactor") == 0)
		{
			cf_slice	v = xml_text(c, a);
			char	   *end;
			long		rf;

			errno = 0;
			rf = strtol((const char *) v.p, &end, 10);
			if (v.len == 0 || *end != '\0' || errno != 0 || rf < 1 || rf > INT32_MAX)
				st = file_error(file, cl, "ReplicationFactor must be a whole number from 1, "
								"not \"%.*s\"", (int) v.len, (const char *) v.p);
			else
				ks->replication_factor = (int32_t) rf;
		}
		else if (strcmp(n, "EndPointSnitch") == 0)
			;					/* a node setting in 0.7 (endpoint_snitch), not a keyspace's */
		else
			st = file_error(file, cl, "unknown element <%s> in Keyspace \"%s\"\nhint: a "
							"Keyspace holds ColumnFamily, ReplicaPlacementStrategy, "
							"ReplicationFactor and EndPointSnitch", n, (const char *) ks->name.p);
	}
	return st;
}

static cf_status *
xml_keyspaces(const char *file, xmlNode *node, cf_arena *a, cf_t_ks_def **out,
			  size_t *n, size_t *cap)
{
	cf_status  *st;

	for (xmlNode *c = node->children; c != NULL; c = c->next)
	{
		cf_t_ks_def *defs;

		if (c->type != XML_ELEMENT_NODE)
			continue;
		if (strcmp((const char *) c->name, "Keyspace") != 0)
			return file_error(file, xmlGetLineNo(c), "unknown element <%s> in <Keyspaces>\n"
							  "hint: <Keyspaces> holds only <Keyspace Name=\"...\">",
							  (const char *) c->name);
		defs = cf_arena_grow(a, *out, *n, cap, sizeof(cf_t_ks_def));
		if (defs == NULL)
			return nomem();
		*out = defs;
		if ((st = xml_keyspace(file, c, a, &defs[*n])) != NULL)
			return st;
		(*n)++;
	}
	return NULL;
}

cf_status *
cft_schema_from_xml(const char *file, const char *text, size_t len, cf_arena *arena,
					cf_t_ks_def **out, size_t *n_out)
{
	xmlParserCtxt *ctxt;
	xmlDoc	   *doc;
	xmlNode    *root;
	cf_status  *st = NULL;
	size_t		cap = 0;

	*out = NULL;
	*n_out = 0;
	if (len > INT_MAX)
		return cf_status_make(CF_ERR_TOO_LARGE, "%s: larger than 2 GiB", file);
	xmlInitParser();
	ctxt = xmlNewParserCtxt();
	if (ctxt == NULL)
		return nomem();
	/* no network, no entities, no DTD loading; errors come back, not on stderr */
	doc = xmlCtxtReadMemory(ctxt, text, (int) len, file, NULL,
							XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
	if (doc == NULL)
	{
		const xmlError *e = xmlCtxtGetLastError(ctxt);
		char		msg[512] = "not well-formed XML";
		size_t		ml;

		if (e != NULL && e->message != NULL)
			snprintf(msg, sizeof(msg), "%s", e->message);
		ml = strlen(msg);
		while (ml > 0 && msg[ml - 1] == '\n')
			msg[--ml] = '\0';
		st = file_error(file, e ? e->line : 0, "%s", msg);
		if (strstr(text, "\xc2\xbb") != NULL || strstr(text, "\xc2\xab") != NULL)
			st = cf_status_wrap(st, "%s", "typographic quotes (« ») found; attribute values "
								"need plain \" or '");
		xmlFreeParserCtxt(ctxt);
		return st;
	}
	root = xmlDocGetRootElement(doc);
	if (root == NULL)
		st = file_error(file, 1, "no root element");
	else if (strcmp((const char *) root->name, "Keyspace") == 0)
	{
		*out = cf_arena_alloc(arena, sizeof(cf_t_ks_def));
		if (*out == NULL)
			st = nomem();
		else if ((st = xml_keyspace(file, root, arena, *out)) == NULL)
			*n_out = 1;
	}
	else if (strcmp((const char *) root->name, "Keyspaces") == 0)
		st = xml_keyspaces(file, root, arena, out, n_out, &cap);
	else if (strcmp((const char *) root->name, "Storage") == 0)
	{
		/* the rest of a storage-conf.xml configures the node, not the schema */
		for (xmlNode *c = root->children; c != NULL && st == NULL; c = c->next)
			if (c->type == XML_ELEMENT_NODE && strcmp((const char *) c->name, "Keyspaces") == 0)
				st = xml_keyspaces(file, c, arena, out, n_out, &cap);
	}
	else
		st = file_error(file, xmlGetLineNo(root), "root element <%s> is not a schema\nhint: "
						"expected <Storage>, <Keyspaces> or <Keyspace Name=\"...\">",
						(const char *) root->name);
	if (st == NULL && *n_out == 0)
		st = file_error(file, 1, "no <Keyspace> in the file");
	xmlFreeDoc(doc);
	xmlFreeParserCtxt(ctxt);
	return st;
}

/* ---- schema.json ---- */

typedef struct json_src
{
	const char *file;
	const char *text;
	size_t		len;
} json_src;

/* 1-based line of byte offset off. */
static long
line_at(const json_src *js, size_t off)
{
	long		line = 1;

	for (size_t i = 0; i < off && i < js->len; i++)
		if (js->text[i] == '\n')
			line++;
	return line;
}

/* The line of the member path[depth-1], found by searching "name" after each parent. */
static long
member_line(const json_src *js, const char *const *path, int depth)
{
	size_t		pos = 0;

	for (int i = 0; i < depth; i++)
	{
		size_t		n = strlen(path[i]);
		bool		found = false;

		for (size_t p = pos; p + n + 2 <= js->len; p++)
			if (js->text[p] == '"' && memcmp(js->text + p + 1, path[i], n) == 0 &&
				js->text[p + n + 1] == '"')
			{
				pos = p;
				found = true;
				break;
			}
		if (!found)
			break;
	}
	return line_at(js, pos);
}

static const char json_cf_attrs[] =
"column_type, comparator_type, subcomparator_type, comment, row_cache_size, key_cache_size, "
"read_repair_chance, gc_grace_seconds, default_validation_class, min_compaction_threshold, "
"max_compaction_threshold, column_metadata";

static cf_status *
json_double(const json_src *js, const char *const *path, json_object *v, double min,
			double max, double *out)
{
	double		d;

	if (!json_object_is_type(v, json_type_double) && !json_object_is_type(v, json_type_int))
		return file_error(js->file, member_line(js, path, 3), "%s.%s.%s must be a number",
						  path[0], path[1], path[2]);
	d = json_object_get_double(v);
	if (!(d >= min && d <= max))
		return file_error(js->file, member_line(js, path, 3), "%s.%s.%s must be from %g to %g",
						  path[0], path[1], path[2], min, max);
	*out = d;
	return NULL;
}

static cf_status *
json_int(const json_src *js, const char *const *path, int depth, json_object *v,
		 int64_t min, int32_t *out)
{
	int64_t		i;

	if (!json_object_is_type(v, json_type_int))
		return file_error(js->file, member_line(js, path, depth), "%s must be a whole number",
						  path[depth - 1]);
	i = json_object_get_int64(v);
	if (i < min || i > INT32_MAX)
		return file_error(js->file, member_line(js, path, depth), "%s must be from %lld to %d",
						  path[depth - 1], (long long) min, INT32_MAX);
	*out = (int32_t) i;
	return NULL;
}

static cf_status *
json_string(const json_src *js, const char *const *path, int depth, json_object *v,
			const char **out)
{
	if (!json_object_is_type(v, json_type_string))
		return file_error(js->file, member_line(js, path, depth), "%s must be a string",
						  path[depth - 1]);
	*out = json_object_get_string(v);
	return NULL;
}

static cf_status *
json_column_metadata(const json_src *js, const char *const *path, json_object *v,
					 cf_arena *a, cf_t_cf_def *cf)
{
	size_t		n;
	cft_type	cmp = CFT_BYTES;
	long		line = member_line(js, path, 3);
	cf_status  *st;

	if (!json_object_is_type(v, json_type_array))
		return file_error(js->file, line, "column_metadata must be an array of {\"name\", "
						  "\"validation_class\"[, \"index_type\"][, \"index_name\"]}");
	if ((st = cft_type_parse(cf->column_type.len == 5 && cf->has_subcomparator_type ?
							 cf->subcomparator_type : cf->comparator_type,
							 "comparator", &cmp)) != NULL)
		return st;
	n = json_object_array_length(v);
	cf->column_metadata = cf_arena_alloc(a, (n ? n : 1) * sizeof(cf_t_column_def));
	if (cf->column_metadata == NULL)
		return nomem();
	cf->has_column_metadata = true;
	cf->n_column_metadata = n;
	for (size_t i = 0; i < n; i++)
	{
		json_object *e = json_object_array_get_idx(v, i);
		cf_t_column_def *cd = &cf->column_metadata[i];
		bool		has_name = false,
					has_class = false;

		memset(cd, 0, sizeof(*cd));
		if (!json_object_is_type(e, json_type_object))
			return file_error(js->file, line, "column_metadata[%zu] must be an object", i);
		json_object_object_foreach(e, key, val)
		{
			const char *s;

			if (!json_object_is_type(val, json_type_string) &&
				!json_object_is_type(val, json_type_int))
				return file_error(js->file, line, "column_metadata[%zu].%s must be a string",
								  i, key);
			s = json_object_get_string(val);
			if (strcmp(key, "name") == 0 || strcmp(key, "column_name") == 0)
			{
				cft_term	t = {CFT_TERM_STRING, s, strlen(s), NULL, (int) line, 1};
				cf_buf		b = CF_BUF_INIT;

				if ((st = cft_term_bytes(&t, cmp, &b)) != NULL)
				{
					cf_buf_free(&b);
					return cf_status_wrap(st, "%s: column_metadata[%zu].name", js->file, i);
				}
				cd->name = arena_slice(a, b.data ? (const char *) b.data : "", b.len);
				cf_buf_free(&b);
				has_name = true;
			}
			else if (strcmp(key, "validation_class") == 0)
			{
				if ((st = type_class(js->file, line, "validation_class", s,
									 &cd->validation_class)) != NULL)
					return st;
				has_class = true;
			}
			else if (strcmp(key, "index_type") == 0)
			{
				if (strcasecmp(s, "KEYS") != 0 && strcmp(s, "0") != 0)
					return file_error(js->file, line, "unknown index_type \"%s\"\nhint: 0.7 "
									  "has one index type, KEYS", s);
				cd->has_index_type = true;
				cd->index_type = CF_T_INDEX_KEYS;
			}
			else if (strcmp(key, "index_name") == 0)
			{
				cd->has_index_name = true;
				cd->index_name = arena_slice(a, s, strlen(s));
			}
			else
				return file_error(js->file, line, "unknown column_metadata field \"%s\"\nhint: "
								  "valid fields are name, validation_class, index_type and "
								  "index_name", key);
		}
		if (!has_name || !has_class)
			return file_error(js->file, line, "column_metadata[%zu] lacks \"%s\"", i,
							  has_name ? "validation_class" : "name");
	}
	return NULL;
}

static cf_status *
json_column_family(const json_src *js, const char *ks, const char *name, json_object *o,
				   cf_arena *a, cf_t_cf_def *cf)
{
	const char *path[3] = {ks, name, NULL};
	json_object *metadata = NULL;
	cf_status  *st = NULL;

	memset(cf, 0, sizeof(*cf));
	cf->keyspace = arena_slice(a, ks, strlen(ks));
	cf->name = arena_slice(a, name, strlen(name));
	cf->has_column_type = true;
	cf->column_type = cf_slice_str("Standard");
	cf->has_comparator_type = true;
	cf->comparator_type = cf_slice_str(cft_type_class(CFT_BYTES));
	json_object_object_foreach(o, key, v)
	{
		const char *s;
		long		line;

		path[2] = key;
		line = member_line(js, path, 3);
		if (strcmp(key, "column_type") == 0)
		{
			const char *canon;

			if ((st = json_string(js, path, 3, v, &s)) != NULL)
				return st;
			if (!cft_column_type_valid(cf_slice_str(s), &canon))
				return file_error(js->file, line, "column_type must be Standard or Super, not "
								  "\"%s\"", s);
			cf->column_type = cf_slice_str(canon);
		}
		else if (strcmp(key, "comparator_type") == 0 || strcmp(key, "subcomparator_type") == 0 ||
				 strcmp(key, "default_validation_class") == 0)
		{
			cf_slice   *dst = key[0] == 'c' ? &cf->comparator_type :
				key[0] == 's' ? &cf->subcomparator_type : &cf->default_validation_class;

			if ((st = json_string(js, path, 3, v, &s)) != NULL ||
				(st = type_class(js->file, line, key, s, dst)) != NULL)
				return st;
			if (key[0] == 's')
				cf->has_subcomparator_type = true;
			else if (key[0] == 'd')
				cf->has_default_validation_class = true;
		}
		else if (strcmp(key, "comment") == 0)
		{
			if ((st = json_string(js, path, 3, v, &s)) != NULL)
				return st;
			cf->has_comment = true;
			cf->comment = arena_slice(a, s, strlen(s));
		}
		else if (strcmp(key, "row_cache_size") == 0)
		{
			cf->has_row_cache_size = true;
			st = json_double(js, path, v, 0, 1e12, &cf->row_cache_size);
		}
		else if (strcmp(key, "key_cache_size") == 0)
		{
			cf->has_key_cache_size = true;
			st = json_double(js, path, v, 0, 1e12, &cf->key_cache_size);
		}
		else if (strcmp(key, "read_repair_chance") == 0)
		{
			cf->has_read_repair_chance = true;
			st = json_double(js, path, v, 0, 1, &cf->read_repair_chance);
		}
		else if (strcmp(key, "gc_grace_seconds") == 0)
		{
			cf->has_gc_grace_seconds = true;
			st = json_int(js, path, 3, v, 0, &cf->gc_grace_seconds);
		}
		else if (strcmp(key, "min_compaction_threshold") == 0)
		{
			cf->has_min_compaction_threshold = true;
			st = json_int(js, path, 3, v, 0, &cf->min_compaction_threshold);
		}
		else if (strcmp(key, "max_compaction_threshold") == 0)
		{
			cf->has_max_compaction_threshold = true;
			st = json_int(js, path, 3, v, 0, &cf->max_compaction_threshold);
		}
		else if (strcmp(key, "column_metadata") == 0)
			metadata = v;
		else
			return file_error(js->file, line, "unknown column family attribute \"%s\" in "
							  "%s.%s\nhint: valid attributes are %s", key, ks, name,
							  json_cf_attrs);
		if (st != NULL)
			return st;
	}
	if (cf->has_subcomparator_type && strcmp((const char *) cf->column_type.p, "Super") != 0)
		return file_error(js->file, member_line(js, path, 2), "%s.%s has subcomparator_type "
						  "but its column_type is not \"Super\"", ks, name);
	path[2] = "column_metadata";
	if (metadata != NULL)
		return json_column_metadata(js, path, metadata, a, cf);
	return NULL;
}

static cf_status *
json_keyspace(const json_src *js, const char *name, json_object *o, cf_arena *a,
			  cf_t_ks_def *ks)
{
	const char *path[2] = {name, NULL};
	size_t		cap = 0;
	cf_status  *st = NULL;

	memset(ks, 0, sizeof(*ks));
	ks->name = arena_slice(a, name, strlen(name));
	ks->strategy_class = cf_slice_str(CFT_DEFAULT_STRATEGY);
	ks->replication_factor = 1;
	if (!json_object_is_type(o, json_type_object))
		return file_error(js->file, member_line(js, path, 1), "keyspace \"%s\" must be an "
						  "object of column families", name);
	json_object_object_foreach(o, key, v)
	{
		path[1] = key;
		if (json_object_is_type(v, json_type_object) && strcmp(key, "strategy_options") != 0)
		{
			cf_t_cf_def *defs = cf_arena_grow(a, ks->cf_defs, ks->n_cf_defs, &cap,
											  sizeof(cf_t_cf_def));

			if (defs == NULL)
				return nomem();
			ks->cf_defs = defs;
			if ((st = json_column_family(js, name, key, v, a, &defs[ks->n_cf_defs])) != NULL)
				return st;
			ks->n_cf_defs++;
		}
		else if (strcmp(key, "replication_factor") == 0)
		{
			if ((st = json_int(js, path, 2, v, 1, &ks->replication_factor)) != NULL)
				return st;
		}
		else if (strcmp(key, "strategy_class") == 0 || strcmp(key, "placement_strategy") == 0)
		{
			const char *s,
					   *cls;

			if ((st = json_string(js, path, 2, v, &s)) != NULL)
				return st;
			if ((cls = cft_strategy_class(s, strlen(s))) == NULL)
				return file_error(js->file, member_line(js, path, 2), "unknown %s \"%s\"\n"
								  "hint: valid strategies are %s", key, s,
								  cft_strategy_names_hint);
			ks->strategy_class = cf_slice_str(cls);
		}
		else if (strcmp(key, "strategy_options") == 0 && json_object_is_type(v, json_type_object))
		{
			size_t		n = (size_t) json_object_object_length(v),
						i = 0;

			ks->strategy_options = cf_arena_alloc(a, (n ? n : 1) * sizeof(cf_t_string_pair));
			if (ks->strategy_options == NULL)
				return nomem();
			ks->has_strategy_options = true;
			json_object_object_foreach(v, ok, ov)
			{
				const char *s = json_object_get_string(ov);

				ks->strategy_options[i].key = arena_slice(a, ok, strlen(ok));
				ks->strategy_options[i].value = arena_slice(a, s, strlen(s));
				i++;
			}
			ks->n_strategy_options = i;
		}
		else
			return file_error(js->file, member_line(js, path, 2), "\"%s\" in keyspace \"%s\" "
							  "is neither a column family (an object) nor a keyspace attribute\n"
							  "hint: keyspace attributes are replication_factor, strategy_class "
							  "and strategy_options", key, name);
	}
	return NULL;
}

cf_status *
cft_schema_from_json(const char *file, const char *text, size_t len, cf_arena *arena,
					 cf_t_ks_def **out, size_t *n_out)
{
	json_src	js = {file, text, len};
	struct json_tokener *tok;
	json_object *root;
	cf_status  *st = NULL;
	size_t		cap = 0;

	*out = NULL;
	*n_out = 0;
	if (len > INT_MAX)
		return cf_status_make(CF_ERR_TOO_LARGE, "%s: larger than 2 GiB", file);
	tok = json_tokener_new();
	if (tok == NULL)
		return nomem();
	root = json_tokener_parse_ex(tok, text, (int) len);
	if (root == NULL || json_tokener_get_error(tok) != json_tokener_success ||
		json_tokener_get_parse_end(tok) < len)
	{
		enum json_tokener_error err = json_tokener_get_error(tok);
		size_t		end = json_tokener_get_parse_end(tok);

		/* only blanks may follow the document */
		if (root != NULL && err == json_tokener_success)
		{
			while (end < len && strchr(" \t\r\n", text[end]) != NULL)
				end++;
			if (end == len)
				goto parsed;
		}
		json_object_put(root);
		json_tokener_free(tok);
		return file_error(file, line_at(&js, end), "%s",
						  err == json_tokener_continue ? "the JSON document ends too early" :
						  err == json_tokener_success ? "text after the JSON document" :
						  json_tokener_error_desc(err));
	}
parsed:
	json_tokener_free(tok);
	if (!json_object_is_type(root, json_type_object))
		st = file_error(file, 1, "the schema must be a JSON object {\"Keyspace\": {\"CF\": "
						"{...}}}");
	else
	{
		json_object_object_foreach(root, key, v)
		{
			cf_t_ks_def *defs = cf_arena_grow(arena, *out, *n_out, &cap, sizeof(cf_t_ks_def));

			if (defs == NULL)
			{
				st = nomem();
				break;
			}
			*out = defs;
			if ((st = json_keyspace(&js, key, v, arena, &defs[*n_out])) != NULL)
				break;
			(*n_out)++;
		}
		if (st == NULL && *n_out == 0)
			st = file_error(file, 1, "no keyspace in the file");
	}
	json_object_put(root);
	return st;
}

cf_status *
cft_schema_load_file(const char *path, cf_arena *arena, cf_t_ks_def **out, size_t *n_out)
{
	FILE	   *fp = fopen(path, "rb");
	char	   *text = NULL;
	size_t		len = 0,
				cap = 0;
	size_t		i;
	cf_status  *st;

	if (fp == NULL)
		return cf_status_errno(errno, "opening %s", path);
	for (;;)
	{
		size_t		got;

		if (len == cap)
		{
			char	   *nt;

			if (cap >= (size_t) 256 << 20)
			{
				free(text);
				fclose(fp);
				return cf_status_make(CF_ERR_TOO_LARGE, "%s: a schema file over 256 MiB", path);
			}
			cap = cap ? cap * 2 : 65536;
			nt = realloc(text, cap + 1);
			if (nt == NULL)
			{
				free(text);
				fclose(fp);
				return nomem();
			}
			text = nt;
		}
		got = fread(text + len, 1, cap - len, fp);
		len += got;
		if (got == 0)
			break;
	}
	if (ferror(fp))
	{
		st = cf_status_errno(errno ? errno : EIO, "reading %s", path);
		free(text);
		fclose(fp);
		return st;
	}
	fclose(fp);
	text[len] = '\0';
	for (i = 0; i < len && strchr(" \t\r\n", text[i]) != NULL; i++)
		;
	if (i + 3 <= len && memcmp(text + i, "\xef\xbb\xbf", 3) == 0)
		i += 3;					/* a UTF-8 byte order mark */
	if (i < len && text[i] == '<')
		st = cft_schema_from_xml(path, text, len, arena, out, n_out);
	else if (i < len && text[i] == '{')
		st = cft_schema_from_json(path, text + i, len - i, arena, out, n_out);
	else
		st = cf_status_make(CF_ERR_INVALID, "%s: neither XML nor JSON (it should start with "
							"'<' or '{')", path);
	free(text);
	return st;
}

/* ---- applying ---- */

static const cf_t_cf_def *
find_cf(const cf_t_ks_def *ks, cf_slice name)
{
	for (size_t i = 0; i < ks->n_cf_defs; i++)
		if (cf_slice_eq(ks->cf_defs[i].name, name))
			return &ks->cf_defs[i];
	return NULL;
}

/*
 * Sets on dst (a column family's definition as the server has it) the attributes src
 * (as the file writes it) sets: what the file leaves out keeps its value, so an
 * --update never drops an index or resets a cache the file does not mention.
 */
static void
overlay_cf_def(cf_t_cf_def *dst, const cf_t_cf_def *src)
{
#define TAKE(f) do { if (src->has_##f) { dst->has_##f = true; dst->f = src->f; } } while (0)
	TAKE(column_type);
	TAKE(comparator_type);
	TAKE(subcomparator_type);
	TAKE(comment);
	TAKE(row_cache_size);
	TAKE(key_cache_size);
	TAKE(read_repair_chance);
	TAKE(gc_grace_seconds);
	TAKE(default_validation_class);
	TAKE(min_compaction_threshold);
	TAKE(max_compaction_threshold);
	TAKE(row_cache_save_period_in_seconds);
	TAKE(key_cache_save_period_in_seconds);
	TAKE(memtable_flush_after_mins);
	TAKE(memtable_throughput_in_mb);
	TAKE(memtable_operations_in_millions);
#undef TAKE
	if (src->has_column_metadata)
	{
		dst->has_column_metadata = true;
		dst->column_metadata = src->column_metadata;
		dst->n_column_metadata = src->n_column_metadata;
	}
}

cf_status *
cft_schema_apply(cft_backend *b, const cf_t_ks_def *ks, bool update, FILE *log)
{
	cf_arena   *a = cf_arena_new(0);
	cf_t_args	args;
	cf_t_result res;
	cf_status  *st;
	int			kl = (int) ks->name.len;
	const char *kn = (const char *) ks->name.p;

	if (a == NULL)
		return nomem();
	memset(&args, 0, sizeof(args));
	args.keyspace = ks->name;
	st = cft_call(b, CF_T_M_DESCRIBE_KEYSPACE, &args, a, &res);
	if (st != NULL && cf_status_code(st) == CF_ERR_NOT_FOUND)
	{
		cf_status_free(st);
		memset(&args, 0, sizeof(args));
		args.ks_def = *ks;
		st = cf_status_wrap(cft_call(b, CF_T_M_SYSTEM_ADD_KEYSPACE, &args, a, &res),
							"creating keyspace %.*s", kl, kn);
		if (st == NULL && log)
			fprintf(log, "created keyspace %.*s with %zu column families\n", kl, kn,
					ks->n_cf_defs);
	}
	else if (st != NULL)
		st = cf_status_wrap(st, "looking up keyspace %.*s", kl, kn);
	else if (!update)
		st = cf_status_make(CF_ERR_INVALID, "keyspace %.*s already exists\nhint: --update "
							"updates it and its column families in place", kl, kn);
	else
	{
		cf_t_ks_def old = res.ks_def;
		cf_t_ks_def ksonly = *ks;

		ksonly.cf_defs = NULL;
		ksonly.n_cf_defs = 0;
		memset(&args, 0, sizeof(args));
		args.ks_def = ksonly;
		st = cf_status_wrap(cft_call(b, CF_T_M_SYSTEM_UPDATE_KEYSPACE, &args, a, &res),
							"updating keyspace %.*s", kl, kn);
		if (st == NULL && log)
			fprintf(log, "updated keyspace %.*s\n", kl, kn);
		for (size_t i = 0; st == NULL && i < ks->n_cf_defs; i++)
		{
			const cf_t_cf_def *cf = &ks->cf_defs[i];
			const cf_t_cf_def *prev = find_cf(&old, cf->name);
			int			cl = (int) cf->name.len;
			const char *cn = (const char *) cf->name.p;

			memset(&args, 0, sizeof(args));
			args.cf_def = *cf;
			if (prev != NULL)
			{
				args.cf_def = *prev;
				overlay_cf_def(&args.cf_def, cf);
				st = cf_status_wrap(cft_call(b, CF_T_M_SYSTEM_UPDATE_COLUMN_FAMILY, &args, a,
											 &res), "updating column family %.*s", cl, cn);
			}
			else
				st = cf_status_wrap(cft_call(b, CF_T_M_SYSTEM_ADD_COLUMN_FAMILY, &args, a,
											 &res), "adding column family %.*s", cl, cn);
			if (st == NULL && log)
				fprintf(log, "%s column family %.*s.%.*s\n", prev ? "updated" : "added",
						kl, kn, cl, cn);
		}
	}
	cf_arena_free(a);
	return st;
}

static const char *
short_type(cf_slice cls)
{
	static char buf[64];
	cft_type	t;
	cf_status  *st = cft_type_parse(cls, "type", &t);

	if (st == NULL)
		return cft_type_name(t);
	cf_status_free(st);
	snprintf(buf, sizeof(buf), "'%.*s'", (int) (cls.len > 60 ? 60 : cls.len),
			 (const char *) cls.p);
	return buf;
}

void
cft_schema_print_cli(FILE *out, const cf_t_ks_def *ks)
{
	fprintf(out, "create keyspace %.*s with placement_strategy = '%.*s' and "
			"replication_factor = %d", (int) ks->name.len, (const char *) ks->name.p,
			(int) ks->strategy_class.len, (const char *) ks->strategy_class.p,
			ks->replication_factor);
	if (ks->has_strategy_options && ks->n_strategy_options > 0)
	{
		fputs(" and strategy_options = [{", out);
		for (size_t i = 0; i < ks->n_strategy_options; i++)
			fprintf(out, "%s%.*s: %.*s", i ? ", " : "",
					(int) ks->strategy_options[i].key.len,
					(const char *) ks->strategy_options[i].key.p,
					(int) ks->strategy_options[i].value.len,
					(const char *) ks->strategy_options[i].value.p);
		fputs("}]", out);
	}
	fputs(";\n", out);
	fprintf(out, "use %.*s;\n", (int) ks->name.len, (const char *) ks->name.p);
	for (size_t i = 0; i < ks->n_cf_defs; i++)
	{
		const cf_t_cf_def *cf = &ks->cf_defs[i];

		fprintf(out, "create column family %.*s with column_type = %.*s and comparator = %s",
				(int) cf->name.len, (const char *) cf->name.p,
				(int) cf->column_type.len, (const char *) cf->column_type.p,
				short_type(cf->comparator_type));
		if (cf->has_subcomparator_type)
			fprintf(out, " and subcomparator = %s", short_type(cf->subcomparator_type));
		if (cf->has_comment)
		{
			fputs(" and comment = '", out);
			for (size_t k = 0; k < cf->comment.len; k++)
			{
				if (cf->comment.p[k] == '\'' || cf->comment.p[k] == '\\')
					fputc('\\', out);
				fputc(cf->comment.p[k], out);
			}
			fputc('\'', out);
		}
		if (cf->has_row_cache_size)
			fprintf(out, " and rows_cached = %g", cf->row_cache_size);
		if (cf->has_key_cache_size)
			fprintf(out, " and keys_cached = %g", cf->key_cache_size);
		if (cf->has_read_repair_chance)
			fprintf(out, " and read_repair_chance = %g", cf->read_repair_chance);
		if (cf->has_gc_grace_seconds)
			fprintf(out, " and gc_grace = %d", cf->gc_grace_seconds);
		fputs(";\n", out);
	}
}
