#!/usr/bin/env bash
# Runs tools/fuzz.lua for SEEDS seeds of CALLS calls each, on the host and
# on the emulated device, in a scratch directory (the fuzzer writes files
# under relative paths), each run under a time limit.  A crash, a
# sanitizer report, a hang or an invariant violation fails the run.
# Ends with "N passed, N failed".
#   tools/fuzz-run.sh BUILD_DIR SEEDS CALLS FIRST_SEED [env assignments...]
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$1 seeds=$2 calls=$3 seed0=$4; shift 4
case $build in /*) ;; *) build=$root/$build ;; esac
export LUA_PATH="$root/lua/?.lua;$root/lua/?/init.lua;;" LUA_CPATH="$build/?.so;;"
limit=${FUZZ_TIME_LIMIT:-300}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
passed=0 failed=0 total=0
for ((i = 0; i < seeds; i++)); do
  seed=$((seed0 + i))
  for dev in host emulated; do
    d=$(mktemp -d -p "$tmp")
    if [ $dev = host ]; then devenv=(-u GPUMAT_DEVICE); else devenv=(GPUMAT_DEVICE=emulated); fi
    (cd "$d" && env "${devenv[@]}" "$@" timeout "$limit" lua5.4 "$root/tools/fuzz.lua" "$seed" "$calls") \
      >"$tmp/out" 2>&1
    rc=$?
    if [ $rc -eq 0 ]; then
      passed=$((passed + 1)); total=$((total + calls)); tail -1 "$tmp/out"
    else
      failed=$((failed + 1))
      echo "FAILED: seed $seed on $dev (exit $rc$([ $rc -eq 124 ] && echo ', time limit')):"
      grep -E 'VIOLATION|ERROR|SUMMARY|runtime error|^    #[0-9] ' "$tmp/out" | head -20
      tail -3 "$tmp/out"
    fi
    rm -rf "$d"
  done
done
echo "fuzz: $total calls in $passed clean runs"
echo "$passed passed, $failed failed"
