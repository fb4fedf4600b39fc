#!/usr/bin/env bash
# NumPy differential oracle: 2 seeds x 120 random
# programs, each on the host and on the emulated device (480 runs), checked
# against numpy: half float/double programs (checked in float64), half
# typed ones over every element type (tools/oracle/typed.*).  `make
# oracle` runs the long campaign.
cd "$(dirname "$0")/../.."
if [ -z "${BUILD:-}" ] || [ ! -e "$BUILD/gpumat/core.so" ]; then echo "0 passed, 0 failed, 1 skipped"; exit 0; fi
exec tools/oracle/run.sh "$BUILD" 120 2 1
