// CUDA kernels of the strided fill and of the two BLAS cases the devices
// do not leave to the BLAS library, and their extern "C" launchers:
//  - scal by 0: x[i*incx] *= 0 as an IEEE product (NaN and Inf give NaN,
//    as on the host), not whatever the library does for alpha == 0;
//  - geam with beta 0: C := alpha op(A), a scaled copy or transpose that
//    never reads B.
#include <cuda_runtime.h>

#include "launch_cuda.cuh"

template <typename T>
__global__ void gm_fill_kernel(T *x, size_t n, size_t incx, T alpha) {
  GRID_STRIDE(i, n) x[i * incx] = alpha;
}

template <typename T>
__global__ void gm_scal_kernel(T *x, size_t n, size_t incx, T alpha) {
  GRID_STRIDE(i, n) x[i * incx] *= alpha;
}

// Column-major C (m x n, ldc) := alpha op(A): columns j on the 2-d grid's
// rows, elements i of a column along x (stores coalesced; a transposed A
// is read with stride lda).
template <typename T>
__global__ void gm_geam0_kernel(int trans, size_t m, size_t n, T alpha, const T *a, size_t lda, T *c, size_t ldc) {
  ROWS_2D(j, i, n, m) c[j * ldc + i] = alpha * (trans ? a[i * lda + j] : a[j * lda + i]);
}

extern "C" int gm_cuda_fill(int ctype, size_t n, double alpha, void *x, size_t incx, const gm_launch_ctx *lc) {
  void *stream = lc->stream;
  gm_launch l(n, stream);
#define LAUNCH(T) GM_LAUNCH_RANGE(gm_fill_kernel<T>, l.grid, l.block, l.s, n, 1)((T *)(x), n, incx, (T)alpha)
  GM_CTYPE_LAUNCH(ctype, LAUNCH);
#undef LAUNCH
}

extern "C" int gm_cuda_scal(int ctype, size_t n, double alpha, void *x, size_t incx, const gm_launch_ctx *lc) {
  void *stream = lc->stream;
  gm_launch l(n, stream);
#define LAUNCH(T) GM_LAUNCH_RANGE(gm_scal_kernel<T>, l.grid, l.block, l.s, n, 1)((T *)(x), n, incx, (T)alpha)
  GM_CTYPE_LAUNCH(ctype, LAUNCH);
#undef LAUNCH
}

extern "C" int gm_cuda_geam0(int ctype, int trans, size_t m, size_t n, double alpha, const void *a, size_t lda,
                             void *c, size_t ldc, const gm_launch_ctx *lc) {
  void *stream = lc->stream;
  if (m == 0 || n == 0) return 0;
  gm_launch_rows l(n, m, stream);
#define LAUNCH(T) GM_LAUNCH_RANGE(gm_geam0_kernel<T>, l.grid, l.block, l.s, n, m)(trans, m, n, (T)alpha, (const T *)(a), lda, (T *)(c), ldc)
  GM_CTYPE_LAUNCH(ctype, LAUNCH);
#undef LAUNCH
}
