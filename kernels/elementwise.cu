// CUDA kernels of the elementwise area and their extern "C" launchers
// (called by src/device/cuda/elementwise.c).  Grid-stride loops over the
// element functions of elementwise.h, the same ones the host loops run.
// Launchers return the cudaError_t of the launch (0 on success).
#include <cuda_runtime.h>

#include "elementwise.h"
#include "launch_cuda.cuh"

namespace {

#define GM_CU_UNARY(T)                                           \
  __device__ T unary_op(int op, T x) {                           \
    switch (op) {                                                \
      case 0: return gm_square_##T(x);                           \
      case 1: return gm_sqrt_##T(x);                             \
      case 2: return gm_log_##T(x);                              \
      case 3: return gm_exp_##T(x);                              \
      case 4: return gm_inv_##T(x);                              \
      case 5: return gm_logistic_##T(x);                         \
      case 6: return gm_sin_##T(x);                              \
      case 7: return gm_cos_##T(x);                              \
      case 8: return gm_tan_##T(x);                              \
      case 9: return gm_sinh_##T(x);                             \
      case 10: return gm_cosh_##T(x);                            \
      default: return gm_tanh_##T(x);                            \
    }                                                            \
  }                                                              \
  __device__ T expt_op(T x, T p) { return gm_expt_##T(x, p); }   \
  __device__ T lt_op(T x, T y) { return gm_lt_##T(x, y); }       \
  __device__ T min_op(T a, T x) { return gm_min_##T(a, x); }     \
  __device__ T max_op(T a, T x) { return gm_max_##T(a, x); }     \
  __device__ T sign_op(T x) { return gm_sign_##T(x); }           \
  __device__ T axpby_op(T a, T v, T b, T y) { return gm_axpby_##T(a, v, b, y); }

GM_CU_UNARY(float)
GM_CU_UNARY(double)

#define GRID_STRIDE(i, n) \
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < (n); i += (size_t)blockDim.x * gridDim.x)

template <typename T>
__global__ void unary_kernel(int op, size_t n, T *x) {
  GRID_STRIDE(i, n) x[i] = unary_op(op, x[i]);
}

// kind: 0 expt, 1 add_scalar, 2 min, 3 max
template <typename T>
__global__ void scalar_kernel(int kind, size_t n, T alpha, T *x) {
  GRID_STRIDE(i, n) {
    T e = x[i];
    x[i] = kind == 0 ? expt_op(e, alpha) : kind == 1 ? e + alpha : kind == 2 ? min_op(alpha, e) : max_op(alpha, e);
  }
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

template <typename T>
__global__ void geerv_kernel(size_t rows, size_t cols, T alpha, const T *a, const T *x, T beta, T *b) {
  GRID_STRIDE(i, rows * cols) b[i] = axpby_op(alpha, a[i] * x[i % cols], beta, b[i]);
}

// kind 0: rows (scales[r]), 1: columns (scales[c])
template <typename T>
__global__ void scale_kernel(int kind, size_t rows, size_t cols, const T *s, const T *a, T *r) {
  GRID_STRIDE(i, rows * cols) r[i] = (kind == 0 ? s[i / cols] : s[i % cols]) * a[i];
}

// Column sums: one thread per column walks down the rows (coalesced
// across the threads of a warp).
template <typename T>
__global__ void colsum_kernel(size_t rows, size_t cols, T alpha, const T *x, T beta, T *y) {
  GRID_STRIDE(c, cols) {
    T s = 0;
    for (size_t r = 0; r < rows; r++) s += x[r * cols + c];
    y[c] = axpby_op(alpha, s, beta, y[c]);
  }
}

// Row sums: one warp per row, lanes stride along it, then a shuffle
// reduction; lane 0 owns y[r].
template <typename T>
__global__ void rowsum_kernel(size_t rows, size_t cols, T alpha, const T *x, T beta, T *y) {
  size_t lane = threadIdx.x % GM_WARP_SIZE;
  size_t warp = (blockIdx.x * (size_t)blockDim.x + threadIdx.x) / GM_WARP_SIZE;
  size_t n_warps = (size_t)blockDim.x * gridDim.x / GM_WARP_SIZE;
  for (size_t r = warp; r < rows; r += n_warps) {
    T s = 0;
    for (size_t c = lane; c < cols; c += GM_WARP_SIZE) s += x[r * cols + c];
    for (int off = GM_WARP_SIZE / 2; off > 0; off /= 2) s += __shfl_down_sync(0xffffffffu, s, off);
    if (lane == 0) y[r] = axpby_op(alpha, s, beta, y[r]);
  }
}

}  // namespace


extern "C" int gm_cuda_ew_unary(int ctype, int op, size_t n, void *x, void *stream) {
  gm_launch l(n, stream);
  if (ctype == 0)
    unary_kernel<float><<<l.grid, l.block, 0, l.s>>>(op, n, F(x));
  else
    unary_kernel<double><<<l.grid, l.block, 0, l.s>>>(op, n, D(x));
  return (int)cudaGetLastError();
}

extern "C" int gm_cuda_ew_scalar(int ctype, int kind, size_t n, double alpha, void *x, void *stream) {
  gm_launch l(n, stream);
  if (ctype == 0)
    scalar_kernel<float><<<l.grid, l.block, 0, l.s>>>(kind, n, (float)alpha, F(x));
  else
    scalar_kernel<double><<<l.grid, l.block, 0, l.s>>>(kind, n, alpha, D(x));
  return (int)cudaGetLastError();
}

extern "C" int gm_cuda_ew_geem(int ctype, size_t n, double alpha, const void *a, const void *b, double beta,
                               void *c, void *stream) {
  gm_launch l(n, stream);
  if (ctype == 0)
    geem_kernel<float><<<l.grid, l.block, 0, l.s>>>(n, (float)alpha, CF(a), CF(b), (float)beta, F(c));
  else
    geem_kernel<double><<<l.grid, l.block, 0, l.s>>>(n, alpha, CD(a), CD(b), beta, D(c));
  return (int)cudaGetLastError();
}

extern "C" int gm_cuda_ew_lt(int ctype, size_t n, const void *x, void *y, void *stream) {
  gm_launch l(n, stream);
  if (ctype == 0)
    lt_kernel<float><<<l.grid, l.block, 0, l.s>>>(n, CF(x), F(y));
  else
    lt_kernel<double><<<l.grid, l.block, 0, l.s>>>(n, CD(x), D(y));
  return (int)cudaGetLastError();
}

extern "C" int gm_cuda_ew_add_sign(int ctype, size_t n, double alpha, const void *a, double beta, void *b,
                                   void *stream) {
  gm_launch l(n, stream);
  if (ctype == 0)
    add_sign_kernel<float><<<l.grid, l.block, 0, l.s>>>(n, (float)alpha, CF(a), (float)beta, F(b));
  else
    add_sign_kernel<double><<<l.grid, l.block, 0, l.s>>>(n, alpha, CD(a), beta, D(b));
  return (int)cudaGetLastError();
}

extern "C" int gm_cuda_ew_geerv(int ctype, size_t rows, size_t cols, double alpha, const void *a, const void *x,
                                double beta, void *b, void *stream) {
  gm_launch l(rows * cols, stream);
  if (ctype == 0)
    geerv_kernel<float><<<l.grid, l.block, 0, l.s>>>(rows, cols, (float)alpha, CF(a), CF(x), (float)beta, F(b));
  else
    geerv_kernel<double><<<l.grid, l.block, 0, l.s>>>(rows, cols, alpha, CD(a), CD(x), beta, D(b));
  return (int)cudaGetLastError();
}

extern "C" int gm_cuda_ew_scale(int ctype, int kind, size_t rows, size_t cols, const void *s, const void *a,
                                void *r, void *stream) {
  gm_launch l(rows * cols, stream);
  if (ctype == 0)
    scale_kernel<float><<<l.grid, l.block, 0, l.s>>>(kind, rows, cols, CF(s), CF(a), F(r));
  else
    scale_kernel<double><<<l.grid, l.block, 0, l.s>>>(kind, rows, cols, CD(s), CD(a), D(r));
  return (int)cudaGetLastError();
}

extern "C" int gm_cuda_ew_sum(int ctype, int axis, size_t rows, size_t cols, double alpha, const void *x,
                              double beta, void *y, void *stream) {
  if (axis == 0) {
    gm_launch l(cols, stream);
    if (ctype == 0)
      colsum_kernel<float><<<l.grid, l.block, 0, l.s>>>(rows, cols, (float)alpha, CF(x), (float)beta, F(y));
    else
      colsum_kernel<double><<<l.grid, l.block, 0, l.s>>>(rows, cols, alpha, CD(x), beta, D(y));
  } else {
    gm_launch l(rows * GM_WARP_SIZE, stream);
    if (ctype == 0)
      rowsum_kernel<float><<<l.grid, l.block, 0, l.s>>>(rows, cols, (float)alpha, CF(x), (float)beta, F(y));
    else
      rowsum_kernel<double><<<l.grid, l.block, 0, l.s>>>(rows, cols, alpha, CD(x), beta, D(y));
  }
  return (int)cudaGetLastError();
}
