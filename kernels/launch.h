/* Launch geometry shared by the CUDA launchers (choose-1d-block-and-grid). */
#ifndef GM_KERNELS_LAUNCH_H
#define GM_KERNELS_LAUNCH_H

#include <stddef.h>

#define GM_WARP_SIZE 32
#define GM_MAX_BLOCK 256
#define GM_MAX_GRID 65535

/* Block of up to 256 threads (whole warps), grid so that a grid-stride
 * loop covers n elements. */
static inline void gm_launch_1d(size_t n, int *block, int *grid) {
  size_t b = n < GM_MAX_BLOCK ? (n + GM_WARP_SIZE - 1) / GM_WARP_SIZE * GM_WARP_SIZE : GM_MAX_BLOCK;
  if (b == 0) b = GM_WARP_SIZE;
  size_t g = n / b + (n % b != 0); /* no n + b - 1: n may be near SIZE_MAX */
  if (g == 0) g = 1;
  if (g > GM_MAX_GRID) g = GM_MAX_GRID;
  *block = (int)b;
  *grid = (int)g;
}

/* CUDA's limits on a launch's configuration (every card of compute
 * capability 3.0 and later, H100 and H200 included): a launch beyond them
 * runs nothing and fails with cudaErrorInvalidConfiguration.  Dynamic
 * shared memory beyond 48 KiB needs cudaFuncSetAttribute's opt-in (up to
 * 227 KiB on an H100), which no launch here uses; static shared memory
 * beyond 48 KiB is refused by nvcc/NVRTC when the kernel compiles. */
#define GM_CUDA_MAX_BLOCK_THREADS 1024
#define GM_CUDA_MAX_BLOCK_XY 1024
#define GM_CUDA_MAX_BLOCK_Z 64
#define GM_CUDA_MAX_GRID_X 2147483647u
#define GM_CUDA_MAX_GRID_YZ 65535
#define GM_CUDA_MAX_SHARED ((size_t)48 * 1024)

/* NULL when grid g[0..2] and block g[3..5] with `shmem` bytes of dynamic
 * shared memory are a configuration CUDA launches; else what is wrong.
 * The emulated device's launches (kernels/cpu/emu_kernels.h) and the
 * run-time kernels on every backend (core/kernel.c) refuse the same. */
static inline const char *gm_launch_config_error(const unsigned g[6], size_t shmem) {
  if (!g[0] || !g[1] || !g[2] || !g[3] || !g[4] || !g[5]) return "a grid or block dimension is 0";
  if (g[0] > GM_CUDA_MAX_GRID_X) return "grid x is over 2147483647";
  if (g[1] > GM_CUDA_MAX_GRID_YZ || g[2] > GM_CUDA_MAX_GRID_YZ) return "grid y and z are at most 65535";
  if (g[3] > GM_CUDA_MAX_BLOCK_XY || g[4] > GM_CUDA_MAX_BLOCK_XY) return "block x and y are at most 1024";
  if (g[5] > GM_CUDA_MAX_BLOCK_Z) return "block z is at most 64";
  if ((unsigned long long)g[3] * g[4] * g[5] > GM_CUDA_MAX_BLOCK_THREADS) return "a block has at most 1024 threads";
  if (shmem > GM_CUDA_MAX_SHARED) return "dynamic shared memory is over 48 KiB per block";
  return NULL;
}

#endif
