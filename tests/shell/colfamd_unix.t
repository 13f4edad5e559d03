# tests/shell/colfamd_unix.t — colfamd's unix-domain socket (rpc_unix_socket): the
# configuration's checks (absolute path, length, directory, mode) from the command line
# and YAML, a file in the way refused and kept, a stale socket replaced, the colfam tool
# over the socket (status, shell, stress), a second colfamd on a live socket refused,
# the socket removed at a clean shutdown.
. "$COLFAM_ROOT/tests/shell/tap.sh"
. "$COLFAM_ROOT/tests/lib/harness.sh"
harness_init
B=$COLFAM_ROOT/build/release/bin
PY=/usr/bin/python3
tap_plan 23

host=127.0.0.22
dirs=(--data_file_directories "$H_TMP/d" --commitlog_directory "$H_TMP/c")
sock=$H_TMP/colfamd.sock

# check CONFIG-ARGS...: colfamd --check-config; output in $out, exit status in $rc
check() { out=$("$B/colfamd" "${dirs[@]}" --check-config "$@" 2>&1); rc=$?; }

# ---- the configuration's checks
check --rpc_unix_socket relative.sock
[[ $rc == 2 && $out == *'rpc_unix_socket "relative.sock" must be an absolute path'* ]]
tap_ok $? "a relative path is refused (exit 2)"
check --rpc_unix_socket "$H_TMP/no/such/dir/c.sock"
[[ $rc == 2 && $out == *"its directory $H_TMP/no/such/dir: No such file or directory"* ]]
tap_ok $? "a missing directory is named"
long=/tmp/$(printf 'x%.0s' {1..110}).sock
check --rpc_unix_socket "$long"
[[ $rc == 2 && $out == *'the system allows at most 107'* ]]
tap_ok $? "a path longer than sun_path is refused with the limit"
check --rpc_unix_socket "$H_TMP/"
[[ $rc == 2 && $out == *'names a directory'* ]]
tap_ok $? "a directory is refused"
check --rpc_unix_socket "$sock" --rpc_unix_socket_mode 0800
[[ $rc == 2 && $out == *'invalid value "0800" for rpc_unix_socket_mode; valid values: permission bits in octal'* ]]
tap_ok $? "a mode that is not octal is refused"
check --rpc_unix_socket_mode 0400
[[ $rc == 2 && $out == *'with at least 0600 set'* ]]
tap_ok $? "a mode that locks the owner out is refused"
check --rpc_unix_socket_mode ' -100'
[[ $rc == 2 && $out == *'invalid value " -100" for rpc_unix_socket_mode'* ]]
tap_ok $? "a signed mode is refused, even after a space"
printf 'rpc_unix_socket: %s\nrpc_unix_socket_mode: 0770\n' "$sock" >"$H_TMP/u.yaml"
check -c "$H_TMP/u.yaml"
[[ $rc == 0 && $out == *"rpc_unix_socket: \"$sock\""* && $out == *'rpc_unix_socket_mode: "0770"'* ]]
tap_ok $? "YAML sets both keys; --check-config shows them"
check
[[ $rc == 0 && $out == *$'rpc_unix_socket:\n'* && $out == *'rpc_unix_socket_mode: "0700"'* ]]
tap_ok $? "by default: no socket, mode 0700"

# ---- a file in the way is not replaced
echo keep >"$sock"
harness_colfamd_fails() {  # NAME ARGS...: colfamd must exit by itself within 10 s
  local name=$1; shift
  harness_spawn "$name" "$B/colfamd" --rpc_address $host --listen_address $host "$@"
  local pid=$H_PID i
  for ((i = 0; i < 100; i++)); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  wait "$pid"
}
harness_colfamd_fails busy1 --rpc_port "$(harness_free_port $host)" "${dirs[@]}" \
  --rpc_unix_socket "$sock"
rc=$?
[[ $rc == 1 && $(cat "$sock") == keep ]] &&
  grep -q "unix socket $sock: a file that is not a socket is in the way" "$H_TMP/busy1.log"
tap_ok $? "a regular file at the path: exit 1, named, and left alone"
rm -f "$sock"

# ---- a stale socket (bound, nobody listening) is replaced
$PY -c 'import socket,sys; s=socket.socket(socket.AF_UNIX); s.bind(sys.argv[1])' "$sock"
[[ -S $sock ]]
tap_ok $? "a stale socket is left by a process that bound it and exited"
harness_colfamd node1 $host "$B/colfamd" --rpc_unix_socket "$sock"
pid=$H_PID port=$H_PORT
for ((i = 0; i < 50; i++)); do
  grep -q "listening for Thrift clients on the unix socket $sock (mode 0700)" "$H_TMP/node1.log" && break
  sleep 0.1
done
grep -q "removed the stale unix socket $sock" "$H_TMP/node1.log" &&
  grep -q "listening for Thrift clients on the unix socket $sock (mode 0700)" "$H_TMP/node1.log"
tap_ok $? "colfamd replaces it and logs the socket it listens on"
[[ $(stat -c %a "$sock") == 700 && -S $sock ]]
tap_ok $? "the socket has mode 0700"

# ---- the colfam tool over the socket
out=$("$B/colfam" status -h "$sock" 2>&1)
[[ $? == 0 && $out == *"Node:         $sock"* && $out == *'Cluster:      Test Cluster'* ]]
tap_ok $? "colfam status -h PATH"
out=$("$B/colfam" stress -h "$sock" -n 500 -c 3 -t 4 2>&1)
[[ $? == 0 && $out == *'errors       0'* ]]
tap_ok $? "colfam stress -h PATH writes"
out=$(printf 'use Keyspace1;\ncount Standard1[%s];\n' "'$(printf '%07d' 7)'" |
  "$B/colfam" shell -h "$sock" --batch 2>&1)
[[ $? == 0 && $out == *"Connected to: \"Test Cluster\" on $sock"$'\n'* && $out == *'3 columns'* ]]
tap_ok $? "colfam shell -h PATH reads what stress wrote"
out=$("$B/colfam" cfstats -h "$sock" -k Keyspace1 2>&1)
[[ $? == 0 && $out == *'Column Family: Standard1'* ]]
tap_ok $? "colfam cfstats -h PATH"
out=$("$B/colfam" status -h "$H_TMP/nope.sock" 2>&1)
[[ $? != 0 && $out == *"connecting to $H_TMP/nope.sock: No such file or directory (no socket there"* ]]
tap_ok $? "a missing socket is named with a hint"

# ---- a live socket is another server's
harness_colfamd_fails busy2 --rpc_port "$(harness_free_port $host)" \
  --data_file_directories "$H_TMP/d2" --commitlog_directory "$H_TMP/c2" --rpc_unix_socket "$sock"
rc=$?
[[ $rc == 1 ]] && grep -q "unix socket $sock is in use: another server accepts on it" "$H_TMP/busy2.log"
tap_ok $? "a second colfamd on a live socket: exit 1, named"
out=$("$B/colfam" status -h "$sock" 2>&1)
tap_ok $? "the first still serves on it"

# ---- removed at a clean shutdown
kill -TERM "$pid"
wait "$pid"
rc=$?
[[ $rc == 0 && ! -e $sock ]]
tap_ok $? "SIGTERM: exit 0 and the socket file is gone"
grep -q "stopped" "$H_TMP/node1.log" && ! grep -q "cannot remove the unix socket" "$H_TMP/node1.log"
tap_ok $? "no warning about the socket at shutdown"
grep -q "stopping: no new connections on .* or $sock;" "$H_TMP/node1.log"
tap_ok $? "the shutdown log names the socket beside the port"
