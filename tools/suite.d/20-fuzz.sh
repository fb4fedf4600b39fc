#!/usr/bin/env bash
# Hostile-input fuzzer, bounded campaign: 3 fixed seeds x
# 3000 calls, on the host and on the emulated device, under ASan+UBSan
# (allocations beyond ASan's limit return NULL, as malloc would).
# `make fuzz` runs the long campaign.
cd "$(dirname "$0")/../.."
if [ -z "${BUILD_ASAN:-}" ] || [ ! -e "$BUILD_ASAN/gpumat/core.so" ]; then
  echo "no ASan build"; echo "0 passed, 0 failed, 1 skipped"; exit 0
fi
# shellcheck disable=SC2086
FUZZ_TIME_LIMIT=60 exec tools/fuzz-run.sh "$BUILD_ASAN" 3 3000 1 ${SAN_ENV:-} \
  ASAN_OPTIONS=detect_leaks=0:protect_shadow_gap=0:abort_on_error=1:allocator_may_return_null=1
