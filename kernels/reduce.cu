// Whole-array reductions (core/reduce_ops.h) on the device: sum in double,
// min and max with NaN propagation (any NaN element gives NaN, as on the
// host).  Two launches: a grid-stride pass leaves one partial per block in
// a scratch array (gm_cuda_scratch_alloc, launch_cuda.cuh), one block folds the
// partials in block order, and the result is copied to the host.
#include <math.h>

#include "launch_cuda.cuh"

#define REDUCE_THREADS 256
#define REDUCE_MAX_BLOCKS 256

// op: 0 sum, 1 min, 2 max.  NaN is carried explicitly: a < b is false for NaN.
__device__ static inline double combine(int op, double a, double b) {
  if (op == 0) return a + b;
  if (isnan(a) || isnan(b)) return NAN;
  return op == 1 ? (b < a ? b : a) : (b > a ? b : a);
}

__device__ static double block_fold(int op, double v) {
  __shared__ double tile[REDUCE_THREADS];
  tile[threadIdx.x] = v;
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) tile[threadIdx.x] = combine(op, tile[threadIdx.x], tile[threadIdx.x + s]);
    __syncthreads();
  }
  return tile[0];
}

// Each thread starts from its first element (the identity for min/max is
// an element); threads with none contribute the identity of the op.
template <typename T>
__global__ void reduce_pass(int op, size_t n, const T *x, double *part) {
  size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  size_t stride = (size_t)gridDim.x * blockDim.x;
  double acc = op == 0 ? 0.0 : (op == 1 ? INFINITY : -INFINITY);
  for (; i < n; i += stride) acc = combine(op, acc, (double)x[i]);
  double r = block_fold(op, acc);
  if (threadIdx.x == 0) part[blockIdx.x] = r;
}

__global__ void reduce_final(int op, int n, double *part) {
  double acc = op == 0 ? 0.0 : (op == 1 ? INFINITY : -INFINITY);
  for (int i = threadIdx.x; i < n; i += blockDim.x) acc = combine(op, acc, part[i]);
  double r = block_fold(op, acc);
  if (threadIdx.x == 0) part[n] = r;
}

extern "C" int gm_cuda_reduce(int ctype, int op, size_t n, const void *x, double *result, void *stream) {
  cudaStream_t s = (cudaStream_t)stream;
  if (n == 0) { // no grid of 0 blocks: the identity of the op
    *result = op == 0 ? 0.0 : (op == 1 ? INFINITY : -INFINITY);
    return 0;
  }
  size_t want = (n + REDUCE_THREADS - 1) / REDUCE_THREADS;
  int blocks = want < REDUCE_MAX_BLOCKS ? (int)want : REDUCE_MAX_BLOCKS;
  double *part = NULL;
  size_t bytes = (size_t)(blocks + 1) * sizeof(double);
  int serr = gm_cuda_scratch_alloc(stream, bytes, (void **)&part);
  if (serr != 0) return serr;
  if (ctype == 0)
    GM_LAUNCH_SYNC(reduce_pass<float>, blocks, REDUCE_THREADS, 0, s)(op, n, CF(x), part);
  else
    GM_LAUNCH_SYNC(reduce_pass<double>, blocks, REDUCE_THREADS, 0, s)(op, n, CD(x), part);
  GM_LAUNCH_SYNC(reduce_final, 1, REDUCE_THREADS, 0, s)(op, blocks, part);
  cudaError_t err = cudaGetLastError();
  if (err == cudaSuccess) err = cudaMemcpyAsync(result, part + blocks, sizeof(double), cudaMemcpyDeviceToHost, s);
  gm_cuda_scratch_free(stream, part);
  cudaError_t sync = cudaStreamSynchronize(s);
  if (err == cudaSuccess) err = sync;
  return (int)err;
}
