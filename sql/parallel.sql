-- ===================================================================
-- parallel: a scan of the whole ring or of a token(key) range cut into chunks of
-- tokens that the leader and the workers of a parallel plan share (RandomPartitioner,
-- at $COLFAM_HOSTS); every answer compared with the same query over a local copy.
-- ===================================================================
\getenv colfam_hosts COLFAM_HOSTS
CREATE EXTENSION IF NOT EXISTS colfam_fdw;
CREATE SERVER par FOREIGN DATA WRAPPER colfam_fdw
  OPTIONS (hosts :'colfam_hosts', keyspace 'BloggyAppy', fetch_size '7');
CREATE FOREIGN TABLE par_tagged (key text COLLATE "C", column_name timeuuid, value text)
  SERVER par OPTIONS (column_family 'TaggedPosts');
CREATE FOREIGN TABLE par_comments (key text COLLATE "C", super_column timeuuid,
                                   column_name text COLLATE "C", value text)
  SERVER par OPTIONS (column_family 'Comments');
CREATE FOREIGN TABLE par_entries (key text COLLATE "C", title text, author text)
  SERVER par OPTIONS (column_family 'BlogEntries', mapping 'rows');

-- more rows than the seeds hold: 300 keys of 1 to 149 columns, some wider than the
-- 100 columns a range page asks a row; the local copies are read serially
SET max_parallel_workers_per_gather = 0;
INSERT INTO par_tagged
SELECT 'par-' || k, min_timeuuid('2011-01-01 00:00:00+00'::timestamptz + (k * 1000 + i) * interval '1 second'),
       'v-' || k || '-' || i
FROM generate_series(1, 300) k, generate_series(1, 1 + (k * 37) % 149) i;
CREATE TEMP TABLE l_tagged AS SELECT * FROM par_tagged;
CREATE TEMP TABLE l_comments AS SELECT * FROM par_comments;
CREATE TEMP TABLE l_entries AS SELECT * FROM par_entries;
CREATE TEMP TABLE l_tokens AS SELECT DISTINCT key, token(key) AS t FROM l_tagged;
SELECT count(*) AS columns, count(DISTINCT key) AS keys FROM l_tagged;

-- parallel plans even for these small tables
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;

EXPLAIN (VERBOSE, COSTS OFF) SELECT count(*), count(DISTINCT key) FROM par_tagged;
SELECT count(*), count(DISTINCT key), sum(length(value)) FROM par_tagged;
SELECT count(*), count(DISTINCT key), sum(length(value)) FROM l_tagged;
-- every column once: nothing missing, nothing twice
EXPLAIN (COSTS OFF) SELECT count(*) FROM (SELECT * FROM par_tagged EXCEPT ALL SELECT * FROM l_tagged) d;
SELECT count(*) FROM (SELECT * FROM par_tagged EXCEPT ALL SELECT * FROM l_tagged) d;
SELECT count(*) FROM (SELECT * FROM l_tagged EXCEPT ALL SELECT * FROM par_tagged) d;

-- the workers alone, without the leader
SET parallel_leader_participation = off;
SELECT count(*), count(DISTINCT key), sum(length(value)) FROM par_tagged;
CREATE FUNCTION pg_temp.workers_launched(q text) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE
  l text;
BEGIN
  FOR l IN EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) ' || q LOOP
    IF l ~ 'Workers Launched' THEN RETURN NEXT btrim(l); END IF;
  END LOOP;
END $$;
SELECT pg_temp.workers_launched('SELECT count(*) FROM par_tagged');
RESET parallel_leader_participation;

-- a token range: only its chunks of tokens are read
EXPLAIN (VERBOSE, COSTS OFF)
SELECT count(*) FROM par_tagged WHERE token(key) > 85070591730234615865843651857942052864;
SELECT count(*), count(DISTINCT key) FROM par_tagged
WHERE token(key) > 85070591730234615865843651857942052864;
SELECT count(*), count(DISTINCT key) FROM l_tagged l JOIN l_tokens USING (key)
WHERE t > 85070591730234615865843651857942052864;
SELECT count(*) FROM par_tagged WHERE token(key) <= 85070591730234615865843651857942052864;
SELECT count(*) FROM l_tagged l JOIN l_tokens USING (key)
WHERE t <= 85070591730234615865843651857942052864;
-- a range of three tokens, far fewer than the chunks: one key's, each column once
SELECT (SELECT count(*) FROM par_tagged
        WHERE token(key) >= (SELECT min(t) FROM l_tokens)
          AND token(key) <= (SELECT min(t) FROM l_tokens) + 2) =
       (SELECT count(*) FROM l_tagged l JOIN l_tokens USING (key)
        WHERE t = (SELECT min(t) FROM l_tokens)) AS one_key;
-- the largest token only (2^127 ends the ring)
SELECT count(*) FROM par_tagged WHERE token(key) > 170141183460469231731687303715884105727;

-- a Gather rescanned for each outer row: each rescan reads every chunk again
SET enable_material = off;
EXPLAIN (COSTS OFF)
SELECT v.x, s.* FROM (SELECT count(*), count(DISTINCT key) FROM par_tagged) s
RIGHT JOIN (VALUES (1), (2), (3)) v(x) ON true;
SELECT v.x, s.* FROM (SELECT count(*), count(DISTINCT key) FROM par_tagged) s
RIGHT JOIN (VALUES (1), (2), (3)) v(x) ON true;
RESET enable_material;

-- a Super CF, the 'rows' mapping, and a LIMIT over a parallel scan
SELECT count(*), count(DISTINCT (key, super_column)) FROM par_comments;
SELECT count(*), count(DISTINCT (key, super_column)) FROM l_comments;
SELECT count(*) FROM (SELECT * FROM par_entries EXCEPT ALL SELECT * FROM l_entries) d;
SELECT count(*), count(title), count(author) FROM par_entries;
SELECT count(*), count(title), count(author) FROM l_entries;
SELECT count(*) FROM (SELECT * FROM par_tagged LIMIT 50) s;

-- key lookups are not cut: one process reads them
EXPLAIN (VERBOSE, COSTS OFF) SELECT count(*) FROM par_tagged WHERE key = 'par-7';
SELECT count(*) FROM par_tagged WHERE key = 'par-7';

RESET max_parallel_workers_per_gather;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
DELETE FROM par_tagged WHERE key LIKE 'par-%';
SELECT count(*) FROM par_tagged WHERE key LIKE 'par-%';
DROP TABLE l_tagged, l_comments, l_entries, l_tokens;
DROP EXTENSION colfam_fdw CASCADE;
