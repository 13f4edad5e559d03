# tests/shell/layers.t — the layering rules of DESIGN.md, checked on every #include:
# a layer of engine/ includes only itself and the layers below it; the engine never
# includes PostgreSQL headers; fdw/ reaches the engine only through client/ and util/.
. "$COLFAM_ROOT/tests/shell/tap.sh"
cd "$COLFAM_ROOT" || exit 1

declare -A allowed=(
  [util]="util"
  [storage]="storage util"
  [db]="db storage util"
  [cluster]="cluster db storage util"
  [service]="service cluster db storage util"
  [thrift]="thrift service cluster db storage util"
  [server]="server thrift service cluster db storage util"
  [client]="client thrift util"
  [tools]="tools client thrift util"
  [fdw]="client util"
)
layers="util storage db cluster service thrift server client tools"

# Every engine include of the form "layer/file.h", as FILE:LAYER lines.
engine_includes() {   # DIR
  grep -HoE '^[[:space:]]*#[[:space:]]*include[[:space:]]+"[a-z_]+/' "$1"/*.[ch] 2>/dev/null |
    sed -E 's/^([^:]+):.*"([a-z_]+)\/$/\1:\2/'
}

dirs=()
for d in engine/*/; do
  d=${d%/}; name=${d#engine/}
  [[ $name == doc ]] && continue
  dirs+=("$name")
done
tap_plan $(( ${#dirs[@]} + 2 ))

for name in "${dirs[@]}"; do
  bad=""
  if [[ -z "${allowed[$name]+x}" ]]; then
    bad="engine/$name is not a layer of DESIGN.md ($layers)"
  else
    while IFS=: read -r file inc; do
      [[ " ${allowed[$name]} " == *" $inc "* ]] || bad+="$file includes $inc/; "
    done < <(engine_includes "engine/$name")
  fi
  tap_ok $([[ -z $bad ]]; echo $?) "engine/$name includes only ${allowed[$name]:-?}"
  [[ -n $bad ]] && echo "#   $bad"
done

pg=$(grep -lE '#[[:space:]]*include[[:space:]]*[<"](postgres|fmgr|pg_config|utils/|catalog/|nodes/)' engine/*/*.[ch] 2>/dev/null)
tap_ok $([[ -z $pg ]]; echo $?) "the engine includes no PostgreSQL header"
[[ -n $pg ]] && echo "#   $pg"

bad=""
while IFS=: read -r file inc; do
  [[ -d engine/$inc ]] || continue          # PostgreSQL's own "utils/..." etc.
  [[ " ${allowed[fdw]} " == *" $inc "* ]] || bad+="$file includes $inc/; "
done < <(engine_includes fdw)
tap_ok $([[ -z $bad ]]; echo $?) "fdw/ reaches the engine only through client/ and util/"
[[ -n $bad ]] && echo "#   $bad"
exit $T_FAILED
