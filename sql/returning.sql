-- ===================================================================
-- returning: INSERT, UPDATE and DELETE ... RETURNING on foreign tables give the rows
-- written or removed. A DELETE's FDW must hand back the deleted row itself: the scan
-- fetches it whole when the statement has RETURNING.
-- The suite loads tests/data/seeds/returning.cli into a colfamd at $COLFAM_HOSTS.
-- ===================================================================
\getenv colfam_hosts COLFAM_HOSTS
CREATE EXTENSION IF NOT EXISTS colfam_fdw;
CREATE SERVER ret_srv FOREIGN DATA WRAPPER colfam_fdw
  OPTIONS (hosts :'colfam_hosts', keyspace 'Ret', fetch_size '3');
CREATE FOREIGN TABLE cols (key text COLLATE "C", column_name text COLLATE "C", value text,
                           written bigint OPTIONS (role 'writetime'))
  SERVER ret_srv OPTIONS (column_family 'Cols');
CREATE FOREIGN TABLE scols (key text COLLATE "C", super_column text COLLATE "C",
                            column_name text COLLATE "C", value text)
  SERVER ret_srv OPTIONS (column_family 'SuperCols');
CREATE FOREIGN TABLE rows_t (key text COLLATE "C", name text, age bigint,
                             extra jsonb OPTIONS (role 'extra'))
  SERVER ret_srv OPTIONS (column_family 'Rows', mapping 'rows');

-- ---- INSERT and UPDATE ... RETURNING ----
INSERT INTO cols (key, column_name, value, written)
  SELECT 'k' || i % 3, 'c' || i, 'v' || i, 1000 + i FROM generate_series(1, 9) i
  RETURNING key, column_name, value, written;
-- an UPDATE that leaves the writetime alone writes now, not at the version it read
-- (which would tie with, and could lose to, the very column it replaces)
UPDATE cols SET value = upper(value) WHERE key = 'k1'
  RETURNING key, column_name, value, written > 1000000000000000 AS written_now;
SELECT key, column_name, value, written > 1000000000000000 AS written_now
  FROM cols WHERE key = 'k1' ORDER BY column_name;
UPDATE cols SET column_name = column_name || 'x' WHERE key = 'k2' AND column_name = 'c2'
  RETURNING key, column_name, value, written > 1000000000000000 AS written_now;
-- one that sets it writes at it: older than what is stored, it loses (last write wins)
UPDATE cols SET value = 'older', written = 5 WHERE key = 'k1' AND column_name = 'c7'
  RETURNING value, written;
SELECT value, written > 5 AS newer_kept FROM cols WHERE key = 'k1' AND column_name = 'c7';
-- an INSERT without a writetime returns the one it wrote at
INSERT INTO cols (key, column_name, value) VALUES ('k9', 'c', 'v')
  RETURNING key, written > 1000000000000000 AS written_now;
DELETE FROM cols WHERE key = 'k9';

-- ---- DELETE ... RETURNING: the deleted rows, every column as the scan read it ----
DELETE FROM cols WHERE key = 'k0' RETURNING *;
DELETE FROM cols WHERE key = 'k1' AND column_name = 'c4'
  RETURNING column_name, lower(value) AS v, written > 1000000000000000 AS written_now;
-- a join that gives a row twice deletes and returns it once
DELETE FROM cols c USING (VALUES ('k2'), ('k2')) v(k) WHERE c.key = v.k
  RETURNING c.key, c.column_name, c.value;
SELECT key, column_name, value FROM cols ORDER BY key, column_name;
-- only RETURNING's columns are asked for, the rest of the row is still right
DELETE FROM cols RETURNING value;

INSERT INTO scols VALUES ('p', 's1', 'a', '1'), ('p', 's1', 'b', '2'), ('p', 's2', 'a', '3');
DELETE FROM scols WHERE super_column = 's1' RETURNING *;
INSERT INTO rows_t VALUES ('u1', 'Ann', 34, '{"city": "Oslo"}'), ('u2', 'Bob', NULL, NULL);
DELETE FROM rows_t WHERE key = 'u1' RETURNING *;
DELETE FROM rows_t RETURNING key, name, age, extra;

-- ---- with a row trigger PostgreSQL fetches the old row itself ----
CREATE FUNCTION note_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE NOTICE 'deleting %/%', OLD.key, OLD.column_name;
  RETURN OLD;
END $$;
CREATE TRIGGER cols_del BEFORE DELETE ON cols FOR EACH ROW EXECUTE FUNCTION note_delete();
INSERT INTO cols (key, column_name, value) VALUES ('t', 'a', 'x'), ('t', 'b', 'y');
DELETE FROM cols WHERE key = 't' RETURNING key, column_name, value;
DROP TRIGGER cols_del ON cols;

-- ---- through a partitioned table with a foreign partition ----
CREATE TABLE parts (key text COLLATE "C", column_name text COLLATE "C", value text)
  PARTITION BY LIST (key);
CREATE TABLE parts_local PARTITION OF parts FOR VALUES IN ('l');
CREATE FOREIGN TABLE parts_remote PARTITION OF parts FOR VALUES IN ('r')
  SERVER ret_srv OPTIONS (column_family 'Part');
INSERT INTO parts VALUES ('l', 'a', '1'), ('r', 'a', '2'), ('r', 'b', '3') RETURNING *;
DELETE FROM parts WHERE column_name = 'a' RETURNING tableoid::regclass AS part, *;
DELETE FROM parts RETURNING tableoid::regclass AS part, *;

-- ---- EXPLAIN: the whole row is fetched only for RETURNING ----
EXPLAIN (VERBOSE, COSTS OFF) DELETE FROM cols WHERE key = 'k';
EXPLAIN (VERBOSE, COSTS OFF) DELETE FROM cols WHERE key = 'k' RETURNING value;

DROP TABLE parts;
DROP FUNCTION note_delete();
DROP EXTENSION colfam_fdw CASCADE;
