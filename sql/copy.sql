-- ===================================================================
-- copy: writes that no INSERT plan of the foreign table sets up — COPY FROM into it,
-- and rows routed into it as a partition of a partitioned table (INSERT, COPY, and an
-- UPDATE that moves rows in). Data leaves the same way: COPY (SELECT ...) TO.
-- The suite loads tests/data/seeds/copy.cli into a colfamd at $COLFAM_HOSTS.
-- ===================================================================
\getenv colfam_hosts COLFAM_HOSTS
CREATE EXTENSION IF NOT EXISTS colfam_fdw;
CREATE SCHEMA cp;
SET search_path = cp, public;
CREATE SERVER cp_srv FOREIGN DATA WRAPPER colfam_fdw
  OPTIONS (hosts :'colfam_hosts', keyspace 'Copy', fetch_size '4');
CREATE FOREIGN TABLE cols (key text COLLATE "C", column_name text COLLATE "C", value text)
  SERVER cp_srv OPTIONS (column_family 'Cols');
CREATE FOREIGN TABLE scols (key text COLLATE "C", super_column text COLLATE "C",
                            column_name text COLLATE "C", value text)
  SERVER cp_srv OPTIONS (column_family 'SuperCols');
CREATE FOREIGN TABLE rows_t (key text COLLATE "C", name text, age bigint,
                             extra jsonb OPTIONS (role 'extra'))
  SERVER cp_srv OPTIONS (column_family 'Rows', mapping 'rows');

-- ---- COPY FROM, text and csv, every mapping ----
COPY cols FROM STDIN;
jsmith	email	js@example.com
jsmith	fullname	John Smith
jdoe	fullname	Jane Doe
jdoe	note	tab\there, and a newline\nin it
\.
SELECT key, column_name, value FROM cols ORDER BY key, column_name;

COPY scols (key, super_column, column_name, value) FROM STDIN (FORMAT csv, HEADER true);
key,super_column,column_name,value
post-1,c-01,author,ann
post-1,c-01,text,"first, with a comma"
post-1,c-02,author,bob
post-2,c-01,author,cy
\.
SELECT * FROM scols ORDER BY 1, 2, 3;

COPY rows_t (key, name, age, extra) FROM STDIN (FORMAT csv);
u1,Ann,34,"{""city"": ""Oslo""}"
u2,Bob,,
u3,,7,"{""tag"": ""x"", ""n"": 1}"
\.
SELECT key, name, age, extra FROM rows_t ORDER BY key;

-- a later row of the same identity wins (each row has its own, later, timestamp)
COPY cols FROM STDIN;
dup	c	first
dup	c	second
\.
SELECT value FROM cols WHERE key = 'dup';

-- ---- bad rows: a clear ERROR; rows before it were written (no transaction) ----
-- (the abort's WARNING that they stay may come before or after the ERROR: not shown)
SET client_min_messages = error;
COPY cols FROM STDIN;
bad	a	1
\N	b	2
bad	c	3
\.
RESET client_min_messages;
SELECT column_name FROM cols WHERE key = 'bad';
COPY rows_t (key, age) FROM STDIN;
u9	not a number
\.
SELECT count(*) FROM rows_t WHERE key = 'u9';
-- what colfamd would refuse (an empty column name) is the statement's ERROR, before
-- the row is sent
COPY cols FROM STDIN;
k		v
\.
SELECT count(*) FROM cols WHERE key = 'k';

-- ---- data out: COPY of a query (COPY of the foreign table itself is PostgreSQL's error) ----
COPY (SELECT key, column_name, value FROM cols WHERE key = 'jsmith' ORDER BY column_name)
  TO STDOUT (FORMAT csv, HEADER true);
COPY cols TO STDOUT;

-- ---- a foreign partition: rows routed to it by INSERT, COPY and UPDATE ----
CREATE TABLE parts (key text COLLATE "C", column_name text COLLATE "C", value text)
  PARTITION BY LIST (key);
CREATE TABLE parts_local PARTITION OF parts FOR VALUES IN ('local1', 'local2');
CREATE FOREIGN TABLE parts_remote PARTITION OF parts FOR VALUES IN ('remote1', 'remote2')
  SERVER cp_srv OPTIONS (column_family 'Part');
INSERT INTO parts VALUES ('local1', 'c', 'lc'), ('remote1', 'a', 'ra'), ('remote1', 'b', 'rb');
COPY parts FROM STDIN;
remote2	x	from copy
local2	x	from copy
\.
SELECT tableoid::regclass AS part, * FROM parts ORDER BY key, column_name;
-- moving rows in: local2's row goes to remote2
UPDATE parts SET key = 'remote2' WHERE key = 'local2';
-- one UPDATE that updates the foreign partition's rows and moves local1's in: each
-- row is changed once, the moved one too
UPDATE parts SET value = value || '!',
                 key = CASE key WHEN 'local1' THEN 'remote1' ELSE key END;
SELECT tableoid::regclass AS part, * FROM parts ORDER BY key, column_name;
-- a row cannot leave a foreign partition, nor be written into one outside its bound:
-- the partitioned table's queries would prune it away
UPDATE parts SET key = 'local1' WHERE key = 'remote2' AND column_name = 'x';
INSERT INTO parts_remote VALUES ('local2', 'y', 'misplaced');
COPY parts_remote FROM STDIN;
elsewhere	z	misplaced
\.
UPDATE parts_remote SET value = 'kept' WHERE key = 'remote2';
INSERT INTO parts_remote VALUES ('remote2', 'y', 'direct');
SELECT tableoid::regclass AS part, * FROM parts ORDER BY key, column_name;
SELECT * FROM parts WHERE key = 'remote2' ORDER BY column_name;

DELETE FROM cols;
DELETE FROM scols;
DELETE FROM rows_t;
DELETE FROM parts;
SELECT (SELECT count(*) FROM cols) + (SELECT count(*) FROM scols) +
       (SELECT count(*) FROM rows_t) + (SELECT count(*) FROM parts) AS left_behind;
DROP SCHEMA cp CASCADE;
DROP EXTENSION colfam_fdw CASCADE;
