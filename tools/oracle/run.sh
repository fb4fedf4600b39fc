#!/usr/bin/env bash
# NumPy differential oracle: gen.lua runs random programs with gpumat on
# the host and on the emulated device, check.py replays them with numpy
# (float64; typed programs by typed.py's rules) and compares.  Prints "N passed, N failed" (one per batch).
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
echo "oracle: $programs programs checked with zero mismatches in $passed batches"
echo "$passed passed, $failed failed"
