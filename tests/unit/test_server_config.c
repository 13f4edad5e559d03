/*
 * tests/unit/test_server_config.c — server/config: defaults, every key from YAML and
 * from the command line, bad values, unknown keys, the command line over the file,
 * whole-config checks, and the mapping onto the db's and the server's options.
 */
#include "support/cmocka_prelude.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "server/config.h"
#include "support/envtest.h"
#include "support/tmpdir.h"

/* Fails unless s is an error whose message holds every needle (NULL-terminated). */
static void
expect_error(cf_status *s, cf_code code, const char *const *needles)
{
	if (s == NULL)
		fail_msg("expected an error");
	if (cf_status_code(s) != code)
		fail_msg("code %s, wanted %s: %s", cf_code_name(cf_status_code(s)),
				 cf_code_name(code), cf_status_msg(s));
	for (int i = 0; needles[i]; i++)
		if (strstr(cf_status_msg(s), needles[i]) == NULL)
			fail_msg("message \"%s\" lacks \"%s\"", cf_status_msg(s), needles[i]);
	cf_status_free(s);
}

#define EXPECT_ERROR(expr, code, ...) \
	do { \
		const char *const needles_[] = {__VA_ARGS__, NULL}; \
		expect_error((expr), (code), needles_); \
	} while (0)

/* The note (level, containing needle), or fail. */
static void
expect_note(const cf_config *cfg, cf_log_level level, const char *needle)
{
	for (size_t i = 0; i < cfg->n_notes; i++)
		if (cfg->notes[i].level == level && strstr(cfg->notes[i].text, needle))
			return;
	for (size_t i = 0; i < cfg->n_notes; i++)
		print_message("note: %s\n", cfg->notes[i].text);
	fail_msg("no %s note with \"%s\"", cf_log_level_name(level), needle);
}

/* cf_config_write's output, malloc'd. */
static char *
written(const cf_config *cfg)
{
	char	   *buf = NULL;
	size_t		len = 0;
	FILE	   *f = open_memstream(&buf, &len);

	assert_non_null(f);
	cf_config_write(cfg, f);
	fclose(f);
	return buf;
}

static void
defaults(void **state)
{
	cf_config	c;

	(void) state;
	OK(cf_config_init(&c));
	assert_string_equal(c.cluster_name, "Test Cluster");
	assert_string_equal(c.listen_address, "127.0.0.1");
	assert_int_equal(c.storage_port, 7000);
	assert_int_equal(c.seeds.n, 1);
	assert_string_equal(c.seeds.v[0], "127.0.0.1");
	assert_null(c.initial_token);
	assert_false(c.auto_bootstrap);
	assert_string_equal(c.rpc_address, "127.0.0.1");
	assert_int_equal(c.rpc_port, 9160);
	assert_true(c.rpc_keepalive);
	assert_int_equal(c.rpc_send_buff_size_in_bytes, 0);
	assert_int_equal(c.rpc_recv_buff_size_in_bytes, 0);
	assert_int_equal(c.rpc_max_connections, 1024);
	assert_int_equal(c.rpc_io_threads, 0);
	assert_int_equal(c.rpc_worker_threads, 0);
	assert_int_equal(c.rpc_connection_buffer_in_kb, 4096);
	assert_int_equal(c.rpc_timeout_in_ms, 10000);
	assert_int_equal(c.thrift_framed_transport_size_in_mb, 15);
	assert_int_equal(c.thrift_max_message_length_in_mb, 16);
	assert_int_equal(c.shutdown_timeout_in_ms, 5000);
	assert_int_equal(c.authenticator, CF_AUTHENTICATOR_ALLOW_ALL);
	assert_int_equal(c.authority, CF_AUTHORITY_ALLOW_ALL);
	assert_null(c.auth_passwd_file);
	assert_null(c.auth_access_file);
	assert_int_equal(c.data_file_directories.n, 1);
	assert_string_equal(c.data_file_directories.v[0], "./var/data");
	assert_string_equal(c.commitlog_directory, "./var/commitlog");
	assert_int_equal(c.commitlog_sync, CF_COMMITLOG_PERIODIC);
	assert_int_equal(c.commitlog_sync_period_in_ms, 10000);
	assert_int_equal(c.commitlog_sync_batch_window_in_ms, 1);
	assert_int_equal(c.partitioner, CF_PARTITIONER_RANDOM);
	assert_int_equal(c.concurrent_reads, 8);
	assert_int_equal(c.concurrent_writes, 32);
	assert_int_equal(c.memtable_throughput_in_mb, 0);
	assert_true(c.memtable_operations_in_millions == 0.0);
	assert_int_equal(c.memtable_flush_after_mins, 60);
	assert_int_equal(c.column_index_size_in_kb, 64);
	assert_int_equal(c.block_cache_size_in_mb, 64);
	assert_int_equal(c.min_compaction_threshold, 4);
	assert_int_equal(c.max_compaction_threshold, 32);
	assert_int_equal(c.log_level, CF_LOG_INFO);
	assert_null(c.pid_file);
	assert_string_equal(c.source, "");
	assert_int_equal(c.n_notes, 0);
	OK(cf_config_validate(&c));
	cf_config_free(&c);
}

/* A file setting every key away from its default. */
static const char every_key_yaml[] =
	"# every key, none at its default\n"
	"cluster_name: 'Prod Cluster'\n"
	"listen_address: 10.0.0.1\n"
	"storage_port: 7001\n"
	"seeds:\n"
	"  - 10.0.0.1\n"
	"  - 10.0.0.2\n"
	"initial_token: 0a0b\n"
	"auto_bootstrap: true\n"
	"rpc_address: 0.0.0.0\n"
	"rpc_port: 9161\n"
	"rpc_keepalive: false\n"
	"rpc_send_buff_size_in_bytes: 65536\n"
	"rpc_recv_buff_size_in_bytes: 131072\n"
	"rpc_max_connections: 50\n"
	"rpc_io_threads: 3\n"
	"rpc_io_cpus: auto\n"
	"rpc_worker_threads: 7\n"
	"rpc_connection_buffer_in_kb: 128\n"
	"rpc_timeout_in_ms: 2500\n"
	"thrift_framed_transport_size_in_mb: 4\n"
	"thrift_max_message_length_in_mb: 5\n"
	"shutdown_timeout_in_ms: 1234\n"
	"authenticator: org.apache.cassandra.auth.SimpleAuthenticator\n"
	"authority: SimpleAuthority\n"
	"auth_passwd_file: /dev/null\n"
	"auth_access_file: /dev/zero\n"
	"data_file_directories: [/srv/a, /srv/b]\n"
	"commitlog_directory: /srv/log\n"
	"commitlog_sync: batch\n"
	"commitlog_sync_period_in_ms: 777\n"
	"commitlog_sync_batch_window_in_ms: 3\n"
	"partitioner: org.apache.cassandra.dht.ByteOrderedPartitioner\n"
	"concurrent_reads: 16\n"
	"concurrent_writes: 64\n"
	"memtable_throughput_in_mb: 128\n"
	"memtable_operations_in_millions: 0.5\n"
	"memtable_flush_after_mins: 30\n"
	"column_index_size_in_kb: 32\n"
	"block_cache_size_in_mb: 512\n"
	"min_compaction_threshold: 2\n"
	"max_compaction_threshold: 8\n"
	"log_level: WARN\n"
	"pid_file: /run/colfamd.pid\n";

static void
check_every_key(const cf_config *c)
{
	assert_string_equal(c->cluster_name, "Prod Cluster");
	assert_string_equal(c->listen_address, "10.0.0.1");
	assert_int_equal(c->storage_port, 7001);
	assert_int_equal(c->seeds.n, 2);
	assert_string_equal(c->seeds.v[0], "10.0.0.1");
	assert_string_equal(c->seeds.v[1], "10.0.0.2");
	assert_string_equal(c->initial_token, "0a0b");
	assert_true(c->auto_bootstrap);
	assert_string_equal(c->rpc_address, "0.0.0.0");
	assert_int_equal(c->rpc_port, 9161);
	assert_false(c->rpc_keepalive);
	assert_int_equal(c->rpc_send_buff_size_in_bytes, 65536);
	assert_int_equal(c->rpc_recv_buff_size_in_bytes, 131072);
	assert_int_equal(c->rpc_max_connections, 50);
	assert_int_equal(c->rpc_io_threads, 3);
	assert_string_equal(c->rpc_io_cpus, "auto");
	assert_int_equal(c->rpc_worker_threads, 7);
	assert_int_equal(c->rpc_connection_buffer_in_kb, 128);
	assert_int_equal(c->rpc_timeout_in_ms, 2500);
	assert_int_equal(c->thrift_framed_transport_size_in_mb, 4);
	assert_int_equal(c->thrift_max_message_length_in_mb, 5);
	assert_int_equal(c->shutdown_timeout_in_ms, 1234);
	assert_int_equal(c->authenticator, CF_AUTHENTICATOR_SIMPLE);
	assert_int_equal(c->authority, CF_AUTHORITY_SIMPLE);
	assert_string_equal(c->auth_passwd_file, "/dev/null");
	assert_string_equal(c->auth_access_file, "/dev/zero");
	assert_int_equal(c->data_file_directories.n, 2);
	assert_string_equal(c->data_file_directories.v[0], "/srv/a");
	assert_string_equal(c->data_file_directories.v[1], "/srv/b");
	assert_string_equal(c->commitlog_directory, "/srv/log");
	assert_int_equal(c->commitlog_sync, CF_COMMITLOG_BATCH);
	assert_int_equal(c->commitlog_sync_period_in_ms, 777);
	assert_int_equal(c->commitlog_sync_batch_window_in_ms, 3);
	assert_int_equal(c->partitioner, CF_PARTITIONER_BYTE_ORDERED);
	assert_int_equal(c->concurrent_reads, 16);
	assert_int_equal(c->concurrent_writes, 64);
	assert_int_equal(c->memtable_throughput_in_mb, 128);
	assert_true(c->memtable_operations_in_millions == 0.5);
	assert_int_equal(c->memtable_flush_after_mins, 30);
	assert_int_equal(c->column_index_size_in_kb, 32);
	assert_int_equal(c->block_cache_size_in_mb, 512);
	assert_int_equal(c->min_compaction_threshold, 2);
	assert_int_equal(c->max_compaction_threshold, 8);
	assert_int_equal(c->log_level, CF_LOG_WARN);
	assert_string_equal(c->pid_file, "/run/colfamd.pid");
}

static void
every_key_from_yaml(void **state)
{
	cf_config	c;

	(void) state;
	OK(cf_config_init(&c));
	OK(cf_config_load_string(&c, every_key_yaml, "every.yaml"));
	check_every_key(&c);
	assert_string_equal(c.source, "every.yaml");
	if (c.n_notes)
		fail_msg("unexpected note: %s", c.notes[0].text);
	OK(cf_config_validate(&c));
	/* the token is checked under the partitioner in force */
	OK(cf_config_set(&c, "initial_token", "0a0", "test"));
	EXPECT_ERROR(cf_config_validate(&c), CF_ERR_INVALID, "initial_token \"0a0\"",
				 "ByteOrderedPartitioner");
	cf_config_free(&c);
}

/* Every key as --KEY VALUE, the same values as every_key_yaml. */
static void
every_key_from_command_line(void **state)
{
	char	   *argv[] = {
		"colfamd", "--cluster_name", "Prod Cluster", "--listen-address", "10.0.0.1",
		"--storage_port=7001", "--seeds", "10.0.0.1, 10.0.0.2",
		"--initial_token", "0a0b", "--auto_bootstrap", "yes",
		"--rpc_address", "0.0.0.0", "--rpc-port", "9161", "--rpc_keepalive=off",
		"--rpc_send_buff_size_in_bytes", "65536", "--rpc_recv_buff_size_in_bytes", "131072",
		"--rpc_max_connections", "50", "--rpc_io_threads", "3", "--rpc_io_cpus", "auto",
		"--rpc_worker_threads", "7",
		"--rpc_connection_buffer_in_kb", "128", "--rpc_timeout_in_ms", "2500",
		"--thrift_framed_transport_size_in_mb", "4", "--thrift_max_message_length_in_mb", "5",
		"--shutdown_timeout_in_ms", "1234",
		"--authenticator", "SimpleAuthenticator",
		"--authority", "org.apache.cassandra.auth.SimpleAuthority",
		"--auth_passwd_file", "/dev/null", "--auth_access_file", "/dev/zero",
		"--data_file_directories", "/srv/a,/srv/b", "--commitlog_directory", "/srv/log",
		"--commitlog_sync", "BATCH", "--commitlog_sync_period_in_ms", "777",
		"--commitlog_sync_batch_window_in_ms", "3", "--partitioner", "ByteOrderedPartitioner",
		"--concurrent_reads", "16", "--concurrent_writes", "64",
		"--memtable_throughput_in_mb", "128", "--memtable_operations_in_millions", "0.5",
		"--memtable_flush_after_mins", "30", "--column_index_size_in_kb", "32",
		"--block-cache-size-in-mb", "512",
		"--min_compaction_threshold", "2", "--max_compaction_threshold", "8",
		"-l", "warning", "--pid-file", "/run/colfamd.pid", NULL,
	};
	int			argc = (int) (sizeof(argv) / sizeof(argv[0])) - 1;
	cf_config_args a;
	cf_config	c;
	cf_config	y;
	char	   *w1;
	char	   *w2;

	(void) state;
	OK(cf_config_parse_args(argc, argv, &a));
	assert_null(a.config_path);
	assert_false(a.help || a.version || a.check);
	OK(cf_config_init(&c));
	OK(cf_config_apply_args(&c, &a));
	check_every_key(&c);

	/* the same settings as the file, to the byte */
	OK(cf_config_init(&y));
	OK(cf_config_load_string(&y, every_key_yaml, "every.yaml"));
	w1 = written(&c);
	w2 = written(&y);
	assert_string_equal(w1, w2);
	free(w1);
	free(w2);
	cf_config_free(&y);
	cf_config_free(&c);
	cf_config_args_free(&a);
}

/* What cf_config_write prints reads back to the same configuration. */
static void
written_config_reads_back(void **state)
{
	cf_config	c;
	cf_config	d;
	char	   *w1;
	char	   *w2;

	(void) state;
	OK(cf_config_init(&c));
	OK(cf_config_load_string(&c, every_key_yaml, "every.yaml"));
	OK(cf_config_set(&c, "cluster_name", "quote \" and \\ and \t tab", "test"));
	w1 = written(&c);
	OK(cf_config_init(&d));
	OK(cf_config_load_string(&d, w1, "written"));
	w2 = written(&d);
	assert_string_equal(w1, w2);
	assert_string_equal(d.cluster_name, "quote \" and \\ and \t tab");
	OK(cf_config_set(&d, "cluster_name", "Prod Cluster", "test"));
	check_every_key(&d);
	free(w1);
	free(w2);
	cf_config_free(&c);
	cf_config_free(&d);
}

static void
empty_values_restore_defaults(void **state)
{
	cf_config	c;

	(void) state;
	OK(cf_config_init(&c));
	OK(cf_config_load_string(&c, "rpc_port: 9999\npid_file: /x.pid\nseeds: [a]\n", "a.yaml"));
	OK(cf_config_load_string(&c, "rpc_port:\npid_file: ~\nseeds: null\ninitial_token:\n",
							 "b.yaml"));
	assert_int_equal(c.rpc_port, 9160);
	assert_null(c.pid_file);
	assert_int_equal(c.seeds.n, 1);
	assert_string_equal(c.seeds.v[0], "127.0.0.1");
	OK(cf_config_set(&c, "rpc_port", "9999", "test"));
	OK(cf_config_set(&c, "rpc_port", "", "test"));
	assert_int_equal(c.rpc_port, 9160);
	/* an empty file, or one of comments only: the defaults */
	OK(cf_config_load_string(&c, "", "empty.yaml"));
	OK(cf_config_load_string(&c, "# nothing\n", "comments.yaml"));
	assert_int_equal(c.rpc_port, 9160);
	cf_config_free(&c);
}

static void
bad_values_name_key_value_and_valid_values(void **state)
{
	cf_config	c;

	(void) state;
	OK(cf_config_init(&c));
	EXPECT_ERROR(cf_config_load_string(&c, "cluster_name: x\nrpc_port: abc\n", "c.yaml"),
				 CF_ERR_INVALID, "c.yaml:2", "rpc_port", "\"abc\"", "an integer from 1 to 65535");
	EXPECT_ERROR(cf_config_load_string(&c, "rpc_port: 70000\n", "c.yaml"),
				 CF_ERR_INVALID, "c.yaml:1", "rpc_port", "\"70000\"", "from 1 to 65535");
	EXPECT_ERROR(cf_config_load_string(&c, "block_cache_size_in_mb: 0\n", "c.yaml"),
				 CF_ERR_INVALID, "block_cache_size_in_mb", "\"0\"", "from 1 to 1048576");
	EXPECT_ERROR(cf_config_load_string(&c, "rpc_port: 9160x\n", "c.yaml"),
				 CF_ERR_INVALID, "\"9160x\"");
	EXPECT_ERROR(cf_config_load_string(&c, "rpc_keepalive: maybe\n", "c.yaml"),
				 CF_ERR_INVALID, "rpc_keepalive", "\"maybe\"", "true or false");
	EXPECT_ERROR(cf_config_load_string(&c, "partitioner: Murmur3Partitioner\n", "c.yaml"),
				 CF_ERR_INVALID, "partitioner", "\"Murmur3Partitioner\"",
				 "RandomPartitioner, ByteOrderedPartitioner, OrderPreservingPartitioner, "
				 "CollatingOrderPreservingPartitioner", "org.apache.cassandra.dht.");
	/* class names compare with case, as Cassandra's do */
	EXPECT_ERROR(cf_config_load_string(&c, "partitioner: randompartitioner\n", "c.yaml"),
				 CF_ERR_INVALID, "partitioner");
	EXPECT_ERROR(cf_config_load_string(&c, "commitlog_sync: sometimes\n", "c.yaml"),
				 CF_ERR_INVALID, "commitlog_sync", "\"sometimes\"", "periodic, batch");
	EXPECT_ERROR(cf_config_load_string(&c, "authenticator: LdapAuthenticator\n", "c.yaml"),
				 CF_ERR_INVALID, "authenticator", "AllowAllAuthenticator, SimpleAuthenticator");
	EXPECT_ERROR(cf_config_load_string(&c, "authority: Root\n", "c.yaml"),
				 CF_ERR_INVALID, "authority", "AllowAllAuthority, SimpleAuthority");
	EXPECT_ERROR(cf_config_load_string(&c, "log_level: loud\n", "c.yaml"),
				 CF_ERR_INVALID, "log_level", "debug, info, warn, error, off");
	EXPECT_ERROR(cf_config_load_string(&c, "memtable_operations_in_millions: lots\n", "c.yaml"),
				 CF_ERR_INVALID, "memtable_operations_in_millions", "a number from 0");
	EXPECT_ERROR(cf_config_load_string(&c, "memtable_operations_in_millions: -1\n", "c.yaml"),
				 CF_ERR_INVALID, "\"-1\"");
	EXPECT_ERROR(cf_config_load_string(&c, "concurrent_reads: 1\n", "c.yaml"),
				 CF_ERR_INVALID, "concurrent_reads", "from 2 to 1024");
	EXPECT_ERROR(cf_config_load_string(&c, "thrift_framed_transport_size_in_mb: 0\n", "c.yaml"),
				 CF_ERR_INVALID, "thrift_framed_transport_size_in_mb", "\"0\"",
				 "TFramedTransport only");
	EXPECT_ERROR(cf_config_load_string(&c, "seeds: 'a,,b'\n", "c.yaml"),
				 CF_ERR_INVALID, "seeds", "entry 2 of the list is empty");
	EXPECT_ERROR(cf_config_load_string(&c, "data_file_directories: []\n", "c.yaml"),
				 CF_ERR_INVALID, "data_file_directories", "the list is empty");
	EXPECT_ERROR(cf_config_load_string(&c, "seeds:\n  - [a, b]\n", "c.yaml"),
				 CF_ERR_INVALID, "c.yaml:2", "entry 1 of the list is a list");
	EXPECT_ERROR(cf_config_load_string(&c, "rpc_port: [1, 2]\n", "c.yaml"),
				 CF_ERR_INVALID, "rpc_port", "expected a single value, got a list");
	EXPECT_ERROR(cf_config_load_string(&c, "cluster_name:\n  a: b\n", "c.yaml"),
				 CF_ERR_INVALID, "cluster_name", "got a mapping");
	EXPECT_ERROR(cf_config_set(&c, "rpc_max_connections", "0", "command line"),
				 CF_ERR_INVALID, "command line", "rpc_max_connections", "\"0\"");
	cf_config_free(&c);
}

static void
yaml_that_does_not_parse(void **state)
{
	cf_config	c;

	(void) state;
	OK(cf_config_init(&c));
	EXPECT_ERROR(cf_config_load_string(&c, "rpc_port: 9160\nseeds: [a, b\n", "bad.yaml"),
				 CF_ERR_INVALID, "bad.yaml:", "not valid YAML");
	EXPECT_ERROR(cf_config_load_string(&c, "- a\n- b\n", "list.yaml"),
				 CF_ERR_INVALID, "list.yaml:1", "expected a mapping", "got a list");
	EXPECT_ERROR(cf_config_load_string(&c, "[a]: 1\n", "key.yaml"),
				 CF_ERR_INVALID, "key.yaml:1", "a key must be a name");
	cf_config_free(&c);
}

static void
unknown_keys_warn_with_a_hint(void **state)
{
	cf_config	c;

	(void) state;
	OK(cf_config_init(&c));
	OK(cf_config_load_string(&c,
							 "rpc_prot: 9161\n"
							 "concurent_reads: 4\n"
							 "frobnicate: 1\n"
							 "endpoint_snitch: org.apache.cassandra.locator.SimpleSnitch\n"
							 "keyspaces:\n  - name: Keyspace1\n"
							 "rpc_port: 9200\n"
							 "rpc_port: 9300\n", "u.yaml"));
	expect_note(&c, CF_LOG_WARN, "u.yaml:1: unknown key \"rpc_prot\" (ignored); did you mean \"rpc_port\"?");
	expect_note(&c, CF_LOG_WARN, "u.yaml:2: unknown key \"concurent_reads\" (ignored); did you mean \"concurrent_reads\"?");
	expect_note(&c, CF_LOG_WARN, "u.yaml:3: unknown key \"frobnicate\" (ignored)");
	for (size_t i = 0; i < c.n_notes; i++)
		if (strstr(c.notes[i].text, "frobnicate") && strstr(c.notes[i].text, "did you mean"))
			fail_msg("a hint for a name like no key: %s", c.notes[i].text);
	expect_note(&c, CF_LOG_INFO, "u.yaml:4: endpoint_snitch (a Cassandra setting) has no effect");
	expect_note(&c, CF_LOG_INFO, "u.yaml:5: keyspaces in the configuration file are not loaded");
	expect_note(&c, CF_LOG_WARN, "rpc_port is set twice (lines 7 and 8)");
	assert_int_equal(c.rpc_port, 9300);
	assert_int_equal(c.concurrent_reads, 8);
	cf_config_free(&c);

	assert_string_equal(cf_config_suggest("rpc_prot"), "rpc_port");
	assert_string_equal(cf_config_suggest("commitlog_dir"), "commitlog_directory");
	assert_string_equal(cf_config_suggest("thrift_framed_transport_size_in_m"),
						"thrift_framed_transport_size_in_mb");
	assert_null(cf_config_suggest("xyz"));
	OK(cf_config_init(&c));
	EXPECT_ERROR(cf_config_set(&c, "rpc_prot", "1", "command line"), CF_ERR_NOT_FOUND,
				 "unknown key \"rpc_prot\"; did you mean \"rpc_port\"?");
	cf_config_free(&c);
}

static void
seed_provider_is_read_as_seeds(void **state)
{
	cf_config	c;

	(void) state;
	OK(cf_config_init(&c));
	OK(cf_config_load_string(&c,
							 "seed_provider:\n"
							 "  - class_name: org.apache.cassandra.locator.SimpleSeedProvider\n"
							 "    parameters:\n"
							 "      - seeds: \"127.0.0.2, 127.0.0.3\"\n", "sp.yaml"));
	assert_int_equal(c.seeds.n, 2);
	assert_string_equal(c.seeds.v[0], "127.0.0.2");
	assert_string_equal(c.seeds.v[1], "127.0.0.3");
	EXPECT_ERROR(cf_config_load_string(&c,
									   "seed_provider:\n"
									   "  - class_name: com.example.DnsSeeds\n"
									   "    parameters:\n      - seeds: a\n", "sp.yaml"),
				 CF_ERR_INVALID, "sp.yaml:2", "class_name", "com.example.DnsSeeds",
				 "SimpleSeedProvider");
	EXPECT_ERROR(cf_config_load_string(&c, "seed_provider: 127.0.0.1\n", "sp.yaml"),
				 CF_ERR_INVALID, "seed_provider", "or use seeds");
	cf_config_free(&c);
}

static void
command_line_wins_over_the_file(void **state)
{
	char	   *dir = test_tmpdir_new("cfgcli");
	const char *path = test_path(dir, "colfamd.yaml");
	FILE	   *f;
	cf_config_args a;
	cf_config	c;
	char	   *argv[] = {"colfamd", "--rpc-port=9161", "-c", (char *) path, "--pid_file", "",
		"--seeds", "x,y", "-l", "debug", "--check-config", NULL};

	(void) state;
	assert_non_null(dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("rpc_port: 9000\nrpc_address: 127.0.0.9\npid_file: /tmp/x.pid\nlog_level: error\n", f);
	fclose(f);

	OK(cf_config_parse_args(11, argv, &a));
	assert_string_equal(a.config_path, path);
	assert_true(a.check);
	OK(cf_config_init(&c));
	OK(cf_config_load_file(&c, a.config_path));
	OK(cf_config_apply_args(&c, &a));
	assert_string_equal(c.source, path);
	assert_int_equal(c.rpc_port, 9161);			/* the command line's, though given first */
	assert_string_equal(c.rpc_address, "127.0.0.9");	/* the file's */
	assert_null(c.pid_file);					/* "" = the default: none */
	assert_int_equal(c.seeds.n, 2);
	assert_string_equal(c.seeds.v[1], "y");
	assert_int_equal(c.log_level, CF_LOG_DEBUG);
	cf_config_free(&c);
	cf_config_args_free(&a);
	test_tmpdir_free(dir);
}

static void
command_line_errors(void **state)
{
	cf_config_args a;
	cf_config	c;

	(void) state;
	{
		char	   *argv[] = {"colfamd", "--rpc_prot", "1", NULL};

		EXPECT_ERROR(cf_config_parse_args(3, argv, &a), CF_ERR_INVALID,
					 "unknown option \"--rpc_prot\"; did you mean --rpc_port?");
	}
	{
		char	   *argv[] = {"colfamd", "--confg", "x", NULL};

		EXPECT_ERROR(cf_config_parse_args(3, argv, &a), CF_ERR_INVALID,
					 "did you mean --config?");
	}
	{
		char	   *argv[] = {"colfamd", "--rpc_port", NULL};

		EXPECT_ERROR(cf_config_parse_args(2, argv, &a), CF_ERR_INVALID,
					 "option --rpc_port needs a value");
	}
	{
		char	   *argv[] = {"colfamd", "-c", NULL};

		EXPECT_ERROR(cf_config_parse_args(2, argv, &a), CF_ERR_INVALID,
					 "option -c needs a value");
	}
	{
		char	   *argv[] = {"colfamd", "serve", NULL};

		EXPECT_ERROR(cf_config_parse_args(2, argv, &a), CF_ERR_INVALID,
					 "unexpected argument \"serve\"");
	}
	{
		char	   *argv[] = {"colfamd", "-x", NULL};

		EXPECT_ERROR(cf_config_parse_args(2, argv, &a), CF_ERR_INVALID,
					 "unknown option \"-x\"");
	}
	{
		char	   *argv[] = {"colfamd", "--help=yes", NULL};

		EXPECT_ERROR(cf_config_parse_args(2, argv, &a), CF_ERR_INVALID, "takes no value");
	}
	{
		char	   *argv[] = {"colfamd", "-V", "--help", "-cfile.yaml", NULL};

		OK(cf_config_parse_args(4, argv, &a));
		assert_true(a.version && a.help);
		assert_string_equal(a.config_path, "file.yaml");
		cf_config_args_free(&a);
	}
	{
		/* a bad value is found when applied, naming the command line */
		char	   *argv[] = {"colfamd", "--concurrent-writes", "1", NULL};

		OK(cf_config_parse_args(3, argv, &a));
		OK(cf_config_init(&c));
		EXPECT_ERROR(cf_config_apply_args(&c, &a), CF_ERR_INVALID, "command line",
					 "\"1\" for concurrent_writes", "from 2 to 1024");
		cf_config_free(&c);
		cf_config_args_free(&a);
	}
}

static void
whole_config_checks(void **state)
{
	cf_config	c;
	char	   *dir = test_tmpdir_new("cfgval");
	const char *pw = test_path(dir, "passwd.properties");
	FILE	   *f;

	(void) state;
	assert_non_null(dir);
	OK(cf_config_init(&c));
	OK(cf_config_set(&c, "thrift_max_message_length_in_mb", "10", "t"));
	EXPECT_ERROR(cf_config_validate(&c), CF_ERR_INVALID,
				 "thrift_max_message_length_in_mb (10) must be at least "
				 "thrift_framed_transport_size_in_mb (15)");
	OK(cf_config_set(&c, "thrift_max_message_length_in_mb", "15", "t"));
	OK(cf_config_validate(&c));

	OK(cf_config_set(&c, "min_compaction_threshold", "40", "t"));
	EXPECT_ERROR(cf_config_validate(&c), CF_ERR_INVALID, "min_compaction_threshold 40",
				 "max_compaction_threshold 32");
	OK(cf_config_set(&c, "min_compaction_threshold", "1", "t"));
	EXPECT_ERROR(cf_config_validate(&c), CF_ERR_INVALID, "2 <= min_compaction_threshold");
	OK(cf_config_set(&c, "min_compaction_threshold", "0", "t"));
	OK(cf_config_validate(&c));	/* 0: compaction disabled */
	OK(cf_config_set(&c, "min_compaction_threshold", "", "t"));

	OK(cf_config_set(&c, "authenticator", "SimpleAuthenticator", "t"));
	EXPECT_ERROR(cf_config_validate(&c), CF_ERR_INVALID, "SimpleAuthenticator needs auth_passwd_file");
	OK(cf_config_set(&c, "auth_passwd_file", pw, "t"));
	EXPECT_ERROR(cf_config_validate(&c), CF_ERR_INVALID, "auth_passwd_file", "cannot read", pw);
	f = fopen(pw, "w");
	assert_non_null(f);
	fputs("jsmith=havebadpass\n", f);
	fclose(f);
	OK(cf_config_validate(&c));
	OK(cf_config_set(&c, "authority", "SimpleAuthority", "t"));
	EXPECT_ERROR(cf_config_validate(&c), CF_ERR_INVALID, "SimpleAuthority needs auth_access_file");
	OK(cf_config_set(&c, "authority", "", "t"));

	OK(cf_config_set(&c, "rpc_io_cpus", "0,x", "t"));
	EXPECT_ERROR(cf_config_validate(&c), CF_ERR_INVALID, "rpc_io_cpus: \"0,x\" is not a CPU "
				 "list (valid: none, auto, or CPU numbers and ranges such as 0,2-3");
	OK(cf_config_set(&c, "rpc_io_cpus", "1023", "t"));	/* no machine here has that many */
	EXPECT_ERROR(cf_config_validate(&c), CF_ERR_INVALID, "rpc_io_cpus: CPU 1023 is not one "
				 "this process may run on (it may run on ");
	OK(cf_config_set(&c, "rpc_io_cpus", "auto", "t"));
	OK(cf_config_validate(&c));
	OK(cf_config_set(&c, "rpc_io_cpus", "none", "t"));
	OK(cf_config_validate(&c));
	OK(cf_config_set(&c, "rpc_io_cpus", "", "t"));

	OK(cf_config_set(&c, "initial_token", "abc", "t"));
	EXPECT_ERROR(cf_config_validate(&c), CF_ERR_INVALID, "initial_token \"abc\"",
				 "RandomPartitioner");
	OK(cf_config_set(&c, "initial_token", "0", "t"));
	OK(cf_config_validate(&c));
	OK(cf_config_set(&c, "partitioner", "OrderPreservingPartitioner", "t"));
	OK(cf_config_set(&c, "initial_token", "any text", "t"));
	OK(cf_config_validate(&c));
	cf_config_free(&c);
	test_tmpdir_free(dir);
}

static void
files_that_cannot_be_read(void **state)
{
	cf_config	c;
	char	   *dir = test_tmpdir_new("cfgfile");

	(void) state;
	assert_non_null(dir);
	OK(cf_config_init(&c));
	EXPECT_ERROR(cf_config_load_file(&c, test_path(dir, "missing.yaml")), CF_ERR_NOT_FOUND,
				 "cannot read the configuration file", "missing.yaml");
	EXPECT_ERROR(cf_config_load_file(&c, dir), CF_ERR_IO, "cannot read the configuration file");
	cf_config_free(&c);
	test_tmpdir_free(dir);
}

static void
options_of_the_db_and_the_server(void **state)
{
	cf_config	c;
	cf_db_options d;
	cf_server_options s;

	(void) state;
	OK(cf_config_init(&c));
	cf_config_db_options(&c, cf_env_posix(), &d);
	assert_ptr_equal(d.env, cf_env_posix());
	assert_string_equal(d.data_dir, "./var/data");
	assert_string_equal(d.commitlog_dir, "./var/commitlog");
	assert_int_equal(d.partitioner, CF_PARTITIONER_RANDOM);
	assert_int_equal(d.sync_mode, CF_COMMITLOG_PERIODIC);
	assert_int_equal(d.sync_period_us, 10000000);
	assert_int_equal(d.memtable_max_bytes, 0);	/* each CF's own */
	assert_int_equal(d.memtable_max_ops, 0);
	assert_int_equal(d.block_cache_bytes, (size_t) 64 << 20);
	assert_true(d.background_compaction);
	cf_config_server_options(&c, &s);
	assert_string_equal(s.address, "127.0.0.1");
	assert_int_equal(s.port, 9160);
	assert_int_equal(s.worker_threads, 8 + 32);
	assert_int_equal(s.io_threads, 0);
	assert_null(s.io_cpus);
	assert_int_equal(s.max_frame, 15u << 20);
	assert_int_equal(s.max_connections, 1024);
	assert_int_equal(s.conn_buffer_limit, 4096u << 10);
	assert_true(s.keepalive);

	OK(cf_config_load_string(&c, every_key_yaml, "every.yaml"));
	cf_config_db_options(&c, cf_env_posix(), &d);
	assert_string_equal(d.data_dir, "/srv/a");
	assert_string_equal(d.commitlog_dir, "/srv/log");
	assert_int_equal(d.partitioner, CF_PARTITIONER_BYTE_ORDERED);
	assert_int_equal(d.sync_mode, CF_COMMITLOG_BATCH);
	assert_int_equal(d.sync_period_us, 777000);
	assert_int_equal(d.batch_window_us, 3000);
	assert_int_equal(d.memtable_max_bytes, (size_t) 128 << 20);
	assert_int_equal(d.block_cache_bytes, (size_t) 512 << 20);
	assert_int_equal(d.memtable_max_ops, 500000);
	cf_config_server_options(&c, &s);
	assert_string_equal(s.address, "0.0.0.0");
	assert_int_equal(s.port, 9161);
	assert_int_equal(s.worker_threads, 7);
	assert_int_equal(s.io_threads, 3);
	assert_string_equal(s.io_cpus, "auto");
	assert_int_equal(s.max_frame, 4u << 20);
	assert_int_equal(s.max_connections, 50);
	assert_int_equal(s.conn_buffer_limit, 128u << 10);
	assert_false(s.keepalive);
	assert_int_equal(s.send_buffer, 65536);
	assert_int_equal(s.recv_buffer, 131072);
	cf_config_free(&c);
}

static void
help_lists_every_key(void **state)
{
	char	   *buf = NULL;
	size_t		len = 0;
	FILE	   *f = open_memstream(&buf, &len);
	cf_config	c;
	char	   *w;

	(void) state;
	assert_non_null(f);
	cf_config_print_keys(f);
	fclose(f);
	OK(cf_config_init(&c));
	w = written(&c);
	/* every key written is a key listed */
	for (char *line = strtok(w, "\n"); line; line = strtok(NULL, "\n"))
	{
		char		opt[128];

		snprintf(opt, sizeof(opt), "--%.*s VALUE", (int) strcspn(line, ":"), line);
		if (strstr(buf, opt) == NULL)
			fail_msg("--help lacks %s", opt);
	}
	assert_non_null(strstr(buf, "default: 9160; an integer from 1 to 65535"));
	free(w);
	free(buf);
	cf_config_free(&c);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(defaults),
		cmocka_unit_test(every_key_from_yaml),
		cmocka_unit_test(every_key_from_command_line),
		cmocka_unit_test(written_config_reads_back),
		cmocka_unit_test(empty_values_restore_defaults),
		cmocka_unit_test(bad_values_name_key_value_and_valid_values),
		cmocka_unit_test(yaml_that_does_not_parse),
		cmocka_unit_test(unknown_keys_warn_with_a_hint),
		cmocka_unit_test(seed_provider_is_read_as_seeds),
		cmocka_unit_test(command_line_wins_over_the_file),
		cmocka_unit_test(command_line_errors),
		cmocka_unit_test(whole_config_checks),
		cmocka_unit_test(files_that_cannot_be_read),
		cmocka_unit_test(options_of_the_db_and_the_server),
		cmocka_unit_test(help_lists_every_key),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
