-- ===================================================================
-- twitter: seed 004's Twitter keyspace ("Up and running with Cassandra") through
-- colfam_fdw, its tables made by IMPORT FOREIGN SCHEMA: users, statuses, and a user's
-- timeline — a reversed slice of TimeUUIDs in a super column — joined to the statuses
-- and their authors. Every answer is compared with the same query over local copies.
-- The suite loads tests/data/seeds/twitter.cli into a colfamd at $COLFAM_HOSTS.
-- ===================================================================
\getenv colfam_hosts COLFAM_HOSTS
CREATE EXTENSION IF NOT EXISTS colfam_fdw;
CREATE SERVER twitter FOREIGN DATA WRAPPER colfam_fdw
  OPTIONS (hosts :'colfam_hosts', keyspace 'Twitter');
CREATE SCHEMA tw;
IMPORT FOREIGN SCHEMA "Twitter" FROM SERVER twitter INTO tw OPTIONS (bytes_as 'text');
SELECT c.relname, a.attname, format_type(a.atttypid, a.atttypmod) AS type,
       (SELECT collname FROM pg_collation WHERE oid = a.attcollation) AS coll
FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid
JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE n.nspname = 'tw' AND a.attnum > 0 ORDER BY c.relname, a.attnum;

-- local copies: every answer below must equal the same query over these
CREATE TEMP TABLE l_users AS SELECT * FROM tw."Users";
CREATE TEMP TABLE l_statuses AS SELECT * FROM tw."Statuses";
CREATE TEMP TABLE l_userrel AS SELECT * FROM tw."UserRelationships";
CREATE TEMP TABLE l_statusrel AS SELECT * FROM tw."StatusRelationships";
SELECT (SELECT count(*) FROM l_users) AS users, (SELECT count(*) FROM l_statuses) AS statuses,
       (SELECT count(*) FROM l_userrel) AS user_relationships,
       (SELECT count(*) FROM l_statusrel) AS status_relationships;
SELECT count(*) FROM (SELECT * FROM tw."UserRelationships" EXCEPT ALL SELECT * FROM l_userrel) d;
SELECT count(*) FROM (SELECT * FROM l_userrel EXCEPT ALL SELECT * FROM tw."UserRelationships") d;

-- ---- Users: screen names; one user by key ----
SELECT key, value AS screen_name FROM tw."Users" WHERE column_name = 'screen_name' ORDER BY key;
EXPLAIN (VERBOSE, COSTS OFF)
SELECT value FROM tw."Users" WHERE key = '8' AND column_name = 'screen_name';
SELECT value FROM tw."Users" WHERE key = '8' AND column_name = 'screen_name';

-- ---- Statuses: one status's columns, and the replies ----
EXPLAIN (VERBOSE, COSTS OFF)
SELECT column_name, value FROM tw."Statuses" WHERE key = '2' ORDER BY column_name;
SELECT column_name, value FROM tw."Statuses" WHERE key = '2' ORDER BY column_name;
SELECT key, value AS reply_to_id FROM tw."Statuses" WHERE column_name = 'reply_to_id' ORDER BY key;
SELECT key, value AS reply_to_id FROM l_statuses WHERE column_name = 'reply_to_id' ORDER BY key;

-- ---- the demo: user 5's user_timeline, newest first, mapped to the statuses' text ----
-- (twitter.get(:UserRelationships, '5', 'user_timeline', :reversed => true))
SELECT s.value AS text
FROM tw."UserRelationships" t
JOIN tw."Statuses" s ON s.key = t.value AND s.column_name = 'text'
WHERE t.key = '5' AND t.super_column = 'user_timeline'
ORDER BY t.column_name DESC;

-- ---- a home timeline: the newest three, with each status's author ----
-- a reversed slice of 3 from the super column, then a key lookup per status and author
EXPLAIN (VERBOSE, COSTS OFF)
SELECT timeuuid_time(t.column_name) AS at, u.value AS author, s.value AS text
FROM tw."UserRelationships" t
JOIN tw."Statuses" s ON s.key = t.value AND s.column_name = 'text'
JOIN tw."Statuses" a ON a.key = t.value AND a.column_name = 'user_id'
JOIN tw."Users" u ON u.key = a.value AND u.column_name = 'screen_name'
WHERE t.key = '8' AND t.super_column = 'home_timeline'
ORDER BY t.column_name DESC
LIMIT 3;
SELECT timeuuid_time(t.column_name) AS at, u.value AS author, s.value AS text
FROM tw."UserRelationships" t
JOIN tw."Statuses" s ON s.key = t.value AND s.column_name = 'text'
JOIN tw."Statuses" a ON a.key = t.value AND a.column_name = 'user_id'
JOIN tw."Users" u ON u.key = a.value AND u.column_name = 'screen_name'
WHERE t.key = '8' AND t.super_column = 'home_timeline'
ORDER BY t.column_name DESC
LIMIT 3;
-- the same query over the local copies: the same answer
SELECT timeuuid_time(t.column_name) AS at, u.value AS author, s.value AS text
FROM l_userrel t
JOIN l_statuses s ON s.key = t.value AND s.column_name = 'text'
JOIN l_statuses a ON a.key = t.value AND a.column_name = 'user_id'
JOIN l_users u ON u.key = a.value AND u.column_name = 'screen_name'
WHERE t.key = '8' AND t.super_column = 'home_timeline'
ORDER BY t.column_name DESC
LIMIT 3;
SELECT count(*) FROM (
  (SELECT t.key, t.column_name, u.value, s.value
   FROM tw."UserRelationships" t
   JOIN tw."Statuses" s ON s.key = t.value AND s.column_name = 'text'
   JOIN tw."Statuses" a ON a.key = t.value AND a.column_name = 'user_id'
   JOIN tw."Users" u ON u.key = a.value AND u.column_name = 'screen_name'
   WHERE t.super_column = 'home_timeline')
  EXCEPT ALL
  (SELECT t.key, t.column_name, u.value, s.value
   FROM l_userrel t
   JOIN l_statuses s ON s.key = t.value AND s.column_name = 'text'
   JOIN l_statuses a ON a.key = t.value AND a.column_name = 'user_id'
   JOIN l_users u ON u.key = a.value AND u.column_name = 'screen_name'
   WHERE t.super_column = 'home_timeline')) d;
SELECT count(*) FROM (
  (SELECT t.key, t.column_name, u.value, s.value
   FROM l_userrel t
   JOIN l_statuses s ON s.key = t.value AND s.column_name = 'text'
   JOIN l_statuses a ON a.key = t.value AND a.column_name = 'user_id'
   JOIN l_users u ON u.key = a.value AND u.column_name = 'screen_name'
   WHERE t.super_column = 'home_timeline')
  EXCEPT ALL
  (SELECT t.key, t.column_name, u.value, s.value
   FROM tw."UserRelationships" t
   JOIN tw."Statuses" s ON s.key = t.value AND s.column_name = 'text'
   JOIN tw."Statuses" a ON a.key = t.value AND a.column_name = 'user_id'
   JOIN tw."Users" u ON u.key = a.value AND u.column_name = 'screen_name'
   WHERE t.super_column = 'home_timeline')) d;

-- ---- StatusRelationships: who favorited each of a user's statuses ----
SELECT t.value AS status, u.value AS favorited_by
FROM tw."UserRelationships" t
JOIN tw."StatusRelationships" f ON f.key = t.value AND f.super_column = 'favorited_by'
JOIN tw."Users" u ON u.key = f.value AND u.column_name = 'screen_name'
WHERE t.key = '8' AND t.super_column = 'user_timeline'
ORDER BY t.column_name;
SELECT t.value AS status, u.value AS favorited_by
FROM l_userrel t
JOIN l_statusrel f ON f.key = t.value AND f.super_column = 'favorited_by'
JOIN l_users u ON u.key = f.value AND u.column_name = 'screen_name'
WHERE t.key = '8' AND t.super_column = 'user_timeline'
ORDER BY t.column_name;

DROP TABLE l_users, l_statuses, l_userrel, l_statusrel;
DROP SCHEMA tw CASCADE;
DROP EXTENSION colfam_fdw CASCADE;
