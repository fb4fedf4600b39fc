#!/usr/bin/env bash
# The CUDA backend's C sources against older runtime APIs (a GPU machine
# may have a 12.x toolkit):
# src/device/cuda/*.c (and src/dist/nccl.c when nccl.h is found) are
# compiled, syntax only, with the installed toolkit's headers as they are
# (13.x), and with tools/cuda-compat/cuda12.h force-included for 12.0,
# 12.4 and 12.8 (the prototypes CUDA 13 changed, and CUDART_VERSION,
# as those versions have them).  So a 13-only call outside a
# CUDART_VERSION guard fails here, although only a 13.x toolkit exists.
set -u
cd "$(dirname "$0")/../.."
cuda=${CUDA_HOME:-/usr/local/cuda}
if [ ! -f "$cuda/include/cuda_runtime_api.h" ]; then
  echo "cuda-compat: no CUDA headers in $cuda, skipped"
  echo "0 passed, 0 failed, 1 skipped"
  exit 0
fi
lua_inc=$(ls -d /usr/include/lua5.4 2>/dev/null || echo /usr/include)
cc=${CC:-gcc}
pass=0 fail=0
srcs=(src/device/cuda/*.c)
extra=()
for d in "${NCCL_ROOT:-}/include" "$cuda/include" /usr/include; do
  if [ -f "$d/nccl.h" ]; then srcs+=(src/dist/nccl.c); extra=(-I"$d" -DGPUMAT_HAVE_NCCL=1); break; fi
done
# what cmake/Cuda.cmake defines for libs.c (the libraries opened on first use)
for lib in CUBLAS CUSOLVER CUFFT NVRTC NCCL; do
  extra+=(-DGPUMAT_${lib}_SONAME='"lib.so"' -DGPUMAT_${lib}_DIR='""')
done
for ver in 13 12000 12040 12080; do
  flags=()
  [ "$ver" != 13 ] && flags=(-DGM_COMPAT_CUDART_VERSION="$ver" -include tools/cuda-compat/cuda12.h)
  for f in "${srcs[@]}"; do
    if out=$("$cc" -std=gnu11 -fsyntax-only -Wall -Werror -DGPUMAT_HAVE_CUDA=1 "${flags[@]}" -Iinclude -Isrc \
        -I"$lua_inc" -I"$cuda/include" "${extra[@]}" "$f" 2>&1); then
      pass=$((pass + 1))
    else
      fail=$((fail + 1))
      echo "cuda-compat: $f does not compile for CUDART_VERSION $ver:"
      echo "$out" | head -n 20
    fi
  done
  echo "cuda-compat: CUDART_VERSION $ver: ${#srcs[@]} files checked"
done
echo "$pass passed, $fail failed"
