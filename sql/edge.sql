-- ===================================================================
-- edge: PostgreSQL features the FDW's other suites do not use, where a foreign table
-- that is not transactional must not behave as PostgreSQL's rollback would fix it.
--  - a view WITH CHECK OPTION: PostgreSQL checks the row after the FDW wrote it; a
--    row that fails must not be written (nor an UPDATE's old row removed);
--  - ORDER BY over a names predicate (column_name = ANY, super_column = ANY): the
--    names are asked a page at a time in the query's order, each page comes back
--    sorted, never reversed: Postgres sorts;
--  - a text comparison with no collation (two implicit ones in conflict) is an ERROR
--    in SQL: never pushed (and answered as bytes), Postgres raises it;
--  - 'rows' mapping: a row must not write one Cassandra column twice with different
--    values (an extra jsonb member naming a column that a SQL column holds, two SQL
--    columns naming one): colfamd's tie-break would pick the value read back.
-- The suite loads tests/data/seeds/edge.cli into a colfamd at $COLFAM_HOSTS.
-- ===================================================================
\getenv colfam_hosts COLFAM_HOSTS
CREATE EXTENSION IF NOT EXISTS colfam_fdw;
CREATE SCHEMA edge;
SET search_path = edge, public;
CREATE SERVER edge_srv FOREIGN DATA WRAPPER colfam_fdw
  OPTIONS (hosts :'colfam_hosts', keyspace 'Edge', fetch_size '3');
CREATE FOREIGN TABLE cols (key text COLLATE "C", column_name text COLLATE "C", value text,
                           written bigint OPTIONS (role 'writetime'))
  SERVER edge_srv OPTIONS (column_family 'Cols');
-- the same CF without the writetime (the check's errors show the failing row)
CREATE FOREIGN TABLE cols_nt (key text COLLATE "C", column_name text COLLATE "C", value text)
  SERVER edge_srv OPTIONS (column_family 'Cols');
CREATE FOREIGN TABLE scols (key text COLLATE "C", super_column text COLLATE "C",
                            column_name text COLLATE "C", value text)
  SERVER edge_srv OPTIONS (column_family 'SuperCols');
CREATE FOREIGN TABLE rows_t (key text COLLATE "C", name text, age bigint,
                             extra jsonb OPTIONS (role 'extra'))
  SERVER edge_srv OPTIONS (column_family 'Rows', mapping 'rows');

-- ---- views WITH CHECK OPTION: a row that fails the check is not written ----
CREATE VIEW v_cols AS SELECT * FROM cols_nt WHERE key = 'v' WITH CHECK OPTION;
CREATE VIEW v_small AS SELECT * FROM cols_nt WHERE value < '5' WITH LOCAL CHECK OPTION;
CREATE VIEW v_recent AS SELECT * FROM cols WHERE written > 1000 WITH CHECK OPTION;
INSERT INTO v_cols VALUES ('v', 'a', '1'), ('v', 'b', '2');
INSERT INTO v_cols VALUES ('w', 'a', '1');
-- a batch (INSERT ... SELECT): no row of the batch the failing row is in
INSERT INTO v_cols
  SELECT CASE WHEN i = 3 THEN 'w' ELSE 'v' END, 'n' || i, 'x' FROM generate_series(1, 5) i;
SELECT key, column_name, value FROM cols ORDER BY key, column_name;
-- an UPDATE that moves the row out of the view: neither written nor the old one removed
UPDATE v_cols SET key = 'w' WHERE column_name = 'a';
UPDATE v_cols SET column_name = 'a2', value = '9' WHERE column_name = 'a';
UPDATE v_small SET value = '9' WHERE key = 'v';
SELECT key, column_name, value FROM cols ORDER BY key, column_name;
UPDATE v_cols SET value = value || '!' WHERE column_name = 'a2' RETURNING key, column_name, value;
-- the check sees the writetime the row is written at (NULL before the write)
INSERT INTO v_recent (key, column_name, value) VALUES ('v', 'c', '3')
  RETURNING key, column_name, written > 1000 AS written_now;
INSERT INTO v_recent VALUES ('v', 'd', '4', 7);
UPDATE v_recent SET value = '5' WHERE column_name = 'c'
  RETURNING column_name, value, written > 1000 AS written_now;
UPDATE v_recent SET written = 7 WHERE column_name = 'c';
SELECT key, column_name, value, written > 1000 AS written_now FROM cols ORDER BY key, column_name;
-- through a partitioned table with a foreign partition
CREATE TABLE parts (key text COLLATE "C", column_name text COLLATE "C", value text)
  PARTITION BY LIST (key);
CREATE TABLE parts_local PARTITION OF parts FOR VALUES IN ('l');
CREATE FOREIGN TABLE parts_remote PARTITION OF parts FOR VALUES IN ('r')
  SERVER edge_srv OPTIONS (column_family 'Part');
CREATE VIEW v_parts AS SELECT * FROM parts WHERE value <> 'bad' WITH CHECK OPTION;
INSERT INTO v_parts VALUES ('r', 'p', 'bad');
INSERT INTO v_parts VALUES ('r', 'p', 'good'), ('l', 'p', 'good');
UPDATE v_parts SET value = 'bad' WHERE key = 'r';
SELECT key, column_name, value FROM parts ORDER BY key, column_name;

-- ---- ORDER BY over a names predicate (fetch_size 3: five names are two pages) ----
INSERT INTO cols_nt SELECT 'o', 'n' || i, 'v' || i FROM generate_series(1, 9) i;
SELECT column_name FROM cols_nt WHERE key = 'o' AND column_name = ANY ('{n7,n2,n9,n1}')
  ORDER BY column_name LIMIT 2;
SELECT column_name FROM cols_nt WHERE key = 'o' AND column_name IN ('n3', 'n1', 'n8', 'n5', 'n2')
  ORDER BY column_name DESC;
SELECT column_name FROM cols_nt WHERE key = 'o' AND column_name = ANY ('{n2,n7}')
  ORDER BY column_name DESC LIMIT 1;
EXPLAIN (COSTS OFF) SELECT column_name FROM cols_nt
  WHERE key = 'o' AND column_name = ANY ('{n2,n7}') ORDER BY column_name DESC LIMIT 1;
-- a single name is one column at most: the scan's order stands
EXPLAIN (COSTS OFF) SELECT column_name FROM cols_nt
  WHERE key = 'o' AND column_name = 'n2' ORDER BY column_name DESC LIMIT 1;
INSERT INTO scols SELECT 'p', 's' || i % 4, 'c' || i, 'v' || i FROM generate_series(1, 12) i;
SELECT super_column, column_name FROM scols WHERE key = 'p' AND super_column IN ('s0', 's2', 's1')
  ORDER BY super_column DESC, column_name;
SELECT super_column, column_name FROM scols WHERE key = 'p' AND super_column = 's1'
  AND column_name IN ('c9', 'c1', 'c5') ORDER BY column_name DESC LIMIT 2;

-- ---- text comparisons under no collation: Postgres's ERROR, not bytes' answer ----
CREATE COLLATION edge_ci (provider = icu, locale = 'und-u-ks-level2', deterministic = false);
SELECT v.x, c.column_name FROM (VALUES ('N1' COLLATE edge_ci)) v(x),
  LATERAL (SELECT * FROM cols_nt WHERE key = 'o' AND column_name = v.x) c;
SELECT v.x, c.column_name FROM (VALUES ('n8' COLLATE edge_ci)) v(x),
  LATERAL (SELECT * FROM cols_nt WHERE key = 'o' AND column_name >= v.x) c;
SELECT v.x, c.column_name FROM (VALUES ('O' COLLATE edge_ci)) v(x),
  LATERAL (SELECT * FROM cols_nt WHERE key = v.x) c;
SELECT v.k, count(c.*) FROM (VALUES ('O' COLLATE edge_ci)) v(k)
  LEFT JOIN cols_nt c ON c.key = v.k GROUP BY v.k;
-- under the explicit collation, its answer
SELECT count(*) FROM cols_nt WHERE key = 'O' COLLATE edge_ci;
SELECT column_name FROM cols_nt WHERE key = 'o' AND column_name = 'N1' COLLATE edge_ci;

-- ---- 'rows' mapping: one Cassandra column written once ----
-- an extra member naming a column that a SQL column holds
INSERT INTO rows_t VALUES ('u1', 'a', 1, '{"name": "zzz"}');
INSERT INTO rows_t VALUES ('u1', NULL, 1, '{"name": "zzz"}');
INSERT INTO rows_t VALUES ('u1', 'Ann', 34, '{"city": "Oslo"}');
UPDATE rows_t SET extra = extra || '{"age": "x"}' WHERE key = 'u1';
UPDATE rows_t SET extra = extra || '{"zip": "0150"}' WHERE key = 'u1' RETURNING *;
SELECT * FROM rows_t ORDER BY key;
-- two SQL columns over one Cassandra column: the same value (or one NULL in an INSERT)
CREATE FOREIGN TABLE rows_2 (key text COLLATE "C", name text, alias text OPTIONS (name 'name'),
                             age bigint, age_bytes bytea OPTIONS (name 'age'))
  SERVER edge_srv OPTIONS (column_family 'Rows', mapping 'rows');
SELECT * FROM rows_2 ORDER BY key;
INSERT INTO rows_2 VALUES ('u2', 'Bob', 'Rob', NULL, NULL);
INSERT INTO rows_2 VALUES ('u2', 'Bob', 'Bob', 7, NULL);
INSERT INTO rows_2 (key, alias, age_bytes) VALUES ('u3', 'Cy', '\x0000000000000009');
SELECT * FROM rows_2 ORDER BY key;
UPDATE rows_2 SET alias = 'Robert' WHERE key = 'u2';
UPDATE rows_2 SET name = NULL WHERE key = 'u2';
UPDATE rows_2 SET name = 'Robert', alias = 'Robert' WHERE key = 'u2';
UPDATE rows_2 SET age = NULL, age_bytes = NULL WHERE key = 'u2' RETURNING *;
SELECT * FROM rows_2 ORDER BY key;

DROP SCHEMA edge CASCADE;
DROP EXTENSION colfam_fdw CASCADE;
