// Reductions along an axis (m:sum(axis), m:argmax(axis), gm.softmax, ...)
// on the device: one kernel for every axis and op, on the array seen as
// (outer, len, inner) and reduced over the middle index (kernels/
// reduce_axis.h has the accumulators, shared with the host loops).
//
// A block of AX_THREADS threads handles `cols` columns (outputs) at a
// time with `lanes` threads per column (cols * lanes = AX_THREADS); lane l
// folds elements l, l + lanes, ... of its column and the lanes are merged
// in shared memory (no warp shuffles, so the CPU model of the emulated
// device runs the same code).  Two mappings keep the loads coalesced:
//  rows (inner == 1): the lanes of a column are adjacent threads reading
//    adjacent elements of one row; up to 32 lanes (a warp per row), so a
//    block covers several short rows;
//  columns (inner > 1): adjacent threads take adjacent columns (adjacent
//    elements of a row of the (len, inner) slab), 32 of them, and the 8
//    lanes split the axis.
// Softmax writes every element of its column after the merge.
// Few outputs with a long axis (a whole-mat reduction is one output) would
// leave most of the device idle: the axis is then also split over
// blockIdx.y, each split leaves partial accumulators in scratch, a second
// kernel merges them in split order (gm_ax_merge is order-independent for
// ties) and, for softmax, a third writes the elements.
#include <cuda_runtime.h>

#include "launch_cuda.cuh"
#include "reduce_axis.h"

namespace {

#define AX_THREADS 256

// y holds doubles for argmax/argmin (1-based indices), else T.
template <typename T>
__device__ inline void put(int op, void *y, size_t i, double v) {
  if (gm_ax_is_arg(op))
    ((double *)y)[i] = v;
  else
    ((T *)y)[i] = (T)v;
}

// Split over blockIdx.y: blocks with blockIdx.y = p fold axis elements
// [p * chunk, (p + 1) * chunk) of their columns; with `part` they leave
// their accumulators in part[p * outer * inner + q] for the merge kernel,
// else (one split) they write the results.
template <typename T>
__global__ void reduce_axis_kernel(int op, int ddof, size_t outer, size_t len, size_t inner, unsigned lanes,
                                   size_t chunk, const T *x, void *y, gm_axacc *part) {
  __shared__ gm_axacc sh[AX_THREADS];
  const bool rows = inner == 1;
  const unsigned cols = blockDim.x / lanes, t = threadIdx.x;
  const unsigned lane = rows ? t % lanes : t / cols, col = rows ? t / lanes : t % cols;
  const size_t tiles = ((rows ? outer : inner) + cols - 1) / cols;
  const size_t n_groups = rows ? tiles : outer * tiles;
  for (size_t g = blockIdx.x; g < n_groups; g += gridDim.x) {
    const size_t o = rows ? g * cols + col : g / tiles, j = rows ? 0 : (g % tiles) * cols + col;
    const bool live = rows ? o < outer : j < inner;
    const size_t base = o * len * inner + j; // element k of the column: base + k * inner
    const size_t k0 = blockIdx.y * chunk, k1 = len - k0 < chunk ? len : k0 + chunk;
    gm_axacc c = gm_ax_init(op);
    if (live)
      for (size_t k = k0 + lane; k < k1; k += lanes) gm_ax_step(op, &c, (double)x[base + k * inner], (long long)k);
    sh[lane * cols + col] = c;
    __syncthreads();
    for (unsigned s = lanes / 2; s > 0; s /= 2) {
      if (lane < s) gm_ax_merge(op, &sh[lane * cols + col], sh[(lane + s) * cols + col]);
      __syncthreads();
    }
    c = sh[col];
    __syncthreads(); // sh is reused by the next group
    if (!live) continue;
    if (part) {
      if (lane == 0) part[blockIdx.y * outer * inner + o * inner + j] = c;
    } else if (op == GM_AX_SOFTMAX) {
      for (size_t k = lane; k < len; k += lanes) ((T *)y)[base + k * inner] = (T)gm_ax_softmax(c, (double)x[base + k * inner]);
    } else if (lane == 0) {
      put<T>(op, y, o * inner + j, gm_ax_result(op, c, (long long)len, ddof));
    }
  }
}

// Merges the n_split partial accumulators of each output in split order;
// writes the results, or for softmax the merged accumulator into part.
template <typename T>
__global__ void reduce_axis_merge(int op, int ddof, size_t n_out, size_t len, size_t n_split, gm_axacc *part,
                                  void *y) {
  for (size_t q = blockIdx.x * (size_t)blockDim.x + threadIdx.x; q < n_out; q += (size_t)blockDim.x * gridDim.x) {
    gm_axacc c = part[q];
    for (size_t p = 1; p < n_split; p++) gm_ax_merge(op, &c, part[p * n_out + q]);
    if (op == GM_AX_SOFTMAX)
      part[q] = c;
    else
      put<T>(op, y, q, gm_ax_result(op, c, (long long)len, ddof));
  }
}

// Softmax elements of x (outer, len, inner) from the merged accumulators.
template <typename T>
__global__ void reduce_axis_softmax(size_t n, size_t len, size_t inner, const gm_axacc *acc, const T *x, T *y) {
  for (size_t e = blockIdx.x * (size_t)blockDim.x + threadIdx.x; e < n; e += (size_t)blockDim.x * gridDim.x) {
    const size_t q = e / (len * inner) * inner + e % inner;
    y[e] = (T)gm_ax_softmax(acc[q], (double)x[e]);
  }
}

// Lanes per column: up to a warp along a row (inner == 1; the whole block
// for fewer than 8 rows), else 8 (the 32 adjacent columns of a block take
// the rest of its threads).
unsigned lanes_for(size_t outer, size_t len, size_t inner) {
  if (inner != 1) return AX_THREADS / 32;
  unsigned rows = 1, most = 32, lanes = 1;
  while (rows < outer && rows < 8) rows *= 2;
  if (AX_THREADS / rows > most) most = AX_THREADS / rows; // few rows: the whole block on them
  while (lanes < most && lanes < len) lanes *= 2;
  return lanes;
}

// Blocks along the outputs (x) and splits of the axis (y): a long axis
// with few outputs (a whole-mat reduction is one) is split so that about
// AX_TARGET_BLOCKS blocks share the work, each fold at least AX_MIN_CHUNK
// elements of a column.
#define AX_TARGET_BLOCKS 512
#define AX_MIN_CHUNK 65536
dim3 grid_for(size_t outer, size_t len, size_t inner, unsigned lanes) {
  const unsigned cols = AX_THREADS / lanes;
  const size_t tiles = ((inner == 1 ? outer : inner) + cols - 1) / cols;
  const size_t n_groups = inner == 1 ? tiles : outer * tiles;
  dim3 g(n_groups < GM_MAX_GRID ? (unsigned)n_groups : GM_MAX_GRID);
  if (n_groups < AX_TARGET_BLOCKS) {
    size_t want = (AX_TARGET_BLOCKS + n_groups - 1) / n_groups, most = (len + AX_MIN_CHUNK - 1) / AX_MIN_CHUNK;
    size_t splits = want < most ? want : most;
    g.y = splits < 1 ? 1 : splits > GM_MAX_GRID ? GM_MAX_GRID : (unsigned)splits;
  }
  return g;
}

// Stream-ordered scratch; devices without memory pools use cudaMalloc.
cudaError_t scratch_alloc(void **p, size_t bytes, cudaStream_t s, bool *async) {
  *async = true;
  cudaError_t err = cudaMallocAsync(p, bytes, s);
  if (err != cudaErrorNotSupported) return err;
  (void)cudaGetLastError();
  *async = false;
  return cudaMalloc(p, bytes);
}

int launch_split(int ctype, int op, int ddof, size_t outer, size_t len, size_t inner, unsigned lanes, dim3 grid,
                 const void *x, void *y, cudaStream_t s);

// The split form: partial accumulators in scratch, merged in split order,
// then (softmax) the elements written.
int launch_split(int ctype, int op, int ddof, size_t outer, size_t len, size_t inner, unsigned lanes, dim3 grid,
                 const void *x, void *y, cudaStream_t s) {
  const size_t n_out = outer * inner, chunk = (len + grid.y - 1) / grid.y, n = n_out * len;
  gm_axacc *part = NULL;
  bool async;
  cudaError_t err = scratch_alloc((void **)&part, (size_t)grid.y * n_out * sizeof *part, s, &async);
  if (err != cudaSuccess) return (int)err;
  gm_launch m(n_out, s), w(n, s);
  switch (ctype) { // one case per ctype (GM_CTYPES)
#define X(T, E, ...)                                                                                      \
  case GM_##E:                                                                                            \
    GM_LAUNCH_SYNC(reduce_axis_kernel<T>, grid, AX_THREADS, 0, s)                                         \
    (op, ddof, outer, len, inner, lanes, chunk, (const T *)x, y, part);                                   \
    GM_LAUNCH(reduce_axis_merge<T>, m.grid, m.block, 0, s)(op, ddof, n_out, len, (size_t)grid.y, part, y); \
    if (op == GM_AX_SOFTMAX)                                                                              \
      GM_LAUNCH(reduce_axis_softmax<T>, w.grid, w.block, 0, s)(n, len, inner, part, (const T *)x, (T *)y); \
    break;
    GM_CTYPES(X)
#undef X
  }
  err = cudaGetLastError();
  cudaError_t ferr = async ? cudaFreeAsync(part, s) : cudaFree(part);
  return (int)(err != cudaSuccess ? err : ferr);
}

}  // namespace

// y := the reduction op of x (outer, len, inner) over len: outer * inner
// elements (softmax: x's shape), of ctype `ctype`, or double for
// argmax/argmin.  outer * inner > 0.
extern "C" int gm_cuda_reduce_axis(int ctype, int op, int ddof, size_t outer, size_t len, size_t inner,
                                   const void *x, void *y, void *stream) {
  cudaStream_t s = (cudaStream_t)stream;
  const unsigned lanes = lanes_for(outer, len, inner);
  const dim3 grid = grid_for(outer, len, inner, lanes);
  if (grid.y > 1) return launch_split(ctype, op, ddof, outer, len, inner, lanes, grid, x, y, s);
  switch (ctype) { // one case per ctype (GM_CTYPES)
#define X(T, E, ...)                                                \
  case GM_##E:                                                      \
    GM_LAUNCH_SYNC(reduce_axis_kernel<T>, grid, AX_THREADS, 0, s)   \
    (op, ddof, outer, len, inner, lanes, len, (const T *)x, y, (gm_axacc *)NULL); \
    break;
    GM_CTYPES(X)
#undef X
    default:
      return (int)cudaErrorInvalidValue;
  }
  return (int)cudaGetLastError();
}
