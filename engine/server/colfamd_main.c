/*
 * server/colfamd_main.c — colfamd, the column-family store node.
 *
 * Start-up, in an order that fails fast and leaves nothing behind: the configuration
 * (defaults, the file, the command line; exit 2 if wrong), the listening sockets (TCP,
 * and rpc_unix_socket when set; exit 1 on a busy port or socket, before the database's replay could take minutes), the pid file, the
 * database (cf_db_open on the configured directories), then the event loops. Runs in
 * the foreground and logs to stderr. SIGTERM, SIGINT or SIGHUP: stop accepting, finish
 * the requests already received (up to shutdown_timeout_in_ms), flush and close the
 * database (the server's drain hook), remove the pid file, exit 0.
 *
 * Requests go to the Thrift dispatch (thrift/dispatch.h) over the coordinator
 * (service/service.h), with authentication when the configuration asks for it.
 * Short reads, and writes with the periodic commit log, run inline on the event
 * loops; the rest on the workers (server/route.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "server/config.h"
#include "server/route.h"
#include "server/server.h"
#include "service/auth.h"
#include "service/service.h"
#include "thrift/dispatch.h"
#include "util/crc32c.h"
#include "util/env.h"
#include "util/log.h"
#include "util/version.h"

#define LOG "colfamd"

typedef struct colfamd
{
	cf_config	cfg;
	cf_db	   *db;
	cf_auth    *auth;
	cf_service *svc;
	cf_dispatch *dispatch;
	cf_server  *srv;
	bool		pid_written;
	bool		drain_failed;
} colfamd;

static void
usage(FILE *out, bool keys)
{
	fprintf(out,
			"usage: colfamd [-c FILE] [--KEY VALUE ...]\n"
			"\n"
			"  -c, --config FILE      configuration file (YAML, Cassandra 0.7 key names)\n"
			"  -l, --log-level LEVEL  %s (default info); the same as --log_level\n"
			"      --check-config     check the configuration, print the settings in effect, exit\n"
			"  -V, --version          print the version and exit\n"
			"  -h, --help             print this help and exit\n"
			"\n"
			"Every configuration key is also an option: --KEY VALUE or --KEY=VALUE, with\n"
			"dashes or underscores (--rpc-port 9161 = --rpc_port=9161). Lists are comma-\n"
			"separated; an empty value restores the default. The command line wins over the\n"
			"file.\n",
			cf_log_level_names());
	if (!keys)
	{
		fprintf(out, "Run colfamd --help for the configuration keys.\n");
		return;
	}
	fprintf(out, "\nConfiguration keys:\n");
	cf_config_print_keys(out);
	fprintf(out,
			"\nExit status: 0 after a clean stop; 1 when colfamd cannot start or stop cleanly\n"
			"(port in use, database not opened, file not readable); 2 for a bad command line\n"
			"or configuration.\n");
}

/* ---- the request handler: the Thrift dispatch ---- */

static void *
colfamd_session_open(void *ctx, const cf_peer_info *peer)
{
	colfamd    *d = ctx;

	return cf_dispatch_session_new(d->dispatch, peer->addr);
}

static void
colfamd_session_close(void *ctx, void *session)
{
	(void) ctx;
	cf_dispatch_session_free(session);
}

static bool
colfamd_handle(void *ctx, void *session, cf_slice request, cf_buf *reply)
{
	colfamd    *d = ctx;

	return cf_dispatch_handle(d->dispatch, session, request, reply);
}

/* What the route asks the schema about: one request of one session. */
typedef struct colfamd_route_ctx
{
	cf_dispatch *dispatch;
	cf_dispatch_session *session;
} colfamd_route_ctx;

static bool
colfamd_route_is_super(void *ctx, cf_slice cf)
{
	colfamd_route_ctx *rc = ctx;

	return cf_dispatch_cf_is_super(rc->dispatch, rc->session, cf);
}

/*
 * Inline or on a worker: writes inline only when none waits for its own fsync; reads
 * by what they select, the session's keyspace's schema telling which CFs are Super.
 */
static int
colfamd_route(void *ctx, void *session, cf_slice request)
{
	colfamd    *d = ctx;
	colfamd_route_ctx rc = {d->dispatch, session};
	cf_route_schema schema = {colfamd_route_is_super, &rc};

	return cf_route_request(request, d->cfg.commitlog_sync == CF_COMMITLOG_PERIODIC, &schema);
}

/* After the last request: the dispatch and service go, then the database is flushed and closed. */
static void
colfamd_drain(void *ctx)
{
	colfamd    *d = ctx;
	cf_status  *s;

	cf_dispatch_free(d->dispatch);
	d->dispatch = NULL;
	cf_service_free(d->svc);
	d->svc = NULL;
	cf_auth_free(d->auth);
	d->auth = NULL;
	if (d->db == NULL)
		return;
	cf_log_info(LOG, "flushing and closing the database");
	s = cf_db_close(d->db);
	d->db = NULL;
	if (s)
	{
		cf_log_error(LOG, "closing the database: %s", cf_status_msg(s));
		cf_status_free(s);
		d->drain_failed = true;
	}
}

/*
 * The handler colfamd serves with. Sessions are the dispatch's (login, keyspace); the
 * dispatch itself exists once the database is open (colfamd_open_service), before
 * the server starts taking requests.
 */
static cf_server_handler
colfamd_handler(colfamd *d)
{
	cf_server_handler h = {
		.session_open = colfamd_session_open,
		.session_close = colfamd_session_close,
		.handle = colfamd_handle,
		.route = colfamd_route,
		.drain = colfamd_drain,
		.ctx = d,
	};

	return h;
}

/* Authentication, the coordinator and the dispatch over the open database. */
static cf_status *
colfamd_open_service(colfamd *d)
{
	const cf_config *cfg = &d->cfg;
	cf_service_options so = {0};
	cf_dispatch_options dopt = {0};
	cf_status  *s;

	if (cfg->authenticator == CF_AUTHENTICATOR_SIMPLE)
	{
		if ((s = cf_auth_open(cfg->auth_passwd_file, cfg->auth_access_file, &d->auth)) != NULL)
			return cf_status_wrap(s, "authentication");
		cf_log_info(LOG, "authentication on: users from %s, grants from %s",
					cfg->auth_passwd_file, cfg->auth_access_file);
	}
	so.db = d->db;
	so.cluster_name = cfg->cluster_name;
	so.endpoint = cfg->rpc_address;
	so.token = cfg->initial_token;
	so.rpc_timeout_us = (int64_t) cfg->rpc_timeout_in_ms * 1000;
	if ((s = cf_service_new(&so, &d->svc)) != NULL)
		return s;
	dopt.service = d->svc;
	dopt.auth = d->auth;
	return cf_dispatch_new(&dopt, &d->dispatch);
}

/* ---- the process ---- */

static bool
write_pid_file(colfamd *d)
{
	const char *path = d->cfg.pid_file;
	char		line[32];
	int			fd;
	int			n;

	if (path == NULL)
		return true;
	n = snprintf(line, sizeof(line), "%ld\n", (long) getpid());
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0 || write(fd, line, (size_t) n) != n || close(fd) != 0)
	{
		cf_log_error(LOG, "cannot write the pid file \"%s\": %s", path, strerror(errno));
		if (fd >= 0)
			unlink(path);
		return false;
	}
	d->pid_written = true;
	return true;
}

static void
remove_pid_file(colfamd *d)
{
	if (d->pid_written && unlink(d->cfg.pid_file) != 0)
		cf_log_warn(LOG, "cannot remove the pid file \"%s\": %s", d->cfg.pid_file,
					strerror(errno));
	d->pid_written = false;
}

/* Room for every connection's descriptor: the soft limit up to the hard one. */
static void
raise_fd_limit(const cf_config *cfg)
{
	struct rlimit rl;
	rlim_t		want = (rlim_t) cfg->rpc_max_connections + 256;

	if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur >= want)
		return;
	rl.rlim_cur = rl.rlim_max == RLIM_INFINITY || rl.rlim_max >= want ? want : rl.rlim_max;
	setrlimit(RLIMIT_NOFILE, &rl);
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < want)
		cf_log_warn(LOG, "rpc_max_connections is %d but only %lu file descriptors are "
					"allowed (ulimit -n); connections past that are refused",
					cfg->rpc_max_connections, (unsigned long) rl.rlim_cur);
}

static int
serve(colfamd *d)
{
	const cf_config *cfg = &d->cfg;
	cf_server_options so;
	cf_server_handler h;
	cf_db_options dbo;
	sigset_t	sigs;
	cf_status  *s;
	int			sig = 0;

	cf_log_info(LOG, "colfamd %s starting (pid %ld); configuration: %s", CF_VERSION,
				(long) getpid(), cfg->source[0] ? cfg->source : "the defaults");
	if (cfg->data_file_directories.n > 1)
		cf_log_warn(LOG, "data_file_directories: colfamd keeps its data in one directory; "
					"using %s, not the %zu others", cfg->data_file_directories.v[0],
					cfg->data_file_directories.n - 1);

	/* signals go to sigwait below: blocked before any thread exists */
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGTERM);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &sigs, NULL);
	signal(SIGPIPE, SIG_IGN);
	raise_fd_limit(cfg);

	cf_config_server_options(cfg, &so);
	h = colfamd_handler(d);
	if ((s = cf_server_create(&so, &h, &d->srv)) != NULL)
	{
		cf_log_error(LOG, "cannot listen for clients: %s", cf_status_msg(s));
		if (cf_status_code(s) == CF_ERR_BUSY)
			cf_log_error(LOG, "hint: stop the process using it, or choose another "
						 "rpc_port or rpc_address%s", cfg->rpc_unix_socket ?
						 " (or rpc_unix_socket)" : "");
		cf_status_free(s);
		return 1;
	}
	if (!write_pid_file(d))
		goto fail;
	cf_config_db_options(cfg, cf_env_posix(), &dbo);
	cf_log_info(LOG, "opening the database: data in %s, commit log in %s (%s sync), %s, "
				"block cache %d MiB", dbo.data_dir, dbo.commitlog_dir,
				cfg->commitlog_sync == CF_COMMITLOG_BATCH ? "batch" : "periodic",
				cf_partitioner_name(cfg->partitioner), cfg->block_cache_size_in_mb);
	if ((s = cf_db_open(&dbo, &d->db)) != NULL)
	{
		cf_log_error(LOG, "cannot open the database: %s", cf_status_msg(s));
		cf_status_free(s);
		goto fail;
	}
	if ((s = colfamd_open_service(d)) != NULL || (s = cf_server_start(d->srv)) != NULL)
	{
		cf_log_error(LOG, "cannot start serving: %s", cf_status_msg(s));
		cf_status_free(s);
		goto fail;
	}
	cf_log_info(LOG, "listening for Thrift clients on %s (framed transport, frames up to "
				"%d MiB; %u event loops, %u workers; at most %d connections)",
				cf_server_address(d->srv), cfg->thrift_framed_transport_size_in_mb,
				cf_server_io_threads(d->srv), so.worker_threads, cfg->rpc_max_connections);
	if (cf_server_unix_path(d->srv) != NULL)
		cf_log_info(LOG, "listening for Thrift clients on the unix socket %s (mode %04o)",
					cf_server_unix_path(d->srv), (unsigned) cfg->rpc_unix_socket_mode);

	while (sigwait(&sigs, &sig) != 0)
		;
	cf_log_info(LOG, "received %s; shutting down", sig == SIGTERM ? "SIGTERM" :
				sig == SIGINT ? "SIGINT" : "SIGHUP");
	if ((s = cf_server_shutdown(d->srv, cfg->shutdown_timeout_in_ms)) != NULL)
	{
		/* a request still runs inside the database: closing it now is not safe */
		cf_log_error(LOG, "%s; exiting without closing the database (the commit log is "
					 "replayed at the next start)", cf_status_msg(s));
		cf_status_free(s);
		remove_pid_file(d);
		fflush(NULL);
		_exit(1);
	}
	cf_server_free(d->srv);
	d->srv = NULL;
	remove_pid_file(d);
	cf_log_info(LOG, "stopped");
	return d->drain_failed ? 1 : 0;

fail:
	/* whatever start-up got to: each step is a no-op when its part is not there */
	cf_server_free(d->srv);
	d->srv = NULL;
	colfamd_drain(d);
	remove_pid_file(d);
	return 1;
}

/*
 * glibc's malloc hands memory back to the kernel as soon as a free leaves 128 KiB or so
 * at the top of a thread's heap (madvise(MADV_DONTNEED)), and serves blocks over its
 * mmap threshold with fresh mappings. A request's buffers (a page of a range scan, its
 * reply) are allocated and freed again on every request, so each one paid page faults
 * and zeroed pages for memory it had just released: ~15% of colfamd's CPU in a full
 * scan. Fixed thresholds keep up to that much free memory per heap for the next request.
 */
static void
tune_malloc(void)
{
	mallopt(M_MMAP_THRESHOLD, 32 << 20);
	mallopt(M_TRIM_THRESHOLD, 64 << 20);
}

int
main(int argc, char **argv)
{
	colfamd		d = {0};
	cf_config_args args;
	cf_status  *s;
	int			rc;

	tune_malloc();

	if ((s = cf_config_parse_args(argc, argv, &args)) != NULL)
	{
		fprintf(stderr, "colfamd: %s\n", cf_status_msg(s));
		cf_status_free(s);
		usage(stderr, false);
		return 2;
	}
	if (args.help || args.version)
	{
		if (args.help)
			usage(stdout, true);
		else
			printf("colfamd %s (Thrift API %s, crc32c %s)\n",
				   CF_VERSION, CF_THRIFT_API_VERSION, cf_crc32c_impl());
		cf_config_args_free(&args);
		return 0;
	}
	if ((s = cf_config_init(&d.cfg)) == NULL && args.config_path)
		s = cf_config_load_file(&d.cfg, args.config_path);
	if (s == NULL)
		s = cf_config_apply_args(&d.cfg, &args);
	if (s == NULL)
		s = cf_config_validate(&d.cfg);
	if (s != NULL)
	{
		/* a file that cannot be read is the environment's fault (1); a bad setting, 2 */
		rc = cf_status_code(s) == CF_ERR_INVALID ? 2 : 1;
		fprintf(stderr, "colfamd: %s\n", cf_status_msg(s));
		cf_status_free(s);
		cf_config_args_free(&args);
		cf_config_free(&d.cfg);
		return rc;
	}
	cf_log_set_level(d.cfg.log_level);
	for (size_t i = 0; i < d.cfg.n_notes; i++)
		cf_log(d.cfg.notes[i].level, "config", "%s", d.cfg.notes[i].text);
	if (args.check)
	{
		printf("# colfamd %s: the configuration in effect (%s)\n", CF_VERSION,
			   d.cfg.source[0] ? d.cfg.source : "the defaults");
		cf_config_write(&d.cfg, stdout);
		rc = 0;
	}
	else
		rc = serve(&d);
	cf_config_args_free(&args);
	cf_config_free(&d.cfg);
	return rc;
}
