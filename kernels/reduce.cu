// Whole-array reductions (core/reduce_ops.h) on the device: sum in double,
// min and max with NaN propagation (any NaN element gives NaN, as on the
// host).  Two launches and a scratch array (gm_cuda_scratch_alloc,
// launch_cuda.cuh) of one partial per slot:
//  - reduce_pass: slot t (a thread: up to 1024 blocks of 256) folds
//    x[t], x[t + slots], ... (coalesced across the threads) with four
//    independent accumulators, and stores its partial.  No barriers: a
//    range launch, so on the emulated device a chunk of slots is a plain
//    loop whose few lines stay in cache;
//  - more than a block's worth of partials: reduce_pass again on them,
//    down to 248 (one block);
//  - reduce_final: one block folds the partials in shared memory,
//    and the result is copied to the host.
#include <math.h>

#include "launch_cuda.cuh"

#define REDUCE_THREADS 256
#define REDUCE_MAX_BLOCKS 1024
#define REDUCE_MIN_PER_SLOT 16 // elements per slot before more slots are used

// op: 0 sum, 1 min, 2 max.  NaN is carried explicitly: a < b is false for NaN.
__device__ static inline double combine(int op, double a, double b) {
  if (op == 0) return a + b;
  if (isnan(a) || isnan(b)) return NAN;
  return op == 1 ? (b < a ? b : a) : (b > a ? b : a);
}

__device__ static inline double identity(int op) { return op == 0 ? 0.0 : (op == 1 ? INFINITY : -INFINITY); }

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

// One slot's fold for op OP (a template argument: no branch on the op per
// element).  A slot with no element contributes the identity of the op.
template <int OP, typename T>
__device__ __forceinline__ double slot_fold(size_t t, size_t n, size_t slots, const T *x) {
  double a0 = identity(OP), a1 = a0, a2 = a0, a3 = a0;
  size_t i = t;
  for (; i < n && n - i > 3 * slots; i += 4 * slots) {
    a0 = combine(OP, a0, (double)x[i]);
    a1 = combine(OP, a1, (double)x[i + slots]);
    a2 = combine(OP, a2, (double)x[i + 2 * slots]);
    a3 = combine(OP, a3, (double)x[i + 3 * slots]);
  }
  for (; i < n; i += slots) a0 = combine(OP, a0, (double)x[i]);
  return combine(OP, combine(OP, a0, a1), combine(OP, a2, a3));
}

template <typename T>
__global__ void reduce_pass(int op, size_t n, size_t slots, const T *x, double *part) {
  if (op == 0)
    GRID_STRIDE(t, slots) part[t] = slot_fold<0>(t, n, slots, x);
  else if (op == 1)
    GRID_STRIDE(t, slots) part[t] = slot_fold<1>(t, n, slots, x);
  else
    GRID_STRIDE(t, slots) part[t] = slot_fold<2>(t, n, slots, x);
}

__global__ void reduce_final(int op, int n, double *part) {
  double acc = identity(op);
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
  // whole blocks of slots, each slot REDUCE_MIN_PER_SLOT elements or more
  size_t blocks = n / ((size_t)REDUCE_THREADS * REDUCE_MIN_PER_SLOT);
  if (blocks < 1) blocks = 1;
  if (blocks > REDUCE_MAX_BLOCKS) blocks = REDUCE_MAX_BLOCKS;
  // 8 slots fewer than threads: the distance between a slot's elements is
  // then no power of two (on a CPU, a slot's 4 accumulators' elements
  // fell into one cache set and evicted each other), while it stays a
  // multiple of 32 bytes, so a warp's loads keep to whole sectors.
  const size_t slots = blocks * REDUCE_THREADS - 8;
  // Partials beyond one block's worth are first folded to REDUCE_THREADS - 8
  // by a second pass (one block), so the block fold reads few values.
  const size_t slots2 = slots > REDUCE_THREADS ? REDUCE_THREADS - 8 : 0, folded = slots2 ? slots2 : slots;
  double *part = NULL;
  int serr = gm_cuda_scratch_alloc(stream, (slots + slots2 + 1) * sizeof(double), (void **)&part);
  if (serr != 0) return serr;
  double *last = part + (slots2 ? slots : 0); // the partials the block folds
  const double work = (double)n / (double)slots;
  if (ctype == 0)
    GM_LAUNCH_RANGE(reduce_pass<float>, (unsigned)blocks, REDUCE_THREADS, s, slots, work)(op, n, slots, CF(x), part);
  else
    GM_LAUNCH_RANGE(reduce_pass<double>, (unsigned)blocks, REDUCE_THREADS, s, slots, work)(op, n, slots, CD(x), part);
  if (slots2)
    GM_LAUNCH_RANGE(reduce_pass<double>, 1, REDUCE_THREADS, s, slots2, (double)slots / (double)slots2)(
        op, slots, slots2, (const double *)part, last);
  GM_LAUNCH_SYNC(reduce_final, 1, REDUCE_THREADS, 0, s)(op, (int)folded, last);
  cudaError_t err = cudaGetLastError();
  if (err == cudaSuccess) err = cudaMemcpyAsync(result, last + folded, sizeof(double), cudaMemcpyDeviceToHost, s);
  gm_cuda_scratch_free(stream, part);
  cudaError_t sync = cudaStreamSynchronize(s);
  if (err == cudaSuccess) err = sync;
  return (int)err;
}
