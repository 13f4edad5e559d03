# tests/shell/demo.t — the README's main job, `make demo` (scripts/demo.sh), run as a
# script would run it (stdin not a terminal, so it does not wait for Enter): it must
# finish with status 0 inside a bound, print the headline queries' plans and results
# from the seeds' data, and leave no colfamd, PostgreSQL or temp directory behind.
. "$COLFAM_ROOT/tests/shell/tap.sh"
. "$COLFAM_ROOT/tests/lib/harness.sh"
harness_init
tap_plan 8

out=$H_TMP/demo.out
start=$(date +%s)
(cd "$COLFAM_ROOT" && timeout --kill-after=10 300 bash scripts/demo.sh </dev/null >"$out" 2>&1)
rc=$?
secs=$(($(date +%s) - start))
tap_ok $rc "scripts/demo.sh exits with status 0 in ${secs}s (bound 300 s; got $rc)"
[[ $rc -eq 0 ]] || tail -n 30 "$out" | sed 's/^/# /'

# the front page: DESIGN.md's query, the slice pushed as reversed count 10, the joins
# as key lookups, and its rows in newest-first order
grep -q "Colfam Rows: BloggyAppy.TaggedPosts: key '__notag__'" "$out" &&
  grep -q "Colfam Slice: reversed, count 10 " "$out" &&
  grep -q "Colfam Join: BloggyAppy.BlogEntries: key lookups of t.value" "$out" &&
  grep -q "Colfam Join: BloggyAppy.Authors: key lookups of e.author" "$out"
tap_ok $? "the front page's plan shows the reversed slice and the key lookups"
awk '/^ 2009-08-18 20:40:04\+00 \| Memtables and SSTables /{a=NR}
     /^ 2009-08-18 01:13:24\+00 \| This is a blog entry about my new, awesome guitar /{b=NR}
     /^\(8 rows\)/{if (a && b && a < b && !c) c=NR}
     END {exit !(a && b && c > b)}' "$out"
tap_ok $? "the front page lists the 8 tagged entries, newest first"
grep -q "^ 2009-08-18 04:00:04+00 | Another cool guitar" "$out"
tap_ok $? "the tag page answers"
grep -q "^ 2009-08-16 15:53:24+00 | Joe Blow  | you're a dumb douche" "$out"
tap_ok $? "one entry's comments (a Super CF) come in time order"
grep -q "IMPORT FOREIGN SCHEMA" "$out" &&
  grep -q "^ 2010-03-01 03:32:17.013512+00 | evan     | LongType orders by number, not text" "$out"
tap_ok $? "the Twissandra schema is imported and a timeline joins tweets and users"

# everything it started is stopped and its temp directory removed
tmp=$(sed -n 's/^==> starting colfamd on .* (data in \(.*\)\/colfamd)$/\1/p' "$out")
[[ -n $tmp ]] && ! pgrep -f -- "$tmp" >/dev/null
tap_ok $? "no process of the demo's temp dir ($tmp) is left running"
[[ -n $tmp && ! -e $tmp ]] && grep -q "^==> stopping" "$out"
tap_ok $? "it says it stops and removes its temp dir"
