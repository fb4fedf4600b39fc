#!/usr/bin/env bash
# NumPy differential oracle: gen.lua runs random programs with gpumat on
# the host and on the emulated device, check.py replays them with numpy
# (float64; typed programs by typed.py's rules) and compares; indexing.lua
# runs random cases of the indexing, ordering, set and scan ops (half as
# many as programs) and indexing.py replays them with numpy in their own
# dtypes.  Prints "N passed, N failed" (one per batch and device, and one
# for the indexing cases).
#   tools/oracle/run.sh BUILD_DIR PROGRAMS_PER_BATCH BATCHES [FIRST_SEED]
set -uo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build}; per=${2:-150}; batches=${3:-1}; seed0=${4:-1}
export LUA_PATH="lua/?.lua;lua/?/init.lua;;" LUA_CPATH="$build/?.so;;"
py=/usr/bin/python3
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
passed=0 failed=0 programs=0
if ! $py -c 'import numpy' 2>/dev/null; then
  echo "numpy missing for $py (tools/install-deps.sh installs python3-numpy)"
  echo "0 passed, 1 failed"; exit 1
fi
for ((b = 0; b < batches; b++)); do
  seed=$((seed0 + b))
  for dev in host emulated; do
    out="$tmp/$dev-$seed.json"
    if [ $dev = host ]; then env -u GPUMAT_DEVICE lua5.4 tools/oracle/gen.lua "$seed" "$per" "$out"
    else GPUMAT_DEVICE=emulated lua5.4 tools/oracle/gen.lua "$seed" "$per" "$out"; fi || {
      echo "gen.lua failed (seed $seed, $dev)"; failed=$((failed + 1)); continue; }
    if $py tools/oracle/check.py "$out"; then passed=$((passed + 1)); programs=$((programs + per))
    else failed=$((failed + 1)); fi
    rm -f "$out"
  done
done
# the indexing, ordering, set and scan ops: half as many cases per seed and
# device, every seed in one process (a process start costs more than them)
cases=0 ix_per=$(( (per + 1) / 2 ))
if env -u GPUMAT_DEVICE lua5.4 tools/oracle/indexing.lua "$seed0" "$ix_per" "$tmp/ix.json" "$batches" &&
   $py tools/oracle/indexing.py "$tmp/ix.json"; then passed=$((passed + 1)); cases=$((ix_per * 2 * batches))
else failed=$((failed + 1)); fi
echo "oracle: $programs programs and $cases indexing cases checked with zero mismatches in $passed batches"
echo "$passed passed, $failed failed"
