#!/usr/bin/env bash
# Fault injection on the emulated device: tools/faults.lua
# for every N = 1..30 (every Nth allocation or copy fails, at most 3 faults
# per run), for allocations and copies together and each alone.
cd "$(dirname "$0")/../.."
if [ -z "${BUILD:-}" ] || [ ! -e "$BUILD/gpumat/core.so" ]; then echo "0 passed, 0 failed, 1 skipped"; exit 0; fi
exec tools/faults-sweep.sh "$BUILD" 30 3
