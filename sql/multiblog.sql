-- ===================================================================
-- multiblog: seed 004's multi-tenant blog (Jonathan Ellis's Multiblog) through
-- colfam_fdw, its tables made by IMPORT FOREIGN SCHEMA: a blog's posts are TimeUUID
-- columns of its row in Blogs (JSON values), a post's comments TimeUUID columns of the
-- post's row in Comments. The latest post, a permalink, comments oldest first and
-- paginated, and a blog's posts joined to their comments; every answer compared with
-- the same query over local copies.
-- The suite reads tests/data/seeds/multiblog.cli's data from the colfamd at
-- $COLFAM_HOSTS through its unix socket, $COLFAM_SOCKET (rpc_unix_socket).
-- ===================================================================
\getenv colfam_socket COLFAM_SOCKET
CREATE EXTENSION IF NOT EXISTS colfam_fdw;
CREATE SERVER multiblog FOREIGN DATA WRAPPER colfam_fdw
  OPTIONS (hosts :'colfam_socket', keyspace 'Multiblog');
CREATE SCHEMA mb;
IMPORT FOREIGN SCHEMA "Multiblog" FROM SERVER multiblog INTO mb OPTIONS (bytes_as 'text');
SELECT c.relname, a.attname, format_type(a.atttypid, a.atttypmod) AS type,
       (SELECT collname FROM pg_collation WHERE oid = a.attcollation) AS coll
FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid
JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE n.nspname = 'mb' AND a.attnum > 0 ORDER BY c.relname, a.attnum;

CREATE TEMP TABLE l_blogs AS SELECT * FROM mb."Blogs";
CREATE TEMP TABLE l_comments AS SELECT * FROM mb."Comments";
SELECT (SELECT count(*) FROM l_blogs) AS posts, (SELECT count(*) FROM l_comments) AS comments;
SELECT count(*) FROM (SELECT * FROM mb."Comments" EXCEPT ALL SELECT * FROM l_comments) d;
SELECT count(*) FROM (SELECT * FROM l_comments EXCEPT ALL SELECT * FROM mb."Comments") d;

-- ---- the latest post of a blog: a reversed slice of one column ----
-- (multiblog.get(:Blogs, 'The Cutest Kittens', :reversed => true).to_a.first)
EXPLAIN (VERBOSE, COSTS OFF)
SELECT column_name, value::jsonb->>'title' AS title FROM mb."Blogs"
WHERE key = 'The Cutest Kittens' ORDER BY column_name DESC LIMIT 1;
SELECT column_name, value::jsonb->>'title' AS title FROM mb."Blogs"
WHERE key = 'The Cutest Kittens' ORDER BY column_name DESC LIMIT 1;
SELECT column_name, value::jsonb->>'title' AS title FROM l_blogs
WHERE key = 'The Cutest Kittens' ORDER BY column_name DESC LIMIT 1;

-- ---- a permalink: the post at a GUID (:start => UUID.new(guid), :count => 1) ----
EXPLAIN (VERBOSE, COSTS OFF)
SELECT value::jsonb->>'title' AS title FROM mb."Blogs"
WHERE key = 'The Cutest Kittens' AND column_name >= '80f6e800-8689-11de-8501-0242ac110002'
ORDER BY column_name LIMIT 1;
SELECT value::jsonb->>'title' AS title FROM mb."Blogs"
WHERE key = 'The Cutest Kittens' AND column_name >= '80f6e800-8689-11de-8501-0242ac110002'
ORDER BY column_name LIMIT 1;

-- ---- a post's comments, oldest first (multiblog.get(:Comments, guid)) ----
EXPLAIN (VERBOSE, COSTS OFF)
SELECT timeuuid_time(column_name) AS at, value FROM mb."Comments"
WHERE key = 'e2bb5000-8691-11de-8502-0242ac110002' ORDER BY column_name;
SELECT timeuuid_time(column_name) AS at, value FROM mb."Comments"
WHERE key = 'e2bb5000-8691-11de-8502-0242ac110002' ORDER BY column_name;
-- paginated: two a page, the next page after the last comment shown
SELECT value FROM mb."Comments" WHERE key = 'e2bb5000-8691-11de-8502-0242ac110002'
ORDER BY column_name LIMIT 2;
SELECT value FROM mb."Comments" WHERE key = 'e2bb5000-8691-11de-8502-0242ac110002'
  AND column_name > '2a41dc00-8692-11de-8609-0242ac110002'
ORDER BY column_name LIMIT 2;

-- ---- a blog's two newest posts with their comments: a reversed slice, then lookups ----
EXPLAIN (VERBOSE, COSTS OFF)
SELECT p.title, c.value AS comment
FROM (SELECT column_name, value::jsonb->>'title' AS title FROM mb."Blogs"
      WHERE key = 'Dog Days' ORDER BY column_name DESC LIMIT 2) p
JOIN mb."Comments" c ON c.key = p.column_name::text
ORDER BY p.column_name DESC, c.column_name;
SELECT p.title, c.value AS comment
FROM (SELECT column_name, value::jsonb->>'title' AS title FROM mb."Blogs"
      WHERE key = 'Dog Days' ORDER BY column_name DESC LIMIT 2) p
JOIN mb."Comments" c ON c.key = p.column_name::text
ORDER BY p.column_name DESC, c.column_name;
SELECT p.title, c.value AS comment
FROM (SELECT column_name, value::jsonb->>'title' AS title FROM l_blogs
      WHERE key = 'Dog Days' ORDER BY column_name DESC LIMIT 2) p
JOIN l_comments c ON c.key = p.column_name::text
ORDER BY p.column_name DESC, c.column_name;

-- ---- every blog's posts with their comment counts, both ways ----
SELECT count(*) FROM (
  (SELECT b.key, b.column_name, count(c.*) FROM mb."Blogs" b
   LEFT JOIN mb."Comments" c ON c.key = b.column_name::text GROUP BY 1, 2)
  EXCEPT ALL
  (SELECT b.key, b.column_name, count(c.*) FROM l_blogs b
   LEFT JOIN l_comments c ON c.key = b.column_name::text GROUP BY 1, 2)) d;
SELECT count(*) FROM (
  (SELECT b.key, b.column_name, count(c.*) FROM l_blogs b
   LEFT JOIN l_comments c ON c.key = b.column_name::text GROUP BY 1, 2)
  EXCEPT ALL
  (SELECT b.key, b.column_name, count(c.*) FROM mb."Blogs" b
   LEFT JOIN mb."Comments" c ON c.key = b.column_name::text GROUP BY 1, 2)) d;
SELECT b.key, b.value::jsonb->>'title' AS title, count(c.*) AS comments
FROM mb."Blogs" b LEFT JOIN mb."Comments" c ON c.key = b.column_name::text
GROUP BY b.key, b.column_name, b.value ORDER BY b.key, b.column_name;

DROP TABLE l_blogs, l_comments;
DROP SCHEMA mb CASCADE;
DROP EXTENSION colfam_fdw CASCADE;
