# tests/shell/colfam_cli_edge.t — `colfam shell` as a cassandra-cli 0.7 user meets it:
# help topics, messages about bytes a name or value cannot hold, and assume, against
# a live node.
. "$COLFAM_ROOT/tests/shell/tap.sh"
. "$COLFAM_ROOT/tests/lib/harness.sh"
B=$COLFAM_ROOT/build/release/bin
tap_plan 13

tap_run "help list; shows the list statements, not the title of the list" 0 \
  '^list <cf>;' sh -c "echo 'help list;' | '$B/colfam' shell"
no_title() { echo 'help list;' | "$B/colfam" shell | grep -c 'List of all CLI commands'; }
tap_run "... and only them" 1 '^0$' no_title
tap_run "help quit; finds 'exit; quit;'" 0 '^exit; quit;' sh -c "echo 'help quit;' | '$B/colfam' shell"
tap_run "help assume; documents assume" 0 '^assume <cf> keys as <type>;' \
  sh -c "echo 'help assume;' | '$B/colfam' shell"
tap_run "a non-ASCII byte outside quotes is named, with the way out" 1 \
  "stdin:1:22: unexpected non-ASCII byte 0xc3: unquoted names are A-Z, a-z, 0-9, _ and -; put other text in quotes" \
  sh -c "printf 'create column family \\303\\234n;\\n' | '$B/colfam' shell"

harness_init
harness_colfamd node 127.0.0.1 "$B/colfamd" || exit 1
port=$H_PORT
sh_run() { "$B/colfam" shell -h 127.0.0.1 -p "$port" -B "$@"; }
sh_run >/dev/null <<'CLI'
create keyspace K with replication_factor = 1;
use K;
create column family B with comparator = BytesType;
create column family S with column_type = Super and comparator = UTF8Type and subcomparator = BytesType;
set B['k'][utf8('n')] = long(7);
set S['k']['sc'][long(3)] = 'v';
CLI

assumed() {
  sh_run -k K <<'CLI'
assume B validator as long;
assume B comparator as utf8;
get B['k'];
assume B keys as long;
set B[5][utf8('m')] = 9;
list B[5:5];
assume S sub_comparator as long;
get S['k']['sc'];
CLI
}
tap_run "assume: values and names show under the assumed types" 0 '=> \(column=n, value=7, timestamp' assumed
tap_run "assume: keys are read and shown as the assumed type" 0 'RowKey: 5' assumed
tap_run "assume: sub-column names too" 0 '=> \(column=3, value=76' assumed
tap_run "invalid UTF-8 in a refused name is shown escaped, not as raw bytes" 1 \
  "stdin:1:12: set: 'bad\\\\xff\\\\x01x' is not a UTF8Type \\(UTF-8 text\\): it is not valid UTF-8" \
  sh -c "printf 'set S[\\047k\\047][\\047bad\\377\\001x\\047][long(1)] = 1;\\n' | \"\$0\" shell -h 127.0.0.1 -p $port -k K -B" "$B/colfam"
printf "set S['k']['sc'][long('%s')] = 1;\n" "$(printf 'é%.0s' $(seq 40))" > "$H_TMP/long.cli"
tap_run "a long refused name is cut at a character, with ..." 1 \
  "long.cli:1:23: set: '(é){30}\\.\\.\\.' is not a LongType" "$B/colfam" shell -h 127.0.0.1 -p "$port" -k K -f "$H_TMP/long.cli"
tap_run "an IntegerType is 'an IntegerType'" 1 "'x' is not an IntegerType" \
  sh -c "echo \"set S['k']['sc'][integer('x')] = 1;\" | \"\$0\" shell -h 127.0.0.1 -p $port -k K -B" "$B/colfam"
tap_run "assume: sub_comparator of a standard CF is refused" 1 \
  'stdin:1: assume: B is a standard column family: it has no sub_comparator' \
  sh_run -k K <<<'assume B sub_comparator as long;'
reassumed() {
  sh_run -k K <<'CLI'
assume B validator as utf8;
assume B comparator as utf8;
assume B validator as long;
get B['k'];
CLI
}
tap_run "assume: the latest assumption of a kind wins, the others stay" 0 \
  '=> \(column=n, value=7, timestamp' reassumed
exit $T_FAILED
