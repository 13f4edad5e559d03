#!/usr/bin/env bash
# tests/run.sh — runs colfam's test suites and prints one summary line.
#
#   tests/run.sh [all | SUITE...]
#
# Suites:
#   unit       C unit tests (cmocka), one program per engine module
#   unit-asan  the same programs built with AddressSanitizer and UBSan
#   fuzz       each libFuzzer target (tests/fuzz/) for FUZZ_SECONDS (default 20) from a
#              corpus seeded by the unit tests and kept in build/fuzz/corpus/; crashes
#              are saved in build/fuzz/artifacts/. Skipped, and said so, without clang.
#   shell      TAP tests in bash (prove): the binaries, the harness, the layering rule,
#              colfam_fdw's connections (a private PostgreSQL, nothing installed)
#   regress    pg_regress: sql/*.sql against expected/*.out in a private PostgreSQL
#   pgtap      pgTAP: pg_prove over tests/pgtap/*.sql in a private PostgreSQL
#
# It builds what it runs and installs the extension into the PostgreSQL that
# pg_config names (as root; otherwise it must already be installed: sudo make install).
# Every server it starts is stopped on exit, failure or Ctrl-C (tests/lib/harness.sh).
set -uo pipefail

cd "$(dirname "$0")/.."
ROOT=$PWD
. tests/lib/harness.sh

ALL_SUITES=(unit unit-asan fuzz shell regress pgtap)
MAKE=${MAKE:-make}
JOBS=${JOBS:-$(nproc 2>/dev/null || echo 2)}

suites=()
for arg in "${@:-all}"; do
  case "$arg" in
    all) suites+=("${ALL_SUITES[@]}") ;;
    unit|unit-asan|fuzz|shell|regress|pgtap) suites+=("$arg") ;;
    *) echo "run.sh: unknown suite '$arg' (valid: all ${ALL_SUITES[*]})" >&2; exit 2 ;;
  esac
done

harness_init

total_pass=0
total_fail=0
failed_suites=()

# Counts from a suite's log, by the runner that wrote it. Sets S_PASS and S_FAIL.
count_cmocka() {
  S_PASS=$(sed -nE 's/^\[  PASSED  \] ([0-9]+) test.*/\1/p' "$1" | awk '{s+=$1} END {print s+0}')
  S_FAIL=$(sed -nE 's/^\[  FAILED  \] ([0-9]+) test.*/\1/p' "$1" | awk '{s+=$1} END {print s+0}')
}
count_prove() {
  local tests failed
  tests=$(sed -nE 's/^Files=[0-9]+, Tests=([0-9]+),.*/\1/p' "$1" | tail -n1)
  failed=$(sed -nE 's/.*Failed ([0-9]+)\/[0-9]+ subtests.*/\1/p' "$1" | awk '{s+=$1} END {print s+0}')
  S_PASS=$(( ${tests:-0} - failed ))
  S_FAIL=$failed
}
count_pg_regress() {
  local line
  line=$(grep -E '^ *(All [0-9]+ tests passed|[0-9]+ of [0-9]+ tests failed)' "$1" | tail -n1)
  if [[ "$line" =~ All\ ([0-9]+)\ tests ]]; then
    S_PASS=${BASH_REMATCH[1]}; S_FAIL=0
  elif [[ "$line" =~ ([0-9]+)\ of\ ([0-9]+)\ tests ]]; then
    S_FAIL=${BASH_REMATCH[1]}; S_PASS=$(( BASH_REMATCH[2] - BASH_REMATCH[1] ))
  else
    S_PASS=0; S_FAIL=0
  fi
}

# run_suite NAME COUNTER FUNCTION: runs FUNCTION with output shown and logged.
run_suite() {
  local name=$1 counter=$2 fn=$3 log="$H_TMP/suite-$1.log" rc
  printf '\n=== suite %s ===\n' "$name"
  # Not a pipeline: the suite must run in this shell, so the servers it starts are
  # registered with this shell's cleanup.
  # tee's pid is taken at once: a suite may start servers in the background (colfamd),
  # which would move $! to them.
  local fd tee_pid
  exec {fd}> >(tee "$log")
  tee_pid=$!
  "$fn" >&"$fd" 2>&1
  rc=$?
  exec {fd}>&-
  wait "$tee_pid" 2>/dev/null   # let tee drain before the log is read
  "$counter" "$log"
  # A suite that failed without a countable failure (a crash, a build error) counts one.
  if [[ $rc -ne 0 && $S_FAIL -eq 0 ]]; then S_FAIL=1; fi
  # A suite may skip itself (a missing tool) by printing a line "SKIP: <reason>".
  if [[ $rc -eq 0 && $S_PASS -eq 0 ]] && ! grep -q '^SKIP: ' "$log"; then
    echo "suite $name ran no test" >&2; S_FAIL=$((S_FAIL + 1))
  fi
  total_pass=$((total_pass + S_PASS))
  total_fail=$((total_fail + S_FAIL))
  if [[ $S_FAIL -ne 0 ]]; then failed_suites+=("$name"); fi
  printf '=== suite %s: %d passed, %d failed ===\n' "$name" "$S_PASS" "$S_FAIL"
}

run_unit_programs() {   # DIR
  local t rc=0 found=0
  # the programs' temp dirs live in the run's, so a crashed or killed one leaves none
  mkdir -p "$H_TMP/unit"
  export TMPDIR=$H_TMP/unit
  for t in "$1"/test_*; do
    [[ -x "$t" ]] || continue
    found=1
    timeout --kill-after=10 300 "$t" || { echo "$t failed (exit $?)"; rc=1; }
  done
  [[ $found -eq 1 ]] || { echo "no unit test programs in $1"; return 1; }
  return $rc
}

suite_unit() {
  $MAKE -s -j"$JOBS" -f mk/engine.mk all unit-tests || return 1
  run_unit_programs build/release/tests
}

suite_unit_asan() {
  local t
  $MAKE -s -j"$JOBS" -f mk/engine.mk SAN=1 all unit-tests || return 1
  # Guard against a build that silently lost its instrumentation.
  for t in build/asan/tests/test_*; do
    grep -q __asan_init < <(nm "$t") || { echo "$t is not built with AddressSanitizer"; return 1; }
  done
  ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:halt_on_error=1 \
  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    run_unit_programs build/asan/tests
}

# One line per fuzz target: "fuzz: NAME ok" or "fuzz: NAME FAILED".
count_fuzz() {
  S_PASS=$(grep -c '^fuzz: .* ok$' "$1")
  S_FAIL=$(grep -c '^fuzz: .* FAILED$' "$1")
}

suite_fuzz() {
  local cc=${FUZZ_CC:-clang} secs=${FUZZ_SECONDS:-20} f name rc=0 dict
  if ! command -v "$cc" >/dev/null 2>&1; then
    echo "SKIP: $cc not found (scripts/deps.sh test installs clang); fuzz targets not run"
    return 0
  fi
  $MAKE -s -j"$JOBS" -f mk/engine.mk FUZZ_CC="$cc" fuzz build/release/tests/test_thrift_codec || return 1
  mkdir -p build/fuzz/artifacts
  for f in build/fuzz/fuzz_*; do
    [[ -x "$f" && ! -d "$f" ]] || continue
    name=${f##*/fuzz_}
    mkdir -p "build/fuzz/corpus/$name"
    # seeds: every method's call and reply, as the unit test writes them
    if [[ $name == thrift ]]; then
      CF_THRIFT_SEED_DIR=build/fuzz/corpus/$name build/release/tests/test_thrift_codec || return 1
    fi
    # the shell's parser: the seeds' cassandra-cli scripts
    if [[ $name == cli ]]; then
      cp tests/data/seeds/*.cli "build/fuzz/corpus/$name/" || return 1
    fi
    # the SSTable reader: its templates unchanged (template-0 .. template-2)
    if [[ $name == sstable ]]; then
      CF_FUZZ_SEED_DIR=build/fuzz/corpus/$name "$f" || return 1
    fi
    dict=()
    [[ -f tests/fuzz/fuzz_$name.dict ]] && dict=(-dict="tests/fuzz/fuzz_$name.dict")
    if timeout --kill-after=10 $((secs + 60)) "$f" -max_total_time="$secs" -max_len=65536 \
         -rss_limit_mb=2048 -timeout=10 -print_final_stats=1 "${dict[@]}" \
         -artifact_prefix=build/fuzz/artifacts/"$name"- "build/fuzz/corpus/$name" \
         > "$H_TMP/fuzz-$name.log" 2>&1; then
      grep -E '^(Done|stat::number_of_executed_units)' "$H_TMP/fuzz-$name.log"
      echo "fuzz: $name ok"
    else
      tail -n 40 "$H_TMP/fuzz-$name.log"
      echo "fuzz: $name FAILED (reproduce: $f build/fuzz/artifacts/$name-*)"
      rc=1
    fi
  done
  return $rc
}

suite_shell() {
  $MAKE -s -j"$JOBS" -f mk/engine.mk all || return 1
  # the extension too, for fdw_connections.t (which skips itself without PostgreSQL)
  if [[ -f "$(${PG_CONFIG:-pg_config} --pgxs 2>/dev/null)" ]]; then
    $MAKE -s -j"$JOBS" all || return 1
  fi
  COLFAM_ROOT=$ROOT prove --exec bash tests/shell/*.t
}

pg_ready=0
ensure_pg() {
  [[ $pg_ready -eq 1 ]] && return 0
  harness_install_extension || return 1
  harness_pg_start || return 1
  pg_ready=1
}

# colfamd nodes for the FDW's tests, with the seeds' data loaded through `colfam shell`:
# COLFAM_HOSTS (RandomPartitioner, every seed), COLFAM_SOCKET (the same node's unix
# socket, open to the PostgreSQL user) and COLFAM_HOSTS_BOP (ByteOrderedPartitioner,
# BloggyAppy and Pushdown: key ranges) tell the SQL scripts where (\getenv).
colfamd_ready=0
start_node() {   # NAME HOST PARTITIONER SEED... → sets H_PORT
  local name=$1 host=$2 partitioner=$3 seed log; shift 3
  harness_colfamd "$name" "$host" build/release/bin/colfamd --partitioner "$partitioner" \
    --rpc_unix_socket "$H_TMP/$name.sock" --rpc_unix_socket_mode 0777 || return 1
  for seed in "$@"; do
    log=$H_TMP/$name-$(basename "$seed").log
    build/release/bin/colfam shell -h "$host" -p "$H_PORT" -f "$seed" >"$log" 2>&1 ||
      { echo "loading $seed into $name failed:" >&2; cat "$log" >&2; return 1; }
  done
}
ensure_colfamd() {
  [[ $colfamd_ready -eq 1 ]] && return 0
  $MAKE -s engine || return 1
  start_node colfamd 127.0.0.2 RandomPartitioner tests/data/seeds/*.cli || return 1
  COLFAM_HOSTS=127.0.0.2:$H_PORT COLFAM_SOCKET=$H_TMP/colfamd.sock
  start_node colfamd-bop 127.0.0.3 ByteOrderedPartitioner tests/data/seeds/bloggyappy.cli \
    tests/data/seeds/pushdown.cli || return 1
  COLFAM_HOSTS_BOP=127.0.0.3:$H_PORT
  export COLFAM_HOSTS COLFAM_SOCKET COLFAM_HOSTS_BOP
  colfamd_ready=1
}

suite_regress() {
  local rc
  ensure_pg || return 1
  ensure_colfamd || return 1
  $MAKE -s installcheck
  rc=$?
  if [[ $rc -ne 0 && -f regression.diffs ]]; then
    echo "--- regression.diffs ---"; cat regression.diffs
  fi
  return $rc
}

suite_pgtap() {
  ensure_pg || return 1
  psql -X -q -v ON_ERROR_STOP=1 -c 'CREATE DATABASE colfam_tap' || return 1
  psql -X -q -v ON_ERROR_STOP=1 -d colfam_tap -c 'CREATE EXTENSION pgtap' || return 1
  pg_prove --dbname colfam_tap --ext .sql tests/pgtap/
}

for s in "${suites[@]}"; do
  case "$s" in
    unit) run_suite unit count_cmocka suite_unit ;;
    unit-asan) run_suite unit-asan count_cmocka suite_unit_asan ;;
    fuzz) run_suite fuzz count_fuzz suite_fuzz ;;
    shell) run_suite shell count_prove suite_shell ;;
    regress) run_suite regress count_pg_regress suite_regress ;;
    pgtap) run_suite pgtap count_prove suite_pgtap ;;
  esac
done

echo
if [[ ${#failed_suites[@]} -gt 0 ]]; then
  echo "failed suites: ${failed_suites[*]}"
fi
echo "test: $total_pass passed, $total_fail failed"
[[ $total_fail -eq 0 ]]
