#!/usr/bin/env bash
# NumPy differential oracle: gen.lua runs random programs with gpumat on
# the host and on the emulated device, check.py replays them with numpy
# (float64) and compares; indexing.lua runs random cases of the indexing,
# ordering, set and scan ops (half as many as programs) and indexing.py
# replays them with numpy in their own dtypes.  Prints "N passed, N
# failed" (one per batch and device, and one per batch for indexing).
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
cases=0 ix_per=$(( (per + 1) / 2 ))
for ((b = 0; b < batches; b++)); do
  seed=$((seed0 + b))
  ix=()
  for dev in host emulated; do
    out="$tmp/$dev-$seed.json"
    if [ $dev = host ]; then devenv=(-u GPUMAT_DEVICE); else devenv=(GPUMAT_DEVICE=emulated); fi
    env "${devenv[@]}" lua5.4 tools/oracle/gen.lua "$seed" "$per" "$out" || {
      echo "gen.lua failed (seed $seed, $dev)"; failed=$((failed + 1)); continue; }
    if $py tools/oracle/check.py "$out"; then passed=$((passed + 1)); programs=$((programs + per))
    else failed=$((failed + 1)); fi
    rm -f "$out"
    # the indexing, ordering, set and scan ops, half as many cases
    if env "${devenv[@]}" lua5.4 tools/oracle/indexing.lua "$seed" "$ix_per" "$tmp/ix-$dev-$seed.json"; then
      ix+=("$tmp/ix-$dev-$seed.json")
    else echo "indexing.lua failed (seed $seed, $dev)"; failed=$((failed + 1)); fi
  done
  if [ ${#ix[@]} -gt 0 ]; then
    if $py tools/oracle/indexing.py "${ix[@]}"; then passed=$((passed + 1)); cases=$((cases + ix_per * ${#ix[@]}))
    else failed=$((failed + 1)); fi
    rm -f "${ix[@]}"
  fi
done
echo "oracle: $programs programs and $cases indexing cases checked with zero mismatches in $passed batches"
echo "$passed passed, $failed failed"
