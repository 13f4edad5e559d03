/*
 * tools/cmd_admin.c — node administration: `colfam status|info|ring` (the describe_*
 * methods of 0.7) and `colfam flush|compact|cfstats|snapshot|listsnapshots|
 * clearsnapshot` (colfam's admin methods, thrift/admin.h, through libcolfam's
 * cfc_colfam_*).
 *
 *   status   cluster, node, API version, partitioner, snitch, schema agreement
 *   info     status, then every keyspace: strategy, replication factor, CFs
 *   ring     every keyspace's ring ranges and their endpoints (or the named ones)
 *   flush    [-k KS] [CF...]       every CF of KS (of every keyspace without -k)
 *   compact  [-k KS] [CF...] [--major]
 *   cfstats  [-k KS] [CF...]
 *   snapshot       [-k KS ...] [-t NAME]  every keyspace but system without -k; NAME
 *                                         defaults to the time in ms, as nodetool's
 *   listsnapshots  [-k KS ...]            every keyspace without -k
 *   clearsnapshot  [-k KS ...] [-t NAME]  every snapshot without -t
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

#include "client/client.h"
#include "tools/commands.h"
#include "tools/connopt.h"

typedef enum admin_cmd
{
	A_STATUS, A_INFO, A_RING, A_FLUSH, A_COMPACT, A_CFSTATS,
	A_SNAPSHOT, A_LISTSNAPSHOTS, A_CLEARSNAPSHOT
} admin_cmd;

static const char *const admin_names[] = {"status", "info", "ring", "flush", "compact", "cfstats",
"snapshot", "listsnapshots", "clearsnapshot"};

/* The snapshot commands take -k more than once, and no CF names. */
#define IS_SNAPSHOT_CMD(c) ((c) == A_SNAPSHOT || (c) == A_LISTSNAPSHOTS || (c) == A_CLEARSNAPSHOT)

typedef struct admin_opts
{
	admin_cmd	cmd;
	cft_connopt conn;			/* its keyspace: -k of flush/compact/cfstats */
	bool		major;
	char	  **args;			/* CF names (flush/compact/cfstats), keyspaces (ring) */
	int			n_args;
	const char **keyspaces;		/* the snapshot commands' -k, in order */
	size_t		n_keyspaces;
	const char *tag;			/* snapshot, clearsnapshot: -t */
} admin_opts;

static void
usage(FILE *out, admin_cmd cmd)
{
	const char *conn = "[-h HOST] [-p PORT] [-u USER -P PASSWORD]";

	switch (cmd)
	{
		case A_STATUS:
		case A_INFO:
			fprintf(out, "usage: colfam %s %s\n", admin_names[cmd], conn);
			break;
		case A_RING:
			fprintf(out, "usage: colfam ring [KEYSPACE...] %s\n", conn);
			break;
		case A_FLUSH:
		case A_CFSTATS:
			fprintf(out, "usage: colfam %s [-k KEYSPACE [CF...]] %s\n", admin_names[cmd], conn);
			break;
		case A_COMPACT:
			fprintf(out, "usage: colfam compact [-k KEYSPACE [CF...]] [--major] %s\n", conn);
			break;
		case A_SNAPSHOT:
			fprintf(out, "usage: colfam snapshot [-k KEYSPACE]... [-t NAME] %s\n"
					"  flushes, then hard-links every SSTable of the keyspaces (every keyspace\n"
					"  but system without -k) under <data>/<keyspace>/<cf>/snapshots/NAME;\n"
					"  NAME (letters, digits, '_', '-'; at most %d) defaults to the time in ms\n",
					conn, CF_TA_SNAPSHOT_NAME_MAX);
			break;
		case A_LISTSNAPSHOTS:
			fprintf(out, "usage: colfam listsnapshots [-k KEYSPACE]... %s\n"
					"  every snapshot on the node (of the keyspaces), the automatic dropped-<us>\n"
					"  and truncated-<us> ones included: files, bytes, and the bytes clearing it\n"
					"  frees (its files are hard links: what live SSTables share stays)\n", conn);
			break;
		case A_CLEARSNAPSHOT:
			fprintf(out, "usage: colfam clearsnapshot [-k KEYSPACE]... [-t NAME] %s\n"
					"  removes snapshot NAME (every snapshot without -t) of the keyspaces (of\n"
					"  every keyspace without -k); live SSTables are never touched\n", conn);
			break;
	}
}

/* Returns -1 to go on, else the exit status. */
static int
parse(int argc, char **argv, admin_cmd cmd, admin_opts *o)
{
	static const struct option opts[] = {
		CFT_CONNOPT_LONG,
		{"major", no_argument, NULL, 'M'},
		{"tag", required_argument, NULL, 't'},
		{"help", no_argument, NULL, '?' + 256},
		{NULL, 0, NULL, 0}
	};
	const char *name = admin_names[cmd];
	bool		takes_ks = cmd == A_FLUSH || cmd == A_COMPACT || cmd == A_CFSTATS;
	int			c;

	memset(o, 0, sizeof(*o));
	o->cmd = cmd;
	cft_connopt_init(&o->conn);
	/* argc bounds how many -k there can be; run_admin frees it */
	if (IS_SNAPSHOT_CMD(cmd) && (o->keyspaces = calloc((size_t) argc + 1, sizeof(char *))) == NULL)
	{
		fprintf(stderr, "colfam %s: out of memory\n", name);
		return 1;
	}
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":h:p:k:u:P:t:", opts, NULL)) != -1)
	{
		int			taken;

		if (c == 'k' && IS_SNAPSHOT_CMD(cmd))
		{
			o->keyspaces[o->n_keyspaces++] = optarg;
			continue;
		}
		if (c == 'k' && !takes_ks)
		{
			fprintf(stderr, "colfam %s: takes no -k\n", name);
			usage(stderr, cmd);
			return 2;
		}
		if ((taken = cft_connopt_take(&o->conn, c, optarg, name, stderr)) < 0)
			return 2;
		if (taken)
			continue;
		switch (c)
		{
			case 'M':
				if (cmd != A_COMPACT)
				{
					fprintf(stderr, "colfam %s: --major is an option of compact only\n", name);
					return 2;
				}
				o->major = true;
				break;
			case 't':
				if (cmd != A_SNAPSHOT && cmd != A_CLEARSNAPSHOT)
				{
					fprintf(stderr, "colfam %s: -t NAME is an option of snapshot and "
							"clearsnapshot only\n", name);
					return 2;
				}
				o->tag = optarg;
				break;
			case '?' + 256:
				usage(stdout, cmd);
				return 0;
			case ':':
				fprintf(stderr, "colfam %s: option %s needs a value\n", name, argv[optind - 1]);
				usage(stderr, cmd);
				return 2;
			default:
				fprintf(stderr, "colfam %s: unknown option \"%s\"\n", name, argv[optind - 1]);
				usage(stderr, cmd);
				return 2;
		}
	}
	o->args = argv + optind;
	o->n_args = argc - optind;
	if ((cmd == A_STATUS || cmd == A_INFO) && o->n_args > 0)
	{
		fprintf(stderr, "colfam %s: unexpected argument \"%s\"\n", name, o->args[0]);
		usage(stderr, cmd);
		return 2;
	}
	if (IS_SNAPSHOT_CMD(cmd) && o->n_args > 0)
	{
		fprintf(stderr, "colfam %s: unexpected argument \"%s\": name keyspaces with -k "
				"(-k KS1 -k KS2)\n", name, o->args[0]);
		usage(stderr, cmd);
		return 2;
	}
	if (takes_ks && o->n_args > 0 && o->conn.keyspace == NULL)
	{
		fprintf(stderr, "colfam %s: column families need -k KEYSPACE\n", name);
		usage(stderr, cmd);
		return 2;
	}
	if (!cft_connopt_check(&o->conn, name, stderr))
		return 2;
	return -1;
}

#define SL(s) (int) (s).len, (const char *) (s).p

static bool
is_system(cf_slice ks)
{
	return cf_slice_eq(ks, cf_slice_str("system"));
}

static cf_status *
show_status(cfc_conn *c, cf_arena *a, bool info, FILE *out)
{
	cf_slice	cluster,
				version,
				partitioner,
				snitch;
	cf_t_schema_version *sv;
	cf_t_ks_def *ks;
	size_t		n_sv,
				n_ks;
	cf_status  *s;

	if ((s = cfc_describe_cluster_name(c, a, &cluster)) != NULL ||
		(s = cfc_describe_version(c, a, &version)) != NULL ||
		(s = cfc_describe_partitioner(c, a, &partitioner)) != NULL ||
		(s = cfc_describe_snitch(c, a, &snitch)) != NULL ||
		(s = cfc_describe_schema_versions(c, a, &sv, &n_sv)) != NULL ||
		(s = cfc_describe_keyspaces(c, a, &ks, &n_ks)) != NULL)
		return s;
	fprintf(out, "Cluster:      %.*s\n", SL(cluster));
	fprintf(out, "Node:         %s\n", cfc_host(c) ? cfc_host(c) : "?");
	fprintf(out, "API version:  %.*s\n", SL(version));
	fprintf(out, "Partitioner:  %.*s\n", SL(partitioner));
	fprintf(out, "Snitch:       %.*s\n", SL(snitch));
	for (size_t i = 0; i < n_sv; i++)
	{
		fprintf(out, "Schema:       %.*s on", SL(sv[i].version));
		for (size_t j = 0; j < sv[i].n_hosts; j++)
			fprintf(out, " %.*s", SL(sv[i].hosts[j]));
		fputc('\n', out);
	}
	fprintf(out, "Keyspaces:    %zu\n", n_ks);
	for (size_t i = 0; i < n_ks; i++)
	{
		if (!info)
		{
			fprintf(out, "  %.*s\n", SL(ks[i].name));
			continue;
		}
		fprintf(out, "  %.*s: %.*s, replication_factor %d, %zu column famil%s\n",
				SL(ks[i].name), SL(ks[i].strategy_class), (int) ks[i].replication_factor,
				ks[i].n_cf_defs, ks[i].n_cf_defs == 1 ? "y" : "ies");
		for (size_t j = 0; j < ks[i].n_cf_defs; j++)
		{
			const cf_t_cf_def *cf = &ks[i].cf_defs[j];

			fprintf(out, "    %.*s (%.*s, %.*s)\n", SL(cf->name), SL(cf->column_type),
					SL(cf->comparator_type));
		}
	}
	return NULL;
}

static cf_status *
show_ring(cfc_conn *c, cf_arena *a, const admin_opts *o, FILE *out)
{
	cf_t_ks_def *ks;
	size_t		n_ks;
	cf_status  *s;
	int			n = o->n_args;

	if (n == 0 && (s = cfc_describe_keyspaces(c, a, &ks, &n_ks)) != NULL)
		return s;
	for (size_t i = 0; i < (n ? (size_t) n : n_ks); i++)
	{
		char		name[256];
		cf_t_token_range *tr;
		size_t		n_tr;

		if (n)
			snprintf(name, sizeof(name), "%s", o->args[i]);
		else if (is_system(ks[i].name))
			continue;			/* 0.7 refuses describe_ring("system") */
		else
			snprintf(name, sizeof(name), "%.*s", SL(ks[i].name));
		if ((s = cfc_describe_ring(c, name, a, &tr, &n_tr)) != NULL)
			return cf_status_wrap(s, "keyspace %s", name);
		fprintf(out, "Keyspace %s: %zu range%s\n", name, n_tr, n_tr == 1 ? "" : "s");
		for (size_t j = 0; j < n_tr; j++)
		{
			fprintf(out, "  (%.*s, %.*s]  ", SL(tr[j].start_token), SL(tr[j].end_token));
			for (size_t k = 0; k < tr[j].n_endpoints; k++)
				fprintf(out, "%s%.*s", k ? ", " : "", SL(tr[j].endpoints[k]));
			fputc('\n', out);
		}
	}
	return NULL;
}

/* The keyspaces to work on: -k, or every keyspace but system. */
static cf_status *
target_keyspaces(cfc_conn *c, cf_arena *a, const admin_opts *o, char ***names, size_t *n)
{
	cf_t_ks_def *ks;
	size_t		n_ks;
	cf_status  *s;

	*n = 0;
	if (o->conn.keyspace)
	{
		*names = cf_arena_alloc(a, sizeof(char *));
		if (*names == NULL)
			return cf_status_make(CF_ERR_NO_MEMORY, "out of memory");
		(*names)[0] = (char *) o->conn.keyspace;
		*n = 1;
		return NULL;
	}
	if ((s = cfc_describe_keyspaces(c, a, &ks, &n_ks)) != NULL)
		return s;
	*names = cf_arena_alloc(a, (n_ks + 1) * sizeof(char *));
	if (*names == NULL)
		return cf_status_make(CF_ERR_NO_MEMORY, "out of memory");
	for (size_t i = 0; i < n_ks; i++)
	{
		char	   *p;

		if (is_system(ks[i].name))
			continue;
		if ((p = cf_arena_strndup(a, (const char *) ks[i].name.p, ks[i].name.len)) == NULL)
			return cf_status_make(CF_ERR_NO_MEMORY, "out of memory");
		(*names)[(*n)++] = p;
	}
	return NULL;
}

static void
print_cfstats(const cf_ta_cf_stats *st, FILE *out)
{
	fprintf(out, "\tColumn Family: %.*s\n", SL(st->column_family));
	fprintf(out, "\tSSTable count: %lld\n", (long long) st->sstables);
	if (st->has_estimated_keys)
		fprintf(out, "\tNumber of keys (estimate): %lld\n", (long long) st->estimated_keys);
	if (st->has_estimated_columns)
		fprintf(out, "\tNumber of columns (estimate): %lld\n",
				(long long) st->estimated_columns);
	fprintf(out, "\tSpace used (live): %lld\n", (long long) st->sstable_bytes);
	fprintf(out, "\tMemtable data size: %lld\n", (long long) st->memtable_bytes);
	fprintf(out, "\tMemtable operations: %lld\n", (long long) st->memtable_operations);
	fprintf(out, "\tPending flushes: %d\n", (int) st->pending_flushes);
	fprintf(out, "\tFlushes: %lld\n", (long long) st->flushes);
	fprintf(out, "\tFlush failures: %lld\n", (long long) st->flush_failures);
	fprintf(out, "\n");
}

static cf_status *
run_cf_admin(cfc_conn *c, cf_arena *a, const admin_opts *o, FILE *out)
{
	char	  **kss;
	size_t		n_ks;
	const char *const *cfs = (const char *const *) o->args;
	size_t		n_cfs = (size_t) o->n_args;
	cf_status  *s = target_keyspaces(c, a, o, &kss, &n_ks);

	for (size_t i = 0; s == NULL && i < n_ks; i++)
	{
		cf_ta_cf_stats *st;
		size_t		n_st;

		switch (o->cmd)
		{
			case A_FLUSH:
				if ((s = cfc_colfam_flush(c, kss[i], cfs, n_cfs)) == NULL)
					fprintf(out, "flushed %s\n", kss[i]);
				break;
			case A_COMPACT:
				if ((s = cfc_colfam_compact(c, kss[i], cfs, n_cfs, o->major)) == NULL)
					fprintf(out, "compacted %s%s\n", kss[i], o->major ? " (major)" : "");
				break;
			case A_CFSTATS:
				if ((s = cfc_colfam_cfstats(c, kss[i], a, &st, &n_st)) != NULL)
					break;
				for (size_t k = 0; k < n_cfs; k++)
				{
					size_t		j = 0;

					while (j < n_st && !cf_slice_eq(st[j].column_family, cf_slice_str(cfs[k])))
						j++;
					if (j == n_st)
						return cf_status_make(CF_ERR_INVALID, "unconfigured columnfamily %s in "
											  "keyspace %s", cfs[k], kss[i]);
				}
				fprintf(out, "Keyspace: %s\n", kss[i]);
				for (size_t j = 0; j < n_st; j++)
				{
					bool		want = n_cfs == 0;

					for (size_t k = 0; !want && k < n_cfs; k++)
						want = cf_slice_eq(st[j].column_family, cf_slice_str(cfs[k]));
					if (want)
						print_cfstats(&st[j], out);
				}
				break;
			default:
				break;
		}
	}
	return s;
}

/* One snapshot of one keyspace: the run of entries (one per CF) sharing both names. */
typedef struct snap_group
{
	size_t		first;
	size_t		end;
	int64_t		files;
	int64_t		bytes;
	int64_t		unshared_bytes;
} snap_group;

/* The group starting at v[i] (the server sorts by keyspace, name, CF). */
static snap_group
group_at(const cf_ta_snapshot *v, size_t n, size_t i)
{
	snap_group	g = {i, i, 0, 0, 0};

	while (g.end < n && cf_slice_eq(v[g.end].keyspace, v[i].keyspace) &&
		   cf_slice_eq(v[g.end].name, v[i].name))
	{
		g.files += v[g.end].files;
		g.bytes += v[g.end].bytes;
		g.unshared_bytes += v[g.end].unshared_bytes;
		g.end++;
	}
	return g;
}

static void
print_snapshot_list(const cf_ta_snapshot *v, size_t n, FILE *out)
{
	int			wn = (int) strlen("Snapshot"),
				wk = (int) strlen("Keyspace");

	if (n == 0)
	{
		fprintf(out, "No snapshots.\n");
		return;
	}
	for (size_t i = 0; i < n; i++)
	{
		wn = v[i].name.len > (size_t) wn ? (int) v[i].name.len : wn;
		wk = v[i].keyspace.len > (size_t) wk ? (int) v[i].keyspace.len : wk;
	}
	fprintf(out, "%-*s  %-*s  %4s  %6s  %14s  %14s\n", wn, "Snapshot", wk, "Keyspace", "CFs",
			"Files", "Bytes", "Clearing frees");
	for (size_t i = 0; i < n;)
	{
		snap_group	g = group_at(v, n, i);

		fprintf(out, "%-*.*s  %-*.*s  %4zu  %6" PRId64 "  %14" PRId64 "  %14" PRId64 "\n",
				wn, SL(v[i].name), wk, SL(v[i].keyspace), g.end - g.first, g.files, g.bytes,
				g.unshared_bytes);
		i = g.end;
	}
	fprintf(out, "Snapshot files are hard links: what a live SSTable or another snapshot "
			"shares stays on disk\nwhen a snapshot is cleared; \"Clearing frees\" is what "
			"clearing that snapshot alone frees.\n");
}

/* What snapshot or clearsnapshot did, a line per keyspace (and per CF directory). */
static void
print_snapshot_done(const cf_ta_snapshot *v, size_t n, bool taken, FILE *out)
{
	if (n == 0)
		fprintf(out, taken ? "No column family to snapshot.\n" : "No snapshots to clear.\n");
	for (size_t i = 0; i < n;)
	{
		snap_group	g = group_at(v, n, i);
		size_t		ncf = g.end - g.first;

		fprintf(out, "%s snapshot \"%.*s\" of %.*s: %zu column famil%s, %" PRId64
				" files (hard links), %" PRId64 " bytes", taken ? "Took" : "Cleared",
				SL(v[i].name), SL(v[i].keyspace), ncf, ncf == 1 ? "y" : "ies", g.files,
				g.bytes);
		if (taken)
			fprintf(out, "\n");
		else
			fprintf(out, ", %" PRId64 " of them freed\n", g.unshared_bytes);
		for (; taken && i < g.end; i++)
			fprintf(out, "  %.*s\n", SL(v[i].directory));
		i = g.end;
	}
}

static cf_status *
run_snapshot_admin(cfc_conn *c, cf_arena *a, const admin_opts *o, FILE *out)
{
	char		now[32];
	cf_ta_snapshot *v;
	size_t		n;
	cf_status  *s;

	switch (o->cmd)
	{
		case A_SNAPSHOT:
			if (o->tag == NULL)
			{
				struct timeval tv;

				/* nodetool's default: System.currentTimeMillis() */
				gettimeofday(&tv, NULL);
				snprintf(now, sizeof(now), "%" PRId64,
						 (int64_t) tv.tv_sec * 1000 + tv.tv_usec / 1000);
			}
			s = cfc_colfam_snapshot(c, o->keyspaces, o->n_keyspaces, o->tag ? o->tag : now,
									a, &v, &n);
			if (s == NULL)
				print_snapshot_done(v, n, true, out);
			return s;
		case A_LISTSNAPSHOTS:
			if ((s = cfc_colfam_listsnapshots(c, o->keyspaces, o->n_keyspaces, a, &v, &n)) == NULL)
				print_snapshot_list(v, n, out);
			return s;
		default:
			s = cfc_colfam_clearsnapshot(c, o->keyspaces, o->n_keyspaces, o->tag, a, &v, &n);
			if (s == NULL)
				print_snapshot_done(v, n, false, out);
			return s;
	}
}

static int
run_admin(int argc, char **argv, admin_cmd cmd)
{
	admin_opts	o;
	cft_connopt conn;
	cfc_conn   *c = NULL;
	cf_arena   *a;
	cf_status  *s;
	int			rc = parse(argc, argv, cmd, &o);

	if (rc >= 0)
	{
		free(o.keyspaces);
		return rc;
	}
	if ((a = cf_arena_new(8192)) == NULL)
	{
		fprintf(stderr, "colfam %s: out of memory\n", admin_names[cmd]);
		free(o.keyspaces);
		return 1;
	}
	/* the admin methods name their keyspace: no set_keyspace on connect */
	conn = o.conn;
	conn.keyspace = NULL;
	s = cft_connopt_connect(&conn, &c);
	if (s == NULL)
	{
		if (cmd == A_STATUS || cmd == A_INFO)
			s = show_status(c, a, cmd == A_INFO, stdout);
		else if (cmd == A_RING)
			s = show_ring(c, a, &o, stdout);
		else if (IS_SNAPSHOT_CMD(cmd))
			s = run_snapshot_admin(c, a, &o, stdout);
		else
			s = run_cf_admin(c, a, &o, stdout);
	}
	if (s)
	{
		fprintf(stderr, "colfam %s: %s\n", admin_names[cmd], cf_status_msg(s));
		cf_status_free(s);
		rc = 1;
	}
	else
		rc = 0;
	cfc_free(c);
	cf_arena_free(a);
	free(o.keyspaces);
	return rc;
}

/*
 * The command argv[0] names (colfam_main passes the command's name there), for the
 * entry points that serve several; dflt if it names none of them.
 */
static admin_cmd
cmd_named(int argc, char **argv, admin_cmd dflt)
{
	for (size_t c = 0; argc > 0 && c < sizeof(admin_names) / sizeof(admin_names[0]); c++)
		if (strcmp(argv[0], admin_names[c]) == 0)
			return (admin_cmd) c;
	return dflt;
}

int
cft_cmd_status(int argc, char **argv)
{
	return run_admin(argc, argv, cmd_named(argc, argv, A_STATUS));
}

int
cft_cmd_flush(int argc, char **argv)
{
	return run_admin(argc, argv, A_FLUSH);
}

int
cft_cmd_compact(int argc, char **argv)
{
	return run_admin(argc, argv, A_COMPACT);
}

int
cft_cmd_cfstats(int argc, char **argv)
{
	return run_admin(argc, argv, A_CFSTATS);
}

int
cft_cmd_snapshot(int argc, char **argv)
{
	return run_admin(argc, argv, cmd_named(argc, argv, A_SNAPSHOT));
}
