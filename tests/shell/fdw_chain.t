# tests/shell/fdw_chain.t — colfam_fdw's join chains against a colfamd that does not
# know colfam_multiget_chain (an older colfamd, or a Cassandra 0.7): a proxy in front of
# colfamd answers that one method with a TApplicationException UNKNOWN_METHOD and
# forwards every other frame untouched. The front page through it must give the rows it
# gives against colfamd itself, with no chain sent (EXPLAIN ANALYZE), the method asked
# once per cached connection (then remembered; an ALTER SERVER that points the server at
# a colfamd that has it asks again), and the backend's connection still
# good afterwards. And against a colfamd whose frame limit holds each step's answer but
# not all of them in one reply: the same rows, each join asking for itself. A private
# PostgreSQL loads this tree's colfam_fdw.so (an overlay).
. "$COLFAM_ROOT/tests/shell/tap.sh"
. "$COLFAM_ROOT/tests/lib/harness.sh"
harness_init
B=$COLFAM_ROOT/build/release/bin
PY=/usr/bin/python3
harness_skip_without_fdw
tap_plan 11

host=127.0.0.46

harness_pg_overlay || { echo "Bail out! no colfam_fdw.so to test (make)"; exit 1; }
harness_pg_start pg || { echo "Bail out! PostgreSQL did not start"; exit 1; }
harness_colfamd node $host "$B/colfamd" || { echo "Bail out! colfamd did not start"; exit 1; }
port=$H_PORT
# a frame of 1 MB (the least)
harness_colfamd small $host "$B/colfamd" --thrift_framed_transport_size_in_mb 1 ||
  { echo "Bail out! colfamd (small frames) did not start"; exit 1; }
small_port=$H_PORT
for p in "$port" "$small_port"; do
  "$B/colfam" shell -h $host -p "$p" -f "$COLFAM_ROOT/tests/data/seeds/bloggyappy.cli" \
    >"$H_TMP/load.log" 2>&1 ||
    { sed 's/^/# /' "$H_TMP/load.log"; echo "Bail out! loading BloggyAppy failed"; exit 1; }
done

# The proxy: framed binary Thrift, one thread a connection. It counts the calls it
# refuses in $H_TMP/refused (one line each).
$PY - "$host" "$port" "$H_TMP/refused" >"$H_TMP/proxy.port" 2>"$H_TMP/proxy.err" <<'PY' &
import socket, struct, sys, threading
host, port, refused = sys.argv[1], int(sys.argv[2]), sys.argv[3]
lock = threading.Lock()

def read_exact(s, n):
    b = b''
    while len(b) < n:
        c = s.recv(n - len(b))
        if not c:
            raise EOFError
        b += c
    return b

def unknown_method(name, seqid):
    msg = ('Invalid method name: \'%s\'' % name).encode()
    body = struct.pack('>I', 0x80010003) + struct.pack('>i', len(name)) + name.encode()
    body += struct.pack('>i', seqid)
    body += b'\x0b' + struct.pack('>h', 1) + struct.pack('>i', len(msg)) + msg
    body += b'\x08' + struct.pack('>h', 2) + struct.pack('>i', 1) + b'\x00'
    return struct.pack('>i', len(body)) + body

def serve(client):
    up = socket.create_connection((host, port))
    threading.Thread(target=lambda: copy_back(up, client), daemon=True).start()
    try:
        while True:
            frame = read_exact(client, struct.unpack('>i', read_exact(client, 4))[0])
            n = struct.unpack('>i', frame[4:8])[0]
            name = frame[8:8 + n].decode()
            if name == 'colfam_multiget_chain':
                seqid = struct.unpack('>i', frame[8 + n:12 + n])[0]
                with lock:
                    open(refused, 'a').write(name + '\n')
                client.sendall(unknown_method(name, seqid))
            else:
                up.sendall(struct.pack('>i', len(frame)) + frame)
    except Exception:
        pass
    finally:
        client.close(); up.close()

def copy_back(up, client):
    try:
        while True:
            b = up.recv(65536)
            if not b:
                break
            client.sendall(b)
    except Exception:
        pass
    finally:
        client.close()

l = socket.socket(); l.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
l.bind((host, 0)); l.listen(16)
print(l.getsockname()[1], flush=True)
while True:
    c, _ = l.accept()
    threading.Thread(target=serve, args=(c,), daemon=True).start()
PY
harness_on_exit "harness_stop_pid $! chain-proxy"
for ((i = 0; i < 100; i++)); do [[ -s $H_TMP/proxy.port ]] && break; sleep 0.05; done
proxy_port=$(cat "$H_TMP/proxy.port")
[[ -n $proxy_port ]] || { sed 's/^/# /' "$H_TMP/proxy.err"; echo "Bail out! the proxy did not start"; exit 1; }
: >"$H_TMP/refused"

tables() {   # SERVER HOSTS SUFFIX: the front page's three tables over HOSTS
  cat <<SQL
CREATE SERVER $1 FOREIGN DATA WRAPPER colfam_fdw OPTIONS (hosts '$2', keyspace 'BloggyAppy');
CREATE FOREIGN TABLE tagged$3 (key text COLLATE "C", column_name timeuuid, value text)
  SERVER $1 OPTIONS (column_family 'TaggedPosts');
CREATE FOREIGN TABLE entries$3 (key text COLLATE "C", title text, author text)
  SERVER $1 OPTIONS (column_family 'BlogEntries', mapping 'rows');
CREATE FOREIGN TABLE authors$3 (key text COLLATE "C", email text)
  SERVER $1 OPTIONS (column_family 'Authors', mapping 'rows');
SQL
}
front() {   # SUFFIX: the front page over those tables
  echo "SELECT e.title, a.email FROM tagged$1 t JOIN entries$1 e ON e.key = t.value
JOIN authors$1 a ON a.key = e.author WHERE t.key = '__notag__'
ORDER BY t.column_name DESC LIMIT 10;"
}
run() { out=$(psql -X -q -A -t -v ON_ERROR_STOP=1 -c "$1" 2>&1); rc=$?; }
show() { sed 's/^/#   | /' <<<"$out"; }

run "CREATE EXTENSION colfam_fdw;
$(tables direct "$host:$port" "")
$(tables old "$host:$proxy_port" _old)
$(tables small "$host:$small_port" _small)"
[[ $rc -eq 0 ]] || { show; echo "Bail out! setting up the foreign tables failed"; exit 1; }

run "$(front "")"
want=$out
run "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) $(front "")"
if [[ $out == *"Colfam Chain Requests: 1"* ]]; then tap_ok 0 "against colfamd the front page is one chain"
else tap_ok 1 "against colfamd the front page is one chain"; show; fi

# one backend: the front page twice through the proxy, then a plain query
run "$(front _old)
$(front _old)
SELECT count(*) FROM tagged_old WHERE key = '__notag__';"
got_twice=$out
first=$(head -n "$(wc -l <<<"$want")" <<<"$got_twice")
tap_is "$first" "$want" "through a colfamd without the method: the same rows"
tap_is "$(wc -l <"$H_TMP/refused")" 1 "the method is asked once in a backend, then remembered"
tap_ok "$([[ $rc -eq 0 && $(tail -n 1 <<<"$got_twice") -gt 0 ]]; echo $?)" \
  "the backend's connection still answers after the refusal"
[[ $rc -eq 0 ]] || show

run "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) $(front _old)"
tap_ok "$([[ $out == *"Colfam Chain Requests: 0"* && $out != *"Chain Answers Used: 1"* ]]; echo $?)" \
  "EXPLAIN ANALYZE: no chain sent, no answer used"
[[ $out == *"Colfam Chain Requests: 0"* ]] || show
tap_is "$(wc -l <"$H_TMP/refused")" 2 "a new backend asks once again"

# the other server of the same backend still chains
run "$(front _old)
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) $(front "")"
tap_ok "$([[ $out == *"Colfam Chain Requests: 1"* ]]; echo $?)" \
  "another server in the same backend still sends its chain"
[[ $out == *"Colfam Chain Requests: 1"* ]] || show
tap_is "$(wc -l <"$H_TMP/refused")" 3 "the refusals: one a backend"

# Over the small frames: ten posts whose entries (70 kB titles) and authors (60 kB
# emails) each fit in a reply, both together not. The chain is refused as too large;
# the joins ask for themselves and the rows are all there.
run "INSERT INTO entries_small
  SELECT 'big-' || i, repeat(chr(96 + i), 70000), 'big-author-' || i FROM generate_series(1, 10) i;
INSERT INTO authors_small
  SELECT 'big-author-' || i, repeat(chr(96 + i), 60000) FROM generate_series(1, 10) i;
INSERT INTO tagged_small
  SELECT 'big', min_timeuuid(timestamptz '2011-01-01 00:00:00+00' + i * interval '1 s'), 'big-' || i
  FROM generate_series(1, 10) i;"
[[ $rc -eq 0 ]] || { show; echo "Bail out! writing the big rows failed"; exit 1; }
big="SELECT e.title, a.email FROM tagged_small t JOIN entries_small e ON e.key = t.value
JOIN authors_small a ON a.key = e.author WHERE t.key = 'big'
ORDER BY t.column_name DESC LIMIT 10"
run "SELECT count(*), sum(length(title)), sum(length(email)),
  string_agg(left(title, 1) || left(email, 1), '') FROM ($big) f"
tap_is "$out" "10|700000|600000|jjiihhggffeeddccbbaa" \
  "answers too big for one frame together: the same rows, each join asking itself"
run "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) $big"
tap_ok "$([[ $rc -eq 0 && $out == *"Colfam Chain Requests: 0"* && $out != *"Chain Answers Used: 1"* ]]; echo $?)" \
  "EXPLAIN ANALYZE: the chain too big for a frame, no answer used"
[[ $rc -eq 0 && $out == *"Colfam Chain Requests: 0"* ]] || show

# The refusal is remembered with the cached connection: once the server is pointed at
# a colfamd that has the method, the same backend sends its chain again.
refused=$(wc -l <"$H_TMP/refused")
run "$(front _old)
ALTER SERVER old OPTIONS (SET hosts '$host:$port');
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) $(front _old)"
tap_ok "$([[ $rc -eq 0 && $(wc -l <"$H_TMP/refused") -eq $((refused + 1)) &&
             $out == *"Colfam Chain Requests: 1"* ]]; echo $?)" \
  "refused, then the server altered to a colfamd with the method: the same backend chains"
[[ $out == *"Colfam Chain Requests: 1"* ]] || show
