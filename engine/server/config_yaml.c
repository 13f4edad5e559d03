/*
 * server/config_yaml.c — reads colfamd's YAML configuration file with libyaml.
 *
 * The whole document is loaded as libyaml's node tree (a config file is small), then
 * walked: the root must be a mapping of scalar keys. A key of the table takes a scalar
 * (a list key also a sequence of scalars); an empty or null scalar keeps the default.
 * seed_provider, the 0.8 form of seeds, is read as Cassandra wrote it:
 *
 *   seed_provider:
 *     - class_name: org.apache.cassandra.locator.SimpleSeedProvider
 *       parameters:
 *         - seeds: "127.0.0.1,127.0.0.2"
 *
 * Every message names the file and the line of the offending node.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "server/config_int.h"

typedef struct yload
{
	cf_config  *cfg;
	yaml_document_t *doc;
	const char *name;
	int		   *line_of;		/* per cfg_keys entry, where it was set: a second time warns */
} yload;

static int
line_of(const yaml_node_t *n)
{
	return (int) n->start_mark.line + 1;
}

static const char *
scalar(const yaml_node_t *n)
{
	return (const char *) n->data.scalar.value;
}

/* A plain "", "~" or "null" (any case): YAML's null. Quoted "" is an empty string. */
static bool
is_null(const yaml_node_t *n)
{
	const char *v = scalar(n);

	if (n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
		return false;
	return v[0] == '\0' || strcmp(v, "~") == 0 || strcmp(v, "null") == 0 ||
		strcmp(v, "Null") == 0 || strcmp(v, "NULL") == 0;
}

static const char *
node_kind(const yaml_node_t *n)
{
	switch (n->type)
	{
		case YAML_SCALAR_NODE:
			return "a value";
		case YAML_SEQUENCE_NODE:
			return "a list";
		case YAML_MAPPING_NODE:
			return "a mapping";
		default:
			return "nothing";
	}
}

static cf_status *
set_sequence(yload *y, const cfg_key *k, yaml_node_t *seq, const char *origin)
{
	size_t		n = (size_t) (seq->data.sequence.items.top - seq->data.sequence.items.start);
	const char **items = calloc(n ? n : 1, sizeof(char *));
	cf_status  *s;

	if (items == NULL)
		return cf_status_make(CF_ERR_NO_MEMORY, "configuration: out of memory");
	for (size_t i = 0; i < n; i++)
	{
		yaml_node_t *it = yaml_document_get_node(y->doc, seq->data.sequence.items.start[i]);

		if (it == NULL || it->type != YAML_SCALAR_NODE)
		{
			free(items);
			return cf_status_make(CF_ERR_INVALID, "%s:%d: %s: entry %zu of the list is %s, "
								  "not a value", y->name, it ? line_of(it) : line_of(seq),
								  k->name, i + 1, it ? node_kind(it) : "missing");
		}
		items[i] = scalar(it);
	}
	s = cfg_set_list(y->cfg, k, items, n, origin);
	free(items);
	return s;
}

/* The value node of key name in a mapping node, or NULL. */
static yaml_node_t *
map_get(yaml_document_t *doc, yaml_node_t *map, const char *name)
{
	for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++)
	{
		yaml_node_t *k = yaml_document_get_node(doc, p->key);

		if (k && k->type == YAML_SCALAR_NODE && strcmp(scalar(k), name) == 0)
			return yaml_document_get_node(doc, p->value);
	}
	return NULL;
}

static cf_status *
seed_provider(yload *y, yaml_node_t *v)
{
	static const char *const simple = "org.apache.cassandra.locator.SimpleSeedProvider";
	yaml_node_t *prov;
	yaml_node_t *cls;
	yaml_node_t *params;
	yaml_node_t *p0;
	yaml_node_t *seeds;
	char		origin[512];

	if (v->type != YAML_SEQUENCE_NODE ||
		v->data.sequence.items.top == v->data.sequence.items.start ||
		(prov = yaml_document_get_node(y->doc, v->data.sequence.items.start[0])) == NULL ||
		prov->type != YAML_MAPPING_NODE)
		return cf_status_make(CF_ERR_INVALID, "%s:%d: seed_provider: expected a list of one "
							  "mapping with class_name and parameters (or use seeds: a list)",
							  y->name, line_of(v));
	cls = map_get(y->doc, prov, "class_name");
	if (cls == NULL || cls->type != YAML_SCALAR_NODE ||
		(strcmp(scalar(cls), simple) != 0 && strcmp(scalar(cls), "SimpleSeedProvider") != 0))
		return cf_status_make(CF_ERR_INVALID, "%s:%d: seed_provider: invalid class_name "
							  "\"%.200s\"; valid values: %s", y->name, line_of(cls ? cls : prov),
							  cls && cls->type == YAML_SCALAR_NODE ? scalar(cls) : "", simple);
	params = map_get(y->doc, prov, "parameters");
	if (params == NULL || params->type != YAML_SEQUENCE_NODE ||
		params->data.sequence.items.top == params->data.sequence.items.start ||
		(p0 = yaml_document_get_node(y->doc, params->data.sequence.items.start[0])) == NULL ||
		p0->type != YAML_MAPPING_NODE ||
		(seeds = map_get(y->doc, p0, "seeds")) == NULL || seeds->type != YAML_SCALAR_NODE)
		return cf_status_make(CF_ERR_INVALID, "%s:%d: seed_provider: expected parameters: "
							  "- seeds: \"host1,host2\"", y->name, line_of(prov));
	snprintf(origin, sizeof(origin), "%s:%d", y->name, line_of(seeds));
	return cfg_set_text(y->cfg, cfg_key_find("seeds"), scalar(seeds), origin);
}

static cf_status *
load_pair(yload *y, yaml_node_t *kn, yaml_node_t *v)
{
	const char *key;
	const cfg_key *k;
	char		origin[512];

	if (kn == NULL || v == NULL)
		return cf_status_make(CF_ERR_INVALID, "%s: malformed YAML document", y->name);
	if (kn->type != YAML_SCALAR_NODE)
		return cf_status_make(CF_ERR_INVALID, "%s:%d: a key must be a name, not %s", y->name,
							  line_of(kn), node_kind(kn));
	key = scalar(kn);
	snprintf(origin, sizeof(origin), "%s:%d", y->name, line_of(v));
	if ((k = cfg_key_find(key)) != NULL)
	{
		size_t		idx = (size_t) (k - cfg_keys);
		cf_status  *s;

		if (y->line_of[idx] &&
			(s = cfg_note(y->cfg, CF_LOG_WARN, "%s:%d: %s is set twice (lines %d and %d); "
						  "the last one counts", y->name, line_of(kn), key, y->line_of[idx],
						  line_of(kn))) != NULL)
			return s;
		y->line_of[idx] = line_of(kn);
		if (v->type == YAML_SCALAR_NODE)
			return cfg_set_text(y->cfg, k, is_null(v) ? "" : scalar(v), origin);
		if (v->type == YAML_SEQUENCE_NODE && k->type == CFG_LIST)
			return set_sequence(y, k, v, origin);
		{
			char		valid[512];

			cfg_key_valid(k, valid, sizeof(valid));
			return cf_status_make(CF_ERR_INVALID, "%s: %s: expected a single value, got %s; "
								  "valid values: %s", origin, key, node_kind(v), valid);
		}
	}
	if (strcmp(key, "seed_provider") == 0)
		return seed_provider(y, v);
	if (strcmp(key, "keyspaces") == 0)
		return cfg_note(y->cfg, CF_LOG_INFO, "%s:%d: keyspaces in the configuration file are "
						"not loaded (Cassandra 0.7 loaded them only on request); create them "
						"with the colfam tool", y->name, line_of(kn));
	if (cfg_key_ignored(key))
		return cfg_note(y->cfg, CF_LOG_INFO, "%s:%d: %s (a Cassandra setting) has no effect "
						"in colfamd", y->name, line_of(kn), key);
	{
		const char *hint = cf_config_suggest(key);

		if (hint)
			return cfg_note(y->cfg, CF_LOG_WARN, "%s:%d: unknown key \"%s\" (ignored); did you "
							"mean \"%s\"?", y->name, line_of(kn), key, hint);
		return cfg_note(y->cfg, CF_LOG_WARN, "%s:%d: unknown key \"%s\" (ignored)", y->name,
						line_of(kn), key);
	}
}

static cf_status *
load(cf_config *cfg, yaml_parser_t *parser, const char *name)
{
	yaml_document_t doc;
	yaml_node_t *root;
	yload		y;
	cf_status  *s = NULL;
	size_t		nkeys = 0;

	if (!yaml_parser_load(parser, &doc))
	{
		if (parser->error == YAML_MEMORY_ERROR)
			return cf_status_make(CF_ERR_NO_MEMORY, "%s: out of memory", name);
		return cf_status_make(CF_ERR_INVALID, "%s:%d:%d: not valid YAML: %s%s%s", name,
							  (int) parser->problem_mark.line + 1,
							  (int) parser->problem_mark.column + 1,
							  parser->problem ? parser->problem : "syntax error",
							  parser->context ? " " : "", parser->context ? parser->context : "");
	}
	memset(&y, 0, sizeof(y));
	while (cfg_keys[nkeys].name != NULL)
		nkeys++;
	if ((y.line_of = calloc(nkeys, sizeof(int))) == NULL)
	{
		yaml_document_delete(&doc);
		return cf_status_make(CF_ERR_NO_MEMORY, "%s: out of memory", name);
	}
	y.cfg = cfg;
	y.doc = &doc;
	y.name = name;
	root = yaml_document_get_root_node(&doc);
	if (root == NULL || (root->type == YAML_SCALAR_NODE && is_null(root)))
		;						/* an empty file: every default */
	else if (root->type != YAML_MAPPING_NODE)
		s = cf_status_make(CF_ERR_INVALID, "%s:%d: expected a mapping of key: value lines, "
						   "got %s", name, line_of(root), node_kind(root));
	else
	{
		for (yaml_node_pair_t *p = root->data.mapping.pairs.start;
			 s == NULL && p < root->data.mapping.pairs.top; p++)
			s = load_pair(&y, yaml_document_get_node(&doc, p->key),
						  yaml_document_get_node(&doc, p->value));
	}
	yaml_document_delete(&doc);
	free(y.line_of);
	if (s == NULL)
	{
		char	   *src = strdup(name);

		if (src == NULL)
			return cf_status_make(CF_ERR_NO_MEMORY, "configuration: out of memory");
		free(cfg->source);
		cfg->source = src;
	}
	return s;
}

cf_status *
cf_config_load_string(cf_config *cfg, const char *yaml, const char *name)
{
	yaml_parser_t parser;
	cf_status  *s;

	if (!yaml_parser_initialize(&parser))
		return cf_status_make(CF_ERR_NO_MEMORY, "%s: out of memory", name);
	yaml_parser_set_input_string(&parser, (const unsigned char *) yaml, strlen(yaml));
	s = load(cfg, &parser, name);
	yaml_parser_delete(&parser);
	return s;
}

cf_status *
cf_config_load_file(cf_config *cfg, const char *path)
{
	yaml_parser_t parser;
	FILE	   *f = fopen(path, "rb");
	cf_status  *s;

	if (f == NULL)
		return cf_status_errno(errno, "cannot read the configuration file \"%s\"", path);
	if (!yaml_parser_initialize(&parser))
	{
		fclose(f);
		return cf_status_make(CF_ERR_NO_MEMORY, "%s: out of memory", path);
	}
	yaml_parser_set_input_file(&parser, f);
	s = load(cfg, &parser, path);
	yaml_parser_delete(&parser);
	if (ferror(f))
	{
		cf_status_free(s);
		s = cf_status_make(CF_ERR_IO, "cannot read the configuration file \"%s\" (is it a "
						   "regular file?)", path);
	}
	fclose(f);
	return s;
}
