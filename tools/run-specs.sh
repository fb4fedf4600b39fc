#!/usr/bin/env bash
# Runs the busted suite once in one configuration and prints busted's
# output; the caller parses the summary line.
#   tools/run-specs.sh BUILD_DIR [env assignments...]
# Tests tagged #source check the source tree and docs, not the library:
# they give the same answer in every configuration, so only the plain run
# (no environment given) runs them.
set -uo pipefail
build=$1; shift
cd "$(dirname "$0")/.."
tags=()
[ $# -gt 0 ] && tags=(--exclude-tags=source)
env GPUMAT_BUILD_DIR="$build" "$@" lua5.4 /usr/bin/busted -o utfTerminal --no-auto-insulate "${tags[@]}" 2>&1
