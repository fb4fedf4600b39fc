// Random fills on the device: the counter-based Philox block functions of
// random.h on a full grid (the cuRAND XORWOW states gave only
// n_random_states threads and a curand_init per context).  Thread t takes
// blocks t, t + stride, ... of the fill's reservation, so the values are
// the host's and the emulated device's for the same state.
#include <cuda_runtime.h>

#include "launch_cuda.cuh"
#include "random.h"

template <typename T> struct per_block;
template <> struct per_block<float> { static const size_t n = GM_RANDOM_PER_BLOCK_FLOAT; };
template <> struct per_block<double> { static const size_t n = GM_RANDOM_PER_BLOCK_DOUBLE; };

__device__ inline void uniform_block(uint64_t key, uint64_t b, float lim, float below, float *x, size_t k) {
  gm_uniform_block_float(key, b, lim, below, x, k);
}
__device__ inline void uniform_block(uint64_t key, uint64_t b, double lim, double below, double *x, size_t k) {
  gm_uniform_block_double(key, b, lim, below, x, k);
}
__device__ inline void gaussian_block(uint64_t key, uint64_t b, double m, double s, float *x, size_t k) {
  gm_gaussian_block_float(key, b, m, s, x, k);
}
__device__ inline void gaussian_block(uint64_t key, uint64_t b, double m, double s, double *x, size_t k) {
  gm_gaussian_block_double(key, b, m, s, x, k);
}

// One Philox block per iteration; count < per-block only in the last one.
template <typename T>
__global__ void gm_uniform_kernel(uint64_t key, uint64_t counter, size_t n, T limit, T below, T *x) {
  const size_t per = per_block<T>::n, blocks = (n + per - 1) / per;
  for (size_t b = blockIdx.x * (size_t)blockDim.x + threadIdx.x; b < blocks; b += (size_t)blockDim.x * gridDim.x) {
    const size_t i = b * per, count = n - i < per ? n - i : per;
    uniform_block(key, counter + b, limit, below, x + i, count);
  }
}

template <typename T>
__global__ void gm_gaussian_kernel(uint64_t key, uint64_t counter, size_t n, double mean, double stddev, T *x) {
  const size_t per = per_block<T>::n, blocks = (n + per - 1) / per;
  for (size_t b = blockIdx.x * (size_t)blockDim.x + threadIdx.x; b < blocks; b += (size_t)blockDim.x * gridDim.x) {
    const size_t i = b * per, count = n - i < per ? n - i : per;
    gaussian_block(key, counter + b, mean, stddev, x + i, count);
  }
}

// One case per ctype (GM_CTYPES); ctype is the launcher's gm_ctype number.
extern "C" int gm_cuda_uniform(int ctype, unsigned long long key, unsigned long long counter, size_t n,
                               double limit, void *x, const gm_launch_ctx *lc) {
  void *stream = lc->stream;
  switch (ctype) {
#define X(T, E, name, kw, p, P, ET, m, ...)                                                             \
  case GM_##E: {                                                                                      \
    const T lim = (T)limit;                                                                           \
    gm_launch g((n + GM_RANDOM_PER_BLOCK_##E - 1) / GM_RANDOM_PER_BLOCK_##E, stream);                 \
    GM_LAUNCH(gm_uniform_kernel<T>, g.grid, g.block, 0, g.s)(key, counter, n, lim, nextafter##m(lim, (T)0), (T *)x); \
    break;                                                                                            \
  }
    GM_FLOAT_CTYPES(X)
#undef X
    default:
      return (int)cudaErrorInvalidValue;
  }
  return (int)cudaGetLastError();
}

extern "C" int gm_cuda_gaussian(int ctype, unsigned long long key, unsigned long long counter, size_t n,
                                double mean, double stddev, void *x, const gm_launch_ctx *lc) {
  void *stream = lc->stream;
  switch (ctype) {
#define X(T, E, ...)                                                                                  \
  case GM_##E: {                                                                                      \
    gm_launch g((n + GM_RANDOM_PER_BLOCK_##E - 1) / GM_RANDOM_PER_BLOCK_##E, stream);                 \
    GM_LAUNCH(gm_gaussian_kernel<T>, g.grid, g.block, 0, g.s)(key, counter, n, mean, stddev, (T *)x); \
    break;                                                                                            \
  }
    GM_FLOAT_CTYPES(X)
#undef X
    default:
      return (int)cudaErrorInvalidValue;
  }
  return (int)cudaGetLastError();
}
