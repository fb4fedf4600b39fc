#!/usr/bin/env bash
# examples/mlp.lua in its short mode (--quick): trained on the host (loss
# curve plotted with gnuplot when installed), on the emulated device, and
# on the host with no gnuplot on PATH; each run must reach >= 95% training
# accuracy.
set -uo pipefail
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
passed=0 failed=0 skipped=0
ok() { echo "ok: $1"; passed=$((passed + 1)); }
bad() { echo "FAILED: $1"; failed=$((failed + 1)); }

if [ ! -f "$BUILD/gpumat/core.so" ]; then
  echo "$BUILD/gpumat/core.so missing"
  echo "0 passed, 0 failed, 1 skipped"
  exit 0
fi
export LUA_PATH="$PWD/lua/?.lua;$PWD/lua/?/init.lua;;" LUA_CPATH="$PWD/$BUILD/?.so;;"
lua=$(command -v lua5.4)
tmp=$(mktemp -d)

check() { # name output-file
  local acc
  acc=$(grep -E '^accuracy [0-9.]+$' "$2" | awk '{print $2}')
  if [ -n "$acc" ] && awk -v a="$acc" 'BEGIN { exit !(a >= 0.95) }'; then
    ok "$1: training accuracy $acc >= 0.95"
  else
    bad "$1: accuracy '${acc:-none}'"; tail -20 "$2"
  fi
}

"$lua" examples/mlp.lua --quick --plot "$tmp/loss.png" >"$tmp/host.log" 2>&1
check host "$tmp/host.log"
if command -v gnuplot >/dev/null 2>&1; then
  if [ -s "$tmp/loss.png" ] && head -c 8 "$tmp/loss.png" | grep -q PNG &&
     grep -qF "loss curve plotted to $tmp/loss.png (gnuplot)" "$tmp/host.log"; then
    ok "host: loss curve plotted to a PNG and reported"
  else bad "host: no PNG"; tail -5 "$tmp/host.log"; fi
else
  echo "gnuplot not installed: plot not checked"; skipped=$((skipped + 1))
fi
grep -q "mats live on the host" "$tmp/host.log" && ok "host: placement reported" || bad "host: placement"

GPUMAT_DEVICE=emulated "$lua" examples/mlp.lua --quick --no-plot >"$tmp/emu.log" 2>&1
check emulated "$tmp/emu.log"
if grep -q "mats live on the emulated device" "$tmp/emu.log"; then ok "emulated: ran on the emulated device"
else bad "emulated: placement"; grep "mats live" "$tmp/emu.log"; fi

PATH=/nonexistent "$lua" examples/mlp.lua --quick --plot "$tmp/none.png" >"$tmp/nognuplot.log" 2>&1
check "without gnuplot" "$tmp/nognuplot.log"
if grep -q "no loss plot: plot: gnuplot is not installed" "$tmp/nognuplot.log" && [ ! -e "$tmp/none.png" ]; then
  ok "without gnuplot: runs and says there is no plot"
else bad "without gnuplot: message"; tail -3 "$tmp/nognuplot.log"; fi

rm -rf "$tmp"
echo "$passed passed, $failed failed, $skipped skipped"
