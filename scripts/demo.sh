#!/usr/bin/env bash
# scripts/demo.sh — the main job: SQL over Cassandra-style data.
#
# Builds colfamd, colfam and colfam_fdw; starts one colfamd on 127.0.0.2 and a private
# PostgreSQL on loopback; loads the seeds' BloggyAppy and Twissandra keyspaces through
# `colfam shell`; imports them as foreign tables; runs the headline queries with their
# EXPLAIN (what was sent to colfamd); and stops everything on exit. On a terminal it
# waits for Enter so you can connect with the psql command it prints.
set -euo pipefail
cd "$(dirname "$0")/.."
. tests/lib/harness.sh

harness_init
echo "==> building colfamd, colfam and colfam_fdw"
make -s engine >/dev/null
harness_install_extension

host=127.0.0.2
echo "==> starting colfamd on $host (data in $H_TMP/colfamd)"
harness_colfamd colfamd $host build/release/bin/colfamd || exit 1
port=$H_PORT

for seed in bloggyappy twissandra; do
  echo "==> loading tests/data/seeds/$seed.cli with colfam shell"
  build/release/bin/colfam shell -h $host -p "$port" -f "tests/data/seeds/$seed.cli" \
    > "$H_TMP/$seed.log" || { cat "$H_TMP/$seed.log"; exit 1; }
done
build/release/bin/colfam info -h $host -p "$port" | sed 's/^/    /'

echo "==> starting a private PostgreSQL"
harness_pg_start

psql_demo() { psql -X -v ON_ERROR_STOP=1 --echo-queries -v hosts="$host:$port" "$@"; }

psql_demo <<'SQL'
CREATE EXTENSION colfam_fdw;

-- ---- BloggyAppy (seed 001): the tables as DESIGN.md writes them ----
CREATE SERVER bloggy FOREIGN DATA WRAPPER colfam_fdw
  OPTIONS (hosts :'hosts', keyspace 'BloggyAppy');
CREATE FOREIGN TABLE tagged_posts (key text COLLATE "C", column_name timeuuid, value text)
  SERVER bloggy OPTIONS (column_family 'TaggedPosts');
CREATE FOREIGN TABLE blog_entries (key text COLLATE "C", title text, body text, author text,
                                   tags text, "pubDate" text)
  SERVER bloggy OPTIONS (column_family 'BlogEntries', mapping 'rows');
CREATE FOREIGN TABLE authors (key text COLLATE "C", email text, twitter text, bio text)
  SERVER bloggy OPTIONS (column_family 'Authors', mapping 'rows');
CREATE FOREIGN TABLE comments (key text COLLATE "C", super_column timeuuid,
                               column_name text COLLATE "C", value text)
  SERVER bloggy OPTIONS (column_family 'Comments');

-- The front page: the seed's eight steps as one statement. The slice goes to colfamd
-- reversed with count 10; each join is one key lookup per row.
EXPLAIN (VERBOSE, COSTS OFF)
SELECT e.title, a.email
FROM tagged_posts t
JOIN blog_entries e ON e.key = t.value
JOIN authors a ON a.key = e.author
WHERE t.key = '__notag__'
ORDER BY t.column_name DESC
LIMIT 10;
SELECT timeuuid_time(t.column_name) AS published, e.title, a.email
FROM tagged_posts t
JOIN blog_entries e ON e.key = t.value
JOIN authors a ON a.key = e.author
WHERE t.key = '__notag__'
ORDER BY t.column_name DESC
LIMIT 10;

-- A tag page: the newest entries tagged 'guitar'.
SELECT timeuuid_time(t.column_name) AS published, e.title
FROM tagged_posts t JOIN blog_entries e ON e.key = t.value
WHERE t.key = 'guitar' ORDER BY t.column_name DESC LIMIT 5;

-- One entry's comments (a Super column family) in time order.
SELECT timeuuid_time(super_column) AS at,
       max(value) FILTER (WHERE column_name = 'commenter') AS commenter,
       max(value) FILTER (WHERE column_name = 'comment') AS comment
FROM comments WHERE key = 'scream-is-the-best-movie-ever'
GROUP BY super_column ORDER BY super_column;

-- A report the native model cannot do: entries per author.
SELECT a.key AS author, count(e.key) AS entries
FROM authors a LEFT JOIN blog_entries e ON e.author = a.key
GROUP BY a.key ORDER BY entries DESC, author;

-- ---- Twissandra (seed 002): imported from the keyspace's metadata ----
CREATE SERVER twissandra FOREIGN DATA WRAPPER colfam_fdw
  OPTIONS (hosts :'hosts', keyspace 'Twissandra');
CREATE SCHEMA twissandra;
IMPORT FOREIGN SCHEMA "Twissandra" FROM SERVER twissandra INTO twissandra
  OPTIONS (bytes_as 'text');
\det+ twissandra.*

-- A user's timeline, newest first, joined to the tweets and their authors.
EXPLAIN (VERBOSE, COSTS OFF)
SELECT tl.column_name AS at_us, u.value AS username, tw.value AS body
FROM twissandra."Timeline" tl
JOIN twissandra."Tweet" tw ON tw.key = tl.value AND tw.column_name = 'body'
JOIN twissandra."Tweet" tu ON tu.key = tl.value AND tu.column_name = 'user_id'
JOIN twissandra."User" u ON u.key = tu.value AND u.column_name = 'username'
WHERE tl.key = 'a4a70900-24e1-11df-8924-001ff3591711'
ORDER BY tl.column_name DESC LIMIT 20;
SELECT to_timestamp(tl.column_name / 1e6) AS at, u.value AS username, tw.value AS body
FROM twissandra."Timeline" tl
JOIN twissandra."Tweet" tw ON tw.key = tl.value AND tw.column_name = 'body'
JOIN twissandra."Tweet" tu ON tu.key = tl.value AND tu.column_name = 'user_id'
JOIN twissandra."User" u ON u.key = tu.value AND u.column_name = 'username'
WHERE tl.key = 'a4a70900-24e1-11df-8924-001ff3591711'
ORDER BY tl.column_name DESC LIMIT 20;
SQL
echo
echo "==> colfamd $host:$port and PostgreSQL $(psql -XAtc 'SHOW server_version') are running"
if [[ -t 0 && -t 1 ]]; then
  echo "    connect with:  psql -h $PGHOST -p $PGPORT -U postgres"
  echo "    and the shell: build/release/bin/colfam shell -h $host -p $port -k BloggyAppy"
  read -r -p "    press Enter to stop them ... " _
fi
echo "==> stopping"
