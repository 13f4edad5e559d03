# tests/shell/colfam_transfer.t — `colfam export` / `colfam import` as programs:
# usage, option checks and an unreachable server. The JSON itself is tested against
# a node in tests/unit/test_tools_transfer.c.
. "$COLFAM_ROOT/tests/shell/tap.sh"
. "$COLFAM_ROOT/tests/lib/harness.sh"
B=$COLFAM_ROOT/build/release/bin
tap_plan 13

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

# Against a live node: malformed and refused input names where, and what got in.
harness_init
harness_colfamd node 127.0.0.1 "$B/colfamd" || exit 1
port=$H_PORT
C=("$B/colfam")
CON=(-h 127.0.0.1 -p "$port" -k K)
printf "create keyspace K with replication_factor = 1;\nuse K;\n%s\n%s\n" \
  'create column family B with comparator = BytesType;' \
  'create column family L with comparator = LongType;' | "${C[@]}" shell -h 127.0.0.1 -p "$port" -B >/dev/null
# 3000 one-column rows, then a row cut off inside a value
{ echo '{'; for ((i = 0; i < 3000; i++)); do printf '"%04x": [["01","02",1,false]],\n' "$i"; done
  printf '"ffff": [["01","0'; } > "$H_TMP/cut.json"
tap_run "a truncated file: its end is named, not byte 0 of line 1" 1 \
  'cut.json:3002: \(byte 93019\) the file ends in the middle of the JSON' \
  "${C[@]}" import "${CON[@]}" B "$H_TMP/cut.json" -q
tap_run "... and the rows imported are counted once each (the row a full batch left out is not)" 1 \
  '3000 columns of 3000 rows were imported before it' \
  "${C[@]}" import "${CON[@]}" B "$H_TMP/cut.json" -q
printf '{"01": [["01","02",1,false]],\n"": [["01","02",1,false]]}\n' > "$H_TMP/empty-key.json"
tap_run "an empty row key is refused at its line, before anything is sent" 1 \
  'empty-key.json:2: \(byte 32\) a row key is empty' \
  "${C[@]}" import "${CON[@]}" B "$H_TMP/empty-key.json" -q
printf '{"01": [["0000000000000001","02",1,false]],\n"02": [["01020304050607","02",1,false]]}\n' \
  > "$H_TMP/seven.json"
tap_run "a batch the server refuses: what was imported before it is said" 1 \
  'seven.json: the last batch \(1 columns of 1 rows were imported before it.*LongType requires exactly 8 bytes' \
  "${C[@]}" import "${CON[@]}" L "$H_TMP/seven.json" --batch-size 1 -q
printf '{"01": [["0000000000000001","02",1,false]]}\n' > "$H_TMP/one.json"
round_trip() {
  "${C[@]}" import "${CON[@]}" L "$H_TMP/one.json" -q &&
    "${C[@]}" export "${CON[@]}" L -q | tr -d '\n'
}
tap_run "a good file still imports and exports" 0 '^\{"01": \[\["0000000000000001", "02", 1, false\]\]\}$' \
  round_trip
exit $T_FAILED
