# tests/shell/harness.t — the harness starts servers on 127.0.0.x and always stops them,
# which later suites rely on to run colfamd nodes. Stand-in servers are perl listeners.
. "$COLFAM_ROOT/tests/shell/tap.sh"
tap_plan 10

pids_file=$(mktemp)
# The children's runs fail on purpose and keep their logs; keep them in a dir of ours.
export TMPDIR=$(mktemp -d)
trap 'rm -rf "$pids_file" "$TMPDIR"' EXIT

# A child shell uses the harness the way a suite does, then exits (or is interrupted).
child() {   # MODE: exit | fail | sigint
  bash -c '
    . "$COLFAM_ROOT/tests/lib/harness.sh"
    harness_init
    for n in 2 3; do
      host=127.0.0.$n
      port=$(harness_free_port $host) || exit 9
      harness_spawn node$n perl -MIO::Socket::INET -e "
        my \$s = IO::Socket::INET->new(LocalAddr => q($host), LocalPort => $port,
                                       Listen => 5, ReuseAddr => 1) or die;
        while (my \$c = \$s->accept) { close \$c }"
      echo "$H_PID" >>"$1"
      harness_wait_tcp $host "$port" 30 || exit 8
    done
    case "$2" in
      exit) exit 0 ;;
      fail) false; exit 1 ;;
      sigint) kill -INT $$; sleep 5 ;;
    esac' child "$pids_file" "$1" >/dev/null 2>&1
}

all_stopped() {
  local pid
  while read -r pid; do
    kill -0 "$pid" 2>/dev/null && return 1
  done <"$pids_file"
  return 0
}

child exit; rc=$?
tap_ok $((rc != 0)) "two stand-in nodes on 127.0.0.2 and 127.0.0.3 came up (exit $rc)"
tap_ok $(all_stopped; echo $?) "they are stopped when the run ends normally"

: >"$pids_file"
child fail
tap_ok $(( $(wc -l <"$pids_file") != 2 )) "nodes started before a failure"
tap_ok $(all_stopped; echo $?) "they are stopped when the run fails"

: >"$pids_file"
child sigint; rc=$?
tap_ok $((rc != 130)) "an interrupted run exits with 130 (got $rc)"
tap_ok $(all_stopped; echo $?) "its nodes are stopped too"
# A server must not inherit the runner's descriptors (a pipe it held open once hung the
# suite runner): open fd 9 on a pipe, spawn, and look at the child's fd table.
leak=$(bash -c '
  . "$COLFAM_ROOT/tests/lib/harness.sh"
  harness_init
  exec 9> >(cat >/dev/null)
  harness_spawn sleeper sleep 30
  for ((i = 0; i < 50; i++)); do
    [[ "$(readlink /proc/$H_PID/exe)" == */sleep ]] && break
    sleep 0.1
  done
  ls /proc/$H_PID/fd | tr "\n" " "' 2>/dev/null)
tap_ok $([[ "$leak" == "0 1 2 " ]]; echo $?) "a spawned server holds only fds 0-2 (has: $leak)"

# harness_colfamd: a real colfamd on a free port, stopped at exit; one that cannot start
# fails at once (not after the 30 s wait) with its log on stderr.
out=$(bash -c '
  . "$COLFAM_ROOT/tests/lib/harness.sh"
  harness_init
  harness_colfamd node 127.0.0.2 "$COLFAM_ROOT/build/release/bin/colfamd" --cluster_name harness.t ||
    exit 1
  echo "$H_PID" >"$1"
  (exec 3<>"/dev/tcp/127.0.0.2/$H_PORT") && [[ ${H_CMD[*]} == *"--rpc_port $H_PORT "* ]] &&
    [[ -d $H_TMP/node/data ]] && echo started' child "$pids_file" 2>&1)
tap_ok $([[ $out == *started* ]] && all_stopped; echo $?) \
  "harness_colfamd starts colfamd on a free port; it is stopped at exit"
[[ $out == started ]] || sed 's/^/#   /' <<<"$out"
start=$SECONDS
out=$(bash -c '
  . "$COLFAM_ROOT/tests/lib/harness.sh"
  harness_init
  harness_colfamd bad 127.0.0.2 "$COLFAM_ROOT/build/release/bin/colfamd" --no_such_option x &&
    echo started' 2>&1)
tap_ok $([[ $out != *started* && $out == *"usage: colfamd"* && $((SECONDS - start)) -lt 10 ]]; echo $?) \
  "a colfamd that exits at start-up fails harness_colfamd at once, with its log ($((SECONDS - start)) s)"

# harness_cpu_ticks: a shell's CPU counts that of the children it has reaped, read past
# a command name that holds ") "
ln -s "$(command -v bash)" "$TMPDIR/sh) x"
ticks=$("$TMPDIR/sh) x" -c '. "$COLFAM_ROOT/tests/lib/harness.sh"
  a=$(harness_cpu_ticks $$)
  (for ((i = 0; i < 300000; i++)); do :; done)
  echo $(($(harness_cpu_ticks $$) - a))' 2>&1)
tap_ok $([[ $ticks =~ ^[0-9]+$ && $ticks -ge 5 ]]; echo $?) \
  "harness_cpu_ticks counts reaped children, past a command name with ') ' ($ticks ticks)"
exit $T_FAILED
