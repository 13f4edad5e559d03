-- ===================================================================
-- rollback: colfamd has no transactions, so a rollback (ROLLBACK, ROLLBACK TO
-- SAVEPOINT, a PL/pgSQL exception block, an ERROR that aborts the transaction)
-- leaves colfam_fdw's acknowledged writes in place; each says so with a WARNING
-- counting them. The suite loads tests/data/seeds/rollback.cli into $COLFAM_HOSTS.
-- ===================================================================
\getenv colfam_hosts COLFAM_HOSTS
CREATE EXTENSION IF NOT EXISTS colfam_fdw;
CREATE SERVER rb_srv FOREIGN DATA WRAPPER colfam_fdw
  OPTIONS (hosts :'colfam_hosts', keyspace 'Rollback');
CREATE FOREIGN TABLE log (key text COLLATE "C", column_name text COLLATE "C", value text)
  SERVER rb_srv OPTIONS (column_family 'Log');

-- ROLLBACK after writes: a WARNING, and the rows are still there
BEGIN;
INSERT INTO log VALUES ('a', 'c1', 'v'), ('a', 'c2', 'v'), ('b', 'c1', 'v');
UPDATE log SET value = 'w' WHERE key = 'a' AND column_name = 'c1';
ROLLBACK;
SELECT * FROM log ORDER BY key, column_name;

-- COMMIT, and a ROLLBACK that follows only reads: no WARNING
BEGIN;
INSERT INTO log VALUES ('c', 'c1', 'v');
COMMIT;
BEGIN;
SELECT count(*) FROM log;
ROLLBACK;

-- ROLLBACK TO SAVEPOINT counts the writes since the savepoint; the COMMIT says nothing
BEGIN;
DELETE FROM log WHERE key = 'c';
SAVEPOINT s1;
INSERT INTO log VALUES ('d', 'c1', 'v'), ('d', 'c2', 'v');
ROLLBACK TO SAVEPOINT s1;
COMMIT;
SELECT * FROM log ORDER BY key, column_name;

-- a ROLLBACK with savepoints open: one WARNING, the transaction's, covers theirs
BEGIN;
INSERT INTO log VALUES ('h', 'c1', 'v');
SAVEPOINT s1;
INSERT INTO log VALUES ('h', 'c2', 'v');
SAVEPOINT s2;
INSERT INTO log VALUES ('h', 'c3', 'v');
ROLLBACK;
-- a savepoint's abort is warned of when the transaction goes on: a ROLLBACK TO at
-- once (it starts the savepoint again), an exception block's by what follows it, here
-- the COMMIT
BEGIN;
SAVEPOINT s1;
INSERT INTO log VALUES ('h', 'c4', 'v');
SAVEPOINT s2;
ROLLBACK TO SAVEPOINT s1;
DO $$
BEGIN
  INSERT INTO log VALUES ('h', 'c5', 'v');
  RAISE division_by_zero;
EXCEPTION WHEN division_by_zero THEN
  NULL;
END $$;
SELECT 'after the block' AS note;
COMMIT;
SELECT * FROM log WHERE key = 'h' ORDER BY column_name;

-- a PL/pgSQL exception block that catches an error after a write
DO $$
BEGIN
  BEGIN
    INSERT INTO log VALUES ('e', 'c1', 'v');
    RAISE division_by_zero;
  EXCEPTION WHEN division_by_zero THEN
    RAISE NOTICE 'caught';
  END;
END $$;

-- an ERROR that aborts a statement whose first batches were written (batches of 100).
-- (Caught here: psql may show an ERROR and a WARNING the abort raises after it in
-- either order, so a test whose writes precede an ERROR sets client_min_messages.)
DO $$
BEGIN
  INSERT INTO log
  SELECT 'f', 'c' || i, CASE WHEN i = 150 THEN (1 / (i - 150))::text ELSE 'v' END
  FROM generate_series(1, 200) i;
EXCEPTION WHEN division_by_zero THEN
  RAISE NOTICE 'the INSERT failed: %', SQLERRM;
END $$;
SELECT count(*) FROM log WHERE key = 'f';

-- a statement that writes through two foreign partitions: the ERROR of the second
-- counts the rows the first wrote (the first's batch is sent first)
CREATE TABLE parts (key text COLLATE "C", column_name text COLLATE "C", value text)
  PARTITION BY LIST (key);
CREATE FOREIGN TABLE parts_1 PARTITION OF parts FOR VALUES IN ('p1')
  SERVER rb_srv OPTIONS (column_family 'Log');
CREATE FOREIGN TABLE parts_2 PARTITION OF parts FOR VALUES IN ('p2')
  SERVER rb_srv OPTIONS (column_family 'Log');
DO $$
DECLARE
  detail text;
BEGIN
  INSERT INTO parts VALUES ('p1', 'c1', 'v'), ('p2', '', 'v'), ('p1', 'c2', 'v');
EXCEPTION WHEN zero_length_character_string THEN
  GET STACKED DIAGNOSTICS detail = PG_EXCEPTION_DETAIL;
  RAISE NOTICE '%: %', SQLERRM, detail;
END $$;
SELECT * FROM log WHERE key IN ('p1', 'p2') ORDER BY key, column_name;
DROP TABLE parts;

-- TRUNCATE
BEGIN;
TRUNCATE log;
INSERT INTO log VALUES ('g', 'c1', 'v');
ROLLBACK;
SELECT * FROM log ORDER BY key, column_name;

SET client_min_messages = warning;
DROP EXTENSION colfam_fdw CASCADE;
RESET client_min_messages;
