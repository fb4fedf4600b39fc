// Launch helpers shared by the .cu files (CUDA only; launch.h holds the
// geometry that C code may use too).
#ifndef GM_KERNELS_LAUNCH_CUDA_CUH
#define GM_KERNELS_LAUNCH_CUDA_CUH

#include <cuda_runtime.h>

#include "launch.h"

// Launch sites: GM_LAUNCH(kernel, grid, block, shmem, stream)(args...), and
// GM_LAUNCH_SYNC for kernels that call __syncthreads() (directly or through
// a __device__ function such as gm_block_sum).  Under nvcc both are
// kernel<<<grid, block, shmem, stream>>>; the emulated device's build of
// these files (kernels/cpu/emu_kernels.h) defines them first, to run the
// kernel on the CPU model of CUDA with fibers only where the flag says.
#ifndef GM_LAUNCH
#define GM_LAUNCH(k, grid, block, shmem, stream) k<<<grid, block, shmem, stream>>>
#define GM_LAUNCH_SYNC(k, grid, block, shmem, stream) k<<<grid, block, shmem, stream>>>
#endif

// Geometry and stream of a 1-d grid-stride launch over n items.
struct gm_launch {
  int block, grid;
  cudaStream_t s;
  gm_launch(size_t n, void *stream) : s((cudaStream_t)stream) { gm_launch_1d(n, &block, &grid); }
};

// Sum of v over the threads of a block of GM_MAX_BLOCK threads, in shared
// memory sh[GM_MAX_BLOCK] (a tree: blockDim.x must be a power of two);
// every thread must call it; the result is valid in thread 0.  Shared
// memory and barriers only (no warp shuffles), so the CPU execution model
// runs it too.
__device__ inline double gm_block_sum(double v, double *sh) {
  sh[threadIdx.x] = v;
  __syncthreads();
  for (unsigned off = blockDim.x / 2; off > 0; off /= 2) {
    if (threadIdx.x < off) sh[threadIdx.x] += sh[threadIdx.x + off];
    __syncthreads();
  }
  double r = sh[0];
  __syncthreads(); // sh may be reused at once
  return r;
}

// Grid size for about `target` blocks in total when another grid dimension
// already has `other` blocks, at least 1 and at most min(cap, 65535).
static inline unsigned gm_spread(size_t target, size_t other, size_t cap) {
  size_t g = other >= target ? 1 : (target + other - 1) / other;
  if (g > cap) g = cap;
  if (g > GM_MAX_GRID) g = GM_MAX_GRID;
  return g ? (unsigned)g : 1u;
}

// Casts of the launchers' void pointers to the kernel element types.
#define F(p) ((float *)(p))
#define D(p) ((double *)(p))
#define CF(p) ((const float *)(p))
#define CD(p) ((const double *)(p))

#endif
