-- ===================================================================
-- options: every option of DESIGN.md accepted where it belongs, and
-- unknown, misplaced and malformed options rejected with a hint
-- ===================================================================
CREATE EXTENSION colfam_fdw;
\set VERBOSITY default

-- ===================================================================
-- foreign-data wrapper: takes no options
-- ===================================================================
ALTER FOREIGN DATA WRAPPER colfam_fdw OPTIONS (hosts 'localhost');

-- ===================================================================
-- server
-- ===================================================================
CREATE SERVER s_all FOREIGN DATA WRAPPER colfam_fdw OPTIONS (
  hosts '127.0.0.1:9160, 127.0.0.2, [::1]:9161, cass-node_3.example.com:9160',
  keyspace 'BloggyAppy',
  read_consistency 'QUORUM',
  write_consistency 'any',
  fetch_size '500',
  connect_timeout '2s');
SELECT srvname, srvoptions FROM pg_foreign_server WHERE srvname = 's_all';

CREATE SERVER s FOREIGN DATA WRAPPER colfam_fdw;
-- unknown and misplaced options
ALTER SERVER s OPTIONS (host 'localhost');
ALTER SERVER s OPTIONS (password 'secret');
ALTER SERVER s OPTIONS (column_family 'Users');
-- hosts
ALTER SERVER s OPTIONS (hosts '');
ALTER SERVER s OPTIONS (hosts 'a,,b');
ALTER SERVER s OPTIONS (hosts 'localhost:0');
ALTER SERVER s OPTIONS (hosts 'localhost:65536');
ALTER SERVER s OPTIONS (hosts 'localhost:99999999999999999999');
ALTER SERVER s OPTIONS (hosts 'localhost:91a');
ALTER SERVER s OPTIONS (hosts 'a:1,b:2,');
ALTER SERVER s OPTIONS (hosts 'localhost:');
ALTER SERVER s OPTIONS (hosts 'bad host');
ALTER SERVER s OPTIONS (hosts '[::1');
ALTER SERVER s OPTIONS (hosts '[]:9160');
ALTER SERVER s OPTIONS (hosts '[::1]x');
-- hosts: colfamd's unix socket (its rpc_unix_socket), alone or mixed with host:port
ALTER SERVER s OPTIONS (hosts '/tmp/colfamd.sock, 127.0.0.1:9160, /run/colfam/b.sock');
SELECT srvoptions FROM pg_foreign_server WHERE srvname = 's';
ALTER SERVER s OPTIONS (DROP hosts);
ALTER SERVER s OPTIONS (hosts '127.0.0.1, /tmp/');
ALTER SERVER s OPTIONS (hosts '/tmp/xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx.sock');
ALTER SERVER s OPTIONS (hosts E'/tmp/a\tb.sock');
-- keyspace
ALTER SERVER s OPTIONS (keyspace '');
ALTER SERVER s OPTIONS (keyspace 'Bloggy Appy');
ALTER SERVER s OPTIONS (keyspace 'a_name_that_is_far_too_long_for_cassandra_0123456');
-- consistency levels
ALTER SERVER s OPTIONS (read_consistency 'ANY');
ALTER SERVER s OPTIONS (read_consistency 'MOST');
ALTER SERVER s OPTIONS (write_consistency 'SOME');
-- fetch_size
ALTER SERVER s OPTIONS (fetch_size '0');
ALTER SERVER s OPTIONS (fetch_size '-5');
ALTER SERVER s OPTIONS (fetch_size '100001');
ALTER SERVER s OPTIONS (fetch_size '10 rows');
ALTER SERVER s OPTIONS (fetch_size '99999999999');
-- connect_timeout
ALTER SERVER s OPTIONS (connect_timeout '0');
ALTER SERVER s OPTIONS (connect_timeout '2h');
ALTER SERVER s OPTIONS (connect_timeout 'soon');
ALTER SERVER s OPTIONS (connect_timeout '250');
ALTER SERVER s OPTIONS (SET connect_timeout '1min');
-- io_timeout: how long a wait for colfamd's socket may take
ALTER SERVER s OPTIONS (io_timeout '0');
ALTER SERVER s OPTIONS (io_timeout '61min');
ALTER SERVER s OPTIONS (io_timeout 'forever');
ALTER SERVER s OPTIONS (io_timeout '30s');
-- only the valid changes were made
SELECT srvoptions FROM pg_foreign_server WHERE srvname = 's';

-- ===================================================================
-- user mapping
-- ===================================================================
CREATE USER MAPPING FOR CURRENT_USER SERVER s_all
  OPTIONS (username 'jsmith', password 'havebadpass');
CREATE USER MAPPING FOR PUBLIC SERVER s_all OPTIONS (username '');
CREATE USER MAPPING FOR PUBLIC SERVER s_all OPTIONS (keyspace 'Twitter');
CREATE USER MAPPING FOR PUBLIC SERVER s_all OPTIONS (user 'jsmith');
CREATE USER MAPPING FOR PUBLIC SERVER s_all OPTIONS (passwd 'hunter2');

-- ===================================================================
-- foreign table
-- ===================================================================
CREATE FOREIGN TABLE t_cols (key text, column_name text, value text)
  SERVER s_all OPTIONS (keyspace 'Twitter', column_family 'Statuses', mapping 'columns',
                        fetch_size '2000', read_consistency 'ONE', write_consistency 'ALL');
CREATE FOREIGN TABLE t_rows (key text, email text)
  SERVER s_all OPTIONS (column_family 'Users', mapping 'rows');
SELECT relname, ftoptions FROM pg_foreign_table JOIN pg_class ON oid = ftrelid
  ORDER BY relname;

ALTER FOREIGN TABLE t_rows OPTIONS (SET mapping 'wide');
ALTER FOREIGN TABLE t_rows OPTIONS (table_name 'Users');
ALTER FOREIGN TABLE t_rows OPTIONS (hosts 'localhost');
ALTER FOREIGN TABLE t_rows OPTIONS (SET column_family 'Users!');
ALTER FOREIGN TABLE t_rows OPTIONS (read_consistency 'ANY');
ALTER FOREIGN TABLE t_rows OPTIONS (fetch_size 'lots');

-- ===================================================================
-- columns
-- ===================================================================
CREATE FOREIGN TABLE t_roles (
  k text OPTIONS (role 'key'),
  sc text OPTIONS (role 'super_column'),
  c text OPTIONS (role 'column_name'),
  v text OPTIONS (role 'value'),
  wt timestamptz OPTIONS (role 'writetime'),
  tl integer OPTIONS (role 'ttl'),
  x jsonb OPTIONS (role 'extra'),
  pub bigint OPTIONS (name 'pubDate'))
  SERVER s_all OPTIONS (column_family 'Comments');
SELECT attname, attfdwoptions FROM pg_attribute
  WHERE attrelid = 't_roles'::regclass AND attnum > 0 ORDER BY attnum;

ALTER FOREIGN TABLE t_roles ALTER COLUMN v OPTIONS (SET role 'val');
ALTER FOREIGN TABLE t_roles ALTER COLUMN v OPTIONS (column_name 'x');
ALTER FOREIGN TABLE t_roles ALTER COLUMN v OPTIONS (mapping 'rows');
ALTER FOREIGN TABLE t_roles ALTER COLUMN pub OPTIONS (SET name '');

DROP EXTENSION colfam_fdw CASCADE;
