#!/usr/bin/env bash
# The emulated kernel specs with GPUMAT_EMULATED_GEOMETRY=exact: range
# launches, which otherwise run as counted loops over chunks,
# run their real grid of blocks of threads with CUDA's own index math
# (kernels/cpu/emu_kernels.h), as do run-time kernels (lua/gpumat/kernel.lua),
# so a launch geometry that leaves items out or does them twice fails here.
# The specs that drive every op family through spec/device_ops.lua and the
# run-time kernels' range forms, on the emulated device.
set -uo pipefail
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
passed=0 failed=0 skipped=0
specs="spec/emulated_kernels_spec.lua spec/device_spec.lua spec/kernel_range_spec.lua spec/kernel_spec.lua"
if [ ! -f "$BUILD/gpumat/core.so" ]; then
  echo "skipped: exact geometry ($BUILD/gpumat/core.so missing)"; skipped=1
else
  out=$(env GPUMAT_DEVICE=emulated GPUMAT_EMULATED_GEOMETRY=exact GPUMAT_BUILD_DIR="$BUILD" \
    lua5.4 /usr/bin/busted -o utfTerminal --no-auto-insulate $specs 2>&1)
  if echo "$out" | grep -qE "^[0-9]+ successes / 0 failures / 0 errors"; then
    echo "ok: exact geometry: $(echo "$out" | grep -E 'successes' | tail -1)"; passed=1
  else
    echo "FAILED: exact geometry"; echo "$out" | tail -40; failed=1
  fi
fi
echo "$passed passed, $failed failed, $skipped skipped"
