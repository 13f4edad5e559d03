/*
 * server/config_int.h — the key table of the configuration, shared by config.c (the
 * table and setting keys), config_yaml.c (the file) and config_args.c (the command
 * line). Not for use outside engine/server.
 */
#ifndef CF_SERVER_CONFIG_INT_H
#define CF_SERVER_CONFIG_INT_H

#include "server/config.h"

typedef enum cfg_type
{
	CFG_STR,					/* char *, non-empty */
	CFG_OPTSTR,					/* char *, NULL when not set */
	CFG_INT,					/* int in [min, max] */
	CFG_BOOL,					/* bool */
	CFG_DOUBLE,					/* double in [min, max] */
	CFG_LIST,					/* cf_strlist, at least one non-empty entry */
	CFG_ENUM,					/* an enum stored as int, named by enums[] */
	CFG_MODE,					/* int: permission bits in octal, as chmod takes them,
								 * that include min (bits that must be set) */
} cfg_type;

typedef struct cfg_enum
{
	const char *name;
	int			value;
	bool		alias;			/* accepted, not listed among the valid values */
} cfg_enum;

typedef struct cfg_key
{
	const char *name;
	cfg_type	type;
	size_t		off;			/* of the field in cf_config */
	const char *def;			/* the default, as text ("" = not set) */
	long		min;
	long		max;
	const cfg_enum *enums;
	const char *prefix;			/* enum names may carry it (a Java package) */
	bool		icase;			/* enum names compare without case */
	const char *note;			/* added to an invalid-value message */
	const char *help;
} cfg_key;

extern const cfg_key cfg_keys[];	/* ends with a NULL name */

/* in config.c */
const cfg_key *cfg_key_find(const char *name);
bool		cfg_key_ignored(const char *name);
void		cfg_key_valid(const cfg_key *k, char *out, size_t n);
cf_status  *cfg_set_text(cf_config *cfg, const cfg_key *k, const char *value,
						 const char *origin);
cf_status  *cfg_set_list(cf_config *cfg, const cfg_key *k, const char *const *items,
						 size_t n, const char *origin);
cf_status  *cfg_note(cf_config *cfg, cf_log_level level, const char *fmt,...)
			__attribute__((format(printf, 3, 4)));

#endif							/* CF_SERVER_CONFIG_INT_H */
