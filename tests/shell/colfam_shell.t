# tests/shell/colfam_shell.t — `colfam shell` as a program: options, batch input from
# stdin and -f FILE with line numbers, exit statuses, an unreachable server. The
# statements themselves run against a node in tests/unit/test_tools_shell.c.
. "$COLFAM_ROOT/tests/shell/tap.sh"
. "$COLFAM_ROOT/tests/lib/harness.sh"
B=$COLFAM_ROOT/build/release/bin
tap_plan 9

tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
tap_run "--help shows the options" 0 'usage: colfam shell \[-h HOST\]' "$B/colfam" shell --help
tap_run "a bad port" 2 'port must be 1-65535' "$B/colfam" shell -p 70000
tap_run "-P without -u" 2 '-P needs -u USER' "$B/colfam" shell -P secret
tap_run "help works without a server" 0 'List of all CLI commands:' \
  sh -c "echo 'help;' | '$B/colfam' shell"
tap_run "a data statement without a connection fails in batch mode" 1 \
  'stdin:2: get: not connected to a server' \
  sh -c "printf 'help;\nget Users[\"x\"];\n' | '$B/colfam' shell"
printf 'help;\n\nshow\n  api;\n' > "$tmp/bad.cli"
tap_run "-f: a parse error names the file and the line of the statement" 1 "bad.cli:4:" \
  "$B/colfam" shell -f "$tmp/bad.cli"
printf 'help use;\nget A["k"];\nhelp set;\n' > "$tmp/two.cli"
stops_at_first() {
  local out; out=$("$B/colfam" shell -f "$tmp/two.cli" 2>&1)
  [ $? = 1 ] && grep -q 'two.cli:2: get: not connected' <<<"$out" &&
    ! grep -q 'set <cf>' <<<"$out" && echo stopped
}
tap_run "-f stops at the first failure (exit 1, nothing after it runs)" 0 '^stopped$' stops_at_first
tap_run "--continue goes on after it" 1 "set <cf>\\['<key>'\\]" \
  "$B/colfam" shell --continue -f "$tmp/two.cli"
port=$(harness_free_port 127.0.0.1)
tap_run "nobody listening: the address is named" 1 "127.0.0.1:$port" \
  "$B/colfam" shell -h 127.0.0.1 -p "$port" --batch
exit $T_FAILED
