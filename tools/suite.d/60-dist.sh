#!/usr/bin/env bash
# gpumat.dist under MPI: spec/dist_spec.lua on every rank of
# `mpirun --oversubscribe -np 3` and `-np 1`, on the host and with
# GPUMAT_DEVICE=emulated.  Each rank writes its busted summary; this step
# sums them.  The example's own check (examples/data_parallel.lua) runs too.
set -u
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
pass=0 fail=0 skip=0
if ! command -v mpirun >/dev/null || ! grep -q luaopen_gpumat_dist <(nm -D "$BUILD/gpumat/core.so" 2>/dev/null); then
  echo "dist: mpirun or gpumat.dist missing, skipped"
  echo "0 passed, 0 failed, 1 skipped"
  exit 0
fi
root=()
[ "$(id -u)" = 0 ] && root=(--allow-run-as-root)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for dev in host emulated; do
  for np in 3 1; do
    rm -f "$out"/rank.*
    env_dev=()
    [ "$dev" = emulated ] && env_dev=(GPUMAT_DEVICE=emulated)
    timeout 120 env GPUMAT_BUILD_DIR="$BUILD" GPUMAT_DIST_EXPECT_SIZE=$np "${env_dev[@]}" \
      mpirun "${root[@]}" --oversubscribe -np $np sh -c \
      'lua5.4 /usr/bin/busted -o utfTerminal --no-auto-insulate spec/dist_spec.lua > "$0/rank.$OMPI_COMM_WORLD_RANK" 2>&1' "$out"
    rc=$?
    for r in $(seq 0 $((np - 1))); do
      line=$(grep -a "successes /" "$out/rank.$r" 2>/dev/null | tail -n 1)
      if [ -z "$line" ]; then
        echo "dist $dev np=$np rank $r: no summary (mpirun exit $rc)"
        tail -n 20 "$out/rank.$r" 2>/dev/null
        fail=$((fail + 1))
        continue
      fi
      s=$(echo "$line" | sed -E 's/^([0-9]+) successes.*/\1/')
      f=$(echo "$line" | sed -E 's/.* ([0-9]+) failures? .*/\1/')
      e=$(echo "$line" | sed -E 's/.* ([0-9]+) errors? .*/\1/')
      p=$(echo "$line" | sed -E 's/.* ([0-9]+) pending.*/\1/')
      echo "dist $dev np=$np rank $r: $line"
      [ $((f + e)) -gt 0 ] && grep -a -A8 "^Failure\|^Error" "$out/rank.$r" | head -n 40
      pass=$((pass + s)) fail=$((fail + f + e)) skip=$((skip + p))
    done
  done
done
# the data-parallel example checks itself against a single-process run
if timeout 120 env LUA_PATH="lua/?.lua;lua/?/init.lua;;" LUA_CPATH="$BUILD/?.so;;" mpirun "${root[@]}" --oversubscribe -np 3 \
    lua5.4 examples/data_parallel.lua > "$out/example" 2>&1 && grep -q "^data_parallel: ok" "$out/example"; then
  pass=$((pass + 1)); echo "dist example: ok"
else
  fail=$((fail + 1)); echo "dist example: FAILED"; tail -n 20 "$out/example"
fi
echo "$pass passed, $fail failed, $skip skipped"
