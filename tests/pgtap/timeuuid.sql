-- tests/pgtap/timeuuid.sql — the timeuuid type: catalog objects, volatility, and its
-- order checked against TimeUUIDType's documented rule (engine/storage/comparator.h:
-- the 60-bit timestamp, then the 16 bytes compared as signed bytes), re-derived here
-- in SQL from the bytes, independently of fdw/timeuuid.c.
BEGIN;
SELECT plan(42);

CREATE EXTENSION colfam_fdw;
SELECT setseed(0.4242);

-- ---------------------------------------------------------------- objects
SELECT has_type('timeuuid', 'the timeuuid type exists');
SELECT is((SELECT typlen::int FROM pg_type WHERE oid = 'timeuuid'::regtype), 16,
          'timeuuid is 16 bytes');
SELECT has_cast('timeuuid', 'uuid', 'timeuuid casts to uuid');
SELECT cast_context_is('timeuuid', 'uuid', 'implicit', 'timeuuid → uuid is implicit');
SELECT cast_context_is('uuid', 'timeuuid', 'explicit', 'uuid → timeuuid is explicit');
SELECT has_operator('timeuuid', op, 'timeuuid', 'boolean', format('operator %s exists', op))
FROM unnest(ARRAY['=', '<>', '<', '<=', '>', '>=']) op;
SELECT is((SELECT array_agg(am.amname::text ORDER BY am.amname) FROM pg_opclass c
           JOIN pg_am am ON am.oid = c.opcmethod
           WHERE c.opcintype = 'timeuuid'::regtype AND c.opcdefault),
          ARRAY['btree', 'hash'], 'default btree and hash operator classes');
SELECT is((SELECT array_agg(p.amprocnum::int ORDER BY p.amprocnum) FROM pg_amproc p
           JOIN pg_opfamily f ON f.oid = p.amprocfamily JOIN pg_am am ON am.oid = f.opfmethod
           WHERE am.amname = 'btree' AND p.amproclefttype = 'timeuuid'::regtype),
          ARRAY[1, 2], 'btree has a comparison and a sortsupport function');
CREATE FUNCTION pg_temp.opname(o oid) RETURNS name LANGUAGE sql AS
  $$ SELECT oprname FROM pg_operator WHERE oid = o $$;
SELECT is((SELECT row(oprcanmerge, oprcanhash, pg_temp.opname(oprcom), pg_temp.opname(oprnegate),
                      oprrest::text, oprjoin::text)::text
           FROM pg_operator WHERE oid = '=(timeuuid,timeuuid)'::regoperator),
          '(t,t,=,<>,eqsel,eqjoinsel)', '= merges, hashes, has its commutator and negator');
SELECT is((SELECT array_agg(row(oprname, pg_temp.opname(oprcom), pg_temp.opname(oprnegate),
                                oprrest)::text
                            ORDER BY oprname)
           FROM pg_operator WHERE oprleft = 'timeuuid'::regtype AND oprname <> '='),
          ARRAY['(<,>,>=,scalarltsel)', '(<=,>=,>,scalarlesel)', '(<>,<>,=,neqsel)',
                '(>,<,<=,scalargtsel)', '(>=,<=,<,scalargesel)'],
          'the other operators: commutators, negators, selectivity');

-- ---------------------------------------------------------------- volatility
SELECT volatility_is(f, args, 'immutable', f || ' is immutable')
FROM (VALUES ('timeuuid_time', ARRAY['timeuuid']), ('min_timeuuid', ARRAY['timestamp with time zone']),
             ('max_timeuuid', ARRAY['timestamp with time zone']), ('token', ARRAY['text']),
             ('token', ARRAY['bytea'])) v(f, args);
SELECT volatility_is('now_timeuuid', ARRAY[]::text[], 'volatile', 'now_timeuuid is volatile');
SELECT is((SELECT array_agg(proname || ':' || proparallel::text ORDER BY proname, proparallel)
           FROM pg_proc WHERE proname IN ('timeuuid_time', 'min_timeuuid', 'max_timeuuid',
                                          'now_timeuuid', 'token')),
          ARRAY['max_timeuuid:s', 'min_timeuuid:s', 'now_timeuuid:r', 'timeuuid_time:s',
                'token:s', 'token:s'],
          'parallel safe, except now_timeuuid (backend-local state): restricted');
SELECT is((SELECT bool_and(proisstrict) FROM pg_proc
           WHERE proname IN ('timeuuid_time', 'min_timeuuid', 'max_timeuuid', 'token')),
          true, 'the functions are strict');

-- ---------------------------------------------------------------- version check
SELECT throws_ok($$SELECT 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::timeuuid$$, '22P02',
                 'timeuuid requires a version 1 UUID, got version 4', 'a v4 UUID is rejected');
SELECT throws_ok($$SELECT gen_random_uuid()::timeuuid$$, '22023',
                 'timeuuid requires a version 1 UUID, got version 4',
                 'the uuid → timeuuid cast checks the version');
SELECT lives_ok($$SELECT '6ba7b810-9dad-11d1-80b4-00c04fd430c8'::uuid::timeuuid$$,
                'a v1 uuid casts to timeuuid');

-- ---------------------------------------------------------------- order
-- Values with few distinct timestamps (so many ties) and tails rich in 0x00, 0x7f,
-- 0x80 and 0xff, the bytes where signed and unsigned order differ.
CREATE TEMP TABLE gen AS
WITH t AS (
  SELECT g,
         CASE WHEN random() < 0.8
              THEN (ARRAY[0, 1, 9, 10, 4294967295, 4294967296, 281474976710655,
                          281474976710656, 1152921504606846975, 137979648000000000,
                          137979648000000009, 137979648000000010])[1 + floor(random() * 12)::int]
              ELSE floor(random() * 1152921504606846976)::bigint END AS ticks
  FROM generate_series(1, 3000) g),
tail AS (
  SELECT g, string_agg(lpad(to_hex(CASE WHEN random() < 0.5
                                       THEN (ARRAY[0, 127, 128, 255])[1 + floor(random() * 4)::int]
                                       ELSE floor(random() * 256)::int END), 2, '0'), '') AS hex
  FROM generate_series(1, 3000) g, generate_series(1, 8) b GROUP BY g)
SELECT DISTINCT ticks,
       (lpad(to_hex(ticks & 4294967295), 8, '0') || lpad(to_hex((ticks >> 32) & 65535), 4, '0') ||
        lpad(to_hex(4096 | ((ticks >> 48) & 4095)), 4, '0') || tail.hex)::timeuuid AS u
FROM t JOIN tail USING (g);

-- the rule, from the bytes: timestamp, then each byte as signed (x xor 0x80 unsigned)
CREATE FUNCTION pg_temp.rule_ticks(u timeuuid) RETURNS bigint LANGUAGE sql IMMUTABLE AS $$
  SELECT ((get_byte(b, 6) & 15)::bigint << 56) | (get_byte(b, 7)::bigint << 48) |
         (get_byte(b, 4)::bigint << 40) | (get_byte(b, 5)::bigint << 32) |
         (get_byte(b, 0)::bigint << 24) | (get_byte(b, 1)::bigint << 16) |
         (get_byte(b, 2)::bigint << 8) | get_byte(b, 3)::bigint
  FROM (SELECT timeuuid_send(u) AS b) s $$;
CREATE FUNCTION pg_temp.rule_signed(u timeuuid) RETURNS bytea LANGUAGE sql IMMUTABLE AS $$
  SELECT decode(string_agg(lpad(to_hex(get_byte(b, i) # 128), 2, '0'), '' ORDER BY i), 'hex')
  FROM (SELECT timeuuid_send(u) AS b) s, generate_series(0, 15) i $$;

SELECT cmp_ok((SELECT count(*) FROM gen), '>', 2500::bigint, 'enough distinct values generated');
SELECT is((SELECT count(*) FROM gen WHERE pg_temp.rule_ticks(u) <> ticks), 0::bigint,
          'the rule reads back the generated timestamps');
SELECT is((SELECT array_agg(u::text ORDER BY u) FROM gen),
          (SELECT array_agg(u::text ORDER BY pg_temp.rule_ticks(u), pg_temp.rule_signed(u)) FROM gen),
          'ORDER BY timeuuid (sort) is TimeUUIDType order');
SELECT is((SELECT array_agg(u::text ORDER BY u DESC) FROM gen),
          (SELECT array_agg(u::text ORDER BY pg_temp.rule_ticks(u) DESC, pg_temp.rule_signed(u) DESC)
           FROM gen),
          'ORDER BY timeuuid DESC is the reverse');
CREATE INDEX gen_u ON gen (u);
SET LOCAL enable_seqscan = off;
SET LOCAL enable_bitmapscan = off;
SET LOCAL enable_sort = off;
SELECT is((SELECT array_agg(u::text) FROM (SELECT u FROM gen ORDER BY u) s),
          (SELECT array_agg(u::text ORDER BY pg_temp.rule_ticks(u), pg_temp.rule_signed(u)) FROM gen),
          'a btree index scan returns TimeUUIDType order');
RESET enable_seqscan;
RESET enable_bitmapscan;
RESET enable_sort;
SELECT is((SELECT count(*) FROM
             (SELECT u, pg_temp.rule_ticks(u) t, pg_temp.rule_signed(u) s FROM gen LIMIT 250) a,
             (SELECT u, pg_temp.rule_ticks(u) t, pg_temp.rule_signed(u) s FROM gen
              ORDER BY u DESC LIMIT 250) b
           WHERE (a.u < b.u) <> ((a.t, a.s) < (b.t, b.s))
              OR (a.u <= b.u) <> ((a.t, a.s) <= (b.t, b.s))
              OR (a.u > b.u) <> ((a.t, a.s) > (b.t, b.s))
              OR (a.u >= b.u) <> ((a.t, a.s) >= (b.t, b.s))
              OR (a.u = b.u) <> ((a.t, a.s) = (b.t, b.s))
              OR (a.u <> b.u) <> ((a.t, a.s) <> (b.t, b.s))),
          0::bigint, 'every operator agrees with the rule on 62500 pairs');
SELECT is((SELECT count(*) FROM gen a JOIN gen b ON a.u = b.u), (SELECT count(*) FROM gen),
          'equality is byte equality (joins find each value once)');

-- ---------------------------------------------------------------- time
SELECT is((SELECT count(*) FROM gen
           WHERE extract(epoch FROM timeuuid_time(u)) * 1000000
                 <> ticks / 10 - 12219292800000000),
          0::bigint, 'timeuuid_time is the timestamp rounded down to the microsecond');
-- windows whose ends fall on the instants of the generated values, and one past them
CREATE TEMP TABLE instants AS
SELECT DISTINCT timeuuid_time(u) AS t FROM gen
UNION SELECT timeuuid_time(u) + interval '1 microsecond' FROM gen
      WHERE timeuuid_time(u) < '5236-03-31 21:21:00.684697+00';
SELECT is((SELECT count(*) FROM
             (SELECT t FROM instants ORDER BY random() LIMIT 40) a,
             (SELECT t FROM instants ORDER BY random() LIMIT 40) b, gen
           WHERE a.t <= b.t
             AND (gen.u BETWEEN min_timeuuid(a.t) AND max_timeuuid(b.t))
                 <> (timeuuid_time(gen.u) BETWEEN a.t AND b.t)),
          0::bigint,
          'u BETWEEN min_timeuuid(t1) AND max_timeuuid(t2) iff timeuuid_time(u) is in [t1, t2]');
SELECT is((SELECT count(*) FROM gen
           WHERE NOT (min_timeuuid(timeuuid_time(u)) <= u AND u <= max_timeuuid(timeuuid_time(u)))),
          0::bigint, 'every value lies between the min and max timeuuid of its instant');
SELECT is((SELECT bool_and(timeuuid_time(min_timeuuid(t)) = t AND timeuuid_time(max_timeuuid(t)) = t)
           FROM instants), true, 'min_timeuuid and max_timeuuid are of the instant given');
SELECT throws_ok($$SELECT min_timeuuid('1582-10-14 23:59:59.999999+00')$$, '22008', NULL,
                 'an instant before 1582-10-15 has no timeuuid');

-- ---------------------------------------------------------------- now_timeuuid
CREATE TEMP TABLE made AS
SELECT g, now_timeuuid() AS u FROM generate_series(1, 20000) g;
SELECT is((SELECT count(*) FROM (SELECT u, lag(u) OVER (ORDER BY g) AS prev FROM made) s
           WHERE prev IS NOT NULL AND NOT prev < u),
          0::bigint, 'now_timeuuid increases with every call');
SELECT is((SELECT count(DISTINCT substr(timeuuid_send(u), 9)) FROM made), 1::bigint,
          'one clock sequence and node per session');
SELECT is((SELECT bool_and(get_byte(timeuuid_send(u), 10) & 1 = 1
                           AND get_byte(timeuuid_send(u), 8) & 192 = 128) FROM made),
          true, 'the node has the multicast bit and the variant is RFC 4122');
SELECT ok((SELECT max(timeuuid_time(u)) FROM made) BETWEEN now() AND clock_timestamp(),
          'now_timeuuid is of the current time');

SELECT * FROM finish();
ROLLBACK;
