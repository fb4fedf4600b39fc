// Launch helpers shared by the .cu files (CUDA only; launch.h holds the
// geometry that C code may use too).
#ifndef GM_KERNELS_LAUNCH_CUDA_CUH
#define GM_KERNELS_LAUNCH_CUDA_CUH

#include <cuda_runtime.h>

#include "launch.h"

// Geometry and stream of a 1-d grid-stride launch over n items.
struct gm_launch {
  int block, grid;
  cudaStream_t s;
  gm_launch(size_t n, void *stream) : s((cudaStream_t)stream) { gm_launch_1d(n, &block, &grid); }
};

// Casts of the launchers' void pointers to the kernel element types.
#define F(p) ((float *)(p))
#define D(p) ((double *)(p))
#define CF(p) ((const float *)(p))
#define CD(p) ((const double *)(p))

#endif
