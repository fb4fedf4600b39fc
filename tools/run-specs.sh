#!/usr/bin/env bash
# Runs the busted suite once in one configuration and prints busted's
# output; the caller parses the summary line.
#   tools/run-specs.sh BUILD_DIR [env assignments...]
set -uo pipefail
build=$1; shift
cd "$(dirname "$0")/.."
env GPUMAT_BUILD_DIR="$build" "$@" lua5.4 /usr/bin/busted -o utfTerminal --no-auto-insulate 2>&1
