#!/usr/bin/env bash
# examples/softmax.lua (--quick): the 10-class softmax classifier written
# with broadcasting, gm.softmax, argmax along an axis and constructors;
# on the host and on the emulated device it must reach >= 85% training and
# >= 80% test accuracy, and both must print the same numbers (the device
# runs the same element functions and the same Philox streams).
set -uo pipefail
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
passed=0 failed=0
ok() { echo "ok: $1"; passed=$((passed + 1)); }
bad() { echo "FAILED: $1"; failed=$((failed + 1)); }
if [ ! -f "$BUILD/gpumat/core.so" ]; then
  echo "$BUILD/gpumat/core.so missing"; echo "0 passed, 0 failed, 1 skipped"; exit 0
fi
export LUA_PATH="$PWD/lua/?.lua;$PWD/lua/?/init.lua;;" LUA_CPATH="$PWD/$BUILD/?.so;;"
tmp=$(mktemp -d)
check() { # name log
  local acc test
  acc=$(awk '/^accuracy /{print $2}' "$2"); test=$(awk '/^test accuracy /{print $3}' "$2")
  if [ -n "$acc" ] && [ -n "$test" ] && awk -v a="$acc" -v t="$test" 'BEGIN { exit !(a >= 0.85 && t >= 0.80) }'; then
    ok "$1: accuracy $acc, test accuracy $test"
  else bad "$1: accuracy '${acc:-none}', test '${test:-none}'"; tail -20 "$2"; fi
}
lua5.4 examples/softmax.lua --quick >"$tmp/host.log" 2>&1; check host "$tmp/host.log"
GPUMAT_DEVICE=emulated lua5.4 examples/softmax.lua --quick >"$tmp/emu.log" 2>&1; check emulated "$tmp/emu.log"
if grep -q "emulated device" "$tmp/emu.log" &&
   diff <(grep -E '^(step|accuracy|test)' "$tmp/host.log") <(grep -E '^(step|accuracy|test)' "$tmp/emu.log") >/dev/null; then
  ok "host and emulated device print the same losses and accuracies"
else bad "host and emulated differ"; diff "$tmp/host.log" "$tmp/emu.log" | head; fi
rm -rf "$tmp"
echo "$passed passed, $failed failed"
