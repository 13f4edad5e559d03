-- tests/pgtap/extension.sql — the objects colfam_fdw installs, their signatures, and
-- the SQLSTATEs of the validator's errors.
BEGIN;
SELECT plan(16);

CREATE EXTENSION colfam_fdw;

SELECT has_extension('colfam_fdw', 'the extension is installed');
SELECT is((SELECT count(*)::int FROM pg_foreign_data_wrapper WHERE fdwname = 'colfam_fdw'), 1,
          'the colfam_fdw foreign-data wrapper exists');
SELECT has_function('colfam_fdw_handler', ARRAY[]::text[], 'the handler exists');
SELECT function_returns('colfam_fdw_handler', ARRAY[]::text[], 'fdw_handler',
                        'the handler returns fdw_handler');
SELECT function_lang_is('colfam_fdw_handler', ARRAY[]::text[], 'c', 'the handler is C');
SELECT has_function('colfam_fdw_validator', ARRAY['text[]', 'oid'], 'the validator exists');
SELECT is_strict('colfam_fdw_validator', ARRAY['text[]', 'oid']::name[]);
SELECT is((SELECT fdwhandler::regproc::text FROM pg_foreign_data_wrapper
           WHERE fdwname = 'colfam_fdw'), 'colfam_fdw_handler', 'the wrapper uses the handler');
SELECT is((SELECT fdwvalidator::regproc::text FROM pg_foreign_data_wrapper
           WHERE fdwname = 'colfam_fdw'), 'colfam_fdw_validator', 'the wrapper uses the validator');

SELECT lives_ok($$CREATE SERVER t1 FOREIGN DATA WRAPPER colfam_fdw
                  OPTIONS (hosts 'localhost', keyspace 'Twissandra')$$,
                'a server with valid options is created');
SELECT throws_ok($$CREATE SERVER t2 FOREIGN DATA WRAPPER colfam_fdw OPTIONS (nope '1')$$,
                 'HV00D', 'invalid option "nope"', 'an unknown option is HV00D');
SELECT throws_ok($$CREATE SERVER t3 FOREIGN DATA WRAPPER colfam_fdw OPTIONS (fetch_size '0')$$,
                 'HV024', NULL, 'a malformed value is HV024');
SELECT throws_ok($$CREATE FOREIGN TABLE ft (k text OPTIONS (role 'primary')) SERVER t1$$,
                 'HV024', NULL, 'a bad column role is HV024');
SELECT lives_ok($$CREATE FOREIGN TABLE ft (k text OPTIONS (role 'key'), v text OPTIONS (role 'value'))
                  SERVER t1 OPTIONS (column_family 'Tweets')$$,
                'a foreign table with roles is created');
SELECT throws_ok($$SELECT * FROM ft$$, 'HV00D',
                 'foreign table "ft" needs a column with role "key" and one with role "column_name"',
                 'a ''columns'' table without a column_name role is refused when used, before any connection');

-- the direct call path of the validator, as ALTER would make it
SELECT throws_ok($$SELECT colfam_fdw_validator(ARRAY['mapping=diagonal'],
                                               'pg_foreign_table'::regclass)$$,
                 'HV024', 'invalid value for option "mapping": "diagonal"',
                 'the validator checks values when called directly');

SELECT * FROM finish();
ROLLBACK;
