# tests/shell/tap.sh — a few TAP helpers for the bash tests (run by prove --exec bash).
T_N=0
T_FAILED=0
tap_plan() { echo "1..$1"; }
tap_ok() {      # COND-EXIT-STATUS DESCRIPTION
  T_N=$((T_N + 1))
  if [[ $1 -eq 0 ]]; then echo "ok $T_N - $2"; else echo "not ok $T_N - $2"; T_FAILED=1; fi
}
tap_is() {      # GOT WANT DESCRIPTION: ok when GOT equals WANT, both shown when not
  if [[ $1 == "$2" ]]; then tap_ok 0 "$3"
  else tap_ok 1 "$3"; printf '#   got:  %s\n#   want: %s\n' "$1" "$2"; fi
}
# tap_run DESCRIPTION EXPECTED-EXIT PATTERN CMD...: runs CMD, checks its exit status
# and that its combined output matches the extended regex PATTERN.
tap_run() {
  local desc=$1 want=$2 pat=$3 out rc; shift 3
  out=$("$@" 2>&1); rc=$?
  if [[ $rc -eq $want ]] && grep -Eq -- "$pat" <<<"$out"; then
    tap_ok 0 "$desc"
  else
    tap_ok 1 "$desc"
    printf '#   exit %s (wanted %s); output:\n' "$rc" "$want"
    sed 's/^/#     /' <<<"$out"
  fi
}
