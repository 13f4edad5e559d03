# tests/shell/colfam_transfer.t — `colfam export` / `colfam import` as programs:
# usage, option checks and an unreachable server. The JSON itself is tested against
# a node in tests/unit/test_tools_transfer.c.
. "$COLFAM_ROOT/tests/shell/tap.sh"
. "$COLFAM_ROOT/tests/lib/harness.sh"
B=$COLFAM_ROOT/build/release/bin
tap_plan 8

tap_run "export needs -k" 2 'export: -k KEYSPACE is required' "$B/colfam" export Standard1
tap_run "export --help" 0 'usage: colfam export -k KEYSPACE CF' "$B/colfam" export --help
tap_run "import needs a file" 2 'usage: colfam import -k KEYSPACE CF FILE' \
  "$B/colfam" import -k K Standard1
tap_run "import: a bad batch size names the range" 2 'batch-size must be 1-100000' \
  "$B/colfam" import -k K Standard1 x.json --batch-size 0
tap_run "export: --batch-size is refused as import's, not as out of range" 2 \
  'export: --batch-size is an option of import only' \
  "$B/colfam" export -k K Standard1 --batch-size 10
tap_run "import: --output is refused, not ignored" 2 'import: -o/--output is an option of export only' \
  "$B/colfam" import -k K Standard1 x.json --output y.json
port=$(harness_free_port 127.0.0.1)
tap_run "export: nobody listening, the address is named" 1 "127.0.0.1:$port" \
  "$B/colfam" export -h 127.0.0.1 -p "$port" -k K Standard1
tap_run "import: nobody listening, the address is named" 1 "127.0.0.1:$port" \
  "$B/colfam" import -h 127.0.0.1 -p "$port" -k K Standard1 /dev/null
exit $T_FAILED
