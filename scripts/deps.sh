#!/usr/bin/env bash
# scripts/deps.sh — install what colfam needs to build and test, from Debian's archive.
#
# Idempotent: when every package is present it only asks dpkg and returns (well under
# a second). As root it runs `apt-get update` once and installs the missing packages;
# as anyone else it prints the exact command to run and exits 1.
#
# Usage: scripts/deps.sh [build|test|bench]   (default: test)
#   build  compiler, PostgreSQL server headers, engine libraries (libyaml: colfamd's
#          config; the colfam tool's libxml2, json-c, yajl, readline)
#   test   build + a PostgreSQL server, pgTAP and pg_prove, cmocka, clang (libFuzzer),
#          the Apache Thrift compiler and Python library (a reference client)
#   bench  test + what benchmarks compare against (LevelDB; redis-server and
#          redis-benchmark, from redis-tools)
set -euo pipefail

want=${1:-test}
case "$want" in
  build|test|bench) ;;
  *) echo "deps.sh: unknown set '$want' (valid: build, test, bench)" >&2; exit 2 ;;
esac

# PostgreSQL's major version: from pg_config when it is there, else the distribution's
# default server (what `postgresql` depends on; the package lists must be current, so
# a fresh machine is updated first), else 15 (Debian 12).
pg_major() {
  local v
  if command -v "${PG_CONFIG:-pg_config}" >/dev/null 2>&1; then
    v=$("${PG_CONFIG:-pg_config}" --version | sed -E 's/^PostgreSQL ([0-9]+).*/\1/')
    [[ "$v" =~ ^[0-9]+$ ]] && { echo "$v"; return; }
  fi
  v=$(apt-cache depends postgresql 2>/dev/null | sed -nE 's/.*Depends: postgresql-([0-9]+)$/\1/p' | head -n1)
  echo "${v:-15}"
}
updated=0
if ! command -v "${PG_CONFIG:-pg_config}" >/dev/null 2>&1 && [[ $(id -u) -eq 0 ]] &&
   [[ -z "$(apt-cache depends postgresql 2>/dev/null)" ]]; then
  apt-get update -qq
  updated=1
fi
major=$(pg_major)

pkgs=(gcc make pkg-config libc6-dev
      "postgresql-server-dev-$major"
      libzstd-dev libxxhash-dev libmd-dev libicu-dev libcrypt-dev
      libxml2-dev libjson-c-dev libyajl-dev libreadline-dev libyaml-dev)
if [[ "$want" != build ]]; then
  pkgs+=("postgresql-$major" "postgresql-$major-pgtap" libtap-parser-sourcehandler-pgtap-perl
         libcmocka-dev perl iproute2
         clang libclang-rt-dev    # libFuzzer targets (tests/run.sh fuzz); the runtime is only Recommended by clang
         thrift-compiler python3-thrift)   # a client colfam did not write (tests/shell/thrift_compat.t)
fi
if [[ "$want" == bench ]]; then
  pkgs+=(libleveldb-dev redis-server redis-tools)
fi

missing=()
for p in "${pkgs[@]}"; do
  if [[ "$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null)" != "install ok installed" ]]; then
    missing+=("$p")
  fi
done
[[ ${#missing[@]} -eq 0 ]] && exit 0

if [[ $(id -u) -ne 0 ]]; then
  echo "deps.sh: missing packages: ${missing[*]}" >&2
  echo "deps.sh: install them with:" >&2
  echo "  sudo apt-get update && sudo apt-get install -y --no-install-recommends ${missing[*]}" >&2
  exit 1
fi

echo "deps.sh: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
[[ $updated -eq 1 ]] || apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "deps.sh: done"
