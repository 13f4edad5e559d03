-- ===================================================================
-- types: the timeuuid type, token(), and the value conversions of fdw/convert.c
-- (through colfam_encode/colfam_decode, which call the executor's conversion layer)
-- ===================================================================
CREATE EXTENSION colfam_fdw;
SET extra_float_digits = 0;
SET timezone = 'UTC';

-- Runs text::typ and returns the text form of the result, or the error message.
CREATE FUNCTION try_cast(t text, typ regtype) RETURNS text LANGUAGE plpgsql AS $$
DECLARE r text;
BEGIN
  EXECUTE format('SELECT %L::%s::text', t, typ) INTO r;
  RETURN r;
EXCEPTION WHEN others THEN
  RETURN 'ERROR ' || SQLSTATE || ': ' || SQLERRM;
END $$;

-- ===================================================================
-- timeuuid input: the forms uuid accepts, version 1 only
-- ===================================================================
SELECT input, try_cast(input, 'uuid') AS as_uuid, try_cast(input, 'timeuuid') AS as_timeuuid
FROM (VALUES
  ('6ba7b810-9dad-11d1-80b4-00c04fd430c8'),
  ('6BA7B810-9DAD-11D1-80B4-00C04FD430C8'),
  ('{6ba7b810-9dad-11d1-80b4-00c04fd430c8}'),
  ('6ba7b8109dad11d180b400c04fd430c8'),
  ('6ba7-b810-9dad-11d1-80b4-00c0-4fd4-30c8'),
  ('{6ba7b8109dad11d180b400c04fd430c8}'),
  ('6ba7b810-9dad-11d1-80b4-00c04fd430c'),
  ('6ba7b810-9dad-11d1-80b4-00c04fd430c8a'),
  ('6ba7b810--9dad-11d1-80b4-00c04fd430c8'),
  ('6ba7b81-09dad-11d1-80b4-00c04fd430c8'),
  ('{6ba7b810-9dad-11d1-80b4-00c04fd430c8'),
  ('6ba7b810-9dad-11d1-80b4-00c04fd430c8-'),
  (' 6ba7b810-9dad-11d1-80b4-00c04fd430c8'),
  ('6ba7b810-9dad-11d1-80b4-00c04fd430g8'),
  (''),
  ('a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'),
  ('00000000-0000-0000-0000-000000000000'),
  ('6ba7b810-9dad-21d1-80b4-00c04fd430c8')
) AS v(input);

-- the version error in full
SELECT 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::timeuuid;

-- casts: timeuuid → uuid implicitly, uuid → timeuuid explicitly and checked
SELECT '6ba7b810-9dad-11d1-80b4-00c04fd430c8'::timeuuid = '6ba7b810-9dad-11d1-80b4-00c04fd430c8'::uuid
  AS implicit_to_uuid;
SELECT '6ba7b810-9dad-11d1-80b4-00c04fd430c8'::uuid::timeuuid AS from_uuid;
SELECT 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid::timeuuid;
SELECT castcontext, format_type(castsource, NULL) AS source, format_type(casttarget, NULL) AS target,
       castmethod
FROM pg_cast WHERE 'timeuuid'::regtype IN (castsource, casttarget) ORDER BY 2;
CREATE TEMP TABLE needs_cast (u timeuuid);
INSERT INTO needs_cast VALUES ('a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid);

-- binary I/O: send gives the 16 bytes; recv is exercised by COPY BINARY below
SELECT timeuuid_send('6ba7b810-9dad-11d1-80b4-00c04fd430c8');

-- ===================================================================
-- timeuuid order: the engine's TimeUUIDType order (timestamp, then signed bytes).
-- The expected order was produced by engine/storage/comparator.c (cf_type_compare).
-- ===================================================================
CREATE TEMP TABLE crafted (u timeuuid);
INSERT INTO crafted VALUES
  ('c3d4e5f6-a5b2-11e0-0000-000000000080'),
  ('c3d4e5f6-a5b2-11e0-8000-000000000000'),
  ('c3d4e5f6-a5b2-11e0-0000-00000000007f'),
  ('c3d4e5f6-a5b2-11e0-7f7f-7f7f7f7f7f7f'),
  ('c3d4e5f6-a5b2-11e1-0000-000000000000'),
  ('00000000-a5b3-11e0-0000-000000000000'),
  ('c3d4e5f6-a5b2-11e0-8080-808080808080'),
  ('ffffffff-a5b2-11e0-0000-000000000000'),
  ('c3d4e5f6-a5b2-11e0-9fa1-000000000001'),
  ('ffffffff-0000-1000-0000-000000000000'),
  ('c3d4e5f6-a5b2-11e0-0000-000000000000'),
  ('c3d4e5f6-a5b2-11e0-ffff-ffffffffffff'),
  ('c3d4e5f5-a5b2-11e0-7f7f-7f7f7f7f7f7f'),
  ('00000000-0000-1000-ffff-ffffffffffff'),
  ('c3d4e5f7-a5b2-11e0-8080-808080808080'),
  ('00000000-0001-1000-0000-000000000000'),
  ('89abcdef-4567-1123-1234-56789abcdef0'),
  ('ffffffff-ffff-1fff-8080-808080808080');
-- sort (sortsupport)
SELECT u, timeuuid_time(u) FROM crafted ORDER BY u;
-- the same order through a btree index scan
CREATE INDEX ON crafted (u);
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SELECT array_agg(u::text) = (SELECT array_agg(u::text ORDER BY u) FROM crafted) AS index_order_same
FROM (SELECT u FROM crafted ORDER BY u) s;
SELECT count(*) AS in_range FROM crafted
WHERE u >= 'c3d4e5f6-a5b2-11e0-8080-808080808080' AND u < 'c3d4e5f6-a5b2-11e0-7f7f-7f7f7f7f7f7f';
RESET enable_seqscan;
RESET enable_bitmapscan;
-- descending, and the operators agree with the order
SELECT u FROM crafted ORDER BY u DESC LIMIT 3;
SELECT count(*) FILTER (WHERE (a.u < b.u) <> (timeuuid_cmp(a.u, b.u) < 0)
                           OR (a.u <= b.u) <> (timeuuid_cmp(a.u, b.u) <= 0)
                           OR (a.u > b.u) <> (timeuuid_cmp(a.u, b.u) > 0)
                           OR (a.u >= b.u) <> (timeuuid_cmp(a.u, b.u) >= 0)
                           OR (a.u = b.u) <> (timeuuid_cmp(a.u, b.u) = 0)
                           OR (a.u <> b.u) <> (timeuuid_cmp(a.u, b.u) <> 0)) AS disagreements,
       count(*) AS pairs
FROM crafted a, crafted b;
-- hash and merge joins find the same pairs
SET enable_mergejoin = off;
SET enable_nestloop = off;
SELECT count(*) AS hash_join FROM crafted a JOIN crafted b ON a.u = b.u;
RESET enable_mergejoin;
SET enable_hashjoin = off;
SELECT count(*) AS merge_join FROM crafted a JOIN crafted b ON a.u = b.u;
RESET enable_hashjoin;
RESET enable_nestloop;
SELECT count(DISTINCT u) AS distinct_values FROM crafted;
-- COPY BINARY round trip uses timeuuid_send and timeuuid_recv
CREATE TEMP TABLE copied (u timeuuid);
COPY crafted TO '/tmp/colfam_fdw_types_test.bin' WITH (FORMAT binary);
COPY copied FROM '/tmp/colfam_fdw_types_test.bin' WITH (FORMAT binary);
SELECT count(*) AS copied_back FROM copied JOIN crafted USING (u);

-- ===================================================================
-- timeuuid_time, min_timeuuid, max_timeuuid
-- ===================================================================
-- rounded down to the microsecond: ticks 0..9 of a microsecond are that microsecond
SELECT u, timeuuid_time(u) FROM (VALUES
  ('13814000-1dd2-11b2-8080-808080808080'::timeuuid),  -- 1970-01-01, tick 0
  ('13814009-1dd2-11b2-8080-808080808080'::timeuuid),  -- tick 9
  ('1381400a-1dd2-11b2-8080-808080808080'::timeuuid),  -- tick 10: the next µs
  ('13813fff-1dd2-11b2-8080-808080808080'::timeuuid),  -- one tick before 1970
  ('00000000-0000-1000-8080-808080808080'::timeuuid),  -- the first timeuuid
  ('ffffffff-ffff-1fff-7f7f-7f7f7f7f7f7f'::timeuuid)   -- the last
) AS v(u);
SELECT min_timeuuid('2011-02-03 04:05:06.789012+00') AS min,
       max_timeuuid('2011-02-03 04:05:06.789012+00') AS max;
SELECT timeuuid_time(min_timeuuid(t)) = t AS min_same_instant,
       timeuuid_time(max_timeuuid(t)) = t AS max_same_instant,
       max_timeuuid(t - interval '1 microsecond') < min_timeuuid(t) AS adjacent_ordered
FROM (VALUES ('2011-02-03 04:05:06.789012+00'::timestamptz), ('1900-01-01'), ('1582-10-15 00:00:01')) v(t);
-- the ends of the range, and beyond
SELECT min_timeuuid('1582-10-15 00:00:00+00'), max_timeuuid('5236-03-31 21:21:00.684697+00');
SELECT min_timeuuid('1582-10-14 23:59:59.999999+00');
SELECT max_timeuuid('5236-03-31 21:21:00.684698+00');
SELECT min_timeuuid('infinity');
SELECT max_timeuuid('-infinity');

-- ===================================================================
-- token(): RandomPartitioner, |MD5 as a signed 128-bit integer|.
-- Expected values were computed with Python's hashlib.
-- ===================================================================
SELECT k, token(k) FROM (VALUES (''), ('a'), ('jsmith'), ('__notag__'), ('héllo'), ('key1')) v(k);
SELECT token('\x'::bytea) AS empty, token('\x00ff'::bytea) AS two_bytes,
       token(convert_to('héllo', 'UTF8')) = token('héllo') AS text_is_utf8;

-- ===================================================================
-- conversions: the bytes of each type (colfam_encode), and back (colfam_decode)
-- ===================================================================
SELECT v, colfam_encode(v) FROM (VALUES
  (0::bigint), (1), (-1), (9223372036854775807), (-9223372036854775808)) t(v);
SELECT colfam_encode(7::integer) AS int4, colfam_encode((-2)::smallint) AS int2;
SELECT v, colfam_encode(v) FROM (VALUES
  (0::numeric), (1), (127), (128), (255), (256), (-1), (-128), (-129), (-256), (-32768),
  (9223372036854775808), (-9223372036854775809), (2.000), (-0.0),
  (123456789012345678901234567890123456789)) t(v);
SELECT v, colfam_encode(v) FROM (VALUES
  ('1970-01-01 00:00:00+00'::timestamptz), ('1970-01-01 00:00:00.001+00'),
  ('1969-12-31 23:59:59.999+00'), ('2011-02-03 04:05:06.789+00')) t(v);
SELECT colfam_encode(true) AS t, colfam_encode(false) AS f,
       colfam_encode(1.5::float8) AS one_and_half, colfam_encode('-Infinity'::float8) AS minus_inf,
       colfam_encode('héllo'::text) AS text, colfam_encode('ab  '::char(4)) AS bpchar,
       colfam_encode('{"b": [1, 2], "a": null}'::jsonb) AS jsonb;
SELECT colfam_encode('\x00ff'::bytea) AS bytea,
       colfam_encode('6ba7b810-9dad-11d1-80b4-00c04fd430c8'::uuid) AS uuid,
       colfam_encode('6ba7b810-9dad-11d1-80b4-00c04fd430c8'::timeuuid) AS timeuuid;

-- round trips
SELECT bool_and(colfam_decode(colfam_encode(v), NULL::bigint) = v) AS bigint_ok
FROM (SELECT (g * 7919 - 500000)::bigint * 1000003 AS v FROM generate_series(0, 1000) g) s;
SELECT bool_and(colfam_decode(colfam_encode(v), NULL::numeric) = v) AS numeric_ok, count(*)
FROM (SELECT (g::numeric - 100) * 10::numeric ^ (g % 60) + g % 7 AS v FROM generate_series(0, 2000) g
      UNION ALL SELECT -(2::numeric ^ g) FROM generate_series(0, 300) g
      UNION ALL SELECT 2::numeric ^ g - 1 FROM generate_series(0, 300) g) s;
SELECT colfam_decode(colfam_encode(v), NULL::numeric) = v AS huge_ok
FROM (VALUES (10::numeric ^ 5000 - 1), (-(10::numeric ^ 5000))) t(v);
SELECT colfam_decode(colfam_encode(v), NULL::float8) AS float8
FROM (VALUES (0::float8), ('-0'), (1.5), (-1e308), ('NaN'), ('Infinity'), (5e-324)) t(v);
SELECT colfam_decode(colfam_encode(v), NULL::timestamptz) AS timestamptz
FROM (VALUES ('1970-01-01 00:00:00+00'::timestamptz), ('1969-12-31 23:59:59.999+00'),
             ('0001-01-01 00:00:00+00'), ('294276-12-31 23:59:59.999+00')) t(v);
SELECT colfam_decode('\x01', NULL::boolean) AS t, colfam_decode('\x00', NULL::boolean) AS f,
       colfam_decode('\x0000000000000007', NULL::integer) AS int4,
       colfam_decode('\xfffffffffffffffe', NULL::smallint) AS int2,
       colfam_decode('\x68c3a96c6c6f', NULL::text) AS text,
       colfam_decode('\x', NULL::text) AS empty_text,
       colfam_decode('\x', NULL::bytea) AS empty_bytea;
-- the empty value of every other type is NULL
SELECT 'bigint' AS type, colfam_decode('\x', NULL::bigint) IS NULL AS is_null
UNION ALL SELECT 'numeric', colfam_decode('\x', NULL::numeric) IS NULL
UNION ALL SELECT 'timestamptz', colfam_decode('\x', NULL::timestamptz) IS NULL
UNION ALL SELECT 'uuid', colfam_decode('\x', NULL::uuid) IS NULL
UNION ALL SELECT 'timeuuid', colfam_decode('\x', NULL::timeuuid) IS NULL
UNION ALL SELECT 'boolean', colfam_decode('\x', NULL::boolean) IS NULL
UNION ALL SELECT 'float8', colfam_decode('\x', NULL::float8) IS NULL
UNION ALL SELECT 'jsonb', colfam_decode('\x', NULL::jsonb) IS NULL
UNION ALL SELECT 'varchar', colfam_decode('\x', NULL::varchar) IS NULL;
SELECT format('%s|', colfam_decode('\x6162', NULL::char(4))) AS bpchar,
       colfam_decode('\x6162', NULL::varchar(2)) AS varchar,
       colfam_decode(colfam_encode('{"b": [1, 2], "a": null}'::jsonb), NULL::jsonb) AS jsonb,
       colfam_decode('\x6ba7b8109dad11d180b400c04fd430c8', NULL::timeuuid) AS timeuuid,
       colfam_decode('\xa0eebc999c0b4ef8bb6d6bb9bd380a11', NULL::uuid) AS uuid,
       colfam_decode('\x0000000000003039', NULL::numeric(6, 1)) AS numeric_typmod,
       colfam_decode(NULL, NULL::bigint) AS null_in;
-- domains convert as their base type and are checked
CREATE DOMAIN positive AS bigint CHECK (VALUE > 0);
SELECT colfam_decode('\x0000000000000005', NULL::positive) AS positive;
SELECT colfam_decode('\xffffffffffffffff', NULL::positive);

-- ===================================================================
-- conversion errors: stored bytes that are not a value of the declared type
-- ===================================================================
SELECT colfam_decode('\x01020304050607', NULL::bigint, 'jsmith', 'age');
SELECT colfam_decode('\x01', NULL::bigint, '\x00ff10', 'age');
SELECT colfam_decode('\x010203040506070809', NULL::timestamptz, 'k', 'at');
SELECT colfam_decode('\x7fffffffffffffff', NULL::timestamptz, 'k', 'at');
SELECT colfam_decode('\x0000000080000000', NULL::integer, 'k', 'n');
SELECT colfam_decode('\x0000000000008000', NULL::smallint, 'k', 'n');
SELECT colfam_decode('\x0000000000003039', NULL::numeric(3, 0), 'k', 'n');
SELECT colfam_decode('\x68c3', NULL::text, 'k', 'name');
SELECT colfam_decode('\x610062', NULL::text, 'k', 'name');
SELECT colfam_decode('\xff', NULL::varchar, 'k', 'name');
SELECT colfam_decode('\x616263', NULL::varchar(2), 'k', 'name');
SELECT colfam_decode('\x7b', NULL::jsonb, 'k', 'doc');
SELECT colfam_decode('\x02', NULL::boolean, 'k', 'flag');
SELECT colfam_decode('\x0001', NULL::boolean, 'k', 'flag');
SELECT colfam_decode('\x3ff0', NULL::float8, 'k', 'x');
SELECT colfam_decode('\x6ba7b8109dad11d180b400c04fd430', NULL::uuid, 'k', 'id');
SELECT colfam_decode('\xa0eebc999c0b4ef8bb6d6bb9bd380a11', NULL::timeuuid, 'k', 'column_name');
SELECT colfam_decode('\x00', NULL::point, 'k', 'p');
SELECT colfam_decode('\x', NULL::point, 'k', 'p');
SELECT colfam_decode('\x00', NULL::bigint, convert_to(repeat('é', 40), 'UTF8'), 'age');
SELECT colfam_decode('\x00', NULL::bigint, decode(repeat('01', 70), 'hex'), 'age');

-- values the encodings cannot hold
SELECT colfam_encode(1.5::numeric);
SELECT colfam_encode('NaN'::numeric);
SELECT colfam_encode('-Infinity'::numeric);
SELECT colfam_encode('2011-02-03 04:05:06.789012+00'::timestamptz);
SELECT colfam_encode('infinity'::timestamptz);
SELECT colfam_encode(point(1, 2));

-- ===================================================================
-- cleanup
-- ===================================================================
DROP EXTENSION colfam_fdw CASCADE;
