-- ===================================================================
-- bloggy: seed 001's BloggyAppy through colfam_fdw — mappings, pushdown proven with
-- EXPLAIN, results compared with local copies of the same data, the front page as
-- one statement, comments from a super column family, writes.
-- The suite loads tests/data/seeds/bloggyappy.cli into a colfamd at $COLFAM_HOSTS.
-- ===================================================================
\getenv colfam_hosts COLFAM_HOSTS
CREATE EXTENSION IF NOT EXISTS colfam_fdw;
CREATE SERVER bloggy FOREIGN DATA WRAPPER colfam_fdw
  OPTIONS (hosts :'colfam_hosts', keyspace 'BloggyAppy');

CREATE FOREIGN TABLE tagged_posts (key text COLLATE "C", column_name timeuuid, value text)
  SERVER bloggy OPTIONS (column_family 'TaggedPosts');
CREATE FOREIGN TABLE blog_entries (key text COLLATE "C", title text, body text, author text,
                                   tags text, "pubDate" text)
  SERVER bloggy OPTIONS (column_family 'BlogEntries', mapping 'rows');
CREATE FOREIGN TABLE authors (key text COLLATE "C", email text, twitter text, bio text,
                              extra jsonb OPTIONS (role 'extra'))
  SERVER bloggy OPTIONS (column_family 'Authors', mapping 'rows');
CREATE FOREIGN TABLE comments (key text COLLATE "C", super_column timeuuid,
                               column_name text COLLATE "C", value text)
  SERVER bloggy OPTIONS (column_family 'Comments');

-- local copies: every answer below must equal the same query over these
CREATE TEMP TABLE l_tagged AS SELECT * FROM tagged_posts;
CREATE TEMP TABLE l_entries AS SELECT * FROM blog_entries;
CREATE TEMP TABLE l_authors AS SELECT * FROM authors;
CREATE TEMP TABLE l_comments AS SELECT * FROM comments;
SELECT (SELECT count(*) FROM l_tagged) AS tagged, (SELECT count(*) FROM l_entries) AS entries,
       (SELECT count(*) FROM l_authors) AS authors, (SELECT count(*) FROM l_comments) AS comments;

-- ---- the front page: one statement, a reversed slice of 10 and key lookups ----
EXPLAIN (VERBOSE, COSTS OFF)
SELECT e.title, a.email
FROM tagged_posts t
JOIN blog_entries e ON e.key = t.value
JOIN authors a ON a.key = e.author
WHERE t.key = '__notag__'
ORDER BY t.column_name DESC
LIMIT 10;

SELECT e.title, a.email
FROM tagged_posts t
JOIN blog_entries e ON e.key = t.value
JOIN authors a ON a.key = e.author
WHERE t.key = '__notag__'
ORDER BY t.column_name DESC
LIMIT 10;

SELECT e.title, a.email
FROM l_tagged t
JOIN l_entries e ON e.key = t.value
JOIN l_authors a ON a.key = e.author
WHERE t.key = '__notag__'
ORDER BY t.column_name DESC
LIMIT 10;

-- ---- a tag page: the newest three entries of a tag ----
EXPLAIN (VERBOSE, COSTS OFF)
SELECT timeuuid_time(column_name) AS at, value FROM tagged_posts
WHERE key = 'guitar' ORDER BY column_name DESC LIMIT 3;
SELECT timeuuid_time(column_name) AS at, value FROM tagged_posts
WHERE key = 'guitar' ORDER BY column_name DESC LIMIT 3;

-- ---- slice bounds: a time window by min/max_timeuuid, both directions ----
EXPLAIN (VERBOSE, COSTS OFF)
SELECT value FROM tagged_posts
WHERE key = '__notag__'
  AND column_name BETWEEN min_timeuuid('2009-08-18 02:00:00+00') AND max_timeuuid('2009-08-18 20:00:00+00')
ORDER BY column_name;
SELECT value FROM tagged_posts
WHERE key = '__notag__'
  AND column_name BETWEEN min_timeuuid('2009-08-18 02:00:00+00') AND max_timeuuid('2009-08-18 20:00:00+00')
ORDER BY column_name;
SELECT value FROM l_tagged
WHERE key = '__notag__'
  AND column_name BETWEEN min_timeuuid('2009-08-18 02:00:00+00') AND max_timeuuid('2009-08-18 20:00:00+00')
ORDER BY column_name;
-- strict bounds go down inclusive and are rechecked
EXPLAIN (VERBOSE, COSTS OFF)
SELECT value FROM tagged_posts
WHERE key = '__notag__' AND column_name > '9bf6ba00-8bab-11de-8101-0242ac110002'
ORDER BY column_name DESC;
SELECT value FROM tagged_posts
WHERE key = '__notag__' AND column_name > '9bf6ba00-8bab-11de-8101-0242ac110002'
ORDER BY column_name DESC;
-- an empty window and a reversed one return nothing, without an error
SELECT count(*) FROM tagged_posts
WHERE key = '__notag__' AND column_name > max_timeuuid('2030-01-01') ;
SELECT count(*) FROM tagged_posts
WHERE key = '__notag__'
  AND column_name BETWEEN max_timeuuid('2010-01-01') AND min_timeuuid('2009-01-01');

-- ---- keys: =, = ANY (duplicates once), NULL, absent ----
EXPLAIN (VERBOSE, COSTS OFF)
SELECT key, count(*) FROM tagged_posts WHERE key = ANY (ARRAY['movie', 'guitar', 'movie']) GROUP BY key;
SELECT key, count(*) FROM tagged_posts WHERE key = ANY (ARRAY['movie', 'guitar', 'movie'])
GROUP BY key ORDER BY key;
SELECT count(*) FROM tagged_posts WHERE key = ANY (ARRAY['movie', NULL]);
SELECT count(*) FROM tagged_posts WHERE key = 'no-such-tag';
SELECT count(*) FROM tagged_posts WHERE key = NULL;

-- ---- full scans agree with the copies ----
SELECT count(*) FROM (SELECT * FROM tagged_posts EXCEPT ALL SELECT * FROM l_tagged) d;
SELECT count(*) FROM (SELECT * FROM l_tagged EXCEPT ALL SELECT * FROM tagged_posts) d;
SELECT key, title, author FROM blog_entries ORDER BY key;

-- ---- 'rows' mapping: projection, absent columns, the extra jsonb ----
EXPLAIN (VERBOSE, COSTS OFF) SELECT title FROM blog_entries WHERE key = 'the-godfather';
SELECT title FROM blog_entries WHERE key = 'the-godfather';
SELECT key, email, extra FROM authors WHERE key = 'Ian Eure';
SELECT count(*) FROM blog_entries WHERE key = 'no-such-entry';

-- ---- one entry's comments (super CF) in time order ----
EXPLAIN (VERBOSE, COSTS OFF)
SELECT super_column, column_name, value FROM comments
WHERE key = 'i-got-a-new-guitar' ORDER BY super_column, column_name;
SELECT timeuuid_time(super_column) AS at, column_name, value FROM comments
WHERE key = 'i-got-a-new-guitar' ORDER BY super_column, column_name;
SELECT count(*) FROM (SELECT * FROM comments EXCEPT ALL SELECT * FROM l_comments) d;

-- the 'rows' mapping of a Super CF: one SQL row per super column, over several keys
CREATE FOREIGN TABLE comment_rows (key text COLLATE "C", super_column timeuuid,
                                   commenter text, comment text)
  SERVER bloggy OPTIONS (column_family 'Comments', mapping 'rows');
SELECT key, timeuuid_time(super_column) AS at, commenter FROM comment_rows
WHERE key = ANY (ARRAY['scream-is-the-best-movie-ever', 'i-got-a-new-guitar'])
ORDER BY key, super_column;
SELECT count(*) FROM comment_rows;
SELECT count(DISTINCT (key, super_column)) FROM l_comments;

-- ---- a join the other way: entries with their tags, by key lookups ----
ANALYZE l_entries;
EXPLAIN (VERBOSE, COSTS OFF)
SELECT e.key, t.column_name FROM l_entries e JOIN tagged_posts t ON t.key = e.key;

-- ---- writes ----
INSERT INTO tagged_posts VALUES
  ('sql', min_timeuuid('2010-01-01 00:00:00+00'), 'thrift-is-fine'),
  ('sql', min_timeuuid('2010-01-02 00:00:00+00'), 'the-godfather');
SELECT timeuuid_time(column_name), value FROM tagged_posts WHERE key = 'sql' ORDER BY column_name;
UPDATE tagged_posts SET value = 'cassandra-at-digg'
WHERE key = 'sql' AND column_name = min_timeuuid('2010-01-02 00:00:00+00');
SELECT value FROM tagged_posts WHERE key = 'sql' ORDER BY column_name;
DELETE FROM tagged_posts WHERE key = 'sql' AND column_name = min_timeuuid('2010-01-01 00:00:00+00');
SELECT value FROM tagged_posts WHERE key = 'sql';
-- moving a column: to another name in its row, then to another row
UPDATE tagged_posts SET column_name = min_timeuuid('2010-01-03 00:00:00+00') WHERE key = 'sql';
SELECT key, timeuuid_time(column_name), value FROM tagged_posts WHERE key = 'sql';
UPDATE tagged_posts SET key = 'sql2' WHERE key = 'sql';
SELECT key, timeuuid_time(column_name), value FROM tagged_posts WHERE key IN ('sql', 'sql2');
INSERT INTO blog_entries (key, title, author) VALUES ('sql-over-cassandra', 'SQL over Cassandra', 'Joe Stump');
SELECT key, title, author, body FROM blog_entries WHERE key = 'sql-over-cassandra';
UPDATE blog_entries SET body = 'it works', title = NULL WHERE key = 'sql-over-cassandra';
SELECT key, title, body FROM blog_entries WHERE key = 'sql-over-cassandra';
DELETE FROM blog_entries WHERE key = 'sql-over-cassandra';
SELECT count(*) FROM blog_entries WHERE key = 'sql-over-cassandra';
-- a NULL key cannot be written
INSERT INTO tagged_posts VALUES (NULL, now_timeuuid(), 'x');

-- ---- errors: a value that does not decode names the row, column and encoding ----
CREATE FOREIGN TABLE authors_bad (key text, "numPosts" bigint) SERVER bloggy
  OPTIONS (column_family 'Authors', mapping 'rows');
SELECT * FROM authors_bad WHERE key = 'Ian Eure';
-- only what the query reads is decoded: the value of no row is a LongType, but a
-- query that does not read it (nor filters on it in Postgres) never decodes it
CREATE FOREIGN TABLE authors_cols_bad (key text, column_name text, value bigint)
  SERVER bloggy OPTIONS (column_family 'Authors');
SELECT column_name FROM authors_cols_bad WHERE key = 'Ian Eure' ORDER BY column_name;
SELECT count(*) FROM authors_cols_bad;
SELECT column_name FROM authors_cols_bad WHERE key = 'Ian Eure' AND value IS NOT NULL;
SELECT value FROM authors_cols_bad WHERE key = 'Ian Eure' AND column_name = 'numPosts';
SELECT a FROM authors_cols_bad a WHERE key = 'Ian Eure';
CREATE FOREIGN TABLE nowhere (key text, column_name text, value text) SERVER bloggy
  OPTIONS (column_family 'NoSuchCF');
SELECT * FROM nowhere;

-- ---- IMPORT FOREIGN SCHEMA ----
CREATE SCHEMA imported;
IMPORT FOREIGN SCHEMA "BloggyAppy" LIMIT TO ("TaggedPosts", "Comments") FROM SERVER bloggy INTO imported;
SELECT c.relname, a.attname, format_type(a.atttypid, a.atttypmod) AS type,
       (SELECT collname FROM pg_collation WHERE oid = a.attcollation) AS coll
FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid
JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE n.nspname = 'imported' AND a.attnum > 0 ORDER BY c.relname, a.attnum;
SELECT count(*) FROM imported."TaggedPosts" WHERE key = '__notag__';
IMPORT FOREIGN SCHEMA "BloggyAppy" FROM SERVER bloggy INTO imported OPTIONS (bytes_as 'texty');

-- leave the database (and colfamd) as we found them
DELETE FROM tagged_posts WHERE key IN ('sql', 'sql2');
DROP TABLE l_tagged, l_entries, l_authors, l_comments;
DROP SCHEMA imported CASCADE;
DROP EXTENSION colfam_fdw CASCADE;
