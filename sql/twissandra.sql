-- ===================================================================
-- twissandra: seed 002's Twissandra keyspace through colfam_fdw. IMPORT FOREIGN SCHEMA
-- makes its seven CFs foreign tables ('columns' mapping: none has column_metadata);
-- two hand-written 'rows' tables read User and Tweet as one SQL row per Cassandra row.
-- A user's timeline — a reversed slice of a LongType (microsecond) row — is joined to
-- the tweets and their authors, and so are a userline, followers and a username
-- lookup. Every answer is compared with the same query over local copies.
-- The suite loads tests/data/seeds/twissandra.cli into a colfamd at $COLFAM_HOSTS.
-- ===================================================================
\getenv colfam_hosts COLFAM_HOSTS
CREATE EXTENSION IF NOT EXISTS colfam_fdw;
CREATE SERVER twissandra FOREIGN DATA WRAPPER colfam_fdw
  OPTIONS (hosts :'colfam_hosts', keyspace 'Twissandra');
CREATE SCHEMA ts;
IMPORT FOREIGN SCHEMA "Twissandra" FROM SERVER twissandra INTO ts OPTIONS (bytes_as 'text');
SELECT c.relname, a.attname, format_type(a.atttypid, a.atttypmod) AS type,
       (SELECT collname FROM pg_collation WHERE oid = a.attcollation) AS coll
FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid
JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE n.nspname = 'ts' AND a.attnum > 0 ORDER BY c.relname, a.attnum;

-- 'rows' mapping of User and Tweet: their named columns as SQL columns
CREATE FOREIGN TABLE ts.users (key text COLLATE "C", username text, password text)
  SERVER twissandra OPTIONS (column_family 'User', mapping 'rows');
CREATE FOREIGN TABLE ts.tweets (key text COLLATE "C", user_id text COLLATE "C", body text,
                                "_ts" text)
  SERVER twissandra OPTIONS (column_family 'Tweet', mapping 'rows');

-- local copies: every answer below must equal the same query over these
CREATE TEMP TABLE l_user AS SELECT * FROM ts."User";
CREATE TEMP TABLE l_username AS SELECT * FROM ts."Username";
CREATE TEMP TABLE l_friends AS SELECT * FROM ts."Friends";
CREATE TEMP TABLE l_followers AS SELECT * FROM ts."Followers";
CREATE TEMP TABLE l_tweet AS SELECT * FROM ts."Tweet";
CREATE TEMP TABLE l_timeline AS SELECT * FROM ts."Timeline";
CREATE TEMP TABLE l_userline AS SELECT * FROM ts."Userline";
SELECT (SELECT count(*) FROM l_user) AS "user", (SELECT count(*) FROM l_username) AS username,
       (SELECT count(*) FROM l_friends) AS friends, (SELECT count(*) FROM l_followers) AS followers,
       (SELECT count(*) FROM l_tweet) AS tweet, (SELECT count(*) FROM l_timeline) AS timeline,
       (SELECT count(*) FROM l_userline) AS userline;
-- the 'rows' tables hold one SQL row per Cassandra row, the same cells pivoted
SELECT count(*) FROM (SELECT key, username, password FROM ts.users
  EXCEPT ALL SELECT key, max(value) FILTER (WHERE column_name = 'username'),
                    max(value) FILTER (WHERE column_name = 'password')
             FROM l_user GROUP BY key) d;
SELECT count(*) FROM (SELECT key, user_id, body, "_ts" FROM ts.tweets
  EXCEPT ALL SELECT key, max(value) FILTER (WHERE column_name = 'user_id'),
                    max(value) FILTER (WHERE column_name = 'body'),
                    max(value) FILTER (WHERE column_name = '_ts')
             FROM l_tweet GROUP BY key) d;

-- ---- ericflo's timeline, newest first: a reversed LongType slice joined to the
-- tweets and their authors (the Tweet CF read twice, as Twissandra's get_timeline did) ----
EXPLAIN (VERBOSE, COSTS OFF)
SELECT tl.column_name AS at_us, u.value AS username, tw.value AS body
FROM ts."Timeline" tl
JOIN ts."Tweet" tw ON tw.key = tl.value AND tw.column_name = 'body'
JOIN ts."Tweet" tu ON tu.key = tl.value AND tu.column_name = 'user_id'
JOIN ts."User" u ON u.key = tu.value AND u.column_name = 'username'
WHERE tl.key = 'a4a70900-24e1-11df-8924-001ff3591711'
ORDER BY tl.column_name DESC LIMIT 3;
SELECT tl.column_name AS at_us, u.value AS username, tw.value AS body
FROM ts."Timeline" tl
JOIN ts."Tweet" tw ON tw.key = tl.value AND tw.column_name = 'body'
JOIN ts."Tweet" tu ON tu.key = tl.value AND tu.column_name = 'user_id'
JOIN ts."User" u ON u.key = tu.value AND u.column_name = 'username'
WHERE tl.key = 'a4a70900-24e1-11df-8924-001ff3591711'
ORDER BY tl.column_name DESC LIMIT 3;
SELECT tl.column_name AS at_us, u.value AS username, tw.value AS body
FROM l_timeline tl
JOIN l_tweet tw ON tw.key = tl.value AND tw.column_name = 'body'
JOIN l_tweet tu ON tu.key = tl.value AND tu.column_name = 'user_id'
JOIN l_user u ON u.key = tu.value AND u.column_name = 'username'
WHERE tl.key = 'a4a70900-24e1-11df-8924-001ff3591711'
ORDER BY tl.column_name DESC LIMIT 3;

-- the same timeline over the 'rows' tables: each tweet and author one key lookup
EXPLAIN (VERBOSE, COSTS OFF)
SELECT to_timestamp(tl.column_name / 1e6) AS at, u.username, t.body
FROM ts."Timeline" tl
JOIN ts.tweets t ON t.key = tl.value
JOIN ts.users u ON u.key = t.user_id
WHERE tl.key = 'a4a70900-24e1-11df-8924-001ff3591711'
ORDER BY tl.column_name DESC LIMIT 3;
SELECT to_timestamp(tl.column_name / 1e6) AS at, u.username, t.body
FROM ts."Timeline" tl
JOIN ts.tweets t ON t.key = tl.value
JOIN ts.users u ON u.key = t.user_id
WHERE tl.key = 'a4a70900-24e1-11df-8924-001ff3591711'
ORDER BY tl.column_name DESC LIMIT 3;

-- a timeline page after a cursor: the next two older than the third newest
SELECT tl.column_name, t.body
FROM ts."Timeline" tl JOIN ts.tweets t ON t.key = tl.value
WHERE tl.key = 'a4a70900-24e1-11df-8924-001ff3591711' AND tl.column_name < 1267414305866969
ORDER BY tl.column_name DESC LIMIT 2;
SELECT tl.column_name, t.value AS body
FROM l_timeline tl JOIN l_tweet t ON t.key = tl.value AND t.column_name = 'body'
WHERE tl.key = 'a4a70900-24e1-11df-8924-001ff3591711' AND tl.column_name < 1267414305866969
ORDER BY tl.column_name DESC LIMIT 2;

-- ---- a user page: the username's id, then its userline ----
EXPLAIN (VERBOSE, COSTS OFF)
SELECT ul.column_name AS at_us, t.body
FROM ts."Username" un
JOIN ts."Userline" ul ON ul.key = un.value
JOIN ts.tweets t ON t.key = ul.value
WHERE un.key = 'ericflo' AND un.column_name = 'id'
ORDER BY ul.column_name DESC;
SELECT ul.column_name AS at_us, t.body
FROM ts."Username" un
JOIN ts."Userline" ul ON ul.key = un.value
JOIN ts.tweets t ON t.key = ul.value
WHERE un.key = 'ericflo' AND un.column_name = 'id'
ORDER BY ul.column_name DESC;
SELECT ul.column_name AS at_us, t.value AS body
FROM l_username un
JOIN l_userline ul ON ul.key = un.value
JOIN l_tweet t ON t.key = ul.value AND t.column_name = 'body'
WHERE un.key = 'ericflo' AND un.column_name = 'id'
ORDER BY ul.column_name DESC;

-- ---- followers and friends, by name, with when (microseconds in the value) ----
SELECT u.username AS follower, to_timestamp(f.value::bigint / 1e6) AS since
FROM ts."Followers" f JOIN ts.users u ON u.key = f.column_name
WHERE f.key = 'a4a70900-24e1-11df-8924-001ff3591711'
ORDER BY since;
SELECT u.value AS follower, to_timestamp(f.value::bigint / 1e6) AS since
FROM l_followers f JOIN l_user u ON u.key = f.column_name AND u.column_name = 'username'
WHERE f.key = 'a4a70900-24e1-11df-8924-001ff3591711'
ORDER BY since;
-- who follows ericflo back: friends that are also followers
SELECT count(*) FROM ts."Friends" fr
JOIN ts."Followers" fo ON fo.key = fr.key AND fo.column_name = fr.column_name
WHERE fr.key = 'a4a70900-24e1-11df-8924-001ff3591711';
SELECT count(*) FROM l_friends fr
JOIN l_followers fo ON fo.key = fr.key AND fo.column_name = fr.column_name
WHERE fr.key = 'a4a70900-24e1-11df-8924-001ff3591711';

-- ---- every timeline entry, over the whole keyspace, against the local copies ----
SELECT count(*) FROM (
  (SELECT tl.key, tl.column_name, u.username, t.body
   FROM ts."Timeline" tl JOIN ts.tweets t ON t.key = tl.value
   JOIN ts.users u ON u.key = t.user_id)
  EXCEPT ALL
  (SELECT tl.key, tl.column_name, u.value, tw.value
   FROM l_timeline tl
   JOIN l_tweet tw ON tw.key = tl.value AND tw.column_name = 'body'
   JOIN l_tweet tu ON tu.key = tl.value AND tu.column_name = 'user_id'
   JOIN l_user u ON u.key = tu.value AND u.column_name = 'username')) d;
SELECT count(*) FROM (
  (SELECT tl.key, tl.column_name, u.value, tw.value
   FROM l_timeline tl
   JOIN l_tweet tw ON tw.key = tl.value AND tw.column_name = 'body'
   JOIN l_tweet tu ON tu.key = tl.value AND tu.column_name = 'user_id'
   JOIN l_user u ON u.key = tu.value AND u.column_name = 'username')
  EXCEPT ALL
  (SELECT tl.key, tl.column_name, u.username, t.body
   FROM ts."Timeline" tl JOIN ts.tweets t ON t.key = tl.value
   JOIN ts.users u ON u.key = t.user_id)) d;

DROP TABLE l_user, l_username, l_friends, l_followers, l_tweet, l_timeline, l_userline;
DROP SCHEMA ts CASCADE;
DROP EXTENSION colfam_fdw CASCADE;
