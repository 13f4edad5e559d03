/*
 * db/snapshot.c — see snapshot.h. Walks <data_dir>/<keyspace>/<cf>/snapshots/<name>/
 * through the env; every directory is read into a list of names first, so no callback
 * does I/O.
 */
#include "db/snapshot.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define SNAPSHOTS_DIR "snapshots"

cf_status *
cf_snapshot_name_check(const char *name)
{
	size_t		len = strlen(name);

	if (len == 0 || len > CF_SNAPSHOT_NAME_MAX)
		return cf_status_make(CF_ERR_INVALID, "snapshot name must be 1 to %d characters "
							  "(got %zu)", CF_SNAPSHOT_NAME_MAX, len);
	for (const char *p = name; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
			  (*p >= '0' && *p <= '9') || *p == '_' || *p == '-'))
			return cf_status_make(CF_ERR_INVALID, "snapshot name \"%.*s\": use letters, digits, "
								  "'_' and '-' only", len > 64 ? 64 : (int) len, name);
	return NULL;
}

/* ---- directory listings ---- */

typedef struct names
{
	char	  **v;
	size_t		n;
	size_t		cap;
	bool		oom;
} names;

static bool
names_add(void *arg, const char *name)
{
	names	   *l = arg;

	if (l->n == l->cap)
	{
		size_t		cap = l->cap ? 2 * l->cap : 16;
		char	  **v = realloc(l->v, cap * sizeof(*v));

		if (v == NULL)
		{
			l->oom = true;
			return false;
		}
		l->v = v;
		l->cap = cap;
	}
	if ((l->v[l->n] = strdup(name)) == NULL)
	{
		l->oom = true;
		return false;
	}
	l->n++;
	return true;
}

static void
names_free(names *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
	memset(l, 0, sizeof(*l));
}

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *) a, *(char *const *) b);
}

/* The entries of dir, sorted. */
static cf_status *
list_names(cf_env *env, const char *dir, names *out)
{
	cf_status  *s;

	memset(out, 0, sizeof(*out));
	s = cf_env_list_dir(env, dir, names_add, out);
	if (s == NULL && out->oom)
		s = cf_status_make(CF_ERR_NO_MEMORY, "listing %s: out of memory", dir);
	if (s)
	{
		names_free(out);
		return s;
	}
	if (out->n > 1)
		qsort(out->v, out->n, sizeof(*out->v), cmp_str);
	return NULL;
}

/*
 * Whether path is a directory: "<path>/." exists only for one (the env has no stat
 * of a file's kind, and the walk must skip files such as a data directory's lock).
 */
static bool
is_dir(cf_env *env, const char *path)
{
	char	   *dot = cf_path_join(path, ".");
	bool		yes = dot && cf_env_exists(env, dot);

	free(dot);
	return yes;
}

/* ---- finding ---- */

static void
info_free(cf_snapshot_info *i)
{
	free(i->keyspace);
	free(i->cf);
	free(i->name);
	free(i->dir);
}

void
cf_snapshot_list_free(cf_snapshot_list *l)
{
	for (size_t i = 0; i < l->n; i++)
		info_free(&l->v[i]);
	free(l->v);
	memset(l, 0, sizeof(*l));
}

/* Measures the snapshot in dir and appends it to out (taking nothing on error). */
static cf_status *
add_snapshot(cf_env *env, const char *ks, const char *cf, const char *name,
			 const char *dir, cf_snapshot_list *out)
{
	cf_snapshot_info info = {0};
	names		files;
	cf_status  *s = list_names(env, dir, &files);

	for (size_t i = 0; s == NULL && i < files.n; i++)
	{
		char	   *path = cf_path_join(dir, files.v[i]);
		uint64_t	size = 0,
					links = 0;

		if (path == NULL)
			s = cf_status_make(CF_ERR_NO_MEMORY, "out of memory");
		else if ((s = cf_env_file_size(env, path, &size)) == NULL &&
				 (s = cf_env_file_links(env, path, &links)) == NULL)
		{
			info.files++;
			info.bytes += size;
			if (links == 1)
				info.unshared_bytes += size;
		}
		free(path);
	}
	names_free(&files);
	if (s)
		return s;
	if (out->n == out->cap)
	{
		size_t		cap = out->cap ? 2 * out->cap : 16;
		cf_snapshot_info *v = realloc(out->v, cap * sizeof(*v));

		if (v == NULL)
			return cf_status_make(CF_ERR_NO_MEMORY, "out of memory");
		out->v = v;
		out->cap = cap;
	}
	info.keyspace = strdup(ks);
	info.cf = strdup(cf);
	info.name = strdup(name);
	info.dir = strdup(dir);
	if (!info.keyspace || !info.cf || !info.name || !info.dir)
	{
		info_free(&info);
		return cf_status_make(CF_ERR_NO_MEMORY, "out of memory");
	}
	out->v[out->n++] = info;
	return NULL;
}

/* The snapshots of one keyspace directory. */
static cf_status *
find_in_keyspace(cf_env *env, const char *data_dir, const char *ks, const char *name,
				 cf_snapshot_list *out)
{
	char	   *ksdir = cf_path_join(data_dir, ks);
	names		cfs = {0};
	cf_status  *s = NULL;

	if (ksdir == NULL)
		return cf_status_make(CF_ERR_NO_MEMORY, "out of memory");
	if (is_dir(env, ksdir))
		s = list_names(env, ksdir, &cfs);
	for (size_t i = 0; s == NULL && i < cfs.n; i++)
	{
		char	   *cfdir = cf_path_join(ksdir, cfs.v[i]);
		char	   *snapdir = cfdir ? cf_path_join(cfdir, SNAPSHOTS_DIR) : NULL;
		names		snaps = {0};

		if (snapdir == NULL)
			s = cf_status_make(CF_ERR_NO_MEMORY, "out of memory");
		else if (is_dir(env, snapdir))
			s = list_names(env, snapdir, &snaps);
		for (size_t j = 0; s == NULL && j < snaps.n; j++)
		{
			char	   *dir;

			if (name && strcmp(name, snaps.v[j]) != 0)
				continue;
			if ((dir = cf_path_join(snapdir, snaps.v[j])) == NULL)
				s = cf_status_make(CF_ERR_NO_MEMORY, "out of memory");
			else if (is_dir(env, dir))
				s = add_snapshot(env, ks, cfs.v[i], snaps.v[j], dir, out);
			free(dir);
		}
		names_free(&snaps);
		free(snapdir);
		free(cfdir);
	}
	names_free(&cfs);
	free(ksdir);
	return s;
}

static int
cmp_info(const void *a, const void *b)
{
	const cf_snapshot_info *x = a;
	const cf_snapshot_info *y = b;
	int			c = strcmp(x->keyspace, y->keyspace);

	if (c == 0)
		c = strcmp(x->name, y->name);
	return c ? c : strcmp(x->cf, y->cf);
}

cf_status *
cf_snapshot_find(cf_env *env, const char *data_dir, const char *keyspace,
				 const char *name, cf_snapshot_list *out)
{
	names		kss = {0};
	size_t		first = out->n;
	cf_status  *s = NULL;

	if (keyspace)
		s = find_in_keyspace(env, data_dir, keyspace, name, out);
	else if ((s = list_names(env, data_dir, &kss)) == NULL)
	{
		for (size_t i = 0; s == NULL && i < kss.n; i++)
			s = find_in_keyspace(env, data_dir, kss.v[i], name, out);
		names_free(&kss);
	}
	if (out->n - first > 1)
		qsort(out->v + first, out->n - first, sizeof(*out->v), cmp_info);
	return s;
}

/* ---- removing ---- */

cf_status *
cf_snapshot_remove(cf_env *env, const cf_snapshot_info *info)
{
	names		files;
	size_t		parent_len = cf_path_dir_len(info->dir);
	char	   *parent = strndup(info->dir, parent_len);
	cf_status  *s;

	if (parent == NULL)
		return cf_status_make(CF_ERR_NO_MEMORY, "out of memory");
	s = list_names(env, info->dir, &files);
	for (size_t i = 0; s == NULL && i < files.n; i++)
	{
		char	   *path = cf_path_join(info->dir, files.v[i]);

		if (path == NULL)
			s = cf_status_make(CF_ERR_NO_MEMORY, "out of memory");
		else if (is_dir(env, path))
			s = cf_status_make(CF_ERR_IO, "%s is a directory: a snapshot holds files only; "
							   "remove it by hand", path);
		else
			s = cf_env_remove(env, path);
		free(path);
	}
	names_free(&files);
	if (s == NULL)
		s = cf_env_remove_dir(env, info->dir);
	if (s == NULL)
	{
		names		left;

		/* snapshots/ goes with its last snapshot; the CF directory stays */
		if ((s = list_names(env, parent, &left)) == NULL)
		{
			if (left.n == 0 && (s = cf_env_remove_dir(env, parent)) == NULL)
				parent[cf_path_dir_len(parent)] = '\0';
			names_free(&left);
		}
		/* the directory an entry left, so the removal is durable */
		if (s == NULL)
			s = cf_env_sync_dir(env, parent);
	}
	free(parent);
	return cf_status_wrap(s, "removing snapshot \"%s\" of %s.%s", info->name,
						  info->keyspace, info->cf);
}
