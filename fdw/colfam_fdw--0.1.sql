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
