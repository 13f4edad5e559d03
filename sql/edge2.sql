-- ===================================================================
-- edge2: types, mappings, IMPORT and token(key) bounds at their edges, each answer
-- compared with the same data in a local table where there is one:
--  - every SQL type both ways at the edges of its range; stored bytes that are not
--    a value of the declared type are an ERROR naming row, column and encoding; the
--    empty value is '' for text, varchar and bytea and NULL for the other types;
--  - 'rows' mapping: an INSERT of a row with no column but its key would store
--    nothing (a Cassandra row exists only through its columns): an ERROR, for
--    VALUES (before any row of its batch is written) and COPY (which writes row by
--    row: the rows before it stay written); an UPDATE that sets
--    every column NULL removes the row's columns, as a DELETE would;
--  - the extra jsonb shows a name or value that is not UTF-8 text, or that starts
--    with 0x, as "0x" and its hex, and a write reads such a string back as bytes:
--    two names never look alike, and a row read and written back stays the same;
--    its text travels as UTF-8 whatever the database encoding;
--  - IMPORT FOREIGN SCHEMA of column_metadata whose names collide with a role (an
--    option names them) or are not UTF-8 text (left to extra, with a NOTICE);
--  - token(key) bounds at the ring's ends, NaN and the infinities (numeric orders
--    NaN and Infinity after every number).
-- The suite loads tests/data/seeds/edge2.cli into a colfamd at $COLFAM_HOSTS.
-- ===================================================================
\getenv colfam_hosts COLFAM_HOSTS
CREATE EXTENSION IF NOT EXISTS colfam_fdw;
CREATE SCHEMA edge2;
SET search_path = edge2, public;
CREATE SERVER edge2_srv FOREIGN DATA WRAPPER colfam_fdw
  OPTIONS (hosts :'colfam_hosts', keyspace 'Edge2', fetch_size '4');
-- the same CF as bytes (vals) and as each type (v_big, ...)
DO $$
DECLARE
  t text[];
BEGIN
  FOREACH t SLICE 1 IN ARRAY ARRAY[['vals', 'bytea'], ['v_big', 'bigint'], ['v_num', 'numeric'],
      ['v_dbl', 'double precision'], ['v_ts', 'timestamptz'], ['v_bool', 'boolean'],
      ['v_text', 'text'], ['v_vc', 'varchar(3)'], ['v_json', 'jsonb']] LOOP
    EXECUTE format('CREATE FOREIGN TABLE %I (key text COLLATE "C", column_name bytea, value %s)
                    SERVER edge2_srv OPTIONS (column_family ''Vals'')', t[1], t[2]);
  END LOOP;
END $$;

-- ---- types both ways: what is written reads back equal ----
CREATE TABLE l_big (column_name bytea, value bigint);
INSERT INTO l_big VALUES ('\x01', -9223372036854775808), ('\x02', 9223372036854775807),
  ('\x03', 0), ('\x04', -1);
INSERT INTO v_big SELECT 'big', * FROM l_big;
SELECT column_name, value, colfam_encode(value) FROM v_big WHERE key = 'big';
SELECT count(*) AS differ FROM (SELECT column_name, value FROM v_big WHERE key = 'big'
  EXCEPT SELECT * FROM l_big) d;
CREATE TABLE l_num (column_name bytea, value numeric);
INSERT INTO l_num VALUES ('\x01', 0), ('\x02', -1), ('\x03', -128), ('\x04', 255),
  ('\x05', 10.000), ('\x06', -123456789012345678901234567890123456789012345678901234567890),
  ('\x07', 2 ^ 200::numeric);
INSERT INTO v_num SELECT 'num', * FROM l_num;
SELECT column_name, value, colfam_encode(value) FROM v_num WHERE key = 'num';
SELECT count(*) AS differ FROM (SELECT column_name, value FROM v_num WHERE key = 'num'
  EXCEPT SELECT * FROM l_num) d;
-- fractions, NaN and the infinities are refused, never truncated
INSERT INTO v_num VALUES ('num', '\x10', 1.5);
INSERT INTO v_num VALUES ('num', '\x10', 0.0000001);
INSERT INTO v_num VALUES ('num', '\x10', 'NaN');
INSERT INTO v_num VALUES ('num', '\x10', '-Infinity');
SELECT count(*) FROM vals WHERE key = 'num' AND column_name = '\x10';
CREATE TABLE l_dbl (column_name bytea, value double precision);
INSERT INTO l_dbl VALUES ('\x01', 'NaN'), ('\x02', '-0'), ('\x03', 'Infinity'),
  ('\x04', '-Infinity'), ('\x05', 4.9e-324), ('\x06', 1.7976931348623157e308), ('\x07', 0.1);
INSERT INTO v_dbl SELECT 'dbl', * FROM l_dbl;
SELECT column_name, value, colfam_encode(value) FROM v_dbl WHERE key = 'dbl';
SELECT count(*) AS differ FROM (SELECT column_name, value::text FROM v_dbl WHERE key = 'dbl'
  EXCEPT SELECT column_name, value::text FROM l_dbl) d;
SET timezone = 'UTC';
CREATE TABLE l_ts (column_name bytea, value timestamptz);
INSERT INTO l_ts VALUES ('\x01', '2020-01-01 00:00:00.123+00'),
  ('\x02', '0044-03-15 12:00:00+00 BC'), ('\x03', '294276-12-31 23:59:59.999+00'),
  ('\x04', '4713-11-24 00:00:00+00 BC'), ('\x05', '1969-12-31 23:59:59.999+00');
INSERT INTO v_ts SELECT 'ts', * FROM l_ts;
SELECT column_name, value, colfam_encode(value) FROM v_ts WHERE key = 'ts';
SELECT count(*) AS differ FROM (SELECT column_name, value FROM v_ts WHERE key = 'ts'
  EXCEPT SELECT * FROM l_ts) d;
-- microseconds and infinities have no millisecond count
INSERT INTO v_ts VALUES ('ts', '\x10', '2020-01-01 00:00:00.1234+00');
INSERT INTO v_ts VALUES ('ts', '\x10', 'infinity');
INSERT INTO v_bool VALUES ('bool', '\x01', true), ('bool', '\x02', false);
SELECT column_name, value, colfam_encode(value) FROM v_bool WHERE key = 'bool';
INSERT INTO v_json VALUES ('json', '\x01', '{"b": [1, 2.50, null], "a": "é\"\\"}');
SELECT value, convert_from(colfam_encode(value), 'UTF8') FROM v_json WHERE key = 'json';
INSERT INTO v_vc VALUES ('vc', '\x01', 'abc'), ('vc', '\x02', 'ab  ');
INSERT INTO v_vc VALUES ('vc', '\x03', 'abcd');
SELECT column_name, value, length(value) FROM v_vc WHERE key = 'vc';

-- ---- stored bytes that are no value of the declared type: ERROR naming them ----
INSERT INTO vals VALUES ('bad', '\x01', '\x0102'), ('bad', '\x02', '\x7fffffffffffffff'),
  ('bad', '\x03', '\x02'), ('bad', '\x04', '\xc328'), ('bad', '\x05', convert_to('abcd', 'UTF8')),
  ('bad', '\x06', convert_to('{"a": 1', 'UTF8')), ('bad', '\x07', '\x6100'), ('bad', '\x08', '');
SELECT value FROM v_big WHERE key = 'bad' AND column_name = '\x01';
SELECT value FROM v_ts WHERE key = 'bad' AND column_name = '\x02';
SELECT value FROM v_bool WHERE key = 'bad' AND column_name = '\x03';
SELECT value FROM v_text WHERE key = 'bad' AND column_name = '\x04';
SELECT value FROM v_vc WHERE key = 'bad' AND column_name = '\x05';
SELECT value FROM v_json WHERE key = 'bad' AND column_name = '\x06';
SELECT value FROM v_text WHERE key = 'bad' AND column_name = '\x07';
SELECT value FROM v_dbl WHERE key = 'bad' AND column_name = '\x03';

-- ---- the empty value: '' for text, varchar and bytea, NULL for every other type ----
-- (Cassandra accepts an empty value under any validator)
INSERT INTO vals VALUES ('empty', '\x01', '');
SELECT 'bigint' AS type, value IS NULL AS is_null, value::text FROM v_big WHERE key = 'empty'
UNION ALL SELECT 'numeric', value IS NULL, value::text FROM v_num WHERE key = 'empty'
UNION ALL SELECT 'double precision', value IS NULL, value::text FROM v_dbl WHERE key = 'empty'
UNION ALL SELECT 'timestamptz', value IS NULL, value::text FROM v_ts WHERE key = 'empty'
UNION ALL SELECT 'boolean', value IS NULL, value::text FROM v_bool WHERE key = 'empty'
UNION ALL SELECT 'jsonb', value IS NULL, value::text FROM v_json WHERE key = 'empty'
UNION ALL SELECT 'text', value IS NULL, value FROM v_text WHERE key = 'empty'
UNION ALL SELECT 'varchar(3)', value IS NULL, value FROM v_vc WHERE key = 'empty'
UNION ALL SELECT 'bytea', value IS NULL, value::text FROM vals WHERE key = 'empty';
-- the column is still there: its name and a count see it
SELECT column_name, value FROM v_big WHERE key = 'empty' AND value IS NULL;
-- a NOT NULL domain refuses it, as it refuses any NULL
CREATE DOMAIN big_nn AS bigint NOT NULL;
CREATE FOREIGN TABLE v_big_nn (key text COLLATE "C", column_name bytea, value big_nn)
  SERVER edge2_srv OPTIONS (column_family 'Vals');
SELECT value FROM v_big_nn WHERE key = 'empty';
-- 'columns': a NULL value writes the empty value where that reads as NULL, so a row
-- read and written back is unchanged; for text and bytea NULL is refused ('' is '')
INSERT INTO v_big VALUES ('empty', '\x02', NULL);
INSERT INTO v_json VALUES ('empty', '\x03', NULL), ('empty', '\x04', '{}');
UPDATE v_json SET value = NULL WHERE key = 'empty' AND column_name = '\x04';
INSERT INTO v_num SELECT key, column_name || '\x05'::bytea, value FROM v_num WHERE key = 'empty';
SELECT column_name, value FROM vals WHERE key = 'empty';
INSERT INTO v_text VALUES ('empty', '\x06', NULL);
INSERT INTO vals VALUES ('empty', '\x06', NULL);
UPDATE v_vc SET value = NULL WHERE key = 'empty';
SELECT count(*) FROM vals WHERE key = 'empty';

-- ---- 'rows': a row with nothing but its key stores nothing, so it is refused ----
CREATE FOREIGN TABLE rows_x (key text COLLATE "C", name text, age bigint,
                             extra jsonb OPTIONS (role 'extra'))
  SERVER edge2_srv OPTIONS (column_family 'Rows', mapping 'rows');
CREATE FOREIGN TABLE rows_b (key text COLLATE "C", column_name bytea, value bytea)
  SERVER edge2_srv OPTIONS (column_family 'Rows');
INSERT INTO rows_x VALUES ('e1', NULL, NULL, NULL);
INSERT INTO rows_x (key) VALUES ('e1');
INSERT INTO rows_x VALUES ('e1', NULL, NULL, '{}');
INSERT INTO rows_x VALUES ('e1', NULL, NULL, '{"a": null}');
-- one such row refuses its batch: the row before it is not written either
INSERT INTO rows_x VALUES ('e2', 'x', 1, NULL), ('e3', NULL, NULL, NULL);
INSERT INTO rows_x SELECT 'e4-' || i, CASE WHEN i < 5 THEN 'n' END FROM generate_series(1, 5) i;
-- COPY writes row by row: e5 is written, e6 refused (the abort's WARNING that e5
-- stays may come before or after the ERROR: not shown)
SET client_min_messages = error;
COPY rows_x FROM stdin;
e5	n	\N	\N
e6	\N	\N	\N
\.
RESET client_min_messages;
SELECT count(*) FROM rows_b;
-- a row with one column is a row
INSERT INTO rows_x VALUES ('e7', NULL, 7, NULL), ('e8', NULL, NULL, '{"z": "1"}');
COPY rows_x FROM stdin;
e9	\N	\N	{"0x01": 2}
\.
SELECT * FROM rows_x ORDER BY key;
-- a Super CF: the key and the super column are not columns either
CREATE FOREIGN TABLE srows (key text COLLATE "C", super_column text COLLATE "C", a text, b text)
  SERVER edge2_srv OPTIONS (column_family 'SRows', mapping 'rows');
INSERT INTO srows VALUES ('s', 'sc1', 'x', NULL), ('s', 'sc2', NULL, NULL);
INSERT INTO srows VALUES ('s', 'sc1', 'x', NULL);
SELECT * FROM srows;
-- an UPDATE that sets every column NULL removes them all: the row goes, as with DELETE
UPDATE rows_x SET age = NULL, extra = NULL WHERE key = 'e7';
SELECT key FROM rows_x ORDER BY key;
-- an empty field reads as NULL under bigint, as '' under text: the row is there
INSERT INTO rows_b VALUES ('e10', 'name', ''), ('e10', 'age', '');
SELECT key, name, name = '' AS name_empty, age, age IS NULL AS age_null, extra
FROM rows_x WHERE key = 'e10';
DELETE FROM rows_x WHERE key = 'e10';
-- an UPDATE writes only the fields it sets: the Cassandra columns it leaves keep their
-- timestamps, TTLs and empty values; one that sets extra rewrites the row whole
CREATE FOREIGN TABLE rows_t (key text COLLATE "C", column_name bytea, value bytea,
                             wt bigint OPTIONS (role 'writetime'),
                             ttl integer OPTIONS (role 'ttl'))
  SERVER edge2_srv OPTIONS (column_family 'Rows');
INSERT INTO rows_t VALUES ('e11', 'name', 'n', 1000, NULL), ('e11', 'age', '', 1000, NULL),
  ('e11', 'tok', 'x', 1000, 3600);
UPDATE rows_x SET name = 'm' WHERE key = 'e11';
SELECT column_name, value, wt = 1000 AS same_writetime, ttl FROM rows_t WHERE key = 'e11';
UPDATE rows_x SET age = 11 WHERE key = 'e11';
SELECT column_name, value, wt = 1000 AS same_writetime, ttl FROM rows_t WHERE key = 'e11';
UPDATE rows_x SET age = NULL WHERE key = 'e11';
SELECT column_name, value, wt = 1000 AS same_writetime, ttl FROM rows_t WHERE key = 'e11';
UPDATE rows_x SET extra = '{"tok": "y"}' WHERE key = 'e11';
SELECT column_name, value, wt = 1000 AS same_writetime, ttl FROM rows_t WHERE key = 'e11';
-- setting the key to itself writes nothing
UPDATE rows_x SET key = key WHERE key = 'e11';
SELECT * FROM rows_x WHERE key = 'e11';
-- a BEFORE ROW trigger may change any column: what it sets is written too
CREATE FUNCTION age_42() RETURNS trigger LANGUAGE plpgsql AS
  $$ BEGIN NEW.age := 42; RETURN NEW; END $$;
CREATE TRIGGER age_42 BEFORE UPDATE ON rows_x FOR EACH ROW EXECUTE FUNCTION age_42();
UPDATE rows_x SET name = 'p' WHERE key = 'e11';
DROP TRIGGER age_42 ON rows_x;
SELECT * FROM rows_x WHERE key = 'e11';
DELETE FROM rows_x WHERE key = 'e11';

-- ---- the extra jsonb: names that look alike, quotes, bytes; read and written back ----
INSERT INTO rows_b VALUES ('x1', 'name', 'bob'), ('x1', '\xff', '\x01'),
  ('x1', convert_to('0xff', 'UTF8'), 'text 0xff'), ('x1', convert_to('0x', 'UTF8'), '0x'),
  ('x1', convert_to('q"\', 'UTF8'), convert_to('v"\', 'UTF8')),
  ('x1', 'big', colfam_encode(7::bigint)), ('x1', '\x00', '');
SELECT * FROM rows_x WHERE key = 'x1';
SELECT jsonb_object_keys(extra) FROM rows_x WHERE key = 'x1' ORDER BY 1;
CREATE TABLE l_x1 AS SELECT column_name, value FROM rows_b WHERE key = 'x1';
-- an UPDATE writes the row as it was read: the same names and values
UPDATE rows_x SET name = 'bobby' WHERE key = 'x1';
SELECT column_name, value FROM rows_b WHERE key = 'x1'
EXCEPT SELECT column_name, CASE WHEN column_name = 'name' THEN 'bobby'::bytea ELSE value END FROM l_x1;
SELECT count(*) = (SELECT count(*) FROM l_x1) AS same_count FROM rows_b WHERE key = 'x1';
-- "0x..." writes bytes; a string that starts with 0x but is not hex is refused
INSERT INTO rows_x VALUES ('x2', NULL, NULL, '{"0x41": "0x0001", "0x3078": "0x307a"}');
SELECT column_name, value FROM rows_b WHERE key = 'x2' ORDER BY column_name;
SELECT extra FROM rows_x WHERE key = 'x2';
INSERT INTO rows_x VALUES ('x3', 'n', NULL, '{"a": "0xz1"}');
INSERT INTO rows_x VALUES ('x3', 'n', NULL, '{"0x1": "a"}');
-- a member naming a SQL column's Cassandra column, spelled in hex, is still refused
INSERT INTO rows_x VALUES ('x3', 'n', NULL, '{"0x6e616d65": "a"}');
SELECT count(*) FROM rows_b WHERE key = 'x3';

-- ---- IMPORT FOREIGN SCHEMA: names a SQL column cannot spell plainly ----
CREATE SCHEMA edge2_imp;
IMPORT FOREIGN SCHEMA "Edge2" LIMIT TO ("Meta", "LongMeta") FROM SERVER edge2_srv INTO edge2_imp;
SELECT c.relname, a.attname, format_type(a.atttypid, a.atttypmod) AS type,
       a.attcollation <> 0 AS collated, a.attfdwoptions
FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid
WHERE c.relnamespace = 'edge2_imp'::regnamespace AND a.attnum > 0
ORDER BY c.relname, a.attnum;
INSERT INTO edge2_imp."Meta" VALUES ('m1', 'the key column', 'T', '{"other": "o"}');
SELECT * FROM edge2_imp."Meta";
CREATE FOREIGN TABLE longmeta (key text COLLATE "C", column_name bigint, value bytea)
  SERVER edge2_srv OPTIONS (column_family 'LongMeta');
INSERT INTO longmeta VALUES ('l1', 5, 'five'), ('l1', 7, colfam_encode(7::bigint));
SELECT * FROM edge2_imp."LongMeta";
-- a second import into the same schema
IMPORT FOREIGN SCHEMA "Edge2" LIMIT TO ("Meta") FROM SERVER edge2_srv INTO edge2_imp;

-- ---- token(key) bounds at the ring's ends, NaN and the infinities ----
CREATE FOREIGN TABLE tok (key text COLLATE "C", column_name text COLLATE "C", value text)
  SERVER edge2_srv OPTIONS (column_family 'Tok');
INSERT INTO tok SELECT 't' || i, 'c', 'v' || i FROM generate_series(1, 40) i;
CREATE TABLE l_tok AS SELECT key, token(key) AS t FROM tok;
CREATE TABLE bounds (b numeric);
INSERT INTO bounds VALUES ('NaN'), ('Infinity'), ('-Infinity'), (-1), (0), (0.5),
  (170141183460469231731687303715884105727), (170141183460469231731687303715884105728),
  (170141183460469231731687303715884105729), (1e40),
  ((SELECT min(t) FROM l_tok)), ((SELECT max(t) FROM l_tok));
CREATE FUNCTION pg_temp.tok_mismatches() RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE
  b numeric;
  op text;
  f bigint;
  l bigint;
BEGIN
  FOR b IN SELECT * FROM bounds LOOP
    FOREACH op IN ARRAY '{<,<=,>,>=}'::text[] LOOP
      EXECUTE format('SELECT count(*) FROM tok WHERE token(key) %s %L::numeric', op, b) INTO f;
      EXECUTE format('SELECT count(*) FROM l_tok WHERE t %s %L::numeric', op, b) INTO l;
      IF f <> l THEN
        RETURN NEXT format('token(key) %s %s: %s rows, locally %s', op, b, f, l);
      END IF;
    END LOOP;
  END LOOP;
END $$;
SELECT * FROM pg_temp.tok_mismatches();
EXPLAIN (VERBOSE, COSTS OFF) SELECT * FROM tok WHERE token(key) < 'NaN' AND token(key) > '-Infinity';
EXPLAIN (VERBOSE, COSTS OFF) SELECT * FROM tok WHERE token(key) >= 'Infinity';
SELECT count(*) FROM tok WHERE token(key) > 0 AND token(key) <= 'Infinity';

RESET timezone;
RESET search_path;
DROP SCHEMA edge2, edge2_imp CASCADE;
DROP EXTENSION colfam_fdw CASCADE;
