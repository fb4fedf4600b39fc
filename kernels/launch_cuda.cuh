// Launch helpers shared by the .cu files (CUDA only; launch.h holds the
// geometry that C code may use too).
#ifndef GM_KERNELS_LAUNCH_CUDA_CUH
#define GM_KERNELS_LAUNCH_CUDA_CUH

#include <cuda_runtime.h>

#include "../src/core/model/ctype_list.h"
#include "launch.h"

// Launch sites: GM_LAUNCH(kernel, grid, block, shmem, stream)(args...), and
// GM_LAUNCH_SYNC for kernels that call __syncthreads() (directly or through
// a __device__ function such as gm_block_sum).  Under nvcc both are
// kernel<<<grid, block, shmem, stream>>>; the emulated device's build of
// these files (kernels/cpu/emu_kernels.h) defines them first, to run the
// kernel on the CPU model of CUDA with fibers only where the flag says.
// GM_LAUNCH_SYNC_WORK(kernel, grid, block, stream, work)(args...) is
// GM_LAUNCH_SYNC for blocks that each loop over many items (work: the
// rough cost of one block, in elements), so that the emulated device
// spreads even a few such blocks over the cores.
#ifndef GM_LAUNCH
#define GM_LAUNCH(k, grid, block, shmem, stream) k<<<grid, block, shmem, stream>>>
#define GM_LAUNCH_SYNC(k, grid, block, shmem, stream) k<<<grid, block, shmem, stream>>>
#define GM_LAUNCH_SYNC_WORK(k, grid, block, stream, work) k<<<grid, block, 0, stream>>>
#endif

// Kernels whose whole body is one GRID_STRIDE or ROWS_2D loop over
// independent items (no threadIdx elsewhere, no barriers, no item that
// reads another's result) are launched with GM_LAUNCH_RANGE(k, grid,
// block, stream, count, work)(args...), count being the items of the
// GRID_STRIDE loop and work the rough cost of one (the emulated device
// runs small launches on one core), or, for a ROWS_2D loop,
// GM_LAUNCH_ROWS(k, grid, block, stream, rows, cols)(args...): its items
// are the rows x cols elements, so a single long row still spreads over
// the cores.  Under nvcc both are GM_LAUNCH and the
// loops are the grid-stride loops below.  The emulated device's build
// (kernels/cpu/emu_kernels.h) defines these first: it runs such a kernel
// once per chunk of [0, count), the chunks spread over the cores, and the
// loops become plain counted loops over the chunk, which the compiler
// vectorizes (thread by thread, each CUDA thread was a function call).
#ifndef GM_LAUNCH_RANGE
#define GM_LAUNCH_RANGE(k, grid, block, stream, count, work) k<<<grid, block, 0, stream>>>
#define GM_LAUNCH_ROWS(k, grid, block, stream, rows, cols) k<<<grid, block, 0, stream>>>

// i over [0, n) in a 1-d grid-stride loop.
#define GRID_STRIDE(i, n) \
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < (n); i += (size_t)blockDim.x * gridDim.x)

// Row-structured items on a 2-d grid (gm_launch_rows): a block holds
// blockDim.y rows of blockDim.x threads each, so narrow rows still fill
// whole warps (3 columns: 8 rows per warp, 24 adjacent elements), rows
// stride over grid.y, a row's columns over grid.x; no division per item.
#define ROWS_2D(r, c, rows, cols) ROWS_2D_EACH_ROW(r, c, rows, cols, (void)0)
// ROWS_2D with row_setup (an expression) evaluated once per row a thread
// reaches, before its columns: per-row values (the strided engine's
// offsets) then stay constant over the column loop, which the emulated
// device's build vectorizes.
#define ROWS_2D_EACH_ROW(r, c, rows, cols, row_setup)                                                \
  for (size_t r = blockIdx.y * (size_t)blockDim.y + threadIdx.y; r < (rows); r += (size_t)blockDim.y * gridDim.y) \
    if (row_setup, false) {                                                                           \
    } else                                                                                            \
      for (size_t c = blockIdx.x * (size_t)blockDim.x + threadIdx.x; c < (cols); c += (size_t)blockDim.x * gridDim.x)
#endif

// Scratch arrays of the launchers (partial sums), stream-ordered on the
// launch's stream, from the allocator its caller passed down
// (gm_launch_ctx, launch.h): 0 or a cudaError_t-like code.
inline int gm_scratch_alloc(const gm_launch_ctx *lc, size_t bytes, void **out) {
  return lc->scratch_alloc(lc->owner, bytes, out);
}
inline void gm_scratch_free(const gm_launch_ctx *lc, void *p) { lc->scratch_free(lc->owner, p); }

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

// The geometry of ROWS_2D (kernels/launch.h, gm_rows_plan): blocks of
// GM_MAX_BLOCK threads, blockDim.x the power of two covering a row (at
// most GM_MAX_BLOCK), blockDim.y the rows per block; about 1024 blocks or
// more over rows x columns.
struct gm_launch_rows {
  dim3 grid, block;
  cudaStream_t s;
  gm_launch_rows(size_t rows, size_t cols, void *stream) : s((cudaStream_t)stream) {
    const gm_rows_geom g = gm_rows_plan(rows, cols);
    block = dim3(g.bx, g.by);
    grid = dim3(g.gx, g.gy);
  }
};

// One launch text for every floating ctype: GM_CTYPE_DO(ctype, L) runs
// L(T) with T the ctype's C type, in a switch generated from
// GM_FLOAT_CTYPES (most kernels compute in floats; the core refuses other
// ctypes before it dispatches to them), so a new ctype needs no edit here;
// GM_ANY_CTYPE_LAUNCH is GM_CTYPE_LAUNCH over every row of GM_CTYPES
// (fills and copies, which move elements of any type), GM_REAL_CTYPE_LAUNCH
// over GM_REAL_CTYPES (kernels that compare or order elements).  L is a function-like macro: T is substituted
// textually, and the emulated device counts each instantiation under its
// own name ("unary_kernel<float>").  GM_CTYPE_LAUNCH does the same as the
// whole body of an extern "C" launcher: it returns the launch's error, or
// cudaErrorInvalidValue for an unknown ctype.
#define GM_CTYPE_DO_CASE_(L, T, E, ...) \
  case GM_##E:                           \
    L(T);                                \
    break;
#define GM_CTYPE_DO(ctype, L)                   \
  switch (ctype) {                              \
    GM_FLOAT_CTYPES_WITH(GM_CTYPE_DO_CASE_, L)  \
    default:                                    \
      break;                                    \
  }
#define GM_CTYPE_LAUNCH(ctype, L)                 \
  switch (ctype) {                                \
    GM_FLOAT_CTYPES_WITH(GM_CTYPE_DO_CASE_, L)    \
    default:                                      \
      return (int)cudaErrorInvalidValue;          \
  }                                               \
  return (int)cudaGetLastError()
#define GM_REAL_CTYPE_LAUNCH(ctype, L)            \
  switch (ctype) {                                \
    GM_REAL_CTYPES_WITH(GM_CTYPE_DO_CASE_, L)     \
    default:                                      \
      return (int)cudaErrorInvalidValue;          \
  }                                               \
  return (int)cudaGetLastError()
#define GM_ANY_CTYPE_LAUNCH(ctype, L)             \
  switch (ctype) {                                \
    GM_CTYPES_WITH(GM_CTYPE_DO_CASE_, L)          \
    default:                                      \
      return (int)cudaErrorInvalidValue;          \
  }                                               \
  return (int)cudaGetLastError()

// Bytes of one element of ctype (0 for an unknown one).
#define GM_CTYPE_BYTES_CASE_(T, E, ...) \
  case GM_##E:                          \
    return sizeof(T);
inline size_t gm_ctype_bytes(int ctype) {
  switch (ctype) {
    GM_CTYPES(GM_CTYPE_BYTES_CASE_)
    default:
      return 0;
  }
}
#undef GM_CTYPE_BYTES_CASE_

// Slot t's sum, in double, of pieces t, t + slots, ... of GM_SLOT_PIECE
// adjacent elements of x[0..n): an accumulator per position of a piece
// (whole pieces become a few vector adds on a CPU, registers on a GPU),
// the last partial piece added alone.  Whole-mat sums (reduce.cu) and
// long row sums (elementwise.cu) share it.
#define GM_SLOT_PIECE 16
template <typename T>
__device__ __forceinline__ double gm_slot_sum(size_t t, size_t n, size_t slots, const T *x) {
  double a[GM_SLOT_PIECE], tail = 0.0;
#pragma unroll
  for (int j = 0; j < GM_SLOT_PIECE; j++) a[j] = 0.0;
  const size_t whole = n / GM_SLOT_PIECE * GM_SLOT_PIECE; // the elements of whole pieces
  size_t i = t * GM_SLOT_PIECE;
  for (; i < whole; i += slots * GM_SLOT_PIECE)
#pragma unroll
    for (int j = 0; j < GM_SLOT_PIECE; j++) a[j] += (double)x[i + j];
  for (; i < n; i++) tail += (double)x[i]; // the last, partial piece
  // the pairwise fold with constant bounds (a `w /= 2` loop is not
  // unrolled by nvcc, and its run-time index put a[] on the stack)
  static_assert(GM_SLOT_PIECE == 16, "the fold below adds 16 accumulators");
#pragma unroll
  for (int j = 0; j < 8; j++) a[j] += a[j + 8];
#pragma unroll
  for (int j = 0; j < 4; j++) a[j] += a[j + 4];
  return ((a[0] + a[2]) + (a[1] + a[3])) + tail;
}

#endif
