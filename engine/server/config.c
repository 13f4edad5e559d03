/*
 * server/config.c — the key table of colfamd's configuration and everything done by
 * it: defaults, setting a key from text, checking, writing, typo hints, and the
 * mapping onto the database's and the server's options (see config.h).
 *
 * One table row per key holds its name, type, default (as text: cf_config_init sets
 * every key from it, so "empty value = default" is the same code path), range and
 * help. The YAML loader (config_yaml.c) and the command line (config_args.c) both end
 * in config_set_text / config_set_list here, so a key behaves the same from either.
 */
#include "server/config.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "server/config_int.h"
#include "util/cpulist.h"
#include "util/env.h"
#include "util/unixsock.h"

_Static_assert(sizeof(cf_partitioner) == sizeof(int), "enum keys are stored as int");
_Static_assert(sizeof(cf_commitlog_sync_mode) == sizeof(int), "enum keys are stored as int");
_Static_assert(sizeof(cf_authenticator) == sizeof(int), "enum keys are stored as int");
_Static_assert(sizeof(cf_authority) == sizeof(int), "enum keys are stored as int");
_Static_assert(sizeof(cf_log_level) == sizeof(int), "enum keys are stored as int");

static const cfg_enum partitioners[] = {
	{"RandomPartitioner", CF_PARTITIONER_RANDOM, false},
	{"ByteOrderedPartitioner", CF_PARTITIONER_BYTE_ORDERED, false},
	{"OrderPreservingPartitioner", CF_PARTITIONER_ORDER_PRESERVING, false},
	{"CollatingOrderPreservingPartitioner", CF_PARTITIONER_COLLATING_ORDER_PRESERVING, false},
	{NULL, 0, false},
};
static const cfg_enum sync_modes[] = {
	{"periodic", CF_COMMITLOG_PERIODIC, false},
	{"batch", CF_COMMITLOG_BATCH, false},
	{NULL, 0, false},
};
static const cfg_enum authenticators[] = {
	{"AllowAllAuthenticator", CF_AUTHENTICATOR_ALLOW_ALL, false},
	{"SimpleAuthenticator", CF_AUTHENTICATOR_SIMPLE, false},
	{NULL, 0, false},
};
static const cfg_enum authorities[] = {
	{"AllowAllAuthority", CF_AUTHORITY_ALLOW_ALL, false},
	{"SimpleAuthority", CF_AUTHORITY_SIMPLE, false},
	{NULL, 0, false},
};
static const cfg_enum log_levels[] = {
	{"debug", CF_LOG_DEBUG, false},
	{"info", CF_LOG_INFO, false},
	{"warn", CF_LOG_WARN, false},
	{"error", CF_LOG_ERROR, false},
	{"off", CF_LOG_OFF, false},
	{"warning", CF_LOG_WARN, true},
	{NULL, 0, false},
};

/* One row per key type; the fields are cfg_key's, in order. */
#define OFF(f) offsetof(cf_config, f)
#define INTK(name, def, lo, hi, help) \
	{#name, CFG_INT, OFF(name), def, lo, hi, NULL, NULL, false, NULL, help}
#define STRK(name, def, help) \
	{#name, CFG_STR, OFF(name), def, 0, 0, NULL, NULL, false, NULL, help}
#define OPTK(name, help) \
	{#name, CFG_OPTSTR, OFF(name), "", 0, 0, NULL, NULL, false, NULL, help}
#define BOOLK(name, def, help) \
	{#name, CFG_BOOL, OFF(name), def, 0, 0, NULL, NULL, false, NULL, help}
#define LISTK(name, def, help) \
	{#name, CFG_LIST, OFF(name), def, 0, 0, NULL, NULL, false, NULL, help}
#define MODEK(name, def, need, help) \
	{#name, CFG_MODE, OFF(name), def, need, 0777, NULL, NULL, false, NULL, help}
#define ENUMK(name, def, tab, prefix, icase, help) \
	{#name, CFG_ENUM, OFF(name), def, 0, 0, tab, prefix, icase, NULL, help}

const cfg_key cfg_keys[] = {
	STRK(cluster_name, "Test Cluster", "the cluster's name; nodes of another cluster are refused"),
	STRK(listen_address, "127.0.0.1", "address other nodes reach this one on"),
	INTK(storage_port, "7000", 1, 65535, "port for node-to-node traffic"),
	LISTK(seeds, "127.0.0.1", "nodes a new node contacts to join the ring"),
	OPTK(initial_token, "this node's token (empty: chosen when it joins)"),
	BOOLK(auto_bootstrap, "false", "stream this node's ranges from the ring when it joins"),

	STRK(rpc_address, "127.0.0.1", "address clients connect to (0.0.0.0: every address)"),
	INTK(rpc_port, "9160", 1, 65535, "port of the Thrift API"),
	OPTK(rpc_unix_socket, "also serve the Thrift API on this unix-domain socket, for "
		 "local clients (hosts '/path' in libcolfam, colfam_fdw and colfam -h); empty: "
		 "TCP only"),
	MODEK(rpc_unix_socket_mode, "0700", 0600,
		  "permissions of rpc_unix_socket: who may connect (0770: its group too)"),
	BOOLK(rpc_keepalive, "true", "TCP keepalive on client connections"),
	INTK(rpc_send_buff_size_in_bytes, "0", 0, 1 << 30,
		 "SO_SNDBUF of client sockets (0: the OS's)"),
	INTK(rpc_recv_buff_size_in_bytes, "0", 0, 1 << 30,
		 "SO_RCVBUF of client sockets (0: the OS's)"),
	INTK(rpc_max_connections, "1024", 1, 1000000,
		 "client connections open at once; more are refused"),
	INTK(rpc_io_threads, "0", 0, 1024, "network event loops (0: one per CPU)"),
	OPTK(rpc_io_cpus, "pin the event loops, loop i to the i-th of these CPUs: auto (the "
		 "CPUs colfamd may run on) or a list such as 0,2-3; for a machine colfamd and its "
		 "local clients have to themselves (server/server.h); empty or none: not pinned"),
	INTK(rpc_worker_threads, "0", 0, 4096,
		 "threads running requests (0: concurrent_reads + concurrent_writes)"),
	INTK(rpc_connection_buffer_in_kb, "4096", 64, 1 << 20,
		 "a connection is not read while its waiting requests and unsent replies exceed this"),
	INTK(rpc_timeout_in_ms, "10000", 1, 86400000, "how long a request waits for replicas"),
	{"thrift_framed_transport_size_in_mb", CFG_INT, OFF(thrift_framed_transport_size_in_mb),
		"15", 1, 2047, NULL, NULL, false,
		"(0, Cassandra's unframed TSocket, is not supported: colfamd serves TFramedTransport only)",
	"largest frame: a larger request closes the connection, a larger reply fails its call"},
	INTK(thrift_max_message_length_in_mb, "16", 1, 2047, "largest Thrift message"),
	INTK(shutdown_timeout_in_ms, "5000", 0, 3600000,
		 "on SIGTERM, how long requests already received may take to finish"),

	ENUMK(authenticator, "AllowAllAuthenticator", authenticators, "org.apache.cassandra.auth.",
		  false, "who may log in"),
	ENUMK(authority, "AllowAllAuthority", authorities, "org.apache.cassandra.auth.", false,
		  "what a user may do"),
	OPTK(auth_passwd_file, "SimpleAuthenticator's users (passwd.properties: user=password)"),
	OPTK(auth_access_file, "SimpleAuthority's grants (access.properties: keyspace=users)"),

	LISTK(data_file_directories, "./var/data", "where SSTables live (colfamd uses the first)"),
	STRK(commitlog_directory, "./var/commitlog", "where the commit log lives"),
	ENUMK(commitlog_sync, "periodic", sync_modes, NULL, true,
		  "periodic: fsync every period; batch: a write waits for its fsync"),
	INTK(commitlog_sync_period_in_ms, "10000", 1, 86400000, "periodic mode's fsync interval"),
	INTK(commitlog_sync_batch_window_in_ms, "1", 0, 10000,
		 "batch mode: how long a sync waits to gather more writes"),
	ENUMK(partitioner, "RandomPartitioner", partitioners, "org.apache.cassandra.dht.", false,
		  "how keys map to tokens; cannot change once data exists"),
	INTK(concurrent_reads, "8", 2, 1024, "reads run at once"),
	INTK(concurrent_writes, "32", 2, 1024, "writes run at once"),
	INTK(memtable_throughput_in_mb, "0", 0, 1 << 20,
		 "flush a memtable past this size, for every CF (0: each CF's own setting)"),
	{"memtable_operations_in_millions", CFG_DOUBLE, OFF(memtable_operations_in_millions), "0",
		0, 1000000000, NULL, NULL, false, NULL,
	"flush a memtable past this many operations, for every CF (0: each CF's own)"},
	INTK(memtable_flush_after_mins, "60", 1, 525600, "default of new CFs: flush after this age"),
	INTK(column_index_size_in_kb, "64", 1, 16384, "granularity of the column index within a row"),
	INTK(block_cache_size_in_mb, "64", 1, 1 << 20,
		 "decoded SSTable blocks kept in memory, for every CF together"),
	INTK(min_compaction_threshold, "4", 0, 1000000,
		 "default of new CFs: fewest SSTables compacted together (0: no compaction)"),
	INTK(max_compaction_threshold, "32", 0, 1000000,
		 "default of new CFs: most SSTables compacted together (0: no compaction)"),

	ENUMK(log_level, "info", log_levels, NULL, true, "least severe level logged"),
	OPTK(pid_file, "file to write colfamd's process id to (empty: none)"),
	{.name = NULL},
};

/* Keys of Cassandra 0.7's (and 0.8's) cassandra.yaml that colfamd accepts and ignores. */
static const char *const ignored_keys[] = {
	"hinted_handoff_enabled", "max_hint_window_in_ms", "hinted_handoff_throttle_delay_in_ms",
	"saved_caches_directory", "commitlog_rotation_threshold_in_mb", "disk_access_mode",
	"sliced_buffer_size_in_kb", "flush_data_buffer_size_in_mb",
	"flush_index_buffer_size_in_mb", "binary_memtable_throughput_in_mb",
	"in_memory_compaction_limit_in_mb", "compaction_thread_priority",
	"compaction_preheat_key_cache", "index_interval", "endpoint_snitch", "dynamic_snitch",
	"dynamic_snitch_update_interval_in_ms", "dynamic_snitch_reset_interval_in_ms",
	"dynamic_snitch_badness_threshold", "request_scheduler", "request_scheduler_options",
	"request_scheduler_id", "phi_convict_threshold", "encryption_options",
	"memtable_flush_writers", "memtable_flush_queue_size", "rpc_min_threads",
	"rpc_max_threads", "reduce_cache_sizes_at", "reduce_cache_capacity_to",
	"flush_largest_memtables_at", "compaction_throughput_mb_per_sec", "rpc_server_type",
	"concurrent_compactors", "incremental_backups", "snapshot_before_compaction",
	"thrift_framed_transport", NULL,
};

const cfg_key *
cfg_key_find(const char *name)
{
	for (const cfg_key *k = cfg_keys; k->name; k++)
		if (strcmp(k->name, name) == 0)
			return k;
	return NULL;
}

bool
cfg_key_ignored(const char *name)
{
	for (int i = 0; ignored_keys[i]; i++)
		if (strcmp(ignored_keys[i], name) == 0)
			return true;
	return false;
}

/* ---- notes and small helpers ---- */

cf_status *
cfg_note(cf_config *cfg, cf_log_level level, const char *fmt,...)
{
	va_list		ap;
	char		buf[1024];
	cf_config_note *n;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	n = realloc(cfg->notes, (cfg->n_notes + 1) * sizeof(*n));
	if (n == NULL)
		return cf_status_make(CF_ERR_NO_MEMORY, "configuration: out of memory");
	cfg->notes = n;
	n[cfg->n_notes].level = level;
	if ((n[cfg->n_notes].text = strdup(buf)) == NULL)
		return cf_status_make(CF_ERR_NO_MEMORY, "configuration: out of memory");
	cfg->n_notes++;
	return NULL;
}

static void
strlist_clear(cf_strlist *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
	l->v = NULL;
	l->n = 0;
}

static char *
trim(char *s)
{
	char	   *e;

	while (isspace((unsigned char) *s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char) e[-1]))
		*--e = '\0';
	return s;
}

/* The valid values of a key, for messages and --help. */
void
cfg_key_valid(const cfg_key *k, char *out, size_t n)
{
	size_t		len = 0;

	switch (k->type)
	{
		case CFG_INT:
			snprintf(out, n, "an integer from %ld to %ld", k->min, k->max);
			break;
		case CFG_DOUBLE:
			snprintf(out, n, "a number from %ld to %ld", k->min, k->max);
			break;
		case CFG_BOOL:
			snprintf(out, n, "true or false (also yes/no, on/off)");
			break;
		case CFG_STR:
			snprintf(out, n, "a non-empty string");
			break;
		case CFG_OPTSTR:
			snprintf(out, n, "a string (empty: not set)");
			break;
		case CFG_LIST:
			snprintf(out, n, "a list of non-empty strings (a YAML sequence, or comma-separated)");
			break;
		case CFG_MODE:
			snprintf(out, n, "permission bits in octal, such as 0700 or 0770, with at least "
					 "%04lo set", k->min);
			break;
		case CFG_ENUM:
			out[0] = '\0';
			for (const cfg_enum *e = k->enums; e->name; e++)
				if (!e->alias)
					len += (size_t) snprintf(out + len, len < n ? n - len : 0, "%s%s",
											 e == k->enums ? "" : ", ", e->name);
			if (k->prefix && len < n)
				snprintf(out + len, n - len, " (also with the prefix %s)", k->prefix);
			break;
	}
}

static cf_status *
bad_value(const cfg_key *k, const char *value, const char *origin)
{
	char		valid[512];

	cfg_key_valid(k, valid, sizeof(valid));
	return cf_status_make(CF_ERR_INVALID, "%s: invalid value \"%.200s\" for %s; valid values: "
						  "%s%s%s", origin, value, k->name, valid, k->note ? " " : "",
						  k->note ? k->note : "");
}

static bool
parse_bool(const char *s, bool *out)
{
	static const char *const yes[] = {"true", "yes", "on", "1", NULL};
	static const char *const no[] = {"false", "no", "off", "0", NULL};

	for (int i = 0; yes[i]; i++)
		if (strcasecmp(s, yes[i]) == 0)
			return *out = true, true;
	for (int i = 0; no[i]; i++)
		if (strcasecmp(s, no[i]) == 0)
			return *out = false, true;
	return false;
}

static bool
parse_enum(const cfg_key *k, const char *s, int *out)
{
	size_t		plen = k->prefix ? strlen(k->prefix) : 0;

	if (plen && strncmp(s, k->prefix, plen) == 0)
		s += plen;
	for (const cfg_enum *e = k->enums; e->name; e++)
		if (k->icase ? strcasecmp(s, e->name) == 0 : strcmp(s, e->name) == 0)
		{
			*out = e->value;
			return true;
		}
	return false;
}

/* ---- setting keys ---- */

cf_status *
cfg_set_list(cf_config *cfg, const cfg_key *k, const char *const *items, size_t n,
			 const char *origin)
{
	cf_strlist *l = (cf_strlist *) ((char *) cfg + k->off);
	cf_strlist	nl = {0};

	if (n == 0)
		return cf_status_make(CF_ERR_INVALID, "%s: %s: the list is empty; valid values: at "
							  "least one entry", origin, k->name);
	for (size_t i = 0; i < n; i++)
		if (items[i][0] == '\0')
			return cf_status_make(CF_ERR_INVALID, "%s: %s: entry %zu of the list is empty",
								  origin, k->name, i + 1);
	nl.v = calloc(n, sizeof(char *));
	if (nl.v == NULL)
		return cf_status_make(CF_ERR_NO_MEMORY, "configuration: out of memory");
	for (nl.n = 0; nl.n < n; nl.n++)
		if ((nl.v[nl.n] = strdup(items[nl.n])) == NULL)
		{
			strlist_clear(&nl);
			return cf_status_make(CF_ERR_NO_MEMORY, "configuration: out of memory");
		}
	strlist_clear(l);
	*l = nl;
	return NULL;
}

/* A comma-separated list, each entry trimmed. */
static cf_status *
set_list_text(cf_config *cfg, const cfg_key *k, const char *value, const char *origin)
{
	char	   *copy = strdup(value);
	const char **items;
	size_t		n = 1;
	size_t		i = 0;
	cf_status  *s;

	if (copy == NULL)
		return cf_status_make(CF_ERR_NO_MEMORY, "configuration: out of memory");
	for (const char *p = value; *p; p++)
		n += *p == ',';
	items = calloc(n, sizeof(char *));
	if (items == NULL)
	{
		free(copy);
		return cf_status_make(CF_ERR_NO_MEMORY, "configuration: out of memory");
	}
	/* strsep, not strtok: "a,,b" must show its empty entry */
	for (char *p = copy, *tok; (tok = strsep(&p, ",")) != NULL;)
		items[i++] = trim(tok);
	s = cfg_set_list(cfg, k, items, i, origin);
	free(items);
	free(copy);
	return s;
}

cf_status *
cfg_set_text(cf_config *cfg, const cfg_key *k, const char *value, const char *origin)
{
	void	   *field = (char *) cfg + k->off;

	/* empty: the default (the YAML rule for "key:" and the command line's --key "") */
	if (value[0] == '\0' && k->def[0] != '\0')
		value = k->def;
	switch (k->type)
	{
		case CFG_INT:
			{
				char	   *end;
				long		v;

				errno = 0;
				v = strtol(value, &end, 10);
				if (errno || end == value || *trim(end) != '\0' || v < k->min || v > k->max)
					return bad_value(k, value, origin);
				*(int *) field = (int) v;
				return NULL;
			}
		case CFG_DOUBLE:
			{
				char	   *end;
				double		v;

				errno = 0;
				v = strtod(value, &end);
				if (errno || end == value || *trim(end) != '\0' || !isfinite(v) ||
					v < (double) k->min || v > (double) k->max)
					return bad_value(k, value, origin);
				*(double *) field = v;
				return NULL;
			}
		case CFG_BOOL:
			if (!parse_bool(value, (bool *) field))
				return bad_value(k, value, origin);
			return NULL;
		case CFG_MODE:
			{
				char	   *end;
				long		v;

				/*
				 * octal whatever the leading digit: "700" is chmod's 700, not 0x2bc; no
				 * sign, even after spaces (strtol takes " -100" as a negative number)
				 */
				errno = 0;
				v = strtol(value, &end, 8);
				if (errno || end == value || *trim(end) != '\0' ||
					!isdigit((unsigned char) value[strspn(value, " \t")]) ||
					v > k->max || (v & k->min) != k->min)
					return bad_value(k, value, origin);
				*(int *) field = (int) v;
				return NULL;
			}
		case CFG_ENUM:
			if (!parse_enum(k, value, (int *) field))
				return bad_value(k, value, origin);
			return NULL;
		case CFG_STR:
		case CFG_OPTSTR:
			{
				char	  **sp = field;
				char	   *copy = NULL;

				if (value[0] != '\0' && (copy = strdup(value)) == NULL)
					return cf_status_make(CF_ERR_NO_MEMORY, "configuration: out of memory");
				free(*sp);
				*sp = copy;
				return NULL;
			}
		case CFG_LIST:
			return set_list_text(cfg, k, value, origin);
	}
	return cf_status_make(CF_ERR_INTERNAL, "configuration: key %s has no type", k->name);
}

cf_status *
cf_config_set(cf_config *cfg, const char *key, const char *value, const char *origin)
{
	const cfg_key *k = cfg_key_find(key);

	if (k == NULL)
	{
		const char *hint = cf_config_suggest(key);

		return cf_status_make(CF_ERR_NOT_FOUND, "%s: unknown key \"%s\"%s%s%s", origin, key,
							  hint ? "; did you mean \"" : "", hint ? hint : "",
							  hint ? "\"?" : "");
	}
	return cfg_set_text(cfg, k, value, origin);
}

cf_status *
cf_config_init(cf_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	for (const cfg_key *k = cfg_keys; k->name; k++)
	{
		cf_status  *s = cfg_set_text(cfg, k, k->def, "default");

		if (s != NULL)
		{
			cf_config_free(cfg);
			return s;
		}
	}
	if ((cfg->source = strdup("")) == NULL)
	{
		cf_config_free(cfg);
		return cf_status_make(CF_ERR_NO_MEMORY, "configuration: out of memory");
	}
	return NULL;
}

void
cf_config_free(cf_config *cfg)
{
	for (const cfg_key *k = cfg_keys; k->name; k++)
	{
		void	   *field = (char *) cfg + k->off;

		if (k->type == CFG_STR || k->type == CFG_OPTSTR)
		{
			free(*(char **) field);
			*(char **) field = NULL;
		}
		else if (k->type == CFG_LIST)
			strlist_clear(field);
	}
	for (size_t i = 0; i < cfg->n_notes; i++)
		free(cfg->notes[i].text);
	free(cfg->notes);
	cfg->notes = NULL;
	cfg->n_notes = 0;
	free(cfg->source);
	cfg->source = NULL;
}

/* ---- whole-config checks ---- */

static cf_status *
check_readable(const char *key, const char *path)
{
	if (access(path, R_OK) != 0)
	{
		int			err = errno;

		return cf_status_make(CF_ERR_INVALID, "%s: cannot read \"%s\": %s", key, path,
							  strerror(err));
	}
	return NULL;
}

/*
 * rpc_unix_socket: absolute (clients tell a socket path from a host name by its '/'),
 * short enough for sun_path, in a directory that exists and colfamd may create it in.
 */
static cf_status *
check_unix_socket(const char *path)
{
	struct sockaddr_un sa;
	socklen_t	salen;
	char	   *dir;
	char	   *slash;
	struct stat st;
	cf_status  *s = NULL;

	if (path[0] != '/')
		return cf_status_make(CF_ERR_INVALID, "rpc_unix_socket \"%.200s\" must be an absolute "
							  "path: clients tell a socket from a host name by its leading '/'",
							  path);
	if (path[strlen(path) - 1] == '/')
		return cf_status_make(CF_ERR_INVALID, "rpc_unix_socket \"%.200s\" names a directory; "
							  "name the socket file in it, such as %scolfamd.sock", path, path);
	if ((s = cf_unix_sockaddr(path, &sa, &salen)) != NULL)
		return cf_status_wrap(s, "rpc_unix_socket");
	if ((dir = strdup(path)) == NULL)
		return cf_status_make(CF_ERR_NO_MEMORY, "configuration: out of memory");
	slash = strrchr(dir, '/');
	slash[slash == dir ? 1 : 0] = '\0';
	if (stat(dir, &st) != 0)
		s = cf_status_make(CF_ERR_INVALID, "rpc_unix_socket \"%.200s\": its directory %s: %s "
						   "(create it first, or choose another path)", path, dir,
						   strerror(errno));
	else if (!S_ISDIR(st.st_mode))
		s = cf_status_make(CF_ERR_INVALID, "rpc_unix_socket \"%.200s\": %s is not a directory",
						   path, dir);
	else if (access(dir, W_OK | X_OK) != 0)
		s = cf_status_make(CF_ERR_INVALID, "rpc_unix_socket \"%.200s\": colfamd may not create "
						   "files in %s (%s); choose a directory it owns, such as its data "
						   "directory's parent or /tmp", path, dir, strerror(errno));
	free(dir);
	return s;
}

cf_status *
cf_config_validate(const cf_config *cfg)
{
	cf_status  *s;

	if (cfg->thrift_max_message_length_in_mb < cfg->thrift_framed_transport_size_in_mb)
		return cf_status_make(CF_ERR_INVALID, "thrift_max_message_length_in_mb (%d) must be "
							  "at least thrift_framed_transport_size_in_mb (%d): a frame holds "
							  "one message", cfg->thrift_max_message_length_in_mb,
							  cfg->thrift_framed_transport_size_in_mb);
	if (cfg->min_compaction_threshold != 0 && cfg->max_compaction_threshold != 0 &&
		(cfg->min_compaction_threshold < 2 ||
		 cfg->min_compaction_threshold > cfg->max_compaction_threshold))
		return cf_status_make(CF_ERR_INVALID, "compaction thresholds need 2 <= "
							  "min_compaction_threshold <= max_compaction_threshold (or 0 to "
							  "disable compaction), got min_compaction_threshold %d and "
							  "max_compaction_threshold %d", cfg->min_compaction_threshold,
							  cfg->max_compaction_threshold);
	if (cfg->authenticator == CF_AUTHENTICATOR_SIMPLE && cfg->auth_passwd_file == NULL)
		return cf_status_make(CF_ERR_INVALID, "authenticator SimpleAuthenticator needs "
							  "auth_passwd_file (a passwd.properties file of user=password "
							  "lines)");
	if (cfg->authority == CF_AUTHORITY_SIMPLE && cfg->auth_access_file == NULL)
		return cf_status_make(CF_ERR_INVALID, "authority SimpleAuthority needs "
							  "auth_access_file (an access.properties file)");
	if (cfg->auth_passwd_file && (s = check_readable("auth_passwd_file", cfg->auth_passwd_file)))
		return s;
	if (cfg->rpc_unix_socket && (s = check_unix_socket(cfg->rpc_unix_socket)) != NULL)
		return s;
	if (cfg->rpc_io_cpus)
	{
		int		   *cpus;
		size_t		n;

		if ((s = cf_cpu_list_parse(cfg->rpc_io_cpus, &cpus, &n)) != NULL)
			return cf_status_wrap(s, "rpc_io_cpus");
		free(cpus);
	}
	if (cfg->auth_access_file && (s = check_readable("auth_access_file", cfg->auth_access_file)))
		return s;
	if (cfg->initial_token)
	{
		cf_buf		tok = CF_BUF_INIT;

		s = cf_token_from_string(cfg->partitioner, cf_slice_str(cfg->initial_token), &tok);
		cf_buf_free(&tok);
		if (s)
			return cf_status_wrap(s, "initial_token \"%.200s\" is not a token of %s",
								  cfg->initial_token, cf_partitioner_name(cfg->partitioner));
	}
	return NULL;
}

/* ---- writing ---- */

static void
write_quoted(FILE *out, const char *s)
{
	fputc('"', out);
	for (; *s; s++)
	{
		unsigned char c = (unsigned char) *s;

		if (c == '"' || c == '\\')
			fprintf(out, "\\%c", c);
		else if (c < 0x20 || c == 0x7f)
			fprintf(out, "\\x%02x", c);
		else
			fputc(c, out);
	}
	fputc('"', out);
}

static const char *
enum_name(const cfg_key *k, int v)
{
	for (const cfg_enum *e = k->enums; e->name; e++)
		if (e->value == v)
			return e->name;
	return "?";
}

void
cf_config_write(const cf_config *cfg, FILE *out)
{
	for (const cfg_key *k = cfg_keys; k->name; k++)
	{
		const void *field = (const char *) cfg + k->off;

		fprintf(out, "%s:", k->name);
		switch (k->type)
		{
			case CFG_INT:
				fprintf(out, " %d", *(const int *) field);
				break;
			case CFG_DOUBLE:
				fprintf(out, " %.17g", *(const double *) field);
				break;
			case CFG_BOOL:
				fprintf(out, " %s", *(const bool *) field ? "true" : "false");
				break;
			case CFG_ENUM:
				fprintf(out, " %s%s", k->prefix ? k->prefix : "",
						enum_name(k, *(const int *) field));
				break;
			case CFG_MODE:
				fprintf(out, " \"%04o\"", (unsigned) *(const int *) field);
				break;
			case CFG_STR:
			case CFG_OPTSTR:
				if (*(char *const *) field)
				{
					fputc(' ', out);
					write_quoted(out, *(char *const *) field);
				}
				break;
			case CFG_LIST:
				{
					const cf_strlist *l = field;

					fputs(" [", out);
					for (size_t i = 0; i < l->n; i++)
					{
						if (i)
							fputs(", ", out);
						write_quoted(out, l->v[i]);
					}
					fputc(']', out);
				}
				break;
		}
		fputc('\n', out);
	}
}

void
cf_config_print_keys(FILE *out)
{
	for (const cfg_key *k = cfg_keys; k->name; k++)
	{
		char		valid[512];

		cfg_key_valid(k, valid, sizeof(valid));
		fprintf(out, "  --%s VALUE\n      %s.\n      default: %s; %s\n", k->name, k->help,
				k->def[0] ? k->def : "(not set)", valid);
	}
}

/* ---- typo hints ---- */

/* Optimal string alignment distance: edits, with a transposition counting one. */
static size_t
edit_distance(const char *a, const char *b)
{
	size_t		la = strlen(a);
	size_t		lb = strlen(b);
	size_t		d[3][64];		/* rows i-2, i-1, i, for names under 64 bytes */

	if (la >= 63 || lb >= 63)
		return SIZE_MAX;
	for (size_t j = 0; j <= lb; j++)
		d[0][j] = j;
	for (size_t i = 1; i <= la; i++)
	{
		size_t	   *prev2 = d[(i + 1) % 3];
		size_t	   *prev = d[(i - 1) % 3];
		size_t	   *cur = d[i % 3];

		cur[0] = i;
		for (size_t j = 1; j <= lb; j++)
		{
			size_t		cost = a[i - 1] == b[j - 1] ? 0 : 1;
			size_t		v = prev[j] + 1;

			if (cur[j - 1] + 1 < v)
				v = cur[j - 1] + 1;
			if (prev[j - 1] + cost < v)
				v = prev[j - 1] + cost;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
				prev2[j - 2] + 1 < v)
				v = prev2[j - 2] + 1;
			cur[j] = v;
		}
	}
	return d[la % 3][lb];
}

const char *
cf_config_suggest(const char *name)
{
	const char *best = NULL;
	size_t		best_d = SIZE_MAX;
	size_t		len = strlen(name);
	size_t		limit = len / 3 > 2 ? len / 3 : 2;

	for (const cfg_key *k = cfg_keys; k->name; k++)
	{
		size_t		d = edit_distance(name, k->name);

		/* a long enough start of a key is a near miss whatever is cut off */
		if (len >= 6 && strncmp(name, k->name, len) == 0 && d > 1)
			d = 1;
		if (d < best_d)
		{
			best_d = d;
			best = k->name;
		}
	}
	return best_d <= limit ? best : NULL;
}

/* ---- the options of the other parts ---- */

void
cf_config_db_options(const cf_config *cfg, cf_env *env, cf_db_options *o)
{
	memset(o, 0, sizeof(*o));
	o->env = env;
	o->data_dir = cfg->data_file_directories.v[0];
	o->commitlog_dir = cfg->commitlog_directory;
	o->partitioner = cfg->partitioner;
	o->sync_mode = cfg->commitlog_sync;
	o->sync_period_us = (int64_t) cfg->commitlog_sync_period_in_ms * 1000;
	o->batch_window_us = (int64_t) cfg->commitlog_sync_batch_window_in_ms * 1000;
	o->memtable_max_bytes = (size_t) cfg->memtable_throughput_in_mb << 20;
	o->memtable_max_ops = (uint64_t) llround(cfg->memtable_operations_in_millions * 1e6);
	o->block_cache_bytes = (size_t) cfg->block_cache_size_in_mb << 20;
	o->background_compaction = true;
}

void
cf_config_server_options(const cf_config *cfg, cf_server_options *o)
{
	memset(o, 0, sizeof(*o));
	o->address = cfg->rpc_address;
	o->port = (uint16_t) cfg->rpc_port;
	o->io_threads = (unsigned) cfg->rpc_io_threads;
	o->worker_threads = cfg->rpc_worker_threads ? (unsigned) cfg->rpc_worker_threads :
		(unsigned) (cfg->concurrent_reads + cfg->concurrent_writes);
	o->max_frame = (size_t) cfg->thrift_framed_transport_size_in_mb << 20;
	o->max_connections = (unsigned) cfg->rpc_max_connections;
	o->conn_buffer_limit = (size_t) cfg->rpc_connection_buffer_in_kb << 10;
	o->keepalive = cfg->rpc_keepalive;
	o->send_buffer = cfg->rpc_send_buff_size_in_bytes;
	o->recv_buffer = cfg->rpc_recv_buff_size_in_bytes;
	o->unix_path = cfg->rpc_unix_socket;
	o->unix_mode = (unsigned) cfg->rpc_unix_socket_mode;
	o->io_cpus = cfg->rpc_io_cpus;
}
