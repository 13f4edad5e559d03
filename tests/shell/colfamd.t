# tests/shell/colfamd.t — the real colfamd on 127.0.0.2 and a free port: configuration,
# start-up, framed Thrift calls answered by the dispatch (describe_version; an unknown
# method gets TApplicationException UNKNOWN_METHOD), pipelining, an unframed client, a busy port,
# SIGTERM and SIGINT, a restart on the same data, bad configurations.
. "$COLFAM_ROOT/tests/shell/tap.sh"
. "$COLFAM_ROOT/tests/lib/harness.sh"
harness_init
B=$COLFAM_ROOT/build/release/bin
tap_plan 27

# thrift_client HOST PORT NAME:SEQID...: sends the calls framed in one write and prints one
# line per reply: "<type> <name> seqid=<n> apptype=<n> message=<text>".
# thrift_client HOST PORT --unframed NAME:SEQID: sends one unframed call, prints what came.
thrift_client() {
  perl -MIO::Socket::INET -e '
    my ($host, $port, @calls) = @ARGV;
    my $unframed = $calls[0] eq "--unframed" ? shift @calls : 0;
    my $s = IO::Socket::INET->new(PeerAddr => $host, PeerPort => $port, Proto => "tcp")
      or die "connect: $!\n";
    alarm 10;
    my $out = "";
    for my $c (@calls) {
      my ($name, $seq) = split /:/, $c;
      my $msg = pack("N", 0x80010001) . pack("N", length $name) . $name . pack("N", $seq) . "\0";
      $out .= $unframed ? $msg : pack("N", length $msg) . $msg;
    }
    syswrite($s, $out) == length $out or die "write: $!\n";
    sub rd { my ($n) = @_; my $b = "";
      while (length $b < $n) { my $r = sysread($s, $b, $n - length $b, length $b);
        die "eof after " . length($b) . " of $n bytes\n" unless $r; } $b }
    sub decode { my ($m) = @_;
      my ($v, $nl) = unpack("NN", $m); my $name = substr($m, 8, $nl);
      my $seq = unpack("N", substr($m, 8 + $nl, 4)); my $p = 12 + $nl; my ($text, $type) = ("", -1);
      while (1) { my $ft = unpack("C", substr($m, $p, 1)); $p++; last if $ft == 0;
        my $fid = unpack("n", substr($m, $p, 2)); $p += 2;
        if ($ft == 11) { my $l = unpack("N", substr($m, $p, 4)); $text = substr($m, $p + 4, $l); $p += 4 + $l }
        elsif ($ft == 8) { $type = unpack("N", substr($m, $p, 4)); $p += 4 }
        else { die "unexpected field type $ft\n" } }
      my %t = (1 => "CALL", 2 => "REPLY", 3 => "EXCEPTION", 4 => "ONEWAY");
      printf "%s %s seqid=%d apptype=%d message=%s\n", $t{$v & 0xff} // "?", $name, $seq, $type, $text }
    if ($unframed) {
      my $all = ""; while (1) { my $r = sysread($s, $all, 4096, length $all); last unless $r }
      decode($all) if length $all; print "closed\n"; exit 0 }
    for (@calls) { my $len = unpack("N", rd(4)); decode(rd($len)) }
  ' "$@"
}

host=127.0.0.2
port=$(harness_free_port $host) || exit 1
node=$H_TMP/node1
mkdir -p "$node"
cat >"$node/colfamd.yaml" <<EOF
# colfamd.t's node
cluster_name: colfamd.t
rpc_address: $host
rpc_port: $port
data_file_directories:
  - $node/data
commitlog_directory: $node/commitlog
pid_file: $node/colfamd.pid
shutdown_timeout_in_ms: 3000
rpc_prot: 1
endpoint_snitch: org.apache.cassandra.locator.SimpleSnitch
block_cache_size_in_mb: 8
EOF
log=$H_TMP/node1.log

harness_spawn node1 "$B/colfamd" -c "$node/colfamd.yaml" --log-level debug
pid=$H_PID
harness_wait_tcp $host "$port" 30
tap_ok $? "colfamd accepts connections on $host:$port"
grep -q "listening for Thrift clients on $host:$port (framed transport, frames up to 15 MiB" "$log"
tap_ok $? "it logs the address it listens on"
grep -q 'WARN .*colfamd.yaml:10: unknown key "rpc_prot" (ignored); did you mean "rpc_port"?' "$log"
tap_ok $? "an unknown key is a warning with the closest key"
grep -q 'INFO .*endpoint_snitch (a Cassandra setting) has no effect' "$log"
tap_ok $? "a Cassandra key colfamd does not use is an info line"
[[ "$(cat "$node/colfamd.pid" 2>/dev/null)" == "$pid" ]]
tap_ok $? "the pid file holds colfamd's pid"
[[ -f $node/commitlog/LOCK && -d $node/data/system ]]
tap_ok $? "the database is open in the configured directories"
grep -q "opening the database: .*, block cache 8 MiB" "$log"
tap_ok $? "it opens the database with the configured block cache"

out=$(thrift_client $host "$port" describe_version:7 2>&1)
[[ "$out" == "REPLY describe_version seqid=7 apptype=-1 message=19.4.0" ]]
tap_ok $? "describe_version answers 19.4.0"
[[ $? -eq 0 ]] || echo "#   got: $out"

out=$(thrift_client $host "$port" no_such_method:8 2>&1)
[[ "$out" == "EXCEPTION no_such_method seqid=8 apptype=1 message=Invalid method name: 'no_such_method'" ]]
tap_ok $? "an unknown method gets TApplicationException UNKNOWN_METHOD"
[[ $? -eq 0 ]] || echo "#   got: $out"

out=$(thrift_client $host "$port" describe_version:1 describe_cluster_name:2 describe_partitioner:3 2>&1)
[[ "$(awk '{print $2, $3}' <<<"$out" | tr '\n' ' ')" == "describe_version seqid=1 describe_cluster_name seqid=2 describe_partitioner seqid=3 " ]]
tap_ok $? "pipelined calls are answered in order"
[[ $? -eq 0 ]] || echo "#   got: $out"

out=$(thrift_client $host "$port" --unframed describe_version:5 2>&1)
grep -q "EXCEPTION describe_version seqid=5 apptype=7 message=unframed transport is not supported; use TFramedTransport" <<<"$out" &&
  grep -q closed <<<"$out"
tap_ok $? "an unframed client gets a PROTOCOL_ERROR exception, then EOF"
[[ $? -eq 0 ]] || echo "#   got: $out"
sleep 0.2
grep -q "INFO .*closing connection from 127.0.0.1:[0-9]*: unframed transport is not supported; use TFramedTransport" "$log" ||
  grep -q "INFO .*closing connection from $host:[0-9]*: unframed transport is not supported; use TFramedTransport" "$log"
tap_ok $? "the unframed client is logged with its address"
grep -q "DEBUG .*\[server\] connection [0-9]* from " "$log"
tap_ok $? "connections are logged at debug"

tap_run "a second colfamd on the same port exits 1 naming it" 1 \
  "port $port on $host is in use" \
  "$B/colfamd" --rpc_address $host --rpc-port "$port" \
  --data_file_directories "$H_TMP/other/data" --commitlog_directory "$H_TMP/other/log"

kill -TERM "$pid"
rc=124
for ((i = 0; i < 100; i++)); do
  kill -0 "$pid" 2>/dev/null || { wait "$pid"; rc=$?; break; }
  sleep 0.1
done
tap_ok $rc "SIGTERM stops colfamd with exit status 0 (got $rc)"
grep -q "received SIGTERM; shutting down" "$log" &&
  grep -q "flushing and closing the database" "$log" && grep -q "INFO .*\[colfamd\] stopped$" "$log"
tap_ok $? "it logs the shutdown, the database's close and its stop"
[[ ! -e $node/colfamd.pid ]]
tap_ok $? "the pid file is removed"
(exec 3<>"/dev/tcp/$host/$port") 2>/dev/null
tap_ok $((! $?)) "nothing listens on the port any more"

# the same data and port again at once (SO_REUSEADDR), stopped with SIGINT
harness_spawn node1b "$B/colfamd" -c "$node/colfamd.yaml"
pid=$H_PID
harness_wait_tcp $host "$port" 30
tap_ok $? "colfamd restarts on the same data and port"
grep -q "opened $node/data" "$H_TMP/node1b.log"
tap_ok $? "the restart reopens the database"
kill -INT "$pid"
rc=124
for ((i = 0; i < 100; i++)); do
  kill -0 "$pid" 2>/dev/null || { wait "$pid"; rc=$?; break; }
  sleep 0.1
done
tap_ok $rc "SIGINT stops it with exit status 0 (got $rc)"

bad=$H_TMP/bad.yaml
printf 'cluster_name: bad\nrpc_port: abc\n' >"$bad"
tap_run "a bad value exits 2 naming the file, line, key, value and valid values" 2 \
  "bad.yaml:2: invalid value \"abc\" for rpc_port; valid values: an integer from 1 to 65535" \
  "$B/colfamd" -c "$bad"
printf 'partitioner: Murmur3Partitioner\n' >"$bad"
tap_run "an unknown partitioner exits 2 listing the valid ones" 2 \
  'valid values: RandomPartitioner, ByteOrderedPartitioner, OrderPreservingPartitioner, CollatingOrderPreservingPartitioner' \
  "$B/colfamd" -c "$bad"
printf 'seeds: [a, b\n' >"$bad"
tap_run "YAML that does not parse exits 2 with its line" 2 'bad.yaml:2:1: not valid YAML' \
  "$B/colfamd" -c "$bad"
tap_run "a bad command-line value exits 2" 2 \
  'command line: invalid value "sometimes" for commitlog_sync; valid values: periodic, batch' \
  "$B/colfamd" --commitlog-sync sometimes
tap_run "--check-config prints the settings, the command line over the file" 0 \
  '^rpc_port: 9999$' "$B/colfamd" -c "$node/colfamd.yaml" --rpc-port 9999 --check-config
out=$(cd "$COLFAM_ROOT" && "$B/colfamd" -c conf/colfamd.yaml --check-config 2>&1 | tail -n +2)
[[ "$out" == "$("$B/colfamd" --check-config | tail -n +2)" ]] && ! grep -q WARN <<<"$out"
tap_ok $? "the sample conf/colfamd.yaml loads without a warning and holds the defaults"
exit $T_FAILED
