#!/usr/bin/env bash
# scripts/bench_server.sh — colfamd under `colfam stress` over loopback, side by side
# with redis-benchmark against a Debian redis-server in the same run, same machine, same
# number of connections. Writes a markdown report (default build/bench/server.md) and
# prints it. Measures; never passes or fails on its figures.
#
# Workloads (each for BENCH_SECONDS, colfam stress's --duration):
#   insert  one column per insert call (--columns 1)        vs redis SET
#   get     get_slice of one of those rows (1 column)        vs redis GET
#   batch   batch_mutate of BENCH_WIDE columns per row (columns/s)
#   slice   reversed slice, count 10, of those BENCH_WIDE-column rows
#   insert-threads, get-threads: insert and get again from BENCH_CLIENTS blocking
#           threads, one libcolfam connection each (py_stress's model)
# colfam stress drives its BENCH_CLIENTS connections from BENCH_STRESS_THREADS event-loop
# threads (--connections), as redis-benchmark drives its own from one event loop: one
# call in flight per connection either way, every call a framed Thrift call and every
# reply decoded and checked. The *-threads rows show what 50 blocking client threads
# cost on the same CPUs.
# Redis runs `redis-benchmark -t set,get` with the same connections, value size and key
# space; its request count is BENCH_REDIS_N (default: 50,000 per BENCH_SECONDS, a few
# seconds per test here). colfamd's and redis-server's RSS (VmRSS) and CPU time
# (utime+stime) are sampled from /proc during each workload.
#
# Environment:
#   BENCH_CLIENTS     connections, both tools [50]
#   BENCH_STRESS_THREADS  colfam stress's event-loop threads [1, as redis-benchmark]
#   BENCH_SECONDS     seconds per colfam workload [10]
#   BENCH_KEYS        key space of insert/get and of SET/GET (-r) [100000]
#   BENCH_VALUE_SIZE  bytes per value, both tools [34, colfam stress's default]
#   BENCH_WIDE        columns per row of batch and slice [100]
#   BENCH_WIDE_KEYS   rows of batch and slice [10000]
#   BENCH_REDIS_N     requests per redis-benchmark test [50000 * BENCH_SECONDS]
#   BENCH_OUT         report path [build/bench/server.md]
# Servers listen on 127.0.0.2 (colfamd) and 127.0.0.3 (redis-server), on free ports,
# with their files in one temp dir; both are stopped on exit, error, Ctrl-C or SIGTERM.
set -euo pipefail
export LC_ALL=C

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
# shellcheck source=../tests/lib/harness.sh
. tests/lib/harness.sh

CLIENTS=${BENCH_CLIENTS:-50}
STHREADS=${BENCH_STRESS_THREADS:-1}
SECS=${BENCH_SECONDS:-10}
KEYS=${BENCH_KEYS:-100000}
VSIZE=${BENCH_VALUE_SIZE:-34}
WIDE=${BENCH_WIDE:-100}
WIDE_KEYS=${BENCH_WIDE_KEYS:-10000}
REDIS_N=${BENCH_REDIS_N:-$((50000 * SECS))}
OUT=${BENCH_OUT:-build/bench/server.md}
SLICE=10

log() { printf '[bench-server] %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

harness_positive_ints CLIENTS STHREADS SECS KEYS VSIZE WIDE WIDE_KEYS REDIS_N || exit 2
((STHREADS <= CLIENTS)) || die "BENCH_STRESS_THREADS ($STHREADS) must not exceed BENCH_CLIENTS ($CLIENTS)"
for p in redis-server redis-benchmark; do
  command -v "$p" >/dev/null 2>&1 ||
    die "$p not found; run scripts/deps.sh bench (Debian: redis-server, redis-tools)"
done

BIN=build/release/bin
log "building release binaries (make -f mk/engine.mk)"
${MAKE:-make} -s -f mk/engine.mk -j"$(nproc)" all >/dev/null || die "build failed"
COLFAMD=$ROOT/$BIN/colfamd
COLFAM=$ROOT/$BIN/colfam

harness_init

# --- servers -------------------------------------------------------------------------
C_HOST=127.0.0.2
R_HOST=127.0.0.3
harness_colfamd colfamd "$C_HOST" "$COLFAMD" --seeds "$C_HOST" || die "colfamd did not start"
C_PID=$H_PID C_PORT=$H_PORT COLFAMD_CMD=("${H_CMD[@]}")
mkdir -p "$H_TMP/redis"
log "colfamd (pid $C_PID) on $C_HOST:$C_PORT, data in $H_TMP/colfamd"

R_PORT=$(harness_free_port "$R_HOST")
REDIS_CMD=(redis-server --bind "$R_HOST" --port "$R_PORT" --save '' --appendonly no
           --daemonize no --dir "$H_TMP/redis" --logfile '')
harness_spawn redis-server "${REDIS_CMD[@]}"
R_PID=$H_PID
harness_wait_tcp "$R_HOST" "$R_PORT" 30 || { tail -n 20 "$H_TMP/redis-server.log" >&2; die "redis-server did not start"; }
log "redis-server (pid $R_PID) on $R_HOST:$R_PORT, persistence off"

# --- /proc sampling --------------------------------------------------------------------
TICK=$(getconf CLK_TCK)
# Samples PID's VmRSS every 0.1 s into FILE (the maximum so far) until killed. Without
# a process per sample (no awk, no sleep: read -t on a FIFO nobody writes), so that the
# client CPU measured around it (bash's times counts every child) is the client's.
SAMPLER=
sampler_start() {   # PID FILE
  [[ -p $H_TMP/tick ]] || mkfifo "$H_TMP/tick"
  (
    exec 3<>"$H_TMP/tick"
    max=0
    while kill -0 "$1" 2>/dev/null; do
      r=0
      while read -r k v _; do [[ $k == VmRSS: ]] && { r=$v; break; }; done 2>/dev/null <"/proc/$1/status"
      ((r > max)) && { max=$r; echo "$max" >"$2"; }
      read -r -t 0.1 -u 3 _ || true
    done
  ) &
  SAMPLER=$!
  harness_on_exit "kill $SAMPLER 2>/dev/null"
}
sampler_stop() { kill "$SAMPLER" 2>/dev/null || true; wait "$SAMPLER" 2>/dev/null || true; }

# CPU seconds (user+sys) of this shell's waited-for children so far, into variable $1
# (`times` must run in this shell, not in a $(...) subshell).
children_cpu() {
  times >"$H_TMP/times"
  printf -v "$1" '%s' "$(awk 'NR == 2 { n = 0; for (i = 1; i <= 2; i++) { split($i, a, /[ms]/); n += a[1] * 60 + a[2] }; print n }' "$H_TMP/times")"
}

# Runs CMD (with the caller's redirections) while measuring server PID: its maximum
# VmRSS into $H_TMP/rss-NAME; the CPU seconds PID and the client (this shell's
# children) spent meanwhile into M_SERVER_S and M_CLIENT_S. Returns CMD's status.
measure() {         # NAME PID CMD...
  local name=$1 pid=$2 rc=0 t0 t1 cl0 cl1
  shift 2
  echo 0 >"$H_TMP/rss-$name"
  t0=$(harness_cpu_ticks "$pid")
  children_cpu cl0
  sampler_start "$pid" "$H_TMP/rss-$name"
  "$@" || rc=$?
  sampler_stop
  t1=$(harness_cpu_ticks "$pid")
  children_cpu cl1
  M_SERVER_S=$(awk -v d=$((t1 - t0)) -v t="$TICK" 'BEGIN { print d / t }')
  M_CLIENT_S=$(awk -v a="$cl0" -v b="$cl1" 'BEGIN { print b - a }')
  return $rc
}

per_op_us() {       # SECONDS N → microseconds per operation
  awk -v s="$1" -v n="$2" 'BEGIN { printf "%.1f", (n > 0 ? s * 1e6 / n : 0) }'
}

json_num() {        # KEY FILE → the first "KEY":number in FILE
  grep -o "\"$1\":[-0-9.eE+]*" "$2" | head -n 1 | cut -d: -f2
}

declare -A R        # results: R[name.field]
CMDS=()

# Runs one colfam stress workload NAME with ARGS, sampling colfamd meanwhile: from
# STHREADS event-loop threads over CLIENTS connections, or CLIENTS blocking threads
# when NAME ends in -threads.
stress() {          # NAME ARGS...
  local name=$1 out=$H_TMP/stress-$1.json cmd model
  shift
  if [[ $name == *-threads ]]; then
    model=(-t "$CLIENTS")
  else
    model=(-t "$STHREADS" --connections "$CLIENTS")
  fi
  cmd=("$COLFAM" stress -h "$C_HOST" -p "$C_PORT" "${model[@]}" -S "$VSIZE"
       --output json --interval 2 "$@")
  CMDS+=("${cmd[*]/#$ROOT\//}")
  log "colfamd $name: ${SECS}s, ${model[*]}"
  measure "$name" "$C_PID" "${cmd[@]}" >"$out" 2> >(sed 's/^/    /' >&2) ||
    { cat "$out" >&2; die "colfam stress $name failed (colfamd log: $H_TMP/colfamd.log)"; }
  kill -0 "$C_PID" 2>/dev/null || die "colfamd exited during $name"
  R[$name.ops]=$(json_num ops_per_sec "$out")
  R[$name.cols]=$(json_num columns_per_sec "$out")
  R[$name.total]=$(json_num total_ops "$out")
  R[$name.p50]=$(printf '%.3f' "$(json_num p50 "$out")")
  R[$name.p99]=$(printf '%.3f' "$(json_num p99 "$out")")
  R[$name.misses]=$(json_num misses "$out")
  R[$name.errors]=$(json_num errors "$out")
  R[$name.rss]=$(cat "$H_TMP/rss-$name")
  R[$name.cpu_us]=$(per_op_us "$M_SERVER_S" "${R[$name.total]}")
  R[$name.client_us]=$(per_op_us "$M_CLIENT_S" "${R[$name.total]}")
  log "  $name: $(printf '%.0f' "${R[$name.ops]}") ops/s, p50 ${R[$name.p50]} ms, p99 ${R[$name.p99]} ms, misses ${R[$name.misses]}, errors ${R[$name.errors]}"
  [[ ${R[$name.errors]} == 0 ]] || log "  warning: $name had ${R[$name.errors]} failed operations"
}

# --- colfamd --------------------------------------------------------------------------
stress insert -o insert --columns 1 -n "$KEYS" -d "$SECS"
((${R[insert.total]} >= KEYS)) ||
  log "warning: insert wrote ${R[insert.total]} of $KEYS keys; get will report misses"
stress get -o read --columns 1 -n "$KEYS" -d "$SECS"
stress insert-threads -o insert --columns 1 -n "$KEYS" -d "$SECS"
stress get-threads -o read --columns 1 -n "$KEYS" -d "$SECS"
stress batch -o insert --batch --columns "$WIDE" -n "$WIDE_KEYS" -d "$SECS" --column-family Wide1
((${R[batch.total]} >= WIDE_KEYS)) ||
  log "warning: batch wrote ${R[batch.total]} of $WIDE_KEYS rows; slice will report misses"
stress slice -o slice --columns "$WIDE" --slice-count "$SLICE" -n "$WIDE_KEYS" -d "$SECS" --column-family Wide1

# --- redis ----------------------------------------------------------------------------
RB_CMD=(redis-benchmark -h "$R_HOST" -p "$R_PORT" -c "$CLIENTS" -n "$REDIS_N" -d "$VSIZE"
        -r "$KEYS" -t set,get --csv)
CMDS+=("${RB_CMD[*]}")
log "redis SET, GET: $REDIS_N requests each, $CLIENTS connections"
measure redis "$R_PID" "${RB_CMD[@]}" >"$H_TMP/redis.csv" 2>"$H_TMP/redis-benchmark.err" ||
  { cat "$H_TMP/redis-benchmark.err" >&2; die "redis-benchmark failed"; }
# "test","rps","avg_latency_ms","min_latency_ms","p50_latency_ms","p95_latency_ms","p99_latency_ms","max_latency_ms"
header=$(head -n 1 "$H_TMP/redis.csv")
[[ $header == *'"p50_latency_ms"'*'"p99_latency_ms"'* ]] ||
  die "unexpected redis-benchmark --csv header: $header"
for t in SET GET; do
  line=$(grep "^\"$t\"," "$H_TMP/redis.csv") || die "no $t line in redis-benchmark's output"
  IFS=, read -r _ rps _ _ p50 _ p99 _ <<<"${line//\"/}"
  R[$t.ops]=$rps R[$t.p50]=$p50 R[$t.p99]=$p99
  log "  redis $t: $(printf '%.0f' "$rps") ops/s, p50 $p50 ms, p99 $p99 ms"
done
R[redis.rss]=$(cat "$H_TMP/rss-redis")
R[redis.cpu_us]=$(per_op_us "$M_SERVER_S" $((2 * REDIS_N)))
R[redis.client_us]=$(per_op_us "$M_CLIENT_S" $((2 * REDIS_N)))

# --- report ---------------------------------------------------------------------------
f0() { printf '%.0f' "$1"; }
mib() { awk -v k="$1" 'BEGIN { printf "%.0f MiB", k / 1024 }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f×", a / b }'; }
rss_max=0
for w in insert get insert-threads get-threads batch slice; do ((${R[$w.rss]} > rss_max)) && rss_max=${R[$w.rss]}; done

mkdir -p "$(dirname "$OUT")"
{
  echo "# colfamd vs redis-server over loopback"
  echo
  echo "Machine: $(nproc) CPUs, $(harness_cpu_model); Linux $(uname -r);" \
       "$($COLFAMD -V 2>/dev/null | head -n 1); $(redis-server --version | awk '{ print $1, $2, $3 }')."
  echo "Same run, same machine; client and server share the CPUs. $CLIENTS connections each" \
       "(colfam stress: $STHREADS event-loop thread(s), or $CLIENTS blocking threads in the" \
       "*threads* rows; redis-benchmark's one event loop), values of $VSIZE bytes," \
       "key space $KEYS for insert/get and SET/GET; colfamd with its defaults (periodic commit log)," \
       "redis-server with persistence off."
  echo
  echo "| workload | colfamd ops/s | columns/s | p50 ms | p99 ms | redis | redis ops/s | redis p50 ms | redis p99 ms | colfamd / redis |"
  echo "|---|---:|---:|---:|---:|---|---:|---:|---:|---:|"
  echo "| insert, 1 column | $(f0 "${R[insert.ops]}") | $(f0 "${R[insert.cols]}") | ${R[insert.p50]} | ${R[insert.p99]} | SET | $(f0 "${R[SET.ops]}") | ${R[SET.p50]} | ${R[SET.p99]} | $(ratio "${R[insert.ops]}" "${R[SET.ops]}") |"
  echo "| get, 1 column | $(f0 "${R[get.ops]}") | $(f0 "${R[get.cols]}") | ${R[get.p50]} | ${R[get.p99]} | GET | $(f0 "${R[GET.ops]}") | ${R[GET.p50]} | ${R[GET.p99]} | $(ratio "${R[get.ops]}" "${R[GET.ops]}") |"
  echo "| insert, $CLIENTS blocking threads | $(f0 "${R[insert-threads.ops]}") | $(f0 "${R[insert-threads.cols]}") | ${R[insert-threads.p50]} | ${R[insert-threads.p99]} | SET | $(f0 "${R[SET.ops]}") | ${R[SET.p50]} | ${R[SET.p99]} | $(ratio "${R[insert-threads.ops]}" "${R[SET.ops]}") |"
  echo "| get, $CLIENTS blocking threads | $(f0 "${R[get-threads.ops]}") | $(f0 "${R[get-threads.cols]}") | ${R[get-threads.p50]} | ${R[get-threads.p99]} | GET | $(f0 "${R[GET.ops]}") | ${R[GET.p50]} | ${R[GET.p99]} | $(ratio "${R[get-threads.ops]}" "${R[GET.ops]}") |"
  echo "| slice, reversed, count $SLICE of $WIDE | $(f0 "${R[slice.ops]}") | $(f0 "${R[slice.cols]}") | ${R[slice.p50]} | ${R[slice.p99]} | — | | | | |"
  echo "| batch_mutate, $WIDE columns | $(f0 "${R[batch.ops]}") | $(f0 "${R[batch.cols]}") | ${R[batch.p50]} | ${R[batch.p99]} | — | | | | |"
  echo
  echo "Target: insert and get at least 0.50× Redis's SET and GET."
  echo
  echo "| workload | server max RSS | server CPU µs/op | client CPU µs/op | misses | errors |"
  echo "|---|---:|---:|---:|---:|---:|"
  for w in insert get insert-threads get-threads slice batch; do
    echo "| colfamd $w | $(mib "${R[$w.rss]}") | ${R[$w.cpu_us]} | ${R[$w.client_us]} | ${R[$w.misses]} | ${R[$w.errors]} |"
  done
  echo "| redis SET+GET | $(mib "${R[redis.rss]}") | ${R[redis.cpu_us]} | ${R[redis.client_us]} | | |"
  echo
  echo "colfamd's RSS under load: at most $(mib "$rss_max") (VmRSS, sampled every 0.1 s)."
  echo "CPU µs/op: utime+stime over the workload divided by its operations; server: colfamd or"
  echo "redis-server (/proc/PID/stat), client: colfam stress or redis-benchmark (bash's times)."
  echo
  echo "Commands (ports are free ports picked for the run; \$TMP is the run's temp dir):"
  echo
  echo '```sh'
  echo "${COLFAMD_CMD[*]/#$ROOT\//}" | sed "s|$H_TMP|\$TMP|g"
  echo "${REDIS_CMD[*]}" | sed "s|$H_TMP|\$TMP|g; s|--save  |--save '' |; s|--logfile *\$|--logfile ''|"
  for c in "${CMDS[@]}"; do echo "$c"; done
  echo '```'
} >"$OUT.tmp"
mv "$OUT.tmp" "$OUT"
log "report in $OUT"
cat "$OUT"
