/*
 * server/config_args.c — colfamd's command line: the program's own options and every
 * configuration key as --KEY VALUE (see config.h).
 *
 * Not getopt_long: its option table would be built from the key table anyway, and it
 * accepts unambiguous prefixes (--rpc_p), which stop working the day a key is added.
 * Here an option is a whole key name, dashes or underscores, and a near miss gets the
 * closest name as a hint.
 */
#include <stdlib.h>
#include <string.h>

#include "server/config_int.h"

/* Appends one KEY VALUE setting; takes key (freed on failure). */
static cf_status *
push(cf_config_args *a, char *key, const char *value)
{
	char	  **k = realloc(a->keys, (a->n + 1) * sizeof(*k));
	const char **v;

	if (k == NULL)
		goto nomem;
	a->keys = k;
	if ((v = realloc(a->values, (a->n + 1) * sizeof(*v))) == NULL)
		goto nomem;
	a->values = v;
	a->keys[a->n] = key;
	a->values[a->n] = value;
	a->n++;
	return NULL;
nomem:
	free(key);
	return cf_status_make(CF_ERR_NO_MEMORY, "command line: out of memory");
}

/* The program's own long options, which are not configuration keys. */
static const char *const own_options[] = {"config", "help", "version", "check_config", NULL};

static const char *
suggest_option(const char *name)
{
	const char *hint = cf_config_suggest(name);

	if (hint)
		return hint;
	for (int i = 0; own_options[i]; i++)
		if (strncmp(name, own_options[i], 4) == 0)
			return own_options[i];
	return NULL;
}

cf_status *
cf_config_parse_args(int argc, char **argv, cf_config_args *a)
{
	bool		options_end = false;

	memset(a, 0, sizeof(*a));
	for (int i = 1; i < argc; i++)
	{
		const char *arg = argv[i];

		if (options_end || arg[0] != '-' || arg[1] == '\0')
			return cf_status_make(CF_ERR_INVALID, "unexpected argument \"%s\"", arg);
		if (strcmp(arg, "--") == 0)
		{
			options_end = true;
			continue;
		}
		if (arg[1] == '-')
		{
			const char *eq = strchr(arg + 2, '=');
			size_t		len = eq ? (size_t) (eq - arg - 2) : strlen(arg + 2);
			char	   *name = strndup(arg + 2, len);
			const char *value = eq ? eq + 1 : NULL;
			bool		flag;

			if (name == NULL)
				return cf_status_make(CF_ERR_NO_MEMORY, "command line: out of memory");
			for (char *p = name; *p; p++)
				if (*p == '-')
					*p = '_';
			flag = strcmp(name, "help") == 0 || strcmp(name, "version") == 0 ||
				strcmp(name, "check_config") == 0;
			if (flag)
			{
				if (value)
				{
					cf_status  *s = cf_status_make(CF_ERR_INVALID, "option --%s takes no "
												   "value", name);

					free(name);
					return s;
				}
				a->help |= strcmp(name, "help") == 0;
				a->version |= strcmp(name, "version") == 0;
				a->check |= strcmp(name, "check_config") == 0;
				free(name);
				continue;
			}
			if (strcmp(name, "config") != 0 && cfg_key_find(name) == NULL)
			{
				const char *hint = suggest_option(name);
				cf_status  *s;

				s = cf_status_make(CF_ERR_INVALID, "unknown option \"--%s\"%s%s%s", name,
								   hint ? "; did you mean --" : "", hint ? hint : "",
								   hint ? "?" : "");
				free(name);
				return s;
			}
			if (value == NULL)
			{
				if (i + 1 >= argc)
				{
					cf_status  *s = cf_status_make(CF_ERR_INVALID, "option --%s needs a value",
												   name);

					free(name);
					return s;
				}
				value = argv[++i];
			}
			if (strcmp(name, "config") == 0)
			{
				a->config_path = value;
				free(name);
				continue;
			}
			{
				cf_status  *s = push(a, name, value);

				if (s)
					return s;
			}
			continue;
		}
		/* short options: -c FILE, -cFILE, -l LEVEL, -V, -h */
		switch (arg[1])
		{
			case 'V':
			case 'h':
				if (arg[2] != '\0')
					return cf_status_make(CF_ERR_INVALID, "unknown option \"%s\"", arg);
				a->version |= arg[1] == 'V';
				a->help |= arg[1] == 'h';
				break;
			case 'c':
			case 'l':
				{
					const char *value = arg[2] ? arg + 2 : (i + 1 < argc ? argv[++i] : NULL);
					char	   *key;
					cf_status  *s;

					if (value == NULL)
						return cf_status_make(CF_ERR_INVALID, "option -%c needs a value", arg[1]);
					if (arg[1] == 'c')
					{
						a->config_path = value;
						break;
					}
					if ((key = strdup("log_level")) == NULL)
						return cf_status_make(CF_ERR_NO_MEMORY, "command line: out of memory");
					if ((s = push(a, key, value)) != NULL)
						return s;
				}
				break;
			default:
				return cf_status_make(CF_ERR_INVALID, "unknown option \"%s\"", arg);
		}
	}
	return NULL;
}

cf_status *
cf_config_apply_args(cf_config *cfg, const cf_config_args *a)
{
	for (size_t i = 0; i < a->n; i++)
	{
		cf_status  *s;

		if ((s = cf_config_set(cfg, a->keys[i], a->values[i], "command line")) != NULL)
			return s;
	}
	return NULL;
}

void
cf_config_args_free(cf_config_args *a)
{
	for (size_t i = 0; i < a->n; i++)
		free(a->keys[i]);
	free(a->keys);
	free(a->values);
	memset(a, 0, sizeof(*a));
}
