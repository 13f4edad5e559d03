#!/usr/bin/env bash
# scripts/bench_fdw.sh — colfam_fdw under pgbench, side by side with the same data in a
# native PostgreSQL table and in a second PostgreSQL reached through postgres_fdw, in
# the same run on the same machine. Writes a markdown report (default
# build/bench/fdw.md) and prints it. Measures; never passes or fails on its figures.
#
# Servers (all on loopback, free ports, files in one temp dir, stopped on exit, error,
# Ctrl-C or SIGTERM):
#   colfamd  127.0.0.2 and a unix socket in the temp dir (rpc_unix_socket, mode 0777
#            so PostgreSQL's OS user reaches it): keyspace Bench — Wide (Standard,
#            BytesType), loaded by
#            `colfam stress` (one batch_mutate per row), and BloggyAppy-shaped
#            TaggedPosts (TimeUUIDType), BlogEntries, Authors
#   PG-A     colfam_fdw foreign tables (schema colfam), the native tables (schema
#            native) and postgres_fdw foreign tables over PG-B's (schema pgfdw)
#   PG-B     the native tables again
# Transports: colfam_fdw reaches colfamd through its unix socket (BENCH_FDW_TRANSPORT=tcp:
# over 127.0.0.2:port instead), postgres_fdw reaches PG-B through PG-B's socket
# directory, and pgbench and psql reach PG-A through its socket directory: every
# schema's client-server hops are local sockets, none pays TCP's loopback path.
# The native copy of Wide is COPYed from what colfam_fdw reads back; the BloggyAppy
# data is generated in SQL on PG-A, written to colfamd through colfam_fdw and COPYed
# to PG-B. Every table is checked to hold the same rows before anything is measured.
#
# Workloads, each on the three schemas in turn, BENCH_FDW_ROUNDS times:
#   (a) slice   SELECT column_name, value FROM wide WHERE key = :k
#               ORDER BY column_name DESC LIMIT 10   (random key; pgbench -M prepared,
#               BENCH_FDW_CLIENTS clients, BENCH_FDW_SECONDS seconds): tps
#   (b) scan    SELECT count(*), sum(length(value)) FROM wide: BENCH_FDW_SCANS timed
#               runs after one warm-up, one client: rows/s
#   (c) front   DESIGN.md's front-page query (TaggedPosts '__notag__' newest 10 joined
#               to BlogEntries and Authors), pgbench like (a): latency avg, p50, p99
#
# Environment:
#   BENCH_FDW_ROWS       rows of Wide [10000]
#   BENCH_FDW_COLUMNS    columns per row of Wide [1000]
#   BENCH_FDW_VALUE_SIZE bytes per value of Wide [34, colfam stress's default]
#   BENCH_FDW_ENTRIES    BlogEntries rows [3000]; BENCH_FDW_AUTHORS [50]; 20 tags
#   BENCH_FDW_CLIENTS    pgbench clients for (a) and (c) [4]
#   BENCH_FDW_SECONDS    seconds per pgbench run of (a) and (c) [10]
#   BENCH_FDW_SCANS      timed full scans per table and round [3]
#   BENCH_FDW_ROUNDS     rounds over the three schemas [2]
#   BENCH_FDW_FETCH_SIZE fetch_size of both FDWs' servers [colfam_fdw's default]
#   BENCH_FDW_TRANSPORT  unix or tcp: how colfam_fdw reaches colfamd [unix]
#   BENCH_FDW_IO_CPUS    colfamd's rpc_io_cpus [auto: its event loops pinned one per
#                        CPU, as on a machine colfamd and PostgreSQL have to themselves;
#                        none: unpinned]
#   BENCH_OUT            report path [build/bench/fdw.md]
set -euo pipefail
export LC_ALL=C

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
# shellcheck source=../tests/lib/harness.sh
. tests/lib/harness.sh

ROWS=${BENCH_FDW_ROWS:-10000}
COLS=${BENCH_FDW_COLUMNS:-1000}
VSIZE=${BENCH_FDW_VALUE_SIZE:-34}
ENTRIES=${BENCH_FDW_ENTRIES:-3000}
AUTHORS=${BENCH_FDW_AUTHORS:-50}
CLIENTS=${BENCH_FDW_CLIENTS:-4}
SECS=${BENCH_FDW_SECONDS:-10}
SCANS=${BENCH_FDW_SCANS:-3}
ROUNDS=${BENCH_FDW_ROUNDS:-2}
FETCH=${BENCH_FDW_FETCH_SIZE:-$(awk '/define COLFAM_DEFAULT_FETCH_SIZE/ { print $3 }' fdw/colfam_fdw.h)}
OUT=${BENCH_OUT:-build/bench/fdw.md}
TRANSPORT=${BENCH_FDW_TRANSPORT:-unix}
IO_CPUS=${BENCH_FDW_IO_CPUS:-auto}
SCHEMAS=(native colfam pgfdw)
LOAD_TIMEOUT=3600       # seconds any one load step may take

log() { printf '[bench-fdw] %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

harness_positive_ints ROWS COLS VSIZE ENTRIES AUTHORS CLIENTS SECS SCANS ROUNDS FETCH || exit 2
[[ $TRANSPORT == unix || $TRANSPORT == tcp ]] || { log "BENCH_FDW_TRANSPORT must be unix or tcp"; exit 2; }
[[ -x $("${PG_CONFIG:-pg_config}" --bindir)/pgbench ]] || die "pgbench not found; run scripts/deps.sh bench"

BIN=$ROOT/build/release/bin
harness_init
log "building colfamd, colfam and colfam_fdw"
${MAKE:-make} -s -j"$(nproc)" all >/dev/null || die "build failed"

# Both PostgreSQL servers run from a private overlay of the installation: its programs
# copied (PostgreSQL finds its lib and share directories from its own path), the rest
# linked, and this tree's colfam_fdw in it. The bench thus measures this tree's build,
# whatever else installs colfam_fdw into the system meanwhile, and installs nothing.
pg_overlay() {          # → prints the overlay's bindir
  local pgc=${PG_CONFIG:-pg_config} bindir libdir sharedir o=$H_TMP/pginst f
  bindir=$("$pgc" --bindir) libdir=$("$pgc" --pkglibdir) sharedir=$("$pgc" --sharedir)
  mkdir -p "$o$bindir" "$o$libdir" "$o$sharedir/extension"
  cp -a "$bindir/." "$o$bindir/"
  for f in "$libdir"/*; do
    [[ $(basename "$f") == colfam_fdw* ]] || ln -s "$f" "$o$libdir/"
  done
  for f in "$sharedir"/*; do
    [[ $(basename "$f") == extension ]] || ln -s "$f" "$o$sharedir/"
  done
  for f in "$sharedir"/extension/*; do
    [[ $(basename "$f") == colfam_fdw* ]] || ln -s "$f" "$o$sharedir/extension/"
  done
  cp colfam_fdw.so "$o$libdir/"
  cp colfam_fdw.control fdw/colfam_fdw--*.sql "$o$sharedir/extension/"
  echo "$o$bindir"
}
PG_BIN=$(pg_overlay) || die "could not make the PostgreSQL overlay"
harness_pg_bindir() { echo "$PG_BIN"; }

# --- servers -------------------------------------------------------------------------
C_HOST=127.0.0.2
C_SOCK=$H_TMP/colfamd.sock
harness_colfamd colfamd "$C_HOST" "$BIN/colfamd" --seeds "$C_HOST" \
  --rpc_unix_socket "$C_SOCK" --rpc_unix_socket_mode 0777 --rpc_io_cpus "$IO_CPUS" ||
  die "colfamd did not start (BENCH_FDW_IO_CPUS=$IO_CPUS: auto, none or a CPU list)"
C_PID=$H_PID C_PORT=$H_PORT
[[ -S $C_SOCK ]] || die "colfamd made no unix socket at $C_SOCK"
if [[ $TRANSPORT == unix ]]; then C_HOSTS=$C_SOCK; else C_HOSTS=$C_HOST:$C_PORT; fi
log "colfamd (pid $C_PID) on $C_HOST:$C_PORT and $C_SOCK; colfam_fdw uses $C_HOSTS"

H_PG_OPTS="-c shared_buffers=256MB -c work_mem=16MB -c maintenance_work_mem=256MB -c max_wal_size=4GB"
harness_pg_start pgb || die "PG-B did not start"
B_HOST=$PGHOST B_PORT=$PGPORT     # PG-B's unix socket directory, for postgres_fdw too
[[ $B_HOST == /* ]] || die "PG-B's PGHOST is not a socket directory: $B_HOST"
harness_pg_start pga || die "PG-A did not start"
A_HOST=$PGHOST A_PORT=$PGPORT
log "PG-A on port $A_PORT, PG-B on port $B_PORT"

psql_a() { timeout "$LOAD_TIMEOUT" psql -X -q -v ON_ERROR_STOP=1 -h "$A_HOST" -p "$A_PORT" "$@"; }
psql_b() { timeout "$LOAD_TIMEOUT" psql -X -q -v ON_ERROR_STOP=1 -h "$B_HOST" -p "$B_PORT" "$@"; }

# --- schema ----------------------------------------------------------------------------
log "creating keyspace Bench in colfamd"
cat >"$H_TMP/schema.cli" <<'CLI'
create keyspace Bench with replication_factor = 1
    and placement_strategy = 'org.apache.cassandra.locator.SimpleStrategy';
use Bench;
create column family Wide with comparator = BytesType;
create column family Authors with comparator = BytesType;
create column family BlogEntries with comparator = BytesType;
create column family TaggedPosts with comparator = TimeUUIDType;
CLI
timeout 60 "$BIN/colfam" shell -h "$C_HOST" -p "$C_PORT" -f "$H_TMP/schema.cli" \
  >"$H_TMP/schema.log" 2>&1 || { cat "$H_TMP/schema.log" >&2; die "colfam shell failed"; }

NATIVE_DDL="
CREATE EXTENSION IF NOT EXISTS colfam_fdw;  -- the timeuuid type
CREATE SCHEMA native;
CREATE TABLE native.wide (key text COLLATE \"C\", column_name text COLLATE \"C\", value bytea);
CREATE TABLE native.authors (key text COLLATE \"C\" PRIMARY KEY, email text, twitter text, bio text);
CREATE TABLE native.blog_entries (key text COLLATE \"C\" PRIMARY KEY, title text, body text,
                                  author text, tags text, \"pubDate\" text);
CREATE TABLE native.tagged_posts (key text COLLATE \"C\", column_name timeuuid, value text,
                                  PRIMARY KEY (key, column_name));"
psql_b -c "$NATIVE_DDL"
psql_a -v hosts="$C_HOSTS" -v fetch="$FETCH" -v bhost="$B_HOST" -v bport="$B_PORT" <<SQL
$NATIVE_DDL
CREATE EXTENSION postgres_fdw;
CREATE SERVER bench FOREIGN DATA WRAPPER colfam_fdw
  OPTIONS (hosts :'hosts', keyspace 'Bench', fetch_size :'fetch');
CREATE SCHEMA colfam;
CREATE FOREIGN TABLE colfam.wide (key text COLLATE "C", column_name text COLLATE "C", value bytea)
  SERVER bench OPTIONS (column_family 'Wide');
CREATE FOREIGN TABLE colfam.authors (key text COLLATE "C", email text, twitter text, bio text)
  SERVER bench OPTIONS (column_family 'Authors', mapping 'rows');
CREATE FOREIGN TABLE colfam.blog_entries (key text COLLATE "C", title text, body text,
                                          author text, tags text, "pubDate" text)
  SERVER bench OPTIONS (column_family 'BlogEntries', mapping 'rows');
CREATE FOREIGN TABLE colfam.tagged_posts (key text COLLATE "C", column_name timeuuid, value text)
  SERVER bench OPTIONS (column_family 'TaggedPosts');
CREATE SERVER pgb FOREIGN DATA WRAPPER postgres_fdw
  OPTIONS (host :'bhost', port :'bport', dbname 'postgres', fetch_size :'fetch',
           extensions 'colfam_fdw');
CREATE USER MAPPING FOR CURRENT_USER SERVER pgb OPTIONS (user 'postgres');
CREATE SCHEMA pgfdw;
IMPORT FOREIGN SCHEMA native FROM SERVER pgb INTO pgfdw;
SQL

# --- data ------------------------------------------------------------------------------
T0=$SECONDS
log "loading Wide: $ROWS rows x $COLS columns of $VSIZE bytes with colfam stress --batch"
timeout "$LOAD_TIMEOUT" "$BIN/colfam" stress -h "$C_HOST" -p "$C_PORT" -k Bench \
  --column-family Wide -o insert --batch -t 2 -c "$COLS" -S "$VSIZE" -n "$ROWS" \
  --output json --interval 10 >"$H_TMP/stress.json" 2> >(sed 's/^/    /' >&2) ||
  { cat "$H_TMP/stress.json" >&2; die "colfam stress failed"; }
LOAD_STRESS=$((SECONDS - T0))

T0=$SECONDS
log "copying Wide out through colfam_fdw into $H_TMP/wide.copy (binary COPY)"
psql_a -c "COPY (SELECT key, column_name, value FROM colfam.wide) TO STDOUT (FORMAT binary)" \
  >"$H_TMP/wide.copy"
LOAD_EXPORT=$((SECONDS - T0))
T0=$SECONDS
log "COPY into native.wide on PG-A and PG-B, then the primary keys"
WIDE_LOAD="\\copy native.wide FROM '$H_TMP/wide.copy' (FORMAT binary)
ALTER TABLE native.wide ADD PRIMARY KEY (key, column_name);
VACUUM ANALYZE native.wide;"
psql_a <<<"$WIDE_LOAD" & pa=$!
psql_b <<<"$WIDE_LOAD" & pb=$!
wait "$pa" || die "loading native.wide on PG-A failed"
wait "$pb" || die "loading native.wide on PG-B failed"
rm -f "$H_TMP/wide.copy"
LOAD_NATIVE=$((SECONDS - T0))

log "generating the BloggyAppy data: $ENTRIES entries, $AUTHORS authors, 20 tags"
psql_a -v entries="$ENTRIES" -v authors="$AUTHORS" <<'SQL'
INSERT INTO native.authors
  SELECT 'author-' || a, 'author' || a || '@example.com', 'tw' || a, 'the bio of author ' || a
  FROM generate_series(1, :authors) a;
CREATE TEMP TABLE entry AS
  SELECT i, 'entry-' || lpad(i::text, 6, '0') AS slug,
         timestamptz '2010-01-01 00:00:00+00' + i * interval '1 minute' AS ts
  FROM generate_series(1, :entries) i;
INSERT INTO native.blog_entries
  SELECT slug, 'Entry number ' || i, repeat('the body of an entry. ', 10),
         'author-' || (1 + i % :authors), 'tag-' || i % 20 || ',tag-' || i * 7 % 20,
         extract(epoch FROM ts)::bigint::text
  FROM entry;
INSERT INTO native.tagged_posts
  SELECT DISTINCT t, min_timeuuid(ts), slug
  FROM entry, LATERAL (VALUES ('__notag__'), ('tag-' || i % 20), ('tag-' || i * 7 % 20)) v(t);
VACUUM ANALYZE native.authors, native.blog_entries, native.tagged_posts;
INSERT INTO colfam.authors SELECT * FROM native.authors;
INSERT INTO colfam.blog_entries SELECT * FROM native.blog_entries;
INSERT INTO colfam.tagged_posts SELECT * FROM native.tagged_posts;
SQL
for t in authors blog_entries tagged_posts; do
  psql_a -c "COPY native.$t TO STDOUT (FORMAT binary)" |
    psql_b -c "COPY native.$t FROM STDIN (FORMAT binary)"
done
psql_b -c "VACUUM ANALYZE native.authors, native.blog_entries, native.tagged_posts"
psql_a -c "ANALYZE pgfdw.wide, pgfdw.authors, pgfdw.blog_entries, pgfdw.tagged_posts"

log "checking that the three schemas hold the same data"
declare -A SUM
for s in "${SCHEMAS[@]}"; do
  SUM[$s]=$(psql_a -At <<SQL
SELECT count(*), sum(length(value)), md5(string_agg(md5(key || column_name || encode(value, 'hex')), '' ORDER BY key, column_name))
  FROM $s.wide WHERE key IN ('0000000', lpad(($ROWS / 2)::text, 7, '0'), lpad(($ROWS - 1)::text, 7, '0'));
SELECT count(*), md5(string_agg(t::text, '' ORDER BY key, column_name)) FROM $s.tagged_posts t;
SELECT count(*), md5(string_agg(e::text, '' ORDER BY key)) FROM $s.blog_entries e;
SELECT count(*), md5(string_agg(a::text, '' ORDER BY key)) FROM $s.authors a;
SQL
)
  [[ ${SUM[$s]} == "${SUM[native]}" ]] ||
    die "schema $s does not hold the native data: $(echo "${SUM[$s]}" | tr '\n' ' ') vs $(echo "${SUM[native]}" | tr '\n' ' ')"
done
NCOLS=$(psql_a -At -c "SELECT count(*) FROM native.wide")
((NCOLS == ROWS * COLS)) || die "native.wide holds $NCOLS columns, not $((ROWS * COLS))"

# --- workloads -------------------------------------------------------------------------
cat >"$H_TMP/slice.sql" <<SQL
\\set k random(0, $((ROWS - 1)))
SELECT column_name, value FROM wide WHERE key = lpad(:k::text, 7, '0')
ORDER BY column_name DESC LIMIT 10;
SQL
cat >"$H_TMP/scan.sql" <<'SQL'
SELECT count(*), sum(length(value)) FROM wide;
SQL
# postgres_fdw sends that whole aggregate to PG-B; OFFSET 0 keeps it in PG-A, so that
# the rows themselves cross (what colfam_fdw always does)
cat >"$H_TMP/scan-rows.sql" <<'SQL'
SELECT count(*), sum(length(value)) FROM (SELECT value FROM wide OFFSET 0) w;
SQL
FRONT_SQL="SELECT e.title, a.email
FROM tagged_posts t
JOIN blog_entries e ON e.key = t.value
JOIN authors a ON a.key = e.author
WHERE t.key = '__notag__'
ORDER BY t.column_name DESC
LIMIT 10;"
echo "$FRONT_SQL" >"$H_TMP/front.sql"

for s in "${SCHEMAS[@]}"; do
  {
    echo "-- $s"
    PGOPTIONS="-c search_path=$s,public" psql_a -c "EXPLAIN (VERBOSE, COSTS OFF)
      SELECT column_name, value FROM wide WHERE key = '0000042' ORDER BY column_name DESC LIMIT 10"
    PGOPTIONS="-c search_path=$s,public" psql_a -c "EXPLAIN (VERBOSE, COSTS OFF) $(cat "$H_TMP/scan.sql")"
    PGOPTIONS="-c search_path=$s,public" psql_a -c "EXPLAIN (VERBOSE, COSTS OFF) $FRONT_SQL"
  } >>"$H_TMP/explain.txt"
done

# CPU time (clock ticks) of PG-A, colfamd and PG-B: a postmaster's counts every
# backend that has exited (harness_cpu_ticks adds the reaped children's)
CLK_TCK=$(getconf CLK_TCK)
A_PM=$(head -n 1 "$H_TMP/pga/data/postmaster.pid") B_PM=$(head -n 1 "$H_TMP/pgb/data/postmaster.pid")
cpu_now() { echo "$(harness_cpu_ticks "$A_PM") $(harness_cpu_ticks "$C_PID") $(harness_cpu_ticks "$B_PM")"; }
declare -A CPU     # NAME → CPU ticks of PG-A, colfamd, PG-B during run NAME
# The children of both postmasters, one per line, sorted: a backend that has exited
# stays one until its postmaster reaps it (and only then is its CPU in cutime)
pm_children() { printf '%s\n' $(cat "/proc/$A_PM/task/$A_PM/children" "/proc/$B_PM/task/$B_PM/children") | sort; }
# wait_reaped CHILDREN NAME: waits until every child of a postmaster that is not in
# CHILDREN (pm_children before run NAME) has been reaped: PG-B's backends (postgres_fdw's
# connections) exit only after PG-A's. Gives up after 30 s with a warning.
wait_reaped() {
  local deadline=$((SECONDS + 30)) left
  while left=$(comm -13 <(echo "$1") <(pm_children)) && [[ -n $left ]]; do
    ((SECONDS < deadline)) ||
      { log "warning: backends ${left//$'\n'/ } not reaped 30s after run $2; their CPU is not in its figures"; return 0; }
    sleep 0.05
  done
}

# pgbench NAME SCHEMA ARGS...: a run with a per-transaction log; its latencies (µs) in
# $H_TMP/lat-NAME, its summary in $H_TMP/pgbench-NAME.out, the CPU its servers used
# in CPU[NAME]
run_pgbench() {
  local name=$1 schema=$2 dir=$H_TMP/log-$1 children before after
  shift 2
  mkdir -p "$dir"
  children=$(pm_children)
  before=$(cpu_now)
  PGOPTIONS="-c search_path=$schema,public" \
    timeout $((SECS * 4 + 600)) "$PG_BIN/pgbench" -n -h "$A_HOST" -p "$A_PORT" -l \
    --log-prefix="$dir/tx" "$@" postgres >"$H_TMP/pgbench-$name.out" 2>&1 ||
    { cat "$H_TMP/pgbench-$name.out" >&2; die "pgbench $name failed"; }
  wait_reaped "$children" "$name"
  after=$(cpu_now)
  CPU[$name]=$(echo "$before $after" | awk '{ print $4 - $1, $5 - $2, $6 - $3 }')
  cat "$dir"/tx* | awk '{ print $2, $3 }' >"$H_TMP/lat-$name"   # transaction_no, µs
  rm -rf "$dir"
}
txns_of() { awk '/^number of transactions actually processed: / { print $6; exit }' "$H_TMP/pgbench-$1.out"; }
# cpu_per NAME UNITS SCALE: CPU of PG-A, colfamd and PG-B during run NAME per unit, times
# SCALE (1e6: µs, 1e9: ns)
cpu_per() { echo "${CPU[$1]}" | awk -v t="$CLK_TCK" -v u="$2" -v k="$3" '{ printf "%.1f %.1f %.1f", $1 / t / u * k, $2 / t / u * k, $3 / t / u * k }'; }
tps_of() { awk '/^tps = / { printf "%.1f", $3; exit }' "$H_TMP/pgbench-$1.out"; }
# percentile P (0..100) of the latencies of run NAME, in ms
pct_ms() {
  awk '{ print $2 }' "$H_TMP/lat-$1" | sort -n |
    awk -v p="$2" '{ a[NR] = $1 } END { i = int((NR - 1) * p / 100) + 1; printf "%.3f", a[i] / 1000 }'
}
mean_ms() { awk '{ n++; t += $2 } END { printf "%.3f", t / n / 1000 }' "$H_TMP/lat-$1"; }

# run_scans NAME SCHEMA ROUND FILE: one warm-up and SCANS timed runs of FILE, one client;
# rows/s of each timed run in R[NAME.SCHEMA.ROUND]
run_scans() {
  local name=$1 s=$2 r=$3
  run_pgbench "$name-$s-$r" "$s" -M prepared -c 1 -t $((SCANS + 1)) -f "$4"
  R[c$name.$s.$r]=$(cpu_per "$name-$s-$r" $((NCOLS * (SCANS + 1))) 1e9)
  R[$name.$s.$r]=$(sort -n -k1,1 "$H_TMP/lat-$name-$s-$r" | tail -n +2 |
                   awk -v n="$NCOLS" '$2 > 0 { printf "%.0f\n", n * 1e6 / $2 }' | sort -n | tr '\n' ' ')
  log "  rows/s of each run: ${R[$name.$s.$r]}"
}

declare -A R
for ((r = 1; r <= ROUNDS; r++)); do
  for s in "${SCHEMAS[@]}"; do
    log "round $r, $s: (a) slice, $CLIENTS clients, ${SECS}s"
    run_pgbench "slice-$s-$r" "$s" -M prepared -c "$CLIENTS" -j "$CLIENTS" -T "$SECS" -f "$H_TMP/slice.sql"
    R[slice.$s.$r]=$(tps_of "slice-$s-$r")
    R[cslice.$s.$r]=$(cpu_per "slice-$s-$r" "$(txns_of "slice-$s-$r")" 1e6)
    log "  $(printf '%.0f' "${R[slice.$s.$r]}") tps, p50 $(pct_ms "slice-$s-$r" 50) ms"
    log "round $r, $s: (b) scan, 1 warm-up + $SCANS timed runs"
    run_scans scan "$s" "$r" "$H_TMP/scan.sql"
    if [[ $s == pgfdw ]]; then
      log "round $r, $s: (b) scan with the rows shipped (OFFSET 0), 1 warm-up + $SCANS timed runs"
      run_scans scanrows "$s" "$r" "$H_TMP/scan-rows.sql"
    fi
    log "round $r, $s: (c) front page, $CLIENTS clients, ${SECS}s"
    run_pgbench "front-$s-$r" "$s" -M prepared -c "$CLIENTS" -j "$CLIENTS" -T "$SECS" -f "$H_TMP/front.sql"
    R[front.$s.$r]="$(mean_ms "front-$s-$r") $(pct_ms "front-$s-$r" 50) $(pct_ms "front-$s-$r" 99) $(tps_of "front-$s-$r")"
    R[cfront.$s.$r]=$(cpu_per "front-$s-$r" "$(txns_of "front-$s-$r")" 1e6)
    log "  latency avg, p50, p99 (ms), tps: ${R[front.$s.$r]}"
  done
done
kill -0 "$C_PID" 2>/dev/null || die "colfamd exited during the run"

# --- report ---------------------------------------------------------------------------
# min–max of the numbers in "$@" with FMT
range() { printf '%s\n' $2 | sort -g | awk -v f="$1" 'NR == 1 { lo = $1 } { hi = $1 } END { printf f, lo; if (hi != lo) { printf "–"; printf f, hi } }'; }
median() { printf '%s\n' "$@" | sort -g | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
col() { local w=$1 s=$2 f=$3 r out=; for ((r = 1; r <= ROUNDS; r++)); do out+="$(echo "${R[$w.$s.$r]}" | awk -v f="$f" '{ print $f }') "; done; echo "$out"; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f×", a / b }'; }
all_scans() { local s=$1 w=${2:-scan} r out=; for ((r = 1; r <= ROUNDS; r++)); do out+="${R[$w.$s.$r]} "; done; echo "$out"; }

declare -A MED
for s in "${SCHEMAS[@]}"; do
  MED[slice.$s]=$(median $(col slice "$s" 1))
  MED[scan.$s]=$(median $(all_scans "$s"))
  [[ $s != pgfdw ]] || MED[scanrows.$s]=$(median $(all_scans "$s" scanrows))
  MED[front.$s]=$(median $(col front "$s" 1))
  MED[front50.$s]=$(median $(col front "$s" 2))
done
mkdir -p "$(dirname "$OUT")"
{
  echo "# colfam_fdw vs a native table vs postgres_fdw under pgbench"
  echo
  echo "Machine: $(nproc) CPUs, $(harness_cpu_model), $(awk '/^MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo);" \
       "Linux $(uname -r); $(psql_a -At -c 'SELECT version()' | cut -d, -f1); $("$BIN/colfamd" -V 2>/dev/null | head -n 1)."
  echo "colfamd, both PostgreSQL servers and pgbench share the CPUs (other work on the machine adds noise)." \
       "colfam_fdw is this tree's build ($(git rev-parse --short HEAD 2>/dev/null || echo '?')$(git diff --quiet HEAD -- fdw engine/client 2>/dev/null || echo ', with uncommitted changes')), loaded from a private copy of the installation."
  echo
  echo "Data: Wide, $ROWS rows × $COLS columns = $NCOLS columns of $VSIZE-byte values (keys 0000000…," \
       "names C0…C$((COLS - 1)), BytesType), in colfamd (one batch_mutate per row, colfam stress)," \
       "in native.wide (key, column_name, value bytea, PRIMARY KEY (key, column_name)) on PG-A and on PG-B;" \
       "BloggyAppy-shaped: $ENTRIES BlogEntries, $AUTHORS Authors," \
       "$(psql_a -At -c 'SELECT count(*) FROM native.tagged_posts') TaggedPosts columns (20 tags and __notag__)." \
       "Checked identical across the three schemas before measuring."
  echo "Load: stress ${LOAD_STRESS}s; COPY out through colfam_fdw ${LOAD_EXPORT}s; COPY into both native copies with their primary keys ${LOAD_NATIVE}s."
  echo
  echo "Transports: colfam_fdw → colfamd over $( [[ $TRANSPORT == unix ]] && echo "colfamd's unix socket (rpc_unix_socket)" || echo "TCP on loopback ($C_HOST)");" \
       "postgres_fdw → PG-B over PG-B's unix socket directory; pgbench → PG-A over PG-A's unix socket directory."
  echo
  echo "colfamd: rpc_io_cpus $IO_CPUS ($( [[ $IO_CPUS == none ]] && echo "event loops unpinned" || echo "event loops pinned, loop i to the i-th CPU"))."
  echo
  echo "Settings: fetch_size $FETCH on both the colfam_fdw and the postgres_fdw server (postgres_fdw" \
       "with extensions 'colfam_fdw', so timeuuid operators ship); PostgreSQL: shared_buffers 256MB," \
       "work_mem 16MB, fsync off, parallel query at its defaults; pgbench -n -M prepared," \
       "$CLIENTS clients (-j $CLIENTS), ${SECS}s a run for (a) and (c); (b) one client, one warm-up" \
       "and $SCANS timed runs. $ROUNDS rounds, each over native, colfam, pgfdw in turn; ranges are" \
       "min–max over rounds, ratios use medians."
  echo
  echo "| workload | native | colfam_fdw | postgres_fdw | colfam / native | colfam / postgres_fdw | target |"
  echo "|---|---:|---:|---:|---:|---:|---|"
  echo "| (a) slice, key = \$1 ORDER BY column_name DESC LIMIT 10, tps | $(range %.0f "$(col slice native 1)") | $(range %.0f "$(col slice colfam 1)") | $(range %.0f "$(col slice pgfdw 1)") | $(ratio "${MED[slice.colfam]}" "${MED[slice.native]}") | $(ratio "${MED[slice.colfam]}" "${MED[slice.pgfdw]}") | ≥ 0.70× native, ≥ 2× postgres_fdw |"
  echo "| (b) full scan count(*), sum(length(value)), rows/s | $(range %.0f "$(all_scans native)") | $(range %.0f "$(all_scans colfam)") | $(range %.0f "$(all_scans pgfdw)") | $(ratio "${MED[scan.colfam]}" "${MED[scan.native]}") | $(ratio "${MED[scan.colfam]}" "${MED[scan.pgfdw]}") | ≥ 0.50× native, ≥ 2× postgres_fdw |"
  echo "| (b) the same, postgres_fdw shipping the rows (OFFSET 0), rows/s | | | $(range %.0f "$(all_scans pgfdw scanrows)") | | $(ratio "${MED[scan.colfam]}" "${MED[scanrows.pgfdw]}") | |"
  echo "| (c) front page, latency avg ms | $(range %.3f "$(col front native 1)") | $(range %.3f "$(col front colfam 1)") | $(range %.3f "$(col front pgfdw 1)") | $(ratio "${MED[front.colfam]}" "${MED[front.native]}") | $(ratio "${MED[front.colfam]}" "${MED[front.pgfdw]}") | ≤ 2× native latency |"
  echo "| (c) front page, latency p50 ms | $(range %.3f "$(col front native 2)") | $(range %.3f "$(col front colfam 2)") | $(range %.3f "$(col front pgfdw 2)") | $(ratio "${MED[front50.colfam]}" "${MED[front50.native]}") | | |"
  echo "| (c) front page, latency p99 ms | $(range %.3f "$(col front native 3)") | $(range %.3f "$(col front colfam 3)") | $(range %.3f "$(col front pgfdw 3)") | | | |"
  echo "| (c) front page, tps | $(range %.0f "$(col front native 4)") | $(range %.0f "$(col front colfam 4)") | $(range %.0f "$(col front pgfdw 4)") | | | |"
  echo
  echo "CPU the servers used, per transaction of (a) and (c) and per row of (b) (warm-up included):" \
       "utime+stime of colfamd, and of each PostgreSQL's postmaster with its exited children (the" \
       "backends); medians over rounds. pgbench's own CPU is not counted. Where the time goes:"
  echo
  echo "| workload | schema | PG-A | colfamd | PG-B |"
  echo "|---|---|---:|---:|---:|"
  for w in "slice:(a) slice, µs/transaction" "scan:(b) full scan, ns/row" "scanrows:(b) rows shipped, ns/row" "front:(c) front page, µs/transaction"; do
    for s in "${SCHEMAS[@]}"; do
      [[ ${w%%:*} != scanrows || $s == pgfdw ]] || continue
      echo "| ${w#*:} | $s | $(median $(col "c${w%%:*}" "$s" 1)) | $(median $(col "c${w%%:*}" "$s" 2)) | $(median $(col "c${w%%:*}" "$s" 3)) |"
    done
  done
  echo
  echo "Against the targets (medians):"
  awk -v a="${MED[slice.colfam]}" -v n="${MED[slice.native]}" -v p="${MED[slice.pgfdw]}" 'BEGIN {
    printf "- (a) %.2f× native (%s 0.70×), %.2f× postgres_fdw (%s 2×)\n", a / n, (a / n >= 0.7 ? "meets" : "misses"), a / p, (a / p >= 2 ? "meets" : "misses") }'
  awk -v a="${MED[scan.colfam]}" -v n="${MED[scan.native]}" -v p="${MED[scan.pgfdw]}" -v q="${MED[scanrows.pgfdw]}" 'BEGIN {
    printf "- (b) %.2f× native (%s 0.50×), %.2f× postgres_fdw (%s 2×; postgres_fdw runs the aggregate on PG-B),", a / n, (a / n >= 0.5 ? "meets" : "misses"), a / p, (a / p >= 2 ? "meets" : "misses")
    printf " %.2f× postgres_fdw shipping the rows (%s 2×)\n", a / q, (a / q >= 2 ? "meets" : "misses") }'
  awk -v a="${MED[front.colfam]}" -v n="${MED[front.native]}" 'BEGIN {
    printf "- (c) %.2f× native latency (%s ≤ 2×)\n", a / n, (a / n <= 2 ? "meets" : "misses") }'
  echo
  echo "Plans (EXPLAIN VERBOSE, COSTS OFF) of (a) for one key, (b) and (c), per schema:"
  echo
  echo '```'
  sed "s|$H_TMP|\$TMP|g" "$H_TMP/explain.txt"
  echo '```'
  echo
  echo "Workload scripts (search_path set to the schema by PGOPTIONS):"
  echo
  echo '```sql'
  cat "$H_TMP/slice.sql" "$H_TMP/scan.sql" "$H_TMP/scan-rows.sql" "$H_TMP/front.sql"
  echo '```'
} >"$OUT.tmp"
mv "$OUT.tmp" "$OUT"
log "report in $OUT"
cat "$OUT"
