#!/usr/bin/env bash
# Hostile-input fuzzer, bounded campaign: 3 fixed seeds x
# 3000 calls, on the host and on the emulated device, under ASan+UBSan
# (allocations beyond ASan's limit return NULL, as malloc would); then one
# seed x 1500 calls with GPUMAT_GC_PACE_MIN=0 (a full collection at every
# new mat: finalizers run in the middle of calls) and
# GPUMAT_HOST_FAIL_EVERY=17 (every 17th host pool request fails).
# `make fuzz` runs the long campaign.
cd "$(dirname "$0")/../.."
if [ -z "${BUILD_ASAN:-}" ] || [ ! -e "$BUILD_ASAN/gpumat/core.so" ]; then
  echo "no ASan build"; echo "0 passed, 0 failed, 1 skipped"; exit 0
fi
asan=ASAN_OPTIONS=detect_leaks=0:protect_shadow_gap=0:abort_on_error=1:allocator_may_return_null=1
# shellcheck disable=SC2086
out1=$(FUZZ_TIME_LIMIT=60 tools/fuzz-run.sh "$BUILD_ASAN" 3 2600 1 ${SAN_ENV:-} "$asan")
# shellcheck disable=SC2086
out2=$(FUZZ_TIME_LIMIT=120 tools/fuzz-run.sh "$BUILD_ASAN" 1 1300 101 ${SAN_ENV:-} "$asan" \
  GPUMAT_GC_PACE_MIN=0 GPUMAT_HOST_FAIL_EVERY=17)
printf '%s\n' "$out1" | sed '$d'
printf '%s\n' "$out2" | sed '$d'
p1=$(printf '%s\n' "$out1" | sed -nE '$s/^([0-9]+) passed, ([0-9]+) failed.*/\1 \2/p')
p2=$(printf '%s\n' "$out2" | sed -nE '$s/^([0-9]+) passed, ([0-9]+) failed.*/\1 \2/p')
read -r a1 f1 <<<"${p1:-0 1}"
read -r a2 f2 <<<"${p2:-0 1}"
echo "$((a1 + a2)) passed, $((f1 + f2)) failed"
