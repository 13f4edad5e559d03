# tests/shell/colfam_schema.t — `colfam schema load`: the seeds' storage-conf.xml and
# schema.json as --dry-run cli statements, usage and file errors, an unreachable
# server; and, once colfamd can serve, loading the seeds into a real node.
. "$COLFAM_ROOT/tests/shell/tap.sh"
. "$COLFAM_ROOT/tests/lib/harness.sh"
B=$COLFAM_ROOT/build/release/bin
S=$COLFAM_ROOT/tests/data/seeds
tap_plan 14

tap_run "bloggyappy.xml: Comments is a super CF of TimeUUIDs with BytesType sub-columns" 0 \
  'create column family Comments with column_type = Super and comparator = TimeUUIDType and subcomparator = BytesType;' \
  "$B/colfam" schema load --dry-run "$S/bloggyappy.xml"
tap_run "twissandra.xml: 0.6 RackUnawareStrategy becomes SimpleStrategy" 0 \
  "create keyspace Twissandra with placement_strategy = 'org.apache.cassandra.locator.SimpleStrategy' and replication_factor = 1;" \
  "$B/colfam" schema load --dry-run "$S/twissandra.xml"
tap_run "twissandra.xml: Timeline is LongType" 0 \
  'create column family Timeline with column_type = Standard and comparator = LongType;' \
  "$B/colfam" schema load --dry-run "$S/twissandra.xml"
tap_run "twitter.json (trailing commas as in seed 004)" 0 \
  'create column family StatusRelationships with column_type = Super and comparator = UTF8Type and subcomparator = TimeUUIDType;' \
  "$B/colfam" schema load --dry-run "$S/twitter.json"
tap_run "multiblog.json" 0 'create column family Blogs with column_type = Standard and comparator = TimeUUIDType;' \
  "$B/colfam" schema load --dry-run "$S/multiblog.json"

tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
printf '<Keyspace Name="K">\n  <ColumnFamily Name="A" CompareWith="UTF9Type"/>\n</Keyspace>\n' > "$tmp/bad.xml"
tap_run "an unknown comparator names file, line and the valid types" 1 \
  "bad.xml:2: unknown CompareWith \"UTF9Type\"" "$B/colfam" schema load --dry-run "$tmp/bad.xml"
printf '{"K":{\n "A":{\n  "comparator_type":"UTF8Type"\n  "column_type":"Super"}}}\n' > "$tmp/bad.json"
tap_run "malformed JSON names its line" 1 'bad.json:4:' "$B/colfam" schema load --dry-run "$tmp/bad.json"
tap_run "a missing file" 1 'opening /nonexistent/schema.json' "$B/colfam" schema load /nonexistent/schema.json
tap_run "no subcommand shows usage" 2 'usage: colfam schema load FILE' "$B/colfam" schema
tap_run "a bad port" 2 'port must be 1-65535' "$B/colfam" schema load -p 0 "$S/twitter.json"
port=$(harness_free_port 127.0.0.1)
tap_run "nobody listening: the address is named" 1 "127.0.0.1:$port" \
  "$B/colfam" schema load -h 127.0.0.1 -p "$port" "$S/twitter.json"

# Loading into a real node.
harness_init
port=$(harness_free_port 127.0.0.1)
# Cassandra 0.7 key names, as colfamd -c reads them
printf 'rpc_address: 127.0.0.1\nrpc_port: %s\ndata_file_directories: [%s]\ncommitlog_directory: %s\n' \
  "$port" "$H_TMP/data" "$H_TMP/commitlog" > "$H_TMP/colfamd.yaml"
harness_spawn colfamd "$B/colfamd" -c "$H_TMP/colfamd.yaml"
harness_wait_tcp 127.0.0.1 "$port" 20
tap_run "bloggyappy.xml loads into a live node" 0 'created keyspace BloggyAppy with 4 column families' \
  "$B/colfam" schema load -h 127.0.0.1 -p "$port" "$S/bloggyappy.xml"
# --update sets what the file says and keeps what it does not mention
printf '%s\n' 'use BloggyAppy;' \
  "update column family Authors with rows_cached = 7 and default_validation_class = UTF8Type and column_metadata = [{column_name: 'age', validation_class: LongType, index_type: KEYS}];" \
  | "$B/colfam" shell -h 127.0.0.1 -p "$port" -B >/dev/null
tap_run "--update of a loaded keyspace" 0 'updated column family BloggyAppy.Authors' \
  "$B/colfam" schema load --update -h 127.0.0.1 -p "$port" "$S/bloggyappy.xml"
kept() {
  printf 'describe keyspace BloggyAppy;\n' | "$B/colfam" shell -h 127.0.0.1 -p "$port" -B |
    sed -n '/ColumnFamily: Authors/,/ColumnFamily: BlogEntries/p' |
    grep -c -e 'Index Type: KEYS' -e 'Row cache size / save period: 7.0' \
      -e 'validator: org.apache.cassandra.db.marshal.UTF8Type'
}
tap_run "... keeps the index, row cache and validator the file does not mention" 0 '^3$' kept
exit $T_FAILED
