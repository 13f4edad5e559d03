-- ===================================================================
-- edge3: row keys, column names and super column names at the edges of Cassandra
-- 0.7's bounds (1 to 65535 bytes) through pushed joins, chains, writes and IMPORT:
--  - a join key that is empty, longer than 65535 bytes, NULL or repeated names no
--    inner row: the pushed join (fdw/join.c) and its chain give exactly the rows a
--    join over local copies gives, never colfamd's refusal of the lookup;
--  - a write of an empty or over-long key or name is refused before its batch is
--    sent, saying what the statement wrote before it (a foreign table is not
--    transactional: earlier batches and COPY's earlier rows stay written);
--  - IMPORT FOREIGN SCHEMA names a declared column that no identifier spells as it
--    is (a role's name, over 63 bytes) by colN OPTIONS (name ...), colN unique.
-- The suite loads tests/data/seeds/edge3.cli into a colfamd at $COLFAM_HOSTS.
-- ===================================================================
\getenv colfam_hosts COLFAM_HOSTS
CREATE EXTENSION IF NOT EXISTS colfam_fdw;
CREATE SCHEMA edge3;
SET search_path = edge3, public;
CREATE SERVER edge3_srv FOREIGN DATA WRAPPER colfam_fdw
  OPTIONS (hosts :'colfam_hosts', keyspace 'Edge3', fetch_size '4');
CREATE FOREIGN TABLE links (key text COLLATE "C", column_name text COLLATE "C",
                            value text COLLATE "C")
  SERVER edge3_srv OPTIONS (column_family 'Links');
CREATE FOREIGN TABLE items (key text COLLATE "C", title text, ref text COLLATE "C")
  SERVER edge3_srv OPTIONS (column_family 'Items', mapping 'rows');
CREATE FOREIGN TABLE owners (key text COLLATE "C", name text)
  SERVER edge3_srv OPTIONS (column_family 'Owners', mapping 'rows');

-- ---- joins: links' values are items' keys, items' refs are owners' keys ----
INSERT INTO owners VALUES ('o1', 'Owner 1'), ('o2', 'Owner 2');
INSERT INTO items VALUES ('i1', 'Item 1', 'o1'), ('i2', 'Item 2', ''),
  ('i3', 'Item 3', repeat('r', 70000)), ('i4', 'Item 4', NULL), ('i5', 'Item 5', 'o2'),
  (repeat('m', 65535), 'Item max', 'o2');
INSERT INTO links VALUES ('L', 'c1', 'i1'), ('L', 'c2', ''), ('L', 'c3', repeat('x', 70000)),
  ('L', 'c4', 'i1'), ('L', 'c5', 'i3'), ('L', 'c6', 'i2'), ('L', 'c7', repeat('m', 65535)),
  ('L', 'c8', repeat('m', 65536)), ('L', 'c9', 'i4'), ('L', 'd1', 'i5');
CREATE TABLE l_links AS SELECT * FROM links;
CREATE TABLE l_items AS SELECT * FROM items;
CREATE TABLE l_owners AS SELECT * FROM owners;

-- three steps in one chain: the first batch of each join holds an empty and an
-- over-long key (and the answers serve: colfamd skips them as the FDW does)
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF)
SELECT l.column_name, i.title, o.name FROM links l
JOIN items i ON i.key = l.value JOIN owners o ON o.key = i.ref WHERE l.key = 'L';
SELECT l.column_name, i.title, o.name FROM links l
JOIN items i ON i.key = l.value JOIN owners o ON o.key = i.ref WHERE l.key = 'L'
ORDER BY 1;
SELECT count(*) AS differ FROM (
  (SELECT l.column_name, i.title, o.name FROM links l
   JOIN items i ON i.key = l.value JOIN owners o ON o.key = i.ref WHERE l.key = 'L'
   EXCEPT ALL
   SELECT l.column_name, i.title, o.name FROM l_links l
   JOIN l_items i ON i.key = l.value JOIN l_owners o ON o.key = i.ref WHERE l.key = 'L')
  UNION ALL
  (SELECT l.column_name, i.title, o.name FROM l_links l
   JOIN l_items i ON i.key = l.value JOIN l_owners o ON o.key = i.ref WHERE l.key = 'L'
   EXCEPT ALL
   SELECT l.column_name, i.title, o.name FROM links l
   JOIN items i ON i.key = l.value JOIN owners o ON o.key = i.ref WHERE l.key = 'L')) d;
-- no chain (a key computed from the outer row): the join's own lookups
EXPLAIN (COSTS OFF)
SELECT l.column_name, i.title FROM links l JOIN items i ON i.key = rtrim(l.value)
WHERE l.key = 'L';
SELECT l.column_name, length(i.key), i.title FROM links l
JOIN items i ON i.key = rtrim(l.value) WHERE l.key = 'L' ORDER BY 1;
SELECT l.column_name, length(i.key), i.title FROM l_links l
JOIN l_items i ON i.key = rtrim(l.value) WHERE l.key = 'L' ORDER BY 1;
-- the items' every row as the outer side: the owners' lookups by empty, over-long and
-- NULL refs
SELECT i.title, o.name FROM items i JOIN owners o ON o.key = i.ref ORDER BY 1;
SELECT i.title, o.name FROM l_items i JOIN l_owners o ON o.key = i.ref ORDER BY 1;

-- ---- writes: an empty or over-long key or name is refused before it is sent ----
INSERT INTO links VALUES ('', 'c', 'v');
INSERT INTO links VALUES (repeat('k', 70000), 'c', 'v');
INSERT INTO links VALUES ('K', '', 'v');
INSERT INTO links VALUES ('K', repeat('c', 65536), 'v');
INSERT INTO items VALUES ('', 'Item', 'o1');
-- the longest key and name are stored; an empty value too
INSERT INTO links VALUES (repeat('k', 65535), repeat('c', 65535), '');
SELECT length(key), length(column_name), value FROM links WHERE key = repeat('k', 65535);
DELETE FROM links WHERE key = repeat('k', 65535);
-- a bad row in a batch: nothing of its batch is sent
INSERT INTO links VALUES ('K', 'd1', 'v'), ('K', 'd2', 'v'), ('', 'd3', 'v'), ('K', 'd4', 'v');
SELECT count(*) FROM links WHERE key = 'K';
-- ... but the batches before it are written, and the ERROR says so (batches of 100;
-- the abort's WARNING that they stay may come before or after the ERROR: not shown)
SET client_min_messages = error;
INSERT INTO links SELECT 'B', 'b' || g, 'v' FROM generate_series(1, 250) g
  UNION ALL SELECT 'B', '', 'v';
SELECT count(*) FROM links WHERE key = 'B';
-- COPY writes row by row
COPY links FROM STDIN;
C	c1	v
C	c2	v
	c3	v
C	c4	v
\.
-- two statements of one message (psql's \;) share its start timestamp: the ERROR
-- counts only its own statement's rows, not those the statement before it wrote
INSERT INTO links VALUES ('M', 'm1', 'v'), ('M', 'm2', 'v') \; INSERT INTO links VALUES ('', 'm3', 'v');
-- ... while the statements a function runs count with the statement that called it
DO $$ BEGIN INSERT INTO links VALUES ('M', 'm3', 'v'); INSERT INTO links VALUES ('', 'm4', 'v'); END $$;
RESET client_min_messages;
SELECT key, column_name FROM links WHERE key IN ('C', 'M') ORDER BY 1, 2;
DELETE FROM links WHERE key = 'M';
-- RETURNING sends each row alone; ON CONFLICT is refused
INSERT INTO links VALUES ('R', 'r1', 'v') RETURNING key, column_name;
INSERT INTO links VALUES ('', 'r2', 'v') RETURNING key, column_name;
INSERT INTO links VALUES ('R', 'r1', 'w') ON CONFLICT DO NOTHING;
-- an UPDATE that moves a column to an empty key or name leaves it where it was
UPDATE links SET key = '' WHERE key = 'R' AND column_name = 'r1';
UPDATE links SET column_name = '' WHERE key = 'R' AND column_name = 'r1';
UPDATE links SET column_name = repeat('n', 65536) WHERE key = 'R';
SELECT key, column_name, value FROM links WHERE key = 'R';
-- a DELETE by an empty key finds nothing to delete
DELETE FROM links WHERE key = '';
SELECT count(*) FROM links;
-- super column names and an extra's member names
CREATE FOREIGN TABLE sup (key text COLLATE "C", super_column text, column_name text,
                          value text)
  SERVER edge3_srv OPTIONS (column_family 'Sup');
CREATE FOREIGN TABLE sup_rows (key text COLLATE "C", super_column text,
                               extra jsonb OPTIONS (role 'extra'))
  SERVER edge3_srv OPTIONS (column_family 'Sup', mapping 'rows');
CREATE FOREIGN TABLE items_x (key text COLLATE "C", title text,
                              extra jsonb OPTIONS (role 'extra'))
  SERVER edge3_srv OPTIONS (column_family 'Items', mapping 'rows');
INSERT INTO sup VALUES ('S', '', 'c', 'v');
INSERT INTO sup VALUES ('S', 's', '', 'v');
INSERT INTO sup_rows VALUES ('S', '', '{"a": "b"}');
INSERT INTO sup_rows VALUES ('S', 's', '{"": "b"}');
INSERT INTO items_x VALUES ('ix', 'Item x', '{"": "b"}');
INSERT INTO items_x VALUES ('ix', 'Item x', jsonb_build_object(repeat('z', 65536), 'b'));
INSERT INTO items_x VALUES ('ix', 'Item x', '{"0x": "b"}');
INSERT INTO items_x VALUES ('ix', 'Item x', '{"a": "b"}');
UPDATE items_x SET extra = '{"": "c"}' WHERE key = 'ix';
SELECT * FROM items_x WHERE key = 'ix';
SELECT count(*) FROM sup;

-- ---- IMPORT FOREIGN SCHEMA: declared names no identifier spells as they are ----
CREATE SCHEMA edge3_imp;
IMPORT FOREIGN SCHEMA "Edge3" LIMIT TO ("Imp") FROM SERVER edge3_srv INTO edge3_imp;
SELECT attname, format_type(atttypid, atttypmod),
       (SELECT string_agg(length(o) || ' bytes: ' || left(o, 20), ', ')
        FROM unnest(attfdwoptions) o) AS options
FROM pg_attribute WHERE attrelid = 'edge3_imp."Imp"'::regclass AND attnum > 0
ORDER BY attnum;
-- each SQL column writes and reads its own Cassandra column
INSERT INTO edge3_imp."Imp" VALUES ('r1', 'to key', 'to col1', 'to a63', 'to a63b', 7);
CREATE FOREIGN TABLE imp_cols (key text COLLATE "C", column_name text COLLATE "C",
                               value bytea)
  SERVER edge3_srv OPTIONS (column_family 'Imp');
SELECT length(column_name), right(column_name, 2), value FROM imp_cols
WHERE key = 'r1' ORDER BY 1, 2;
SELECT * FROM edge3_imp."Imp";

DROP SCHEMA edge3_imp CASCADE;
DROP SERVER edge3_srv CASCADE;
DROP SCHEMA edge3 CASCADE;
RESET search_path;
DROP EXTENSION colfam_fdw CASCADE;
