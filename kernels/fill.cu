// CUDA fill kernel and its extern "C" launcher (used by the cuda device).
#include <cuda_runtime.h>

#include "launch_cuda.cuh"

template <typename T>
__global__ void gm_fill_kernel(T *x, size_t n, size_t incx, T alpha) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
       i += (size_t)blockDim.x * gridDim.x)
    x[i * incx] = alpha;
}

extern "C" int gm_cuda_fill(int ctype, size_t n, double alpha, void *x, size_t incx, void *stream) {
  int block, grid;
  gm_launch_1d(n, &block, &grid);
  cudaStream_t s = (cudaStream_t)stream;
  if (ctype == 0)
    GM_LAUNCH(gm_fill_kernel<float>, grid, block, 0, s)((float *)x, n, incx, (float)alpha);
  else
    GM_LAUNCH(gm_fill_kernel<double>, grid, block, 0, s)((double *)x, n, incx, alpha);
  return (int)cudaGetLastError();
}
