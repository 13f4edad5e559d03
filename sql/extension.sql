-- ===================================================================
-- extension: CREATE EXTENSION makes the handler, validator and wrapper
-- ===================================================================
CREATE EXTENSION colfam_fdw;

SELECT extname, extversion, extrelocatable
FROM pg_extension WHERE extname = 'colfam_fdw';

SELECT fdwname,
       fdwhandler::regproc AS handler,
       fdwvalidator::regproc AS validator,
       fdwoptions
FROM pg_foreign_data_wrapper WHERE fdwname = 'colfam_fdw';

-- the objects the extension owns, and nothing else
SELECT pg_describe_object(classid, objid, objsubid) AS object
FROM pg_depend
WHERE refclassid = 'pg_extension'::regclass
  AND refobjid = (SELECT oid FROM pg_extension WHERE extname = 'colfam_fdw')
  AND deptype = 'e'
ORDER BY 1;

-- a foreign table can be defined; reading it without a reachable colfamd is a clear error
CREATE SERVER cass FOREIGN DATA WRAPPER colfam_fdw
  OPTIONS (hosts '127.0.0.1:1', keyspace 'BloggyAppy', connect_timeout '2000');
CREATE FOREIGN TABLE tagged_posts (key text, column_name text, value text)
  SERVER cass OPTIONS (column_family 'TaggedPosts');
-- nobody listens on port 1: the error names the host and says what to check
SELECT * FROM tagged_posts;

-- dropping the extension removes everything it made (CASCADE for the server)
DROP EXTENSION colfam_fdw CASCADE;
SELECT count(*) AS wrappers_left FROM pg_foreign_data_wrapper WHERE fdwname = 'colfam_fdw';
SELECT count(*) AS functions_left FROM pg_proc WHERE proname LIKE 'colfam_fdw%';
