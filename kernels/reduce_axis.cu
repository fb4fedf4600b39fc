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

template <typename T>
__global__ void reduce_axis_kernel(int op, int ddof, size_t outer, size_t len, size_t inner, unsigned lanes,
                                   const T *x, void *y) {
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
    gm_axacc c = gm_ax_init(op);
    if (live)
      for (size_t k = lane; k < len; k += lanes) gm_ax_step(op, &c, (double)x[base + k * inner], (long long)k);
    sh[lane * cols + col] = c;
    __syncthreads();
    for (unsigned s = lanes / 2; s > 0; s /= 2) {
      if (lane < s) gm_ax_merge(op, &sh[lane * cols + col], sh[(lane + s) * cols + col]);
      __syncthreads();
    }
    c = sh[col];
    __syncthreads(); // sh is reused by the next group
    if (!live) continue;
    if (op == GM_AX_SOFTMAX) {
      for (size_t k = lane; k < len; k += lanes) ((T *)y)[base + k * inner] = (T)gm_ax_softmax(c, (double)x[base + k * inner]);
    } else if (lane == 0) {
      put<T>(op, y, o * inner + j, gm_ax_result(op, c, (long long)len, ddof));
    }
  }
}

// Lanes per column: up to a warp along a row (inner == 1), else 8 (the
// 32 adjacent columns of a block take the rest of its threads).
unsigned lanes_for(size_t len, size_t inner) {
  unsigned lanes = 1;
  if (inner != 1) return AX_THREADS / 32;
  while (lanes < 32 && lanes < len) lanes *= 2;
  return lanes;
}

unsigned grid_for(size_t outer, size_t inner, unsigned lanes) {
  const unsigned cols = AX_THREADS / lanes;
  const size_t tiles = ((inner == 1 ? outer : inner) + cols - 1) / cols;
  const size_t n_groups = inner == 1 ? tiles : outer * tiles;
  return n_groups < GM_MAX_GRID ? (unsigned)n_groups : GM_MAX_GRID;
}

}  // namespace

// y := the reduction op of x (outer, len, inner) over len: outer * inner
// elements (softmax: x's shape), of ctype `ctype`, or double for
// argmax/argmin.  outer * inner > 0.
extern "C" int gm_cuda_reduce_axis(int ctype, int op, int ddof, size_t outer, size_t len, size_t inner,
                                   const void *x, void *y, void *stream) {
  cudaStream_t s = (cudaStream_t)stream;
  const unsigned lanes = lanes_for(len, inner), grid = grid_for(outer, inner, lanes);
  if (ctype == 0)
    GM_LAUNCH_SYNC(reduce_axis_kernel<float>, grid, AX_THREADS, 0, s)(op, ddof, outer, len, inner, lanes, CF(x), y);
  else
    GM_LAUNCH_SYNC(reduce_axis_kernel<double>, grid, AX_THREADS, 0, s)(op, ddof, outer, len, inner, lanes, CD(x), y);
  return (int)cudaGetLastError();
}
