#!/usr/bin/env bash
# The REPL launcher bin/gpumat, driven through tmux as a user would: it is
# lua5.4's own REPL, the banner says where mats live, a mat at the prompt
# shows as gm.format_mat does and m:dims() as {2, 2}, gm.help works, an error
# keeps the session, Ctrl-C interrupts a running loop and the session goes
# on, the Up arrow recalls the last line, Ctrl-D ends the session; on the
# host and with GPUMAT_DEVICE=emulated.  Then the launcher installed by
# `cmake --install` (into a scratch prefix) runs a piped session.
set -uo pipefail
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
passed=0 failed=0 skipped=0
ok() { echo "ok: $1"; passed=$((passed + 1)); }
bad() { echo "FAILED: $1"; failed=$((failed + 1)); }

if ! command -v tmux >/dev/null 2>&1 || [ ! -f "$BUILD/gpumat/core.so" ]; then
  echo "tmux or $BUILD/gpumat/core.so missing"
  echo "0 passed, 0 failed, 1 skipped"
  exit 0
fi

# one tmux server per session: `tmux kill-server` returns before the old
# server has gone, and a new-session on the same socket then meets the dying
# server ("server exited unexpectedly"; it failed CI's emulated session)
sock=
t() { tmux -L "$sock" "$@"; }
screen() { t capture-pane -p -t repl 2>/dev/null; }
# wait_for TEXT / wait_re REGEX: polls the screen (up to 20 s) until it
# shows TEXT (or a line matching REGEX)
wait_for() { wait_grep -F "$1"; }
wait_re() { wait_grep -E "$1"; }
wait_grep() {
  for _ in $(seq 1 100); do
    screen | grep -q "$@" && return 0
    sleep 0.2
  done
  return 1
}

session() { # mode banner-text
  local mode=$1 banner=$2
  sock="gpumat-repl-$$-$mode"
  t new-session -d -s repl -x 160 -y 40 \
    "env GPUMAT_BUILD_DIR=$BUILD GPUMAT_DEVICE=$([ "$mode" = emulated ] && echo emulated) HOME=$home bin/gpumat; echo gpumat-exited \$?; sleep 30" ||
    { bad "$mode: tmux new-session (no session, its other checks not run)"; return; }
  if wait_for "$banner"; then ok "$mode: banner '$banner'"; else bad "$mode: banner"; screen; fi
  if screen | grep -qF "Lua 5.4"; then ok "$mode: lua5.4's banner"; else bad "$mode: lua5.4 banner"; screen; fi
  if [ "$mode" = emulated ]; then
    # history is kept across sessions (~/.gpumat_history): the host session's last line
    t send-keys -t repl Up Enter
    if wait_re '^42$'; then ok "$mode: history from the last session"; else bad "$mode: history across sessions"; screen; fi
  fi
  t send-keys -t repl 'm = gm.mat({2,2},{initial_element=1})' Enter
  t send-keys -t repl 'm + 1' Enter
  # a mat at the prompt shows as gm.format_mat does
  if wait_re '^  2    2$' && screen | grep -qF "#<MAT 2x2 double>"; then ok "$mode: m + 1 shown by format_mat"
  else bad "$mode: m + 1"; screen; fi
  t send-keys -t repl 'm:dims()' Enter
  if wait_re '^\{2, 2\}$'; then ok "$mode: a table of numbers shows as {2, 2}"; else bad "$mode: dims"; screen; fi
  t send-keys -t repl 'm:sum(), m:max()' Enter
  if wait_re "^4\.0\s+1\.0\s*$"; then ok "$mode: m:sum(), m:max()"; else bad "$mode: sum/max"; screen; fi
  t send-keys -t repl 'gm.help("sum")' Enter
  if wait_for '(docs/API.md, "REPL and script conveniences")'; then ok "$mode: gm.help"; else bad "$mode: help"; screen; fi
  t send-keys -t repl 'error("boom")' Enter
  if wait_for "stdin:1: boom"; then ok "$mode: an error keeps the session"; else bad "$mode: error"; screen; fi
  # Ctrl-C interrupts a running computation and returns to the prompt
  t send-keys -t repl 'k = 0; while true do k = k + 1; m = m * 1 end' Enter
  sleep 1
  t send-keys -t repl C-c
  if wait_for "interrupted!"; then ok "$mode: Ctrl-C interrupts a computation"; else bad "$mode: Ctrl-C"; screen; fi
  t send-keys -t repl '"alive " .. tostring(k > 0)' Enter
  if wait_for '"alive true"' || wait_re '^alive true$'; then ok "$mode: the session goes on after Ctrl-C"
  else bad "$mode: after Ctrl-C"; screen; fi
  # Ctrl-C at the prompt discards the line and prompts again (lua5.4 would
  # exit): at the '>>' continuation, on a half-typed line, on an empty line.
  # Several times: lua-readline once closed its stream before readline's
  # last write to it, which crashed one time in three or so (l_repl.c).
  for _ in 1 2 3 4 5; do
    t send-keys -t repl 'for i = 1, 3 do' Enter
    wait_re '^>>' >/dev/null
    t send-keys -t repl C-c
    sleep 0.1
  done
  t send-keys -t repl 'half typed'
  sleep 0.3
  t send-keys -t repl C-c
  sleep 0.3
  t send-keys -t repl C-c
  t send-keys -t repl '"still " .. tostring(k > 0)' Enter
  if wait_re '^still true$'; then ok "$mode: Ctrl-C at '>>', on a typed line and on an empty one keeps the session"
  else bad "$mode: Ctrl-C at the prompt"; screen; fi
  # Tab completes gm. names and mat methods (lua-readline)
  t send-keys -t repl 'type(gm.zer' Tab
  sleep 0.3
  t send-keys -t repl ')' Enter
  if wait_re '^function$'; then ok "$mode: Tab completes gm.zer"; else bad "$mode: Tab on gm."; screen; fi
  t send-keys -t repl 'm:resh' Tab
  sleep 0.3
  t send-keys -t repl '(4)' Enter
  if wait_for "#<MAT 4 double>"; then ok "$mode: Tab completes m:resh"; else bad "$mode: Tab on m:"; screen; fi
  # several results: each mat on lines of its own; records shown as tables
  t send-keys -t repl 'm:sum(1), m:sum(2)' Enter
  if wait_re '^#<MAT 2 double>$' && [ "$(screen | grep -cE '^#<MAT 2 double>$')" -ge 2 ]; then
    ok "$mode: two mats on lines of their own"
  else bad "$mode: two mats"; screen; fi
  t send-keys -t repl 'gm.counters()' Enter
  if wait_re '^\{device_bytes_in_use = [0-9]+, '; then ok "$mode: a record table shows its fields"
  else bad "$mode: record table"; screen; fi
  t send-keys -t repl C-l
  # readline: the Up arrow recalls the previous line
  t send-keys -t repl '21 * 2' Enter
  wait_re '^42$' >/dev/null
  t send-keys -t repl Up Enter
  if wait_grep -cE '^42$' >/dev/null && [ "$(screen | grep -cE '^42$')" -ge 2 ]; then ok "$mode: history (Up arrow)"
  else bad "$mode: history"; screen; fi
  t send-keys -t repl C-d
  if wait_for "gpumat-exited 0"; then ok "$mode: Ctrl-D ends the session"; else bad "$mode: Ctrl-D"; screen; fi
  t kill-server 2>/dev/null
  # and wait for it to be gone, so no tmux outlives the step
  for _ in $(seq 1 50); do t has-session 2>/dev/null || break; sleep 0.1; done
}

home=$(mktemp -d)
session host "mats live on the host"
session emulated "mats live on the emulated device"
rm -rf "$home"

# the installed launcher (cmake --install of the existing build)
prefix=$(mktemp -d)
if cmake --install "$BUILD" --prefix "$prefix" >"$prefix.log" 2>&1 && [ -x "$prefix/bin/gpumat" ]; then
  out=$(cd / && printf 'm = gm.mat({2,2},{initial_element=1})\nm + 1\nprint(package.searchpath("gpumat", package.path))\n' |
        env -u LUA_PATH -u LUA_CPATH "$prefix/bin/gpumat" 2>&1)
  if echo "$out" | grep -qF "#<MAT 2x2 double>" && echo "$out" | grep -qF "$prefix/share/lua/5.4/gpumat/init.lua"; then
    ok "installed bin/gpumat finds the installed module"
  else bad "installed bin/gpumat"; echo "$out"; fi
else
  bad "cmake --install"; tail -20 "$prefix.log"
fi
rm -rf "$prefix" "$prefix.log"

echo "$passed passed, $failed failed, $skipped skipped"
