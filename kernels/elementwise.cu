// CUDA kernels of the elementwise area and their extern "C" launchers
// (called through src/device/kernel_tables.h).  Grid-stride loops over the
// element functions of elementwise.h, the same ones the host loops run.
// Launchers return the cudaError_t of the launch (0 on success).
#include <cuda_runtime.h>

#include "elementwise.h"
#include "launch_cuda.cuh"

namespace {

// The element functions by op number (rows of elementwise_table.h).
#define GM_CU_UNARY(T)                                                           \
  __device__ T unary_op(int op, T x) { return gm_unary_##T(op, x); }            \
  __device__ T scalar_op(int op, T x, T alpha) { return gm_scalar_##T(op, x, alpha); } \
  __device__ T lt_op(T x, T y) { return gm_lt_##T(x, y); }                      \
  __device__ T sign_op(T x) { return gm_sign_##T(x); }                          \
  __device__ T axpby_op(T a, T v, T b, T y) { return gm_axpby_##T(a, v, b, y); }

GM_CU_UNARY(float)
GM_CU_UNARY(double)

#define GRID_STRIDE(i, n) \
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < (n); i += (size_t)blockDim.x * gridDim.x)

template <typename T>
__global__ void unary_kernel(int op, size_t n, T *x) {
  GRID_STRIDE(i, n) x[i] = unary_op(op, x[i]);
}

// op: a GM_SCALAR_OPS row (expt, add, min, max)
template <typename T>
__global__ void scalar_kernel(int op, size_t n, T alpha, T *x) {
  GRID_STRIDE(i, n) x[i] = scalar_op(op, x[i], alpha);
}

template <typename T>
__global__ void geem_kernel(size_t n, T alpha, const T *a, const T *b, T beta, T *c) {
  GRID_STRIDE(i, n) c[i] = axpby_op(alpha, a[i] * b[i], beta, c[i]);
}

template <typename T>
__global__ void lt_kernel(size_t n, const T *x, T *y) {
  GRID_STRIDE(i, n) y[i] = lt_op(x[i], y[i]);
}

template <typename T>
__global__ void add_sign_kernel(size_t n, T alpha, const T *a, T beta, T *b) {
  GRID_STRIDE(i, n) b[i] = axpby_op(alpha, sign_op(a[i]), beta, b[i]);
}

// Row-broadcast kernels on a 2-d grid (review #14): rows on grid.y, the
// columns of a row on grid.x, so no per-element 64-bit division.
#define ROWS_2D(r, c, rows, cols)                                            \
  for (size_t r = blockIdx.y; r < (rows); r += gridDim.y)                    \
    for (size_t c = blockIdx.x * (size_t)blockDim.x + threadIdx.x; c < (cols); \
         c += (size_t)blockDim.x * gridDim.x)

template <typename T>
__global__ void geerv_kernel(size_t rows, size_t cols, T alpha, const T *a, const T *x, T beta, T *b) {
  ROWS_2D(r, c, rows, cols) {
    const size_t i = r * cols + c;
    b[i] = axpby_op(alpha, a[i] * x[c], beta, b[i]);
  }
}

// kind 0: rows (scales[r]), 1: columns (scales[c])
template <typename T>
__global__ void scale_kernel(int kind, size_t rows, size_t cols, const T *s, const T *a, T *r_) {
  ROWS_2D(r, c, rows, cols) {
    const size_t i = r * cols + c;
    r_[i] = (kind == 0 ? s[r] : s[c]) * a[i];
  }
}

// Sums along an axis (review #8), in double for both ctypes as on the
// host.  Pass 1 splits the long dimension into chunks so that short
// dimensions still give about 1024 blocks: part[chunk * n_out + o] holds
// chunk's partial sum of output o.  Pass 2 adds the chunks of each output
// and applies y := alpha * s + beta * y in double (as the host does).
//  colsum: threads of a block take adjacent columns (coalesced), grid.y
//          the row chunks;
//  rowsum: a block takes a chunk of a row (threads stride along it,
//          coalesced) and sums it in shared memory; grid.y the rows.
template <typename T>
__global__ void colsum_part_kernel(size_t rows, size_t cols, size_t chunk, const T *x, double *part) {
  const size_t n_chunks = (rows + chunk - 1) / chunk;
  for (size_t ch = blockIdx.y; ch < n_chunks; ch += gridDim.y) {
    const size_t r0 = ch * chunk, r1 = rows - r0 < chunk ? rows : r0 + chunk;
    GRID_STRIDE(c, cols) {
      double s = 0;
      for (size_t r = r0; r < r1; r++) s += (double)x[r * cols + c];
      part[ch * cols + c] = s;
    }
  }
}

template <typename T>
__global__ void rowsum_part_kernel(size_t rows, size_t cols, size_t chunk, const T *x, double *part) {
  __shared__ double sh[GM_MAX_BLOCK];
  const size_t n_chunks = (cols + chunk - 1) / chunk;
  for (size_t r = blockIdx.y; r < rows; r += gridDim.y)
    for (size_t ch = blockIdx.x; ch < n_chunks; ch += gridDim.x) {
      const size_t c0 = ch * chunk, c1 = cols - c0 < chunk ? cols : c0 + chunk;
      const T *xr = x + r * cols;
      double s = 0;
      for (size_t c = c0 + threadIdx.x; c < c1; c += blockDim.x) s += (double)xr[c];
      s = gm_block_sum(s, sh);
      if (threadIdx.x == 0) part[ch * rows + r] = s;
    }
}

template <typename T>
__global__ void sum_finish_kernel(size_t n_out, size_t n_chunks, const double *part, double alpha, double beta,
                                  T *y) {
  GRID_STRIDE(o, n_out) {
    double s = 0;
    for (size_t ch = 0; ch < n_chunks; ch++) s += part[ch * n_out + o];
    y[o] = (T)gm_axpby_double(alpha, s, beta, (double)y[o]);
  }
}

}  // namespace


extern "C" int gm_cuda_ew_unary(int ctype, int op, size_t n, void *x, void *stream) {
  gm_launch l(n, stream);
  if (ctype == 0)
    GM_LAUNCH(unary_kernel<float>, l.grid, l.block, 0, l.s)(op, n, F(x));
  else
    GM_LAUNCH(unary_kernel<double>, l.grid, l.block, 0, l.s)(op, n, D(x));
  return (int)cudaGetLastError();
}

extern "C" int gm_cuda_ew_scalar(int ctype, int kind, size_t n, double alpha, void *x, void *stream) {
  gm_launch l(n, stream);
  if (ctype == 0)
    GM_LAUNCH(scalar_kernel<float>, l.grid, l.block, 0, l.s)(kind, n, (float)alpha, F(x));
  else
    GM_LAUNCH(scalar_kernel<double>, l.grid, l.block, 0, l.s)(kind, n, alpha, D(x));
  return (int)cudaGetLastError();
}

extern "C" int gm_cuda_ew_geem(int ctype, size_t n, double alpha, const void *a, const void *b, double beta,
                               void *c, void *stream) {
  gm_launch l(n, stream);
  if (ctype == 0)
    GM_LAUNCH(geem_kernel<float>, l.grid, l.block, 0, l.s)(n, (float)alpha, CF(a), CF(b), (float)beta, F(c));
  else
    GM_LAUNCH(geem_kernel<double>, l.grid, l.block, 0, l.s)(n, alpha, CD(a), CD(b), beta, D(c));
  return (int)cudaGetLastError();
}

extern "C" int gm_cuda_ew_lt(int ctype, size_t n, const void *x, void *y, void *stream) {
  gm_launch l(n, stream);
  if (ctype == 0)
    GM_LAUNCH(lt_kernel<float>, l.grid, l.block, 0, l.s)(n, CF(x), F(y));
  else
    GM_LAUNCH(lt_kernel<double>, l.grid, l.block, 0, l.s)(n, CD(x), D(y));
  return (int)cudaGetLastError();
}

extern "C" int gm_cuda_ew_add_sign(int ctype, size_t n, double alpha, const void *a, double beta, void *b,
                                   void *stream) {
  gm_launch l(n, stream);
  if (ctype == 0)
    GM_LAUNCH(add_sign_kernel<float>, l.grid, l.block, 0, l.s)(n, (float)alpha, CF(a), (float)beta, F(b));
  else
    GM_LAUNCH(add_sign_kernel<double>, l.grid, l.block, 0, l.s)(n, alpha, CD(a), beta, D(b));
  return (int)cudaGetLastError();
}

// The 2-d geometry of ROWS_2D: about 1024 blocks over rows x columns.
struct gm_launch_rows {
  dim3 grid, block;
  cudaStream_t s;
  gm_launch_rows(size_t rows, size_t cols, void *stream) : block(GM_MAX_BLOCK), s((cudaStream_t)stream) {
    const size_t bx = (cols + GM_MAX_BLOCK - 1) / GM_MAX_BLOCK;
    grid.y = gm_spread(rows, 1, rows);
    grid.x = gm_spread(1024, grid.y, bx);
  }
};

extern "C" int gm_cuda_ew_geerv(int ctype, size_t rows, size_t cols, double alpha, const void *a, const void *x,
                                double beta, void *b, void *stream) {
  gm_launch_rows l(rows, cols, stream);
  if (ctype == 0)
    GM_LAUNCH(geerv_kernel<float>, l.grid, l.block, 0, l.s)(rows, cols, (float)alpha, CF(a), CF(x), (float)beta, F(b));
  else
    GM_LAUNCH(geerv_kernel<double>, l.grid, l.block, 0, l.s)(rows, cols, alpha, CD(a), CD(x), beta, D(b));
  return (int)cudaGetLastError();
}

extern "C" int gm_cuda_ew_scale(int ctype, int kind, size_t rows, size_t cols, const void *s, const void *a,
                                void *r, void *stream) {
  gm_launch_rows l(rows, cols, stream);
  if (ctype == 0)
    GM_LAUNCH(scale_kernel<float>, l.grid, l.block, 0, l.s)(kind, rows, cols, CF(s), CF(a), F(r));
  else
    GM_LAUNCH(scale_kernel<double>, l.grid, l.block, 0, l.s)(kind, rows, cols, CD(s), CD(a), D(r));
  return (int)cudaGetLastError();
}

extern "C" int gm_cuda_ew_sum(int ctype, int axis, size_t rows, size_t cols, double alpha, const void *x,
                              double beta, void *y, void *stream) {
  cudaStream_t st = (cudaStream_t)stream;
  const size_t n_out = axis == 0 ? cols : rows, len = axis == 0 ? rows : cols;
  dim3 grid, block(GM_MAX_BLOCK);
  size_t chunk;
  if (axis == 0) { // columns on grid.x, row chunks (of at least 64 rows) on grid.y
    grid.x = gm_spread((cols + GM_MAX_BLOCK - 1) / GM_MAX_BLOCK, 1, (cols + GM_MAX_BLOCK - 1) / GM_MAX_BLOCK);
    grid.y = gm_spread(1024, grid.x, (len + 63) / 64);
  } else { // rows on grid.y, column chunks (of at least 1024 columns) on grid.x
    grid.y = gm_spread(rows, 1, rows);
    grid.x = gm_spread(1024, grid.y, (len + 1023) / 1024);
  }
  const size_t n_split = axis == 0 ? grid.y : grid.x;
  chunk = (len + n_split - 1) / n_split;
  const size_t n_chunks = (len + chunk - 1) / chunk;
  double *part = NULL;
  cudaError_t e = cudaMallocAsync((void **)&part, n_chunks * n_out * sizeof(double), st);
  if (e != cudaSuccess) return (int)e;
  if (axis == 0) {
    if (ctype == 0) GM_LAUNCH(colsum_part_kernel<float>, grid, block, 0, st)(rows, cols, chunk, CF(x), part);
    else GM_LAUNCH(colsum_part_kernel<double>, grid, block, 0, st)(rows, cols, chunk, CD(x), part);
  } else {
    if (ctype == 0) GM_LAUNCH_SYNC(rowsum_part_kernel<float>, grid, block, 0, st)(rows, cols, chunk, CF(x), part);
    else GM_LAUNCH_SYNC(rowsum_part_kernel<double>, grid, block, 0, st)(rows, cols, chunk, CD(x), part);
  }
  gm_launch l(n_out, stream);
  if (ctype == 0) GM_LAUNCH(sum_finish_kernel<float>, l.grid, l.block, 0, l.s)(n_out, n_chunks, part, alpha, beta, F(y));
  else GM_LAUNCH(sum_finish_kernel<double>, l.grid, l.block, 0, l.s)(n_out, n_chunks, part, alpha, beta, D(y));
  e = cudaGetLastError();
  (void)cudaFreeAsync(part, st);
  return (int)e;
}
