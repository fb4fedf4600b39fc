// CUDA kernels of the NN area and their extern "C" launchers (called
// through src/device/kernel_tables.h).  One thread per output or gradient element, each
// calling the gather-style element function of nn.h that the host loops
// also use, so every element has exactly one writer: convolve_, max_pool_
// and the x gradients are race-free by ownership.  dF/dw is a reduction
// over every output for each w element, in two range launches without
// barriers or atomics: a thread per (part of the output rows, w element)
// sums its part in double into scratch, then a thread per w element adds
// its parts in order and updates wd once.
// Launchers return the cudaError_t of the launch.
#include <cuda_runtime.h>

#include "launch_cuda.cuh"
#include "nn.h"

namespace {

#define GM_CU_NN(T)                                                                                \
  __device__ T conv_at(const T *x, const T *w, const gm_nn_geom *g, int64_t b, int64_t i, int64_t j) { \
    return gm_conv2d_at_##T(x, w, g, b, i, j);                                                     \
  }                                                                                                \
  __device__ T conv_dx_at(const T *w, const T *yd, const gm_nn_geom *g, int64_t b, int64_t i, int64_t j) { \
    return gm_conv2d_dx_at_##T(w, yd, g, b, i, j);                                                 \
  }                                                                                                \
  __device__ T pool_at(const T *x, const gm_nn_geom *g, int64_t b, int64_t i, int64_t j) {         \
    return gm_max_pool_at_##T(x, g, b, i, j);                                                      \
  }                                                                                                \
  __device__ T pool_dx_at(const T *x, const T *y, const T *yd, const gm_nn_geom *g, int64_t b, int64_t i, \
                          int64_t j) {                                                             \
    return gm_max_pool_dx_at_##T(x, y, yd, g, b, i, j);                                            \
  }

GM_CU_NN(float)
GM_CU_NN(double)

// Per-element kernels over image rows (batch item and row: one division
// per row) x the row's elements: ROWS_2D's geometry (launch_cuda.cuh),
// several image rows per block for narrow images (28 wide: 8 rows of 32
// threads), launched as range kernels.
#define NN_ROWS(b, i, j, n_rows, height, width)                                        \
  ROWS_2D(row_, j, (size_t)(n_rows), (size_t)(width))                                  \
    for (int64_t b = (int64_t)row_ / (height), i = (int64_t)row_ % (height), once_ = 1; once_; once_ = 0)

template <typename T>
__global__ void convolve_kernel(gm_nn_geom g, const T *x, const T *w, T *y) {
  NN_ROWS(b, i, j, g.batch * g.yh, g.yh, g.yw) y[(b * g.yh + i) * g.yw + j] += conv_at(x, w, &g, b, i, j);
}

template <typename T>
__global__ void max_pool_kernel(gm_nn_geom g, const T *x, T *y) {
  NN_ROWS(b, i, j, g.batch * g.yh, g.yh, g.yw) y[(b * g.yh + i) * g.yw + j] = pool_at(x, &g, b, i, j);
}

template <typename T>
__global__ void conv_dx_kernel(gm_nn_geom g, const T *w, const T *yd, T *xd) {
  NN_ROWS(b, i, j, g.batch * g.xh, g.xh, g.xw) xd[(b * g.xh + i) * g.xw + j] += conv_dx_at(w, yd, &g, b, i, j);
}

// dF/dw pass 1: items (part p, w element k), the w elements of a part
// adjacent (they read the same rows of x and yd, which stay in cache);
// part p covers `chunk` consecutive output rows of the whole batch and
// leaves its partial sum for w[k] in part[p * nk + k].  No barriers and
// no atomics: a range launch, plain loops on the emulated device.
template <typename T>
__global__ void conv_dw_part_kernel(gm_nn_geom g, int64_t chunk, size_t n_parts, const T *x, const T *yd,
                                    double *part) {
  const int64_t nk = g.kh * g.kw, rows = g.batch * g.yh;
  GRID_STRIDE(i, n_parts * (size_t)nk) {
    const int64_t p = (int64_t)(i / (size_t)nk), k = (int64_t)(i % (size_t)nk), k0 = k / g.kw, k1 = k % g.kw;
    int64_t o0lo, o0hi, o1lo, o1hi; // the outputs whose window puts w[k] inside x (as gm_conv2d_dw_at)
    gm_nn_span(g.anchor0 - k0 - g.start0, g.xh - 1 + g.anchor0 - k0 - g.start0, g.stride0, g.yh, &o0lo, &o0hi);
    gm_nn_span(g.anchor1 - k1 - g.start1, g.xw - 1 + g.anchor1 - k1 - g.start1, g.stride1, g.yw, &o1lo, &o1hi);
    const int64_t r1 = rows - p * chunk < chunk ? rows : (p + 1) * chunk;
    double s0 = 0, s1 = 0, s2 = 0, s3 = 0; // independent accumulators along a row
    for (int64_t r = p * chunk; r < r1; r++) {
      const int64_t b = r / g.yh, o0 = r % g.yh;
      if (o0 < o0lo || o0 >= o0hi) continue;
      const T *ydr = yd + (b * g.yh + o0) * g.yw;
      const T *xr = x + (b * g.xh + g.start0 + o0 * g.stride0 + k0 - g.anchor0) * g.xw + g.start1 + k1 - g.anchor1;
      int64_t o1 = o1lo;
      for (; o1hi - o1 >= 4; o1 += 4) {
        s0 += (double)ydr[o1] * (double)xr[o1 * g.stride1];
        s1 += (double)ydr[o1 + 1] * (double)xr[(o1 + 1) * g.stride1];
        s2 += (double)ydr[o1 + 2] * (double)xr[(o1 + 2) * g.stride1];
        s3 += (double)ydr[o1 + 3] * (double)xr[(o1 + 3) * g.stride1];
      }
      for (; o1 < o1hi; o1++) s0 += (double)ydr[o1] * (double)xr[o1 * g.stride1];
    }
    part[i] = (s0 + s1) + (s2 + s3);
  }
}

// dF/dw pass 2: w[k]'s partials in part order, added to wd[k] once.
template <typename T>
__global__ void conv_dw_finish_kernel(size_t nk, size_t n_parts, const double *part, T *wd) {
  GRID_STRIDE(k, nk) {
    double s = 0;
    for (size_t p = 0; p < n_parts; p++) s += part[p * nk + k];
    wd[k] += (T)s;
  }
}

template <typename T>
__global__ void pool_dx_kernel(gm_nn_geom g, const T *x, const T *y, const T *yd, T *xd) {
  NN_ROWS(b, i, j, g.batch * g.xh, g.xh, g.xw) xd[(b * g.xh + i) * g.xw + j] += pool_dx_at(x, y, yd, &g, b, i, j);
}

// The geometry of NN_ROWS: gm_launch_rows over image rows x width.
struct nn_rows_launch : gm_launch_rows {
  size_t rows, width;
  nn_rows_launch(int64_t rows_, int64_t width_, void *stream)
      : gm_launch_rows((size_t)rows_, (size_t)width_, stream), rows((size_t)rows_), width((size_t)width_) {}
};

}  // namespace


extern "C" int gm_cuda_nn_convolve(int ctype, const gm_nn_geom *g, const void *x, const void *w, void *y,
                                   const gm_launch_ctx *lc) {
  void *stream = lc->stream;
  nn_rows_launch l(g->batch * g->yh, g->yw, stream);
#define LAUNCH(T) GM_LAUNCH_ROWS(convolve_kernel<T>, l.grid, l.block, l.s, l.rows, l.width)(*g, (const T *)(x), (const T *)(w), (T *)(y))
  GM_CTYPE_LAUNCH(ctype, LAUNCH);
#undef LAUNCH
}

// Parts of the output rows for dF/dw: about NN_DW_ITEMS items (parts x w
// elements) in all, so that the GPU has threads and the finish pass few
// partials per w element.
#define NN_DW_ITEMS 16384

static int conv_dw(int ctype, const gm_nn_geom *g, const void *x, const void *yd, void *wd, const gm_launch_ctx *lc) {
  void *stream = lc->stream;
  const size_t nk = (size_t)(g->kh * g->kw), rows = (size_t)(g->batch * g->yh);
  if (nk == 0 || rows == 0) return 0;
  size_t n_parts = (NN_DW_ITEMS + nk - 1) / nk;
  if (n_parts > rows) n_parts = rows;
  const size_t chunk = (rows + n_parts - 1) / n_parts;
  n_parts = (rows + chunk - 1) / chunk;
  double *part = NULL;
  int err = gm_scratch_alloc(lc, n_parts * nk * sizeof(double), (void **)&part);
  if (err != 0) return err;
  gm_launch l(n_parts * nk, stream), f(nk, stream);
#define LAUNCH(T)                                                                                   \
  GM_LAUNCH_RANGE(conv_dw_part_kernel<T>, l.grid, l.block, l.s, n_parts * nk, (double)(chunk * (size_t)g->yw))( \
      *g, (int64_t)chunk, n_parts, (const T *)(x), (const T *)(yd), part);                         \
  GM_LAUNCH_RANGE(conv_dw_finish_kernel<T>, f.grid, f.block, f.s, nk, (double)n_parts)(nk, n_parts, part, (T *)(wd))
  GM_CTYPE_DO(ctype, LAUNCH)
#undef LAUNCH
  err = gm_ctype_bytes(ctype) ? (int)cudaGetLastError() : (int)cudaErrorInvalidValue;
  gm_scratch_free(lc, part);
  return err;
}

extern "C" int gm_cuda_nn_derive_convolve(int ctype, const gm_nn_geom *g, const void *x, void *xd, const void *w,
                                          void *wd, const void *yd, const gm_launch_ctx *lc) {
  void *stream = lc->stream;
  nn_rows_launch lx(g->batch * g->xh, g->xw, stream);
#define LAUNCH(T) GM_LAUNCH_ROWS(conv_dx_kernel<T>, lx.grid, lx.block, lx.s, lx.rows, lx.width)(*g, (const T *)(w), (const T *)(yd), (T *)(xd))
  GM_CTYPE_DO(ctype, LAUNCH)
#undef LAUNCH
  int err = (int)cudaGetLastError();
  if (err != 0) return err;
  return conv_dw(ctype, g, x, yd, wd, lc);
}

extern "C" int gm_cuda_nn_max_pool(int ctype, const gm_nn_geom *g, const void *x, void *y, const gm_launch_ctx *lc) {
  void *stream = lc->stream;
  nn_rows_launch l(g->batch * g->yh, g->yw, stream);
#define LAUNCH(T) GM_LAUNCH_ROWS(max_pool_kernel<T>, l.grid, l.block, l.s, l.rows, l.width)(*g, (const T *)(x), (T *)(y))
  GM_CTYPE_LAUNCH(ctype, LAUNCH);
#undef LAUNCH
}

extern "C" int gm_cuda_nn_derive_max_pool(int ctype, const gm_nn_geom *g, const void *x, void *xd, const void *y,
                                          const void *yd, const gm_launch_ctx *lc) {
  void *stream = lc->stream;
  nn_rows_launch l(g->batch * g->xh, g->xw, stream);
#define LAUNCH(T) GM_LAUNCH_ROWS(pool_dx_kernel<T>, l.grid, l.block, l.s, l.rows, l.width)(*g, (const T *)(x), (const T *)(y), (const T *)(yd), (T *)(xd))
  GM_CTYPE_LAUNCH(ctype, LAUNCH);
#undef LAUNCH
}
