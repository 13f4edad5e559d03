# tests/shell/thrift_compat.t — wire compatibility with a client nobody here wrote: the
# Apache Thrift compiler (Debian's thrift-compiler) generates a Python client from
# tests/compat/cassandra-0.7.thrift, and tests/compat/thrift_compat.py runs the seeds'
# blog through it against a real colfamd, with the pure-Python and the C-accelerated
# binary protocols. The Python script prints the TAP.
. "$COLFAM_ROOT/tests/lib/harness.sh"
harness_init
B=$COLFAM_ROOT/build/release/bin
# Debian's python3: the one on PATH may be a private build without python3-thrift
PY=/usr/bin/python3

if ! command -v thrift >/dev/null 2>&1 || ! "$PY" -c 'import thrift.protocol.fastbinary' 2>/dev/null; then
  echo "1..1"
  echo "not ok 1 - the Thrift compiler and Python library are installed (scripts/deps.sh test installs thrift-compiler and python3-thrift)"
  exit 1
fi
gen=$H_TMP/gen-py
mkdir -p "$gen"
if ! thrift --gen py -out "$gen" "$COLFAM_ROOT/tests/compat/cassandra-0.7.thrift" 2>"$H_TMP/thrift.err"; then
  echo "1..1"
  echo "not ok 1 - thrift --gen py compiles tests/compat/cassandra-0.7.thrift"
  sed 's/^/#   /' "$H_TMP/thrift.err"
  exit 1
fi
host=127.0.0.2
if ! harness_colfamd compat "$host" "$B/colfamd" --seeds "$host"; then
  echo "1..1"
  echo "not ok 1 - colfamd starts"
  exit 1
fi
timeout 120 "$PY" "$COLFAM_ROOT/tests/compat/thrift_compat.py" "$gen" "$host" "$H_PORT"
rc=$?
[[ $rc -eq 124 ]] && echo "# thrift_compat.py timed out after 120 s"
exit $rc
