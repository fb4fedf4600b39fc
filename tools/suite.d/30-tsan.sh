#!/usr/bin/env bash
# ThreadSanitizer build of the C thread tests only (host, no CUDA, no Lua
# module): tests/facet_thread_test.c (watcher rules, per-vec lock),
# tests/c_api_thread_test.c (the public C API from several threads on
# distinct mats), and the emulated device's stream workers against the
# host thread (tests/emulated_async_test.c, tests/h2d_queue_test.c; the
# host caching allocator with several threads allocating and one trimming,
# tests/hostpool_test.c; gm_lock under contention, tests/lock_test.c;
# the device pool likewise, tests/pool_test.c;
# gm_par_for's pool with several callers,
# tests/par_test.c; the
# kernels' C++ objects instrumented too).  GPUMAT_SANITIZE turns off the target_clones resolvers,
# which run before TSan is initialised.  -g1: line tables are all a report
# needs, at a fraction of full debug info's compile time; the emulated
# kernels at -O1 (GPUMAT_EMU_OPT), most of this build's time at -O3, and
# the C sources at -O1 too (this lane, 386 s, was the suite.d steps' longest).  Ends with "N passed, N failed".
# lane: background
# (tools/test.sh runs it beside the other steps: its build uses both cores)
set -uo pipefail
cd "$(dirname "$0")/../.."
dir=build-tsan
pass=0 fail=0
if ! cmake -S . -B "$dir" -DGPUMAT_CUDA=OFF -DGPUMAT_BUILD_TESTS=ON -DGPUMAT_WERROR=OFF \
    -DCMAKE_BUILD_TYPE=Release -DCMAKE_C_FLAGS_RELEASE="-O1 -DNDEBUG" -DGPUMAT_EMU_OPT=-O1 -DCMAKE_C_FLAGS="-fsanitize=thread -g1 -DGPUMAT_SANITIZE" -DCMAKE_CXX_FLAGS="-fsanitize=thread -g1 -DGPUMAT_SANITIZE" \
    -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=thread" >"$dir.log" 2>&1 ||
   ! nice cmake --build "$dir" -j2 --target gpumat_facet_thread_test gpumat_c_api_thread_test \
      gpumat_emulated_async_test gpumat_h2d_queue_test gpumat_hostpool_test gpumat_lock_test gpumat_pool_test gpumat_par_test >>"$dir.log" 2>&1; then
  tail -20 "$dir.log"
  echo "tsan: build failed"
  echo "0 passed, 1 failed"
  exit 0
fi
for t in gpumat_facet_thread_test gpumat_c_api_thread_test gpumat_emulated_async_test gpumat_h2d_queue_test gpumat_hostpool_test gpumat_lock_test gpumat_pool_test gpumat_par_test; do
  if TSAN_OPTIONS="halt_on_error=1 exitcode=66" "$dir/$t" >"$dir/$t.out" 2>&1; then
    echo "tsan: $t clean"
    pass=$((pass + 1))
  else
    tail -30 "$dir/$t.out"
    echo "tsan: $t FAILED"
    fail=$((fail + 1))
  fi
done
echo "$pass passed, $fail failed"
