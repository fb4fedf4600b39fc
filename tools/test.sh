#!/usr/bin/env bash
# The whole test suite (README's test command, run by .ci/run):
#  1. release build with warnings as errors (CUDA backend compiled when the
#     toolkit is present), suite on the host;
#  2. the suite again with GPUMAT_DEVICE=emulated (device path of every op,
#     streams on worker threads), and once more with its queues run only
#     when something waits (GPUMAT_EMULATED_ASYNC=lazy);
#  3. the suite again under an aggressive garbage collector (on one core
#     while 1-2 run on the other);
#  4. ASan+UBSan build, suite again;
#  5. the area steps in tools/suite.d/*.sh (see below);
#  6. luarocks make of the rockspec into a scratch tree, and a load test.
# Ends with the line "N passed, N failed, N skipped".
set -uo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc 2>/dev/null || echo 2)
passed=0 failed=0 skipped=0 status=0
log=$(mktemp -d)

count() { # name logfile
  local line s f e p
  line=$(grep -E '[0-9]+ success(es)? / [0-9]+ failures? / [0-9]+ errors? / [0-9]+ pending' "$2" | tail -1)
  if [ -z "$line" ]; then
    echo "== $1: no busted summary (crash?)"; tail -30 "$2"
    failed=$((failed + 1)); status=1; return
  fi
  read -r s f e p < <(echo "$line" | sed -E 's#^([0-9]+) success(es)? / ([0-9]+) failures? / ([0-9]+) errors? / ([0-9]+) pending.*#\1 \3 \4 \5#')
  echo "== $1: $s passed, $((f + e)) failed, $p pending"
  passed=$((passed + s)); failed=$((failed + f + e)); skipped=$((skipped + p))
  if [ $((f + e)) -ne 0 ]; then grep -vE '^\s*$' "$2" | tail -60; status=1; fi
}

# ccache, when installed, for every build below: the rock (step 6) is
# built with the release build's exact flags (Release, GPUMAT_WERROR from
# the environment), so its objects come from the cache.  CMake (>= 3.17)
# takes the launchers from the environment at a build directory's first
# configure; base_dir makes the build directories' paths relative, so
# build/ and luarocks' build.luarocks/ share entries.
# The CUDA compiles also go through tools/ptxas-log, which keeps ptxas's
# report next to each kernel object for tools/suite.d/26-ptxas.sh.
export CMAKE_CUDA_COMPILER_LAUNCHER="$PWD/tools/ptxas-log"
if command -v ccache >/dev/null 2>&1; then
  export CMAKE_C_COMPILER_LAUNCHER=ccache CMAKE_CXX_COMPILER_LAUNCHER=ccache \
    CMAKE_CUDA_COMPILER_LAUNCHER="$PWD/tools/ptxas-log;ccache" CCACHE_BASEDIR="$PWD"
fi

build() { # dir cmake-args...
  local dir=$1 t0=$SECONDS; shift
  cmake -S . -B "$dir" -DGPUMAT_WERROR=ON "$@" >"$log/cmake-$dir.log" 2>&1 &&
    cmake --build "$dir" -j "$jobs" >"$log/build-$dir.log" 2>&1
  local rc=$?
  echo "   (build $dir: $((SECONDS - t0)) s)"
  if [ $rc -ne 0 ]; then
    echo "== build $dir FAILED"; tail -n 40 "$log/cmake-$dir.log" "$log/build-$dir.log"
    failed=$((failed + 1)); status=1
  fi
  return $rc
}

# Release, as luarocks builds it (CMakeLists' default RelWithDebInfo
# differs only in -g and -O2 for the C sources)
release_built=0
if build build -DCMAKE_BUILD_TYPE=Release; then
  release_built=1
  # the CUDA backend must compile on every run where the toolkit exists
  if [ -x /usr/local/cuda/bin/nvcc ] || command -v nvcc >/dev/null 2>&1; then
    if grep -q "CUDA backend enabled" "$log/cmake-build.log"; then
      echo "== cuda backend: compiled and linked"; passed=$((passed + 1))
    else
      echo "== cuda backend: toolkit present but not enabled"; failed=$((failed + 1)); status=1
    fi
  fi
fi

# Two lanes, one core each (CI's budget is wall time; each busted pass
# keeps about one core busy): host, emulated and lazy one after another on
# one; the aggressive-collector pass and then the ASan build on the other
# (the build takes both cores once the first lane has ended).  The lazy
# pass is the most adversarial legal order: queued device work runs only
# when something waits for it, so a missing wait reads stale data every
# time.  The ASan build's emulated kernels at -O1 (GPUMAT_EMU_OPT),
# AddressSanitizer's usual level: at -O3 with the sanitizers they were most
# of this build (610 s of CPU; strided.cpp 169 s against 72 s at -O1,
# elementwise.cpp 62 against 30), and the passes' mats are small.  The
# build runs in a subshell: its verdict comes back through a file.
t0=$SECONDS
(
  [ "$release_built" -eq 1 ] && tools/run-specs.sh build GPUMAT_TEST_GC=aggressive >"$log/gc.log"
  build build-asan -DGPUMAT_SANITIZE=ON -DGPUMAT_CUDA=OFF -DCMAKE_BUILD_TYPE=Debug -DGPUMAT_EMU_OPT=-O1 \
    >"$log/asan-build.out" 2>&1
  echo $? >"$log/asan-built"
) &
lane=$!
if [ "$release_built" -eq 1 ]; then
  tools/run-specs.sh build >"$log/host.log"
  tools/run-specs.sh build GPUMAT_DEVICE=emulated >"$log/emu.log"
  tools/run-specs.sh build GPUMAT_DEVICE=emulated GPUMAT_EMULATED_ASYNC=lazy >"$log/lazy.log"
  echo "   (host, emulated and lazy passes: $((SECONDS - t0)) s)"
fi
wait "$lane"
cat "$log/asan-build.out"
asan_built=$(cat "$log/asan-built" 2>/dev/null || echo 1)
[ "$asan_built" -eq 0 ] || { failed=$((failed + 1)); status=1; }
if [ "$release_built" -eq 1 ]; then
  count host "$log/host.log"; count emulated "$log/emu.log"
  count emulated-lazy "$log/lazy.log"; count gc-aggressive "$log/gc.log"
fi
echo "   (the four passes and the ASan build beside them: $((SECONDS - t0)) s)"

# Extra steps, one file per area: tools/suite.d/*.sh, run in name order with
# BUILD=build BUILD_ASAN=build-asan (each may be missing if its build failed)
# and SAN_ENV (the sanitizer environment, one assignment per word).  A step
# prints what it likes and ends its output with the line
# "N passed, N failed" (", N skipped" may follow); its exit status is
# ignored in favour of that line, and no such line counts as one failure.
export BUILD=build BUILD_ASAN=build-asan
export SAN_ENV="LD_PRELOAD=$(gcc -print-file-name=libasan.so) ASAN_OPTIONS=detect_leaks=0:protect_shadow_gap=0:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1"
# A step whose file has the line "# lane: background" (one that builds on
# both cores: the TSan build) starts here, beside the ASan passes and then
# the other steps, which mostly keep one core busy each, one after
# another; all are counted in name order once both lanes have ended.
run_step() { # step file
  local name t0=$SECONDS
  name=$(basename "$1" .sh)
  bash "$1" >"$log/step-$name.log" 2>&1
  echo $((SECONDS - t0)) >"$log/step-$name.secs"
}
steps=()
for step in tools/suite.d/*.sh; do [ -e "$step" ] && steps+=("$step"); done
t_steps=$SECONDS
for step in "${steps[@]}"; do
  if grep -qx '# lane: background' "$step"; then run_step "$step" & fi
done

if [ "$asan_built" -eq 0 ]; then
  asan=$(gcc -print-file-name=libasan.so)
  san=(LD_PRELOAD="$asan" ASAN_OPTIONS=detect_leaks=0:protect_shadow_gap=0:abort_on_error=1
       UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1)
  t0=$SECONDS
  tools/run-specs.sh build-asan "${san[@]}" >"$log/asan.log" &
  asan_pass=$!
  tools/run-specs.sh build-asan "${san[@]}" GPUMAT_DEVICE=emulated >"$log/asan-emu.log"
  wait "$asan_pass"
  count asan+ubsan "$log/asan.log"; count asan+ubsan-emulated "$log/asan-emu.log"
  echo "   (asan passes: $((SECONDS - t0)) s)"
fi

for step in "${steps[@]}"; do grep -qx '# lane: background' "$step" || run_step "$step"; done
wait
for step in "${steps[@]}"; do
  name=$(basename "$step" .sh)
  line=$(grep -E '^[0-9]+ passed, [0-9]+ failed(, [0-9]+ skipped)?$' "$log/step-$name.log" | tail -1)
  if [ -z "$line" ]; then
    echo "== $name: no summary line"; tail -40 "$log/step-$name.log"
    failed=$((failed + 1)); status=1; continue
  fi
  read -r p f k < <(echo "$line" | sed -E 's#^([0-9]+) passed, ([0-9]+) failed(, ([0-9]+) skipped)?$#\1 \2 \4#')
  k=${k:-0}
  echo "== $name: $p passed, $f failed, $k skipped ($(cat "$log/step-$name.secs") s)"
  passed=$((passed + p)); failed=$((failed + f)); skipped=$((skipped + k))
  if [ "$f" -ne 0 ]; then tail -60 "$log/step-$name.log"; status=1; fi
done
echo "   (suite.d steps, from the background lane's start: $((SECONDS - t_steps)) s)"

# luarocks make, offline, into a scratch tree; then load the installed module
tree=$(mktemp -d) t0=$SECONDS
# (luarocks runs `cmake --build` without -j: the level comes from the environment)
# (GPUMAT_WERROR=ON: the release build's flags, so ccache has its objects)
if GPUMAT_WERROR=ON CMAKE_BUILD_PARALLEL_LEVEL="$jobs" luarocks --lua-version 5.4 make --tree "$tree" rockspec/gpumat-scm-1.rockspec >"$log/rock.log" 2>&1 &&
   LUA_PATH="$tree/share/lua/5.4/?.lua;$tree/share/lua/5.4/?/init.lua" LUA_CPATH="$tree/lib/lua/5.4/?.so" \
   lua5.4 -e 'local gm = require "gpumat"; assert(gm.mat(3, {initial_element = 2})[3] == 2)' >>"$log/rock.log" 2>&1; then
  echo "== luarocks make: ok"; passed=$((passed + 1))
else
  echo "== luarocks make: FAILED"; tail -30 "$log/rock.log"; failed=$((failed + 1)); status=1
fi
echo "   (luarocks make: $((SECONDS - t0)) s)"
rm -rf "$tree" build-rock 2>/dev/null

echo "$passed passed, $failed failed, $skipped skipped"
exit $status
