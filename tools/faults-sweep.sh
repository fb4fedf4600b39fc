#!/usr/bin/env bash
# Fault-injection sweep: runs tools/faults.lua once per N
# with GPUMAT_EMULATED_FAIL_EVERY=N (every Nth emulated device allocation
# or copy fails, at most MAX faults per run), for N = 1..K and each kind
# set; then once per N with GPUMAT_HOST_FAIL_EVERY=N (every Nth request of
# the host caching allocator fails, at most 4 MAX per run) and GPUMAT_GC_PACE_MIN=0 (every new
# mat runs a full collection: the script's finalizers free mats and call
# gm.collect() in the middle of calls).  Ends with "N passed, N failed"
# (one per run).
#   tools/faults-sweep.sh BUILD_DIR K MAX [env assignments...]
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$1 k=$2 max=$3; shift 3
case $build in /*) ;; *) build=$root/$build ;; esac
export LUA_PATH="$root/lua/?.lua;$root/lua/?/init.lua;;" LUA_CPATH="$build/?.so;;"
passed=0 failed=0 faults=0
for kinds in alloc,copy alloc copy host; do
  for ((n = 1; n <= k; n++)); do
    if [ $kinds = host ]; then
      fault=(GPUMAT_HOST_FAIL_EVERY=$n GPUMAT_HOST_FAIL_MAX=$((4 * max)) GPUMAT_GC_PACE_MIN=0)
    else
      fault=(GPUMAT_EMULATED_FAIL_EVERY=$n GPUMAT_EMULATED_FAIL_MAX="$max" GPUMAT_EMULATED_FAIL_KINDS=$kinds)
    fi
    out=$(env -u GPUMAT_DEVICE "$@" "${fault[@]}" timeout 60 lua5.4 "$root/tools/faults.lua" 2>&1)
    rc=$?
    if [ $rc -eq 0 ]; then
      passed=$((passed + 1))
      f=$(echo "$out" | sed -nE 's/.* ([0-9]+) faults seen.*/\1/p' | tail -1)
      faults=$((faults + ${f:-0}))
    else
      failed=$((failed + 1)); echo "FAILED: kinds $kinds N=$n (exit $rc)"; echo "$out" | tail -15
    fi
  done
done
echo "faults: $((passed + failed)) runs, $faults injected faults raised as clean errors"
echo "$passed passed, $failed failed"
