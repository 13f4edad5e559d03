-- ===================================================================
-- joins: INNER joins of colfam tables pushed as batched key lookups (fdw/join.c).
-- The outer side is scanned by its own plan, its rows are taken in batches and the
-- inner side is read with one multiget_slice per batch. Every answer is compared with
-- the same join over local copies (EXCEPT ALL both ways), including NULL keys, keys
-- absent in colfamd, duplicate keys and keys converted from another type.
-- The suite uses seed 001's BloggyAppy at $COLFAM_HOSTS; the rows it writes are its own
-- (keys 'jn-...') and are deleted at the end.
-- ===================================================================
\getenv colfam_hosts COLFAM_HOSTS
CREATE EXTENSION IF NOT EXISTS colfam_fdw;
CREATE SERVER jn FOREIGN DATA WRAPPER colfam_fdw
  OPTIONS (hosts :'colfam_hosts', keyspace 'BloggyAppy');
CREATE FOREIGN TABLE jn_tagged (key text COLLATE "C", column_name timeuuid, value text)
  SERVER jn OPTIONS (column_family 'TaggedPosts');
CREATE FOREIGN TABLE jn_entries (key text COLLATE "C", title text, body text, author text,
                                 tags text, "pubDate" text)
  SERVER jn OPTIONS (column_family 'BlogEntries', mapping 'rows');
CREATE FOREIGN TABLE jn_authors (key text COLLATE "C", email text, twitter text, bio text,
                                 extra jsonb OPTIONS (role 'extra'))
  SERVER jn OPTIONS (column_family 'Authors', mapping 'rows');
-- the same CFs with other key types and a batch of 2 rows
CREATE FOREIGN TABLE jn_entries2 (key varchar, title text, author text)
  SERVER jn OPTIONS (column_family 'BlogEntries', mapping 'rows', fetch_size '2');
CREATE FOREIGN TABLE jn_authors_b (key bytea, email text)
  SERVER jn OPTIONS (column_family 'Authors', mapping 'rows');

-- an outer row of our own: duplicate keys, absent keys, an empty key, a key to NULL
INSERT INTO jn_tagged VALUES
  ('jn-tag', min_timeuuid('2011-01-01 00:00:01+00'), 'thrift-is-fine'),
  ('jn-tag', min_timeuuid('2011-01-01 00:00:02+00'), 'no-such-entry'),
  ('jn-tag', min_timeuuid('2011-01-01 00:00:03+00'), 'thrift-is-fine'),
  ('jn-tag', min_timeuuid('2011-01-01 00:00:04+00'), ''),
  ('jn-tag', min_timeuuid('2011-01-01 00:00:05+00'), 'to-null'),
  ('jn-tag', min_timeuuid('2011-01-01 00:00:06+00'), 'the-godfather'),
  ('jn-tag', min_timeuuid('2011-01-01 00:00:07+00'), 'jn-no-author');
INSERT INTO jn_entries (key, title, author) VALUES ('jn-no-author', 'No author', NULL);

CREATE TEMP TABLE l_tagged AS SELECT * FROM jn_tagged;
CREATE TEMP TABLE l_entries AS SELECT * FROM jn_entries;
CREATE TEMP TABLE l_authors AS SELECT * FROM jn_authors;
SELECT count(*) FROM l_tagged WHERE key = 'jn-tag';

-- ---- two tables: the outer slice's order, the first batch sized by the LIMIT ----
EXPLAIN (VERBOSE, COSTS OFF)
SELECT t.value, e.title FROM jn_tagged t JOIN jn_entries e ON e.key = t.value
WHERE t.key = 'jn-tag' ORDER BY t.column_name DESC LIMIT 3;
SELECT t.value, e.title FROM jn_tagged t JOIN jn_entries e ON e.key = t.value
WHERE t.key = 'jn-tag' ORDER BY t.column_name DESC LIMIT 3;
SELECT t.value, e.title FROM l_tagged t JOIN l_entries e ON e.key = t.value
WHERE t.key = 'jn-tag' ORDER BY t.column_name DESC LIMIT 3;

-- every row (duplicates twice, absent and empty keys none), in the slice's order
SELECT t.value, e.title FROM jn_tagged t JOIN jn_entries e ON e.key = t.value
WHERE t.key = 'jn-tag' ORDER BY t.column_name;
(SELECT t.column_name, e.* FROM jn_tagged t JOIN jn_entries e ON e.key = t.value
 EXCEPT ALL
 SELECT t.column_name, e.* FROM l_tagged t JOIN l_entries e ON e.key = t.value)
UNION ALL
(SELECT t.column_name, e.* FROM l_tagged t JOIN l_entries e ON e.key = t.value
 EXCEPT ALL
 SELECT t.column_name, e.* FROM jn_tagged t JOIN jn_entries e ON e.key = t.value);

-- ---- three tables: the front page, a pushed join as the outer side ----
EXPLAIN (VERBOSE, COSTS OFF)
SELECT e.title, a.email FROM jn_tagged t
JOIN jn_entries e ON e.key = t.value JOIN jn_authors a ON a.key = e.author
WHERE t.key = '__notag__' ORDER BY t.column_name DESC LIMIT 10;
SELECT e.title, a.email FROM jn_tagged t
JOIN jn_entries e ON e.key = t.value JOIN jn_authors a ON a.key = e.author
WHERE t.key = '__notag__' ORDER BY t.column_name DESC LIMIT 10;
SELECT e.title, a.email FROM l_tagged t
JOIN l_entries e ON e.key = t.value JOIN l_authors a ON a.key = e.author
WHERE t.key = '__notag__' ORDER BY t.column_name DESC LIMIT 10;
-- all tags (NULL author: no row), compared both ways
(SELECT t.key, t.column_name, e.title, a.email, a.extra FROM jn_tagged t
 JOIN jn_entries e ON e.key = t.value JOIN jn_authors a ON a.key = e.author
 EXCEPT ALL
 SELECT t.key, t.column_name, e.title, a.email, a.extra FROM l_tagged t
 JOIN l_entries e ON e.key = t.value JOIN l_authors a ON a.key = e.author)
UNION ALL
(SELECT t.key, t.column_name, e.title, a.email, a.extra FROM l_tagged t
 JOIN l_entries e ON e.key = t.value JOIN l_authors a ON a.key = e.author
 EXCEPT ALL
 SELECT t.key, t.column_name, e.title, a.email, a.extra FROM jn_tagged t
 JOIN jn_entries e ON e.key = t.value JOIN jn_authors a ON a.key = e.author);

-- ---- the key as an expression of the outer row: NULL joins nothing ----
EXPLAIN (VERBOSE, COSTS OFF)
SELECT t.value, e.title FROM jn_tagged t JOIN jn_entries e ON e.key = NULLIF(t.value, 'to-null')
WHERE t.key = 'jn-tag';
SELECT t.value, e.title FROM jn_tagged t JOIN jn_entries e ON e.key = NULLIF(t.value, 'to-null')
WHERE t.key = 'jn-tag' ORDER BY t.column_name;
SELECT t.value, e.title FROM l_tagged t JOIN l_entries e ON e.key = NULLIF(t.value, 'to-null')
WHERE t.key = 'jn-tag' ORDER BY t.column_name;

-- ---- other clauses and the inner table's restrictions are filters on the join ----
EXPLAIN (VERBOSE, COSTS OFF)
SELECT t.value, e.title FROM jn_tagged t JOIN jn_entries e
  ON e.key = t.value AND e.title <> t.value
WHERE t.key = 'jn-tag' AND e.author IS NOT NULL;
SELECT t.value, e.title FROM jn_tagged t JOIN jn_entries e
  ON e.key = t.value AND e.title <> t.value
WHERE t.key = 'jn-tag' AND e.author IS NOT NULL ORDER BY t.column_name;
SELECT t.value, e.title FROM l_tagged t JOIN l_entries e
  ON e.key = t.value AND e.title <> t.value
WHERE t.key = 'jn-tag' AND e.author IS NOT NULL ORDER BY t.column_name;

-- ---- other key types: varchar (batches of 2) and bytea keys ----
EXPLAIN (VERBOSE, COSTS OFF)
SELECT e.title, a.email FROM jn_tagged t
JOIN jn_entries2 e ON e.key = t.value
JOIN jn_authors_b a ON a.key = convert_to(e.author, 'UTF8')
WHERE t.key = '__notag__';
(SELECT t.column_name, e.title, a.email FROM jn_tagged t
 JOIN jn_entries2 e ON e.key = t.value
 JOIN jn_authors_b a ON a.key = convert_to(e.author, 'UTF8')
 EXCEPT ALL
 SELECT t.column_name, e.title, a.email FROM l_tagged t
 JOIN l_entries e ON e.key = t.value JOIN l_authors a ON a.key = e.author)
UNION ALL
(SELECT t.column_name, e.title, a.email FROM l_tagged t
 JOIN l_entries e ON e.key = t.value JOIN l_authors a ON a.key = e.author
 EXCEPT ALL
 SELECT t.column_name, e.title, a.email FROM jn_tagged t
 JOIN jn_entries2 e ON e.key = t.value
 JOIN jn_authors_b a ON a.key = convert_to(e.author, 'UTF8'));

-- ---- projection: only the inner columns the join reads are fetched; a row that has
-- none of them still joins (its existence is looked up), an absent one does not ----
INSERT INTO jn_entries (key, author) VALUES ('jn-author-only', 'jn-someone');
INSERT INTO jn_tagged VALUES
  ('jn-proj', min_timeuuid('2011-01-01 00:00:01+00'), 'jn-author-only'),
  ('jn-proj', min_timeuuid('2011-01-01 00:00:02+00'), 'jn-absent'),
  ('jn-proj', min_timeuuid('2011-01-01 00:00:03+00'), 'thrift-is-fine');
EXPLAIN (VERBOSE, COSTS OFF)
SELECT t.value, e.title FROM jn_tagged t JOIN jn_entries e ON e.key = t.value
WHERE t.key = 'jn-proj';
SELECT t.value, e.title, e.title IS NULL AS no_title FROM jn_tagged t
JOIN jn_entries e ON e.key = t.value WHERE t.key = 'jn-proj' ORDER BY t.column_name;
-- a whole-row reference: not pushed as a join; the inner key lookup reads every column
EXPLAIN (VERBOSE, COSTS OFF)
SELECT t.value, e FROM jn_tagged t JOIN jn_entries e ON e.key = t.value
WHERE t.key = 'jn-proj';
SELECT t.value, e FROM jn_tagged t JOIN jn_entries e ON e.key = t.value
WHERE t.key = 'jn-proj' ORDER BY t.column_name;

-- ---- not pushed: an outer join, a key compared under a nondeterministic rule ----
EXPLAIN (COSTS OFF)
SELECT t.value, e.title FROM jn_tagged t LEFT JOIN jn_entries e ON e.key = t.value
WHERE t.key = 'jn-tag';
SELECT t.value, e.title FROM jn_tagged t LEFT JOIN jn_entries e ON e.key = t.value
WHERE t.key = 'jn-tag' ORDER BY t.column_name;
EXPLAIN (COSTS OFF)
SELECT t.value, e.title FROM jn_tagged t JOIN jn_entries e ON lower(e.key) = t.value
WHERE t.key = 'jn-tag';

-- a join that runs again (the inner side of a nested loop over a local table)
SELECT v.n, e.title FROM (VALUES (1), (2)) v(n),
  LATERAL (SELECT e.title FROM jn_tagged t JOIN jn_entries e ON e.key = t.value
           WHERE t.key = 'jn-tag' ORDER BY t.column_name OFFSET v.n LIMIT 2) e
ORDER BY 1, 2;

DELETE FROM jn_tagged WHERE key IN ('jn-tag', 'jn-proj');
DELETE FROM jn_entries WHERE key IN ('jn-no-author', 'jn-author-only');
SELECT count(*) FROM jn_tagged WHERE key IN ('jn-tag', 'jn-proj');

DROP SERVER jn CASCADE;
-- the next suite creates the extension itself
DROP TABLE l_tagged, l_entries, l_authors;
DROP EXTENSION colfam_fdw;
