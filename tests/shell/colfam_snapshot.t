# tests/shell/colfam_snapshot.t — `colfam snapshot|listsnapshots|clearsnapshot` against
# a node: a snapshot taken, more written, the snapshot listed; its files restored into a
# copy of the data directory that a second node serves (the rows as of the snapshot,
# not the later ones); cleared, with the live rows still read; the automatic
# truncated- snapshot listed; the errors (unknown keyspace, bad or taken name, usage,
# nobody listening); colfamd's log lines.
. "$COLFAM_ROOT/tests/shell/tap.sh"
. "$COLFAM_ROOT/tests/lib/harness.sh"
B=$COLFAM_ROOT/build/release/bin
tap_plan 24

harness_init
harness_colfamd node 127.0.0.1 "$B/colfamd" || exit 1
port=$H_PORT
data=$H_TMP/node/data
CON=(-h 127.0.0.1 -p "$port")
shell() { "$B/colfam" shell "$@" -B >/dev/null; }
printf '%s\n' 'create keyspace K with replication_factor = 1;' 'use K;' \
  'create column family A with comparator = UTF8Type and default_validation_class = UTF8Type;' \
  'create column family B;' \
  "set A['r1']['c'] = 'old';" "set A['r2']['c'] = 'two';" \
  'create keyspace Aa with replication_factor = 1;' 'use Aa;' 'create column family C;' |
  shell "${CON[@]}"

tap_run "snapshot: where it is and how many files" 0 \
  "^Took snapshot \"before\" of K: 2 column families, 3 files \(hard links\), [0-9]+ bytes" \
  "$B/colfam" snapshot "${CON[@]}" -k K -t before
tap_ok "$([[ -f $data/K/A/snapshots/before/MANIFEST ]] && ls "$data"/K/A/snapshots/before/A-*.sst >/dev/null; echo $?)" \
  "... the SSTable and the MANIFEST are under <data>/K/A/snapshots/before"
"$B/colfam" snapshot "${CON[@]}" -k K -t before2 >"$H_TMP/took.out" 2>&1
tap_ok "$(grep -qx "  $data/K/A/snapshots/before2" "$H_TMP/took.out"; echo $?)" \
  "... the output lists each CF's directory"

# more after the snapshot: a new row, and r1 overwritten
printf '%s\n' 'use K;' "set A['r3']['c'] = 'after';" "set A['r1']['c'] = 'new';" | shell "${CON[@]}"

tap_run "listsnapshots: name, keyspace, CFs, files, bytes" 0 \
  "^before +K +2 +3 +[0-9]+ +[0-9]+\$" "$B/colfam" listsnapshots "${CON[@]}"
tap_run "... and that the files are hard links" 0 "Snapshot files are hard links" \
  "$B/colfam" listsnapshots "${CON[@]}" -k K
tap_run "a name taken already: refused, naming it" 1 \
  'keyspace K has a snapshot "before" already .*choose another name, or clear it first' \
  "$B/colfam" snapshot "${CON[@]}" -t before
tap_run "... and nothing was made in keyspace Aa, which comes before K" 0 '^No snapshots\.$' \
  "$B/colfam" listsnapshots "${CON[@]}" -k Aa
tap_ok "$([[ $("$B/colfam" listsnapshots "${CON[@]}" | grep -c '^before ') -eq 1 ]]; echo $?)" \
  "... once"

# restore: the snapshot's files in place of A's, in a copy of the data directory
mkdir -p "$H_TMP/restore"
cp -a "$data" "$H_TMP/restore/data"
(cd "$H_TMP/restore/data/K/A" && rm -f ./*.sst MANIFEST && cp snapshots/before/* . && rm -r snapshots)
harness_colfamd restore 127.0.0.2 "$B/colfamd" || exit 1
rport=$H_PORT
"$B/colfam" export -h 127.0.0.2 -p "$rport" -k K A -q >"$H_TMP/restored.json" 2>&1
hex() { printf '%s' "$1" | od -An -tx1 | tr -d ' \n'; }
tap_ok "$(grep -q "\"$(hex r1)\": \[\[\"$(hex c)\", \"$(hex old)\"" "$H_TMP/restored.json"; echo $?)" \
  "restored: r1 has its value as of the snapshot"
tap_ok "$(grep -q "\"$(hex r2)\"" "$H_TMP/restored.json"; echo $?)" "restored: r2 is there"
tap_ok "$(! grep -q "\"$(hex r3)\"" "$H_TMP/restored.json"; echo $?)" \
  "restored: r3, written after the snapshot, is not"
"$B/colfam" export "${CON[@]}" -k K A -q >"$H_TMP/live.json" 2>&1
tap_ok "$(grep -q "\"$(hex r3)\"" "$H_TMP/live.json" &&
          grep -q "\"$(hex new)\"" "$H_TMP/live.json"; echo $?)" "the live node has r3 and r1's new value"

tap_run "clearsnapshot -t: says what it removed" 0 \
  '^Cleared snapshot "before" of K: 2 column families, 3 files \(hard links\), [0-9]+ bytes, [0-9]+ of them freed$' \
  "$B/colfam" clearsnapshot "${CON[@]}" -t before
tap_ok "$([[ ! -e $data/K/A/snapshots/before ]]; echo $?)" "... its directory is gone"
"$B/colfam" export "${CON[@]}" -k K A -q >"$H_TMP/after.json" 2>&1
tap_ok "$(cmp -s "$H_TMP/live.json" "$H_TMP/after.json"; echo $?)" \
  "... and the live rows read exactly as before"
tap_run "clearing it again: no such snapshot" 1 'no snapshot "before" in any keyspace' \
  "$B/colfam" clearsnapshot "${CON[@]}" -t before

printf '%s\n' 'use K;' 'truncate A;' | shell "${CON[@]}"
tap_run "listsnapshots shows the automatic truncated- snapshot" 0 "^truncated-[0-9]+ +K +1 " \
  "$B/colfam" listsnapshots "${CON[@]}" -k K
tap_run "clearsnapshot without -t clears every one" 0 'Cleared snapshot "truncated-[0-9]+" of K' \
  "$B/colfam" clearsnapshot "${CON[@]}"
tap_run "... leaving none" 0 '^No snapshots\.$' "$B/colfam" listsnapshots "${CON[@]}"

tap_run "unknown keyspace" 1 'Keyspace Nope does not exist' \
  "$B/colfam" snapshot "${CON[@]}" -k K -k Nope -t x
tap_run "a name with a slash: refused with what is allowed" 1 \
  'snapshot name "\.\./x": use letters, digits' "$B/colfam" snapshot "${CON[@]}" -t ../x
tap_run "keyspaces as arguments: a usage error saying to use -k" 2 'name keyspaces with -k' \
  "$B/colfam" snapshot "${CON[@]}" K
free=$(harness_free_port 127.0.0.1)
tap_run "nobody listening: the address is named" 1 "127.0.0.1:$free" \
  "$B/colfam" listsnapshots -h 127.0.0.1 -p "$free"
tap_ok "$(grep -q 'INFO .*snapshot "before" taken of 1 keyspace, 2 column families' "$H_TMP/node.log" &&
          grep -q 'INFO .*snapshot "before" of K.A cleared' "$H_TMP/node.log"; echo $?)" \
  "colfamd logs each snapshot taken and cleared"
exit $T_FAILED
