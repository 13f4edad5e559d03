-- ===================================================================
-- planner: the sizes the planner works with — colfamd's estimates for a table never
-- ANALYZEd (colfam_cfstats), ANALYZE's sample and row count — and key = ANY(array) as
-- batches of multiget_slice, wide rows included.
-- The suite loads tests/data/seeds/twitter.cli into a colfamd at $COLFAM_HOSTS.
-- ===================================================================
\getenv colfam_hosts COLFAM_HOSTS
CREATE EXTENSION IF NOT EXISTS colfam_fdw;
CREATE SERVER tw FOREIGN DATA WRAPPER colfam_fdw
  OPTIONS (hosts :'colfam_hosts', keyspace 'Twitter');

-- fetch_size '1': a never-ANALYZEd table counts at least 10 pages (fetch_size rows
-- each), which at the default fetch_size would hide the seed's small sizes
CREATE FOREIGN TABLE statuses (key text COLLATE "C", column_name text COLLATE "C", value text)
  SERVER tw OPTIONS (column_family 'Statuses', fetch_size '1');
CREATE FOREIGN TABLE status_rows (key text COLLATE "C", text text, user_id text,
                                  reply_to_id text)
  SERVER tw OPTIONS (column_family 'Statuses', mapping 'rows', fetch_size '1');
CREATE FOREIGN TABLE timelines (key text COLLATE "C", super_column text COLLATE "C",
                                column_name timeuuid, value text)
  SERVER tw OPTIONS (column_family 'UserRelationships', fetch_size '1');
CREATE FOREIGN TABLE statuses_1000 (key text COLLATE "C", column_name text COLLATE "C",
                                    value text)
  SERVER tw OPTIONS (column_family 'Statuses');

-- the planner's row estimate of a query, from EXPLAIN's JSON (costs are not shown)
CREATE FUNCTION plan_rows(q text) RETURNS float8 LANGUAGE plpgsql AS $$
DECLARE j json;
BEGIN
  EXECUTE 'EXPLAIN (FORMAT JSON) ' || q INTO j;
  RETURN (j->0->'Plan'->>'Plan Rows')::float8;
END $$;

-- ---- never ANALYZEd: colfamd's estimate of the CF (6 rows, 14 columns) ----
SELECT relname, reltuples FROM pg_class
WHERE relname IN ('statuses', 'status_rows') ORDER BY relname;
-- 'columns' mapping: a SQL row per column (14, 18 sub-columns); 'rows' mapping: one per
-- key (6, counted as the floor of 10 pages of 1); at fetch_size 1000, 10000
SELECT plan_rows('SELECT * FROM statuses') AS columns_rows,
       plan_rows('SELECT * FROM status_rows') AS rows_rows,
       plan_rows('SELECT * FROM timelines') AS super_rows,
       plan_rows('SELECT * FROM statuses_1000') AS floor_rows;
-- key = v is one key's columns (14 / 6), not Postgres's default 0.5% of the table
SELECT plan_rows($$SELECT * FROM statuses WHERE key = '1'$$) AS one_key,
       plan_rows($$SELECT * FROM statuses WHERE key = ANY (ARRAY['1', '2', '3'])$$) AS three_keys,
       plan_rows($$SELECT * FROM statuses_1000 WHERE key = '1'$$) AS one_key_1000,
       plan_rows($$SELECT * FROM status_rows WHERE key = '1'$$) AS one_row;
-- the estimate decides the plan: a join from a local table of 300 keys reads the small
-- CF once (a hash join) instead of making 300 key lookups ...
CREATE TEMP TABLE wanted AS SELECT (i % 7)::text AS id FROM generate_series(1, 300) i;
ANALYZE wanted;
EXPLAIN (COSTS OFF)
SELECT w.id, s.value FROM wanted w JOIN statuses s ON s.key = w.id WHERE s.column_name = 'text';
-- ... while one outer row becomes a key lookup
CREATE TEMP TABLE one_id AS SELECT '1'::text AS id;
ANALYZE one_id;
EXPLAIN (COSTS OFF)
SELECT s.value FROM one_id w JOIN statuses s ON s.key = w.id;
SELECT s.column_name, s.value FROM one_id w JOIN statuses s ON s.key = w.id ORDER BY 1;

-- ---- ANALYZE: every row read, counted, sampled ----
ANALYZE statuses, status_rows, timelines;
SELECT relname, reltuples FROM pg_class
WHERE relname IN ('statuses', 'status_rows', 'timelines') ORDER BY relname;
SELECT count(*) FROM statuses;
SELECT count(*) FROM timelines;
SELECT tablename, attname, n_distinct, most_common_vals FROM pg_stats
WHERE tablename IN ('statuses', 'status_rows') AND attname IN ('key', 'column_name', 'user_id')
ORDER BY tablename, attname;
-- ANALYZE's figures now win over colfamd's
SELECT plan_rows('SELECT * FROM statuses') AS columns_rows,
       plan_rows($$SELECT * FROM status_rows WHERE user_id = '5'$$) AS user5;

-- ---- key = ANY: multiget_slice in batches of fetch_size keys ----
CREATE FOREIGN TABLE audits (key text COLLATE "C", column_name text COLLATE "C", value text)
  SERVER tw OPTIONS (column_family 'StatusAudits', fetch_size '2');
-- a wide row (400 columns: over the 100 a batch asks per row) and narrow ones
INSERT INTO audits SELECT 'wide', 'c' || lpad(i::text, 4, '0'), 'v' || i
FROM generate_series(1, 400) i;
INSERT INTO audits VALUES ('narrow', 'a', '1'), ('narrow', 'b', '2'), ('narrow', 'c', '3'),
  ('wide2', 'x', '1'), ('wide2', 'y', '2');
CREATE TEMP TABLE l_audits AS SELECT * FROM audits;
SELECT count(*) FROM l_audits;

EXPLAIN (VERBOSE, COSTS OFF)
SELECT key, count(*) FROM audits WHERE key = ANY (ARRAY['narrow', 'wide', 'none', 'wide2']) GROUP BY key;
-- every column of every key, the wide row continued past its first 100 columns
SELECT key, count(*), min(column_name), max(column_name) FROM audits
WHERE key = ANY (ARRAY['narrow', 'wide', 'none', 'wide2', 'narrow']) GROUP BY key ORDER BY key;
SELECT count(*) FROM (
  SELECT * FROM audits WHERE key = ANY (ARRAY['narrow', 'wide', 'none', 'wide2'])
  EXCEPT ALL SELECT * FROM l_audits) d;
SELECT count(*) FROM (
  SELECT * FROM l_audits
  EXCEPT ALL SELECT * FROM audits WHERE key = ANY (ARRAY['narrow', 'wide', 'none', 'wide2'])) d;
-- the rows come key by key in the array's order, each in its comparator's order
SELECT key, column_name FROM audits WHERE key = ANY (ARRAY['wide2', 'narrow', 'wide2']);
-- a slice with the batch: names and bounds apply to every key
SELECT key, column_name FROM audits
WHERE key = ANY (ARRAY['wide', 'narrow']) AND column_name IN ('b', 'c0300', 'zz');
SELECT key, count(*) FROM audits
WHERE key = ANY (ARRAY['wide', 'narrow']) AND column_name >= 'c0390' GROUP BY key ORDER BY key;
-- parameterized: a prepared statement's array, and a lateral one
PREPARE by_keys(text[]) AS SELECT key, count(*) FROM audits WHERE key = ANY ($1) GROUP BY key ORDER BY key;
EXECUTE by_keys(ARRAY['wide', 'wide2', 'none']);
EXECUTE by_keys(ARRAY['narrow']);
EXECUTE by_keys(ARRAY[]::text[]);
DEALLOCATE by_keys;
EXPLAIN (VERBOSE, COSTS OFF)
SELECT v.n, c.cnt FROM (VALUES (1, ARRAY['wide', 'narrow']), (2, ARRAY['wide2'])) v(n, ks),
  LATERAL (SELECT count(*) AS cnt FROM audits a WHERE a.key = ANY (v.ks)) c;
SELECT v.n, c.cnt FROM (VALUES (1, ARRAY['wide', 'narrow']), (2, ARRAY['wide2'])) v(n, ks),
  LATERAL (SELECT count(*) AS cnt FROM audits a WHERE a.key = ANY (v.ks)) c ORDER BY v.n;
-- the 'rows' mapping: absent keys are no rows, also when no column is asked for
SELECT key, text FROM status_rows WHERE key = ANY (ARRAY['2', '99', '1']);
SELECT count(*) FROM status_rows WHERE key = ANY (ARRAY['2', '99', '1', '6']);

-- ---- ANALYZE of more rows than the sample holds ----
ALTER FOREIGN TABLE audits ALTER COLUMN key SET STATISTICS 1,
  ALTER COLUMN column_name SET STATISTICS 1, ALTER COLUMN value SET STATISTICS 1;
ANALYZE VERBOSE audits;
SELECT reltuples FROM pg_class WHERE relname = 'audits';

-- ---- writetime: the column's timestamp written and read back; a timestamptz that
-- microseconds since 1970 in a bigint cannot hold is an ERROR, either way ----
CREATE FOREIGN TABLE audits_wt (key text COLLATE "C", column_name text COLLATE "C",
                                value text, writetime timestamptz)
  SERVER tw OPTIONS (column_family 'StatusAudits');
CREATE FOREIGN TABLE audits_wt_us (key text COLLATE "C", column_name text COLLATE "C",
                                   value text, writetime bigint)
  SERVER tw OPTIONS (column_family 'StatusAudits');
INSERT INTO audits_wt VALUES ('wt', 'a', '1', '2011-01-02 03:04:05.678901+00');
INSERT INTO audits_wt VALUES ('wt', 'b', '2', 'infinity');
INSERT INTO audits_wt VALUES ('wt', 'c', '3', '294276-12-31 23:59:59+00');
INSERT INTO audits_wt_us VALUES ('wt', 'd', '4', -9223372036854775807);
SELECT column_name, writetime FROM audits_wt_us WHERE key = 'wt' ORDER BY column_name;
SELECT column_name, writetime AT TIME ZONE 'UTC' AS writetime_utc FROM audits_wt
WHERE key = 'wt' AND column_name = 'a';
SELECT column_name, writetime FROM audits_wt WHERE key = 'wt';
DELETE FROM audits_wt_us WHERE key = 'wt';
SELECT count(*) FROM audits_wt_us WHERE key = 'wt';
DROP FOREIGN TABLE audits_wt, audits_wt_us;

-- a consistency level named in any case (the validator takes any) is that level, and
-- EXPLAIN shows the level sent
CREATE FOREIGN TABLE statuses_lc (key text COLLATE "C", column_name text COLLATE "C",
                                  value text)
  SERVER tw OPTIONS (column_family 'Statuses', read_consistency 'quorum');
EXPLAIN (VERBOSE, COSTS OFF) SELECT value FROM statuses_lc WHERE key = '1';
SELECT column_name, value FROM statuses_lc WHERE key = '1' ORDER BY column_name;
DROP FOREIGN TABLE statuses_lc;

-- leave colfamd as we found it
DELETE FROM audits WHERE key IN ('wide', 'narrow', 'wide2');
SELECT count(*) FROM audits;
DROP TABLE l_audits, wanted, one_id;
DROP FUNCTION plan_rows(text);
DROP EXTENSION colfam_fdw CASCADE;
