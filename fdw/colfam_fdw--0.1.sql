/* fdw/colfam_fdw--0.1.sql — install script of colfam_fdw 0.1 */

-- complain if the script is sourced in psql rather than run by CREATE EXTENSION
\echo Use "CREATE EXTENSION colfam_fdw" to load this file. \quit

CREATE FUNCTION colfam_fdw_handler()
RETURNS fdw_handler
AS 'MODULE_PATHNAME'
LANGUAGE C STRICT;

COMMENT ON FUNCTION colfam_fdw_handler()
IS 'the planner and executor callbacks of colfam_fdw';

CREATE FUNCTION colfam_fdw_validator(text[], oid)
RETURNS void
AS 'MODULE_PATHNAME'
LANGUAGE C STRICT;

COMMENT ON FUNCTION colfam_fdw_validator(text[], oid)
IS 'checks the options of colfam_fdw servers, user mappings, foreign tables and columns';

CREATE FOREIGN DATA WRAPPER colfam_fdw
  HANDLER colfam_fdw_handler
  VALIDATOR colfam_fdw_validator;

COMMENT ON FOREIGN DATA WRAPPER colfam_fdw
IS 'column families of colfamd (Cassandra 0.7 Thrift API) as foreign tables';

-- ===================================================================
-- timeuuid: version-1 UUIDs in Cassandra's TimeUUIDType order (fdw/timeuuid.c)
-- ===================================================================

CREATE TYPE timeuuid;

CREATE FUNCTION timeuuid_in(cstring) RETURNS timeuuid
AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION timeuuid_out(timeuuid) RETURNS cstring
AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION timeuuid_recv(internal) RETURNS timeuuid
AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION timeuuid_send(timeuuid) RETURNS bytea
AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- the layout of uuid, so the cast to uuid needs no function
CREATE TYPE timeuuid (
  INTERNALLENGTH = 16,
  INPUT = timeuuid_in,
  OUTPUT = timeuuid_out,
  RECEIVE = timeuuid_recv,
  SEND = timeuuid_send,
  ALIGNMENT = char,
  STORAGE = plain,
  CATEGORY = 'U'
);

COMMENT ON TYPE timeuuid
IS 'version 1 UUID ordered by its timestamp, then its bytes as signed, as Cassandra''s TimeUUIDType';

CREATE CAST (timeuuid AS uuid) WITHOUT FUNCTION AS IMPLICIT;

CREATE FUNCTION timeuuid(uuid) RETURNS timeuuid
AS 'MODULE_PATHNAME', 'timeuuid_from_uuid' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION timeuuid(uuid) IS 'the uuid as a timeuuid; an error unless it is version 1';
CREATE CAST (uuid AS timeuuid) WITH FUNCTION timeuuid(uuid);

CREATE FUNCTION timeuuid_cmp(timeuuid, timeuuid) RETURNS integer
AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION timeuuid_eq(timeuuid, timeuuid) RETURNS boolean
AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION timeuuid_ne(timeuuid, timeuuid) RETURNS boolean
AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION timeuuid_lt(timeuuid, timeuuid) RETURNS boolean
AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION timeuuid_le(timeuuid, timeuuid) RETURNS boolean
AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION timeuuid_gt(timeuuid, timeuuid) RETURNS boolean
AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION timeuuid_ge(timeuuid, timeuuid) RETURNS boolean
AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION timeuuid_sortsupport(internal) RETURNS void
AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION timeuuid_hash(timeuuid) RETURNS integer
AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION timeuuid_hash_extended(timeuuid, bigint) RETURNS bigint
AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE OPERATOR = (
  LEFTARG = timeuuid, RIGHTARG = timeuuid, FUNCTION = timeuuid_eq,
  COMMUTATOR = =, NEGATOR = <>,
  RESTRICT = eqsel, JOIN = eqjoinsel, HASHES, MERGES
);
CREATE OPERATOR <> (
  LEFTARG = timeuuid, RIGHTARG = timeuuid, FUNCTION = timeuuid_ne,
  COMMUTATOR = <>, NEGATOR = =,
  RESTRICT = neqsel, JOIN = neqjoinsel
);
CREATE OPERATOR < (
  LEFTARG = timeuuid, RIGHTARG = timeuuid, FUNCTION = timeuuid_lt,
  COMMUTATOR = >, NEGATOR = >=,
  RESTRICT = scalarltsel, JOIN = scalarltjoinsel
);
CREATE OPERATOR <= (
  LEFTARG = timeuuid, RIGHTARG = timeuuid, FUNCTION = timeuuid_le,
  COMMUTATOR = >=, NEGATOR = >,
  RESTRICT = scalarlesel, JOIN = scalarlejoinsel
);
CREATE OPERATOR > (
  LEFTARG = timeuuid, RIGHTARG = timeuuid, FUNCTION = timeuuid_gt,
  COMMUTATOR = <, NEGATOR = <=,
  RESTRICT = scalargtsel, JOIN = scalargtjoinsel
);
CREATE OPERATOR >= (
  LEFTARG = timeuuid, RIGHTARG = timeuuid, FUNCTION = timeuuid_ge,
  COMMUTATOR = <=, NEGATOR = <,
  RESTRICT = scalargesel, JOIN = scalargejoinsel
);

CREATE OPERATOR CLASS timeuuid_ops
DEFAULT FOR TYPE timeuuid USING btree AS
  OPERATOR 1 <,
  OPERATOR 2 <=,
  OPERATOR 3 =,
  OPERATOR 4 >=,
  OPERATOR 5 >,
  FUNCTION 1 timeuuid_cmp(timeuuid, timeuuid),
  FUNCTION 2 timeuuid_sortsupport(internal);

CREATE OPERATOR CLASS timeuuid_ops
DEFAULT FOR TYPE timeuuid USING hash AS
  OPERATOR 1 =,
  FUNCTION 1 timeuuid_hash(timeuuid),
  FUNCTION 2 timeuuid_hash_extended(timeuuid, bigint);

CREATE FUNCTION timeuuid_time(timeuuid) RETURNS timestamptz
AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION timeuuid_time(timeuuid)
IS 'the instant of a timeuuid, rounded down to the microsecond';

CREATE FUNCTION min_timeuuid(timestamptz) RETURNS timeuuid
AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION min_timeuuid(timestamptz)
IS 'the smallest timeuuid whose timeuuid_time is the given instant';

CREATE FUNCTION max_timeuuid(timestamptz) RETURNS timeuuid
AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION max_timeuuid(timestamptz)
IS 'the largest timeuuid whose timeuuid_time is the given instant';

-- backend-local state (the last timestamp, the random node): not for parallel workers
CREATE FUNCTION now_timeuuid() RETURNS timeuuid
AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE STRICT PARALLEL RESTRICTED;
COMMENT ON FUNCTION now_timeuuid()
IS 'a new timeuuid for now, with a random node; increasing within a session';

-- ===================================================================
-- tokens and value conversion (fdw/convert.c)
-- ===================================================================

CREATE FUNCTION token(key text) RETURNS numeric
AS 'MODULE_PATHNAME', 'token_text' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION token(text)
IS 'the RandomPartitioner token of a key (its UTF-8 bytes): |MD5 as a signed 128-bit integer|';

CREATE FUNCTION token(key bytea) RETURNS numeric
AS 'MODULE_PATHNAME', 'token_bytea' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION token(bytea)
IS 'the RandomPartitioner token of a key: |MD5 as a signed 128-bit integer|';

CREATE FUNCTION colfam_decode(bytes bytea, witness anyelement,
                              row_key bytea DEFAULT NULL, column_name text DEFAULT NULL)
RETURNS anyelement
AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION colfam_decode(bytea, anyelement, bytea, text)
IS 'bytes as colfamd stores them, read as the type of the witness (e.g. NULL::bigint); row_key and column_name are named in errors';

CREATE FUNCTION colfam_encode(value anyelement) RETURNS bytea
AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION colfam_encode(anyelement)
IS 'the bytes colfamd stores for a value of a supported type';
