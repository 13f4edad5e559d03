-- ===================================================================
-- snapshot: a statement that writes a column family while it reads it must not see
-- its own writes (the Halloween problem). The scans that could (snapshot.c) read
-- whole first — EXPLAIN shows "Colfam Snapshot" — and every result is checked against
-- the same statement on a native copy. fetch_size 3 makes each scan page many times
-- while the statement writes.
-- The suite loads tests/data/seeds/snapshot.cli into a colfamd at $COLFAM_HOSTS.
-- ===================================================================
\getenv colfam_hosts COLFAM_HOSTS
CREATE EXTENSION IF NOT EXISTS colfam_fdw;
CREATE SERVER snap FOREIGN DATA WRAPPER colfam_fdw
  OPTIONS (hosts :'colfam_hosts', keyspace 'Snapshot', fetch_size '3');
CREATE FOREIGN TABLE names (key text COLLATE "C", column_name text COLLATE "C", value text)
  SERVER snap OPTIONS (column_family 'Names');
CREATE FOREIGN TABLE snames (key text COLLATE "C", super_column text COLLATE "C",
                             column_name text COLLATE "C", value text)
  SERVER snap OPTIONS (column_family 'SuperNames');
CREATE TABLE l_names (key text COLLATE "C", column_name text COLLATE "C", value text,
                      PRIMARY KEY (key, column_name));

-- the foreign table and its native copy differ: rows of one that the other lacks
CREATE FUNCTION diff() RETURNS TABLE (side text, key text, column_name text, value text)
LANGUAGE sql AS $$
  (SELECT 'colfam only', * FROM names EXCEPT ALL SELECT 'colfam only', * FROM l_names)
  UNION ALL
  (SELECT 'native only', * FROM l_names EXCEPT ALL SELECT 'native only', * FROM names)
  ORDER BY 1, 2, 3
$$;

INSERT INTO names SELECT 'k', 'c' || lpad(i::text, 3, '0'), 'v' || i
FROM generate_series(1, 50) i;
INSERT INTO l_names SELECT * FROM names;

-- ---- a rename moves each column ahead of the scan: read whole first ----
EXPLAIN (COSTS OFF) UPDATE names SET column_name = column_name || 'x' WHERE key = 'k';
UPDATE names SET column_name = column_name || 'x' WHERE key = 'k';
UPDATE l_names SET column_name = column_name || 'x' WHERE key = 'k';
SELECT * FROM diff();
SELECT count(*), min(column_name), max(column_name) FROM names;

-- ---- a value-only UPDATE and a DELETE write only behind the scan: they stream ----
EXPLAIN (COSTS OFF) UPDATE names SET value = value || '!' WHERE key = 'k';
UPDATE names SET value = value || '!' WHERE key = 'k';
UPDATE l_names SET value = value || '!' WHERE key = 'k';
EXPLAIN (COSTS OFF) DELETE FROM names WHERE key = 'k' AND column_name > 'c040';
DELETE FROM names WHERE key = 'k' AND column_name > 'c040';
DELETE FROM l_names WHERE key = 'k' AND column_name > 'c040';
SELECT * FROM diff();

-- ---- INSERT ... SELECT from the same CF: more rows than an insert batch (100) ----
INSERT INTO names SELECT 'w', 'c' || lpad(i::text, 3, '0'), 'w' || i
FROM generate_series(1, 300) i;
INSERT INTO l_names SELECT 'w', 'c' || lpad(i::text, 3, '0'), 'w' || i
FROM generate_series(1, 300) i;
EXPLAIN (COSTS OFF) INSERT INTO names SELECT key, column_name || 'y', value FROM names WHERE key = 'w';
INSERT INTO names SELECT key, column_name || 'y', value FROM names WHERE key = 'w';
INSERT INTO l_names SELECT key, column_name || 'y', value FROM l_names WHERE key = 'w';
SELECT * FROM diff();

-- ---- a scan that starts after the first writes (the second branch of UNION ALL) ----
EXPLAIN (COSTS OFF)
INSERT INTO names SELECT 'u', 'n' || lpad(i::text, 3, '0'), 'new' FROM generate_series(1, 150) i
UNION ALL SELECT key, column_name, 'copy' FROM names WHERE key = 'u';
INSERT INTO names SELECT 'u', 'n' || lpad(i::text, 3, '0'), 'new' FROM generate_series(1, 150) i
UNION ALL SELECT key, column_name, 'copy' FROM names WHERE key = 'u';
INSERT INTO l_names SELECT 'u', 'n' || lpad(i::text, 3, '0'), 'new' FROM generate_series(1, 150) i;
SELECT * FROM diff();

-- ---- a correlated subquery: its outer value stays a filter, each rescan replays ----
EXPLAIN (COSTS OFF)
UPDATE names SET column_name = column_name || '+',
  value = (SELECT count(*) FROM names n2 WHERE n2.key = names.key)::text
WHERE key = 'k';
UPDATE names SET column_name = column_name || '+',
  value = (SELECT count(*) FROM names n2 WHERE n2.key = names.key)::text
WHERE key = 'k';
UPDATE l_names SET column_name = column_name || '+',
  value = (SELECT count(*) FROM l_names n2 WHERE n2.key = l_names.key)::text
WHERE key = 'k';
SELECT * FROM diff();

-- ---- self-joins: neither side sees the statement's writes ----
EXPLAIN (COSTS OFF)
UPDATE names SET column_name = n.column_name || 'z' FROM names n
WHERE n.key = names.key AND n.column_name = names.column_name AND names.key = 'w';
UPDATE names SET column_name = n.column_name || 'z' FROM names n
WHERE n.key = names.key AND n.column_name = names.column_name AND names.key = 'w';
UPDATE l_names SET column_name = n.column_name || 'z' FROM l_names n
WHERE n.key = l_names.key AND n.column_name = l_names.column_name AND l_names.key = 'w';
DELETE FROM names USING names n WHERE n.key = names.key AND n.column_name = 'c001yz';
DELETE FROM l_names USING l_names n WHERE n.key = l_names.key AND n.column_name = 'c001yz';
SELECT * FROM diff();

-- ---- a data-modifying WITH: the main query reads what was there before ----
WITH d AS (DELETE FROM names WHERE key = 'u' AND column_name < 'n100' RETURNING *)
SELECT (SELECT count(*) FROM d) AS deleted, (SELECT count(*) FROM names WHERE key = 'u') AS before;
DELETE FROM l_names WHERE key = 'u' AND column_name < 'n100';
SELECT * FROM diff();

-- ---- the statement's parameters and init plans are fixed: still pushed ----
PREPARE ren(text) AS UPDATE names SET column_name = column_name || 'p' WHERE key = $1;
EXPLAIN (COSTS OFF) EXECUTE ren('u');
EXECUTE ren('u');
UPDATE l_names SET column_name = column_name || 'p' WHERE key = 'u';
EXPLAIN (COSTS OFF) UPDATE names SET column_name = column_name || 'q' WHERE key = (SELECT 'u'::text);
UPDATE names SET column_name = column_name || 'q' WHERE key = (SELECT 'u'::text);
UPDATE l_names SET column_name = column_name || 'q' WHERE key = 'u';
SELECT * FROM diff();
SELECT key, count(*) FROM names GROUP BY key ORDER BY key;

-- ---- Super CF: renaming super columns ----
INSERT INTO snames SELECT 's', 'sc' || lpad(i::text, 2, '0'), 'n' || j, i || '.' || j
FROM generate_series(1, 20) i, generate_series(1, 2) j;
EXPLAIN (COSTS OFF) UPDATE snames SET super_column = super_column || 'x' WHERE key = 's';
UPDATE snames SET super_column = super_column || 'x' WHERE key = 's';
SELECT count(*), count(*) FILTER (WHERE super_column LIKE '%xx'), min(super_column),
       max(super_column) FROM snames;

DELETE FROM names;
DELETE FROM snames;
DROP TABLE l_names;
DROP FUNCTION diff();
DROP EXTENSION colfam_fdw CASCADE;
