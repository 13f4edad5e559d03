-- ===================================================================
-- import: IMPORT FOREIGN SCHEMA's choice of column families — all of a keyspace,
-- LIMIT TO, EXCEPT — and its errors: a listed column family that does not exist
-- (names are case-sensitive), a keyspace that does not exist. The types it maps are
-- in bloggy, twitter and multiblog.
-- The suite loads tests/data/seeds/pushdown.cli into a colfamd at $COLFAM_HOSTS.
-- ===================================================================
\getenv colfam_hosts COLFAM_HOSTS
CREATE EXTENSION IF NOT EXISTS colfam_fdw;
SET client_min_messages = warning;   -- no NOTICE listing what DROP ... CASCADE drops
CREATE SERVER imp_srv FOREIGN DATA WRAPPER colfam_fdw OPTIONS (hosts :'colfam_hosts');
CREATE SCHEMA imp;
-- the tables of schema imp, each with its keyspace and column family options
CREATE VIEW imp_tables AS
  SELECT c.relname, array_to_string(t.ftoptions, ', ') AS options
  FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
  JOIN pg_foreign_table t ON t.ftrelid = c.oid
  WHERE n.nspname = 'imp' ORDER BY c.relname COLLATE "C";

-- ---- every column family ----
IMPORT FOREIGN SCHEMA "Pushdown" FROM SERVER imp_srv INTO imp;
SELECT * FROM imp_tables;
DROP SCHEMA imp CASCADE;
CREATE SCHEMA imp;

-- ---- EXCEPT: all but the named ones ----
IMPORT FOREIGN SCHEMA "Pushdown" EXCEPT ("Bytes", "Super", "Time") FROM SERVER imp_srv INTO imp;
SELECT * FROM imp_tables;
-- the imported tables read
SELECT count(*) FROM imp."Long" WHERE key = 'no such key';
-- importing the same tables again collides with them
IMPORT FOREIGN SCHEMA "Pushdown" LIMIT TO ("Long") FROM SERVER imp_srv INTO imp;
-- and EXCEPT of what is there already imports the rest
IMPORT FOREIGN SCHEMA "Pushdown" EXCEPT ("Ascii", "Integer", "Lexical", "Long", "Utf8")
  FROM SERVER imp_srv INTO imp;
SELECT * FROM imp_tables;
DROP SCHEMA imp CASCADE;
CREATE SCHEMA imp;

-- ---- LIMIT TO ----
IMPORT FOREIGN SCHEMA "Pushdown" LIMIT TO ("Utf8", "Super") FROM SERVER imp_srv INTO imp;
SELECT * FROM imp_tables;

-- ---- errors: nothing is imported ----
-- a column family that does not exist, in LIMIT TO and in EXCEPT
IMPORT FOREIGN SCHEMA "Pushdown" LIMIT TO ("Long", "NoSuchCF") FROM SERVER imp_srv INTO imp;
IMPORT FOREIGN SCHEMA "Pushdown" EXCEPT ("NoSuchCF") FROM SERVER imp_srv INTO imp;
-- names are case-sensitive: unquoted, Long is "long"
IMPORT FOREIGN SCHEMA "Pushdown" LIMIT TO (Long) FROM SERVER imp_srv INTO imp;
\echo :LAST_ERROR_SQLSTATE
-- a keyspace that does not exist (also unquoted: "pushdown")
IMPORT FOREIGN SCHEMA "NoSuchKeyspace" FROM SERVER imp_srv INTO imp;
\echo :LAST_ERROR_SQLSTATE
IMPORT FOREIGN SCHEMA Pushdown FROM SERVER imp_srv INTO imp;
-- a local schema that does not exist
IMPORT FOREIGN SCHEMA "Pushdown" FROM SERVER imp_srv INTO no_such_schema;
SELECT * FROM imp_tables;

-- leave the database as we found it
DROP VIEW imp_tables;
DROP SCHEMA imp CASCADE;
DROP EXTENSION colfam_fdw CASCADE;
