# tests/shell/binaries.t — colfamd and colfam: version, help, and option validation.
. "$COLFAM_ROOT/tests/shell/tap.sh"
B=$COLFAM_ROOT/build/release/bin
tap_plan 9

tap_run "colfamd --version names the Thrift API" 0 '^colfamd [0-9.]+ \(Thrift API 19\.4\.0' "$B/colfamd" --version
tap_run "colfamd --help lists its options" 0 '--log-level LEVEL' "$B/colfamd" --help
tap_run "colfamd rejects a bad log level with the valid ones" 2 'valid values: debug, info, warn, error, off' "$B/colfamd" --log-level loud
tap_run "colfamd rejects an unknown option" 2 'usage: colfamd' "$B/colfamd" --bogus
tap_run "colfamd names an unreadable config file" 1 'cannot read the configuration file "/nonexistent/colfamd.yaml"' "$B/colfamd" -c /nonexistent/colfamd.yaml
tap_run "colfamd --help lists every configuration key" 0 '--thrift_framed_transport_size_in_mb VALUE' "$B/colfamd" --help
tap_run "colfam version" 0 '^colfam [0-9.]+ ' "$B/colfam" version
tap_run "colfam without a command shows usage" 2 'usage: colfam COMMAND' "$B/colfam"
tap_run "colfam rejects an unknown command with the valid ones" 2 'hint: valid commands are help, version' "$B/colfam" frobnicate
exit $T_FAILED
