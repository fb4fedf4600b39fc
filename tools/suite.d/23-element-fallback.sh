#!/usr/bin/env bash
# Element access without direct-access certificates (GPUMAT_NO_DIRECT=1,
# as on a kernel without membarrier): every m[k], m[k] = v, mref and set
# takes gm_mat_get/gm_mat_put's locked fast path or the watched path.  The
# element specs run so on the host and the emulated device, plain and under
# ASan+UBSan.
set -uo pipefail
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
BUILD_ASAN=${BUILD_ASAN:-build-asan}
SAN_ENV=${SAN_ENV:-}
passed=0 failed=0 skipped=0
specs="spec/element_access_spec.lua spec/element_fallback_spec.lua spec/facet_spec.lua"
run() { # label build env...
  local label=$1 build=$2; shift 2
  if [ ! -f "$build/gpumat/core.so" ]; then
    echo "skipped: $label ($build/gpumat/core.so missing)"; skipped=$((skipped + 1)); return
  fi
  local out
  out=$(env GPUMAT_NO_DIRECT=1 GPUMAT_BUILD_DIR="$build" "$@" lua5.4 /usr/bin/busted -o utfTerminal --no-auto-insulate $specs 2>&1)
  if echo "$out" | grep -qE "^[0-9]+ successes / 0 failures / 0 errors"; then
    echo "ok: $label: $(echo "$out" | grep -E 'successes' | tail -1)"; passed=$((passed + 1))
  else
    echo "FAILED: $label"; echo "$out" | tail -30; failed=$((failed + 1))
  fi
}
run "host" "$BUILD"
run "emulated" "$BUILD" GPUMAT_DEVICE=emulated
# shellcheck disable=SC2086
run "asan host" "$BUILD_ASAN" $SAN_ENV
# shellcheck disable=SC2086
run "asan emulated" "$BUILD_ASAN" $SAN_ENV GPUMAT_DEVICE=emulated
echo "$passed passed, $failed failed, $skipped skipped"
