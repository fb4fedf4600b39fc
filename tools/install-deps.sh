#!/usr/bin/env bash
# Installs the Debian packages gpumat needs when they are missing.
# As root it runs apt-get; otherwise it prints the command to run.
set -euo pipefail
# libdlpack-dev: the DLPack header include/gpumat.h uses when present (it is
# 0.6 on Debian 12; gpumat.h adds DLPack 1.x's versioned struct and builds
# without any header too); libkissfft-dev: KISS FFT (BSD-3-Clause), the host's
# FFT (gm.fft; its header-only C++ class, nothing linked)
pkgs=(lua5.4 liblua5.4-dev lua-busted libopenblas-dev liblapacke-dev cmake make gcc g++ luarocks
      pkg-config libopenmpi-dev openmpi-bin python3-numpy tmux gnuplot-nox lua-readline ccache libdlpack-dev
      libkissfft-dev)
missing=()
for p in "${pkgs[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" -ne 0 ]; then
  echo "missing packages: ${missing[*]}" >&2
  echo "run: sudo apt-get install -y ${missing[*]}" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq "${missing[@]}"
