# tests/lib/harness.sh — start and always stop what a test run needs.
#
# Source it, call harness_init, then start things; everything started is stopped by
# harness_cleanup, which runs on any exit, error, Ctrl-C or SIGTERM. Servers listen on
# loopback only, on free ports, with their files in one temp directory.
#
#   harness_init                      temp dir ($H_TMP), traps
#   harness_pg_start [NAME]           private PostgreSQL in $H_TMP/NAME [pg]; sets PGHOST
#                                     PGPORT PGUSER (H_PG_OPTS: more -c settings)
#   harness_pg_overlay                makes harness_pg_start use a private copy of the
#                                     installation with this tree's colfam_fdw in it
#                                     (nothing installed: for tests that run unlocked)
#   harness_spawn NAME CMD...         a background server; log in $H_TMP/NAME.log
#   harness_colfamd NAME HOST BIN [ARG...]  a colfamd node on HOST and a free port, its
#                                     data in $H_TMP/NAME; sets H_PID H_PORT H_CMD
#   harness_free_port HOST            prints a port nobody listens on at HOST
#   harness_wait_tcp HOST PORT SECS [PID]  waits until HOST:PORT accepts a connection
#                                     (gives up at once if process PID has exited)
#   harness_on_exit CMD...            registers a cleanup action (run in reverse order)
#   harness_positive_ints VAR...      fails naming the first VAR not a positive integer
#   harness_cpu_model                 prints the CPU's model name (benchmark reports)
#   harness_cpu_ticks PID             prints the CPU PID and its reaped children used
#
# PostgreSQL refuses to run as root, so as root its commands run as the unprivileged
# user $H_PG_OSUSER (default postgres).

H_PG_OSUSER=${H_PG_OSUSER:-postgres}
H_CLEANUP=()
H_KEEP=${H_KEEP:-0}     # 1: keep the temp dir for inspection

harness_log() { printf '[harness] %s\n' "$*" >&2; }

harness_on_exit() { H_CLEANUP+=("$*"); }

harness_positive_ints() {
  local v
  for v in "$@"; do
    [[ ${!v} =~ ^[1-9][0-9]*$ ]] ||
      { printf 'error: %s must be a positive integer (got '"'"'%s'"'"')\n' "$v" "${!v}" >&2; return 1; }
  done
}

harness_cpu_model() {
  local m
  m=$(awk -F': *' '/^model name/ { print $2; exit }' /proc/cpuinfo 2>/dev/null)
  [[ -n $m ]] || m=$(lscpu 2>/dev/null | awk -F': *' '/^Model name/ { print $2; exit }')
  echo "${m:-unknown CPU}"
}

# utime + stime + cutime + cstime of PID, in clock ticks (getconf CLK_TCK); the fields
# are counted after the command name's ")", which may hold spaces
harness_cpu_ticks() { awk '{ sub(/^.*\) /, ""); print $12 + $13 + $14 + $15 }' "/proc/$1/stat"; }

harness_cleanup() {
  local rc=$? i
  trap - EXIT INT TERM HUP
  for ((i = ${#H_CLEANUP[@]} - 1; i >= 0; i--)); do
    eval "${H_CLEANUP[i]}" || true
  done
  H_CLEANUP=()
  if [[ -n "${H_TMP:-}" && -d "$H_TMP" ]]; then
    if [[ $rc -ne 0 || $H_KEEP == 1 ]]; then
      harness_log "logs kept in $H_TMP"
    else
      rm -rf "$H_TMP"
    fi
  fi
  exit "$rc"
}

harness_init() {
  H_TMP=$(mktemp -d "${TMPDIR:-/tmp}/colfam-test.XXXXXX")
  chmod 755 "$H_TMP"      # the unprivileged PostgreSQL user must reach its data dir
  trap harness_cleanup EXIT
  trap 'exit 130' INT
  trap 'exit 143' TERM HUP
}

# Closes every descriptor above 2 in the current (sub)shell. Servers are started with
# only stdin/stdout/stderr: one that inherits, say, the pipe of the runner's log would
# keep that pipe open after the suite ends, and the runner would wait on it forever.
harness_close_fds() {
  local fd
  for fd in $(ls /proc/$BASHPID/fd 2>/dev/null); do
    ((fd > 2)) && eval "exec $fd>&-" 2>/dev/null
  done
  return 0
}

# Runs a command as the PostgreSQL OS user when we are root, else as ourselves.
harness_as_pg() {
  if [[ $(id -u) -eq 0 ]]; then
    (cd "$H_TMP" && harness_close_fds && exec runuser -u "$H_PG_OSUSER" -- "$@")
  else
    (cd "$H_TMP" && harness_close_fds && exec "$@")
  fi
}

harness_port_busy() {   # HOST PORT
  if command -v ss >/dev/null 2>&1; then
    [[ -n "$(ss -Htln "src $1:$2" 2>/dev/null)" || -n "$(ss -Htln "src 0.0.0.0:$2" 2>/dev/null)" ]]
  else
    (exec 3<>"/dev/tcp/$1/$2") 2>/dev/null
  fi
}

harness_free_port() {   # HOST
  local host=${1:-127.0.0.1} port tries
  for ((tries = 0; tries < 200; tries++)); do
    port=$((20000 + RANDOM % 40000))
    harness_port_busy "$host" "$port" || { echo "$port"; return 0; }
  done
  harness_log "no free port found on $host"
  return 1
}

harness_wait_tcp() {    # HOST PORT SECONDS [PID]
  local deadline=$((SECONDS + ${3:-30}))
  while ((SECONDS < deadline)); do
    (exec 3<>"/dev/tcp/$1/$2") 2>/dev/null && return 0
    if [[ -n ${4:-} ]] && ! kill -0 "$4" 2>/dev/null; then
      harness_log "the server for $1:$2 (pid $4) exited before accepting connections"
      return 1
    fi
    sleep 0.1
  done
  harness_log "nothing accepted connections on $1:$2 within ${3:-30}s"
  return 1
}

# Stops a process: SIGTERM, up to 10 s to exit, then SIGKILL.
harness_stop_pid() {    # PID NAME
  local pid=$1 i
  kill -0 "$pid" 2>/dev/null || return 0
  kill -TERM "$pid" 2>/dev/null || true
  for ((i = 0; i < 100; i++)); do
    kill -0 "$pid" 2>/dev/null || { wait "$pid" 2>/dev/null; return 0; }
    sleep 0.1
  done
  harness_log "$2 (pid $pid) ignored SIGTERM for 10s; killing it"
  kill -KILL "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
}

harness_spawn() {       # NAME CMD...  → sets H_PID
  local name=$1; shift
  (harness_close_fds; exec "$@") >"$H_TMP/$name.log" 2>&1 &
  H_PID=$!
  harness_on_exit "harness_stop_pid $H_PID $name"
}

# Starts colfamd (the binary BIN) with --rpc_address and --listen_address HOST, a free
# port there, --data_file_directories and --commitlog_directory under $H_TMP/NAME, then
# ARGs; returns once the port accepts a connection (up to 30 s; failing at once if
# colfamd exits first, with the end of $H_TMP/NAME.log on stderr). Sets H_PID, H_PORT
# and H_CMD (the command line, an array).
harness_colfamd() {     # NAME HOST BIN [ARG...]
  local name=$1 host=$2 bin=$3; shift 3
  H_PORT=$(harness_free_port "$host") || return 1
  H_CMD=("$bin" --rpc_address "$host" --rpc_port "$H_PORT" --listen_address "$host"
         --data_file_directories "$H_TMP/$name/data"
         --commitlog_directory "$H_TMP/$name/commitlog" "$@")
  harness_spawn "$name" "${H_CMD[@]}"
  harness_wait_tcp "$host" "$H_PORT" 30 "$H_PID" ||
    { tail -n 20 "$H_TMP/$name.log" >&2; harness_log "colfamd $name did not start"; return 1; }
}

harness_pg_bindir() { "${PG_CONFIG:-pg_config}" --bindir; }

# For a TAP test of colfam_fdw: skips the whole test (and exits) when this tree's
# colfam_fdw.so is not built or psql is missing.
harness_skip_without_fdw() {
  if [[ ! -f $COLFAM_ROOT/colfam_fdw.so ]] || ! command -v psql >/dev/null; then
    echo "1..0 # SKIP colfam_fdw.so is not built or psql is missing (make; scripts/deps.sh build)"
    exit 0
  fi
}

# A private overlay of the PostgreSQL installation in $H_TMP/pginst: its programs
# copied (PostgreSQL finds its library and share directories relative to the
# postgres binary), everything else linked, except colfam_fdw's files, which are this
# tree's build (colfam_fdw.so must be built: make). harness_pg_start then uses it, so
# the test neither needs nor touches the system's installed extension.
harness_pg_overlay() {
  local pgc=${PG_CONFIG:-pg_config} bindir libdir sharedir o=$H_TMP/pginst f root
  root=${COLFAM_ROOT:-$PWD}
  [[ -f $root/colfam_fdw.so ]] ||
    { harness_log "$root/colfam_fdw.so is not built (run make)"; return 1; }
  bindir=$("$pgc" --bindir) libdir=$("$pgc" --pkglibdir) sharedir=$("$pgc" --sharedir)
  mkdir -p "$o$bindir" "$o$libdir" "$o$sharedir/extension"
  cp -a "$bindir/." "$o$bindir/"
  for f in "$libdir"/*; do [[ ${f##*/} == colfam_fdw* ]] || ln -s "$f" "$o$libdir/"; done
  for f in "$sharedir"/*; do [[ ${f##*/} == extension ]] || ln -s "$f" "$o$sharedir/"; done
  for f in "$sharedir"/extension/*; do
    [[ ${f##*/} == colfam_fdw* ]] || ln -s "$f" "$o$sharedir/extension/"
  done
  cp "$root/colfam_fdw.so" "$o$libdir/"
  cp "$root/colfam_fdw.control" "$root"/fdw/colfam_fdw--*.sql "$o$sharedir/extension/"
  H_PG_OVERLAY_BIN=$o$bindir
  harness_pg_bindir() { echo "$H_PG_OVERLAY_BIN"; }
}

harness_pg_start() {
  local name=${1:-pg} bindir data sock attempt port dir
  bindir=$(harness_pg_bindir)
  dir=$H_TMP/$name
  data=$dir/data
  sock=$dir/sock
  mkdir -p "$dir" "$sock"
  [[ $(id -u) -eq 0 ]] && chown -R "$H_PG_OSUSER" "$dir"

  harness_as_pg "$bindir/initdb" -D "$data" -U postgres --auth=trust -E UTF8 \
    --locale=C.UTF-8 --no-sync >"$dir/initdb.log" 2>&1 ||
    { cat "$dir/initdb.log" >&2; harness_log "initdb failed"; return 1; }

  for ((attempt = 1; attempt <= 5; attempt++)); do
    port=$(harness_free_port 127.0.0.1) || return 1
    harness_as_pg "$bindir/pg_ctl" -D "$data" -l "$dir/server.log" -w -t 60 \
      -o "-c port=$port -c listen_addresses=127.0.0.1 -c unix_socket_directories='$sock'
          -c fsync=off -c full_page_writes=off -c synchronous_commit=off
          -c max_connections=30 -c shared_buffers=32MB -c log_min_messages=warning
          ${H_PG_OPTS:-}" \
      start >"$dir/pg_ctl.log" 2>&1 && break
    harness_log "PostgreSQL did not start on port $port (attempt $attempt of 5)"
    tail -n 5 "$dir/server.log" >&2 2>/dev/null || true
    port=
  done
  [[ -n "$port" ]] || return 1
  harness_on_exit "harness_as_pg '$bindir/pg_ctl' -D '$data' -m fast -w -t 30 stop >/dev/null 2>&1 || harness_as_pg '$bindir/pg_ctl' -D '$data' -m immediate stop >/dev/null 2>&1"

  export PGHOST=$sock PGPORT=$port PGUSER=postgres PGDATABASE=postgres
  unset PGPASSWORD PGSERVICE
  H_PG_PORT=$port
  harness_log "PostgreSQL $("$bindir/postgres" -V | awk '{print $3}') on 127.0.0.1:$port, socket $sock"
}

# Builds the tree and installs colfam_fdw into the PostgreSQL that pg_config names:
# directly as root (or when its directories are writable), otherwise it must already
# be installed (sudo make install) and be this tree's build: the shared library and
# every install script are compared, so a stale install is not tested by mistake.
# The programs (colfamd, colfam) go to a prefix inside the run's temp dir: a test run
# installs nothing into the system besides the extension it tests.
harness_install_extension() {
  local make=${MAKE:-make} jobs pgc=${PG_CONFIG:-pg_config} lib share f
  jobs=$(nproc 2>/dev/null || echo 2)
  lib=$("$pgc" --pkglibdir)
  share=$("$pgc" --sharedir)/extension
  $make -s -j"$jobs" all >/dev/null || { harness_log "build failed"; return 1; }
  if [[ $(id -u) -eq 0 || -w "$lib" ]]; then
    $make -s install PREFIX="$H_TMP/prefix" >/dev/null ||
      { harness_log "make install failed"; return 1; }
    return 0
  fi
  for f in colfam_fdw.so:"$lib" colfam_fdw.control:"$share" fdw/colfam_fdw--*.sql:"$share"; do
    local src=${f%%:*} dst=${f#*:}
    for src in $src; do
      if ! cmp -s "$src" "$dst/$(basename "$src")"; then
        harness_log "the installed $(basename "$src") in $dst is not this tree's build"
        harness_log "hint: run 'sudo make install' (again after every change), or run this as root"
        return 1
      fi
    done
  done
}
