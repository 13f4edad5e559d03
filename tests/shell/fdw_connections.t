# tests/shell/fdw_connections.t — colfam_fdw's connections end to end, from SQL, in a
# private PostgreSQL that loads this tree's colfam_fdw.so (an overlay: nothing is
# installed) against colfamd nodes this test starts and stops:
#  - failover: a closed port, a stale unix socket and a host that never completes the
#    TCP handshake (bounded by connect_timeout) before the live host;
#  - reconnect: colfamd killed and restarted on the same port, socket and data, under a
#    backend that keeps its cached connection; the error while it is down (SQLSTATE
#    HV00N, with a hint), no hang;
#  - cancel: statement_timeout and pg_cancel_backend during a long foreign scan, and
#    during a call colfamd never answers (SIGSTOP), end with 57014 within 2 s; the same
#    backend then reads the right values (no stale reply taken for the next answer);
#    a server's io_timeout ends that wait without a cancel: 08006 with a hint;
#  - a column family dropped while a scan pages: an ERROR naming it, then recovery;
#  - passwords (colfamd with SimpleAuthenticator): a wrong one is SQLSTATE 28000 with a
#    hint; no password in pg_user_mappings or \deu+ for others, in EXPLAIN VERBOSE, in
#    error messages, or in either server's log.
. "$COLFAM_ROOT/tests/shell/tap.sh"
. "$COLFAM_ROOT/tests/lib/harness.sh"
harness_init
B=$COLFAM_ROOT/build/release/bin
PY=/usr/bin/python3
harness_skip_without_fdw
tap_plan 40

host=127.0.0.43
auth_host=127.0.0.44
sock=$H_TMP/colfamd.sock
good_pw='pw-Zq8rT3-good'
bad_pw='pw-Xk2wQ7-wrong'

harness_pg_overlay || { echo "Bail out! no colfam_fdw.so to test (make)"; exit 1; }
harness_pg_start pg || { echo "Bail out! PostgreSQL did not start"; exit 1; }
pglogs=("$H_TMP"/pg/*.log)

# ---- colfamd, and its data: Conn.Small (5 rows x 3 columns), Conn.Doomed (300 rows),
# Conn.Wide (1000 rows x 100 columns, by colfam stress)
harness_colfamd node $host "$B/colfamd" --rpc_unix_socket "$sock" --rpc_unix_socket_mode 0777 ||
  { echo "Bail out! colfamd did not start"; exit 1; }
cpid=$H_PID port=$H_PORT ccmd=("${H_CMD[@]}")
{
  echo "create keyspace Conn with replication_factor = 1"
  echo "  and placement_strategy = 'org.apache.cassandra.locator.SimpleStrategy';"
  echo "use Conn;"
  echo "create column family Small with comparator = UTF8Type and default_validation_class = UTF8Type;"
  echo "create column family Doomed with comparator = UTF8Type and default_validation_class = UTF8Type;"
  for k in 1 2 3 4 5; do
    for c in 1 2 3; do echo "set Small['k$k']['c$c'] = 'v$k-$c';"; done
  done
  for k in $(seq 1 300); do echo "set Doomed['d$k']['c'] = 'x';"; done
} >"$H_TMP/conn.cli"
"$B/colfam" shell -h $host -p "$port" -f "$H_TMP/conn.cli" >"$H_TMP/load.log" 2>&1 &&
  "$B/colfam" stress -h $host -p "$port" -k Conn --column-family Wide -o insert --batch \
    -t 2 -c 100 -n 1000 -S 34 >>"$H_TMP/load.log" 2>&1 ||
  { sed 's/^/# /' "$H_TMP/load.log"; echo "Bail out! loading colfamd failed"; exit 1; }

# restart_colfamd SIGNAL: stops colfamd with SIGNAL (waiting at most 10 s, then
# SIGKILL and a failure), then starts it again with the same command line (port, unix
# socket, data and commit log directories).
restart_colfamd() {
  local i
  kill -"$1" "$cpid"
  for ((i = 0; i < 100; i++)); do
    kill -0 "$cpid" 2>/dev/null || break
    sleep 0.1
  done
  if kill -0 "$cpid" 2>/dev/null; then
    echo "# colfamd (pid $cpid) did not exit within 10 s of SIG$1"
    { kill -KILL "$cpid"; wait "$cpid"; } 2>/dev/null
    start_colfamd_again
    return 1
  fi
  wait "$cpid" 2>/dev/null
  start_colfamd_again
}
# stop_colfamd: SIGSTOP, and waits (at most 5 s) until every thread of it has stopped
stop_colfamd() {
  local i
  kill -STOP "$cpid"
  for ((i = 0; i < 500; i++)); do
    ! grep -qv '^[^)]*) [tT]' /proc/"$cpid"/task/*/stat 2>/dev/null && return 0
    sleep 0.01
  done
  echo "# colfamd (pid $cpid) did not stop within 5 s"
}
start_colfamd_again() {
  harness_spawn node-again "${ccmd[@]}"
  cpid=$H_PID
  harness_wait_tcp $host "$port" 30 "$cpid"
}

# ---- psql sessions that stay open (one backend each), driven through a fifo
# sess_open NAME [ROLE]; q NAME SQL: runs SQL, waits (at most 30 s) for it to end and
# sets $out (what it printed, errors included), $st (its SQLSTATE) and $ms (elapsed ms).
# q_send/q_wait split q, for cancelling a statement while it runs.
declare -A S_FD S_OFF S_N S_T0
sess_open() {
  local name=$1 role=${2:-postgres} fd
  mkfifo "$H_TMP/$name.in"
  : >"$H_TMP/$name.out"   # there before psql opens it, for q_wait's grep
  (harness_close_fds; exec stdbuf -oL -eL psql -X -q -A -t -v VERBOSITY=verbose -U "$role" \
     <"$H_TMP/$name.in" >"$H_TMP/$name.out" 2>&1) &
  harness_on_exit "harness_stop_pid $! psql-$name"
  exec {fd}>"$H_TMP/$name.in"
  harness_on_exit "exec $fd>&-"
  S_FD[$name]=$fd S_OFF[$name]=0 S_N[$name]=0
}
q_send() {
  local name=$1
  S_N[$name]=$((S_N[$name] + 1))
  S_T0[$name]=${EPOCHREALTIME/./}
  printf '%s\n\\echo @@%d :SQLSTATE\n' "$2" "${S_N[$name]}" >&"${S_FD[$name]}"
}
q_wait() {
  local name=$1 f=$H_TMP/$1.out i line
  for ((i = 0; i < 3000; i++)); do
    line=$(grep -a "^@@${S_N[$name]} " "$f") && break
    sleep 0.01
  done
  ms=$(( (${EPOCHREALTIME/./} - S_T0[$name]) / 1000 ))
  out=$(tail -c +$((S_OFF[$name] + 1)) "$f" | grep -av '^@@')
  S_OFF[$name]=$(stat -c %s "$f")
  st=${line#* }
  [[ -n $line ]] || { st=HUNG; echo "# session $name: no answer within 30 s"; }
}
q() { q_send "$1" "$2"; q_wait "$1"; }
# show: the last statement's output as TAP comments (after a failed check)
show() { printf '#   [%s, %d ms]\n' "$st" "$ms"; sed 's/^/#   | /' <<<"$out"; }
# check COND DESCRIPTION: tap_ok, with the last output shown when it fails
check() { if eval "$1"; then tap_ok 0 "$2"; else tap_ok 1 "$2"; show; fi; }
# fserver NAME HOSTS [OPTIONS]: CREATE SERVER NAME over HOSTS, keyspace Conn
fserver() {
  printf "CREATE SERVER %s FOREIGN DATA WRAPPER colfam_fdw\n  OPTIONS (hosts '%s', keyspace 'Conn'%s);\n" \
    "$1" "$2" "${3:+, $3}"
}
# ftable NAME SERVER CF [OPTIONS]: CREATE FOREIGN TABLE NAME over CF, 'columns' mapping
ftable() {
  printf 'CREATE FOREIGN TABLE %s (key text COLLATE "C", column_name text COLLATE "C", value text)\n  SERVER %s OPTIONS (column_family %s%s);\n' \
    "$1" "$2" "'$3'" "${4:+, $4}"
}
# psql1 ROLE SQL: a one-off session; output (errors included) in $out
psql1() { out=$(psql -X -q -A -t -v VERBOSITY=verbose -U "$1" -c "$2" 2>&1); }

sess_open s
q s "CREATE EXTENSION colfam_fdw;
$(fserver live "$host:$port" "connect_timeout '1s'")
$(fserver live_unix "$sock" "connect_timeout '1s'")
$(ftable small live Small)
$(ftable small_unix live_unix Small)
$(ftable doomed live Doomed "fetch_size '10'")
CREATE FOREIGN TABLE wide (key text COLLATE \"C\", column_name bytea, value bytea)
  SERVER live OPTIONS (column_family 'Wide');"
[[ $st == 00000 ]] || { show; echo "Bail out! setting up the foreign tables failed"; exit 1; }

# ---- failover along the hosts option
dead_port=$(harness_free_port $host)
$PY -c 'import socket,sys; s=socket.socket(socket.AF_UNIX); s.bind(sys.argv[1])' "$H_TMP/stale.sock"
# a host whose accept queue is full: its SYNs go unanswered, so connect() waits
$PY - "$host" >"$H_TMP/blackhole.port" 2>"$H_TMP/blackhole.err" <<'PY' &
import socket, sys, time
l = socket.socket(); l.bind((sys.argv[1], 0)); l.listen(0)
fill = []
for _ in range(3):
    c = socket.socket(); c.setblocking(False)
    try: c.connect(l.getsockname())
    except BlockingIOError: pass
    fill.append(c)
time.sleep(0.3)
print(l.getsockname()[1], flush=True)
time.sleep(300)
PY
harness_on_exit "harness_stop_pid $! blackhole"
for ((i = 0; i < 100; i++)); do [[ -s $H_TMP/blackhole.port ]] && break; sleep 0.05; done
bh_port=$(cat "$H_TMP/blackhole.port")
q s "$(fserver fo_tcp "$host:$dead_port, $host:$port")
$(fserver fo_unix "$H_TMP/stale.sock, $sock")
$(fserver fo_slow "$host:$bh_port, $host:$port" "connect_timeout '500ms'")
$(fserver only_slow "$host:$bh_port" "connect_timeout '500ms'")
$(ftable fo_tcp fo_tcp Small)
$(ftable fo_unix fo_unix Small)
$(ftable fo_slow fo_slow Small)
$(ftable only_slow only_slow Small)"
for t in fo_tcp fo_unix; do
  sess_open "f_$t"
  q "f_$t" "SELECT string_agg(value, ',' ORDER BY key) FROM $t WHERE column_name = 'c2';"
  check '[[ $st == 00000 && $out == v1-2,v2-2,v3-2,v4-2,v5-2 ]]' \
    "failover: $t (a dead host first) answers ($ms ms)"
  echo "# failover $t: first query, connect included: $ms ms"
done
sess_open f_slow
q f_slow "SELECT value FROM fo_slow WHERE key = 'k4' AND column_name = 'c3';"
check '[[ $st == 00000 && $out == v4-3 && $ms -ge 450 && $ms -lt 2000 ]]' \
  "failover past a host that never accepts takes about connect_timeout ($ms ms)"
q f_slow "SELECT value FROM fo_slow WHERE key = 'k4' AND column_name = 'c1';"
check '[[ $st == 00000 && $out == v4-1 && $ms -lt 400 ]]' \
  "the next query reuses the cached connection ($ms ms)"
q f_slow "SELECT value FROM only_slow WHERE key = 'k4';"
check '[[ $st != 00000 && $st != HUNG && $ms -lt 2000 && $out == *"HINT:"* ]]' \
  "a host that never accepts, alone: an ERROR ($st) with a hint within 2 s ($ms ms)"
q s "EXPLAIN (VERBOSE, COSTS OFF) SELECT * FROM fo_tcp WHERE key = 'k1';"
check '[[ $st == 00000 && $out == *"Foreign Scan"* ]]' "EXPLAIN VERBOSE over a failover server"

# ---- reconnect: the same backend before and after colfamd restarts
sess_open r
q r "SELECT value FROM small WHERE key = 'k2' AND column_name = 'c1';"
q r "SELECT value FROM small_unix WHERE key = 'k2' AND column_name = 'c2';"
check '[[ $st == 00000 && $out == v2-2 ]]' "reconnect: both connections are up"
restart_colfamd TERM
rc=$?
check '[[ $rc == 0 ]]' "colfamd stopped (SIGTERM) and started again on the same port"
q r "SELECT value FROM small WHERE key = 'k3' AND column_name = 'c1';"
check '[[ $st == 00000 && $out == v3-1 ]]' "TCP: the next query in the same backend answers, no error"
q r "SELECT value FROM small_unix WHERE key = 'k3' AND column_name = 'c2';"
check '[[ $st == 00000 && $out == v3-2 ]]' "unix socket: the next query in the same backend answers, no error"
{ kill -KILL "$cpid"; wait "$cpid"; } 2>/dev/null   # no "Killed" notice
q r "SELECT value FROM small WHERE key = 'k3';"
check '[[ $st == HV00N && $ms -lt 2000 && $out == *"colfamd: "*"'"$host:$port"'"* &&
        $out == *"HINT:  Check that colfamd runs"* ]]' \
  "while colfamd is down: HV00N naming the host, with a hint, at once ($ms ms)"
q r "SELECT value FROM small_unix WHERE key = 'k3';"
check '[[ $st == HV00N && $ms -lt 2000 && $out == *"'"$sock"'"* && $out == *"HINT:"* ]]' \
  "the unix socket too: HV00N naming the socket ($ms ms)"
start_colfamd_again
rc=$?
check '[[ $rc == 0 ]]' "colfamd (killed: SIGKILL) started again on the same port and socket"
q r "SELECT value FROM small WHERE key = 'k5' AND column_name = 'c3';"
check '[[ $st == 00000 && $out == v5-3 ]]' "after the restart the same backend reconnects (TCP)"
q r "SELECT value FROM small_unix WHERE key = 'k5' AND column_name = 'c1';"
check '[[ $st == 00000 && $out == v5-1 ]]' "after the restart the same backend reconnects (unix socket)"

# ---- cancel
# A long scan: the whole of Wide (100,000 cells) again for each of 10,000 outer rows.
long="SELECT sum(n) FROM generate_series(1, 10000) g,
  LATERAL (SELECT count(*) AS n FROM wide WHERE g > 0) w;"
small_check="SELECT string_agg(key || '=' || value, ',' ORDER BY key) FROM small WHERE column_name = 'c1';"
small_want=k1=v1-1,k2=v2-1,k3=v3-1,k4=v4-1,k5=v5-1
sess_open c
q c "SELECT count(*) FROM wide WHERE key = '0000007';"
check '[[ $st == 00000 && $out == 100 ]]' "cancel: the session reads Wide"
q c "SET statement_timeout = '300ms'; $long"
check '[[ $st == 57014 && $ms -lt 2000 ]]' "statement_timeout 300ms ends a long foreign scan: 57014 ($ms ms)"
echo "# cancel by statement_timeout 300ms: $ms ms"
q c "RESET statement_timeout; $small_check"
check '[[ $st == 00000 && $out == "$small_want" ]]' "then the same backend reads the right values"
q c "SELECT pg_backend_pid();"
cpg=$out
# cancel_after SECS SQL: runs SQL in session c, and pg_cancel_backend from another
# session SECS later; $ms: from the start of that session to c's answer
cancel_after() {
  local t0
  q_send c "$2"
  sleep "$1"
  t0=${EPOCHREALTIME/./}
  psql1 postgres "SELECT pg_cancel_backend($cpg);"
  q_wait c
  ms=$(( (${EPOCHREALTIME/./} - t0) / 1000 ))
}
cancel_after 0.7 "$long"
check '[[ $st == 57014 && $ms -lt 2000 ]]' "pg_cancel_backend ends a long foreign scan: 57014 ($ms ms after the cancel)"
echo "# cancel by pg_cancel_backend: $ms ms"
q c "$small_check"
check '[[ $st == 00000 && $out == "$small_want" ]]' "then the same backend reads the right values"
# a call colfamd never answers (stopped): only the cancel can end it before io_timeout
stop_colfamd
q c "SET statement_timeout = '300ms'; SELECT value FROM small WHERE key = 'k1' AND column_name = 'c2';"
kill -CONT "$cpid"
check '[[ $st == 57014 && $ms -lt 2000 ]]' "statement_timeout ends a wait for a stopped colfamd: 57014 ($ms ms)"
q c "RESET statement_timeout; SELECT value FROM small WHERE key = 'k2' AND column_name = 'c3';"
check '[[ $st == 00000 && $out == v2-3 ]]' "after SIGCONT the next answer is this query's, not the stale reply"
stop_colfamd
cancel_after 0.5 "SELECT value FROM small WHERE key = 'k1' AND column_name = 'c3';"
kill -CONT "$cpid"
check '[[ $st == 57014 && $ms -lt 2000 ]]' "pg_cancel_backend ends a wait for a stopped colfamd: 57014 ($ms ms)"
q c "$small_check"
check '[[ $st == 00000 && $out == "$small_want" ]]' "then the same backend reads the right values"
# without a cancel, the server's io_timeout ends it (10s unless set)
q c "$(fserver quick "$host:$port" "io_timeout '400ms'")
$(ftable small_quick quick Small)"
stop_colfamd
q c "SELECT value FROM small_quick WHERE key = 'k1' AND column_name = 'c2';"
kill -CONT "$cpid"
check '[[ $st == 08006 && $ms -ge 350 && $ms -lt 2500 && $out == *"no progress in 400 ms"* && $out == *io_timeout* ]]' \
  "io_timeout 400ms ends a wait for a stopped colfamd: 08006, the hint naming io_timeout ($ms ms)"
q c "SELECT value FROM small_quick WHERE key = 'k2' AND column_name = 'c3';"
check '[[ $st == 00000 && $out == v2-3 ]]' "after SIGCONT the same server reads the right value"

# ---- a column family dropped while a scan pages through it (10 rows a page)
sess_open d
q_send d "SELECT count(*) FROM (SELECT key, pg_sleep(0.01) FROM doomed) x;"
sleep 0.6
printf 'use Conn;\ndrop column family Doomed;\n' |
  "$B/colfam" shell -h $host -p "$port" --batch >"$H_TMP/drop.log" 2>&1
rc=$?
check '[[ $rc == 0 ]]' "colfam shell drops Conn.Doomed during the scan"
q_wait d
check '[[ $st != 00000 && $st != HUNG && $out == *"ERROR:"* && $out == *Doomed* ]]' \
  "the scan ends with an ERROR naming the column family ($st)"
q d "SELECT count(*) FROM doomed;"
check '[[ $st == HV00R && $out == *'"'"'column family "Doomed" does not exist in keyspace "Conn"'"'"'* ]]' \
  "the next scan of it: HV00R, the CF named (metadata described again)"
q d "$small_check"
check '[[ $st == 00000 && $out == "$small_want" ]]' "and the backend goes on reading the other CFs"

# ---- passwords: colfamd with SimpleAuthenticator
hash=$(openssl passwd -6 -salt fdwconn1 "$good_pw")
printf 'alice=%s\n' "$hash" >"$H_TMP/passwd.properties"
printf '<modify-keyspaces>=alice\nSec.<rw>=alice\n' >"$H_TMP/access.properties"
harness_colfamd auth $auth_host "$B/colfamd" --authenticator SimpleAuthenticator \
  --authority SimpleAuthority --auth_passwd_file "$H_TMP/passwd.properties" \
  --auth_access_file "$H_TMP/access.properties"
auth_port=$H_PORT
printf '%s\n' "create keyspace Sec with replication_factor = 1" \
  "  and placement_strategy = 'org.apache.cassandra.locator.SimpleStrategy';" "use Sec;" \
  "create column family Small with comparator = UTF8Type and default_validation_class = UTF8Type;" \
  "set Small['s1']['c'] = 'secret-data';" >"$H_TMP/sec.cli"
"$B/colfam" shell -h $auth_host -p "$auth_port" -u alice -P "$good_pw" -f "$H_TMP/sec.cli" \
  >"$H_TMP/sec-load.log" 2>&1
rc=$?
check '[[ $rc == 0 ]]' "colfamd with SimpleAuthenticator: alice creates Sec.Small"
q s "CREATE SERVER sec FOREIGN DATA WRAPPER colfam_fdw
  OPTIONS (hosts '$auth_host:$auth_port', keyspace 'Sec');
CREATE ROLE app LOGIN; CREATE ROLE badapp LOGIN; CREATE ROLE snoop LOGIN;
GRANT USAGE ON FOREIGN SERVER sec TO app, badapp, snoop;
CREATE USER MAPPING FOR app SERVER sec OPTIONS (username 'alice', password '$good_pw');
CREATE USER MAPPING FOR badapp SERVER sec OPTIONS (username 'alice', password '$bad_pw');
$(ftable sec_small sec Small)
GRANT SELECT ON sec_small TO app, badapp, snoop;"
check '[[ $st == 00000 ]]' "a server with two user mappings, for roles app and badapp"
psql1 app "SELECT value FROM sec_small WHERE key = 's1';"
check '[[ $out == secret-data ]]' "app (the right password) reads"
all=$out
psql1 app "EXPLAIN (VERBOSE, COSTS OFF) SELECT value FROM sec_small WHERE key = 's1';"
check '[[ $out == *"Foreign Scan"* && $out != *"$good_pw"* ]]' "EXPLAIN VERBOSE shows no password"
all+=$out
psql1 badapp "SELECT value FROM sec_small WHERE key = 's1';"
bad_out=$out
all+=$out
check '[[ $bad_out == *"ERROR:  28000: colfamd: "* && $bad_out == *"HINT:  Check username and password of the user mapping"* ]]' \
  "a wrong password: SQLSTATE 28000 with a hint"
psql1 snoop "SELECT value FROM sec_small WHERE key = 's1';"
all+=$out
check '[[ $out == *"ERROR:  28000: "* && $out == *HINT:* ]]' \
  "no user mapping against a server that requires login: 28000 with a hint"
psql1 snoop "SELECT usename, coalesce(array_to_string(umoptions, ','), '<hidden>') FROM pg_user_mappings WHERE srvname = 'sec' ORDER BY 1;"
check '[[ $out == $'"'"'app|<hidden>\nbadapp|<hidden>'"'"' ]]' "pg_user_mappings hides the options from another role"
out=$(psql -X -U snoop -c '\deu+' 2>&1)
check '[[ $out == *app* && $out != *pw-* ]]' "\\deu+ shows another role's mapping without its password"
all+=$out
check '[[ $all != *"$good_pw"* && $all != *"$bad_pw"* ]]' "no password in any message or output above"
sleep 0.3   # the log collector has written the errors
! grep -qF -e "$good_pw" -e "$bad_pw" "${pglogs[@]}" "$H_TMP"/auth.log "$H_TMP"/node*.log &&
  grep -q "authentication failed" "${pglogs[@]}"
rc=$?
check '[[ $rc == 0 ]]' "the PostgreSQL log (with the failed login) and colfamd's logs hold no password"
