#!/usr/bin/env bash
# The GPU kit's self-check (tools/gpu/selfcheck, under a minute): without a
# GPU, or with a fake nvidia-smi but no toolkit or no usable device, or
# with a host-only build, tools/gpu/run must fail, at
# preflight and before any build where it can; GPUKIT_NO_GPU=1 passes and
# says there is no CUDA result.  Uses BUILD's core.so (no build here).
cd "$(dirname "$0")/../.."
tools/gpu/selfcheck "${BUILD:-build}"
