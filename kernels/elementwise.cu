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

// The op is a template argument inside the loop (the dispatch picks the
// instance once per thread), so the loop body is one element function:
// no switch per element, and the emulated device's loop vectorizes.  An
// op number outside the table takes the switch (which leaves x as it is).
template <typename T, int OP>
__device__ __forceinline__ void unary_each(size_t n, T *x) {
  GRID_STRIDE(i, n) x[i] = unary_op(OP, x[i]);
}

template <typename T, int OP = 0>
__device__ __forceinline__ void unary_dispatch(int op, size_t n, T *x) {
  if constexpr (OP < GM_N_UNARY) {
    if (op == OP) unary_each<T, OP>(n, x);
    else unary_dispatch<T, OP + 1>(op, n, x);
  } else {
    GRID_STRIDE(i, n) x[i] = unary_op(op, x[i]);
  }
}

template <typename T>
__global__ void unary_kernel(int op, size_t n, T *x) {
  unary_dispatch<T>(op, n, x);
}

template <typename T, int OP>
__device__ __forceinline__ void scalar_each(size_t n, T alpha, T *x) {
  GRID_STRIDE(i, n) x[i] = scalar_op(OP, x[i], alpha);
}

template <typename T, int OP = 0>
__device__ __forceinline__ void scalar_dispatch(int op, size_t n, T alpha, T *x) {
  if constexpr (OP < GM_N_SCALAR) {
    if (op == OP) scalar_each<T, OP>(n, alpha, x);
    else scalar_dispatch<T, OP + 1>(op, n, alpha, x);
  } else {
    GRID_STRIDE(i, n) x[i] = scalar_op(op, x[i], alpha);
  }
}

// op: a GM_SCALAR_OPS row (expt, add, min, max)
template <typename T>
__global__ void scalar_kernel(int op, size_t n, T alpha, T *x) {
  scalar_dispatch<T>(op, n, alpha, x);
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

// Row-broadcast kernels: ROWS_2D (launch_cuda.cuh), several rows per
// block for narrow rows, no per-element 64-bit division.
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
  if (kind == 0)
    ROWS_2D(r, c, rows, cols) r_[r * cols + c] = s[r] * a[r * cols + c];
  else
    ROWS_2D(r, c, rows, cols) r_[r * cols + c] = s[c] * a[r * cols + c];
}

// Sums along an axis, in double for both ctypes as on the host, without
// barriers.  Pass 1 splits the long dimension into chunks so that short
// dimensions still give many threads: part[chunk * n_out + o] holds
// chunk's partial sum of output o.  Pass 2 adds the chunks of each output
// and applies y := alpha * s + beta * y in double (as the host does).
//  colsum: items (chunk of rows, group of 4 columns): adjacent threads
//          take adjacent groups (coalesced), each walks down its chunk;
//  rowsum: items (row, chunk of GM_ROW_CHUNK or more columns): a thread
//          sums a contiguous piece of a row (a warp covers whole rows of
//          narrow mats); one chunk per row (rows of up to 32 elements)
//          writes y directly, with no second pass.
#define GM_ROW_CHUNK 32

// A thread's columns in colsum: GM_COL_GROUP adjacent ones (wide loads
// on the GPU, independent accumulators, vector code on the CPU).
#define GM_COL_GROUP 4

template <typename T>
__global__ void colsum_part_kernel(size_t rows, size_t cols, size_t chunk, size_t n_chunks, const T *x,
                                   double *part) {
  const size_t n_groups = (cols + GM_COL_GROUP - 1) / GM_COL_GROUP;
  ROWS_2D(ch, g, n_chunks, n_groups) {
    const size_t r0 = ch * chunk, r1 = rows - r0 < chunk ? rows : r0 + chunk, c0 = g * GM_COL_GROUP;
    double *out = part + ch * cols + c0;
    if (cols - c0 >= GM_COL_GROUP) {
      double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
      for (size_t r = r0; r < r1; r++) {
        const T *xr = x + r * cols + c0;
        s0 += (double)xr[0];
        s1 += (double)xr[1];
        s2 += (double)xr[2];
        s3 += (double)xr[3];
      }
      out[0] = s0;
      out[1] = s1;
      out[2] = s2;
      out[3] = s3;
    } else {
      for (size_t c = c0; c < cols; c++) {
        double s = 0;
        for (size_t r = r0; r < r1; r++) s += (double)x[r * cols + c];
        out[c - c0] = s;
      }
    }
  }
}

// The sum of xr[0..n) in double with 4 independent accumulators
// (instruction-level parallelism on the GPU, vector lanes on the CPU).
template <typename T>
__device__ __forceinline__ double row_sum(const T *xr, size_t n) {
  double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
  size_t c = 0;
  for (; c + 4 <= n; c += 4) {
    s0 += (double)xr[c];
    s1 += (double)xr[c + 1];
    s2 += (double)xr[c + 2];
    s3 += (double)xr[c + 3];
  }
  for (; c < n; c++) s0 += (double)xr[c];
  return (s0 + s1) + (s2 + s3);
}

template <typename T>
__global__ void rowsum_part_kernel(size_t rows, size_t cols, size_t chunk, size_t n_chunks, const T *x,
                                   double *part) {
  ROWS_2D(r, ch, rows, n_chunks) {
    const size_t c0 = ch * chunk, len = cols - c0 < chunk ? cols - c0 : chunk;
    part[ch * rows + r] = row_sum(x + r * cols + c0, len);
  }
}

template <typename T>
__global__ void rowsum_kernel(size_t rows, size_t cols, const T *x, double alpha, double beta, T *y) {
  GRID_STRIDE(r, rows) y[r] = (T)gm_axpby_double(alpha, row_sum(x + r * cols, cols), beta, (double)y[r]);
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
    GM_LAUNCH_RANGE(unary_kernel<float>, l.grid, l.block, l.s, n, 1)(op, n, F(x));
  else
    GM_LAUNCH_RANGE(unary_kernel<double>, l.grid, l.block, l.s, n, 1)(op, n, D(x));
  return (int)cudaGetLastError();
}

extern "C" int gm_cuda_ew_scalar(int ctype, int kind, size_t n, double alpha, void *x, void *stream) {
  gm_launch l(n, stream);
  if (ctype == 0)
    GM_LAUNCH_RANGE(scalar_kernel<float>, l.grid, l.block, l.s, n, 1)(kind, n, (float)alpha, F(x));
  else
    GM_LAUNCH_RANGE(scalar_kernel<double>, l.grid, l.block, l.s, n, 1)(kind, n, alpha, D(x));
  return (int)cudaGetLastError();
}

extern "C" int gm_cuda_ew_geem(int ctype, size_t n, double alpha, const void *a, const void *b, double beta,
                               void *c, void *stream) {
  gm_launch l(n, stream);
  if (ctype == 0)
    GM_LAUNCH_RANGE(geem_kernel<float>, l.grid, l.block, l.s, n, 1)(n, (float)alpha, CF(a), CF(b), (float)beta, F(c));
  else
    GM_LAUNCH_RANGE(geem_kernel<double>, l.grid, l.block, l.s, n, 1)(n, alpha, CD(a), CD(b), beta, D(c));
  return (int)cudaGetLastError();
}

extern "C" int gm_cuda_ew_lt(int ctype, size_t n, const void *x, void *y, void *stream) {
  gm_launch l(n, stream);
  if (ctype == 0)
    GM_LAUNCH_RANGE(lt_kernel<float>, l.grid, l.block, l.s, n, 1)(n, CF(x), F(y));
  else
    GM_LAUNCH_RANGE(lt_kernel<double>, l.grid, l.block, l.s, n, 1)(n, CD(x), D(y));
  return (int)cudaGetLastError();
}

extern "C" int gm_cuda_ew_add_sign(int ctype, size_t n, double alpha, const void *a, double beta, void *b,
                                   void *stream) {
  gm_launch l(n, stream);
  if (ctype == 0)
    GM_LAUNCH_RANGE(add_sign_kernel<float>, l.grid, l.block, l.s, n, 1)(n, (float)alpha, CF(a), (float)beta, F(b));
  else
    GM_LAUNCH_RANGE(add_sign_kernel<double>, l.grid, l.block, l.s, n, 1)(n, alpha, CD(a), beta, D(b));
  return (int)cudaGetLastError();
}

extern "C" int gm_cuda_ew_geerv(int ctype, size_t rows, size_t cols, double alpha, const void *a, const void *x,
                                double beta, void *b, void *stream) {
  gm_launch_rows l(rows, cols, stream);
  if (ctype == 0)
    GM_LAUNCH_RANGE(geerv_kernel<float>, l.grid, l.block, l.s, rows, cols)(rows, cols, (float)alpha, CF(a), CF(x), (float)beta, F(b));
  else
    GM_LAUNCH_RANGE(geerv_kernel<double>, l.grid, l.block, l.s, rows, cols)(rows, cols, alpha, CD(a), CD(x), beta, D(b));
  return (int)cudaGetLastError();
}

extern "C" int gm_cuda_ew_scale(int ctype, int kind, size_t rows, size_t cols, const void *s, const void *a,
                                void *r, void *stream) {
  gm_launch_rows l(rows, cols, stream);
  if (ctype == 0)
    GM_LAUNCH_RANGE(scale_kernel<float>, l.grid, l.block, l.s, rows, cols)(kind, rows, cols, CF(s), CF(a), F(r));
  else
    GM_LAUNCH_RANGE(scale_kernel<double>, l.grid, l.block, l.s, rows, cols)(kind, rows, cols, CD(s), CD(a), D(r));
  return (int)cudaGetLastError();
}

// Pass 2 (or the whole of an empty sum, len == 0: y := beta * y).
static int sum_finish(int ctype, size_t n_out, size_t n_chunks, const double *part, double alpha, double beta,
                      void *y, void *stream) {
  gm_launch l(n_out, stream);
  if (ctype == 0)
    GM_LAUNCH_RANGE(sum_finish_kernel<float>, l.grid, l.block, l.s, n_out, 1)(n_out, n_chunks, part, alpha, beta, F(y));
  else
    GM_LAUNCH_RANGE(sum_finish_kernel<double>, l.grid, l.block, l.s, n_out, 1)(n_out, n_chunks, part, alpha, beta, D(y));
  return (int)cudaGetLastError();
}

// Row sums of rows short enough for one chunk: one pass, a thread per row.
static int rowsum_direct(int ctype, size_t rows, size_t cols, double alpha, const void *x, double beta, void *y,
                         void *stream) {
  gm_launch l(rows, stream);
  if (ctype == 0)
    GM_LAUNCH_RANGE(rowsum_kernel<float>, l.grid, l.block, l.s, rows, cols)(rows, cols, CF(x), alpha, beta, F(y));
  else
    GM_LAUNCH_RANGE(rowsum_kernel<double>, l.grid, l.block, l.s, rows, cols)(rows, cols, CD(x), alpha, beta, D(y));
  return (int)cudaGetLastError();
}

// Chunk length along the summed dimension: column chunks of at least
// GM_ROW_CHUNK elements; row chunks so that about 1024 x 256 threads work
// (at least 64 rows each); at most 4096 chunks either way.
static size_t sum_chunk(int axis, size_t len, size_t n_out) {
  size_t chunk = axis == 0 ? 64 : GM_ROW_CHUNK;
  if (axis == 0 && n_out < 262144) {
    const size_t want = 262144 / (n_out ? n_out : 1); // chunks for enough threads
    const size_t c = (len + want - 1) / want;
    if (c > chunk) chunk = c;
  }
  if ((len + chunk - 1) / chunk > 4096) chunk = (len + 4095) / 4096;
  return chunk;
}

extern "C" int gm_cuda_ew_sum(int ctype, int axis, size_t rows, size_t cols, double alpha, const void *x,
                              double beta, void *y, void *stream) {
  cudaStream_t st = (cudaStream_t)stream;
  const size_t n_out = axis == 0 ? cols : rows, len = axis == 0 ? rows : cols;
  if (n_out == 0) return 0;
  if (len == 0) return sum_finish(ctype, n_out, 0, nullptr, alpha, beta, y, stream); // no chunk of 0 to divide by
  if (axis != 0 && len <= GM_ROW_CHUNK) return rowsum_direct(ctype, rows, cols, alpha, x, beta, y, stream);
  const size_t chunk = sum_chunk(axis, len, n_out), n_chunks = (len + chunk - 1) / chunk;
  double *part = NULL;
  int err = gm_cuda_scratch_alloc(stream, n_chunks * n_out * sizeof(double), (void **)&part);
  if (err != 0) return err;
  if (axis == 0) {
    gm_launch_rows l(n_chunks, (cols + GM_COL_GROUP - 1) / GM_COL_GROUP, stream);
    if (ctype == 0)
      GM_LAUNCH_RANGE(colsum_part_kernel<float>, l.grid, l.block, st, n_chunks, cols * chunk)(rows, cols, chunk, n_chunks, CF(x), part);
    else
      GM_LAUNCH_RANGE(colsum_part_kernel<double>, l.grid, l.block, st, n_chunks, cols * chunk)(rows, cols, chunk, n_chunks, CD(x), part);
  } else {
    gm_launch_rows l(rows, n_chunks, stream);
    if (ctype == 0)
      GM_LAUNCH_RANGE(rowsum_part_kernel<float>, l.grid, l.block, st, rows, cols)(rows, cols, chunk, n_chunks, CF(x), part);
    else
      GM_LAUNCH_RANGE(rowsum_part_kernel<double>, l.grid, l.block, st, rows, cols)(rows, cols, chunk, n_chunks, CD(x), part);
  }
  err = (int)cudaGetLastError();
  if (err == 0) err = sum_finish(ctype, n_out, n_chunks, part, alpha, beta, y, stream);
  gm_cuda_scratch_free(stream, part);
  return err;
}
