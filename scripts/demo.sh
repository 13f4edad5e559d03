#!/usr/bin/env bash
# scripts/demo.sh — the main job: colfam_fdw in a private PostgreSQL.
#
# Builds and installs the extension, starts a private PostgreSQL on loopback, creates
# the extension and defines the seeds' BloggyAppy keyspace as foreign tables, shows
# what was made, and stops everything on exit. On a terminal it waits for Enter so
# you can connect with the psql command it prints.
#
# (Reading the tables needs colfamd and the FDW's scans; later versions of this demo
# start a node, load the seeds' data and run the headline queries.)
set -euo pipefail
cd "$(dirname "$0")/.."
. tests/lib/harness.sh

harness_init
echo "==> building and installing colfam_fdw"
harness_install_extension
echo "==> starting a private PostgreSQL"
harness_pg_start

psql_demo() { psql -X -v ON_ERROR_STOP=1 --echo-queries "$@"; }

echo "==> creating the extension and the BloggyAppy foreign tables"
psql_demo <<'SQL'
CREATE EXTENSION colfam_fdw;
\dx colfam_fdw
\dew+ colfam_fdw

-- the seeds' blog: one keyspace, a Standard CF per kind of object
CREATE SERVER bloggy FOREIGN DATA WRAPPER colfam_fdw
  OPTIONS (hosts '127.0.0.1:9160', keyspace 'BloggyAppy', read_consistency 'ONE');
CREATE USER MAPPING FOR CURRENT_USER SERVER bloggy;
CREATE FOREIGN TABLE authors (key text OPTIONS (role 'key'), email text, "displayName" text)
  SERVER bloggy OPTIONS (column_family 'Authors', mapping 'rows');
CREATE FOREIGN TABLE blog_entries (key text OPTIONS (role 'key'), title text, body text,
                                   author text, tags text, "pubDate" bigint)
  SERVER bloggy OPTIONS (column_family 'BlogEntries', mapping 'rows');
CREATE FOREIGN TABLE tagged_posts (key text OPTIONS (role 'key'),
                                   column_name text OPTIONS (role 'column_name') COLLATE "C",
                                   value text OPTIONS (role 'value'))
  SERVER bloggy OPTIONS (column_family 'TaggedPosts', mapping 'columns');
\det+

-- options are checked as they are set
\set ON_ERROR_STOP 0
ALTER SERVER bloggy OPTIONS (SET read_consistency 'ANY');
SQL
echo
echo "==> colfam_fdw is created in a private PostgreSQL ($(psql -XAtc 'SHOW server_version'))"
if [[ -t 0 && -t 1 ]]; then
  echo "    connect with:  psql -h $PGHOST -p $PGPORT -U postgres"
  read -r -p "    press Enter to stop it ... " _
fi
echo "==> stopping"
