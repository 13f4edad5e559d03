-- ===================================================================
-- truncate: TRUNCATE of foreign tables truncates their column families in colfamd
-- (the truncatable option may forbid it); INSERT ... ON CONFLICT, which a column
-- family's writes cannot honour, is refused rather than ignored.
-- The suite loads tests/data/seeds/truncate.cli into a colfamd at $COLFAM_HOSTS.
-- ===================================================================
\getenv colfam_hosts COLFAM_HOSTS
CREATE EXTENSION IF NOT EXISTS colfam_fdw;
CREATE SERVER tr_srv FOREIGN DATA WRAPPER colfam_fdw
  OPTIONS (hosts :'colfam_hosts', keyspace 'Trunc', fetch_size '3');
CREATE FOREIGN TABLE cols (key text COLLATE "C", column_name text COLLATE "C", value text)
  SERVER tr_srv OPTIONS (column_family 'Cols');
-- a second table over the same CF, in the 'rows' mapping
CREATE FOREIGN TABLE cols_rows (key text COLLATE "C", a text, b text)
  SERVER tr_srv OPTIONS (column_family 'Cols', mapping 'rows');
CREATE FOREIGN TABLE other (key text COLLATE "C", column_name text COLLATE "C", value text)
  SERVER tr_srv OPTIONS (column_family 'Other');
CREATE FOREIGN TABLE scols (key text COLLATE "C", super_column text COLLATE "C",
                            column_name text COLLATE "C", value text)
  SERVER tr_srv OPTIONS (column_family 'SuperCols');

INSERT INTO cols SELECT 'k' || i % 7, chr(97 + i % 2), 'v' || i FROM generate_series(1, 40) i;
INSERT INTO other VALUES ('x', 'c', 'kept'), ('y', 'c', 'kept');
INSERT INTO scols SELECT 'k', 's' || i, 'c', 'v' FROM generate_series(1, 5) i;
SELECT (SELECT count(*) FROM cols) AS cols, (SELECT count(*) FROM cols_rows) AS cols_rows,
       (SELECT count(*) FROM other) AS other, (SELECT count(*) FROM scols) AS scols;

-- ---- TRUNCATE: the CF is emptied; other CFs are not touched ----
TRUNCATE cols;
SELECT (SELECT count(*) FROM cols) AS cols, (SELECT count(*) FROM cols_rows) AS cols_rows,
       (SELECT count(*) FROM other) AS other;
-- the CF takes writes again
INSERT INTO cols VALUES ('k', 'a', 'after');
SELECT * FROM cols_rows;
-- several tables in one statement, two of them over one CF, and a Super CF
TRUNCATE cols, cols_rows, scols;
SELECT (SELECT count(*) FROM cols) AS cols, (SELECT count(*) FROM scols) AS scols,
       (SELECT count(*) FROM other) AS other;
-- as every write of the FDW, it is not undone by ROLLBACK
BEGIN;
TRUNCATE other;
ROLLBACK;
SELECT count(*) AS other_after_rollback FROM other;

-- ---- the truncatable option: table, else server; refused before any CF is touched ----
INSERT INTO other VALUES ('x', 'c', 'kept');
INSERT INTO cols VALUES ('k', 'a', 'v');
ALTER SERVER tr_srv OPTIONS (ADD truncatable 'false');
TRUNCATE cols, other;
SELECT (SELECT count(*) FROM cols) AS cols, (SELECT count(*) FROM other) AS other;
ALTER FOREIGN TABLE other OPTIONS (ADD truncatable 'on');
TRUNCATE other;
TRUNCATE cols;
SELECT (SELECT count(*) FROM cols) AS cols, (SELECT count(*) FROM other) AS other;
ALTER FOREIGN TABLE other OPTIONS (SET truncatable 'no');
ALTER SERVER tr_srv OPTIONS (SET truncatable 'true');
TRUNCATE other;
ALTER FOREIGN TABLE other OPTIONS (SET truncatable 'maybe');
ALTER SERVER tr_srv OPTIONS (DROP truncatable);

-- ---- a partitioned table truncates its foreign partitions too ----
CREATE TABLE parts (key text COLLATE "C", column_name text COLLATE "C", value text)
  PARTITION BY LIST (key);
CREATE TABLE parts_local PARTITION OF parts FOR VALUES IN ('l');
CREATE FOREIGN TABLE parts_remote PARTITION OF parts FOR VALUES IN ('r')
  SERVER tr_srv OPTIONS (column_family 'Part');
INSERT INTO parts VALUES ('l', 'a', '1'), ('r', 'a', '2'), ('r', 'b', '3');
TRUNCATE parts;
SELECT count(*) AS parts FROM parts;

-- ---- ON CONFLICT: a write to a CF always replaces; it is refused, not ignored ----
INSERT INTO cols VALUES ('k', 'a', 'stored');
INSERT INTO cols VALUES ('k', 'a', 'replaced?') ON CONFLICT DO NOTHING;
INSERT INTO cols SELECT 'k', 'a', 'replaced?' ON CONFLICT DO NOTHING;
INSERT INTO cols VALUES ('k', 'a', 'replaced?') ON CONFLICT (key) DO UPDATE SET value = 'x';
-- routed through a partitioned table
INSERT INTO parts VALUES ('r', 'a', 'replaced?') ON CONFLICT DO NOTHING;
SELECT * FROM cols;
SELECT count(*) AS parts FROM parts;
-- the way the hint gives
INSERT INTO cols SELECT v.* FROM (VALUES ('k', 'a', 'new'), ('k', 'z', 'new')) v(key, column_name, value)
WHERE NOT EXISTS (SELECT FROM cols c WHERE c.key = v.key AND c.column_name = v.column_name);
SELECT * FROM cols ORDER BY column_name;

TRUNCATE cols, other, parts;
DROP TABLE parts;
DROP EXTENSION colfam_fdw CASCADE;
