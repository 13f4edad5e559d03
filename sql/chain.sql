-- ===================================================================
-- chain: a pushed join's first batches sent with its outer scan's first request in
-- one colfam_multiget_chain (fdw/join.c). colfamd takes each join's keys from an
-- earlier step's answer; the FDW uses an answer only when it holds every key of the
-- join's first batch as the FDW itself computes them, and asks itself otherwise — so
-- a chain saves round trips and never changes a result. EXPLAIN shows each chained
-- join's step; EXPLAIN ANALYZE how many chains were sent and how many first requests
-- their answers served. Every result is compared with the same query over local
-- copies, also where the answers cannot serve (a filter that drops outer rows, an
-- empty, absent or duplicate key, a rescan).
-- The suite uses seed 001's BloggyAppy and seed 002's Twissandra at $COLFAM_HOSTS; the
-- rows it writes are its own (keys 'ch-...') and are deleted at the end.
-- ===================================================================
\getenv colfam_hosts COLFAM_HOSTS
CREATE EXTENSION IF NOT EXISTS colfam_fdw;
CREATE SERVER ch FOREIGN DATA WRAPPER colfam_fdw
  OPTIONS (hosts :'colfam_hosts', keyspace 'BloggyAppy');
CREATE FOREIGN TABLE ch_tagged (key text COLLATE "C", column_name timeuuid, value text)
  SERVER ch OPTIONS (column_family 'TaggedPosts');
CREATE FOREIGN TABLE ch_entries (key text COLLATE "C", title text, author text)
  SERVER ch OPTIONS (column_family 'BlogEntries', mapping 'rows');
CREATE FOREIGN TABLE ch_authors (key text COLLATE "C", email text)
  SERVER ch OPTIONS (column_family 'Authors', mapping 'rows');
-- the same CFs read at another consistency level, and with bytea keys
CREATE FOREIGN TABLE ch_authors_q (key text COLLATE "C", email text)
  SERVER ch OPTIONS (column_family 'Authors', mapping 'rows', read_consistency 'QUORUM');
CREATE FOREIGN TABLE ch_tagged_b (key text COLLATE "C", column_name timeuuid, value bytea)
  SERVER ch OPTIONS (column_family 'TaggedPosts');
CREATE FOREIGN TABLE ch_entries_b (key bytea, title text, author text)
  SERVER ch OPTIONS (column_family 'BlogEntries', mapping 'rows');

-- outer rows of our own: a duplicate, an absent and an empty key, an entry without author
INSERT INTO ch_tagged VALUES
  ('ch-tag', min_timeuuid('2011-01-01 00:00:01+00'), 'thrift-is-fine'),
  ('ch-tag', min_timeuuid('2011-01-01 00:00:02+00'), 'ch-absent'),
  ('ch-tag', min_timeuuid('2011-01-01 00:00:03+00'), 'thrift-is-fine'),
  ('ch-tag', min_timeuuid('2011-01-01 00:00:04+00'), 'ch-no-author'),
  ('ch-tag', min_timeuuid('2011-01-01 00:00:05+00'), 'the-godfather'),
  ('ch-empty', min_timeuuid('2011-01-01 00:00:01+00'), 'thrift-is-fine'),
  ('ch-empty', min_timeuuid('2011-01-01 00:00:02+00'), '');
INSERT INTO ch_entries (key, title, author) VALUES ('ch-no-author', 'No author', NULL);

CREATE TEMP TABLE l_tagged AS SELECT * FROM ch_tagged;
CREATE TEMP TABLE l_entries AS SELECT * FROM ch_entries;
CREATE TEMP TABLE l_authors AS SELECT * FROM ch_authors;

-- ---- the front page: three steps, one request ----
EXPLAIN (VERBOSE, COSTS OFF)
SELECT e.title, a.email FROM ch_tagged t
JOIN ch_entries e ON e.key = t.value JOIN ch_authors a ON a.key = e.author
WHERE t.key = '__notag__' ORDER BY t.column_name DESC LIMIT 10;
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF)
SELECT e.title, a.email FROM ch_tagged t
JOIN ch_entries e ON e.key = t.value JOIN ch_authors a ON a.key = e.author
WHERE t.key = '__notag__' ORDER BY t.column_name DESC LIMIT 10;
SELECT e.title, a.email FROM ch_tagged t
JOIN ch_entries e ON e.key = t.value JOIN ch_authors a ON a.key = e.author
WHERE t.key = '__notag__' ORDER BY t.column_name DESC LIMIT 10;
SELECT e.title, a.email FROM l_tagged t
JOIN l_entries e ON e.key = t.value JOIN l_authors a ON a.key = e.author
WHERE t.key = '__notag__' ORDER BY t.column_name DESC LIMIT 10;

-- without a LIMIT: the first page and the first batches are fetch_size; all of it,
-- compared both ways
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF)
SELECT t.column_name, e.title, a.email FROM ch_tagged t
JOIN ch_entries e ON e.key = t.value JOIN ch_authors a ON a.key = e.author
WHERE t.key = '__notag__';
(SELECT t.column_name, e.title, a.email FROM ch_tagged t
 JOIN ch_entries e ON e.key = t.value JOIN ch_authors a ON a.key = e.author
 WHERE t.key = '__notag__'
 EXCEPT ALL
 SELECT t.column_name, e.title, a.email FROM l_tagged t
 JOIN l_entries e ON e.key = t.value JOIN l_authors a ON a.key = e.author
 WHERE t.key = '__notag__')
UNION ALL
(SELECT t.column_name, e.title, a.email FROM l_tagged t
 JOIN l_entries e ON e.key = t.value JOIN l_authors a ON a.key = e.author
 WHERE t.key = '__notag__'
 EXCEPT ALL
 SELECT t.column_name, e.title, a.email FROM ch_tagged t
 JOIN ch_entries e ON e.key = t.value JOIN ch_authors a ON a.key = e.author
 WHERE t.key = '__notag__');

-- several outer keys (key = ANY): step 0 is the first batch of keys
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF)
SELECT t.key, e.title FROM ch_tagged t JOIN ch_entries e ON e.key = t.value
WHERE t.key = ANY (ARRAY['ch-tag', 'ch-empty', 'ch-none']);
SELECT t.key, t.column_name, e.title, e.author FROM ch_tagged t
JOIN ch_entries e ON e.key = t.value
WHERE t.key = ANY (ARRAY['ch-tag', 'ch-empty', 'ch-none']) ORDER BY 1, 2;
SELECT t.key, t.column_name, e.title, e.author FROM l_tagged t
JOIN l_entries e ON e.key = t.value
WHERE t.key = ANY (ARRAY['ch-tag', 'ch-empty', 'ch-none']) ORDER BY 1, 2;

-- duplicate, absent keys and a NULL author: the answers serve, the rows are SQL's
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF)
SELECT t.value, e.title, a.email FROM ch_tagged t
JOIN ch_entries e ON e.key = t.value JOIN ch_authors a ON a.key = e.author
WHERE t.key = 'ch-tag' ORDER BY t.column_name DESC LIMIT 10;
SELECT t.value, e.title, a.email FROM ch_tagged t
JOIN ch_entries e ON e.key = t.value JOIN ch_authors a ON a.key = e.author
WHERE t.key = 'ch-tag' ORDER BY t.column_name DESC LIMIT 10;
SELECT t.value, e.title, a.email FROM l_tagged t
JOIN l_entries e ON e.key = t.value JOIN l_authors a ON a.key = e.author
WHERE t.key = 'ch-tag' ORDER BY t.column_name DESC LIMIT 10;

-- an empty value names no row: colfamd skips it, the FDW's batch holds it all the same
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF)
SELECT t.value, e.title FROM ch_tagged t JOIN ch_entries e ON e.key = t.value
WHERE t.key = 'ch-empty';
SELECT t.value, e.title FROM ch_tagged t JOIN ch_entries e ON e.key = t.value
WHERE t.key = 'ch-empty' ORDER BY t.column_name;

-- a filter on the outer rows that drops one of the first page's two: the first batch
-- needs a second page, whose key the answer cannot hold — the join asks itself
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF)
SELECT t.value, e.title FROM ch_tagged t JOIN ch_entries e ON e.key = t.value
WHERE t.key = 'ch-tag' AND t.value <> 'the-godfather' ORDER BY t.column_name DESC LIMIT 2;
SELECT t.value, e.title FROM ch_tagged t JOIN ch_entries e ON e.key = t.value
WHERE t.key = 'ch-tag' AND t.value <> 'the-godfather' ORDER BY t.column_name DESC LIMIT 2;
SELECT t.value, e.title FROM l_tagged t JOIN l_entries e ON e.key = t.value
WHERE t.key = 'ch-tag' AND t.value <> 'the-godfather' ORDER BY t.column_name DESC LIMIT 2;

-- bytea keys chain too
EXPLAIN (VERBOSE, COSTS OFF)
SELECT e.title FROM ch_tagged_b t JOIN ch_entries_b e ON e.key = t.value
WHERE t.key = '__notag__' ORDER BY t.column_name DESC LIMIT 3;
SELECT e.title FROM ch_tagged_b t JOIN ch_entries_b e ON e.key = t.value
WHERE t.key = '__notag__' ORDER BY t.column_name DESC LIMIT 3;

-- ---- no chain: another consistency level, a key computed from the outer row ----
EXPLAIN (VERBOSE, COSTS OFF)
SELECT e.title, a.email FROM ch_tagged t
JOIN ch_entries e ON e.key = t.value JOIN ch_authors_q a ON a.key = e.author
WHERE t.key = '__notag__' ORDER BY t.column_name DESC LIMIT 3;
EXPLAIN (VERBOSE, COSTS OFF)
SELECT e.title FROM ch_tagged t JOIN ch_entries e ON e.key = lower(t.value)
WHERE t.key = '__notag__' ORDER BY t.column_name DESC LIMIT 3;
SELECT e.title FROM ch_tagged t JOIN ch_entries e ON e.key = lower(t.value)
WHERE t.key = '__notag__' ORDER BY t.column_name DESC LIMIT 3;
SELECT e.title FROM l_tagged t JOIN l_entries e ON e.key = lower(t.value)
WHERE t.key = '__notag__' ORDER BY t.column_name DESC LIMIT 3;

-- ---- a rescan (a subquery run once per outer row): each run sends its chain again ----
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF)
SELECT g, (SELECT a.email FROM ch_tagged t
           JOIN ch_entries e ON e.key = t.value JOIN ch_authors a ON a.key = e.author
           WHERE t.key = '__notag__' ORDER BY t.column_name DESC OFFSET g LIMIT 1)
FROM generate_series(0, 2) g;
SELECT g, (SELECT a.email FROM ch_tagged t
           JOIN ch_entries e ON e.key = t.value JOIN ch_authors a ON a.key = e.author
           WHERE t.key = '__notag__' ORDER BY t.column_name DESC OFFSET g LIMIT 1)
FROM generate_series(0, 2) g;
SELECT g, (SELECT a.email FROM l_tagged t
           JOIN l_entries e ON e.key = t.value JOIN l_authors a ON a.key = e.author
           WHERE t.key = '__notag__' ORDER BY t.column_name DESC OFFSET g LIMIT 1)
FROM generate_series(0, 2) g;

-- a parameter in the outer scan's key (a correlated subquery): the nodes under the join
-- are rescanned before the chain reads their request, so every run sends one
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF)
SELECT v.k, (SELECT e.title FROM ch_tagged t JOIN ch_entries e ON e.key = t.value
             WHERE t.key = v.k ORDER BY t.column_name DESC LIMIT 1)
FROM (VALUES ('__notag__'), ('ch-tag'), ('ch-none')) v(k);
SELECT v.k, (SELECT e.title FROM ch_tagged t JOIN ch_entries e ON e.key = t.value
             WHERE t.key = v.k ORDER BY t.column_name DESC LIMIT 1)
FROM (VALUES ('__notag__'), ('ch-tag'), ('ch-none')) v(k);
SELECT v.k, (SELECT e.title FROM l_tagged t JOIN l_entries e ON e.key = t.value
             WHERE t.key = v.k ORDER BY t.column_name DESC LIMIT 1)
FROM (VALUES ('__notag__'), ('ch-tag'), ('ch-none')) v(k);

-- no chain when a step could look up more keys than its join's first batch: the answer
-- would serve that batch only (the inner table's fetch_size is 2 here)
CREATE FOREIGN TABLE ch_entries_2 (key text COLLATE "C", title text)
  SERVER ch OPTIONS (column_family 'BlogEntries', mapping 'rows', fetch_size '2');
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF)
SELECT t.value, e.title FROM ch_tagged t JOIN ch_entries_2 e ON e.key = t.value
WHERE t.key = 'ch-tag';
SELECT t.value, e.title FROM ch_tagged t JOIN ch_entries_2 e ON e.key = t.value
WHERE t.key = 'ch-tag' ORDER BY t.column_name;

-- ---- a Super CF as step 0 ('rows' mapping: a SQL row per super column): the keys are
-- a named sub-column's values, or the super column names ----
CREATE FOREIGN TABLE ch_comments (key text COLLATE "C", super_column timeuuid, entry text)
  SERVER ch OPTIONS (column_family 'Comments', mapping 'rows');
CREATE FOREIGN TABLE ch_entries_u (key timeuuid, title text)
  SERVER ch OPTIONS (column_family 'BlogEntries', mapping 'rows');
INSERT INTO ch_comments VALUES
  ('ch-entry', min_timeuuid('2011-01-01 00:00:01+00'), 'thrift-is-fine'),
  ('ch-entry', min_timeuuid('2011-01-01 00:00:02+00'), 'ch-absent'),
  ('ch-entry', min_timeuuid('2011-01-01 00:00:03+00'), 'the-godfather');
INSERT INTO ch_entries_u VALUES
  (min_timeuuid('2011-01-01 00:00:01+00'), 'Entry 1 by its uuid'),
  (min_timeuuid('2011-01-01 00:00:03+00'), 'Entry 3 by its uuid');
EXPLAIN (ANALYZE, VERBOSE, COSTS OFF, TIMING OFF, SUMMARY OFF)
SELECT c.super_column, e.title FROM ch_comments c JOIN ch_entries e ON e.key = c.entry
WHERE c.key = 'ch-entry';
SELECT c.super_column, e.title FROM ch_comments c JOIN ch_entries e ON e.key = c.entry
WHERE c.key = 'ch-entry' ORDER BY 1;
EXPLAIN (ANALYZE, VERBOSE, COSTS OFF, TIMING OFF, SUMMARY OFF)
SELECT c.entry, e.title FROM ch_comments c JOIN ch_entries_u e ON e.key = c.super_column
WHERE c.key = 'ch-entry';
SELECT c.entry, e.title FROM ch_comments c JOIN ch_entries_u e ON e.key = c.super_column
WHERE c.key = 'ch-entry' ORDER BY 1;
DELETE FROM ch_comments WHERE key = 'ch-entry';
DELETE FROM ch_entries_u WHERE key IN (min_timeuuid('2011-01-01 00:00:01+00'),
                                       min_timeuuid('2011-01-01 00:00:03+00'));
SELECT count(*) FROM ch_entries_u WHERE key IN (min_timeuuid('2011-01-01 00:00:01+00'),
                                                min_timeuuid('2011-01-01 00:00:03+00'));

-- ---- Twissandra: a timeline to its tweets (values) and their users (a named column),
-- two userlines' tweets (values) and users (step 0's row keys), followers by column
-- name ----
CREATE SERVER ch_ts FOREIGN DATA WRAPPER colfam_fdw
  OPTIONS (hosts :'colfam_hosts', keyspace 'Twissandra');
CREATE FOREIGN TABLE ch_timeline (key text COLLATE "C", column_name bigint, value text)
  SERVER ch_ts OPTIONS (column_family 'Timeline');
CREATE FOREIGN TABLE ch_userline (key text COLLATE "C", column_name bigint, value text)
  SERVER ch_ts OPTIONS (column_family 'Userline');
CREATE FOREIGN TABLE ch_followers (key text COLLATE "C", column_name text, value text)
  SERVER ch_ts OPTIONS (column_family 'Followers');
CREATE FOREIGN TABLE ch_users (key text COLLATE "C", username text)
  SERVER ch_ts OPTIONS (column_family 'User', mapping 'rows');
CREATE FOREIGN TABLE ch_tweets (key text COLLATE "C", user_id text COLLATE "C", body text)
  SERVER ch_ts OPTIONS (column_family 'Tweet', mapping 'rows');
CREATE TEMP TABLE l_timeline AS SELECT * FROM ch_timeline;
CREATE TEMP TABLE l_userline AS SELECT * FROM ch_userline;
CREATE TEMP TABLE l_followers AS SELECT * FROM ch_followers;
CREATE TEMP TABLE l_users AS SELECT * FROM ch_users;
CREATE TEMP TABLE l_tweets AS SELECT * FROM ch_tweets;

EXPLAIN (ANALYZE, VERBOSE, COSTS OFF, TIMING OFF, SUMMARY OFF)
SELECT tl.column_name, u.username, tw.body FROM ch_timeline tl
JOIN ch_tweets tw ON tw.key = tl.value JOIN ch_users u ON u.key = tw.user_id
WHERE tl.key = 'a4a70900-24e1-11df-8924-001ff3591711'
ORDER BY tl.column_name DESC LIMIT 5;
SELECT tl.column_name, u.username, tw.body FROM ch_timeline tl
JOIN ch_tweets tw ON tw.key = tl.value JOIN ch_users u ON u.key = tw.user_id
WHERE tl.key = 'a4a70900-24e1-11df-8924-001ff3591711'
ORDER BY tl.column_name DESC LIMIT 5;
SELECT tl.column_name, u.username, tw.body FROM l_timeline tl
JOIN l_tweets tw ON tw.key = tl.value JOIN l_users u ON u.key = tw.user_id
WHERE tl.key = 'a4a70900-24e1-11df-8924-001ff3591711'
ORDER BY tl.column_name DESC LIMIT 5;

EXPLAIN (ANALYZE, VERBOSE, COSTS OFF, TIMING OFF, SUMMARY OFF)
SELECT ul.column_name, tw.body, u.username FROM ch_userline ul
JOIN ch_tweets tw ON tw.key = ul.value JOIN ch_users u ON u.key = ul.key
WHERE ul.key = ANY (ARRAY['10cf667c-24e2-11df-8924-001ff3591711',
                          'a4a70900-24e1-11df-8924-001ff3591711']);
SELECT ul.column_name, tw.body, u.username FROM ch_userline ul
JOIN ch_tweets tw ON tw.key = ul.value JOIN ch_users u ON u.key = ul.key
WHERE ul.key = ANY (ARRAY['10cf667c-24e2-11df-8924-001ff3591711',
                          'a4a70900-24e1-11df-8924-001ff3591711'])
ORDER BY ul.key, ul.column_name DESC;
SELECT ul.column_name, tw.body, u.username FROM l_userline ul
JOIN l_tweets tw ON tw.key = ul.value JOIN l_users u ON u.key = ul.key
WHERE ul.key = ANY (ARRAY['10cf667c-24e2-11df-8924-001ff3591711',
                          'a4a70900-24e1-11df-8924-001ff3591711'])
ORDER BY ul.key, ul.column_name DESC;

EXPLAIN (ANALYZE, VERBOSE, COSTS OFF, TIMING OFF, SUMMARY OFF)
SELECT f.column_name, u.username FROM ch_followers f JOIN ch_users u ON u.key = f.column_name
WHERE f.key = 'a4a70900-24e1-11df-8924-001ff3591711';
SELECT f.column_name, u.username FROM ch_followers f JOIN ch_users u ON u.key = f.column_name
WHERE f.key = 'a4a70900-24e1-11df-8924-001ff3591711' ORDER BY 1;
SELECT f.column_name, u.username FROM l_followers f JOIN l_users u ON u.key = f.column_name
WHERE f.key = 'a4a70900-24e1-11df-8924-001ff3591711' ORDER BY 1;

DELETE FROM ch_tagged WHERE key IN ('ch-tag', 'ch-empty');
DELETE FROM ch_entries WHERE key = 'ch-no-author';
SELECT count(*) FROM ch_tagged WHERE key IN ('ch-tag', 'ch-empty');

DROP SERVER ch CASCADE;
DROP SERVER ch_ts CASCADE;
DROP TABLE l_tagged, l_entries, l_authors, l_timeline, l_userline, l_followers, l_users,
  l_tweets;
DROP EXTENSION colfam_fdw CASCADE;
