#!/usr/bin/env bash
# Install and embed: `cmake --install` of the suite's build into
# a scratch prefix, then examples/embed built against the INSTALLED tree
# twice (pkg-config + Makefile, and a find_package(gpumat) CMake
# consumer), run on the host and with GPUMAT_DEVICE=emulated, and its
# output values checked.  Ends with "N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/../.."
build=${BUILD:-build}
passed=0 failed=0
ok() { echo "ok   $1"; passed=$((passed + 1)); }
bad() { echo "FAIL $1"; failed=$((failed + 1)); }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
prefix=$tmp/prefix

if [ ! -f "$build/CMakeCache.txt" ]; then
  bad "no build directory $build"
  echo "$passed passed, $((failed)) failed"; exit 1
fi

# 1. install
if cmake --install "$build" --prefix "$prefix" >"$tmp/install.log" 2>&1; then ok "cmake --install"
else bad "cmake --install"; tail -20 "$tmp/install.log"; fi
libdir=$(ls -d "$prefix"/lib*/pkgconfig 2>/dev/null | head -1); libdir=${libdir%/pkgconfig}
for f in include/gpumat.h include/gpumat_lua.h lib/lua/5.4/gpumat/core.so lib/lua/5.4/gpumat/blas_env.so share/lua/5.4/gpumat/init.lua; do
  if [ -e "$prefix/$f" ]; then ok "installed $f"; else bad "installed $f"; fi
done
for f in libgpumat.so libgpumat.a pkgconfig/gpumat.pc cmake/gpumat/gpumatConfig.cmake; do
  if [ -n "$libdir" ] && [ -e "$libdir/$f" ]; then ok "installed $f"; else bad "installed $f"; fi
done
if [ -e bin/gpumat ]; then
  if [ -x "$prefix/bin/gpumat" ]; then ok "installed bin/gpumat"; else bad "installed bin/gpumat"; fi
fi
# the installed Lua module loads from the prefix alone
if LUA_PATH="$prefix/share/lua/5.4/?.lua;$prefix/share/lua/5.4/?/init.lua" LUA_CPATH="$prefix/lib/lua/5.4/?.so" \
   lua5.4 -e 'local gm = require "gpumat"; assert(gm.mat(3, {initial_element = 2})[3] == 2)' >"$tmp/mod.log" 2>&1
then ok "installed Lua module loads"; else bad "installed Lua module loads"; cat "$tmp/mod.log"; fi

# 2. the example against the installed tree: pkg-config, then find_package
export PKG_CONFIG_PATH="$libdir/pkgconfig"
mkdir -p "$tmp/pc"
if make -s -C "$tmp/pc" -f "$PWD/examples/embed/Makefile" SRCDIR="$PWD/examples/embed" CC="${CC:-cc}" \
     CFLAGS="-O2 -Wall -Wextra -Werror" embed >"$tmp/pc.log" 2>&1 &&
   mv "$tmp/pc/embed" "$tmp/embed-pc"; then ok "example built with pkg-config"
else bad "example built with pkg-config"; tail -20 "$tmp/pc.log"; fi
if cmake -S examples/embed -B "$tmp/cmk" -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_BUILD_TYPE=Release \
     >"$tmp/cmk.log" 2>&1 && cmake --build "$tmp/cmk" >>"$tmp/cmk.log" 2>&1; then
  ok "example built with find_package(gpumat)"
else bad "example built with find_package(gpumat)"; tail -20 "$tmp/cmk.log"; fi
# it must not have picked up the source tree's headers
if grep -q -- "-I$PWD/include" "$tmp/cmk/CMakeFiles/embed.dir/flags.make" 2>/dev/null; then
  bad "find_package consumer used the source tree's headers"
fi

# 3. run: the buffer is transformed in place (2x + 1), the script's mat is
# printed and read back (column sums), the buffer is released exactly once,
# result leaves through DLPack and outlives the Lua state, a tensor of the
# application comes in through DLPack and its deleter runs once
src=$PWD
expect_buf="buffer after the script: 3 5 7 9 11 13"
expect_res="result from the script (3): 12 16 20"
expect_rel="buffer released by gpumat: 1 time(s)"
expect_txt="result: #<MAT 3 float F {12, 16, 20}>"
expect_out="dlpack out: 3 elements after lua_close: 12 16 20"
expect_in="dlpack in: sum 12, our deleter called 1 time(s)"
run() { # name exe where env...
  local name=$1 exe=$2 where=$3; shift 3
  if [ ! -x "$exe" ]; then bad "$name: not built"; return; fi
  (cd "$tmp" && env "$@" "$exe" "$src/examples/embed/transform.lua") >"$tmp/out.log" 2>&1
  if grep -qxF "$expect_buf" "$tmp/out.log" && grep -qxF "$expect_res" "$tmp/out.log" &&
     grep -qxF "$expect_rel" "$tmp/out.log" &&
     grep -qxF "$expect_txt" "$tmp/out.log" && grep -qxF "$expect_out" "$tmp/out.log" &&
     grep -qxF "$expect_in" "$tmp/out.log" && grep -qxF "script: ran on $where" "$tmp/out.log"; then ok "$name"
  else bad "$name"; cat "$tmp/out.log"; fi
}
# (no GPU in CI: GPUMAT_DEVICE=cuda, the default, runs on the host)
host="the host"
if nvidia-smi -L >/dev/null 2>&1; then host="a device"; fi
run "embed (pkg-config), default device" "$tmp/embed-pc" "$host" LD_LIBRARY_PATH=
run "embed (pkg-config), GPUMAT_DEVICE=emulated" "$tmp/embed-pc" "a device" GPUMAT_DEVICE=emulated
run "embed (find_package), default device" "$tmp/cmk/embed" "$host"
run "embed (find_package), GPUMAT_DEVICE=emulated" "$tmp/cmk/embed" "a device" GPUMAT_DEVICE=emulated
run "embed (find_package, libgpumat.a), emulated" "$tmp/cmk/embed_static" "a device" GPUMAT_DEVICE=emulated
# the executables use the installed library, not the build tree's
lib=$(ldd "$tmp/embed-pc" 2>/dev/null | sed -n 's/.*libgpumat\.so[^ ]* => \([^ ]*\) .*/\1/p')
if [ -n "$lib" ] && [ "$(readlink -f "$lib")" = "$(readlink -f "$libdir"/libgpumat.so)" ]; then
  ok "example links the installed libgpumat.so"
else bad "example links the installed libgpumat.so"; ldd "$tmp/embed-pc" 2>&1 | grep gpumat; fi

echo "$passed passed, $failed failed"
