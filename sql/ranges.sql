-- ===================================================================
-- ranges: key ranges pushed to an order-preserving node (ByteOrderedPartitioner, at
-- $COLFAM_HOSTS_BOP) and token(key) ranges to a RandomPartitioner node
-- ($COLFAM_HOSTS), each compared with the same query over a local copy.
-- ===================================================================
\getenv colfam_hosts COLFAM_HOSTS
\getenv colfam_hosts_bop COLFAM_HOSTS_BOP
CREATE EXTENSION IF NOT EXISTS colfam_fdw;
CREATE SERVER bop FOREIGN DATA WRAPPER colfam_fdw
  OPTIONS (hosts :'colfam_hosts_bop', keyspace 'BloggyAppy', fetch_size '3');
CREATE SERVER rp FOREIGN DATA WRAPPER colfam_fdw
  OPTIONS (hosts :'colfam_hosts', keyspace 'BloggyAppy', fetch_size '3');
CREATE FOREIGN TABLE bop_tagged (key text COLLATE "C", column_name timeuuid, value text)
  SERVER bop OPTIONS (column_family 'TaggedPosts');
CREATE FOREIGN TABLE rp_tagged (key text COLLATE "C", column_name timeuuid, value text)
  SERVER rp OPTIONS (column_family 'TaggedPosts');
-- the copies come from full scans (nothing pushed)
CREATE TEMP TABLE l_tagged AS SELECT * FROM rp_tagged;
CREATE TEMP TABLE l_bop AS SELECT * FROM bop_tagged;

-- ---- key ranges: rows in key order, every column of each (pages of 3) ----
EXPLAIN (VERBOSE, COSTS OFF)
SELECT key, count(*) FROM bop_tagged WHERE key >= 'g' AND key < 'm' GROUP BY key;
SELECT key, count(*) FROM bop_tagged WHERE key >= 'g' AND key < 'm' GROUP BY key ORDER BY key;
SELECT key, count(*) FROM l_bop WHERE key >= 'g' AND key < 'm' GROUP BY key ORDER BY key;
SELECT count(*) FROM (SELECT * FROM bop_tagged WHERE key > 'life' EXCEPT ALL
                      SELECT * FROM l_bop WHERE key > 'life') d;
SELECT count(*) FROM (SELECT * FROM l_bop WHERE key > 'life' EXCEPT ALL
                      SELECT * FROM bop_tagged WHERE key > 'life') d;
-- an empty range and a NULL bound return nothing
SELECT count(*) FROM bop_tagged WHERE key >= 'z' AND key <= 'a';
SELECT count(*) FROM bop_tagged WHERE key >= NULL;
-- RandomPartitioner does not order keys: the range is a filter on a full scan
EXPLAIN (VERBOSE, COSTS OFF) SELECT key FROM rp_tagged WHERE key >= 'g' AND key < 'm';

-- ---- token ranges (RandomPartitioner) ----
CREATE TEMP TABLE l_tokens AS SELECT DISTINCT key, token(key) AS t FROM l_tagged;
SELECT count(*) AS keys FROM l_tokens;
EXPLAIN (VERBOSE, COSTS OFF)
SELECT key FROM rp_tagged WHERE token(key) > 85070591730234615865843651857942052864;
SELECT DISTINCT key FROM rp_tagged
WHERE token(key) > 85070591730234615865843651857942052864 ORDER BY key;
SELECT key FROM l_tokens WHERE t > 85070591730234615865843651857942052864 ORDER BY key;
SELECT DISTINCT key FROM rp_tagged
WHERE token(key) >= (SELECT min(t) FROM l_tokens) AND token(key) <= (SELECT max(t) FROM l_tokens)
ORDER BY key;
SELECT count(DISTINCT key) FROM rp_tagged WHERE token(key) <= 0;
SELECT count(DISTINCT key) FROM rp_tagged WHERE token(key) > 170141183460469231731687303715884105728;
-- past the ring's last token (2^127) nothing is asked: no row comes back to be filtered
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF)
SELECT key FROM rp_tagged WHERE token(key) > 170141183460469231731687303715884105728;
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF)
SELECT key FROM rp_tagged WHERE token(key) >= 170141183460469231731687303715884105729;

-- ---- a wide row in a range scan: 100 columns a row a page, the rest by its pager ----
INSERT INTO rp_tagged
SELECT 'wide', min_timeuuid('2011-01-01 00:00:00+00'::timestamptz + i * interval '1 second'),
       'entry-' || i
FROM generate_series(1, 250) i;
SELECT key, count(*), count(DISTINCT column_name), min(value), max(value)
FROM rp_tagged GROUP BY key HAVING count(*) > 100;
SELECT count(*) FROM (SELECT * FROM rp_tagged EXCEPT ALL
  (SELECT * FROM l_tagged UNION ALL SELECT * FROM rp_tagged WHERE key = 'wide')) d;
DELETE FROM rp_tagged WHERE key = 'wide';
SELECT count(*) FROM rp_tagged WHERE key = 'wide';

-- ---- wide rows of several widths: once a range row fills its 100 columns, the range
-- pages after it ask for more columns and fewer rows (at most fetch_size x 20 = 200
-- columns a page at the tables' fetch_size of 10, so the first page asks 2 rows and
-- the later ones 1 row of 200 columns); a row wider than that still goes on by its
-- pager ----
ALTER FOREIGN TABLE rp_tagged OPTIONS (ADD fetch_size '10');
ALTER FOREIGN TABLE bop_tagged OPTIONS (ADD fetch_size '10');
CREATE TEMP TABLE l_wide AS
SELECT 'wide-' || w AS key,
       min_timeuuid('2011-01-01 00:00:00+00'::timestamptz + i * interval '1 second') AS column_name,
       'entry-' || w || '-' || i AS value
FROM (VALUES (1, 150), (2, 250), (3, 400), (4, 101), (5, 100), (6, 99), (7, 301)) v(w, n),
     generate_series(1, n) i;
INSERT INTO rp_tagged SELECT * FROM l_wide;
SELECT key, count(*), count(DISTINCT column_name), min(value), max(value)
FROM rp_tagged GROUP BY key HAVING count(*) > 10 ORDER BY key;
SELECT count(*) FROM (SELECT * FROM rp_tagged EXCEPT ALL
  (SELECT * FROM l_tagged UNION ALL SELECT * FROM l_wide)) d;
SELECT count(*) FROM ((SELECT * FROM l_tagged UNION ALL SELECT * FROM l_wide) EXCEPT ALL
  SELECT * FROM rp_tagged) d;
DELETE FROM rp_tagged
WHERE key IN ('wide-1', 'wide-2', 'wide-3', 'wide-4', 'wide-5', 'wide-6', 'wide-7');
SELECT count(*) FROM rp_tagged WHERE key LIKE 'wide-%';

-- ---- the same wide rows in a key range (ByteOrderedPartitioner): once a row fills
-- the columns its page asked, the rest of the page is asked again with more columns
-- a row; every column comes once, rows in key order, columns in name order ----
INSERT INTO bop_tagged SELECT * FROM l_wide;
CREATE TEMP TABLE s_wide AS
SELECT row_number() OVER () AS ord, key, column_name, value,
       split_part(value, '-', 3)::int AS i
FROM bop_tagged WHERE key >= 'wide-' AND key < 'wide.';
SELECT key, count(*), min(i), max(i) FROM s_wide GROUP BY key ORDER BY key;
SELECT count(*) FROM (SELECT key, column_name, value FROM s_wide EXCEPT ALL
                      SELECT * FROM l_wide) d;
SELECT count(*) FROM (SELECT * FROM l_wide EXCEPT ALL
                      SELECT key, column_name, value FROM s_wide) d;
-- out of order: a key below the one before it, or in one row a column not after it
SELECT count(*) AS out_of_order
FROM (SELECT key, i, lag(key) OVER w AS pkey, lag(i) OVER w AS pi
      FROM s_wide WINDOW w AS (ORDER BY ord)) d
WHERE pkey > key OR (pkey = key AND pi >= i);
-- under a LIMIT: the first columns in that order
SELECT key, count(*), min(i), max(i)
FROM (SELECT key, split_part(value, '-', 3)::int AS i FROM bop_tagged
      WHERE key >= 'wide-' AND key < 'wide.' LIMIT 520) d
GROUP BY key ORDER BY key;
-- from the middle of a row's page on: wide-3 and after
SELECT key, count(*), min(split_part(value, '-', 3)::int)
FROM bop_tagged WHERE key > 'wide-2' AND key <= 'wide-5' GROUP BY key ORDER BY key;
DELETE FROM bop_tagged
WHERE key IN ('wide-1', 'wide-2', 'wide-3', 'wide-4', 'wide-5', 'wide-6', 'wide-7');
SELECT count(*) FROM bop_tagged WHERE key LIKE 'wide-%';
ALTER FOREIGN TABLE rp_tagged OPTIONS (DROP fetch_size);
ALTER FOREIGN TABLE bop_tagged OPTIONS (DROP fetch_size);

DROP TABLE l_tagged, l_bop, l_tokens, l_wide, s_wide;
DROP EXTENSION colfam_fdw CASCADE;
