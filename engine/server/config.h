/*
 * server/config.h — colfamd's configuration: one plain struct the rest of colfamd
 * reads, filled from defaults, then a YAML file (Cassandra 0.7's cassandra.yaml key
 * names where one applies), then the command line; checked once, as a whole.
 *
 * Sources, in order, each overriding the one before:
 *   1. defaults (cf_config_init): one node on this machine — clients on
 *      127.0.0.1:9160, data under ./var/ (relative to the working directory, as
 *      Cassandra's relative paths are);
 *   2. the file (cf_config_load_file, `colfamd -c FILE`): a YAML mapping of key: value.
 *      An empty or null value (`initial_token:`) keeps the default. Lists are YAML
 *      sequences or one comma-separated string;
 *   3. the command line (cf_config_parse_args): `--KEY VALUE` or `--KEY=VALUE` for
 *      every key, dashes and underscores alike (--rpc-port = --rpc_port); lists comma-
 *      separated (--seeds 127.0.0.2,127.0.0.3).
 *
 * Errors: a bad value (wrong type, out of range, unknown name) is CF_ERR_INVALID whose
 * message names where it came from, the key, the value and the valid values — colfamd
 * exits 2 with it. Unknown keys are not errors: each gets a warning naming the closest
 * valid key (a typo hint); keys of Cassandra 0.7's cassandra.yaml that colfamd does not
 * use get an info line saying they have no effect, so a real cassandra.yaml loads.
 *
 * Thread safety: a config is built on one thread at start-up, then only read.
 */
#ifndef CF_SERVER_CONFIG_H
#define CF_SERVER_CONFIG_H

#include <stdbool.h>
#include <stdio.h>

#include "db/db.h"
#include "server/server.h"
#include "storage/commitlog.h"
#include "storage/partitioner.h"
#include "util/log.h"
#include "util/status.h"

typedef enum cf_authenticator
{
	CF_AUTHENTICATOR_ALLOW_ALL = 0, /* org.apache.cassandra.auth.AllowAllAuthenticator */
	CF_AUTHENTICATOR_SIMPLE,	/* SimpleAuthenticator: users in auth_passwd_file */
} cf_authenticator;

typedef enum cf_authority
{
	CF_AUTHORITY_ALLOW_ALL = 0, /* org.apache.cassandra.auth.AllowAllAuthority */
	CF_AUTHORITY_SIMPLE,		/* SimpleAuthority: grants in auth_access_file */
} cf_authority;

/* A list of strings; v[i] malloc'd. */
typedef struct cf_strlist
{
	char	  **v;
	size_t		n;
} cf_strlist;

/* Something a caller should log once the log level is set. */
typedef struct cf_config_note
{
	cf_log_level level;
	char	   *text;
} cf_config_note;

/*
 * Every setting. Strings are malloc'd and never NULL unless marked optional (NULL =
 * not set). Units are in the names, as in cassandra.yaml.
 */
typedef struct cf_config
{
	/* cluster */
	char	   *cluster_name;	/* "Test Cluster" */
	char	   *listen_address; /* node-to-node traffic; "127.0.0.1" */
	int			storage_port;	/* 7000 */
	cf_strlist	seeds;			/* ["127.0.0.1"] */
	char	   *initial_token;	/* optional: a token of the partitioner */
	bool		auto_bootstrap; /* false */

	/* clients (Thrift) */
	char	   *rpc_address;	/* "127.0.0.1" */
	int			rpc_port;		/* 9160 */
	char	   *rpc_unix_socket;	/* optional: also listen on this unix socket */
	int			rpc_unix_socket_mode;	/* 0700: its permission bits */
	bool		rpc_keepalive;	/* true */
	int			rpc_send_buff_size_in_bytes;	/* 0: the OS default */
	int			rpc_recv_buff_size_in_bytes;	/* 0: the OS default */
	int			rpc_max_connections;	/* 1024 */
	int			rpc_io_threads; /* event loops; 0: one per CPU */
	char	   *rpc_io_cpus;	/* optional: the CPUs the loops are pinned to */
	int			rpc_worker_threads; /* 0: concurrent_reads + concurrent_writes */
	int			rpc_connection_buffer_in_kb;	/* 4096: see server.h */
	int			rpc_timeout_in_ms;	/* 10000 */
	int			thrift_framed_transport_size_in_mb; /* 15 */
	int			thrift_max_message_length_in_mb;	/* 16 */
	int			shutdown_timeout_in_ms; /* 5000 */

	/* authentication */
	cf_authenticator authenticator;
	cf_authority authority;
	char	   *auth_passwd_file;	/* optional; passwd.properties format */
	char	   *auth_access_file;	/* optional; access.properties format */

	/* storage */
	cf_strlist	data_file_directories;	/* ["./var/data"] */
	char	   *commitlog_directory;	/* "./var/commitlog" */
	cf_commitlog_sync_mode commitlog_sync;	/* periodic */
	int			commitlog_sync_period_in_ms;	/* 10000 */
	int			commitlog_sync_batch_window_in_ms;	/* 50 */
	cf_partitioner partitioner; /* RandomPartitioner */
	int			concurrent_reads;	/* 8 */
	int			concurrent_writes;	/* 32 */
	int			memtable_throughput_in_mb;	/* 0: each CF's own (CfDef) */
	double		memtable_operations_in_millions;	/* 0: each CF's own */
	int			memtable_flush_after_mins;	/* 60: default of new CFs */
	int			column_index_size_in_kb;	/* 64 */
	int			block_cache_size_in_mb;	/* 64: decoded blocks, all CFs */
	int			min_compaction_threshold;	/* 4: default of new CFs */
	int			max_compaction_threshold;	/* 32 */

	/* the process */
	cf_log_level log_level;		/* info */
	char	   *pid_file;		/* optional */

	/* where the file came from ("" for none), and what to log once the level is set */
	char	   *source;
	cf_config_note *notes;
	size_t		n_notes;
} cf_config;

/* Fills cfg with the defaults. CF_ERR_NO_MEMORY only. */
cf_status  *cf_config_init(cf_config *cfg);

void		cf_config_free(cf_config *cfg);

/*
 * Reads a YAML file over cfg. Errors: CF_ERR_NOT_FOUND / CF_ERR_IO / CF_ERR_AUTHORIZATION
 * when it cannot be read (colfamd exits 1), CF_ERR_INVALID for YAML that does not
 * parse or a bad value ("FILE:LINE: KEY: invalid value ..."; exit 2). Unknown keys
 * add notes.
 */
cf_status  *cf_config_load_file(cf_config *cfg, const char *path);

/* The same from YAML text (tests); name is used in messages. */
cf_status  *cf_config_load_string(cf_config *cfg, const char *yaml, const char *name);

/*
 * Sets one key from text, as the command line does: lists comma-separated, and an
 * empty value restores the key's default (for an optional string: not set), as an
 * empty YAML value does. origin goes in front of messages ("command line"). Errors:
 * CF_ERR_NOT_FOUND for an unknown key (the message carries the hint), CF_ERR_INVALID
 * for a bad value.
 */
cf_status  *cf_config_set(cf_config *cfg, const char *key, const char *value,
						  const char *origin);

/*
 * Checks what no single key can: limits that depend on each other, files that must
 * exist, the initial token under the partitioner. CF_ERR_INVALID naming the keys.
 */
cf_status  *cf_config_validate(const cf_config *cfg);

/* Writes the effective configuration as YAML that cf_config_load_* reads back. */
void		cf_config_write(const cf_config *cfg, FILE *out);

/* The keys with their defaults and valid values, for --help. */
void		cf_config_print_keys(FILE *out);

/*
 * The closest known key to name (edit distance), or NULL when none is close. For
 * typo hints.
 */
const char *cf_config_suggest(const char *name);

/*
 * The storage engine's options from cfg: data_dir is the first of
 * data_file_directories (the db keeps one data directory); memtable overrides apply
 * to every CF when non-zero. Pointers into cfg: it must outlive the db's opening.
 */
void		cf_config_db_options(const cf_config *cfg, cf_env *env, cf_db_options *o);

/* The network server's options from cfg (pointers into cfg). */
void		cf_config_server_options(const cf_config *cfg, cf_server_options *o);

/* What the command line asked for, besides settings. */
typedef struct cf_config_args
{
	const char *config_path;	/* -c / --config, or NULL */
	bool		help;			/* -h / --help */
	bool		version;		/* -V / --version */
	bool		check;			/* --check-config: validate, print, exit */
	/* KEY VALUE pairs in order, applied with cf_config_apply_args */
	char	  **keys;			/* normalised key names, owned */
	const char **values;		/* into argv */
	size_t		n;
} cf_config_args;

/*
 * Parses argv (argv[0] is the program). Short options: -c FILE, -l LEVEL (= --log_level),
 * -V, -h; "--" ends options. CF_ERR_INVALID for an unknown option (with a hint), a
 * missing value or a positional argument; the message is for "colfamd: " + message.
 */
cf_status  *cf_config_parse_args(int argc, char **argv, cf_config_args *a);

/* Applies the settings of the command line over cfg, in order. */
cf_status  *cf_config_apply_args(cf_config *cfg, const cf_config_args *a);

void		cf_config_args_free(cf_config_args *a);

#endif							/* CF_SERVER_CONFIG_H */
